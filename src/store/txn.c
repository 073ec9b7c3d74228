/*
 * store/txn.c: what every part of the store that touches LMDB shares, and
 * nothing above it: site names as keys, transactions that hold the map
 * lock (store.c's header comment says why), and LMDB's codes as our one
 * error enum. store.c (records, counters, the schedule) and pending.c
 * (pending samples) both stand on it; neither calls the other for it.
 */
#include "store/store.h"
#include "store/store_int.h"

#include <errno.h>
#include <lmdb.h>
#include <pthread.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* How often a transaction is retried after adopting a map grown elsewhere. */
#define WN_STORE_RESIZE_RETRIES 3

/* ---- site names -------------------------------------------------------- */

wn_err wn_store_site_check(const char *site, size_t *len_out, wn_diag *diag) {
  if (!site)
    return wn_diag_set(diag, WN_EINVAL, "store: no site name given");
  const size_t len = strnlen(site, WN_STORE_MAX_SITE + 1);
  if (len == 0)
    return wn_diag_set(diag, WN_EINVAL, "store: site name is empty");
  if (len > WN_STORE_MAX_SITE)
    return wn_diag_set(diag, WN_EINVAL, "store: site name is longer than %u bytes",
                       WN_STORE_MAX_SITE);
  for (size_t i = 0; i < len; i++) {
    const unsigned char c = (unsigned char)site[i];
    if (c < 0x20 || c == 0x7f)
      return wn_diag_set(diag, WN_EINVAL,
                         "store: site name contains control character 0x%02x at byte %zu",
                         (unsigned)c, i);
  }
  *len_out = len;
  return WN_OK;
}

/* LMDB never writes through a key it is given; the cast drops const only to
 * fit MDB_val. */
MDB_val wn_store_key(const char *site, size_t len) {
  MDB_val key;
  key.mv_size = len;
  key.mv_data = (void *)site;
  return key;
}

/* ---- transactions and LMDB errors -------------------------------------- */

/* Begins a transaction holding map_lock shared; wn_store_txn_abort/commit let it
 * go. Returns an LMDB (or errno) code. */
int wn_store_txn_begin(wn_store *store, unsigned int flags, MDB_txn **txn) {
  int rc = 0;
  *txn = NULL;
  for (int attempt = 0;; attempt++) {
    rc = pthread_rwlock_rdlock(&store->map_lock);
    if (rc != 0)
      return rc;
    rc = mdb_txn_begin(store->env, NULL, flags, txn);
    if (rc == MDB_SUCCESS)
      return rc;
    pthread_rwlock_unlock(&store->map_lock);
    if (rc != MDB_MAP_RESIZED || attempt + 1 >= WN_STORE_RESIZE_RETRIES)
      return rc;
    /* Another process grew the data past our map: adopt its size
     * (lmdb.h, mdb_env_set_mapsize) while no transaction of ours is live. */
    int lock_rc = pthread_rwlock_wrlock(&store->map_lock);
    if (lock_rc != 0)
      return lock_rc;
    rc = mdb_env_set_mapsize(store->env, 0);
    pthread_rwlock_unlock(&store->map_lock);
    if (rc != MDB_SUCCESS)
      return rc;
  }
}

/* wn_store_txn_begin, its failure a diagnostic naming site (or what the
 * transaction is for) and whether it would read or write. */

void wn_store_txn_abort(wn_store *store, MDB_txn *txn) {
  mdb_txn_abort(txn);
  pthread_rwlock_unlock(&store->map_lock);
}

int wn_store_txn_commit(wn_store *store, MDB_txn *txn) {
  int rc = mdb_txn_commit(txn);
  pthread_rwlock_unlock(&store->map_lock);
  return rc;
}

/* Whether the file system under the store has no block left for us. LMDB
 * reports a write the file system cut short as EIO, not ENOSPC (mdb.c,
 * mdb_page_flush: "short write, filesystem full?"): on a tmpfs that has a
 * few bytes left, the last pwrite of a commit is short, and the next one
 * would have said ENOSPC. Root may write into the reserved blocks, so its
 * limit is f_bfree, everyone else's f_bavail. */
static int wn_store_disk_full(const wn_store *store) {
  const char *path = NULL;
  struct statvfs fs;
  if (!store || !store->env || mdb_env_get_path(store->env, &path) != MDB_SUCCESS || !path ||
      statvfs(path, &fs) != 0)
    return 0;
  const unsigned long long left =
      (unsigned long long)(geteuid() == 0 ? fs.f_bfree : fs.f_bavail) * fs.f_frsize;
  /* Less than one LMDB page (the OS page size, lmdb.h mdb_env_stat). */
  return left < (unsigned long long)sysconf(_SC_PAGESIZE);
}

/* Maps an LMDB or errno code to our one error enum at the boundary; the
 * LMDB text goes into the diagnostic. */
wn_err wn_store_mdb_error(const wn_store *store, int rc, const char *what, const char *site,
                              wn_diag *diag) {
  if (rc == MDB_MAP_FULL) {
    /* LMDB's map is a fixed window of address space chosen at open: the
     * data cannot grow past it until the store is opened with a larger one. */
    const size_t map_size = wn_store_map_size(store);
    const size_t mib = (size_t)1 << 20;
    if (map_size % mib == 0)
      return wn_diag_set(diag, WN_ENOSPACE,
                         "store: store is full (map size %zu MiB); reopen with a larger map "
                         "size (writing site %s)",
                         map_size / mib, site);
    return wn_diag_set(diag, WN_ENOSPACE,
                       "store: store is full (map size %.2f MiB); reopen with a larger map size "
                       "(writing site %s)",
                       (double)map_size / (double)mib, site);
  }
  if (rc == ENOSPC || (rc == EIO && wn_store_disk_full(store))) {
    const char *path = NULL;
    if (!store || !store->env || mdb_env_get_path(store->env, &path) != MDB_SUCCESS || !path)
      path = "(unknown)";
    return wn_diag_set(diag, WN_ENOSPACE,
                       "store: disk full: no space left on device for store %s (writing site "
                       "%s); the store keeps what it had, free space and retry",
                       path, site);
  }
  if (rc == MDB_READERS_FULL)
    return wn_diag_set(diag, WN_EBUSY, "store: %s for site %s: %s", what, site,
                       mdb_strerror(rc));
  return wn_diag_set(diag, WN_ESTORE, "store: %s for site %s: %s", what, site, mdb_strerror(rc));
}

wn_err wn_store_txn_open(wn_store *store, unsigned int flags, const char *site,
                                MDB_txn **txn, wn_diag *diag) {
  int rc = wn_store_txn_begin(store, flags, txn);
  if (rc == MDB_SUCCESS)
    return WN_OK;
  return wn_store_mdb_error(store, rc,
                            flags & MDB_RDONLY ? "cannot begin a read transaction"
                                               : "cannot begin a write transaction",
                            site, diag);
}

wn_err wn_store_check_writable(const wn_store *store, const char *verb, const char *site,
                                   wn_diag *diag) {
  if (store->read_only)
    return wn_diag_set(diag, WN_EINVAL, "store: opened read-only; cannot %s site %s", verb, site);
  return WN_OK;
}

/* ---- writing one site ----------------------------------------------------- */

wn_err wn_store_write_begin(wn_store *store, const char *site, const char *verb, MDB_txn **txn,
                            MDB_val *key, wn_diag *diag) {
  size_t len = 0;
  wn_err err;
  *txn = NULL;
  if ((err = wn_store_site_check(site, &len, diag)) ||
      (err = wn_store_check_writable(store, verb, site, diag)) ||
      (err = wn_store_txn_open(store, 0, site, txn, diag)))
    return err;
  *key = wn_store_key(site, len);
  return WN_OK;
}

wn_err wn_store_write_commit(wn_store *store, MDB_txn *txn, const char *what, const char *site,
                             wn_diag *diag) {
  int rc = wn_store_txn_commit(store, txn);
  return rc == MDB_SUCCESS ? WN_OK : wn_store_mdb_error(store, rc, what, site, diag);
}

/* ---- the map ------------------------------------------------------------ */

size_t wn_store_map_size(const wn_store *store) {
  MDB_envinfo info;
  if (!store || !store->env || mdb_env_info(store->env, &info) != MDB_SUCCESS)
    return 0;
  return info.me_mapsize;
}

wn_err wn_store_list_error(int rc, wn_diag *diag) {
  return wn_diag_set(diag, rc == MDB_READERS_FULL ? WN_EBUSY : WN_ESTORE,
                     "store: cannot list sites: %s", mdb_strerror(rc));
}
