/*
 * serve/server.c: the HTTP API (libmicrohttpd, JSON with jansson).
 *
 *   POST   /v1/detect          a page in, its main content out (the hot path)
 *   POST   /v1/learn           learn a site in the background: 202 + a job
 *   GET    /v1/jobs[/{id}]     learning jobs
 *   GET    /v1/sites[/{site}]  templates, counts, drift and schedule
 *   DELETE /v1/sites/{site}    forget a site's template
 *   GET    /healthz, /metrics  liveness; Prometheus text format
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

/* ---- responses -------------------------------------------------------------------- */

/* Queues body (malloc'd, taken over; NULL for none) with status. */
static enum MHD_Result wn_respond(struct MHD_Connection *c, wn_req *req, unsigned status,
                                  const char *type, char *body, size_t len,
                                  const char *const *headers) {
  struct MHD_Response *resp =
      MHD_create_response_from_buffer(body ? len : 0, body ? body : (void *)"",
                                      body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
  if (!resp) {
    free(body);
    return MHD_NO;
  }
  if (type)
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
  for (size_t i = 0; headers && headers[i]; i += 2)
    MHD_add_response_header(resp, headers[i], headers[i + 1]);
  enum MHD_Result rc = MHD_queue_response(c, status, resp);
  MHD_destroy_response(resp);
  (void)req; /* the status is counted when the request completes */
  return rc;
}

static enum MHD_Result wn_respond_json(struct MHD_Connection *c, wn_req *req, unsigned status,
                                       json_t *obj, const char *const *headers) {
  char *text = obj ? json_dumps(obj, JSON_COMPACT | JSON_REAL_PRECISION(6)) : NULL;
  json_decref(obj);
  if (!text)
    return wn_respond(c, req, 500, "text/plain", strdup("out of memory\n"), 14, NULL);
  size_t len = strlen(text);
  /* A newline, so `curl` output ends cleanly. */
  char *withnl = realloc(text, len + 2);
  if (withnl) {
    withnl[len] = '\n';
    withnl[len + 1] = '\0';
    text = withnl;
    len++;
  }
  return wn_respond(c, req, status, "application/json", text, len, headers);
}

/* {"error": "name", "message": "..."} */
static enum MHD_Result wn_respond_error(struct MHD_Connection *c, wn_req *req, unsigned status,
                                        const char *name, const char *const *headers,
                                        const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static enum MHD_Result wn_respond_error(struct MHD_Connection *c, wn_req *req, unsigned status,
                                        const char *name, const char *const *headers,
                                        const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  json_t *o = json_object();
  if (o) {
    json_object_set_new(o, "error", json_string(name));
    json_object_set_new(o, "message", json_string(msg));
  }
  return wn_respond_json(c, req, status, o, headers);
}

/* The HTTP status for a library error on a request's own input. */
static unsigned wn_status_of(wn_err err) {
  switch (err) {
  case WN_EINVAL: return 400;
  case WN_ETOOBIG: return 413;
  case WN_ENOTFOUND:
  case WN_ENOTEMPLATE: return 404;
  case WN_ENOTHTML:
  case WN_ECHARSET:
  case WN_EPARSE:
  case WN_ETOOMANY:
  case WN_ETOODEEP:
  case WN_EEMPTY: return 422;
  case WN_EBUSY:
  case WN_ENOMEM: return 503;
  default: return 500;
  }
}

static enum MHD_Result wn_respond_err(struct MHD_Connection *c, wn_req *req, wn_err err,
                                      const wn_diag *diag) {
  static const char *const retry[] = {MHD_HTTP_HEADER_RETRY_AFTER, "5", NULL};
  unsigned status = wn_status_of(err);
  return wn_respond_error(c, req, status, wn_strerror_name(err), status == 503 ? retry : NULL,
                          "%s", wn_diag_message(diag, err));
}

static enum MHD_Result wn_method_not_allowed(struct MHD_Connection *c, wn_req *req,
                                             const char *allow, const char *method) {
  const char *const headers[] = {MHD_HTTP_HEADER_ALLOW, allow, NULL};
  return wn_respond_error(c, req, 405, "method_not_allowed", headers,
                          "%s is not allowed here (allowed: %s)", method, allow);
}

/* ---- the token ------------------------------------------------------------------------ */

/* Compares in time independent of where the strings differ. */
static int wn_token_equal(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  unsigned char diff = (unsigned char)(la != lb);
  for (size_t i = 0; i < la; i++)
    diff |= (unsigned char)(a[i] ^ b[i % (lb ? lb : 1)]);
  return diff == 0;
}

/* 1 if the request may use an admin endpoint; else a 401 is queued. */
static int wn_authorized(struct MHD_Connection *c, wn_req *req, enum MHD_Result *rc) {
  const char *token = req->cfg->token;
  if (!token)
    return 1;
  const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
  if (auth && strncasecmp(auth, "Bearer ", 7) == 0) {
    auth += 7;
    while (*auth == ' ')
      auth++;
    if (wn_token_equal(auth, token))
      return 1;
  }
  static const char *const headers[] = {MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer", NULL};
  *rc = wn_respond_error(c, req, 401, "unauthorized", headers,
                         "this endpoint needs \"Authorization: Bearer <token>\" "
                         "(listen.token)");
  return 0;
}

/* ---- detectors, one per server thread --------------------------------------------------- */

static void wn_on_drift(const wn_drift_event *event, void *ctx) {
  wn_server *srv = ctx;
  atomic_fetch_add_explicit(&srv->metrics.drift_events, 1, memory_order_relaxed);
  wn_serve_log(atomic_load(&srv->log_level), WN_LOG_INFO,
               "drift %s: %u of the last %u pages fitted generation %llu badly", event->site,
               (unsigned)event->counts.recent_low, (unsigned)event->counts.recent_pages,
               (unsigned long long)event->generation);
  wn_sched_drift(srv->sched, event->site);
}

static wn_err wn_thread_detector(wn_server *srv, const wn_serve_config *cfg, wn_detector **out,
                                 wn_diag *diag) {
  wn_detector *det = pthread_getspecific(srv->detector_key);
  if (det) {
    *out = det;
    return WN_OK;
  }
  wn_detector_options opts = cfg->detector;
  opts.on_drift = wn_on_drift;
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

/* ---- learning from requests ---------------------------------------------------------------- */

/* learning.from_requests: a page of a site without a template is held
 * (within the collector's bounds); so is a page that fits its template
 * badly while the site drifts, to relearn the site from its recent
 * pages. The request that completes a site's sample learns it, in its own
 * thread, before it answers: the next page of the site is served by the
 * template (the detectors see a record stored through this store handle
 * at once). The learn is remembered as a job with trigger "requests". */
static void wn_learn_from_request(wn_server *srv, const wn_serve_config *cfg,
                                  const wn_page_input *page, const wn_page_result *result) {
  const char *site = wn_page_result_site(result);
  wn_detect_fallback fb = wn_page_result_fallback(result);
  if (!site)
    return;
  unsigned flags = 0;
  if (fb == WN_FALLBACK_LOW_CONFIDENCE) {
    wn_site_counts counts;
    int drifting = 0;
    if (!wn_page_result_counts(result, &counts, &drifting) || !drifting)
      return;
    flags = WN_COLLECT_RELEARN;
  } else if (fb != WN_FALLBACK_NO_TEMPLATE) {
    return;
  }
  /* The page under its site's name, whether the request gave the site or
   * the URL. */
  wn_page_input in = *page;
  in.site = site;
  wn_collect_state state = WN_COLLECT_NO_SITE;
  wn_diag diag = {{0}};
  if (wn_collector_add(srv->collector, &in, page->url, flags, &state, &diag) != WN_OK ||
      state != WN_COLLECT_READY)
    return;
  const int64_t started = wn_sched_wall_ms();
  wn_learned *learned = NULL;
  wn_err err = wn_collector_learn(srv->collector, site, &learned, &diag);
  if (err == WN_EBUSY || err == WN_ENOTFOUND) {
    wn_learned_free(learned);
    return; /* another request is learning it */
  }
  wn_save_info info = {0};
  if (!err)
    err = wn_site_save(srv->store, learned, &info, &diag);
  const int64_t finished = wn_sched_wall_ms();
  uint64_t job = 0;
  wn_sched_record(srv->sched, site, WN_JOB_REQUESTS, learned, err,
                  err ? wn_diag_message(&diag, err) : NULL, info.generation, started, finished,
                  &job);
  wn_metrics_learn(&srv->metrics, err == WN_OK, (uint64_t)(finished - started));
  if (err)
    wn_serve_log(cfg->log_level, WN_LOG_ERROR, "learn %s: job %llu (requests) failed: %s", site,
                 (unsigned long long)job, wn_diag_message(&diag, err));
  else {
    wn_learn_summary sum;
    wn_learned_summary_get(learned, &sum);
    wn_serve_log(cfg->log_level, WN_LOG_INFO,
                 "learn %s: job %llu (requests) done in %lld ms: generation %llu from %zu pages",
                 site, (unsigned long long)job, (long long)(finished - started),
                 (unsigned long long)info.generation, sum.n_used);
  }
  wn_learned_free(learned);
}

/* ---- POST /v1/detect ---------------------------------------------------------------------- */

/* A query flag: "0", "false" or "no" is 0, anything else 1, absent dflt. */
static int wn_query_flag(struct MHD_Connection *c, const char *name, int dflt) {
  const char *v = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, name);
  if (!v)
    return dflt;
  return !(strcmp(v, "0") == 0 || strcmp(v, "false") == 0 || strcmp(v, "no") == 0);
}

static int wn_is_json_type(const char *type) {
  return type && strncasecmp(type, "application/json", 16) == 0;
}

/* A multipart form (curl -F): its body is parts between boundary lines,
 * never a page as it stands. (A urlencoded form's type is what curl -d and
 * --data-binary send unless told otherwise, so a page sent that way, as
 * the README and docs/serve.md show, is read as the page.) */
static int wn_is_multipart_type(const char *type) {
  return type && strncasecmp(type, "multipart/form-data", 19) == 0;
}

/* 1 if the body's first byte past white space opens a JSON object or
 * array: only then is it worth parsing as JSON (a page never starts so). */
static int wn_body_may_be_json(const wn_buf *body) {
  for (size_t i = 0; i < body->len; i++) {
    char ch = body->data[i];
    if (ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n')
      continue;
    return ch == '{' || ch == '[';
  }
  return 0;
}

static enum MHD_Result wn_serve_detect_handler(wn_server *srv, struct MHD_Connection *c,
                                               wn_req *req) {
  wn_diag diag;
  wn_diag_clear(&diag);
  json_t *in = NULL;
  wn_page_result *result = NULL;
  enum MHD_Result rc;
  const char *type = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
  const char *format = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "format");
  const char *nodes = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "nodes");
  char charset[64];
  wn_page_input page = {
      .bytes = req->body.data,
      .len = req->body.len,
      .url = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "url"),
      .site = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "site"),
      .charset = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "charset"),
  };
  if (wn_is_json_type(type)) {
    json_error_t jerr;
    in = json_loadb(req->body.data ? req->body.data : "", req->body.len, 0, &jerr);
    if (!in || !json_is_object(in)) {
      rc = wn_respond_error(c, req, 400, "bad_json", NULL,
                            in ? "the body must be a JSON object {\"url\", \"html\"}"
                               : "the body is not JSON: %s (line %d, column %d)",
                            jerr.text, jerr.line, jerr.column);
      goto out;
    }
  } else if (wn_body_may_be_json(&req->body)) {
    /* JSON sent with another type (curl -d sends a form's type): the JSON
     * form when it is an object with "html" or "url", else refused. JSON,
     * or what starts like it, is never read as a page. */
    json_error_t jerr;
    in = json_loadb(req->body.data, req->body.len, 0, &jerr);
    if (!in || !json_is_object(in) ||
        !(json_object_get(in, "html") || json_object_get(in, "url"))) {
      char why[200];
      if (in)
        snprintf(why, sizeof why, "the body is JSON but not an object with \"html\"");
      else
        snprintf(why, sizeof why, "the body starts like JSON but is not JSON (%.80s, line %d, "
                                  "column %d)", jerr.text, jerr.line, jerr.column);
      json_decref(in);
      in = NULL;
      rc = wn_respond_error(c, req, 415, "unsupported_media_type", NULL,
                            "%s; send the page as the body (curl --data-binary @page.html) "
                            "or JSON {\"url\", \"html\"} with Content-Type: "
                            "application/json",
                            why);
      goto out;
    }
  }
  if (!in && wn_is_multipart_type(type)) {
    rc = wn_respond_error(c, req, 415, "unsupported_media_type", NULL,
                          "a multipart form is not a page; send the HTML as the body "
                          "(curl --data-binary @page.html), or JSON {\"url\", \"html\"}");
    goto out;
  }
  if (in) {
    json_t *html = json_object_get(in, "html");
    if (!json_is_string(html)) {
      rc = wn_respond_error(c, req, 400, "bad_request", NULL,
                            json_object_get(in, "url")
                                ? "\"html\" (the page, a string) is missing; the daemon "
                                  "extracts the page it is sent, it does not fetch \"url\""
                                : "\"html\" (the page, a string) is missing");
      goto out;
    }
    page.bytes = json_string_value(html);
    page.len = json_string_length(html);
    static const char *const keys[] = {"url", "site", "charset", "format"};
    const char *vals[4] = {NULL, NULL, NULL, NULL};
    for (size_t i = 0; i < 4; i++) {
      json_t *v = json_object_get(in, keys[i]);
      if (v && !json_is_string(v) && !json_is_null(v)) {
        rc = wn_respond_error(c, req, 400, "bad_request", NULL, "\"%s\" must be a string",
                              keys[i]);
        goto out;
      }
      vals[i] = json_is_string(v) ? json_string_value(v) : NULL;
    }
    if (vals[0])
      page.url = vals[0];
    if (vals[1])
      page.site = vals[1];
    if (vals[2])
      page.charset = vals[2];
    if (vals[3])
      format = vals[3];
  } else if (!page.charset) {
    /* The page's own Content-Type, as the crawler received it. */
    wn_content_type_charset(type, charset, sizeof charset);
    if (charset[0])
      page.charset = charset;
  }
  if (page.len == 0) {
    rc = wn_respond_error(c, req, 400, "bad_request", NULL,
                          "no page: send its HTML as the body (with ?url=), or JSON "
                          "{\"url\", \"html\"}");
    goto out;
  }
  enum { F_JSON, F_TEXT, F_HTML, F_MARKDOWN } f = F_JSON;
  if (format && strcmp(format, "text") == 0)
    f = F_TEXT;
  else if (format && strcmp(format, "html") == 0)
    f = F_HTML;
  else if (format && strcmp(format, "markdown") == 0)
    f = F_MARKDOWN;
  else if (format && strcmp(format, "json") != 0) {
    rc = wn_respond_error(c, req, 400, "bad_request", NULL,
                          "format \"%s\" is not json, text, html or markdown", format);
    goto out;
  }
  /* As the command line: JSON carries the page's metadata when asked
   * (?metadata=1);
   * Markdown starts with it as front matter unless ?metadata=0. ?links=0,
   * ?images=0, ?tables=0 as --no-links, ... */
  int metadata = wn_query_flag(c, "metadata", f == F_MARKDOWN);
  unsigned want = f == F_HTML       ? WN_WANT_HTML
                  : f == F_MARKDOWN ? WN_WANT_MARKDOWN | (metadata ? WN_WANT_FRONT_MATTER : 0u)
                                    : WN_WANT_TEXT;
  if (f == F_JSON && metadata)
    want |= WN_WANT_METADATA;
  if (f == F_JSON && nodes && strcmp(nodes, "0") != 0)
    want |= WN_WANT_NODES;
  if (!wn_query_flag(c, "links", 1))
    want |= WN_RENDER_NO_LINKS;
  if (!wn_query_flag(c, "images", 1))
    want |= WN_RENDER_NO_IMAGES;
  if (!wn_query_flag(c, "tables", 1))
    want |= WN_RENDER_NO_TABLES;

  wn_detector *det = NULL;
  wn_err err = wn_thread_detector(srv, req->cfg, &det, &diag);
  if (!err)
    err = wn_detector_detect(det, &page, want, &result, &diag);
  if (err) {
    if (wn_status_of(err) != 400)
      atomic_fetch_add_explicit(&srv->metrics.detect_errors, 1, memory_order_relaxed);
    rc = wn_respond_err(c, req, err, &diag);
    goto out;
  }
  wn_metrics_detection(&srv->metrics, wn_page_result_method(result),
                       (int)wn_page_result_fallback(result));
  if (srv->collector)
    wn_learn_from_request(srv, req->cfg, &page, result);
  if (f == F_JSON) {
    char *text = NULL;
    if ((err = wn_page_result_json(result, NULL, 0, &text, &diag))) {
      rc = wn_respond_err(c, req, err, &diag);
      goto out;
    }
    size_t len = strlen(text);
    char *withnl = realloc(text, len + 2);
    if (withnl) {
      withnl[len++] = '\n';
      withnl[len] = '\0';
      text = withnl;
    }
    rc = wn_respond(c, req, 200, "application/json", text, len, NULL);
    goto out;
  }
  size_t len = 0;
  const char *content = f == F_TEXT   ? wn_page_result_text(result, &len)
                        : f == F_HTML ? wn_page_result_html(result, &len)
                                      : wn_page_result_markdown(result, &len);
  char *copy = malloc(len + 1);
  if (!copy) {
    rc = wn_respond_error(c, req, 503, "WN_ENOMEM", NULL, "out of memory");
    goto out;
  }
  memcpy(copy, content, len);
  copy[len] = '\0';
  char conf[32];
  snprintf(conf, sizeof conf, "%.4f", wn_page_result_confidence(result));
  const char *site = wn_page_result_site(result);
  const char *fb = wn_detect_fallback_name(wn_page_result_fallback(result));
  const char *const headers[] = {"X-Winnow-Method", wn_page_result_method(result),
                                 "X-Winnow-Confidence", conf,
                                 "X-Winnow-Site", site ? site : "",
                                 "X-Winnow-Fallback", fb ? fb : "none",
                                 NULL};
  rc = wn_respond(c, req, 200,
                  f == F_TEXT   ? "text/plain; charset=utf-8"
                  : f == F_HTML ? "text/html; charset=utf-8"
                                : "text/markdown; charset=utf-8",
                  copy, len, headers);
out:
  wn_page_result_free(result);
  json_decref(in);
  return rc;
}

/* ---- POST /v1/learn ------------------------------------------------------------------------ */

static enum MHD_Result wn_serve_learn_handler(wn_server *srv, struct MHD_Connection *c,
                                              wn_req *req) {
  enum MHD_Result rc;
  json_error_t jerr;
  wn_job_request jr;
  memset(&jr, 0, sizeof jr);
  const wn_serve_config *cfg = req->cfg;
  json_t *in = json_loadb(req->body.data ? req->body.data : "", req->body.len, 0, &jerr);
  if (!in || !json_is_object(in)) {
    rc = wn_respond_error(c, req, 400, "bad_json", NULL,
                          in ? "the body must be a JSON object: {\"url\"} or {\"site\", "
                               "\"pages\"}"
                             : "the body is not JSON: %s (line %d, column %d)",
                          jerr.text, jerr.line, jerr.column);
    goto out;
  }
  json_t *url = json_object_get(in, "url"), *site = json_object_get(in, "site");
  json_t *pages = json_object_get(in, "pages");
  if ((url && !json_is_string(url)) || (site && !json_is_string(site)) ||
      (pages && !json_is_array(pages)) || (!url && !pages) || (url && pages)) {
    rc = wn_respond_error(c, req, 400, "bad_request", NULL,
                          "send {\"url\": key page} to crawl, or {\"site\", \"pages\": "
                          "[{\"url\", \"html\"}, ...]} to learn from pages");
    goto out;
  }
  wn_diag diag;
  wn_diag_clear(&diag);
  wn_err err;
  if (site) {
    err = wn_site_check(json_string_value(site), &diag);
    snprintf(jr.site, sizeof jr.site, "%s", json_string_value(site));
  } else if (url) {
    err = wn_site_from_url(json_string_value(url), jr.site, sizeof jr.site, &diag);
  } else {
    err = wn_diag_set(&diag, WN_EINVAL, "learning from pages needs \"site\"");
  }
  if (!err && url) {
    char url_site[WN_SITE_MAX + 1];
    err = wn_site_from_url(json_string_value(url), url_site, sizeof url_site, &diag);
  }
  if (err) {
    rc = wn_respond_error(c, req, 400, "bad_request", NULL, "%s", wn_diag_message(&diag, err));
    goto out;
  }
  const wn_serve_site *conf = wn_serve_config_site(cfg, jr.site);
  if (!conf && !cfg->allow_any_site) {
    rc = wn_respond_error(c, req, 403, "forbidden", NULL,
                          "site %s is not configured (add it under sites:, or set "
                          "listen.allow_any_site)",
                          jr.site);
    goto out;
  }
  jr.learn = conf ? conf->learn : cfg->learn;
  jr.algo = conf ? conf->algo : cfg->algo;
  if (url) {
    if (!(jr.url = strdup(json_string_value(url)))) {
      rc = wn_respond_error(c, req, 503, "WN_ENOMEM", NULL, "out of memory");
      goto out;
    }
  } else {
    size_t n = json_array_size(pages);
    if (n < 2 || n > WN_LEARN_MAX_PAGES) {
      rc = wn_respond_error(c, req, 400, "bad_request", NULL,
                            "\"pages\" needs 2 to %u pages (the key page first)",
                            WN_LEARN_MAX_PAGES);
      goto out;
    }
    if (!(jr.pages = calloc(n, sizeof *jr.pages))) {
      rc = wn_respond_error(c, req, 503, "WN_ENOMEM", NULL, "out of memory");
      goto out;
    }
    for (size_t i = 0; i < n; i++) {
      json_t *p = json_array_get(pages, i);
      json_t *name = json_object_get(p, "url");
      if (!name)
        name = json_object_get(p, "name");
      json_t *html = json_object_get(p, "html");
      if (!json_is_object(p) || !json_is_string(name) || !json_is_string(html)) {
        rc = wn_respond_error(c, req, 400, "bad_request", NULL,
                              "pages[%zu] must be {\"url\": ..., \"html\": ...}", i);
        goto out;
      }
      size_t len = json_string_length(html);
      jr.pages[i].name = strdup(json_string_value(name));
      jr.pages[i].bytes = malloc(len + 1);
      jr.n_pages = i + 1;
      if (!jr.pages[i].name || !jr.pages[i].bytes) {
        rc = wn_respond_error(c, req, 503, "WN_ENOMEM", NULL, "out of memory");
        goto out;
      }
      memcpy(jr.pages[i].bytes, json_string_value(html), len);
      jr.pages[i].bytes[len] = '\0';
      jr.pages[i].len = len;
    }
  }
  uint64_t id = 0;
  int existing = 0;
  char site_name[WN_SITE_MAX + 1];
  snprintf(site_name, sizeof site_name, "%s", jr.site);
  if ((err = wn_sched_submit(srv->sched, &jr, WN_JOB_API, &id, &existing, &diag))) {
    rc = wn_respond_err(c, req, err, &diag);
    goto out;
  }
  char location[64];
  snprintf(location, sizeof location, "/v1/jobs/%llu", (unsigned long long)id);
  const char *const headers[] = {MHD_HTTP_HEADER_LOCATION, location, NULL};
  json_t *o = json_object();
  if (o) {
    json_object_set_new(o, "job", json_integer((json_int_t)id));
    json_object_set_new(o, "site", json_string(site_name));
    json_object_set_new(o, "existing", json_boolean(existing));
    json_object_set_new(o, "location", json_string(location));
  }
  rc = wn_respond_json(c, req, 202, o, headers);
out:
  for (size_t i = 0; i < jr.n_pages; i++) {
    free(jr.pages[i].name);
    free(jr.pages[i].bytes);
  }
  free(jr.pages);
  free(jr.url);
  json_decref(in);
  return rc;
}

/* ---- GET /v1/jobs ---------------------------------------------------------------------- */

static enum MHD_Result wn_serve_jobs_handler(wn_server *srv, struct MHD_Connection *c,
                                             wn_req *req, const char *rest) {
  wn_diag diag;
  wn_diag_clear(&diag);
  char *text = NULL;
  wn_err err;
  if (!*rest) {
    err = wn_sched_jobs_json(srv->sched, &text, &diag);
  } else {
    char *end = NULL;
    errno = 0;
    unsigned long long id = strtoull(rest, &end, 10);
    if (rest[0] < '0' || rest[0] > '9' || errno || *end)
      return wn_respond_error(c, req, 404, "not_found", NULL, "no job \"%s\"", rest);
    err = wn_sched_job_json(srv->sched, (uint64_t)id, &text, &diag);
  }
  if (err)
    return wn_respond_err(c, req, err, &diag);
  json_error_t jerr;
  json_t *o = json_loads(text, 0, &jerr);
  free(text);
  return wn_respond_json(c, req, 200, o, NULL);
}

/* ---- /v1/sites ----------------------------------------------------------------------- */

static json_t *wn_time_json(int64_t unix_s) {
  if (unix_s <= 0)
    return json_null();
  time_t t = (time_t)unix_s;
  struct tm tm;
  char text[32];
  if (!gmtime_r(&t, &tm))
    return json_null();
  strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return json_string(text);
}

/* A site as JSON: its template (or null), counts, drift and schedule.
 * NULL with *err when it has neither template nor schedule. */
static json_t *wn_site_json(wn_server *srv, const wn_serve_config *cfg, const char *site,
                            int pages, wn_err *err, wn_diag *diag) {
  wn_site_info *info = NULL;
  *err = wn_site_info_get(srv->store, site, &info, diag);
  char *sched = wn_sched_site_json(srv->sched, site);
  if (*err && (*err != WN_ENOTEMPLATE || !sched)) {
    free(sched);
    return NULL;
  }
  *err = WN_OK;
  json_t *o = json_object();
  if (!o)
    goto done;
  json_object_set_new(o, "site", json_string(site));
  json_object_set_new(o, "configured", json_boolean(wn_serve_config_site(cfg, site) != NULL));
  if (info) {
    json_t *t = json_object();
    json_object_set_new(t, "algorithm", json_string(info->algorithm));
    json_object_set_new(t, "generation", json_integer((json_int_t)info->generation));
    json_object_set_new(t, "learned_at", wn_time_json(info->learned_at));
    json_object_set_new(t, "key_page", info->key_page ? json_string(info->key_page) : json_null());
    json_object_set_new(t, "selector", json_string(wn_detect_selector_name(info->selector)));
    if (info->place) {
      /* As `winnow sites`: the place the samples agree on, and why. */
      json_object_set_new(t, "place", json_string(info->place));
      json_object_set_new(t, "place_skips", json_integer(info->place_skips));
      json_object_set_new(t, "place_asides", json_integer(info->place_asides));
    }
    json_object_set_new(t, "format_version", json_integer(info->format_version));
    json_object_set_new(t, "sample_pages", json_integer((json_int_t)info->n_pages));
    json_object_set_new(t, "template_nodes", json_integer(info->template_nodes));
    if (info->layouts > 0)
      json_object_set_new(t, "layouts", json_integer(info->layouts));
    json_object_set_new(t, "template_bytes", json_integer((json_int_t)info->template_bytes));
    if (pages) {
      json_t *arr = json_array();
      for (size_t i = 0; i < info->n_pages; i++)
        json_array_append_new(arr, json_string(info->pages[i]));
      json_object_set_new(t, "pages", arr);
    }
    json_object_set_new(o, "template", t);
    json_t *counts = json_object();
    json_object_set_new(counts, "pages", json_integer((json_int_t)info->counts.pages));
    json_object_set_new(counts, "low_confidence", json_integer((json_int_t)info->counts.low));
    json_object_set_new(counts, "recent_pages", json_integer(info->counts.recent_pages));
    json_object_set_new(counts, "recent_low", json_integer(info->counts.recent_low));
    json_object_set_new(o, "counts", counts);
    json_object_set_new(o, "drifting",
                        json_boolean(wn_site_drifting(&info->counts, &cfg->detector.drift)));
  } else {
    json_object_set_new(o, "template", json_null());
  }
  json_error_t jerr;
  json_object_set_new(o, "schedule", sched ? json_loads(sched, 0, &jerr) : json_null());
done:
  free(sched);
  wn_site_info_free(info);
  return o;
}

typedef struct wn_list_ctx {
  wn_server *srv;
  const wn_serve_config *cfg; /* the request's */
  json_t *arr;
  uint64_t n, drifting;
} wn_list_ctx;

static int wn_list_one(const char *site, void *ctx_) {
  wn_list_ctx *ctx = ctx_;
  wn_err err;
  json_t *o = wn_site_json(ctx->srv, ctx->cfg, site, 0, &err, NULL);
  if (!o) {
    /* A record that does not decode is listed with its error. */
    o = json_object();
    json_object_set_new(o, "site", json_string(site));
    json_object_set_new(o, "error", json_string(wn_strerror_name(err)));
  }
  ctx->n++;
  if (json_is_true(json_object_get(o, "drifting")))
    ctx->drifting++;
  if (ctx->arr)
    json_array_append_new(ctx->arr, o);
  else
    json_decref(o);
  return 0;
}

static enum MHD_Result wn_serve_sites_handler(wn_server *srv, struct MHD_Connection *c,
                                              wn_req *req, const char *method,
                                              const char *rest) {
  wn_diag diag;
  wn_diag_clear(&diag);
  wn_err err;
  enum MHD_Result rc;
  if (!*rest) {
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
      return wn_method_not_allowed(c, req, "GET", method);
    wn_list_ctx ctx = {srv, req->cfg, json_array(), 0, 0};
    if ((err = wn_site_list(srv->store, wn_list_one, &ctx, &diag))) {
      json_decref(ctx.arr);
      return wn_respond_err(c, req, err, &diag);
    }
    /* Configured sites the store has no template for yet. */
    const wn_serve_config *cfg = req->cfg;
    for (size_t i = 0; i < cfg->n_sites; i++) {
      wn_site_info *info = NULL;
      if (wn_site_info_get(srv->store, cfg->sites[i].site, &info, NULL) == WN_ENOTEMPLATE)
        wn_list_one(cfg->sites[i].site, &ctx);
      wn_site_info_free(info);
    }
    json_t *o = json_object();
    json_object_set_new(o, "sites", ctx.arr);
    return wn_respond_json(c, req, 200, o, NULL);
  }
  if (wn_site_check(rest, &diag) != WN_OK)
    return wn_respond_error(c, req, 404, "not_found", NULL, "\"%s\" is not a site name", rest);
  if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0) {
    json_t *o = wn_site_json(srv, req->cfg, rest, 1, &err, &diag);
    if (!o)
      return wn_respond_err(c, req, err, &diag);
    return wn_respond_json(c, req, 200, o, NULL);
  }
  if (strcmp(method, "DELETE") == 0) {
    if (!wn_authorized(c, req, &rc))
      return rc;
    if ((err = wn_site_delete(srv->store, rest, &diag)))
      return wn_respond_err(c, req, err, &diag);
    wn_serve_log(req->cfg->log_level, WN_LOG_INFO, "site %s deleted", rest);
    json_t *o = json_object();
    json_object_set_new(o, "deleted", json_string(rest));
    return wn_respond_json(c, req, 200, o, NULL);
  }
  return wn_method_not_allowed(c, req, "GET, DELETE", method);
}

/* ---- /healthz and /metrics -------------------------------------------------------------- */

static int wn_count_site(const char *site, void *ctx_) {
  wn_list_ctx *ctx = ctx_;
  wn_site_info *info = NULL;
  ctx->n++;
  if (wn_site_info_get(ctx->srv->store, site, &info, NULL) == WN_OK &&
      wn_site_drifting(&info->counts, &ctx->cfg->detector.drift))
    ctx->drifting++;
  wn_site_info_free(info);
  return 0;
}

static enum MHD_Result wn_serve_metrics_handler(wn_server *srv, struct MHD_Connection *c,
                                                wn_req *req) {
  wn_metrics_gauges g;
  memset(&g, 0, sizeof g);
  wn_list_ctx ctx = {srv, req->cfg, NULL, 0, 0};
  (void)wn_site_list(srv->store, wn_count_site, &ctx, NULL);
  g.sites = ctx.n;
  g.drifting = ctx.drifting;
  wn_sched_counts(srv->sched, &g.jobs_queued, &g.jobs_running, &g.scheduled_sites);
  char path[4200];
  struct stat st;
  snprintf(path, sizeof path, "%s/data.mdb", req->cfg->store_path);
  if (stat(path, &st) == 0)
    g.store_bytes = (uint64_t)st.st_size;
  g.map_bytes = wn_site_store_map_size(srv->store);
  if (srv->collector) {
    g.from_requests = 1;
    wn_collector_stats_get(srv->collector, &g.collect);
  }
  FILE *f = fopen("/proc/self/statm", "r");
  if (f) {
    unsigned long size = 0, resident = 0;
    if (fscanf(f, "%lu %lu", &size, &resident) == 2)
      g.rss_bytes = (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
    fclose(f);
  }
  wn_buf out;
  wn_buf_init(&out, 0);
  wn_err err = wn_metrics_render(&srv->metrics, &g, &out);
  if (err) {
    wn_buf_free(&out);
    return wn_respond_error(c, req, 503, "WN_ENOMEM", NULL, "out of memory");
  }
  size_t len = out.len;
  char *text = wn_buf_take(&out, &len);
  return wn_respond(c, req, 200, "text/plain; version=0.0.4; charset=utf-8", text, len, NULL);
}

static enum MHD_Result wn_serve_healthz_handler(wn_server *srv, struct MHD_Connection *c,
                                                wn_req *req) {
  json_t *o = json_object();
  json_object_set_new(o, "status", json_string("ok"));
  json_object_set_new(o, "version", json_string(wn_version()));
  json_object_set_new(o, "uptime_s",
                      json_real((wn_clock_ms() - srv->metrics.started_ms) / 1000.0));
  return wn_respond_json(c, req, 200, o, NULL);
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
    return wn_respond_error(c, req, 413, "too_large", NULL,
                            "the body is larger than listen.max_body (%zu bytes)",
                            req->cfg->max_body);
  if (req->too_busy) {
    static const char *const retry[] = {MHD_HTTP_HEADER_RETRY_AFTER, "1", NULL};
    return wn_respond_error(c, req, 503, "busy", retry,
                            "the server holds listen.max_buffered bytes of request bodies "
                            "already; retry");
  }
  switch (ep) {
  case WN_EP_DETECT:
    return post ? wn_serve_detect_handler(srv, c, req)
                : wn_method_not_allowed(c, req, "POST", method);
  case WN_EP_LEARN:
    if (!post)
      return wn_method_not_allowed(c, req, "POST", method);
    if (!wn_authorized(c, req, &rc))
      return rc;
    return wn_serve_learn_handler(srv, c, req);
  case WN_EP_JOBS:
    if (!get)
      return wn_method_not_allowed(c, req, "GET", method);
    if (!wn_authorized(c, req, &rc))
      return rc;
    return wn_serve_jobs_handler(srv, c, req, rest);
  case WN_EP_SITES:
    return wn_serve_sites_handler(srv, c, req, method, rest);
  case WN_EP_HEALTHZ:
    return get ? wn_serve_healthz_handler(srv, c, req)
               : wn_method_not_allowed(c, req, "GET", method);
  case WN_EP_METRICS:
    return get ? wn_serve_metrics_handler(srv, c, req)
               : wn_method_not_allowed(c, req, "GET", method);
  default:
    return wn_respond_error(c, req, 404, "not_found", NULL,
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
  if (req->counted)
    atomic_fetch_sub(&srv->inflight, 1);
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

wn_err wn_server_start(const wn_serve_config *cfg_in, wn_server **out, wn_diag *diag) {
  wn_err err = WN_OK;
  if (!cfg_in || !out)
    return wn_diag_set(diag, WN_EINVAL, "serve: start needs a config");
  *out = NULL;
  wn_server *srv = calloc(1, sizeof *srv);
  if (!srv)
    return wn_diag_set(diag, WN_ENOMEM, "serve: out of memory");
  pthread_mutex_init(&srv->mu, NULL);
  wn_metrics_init(&srv->metrics);
  wn_serve_config *cfg = wn_serve_config_copy(cfg_in);
  if (!cfg) {
    err = wn_diag_set(diag, WN_ENOMEM, "serve: out of memory");
    goto fail;
  }
  if (!cfg->store_path && !(cfg->store_path = strdup("winnow-store"))) {
    wn_serve_config_free(cfg);
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
    co.algo = cfg->algo;
    co.learn = cfg->learn;
    if ((err = wn_collector_create(srv->store, &co, &srv->collector, diag)))
      goto fail;
  }

  /* The address: numeric only (no DNS lookup for a listen address). */
  struct addrinfo hints, *ai = NULL;
  memset(&hints, 0, sizeof hints);
  hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE;
  hints.ai_socktype = SOCK_STREAM;
  char port[8];
  snprintf(port, sizeof port, "%u", (unsigned)cfg->port);
  int gai = getaddrinfo(cfg->address ? cfg->address : "127.0.0.1", port, &hints, &ai);
  if (gai != 0) {
    err = wn_diag_set(diag, WN_EINVAL, "serve: listen.address \"%s\" is not an IP address: %s",
                      cfg->address ? cfg->address : "127.0.0.1", gai_strerror(gai));
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
                      cfg->address ? cfg->address : "127.0.0.1", (unsigned)cfg->port);
    goto fail;
  }
  const union MHD_DaemonInfo *di = MHD_get_daemon_info(srv->mhd, MHD_DAEMON_INFO_BIND_PORT);
  srv->port = di ? di->port : cfg->port;
  const char *addr = cfg->address ? cfg->address : "127.0.0.1";
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
  const char *what = NULL;
  const char *cur_store = cur->store_path ? cur->store_path : "winnow-store";
  const char *next_store = next->store_path ? next->store_path : "winnow-store";
  const char *cur_addr = cur->address ? cur->address : "127.0.0.1";
  const char *next_addr = next->address ? next->address : "127.0.0.1";
  if (strcmp(cur_store, next_store) != 0 || cur->map_size != next->map_size)
    what = "store";
  else if (strcmp(cur_addr, next_addr) != 0 || (next->port != cur->port && next->port != 0))
    what = "listen.address or listen.port";
  else if (cur->workers != next->workers || cur->max_connections != next->max_connections ||
           cur->timeout_s != next->timeout_s)
    what = "listen.workers, max_connections or timeout";
  else if (cur->learners != next->learners || cur->max_jobs != next->max_jobs)
    what = "learning.learners or max_jobs";
  else if (cur->from_requests != next->from_requests ||
           cur->from_requests_sites != next->from_requests_sites ||
           cur->from_requests_bytes != next->from_requests_bytes)
    what = "learning.from_requests, from_requests_sites or from_requests_memory";
  if (what) {
    err = wn_diag_set(&local, WN_EINVAL, "serve: %s changed; that needs a restart", what);
    goto out;
  }
  copy = wn_serve_config_copy(next);
  if (!copy || (!copy->store_path && !(copy->store_path = strdup(cur_store)))) {
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
  atomic_store(&srv->stopping, 1);
  if (srv->mhd) {
    /* Stop accepting, let the requests in flight finish, then close. */
    MHD_quiesce_daemon(srv->mhd);
    for (int waited = 0; atomic_load(&srv->inflight) > 0 && waited < WN_SERVE_STOP_GRACE_MS;
         waited += 10) {
      struct timespec ts = {0, 10 * 1000 * 1000};
      nanosleep(&ts, NULL);
    }
    MHD_stop_daemon(srv->mhd);
    srv->mhd = NULL;
  }
  wn_sched_destroy(srv->sched);
  wn_collector_destroy(srv->collector);
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
  free(srv);
}
