/*
 * site/inspect.c: what the dump tool needs from a store (winnow-dump, modelled
 * on LMDB's mdb_stat and mdb_dump): usage, a check of every record, a
 * portable snapshot (export/import), and the template as a person reads it.
 *
 * The store hands records over as it encodes them (store.h, "raw
 * records"); this file decides what a good record is (the record decodes
 * AND its template decodes) and what a snapshot file looks like.
 */
#include "site/site_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

/* ---- one record, all the way ------------------------------------------------ */

/* A record is good if the store decodes it and the template it holds
 * decodes: that is what a detector will need. *rec_out (may be NULL)
 * receives the decoded record. */
static wn_err wn_dump_check_record(const void *bytes, size_t len, wn_store_record **rec_out,
                                   wn_diag *diag) {
  wn_store_record *rec = NULL;
  wn_template *tpl = NULL;
  wn_fastce *fce = NULL;
  wn_err err = wn_store_record_decode(bytes, len, &rec, diag);
  if (err)
    goto out;
  wn_diag inner;
  wn_diag_clear(&inner);
  err = wn_site_decode_template(rec, &tpl, &fce, &inner);
  if (err) {
    wn_diag_set(diag, err, "template: %s", wn_diag_message(&inner, err));
    goto out;
  }
  if (rec_out) {
    *rec_out = rec;
    rec = NULL;
  }
out:
  wn_template_free(tpl);
  wn_fastce_free(fce);
  wn_store_record_free(rec);
  return err;
}

/* Damaged records found inside a read transaction, reported after it. */
typedef struct wn_dump_bad {
  char site[WN_SITE_MAX + 1];
  wn_err err;
  char message[sizeof(((wn_diag *)0)->msg)];
} wn_dump_bad;

typedef struct wn_dump_bads {
  wn_dump_bad *items;
  size_t n, alloc;
  int oom;
} wn_dump_bads;

static void wn_dump_bads_add(wn_dump_bads *b, const char *site, wn_err err, const wn_diag *d) {
  if (b->n == b->alloc) {
    size_t alloc = b->alloc ? 2 * b->alloc : 16;
    wn_dump_bad *items = realloc(b->items, alloc * sizeof *items);
    if (!items) {
      b->oom = 1;
      return;
    }
    b->items = items;
    b->alloc = alloc;
  }
  wn_dump_bad *x = &b->items[b->n++];
  snprintf(x->site, sizeof x->site, "%s", site);
  x->err = err;
  snprintf(x->message, sizeof x->message, "%s", wn_diag_message(d, err));
}

static void wn_dump_bads_report(const wn_dump_bads *b, wn_record_fn fn, void *ctx) {
  for (size_t i = 0; fn && i < b->n; i++)
    fn(b->items[i].site, b->items[i].err, b->items[i].message, ctx);
}

/* ---- usage and verify ---------------------------------------------------------- */

typedef struct wn_usage_ctx {
  wn_store_usage *u;
  wn_dump_bads bads; /* verify only */
  int collect;
} wn_usage_ctx;

static int wn_usage_record(const char *site, const void *record, size_t record_len,
                           const void *counters, size_t counters_len, void *arg) {
  (void)counters;
  (void)counters_len;
  wn_usage_ctx *c = arg;
  wn_store_usage *u = c->u;
  wn_store_record *rec = NULL;
  wn_diag d;
  wn_diag_clear(&d);
  u->records++;
  u->record_bytes += record_len;
  wn_err err = wn_dump_check_record(record, record_len, &rec, &d);
  if (err) {
    u->damaged++;
    if (c->collect)
      wn_dump_bads_add(&c->bads, site, err, &d);
    /* A damaged record may still say its version (it follows the magic). */
    const unsigned char *b = record;
    if (record_len >= 8 && memcmp(b, "WNSR", 4) == 0) {
      uint32_t v = (uint32_t)b[4] | (uint32_t)b[5] << 8 | (uint32_t)b[6] << 16 |
                   (uint32_t)b[7] << 24;
      u->by_version[v < 7 ? v : 7]++;
    }
    return 0;
  }
  u->by_version[rec->format_version < 7 ? rec->format_version : 7]++;
  size_t k = 0;
  while (k < u->n_algorithms && strcmp(u->algorithms[k].name, rec->algorithm) != 0)
    k++;
  const size_t cap = sizeof u->algorithms / sizeof u->algorithms[0];
  if (k == u->n_algorithms && k < cap) {
    snprintf(u->algorithms[k].name, sizeof u->algorithms[k].name, "%s",
             k + 1 == cap ? "other" : rec->algorithm);
    u->n_algorithms++;
  }
  if (k == cap)
    k = cap - 1;
  u->algorithms[k].records++;
  wn_store_record_free(rec);
  return 0;
}

wn_err wn_store_usage_get(wn_store *store, wn_store_usage *out, wn_diag *diag) {
  if (!store || !out)
    return wn_diag_set(diag, WN_EINVAL, "usage needs a store");
  memset(out, 0, sizeof *out);
  wn_store_env env;
  wn_err err = wn_store_env_get(store, &env, diag);
  if (err)
    return err;
  out->path = env.path;
  out->file_bytes = env.file_bytes;
  out->map_bytes = env.map_bytes;
  out->page_bytes = env.page_bytes;
  out->pages_used = env.pages_used;
  out->depth = env.depth;
  out->counters = env.counter_entries;
  wn_usage_ctx c = {.u = out};
  return wn_store_raw_each(store, wn_usage_record, &c, diag);
}

wn_err wn_store_verify(wn_store *store, wn_record_fn fn, void *ctx, uint64_t *n_records,
                       uint64_t *n_damaged, wn_diag *diag) {
  if (!store)
    return wn_diag_set(diag, WN_EINVAL, "verify needs a store");
  wn_store_usage u;
  memset(&u, 0, sizeof u);
  wn_usage_ctx c = {.u = &u, .collect = 1};
  wn_err err = wn_store_raw_each(store, wn_usage_record, &c, diag);
  if (!err && c.bads.oom)
    err = wn_diag_set(diag, WN_ENOMEM, "out of memory listing damaged records");
  if (!err) {
    wn_dump_bads_report(&c.bads, fn, ctx);
    if (n_records)
      *n_records = u.records;
    if (n_damaged)
      *n_damaged = u.damaged;
  }
  free(c.bads.items);
  return err;
}

/* ---- export / import ------------------------------------------------------------
 *
 * Snapshot file, version 1, little-endian, no padding:
 *   "WNDUMP\r\n"  8 bytes magic (the CR LF shows a text-mode transfer that
 *                 mangled the file, as PNG's signature does)
 *   u32 version   WN_EXPORT_VERSION
 *   u32 records
 *   i64 created   Unix seconds
 *   per record:   u32 site length (<= WN_SITE_MAX), the name (no NUL)
 *                 u64 record length, the record as the store encodes it
 *                 u32 counters length (0 or the counters' size), the bytes
 *   u64 checksum  64-bit FNV-1a (wn_hash_bytes) of every byte before it
 * A reader checks the magic and the version first (a later version may
 * change everything after it), then the checksum, then every length
 * against what remains. */
#define WN_EXPORT_MAGIC "WNDUMP\r\n"
#define WN_EXPORT_MAGIC_LEN 8u
#define WN_EXPORT_HEADER_LEN (WN_EXPORT_MAGIC_LEN + 4u + 4u + 8u)

static void wn_le_put(unsigned char *p, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; i++)
    p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t wn_le_get(const unsigned char *p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++)
    v |= (uint64_t)p[i] << (8 * i);
  return v;
}

static wn_err wn_buf_le(wn_buf *b, uint64_t v, size_t n) {
  unsigned char x[8];
  wn_le_put(x, v, n);
  return wn_buf_append(b, x, n);
}

typedef struct wn_export_ctx {
  wn_buf *out;
  const char *const *sites;
  size_t n_sites;
  uint8_t *found;
  uint32_t written;
  wn_dump_bads bads;
  wn_err err;
} wn_export_ctx;

static int wn_export_record(const char *site, const void *record, size_t record_len,
                            const void *counters, size_t counters_len, void *arg) {
  wn_export_ctx *c = arg;
  if (c->n_sites > 0) {
    size_t k = 0;
    while (k < c->n_sites && strcmp(c->sites[k], site) != 0)
      k++;
    if (k == c->n_sites)
      return 0;
    c->found[k] = 1;
  }
  wn_diag d;
  wn_diag_clear(&d);
  wn_err err = wn_dump_check_record(record, record_len, NULL, &d);
  if (err) {
    wn_dump_bads_add(&c->bads, site, err, &d);
    return 0;
  }
  /* Counters that do not decode are advisory (store.c starts them afresh
   * too): they are left behind, the template is not. */
  if (counters_len > 0 && wn_store_counters_check(counters, counters_len) != 0)
    counters_len = 0;
  const size_t site_len = strlen(site);
  if ((err = wn_buf_le(c->out, site_len, 4)) || (err = wn_buf_append(c->out, site, site_len)) ||
      (err = wn_buf_le(c->out, record_len, 8)) ||
      (err = wn_buf_append(c->out, record, record_len)) ||
      (err = wn_buf_le(c->out, counters_len, 4)) ||
      (counters_len > 0 && (err = wn_buf_append(c->out, counters, counters_len)))) {
    c->err = err;
    return 1;
  }
  c->written++;
  return 0;
}

/* Writes bytes to path by way of a temporary file beside it and a rename:
 * a reader never sees half a snapshot. */
static wn_err wn_write_file_atomic(const char *path, const void *bytes, size_t len,
                                   wn_diag *diag) {
  char tmp[4096];
  int k = snprintf(tmp, sizeof tmp, "%s.tmp", path);
  if (k < 0 || (size_t)k >= sizeof tmp)
    return wn_diag_set(diag, WN_EINVAL, "export: path is too long: %s", path);
  FILE *f = fopen(tmp, "wb");
  if (!f)
    return wn_diag_set(diag, WN_EIO, "export: cannot create %s: %s", tmp, strerror(errno));
  int bad = fwrite(bytes, 1, len, f) != len;
  bad |= fclose(f) != 0;
  if (bad || rename(tmp, path) != 0) {
    int e = errno;
    remove(tmp);
    return wn_diag_set(diag, WN_EIO, "export: cannot write %s: %s", path, strerror(e));
  }
  return WN_OK;
}

wn_err wn_store_export(wn_store *store, const char *path, const char *const *sites,
                       size_t n_sites, wn_record_fn fn, void *ctx, uint64_t *n_written,
                       wn_diag *diag) {
  wn_err err = WN_OK;
  wn_buf out;
  wn_buf_init(&out, WN_EXPORT_MAX_BYTES);
  wn_export_ctx c = {.out = &out, .sites = sites, .n_sites = n_sites};
  if (!store || !path || (n_sites > 0 && !sites))
    return wn_diag_set(diag, WN_EINVAL, "export needs a store and a file");
  for (size_t k = 0; k < n_sites; k++)
    if ((err = wn_site_check(sites[k], diag)))
      return err;
  c.found = calloc(n_sites + 1, 1);
  unsigned char header[WN_EXPORT_HEADER_LEN];
  memcpy(header, WN_EXPORT_MAGIC, WN_EXPORT_MAGIC_LEN);
  wn_le_put(header + 8, WN_EXPORT_VERSION, 4);
  wn_le_put(header + 12, 0, 4); /* the record count, set below */
  wn_le_put(header + 16, (uint64_t)time(NULL), 8);
  if (!c.found || wn_buf_append(&out, header, sizeof header)) {
    err = wn_diag_set(diag, WN_ENOMEM, "export: out of memory");
    goto out;
  }
  if ((err = wn_store_raw_each(store, wn_export_record, &c, diag)))
    goto out;
  if (c.err) {
    err = wn_diag_set(diag, c.err, "export: %s",
                      c.err == WN_ETOOBIG ? "the snapshot would pass its 1 GiB cap"
                                          : "out of memory");
    goto out;
  }
  if (c.bads.oom) {
    err = wn_diag_set(diag, WN_ENOMEM, "export: out of memory");
    goto out;
  }
  for (size_t k = 0; k < n_sites; k++)
    if (!c.found[k]) {
      err = wn_diag_set(diag, WN_ENOTEMPLATE, "no template for site %s", sites[k]);
      goto out;
    }
  wn_le_put((unsigned char *)out.data + 12, c.written, 4);
  if ((err = wn_buf_le(&out, wn_hash_bytes(WN_HASH_SEED, out.data, out.len), 8))) {
    err = wn_diag_set(diag, err, "export: out of memory");
    goto out;
  }
  if ((err = wn_write_file_atomic(path, out.data, out.len, diag)))
    goto out;
  wn_dump_bads_report(&c.bads, fn, ctx);
  if (n_written)
    *n_written = c.written;
out:
  free(c.found);
  free(c.bads.items);
  wn_buf_free(&out);
  return err;
}

static int wn_cmp_name(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* import and merge: merge writes a record only over an older one. */
static wn_err wn_import_file(wn_store *store, const char *path, int newer_only, wn_import_fn fn,
                             void *ctx, uint64_t *n_imported, wn_diag *diag) {
  wn_err err = WN_OK;
  char *file = NULL;
  size_t len = 0;
  wn_store_raw *items = NULL;
  char(*names)[WN_SITE_MAX + 1] = NULL;
  uint64_t *generations = NULL;
  uint8_t *replaced = NULL;
  const char **order = NULL;
  if (!store || !path)
    return wn_diag_set(diag, WN_EINVAL, "import needs a store and a file");
  if ((err = wn_file_read(path, WN_EXPORT_MAX_BYTES, &file, &len, diag)))
    return err;
  const unsigned char *b = (const unsigned char *)file;
  if (len < WN_EXPORT_MAGIC_LEN + 4 || memcmp(b, WN_EXPORT_MAGIC, WN_EXPORT_MAGIC_LEN) != 0) {
    err = wn_diag_set(diag, WN_ECORRUPT, "import: %s is not a winnow snapshot (no WNDUMP magic)",
                      path);
    goto out;
  }
  uint32_t version = (uint32_t)wn_le_get(b + 8, 4);
  if (version != WN_EXPORT_VERSION) {
    err = wn_diag_set(diag, WN_EVERSION, "import: %s is snapshot version %u; this winnow reads %u",
                      path, version, WN_EXPORT_VERSION);
    goto out;
  }
  if (len < WN_EXPORT_HEADER_LEN + 8 ||
      wn_le_get(b + len - 8, 8) != wn_hash_bytes(WN_HASH_SEED, b, len - 8)) {
    err = wn_diag_set(diag, WN_ECORRUPT, "import: %s is truncated or damaged (checksum)", path);
    goto out;
  }
  const uint32_t n = (uint32_t)wn_le_get(b + 12, 4);
  /* Each record takes at least 16 bytes of lengths: bounds n by the file. */
  if ((uint64_t)n * 16u > len) {
    err = wn_diag_set(diag, WN_ECORRUPT, "import: %s claims %u records in %zu bytes", path, n,
                      len);
    goto out;
  }
  items = calloc((size_t)n + 1, sizeof *items);
  names = calloc((size_t)n + 1, sizeof *names);
  generations = calloc((size_t)n + 1, sizeof *generations);
  replaced = calloc((size_t)n + 1, 1);
  if (!items || !names || !generations || !replaced) {
    err = wn_diag_set(diag, WN_ENOMEM, "import: out of memory");
    goto out;
  }
  size_t at = WN_EXPORT_HEADER_LEN;
  const size_t end = len - 8;
  for (uint32_t i = 0; i < n; i++) {
    wn_diag inner;
    wn_diag_clear(&inner);
    uint64_t site_len = 0, rec_len = 0, cnt_len = 0;
    if (end - at < 4 || (site_len = wn_le_get(b + at, 4)) > WN_SITE_MAX ||
        end - at - 4 < site_len + 8)
      goto truncated;
    memcpy(names[i], b + at + 4, (size_t)site_len);
    names[i][site_len] = '\0';
    at += 4 + (size_t)site_len;
    rec_len = wn_le_get(b + at, 8);
    if (rec_len > end - at - 8 || end - at - 8 - rec_len < 4)
      goto truncated;
    items[i].record = b + at + 8;
    items[i].record_len = (size_t)rec_len;
    at += 8 + (size_t)rec_len;
    cnt_len = wn_le_get(b + at, 4);
    if (cnt_len > end - at - 4)
      goto truncated;
    items[i].counters = cnt_len ? b + at + 4 : NULL;
    items[i].counters_len = (size_t)cnt_len;
    at += 4 + (size_t)cnt_len;
    items[i].site = names[i];
    items[i].newer_only = newer_only;
    if ((err = wn_site_check(names[i], &inner))) {
      err = wn_diag_set(diag, err, "import: record %u: %s", i + 1, wn_diag_message(&inner, err));
      goto out;
    }
    wn_store_record *rec = NULL;
    if ((err = wn_dump_check_record(items[i].record, items[i].record_len, &rec, &inner))) {
      wn_diag_set(diag, err, "import: record %u (site %s): %s; nothing imported", i + 1,
                  names[i], wn_diag_message(&inner, err));
      goto out;
    }
    generations[i] = rec->generation;
    wn_store_record_free(rec);
    continue;
  truncated:
    err = wn_diag_set(diag, WN_ECORRUPT, "import: record %u of %s is truncated", i + 1, path);
    goto out;
  }
  if (at != end) {
    err = wn_diag_set(diag, WN_ECORRUPT, "import: %zu bytes after the last record of %s",
                      end - at, path);
    goto out;
  }
  /* A site twice would make "replaced" ambiguous: sorted, neighbours tell. */
  order = malloc(((size_t)n + 1) * sizeof *order);
  if (!order) {
    err = wn_diag_set(diag, WN_ENOMEM, "import: out of memory");
    goto out;
  }
  for (uint32_t i = 0; i < n; i++)
    order[i] = names[i];
  qsort(order, n, sizeof *order, wn_cmp_name);
  for (uint32_t i = 1; i < n; i++)
    if (strcmp(order[i - 1], order[i]) == 0) {
      err = wn_diag_set(diag, WN_ECORRUPT, "import: site %s appears twice in %s", order[i], path);
      goto out;
    }
  if ((err = wn_store_raw_put(store, items, n, replaced, diag)))
    goto out;
  uint64_t written = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (replaced[i] == 2)
      continue; /* merge: the store's was as new */
    written++;
    if (fn)
      fn(names[i], replaced[i], generations[i], ctx);
  }
  if (n_imported)
    *n_imported = written;
out:
  free(order);
  free(items);
  free(names);
  free(generations);
  free(replaced);
  free(file);
  return err;
}

/* ---- the template as a person reads it ----------------------------------------- */

/* Deeper than any page may nest (WN_PAGE_MAX_DEPTH) is a damaged template. */
#define WN_WALK_MAX_DEPTH (WN_PAGE_MAX_DEPTH + 1u)

/* What the site learned about template node t (its content places). */
static wn_place wn_walk_place(const wn_template *tpl, uint32_t t) {
  const wn_template_places *pl = wn_template_get_places(tpl);
  if (pl->content == t)
    return pl->whole ? WN_PLACE_CONTENT_WHOLE : WN_PLACE_CONTENT;
  for (uint32_t k = 0; k < pl->n_skip; k++)
    if (pl->skip[k] == t)
      return WN_PLACE_SKIP;
  for (uint32_t k = 0; k < pl->n_aside; k++)
    if (pl->aside[k] == t)
      return WN_PLACE_ASIDE;
  return WN_PLACE_NONE;
}

static wn_err wn_walk_page(const wn_template *tpl, const wn_dom_page *page, uint32_t max_depth,
                           wn_template_fn fn, void *ctx, wn_template_summary *sum,
                           wn_diag *diag) {
  uint32_t count = 0, tcount = 0, pairs = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  const wn_template_node *tnodes = wn_template_nodes(tpl, &tcount);
  uint32_t *map = malloc(((size_t)count + 1) * sizeof *map);
  if (!map)
    return wn_diag_set(diag, WN_ENOMEM, "out of memory for %u nodes", count);
  wn_err err = wn_template_match(tpl, page, map, &pairs);
  if (err) {
    free(map);
    return wn_diag_set(diag, err, "cannot map the page onto the template");
  }
  sum->unpaired = tcount - pairs;
  for (uint32_t i = 0; i < count;) {
    const wn_dom_node *n = &nodes[i];
    const int paired = map[i] != WN_DOM_NONE;
    if (max_depth == 0 || n->depth < max_depth) {
      wn_template_entry e = {
          .depth = n->depth,
          .page_specific = !paired,
          .is_text = n->tag == WN_TAG_TEXT,
          .count = paired ? tnodes[map[i]].count : 0,
          .signature = paired ? tnodes[map[i]].sig : 0,
          .tag = n->name,
          .id = n->id,
          .cls = n->cls,
          .text = n->tag == WN_TAG_TEXT ? n->text : NULL,
          .nodes = n->end - i,
          .text_bytes = n->text_len,
          .place = paired ? wn_walk_place(tpl, map[i]) : WN_PLACE_NONE,
      };
      if (fn(&e, ctx) != 0)
        break;
    }
    /* An unpaired node's whole subtree is unpaired (the ETDM pairs a node
     * only under a paired parent): one entry says it. */
    i = paired ? i + 1 : n->end;
  }
  free(map);
  return WN_OK;
}

static wn_err wn_walk_template(const wn_template *tpl, uint32_t max_depth, wn_template_fn fn,
                               void *ctx, wn_diag *diag) {
  uint32_t tcount = 0;
  const wn_template_node *t = wn_template_nodes(tpl, &tcount);
  uint32_t *depth = malloc(((size_t)tcount + 1) * sizeof *depth);
  if (!depth)
    return wn_diag_set(diag, WN_ENOMEM, "out of memory for %u template nodes", tcount);
  wn_err err = WN_OK;
  for (uint32_t i = 0; i < tcount; i++) {
    /* Pre-order: a parent comes before its children. */
    depth[i] = t[i].parent == WN_DOM_NONE || t[i].parent >= i ? 0 : depth[t[i].parent] + 1;
    if (depth[i] > WN_WALK_MAX_DEPTH) {
      err = wn_diag_set(diag, WN_ECORRUPT, "template nests deeper than %u", WN_WALK_MAX_DEPTH);
      break;
    }
    if (max_depth && depth[i] >= max_depth)
      continue;
    wn_template_entry e = {.depth = depth[i],
                           .is_text = t[i].is_text,
                           .count = t[i].count,
                           .signature = t[i].sig,
                           .nodes = t[i].end - i,
                           .place = wn_walk_place(tpl, i)};
    if (fn(&e, ctx) != 0)
      break;
  }
  free(depth);
  return err;
}

/* The name before 0.4 (deprecated, removed in 0.5.0). */
wn_err wn_site_template_walk(wn_store *store, const char *site, const char *page_path,
                             uint32_t max_depth, wn_template_fn fn, void *ctx,
                             wn_template_summary *summary, wn_diag *diag) {
  return wn_site_template_each(store, site, page_path, max_depth, fn, ctx, summary, diag);
}

wn_err wn_site_template_each(wn_store *store, const char *site, const char *page_path,
                             uint32_t max_depth, wn_template_fn fn, void *ctx,
                             wn_template_summary *summary, wn_diag *diag) {
  wn_err err = WN_OK;
  wn_store_record *rec = NULL;
  wn_template *tpl = NULL;
  wn_dom_page *page = NULL;
  char *bytes = NULL;
  size_t len = 0;
  wn_template_summary sum;
  memset(&sum, 0, sizeof sum);
  if (!store || !fn)
    return wn_diag_set(diag, WN_EINVAL, "template walk needs a store and a callback");
  if ((err = wn_site_record_get(store, site, &rec, diag)))
    goto out;
  wn_diag inner;
  wn_diag_clear(&inner);
  if ((err = wn_template_decode(rec->template_bytes, rec->template_len, &tpl, &inner))) {
    wn_diag_set(diag, err, "template of site %s: %s", site, wn_diag_message(&inner, err));
    goto out;
  }
  /* The page that names the nodes: the caller's, else the key page when
   * it is a file we can still read (a crawled site's key page is a URL,
   * and a detector does not fetch). */
  const char *named = page_path;
  if (!named && !rec->params.from_url)
    named = rec->key_page ? rec->key_page : rec->n_pages > 0 ? rec->pages[0].name : NULL;
  if (named && named[0]) {
    wn_diag_clear(&inner);
    err = wn_file_read(named, WN_PAGE_MAX_BYTES, &bytes, &len, &inner);
    if (!err)
      err = wn_dom_parse(bytes, len, NULL, &page, &inner);
    if (err && page_path) {
      wn_diag_set(diag, err, "%s", wn_diag_message(&inner, err));
      goto out;
    }
    err = WN_OK; /* the key page is gone: the walk is unnamed */
  }
  /* A site of several layouts: the one the page fits (policy.c), else the
   * first (the key page's). */
  const wn_template *shown = tpl;
  if (page && wn_template_layout_count(tpl) > 1) {
    uint32_t k = 0;
    double fit = 0;
    int placed = 0;
    if ((err = wn_detect_layout(page, tpl, &k, &fit, &placed, NULL, diag)))
      goto out;
    shown = wn_template_layout(tpl, k);
  }
  wn_template_stats ts;
  wn_template_get_stats(shown, &ts);
  sum.nodes = ts.nodes;
  sum.text_nodes = ts.text_nodes;
  sum.sample_pages = ts.sample_pages;
  sum.min_count = ts.min_count;
  sum.selector = wn_detect_site_selector(shown);
  if (page) {
    sum.named = 1;
    snprintf(sum.named_from, sizeof sum.named_from, "%s", named);
    err = wn_walk_page(shown, page, max_depth, fn, ctx, &sum, diag);
  } else {
    err = wn_walk_template(shown, max_depth, fn, ctx, diag);
  }
out:
  if (summary)
    *summary = sum;
  wn_dom_free(page);
  free(bytes);
  wn_template_free(tpl);
  wn_store_record_free(rec);
  return err;
}

typedef struct wn_json_walk {
  json_t *root_children;
  json_t *stack[WN_WALK_MAX_DEPTH + 2]; /* children array of the last entry at each depth */
  int oom;
  int bad;
} wn_json_walk;

static int wn_json_set(json_t *obj, const char *key, json_t *value) {
  return value ? json_object_set_new(obj, key, value) : -1;
}

static int wn_json_entry(const wn_template_entry *e, void *ctx) {
  wn_json_walk *w = ctx;
  if (e->depth > WN_WALK_MAX_DEPTH) {
    w->bad = 1;
    return 1;
  }
  json_t *parent = e->depth == 0 ? w->root_children : w->stack[e->depth - 1];
  if (!parent) {
    w->bad = 1;
    return 1;
  }
  json_t *o = json_object();
  int rc = o ? 0 : -1;
  if (!rc && e->tag)
    rc = wn_json_set(o, "tag", json_string(e->tag));
  if (!rc && e->id)
    rc = wn_json_set(o, "id", json_string(e->id));
  if (!rc && e->cls)
    rc = wn_json_set(o, "class", json_string(e->cls));
  if (!rc && e->text)
    rc = wn_json_set(o, "text", json_string(e->text));
  if (!rc)
    rc = e->page_specific ? wn_json_set(o, "page_specific", json_true())
                          : wn_json_set(o, "count", json_integer(e->count));
  if (!rc && !e->tag)
    rc = wn_json_set(o, "kind", json_string(e->is_text ? "text" : "element"));
  if (!rc && e->place != WN_PLACE_NONE)
    rc = wn_json_set(o, "place", json_string(e->place == WN_PLACE_CONTENT         ? "content"
                                               : e->place == WN_PLACE_CONTENT_WHOLE ? "content-whole"
                                               : e->place == WN_PLACE_ASIDE         ? "aside"
                                                                                    : "skip"));
  if (!rc)
    rc = wn_json_set(o, "nodes", json_integer(e->nodes));
  if (!rc && e->tag)
    rc = wn_json_set(o, "text_bytes", json_integer(e->text_bytes));
  json_t *children = NULL;
  if (!rc && !e->page_specific && !e->is_text && e->nodes > 1) {
    children = json_array();
    rc = children ? json_object_set_new(o, "children", children) : -1;
  }
  if (!rc)
    rc = json_array_append_new(parent, o);
  else
    json_decref(o);
  if (rc) {
    w->oom = 1;
    return 1;
  }
  w->stack[e->depth] = children;
  return 0;
}

wn_err wn_site_template_json(wn_store *store, const char *site, const char *page_path,
                             uint32_t max_depth, unsigned flags, char **out, wn_diag *diag) {
  *out = NULL;
  wn_json_walk w;
  memset(&w, 0, sizeof w);
  wn_template_summary sum;
  json_t *doc = json_object();
  w.root_children = json_array();
  if (!doc || !w.root_children) {
    json_decref(doc);
    json_decref(w.root_children);
    return wn_diag_set(diag, WN_ENOMEM, "out of memory");
  }
  wn_err err = wn_site_template_each(store, site, page_path, max_depth, wn_json_entry, &w, &sum,
                                     diag);
  if (!err && w.oom)
    err = wn_diag_set(diag, WN_ENOMEM, "out of memory");
  if (!err && w.bad)
    err = wn_diag_set(diag, WN_ECORRUPT, "template of site %s is not a tree", site);
  if (err)
    goto out;
  int rc = wn_json_set(doc, "site", json_string(site));
  rc |= wn_json_set(doc, "nodes", json_integer(sum.nodes));
  rc |= wn_json_set(doc, "text_nodes", json_integer(sum.text_nodes));
  rc |= wn_json_set(doc, "sample_pages", json_integer(sum.sample_pages));
  rc |= wn_json_set(doc, "min_count", json_integer(sum.min_count));
  rc |= wn_json_set(doc, "selector", json_string(wn_detect_selector_name(sum.selector)));
  rc |= wn_json_set(doc, "named_from", sum.named ? json_string(sum.named_from) : json_null());
  rc |= wn_json_set(doc, "unpaired", json_integer(sum.unpaired));
  rc |= json_object_set(doc, "tree", w.root_children);
  char *s = rc ? NULL
               : json_dumps(doc, (flags & WN_JSON_PRETTY ? JSON_INDENT(2) : JSON_COMPACT) |
                                     JSON_PRESERVE_ORDER);
  if (!s) {
    err = wn_diag_set(diag, WN_ENOMEM, "out of memory");
    goto out;
  }
  *out = s;
out:
  json_decref(w.root_children);
  json_decref(doc);
  return err;
}

/* ---- a FastCE template (winnow-dump show) ---------------------------------- */

wn_err wn_site_fastce_show(wn_store *store, const char *site, unsigned flags, char **out,
                           wn_diag *diag) {
  wn_err err = WN_OK;
  wn_store_record *rec = NULL;
  wn_template *tpl = NULL;
  wn_fastce *fce = NULL;
  json_t *root = NULL;
  wn_buf b;
  wn_buf_init(&b, WN_STORE_MAX_TEMPLATE);
  *out = NULL;
  if (!store)
    return wn_diag_set(diag, WN_EINVAL, "show needs a store");
  if ((err = wn_site_record_get(store, site, &rec, diag)))
    goto out;
  wn_diag inner;
  wn_diag_clear(&inner);
  if ((err = wn_site_decode_template(rec, &tpl, &fce, &inner))) {
    wn_diag_set(diag, err, "template of site %s: %s", site, wn_diag_message(&inner, err));
    goto out;
  }
  if (!fce) {
    err = wn_diag_set(diag, WN_EINVAL, "site %s was learned with %s, not fastce", site,
                      rec->algorithm);
    goto out;
  }
  const uint32_t np = wn_fastce_path_count(fce), ns = wn_fastce_stored_count(fce);
  const uint32_t pages = wn_fastce_sample_pages(fce);
  if (flags & WN_JSON_PRETTY) {
    root = json_object();
    json_t *paths = json_array(), *stored = json_array();
    if (!root || !paths || !stored ||
        json_object_set_new(root, "site", json_string(site)) ||
        json_object_set_new(root, "algorithm", json_string("fastce")) ||
        json_object_set_new(root, "sample_pages", json_integer(pages)) ||
        json_object_set_new(root, "site_rules",
                            json_boolean(wn_fastce_flags(fce) & WN_FASTCE_FLAG_SITE)) ||
        json_object_set_new(root, "paths", paths) || json_object_set_new(root, "stored", stored)) {
      err = wn_diag_set(diag, WN_ENOMEM, "out of memory");
      goto out;
    }
    for (uint32_t i = 0; i < np && !err; i++) {
      uint32_t n = 0;
      const char *p = wn_fastce_path(fce, i, &n);
      if (json_array_append_new(paths, json_pack("{s:s, s:i, s:I}", "path", p, "pages", (int)n,
                                                 "text_bytes",
                                                 (json_int_t)wn_fastce_path_text(fce, i))))
        err = WN_ENOMEM;
    }
    for (uint32_t k = 0; k < ns && !err; k++) {
      wn_fastce_stored st = wn_fastce_stored_get(fce, k);
      if (json_array_append_new(stored, json_pack("{s:s, s:i, s:s}", "path",
                                                  wn_fastce_path(fce, st.path, NULL), "features",
                                                  (int)st.n_terms, "text", st.sample)))
        err = WN_ENOMEM;
    }
    char *s = err ? NULL : json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (!s) {
      err = wn_diag_set(diag, WN_ENOMEM, "out of memory (or text not UTF-8)");
      goto out;
    }
    *out = s;
    goto out;
  }
  err = wn_buf_printf(&b,
                      "site %s: fastce, %u content paths, %u stored non-content blocks, from %u "
                      "sample pages%s\n"
                      "content paths (n/N: sample pages with a content block on the path; "
                      "bytes of content text on it per sample page):\n",
                      site, np, ns, pages,
                      wn_fastce_flags(fce) & WN_FASTCE_FLAG_SITE
                          ? "; site-level rules (paths the single-page method reads as "
                            "main content, link rule)"
                          : "; the paper's rules only");
  for (uint32_t i = 0; i < np && !err; i++) {
    uint32_t n = 0;
    const char *p = wn_fastce_path(fce, i, &n);
    err = wn_buf_printf(&b, "  %s  %u/%u  %u B\n", p, n, pages, wn_fastce_path_text(fce, i));
  }
  if (!err)
    err = wn_buf_printf(&b, "stored non-content blocks (their path, features, first words):\n");
  for (uint32_t k = 0; k < ns && !err; k++) {
    wn_fastce_stored st = wn_fastce_stored_get(fce, k);
    err = wn_buf_printf(&b, "  %s  %u  \"%s\"\n", wn_fastce_path(fce, st.path, NULL), st.n_terms,
                        st.sample);
  }
  if (err) {
    wn_diag_set(diag, err, "show: %s", wn_strerror(err));
    goto out;
  }
  *out = wn_buf_take(&b, NULL);
  if (!*out)
    *out = calloc(1, 1);
  if (!*out)
    err = wn_diag_set(diag, WN_ENOMEM, "out of memory");
out:
  json_decref(root);
  wn_buf_free(&b);
  wn_template_free(tpl);
  wn_fastce_free(fce);
  wn_store_record_free(rec);
  return err;
}

wn_err wn_store_import(wn_store *store, const char *path, wn_import_fn fn, void *ctx,
                       uint64_t *n_imported, wn_diag *diag) {
  return wn_import_file(store, path, 0, fn, ctx, n_imported, diag);
}

wn_err wn_store_merge(wn_store *store, const char *path, wn_import_fn fn, void *ctx,
                      uint64_t *n_merged, wn_diag *diag) {
  return wn_import_file(store, path, 1, fn, ctx, n_merged, diag);
}
