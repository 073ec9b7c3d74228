/*
 * dom/build_xml.c: the compact tree copied from libxml2's document, for a
 * page that keeps it (keep_xml: HTML rendering and link extraction read
 * it). The same tree as the SAX builder's (tests/dom/test_sax.c).
 */
#include "dom/build.h"

#include <libxml/HTMLparser.h>
#include <libxml/tree.h>
#include <stdlib.h>
#include <string.h>

/* ---- from libxml2's tree (keep_xml) ----------------------------------------
 *
 * With keep_xml the page keeps libxml2's document (HTML rendering and link
 * extraction read it), so the compact tree is copied from it. The tree is
 * walked with its own parent and sibling links, never by recursion, so a
 * page cannot choose our stack depth; an explicit stack bounded by
 * max_depth holds the open elements. */

static wn_err wn_svg_gather(xmlNodePtr n, int text, uint32_t depth, wn_buf *out);

/* An inline <svg> of libxml2's tree under parent: its element and its
 * drawn text, if it draws any (see WN_SVG_ROOT). */
static wn_err wn_build_svg(wn_builder *b, xmlNodePtr svg, wn_frame *parent, uint32_t top,
                           int keep_xml, wn_diag *diag) {
  xmlChar *hidden = xmlGetNoNsProp(svg, (const xmlChar *)"aria-hidden");
  int skip = wn_svg_hidden((const char *)hidden);
  xmlFree(hidden);
  if (skip)
    return WN_OK;
  wn_buf text;
  wn_buf_init(&text, WN_XML_MAX_TEXT + 1);
  wn_err err = wn_svg_gather(svg->children, 0, 1, &text);
  int drawn = 0;
  for (size_t k = 0; !err && k < text.len && !drawn; k++) {
    char c = text.data[k];
    drawn = c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f';
  }
  if (!err && drawn) {
    xmlChar *id = xmlGetNoNsProp(svg, (const xmlChar *)"id");
    xmlChar *cls = xmlGetNoNsProp(svg, (const xmlChar *)"class");
    int ws_before = 0;
    xmlNodePtr prev = svg->prev;
    if (prev && prev->type == XML_TEXT_NODE && prev->content && prev->content[0]) {
      char last = (char)prev->content[xmlStrlen(prev->content) - 1];
      ws_before = last == ' ' || last == '\n' || last == '\t' || last == '\r';
    }
    wn_frame frame;
    err = wn_emit_element(b, parent, &parent->last_child, top, "svg", &wn_svg_entry,
                          (const char *)id, (const char *)cls, 0, NULL, ws_before,
                          keep_xml ? svg : NULL, &frame, diag);
    xmlFree(id);
    xmlFree(cls);
    if (!err)
      err = wn_buf_append_char(&text, '\0');
    if (!err)
      err = wn_emit_text(b, &frame, top + 1, text.data, NULL, diag);
  }
  wn_buf_free(&text);
  return err;
}

/* The drawn text of an <svg>'s children into out (see WN_SVG_ROOT), as
 * the SAX builder gathers it: text > 0 inside a <text>, depth bounded by
 * libxml2's. WN_ENOMEM; past the cap the rest is dropped. */
static wn_err wn_svg_gather(xmlNodePtr n, int text, uint32_t depth, wn_buf *out) {
  for (; n && depth <= WN_XML_MAX_DEPTH; n = n->next) {
    wn_err err = WN_OK;
    if (n->type == XML_ELEMENT_NODE && n->name) {
      char low[WN_MAX_TAG_NAME + 1];
      wn_lower_name((const char *)n->name, low);
      uint8_t kind = wn_svg_kind(low);
      if (kind == WN_SVG_HIDE)
        continue;
      if ((err = wn_svg_gather(n->children, text + (kind == WN_SVG_TEXT), depth + 1, out)))
        return err;
      if (kind == WN_SVG_TEXT && !text)
        err = wn_buf_append_char(out, ' ');
    } else if (text && (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE) &&
               n->content) {
      err = wn_buf_append(out, n->content, (size_t)xmlStrlen(n->content));
    }
    if (err == WN_ENOMEM)
      return err;
  }
  return WN_OK;
}

static wn_err wn_build_from_xml(wn_builder *b, xmlNodePtr root, int keep_xml, wn_diag *diag) {
  wn_dom_page *page = b->page;
  wn_err err = WN_OK;
  wn_frame *stack = wn_arena_alloc(page->arena, ((size_t)b->max_depth + 2) * sizeof *stack);
  if (!stack)
    return WN_ENOMEM;
  uint32_t top = 0; /* number of open frames */
  uint32_t root_sibling = WN_DOM_NONE;

  xmlNodePtr cur = root;
  while (cur) {
    int descend = 0;
    const char *raw = (const char *)cur->name;
    if (cur->type == XML_ELEMENT_NODE && raw) {
      char name[WN_MAX_TAG_NAME + 1];
      wn_lower_name(raw, name);
      const wn_tag_entry *entry = wn_tag_lookup(name);
      if (top > 0 && strcmp(name, "svg") == 0) {
        err = wn_build_svg(b, cur, &stack[top - 1], top, keep_xml, diag);
        if (err)
          return err;
      } else if (!wn_skipped(b, entry)) {
        xmlChar *id = xmlGetNoNsProp(cur, (const xmlChar *)"id");
        xmlChar *cls = xmlGetNoNsProp(cur, (const xmlChar *)"class");
        int has_href = xmlHasProp(cur, (const xmlChar *)"href") != NULL;
        const char *const *names = wn_dom_kept_names(entry ? entry->tag : WN_TAG_OTHER);
        xmlChar *kept[WN_DOM_MAX_KEPT + 1] = {NULL};
        for (uint32_t k = 0; names && names[k]; k++)
          kept[k] = xmlGetProp(cur, (const xmlChar *)names[k]);
        /* White space before it: libxml2's previous sibling is text that
         * ends in it. */
        int ws_before = 0;
        xmlNodePtr prev = cur->prev;
        if (prev && prev->type == XML_TEXT_NODE && prev->content && prev->content[0]) {
          char last = (char)prev->content[xmlStrlen(prev->content) - 1];
          ws_before = last == ' ' || last == '\n' || last == '\t' || last == '\r';
        }
        wn_frame frame;
        err = wn_emit_element(b, top ? &stack[top - 1] : NULL,
                              top ? &stack[top - 1].last_child : &root_sibling, top, name, entry,
                              (const char *)id, (const char *)cls, has_href,
                              names ? (const char *const *)kept : NULL, ws_before,
                              keep_xml ? cur : NULL, &frame, diag);
        xmlFree(id);
        xmlFree(cls);
        for (uint32_t k = 0; names && names[k]; k++)
          xmlFree(kept[k]);
        if (err)
          return err;
        if (cur->children) {
          stack[top++] = frame;
          descend = 1;
        }
      }
    } else if ((cur->type == XML_TEXT_NODE || cur->type == XML_CDATA_SECTION_NODE) &&
               cur->content && top > 0) {
      err = wn_emit_text(b, &stack[top - 1], top, (const char *)cur->content,
                         keep_xml ? cur : NULL, diag);
      if (err)
        return err;
    }
    if (descend) {
      cur = cur->children;
      continue;
    }
    /* Next in document order: a sibling, or climb until one has a sibling.
     * Every element we climb out of was pushed iff it had children. */
    while (cur && cur != root && !cur->next) {
      cur = cur->parent;
      if (top > 0)
        top--;
    }
    if (!cur || cur == root)
      break;
    cur = cur->next;
  }
  return WN_OK;
}

/* Elements that came after the root closed: libxml2's tree builder puts
 * them (in an implied <html>) beside the root when a doctype, comment or
 * PI stands before it, where no walk of the page finds them. They join
 * the root, as the SAX builder has them (and as the tree builder does
 * when the root is the document's first child). */
static void wn_xml_adopt_strays(xmlDocPtr doc) {
  xmlNodePtr root = xmlDocGetRootElement(doc);
  if (!root)
    return;
  for (xmlNodePtr c = root->next, next; c; c = next) {
    next = c->next;
    if (c->type != XML_ELEMENT_NODE)
      continue;
    xmlUnlinkNode(c);
    xmlAddChild(root, c);
  }
}

/* The metadata side table from libxml2's tree: every element under the
 * root, in document order, as the SAX builder takes them from the
 * events. */
static const char *wn_xml_get(const void *el, const char *name, void **owned) {
  xmlChar *v = xmlGetProp((xmlNodePtr)(uintptr_t)el, (const xmlChar *)name);
  *owned = v;
  return (const char *)v;
}

static uint8_t wn_xml_meta_el(xmlNodePtr n) {
  if (n->type != XML_ELEMENT_NODE || !n->name)
    return WN_ME_NONE;
  char name[WN_MAX_TAG_NAME + 1];
  wn_lower_name((const char *)n->name, name);
  const wn_tag_entry *entry = wn_tag_lookup(name);
  return entry ? entry->meta : WN_ME_NONE;
}

static wn_err wn_meta_from_xml(wn_builder *b, xmlNodePtr root) {
  wn_dom_page *page = b->page;
  wn_err err = WN_OK;
  void *owned = NULL;
  int oom = 0;
  const char *lang = wn_xml_get(root, "lang", &owned);
  if (!lang) {
    xmlFree(owned);
    lang = wn_xml_get(root, "xml:lang", &owned);
  }
  page->lang = wn_dom_value_copy(page->arena, lang, WN_DOM_MAX_KEPT_VALUE, &oom);
  xmlFree(owned);
  if (oom)
    return WN_ENOMEM;
  for (xmlNodePtr n = root; n && !err;) {
    uint8_t me = wn_xml_meta_el(n);
    if (me == WN_ME_BASE) {
      /* The first <base> of a <head> child of the root. */
      xmlNodePtr head = n->parent;
      if (!head || head->parent != root || wn_xml_meta_el(head) != WN_ME_HEAD)
        me = WN_ME_NONE;
      for (xmlNodePtr x = n->prev; x && me; x = x->prev)
        if (wn_xml_meta_el(x) == WN_ME_BASE)
          me = WN_ME_NONE;
    } else if ((me == WN_ME_TITLE && b->title_done) || (me == WN_ME_H1 && b->h1_done)) {
      me = WN_ME_NONE;
    } else if (me == WN_ME_H1 || me == WN_ME_TITLE || me == WN_ME_SCRIPT) {
      /* One of a kind at a time: not inside another. */
      for (xmlNodePtr x = n->parent; x && x != root && me; x = x->parent)
        if (wn_xml_meta_el(x) == me)
          me = WN_ME_NONE;
    }
    wn_dom_meta *m = wn_dom_meta_element(page, me, n, wn_xml_get, &err);
    if (m && (me == WN_ME_SCRIPT || me == WN_ME_TITLE || me == WN_ME_H1)) {
      xmlChar *text = xmlNodeGetContent(n);
      size_t len = text ? strlen((const char *)text) : 0, cap = wn_dom_meta_cap(m->kind);
      int cut = len > cap;
      if (cut)
        len = cap;
      err = wn_dom_meta_text(page, page->n_meta - 1, (const char *)text, len, cut);
      if (text && !wn_dom_meta_blank((const char *)text, len)) {
        if (me == WN_ME_TITLE)
          b->title_done = 1;
        if (me == WN_ME_H1)
          b->h1_done = 1;
      }
      xmlFree(text);
    }
    if (n->type == XML_ELEMENT_NODE && n->children) {
      n = n->children;
      continue;
    }
    while (n && n != root && !n->next)
      n = n->parent;
    if (!n || n == root)
      break;
    n = n->next;
  }
  return err;
}

wn_err wn_build_xml(wn_builder *b, const char *utf8, size_t len, int options, xmlDocPtr *doc,
                    wn_diag *diag) {
  /* htmlReadMemory returns NULL, or a tree cut short, when an allocation
   * fails; only its errors say so. */
  wn_xml_errors xerrs = {.ctxt = NULL, .oom = 0};
  WN_WITH_XML_ERRORS(&xerrs, *doc = htmlReadMemory(utf8, (int)len, NULL, "UTF-8", options));
  if (!*doc || xerrs.oom)
    return WN_ENOMEM;
  wn_xml_adopt_strays(*doc);
  xmlNodePtr root = xmlDocGetRootElement(*doc);
  wn_err err = WN_OK;
  if (root)
    err = wn_build_from_xml(b, root, 1, diag);
  if (root && !err)
    err = wn_meta_from_xml(b, root);
  return err;
}
