/*
 * detect/combine.c: the two readings of a page combined block by block
 * (WN_SINGLE_STEP_SECOND).
 *
 * The first reading is the density method with its steps (danag.c and
 * the single_*.c steps); the second is Readability's paragraph scoring
 * (readability.c). They fail on different pages (docs/single-page.md,
 * "Two readings"), so where they agree the answer stands and where they
 * disagree each block is judged by evidence neither reading used to
 * choose it. A block is the nearest block-level element around a text
 * node; a reading keeps a block when it keeps most of its text.
 *
 *  - kept by both: kept;
 *  - kept by neither: out;
 *  - kept by the first only: kept (its steps brought in the headline,
 *    the standfirst, a recipe's parts, which Readability leaves out);
 *  - kept by the second only: kept when the two readings found the same
 *    article (the second holds most of what the first kept), the block
 *    lies between the first and the last text the first reading kept,
 *    it is prose (under a quarter of it link text, as Readability judges
 *    a sibling paragraph) and outside the not-content mask. A block the
 *    density method's area skipped inside the article both chose (a
 *    section past an embed or a box, a list or a quotation between
 *    paragraphs, lines set with <br>) comes in; a box beside or after the
 *    article (teasers of other stories, a comment thread) does not;
 *  - a first reading that is a fragment of an article not set in <p>
 *    (below): the second reading's article.
 * Where the two found different articles, the semantic hint's narrowing
 * of the mask (single.c) does not bind the second: the hint (a teaser's
 * <article>) is what its article questions; the names' mask still does.
 * What came in then passes the first reading's link and box steps.
 *
 * Blocks are the lines of DANAg's normalised source (wn_danag_lines): a
 * line breaks at every block element and at <br>, so lines set with <br>
 * in one <div> are judged one by one.
 */
#include "detect/single_int.h"

#include <stdlib.h>
#include <string.h>

/* The second reading's article is another article than the first's, and
 * taken whole, when it holds more than this many times the first's text
 * (a fragment's article; not a box beside a whole one). */
#define WN_SECOND_OTHER_TIMES 4u
/* A fragment of an article not set in <p>: the second reading kept more
 * than this many times the first's text, most of it outside <p>. */
#define WN_SECOND_FRAGMENT_TIMES 2u

/* What came in passes the first reading's box steps, as its own choice
 * did; what was kept before (before[]) stays: the steps judge a box by its
 * share of the kept text, which the added blocks changed. */
static wn_err wn_single_settle(const wn_dom_page *page, uint32_t steps, const uint8_t *before,
                               wn_detect_result *res) {
  wn_err err = WN_OK;
  if (steps & WN_SINGLE_STEP_LINKS)
    err = wn_single_drop_links(page, res);
  if (!err && (steps & WN_SINGLE_STEP_BOXES))
    err = wn_single_drop_boxes(page, res);
  if (!err)
    for (uint32_t i = 0; i < res->count; i++)
      res->keep[i] |= before[i];
  return err;
}

/* Whether the second reading could add anything (below): some text the
 * first left out between its first and last kept text, outside the
 * mask, or a fragment of an article not in <p> is possible at all (the
 * second reading keeps at most the page's text). When neither, the
 * second reading is not run: the result would be the first's. */
static int wn_single_second_can_add(const wn_dom_node *nodes, uint32_t count, const uint8_t *keep,
                                    const uint8_t *mask, uint32_t lo, uint32_t hi, uint64_t kept1,
                                    uint64_t total, uint64_t para) {
  if (total > WN_SECOND_FRAGMENT_TIMES * kept1 && 2 * para < total)
    return 1;
  for (uint32_t i = lo; i < hi && i < count; i++)
    if (nodes[i].tag == WN_TAG_TEXT && !keep[i] && !(mask && mask[i]) && nodes[i].own_text_len)
      return 1;
  return 0;
}

/* Readability's reading of the page and DANAg's lines, which both
 * readers below judge it by: line_of[i] is text node i's line; sums holds
 * n_sums arrays of n_lines counters each, zeroed. */
typedef struct wn_second_lines {
  wn_detect_result *second;
  void *block; /* line_of, content and sums, one allocation */
  uint32_t *line_of;
  uint32_t *content;
  uint64_t *sums;
  size_t n_lines;
} wn_second_lines;

static void wn_second_lines_free(wn_second_lines *sl) {
  wn_detect_result_free(sl->second);
  wn_scratch_release(sl->block);
}

static wn_err wn_second_lines_read(const wn_dom_page *page, uint32_t count, size_t n_sums,
                                   wn_second_lines *sl) {
  sl->n_lines = 2 * (size_t)count + 1;
  sl->second = wn_detect_result_alloc(count, "readability");
  void *arr[3];
  sl->block = n_sums > SIZE_MAX / sizeof(uint64_t) / sl->n_lines
                  ? NULL
                  : wn_scratch_arrays(3,
                                      (const size_t[]){(size_t)count * sizeof(uint32_t),
                                                       sl->n_lines * sizeof(uint32_t),
                                                       sl->n_lines * n_sums * sizeof(uint64_t)},
                                      0x4u, arr);
  if (!sl->second || !sl->block)
    return WN_ENOMEM;
  sl->line_of = arr[0];
  sl->content = arr[1];
  sl->sums = arr[2];
  wn_err err = wn_readability_select(page, sl->second);
  if (!err)
    wn_danag_lines(page, NULL, sl->content, NULL, sl->line_of);
  return err;
}

wn_err wn_single_second(const wn_dom_page *page, const uint8_t *mask, const uint8_t *other_mask,
                        uint32_t steps, wn_detect_result *res) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  if (count == 0 || res->body_text)
    return WN_OK;
  /* The first reading's text: how much (kept1), its first and last text
   * node (lo, hi), and the page's text and paragraph prose. */
  uint64_t kept1 = 0, total = 0;
  uint32_t lo = WN_DOM_NONE, hi = 0;
  for (uint32_t i = 0; i < count; i++) {
    if (nodes[i].tag != WN_TAG_TEXT)
      continue;
    total += nodes[i].own_text_len;
    if (res->keep[i]) {
      kept1 += nodes[i].own_text_len;
      if (lo == WN_DOM_NONE)
        lo = i;
      hi = i;
    }
  }
  if (kept1 == 0)
    return WN_OK; /* nothing to agree with; the last resort follows */
  uint8_t *in_p = malloc(count);
  if (!in_p)
    return WN_ENOMEM;
  uint64_t para = 0, para_kept = 0;
  wn_single_prose(nodes, count, res->keep, NULL, in_p, &para, &para_kept);
  free(in_p);
  if (!wn_single_second_can_add(nodes, count, res->keep, mask, lo, hi, kept1, total, para))
    return WN_OK;
  uint8_t *before = NULL; /* the first reading's keep[] */
  wn_second_lines sl = {0};
  wn_err err = wn_second_lines_read(page, count, 4, &sl);
  if (err)
    goto out;
  const wn_detect_result *second = sl.second;
  const uint32_t *line_of = sl.line_of;
  const size_t n_lines = sl.n_lines;
  uint64_t *sums = sl.sums;
  uint64_t *tot = sums, *first_k = sums + n_lines, *second_k = sums + 2 * n_lines,
           *link = sums + 3 * n_lines;
  uint64_t kept2 = 0, both = 0;
  for (uint32_t i = 0; i < count; i++) {
    if (nodes[i].tag != WN_TAG_TEXT)
      continue;
    const uint64_t len = nodes[i].own_text_len;
    const uint32_t b = line_of[i];
    tot[b] += len;
    if (res->keep[i]) {
      first_k[b] += len;
      if (second->keep[i])
        both += len;
    }
    if (second->keep[i]) {
      second_k[b] += len;
      kept2 += len;
    }
    if (nodes[i].flags & WN_DOM_IN_LINK)
      link[b] += len;
  }
  err = WN_OK;
  /* The same article: the second reading holds most of the first's text.
   * Two different articles: the second reading's is taken whole when it
   * holds more than four times the first's text, as a fragment's is, and
   * does not lie wholly after the first's text: a box after the article
   * (a comment thread under a short post, teasers of other stories) is
   * what the second reading must not bring in. */
  int other = 0;
  if (2 * both <= kept1) {
    uint32_t lo2 = WN_DOM_NONE;
    for (uint32_t i = 0; i < count && lo2 == WN_DOM_NONE; i++)
      if (nodes[i].tag == WN_TAG_TEXT && second->keep[i] && nodes[i].own_text_len)
        lo2 = i;
    if (kept2 <= WN_SECOND_OTHER_TIMES * kept1 || lo2 > hi)
      goto out;
    other = 1;
  }
  uint32_t added = 0;
  before = malloc(count);
  if (!before) {
    err = WN_ENOMEM;
    goto out;
  }
  memcpy(before, res->keep, count);
  /* A fragment of an article not set in paragraphs: the second reading
   * kept more than twice the first's text, and most of it lies outside
   * <p> (lines set with <br>, text in cells and bare blocks). The density
   * method's own check on what it kept (the retry) counts <p> text and
   * cannot fire there; the second reading's article is taken whole, as
   * its own cleaning judged it. */
  int whole = 0;
  if (other || (kept2 > WN_SECOND_FRAGMENT_TIMES * kept1 && 2 * para < kept2)) {
    lo = 0;
    hi = count;
    whole = 1;
  }
  const uint8_t *m = other ? other_mask : mask;
  for (uint32_t i = lo; i < hi; i++) {
    if (nodes[i].tag != WN_TAG_TEXT || res->keep[i] || !second->keep[i] || (m && m[i]))
      continue;
    const uint32_t b = line_of[i];
    if (2 * first_k[b] > tot[b] || 2 * second_k[b] <= tot[b])
      continue; /* not a line the second reading alone keeps */
    if (!whole && 4 * link[b] >= tot[b])
      continue; /* not prose */
    res->keep[i] = 1;
    added++;
  }
  if (added)
    err = wn_single_settle(page, steps, before, res);
out:
  wn_second_lines_free(&sl);
  free(before);
  return err;
}

/* Favouring recall (WN_SINGLE_STEP_UNION, wn_detect_options.favor): after
 * the combination and the area, every line the second reading keeps
 * outside the mask joins, wherever it lies; what joined passes the box
 * steps, what was kept stays. */
wn_err wn_single_second_union(const wn_dom_page *page, const uint8_t *mask, uint32_t steps,
                              wn_detect_result *res) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  if (count == 0 || res->body_text)
    return WN_OK;
  wn_second_lines sl = {0};
  uint8_t *before = malloc(count);
  wn_err err = before ? wn_second_lines_read(page, count, 2, &sl) : WN_ENOMEM;
  if (err)
    goto out;
  const wn_detect_result *second = sl.second;
  const uint32_t *line_of = sl.line_of;
  uint64_t *tot = sl.sums, *second_k = sl.sums + sl.n_lines;
  for (uint32_t i = 0; i < count; i++)
    if (nodes[i].tag == WN_TAG_TEXT) {
      tot[line_of[i]] += nodes[i].own_text_len;
      if (second->keep[i])
        second_k[line_of[i]] += nodes[i].own_text_len;
    }
  memcpy(before, res->keep, count);
  uint32_t added = 0;
  for (uint32_t i = 0; i < count; i++) {
    if (nodes[i].tag != WN_TAG_TEXT || res->keep[i] || !second->keep[i] || (mask && mask[i]) ||
        2 * second_k[line_of[i]] <= tot[line_of[i]])
      continue;
    res->keep[i] = 1;
    added++;
  }
  err = added ? wn_single_settle(page, steps, before, res) : WN_OK;
out:
  wn_second_lines_free(&sl);
  free(before);
  return err;
}
