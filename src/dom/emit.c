/*
 * dom/emit.c: the steps both tree builders take (build_sax.c,
 * build_xml.c), so the tree is the same whichever ran: the tag table, a
 * node's emission (an element with its kept attributes, a text node with
 * its white space and <pre> text), inline SVG's kinds, libxml2's error
 * handler, and the tree of an empty page.
 */
#include "dom/build.h"
#include "dom/dom.h"
#include "dom/dom_int.h"

#include <libxml/HTMLparser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Block-level elements break a line in text output (HTML's flow content
 * that starts a new line when rendered). Not content, so left out of the
 * tree with their subtrees: <head>, scripts and styles, embedded documents
 * and graphics, and the form controls whose text is user interface.
 * Sorted by name for bsearch. */
static const wn_tag_entry wn_tags[] = {
    {"a", WN_TAG_A, 0, WN_ME_NONE},
    {"address", WN_TAG_OTHER, 1, WN_ME_NONE},
    {"article", WN_TAG_ARTICLE, 1, WN_ME_NONE},
    {"aside", WN_TAG_ASIDE, 1, WN_ME_NONE},
    {"b", WN_TAG_B, 0, WN_ME_NONE},
    {"base", WN_TAG_OTHER, 0, WN_ME_BASE},
    {"blockquote", WN_TAG_BLOCKQUOTE, 1, WN_ME_NONE},
    {"body", WN_TAG_BODY, 1, WN_ME_NONE},
    {"br", WN_TAG_BR, 1, WN_ME_NONE},
    {"button", WN_TAG_BUTTON, 0, WN_ME_NONE},
    {"canvas", WN_TAG_OTHER, WN_SKIP, WN_ME_NONE},
    {"caption", WN_TAG_OTHER, 1, WN_ME_NONE},
    {"center", WN_TAG_CENTER, 1, WN_ME_NONE},
    {"datalist", WN_TAG_OTHER, WN_SKIP, WN_ME_NONE},
    {"dd", WN_TAG_DD, 1, WN_ME_NONE},
    {"details", WN_TAG_OTHER, 1, WN_ME_NONE},
    {"dialog", WN_TAG_OTHER, 1, WN_ME_NONE},
    {"dir", WN_TAG_OTHER, 1, WN_ME_NONE},
    {"div", WN_TAG_DIV, 1, WN_ME_NONE},
    {"dl", WN_TAG_DL, 1, WN_ME_NONE},
    {"dt", WN_TAG_DT, 1, WN_ME_NONE},
    {"em", WN_TAG_EM, 0, WN_ME_NONE},
    /* Void in HTML, but libxml2 (2.9) nests what follows it inside it:
     * not skipped, or that content would be lost. */
    {"embed", WN_TAG_OTHER, 0, WN_ME_NONE},
    {"fieldset", WN_TAG_OTHER, 1, WN_ME_NONE},
    {"figcaption", WN_TAG_FIGCAPTION, 1, WN_ME_NONE},
    {"figure", WN_TAG_FIGURE, 1, WN_ME_NONE},
    {"font", WN_TAG_FONT, 0, WN_ME_NONE},
    {"footer", WN_TAG_FOOTER, 1, WN_ME_NONE},
    {"form", WN_TAG_FORM, 1, WN_ME_NONE},
    {"frame", WN_TAG_OTHER, 1, WN_ME_NONE},
    {"frameset", WN_TAG_OTHER, 1, WN_ME_NONE},
    {"h1", WN_TAG_H1, 1, WN_ME_H1},
    {"h2", WN_TAG_H2, 1, WN_ME_NONE},
    {"h3", WN_TAG_H3, 1, WN_ME_NONE},
    {"h4", WN_TAG_H4, 1, WN_ME_NONE},
    {"h5", WN_TAG_H5, 1, WN_ME_NONE},
    {"h6", WN_TAG_H6, 1, WN_ME_NONE},
    {"head", WN_TAG_OTHER, WN_SKIP, WN_ME_HEAD},
    {"header", WN_TAG_HEADER, 1, WN_ME_NONE},
    {"hr", WN_TAG_HR, 1, WN_ME_NONE},
    {"html", WN_TAG_HTML, 1, WN_ME_NONE},
    {"i", WN_TAG_I, 0, WN_ME_NONE},
    {"iframe", WN_TAG_OTHER, WN_SKIP, WN_ME_NONE},
    {"img", WN_TAG_IMG, 0, WN_ME_NONE},
    {"input", WN_TAG_INPUT, 0, WN_ME_NONE},
    {"label", WN_TAG_LABEL, 0, WN_ME_NONE},
    {"legend", WN_TAG_OTHER, 1, WN_ME_NONE},
    {"li", WN_TAG_LI, 1, WN_ME_NONE},
    {"link", WN_TAG_OTHER, 0, WN_ME_LINK},
    {"listing", WN_TAG_OTHER, 1, WN_ME_NONE},
    {"main", WN_TAG_MAIN, 1, WN_ME_NONE},
    {"math", WN_TAG_OTHER, WN_SKIP, WN_ME_NONE},
    {"menu", WN_TAG_OTHER, 1, WN_ME_NONE},
    {"meta", WN_TAG_OTHER, 0, WN_ME_META},
    {"nav", WN_TAG_NAV, 1, WN_ME_NONE},
    {"noembed", WN_TAG_OTHER, WN_SKIP, WN_ME_NONE},
    {"noframes", WN_TAG_OTHER, WN_SKIP, WN_ME_NONE},
    {"noscript", WN_TAG_OTHER, WN_SKIP, WN_ME_NONE},
    /* Its fallback content is what browsers show now that plugins are
     * gone (a video's caption): content, not skipped. */
    {"object", WN_TAG_OTHER, 1, WN_ME_NONE},
    {"ol", WN_TAG_OL, 1, WN_ME_NONE},
    {"option", WN_TAG_OPTION, 1, WN_ME_NONE},
    {"p", WN_TAG_P, 1, WN_ME_NONE},
    {"plaintext", WN_TAG_OTHER, 1, WN_ME_NONE},
    {"pre", WN_TAG_PRE, 1, WN_ME_NONE},
    /* Ruby annotations: the reading set over the base text (furigana,
     * pinyin) and the parentheses around it; the base text is the text. */
    {"rp", WN_TAG_OTHER, WN_SKIP, WN_ME_NONE},
    {"rt", WN_TAG_OTHER, WN_SKIP, WN_ME_NONE},
    {"script", WN_TAG_OTHER, WN_SKIP, WN_ME_SCRIPT},
    {"section", WN_TAG_SECTION, 1, WN_ME_NONE},
    {"select", WN_TAG_OTHER, WN_SKIP, WN_ME_NONE},
    {"span", WN_TAG_SPAN, 0, WN_ME_NONE},
    {"strong", WN_TAG_STRONG, 0, WN_ME_NONE},
    {"style", WN_TAG_OTHER, WN_SKIP, WN_ME_NONE},
    {"summary", WN_TAG_OTHER, 1, WN_ME_NONE},
    {"svg", WN_TAG_OTHER, WN_SKIP, WN_ME_NONE},
    {"table", WN_TAG_TABLE, 1, WN_ME_NONE},
    {"tbody", WN_TAG_TBODY, 1, WN_ME_NONE},
    {"td", WN_TAG_TD, 1, WN_ME_NONE},
    {"template", WN_TAG_OTHER, WN_SKIP, WN_ME_NONE},
    {"textarea", WN_TAG_OTHER, WN_SKIP, WN_ME_NONE},
    {"tfoot", WN_TAG_TFOOT, 1, WN_ME_NONE},
    {"th", WN_TAG_TH, 1, WN_ME_NONE},
    {"thead", WN_TAG_THEAD, 1, WN_ME_NONE},
    {"time", WN_TAG_OTHER, 0, WN_ME_TIME},
    {"title", WN_TAG_OTHER, WN_SKIP, WN_ME_TITLE},
    {"tr", WN_TAG_TR, 1, WN_ME_NONE},
    {"ul", WN_TAG_UL, 1, WN_ME_NONE},
    {"xmp", WN_TAG_OTHER, 1, WN_ME_NONE},
};

const wn_tag_entry wn_svg_entry = {"svg", WN_TAG_OTHER, 1, WN_ME_NONE};

static int wn_tag_cmp(const void *key, const void *entry) {
  return strcmp((const char *)key, ((const wn_tag_entry *)entry)->name);
}

const wn_tag_entry *wn_tag_lookup(const char *name) {
  return bsearch(name, wn_tags, sizeof wn_tags / sizeof wn_tags[0], sizeof wn_tags[0],
                 wn_tag_cmp);
}

/* Lower-cases a tag name into out (names are bounded like everything
 * else: longer ones are cut; no HTML tag comes near). */
void wn_lower_name(const char *name, char out[WN_MAX_TAG_NAME + 1]) {
  size_t i = 0;
  for (; name[i] && i < WN_MAX_TAG_NAME; i++)
    out[i] = wn_ascii_lower(name[i]);
  out[i] = '\0';
}

/* An attribute value as the tree keeps it for a signature: at most 512
 * bytes, copied into the arena. */
#define WN_MAX_ATTR_VALUE 512u
static const char *wn_attr_copy(wn_arena *arena, const char *value, int *oom) {
  if (!value)
    return NULL;
  size_t len = strlen(value);
  if (len > WN_MAX_ATTR_VALUE)
    len = WN_MAX_ATTR_VALUE; /* a signature needs no more */
  char *copy = wn_arena_strndup(arena, value, len);
  if (!copy)
    *oom = 1;
  return copy;
}

/* The element's subtree is left out of the tree. */
int wn_skipped(wn_builder *b, const wn_tag_entry *entry) {
  if (!entry || entry->block != WN_SKIP)
    return 0;
  if (entry->name[0] != 'n' || strcmp(entry->name, "noscript") != 0)
    return 1;
  b->page->noscript = 1; /* wn_dom_parse reads the bytes again only then */
  return !b->noscript_content;
}

static wn_dom_node *wn_add_node(wn_builder *b, uint32_t parent, uint32_t *prev_sibling,
                                uint16_t depth, wn_err *err) {
  wn_dom_page *page = b->page;
  if (page->count >= b->max_nodes) {
    *err = WN_ETOOMANY;
    return NULL;
  }
  if (page->count == b->cap) {
    uint32_t next = b->cap ? (b->cap > b->max_nodes / 2 ? b->max_nodes : b->cap * 2) : 1024;
    wn_dom_node *grown = wn_arena_alloc(page->arena, (size_t)next * sizeof *grown);
    if (!grown) {
      *err = WN_ENOMEM;
      return NULL;
    }
    if (page->count)
      memcpy(grown, page->nodes, (size_t)page->count * sizeof *grown);
    page->nodes = grown;
    b->cap = next;
  }
  uint32_t index = page->count++;
  wn_dom_node *node = &page->nodes[index];
  memset(node, 0, sizeof *node);
  node->parent = parent;
  node->first_child = WN_DOM_NONE;
  node->next_sibling = WN_DOM_NONE;
  node->depth = depth;
  if (parent != WN_DOM_NONE) {
    wn_dom_node *p = &page->nodes[parent];
    if (*prev_sibling == WN_DOM_NONE)
      p->first_child = index;
    else
      page->nodes[*prev_sibling].next_sibling = index;
    p->n_children++;
  }
  *prev_sibling = index;
  return node;
}

/* Sizes the node array once from the page: about one node per '<' (a
 * start tag and its end tag make an element and the text beside it),
 * within the node cap. Growing by doubling inside the arena leaves every
 * outgrown array behind, as much again as the last one; a page of the
 * node cap (300,000 nodes, 29 MB) would carry 28 MB of them. Untouched
 * pages of an over-estimate cost no memory (a large block is its own
 * mapping). */
void wn_emit_reserve(wn_builder *b, const char *text, size_t len) {
  size_t lt = 16;
  for (const char *p = text, *end = text + len; p && p < end; p++) {
    p = memchr(p, '<', (size_t)(end - p));
    if (!p)
      break;
    lt++;
  }
  uint32_t cap = lt < b->max_nodes ? (uint32_t)lt : b->max_nodes;
  wn_dom_node *nodes = wn_arena_alloc(b->page->arena, (size_t)cap * sizeof *nodes);
  if (!nodes)
    return; /* wn_add_node grows it as it goes */
  b->page->nodes = nodes;
  b->cap = cap;
}

/* The kind of an element inside an <svg> (its lower-case local name). */
uint8_t wn_svg_kind(const char *name) {
  static const char *const hide[] = {"defs", "symbol", "title", "desc",
                                     "style", "script", "metadata"};
  if (strcmp(name, "text") == 0 || strcmp(name, "tspan") == 0 || strcmp(name, "textpath") == 0)
    return WN_SVG_TEXT;
  for (size_t k = 0; k < sizeof hide / sizeof *hide; k++)
    if (strcmp(name, hide[k]) == 0)
      return WN_SVG_HIDE;
  return 0;
}

int wn_svg_hidden(const char *aria_hidden) {
  return aria_hidden && strcmp(aria_hidden, "true") == 0;
}

/* Elements whose text is preformatted: HTML renders their white space and
 * line breaks as written. (textarea is too, but is left out of the tree as
 * user interface.) */
static int wn_is_pre(const char *name) {
  if (name[0] != 'p' && name[0] != 'l' && name[0] != 'x')
    return 0; /* every element asks; most are none of these */
  return strcmp(name, "pre") == 0 || strcmp(name, "listing") == 0 ||
         strcmp(name, "xmp") == 0 || strcmp(name, "plaintext") == 0;
}

/* The text of a text node inside pre: its collapsed text, NUL, then the
 * pending white space (see wn_builder.pre_space) and the text as written,
 * NUL-terminated (wn_dom_raw_text reads the second part). */
static char *wn_pre_text(wn_builder *b, const char *collapsed, uint32_t collapsed_len,
                         const char *text) {
  size_t len = strlen(text), pending = b->pre_space.len;
  if (len > SIZE_MAX / 2 - pending - collapsed_len)
    return NULL;
  char *out = wn_arena_alloc(b->page->arena, (size_t)collapsed_len + 1 + pending + len + 1);
  if (!out)
    return NULL;
  memcpy(out, collapsed, (size_t)collapsed_len + 1);
  char *raw = out + collapsed_len + 1;
  if (pending)
    memcpy(raw, b->pre_space.data, pending);
  memcpy(raw + pending, text, len);
  raw[pending + len] = '\0';
  wn_buf_reset(&b->pre_space);
  return out;
}

static wn_err wn_too_deep(const wn_builder *b, wn_diag *diag) {
  return wn_diag_set(diag, WN_ETOODEEP, "page nests elements deeper than the cap of %u",
                     b->max_depth);
}

static wn_err wn_node_error(const wn_builder *b, wn_err err, wn_diag *diag) {
  if (err == WN_ETOOMANY)
    return wn_diag_set(diag, err, "page has more than the cap of %u nodes", b->max_nodes);
  return err;
}

/* One element (not a skipped one) under parent (NULL for the root), at
 * depth top; name is lower-case, entry its table row or NULL. id and cls
 * are the attribute values as libxml2 holds them (NULL: absent). Fills
 * *frame for its children. Both builders below call it, so the tree is
 * the same whichever ran. */
wn_err wn_emit_element(wn_builder *b, const wn_frame *parent, uint32_t *prev_sibling,
                       uint32_t top, const char *name, const wn_tag_entry *entry,
                       const char *id, const char *cls, int has_href,
                       const char *const *kept, int ws_before, void *xml,
                       wn_frame *frame, wn_diag *diag) {
  wn_dom_page *page = b->page;
  wn_err err = WN_OK;
  int oom = 0;
  if (top > b->max_depth)
    return wn_too_deep(b, diag);
  wn_dom_node *node = wn_add_node(b, parent ? parent->index : WN_DOM_NONE, prev_sibling,
                                  (uint16_t)top, &err);
  if (!node)
    return wn_node_error(b, err, diag);
  node->tag = entry ? entry->tag : WN_TAG_OTHER;
  node->flags = entry && entry->block ? WN_DOM_BLOCK : 0;
  /* Known names are interned in the table; others are copied once. */
  node->name = entry ? entry->name : wn_arena_strndup(page->arena, name, strlen(name));
  if (!node->name)
    return WN_ENOMEM;
  node->id = wn_attr_copy(page->arena, id, &oom);
  node->cls = wn_attr_copy(page->arena, cls, &oom);
  if (oom)
    return WN_ENOMEM;
  if (kept) {
    err = wn_dom_keep_attrs(page, node, wn_dom_kept_names(node->tag), kept);
    if (err)
      return err;
  }
  if (ws_before && node->tag == WN_TAG_IMG)
    node->flags |= WN_DOM_WS_BEFORE;
  /* <html> and <body> occur once per page; their id and class name
   * the page (its section, its article), not the template. */
  if (node->tag == WN_TAG_HTML || node->tag == WN_TAG_BODY)
    node->sig = wn_dom_element_sig(node->name, NULL, NULL);
  else
    node->sig = wn_dom_element_sig(node->name, node->id, node->cls);
  node->xml = xml;
  uint8_t in_link = parent ? parent->in_link : 0;
  if (node->tag == WN_TAG_A && has_href)
    in_link = 1;
  uint8_t in_pre = parent ? parent->in_pre : 0;
  if (!in_pre && wn_is_pre(node->name)) {
    in_pre = 1;
    wn_buf_reset(&b->pre_space); /* white space of an earlier pre stays there */
  }
  frame->index = page->count - 1;
  frame->last_child = WN_DOM_NONE;
  frame->in_link = in_link;
  frame->in_pre = in_pre;
  frame->outside = 0;
  frame->meta = 0;
  return WN_OK;
}

/* One text node of libxml2's (content NUL-terminated) under parent, at
 * depth top: a compact text node, or, for white space only, the flags of
 * its neighbours. */
wn_err wn_emit_text(wn_builder *b, wn_frame *parent, uint32_t top, const char *content,
                    void *xml, wn_diag *diag) {
  wn_dom_page *page = b->page;
  wn_err err = WN_OK;
  uint32_t len = 0;
  uint8_t edges = 0;
  int oom = 0;
  int in_pre = parent->in_pre;
  char *text = wn_dom_collapse(page->arena, content, &len, &edges, &oom);
  if (oom)
    return WN_ENOMEM;
  if (!text && edges == WN_DOM_COLLAPSE_HIDDEN && !in_pre)
    return WN_OK;
  if (!text) {
    b->space_pending = 1;
    if (b->last_text != WN_DOM_NONE)
      page->nodes[b->last_text].flags |= WN_DOM_SPACE_AFTER;
    if (in_pre)
      return wn_buf_append(&b->pre_space, content, strlen(content));
    return WN_OK;
  }
  if (top > b->max_depth)
    return wn_too_deep(b, diag);
  wn_dom_node *node = wn_add_node(b, parent->index, &parent->last_child, (uint16_t)top, &err);
  if (!node)
    return wn_node_error(b, err, diag);
  if (in_pre) {
    text = wn_pre_text(b, text, len, content);
    if (!text)
      return WN_ENOMEM;
  }
  node->tag = WN_TAG_TEXT;
  node->name = "#text";
  node->text = text;
  node->own_text_len = len;
  node->flags = (uint8_t)((parent->in_link ? WN_DOM_IN_LINK : 0) | edges);
  if (b->space_pending)
    node->flags |= WN_DOM_SPACE_BEFORE;
  if (in_pre)
    node->flags |= WN_DOM_IN_PRE;
  node->sig = wn_dom_text_sig(text);
  node->xml = xml;
  b->last_text = page->count - 1;
  b->space_pending = 0;
  return WN_OK;
}

void wn_xml_error(void *ctx, xmlErrorPtr error) {
  wn_xml_errors *e = ctx;
  /* libxml2's tree builder reports text past its cap (10 MB,
   * XML_MAX_TEXT_LENGTH) as a memory error too: not one; the SAX builder
   * caps text itself (WN_XML_MAX_TEXT), and both keep what came before. */
  if (!error || error->code != XML_ERR_NO_MEMORY ||
      (error->message && strstr(error->message, "huge text node")))
    return;
  e->oom = 1;
  xmlParserCtxtPtr ctxt = e->ctxt ? e->ctxt : error->ctxt;
  if (ctxt)
    xmlStopParser(ctxt);
}

/* The tree of an empty (or element-less) page: <html><body>. */
wn_err wn_emit_empty(wn_builder *b) {
  wn_err err = WN_OK;
  uint32_t none = WN_DOM_NONE, child = WN_DOM_NONE;
  wn_dom_node *html = wn_add_node(b, WN_DOM_NONE, &none, 0, &err);
  if (!html)
    return err;
  html->tag = WN_TAG_HTML;
  html->flags = WN_DOM_BLOCK;
  html->name = "html";
  html->sig = wn_dom_element_sig("html", NULL, NULL);
  wn_dom_node *body = wn_add_node(b, 0, &child, 1, &err);
  if (!body)
    return err;
  body->tag = WN_TAG_BODY;
  body->flags = WN_DOM_BLOCK;
  body->name = "body";
  body->sig = wn_dom_element_sig("body", NULL, NULL);
  return WN_OK;
}
