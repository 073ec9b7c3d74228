/* tests/learn/test_fastce.c: FastCE's preparation phase on hand-made
 * pages whose template was worked out by hand. */
#include "wn_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "learn/learn.h"

/* Three pages of one layout: a navigation box, the story (h1 and p in
 * div#main), and a footer p that reads the same on every page.
 *  - div#nav's own content (two links, "home", "world") recurs on both
 *    other pages: non-content; its path html.body.div holds no content
 *    block (div#main and div#foot have no own content), so it is not in P
 *    and the nav is not stored;
 *  - the h1 and the story p differ: content, paths html.body.div.h1 and
 *    html.body.div.p, on 3 of 3 pages;
 *  - the footer p recurs: non-content, but on the content path
 *    html.body.div.p: stored (once: the three are alike). */
#define NAV "<div id=nav><a href=\"/\">Home</a><a href=\"/w\">World</a></div>"
#define FOOT "<div id=foot><p>Copyright Example News, all rights reserved.</p></div>"
static const char *pages_html[3] = {
    "<html><body>" NAV "<div id=main><h1>Ferry enters service</h1><p>The electric ferry "
    "carried forty passengers on its first run across the channel.</p></div>" FOOT
    "</body></html>",
    "<html><body>" NAV "<div id=main><h1>Library reopens</h1><p>The flooded library opened "
    "again with a map room and a seed bank for gardeners.</p></div>" FOOT "</body></html>",
    "<html><body>" NAV "<div id=main><h1>Bus to the hospital</h1><p>Route nine will run on "
    "Sundays from next month, the council said on Tuesday.</p></div>" FOOT "</body></html>",
};

static void test_learn_paths_and_stored(void **state) {
  (void)state;
  wn_dom_page *pages[3];
  for (int i = 0; i < 3; i++)
    pages[i] = wn_test_parse(pages_html[i]);
  wn_fastce *f = NULL;
  wn_diag d = {{0}};
  wn_err e = wn_learn_fastce((const wn_dom_page *const *)pages, 3, &f, &d);
  if (e)
    fail_msg("%s", wn_diag_message(&d, e));
  assert_int_equal(wn_fastce_path_count(f), 2);
  uint32_t n = 0;
  assert_string_equal(wn_fastce_path(f, 0, &n), "html.body.div.h1");
  assert_int_equal(n, 3);
  assert_string_equal(wn_fastce_path(f, 1, &n), "html.body.div.p");
  assert_int_equal(n, 3);
  assert_int_equal(wn_fastce_stored_count(f), 1);
  wn_fastce_stored s = wn_fastce_stored_get(f, 0);
  assert_int_equal(s.path, 1);
  assert_string_equal(s.sample, "Copyright Example News, all rights reserved.");
  assert_int_equal(wn_fastce_sample_pages(f), 3);
  wn_fastce_free(f);
  for (int i = 0; i < 3; i++)
    wn_dom_free(pages[i]);
}

/* Pages whose every block recurs have no content path: WN_EEMPTY. */
static void test_learn_nothing_content(void **state) {
  (void)state;
  const char *same = "<html><body>" NAV FOOT "</body></html>";
  wn_dom_page *pages[2] = {wn_test_parse(same), wn_test_parse(same)};
  wn_fastce *f = NULL;
  wn_diag d = {{0}};
  assert_int_equal(wn_learn_fastce((const wn_dom_page *const *)pages, 2, &f, &d), WN_EEMPTY);
  assert_null(f);
  assert_non_null(strstr(wn_diag_message(&d, WN_EEMPTY), "no content path"));
  wn_dom_free(pages[0]);
  wn_dom_free(pages[1]);
}

/* The share check of ETDM learning applies: a page of another layout is
 * left out and the template learned from the rest. */
static void test_learn_pages_check(void **state) {
  (void)state;
  wn_dom_page *pages[4];
  for (int i = 0; i < 3; i++)
    pages[i] = wn_test_parse(pages_html[i]);
  pages[3] = wn_test_parse("<html><body><table><tr><td>Another site</td></tr><tr><td>"
                           "with tables</td></tr></table><form><p>Search</p></form>"
                           "</body></html>");
  wn_fastce *f = NULL;
  wn_learn_check checks[4];
  wn_learn_options o;
  wn_learn_options_init(&o);
  assert_int_equal(wn_learn_fastce_pages((const wn_dom_page *const *)pages, 4, &o, &f, checks,
                                         NULL),
                   WN_OK);
  assert_true(checks[0].used && checks[1].used && checks[2].used);
  assert_false(checks[3].used);
  assert_int_equal(checks[3].err, WN_EEMPTY);
  assert_int_equal(wn_fastce_sample_pages(f), 3);
  assert_int_equal(wn_fastce_path_count(f), 2);
  wn_fastce_free(f);
  const double share_left_out = checks[3].share;
  assert_true(share_left_out < 0.5);
  /* force uses every page; each check still says what the page shares, as
   * ETDM learning's does (one check for both: wn_learn_check_pages). */
  o.force = 1;
  assert_int_equal(wn_learn_fastce_pages((const wn_dom_page *const *)pages, 4, &o, &f, checks,
                                         NULL),
                   WN_OK);
  for (int i = 0; i < 4; i++)
    assert_true(checks[i].used);
  assert_true(checks[3].share == share_left_out);
  assert_int_equal(wn_fastce_sample_pages(f), 4);
  wn_fastce_free(f);
  for (int i = 0; i < 4; i++)
    wn_dom_free(pages[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_learn_paths_and_stored),
      cmocka_unit_test(test_learn_nothing_content),
      cmocka_unit_test(test_learn_pages_check),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
