/* tests/learn/test_learn.c: Algorithm 1 and the template built from it. */
#include "wn_test.h"

#include <stdlib.h>

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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_occurrences),
      cmocka_unit_test(test_template_thresholds),
      cmocka_unit_test(test_pages_of_other_sites),
      cmocka_unit_test(test_medoid),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
