/* tests/learn/test_fastce.c: FastCE's preparation phase on hand-made
 * pages whose template was worked out by hand. */
#include "wn_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect/detect.h"
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

/* The site-level path filter (docs/fastce.md, "Beyond the paper"): four
 * pages of a story (two paragraphs) and a "more stories" list whose links
 * differ from page to page. ContentExtractor's test calls every block
 * content: nothing recurs. As the paper states it (wn_learn_fastce), P is
 * the story's path and the list's. The single-page method reads the list
 * as links, not main content, on every sample, so wn_learn_fastce_pages
 * (any selector but "paper") leaves its path out of P, and records the
 * flag that turns on detection's link rule; with selector "paper" it
 * learns as the paper states. Per path, the content text bytes per sample
 * page are kept (the story: its two paragraphs, 4 pages). */
#define MORE(a, b, c)                                                                            \
  "<div id=more><ul><li><a href=/1>" a "</a></li><li><a href=/2>" b "</a></li><li><a "         \
  "href=/3>" c "</a></li></ul></div>"
static const char *story_html[4] = {
    "<html><body><div id=story><p>The harbour board approved, after a long debate on Monday, a "
    "plan to dredge the eastern channel, so that larger ferries can dock.</p><p>Work starts in "
    "June, the board said, and should last about eleven weeks, weather permitting.</p></div>" MORE(
        "Mayor opens the new library", "Floods close the coast road", "Schools reopen after "
        "storm") "</body></html>",
    "<html><body><div id=story><p>Volunteers counted, for the third year running, more than two "
    "thousand seabirds nesting on the cliffs north of the town.</p><p>The count, which took four "
    "days, found puffins back on the western ledges, to everyone's delight.</p></div>" MORE(
        "Council votes on parking fees", "Bridge repairs run late", "Rowing club wins regatta")
        "</body></html>",
    "<html><body><div id=story><p>The old cannery, empty since 1994, will become a market hall "
    "with twenty stalls, a bakery and, upstairs, artists' studios.</p><p>Planners expect, if the "
    "sale goes through, that the hall could open by next summer.</p></div>" MORE(
        "Ferry fares to rise in May", "Lifeboat crew rescues walkers", "New bus route for "
        "villages") "</body></html>",
    "<html><body><div id=story><p>A storm, the strongest in a decade, brought down power lines "
    "across the valley, leaving three hundred homes without heat.</p><p>Engineers worked, "
    "through the night and into Sunday, to restore supplies to every street.</p></div>" MORE(
        "Farmers market moves indoors", "Teachers plan a protest", "Hospital car park to "
        "expand") "</body></html>",
};

static void test_learn_site_filter(void **state) {
  (void)state;
  wn_dom_page *pages[4];
  for (int i = 0; i < 4; i++)
    pages[i] = wn_test_parse(story_html[i]);
  wn_fastce *f = NULL;
  assert_int_equal(wn_learn_fastce((const wn_dom_page *const *)pages, 4, &f, NULL), WN_OK);
  assert_int_equal(wn_fastce_path_count(f), 2);
  assert_string_equal(wn_fastce_path(f, 0, NULL), "html.body.div.p");
  assert_string_equal(wn_fastce_path(f, 1, NULL), "html.body.div.ul");
  assert_int_equal(wn_fastce_flags(f), 0);
  wn_fastce_free(f);

  wn_learn_options o;
  wn_learn_options_init(&o);
  o.force = 1;
  assert_int_equal(
      wn_learn_fastce_pages((const wn_dom_page *const *)pages, 4, &o, &f, NULL, NULL), WN_OK);
  assert_int_equal(wn_fastce_path_count(f), 1);
  assert_string_equal(wn_fastce_path(f, 0, NULL), "html.body.div.p");
  assert_int_equal(wn_fastce_flags(f), WN_FASTCE_FLAG_SITE);
  /* The story's text per page: the paragraphs' bytes over the 4 pages. */
  size_t bytes = 0;
  for (int i = 0; i < 4; i++) {
    uint32_t count = 0;
    const wn_dom_node *nodes = wn_dom_nodes(pages[i], &count);
    for (uint32_t k = 0; k < count; k++)
      if (nodes[k].tag == WN_TAG_TEXT && strcmp(nodes[nodes[k].parent].name, "p") == 0)
        bytes += nodes[k].own_text_len;
  }
  assert_int_equal(wn_fastce_path_text(f, 0), (bytes + 2) / 4);
  wn_fastce_free(f);

  o.selector = WN_SELECT_PAPER;
  assert_int_equal(
      wn_learn_fastce_pages((const wn_dom_page *const *)pages, 4, &o, &f, NULL, NULL), WN_OK);
  assert_int_equal(wn_fastce_path_count(f), 2);
  assert_int_equal(wn_fastce_flags(f), 0);
  wn_fastce_free(f);
  for (int i = 0; i < 4; i++)
    wn_dom_free(pages[i]);
}

/* The guard on the path filter: on a site where the single-page method
 * keeps less than half of what ContentExtractor calls content over the
 * samples, its verdict per path is not used and no path is taken out: the
 * site rules learn the paper's paths. Here each page is a one-line note
 * beside a long list of links that differ from page to page, set as an
 * <aside>: DANAg keeps the note and leaves the list, most of the text,
 * out (its area reading leaves an aside out too). */
#define LINKS(x)                                                                                 \
  "<aside id=more><ul><li><a href=/a>" x " opens the new library today</a></li><li><a href=/b>" x \
  " and the coast road floods again</a></li><li><a href=/c>" x " schools reopen after the "      \
  "storm</a></li><li><a href=/d>" x " votes on parking fees</a></li><li><a href=/e>" x          \
  " bridge repairs run late</a></li><li><a href=/f>" x " rowing club wins the regatta</a></li>"  \
  "<li><a href=/g>" x " ferry fares rise in May</a></li><li><a href=/h>" x " lifeboat crew "     \
  "rescues walkers</a></li></ul></aside>"
static const char *manual_html[4] = {
    "<html><body><div id=doc><p>The reader note, brief.</p></div>" LINKS("North") "</body></html>",
    "<html><body><div id=doc><p>The writer note, brief.</p></div>" LINKS("South") "</body></html>",
    "<html><body><div id=doc><p>The parser note, brief.</p></div>" LINKS("East") "</body></html>",
    "<html><body><div id=doc><p>The cursor note, brief.</p></div>" LINKS("West") "</body></html>",
};

static void test_learn_site_filter_guard(void **state) {
  (void)state;
  wn_dom_page *pages[4];
  for (int i = 0; i < 4; i++)
    pages[i] = wn_test_parse(manual_html[i]);
  /* What DANAg keeps of the pages' text: less than half. */
  uint64_t all = 0, kept = 0;
  for (int i = 0; i < 4; i++) {
    wn_detect_result *res = NULL;
    assert_int_equal(wn_detect_single(pages[i], WN_SINGLE_DANAG, &res, NULL), WN_OK);
    uint32_t count = 0;
    const wn_dom_node *nodes = wn_dom_nodes(pages[i], &count);
    const uint8_t *keep = wn_detect_keep_flags(res);
    for (uint32_t k = 0; k < count; k++)
      if (nodes[k].tag == WN_TAG_TEXT) {
        all += nodes[k].own_text_len;
        kept += keep[k] ? nodes[k].own_text_len : 0;
      }
    wn_detect_result_free(res);
  }
  if (!(2 * kept < all))
    fail_msg("the fixture must be one where DANAg keeps under half: it kept %llu of %llu bytes",
             (unsigned long long)kept, (unsigned long long)all);
  wn_learn_options o;
  wn_learn_options_init(&o);
  o.force = 1;
  wn_fastce *site = NULL, *paper = NULL;
  assert_int_equal(
      wn_learn_fastce_pages((const wn_dom_page *const *)pages, 4, &o, &site, NULL, NULL), WN_OK);
  o.selector = WN_SELECT_PAPER;
  assert_int_equal(
      wn_learn_fastce_pages((const wn_dom_page *const *)pages, 4, &o, &paper, NULL, NULL), WN_OK);
  assert_int_equal(wn_fastce_path_count(site), wn_fastce_path_count(paper));
  assert_true(wn_fastce_path_count(site) >= 2);
  wn_fastce_free(site);
  wn_fastce_free(paper);
  for (int i = 0; i < 4; i++)
    wn_dom_free(pages[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_learn_paths_and_stored),
      cmocka_unit_test(test_learn_nothing_content),
      cmocka_unit_test(test_learn_pages_check),
      cmocka_unit_test(test_learn_site_filter),
      cmocka_unit_test(test_learn_site_filter_guard),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
