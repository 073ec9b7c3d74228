/*
 * serve/handlers.c: the HTTP API's endpoints (routed by server.c):
 *
 *   POST   /v1/detect          a page in, its main content out (the hot path)
 *   POST   /v1/learn           learn a site in the background: 202 + a job
 *   GET    /v1/jobs[/{id}]     learning jobs
 *   GET    /v1/sites[/{site}]  templates, counts, drift and schedule
 *   DELETE /v1/sites/{site}    forget a site's template
 *   GET    /healthz, /metrics  liveness; Prometheus text format
 *
 * and learning from the detection requests (learning.from_requests).
 */
#include "serve/serve.h"
#include "serve/server_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>

#include "site/schedule.h"

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
    if (!wn_page_result_counts_get(result, &counts, &drifting) || !drifting)
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
  wn_err added = wn_collector_add(srv->collector, &in, page->url, flags, &state, &diag);
  if (added)
    wn_serve_log(cfg->log_level, WN_LOG_ERROR, "hold a page of %s to learn from: %s", site,
                 wn_diag_message(&diag, added));
  if (state != WN_COLLECT_READY)
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

enum MHD_Result wn_serve_detect_handler(wn_server *srv, struct MHD_Connection *c,
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
      rc = wn_serve_respond_error(c, req, 400, "bad_json", NULL,
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
      rc = wn_serve_respond_error(c, req, 415, "unsupported_media_type", NULL,
                                  "%s; send the page as the body (curl --data-binary @page.html) "
                                  "or JSON {\"url\", \"html\"} with Content-Type: "
                                  "application/json",
                                  why);
      goto out;
    }
  }
  if (!in && wn_is_multipart_type(type)) {
    rc = wn_serve_respond_error(c, req, 415, "unsupported_media_type", NULL,
                                "a multipart form is not a page; send the HTML as the body "
                                "(curl --data-binary @page.html), or JSON {\"url\", \"html\"}");
    goto out;
  }
  if (in) {
    json_t *html = json_object_get(in, "html");
    if (!json_is_string(html)) {
      rc = wn_serve_respond_error(c, req, 400, "bad_request", NULL,
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
        rc = wn_serve_respond_error(c, req, 400, "bad_request", NULL, "\"%s\" must be a string",
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
    rc = wn_serve_respond_error(c, req, 400, "bad_request", NULL,
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
    rc = wn_serve_respond_error(c, req, 400, "bad_request", NULL,
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
  wn_err err = wn_serve_thread_detector(srv, req->cfg, &det, &diag);
  if (!err)
    err = wn_detector_detect(det, &page, want, &result, &diag);
  if (err) {
    if (wn_serve_status_of(err) != 400)
      atomic_fetch_add_explicit(&srv->metrics.detect_errors, 1, memory_order_relaxed);
    rc = wn_serve_respond_err(c, req, err, &diag);
    goto out;
  }
  wn_metrics_detection(&srv->metrics, wn_page_result_method(result),
                       (int)wn_page_result_fallback(result));
  if (srv->collector)
    wn_learn_from_request(srv, req->cfg, &page, result);
  if (f == F_JSON) {
    char *text = NULL;
    if ((err = wn_page_result_json(result, NULL, 0, &text, &diag))) {
      rc = wn_serve_respond_err(c, req, err, &diag);
      goto out;
    }
    size_t len = strlen(text);
    char *withnl = realloc(text, len + 2);
    if (withnl) {
      withnl[len++] = '\n';
      withnl[len] = '\0';
      text = withnl;
    }
    rc = wn_serve_respond(c, req, 200, "application/json", text, len, NULL);
    goto out;
  }
  size_t len = 0;
  const char *content = f == F_TEXT   ? wn_page_result_text(result, &len)
                        : f == F_HTML ? wn_page_result_html(result, &len)
                                      : wn_page_result_markdown(result, &len);
  char *copy = malloc(len + 1);
  if (!copy) {
    rc = wn_serve_respond_error(c, req, 503, "WN_ENOMEM", NULL, "out of memory");
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
  rc = wn_serve_respond(c, req, 200,
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

enum MHD_Result wn_serve_learn_handler(wn_server *srv, struct MHD_Connection *c,
                                       wn_req *req) {
  enum MHD_Result rc;
  json_error_t jerr;
  wn_job_request jr;
  memset(&jr, 0, sizeof jr);
  const wn_serve_config *cfg = req->cfg;
  json_t *in = json_loadb(req->body.data ? req->body.data : "", req->body.len, 0, &jerr);
  if (!in || !json_is_object(in)) {
    rc = wn_serve_respond_error(c, req, 400, "bad_json", NULL,
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
    rc = wn_serve_respond_error(c, req, 400, "bad_request", NULL,
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
    rc = wn_serve_respond_error(c, req, 400, "bad_request", NULL, "%s",
                                wn_diag_message(&diag, err));
    goto out;
  }
  const wn_serve_site *conf = wn_serve_config_site(cfg, jr.site);
  if (!conf && !cfg->allow_any_site) {
    rc = wn_serve_respond_error(c, req, 403, "forbidden", NULL,
                                "site %s is not configured (add it under sites:, or set "
                                "listen.allow_any_site)",
                                jr.site);
    goto out;
  }
  jr.learn = conf ? conf->learn : cfg->learn;
  if (url) {
    if (!(jr.url = strdup(json_string_value(url)))) {
      rc = wn_serve_respond_error(c, req, 503, "WN_ENOMEM", NULL, "out of memory");
      goto out;
    }
  } else {
    size_t n = json_array_size(pages);
    if (n < 2 || n > WN_LEARN_MAX_PAGES) {
      rc = wn_serve_respond_error(c, req, 400, "bad_request", NULL,
                                  "\"pages\" needs 2 to %u pages (the key page first)",
                                  WN_LEARN_MAX_PAGES);
      goto out;
    }
    if (!(jr.pages = calloc(n, sizeof *jr.pages))) {
      rc = wn_serve_respond_error(c, req, 503, "WN_ENOMEM", NULL, "out of memory");
      goto out;
    }
    for (size_t i = 0; i < n; i++) {
      json_t *p = json_array_get(pages, i);
      json_t *name = json_object_get(p, "url");
      if (!name)
        name = json_object_get(p, "name");
      json_t *html = json_object_get(p, "html");
      if (!json_is_object(p) || !json_is_string(name) || !json_is_string(html)) {
        rc = wn_serve_respond_error(c, req, 400, "bad_request", NULL,
                                    "pages[%zu] must be {\"url\": ..., \"html\": ...}", i);
        goto out;
      }
      size_t len = json_string_length(html);
      jr.pages[i].name = strdup(json_string_value(name));
      jr.pages[i].bytes = malloc(len + 1);
      jr.n_pages = i + 1;
      if (!jr.pages[i].name || !jr.pages[i].bytes) {
        rc = wn_serve_respond_error(c, req, 503, "WN_ENOMEM", NULL, "out of memory");
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
    rc = wn_serve_respond_err(c, req, err, &diag);
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
  rc = wn_serve_respond_json(c, req, 202, o, headers);
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

enum MHD_Result wn_serve_jobs_handler(wn_server *srv, struct MHD_Connection *c,
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
      return wn_serve_respond_error(c, req, 404, "not_found", NULL, "no job \"%s\"", rest);
    err = wn_sched_job_json(srv->sched, (uint64_t)id, &text, &diag);
  }
  if (err)
    return wn_serve_respond_err(c, req, err, &diag);
  json_error_t jerr;
  json_t *o = json_loads(text, 0, &jerr);
  free(text);
  return wn_serve_respond_json(c, req, 200, o, NULL);
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

enum MHD_Result wn_serve_sites_handler(wn_server *srv, struct MHD_Connection *c,
                                       wn_req *req, const char *method,
                                       const char *rest) {
  wn_diag diag;
  wn_diag_clear(&diag);
  wn_err err;
  enum MHD_Result rc;
  if (!*rest) {
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
      return wn_serve_method_not_allowed(c, req, "GET", method);
    wn_list_ctx ctx = {srv, req->cfg, json_array(), 0, 0};
    if ((err = wn_site_each(srv->store, wn_list_one, &ctx, &diag))) {
      json_decref(ctx.arr);
      return wn_serve_respond_err(c, req, err, &diag);
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
    return wn_serve_respond_json(c, req, 200, o, NULL);
  }
  if (wn_site_check(rest, &diag) != WN_OK)
    return wn_serve_respond_error(c, req, 404, "not_found", NULL, "\"%s\" is not a site name",
                                  rest);
  if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0) {
    json_t *o = wn_site_json(srv, req->cfg, rest, 1, &err, &diag);
    if (!o)
      return wn_serve_respond_err(c, req, err, &diag);
    return wn_serve_respond_json(c, req, 200, o, NULL);
  }
  if (strcmp(method, "DELETE") == 0) {
    if (!wn_serve_authorized(c, req, &rc))
      return rc;
    if ((err = wn_site_delete(srv->store, rest, &diag)))
      return wn_serve_respond_err(c, req, err, &diag);
    wn_serve_log(req->cfg->log_level, WN_LOG_INFO, "site %s deleted", rest);
    json_t *o = json_object();
    json_object_set_new(o, "deleted", json_string(rest));
    return wn_serve_respond_json(c, req, 200, o, NULL);
  }
  return wn_serve_method_not_allowed(c, req, "GET, DELETE", method);
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

enum MHD_Result wn_serve_metrics_handler(wn_server *srv, struct MHD_Connection *c,
                                         wn_req *req) {
  wn_metrics_gauges g;
  memset(&g, 0, sizeof g);
  wn_list_ctx ctx = {srv, req->cfg, NULL, 0, 0};
  (void)wn_site_each(srv->store, wn_count_site, &ctx, NULL);
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
    return wn_serve_respond_error(c, req, 503, "WN_ENOMEM", NULL, "out of memory");
  }
  size_t len = out.len;
  char *text = wn_buf_take(&out, &len);
  return wn_serve_respond(c, req, 200, "text/plain; version=0.0.4; charset=utf-8", text, len, NULL);
}

enum MHD_Result wn_serve_healthz_handler(wn_server *srv, struct MHD_Connection *c,
                                         wn_req *req) {
  json_t *o = json_object();
  json_object_set_new(o, "status", json_string("ok"));
  json_object_set_new(o, "version", json_string(wn_version()));
  json_object_set_new(o, "uptime_s",
                      json_real((wn_clock_ms() - srv->metrics.started_ms) / 1000.0));
  return wn_serve_respond_json(c, req, 200, o, NULL);
}
