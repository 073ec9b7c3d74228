/*
 * tests/learn/test_nset.c: the n-SET (site-level paper, Sec. 2.1) on the
 * fixture site tests/fixtures/nset-site, ranked by hand, then crawled end
 * to end from a real HTTP server on 127.0.0.1.
 *
 * The key page news/2015/article-7.html has <base href="/news/2015/"> and
 * these links, in document order (h = hyperlink distance, learn.h):
 *
 *   masthead  /index.html               h = 2 (depth) + 1 = 3
 *             /news/2015/               h = 1 ("" vs "article-7.html")
 *             /sport/index.html         h = 1 + 1 + 1 = 3
 *   story     /news/2015/article-8.html h = 0 (digits fold), a8
 *   related   /news/2014/article-3.html h = 0 (2014 ~ 2015), a3
 *             /news/2015/article-5.html h = 0, a5 (a video page: another layout)
 *             /news/2015/article-6.html h = 0, a6
 *   footer    /news/2015/article-9.html h = 0, a9 (does not exist: 404)
 *             /about.html               h = 3
 *             other.example, mailto:    not candidates
 *             #masthead                 = /news/2015/ again (against <base>)
 *
 * Depths in the compact tree (html 0, body 1): a8 body>div#page>div.story>
 * p>a = 5; a3/a5/a6 body>div#page>div.related>ul>li>a = 6; a9 body>
 * div#footer>p>a = 4. DOM distances: a8-a9 = 4+3 = 7 (meet at body),
 * a8-a3 = 3+4 = 7 (meet at div#page), a3-a9 = 5+3 = 8, a3-a5 = 2+2 = 4
 * (meet at ul). Farthest-first within h = 0: a8 (first in document
 * order); then a3, a5, a6, a9 are all 7 from a8: a3 (document order);
 * then a9 (min(7, 8) = 7) beats a5 and a6 (min(7, 4) = 4); then a5, a6.
 * After them h = 1 (/news/2015/), then h = 3 in document order... the
 * first of which is /index.html, then by spread.
 */
#include "wn_crawl_test.h"

#include <stdlib.h>

#include "learn/learn.h"
#include "wn_httpd.h"

#define SITE WN_FIXTURES "/nset-site"
#define KEY_URL "http://courier.example/news/2015/article-7.html"

static wn_dom_page *parse_key(void) {
  size_t len = 0;
  char *bytes = wn_test_read(SITE "/news/2015/article-7.html", &len);
  wn_dom_options o = {.keep_xml = 1};
  wn_dom_page *page = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_dom_parse(bytes, len, &o, &page, &diag), WN_OK);
  free(bytes);
  return page;
}

static void test_hyperlink_distance(void **state) {
  (void)state;
  const char *k = KEY_URL;
  assert_int_equal(wn_learn_hyperlink_distance(k, "http://courier.example/news/2015/article-8.html"), 0);
  assert_int_equal(wn_learn_hyperlink_distance(k, "http://courier.example/news/2014/article-3.html"), 0);
  assert_int_equal(wn_learn_hyperlink_distance(k, "http://courier.example/news/2015/"), 1);
  assert_int_equal(wn_learn_hyperlink_distance(k, "http://courier.example/news/2015/gallery.html"), 1);
  assert_int_equal(wn_learn_hyperlink_distance(k, "http://courier.example/index.html"), 3);
  assert_int_equal(wn_learn_hyperlink_distance(k, "http://courier.example/sport/index.html"), 3);
  /* Queries count as one more segment. */
  assert_int_equal(wn_learn_hyperlink_distance("http://a.example/item.php?id=12",
                                               "http://a.example/item.php?id=977"), 0);
  assert_int_equal(wn_learn_hyperlink_distance("http://a.example/item.php?id=12",
                                               "http://a.example/item.php?tag=x"), 1);
  assert_int_equal(wn_learn_hyperlink_distance("http://a.example/a/b/c", "http://a.example/a/x/c/d"), 2);
  assert_int_equal(wn_learn_hyperlink_distance("not a url", "http://a.example/"), UINT32_MAX);
}

static void test_dom_distance(void **state) {
  (void)state;
  wn_dom_page *page = wn_test_parse("<div><p><a href=x>1</a></p><ul><li><a href=y>2</a></li>"
                                    "</ul></div><p><a href=z>3</a></p>");
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint32_t a[3], n = 0;
  for (uint32_t i = 0; i < count && n < 3; i++)
    if (nodes[i].tag == WN_TAG_A)
      a[n++] = i;
  assert_int_equal(n, 3);
  /* a1: body>div>p>a; a2: body>div>ul>li>a; a3: body>p>a. */
  assert_int_equal(wn_learn_dom_distance(page, a[0], a[0]), 0);
  assert_int_equal(wn_learn_dom_distance(page, a[0], a[1]), 2 + 3);
  assert_int_equal(wn_learn_dom_distance(page, a[1], a[0]), 5);
  assert_int_equal(wn_learn_dom_distance(page, a[0], a[2]), 3 + 2);
  assert_int_equal(wn_learn_dom_distance(page, a[1], a[2]), 4 + 2);
  assert_int_equal(wn_learn_dom_distance(page, a[0], count), UINT32_MAX);
  wn_dom_free(page);
}

static void test_rank_by_hand(void **state) {
  (void)state;
  wn_dom_page *key = parse_key();
  wn_link *links = NULL;
  size_t n_links = 0;
  wn_diag diag = {{0}};
  assert_int_equal(wn_learn_links(key, KEY_URL, 0, &links, &n_links, &diag), WN_OK);
  wn_nset_candidate *ranked = NULL;
  size_t n = 0;
  assert_int_equal(wn_learn_nset_rank(key, KEY_URL, links, n_links, 0, 0, &ranked, &n, &diag),
                   WN_OK);
  static const char *const want[] = {
      "http://courier.example/news/2015/article-8.html",
      "http://courier.example/news/2014/article-3.html",
      "http://courier.example/news/2015/article-9.html",
      "http://courier.example/news/2015/article-5.html",
      "http://courier.example/news/2015/article-6.html",
      "http://courier.example/news/2015/",
  };
  static const uint32_t want_h[] = {0, 0, 0, 0, 0, 1};
  static const uint32_t want_dom[] = {UINT32_MAX, 7, 7, 4, 4};
  /* 6 above and the three h = 3 pages: index, sport, about. */
  assert_int_equal(n, 9);
  for (size_t i = 0; i < 6; i++) {
    assert_string_equal(links[ranked[i].link].url, want[i]);
    assert_int_equal(ranked[i].hyperlink_distance, want_h[i]);
    if (i < 5)
      assert_int_equal(ranked[i].dom_distance, want_dom[i]);
  }
  for (size_t i = 6; i < 9; i++)
    assert_int_equal(ranked[i].hyperlink_distance, 3);
  assert_string_equal(links[ranked[6].link].url, "http://courier.example/index.html");
  /* Never the key page, another host, or a duplicate. */
  for (size_t i = 0; i < n; i++) {
    assert_string_not_equal(links[ranked[i].link].url, KEY_URL);
    assert_null(strstr(links[ranked[i].link].url, "other.example"));
    for (size_t j = 0; j < i; j++)
      assert_string_not_equal(links[ranked[i].link].url, links[ranked[j].link].url);
  }
  /* A cap on how many are ranked. */
  free(ranked);
  assert_int_equal(wn_learn_nset_rank(key, KEY_URL, links, n_links, 0, 2, &ranked, &n, &diag),
                   WN_OK);
  assert_int_equal(n, 2);
  free(ranked);
  wn_links_free(links, n_links);
  wn_dom_free(key);
}

/* ---- end to end: crawl the fixture site from 127.0.0.1 ------------------- */

static void test_crawl_replaces_bad_candidates(void **state) {
  (void)state;
  wn_httpd *srv = wn_httpd_start(SITE);
  assert_non_null(srv);
  char url[256];
  wn_httpd_url(srv, "/news/2015/article-7.html", url, sizeof url);
  wn_crawl *crawl = wn_test_quick_crawl();
  wn_learn_crawl_options o = {.n = 3};
  wn_learn_crawl_result *r = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_learn_crawl(crawl, url, &o, &r, &diag);
  if (err)
    fprintf(stderr, "%s\n", wn_diag_message(&diag, err));
  assert_int_equal(err, WN_OK);
  assert_non_null(r->tpl);
  /* Round 1: a8, a3, a9 (404). Round 2: a5, another layout. Round 3: a6. */
  assert_int_equal(r->n_pages, 1 + 5);
  assert_int_equal(r->n_used, 1 + 3);
  assert_true(r->pages[0].used);
  assert_int_equal(r->pages[0].http_status, 200);
  assert_true(wn_test_crawled(r, "/article-8.html")->used);
  assert_true(wn_test_crawled(r, "/article-3.html")->used);
  assert_true(wn_test_crawled(r, "/article-6.html")->used);
  const wn_learn_crawl_page *a9 = wn_test_crawled(r, "/article-9.html");
  assert_false(a9->used);
  assert_int_equal(a9->err, WN_EHTTP);
  assert_int_equal(a9->http_status, 404);
  const wn_learn_crawl_page *a5 = wn_test_crawled(r, "/article-5.html");
  assert_false(a5->used);
  assert_int_equal(a5->http_status, 200);
  assert_true(a5->share < 0.5);
  assert_true(wn_test_crawled(r, "/article-8.html")->share >= 0.9);
  assert_true(r->compute_ms >= 0 && r->network_ms > 0);
  /* robots.txt once for the host. */
  assert_int_equal(wn_httpd_requests(srv, "/robots.txt"), 1);
  wn_learn_crawl_result_free(r);
  wn_crawl_destroy(crawl);
  wn_httpd_stop(srv);
}

static void test_crawl_fewer_than_n(void **state) {
  (void)state;
  wn_httpd *srv = wn_httpd_start(SITE);
  assert_non_null(srv);
  char url[256];
  wn_httpd_url(srv, "/news/2015/article-7.html", url, sizeof url);
  wn_crawl *crawl = wn_test_quick_crawl();
  /* Only a8, a3 and a6 share the key page's template: n = 6 gets 3. */
  wn_learn_crawl_options o = {.n = 6};
  wn_learn_crawl_result *r = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_learn_crawl(crawl, url, &o, &r, &diag), WN_OK);
  assert_int_equal(r->n_used, 1 + 3);
  assert_int_equal(r->n_pages, 1 + 9); /* every candidate was tried */
  wn_learn_crawl_result_free(r);
  wn_crawl_destroy(crawl);
  wn_httpd_stop(srv);
}

static void test_crawl_key_page_errors(void **state) {
  (void)state;
  wn_httpd *srv = wn_httpd_start(SITE);
  assert_non_null(srv);
  char url[256];
  wn_crawl *crawl = wn_test_quick_crawl();
  wn_learn_crawl_result *r = NULL;
  wn_diag diag = {{0}};
  wn_httpd_url(srv, "/news/2015/article-9.html", url, sizeof url);
  assert_int_equal(wn_learn_crawl(crawl, url, NULL, &r, &diag), WN_EHTTP);
  assert_non_null(strstr(wn_diag_message(&diag, WN_EHTTP), "404"));
  assert_non_null(r);
  assert_null(r->tpl);
  wn_learn_crawl_result_free(r);
  r = NULL;
  /* A page with no link to a page of its own layout. */
  wn_diag_clear(&diag);
  wn_httpd_url(srv, "/about.html", url, sizeof url);
  assert_int_equal(wn_learn_crawl(crawl, url, NULL, &r, &diag), WN_EEMPTY);
  wn_learn_crawl_result_free(r);
  wn_crawl_destroy(crawl);
  wn_httpd_stop(srv);
}

static void test_crawl_unreachable_key(void **state) {
  (void)state;
  /* Nothing listens on the port: the host is unreachable, which is what
   * the message says, not that robots.txt failed. */
  uint16_t port = wn_httpd_unused_port();
  assert_int_not_equal(port, 0);
  char url[96], want[192];
  snprintf(url, sizeof url, "http://127.0.0.1:%u/news/2015/article-7.html", (unsigned)port);
  snprintf(want, sizeof want, "key page %s: could not connect to 127.0.0.1:%u (connection refused)",
           url, (unsigned)port);
  wn_crawl *crawl = wn_test_quick_crawl();
  wn_learn_crawl_result *r = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_learn_crawl(crawl, url, NULL, &r, &diag), WN_ENET);
  assert_string_equal(wn_diag_message(&diag, WN_ENET), want);
  assert_non_null(r);
  assert_null(r->tpl);
  assert_int_equal(r->n_pages, 1);
  assert_int_equal(r->pages[0].err, WN_ENET);
  wn_learn_crawl_result_free(r);
  wn_crawl_destroy(crawl);
}

static void test_crawl_wait_apart(void **state) {
  (void)state;
  wn_httpd *srv = wn_httpd_start(SITE);
  assert_non_null(srv);
  char url[256];
  wn_httpd_url(srv, "/news/2015/article-7.html", url, sizeof url);
  wn_crawl_options co;
  wn_crawl_options_init(&co);
  co.host_delay_ms = 300;
  co.timeout_ms = 5000;
  wn_crawl *crawl = NULL;
  assert_int_equal(wn_crawl_create(&co, &crawl, NULL), WN_OK);
  wn_learn_crawl_options o = {.n = 3};
  wn_learn_crawl_result *r = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_learn_crawl(crawl, url, &o, &r, &diag), WN_OK);
  /* robots.txt and six pages, one origin, 300 ms apart: six gaps of
   * politeness at least, spent waiting or, where an answer came late (a
   * loaded machine), on the network; some of it waiting, counted apart.
   * The gap is long beside a loopback answer, so that even on a machine
   * with every core busy at least one of the six is spent waiting. */
  assert_int_equal(r->n_pages, 1 + 5);
  if (r->wait_ms + r->network_ms < 1500 || r->wait_ms <= 0)
    fail_msg("wait %.1f ms, network %.1f ms", r->wait_ms, r->network_ms);
  assert_true(r->network_ms > 0);
  wn_learn_crawl_result_free(r);
  wn_crawl_destroy(crawl);
  wn_httpd_stop(srv);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_hyperlink_distance),
      cmocka_unit_test(test_dom_distance),
      cmocka_unit_test(test_rank_by_hand),
      cmocka_unit_test(test_crawl_replaces_bad_candidates),
      cmocka_unit_test(test_crawl_fewer_than_n),
      cmocka_unit_test(test_crawl_key_page_errors),
      cmocka_unit_test(test_crawl_unreachable_key),
      cmocka_unit_test(test_crawl_wait_apart),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
