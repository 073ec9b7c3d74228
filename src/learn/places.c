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
 *    pages that fill it. Only the outermost such elements are kept;
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
  uint64_t link;        /* this page: of had, the text inside links */
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
    t[k].had = t[k].kept = t[k].link = 0;
  /* Pre-order: a node's parent is attributed before it. */
  for (uint32_t i = 0; i < count; i++) {
    uint32_t up = nodes[i].parent;
    w->att[i] = w->map[i] != WN_DOM_NONE ? w->map[i] : up == WN_DOM_NONE ? WN_DOM_NONE : w->att[up];
    if (nodes[i].tag != WN_TAG_TEXT || !w->cand[i] || w->att[i] == WN_DOM_NONE)
      continue;
    t[w->att[i]].had += nodes[i].own_text_len;
    if (nodes[i].flags & WN_DOM_IN_LINK)
      t[w->att[i]].link += nodes[i].own_text_len;
    if (w->keep[i])
      t[w->att[i]].kept += nodes[i].own_text_len;
  }
  for (uint32_t k = tcount; k-- > 1;) {
    t[tn[k].parent].had += t[k].had;
    t[tn[k].parent].kept += t[k].kept;
    t[tn[k].parent].link += t[k].link;
  }
  return WN_OK;
}

/* Whether tn[k] is one of the sections: an element child of a with the
 * signature sig. */
static int wn_places_is_section(const wn_template_node *tn, uint32_t k, uint32_t sig) {
  return !tn[k].is_text && tn[k].sig == sig;
}

/* 1 if page node i is a section as HTML writes one: a <div>, <section> or
 * <article> that opens with a heading (h1 to h6 among its first few
 * nodes: a manual's title may sit in a wrapper or two, as DocBook's
 * does). */
static int wn_places_headed(const wn_dom_node *nodes, uint32_t i) {
  uint8_t tag = nodes[i].tag;
  if (tag != WN_TAG_DIV && tag != WN_TAG_SECTION && tag != WN_TAG_ARTICLE)
    return 0;
  for (uint32_t j = i + 1; j < nodes[i].end && j <= i + 8; j++)
    if (nodes[j].tag >= WN_TAG_H1 && nodes[j].tag <= WN_TAG_H6)
      return 1;
  return 0;
}

/* Content in sibling sections. A manual's page runs through a run of
 * sibling sections of one structure (a heading and its text: SYNOPSIS,
 * DESCRIPTION, OPTIONS...); the cue selector keeps the largest, so the
 * samples' place is inside one section and the others are lost, on the
 * samples and on every page whose sections differ. The place is raised to
 * the sections' parent when, on more than half of the samples with
 * page-specific text there, the sections (at least three siblings of the
 * signature of the one holding the place; two would be a pair of columns)
 * hold nearly all (9/10) of the parent's page-specific text, two or more of
 * them hold some, each of those is a section as HTML writes one (a block
 * that opens with a heading: rows of a layout table and items of a list
 * are not), the text is mostly not link text (prose, not a list of
 * links), and the place's own section holds less than nearly all of it
 * (the content is spread). *sections receives the sections' signature
 * when the place is raised, else stays 0. */
static wn_err wn_places_sections(const wn_template *tpl, const wn_dom_page *const *pages,
                                 size_t n_pages, wn_place_tally *t, wn_place_work *w,
                                 uint32_t *at, int *raised, uint32_t *sections, wn_diag *diag) {
  uint32_t tcount = 0;
  const wn_template_node *tn = wn_template_nodes(tpl, &tcount);
  uint32_t c = *at, a = tn[c].parent;
  while (a != WN_DOM_NONE) {
    uint32_t same = 0;
    for (uint32_t k = tn[a].first_child; k != WN_DOM_NONE; k = tn[k].next_sibling)
      same += (uint32_t)wn_places_is_section(tn, k, tn[c].sig);
    if (same >= 3)
      break;
    c = a;
    a = tn[a].parent;
  }
  if (a == WN_DOM_NONE)
    return WN_OK;
  uint32_t have = 0, yes = 0;
  for (size_t p = 0; p < n_pages; p++) {
    wn_err err = wn_places_tally_page(pages[p], tpl, t, w, diag);
    if (err)
      return err;
    if (t[a].had == 0)
      continue;
    have++;
    uint64_t had = 0, link = 0;
    uint32_t with_text = 0, headed = 0;
    for (uint32_t k = tn[a].first_child; k != WN_DOM_NONE; k = tn[k].next_sibling)
      if (wn_places_is_section(tn, k, tn[c].sig)) {
        had += t[k].had;
        link += t[k].link;
        with_text += (uint32_t)(t[k].had > 0);
      }
    /* The page's nodes paired with the sections that hold text. */
    uint32_t count = 0;
    const wn_dom_node *nodes = wn_dom_nodes(pages[p], &count);
    for (uint32_t i = 0; i < count; i++) {
      uint32_t k = w->map[i];
      if (k != WN_DOM_NONE && tn[k].parent == a && wn_places_is_section(tn, k, tn[c].sig) &&
          t[k].had > 0)
        headed += (uint32_t)wn_places_headed(nodes, i);
    }
    yes += (uint32_t)(had * 10 >= t[a].had * 9 && with_text >= 2 && headed == with_text &&
                      link * 2 < had &&
                      t[c].had * 10 < had * 9);
  }
  if (have > 0 && yes * 2 > have) {
    *at = a;
    *raised = 1;
    *sections = tn[c].sig;
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
  /* The votes of the skip and aside rules (pages_had, pages_out) are the
   * first pass's; the sections' pass below tallies each page again. */
  int raised = 0;
  uint32_t sections = 0;
  wn_place_tally *votes = malloc(((size_t)tcount + 1) * sizeof *votes);
  if (!votes) {
    err = wn_diag_set(diag, WN_ENOMEM, "learn: out of memory finding the content places");
    goto out;
  }
  memcpy(votes, t, ((size_t)tcount + 1) * sizeof *votes);
  err = wn_places_sections(tpl, pages, n_pages, t, &w, &at, &raised, &sections, diag);
  memcpy(t, votes, ((size_t)tcount + 1) * sizeof *votes);
  free(votes);
  if (err)
    goto out;
  places.content = at;
  for (uint32_t k = at + 1; k < tn[at].end && places.n_skip < WN_TEMPLATE_MAX_SKIP; k++) {
    /* Raised to the sections' parent: the sections are the content,
     * whatever the cue selector left out of them. */
    if (raised && tn[k].parent == at && wn_places_is_section(tn, k, sections)) {
      k = tn[k].end - 1;
      continue;
    }
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
  /* Raised to sections of prose: the cue selector kept one of them, yet
   * all are content. */
  places.whole = raised || (have > 0 && all * 2 > have);
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
