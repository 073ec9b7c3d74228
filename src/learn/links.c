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

/* The first <base href> of the document, walked without recursion. */
static xmlChar *find_base_href(xmlNode *root) {
  xmlNode *node = root;
  uint32_t seen = 0;
  while (node && seen++ < WN_BASE_SEARCH_MAX_NODES) {
    if (node->type == XML_ELEMENT_NODE && node->name &&
        xmlStrcasecmp(node->name, (const xmlChar *)"base") == 0) {
      xmlChar *href = xmlGetProp(node, (const xmlChar *)"href");
      if (href)
        return href;
    }
    if (node->children) {
      node = node->children;
      continue;
    }
    while (node && !node->next && node != root)
      node = node->parent;
    if (!node || node == root)
      break;
    node = node->next;
  }
  return NULL;
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
  xmlChar *base_href = NULL;
  *out = NULL;
  *n_out = 0;
  if (!max_links)
    max_links = WN_LINKS_DEFAULT_MAX;
  xmlDoc *doc = wn_dom_xml_doc(page);
  if (!doc)
    return wn_diag_set(diag, WN_EINVAL, "links: page was parsed without keep_xml");
  /* The page URL must itself be a valid base. */
  err = wn_url_resolve(NULL, page_url, &base, diag);
  if (err)
    goto out;
  base_href = find_base_href(xmlDocGetRootElement(doc));
  if (base_href) {
    char *resolved = NULL;
    /* A <base href> that does not resolve is ignored, as browsers do. */
    if (wn_url_resolve(base, (const char *)base_href, &resolved, NULL) == WN_OK) {
      free(base);
      base = resolved;
    }
  }

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
  xmlFree(base_href);
  free(base);
  return err;
}
