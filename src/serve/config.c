/*
 * serve/config.c: the daemon's configuration, from YAML (libyaml's document
 * API) or from its defaults, with overrides from the command line.
 *
 * Every value is parsed by the same function whether it comes from the
 * file or from a flag ("listen.port" = "9000"), so both accept the same
 * forms and give the same messages. A message names the file, the line
 * and the key: "winnow.yaml:12: listen.port: 70000 is not a port (0 to
 * 65535)". Unknown keys are errors, not ignored: a misspelt key silently
 * left at its default is the mistake an operator finds last.
 *
 * Per-site overrides are kept as written and merged over the learning
 * defaults at the end (wn_config_finish), so the order of the sections in
 * the file does not matter and a flag that changes a default reaches every
 * site that does not override it.
 */
#include "serve/serve.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <yaml.h>

#define WN_SITE_MAX_OVERRIDES 16u

/* What a site entry said, kept raw until the defaults are known. */
typedef struct wn_site_raw {
  char *key[WN_SITE_MAX_OVERRIDES];
  char *value[WN_SITE_MAX_OVERRIDES];
  unsigned line[WN_SITE_MAX_OVERRIDES];
  size_t n;
} wn_site_raw;

/* Where a value came from, for messages. */
typedef struct wn_loc {
  const char *file; /* NULL: the command line */
  unsigned line;    /* 1-based; 0: none */
} wn_loc;

__attribute__((format(printf, 4, 5))) static wn_err wn_cfg_error(wn_diag *diag, const wn_loc *loc,
                                                                 const char *key,
                                                                 const char *fmt, ...) {
  char msg[384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (loc && loc->file)
    return wn_diag_set(diag, WN_EINVAL, "%s:%u: %s: %s", loc->file, loc->line, key, msg);
  return wn_diag_set(diag, WN_EINVAL, "%s: %s", key, msg);
}

/* ---- values -------------------------------------------------------------------- */

static int wn_parse_bool(const char *s, int *out) {
  static const char *const yes[] = {"true", "yes", "on", "1"};
  static const char *const no[] = {"false", "no", "off", "0"};
  for (size_t i = 0; i < 4; i++) {
    if (strcasecmp(s, yes[i]) == 0) {
      *out = 1;
      return 0;
    }
    if (strcasecmp(s, no[i]) == 0) {
      *out = 0;
      return 0;
    }
  }
  return -1;
}

/* A non-negative decimal number with an optional fraction, then a unit
 * from units (matched case-insensitively); bare numbers take mult_none. */
typedef struct wn_unit {
  const char *name;
  double mult;
} wn_unit;

static int wn_parse_scaled(const char *s, const wn_unit *units, double mult_none, double *out) {
  if (!s || !wn_ascii_digit(s[0]))
    return -1;
  errno = 0;
  char *end = NULL;
  double v = strtod(s, &end);
  if (errno || end == s || !isfinite(v) || v < 0)
    return -1;
  while (*end == ' ')
    end++;
  if (*end == '\0') {
    *out = v * mult_none;
    return 0;
  }
  for (size_t i = 0; units[i].name; i++) {
    if (strcasecmp(end, units[i].name) == 0) {
      *out = v * units[i].mult;
      return 0;
    }
  }
  return -1;
}

static const wn_unit wn_duration_units[] = {
    {"ms", 1.0}, {"s", 1000.0}, {"m", 60000.0}, {"min", 60000.0}, {"h", 3600000.0},
    {"d", 86400000.0}, {NULL, 0}};
static const wn_unit wn_size_units[] = {
    {"b", 1.0},          {"k", 1024.0},          {"kb", 1024.0},         {"kib", 1024.0},
    {"m", 1048576.0},    {"mb", 1048576.0},      {"mib", 1048576.0},     {"g", 1073741824.0},
    {"gb", 1073741824.0}, {"gib", 1073741824.0}, {NULL, 0}};

/* Durations: "500ms", "30s", "15m", "12h", "7d"; a bare number is seconds. */
static wn_err wn_get_duration(const char *v, double min_ms, double max_ms, int64_t *out,
                              const wn_loc *loc, const char *key, wn_diag *diag) {
  double ms = 0;
  if (wn_parse_scaled(v, wn_duration_units, 1000.0, &ms) != 0)
    return wn_cfg_error(diag, loc, key,
                        "\"%s\" is not a duration (a number with ms, s, m, h or d; bare: seconds)",
                        v);
  if (ms < min_ms || ms > max_ms)
    return wn_cfg_error(diag, loc, key, "%s is out of range (%.0f ms to %.0f ms)", v, min_ms,
                        max_ms);
  *out = (int64_t)ms;
  return WN_OK;
}

/* Sizes: "512KiB", "16MiB", "1GiB" (K, KB, KiB all mean 1024); bare: bytes. */
static wn_err wn_get_size(const char *v, double min, double max, size_t *out, const wn_loc *loc,
                          const char *key, wn_diag *diag) {
  double bytes = 0;
  if (wn_parse_scaled(v, wn_size_units, 1.0, &bytes) != 0)
    return wn_cfg_error(diag, loc, key,
                        "\"%s\" is not a size (a number with KiB, MiB or GiB; bare: bytes)", v);
  if (bytes < min || bytes > max)
    return wn_cfg_error(diag, loc, key, "%s is out of range (%.0f to %.0f bytes)", v, min, max);
  *out = (size_t)bytes;
  return WN_OK;
}

static wn_err wn_get_u32(const char *v, uint32_t min, uint32_t max, uint32_t *out,
                         const wn_loc *loc, const char *key, wn_diag *diag) {
  if (wn_parse_u32(v, min, max, out) != 0)
    return wn_cfg_error(diag, loc, key, "\"%s\" is not a whole number from %u to %u", v,
                        (unsigned)min, (unsigned)max);
  return WN_OK;
}

/* A share: "0.25" or "25%", from 0 to max. */
static wn_err wn_get_share(const char *v, double max, double *out, const wn_loc *loc,
                           const char *key, wn_diag *diag) {
  static const wn_unit pct[] = {{"%", 0.01}, {NULL, 0}};
  double x = 0;
  if (wn_parse_scaled(v, pct, 1.0, &x) != 0 || x > max)
    return wn_cfg_error(diag, loc, key, "\"%s\" is not a share from 0 to %g (or a percentage)",
                        v, max);
  *out = x;
  return WN_OK;
}

static wn_err wn_get_bool(const char *v, int *out, const wn_loc *loc, const char *key,
                          wn_diag *diag) {
  if (wn_parse_bool(v, out) != 0)
    return wn_cfg_error(diag, loc, key, "\"%s\" is not true or false", v);
  return WN_OK;
}

static wn_err wn_get_string(const char *v, size_t max, char **out, const wn_loc *loc,
                            const char *key, wn_diag *diag) {
  size_t len = strlen(v);
  if (len > max)
    return wn_cfg_error(diag, loc, key, "is longer than %zu bytes", max);
  for (size_t i = 0; i < len; i++)
    if ((unsigned char)v[i] < 0x20)
      return wn_cfg_error(diag, loc, key, "contains a control character");
  char *copy = strdup(v);
  if (!copy)
    return wn_diag_set(diag, WN_ENOMEM, "config: out of memory");
  free(*out);
  *out = copy;
  return WN_OK;
}

/* Reads a secret from a file (first line, at most WN_SERVE_MAX_TOKEN
 * bytes), so the token need not sit in a world-readable config. */
static wn_err wn_get_token_file(const char *path, char **out, const wn_loc *loc, const char *key,
                                wn_diag *diag) {
  char *bytes = NULL;
  size_t len = 0;
  wn_diag inner;
  wn_diag_clear(&inner);
  wn_err err = wn_file_read(path, WN_SERVE_MAX_TOKEN + 2, &bytes, &len, &inner);
  if (err)
    return wn_cfg_error(diag, loc, key, "%s", wn_diag_message(&inner, err));
  while (len > 0 && (bytes[len - 1] == '\n' || bytes[len - 1] == '\r'))
    bytes[--len] = '\0';
  if (len == 0 || strchr(bytes, '\n') || strlen(bytes) != len) {
    free(bytes);
    return wn_cfg_error(diag, loc, key, "%s does not hold a one-line token", path);
  }
  err = wn_get_string(bytes, WN_SERVE_MAX_TOKEN, out, loc, key, diag);
  free(bytes);
  return err;
}

/* ---- keys ------------------------------------------------------------------------- */

/* The learning keys, shared by "learning" and the site entries. */
static wn_err wn_set_learn_key(wn_learn_options *learn, wn_learn_algo *algo, const char *name,
                               const char *v, const wn_loc *loc, const char *key, int *known,
                               wn_diag *diag) {
  *known = 1;
  if (strcmp(name, "n") == 0)
    return wn_get_u32(v, 1, WN_LEARN_MAX_PAGES - 1, &learn->n, loc, key, diag);
  if (strcmp(name, "max_fetches") == 0)
    return wn_get_u32(v, 1, 1000, &learn->max_fetches, loc, key, diag);
  if (strcmp(name, "min_count") == 0)
    return wn_get_u32(v, 1, WN_LEARN_MAX_PAGES, &learn->min_count, loc, key, diag);
  if (strcmp(name, "min_share") == 0) {
    wn_err err = wn_get_share(v, 1.0, &learn->min_share, loc, key, diag);
    if (!err && learn->min_share <= 0)
      return wn_cfg_error(diag, loc, key, "must be above 0");
    return err;
  }
  if (strcmp(name, "by_domain") == 0)
    return wn_get_bool(v, &learn->by_domain, loc, key, diag);
  if (strcmp(name, "selector") == 0) {
    if (wn_detect_selector_parse(v, &learn->selector) != 0)
      return wn_cfg_error(diag, loc, key, "\"%s\" is not a selector (cues, places, paper, region)", v);
    return WN_OK;
  }
  if (strcmp(name, "algorithm") == 0) {
    if (wn_learn_algo_parse(v, algo) != 0)
      return wn_cfg_error(diag, loc, key, "\"%s\" is not a learning algorithm (etdm, fastce)",
                          v);
    return WN_OK;
  }
  *known = 0;
  return WN_OK;
}

static const char wn_sections[] =
    "store, listen, crawler, learning, refresh, detection, log, sites";

static int wn_section_known(const char *name) {
  static const char *const known[] = {"store",     "listen", "crawler", "learning",
                                      "refresh",   "detection", "log", "sites"};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (strcmp(known[i], name) == 0)
      return 1;
  return 0;
}

static wn_err wn_set_key(wn_serve_config *cfg, const char *section, const char *name,
                         const char *v, const wn_loc *loc, wn_diag *diag) {
  char key[160];
  snprintf(key, sizeof key, "%s.%s", section, name);
  int64_t ms = 0;
  uint32_t u = 0;
  wn_err err = WN_OK;
  int known = 0;

  if (strcmp(section, "store") == 0) {
    if (strcmp(name, "path") == 0) {
      if (!*v)
        return wn_cfg_error(diag, loc, key, "must not be empty");
      return wn_get_string(v, 4096, &cfg->store_path, loc, key, diag);
    }
    if (strcmp(name, "map_size") == 0)
      return wn_get_size(v, 1048576.0, 1099511627776.0, &cfg->map_size, loc, key, diag);
  } else if (strcmp(section, "listen") == 0) {
    if (strcmp(name, "address") == 0)
      return wn_get_string(v, 255, &cfg->address, loc, key, diag);
    if (strcmp(name, "port") == 0) {
      if ((err = wn_get_u32(v, 0, 65535, &u, loc, key, diag)))
        return err;
      cfg->port = (uint16_t)u;
      return WN_OK;
    }
    if (strcmp(name, "workers") == 0)
      return wn_get_u32(v, 0, WN_SERVE_MAX_WORKERS, &cfg->workers, loc, key, diag);
    if (strcmp(name, "max_connections") == 0)
      return wn_get_u32(v, 1, 100000, &cfg->max_connections, loc, key, diag);
    if (strcmp(name, "timeout") == 0) {
      if ((err = wn_get_duration(v, 1000, 3600000, &ms, loc, key, diag)))
        return err;
      cfg->timeout_s = (uint32_t)(ms / 1000);
      return WN_OK;
    }
    if (strcmp(name, "max_body") == 0)
      return wn_get_size(v, 1024.0, (double)WN_PAGE_MAX_BYTES * 4, &cfg->max_body, loc, key,
                         diag);
    if (strcmp(name, "max_buffered") == 0)
      return wn_get_size(v, 1048576.0, 1099511627776.0, &cfg->max_buffered, loc, key, diag);
    if (strcmp(name, "token") == 0) {
      if ((err = wn_get_string(v, WN_SERVE_MAX_TOKEN, &cfg->token, loc, key, diag)))
        return err;
      if (!*cfg->token) {
        free(cfg->token);
        cfg->token = NULL;
      }
      return WN_OK;
    }
    if (strcmp(name, "token_file") == 0)
      return wn_get_token_file(v, &cfg->token, loc, key, diag);
    if (strcmp(name, "allow_any_site") == 0)
      return wn_get_bool(v, &cfg->allow_any_site, loc, key, diag);
  } else if (strcmp(section, "crawler") == 0) {
    wn_crawl_options *c = &cfg->crawl;
    if (strcmp(name, "user_agent") == 0) {
      if ((err = wn_get_string(v, 255, &cfg->user_agent, loc, key, diag)))
        return err;
      c->user_agent = cfg->user_agent;
      return WN_OK;
    }
    if (strcmp(name, "connect_timeout") == 0 || strcmp(name, "timeout") == 0 ||
        strcmp(name, "host_delay") == 0 || strcmp(name, "max_crawl_delay") == 0) {
      if ((err = wn_get_duration(v, name[0] == 'h' || name[0] == 'm' ? 0 : 100, 3600000, &ms,
                                 loc, key, diag)))
        return err;
      uint32_t *dst = strcmp(name, "connect_timeout") == 0 ? &c->connect_timeout_ms
                      : strcmp(name, "timeout") == 0       ? &c->timeout_ms
                      : strcmp(name, "host_delay") == 0    ? &c->host_delay_ms
                                                           : &c->max_crawl_delay_ms;
      *dst = (uint32_t)ms;
      return WN_OK;
    }
    if (strcmp(name, "max_body") == 0)
      return wn_get_size(v, 1024.0, (double)WN_PAGE_MAX_BYTES, &c->max_body_bytes, loc, key, diag);
    if (strcmp(name, "max_redirects") == 0)
      return wn_get_u32(v, 0, 5, &c->max_redirects, loc, key, diag);
    if (strcmp(name, "host_parallel") == 0)
      return wn_get_u32(v, 1, 64, &c->host_parallel, loc, key, diag);
    if (strcmp(name, "total_parallel") == 0)
      return wn_get_u32(v, 1, 256, &c->total_parallel, loc, key, diag);
    if (strcmp(name, "obey_robots") == 0)
      return wn_get_bool(v, &c->obey_robots, loc, key, diag);
    if (strcmp(name, "allow_private") == 0)
      return wn_get_bool(v, &cfg->allow_private, loc, key, diag);
  } else if (strcmp(section, "learning") == 0) {
    if ((err = wn_set_learn_key(&cfg->learn, &cfg->algo, name, v, loc, key, &known, diag)) || known)
      return err;
    if (strcmp(name, "learners") == 0)
      return wn_get_u32(v, 1, WN_SERVE_MAX_LEARNERS, &cfg->learners, loc, key, diag);
    if (strcmp(name, "max_jobs") == 0)
      return wn_get_u32(v, 16, 100000, &cfg->max_jobs, loc, key, diag);
    if (strcmp(name, "max_queued") == 0)
      return wn_get_u32(v, 1, 10000, &cfg->max_queued, loc, key, diag);
    if (strcmp(name, "from_requests") == 0) {
      if ((err = wn_get_u32(v, 0, WN_LEARN_MAX_PAGES, &cfg->from_requests, loc, key, diag)))
        return err;
      if (cfg->from_requests == 1)
        return wn_cfg_error(diag, loc, key, "from_requests is 0 (off) or 2 to %u pages",
                            WN_LEARN_MAX_PAGES);
      return WN_OK;
    }
    if (strcmp(name, "from_requests_sites") == 0)
      return wn_get_u32(v, 1, 1000000, &cfg->from_requests_sites, loc, key, diag);
    if (strcmp(name, "from_requests_memory") == 0)
      return wn_get_size(v, 1048576.0, 1099511627776.0, &cfg->from_requests_bytes, loc, key,
                         diag);
    if (strcmp(name, "from_requests_pending") == 0)
      return wn_get_bool(v, &cfg->from_requests_pending, loc, key, diag);
    if (strcmp(name, "pending_sites") == 0)
      return wn_get_u32(v, 1, 100000000, &cfg->pending_sites, loc, key, diag);
    if (strcmp(name, "pending_store") == 0)
      return wn_get_size(v, 1048576.0, 1099511627776.0, &cfg->pending_bytes, loc, key, diag);
  } else if (strcmp(section, "refresh") == 0) {
    if (strcmp(name, "interval") == 0)
      return wn_get_duration(v, 1000, 366.0 * 86400000.0, &cfg->interval_ms, loc, key, diag);
    if (strcmp(name, "jitter") == 0)
      return wn_get_share(v, 0.5, &cfg->jitter, loc, key, diag);
    if (strcmp(name, "retry_min") == 0)
      return wn_get_duration(v, 100, 30.0 * 86400000.0, &cfg->retry_min_ms, loc, key, diag);
    if (strcmp(name, "retry_max") == 0)
      return wn_get_duration(v, 100, 30.0 * 86400000.0, &cfg->retry_max_ms, loc, key, diag);
    if (strcmp(name, "on_drift") == 0)
      return wn_get_bool(v, &cfg->on_drift, loc, key, diag);
    if (strcmp(name, "drift_min_age") == 0)
      return wn_get_duration(v, 0, 30.0 * 86400000.0, &cfg->drift_min_age_ms, loc, key, diag);
  } else if (strcmp(section, "detection") == 0) {
    wn_detector_options *d = &cfg->detector;
    if (strcmp(name, "min_confidence") == 0)
      return wn_get_share(v, 1.0, &d->detect.min_confidence, loc, key, diag);
    if (strcmp(name, "fallback") == 0) {
      if (wn_single_method_parse(v, &d->detect.fallback) != 0)
        return wn_cfg_error(diag, loc, key,
                            "\"%s\" is not a single-page method (danag, cnr, readability)", v);
      return WN_OK;
    }
    if (strcmp(name, "template_check") == 0) {
      if ((err = wn_get_duration(v, 0, 86400000.0, &ms, loc, key, diag)))
        return err;
      d->max_age_ms = (uint32_t)ms;
      return WN_OK;
    }
    if (strcmp(name, "cache_sites") == 0)
      return wn_get_u32(v, 1, 1000000, &d->cache_sites, loc, key, diag);
    if (strcmp(name, "count") == 0)
      return wn_get_bool(v, &d->count, loc, key, diag);
    if (strcmp(name, "flush_pages") == 0)
      return wn_get_u32(v, 1, 1000000, &d->flush_pages, loc, key, diag);
    if (strcmp(name, "flush_interval") == 0) {
      if ((err = wn_get_duration(v, 1, 3600000, &ms, loc, key, diag)))
        return err;
      d->flush_ms = (uint32_t)ms;
      return WN_OK;
    }
    if (strcmp(name, "drift_min_pages") == 0)
      return wn_get_u32(v, 1, 1000000, &d->drift.min_pages, loc, key, diag);
    if (strcmp(name, "drift_low_share") == 0)
      return wn_get_share(v, 1.0, &d->drift.max_low_share, loc, key, diag);
  } else if (strcmp(section, "log") == 0) {
    if (strcmp(name, "level") == 0) {
      static const char *const levels[] = {"error", "info", "debug"};
      for (int i = 0; i < 3; i++) {
        if (strcmp(v, levels[i]) == 0) {
          cfg->log_level = i;
          return WN_OK;
        }
      }
      return wn_cfg_error(diag, loc, key, "\"%s\" is not a level (error, info, debug)", v);
    }
  } else {
    return wn_cfg_error(diag, loc, section, "unknown section (%s)", wn_sections);
  }
  return wn_cfg_error(diag, loc, key, "unknown key");
}

/* ---- the configuration ------------------------------------------------------------ */

static void wn_config_defaults(wn_serve_config *cfg) {
  memset(cfg, 0, sizeof *cfg);
  cfg->map_size = (size_t)1 << 30;
  cfg->port = 8080;
  cfg->workers = 0;
  cfg->max_connections = 1024;
  cfg->timeout_s = 30;
  cfg->max_body = (size_t)16 * 1024 * 1024;
  cfg->max_buffered = (size_t)512 * 1024 * 1024;
  wn_crawl_options_init(&cfg->crawl);
  wn_learn_options_init(&cfg->learn);
  cfg->learners = 1;
  cfg->max_jobs = 1024;
  cfg->max_queued = 64;
  cfg->from_requests = 0;
  cfg->from_requests_sites = 4096;
  cfg->from_requests_bytes = (size_t)256 * 1024 * 1024;
  cfg->from_requests_pending = 1;
  cfg->pending_sites = 65536;
  cfg->pending_bytes = (size_t)256 * 1024 * 1024;
  cfg->interval_ms = (int64_t)24 * 3600 * 1000;
  cfg->jitter = 0.1;
  cfg->retry_min_ms = 60 * 1000;
  cfg->retry_max_ms = (int64_t)6 * 3600 * 1000;
  cfg->on_drift = 1;
  cfg->drift_min_age_ms = 3600 * 1000;
  wn_detector_options_init(&cfg->detector);
  /* A daemon lives long and its templates are relearned under it: look
   * for a new generation every few seconds rather than every minute (one
   * small read transaction per site and check). */
  cfg->detector.max_age_ms = 5000;
  cfg->log_level = WN_LOG_INFO;
}

static void wn_site_raw_free(wn_site_raw *raw) {
  if (!raw)
    return;
  for (size_t i = 0; i < raw->n; i++) {
    free(raw->key[i]);
    free(raw->value[i]);
  }
  free(raw);
}

void wn_serve_config_free(wn_serve_config *cfg) {
  if (!cfg)
    return;
  for (size_t i = 0; i < cfg->n_sites; i++) {
    free(cfg->sites[i].url);
    wn_site_raw_free(cfg->sites[i].raw);
  }
  free(cfg->sites);
  free(cfg->path);
  free(cfg->store_path);
  free(cfg->address);
  free(cfg->token);
  free(cfg->user_agent);
  free(cfg);
}

/* Merges each site's overrides over the learning defaults and checks what
 * depends on more than one key. */
static wn_err wn_config_finish(wn_serve_config *cfg, wn_diag *diag) {
  wn_loc loc = {cfg->path, 0};
  if (cfg->retry_min_ms > cfg->retry_max_ms)
    return wn_cfg_error(diag, &loc, "refresh.retry_min", "is longer than refresh.retry_max");
  cfg->crawl.user_agent = cfg->user_agent;
  for (size_t i = 0; i < cfg->n_sites; i++) {
    wn_serve_site *s = &cfg->sites[i];
    s->learn = cfg->learn;
    s->algo = cfg->algo;
    s->interval_ms = cfg->interval_ms;
    wn_site_raw *raw = s->raw;
    for (size_t k = 0; raw && k < raw->n; k++) {
      wn_loc kl = {cfg->path, raw->line[k]};
      char key[160];
      snprintf(key, sizeof key, "sites[%zu].%s", i, raw->key[k]);
      const char *name = raw->key[k], *v = raw->value[k];
      int known = 0;
      wn_err err = wn_set_learn_key(&s->learn, &s->algo, name, v, &kl, key, &known, diag);
      if (err)
        return err;
      if (known || strcmp(name, "url") == 0 || strcmp(name, "site") == 0)
        continue;
      if (strcmp(name, "interval") == 0) {
        if ((err = wn_get_duration(v, 1000, 366.0 * 86400000.0, &s->interval_ms, &kl, key,
                                   diag)))
          return err;
        continue;
      }
      return wn_cfg_error(diag, &kl, key,
                          "unknown key (url, site, interval, n, max_fetches, min_count, "
                          "min_share, selector, by_domain, algorithm)");
    }
  }
  return WN_OK;
}

/* Adds one site from its raw pairs (taken over). */
static wn_err wn_config_add_site(wn_serve_config *cfg, wn_site_raw *raw, unsigned line,
                                 wn_diag *diag) {
  wn_err err = WN_OK;
  char key[64];
  snprintf(key, sizeof key, "sites[%zu]", cfg->n_sites);
  wn_loc loc = {cfg->path, line};
  const char *url = NULL, *site = NULL;
  for (size_t k = 0; k < raw->n; k++) {
    if (strcmp(raw->key[k], "url") == 0)
      url = raw->value[k];
    else if (strcmp(raw->key[k], "site") == 0)
      site = raw->value[k];
  }
  if (cfg->n_sites >= WN_SERVE_MAX_SITES) {
    err = wn_cfg_error(diag, &loc, key, "more than %u sites", WN_SERVE_MAX_SITES);
    goto out;
  }
  if (!url) {
    err = wn_cfg_error(diag, &loc, key, "has no url (the key page to learn the site from)");
    goto out;
  }
  wn_serve_site s;
  memset(&s, 0, sizeof s);
  s.line = line;
  wn_diag inner;
  wn_diag_clear(&inner);
  wn_err e = site ? wn_site_check(site, &inner)
                  : wn_site_from_url(url, s.site, sizeof s.site, &inner);
  if (e) {
    err = wn_cfg_error(diag, &loc, key, "%s", wn_diag_message(&inner, e));
    goto out;
  }
  if (site) {
    /* The URL must still be one we can crawl. */
    char url_site[WN_SITE_MAX + 1];
    if ((e = wn_site_from_url(url, url_site, sizeof url_site, &inner))) {
      err = wn_cfg_error(diag, &loc, key, "%s", wn_diag_message(&inner, e));
      goto out;
    }
    snprintf(s.site, sizeof s.site, "%s", site);
  }
  if (wn_serve_config_site(cfg, s.site)) {
    err = wn_cfg_error(diag, &loc, key, "site %s is configured twice", s.site);
    goto out;
  }
  if (!(s.url = strdup(url))) {
    err = wn_diag_set(diag, WN_ENOMEM, "config: out of memory");
    goto out;
  }
  wn_serve_site *grown = realloc(cfg->sites, (cfg->n_sites + 1) * sizeof *grown);
  if (!grown) {
    free(s.url);
    err = wn_diag_set(diag, WN_ENOMEM, "config: out of memory");
    goto out;
  }
  cfg->sites = grown;
  s.raw = raw;
  raw = NULL;
  cfg->sites[cfg->n_sites++] = s;
out:
  wn_site_raw_free(raw);
  return err;
}

const wn_serve_site *wn_serve_config_site(const wn_serve_config *cfg, const char *site) {
  for (size_t i = 0; cfg && site && i < cfg->n_sites; i++)
    if (strcmp(cfg->sites[i].site, site) == 0)
      return &cfg->sites[i];
  return NULL;
}

static unsigned wn_line(const yaml_node_t *node) { return (unsigned)node->start_mark.line + 1; }

static const char *wn_scalar(const yaml_node_t *node) {
  return node && node->type == YAML_SCALAR_NODE ? (const char *)node->data.scalar.value : NULL;
}

static wn_err wn_config_sites(wn_serve_config *cfg, yaml_document_t *doc, yaml_node_t *seq,
                              wn_diag *diag) {
  wn_loc loc = {cfg->path, wn_line(seq)};
  if (seq->type == YAML_SCALAR_NODE && !*wn_scalar(seq))
    return WN_OK; /* "sites:" with nothing */
  if (seq->type != YAML_SEQUENCE_NODE)
    return wn_cfg_error(diag, &loc, "sites", "must be a list of sites (- url: ...)");
  for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top;
       it++) {
    yaml_node_t *entry = yaml_document_get_node(doc, *it);
    if (!entry)
      continue;
    wn_loc el = {cfg->path, wn_line(entry)};
    char key[64];
    snprintf(key, sizeof key, "sites[%zu]", cfg->n_sites);
    wn_site_raw *raw = calloc(1, sizeof *raw);
    if (!raw)
      return wn_diag_set(diag, WN_ENOMEM, "config: out of memory");
    if (entry->type == YAML_SCALAR_NODE) {
      /* "- https://example.com/key-page.html": a site by its URL alone. */
      raw->key[0] = strdup("url");
      raw->value[0] = strdup(wn_scalar(entry));
      raw->line[0] = wn_line(entry);
      raw->n = 1;
      if (!raw->key[0] || !raw->value[0]) {
        wn_site_raw_free(raw);
        return wn_diag_set(diag, WN_ENOMEM, "config: out of memory");
      }
    } else if (entry->type == YAML_MAPPING_NODE) {
      for (yaml_node_pair_t *p = entry->data.mapping.pairs.start;
           p < entry->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(doc, p->key);
        yaml_node_t *v = yaml_document_get_node(doc, p->value);
        const char *ks = wn_scalar(k), *vs = wn_scalar(v);
        if (!ks || !vs) {
          wn_loc pl = {cfg->path, k ? wn_line(k) : el.line};
          wn_site_raw_free(raw);
          return wn_cfg_error(diag, &pl, key, "%s must be a plain value",
                              ks ? ks : "every key");
        }
        for (size_t j = 0; j < raw->n; j++) {
          if (strcmp(raw->key[j], ks) == 0) {
            wn_loc pl = {cfg->path, wn_line(k)};
            wn_site_raw_free(raw);
            return wn_cfg_error(diag, &pl, key, "%s is given twice", ks);
          }
        }
        if (raw->n >= WN_SITE_MAX_OVERRIDES) {
          wn_site_raw_free(raw);
          return wn_cfg_error(diag, &el, key, "has too many keys");
        }
        raw->key[raw->n] = strdup(ks);
        raw->value[raw->n] = strdup(vs);
        raw->line[raw->n] = wn_line(k);
        raw->n++;
        if (!raw->key[raw->n - 1] || !raw->value[raw->n - 1]) {
          wn_site_raw_free(raw);
          return wn_diag_set(diag, WN_ENOMEM, "config: out of memory");
        }
      }
    } else {
      wn_site_raw_free(raw);
      return wn_cfg_error(diag, &el, key, "must be a URL or a mapping with url:");
    }
    wn_err err = wn_config_add_site(cfg, raw, el.line, diag);
    if (err)
      return err;
  }
  (void)loc;
  return WN_OK;
}

static wn_err wn_config_document(wn_serve_config *cfg, yaml_document_t *doc, wn_diag *diag) {
  yaml_node_t *root = yaml_document_get_root_node(doc);
  wn_loc loc = {cfg->path, 1};
  if (!root)
    return WN_OK; /* an empty file: the defaults */
  if (root->type != YAML_MAPPING_NODE) {
    loc.line = wn_line(root);
    return wn_cfg_error(diag, &loc, "(top)", "must be a mapping of sections");
  }
  for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
       p++) {
    yaml_node_t *k = yaml_document_get_node(doc, p->key);
    yaml_node_t *v = yaml_document_get_node(doc, p->value);
    const char *section = wn_scalar(k);
    loc.line = k ? wn_line(k) : 1;
    if (!section || !v)
      return wn_cfg_error(diag, &loc, "(top)", "section names must be plain words");
    for (yaml_node_pair_t *q = root->data.mapping.pairs.start; q < p; q++) {
      const char *prev = wn_scalar(yaml_document_get_node(doc, q->key));
      if (prev && strcmp(prev, section) == 0)
        return wn_cfg_error(diag, &loc, section, "section is given twice");
    }
    wn_err err;
    if (!wn_section_known(section))
      return wn_cfg_error(diag, &loc, section, "unknown section (%s)", wn_sections);
    if (strcmp(section, "sites") == 0) {
      if ((err = wn_config_sites(cfg, doc, v, diag)))
        return err;
      continue;
    }
    if (v->type == YAML_SCALAR_NODE && !*wn_scalar(v))
      continue; /* "crawler:" with nothing under it */
    if (v->type != YAML_MAPPING_NODE) {
      return wn_cfg_error(diag, &loc, section, "must be a mapping of keys");
    }
    for (yaml_node_pair_t *q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top; q++) {
      yaml_node_t *qk = yaml_document_get_node(doc, q->key);
      yaml_node_t *qv = yaml_document_get_node(doc, q->value);
      const char *name = wn_scalar(qk), *value = wn_scalar(qv);
      wn_loc kl = {cfg->path, qk ? wn_line(qk) : loc.line};
      if (!name)
        return wn_cfg_error(diag, &kl, section, "keys must be plain words");
      for (yaml_node_pair_t *r = v->data.mapping.pairs.start; r < q; r++) {
        const char *prev = wn_scalar(yaml_document_get_node(doc, r->key));
        if (prev && strcmp(prev, name) == 0) {
          char key[160];
          snprintf(key, sizeof key, "%s.%s", section, name);
          return wn_cfg_error(diag, &kl, key, "is given twice");
        }
      }
      if (!value) {
        char key[160];
        snprintf(key, sizeof key, "%s.%s", section, name);
        return wn_cfg_error(diag, &kl, key, "must be a plain value, not a list or mapping");
      }
      if ((err = wn_set_key(cfg, section, name, value, &kl, diag)))
        return err;
    }
  }
  return WN_OK;
}

wn_err wn_serve_config_load(const char *path, wn_serve_config **out, wn_diag *diag) {
  wn_err err = WN_OK;
  char *bytes = NULL;
  size_t len = 0;
  yaml_parser_t parser;
  yaml_document_t doc;
  int parser_ready = 0, doc_ready = 0;

  if (!out)
    return wn_diag_set(diag, WN_EINVAL, "config: load needs somewhere to put the config");
  *out = NULL;
  wn_serve_config *cfg = malloc(sizeof *cfg);
  if (!cfg)
    return wn_diag_set(diag, WN_ENOMEM, "config: out of memory");
  wn_config_defaults(cfg);
  if (!path)
    goto finish;
  if (!(cfg->path = strdup(path))) {
    err = wn_diag_set(diag, WN_ENOMEM, "config: out of memory");
    goto out;
  }
  wn_diag inner;
  wn_diag_clear(&inner);
  if ((err = wn_file_read(path, WN_SERVE_MAX_CONFIG_BYTES, &bytes, &len, &inner))) {
    err = wn_diag_set(diag, err == WN_ETOOBIG ? WN_EINVAL : err, "config: %s",
                      wn_diag_message(&inner, err));
    goto out;
  }
  if (!yaml_parser_initialize(&parser)) {
    err = wn_diag_set(diag, WN_ENOMEM, "config: out of memory");
    goto out;
  }
  parser_ready = 1;
  yaml_parser_set_input_string(&parser, (const unsigned char *)bytes, len);
  if (!yaml_parser_load(&parser, &doc)) {
    err = wn_diag_set(diag, WN_EINVAL, "%s:%zu: %s%s%s", path, parser.problem_mark.line + 1,
                      parser.problem ? parser.problem : "not valid YAML",
                      parser.context ? " " : "", parser.context ? parser.context : "");
    goto out;
  }
  doc_ready = 1;
  if ((err = wn_config_document(cfg, &doc, diag)))
    goto out;
finish:
  if ((err = wn_config_finish(cfg, diag)))
    goto out;
  *out = cfg;
  cfg = NULL;
out:
  if (doc_ready)
    yaml_document_delete(&doc);
  if (parser_ready)
    yaml_parser_delete(&parser);
  free(bytes);
  wn_serve_config_free(cfg);
  return err;
}

wn_err wn_serve_config_set(wn_serve_config *cfg, const char *key, const char *value,
                           wn_diag *diag) {
  if (!cfg || !key || !value)
    return wn_diag_set(diag, WN_EINVAL, "config: set needs a config, a key and a value");
  const char *dot = strchr(key, '.');
  if (!dot || dot == key || !dot[1] || strlen(key) >= 128)
    return wn_cfg_error(diag, NULL, key, "is not a key (section.name, e.g. listen.port)");
  char section[128];
  memcpy(section, key, (size_t)(dot - key));
  section[dot - key] = '\0';
  if (strcmp(section, "sites") == 0)
    return wn_cfg_error(diag, NULL, key, "sites are set in the config file only");
  wn_err err = wn_set_key(cfg, section, dot + 1, value, NULL, diag);
  if (err)
    return err;
  return wn_config_finish(cfg, diag);
}

static char *wn_dup_or_null(const char *s, int *oom) {
  if (!s)
    return NULL;
  char *c = strdup(s);
  if (!c)
    *oom = 1;
  return c;
}

wn_serve_config *wn_serve_config_copy(const wn_serve_config *src) {
  if (!src)
    return NULL;
  wn_serve_config *cfg = malloc(sizeof *cfg);
  if (!cfg)
    return NULL;
  *cfg = *src;
  int oom = 0;
  cfg->path = wn_dup_or_null(src->path, &oom);
  cfg->store_path = wn_dup_or_null(src->store_path, &oom);
  cfg->address = wn_dup_or_null(src->address, &oom);
  cfg->token = wn_dup_or_null(src->token, &oom);
  cfg->user_agent = wn_dup_or_null(src->user_agent, &oom);
  cfg->crawl.user_agent = cfg->user_agent;
  cfg->sites = NULL;
  cfg->n_sites = 0;
  if (src->n_sites) {
    cfg->sites = calloc(src->n_sites, sizeof *cfg->sites);
    if (!cfg->sites) {
      oom = 1;
    } else {
      for (size_t i = 0; i < src->n_sites; i++) {
        cfg->sites[i] = src->sites[i];
        cfg->sites[i].raw = NULL; /* the copy is finished: overrides merged */
        cfg->sites[i].url = wn_dup_or_null(src->sites[i].url, &oom);
        cfg->n_sites = i + 1;
      }
    }
  }
  if (oom) {
    wn_serve_config_free(cfg);
    return NULL;
  }
  return cfg;
}
