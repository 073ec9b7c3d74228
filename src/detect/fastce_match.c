/*
 * detect/fastce_match.c: FastCE's detection phase (detect/fastce.h).
 */
#include "detect/fastce.h"
#include "detect/detect_int.h"
#include "detect/single_int.h"

#include <stdlib.h>
#include <string.h>

wn_err wn_detect_fastce_run(const wn_dom_page *page, const wn_fastce *fce,
                            wn_detect_result **out, wn_diag *diag) {
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
  if (!pidx || !anc || !desc || !kept) {
    err = wn_diag_set(diag, WN_ENOMEM, "fastce: out of memory for %u blocks", n);
    goto out;
  }
  for (uint32_t b = 0; b < n; b++) {
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
  /* Top down: the nearest enclosing block with its path in P, and what
   * the paper's rules make of each block's own content. */
  for (uint32_t b = 0; b < n; b++) {
    uint32_t p = bl.blocks[b].parent;
    anc[b] = p == WN_DOM_NONE ? WN_DOM_NONE : pidx[p] != WN_DOM_NONE ? p : anc[p];
    if (pidx[b] != WN_DOM_NONE) {
      /* An extracted block: content unless it is like a non-content
       * block the template stored for its path. */
      const wn_fastce_block *blk = &bl.blocks[b];
      kept[b] = !wn_fastce_is_stored(fce, pidx[b], bl.terms + blk->term_first, blk->n_terms,
                                     blk->norm);
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
  double all = 0, have = 0;
  for (uint32_t i = 0; i < n_paths; i++) {
    uint32_t pages = 0;
    wn_fastce_path(fce, i, &pages);
    all += pages;
    if (found[i])
      have += pages;
  }
  res->confidence = all > 0 ? have / all : 0.0;
  *out = res;
  res = NULL;
out:
  wn_detect_result_free(res);
  free(found);
  wn_arena_destroy(arena);
  return err;
}

wn_err wn_detect_fastce_page(const wn_dom_page *page, const wn_fastce *fce,
                             const wn_detect_options *opts, wn_detect_result **out,
                             wn_diag *diag) {
  *out = NULL;
  const double min_confidence = opts ? opts->min_confidence : 0.0;
  const wn_single_method fallback = opts ? opts->fallback : WN_SINGLE_DANAG;
  wn_detect_result *res = NULL;
  wn_err err = wn_detect_fastce_run(page, fce, &res, diag);
  if (err)
    return err;
  if (res->confidence >= min_confidence && res->n_selected > 0) {
    *out = res;
    return WN_OK;
  }
  /* The page does not fit the paths (or all it has on them is stored
   * non-content): as for ETDM, a method that needs no template serves it. */
  const double confidence = res->confidence;
  wn_detect_result_free(res);
  res = NULL;
  const uint32_t steps = opts ? opts->fallback_steps : WN_SINGLE_STEPS_DEFAULT;
  err = (steps & WN_SINGLE_STEPS_SET)
            ? wn_detect_single_steps(page, fallback, steps & ~WN_SINGLE_STEPS_SET, &res, diag)
            : wn_detect_single(page, fallback, &res, diag);
  if (err)
    return err;
  res->confidence = confidence;
  res->fallback = WN_FALLBACK_LOW_CONFIDENCE;
  *out = res;
  return WN_OK;
}
