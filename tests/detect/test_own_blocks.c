/* tests/detect/test_own_blocks.c: the template as one reading of two
 * (policy.c, "The page's own blocks"), on a small shop learned as winnow
 * learns it (places selector) from three product pages (a name, a price,
 * a description) and detected with the default policy:
 *
 *  - a product page with a specifications table and reviews no sample
 *    had keeps them, and the "recently viewed" box of the frame stays
 *    out (the template's selection alone does this);
 *  - a category page, its grid of cards no sample had: the selection
 *    drops the grid, the single-page reading keeps it, and as the page's
 *    own blocks the cards come in.
 * On a Q&A site (a page stating QAPage): an answer's slots come in with
 * its own blocks, the sentence with its word in <code>, and the code in a
 * paired <pre><code> slot.
 * The other side, a region the samples had beside their content (reader
 * comments under a short post) staying out, is tests/learn/test_places.c's
 * blog (test_blog_places).
 */
#include "wn_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect/detect.h"
#include "learn/learn.h"
#include "template/template.h"
#include "util/util.h"

#define SHOP_TOP                                                                                 \
  "<html><body><header><a href=/>Home</a> <a href=/lamps>Lamps</a> <a href=/stoves>Stoves</a> "  \
  "<a href=/help>Help</a></header><main><div class=product>"
#define SHOP_END                                                                                 \
  "</main><footer><p>Copyright the shop, every right reserved; terms of sale apply.</p>"         \
  "</footer></body></html>"

static const char *const products[][3] = {
    {"Storm lantern", "$39.00",
     "A lantern of brushed steel with a glass globe, lit by one wick that burns eight hours."},
    {"Camp stove", "$59.00",
     "A stove of two burners that folds into its own lid and runs on a small gas bottle."},
    {"Tent light", "$19.00",
     "A light that hangs from the roof of a tent and gives a soft glow for a whole night."},
    {"Wick set", "$4.00",
     "Six wicks of woven cotton that fit every lantern we sell, with a trimmer to cut them."},
};

static char *shop_page(int k, const char *extra, const char *recent) {
  char *s = malloc(8192);
  assert_non_null(s);
  int n = snprintf(s, 8192,
                   SHOP_TOP "<h1>%s</h1><div class=price>%s</div><div class=description><p>%s"
                            "</p></div></div>%s<section class=recent><h3>Recently viewed</h3>"
                            "<p>%s</p></section>" SHOP_END,
                   products[k][0], products[k][1], products[k][2], extra, recent);
  assert_true(n > 0 && n < 8192);
  return s;
}

/* The shop's sample page k (0 to 2), as the tests learn it. */
static char *shop_sample(int k) {
  return shop_page(k, "", k == 0 ? "Tent light, Wick set" : "Storm lantern, Camp stove");
}

/* A template learned from three sample pages as winnow learns (places
 * selector); the pages' HTML is freed. */
static wn_template *learn_places(char *html[3]) {
  wn_dom_page *pages[3];
  for (int k = 0; k < 3; k++) {
    pages[k] = wn_test_parse(html[k]);
    free(html[k]);
  }
  wn_learn_options opts = {.selector = WN_SELECT_PLACES};
  wn_template *tpl = NULL;
  assert_int_equal(wn_learn_template((const wn_dom_page *const *)pages, 3, &opts, &tpl, NULL),
                   WN_OK);
  for (int k = 0; k < 3; k++)
    wn_dom_free(pages[k]);
  return tpl;
}

/* The shop's template, learned from its three sample pages. */
static wn_template *learn_shop(void) {
  char *html[3];
  for (int k = 0; k < 3; k++)
    html[k] = shop_sample(k);
  return learn_places(html);
}

/* The page's text as winnow detect reads it with tpl (the default policy). */
static char *detect(const char *html, const wn_template *tpl) {
  wn_dom_page *page = wn_test_parse(html);
  wn_detect_result *res = NULL;
  wn_detect_options opts = {.selector = WN_SELECT_SITE, .fallback = WN_SINGLE_DANAG};
  assert_int_equal(wn_detect_page(page, tpl, &opts, 0, &res, NULL), WN_OK);
  assert_int_equal(wn_detect_fallback_reason(res), WN_FALLBACK_NONE);
  wn_buf buf;
  wn_buf_init(&buf, 0);
  assert_int_equal(wn_detect_render_text(page, res, &buf), WN_OK);
  wn_detect_result_free(res);
  wn_dom_free(page);
  return wn_buf_take(&buf, NULL);
}

/* word stands on a line of its own in text. */
static int page_has_word_alone(const char *text, const char *word) {
  size_t n = strlen(word);
  for (const char *p = strstr(text, word); p; p = strstr(p + 1, word))
    if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
      return 1;
  return 0;
}

static void test_shop_product_specs(void **state) {
  (void)state;
  wn_template *tpl = learn_shop();
  char *page = shop_page(
      3,
      "<section class=details><div class=specs><h2>Specifications</h2><table><tr><th>Length</th><td>Twelve centimetres"
      "</td></tr><tr><th>Material</th><td>Woven cotton, unbleached</td></tr><tr><th>Pieces</th>"
      "<td>Six wicks and one trimmer of stainless steel</td></tr></table></div><div class=reviews>"
      "<h2>Reviews</h2><p>These burn clean and even, and the trimmer is sharp enough for years of "
      "use at the cabin.</p><p>Fit my grandfather's old lantern without any trouble at all, and "
      "the flame stays low and steady.</p></div></section>",
      "Camp stove, Tent light");
  char *text = detect(page, tpl);
  wn_test_expect(text, "Six wicks of woven cotton", 1);
  wn_test_expect(text, "Woven cotton, unbleached", 1);
  wn_test_expect(text, "stainless steel", 1);
  wn_test_expect(text, "burn clean and even", 1);
  wn_test_expect(text, "Recently viewed", 0);
  wn_test_expect(text, "Help", 0);
  free(text);
  free(page);
  wn_template_free(tpl);
}

/* A category page of the same shop: its name and intro where a product's
 * are, then a grid of twenty cards no sample had (a linked name and a
 * price each). The template's selection drops the grid as a box of links
 * and keeps the intro, a fifth of the page's own text; the single-page
 * reading keeps the grid (its records), and it is the page's own: the
 * cards come in. */
static void test_shop_category_grid(void **state) {
  (void)state;
  wn_template *tpl = learn_shop();
  wn_buf b;
  wn_buf_init(&b, 1 << 20);
  assert_int_equal(wn_buf_append_str(&b, "<ul class=grid>"), WN_OK);
  static const char *const names[] = {"Brass deck lantern", "Hurricane lamp, red",
                                      "Miner's lamp",       "Paraffin table lamp",
                                      "Candle lantern",     "Folding paper lantern"};
  for (int k = 0; k < 20; k++) {
    char li[256];
    snprintf(li, sizeof li,
             "<li class=card><a href=/p/%d>%s no. %d</a> <span class=cost>$%d.00</span></li>", k,
             names[k % 6], k, 10 + k);
    assert_int_equal(wn_buf_append_str(&b, li), WN_OK);
  }
  assert_int_equal(wn_buf_append_str(&b, "</ul>"), WN_OK);
  char *page = malloc(16384);
  assert_non_null(page);
  snprintf(page, 16384,
           SHOP_TOP "<h1>Lanterns</h1><div class=description><p>Every lantern we sell, old "
                    "patterns and new, tested in our workshop before it ships.</p></div></div>"
                    "%s<section class=recent><h3>Recently viewed</h3><p>Camp stove</p></section>"
                    SHOP_END,
           b.data);
  char *text = detect(page, tpl);
  wn_test_expect(text, "Every lantern we sell", 1);
  wn_test_expect(text, "Paraffin table lamp no. 15", 1);
  /* The trace (winnow-dump explain) names the cards' text as the page's
   * own blocks, and not the intro the selection chose. */
  wn_dom_page *dp = wn_test_parse(page);
  wn_detect_trace trace;
  memset(&trace, 0, sizeof trace);
  wn_detect_result *res = NULL;
  wn_detect_options opts = {.selector = WN_SELECT_SITE, .fallback = WN_SINGLE_DANAG};
  assert_int_equal(wn_detect_page_traced(dp, tpl, &opts, &trace, &res, NULL), WN_OK);
  assert_true(trace.own_bytes > 0);
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(dp, &count);
  int card = 0, intro = 0;
  for (uint32_t i = 0; i < count; i++)
    if (nodes[i].tag == WN_TAG_TEXT && trace.own[i]) {
      card |= strstr(nodes[i].text, "Paraffin table lamp no. 15") != NULL;
      intro |= strstr(nodes[i].text, "Every lantern") != NULL;
    }
  assert_true(card);
  assert_false(intro);
  wn_detect_trace_free(&trace);
  wn_detect_result_free(res);
  wn_dom_free(dp);
  wn_test_expect(text, "$29.00", 1);
  wn_test_expect(text, "Recently viewed", 0);
  free(text);
  free(page);
  wn_buf_free(&b);
  wn_template_free(tpl);
}


/* A word is read with its sentence: a product page (stated in JSON-LD)
 * whose review sits in a paragraph of a box the samples had (paired),
 * naming a part in an inline <code> no sample had. The selection keeps
 * the description; the single-page reading keeps the review; what comes
 * in is the paragraph whole, not the part's name cut out of it (as an
 * answer's code names were on a Q&A site's thread). */
static void test_shop_inline_words(void **state) {
  (void)state;
  wn_template *tpl = learn_shop();
  /* A shop (no shape of articles: the story's span, policy.c, stays out
   * of this) whose samples kept the description and left the box beside
   * it out: the description is the content place, the box an aside. */
  assert_int_equal(wn_template_set_shape(tpl, 0), WN_OK);
  char *sample = shop_sample(0);
  wn_dom_page *first = wn_test_parse(sample);
  free(sample);
  wn_template_places pl = {.content = wn_test_paired(tpl, first, "description"), .n_aside = 1};
  pl.aside[0] = wn_test_paired(tpl, first, "recent");
  wn_dom_free(first);
  assert_int_equal(wn_template_set_places(tpl, &pl), WN_OK);
  char *page = shop_page(
      3,
      "<script type=\"application/ld+json\">{\"@context\": \"https://schema.org\", "
      "\"@type\": \"Product\", \"name\": \"Wick set\"}</script>",
      "The wicks fit the <code>LX-200</code> burner of my grandfather's lantern without any "
      "trouble at all, and the flame stays low and steady through a whole winter night. The "
      "trimmer that comes with them is sharp enough for years of use at the cabin by the lake, "
      "and the cotton burns clean and even, leaving no soot on the glass of the globe. We have "
      "bought three sets since the spring and each one arrived well packed and on time.");
  char *text = detect(page, tpl);
  if (page_has_word_alone(text, "LX-200"))
    fail_msg("\"LX-200\" cut out of its sentence:\n%s", text);
  wn_test_expect(text, "burner of my grandfather's lantern", 1);
  free(text);
  free(page);
  wn_template_free(tpl);
}

/* A Q&A site (stated as a discussion, as such sites do) whose content
 * place is its first answer's body. Each answer is a body of paragraphs,
 * two in every sample, and a card of links (share, edit, the author), so
 * an answer's first two paragraphs are slots of the frame (paired blocks
 * whose text is the page's own) and its later ones blocks no sample had.
 * On a page whose first answer is short and second long, the selection
 * holds the first; the single-page reading keeps the second, and its
 * slots come in with its own blocks: the answer is read whole, not from
 * its third paragraph on (a Q&A site's answers were so cut). */
#define QA_TOP                                                                                   \
  "<html><head><script type=\"application/ld+json\">{\"@context\": \"https://schema.org\", "     \
  "\"@type\": \"QAPage\"}</script></head><body><header><a href=/>Questions</a> <a href=/tags>"   \
  "Tags</a> <a href=/users>Users</a></header><div id=content><div class=question><h1>%s</h1>"    \
  "</div><div class=answers>"
#define QA_ANSWER                                                                                \
  "<div><div class=body><p>%s</p><p>%s</p>%s</div><div class=card><a href=/share>Share</a> "     \
  "<a href=/edit>Edit</a> <a href=/follow>Follow</a> <a href=/u/7>a reader</a></div></div>"
#define QA_END                                                                                   \
  "</div></div><footer><p>Site design and logo, every right reserved; content licensed "        \
  "openly.</p></footer></body></html>"

static char *qa_page(const char *title, const char *const a[2][3]) {
  char *s = malloc(16384);
  assert_non_null(s);
  int n = snprintf(s, 16384, QA_TOP QA_ANSWER QA_ANSWER QA_END, title, a[0][0], a[0][1],
                   a[0][2], a[1][0], a[1][1], a[1][2]);
  assert_true(n > 0 && n < 16384);
  return s;
}

/* The Q&A site's template: three sample pages of two answers each, the
 * answers' paragraphs drawn from fill and their third part from third
 * (NULL: none), learned as winnow learns, the content place set to the
 * first answer's body. */
static wn_template *learn_qa(const char *const fill[3], const char *const third[3]) {
  static const char *const titles[] = {"Why does my bread not rise?",
                                       "How long to rest a steak?", "Can I freeze pasta?"};
  char *html[3];
  for (int k = 0; k < 3; k++) {
    const char *const a[2][3] = {{fill[k], fill[(k + 1) % 3], third ? third[k] : ""},
                                 {fill[(k + 2) % 3], fill[k], third ? third[(k + 1) % 3] : ""}};
    html[k] = qa_page(titles[k], a);
  }
  char *first = strdup(html[0]);
  assert_non_null(first);
  wn_template *tpl = learn_places(html);
  assert_int_equal(wn_template_set_shape(tpl, 0), WN_OK);
  wn_dom_page *sample = wn_test_parse(first);
  free(first);
  wn_template_places pl = {.content = wn_test_paired(tpl, sample, "body")};
  wn_dom_free(sample);
  assert_int_equal(wn_template_set_places(tpl, &pl), WN_OK);
  return tpl;
}

/* The new page's first answer: short, comma-rich, so the selection holds
 * it (its third part is each test's own). */
static const char *const qa_short[2] = {
    "Use asyncio, which, since 3.7, runs one coroutine with asyncio.run, and, with gather, "
    "several, each waiting in turn, so, in all, the program takes as long as its slowest part.",
    "That is, in short, the whole idea, and, once it clicks, every longer example, however "
    "long, reads the same way, step by step, call by call, await by await."};

/* The text of the Q&A page of answers a, read with tpl. */
static char *detect_qa(const wn_template *tpl, const char *const a[2][3]) {
  char *page = qa_page("Simplest example of async and await?", a);
  char *text = detect(page, tpl);
  free(page);
  return text;
}

static void test_qa_answer_slots(void **state) {
  (void)state;
  static const char *const fill[] = {
      "Old yeast, or water too hot, will not lift the <code>dough</code>, and the loaf stays "
      "flat.",
      "Rest it, covered, for as long as it <code>cooked</code>, so that the juices settle back "
      "in.",
      "Spread it on a floured tray, <code>freeze</code> it for an hour, then bag it and keep it "
      "cold."};
  wn_template *tpl = learn_qa(fill, NULL);
  const char *const a[2][3] = {
      {qa_short[0], qa_short[1], ""},
      {"Start with two coroutines that each <code>print</code> a number and then sleep for a "
       "second",
       "Synchronous code for comparison first of all",
       "<pre>def count(): print(1); time.sleep(1); print(2)</pre><p>Each call runs to the end "
       "before the next one begins so three calls take three seconds in all</p><p>Asynchronous "
       "code next for the other side</p><pre>async def count(): print(1); await asyncio."
       "sleep(1); print(2)</pre><p>Now the three calls share the second they wait and the "
       "whole program takes one second</p><p>The event loop is the piece that decides which "
       "coroutine runs next and await is where one hands control back to it again</p>"}};
  char *text = detect_qa(tpl, a);
  wn_test_expect(text, "Use asyncio, which", 1);
  wn_test_expect(text, "Each call runs to the end", 1);
  /* The slot's sentence with its word in <code> (paired: every sample's
   * answer had one there), not cut around it. */
  wn_test_expect(text, "Start with two coroutines that each print a number", 1);
  wn_test_expect(text, "Synchronous code for comparison", 1);
  wn_test_expect(text, "Site design and logo", 0);
  free(text);
  wn_template_free(tpl);
}

/* A thread's code slot: every sample's answer shows its code in a
 * <pre><code> after its paragraphs, so both are paired and the code's
 * text is the page's own inside a paired inline element. On a page that
 * states a thread, that text comes in with the answer (a program's output
 * below it was left out: "0 0 1 1 2 2"). */
static void test_qa_code_slot(void **state) {
  (void)state;
  static const char *const fill[] = {
      "Old yeast, or water too hot, will not lift the dough, and the loaf stays flat.",
      "Rest it, covered, for as long as it cooked, so that the juices settle back in.",
      "Spread it on a floured tray, freeze it for an hour, then bag it and keep it cold."};
  static const char *const code[] = {"<pre><code>proof(dough, minutes=90)</code></pre>",
                                     "<pre><code>rest(steak, minutes=8)</code></pre>",
                                     "<pre><code>freeze(tray, hours=1)</code></pre>"};
  wn_template *tpl = learn_qa(fill, code);
  const char *const a[2][3] = {
      {qa_short[0], qa_short[1], "<pre><code>asyncio.run(main())</code></pre>"},
      {"I would expect this code to run the two counters one after the other in turn",
       "Instead the two counters interleave and the output of the program is this one",
       "<pre><code>0 0 1 1 2 2</code></pre><p>Each call runs to the end before the next one "
       "begins so three calls take three seconds in all</p><p>The event loop is the piece that "
       "decides which coroutine runs next and await is where one hands control back to it "
       "again</p><p>So the counters take turns at every await and neither waits for the "
       "other to finish its count before it prints the next number of its own</p><p>Put the "
       "two calls one after the other without gather and they run in turn as you expected "
       "them to run from the start</p>"}};
  char *text = detect_qa(tpl, a);
  wn_test_expect(text, "Use asyncio, which", 1);
  wn_test_expect(text, "Each call runs to the end", 1);
  wn_test_expect(text, "Instead the two counters interleave", 1);
  wn_test_expect(text, "0 0 1 1 2 2", 1);
  wn_test_expect(text, "Site design and logo", 0);
  free(text);
  wn_template_free(tpl);
}

/* Product variants learned from one another: every sample's description
 * holds the same paragraph between its own (the range's care notes), so
 * the template pairs it and the selectors read it as frame. Both readings
 * place it amid the page's content, and it is a paragraph, not a label:
 * it comes in; the shared label "Details" above it stays out. */
static void test_shop_shared_prose(void **state) {
  (void)state;
  static const char *const care =
      "Every lamp of this range is tested in our workshop for a full night before it ships, "
      "and comes with spare wicks and a cloth.";
  char *html[3];
  for (int k = 0; k < 3; k++) {
    char extra[1024];
    snprintf(extra, sizeof extra, "%s, the variant with a %s finish.", products[k][2],
             k == 0 ? "brass" : k == 1 ? "copper" : "black");
    html[k] = malloc(8192);
    assert_non_null(html[k]);
    snprintf(html[k], 8192,
             SHOP_TOP "<h1>%s</h1><div class=price>%s</div><div class=description><p>%s</p>"
                      "<h4>Details</h4><p>%s</p><p>%s</p></div></div>" SHOP_END,
             products[k][0], products[k][1], extra, care, products[(k + 1) % 3][2]);
  }
  wn_template *tpl = learn_places(html);
  char page[8192];
  snprintf(page, sizeof page,
           SHOP_TOP "<h1>Brass deck lantern</h1><div class=price>$89.00</div><div "
                    "class=description><p>A deck lantern of solid brass with a thick glass "
                    "globe, made for boats and porches.</p><h4>Details</h4><p>%s</p><p>Its "
                    "burner takes the common flat wick, and the chimney lifts off for "
                    "cleaning without tools.</p></div></div>" SHOP_END,
           care);
  char *text = detect(page, tpl);
  wn_test_expect(text, "A deck lantern of solid brass", 1);
  wn_test_expect(text, "tested in our workshop for a full night", 1);
  wn_test_expect(text, "chimney lifts off", 1);
  wn_test_expect(text, "Details", 0);
  free(text);
  wn_template_free(tpl);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_shop_product_specs),
      cmocka_unit_test(test_shop_category_grid),
      cmocka_unit_test(test_shop_inline_words),
      cmocka_unit_test(test_qa_answer_slots),
      cmocka_unit_test(test_qa_code_slot),
      cmocka_unit_test(test_shop_shared_prose),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
