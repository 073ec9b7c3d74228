/*
 * tests/serve/test_config.c: the daemon's configuration table
 * (src/serve/config.c). What the table drives, without a server: the
 * defaults, --print-config's YAML loading back to the same values, the
 * site entries' overrides, the keys a reload may not change, and that
 * config/winnow.yaml documents every key. (Errors a file can make and
 * reloads on a running server are in test_serve.c.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "serve/serve.h"
#include "wn_run.h"
#include "wn_test.h"

static char g_dir[1024];

static int setup(void **state) {
  (void)state;
  return wn_test_temp_dir(g_dir, sizeof g_dir, "config") == 0 ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  wn_test_remove_tree(g_dir);
  return 0;
}

/* want is in text (in 1) or not (in 0). */
static void expect_in(const char *text, const char *want, int in) {
  if ((strstr(text, want) != NULL) != in)
    fail_msg("\"%s\" %s in the printed configuration", want, in ? "missing" : "found");
}

/* cfg as --print-config writes it, without its first line (which names
 * the file read). */
static char *printed(const wn_serve_config *cfg) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  assert_non_null(f);
  assert_int_equal(wn_serve_config_print(cfg, f), WN_OK);
  assert_int_equal(fclose(f), 0);
  char *nl = strchr(text, '\n');
  assert_non_null(nl);
  memmove(text, nl + 1, strlen(nl + 1) + 1);
  return text;
}

static wn_serve_config *load(const char *path) {
  wn_serve_config *cfg = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_serve_config_load(path, &cfg, &diag);
  if (err)
    fail_msg("loading %s: %s", path ? path : "(defaults)", wn_diag_message(&diag, err));
  return cfg;
}

static void test_defaults(void **state) {
  (void)state;
  wn_serve_config *cfg = load(NULL);
  char *text = printed(cfg);
  /* The table's defaults and the library's, each under its section. */
  expect_in(text, "store:\n  path: \"winnow-store\"", 1);
  expect_in(text, "  address: \"127.0.0.1\"", 1);
  expect_in(text, "  port: 8080  # a reload cannot change it\n", 1);
  expect_in(text, "  template_check: 5s\n", 1);
  expect_in(text, "  interval: 1d\n", 1);
  expect_in(text, "  pending_store: 256MiB", 1);
  expect_in(text, "  jitter: 0.1\n", 1);
  expect_in(text, "  algorithm: etdm\n", 1);
  expect_in(text, "  # token: (not set)\n", 1);
  expect_in(text, "  # user_agent: (not set", 1);
  expect_in(text, "  obey_robots: true\n", 1);
  expect_in(text, "token_file", 0);
  expect_in(text, "\nsites:", 0);
  free(text);
  wn_serve_config_free(cfg);
}

static void test_print_loads_back(void **state) {
  (void)state;
  char path[1200], again[1200], token[1200];
  snprintf(path, sizeof path, "%s/winnow.yaml", g_dir);
  snprintf(again, sizeof again, "%s/printed.yaml", g_dir);
  snprintf(token, sizeof token, "%s/token", g_dir);
  wn_test_write_text(token, "s3cret-token\n");
  char yaml[4096];
  snprintf(yaml, sizeof yaml,
           "store:\n  path: /var/lib/winnow store\n  map_size: 3MiB\n"
           "listen:\n  port: 0\n  timeout: 90s\n  max_body: 1500\n  token_file: %s\n"
           "crawler:\n  user_agent: 'bot \"quoted\" \\ 1.0'\n  host_delay: 1250ms\n"
           "learning:\n  min_share: 37.5%%\n  selector: cues\n  from_requests: 5\n"
           "refresh:\n  interval: 90m\n  retry_min: 1500ms\n"
           "detection:\n  fallback: readability\n  drift_low_share: 0.3\n"
           "log:\n  level: debug\n"
           "sites:\n"
           "  - url: http://a.example/key.html\n    n: 6\n    interval: 12h\n"
           "    algorithm: fastce\n    min_share: 37.5%%\n"
           "  - http://b.example:8080/\n",
           token);
  wn_test_write_text(path, yaml);
  wn_serve_config *cfg = load(path);
  char *first = printed(cfg);
  expect_in(first, "  map_size: 3MiB", 1);
  expect_in(first, "  timeout: 90s", 1);
  expect_in(first, "  max_body: 1500\n", 1);
  expect_in(first, "  user_agent: \"bot \\\"quoted\\\" \\\\ 1.0\"\n", 1);
  expect_in(first, "  host_delay: 1250ms\n", 1);
  expect_in(first, "  min_share: 0.375\n", 1);
  expect_in(first, "  level: debug\n", 1);
  /* The secret is not printed; each site says what it sets differently. */
  expect_in(first, "s3cret", 0);
  expect_in(first, "  # token: (set, not shown)\n", 1);
  expect_in(first,
                 "  - url: \"http://a.example/key.html\"\n    site: a.example\n    n: 6\n"
                 "    algorithm: fastce\n    interval: 12h\n  - url: \"http://b.example:8080/\"\n"
                 "    site: b.example:8080\n",
                 1);
  wn_test_write_text(again, first);
  wn_serve_config *back = load(again);
  /* Loaded back, it is the same configuration but for the secret, which
   * stays out of the print. */
  wn_diag diag = {{0}};
  assert_int_equal(wn_serve_config_set(back, "listen.token", "s3cret-token", &diag), WN_OK);
  char *second = printed(back);
  assert_string_equal(first, second);
  free(first);
  free(second);
  wn_serve_config_free(cfg);
  wn_serve_config_free(back);
}

static void expect_error(const char *yaml, const char *want) {
  char path[1200];
  snprintf(path, sizeof path, "%s/bad.yaml", g_dir);
  wn_test_write_text(path, yaml);
  wn_serve_config *cfg = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_serve_config_load(path, &cfg, &diag), WN_EINVAL);
  assert_null(cfg);
  if (!strstr(diag.msg, want))
    fail_msg("expected \"%s\" in \"%s\"", want, diag.msg);
}

static void test_bounds_from_the_table(void **state) {
  (void)state;
  expect_error("learning:\n  min_share: 0\n", "learning.min_share: must be above 0");
  expect_error("learning:\n  from_requests: 1\n", "learning.from_requests: is 0 (off) or 2 to");
  expect_error("refresh:\n  jitter: 0.6\n", "refresh.jitter: \"0.6\" is not a share from 0 to 0.5");
  expect_error("store:\n  path: ''\n", "store.path: must not be empty");
  expect_error("detection:\n  fallback: best\n",
               "detection.fallback: \"best\" is not a single-page method (danag, cnr, readability)");
  expect_error("log:\n  level: loud\n", "log.level: \"loud\" is not a level (error, info, debug)");
  expect_error("crawler:\n  connect_timeout: 50ms\n", "crawler.connect_timeout: 50ms is out of range");
  /* A site entry takes the section keys marked for sites, and names them. */
  expect_error("sites:\n  - url: http://a.example/\n    learners: 2\n",
               "sites[0].learners: unknown key (url, site, n, max_fetches, min_count, min_share, "
               "by_domain, selector, algorithm, interval)");
  expect_error("sites:\n  - url: http://a.example/\n    interval: 1ms\n",
               "sites[0].interval: 1ms is out of range");
  expect_error("detect:\n  count: true\n",
               "detect: unknown section (store, listen, crawler, learning, refresh, detection, "
               "log, sites)");
}

/* A site entry starts from its section's values, set anywhere in the
 * file, and from the flags. */
static void test_site_overrides(void **state) {
  (void)state;
  char path[1200];
  snprintf(path, sizeof path, "%s/sites.yaml", g_dir);
  wn_test_write_text(path, "sites:\n  - url: http://a.example/\n    n: 7\n  - http://b.example/\n"
                   "learning:\n  n: 3\n  algorithm: fastce\n");
  wn_serve_config *cfg = load(path);
  wn_diag diag = {{0}};
  assert_int_equal(wn_serve_config_set(cfg, "refresh.interval", "2h", &diag), WN_OK);
  const wn_serve_site *a = wn_serve_config_site(cfg, "a.example");
  const wn_serve_site *b = wn_serve_config_site(cfg, "b.example");
  assert_non_null(a);
  assert_non_null(b);
  assert_int_equal(a->learn.n, 7);
  assert_int_equal(b->learn.n, 3);
  assert_int_equal(a->learn.algo, WN_LEARN_FASTCE);
  assert_int_equal(b->learn.algo, WN_LEARN_FASTCE);
  assert_int_equal(a->interval_ms, 2 * 3600 * 1000);
  assert_int_equal(b->interval_ms, 2 * 3600 * 1000);
  wn_serve_config_free(cfg);
}

static const char *restart_key(const char *key, const char *value) {
  static char buf[96];
  wn_serve_config *cur = load(NULL);
  wn_serve_config *next = wn_serve_config_copy(cur);
  assert_non_null(next);
  wn_diag diag = {{0}};
  assert_int_equal(wn_serve_config_set(next, key, value, &diag), WN_OK);
  const char *what = wn_serve_config_restart_key(cur, next, buf, sizeof buf);
  wn_serve_config_free(cur);
  wn_serve_config_free(next);
  return what;
}

static void test_restart_keys(void **state) {
  (void)state;
  assert_string_equal(restart_key("listen.workers", "3"), "listen.workers");
  assert_string_equal(restart_key("listen.port", "9000"), "listen.port");
  assert_string_equal(restart_key("store.path", "elsewhere"), "store.path");
  assert_string_equal(restart_key("learning.pending_store", "1GiB"), "learning.pending_store");
  assert_string_equal(restart_key("learning.from_requests", "4"), "learning.from_requests");
  /* Port 0 on a reload keeps the port bound; the same value changes
   * nothing; the rest a reload takes. */
  assert_null(restart_key("listen.port", "0"));
  assert_null(restart_key("listen.workers", "0"));
  assert_null(restart_key("refresh.interval", "6h"));
  assert_null(restart_key("listen.max_body", "1MiB"));
  assert_null(restart_key("detection.min_confidence", "0.5"));
  assert_null(restart_key("log.level", "debug"));
}

/* config/winnow.yaml, the operator's reference, names every key under
 * its section (set, or commented out). */
static void test_every_key_documented(void **state) {
  (void)state;
  size_t len = 0;
  char *doc = wn_test_slurp(WN_SOURCE_DIR "/config/winnow.yaml", &len);
  assert_non_null(doc);
  const char *sections[128], *names[128];
  size_t n = wn_serve_config_keys(sections, names, 128);
  assert_true(n > 40 && n <= 128);
  for (size_t i = 0; i < n; i++) {
    char head[64], set[96], commented[96];
    snprintf(head, sizeof head, "\n%s:\n", sections[i]);
    const char *from = strstr(doc, head);
    if (!from)
      fail_msg("config/winnow.yaml has no section %s", sections[i]);
    from += strlen(head);
    /* The section runs to the next line that starts a section. */
    const char *end = from;
    while ((end = strchr(end, '\n')) && end[1] && (end[1] == ' ' || end[1] == '#' ||
                                                   end[1] == '\n'))
      end++;
    size_t span = end ? (size_t)(end - from) : strlen(from);
    snprintf(set, sizeof set, "\n  %s:", names[i]);
    snprintf(commented, sizeof commented, "\n  # %s:", names[i]);
    char *part = strndup(from - 1, span + 1);
    assert_non_null(part);
    if (!strstr(part, set) && !strstr(part, commented))
      fail_msg("config/winnow.yaml does not document %s.%s", sections[i], names[i]);
    free(part);
  }
  free(doc);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_print_loads_back),
      cmocka_unit_test(test_bounds_from_the_table),
      cmocka_unit_test(test_site_overrides),
      cmocka_unit_test(test_restart_keys),
      cmocka_unit_test(test_every_key_documented),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
