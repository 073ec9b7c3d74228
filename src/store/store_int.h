/*
 * store/store_int.h: what the store's files share: txn.c (site keys,
 * transactions, LMDB errors) under store.c (the environment, records,
 * snapshots), counters.c (detection counters, drift), schedule.c (the
 * refresh schedule), raw.c (records as bytes, for the dump tool) and
 * pending.c (pending samples), and record.c (the record codec). Not part
 * of the store's interface.
 */
#ifndef WN_STORE_INT_H
#define WN_STORE_INT_H

#include <stddef.h>
#include <stdint.h>

#include <lmdb.h>
#include <pthread.h>
#include <stdatomic.h>

#include "store/store.h"

#define WN_STORE_MAGIC "WNSR"
#define WN_STORE_MAGIC_LEN 4u
#define WN_STORE_ALGORITHM_CAP (sizeof(((wn_store_record *)0)->algorithm))

/* The records' checksum: 64-bit FNV-1a of bytes, folded to 32 bits. */
uint32_t wn_store_checksum(const void *bytes, size_t len);

/* An encoded record into *out: copy 1 copies the variable parts (a
 * record the caller keeps), 0 borrows them from bytes (a look inside a
 * transaction). */
wn_err wn_store_record_parse(const unsigned char *bytes, size_t len, int copy,
                             wn_store_record *out, wn_diag *diag);

/* An inner diagnostic's message without its "store: " prefix, for a
 * caller that wraps it with the site's name. */
const char *wn_store_diag_detail(const wn_diag *inner, wn_err err);

/* The handle (store.c opens it; pending.c shares it). */
struct wn_store {
  MDB_env *env;
  MDB_dbi dbi;
  MDB_dbi stats_dbi;
  MDB_dbi sched_dbi;
  MDB_dbi pending_dbi; /* pending samples (pending.c) */
  MDB_dbi order_dbi;   /* the pending sites, least recently seen first */
  int have_stats;   /* 0: a read-only open of a store written before counters */
  int have_sched;   /* 0: a read-only open of a store no daemon scheduled */
  int have_pending; /* 0: a read-only open of a store that never held a pending page */
  int read_only;
  int lockless; /* read-only without LMDB's lock file (wn_store_open) */
  int lock_ready;
  pthread_rwlock_t map_lock;
  _Atomic uint64_t puts; /* records written through this handle */
};

/* ---- txn.c ---- */

/* A site name's bytes (checked: 1 to WN_STORE_MAX_SITE bytes, no control
 * characters) and the key they make. */
wn_err wn_store_site_check(const char *site, size_t *len_out, wn_diag *diag);
MDB_val wn_store_key(const char *site, size_t len);

/* Transactions hold map_lock shared (store.c's comment says why):
 * txn_begin returns an LMDB code, txn_open a diagnostic naming site. */
int wn_store_txn_begin(wn_store *store, unsigned int flags, MDB_txn **txn);
wn_err wn_store_txn_open(wn_store *store, unsigned int flags, const char *site, MDB_txn **txn,
                         wn_diag *diag);
void wn_store_txn_abort(wn_store *store, MDB_txn *txn);
int wn_store_txn_commit(wn_store *store, MDB_txn *txn);
/* An LMDB or errno code as our error, with what failed and for which site. */
wn_err wn_store_mdb_error(const wn_store *store, int rc, const char *what, const char *site,
                          wn_diag *diag);
/* A cursor's LMDB code while listing sites, as our error. */
wn_err wn_store_list_error(int rc, wn_diag *diag);
wn_err wn_store_check_writable(const wn_store *store, const char *verb, const char *site,
                               wn_diag *diag);

/* The start of a write to one site's keys: a valid site name, a writable
 * store, a write transaction (on success the caller ends it), the key.
 * verb says what a read-only store refuses ("delete", "schedule"). */
wn_err wn_store_write_begin(wn_store *store, const char *site, const char *verb, MDB_txn **txn,
                            MDB_val *key, wn_diag *diag);
/* Commits txn, which ends it either way; a failure as "cannot commit the
 * <what>" for site. */
wn_err wn_store_write_commit(wn_store *store, MDB_txn *txn, const char *what, const char *site,
                             wn_diag *diag);

/* ---- pending.c ---- */

/* Inside a write transaction: forgets the site's pending pages (a template
 * was just stored for it). An LMDB code. */
int wn_store_pending_forget_txn(wn_store *store, MDB_txn *txn, const MDB_val *site);

#endif /* WN_STORE_INT_H */
