/*
 * learn/fastce_learn.c: the preparation phase of FastContentExtractor
 * (../shared/papers/fast-content-extractor.txt, Sec. III, Fig. 4).
 *
 *  1. Partition each sample page into blocks (ContentExtractor, Sec. II):
 *     each block's own content (its text, links and images outside its
 *     sub-blocks) as a feature vector.
 *  2. ContentExtractor's test: a block is non-content when enough other
 *     sample pages (a quarter) hold a similar block (cosine > 0.9); else
 *     content.
 *     We compare a block only with the blocks of the same traversal path
 *     on the other pages, not with every block: what FastCE stores and
 *     matches is per path anyway, and it keeps learning linear in the
 *     pages rather than quadratic in their blocks.
 *  3. The template: the paths of the content blocks (P), and the
 *     non-content blocks whose path is in P (one per group of similar
 *     ones), so that detection can tell them apart (Sec. III).
 */
#include "learn/learn.h"
#include "template/fastce.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One block of one sample page, for grouping by path. */
typedef struct wn_fce_ref {
  uint64_t path;
  uint32_t page;
  uint32_t block;
} wn_fce_ref;

static int wn_fce_ref_cmp(const void *a, const void *b) {
  const wn_fce_ref *x = a, *y = b;
  if (x->path != y->path)
    return x->path < y->path ? -1 : 1;
  if (x->page != y->page)
    return x->page < y->page ? -1 : 1;
  return x->block < y->block ? -1 : x->block > y->block;
}

/* Comparisons of one block with the blocks of one other page, at most:
 * a path shared by hundreds of list items on every page must not make
 * learning quadratic. */
#define WN_FASTCE_MAX_COMPARE 256u

/* The first words of block b's own text, for show. */
static size_t wn_fce_sample(const wn_dom_page *page, const wn_fastce_blocks *bl, uint32_t b,
                            char *out, size_t size) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint32_t node = bl->blocks[b].node;
  size_t n = 0;
  for (uint32_t i = node; i < nodes[node].end && n + 1 < size; i++) {
    if (nodes[i].tag != WN_TAG_TEXT || bl->block_of[i] != b || !nodes[i].text)
      continue;
    if (n && n + 1 < size)
      out[n++] = ' ';
    size_t k = nodes[i].own_text_len;
    if (k > size - 1 - n)
      k = size - 1 - n;
    memcpy(out + n, nodes[i].text, k);
    n += k;
  }
  /* Do not cut a UTF-8 sequence in two. */
  while (n > 0 && ((unsigned char)out[n - 1] & 0xC0u) == 0x80u)
    n--;
  if (n > 0 && ((unsigned char)out[n - 1] & 0xC0u) == 0xC0u)
    n--;
  out[n] = '\0';
  return n;
}

wn_err wn_learn_fastce(const wn_dom_page *const *pages, size_t n_pages, wn_fastce **out,
                       wn_diag *diag) {
  wn_err err = WN_OK;
  wn_arena *arena = NULL;
  wn_fastce_blocks *bl = NULL;
  wn_fce_ref *refs = NULL;
  uint8_t **recurs = NULL; /* per page, per block: 1 non-content */
  uint32_t *last_page = NULL;
  wn_fastce *f = NULL;
  wn_buf path;
  wn_buf_init(&path, WN_FASTCE_MAX_PATH_BYTES + 1);
  *out = NULL;
  if (n_pages < 2 || n_pages > WN_LEARN_MAX_PAGES)
    return wn_diag_set(diag, WN_EINVAL, "fastce: need 2 to %u pages, got %zu", WN_LEARN_MAX_PAGES,
                       n_pages);
  /* One arena per learn: the partitions of all pages go with it. */
  arena = wn_arena_create((size_t)1 << 30);
  bl = calloc(n_pages, sizeof *bl);
  recurs = calloc(n_pages, sizeof *recurs);
  f = wn_fastce_new((uint32_t)n_pages);
  last_page = malloc(WN_FASTCE_MAX_PATHS * sizeof *last_page);
  if (!arena || !bl || !recurs || !f || !last_page) {
    err = wn_diag_set(diag, WN_ENOMEM, "fastce: out of memory");
    goto out;
  }
  size_t n_refs = 0;
  for (size_t p = 0; p < n_pages; p++) {
    if ((err = wn_fastce_partition(pages[p], arena, &bl[p], diag)))
      goto out;
    recurs[p] = wn_arena_calloc(arena, bl[p].n ? bl[p].n : 1, 1);
    if (!recurs[p]) {
      err = wn_diag_set(diag, WN_ENOMEM, "fastce: out of memory");
      goto out;
    }
    for (uint32_t b = 0; b < bl[p].n; b++)
      n_refs += bl[p].blocks[b].n_terms > 0;
  }
  refs = malloc((n_refs ? n_refs : 1) * sizeof *refs);
  if (!refs) {
    err = wn_diag_set(diag, WN_ENOMEM, "fastce: out of memory");
    goto out;
  }
  size_t k = 0;
  for (size_t p = 0; p < n_pages; p++)
    for (uint32_t b = 0; b < bl[p].n; b++)
      if (bl[p].blocks[b].n_terms > 0)
        refs[k++] = (wn_fce_ref){bl[p].blocks[b].path, (uint32_t)p, b};
  qsort(refs, n_refs, sizeof *refs, wn_fce_ref_cmp);

  /* Step 2 within each path group: in how many other pages does a block
   * like this one occur? ContentExtractor calls a block non-content when
   * it occurs on "many" pages without saying how many; ours: on a quarter
   * of the other pages (at least one; one of four with the corpora's five
   * sample pages). Chosen on half of the sites (README): a half or all of
   * them kept more of each site's boilerplate (word F1 0.731 and 0.719
   * against 0.746 on the choosing half of crawl-to-the-future). */
  size_t need = (n_pages - 1 + 3) / 4;
  if (need < 1)
    need = 1;
  for (size_t g = 0; g < n_refs;) {
    size_t end = g;
    while (end < n_refs && refs[end].path == refs[g].path)
      end++;
    for (size_t i = g; i < end; i++) {
      const wn_fastce_block *bi = &bl[refs[i].page].blocks[refs[i].block];
      const wn_fastce_term *ti = bl[refs[i].page].terms + bi->term_first;
      size_t pages_like = 0;
      uint32_t cur_page = UINT32_MAX, compared = 0;
      int found = 0;
      for (size_t j = g; j < end && pages_like < need; j++) {
        if (refs[j].page == refs[i].page)
          continue;
        if (refs[j].page != cur_page) {
          cur_page = refs[j].page;
          compared = 0;
          found = 0;
        }
        if (found || compared >= WN_FASTCE_MAX_COMPARE)
          continue;
        compared++;
        const wn_fastce_block *bj = &bl[refs[j].page].blocks[refs[j].block];
        if (wn_fastce_cosine_n(ti, bi->n_terms, bi->norm, bl[refs[j].page].terms + bj->term_first,
                               bj->n_terms, bj->norm) > WN_FASTCE_SIMILARITY) {
          found = 1;
          pages_like++;
        }
      }
      recurs[refs[i].page][refs[i].block] = pages_like >= need;
    }
    g = end;
  }

  /* Step 3a: the content paths, each counted once per page. */
  for (uint32_t i = 0; i < WN_FASTCE_MAX_PATHS; i++)
    last_page[i] = UINT32_MAX;
  for (size_t p = 0; p < n_pages; p++) {
    for (uint32_t b = 0; b < bl[p].n; b++) {
      const wn_fastce_block *blk = &bl[p].blocks[b];
      if (blk->n_terms == 0 || recurs[p][b])
        continue;
      uint32_t idx = wn_fastce_find(f, blk->path);
      if (idx != WN_DOM_NONE && last_page[idx] == p)
        continue;
      wn_buf_reset(&path);
      if (wn_fastce_path_string(pages[p], &bl[p], b, &path) != WN_OK)
        continue; /* deeper than a path may be: left out */
      idx = wn_fastce_add_path(f, path.data, path.len);
      if (idx == WN_DOM_NONE) {
        if (wn_fastce_path_count(f) < WN_FASTCE_MAX_PATHS) {
          err = wn_diag_set(diag, WN_ENOMEM, "fastce: out of memory");
          goto out;
        }
        continue; /* past the cap: the first paths found are kept */
      }
      last_page[idx] = (uint32_t)p;
    }
  }
  /* Step 3b: non-content blocks on a content path, one per group of
   * similar ones. */
  for (size_t p = 0; p < n_pages; p++) {
    for (uint32_t b = 0; b < bl[p].n; b++) {
      const wn_fastce_block *blk = &bl[p].blocks[b];
      if (blk->n_terms == 0 || !recurs[p][b])
        continue;
      uint32_t idx = wn_fastce_find(f, blk->path);
      if (idx == WN_DOM_NONE)
        continue;
      const wn_fastce_term *t = bl[p].terms + blk->term_first;
      int seen = 0;
      for (uint32_t s = 0; s < wn_fastce_stored_count(f) && !seen; s++) {
        wn_fastce_stored st = wn_fastce_stored_get(f, s);
        seen = st.path == idx && wn_fastce_cosine_n(t, blk->n_terms, blk->norm, st.terms,
                                                    st.n_terms, st.norm) > WN_FASTCE_SIMILARITY;
      }
      if (seen)
        continue;
      char sample[WN_FASTCE_MAX_SAMPLE + 1];
      size_t slen = wn_fce_sample(pages[p], &bl[p], b, sample, sizeof sample);
      err = wn_fastce_add_stored(f, idx, t, blk->n_terms, sample, slen);
      if (err == WN_ETOOMANY) {
        err = WN_OK; /* past the cap: the first blocks found are kept */
        break;
      }
      if (err) {
        wn_diag_set(diag, err, "fastce: out of memory");
        goto out;
      }
    }
  }
  if ((err = wn_fastce_finish(f, diag)))
    goto out;
  if (wn_fastce_path_count(f) == 0) {
    err = wn_diag_set(diag, WN_EEMPTY,
                      "fastce: no block of the %zu pages is content (every block recurs on the "
                      "other pages): there is no content path to learn",
                      n_pages);
    goto out;
  }
  *out = f;
  f = NULL;
out:
  wn_buf_free(&path);
  wn_fastce_free(f);
  free(refs);
  free(recurs);
  free(bl);
  free(last_page);
  wn_arena_destroy(arena);
  return err;
}

wn_err wn_learn_fastce_pages(const wn_dom_page *const *pages, size_t n_pages,
                             const wn_learn_options *opts, wn_fastce **out,
                             wn_learn_check *checks, wn_diag *diag) {
  wn_err err = WN_OK;
  /* The same check 1 as ETDM learning (learn.h): pages of another layout
   * would add their blocks' paths to P. */
  const wn_dom_page *used[WN_LEARN_MAX_PAGES];
  size_t n_used = 0;
  *out = NULL;
  if ((err = wn_learn_check_pages(pages, n_pages, opts, checks, used, &n_used, diag)))
    return err;
  return wn_learn_fastce(used, n_used, out, diag);
}
