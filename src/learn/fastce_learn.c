/*
 * learn/fastce_learn.c: the preparation phase of FastContentExtractor
 * (the FastContentExtractor paper, Sec. III, Fig. 4).
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
 *     (Unless learning as the paper states it: content paths that the
 *     single-page method does not read as main content on the samples
 *     are taken out; wn_fce_filter_paths.)
 *  3. The template: the paths of the content blocks (P), with their
 *     content text per sample page, and the non-content blocks whose path
 *     is in P (one per group of similar ones), so that detection can tell
 *     them apart (Sec. III).
 */
#include "detect/detect.h"
#include "learn/learn.h"
#include "template/fastce_template.h"

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

/* A term of a compared block, for the path group's inverted index. */
typedef struct wn_fce_posting {
  uint32_t hash;
  uint32_t count;
  uint32_t cand; /* index into the group's compared blocks */
} wn_fce_posting;

static int wn_fce_posting_cmp(const void *a, const void *b) {
  const wn_fce_posting *x = a, *y = b;
  if (x->hash != y->hash)
    return x->hash < y->hash ? -1 : 1;
  return x->cand < y->cand ? -1 : x->cand > y->cand;
}

/* ContentExtractor's test (Sec. II) on every block of refs (sorted by
 * path, page, block): recurs[page][block] = 1 when a similar block
 * (cosine > 0.9) occurs on at least need other pages, among the first
 * WN_FASTCE_MAX_COMPARE blocks of each other page on the same path.
 *
 * The paper compares a block with the others one pair at a time; a
 * manual's pages hold thousands of blocks on one path, and pairwise merges
 * of their term lists were most of learning's time (docs/fastce.md,
 * "Learning speed"). Here the compared blocks of a path are indexed by term,
 * and each block's dot products with all of them are summed in one pass
 * over its terms' postings: the same integer dot products, so the same
 * cosines and the same decisions as the pairwise loop. */
static wn_err wn_fce_mark_recurring(const wn_fastce_blocks *bl, const wn_fce_ref *refs,
                                    size_t n_refs, size_t n_pages, size_t need, uint8_t **recurs,
                                    wn_diag *diag) {
  wn_err err = WN_OK;
  wn_fce_posting *post = NULL;
  uint32_t *cand = NULL;       /* compared blocks: index into refs */
  uint64_t *dot = NULL;        /* per compared block, for the block at hand */
  uint32_t *touched = NULL;    /* compared blocks whose dot is not 0 */
  uint32_t *hash_first = NULL; /* distinct hashes: first posting of each */
  size_t *page_mark = NULL;    /* per page: the last block that found it */
  page_mark = calloc(n_pages, sizeof *page_mark);
  if (!page_mark) {
    err = WN_ENOMEM;
    goto out;
  }
  size_t stamp = 0;
  for (size_t g = 0; g < n_refs;) {
    size_t end = g;
    while (end < n_refs && refs[end].path == refs[g].path)
      end++;
    /* The compared blocks: the first WN_FASTCE_MAX_COMPARE of each page. */
    size_t n_cand = 0, n_post = 0;
    for (size_t j = g, run = 0; j < end; j++) {
      run = j > g && refs[j].page == refs[j - 1].page ? run + 1 : 0;
      if (run < WN_FASTCE_MAX_COMPARE) {
        n_cand++;
        n_post += bl[refs[j].page].blocks[refs[j].block].n_terms;
      }
    }
    free(cand);
    free(dot);
    free(touched);
    free(post);
    free(hash_first);
    cand = malloc(n_cand * sizeof *cand);
    dot = calloc(n_cand, sizeof *dot);
    touched = malloc(n_cand * sizeof *touched);
    post = malloc(n_post * sizeof *post);
    hash_first = malloc((n_post + 1) * sizeof *hash_first);
    if (!cand || !dot || !touched || !post || !hash_first) {
      err = WN_ENOMEM;
      goto out;
    }
    n_cand = 0;
    for (size_t j = g, run = 0; j < end; j++) {
      run = j > g && refs[j].page == refs[j - 1].page ? run + 1 : 0;
      if (run < WN_FASTCE_MAX_COMPARE)
        cand[n_cand++] = (uint32_t)j;
    }
    size_t k = 0;
    for (size_t c = 0; c < n_cand; c++) {
      const wn_fce_ref *r = &refs[cand[c]];
      const wn_fastce_block *bj = &bl[r->page].blocks[r->block];
      const wn_fastce_term *tj = bl[r->page].terms + bj->term_first;
      for (uint32_t t = 0; t < bj->n_terms; t++)
        post[k++] = (wn_fce_posting){tj[t].hash, tj[t].count, (uint32_t)c};
    }
    qsort(post, n_post, sizeof *post, wn_fce_posting_cmp);
    size_t n_hash = 0;
    for (size_t q = 0; q < n_post; q++)
      if (q == 0 || post[q].hash != post[q - 1].hash)
        hash_first[n_hash++] = (uint32_t)q;
    hash_first[n_hash] = (uint32_t)n_post;
    for (size_t i = g; i < end; i++) {
      const wn_fastce_block *bi = &bl[refs[i].page].blocks[refs[i].block];
      const wn_fastce_term *ti = bl[refs[i].page].terms + bi->term_first;
      size_t n_touched = 0;
      for (uint32_t t = 0; t < bi->n_terms; t++) {
        /* The term's postings: binary search over the distinct hashes. */
        size_t lo = 0, hi = n_hash;
        while (lo < hi) {
          size_t mid = lo + (hi - lo) / 2;
          if (post[hash_first[mid]].hash < ti[t].hash)
            lo = mid + 1;
          else
            hi = mid;
        }
        if (lo == n_hash || post[hash_first[lo]].hash != ti[t].hash)
          continue;
        for (uint32_t q = hash_first[lo]; q < hash_first[lo + 1]; q++) {
          uint32_t c = post[q].cand;
          if (dot[c] == 0)
            touched[n_touched++] = c;
          dot[c] += (uint64_t)ti[t].count * post[q].count;
        }
      }
      stamp++;
      size_t pages_like = 0;
      for (size_t u = 0; u < n_touched; u++) {
        uint32_t c = touched[u];
        const wn_fce_ref *r = &refs[cand[c]];
        const wn_fastce_block *bj = &bl[r->page].blocks[r->block];
        if (r->page != refs[i].page && page_mark[r->page] != stamp &&
            (double)dot[c] / (bi->norm * bj->norm) > WN_FASTCE_SIMILARITY) {
          page_mark[r->page] = stamp;
          pages_like++;
        }
        dot[c] = 0;
      }
      recurs[refs[i].page][refs[i].block] = pages_like >= need;
    }
    g = end;
  }
out:
  if (err)
    wn_diag_set(diag, err, "fastce: out of memory");
  free(post);
  free(cand);
  free(dot);
  free(touched);
  free(hash_first);
  free(page_mark);
  return err;
}

/* Share of a content path's text (bytes, over the samples) that the
 * single-page method must keep for the path to stay in P; see
 * wn_fce_filter_paths. */
#define WN_FASTCE_PATH_MAIN_SHARE 0.5

/* Site-level knowledge on top of ContentExtractor's test (docs/fastce.md,
 * "Beyond the paper"): a block whose vector recurs on no
 * other page is content to ContentExtractor, and so are a list of related
 * stories, a teaser box or a comment count that differ from page to page.
 * The single-page method (DANAg) reads each sample page on its own; a
 * content path on which, over all samples, it keeps less than
 * WN_FASTCE_PATH_MAIN_SHARE of the content blocks' text is taken out of P
 * (its blocks marked 2 in recurs: not content, not stored either, as the
 * path is not in P). A judgement per path, made at learning time: the
 * template stays a set of paths and detection stays FastCE's. */
static wn_err wn_fce_filter_paths(const wn_dom_page *const *pages, size_t n_pages,
                                  const wn_fastce_blocks *bl, const wn_fce_ref *refs,
                                  size_t n_refs, uint8_t **recurs, wn_arena *arena,
                                  wn_diag *diag) {
  wn_err err = WN_OK;
  uint32_t **kept = wn_arena_calloc(arena, n_pages, sizeof *kept);
  if (!kept)
    return wn_diag_set(diag, WN_ENOMEM, "fastce: out of memory");
  for (size_t p = 0; p < n_pages; p++) {
    kept[p] = wn_arena_calloc(arena, bl[p].n ? bl[p].n : 1, sizeof **kept);
    if (!kept[p])
      return wn_diag_set(diag, WN_ENOMEM, "fastce: out of memory");
    wn_detect_result *res = NULL;
    if ((err = wn_detect_single(pages[p], WN_SINGLE_DANAG, &res, diag)))
      return err;
    uint32_t count = 0;
    const wn_dom_node *nodes = wn_dom_nodes(pages[p], &count);
    const uint8_t *keep = wn_detect_keep_flags(res);
    for (uint32_t i = 0; i < count; i++)
      if (keep[i] && nodes[i].tag == WN_TAG_TEXT)
        kept[p][bl[p].block_of[i]] += nodes[i].own_text_len;
    wn_detect_result_free(res);
  }
  /* DANAg is the judge only on a site where it keeps most (more than
   * WN_FASTCE_PATH_MAIN_SHARE) of what ContentExtractor calls content over
   * all the samples: there it reads the site as FastCE does, and where it
   * leaves a path out, the path is a box beside the story. Elsewhere (a
   * manual: DANAg leaves its code blocks and lists out, keeping a third)
   * its verdict per path says nothing, and no path is taken out. */
  uint64_t all_text = 0, all_main = 0;
  for (size_t q = 0; q < n_refs; q++) {
    const wn_fce_ref *r = &refs[q];
    if (recurs[r->page][r->block])
      continue;
    all_text += bl[r->page].blocks[r->block].text_len;
    all_main += kept[r->page][r->block];
  }
  if ((double)all_main < WN_FASTCE_PATH_MAIN_SHARE * (double)all_text)
    return WN_OK;
  for (size_t g = 0; g < n_refs;) {
    size_t end = g;
    uint64_t text = 0, in_main = 0;
    for (; end < n_refs && refs[end].path == refs[g].path; end++) {
      const wn_fce_ref *r = &refs[end];
      if (recurs[r->page][r->block])
        continue;
      text += bl[r->page].blocks[r->block].text_len;
      in_main += kept[r->page][r->block];
    }
    if (text > 0 && (double)in_main < WN_FASTCE_PATH_MAIN_SHARE * (double)text)
      for (size_t i = g; i < end; i++)
        if (!recurs[refs[i].page][refs[i].block])
          recurs[refs[i].page][refs[i].block] = 2;
    g = end;
  }
  return WN_OK;
}

/* The preparation phase; site_filter: wn_fce_filter_paths after
 * ContentExtractor's test (0: the paper's algorithm as stated). */
static wn_err wn_fce_learn(const wn_dom_page *const *pages, size_t n_pages, int site_filter,
                           wn_fastce **out, wn_diag *diag) {
  wn_err err = WN_OK;
  wn_arena *arena = NULL;
  wn_fastce_blocks *bl = NULL;
  wn_fce_ref *refs = NULL;
  uint8_t **recurs = NULL; /* per page, per block: 1 non-content; 2 content to the
                              test, but on a path the site filter took out */
  uint32_t *last_page = NULL;
  uint64_t *path_text = NULL;   /* per path: content text bytes over the samples */
  uint32_t *stored_last = NULL; /* per path: the last block stored on it */
  uint32_t *stored_prev = NULL; /* per stored block: the one before it on its path */
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
  stored_last = malloc(WN_FASTCE_MAX_PATHS * sizeof *stored_last);
  path_text = calloc(WN_FASTCE_MAX_PATHS, sizeof *path_text);
  stored_prev = malloc(WN_FASTCE_MAX_STORED * sizeof *stored_prev);
  if (!arena || !bl || !recurs || !f || !last_page || !stored_last || !stored_prev ||
      !path_text) {
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
   * sample pages). Chosen on half of the sites (docs/fastce.md): a half
   * or all of them kept more of each site's boilerplate. */
  size_t need = (n_pages - 1 + 3) / 4;
  if (need < 1)
    need = 1;
  if ((err = wn_fce_mark_recurring(bl, refs, n_refs, n_pages, need, recurs, diag)))
    goto out;
  if (site_filter &&
      (err = wn_fce_filter_paths(pages, n_pages, bl, refs, n_refs, recurs, arena, diag)))
    goto out;

  /* Step 3a: the content paths, each counted once per page. */
  for (uint32_t i = 0; i < WN_FASTCE_MAX_PATHS; i++) {
    last_page[i] = UINT32_MAX;
    stored_last[i] = WN_DOM_NONE;
  }
  for (size_t p = 0; p < n_pages; p++) {
    for (uint32_t b = 0; b < bl[p].n; b++) {
      const wn_fastce_block *blk = &bl[p].blocks[b];
      if (blk->n_terms == 0 || recurs[p][b])
        continue;
      uint32_t idx = wn_fastce_find(f, blk->path);
      if (idx != WN_DOM_NONE && last_page[idx] == p) {
        path_text[idx] += blk->text_len;
        continue;
      }
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
      path_text[idx] += blk->text_len;
    }
  }
  /* The content text each path holds per sample page: what detection
   * weighs the page's fit by (detect/fastce_match.c). */
  for (uint32_t i = 0; i < wn_fastce_path_count(f); i++) {
    uint64_t mean = (path_text[i] + n_pages / 2) / n_pages;
    wn_fastce_set_path_text(f, i, mean > UINT32_MAX ? UINT32_MAX : (uint32_t)mean);
  }
  /* Step 3b: non-content blocks on a content path, one per group of
   * similar ones. */
  for (size_t p = 0; p < n_pages; p++) {
    for (uint32_t b = 0; b < bl[p].n; b++) {
      const wn_fastce_block *blk = &bl[p].blocks[b];
      if (blk->n_terms == 0 || recurs[p][b] != 1)
        continue;
      uint32_t idx = wn_fastce_find(f, blk->path);
      if (idx == WN_DOM_NONE)
        continue;
      const wn_fastce_term *t = bl[p].terms + blk->term_first;
      int seen = 0;
      /* Only the blocks stored on the same path (a list per path). */
      for (uint32_t s = stored_last[idx]; s != WN_DOM_NONE && !seen; s = stored_prev[s]) {
        wn_fastce_stored st = wn_fastce_stored_get(f, s);
        seen = wn_fastce_cosine_n(t, blk->n_terms, blk->norm, st.terms, st.n_terms, st.norm) >
               WN_FASTCE_SIMILARITY;
      }
      if (seen)
        continue;
      char sample[WN_FASTCE_MAX_SAMPLE + 1];
      size_t slen = wn_fce_sample(pages[p], &bl[p], b, sample, sizeof sample);
      const uint32_t s = wn_fastce_stored_count(f);
      err = wn_fastce_add_stored(f, idx, t, blk->n_terms, sample, slen);
      if (err == WN_ETOOMANY) {
        err = WN_OK; /* past the cap: the first blocks found are kept */
        break;
      }
      if (err) {
        wn_diag_set(diag, err, "fastce: out of memory");
        goto out;
      }
      stored_prev[s] = stored_last[idx];
      stored_last[idx] = s;
    }
  }
  wn_fastce_set_flags(f, site_filter ? WN_FASTCE_FLAG_SITE : 0);
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
  free(stored_last);
  free(stored_prev);
  free(path_text);
  wn_arena_destroy(arena);
  return err;
}

wn_err wn_learn_fastce(const wn_dom_page *const *pages, size_t n_pages, wn_fastce **out,
                       wn_diag *diag) {
  return wn_fce_learn(pages, n_pages, 0, out, diag);
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
  /* The selector means nothing else to FastCE: "paper" learns as the paper
   * states, any other adds the site-level filter. */
  const int site_filter = !opts || opts->selector != WN_SELECT_PAPER;
  return wn_fce_learn(used, n_used, site_filter, out, diag);
}
