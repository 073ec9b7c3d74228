/*
 * store/schedule.c: the daemon's refresh schedule, one small value per site (the
 * "schedule" database).
 */
#include "store/store.h"
#include "store/store_int.h"

#include <lmdb.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

/*
 * One small value per site in the "schedule" database:
 *
 *   u32 magic "WNS1"  u64 last_success  u64 last_failure  u64 next_run
 *   u32 failures  u32 last_duration_ms  u64 runs  u16 error length
 *   error bytes  u32 checksum (as for records, of everything before it)
 *
 * A value that does not decode reads as WN_ECORRUPT for that site; the
 * daemon then plans the site afresh instead of failing.
 */
#define WN_STORE_SCHED_MAGIC 0x31534e57u /* "WNS1" little-endian */
#define WN_STORE_SCHED_FIXED 46u          /* bytes before the error text */

wn_err wn_store_schedule_put(wn_store *store, const char *site, const wn_store_schedule *sched,
                             wn_diag *diag) {
  wn_err err = WN_OK;
  MDB_txn *txn = NULL;
  size_t site_len = 0;
  int rc;
  unsigned char bytes[WN_STORE_SCHED_FIXED + WN_STORE_MAX_SCHED_ERROR + 4];

  if (!store || !sched)
    return wn_diag_set(diag, WN_EINVAL, "store: schedule_put needs a store and a schedule");
  if ((err = wn_store_site_check(site, &site_len, diag)) ||
      (err = wn_store_check_writable(store, "schedule", site, diag)))
    return err;
  size_t elen = strnlen(sched->last_error, WN_STORE_MAX_SCHED_ERROR - 1);
  wn_le32_write(bytes, WN_STORE_SCHED_MAGIC);
  wn_le64_write(bytes + 4, (uint64_t)sched->last_success);
  wn_le64_write(bytes + 12, (uint64_t)sched->last_failure);
  wn_le64_write(bytes + 20, (uint64_t)sched->next_run);
  wn_le32_write(bytes + 28, sched->failures);
  wn_le32_write(bytes + 32, sched->last_duration_ms);
  wn_le64_write(bytes + 36, sched->runs);
  bytes[44] = (unsigned char)(elen & 0xffu);
  bytes[45] = (unsigned char)(elen >> 8);
  memcpy(bytes + WN_STORE_SCHED_FIXED, sched->last_error, elen);
  size_t len = WN_STORE_SCHED_FIXED + elen;
  wn_le32_write(bytes + len, wn_store_checksum(bytes, len));
  len += 4;

  if ((err = wn_store_txn_open(store, 0, site, &txn, diag)))
    goto out;
  MDB_val key = wn_store_key(site, site_len);
  MDB_val value = {.mv_size = len, .mv_data = bytes};
  if ((rc = mdb_put(txn, store->sched_dbi, &key, &value, 0)) != MDB_SUCCESS) {
    err = wn_store_mdb_error(store, rc, "cannot write the schedule", site, diag);
    goto out;
  }
  err = wn_store_write_commit(store, txn, "cannot commit the schedule", site, diag);
  txn = NULL;
out:
  if (txn)
    wn_store_txn_abort(store, txn);
  return err;
}

wn_err wn_store_schedule_get(wn_store *store, const char *site, wn_store_schedule *out,
                             wn_diag *diag) {
  wn_err err = WN_OK;
  MDB_txn *txn = NULL;
  size_t site_len = 0;
  int rc;

  if (!store || !out)
    return wn_diag_set(diag, WN_EINVAL, "store: schedule_get needs a store and an output");
  memset(out, 0, sizeof *out);
  if ((err = wn_store_site_check(site, &site_len, diag)))
    return err;
  if (!store->have_sched)
    return wn_diag_set(diag, WN_ENOTFOUND, "store: site %s has no schedule", site);
  if ((err = wn_store_txn_open(store, MDB_RDONLY, site, &txn, diag)))
    goto out;
  MDB_val key = wn_store_key(site, site_len), value;
  rc = mdb_get(txn, store->sched_dbi, &key, &value);
  if (rc == MDB_NOTFOUND) {
    err = wn_diag_set(diag, WN_ENOTFOUND, "store: site %s has no schedule", site);
    goto out;
  }
  if (rc != MDB_SUCCESS) {
    err = wn_store_mdb_error(store, rc, "cannot read the schedule", site, diag);
    goto out;
  }
  const unsigned char *b = value.mv_data;
  size_t len = value.mv_size;
  size_t elen = len >= WN_STORE_SCHED_FIXED ? (size_t)b[44] | ((size_t)b[45] << 8) : 0;
  if (len < WN_STORE_SCHED_FIXED + 4 || wn_le32_get(b) != WN_STORE_SCHED_MAGIC ||
      elen >= WN_STORE_MAX_SCHED_ERROR || len != WN_STORE_SCHED_FIXED + elen + 4 ||
      wn_le32_get(b + len - 4) != wn_store_checksum(b, len - 4)) {
    err = wn_diag_set(diag, WN_ECORRUPT, "store: the schedule of site %s is damaged", site);
    goto out;
  }
  out->last_success = wn_i64_from_u64(wn_le64_get(b + 4));
  out->last_failure = wn_i64_from_u64(wn_le64_get(b + 12));
  out->next_run = wn_i64_from_u64(wn_le64_get(b + 20));
  out->failures = wn_le32_get(b + 28);
  out->last_duration_ms = wn_le32_get(b + 32);
  out->runs = wn_le64_get(b + 36);
  memcpy(out->last_error, b + WN_STORE_SCHED_FIXED, elen);
  out->last_error[elen] = '\0';
out:
  if (txn)
    wn_store_txn_abort(store, txn);
  return err;
}

wn_err wn_store_schedule_delete(wn_store *store, const char *site, wn_diag *diag) {
  wn_err err = WN_OK;
  MDB_txn *txn = NULL;
  MDB_val key;
  int rc;
  if (!store)
    return wn_diag_set(diag, WN_EINVAL, "store: schedule_delete needs a store");
  if ((err = wn_store_write_begin(store, site, "unschedule", &txn, &key, diag)))
    return err;
  rc = mdb_del(txn, store->sched_dbi, &key, NULL);
  if (rc == MDB_NOTFOUND) {
    err = wn_diag_set(diag, WN_ENOTFOUND, "store: site %s has no schedule", site);
    goto out;
  }
  if (rc != MDB_SUCCESS) {
    err = wn_store_mdb_error(store, rc, "cannot delete the schedule", site, diag);
    goto out;
  }
  err = wn_store_write_commit(store, txn, "cannot commit the schedule", site, diag);
  txn = NULL;
out:
  if (txn)
    wn_store_txn_abort(store, txn);
  return err;
}
