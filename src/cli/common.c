/* cli/common.c: what the commands share: messages, exit codes, numbers,
 * sites and template look-up. */
#include "cli/cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <jansson.h>

__attribute__((format(printf, 1, 0))) static void wn_cli_verror(const char *fmt, va_list ap) {
  fputs("winnow: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
}

void wn_cli_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  wn_cli_verror(fmt, ap);
  va_end(ap);
}

int wn_cli_usage_error(void (*usage)(FILE *out), const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  wn_cli_verror(fmt, ap);
  va_end(ap);
  usage(stderr);
  return WN_EXIT_USAGE;
}

int wn_cli_exit_code(wn_err err) {
  switch (err) {
  case WN_OK:
    return WN_EXIT_OK;
  case WN_ESTORE:
  case WN_ENOSPACE:
  case WN_EBUSY:
    return WN_EXIT_STORE;
  case WN_ENOMEM:
    return WN_EXIT_INTERNAL;
  default:
    return WN_EXIT_INPUT;
  }
}

int wn_cli_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out) {
  /* strtoul accepts leading spaces and a sign ("-1" wraps around): only
   * plain digits are a number here. */
  if (!s || s[0] < '0' || s[0] > '9')
    return -1;
  char *end = NULL;
  errno = 0;
  unsigned long v = strtoul(s, &end, 10);
  if (errno != 0 || !end || *end != '\0' || v < min || v > max)
    return -1;
  *out = (uint32_t)v;
  return 0;
}

wn_err wn_cli_check_site(const char *site, wn_diag *diag) {
  size_t len = strnlen(site, (size_t)WN_STORE_MAX_SITE + 1);
  if (len == 0)
    return wn_diag_set(diag, WN_EINVAL, "site name is empty");
  if (len > WN_STORE_MAX_SITE)
    return wn_diag_set(diag, WN_EINVAL, "site name is longer than %u bytes", WN_STORE_MAX_SITE);
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)site[i];
    if (c < 0x20 || c == 0x7f)
      return wn_diag_set(diag, WN_EINVAL, "site name has a control character");
  }
  return WN_OK;
}

wn_err wn_cli_site_from_url(const char *url, char *site, size_t site_size, wn_diag *diag) {
  wn_err err = WN_OK;
  CURLU *h = NULL;
  char *host = NULL;
  site[0] = '\0';
  size_t url_len = strnlen(url, WN_CLI_MAX_URL + 1);
  if (url_len > WN_CLI_MAX_URL) {
    err = wn_diag_set(diag, WN_EINVAL, "URL is longer than %zu bytes", WN_CLI_MAX_URL);
    goto out;
  }
  h = curl_url();
  if (!h) {
    err = wn_diag_set(diag, WN_ENOMEM, "out of memory parsing a URL");
    goto out;
  }
  CURLUcode rc = curl_url_set(h, CURLUPART_URL, url, 0);
  if (rc == CURLUE_OK)
    rc = curl_url_get(h, CURLUPART_HOST, &host, 0);
  if (rc == CURLUE_OUT_OF_MEMORY) {
    err = wn_diag_set(diag, WN_ENOMEM, "out of memory parsing a URL");
    goto out;
  }
  if (rc != CURLUE_OK) {
    /* The message quotes at most 200 bytes of the URL. */
    err = wn_diag_set(diag, WN_EINVAL, "invalid URL '%.200s': %s", url, curl_url_strerror(rc));
    goto out;
  }
  size_t len = strlen(host);
  if (len == 0) {
    err = wn_diag_set(diag, WN_EINVAL, "URL '%.200s' has no host", url);
    goto out;
  }
  if (len >= site_size || len > WN_STORE_MAX_SITE) {
    err = wn_diag_set(diag, WN_EINVAL, "host of URL '%.200s' is longer than %u bytes", url,
                      WN_STORE_MAX_SITE);
    goto out;
  }
  memcpy(site, host, len + 1);
out:
  curl_free(host);
  curl_url_cleanup(h);
  return err;
}

wn_err wn_cli_load_template(wn_store *store, const char *site, wn_template **out,
                            uint64_t *generation, wn_diag *diag) {
  wn_store_record *record = NULL;
  wn_diag inner = {{0}};
  *out = NULL;
  if (generation)
    *generation = 0;
  wn_err err = wn_store_get(store, site, &record, &inner);
  if (err == WN_ENOTFOUND) {
    err = wn_diag_set(diag, WN_ENOTEMPLATE,
                      "no template for site %s; learn it first with winnow learn", site);
    goto out;
  }
  if (err) {
    wn_diag_set(diag, err, "%s", wn_diag_message(&inner, err));
    goto out;
  }
  err = wn_template_decode(record->template_bytes, record->template_len, out, &inner);
  if (err) {
    wn_diag_set(diag, err, "template of site %s: %s", site, wn_diag_message(&inner, err));
    goto out;
  }
  if (generation)
    *generation = record->generation;
out:
  wn_store_record_free(record);
  return err;
}

int wn_cli_write(const void *data, size_t len) {
  if (len > 0 && fwrite(data, 1, len, stdout) != len)
    return -1;
  return 0;
}

int wn_cli_count(wn_store *store, const char *site, uint64_t generation, uint32_t pages,
                 uint32_t low, const wn_cli_detect_config *config, wn_store_stats *after) {
  /* Warn once per site and process: a stream of a drifting site would
   * otherwise print the same line for every page. A small table suffices;
   * past it, warnings stop rather than memory grow. */
  static char warned[64][WN_STORE_MAX_SITE + 1];
  static size_t n_warned;
  wn_store_stats st;
  wn_diag diag = {{0}};
  int counted = 0;
  if (!store || !config->count)
    return 0;
  wn_err err = wn_store_count(store, site, generation, pages, low, &counted, &st, &diag);
  if (err) {
    if (err != WN_ENOTFOUND) /* the site was deleted meanwhile: nothing to count */
      wn_cli_error("warning: %s", wn_diag_message(&diag, err));
    return 0;
  }
  if (after)
    *after = st;
  if (counted && wn_store_drifting(&st, &config->drift)) {
    for (size_t i = 0; i < n_warned; i++)
      if (strcmp(warned[i], site) == 0)
        return counted;
    if (n_warned < sizeof warned / sizeof warned[0]) {
      memcpy(warned[n_warned++], site, strlen(site) + 1);
      wn_cli_error("warning: site %s is drifting: %u of its last %u pages fit its template "
                   "badly (confidence below %.2f); relearn it with winnow learn",
                   site, (unsigned)st.recent_low, (unsigned)st.recent_pages,
                   config->detect.min_confidence);
    }
  }
  return counted;
}

int wn_cli_parse_share(const char *s, double *out) {
  /* Digits and one point only: no sign, exponent, hex, inf or nan. */
  size_t digits = 0, points = 0;
  for (const char *p = s; *p; p++) {
    if (*p >= '0' && *p <= '9')
      digits++;
    else if (*p == '.' && points == 0)
      points++;
    else
      return -1;
  }
  if (digits == 0 || strlen(s) > 32)
    return -1;
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (errno != 0 || !end || *end != '\0' || !(v >= 0.0 && v <= 1.0))
    return -1;
  *out = v;
  return 0;
}

int wn_cli_json_verdict(void *obj_ptr, const wn_detect_result *result, const wn_store_stats *stats,
                        const wn_cli_detect_config *config) {
  json_t *obj = obj_ptr;
  const char *reason = wn_detect_fallback_name(wn_detect_fallback_reason(result));
  if (json_object_set_new(obj, "fallback", reason ? json_string(reason) : json_null()) != 0)
    return -1;
  if (!stats)
    return 0;
  json_t *drift = json_pack("{s:I, s:I, s:I, s:I, s:b}", "pages", (json_int_t)stats->pages,
                            "low", (json_int_t)stats->low, "recent_pages",
                            (json_int_t)stats->recent_pages, "recent_low",
                            (json_int_t)stats->recent_low, "drifting",
                            wn_store_drifting(stats, &config->drift));
  if (!drift || json_object_set_new(obj, "drift", drift) != 0)
    return -1;
  return 0;
}
