/*
 * dom/dom_int.h: what the files of src/dom share, not part of dom.h:
 *
 *   dom.c        the tag table, node emission and the page's life; the
 *                two builders (build.h) emit through it:
 *   build_sax.c  from libxml2's SAX events (the default)
 *   build_xml.c  from libxml2's tree (keep_xml)
 *   text.c       text as the tree keeps it, node signatures
 *   attrs.c      kept attributes and the metadata side table
 *   decode.c     bytes to UTF-8 (charset detection), with prescan.c and
 *                sniff.c (charset.h)
 */
#ifndef WN_DOM_INT_H
#define WN_DOM_INT_H

#include <stddef.h>
#include <stdint.h>

#include <libxml/tree.h>

#include "dom/dom.h"

struct wn_dom_page {
  wn_arena *arena;
  wn_dom_node *nodes;
  uint32_t count;
  uint32_t body;
  size_t input_bytes;
  double decode_ms, parse_ms; /* wn_dom_times */
  char charset[48];
  wn_charset_source charset_source;
  xmlDocPtr doc; /* kept only with keep_xml */
  /* Kept attributes (wn_dom_attr): runs of (name, value) ended by a NULL
   * name; entry 0 is unused so that node.attrs 0 means none. Malloc'd. */
  struct wn_dom_attr_entry {
    const char *name; /* a static string of wn_kept_* */
    const char *value;
  } *attrs;
  uint32_t n_attrs, cap_attrs;
  /* The metadata side table (wn_dom_meta_items). Malloc'd. */
  wn_dom_meta *meta;
  uint32_t n_meta, cap_meta;
  const char *lang;
  int cut_short; /* WN_DOM_CUT_*: why the parse ended before the page did */
  int noscript;  /* a <noscript> element was met (and skipped) */
};

typedef struct wn_tag_entry {
  const char *name;
  uint8_t tag;
  uint8_t block; /* 1: block-level; WN_SKIP: not content, subtree left out */
  uint8_t meta;  /* wn_meta_el: what the metadata side table takes from it */
} wn_tag_entry;

/* Elements the metadata side table looks at (wn_dom_meta). */
enum wn_meta_el { WN_ME_NONE, WN_ME_META, WN_ME_LINK, WN_ME_TIME, WN_ME_BASE, WN_ME_SCRIPT,
                  WN_ME_TITLE, WN_ME_H1, WN_ME_HEAD };

#define WN_SKIP 2u

/* ---- text (text.c) -------------------------------------------------------- */

/* Collapses runs of white space to one space and trims both ends; NULL for
 * white space only. *edges: WN_DOM_SPACE_BEFORE / _AFTER for what was
 * trimmed, or WN_DOM_COLLAPSE_HIDDEN for text of soft hyphens only. The
 * text is returned in NFC, in the arena (*oom on failure). */
#define WN_DOM_COLLAPSE_HIDDEN 0x80u
char *wn_dom_collapse(wn_arena *arena, const char *text, uint32_t *out_len, uint8_t *edges,
                      int *oom);
/* Node signatures (wn_dom_node.sig): an element by its name, id and
 * class, a text by its text, digits folded. */
uint64_t wn_dom_element_sig(const char *name, const char *id, const char *cls);
uint64_t wn_dom_text_sig(const char *text);

/* ---- kept attributes and the metadata side table (attrs.c) ----------------- */

#define WN_DOM_MAX_KEPT 6u /* the longest list of wn_dom_kept_names */

/* The attributes kept of an element of tag (NULL-terminated static names),
 * or NULL for a text node. */
const char *const *wn_dom_kept_names(uint8_t tag);
/* A value copied into the arena, at most cap bytes; NULL stays NULL. */
const char *wn_dom_value_copy(wn_arena *arena, const char *value, size_t cap, int *oom);
/* Keeps the values (parallel to names, NULL: absent) of element node. */
wn_err wn_dom_keep_attrs(wn_dom_page *page, wn_dom_node *node, const char *const *names,
                         const char *const *values);
/* 1 if the len bytes at s are white space only. */
int wn_dom_meta_blank(const char *s, size_t len);
/* Attribute reader of one element, whichever builder holds it. */
typedef const char *(*wn_attr_fn)(const void *element, const char *name, void **owned);
/* The metadata item of element kind me (meta, link, time, base): its
 * attributes. Scripts, titles and headings get their text from the
 * builder. Returns the item or NULL (none made, *err on failure). */
wn_dom_meta *wn_dom_meta_element(wn_dom_page *page, uint8_t me, const void *el, wn_attr_fn get,
                                 wn_err *err);
/* Sets item's text (len bytes of text, longer than its cap when cut). */
wn_err wn_dom_meta_text(wn_dom_page *page, uint32_t item, const char *text, size_t len, int cut);
/* The bytes of text an item of kind keeps. */
size_t wn_dom_meta_cap(uint8_t kind);

#endif /* WN_DOM_INT_H */
