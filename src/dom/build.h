/*
 * dom/build.h: what the two tree builders share (src/dom): the state of
 * a tree being built, the frames of open elements, and the steps both
 * builders take, so the tree is the same whichever ran:
 *
 *   emit.c       the tag table, a node's emission (wn_emit_element,
 *                wn_emit_text), libxml2's error handler, an empty page
 *   dom.c        the parse, which runs one builder, and the page's life
 *   build_sax.c  the tree straight from libxml2's SAX2 events (the default)
 *   build_xml.c  the tree copied from libxml2's document (keep_xml)
 */
#ifndef WN_DOM_BUILD_H
#define WN_DOM_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include "dom/dom.h"
#include "dom/dom_int.h"
#include "util/util.h"

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

extern const wn_tag_entry wn_svg_entry; /* the <svg> element's row */

/* The longest tag name kept (longer ones are cut; no HTML tag comes near). */
#define WN_MAX_TAG_NAME 64u

/* The tag table's row of a lower-case name, or NULL. */
const wn_tag_entry *wn_tag_lookup(const char *name);
/* Lower-cases a tag name into out. */
void wn_lower_name(const char *name, char out[WN_MAX_TAG_NAME + 1]);
/* The element's subtree is left out of the tree. */
int wn_skipped(wn_builder *b, const wn_tag_entry *entry);
/* The kind of an element inside an <svg> (its lower-case local name):
 * WN_SVG_TEXT, WN_SVG_HIDE or 0. */
uint8_t wn_svg_kind(const char *name);
/* An <svg> whose aria-hidden says it is decoration. */
int wn_svg_hidden(const char *aria_hidden);
/* One element (not a skipped one) under parent (NULL for the root), at
 * depth top: see emit.c. */
wn_err wn_emit_element(wn_builder *b, const wn_frame *parent, uint32_t *prev_sibling,
                       uint32_t top, const char *name, const wn_tag_entry *entry,
                       const char *id, const char *cls, int has_href,
                       const char *const *kept, int ws_before, void *xml, wn_frame *frame,
                       wn_diag *diag);
/* One text node under parent: see emit.c. */
wn_err wn_emit_text(wn_builder *b, wn_frame *parent, uint32_t top, const char *content,
                    void *xml, wn_diag *diag);
/* Sizes the node array once, from the page's count of '<' (within the
 * node cap); without it the array grows as nodes come. */
void wn_emit_reserve(wn_builder *b, const char *text, size_t len);
/* The tree of an empty (or element-less) page: <html><body>. */
wn_err wn_emit_empty(wn_builder *b);

/* libxml2's errors while it parses one page, on this thread. An
 * allocation failure makes libxml2 2.9 disable its events but go on
 * reading, and some of its loops (xmlNextChar after a buffer could not
 * grow) then never end: the page stops there, as an error. Everything
 * else is dropped (the parse is in recovery mode, HTML_PARSE_NOERROR). */
typedef struct wn_xml_errors {
  xmlParserCtxtPtr ctxt; /* NULL: the error's own */
  int oom;
} wn_xml_errors;

/* libxml2's structured error handler for one parse (ctx: wn_xml_errors). */
void wn_xml_error(void *ctx, xmlErrorPtr error);

/* Runs with wn_xml_error as the thread's handler, then puts back the old. */
#define WN_WITH_XML_ERRORS(errs, stmt)                                                   \
  do {                                                                                   \
    xmlStructuredErrorFunc old_fn_ = xmlStructuredError;                                 \
    void *old_ctx_ = xmlStructuredErrorContext;                                          \
    xmlSetStructuredErrorFunc((errs), wn_xml_error);                                     \
    stmt;                                                                                \
    xmlSetStructuredErrorFunc(old_ctx_, old_fn_);                                        \
  } while (0)

/* The tree from libxml2's SAX2 events (build_sax.c). */
wn_err wn_build_sax(wn_builder *b, const char *utf8, size_t len, int options, wn_diag *diag);
/* libxml2's document of the page (*doc, which the caller frees) and the
 * tree copied from it, with the metadata side table (build_xml.c). */
wn_err wn_build_xml(wn_builder *b, const char *utf8, size_t len, int options, xmlDocPtr *doc,
                    wn_diag *diag);

#endif
