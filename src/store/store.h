/*
 * store: site templates in an embedded LMDB environment (a directory).
 *
 * One record per site, keyed by the site name (a host such as
 * "www.example.com", at most WN_STORE_MAX_SITE bytes). A record holds the
 * template bytes (opaque to the store; the template module encodes and
 * checks them) and metadata: record format version, algorithm, learned-at
 * time, a generation number that grows by one each time the site's template
 * is replaced, the sample pages it was learned from, and counts. From
 * record format 2 on it also keeps what a scheduler needs to learn the site
 * again on its own: the key page and the learn/crawl parameters.
 *
 * Replacing a record is one LMDB write transaction: a reader sees the old or
 * the new record, never a mix. Any number of processes may read while one
 * writes (LMDB's MVCC). A record that does not decode (other format version,
 * truncated, corrupt) is WN_EVERSION / WN_ECORRUPT for that site, never a
 * crash.
 */
#ifndef WN_STORE_H
#define WN_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

#include <winnow/winnow.h>

#include "store/schedule.h"

#define WN_STORE_FORMAT_VERSION 2u     /* written by put and encode */
#define WN_STORE_FORMAT_VERSION_MIN 1u /* oldest version decode still reads */
#define WN_STORE_MAX_SITE 255u
#define WN_STORE_MAX_PAGES 64u
#define WN_STORE_MAX_PAGE_NAME 2048u
#define WN_STORE_MAX_TEMPLATE ((size_t)64 * 1024 * 1024)
#define WN_STORE_DEFAULT_MAP_SIZE ((size_t)1 << 30) /* 1 GiB of address space */
#define WN_STORE_MAX_USER_AGENT 256u /* bytes of wn_store_learn_params.user_agent, NUL included */

/* wn_store, wn_store_options, wn_store_open and wn_store_close are public
 * (include/winnow/winnow.h). */


/* One sample page a template was learned from. */
typedef struct wn_store_page {
  char *name;        /* URL or file name */
  uint64_t bytes;    /* size of the page as fetched/read */
  int32_t http_status; /* 0 for local files */
  uint32_t fetch_ms;   /* 0 for local files */
} wn_store_page;

/* How a site was learned, kept so that it can be learned again the same way
 * (record format 2; all zero in a decoded format-1 record). The store keeps
 * these values without interpreting them, beyond checking their bounds. */
typedef struct wn_store_learn_params {
  uint8_t from_url;  /* 1: crawled from key_page; 0: local files (0 or 1) */
  uint8_t by_domain; /* same site = registrable domain, not host (0 or 1) */
  uint8_t selector;  /* detect selector kept for the site (a wn_detect_selector) */
  uint32_t min_count, n, max_fetches;
  double min_share;  /* finite, 0 to 1 */
  uint32_t host_delay_ms, timeout_ms;
  uint64_t max_body_bytes;
  char user_agent[WN_STORE_MAX_USER_AGENT]; /* NUL-terminated; "" for the default */
} wn_store_learn_params;

typedef struct wn_store_record {
  uint32_t format_version;  /* filled by get (the version read); put writes the current one */
  char algorithm[16];       /* e.g. "etdm" */
  int64_t learned_at;       /* Unix seconds */
  uint64_t generation;      /* filled by put/get: 1 for the first template */
  uint32_t n_pages;
  wn_store_page *pages;
  uint32_t page_nodes;      /* nodes of the sample pages, summed */
  uint32_t template_nodes;  /* nodes the template keeps */
  unsigned char *template_bytes;
  size_t template_len;
  /* Record format 2: */
  char *key_page;           /* URL or file the site was learned from; may be NULL
                               (at most WN_STORE_MAX_PAGE_NAME bytes; "" is
                               stored as NULL) */
  wn_store_learn_params params;
} wn_store_record;

/* wn_store_open (public, winnow.h) creates the directory if needed (not
 * with read_only). opts NULL: the defaults.
 *
 * Read-only stores: with opts->read_only, a store whose lock file cannot be
 * opened for writing (lock.mdb not writable by us, or missing in a directory
 * we cannot write, or a read-only file system) is opened without LMDB's
 * lock file; wn_store_lockless() then says so. Without the lock, readers are
 * not registered, so a writer in another process could reuse pages a read
 * is using: such a store is only safe to read while nobody writes to it,
 * which is what a read-only file system or a read-only copy ensures. */

/* wn_store_lockless (public): 1 if the store was opened read-only without
 * a lock file; 0 otherwise and for NULL. */

/* 1 if the store was opened for writing; 0 otherwise and for NULL. */
int wn_store_writable(const wn_store *store);

/* The map size in effect (bytes): the requested one, or more when the data
 * on disk (or another process) needed more. 0 for NULL. */
size_t wn_store_map_size(const wn_store *store);

/* Writes (or replaces) a site's record in one transaction, in the current
 * record format. The record's generation and format_version are set by the
 * store (old generation + 1); *generation_out (may be NULL) receives the new
 * generation and *record_bytes_out (may be NULL) the size of the encoded
 * record as stored. A store whose map is full is WN_ENOSPACE ("store is
 * full (map size N MiB); reopen with a larger map size"). */
wn_err wn_store_put(wn_store *store, const char *site, const wn_store_record *record,
                    uint64_t *generation_out, size_t *record_bytes_out, wn_diag *diag);

/* Reads a site's record into memory the caller owns (free with
 * wn_store_record_free). WN_ENOTFOUND when the site has none. */
wn_err wn_store_get(wn_store *store, const char *site, wn_store_record **out, wn_diag *diag);

/* Records written through this handle since it was opened (wn_store_put):
 * a reader in the same process compares it with the value it last saw to
 * notice a site learned meanwhile without reading the store. */
uint64_t wn_store_puts(const wn_store *store);

/* Removes a site's record. WN_ENOTFOUND when it had none. */
wn_err wn_store_delete(wn_store *store, const char *site, wn_diag *diag);

/* Calls fn for each site in key order, stopping at the first nonzero
 * return. The name is valid only during the call. */
typedef int (*wn_store_site_fn)(const char *site, void *ctx);
wn_err wn_store_list(wn_store *store, wn_store_site_fn fn, void *ctx, wn_diag *diag);

/* ---- detection counters and drift ------------------------------------------
 *
 * Per site, beside its record, the store counts the pages detected with the
 * site's current template and how many of them fitted it badly (match
 * confidence below the caller's threshold, served by the fallback). The
 * counters belong to one template generation: storing a new template (put)
 * or deleting the site starts them afresh. Counting is one small write
 * transaction and never rewrites the template.
 *
 * "Recent" counts cover about the last WN_STORE_RECENT_WINDOW pages: when
 * recent_pages passes the window, both recent counts are halved (keeping
 * their ratio), so old pages fade out geometrically and a redesign shows up
 * within a few hundred pages however long the template has served.
 */
#define WN_STORE_RECENT_WINDOW 512u

typedef struct wn_store_stats {
  uint64_t generation;   /* template generation the counts belong to */
  wn_site_counts counts; /* since that template was stored (the public
                            struct: pages, low, the recent window above,
                            updated_at) */
} wn_store_stats;

/* When a site counts as drifting: at least min_pages recent pages, and a
 * share of low-confidence pages among them of at least max_low_share. */
/* The policy is public (wn_drift_policy, include/winnow/winnow.h). */
typedef wn_drift_policy wn_store_drift_policy;
#define WN_STORE_DRIFT_MIN_PAGES 20u
#define WN_STORE_DRIFT_SHARE 0.25

/* Adds pages detections, low of them low-confidence, to the site's
 * counters, if the site's current template generation is generation (the
 * one the caller detected with; 0 means whatever is current). Counts for a
 * generation that has since been replaced are dropped (*counted = 0), as
 * are counts for a site without a record (WN_ENOTFOUND). after (may be
 * NULL) receives the counters as stored. low > pages is WN_EINVAL. */
wn_err wn_store_count(wn_store *store, const char *site, uint64_t generation, uint32_t pages,
                      uint32_t low, int *counted, wn_store_stats *after, wn_diag *diag);

/* The site's counters (all zero but generation when nothing was counted
 * for its current template). WN_ENOTFOUND when the site has no record. */
wn_err wn_store_stats_get(wn_store *store, const char *site, wn_store_stats *out,
                          wn_diag *diag);

/* 1 if the counters say the site drifts under the policy (NULL: defaults). */
int wn_store_drifting(const wn_site_counts *counts, const wn_store_drift_policy *policy);

void wn_store_record_free(wn_store_record *record);

/* Encodes/decodes a record to/from its stored bytes (exposed for tests and
 * the dump tool). encode writes the current format (WN_STORE_FORMAT_VERSION),
 * appends to out and leaves it as it was on failure. decode reads formats
 * WN_STORE_FORMAT_VERSION_MIN to WN_STORE_FORMAT_VERSION (a format-1 record
 * decodes with key_page NULL and params all zero); it copies, so the input
 * may be freed after. */
wn_err wn_store_record_encode(const wn_store_record *record, wn_buf *out, wn_diag *diag);
wn_err wn_store_record_decode(const void *bytes, size_t len, wn_store_record **out,
                              wn_diag *diag);

/* ---- the refresh schedule ----------------------------------------------------
 *
 * What the daemon's scheduler knows about a site (winnow serve), kept per
 * site in its own database so that it survives a restart and exists before
 * the site's first template (wn_store_schedule: store/schedule.h). One
 * small write transaction per update.
 */
/* Writes a site's schedule (last_error is cut to fit). */
wn_err wn_store_schedule_put(wn_store *store, const char *site, const wn_store_schedule *sched,
                             wn_diag *diag);
/* Reads it: WN_ENOTFOUND when the site has none, WN_ECORRUPT when it does
 * not decode. */
wn_err wn_store_schedule_get(wn_store *store, const char *site, wn_store_schedule *out,
                             wn_diag *diag);
/* Forgets it: WN_ENOTFOUND when the site had none. */
wn_err wn_store_schedule_delete(wn_store *store, const char *site, wn_diag *diag);

/* ---- pending samples (pending.c) ------------------------------------------
 *
 * The collector's pages of sites without a template, kept per site
 * (compressed, zstd) until the site is learned; storing a template (put, raw put)
 * drops them in the same transaction. The public half (each, totals,
 * drop) is in winnow.h. */

/* A page to keep: name (the URL or file name, 1 to WN_STORE_MAX_PAGE_NAME
 * bytes), url and charset (may be NULL), the page's bytes. */
typedef struct wn_store_pending_page {
  const char *name, *url, *charset;
  const void *bytes;
  size_t len;
} wn_store_pending_page;

/* For one site: drop 1 forgets what it held first; then its pages are
 * appended (a page whose name it holds already is not). */
typedef struct wn_store_pending_op {
  const char *site;
  int drop;
  const wn_store_pending_page *pages;
  uint32_t n_pages;
} wn_store_pending_op;

typedef struct wn_store_pending_limits {
  uint32_t site_pages; /* pages kept per site (1 to WN_STORE_MAX_PAGES) */
  uint64_t sites;      /* sites kept in all */
  uint64_t bytes;      /* bytes stored in all */
} wn_store_pending_limits;

typedef struct wn_store_pending_outcome {
  uint64_t added;         /* pages written */
  uint64_t skipped;       /* not: held already, the site full, or it has a template */
  uint64_t sites_evicted; /* least recently seen sites dropped for the limits */
  uint64_t pages_evicted;
  uint64_t damaged;       /* entries that did not decode, replaced */
} wn_store_pending_outcome;

/* The ops in ONE write transaction, then the limits enforced. On failure
 * nothing is written (WN_ENOSPACE: the map or the disk is full). */
wn_err wn_store_pending_apply(wn_store *store, const wn_store_pending_op *ops, size_t n,
                              const wn_store_pending_limits *limits,
                              wn_store_pending_outcome *res, wn_diag *diag);

/* A page read back (owned: wn_store_pending_held_free). */
typedef struct wn_store_pending_held {
  char *name, *url; /* url NULL when none */
  char charset[64];
  char *bytes;
  size_t len;
} wn_store_pending_held;

/* The first max_pages pages kept for site, inflated. WN_ENOTFOUND: none;
 * WN_ECORRUPT: the entry does not decode. */
wn_err wn_store_pending_get(wn_store *store, const char *site, uint32_t max_pages,
                            wn_store_pending_held **out, uint32_t *n, wn_diag *diag);
void wn_store_pending_held_free(wn_store_pending_held *pages, uint32_t n);
/* One entry's bytes as stored, checked and decompressed (the fuzz target
 * and wn_store_pending_get): WN_ECORRUPT when they do not decode. */
wn_err wn_store_pending_entry_decode(const void *bytes, size_t len, uint32_t max_pages,
                                     wn_store_pending_held **out, uint32_t *n, wn_diag *diag);

/* ---- the dump tool: raw records, the environment (winnow-dump) -----------
 *
 * Records as the store encodes them, for export/import and verify: the
 * bytes are handed over as stored, never re-encoded, so a snapshot moved
 * to another store is byte-identical. */

/* Calls fn for each site in key order with its record bytes and its
 * counters' bytes (NULL, 0 if none), all in ONE read transaction (a
 * consistent snapshot); the bytes are valid only during the call, and fn
 * must not call into the store (it runs inside the transaction). Stops at
 * fn's first nonzero return. */
typedef int (*wn_store_raw_fn)(const char *site, const void *record, size_t record_len,
                               const void *counters, size_t counters_len, void *ctx);
wn_err wn_store_raw_each(wn_store *store, wn_store_raw_fn fn, void *ctx, wn_diag *diag);

/* One site's record and counters as stored (counters may be NULL, 0). */
typedef struct wn_store_raw {
  const char *site;
  const void *record;
  size_t record_len;
  const void *counters;
  size_t counters_len;
  int newer_only; /* 1: written only if its generation is greater than the
                     site's record's (a damaged or missing one counts 0) */
} wn_store_raw;

/* Writes n raw records in ONE write transaction, after checking every one
 * (site name, record parse and checksum, counters) before writing any:
 * WN_ECORRUPT / WN_EVERSION / WN_EINVAL naming the item, and nothing
 * written. A site's counters are replaced by the item's (or removed when
 * it has none). replaced (may be NULL; n entries) receives 1 for each site
 * that had a record before, 2 for an item left out by newer_only. */
wn_err wn_store_raw_put(wn_store *store, const wn_store_raw *items, size_t n, uint8_t *replaced,
                        wn_diag *diag);

/* Counters bytes as stored: 0 if they decode (WN_STORE_STATS_LEN bytes,
 * known version, checksum), else -1. */
int wn_store_counters_check(const void *bytes, size_t len);

/* What LMDB says about the environment (mdb_env_info, mdb_stat), and the
 * size of data.mdb on disk. */
typedef struct wn_store_env {
  const char *path;          /* the store directory, valid while it is open */
  uint64_t file_bytes;
  uint64_t map_bytes;
  uint64_t page_bytes;
  uint64_t pages_used;       /* last page number used + 1 */
  uint32_t depth;            /* B-tree depth of the sites database */
  uint64_t entries;          /* records in the sites database */
  uint64_t counter_entries;  /* entries in the counters database */
} wn_store_env;
wn_err wn_store_env_get(wn_store *store, wn_store_env *out, wn_diag *diag);

/* ---- a damaged store (store/damage.c) ---------------------------------------
 *
 * wn_store_check (public) walks the store in a child process. What
 * wn_store_open checks in process, before LMDB maps the file: */
typedef struct wn_store_file {
  int exists;              /* 0: no data.mdb (nothing else is filled) */
  uint64_t file_bytes;
  uint64_t page_bytes;
  uint64_t pages_used;     /* the newer meta page's last page + 1 */
  uint64_t pages_past_end; /* whole pages after them (an interrupted write's) */
} wn_store_file;

/* Reads DIR/data.mdb's two meta pages with pread (never through a map) and
 * its size: problem (cap bytes) receives what is wrong, or "" when the file
 * may be handed to LMDB. The error is for failing to read at all. */
wn_err wn_store_file_check(const char *dir, wn_store_file *out, char *problem, size_t cap,
                           wn_diag *diag);

/* WN_ESTORE (the store's fault: exit 3) with "store DIR is damaged: PROBLEM; restore it from a
 * backup (...)". */
wn_err wn_store_damaged(const char *dir, const char *problem, wn_diag *diag);

#endif /* WN_STORE_H */
