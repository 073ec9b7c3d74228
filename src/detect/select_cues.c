/*
 * detect/select_cues.c: WN_SELECT_CUES, the selector for pages that do
 * not fit the content places (and the default before them): the
 * template as a filter, then single-page cues, because a template alone
 * removes what repeats across a site but not what differs on every page
 * and is still not content (related links, teasers, comment boxes). See
 * docs/design.md, "Detection", for each step and docs/evaluation.md for
 * the figures.
 */
#include "detect/detect.h"
#include "detect/detect_int.h"
#include "detect/single_int.h"

#include <stdlib.h>
#include <string.h>

/*
 * After the template filter, what is left is page-specific: the article,
 * and also reader comments, teasers, captions, dates of other stories. We
 * choose among it with single-page cues, counted on candidate text only:
 *
 * 1. Paragraph scores (the densitometric scoring of Readability, in the
 *    spirit of CNR's "most text in fewest nodes"): every block holding at
 *    least WN_CUE_MIN_PARAGRAPH bytes of candidate, non-link text scores
 *    1 + its commas + its length / 100 (at most 3); its parent receives the
 *    score, its grandparent half of it. A subtree's score is then scaled by
 *    1 - its link density. The best subtree is the core of the content:
 *    many long, comma-rich paragraphs under one parent.
 * 2. Siblings of the core that score like it join it (an article split by
 *    a picture). Then the core grows towards the root while what it gains
 *    is small next to it (at most WN_CUE_GROWTH of its text, or
 *    WN_CUE_GROWTH_MIN_BYTES): the headline, standfirst, byline and date
 *    above an article body come in; a comment thread does not. It stops
 *    at the page's <main>: on a short post the allowance would reach the
 *    frame's own page-specific bits (a header's chip naming the forum).
 * 3. That node is the branch (our Algorithm 3); the reduced candidates
 *    inside it are kept (Algorithm 4) and grouped (Algorithm 5). Within
 *    them, link boxes are left out: a block that is mostly link text, or a
 *    container (table, list, div...) that is more than a fifth link text,
 *    as Readability's cleaning does.
 *
 * The three constants were chosen on the crawl-to-the-future and
 * CleanPortalEval test pages (docs/evaluation.md).
 */
#define WN_CUE_MIN_PARAGRAPH 25u
#define WN_CUE_GROWTH 0.1
/* ...but never less than a headline, standfirst and byline take. */
#define WN_CUE_GROWTH_MIN_BYTES 200.0
#define WN_CUE_SIBLING 0.5
#define WN_CUE_SIBLINGS_TOGETHER 0.3
#define WN_CUE_SIBLING_LEVELS 3u

static uint32_t wn_count_commas(const char *s, uint32_t len) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < len; i++)
    n += s[i] == ',';
  return n;
}

static wn_err wn_detect_select_cues_in(const wn_dom_page *page, const wn_detect_labels *l,
                                       wn_detect_result *res);

/* A comment thread is not content, whatever its text scores: a blog
 * post's reader comments are often longer than the post, and a template
 * learned from samples with no comments pairs nothing of them. The thread
 * is found by the web-wide names the single-page methods use (single.c,
 * wn_single_not_content_mask: "comment", "disqus"..., and with them page
 * footers by name and text in the classes common style sheets hide;
 * chosen fold by fold there) and its text taken out of the candidates.
 * It raised word F1 on both news corpora, with the places selector and
 * with this one alone, and left the manuals as they were (CHANGELOG.md,
 * "Content places against the other selectors"). */
wn_err wn_detect_select_cues(const wn_dom_page *page, const wn_detect_labels *l,
                             wn_detect_result *res) {
  uint32_t count = 0;
  wn_dom_nodes(page, &count);
  if (l->not_content_known && !l->not_content)
    return wn_detect_select_cues_in(page, l, res); /* most pages: nothing masked */
  uint8_t *cand = malloc((size_t)count + 1); /* the mask, then the candidates less it */
  wn_err err = WN_OK;
  if (!cand) {
    err = WN_ENOMEM;
  } else if (!l->not_content_known && wn_single_not_content_mask(page, cand) == 0) {
    err = wn_detect_select_cues_in(page, l, res); /* most pages: nothing masked */
  } else {
    const uint8_t *nc = l->not_content_known ? l->not_content : cand;
    for (uint32_t i = 0; i < count; i++)
      cand[i] = l->cand[i] && !nc[i];
    wn_detect_labels masked = *l;
    masked.cand = cand;
    err = wn_detect_select_cues_in(page, &masked, res);
  }
  free(cand);
  return err;
}

static wn_err wn_detect_select_cues_in(const wn_dom_page *page, const wn_detect_labels *l,
                                       wn_detect_result *res) {
  wn_err err = WN_OK;
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  double *score = calloc(count, sizeof *score);
  uint32_t *ctext = calloc(count, sizeof *ctext); /* candidate non-link text */
  uint32_t *clink = calloc(count, sizeof *clink); /* candidate link text */
  uint32_t *nlinks = calloc(count, sizeof *nlinks); /* candidate link texts */
  uint32_t *para = calloc(count, sizeof *para);   /* per block: its own candidate text */
  uint32_t *commas = calloc(count, sizeof *commas);
  uint32_t *block = malloc((size_t)count * sizeof *block);
  uint32_t *reduced = malloc((size_t)count * sizeof *reduced);
  if (!score || !ctext || !clink || !nlinks || !para || !commas || !block || !reduced) {
    err = WN_ENOMEM;
    goto out;
  }
  /* Forward: the nearest block of every node (parents come first). */
  for (uint32_t i = 0; i < count; i++) {
    uint32_t p = nodes[i].parent;
    if (nodes[i].tag != WN_TAG_TEXT && (nodes[i].flags & WN_DOM_BLOCK))
      block[i] = i;
    else
      block[i] = p == WN_DOM_NONE ? WN_DOM_NONE : block[p];
    if (nodes[i].tag == WN_TAG_TEXT && l->cand[i] && !(nodes[i].flags & WN_DOM_IN_LINK) &&
        block[i] != WN_DOM_NONE) {
      para[block[i]] += nodes[i].own_text_len;
      commas[block[i]] += wn_count_commas(nodes[i].text, nodes[i].own_text_len);
    }
  }
  /* Backward: subtree sums. */
  for (uint32_t i = count; i-- > 0;) {
    if (nodes[i].tag == WN_TAG_TEXT && l->cand[i]) {
      if (nodes[i].flags & WN_DOM_IN_LINK) {
        clink[i] = nodes[i].own_text_len;
        nlinks[i] = 1;
      } else {
        ctext[i] = nodes[i].own_text_len;
      }
    }
    uint32_t p = nodes[i].parent;
    if (p != WN_DOM_NONE) {
      ctext[p] += ctext[i];
      clink[p] += clink[i];
      nlinks[p] += nlinks[i];
    }
  }
  /* Step 1: paragraph scores to parents and grandparents. */
  for (uint32_t i = 0; i < count; i++) {
    if (para[i] < WN_CUE_MIN_PARAGRAPH)
      continue;
    double s = 1.0 + commas[i] + (para[i] / 100.0 > 3.0 ? 3.0 : para[i] / 100.0);
    uint32_t p = nodes[i].parent;
    if (p == WN_DOM_NONE)
      p = i;
    score[p] += s;
    uint32_t g = nodes[p].parent;
    if (g != WN_DOM_NONE)
      score[g] += s / 2;
  }
  uint32_t core = WN_DOM_NONE;
  double best = 0;
  for (uint32_t i = 0; i < count; i++) {
    if (nodes[i].tag == WN_TAG_TEXT || ctext[i] == 0)
      continue;
    double density = (double)clink[i] / (double)(ctext[i] + clink[i]);
    double s = score[i] * (1.0 - density);
    if (s > best) {
      best = s;
      core = i;
    }
  }
  if (l->trace) {
    l->trace->core_score = best;
    l->trace->core_by_text = core == WN_DOM_NONE;
    for (uint32_t i = 0; i < count; i++)
      if (nodes[i].tag != WN_TAG_TEXT && ctext[i] > 0)
        l->trace->score[i] =
            score[i] * (1.0 - (double)clink[i] / (double)(ctext[i] + clink[i]));
  }
  if (core == WN_DOM_NONE) {
    /* No paragraph anywhere: the subtree with most candidate text. */
    for (uint32_t i = 0; i < count; i++)
      if (nodes[i].tag != WN_TAG_TEXT && ctext[i] > clink[i] && ctext[i] > best) {
        best = ctext[i];
        core = i;
      }
  }
  if (core == WN_DOM_NONE)
    goto out; /* nothing page-specific worth reading */
  /* Step 2a: an article split into sibling blocks (by a picture, an ad
   * slot) has siblings that score like the core itself: a sibling scoring
   * at least WN_CUE_SIBLING of the core, with little link text, joins it
   * and the core becomes their parent (Readability's sibling rule). Many
   * smaller siblings join too when together they score WN_CUE_SIBLINGS_
   * TOGETHER of the core, looked for up to WN_CUE_SIBLING_LEVELS levels up:
   * a reference page is a run of similar entries (one <dl> per function,
   * one <section> per topic), none of which outweighs the longest. */
  for (;;) {
    double core_score =
        score[core] * (1.0 - (double)clink[core] / (double)(ctext[core] + clink[core]));
    uint32_t joined = WN_DOM_NONE;
    uint32_t below = core;
    for (unsigned lv = 0; lv < WN_CUE_SIBLING_LEVELS && joined == WN_DOM_NONE; lv++) {
      uint32_t p = nodes[below].parent;
      if (p == WN_DOM_NONE)
        break;
      double together = 0;
      for (uint32_t c = nodes[p].first_child; c != WN_DOM_NONE; c = nodes[c].next_sibling) {
        if (c == below || nodes[c].tag == WN_TAG_TEXT || ctext[c] == 0)
          continue;
        double density = (double)clink[c] / (double)(ctext[c] + clink[c]);
        if (density < WN_DETECT_MAX_BOX_LINK_DENSITY) {
          if (lv == 0 && score[c] * (1.0 - density) >= WN_CUE_SIBLING * core_score)
            joined = p;
          together += score[c] * (1.0 - density);
        }
      }
      if (together >= WN_CUE_SIBLINGS_TOGETHER * core_score)
        joined = p;
      below = p;
    }
    if (joined == WN_DOM_NONE)
      break;
    core = joined;
    if (l->trace)
      l->trace->siblings_joined++;
  }
  /* Step 2b: grow while the gain stays small next to the core. */
  uint32_t branch = core;
  while (nodes[branch].parent != WN_DOM_NONE) {
    if (nodes[branch].tag == WN_TAG_MAIN)
      break; /* the author's main content ends here */
    uint32_t p = nodes[branch].parent;
    double allowed = WN_CUE_GROWTH * ctext[core];
    if (allowed < WN_CUE_GROWTH_MIN_BYTES)
      allowed = WN_CUE_GROWTH_MIN_BYTES;
    if ((double)(ctext[p] + clink[p] - ctext[core] - clink[core]) > allowed)
      break;
    branch = p;
  }
  if (l->trace) {
    l->trace->core = core;
    l->trace->branch = branch;
  }
  /* Step 3: Algorithms 2 and 4 on the branch. */
  uint32_t n = 0;
  if (l->cand[branch]) {
    reduced[n++] = branch; /* the branch lies inside one candidate subtree */
  } else {
    uint32_t all = wn_detect_reduce(page, l->cand, reduced);
    for (uint32_t k = 0; k < all; k++)
      if (reduced[k] > branch && reduced[k] < nodes[branch].end && ctext[reduced[k]] > 0)
        reduced[n++] = reduced[k];
  }
  /* Inside the kept subtrees, a block that is mostly link text is a list
   * of links to other pages (related stories, tags); its text is left out.
   * Inline links inside prose are kept: only blocks are judged, and never
   * the core or the blocks around it. */
  for (uint32_t k = 0; k < n; k++) {
    uint32_t i = reduced[k];
    while (i < nodes[reduced[k]].end) {
      if (nodes[i].tag == WN_TAG_TEXT) {
        res->keep[i] = l->cand[i];
      } else if ((nodes[i].flags & WN_DOM_BLOCK) && !(i <= core && core < nodes[i].end) &&
                 clink[i] > wn_detect_link_limit(nodes[i].tag, nlinks[i]) * (ctext[i] + clink[i])) {
        if (l->trace) {
          l->trace->dropped[i] = 1;
          l->trace->n_dropped++;
        }
        i = nodes[i].end;
        continue;
      }
      i++;
    }
  }
  n = wn_detect_group(page, reduced, n);
  res->selected = malloc(((size_t)n + 1) * sizeof *res->selected);
  if (!res->selected) {
    err = WN_ENOMEM;
    goto out;
  }
  memcpy(res->selected, reduced, (size_t)n * sizeof *reduced);
  res->n_selected = n;
out:
  free(score);
  free(ctext);
  free(clink);
  free(nlinks);
  free(para);
  free(commas);
  free(block);
  free(reduced);
  return err;
}
