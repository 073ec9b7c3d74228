/*
 * serve/config_keys.c: the keys of the daemon's configuration, in one
 * table (as redis's standardConfig is): each key's type, where it lives,
 * its bounds, its default, whether a site entry may override it and
 * whether a reload may change it; the parsing of each type of value, with
 * the messages both the file and the command line give; the defaults, the
 * site overrides, --print-config and the reload rule, all read from the
 * table. config.c reads the YAML file and calls these.
 */
#include "serve/config_int.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

wn_err wn_cfg_error(wn_diag *diag, const wn_loc *loc, const char *key, const char *fmt, ...) {
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

/* Every key of the configuration, in one table (as redis's standardConfig
 * is): its type, where it lives, its bounds, its default, whether a site
 * entry may override it and whether a reload may change it. Parsing,
 * defaults, the site merge, --print-config and the reload rule all read
 * this table; a key added here is added everywhere. */

typedef enum wn_cfg_type {
  WN_CFG_STRING,      /* char *, at most max bytes */
  WN_CFG_TOKEN_FILE,  /* char *, the first line of the file named */
  WN_CFG_SIZE,        /* size_t bytes: "16MiB" */
  WN_CFG_U32,         /* uint32_t */
  WN_CFG_U16,         /* uint16_t */
  WN_CFG_MS,          /* int64_t milliseconds, from a duration */
  WN_CFG_MS32,        /* uint32_t milliseconds, from a duration */
  WN_CFG_SECONDS,     /* uint32_t whole seconds, from a duration */
  WN_CFG_SHARE,       /* double: "0.1" or "10%" */
  WN_CFG_BOOL,        /* int */
  WN_CFG_CHOICE       /* an enum, by name (choice) */
} wn_cfg_type;

enum {
  WN_CFG_RESTART = 1u << 0,     /* a reload may not change it */
  WN_CFG_SITE = 1u << 1,        /* a site entry may override it (site_offset) */
  WN_CFG_NONEMPTY = 1u << 2,    /* "" is an error */
  WN_CFG_EMPTY_UNSET = 1u << 3, /* "" unsets it (NULL) */
  WN_CFG_ABOVE_MIN = 1u << 4,   /* min itself is out of range */
  WN_CFG_NOT_ONE = 1u << 5,     /* 0 (off) or 2 and more */
  WN_CFG_ZERO_KEEPS = 1u << 6,  /* a reload to 0 keeps what is bound (the port) */
  WN_CFG_SECRET = 1u << 7       /* not printed */
};

typedef struct wn_cfg_choice {
  const char *what;  /* "a selector" */
  const char *names; /* "cues, places, paper, region" */
  int (*parse)(const char *v, void *dst);
  const char *(*name)(const void *src);
} wn_cfg_choice;

typedef struct wn_cfg_key {
  const char *section;
  const char *name;
  wn_cfg_type type;
  unsigned flags;
  size_t offset;      /* in wn_serve_config */
  size_t site_offset; /* in wn_serve_site (WN_CFG_SITE keys) */
  double min, max;    /* durations in ms, sizes in bytes, strings: max length */
  const char *def;    /* as a file would say it; NULL: the library's default
                         (wn_crawl_options_init and the like) or unset */
  const wn_cfg_choice *choice;
} wn_cfg_key;

static int wn_cfg_parse_selector(const char *v, void *dst) {
  return wn_detect_selector_parse(v, dst) == WN_OK ? 0 : -1;
}
static const char *wn_cfg_name_selector(const void *src) {
  return wn_detect_selector_name(*(const wn_detect_selector *)src);
}
static int wn_cfg_parse_algo(const char *v, void *dst) {
  return wn_learn_algo_parse(v, dst) == WN_OK ? 0 : -1;
}
static const char *wn_cfg_name_algo(const void *src) {
  return wn_learn_algo_name(*(const wn_learn_algo *)src);
}
static int wn_cfg_parse_method(const char *v, void *dst) {
  return wn_single_method_parse(v, dst) == WN_OK ? 0 : -1;
}
static const char *wn_cfg_name_method(const void *src) {
  return wn_single_method_name(*(const wn_single_method *)src);
}
static const char *const wn_log_levels[] = {"error", "info", "debug"};
static int wn_cfg_parse_level(const char *v, void *dst) {
  for (int i = 0; i < 3; i++) {
    if (strcmp(v, wn_log_levels[i]) == 0) {
      *(int *)dst = i;
      return 0;
    }
  }
  return -1;
}
static const char *wn_cfg_name_level(const void *src) {
  int level = *(const int *)src;
  return level >= 0 && level < 3 ? wn_log_levels[level] : "?";
}

static const wn_cfg_choice wn_choice_selector = {
    "a selector", "site, cues, places, paper, region", wn_cfg_parse_selector, wn_cfg_name_selector};
static const wn_cfg_choice wn_choice_algo = {"a learning algorithm", "etdm, fastce",
                                             wn_cfg_parse_algo, wn_cfg_name_algo};
static const wn_cfg_choice wn_choice_method = {
    "a single-page method", "danag, cnr, readability", wn_cfg_parse_method, wn_cfg_name_method};
static const wn_cfg_choice wn_choice_level = {"a level", "error, info, debug", wn_cfg_parse_level,
                                              wn_cfg_name_level};

/* A member's offset, only when its type is T: a table row whose type
 * does not match its field does not compile. */
#define WN_AT(member, T) \
  _Generic(((wn_serve_config *)0)->member, T: offsetof(wn_serve_config, member))
#define WN_SITE_AT(member, T) \
  _Generic(((wn_serve_site *)0)->member, T: offsetof(wn_serve_site, member))
#define WN_NO_SITE 0
#define WN_MIB 1048576.0
#define WN_TIB 1099511627776.0
#define WN_DAY_MS 86400000.0

static const wn_cfg_key wn_cfg_keys[] = {
    {"store", "path", WN_CFG_STRING, WN_CFG_RESTART | WN_CFG_NONEMPTY, WN_AT(store_path, char *),
     WN_NO_SITE, 0, 4096, "winnow-store", NULL},
    {"store", "map_size", WN_CFG_SIZE, WN_CFG_RESTART, WN_AT(map_size, size_t), WN_NO_SITE,
     WN_MIB, WN_TIB, "1GiB", NULL},

    {"listen", "address", WN_CFG_STRING, WN_CFG_RESTART, WN_AT(address, char *), WN_NO_SITE, 0,
     255, "127.0.0.1", NULL},
    {"listen", "port", WN_CFG_U16, WN_CFG_RESTART | WN_CFG_ZERO_KEEPS, WN_AT(port, uint16_t),
     WN_NO_SITE, 0, 65535, "8080", NULL},
    {"listen", "workers", WN_CFG_U32, WN_CFG_RESTART, WN_AT(workers, uint32_t), WN_NO_SITE, 0,
     WN_SERVE_MAX_WORKERS, "0", NULL},
    {"listen", "max_connections", WN_CFG_U32, WN_CFG_RESTART, WN_AT(max_connections, uint32_t),
     WN_NO_SITE, 1, 100000, "1024", NULL},
    {"listen", "timeout", WN_CFG_SECONDS, WN_CFG_RESTART, WN_AT(timeout_s, uint32_t), WN_NO_SITE,
     1000, 3600000, "30s", NULL},
    {"listen", "max_body", WN_CFG_SIZE, 0, WN_AT(max_body, size_t), WN_NO_SITE, 1024,
     (double)WN_PAGE_MAX_BYTES * 4, "16MiB", NULL},
    {"listen", "max_buffered", WN_CFG_SIZE, 0, WN_AT(max_buffered, size_t), WN_NO_SITE, WN_MIB,
     WN_TIB, "512MiB", NULL},
    {"listen", "token", WN_CFG_STRING, WN_CFG_EMPTY_UNSET | WN_CFG_SECRET, WN_AT(token, char *),
     WN_NO_SITE, 0, WN_SERVE_MAX_TOKEN, NULL, NULL},
    {"listen", "token_file", WN_CFG_TOKEN_FILE, WN_CFG_SECRET, WN_AT(token, char *), WN_NO_SITE,
     0, WN_SERVE_MAX_TOKEN, NULL, NULL},
    {"listen", "allow_any_site", WN_CFG_BOOL, 0, WN_AT(allow_any_site, int), WN_NO_SITE, 0, 1,
     "false", NULL},

    {"crawler", "user_agent", WN_CFG_STRING, 0, WN_AT(user_agent, char *), WN_NO_SITE, 0, 255,
     NULL, NULL},
    {"crawler", "connect_timeout", WN_CFG_MS32, 0, WN_AT(crawl.connect_timeout_ms, uint32_t),
     WN_NO_SITE, 100, 3600000, NULL, NULL},
    {"crawler", "timeout", WN_CFG_MS32, 0, WN_AT(crawl.timeout_ms, uint32_t), WN_NO_SITE, 100,
     3600000, NULL, NULL},
    {"crawler", "host_delay", WN_CFG_MS32, 0, WN_AT(crawl.host_delay_ms, uint32_t), WN_NO_SITE,
     0, 3600000, NULL, NULL},
    {"crawler", "max_crawl_delay", WN_CFG_MS32, 0, WN_AT(crawl.max_crawl_delay_ms, uint32_t),
     WN_NO_SITE, 0, 3600000, NULL, NULL},
    {"crawler", "max_body", WN_CFG_SIZE, 0, WN_AT(crawl.max_body_bytes, size_t), WN_NO_SITE,
     1024, (double)WN_PAGE_MAX_BYTES, NULL, NULL},
    {"crawler", "max_redirects", WN_CFG_U32, 0, WN_AT(crawl.max_redirects, uint32_t),
     WN_NO_SITE, 0, 5, NULL, NULL},
    {"crawler", "host_parallel", WN_CFG_U32, 0, WN_AT(crawl.host_parallel, uint32_t),
     WN_NO_SITE, 1, 64, NULL, NULL},
    {"crawler", "total_parallel", WN_CFG_U32, 0, WN_AT(crawl.total_parallel, uint32_t),
     WN_NO_SITE, 1, 256, NULL, NULL},
    {"crawler", "obey_robots", WN_CFG_BOOL, 0, WN_AT(crawl.obey_robots, int), WN_NO_SITE, 0, 1,
     NULL, NULL},
    {"crawler", "allow_private", WN_CFG_BOOL, 0, WN_AT(allow_private, int), WN_NO_SITE, 0, 1,
     "false", NULL},

    {"learning", "n", WN_CFG_U32, WN_CFG_SITE, WN_AT(learn.n, uint32_t),
     WN_SITE_AT(learn.n, uint32_t), 1, WN_LEARN_MAX_PAGES - 1, NULL, NULL},
    {"learning", "max_fetches", WN_CFG_U32, WN_CFG_SITE, WN_AT(learn.max_fetches, uint32_t),
     WN_SITE_AT(learn.max_fetches, uint32_t), 1, 1000, NULL, NULL},
    {"learning", "min_count", WN_CFG_U32, WN_CFG_SITE, WN_AT(learn.min_count, uint32_t),
     WN_SITE_AT(learn.min_count, uint32_t), 1, WN_LEARN_MAX_PAGES, NULL, NULL},
    {"learning", "min_share", WN_CFG_SHARE, WN_CFG_SITE | WN_CFG_ABOVE_MIN,
     WN_AT(learn.min_share, double), WN_SITE_AT(learn.min_share, double), 0, 1, NULL, NULL},
    {"learning", "by_domain", WN_CFG_BOOL, WN_CFG_SITE, WN_AT(learn.by_domain, int),
     WN_SITE_AT(learn.by_domain, int), 0, 1, NULL, NULL},
    {"learning", "selector", WN_CFG_CHOICE, WN_CFG_SITE,
     WN_AT(learn.selector, wn_detect_selector), WN_SITE_AT(learn.selector, wn_detect_selector),
     0, 0, NULL, &wn_choice_selector},
    {"learning", "algorithm", WN_CFG_CHOICE, WN_CFG_SITE, WN_AT(learn.algo, wn_learn_algo),
     WN_SITE_AT(learn.algo, wn_learn_algo), 0, 0, "etdm", &wn_choice_algo},
    {"learning", "learners", WN_CFG_U32, WN_CFG_RESTART, WN_AT(learners, uint32_t), WN_NO_SITE, 1,
     WN_SERVE_MAX_LEARNERS, "1", NULL},
    {"learning", "max_jobs", WN_CFG_U32, WN_CFG_RESTART, WN_AT(max_jobs, uint32_t), WN_NO_SITE,
     16, 100000, "1024", NULL},
    {"learning", "max_queued", WN_CFG_U32, 0, WN_AT(max_queued, uint32_t), WN_NO_SITE, 1, 10000,
     "64", NULL},
    {"learning", "from_requests", WN_CFG_U32, WN_CFG_RESTART | WN_CFG_NOT_ONE,
     WN_AT(from_requests, uint32_t), WN_NO_SITE, 0, WN_LEARN_MAX_PAGES, "0", NULL},
    {"learning", "from_requests_sites", WN_CFG_U32, WN_CFG_RESTART,
     WN_AT(from_requests_sites, uint32_t), WN_NO_SITE, 1, 1000000, "4096", NULL},
    {"learning", "from_requests_memory", WN_CFG_SIZE, WN_CFG_RESTART,
     WN_AT(from_requests_bytes, size_t), WN_NO_SITE, WN_MIB, WN_TIB, "256MiB", NULL},
    {"learning", "from_requests_pending", WN_CFG_BOOL, WN_CFG_RESTART,
     WN_AT(from_requests_pending, int), WN_NO_SITE, 0, 1, "true", NULL},
    {"learning", "pending_sites", WN_CFG_U32, WN_CFG_RESTART, WN_AT(pending_sites, uint32_t),
     WN_NO_SITE, 1, 100000000, "65536", NULL},
    {"learning", "pending_store", WN_CFG_SIZE, WN_CFG_RESTART, WN_AT(pending_bytes, size_t),
     WN_NO_SITE, WN_MIB, WN_TIB, "256MiB", NULL},

    {"refresh", "interval", WN_CFG_MS, WN_CFG_SITE, WN_AT(interval_ms, int64_t),
     WN_SITE_AT(interval_ms, int64_t), 1000, 366 * WN_DAY_MS, "24h", NULL},
    {"refresh", "jitter", WN_CFG_SHARE, 0, WN_AT(jitter, double), WN_NO_SITE, 0, 0.5, "0.1",
     NULL},
    {"refresh", "retry_min", WN_CFG_MS, 0, WN_AT(retry_min_ms, int64_t), WN_NO_SITE, 100,
     30 * WN_DAY_MS, "1m", NULL},
    {"refresh", "retry_max", WN_CFG_MS, 0, WN_AT(retry_max_ms, int64_t), WN_NO_SITE, 100,
     30 * WN_DAY_MS, "6h", NULL},
    {"refresh", "on_drift", WN_CFG_BOOL, 0, WN_AT(on_drift, int), WN_NO_SITE, 0, 1, "true",
     NULL},
    {"refresh", "drift_min_age", WN_CFG_MS, 0, WN_AT(drift_min_age_ms, int64_t), WN_NO_SITE, 0,
     30 * WN_DAY_MS, "1h", NULL},

    {"detection", "min_confidence", WN_CFG_SHARE, 0,
     WN_AT(detector.detect.min_confidence, double), WN_NO_SITE, 0, 1, NULL, NULL},
    {"detection", "fallback", WN_CFG_CHOICE, 0, WN_AT(detector.detect.fallback, wn_single_method),
     WN_NO_SITE, 0, 0, NULL, &wn_choice_method},
    /* A daemon lives long and its templates are relearned under it: it
     * looks for a new generation every few seconds, not every minute as
     * the library does (one small read transaction per site and check). */
    {"detection", "template_check", WN_CFG_MS32, 0, WN_AT(detector.max_age_ms, uint32_t),
     WN_NO_SITE, 0, WN_DAY_MS, "5s", NULL},
    {"detection", "cache_sites", WN_CFG_U32, 0, WN_AT(detector.cache_sites, uint32_t),
     WN_NO_SITE, 1, 1000000, NULL, NULL},
    {"detection", "count", WN_CFG_BOOL, 0, WN_AT(detector.count, int), WN_NO_SITE, 0, 1, NULL,
     NULL},
    {"detection", "flush_pages", WN_CFG_U32, 0, WN_AT(detector.flush_pages, uint32_t),
     WN_NO_SITE, 1, 1000000, NULL, NULL},
    {"detection", "flush_interval", WN_CFG_MS32, 0, WN_AT(detector.flush_ms, uint32_t),
     WN_NO_SITE, 1, 3600000, NULL, NULL},
    {"detection", "drift_min_pages", WN_CFG_U32, 0, WN_AT(detector.drift.min_pages, uint32_t),
     WN_NO_SITE, 1, 1000000, NULL, NULL},
    {"detection", "drift_low_share", WN_CFG_SHARE, 0,
     WN_AT(detector.drift.max_low_share, double), WN_NO_SITE, 0, 1, NULL, NULL},

    {"log", "level", WN_CFG_CHOICE, 0, WN_AT(log_level, int), WN_NO_SITE, 0, 0, "info",
     &wn_choice_level},
};

#define WN_CFG_NKEYS (sizeof wn_cfg_keys / sizeof wn_cfg_keys[0])

/* A choice is written through its parser but copied (site merge) and
 * compared (reload) as an int. */
_Static_assert(sizeof(wn_detect_selector) == sizeof(int) && sizeof(wn_learn_algo) == sizeof(int) &&
                   sizeof(wn_single_method) == sizeof(int),
               "the configuration's choices are int-sized enums");

static const wn_cfg_key *wn_cfg_find(const char *section, const char *name) {
  for (size_t i = 0; i < WN_CFG_NKEYS; i++)
    if (strcmp(wn_cfg_keys[i].section, section) == 0 && strcmp(wn_cfg_keys[i].name, name) == 0)
      return &wn_cfg_keys[i];
  return NULL;
}

/* The sections, "store, listen, ..., sites", for messages, in list (on
 * the caller's stack: libraries may load configurations on several
 * threads at once). */
const char *wn_cfg_sections(char *list, size_t size) {
  size_t used = 0;
  list[0] = '\0';
  for (size_t i = 0; i < WN_CFG_NKEYS && used < size; i++) {
    if (i > 0 && strcmp(wn_cfg_keys[i].section, wn_cfg_keys[i - 1].section) == 0)
      continue;
    used += (size_t)snprintf(list + used, size - used, "%s, ", wn_cfg_keys[i].section);
  }
  if (used < size)
    snprintf(list + used, size - used, "sites");
  return list;
}

int wn_cfg_section_known(const char *name) {
  if (strcmp(name, "sites") == 0)
    return 1;
  for (size_t i = 0; i < WN_CFG_NKEYS; i++)
    if (strcmp(wn_cfg_keys[i].section, name) == 0)
      return 1;
  return 0;
}

/* Sets key k in base + offset from its text v, as a file or a flag
 * says it. */
static wn_err wn_cfg_set(const wn_cfg_key *k, void *dst, const char *v, const wn_loc *loc,
                         const char *key, wn_diag *diag) {
  wn_err err = WN_OK;
  int64_t ms = 0;
  uint32_t u = 0;
  double x = 0;
  switch (k->type) {
  case WN_CFG_STRING:
    if (!*v && (k->flags & WN_CFG_NONEMPTY))
      return wn_cfg_error(diag, loc, key, "must not be empty");
    if (!*v && (k->flags & WN_CFG_EMPTY_UNSET)) {
      free(*(char **)dst);
      *(char **)dst = NULL;
      return WN_OK;
    }
    return wn_get_string(v, (size_t)k->max, dst, loc, key, diag);
  case WN_CFG_TOKEN_FILE:
    return wn_get_token_file(v, dst, loc, key, diag);
  case WN_CFG_SIZE:
    return wn_get_size(v, k->min, k->max, dst, loc, key, diag);
  case WN_CFG_U32:
  case WN_CFG_U16:
    if ((err = wn_get_u32(v, (uint32_t)k->min, (uint32_t)k->max, &u, loc, key, diag)))
      return err;
    if ((k->flags & WN_CFG_NOT_ONE) && u == 1)
      return wn_cfg_error(diag, loc, key, "is 0 (off) or 2 to %u", (unsigned)k->max);
    if (k->type == WN_CFG_U16)
      *(uint16_t *)dst = (uint16_t)u;
    else
      *(uint32_t *)dst = u;
    return WN_OK;
  case WN_CFG_MS:
    return wn_get_duration(v, k->min, k->max, dst, loc, key, diag);
  case WN_CFG_MS32:
  case WN_CFG_SECONDS:
    if ((err = wn_get_duration(v, k->min, k->max, &ms, loc, key, diag)))
      return err;
    *(uint32_t *)dst = (uint32_t)(k->type == WN_CFG_SECONDS ? ms / 1000 : ms);
    return WN_OK;
  case WN_CFG_SHARE:
    if ((err = wn_get_share(v, k->max, &x, loc, key, diag)))
      return err;
    if ((k->flags & WN_CFG_ABOVE_MIN) && x <= k->min)
      return wn_cfg_error(diag, loc, key, "must be above %g", k->min);
    *(double *)dst = x;
    return WN_OK;
  case WN_CFG_BOOL:
    return wn_get_bool(v, dst, loc, key, diag);
  case WN_CFG_CHOICE:
    if (k->choice->parse(v, dst) != 0)
      return wn_cfg_error(diag, loc, key, "\"%s\" is not %s (%s)", v, k->choice->what,
                          k->choice->names);
    return WN_OK;
  }
  return wn_cfg_error(diag, loc, key, "has no type");
}

wn_err wn_cfg_set_key(wn_serve_config *cfg, const char *section, const char *name,
                      const char *v, const wn_loc *loc, wn_diag *diag) {
  char key[160];
  snprintf(key, sizeof key, "%s.%s", section, name);
  if (!wn_cfg_section_known(section) || strcmp(section, "sites") == 0) {
    char list[256];
    return wn_cfg_error(diag, loc, section, "unknown section (%s)",
                        wn_cfg_sections(list, sizeof list));
  }
  const wn_cfg_key *k = wn_cfg_find(section, name);
  if (!k)
    return wn_cfg_error(diag, loc, key, "unknown key");
  return wn_cfg_set(k, (char *)cfg + k->offset, v, loc, key, diag);
}

wn_err wn_cfg_defaults(wn_serve_config *cfg, wn_diag *diag) {
  for (size_t i = 0; i < WN_CFG_NKEYS; i++) {
    const wn_cfg_key *k = &wn_cfg_keys[i];
    if (!k->def)
      continue;
    char key[160];
    snprintf(key, sizeof key, "%s.%s (default)", k->section, k->name);
    wn_err err = wn_cfg_set(k, (char *)cfg + k->offset, k->def, NULL, key, diag);
    if (err)
      return err;
  }
  return WN_OK;
}

/* The keys a site entry may set, "url, site, n, ...", for messages, in
 * list. */
static const char *wn_cfg_site_keys(char *list, size_t size) {
  size_t used = (size_t)snprintf(list, size, "url, site");
  for (size_t i = 0; i < WN_CFG_NKEYS && used < size; i++)
    if (wn_cfg_keys[i].flags & WN_CFG_SITE)
      used += (size_t)snprintf(list + used, size - used, ", %s", wn_cfg_keys[i].name);
  return list;
}

/* A key's value's bytes, for the site merge and the reload rule. */
static size_t wn_cfg_width(const wn_cfg_key *k) {
  switch (k->type) {
  case WN_CFG_STRING:
  case WN_CFG_TOKEN_FILE: return sizeof(char *);
  case WN_CFG_SIZE: return sizeof(size_t);
  case WN_CFG_U16: return sizeof(uint16_t);
  case WN_CFG_MS: return sizeof(int64_t);
  case WN_CFG_SHARE: return sizeof(double);
  case WN_CFG_BOOL: return sizeof(int);
  case WN_CFG_CHOICE: return sizeof(int);
  case WN_CFG_U32:
  case WN_CFG_MS32:
  case WN_CFG_SECONDS: return sizeof(uint32_t);
  }
  return 0;
}

void wn_cfg_site_defaults(const wn_serve_config *cfg, wn_serve_site *s) {
  for (size_t j = 0; j < WN_CFG_NKEYS; j++) {
    const wn_cfg_key *k = &wn_cfg_keys[j];
    if (k->flags & WN_CFG_SITE)
      memcpy((char *)s + k->site_offset, (const char *)cfg + k->offset, wn_cfg_width(k));
  }
}

wn_err wn_cfg_site_set(wn_serve_site *s, const char *name, const char *v, const wn_loc *loc,
                       const char *key, wn_diag *diag) {
  const wn_cfg_key *k = NULL;
  for (size_t j = 0; !k && j < WN_CFG_NKEYS; j++)
    if ((wn_cfg_keys[j].flags & WN_CFG_SITE) && strcmp(wn_cfg_keys[j].name, name) == 0)
      k = &wn_cfg_keys[j];
  if (!k) {
    char list[256];
    return wn_cfg_error(diag, loc, key, "unknown key (%s)", wn_cfg_site_keys(list, sizeof list));
  }
  return wn_cfg_set(k, (char *)s + k->site_offset, v, loc, key, diag);
}

/* ---- printing and comparing ------------------------------------------------------- */

/* n as the largest unit that divides it, "1GiB", "30s"; units from
 * largest to smallest, the last of multiplier 1. */
static void wn_cfg_scaled(char *buf, size_t size, double v, const wn_unit *units) {
  for (size_t i = 0; units[i].name; i++) {
    double q = v / units[i].mult;
    if (units[i].mult == 1.0 || (q >= 1 && q == floor(q))) {
      snprintf(buf, size, "%.0f%s", q, units[i].name);
      return;
    }
  }
}

static const wn_unit wn_print_sizes[] = {
    {"GiB", 1073741824.0}, {"MiB", 1048576.0}, {"KiB", 1024.0}, {"", 1.0}, {NULL, 0}};
static const wn_unit wn_print_durations[] = {{"d", 86400000.0}, {"h", 3600000.0}, {"m", 60000.0},
                                             {"s", 1000.0},      {"ms", 1.0},       {NULL, 0}};

/* A value as a file would write it; NULL for an unset string. */
static const char *wn_cfg_format(const wn_cfg_key *k, const void *src, char *buf, size_t size) {
  switch (k->type) {
  case WN_CFG_STRING:
  case WN_CFG_TOKEN_FILE: {
    const char *s = *(char *const *)src;
    if (!s)
      return NULL;
    /* Double-quoted YAML: quotes and backslashes escaped (no control
     * characters get this far). */
    size_t o = 0;
    buf[o++] = '"';
    for (; *s && o + 3 < size; s++) {
      if (*s == '"' || *s == '\\')
        buf[o++] = '\\';
      buf[o++] = *s;
    }
    buf[o++] = '"';
    buf[o] = '\0';
    return buf;
  }
  case WN_CFG_SIZE: wn_cfg_scaled(buf, size, (double)*(const size_t *)src, wn_print_sizes); break;
  case WN_CFG_U32: snprintf(buf, size, "%u", (unsigned)*(const uint32_t *)src); break;
  case WN_CFG_U16: snprintf(buf, size, "%u", (unsigned)*(const uint16_t *)src); break;
  case WN_CFG_MS:
    wn_cfg_scaled(buf, size, (double)*(const int64_t *)src, wn_print_durations);
    break;
  case WN_CFG_MS32:
    wn_cfg_scaled(buf, size, (double)*(const uint32_t *)src, wn_print_durations);
    break;
  case WN_CFG_SECONDS:
    wn_cfg_scaled(buf, size, 1000.0 * *(const uint32_t *)src, wn_print_durations);
    break;
  case WN_CFG_SHARE: {
    /* The shortest form that reads back as the same number. */
    const double x = *(const double *)src;
    snprintf(buf, size, "%g", x);
    if (strtod(buf, NULL) != x)
      snprintf(buf, size, "%.17g", x);
    break;
  }
  case WN_CFG_BOOL: snprintf(buf, size, "%s", *(const int *)src ? "true" : "false"); break;
  case WN_CFG_CHOICE: snprintf(buf, size, "%s", k->choice->name(src)); break;
  }
  return buf;
}

static int wn_cfg_equal(const wn_cfg_key *k, const void *a, const void *b) {
  if (k->type == WN_CFG_STRING || k->type == WN_CFG_TOKEN_FILE) {
    const char *x = *(char *const *)a, *y = *(char *const *)b;
    return x == y || (x && y && strcmp(x, y) == 0);
  }
  if (k->type == WN_CFG_SHARE)
    return *(const double *)a == *(const double *)b;
  return memcmp(a, b, wn_cfg_width(k)) == 0;
}

wn_err wn_serve_config_print(const wn_serve_config *cfg, FILE *out) {
  if (!cfg || !out)
    return WN_EINVAL;
  char buf[WN_SERVE_MAX_TOKEN * 2 + 8];
  int bad = fprintf(out, "# the configuration in use (winnow serve --print-config)%s%s\n",
                    cfg->path ? ": " : "", cfg->path ? cfg->path : ", the defaults") < 0;
  for (size_t i = 0; i < WN_CFG_NKEYS; i++) {
    const wn_cfg_key *k = &wn_cfg_keys[i];
    if (i == 0 || strcmp(k->section, wn_cfg_keys[i - 1].section) != 0)
      bad |= fprintf(out, "%s%s:\n", i ? "\n" : "", k->section) < 0;
    if (k->type == WN_CFG_TOKEN_FILE)
      continue; /* read into listen.token */
    const void *src = (const char *)cfg + k->offset;
    const char *v = wn_cfg_format(k, src, buf, sizeof buf);
    if (k->flags & WN_CFG_SECRET)
      bad |= fprintf(out, "  # %s: %s\n", k->name, v ? "(set, not shown)" : "(not set)") < 0;
    else if (!v)
      bad |= fprintf(out, "  # %s: (not set: the library's default)\n", k->name) < 0;
    else
      bad |= fprintf(out, "  %s: %s%s\n", k->name, v,
                     (k->flags & WN_CFG_RESTART) ? "  # a reload cannot change it" : "") < 0;
  }
  if (cfg->n_sites)
    bad |= fprintf(out, "\nsites:\n") < 0;
  for (size_t s = 0; s < cfg->n_sites; s++) {
    const wn_serve_site *site = &cfg->sites[s];
    const char *url = site->url;
    const wn_cfg_key url_key = {"sites", "url", WN_CFG_STRING, 0, 0, 0, 0, 0, NULL, NULL};
    bad |= fprintf(out, "  - url: %s\n    site: %s\n", wn_cfg_format(&url_key, &url, buf,
                                                                  sizeof buf),
                   site->site) < 0;
    /* What the site sets differently from its section. */
    for (size_t i = 0; i < WN_CFG_NKEYS; i++) {
      const wn_cfg_key *k = &wn_cfg_keys[i];
      if (!(k->flags & WN_CFG_SITE))
        continue;
      const void *own = (const char *)site + k->site_offset;
      if (wn_cfg_equal(k, own, (const char *)cfg + k->offset))
        continue;
      bad |= fprintf(out, "    %s: %s\n", k->name, wn_cfg_format(k, own, buf, sizeof buf)) < 0;
    }
  }
  return bad || ferror(out) ? WN_EIO : WN_OK;
}

const char *wn_serve_config_restart_key(const wn_serve_config *cur, const wn_serve_config *next,
                                        char *buf, size_t size) {
  for (size_t i = 0; i < WN_CFG_NKEYS; i++) {
    const wn_cfg_key *k = &wn_cfg_keys[i];
    if (!(k->flags & WN_CFG_RESTART))
      continue;
    const void *a = (const char *)cur + k->offset, *b = (const char *)next + k->offset;
    if (wn_cfg_equal(k, a, b))
      continue;
    if ((k->flags & WN_CFG_ZERO_KEEPS) && *(const uint16_t *)b == 0)
      continue;
    snprintf(buf, size, "%s.%s", k->section, k->name);
    return buf;
  }
  return NULL;
}

size_t wn_serve_config_keys(const char **sections, const char **names, size_t max) {
  for (size_t i = 0; i < WN_CFG_NKEYS && i < max; i++) {
    sections[i] = wn_cfg_keys[i].section;
    names[i] = wn_cfg_keys[i].name;
  }
  return WN_CFG_NKEYS;
}
