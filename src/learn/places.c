/*
 * learn/places.c: where the site keeps its main content (the content
 * place) and which structures inside it recur as non-content (places to
 * skip), from the sample pages; detect/select_places.c uses them.
 *
 * No gold is known at learn time, but the samples are several pages of
 * one template. The cue selector is run on each sample page against the
 * template just learned (wn_detect_sample). Its page-specific text is
 * attributed to the nearest template element above it (the deepest
 * ancestor the ETDM paired, site-level paper Sec. 2.2). Per page:
 *
 *  - the page's place is the deepest template element whose subtree holds
 *    at least 9/10 of the text the cue selector kept on it (the content,
 *    headline and byline above it included, with room for a stray line
 *    kept elsewhere);
 *  - per template element, whether the page had page-specific text in its
 *    subtree and whether the cue selector left most of it (more than half)
 *    out.
 *
 * Over the pages, majorities decide, so that one page where the cues went
 * wrong (a comment thread longer than its post, a teaser list beside a
 * short post) is outvoted by the others:
 *
 *  - the content place is the deepest element that holds the page's place
 *    on more than half of the pages that kept any text;
 *  - an element strictly inside it is a place to skip when the cue
 *    selector left its page-specific text out on more than half of the
 *    pages where it held some. The element recurs (it is a template node:
 *    the template's own min count of samples had it), so one sample with
 *    text in it is evidence enough: a box of related links the template
 *    holds on every page, empty but on one sample, is left out on the
 *    pages that fill it (crawl-to-the-future 0.9553 -> 0.9573, fold A
 *    0.9480 -> 0.9520 where it was found, fold B unchanged; the manuals
 *    unchanged). Only the outermost such elements are kept;
 *  - the place is whole (nothing but content: manuals, references) when
 *    on more than half of the pages that had page-specific text there,
 *    skipped places aside, the cue selector kept at least 9/10 of it;
 *    detection then keeps the place's regions with their lists of links;
 *  - an element outside the place (not around it) is an aside by the
 *    rule for places to skip: where the cue selector keeps a page's text
 *    mostly outside the place, detection asks whether it kept asides
 *    (then it went wrong and the place serves) or not (then the page's
 *    content is not where the samples had it, and the single-page method
 *    reads the page, the template as its filter).
 *
 * The constants are majorities and the template's own "recurs" count; the
 * one proportion (9/10) says "nearly all of it". Each page is tallied
 * twice (the cue selector run twice): the whole vote needs the place,
 * and keeping every page's tally instead would cost pages x template
 * nodes of memory (64 pages of a large template: hundreds of MB).
 */
#include "detect/detect.h"
#include "learn/learn.h"

#include <stdlib.h>
#include <string.h>

typedef struct wn_place_tally {
  uint64_t had, kept;   /* this page: page-specific text in the subtree, kept */
  uint32_t votes;       /* pages whose place is this element or inside it */
  uint32_t pages_had;   /* pages with page-specific text in the subtree */
  uint32_t pages_out;   /* ... of which the cue selector left most out */
} wn_place_tally;

/* The work arrays of one page's tally, sized for the largest page. */
typedef struct wn_place_work {
  uint32_t *map, *att;
  uint8_t *cand, *keep;
} wn_place_work;

/* One sample page: the cue selector on it against the template, and per
 * template node t[k].had / t[k].kept, the page-specific text in its
 * subtree and what the cue selector kept of it. */
static wn_err wn_places_tally_page(const wn_dom_page *page, const wn_template *tpl,
                                   wn_place_tally *t, wn_place_work *w, wn_diag *diag) {
  uint32_t tcount = 0, count = 0;
  const wn_template_node *tn = wn_template_nodes(tpl, &tcount);
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  wn_err err = wn_detect_sample(page, tpl, w->map, w->cand, w->keep, diag);
  if (err)
    return err;
  for (uint32_t k = 0; k < tcount; k++)
    t[k].had = t[k].kept = 0;
  /* Pre-order: a node's parent is attributed before it. */
  for (uint32_t i = 0; i < count; i++) {
    uint32_t up = nodes[i].parent;
    w->att[i] = w->map[i] != WN_DOM_NONE ? w->map[i] : up == WN_DOM_NONE ? WN_DOM_NONE : w->att[up];
    if (nodes[i].tag != WN_TAG_TEXT || !w->cand[i] || w->att[i] == WN_DOM_NONE)
      continue;
    t[w->att[i]].had += nodes[i].own_text_len;
    if (w->keep[i])
      t[w->att[i]].kept += nodes[i].own_text_len;
  }
  for (uint32_t k = tcount; k-- > 1;) {
    t[tn[k].parent].had += t[k].had;
    t[tn[k].parent].kept += t[k].kept;
  }
  return WN_OK;
}

wn_err wn_learn_places(wn_template *tpl, const wn_dom_page *const *pages, size_t n_pages,
                       wn_diag *diag) {
  wn_err err = WN_OK;
  uint32_t tcount = 0, most = 0;
  const wn_template_node *tn = wn_template_nodes(tpl, &tcount);
  for (size_t p = 0; p < n_pages; p++) {
    uint32_t c = 0;
    wn_dom_nodes(pages[p], &c);
    if (c > most)
      most = c;
  }
  /* Memory: per template node and per node of the largest page, never
   * per page and node: the "whole" vote needs the place, known only once
   * every page has voted, so the pages are tallied a second time. */
  wn_place_tally *t = calloc((size_t)tcount + 1, sizeof *t);
  wn_place_work w = {.map = malloc(((size_t)most + 1) * sizeof *w.map),
                     .att = malloc(((size_t)most + 1) * sizeof *w.att),
                     .cand = malloc((size_t)most + 1),
                     .keep = malloc((size_t)most + 1)};
  wn_template_places places = {.content = WN_DOM_NONE};
  if (!t || !w.map || !w.att || !w.cand || !w.keep) {
    err = wn_diag_set(diag, WN_ENOMEM, "learn: out of memory finding the content places");
    goto out;
  }
  uint32_t voters = 0;
  for (size_t p = 0; p < n_pages; p++) {
    if ((err = wn_places_tally_page(pages[p], tpl, t, &w, diag)))
      goto out;
    for (uint32_t k = 0; k < tcount; k++) {
      if (t[k].had == 0)
        continue;
      t[k].pages_had++;
      if (t[k].kept * 2 < t[k].had)
        t[k].pages_out++;
    }
    uint64_t total = t[0].kept;
    if (total == 0)
      continue;
    voters++;
    /* Down from the root while one child holds nearly all of it. */
    uint32_t at = 0;
    for (;;) {
      uint32_t next = WN_DOM_NONE;
      for (uint32_t c = tn[at].first_child; c != WN_DOM_NONE; c = tn[c].next_sibling)
        if (!tn[c].is_text && t[c].kept * 10 >= total * 9) {
          next = c;
          break;
        }
      t[at].votes++;
      if (next == WN_DOM_NONE)
        break;
      at = next;
    }
  }
  if (voters == 0)
    goto out;
  /* Each page voted for one path from the root, so at most one child of a
   * node can hold a majority: the walk down is unambiguous. */
  uint32_t at = WN_DOM_NONE;
  if (t[0].votes * 2 > voters) {
    at = 0;
    for (;;) {
      uint32_t next = WN_DOM_NONE;
      for (uint32_t c = tn[at].first_child; c != WN_DOM_NONE; c = tn[c].next_sibling)
        if (t[c].votes * 2 > voters)
          next = c;
      if (next == WN_DOM_NONE)
        break;
      at = next;
    }
  }
  if (at == WN_DOM_NONE)
    goto out;
  places.content = at;
  for (uint32_t k = at + 1; k < tn[at].end && places.n_skip < WN_TEMPLATE_MAX_SKIP; k++) {
    if (tn[k].is_text || t[k].pages_had == 0 || t[k].pages_out * 2 <= t[k].pages_had)
      continue;
    places.skip[places.n_skip++] = k;
    k = tn[k].end - 1; /* its subtree is skipped with it */
  }
  /* Asides: the same rule outside the place (neither inside it nor above
   * it), so that detection can tell a page where the cue selector went
   * wrong (it kept a comment thread or a teaser list the samples agree is
   * not content) from one whose content has moved out of the place. */
  for (uint32_t k = 1; k < tcount && places.n_aside < WN_TEMPLATE_MAX_SKIP; k++) {
    if (k == at) {
      k = tn[at].end - 1;
      continue;
    }
    if ((k < at && at < tn[k].end) || tn[k].is_text || t[k].pages_had * 2 <= n_pages ||
        t[k].pages_out * 2 <= t[k].pages_had)
      continue;
    places.aside[places.n_aside++] = k;
    k = tn[k].end - 1;
  }
  /* Whole: on most pages (that had text there) the cue selector kept
   * nearly all (9/10) of the place's page-specific text, skipped places
   * aside: the place holds nothing but content, so a page where it holds a
   * list of links (an index) or a table keeps it too. */
  uint32_t have = 0, all = 0;
  for (size_t p = 0; p < n_pages; p++) {
    if ((err = wn_places_tally_page(pages[p], tpl, t, &w, diag)))
      goto out;
    uint64_t had = t[at].had, kept = t[at].kept;
    for (uint32_t k = 0; k < places.n_skip; k++) {
      had -= t[places.skip[k]].had;
      kept -= t[places.skip[k]].kept;
    }
    if (had == 0)
      continue;
    have++;
    all += kept * 10 >= had * 9;
  }
  places.whole = have > 0 && all * 2 > have;
  if (wn_template_set_places(tpl, &places) != WN_OK)
    err = wn_diag_set(diag, WN_EINVAL, "learn: inconsistent content places");
out:
  free(t);
  free(w.map);
  free(w.att);
  free(w.cand);
  free(w.keep);
  return err;
}
