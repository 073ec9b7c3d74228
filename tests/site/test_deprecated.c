/*
 * tests/site/test_deprecated.c: the names winnow.h keeps one release for
 * programs written against 0.3 (docs/library.md, "Names"; removed in
 * 0.5.0) still work, each as the call that replaced it: the *_algo
 * learning calls (the algorithm into the options), wn_site_list,
 * wn_site_template_walk, wn_collector_pending, wn_store_pending_totals
 * and wn_page_result_counts. Through the public header only, as a program
 * would call them; this file alone silences the deprecation warnings.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <winnow/winnow.h>

#include "wn_httpd.h"
#include "wn_run.h"

/* The point of this file is to call the deprecated names. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define SITE "www.harbourgazette.example"
#define PAGE(n) WN_FIXTURES "/site/article-" #n ".html"

static char g_tmp[3072];

static wn_store *open_store(const char *name, char *dir, size_t size) {
  if ((size_t)snprintf(dir, size, "%.3000s/%.64s", g_tmp, name) >= size)
    fail_msg("path too long");
  wn_store *store = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_store_open(dir, NULL, &store, &diag);
  if (err)
    fail_msg("open %s: %s", dir, wn_diag_message(&diag, err));
  return store;
}

static char *read_page(const char *path, size_t *len) {
  char *bytes = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_file_read(path, WN_PAGE_MAX_BYTES, &bytes, len, &diag);
  if (err)
    fail_msg("%s", wn_diag_message(&diag, err));
  return bytes;
}

/* The _algo calls: the algorithm argument wins over opts->algo, the other
 * options stay as given, NULL options are the defaults, and an unknown
 * algorithm is refused as the new calls refuse it. */
static void test_learn_algo_aliases(void **state) {
  (void)state;
  const char *paths[] = {PAGE(1), PAGE(2), PAGE(3), WN_FIXTURES "/nset-site/about.html"};
  wn_learned *learned = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_site_learn_files_algo(WN_LEARN_FASTCE, SITE, paths, 3, NULL, &learned,
                                            &diag),
                   WN_OK);
  assert_int_equal(wn_learned_algo(learned), WN_LEARN_FASTCE);
  wn_learned_free(learned);
  wn_learn_options lo;
  wn_learn_options_init(&lo);
  lo.force = 1; /* kept: the page of another layout is learned from */
  assert_int_equal(wn_site_learn_files_algo(WN_LEARN_ETDM, SITE, paths, 4, &lo, &learned, &diag),
                   WN_OK);
  assert_int_equal(wn_learned_algo(learned), WN_LEARN_ETDM);
  wn_learn_summary sum;
  wn_learned_summary_get(learned, &sum);
  assert_int_equal(sum.n_used, 4);
  wn_learned_free(learned);

  char *bytes[2];
  size_t lens[2];
  bytes[0] = read_page(PAGE(1), &lens[0]);
  bytes[1] = read_page(PAGE(2), &lens[1]);
  const char *names[] = {"one", "two"};
  lo.force = 0;
  lo.algo = WN_LEARN_ETDM;
  assert_int_equal(wn_site_learn_pages_algo(WN_LEARN_FASTCE, SITE, names,
                                            (const char *const *)bytes, lens, 2, &lo, &learned,
                                            &diag),
                   WN_OK);
  assert_int_equal(wn_learned_algo(learned), WN_LEARN_FASTCE);
  wn_learned_free(learned);
  wn_diag_clear(&diag);
  assert_int_equal(wn_site_learn_pages_algo((wn_learn_algo)9, SITE, names,
                                            (const char *const *)bytes, lens, 2, NULL, &learned,
                                            &diag),
                   WN_EINVAL);
  assert_null(learned);
  assert_non_null(strstr(diag.msg, "unknown learning algorithm"));
  free(bytes[0]);
  free(bytes[1]);

  /* By crawling the loopback site. */
  wn_httpd *srv = wn_httpd_start(WN_FIXTURES "/nset-site");
  assert_non_null(srv);
  char url[256];
  wn_httpd_url(srv, "/news/2015/article-7.html", url, sizeof url);
  wn_crawl_options co;
  wn_crawl_options_init(&co);
  co.host_delay_ms = 0;
  lo.n = 3;
  wn_err err = wn_site_learn_url_algo(WN_LEARN_FASTCE, url, NULL, &lo, &co, &learned, &diag);
  if (err)
    fail_msg("%s", wn_diag_message(&diag, err));
  assert_int_equal(wn_learned_algo(learned), WN_LEARN_FASTCE);
  wn_learned_free(learned);
  wn_diag_clear(&diag);
  assert_int_equal(wn_site_learn_url_algo((wn_learn_algo)9, url, NULL, NULL, &co, &learned, &diag),
                   WN_EINVAL);
  assert_null(learned);
  assert_non_null(strstr(diag.msg, "unknown learning algorithm"));
  wn_httpd_stop(srv);
}

static int add_name(const char *site, void *ctx) {
  wn_buf *b = ctx;
  assert_int_equal(wn_buf_printf(b, "%s\n", site), WN_OK);
  return 0;
}

static int count_entry(const wn_template_entry *entry, void *ctx) {
  (void)entry;
  ++*(uint32_t *)ctx;
  return 0;
}

static int add_pending(const char *site, uint32_t pages, void *ctx) {
  wn_buf *b = ctx;
  assert_int_equal(wn_buf_printf(b, "%s %u\n", site, pages), WN_OK);
  return 0;
}

/* The renamed store, site and collector calls: the old name gives what
 * the new one gives. */
static void test_renamed_aliases(void **state) {
  (void)state;
  char dir[PATH_MAX];
  wn_store *store = open_store("renamed", dir, sizeof dir);
  wn_diag diag = {{0}};
  const char *paths[] = {PAGE(1), PAGE(2), PAGE(3), PAGE(4), PAGE(5)};
  wn_learned *learned = NULL;
  assert_int_equal(wn_site_learn_files(SITE, paths, 5, NULL, &learned, &diag), WN_OK);
  assert_int_equal(wn_site_save(store, learned, NULL, &diag), WN_OK);
  wn_learned_free(learned);

  /* wn_site_list. */
  wn_buf listed, each;
  wn_buf_init(&listed, 0);
  wn_buf_init(&each, 0);
  assert_int_equal(wn_site_list(store, add_name, &listed, &diag), WN_OK);
  assert_int_equal(wn_site_each(store, add_name, &each, &diag), WN_OK);
  assert_string_equal(listed.data, SITE "\n");
  assert_string_equal(listed.data, each.data);

  /* wn_site_template_walk. */
  uint32_t walked = 0, eached = 0;
  wn_template_summary s1, s2;
  assert_int_equal(wn_site_template_walk(store, SITE, "", 0, count_entry, &walked, &s1, &diag),
                   WN_OK);
  assert_int_equal(wn_site_template_each(store, SITE, "", 0, count_entry, &eached, &s2, &diag),
                   WN_OK);
  assert_true(walked > 10);
  assert_int_equal(walked, eached);
  assert_int_equal(s1.nodes, s2.nodes);

  /* wn_page_result_counts: counts written at once (flush_pages 1). */
  wn_detector_options o;
  wn_detector_options_init(&o);
  o.flush_pages = 1;
  wn_detector *d = NULL;
  assert_int_equal(wn_detector_create(store, &o, &d, &diag), WN_OK);
  size_t len = 0;
  char *page = read_page(PAGE(6), &len);
  wn_page_input in = {.bytes = page, .len = len, .site = SITE};
  wn_page_result *r = NULL;
  for (int i = 0; i < 2; i++) {
    wn_page_result_free(r);
    r = NULL;
    assert_int_equal(wn_detector_detect(d, &in, WN_WANT_TEXT, &r, &diag), WN_OK);
  }
  wn_site_counts c1, c2;
  int drift1 = -1, drift2 = -2;
  assert_int_equal(wn_page_result_counts_get(r, &c1, &drift1), 1);
  assert_int_equal(wn_page_result_counts(r, &c2, &drift2), 1);
  assert_true(c1.pages >= 1);
  assert_int_equal(c1.pages, c2.pages);
  assert_int_equal(drift1, drift2);
  wn_page_result_free(r);
  wn_detector_destroy(d);
  free(page);

  /* wn_collector_pending and wn_store_pending_totals: two pages of a site
   * without a template, held and kept in the store. */
  wn_collect_options co;
  wn_collect_options_init(&co);
  wn_collector *c = NULL;
  assert_int_equal(wn_collector_create(store, &co, &c, &diag), WN_OK);
  for (int i = 1; i <= 2; i++) {
    char p[PATH_MAX], u[128];
    snprintf(p, sizeof p, WN_FIXTURES "/site/article-%d.html", i);
    snprintf(u, sizeof u, "https://other.example/news/%d.html", i);
    char *bytes = read_page(p, &len);
    wn_page_input pin = {.bytes = bytes, .len = len, .url = u};
    wn_collect_state st;
    assert_int_equal(wn_collector_add(c, &pin, NULL, 0, &st, &diag), WN_OK);
    assert_int_equal(st, WN_COLLECT_HELD);
    free(bytes);
  }
  assert_int_equal(wn_collector_flush(c, &diag), WN_OK);
  wn_buf_reset(&listed);
  wn_buf_reset(&each);
  assert_int_equal(wn_collector_pending(c, 2, add_pending, &listed, &diag), WN_OK);
  assert_int_equal(wn_collector_pending_each(c, 2, add_pending, &each, &diag), WN_OK);
  assert_string_equal(listed.data, "other.example 2\n");
  assert_string_equal(listed.data, each.data);
  wn_pending_totals t1, t2;
  assert_int_equal(wn_store_pending_totals(store, &t1, &diag), WN_OK);
  assert_int_equal(wn_store_pending_totals_get(store, &t2, &diag), WN_OK);
  assert_int_equal(t1.sites, 1);
  assert_int_equal(t1.pages, 2);
  assert_int_equal(t1.sites, t2.sites);
  assert_int_equal(t1.pages, t2.pages);
  assert_int_equal(t1.bytes, t2.bytes);
  wn_collector_destroy(c);

  wn_buf_free(&listed);
  wn_buf_free(&each);
  wn_store_close(store);
  wn_test_remove_tree(dir);
}

static int setup(void **state) {
  (void)state;
  if (wn_test_temp_dir(g_tmp, sizeof g_tmp, "winnow-deprecated") != 0)
    return -1;
  return wn_init() == WN_OK ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  wn_test_remove_tree(g_tmp);
  wn_cleanup();
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_learn_algo_aliases),
      cmocka_unit_test(test_renamed_aliases),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
