/*
 * detect: main content of a page, given its site's template.
 *
 *   page tree + template --ETDM match--> node labels (template | candidate)
 *     --select (Algorithms 2 to 5 of the site-level paper, with
 *       single-page cues)--> selected nodes --render--> text | HTML | JSON
 *
 * Detection is a pure function of (page, template): no global state, safe
 * on many threads.
 */
#ifndef WN_DETECT_H
#define WN_DETECT_H

#include <stddef.h>
#include <stdint.h>

#include "dom/dom.h"
#include "template/template.h"
#include "util/util.h"

#include <winnow/winnow.h>

/* wn_detect_selector, wn_single_method, wn_detect_fallback and
 * wn_detect_options are public (include/winnow/winnow.h). */

typedef struct wn_detect_result wn_detect_result;

/* opts may be NULL. The result borrows nothing from the template, but its
 * node indices refer to page, which must outlive it. */
wn_err wn_detect_run(const wn_dom_page *page, const wn_template *tpl,
                     const wn_detect_options *opts, wn_detect_result **out, wn_diag *diag);
void wn_detect_result_free(wn_detect_result *result);

/* The whole detection policy: with a template (tpl may be NULL), match
 * and select; when there is no template, or the page's confidence is below
 * opts->min_confidence, the single-page method opts->fallback serves the
 * page instead, with steps (0: the measured default; else
 * WN_SINGLE_STEPS_SET | bits of detect/steps.h, wn_detector_set_steps).
 * The result then says so (wn_detect_fallback_reason) and keeps the
 * template's confidence (0 without a template). */
wn_err wn_detect_page(const wn_dom_page *page, const wn_template *tpl,
                      const wn_detect_options *opts, uint32_t steps, wn_detect_result **out,
                      wn_diag *diag);
wn_detect_fallback wn_detect_fallback_reason(const wn_detect_result *result);
/* The selector a site's template names, with none (0) read as cues: the
 * one place that default lives. */
wn_detect_selector wn_detect_site_selector(const wn_template *tpl);

/* For learning the content places (src/learn/places.c): page matched
 * against tpl as detection matches it, map[i] the template node paired
 * with page node i (or WN_DOM_NONE), cand[i] its lifted candidate label,
 * keep[i] 1 for a text node the cue selector keeps. Each array has one
 * entry per page node, caller-owned. */
wn_err wn_detect_sample(const wn_dom_page *page, const wn_template *tpl, uint32_t *map,
                        uint8_t *cand, uint8_t *keep, wn_diag *diag);

/* How well the page fits the template, in [0, 1]: the share of the
 * template's nodes, weighted by their occurrence counts, that the ETDM
 * paired with a node of the page. */
double wn_detect_confidence(const wn_detect_result *result);
/* Why a single-page method chose again (WN_SINGLE_STEP_RETRY): "masks
 * relaxed", "cnr" or "danag" (the other method), "json-ld articleBody",
 * "json-ld HowTo" or "paragraphs"; NULL when it did not. */
const char *wn_detect_result_retried(const wn_detect_result *result);
/* 1 when the result carries text from outside the page's tree (a JSON-LD
 * articleBody or HowTo's steps: the retry's last resort). */
int wn_detect_result_has_body(const wn_detect_result *result);
/* Why the site's content place did not serve the page (the places
 * selector), or NULL: "not paired" or "no text" (the cue selector served
 * it), "unfit" (the single-page method read it, the template as its
 * filter). */
const char *wn_detect_result_place(const wn_detect_result *result);
/* The layout of the site's template that served the page: an index for
 * wn_template_layout (0 when the site has one layout, and for a page the
 * single-page method served: the layout it fitted best). */
uint32_t wn_detect_result_layout(const wn_detect_result *result);
/* The layout of tpl page fits best (wn_template_layout index), how well
 * (the share of the layout's frame it pairs, policy.c), and whether the
 * page pairs that layout's content place (1 too when it has none); 0, 0
 * and 1 without matching when tpl has one layout. best_map (may be NULL)
 * receives that layout's match (malloc'd, one entry per page node, as
 * wn_template_match), or NULL when tpl has one layout. */
wn_err wn_detect_layout(const wn_dom_page *page, const wn_template *tpl, uint32_t *layout,
                        double *fit, int *placed, uint32_t **best_map, wn_diag *diag);
/* "template", "template-paper" or "template-region", after the selector
 * that chose the content. */
const char *wn_detect_method(const wn_detect_result *result);
/* Selected subtree roots, in document order; valid until _free. */
const uint32_t *wn_detect_selected(const wn_detect_result *result, uint32_t *count);
/* Per page node: 1 if the template covers it (boilerplate), else 0. */
const uint8_t *wn_detect_template_flags(const wn_detect_result *result);

/* Output without data tables (WN_RENDER_NO_TABLES: trafilatura's
 * include_tables=False): the text of every data table (wn_dom_data_table)
 * is no longer kept, and the selection is made again, so that the text,
 * the HTML and the Markdown all leave them out. */
wn_err wn_detect_result_drop_tables(const wn_dom_page *page, wn_detect_result *result);

/* Main content as plain text: one line per block element, whitespace
 * collapsed, template text left out. Inline elements join their
 * neighbours as a browser renders them ("<b>un</b>believable" is one
 * word): a space only where the source had white space or left-out text
 * lay between. Text inside pre (listing, xmp, plaintext) keeps its lines,
 * trailing blanks and leading/trailing empty lines trimmed. */
wn_err wn_detect_render_text(const wn_dom_page *page, const wn_detect_result *result,
                             wn_buf *out);
/* The selected subtrees as HTML, in document order (needs a page parsed
 * with keep_xml). Nothing selected, or a page without elements, gives
 * empty output and WN_OK, as render_text does. */
wn_err wn_detect_render_html(const wn_dom_page *page, const wn_detect_result *result,
                             wn_buf *out, wn_diag *diag);

/* What Markdown and HTML output keep, and the URL their links resolve
 * against (NULL: links stay as written). */
typedef struct wn_render_options {
  const char *base_url;
  int links;  /* [text](url); 0: the text only */
  int images; /* ![alt](src); 0: left out */
  int tables; /* data tables as pipe tables; 0: left out (layout tables,
                 those of one column or holding tables, are blocks either way) */
} wn_render_options;

/* The selected subtrees as Markdown (CommonMark with GFM pipe tables):
 * headings, paragraphs, lists, block quotes, code blocks and spans,
 * emphasis, links and images; template text left out as render_text
 * leaves it out; an image is kept when text around it is. Reads the
 * attributes the compact tree keeps (wn_dom_attr): any page, keep_xml or
 * not. opts NULL: everything kept, links as written. Nothing selected gives empty output and WN_OK. */
wn_err wn_detect_render_markdown(const wn_dom_page *page, const wn_detect_result *result,
                                 const wn_render_options *opts, wn_buf *out, wn_diag *diag);
/* render_html with links (href) and image sources (src) made absolute
 * against base_url first (the page's libxml2 doc is changed in place). */
wn_err wn_detect_render_html_base(const wn_dom_page *page, const wn_detect_result *result,
                                  const char *base_url, wn_buf *out, wn_diag *diag);

/* ---- metadata (meta.c) -------------------------------------------------- */

/* The page's metadata from its markup; each field NULL or a malloc'd,
 * NUL-terminated UTF-8 string. */
typedef struct wn_detect_metadata {
  char *title;
  char *author;
  char *date;        /* ISO 8601: YYYY-MM-DD, or the full timestamp as given */
  char *language;
  char *canonical_url;
  char *description;
  char *site_name;
} wn_detect_metadata;

/* Reads the metadata of a page from its metadata side table
 * (wn_dom_meta_items; any page, keep_xml or not): <title>, <meta name/property/itemprop>, Open Graph, JSON-LD,
 * <time datetime>, <link rel=canonical>, <html lang>. URLs are made
 * absolute against page_url (may be NULL). Free with _free. */
wn_err wn_detect_metadata_read(const wn_dom_page *page, const char *page_url,
                               wn_detect_metadata *out, wn_diag *diag);
void wn_detect_metadata_free(wn_detect_metadata *meta);
/* A date as ISO 8601 into out (at least 40 bytes): "2021-03-04" from
 * "2021-03-04", "2021/03/04", "March 4, 2021", "4 Mar 2021", "Thu, 04 Mar
 * 2021 10:00:00 GMT"; "2021-03-04T10:00:00+01:00" as given. 0 if not a
 * date. */
int wn_detect_date_iso(const char *in, char *out, size_t size);

/* Metadata at the positions a site prints it (the template's metadata
 * positions, src/template): the text of a short template element. */
#define WN_META_POSITION_TEXT 256u /* a date or byline is one short line */
/* The text of node's subtree, its text nodes joined by single spaces, into
 * out (size bytes); its length, or 0 when the subtree holds no text or more
 * than fits (longer text is no date line or byline: it is not looked at). */
size_t wn_detect_node_text(const wn_dom_page *page, uint32_t node, char *out, size_t size);
/* The name in a byline: "By Jane Doe, Staff Writer" gives "Jane Doe" (the
 * text after a leading "By" up to a comma, '|', ';', '(', " - " or a
 * digit). 0 if text is no byline. */
int wn_detect_byline_author(const char *text, char *out, size_t size);
/* Fills meta's date and author where the markup gave none, from the page
 * nodes the ETDM pairs with the template's metadata positions (date:
 * normalised by wn_detect_date_iso; author: wn_detect_byline_author). A
 * template without positions leaves meta as it is. */
wn_err wn_detect_metadata_positions(const wn_dom_page *page, const wn_template *tpl,
                                    wn_detect_metadata *meta, wn_diag *diag);
/* ---- explain (explain.c): what detection did, node by node ------------
 *
 * An optional trace for the dump tool's `explain`: wn_detect_page_traced
 * fills it when trace is not NULL; with NULL it is wn_detect_page, and the
 * hot path pays one pointer test per step, nothing else (results are the
 * same either way: the trace only copies what the steps computed). */
typedef struct wn_detect_trace {
  uint32_t count;         /* page nodes; the arrays have count entries */
  uint32_t *tmpl_node;    /* template node the ETDM paired, or WN_DOM_NONE */
  uint8_t *cand;          /* candidate for main content (as the selector saw it) */
  double *score;          /* cues: paragraph score x (1 - link density); else 0 */
  uint8_t *dropped;       /* cues: a block left out as a box of links */
  uint8_t *own;           /* per text node (policy.c): 1, of the page's own
                             blocks, brought in from the single-page
                             reading; 2, cut by the story's span; 3,
                             brought in by it; 4, prose the samples
                             shared, kept by both readings */
  wn_detect_selector selector; /* the one that ran (never WN_SELECT_SITE) */
  int selector_from_site; /* 1: the site's template named it */
  int matched;            /* 1: the template was matched (tpl given) */
  int selected;           /* 1: a selector ran (confidence was enough) */
  double confidence;
  double min_confidence;
  wn_detect_fallback fallback;
  uint32_t core;          /* cues: the best-scoring subtree; region: the
                             largest region; WN_DOM_NONE if none */
  uint32_t branch;        /* the branch (Algorithm 3, or cues' grown core) */
  double core_score;
  int core_by_text;       /* cues: no paragraph scored; most text chose */
  uint32_t place;         /* places: the page's element at the content
                             place, WN_DOM_NONE if the page has none */
  int place_whole;        /* places: the place is whole (region inside) */
  int place_unfit;        /* places: the cues kept the page's text outside
                             the place, not in its asides: theirs stands */
  uint32_t place_continued; /* places: bytes of text added where the
                               single-page method's run of lines carried
                               the story on past the place */
  uint32_t siblings_joined; /* cues: times the core rose to take siblings in */
  uint32_t n_dropped;
  uint32_t own_bytes;       /* text of the page's own blocks brought in */
  uint32_t span_bytes;      /* text cut by the story's span (policy.c) */
  uint32_t span_added;      /* text the story's span brought in */
  uint32_t shared_bytes;    /* prose the samples shared, brought in */
  uint32_t layout;          /* the site's layout matched (wn_template_layout) */
} wn_detect_trace;

/* Detection as wn_detect_page with the default steps, recording into
 * trace (may be NULL; else zeroed, or used before and not yet freed). The
 * trace's arrays are allocated here (free with wn_detect_trace_free). */
wn_err wn_detect_page_traced(const wn_dom_page *page, const wn_template *tpl,
                             const wn_detect_options *opts, wn_detect_trace *trace,
                             wn_detect_result **out, wn_diag *diag);
void wn_detect_trace_free(wn_detect_trace *trace);
/* Per page node: 1 for a text node rendered as main content. */
const uint8_t *wn_detect_keep_flags(const wn_detect_result *result);

/* The page's shape (shape.c): WCXB's seven page types. */
typedef enum wn_detect_page_type {
  WN_PAGE_ARTICLE,
  WN_PAGE_FORUM,
  WN_PAGE_PRODUCT,
  WN_PAGE_COLLECTION,
  WN_PAGE_LISTING,
  WN_PAGE_DOCUMENTATION,
  WN_PAGE_SERVICE
} wn_detect_page_type;
/* "article", "forum", ...; NULL for a value out of range. */
const char *wn_detect_page_type_name(wn_detect_page_type t);
/* The shape of page, from what it states (JSON-LD types, og:type), its
 * structure and what res kept (may be NULL), and path (the URL's path, may
 * be NULL) as weak evidence. */
wn_detect_page_type wn_detect_page_shape(const wn_dom_page *page, const wn_detect_result *res,
                                         const char *path);

/* ---- single-page methods (cnr.c, danag.c): no template, one page -------- */


/* The page's main content by a single-page method. The result is used like
 * a template result (selected subtrees, render_text / render_html); its
 * method is the method's name and its confidence 0 (no template fit).
 * A page without text (empty, or only images, scripts, markup) is no
 * error: WN_OK with no selected node, so its text renders empty; callers
 * that need content test wn_detect_selected()'s count. WN_EINVAL for an
 * unknown method, WN_ENOMEM when out of memory. Runs in time linear in the
 * page's nodes (plus a sort in CNR's Algorithm 2), without recursion. */
wn_err wn_detect_single(const wn_dom_page *page, wn_single_method method,
                        wn_detect_result **out, wn_diag *diag);

/* ---- the paper's steps, on a candidate set (exposed for tests) ---------- */

/* Algorithm 2: the candidates whose parent is not a candidate, in document
 * order. cand has one flag per page node. Returns how many were written. */
uint32_t wn_detect_reduce(const wn_dom_page *page, const uint8_t *cand, uint32_t *reduced);
/* Algorithm 3: the parent of a reduced node with the largest subtree (the
 * first in document order on a tie). WN_DOM_NONE if n == 0. */
uint32_t wn_detect_branch(const wn_dom_page *page, const uint32_t *reduced, uint32_t n);
/* Algorithm 4: keeps the reduced nodes inside the branch; returns count. */
uint32_t wn_detect_discard(const wn_dom_page *page, uint32_t branch, uint32_t *reduced,
                           uint32_t n);
/* Algorithm 5: replaces siblings by their parent, repeatedly, until no two
 * nodes of the set share a parent; the set stays in document order. */
uint32_t wn_detect_group(const wn_dom_page *page, uint32_t *set, uint32_t n);

#endif /* WN_DETECT_H */
