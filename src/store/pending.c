/*
 * store/pending.c: pending samples, the pages of sites without a template
 * kept until a site has enough of them to learn from (the collector,
 * site/collect.c, writes and reads them). A crawl spreads a site's pages
 * over many files and hours; the site-level paper's n-SET (Sec. 2.1) is
 * gathered here across runs and restarts instead of within one input.
 *
 * Two databases. "pending", keyed by site name, one value per site:
 *
 *   "WNP1"  u64 tick  i64 last_seen  u32 n_pages
 *   per page: u16 name length, name, u16 URL length (0: none), URL,
 *             u8 charset length, charset, u32 page length,
 *             u32 compressed length, the page compressed (one zstd frame)
 *   u32 CRC-32 of everything before it
 *
 * and "pending_order", the same sites least recently seen first: key the
 * site's tick (8 bytes, big-endian) then its name, no value. Its first key,
 * eight zero bytes (no site has tick 0), holds the totals:
 *
 *   "WNPM"  u64 next tick  u64 sites  u64 pages  u64 bytes  u32 checksum
 *
 * A page is appended by copying the compressed pages already there (never
 * decompressed again) and compressing the new one: zstd at level 1, which
 * here compresses HTML 2.5 times as fast as zlib's fastest level and
 * smaller (docs/learning.md), since every page of a new site is kept. Bounds: pages per site, sites
 * and stored bytes in all; past them the least recently seen sites go
 * first, in the same transaction. A value that does not decode is dropped
 * when it is next written or evicted, and read as WN_ECORRUPT; totals that
 * do not decode are counted again from the values.
 */
#include "store/store.h"
#include "store/store_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>
#include <zstd.h>

#define WN_PENDING_MAGIC "WNP1"
#define WN_PENDING_META_MAGIC "WNPM"
#define WN_PENDING_HEAD 24u /* magic, tick, last_seen, n_pages */
#define WN_PENDING_META_LEN 40u
#define WN_PENDING_TICK_LEN 8u
#define WN_PENDING_CHARSET_CAP 64u

static const unsigned char wn_pending_meta_key[WN_PENDING_TICK_LEN] = {0};

/* An entry's checksum: CRC-32 (zlib's), not the records' byte-at-a-time
 * FNV: every page kept is checksummed as it is written. */
static uint32_t wn_pending_crc(const void *bytes, size_t len) {
  uLong crc = crc32(0L, Z_NULL, 0);
  const unsigned char *p = bytes;
  while (len > 0) {
    const uInt n = len > 0x40000000u ? 0x40000000u : (uInt)len;
    crc = crc32(crc, p, n);
    p += n;
    len -= n;
  }
  return (uint32_t)crc;
}

/* ---- the value ------------------------------------------------------------------ */

/* One page of a decoded value, borrowed from the value's bytes. */
typedef struct wn_pview {
  const unsigned char *name, *url, *charset, *z;
  size_t name_len, url_len, charset_len, z_len;
  uint32_t len;
  const unsigned char *start; /* the page's encoded bytes, to copy them on */
  size_t enc_len;
} wn_pview;

typedef struct wn_pvalue {
  uint64_t tick;
  int64_t last_seen;
  uint32_t n;
  wn_pview pages[WN_STORE_MAX_PAGES];
} wn_pvalue;

static int wn_pending_decode(const unsigned char *b, size_t len, wn_pvalue *v) {
  if (len < WN_PENDING_HEAD + 4 || memcmp(b, WN_PENDING_MAGIC, 4) != 0 ||
      wn_le32_get(b + len - 4) != wn_pending_crc(b, len - 4))
    return -1;
  v->tick = wn_le64_get(b + 4);
  v->last_seen = wn_i64_from_u64(wn_le64_get(b + 12));
  v->n = wn_le32_get(b + 20);
  if (v->n > WN_STORE_MAX_PAGES || v->tick == 0)
    return -1;
  wn_reader r = {b + WN_PENDING_HEAD, len - WN_PENDING_HEAD - 4};
  for (uint32_t i = 0; i < v->n; i++) {
    wn_pview *p = &v->pages[i];
    const unsigned char *h;
    p->start = r.p;
    if (!wn_reader_take(&r, 2, &h) || (p->name_len = (size_t)h[0] | (size_t)h[1] << 8) == 0 ||
        p->name_len > WN_STORE_MAX_PAGE_NAME || !wn_reader_take(&r, p->name_len, &p->name) ||
        !wn_reader_take(&r, 2, &h) ||
        (p->url_len = (size_t)h[0] | (size_t)h[1] << 8) > WN_STORE_MAX_PAGE_NAME ||
        !wn_reader_take(&r, p->url_len, &p->url) || !wn_reader_take(&r, 1, &h) ||
        (p->charset_len = h[0]) >= WN_PENDING_CHARSET_CAP ||
        !wn_reader_take(&r, p->charset_len, &p->charset) || !wn_reader_take(&r, 8, &h))
      return -1;
    /* Strings are read back as C strings: no NUL inside. */
    if (memchr(p->name, '\0', p->name_len) || memchr(p->url, '\0', p->url_len) ||
        memchr(p->charset, '\0', p->charset_len))
      return -1;
    p->len = wn_le32_get(h);
    p->z_len = wn_le32_get(h + 4);
    if (p->len > WN_PAGE_MAX_BYTES || p->z_len > ZSTD_compressBound(p->len) ||
        !wn_reader_take(&r, p->z_len, &p->z))
      return -1;
    p->enc_len = (size_t)(r.p - p->start);
  }
  return r.left == 0 ? 0 : -1;
}

static wn_err wn_pending_put_u16(wn_buf *out, size_t v) {
  unsigned char b[2] = {(unsigned char)(v & 0xffu), (unsigned char)(v >> 8)};
  return wn_buf_append(out, b, 2);
}

/* A new page, compressed, onto out. */
static wn_err wn_pending_encode_page(wn_buf *out, const wn_store_pending_page *p, wn_diag *diag) {
  const size_t name_len = strlen(p->name), url_len = p->url ? strlen(p->url) : 0;
  const size_t cs_len = p->charset ? strnlen(p->charset, WN_PENDING_CHARSET_CAP) : 0;
  if (name_len == 0 || name_len > WN_STORE_MAX_PAGE_NAME || url_len > WN_STORE_MAX_PAGE_NAME ||
      cs_len >= WN_PENDING_CHARSET_CAP || p->len > WN_PAGE_MAX_BYTES)
    return wn_diag_set(diag, WN_EINVAL, "store: a pending page past the bounds (%s)", p->name);
  const size_t cap = ZSTD_compressBound(p->len);
  unsigned char *z = malloc(cap ? cap : 1);
  if (!z)
    return wn_diag_set(diag, WN_ENOMEM, "store: out of memory compressing a pending page");
  wn_err err = WN_OK;
  /* Level 1: pending pages are written far more often than read. */
  const size_t z_len = ZSTD_compress(z, cap, p->bytes ? p->bytes : "", p->len, 1);
  if (ZSTD_isError(z_len)) {
    err = wn_diag_set(diag, WN_ENOMEM, "store: cannot compress pending page %s: %s", p->name,
                      ZSTD_getErrorName(z_len));
    goto out;
  }
  unsigned char len8[8];
  wn_le32_write(len8, (uint32_t)p->len);
  wn_le32_write(len8 + 4, (uint32_t)z_len);
  unsigned char cs = (unsigned char)cs_len;
  if ((err = wn_pending_put_u16(out, name_len)) || (err = wn_buf_append(out, p->name, name_len)) ||
      (err = wn_pending_put_u16(out, url_len)) ||
      (err = wn_buf_append(out, p->url ? p->url : "", url_len)) ||
      (err = wn_buf_append(out, &cs, 1)) ||
      (err = wn_buf_append(out, p->charset ? p->charset : "", cs_len)) ||
      (err = wn_buf_append(out, len8, 8)) || (err = wn_buf_append(out, z, z_len)))
    wn_diag_set(diag, err, "store: out of memory encoding pending page %s", p->name);
out:
  free(z);
  return err;
}

/* ---- the totals and the order ------------------------------------------------------ */

typedef struct wn_ptotals {
  uint64_t next_tick, sites, pages, bytes;
  int suspect; /* a damaged entry was removed: its pages were never known */
} wn_ptotals;

static int wn_pending_meta_decode(const MDB_val *v, wn_ptotals *t) {
  const unsigned char *b = v->mv_data;
  if (v->mv_size != WN_PENDING_META_LEN || memcmp(b, WN_PENDING_META_MAGIC, 4) != 0 ||
      wn_le32_get(b + 36) != wn_store_checksum(b, 36))
    return -1;
  t->next_tick = wn_le64_get(b + 4);
  t->sites = wn_le64_get(b + 12);
  t->pages = wn_le64_get(b + 20);
  t->bytes = wn_le64_get(b + 28);
  return t->next_tick > 0 ? 0 : -1;
}

static void wn_pending_order_key(unsigned char *key, uint64_t tick, const void *site, size_t len) {
  for (int i = 0; i < 8; i++)
    key[i] = (unsigned char)(tick >> (56 - 8 * i));
  memcpy(key + WN_PENDING_TICK_LEN, site, len);
}

/* Counts the totals again from the values (the stored ones were missing
 * or damaged), and the next tick from the order. */
static int wn_pending_recount(wn_store *store, MDB_txn *txn, wn_ptotals *t) {
  memset(t, 0, sizeof *t);
  t->next_tick = 1;
  MDB_cursor *cur = NULL;
  MDB_val k, v;
  int rc = mdb_cursor_open(txn, store->pending_dbi, &cur);
  for (MDB_cursor_op op = MDB_FIRST; rc == MDB_SUCCESS; op = MDB_NEXT) {
    if ((rc = mdb_cursor_get(cur, &k, &v, op)) != MDB_SUCCESS)
      break;
    wn_pvalue pv;
    t->sites++;
    t->bytes += v.mv_size;
    if (wn_pending_decode(v.mv_data, v.mv_size, &pv) == 0) {
      t->pages += pv.n;
      if (pv.tick >= t->next_tick)
        t->next_tick = pv.tick + 1;
    }
  }
  if (cur)
    mdb_cursor_close(cur);
  return rc == MDB_NOTFOUND ? MDB_SUCCESS : rc;
}

static int wn_pending_totals_read(wn_store *store, MDB_txn *txn, wn_ptotals *t) {
  MDB_val k = {WN_PENDING_TICK_LEN, (void *)wn_pending_meta_key}, v;
  int rc = mdb_get(txn, store->order_dbi, &k, &v);
  if (rc == MDB_SUCCESS && wn_pending_meta_decode(&v, t) == 0)
    return MDB_SUCCESS;
  if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND)
    return rc;
  return wn_pending_recount(store, txn, t);
}

static int wn_pending_totals_write(wn_store *store, MDB_txn *txn, wn_ptotals *t) {
  if (t->suspect) {
    const uint64_t next = t->next_tick;
    int rc = wn_pending_recount(store, txn, t);
    if (rc != MDB_SUCCESS)
      return rc;
    if (next > t->next_tick)
      t->next_tick = next;
  }
  unsigned char b[WN_PENDING_META_LEN];
  memcpy(b, WN_PENDING_META_MAGIC, 4);
  wn_le64_write(b + 4, t->next_tick);
  wn_le64_write(b + 12, t->sites);
  wn_le64_write(b + 20, t->pages);
  wn_le64_write(b + 28, t->bytes);
  wn_le32_write(b + 36, wn_store_checksum(b, 36));
  MDB_val k = {WN_PENDING_TICK_LEN, (void *)wn_pending_meta_key}, v = {sizeof b, b};
  return mdb_put(txn, store->order_dbi, &k, &v, 0);
}

/* Removes the site's value and its order key; *pages receives its pages
 * (0 when it did not decode). MDB_NOTFOUND when it had none. */
static int wn_pending_remove(wn_store *store, MDB_txn *txn, const MDB_val *site, wn_ptotals *t,
                             uint64_t *pages) {
  MDB_val v;
  *pages = 0;
  int rc = mdb_get(txn, store->pending_dbi, (MDB_val *)site, &v);
  if (rc != MDB_SUCCESS)
    return rc;
  wn_pvalue pv;
  const size_t bytes = v.mv_size;
  if (wn_pending_decode(v.mv_data, v.mv_size, &pv) == 0) {
    *pages = pv.n;
    unsigned char key[WN_PENDING_TICK_LEN + WN_STORE_MAX_SITE];
    wn_pending_order_key(key, pv.tick, site->mv_data, site->mv_size);
    MDB_val ok = {WN_PENDING_TICK_LEN + site->mv_size, key};
    rc = mdb_del(txn, store->order_dbi, &ok, NULL);
    if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND)
      return rc;
  } else {
    t->suspect = 1;
  }
  if ((rc = mdb_del(txn, store->pending_dbi, (MDB_val *)site, NULL)) != MDB_SUCCESS)
    return rc;
  t->sites -= t->sites > 0;
  t->pages -= *pages < t->pages ? *pages : t->pages;
  t->bytes -= bytes < t->bytes ? bytes : t->bytes;
  return MDB_SUCCESS;
}

int wn_store_pending_forget_txn(wn_store *store, MDB_txn *txn, const MDB_val *site) {
  if (!store->have_pending)
    return MDB_SUCCESS;
  MDB_val v;
  int rc = mdb_get(txn, store->pending_dbi, (MDB_val *)site, &v);
  if (rc == MDB_NOTFOUND)
    return MDB_SUCCESS;
  wn_ptotals t;
  uint64_t pages = 0;
  if (rc != MDB_SUCCESS || (rc = wn_pending_totals_read(store, txn, &t)) != MDB_SUCCESS ||
      (rc = wn_pending_remove(store, txn, site, &t, &pages)) != MDB_SUCCESS)
    return rc;
  return wn_pending_totals_write(store, txn, &t);
}

/* Evicts the least recently seen sites while the totals pass the limits. */
static int wn_pending_evict(wn_store *store, MDB_txn *txn, const wn_store_pending_limits *lim,
                            wn_ptotals *t, wn_store_pending_outcome *res) {
  MDB_cursor *cur = NULL;
  int rc = mdb_cursor_open(txn, store->order_dbi, &cur);
  MDB_val k, v;
  while (rc == MDB_SUCCESS && (t->sites > lim->sites || t->bytes > lim->bytes)) {
    k.mv_size = WN_PENDING_TICK_LEN;
    k.mv_data = (void *)wn_pending_meta_key;
    /* The first key after the totals: the least recently seen site. */
    if ((rc = mdb_cursor_get(cur, &k, &v, MDB_SET_RANGE)) != MDB_SUCCESS)
      break;
    if (k.mv_size == WN_PENDING_TICK_LEN &&
        (rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) != MDB_SUCCESS)
      break;
    if (k.mv_size <= WN_PENDING_TICK_LEN ||
        k.mv_size > WN_PENDING_TICK_LEN + WN_STORE_MAX_SITE) {
      rc = mdb_cursor_del(cur, 0); /* not ours: no site in it */
      continue;
    }
    unsigned char key[WN_PENDING_TICK_LEN + WN_STORE_MAX_SITE];
    memcpy(key, k.mv_data, k.mv_size);
    uint64_t tick = 0;
    for (int i = 0; i < 8; i++)
      tick = tick << 8 | key[i];
    MDB_val site = {k.mv_size - WN_PENDING_TICK_LEN, key + WN_PENDING_TICK_LEN}, pv_bytes;
    if ((rc = mdb_cursor_del(cur, 0)) != MDB_SUCCESS)
      break;
    rc = mdb_get(txn, store->pending_dbi, &site, &pv_bytes);
    if (rc == MDB_NOTFOUND) {
      rc = MDB_SUCCESS; /* an order key left behind: nothing to evict */
      continue;
    }
    if (rc != MDB_SUCCESS)
      break;
    wn_pvalue pv;
    if (wn_pending_decode(pv_bytes.mv_data, pv_bytes.mv_size, &pv) == 0 && pv.tick != tick)
      continue; /* the site was seen again since: its newer key stays */
    uint64_t pages = 0;
    if ((rc = wn_pending_remove(store, txn, &site, t, &pages)) != MDB_SUCCESS)
      break;
    res->sites_evicted++;
    res->pages_evicted += pages;
  }
  if (cur)
    mdb_cursor_close(cur);
  return rc == MDB_NOTFOUND ? MDB_SUCCESS : rc;
}

/* ---- apply ------------------------------------------------------------------------- */

/* One op inside the transaction. */
static wn_err wn_pending_apply_one(wn_store *store, MDB_txn *txn, const wn_store_pending_op *op,
                                   const wn_store_pending_limits *lim, wn_ptotals *t,
                                   wn_buf *enc, wn_store_pending_outcome *res, wn_diag *diag) {
  size_t site_len = 0;
  wn_err err = wn_store_site_check(op->site, &site_len, diag);
  if (err)
    return err;
  MDB_val key = wn_store_key(op->site, site_len), v;
  uint64_t pages = 0;
  int rc = MDB_SUCCESS;
  if (op->drop && (rc = wn_pending_remove(store, txn, &key, t, &pages)) != MDB_SUCCESS &&
      rc != MDB_NOTFOUND)
    return wn_store_mdb_error(store, rc, "cannot drop the pending pages", op->site, diag);
  if (op->n_pages == 0)
    return WN_OK;
  /* A site with a template has no pending sample. */
  if ((rc = mdb_get(txn, store->dbi, &key, &v)) == MDB_SUCCESS) {
    res->skipped += op->n_pages;
    return WN_OK;
  }
  if (rc != MDB_NOTFOUND)
    return wn_store_mdb_error(store, rc, "cannot read the record", op->site, diag);
  wn_pvalue old = {0};
  rc = mdb_get(txn, store->pending_dbi, &key, &v);
  if (rc == MDB_SUCCESS && wn_pending_decode(v.mv_data, v.mv_size, &old) != 0) {
    res->damaged++;
    if ((rc = wn_pending_remove(store, txn, &key, t, &pages)) != MDB_SUCCESS)
      return wn_store_mdb_error(store, rc, "cannot drop a damaged pending entry", op->site, diag);
    memset(&old, 0, sizeof old);
    rc = MDB_NOTFOUND;
  }
  if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND)
    return wn_store_mdb_error(store, rc, "cannot read the pending pages", op->site, diag);
  const int had = rc == MDB_SUCCESS;
  const size_t old_bytes = had ? v.mv_size : 0;

  wn_buf_reset(enc);
  unsigned char head[WN_PENDING_HEAD];
  memcpy(head, WN_PENDING_MAGIC, 4);
  if ((err = wn_buf_append(enc, head, sizeof head)))
    return wn_diag_set(diag, err, "store: out of memory writing pending pages");
  /* The old pages are copied as they are, before v is invalidated. */
  for (uint32_t i = 0; i < old.n; i++)
    if ((err = wn_buf_append(enc, old.pages[i].start, old.pages[i].enc_len)))
      return wn_diag_set(diag, err, "store: out of memory writing pending pages");
  uint32_t n = old.n;
  for (uint32_t j = 0; j < op->n_pages; j++) {
    const wn_store_pending_page *p = &op->pages[j];
    int dup = 0;
    for (uint32_t i = 0; i < old.n && !dup; i++)
      dup = old.pages[i].name_len == strlen(p->name) &&
            memcmp(old.pages[i].name, p->name, old.pages[i].name_len) == 0;
    for (uint32_t i = 0; i < j && !dup; i++)
      dup = strcmp(op->pages[i].name, p->name) == 0;
    if (dup || n >= lim->site_pages) {
      res->skipped++;
      continue;
    }
    if ((err = wn_pending_encode_page(enc, p, diag)))
      return err;
    n++;
    res->added++;
  }
  if (n == old.n)
    return WN_OK;
  /* Seen now: the newest tick. */
  const uint64_t tick = t->next_tick++;
  unsigned char *b = (unsigned char *)enc->data;
  wn_le64_write(b + 4, tick);
  wn_le64_write(b + 12, (uint64_t)time(NULL));
  wn_le32_write(b + 20, n);
  if ((err = wn_le32_put(enc, wn_pending_crc(enc->data, enc->len))))
    return wn_diag_set(diag, err, "store: out of memory writing pending pages");
  unsigned char okey[WN_PENDING_TICK_LEN + WN_STORE_MAX_SITE];
  MDB_val ok = {WN_PENDING_TICK_LEN + site_len, okey}, empty = {0, NULL};
  if (had) {
    wn_pending_order_key(okey, old.tick, op->site, site_len);
    rc = mdb_del(txn, store->order_dbi, &ok, NULL);
    if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND)
      return wn_store_mdb_error(store, rc, "cannot reorder the pending sites", op->site, diag);
  }
  wn_pending_order_key(okey, tick, op->site, site_len);
  MDB_val value = {enc->len, enc->data};
  if ((rc = mdb_put(txn, store->pending_dbi, &key, &value, 0)) != MDB_SUCCESS ||
      (rc = mdb_put(txn, store->order_dbi, &ok, &empty, 0)) != MDB_SUCCESS)
    return wn_store_mdb_error(store, rc, "cannot write the pending pages", op->site, diag);
  t->sites += !had;
  t->pages += n - old.n;
  t->bytes += enc->len - old_bytes;
  return WN_OK;
}

wn_err wn_store_pending_apply(wn_store *store, const wn_store_pending_op *ops, size_t n,
                              const wn_store_pending_limits *limits,
                              wn_store_pending_outcome *res, wn_diag *diag) {
  wn_store_pending_outcome ignored;
  if (!res)
    res = &ignored;
  memset(res, 0, sizeof *res);
  if (!store || (n && !ops) || !limits || limits->site_pages < 1 ||
      limits->site_pages > WN_STORE_MAX_PAGES)
    return wn_diag_set(diag, WN_EINVAL, "store: pending apply needs a store, ops and limits");
  wn_err err = wn_store_check_writable(store, "keep pending pages of", n ? ops[0].site : "-",
                                       diag);
  if (err || n == 0)
    return err;
  MDB_txn *txn = NULL;
  wn_buf enc;
  wn_buf_init(&enc, 0);
  /* What a failure names: the site, or how many a batch held. */
  char what[WN_STORE_MAX_SITE + 64];
  if (n == 1)
    snprintf(what, sizeof what, "%s (pending pages)", ops[0].site);
  else
    snprintf(what, sizeof what, "%s and %zu more (pending pages)", ops[0].site, n - 1);
  if ((err = wn_store_txn_open(store, 0, what, &txn, diag)))
    goto out;
  wn_ptotals t;
  int rc = wn_pending_totals_read(store, txn, &t);
  if (rc != MDB_SUCCESS) {
    err = wn_store_mdb_error(store, rc, "cannot read the pending totals", what, diag);
    goto out;
  }
  for (size_t i = 0; i < n; i++)
    if ((err = wn_pending_apply_one(store, txn, &ops[i], limits, &t, &enc, res, diag)))
      goto out;
  if ((rc = wn_pending_evict(store, txn, limits, &t, res)) != MDB_SUCCESS ||
      (rc = wn_pending_totals_write(store, txn, &t)) != MDB_SUCCESS) {
    err = wn_store_mdb_error(store, rc, "cannot bound the pending pages", what, diag);
    goto out;
  }
  rc = wn_store_txn_commit(store, txn);
  txn = NULL;
  if (rc != MDB_SUCCESS)
    err = wn_store_mdb_error(store, rc, "cannot commit the pending pages", what, diag);
out:
  if (txn)
    wn_store_txn_abort(store, txn);
  wn_buf_free(&enc);
  if (err)
    memset(res, 0, sizeof *res);
  return err;
}

/* ---- read ------------------------------------------------------------------------------ */

void wn_store_pending_held_free(wn_store_pending_held *pages, uint32_t n) {
  for (uint32_t i = 0; pages && i < n; i++) {
    free(pages[i].name);
    free(pages[i].url);
    free(pages[i].bytes);
  }
  free(pages);
}

static char *wn_pending_strndup(const unsigned char *s, size_t len) {
  char *d = malloc(len + 1);
  if (d) {
    memcpy(d, s, len);
    d[len] = '\0';
  }
  return d;
}

wn_err wn_store_pending_entry_decode(const void *bytes, size_t len, uint32_t max_pages,
                                     wn_store_pending_held **out, uint32_t *n_out,
                                     wn_diag *diag) {
  *out = NULL;
  *n_out = 0;
  wn_pvalue pv;
  if (wn_pending_decode(bytes, len, &pv) != 0)
    return wn_diag_set(diag, WN_ECORRUPT, "store: a pending entry does not decode");
  const uint32_t want = pv.n < max_pages ? pv.n : max_pages;
  wn_store_pending_held *pages = calloc(want ? want : 1, sizeof *pages);
  if (!pages)
    return wn_diag_set(diag, WN_ENOMEM, "store: out of memory reading pending pages");
  wn_err err = WN_OK;
  uint32_t n = 0;
  for (; n < want; n++) {
    const wn_pview *p = &pv.pages[n];
    wn_store_pending_held *h = &pages[n];
    h->name = wn_pending_strndup(p->name, p->name_len);
    h->url = p->url_len ? wn_pending_strndup(p->url, p->url_len) : NULL;
    h->bytes = malloc(p->len ? p->len : 1);
    if (!h->name || (p->url_len && !h->url) || !h->bytes) {
      n++;
      err = wn_diag_set(diag, WN_ENOMEM, "store: out of memory reading pending pages");
      break;
    }
    memcpy(h->charset, p->charset, p->charset_len);
    h->charset[p->charset_len] = '\0';
    const size_t got = ZSTD_decompress(h->bytes, p->len, p->z, p->z_len);
    if (ZSTD_isError(got) || got != p->len) {
      n++;
      err = wn_diag_set(diag, WN_ECORRUPT, "store: a pending page does not decompress");
      break;
    }
    h->len = p->len;
  }
  if (err) {
    wn_store_pending_held_free(pages, n);
    return err;
  }
  *out = pages;
  *n_out = n;
  return WN_OK;
}

/* A site's pending entry read in a read-only transaction: on WN_OK *txn
 * is open and *v points into the map until the caller aborts it; no entry
 * (or no pending table) is WN_ENOTFOUND. */
static wn_err wn_pending_read(wn_store *store, const char *site, MDB_txn **txn, MDB_val *v,
                              wn_diag *diag) {
  size_t site_len = 0;
  wn_err err;
  *txn = NULL;
  if ((err = wn_store_site_check(site, &site_len, diag)))
    return err;
  if (!store->have_pending)
    return wn_diag_set(diag, WN_ENOTFOUND, "store: no pending pages for site %s", site);
  if ((err = wn_store_txn_open(store, MDB_RDONLY, site, txn, diag)))
    return err;
  MDB_val key = wn_store_key(site, site_len);
  int rc = mdb_get(*txn, store->pending_dbi, &key, v);
  if (rc == MDB_SUCCESS)
    return WN_OK;
  if (rc == MDB_NOTFOUND)
    err = wn_diag_set(diag, WN_ENOTFOUND, "store: no pending pages for site %s", site);
  else
    err = wn_store_mdb_error(store, rc, "cannot read the pending pages", site, diag);
  wn_store_txn_abort(store, *txn);
  *txn = NULL;
  return err;
}

wn_err wn_store_pending_get(wn_store *store, const char *site, uint32_t max_pages,
                            wn_store_pending_held **out, uint32_t *n_out, wn_diag *diag) {
  *out = NULL;
  *n_out = 0;
  if (!store)
    return wn_diag_set(diag, WN_EINVAL, "store: pending get needs a store");
  MDB_txn *txn = NULL;
  MDB_val v;
  wn_err err = wn_pending_read(store, site, &txn, &v, diag);
  if (err)
    return err;
  /* v points into the map until the transaction ends: decoded first. */
  wn_diag inner = {{0}};
  err = wn_store_pending_entry_decode(v.mv_data, v.mv_size, max_pages, out, n_out, &inner);
  if (err == WN_ECORRUPT)
    wn_diag_set(diag, err, "store: the pending pages of site %s are damaged", site);
  else if (err)
    wn_diag_set(diag, err, "%s", wn_diag_message(&inner, err));
  wn_store_txn_abort(store, txn);
  return err;
}

/* ---- list, drop, totals (public) ------------------------------------------------------ */

/* What one entry says of its site. */
static void wn_pending_info(const char *site, const MDB_val *v, wn_pending_site *out) {
  memset(out, 0, sizeof *out);
  out->site = site;
  out->bytes = v->mv_size;
  wn_pvalue pv;
  if (wn_pending_decode(v->mv_data, v->mv_size, &pv) != 0) {
    out->damaged = 1;
    return;
  }
  out->pages = pv.n;
  out->last_seen = pv.last_seen;
  for (uint32_t i = 0; i < pv.n; i++)
    out->page_bytes += pv.pages[i].len;
}

wn_err wn_store_pending_site_get(wn_store *store, const char *site, wn_pending_site *out,
                                 wn_diag *diag) {
  if (!store || !out)
    return wn_diag_set(diag, WN_EINVAL, "store: pending site needs a store and an output");
  memset(out, 0, sizeof *out);
  MDB_txn *txn = NULL;
  MDB_val v;
  wn_err err = wn_pending_read(store, site, &txn, &v, diag);
  if (err)
    return err;
  wn_pending_info(site, &v, out);
  wn_store_txn_abort(store, txn);
  return WN_OK;
}

wn_err wn_store_pending_each(wn_store *store, wn_pending_fn fn, void *ctx, wn_diag *diag) {
  if (!store || !fn)
    return wn_diag_set(diag, WN_EINVAL, "store: pending each needs a store and a callback");
  if (!store->have_pending)
    return WN_OK;
  MDB_txn *txn = NULL;
  MDB_cursor *cur = NULL;
  wn_err err = wn_store_txn_open(store, MDB_RDONLY, "(pending)", &txn, diag);
  if (err)
    return err;
  int rc = mdb_cursor_open(txn, store->pending_dbi, &cur);
  MDB_val k, v;
  for (MDB_cursor_op op = MDB_FIRST; rc == MDB_SUCCESS; op = MDB_NEXT) {
    if ((rc = mdb_cursor_get(cur, &k, &v, op)) != MDB_SUCCESS)
      break;
    char site[WN_STORE_MAX_SITE + 1];
    if (k.mv_size == 0 || k.mv_size > WN_STORE_MAX_SITE)
      continue;
    memcpy(site, k.mv_data, k.mv_size);
    site[k.mv_size] = '\0';
    wn_pending_site s;
    wn_pending_info(site, &v, &s);
    if (fn(&s, ctx) != 0)
      break;
  }
  if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND)
    err = wn_store_mdb_error(store, rc, "cannot list the pending sites", "(pending)", diag);
  if (cur)
    mdb_cursor_close(cur);
  wn_store_txn_abort(store, txn);
  return err;
}

/* The name before 0.4 (deprecated, removed in 0.5.0). */
wn_err wn_store_pending_totals(wn_store *store, wn_pending_totals *out, wn_diag *diag) {
  return wn_store_pending_totals_get(store, out, diag);
}

wn_err wn_store_pending_totals_get(wn_store *store, wn_pending_totals *out, wn_diag *diag) {
  if (!store || !out)
    return wn_diag_set(diag, WN_EINVAL, "store: pending totals needs a store");
  memset(out, 0, sizeof *out);
  if (!store->have_pending)
    return WN_OK;
  MDB_txn *txn = NULL;
  wn_err err = wn_store_txn_open(store, MDB_RDONLY, "(pending)", &txn, diag);
  if (err)
    return err;
  wn_ptotals t;
  int rc = wn_pending_totals_read(store, txn, &t);
  wn_store_txn_abort(store, txn);
  if (rc != MDB_SUCCESS)
    return wn_store_mdb_error(store, rc, "cannot read the pending totals", "(pending)", diag);
  out->sites = t.sites;
  out->pages = t.pages;
  out->bytes = t.bytes;
  return WN_OK;
}

wn_err wn_store_pending_drop(wn_store *store, const char *site, uint64_t *n_dropped,
                             wn_diag *diag) {
  if (n_dropped)
    *n_dropped = 0;
  if (!store)
    return wn_diag_set(diag, WN_EINVAL, "store: pending drop needs a store");
  size_t site_len = 0;
  wn_err err = WN_OK;
  if ((site && (err = wn_store_site_check(site, &site_len, diag))) ||
      (err = wn_store_check_writable(store, "drop pending pages of", site ? site : "(all)",
                                     diag)))
    return err;
  MDB_txn *txn = NULL;
  uint64_t dropped = 0;
  if ((err = wn_store_txn_open(store, 0, site ? site : "(all)", &txn, diag)))
    goto out;
  int rc;
  if (!site) {
    wn_ptotals t;
    if ((rc = wn_pending_totals_read(store, txn, &t)) == MDB_SUCCESS) {
      dropped = t.sites;
      /* Emptied, not deleted: the handles stay valid. */
      if ((rc = mdb_drop(txn, store->pending_dbi, 0)) == MDB_SUCCESS &&
          (rc = mdb_drop(txn, store->order_dbi, 0)) == MDB_SUCCESS) {
        wn_ptotals zero = {t.next_tick, 0, 0, 0, 0};
        rc = wn_pending_totals_write(store, txn, &zero);
      }
    }
  } else {
    MDB_val key = wn_store_key(site, site_len);
    wn_ptotals t;
    uint64_t pages = 0;
    if ((rc = wn_pending_totals_read(store, txn, &t)) == MDB_SUCCESS &&
        (rc = wn_pending_remove(store, txn, &key, &t, &pages)) == MDB_SUCCESS)
      rc = wn_pending_totals_write(store, txn, &t);
    if (rc == MDB_NOTFOUND) {
      err = wn_diag_set(diag, WN_ENOTFOUND, "store: no pending pages for site %s", site);
      goto out;
    }
    dropped = 1;
  }
  if (rc != MDB_SUCCESS) {
    err = wn_store_mdb_error(store, rc, "cannot drop the pending pages", site ? site : "(all)",
                             diag);
    goto out;
  }
  rc = wn_store_txn_commit(store, txn);
  txn = NULL;
  if (rc != MDB_SUCCESS) {
    err = wn_store_mdb_error(store, rc, "cannot commit the drop", site ? site : "(all)", diag);
    goto out;
  }
  if (n_dropped)
    *n_dropped = dropped;
out:
  if (txn)
    wn_store_txn_abort(store, txn);
  return err;
}
