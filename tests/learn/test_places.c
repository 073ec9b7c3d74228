/* tests/learn/test_places.c: the content places (learn/places.c) and the
 * places selector (detect/select_places.c) on two hand-made sites whose
 * answer is known:
 *  - tests/fixtures/places-blog: five posts with 0 to 2 short comments
 *    (in a "reactions" list: not a name comment systems use, so only the
 *    site tells it is not content), then a short post under a
 *    nine-comment thread (the cue selector alone takes the thread: it
 *    outweighs the post), a post with no comments
 *    a post whose text moved out of the content place into a new
 *    element after it, a post with an HTML5 <aside> inside its body,
 *    one with a video caption and share buttons between its headline
 *    and its body, one whose last paragraphs run on past the place, and
 *    one whose thread follows the post at once;
 *  - tests/fixtures/places-manual: five prose pages, then an index that is
 *    all links (the cue selector drops it as a box of links) and a page
 *    with two content sections, and a page with footnotes and a box of
 *    ARIA role complementary; the navigation bar above the body prints
 *    the page's title (page-specific text in a template box);
 *  - tests/fixtures/places-sections: manual pages that run through
 *    sibling sections (a heading and its text each); OPTIONS is the
 *    longest on every sample, and other.html has long sections the
 *    samples do not (make_fixtures.py writes them);
 *  - tests/fixtures/places-runs: module pages of a server manual, a long
 *    summary and then 2 to 4 directive blocks on the samples (a heading,
 *    a table of label rows, a paragraph), six on other.html
 *    (make_fixtures.py writes them). */
#include "wn_test.h"

#include <stdlib.h>
#include <string.h>

#include <winnow/winnow.h>

#include "detect/detect.h"
#include "learn/learn.h"

#define BLOG WN_FIXTURES "/places-blog/"
#define MANUAL WN_FIXTURES "/places-manual/"
#define SECTIONS WN_FIXTURES "/places-sections/"
#define RUNS WN_FIXTURES "/places-runs/"

static wn_template *learn_site(const char *dir, wn_detect_selector selector) {
  wn_dom_page *pages[5];
  char path[512];
  for (int i = 0; i < 5; i++) {
    snprintf(path, sizeof path, "%s%s-%d.html", dir, strstr(dir, "blog") ? "post" : "page",
             i + 1);
    pages[i] = wn_test_parse_file(path);
  }
  wn_learn_options opts;
  wn_learn_options_init(&opts);
  opts.selector = selector;
  wn_template *tpl = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_learn_pages((const wn_dom_page *const *)pages, 5, &opts, &tpl, NULL, &diag);
  if (err)
    fail_msg("learn %s: %s", dir, wn_diag_message(&diag, err));
  for (int i = 0; i < 5; i++)
    wn_dom_free(pages[i]);
  return tpl;
}

/* path parsed with its comment list emptied. */
static wn_dom_page *parse_without_comments(const char *path) {
  size_t len = 0;
  char *bytes = wn_test_read(path, &len);
  static const char open[] = "<ol class=\"reactionlist\">";
  size_t from = 0, to = 0;
  for (size_t i = 0; i + sizeof open - 1 <= len && !from; i++)
    if (memcmp(bytes + i, open, sizeof open - 1) == 0)
      from = i + sizeof open - 1;
  for (size_t i = from; from && i + 5 <= len && !to; i++)
    if (memcmp(bytes + i, "</ol>", 5) == 0)
      to = i;
  assert_true(from > 0 && to >= from);
  memmove(bytes + from, bytes + to, len - to);
  len -= to - from;
  wn_dom_page *page = NULL;
  wn_diag diag = {{0}};
  if (wn_dom_parse(bytes, len, NULL, &page, &diag))
    fail_msg("%s: %s", path, diag.msg);
  free(bytes);
  return page;
}

/* The blog learned from its five posts with the comments of all but one
 * taken out: too few threads on the samples for the thread to be an
 * aside. */
static wn_template *learn_blog_few_comments(void) {
  wn_dom_page *pages[5];
  char path[512];
  for (int i = 0; i < 5; i++) {
    snprintf(path, sizeof path, "%spost-%d.html", BLOG, i + 1);
    pages[i] = i == 4 ? wn_test_parse_file(path) : parse_without_comments(path); /* post-5 keeps its comment */
  }
  wn_learn_options opts;
  wn_learn_options_init(&opts);
  wn_template *tpl = NULL;
  wn_diag diag = {{0}};
  if (wn_learn_pages((const wn_dom_page *const *)pages, 5, &opts, &tpl, NULL, &diag))
    fail_msg("learn: %s", diag.msg);
  for (int i = 0; i < 5; i++)
    wn_dom_free(pages[i]);
  return tpl;
}

/* The places' part of the trace of detecting path. */
typedef struct place_trace {
  uint32_t place;
  int place_whole, place_unfit;
  uint32_t place_continued;
} place_trace;

static place_trace traced(const wn_template *tpl, const char *path) {
  wn_dom_page *page = wn_test_parse_file(path);
  wn_detect_trace trace;
  memset(&trace, 0, sizeof trace);
  wn_detect_result *res = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_detect_page_traced(page, tpl, NULL, &trace, &res, &diag);
  if (err)
    fail_msg("detect %s: %s", path, wn_diag_message(&diag, err));
  place_trace t = {trace.place, trace.place_whole, trace.place_unfit, trace.place_continued};
  wn_detect_result_free(res);
  wn_detect_trace_free(&trace);
  wn_dom_free(page);
  return t;
}

/* The page's main content as text, by the template's own selector. */
static char *page_text(const wn_template *tpl, const wn_dom_page *page) {
  wn_detect_result *res = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_detect_page(page, tpl, NULL, 0, &res, &diag);
  if (err)
    fail_msg("detect: %s", wn_diag_message(&diag, err));
  wn_buf out;
  wn_buf_init(&out, 0);
  assert_int_equal(wn_detect_render_text(page, res, &out), WN_OK);
  assert_int_equal(wn_buf_append_char(&out, '\0'), WN_OK);
  wn_detect_result_free(res);
  return out.data;
}

static char *detect_text(const wn_template *tpl, const char *path) {
  wn_dom_page *page = wn_test_parse_file(path);
  char *text = page_text(tpl, page);
  wn_dom_free(page);
  return text;
}

static int page_has(const char *text, const char *needle) { return strstr(text, needle) != NULL; }

/* The first n bytes of the text of the first <p> below an element with
 * class cls in the page at path: a needle that must (or must not) be in
 * the output. */
static void first_text_under(const char *path, const char *tag, const char *cls, char *out,
                             size_t n) {
  wn_dom_page *page = wn_test_parse_file(path);
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  out[0] = '\0';
  for (uint32_t i = 0; i < count && !out[0]; i++) {
    if (strcmp(nodes[i].name, tag) != 0 || !nodes[i].cls || strcmp(nodes[i].cls, cls) != 0)
      continue;
    for (uint32_t j = i; j < nodes[i].end; j++)
      if (nodes[j].tag == WN_TAG_TEXT && nodes[j].text_len >= n) {
        memcpy(out, nodes[j].text, n);
        out[n] = '\0';
        break;
      }
  }
  wn_dom_free(page);
  if (!out[0])
    fail_msg("%s: no text under %s.%s", path, tag, cls);
}

static void test_blog_places(void **state) {
  (void)state;
  wn_template *tpl = learn_site(BLOG, WN_SELECT_PLACES);
  const wn_template_places *pl = wn_template_get_places(tpl);
  assert_int_not_equal(pl->content, WN_DOM_NONE);
  assert_int_equal(wn_detect_site_selector(tpl), WN_SELECT_PLACES);

  /* A short post under a long thread: the post, not the thread. */
  char post[33], comment[33];
  first_text_under(BLOG "short-post-long-thread.html", "div", "entry", post, 32);
  first_text_under(BLOG "short-post-long-thread.html", "li", "reaction", comment, 12);
  char *text = detect_text(tpl, BLOG "short-post-long-thread.html");
  assert_true(page_has(text, post));
  assert_true(page_has(text, "A short note")); /* its headline, above the place */
  assert_false(page_has(text, "Reader"));
  assert_false(page_has(text, "More stories"));
  free(text);

  /* The cue selector alone takes the thread on that page: the places are
   * what changes it. */
  wn_template *cues = learn_site(BLOG, WN_SELECT_CUES);
  assert_int_equal(wn_template_get_places(cues)->content, WN_DOM_NONE);
  text = detect_text(cues, BLOG "short-post-long-thread.html");
  assert_true(page_has(text, "Reader 9 said"));
  free(text);
  wn_template_free(cues);

  /* A post with no comments: every paragraph of it. */
  wn_dom_page *page = wn_test_parse_file(BLOG "no-comments.html");
  text = detect_text(tpl, BLOG "no-comments.html");
  uint32_t count = 0, paras = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint32_t entry = WN_DOM_NONE;
  for (uint32_t i = 0; i < count && entry == WN_DOM_NONE; i++)
    if (nodes[i].cls && strcmp(nodes[i].cls, "entry") == 0)
      entry = i;
  assert_int_not_equal(entry, WN_DOM_NONE);
  for (uint32_t j = entry; j < nodes[entry].end; j++)
    if (nodes[j].tag == WN_TAG_TEXT && nodes[j].text_len > 40) {
      char head[41];
      memcpy(head, nodes[j].text, 40);
      head[40] = '\0';
      assert_true(page_has(text, head));
      paras++;
    }
  assert_int_equal(paras, 4);
  free(text);
  wn_dom_free(page);

  /* The comment thread and the "more stories" list lie beside the place,
   * and hold text on most samples that the cue selector left out: asides.
   * On the short post the cues kept the thread, an aside: they went wrong
   * and the place served (above). */
  assert_true(pl->n_aside >= 2);
  assert_int_equal(traced(tpl, BLOG "short-post-long-thread.html").place_unfit, 0);

  /* A post whose text is no longer in the place (a photo caption there,
   * the essay in a new element after it, not an aside): the cue selector
   * kept it, so the page does not fit, and the single-page method reads
   * it: every paragraph, not the caption alone. Without the fit test the
   * place (whole) took the caption. */
  assert_int_equal(traced(tpl, BLOG "moved-content.html").place_unfit, 1);
  text = detect_text(tpl, BLOG "moved-content.html");
  assert_true(page_has(text, "Quarter station light orchard"));
  assert_true(page_has(text, "Kitchen garden river lantern"));
  assert_false(page_has(text, "More stories"));
  assert_false(page_has(text, "Reader"));
  free(text);

  /* Samples with too few comments for the thread to be an aside, and the
   * short post's thread named as comment systems name theirs (id
   * "comments", class "commentlist"): the cue selector leaves a thread so
   * named out (the single-page methods' web-wide names), so the post. */
  wn_template *few = learn_blog_few_comments();
  assert_int_equal(wn_detect_site_selector(few), WN_SELECT_PLACES);
  size_t len = 0;
  char *html = wn_test_read(BLOG "short-post-long-thread.html", &len);
  for (char *at = html; (at = strstr(at, "reaction")) != NULL; at += 8)
    memcpy(at, "comments", 8); /* same length: "commentslist", "commentss" */
  wn_dom_page *named = wn_test_parse(html);
  free(html);
  text = page_text(few, named);
  assert_true(page_has(text, post));
  assert_false(page_has(text, "Reader"));
  free(text);
  wn_dom_free(named);
  wn_template_free(few);

  /* An HTML5 <aside> inside the (whole) place, on a page the samples did
   * not show: a "read next" box, left out; the paragraphs around it kept. */
  assert_int_equal(pl->whole, 1);
  text = detect_text(tpl, BLOG "aside-in-post.html");
  assert_false(page_has(text, "Read next"));
  assert_false(page_has(text, "Copper kettles and the market stalls"));
  assert_true(page_has(text, "Station island light orchard"));
  assert_true(page_has(text, "Letter window bridge kitchen"));
  assert_true(page_has(text, "Kitchen garden river lantern"));
  free(text);

  /* Between the headline and the (whole) place, page-specific text the
   * samples did not show: the caption of the post's lead video, longer
   * than the single-page methods' 300 bytes of byline, kept; the share
   * buttons beside it, a named box, left out. */
  text = detect_text(tpl, BLOG "standfirst.html");
  assert_true(page_has(text, "The lantern maker of the harbour"));
  assert_true(page_has(text, "In the video above, the last lantern maker"));
  assert_true(page_has(text, "Harbour lantern copper kitchen evening quay"));
  assert_false(page_has(text, "Share on Twitter"));
  assert_false(page_has(text, "More stories"));
  free(text);

  /* A post whose last two paragraphs run on past the place, after a
   * picture, in an element the samples never had: the place (whole)
   * holds its first four, the single-page method's run of lines carries
   * on into the other two, and they come in; the "more stories" list and
   * the thread after them, which that run does not reach, stay out. */
  text = detect_text(tpl, BLOG "spilled.html");
  assert_true(page_has(text, "Storm roof copper gutter"));
  assert_true(page_has(text, "Gutter slate chimney rainwater copper roof"));
  assert_true(page_has(text, "Rainwater barrel slate chimney gutter roof"));
  assert_false(page_has(text, "More stories"));
  assert_false(page_has(text, "Thunder over the meadow"));
  assert_false(page_has(text, "Reader"));
  free(text);
  place_trace st = traced(tpl, BLOG "spilled.html");
  assert_int_equal(st.place_unfit, 0);
  assert_int_equal(st.place_whole, 1);
  assert_true(st.place_continued > 400); /* the two paragraphs, not the place's own */

  /* A post followed at once by a thread of long comments (the thread is
   * an aside: the samples agree it is not content): DANAg's run of lines
   * may carry on from the post into it, but nothing of an aside comes
   * in. */
  text = detect_text(tpl, BLOG "thread-follows.html");
  assert_true(page_has(text, "The copper ledger"));
  assert_false(page_has(text, "Comment 1: what a walk"));
  assert_false(page_has(text, "Reader 2 said"));
  free(text);

  /* On a post whose content the place holds whole, nothing is added. */
  assert_int_equal(traced(tpl, BLOG "no-comments.html").place_continued, 0);
  wn_template_free(tpl);
}

static void test_manual_places(void **state) {
  (void)state;
  wn_template *tpl = learn_site(MANUAL, WN_SELECT_PLACES);
  const wn_template_places *pl = wn_template_get_places(tpl);
  assert_int_not_equal(pl->content, WN_DOM_NONE);
  /* The samples' place held nothing but content. */
  assert_int_equal(pl->whole, 1);

  /* The trace (winnow-dump explain) names the place and its kind. */
  wn_dom_page *tp = wn_test_parse_file(MANUAL "genindex.html");
  wn_detect_trace trace;
  memset(&trace, 0, sizeof trace);
  wn_detect_result *tres = NULL;
  wn_diag tdiag = {{0}};
  assert_int_equal(wn_detect_page_traced(tp, tpl, NULL, &trace, &tres, &tdiag), WN_OK);
  assert_int_equal(trace.selector, WN_SELECT_PLACES);
  assert_int_not_equal(trace.place, WN_DOM_NONE);
  assert_int_equal(trace.place_whole, 1);
  assert_non_null(wn_dom_nodes(tp, NULL)[trace.place].cls);
  assert_string_equal(wn_dom_nodes(tp, NULL)[trace.place].cls, "body");
  wn_detect_result_free(tres);
  wn_detect_trace_free(&trace);
  wn_dom_free(tp);

  /* The index, all links, is kept whole; the cue selector drops it. */
  wn_dom_page *page = wn_test_parse_file(MANUAL "genindex.html");
  uint32_t count = 0, links = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  char *text = detect_text(tpl, MANUAL "genindex.html");
  wn_template *cues = learn_site(MANUAL, WN_SELECT_CUES);
  char *by_cues = detect_text(cues, MANUAL "genindex.html");
  uint32_t by_cues_links = 0;
  uint32_t index = WN_DOM_NONE;
  for (uint32_t i = 0; i < count && index == WN_DOM_NONE; i++)
    if (nodes[i].cls && strcmp(nodes[i].cls, "genindex") == 0)
      index = i;
  assert_int_not_equal(index, WN_DOM_NONE);
  for (uint32_t i = index; i < nodes[index].end; i++)
    if (strcmp(nodes[i].name, "a") == 0 && nodes[i + 1].tag == WN_TAG_TEXT) {
      assert_true(page_has(text, nodes[i + 1].text));
      by_cues_links += page_has(by_cues, nodes[i + 1].text) ? 1u : 0u;
      links++;
    }
  assert_true(links >= 40);
  assert_true(by_cues_links * 2 < links);
  /* The navigation bar prints "Chapter 9. Reference" for this page: text
   * no template node holds, but inside a template box, so not content. */
  assert_false(page_has(text, "Chapter 9"));
  free(text);
  free(by_cues);
  wn_template_free(cues);
  wn_dom_free(page);

  /* Two content sections: both. */
  char first[33], second[33];
  first_text_under(MANUAL "two-regions.html", "div", "section", first, 32);
  page = wn_test_parse_file(MANUAL "two-regions.html");
  nodes = wn_dom_nodes(page, &count);
  second[0] = '\0';
  for (uint32_t i = 0; i < count && !second[0]; i++)
    if (nodes[i].id && strcmp(nodes[i].id, "second") == 0)
      for (uint32_t j = i; j < nodes[i].end; j++)
        if (nodes[j].tag == WN_TAG_TEXT && nodes[j].text_len > 32) {
          memcpy(second, nodes[j].text, 32);
          second[32] = '\0';
          break;
        }
  assert_true(second[0] != '\0');
  text = detect_text(tpl, MANUAL "two-regions.html");
  assert_true(page_has(text, first));
  assert_true(page_has(text, second));
  free(text);
  wn_dom_free(page);

  /* Inside the whole place: footnotes (an <aside> of <aside role="note">s,
   * as Sphinx writes them) are content; a box of role complementary is
   * not. */
  text = detect_text(tpl, MANUAL "footnotes.html");
  assert_true(page_has(text, "The orchard flag was added in version two"));
  assert_false(page_has(text, "Sponsored"));
  assert_true(page_has(text, "Mirror mirror cotton harbour"));
  free(text);
  wn_template_free(tpl);
}

/* A news page of a made-up site: a story of four paragraphs in
 * div.story, with a box inside it after the second (div.box), filled with
 * box_items related stories (a link and a line of blurb each), empty when
 * 0. Paragraph words vary with n, so that each page's text is its own. */
static wn_dom_page *story_page(int n, int box_items) {
  static const char *const words[] = {"harbour", "lantern", "meadow", "copper", "orchard",
                                      "signal", "timber", "quarter", "village", "winter"};
  wn_buf h;
  wn_buf_init(&h, 1 << 20);
  wn_buf_printf(&h, "<html><head><title>Story %d | The Coast Courier</title></head><body>"
                    "<div id=\"top\"><a href=\"/\">The Coast Courier</a> <a href=\"/news\">News"
                    "</a> <a href=\"/sport\">Sport</a></div><div id=\"main\"><h1>Story %d: "
                    "the %s of the %s</h1><div class=\"story\">",
                n, n, words[n % 10], words[(n + 3) % 10]);
  for (int k = 0; k < 4; k++) {
    wn_buf_printf(&h, "<p>Paragraph %d of story %d: the %s by the %s was mended, the %s said, "
                      "and the %s will open again for the %s, the %s and the %s before the "
                      "%s comes.</p>",
                  k, n, words[(n + k) % 10], words[(n + 2 * k + 1) % 10],
                  words[(n + k + 2) % 10], words[(n + 3 * k + 3) % 10], words[(k + 4) % 10],
                  words[(n + 5) % 10], words[(n * k + 6) % 10], words[(n + k + 7) % 10]);
    if (k == 1) {
      wn_buf_append_str(&h, "<div class=\"box\">");
      for (int j = 0; j < box_items; j++)
        wn_buf_printf(&h, "<div><a href=\"/s/%d-%d\">Elsewhere %d-%d: the %s reopens</a> "
                          "- from the archive, %d March</div>",
                      n, j, n, j, words[(n + j) % 10], j + 1);
      wn_buf_append_str(&h, "</div>");
    }
  }
  wn_buf_append_str(&h, "</div></div><div id=\"foot\">The Coast Courier, since 1887.</div>"
                        "</body></html>");
  wn_dom_page *page = wn_test_parse(h.data);
  wn_buf_free(&h);
  return page;
}

/* A box the template holds inside the place, filled on one sample only
 * (its related links, which the cue selector left out): a place to skip
 * on that one sample's evidence, since the box recurs on every page; a
 * test page that fills it gets the story without it. */
static void test_skip_one_sample(void **state) {
  (void)state;
  wn_dom_page *pages[5];
  for (int i = 0; i < 5; i++)
    pages[i] = story_page(i, i == 2 ? 4 : 0);
  wn_learn_options opts;
  wn_learn_options_init(&opts);
  wn_template *tpl = NULL;
  wn_diag diag = {{0}};
  if (wn_learn_pages((const wn_dom_page *const *)pages, 5, &opts, &tpl, NULL, &diag))
    fail_msg("learn: %s", diag.msg);
  for (int i = 0; i < 5; i++)
    wn_dom_free(pages[i]);
  const wn_template_places *pl = wn_template_get_places(tpl);
  assert_int_not_equal(pl->content, WN_DOM_NONE);
  assert_int_equal(pl->n_skip, 1);
  wn_dom_page *page = story_page(7, 6);
  char *text = page_text(tpl, page);
  assert_true(page_has(text, "Paragraph 0 of story 7"));
  assert_true(page_has(text, "Paragraph 3 of story 7"));
  assert_false(page_has(text, "Elsewhere 7-"));
  assert_false(page_has(text, "from the archive"));
  free(text);
  wn_dom_free(page);
  wn_template_free(tpl);
}

/* Content in sibling sections: the cue selector keeps the longest section
 * on every sample, but the place is the sections' parent, whole, so a page
 * whose text runs through other sections keeps them all, and the
 * navigation and footer stay out. */
static void test_sections_place(void **state) {
  (void)state;
  wn_template *tpl = learn_site(SECTIONS, WN_SELECT_PLACES);
  const wn_template_places *pl = wn_template_get_places(tpl);
  assert_int_not_equal(pl->content, WN_DOM_NONE);
  assert_int_equal(pl->whole, 1);
  assert_int_equal(pl->n_skip, 0);
  place_trace tr = traced(tpl, SECTIONS "other.html");
  wn_dom_page *page = wn_test_parse_file(SECTIONS "other.html");
  assert_int_not_equal(tr.place, WN_DOM_NONE);
  const wn_dom_node *place = &wn_dom_nodes(page, NULL)[tr.place];
  assert_non_null(place->id);
  assert_string_equal(place->id, "content");
  wn_dom_free(page);

  char *text = detect_text(tpl, SECTIONS "other.html");
  const char *want[] = {"Paragraph 70-0", "Paragraph 70-3", "Option 7-1", "Paragraph 80-2",
                        "Paragraph 90-2", "tool remote [add|remove]"};
  for (size_t i = 0; i < sizeof want / sizeof *want; i++)
    if (!page_has(text, want[i]))
      fail_msg("expected \"%s\" in:\n%s", want[i], text);
  assert_false(page_has(text, "All commands"));
  assert_false(page_has(text, "Last updated"));
  free(text);
  /* A sample keeps its shorter sections too. */
  text = detect_text(tpl, SECTIONS "page-3.html");
  assert_true(page_has(text, "Paragraph 30-1"));
  assert_true(page_has(text, "Paragraph 35-0"));
  assert_true(page_has(text, "Option 3-11"));
  free(text);
  wn_template_free(tpl);
}

/* A place that is all content keeps a run of blocks whole. The samples
 * gave the template a slot per block position, so other.html's blocks
 * are template elements; the first and the two past every sample's count
 * are kept by the region selector, the others are one more of that run.
 * The label rows' words ("Syntax:") and the headings' ("Directive") are
 * template text, read with the page-specific value beside them. */
static void test_runs_place(void **state) {
  (void)state;
  wn_template *tpl = learn_site(RUNS, WN_SELECT_PLACES);
  const wn_template_places *pl = wn_template_get_places(tpl);
  assert_int_not_equal(pl->content, WN_DOM_NONE);
  assert_int_equal(pl->whole, 1);
  char *text = detect_text(tpl, RUNS "other.html");
  char want[64];
  for (int k = 0; k < 6; k++) {
    snprintf(want, sizeof want, "Block upstream-%d:", k);
    if (!page_has(text, want))
      fail_msg("expected \"%s\" in:\n%s", want, text);
    snprintf(want, sizeof want, "Directive upstream_");
    assert_true(page_has(text, want));
  }
  size_t labels = 0;
  for (const char *t = text; (t = strstr(t, "Syntax:")) != NULL; t++)
    labels++;
  assert_int_equal(labels, 6);
  assert_true(page_has(text, "Directive upstream_index_0"));
  assert_true(page_has(text, "Summary of upstream"));
  /* Template text that labels nothing stays out. */
  assert_false(page_has(text, "Last updated"));
  assert_false(page_has(text, "Questions"));
  free(text);
  /* A sample keeps its own labels too. */
  text = detect_text(tpl, RUNS "page-2.html");
  assert_true(page_has(text, "Block proxy-3:"));
  assert_true(page_has(text, "Default:"));
  free(text);
  wn_template_free(tpl);
}

/* The result says why the place did not serve a page: "unfit" for a post
 * whose text moved out of the place (the single-page method read it),
 * "not paired" for a page of another layout (no element at the place:
 * on a site of articles, or of no one kind, the single-page method read
 * it, on a manual the cue selector), nothing for a page the place
 * served. */
static const char *place_note(const wn_template *tpl, const char *path, char *buf, size_t n) {
  wn_dom_page *page = wn_test_parse_file(path);
  wn_detect_result *res = NULL;
  wn_diag diag = {{0}};
  if (wn_detect_page(page, tpl, NULL, 0, &res, &diag))
    fail_msg("detect %s: %s", path, diag.msg);
  const char *note = wn_detect_result_place(res);
  snprintf(buf, n, "%s", note ? note : "");
  wn_detect_result_free(res);
  wn_dom_free(page);
  return buf;
}

static void test_place_notes(void **state) {
  (void)state;
  wn_template *tpl = learn_site(BLOG, WN_SELECT_PLACES);
  char buf[256];
  assert_string_equal(place_note(tpl, BLOG "post-1.html", buf, sizeof buf), "");
  assert_true(strncmp(place_note(tpl, BLOG "moved-content.html", buf, sizeof buf), "unfit:", 6) ==
              0);
  /* A page of another layout (a manual's page on a blog): on a site of
   * articles the single-page method reads it, the template as its
   * filter, as an unfit page is. */
  assert_string_equal(place_note(tpl, MANUAL "page-1.html", buf, sizeof buf),
                      "not paired: the page has no element at the content place; the "
                      "single-page method read it");
  /* Where the samples showed no kind of site, as on a site of articles. */
  assert_int_equal(wn_template_set_shape(tpl, 0), WN_OK);
  assert_string_equal(place_note(tpl, MANUAL "page-1.html", buf, sizeof buf),
                      "not paired: the page has no element at the content place; the "
                      "single-page method read it");
  wn_template_free(tpl);
  /* On a manual (pages of many parts), the cue selector reads it. */
  tpl = learn_site(MANUAL, WN_SELECT_PLACES);
  assert_string_equal(place_note(tpl, BLOG "post-1.html", buf, sizeof buf),
                      "not paired: the page has no element at the content place; the cue "
                      "selector chose");
  wn_template_free(tpl);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_blog_places),
      cmocka_unit_test(test_manual_places),
      cmocka_unit_test(test_sections_place),
      cmocka_unit_test(test_runs_place),
      cmocka_unit_test(test_place_notes),
      cmocka_unit_test(test_skip_one_sample),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
