/*
 * template/fastce_record.c: the block partition of FastCE, the cosine test, and
 * the path template with its record (template/fastce_template.h).
 */
#include "template/fastce_template.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

/* ---- blocks ------------------------------------------------------------------ */

int wn_fastce_is_block(const wn_dom_node *node) {
  switch (node->tag) {
  case WN_TAG_HTML: case WN_TAG_BODY:
  case WN_TAG_TABLE: case WN_TAG_TR: case WN_TAG_HR:
  case WN_TAG_UL: case WN_TAG_OL: case WN_TAG_DL:
  case WN_TAG_P: case WN_TAG_DIV: case WN_TAG_PRE: case WN_TAG_BLOCKQUOTE:
  case WN_TAG_H1: case WN_TAG_H2: case WN_TAG_H3: case WN_TAG_H4: case WN_TAG_H5: case WN_TAG_H6:
  case WN_TAG_FORM: case WN_TAG_ARTICLE: case WN_TAG_SECTION: case WN_TAG_MAIN:
  case WN_TAG_ASIDE: case WN_TAG_NAV: case WN_TAG_HEADER: case WN_TAG_FOOTER: case WN_TAG_FIGURE:
    return 1;
  default:
    return 0;
  }
}

/* A (block, feature) pair before the pairs are sorted into vectors. */
typedef struct wn_fastce_pair {
  uint32_t block;
  uint32_t hash;
} wn_fastce_pair;

static int wn_pair_cmp(const void *a, const void *b) {
  const wn_fastce_pair *x = a, *y = b;
  if (x->block != y->block)
    return x->block < y->block ? -1 : 1;
  return x->hash < y->hash ? -1 : x->hash > y->hash;
}

static int wn_word_byte(unsigned char c) {
  return wn_ascii_alnum(c) || c >= 0x80;
}

/* Terms: runs of letters and digits (any non-ASCII byte counts as a
 * letter), ASCII lower-cased. Term hashes stay clear of the two feature
 * dimensions. */
static uint32_t wn_term_hash(const char *s, size_t len) {
  char low[64];
  size_t n = len < sizeof low ? len : sizeof low;
  for (size_t i = 0; i < n; i++)
    low[i] = wn_ascii_lower(s[i]);
  uint64_t h = wn_hash_bytes(WN_HASH_SEED, low, n);
  uint32_t f = (uint32_t)(h ^ (h >> 32));
  return f < 16 ? f + 16 : f;
}

typedef struct wn_pairs {
  wn_fastce_pair *p;
  size_t n, cap;
} wn_pairs;

static int wn_pairs_add(wn_pairs *ps, uint32_t block, uint32_t hash) {
  if (ps->n == ps->cap) {
    size_t cap = ps->cap ? ps->cap * 2 : 1024;
    wn_fastce_pair *g = realloc(ps->p, cap * sizeof *g);
    if (!g)
      return 0;
    ps->p = g;
    ps->cap = cap;
  }
  ps->p[ps->n].block = block;
  ps->p[ps->n].hash = hash;
  ps->n++;
  return 1;
}

static wn_err wn_fastce_partition_impl(const wn_dom_page *page, const wn_fastce *only,
                                       wn_arena *arena, wn_fastce_blocks *out, wn_diag *diag);

wn_err wn_fastce_partition(const wn_dom_page *page, wn_arena *arena, wn_fastce_blocks *out,
                           wn_diag *diag) {
  return wn_fastce_partition_impl(page, NULL, arena, out, diag);
}

wn_err wn_fastce_partition_for(const wn_dom_page *page, const wn_fastce *fce, wn_arena *arena,
                               wn_fastce_blocks *out, wn_diag *diag) {
  return wn_fastce_partition_impl(page, fce, arena, out, diag);
}

static wn_err wn_fastce_partition_impl(const wn_dom_page *page, const wn_fastce *only,
                                       wn_arena *arena, wn_fastce_blocks *out, wn_diag *diag) {
  wn_err err = WN_OK;
  wn_pairs ps = {0};
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  memset(out, 0, sizeof *out);
  uint32_t n_blocks = 0;
  for (uint32_t i = 0; i < count; i++)
    n_blocks += i == 0 || (nodes[i].tag != WN_TAG_TEXT && wn_fastce_is_block(&nodes[i]));
  if (n_blocks > WN_FASTCE_MAX_BLOCKS)
    return wn_diag_set(diag, WN_ETOOMANY, "fastce: %u blocks on the page (cap %u)", n_blocks,
                       WN_FASTCE_MAX_BLOCKS);
  out->blocks = wn_arena_calloc(arena, n_blocks ? n_blocks : 1, sizeof *out->blocks);
  out->block_of = wn_arena_alloc(arena, (size_t)(count ? count : 1) * sizeof *out->block_of);
  uint8_t *want = wn_arena_calloc(arena, n_blocks ? n_blocks : 1, 1);
  if (!out->blocks || !out->block_of || !want)
    return wn_diag_set(diag, WN_ENOMEM, "fastce: out of memory for %u blocks", n_blocks);
  /* Pre-order: a node's parent was seen before it, so its block is known;
   * a block element opens a block inside its parent's block. */
  uint32_t b = 0;
  for (uint32_t i = 0; i < count; i++) {
    const wn_dom_node *nd = &nodes[i];
    uint32_t pb = i == 0 ? WN_DOM_NONE : out->block_of[nd->parent];
    if (i == 0 || (nd->tag != WN_TAG_TEXT && wn_fastce_is_block(nd))) {
      wn_fastce_block *blk = &out->blocks[b];
      blk->node = i;
      blk->parent = pb;
      if (pb == WN_DOM_NONE) {
        blk->path = wn_hash_bytes(WN_HASH_SEED, nd->name, strlen(nd->name));
      } else {
        blk->path = wn_hash_bytes(out->blocks[pb].path, ".", 1);
        blk->path = wn_hash_bytes(blk->path, nd->name, strlen(nd->name));
        out->blocks[pb].n_sub++;
      }
      want[b] = !only || wn_fastce_stored_on(only, wn_fastce_find(only, blk->path)) > 0;
      out->block_of[i] = b++;
      continue;
    }
    out->block_of[i] = pb;
    int ok = 1;
    if (!want[pb]) {
      if (nd->tag == WN_TAG_TEXT && nd->text)
        out->blocks[pb].text_len += nd->own_text_len;
    } else if (nd->tag == WN_TAG_A)
      ok = wn_pairs_add(&ps, pb, WN_FASTCE_FEATURE_LINK);
    else if (nd->tag == WN_TAG_IMG)
      ok = wn_pairs_add(&ps, pb, WN_FASTCE_FEATURE_IMAGE);
    else if (nd->tag == WN_TAG_TEXT && nd->text) {
      out->blocks[pb].text_len += nd->own_text_len;
      const char *s = nd->text;
      size_t len = nd->own_text_len;
      for (size_t k = 0; k < len && ok;) {
        while (k < len && !wn_word_byte((unsigned char)s[k]))
          k++;
        size_t start = k;
        while (k < len && wn_word_byte((unsigned char)s[k]))
          k++;
        if (k > start)
          ok = wn_pairs_add(&ps, pb, wn_term_hash(s + start, k - start));
      }
    }
    if (!ok) {
      err = wn_diag_set(diag, WN_ENOMEM, "fastce: out of memory for the features");
      goto out;
    }
  }
  out->n = b;
  /* Features to vectors: sort the pairs by block, then term, and count. */
  if (ps.n)
    qsort(ps.p, ps.n, sizeof *ps.p, wn_pair_cmp);
  out->terms = wn_arena_alloc(arena, (ps.n ? ps.n : 1) * sizeof *out->terms);
  if (!out->terms) {
    err = wn_diag_set(diag, WN_ENOMEM, "fastce: out of memory for the features");
    goto out;
  }
  uint32_t t = 0;
  for (size_t k = 0; k < ps.n;) {
    wn_fastce_block *blk = &out->blocks[ps.p[k].block];
    blk->term_first = t;
    uint32_t blk_id = ps.p[k].block;
    while (k < ps.n && ps.p[k].block == blk_id) {
      uint32_t h = ps.p[k].hash, c = 0;
      while (k < ps.n && ps.p[k].block == blk_id && ps.p[k].hash == h) {
        c++;
        k++;
      }
      /* Past the cap a block's further terms are left out of its vector:
       * a block of more than 512 distinct terms is text, and its first
       * 512 say so. */
      if (blk->n_terms < WN_FASTCE_MAX_TERMS) {
        out->terms[t].hash = h;
        out->terms[t].count = c;
        t++;
        blk->n_terms++;
      }
    }
    blk->norm = wn_fastce_norm(out->terms + blk->term_first, blk->n_terms);
  }
out:
  free(ps.p);
  return err;
}

wn_err wn_fastce_path_string(const wn_dom_page *page, const wn_fastce_blocks *blocks, uint32_t b,
                             wn_buf *out) {
  const wn_dom_node *nodes = wn_dom_nodes(page, NULL);
  /* The chain from b up, then written root first. */
  uint32_t chain[256];
  uint32_t n = 0;
  size_t bytes = 0;
  for (uint32_t x = b; x != WN_DOM_NONE; x = blocks->blocks[x].parent) {
    if (n == sizeof chain / sizeof chain[0])
      return WN_ETOOBIG;
    chain[n++] = x;
    bytes += strlen(nodes[blocks->blocks[x].node].name) + 1;
  }
  if (bytes - 1 > WN_FASTCE_MAX_PATH_BYTES)
    return WN_ETOOBIG;
  wn_err err = WN_OK;
  for (uint32_t k = n; k-- > 0 && !err;) {
    if (k + 1 < n)
      err = wn_buf_append_char(out, '.');
    if (!err)
      err = wn_buf_append_str(out, nodes[blocks->blocks[chain[k]].node].name);
  }
  return err;
}

double wn_fastce_norm(const wn_fastce_term *a, uint32_t na) {
  double s = 0;
  for (uint32_t i = 0; i < na; i++)
    s += (double)a[i].count * a[i].count;
  return sqrt(s);
}

/* The dot product of two term vectors sorted by hash. */
static double wn_fastce_dot(const wn_fastce_term *a, uint32_t na, const wn_fastce_term *b,
                            uint32_t nb) {
  double dot = 0;
  uint32_t i = 0, j = 0;
  while (i < na && j < nb) {
    if (a[i].hash == b[j].hash)
      dot += (double)a[i++].count * b[j++].count;
    else if (a[i].hash < b[j].hash)
      i++;
    else
      j++;
  }
  return dot;
}

double wn_fastce_cosine_n(const wn_fastce_term *a, uint32_t na, double norm_a,
                          const wn_fastce_term *b, uint32_t nb, double norm_b) {
  if (norm_a == 0 || norm_b == 0)
    return 0.0;
  return wn_fastce_dot(a, na, b, nb) / (norm_a * norm_b);
}

double wn_fastce_cosine(const wn_fastce_term *a, uint32_t na, const wn_fastce_term *b,
                        uint32_t nb) {
  double aa = 0, bb = 0;
  for (uint32_t i = 0; i < na; i++)
    aa += (double)a[i].count * a[i].count;
  for (uint32_t j = 0; j < nb; j++)
    bb += (double)b[j].count * b[j].count;
  if (aa == 0 || bb == 0)
    return 0.0;
  return wn_fastce_dot(a, na, b, nb) / sqrt(aa * bb);
}

/* ---- the template ------------------------------------------------------------ */

#define WN_FASTCE_TABLE_MIN 64u

struct wn_fastce {
  uint32_t sample_pages;
  uint32_t n_paths, cap_paths;
  char **paths;          /* NUL-terminated, malloc'd each */
  uint64_t *hash;
  uint8_t *pages;
  uint32_t *text;        /* per path: content text bytes per sample page (format 2) */
  uint32_t flags;        /* WN_FASTCE_FLAG_* (format 2) */
  uint32_t n_stored, cap_stored;
  wn_fastce_stored *stored; /* terms and sample malloc'd each */
  uint32_t *stored_first;   /* after finish: per path, n_paths + 1 entries */
  uint32_t *table;          /* open addressing over hash: path index + 1, 0 empty */
  uint32_t table_size;      /* a power of two */
};

wn_fastce *wn_fastce_new(uint32_t sample_pages) {
  wn_fastce *f = calloc(1, sizeof *f);
  if (f)
    f->sample_pages = sample_pages;
  return f;
}

void wn_fastce_free(wn_fastce *f) {
  if (!f)
    return;
  for (uint32_t i = 0; i < f->n_paths; i++)
    free(f->paths[i]);
  for (uint32_t i = 0; i < f->n_stored; i++) {
    free((void *)f->stored[i].terms);
    free((void *)f->stored[i].sample);
  }
  free(f->paths);
  free(f->hash);
  free(f->pages);
  free(f->text);
  free(f->stored);
  free(f->stored_first);
  free(f->table);
  free(f);
}

static int wn_fastce_table_build(wn_fastce *f) {
  uint32_t size = WN_FASTCE_TABLE_MIN;
  while (size < 2 * f->n_paths + 2)
    size *= 2;
  uint32_t *t = calloc(size, sizeof *t);
  if (!t)
    return 0;
  for (uint32_t i = 0; i < f->n_paths; i++) {
    uint32_t s = (uint32_t)f->hash[i] & (size - 1);
    while (t[s])
      s = (s + 1) & (size - 1);
    t[s] = i + 1;
  }
  free(f->table);
  f->table = t;
  f->table_size = size;
  return 1;
}

uint32_t wn_fastce_find(const wn_fastce *f, uint64_t h) {
  if (!f->table)
    return WN_DOM_NONE;
  for (uint32_t s = (uint32_t)h & (f->table_size - 1); f->table[s];
       s = (s + 1) & (f->table_size - 1))
    if (f->hash[f->table[s] - 1] == h)
      return f->table[s] - 1;
  return WN_DOM_NONE;
}

uint32_t wn_fastce_add_path(wn_fastce *f, const char *path, size_t len) {
  if (len == 0 || len > WN_FASTCE_MAX_PATH_BYTES)
    return WN_DOM_NONE;
  uint64_t h = wn_hash_bytes(WN_HASH_SEED, path, len);
  uint32_t i = wn_fastce_find(f, h);
  if (i != WN_DOM_NONE) {
    if (f->pages[i] < 255)
      f->pages[i]++;
    return i;
  }
  if (f->n_paths >= WN_FASTCE_MAX_PATHS)
    return WN_DOM_NONE;
  if (f->n_paths == f->cap_paths) {
    uint32_t cap = f->cap_paths ? f->cap_paths * 2 : 64;
    char **p = realloc(f->paths, cap * sizeof *p);
    if (!p)
      return WN_DOM_NONE;
    f->paths = p;
    uint64_t *hs = realloc(f->hash, cap * sizeof *hs);
    if (!hs)
      return WN_DOM_NONE;
    f->hash = hs;
    uint8_t *pg = realloc(f->pages, cap);
    if (!pg)
      return WN_DOM_NONE;
    f->pages = pg;
    uint32_t *tx = realloc(f->text, cap * sizeof *tx);
    if (!tx)
      return WN_DOM_NONE;
    f->text = tx;
    f->cap_paths = cap;
  }
  char *s = malloc(len + 1);
  if (!s)
    return WN_DOM_NONE;
  memcpy(s, path, len);
  s[len] = '\0';
  i = f->n_paths++;
  f->paths[i] = s;
  f->hash[i] = h;
  f->pages[i] = 1;
  f->text[i] = 0;
  if (2 * f->n_paths + 2 > f->table_size && !wn_fastce_table_build(f)) {
    f->n_paths--;
    free(s);
    return WN_DOM_NONE;
  }
  if (f->table_size && f->table) {
    /* The rebuilt table already holds it; else insert. */
    if (wn_fastce_find(f, h) == WN_DOM_NONE) {
      uint32_t slot = (uint32_t)h & (f->table_size - 1);
      while (f->table[slot])
        slot = (slot + 1) & (f->table_size - 1);
      f->table[slot] = i + 1;
    }
  }
  return i;
}

wn_err wn_fastce_add_stored(wn_fastce *f, uint32_t p, const wn_fastce_term *terms,
                            uint32_t n_terms, const char *sample, size_t sample_len) {
  if (p >= f->n_paths)
    return WN_EINVAL;
  if (f->n_stored >= WN_FASTCE_MAX_STORED)
    return WN_ETOOMANY;
  if (n_terms > WN_FASTCE_MAX_TERMS)
    n_terms = WN_FASTCE_MAX_TERMS;
  if (sample_len > WN_FASTCE_MAX_SAMPLE)
    sample_len = WN_FASTCE_MAX_SAMPLE;
  if (f->n_stored == f->cap_stored) {
    uint32_t cap = f->cap_stored ? f->cap_stored * 2 : 32;
    wn_fastce_stored *g = realloc(f->stored, cap * sizeof *g);
    if (!g)
      return WN_ENOMEM;
    f->stored = g;
    f->cap_stored = cap;
  }
  wn_fastce_term *t = malloc((n_terms ? n_terms : 1) * sizeof *t);
  char *s = malloc(sample_len + 1);
  if (!t || !s) {
    free(t);
    free(s);
    return WN_ENOMEM;
  }
  if (n_terms)
    memcpy(t, terms, n_terms * sizeof *t);
  if (sample_len)
    memcpy(s, sample, sample_len);
  s[sample_len] = '\0';
  f->stored[f->n_stored++] = (wn_fastce_stored){p, t, n_terms, s, wn_fastce_norm(t, n_terms)};
  return WN_OK;
}

/* finish's sort: paths by string, carrying their index. */
typedef struct wn_path_sort {
  const char *s;
  uint32_t old;
} wn_path_sort;

static int wn_path_sort_cmp(const void *a, const void *b) {
  return strcmp(((const wn_path_sort *)a)->s, ((const wn_path_sort *)b)->s);
}

wn_err wn_fastce_finish(wn_fastce *f, wn_diag *diag) {
  wn_err err = WN_OK;
  wn_path_sort *ps = calloc(f->n_paths ? f->n_paths : 1, sizeof *ps);
  uint32_t *remap = calloc(f->n_paths ? f->n_paths : 1, sizeof *remap);
  char **paths = calloc(f->n_paths ? f->n_paths : 1, sizeof *paths);
  uint64_t *hash = calloc(f->n_paths ? f->n_paths : 1, sizeof *hash);
  uint8_t *pages = calloc(f->n_paths ? f->n_paths : 1, 1);
  uint32_t *text = calloc(f->n_paths ? f->n_paths : 1, sizeof *text);
  uint32_t *first = calloc((size_t)f->n_paths + 1, sizeof *first);
  if (!ps || !remap || !paths || !hash || !pages || !text || !first) {
    err = wn_diag_set(diag, WN_ENOMEM, "fastce: out of memory");
    goto out;
  }
  for (uint32_t i = 0; i < f->n_paths; i++)
    ps[i] = (wn_path_sort){f->paths[i], i};
  if (f->n_paths)
    qsort(ps, f->n_paths, sizeof *ps, wn_path_sort_cmp);
  for (uint32_t i = 0; i < f->n_paths; i++) {
    remap[ps[i].old] = i;
    paths[i] = f->paths[ps[i].old];
    hash[i] = f->hash[ps[i].old];
    pages[i] = f->pages[ps[i].old];
    text[i] = f->text[ps[i].old];
  }
  for (uint32_t k = 0; k < f->n_stored; k++)
    f->stored[k].path = remap[f->stored[k].path];
  /* Stored blocks grouped by path, in the order they came within a path
   * (a counting sort: stable, so a decoded record encodes the same). */
  for (uint32_t k = 0; k < f->n_stored; k++)
    first[f->stored[k].path + 1]++;
  for (uint32_t i = 0; i < f->n_paths; i++)
    first[i + 1] += first[i];
  if (f->n_stored) {
    wn_fastce_stored *sorted = malloc(f->n_stored * sizeof *sorted);
    uint32_t *next = malloc((size_t)(f->n_paths ? f->n_paths : 1) * sizeof *next);
    if (!sorted || !next) {
      free(sorted);
      free(next);
      err = wn_diag_set(diag, WN_ENOMEM, "fastce: out of memory");
      goto out;
    }
    memcpy(next, first, (size_t)f->n_paths * sizeof *next);
    for (uint32_t k = 0; k < f->n_stored; k++)
      sorted[next[f->stored[k].path]++] = f->stored[k];
    free(f->stored);
    f->stored = sorted;
    f->cap_stored = f->n_stored;
    free(next);
  }
  free(f->paths);
  free(f->hash);
  free(f->pages);
  free(f->text);
  free(f->stored_first);
  f->paths = paths;
  f->hash = hash;
  f->pages = pages;
  f->text = text;
  f->stored_first = first;
  f->cap_paths = f->n_paths;
  paths = NULL;
  hash = NULL;
  pages = NULL;
  text = NULL;
  first = NULL;
  if (!wn_fastce_table_build(f))
    err = wn_diag_set(diag, WN_ENOMEM, "fastce: out of memory");
out:
  free(ps);
  free(remap);
  free(paths);
  free(hash);
  free(pages);
  free(text);
  free(first);
  return err;
}

uint32_t wn_fastce_path_count(const wn_fastce *f) { return f->n_paths; }
uint32_t wn_fastce_sample_pages(const wn_fastce *f) { return f->sample_pages; }
uint32_t wn_fastce_stored_count(const wn_fastce *f) { return f->n_stored; }

uint32_t wn_fastce_stored_on(const wn_fastce *f, uint32_t p) {
  return f->stored_first && p < f->n_paths ? f->stored_first[p + 1] - f->stored_first[p] : 0;
}

uint32_t wn_fastce_flags(const wn_fastce *f) { return f->flags; }

void wn_fastce_set_flags(wn_fastce *f, uint32_t flags) { f->flags = flags & WN_FASTCE_FLAGS_KNOWN; }

uint32_t wn_fastce_path_text(const wn_fastce *f, uint32_t i) {
  return i < f->n_paths ? f->text[i] : 0;
}

void wn_fastce_set_path_text(wn_fastce *f, uint32_t i, uint32_t bytes) {
  if (i < f->n_paths)
    f->text[i] = bytes;
}

const char *wn_fastce_path(const wn_fastce *f, uint32_t i, uint32_t *pages) {
  if (i >= f->n_paths)
    return NULL;
  if (pages)
    *pages = f->pages[i];
  return f->paths[i];
}

wn_fastce_stored wn_fastce_stored_get(const wn_fastce *f, uint32_t i) {
  wn_fastce_stored none = {WN_DOM_NONE, NULL, 0, "", 0.0};
  return i < f->n_stored ? f->stored[i] : none;
}

uint32_t wn_fastce_stored_like(const wn_fastce *f, uint32_t p, const wn_fastce_term *terms,
                               uint32_t n_terms, double norm) {
  if (!f->stored_first || p >= f->n_paths)
    return WN_DOM_NONE;
  for (uint32_t k = f->stored_first[p]; k < f->stored_first[p + 1]; k++)
    if (wn_fastce_cosine_n(terms, n_terms, norm, f->stored[k].terms, f->stored[k].n_terms,
                           f->stored[k].norm) > WN_FASTCE_SIMILARITY)
      return k;
  return WN_DOM_NONE;
}

int wn_fastce_is_stored(const wn_fastce *f, uint32_t p, const wn_fastce_term *terms,
                        uint32_t n_terms, double norm) {
  return wn_fastce_stored_like(f, p, terms, n_terms, norm) != WN_DOM_NONE;
}

/* ---- the record --------------------------------------------------------------- */

wn_err wn_fastce_encode(const wn_fastce *f, wn_buf *out, wn_diag *diag) {
  wn_err err;
  const size_t start = out->len;
  uint32_t sim = (uint32_t)(WN_FASTCE_SIMILARITY * 1000 + 0.5);
  unsigned char head[10] = {'W', 'N', 'F', 'C', (unsigned char)WN_FASTCE_FORMAT_VERSION,
                            (unsigned char)f->sample_pages, (unsigned char)(f->sample_pages >> 8),
                            (unsigned char)sim, (unsigned char)(sim >> 8), (unsigned char)f->flags};
  if (!f->stored_first)
    return wn_diag_set(diag, WN_EINVAL, "fastce: template not finished");
  if ((err = wn_buf_append(out, head, sizeof head)) || (err = wn_varint_put(out, f->n_paths)))
    goto out;
  for (uint32_t i = 0; i < f->n_paths; i++) {
    uint32_t len = (uint32_t)strlen(f->paths[i]);
    if ((err = wn_varint_put(out, len)) || (err = wn_buf_append(out, f->paths[i], len)) ||
        (err = wn_buf_append(out, &f->pages[i], 1)) || (err = wn_varint_put(out, f->text[i])))
      goto out;
  }
  if ((err = wn_varint_put(out, f->n_stored)))
    goto out;
  for (uint32_t k = 0; k < f->n_stored && !err; k++) {
    const wn_fastce_stored *s = &f->stored[k];
    if ((err = wn_varint_put(out, s->path)) || (err = wn_varint_put(out, s->n_terms)))
      goto out;
    for (uint32_t t = 0; t < s->n_terms && !err; t++)
      if (!(err = wn_le32_put(out, s->terms[t].hash)))
        err = wn_varint_put(out, s->terms[t].count);
    uint32_t slen = (uint32_t)strlen(s->sample);
    if (!err && !(err = wn_varint_put(out, slen)))
      err = wn_buf_append(out, s->sample, slen);
  }
  if (!err) {
    uLong crc = crc32(0L, (const Bytef *)out->data + start, (uInt)(out->len - start));
    err = wn_le32_put(out, (uint32_t)crc);
  }
out:
  if (err) {
    out->len = start;
    wn_diag_set(diag, err, "fastce: cannot encode the template: %s", wn_strerror(err));
  }
  return err;
}

static int wn_path_bytes_ok(const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i] < 0x21 || p[i] > 0x7e)
      return 0;
  return 1;
}

wn_err wn_fastce_decode(const void *bytes, size_t len, wn_fastce **out, wn_diag *diag) {
  wn_err err = WN_OK;
  wn_fastce *f = NULL;
  wn_fastce_term *terms = NULL;
  *out = NULL;
  if (!bytes || len < 9 + 4 || memcmp(bytes, "WNFC", 4) != 0)
    return wn_diag_set(diag, WN_ECORRUPT, "fastce: not a FastCE template (bad magic or %zu bytes)",
                       len);
  const unsigned char *b = bytes;
  /* Format 1 is format 2 without the per-path text bytes (read as 0). */
  if (b[4] != WN_FASTCE_FORMAT_VERSION && b[4] != 1)
    return wn_diag_set(diag, WN_EVERSION,
                       "fastce: format version %u is not supported (this build reads 1 and %u)",
                       b[4], WN_FASTCE_FORMAT_VERSION);
  const int has_text = b[4] >= 2;
  const size_t head = has_text ? 10 : 9; /* format 2 adds the flags byte */
  if (len < head + 4)
    return wn_diag_set(diag, WN_ECORRUPT, "fastce: %zu bytes is too short", len);
  if (has_text && (b[9] & ~WN_FASTCE_FLAGS_KNOWN))
    return wn_diag_set(diag, WN_ECORRUPT, "fastce: unknown flags 0x%02x", b[9]);
  uint32_t crc = wn_le32_get(b + len - 4);
  if ((uint32_t)crc32(0L, (const Bytef *)b, (uInt)(len - 4)) != crc)
    return wn_diag_set(diag, WN_ECORRUPT, "fastce: checksum mismatch");
  wn_reader r = {b + head, len - head - 4};
  f = wn_fastce_new((uint32_t)b[5] | ((uint32_t)b[6] << 8));
  if (!f)
    return wn_diag_set(diag, WN_ENOMEM, "fastce: out of memory");
  f->flags = has_text ? b[9] : 0;
  uint32_t n_paths = 0;
  /* A path takes 3 bytes at least: the count cannot claim more. */
  if (!wn_varint_get(&r, &n_paths) || n_paths > WN_FASTCE_MAX_PATHS || n_paths > r.left / 3) {
    err = wn_diag_set(diag, WN_ECORRUPT, "fastce: bad path count");
    goto out;
  }
  for (uint32_t i = 0; i < n_paths; i++) {
    uint32_t plen = 0;
    uint32_t text = 0;
    const unsigned char *p = NULL, *pg = NULL;
    if (!wn_varint_get(&r, &plen) || plen == 0 || plen > WN_FASTCE_MAX_PATH_BYTES ||
        !wn_reader_take(&r, plen, &p) || !wn_reader_take(&r, 1, &pg) ||
        !wn_path_bytes_ok(p, plen) || (has_text && !wn_varint_get(&r, &text))) {
      err = wn_diag_set(diag, WN_ECORRUPT, "fastce: bad path %u of %u", i, n_paths);
      goto out;
    }
    uint32_t before = f->n_paths;
    uint32_t idx = wn_fastce_add_path(f, (const char *)p, plen);
    if (idx == WN_DOM_NONE || f->n_paths != before + 1 ||
        (i > 0 && strcmp(f->paths[i - 1], f->paths[i]) >= 0)) {
      err = wn_diag_set(diag, idx == WN_DOM_NONE ? WN_ENOMEM : WN_ECORRUPT,
                        "fastce: path %u is out of order or repeated", i);
      goto out;
    }
    f->pages[idx] = *pg;
    f->text[idx] = text;
  }
  uint32_t n_stored = 0;
  if (!wn_varint_get(&r, &n_stored) || n_stored > WN_FASTCE_MAX_STORED || n_stored > r.left / 3) {
    err = wn_diag_set(diag, WN_ECORRUPT, "fastce: bad stored block count");
    goto out;
  }
  terms = malloc(WN_FASTCE_MAX_TERMS * sizeof *terms);
  if (!terms) {
    err = wn_diag_set(diag, WN_ENOMEM, "fastce: out of memory");
    goto out;
  }
  uint32_t last_path = 0;
  for (uint32_t k = 0; k < n_stored; k++) {
    uint32_t p = 0, nt = 0, slen = 0;
    if (!wn_varint_get(&r, &p) || p >= n_paths || p < last_path || !wn_varint_get(&r, &nt) ||
        nt > WN_FASTCE_MAX_TERMS) {
      err = wn_diag_set(diag, WN_ECORRUPT, "fastce: bad stored block %u", k);
      goto out;
    }
    last_path = p;
    for (uint32_t t = 0; t < nt; t++) {
      const unsigned char *h = NULL;
      uint32_t c = 0;
      if (!wn_reader_take(&r, 4, &h) || !wn_varint_get(&r, &c) || c == 0 ||
          (t > 0 && wn_le32_get(h) <= terms[t - 1].hash)) {
        err = wn_diag_set(diag, WN_ECORRUPT, "fastce: bad term %u of stored block %u", t, k);
        goto out;
      }
      terms[t].hash = wn_le32_get(h);
      terms[t].count = c;
    }
    const unsigned char *s = NULL;
    if (!wn_varint_get(&r, &slen) || slen > WN_FASTCE_MAX_SAMPLE || !wn_reader_take(&r, slen, &s) ||
        memchr(s, 0, slen)) {
      err = wn_diag_set(diag, WN_ECORRUPT, "fastce: bad sample of stored block %u", k);
      goto out;
    }
    if ((err = wn_fastce_add_stored(f, p, terms, nt, (const char *)s, slen))) {
      wn_diag_set(diag, err, "fastce: cannot keep stored block %u", k);
      goto out;
    }
  }
  if (r.left != 0) {
    err = wn_diag_set(diag, WN_ECORRUPT, "fastce: %zu trailing bytes", r.left);
    goto out;
  }
  /* Already in order: finish builds the per-path index (and keeps it). */
  if ((err = wn_fastce_finish(f, diag)))
    goto out;
  *out = f;
  f = NULL;
out:
  free(terms);
  wn_fastce_free(f);
  return err;
}
