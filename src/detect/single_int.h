/*
 * single_int.h: internals of the single-page methods (single.c, cnr.c,
 * danag.c), shared between those files and exposed for the tests in
 * tests/detect/test_single.c and for the ablation mode of
 * tools/eval/ (winnow-eval). Not part of the public interface (detect.h).
 */
#ifndef WN_SINGLE_INT_H
#define WN_SINGLE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "detect/detect.h"
#include "detect/detect_int.h"
#include "detect/steps.h"

/* Steps added to the papers' methods; wn_detect_single() runs the
 * default set of each method. Each was kept only because it raised the
 * word F1 (the ablation in docs/single-page.md). A step
 * a method does not know is ignored. */
/* The WN_SINGLE_STEP_* flags: detect/steps.h. */
#define WN_SINGLE_STEPS_PAPER 0u /* the paper's method as stated */

/* The default steps of a method (those the measurements kept). */
uint32_t wn_single_default_steps(wn_single_method method);

/* wn_detect_single with an explicit set of steps (ablation). */
wn_err wn_detect_single_steps(const wn_dom_page *page, wn_single_method method, uint32_t steps,
                              wn_detect_result **out, wn_diag *diag);
/* The same with the not-content mask already computed for the page
 * (mask_known 1: known is wn_single_not_content_mask's, NULL when it
 * masked nothing), so that a selector running several methods computes
 * it once. */
wn_err wn_detect_single_masked(const wn_dom_page *page, wn_single_method method, uint32_t steps,
                               const uint8_t *known, int mask_known, wn_detect_result **out,
                               wn_diag *diag);

/* WN_SINGLE_STEP_LINKS on a method's keep[]: unkeeps the text of link
 * boxes (single.c). */
wn_err wn_single_drop_links(const wn_dom_page *page, wn_detect_result *res);

/* WN_SINGLE_STEP_TITLE: adds the headline above the content, and the
 * short text between them; named boxes and link boxes between the
 * headline and the content stay out (share buttons) (single.c). */
wn_err wn_single_add_title_clean(const wn_dom_page *page, wn_detect_result *res);
/* The same for a content place (select_places.c): only page-specific
 * text (cand) counts, the headline must hold some, and the text between
 * it and the content is bounded by the content, not by a byte count. */
wn_err wn_single_add_title_place(const wn_dom_page *page, const uint8_t *cand,
                                 wn_detect_result *res);

/* WN_SINGLE_STEP_BOXES and WN_SINGLE_STEP_HTML5 (single.c). */
wn_err wn_single_drop_boxes(const wn_dom_page *page, wn_detect_result *res);
/* The same, parts: whether a run of like named boxes may be the page's
 * parts (wn_single_drop_boxes passes 1). */
wn_err wn_single_drop_boxes_parts(const wn_dom_page *page, wn_detect_result *res, int parts);
wn_err wn_single_html5(const wn_dom_page *page, wn_detect_result *res);

/* Part of WN_SINGLE_STEP_HTML5: keeps a recipe's ingredients and steps
 * where the page states them with schema.org markup (recipe.c). */
wn_err wn_single_recipe(const wn_dom_page *page, wn_detect_result *res);
/* Part of WN_SINGLE_STEP_HTML5: keeps a product's description where the
 * page marks it with microdata in its Product item (single_hints.c). */
wn_err wn_single_product_text(const wn_dom_page *page, const uint8_t *mask,
                              wn_detect_result *res);

/* Comment threads, page footers and hidden text (part of
 * WN_SINGLE_STEP_BOXES, single.c): sets mask[i] for every node inside a
 * container named as a comment thread or a footer, or of a class that
 * hides it, so that a method neither chooses nor keeps its text. mask has the page's node count. Returns the number of
 * containers masked. */
uint32_t wn_single_not_content_mask(const wn_dom_page *page, uint8_t *mask);

/* The name masks (single_masks.c): WN_MASK_ALL, comment threads (and
 * signatures and a product's reviews) and page footers
 * (wn_single_not_content_mask); WN_MASK_FOOTERS, page footers and dialogs
 * only (what the retry keeps masked); WN_MASK_POSTS, those and the posts'
 * signatures (a thread read as the page's content). Returns the number of
 * containers masked. */
typedef enum wn_single_masking { WN_MASK_FOOTERS, WN_MASK_ALL, WN_MASK_POSTS } wn_single_masking;
uint32_t wn_single_mask_names(const wn_dom_page *page, uint8_t *mask, wn_single_masking m);
/* The page's comment threads kept after the content (WN_SINGLE_STEP_COMMENTS). */
wn_err wn_single_add_comments(const wn_dom_page *page, wn_detect_result *res);

/* Kept text bytes per subtree (malloc'd, the page's node count + 1), or
 * NULL when out of memory (single_boxes.c). */
uint64_t *wn_single_kept_sums(const wn_dom_node *nodes, uint32_t count, const uint8_t *keep);

/* The semantic hints (single_hints.c): the element the page marks as its
 * article (WN_DOM_NONE: none); the kept text (*all) and how much of it
 * lies in hint (*in); the text outside hint left out when most kept text
 * lies in it; the article's paragraphs kept. */
uint32_t wn_single_hint(const wn_dom_page *page);
void wn_single_kept_in(const wn_dom_node *nodes, uint32_t count, const wn_detect_result *res,
                       uint32_t hint, uint64_t *in, uint64_t *all);
wn_err wn_single_html5_at(const wn_dom_page *page, uint32_t hint, wn_detect_result *res);
wn_err wn_single_hint_paragraphs(const wn_dom_page *page, const uint8_t *mask,
                                 wn_detect_result *res);

/* Method bodies: fill res->keep (text nodes that are content). mask
 * (NULL: none) marks nodes whose text is not content (comment threads). */
wn_err wn_cnr_select(const wn_dom_page *page, uint32_t steps, const uint8_t *mask,
                     wn_detect_result *res);
wn_err wn_danag_select(const wn_dom_page *page, uint32_t steps, const uint8_t *mask,
                       wn_detect_result *res);

/* The second reading (readability.c): Readability's paragraph scoring,
 * the best candidate and its siblings, cleaned; fills res->keep. */
wn_err wn_readability_select(const wn_dom_page *page, wn_detect_result *res);

/* Prose: the text of paragraphs (<p>) that is not link text nor under
 * mask (may be NULL), in bytes, of the whole page (*page_prose) and of
 * what keep keeps (*kept_prose); in_p (the page's node count) gets 1 for
 * the nodes inside a <p> (single_prose.c). */
void wn_single_prose(const wn_dom_node *nodes, uint32_t count, const uint8_t *keep,
                     const uint8_t *mask, uint8_t *in_p, uint64_t *page_prose,
                     uint64_t *kept_prose);

/* WN_SINGLE_STEP_SECOND (combine.c): the second reading run and
 * combined with res->keep block by block; mask (may be NULL) stays out,
 * other_mask (may be NULL) instead when the second reading found another
 * article than the first (the mask less the semantic hint's narrowing). */
/* Every line the second reading keeps outside mask joins (favor recall). */
wn_err wn_single_second_union(const wn_dom_page *page, const uint8_t *mask, uint32_t steps,
                              wn_detect_result *res);
wn_err wn_single_second(const wn_dom_page *page, const uint8_t *mask, const uint8_t *other_mask,
                        uint32_t steps, wn_detect_result *res);

/* WN_SINGLE_STEP_AREA (area.c): the page's main area less its frame,
 * mask (may be NULL) and named boxes, added to res->keep when the reading
 * so far kept less than half of a marked <main> (a third of the body): a
 * page of many parts; else the page's main run of records (records.c). */
wn_err wn_single_area(const wn_dom_page *page, const uint8_t *mask, uint32_t steps,
                      wn_detect_result *res);

/*
 * CNR, Algorithm 1 (exposed for tests): per node, weight (nodes in the
 * subtree, a non-content node counting 1), chars (non-space characters of
 * its text, 0 under a non-content node) and ratio = chars / weight. Arrays
 * of the page's node count, written by the caller-owned pointers.
 */
void wn_cnr_ratios(const wn_dom_page *page, uint32_t *weight, uint32_t *chars, double *ratio);

/* Characters of UTF-8 text that are not white space (the paper counts
 * characters "ignoring special characters such as spaces"; cnr.c). */
uint32_t wn_single_chars(const char *text, uint32_t len);

/*
 * DANAg's normalised source (exposed for tests): one line per block
 * boundary of the compact tree. Writes per line the content (T1) and code
 * (T2) lengths, and per page node the line it starts on; a subtree whose
 * root has mask[i] set (mask may be NULL) is left out of the source. Inline
 * formatting inside prose costs no code (danag.c). Returns the
 * number of lines (at most 2 * nodes + 1); arrays are caller-owned, the
 * line arrays sized for 2 * count + 1. code may be NULL when only the
 * lines' text is wanted (which text nodes share a line): no code is
 * counted, and lines that would hold code alone are not numbered.
 */
uint32_t wn_danag_lines(const wn_dom_page *page, const uint8_t *mask, uint32_t *content,
                        uint32_t *code, uint32_t *line_of);
/* Formula 1: diff[i] = sum of T1 - sum of T2 over lines i-1, i, i+1
 * (lines outside [0, n) count 0). */
void wn_danag_smooth(const uint32_t *content, const uint32_t *code, uint32_t n, int64_t *diff);
/* Sections 3.2 and 3.3: the run of diff > 0 with most content, then the
 * runs within gap lines before and after it, repeatedly. Writes the first
 * and last line of the area; returns 0 when no line has diff > 0. */
int wn_danag_area(const uint32_t *content, const int64_t *diff, uint32_t n, uint32_t gap,
                  uint32_t *first, uint32_t *last);

/* Keeps the text of el's subtree that lies in a paragraph (<p>), and,
 * with diff (NULL: paragraphs only), on a line of DANAg's source where
 * content outweighs code; text under mask (may be NULL) stays out
 * (danag.c; the container step and the article's paragraphs). */
void wn_danag_keep_prose(const wn_dom_node *nodes, const uint8_t *mask, const int64_t *diff,
                         const uint32_t *line_of, uint32_t el, uint8_t *keep);

#endif /* WN_SINGLE_INT_H */
