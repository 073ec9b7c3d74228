/*
 * learn/links.c: a page's hyperlinks, resolved against its <base href>
 * (or its URL) by the fetch module's URL rules; the n-SET's raw material
 * (site-level paper, Sec. 2.1).
 */
#include "learn/learn.h"

#include <stdlib.h>
#include <string.h>

#include <libxml/tree.h>

#define WN_LINKS_DEFAULT_MAX 10000u
/* The libxml2 walk for <base> gives up after this many nodes: <base> sits
 * in <head>, at the top of the document. */
#define WN_BASE_SEARCH_MAX_NODES 100000u

/* The next node after node in document order within root, without
 * recursion (NULL at the end). */
static xmlNode *wn_links_next(xmlNode *node, xmlNode *root) {
  if (node->children)
    return node->children;
  while (node && !node->next && node != root)
    node = node->parent;
  return !node || node == root ? NULL : node->next;
}

/* The first <base href> of the document. */
static xmlChar *find_base_href(xmlNode *root) {
  uint32_t seen = 0;
  for (xmlNode *node = root; node && seen++ < WN_BASE_SEARCH_MAX_NODES;
       node = wn_links_next(node, root))
    if (node->type == XML_ELEMENT_NODE && node->name &&
        xmlStrcasecmp(node->name, (const xmlChar *)"base") == 0) {
      xmlChar *href = xmlGetProp(node, (const xmlChar *)"href");
      if (href)
        return href;
    }
  return NULL;
}

/* The base links of the page resolve against: its URL, or its first
 * <base href> resolved against the URL (one that does not resolve is
 * ignored, as browsers do). *base is malloc'd. */
static wn_err wn_links_base(xmlNode *root, const char *page_url, char **base, wn_diag *diag) {
  wn_err err = wn_url_resolve(NULL, page_url, base, diag); /* the URL must be a base */
  if (err)
    return err;
  xmlChar *href = find_base_href(root);
  if (href) {
    char *resolved = NULL;
    if (wn_url_resolve(*base, (const char *)href, &resolved, NULL) == WN_OK) {
      free(*base);
      *base = resolved;
    }
    xmlFree(href);
  }
  return WN_OK;
}

void wn_links_free(wn_link *links, size_t n) {
  if (!links)
    return;
  for (size_t i = 0; i < n; i++)
    free(links[i].url);
  free(links);
}

wn_err wn_learn_links(const wn_dom_page *page, const char *page_url, size_t max_links,
                      wn_link **out, size_t *n_out, wn_diag *diag) {
  wn_err err = WN_OK;
  wn_link *links = NULL;
  size_t n = 0, alloc = 0;
  char *base = NULL;
  *out = NULL;
  *n_out = 0;
  if (!max_links)
    max_links = WN_LINKS_DEFAULT_MAX;
  xmlDoc *doc = wn_dom_xml_doc(page);
  if (!doc)
    return wn_diag_set(diag, WN_EINVAL, "links: page was parsed without keep_xml");
  if ((err = wn_links_base(xmlDocGetRootElement(doc), page_url, &base, diag)))
    goto out;

  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  for (uint32_t i = 0; i < count && n < max_links; i++) {
    if (nodes[i].tag != WN_TAG_A || !nodes[i].xml)
      continue;
    xmlChar *href = xmlGetProp((xmlNode *)nodes[i].xml, (const xmlChar *)"href");
    if (!href)
      continue;
    char *url = NULL;
    wn_err rerr = wn_url_resolve(base, (const char *)href, &url, NULL);
    xmlFree(href);
    if (rerr == WN_ENOMEM) {
      err = wn_diag_set(diag, WN_ENOMEM, "links: out of memory");
      goto out;
    }
    if (rerr)
      continue; /* mailto:, javascript:, unparsable: not a page to crawl */
    if (n == alloc) {
      size_t next = alloc ? alloc * 2 : 32;
      if (next > max_links)
        next = max_links;
      wn_link *grown = realloc(links, next * sizeof *links);
      if (!grown) {
        free(url);
        err = wn_diag_set(diag, WN_ENOMEM, "links: out of memory");
        goto out;
      }
      links = grown;
      alloc = next;
    }
    links[n].url = url;
    links[n].node = i;
    n++;
  }
  *out = links;
  *n_out = n;
  links = NULL;
  n = 0;
out:
  wn_links_free(links, n);
  free(base);
  return err;
}

/* ---- other versions of the page ------------------------------------------------ */

#define WN_ALTERNATES_MAX 1024u

/* 1 if the space-separated list rel holds the token "alternate". */
static int wn_rel_has_alternate(const xmlChar *rel) {
  static const char token[] = "alternate";
  const size_t tl = sizeof token - 1;
  const char *p = (const char *)rel;
  while (*p) {
    while (wn_html_space(*p))
      p++;
    size_t n = 0;
    while (p[n] && p[n] != ' ' && p[n] != '\t' && p[n] != '\n' && p[n] != '\r' && p[n] != '\f')
      n++;
    if (n == tl && xmlStrncasecmp((const xmlChar *)p, (const xmlChar *)token, (int)tl) == 0)
      return 1;
    p += n;
  }
  return 0;
}

wn_err wn_learn_alternates(const wn_dom_page *page, const char *page_url, wn_link **out,
                           size_t *n_out, wn_diag *diag) {
  wn_err err = WN_OK;
  wn_link *alts = NULL;
  size_t n = 0;
  char *base = NULL;
  *out = NULL;
  *n_out = 0;
  xmlDoc *doc = wn_dom_xml_doc(page);
  if (!doc)
    return WN_OK;
  xmlNode *root = xmlDocGetRootElement(doc);
  if (!root)
    return WN_OK;
  if ((err = wn_links_base(root, page_url, &base, diag)))
    goto out;
  alts = calloc(WN_ALTERNATES_MAX, sizeof *alts);
  if (!alts) {
    err = wn_diag_set(diag, WN_ENOMEM, "links: out of memory");
    goto out;
  }
  const char *lang = wn_dom_lang(page);
  /* The whole document in order (the <link>s are in <head>, language
   * switchers anywhere); bounded by the node cap the parser enforced. */
  xmlNode *node = root;
  while (node && n < WN_ALTERNATES_MAX) {
    if (node->type == XML_ELEMENT_NODE && node->name) {
      int is_link = xmlStrcasecmp(node->name, (const xmlChar *)"link") == 0;
      int is_a = !is_link && xmlStrcasecmp(node->name, (const xmlChar *)"a") == 0;
      xmlChar *hreflang = is_link || is_a ? xmlGetProp(node, (const xmlChar *)"hreflang") : NULL;
      int take = 0;
      if (hreflang && is_link) {
        xmlChar *rel = xmlGetProp(node, (const xmlChar *)"rel");
        take = rel && wn_rel_has_alternate(rel);
        xmlFree(rel);
      } else if (hreflang) {
        take = wn_learn_lang_differs(lang, (const char *)hreflang);
      }
      xmlFree(hreflang);
      xmlChar *href = take ? xmlGetProp(node, (const xmlChar *)"href") : NULL;
      if (href) {
        char *url = NULL;
        wn_err rerr = wn_url_resolve(base, (const char *)href, &url, NULL);
        xmlFree(href);
        if (rerr == WN_ENOMEM) {
          err = wn_diag_set(diag, WN_ENOMEM, "links: out of memory");
          goto out;
        }
        if (!rerr) {
          alts[n].url = url;
          alts[n].node = WN_DOM_NONE;
          n++;
        }
      }
    }
    node = wn_links_next(node, root);
  }
  *out = alts;
  *n_out = n;
  alts = NULL;
  n = 0;
out:
  wn_links_free(alts, n);
  free(base);
  return err;
}
