/*
 * serve: the daemon (winnow serve). A long-lived process next to a crawler:
 * it keeps each configured site's template fresh on a schedule (and early
 * when the site drifts) and answers detection requests over HTTP.
 *
 *   config.c   YAML (libyaml) -> wn_serve_config, every value checked and
 *              every error naming file, line and key; config_keys.c, the
 *              table of every key that both reads (config_int.h)
 *   server.c   the HTTP API on libmicrohttpd (JSON with jansson): routing,
 *              body caps, the token, one wn_detector per server thread
 *   sched.c    learning jobs on background threads and the per-site
 *              refresh schedule, whose state lives in the store
 *   metrics.c  counters and histograms, rendered in the Prometheus text
 *              format
 *
 * The entry points are in include/winnow/serve.h. serve is a static library
 * of its own (winnow_serve), linked into the winnow command, not into
 * libwinnow; it stands on the site layer and the public API, and reaches
 * the store only through them (site/schedule.h for what the daemon keeps
 * per site). src/cli only parses flags and waits for signals.
 */
#ifndef WN_SERVE_H
#define WN_SERVE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"
#include <winnow/serve.h>
#include <winnow/winnow.h>

/* Bounds on what a configuration may ask for. */
#define WN_SERVE_MAX_SITES 10000u
#define WN_SERVE_MAX_WORKERS 256u
#define WN_SERVE_MAX_LEARNERS 64u
#define WN_SERVE_MAX_CONFIG_BYTES ((size_t)4 * 1024 * 1024)
#define WN_SERVE_MAX_TOKEN 512u

/* One site the daemon keeps learned. */
typedef struct wn_serve_site {
  char *url;                 /* key page */
  char site[WN_SITE_MAX + 1];
  int64_t interval_ms;       /* relearn after this */
  wn_learn_options learn;    /* the defaults with this site's overrides
                                (learn.algo: learning.algorithm) */
  unsigned line;             /* in the config file, for messages */
  struct wn_site_raw *raw;   /* the overrides as written (config.c) */
} wn_serve_site;

struct wn_serve_config {
  char *path;                /* the file read, or NULL */
  /* store */
  char *store_path;
  size_t map_size;
  /* listen */
  char *address;
  uint16_t port;
  uint32_t workers;          /* HTTP threads */
  uint32_t max_connections;
  uint32_t timeout_s;        /* idle connection timeout */
  size_t max_body;           /* request body cap (413 past it) */
  size_t max_buffered;       /* bodies of all requests being read, together
                                (503 past it) */
  char *token;               /* NULL: admin endpoints open */
  int allow_any_site;        /* learn sites that are not configured */
  /* crawler */
  char *user_agent;          /* NULL: the library's default */
  wn_crawl_options crawl;
  /* 1: crawls of sites not in sites: may reach private, loopback and
   * link-local addresses too (default 0: refused, wn_crawl_options
   * .refuse_private); configured sites may always. */
  int allow_private;
  /* learning */
  wn_learn_options learn;    /* learn.algo: learning.algorithm */
  uint32_t learners;         /* background learning threads */
  uint32_t max_jobs;         /* jobs remembered (finished ones are evicted) */
  uint32_t max_queued;       /* jobs waiting at most */
  /* Learning from requests: a site with no template is learned from the
   * first from_requests pages /v1/detect is asked for (0: off), holding
   * at most from_requests_sites sites and from_requests_bytes of pages. */
  uint32_t from_requests;
  uint32_t from_requests_sites;
  size_t from_requests_bytes;
  /* ... and keeping the pages held in the store across restarts (pending
   * samples: from_requests_pending), within pending_sites sites and
   * pending_bytes stored bytes. */
  int from_requests_pending;
  uint32_t pending_sites;
  size_t pending_bytes;
  /* refresh */
  int64_t interval_ms;
  double jitter;             /* share of the interval, 0 to 0.5 */
  int64_t retry_min_ms, retry_max_ms;
  int on_drift;
  int64_t drift_min_age_ms;  /* relearn on drift at most this often */
  /* detection */
  wn_detector_options detector;
  /* log */
  int log_level;             /* 0 error, 1 info, 2 debug */
  /* sites */
  wn_serve_site *sites;
  size_t n_sites;
};

enum { WN_LOG_ERROR = 0, WN_LOG_INFO = 1, WN_LOG_DEBUG = 2 };

/* The configured site named site, or NULL. */
const wn_serve_site *wn_serve_config_site(const wn_serve_config *cfg, const char *site);
/* The first key a reload from cur to next would change that needs a
 * restart ("listen.port", written into buf), or NULL. */
const char *wn_serve_config_restart_key(const wn_serve_config *cur, const wn_serve_config *next,
                                        char *buf, size_t size);
/* The configuration's keys, in the table's order: up to max sections and
 * names; returns how many there are. */
size_t wn_serve_config_keys(const char **sections, const char **names, size_t max);
/* A deep copy (NULL on allocation failure). */
wn_serve_config *wn_serve_config_copy(const wn_serve_config *cfg);

/* Logs one line to stderr ("2026-11-23T10:00:00Z winnow[pid]: ...") if
 * level is at most the configured one. */
void wn_serve_log(int max_level, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- metrics ---------------------------------------------------------------- */

typedef enum wn_endpoint {
  WN_EP_DETECT, WN_EP_LEARN, WN_EP_JOBS, WN_EP_SITES, WN_EP_HEALTHZ, WN_EP_METRICS,
  WN_EP_OTHER, WN_EP_COUNT
} wn_endpoint;

#define WN_METRIC_CODES 13u  /* the status codes we count apart, + "other" */
#define WN_METRIC_BUCKETS 14u
#define WN_METRIC_LEARN_BUCKETS 10u
#define WN_METRIC_METHODS 8u

typedef struct wn_histogram {
  _Atomic uint64_t bucket[WN_METRIC_BUCKETS + 1]; /* cumulative at render time */
  _Atomic uint64_t count;
  _Atomic uint64_t sum_us;
} wn_histogram;

typedef struct wn_metrics {
  double started_ms;         /* wn_clock_ms() when the server started */
  _Atomic uint64_t requests[WN_EP_COUNT][WN_METRIC_CODES];
  wn_histogram latency[WN_EP_COUNT];
  _Atomic uint64_t detections[WN_METRIC_METHODS];      /* by method */
  _Atomic uint64_t fallbacks[32];                      /* by wn_detect_fallback */
  _Atomic uint64_t detect_errors;
  _Atomic uint64_t learn_ok, learn_failed, learn_scheduled, learn_drift;
  _Atomic uint64_t learn_bucket[WN_METRIC_LEARN_BUCKETS + 1];
  _Atomic uint64_t learn_sum_ms;
  _Atomic uint64_t drift_events;
  _Atomic uint64_t reloads, reload_failures;
} wn_metrics;

void wn_metrics_init(wn_metrics *m);
void wn_metrics_request(wn_metrics *m, wn_endpoint ep, unsigned status, uint64_t us);
void wn_metrics_detection(wn_metrics *m, const char *method, int fallback);
void wn_metrics_learn(wn_metrics *m, int ok, uint64_t ms);

/* Gauges read at scrape time. */
typedef struct wn_metrics_gauges {
  uint64_t sites, drifting, scheduled_sites;
  uint64_t jobs_queued, jobs_running;
  uint64_t store_bytes, map_bytes;
  uint64_t rss_bytes;
  /* learning from requests (learning.from_requests) */
  int from_requests;
  wn_collect_stats collect;
} wn_metrics_gauges;
wn_err wn_metrics_render(const wn_metrics *m, const wn_metrics_gauges *g, wn_buf *out);

/* ---- jobs and the schedule ----------------------------------------------------- */

typedef struct wn_sched wn_sched;

typedef enum wn_job_state { WN_JOB_QUEUED, WN_JOB_RUNNING, WN_JOB_DONE, WN_JOB_FAILED } wn_job_state;
typedef enum wn_job_reason {
  WN_JOB_API, WN_JOB_SCHEDULE, WN_JOB_DRIFT, WN_JOB_FIRST,
  WN_JOB_REQUESTS /* learned from the pages asked for (learning.from_requests) */
} wn_job_reason;

/* One page given with a learn request. */
typedef struct wn_job_page {
  char *name;
  char *bytes;
  size_t len;
} wn_job_page;

/* What a learn request asks: a key page URL to crawl from, or pages. */
typedef struct wn_job_request {
  char site[WN_SITE_MAX + 1];
  char *url;                 /* crawl from here, or NULL */
  wn_job_page *pages;        /* or learn from these (taken over) */
  size_t n_pages;
  wn_learn_options learn;    /* learn.algo: how */
} wn_job_request;

wn_err wn_sched_create(wn_store *store, const wn_serve_config *cfg, wn_metrics *metrics,
                       wn_sched **out, wn_diag *diag);
/* Stops planning, waits for the running learns (a crawl stops at its next
 * fetch) and frees. */
void wn_sched_destroy(wn_sched *sched);
/* Takes the new configuration's sites, intervals and defaults. */
wn_err wn_sched_reload(wn_sched *sched, const wn_serve_config *cfg, wn_diag *diag);
/* Queues a learn; *job_id the new job's id, or the id of the job already
 * queued or running for that site (*existing = 1). WN_EBUSY when the queue
 * is full. The request's pages are taken over whatever the outcome. */
wn_err wn_sched_submit(wn_sched *sched, wn_job_request *req, wn_job_reason reason,
                       uint64_t *job_id, int *existing, wn_diag *diag);
/* A site drifts: relearn it early if it is configured and was not learned
 * too recently. */
void wn_sched_drift(wn_sched *sched, const char *site);
/* Remembers a learn done outside the queue (from requests) as a finished
 * job, so /v1/jobs shows it; learned may be NULL. *job_id (may be NULL)
 * its id. */
void wn_sched_record(wn_sched *sched, const char *site, wn_job_reason reason,
                     const wn_learned *learned, wn_err err, const char *message,
                     uint64_t generation, int64_t started_ms, int64_t finished_ms,
                     uint64_t *job_id);
/* Wall clock, Unix milliseconds (the jobs' times). */
int64_t wn_sched_wall_ms(void);
/* The job as a JSON object text (malloc'd): WN_ENOTFOUND for an unknown id. */
wn_err wn_sched_job_json(wn_sched *sched, uint64_t id, char **out, wn_diag *diag);
/* All jobs remembered, newest first, as {"jobs": [...]}. */
wn_err wn_sched_jobs_json(wn_sched *sched, char **out, wn_diag *diag);
/* The site's schedule as a JSON object text, or NULL if it has none. */
char *wn_sched_site_json(wn_sched *sched, const char *site);
void wn_sched_counts(wn_sched *sched, uint64_t *queued, uint64_t *running, uint64_t *scheduled);

#endif /* WN_SERVE_H */
