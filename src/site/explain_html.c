/*
 * site/explain_html.c: winnow-dump explain --html: the page itself, as a
 * browser shows it, each element painted by its label (template, kept,
 * dropped), the selected subtrees and the dropped boxes outlined, the
 * page's own blocks marked, a legend on top; scripts stripped.
 */
#include "site/explain_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/HTMLparser.h>
#include <libxml/HTMLtree.h>
#include <libxml/tree.h>

/* Colours legible on white: pale backgrounds under black text, and
 * outlines in saturated colours. !important because the page's own
 * stylesheet may set backgrounds; attribute selectors on data-wn so the
 * page's classes stay as they were. */
static const char wn_explain_style[] =
    "[data-wn=template]{background:#e4e4e4 !important;color:#555 !important}\n"
    "[data-wn=kept]{background:#c9f0c9 !important;color:#000 !important}\n"
    "[data-wn=dropped]{background:#ffd9d2 !important;color:#000 !important}\n"
    "[data-wn-sel]{outline:3px solid #1a7f37 !important;outline-offset:2px}\n"
    "[data-wn-box]{outline:2px dashed #c62828 !important}\n"
    "[data-wn-own]{outline:2px dotted #1565c0 !important}\n"
    "[data-wn-cut]{outline:2px dotted #6a1b9a !important}\n"
    "#wn-legend{position:fixed;top:0;left:0;right:0;z-index:2147483647;background:#fff;"
    "color:#000;border-bottom:2px solid #333;font:13px/1.5 sans-serif;padding:6px 10px}\n"
    "#wn-legend span{display:inline-block;margin:0 10px 0 0;padding:1px 6px}\n"
    "#wn-legend b{margin-right:12px}\n"
    "body{margin-top:56px !important}\n";

static xmlNodePtr wn_new_child(xmlNodePtr parent, const char *name, const char *text) {
  return xmlNewTextChild(parent, NULL, (const xmlChar *)name, (const xmlChar *)text);
}

static void wn_set(xmlNodePtr node, const char *name, const char *value) {
  xmlSetProp(node, (const xmlChar *)name, (const xmlChar *)value);
}

/* Scripts (and inline event handlers, a <base> that would send links
 * elsewhere, and the page's own charset declaration) out, so the page renders offline as it was parsed. Walks the
 * document without recursion, by its child/next/parent links. */
static void wn_strip_scripts(xmlDocPtr doc) {
  xmlNodePtr cur = xmlDocGetRootElement(doc);
  while (cur) {
    xmlNodePtr next = NULL;
    if (cur->type == XML_ELEMENT_NODE &&
        (xmlStrcasecmp(cur->name, (const xmlChar *)"script") == 0 ||
         xmlStrcasecmp(cur->name, (const xmlChar *)"base") == 0 ||
         /* the page's charset declaration: the output is UTF-8 and says so */
         (xmlStrcasecmp(cur->name, (const xmlChar *)"meta") == 0 &&
          (xmlHasProp(cur, (const xmlChar *)"charset") ||
           xmlHasProp(cur, (const xmlChar *)"http-equiv"))))) {
      /* Find the next node before unlinking this one. */
      for (xmlNodePtr up = cur; up && !next; up = up->parent)
        next = up->next;
      xmlUnlinkNode(cur);
      xmlFreeNode(cur);
      cur = next;
      continue;
    }
    if (cur->type == XML_ELEMENT_NODE) {
      for (xmlAttrPtr a = cur->properties; a;) {
        xmlAttrPtr an = a->next;
        if (a->name && (a->name[0] == 'o' || a->name[0] == 'O') &&
            (a->name[1] == 'n' || a->name[1] == 'N'))
          xmlRemoveProp(a);
        a = an;
      }
    }
    if (cur->children && cur->type == XML_ELEMENT_NODE) {
      cur = cur->children;
      continue;
    }
    for (xmlNodePtr up = cur; up && !next; up = up->parent)
      next = up->next;
    cur = next;
  }
}

wn_err wn_explain_html(const wn_explain *ex, char **out, size_t *len, wn_diag *diag) {
  wn_err err = WN_OK;
  wn_dom_page *page = NULL;
  xmlChar *mem = NULL;
  int size = 0;
  *out = NULL;
  /* A parse of our own with the libxml2 tree kept: the parse is a pure
   * function of the bytes, so its nodes have the indices the trace uses. */
  wn_dom_options po = {.keep_xml = 1, .transport_charset = ex->charset[0] ? ex->charset : NULL};
  if ((err = wn_dom_parse(ex->bytes, ex->len, &po, &page, diag)))
    return err;
  uint32_t count = 0, n_sel = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  xmlDocPtr doc = wn_dom_xml_doc(page);
  uint32_t ex_count = 0;
  wn_dom_nodes(ex->page, &ex_count);
  if (!doc || count != ex_count) {
    err = wn_diag_set(diag, WN_EPARSE, "explain: the page has no HTML tree to paint");
    goto out;
  }
  const uint8_t *keep = wn_detect_keep_flags(ex->res);
  const wn_detect_trace *t = &ex->trace;
  const uint32_t *sel = wn_detect_selected(ex->res, &n_sel);
  for (uint32_t i = 0; i < count; i++) {
    const wn_dom_node *n = &nodes[i];
    if (n->tag == WN_TAG_TEXT || !n->xml || n->tag == WN_TAG_HTML || n->tag == WN_TAG_BODY)
      continue;
    /* An element is painted by its own text: kept, page-specific but left
     * out, or template. (Painting whole subtrees would paint the body.) */
    int k = 0, d = 0, tp = 0, own = 0;
    for (uint32_t c = n->first_child; c != WN_DOM_NONE; c = nodes[c].next_sibling) {
      if (nodes[c].tag != WN_TAG_TEXT)
        continue;
      /* bit 1: the page's own block or brought in by the span; bit 2: cut */
      own |= !t->own ? 0 : t->own[c] == 2 ? 2 : t->own[c] ? 1 : 0;
      if (keep[c])
        k = 1;
      else if (t->fallback ? 1 : t->cand[c])
        d = 1;
      else
        tp = 1;
    }
    if (k || d || tp)
      wn_set(n->xml, "data-wn", k ? "kept" : d ? "dropped" : "template");
    if (t->dropped && t->dropped[i])
      wn_set(n->xml, "data-wn-box", "dropped");
    if (own & 1)
      wn_set(n->xml, "data-wn-own", "1");
    if (own & 2)
      wn_set(n->xml, "data-wn-cut", "1");
  }
  for (uint32_t k = 0; k < n_sel; k++)
    if (nodes[sel[k]].xml && nodes[sel[k]].tag != WN_TAG_HTML)
      wn_set(nodes[sel[k]].xml, "data-wn-sel", "1");
  wn_strip_scripts(doc);
  xmlNodePtr root = xmlDocGetRootElement(doc);
  xmlNodePtr head = NULL, body = NULL;
  for (xmlNodePtr c = root ? root->children : NULL; c; c = c->next) {
    if (c->type != XML_ELEMENT_NODE)
      continue;
    if (!head && xmlStrcasecmp(c->name, (const xmlChar *)"head") == 0)
      head = c;
    if (!body && xmlStrcasecmp(c->name, (const xmlChar *)"body") == 0)
      body = c;
  }
  if (!root || !body) {
    err = wn_diag_set(diag, WN_EPARSE, "explain: the page has no body to paint");
    goto out;
  }
  if (!head) {
    head = xmlNewNode(NULL, (const xmlChar *)"head");
    if (head && !xmlAddPrevSibling(body, head)) {
      xmlFreeNode(head);
      head = NULL;
    }
  }
  xmlNodePtr meta = head ? xmlNewNode(NULL, (const xmlChar *)"meta") : NULL;
  if (meta) {
    wn_set(meta, "charset", "utf-8");
    if (head->children)
      xmlAddPrevSibling(head->children, meta);
    else
      xmlAddChild(head, meta);
  }
  xmlNodePtr style = head ? wn_new_child(head, "style", NULL) : NULL;
  if (style)
    xmlAddChild(style, xmlNewText((const xmlChar *)wn_explain_style));
  /* The legend: first in the body, fixed at the top of the window. */
  xmlNodePtr legend = xmlNewNode(NULL, (const xmlChar *)"div");
  if (!style || !legend) {
    xmlFreeNode(legend);
    err = wn_diag_set(diag, WN_ENOMEM, "out of memory");
    goto out;
  }
  wn_set(legend, "id", "wn-legend");
  char head_line[512];
  snprintf(head_line, sizeof head_line,
           "winnow explain %s: %s, confidence %.2f%s%s", ex->site,
           wn_detect_method(ex->res), t->confidence, t->fallback ? ", fallback: " : "",
           t->fallback ? wn_detect_fallback_name(t->fallback) : "");
  xmlNodePtr b = wn_new_child(legend, "b", head_line);
  xmlNodePtr s1 = wn_new_child(legend, "span", "kept: main content");
  /* FastCE: "left out" is what the rules or a stored block left out of
   * the blocks on content paths; "template" is every block off them. */
  xmlNodePtr s2 = wn_new_child(legend, "span",
                               ex->fce ? "on a content path or in an extracted block, left out"
                                       : "page-specific, left out");
  xmlNodePtr s3 = wn_new_child(legend, "span", ex->fce ? "not on a content path" : "template");
  xmlNodePtr s4 = wn_new_child(legend, "span", "selected region");
  xmlNodePtr s5 = wn_new_child(legend, "span", "links box left out");
  xmlNodePtr s6 = wn_new_child(legend, "span", "the page's own block (single-page reading)");
  xmlNodePtr s7 = wn_new_child(legend, "span", "cut by the story's span");
  if (!b || !s1 || !s2 || !s3 || !s4 || !s5 || !s6 || !s7) {
    xmlFreeNode(legend);
    err = wn_diag_set(diag, WN_ENOMEM, "out of memory");
    goto out;
  }
  wn_set(s1, "style", "background:#c9f0c9");
  wn_set(s2, "style", "background:#ffd9d2");
  wn_set(s3, "style", "background:#e4e4e4;color:#555");
  wn_set(s4, "style", "outline:3px solid #1a7f37");
  wn_set(s5, "style", "outline:2px dashed #c62828");
  wn_set(s6, "style", "outline:2px dotted #1565c0");
  wn_set(s7, "style", "outline:2px dotted #6a1b9a");
  if (body->children)
    xmlAddPrevSibling(body->children, legend);
  else
    xmlAddChild(body, legend);
  htmlDocDumpMemoryFormat(doc, &mem, &size, 0);
  if (!mem || size < 0) {
    err = wn_diag_set(diag, WN_ENOMEM, "explain: libxml2 could not serialise the page");
    goto out;
  }
  *out = malloc((size_t)size + 1);
  if (!*out) {
    err = wn_diag_set(diag, WN_ENOMEM, "out of memory");
    goto out;
  }
  memcpy(*out, mem, (size_t)size);
  (*out)[size] = '\0';
  if (len)
    *len = (size_t)size;
out:
  xmlFree(mem);
  wn_dom_free(page);
  return err;
}
