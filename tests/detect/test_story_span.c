/* tests/detect/test_story_span.c: the story's span (policy.c), on a small
 * news site learned as winnow learns it (places selector) from four
 * stories, and a fifth whose story holds blocks no sample had:
 *
 *  - a photo gallery between its paragraphs (captions, "1 of 3", "Next"),
 *    page-specific text in the content place that the template alone
 *    keeps, is cut: the single-page reading left it out between its
 *    first and last paragraph;
 *  - an embedded post (a <blockquote>) in the story's flow stays, and so
 *    do the headline and the byline above the span;
 *  - after the span, where the single-page reading says the story
 *    ended, a strip of videos the template alone keeps goes and a
 *    contributor's paragraph stays;
 *  - the site's shape says news: the same template with no shape (a
 *    template learned before it was kept, or a manual's) keeps the
 *    gallery, so the rule and nothing else cut it; on a site of threads
 *    only what lies inside the span and is no paragraph is cut;
 *  - the other way: a page of many parts (an intro, then a grid of cards
 *    in the box the samples agree is not content, as a shop's samples
 *    teach when the cue selector read their grids as a box) where the
 *    template keeps the intro alone, a part of what the single-page
 *    reading keeps: the cards (linked, priced) come in. A thread of
 *    replies there stays out: tests/learn/test_places.c's blog.
 */
#include "wn_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect/detect.h"
#include "learn/learn.h"
#include "template/template.h"
#include "util/util.h"

#define NEWS_PAGE                                                                                \
  "<html><head><title>%s - The Daily Lamp</title></head><body><header><a href=/>Home</a> "       \
  "<a href=/world>World</a> <a href=/sport>Sport</a> <a href=/about>About</a></header>"          \
  "<div class=page><article class=story><h1>%s</h1><p class=byline>By %s</p><div class=body>%s"  \
  "</div></article><div class=more><h3>More stories</h3><ul><li><a href=/a>%s</a></li>"          \
  "</ul></div></div><footer><p>Copyright the Daily Lamp; all rights reserved in every "          \
  "country.</p></footer></body></html>"

static const char *const words[] = {"river",  "town",    "council", "bridge",  "water",
                                    "market", "school",  "road",    "winter",  "harvest",
                                    "mayor",  "budget",  "lantern", "village", "storm",
                                    "train",  "station", "museum",  "garden",  "library"};

/* A paragraph of n words drawn from words by a small linear generator (the
 * same text on every run). */
static void paragraph(wn_buf *b, uint32_t *seed, int n) {
  assert_int_equal(wn_buf_append_str(b, "<p>"), WN_OK);
  for (int k = 0; k < n; k++) {
    *seed = *seed * 1103515245u + 12345u;
    const char *w = words[(*seed >> 16) % (sizeof words / sizeof *words)];
    assert_int_equal(wn_buf_printf(b, "%s%s", k ? " " : "", w), WN_OK);
  }
  assert_int_equal(wn_buf_append_str(b, ".</p>"), WN_OK);
}

static char *news_page(const char *headline, const char *byline, const char *body) {
  size_t n = strlen(body) + 2048;
  char *s = malloc(n);
  assert_non_null(s);
  int w = snprintf(s, n, NEWS_PAGE, headline, headline, byline, body, "Snow closes the pass");
  assert_true(w > 0 && (size_t)w < n);
  return s;
}

static wn_template *learn_site(void) {
  wn_dom_page *pages[4];
  uint32_t seed = 7;
  for (int k = 0; k < 4; k++) {
    wn_buf body;
    wn_buf_init(&body, 1 << 20);
    for (int p = 0; p < 6; p++)
      paragraph(&body, &seed, 25 + 3 * p);
    char head[64];
    snprintf(head, sizeof head, "Story number %d of the town", k);
    char *html = news_page(head, "Ann Reporter", body.data);
    pages[k] = wn_test_parse(html);
    free(html);
    wn_buf_free(&body);
  }
  wn_learn_options opts = {.selector = WN_SELECT_PLACES};
  wn_template *tpl = NULL;
  assert_int_equal(wn_learn_template((const wn_dom_page *const *)pages, 4, &opts, &tpl, NULL),
                   WN_OK);
  for (int k = 0; k < 4; k++)
    wn_dom_free(pages[k]);
  return tpl;
}

static char *story_with_gallery(void) {
  wn_buf body;
  wn_buf_init(&body, 1 << 20);
  uint32_t seed = 99;
  for (int p = 0; p < 3; p++)
    paragraph(&body, &seed, 30 + p);
  assert_int_equal(wn_buf_append_str(&body, "<div class=gallery>"), WN_OK);
  static const char *const caps[] = {"The bridge at dawn, seen from the market square",
                                     "The mayor opens the winter market at the station",
                                     "Children at the library garden after the storm"};
  for (int k = 0; k < 3; k++)
    assert_int_equal(wn_buf_printf(&body,
                                   "<div class=slide><img src=%d.jpg><span class=cap>%s</span>"
                                   "<span class=count>%d of 3</span><a href=#>Next</a></div>",
                                   k, caps[k], k + 1),
                     WN_OK);
  assert_int_equal(wn_buf_append_str(&body, "<div class=credit>Photos by Dee Lens.</div></div>"),
                   WN_OK);
  for (int p = 0; p < 2; p++)
    paragraph(&body, &seed, 28 + p);
  assert_int_equal(wn_buf_append_str(&body,
                                     "<blockquote class=twitter-tweet><p>The new bridge is open "
                                     "and the river town is happy tonight.</p>&mdash; Town "
                                     "Council <a href=/x>January 5</a></blockquote>"),
                   WN_OK);
  paragraph(&body, &seed, 35);
  char *html = news_page("The bridge opens over the river", "Bo Writer", body.data);
  wn_buf_free(&body);
  return html;
}

static char *detect(const char *html, const wn_template *tpl, uint32_t *cut) {
  wn_dom_page *page = wn_test_parse(html);
  wn_detect_trace trace;
  memset(&trace, 0, sizeof trace);
  wn_detect_result *res = NULL;
  wn_detect_options opts = {.selector = WN_SELECT_SITE, .fallback = WN_SINGLE_DANAG};
  assert_int_equal(wn_detect_page_traced(page, tpl, &opts, &trace, &res, NULL), WN_OK);
  assert_int_equal(wn_detect_fallback_reason(res), WN_FALLBACK_NONE);
  *cut = trace.span_bytes;
  wn_buf buf;
  wn_buf_init(&buf, 0);
  assert_int_equal(wn_detect_render_text(page, res, &buf), WN_OK);
  wn_detect_trace_free(&trace);
  wn_detect_result_free(res);
  wn_dom_free(page);
  return wn_buf_take(&buf, NULL);
}

static void test_gallery_cut(void **state) {
  (void)state;
  wn_template *tpl = learn_site();
  assert_int_equal(wn_template_shape(tpl), WN_PAGE_ARTICLE + 1);
  char *html = story_with_gallery();
  uint32_t cut = 0;
  char *text = detect(html, tpl, &cut);
  wn_test_expect(text, "The bridge opens over the river", 1);
  wn_test_expect(text, "By Bo Writer", 1);
  wn_test_expect(text, "happy tonight", 1);
  wn_test_expect(text, "The bridge at dawn", 0);
  wn_test_expect(text, "2 of 3", 0);
  wn_test_expect(text, "Next", 0);
  wn_test_expect(text, "Photos by Dee Lens.", 0);
  wn_test_expect(text, "More stories", 0);
  assert_true(cut > 0);
  /* The story itself: its first paragraph (the span starts there). */
  wn_buf body;
  wn_buf_init(&body, 1 << 20);
  uint32_t seed = 99;
  for (int p = 0; p < 3; p++)
    paragraph(&body, &seed, 30 + p);
  const char *first = body.data + 3;
  char head[40];
  memcpy(head, first, sizeof head - 1);
  head[sizeof head - 1] = '\0';
  wn_test_expect(text, head, 1);
  free(text);

  /* A site of threads: inside the span, what the single-page reading
   * left out goes when it is no paragraph and no sentence (a post's
   * signature, its vote count, a gallery's captions); a sentence (a short
   * post's words) and the quoted post stay. */
  assert_int_equal(wn_template_set_shape(tpl, WN_PAGE_FORUM + 1), WN_OK);
  text = detect(html, tpl, &cut);
  wn_test_expect(text, "The bridge at dawn", 0);
  wn_test_expect(text, "2 of 3", 0);
  wn_test_expect(text, "Photos by Dee Lens.", 1); /* a sentence: a short post's words */
  wn_test_expect(text, "happy tonight", 1);
  wn_test_expect(text, "The bridge opens over the river", 1);
  wn_test_expect(text, head, 1);
  assert_true(cut > 0);
  free(text);

  /* No shape: the template's own reading, gallery and all. */
  assert_int_equal(wn_template_set_shape(tpl, 0), WN_OK);
  text = detect(html, tpl, &cut);
  wn_test_expect(text, "The bridge at dawn", 1);
  wn_test_expect(text, head, 1);
  assert_int_equal(cut, 0);
  free(text);
  wn_buf_free(&body);
  free(html);
  wn_template_free(tpl);
}

/* After the story: a strip of videos (no paragraph, no link) and a
 * contributor line (a paragraph), both blocks no sample had. */
static void test_after_story(void **state) {
  (void)state;
  wn_template *tpl = learn_site();
  wn_buf body;
  wn_buf_init(&body, 1 << 20);
  uint32_t seed = 41;
  for (int p = 0; p < 5; p++)
    paragraph(&body, &seed, 30 + p);
  assert_int_equal(wn_buf_append_str(&body, "<p><em>Reuters contributed to this report from "
                                            "the river town.</em></p><div class=videos>"),
                   WN_OK);
  static const char *const shows[] = {"Morning Show", "Evening News", "Weekend Desk"};
  for (int k = 0; k < 8; k++)
    assert_int_equal(wn_buf_printf(&body,
                                   "<div class=clip><a href=/v/%d>Watch the %s clip %d</a><span "
                                   "class=show>%s</span><span class=when>Posted 11/%d/2010</span>"
                                   "<span class=views>views: %d</span></div>",
                                   k, words[k], k, shows[k % 3], 20 + k, 3000 + 917 * k),
                     WN_OK);
  assert_int_equal(wn_buf_append_str(&body, "</div>"), WN_OK);
  char *html = news_page("The market reopens after the storm", "Cy Writer", body.data);
  uint32_t cut = 0;
  char *text = detect(html, tpl, &cut);
  wn_test_expect(text, "The market reopens after the storm", 1);
  wn_test_expect(text, "Reuters contributed to this report", 1);
  wn_test_expect(text, "Evening News", 0);
  wn_test_expect(text, "views: 3917", 0);
  assert_true(cut > 0);
  free(text);
  /* A site of threads: after the span the replies go on, and nothing is
   * cut there (a thread's last posts are short, and the single-page
   * reading may end before them). */
  assert_int_equal(wn_template_set_shape(tpl, WN_PAGE_FORUM + 1), WN_OK);
  text = detect(html, tpl, &cut);
  wn_test_expect(text, "views: 3917", 1);
  wn_test_expect(text, "Reuters contributed to this report", 1);
  free(text);
  /* No shape: the template's own reading keeps the strip. */
  assert_int_equal(wn_template_set_shape(tpl, 0), WN_OK);
  text = detect(html, tpl, &cut);
  wn_test_expect(text, "views: 3917", 1);
  free(text);
  free(html);
  wn_buf_free(&body);
  wn_template_free(tpl);
}

/* A page of the site with intro in the content place and items (<li>s)
 * in the box beside it. */
static char *front_page(const char *intro, const char *items) {
  size_t n = strlen(intro) + strlen(items) + 1024;
  char *html = malloc(n);
  assert_non_null(html);
  int w = snprintf(html, n,
                   "<html><head><title>Lanterns</title></head><body><header><a href=/>Home</a> "
                   "<a href=/world>World</a> <a href=/sport>Sport</a> <a href=/about>About</a>"
                   "</header><div class=page><article class=story><h1>Lanterns</h1><p "
                   "class=byline>By Ann Reporter</p><div class=body>%s</div></article><div "
                   "class=more><h3>More stories</h3><ul>%s</ul></div></div><footer><p>Copyright "
                   "the Daily Lamp; all rights reserved in every country.</p></footer></body>"
                   "</html>",
                   intro, items);
  assert_true(w > 0 && (size_t)w < n);
  return html;
}

static void test_grid_part(void **state) {
  (void)state;
  wn_template *tpl = learn_site();
  wn_buf body;
  wn_buf_init(&body, 1 << 20);
  uint32_t seed = 5;
  paragraph(&body, &seed, 24);
  wn_buf grid;
  wn_buf_init(&grid, 1 << 20);
  static const char *const names[] = {"Brass deck lantern", "Hurricane lamp", "Miner's lamp",
                                      "Paraffin table lamp", "Candle lantern", "Paper lantern"};
  for (int k = 0; k < 12; k++) {
    assert_int_equal(wn_buf_printf(&grid, "<li class=card><a href=/p/%d>%s no. %d</a>", k,
                                   names[k % 6], k),
                     WN_OK);
    paragraph(&grid, &seed, 16);
    assert_int_equal(wn_buf_printf(&grid, "<span class=cost>$%d.00</span></li>", 10 + k), WN_OK);
  }
  char *html = front_page(body.data, grid.data);
  /* What a shop's samples teach when the cue selector took each one's
   * intro: the intro's element is the content place, the grid's box an
   * aside. */
  wn_dom_page *page = wn_test_parse(html);
  wn_template_places pl = {.content = wn_test_paired(tpl, page, "body"), .n_aside = 1};
  pl.aside[0] = wn_test_paired(tpl, page, "more");
  wn_dom_free(page);
  assert_int_equal(wn_template_set_places(tpl, &pl), WN_OK);
  uint32_t cut = 0;
  char *text = detect(html, tpl, &cut);
  wn_test_expect(text, "Paraffin table lamp no. 9", 1);
  wn_test_expect(text, "Brass deck lantern no. 0", 1);
  char intro[32];
  memcpy(intro, body.data + 3, sizeof intro - 1); /* past "<p>" */
  intro[sizeof intro - 1] = '\0';
  wn_test_expect(text, intro, 1);
  wn_test_expect(text, "Home", 0);
  wn_test_expect(text, "Copyright", 0);
  free(text);
  /* The same box holding a thread of replies (prose, no link, no price):
   * what the samples agree is not content stays out. */
  wn_buf thread;
  wn_buf_init(&thread, 1 << 20);
  for (int k = 0; k < 12; k++) {
    assert_int_equal(wn_buf_printf(&thread, "<li class=card><p>Reader %d said:</p>", k), WN_OK);
    paragraph(&thread, &seed, 16);
    assert_int_equal(wn_buf_append_str(&thread, "</li>"), WN_OK);
  }
  char *html2 = front_page(body.data, thread.data);
  text = detect(html2, tpl, &cut);
  wn_test_expect(text, intro, 1);
  wn_test_expect(text, "Reader 7 said", 0);
  free(text);
  free(html2);
  wn_buf_free(&thread);
  /* No shape: the template's part alone. */
  assert_int_equal(wn_template_set_shape(tpl, 0), WN_OK);
  text = detect(html, tpl, &cut);
  wn_test_expect(text, "Paraffin table lamp no. 9", 0);
  wn_test_expect(text, intro, 1);
  free(text);
  free(html);
  wn_buf_free(&grid);
  wn_buf_free(&body);
  wn_template_free(tpl);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gallery_cut),
      cmocka_unit_test(test_after_story),
      cmocka_unit_test(test_grid_part),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
