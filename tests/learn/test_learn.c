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
  /* Each page with a headline of its own: a page needs text to be a
   * sample. */
  static const char *const words[] = {"key", "one", "two", "three", "four", "five", "six"};
  snprintf(html, sizeof html, "<body>%s%s%s%s%s%s<h1>%s</h1></body>", seg[0], seg[1], seg[2],
           seg[3], seg[4], seg[5], words[0]);
  pages[0] = wn_test_parse(html);
  for (size_t i = 0; i < 6; i++) {
    snprintf(html, sizeof html, "<body>%s%s<h1>%s</h1></body>", seg[pairs[i][0]],
             seg[pairs[i][1]], words[i + 1]);
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

/* The page's markup with every run of text between tags taken out: the
 * same elements, no text (malloc'd). */
static char *strip_text(const char *html, size_t len) {
  char *out = malloc(len + 1);
  assert_non_null(out);
  size_t n = 0;
  int in_tag = 0;
  for (size_t i = 0; i < len; i++) {
    if (html[i] == '<')
      in_tag = 1;
    if (in_tag)
      out[n++] = html[i];
    if (html[i] == '>')
      in_tag = 0;
  }
  out[n] = '\0';
  return out;
}

/* Check 0: a page without text (a 0-byte file, bare markup of the site's
 * own layout, white space) is left out, with or without force, and says
 * why; a key page without text, or no other page with text, is
 * WN_EEMPTY. */
static void test_pages_without_text(void **state) {
  (void)state;
  static const char *const paths[] = {
      WN_FIXTURES "/site/article-1.html", WN_FIXTURES "/site/article-2.html",
      WN_FIXTURES "/site/article-3.html", WN_FIXTURES "/site/article-4.html"};
  wn_dom_page *pages[6];
  load_pages(paths, 3, pages);
  size_t len = 0;
  char *bytes = wn_test_read(paths[3], &len);
  char *bare = strip_text(bytes, len);
  free(bytes);
  wn_diag diag = {{0}};
  assert_int_equal(wn_dom_parse("", 0, NULL, &pages[3], &diag), WN_OK);
  assert_int_equal(wn_dom_parse(bare, strlen(bare), NULL, &pages[4], &diag), WN_OK);
  pages[5] = wn_test_parse("<body> <div>\n\t</div> <p> </p></body>");
  free(bare);
  for (size_t i = 0; i < 6; i++)
    assert_int_equal(wn_learn_page_has_text(pages[i]), i < 3);
  /* The bare page is of the site's own layout: only its lack of text
   * keeps it out. */
  uint8_t *mapped = NULL;
  assert_int_equal(wn_learn_map_to_key(pages[0], pages[4], &mapped, &diag), WN_OK);
  free(mapped);

  for (int force = 0; force <= 1; force++) {
    wn_learn_options o = {.force = force};
    wn_template *tpl = NULL;
    wn_learn_check checks[6];
    wn_err err = wn_learn_pages((const wn_dom_page *const *)pages, 6, &o, &tpl, checks, &diag);
    if (err)
      fail_msg("force %d: %s", force, wn_diag_message(&diag, err));
    assert_non_null(tpl);
    for (size_t i = 0; i < 3; i++) {
      assert_true(checks[i].used);
      assert_int_equal(checks[i].err, WN_OK);
    }
    for (size_t i = 3; i < 6; i++) {
      assert_false(checks[i].used);
      assert_int_equal(checks[i].err, WN_EEMPTY);
      assert_string_equal(checks[i].message, WN_LEARN_TEXTLESS);
    }
    /* The same template as from the three pages with text. */
    wn_template *three = NULL;
    assert_int_equal(wn_learn_pages((const wn_dom_page *const *)pages, 3, &o, &three, NULL, &diag),
                     WN_OK);
    uint32_t a = 0, b = 0;
    wn_template_nodes(tpl, &a);
    wn_template_nodes(three, &b);
    assert_int_equal(a, b);
    wn_template_free(three);
    wn_template_free(tpl);
  }

  /* Only the key page has text. */
  const wn_dom_page *lone[] = {pages[0], pages[3], pages[4]};
  wn_template *tpl = NULL;
  wn_learn_check checks[3];
  wn_diag_clear(&diag);
  assert_int_equal(wn_learn_pages(lone, 3, NULL, &tpl, checks, &diag), WN_EEMPTY);
  assert_null(tpl);
  const char *msg = wn_diag_message(&diag, WN_EEMPTY);
  if (!strstr(msg, "only the key page of 3 has text"))
    fail_msg("message: %s", msg);
  assert_int_equal(checks[1].err, WN_EEMPTY);
  assert_int_equal(checks[2].err, WN_EEMPTY);
  /* One page with text besides an empty one and the key page: too few. */
  const wn_dom_page *two[] = {pages[0], pages[3]};
  assert_int_equal(wn_learn_pages(two, 2, NULL, &tpl, NULL, &diag), WN_EEMPTY);
  /* A key page without text. */
  const wn_dom_page *keyless[] = {pages[3], pages[0], pages[1], pages[2]};
  wn_learn_check kc[4];
  wn_diag_clear(&diag);
  assert_int_equal(wn_learn_pages(keyless, 4, NULL, &tpl, kc, &diag), WN_EEMPTY);
  assert_null(tpl);
  msg = wn_diag_message(&diag, WN_EEMPTY);
  if (!strstr(msg, "the key page has no text"))
    fail_msg("message: %s", msg);
  assert_false(kc[0].used);
  assert_string_equal(kc[0].message, WN_LEARN_TEXTLESS);
  free_pages(pages, 6);
}

/* The same through the library's learning from files: the report names
 * the page left out and why, and the template is stored from the rest. */
static void test_site_learn_reports_textless(void **state) {
  (void)state;
  static const char *const names[] = {"article-1.html", "article-2.html", "empty.html",
                                      "article-3.html"};
  const char *bytes[4];
  size_t len[4];
  char *own[4] = {NULL, NULL, NULL, NULL};
  static const char *const paths[] = {WN_FIXTURES "/site/article-1.html",
                                      WN_FIXTURES "/site/article-2.html", NULL,
                                      WN_FIXTURES "/site/article-3.html"};
  for (size_t i = 0; i < 4; i++) {
    if (paths[i])
      own[i] = wn_test_read(paths[i], &len[i]);
    else
      len[i] = 0;
    bytes[i] = own[i] ? own[i] : "";
  }
  wn_learned *l = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_site_learn_pages("example.com", names, bytes, len, 4, NULL, &l, &diag);
  if (err)
    fail_msg("%s", wn_diag_message(&diag, err));
  const wn_learn_page *p = wn_learned_page(l, 2);
  assert_non_null(p);
  assert_string_equal(p->name, "empty.html");
  assert_false(p->used);
  assert_int_equal(p->err, WN_EEMPTY);
  assert_non_null(strstr(p->message, "no text"));
  for (size_t i = 0; i < 4; i++)
    if (i != 2)
      assert_true(wn_learned_page(l, i)->used);
  wn_learned_free(l);
  /* With the key page empty: refused, and the report says why. */
  const char *const names2[] = {"empty.html", "article-1.html", "article-2.html"};
  const char *bytes2[] = {"", bytes[0], bytes[1]};
  size_t len2[] = {0, len[0], len[1]};
  l = NULL;
  wn_diag_clear(&diag);
  assert_int_equal(wn_site_learn_pages("example.com", names2, bytes2, len2, 3, NULL, &l, &diag),
                   WN_EEMPTY);
  assert_non_null(strstr(wn_diag_message(&diag, WN_EEMPTY), "key page has no text"));
  wn_learned_free(l);
  for (size_t i = 0; i < 4; i++)
    free(own[i]);
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
      cmocka_unit_test(test_pages_without_text),
      cmocka_unit_test(test_site_learn_reports_textless),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
