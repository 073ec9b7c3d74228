/* tests/detect/test_readings.c: the second reading (Readability's scoring,
 * readability.c), its combination with the density method (combine.c),
 * and the output invariants every method keeps: a block is
 * never output twice, a page with text never comes out empty, a short
 * post above a longer comment thread yields the post, a dialog never wins
 * over the page's text, text set with <br> is read, ruby readings are not
 * text. All through the public detector, as `winnow detect` runs. */
#define WN_UNSTABLE_API /* wn_detector_set_steps */
#include "wn_test.h"
#include "wn_story.h"

#include <stdlib.h>

#include "detect/detect.h"
#include "detect/single_int.h"
#include "winnow/winnow.h"

/* The text the store-less detector gives for html with the given
 * single-page method and steps (0: the default), malloc'd. */
static char *detect_text(const char *html, wn_single_method method, uint32_t steps) {
  wn_detector_options o;
  wn_detector_options_init(&o);
  o.detect.fallback = method;
  wn_detector *d = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_detector_create(NULL, &o, &d, &diag), WN_OK);
  assert_int_equal(wn_detector_set_steps(d, steps, &diag), WN_OK);
  wn_page_input in = {.bytes = html, .len = strlen(html), .url = "https://blog.example/post"};
  wn_page_result *r = NULL;
  wn_err err = wn_detector_detect(d, &in, WN_WANT_TEXT, &r, &diag);
  if (err)
    fprintf(stderr, "%s\n", wn_diag_message(&diag, err));
  assert_int_equal(err, WN_OK);
  size_t len = 0;
  const char *t = wn_page_result_text(r, &len);
  char *s = strdup(t ? t : "");
  assert_non_null(s);
  wn_page_result_free(r);
  wn_detector_destroy(d);
  return s;
}


static void append_story(wn_buf *b, const char *open, const char *close) {
  for (size_t k = 0; k < WN_TEST_STORY_N; k++) {
    assert_int_equal(wn_buf_append_str(b, open), WN_OK);
    assert_int_equal(wn_buf_append_str(b, wn_test_story[k]), WN_OK);
    assert_int_equal(wn_buf_append_str(b, close), WN_OK);
  }
}

static const char *const nav =
    "<nav><ul><li><a href=\"/\">Home</a></li><li><a href=\"/news\">News</a></li>"
    "<li><a href=\"/sport\">Sport</a></li><li><a href=\"/weather\">Weather</a></li>"
    "<li><a href=\"/about\">About us</a></li><li><a href=\"/contact\">Contact</a></li></ul></nav>";

/* Readability's reading alone: the paragraphs' parent wins, the menu and
 * the footer stay out, and prose whose sentences carry links is read (a
 * density method charges every link its markup). */
static void test_readability_alone(void **state) {
  (void)state;
  wn_buf b;
  wn_buf_init(&b, 1 << 20);
  assert_int_equal(wn_buf_append_str(&b, "<html><body>"), WN_OK);
  assert_int_equal(wn_buf_append_str(&b, nav), WN_OK);
  assert_int_equal(wn_buf_append_str(&b, "<div class=\"story\">"), WN_OK);
  for (size_t k = 0; k < WN_TEST_STORY_N; k++) {
    assert_int_equal(wn_buf_append_str(&b, "<p>"), WN_OK);
    assert_int_equal(wn_buf_append_str(&b, wn_test_story[k]), WN_OK);
    assert_int_equal(wn_buf_append_str(&b, " See <a href=\"/a\">the council</a>, "
                                           "<a href=\"/b\">the campaign</a>, "
                                           "<a href=\"/c\">the survey</a>.</p>"), WN_OK);
  }
  assert_int_equal(wn_buf_append_str(&b, "</div><div class=\"footer\">Copyright 2026 The Town "
                                         "Paper, all rights reserved, no reuse.</div>"
                                         "</body></html>"), WN_OK);
  char *t = detect_text(b.data, WN_SINGLE_READABILITY, 0);
  for (size_t k = 0; k < WN_TEST_STORY_N; k++)
    assert_non_null(strstr(t, wn_test_story[k]));
  assert_null(strstr(t, "Weather"));
  assert_null(strstr(t, "Copyright"));
  free(t);
  wn_buf_free(&b);
}

/* Text not in <p>: lines set with <br> in one <div>, beside a menu; both
 * readings and the default read the lines. */
static void test_br_lines(void **state) {
  (void)state;
  wn_buf b;
  wn_buf_init(&b, 1 << 20);
  assert_int_equal(wn_buf_append_str(&b, "<html><body><table><tr><td>"), WN_OK);
  assert_int_equal(wn_buf_append_str(&b, nav), WN_OK);
  assert_int_equal(wn_buf_append_str(&b, "</td><td><div><font>"), WN_OK);
  append_story(&b, "", "<br><br>");
  assert_int_equal(wn_buf_append_str(&b, "</font></div></td></tr></table></body></html>"),
                   WN_OK);
  char *t = detect_text(b.data, WN_SINGLE_DANAG, 0);
  for (size_t k = 0; k < WN_TEST_STORY_N; k++)
    assert_non_null(strstr(t, wn_test_story[k]));
  assert_null(strstr(t, "Weather"));
  free(t);
  t = detect_text(b.data, WN_SINGLE_READABILITY, 0);
  for (size_t k = 0; k < WN_TEST_STORY_N; k++)
    assert_non_null(strstr(t, wn_test_story[k]));
  free(t);
  wn_buf_free(&b);
}

/* Keeps in res the text nodes of the first element whose text starts
 * with prefix. */
static void keep_starting(const wn_dom_page *page, wn_detect_result *res, const char *prefix) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  for (uint32_t i = 0; i < count; i++)
    if (nodes[i].tag == WN_TAG_TEXT && strncmp(nodes[i].text, prefix, strlen(prefix)) == 0) {
      res->keep[i] = 1;
      return;
    }
  fail_msg("no text starts with %s", prefix);
}

/* The combination on a first reading made by hand: it kept the first and
 * the last paragraph of the story and lost the two between (as DANAg's
 * area loses a part cut off by an embed). Readability's reading holds the
 * whole story, so the lines between come in; the link box between them
 * and the menu, which the first reading did not keep, stay out. When the
 * two readings found different articles, nothing comes in. */
static void test_combine_gap(void **state) {
  (void)state;
  wn_buf b;
  wn_buf_init(&b, 1 << 20);
  assert_int_equal(wn_buf_append_str(&b, "<html><body>"), WN_OK);
  assert_int_equal(wn_buf_append_str(&b, nav), WN_OK);
  assert_int_equal(wn_buf_append_str(&b, "<div class=\"entry\"><p>"), WN_OK);
  assert_int_equal(wn_buf_append_str(&b, wn_test_story[0]), WN_OK);
  assert_int_equal(wn_buf_append_str(&b, "</p><p>"), WN_OK);
  assert_int_equal(wn_buf_append_str(&b, wn_test_story[1]), WN_OK);
  assert_int_equal(wn_buf_append_str(&b, "</p><div class=\"more\"><a href=\"/1\">More on the "
                                         "baths</a> <a href=\"/2\">Pool prices</a></div><p>"),
                   WN_OK);
  assert_int_equal(wn_buf_append_str(&b, wn_test_story[2]), WN_OK);
  assert_int_equal(wn_buf_append_str(&b, "</p><p>"), WN_OK);
  assert_int_equal(wn_buf_append_str(&b, wn_test_story[3]), WN_OK);
  assert_int_equal(wn_buf_append_str(&b, "</p></div></body></html>"), WN_OK);
  wn_dom_page *page = wn_test_parse(b.data);
  uint32_t count = 0;
  wn_dom_nodes(page, &count);
  const uint32_t steps = wn_single_default_steps(WN_SINGLE_DANAG);
  wn_detect_result *res = wn_detect_result_alloc(count, "danag");
  assert_non_null(res);
  keep_starting(page, res, "The council voted");
  keep_starting(page, res, "Swimming clubs");
  assert_int_equal(wn_single_second(page, NULL, NULL, steps, res), WN_OK);
  uint32_t n = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &n);
  int engineers = 0, opened = 0, more = 0, home = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (nodes[i].tag != WN_TAG_TEXT || !res->keep[i])
      continue;
    engineers |= strncmp(nodes[i].text, "Engineers", 9) == 0;
    opened |= strncmp(nodes[i].text, "The baths opened", 16) == 0;
    more |= strncmp(nodes[i].text, "More on", 7) == 0;
    home |= strcmp(nodes[i].text, "Home") == 0;
  }
  assert_true(engineers);
  assert_true(opened);
  assert_false(more);
  assert_false(home);
  wn_detect_result_free(res);
  /* A first reading elsewhere (the menu): the readings disagree, and
   * the first stands as it is. */
  res = wn_detect_result_alloc(count, "danag");
  keep_starting(page, res, "Weather");
  assert_int_equal(wn_single_second(page, NULL, NULL, steps, res), WN_OK);
  uint32_t kept = 0;
  for (uint32_t i = 0; i < n; i++)
    kept += res->keep[i];
  assert_int_equal(kept, 1);
  wn_detect_result_free(res);
  wn_dom_free(page);
  wn_buf_free(&b);
}

/* The story twice (an A/B test, one copy in a hidden box): each
 * paragraph is output once, with either method. */
static void test_story_twice(void **state) {
  (void)state;
  wn_buf b;
  wn_buf_init(&b, 1 << 20);
  assert_int_equal(wn_buf_append_str(&b, "<html><body>"), WN_OK);
  assert_int_equal(wn_buf_append_str(&b, nav), WN_OK);
  assert_int_equal(wn_buf_append_str(&b, "<div class=\"story\"><div class=\"variant-a\">"), WN_OK);
  append_story(&b, "<p>", "</p>");
  assert_int_equal(wn_buf_append_str(&b, "</div><div class=\"variant-b hidden\">"), WN_OK);
  append_story(&b, "<p>", "</p>");
  assert_int_equal(wn_buf_append_str(&b, "</div></div></body></html>"), WN_OK);
  const wn_single_method methods[] = {WN_SINGLE_DANAG, WN_SINGLE_CNR, WN_SINGLE_READABILITY};
  for (size_t m = 0; m < sizeof methods / sizeof *methods; m++) {
    char *t = detect_text(b.data, methods[m], 0);
    for (size_t k = 0; k < WN_TEST_STORY_N; k++)
      if (wn_test_occurrences(t, wn_test_story[k]) != 1)
        fail_msg("%s: paragraph %zu %zu times:\n%s", wn_single_method_name(methods[m]), k,
                 wn_test_occurrences(t, wn_test_story[k]), t);
    free(t);
  }
  /* A line quoted in a reply below it: the words once, where they were
   * first written. */
  const char *quoted =
      "<html><body><div><p>" "The council voted on Tuesday to keep the old swimming baths open "
      "for another five years." "</p><p>Readers wrote in about it at length, and most of them "
      "were glad of the news, some less so.</p><blockquote>" "The council voted on Tuesday to "
      "keep the old swimming baths open for another five years." "</blockquote><p>That is the "
      "best news this town has had in years, one reader said, and others agreed.</p>"
      "</div></body></html>";
  char *t = detect_text(quoted, WN_SINGLE_DANAG, 0);
  assert_int_equal(wn_test_occurrences(t, "keep the old swimming baths open"), 1);
  assert_true(strstr(t, "keep the old swimming baths open") < strstr(t, "Readers wrote in"));
  free(t);
  /* The same in a thread whose reply quotes a post's line in a panel, not
   * a quotation (vBulletin's "Originally Posted by"): the line once, in
   * the post; the reply's own lines stay. */
  const char *panel =
      "<html><body><div class=\"posts\"><div class=\"post\"><div class=\"who\">anna</div>"
      "<div class=\"message\">The council voted on Tuesday to keep the old swimming baths open "
      "for another five years.<br><br>We swam there every week when we were children, and so "
      "did our parents before us.</div></div><div class=\"post\"><div class=\"who\">ben</div>"
      "<div class=\"message\"><div class=\"panel\"><div>Originally Posted by <b>anna</b></div>"
      "<div>The council voted on Tuesday to keep the old swimming baths open for another five "
      "years.</div></div>That is the best news this town has had in years, and everyone I "
      "know agrees with it.<br><br>Let us hope the roof is mended before the winter comes."
      "</div></div></div></body></html>";
  t = detect_text(panel, WN_SINGLE_DANAG, 0);
  assert_int_equal(wn_test_occurrences(t, "keep the old swimming baths open"), 1);
  assert_true(strstr(t, "keep the old swimming baths open") < strstr(t, "We swam there"));
  assert_non_null(strstr(t, "best news this town"));
  free(t);
  /* A pricing toggle's two panels, one after the other, each ending in the
   * same line: like-placed, but nothing stands between the copies (a
   * stutter), so the line is output once. */
  const char *toggle =
      "<html><body><div class=\"plan\"><h2>Pool membership</h2><p>A year of swimming at the "
      "old baths, every morning from six and every evening until ten.</p><div class=\"switch\">"
      "<div class=\"panel\"><p>Members who join before the spring save a fifth on their first "
      "year, and keep the saving if they renew.</p></div><div class=\"panel\"><p>Members who "
      "join before the spring save a fifth on their first year, and keep the saving if they "
      "renew.</p></div></div></div></body></html>";
  t = detect_text(toggle, WN_SINGLE_DANAG, 0);
  assert_int_equal(wn_test_occurrences(t, "save a fifth on their first year"), 1);
  assert_non_null(strstr(t, "every morning from six"));
  free(t);
  /* A manual that describes two functions with the same paragraphs
   * (their shared parameters) inside entries of their own: both stay. */
  wn_buf_reset(&b);
  assert_int_equal(wn_buf_append_str(&b, "<html><body><div class=\"body\"><h1>compile</h1>"),
                   WN_OK);
  const char *const fn[] = {"compile_dir(dir, quiet=0)", "compile_file(fullname, quiet=0)"};
  for (int k = 0; k < 2; k++) {
    assert_int_equal(wn_buf_append_str(&b, "<dl><dt>"), WN_OK);
    assert_int_equal(wn_buf_append_str(&b, fn[k]), WN_OK);
    assert_int_equal(wn_buf_append_str(&b, k ? "</dt><dd><p>Compile one file and write its "
                                               "byte-code next to it, in the cache folder.</p>"
                                             : "</dt><dd><p>Walk the tree below dir and "
                                               "compile every source file found in it.</p>"),
                     WN_OK);
    assert_int_equal(wn_buf_append_str(&b, "<p>If quiet is 0, the names of the files are "
                                           "printed; 1 prints errors only.</p><p>If legacy is "
                                           "true, byte-code files are written to their legacy "
                                           "places and names.</p>"
                                           "</dd></dl>"),
                     WN_OK);
  }
  assert_int_equal(wn_buf_append_str(&b, "</div></body></html>"), WN_OK);
  t = detect_text(b.data, WN_SINGLE_DANAG, 0);
  assert_int_equal(wn_test_occurrences(t, "If quiet is 0"), 2);
  assert_int_equal(wn_test_occurrences(t, "If legacy is true"), 2);
  free(t);
  wn_buf_free(&b);
}

/* A story's raw copy: the page's Markdown source in a hidden <pre> after
 * the rendered story (a copy for machines). Its lines, by their letters,
 * are the story's: it goes, the story stays once. A tutorial's full
 * listing after its steps' listings repeats their lines, not rendered
 * text: it stays. */
static void test_raw_copy(void **state) {
  (void)state;
  wn_buf b;
  wn_buf_init(&b, 1 << 16);
  assert_int_equal(wn_buf_append_str(&b, "<html><body>"), WN_OK);
  assert_int_equal(wn_buf_append_str(&b, nav), WN_OK);
  assert_int_equal(wn_buf_append_str(&b, "<main><article><h1>Keep the baths open</h1><p>The "
                                         "council voted on Tuesday to keep the old swimming "
                                         "baths open for another five years, after a <a "
                                         "href=\"/campaign\">campaign</a> that gathered more "
                                         "than four thousand signatures in a single month.</p>"),
                   WN_OK);
  for (size_t k = 1; k < WN_TEST_STORY_N; k++) { /* the first, with its link, is above */
    assert_int_equal(wn_buf_append_str(&b, "<p>"), WN_OK);
    assert_int_equal(wn_buf_append_str(&b, wn_test_story[k]), WN_OK);
    assert_int_equal(wn_buf_append_str(&b, "</p>"), WN_OK);
  }
  assert_int_equal(wn_buf_append_str(&b, "<ol><li>Mend the roof of the old baths before the "
                                         "winter storms come, as the engineers advised.</li>"
                                         "<li>Open the pool to the village schools on every "
                                         "weekday morning from the autumn term.</li></ol>"
                                         "</article><pre hidden aria-hidden=\"true\" "
                                         "class=\"rawMarkdown\"># Keep the baths open\n\nThe "
                                         "council voted on Tuesday to keep the old swimming "
                                         "baths open for another five years, after a "
                                         "[campaign](https://blog.example/campaign) that "
                                         "gathered more than four thousand signatures in a "
                                         "single month.\n\n"),
                   WN_OK);
  for (size_t k = 1; k < WN_TEST_STORY_N; k++) {
    assert_int_equal(wn_buf_append_str(&b, wn_test_story[k]), WN_OK);
    assert_int_equal(wn_buf_append_str(&b, "\n\n"), WN_OK);
  }
  assert_int_equal(wn_buf_append_str(&b, "1. Mend the roof of the old baths before the winter "
                                         "storms come, as the engineers advised.\n2. Open the "
                                         "pool to the village schools on every weekday morning "
                                         "from the autumn term.\n</pre></main></body></html>"),
                   WN_OK);
  char *t = detect_text(b.data, WN_SINGLE_DANAG, 0);
  for (size_t k = 0; k < WN_TEST_STORY_N; k++) {
    char head[40];
    snprintf(head, sizeof head, "%s", wn_test_story[k]);
    if (wn_test_occurrences(t, head) != 1)
      fail_msg("\"%s\" %zu times:\n%s", head, wn_test_occurrences(t, head), t);
  }
  assert_int_equal(wn_test_occurrences(t, "Mend the roof of the old baths"), 1);
  assert_null(strstr(t, "](https://"));
  free(t);
  /* The tutorial: two steps' listings, then the whole program. */
  const char *tutorial =
      "<html><body><main><article><h1>Counting words</h1><p>First read the file into one "
      "string, and close it as soon as it has been read.</p><pre>with open(path) as source:\n"
      "    text = source.read()  # the whole file at once, as one string\n</pre><p>Then split "
      "the string at white space and count what is left.</p><pre>words = text.split()  # "
      "runs of white space separate the words\nprint(len(words), 'words in', path)\n</pre>"
      "<p>The whole program:</p><pre>import sys\npath = sys.argv[1]\nwith open(path) as "
      "source:\n    text = source.read()  # the whole file at once, as one string\nwords = "
      "text.split()  # runs of white space separate the words\nprint(len(words), 'words in', "
      "path)\n</pre></article></main></body></html>";
  t = detect_text(tutorial, WN_SINGLE_DANAG, 0);
  assert_int_equal(wn_test_occurrences(t, "the whole file at once, as one string"), 2);
  assert_int_equal(wn_test_occurrences(t, "import sys"), 1);
  free(t);
  wn_buf_free(&b);
}

/* A post's controls are buttons ("Read more", "Share"): their labels are
 * in no output, whichever method reads the page. */
static void test_button_labels(void **state) {
  (void)state;
  wn_buf b;
  wn_buf_init(&b, 1 << 20);
  assert_int_equal(wn_buf_append_str(&b, "<html><body>"), WN_OK);
  assert_int_equal(wn_buf_append_str(&b, nav), WN_OK);
  assert_int_equal(wn_buf_append_str(&b, "<div class=\"post\"><h1>Baths saved</h1>"), WN_OK);
  append_story(&b, "<p>", "</p>");
  assert_int_equal(wn_buf_append_str(&b, "<button type=\"button\">Read more</button>"
                                         "<div class=\"bar\"><button>Share</button></div>"
                                         "</div></body></html>"),
                   WN_OK);
  const wn_single_method methods[] = {WN_SINGLE_DANAG, WN_SINGLE_CNR, WN_SINGLE_READABILITY};
  for (size_t m = 0; m < sizeof methods / sizeof *methods; m++) {
    char *t = detect_text(b.data, methods[m], 0);
    if (!strstr(t, wn_test_story[0]) || strstr(t, "Read more") || strstr(t, "Share"))
      fail_msg("%s:\n%s", wn_single_method_name(methods[m]), t);
    free(t);
  }
  wn_buf_free(&b);
}

/* A short post above a longer comment thread whose names do not say
 * "comment": the output holds the post. (The replies come with it when
 * the density method's area spans both; docs/single-page.md, "Known
 * limits".) */
static void test_post_above_thread(void **state) {
  (void)state;
  wn_buf b;
  wn_buf_init(&b, 1 << 20);
  assert_int_equal(wn_buf_append_str(&b, "<html><body>"), WN_OK);
  assert_int_equal(wn_buf_append_str(&b, nav), WN_OK);
  assert_int_equal(wn_buf_append_str(&b, "<div class=\"post\"><h1>Baths saved</h1><p>"), WN_OK);
  assert_int_equal(wn_buf_append_str(&b, wn_test_story[0]), WN_OK);
  assert_int_equal(wn_buf_append_str(&b, "</p></div><h3>12 replies</h3><ol class=\"thread\">"),
                   WN_OK);
  for (int k = 0; k < 12; k++) {
    assert_int_equal(wn_buf_append_str(&b, "<li><div class=\"who\"><a href=\"/u/x\">reader</a>"
                                           "</div><div class=\"said\">I swam there as a child "
                                           "and my own children learnt to swim there too, so "
                                           "this is wonderful news for the whole town.</div>"
                                           "</li>"),
                     WN_OK);
  }
  assert_int_equal(wn_buf_append_str(&b, "</ol></body></html>"), WN_OK);
  char *t = detect_text(b.data, WN_SINGLE_DANAG, 0);
  assert_non_null(strstr(t, wn_test_story[0]));
  free(t);
  wn_buf_free(&b);
}

/* Two readings that found different articles: on a catalogue page whose
 * entries are cut apart by markup, the density method keeps one entry
 * and Readability's scoring the list. The list holds more than four
 * times the text and starts before the one entry ends, so it is taken:
 * every entry, the first and the last, is in the output. */
static void test_other_article(void **state) {
  (void)state;
  size_t len = 0;
  char *html = wn_test_read(WN_FIXTURES "/single/catalogue.html", &len);
  char *t = detect_text(html, WN_SINGLE_DANAG, 0);
  assert_non_null(strstr(t, "Candle Crucible"));
  assert_non_null(strstr(t, "Jetty Of Rowan"));
  /* the entry the density method kept stays */
  assert_non_null(strstr(t, "Pier Oat Dock (Fountain Glacier)"));
  free(t);
  free(html);
}

/* A consent dialog with three longer sentences beside a one-paragraph
 * description: the description is the content. */
static void test_consent_dialog(void **state) {
  (void)state;
  const char *html =
      "<html><body><div class=\"shop\"><h1>Oak garden bench</h1><p>A two-seat bench of "
      "untreated oak, made in our workshop, that weathers to silver grey within a year.</p>"
      "</div><div role=\"dialog\" class=\"cc\"><p>We and our partners use cookies and similar "
      "technologies to store and access information on your device for the purposes described "
      "below.</p><p>With your consent we may use precise geolocation data and identification "
      "through device scanning, for personalised ads and content, measurement and insights.</p>"
      "<p>You may withdraw your consent or object to processing based on legitimate interest at "
      "any time by clicking on Settings at the bottom of every page of this site.</p></div>"
      "<dialog open><p>Sign up to our newsletter and get ten per cent off your first order, "
      "delivered to your inbox every single week of the year.</p></dialog></body></html>";
  const wn_single_method methods[] = {WN_SINGLE_DANAG, WN_SINGLE_READABILITY};
  for (size_t m = 0; m < sizeof methods / sizeof *methods; m++) {
    char *t = detect_text(html, methods[m], 0);
    if (!strstr(t, "A two-seat bench of untreated oak") || strstr(t, "cookies") ||
        strstr(t, "newsletter"))
      fail_msg("%s:\n%s", wn_single_method_name(methods[m]), t);
    free(t);
  }
}

/* Ruby: the base text is the text; the reading (<rt>) and its
 * parentheses (<rp>) are not. */
static void test_ruby(void **state) {
  (void)state;
  const char *html =
      "<html><body><h1>\xe6\xbc\xa2\xe5\xad\x97</h1><p>\xe6\x9d\xb1\xe4\xba\xac<ruby>\xe6\xbc\xa2<rp>(</rp><rt>kan</rt><rp>)</rp>"
      "\xe5\xad\x97<rp>(</rp><rt>ji</rt><rp>)</rp></ruby>\xe3\x81\xae\xe8\xaa\xac\xe6\x98\x8e"
      "\xe3\x81\xa7\xe3\x81\x99\xe3\x80\x82 The base text is read, the reading set over it is "
      "not, and neither are the parentheses a browser without ruby shows.</p><p>A second "
      "paragraph of plain text, so that the page reads as an article.</p></body></html>";
  char *t = detect_text(html, WN_SINGLE_DANAG, 0);
  /* the base text, joined */
  assert_non_null(strstr(t, "\xe6\x9d\xb1\xe4\xba\xac\xe6\xbc\xa2\xe5\xad\x97"));
  assert_null(strstr(t, "kan"));
  assert_null(strstr(t, "("));
  free(t);
}

/* Never empty: a page whose only text is outside any paragraph still
 * yields it with every method. */
static void test_never_empty(void **state) {
  (void)state;
  const char *html = "<html><body><div>Opening hours: Monday to Friday, nine to five, "
                     "closed on bank holidays.</div></body></html>";
  const wn_single_method methods[] = {WN_SINGLE_DANAG, WN_SINGLE_CNR, WN_SINGLE_READABILITY};
  for (size_t m = 0; m < sizeof methods / sizeof *methods; m++) {
    char *t = detect_text(html, methods[m], 0);
    if (!strstr(t, "Opening hours"))
      fail_msg("%s: empty", wn_single_method_name(methods[m]));
    free(t);
  }
}

/* Bad input: no body, deep nesting, commas only; never a crash, and the
 * reading keeps nothing it was not given. */
static void test_readability_edges(void **state) {
  (void)state;
  const char *pages[] = {
      "", "<html></html>", ",,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,,",
      ("<div class=\"comment sidebar\"><p>Only an unlikely box holds text here, of some length "
       "to be scored as a paragraph.</p></div>"),
  };
  for (size_t k = 0; k < sizeof pages / sizeof *pages; k++) {
    char *t = detect_text(pages[k], WN_SINGLE_READABILITY, 0);
    free(t);
  }
  wn_buf b;
  wn_buf_init(&b, 1 << 20);
  for (int k = 0; k < 200; k++) /* under the tree's depth cap */
    assert_int_equal(wn_buf_append_str(&b, "<div>"), WN_OK);
  assert_int_equal(wn_buf_append_str(&b, "<p>Deep text, with a comma, in a paragraph of some "
                                         "length.</p>"), WN_OK);
  char *t = detect_text(b.data, WN_SINGLE_READABILITY, 0);
  assert_non_null(strstr(t, "Deep text"));
  free(t);
  wn_buf_free(&b);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_readability_alone), cmocka_unit_test(test_br_lines),
      cmocka_unit_test(test_combine_gap),       cmocka_unit_test(test_story_twice),
      cmocka_unit_test(test_raw_copy),
      cmocka_unit_test(test_post_above_thread), cmocka_unit_test(test_consent_dialog),
      cmocka_unit_test(test_ruby),              cmocka_unit_test(test_never_empty),
      cmocka_unit_test(test_readability_edges), cmocka_unit_test(test_other_article),
      cmocka_unit_test(test_button_labels),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
