/*
 * store/counters.c: the detection counters of each site's current template (the "stats"
 * database; wn_store_count batches them) and the drift rule that reads them.
 */
#include "store/store.h"
#include "store/store_int.h"

#include <lmdb.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define WN_STORE_STATS_MAGIC "WNST"
#define WN_STORE_STATS_VERSION 1u
#define WN_STORE_STATS_LEN 52u

/*
 * Counters record, version 1, WN_STORE_STATS_LEN bytes, little-endian:
 *   "WNST", u32 version, u64 generation, u64 pages, u64 low,
 *   u32 recent_pages, u32 recent_low, i64 updated_at,
 *   u32 checksum (as for records, of the 48 bytes before it)
 * A counters record that does not decode is not worth failing a detection
 * for: it is started afresh (the counts are advisory; the template is not).
 */
static void wn_stats_encode(const wn_store_stats *st, unsigned char *b) {
  memcpy(b, WN_STORE_STATS_MAGIC, 4);
  wn_le32_write(b + 4, WN_STORE_STATS_VERSION);
  wn_le64_write(b + 8, st->generation);
  wn_le64_write(b + 16, st->counts.pages);
  wn_le64_write(b + 24, st->counts.low);
  wn_le32_write(b + 32, st->counts.recent_pages);
  wn_le32_write(b + 36, st->counts.recent_low);
  wn_le64_write(b + 40, (uint64_t)st->counts.updated_at);
  wn_le32_write(b + 48, wn_store_checksum(b, 48));
}

static int wn_stats_decode(const void *bytes, size_t len, wn_store_stats *st) {
  const unsigned char *b = bytes;
  if (len != WN_STORE_STATS_LEN || memcmp(b, WN_STORE_STATS_MAGIC, 4) != 0 ||
      wn_le32_get(b + 4) != WN_STORE_STATS_VERSION ||
      wn_le32_get(b + 48) != wn_store_checksum(b, 48))
    return -1;
  st->generation = wn_le64_get(b + 8);
  st->counts.pages = wn_le64_get(b + 16);
  st->counts.low = wn_le64_get(b + 24);
  st->counts.recent_pages = wn_le32_get(b + 32);
  st->counts.recent_low = wn_le32_get(b + 36);
  st->counts.updated_at = wn_i64_from_u64(wn_le64_get(b + 40));
  if (st->counts.low > st->counts.pages || st->counts.recent_low > st->counts.recent_pages)
    return -1;
  return 0;
}

/* The site's record generation and its counters within txn; counters of
 * another generation (or damaged ones) read as fresh ones. */
static wn_err wn_stats_read(wn_store *store, MDB_txn *txn, const char *site, MDB_val *key,
                         wn_store_stats *st, wn_diag *diag) {
  MDB_val value;
  memset(st, 0, sizeof *st);
  int rc = mdb_get(txn, store->dbi, key, &value);
  if (rc == MDB_NOTFOUND)
    return wn_diag_set(diag, WN_ENOTFOUND, "store: no template for site %s", site);
  if (rc != MDB_SUCCESS)
    return wn_store_mdb_error(store, rc, "cannot read the record", site, diag);
  wn_store_record rec;
  wn_diag inner;
  wn_diag_clear(&inner);
  wn_err err = wn_store_record_parse(value.mv_data, value.mv_size, 0, &rec, &inner);
  if (err)
    return wn_diag_set(diag, err, "store: site %s: %s", site, wn_store_diag_detail(&inner, err));
  if (!store->have_stats) {
    st->generation = rec.generation;
    return WN_OK;
  }
  rc = mdb_get(txn, store->stats_dbi, key, &value);
  if (rc == MDB_SUCCESS) {
    wn_store_stats old;
    if (wn_stats_decode(value.mv_data, value.mv_size, &old) == 0 &&
        old.generation == rec.generation)
      *st = old;
  } else if (rc != MDB_NOTFOUND) {
    return wn_store_mdb_error(store, rc, "cannot read the counters", site, diag);
  }
  st->generation = rec.generation;
  return WN_OK;
}

wn_err wn_store_count(wn_store *store, const char *site, uint64_t generation, uint32_t pages,
                      uint32_t low, int *counted, wn_store_stats *after, wn_diag *diag) {
  wn_err err = WN_OK;
  MDB_txn *txn = NULL;
  wn_store_stats st;
  int rc;

  if (counted)
    *counted = 0;
  if (!store)
    return wn_diag_set(diag, WN_EINVAL, "store: count needs a store");
  if (low > pages)
    return wn_diag_set(diag, WN_EINVAL, "store: %u low-confidence pages out of %u counted",
                       (unsigned)low, (unsigned)pages);
  MDB_val key;
  if ((err = wn_store_write_begin(store, site, "count pages of", &txn, &key, diag)))
    return err;
  if ((err = wn_stats_read(store, txn, site, &key, &st, diag)))
    goto out;
  if (generation != 0 && generation != st.generation) {
    /* Detected with a template that has since been replaced. */
    if (after)
      *after = st;
    goto out;
  }
  st.counts.pages = st.counts.pages + pages < st.counts.pages ? UINT64_MAX : st.counts.pages + pages;
  st.counts.low = st.counts.low + low < st.counts.low ? UINT64_MAX : st.counts.low + low;
  if (st.counts.low > st.counts.pages)
    st.counts.low = st.counts.pages;
  uint64_t rp = (uint64_t)st.counts.recent_pages + pages, rl = (uint64_t)st.counts.recent_low + low;
  /* Halve while past the window: the share stays, old pages fade. */
  while (rp > WN_STORE_RECENT_WINDOW) {
    rl = (rl * (rp / 2)) / rp;
    rp /= 2;
  }
  st.counts.recent_pages = (uint32_t)rp;
  st.counts.recent_low = (uint32_t)rl;
  st.counts.updated_at = (int64_t)time(NULL);
  unsigned char bytes[WN_STORE_STATS_LEN];
  wn_stats_encode(&st, bytes);
  MDB_val value = {.mv_size = sizeof bytes, .mv_data = bytes};
  if ((rc = mdb_put(txn, store->stats_dbi, &key, &value, 0)) != MDB_SUCCESS) {
    err = wn_store_mdb_error(store, rc, "cannot write the counters", site, diag);
    goto out;
  }
  err = wn_store_write_commit(store, txn, "cannot commit the counters", site, diag);
  txn = NULL;
  if (err)
    goto out;
  if (counted)
    *counted = 1;
  if (after)
    *after = st;
out:
  if (txn)
    wn_store_txn_abort(store, txn);
  return err;
}

wn_err wn_store_stats_get(wn_store *store, const char *site, wn_store_stats *out,
                          wn_diag *diag) {
  wn_err err = WN_OK;
  MDB_txn *txn = NULL;
  size_t site_len = 0;
  if (!store || !out)
    return wn_diag_set(diag, WN_EINVAL, "store: stats needs a store and somewhere to put them");
  memset(out, 0, sizeof *out);
  if ((err = wn_store_site_check(site, &site_len, diag)))
    return err;
  if ((err = wn_store_txn_open(store, MDB_RDONLY, site, &txn, diag)))
    goto out;
  MDB_val key = wn_store_key(site, site_len);
  err = wn_stats_read(store, txn, site, &key, out, diag);
out:
  if (txn)
    wn_store_txn_abort(store, txn);
  return err;
}

int wn_store_drifting(const wn_site_counts *stats, const wn_store_drift_policy *policy) {
  const uint32_t min_pages = policy ? policy->min_pages : WN_STORE_DRIFT_MIN_PAGES;
  const double share = policy ? policy->max_low_share : WN_STORE_DRIFT_SHARE;
  if (!stats || stats->recent_pages == 0 || stats->recent_pages < min_pages)
    return 0;
  return (double)stats->recent_low >= share * (double)stats->recent_pages;
}

int wn_store_counters_check(const void *bytes, size_t len) {
  wn_store_stats st;
  return bytes ? wn_stats_decode(bytes, len, &st) : -1;
}
