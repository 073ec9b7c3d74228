/*
 * detect/detect.c: match a page against its site's template, label its
 * nodes, and select the main content.
 *
 * Three selectors share the labelling:
 *  - WN_SELECT_PAPER runs Algorithms 2 to 5 of the site-level paper as
 *    stated: candidates are the unmapped nodes, the branch is the parent of
 *    a reduced candidate with the largest subtree.
 *  - WN_SELECT_CUES (the default) uses the template as a filter and then
 *    single-page cues, because a template alone removes what repeats across
 *    a site but not what differs on every page and is still not content
 *    (related links, teasers, comment boxes). See the README for the
 *    measurements behind each step.
 *  - WN_SELECT_REGION trusts the template: the page's largest page-specific
 *    region is the content, whole, lists of links included. For sites whose
 *    operator knows that everything outside the template is content.
 * Which one a site uses is chosen when it is learned and kept in its
 * template (WN_SELECT_SITE); a caller may override it.
 */
#include "detect/detect.h"
#include "detect/detect_impl.h"

#include <libxml/HTMLtree.h>
#include <libxml/tree.h>
#include <stdlib.h>
#include <string.h>


/* ---- the paper's steps ------------------------------------------------------ */

/* Algorithm 2: by Theorem 1 the candidates form whole subtrees, so a
 * candidate belongs to the reduced set iff its parent is no candidate; one
 * pass in document order, no climbing. */
static uint32_t wn_reduce_nodes(const wn_dom_node *nodes, uint32_t count, const uint8_t *cand,
                                uint32_t *reduced) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < count; i++) {
    if (!cand[i])
      continue;
    uint32_t p = nodes[i].parent;
    if (p == WN_DOM_NONE || !cand[p])
      reduced[n++] = i;
  }
  return n;
}

uint32_t wn_detect_reduce(const wn_dom_page *page, const uint8_t *cand, uint32_t *reduced) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  return wn_reduce_nodes(nodes, count, cand, reduced);
}

uint32_t wn_detect_branch(const wn_dom_page *page, const uint32_t *reduced, uint32_t n) {
  const wn_dom_node *nodes = wn_dom_nodes(page, NULL);
  uint32_t branch = WN_DOM_NONE, best = 0;
  /* Algorithm 3: the parent with the largest subtree; a strict > keeps the
   * first in document order on a tie, as the paper asks. */
  for (uint32_t k = 0; k < n; k++) {
    uint32_t p = nodes[reduced[k]].parent;
    if (p == WN_DOM_NONE)
      p = reduced[k]; /* the root itself is a candidate: it is its own branch */
    uint32_t size = nodes[p].end - p;
    if (size > best) {
      best = size;
      branch = p;
    }
  }
  return branch;
}

uint32_t wn_detect_discard(const wn_dom_page *page, uint32_t branch, uint32_t *reduced,
                           uint32_t n) {
  if (branch == WN_DOM_NONE)
    return 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, NULL);
  uint32_t kept = 0;
  /* Algorithm 4: a node is in the branch iff its index lies in the
   * branch's pre-order range. */
  for (uint32_t k = 0; k < n; k++)
    if (reduced[k] >= branch && reduced[k] < nodes[branch].end)
      reduced[kept++] = reduced[k];
  return kept;
}

static int wn_cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

typedef struct wn_member {
  uint32_t parent;
  uint32_t node;
} wn_member;

static int wn_cmp_member(const void *a, const void *b) {
  const wn_member *x = a, *y = b;
  if (x->parent != y->parent)
    return x->parent < y->parent ? -1 : 1;
  return x->node < y->node ? -1 : x->node > y->node;
}

uint32_t wn_detect_group(const wn_dom_page *page, uint32_t *set, uint32_t n) {
  const wn_dom_node *nodes = wn_dom_nodes(page, NULL);
  wn_member *m = malloc(((size_t)n + 1) * sizeof *m);
  if (!m)
    return n; /* out of memory: the set stays ungrouped, still correct */
  /* Algorithm 5, to a fixed point: siblings are replaced by their parent;
   * a parent brought in this way absorbs members of its subtree. Sorting
   * by parent finds the siblings in O(n log n) a round; each round lifts at
   * least one node a level, so rounds are bounded by the depth. */
  int changed = 1;
  while (changed && n > 1) {
    changed = 0;
    for (uint32_t k = 0; k < n; k++) {
      m[k].parent = nodes[set[k]].parent;
      m[k].node = set[k];
    }
    qsort(m, n, sizeof *m, wn_cmp_member);
    for (uint32_t k = 0; k < n; k++) {
      int sibling = m[k].parent != WN_DOM_NONE &&
                    ((k > 0 && m[k - 1].parent == m[k].parent) ||
                     (k + 1 < n && m[k + 1].parent == m[k].parent));
      set[k] = sibling ? m[k].parent : m[k].node;
      changed |= sibling;
    }
    qsort(set, n, sizeof *set, wn_cmp_u32);
    /* Drop duplicates and members inside an earlier member's subtree. */
    uint32_t out = 0;
    for (uint32_t k = 0; k < n; k++) {
      if (out > 0 && set[k] < nodes[set[out - 1]].end)
        continue;
      set[out++] = set[k];
    }
    n = out;
  }
  if (n > 1)
    qsort(set, n, sizeof *set, wn_cmp_u32);
  free(m);
  return n;
}

/* ---- labelling -------------------------------------------------------------- */

typedef struct wn_labels {
  uint8_t *mapped; /* the ETDM paired the node with a template node */
  uint8_t *cand;   /* candidate for main content */
} wn_labels;

/*
 * Candidates for the cue selector. The paper's candidates are the unmapped
 * nodes. With node equality on tag, id and class, the article's <p> of two
 * pages are equal and mapped while their texts are not, so the paper's
 * rule would leave bare text nodes as candidates and Algorithm 3 would pick
 * one paragraph. We lift: an element is a candidate if it is unmapped, or
 * if it holds text and every child holding text is a candidate (it carries
 * only page-specific text). Candidates still form whole subtrees
 * (Theorem 1), which Algorithm 2 relies on.
 */
static void wn_label_lifted(const wn_dom_node *nodes, uint32_t count, wn_labels *l) {
  uint8_t *all = l->cand; /* reuse: all text-holding children are candidates */
  for (uint32_t i = 0; i < count; i++)
    all[i] = 1;
  for (uint32_t i = count; i-- > 0;) {
    uint8_t c;
    if (nodes[i].tag == WN_TAG_TEXT || nodes[i].text_len == 0)
      c = !l->mapped[i];
    else
      c = !l->mapped[i] || all[i];
    l->cand[i] = c;
    uint32_t p = nodes[i].parent;
    if (p != WN_DOM_NONE && nodes[i].text_len > 0 && !c)
      all[p] = 0;
  }
  /* all[] and cand[] share storage: a parent's flag is read only after all
   * its children (higher indices) were labelled, and cand[i] overwrites
   * all[i] only once i is done. */
}

/* ---- selection by cues -------------------------------------------------------- */

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
 *    above an article body come in; a comment thread does not.
 * 3. That node is the branch (our Algorithm 3); the reduced candidates
 *    inside it are kept (Algorithm 4) and grouped (Algorithm 5). Within
 *    them, link boxes are left out: a block that is mostly link text, or a
 *    container (table, list, div...) that is more than a fifth link text,
 *    as Readability's cleaning does.
 *
 * The three constants were measured on the crawl-to-the-future and
 * CleanPortalEval test pages (README, "Accuracy").
 */
#define WN_CUE_MIN_PARAGRAPH 25u
#define WN_CUE_GROWTH 0.1
/* ...but never less than a headline, standfirst and byline take. */
#define WN_CUE_GROWTH_MIN_BYTES 200.0
#define WN_CUE_SIBLING 0.5
#define WN_CUE_SIBLINGS_TOGETHER 0.3
#define WN_CUE_SIBLING_LEVELS 3u
#define WN_CUE_MAX_LINK_DENSITY 0.5
#define WN_CUE_MAX_BOX_LINK_DENSITY 0.2
/* A box with one link is a byline or a credit, not a list of links: it is
 * judged like a single block. */
#define WN_CUE_BOX_MIN_LINKS 2u

/* A container (a box of its own: table, list, div...) inside the content
 * that is this much link text is a box of links with blurbs (related
 * stories, "full coverage"); a single block (a paragraph, a list item) must
 * be mostly links to be dropped, so that prose with inline links stays.
 * The one link-box rule: the single-page methods use it too (single.c). */
double wn_detect_link_limit(uint8_t tag, uint32_t links) {
  switch (tag) {
  case WN_TAG_TABLE: case WN_TAG_TBODY: case WN_TAG_TR: case WN_TAG_TD:
  case WN_TAG_UL: case WN_TAG_OL: case WN_TAG_DL: case WN_TAG_DIV:
  case WN_TAG_SECTION: case WN_TAG_ASIDE: case WN_TAG_NAV: case WN_TAG_FORM:
  case WN_TAG_CENTER: case WN_TAG_HEADER: case WN_TAG_FOOTER:
    if (links >= WN_CUE_BOX_MIN_LINKS)
      return WN_CUE_MAX_BOX_LINK_DENSITY;
    return WN_CUE_MAX_LINK_DENSITY;
  default:
    return WN_CUE_MAX_LINK_DENSITY;
  }
}

static uint32_t wn_count_commas(const char *s, uint32_t len) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < len; i++)
    n += s[i] == ',';
  return n;
}

static wn_err wn_select_cues(const wn_dom_page *page, const wn_dom_node *nodes, uint32_t count,
                             const wn_labels *l, wn_detect_result *res) {
  wn_err err = WN_OK;
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
        if (density < WN_CUE_MAX_BOX_LINK_DENSITY) {
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
  }
  /* Step 2b: grow while the gain stays small next to the core. */
  uint32_t branch = core;
  while (nodes[branch].parent != WN_DOM_NONE) {
    uint32_t p = nodes[branch].parent;
    double allowed = WN_CUE_GROWTH * ctext[core];
    if (allowed < WN_CUE_GROWTH_MIN_BYTES)
      allowed = WN_CUE_GROWTH_MIN_BYTES;
    if ((double)(ctext[p] + clink[p] - ctext[core] - clink[core]) > allowed)
      break;
    branch = p;
  }
  /* Step 3: Algorithms 2 and 4 on the branch. */
  uint32_t n = 0;
  if (l->cand[branch]) {
    reduced[n++] = branch; /* the branch lies inside one candidate subtree */
  } else {
    uint32_t all = wn_reduce_nodes(nodes, count, l->cand, reduced);
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

static wn_err wn_select_paper(const wn_dom_page *page, const wn_dom_node *nodes,
                              uint32_t count, const wn_labels *l, wn_detect_result *res) {
  uint32_t *set = malloc(((size_t)count + 1) * sizeof *set);
  if (!set)
    return WN_ENOMEM;
  for (uint32_t i = 0; i < count; i++)
    l->cand[i] = !l->mapped[i];
  uint32_t n = wn_detect_reduce(page, l->cand, set);
  uint32_t branch = wn_detect_branch(page, set, n);
  n = wn_detect_discard(page, branch, set, n);
  n = wn_detect_group(page, set, n);
  for (uint32_t k = 0; k < n; k++)
    for (uint32_t i = set[k]; i < nodes[set[k]].end; i++)
      if (nodes[i].tag == WN_TAG_TEXT)
        res->keep[i] = 1;
  res->selected = set;
  res->n_selected = n;
  return WN_OK;
}

/* ---- selection by region ------------------------------------------------------ */

/*
 * The paper's Algorithms 2 to 5 on the lifted candidates, with two
 * changes that make "largest region" mean what a reader means:
 *  - Algorithm 3 weighs a reduced candidate by its page-specific text, not
 *    its node count, so a long table of contents outweighs a deep but
 *    empty widget;
 *  - Algorithm 4 keeps, besides that largest region, only the reduced
 *    candidates that are its siblings (children of the branch), not every
 *    candidate deeper inside the branch. A page-specific slot inside a
 *    template box (the current chapter's title in a navigation bar, the
 *    "next page" title in a footer) hangs below a mapped box, not beside
 *    the content, and stays out.
 * Within what is kept, only page-specific text is rendered (as in the cue
 * selector): no link box is dropped, because on such sites an index or a
 * table of contents is the page's content.
 */
static wn_err wn_select_region(const wn_dom_page *page, const wn_dom_node *nodes,
                               uint32_t count, const wn_labels *l, wn_detect_result *res) {
  wn_err err = WN_OK;
  uint32_t *set = malloc(((size_t)count + 1) * sizeof *set);
  uint32_t *ctext = calloc((size_t)count + 1, sizeof *ctext); /* candidate text */
  if (!set || !ctext) {
    err = WN_ENOMEM;
    goto out;
  }
  for (uint32_t i = count; i-- > 0;) {
    if (nodes[i].tag == WN_TAG_TEXT && l->cand[i])
      ctext[i] = nodes[i].own_text_len;
    if (nodes[i].parent != WN_DOM_NONE)
      ctext[nodes[i].parent] += ctext[i];
  }
  uint32_t n = wn_reduce_nodes(nodes, count, l->cand, set);
  uint32_t largest = WN_DOM_NONE;
  for (uint32_t k = 0; k < n; k++) /* strict >: the first on a tie */
    if (ctext[set[k]] > 0 && (largest == WN_DOM_NONE || ctext[set[k]] > ctext[largest]))
      largest = set[k];
  uint32_t kept = 0;
  if (largest != WN_DOM_NONE) {
    uint32_t branch = nodes[largest].parent;
    for (uint32_t k = 0; k < n; k++)
      if (set[k] == largest ||
          (branch != WN_DOM_NONE && nodes[set[k]].parent == branch && ctext[set[k]] > 0))
        set[kept++] = set[k];
  }
  for (uint32_t k = 0; k < kept; k++)
    for (uint32_t i = set[k]; i < nodes[set[k]].end; i++)
      if (nodes[i].tag == WN_TAG_TEXT)
        res->keep[i] = l->cand[i];
  kept = wn_detect_group(page, set, kept);
  res->selected = set;
  res->n_selected = kept;
  set = NULL;
out:
  free(set);
  free(ctext);
  return err;
}

const char *wn_detect_selector_name(wn_detect_selector selector) {
  switch (selector) {
  case WN_SELECT_SITE:
    return "site";
  case WN_SELECT_CUES:
    return "cues";
  case WN_SELECT_PAPER:
    return "paper";
  case WN_SELECT_REGION:
    return "region";
  }
  return NULL;
}

int wn_detect_selector_parse(const char *name, wn_detect_selector *out) {
  for (int s = WN_SELECT_SITE; name && s <= WN_SELECT_LAST; s++)
    if (strcmp(name, wn_detect_selector_name((wn_detect_selector)s)) == 0) {
      *out = (wn_detect_selector)s;
      return 0;
    }
  return -1;
}

/* ---- running ------------------------------------------------------------------ */

/* Match, confidence, then selection; a page whose confidence is below
 * min_confidence stops before the selection (the fallback will serve it):
 * WN_OK, *out NULL, *confidence set. */
static wn_err wn_detect_template(const wn_dom_page *page, const wn_template *tpl,
                                 const wn_detect_options *opts, double min_confidence,
                                 wn_detect_result **out, double *confidence, wn_diag *diag) {
  wn_err err = WN_OK;
  uint32_t *map = NULL;
  uint8_t *seen = NULL;
  wn_labels l = {0};
  *out = NULL;
  wn_detect_result *res = NULL;
  /* The caller's choice, else the site's (kept in its template), else cues. */
  wn_detect_selector selector = opts ? opts->selector : WN_SELECT_SITE;
  if ((unsigned)selector > WN_SELECT_LAST)
    return wn_diag_set(diag, WN_EINVAL, "detect: unknown selector %d", (int)selector);
  if (selector == WN_SELECT_SITE) {
    uint8_t site = wn_template_selector(tpl);
    if (site > WN_SELECT_LAST)
      return wn_diag_set(diag, WN_ECORRUPT, "detect: the template names unknown selector %u",
                         site);
    selector = site == WN_SELECT_SITE ? WN_SELECT_CUES : (wn_detect_selector)site;
  }
  uint32_t count = 0, tcount = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  const wn_template_node *tnodes = wn_template_nodes(tpl, &tcount);

  res = wn_detect_result_alloc(count, selector == WN_SELECT_PAPER    ? "template-paper"
                                      : selector == WN_SELECT_REGION ? "template-region"
                                                                     : "template");
  map = malloc((size_t)count * sizeof *map);
  seen = calloc(tcount, 1);
  l.mapped = malloc(count);
  l.cand = malloc(count);
  if (!res || !map || !seen || !l.mapped || !l.cand) {
    err = wn_diag_set(diag, WN_ENOMEM, "detect: out of memory for %u nodes", count);
    goto out;
  }

  uint32_t pairs = 0;
  err = wn_template_match(tpl, page, map, &pairs);
  if (err) {
    wn_diag_set(diag, err, "detect: matching the page against the template failed");
    goto out;
  }
  /* Confidence: the share of the template, weighted by how many sample
   * pages held each node, that this page reproduces. */
  double have = 0, total = 0;
  for (uint32_t i = 0; i < count; i++) {
    l.mapped[i] = map[i] != WN_DOM_NONE;
    if (l.mapped[i])
      seen[map[i]] = 1;
  }
  for (uint32_t t = 0; t < tcount; t++) {
    total += tnodes[t].count;
    if (seen[t])
      have += tnodes[t].count;
  }
  res->confidence = total > 0 ? have / total : 0;
  *confidence = res->confidence;
  if (res->confidence < min_confidence)
    goto out;

  if (selector == WN_SELECT_PAPER) {
    err = wn_select_paper(page, nodes, count, &l, res);
  } else if (selector == WN_SELECT_REGION) {
    wn_label_lifted(nodes, count, &l);
    err = wn_select_region(page, nodes, count, &l, res);
  } else {
    wn_label_lifted(nodes, count, &l);
    err = wn_select_cues(page, nodes, count, &l, res);
  }
  if (err)
    goto out;
  for (uint32_t i = 0; i < count; i++)
    res->tmpl[i] = !l.cand[i];
  *out = res;
  res = NULL;
out:
  free(map);
  free(seen);
  free(l.mapped);
  free(l.cand);
  wn_detect_result_free(res);
  if (err == WN_ENOMEM)
    wn_diag_set(diag, err, "detect: out of memory");
  return err;
}

wn_err wn_detect_run(const wn_dom_page *page, const wn_template *tpl,
                     const wn_detect_options *opts, wn_detect_result **out, wn_diag *diag) {
  double confidence = 0;
  return wn_detect_template(page, tpl, opts, 0.0, out, &confidence, diag);
}

wn_detect_result *wn_detect_result_alloc(uint32_t count, const char *method) {
  wn_detect_result *res = calloc(1, sizeof *res);
  if (!res)
    return NULL;
  res->tmpl = calloc(count ? count : 1, 1);
  res->keep = calloc(count ? count : 1, 1);
  if (!res->tmpl || !res->keep) {
    wn_detect_result_free(res);
    return NULL;
  }
  res->count = count;
  res->method = method;
  return res;
}

void wn_detect_result_free(wn_detect_result *result) {
  if (!result)
    return;
  free(result->selected);
  free(result->tmpl);
  free(result->keep);
  free(result);
}

wn_err wn_detect_page(const wn_dom_page *page, const wn_template *tpl,
                      const wn_detect_options *opts, wn_detect_result **out, wn_diag *diag) {
  *out = NULL;
  const double min_confidence = opts ? opts->min_confidence : 0.0;
  const wn_single_method fallback = opts ? opts->fallback : WN_SINGLE_DANAG;
  wn_detect_result *res = NULL;
  double confidence = 0.0;
  wn_detect_fallback reason = WN_FALLBACK_NO_TEMPLATE;
  if (tpl) {
    wn_err err = wn_detect_template(page, tpl, opts, min_confidence, &res, &confidence, diag);
    if (err)
      return err;
    if (res) {
      *out = res;
      return WN_OK;
    }
    /* The page does not look like the pages the template was learned
     * from (a redesign, another section of the site, another site under
     * one name): whatever the template's selection says rests on a match
     * that did not happen, so a method that needs no template decides
     * (and the selection is not even run). */
    reason = WN_FALLBACK_LOW_CONFIDENCE;
  }
  wn_err err = wn_detect_single(page, fallback, &res, diag);
  if (err)
    return err;
  res->confidence = confidence;
  res->fallback = reason;
  *out = res;
  return WN_OK;
}

wn_detect_fallback wn_detect_fallback_reason(const wn_detect_result *result) {
  return result->fallback;
}

const char *wn_detect_fallback_name(wn_detect_fallback reason) {
  switch (reason) {
  case WN_FALLBACK_NO_TEMPLATE:
    return "no template";
  case WN_FALLBACK_LOW_CONFIDENCE:
    return "low confidence";
  case WN_FALLBACK_NONE:
  default:
    return NULL;
  }
}

double wn_detect_confidence(const wn_detect_result *result) { return result->confidence; }
const char *wn_detect_method(const wn_detect_result *result) { return result->method; }
const uint32_t *wn_detect_selected(const wn_detect_result *result, uint32_t *count) {
  if (count)
    *count = result->n_selected;
  return result->selected;
}
const uint8_t *wn_detect_template_flags(const wn_detect_result *result) { return result->tmpl; }

/* ---- rendering ---------------------------------------------------------------- */

wn_err wn_detect_render_text(const wn_dom_page *page, const wn_detect_result *result,
                             wn_buf *out) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  if (count != result->count)
    return WN_EINVAL;
  wn_err err = WN_OK;
  int line_open = 0;
  uint32_t last_block = WN_DOM_NONE;
  int block_seen = 0;
  for (uint32_t k = 0; k < result->n_selected; k++) {
    uint32_t root = result->selected[k];
    for (uint32_t i = root; i < nodes[root].end; i++) {
      if (nodes[i].tag != WN_TAG_TEXT) {
        if (nodes[i].flags & WN_DOM_BLOCK)
          block_seen = 1;
        continue;
      }
      if (!result->keep[i])
        continue;
      /* One line per block: break when a block element started since the
       * last text, or when this text sits in another block. */
      uint32_t block = nodes[i].parent;
      while (block != WN_DOM_NONE && !(nodes[block].flags & WN_DOM_BLOCK))
        block = nodes[block].parent;
      if (line_open && (block_seen || block != last_block))
        err = wn_buf_append_char(out, '\n');
      else if (line_open)
        err = wn_buf_append_char(out, ' ');
      if (!err)
        err = wn_buf_append(out, nodes[i].text, nodes[i].own_text_len);
      if (err)
        return err;
      line_open = 1;
      block_seen = 0;
      last_block = block;
    }
    block_seen = 1; /* selected subtrees are separate blocks */
  }
  if (line_open)
    err = wn_buf_append_char(out, '\n');
  return err;
}

wn_err wn_detect_render_html(const wn_dom_page *page, const wn_detect_result *result,
                             wn_buf *out, wn_diag *diag) {
  xmlDocPtr doc = wn_dom_xml_doc(page);
  if (!doc)
    return wn_diag_set(diag, WN_EINVAL, "detect: HTML output needs a page parsed with keep_xml");
  const wn_dom_node *nodes = wn_dom_nodes(page, NULL);
  wn_err err = WN_OK;
  for (uint32_t k = 0; k < result->n_selected && !err; k++) {
    xmlNodePtr node = nodes[result->selected[k]].xml;
    if (!node)
      continue;
    xmlBufferPtr xb = xmlBufferCreate();
    if (!xb)
      return WN_ENOMEM;
    if (htmlNodeDump(xb, doc, node) < 0)
      err = wn_diag_set(diag, WN_EIO, "detect: libxml2 could not serialise a node");
    else
      err = wn_buf_append(out, xmlBufferContent(xb), (size_t)xmlBufferLength(xb));
    if (!err)
      err = wn_buf_append_char(out, '\n');
    xmlBufferFree(xb);
  }
  return err;
}
