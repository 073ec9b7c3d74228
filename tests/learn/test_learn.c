/* tests/learn/test_learn.c: Algorithm 1 and the template built from it. */
#include "wn_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learn/learn.h"

/* Worked by hand. Key page nodes:
 *  0 html, 1 body, 2 div#nav, 3 a, 4 "Home", 5 a, 6 "World",
 *  7 div#main, 8 h1, 9 "Key story", 10 p, 11 "Key text.", 12 div#side, 13 "Ad 1"
 * Page B: same nav, main with another title and text, no side.
 * Page C: nav with "Home" and "Sport", main, side "Ad 2" (digits fold).
 * Occurrences: html, body, nav, first a, "Home": 2; second a: 2 (both
 * pages have a second <a>); "World": 1 (only B); main, h1, p: 2; their
 * texts: 0; side: 1 (C), "Ad 1": 1 (C's "Ad 2" folds equal). */
static const char *key = "<body><div id=nav><a href=/>Home</a><a href=/w>World</a></div>"
                         "<div id=main><h1>Key story</h1><p>Key text.</p></div>"
                         "<div id=side>Ad 1</div></body>";
static const char *page_b = "<body><div id=nav><a href=/>Home</a><a href=/w>World</a></div>"
                            "<div id=main><h1>B story</h1><p>B text.</p></div></body>";
static const char *page_c = "<body><div id=nav><a href=/>Home</a><a href=/s>Sport</a></div>"
                            "<div id=main><h1>C story</h1><p>C text.</p></div>"
                            "<div id=side>Ad 2</div></body>";

static void test_occurrences(void **state) {
  (void)state;
  wn_dom_page *k = wn_test_parse(key);
  wn_dom_page *others[2] = {wn_test_parse(page_b), wn_test_parse(page_c)};
  uint32_t count = 0;
  wn_dom_nodes(k, &count);
  assert_int_equal(count, 14);
  uint32_t occ[14];
  assert_int_equal(wn_learn_occurrences(k, (const wn_dom_page *const *)others, 2, occ, NULL),
                   WN_OK);
  const uint32_t expect[14] = {2, 2, 2, 2, 2, 2, 1, 2, 2, 0, 2, 0, 1, 1};
  for (uint32_t i = 0; i < 14; i++) {
    if (occ[i] != expect[i])
      fail_msg("node %u: occurrences %u, expected %u", i, occ[i], expect[i]);
  }
  wn_dom_free(k);
  wn_dom_free(others[0]);
  wn_dom_free(others[1]);
}

static void test_template_thresholds(void **state) {
  (void)state;
  wn_dom_page *pages[3] = {wn_test_parse(key), wn_test_parse(page_b), wn_test_parse(page_c)};
  wn_template *tpl = NULL;
  /* min_count 2 (default): everything that recurs at least once: 12 nodes
   * (all but the two story texts). */
  assert_int_equal(wn_learn_template((const wn_dom_page *const *)pages, 3, NULL, &tpl, NULL),
                   WN_OK);
  wn_template_stats st;
  wn_template_get_stats(tpl, &st);
  assert_int_equal(st.nodes, 12);
  assert_int_equal(st.text_nodes, 3); /* Home, World, Ad */
  wn_template_free(tpl);
  /* min_count 3: only what all three pages hold: html body nav a Home a
   * main h1 p = 9 nodes. */
  wn_learn_options opts = {.min_count = 3};
  assert_int_equal(wn_learn_template((const wn_dom_page *const *)pages, 3, &opts, &tpl, NULL),
                   WN_OK);
  wn_template_get_stats(tpl, &st);
  assert_int_equal(st.nodes, 9);
  assert_int_equal(st.text_nodes, 1);
  const wn_template_node *t = wn_template_nodes(tpl, NULL);
  assert_int_equal(t[0].count, 3);
  wn_template_free(tpl);
  /* Bad arguments. */
  wn_diag diag = {{0}};
  assert_int_equal(wn_learn_template((const wn_dom_page *const *)pages, 1, NULL, &tpl, &diag),
                   WN_EINVAL);
  opts.min_count = 4;
  assert_int_equal(wn_learn_template((const wn_dom_page *const *)pages, 3, &opts, &tpl, NULL),
                   WN_EINVAL);
  for (int i = 0; i < 3; i++)
    wn_dom_free(pages[i]);
}

static void test_pages_of_other_sites(void **state) {
  (void)state;
  /* Unrelated pages share only <html> and <body> (compared by tag alone):
   * the template is those two nodes. */
  wn_dom_page *pages[2] = {wn_test_parse("<html class=a><body class=x><p>x</p></body></html>"),
                           wn_test_parse("<html class=b><body class=y><ul><li>y</ul></body></html>")};
  wn_template *tpl = NULL;
  assert_int_equal(wn_learn_template((const wn_dom_page *const *)pages, 2, NULL, &tpl, NULL),
                   WN_OK);
  wn_template_stats st;
  wn_template_get_stats(tpl, &st);
  assert_int_equal(st.nodes, 2);
  wn_template_free(tpl);
  wn_dom_free(pages[0]);
  wn_dom_free(pages[1]);
}

static void test_medoid(void **state) {
  (void)state;
  /* The first page has another layout than the three after it, so the
   * medoid (most nodes paired with the others) is one of those three.
   * Pairs, worked out as in test_occurrences: key-b 10 (html body nav a
   * Home a World main h1 p), key-c 11 (html body nav a Home a main h1 p
   * side Ad), b-c 9, and the old page pairs html and body (2) with each.
   * Totals: key 23, c 22, b 21, old 6: the medoid is key (index 1). */
  wn_dom_page *pages[4] = {
      wn_test_parse("<body><table><tr><td>Old layout page</td></tr></table></body>"),
      wn_test_parse(key), wn_test_parse(page_b), wn_test_parse(page_c)};
  size_t base = 99;
  assert_int_equal(wn_learn_medoid((const wn_dom_page *const *)pages, 4, &base, NULL), WN_OK);
  assert_int_equal(base, 1);
  wn_template *tpl = NULL;
  assert_int_equal(wn_learn_template((const wn_dom_page *const *)pages, 4, NULL, &tpl, NULL),
                   WN_OK);
  wn_template_stats st;
  wn_template_get_stats(tpl, &st);
  assert_int_equal(st.nodes, 12); /* as learned from key, b and c alone */
  wn_template_free(tpl);
  for (int i = 0; i < 4; i++)
    wn_dom_free(pages[i]);
}

/* ---- wn_learn_pages: the checks that pages belong together ------------------ */

static size_t load_pages(const char *const *paths, size_t n, wn_dom_page **pages) {
  for (size_t i = 0; i < n; i++) {
    size_t len = 0;
    char *bytes = wn_test_read(paths[i], &len);
    wn_diag diag = {{0}};
    wn_err err = wn_dom_parse(bytes, len, NULL, &pages[i], &diag);
    if (err)
      fail_msg("%s: %s", paths[i], wn_diag_message(&diag, err));
    free(bytes);
  }
  return n;
}

static void free_pages(wn_dom_page **pages, size_t n) {
  for (size_t i = 0; i < n; i++)
    wn_dom_free(pages[i]);
}

static void test_pages_one_site(void **state) {
  (void)state;
  static const char *const paths[] = {
      WN_FIXTURES "/site/article-1.html", WN_FIXTURES "/site/article-2.html",
      WN_FIXTURES "/site/article-3.html", WN_FIXTURES "/site/article-4.html"};
  wn_dom_page *pages[4];
  load_pages(paths, 4, pages);
  wn_template *tpl = NULL;
  wn_learn_check checks[4];
  wn_diag diag = {{0}};
  wn_err err = wn_learn_pages((const wn_dom_page *const *)pages, 4, NULL, &tpl, checks, &diag);
  if (err)
    fail_msg("%s", wn_diag_message(&diag, err));
  for (size_t i = 0; i < 4; i++) {
    assert_true(checks[i].used);
    assert_true(checks[i].share >= 0.9);
    assert_int_equal(checks[i].err, WN_OK);
  }
  /* The same template as without the checks. */
  wn_template *plain = NULL;
  assert_int_equal(wn_learn_template((const wn_dom_page *const *)pages, 4, NULL, &plain, NULL),
                   WN_OK);
  uint32_t a = 0, b = 0;
  wn_template_nodes(tpl, &a);
  wn_template_nodes(plain, &b);
  assert_int_equal(a, b);
  assert_true(a > 50);
  wn_template_free(plain);
  wn_template_free(tpl);
  free_pages(pages, 4);
}

static void test_pages_unrelated_refused(void **state) {
  (void)state;
  /* One page each of four unrelated sites: all they share is <html>,
   * <head> and <body>, which every page has. */
  static const char *const paths[] = {
      WN_FIXTURES "/site/article-1.html", WN_FIXTURES "/nset-site/news/2015/article-7.html",
      WN_FIXTURES "/crawl/site/page.html", WN_FIXTURES "/nset-site/about.html"};
  wn_dom_page *pages[4];
  load_pages(paths, 4, pages);
  for (int force = 0; force <= 1; force++) {
    wn_learn_options o = {.force = force};
    wn_template *tpl = NULL;
    wn_diag diag = {{0}};
    assert_int_equal(wn_learn_pages((const wn_dom_page *const *)pages, 4, &o, &tpl, NULL, &diag),
                     WN_EEMPTY);
    assert_null(tpl);
    assert_non_null(strstr(wn_diag_message(&diag, WN_EEMPTY), "no element below <body>"));
  }
  /* wn_learn_template alone learns the skeleton: the rule is the checks'. */
  wn_template *tpl = NULL;
  assert_int_equal(wn_learn_template((const wn_dom_page *const *)pages, 4, NULL, &tpl, NULL),
                   WN_OK);
  wn_template_free(tpl);
  free_pages(pages, 4);
}

static void test_pages_other_layout_and_force(void **state) {
  (void)state;
  /* Three articles of one site and its video page (another layout). */
  static const char *const paths[] = {WN_FIXTURES "/nset-site/news/2015/article-7.html",
                                      WN_FIXTURES "/nset-site/news/2015/article-8.html",
                                      WN_FIXTURES "/nset-site/news/2014/article-3.html",
                                      WN_FIXTURES "/nset-site/news/2015/article-5.html"};
  wn_dom_page *pages[4];
  load_pages(paths, 4, pages);
  wn_template *tpl = NULL;
  wn_learn_check checks[4];
  wn_diag diag = {{0}};
  assert_int_equal(wn_learn_pages((const wn_dom_page *const *)pages, 4, NULL, &tpl, checks, &diag),
                   WN_OK);
  assert_true(checks[1].used && checks[2].used);
  assert_false(checks[3].used);
  assert_int_equal(checks[3].err, WN_EEMPTY);
  assert_true(checks[3].share < 0.5);
  assert_non_null(strstr(checks[3].message, "(needs 50%)"));
  wn_template_free(tpl);
  /* force: every page is used. */
  wn_learn_options o = {.force = 1};
  assert_int_equal(wn_learn_pages((const wn_dom_page *const *)pages, 4, &o, &tpl, checks, &diag),
                   WN_OK);
  for (size_t i = 0; i < 4; i++)
    assert_true(checks[i].used);
  assert_true(checks[3].share < 0.5);
  wn_template_free(tpl);
  /* A lower min_share lets it in too. */
  o = (wn_learn_options){.min_share = 0.01};
  assert_int_equal(wn_learn_pages((const wn_dom_page *const *)pages, 4, &o, &tpl, checks, &diag),
                   WN_OK);
  assert_true(checks[3].used);
  wn_template_free(tpl);
  free_pages(pages, 4);
}

/* Six segments of the key page, each held by two of six other pages, each
 * page holding two: every segment is "template" (two pages agree), yet no
 * page pairs half of them. */
static void test_pages_only_n_of_m(void **state) {
  (void)state;
  static const char *const seg[] = {
      "<div class=a><i></i><i></i><i></i><i></i></div>",
      "<div class=b><i></i><i></i><i></i><i></i></div>",
      "<div class=c><i></i><i></i><i></i><i></i></div>",
      "<div class=d><i></i><i></i><i></i><i></i></div>",
      "<div class=e><i></i><i></i><i></i><i></i></div>",
      "<div class=f><i></i><i></i><i></i><i></i></div>"};
  static const int pairs[6][2] = {{0, 1}, {2, 3}, {4, 5}, {0, 2}, {1, 4}, {3, 5}};
  char html[1024];
  wn_dom_page *pages[7];
  snprintf(html, sizeof html, "<body>%s%s%s%s%s%s</body>", seg[0], seg[1], seg[2], seg[3],
           seg[4], seg[5]);
  pages[0] = wn_test_parse(html);
  for (size_t i = 0; i < 6; i++) {
    snprintf(html, sizeof html, "<body>%s%s</body>", seg[pairs[i][0]], seg[pairs[i][1]]);
    pages[i + 1] = wn_test_parse(html);
  }
  wn_template *tpl = NULL;
  wn_learn_check checks[7];
  wn_diag diag = {{0}};
  assert_int_equal(wn_learn_pages((const wn_dom_page *const *)pages, 7, NULL, &tpl, checks, &diag),
                   WN_EEMPTY);
  assert_null(tpl);
  const char *msg = wn_diag_message(&diag, WN_EEMPTY);
  if (!strstr(msg, "only 1 of 7 pages share a layout"))
    fail_msg("message: %s", msg);
  for (size_t i = 1; i < 7; i++) {
    assert_false(checks[i].used);
    assert_true(checks[i].share > 0.3 && checks[i].share < 0.5);
  }
  /* force learns: the segments recur. */
  wn_learn_options o = {.force = 1};
  assert_int_equal(wn_learn_pages((const wn_dom_page *const *)pages, 7, &o, &tpl, NULL, &diag),
                   WN_OK);
  wn_template_free(tpl);
  free_pages(pages, 7);
}

static void test_pages_empty_and_garbage(void **state) {
  (void)state;
  /* Binary garbage is not a page at all (the parser refuses it); empty
   * pages parse into a bare skeleton but must not make a template, with or
   * without force. */
  size_t glen = 0;
  char *garbage = wn_test_read(WN_FIXTURES "/learn-check/garbage.bin", &glen);
  wn_dom_page *gpage = NULL;
  assert_int_equal(wn_dom_parse(garbage, glen, NULL, &gpage, NULL), WN_ENOTHTML);
  free(garbage);
  static const char *const paths[] = {WN_FIXTURES "/learn-check/empty.html",
                                      WN_FIXTURES "/learn-check/empty.html"};
  wn_dom_page *pages[2];
  load_pages(paths, 2, pages);
  for (int force = 0; force <= 1; force++) {
    wn_learn_options o = {.force = force};
    wn_template *tpl = NULL;
    wn_diag diag = {{0}};
    assert_int_equal(wn_learn_pages((const wn_dom_page *const *)pages, 2, &o, &tpl, NULL, &diag),
                     WN_EEMPTY);
    assert_null(tpl);
  }
  free_pages(pages, 2);
  /* Fewer than two pages is a usage error. */
  wn_template *tpl = NULL;
  assert_int_equal(wn_learn_pages(NULL, 0, NULL, &tpl, NULL, NULL), WN_EINVAL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_occurrences),
      cmocka_unit_test(test_template_thresholds),
      cmocka_unit_test(test_pages_of_other_sites),
      cmocka_unit_test(test_medoid),
      cmocka_unit_test(test_pages_one_site),
      cmocka_unit_test(test_pages_unrelated_refused),
      cmocka_unit_test(test_pages_other_layout_and_force),
      cmocka_unit_test(test_pages_only_n_of_m),
      cmocka_unit_test(test_pages_empty_and_garbage),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
