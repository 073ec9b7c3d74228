/*
 * detect_int.h: internals shared by the files of src/detect, one file per
 * step of detection:
 *
 *   labels.c           match against the template, confidence, labelling
 *   site_algorithms.c  the site-level paper's Algorithms 2 to 5, the
 *                      link-box rule
 *   select_cues.c      WN_SELECT_CUES    } the four selectors, each filling
 *   select_paper.c     WN_SELECT_PAPER   } a result from the labels
 *   select_region.c    WN_SELECT_REGION  }
 *   select_places.c    WN_SELECT_PLACES  } (and the sample view of learning)
 *   policy.c           a site's layout, then its template or a single-page
 *                      method; selector and fallback names
 *   fastce_match.c     FastCE detection (fastce_detect.h)
 *   repeats.c          the output invariant: no block twice
 *   render.c           text and HTML output, absolute URLs
 *   markdown.c         Markdown output
 *   meta.c, recipe.c   the page's metadata (title, author, date...), a
 *                      recipe's parts from its structured data
 *   jsonld.c           what JSON-LD, microdata and og:type state: the
 *                      article's body, a recipe's parts, the page's kind
 *   result.c           the result type, its allocation and accessors
 *   trace.c            the trace winnow-dump explain reads
 *   single.c, single_boxes.c, single_masks.c, single_hints.c, cnr.c,
 *   danag.c, readability.c, combine.c
 *                      the single-page methods (single_int.h)
 *
 * Not part of the public interface: callers see the opaque
 * wn_detect_result of detect.h.
 */
#ifndef WN_DETECT_INT_H
#define WN_DETECT_INT_H

#include <stdint.h>

#include "detect/detect.h"

struct wn_detect_result {
  uint32_t *selected;   /* subtree roots, document order (malloc'd) */
  uint32_t n_selected;
  uint8_t *tmpl;        /* per page node: boilerplate (template or, for a
                           single-page method, not content) */
  uint8_t *keep;        /* per page node: a text node that is main content */
  uint32_t count;       /* page nodes */
  double confidence;    /* template fit; see wn_detect_confidence */
  const char *method;   /* static string */
  wn_detect_fallback fallback; /* set by wn_detect_page */
  const char *retried;  /* static string: why a single-page method chose
                           again ("masks relaxed"), or NULL */
  const char *place;    /* static string: why the site's content place did
                           not serve the page, or NULL */
  uint32_t layout;      /* the site's layout that served the page (0: the
                           first, or the only one) */
  char *body_text;      /* malloc'd: content the page carries outside its
                           tree (JSON-LD articleBody), rendered when set */
  int area;             /* the single-page method read the page as parts:
                           its main area whole (area.c) */
  uint32_t stated;      /* wn_detect_stated_kinds of the page, read once */
  int stated_known;     /* stated is set */
};

/* A zeroed result for a page of count nodes with tmpl and keep allocated
 * (all 0); NULL when out of memory (result.c). */
wn_detect_result *wn_detect_result_alloc(uint32_t count, const char *method);
/* res->selected made from res->keep: the roots of the largest subtrees
 * whose text is all kept, in document order (replacing any selection).
 * kept_below (page's node count, may be NULL) gets 1 for each node with
 * kept text at or below it. WN_ENOMEM when out of memory. */
wn_err wn_detect_result_select(const wn_dom_page *page, wn_detect_result *res,
                               uint8_t *kept_below);

/* Calls fn on each item of one JSON-LD script (jsonld.c): the root, an
 * array's members, and @graph members of each (one level, as the JSON-LD
 * 1.1 spec's "named graph" at the top), at most 64. A broken or oversized
 * script (over 1 MiB) is the page's problem, not a failure: it has no
 * items. */
struct json_t;
typedef void (*wn_detect_jsonld_fn)(const struct json_t *item, void *ctx);
void wn_detect_jsonld_each(const char *text, wn_detect_jsonld_fn fn, void *ctx);

/* The page's own statement of its text: the longest schema.org
 * articleBody of its JSON-LD scripts, or a HowTo's description and steps,
 * malloc'd and NUL-terminated (*len its length; *kind "json-ld
 * articleBody" or "json-ld HowTo"), or NULL when it has none (jsonld.c). */
char *wn_detect_jsonld_body(const wn_dom_page *page, size_t *len, const char **kind);

/* What a page states about its own kind, as bits (jsonld.c): schema.org
 * types of its JSON-LD (at a script's top, in its @graph, or as a page's
 * mainEntity) and its og:type. */
#define WN_LD_ARTICLE 0x01u       /* Article, NewsArticle, BlogPosting, Report, Recipe */
#define WN_LD_TECH 0x02u          /* TechArticle, APIReference */
#define WN_LD_FORUM 0x04u         /* QAPage, DiscussionForumPosting */
#define WN_LD_PRODUCT 0x08u       /* Product, ProductGroup */
#define WN_LD_LIST 0x10u          /* ItemList, CollectionPage, SearchResultsPage */
#define WN_LD_FAQ 0x20u           /* FAQPage */
#define WN_LD_LIST_PRODUCTS 0x40u /* an ItemList whose elements are Products */
#define WN_OG_ARTICLE 0x100u      /* og:type article */
#define WN_OG_PRODUCT 0x200u      /* og:type product */
#define WN_OG_PRODUCT_GROUP 0x400u /* og:type product.group */
#define WN_FRONT 0x800u            /* its canonical URL or og:url is its site's root */
uint32_t wn_detect_stated_kinds(const wn_dom_page *page);
/* 1 when one of the types an itemtype attribute lists (schema.org URLs)
 * ends in the segment type ("Product"). */
int wn_detect_itemtype_is(const char *itemtype, const char *type);
/* The same, read once per result and kept in it (res may be NULL: read
 * each time). */
uint32_t wn_detect_result_stated(const wn_dom_page *page, wn_detect_result *res);


/* The records of a page's main data region (records.c): the run of three
 * or more adjacent like containers (one wn_dom_node.sig, and one for the
 * elements their only children lead to) holding the most text of keep[];
 * n 0 when there is none. */
typedef struct wn_detect_records {
  uint32_t first;   /* the first record; the rest are its next like siblings */
  uint32_t n;       /* records */
  uint64_t text;    /* their text in keep[], bytes */
  uint64_t plain;   /* of which outside links */
  uint64_t largest; /* the text of the record holding most */
} wn_detect_records;
wn_err wn_detect_records_find(const wn_dom_page *page, const uint8_t *keep,
                              wn_detect_records *best);
/* The record after r in rec's run: the next sibling with text that is a
 * record like the first or holds the replies to one (records.c), WN_DOM_NONE
 * past the last sibling (callers stop at rec->n). */
uint32_t wn_detect_record_next(const wn_dom_node *nodes, const wn_detect_records *rec,
                               uint32_t r);
/* What records show, counted over a run: how many hold a price (a
 * currency sign next to a digit, wn_detect_has_price), a date (<time>),
 * and lead with a link (their first text of keep[]). */
typedef struct wn_detect_record_traits {
  uint32_t priced, dated, linked;
} wn_detect_record_traits;
void wn_detect_record_read(const wn_dom_node *nodes, uint32_t r, const uint8_t *keep,
                           wn_detect_record_traits *out);
/* 1 when the len bytes at t hold a price: $, EUR or GBP sign beside a
 * digit (a space between allowed). */
int wn_detect_has_price(const char *t, uint32_t len);
/* 1 when the page shows code listings as a manual's entries do: two <pre>
 * or more, or eight inline <code> or more, holding text (shape.c). */
int wn_detect_page_shows_code(const wn_dom_page *page);

/* A part of a page's content as its structured data states it: text
 * (len bytes, not NUL-terminated) of group (0: a recipe's ingredients,
 * 1: its steps). */
typedef struct wn_detect_part {
  int group;
  const char *text;
  size_t len;
} wn_detect_part;
typedef wn_err (*wn_detect_recipe_fn)(const wn_dom_page *page, const wn_detect_part *parts,
                                      uint32_t n, void *ctx);
/* The first JSON-LD script of the page that states a schema.org Recipe
 * with ingredients or steps: fn is called with them (at most max, the
 * texts valid during the call), else fn is not called (jsonld.c). Only a
 * page whose JSON-LD names a Recipe costs an allocation. */
wn_err wn_detect_jsonld_recipe(const wn_dom_page *page, uint32_t max, wn_detect_recipe_fn fn,
                               void *ctx);

/* Writes text held outside the page's tree (a result's body_text) as
 * lines of text or as <p> elements (render.c). */
enum { WN_BODY_TEXT, WN_BODY_HTML };
wn_err wn_detect_body_lines(const char *text, int mode, wn_buf *out);

/* The figures of the content, for output that carries images (render.c):
 * *keep is a copy of result->keep with their captions kept, *regions the
 * selected regions with the figures that lie outside them merged in, in
 * document order (*n_regions of them). Both are left NULL (and
 * *n_regions is result->n_selected) when no figure comes back; the
 * caller frees them. */
wn_err wn_detect_figures(const wn_dom_page *page, const wn_detect_result *result, uint8_t **keep,
                         uint32_t **regions, uint32_t *n_regions);

/* The policy every template method ends in (policy.c): tmpl, the
 * template method's result, serves the page; NULL when it did not
 * (confidence under the threshold, nothing selected, a layout not
 * learned): then the single-page method of opts serves it with steps (as
 * wn_detect_page's), its result saying reason and the template's
 * confidence. Either way the output invariants run (permalink marks,
 * repeated blocks). *out takes tmpl over (freed on failure). */
wn_err wn_detect_policy(const wn_dom_page *page, const wn_detect_options *opts, uint32_t steps,
                        wn_detect_result *tmpl, wn_detect_fallback reason, double confidence,
                        wn_detect_result **out, wn_diag *diag);

/* Unkeeps the text of the page's controls: permalink marks (a link to a
 * fragment of the page whose whole text is "¶", "§", "#" or a link
 * symbol) and the labels of buttons of a few words: not content in any
 * text output (site_algorithms.c). Run on every result of wn_detect_page. */
void wn_detect_drop_controls(const wn_dom_page *page, wn_detect_result *res);
/* A kept line whose text (a sentence or longer) equals an earlier kept
 * line's is left out: the output never repeats a block (repeats.c). */
wn_err wn_detect_drop_repeats(const wn_dom_page *page, wn_detect_result *res);

/* The link-box rule (site_algorithms.c), shared by the cue selector and the
 * single-page methods: the largest share of its text that may be link text
 * in a block of this tag holding this many links, past which the block is
 * a list of links and left out. */
double wn_detect_link_limit(uint8_t tag, uint32_t links);
/* Its two limits: a single block must be more than half link text to be a
 * list of links; a container (table, list, div...) with two links or more
 * only a fifth, as Readability's cleaning does. The cue selector's sibling
 * rule uses the second too (select_cues.c). */
#define WN_DETECT_MAX_LINK_DENSITY 0.5
#define WN_DETECT_MAX_BOX_LINK_DENSITY 0.2

/* Per page node labels of the template method (labels.c). */
typedef struct wn_detect_labels {
  uint8_t *mapped; /* the ETDM paired the node with a template node */
  uint8_t *cand;   /* candidate for main content */
  const uint32_t *premap; /* when not NULL: the match, made already (the
                             layout choice, policy.c), copied, not made again */
  uint32_t *tmap;  /* when not NULL: the template node paired with each
                      page node, or WN_DOM_NONE (the places selector) */
  wn_detect_trace *trace; /* explain only: NULL on the hot path */
  /* The single-page methods' not-content mask (comment threads, footers,
   * hidden text: wn_single_not_content_mask), computed once per page by
   * a selector that runs several methods over it; not_content_known 0:
   * each computes its own; 1: not_content holds it, NULL when nothing on
   * the page is masked. */
  const uint8_t *not_content;
  int not_content_known;
  /* When not NULL and empty: a selector that reads the page with DANAg
   * (default steps) leaves that reading here, and the policy's second
   * readings (policy.c) use it rather than making it again. */
  wn_detect_result **danag;
} wn_detect_labels;

/* Matches page against tpl (the ETDM of the site-level paper), sets
 * l->mapped (count bytes, caller-owned) and *confidence, the weighted share
 * of the template the page reproduces (see wn_detect_confidence). */
wn_err wn_detect_label_match(const wn_dom_page *page, const wn_template *tpl,
                             wn_detect_labels *l, double *confidence, wn_diag *diag);
/* l->cand of the cue and region selectors from l->mapped: the lifted
 * candidates (labels.c explains why). */
void wn_detect_label_lifted(const wn_dom_page *page, wn_detect_labels *l);

/* The selectors: from the labels, fill res->keep, res->selected and
 * res->n_selected. WN_ENOMEM when out of memory. select_paper sets l->cand
 * itself (the paper's candidates, the unmapped nodes); the others read the
 * lifted candidates. */
wn_err wn_detect_select_cues(const wn_dom_page *page, const wn_detect_labels *l,
                             wn_detect_result *res);
wn_err wn_detect_select_paper(const wn_dom_page *page, wn_detect_labels *l,
                              wn_detect_result *res);
wn_err wn_detect_select_region(const wn_dom_page *page, const wn_detect_labels *l,
                               wn_detect_result *res);
/* The places selector (select_places.c) reads l->tmap and the template's
 * content places; the single-page method, the template as its filter,
 * serves pages that do not fit them, the cue selector pages that do not
 * pair them. */
wn_err wn_detect_select_places(const wn_dom_page *page, const wn_template *tpl,
                               const wn_detect_labels *l, wn_detect_result *res);

/* The trace's arrays for a page of count nodes (explain.c); WN_ENOMEM. */
wn_err wn_detect_trace_start(wn_detect_trace *trace, uint32_t count);

#endif /* WN_DETECT_INT_H */
