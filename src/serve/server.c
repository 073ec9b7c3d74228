/*
 * serve/server.c: the HTTP API's server (libmicrohttpd, JSON with
 * jansson): routing, the configurations in use, start, reload and stop.
 * The endpoints are in handlers.c, the answers they give in respond.c,
 * each thread's detector in detectors.c.
 *
 * Threads: libmicrohttpd's own pool (listen.workers), each thread with its
 * own wn_detector (the library's rule: one detector per thread), made on
 * the thread's first detection and kept until the server stops; so the hot
 * path takes no lock, and counts are batched by the detector, never written
 * per request.
 *
 * What a client can make us hold is bounded: the body (listen.max_body,
 * 413 past it, refused from Content-Length before it is read when the
 * length is declared), the connections (listen.max_connections), their idle
 * time (listen.timeout), the learning queue and the job table
 * (learning.max_queued, learning.max_jobs; 503 when full).
 */
#include "serve/serve.h"
#include "serve/server_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <microhttpd.h>

#include "site/schedule.h"

/* ---- configurations in use -------------------------------------------------------- */

/* Pins the current configuration: *slot receives the slot to unpin. */
static wn_serve_config *wn_cfg_pin(wn_server *srv, unsigned *slot) {
  for (;;) {
    unsigned i = atomic_load(&srv->current);
    atomic_fetch_add(&srv->slots[i].pins, 1);
    /* Still current after the pin: a reload that replaces it from now on
     * sees the pin and leaves the configuration alone. */
    if (atomic_load(&srv->current) == i) {
      *slot = i;
      return atomic_load(&srv->slots[i].cfg);
    }
    atomic_fetch_sub(&srv->slots[i].pins, 1);
  }
}

/* Frees the configurations of slots no longer current and no longer
 * pinned. Called with srv->mu held. */
static void wn_cfg_retire_unused(wn_server *srv) {
  unsigned cur = atomic_load(&srv->current);
  for (unsigned i = 0; i < WN_SERVE_CFG_SLOTS; i++) {
    if (i != cur && atomic_load(&srv->slots[i].pins) == 0)
      wn_serve_config_free(atomic_exchange(&srv->slots[i].cfg, NULL));
  }
}

static void wn_cfg_unpin(wn_server *srv, unsigned slot) {
  /* The last user of a replaced configuration frees it (the lock only
   * then, never on the way of a request that uses the current one). */
  if (atomic_fetch_sub(&srv->slots[slot].pins, 1) == 1 && atomic_load(&srv->current) != slot) {
    pthread_mutex_lock(&srv->mu);
    wn_cfg_retire_unused(srv);
    pthread_mutex_unlock(&srv->mu);
  }
}

/* ---- routing -------------------------------------------------------------------------- */

static wn_endpoint wn_route(const char *url, const char **rest) {
  static const struct {
    const char *prefix;
    int exact; /* 1: the path only; 0: also prefix + "/" + rest */
    wn_endpoint ep;
  } routes[] = {
      {"/v1/detect", 1, WN_EP_DETECT}, {"/v1/learn", 1, WN_EP_LEARN},
      {"/v1/jobs", 0, WN_EP_JOBS},     {"/v1/sites", 0, WN_EP_SITES},
      {"/healthz", 1, WN_EP_HEALTHZ},  {"/metrics", 1, WN_EP_METRICS},
  };
  *rest = "";
  for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
    size_t n = strlen(routes[i].prefix);
    if (strncmp(url, routes[i].prefix, n) != 0)
      continue;
    if (url[n] == '\0')
      return routes[i].ep;
    if (!routes[i].exact && url[n] == '/' && url[n + 1]) {
      *rest = url + n + 1;
      return routes[i].ep;
    }
  }
  return WN_EP_OTHER;
}

static enum MHD_Result wn_answer(wn_server *srv, struct MHD_Connection *c, wn_req *req,
                                 const char *url, const char *method) {
  const char *rest = "";
  wn_endpoint ep = wn_route(url, &rest);
  enum MHD_Result rc;
  int get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
  int post = strcmp(method, "POST") == 0;
  if (req->too_big)
    return wn_serve_respond_error(c, req, 413, "too_large", NULL,
                                  "the body is larger than listen.max_body (%zu bytes)",
                                  req->cfg->max_body);
  if (req->too_busy) {
    static const char *const retry[] = {MHD_HTTP_HEADER_RETRY_AFTER, "1", NULL};
    return wn_serve_respond_error(c, req, 503, "busy", retry,
                                  "the server holds listen.max_buffered bytes of request bodies "
                                  "already; retry");
  }
  switch (ep) {
  case WN_EP_DETECT:
    return post ? wn_serve_detect_handler(srv, c, req)
                : wn_serve_method_not_allowed(c, req, "POST", method);
  case WN_EP_LEARN:
    if (!post)
      return wn_serve_method_not_allowed(c, req, "POST", method);
    if (!wn_serve_authorized(c, req, &rc))
      return rc;
    return wn_serve_learn_handler(srv, c, req);
  case WN_EP_JOBS:
    if (!get)
      return wn_serve_method_not_allowed(c, req, "GET", method);
    if (!wn_serve_authorized(c, req, &rc))
      return rc;
    return wn_serve_jobs_handler(srv, c, req, rest);
  case WN_EP_SITES:
    return wn_serve_sites_handler(srv, c, req, method, rest);
  case WN_EP_HEALTHZ:
    return get ? wn_serve_healthz_handler(srv, c, req)
               : wn_serve_method_not_allowed(c, req, "GET", method);
  case WN_EP_METRICS:
    return get ? wn_serve_metrics_handler(srv, c, req)
               : wn_serve_method_not_allowed(c, req, "GET", method);
  default:
    return wn_serve_respond_error(c, req, 404, "not_found", NULL,
                                  "no such endpoint: %s (see /v1/detect, /v1/learn, /v1/jobs, "
                                  "/v1/sites, /healthz, /metrics)",
                                  url);
  }
}

static enum MHD_Result wn_access(void *cls, struct MHD_Connection *c, const char *url,
                                 const char *method, const char *version,
                                 const char *upload_data, size_t *upload_data_size,
                                 void **con_cls) {
  (void)version;
  wn_server *srv = cls;
  wn_req *req = *con_cls;
  if (!req) {
    /* The first call: headers only. */
    if (!(req = calloc(1, sizeof *req)))
      return MHD_NO;
    const char *rest;
    req->ep = wn_route(url, &rest);
    req->start_ms = wn_clock_ms();
    req->cfg = wn_cfg_pin(srv, &req->slot);
    size_t cap = req->cfg->max_body;
    wn_buf_init(&req->body, cap);
    atomic_fetch_add(&srv->inflight, 1);
    req->counted = 1;
    *con_cls = req;
    /* A declared length past the cap is refused before it is read. */
    const char *cl =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (cl) {
      char *end = NULL;
      errno = 0;
      unsigned long long n = strtoull(cl, &end, 10);
      if (!errno && end != cl && n > cap) {
        req->too_big = 1;
        return wn_answer(srv, c, req, url, method);
      }
    }
    return MHD_YES;
  }
  if (*upload_data_size) {
    size_t n = *upload_data_size;
    *upload_data_size = 0;
    if (req->too_big || req->too_busy)
      return MHD_YES; /* drop what arrives; the answer comes at the end */
    /* All requests together hold at most listen.max_buffered bytes of
     * body, so many slow uploads cannot exhaust memory. */
    size_t before = atomic_fetch_add(&srv->buffered, n);
    if (before + n > req->cfg->max_buffered) {
      atomic_fetch_sub(&srv->buffered, n);
      req->too_busy = 1;
    } else {
      req->held += n;
      if (wn_buf_append(&req->body, upload_data, n) != WN_OK)
        req->too_big = 1; /* past the cap (chunked bodies have no length to check first) */
    }
    if (req->too_big || req->too_busy) {
      atomic_fetch_sub(&srv->buffered, req->held);
      req->held = 0;
      wn_buf_free(&req->body);
      wn_buf_init(&req->body, 0);
    }
    return MHD_YES;
  }
  return wn_answer(srv, c, req, url, method);
}

static void wn_completed(void *cls, struct MHD_Connection *c, void **con_cls,
                         enum MHD_RequestTerminationCode toe) {
  (void)toe;
  wn_server *srv = cls;
  wn_req *req = *con_cls;
  if (!req)
    return;
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(c, MHD_CONNECTION_INFO_HTTP_STATUS);
  unsigned status = info ? info->http_status : 0;
  uint64_t us = (uint64_t)((wn_clock_ms() - req->start_ms) * 1000.0);
  wn_metrics_request(&srv->metrics, req->ep, status, us);
  const wn_serve_config *cfg = req->cfg;
  if (cfg->log_level >= WN_LOG_DEBUG)
    wn_serve_log(cfg->log_level, WN_LOG_DEBUG, "request endpoint %d status %u in %llu us",
                 (int)req->ep, status, (unsigned long long)us);
  wn_cfg_unpin(srv, req->slot);
  wn_buf_free(&req->body);
  if (req->held)
    atomic_fetch_sub(&srv->buffered, req->held);
  /* The last request in flight of a stopping server wakes wn_server_stop
   * (stopping is set under wake_mu before it reads inflight, so either it
   * sees this decrement or this sees stopping). */
  if (req->counted && atomic_fetch_sub(&srv->inflight, 1) == 1 && atomic_load(&srv->stopping)) {
    pthread_mutex_lock(&srv->wake_mu);
    pthread_cond_broadcast(&srv->drained);
    pthread_mutex_unlock(&srv->wake_mu);
  }
  free(req);
  *con_cls = NULL;
}

/* ---- start, reload, stop ------------------------------------------------------------ */

__attribute__((format(printf, 2, 0))) static void wn_mhd_log(void *cls, const char *fmt,
                                                          va_list ap) {
  wn_server *srv = cls;
  char line[512];
  vsnprintf(line, sizeof line, fmt, ap);
  size_t n = strlen(line);
  while (n && line[n - 1] == '\n')
    line[--n] = '\0';
  wn_serve_log(atomic_load(&srv->log_level), WN_LOG_INFO, "http: %s", line);
}

/* The collector's pending pages reach the store within a second, however
 * few requests come: a quiet daemon killed loses at most the last
 * second's (wn_collector_flush). */
static void *wn_flusher_main(void *arg) {
  wn_server *srv = arg;
  pthread_mutex_lock(&srv->wake_mu);
  while (!atomic_load(&srv->stopping)) {
    /* A second, or until wn_server_stop wakes it (stopping is read under
     * wake_mu, so its signal cannot come between the test and the wait).
     * What is left at stop, wn_collector_destroy flushes. */
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += 1;
    int rc = 0;
    while (!atomic_load(&srv->stopping) && rc != ETIMEDOUT)
      rc = pthread_cond_timedwait(&srv->wake, &srv->wake_mu, &until);
    if (atomic_load(&srv->stopping))
      break;
    pthread_mutex_unlock(&srv->wake_mu);
    wn_diag diag = {{0}};
    wn_err err = wn_collector_flush(srv->collector, &diag);
    if (err)
      wn_serve_log(atomic_load(&srv->log_level), WN_LOG_ERROR,
                   "cannot keep pending pages in the store: %s", wn_diag_message(&diag, err));
    pthread_mutex_lock(&srv->wake_mu);
  }
  pthread_mutex_unlock(&srv->wake_mu);
  return NULL;
}

wn_err wn_server_start(const wn_serve_config *cfg_in, wn_server **out, wn_diag *diag) {
  wn_err err = WN_OK;
  if (!cfg_in || !out)
    return wn_diag_set(diag, WN_EINVAL, "serve: start needs a config");
  *out = NULL;
  wn_server *srv = calloc(1, sizeof *srv);
  if (!srv)
    return wn_diag_set(diag, WN_ENOMEM, "serve: out of memory");
  pthread_mutex_init(&srv->mu, NULL);
  pthread_mutex_init(&srv->wake_mu, NULL);
  pthread_condattr_t wake_attr;
  pthread_condattr_init(&wake_attr);
  pthread_condattr_setclock(&wake_attr, CLOCK_MONOTONIC);
  pthread_cond_init(&srv->wake, &wake_attr);
  pthread_cond_init(&srv->drained, &wake_attr);
  pthread_condattr_destroy(&wake_attr);
  wn_metrics_init(&srv->metrics);
  wn_serve_config *cfg = wn_serve_config_copy(cfg_in);
  if (!cfg) {
    err = wn_diag_set(diag, WN_ENOMEM, "serve: out of memory");
    goto fail;
  }
  atomic_store(&srv->slots[0].cfg, cfg);
  atomic_store(&srv->current, 0u);
  atomic_store(&srv->log_level, cfg->log_level);
  if (pthread_key_create(&srv->detector_key, NULL) != 0) {
    err = wn_diag_set(diag, WN_ENOMEM, "serve: cannot make a thread key");
    goto fail;
  }
  srv->key_ready = 1;

  wn_store_options sopts;
  wn_store_options_init(&sopts);
  sopts.map_size = cfg->map_size;
  /* A damaged store would kill the daemon inside LMDB: walk it in a child
   * first and refuse to start (exit 3) when it is damaged. */
  if ((err = wn_store_check(cfg->store_path, NULL, diag)) == WN_ENOTFOUND)
    wn_diag_clear(diag); /* none yet: wn_store_open creates it */
  else if (err)
    goto fail;
  if ((err = wn_store_open(cfg->store_path, &sopts, &srv->store, diag)))
    goto fail;
  if ((err = wn_sched_create(srv->store, cfg, &srv->metrics, &srv->sched, diag)))
    goto fail;
  if (cfg->from_requests) {
    wn_collect_options co;
    wn_collect_options_init(&co);
    co.sample_pages = cfg->from_requests;
    if (co.min_pages > co.sample_pages)
      co.min_pages = co.sample_pages;
    co.max_sites = cfg->from_requests_sites;
    co.max_bytes = cfg->from_requests_bytes;
    co.keep_pending = cfg->from_requests_pending;
    co.pending_sites = cfg->pending_sites;
    co.pending_bytes = cfg->pending_bytes;
    co.learn = cfg->learn;
    if ((err = wn_collector_create(srv->store, &co, &srv->collector, diag)))
      goto fail;
    if (pthread_create(&srv->flusher, NULL, wn_flusher_main, srv) != 0) {
      err = wn_diag_set(diag, WN_ENOMEM, "serve: cannot start a thread");
      goto fail;
    }
    srv->flusher_running = 1;
  }

  /* The address: numeric only (no DNS lookup for a listen address). */
  struct addrinfo hints, *ai = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE;
  hints.ai_socktype = SOCK_STREAM;
  char port[8];
  snprintf(port, sizeof port, "%u", (unsigned)cfg->port);
  const char *addr = cfg->address;
  int gai = getaddrinfo(addr, port, &hints, &ai);
  if (gai != 0) {
    err = wn_diag_set(diag, WN_EINVAL, "serve: listen.address \"%s\" is not an IP address: %s",
                      addr, gai_strerror(gai));
    goto fail;
  }
  unsigned workers = cfg->workers;
  if (workers == 0) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    workers = cores > 0 ? (unsigned)cores : 2;
  }
  /* ITC: MHD_quiesce_daemon needs it to stop accepting while requests
   * in flight finish (wn_server_stop). poll(), not epoll: with a thread
   * pool on epoll, libmicrohttpd 0.9.75 (Debian 12) takes the listen
   * socket out of each worker's epoll set both in MHD_quiesce_daemon and
   * in the worker once it sees the daemon quiesced, and aborts the process
   * ("Failed to remove listen FD from epoll set") when the worker wins. */
  unsigned flags =
      MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG | MHD_USE_POLL | MHD_USE_ITC;
  if (ai->ai_family == AF_INET6)
    flags |= MHD_USE_IPv6;
  srv->mhd = MHD_start_daemon(
      flags, cfg->port, NULL, NULL, wn_access, srv, MHD_OPTION_EXTERNAL_LOGGER, wn_mhd_log, srv,
      MHD_OPTION_SOCK_ADDR, ai->ai_addr,
      MHD_OPTION_THREAD_POOL_SIZE, workers, MHD_OPTION_CONNECTION_LIMIT, cfg->max_connections,
      MHD_OPTION_CONNECTION_TIMEOUT, cfg->timeout_s, MHD_OPTION_NOTIFY_COMPLETED, wn_completed,
      srv, MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024u,
      MHD_OPTION_END);
  freeaddrinfo(ai);
  if (!srv->mhd) {
    err = wn_diag_set(diag, WN_EIO, "serve: cannot listen on %s port %u (in use, or not an "
                                    "address of this machine)",
                      addr, (unsigned)cfg->port);
    goto fail;
  }
  const union MHD_DaemonInfo *di = MHD_get_daemon_info(srv->mhd, MHD_DAEMON_INFO_BIND_PORT);
  srv->port = di ? di->port : cfg->port;
  int v6 = strchr(addr, ':') != NULL;
  wn_serve_log(cfg->log_level, WN_LOG_INFO,
               "serving on http://%s%s%s:%u/ (%u threads, store %s, %zu sites scheduled)",
               v6 ? "[" : "", addr, v6 ? "]" : "", (unsigned)srv->port, workers,
               cfg->store_path, cfg->n_sites);
  *out = srv;
  return WN_OK;
fail:
  wn_server_stop(srv);
  return err;
}

uint16_t wn_server_port(const wn_server *srv) { return srv ? srv->port : 0; }

void wn_server_reload_failed(wn_server *srv, const char *why) {
  if (!srv)
    return;
  atomic_fetch_add_explicit(&srv->metrics.reload_failures, 1, memory_order_relaxed);
  wn_serve_log(atomic_load(&srv->log_level), WN_LOG_ERROR,
               "reload: %s; keeping the running configuration", why ? why : "failed");
}

wn_err wn_server_reload(wn_server *srv, const wn_serve_config *next, wn_diag *diag) {
  if (!srv)
    return wn_diag_set(diag, WN_EINVAL, "serve: reload needs a server");
  /* The message is logged as well as returned, so it is kept even when
   * the caller passes no diag. */
  wn_diag local;
  wn_diag_clear(&local);
  wn_err err = WN_OK;
  wn_serve_config *copy = NULL;
  size_t n_sites = 0;
  int log_level = 0;
  /* One reload at a time: the comparison, the scheduler and the switch. */
  pthread_mutex_lock(&srv->mu);
  if (!next) {
    err = wn_diag_set(&local, WN_EINVAL, "serve: reload needs a config");
    goto out;
  }
  const wn_serve_config *cur = atomic_load(&srv->slots[atomic_load(&srv->current)].cfg);
  char restart_key[96];
  const char *what = wn_serve_config_restart_key(cur, next, restart_key, sizeof restart_key);
  if (what) {
    err = wn_diag_set(&local, WN_EINVAL, "serve: %s changed; that needs a restart", what);
    goto out;
  }
  copy = wn_serve_config_copy(next);
  if (!copy) {
    err = wn_diag_set(&local, WN_ENOMEM, "serve: out of memory");
    goto out;
  }
  /* A free slot: every configuration no request uses any more is freed
   * first, so only requests that outlive WN_SERVE_CFG_SLOTS - 1 reloads
   * can use them all up. */
  wn_cfg_retire_unused(srv);
  unsigned slot = WN_SERVE_CFG_SLOTS;
  for (unsigned i = 0; i < WN_SERVE_CFG_SLOTS && slot == WN_SERVE_CFG_SLOTS; i++)
    if (!atomic_load(&srv->slots[i].cfg))
      slot = i;
  if (slot == WN_SERVE_CFG_SLOTS) {
    err = wn_diag_set(&local, WN_EBUSY, "serve: requests in flight still use the last %u "
                                      "configurations; reload again when they finish",
                      WN_SERVE_CFG_SLOTS - 1);
    goto out;
  }
  if ((err = wn_sched_reload(srv->sched, copy, &local)))
    goto out;
  n_sites = copy->n_sites;
  log_level = copy->log_level;
  /* The configuration is in its slot before the slot is current, so a
   * request that pins the slot finds it. */
  atomic_store(&srv->slots[slot].cfg, copy);
  copy = NULL;
  atomic_store(&srv->log_level, log_level);
  atomic_store(&srv->current, slot);
  wn_cfg_retire_unused(srv); /* the replaced one, unless a request still uses it */
out:
  pthread_mutex_unlock(&srv->mu);
  wn_serve_config_free(copy);
  if (err) {
    wn_server_reload_failed(srv, wn_diag_message(&local, err));
    if (diag)
      *diag = local;
    return err;
  }
  atomic_fetch_add_explicit(&srv->metrics.reloads, 1, memory_order_relaxed);
  wn_serve_log(log_level, WN_LOG_INFO, "configuration reloaded: %zu sites scheduled", n_sites);
  return WN_OK;
}

void wn_server_stop(wn_server *srv) {
  if (!srv)
    return;
  pthread_mutex_lock(&srv->wake_mu);
  atomic_store(&srv->stopping, 1);
  pthread_cond_broadcast(&srv->wake);
  pthread_mutex_unlock(&srv->wake_mu);
  if (srv->mhd) {
    /* Stop accepting, let the requests in flight finish (the last one
     * signals drained), at most WN_SERVE_STOP_GRACE_MS, then close. */
    MHD_quiesce_daemon(srv->mhd);
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += WN_SERVE_STOP_GRACE_MS / 1000;
    pthread_mutex_lock(&srv->wake_mu);
    int rc = 0;
    while (atomic_load(&srv->inflight) > 0 && rc != ETIMEDOUT)
      rc = pthread_cond_timedwait(&srv->drained, &srv->wake_mu, &until);
    pthread_mutex_unlock(&srv->wake_mu);
    MHD_stop_daemon(srv->mhd);
    srv->mhd = NULL;
  }
  wn_sched_destroy(srv->sched);
  if (srv->flusher_running)
    pthread_join(srv->flusher, NULL);
  wn_collector_destroy(srv->collector); /* flushes what is left */
  srv->sched = NULL;
  /* The server threads are gone: their detectors flush their counts. */
  for (size_t i = 0; i < srv->n_detectors; i++)
    wn_detector_destroy(srv->detectors[i]);
  free(srv->detectors);
  wn_store_close(srv->store);
  if (srv->key_ready)
    pthread_key_delete(srv->detector_key);
  if (atomic_load(&srv->slots[atomic_load(&srv->current)].cfg))
    wn_serve_log(atomic_load(&srv->log_level), WN_LOG_INFO, "stopped");
  for (unsigned i = 0; i < WN_SERVE_CFG_SLOTS; i++)
    wn_serve_config_free(atomic_load(&srv->slots[i].cfg));
  pthread_mutex_destroy(&srv->mu);
  pthread_cond_destroy(&srv->wake);
  pthread_cond_destroy(&srv->drained);
  pthread_mutex_destroy(&srv->wake_mu);
  free(srv);
}
