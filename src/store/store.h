/*
 * store: site templates in an embedded LMDB environment (a directory).
 *
 * One record per site, keyed by the site name (a host such as
 * "www.example.com", at most WN_STORE_MAX_SITE bytes). A record holds the
 * template bytes (opaque to the store; the template module encodes and
 * checks them) and metadata: record format version, algorithm, learned-at
 * time, a generation number that grows by one each time the site's template
 * is replaced, the sample pages it was learned from, and counts.
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

#define WN_STORE_FORMAT_VERSION 1u
#define WN_STORE_MAX_SITE 255u
#define WN_STORE_MAX_PAGES 64u
#define WN_STORE_MAX_PAGE_NAME 2048u
#define WN_STORE_MAX_TEMPLATE ((size_t)64 * 1024 * 1024)
#define WN_STORE_DEFAULT_MAP_SIZE ((size_t)1 << 30) /* 1 GiB of address space */

typedef struct wn_store wn_store;

typedef struct wn_store_options {
  size_t map_size; /* 0: WN_STORE_DEFAULT_MAP_SIZE */
  int read_only;   /* open without write access (many readers) */
} wn_store_options;

/* One sample page a template was learned from. */
typedef struct wn_store_page {
  char *name;        /* URL or file name */
  uint64_t bytes;    /* size of the page as fetched/read */
  int32_t http_status; /* 0 for local files */
  uint32_t fetch_ms;   /* 0 for local files */
} wn_store_page;

typedef struct wn_store_record {
  uint32_t format_version;  /* filled by get; put writes the current one */
  char algorithm[16];       /* e.g. "etdm" */
  int64_t learned_at;       /* Unix seconds */
  uint64_t generation;      /* filled by put/get: 1 for the first template */
  uint32_t n_pages;
  wn_store_page *pages;
  uint32_t page_nodes;      /* nodes of the sample pages, summed */
  uint32_t template_nodes;  /* nodes the template keeps */
  unsigned char *template_bytes;
  size_t template_len;
} wn_store_record;

/* Creates the directory if needed. */
wn_err wn_store_open(const char *dir, const wn_store_options *opts, wn_store **out,
                     wn_diag *diag);
void wn_store_close(wn_store *store);

/* Writes (or replaces) a site's record in one transaction. The record's
 * generation and format_version are set by the store (old generation + 1);
 * *generation_out (may be NULL) receives the new generation. */
wn_err wn_store_put(wn_store *store, const char *site, const wn_store_record *record,
                    uint64_t *generation_out, wn_diag *diag);

/* Reads a site's record into memory the caller owns (free with
 * wn_store_record_free). WN_ENOTFOUND when the site has none. */
wn_err wn_store_get(wn_store *store, const char *site, wn_store_record **out, wn_diag *diag);

/* Removes a site's record. WN_ENOTFOUND when it had none. */
wn_err wn_store_delete(wn_store *store, const char *site, wn_diag *diag);

/* Calls fn for each site in key order, stopping at the first nonzero
 * return. The name is valid only during the call. */
typedef int (*wn_store_site_fn)(const char *site, void *ctx);
wn_err wn_store_list(wn_store *store, wn_store_site_fn fn, void *ctx, wn_diag *diag);

void wn_store_record_free(wn_store_record *record);

/* Encodes/decodes a record to/from its stored bytes (exposed for tests and
 * the dump tool). encode appends to out and leaves it as it was on failure.
 * decode copies; the input may be freed after. */
wn_err wn_store_record_encode(const wn_store_record *record, wn_buf *out, wn_diag *diag);
wn_err wn_store_record_decode(const void *bytes, size_t len, wn_store_record **out,
                              wn_diag *diag);

#endif /* WN_STORE_H */
