/*
 * template: a site's template as data, and the ETDM matching of a page
 * against it.
 *
 * A template is a tree of node signatures (see wn_dom_node.sig) in document
 * order, each with the number of sample pages that held an equal node at
 * that place. It is what src/learn builds, what src/store keeps as bytes,
 * and what src/detect maps pages onto. It needs nothing else: a detector
 * on another machine can use the bytes alone.
 *
 * Encoding (little-endian, version WN_TEMPLATE_FORMAT_VERSION):
 *   "WNTP" u8 version, u8 min_count, u16 sample_pages, u8 selector,
 *   varint node_count, then per node in pre-order: varint n_children,
 *   u8 count, u8 kind, u32 signature; then varint date_node + 1 and
 *   varint author_node + 1 (0: none; see the metadata positions below);
 *   then (version 4) varint content_node + 1 (0: none), u8 whole, varint
 *   n_skip and n_skip varints: the content places below; then (version
 *   5) varint n_aside and n_aside varints; then (version 6) u8 shape.
 * Versions 1 (no selector byte), 2 (no positions), 3 (no content places),
 * 4 (no asides) and 5 (no shape) are still read, with selector 0, no
 * positions, no places, no asides, shape 0.
 *
 * A template of several layouts (below) is "WNTL", u8 version 1, varint n
 * (2 to WN_TEMPLATE_MAX_LAYOUTS), then per layout a varint length and
 * that layout's bytes as above; a template of one layout is its bytes
 * alone, as before layouts.
 */
#ifndef WN_TEMPLATE_H
#define WN_TEMPLATE_H

#include <stddef.h>
#include <stdint.h>

#include "dom/dom.h"
#include "util/util.h"

#include <winnow/winnow.h>

#define WN_TEMPLATE_FORMAT_VERSION 6u
#define WN_TEMPLATE_MAX_LAYOUTS 8u
#define WN_TEMPLATE_MAX_NODES 1000000u

typedef struct wn_template wn_template;

typedef struct wn_template_node {
  uint32_t sig;          /* folded 32-bit signature */
  uint32_t parent;       /* WN_DOM_NONE for the root */
  uint32_t first_child;  /* WN_DOM_NONE if none */
  uint32_t next_sibling; /* WN_DOM_NONE if none */
  uint32_t end;          /* one past the subtree */
  uint32_t n_children;
  uint8_t count;         /* sample pages holding this node */
  uint8_t is_text;       /* a text node (its signature is its text) */
} wn_template_node;

typedef struct wn_template_stats {
  uint32_t nodes;
  uint32_t text_nodes;
  uint32_t sample_pages;
  uint32_t min_count;
  uint32_t selector;
  uint32_t layouts; /* 1 + the other layouts */
} wn_template_stats;

/* Layouts. A site whose pages come in several layouts (articles, section
 * fronts, reference pages) has a template per layout; the first is the one
 * the site was learned from (the key page's), and it holds the others.
 * Detection matches a page against each and uses the one it fits best
 * (src/detect). wn_template_layout(tpl, 0) is tpl itself; past the last,
 * NULL. add_layout takes layout over (freed with tpl); WN_EINVAL when tpl
 * holds WN_TEMPLATE_MAX_LAYOUTS already or layout holds layouts itself. */
uint32_t wn_template_layout_count(const wn_template *tpl);
const wn_template *wn_template_layout(const wn_template *tpl, uint32_t k);
wn_err wn_template_add_layout(wn_template *tpl, wn_template *layout);

/* Folds a 64-bit node signature to the template's 32 bits. */
static inline uint32_t wn_template_fold(uint64_t sig) { return (uint32_t)(sig ^ (sig >> 32)); }

/* Builds a template from nodes in pre-order whose parent/n_children are set
 * (the other links are recomputed). Copies. */
wn_err wn_template_from_nodes(const wn_template_node *nodes, uint32_t count,
                              uint32_t sample_pages, uint32_t min_count, wn_template **out,
                              wn_diag *diag);
void wn_template_free(wn_template *tpl);

const wn_template_node *wn_template_nodes(const wn_template *tpl, uint32_t *count);

/* The main-content selector chosen for the site when it was learned: a
 * wn_detect_selector value (src/detect owns its meaning; 0 is detect's
 * default). The template only carries it, so that a detector elsewhere
 * treats the site's pages the way its operator chose. */
uint8_t wn_template_selector(const wn_template *tpl);
void wn_template_set_selector(wn_template *tpl, uint8_t selector);
/* The site's shape: what most of its sample pages are (a
 * wn_detect_page_type + 1, src/detect owns the meaning), 0 when they did
 * not agree or the template predates it. Carried for detection, which
 * reads a news site's pages otherwise than a manual's. set: WN_EINVAL
 * past WN_TEMPLATE_MAX_SHAPE. */
#define WN_TEMPLATE_MAX_SHAPE 7u
uint8_t wn_template_shape(const wn_template *tpl);
wn_err wn_template_set_shape(wn_template *tpl, uint8_t shape);
void wn_template_get_stats(const wn_template *tpl, wn_template_stats *stats);

/* Metadata positions: the template elements where the site prints an
 * article's date and its byline ("By ..."), found at learn time from the
 * sample pages (src/learn), for pages whose markup states neither. Each a
 * template node index (an element, not a text node) or WN_DOM_NONE. */
typedef struct wn_template_positions {
  uint32_t date_node;
  uint32_t author_node;
} wn_template_positions;

wn_template_positions wn_template_get_positions(const wn_template *tpl);
/* WN_EINVAL for an index past the nodes or at a text node. */
wn_err wn_template_set_positions(wn_template *tpl, const wn_template_positions *pos);

/* Content places: where the main content sits on the site's pages, found
 * at learn time from the sample pages (src/learn/places.c says how):
 * content is the template element whose subtree held the main content on
 * most samples; skip lists elements inside it whose page-specific text
 * the samples agree is not content (a comment list, a "more stories" box:
 * the same structure on every page, other text). Element indices;
 * content WN_DOM_NONE when the samples did not agree (then skip is
 * empty). Each skip node lies strictly inside content, none inside
 * another. */
#define WN_TEMPLATE_MAX_SKIP 64u
typedef struct wn_template_places {
  uint32_t content;
  uint8_t whole;  /* 1: all page-specific text at the place is content */
  uint32_t n_skip;
  uint32_t skip[WN_TEMPLATE_MAX_SKIP];
  /* Recurring non-content outside the place (version 5): elements beside
   * it whose page-specific text the samples agree is not content (a
   * comment thread, a "more stories" list). When the cue selector keeps
   * text mostly outside the place, these say whether it went wrong (it
   * kept an aside) or the page's content moved (it did not). */
  uint32_t n_aside;
  uint32_t aside[WN_TEMPLATE_MAX_SKIP];
} wn_template_places;

const wn_template_places *wn_template_get_places(const wn_template *tpl);
/* WN_EINVAL when a node is past the template, a text node, a skip node
 * is not strictly inside content or lies inside another skip node, or an
 * aside node overlaps content (inside it or around it) or another aside. */
wn_err wn_template_set_places(wn_template *tpl, const wn_template_places *places);

wn_err wn_template_encode(const wn_template *tpl, wn_buf *out, wn_diag *diag);
/* A wrong magic or version, a truncated buffer or inconsistent counts are
 * WN_EVERSION / WN_ECORRUPT with a message; never a crash. */
wn_err wn_template_decode(const void *bytes, size_t len, wn_template **out, wn_diag *diag);

/*
 * The equal top-down mapping (ETDM, site-level paper Sec. 2.2): roots are
 * paired if equal; two nodes are paired only if their parents are paired
 * and their signatures are equal. Repeated siblings are paired in order by
 * a longest common subsequence of the two child lists (greedy in-order
 * pairing past WN_TEMPLATE_LCS_CELLS, to bound the work). The walk uses an
 * explicit work list, never recursion.
 *
 * A view lets one mapping serve both kinds of tree (page, template).
 */
#define WN_TEMPLATE_LCS_CELLS 65536u

typedef struct wn_etdm_view {
  const void *tree;
  uint32_t count;
  uint32_t (*sig)(const void *tree, uint32_t i);
  uint32_t (*first_child)(const void *tree, uint32_t i);
  uint32_t (*next_sibling)(const void *tree, uint32_t i);
  uint32_t (*n_children)(const void *tree, uint32_t i);
} wn_etdm_view;

wn_etdm_view wn_etdm_view_of_page(const wn_dom_page *page);
wn_etdm_view wn_etdm_view_of_template(const wn_template *tpl);

/* map[i] (a->count entries) receives the node of b paired with node i of
 * a, or WN_DOM_NONE; *pairs the number of pairs. */
wn_err wn_etdm_map(const wn_etdm_view *a, const wn_etdm_view *b, uint32_t *map,
                   uint32_t *pairs);

/* The mapping of a page onto its site's template: map has one entry per
 * page node. */
wn_err wn_template_match(const wn_template *tpl, const wn_dom_page *page, uint32_t *map,
                         uint32_t *pairs);

/* The sibling pairing the mapping uses, exposed for learn and the tests:
 * pairs a[i] with b[pair[i]] (or WN_DOM_NONE), in order, maximising the
 * number of pairs of equal values. scratch needs (na + 1) * (nb + 1)
 * uint16_t cells; with NULL, a greedy in-order pairing is used. */
uint32_t wn_template_align(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb,
                           uint32_t *pair, uint16_t *scratch);

#endif /* WN_TEMPLATE_H */
