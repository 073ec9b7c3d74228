/*
 * store/store.c: site records in an LMDB environment.
 *
 * On disk: one LMDB environment (a directory holding data.mdb and lock.mdb)
 * with named databases keyed by the site name's bytes without a NUL:
 * "sites", whose values are encoded records; "stats", the detection
 * counters of each site's current template (see wn_store_count; kept apart
 * so that counting never rewrites a template); "schedule", the daemon's
 * refresh schedule (wn_store_schedule_*; a site may be scheduled before it
 * has a template); and "pending" with its index "pending_order", the
 * pending samples of sites without a template (pending.c). Stores written
 * before a database existed lack it; a writable open adds it.
 *
 * The record format: record.c.
 *
 * Threads: LMDB lets any thread of the process use the environment when it
 * is opened with MDB_NOTLS, so one handle may serve many threads (ARCHITECTURE:
 * detection is "safe on many threads, many processes over one read-only
 * store"). The only shared state we add is map_lock, for MDB_MAP_RESIZED:
 * when another process has grown the data past our map, LMDB wants
 * mdb_env_set_mapsize(env, 0) with no transaction of this process active.
 * Every transaction therefore holds map_lock shared, and adopting the new
 * size takes it exclusively. No function calls back into user code while it
 * holds the lock (wn_store_list runs its callback between transactions), so
 * the lock is never taken twice by one thread.
 */
#include "store/store.h"
#include "store/store_int.h"

#include <errno.h>
#include <lmdb.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define WN_STORE_DB_NAME "sites"
#define WN_STORE_STATS_DB_NAME "stats"
#define WN_STORE_SCHED_DB_NAME "schedule"
#define WN_STORE_PENDING_DB_NAME "pending"
#define WN_STORE_ORDER_DB_NAME "pending_order"
/* Sites handed to wn_store_list's callback per read transaction: a short
 * transaction does not pin an old snapshot while the callback works. */
#define WN_STORE_LIST_BATCH 64u


/* ---- open / close ------------------------------------------------------ */

static wn_err wn_store_prepare_dir(const char *dir, int read_only, wn_diag *diag) {
  struct stat st;
  if (!read_only && mkdir(dir, 0755) == 0)
    return WN_OK;
  if (!read_only && errno != EEXIST)
    return wn_diag_set(diag, WN_EIO, "store: cannot create directory %s: %s", dir,
                       strerror(errno));
  if (stat(dir, &st) != 0) {
    if (errno == ENOENT)
      return wn_diag_set(diag, WN_ENOTFOUND, "store: no store at %s: the directory does not exist",
                         dir);
    return wn_diag_set(diag, WN_EIO, "store: cannot read %s: %s", dir, strerror(errno));
  }
  if (!S_ISDIR(st.st_mode))
    return wn_diag_set(diag, WN_EINVAL, "store: %s is not a directory", dir);
  return WN_OK;
}

/* Creates store->env and opens it; on failure store->env is left for
 * wn_store_close (lmdb.h: a failed open still needs mdb_env_close). Returns
 * an LMDB or errno code. */
static int wn_store_env_open(wn_store *store, const char *dir, size_t map_size,
                          unsigned int flags) {
  int rc;
  if ((rc = mdb_env_create(&store->env)) != MDB_SUCCESS)
    return rc;
  if ((rc = mdb_env_set_mapsize(store->env, map_size)) != MDB_SUCCESS ||
      (rc = mdb_env_set_maxdbs(store->env, 5)) != MDB_SUCCESS)
    return rc;
  return mdb_env_open(store->env, dir, flags, 0644);
}

void wn_store_options_init(wn_store_options *opts) {
  if (!opts)
    return;
  memset(opts, 0, sizeof *opts);
  opts->map_size = WN_STORE_DEFAULT_MAP_SIZE;
}

int wn_store_writable(const wn_store *store) {
  return store ? !store->read_only : 0;
}

int wn_store_lockless(const wn_store *store) {
  return store ? store->lockless : 0;
}

wn_err wn_store_open(const char *dir, const wn_store_options *opts, wn_store **out,
                     wn_diag *diag) {
  wn_err err = WN_OK;
  wn_store *store = NULL;
  MDB_txn *txn = NULL;
  int rc;

  if (!out)
    return wn_diag_set(diag, WN_EINVAL, "store: open needs somewhere to put the handle");
  *out = NULL;
  if (!dir || !*dir)
    return wn_diag_set(diag, WN_EINVAL, "store: no directory given");
  const int read_only = opts && opts->read_only;
  /* A map_size below the data already stored needs no care here: LMDB
   * raises the map to the committed data when it opens the file
   * (mdb_env_open: "mapsize >= committed data size"), which is the data
   * file's size, since LMDB's file only grows to its high-water page. The
   * store then reads, and only growing it is WN_ENOSPACE. */
  const size_t map_size = opts && opts->map_size ? opts->map_size : WN_STORE_DEFAULT_MAP_SIZE;

  if ((err = wn_store_prepare_dir(dir, read_only, diag)))
    goto out;
  /* LMDB trusts its file (store/damage.c): the meta pages and the size are
   * checked here, without a map, before LMDB reads either. */
  wn_store_file file;
  char problem[512];
  if ((err = wn_store_file_check(dir, &file, problem, sizeof problem, diag)))
    goto out;
  if (problem[0]) {
    err = wn_store_damaged(dir, problem, diag);
    goto out;
  }
  /* The map stays as large as asked, for readers too: a map at the file's
   * size would not spare a bus error the checks above and wn_store_check
   * let through (a page number past the file then points past the map,
   * into whatever is mapped there), and every reader would have to remap
   * each time a writer grows the file (docs/hardening.md). */
  store = calloc(1, sizeof *store);
  if (!store) {
    err = wn_diag_set(diag, WN_ENOMEM, "store: out of memory opening %s", dir);
    goto out;
  }
  store->read_only = read_only;
  if ((rc = pthread_rwlock_init(&store->map_lock, NULL)) != 0) {
    err = wn_diag_set(diag, WN_ESTORE, "store: cannot create a lock for %s: %s", dir,
                      strerror(rc));
    goto out;
  }
  store->lock_ready = 1;

  /* Default locking (no MDB_NOLOCK): many reader processes beside one writer. */
  const unsigned int env_flags = MDB_NOTLS | (read_only ? MDB_RDONLY : 0u);
  rc = wn_store_env_open(store, dir, map_size, env_flags);
  if (read_only && (rc == EACCES || rc == EROFS || rc == EPERM)) {
    /* The lock file cannot be opened for writing: lmdb.h, "Restrictions/
     * caveats": "there is normally no pure read-only mode, since readers
     * need write access to locks and lock file", except on read-only file
     * systems or with MDB_NOLOCK. A store owned by someone else (or a
     * read-only copy) is read with MDB_NOLOCK; wn_store_open's contract says
     * what that costs. A data.mdb we cannot read fails here again. EPERM:
     * an immutable lock.mdb (chattr +i), which stops even root. */
    mdb_env_close(store->env);
    store->env = NULL;
    rc = wn_store_env_open(store, dir, map_size, env_flags | MDB_NOLOCK);
    if (rc == MDB_SUCCESS)
      store->lockless = 1;
  }
  if (rc == ENOENT) {
    err = wn_diag_set(diag, WN_ENOTFOUND, "store: no store in %s (data.mdb is missing)", dir);
    goto out;
  }
  if (rc != MDB_SUCCESS) {
    err = wn_diag_set(diag, rc == ENOSPC ? WN_ENOSPACE : WN_ESTORE, "store: cannot open %s: %s",
                      dir, mdb_strerror(rc));
    goto out;
  }
  /* On a read-only file system LMDB itself drops the lock file of an
   * MDB_RDONLY environment without a word (lmdb.h, MDB_RDONLY: "except on
   * read-only filesystems, where LMDB does not use locks"): say so too. */
  struct statvfs fs;
  if (read_only && !store->lockless && statvfs(dir, &fs) == 0 && (fs.f_flag & ST_RDONLY))
    store->lockless = 1;
  /* Free reader slots left by processes that died mid-read. */
  int dead = 0;
  if ((rc = mdb_reader_check(store->env, &dead)) != MDB_SUCCESS) {
    err = wn_diag_set(diag, WN_ESTORE, "store: cannot check readers of %s: %s", dir,
                      mdb_strerror(rc));
    goto out;
  }

  rc = mdb_txn_begin(store->env, NULL, read_only ? MDB_RDONLY : 0u, &txn);
  if (rc == MDB_MAP_RESIZED && (rc = mdb_env_set_mapsize(store->env, 0)) == MDB_SUCCESS)
    rc = mdb_txn_begin(store->env, NULL, read_only ? MDB_RDONLY : 0u, &txn);
  if (rc != MDB_SUCCESS) {
    err = wn_diag_set(diag, WN_ESTORE, "store: cannot begin a transaction in %s: %s", dir,
                      mdb_strerror(rc));
    goto out;
  }
  rc = mdb_dbi_open(txn, WN_STORE_DB_NAME, read_only ? 0u : MDB_CREATE, &store->dbi);
  if (rc == MDB_NOTFOUND) {
    err = wn_diag_set(diag, WN_ENOTFOUND, "store: %s has no \"%s\" database (not a winnow store)",
                      dir, WN_STORE_DB_NAME);
    goto out;
  }
  if (rc != MDB_SUCCESS) {
    err = wn_diag_set(diag, WN_ESTORE, "store: cannot open the \"%s\" database in %s: %s",
                      WN_STORE_DB_NAME, dir, mdb_strerror(rc));
    goto out;
  }
  /* The counters live in their own database, so counting never touches a
   * record. A read-only open of a store that never counted has none. */
  rc = mdb_dbi_open(txn, WN_STORE_STATS_DB_NAME, read_only ? 0u : MDB_CREATE, &store->stats_dbi);
  if (rc == MDB_SUCCESS) {
    store->have_stats = 1;
  } else if (!(rc == MDB_NOTFOUND && read_only)) {
    err = wn_diag_set(diag, WN_ESTORE, "store: cannot open the \"%s\" database in %s: %s",
                      WN_STORE_STATS_DB_NAME, dir, mdb_strerror(rc));
    goto out;
  }
  /* The daemon's refresh schedule (wn_store_schedule_*), kept apart from
   * the records: a site may be scheduled before it has a template. */
  rc = mdb_dbi_open(txn, WN_STORE_SCHED_DB_NAME, read_only ? 0u : MDB_CREATE, &store->sched_dbi);
  if (rc == MDB_SUCCESS) {
    store->have_sched = 1;
  } else if (!(rc == MDB_NOTFOUND && read_only)) {
    err = wn_diag_set(diag, WN_ESTORE, "store: cannot open the \"%s\" database in %s: %s",
                      WN_STORE_SCHED_DB_NAME, dir, mdb_strerror(rc));
    goto out;
  }
  /* Pending samples (pending.c): pages of sites without a template, and
   * the order those sites were last seen in. */
  rc = mdb_dbi_open(txn, WN_STORE_PENDING_DB_NAME, read_only ? 0u : MDB_CREATE,
                    &store->pending_dbi);
  if (rc == MDB_SUCCESS)
    rc = mdb_dbi_open(txn, WN_STORE_ORDER_DB_NAME, read_only ? 0u : MDB_CREATE,
                      &store->order_dbi);
  if (rc == MDB_SUCCESS) {
    store->have_pending = 1;
  } else if (!(rc == MDB_NOTFOUND && read_only)) {
    err = wn_diag_set(diag, WN_ESTORE, "store: cannot open the \"%s\" databases in %s: %s",
                      WN_STORE_PENDING_DB_NAME, dir, mdb_strerror(rc));
    goto out;
  }
  /* Committing (even a read transaction) makes the DBI handle usable by
   * later transactions. */
  rc = mdb_txn_commit(txn);
  txn = NULL;
  if (rc != MDB_SUCCESS) {
    err = wn_diag_set(diag, rc == MDB_MAP_FULL || rc == ENOSPC ? WN_ENOSPACE : WN_ESTORE,
                      "store: cannot create the \"%s\" database in %s: %s", WN_STORE_DB_NAME, dir,
                      mdb_strerror(rc));
    goto out;
  }
  *out = store;
  store = NULL;

out:
  if (txn)
    mdb_txn_abort(txn);
  wn_store_close(store);
  return err;
}

void wn_store_close(wn_store *store) {
  if (!store)
    return;
  /* lmdb.h: mdb_env_close also discards an environment that failed to open. */
  if (store->env)
    mdb_env_close(store->env);
  if (store->lock_ready)
    pthread_rwlock_destroy(&store->map_lock);
  free(store);
}

/* ---- records ----------------------------------------------------------- */

wn_err wn_store_put(wn_store *store, const char *site, const wn_store_record *record,
                    uint64_t *generation_out, size_t *record_bytes_out, wn_diag *diag) {
  wn_err err = WN_OK;
  MDB_txn *txn = NULL;
  wn_buf encoded;
  wn_diag inner;
  int rc;

  wn_buf_init(&encoded, 0);
  if (!store || !record)
    return wn_diag_set(diag, WN_EINVAL, "store: put needs a store and a record");
  MDB_val key;
  if ((err = wn_store_write_begin(store, site, "write", &txn, &key, diag)))
    return err;
  MDB_val value;
  uint64_t old_generation = 0;
  rc = mdb_get(txn, store->dbi, &key, &value);
  if (rc == MDB_SUCCESS) {
    /* An old record that does not decode counts as generation 0 and is
     * replaced all the same: a new template is the repair. */
    wn_store_record old;
    if (wn_store_record_parse(value.mv_data, value.mv_size, 0, &old, NULL) == WN_OK)
      old_generation = old.generation;
  } else if (rc != MDB_NOTFOUND) {
    err = wn_store_mdb_error(store, rc, "cannot read the old record", site, diag);
    goto out;
  }
  if (old_generation == UINT64_MAX) {
    err = wn_diag_set(diag, WN_ESTORE, "store: generation of site %s cannot grow past %llu", site,
                      (unsigned long long)old_generation);
    goto out;
  }

  wn_store_record next = *record;
  next.format_version = WN_STORE_FORMAT_VERSION;
  next.generation = old_generation + 1;
  wn_diag_clear(&inner);
  if ((err = wn_store_record_encode(&next, &encoded, &inner))) {
    wn_diag_set(diag, err, "store: cannot write site %s: %s", site, wn_store_diag_detail(&inner, err));
    goto out;
  }
  value.mv_size = encoded.len;
  value.mv_data = encoded.data;
  if ((rc = mdb_put(txn, store->dbi, &key, &value, 0)) != MDB_SUCCESS) {
    err = wn_store_mdb_error(store, rc, "cannot write the record", site, diag);
    goto out;
  }
  /* A new template starts its counters afresh, and ends the site's
   * pending sample, in the same transaction. */
  rc = mdb_del(txn, store->stats_dbi, &key, NULL);
  if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND) {
    err = wn_store_mdb_error(store, rc, "cannot reset the counters", site, diag);
    goto out;
  }
  if ((rc = wn_store_pending_forget_txn(store, txn, &key)) != MDB_SUCCESS) {
    err = wn_store_mdb_error(store, rc, "cannot drop the pending pages", site, diag);
    goto out;
  }
  err = wn_store_write_commit(store, txn, "cannot commit the record", site, diag);
  txn = NULL;
  if (err)
    goto out;
  atomic_fetch_add_explicit(&store->puts, 1, memory_order_release);
  if (generation_out)
    *generation_out = next.generation;
  if (record_bytes_out)
    *record_bytes_out = encoded.len;

out:
  if (txn)
    wn_store_txn_abort(store, txn);
  wn_buf_free(&encoded);
  return err;
}

uint64_t wn_store_puts(const wn_store *store) {
  return store ? atomic_load_explicit(&((wn_store *)store)->puts, memory_order_acquire) : 0;
}

wn_err wn_store_get(wn_store *store, const char *site, wn_store_record **out, wn_diag *diag) {
  wn_err err = WN_OK;
  MDB_txn *txn = NULL;
  wn_diag inner;
  size_t site_len = 0;
  int rc;

  if (!out)
    return wn_diag_set(diag, WN_EINVAL, "store: get needs somewhere to put the record");
  *out = NULL;
  if (!store)
    return wn_diag_set(diag, WN_EINVAL, "store: get needs a store");
  if ((err = wn_store_site_check(site, &site_len, diag)))
    return err;

  if ((err = wn_store_txn_open(store, MDB_RDONLY, site, &txn, diag)))
    goto out;
  MDB_val key = wn_store_key(site, site_len);
  MDB_val value;
  rc = mdb_get(txn, store->dbi, &key, &value);
  if (rc == MDB_NOTFOUND) {
    err = wn_diag_set(diag, WN_ENOTFOUND, "store: no template for site %s", site);
    goto out;
  }
  if (rc != MDB_SUCCESS) {
    err = wn_store_mdb_error(store, rc, "cannot read the record", site, diag);
    goto out;
  }
  /* value points into the map, valid only until the transaction ends:
   * decode copies it first. */
  wn_diag_clear(&inner);
  if ((err = wn_store_record_decode(value.mv_data, value.mv_size, out, &inner)))
    wn_diag_set(diag, err, "store: site %s: %s", site, wn_store_diag_detail(&inner, err));

out:
  if (txn)
    wn_store_txn_abort(store, txn);
  return err;
}

wn_err wn_store_delete(wn_store *store, const char *site, wn_diag *diag) {
  wn_err err = WN_OK;
  MDB_txn *txn = NULL;
  MDB_val key;
  int rc;

  if (!store)
    return wn_diag_set(diag, WN_EINVAL, "store: delete needs a store");
  if ((err = wn_store_write_begin(store, site, "delete", &txn, &key, diag)))
    return err;
  rc = mdb_del(txn, store->dbi, &key, NULL);
  if (rc == MDB_NOTFOUND) {
    err = wn_diag_set(diag, WN_ENOTFOUND, "store: no template for site %s", site);
    goto out;
  }
  if (rc != MDB_SUCCESS) {
    err = wn_store_mdb_error(store, rc, "cannot delete the record", site, diag);
    goto out;
  }
  rc = mdb_del(txn, store->stats_dbi, &key, NULL);
  if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND) {
    err = wn_store_mdb_error(store, rc, "cannot delete the counters", site, diag);
    goto out;
  }
  err = wn_store_write_commit(store, txn, "cannot commit the delete", site, diag);
  txn = NULL;

out:
  if (txn)
    wn_store_txn_abort(store, txn);
  return err;
}

/*
 * Sites are read in batches, one short read transaction per batch, and the
 * callback runs between transactions: it may itself get, put or delete, and
 * a slow callback does not keep LMDB from reusing pages. Each batch resumes
 * strictly after the last name handed out, so every site is seen at most
 * once and in key order; sites added or removed meanwhile may or may not be
 * seen.
 */
wn_err wn_store_list(wn_store *store, wn_store_site_fn fn, void *ctx, wn_diag *diag) {
  wn_err err = WN_OK;
  MDB_txn *txn = NULL;
  MDB_cursor *cursor = NULL;
  char(*names)[WN_STORE_MAX_SITE + 1] = NULL;
  char last[WN_STORE_MAX_SITE + 1];
  size_t last_len = 0;
  int have_last = 0;
  int rc;

  if (!store || !fn)
    return wn_diag_set(diag, WN_EINVAL, "store: list needs a store and a callback");
  names = malloc(WN_STORE_LIST_BATCH * sizeof *names);
  if (!names)
    return wn_diag_set(diag, WN_ENOMEM, "store: out of memory listing sites");

  for (;;) {
    size_t count = 0;
    int done = 0;
    if ((rc = wn_store_txn_begin(store, MDB_RDONLY, &txn)) != MDB_SUCCESS ||
        (rc = mdb_cursor_open(txn, store->dbi, &cursor)) != MDB_SUCCESS) {
      err = wn_store_list_error(rc, diag);
      goto out;
    }
    MDB_val key = wn_store_key(last, last_len);
    MDB_val value;
    MDB_cursor_op op = have_last ? MDB_SET_RANGE : MDB_FIRST;
    while (count < WN_STORE_LIST_BATCH) {
      rc = mdb_cursor_get(cursor, &key, &value, op);
      if (rc == MDB_NOTFOUND) {
        done = 1;
        break;
      }
      if (rc != MDB_SUCCESS) {
        err = wn_store_list_error(rc, diag);
        goto out;
      }
      const int resumed_at_last = op == MDB_SET_RANGE && key.mv_size == last_len &&
                                  memcmp(key.mv_data, last, last_len) == 0;
      op = MDB_NEXT;
      if (resumed_at_last)
        continue;
      if (key.mv_size == 0 || key.mv_size > WN_STORE_MAX_SITE ||
          memchr(key.mv_data, '\0', key.mv_size)) {
        err = wn_diag_set(diag, WN_ECORRUPT,
                          "store: a key of %zu bytes is not a site name (not written by winnow)",
                          key.mv_size);
        goto out;
      }
      memcpy(names[count], key.mv_data, key.mv_size);
      names[count][key.mv_size] = '\0';
      count++;
    }
    mdb_cursor_close(cursor);
    cursor = NULL;
    wn_store_txn_abort(store, txn);
    txn = NULL;

    for (size_t i = 0; i < count; i++)
      if (fn(names[i], ctx) != 0)
        goto out;
    if (done || count == 0)
      break;
    last_len = strlen(names[count - 1]);
    memcpy(last, names[count - 1], last_len + 1);
    have_last = 1;
  }

out:
  if (cursor)
    mdb_cursor_close(cursor);
  if (txn)
    wn_store_txn_abort(store, txn);
  free(names);
  return err;
}

wn_err wn_store_env_get(wn_store *store, wn_store_env *out, wn_diag *diag) {
  wn_err err = WN_OK;
  MDB_txn *txn = NULL;
  MDB_envinfo info;
  MDB_stat st;
  int rc;
  if (!store || !out)
    return wn_diag_set(diag, WN_EINVAL, "store: env needs a store");
  memset(out, 0, sizeof *out);
  const char *path = NULL;
  if (mdb_env_get_path(store->env, &path) == MDB_SUCCESS)
    out->path = path;
  if ((err = wn_store_txn_open(store, MDB_RDONLY, "(stats)", &txn, diag)))
    goto out;
  if ((rc = mdb_env_info(store->env, &info)) != MDB_SUCCESS ||
      (rc = mdb_stat(txn, store->dbi, &st)) != MDB_SUCCESS) {
    err = wn_store_mdb_error(store, rc, "cannot read the statistics", "(stats)", diag);
    goto out;
  }
  out->map_bytes = info.me_mapsize;
  out->pages_used = (uint64_t)info.me_last_pgno + 1;
  out->page_bytes = st.ms_psize;
  out->depth = st.ms_depth;
  out->entries = st.ms_entries;
  if (store->have_stats && mdb_stat(txn, store->stats_dbi, &st) == MDB_SUCCESS)
    out->counter_entries = st.ms_entries;
  if (path) {
    /* LMDB keeps its data in DIR/data.mdb (no MDB_NOSUBDIR here). */
    char file[4096];
    struct stat fst;
    int k = snprintf(file, sizeof file, "%s/data.mdb", path);
    if (k > 0 && (size_t)k < sizeof file && stat(file, &fst) == 0)
      out->file_bytes = (uint64_t)fst.st_size;
  }
out:
  if (txn)
    wn_store_txn_abort(store, txn);
  return err;
}

/* ---- snapshots ---------------------------------------------------------------
 *
 * mdb_env_copy2 with MDB_CP_COMPACT writes the data of one read transaction
 * (lmdb.h: "a consistent copy", taken while writers go on) into a new
 * directory, free pages left out; the copy is a complete store that
 * workers may open read-only, on a read-only file system too.
 */
wn_err wn_store_snapshot(wn_store *store, const char *dir, wn_diag *diag) {
  if (!store || !dir || !*dir)
    return wn_diag_set(diag, WN_EINVAL, "store: snapshot needs a store and a directory");
  struct stat st;
  if (stat(dir, &st) == 0) {
    if (!S_ISDIR(st.st_mode))
      return wn_diag_set(diag, WN_EINVAL, "store: %s exists and is not a directory", dir);
    char data[4200];
    snprintf(data, sizeof data, "%s/data.mdb", dir);
    if (stat(data, &st) == 0)
      return wn_diag_set(diag, WN_EINVAL,
                         "store: %s already holds a store; snapshot into a new directory", dir);
  } else if (mkdir(dir, 0755) != 0) {
    return wn_diag_set(diag, WN_ESTORE, "store: cannot create %s: %s", dir, strerror(errno));
  }
  int rc = pthread_rwlock_rdlock(&store->map_lock);
  if (rc != 0)
    return wn_diag_set(diag, WN_ESTORE, "store: snapshot: %s", strerror(rc));
  rc = mdb_env_copy2(store->env, dir, MDB_CP_COMPACT);
  pthread_rwlock_unlock(&store->map_lock);
  if (rc != MDB_SUCCESS)
    return wn_diag_set(diag, rc == ENOSPC ? WN_ENOSPACE : WN_ESTORE,
                       "store: cannot copy the store into %s: %s", dir, mdb_strerror(rc));
  return WN_OK;
}
