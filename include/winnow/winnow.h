/*
 * winnow.h: the public interface of libwinnow.
 *
 * winnow learns the template of a web site from a few of its pages and
 * strips it from every later page of the site, leaving the main content.
 * This header is everything a program embedding the library needs, grouped
 * by object as lmdb.h and zstd.h are:
 *
 *   1. lifecycle and errors   wn_init, site names; the base types
 *                             (wn_err, wn_diag, wn_free, wn_buf) are in
 *                             winnow/base.h, which this header includes
 *   2. the store              wn_store_open, wn_store_check, snapshots
 *   3. learning               wn_site_learn_files / _pages / _url ->
 *                             wn_learned, stored with wn_site_save
 *   4. detector, page result  wn_detector_create (one per thread),
 *                             wn_detector_detect -> wn_page_result;
 *                             wn_page_fetch (a page by its URL)
 *   5. learning while         wn_collector: pages of sites without a
 *      detecting              template held until a site can be learned
 *   6. site info              what the store holds per site, the template
 *                             as a person reads it, a detection explained
 *   7. WARC                   web archives in, WET-style text out
 *
 * Then the names deprecated for one release (docs/library.md, "Names":
 * the naming scheme) and the unstable calls (WN_UNSTABLE_API).
 *
 * The daemon (`winnow serve`) has its own header, winnow/serve.h, and its
 * own library: it is not part of libwinnow, so a program that only
 * extracts needs no HTTP server or YAML library.
 *
 * Conventions: every function that can fail returns a wn_err and takes a
 * wn_diag * (may be NULL) that receives a one-line message saying what
 * failed. Each function's comment lists the codes it returns besides
 * WN_OK; these families stand for several codes:
 *   store errors    WN_ESTORE, WN_ENOSPACE, WN_EBUSY (the store failed)
 *   record errors   WN_ECORRUPT, WN_EVERSION (a site's record does not
 *                   decode: the site's problem, not the store's)
 *   page errors     WN_ETOOBIG, WN_ETOOMANY, WN_ETOODEEP, WN_EPARSE,
 *                   WN_ECHARSET, WN_ENOTHTML (one page could not be used)
 *   network errors  WN_ENET, WN_ETIMEOUT, WN_EHTTP, WN_EROBOTS,
 *                   WN_ENOTHTML, WN_EREDIRECT (a fetch failed)
 * Handles are opaque; their *_free / *_close / *_destroy take NULL
 * harmlessly. Every *_options struct has an *_options_init() that fills
 * the documented defaults, so a caller sets only what it changes. Memory
 * the library hands over (a char ** out-parameter) is freed with
 * wn_free(); objects with a type of their own with their own *_free.
 *
 * Threads: a wn_store may be shared by any number of threads (LMDB readers
 * never block; writers are serialised). A wn_detector belongs to one thread
 * at a time (it holds that thread's template cache and pending counts):
 * create one per worker. So does a WARC reader or writer. Everything else
 * is reentrant. wn_init() and wn_cleanup() are not thread-safe: call them
 * from the main thread.
 */
#ifndef WINNOW_WINNOW_H
#define WINNOW_WINNOW_H

#include <stddef.h>
#include <stdint.h>

/* The base types (wn_err and its messages, wn_diag, wn_free, wn_buf,
 * wn_file_read) and WN_API, which marks what the shared library exports. */
#include <winnow/base.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ==== 1. lifecycle and errors ============================================ */

#define WN_VERSION_MAJOR 0
#define WN_VERSION_MINOR 4
#define WN_VERSION_PATCH 0
#define WN_VERSION_STRING "0.4.0"

/* The library's version string ("0.4.0"): may differ from the header's
 * WN_VERSION_STRING when a program runs against a newer shared library. */
WN_API const char *wn_version(void);

/* The errors themselves (wn_err, wn_strerror, wn_diag) are in
 * winnow/base.h, as are wn_free and wn_buf. */

/* Process exit codes of the winnow programs, and the one mapping from an
 * error to them: store errors 3, out of memory 4, every other error (a
 * page, URL, site, network failure, or a record error: the site's, not
 * the store's) 1. Usage errors (2) are the front end's; a front end that
 * cannot open a store at all exits 3 whatever the code. */
enum {
  WN_EXIT_OK = 0,       /* done */
  WN_EXIT_INPUT = 1,    /* a page, URL, site or record could not be used */
  WN_EXIT_USAGE = 2,    /* bad command line or configuration */
  WN_EXIT_STORE = 3,    /* the store could not be opened, read or written */
  WN_EXIT_INTERNAL = 4  /* out of memory, or the output could not be written */
};
WN_API int wn_exit_code(wn_err err);

/* Initialises libxml2's parser (and, with a libcurl older than 7.84,
 * libcurl's global state; a newer one is initialised by the first crawl,
 * so a process that only detects never initialises TLS). Call once
 * before any other call (from the main thread, before threads start); a
 * second call only counts. Returns WN_ENET if libcurl cannot initialise. */
WN_API wn_err wn_init(void);
/* Undoes wn_init() when called as many times as it was. */
WN_API void wn_cleanup(void);

/* Default caps on one page: bytes, element nodes, nesting depth. */
#define WN_PAGE_MAX_BYTES ((size_t)16 * 1024 * 1024)
#define WN_PAGE_MAX_NODES 300000u
#define WN_PAGE_MAX_DEPTH 256u

/* Every *_json function: indent (else one line). */
#define WN_JSON_PRETTY 0x1u

/* Sites. A site is the unit a template serves: the host of its URLs,
 * lower-cased, with ":port" unless the port is the scheme's default
 * ("www.example.com", "127.0.0.1:8765"). Only http and https URLs have a
 * site. */
#define WN_SITE_MAX 255u /* bytes of a site name */

/* The site of an http(s) URL into site[site_size] (site_size >= WN_SITE_MAX
 * + 1). A space or control in the path, query or fragment does not hide
 * the host (the URL is read as browsers read it); an internationalised
 * host is named in punycode ("xn--bcher-kva.example"). Returns WN_EINVAL,
 * with a message, for anything else ("ftp URLs are not supported", "not a
 * URL: ...", "url: host ... has no ASCII form ..."). */
WN_API wn_err wn_site_from_url(const char *url, char *site, size_t site_size, wn_diag *diag);
/* WN_OK if site is a site name as wn_site_from_url writes them: 1 to
 * WN_SITE_MAX bytes, a host of [a-z0-9._-] (IDN hosts in punycode) or a
 * bracketed IPv6 address, then optionally ":port". WN_EINVAL otherwise. */
WN_API wn_err wn_site_check(const char *site, wn_diag *diag);

/* ==== 2. the store ======================================================= */

/* An LMDB directory holding each site's template (its record), detection
 * counters and, for the daemon, refresh schedule. */
typedef struct wn_store wn_store;

typedef struct wn_store_options {
  size_t map_size; /* bytes of address space for the store, the largest it
                      may grow to; default 1 GiB. A store file larger than
                      it is opened at the file's size. */
  int read_only;   /* open without write access (readers only); a store on
                      a read-only file system is then opened without its
                      lock file. Default 0. */
} wn_store_options;
WN_API void wn_store_options_init(wn_store_options *opts);

/* Opens (read_only 0: creates) the store directory dir; opts NULL: the
 * defaults. The meta pages and the file size are checked first, without a
 * map: a store whose metas or size are wrong is refused as damaged.
 * Returns WN_EINVAL, WN_ENOTFOUND (read_only and no store there), store
 * errors (WN_ESTORE also for a damaged store), WN_ENOMEM. */
WN_API wn_err wn_store_open(const char *dir, const wn_store_options *opts, wn_store **out,
                            wn_diag *diag);
WN_API void wn_store_close(wn_store *store);
/* 1 if the store was opened read-only without its lock file (a read-only
 * file system): readers in other processes are then not coordinated with
 * writers, which is safe only when nothing writes. 0 otherwise and for
 * NULL. */
WN_API int wn_store_lockless(const wn_store *store);

/* A damaged store. LMDB trusts its file: a damaged page can make a reader
 * die of SIGBUS or SIGSEGV inside liblmdb, where no error code can come
 * back. So wn_store_open always reads the two meta pages and the file size
 * itself and refuses a store whose metas or size are wrong, and
 * wn_store_check walks every page of every database in a CHILD process, so
 * damage that would crash is found by the child dying, not the caller.
 * The daemon, the CLI commands that open a store and winnow-dump verify
 * call wn_store_check first. A damaged store is WN_ESTORE (a store error:
 * exit 3; WN_ECORRUPT stays a damaged record, the site's), "store DIR is
 * damaged: WHAT; restore it from a backup (winnow-dump export/import,
 * mdb_copy)". */
typedef struct wn_store_check_report {
  uint64_t file_bytes;     /* data.mdb on disk */
  uint64_t page_bytes;     /* LMDB page size, as the meta pages give it */
  uint64_t pages_used;     /* pages in use (the newer meta page's last + 1) */
  uint64_t pages_past_end; /* whole pages after those: left by a write that was
                              interrupted before its commit; harmless */
  uint64_t databases;      /* named databases walked */
  uint64_t entries;        /* entries walked, all trees (the free list too) */
  uint64_t elapsed_us;     /* wall time of the check, fork included */
  int damaged;             /* 1: the store is damaged; problem says how */
  char problem[512];       /* what is wrong; "" when nothing is */
} wn_store_check_report;

/* Checks the store in dir without trusting it: the meta pages and the
 * file size in process, then a walk of every entry of every database in a
 * forked child (tree pages, the bounds of each value, the first page of
 * each value on overflow pages; record contents are wn_store_verify's).
 * report may be NULL. Forks: call it before starting threads that hold
 * locks. The store may be open in this process too (a wn_store_open
 * handle, which stays usable): the walk opens the store in the child, a
 * process of its own, so LMDB's rule of one open per process holds. The
 * front ends check before they open, so that a damaged store is refused
 * before anything reads it. Takes a read snapshot like any reader, so
 * writers (in this process or others) may go on meanwhile. Returns
 * WN_ESTORE: damaged (report->damaged 1, report->problem and diag say
 * what) or the check itself could not run (damaged 0); WN_ENOTFOUND: no
 * store there; WN_EINVAL. */
WN_API wn_err wn_store_check(const char *dir, wn_store_check_report *report, wn_diag *diag);

/* The store as LMDB and the records say (winnow-dump stats). */
typedef struct wn_store_usage {
  const char *path;          /* the store directory; valid while it is open */
  uint64_t file_bytes;       /* data.mdb on disk */
  uint64_t map_bytes;        /* the map size in effect */
  uint64_t page_bytes;       /* LMDB page size */
  uint64_t pages_used;       /* pages of the map in use */
  uint32_t depth;            /* B-tree depth of the records */
  uint64_t records;          /* sites with a record */
  uint64_t counters;         /* sites with detection counters */
  uint64_t record_bytes;     /* the records' bytes, summed */
  uint64_t damaged;          /* records that do not decode (see wn_store_verify) */
  uint64_t by_version[8];    /* records per format version (index = version; 7: 7 or later) */
  struct {
    char name[16];
    uint64_t records;
  } algorithms[8];           /* records per algorithm, first seen first */
  size_t n_algorithms;       /* (a ninth algorithm and later count as "other") */
} wn_store_usage;
/* Reads every record. Returns WN_EINVAL, store errors, WN_ENOMEM. */
WN_API wn_err wn_store_usage_get(wn_store *store, wn_store_usage *out, wn_diag *diag);

/* Called once per damaged record with the error (a record error) and a
 * one-line message. */
typedef void (*wn_record_fn)(const char *site, wn_err err, const char *message, void *ctx);

/* Checks every record: the record itself (format version, bounds,
 * checksum) and the template it holds. fn (may be NULL) is called once per
 * damaged record, after the store's read transaction ended (fn may use the
 * store). WN_OK when the check ran, damaged or not: *n_damaged (may be
 * NULL) says; *n_records (may be NULL) receives how many were read.
 * Returns WN_EINVAL, store errors, WN_ENOMEM. */
WN_API wn_err wn_store_verify(wn_store *store, wn_record_fn fn, void *ctx, uint64_t *n_records,
                              uint64_t *n_damaged, wn_diag *diag);

/* Copies the store into dir (created; it must not hold a store already),
 * compacted, as of one read transaction: a consistent snapshot taken while
 * learning and counting go on (LMDB's mdb_env_copy2, as `mdb_copy -c`). The
 * copy is a complete store; workers may open it read-only, on a read-only
 * file system too (wn_store_options.read_only). Returns WN_EINVAL (dir
 * holds a store, or cannot be made), store errors. */
WN_API wn_err wn_store_snapshot(wn_store *store, const char *dir, wn_diag *diag);

/* A snapshot file of a store (or of some sites), for moving templates
 * between stores and machines: "WNDUMP" magic, a format version
 * (WN_EXPORT_VERSION), then each site's record exactly as the store
 * encodes it and its detection counters, then a checksum of it all.
 * Portable: little-endian throughout, no pointers, no LMDB pages. */
#define WN_EXPORT_VERSION 1u
#define WN_EXPORT_MAX_BYTES ((size_t)1 << 30) /* a snapshot file's cap */

/* Writes the snapshot of sites[0..n_sites) (n_sites 0: every site) to
 * path (written beside it, then renamed into place). Damaged records are
 * left out and reported through fn (may be NULL). *n_written (may be NULL)
 * receives the number of records written. Returns WN_ENOTEMPLATE (a named
 * site has no record: nothing is written), WN_EINVAL (a bad site name),
 * WN_ETOOBIG (past WN_EXPORT_MAX_BYTES), WN_EIO (the file), store errors,
 * WN_ENOMEM. */
WN_API wn_err wn_store_export(wn_store *store, const char *path, const char *const *sites,
                              size_t n_sites, wn_record_fn fn, void *ctx, uint64_t *n_written,
                              wn_diag *diag);

/* Called for each record imported, after the commit, with replaced 1 if
 * the site had a record before (its old template and counters are gone). */
typedef void (*wn_import_fn)(const char *site, int replaced, uint64_t generation, void *ctx);
/* Reads a snapshot and writes its records in ONE transaction, after
 * checking the file (magic, version, checksum) and decoding every record
 * and its template: nothing is written unless all of it is sound. fn may
 * be NULL; *n_imported (may be NULL) receives the count. Returns
 * WN_ECORRUPT / WN_EVERSION naming the record or the file, WN_EINVAL,
 * WN_ENOTFOUND, WN_EIO, WN_ETOOBIG (the file, as wn_file_read), store
 * errors, WN_ENOMEM. */
WN_API wn_err wn_store_import(wn_store *store, const char *path, wn_import_fn fn, void *ctx,
                              uint64_t *n_imported, wn_diag *diag);
/* As wn_store_import, but a record is written only where it is newer: its
 * generation greater than the site's record's (none, or a damaged one,
 * counts 0); fn is called and *n_merged counts for the records written.
 * The stores of workers that learned disjoint sites (sharded by site)
 * merge into one store in any order with the same result; where two files
 * hold one site at one generation, the first merged stays. */
WN_API wn_err wn_store_merge(wn_store *store, const char *path, wn_import_fn fn, void *ctx,
                             uint64_t *n_merged, wn_diag *diag);

/* Pending samples: pages of sites without a template, kept in the store
 * by a collector (section 5) until a site has enough of them to learn
 * from, across runs and restarts; dropped when the site's template is
 * stored. Bounded per site and in all (wn_collect_options), least
 * recently seen sites first out; each page compressed (zstd). */
typedef struct wn_pending_site {
  const char *site;    /* valid during the call */
  uint32_t pages;      /* pages kept */
  uint64_t bytes;      /* bytes stored (compressed, with names) */
  uint64_t page_bytes; /* the pages' own bytes */
  int64_t last_seen;   /* Unix seconds a page of it was last kept */
  int damaged;         /* 1: the entry does not decode (it is dropped when
                          next written; wn_store_pending_drop drops it now) */
} wn_pending_site;
typedef int (*wn_pending_fn)(const wn_pending_site *site, void *ctx);
/* Calls fn for each pending site in key order, inside one read
 * transaction (fn must not call into the store), stopping at fn's first
 * nonzero return. Returns WN_EINVAL, store errors. */
WN_API wn_err wn_store_pending_each(wn_store *store, wn_pending_fn fn, void *ctx, wn_diag *diag);
/* One site's entry (out->site is site). Returns WN_ENOTFOUND (none),
 * WN_EINVAL, store errors. */
WN_API wn_err wn_store_pending_site_get(wn_store *store, const char *site, wn_pending_site *out,
                                        wn_diag *diag);

typedef struct wn_pending_totals {
  uint64_t sites, pages, bytes;
} wn_pending_totals;
/* The pending samples' totals, all sites. Returns WN_EINVAL, store
 * errors. */
WN_API wn_err wn_store_pending_totals_get(wn_store *store, wn_pending_totals *out,
                                          wn_diag *diag);

/* Drops the pending pages of site (NULL: of every site); *n_dropped (may
 * be NULL) receives the sites dropped. Returns WN_ENOTFOUND (site had
 * none), WN_EINVAL (read-only, a bad name), store errors. */
WN_API wn_err wn_store_pending_drop(wn_store *store, const char *site, uint64_t *n_dropped,
                                    wn_diag *diag);

/* ==== 3. learning ======================================================== */

#define WN_LEARN_MAX_PAGES 64u /* sample pages a template is learned from */

/* How detection chooses the main content among what the template does not
 * cover. Chosen when a site is learned and kept with its template;
 * detection uses it unless told otherwise (wn_detect_options.selector). */
typedef enum wn_detect_selector {
  WN_SELECT_SITE = 0, /* detection: the selector the site's template names
                         (cues if none); learning: the default, places */
  WN_SELECT_CUES,     /* template filter, then text and link density; for
                         sites whose pages carry page-specific boxes (news,
                         portals, blogs) */
  WN_SELECT_PAPER,    /* the site-level paper's Algorithms 2 to 5 as stated */
  WN_SELECT_REGION,   /* the page's largest page-specific region, whole: for
                         sites where everything outside the template is
                         content (documentation, manuals, references) */
  WN_SELECT_PLACES    /* the default: the place the sample pages held their
                         content in, less the places they agree are not
                         content (learned with the template); cues where a
                         page does not fit */
} wn_detect_selector;
#define WN_SELECT_LAST WN_SELECT_PLACES
/* "site", "cues", "paper", "region", "places"; NULL for an unknown value. */
WN_API const char *wn_detect_selector_name(wn_detect_selector selector);
/* Parses one of those names: WN_OK and *out set, or WN_EINVAL if unknown. */
WN_API wn_err wn_detect_selector_parse(const char *name, wn_detect_selector *out);

/* The learning algorithm (wn_learn_options.algo). Both learn from the
 * same sample pages and are stored the same way; detection picks the
 * method from the site's record. FastCE (FastContentExtractor) learns the
 * traversal paths of the sample pages' content blocks and the non-content
 * blocks that share those paths, and keeps them in a record of its own
 * (algorithm "fastce"). */
typedef enum wn_learn_algo {
  WN_LEARN_ETDM = 0,  /* ETDM occurrence counts: the default */
  WN_LEARN_FASTCE = 1 /* FastCE path templates */
} wn_learn_algo;
#define WN_LEARN_ALGO_LAST WN_LEARN_FASTCE
/* "etdm", "fastce"; NULL for a value this build does not know. */
WN_API const char *wn_learn_algo_name(wn_learn_algo algo);
/* Parses one of those names: WN_OK and *out set, or WN_EINVAL if unknown. */
WN_API wn_err wn_learn_algo_parse(const char *name, wn_learn_algo *out);

typedef struct wn_learn_options {
  /* Pages a node must occur in to belong to the template: default 2. */
  uint32_t min_count;
  /* The selector detection uses for the site, kept with its template:
   * default WN_SELECT_SITE, which learning reads as places. */
  wn_detect_selector selector;
  /* A sample page joins only if its tree pairs at least this share of the
   * key page's template nodes (pages of another layout are left out):
   * default 0.5; 0 also reads as 0.5 (force keeps every page). */
  double min_share;
  /* 1: learn from every page given, whatever it shares (files only). */
  int force;
  /* Crawling: pages of the n-SET besides the key page (default 4, the
   * paper's best), candidate pages fetched at most (default 4 n), and
   * whether "same site" means the registrable domain (default 0: host). */
  uint32_t n;
  uint32_t max_fetches;
  int by_domain;
  /* The learning algorithm: default WN_LEARN_ETDM. The share check
   * (min_share, force) is the same for both; min_count and the selector
   * mean nothing to FastCE (its detection selects blocks itself) and are
   * only kept in the record. */
  wn_learn_algo algo;
} wn_learn_options;
WN_API void wn_learn_options_init(wn_learn_options *opts);

#define WN_CRAWL_DEFAULT_USER_AGENT "winnow/0.2 (+https://github.com/winnow-extract/winnow)"

typedef struct wn_crawl_options {
  const char *user_agent;       /* sent as User-Agent; robots.txt is matched
                                   on its product token ("winnow") */
  uint32_t connect_timeout_ms;  /* default 5000 */
  uint32_t timeout_ms;          /* whole transfer, default 30000 */
  size_t max_body_bytes;        /* larger bodies are refused; default 8 MiB */
  uint32_t max_redirects;       /* default and most 5 */
  uint32_t host_delay_ms;       /* least gap between requests to one host,
                                   default 500 */
  uint32_t host_parallel;       /* most requests in flight per host, default 2 */
  uint32_t max_crawl_delay_ms;  /* robots.txt Crawl-delay honoured up to
                                   this, default 10000 */
  uint32_t total_parallel;      /* most requests in flight, default 16 */
  int obey_robots;              /* default 1 */
  /* When not NULL: once *cancel is nonzero (set from another thread), the
   * crawl stops within a second and learning fails with WN_EBUSY
   * ("cancelled"). A daemon sets it to stop promptly. Default NULL. */
  const volatile int *cancel;
  /* 1: connect to no loopback, private (RFC 1918, RFC 4193), shared
   * (100.64/10), link-local (169.254/16 and fe80::/10, cloud metadata
   * services among them), multicast or reserved address: every address
   * every request and redirect resolves to is checked as the socket is
   * opened, so neither DNS nor a redirect leads around it ("address
   * 127.0.0.1 is loopback"). For crawls a stranger asks for (the daemon,
   * for sites not in its configuration). Default 0: any address (a crawl
   * of your own intranet or of 127.0.0.1). With a proxy the proxy's
   * address is the one checked. */
  int refuse_private;
} wn_crawl_options;
WN_API void wn_crawl_options_init(wn_crawl_options *opts);

/* A learned template, not yet stored, with the report of how it was
 * learned. */
typedef struct wn_learned wn_learned;

/* One sample page as learning saw it: the key page first, then the others
 * (for a crawl, each candidate in the order fetched). */
typedef struct wn_learn_page {
  const char *name;            /* URL or file name */
  int used;                    /* 1: learned from */
  double share;                /* of the key page's template nodes it pairs
                                  (1 for the key page) */
  long http_status;            /* 0 for files */
  uint64_t bytes;
  uint32_t fetch_ms;           /* 0 for files */
  uint32_t hyperlink_distance; /* crawl: 0 for the key page */
  uint32_t dom_distance;       /* crawl: UINT32_MAX for the key page */
  wn_err err;                  /* WN_OK, or why it was not used */
  const char *message;         /* "" or a one-line reason */
  uint32_t layout;             /* used: the site's layout it was learned
                                  into, from 1 (1: the key page's) */
} wn_learn_page;

typedef struct wn_learn_summary {
  const char *site;
  const char *key_page;
  int from_url;
  size_t n_pages;          /* pages reported (wn_learned_page) */
  size_t n_used;           /* pages learned from, the key page included */
  size_t n_links;          /* crawl: <a href> links on the key page */
  size_t n_candidates;     /* crawl: same-site candidates ranked */
  uint32_t page_nodes;     /* nodes of the pages learned from */
  uint32_t template_nodes; /* nodes the template keeps */
  size_t template_bytes;   /* the template encoded, as stored */
  wn_detect_selector selector; /* as stored (never WN_SELECT_SITE) */
  double network_ms;       /* crawl: waiting for answers */
  double wait_ms;          /* crawl: politeness delays */
  double compute_ms;       /* parsing, mapping, learning */
} wn_learn_summary;

/* Learns a site's template from local files, with the algorithm
 * opts->algo (ETDM by default): paths[0] is the key page, at least one
 * more page of the site is needed. Pages that share too little of the key
 * page's layout are left out (see min_share; force keeps them). *out is
 * set whenever pages were read, even on failure, so the report says why
 * (free it with wn_learned_free). opts NULL: the defaults. Returns
 * WN_EINVAL (a bad site name or option, an unknown algo, too few or too
 * many pages), WN_EEMPTY (too few pages share the layout, or the template
 * keeps nothing of it), WN_ENOTFOUND, WN_EIO and WN_ETOOBIG (a file, as
 * wn_file_read), page errors, WN_ENOMEM. */
WN_API wn_err wn_site_learn_files(const char *site, const char *const *paths, size_t n_paths,
                                  const wn_learn_options *opts, wn_learned **out,
                                  wn_diag *diag);

/* The same from pages in memory (bytes[i] of len[i] bytes, named
 * names[i]; the charset is read from each page). The same codes, less
 * those of reading files. */
WN_API wn_err wn_site_learn_pages(const char *site, const char *const *names,
                                  const char *const *bytes, const size_t *len, size_t n_pages,
                                  const wn_learn_options *opts, wn_learned **out,
                                  wn_diag *diag);

/* Learns by crawling from the key page url: fetches it, ranks its
 * same-site links (hyperlink distance, then DOM distance), fetches the best
 * candidates politely (robots.txt, per-host delay) and learns (with
 * opts->algo) from those that share the key page's template. site NULL:
 * the URL's site. crawl NULL: wn_crawl_options_init's defaults. Returns
 * WN_EINVAL (a bad URL, site or option), network errors (the key page
 * could not be fetched), WN_EBUSY (cancelled), WN_EEMPTY, page errors,
 * WN_ENOMEM. */
WN_API wn_err wn_site_learn_url(const char *url, const char *site, const wn_learn_options *opts,
                                const wn_crawl_options *crawl, wn_learned **out,
                                wn_diag *diag);

WN_API void wn_learned_summary_get(const wn_learned *learned, wn_learn_summary *out);
/* The i-th page of the report (i < n_pages); valid until wn_learned_free. */
WN_API const wn_learn_page *wn_learned_page(const wn_learned *learned, size_t i);
/* The algorithm a wn_learned was learned with. */
WN_API wn_learn_algo wn_learned_algo(const wn_learned *learned);
/* The layouts learned: 1, or more when the pages given (or crawled) came in
 * several layouts and enough of each (docs/learning.md, "Layouts"); 0
 * without a template. */
WN_API uint32_t wn_learned_layouts(const wn_learned *learned);
WN_API void wn_learned_free(wn_learned *learned);

typedef struct wn_save_info {
  uint64_t generation;   /* 1 for a site's first template, then +1 */
  size_t record_bytes;   /* size of the stored record */
} wn_save_info;

/* Stores the learned template as its site's, replacing the old one in one
 * transaction (readers see the old or the new, never a mix), with the key
 * page and the learning options so the site can be relearned from the
 * record alone. info may be NULL. Returns WN_EINVAL (no store, a store
 * opened read-only, or a wn_learned whose learning failed), store errors,
 * WN_ENOMEM. */
WN_API wn_err wn_site_save(wn_store *store, const wn_learned *learned, wn_save_info *info,
                           wn_diag *diag);

/* ==== 4. detector and page result ======================================== */

/* One page fetched as the crawler fetches its pages (robots.txt unless
 * obey_robots is 0, timeouts, the body cap, redirects, only text/html and
 * application/xhtml+xml), to detect a page given by its URL. */
typedef struct wn_fetched {
  const char *url;     /* where the page came from, after redirects */
  const char *bytes;   /* the body as received (decompressed) */
  size_t len;
  const char *charset; /* the Content-Type charset, or NULL */
  long http_status;
  uint32_t fetch_ms;
} wn_fetched;
/* crawl NULL: wn_crawl_options_init's defaults. Returns WN_EINVAL (not an
 * http(s) URL), the fetch's errors with a one-line message (WN_ENET,
 * WN_ETIMEOUT, WN_EHTTP, WN_EROBOTS, WN_ENOTHTML, WN_ETOOBIG,
 * WN_EREDIRECT), WN_ENOMEM. Free *out with wn_fetched_free. */
WN_API wn_err wn_page_fetch(const char *url, const wn_crawl_options *crawl, wn_fetched **out,
                            wn_diag *diag);
WN_API void wn_fetched_free(wn_fetched *fetched);


/* Single-page methods: no template, one page; what serves a site without
 * a template, or a page that does not fit its template. DANAg measured
 * better than CNR on both evaluation corpora (docs/single-page.md). */
typedef enum wn_single_method {
  WN_SINGLE_DANAG = 0, /* content and code density of the source lines */
  WN_SINGLE_CNR,       /* chars-nodes ratio */
  WN_SINGLE_READABILITY /* Readability's paragraph scoring alone (the second
                           reading; no step applies) */
} wn_single_method;
/* "danag" / "cnr" / "readability"; NULL for an unknown value. */
WN_API const char *wn_single_method_name(wn_single_method method);
/* Parses "cnr" / "danag" / "readability": WN_OK and *out set, or WN_EINVAL
 * if unknown. */
WN_API wn_err wn_single_method_parse(const char *name, wn_single_method *out);


/* Below this match confidence a page is taken not to fit its template.
 * Measured on the crawl-to-the-future years: a site's own pages have
 * median confidence 0.5 to 0.9, pages after a redesign 0.0 to 0.4, most
 * below 0.25. */
#define WN_DETECT_DEFAULT_MIN_CONFIDENCE 0.25

/* Why a result came from a single-page method. */
typedef enum wn_detect_fallback {
  WN_FALLBACK_NONE = 0,        /* the template served the page */
  WN_FALLBACK_NO_TEMPLATE,     /* the site has no template */
  WN_FALLBACK_LOW_CONFIDENCE,  /* the page did not fit the template */
  WN_FALLBACK_DAMAGED          /* the site's stored template cannot be read
                                  (a damaged record: winnow-dump verify) */
} wn_detect_fallback;
/* "no template", "low confidence", "damaged template"; NULL for
 * WN_FALLBACK_NONE. */
WN_API const char *wn_detect_fallback_name(wn_detect_fallback reason);

typedef struct wn_detect_options {
  wn_detect_selector selector; /* default WN_SELECT_SITE: the site's own */
  /* Pages whose match confidence is below this are served by the
   * single-page method `fallback`; 0 never falls back. Default
   * WN_DETECT_DEFAULT_MIN_CONFIDENCE. */
  double min_confidence;
  wn_single_method fallback;   /* default WN_SINGLE_DANAG */
  /* The single-page method's leaning (trafilatura's favor_precision and
   * favor_recall): WN_FAVOR_BALANCED (default) is the measured reading;
   * PRECISION keeps the density reading's block and its headline alone
   * (no second reading's blocks, no main area: less text, fewer
   * boxes); RECALL adds every block Readability's reading keeps outside
   * the not-content masks, wherever it lies (more text). Pages the
   * template serves are not affected. */
  int favor;
  /* 1: a page's comment threads (the containers the comment masks name:
   * WordPress's comments, Disqus, "replies") are kept after the content,
   * their text outside links and forms; 0 (default): left out. The
   * single-page method only. */
  int comments;
} wn_detect_options;
enum { WN_FAVOR_BALANCED = 0, WN_FAVOR_PRECISION = 1, WN_FAVOR_RECALL = 2 };
WN_API void wn_detect_options_init(wn_detect_options *opts);

/* Drift: a detector counts, per site, the pages it served and those that
 * fitted the template badly, and writes the counts to the store. */

/* When a site counts as drifting: at least min_pages recent pages, of
 * which a share of at least max_low_share fitted the template badly. */
typedef struct wn_drift_policy {
  uint32_t min_pages;   /* default 20 */
  double max_low_share; /* default 0.25 */
} wn_drift_policy;
WN_API void wn_drift_policy_init(wn_drift_policy *policy);

/* Detection counters of a site's current template. "recent" covers about
 * the last 512 pages (halved as they pass, so a redesign shows soon). */
typedef struct wn_site_counts {
  uint64_t pages;        /* detected with the current template */
  uint64_t low;          /* of which below the confidence threshold */
  uint32_t recent_pages;
  uint32_t recent_low;
  int64_t updated_at;    /* Unix seconds of the last count; 0 if never */
} wn_site_counts;
/* 1 if the counts say the site drifts under policy (NULL: defaults). */
WN_API int wn_site_drifting(const wn_site_counts *counts, const wn_drift_policy *policy);

/* A drift report: called the first time a detector's counts show a site
 * drifting (once per site, template generation and detector). */
typedef struct wn_drift_event {
  const char *site;
  uint64_t generation;
  wn_site_counts counts;
  double min_confidence;
} wn_drift_event;
typedef void (*wn_drift_fn)(const wn_drift_event *event, void *ctx);

/* A damaged template: called when a detector reads a site's record from
 * the store and cannot decode it (WN_ECORRUPT, WN_EVERSION), with the
 * site and the decoder's message. The site's pages are then served by the
 * single-page method (fallback WN_FALLBACK_DAMAGED) until the record is
 * read again (max_age_ms) and decodes: a damaged record costs its site
 * its template, never its pages. */
typedef void (*wn_damage_fn)(const char *site, const char *message, void *ctx);

typedef struct wn_detector_options {
  wn_detect_options detect;
  /* Decoded templates kept, one per site, least recently used evicted:
   * default 256. Templates are read from the store when a site is first
   * seen, and again after max_age_ms (default 60000; 0: never), so a
   * relearned template is picked up by a running detector. */
  uint32_t cache_sites;
  uint32_t max_age_ms;
  /* Count detections in the store (drift). Default 1; needs a store
   * opened for writing, else counting is off. Counts are batched per site
   * and written every flush_pages pages (default 1000) or flush_ms
   * (default 5000) of a detector's use, on eviction and on destroy: the
   * hot path does no store write. */
  int count;
  uint32_t flush_pages;
  uint32_t flush_ms;
  wn_drift_policy drift;
  wn_drift_fn on_drift; /* default NULL */
  void *drift_ctx;
  wn_damage_fn on_damage; /* default NULL; called with drift_ctx */
  /* Caps on one page: bytes (default 16 MiB), nodes (300000), depth (256). */
  size_t max_bytes;
  uint32_t max_nodes;
  uint32_t max_depth;
  /* A collector whose learned pages this detector will see (default
   * NULL): a page it learned a site from is detected from the tree
   * learning parsed, not parsed again (the same result; with the default
   * caps and without WN_WANT_HTML). */
  struct wn_collector *collector;
} wn_detector_options;
WN_API void wn_detector_options_init(wn_detector_options *opts);

/* One thread's detector: a bounded cache of decoded templates and the
 * pending counts. */
typedef struct wn_detector wn_detector;

/* store may be NULL: every page then goes to the single-page method,
 * unless a template is given with wn_detector_use. opts NULL: the
 * defaults. Returns WN_EINVAL (a bad option), WN_ENOMEM. */
WN_API wn_err wn_detector_create(wn_store *store, const wn_detector_options *opts,
                                 wn_detector **out, wn_diag *diag);
/* Writes pending counts, then frees. */
WN_API void wn_detector_destroy(wn_detector *detector);
/* Serves the learned template's site from learned (copied), whatever the
 * store holds: detection without a store. Returns WN_EINVAL (a wn_learned
 * whose learning failed), WN_EBUSY (the cache is full of sites held by
 * wn_detector_use), record errors, WN_ENOMEM. */
WN_API wn_err wn_detector_use(wn_detector *detector, const wn_learned *learned, wn_diag *diag);
/* Writes the pending counts now. Returns store errors. */
WN_API wn_err wn_detector_flush(wn_detector *detector, wn_diag *diag);

/* The charset parameter of an HTTP Content-Type value ("text/html;
 * charset=ISO-8859-1" gives "ISO-8859-1"), unquoted, into charset[size];
 * "" when there is none or it does not fit. For wn_page_input.charset. */
WN_API void wn_content_type_charset(const char *content_type, char *charset, size_t size);

/* One page to detect. */
typedef struct wn_page_input {
  const char *bytes;   /* the page as fetched */
  size_t len;
  const char *site;    /* the page's site, or NULL: from url */
  const char *url;     /* the page's URL, or NULL */
  const char *charset; /* from the HTTP Content-Type, or NULL */
} wn_page_input;

/* What wn_detector_detect renders: its `want`, any of these or'ed. Links
 * and image sources in Markdown and HTML output are made absolute against
 * the page's URL (wn_page_input.url; <base href> is not read for them)
 * when it is given. */
#define WN_WANT_TEXT 0x1u      /* plain text, one line per block */
#define WN_WANT_HTML 0x2u      /* the content's elements as HTML */
#define WN_WANT_NODES 0x4u     /* the selected nodes' paths (JSON "nodes") */
#define WN_WANT_MARKDOWN 0x8u  /* the content as Markdown (JSON "markdown") */
#define WN_WANT_METADATA 0x10u /* title, author, date... (JSON "metadata") */
/* Markdown begins with the metadata as YAML front matter (implies
 * WN_WANT_METADATA). */
#define WN_WANT_FRONT_MATTER 0x20u
/* Markdown leaves out: links (their text stays), images; and every
 * output (text, HTML, Markdown, nodes) leaves out data tables
 * (WN_RENDER_NO_TABLES). By default all three stay: Markdown is asked
 * for its structure, and the plain text already serves those who want
 * words only (trafilatura, built for text corpora, drops links and
 * images by default). */
#define WN_RENDER_NO_LINKS 0x100u
#define WN_RENDER_NO_IMAGES 0x200u
#define WN_RENDER_NO_TABLES 0x400u

/* The main content of one page and how it was found. */
typedef struct wn_page_result wn_page_result;

/* Detects the main content of one page: the site's template (from the
 * cache, else the store), match and select; with no template, or when the
 * page fits its template badly, the single-page method. A page with
 * neither site nor url goes to the single-page method, and so does a page
 * whose url names no site (not http(s), a host no site name can spell):
 * that is no error, wn_page_result_site_error() says why. Errors concern
 * this page only; the detector stays usable. Returns WN_EINVAL (a site
 * given that is not a site name, no bytes), page errors (WN_ETOOBIG,
 * WN_ETOOMANY, WN_ETOODEEP past the caps; WN_ENOTHTML), WN_EBUSY (every
 * cache slot is held by wn_detector_use), record errors (a damaged
 * template), store errors, WN_ENOMEM. */
WN_API wn_err wn_detector_detect(wn_detector *detector, const wn_page_input *page, unsigned want,
                                 wn_page_result **out, wn_diag *diag);
WN_API void wn_page_result_free(wn_page_result *r);

/* The page result's accessors. Every string and array is valid until
 * wn_page_result_free. */
WN_API const char *wn_page_result_site(const wn_page_result *r); /* NULL: none */
/* Why the page's url named no site, as wn_site_from_url says it (valid
 * UTF-8: bytes that are not are written '?'); NULL when the site was
 * given or named, or neither site nor url was. */
WN_API const char *wn_page_result_site_error(const wn_page_result *r);
/* "template" (the places and cues selectors), "template-paper",
 * "template-region", "fastce" (a site learned with FastCE), "danag" or
 * "cnr" (the single-page methods). */
WN_API const char *wn_page_result_method(const wn_page_result *r);
/* The page's shape, read from the page itself (its schema.org types and
 * og:type, its structure, its URL's path as weak evidence): "article",
 * "forum", "product", "collection", "listing", "documentation" or
 * "service" (WCXB's page types; docs/single-page.md). Never NULL. */
WN_API const char *wn_page_result_page_type(const wn_page_result *r);
WN_API double wn_page_result_confidence(const wn_page_result *r);
WN_API wn_detect_fallback wn_page_result_fallback(const wn_page_result *r);
WN_API uint64_t wn_page_result_generation(const wn_page_result *r); /* 0: none */
/* NULL when content was found; else why none was (JSON "empty"): "no text
 * in the page", "everything filtered" (the page has text, the method kept
 * none of it), "cut short: more than 256 nested elements" or "cut short:
 * a text of more than 10 MB" (where libxml2's tree builder stops reading
 * a page). A page cut short whose content came before the cut is not
 * empty. */
WN_API const char *wn_page_result_empty(const wn_page_result *r);
/* With a template learned with the places selector: NULL when the site's
 * content place served the page; else why it did not (JSON "place"),
 * starting "not paired" (the page has no element there: on a site of
 * articles the single-page method read the page, the template as its
 * filter; else the cue selector chose, as the note says) or "no text" (it
 * holds no page-specific text): the cue selector chose; or "unfit" (the
 * page's content is not where the samples had it): the single-page method
 * read the page, the template as its filter. */
WN_API const char *wn_page_result_place(const wn_page_result *r);
/* The layout of the site that served the page, from 1 (a site learned with
 * several layouts has a template per layout; "layout" in the JSON output
 * when it has more than one); 1 for a site of one layout or none. A page
 * the single-page method served (low confidence) names the layout it
 * fitted best. */
WN_API uint32_t wn_page_result_layout(const wn_page_result *r);
WN_API const char *wn_page_result_charset(const wn_page_result *r);
/* "bom", "transport", "meta", "guess", "default". */
WN_API const char *wn_page_result_charset_source(const wn_page_result *r);
/* Where the page's time went, in milliseconds of wall time on the calling
 * thread: decoding its bytes to UTF-8, parsing them into the tree,
 * choosing the content (template match and single-page readings), and
 * rendering what was asked (text, Markdown, HTML, metadata). A page whose
 * tree learning had already parsed (wn_detector_options.collector) shows
 * no decode or parse time. */
typedef struct wn_page_times {
  double decode_ms;
  double parse_ms;
  double detect_ms;
  double render_ms;
} wn_page_times;
WN_API void wn_page_result_times_get(const wn_page_result *r, wn_page_times *out);
/* The selected subtrees' paths ("/html/body/div[2]"), document order;
 * none unless WN_WANT_NODES was asked. */
WN_API size_t wn_page_result_node_count(const wn_page_result *r);
WN_API const char *wn_page_result_node(const wn_page_result *r, size_t i);
/* Rendered content, NUL-terminated; "" unless WN_WANT_TEXT, WN_WANT_HTML,
 * WN_WANT_MARKDOWN was asked. len may be NULL. */
WN_API const char *wn_page_result_text(const wn_page_result *r, size_t *len);
WN_API const char *wn_page_result_html(const wn_page_result *r, size_t *len);
WN_API const char *wn_page_result_markdown(const wn_page_result *r, size_t *len);

/* The page's metadata, read from its markup: <title>, <meta> (description,
 * author, date forms), Open Graph, JSON-LD (headline, author, datePublished,
 * @graph), <time datetime>, <link rel=canonical>, <html lang>. A field is
 * NULL when the page does not tell. */
typedef struct wn_page_metadata {
  const char *title;
  const char *author;        /* several joined with ", " */
  const char *date;          /* published: ISO 8601, YYYY-MM-DD or the full
                                timestamp as the page gives it */
  const char *language;      /* as the page gives it ("en", "en-US") */
  const char *canonical_url; /* absolute when the page's URL is known */
  const char *description;
  const char *site_name;
} wn_page_metadata;
/* The metadata; NULL unless WN_WANT_METADATA was asked. */
WN_API const wn_page_metadata *wn_page_result_metadata(const wn_page_result *r);
/* The site's counters as last written by this detector, if any: 1 and
 * *out filled, else 0. */
WN_API int wn_page_result_counts_get(const wn_page_result *r, wn_site_counts *out,
                                     int *drifting);

/* The result as one JSON object, in this order: "site", "site_error"
 * (only when the page's url named no site: the message of
 * wn_page_result_site_error), "method", "confidence", "fallback",
 * "retried" (only when the single-page method chose again: "masks
 * relaxed", "cnr" or "danag" (the other method), "json-ld articleBody",
 * "json-ld HowTo" or "paragraphs"), "page_type" (wn_page_result_page_type), "drift" (when counts
 * are known), "charset", "charset_source", then "nodes", "text", "html",
 * "markdown" and "metadata" (an object of the wn_page_metadata fields,
 * null where absent) as asked. id_json (may be NULL) is raw JSON put first
 * as "id". flags: WN_JSON_PRETTY. *out is malloc'd (wn_free it). Returns
 * WN_EINVAL (id_json is not JSON), WN_ENOMEM. */
WN_API wn_err wn_page_result_json(const wn_page_result *r, const char *id_json, unsigned flags,
                                  char **out, wn_diag *diag);

/* ==== 5. learning while detecting ========================================= */

/* Learning from the pages detection is given (`winnow detect --learn`, the
 * daemon's learning.from_requests): a collector keeps copies of pages of
 * sites that have no template, a few per site and within bounds, until a
 * site has enough of them to learn from. The pages of a crawl are its
 * n-SET: the site-level paper samples same-site pages that share the key
 * page's template (Sec. 2.1), and learning checks that they do (the share
 * check of wn_learn_options.min_share), so pages of another layout are
 * left out, as in a crawl. Thread-safe: one collector may serve many
 * threads. */
typedef struct wn_collector wn_collector;

typedef struct wn_collect_options {
  /* Pages a site's sample holds: once a site has this many, it is ready to
   * learn. Default 5: the key page and n = 4, the paper's best n-SET
   * (Sec. 3, Table 1). At least 2, at most WN_LEARN_MAX_PAGES. */
  uint32_t sample_pages;
  /* Fewest pages a site may be learned from when the input ends first
   * (wn_collector_pending_each): default 3, the fewest where a node kept
   * by min_count 2 recurs on a majority of the sample. At least 2. */
  uint32_t min_pages;
  /* Learning attempts per site: a sample that does not share a layout
   * drops its key page and waits for more pages; after this many failures
   * the site is given up (the single-page method serves it). Default 3. */
  uint32_t max_attempts;
  /* Bounds: sites remembered (holding pages or not; least recently seen
   * forgotten first; default 4096) and page bytes held in all (default
   * 256 MiB; sites least recently seen give up their pages first). */
  uint32_t max_sites;
  size_t max_bytes;
  /* 1: keep the trees of a learned sample for its pages' detection
   * (wn_detector_options.collector), for a caller that detects those
   * pages next, as `detect --learn` does; within max_bytes of their own.
   * Default 0. */
  int keep_parsed;
  wn_learn_options learn; /* as for wn_site_learn_pages (learn.algo: how) */
  /* 1: the pages held for sites without a template are also kept in the
   * store, so that the next run, or the next request after a restart,
   * adds to them (pending samples, section 2): a site seen for the first
   * time gets back what the store keeps for it; held pages are written
   * in batches (wn_collector_flush), at most sample_pages per site, to a
   * store opened for writing (a read-only one is only read). A page whose
   * name is held already is not held again. Default 1. Bounds in the
   * store: pending_sites sites (default 65536) and pending_bytes stored
   * bytes (default 256 MiB); least recently seen sites go first. */
  int keep_pending;
  uint32_t pending_sites;
  size_t pending_bytes;
} wn_collect_options;
WN_API void wn_collect_options_init(wn_collect_options *opts);

/* What wn_collector_add did with a page. */
typedef enum wn_collect_state {
  WN_COLLECT_NO_SITE = 0, /* the page names no site: not held */
  WN_COLLECT_TEMPLATE,    /* its site has a template (in the store, or
                             learned through this collector): not held */
  WN_COLLECT_HELD,        /* a copy is held */
  WN_COLLECT_READY,       /* held, and its site has sample_pages pages:
                             call wn_collector_learn */
  WN_COLLECT_GAVE_UP,     /* its site failed max_attempts times: not held */
  WN_COLLECT_TOO_BIG      /* larger than max_bytes, or a name longer than
                             a stored page name: not held */
} wn_collect_state;

/* Add-time flag: hold the page even though its site has a template (to
 * relearn a drifting site from its recent pages). */
#define WN_COLLECT_RELEARN 0x1u

typedef struct wn_collect_stats {
  uint64_t pages_held;     /* pages held now */
  uint64_t bytes_held;     /* their bytes */
  uint64_t sites_held;     /* sites holding pages now */
  uint64_t sites_learned;  /* wn_collector_learn successes */
  uint64_t pages_learned;  /* pages those were learned from */
  uint64_t learn_failures; /* wn_collector_learn failures */
  uint64_t sites_given_up;
  uint64_t pages_evicted;  /* held pages dropped for the bounds */
  /* Pending samples in the store (keep_pending): */
  uint64_t pages_kept;     /* pages written to the store */
  uint64_t pages_restored; /* pages read back from it (earlier runs') */
  uint64_t pending_evicted; /* pages the store's bounds dropped */
  uint64_t store_errors;   /* failed writes (the pages stay held in memory) */
} wn_collect_stats;

/* store may be NULL (no site then has a template but those learned here);
 * opts NULL: the defaults. Returns WN_EINVAL (a bad option), WN_ENOMEM. */
WN_API wn_err wn_collector_create(wn_store *store, const wn_collect_options *opts,
                                  wn_collector **out, wn_diag *diag);
WN_API void wn_collector_destroy(wn_collector *collector);

/* Offers a page (its site: page->site, else page->url's). name (may be
 * NULL: the url, else "page N") names it in the learned report. flags: 0
 * or WN_COLLECT_RELEARN. A site seen for the first time is looked up in
 * the store once (its template, its pending pages). Returns WN_OK with
 * *state set, WN_EINVAL (no bytes, a bad site), store errors, WN_ENOMEM.
 * A batch of pending pages written by this call and failing is returned
 * too (WN_ENOSPACE: the disk or the store is full), with *state set: the
 * page itself was handled. */
WN_API wn_err wn_collector_add(wn_collector *collector, const wn_page_input *page,
                               const char *name, unsigned flags, wn_collect_state *state,
                               wn_diag *diag);

/* Learns site from the pages held for it: the key page is the held page
 * whose URL is nearest the others' (the n-SET's hyperlink distance; the
 * first held on a tie), the others follow nearest first; learning leaves
 * out those that do not share the key page's layout. On success the
 * site's pages are released, the site counts as having a template from
 * now on, and *out is the learned template (store it with wn_site_save).
 * On failure *out (may be NULL) reports why; the key page is dropped and
 * the others stay held for another attempt, or all are dropped once
 * max_attempts is reached. Returns WN_ENOTFOUND (nothing held for site),
 * WN_EBUSY (another thread is learning it), the codes of
 * wn_site_learn_pages. */
WN_API wn_err wn_collector_learn(wn_collector *collector, const char *site, wn_learned **out,
                                 wn_diag *diag);

/* Calls fn (with the pages held) for each site holding at least
 * min_pages pages (0: the options' min_pages), in the order the sites were
 * first seen, outside the collector's lock (fn may call
 * wn_collector_learn), stopping at fn's first nonzero return. Returns
 * WN_EINVAL (no fn), WN_ENOMEM. */
typedef int (*wn_collect_fn)(const char *site, uint32_t pages, void *ctx);
WN_API wn_err wn_collector_pending_each(wn_collector *collector, uint32_t min_pages,
                                        wn_collect_fn fn, void *ctx, wn_diag *diag);

/* Writes the pages held since the last flush to the store (keep_pending),
 * in one transaction. wn_collector_add flushes on its own every 64 pages
 * and after a second; call it before the end of a run, or from a timer.
 * wn_collector_destroy flushes too, without a word on failure. Returns
 * WN_OK (nothing to write too), store errors (WN_ENOSPACE: the store or
 * the disk is full; the pages stay held in memory), WN_ENOMEM. */
WN_API wn_err wn_collector_flush(wn_collector *collector, wn_diag *diag);

WN_API void wn_collector_stats_get(wn_collector *collector, wn_collect_stats *out);


/* ==== 6. site info ======================================================== */

/* What the store holds for a site: its record (the template and how it was
 * learned) and its detection counters. */
typedef struct wn_site_info {
  const char *site;
  const char *algorithm;       /* "etdm" or "fastce" */
  uint32_t format_version;     /* of the stored record */
  uint64_t generation;
  int64_t learned_at;          /* Unix seconds */
  const char *key_page;        /* URL or file learned from; NULL for
                                  records older than format 2 */
  int from_url;                /* 1: crawled from key_page */
  wn_learn_options learn;      /* as learned (zero for old records, but
                                  learn.algo: the algorithm's) */
  const char *crawl_user_agent; /* crawled: as learned, NULL: the default */
  uint32_t crawl_delay_ms, crawl_timeout_ms;
  uint64_t crawl_max_bytes;
  size_t n_pages;              /* sample pages learned from */
  const char *const *pages;    /* their names */
  const uint64_t *page_bytes;
  const int32_t *page_status;  /* HTTP status, 0 for files */
  const uint32_t *page_fetch_ms;
  uint32_t page_nodes;
  uint32_t template_nodes;
  size_t template_bytes;
  wn_detect_selector selector; /* as kept with the template (never SITE) */
  wn_site_counts counts;
  /* The content places learned with the template, the "why" of each
   * page's choice: place is NULL unless the selector is places, else
   * "none" (no place agreed: the cue selector on every page), "whole"
   * (the place held nothing but content on the samples: the region
   * inside it serves) or "cues" (the cue selector, made again inside the
   * place when it took an aside); the elements skipped inside it and the
   * asides beside it. */
  const char *place;
  uint32_t place_skips, place_asides;
  /* The site's layouts (docs/learning.md, "Layouts"): 1, or a template
   * each for several; the place and counts above are the first layout's
   * (the key page's). 0 for a FastCE template. */
  uint32_t layouts;
} wn_site_info;

/* The site's record. Free with wn_site_info_free. Returns WN_EINVAL (not a
 * site name), WN_ENOTEMPLATE (the site has no record), record errors,
 * store errors, WN_ENOMEM. */
WN_API wn_err wn_site_info_get(wn_store *store, const char *site, wn_site_info **out,
                               wn_diag *diag);
WN_API void wn_site_info_free(wn_site_info *info);

/* Calls fn for each site in name order, stopping at the first nonzero
 * return. The name is valid only during the call. Returns WN_EINVAL,
 * store errors. */
typedef int (*wn_site_fn)(const char *site, void *ctx);
WN_API wn_err wn_site_each(wn_store *store, wn_site_fn fn, void *ctx, wn_diag *diag);
/* Removes a site's template and counters. Returns WN_EINVAL (not a site
 * name, a store opened read-only), WN_ENOTEMPLATE (the site has none),
 * store errors. */
WN_API wn_err wn_site_delete(wn_store *store, const char *site, wn_diag *diag);

/* The template as a person reads it (winnow-dump show): one entry per
 * node in document order. Template nodes carry no names (the template
 * keeps signatures), so they are named from a page of the site mapped onto
 * the template: its nodes the ETDM pairs are the template, and each
 * subtree it does not pair is shown as one page-specific entry (where the
 * page's own content sits). */

/* The content places a template learned (selector "places"): the element
 * that held the main content on most sample pages, and elements inside it
 * whose page-specific text the samples agree is not content. */
typedef enum wn_place {
  WN_PLACE_NONE = 0,
  WN_PLACE_CONTENT,       /* the main content is inside this element */
  WN_PLACE_SKIP,          /* recurring non-content inside the content place */
  WN_PLACE_CONTENT_WHOLE, /* the content place, holding nothing but content
                             on the samples (the region selector inside it) */
  WN_PLACE_ASIDE          /* recurring non-content outside the content place */
} wn_place;

typedef struct wn_template_entry {
  uint32_t depth;           /* 0 for the root */
  int page_specific;        /* 0: a template node; 1: a page-specific
                               subtree of the page (not in the template) */
  int is_text;              /* a text node */
  uint32_t count;           /* template nodes: sample pages that held it */
  uint32_t signature;       /* template nodes: the node signature */
  const char *tag;          /* "div", "#text"; NULL when unnamed (no page) */
  const char *id;           /* NULL if none */
  const char *cls;          /* NULL if none */
  const char *text;         /* text nodes: the text; NULL otherwise */
  uint32_t nodes;           /* nodes in the subtree (page nodes when named) */
  uint32_t text_bytes;      /* bytes of text in the subtree */
  wn_place place;           /* template nodes: what the site learned of it */
} wn_template_entry;
typedef int (*wn_template_fn)(const wn_template_entry *entry, void *ctx);

typedef struct wn_template_summary {
  uint32_t nodes;           /* template nodes */
  uint32_t text_nodes;
  uint32_t sample_pages;    /* pages it was learned from */
  uint32_t min_count;       /* pages a node needed to be kept */
  wn_detect_selector selector;
  int named;                /* 1: entries are named from a page */
  char named_from[2048];    /* that page (a file), or "" */
  uint32_t unpaired;        /* template nodes the page did not pair (not shown) */
} wn_template_summary;

/* Calls fn for each entry of site's template (ETDM) in document order,
 * named from the page file page_path: NULL means the key page the site was
 * learned from, if it is a readable file (else the entries are unnamed);
 * "" means unnamed. Entries below max_depth (0: all) are left out. fn's
 * pointers are valid only during the call; a nonzero return stops it.
 * summary (may be NULL) is filled. (A site learned with FastCE:
 * wn_site_fastce_show.) Returns WN_EINVAL (not a site name),
 * WN_ENOTEMPLATE, record errors, WN_ENOTFOUND, WN_EIO and page errors
 * (page_path), store errors, WN_ENOMEM. */
WN_API wn_err wn_site_template_each(wn_store *store, const char *site, const char *page_path,
                                    uint32_t max_depth, wn_template_fn fn, void *ctx,
                                    wn_template_summary *summary, wn_diag *diag);
/* The same as one JSON object: the summary's fields and "tree", nested
 * {"tag","id","class","count","text","page_specific","children"}.
 * flags: WN_JSON_PRETTY. *out malloc'd (wn_free it). The codes of
 * wn_site_template_each. */
WN_API wn_err wn_site_template_json(wn_store *store, const char *site, const char *page_path,
                                    uint32_t max_depth, unsigned flags, char **out,
                                    wn_diag *diag);
/* A FastCE site's template for people (winnow-dump show): its content
 * paths, each with the sample pages that had content on it, and its stored
 * non-content blocks (path, number of features, first words). flags
 * WN_JSON_PRETTY: as JSON {"site","algorithm","sample_pages","paths":
 * [{"path","pages"}],"stored":[{"path","features","text"}]}, else text.
 * *out malloc'd (wn_free it). Returns WN_EINVAL (not a site name; a site
 * learned with ETDM: see wn_site_template_each), WN_ENOTEMPLATE, record
 * errors, store errors, WN_ENOMEM. */
WN_API wn_err wn_site_fastce_show(wn_store *store, const char *site, unsigned flags, char **out,
                                  wn_diag *diag);

/* One page's detection explained, node by node (winnow-dump explain). */
typedef struct wn_explain wn_explain;
/* Detects page (site: page->site, else its url's) with the site's template
 * from the store and records what each step did. opts NULL: defaults.
 * Returns WN_EINVAL (no site), WN_ENOTEMPLATE (the site has none), record
 * errors, page errors, store errors, WN_ENOMEM. */
WN_API wn_err wn_site_explain(wn_store *store, const wn_page_input *page,
                              const wn_detect_options *opts, wn_explain **out, wn_diag *diag);
/* As text: a summary (selector, confidence, the rule that decided, what
 * was chosen), then the page's elements indented, each with its label:
 * template (and in how many sample pages), page-specific, kept, dropped;
 * scores where the selector scored. Elements below max_depth (0: all) are
 * left out. *out malloc'd (wn_free it). Returns WN_ENOMEM. */
WN_API wn_err wn_explain_text(const wn_explain *ex, uint32_t max_depth, char **out, size_t *len,
                              wn_diag *diag);
/* As HTML: the page itself with template, dropped and kept text coloured,
 * the selected regions outlined, a legend fixed at the top, and its
 * scripts removed so that it renders offline. *out malloc'd (wn_free it).
 * Returns WN_EPARSE, WN_ENOMEM. */
WN_API wn_err wn_explain_html(const wn_explain *ex, char **out, size_t *len, wn_diag *diag);
WN_API void wn_explain_free(wn_explain *ex);

/* ==== 7. WARC ============================================================= */

/* Web archives in, WET-style text out.
 * * Reads WARC 1.0 and 1.1 files (ISO 28500:2009 and :2017): plain, gzip per
 * record (one gzip member each, as crawlers write them) or gzip as a whole,
 * and yields the HTML pages of their `response` records, the HTTP message
 * parsed (status, Content-Type and its charset, chunked transfer coding and
 * gzip/deflate content coding undone). Writes WARC/1.0 files, by default of
 * `conversion` records holding the text of pages, as Common Crawl's WET
 * files do: each names its source record (WARC-Refers-To) and carries a
 * WARC-Block-Digest (sha1, base32).
 *
 * Everything is bounded: a header or a block past its cap is skipped and
 * counted, never loaded whole (a Content-Length can lie), and after damage
 * the reader resynchronises on the next "WARC/1." header line. A reader or
 * writer belongs to one thread at a time.
 */
typedef struct wn_warc_reader wn_warc_reader;

/* Called once per damaged record or damaged stretch of the file, with a
 * one-line message naming the file and the offset ("a.warc.gz: record at
 * offset 1234 (gzip member at byte 567): truncated: ..."); valid during the call. */
typedef void (*wn_warc_damage_fn)(const char *message, void *ctx);

typedef struct wn_warc_reader_options {
  /* Bytes of a WARC record's header, and of an HTTP message's header:
   * default 64 KiB each. */
  size_t max_header_bytes;
  /* Records whose block (Content-Length) is larger are skipped unread and
   * counted: default WN_PAGE_MAX_BYTES + 64 KiB (a page and its HTTP
   * header). This is also about the most memory the reader holds. */
  size_t max_block_bytes;
  /* Pages whose payload, de-chunked and decompressed, is larger are
   * skipped and counted: default WN_PAGE_MAX_BYTES. */
  size_t max_payload_bytes;
  /* 0 (default): only HTTP 2xx responses are pages, the others are
   * counted as skipped; 1: every status. */
  int all_statuses;
  /* 1: every record is returned as it is (any WARC-Type, the block as the
   * payload, no HTTP parsing): for reading back WET files or warcinfo.
   * Default 0: HTML responses only. */
  int every_record;
  wn_warc_damage_fn on_damage; /* default NULL: counted only */
  void *damage_ctx;
  /* A segment of the file, for readers in parallel (default 0 and 0: the
   * whole file): the records that start at file offsets [start_offset,
   * end_offset) (a record starts at its gzip member, wn_warc_page's
   * file_offset; end_offset 0: the end of the file). Any byte offsets
   * will do: a reader seeks to start_offset and finds the next record
   * (the next gzip member, or the next WARC/1.x line of a plain file)
   * without reporting the bytes before it as damage, and stops before
   * the first record at or past end_offset, so that the segments
   * [0, a), [a, b), [b, 0) read every record once. A file gzipped whole
   * (one member) is read whole by the segment that holds its start. In a
   * gzip file, wn_warc_page.offset (the uncompressed stream's) then counts
   * on from start_offset; file_offset is the file's. Not for standard
   * input. */
  uint64_t start_offset;
  uint64_t end_offset;
} wn_warc_reader_options;
WN_API void wn_warc_reader_options_init(wn_warc_reader_options *opts);

/* One page (or, with every_record, one record). Every pointer is valid
 * until the next wn_warc_next or wn_warc_reader_close; strings are
 * NUL-terminated, NULL when the record has no such field (the payload is
 * bytes: not NUL-terminated). */
typedef struct wn_warc_page {
  const char *warc_type;    /* "response" (every_record: as in the file) */
  const char *target_uri;   /* WARC-Target-URI (angle brackets removed) */
  const char *record_id;    /* WARC-Record-ID, "<urn:uuid:...>" as written */
  const char *date;         /* WARC-Date */
  const char *block_digest; /* WARC-Block-Digest as written */
  int http_status;          /* 0 with every_record */
  const char *content_type; /* HTTP Content-Type as sent (every_record:
                               the record's Content-Type) */
  const char *charset;      /* its charset parameter, unquoted: the page's
                               transport charset (wn_page_input.charset) */
  const char *payload;      /* the HTTP body, de-chunked and decompressed
                               (every_record: the record's block) */
  size_t payload_len;
  uint64_t offset;          /* of the record in the uncompressed WARC
                               stream */
  uint64_t file_offset;     /* of the gzip member the record begins in (for
                               gzip per record, the record's own: what CDX
                               indexes give); = offset in a plain file */
} wn_warc_page;

/* Counts since the reader was opened. */
typedef struct wn_warc_stats {
  uint64_t records;       /* WARC records read (damaged ones included) */
  uint64_t pages;         /* returned by wn_warc_next */
  uint64_t skipped_type;  /* not a response (warcinfo, request, metadata, ...) */
  uint64_t skipped_not_html; /* responses whose payload is not HTML */
  uint64_t skipped_status;   /* responses with a status other than 2xx */
  uint64_t skipped_too_big;  /* header, block or payload past its cap */
  uint64_t damaged;       /* truncated or malformed records, bad HTTP
                             messages, undecodable content codings, and
                             damaged stretches of gzip or of the file
                             (each also reported to on_damage) */
} wn_warc_stats;

/* Opens a WARC file ("-": standard input), compressed or not (gzip is
 * recognised by its magic bytes). opts NULL: the defaults. Returns
 * WN_EINVAL, WN_EIO (cannot open or read it), WN_ENOMEM. */
WN_API wn_err wn_warc_reader_open(const char *path, const wn_warc_reader_options *opts,
                                  wn_warc_reader **out, wn_diag *diag);
/* The next page: WN_OK and *page filled; WN_ENOTFOUND at the end of the
 * file (as LMDB's cursors say MDB_NOTFOUND), diag untouched; or an error
 * that stops the reading (WN_EIO, WN_ENOMEM; WN_EINVAL for a NULL reader
 * or page), with diag set. Damaged and skipped records never stop it:
 * they are counted (and reported) and the reader goes on. */
WN_API wn_err wn_warc_next(wn_warc_reader *reader, wn_warc_page *page, wn_diag *diag);
/* A copy of a page that outlives the reader's next call (to hand it to a
 * worker thread): the struct, its strings and payload in one allocation,
 * freed with wn_warc_page_free. The payload stays NUL-terminated. Returns
 * WN_EINVAL, WN_ETOOBIG, WN_ENOMEM. */
WN_API wn_err wn_warc_page_copy(const wn_warc_page *page, wn_warc_page **out, wn_diag *diag);
WN_API void wn_warc_page_free(wn_warc_page *page);
/* The same copy into memory of the caller's (an arena that holds many
 * pages): wn_warc_page_copy_size gives the bytes it takes (0 for a NULL
 * page or one too large to copy), wn_warc_page_copy_to writes it into
 * buf (size bytes, aligned for any type, as malloc's are) and sets *out,
 * which points into buf and is never freed by itself. Returns WN_EINVAL
 * (no page, or size too small). */
WN_API size_t wn_warc_page_copy_size(const wn_warc_page *page);
WN_API wn_err wn_warc_page_copy_to(const wn_warc_page *page, void *buf, size_t size,
                                   wn_warc_page **out, wn_diag *diag);
WN_API void wn_warc_reader_stats_get(const wn_warc_reader *reader, wn_warc_stats *out);
WN_API void wn_warc_reader_close(wn_warc_reader *reader);

typedef struct wn_warc_writer wn_warc_writer;

/* How a written WARC is compressed. */
typedef enum wn_warc_gzip {
  WN_WARC_GZIP_AUTO = 0, /* per record if the path ends in ".gz", else none */
  WN_WARC_GZIP_NONE,
  WN_WARC_GZIP_RECORD,   /* one gzip member per record (the usual .warc.gz) */
  WN_WARC_GZIP_FILE      /* the whole file one gzip member */
} wn_warc_gzip;

typedef struct wn_warc_writer_options {
  wn_warc_gzip gzip;     /* default WN_WARC_GZIP_AUTO */
  int level;             /* zlib level 1..9; default 6 */
  /* 1 (default): a warcinfo record first (software, format). */
  int warcinfo;
  const char *software;  /* warcinfo "software:"; default "winnow/VERSION" */
} wn_warc_writer_options;
WN_API void wn_warc_writer_options_init(wn_warc_writer_options *opts);

/* A record to write. The writer adds WARC-Record-ID (a random UUID),
 * Content-Length and WARC-Block-Digest. */
typedef struct wn_warc_record {
  const char *type;         /* WARC-Type: "conversion", "response", ... */
  const char *target_uri;   /* or NULL */
  const char *date;         /* WARC-Date (UTC, "2026-11-23T11:20:09Z"); NULL: now */
  const char *refers_to;    /* WARC-Refers-To (a record id), or NULL */
  const char *content_type; /* of the block, or NULL */
  const char *block;
  size_t block_len;
} wn_warc_record;

#define WN_WARC_ID_SIZE 48u /* "<urn:uuid:...>" and its NUL */

/* Creates (truncates) path ("-": standard output); opts NULL: the
 * defaults. Returns WN_EINVAL (a bad option), WN_EIO, WN_ENOMEM. */
WN_API wn_err wn_warc_writer_open(const char *path, const wn_warc_writer_options *opts,
                                  wn_warc_writer **out, wn_diag *diag);
/* Writes one record; its id into id[WN_WARC_ID_SIZE] unless id is NULL.
 * Returns WN_EINVAL (no type, a field with a line break), WN_EIO,
 * WN_ENOMEM. */
WN_API wn_err wn_warc_write_record(wn_warc_writer *writer, const wn_warc_record *record, char *id,
                                   wn_diag *diag);
/* Writes a WET-style conversion record of text (Content-Type text/plain)
 * for the page read from a WARC: its target URI and date, WARC-Refers-To
 * its record id. The codes of wn_warc_write_record. */
WN_API wn_err wn_warc_write_conversion(wn_warc_writer *writer, const wn_warc_page *source,
                                       const char *text, size_t text_len, wn_diag *diag);
/* Finishes the file (the last gzip member) and closes it: an error here
 * means the file is incomplete. NULL is harmless. Returns WN_EIO. */
WN_API wn_err wn_warc_writer_close(wn_warc_writer *writer, wn_diag *diag);

/* ==== deprecated names ==================================================== */

/* Names kept one release for the programs written against 0.3 (each
 * warns where it is called, WN_DEPRECATED, naming its replacement);
 * removed in 0.5.0. docs/library.md, "Names". */

/* wn_site_learn_files, _pages and _url with opts->algo set to algo (opts
 * NULL: the defaults and algo). */
WN_API wn_err wn_site_learn_files_algo(wn_learn_algo algo, const char *site,
                                       const char *const *paths, size_t n_paths,
                                       const wn_learn_options *opts, wn_learned **out,
                                       wn_diag *diag)
    WN_DEPRECATED("set wn_learn_options.algo and call wn_site_learn_files");
WN_API wn_err wn_site_learn_pages_algo(wn_learn_algo algo, const char *site,
                                       const char *const *names, const char *const *bytes,
                                       const size_t *len, size_t n_pages,
                                       const wn_learn_options *opts, wn_learned **out,
                                       wn_diag *diag)
    WN_DEPRECATED("set wn_learn_options.algo and call wn_site_learn_pages");
WN_API wn_err wn_site_learn_url_algo(wn_learn_algo algo, const char *url, const char *site,
                                     const wn_learn_options *opts, const wn_crawl_options *crawl,
                                     wn_learned **out, wn_diag *diag)
    WN_DEPRECATED("set wn_learn_options.algo and call wn_site_learn_url");
/* The iterations, named _each as wn_store_pending_each. */
WN_API wn_err wn_site_list(wn_store *store, wn_site_fn fn, void *ctx, wn_diag *diag)
    WN_DEPRECATED("use wn_site_each");
WN_API wn_err wn_site_template_walk(wn_store *store, const char *site, const char *page_path,
                                    uint32_t max_depth, wn_template_fn fn, void *ctx,
                                    wn_template_summary *summary, wn_diag *diag)
    WN_DEPRECATED("use wn_site_template_each");
WN_API wn_err wn_collector_pending(wn_collector *collector, uint32_t min_pages, wn_collect_fn fn,
                                   void *ctx, wn_diag *diag)
    WN_DEPRECATED("use wn_collector_pending_each");
/* The getters that copy into the caller's struct, named _get. */
WN_API wn_err wn_store_pending_totals(wn_store *store, wn_pending_totals *out, wn_diag *diag)
    WN_DEPRECATED("use wn_store_pending_totals_get");
WN_API int wn_page_result_counts(const wn_page_result *r, wn_site_counts *out, int *drifting)
    WN_DEPRECATED("use wn_page_result_counts_get");

/* ==== unstable ============================================================ */

/* Calls for the project's own tools, outside the stable interface (as
 * zstd's ZSTD_STATIC_LINKING_ONLY): they may change or disappear in any
 * release, a patch release too, whatever the ABI rule says. Declared only
 * for a program that defines WN_UNSTABLE_API before including this
 * header; exported all the same. */
#ifdef WN_UNSTABLE_API

/* Unstable: may change or disappear in any release. The single-page
 * method's steps for this detector's pages, for the evaluation tools'
 * ablations (winnow-eval and winnow-snippets --steps; docs/evaluation.md):
 * 0 is the measured default (what a detector starts with, and what
 * wn_detect_options.favor and .comments adjust); otherwise 0x80000000 |
 * a set of the private step bits (src/detect/steps.h, WN_SINGLE_STEP_*;
 * 0x80000000 alone: the papers' methods as stated), which then replace
 * the default and favor and comments alike. Pages a template serves are
 * not affected. Returns WN_EINVAL (no detector, a bit no step has). */
WN_API wn_err wn_detector_set_steps(wn_detector *detector, uint32_t steps, wn_diag *diag);

#endif /* WN_UNSTABLE_API */

#ifdef __cplusplus
}
#endif

#endif /* WINNOW_WINNOW_H */
