/*
 * serve/metrics.c: what the daemon counts, in the Prometheus text
 * exposition format (version 0.0.4).
 *
 * Every counter is a relaxed atomic, bumped on the request's own thread:
 * no lock on the hot path. Histograms keep one count per bucket (not yet
 * cumulative); the cumulative "le" series are summed when rendered.
 */
#include "serve/serve.h"

#include <string.h>

static const char *const wn_endpoint_names[WN_EP_COUNT] = {
    "detect", "learn", "jobs", "sites", "healthz", "metrics", "other"};

/* The status codes the API answers with; anything else counts as "other". */
static const unsigned wn_codes[WN_METRIC_CODES - 1] = {200, 202, 400, 401, 403, 404,
                                                        405, 413, 415, 422, 500, 503};

/* Request latency buckets, seconds: detection of a page takes about a
 * millisecond, so the fine end matters most. */
static const double wn_latency_bounds[WN_METRIC_BUCKETS] = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};

/* Learn duration buckets, seconds: a crawl waits on the network and on
 * politeness delays. */
static const double wn_learn_bounds[WN_METRIC_LEARN_BUCKETS] = {0.1, 0.5, 1,  2.5, 5,
                                                                 10,  30,  60, 120, 300};

/* The methods wn_page_result_method names, then "other". */
#define WN_METHOD_OTHER 6u
static const char *const wn_methods[WN_METRIC_METHODS] = {
    "template", "template-paper", "template-region", "danag", "cnr", "readability", "other", NULL};

void wn_metrics_init(wn_metrics *m) {
  memset(m, 0, sizeof *m);
  m->started_ms = wn_clock_ms();
}

void wn_metrics_request(wn_metrics *m, wn_endpoint ep, unsigned status, uint64_t us) {
  if ((unsigned)ep >= WN_EP_COUNT)
    ep = WN_EP_OTHER;
  size_t code = WN_METRIC_CODES - 1;
  for (size_t i = 0; i < WN_METRIC_CODES - 1; i++)
    if (wn_codes[i] == status)
      code = i;
  atomic_fetch_add_explicit(&m->requests[ep][code], 1, memory_order_relaxed);
  wn_histogram *h = &m->latency[ep];
  size_t b = WN_METRIC_BUCKETS;
  for (size_t i = 0; i < WN_METRIC_BUCKETS; i++) {
    if ((double)us <= wn_latency_bounds[i] * 1e6) {
      b = i;
      break;
    }
  }
  atomic_fetch_add_explicit(&h->bucket[b], 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&h->count, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&h->sum_us, us, memory_order_relaxed);
}

void wn_metrics_detection(wn_metrics *m, const char *method, int fallback) {
  size_t i = WN_METHOD_OTHER;
  for (size_t k = 0; k < WN_METHOD_OTHER; k++)
    if (method && strcmp(method, wn_methods[k]) == 0)
      i = k;
  atomic_fetch_add_explicit(&m->detections[i], 1, memory_order_relaxed);
  if (fallback > 0 && fallback < 32)
    atomic_fetch_add_explicit(&m->fallbacks[fallback], 1, memory_order_relaxed);
}

void wn_metrics_learn(wn_metrics *m, int ok, uint64_t ms) {
  atomic_fetch_add_explicit(ok ? &m->learn_ok : &m->learn_failed, 1, memory_order_relaxed);
  size_t b = WN_METRIC_LEARN_BUCKETS;
  for (size_t i = 0; i < WN_METRIC_LEARN_BUCKETS; i++) {
    if ((double)ms <= wn_learn_bounds[i] * 1000.0) {
      b = i;
      break;
    }
  }
  atomic_fetch_add_explicit(&m->learn_bucket[b], 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&m->learn_sum_ms, ms, memory_order_relaxed);
}

static uint64_t wn_load(const _Atomic uint64_t *v) {
  return atomic_load_explicit(v, memory_order_relaxed);
}

wn_err wn_metrics_render(const wn_metrics *m, const wn_metrics_gauges *g, wn_buf *out) {
  wn_err err = WN_OK;
#define P(...)                                                                                    \
  do {                                                                                            \
    if ((err = wn_buf_printf(out, __VA_ARGS__)))                                                  \
      return err;                                                                                 \
  } while (0)

  P("# HELP winnow_build_info The running winnow's version.\n"
    "# TYPE winnow_build_info gauge\nwinnow_build_info{version=\"%s\"} 1\n",
    wn_version());
  P("# HELP winnow_uptime_seconds Seconds since the daemon started.\n"
    "# TYPE winnow_uptime_seconds gauge\nwinnow_uptime_seconds %.3f\n",
    (wn_clock_ms() - m->started_ms) / 1000.0);

  P("# HELP winnow_http_requests_total HTTP requests answered, by endpoint and status code.\n"
    "# TYPE winnow_http_requests_total counter\n");
  for (size_t ep = 0; ep < WN_EP_COUNT; ep++) {
    for (size_t c = 0; c < WN_METRIC_CODES; c++) {
      uint64_t n = wn_load(&m->requests[ep][c]);
      if (!n)
        continue;
      if (c < WN_METRIC_CODES - 1)
        P("winnow_http_requests_total{endpoint=\"%s\",code=\"%u\"} %llu\n", wn_endpoint_names[ep],
          wn_codes[c], (unsigned long long)n);
      else
        P("winnow_http_requests_total{endpoint=\"%s\",code=\"other\"} %llu\n",
          wn_endpoint_names[ep], (unsigned long long)n);
    }
  }

  P("# HELP winnow_http_request_duration_seconds Time to answer a request, by endpoint.\n"
    "# TYPE winnow_http_request_duration_seconds histogram\n");
  for (size_t ep = 0; ep < WN_EP_COUNT; ep++) {
    const wn_histogram *h = &m->latency[ep];
    uint64_t count = wn_load(&h->count);
    if (!count && ep != WN_EP_DETECT)
      continue;
    uint64_t cum = 0;
    for (size_t b = 0; b < WN_METRIC_BUCKETS; b++) {
      cum += wn_load(&h->bucket[b]);
      P("winnow_http_request_duration_seconds_bucket{endpoint=\"%s\",le=\"%g\"} %llu\n",
        wn_endpoint_names[ep], wn_latency_bounds[b], (unsigned long long)cum);
    }
    cum += wn_load(&h->bucket[WN_METRIC_BUCKETS]);
    P("winnow_http_request_duration_seconds_bucket{endpoint=\"%s\",le=\"+Inf\"} %llu\n",
      wn_endpoint_names[ep], (unsigned long long)cum);
    P("winnow_http_request_duration_seconds_sum{endpoint=\"%s\"} %.6f\n",
      wn_endpoint_names[ep], (double)wn_load(&h->sum_us) / 1e6);
    P("winnow_http_request_duration_seconds_count{endpoint=\"%s\"} %llu\n",
      wn_endpoint_names[ep], (unsigned long long)count);
  }

  P("# HELP winnow_detections_total Pages detected, by the method that served them.\n"
    "# TYPE winnow_detections_total counter\n");
  for (size_t i = 0; i <= WN_METHOD_OTHER; i++)
    P("winnow_detections_total{method=\"%s\"} %llu\n", wn_methods[i],
      (unsigned long long)wn_load(&m->detections[i]));
  P("# HELP winnow_detection_fallbacks_total Pages the template did not serve, by reason.\n"
    "# TYPE winnow_detection_fallbacks_total counter\n");
  for (int r = WN_FALLBACK_NO_TEMPLATE; r <= WN_FALLBACK_LOW_CONFIDENCE; r++)
    P("winnow_detection_fallbacks_total{reason=\"%s\"} %llu\n",
      wn_detect_fallback_name((wn_detect_fallback)r),
      (unsigned long long)wn_load(&m->fallbacks[r]));
  P("# HELP winnow_detection_errors_total Pages that could not be detected (not HTML, past a "
    "cap, ...).\n# TYPE winnow_detection_errors_total counter\nwinnow_detection_errors_total "
    "%llu\n",
    (unsigned long long)wn_load(&m->detect_errors));

  P("# HELP winnow_learn_runs_total Learning runs finished, by result.\n"
    "# TYPE winnow_learn_runs_total counter\n"
    "winnow_learn_runs_total{result=\"success\"} %llu\n"
    "winnow_learn_runs_total{result=\"failure\"} %llu\n",
    (unsigned long long)wn_load(&m->learn_ok), (unsigned long long)wn_load(&m->learn_failed));
  P("# HELP winnow_learn_triggers_total Learning runs started by the scheduler, by trigger.\n"
    "# TYPE winnow_learn_triggers_total counter\n"
    "winnow_learn_triggers_total{trigger=\"interval\"} %llu\n"
    "winnow_learn_triggers_total{trigger=\"drift\"} %llu\n",
    (unsigned long long)wn_load(&m->learn_scheduled),
    (unsigned long long)wn_load(&m->learn_drift));
  P("# HELP winnow_learn_duration_seconds Time a learning run took (crawl included).\n"
    "# TYPE winnow_learn_duration_seconds histogram\n");
  uint64_t cum = 0;
  for (size_t b = 0; b < WN_METRIC_LEARN_BUCKETS; b++) {
    cum += wn_load(&m->learn_bucket[b]);
    P("winnow_learn_duration_seconds_bucket{le=\"%g\"} %llu\n", wn_learn_bounds[b],
      (unsigned long long)cum);
  }
  cum += wn_load(&m->learn_bucket[WN_METRIC_LEARN_BUCKETS]);
  P("winnow_learn_duration_seconds_bucket{le=\"+Inf\"} %llu\n", (unsigned long long)cum);
  P("winnow_learn_duration_seconds_sum %.3f\nwinnow_learn_duration_seconds_count %llu\n",
    (double)wn_load(&m->learn_sum_ms) / 1000.0, (unsigned long long)cum);
  P("# HELP winnow_drift_events_total Drift reports from the detectors.\n"
    "# TYPE winnow_drift_events_total counter\nwinnow_drift_events_total %llu\n",
    (unsigned long long)wn_load(&m->drift_events));
  P("# HELP winnow_config_reloads_total Configuration reloads (SIGHUP), by result.\n"
    "# TYPE winnow_config_reloads_total counter\n"
    "winnow_config_reloads_total{result=\"success\"} %llu\n"
    "winnow_config_reloads_total{result=\"failure\"} %llu\n",
    (unsigned long long)wn_load(&m->reloads), (unsigned long long)wn_load(&m->reload_failures));

  if (g) {
    P("# HELP winnow_sites Sites with a template in the store.\n"
      "# TYPE winnow_sites gauge\nwinnow_sites %llu\n",
      (unsigned long long)g->sites);
    P("# HELP winnow_drifting_sites Sites whose recent pages fit their template badly.\n"
      "# TYPE winnow_drifting_sites gauge\nwinnow_drifting_sites %llu\n",
      (unsigned long long)g->drifting);
    P("# HELP winnow_scheduled_sites Sites the configuration keeps learned.\n"
      "# TYPE winnow_scheduled_sites gauge\nwinnow_scheduled_sites %llu\n",
      (unsigned long long)g->scheduled_sites);
    P("# HELP winnow_learn_jobs Learning jobs, by state.\n"
      "# TYPE winnow_learn_jobs gauge\nwinnow_learn_jobs{state=\"queued\"} %llu\n"
      "winnow_learn_jobs{state=\"running\"} %llu\n",
      (unsigned long long)g->jobs_queued, (unsigned long long)g->jobs_running);
    P("# HELP winnow_store_bytes Size of the store's data file.\n"
      "# TYPE winnow_store_bytes gauge\nwinnow_store_bytes %llu\n",
      (unsigned long long)g->store_bytes);
    P("# HELP winnow_store_map_bytes The store's map size (the most it may grow to).\n"
      "# TYPE winnow_store_map_bytes gauge\nwinnow_store_map_bytes %llu\n",
      (unsigned long long)g->map_bytes);
    if (g->from_requests) {
      const wn_collect_stats *k = &g->collect;
      P("# HELP winnow_requests_learning_held Pages, bytes and sites held to learn sites from "
        "their requests.\n"
        "# TYPE winnow_requests_learning_held gauge\n"
        "winnow_requests_learning_held{what=\"pages\"} %llu\n"
        "winnow_requests_learning_held{what=\"bytes\"} %llu\n"
        "winnow_requests_learning_held{what=\"sites\"} %llu\n",
        (unsigned long long)k->pages_held, (unsigned long long)k->bytes_held,
        (unsigned long long)k->sites_held);
      P("# HELP winnow_requests_learning_total Sites learned from requests, by outcome; pages "
        "dropped for the bounds.\n"
        "# TYPE winnow_requests_learning_total counter\n"
        "winnow_requests_learning_total{outcome=\"learned\"} %llu\n"
        "winnow_requests_learning_total{outcome=\"failed\"} %llu\n"
        "winnow_requests_learning_total{outcome=\"given_up\"} %llu\n"
        "winnow_requests_learning_total{outcome=\"pages_evicted\"} %llu\n",
        (unsigned long long)k->sites_learned, (unsigned long long)k->learn_failures,
        (unsigned long long)k->sites_given_up, (unsigned long long)k->pages_evicted);
    }
    P("# HELP process_resident_memory_bytes Resident memory of the daemon.\n"
      "# TYPE process_resident_memory_bytes gauge\nprocess_resident_memory_bytes %llu\n",
      (unsigned long long)g->rss_bytes);
  }
#undef P
  return err;
}
