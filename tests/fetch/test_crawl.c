/*
 * tests/fetch/test_crawl.c: the fetcher against a real HTTP server on
 * loopback (tests/support/wn_httpd.h) serving tests/fixtures/crawl/.
 * Timing is read from the server's request log, so the politeness
 * asserts measure what the server saw, not what the client meant to do.
 */
#include "wn_test.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "fetch/fetch.h"
#include "wn_httpd.h"

#define CRAWL_FIXTURES WN_FIXTURES "/crawl"

/* Options for fast tests: no host delay unless a test sets one. */
static wn_crawl_options fast_options(void) {
  wn_crawl_options o;
  wn_crawl_options_init(&o);
  o.host_delay_ms = 0;
  o.connect_timeout_ms = 2000;
  o.timeout_ms = 10000;
  return o;
}

static wn_httpd *start(const char *dir) {
  char root[512];
  snprintf(root, sizeof root, "%s/%s", CRAWL_FIXTURES, dir);
  wn_httpd *srv = wn_httpd_start(root);
  assert_non_null(srv);
  return srv;
}

static wn_crawl *crawl_new(const wn_crawl_options *o) {
  wn_crawl *crawl = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_crawl_create(o, &crawl, &diag);
  if (err)
    fail_msg("%s", wn_diag_message(&diag, err));
  return crawl;
}

/* Fetches n paths of srv (as URLs on host, NULL: 127.0.0.1). */
static void fetch_paths(wn_crawl *crawl, const wn_httpd *srv, const char *host,
                        const char *const *paths, size_t n, wn_fetch *out) {
  char urls[16][256];
  const char *ptrs[16];
  assert_true(n <= 16);
  for (size_t i = 0; i < n; i++) {
    assert_int_equal(wn_httpd_url_host(srv, host ? host : "127.0.0.1", paths[i], urls[i],
                                       sizeof urls[i]),
                     0);
    ptrs[i] = urls[i];
  }
  wn_diag diag = {{0}};
  wn_err err = wn_crawl_fetch(crawl, ptrs, n, out, &diag);
  if (err)
    fail_msg("batch failed: %s", wn_diag_message(&diag, err));
}

static void fetch_one(wn_crawl *crawl, const wn_httpd *srv, const char *path, wn_fetch *out) {
  fetch_paths(crawl, srv, NULL, &path, 1, out);
}

static void expect_err(const wn_fetch *f, wn_err want) {
  if (f->err != want)
    fail_msg("%s: got %s (%s), want %s", f->url, wn_strerror_name(f->err), f->message,
             wn_strerror_name(want));
}

static char *fixture_bytes(const char *rel, size_t *len) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", CRAWL_FIXTURES, rel);
  return wn_test_read(path, len);
}

/* ---- robots.txt -------------------------------------------------------------- */

static void test_pages_and_robots(void **state) {
  (void)state;
  wn_httpd *srv = start("site");
  wn_crawl_options o = fast_options();
  wn_crawl *crawl = crawl_new(&o);
  static const char *const paths[] = {"/index.html", "/page.html", "/private/secret.html",
                                      "/notes.draft.html"};
  wn_fetch out[4];
  fetch_paths(crawl, srv, NULL, paths, 4, out);

  expect_err(&out[0], WN_OK);
  size_t len = 0;
  char *want = fixture_bytes("site/index.html", &len);
  assert_int_equal(out[0].body_len, len);
  assert_memory_equal(out[0].body, want, len);
  free(want);
  assert_int_equal(out[0].http_status, 200);
  assert_string_equal(out[0].media_type, "text/html");
  assert_string_equal(out[0].charset, "");
  assert_non_null(out[0].final_url);
  assert_non_null(strstr(out[0].final_url, "/index.html"));
  expect_err(&out[1], WN_OK);

  expect_err(&out[2], WN_EROBOTS);
  assert_null(out[2].body);
  assert_non_null(strstr(out[2].message, "/private/secret.html"));
  expect_err(&out[3], WN_EROBOTS);
  /* Refused pages are never asked for. */
  assert_int_equal(wn_httpd_requests(srv, "/private/secret.html"), 0);
  assert_int_equal(wn_httpd_requests(srv, "/notes.draft.html"), 0);

  /* robots.txt once for the crawl's life, across batches. */
  assert_int_equal(wn_httpd_requests(srv, "/robots.txt"), 1);
  for (size_t i = 0; i < 4; i++)
    wn_fetch_clear(&out[i]);
  fetch_one(crawl, srv, "/page.html", &out[0]);
  expect_err(&out[0], WN_OK);
  assert_int_equal(wn_httpd_requests(srv, "/robots.txt"), 1);
  assert_int_equal(wn_httpd_requests(srv, "/page.html"), 2);
  wn_fetch_clear(&out[0]);
  assert_null(out[0].url);

  /* The robots.txt request comes before the first page. */
  uint64_t robots_at = 0, page_at = 0;
  wn_httpd_request_times(srv, NULL, "/robots.txt", &robots_at, 1);
  wn_httpd_request_times(srv, NULL, "/index.html", &page_at, 1);
  assert_true(robots_at <= page_at);
  wn_crawl_destroy(crawl);
  wn_httpd_stop(srv);
}

static void test_robots_once_per_host(void **state) {
  (void)state;
  wn_httpd *srv = start("site");
  wn_crawl_options o = fast_options();
  wn_crawl *crawl = crawl_new(&o);
  static const char *const paths[] = {"/index.html", "/page.html", "/index.html"};
  wn_fetch a[3], b[3];
  fetch_paths(crawl, srv, "127.0.0.1", paths, 3, a);
  fetch_paths(crawl, srv, "localhost", paths, 3, b);
  for (size_t i = 0; i < 3; i++) {
    expect_err(&a[i], WN_OK);
    expect_err(&b[i], WN_OK);
    wn_fetch_clear(&a[i]);
    wn_fetch_clear(&b[i]);
  }
  assert_int_equal(wn_httpd_request_times(srv, "127.0.0.1", "/robots.txt", NULL, 0), 1);
  assert_int_equal(wn_httpd_request_times(srv, "localhost", "/robots.txt", NULL, 0), 1);
  assert_int_equal(wn_httpd_request_times(srv, "localhost", "/index.html", NULL, 0), 2);
  wn_crawl_destroy(crawl);
  wn_httpd_stop(srv);
}

static void test_robots_404_allows(void **state) {
  (void)state;
  wn_httpd *srv = start("norobots");
  wn_crawl_options o = fast_options();
  wn_crawl *crawl = crawl_new(&o);
  wn_fetch f;
  fetch_one(crawl, srv, "/a.html", &f);
  expect_err(&f, WN_OK);
  assert_non_null(strstr(f.body, "page a"));
  assert_int_equal(wn_httpd_requests(srv, "/robots.txt"), 1);
  wn_fetch_clear(&f);
  wn_crawl_destroy(crawl);
  wn_httpd_stop(srv);
}

static void test_robots_503_disallows(void **state) {
  (void)state;
  wn_httpd *srv = start("robots503");
  wn_crawl_options o = fast_options();
  wn_crawl *crawl = crawl_new(&o);
  static const char *const paths[] = {"/a.html", "/b.html"};
  wn_fetch f[2];
  fetch_paths(crawl, srv, NULL, paths, 2, f);
  for (size_t i = 0; i < 2; i++) {
    expect_err(&f[i], WN_EROBOTS);
    assert_non_null(strstr(f[i].message, "503"));
    wn_fetch_clear(&f[i]);
  }
  assert_int_equal(wn_httpd_requests(srv, "/robots.txt"), 1);
  assert_int_equal(wn_httpd_requests(srv, "/a.html"), 0);
  assert_int_equal(wn_httpd_requests(srv, "/b.html"), 0);
  wn_crawl_destroy(crawl);

  /* Told not to obey, the crawler neither asks for robots.txt nor heeds it. */
  wn_httpd_log_clear(srv);
  o.obey_robots = 0;
  crawl = crawl_new(&o);
  fetch_one(crawl, srv, "/a.html", &f[0]);
  expect_err(&f[0], WN_OK);
  wn_fetch_clear(&f[0]);
  assert_int_equal(wn_httpd_requests(srv, "/robots.txt"), 0);
  wn_crawl_destroy(crawl);
  wn_httpd_stop(srv);
}

/* ---- politeness timing ------------------------------------------------------- */

/* The request times of paths, in the order given. */
static void times_of(wn_httpd *srv, const char *const *paths, size_t n, uint64_t *t) {
  for (size_t i = 0; i < n; i++)
    assert_int_equal(wn_httpd_request_times(srv, NULL, paths[i], &t[i], 1), 1);
}

static void test_crawl_delay(void **state) {
  (void)state;
  wn_httpd *srv = start("delay"); /* Crawl-delay: 0.4 for winnow */
  wn_crawl_options o = fast_options();
  o.host_delay_ms = 20;
  wn_crawl *crawl = crawl_new(&o);
  static const char *const paths[] = {"/robots.txt", "/a.html", "/b.html", "/c.html"};
  wn_fetch f[3];
  fetch_paths(crawl, srv, NULL, paths + 1, 3, f);
  uint64_t t[4];
  times_of(srv, paths, 4, t);
  /* Every start is at least Crawl-delay after the one before (0.9 of it,
   * for clock granularity), by the crawler's own clock: queued_ms is when
   * it started each request, from the batch's start. The server's clock
   * sees the same order, but a request it handles late (a loaded machine)
   * shortens the gap after it, so there only the order and half the
   * delay are checked: a crawler that ignored the delay fails both. */
  for (size_t i = 1; i < 3; i++)
    if (f[i].queued_ms < f[i - 1].queued_ms + 360)
      fail_msg("%s started %lld ms after %s; Crawl-delay is 400 ms", paths[i + 1],
               (long long)f[i].queued_ms - (long long)f[i - 1].queued_ms, paths[i]);
  for (size_t i = 1; i < 4; i++) {
    if (t[i] < t[i - 1] || t[i] - t[i - 1] < 200)
      fail_msg("%s came %lld ms after %s; Crawl-delay is 400 ms", paths[i],
               (long long)(t[i] - t[i - 1]), paths[i - 1]);
  }
  for (size_t i = 0; i < 3; i++) {
    expect_err(&f[i], WN_OK);
    wn_fetch_clear(&f[i]);
  }
  /* The last page waited for two gaps before its start. */
  wn_crawl_destroy(crawl);

  /* max_crawl_delay_ms caps what robots.txt may ask for. */
  wn_httpd_log_clear(srv);
  o.max_crawl_delay_ms = 100;
  crawl = crawl_new(&o);
  uint64_t before = wn_httpd_now_ms();
  fetch_paths(crawl, srv, NULL, paths + 1, 3, f);
  uint64_t took = wn_httpd_now_ms() - before;
  times_of(srv, paths, 4, t);
  /* The cap is still a delay, by the crawler's clock (the server's sees
   * the order only, as above). */
  for (size_t i = 1; i < 3; i++)
    if (f[i].queued_ms < f[i - 1].queued_ms + 90)
      fail_msg("%s started %lld ms after %s; the capped delay is 100 ms", paths[i + 1],
               (long long)f[i].queued_ms - (long long)f[i - 1].queued_ms, paths[i]);
  for (size_t i = 1; i < 4; i++)
    if (t[i] < t[i - 1])
      fail_msg("%s came before %s", paths[i], paths[i - 1]);
  /* Three gaps of 100 ms: a crawler that kept robots.txt's 400 ms would
   * take three of 400 at least, however quiet the machine. */
  if (took >= 1200)
    fail_msg("capped batch took %llu ms", (unsigned long long)took);
  for (size_t i = 0; i < 3; i++) {
    expect_err(&f[i], WN_OK);
    wn_fetch_clear(&f[i]);
  }
  wn_crawl_destroy(crawl);
  wn_httpd_stop(srv);
}

static void test_host_delay(void **state) {
  (void)state;
  wn_httpd *srv = start("norobots");
  wn_crawl_options o = fast_options();
  o.host_delay_ms = 250;
  o.obey_robots = 0;
  wn_crawl *crawl = crawl_new(&o);
  static const char *const paths[] = {"/a.html", "/b.html", "/c.html"};
  wn_fetch f[3];
  fetch_paths(crawl, srv, NULL, paths, 3, f);
  uint64_t t[3];
  times_of(srv, paths, 3, t);
  /* As above: the crawler's clock for the delay, the server's for the
   * order and half of it. */
  for (size_t i = 1; i < 3; i++) {
    if (f[i].queued_ms < f[i - 1].queued_ms + 225)
      fail_msg("%s started %lld ms after %s; host delay is 250 ms", paths[i],
               (long long)f[i].queued_ms - (long long)f[i - 1].queued_ms, paths[i - 1]);
    if (t[i] < t[i - 1] || t[i] - t[i - 1] < 125)
      fail_msg("%s came %lld ms after %s; host delay is 250 ms", paths[i],
               (long long)(t[i] - t[i - 1]), paths[i - 1]);
  }
  /* queued_ms says how long politeness held each request back. */
  assert_true(f[0].queued_ms < 200);
  assert_true(f[2].queued_ms >= 450);
  /* The crawl counts that wait apart from the network's: two gaps of 250
   * ms with nothing in flight (the loopback answers within them). */
  if (wn_crawl_waited_ms(crawl) < 400 || wn_crawl_waited_ms(crawl) > 2000)
    fail_msg("waited %.1f ms for two 250 ms gaps", wn_crawl_waited_ms(crawl));
  for (size_t i = 0; i < 3; i++) {
    expect_err(&f[i], WN_OK);
    wn_fetch_clear(&f[i]);
  }

  /* Another host is not held back by this one's delay. */
  wn_crawl_destroy(crawl);
  crawl = crawl_new(&o);
  wn_httpd_log_clear(srv);
  static const char *const two[] = {"/a.html", "/b.html"};
  char u1[128], u2[128];
  wn_httpd_url_host(srv, "127.0.0.1", two[0], u1, sizeof u1);
  wn_httpd_url_host(srv, "localhost", two[1], u2, sizeof u2);
  const char *urls[] = {u1, u2};
  assert_int_equal(wn_crawl_fetch(crawl, urls, 2, f, NULL), WN_OK);
  expect_err(&f[0], WN_OK);
  expect_err(&f[1], WN_OK);
  times_of(srv, two, 2, t);
  uint64_t gap = t[1] > t[0] ? t[1] - t[0] : t[0] - t[1];
  if (gap >= 200)
    fail_msg("two hosts were spaced %llu ms apart", (unsigned long long)gap);
  assert_true(wn_crawl_waited_ms(crawl) < 100);
  wn_fetch_clear(&f[0]);
  wn_fetch_clear(&f[1]);
  wn_crawl_destroy(crawl);
  wn_httpd_stop(srv);
}

static void test_host_parallel(void **state) {
  (void)state;
  wn_httpd *srv = start("norobots");
  wn_crawl_options o = fast_options();
  o.obey_robots = 0;
  o.host_parallel = 1;
  wn_crawl *crawl = crawl_new(&o);
  static const char *const paths[] = {"/__slow/300", "/__slow/301"};
  wn_fetch f[2];
  fetch_paths(crawl, srv, NULL, paths, 2, f);
  uint64_t t[2];
  times_of(srv, paths, 2, t);
  /* One at a time: the second starts when the first has answered. */
  assert_true(t[1] >= t[0] + 270);
  for (size_t i = 0; i < 2; i++) {
    expect_err(&f[i], WN_OK);
    assert_true(f[i].fetch_ms >= 280);
    wn_fetch_clear(&f[i]);
  }
  wn_crawl_destroy(crawl);

  wn_httpd_log_clear(srv);
  o.host_parallel = 2;
  crawl = crawl_new(&o);
  fetch_paths(crawl, srv, NULL, paths, 2, f);
  times_of(srv, paths, 2, t);
  assert_true(t[1] < t[0] + 200); /* both at once */
  for (size_t i = 0; i < 2; i++) {
    expect_err(&f[i], WN_OK);
    wn_fetch_clear(&f[i]);
  }
  wn_crawl_destroy(crawl);
  wn_httpd_stop(srv);
}

/* ---- outcomes ------------------------------------------------------------------ */

static void test_redirects(void **state) {
  (void)state;
  wn_httpd *srv = start("site");
  wn_crawl_options o = fast_options();
  wn_crawl *crawl = crawl_new(&o);
  static const char *const paths[] = {"/__redirect/3", "/moved.html", "/__loop",
                                      "/__redirect/6", "/__redirect/5"};
  wn_fetch f[5];
  fetch_paths(crawl, srv, NULL, paths, 5, f);
  expect_err(&f[0], WN_OK);
  assert_non_null(strstr(f[0].final_url, "/__redirect/0"));
  assert_non_null(strstr(f[0].body, "redirect end"));
  expect_err(&f[1], WN_OK);
  assert_non_null(strstr(f[1].final_url, "/page.html"));
  assert_non_null(strstr(f[1].body, "An ordinary page"));
  assert_non_null(strstr(f[1].url, "/moved.html")); /* as asked */
  expect_err(&f[2], WN_EREDIRECT);
  assert_non_null(strstr(f[2].message, "redirects"));
  /* A loop is cut after max_redirects + 1 requests. */
  assert_int_equal(wn_httpd_requests(srv, "/__loop"), 6);
  expect_err(&f[3], WN_EREDIRECT);
  expect_err(&f[4], WN_OK); /* exactly five is allowed */
  for (size_t i = 0; i < 5; i++)
    wn_fetch_clear(&f[i]);
  wn_crawl_destroy(crawl);

  o.max_redirects = 0;
  crawl = crawl_new(&o);
  fetch_one(crawl, srv, "/moved.html", &f[0]);
  expect_err(&f[0], WN_EREDIRECT);
  wn_fetch_clear(&f[0]);
  wn_crawl_destroy(crawl);
  wn_httpd_stop(srv);
}

/* Every hop of a redirect is a request of its own: the target origin's
 * robots.txt is fetched (once) and obeyed, and a redirect into a
 * disallowed path is refused like a link to it. */
static void test_redirect_robots(void **state) {
  (void)state;
  wn_httpd *srv = start("site");
  wn_crawl_options o = fast_options();
  wn_crawl *crawl = crawl_new(&o);
  static const char *const paths[] = {"/__to/localhost/page.html",
                                      "/__to/localhost/private/secret.html",
                                      "/__to/127.0.0.1/private/secret.html"};
  wn_fetch f[3];
  fetch_paths(crawl, srv, NULL, paths, 3, f);
  expect_err(&f[0], WN_OK);
  assert_non_null(strstr(f[0].final_url, "http://localhost:"));
  assert_non_null(strstr(f[0].body, "An ordinary page"));
  expect_err(&f[1], WN_EROBOTS);
  assert_non_null(strstr(f[1].message, "robots.txt disallows /private/secret.html"));
  expect_err(&f[2], WN_EROBOTS);
  /* One robots.txt per origin: 127.0.0.1 for the first hops, localhost
   * for the targets; the disallowed page itself was never asked for. */
  assert_int_equal(wn_httpd_request_times(srv, "127.0.0.1", "/robots.txt", NULL, 0), 1);
  assert_int_equal(wn_httpd_request_times(srv, "localhost", "/robots.txt", NULL, 0), 1);
  assert_int_equal(wn_httpd_requests(srv, "/private/secret.html"), 0);
  for (size_t i = 0; i < 3; i++)
    wn_fetch_clear(&f[i]);
  wn_crawl_destroy(crawl);
  wn_httpd_stop(srv);
}

static void test_http_errors(void **state) {
  (void)state;
  wn_httpd *srv = start("site");
  wn_crawl_options o = fast_options();
  wn_crawl *crawl = crawl_new(&o);
  static const char *const paths[] = {"/no-such-page.html", "/__status/500", "/__status/204"};
  wn_fetch f[3];
  fetch_paths(crawl, srv, NULL, paths, 3, f);
  expect_err(&f[0], WN_EHTTP);
  assert_int_equal(f[0].http_status, 404);
  assert_string_equal(f[0].message, "HTTP 404");
  assert_null(f[0].body);
  expect_err(&f[1], WN_EHTTP);
  assert_int_equal(f[1].http_status, 500);
  assert_string_equal(f[1].message, "HTTP 500");
  /* 204 is a success status, but there is no page. */
  assert_int_equal(f[2].http_status, 204);
  assert_int_not_equal(f[2].err, WN_EHTTP);
  for (size_t i = 0; i < 3; i++)
    wn_fetch_clear(&f[i]);
  wn_crawl_destroy(crawl);
  wn_httpd_stop(srv);
}

static void test_timeout(void **state) {
  (void)state;
  wn_httpd *srv = start("norobots");
  wn_crawl_options o = fast_options();
  o.timeout_ms = 300;
  wn_crawl *crawl = crawl_new(&o);
  uint64_t before = wn_httpd_now_ms();
  wn_fetch f;
  fetch_one(crawl, srv, "/__slow/3000", &f);
  uint64_t took = wn_httpd_now_ms() - before;
  expect_err(&f, WN_ETIMEOUT);
  assert_string_equal(f.message, "timed out after 300 ms");
  assert_null(f.body);
  assert_true(f.fetch_ms >= 250 && f.fetch_ms < 2000);
  if (took >= 2500)
    fail_msg("a 300 ms timeout took %llu ms", (unsigned long long)took);
  wn_fetch_clear(&f);
  wn_crawl_destroy(crawl);
  wn_httpd_stop(srv);
}

static void test_body_cap(void **state) {
  (void)state;
  wn_httpd *srv = start("norobots");
  wn_crawl_options o = fast_options();
  o.max_body_bytes = 100000;
  wn_crawl *crawl = crawl_new(&o);
  static const char *const paths[] = {"/__big/200000", "/__big/100000", "/__big/100001"};
  wn_fetch f[3];
  fetch_paths(crawl, srv, NULL, paths, 3, f);
  expect_err(&f[0], WN_ETOOBIG);
  assert_string_equal(f[0].message, "body larger than 100000 bytes");
  assert_null(f[0].body);
  expect_err(&f[1], WN_OK);
  assert_int_equal(f[1].body_len, 100000);
  assert_int_equal(strlen(f[1].body), 100000);
  expect_err(&f[2], WN_ETOOBIG);
  for (size_t i = 0; i < 3; i++)
    wn_fetch_clear(&f[i]);
  wn_crawl_destroy(crawl);
  wn_httpd_stop(srv);
}

static void test_not_html(void **state) {
  (void)state;
  wn_httpd *srv = start("site");
  wn_crawl_options o = fast_options();
  wn_crawl *crawl = crawl_new(&o);
  static const char *const paths[] = {"/doc.pdf", "/notes.txt", "/robots.txt"};
  wn_fetch f[3];
  fetch_paths(crawl, srv, NULL, paths, 3, f);
  expect_err(&f[0], WN_ENOTHTML);
  assert_string_equal(f[0].media_type, "application/pdf");
  assert_string_equal(f[0].message, "not HTML: application/pdf");
  assert_null(f[0].body);
  assert_int_equal(f[0].http_status, 200);
  expect_err(&f[1], WN_ENOTHTML);
  assert_string_equal(f[1].media_type, "text/plain");
  expect_err(&f[2], WN_ENOTHTML);
  for (size_t i = 0; i < 3; i++)
    wn_fetch_clear(&f[i]);
  wn_crawl_destroy(crawl);
  wn_httpd_stop(srv);
}

static void test_charset_from_header(void **state) {
  (void)state;
  wn_httpd *srv = start("site");
  wn_crawl_options o = fast_options();
  wn_crawl *crawl = crawl_new(&o);
  wn_fetch f;
  fetch_one(crawl, srv, "/latin.html", &f);
  expect_err(&f, WN_OK);
  assert_string_equal(f.media_type, "text/html");
  assert_string_equal(f.charset, "windows-1252");
  /* The raw bytes are as served: 0xE9 for é, 0x93 0x94 for the quotes. */
  assert_non_null(strstr(f.body, "caf\xE9"));

  wn_dom_options dopts = {0};
  dopts.transport_charset = f.charset;
  wn_dom_page *page = NULL;
  assert_int_equal(wn_dom_parse(f.body, f.body_len, &dopts, &page, NULL), WN_OK);
  assert_string_equal(wn_dom_charset(page), "windows-1252");
  assert_int_equal(wn_dom_charset_source(page), WN_CHARSET_TRANSPORT);
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  int found = 0;
  for (uint32_t i = 0; i < count; i++)
    if (nodes[i].tag == WN_TAG_TEXT &&
        strcmp(nodes[i].text, "Le caf\xC3\xA9 est \xE2\x80\x9C"
                              "chaud\xE2\x80\x9D.") == 0)
      found = 1;
  assert_true(found);
  wn_dom_free(page);
  wn_fetch_clear(&f);
  wn_crawl_destroy(crawl);
  wn_httpd_stop(srv);
}

static void test_gzip(void **state) {
  (void)state;
  wn_httpd *srv = start("site");
  wn_crawl_options o = fast_options();
  wn_crawl *crawl = crawl_new(&o);
  wn_fetch f;
  fetch_one(crawl, srv, "/__gzip/article.html", &f);
  expect_err(&f, WN_OK);
  assert_int_equal(wn_httpd_gzip_count(srv), 1);
  size_t len = 0;
  char *want = fixture_bytes("site/article.html", &len);
  assert_int_equal(f.body_len, len);
  assert_memory_equal(f.body, want, len);
  free(want);
  wn_fetch_clear(&f);
  wn_crawl_destroy(crawl);
  wn_httpd_stop(srv);
}

/* ---- no answer ---------------------------------------------------------------- */

static void test_connection_refused(void **state) {
  (void)state;
  uint16_t port = wn_httpd_unused_port();
  assert_int_not_equal(port, 0);
  char url[64];
  snprintf(url, sizeof url, "http://127.0.0.1:%u/page.html", (unsigned)port);
  const char *urls[] = {url};
  for (int obey = 1; obey >= 0; obey--) {
    wn_crawl_options o = fast_options();
    o.obey_robots = obey;
    wn_crawl *crawl = crawl_new(&o);
    wn_fetch f;
    assert_int_equal(wn_crawl_fetch(crawl, urls, 1, &f, NULL), WN_OK);
    expect_err(&f, WN_ENET);
    assert_int_equal(f.http_status, 0);
    /* The host is down: said so, whether robots.txt or the page was the
     * first thing asked of it. */
    char want[96];
    snprintf(want, sizeof want, "could not connect to 127.0.0.1:%u (connection refused)",
             (unsigned)port);
    assert_string_equal(f.message, want);
    wn_fetch_clear(&f);
    wn_crawl_destroy(crawl);
  }
}

static void test_dns_failure(void **state) {
  (void)state;
  /* .invalid never resolves (RFC 2606, RFC 6761 6.4). */
  const char *urls[] = {"http://no-such-host.invalid/page.html"};
  for (int obey = 1; obey >= 0; obey--) {
    wn_crawl_options o = fast_options();
    o.obey_robots = obey;
    wn_crawl *crawl = crawl_new(&o);
    wn_fetch f;
    assert_int_equal(wn_crawl_fetch(crawl, urls, 1, &f, NULL), WN_OK);
    expect_err(&f, WN_ENET);
    assert_string_equal(f.message, "could not resolve host no-such-host.invalid");
    wn_fetch_clear(&f);
    wn_crawl_destroy(crawl);
  }
}

/* refuse_private: no socket is opened to a loopback address, whether the
 * URL names it or a host name resolves to it (localhost), for the page and
 * for its robots.txt alike; the server sees no request, and the message
 * says which address and why. */
static void test_refuse_private(void **state) {
  (void)state;
  wn_httpd *srv = start("site");
  wn_crawl_options o = fast_options();
  o.refuse_private = 1;
  wn_crawl *crawl = crawl_new(&o);
  static const char *const hosts[] = {"127.0.0.1", "localhost"};
  for (size_t i = 0; i < 2; i++) {
    static const char *const path[] = {"/page.html"};
    wn_fetch f;
    fetch_paths(crawl, srv, hosts[i], path, 1, &f);
    expect_err(&f, WN_ENET);
    if (!strstr(f.message, "refused to connect") || !strstr(f.message, "is loopback"))
      fail_msg("%s: %s", hosts[i], f.message);
    wn_fetch_clear(&f);
  }
  assert_int_equal(wn_httpd_requests(srv, "/page.html"), 0);
  assert_int_equal(wn_httpd_requests(srv, "/robots.txt"), 0);
  wn_crawl_destroy(crawl);
  /* The default reaches loopback, as a crawl of one's own sites does. */
  o.refuse_private = 0;
  crawl = crawl_new(&o);
  wn_fetch f;
  fetch_one(crawl, srv, "/page.html", &f);
  expect_err(&f, WN_OK);
  wn_fetch_clear(&f);
  wn_crawl_destroy(crawl);
  wn_httpd_stop(srv);
}

/* The addresses refuse_private keeps a crawl from, and some it does not. */
static void test_ip_kind(void **state) {
  (void)state;
  static const struct {
    const char *ip;
    int refused;
  } cases[] = {
      {"127.0.0.1", 1},       {"127.255.0.9", 1},    {"10.1.2.3", 1},
      {"172.16.0.1", 1},      {"172.31.255.255", 1}, {"172.32.0.1", 0},
      {"192.168.1.1", 1},     {"169.254.169.254", 1}, {"100.64.0.1", 1},
      {"100.128.0.1", 0},     {"0.0.0.0", 1},        {"224.0.0.1", 1},
      {"255.255.255.255", 1}, {"8.8.8.8", 0},        {"93.184.216.34", 0},
      {"::1", 1},             {"::", 1},             {"::ffff:127.0.0.1", 1},
      {"::ffff:8.8.8.8", 0},  {"64:ff9b::a9fe:a9fe", 1}, {"fd00:ec2::254", 1},
      {"fe80::1", 1},         {"ff02::1", 1},        {"2001:4860:4860::8888", 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    unsigned char addr[16];
    int family = strchr(cases[i].ip, ':') ? AF_INET6 : AF_INET;
    assert_int_equal(inet_pton(family, cases[i].ip, addr), 1);
    const char *kind = wn_ip_kind(family, addr);
    if ((kind != NULL) != cases[i].refused)
      fail_msg("%s: %s", cases[i].ip, kind ? kind : "allowed");
  }
}

static void test_bad_urls(void **state) {
  (void)state;
  const char *urls[] = {"ftp://example.com/file", "not a url", "mailto:me@example.com"};
  wn_crawl *crawl = crawl_new(NULL);
  wn_fetch f[3];
  assert_int_equal(wn_crawl_fetch(crawl, urls, 3, f, NULL), WN_OK);
  for (size_t i = 0; i < 3; i++) {
    expect_err(&f[i], WN_EINVAL);
    assert_string_equal(f[i].url, urls[i]);
    assert_true(f[i].message[0] != '\0');
    wn_fetch_clear(&f[i]);
  }
  /* An empty batch is fine. */
  assert_int_equal(wn_crawl_fetch(crawl, NULL, 0, NULL, NULL), WN_OK);
  wn_crawl_destroy(crawl);

  /* A User-Agent without a product token cannot be matched in robots.txt. */
  wn_crawl_options o;
  wn_crawl_options_init(&o);
  o.user_agent = "/1.0";
  wn_crawl *none = NULL;
  assert_int_equal(wn_crawl_create(&o, &none, NULL), WN_EINVAL);
  assert_null(none);
  wn_crawl_destroy(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pages_and_robots),
      cmocka_unit_test(test_robots_once_per_host),
      cmocka_unit_test(test_robots_404_allows),
      cmocka_unit_test(test_robots_503_disallows),
      cmocka_unit_test(test_crawl_delay),
      cmocka_unit_test(test_host_delay),
      cmocka_unit_test(test_host_parallel),
      cmocka_unit_test(test_redirects),
      cmocka_unit_test(test_redirect_robots),
      cmocka_unit_test(test_http_errors),
      cmocka_unit_test(test_timeout),
      cmocka_unit_test(test_body_cap),
      cmocka_unit_test(test_not_html),
      cmocka_unit_test(test_charset_from_header),
      cmocka_unit_test(test_gzip),
      cmocka_unit_test(test_connection_refused),
      cmocka_unit_test(test_dns_failure),
      cmocka_unit_test(test_bad_urls),
      cmocka_unit_test(test_refuse_private),
      cmocka_unit_test(test_ip_kind),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
