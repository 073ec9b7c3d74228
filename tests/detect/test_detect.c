/* tests/detect/test_detect.c: Algorithms 2 to 5 on small trees worked out
 * by hand, and detection end to end. */
#include "wn_test.h"

#include <stdlib.h>

#include "detect/detect.h"
#include "detect/detect_int.h"
#include "learn/learn.h"

/* Nodes of the tree used below:
 *  0 html, 1 body, 2 div#a, 3 p, 4 "x", 5 p, 6 "y", 7 div#b, 8 p, 9 "z",
 *  10 div#c, 11 span, 12 "w" */
static const char *tree = "<body><div id=a><p>x</p><p>y</p></div><div id=b><p>z</p></div>"
                          "<div id=c><span>w</span></div></body>";

static void flags(uint8_t *cand, uint32_t count, const uint32_t *on, size_t n) {
  memset(cand, 0, count);
  for (size_t k = 0; k < n; k++)
    cand[on[k]] = 1;
}

static void test_alg2_reduce(void **state) {
  (void)state;
  wn_dom_page *page = wn_test_parse(tree);
  uint32_t count = 0;
  wn_dom_nodes(page, &count);
  assert_int_equal(count, 13);
  uint8_t cand[13];
  uint32_t reduced[13];
  const uint32_t on[] = {3, 4, 5, 6, 8, 9, 10, 11, 12};
  flags(cand, count, on, 9);
  /* Subtree roots only: 3, 5, 8 and 10 (11, 12 are inside 10). */
  assert_int_equal(wn_detect_reduce(page, cand, reduced), 4);
  assert_int_equal(reduced[0], 3);
  assert_int_equal(reduced[1], 5);
  assert_int_equal(reduced[2], 8);
  assert_int_equal(reduced[3], 10);
  wn_dom_free(page);
}

static void test_alg3_branch(void **state) {
  (void)state;
  wn_dom_page *page = wn_test_parse(tree);
  /* Parents: 3,5 -> div#a (5 nodes), 8 -> div#b (3 nodes), 11 -> div#c
   * (3 nodes): div#a. */
  const uint32_t reduced[] = {3, 5, 8, 11};
  assert_int_equal(wn_detect_branch(page, reduced, 4), 2);
  /* Only 8 and 11: div#b and div#c tie at 3 nodes; the first in document
   * order wins. */
  const uint32_t tie[] = {8, 11};
  assert_int_equal(wn_detect_branch(page, tie, 2), 7);
  /* A child of body: the branch is body (13 - 1 = 12 nodes). */
  const uint32_t top[] = {3, 10};
  assert_int_equal(wn_detect_branch(page, top, 2), 1);
  assert_int_equal(wn_detect_branch(page, top, 0), WN_DOM_NONE);
  wn_dom_free(page);
}

static void test_alg4_discard(void **state) {
  (void)state;
  wn_dom_page *page = wn_test_parse(tree);
  uint32_t reduced[] = {3, 5, 8, 11};
  /* Branch div#a keeps 3 and 5. */
  assert_int_equal(wn_detect_discard(page, 2, reduced, 4), 2);
  assert_int_equal(reduced[0], 3);
  assert_int_equal(reduced[1], 5);
  uint32_t again[] = {3, 5, 8, 11};
  /* Branch body keeps all. */
  assert_int_equal(wn_detect_discard(page, 1, again, 4), 4);
  assert_int_equal(wn_detect_discard(page, WN_DOM_NONE, again, 4), 0);
  wn_dom_free(page);
}

static void test_alg5_group(void **state) {
  (void)state;
  wn_dom_page *page = wn_test_parse(tree);
  /* Siblings 3 and 5 become their parent div#a. */
  uint32_t a[] = {3, 5};
  assert_int_equal(wn_detect_group(page, a, 2), 1);
  assert_int_equal(a[0], 2);
  /* 3, 5 -> div#a, which is then a sibling of div#b (7): both -> body. */
  uint32_t b[] = {3, 5, 7};
  assert_int_equal(wn_detect_group(page, b, 3), 1);
  assert_int_equal(b[0], 1);
  /* No two share a parent: unchanged. */
  uint32_t c[] = {3, 8, 11};
  assert_int_equal(wn_detect_group(page, c, 3), 3);
  assert_int_equal(c[0], 3);
  assert_int_equal(c[1], 8);
  assert_int_equal(c[2], 11);
  /* 8 and 10: siblings? No: 8's parent is div#b, 10's is body. 7 and 10
   * are siblings -> body, which absorbs nothing else. */
  uint32_t d[] = {7, 10};
  assert_int_equal(wn_detect_group(page, d, 2), 1);
  assert_int_equal(d[0], 1);
  wn_dom_free(page);
}

/* A small site: nav, article, a per-page "related" list, footer. */
static const char *const site[] = {
    "<body><div id=nav><a href=/>Home</a> <a href=/w>World</a> <a href=/b>Business</a></div>"
    "<div id=main><h1>Rain returns to the valley</h1><p class=by>By Ann Lee</p>"
    "<p>After months of drought the valley saw its first heavy rain on Sunday.</p>"
    "<p>Farmers said the water came too late for the early crops.</p>"
    "<ul class=rel><li><a href=/1>Old dam to be rebuilt</a></li><li><a href=/2>Wells run dry</a></li></ul>"
    "</div><div id=foot>Copyright The Valley Times</div></body>",
    "<body><div id=nav><a href=/>Home</a> <a href=/w>World</a> <a href=/b>Business</a></div>"
    "<div id=main><h1>Council approves new bridge</h1><p class=by>By Tom Ray</p>"
    "<p>The council voted seven to two in favour of the river crossing.</p>"
    "<ul class=rel><li><a href=/3>Traffic plan delayed</a></li></ul>"
    "</div><div id=foot>Copyright The Valley Times</div></body>",
    "<body><div id=nav><a href=/>Home</a> <a href=/w>World</a> <a href=/b>Business</a></div>"
    "<div id=main><h1>School wins science prize</h1><p class=by>By Ann Lee</p>"
    "<p>Pupils built a weather station from recycled parts.</p><p>It now reports every hour.</p>"
    "<ul class=rel><li><a href=/4>Exam results out</a></li></ul>"
    "</div><div id=foot>Copyright The Valley Times</div></body>",
};

static const char *new_page =
    "<body><div id=nav><a href=/>Home</a> <a href=/w>World</a> <a href=/b>Business</a></div>"
    "<div id=main><h1>Market hall reopens</h1><p class=by>By Kim Oh</p>"
    "<p>The market hall opened its doors again after a two year restoration.</p>"
    "<p>Traders returned to stalls that had been in their families for generations.</p>"
    "<ul class=rel><li><a href=/5>Parking fees rise</a></li><li><a href=/6>New bus route</a></li></ul>"
    "</div><div id=foot>Copyright The Valley Times</div></body>";

static wn_template *learn_site(void) {
  wn_dom_page *pages[3];
  for (int i = 0; i < 3; i++)
    pages[i] = wn_test_parse(site[i]);
  wn_template *tpl = NULL;
  assert_int_equal(wn_learn_template((const wn_dom_page *const *)pages, 3, NULL, &tpl, NULL),
                   WN_OK);
  for (int i = 0; i < 3; i++)
    wn_dom_free(pages[i]);
  return tpl;
}

static char *detect_text(const char *html, const wn_template *tpl, wn_detect_selector sel,
                         double *confidence) {
  wn_dom_page *page = wn_test_parse(html);
  wn_detect_result *res = NULL;
  wn_detect_options opts = {.selector = sel};
  assert_int_equal(wn_detect_run(page, tpl, &opts, &res, NULL), WN_OK);
  wn_buf buf;
  wn_buf_init(&buf, 0);
  assert_int_equal(wn_detect_render_text(page, res, &buf), WN_OK);
  if (confidence)
    *confidence = wn_detect_confidence(res);
  wn_detect_result_free(res);
  wn_dom_free(page);
  return wn_buf_take(&buf, NULL);
}

static void test_detect_cues(void **state) {
  (void)state;
  wn_template *tpl = learn_site();
  double confidence = 0;
  char *text = detect_text(new_page, tpl, WN_SELECT_CUES, &confidence);
  assert_string_equal(text, "Market hall reopens\nBy Kim Oh\n"
                            "The market hall opened its doors again after a two year restoration.\n"
                            "Traders returned to stalls that had been in their families for "
                            "generations.\n");
  assert_true(confidence > 0.9 && confidence <= 1.0);
  free(text);
  /* The paper's selector, worked by hand: the unmapped nodes are the four
   * texts of the article (parents h1, p, p, p: subtrees of 2 nodes) and the
   * second related-link <li> (the key page's second <li> occurs in no
   * other sample page, so it is not in the template), whose parent <ul>
   * has the largest subtree (7 nodes), larger than the first link's text's
   * parent <a> (2 nodes): Algorithm 3 picks the <ul>, Algorithm 4 keeps
   * the first link's text and the second <li>, which are no siblings, so
   * Algorithm 5 keeps both, and the paper's answer is the related links.
   * This is why the cue selector exists. */
  text = detect_text(new_page, tpl, WN_SELECT_PAPER, NULL);
  assert_string_equal(text, "Parking fees rise\nNew bus route\n");
  free(text);
  /* A page of another site matches little of the template. */
  text = detect_text("<body><table><tr><td>Other site entirely, with its own words.</td></tr>"
                     "</table></body>", tpl, WN_SELECT_CUES, &confidence);
  assert_true(confidence < 0.3);
  free(text);
  wn_template_free(tpl);
}

/* A thread of one short post in the page's <main>, under a header whose
 * search chip names the page's forum (page-specific text of the frame):
 * the content ends where the author's <main> does. */
#define THREAD_PAGE(forum, title, post)                                                    \
  "<body><header><nav><a href=/>Home</a> <span class=chip>" forum "</span> <a href=/app>" \
  "Get the app</a></nav></header><main><h1>" title "</h1><p>" post "</p></main>"            \
  "<footer>Rules and privacy</footer></body>"

static void test_detect_cues_main(void **state) {
  (void)state;
  const char *thread[] = {
      THREAD_PAGE("r/Cooking", "Cast iron on glass tops?",
                  "Will my pan scratch the hob, or is that a myth from old stoves?"),
      THREAD_PAGE("r/Laptops", "Best laptop for college",
                  "Mostly writing and some light photo editing, budget around 800."),
      THREAD_PAGE("r/Gardening", "Tomatoes splitting",
                  "Every fruit splits a day before it is ripe, what am I doing wrong here?")};
  wn_dom_page *pages[3];
  for (int i = 0; i < 3; i++)
    pages[i] = wn_test_parse(thread[i]);
  wn_template *tpl = NULL;
  assert_int_equal(wn_learn_template((const wn_dom_page *const *)pages, 3, NULL, &tpl, NULL),
                   WN_OK);
  for (int i = 0; i < 3; i++)
    wn_dom_free(pages[i]);
  char *text = detect_text(THREAD_PAGE("r/Cycling", "Chain keeps slipping",
                                       "It slips on the two smallest cogs only, even after a "
                                       "new chain."),
                           tpl, WN_SELECT_CUES, NULL);
  assert_string_equal(text, "Chain keeps slipping\nIt slips on the two smallest cogs only, even "
                            "after a new chain.\n");
  free(text);
  wn_template_free(tpl);
}

/* A manual: a navigation bar that names the current chapter, the chapter
 * in a div whose id changes from page to page, a footer. */
#define MANUAL_PAGE(title, id, body)                                                         \
  "<body><div class=nav><a href=/prev>Prev</a> <b>" title "</b> <a href=/next>Next</a></div>" \
  "<div class=body><div id=" id "><h1>" title "</h1>" body "</div></div>"                     \
  "<div class=foot>Manual 1.0, all rights reserved.</div></body>"

static wn_template *learn_manual(uint8_t selector) {
  const char *manual[] = {
      MANUAL_PAGE("Chapter 1. Installing", "ch1",
                  "<p>Unpack the archive, run the installer, and answer its questions.</p>"),
      MANUAL_PAGE("Chapter 2. Configuring", "ch2",
                  "<p>The configuration file lists servers, ports, and users, one per line.</p>"),
      MANUAL_PAGE("Chapter 3. Upgrading", "ch3",
                  "<p>Stop the service, back up the data, then install the new version.</p>")};
  wn_dom_page *pages[3];
  for (int i = 0; i < 3; i++)
    pages[i] = wn_test_parse(manual[i]);
  wn_learn_options opts = {.selector = selector};
  wn_template *tpl = NULL;
  assert_int_equal(wn_learn_template((const wn_dom_page *const *)pages, 3, &opts, &tpl, NULL),
                   WN_OK);
  for (int i = 0; i < 3; i++)
    wn_dom_free(pages[i]);
  return tpl;
}

static const char *manual_contents =
    MANUAL_PAGE("Contents", "toc",
                "<ul><li><a href=/ch1>Installing the server</a></li>"
                "<li><a href=/ch2>Configuring clients</a></li>"
                "<li><a href=/ch3>Backup and restore</a></li></ul>");

/* The region selector, worked by hand on the manual's contents page: the
 * reduced candidates are the nav bar's <b> (its text is the page's own,
 * under the mapped nav div) and div#toc (its id is new). div#toc holds
 * the most page-specific text, so it is the region; the <b> is no sibling
 * of it, so the nav bar's chapter name stays out. The list of links is
 * kept whole: on such a site it is the page's content. The cue selector
 * drops it as a link box, which is why a site can choose. */
static void test_detect_region(void **state) {
  (void)state;
  wn_template *tpl = learn_manual(WN_SELECT_REGION);
  char *text = detect_text(manual_contents, tpl, WN_SELECT_REGION, NULL);
  assert_string_equal(text, "Contents\nInstalling the server\nConfiguring clients\n"
                            "Backup and restore\n");
  free(text);
  text = detect_text(manual_contents, tpl, WN_SELECT_CUES, NULL);
  assert_null(strstr(text, "Backup and restore"));
  free(text);
  /* A prose page: the chapter, without the nav bar's copy of its title. */
  text = detect_text(MANUAL_PAGE("Chapter 4. Removing", "ch4",
                                 "<p>Run the uninstaller; your data stays where it was.</p>"),
                     tpl, WN_SELECT_REGION, NULL);
  assert_string_equal(text, "Chapter 4. Removing\nRun the uninstaller; your data stays where it "
                            "was.\n");
  free(text);
  wn_template_free(tpl);
}

/* The site's selector travels in its template: zeroed options use it, a
 * caller's choice overrides it, and unknown values are errors. */
static void test_detect_site_selector(void **state) {
  (void)state;
  wn_template *tpl = learn_manual(WN_SELECT_REGION);
  assert_int_equal(wn_template_selector(tpl), WN_SELECT_REGION);
  wn_dom_page *page = wn_test_parse(manual_contents);
  wn_detect_result *res = NULL;
  assert_int_equal(wn_detect_run(page, tpl, NULL, &res, NULL), WN_OK);
  assert_string_equal(wn_detect_method(res), "template-region");
  wn_detect_result_free(res);
  wn_detect_options opts = {.selector = WN_SELECT_CUES};
  assert_int_equal(wn_detect_run(page, tpl, &opts, &res, NULL), WN_OK);
  assert_string_equal(wn_detect_method(res), "template");
  wn_detect_result_free(res);
  /* The policy keeps the site's selector too. */
  opts.selector = WN_SELECT_SITE;
  opts.min_confidence = WN_DETECT_DEFAULT_MIN_CONFIDENCE;
  assert_int_equal(wn_detect_page(page, tpl, &opts, 0, &res, NULL), WN_OK);
  assert_string_equal(wn_detect_method(res), "template-region");
  wn_detect_result_free(res);
  /* A template learned without a choice: cues. */
  wn_template_set_selector(tpl, 0);
  assert_int_equal(wn_detect_run(page, tpl, NULL, &res, NULL), WN_OK);
  assert_string_equal(wn_detect_method(res), "template");
  wn_detect_result_free(res);
  wn_diag diag;
  wn_diag_clear(&diag);
  opts.selector = (wn_detect_selector)77;
  assert_int_equal(wn_detect_run(page, tpl, &opts, &res, &diag), WN_EINVAL);
  assert_null(res);
  assert_non_null(strstr(diag.msg, "unknown selector 77"));
  wn_template_set_selector(tpl, 9);
  wn_diag_clear(&diag);
  assert_int_equal(wn_detect_page(page, tpl, NULL, 0, &res, &diag), WN_ECORRUPT);
  assert_non_null(strstr(diag.msg, "template names unknown selector 9"));
  /* Names. */
  wn_detect_selector sel = WN_SELECT_CUES;
  assert_int_equal(wn_detect_selector_parse("region", &sel), WN_OK);
  assert_int_equal(sel, WN_SELECT_REGION);
  assert_int_equal(wn_detect_selector_parse("site", &sel), WN_OK);
  assert_int_equal(sel, WN_SELECT_SITE);
  assert_int_equal(wn_detect_selector_parse("Region", &sel), WN_EINVAL);
  assert_int_equal(wn_detect_selector_parse(NULL, &sel), WN_EINVAL);
  assert_string_equal(wn_detect_selector_name(WN_SELECT_PAPER), "paper");
  assert_null(wn_detect_selector_name((wn_detect_selector)42));
  wn_dom_free(page);
  wn_template_free(tpl);
}

static void test_detect_template_only_page(void **state) {
  (void)state;
  wn_template *tpl = learn_site();
  /* A page that is all template (an index page with nothing new). */
  char *text = detect_text(
      "<body><div id=nav><a href=/>Home</a> <a href=/w>World</a> <a href=/b>Business</a></div>"
      "<div id=foot>Copyright The Valley Times</div></body>",
      tpl, WN_SELECT_CUES, NULL);
  assert_string_equal(text, "");
  free(text);
  wn_template_free(tpl);
}

/* The detection policy: no template, another site's page, the site's own
 * page after a redesign (same story, new markup) go to the fallback, with
 * the reason and the template's confidence; the site's own page of the
 * learned layout stays with the template. */
static void policy(const char *html, const wn_template *tpl, const wn_detect_options *opts,
                   const char *method, wn_detect_fallback reason, const char *want_text) {
  wn_dom_page *page = wn_test_parse(html);
  wn_detect_result *res = NULL;
  assert_int_equal(wn_detect_page(page, tpl, opts, 0, &res, NULL), WN_OK);
  assert_string_equal(wn_detect_method(res), method);
  assert_int_equal(wn_detect_fallback_reason(res), reason);
  double c = wn_detect_confidence(res);
  if (!tpl)
    assert_true(c == 0.0);
  else if (reason == WN_FALLBACK_LOW_CONFIDENCE)
    assert_true(c < opts->min_confidence);
  else
    assert_true(c >= opts->min_confidence);
  wn_buf buf;
  wn_buf_init(&buf, 0);
  assert_int_equal(wn_detect_render_text(page, res, &buf), WN_OK);
  char *text = wn_buf_take(&buf, NULL);
  assert_non_null(strstr(text, want_text));
  free(text);
  wn_detect_result_free(res);
  wn_dom_free(page);
}

static const char *redesigned_page =
    "<body><header class=top><nav class=menu><ul><li><a href=/>Home</a></li>"
    "<li><a href=/world>World</a></li><li><a href=/biz>Business</a></li></ul></nav></header>"
    "<main class=layout><article class=story><h1 class=headline>Market hall reopens</h1>"
    "<p>The market hall opened its doors again after a two year restoration.</p>"
    "<p>Traders returned to stalls that had been in their families for generations.</p>"
    "</article><aside class=more><ul><li><a href=/5>Parking fees rise</a></li></ul></aside>"
    "</main><footer class=bottom>Copyright The Valley Times</footer></body>";

static void test_detect_policy(void **state) {
  (void)state;
  wn_template *tpl = learn_site();
  wn_detect_options opts = {.selector = WN_SELECT_CUES,
                            .min_confidence = WN_DETECT_DEFAULT_MIN_CONFIDENCE,
                            .fallback = WN_SINGLE_DANAG};
  const char *story = "Traders returned to stalls";
  policy(new_page, tpl, &opts, "template", WN_FALLBACK_NONE, story);
  policy(new_page, NULL, &opts, "danag", WN_FALLBACK_NO_TEMPLATE, story);
  policy(redesigned_page, tpl, &opts, "danag", WN_FALLBACK_LOW_CONFIDENCE, story);
  policy("<body><table><tr><td><p>Another site entirely, with its own words, its own "
         "story and its own long paragraph of text.</p></td></tr></table></body>",
         tpl, &opts, "danag", WN_FALLBACK_LOW_CONFIDENCE, "Another site entirely");
  opts.fallback = WN_SINGLE_CNR;
  policy(redesigned_page, tpl, &opts, "cnr", WN_FALLBACK_LOW_CONFIDENCE, story);
  /* Threshold 0 never falls back while there is a template; NULL options
   * are the zero options: DANAg, threshold 0. */
  opts.min_confidence = 0;
  policy(redesigned_page, tpl, &opts, "template", WN_FALLBACK_NONE, "");
  wn_dom_page *page = wn_test_parse(new_page);
  wn_detect_result *res = NULL;
  assert_int_equal(wn_detect_page(page, NULL, NULL, 0, &res, NULL), WN_OK);
  assert_string_equal(wn_detect_method(res), "danag");
  assert_string_equal(wn_detect_fallback_name(wn_detect_fallback_reason(res)), "no template");
  assert_null(wn_detect_fallback_name(WN_FALLBACK_NONE));
  assert_string_equal(wn_detect_fallback_name(WN_FALLBACK_LOW_CONFIDENCE), "low confidence");
  wn_detect_result_free(res);
  wn_dom_free(page);
  wn_template_free(tpl);
}

/* A selection of table cells or list items is written inside the table
 * or list it needs (a bare <tr> or <li> is no HTML a browser renders as
 * the page did); consecutive ones of one parent share it. The selection
 * is made by hand: the rows of a table, the items of an ordered list. */
static void test_render_html_wrappers(void **state) {
  (void)state;
  const char *html = "<html><body><table><tr><td>Cell one</td></tr><tr><td>Cell two</td>"
                     "</tr></table><ol><li>First item</li><li>Second item</li></ol>"
                     "<p>Closing words.</p></body></html>";
  wn_dom_page *page = NULL;
  wn_dom_options opts = {.keep_xml = 1};
  assert_int_equal(wn_dom_parse(html, strlen(html), &opts, &page, NULL), WN_OK);
  uint32_t count = 0;
  const wn_dom_node *n = wn_dom_nodes(page, &count);
  wn_detect_result *res = wn_detect_result_alloc(count, "test");
  assert_non_null(res);
  for (uint32_t i = 0; i < count; i++)
    res->keep[i] = n[i].tag == WN_TAG_TEXT;
  for (uint32_t i = 0; i < count; i++) /* not the table, the list, the body */
    if (n[i].tag == WN_TAG_TABLE || n[i].tag == WN_TAG_OL || n[i].tag == WN_TAG_BODY ||
        n[i].tag == WN_TAG_HTML || n[i].tag == WN_TAG_TBODY)
      res->keep[i] = 0;
  res->selected = malloc(8 * sizeof *res->selected);
  assert_non_null(res->selected);
  for (uint32_t i = 0; i < count; i++)
    if (n[i].tag == WN_TAG_TR || n[i].tag == WN_TAG_LI || n[i].tag == WN_TAG_P)
      res->selected[res->n_selected++] = i;
  assert_int_equal(res->n_selected, 5);
  wn_buf buf;
  wn_buf_init(&buf, 0);
  assert_int_equal(wn_detect_render_html(page, res, &buf, NULL), WN_OK);
  assert_non_null(buf.data);
  const char *t = strstr(buf.data, "<table><tr>");
  const char *t2 = t ? strstr(t, "Cell two") : NULL;
  const char *te = t2 ? strstr(t2, "</table>") : NULL;
  const char *o = te ? strstr(te, "<ol><li>First item</li>") : NULL;
  const char *oe = o ? strstr(o, "Second item</li>\n</ol>") : NULL;
  if (!oe || strstr(buf.data, "<table><tr><td>Cell two") || !strstr(oe, "<p>Closing words.</p>"))
    fail_msg("wrappers:\n%s", buf.data);
  wn_buf_free(&buf);
  wn_detect_result_free(res);
  wn_dom_free(page);
}

static void test_render_html(void **state) {
  (void)state;
  wn_template *tpl = learn_site();
  wn_dom_page *page = NULL;
  wn_dom_options opts = {.keep_xml = 1};
  assert_int_equal(wn_dom_parse(new_page, strlen(new_page), &opts, &page, NULL), WN_OK);
  wn_detect_result *res = NULL;
  assert_int_equal(wn_detect_run(page, tpl, NULL, &res, NULL), WN_OK);
  wn_buf buf;
  wn_buf_init(&buf, 0);
  assert_int_equal(wn_detect_render_html(page, res, &buf, NULL), WN_OK);
  assert_non_null(strstr(buf.data, "<h1>Market hall reopens</h1>"));
  assert_null(strstr(buf.data, "Copyright"));
  wn_buf_free(&buf);
  wn_detect_result_free(res);
  wn_dom_free(page);
  /* Without the libxml2 doc HTML output is a clear error. */
  page = wn_test_parse(new_page);
  assert_int_equal(wn_detect_run(page, tpl, NULL, &res, NULL), WN_OK);
  wn_diag diag = {{0}};
  wn_buf_init(&buf, 0);
  assert_int_equal(wn_detect_render_html(page, res, &buf, &diag), WN_EINVAL);
  assert_non_null(strstr(diag.msg, "keep_xml"));
  wn_buf_free(&buf);
  wn_detect_result_free(res);
  wn_dom_free(page);
  wn_template_free(tpl);
}

/* An empty page (no input at all, or markup without elements) renders as
 * empty HTML, like its text, whatever method served it: not as an error
 * about keep_xml (there is no libxml2 node to serialise). */
static void test_render_html_empty_page(void **state) {
  (void)state;
  wn_template *tpl = learn_site();
  const char *const inputs[] = {"", "<html></html>", "<html><body></body></html>"};
  const wn_detect_selector selectors[] = {WN_SELECT_CUES, WN_SELECT_PAPER, WN_SELECT_REGION};
  for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; k++) {
    for (int keep_xml = 0; keep_xml <= 1; keep_xml++) {
      wn_dom_page *page = NULL;
      wn_dom_options opts = {.keep_xml = keep_xml};
      assert_int_equal(wn_dom_parse(inputs[k], strlen(inputs[k]), &opts, &page, NULL), WN_OK);
      for (size_t s = 0; s <= sizeof selectors / sizeof selectors[0]; s++) {
        /* s == 3: no template, the single-page fallback */
        wn_detect_options dopts = {.selector = s < 3 ? selectors[s] : WN_SELECT_SITE};
        wn_detect_result *res = NULL;
        assert_int_equal(wn_detect_page(page, s < 3 ? tpl : NULL, &dopts, 0, &res, NULL), WN_OK);
        wn_buf buf;
        wn_buf_init(&buf, 0);
        wn_diag diag = {{0}};
        wn_err err = wn_detect_render_html(page, res, &buf, &diag);
        if (err)
          fail_msg("input \"%s\" keep_xml %d selector %zu: %s", inputs[k], keep_xml, s,
                   wn_diag_message(&diag, err));
        assert_int_equal(buf.len, 0);
        assert_int_equal(wn_detect_render_text(page, res, &buf), WN_OK);
        assert_int_equal(buf.len, 0);
        wn_buf_free(&buf);
        wn_detect_result_free(res);
      }
      wn_dom_free(page);
    }
  }
  wn_template_free(tpl);
}

/* Permalink marks (Sphinx's "¶" headerlink, a "#" heading anchor, a
 * link symbol) are not text in text or Markdown output, with a template
 * and without; a link to a fragment with words, and a "#" that is no
 * link to the page itself, stay. */
static void test_permalink_marks(void **state) {
  (void)state;
  const char *html =
      "<html><body><div class=\"body\"><h1>Caching<a class=\"headerlink\" href=\"#caching\" "
      "title=\"Permalink to this headline\">\xc2\xb6</a></h1><p>The cache keeps the answers of "
      "the upstream servers for as long as they allow, and serves them again.</p>"
      "<h2 id=\"keys\">Keys <a href=\"#keys\"> # </a></h2><p>Each answer is stored under a key "
      "made of the method, the host and the path of the request it answers.</p>"
      "<h2 id=\"t\">Time <a href=\"#t\">\xf0\x9f\x94\x97</a></h2><p>Entries older than the "
      "limit are removed by a process that wakes once a minute to look at them.</p>"
      "<p>As <a href=\"#keys\">the keys section</a> says, and issue <a href=\"/i/7\">#</a> "
      "asks, the rules hold for every request of the cache.</p></div></body></html>";
  wn_dom_page *page = wn_test_parse(html);
  wn_detect_result *res = NULL;
  assert_int_equal(wn_detect_page(page, NULL, NULL, 0, &res, NULL), WN_OK);
  wn_buf out;
  wn_buf_init(&out, 1 << 20);
  assert_int_equal(wn_detect_render_text(page, res, &out), WN_OK);
  if (strstr(out.data, "\xc2\xb6") || strstr(out.data, "\xf0\x9f\x94\x97") ||
      strstr(out.data, "Keys #"))
    fail_msg("a permalink mark in the text:\n%s", out.data);
  assert_non_null(strstr(out.data, "Caching\n"));
  assert_non_null(strstr(out.data, "the keys section"));
  assert_non_null(strstr(out.data, "issue #"));
  wn_buf_reset(&out);
  assert_int_equal(wn_detect_render_markdown(page, res, NULL, &out, NULL), WN_OK);
  if (strstr(out.data, "\xc2\xb6") || strstr(out.data, "(#keys)\n") || strstr(out.data, "(#t)"))
    fail_msg("a permalink mark in the Markdown:\n%s", out.data);
  assert_non_null(strstr(out.data, "# Caching\n"));
  wn_buf_free(&out);
  wn_detect_result_free(res);
  wn_dom_free(page);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_alg2_reduce),       cmocka_unit_test(test_alg3_branch),
      cmocka_unit_test(test_alg4_discard),      cmocka_unit_test(test_alg5_group),
      cmocka_unit_test(test_detect_cues),       cmocka_unit_test(test_detect_cues_main),       cmocka_unit_test(test_detect_template_only_page),
      cmocka_unit_test(test_render_html),       cmocka_unit_test(test_detect_policy),
      cmocka_unit_test(test_render_html_empty_page), cmocka_unit_test(test_render_html_wrappers),
      cmocka_unit_test(test_detect_region),     cmocka_unit_test(test_detect_site_selector),
      cmocka_unit_test(test_permalink_marks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
