/*
 * dom/dom.c: libxml2's HTML parser (recovering from broken markup) into the
 * compact tree of dom.h: straight from its SAX2 events by default, or, for
 * a page that keeps libxml2's document (keep_xml), copied from that tree.
 * Both give the same compact tree (tests/dom/test_sax.c).
 */
#include "dom/dom.h"
#include "dom/dom_int.h"

#include <libxml/HTMLparser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>


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

static int wn_tag_cmp(const void *key, const void *entry) {
  return strcmp((const char *)key, ((const wn_tag_entry *)entry)->name);
}

static const wn_tag_entry *wn_tag_lookup(const char *name) {
  return bsearch(name, wn_tags, sizeof wn_tags / sizeof wn_tags[0], sizeof wn_tags[0],
                 wn_tag_cmp);
}

/* Lower-cases a tag name into out (names are bounded like everything
 * else: longer ones are cut; no HTML tag comes near). */
#define WN_MAX_TAG_NAME 64u
static void wn_lower_name(const char *name, char out[WN_MAX_TAG_NAME + 1]) {
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


typedef struct wn_builder {
  wn_dom_page *page;
  uint32_t cap;
  uint32_t max_nodes;
  uint32_t max_depth;
  /* Text output joins inline text as a browser renders it, so it must know
   * where the source had white space: white-space-only text is no node of
   * ours, so the text nodes either side of it get WN_DOM_SPACE_AFTER /
   * _BEFORE. */
  uint32_t last_text;  /* the latest text node, WN_DOM_NONE before the first */
  int space_pending;   /* white-space-only text since last_text */
  /* Inside <pre>, white space is content: white-space-only text there (the
   * line breaks between highlighted spans of code) is kept here and put in
   * front of the next text node's raw_text. Malloc'd, bounded by the page. */
  wn_buf pre_space;
  /* A <title> / <h1> with visible text was kept: later ones are not. */
  int title_done, h1_done;
  /* <noscript> is content, not skipped (the second pass of wn_dom_parse). */
  int noscript_content;
} wn_builder;

/* The element's subtree is left out of the tree. */
static int wn_skipped(wn_builder *b, const wn_tag_entry *entry) {
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
static void wn_reserve_nodes(wn_builder *b, const char *text, size_t len) {
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

/* An open element while building. */
typedef struct wn_frame {
  uint32_t index;      /* compact node of this open element (WN_DOM_NONE: none) */
  uint32_t last_child; /* its last compact child so far */
  uint8_t in_link;
  uint8_t in_pre;      /* inside pre, listing, xmp or plaintext */
  uint8_t outside;     /* SAX: an element with no compact node (a skipped
                          subtree, or past the document's root) */
  uint8_t meta;        /* WN_FM_*: for the metadata side table */
  uint8_t svg;         /* SAX, inside an inline <svg> being read: WN_SVG_* */
} wn_frame;

#define WN_FM_OFFROOT 0x01u   /* not under the root element */
#define WN_FM_HEAD 0x02u      /* a <head> child of the root */
#define WN_FM_BASE_SEEN 0x04u /* that head's first <base> was seen */

/*
 * Inline SVG. Its shapes are no text, but what it draws with <text> (a
 * syntax diagram's keywords, a chart's labels) is page text a reader sees.
 * An inline <svg> becomes one element with one text node: the text of its
 * <text> elements (and their <tspan>, <textPath>), in document order, a
 * space between two; nothing else of it enters the tree (its shapes, its
 * groups: hundreds of nodes a page that no selector reads), and an <svg>
 * with no such text, an icon, enters it not at all. Text that is not drawn
 * stays out: inside <defs>, <symbol> (an icon set's sprites), <title>,
 * <desc>, <style>, <script>, <metadata>; and a whole <svg> marked
 * aria-hidden="true" (decoration, as its author says). Both builders read
 * it so (wn_build_from_xml, the SAX builder).
 */
#define WN_XML_MAX_DEPTH 256u           /* libxml2's xmlParserMaxDepth */
#define WN_XML_MAX_TEXT ((size_t)10000000) /* libxml2's XML_MAX_TEXT_LENGTH */
#define WN_SVG_ROOT 1u /* the <svg> itself */
#define WN_SVG_TEXT 2u /* <text>, <tspan>, <textPath>: drawn text */
#define WN_SVG_HIDE 3u /* not drawn */

static const wn_tag_entry wn_svg_entry = {"svg", WN_TAG_OTHER, 1, WN_ME_NONE};

/* The kind of an element inside an <svg> (its lower-case local name). */
static uint8_t wn_svg_kind(const char *name) {
  static const char *const hide[] = {"defs", "symbol", "title", "desc",
                                     "style", "script", "metadata"};
  if (strcmp(name, "text") == 0 || strcmp(name, "tspan") == 0 || strcmp(name, "textpath") == 0)
    return WN_SVG_TEXT;
  for (size_t k = 0; k < sizeof hide / sizeof *hide; k++)
    if (strcmp(name, hide[k]) == 0)
      return WN_SVG_HIDE;
  return 0;
}

static int wn_svg_hidden(const char *aria_hidden) {
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
static wn_err wn_emit_element(wn_builder *b, const wn_frame *parent, uint32_t *prev_sibling,
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
static wn_err wn_emit_text(wn_builder *b, wn_frame *parent, uint32_t top, const char *content,
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

/* ---- straight from SAX2 (the default) --------------------------------------
 *
 * Without keep_xml no libxml2 tree is built at all: the compact tree is
 * built from the HTML parser's SAX2 events (startElement, endElement,
 * characters, cdataBlock, comment, processingInstruction), so a page costs
 * one pass and no per-node malloc, and the caps stop the parser
 * (xmlStopParser) as the events arrive instead of after a whole tree.
 *
 * The parser recovers from broken markup (implied html/body/p,
 * auto-closing) before any event is sent, so the events are the ones
 * libxml2's own tree builder (SAX2.c, xmlSAX2StartElement and friends)
 * sees. To give the very tree the keep_xml path copies, this builder also
 * does what that tree builder does with them (libxml2 2.9.14):
 *  - consecutive characters() of one element are one text node (until an
 *    element, comment or PI comes between); cdataBlock() makes its own
 *    kind of node, joined only with cdata; a text node stops growing at
 *    XML_MAX_TEXT_LENGTH, and the tree builder stops the parse there;
 *  - text outside any element is dropped;
 *  - an element that starts when no element is open goes under the
 *    document's first child: inside the root element if that is the first
 *    child (no doctype, comment or PI before it), else beside the root,
 *    which is not part of the page;
 *  - "Couldn't find end of Start Tag" pops an element with no endElement
 *    event: the parser's own stack of open names (ctxt->nameNr) says
 *    which elements are open, and ours follows it;
 *  - an element names its node without a namespace prefix ("x:y" is y);
 *  - past xmlParserMaxDepth (256) open elements the tree builder's
 *    nodePush fails: the element is dropped and the parser halted.
 * tests/dom/test_sax.c holds both builders to the same tree on every
 * fixture page and on broken markup. */


typedef struct wn_sax {
  wn_builder *b;
  htmlParserCtxtPtr ctxt;
  wn_diag *diag;
  wn_err err;
  int stopped;
  /* One frame per element libxml2 holds open (ctxt->nameNr); frames of
   * elements without a compact node are marked outside. */
  wn_frame stack[WN_XML_MAX_DEPTH + 2];
  uint32_t depth;     /* open elements */
  uint32_t top;       /* of which with a compact node (their depth) */
  /* The document's children, as the tree builder would have them. */
  int doc_children;   /* any child yet (doctype, comment, PI, element) */
  int root_seen;      /* the root element exists */
  wn_frame root;      /* the root's frame (index 0 once built), kept after
                         it closed */
  /* Table rows of element names seen, by the name's address: the parser
   * interns names in its dictionary, so one address is one name. Names
   * without a row are kept too (entry NULL): custom elements and those of
   * SVG come by the hundred. */
  struct {
    const xmlChar *name;
    const wn_tag_entry *entry;
  } tags[64];
  /* The text node being built in the innermost open element. */
  wn_buf text;
  int text_open;
  int text_cdata;
  /* All text below a JSON-LD script, a <title>, an <h1> being read for
   * the metadata side table (0, 1, 2): its frame's place in stack. */
  struct {
    int active;
    int cut;
    uint32_t depth;
    uint32_t item;
    wn_buf buf;
  } capture[3];
  int capturing; /* how many are active */
  /* An inline <svg> being read (see WN_SVG_ROOT): its frame's place in
   * stack + 1 (0: none), open <text> and not-drawn elements in it, its
   * drawn text so far, and what its element needs when it is emitted at
   * its end. */
  uint32_t svg_at, svg_text, svg_hide;
  wn_buf svg_buf;
  char *svg_id, *svg_cls;
  int svg_ws;
} wn_sax;

static void wn_sax_fail(wn_sax *s, wn_err err) {
  s->err = err;
  s->stopped = 1;
  xmlStopParser(s->ctxt);
}

/* Ends the text node being built: a compact text node (or white space
 * flags) in the innermost open element. */
static void wn_sax_flush(wn_sax *s) {
  if (!s->text_open)
    return;
  s->text_open = 0;
  if (s->depth == 0 || s->stack[s->depth - 1].outside)
    return;
  wn_err err = wn_buf_append_char(&s->text, '\0');
  if (!err)
    err = wn_emit_text(s->b, &s->stack[s->depth - 1], s->top, s->text.data, NULL, s->diag);
  if (err)
    wn_sax_fail(s, err);
}

/* Ends the captures of the element at stack place depth (all: depth
 * UINT32_MAX): their text goes to their items. */
static void wn_sax_capture_end(wn_sax *s, uint32_t depth) {
  for (int c = 0; c < 3; c++) {
    if (!s->capture[c].active || (depth != UINT32_MAX && s->capture[c].depth != depth))
      continue;
    s->capture[c].active = 0;
    s->capturing--;
    wn_buf *buf = &s->capture[c].buf;
    wn_err err = wn_dom_meta_text(s->b->page, s->capture[c].item, buf->data, buf->len,
                              s->capture[c].cut);
    if (err) {
      wn_sax_fail(s, err);
      continue;
    }
    if (!wn_dom_meta_blank(buf->data, buf->len)) {
      if (c == 1)
        s->b->title_done = 1;
      if (c == 2)
        s->b->h1_done = 1;
    }
  }
}

static void wn_sax_capture_text(wn_sax *s, const xmlChar *ch, size_t len) {
  for (int c = 0; c < 3; c++) {
    if (!s->capture[c].active)
      continue;
    wn_buf *buf = &s->capture[c].buf;
    size_t cap = c == 0 ? WN_DOM_MAX_JSONLD : WN_DOM_MAX_META_TEXT;
    size_t room = cap - buf->len, n = len;
    if (n > room) {
      n = room;
      s->capture[c].cut = 1;
    }
    if (n && wn_buf_append(buf, ch, n))
      wn_sax_fail(s, WN_ENOMEM);
  }
}

/* The metadata side table at the start of an element under the root: me
 * is its wn_meta_el, parent the frame of the element around it (NULL for
 * the root), frame its own new frame. */
static void wn_sax_meta_start(wn_sax *s, uint8_t me, const xmlChar **atts, wn_frame *parent,
                              wn_frame *frame);

/* The <svg> on top of the stack (its frame just taken off) closed: its
 * element and its drawn text, if it drew any, under its parent. */
static void wn_sax_svg_end(wn_sax *s) {
  s->svg_at = 0;
  s->svg_text = s->svg_hide = 0;
  int drawn = 0;
  for (size_t k = 0; k < s->svg_buf.len && !drawn; k++) {
    char c = s->svg_buf.data[k];
    drawn = c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f';
  }
  wn_err err = WN_OK;
  if (drawn && s->depth > 0) {
    wn_frame *parent = &s->stack[s->depth - 1];
    wn_frame frame;
    err = wn_emit_element(s->b, parent, &parent->last_child, s->top, "svg", &wn_svg_entry,
                          s->svg_id, s->svg_cls, 0, NULL, s->svg_ws, NULL, &frame, s->diag);
    if (!err)
      err = wn_buf_append_char(&s->svg_buf, '\0');
    if (!err)
      err = wn_emit_text(s->b, &frame, s->top + 1, s->svg_buf.data, NULL, s->diag);
  }
  free(s->svg_id);
  free(s->svg_cls);
  s->svg_id = s->svg_cls = NULL;
  wn_buf_reset(&s->svg_buf);
  if (err)
    wn_sax_fail(s, err);
}

static void wn_sax_pop(wn_sax *s) {
  wn_sax_flush(s);
  if (s->depth == 0)
    return;
  wn_frame *f = &s->stack[--s->depth];
  if (s->capturing)
    wn_sax_capture_end(s, s->depth);
  if (f->svg == WN_SVG_TEXT) {
    /* A space after each drawn text; past the cap (WN_ETOOBIG) dropped. */
    if (--s->svg_text == 0 && !s->svg_hide &&
        wn_buf_append_char(&s->svg_buf, ' ') == WN_ENOMEM)
      wn_sax_fail(s, WN_ENOMEM);
  } else if (f->svg == WN_SVG_HIDE) {
    s->svg_hide--;
  } else if (f->svg == WN_SVG_ROOT) {
    wn_sax_svg_end(s);
  }
  if (!f->outside) {
    s->top--;
    if (f->index == 0)
      s->root = *f; /* later top-level elements may still join it */
  }
  if (s->depth == 0)
    s->top = 0;
}

/* Follows the parser's stack of open names: elements it popped without an
 * endElement event close here. */
static void wn_sax_sync(wn_sax *s, int open) {
  uint32_t want = open > 0 ? (uint32_t)open : 0;
  while (s->depth > want)
    wn_sax_pop(s);
}

/* The value of attribute name in a SAX attribute list, as xmlGetNoNsProp
 * gives it from the tree: the first one; "" for an attribute without a
 * value. *found tells whether there was one. */
static const char *wn_sax_attr(const xmlChar **atts, const char *name, int *found) {
  *found = 0;
  for (size_t i = 0; atts && atts[i]; i += 2)
    if (strcmp((const char *)atts[i], name) == 0) {
      *found = 1;
      return atts[i + 1] ? (const char *)atts[i + 1] : "";
    }
  return NULL;
}

/* The element name libxml2's tree builder gives a node: xmlSplitQName
 * drops a "prefix:" (but keeps ":name" and "name:" whole). */
static const char *wn_sax_local_name(const char *name) {
  const char *colon = name[0] == ':' ? NULL : strchr(name, ':');
  return colon && colon[1] ? colon + 1 : name;
}

static const char *wn_sax_get(const void *el, const char *name, void **owned) {
  int found = 0;
  *owned = NULL;
  return wn_sax_attr((const xmlChar **)(uintptr_t)el, name, &found);
}

static void wn_sax_meta_start(wn_sax *s, uint8_t me, const xmlChar **atts, wn_frame *parent,
                              wn_frame *frame) {
  wn_err err = WN_OK;
  if (me == WN_ME_HEAD) {
    if (parent && parent->index == 0)
      frame->meta |= WN_FM_HEAD;
    return;
  }
  if (me == WN_ME_BASE) {
    if (!parent || !(parent->meta & WN_FM_HEAD) || (parent->meta & WN_FM_BASE_SEEN))
      return;
    parent->meta |= WN_FM_BASE_SEEN;
  }
  int c = me == WN_ME_SCRIPT ? 0 : me == WN_ME_TITLE ? 1 : me == WN_ME_H1 ? 2 : -1;
  if (c >= 0 && s->capture[c].active)
    return; /* one of a kind at a time */
  if ((me == WN_ME_TITLE && s->b->title_done) || (me == WN_ME_H1 && s->b->h1_done))
    return;
  wn_dom_meta *m = wn_dom_meta_element(s->b->page, me, atts, wn_sax_get, &err);
  if (err) {
    wn_sax_fail(s, err);
    return;
  }
  if (m && c >= 0) {
    s->capture[c].active = 1;
    s->capture[c].cut = 0;
    s->capture[c].depth = s->depth; /* the place its frame gets */
    s->capture[c].item = s->b->page->n_meta - 1;
    wn_buf_reset(&s->capture[c].buf);
    s->capturing++;
  }
}

static void wn_sax_start(void *ctx, const xmlChar *xname, const xmlChar **atts) {
  wn_sax *s = ctx;
  if (s->stopped)
    return;
  wn_sax_sync(s, s->ctxt->nameNr - 1);
  /* The text before it in the same parent ends in white space (what
   * libxml2's tree gives as its previous sibling, a text node). */
  int ws_before = 0;
  if (s->text_open && !s->text_cdata && s->text.len) {
    char last = s->text.data[s->text.len - 1];
    ws_before = last == ' ' || last == '\n' || last == '\t' || last == '\r';
  }
  wn_sax_flush(s);
  if (s->stopped)
    return;
  if (s->depth > WN_XML_MAX_DEPTH) {
    /* libxml2's tree builder drops this element and halts the parser
     * (nodePush: "Excessive depth in document"); what was built so far is
     * the page, and the result says it was cut short. */
    s->stopped = 1;
    s->b->page->cut_short = WN_DOM_CUT_DEPTH;
    xmlStopParser(s->ctxt);
    return;
  }
  wn_frame *parent = NULL;
  uint32_t no_sibling = WN_DOM_NONE;
  uint32_t *prev = NULL;
  int outside = 0, offroot = 0, is_root = 0;
  uint32_t top = s->top;
  if (s->depth > 0) {
    parent = &s->stack[s->depth - 1];
    outside = parent->outside;
    offroot = (parent->meta & WN_FM_OFFROOT) != 0;
    prev = &parent->last_child;
  } else if (!s->root_seen) {
    /* The root element: the document's first child, or the first element
     * beside a doctype, comment or PI. */
    s->doc_children = 1;
    s->root_seen = 1;
    is_root = 1;
    prev = &no_sibling;
  } else if (s->root.index == 0) {
    /* After the root closed, an element joins the root, one level below
     * it: a page that closes </html> before its article (a theme whose
     * header template ends the document) still has it, as a browser
     * reads it (HTML's "after after body" mode parses on in the body).
     * libxml2's tree builder does so when the root is the document's
     * first child, else it puts it beside the root, and
     * wn_xml_adopt_strays moves it under the root in that tree too. */
    parent = &s->root;
    prev = &s->root.last_child;
    top = 1;
  } else {
    outside = 1; /* beside the root: not in the page */
    offroot = 1;
  }
  wn_frame frame = {.index = WN_DOM_NONE, .last_child = WN_DOM_NONE, .outside = 1};
  if (!offroot) {
    /* Every element under the root is looked up (the metadata side table
     * reads the <head> and skipped subtrees too); the names' addresses
     * make most lookups one comparison. */
    char name[WN_MAX_TAG_NAME + 1];
    size_t slot = ((uintptr_t)xname >> 4) % (sizeof s->tags / sizeof s->tags[0]);
    const wn_tag_entry *entry = NULL;
    const char *lower = name;
    if (xname && s->tags[slot].name == xname) {
      entry = s->tags[slot].entry;
      if (entry)
        lower = entry->name;
      else if (!outside)
        wn_lower_name(wn_sax_local_name((const char *)xname), name);
    } else {
      wn_lower_name(wn_sax_local_name((const char *)xname), name);
      entry = wn_tag_lookup(name);
      if (xname) {
        s->tags[slot].name = xname;
        s->tags[slot].entry = entry;
      }
    }
    if (s->svg_at) {
      /* Inside an <svg> being read: nothing of it enters the tree; what
       * it draws is gathered (wn_sax_chars). */
      char low[WN_MAX_TAG_NAME + 1];
      wn_lower_name(wn_sax_local_name((const char *)xname), low);
      frame.svg = wn_svg_kind(low);
      s->svg_text += frame.svg == WN_SVG_TEXT;
      s->svg_hide += frame.svg == WN_SVG_HIDE;
    } else if (!outside && parent && strcmp(lower, "svg") == 0) {
      int found = 0;
      if (!wn_svg_hidden(wn_sax_attr(atts, "aria-hidden", &found))) {
        frame.svg = WN_SVG_ROOT;
        s->svg_at = s->depth + 1;
        s->svg_ws = ws_before;
        s->svg_id = wn_strdup(wn_sax_attr(atts, "id", &found));
        s->svg_cls = wn_strdup(wn_sax_attr(atts, "class", &found));
        wn_buf_reset(&s->svg_buf);
      }
    } else if (!outside && !wn_skipped(s->b, entry)) {
      int found = 0, has_href = 0;
      const char *id = wn_sax_attr(atts, "id", &found);
      const char *cls = wn_sax_attr(atts, "class", &found);
      (void)wn_sax_attr(atts, "href", &has_href);
      const char *const *names = wn_dom_kept_names(entry ? entry->tag : WN_TAG_OTHER);
      const char *kept[WN_DOM_MAX_KEPT + 1] = {NULL};
      for (uint32_t k = 0; names && names[k]; k++)
        kept[k] = wn_sax_attr(atts, names[k], &found);
      wn_err err = wn_emit_element(s->b, parent, prev, top, lower, entry, id, cls, has_href,
                                   names ? kept : NULL, ws_before, NULL, &frame, s->diag);
      if (err) {
        wn_sax_fail(s, err);
        return;
      }
    }
    if (is_root) {
      int found = 0, oom = 0;
      const char *lang = wn_sax_attr(atts, "lang", &found);
      if (!found)
        lang = wn_sax_attr(atts, "xml:lang", &found);
      s->b->page->lang = wn_dom_value_copy(s->b->page->arena, lang, WN_DOM_MAX_KEPT_VALUE, &oom);
      if (oom) {
        wn_sax_fail(s, WN_ENOMEM);
        return;
      }
    }
    if (entry && entry->meta) {
      wn_sax_meta_start(s, entry->meta, atts, parent, &frame);
      if (s->stopped)
        return;
    }
  } else {
    frame.meta = WN_FM_OFFROOT;
  }
  s->stack[s->depth++] = frame;
  if (!frame.outside) {
    s->top = top + 1;
    if (frame.index == 0)
      s->root = frame;
  }
}

static void wn_sax_end(void *ctx, const xmlChar *name) {
  wn_sax *s = ctx;
  (void)name;
  if (s->stopped)
    return;
  wn_sax_sync(s, s->ctxt->nameNr);
  wn_sax_pop(s);
}

static void wn_sax_chars(wn_sax *s, const xmlChar *ch, int len, int cdata) {
  if (s->stopped || len < 0)
    return;
  wn_sax_sync(s, s->ctxt->nameNr);
  if (s->depth == 0)
    return; /* the tree builder drops text outside any element */
  if (s->capturing)
    wn_sax_capture_text(s, ch, (size_t)len);
  if (s->svg_at && s->svg_text && !s->svg_hide) {
    /* Past the cap the rest is dropped (WN_ETOOBIG leaves it as it was). */
    if (wn_buf_append(&s->svg_buf, ch, (size_t)len) == WN_ENOMEM)
      wn_sax_fail(s, WN_ENOMEM);
    return;
  }
  if (s->stack[s->depth - 1].outside)
    return;
  if (s->text_open && s->text_cdata != cdata)
    wn_sax_flush(s);
  if (s->stopped)
    return;
  if (!s->text_open) {
    wn_buf_reset(&s->text);
    s->text_open = 1;
    s->text_cdata = cdata;
  } else if (s->text.len + (size_t)len > WN_XML_MAX_TEXT) {
    /* xmlSAX2Text: "huge text node", and the parse ends there. */
    wn_sax_flush(s);
    s->stopped = 1;
    s->b->page->cut_short = WN_DOM_CUT_TEXT;
    xmlStopParser(s->ctxt);
    return;
  }
  wn_err err = wn_buf_append(&s->text, ch, (size_t)len);
  if (err)
    wn_sax_fail(s, err);
}

static void wn_sax_characters(void *ctx, const xmlChar *ch, int len) {
  wn_sax_chars(ctx, ch, len, 0);
}

static void wn_sax_cdata(void *ctx, const xmlChar *ch, int len) { wn_sax_chars(ctx, ch, len, 1); }

/* A comment or PI: a node of libxml2's tree between two texts, and a
 * child of the document when no element is open. */
static void wn_sax_other_node(wn_sax *s) {
  if (s->stopped)
    return;
  wn_sax_sync(s, s->ctxt->nameNr);
  wn_sax_flush(s);
  if (s->depth == 0)
    s->doc_children = 1;
}

static void wn_sax_comment(void *ctx, const xmlChar *value) {
  (void)value;
  wn_sax_other_node(ctx);
}

static void wn_sax_pi(void *ctx, const xmlChar *target, const xmlChar *data) {
  (void)target;
  (void)data;
  wn_sax_other_node(ctx);
}

/* A doctype, wherever it stands, becomes the document's first child
 * (xmlCreateIntSubset puts it in front in an HTML document). */
static void wn_sax_doctype(void *ctx, const xmlChar *name, const xmlChar *external_id,
                           const xmlChar *system_id) {
  wn_sax *s = ctx;
  (void)name;
  (void)external_id;
  (void)system_id;
  s->doc_children = 1;
}

/* libxml2's errors while it parses one page, on this thread. An
 * allocation failure makes libxml2 2.9 disable its events but go on
 * reading, and some of its loops (xmlNextChar after a buffer could not
 * grow) then never end: the page stops there, as an error. Everything
 * else is dropped (the parse is in recovery mode, HTML_PARSE_NOERROR). */
typedef struct wn_xml_errors {
  xmlParserCtxtPtr ctxt; /* NULL: the error's own */
  int oom;
} wn_xml_errors;

static void wn_xml_error(void *ctx, xmlErrorPtr error) {
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

/* Runs with wn_xml_error as the thread's handler, then puts back the old. */
#define WN_WITH_XML_ERRORS(errs, stmt)                                                   \
  do {                                                                                   \
    xmlStructuredErrorFunc old_fn_ = xmlStructuredError;                                 \
    void *old_ctx_ = xmlStructuredErrorContext;                                          \
    xmlSetStructuredErrorFunc((errs), wn_xml_error);                                     \
    stmt;                                                                                \
    xmlSetStructuredErrorFunc(old_ctx_, old_fn_);                                        \
  } while (0)

/* Parses the decoded UTF-8 as htmlReadMemory(utf8, len, NULL, "UTF-8",
 * options) does (htmlDoRead), with our handlers in place of the tree
 * builder's, and one copy of the page fewer: libxml2 reads the bytes where
 * they are (a static input buffer; utf8 is NUL-terminated, as the parser
 * wants) instead of copying them into its own first. */
static wn_err wn_build_sax(wn_builder *b, const char *utf8, size_t len, int options,
                           wn_diag *diag) {
  wn_err err = WN_OK;
  htmlParserCtxtPtr ctxt = NULL;
  wn_sax *s = calloc(1, sizeof *s);
  if (!s)
    return WN_ENOMEM;
  s->b = b;
  s->diag = diag;
  s->root.index = WN_DOM_NONE;
  s->root.last_child = WN_DOM_NONE;
  wn_buf_init(&s->text, WN_XML_MAX_TEXT + 1); /* libxml2's text cap, and a NUL */
  wn_buf_init(&s->svg_buf, WN_XML_MAX_TEXT + 1);
  for (int c = 0; c < 3; c++)
    wn_buf_init(&s->capture[c].buf, WN_DOM_MAX_JSONLD + 1);
  ctxt = htmlNewParserCtxt();
  xmlParserInputBufferPtr input_buffer =
      ctxt ? xmlParserInputBufferCreateStatic(utf8, (int)len, XML_CHAR_ENCODING_NONE) : NULL;
  xmlParserInputPtr input =
      input_buffer ? xmlNewIOInputStream(ctxt, input_buffer, XML_CHAR_ENCODING_NONE) : NULL;
  if (!input) {
    xmlFreeParserInputBuffer(input_buffer);
    err = WN_ENOMEM;
    goto out;
  }
  if (inputPush(ctxt, input) < 0) {
    xmlFreeInputStream(input);
    err = WN_ENOMEM;
    goto out;
  }
  if (!ctxt->sax) {
    err = WN_ENOMEM;
    goto out;
  }
  s->ctxt = ctxt;
  htmlSAXHandler *sax = ctxt->sax;
  memset(sax, 0, sizeof *sax);
  sax->initialized = 1; /* SAX1-style startElement, as the HTML parser calls it */
  sax->internalSubset = wn_sax_doctype;
  sax->startElement = wn_sax_start;
  sax->endElement = wn_sax_end;
  sax->characters = wn_sax_characters;
  sax->cdataBlock = wn_sax_cdata;
  sax->comment = wn_sax_comment;
  sax->processingInstruction = wn_sax_pi;
  ctxt->userData = s;
  htmlCtxtUseOptions(ctxt, options);
  ctxt->html = 1;
  /* As htmlDoRead does for encoding "UTF-8". (Without it libxml2 2.9.14
   * reads non-ASCII characters differently: the test over the corpora
   * finds most pages changed.) */
  xmlCharEncodingHandlerPtr utf8_handler = xmlFindCharEncodingHandler("UTF-8");
  if (utf8_handler) {
    /* It converts the first bytes at once: an allocation failure there
     * (libxml2 2.9 does not always report it) leaves the input pointing at
     * no buffer, which the parser would read. */
    if (xmlSwitchToEncoding(ctxt, utf8_handler) < 0 || ctxt->errNo == XML_ERR_NO_MEMORY ||
        !ctxt->input->buf || !ctxt->input->buf->buffer ||
        xmlBufContent(ctxt->input->buf->buffer) != ctxt->input->base) {
      err = WN_ENOMEM;
      goto out;
    }
    if (ctxt->input->encoding)
      xmlFree((xmlChar *)ctxt->input->encoding);
    ctxt->input->encoding = xmlStrdup((const xmlChar *)"UTF-8");
  }
  wn_xml_errors xerrs = {.ctxt = ctxt, .oom = 0};
  WN_WITH_XML_ERRORS(&xerrs, htmlParseDocument(ctxt));
  /* After an allocation failure libxml2 returns what it had: a page cut
   * short, not a page. */
  if ((xerrs.oom || ctxt->errNo == XML_ERR_NO_MEMORY) && !s->err)
    s->err = WN_ENOMEM;
  if (!s->stopped) {
    /* Text still open at the end (the parser closes elements with
     * events, so this is only a safeguard). */
    wn_sax_flush(s);
  }
  /* Elements still open when the parse stopped: what they hold so far. */
  if (s->capturing)
    wn_sax_capture_end(s, UINT32_MAX);
  err = s->err;
out:
  if (ctxt) {
    if (ctxt->myDoc)
      xmlFreeDoc(ctxt->myDoc);
    ctxt->myDoc = NULL;
    htmlFreeParserCtxt(ctxt);
  }
  wn_buf_free(&s->text);
  wn_buf_free(&s->svg_buf);
  free(s->svg_id);
  free(s->svg_cls);
  for (int c = 0; c < 3; c++)
    wn_buf_free(&s->capture[c].buf);
  free(s);
  return err;
}

/* Subtree ends, depth-free text sums: one backward pass over the pre-order
 * array adds each node's counts to its parent. */
static void wn_finish(wn_dom_page *page) {
  wn_dom_node *nodes = page->nodes;
  for (uint32_t i = 0; i < page->count; i++) {
    nodes[i].end = i + 1;
    if (nodes[i].tag == WN_TAG_TEXT) {
      nodes[i].text_len = nodes[i].own_text_len;
      nodes[i].link_text_len = (nodes[i].flags & WN_DOM_IN_LINK) ? nodes[i].own_text_len : 0;
    }
  }
  for (uint32_t i = page->count; i-- > 0;) {
    uint32_t p = nodes[i].parent;
    if (p == WN_DOM_NONE)
      continue;
    if (nodes[i].end > nodes[p].end)
      nodes[p].end = nodes[i].end;
    nodes[p].text_len += nodes[i].text_len;
    nodes[p].link_text_len += nodes[i].link_text_len;
  }
  page->body = WN_DOM_NONE;
  for (uint32_t i = 0; i < page->count; i++)
    if (nodes[i].tag == WN_TAG_BODY) {
      page->body = i;
      break;
    }
}

/* The tree of an empty (or element-less) page: <html><body>. */
static wn_err wn_build_empty(wn_builder *b) {
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

static wn_err wn_dom_parse_pass(const char *bytes, size_t len, const wn_dom_options *opts,
                                int noscript_content, wn_dom_page **out, wn_diag *diag) {
  wn_err err = WN_OK;
  wn_dom_page *page = NULL;
  wn_dom_decoded decoded = {0};
  xmlDocPtr doc = NULL;
  wn_builder builder = {.page = NULL, .cap = 0, .max_nodes = 0, .last_text = WN_DOM_NONE,
                        .noscript_content = noscript_content};
  *out = NULL;

  size_t max_bytes = opts && opts->max_bytes ? opts->max_bytes : WN_DOM_DEFAULT_MAX_BYTES;
  uint32_t max_nodes = opts && opts->max_nodes ? opts->max_nodes : WN_DOM_DEFAULT_MAX_NODES;
  uint32_t max_depth = opts && opts->max_depth ? opts->max_depth : WN_DOM_DEFAULT_MAX_DEPTH;
  int keep_xml = opts ? opts->keep_xml : 0;
  if (!bytes && len)
    return wn_diag_set(diag, WN_EINVAL, "page: no bytes");
  if (len > max_bytes)
    return wn_diag_set(diag, WN_ETOOBIG, "page is %zu bytes, past the cap of %zu", len,
                       max_bytes);
  if (len > INT32_MAX)
    return wn_diag_set(diag, WN_ETOOBIG, "page is too large for the HTML parser");
  wn_buf_init(&builder.pre_space, max_bytes);

  /* A compressed body, a PDF, an image: refused, not "extracted" as
   * windows-1252 mojibake. */
  err = wn_dom_sniff(bytes, len, opts ? opts->transport_charset : NULL, diag);
  if (err)
    return err;

  page = calloc(1, sizeof *page);
  if (!page)
    return WN_ENOMEM;
  /* The arena's cap bounds a page's memory: the tree is at most a small
   * multiple of the decoded text plus a per-node cost. */
  page->arena = wn_arena_create(0);
  if (!page->arena) {
    err = WN_ENOMEM;
    goto out;
  }
  page->input_bytes = len;

  err = wn_dom_decode(bytes ? bytes : "", len, opts ? opts->transport_charset : NULL,
                      max_bytes, &decoded, diag);
  if (err)
    goto out;
  snprintf(page->charset, sizeof page->charset, "%s", decoded.charset);
  page->charset_source = decoded.source;

  builder.page = page;
  builder.max_nodes = max_nodes;
  builder.max_depth = max_depth;
  wn_reserve_nodes(&builder, decoded.utf8, decoded.len);
  if (decoded.len > 0) {
    /* The bytes are UTF-8 now: IGNORE_ENC keeps libxml2 from switching
     * encodings again on a <meta charset>. */
    const int options = HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
                        HTML_PARSE_NONET | HTML_PARSE_IGNORE_ENC | HTML_PARSE_COMPACT;
    if (keep_xml) {
      /* htmlReadMemory returns NULL, or a tree cut short, when an
       * allocation fails; only its errors say so. */
      wn_xml_errors xerrs = {.ctxt = NULL, .oom = 0};
      WN_WITH_XML_ERRORS(&xerrs, doc = htmlReadMemory(decoded.utf8, (int)decoded.len, NULL,
                                                      "UTF-8", options));
      if (!doc || xerrs.oom) {
        err = WN_ENOMEM;
        goto out;
      }
      wn_xml_adopt_strays(doc);
      xmlNodePtr root = xmlDocGetRootElement(doc);
      if (root)
        err = wn_build_from_xml(&builder, root, keep_xml, diag);
      if (root && !err)
        err = wn_meta_from_xml(&builder, root);
    } else {
      err = wn_build_sax(&builder, decoded.utf8, decoded.len, options, diag);
    }
    if (err)
      goto out;
  }
  if (page->count <= 1) {
    /* Nothing but a bare root: give it the <html><body> of an empty page. */
    page->count = 0;
    err = wn_build_empty(&builder);
    if (err)
      goto out;
  }
  wn_finish(page);
  if (keep_xml && doc) {
    page->doc = doc;
    doc = NULL;
  }
  *out = page;
  page = NULL;
out:
  wn_buf_free(&builder.pre_space);
  if (doc)
    xmlFreeDoc(doc);
  wn_dom_decoded_free(&decoded);
  wn_dom_free(page);
  if (err == WN_ENOMEM)
    wn_diag_set(diag, err, "page: out of memory while building the tree");
  return err;
}

/* The bytes that lie inside <noscript> elements (any case): from
 * each "<noscript" to the next "</noscript", or to the end when none
 * closes it. 0: the page has none. */
static size_t wn_noscript_bytes(const char *bytes, size_t len) {
  static const char open[] = "<noscript", close[] = "</noscript";
  size_t total = 0, start = 0;
  int inside = 0;
  for (size_t i = 0; i < len;) {
    const char *p = memchr(bytes + i, '<', len - i);
    if (!p)
      break;
    i = (size_t)(p - bytes);
    const char *tag = inside ? close : open;
    const size_t n = inside ? sizeof close - 1 : sizeof open - 1;
    size_t k = 1;
    while (k < n && i + k < len && (p[k] | 0x20) == tag[k])
      k++;
    if (k == n) {
      if (inside)
        total += i - start;
      else
        start = i;
      inside = !inside;
      i += n;
      continue;
    }
    i++;
  }
  if (inside)
    total += len - start;
  return total;
}

/*
 * A <noscript> is left out of the tree: what a page shows without
 * scripts is no part of the page a reader sees. Two kinds of page are
 * read with noscript as content instead (a second parse):
 *  - libxml2 parses a noscript's content as markup, and an element left
 *    open inside it (a "<noscript><div id=nojs></noscript>" at the top of
 *    a body: HTML's parser reads it as text when scripts run) keeps the
 *    noscript open to the end of the body, so the whole page lies inside
 *    it;
 *  - a page whose scripts draw everything (a forum's single-page
 *    application) and whose server sends the same content in a noscript
 *    for readers without scripts and for crawlers: the page outside
 *    noscript is a shell (a site name, "Loading").
 * Both have little text outside noscript and much markup inside it: the
 * second parse runs when the noscripts' bytes are more than
 * WN_DOM_NOSCRIPT_MARKUP times the text outside them (a page of a few
 * tracking pixels in noscript never pays for it), and its tree is taken
 * when more of the page's text lies inside noscript than outside.
 */
#define WN_DOM_NOSCRIPT_MARKUP 16u /* a page's markup is rarely 16 bytes per byte of its text */

wn_err wn_dom_parse(const char *bytes, size_t len, const wn_dom_options *opts,
                    wn_dom_page **out, wn_diag *diag) {
  wn_err err = wn_dom_parse_pass(bytes, len, opts, 0, out, diag);
  if (err || !bytes)
    return err;
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(*out, &count);
  const uint64_t text = count ? nodes[0].text_len : 0;
  const size_t inside = (*out)->noscript ? wn_noscript_bytes(bytes, len) : 0;
  if (inside == 0 || WN_DOM_NOSCRIPT_MARKUP * text >= inside)
    return WN_OK;
  wn_dom_page *again = NULL;
  err = wn_dom_parse_pass(bytes, len, opts, 1, &again, diag);
  if (err)
    return err == WN_ENOMEM ? err : WN_OK; /* the first tree stands */
  nodes = wn_dom_nodes(again, &count);
  if (count && nodes[0].text_len > 2 * text) {
    wn_dom_free(*out);
    *out = again;
    return WN_OK;
  }
  wn_dom_free(again);
  return WN_OK;
}

void wn_dom_free(wn_dom_page *page) {
  if (!page)
    return;
  if (page->doc)
    xmlFreeDoc(page->doc);
  free(page->attrs);
  free(page->meta);
  wn_arena_destroy(page->arena);
  free(page);
}

const wn_dom_node *wn_dom_nodes(const wn_dom_page *page, uint32_t *count) {
  if (count)
    *count = page->count;
  return page->nodes;
}

uint32_t wn_dom_body(const wn_dom_page *page) { return page->body; }
int wn_dom_cut_short(const wn_dom_page *page) { return page->cut_short; }

int wn_dom_data_table(const wn_dom_page *page, uint32_t t) {
  const wn_dom_node *nodes = page->nodes;
  if (t >= page->count || nodes[t].tag != WN_TAG_TABLE)
    return 0;
  uint32_t widest = 0;
  for (uint32_t j = t + 1; j < nodes[t].end; j++) {
    const wn_dom_node *n = &nodes[j];
    if (n->tag == WN_TAG_TABLE)
      return 0;
    if (n->tag != WN_TAG_TR)
      continue;
    uint32_t cells = 0;
    for (uint32_t c = n->first_child; c != WN_DOM_NONE; c = nodes[c].next_sibling)
      cells += nodes[c].tag == WN_TAG_TD || nodes[c].tag == WN_TAG_TH;
    if (cells > widest)
      widest = cells;
  }
  return widest >= 2;
}

const char *wn_dom_charset(const wn_dom_page *page) { return page->charset; }
wn_charset_source wn_dom_charset_source(const wn_dom_page *page) { return page->charset_source; }
size_t wn_dom_input_bytes(const wn_dom_page *page) { return page->input_bytes; }
size_t wn_dom_memory(const wn_dom_page *page) { return wn_arena_used(page->arena); }
void *wn_dom_xml_doc(const wn_dom_page *page) { return page->doc; }



const char *wn_dom_lang(const wn_dom_page *page) { return page->lang; }

const char *wn_dom_raw_text(const wn_dom_node *node) {
  if (node->tag != WN_TAG_TEXT || !node->text)
    return NULL;
  if (node->flags & WN_DOM_IN_PRE)
    return node->text + node->own_text_len + 1;
  return node->text;
}

wn_err wn_dom_node_path(const wn_dom_page *page, uint32_t i, wn_buf *out) {
  if (i >= page->count)
    return WN_EINVAL;
  /* Collect the ancestors, then print top-down. */
  uint32_t n = (uint32_t)page->nodes[i].depth + 1;
  uint32_t *chain = malloc((size_t)n * sizeof *chain);
  if (!chain)
    return WN_ENOMEM;
  n = 0;
  for (uint32_t k = i; k != WN_DOM_NONE && n <= page->nodes[i].depth; k = page->nodes[k].parent)
    chain[n++] = k;
  wn_err err = WN_OK;
  while (n-- > 0) {
    const wn_dom_node *node = &page->nodes[chain[n]];
    uint32_t position = 1;
    if (node->parent != WN_DOM_NONE) {
      for (uint32_t s = page->nodes[node->parent].first_child; s != chain[n];
           s = page->nodes[s].next_sibling)
        if (page->nodes[s].tag == node->tag && strcmp(page->nodes[s].name, node->name) == 0)
          position++;
    }
    err = node->tag == WN_TAG_TEXT ? wn_buf_printf(out, "/text()[%u]", position)
                                   : wn_buf_printf(out, "/%s[%u]", node->name, position);
    if (err)
      break;
  }
  free(chain);
  return err;
}
