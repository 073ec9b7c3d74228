/*
 * serve/server_int.h: what the server's files share: the server and a
 * request as they live (server.c: routing, configurations, start, reload
 * and stop), the answers every handler gives (respond.c), each thread's
 * detector (detectors.c) and the API's endpoints (handlers.c).
 */
#ifndef WN_SERVER_INT_H
#define WN_SERVER_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include <jansson.h>
#include <microhttpd.h>

#include "serve/serve.h"

#define WN_SERVE_CFG_SLOTS 64u /* configurations in use at once, the current one among them */
#define WN_SERVE_STOP_GRACE_MS 30000

/* A configuration and the requests using it. A request pins the current
 * slot for its whole life (wn_cfg_pin) and reads only that configuration,
 * so a reload never changes a value under it. Slots are never freed while
 * the server runs, so pinning takes no lock: a pin that raced with a
 * reload sees the slot is no longer current and pins again (the counter it
 * touched outlives any configuration). A replaced configuration is freed by
 * the last request that unpins it, or by the next reload. */
typedef struct wn_cfg_slot {
  _Atomic(wn_serve_config *) cfg; /* NULL: free; written under wn_server.mu only */
  _Atomic unsigned pins;
} wn_cfg_slot;

struct wn_server {
  wn_cfg_slot slots[WN_SERVE_CFG_SLOTS];
  _Atomic unsigned current; /* the slot new requests pin */
  _Atomic int log_level;    /* the current configuration's, for lines of no request */
  pthread_mutex_t mu;       /* slots' cfg, reloads, detectors */
  wn_store *store;
  wn_sched *sched;
  wn_collector *collector; /* learning.from_requests; NULL when off */
  pthread_t flusher;       /* writes the collector's pending pages each second */
  int flusher_running;
  pthread_mutex_t wake_mu; /* with wake: the flusher's second, ended at once by stop */
  pthread_cond_t wake;
  pthread_cond_t drained; /* with wake_mu: the last request in flight ended, at stop */
  wn_metrics metrics;
  struct MHD_Daemon *mhd;
  uint16_t port;
  pthread_key_t detector_key;
  int key_ready;
  wn_detector **detectors;
  size_t n_detectors, cap_detectors;
  _Atomic int inflight;
  _Atomic int stopping;
  _Atomic size_t buffered; /* body bytes held by requests being read */
};

/* One request being read and answered. */
typedef struct wn_req {
  wn_endpoint ep;
  wn_serve_config *cfg; /* pinned for the request's life (slot) */
  unsigned slot;
  double start_ms;  /* wn_clock_ms() when its headers arrived */
  wn_buf body;
  int too_big;
  int too_busy;  /* the server's body budget (listen.max_buffered) ran out */
  size_t held;   /* bytes of body counted in srv->buffered */
  int counted; /* in srv->inflight */
} wn_req;

/* ---- answers (respond.c) ---------------------------------------------------------- */

/* Queues body (malloc'd, taken over; NULL for none) with status. */
enum MHD_Result wn_serve_respond(struct MHD_Connection *c, wn_req *req, unsigned status,
                                 const char *type, char *body, size_t len,
                                 const char *const *headers);
/* obj (taken over; NULL: out of memory, a 500) as compact JSON and a newline. */
enum MHD_Result wn_serve_respond_json(struct MHD_Connection *c, wn_req *req, unsigned status,
                                      json_t *obj, const char *const *headers);
/* {"error": "name", "message": "..."} */
enum MHD_Result wn_serve_respond_error(struct MHD_Connection *c, wn_req *req, unsigned status,
                                       const char *name, const char *const *headers,
                                       const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* The HTTP status of a library error. */
unsigned wn_serve_status_of(wn_err err);
/* A library error as its status and {"error", "message"}. */
enum MHD_Result wn_serve_respond_err(struct MHD_Connection *c, wn_req *req, wn_err err,
                                     const wn_diag *diag);
enum MHD_Result wn_serve_method_not_allowed(struct MHD_Connection *c, wn_req *req,
                                            const char *allow, const char *method);
/* 1 if the request may use an admin endpoint; else a 401 is queued. */
int wn_serve_authorized(struct MHD_Connection *c, wn_req *req, enum MHD_Result *rc);
/* This thread's detector, made on its first detection (detectors.c). */
wn_err wn_serve_thread_detector(wn_server *srv, const wn_serve_config *cfg, wn_detector **out,
                                wn_diag *diag);

/* ---- the endpoints (handlers.c) ---------------------------------------------------- */

enum MHD_Result wn_serve_detect_handler(wn_server *srv, struct MHD_Connection *c, wn_req *req);
enum MHD_Result wn_serve_learn_handler(wn_server *srv, struct MHD_Connection *c, wn_req *req);
enum MHD_Result wn_serve_jobs_handler(wn_server *srv, struct MHD_Connection *c, wn_req *req,
                                      const char *rest);
enum MHD_Result wn_serve_sites_handler(wn_server *srv, struct MHD_Connection *c, wn_req *req,
                                       const char *method, const char *rest);
enum MHD_Result wn_serve_metrics_handler(wn_server *srv, struct MHD_Connection *c, wn_req *req);
enum MHD_Result wn_serve_healthz_handler(wn_server *srv, struct MHD_Connection *c, wn_req *req);

#endif /* WN_SERVER_INT_H */
