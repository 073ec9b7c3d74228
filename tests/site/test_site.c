/*
 * tests/site: the public interface (include/winnow/winnow.h) and nothing
 * else, used as a front end would: options and their defaults, the site
 * rule, learning from files and by crawling a loopback server, storing,
 * detection with the template cache from two threads, batched counts and
 * the drift callback, the one JSON shape; and the unstable calls
 * (WN_UNSTABLE_API) as the evaluation tools make them.
 */
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#define WN_UNSTABLE_API /* wn_detector_set_steps */
#include <winnow/winnow.h>

#include "wn_httpd.h"
#include "wn_run.h"

#define SITE "www.harbourgazette.example"
#define PAGE(n) WN_FIXTURES "/site/article-" #n ".html"
#define CONTENT6 "Councillors voted unanimously"
#define BOILER6 "Youth rowers take regional title"

static char g_tmp[3072];

static void sleep_ms(long ms) {
  struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

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

/* Learns SITE from pages 1 to 5 and stores it. */
static void learn_site(wn_store *store) {
  const char *paths[] = {PAGE(1), PAGE(2), PAGE(3), PAGE(4), PAGE(5)};
  wn_learned *learned = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_site_learn_files(SITE, paths, 5, NULL, &learned, &diag);
  if (err)
    fail_msg("learn: %s", wn_diag_message(&diag, err));
  wn_save_info info;
  err = wn_site_save(store, learned, &info, &diag);
  if (err)
    fail_msg("save: %s", wn_diag_message(&diag, err));
  assert_true(info.generation >= 1);
  assert_true(info.record_bytes > 100);
  /* The template stored is the one encoded when it was learned. */
  wn_learn_summary sum;
  wn_learned_summary_get(learned, &sum);
  wn_site_info *si = NULL;
  assert_int_equal(wn_site_info_get(store, SITE, &si, NULL), WN_OK);
  assert_true(sum.template_bytes > 0);
  assert_int_equal(si->template_bytes, sum.template_bytes);
  assert_true(info.record_bytes > sum.template_bytes);
  wn_site_info_free(si);
  wn_learned_free(learned);
}

/* ---- options and names --------------------------------------------------------- */

static void test_defaults(void **state) {
  (void)state;
  wn_detect_options d;
  memset(&d, 0xff, sizeof d);
  wn_detect_options_init(&d);
  assert_int_equal(d.selector, WN_SELECT_SITE);
  assert_true(d.min_confidence == WN_DETECT_DEFAULT_MIN_CONFIDENCE);
  assert_int_equal(d.fallback, WN_SINGLE_DANAG);
  assert_int_equal(d.favor, WN_FAVOR_BALANCED);
  assert_int_equal(d.comments, 0);

  wn_learn_options l;
  memset(&l, 0xff, sizeof l);
  wn_learn_options_init(&l);
  assert_int_equal(l.min_count, 2);
  assert_int_equal(l.selector, WN_SELECT_SITE);
  assert_true(l.min_share == 0.5);
  assert_int_equal(l.force, 0);
  assert_int_equal(l.n, 4);
  assert_int_equal(l.max_fetches, 16);
  assert_int_equal(l.by_domain, 0);
  assert_int_equal(l.algo, WN_LEARN_ETDM);

  wn_collect_options k;
  memset(&k, 0xff, sizeof k);
  wn_collect_options_init(&k);
  assert_int_equal(k.learn.algo, WN_LEARN_ETDM);
  assert_int_equal(k.learn.min_count, 2);

  wn_crawl_options c;
  memset(&c, 0xff, sizeof c);
  wn_crawl_options_init(&c);
  assert_int_equal(c.timeout_ms, 30000);
  assert_int_equal(c.host_delay_ms, 500);
  assert_int_equal(c.max_body_bytes, 8u << 20);
  assert_int_equal(c.obey_robots, 1);

  wn_store_options s;
  memset(&s, 0xff, sizeof s);
  wn_store_options_init(&s);
  assert_int_equal(s.map_size, (size_t)1 << 30);
  assert_int_equal(s.read_only, 0);

  wn_detector_options o;
  memset(&o, 0xff, sizeof o);
  wn_detector_options_init(&o);
  assert_int_equal(o.cache_sites, 256);
  assert_int_equal(o.count, 1);
  assert_int_equal(o.flush_pages, 1000);
  assert_int_equal(o.flush_ms, 5000);
  assert_int_equal(o.drift.min_pages, 20);
  assert_true(o.drift.max_low_share == 0.25);
  assert_null(o.on_drift);
  assert_int_equal(o.max_bytes, WN_PAGE_MAX_BYTES);

  assert_string_equal(wn_version(), WN_VERSION_STRING);
  assert_int_equal(wn_exit_code(WN_OK), WN_EXIT_OK);
  assert_int_equal(wn_exit_code(WN_EPARSE), WN_EXIT_INPUT);
  assert_int_equal(wn_exit_code(WN_ENOTHTML), WN_EXIT_INPUT);
  assert_int_equal(wn_exit_code(WN_ESTORE), WN_EXIT_STORE);
  assert_int_equal(wn_exit_code(WN_ENOSPACE), WN_EXIT_STORE);
  assert_int_equal(wn_exit_code(WN_ENOMEM), WN_EXIT_INTERNAL);
}

static void test_site_names(void **state) {
  (void)state;
  static const char *const ok[][2] = {
      {"http://LOCALHOST:8765/a", "localhost:8765"},
      {"http://x.example:80/", "x.example"},
      {"https://x.example:443/p?q", "x.example"},
      {"http://x.example:443/", "x.example:443"},
      {"https://user:pw@WWW.Example.COM/", "www.example.com"},
      {"http://127.0.0.1:8766/x", "127.0.0.1:8766"},
      {"http://[::1]:8080/", "[::1]:8080"},
      /* As a crawl has them. */
      {"https://schwimmverband.at/news-artikel tx_news_pi1%5Baction%5D=detail",
       "schwimmverband.at"},
      {"https://my_host.example.com/a", "my_host.example.com"},
      {"https://b\xc3\xbc" "cher.example/x", "xn--bcher-kva.example"},
  };
  char site[WN_SITE_MAX + 1];
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    wn_diag diag = {{0}};
    wn_err err = wn_site_from_url(ok[i][0], site, sizeof site, &diag);
    if (err)
      fail_msg("%s: %s", ok[i][0], wn_diag_message(&diag, err));
    assert_string_equal(site, ok[i][1]);
    /* What the rule writes is a valid site name. */
    assert_int_equal(wn_site_check(site, NULL), WN_OK);
  }
  static const char *const bad[][2] = {{"ftp://x.example/", "ftp"},
                                       {"file:///etc/passwd", "file"},
                                       {"not a url", "not a URL"},
                                       {"", "not a URL"},
                                       {"https://ex ample.com/", "Bad hostname"},
                                       {"https://caf\xe9.example/", "no ASCII form"}};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    wn_diag diag = {{0}};
    assert_int_equal(wn_site_from_url(bad[i][0], site, sizeof site, &diag), WN_EINVAL);
    if (!strstr(diag.msg, bad[i][1]))
      fail_msg("%s: message '%s' lacks '%s'", bad[i][0], diag.msg, bad[i][1]);
  }
  static const char *const bad_names[] = {"", "WWW.example.com", "a/b", "a b", "x:", "x:abc"};
  for (size_t i = 0; i < sizeof bad_names / sizeof bad_names[0]; i++)
    assert_int_equal(wn_site_check(bad_names[i], NULL), WN_EINVAL);
}

/* ---- learn, save, info ------------------------------------------------------------ */

static void test_learn_save_info(void **state) {
  (void)state;
  char dir[PATH_MAX];
  wn_store *store = open_store("info", dir, sizeof dir);
  learn_site(store);
  wn_site_info *info = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_site_info_get(store, SITE, &info, &diag), WN_OK);
  assert_string_equal(info->site, SITE);
  assert_string_equal(info->algorithm, "etdm");
  assert_int_equal(info->format_version, 2);
  assert_int_equal(info->generation, 1);
  assert_string_equal(info->key_page, PAGE(1));
  assert_int_equal(info->from_url, 0);
  assert_int_equal(info->learn.min_count, 2);
  assert_int_equal(info->n_pages, 5);
  assert_string_equal(info->pages[4], PAGE(5));
  assert_int_equal(info->selector, WN_SELECT_PLACES);
  assert_true(info->template_nodes > 10);
  assert_int_equal(info->counts.pages, 0);
  wn_site_info_free(info);
  assert_int_equal(wn_site_info_get(store, "nowhere.example", &info, NULL), WN_ENOTEMPLATE);
  assert_int_equal(wn_site_delete(store, SITE, NULL), WN_OK);
  assert_int_equal(wn_site_delete(store, SITE, NULL), WN_ENOTEMPLATE);
  wn_store_close(store);
  wn_test_remove_tree(dir);
}

static void test_learn_refuses_unrelated(void **state) {
  (void)state;
  /* Pages of this site and one of another site's layout: that one is
   * left out, with the reason, and the others learn the template. */
  const char *paths[] = {PAGE(1), PAGE(2), PAGE(3), WN_FIXTURES "/nset-site/about.html"};
  wn_learned *learned = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_site_learn_files(SITE, paths, 4, NULL, &learned, &diag);
  if (err)
    fail_msg("%s", wn_diag_message(&diag, err));
  wn_learn_summary sum;
  wn_learned_summary_get(learned, &sum);
  assert_int_equal(sum.n_pages, 4);
  assert_int_equal(sum.n_used, 3);
  assert_true(wn_learned_page(learned, 0)->used);
  assert_false(wn_learned_page(learned, 3)->used);
  assert_true(wn_learned_page(learned, 3)->share < 0.5);
  assert_true(strlen(wn_learned_page(learned, 3)->message) > 0);
  wn_learned_free(learned);
  /* force keeps it. */
  wn_learn_options fo;
  wn_learn_options_init(&fo);
  fo.force = 1;
  assert_int_equal(wn_site_learn_files(SITE, paths, 4, &fo, &learned, NULL), WN_OK);
  wn_learned_summary_get(learned, &sum);
  assert_int_equal(sum.n_used, 4);
  wn_learned_free(learned);
  /* Pages that share nothing but the document skeleton make no template:
   * refused, with the report there for the caller. */
  const char *unrelated[] = {WN_FIXTURES "/learn-check/empty.html",
                             WN_FIXTURES "/nset-site/robots.txt"};
  wn_diag_clear(&diag);
  err = wn_site_learn_files(SITE, unrelated, 2, &fo, &learned, &diag);
  assert_int_equal(err, WN_EEMPTY);
  assert_non_null(learned);
  assert_int_equal(wn_site_save(NULL, learned, NULL, NULL), WN_EINVAL);
  wn_learned_free(learned);
  /* A page that is not HTML at all is an error naming the file. */
  const char *with_binary[] = {PAGE(1), WN_FIXTURES "/learn-check/garbage.bin"};
  wn_diag_clear(&diag);
  err = wn_site_learn_files(SITE, with_binary, 2, NULL, &learned, &diag);
  assert_int_equal(err, WN_ENOTHTML);
  assert_non_null(strstr(diag.msg, "garbage.bin"));
  wn_learned_free(learned);
  /* Bad options are refused before any work. */
  wn_learn_options lo;
  wn_learn_options_init(&lo);
  lo.min_share = 1.5;
  assert_int_equal(wn_site_learn_files(SITE, with_binary, 2, &lo, &learned, NULL), WN_EINVAL);
  assert_null(learned);
  assert_int_equal(wn_site_learn_files("Bad Site", with_binary, 2, NULL, &learned, NULL),
                   WN_EINVAL);
}

/* The algorithm is an option: wn_learn_options.algo picks FastCE for the
 * files, pages and URL calls alike, the record says so, and a value no
 * algorithm has is refused with a message before any work. */
static void test_learn_algo_option(void **state) {
  (void)state;
  const char *paths[] = {PAGE(1), PAGE(2), PAGE(3), PAGE(4), PAGE(5)};
  wn_learn_options lo;
  wn_learn_options_init(&lo);
  lo.algo = WN_LEARN_FASTCE;
  wn_learned *learned = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_site_learn_files(SITE, paths, 5, &lo, &learned, &diag);
  if (err)
    fail_msg("learn: %s", wn_diag_message(&diag, err));
  assert_int_equal(wn_learned_algo(learned), WN_LEARN_FASTCE);
  char dir[PATH_MAX];
  wn_store *store = open_store("algo", dir, sizeof dir);
  assert_int_equal(wn_site_save(store, learned, NULL, &diag), WN_OK);
  wn_learned_free(learned);
  wn_site_info *info = NULL;
  assert_int_equal(wn_site_info_get(store, SITE, &info, &diag), WN_OK);
  assert_string_equal(info->algorithm, "fastce");
  assert_int_equal(info->learn.algo, WN_LEARN_FASTCE);
  wn_site_info_free(info);
  /* Detection takes the method from the record. */
  wn_detector *d = NULL;
  assert_int_equal(wn_detector_create(store, NULL, &d, NULL), WN_OK);
  size_t len = 0;
  char *page = read_page(PAGE(6), &len);
  wn_page_input in = {.bytes = page, .len = len, .site = SITE};
  wn_page_result *r = NULL;
  assert_int_equal(wn_detector_detect(d, &in, WN_WANT_TEXT, &r, &diag), WN_OK);
  assert_string_equal(wn_page_result_method(r), "fastce");
  /* Where the page's time went: every phase measured, parsing some. */
  wn_page_times times = {-1, -1, -1, -1};
  wn_page_result_times_get(r, &times);
  assert_true(times.decode_ms >= 0 && times.parse_ms > 0 && times.detect_ms >= 0 &&
              times.render_ms >= 0);
  wn_page_result_times_get(NULL, &times);
  assert_true(times.parse_ms == 0);
  wn_page_result_free(r);
  wn_detector_destroy(d);

  /* Pages in memory, the same way; the default stays ETDM. */
  char *bytes[2];
  size_t lens[2];
  bytes[0] = read_page(PAGE(1), &lens[0]);
  bytes[1] = read_page(PAGE(2), &lens[1]);
  const char *names[] = {"one", "two"};
  assert_int_equal(wn_site_learn_pages(SITE, names, (const char *const *)bytes, lens, 2, &lo,
                                       &learned, &diag),
                   WN_OK);
  assert_int_equal(wn_learned_algo(learned), WN_LEARN_FASTCE);
  wn_learned_free(learned);
  assert_int_equal(wn_site_learn_pages(SITE, names, (const char *const *)bytes, lens, 2, NULL,
                                       &learned, &diag),
                   WN_OK);
  assert_int_equal(wn_learned_algo(learned), WN_LEARN_ETDM);
  wn_learned_free(learned);

  /* An unknown algorithm: WN_EINVAL and a message, from every call. */
  lo.algo = (wn_learn_algo)(WN_LEARN_ALGO_LAST + 1);
  wn_diag_clear(&diag);
  assert_int_equal(wn_site_learn_files(SITE, paths, 5, &lo, &learned, &diag), WN_EINVAL);
  assert_null(learned);
  assert_non_null(strstr(diag.msg, "unknown learning algorithm"));
  wn_diag_clear(&diag);
  assert_int_equal(wn_site_learn_pages(SITE, names, (const char *const *)bytes, lens, 2, &lo,
                                       &learned, &diag),
                   WN_EINVAL);
  assert_null(learned);
  assert_non_null(strstr(diag.msg, "unknown learning algorithm"));
  /* Refused before any fetch: nothing listens on the port. */
  char dead[64];
  snprintf(dead, sizeof dead, "http://127.0.0.1:%u/x.html", (unsigned)wn_httpd_unused_port());
  wn_diag_clear(&diag);
  assert_int_equal(wn_site_learn_url(dead, NULL, &lo, NULL, &learned, &diag), WN_EINVAL);
  assert_null(learned);
  assert_non_null(strstr(diag.msg, "unknown learning algorithm"));
  /* And from a collector's options. */
  wn_collect_options co;
  wn_collect_options_init(&co);
  co.learn.algo = (wn_learn_algo)-1;
  wn_collector *c = NULL;
  wn_diag_clear(&diag);
  assert_int_equal(wn_collector_create(NULL, &co, &c, &diag), WN_EINVAL);
  assert_null(c);
  assert_non_null(strstr(diag.msg, "unknown learning algorithm"));

  free(bytes[0]);
  free(bytes[1]);
  free(page);
  wn_store_close(store);
  wn_test_remove_tree(dir);
}

/* Collects the site names wn_site_each gives, one a line; stops after
 * stop_after names (0: never). */
typedef struct site_names {
  char text[512];
  int n, stop_after;
} site_names;

static int add_site_name(const char *site, void *ctx) {
  site_names *s = ctx;
  size_t used = strlen(s->text);
  snprintf(s->text + used, sizeof s->text - used, "%s\n", site);
  return ++s->n == s->stop_after;
}

/* wn_site_each: every site with a record, in name order, stopping at the
 * callback's first nonzero return; a deleted site is gone. */
static void test_site_each(void **state) {
  (void)state;
  char dir[PATH_MAX];
  wn_store *store = open_store("each", dir, sizeof dir);
  site_names names = {"", 0, 0};
  assert_int_equal(wn_site_each(store, add_site_name, &names, NULL), WN_OK);
  assert_int_equal(names.n, 0);
  const char *paths[] = {PAGE(1), PAGE(2), PAGE(3)};
  static const char *const sites[] = {"www.harbourgazette.example", "a.example:8080",
                                      "b.example"};
  for (size_t i = 0; i < 3; i++) {
    wn_learned *learned = NULL;
    wn_diag diag = {{0}};
    wn_err err = wn_site_learn_files(sites[i], paths, 3, NULL, &learned, &diag);
    if (!err)
      err = wn_site_save(store, learned, NULL, &diag);
    if (err)
      fail_msg("%s: %s", sites[i], wn_diag_message(&diag, err));
    wn_learned_free(learned);
  }
  assert_int_equal(wn_site_each(store, add_site_name, &names, NULL), WN_OK);
  assert_string_equal(names.text, "a.example:8080\nb.example\nwww.harbourgazette.example\n");
  names = (site_names){"", 0, 2};
  assert_int_equal(wn_site_each(store, add_site_name, &names, NULL), WN_OK);
  assert_string_equal(names.text, "a.example:8080\nb.example\n");
  assert_int_equal(wn_site_delete(store, "b.example", NULL), WN_OK);
  names = (site_names){"", 0, 0};
  assert_int_equal(wn_site_each(store, add_site_name, &names, NULL), WN_OK);
  assert_string_equal(names.text, "a.example:8080\nwww.harbourgazette.example\n");
  assert_int_equal(wn_site_each(NULL, add_site_name, &names, NULL), WN_EINVAL);
  wn_store_close(store);
  wn_test_remove_tree(dir);
}

/* ---- detection ------------------------------------------------------------------- */

static void test_detect_store_and_json(void **state) {
  (void)state;
  char dir[PATH_MAX];
  wn_store *store = open_store("detect", dir, sizeof dir);
  learn_site(store);
  wn_detector *d = NULL;
  assert_int_equal(wn_detector_create(store, NULL, &d, NULL), WN_OK);
  size_t len = 0;
  char *page = read_page(PAGE(6), &len);
  wn_page_input in = {.bytes = page, .len = len, .url = "https://" SITE "/news/6.html"};
  wn_page_result *r = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_detector_detect(d, &in, WN_WANT_TEXT | WN_WANT_HTML | WN_WANT_NODES, &r, &diag);
  if (err)
    fail_msg("%s", wn_diag_message(&diag, err));
  assert_string_equal(wn_page_result_site(r), SITE);
  assert_string_equal(wn_page_result_method(r), "template");
  assert_int_equal(wn_page_result_fallback(r), WN_FALLBACK_NONE);
  assert_int_equal(wn_page_result_generation(r), 1);
  assert_true(wn_page_result_confidence(r) > 0.5);
  assert_true(wn_page_result_node_count(r) >= 1);
  assert_non_null(strstr(wn_page_result_text(r, NULL), CONTENT6));
  assert_null(strstr(wn_page_result_text(r, NULL), BOILER6));
  assert_non_null(strstr(wn_page_result_html(r, NULL), "<h1"));
  char *json = NULL;
  assert_int_equal(wn_page_result_json(r, "{\"k\":1}", 0, &json, NULL), WN_OK);
  json_t *obj = json_loads(json, 0, NULL);
  assert_non_null(obj);
  const char *keys[] = {"id",      "site",    "method",         "confidence", "fallback",
                        "page_type", "charset", "charset_source", "nodes",  "text",
                        "html"};
  size_t k = 0;
  const char *key;
  json_t *value;
  json_object_foreach(obj, key, value) {
    assert_true(k < 11);
    assert_string_equal(key, keys[k++]);
  }
  assert_int_equal(k, 11);
  assert_int_equal(json_integer_value(json_object_get(json_object_get(obj, "id"), "k")), 1);
  json_decref(obj);
  free(json);
  assert_int_equal(wn_page_result_json(r, "{not json", 0, &json, NULL), WN_EINVAL);
  wn_page_result_free(r);
  /* Node paths only when asked: text alone does not pay for them. */
  assert_int_equal(wn_detector_detect(d, &in, WN_WANT_TEXT, &r, NULL), WN_OK);
  assert_int_equal(wn_page_result_node_count(r), 0);
  assert_int_equal(wn_page_result_json(r, NULL, 0, &json, NULL), WN_OK);
  assert_null(strstr(json, "\"nodes\""));
  assert_null(strstr(json, "\"html\""));
  free(json);
  wn_page_result_free(r);

  /* Not HTML: an error for this page only; the detector goes on. */
  static const char gzip[] = "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03junkjunk";
  wn_page_input bin = {.bytes = gzip, .len = sizeof gzip - 1, .site = SITE};
  wn_diag_clear(&diag);
  assert_int_equal(wn_detector_detect(d, &bin, WN_WANT_TEXT, &r, &diag), WN_ENOTHTML);
  assert_non_null(strstr(diag.msg, "gzip"));
  /* An empty page: empty text and HTML, no error. */
  wn_page_input empty = {.bytes = "", .len = 0, .site = SITE};
  assert_int_equal(wn_detector_detect(d, &empty, WN_WANT_TEXT | WN_WANT_HTML, &r, NULL), WN_OK);
  size_t tl = 1, hl = 1;
  wn_page_result_text(r, &tl);
  wn_page_result_html(r, &hl);
  assert_int_equal(tl, 0);
  assert_int_equal(hl, 0);
  wn_page_result_free(r);
  /* No site and no URL: the single-page method. */
  wn_page_input nosite = {.bytes = page, .len = len};
  assert_int_equal(wn_detector_detect(d, &nosite, WN_WANT_TEXT, &r, NULL), WN_OK);
  assert_null(wn_page_result_site(r));
  assert_null(wn_page_result_site_error(r));
  assert_string_equal(wn_page_result_method(r), "danag");
  assert_int_equal(wn_page_result_fallback(r), WN_FALLBACK_NO_TEMPLATE);
  wn_page_result_free(r);

  /* A space in the URL's path: the site is still its host, and
   * its template serves the page. */
  wn_page_input spaced = {.bytes = page, .len = len, .url = "https://" SITE "/news/6 x.html?a b"};
  assert_int_equal(wn_detector_detect(d, &spaced, WN_WANT_TEXT, &r, NULL), WN_OK);
  assert_string_equal(wn_page_result_site(r), SITE);
  assert_null(wn_page_result_site_error(r));
  assert_string_equal(wn_page_result_method(r), "template");
  wn_page_result_free(r);
  /* A URL that names no site: the page is still served, without a site,
   * and the result says why; in JSON right after "site". The message
   * quotes a host that is not UTF-8 with '?' for its byte. */
  static const char *const unnamed[][2] = {
      {"https://www.harbour gazette.example/news/6.html", "Bad hostname"},
      {"https://caf\xe9.example/", "url: host 'caf?.example' has no ASCII form"},
      {"gopher://" SITE "/", "gopher URLs are not supported"}};
  for (size_t i = 0; i < sizeof unnamed / sizeof unnamed[0]; i++) {
    wn_page_input bad = {.bytes = page, .len = len, .url = unnamed[i][0]};
    wn_diag_clear(&diag);
    err = wn_detector_detect(d, &bad, WN_WANT_TEXT, &r, &diag);
    if (err)
      fail_msg("%s: %s", unnamed[i][0], wn_diag_message(&diag, err));
    assert_null(wn_page_result_site(r));
    const char *why = wn_page_result_site_error(r);
    assert_non_null(why);
    if (!strstr(why, unnamed[i][1]))
      fail_msg("%s: site error '%s' lacks '%s'", unnamed[i][0], why, unnamed[i][1]);
    assert_string_equal(wn_page_result_method(r), "danag");
    assert_non_null(strstr(wn_page_result_text(r, NULL), CONTENT6));
    assert_int_equal(wn_page_result_json(r, NULL, 0, &json, &diag), WN_OK);
    obj = json_loads(json, 0, NULL);
    assert_non_null(obj);
    void *it = json_object_iter(obj);
    assert_string_equal(json_object_iter_key(it), "site");
    assert_true(json_is_null(json_object_iter_value(it)));
    it = json_object_iter_next(obj, it);
    assert_string_equal(json_object_iter_key(it), "site_error");
    assert_string_equal(json_string_value(json_object_iter_value(it)), why);
    json_decref(obj);
    free(json);
    wn_page_result_free(r);
  }
  /* A site given that is not a site name stays an error: the caller
   * named it. */
  wn_page_input bad_site = {.bytes = page, .len = len, .site = "Not A Site"};
  assert_int_equal(wn_detector_detect(d, &bad_site, WN_WANT_TEXT, &r, NULL), WN_EINVAL);
  wn_detector_destroy(d);
  free(page);
  wn_store_close(store);
  wn_test_remove_tree(dir);
}

typedef struct worker {
  wn_store *store;
  int pages;
  int template_hits;
  int content_ok;
  wn_err err;
} worker;

static void *worker_run(void *arg) {
  worker *w = arg;
  wn_detector *d = NULL;
  wn_detector_options o;
  wn_detector_options_init(&o);
  o.cache_sites = 2;      /* tiny: evictions happen */
  o.flush_pages = 7;      /* counts written while the workers run */
  w->err = wn_detector_create(w->store, &o, &d, NULL);
  if (w->err)
    return NULL;
  size_t len6 = 0, len7 = 0;
  char *p6 = NULL, *p7 = NULL;
  wn_file_read(PAGE(6), WN_PAGE_MAX_BYTES, &p6, &len6, NULL);
  wn_file_read(PAGE(7), WN_PAGE_MAX_BYTES, &p7, &len7, NULL);
  static const char *const sites[] = {SITE, "other-1.example", "other-2.example"};
  for (int i = 0; i < 60 && !w->err; i++) {
    int first = i % 2 == 0;
    wn_page_input in = {.bytes = first ? p6 : p7, .len = first ? len6 : len7,
                        .site = sites[i % 3]};
    wn_page_result *r = NULL;
    w->err = wn_detector_detect(d, &in, WN_WANT_TEXT, &r, NULL);
    if (w->err)
      break;
    w->pages++;
    if (i % 3 == 0) {
      w->template_hits += strcmp(wn_page_result_method(r), "template") == 0;
      w->content_ok += !first || strstr(wn_page_result_text(r, NULL), CONTENT6) != NULL;
    }
    wn_page_result_free(r);
  }
  free(p6);
  free(p7);
  wn_detector_destroy(d);
  return NULL;
}

static void test_detect_two_threads(void **state) {
  (void)state;
  char dir[PATH_MAX];
  wn_store *store = open_store("threads", dir, sizeof dir);
  learn_site(store);
  worker w[2] = {{.store = store}, {.store = store}};
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    assert_int_equal(pthread_create(&t[i], NULL, worker_run, &w[i]), 0);
  for (int i = 0; i < 2; i++)
    assert_int_equal(pthread_join(t[i], NULL), 0);
  for (int i = 0; i < 2; i++) {
    assert_int_equal(w[i].err, WN_OK);
    assert_int_equal(w[i].pages, 60);
    assert_int_equal(w[i].template_hits, 20);
    assert_int_equal(w[i].content_ok, 20);
  }
  /* Every template detection was counted, none twice, across evictions,
   * periodic flushes and the final one. */
  wn_site_info *info = NULL;
  assert_int_equal(wn_site_info_get(store, SITE, &info, NULL), WN_OK);
  assert_int_equal(info->counts.pages, 40);
  assert_int_equal(info->counts.low, 0);
  wn_site_info_free(info);
  wn_store_close(store);
  wn_test_remove_tree(dir);
}

typedef struct drift_log {
  int calls;
  char site[WN_SITE_MAX + 1];
  uint32_t recent_pages;
} drift_log;

static void on_drift(const wn_drift_event *ev, void *ctx) {
  drift_log *log = ctx;
  log->calls++;
  snprintf(log->site, sizeof log->site, "%s", ev->site);
  log->recent_pages = ev->counts.recent_pages;
}

static void test_drift_callback(void **state) {
  (void)state;
  char dir[PATH_MAX];
  wn_store *store = open_store("drift", dir, sizeof dir);
  learn_site(store);
  drift_log log = {0};
  wn_detector_options o;
  wn_detector_options_init(&o);
  /* Every page "fits badly" (no page reaches confidence 1 exactly). */
  o.detect.min_confidence = 1.0;
  o.flush_pages = 5;
  o.on_drift = on_drift;
  o.drift_ctx = &log;
  wn_detector *d = NULL;
  assert_int_equal(wn_detector_create(store, &o, &d, NULL), WN_OK);
  size_t len = 0;
  char *page = read_page(PAGE(7), &len);
  wn_page_input in = {.bytes = page, .len = len, .site = SITE};
  for (int i = 0; i < 19; i++) {
    wn_page_result *r = NULL;
    assert_int_equal(wn_detector_detect(d, &in, WN_WANT_TEXT, &r, NULL), WN_OK);
    assert_int_equal(wn_page_result_fallback(r), WN_FALLBACK_LOW_CONFIDENCE);
    wn_page_result_free(r);
  }
  /* Below the policy's 20 pages: no drift yet. */
  assert_int_equal(log.calls, 0);
  for (int i = 0; i < 21; i++) {
    wn_page_result *r = NULL;
    assert_int_equal(wn_detector_detect(d, &in, WN_WANT_TEXT, &r, NULL), WN_OK);
    if (i == 20) {
      wn_site_counts c;
      int drifting = 0;
      assert_int_equal(wn_page_result_counts_get(r, &c, &drifting), 1);
      assert_true(drifting);
      assert_int_equal(c.low, c.pages);
    }
    wn_page_result_free(r);
  }
  /* Reported once, however many pages after. */
  assert_int_equal(log.calls, 1);
  assert_string_equal(log.site, SITE);
  assert_true(log.recent_pages >= 20);
  wn_detector_destroy(d);
  free(page);
  wn_store_close(store);
  wn_test_remove_tree(dir);
}

static void test_relearned_template_seen(void **state) {
  (void)state;
  char dir[PATH_MAX];
  wn_store *store = open_store("relearn", dir, sizeof dir);
  learn_site(store);
  wn_detector_options o;
  wn_detector_options_init(&o);
  o.max_age_ms = 1;
  wn_detector *d = NULL;
  assert_int_equal(wn_detector_create(store, &o, &d, NULL), WN_OK);
  size_t len = 0;
  char *page = read_page(PAGE(7), &len);
  wn_page_input in = {.bytes = page, .len = len, .site = SITE};
  wn_page_result *r = NULL;
  assert_int_equal(wn_detector_detect(d, &in, WN_WANT_TEXT, &r, NULL), WN_OK);
  assert_int_equal(wn_page_result_generation(r), 1);
  wn_page_result_free(r);
  /* Aged but unchanged: the same template serves on. */
  sleep_ms(3);
  assert_int_equal(wn_detector_detect(d, &in, WN_WANT_TEXT, &r, NULL), WN_OK);
  assert_int_equal(wn_page_result_generation(r), 1);
  wn_page_result_free(r);
  /* Relearned meanwhile (another process could have done it): the running
   * detector picks up the new generation once its copy has aged. */
  learn_site(store);
  sleep_ms(3);
  assert_int_equal(wn_detector_detect(d, &in, WN_WANT_TEXT, &r, NULL), WN_OK);
  assert_int_equal(wn_page_result_generation(r), 2);
  assert_string_equal(wn_page_result_method(r), "template");
  wn_page_result_free(r);
  wn_detector_destroy(d);
  free(page);
  wn_store_close(store);
  wn_test_remove_tree(dir);
}

static void test_learn_url_and_use(void **state) {
  (void)state;
  wn_httpd *srv = wn_httpd_start(WN_FIXTURES "/nset-site");
  assert_non_null(srv);
  char url[256], want_site[64];
  wn_httpd_url(srv, "/news/2015/article-7.html", url, sizeof url);
  snprintf(want_site, sizeof want_site, "127.0.0.1:%u", (unsigned)wn_httpd_port(srv));
  wn_learn_options lo;
  wn_learn_options_init(&lo);
  lo.n = 3;
  wn_crawl_options co;
  wn_crawl_options_init(&co);
  co.host_delay_ms = 0;
  wn_learned *learned = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_site_learn_url(url, NULL, &lo, &co, &learned, &diag);
  if (err)
    fail_msg("%s", wn_diag_message(&diag, err));
  wn_learn_summary sum;
  wn_learned_summary_get(learned, &sum);
  assert_int_equal(wn_learned_algo(learned), WN_LEARN_ETDM);
  assert_string_equal(sum.site, want_site);
  assert_string_equal(sum.key_page, url);
  assert_int_equal(sum.from_url, 1);
  assert_int_equal(sum.n_used, 4);
  assert_true(sum.n_pages >= sum.n_used);
  assert_true(sum.wait_ms >= 0.0 && sum.network_ms >= 0.0);
  /* Detection without a store: the learned template, used directly. */
  wn_detector *d = NULL;
  assert_int_equal(wn_detector_create(NULL, NULL, &d, NULL), WN_OK);
  assert_int_equal(wn_detector_use(d, learned, NULL), WN_OK);
  wn_learned_free(learned); /* the detector keeps its own copy */
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s", WN_FIXTURES "/nset-site/news/2015/article-8.html");
  size_t len = 0;
  char *page = read_page(path, &len);
  char page_url[256];
  wn_httpd_url(srv, "/news/2015/article-8.html", page_url, sizeof page_url);
  wn_page_input in = {.bytes = page, .len = len, .url = page_url};
  wn_page_result *r = NULL;
  assert_int_equal(wn_detector_detect(d, &in, WN_WANT_TEXT, &r, NULL), WN_OK);
  assert_string_equal(wn_page_result_site(r), want_site);
  assert_string_equal(wn_page_result_method(r), "template");
  wn_page_result_free(r);
  wn_detector_destroy(d);
  free(page);
  /* The crawl learns with the algorithm the options name. */
  lo.algo = WN_LEARN_FASTCE;
  err = wn_site_learn_url(url, NULL, &lo, &co, &learned, &diag);
  if (err)
    fail_msg("%s", wn_diag_message(&diag, err));
  assert_int_equal(wn_learned_algo(learned), WN_LEARN_FASTCE);
  wn_learned_free(learned);
  lo.algo = WN_LEARN_ETDM;
  /* Unreachable: a network error that says so, and no report of pages. */
  char dead[64];
  snprintf(dead, sizeof dead, "http://127.0.0.1:%u/x.html", (unsigned)wn_httpd_unused_port());
  co.timeout_ms = 2000;
  wn_diag_clear(&diag);
  err = wn_site_learn_url(dead, NULL, &lo, &co, &learned, &diag);
  assert_int_equal(err, WN_ENET);
  assert_non_null(strstr(diag.msg, "could not connect"));
  wn_learned_free(learned);
  wn_httpd_stop(srv);
}

/* The text a detector gives for PAGE(6) under SITE, malloc'd. */
static char *detect_six(wn_detector *d) {
  size_t len = 0;
  char *page = read_page(PAGE(6), &len);
  wn_page_input in = {.bytes = page, .len = len, .site = SITE};
  wn_page_result *r = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_detector_detect(d, &in, WN_WANT_TEXT, &r, &diag);
  if (err)
    fail_msg("detect: %s", wn_diag_message(&diag, err));
  char *text = strdup(wn_page_result_text(r, NULL));
  assert_non_null(text);
  wn_page_result_free(r);
  free(page);
  return text;
}

/* The unstable steps: 0 or an explicit set of known bits; an explicit set
 * changes what the single-page method keeps (the paper's method as stated
 * keeps no headline) and nothing a template serves. */
static void test_detector_steps(void **state) {
  (void)state;
  wn_detector *d = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_detector_set_steps(NULL, 0, &diag), WN_EINVAL);
  assert_int_equal(wn_detector_create(NULL, NULL, &d, NULL), WN_OK);
  wn_diag_clear(&diag);
  assert_int_equal(wn_detector_set_steps(d, 0x1u, &diag), WN_EINVAL); /* no set bit */
  assert_non_null(strstr(diag.msg, "steps"));
  assert_int_equal(wn_detector_set_steps(d, 0x80000000u | 0x10000u, NULL), WN_EINVAL);
  char *dflt = detect_six(d);
  assert_int_equal(wn_detector_set_steps(d, 0x80000000u, &diag), WN_OK);
  char *paper = detect_six(d);
  assert_string_not_equal(dflt, paper);
  assert_int_equal(wn_detector_set_steps(d, 0, &diag), WN_OK);
  char *again = detect_six(d);
  assert_string_equal(dflt, again);
  free(dflt);
  free(paper);
  free(again);
  /* A template serves the page: the steps do not matter. */
  const char *paths[] = {PAGE(1), PAGE(2), PAGE(3), PAGE(4), PAGE(5)};
  wn_learned *learned = NULL;
  assert_int_equal(wn_site_learn_files(SITE, paths, 5, NULL, &learned, &diag), WN_OK);
  assert_int_equal(wn_detector_use(d, learned, &diag), WN_OK);
  wn_learned_free(learned);
  dflt = detect_six(d);
  assert_int_equal(wn_detector_set_steps(d, 0x80000000u, &diag), WN_OK);
  paper = detect_six(d);
  assert_string_equal(dflt, paper);
  assert_non_null(strstr(dflt, CONTENT6));
  free(dflt);
  free(paper);
  wn_detector_destroy(d);
}

static int setup(void **state) {
  (void)state;
  if (wn_test_temp_dir(g_tmp, sizeof g_tmp, "winnow-site") != 0)
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
      cmocka_unit_test(test_defaults),
      cmocka_unit_test(test_site_names),
      cmocka_unit_test(test_learn_save_info),
      cmocka_unit_test(test_learn_refuses_unrelated),
      cmocka_unit_test(test_learn_algo_option),
      cmocka_unit_test(test_site_each),
      cmocka_unit_test(test_detect_store_and_json),
      cmocka_unit_test(test_detect_two_threads),
      cmocka_unit_test(test_drift_callback),
      cmocka_unit_test(test_relearned_template_seen),
      cmocka_unit_test(test_learn_url_and_use),
      cmocka_unit_test(test_detector_steps),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
