/*
 * store/raw.c: records as stored bytes, for the dump tool (winnow-dump verify, export
 * and import): each record of each database read raw, and written back.
 */
#include "store/store.h"
#include "store/store_int.h"

#include <lmdb.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

wn_err wn_store_raw_each(wn_store *store, wn_store_raw_fn fn, void *ctx, wn_diag *diag) {
  wn_err err = WN_OK;
  MDB_txn *txn = NULL;
  MDB_cursor *cursor = NULL;
  char site[WN_STORE_MAX_SITE + 1];
  int rc;
  if (!store || !fn)
    return wn_diag_set(diag, WN_EINVAL, "store: raw each needs a store and a callback");
  if ((rc = wn_store_txn_begin(store, MDB_RDONLY, &txn)) != MDB_SUCCESS ||
      (rc = mdb_cursor_open(txn, store->dbi, &cursor)) != MDB_SUCCESS) {
    err = wn_store_list_error(rc, diag);
    goto out;
  }
  MDB_val key, value;
  for (MDB_cursor_op op = MDB_FIRST;; op = MDB_NEXT) {
    rc = mdb_cursor_get(cursor, &key, &value, op);
    if (rc == MDB_NOTFOUND)
      break;
    if (rc != MDB_SUCCESS) {
      err = wn_store_list_error(rc, diag);
      goto out;
    }
    if (key.mv_size == 0 || key.mv_size > WN_STORE_MAX_SITE ||
        memchr(key.mv_data, '\0', key.mv_size)) {
      err = wn_diag_set(diag, WN_ECORRUPT,
                        "store: a key of %zu bytes is not a site name (not written by winnow)",
                        key.mv_size);
      goto out;
    }
    memcpy(site, key.mv_data, key.mv_size);
    site[key.mv_size] = '\0';
    MDB_val counters = {0, NULL};
    if (store->have_stats) {
      rc = mdb_get(txn, store->stats_dbi, &key, &counters);
      if (rc == MDB_NOTFOUND) {
        counters.mv_size = 0;
        counters.mv_data = NULL;
      } else if (rc != MDB_SUCCESS) {
        err = wn_store_mdb_error(store, rc, "cannot read the counters", site, diag);
        goto out;
      }
    }
    if (fn(site, value.mv_data, value.mv_size, counters.mv_data, counters.mv_size, ctx) != 0)
      break;
  }
out:
  if (cursor)
    mdb_cursor_close(cursor);
  if (txn)
    wn_store_txn_abort(store, txn);
  return err;
}

wn_err wn_store_raw_put(wn_store *store, const wn_store_raw *items, size_t n, uint8_t *replaced,
                        wn_diag *diag) {
  wn_err err = WN_OK;
  MDB_txn *txn = NULL;
  int rc;
  if (!store || (n > 0 && !items))
    return wn_diag_set(diag, WN_EINVAL, "store: raw put needs a store and records");
  if (store->read_only)
    return wn_diag_set(diag, WN_EINVAL, "store: opened read-only; cannot import");
  /* Every item is checked before the transaction begins: nothing is
   * written unless everything can be. */
  for (size_t i = 0; i < n; i++) {
    size_t site_len = 0;
    wn_diag inner;
    wn_diag_clear(&inner);
    if ((err = wn_store_site_check(items[i].site, &site_len, &inner)))
      return wn_diag_set(diag, err, "store: record %zu: %s", i + 1, wn_store_diag_detail(&inner, err));
    wn_store_record rec;
    if ((err = wn_store_record_parse(items[i].record, items[i].record_len, 0, &rec, &inner)))
      return wn_diag_set(diag, err, "store: record %zu (site %s): %s", i + 1, items[i].site,
                         wn_store_diag_detail(&inner, err));
    if (items[i].counters_len > 0 &&
        wn_store_counters_check(items[i].counters, items[i].counters_len) != 0)
      return wn_diag_set(diag, WN_ECORRUPT, "store: record %zu (site %s): counters are corrupt",
                         i + 1, items[i].site);
  }
  if ((err = wn_store_txn_open(store, 0, "(import)", &txn, diag)))
    goto out;
  for (size_t i = 0; i < n; i++) {
    MDB_val key = wn_store_key(items[i].site, strlen(items[i].site));
    MDB_val old;
    rc = mdb_get(txn, store->dbi, &key, &old);
    if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND) {
      err = wn_store_mdb_error(store, rc, "cannot read the old record", items[i].site, diag);
      goto out;
    }
    if (items[i].newer_only && rc == MDB_SUCCESS) {
      wn_store_record have, next;
      if (wn_store_record_parse(old.mv_data, old.mv_size, 0, &have, NULL) == WN_OK &&
          wn_store_record_parse(items[i].record, items[i].record_len, 0, &next, NULL) ==
              WN_OK &&
          next.generation <= have.generation) {
        if (replaced)
          replaced[i] = 2;
        continue;
      }
    }
    if (replaced)
      replaced[i] = rc == MDB_SUCCESS;
    /* LMDB copies the value in; the cast drops const only to fit MDB_val. */
    MDB_val value = {items[i].record_len, (void *)items[i].record};
    if ((rc = mdb_put(txn, store->dbi, &key, &value, 0)) != MDB_SUCCESS) {
      err = wn_store_mdb_error(store, rc, "cannot write the record", items[i].site, diag);
      goto out;
    }
    if (items[i].counters_len > 0) {
      MDB_val counters = {items[i].counters_len, (void *)items[i].counters};
      rc = mdb_put(txn, store->stats_dbi, &key, &counters, 0);
    } else {
      rc = mdb_del(txn, store->stats_dbi, &key, NULL);
      if (rc == MDB_NOTFOUND)
        rc = MDB_SUCCESS;
    }
    if (rc == MDB_SUCCESS)
      rc = wn_store_pending_forget_txn(store, txn, &key);
    if (rc != MDB_SUCCESS) {
      err = wn_store_mdb_error(store, rc, "cannot write the counters", items[i].site, diag);
      goto out;
    }
  }
  rc = wn_store_txn_commit(store, txn);
  txn = NULL;
  if (rc != MDB_SUCCESS)
    err = wn_store_mdb_error(store, rc, "cannot commit the import", "(import)", diag);
out:
  if (txn)
    wn_store_txn_abort(store, txn);
  return err;
}
