/*
 * serve/detectors.c: one wn_detector per server thread (the library's
 * rule), made on the thread's first detection and kept until the server
 * stops, so the hot path takes no lock; and what a detector's drift
 * report sets off (a relearn, scheduled) and its damaged templates (a
 * warning in the log).
 */
#include "serve/serve.h"
#include "serve/server_int.h"

#include <pthread.h>
#include <stdlib.h>

static void wn_on_drift(const wn_drift_event *event, void *ctx) {
  wn_server *srv = ctx;
  atomic_fetch_add_explicit(&srv->metrics.drift_events, 1, memory_order_relaxed);
  wn_serve_log(atomic_load(&srv->log_level), WN_LOG_INFO,
               "drift %s: %u of the last %u pages fitted generation %llu badly", event->site,
               (unsigned)event->counts.recent_low, (unsigned)event->counts.recent_pages,
               (unsigned long long)event->generation);
  wn_sched_drift(srv->sched, event->site);
}

static void wn_on_damage(const char *site, const char *message, void *ctx) {
  wn_server *srv = ctx;
  (void)site;
  wn_serve_log(atomic_load(&srv->log_level), WN_LOG_ERROR,
               "%s; the site's pages are read by the single-page method", message);
}

wn_err wn_serve_thread_detector(wn_server *srv, const wn_serve_config *cfg, wn_detector **out,
                                wn_diag *diag) {
  wn_detector *det = pthread_getspecific(srv->detector_key);
  if (det) {
    *out = det;
    return WN_OK;
  }
  wn_detector_options opts = cfg->detector;
  opts.on_drift = wn_on_drift;
  opts.on_damage = wn_on_damage;
  opts.drift_ctx = srv;
  wn_err err = wn_detector_create(srv->store, &opts, &det, diag);
  if (err)
    return err;
  pthread_mutex_lock(&srv->mu);
  if (srv->n_detectors == srv->cap_detectors) {
    size_t cap = srv->cap_detectors ? srv->cap_detectors * 2 : 16;
    wn_detector **grown = realloc(srv->detectors, cap * sizeof *grown);
    if (!grown) {
      pthread_mutex_unlock(&srv->mu);
      wn_detector_destroy(det);
      return wn_diag_set(diag, WN_ENOMEM, "serve: out of memory");
    }
    srv->detectors = grown;
    srv->cap_detectors = cap;
  }
  srv->detectors[srv->n_detectors++] = det;
  pthread_mutex_unlock(&srv->mu);
  pthread_setspecific(srv->detector_key, det);
  *out = det;
  return WN_OK;
}
