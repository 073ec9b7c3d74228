/*
 * detect/fastce_match.c: FastCE's detection phase (detect/fastce_detect.h).
 */
#include "detect/fastce_detect.h"
#include "detect/detect_int.h"
#include "detect/single_int.h"

#include <stdlib.h>
#include <string.h>

wn_err wn_detect_fastce_run(const wn_dom_page *page, const wn_fastce *fce,
                            wn_detect_result **out, wn_diag *diag) {
  return wn_detect_fastce_run_traced(page, fce, NULL, out, diag);
}

/* Copies what detection computed into the trace. */
static wn_err wn_fastce_trace_fill(wn_fastce_trace *tr, const wn_fastce_blocks *bl, uint32_t count,
                                   const uint32_t *pidx, const uint32_t *like,
                                   const uint8_t *links, const uint32_t *anc,
                                   const uint8_t *desc, const uint8_t *found, uint32_t n_paths) {
  wn_fastce_trace_free(tr);
  const uint32_t n = bl->n;
  tr->count = count;
  tr->n_blocks = n;
  tr->block_of = malloc((size_t)(count ? count : 1) * sizeof *tr->block_of);
  tr->node = malloc((size_t)(n ? n : 1) * sizeof *tr->node);
  tr->path = malloc((size_t)(n ? n : 1) * sizeof *tr->path);
  tr->stored = malloc((size_t)(n ? n : 1) * sizeof *tr->stored);
  tr->outer = malloc((size_t)(n ? n : 1) * sizeof *tr->outer);
  tr->fate = calloc(n ? n : 1, 1);
  if (!tr->block_of || !tr->node || !tr->path || !tr->stored || !tr->outer || !tr->fate) {
    wn_fastce_trace_free(tr);
    return WN_ENOMEM;
  }
  if (count)
    memcpy(tr->block_of, bl->block_of, (size_t)count * sizeof *tr->block_of);
  for (uint32_t b = 0; b < n; b++) {
    tr->node[b] = bl->blocks[b].node;
    tr->path[b] = pidx[b];
    tr->stored[b] = like[b];
    tr->outer[b] = anc[b];
    if (pidx[b] != WN_DOM_NONE)
      tr->fate[b] = like[b] != WN_DOM_NONE ? WN_FASTCE_FATE_STORED
                    : links[b]             ? WN_FASTCE_FATE_LINKS
                                           : WN_FASTCE_FATE_EXTRACTED;
    else if (anc[b] != WN_DOM_NONE)
      tr->fate[b] = desc[b] ? WN_FASTCE_FATE_INCLUDED : WN_FASTCE_FATE_LEFT_OUT;
  }
  for (uint32_t i = 0; i < n_paths; i++)
    tr->paths_found += found[i];
  return WN_OK;
}

wn_err wn_detect_fastce_run_traced(const wn_dom_page *page, const wn_fastce *fce,
                                   wn_fastce_trace *trace, wn_detect_result **out,
                                   wn_diag *diag) {
  wn_err err = WN_OK;
  wn_fastce_blocks bl;
  wn_detect_result *res = NULL;
  uint8_t *found = NULL;
  *out = NULL;
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  /* Per-page work from one arena, freed in one go. */
  wn_arena *arena = wn_arena_create(0);
  res = wn_detect_result_alloc(count, "fastce");
  const uint32_t n_paths = wn_fastce_path_count(fce);
  found = calloc(n_paths ? n_paths : 1, 1);
  if (!arena || !res || !found) {
    err = wn_diag_set(diag, WN_ENOMEM, "fastce: out of memory for %u nodes", count);
    goto out;
  }
  if ((err = wn_fastce_partition_for(page, fce, arena, &bl, diag)))
    goto out;
  const uint32_t n = bl.n;
  uint32_t *pidx = wn_arena_alloc(arena, (size_t)(n ? n : 1) * sizeof *pidx);
  uint32_t *anc = wn_arena_alloc(arena, (size_t)(n ? n : 1) * sizeof *anc);
  uint8_t *desc = wn_arena_calloc(arena, n ? n : 1, 1);
  uint8_t *kept = wn_arena_calloc(arena, n ? n : 1, 1);
  uint32_t *like = wn_arena_alloc(arena, (size_t)(n ? n : 1) * sizeof *like);
  double *path_kept = wn_arena_calloc(arena, n_paths ? n_paths : 1, sizeof *path_kept);
  uint8_t *links = wn_arena_calloc(arena, n ? n : 1, 1); /* left out by the link rule */
  if (!pidx || !anc || !desc || !kept || !like || !path_kept || !links) {
    err = wn_diag_set(diag, WN_ENOMEM, "fastce: out of memory for %u blocks", n);
    goto out;
  }
  for (uint32_t b = 0; b < n; b++) {
    like[b] = WN_DOM_NONE;
    pidx[b] = wn_fastce_find(fce, bl.blocks[b].path);
    if (pidx[b] != WN_DOM_NONE)
      found[pidx[b]] = 1;
  }
  /* desc[b]: some sub-block of b, at any depth, has its path in P
   * (children follow their parents, so one backward pass). */
  for (uint32_t b = n; b-- > 1;) {
    uint32_t p = bl.blocks[b].parent;
    if (pidx[b] != WN_DOM_NONE || desc[b])
      desc[p] = 1;
  }
  /* With the site-level rules (WN_FASTCE_FLAG_SITE), each block's own
   * text and own link text, for the link rule below. */
  const int site_rules = (wn_fastce_flags(fce) & WN_FASTCE_FLAG_SITE) != 0;
  uint32_t *own_text = NULL, *own_link = NULL;
  if (site_rules) {
    own_text = wn_arena_calloc(arena, n ? n : 1, sizeof *own_text);
    own_link = wn_arena_calloc(arena, n ? n : 1, sizeof *own_link);
    if (!own_text || !own_link) {
      err = wn_diag_set(diag, WN_ENOMEM, "fastce: out of memory for %u blocks", n);
      goto out;
    }
    for (uint32_t i = 0; i < count; i++)
      if (nodes[i].tag == WN_TAG_TEXT) {
        own_text[bl.block_of[i]] += nodes[i].own_text_len;
        if (nodes[i].link_text_len)
          own_link[bl.block_of[i]] += nodes[i].own_text_len;
      }
  }
  /* Top down: the nearest enclosing block with its path in P, and what
   * the paper's rules make of each block's own content. */
  for (uint32_t b = 0; b < n; b++) {
    uint32_t p = bl.blocks[b].parent;
    anc[b] = p == WN_DOM_NONE ? WN_DOM_NONE : pidx[p] != WN_DOM_NONE ? p : anc[p];
    if (pidx[b] != WN_DOM_NONE) {
      /* An extracted block: content unless it is like a non-content
       * block the template stored for its path. */
      const wn_fastce_block *blk = &bl.blocks[b];
      like[b] = wn_fastce_stored_like(fce, pidx[b], bl.terms + blk->term_first, blk->n_terms,
                                      blk->norm);
      kept[b] = like[b] == WN_DOM_NONE;
      /* The link rule (site-level, not the paper's): a block on a content
       * path whose own text is mostly link text is a list of other pages
       * (related stories, teasers) that differed between the samples, so
       * ContentExtractor's test let it through. "More than half", as the
       * cue selector's link boxes; chosen on fold A of
       * crawl-to-the-future (docs/fastce.md). */
      if (kept[b] && site_rules && own_text[b] &&
          (double)own_link[b] > WN_FASTCE_MAX_LINK_SHARE * (double)own_text[b]) {
        kept[b] = 0;
        links[b] = 1;
      }
    } else if (anc[b] != WN_DOM_NONE) {
      /* B' inside an extracted block B: left out when none of its
       * sub-blocks is on a content path, else extracted with B. */
      kept[b] = desc[b] ? kept[anc[b]] : 0;
    }
  }
  uint32_t n_kept = 0;
  for (uint32_t i = 0; i < count; i++) {
    uint8_t k = kept[bl.block_of[i]];
    res->tmpl[i] = !k;
    if (nodes[i].tag == WN_TAG_TEXT && k) {
      res->keep[i] = 1;
      n_kept++;
    }
  }
  /* The selection: the outermost extracted blocks holding kept text, in
   * document order (they do not nest). */
  uint32_t n_sel = 0;
  res->selected = malloc((size_t)(n ? n : 1) * sizeof *res->selected);
  if (!res->selected) {
    err = wn_diag_set(diag, WN_ENOMEM, "fastce: out of memory");
    goto out;
  }
  if (n_kept) {
    for (uint32_t b = 0; b < n; b++) {
      if (pidx[b] == WN_DOM_NONE || anc[b] != WN_DOM_NONE)
        continue;
      uint32_t node = bl.blocks[b].node;
      for (uint32_t i = node; i < nodes[node].end; i++)
        if (res->keep[i]) {
          res->selected[n_sel++] = node;
          break;
        }
    }
  }
  res->n_selected = n_sel;
  /* Confidence: how much of the content text the samples had on the
   * content paths this page has there too, kept: per path at most the
   * samples' bytes per page, over their sum. A page of another layout
   * that shares only the navigation's paths, or whose blocks on the
   * paths are all stored non-content, scores near 0 however many paths
   * it has, and goes to the fallback. A format 1 template has no text
   * bytes: the share of the paths the page has, weighted by the sample
   * pages with content there. */
  double all = 0, have = 0;
  for (uint32_t i = 0; i < n_paths; i++)
    all += wn_fastce_path_text(fce, i);
  if (all > 0) {
    for (uint32_t b = 0; b < n; b++)
      if (pidx[b] != WN_DOM_NONE && kept[b])
        path_kept[pidx[b]] += bl.blocks[b].text_len;
    for (uint32_t i = 0; i < n_paths; i++) {
      double want = wn_fastce_path_text(fce, i);
      have += path_kept[i] < want ? path_kept[i] : want;
    }
  } else {
    for (uint32_t i = 0; i < n_paths; i++) {
      uint32_t pages = 0;
      wn_fastce_path(fce, i, &pages);
      all += pages;
      if (found[i])
        have += pages;
    }
  }
  res->confidence = all > 0 ? have / all : 0.0;
  if (trace &&
      wn_fastce_trace_fill(trace, &bl, count, pidx, like, links, anc, desc, found, n_paths)) {
    err = wn_diag_set(diag, WN_ENOMEM, "fastce: out of memory for the trace");
    goto out;
  }
  *out = res;
  res = NULL;
out:
  wn_detect_result_free(res);
  free(found);
  wn_arena_destroy(arena);
  return err;
}

wn_err wn_detect_fastce_policy(const wn_dom_page *page, const wn_detect_options *opts,
                               uint32_t steps, wn_detect_result *run, wn_detect_result **out,
                               wn_diag *diag) {
  const double min_confidence = opts ? opts->min_confidence : 0.0;
  const double confidence = run->confidence;
  if (confidence >= min_confidence && run->n_selected > 0)
    return wn_detect_policy(page, opts, steps, run, WN_FALLBACK_NONE, confidence, out, diag);
  /* The page does not fit the paths (or all it has on them is stored
   * non-content): as for ETDM, a method that needs no template serves it. */
  wn_detect_result_free(run);
  return wn_detect_policy(page, opts, steps, NULL, WN_FALLBACK_LOW_CONFIDENCE, confidence, out,
                          diag);
}

wn_err wn_detect_fastce_page(const wn_dom_page *page, const wn_fastce *fce,
                             const wn_detect_options *opts, uint32_t steps,
                             wn_detect_result **out, wn_diag *diag) {
  *out = NULL;
  wn_detect_result *run = NULL;
  wn_err err = wn_detect_fastce_run(page, fce, &run, diag);
  if (err)
    return err;
  return wn_detect_fastce_policy(page, opts, steps, run, out, diag);
}
