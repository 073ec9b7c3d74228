/* tests/detect/test_single.c: the single-page methods. CNR's ratios and
 * block selection and DANAg's lines, smoothing and area on small examples
 * worked out by hand; both methods on a real-looking news page
 * (tests/fixtures/single/article.html); empty pages; bounded input. */
#include "wn_test.h"

#include <stdlib.h>

#include "detect/detect.h"
#include "detect/single_int.h"

/* Runs a method with the given steps and renders its text (malloc'd). */
static char *run_text(const wn_dom_page *page, wn_single_method m, uint32_t steps,
                      uint32_t *n_selected) {
  wn_detect_result *res = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_detect_single_steps(page, m, steps, &res, &diag);
  if (err)
    fprintf(stderr, "%s\n", wn_diag_message(&diag, err));
  assert_int_equal(err, WN_OK);
  assert_string_equal(wn_detect_method(res), wn_single_method_name(m));
  wn_buf out;
  wn_buf_init(&out, 1 << 23);
  assert_int_equal(wn_detect_render_text(page, res, &out), WN_OK);
  wn_detect_selected(res, n_selected);
  char *s = strdup(out.data ? out.data : "");
  assert_non_null(s);
  wn_buf_free(&out);
  wn_detect_result_free(res);
  return s;
}

static int near(double a, double b) { return a - b < 1e-9 && b - a < 1e-9; }

/* Appends n characters 'c' (one word) to buf. */
static void word(wn_buf *b, char c, size_t n) {
  for (size_t i = 0; i < n; i++)
    assert_int_equal(wn_buf_append_char(b, c), WN_OK);
}

static void test_names(void **state) {
  (void)state;
  wn_single_method m = WN_SINGLE_DANAG;
  assert_int_equal(wn_single_method_parse("cnr", &m), 0);
  assert_int_equal(m, WN_SINGLE_CNR);
  assert_int_equal(wn_single_method_parse("danag", &m), 0);
  assert_int_equal(m, WN_SINGLE_DANAG);
  assert_int_equal(wn_single_method_parse("CNR", &m), -1);
  assert_int_equal(wn_single_method_parse(NULL, &m), -1);
  assert_string_equal(wn_single_method_name(WN_SINGLE_CNR), "cnr");
  assert_string_equal(wn_single_method_name(WN_SINGLE_DANAG), "danag");
  assert_null(wn_single_method_name((wn_single_method)7));
  assert_int_equal(wn_single_chars("a b\xc3\xa9 c", 7), 4); /* a, b, e-acute, c */
}

/*
 * Algorithm 1 by hand. Nodes:
 *   0 html, 1 body, 2 div#m, 3 p, 4 "aaaa bbbb", 5 p, 6 "cccccccc",
 *   7 div#n, 8 a, 9 "link", 10 " dd"
 * text nodes: weight 1, chars without spaces: 4 -> 8, 6 -> 8, 9 -> 4, 10 -> 2
 * p 3: weight 1 + 1 = 2, chars 8, ratio 4; p 5 the same
 * div#m: weight 1 + 2 + 2 = 5, chars 16, ratio 3.2
 * a 8: nonContentNode (a menu tag): weight 1, chars 0, ratio 0
 * div#n: weight 1 + 1 (a) + 1 ("dd") = 3, chars 2, ratio 2/3
 * body: weight 1 + 5 + 3 = 9, chars 18, ratio 2; html: 10, 18, 1.8
 */
static void test_cnr_ratios(void **state) {
  (void)state;
  wn_dom_page *page = wn_test_parse("<body><div id=m><p>aaaa bbbb</p><p>cccccccc</p></div>"
                                    "<div id=n><a href=x>link</a> dd</div></body>");
  uint32_t count = 0;
  wn_dom_nodes(page, &count);
  assert_int_equal(count, 11);
  assert_int_equal(wn_test_find(page, "div", "m"), 2);
  assert_int_equal(wn_test_find(page, "a", NULL), 8);
  uint32_t weight[11], chars[11];
  double ratio[11];
  wn_cnr_ratios(page, weight, chars, ratio);
  const uint32_t want_w[11] = {10, 9, 5, 2, 1, 2, 1, 3, 1, 1, 1};
  const uint32_t want_c[11] = {18, 18, 16, 8, 8, 8, 8, 2, 0, 4, 2};
  for (uint32_t i = 0; i < 11; i++) {
    assert_int_equal(weight[i], want_w[i]);
    assert_int_equal(chars[i], want_c[i]);
  }
  assert_true(near(ratio[2], 3.2));
  assert_true(near(ratio[7], 2.0 / 3.0));
  assert_true(near(ratio[8], 0.0));
  assert_true(near(ratio[1], 2.0));
  wn_dom_free(page);
}

/*
 * Steps (ii) and (iii) by hand, plain CNR (no added steps). Page:
 *   div#c: three <p>, 100 characters each;
 *   div#m: a list of 10 links "Item";
 *   div#s: one <p> of 60 characters.
 * Ratios: a text of the article 100, its p 100/2 = 50; div#c 300 / 7 =
 * 42.86; the list: li = 1 + a (non-content, 1) = 2 nodes, 0 chars; ul 21,
 * div#m 22 nodes, 0 chars; div#s: text 60, p 30, div 60/3 = 20.
 * body: 1 + 7 + 22 + 3 = 33 nodes, 360 chars: 10.91; threshold 4 times
 * that, 43.64. Top rated: the three article texts and their p (50), and
 * the sidebar text (60); div#c (42.86) is not. Algorithm 2: the texts sit
 * inside their p; the three p are siblings and are replaced by div#c; the
 * sidebar text has no sibling in the set. Blocks {div#c, "sidebar text"};
 * the one with most text is div#c (300 > 60).
 */
static void test_cnr_block(void **state) {
  (void)state;
  wn_buf h;
  wn_buf_init(&h, 1 << 16);
  assert_int_equal(wn_buf_append_str(&h, "<body><div id=c>"), WN_OK);
  for (char c = 'a'; c <= 'c'; c++) {
    assert_int_equal(wn_buf_append_str(&h, "<p>"), WN_OK);
    word(&h, c, 100);
    assert_int_equal(wn_buf_append_str(&h, "</p>"), WN_OK);
  }
  assert_int_equal(wn_buf_append_str(&h, "</div><div id=m><ul>"), WN_OK);
  for (int k = 0; k < 10; k++)
    assert_int_equal(wn_buf_append_str(&h, "<li><a href=x>Item</a></li>"), WN_OK);
  assert_int_equal(wn_buf_append_str(&h, "</ul></div><div id=s><p>"), WN_OK);
  word(&h, 's', 60);
  assert_int_equal(wn_buf_append_str(&h, "</p></div></body>"), WN_OK);
  wn_dom_page *page = wn_test_parse(h.data);
  wn_buf_free(&h);

  uint32_t count = 0;
  wn_dom_nodes(page, &count);
  uint32_t *weight = calloc(count, sizeof *weight), *chars = calloc(count, sizeof *chars);
  double *ratio = calloc(count, sizeof *ratio);
  assert_true(weight && chars && ratio);
  wn_cnr_ratios(page, weight, chars, ratio);
  uint32_t body = wn_dom_body(page), c = wn_test_find(page, "div", "c");
  uint32_t m = wn_test_find(page, "div", "m"), s = wn_test_find(page, "div", "s");
  assert_int_equal(weight[body], 33);
  assert_int_equal(chars[body], 360);
  assert_int_equal(weight[c], 7);
  assert_int_equal(weight[m], 22);
  assert_int_equal(chars[m], 0);
  assert_int_equal(weight[s], 3);
  assert_true(ratio[c] < 4.0 * ratio[body]); /* not top rated itself... */
  assert_true(ratio[c + 1] > 4.0 * ratio[body]); /* ...but its p are */
  assert_true(ratio[s + 2] > 4.0 * ratio[body]); /* and so is the sidebar text */
  free(weight);
  free(chars);
  free(ratio);

  wn_detect_result *res = NULL;
  assert_int_equal(wn_detect_single_steps(page, WN_SINGLE_CNR, WN_SINGLE_STEPS_PAPER, &res, NULL),
                   WN_OK);
  uint32_t n = 0;
  const uint32_t *sel = wn_detect_selected(res, &n);
  assert_int_equal(n, 1);
  assert_int_equal(sel[0], c);
  const uint8_t *tmpl = wn_detect_template_flags(res);
  assert_int_equal(tmpl[c], 0);
  assert_int_equal(tmpl[m], 1);
  assert_int_equal(tmpl[s], 1);
  assert_int_equal(tmpl[body], 0); /* it holds content */
  wn_detect_result_free(res);
  wn_dom_free(page);
}

/*
 * The normalised source of a small page. Lines break before and after
 * every block element; code is the tags' length (an <a> is charged
 * WN_DANAG_HREF_CODE = 40 for its href):
 *   line 0  <html>                          code 6
 *   line 1  <body>                          code 6
 *   line 2  <div>                           code 5
 *   line 3  <p>Hello world</p>              code 3 + 4 = 7, content 11
 *   line 4  <a href>ab</a></div>            code (2 + 1 + 40) + 4 + 6 = 53, content 2
 *   line 5  </body>                         code 7
 *   line 6  </html>                         code 7
 */
static void test_danag_lines(void **state) {
  (void)state;
  wn_dom_page *page = wn_test_parse("<body><div><p>Hello world</p><a href=x>ab</a></div></body>");
  uint32_t count = 0;
  wn_dom_nodes(page, &count);
  assert_int_equal(count, 7);
  uint32_t content[16], code[16], line_of[7];
  uint32_t n = wn_danag_lines(page, content, code, line_of);
  assert_int_equal(n, 7);
  const uint32_t want_content[7] = {0, 0, 0, 11, 2, 0, 0};
  const uint32_t want_code[7] = {6, 6, 5, 7, 53, 7, 7};
  for (uint32_t i = 0; i < 7; i++) {
    assert_int_equal(content[i], want_content[i]);
    assert_int_equal(code[i], want_code[i]);
  }
  assert_int_equal(line_of[wn_test_find(page, "#text", "Hello world")], 3);
  assert_int_equal(line_of[wn_test_find(page, "#text", "ab")], 4);
  wn_dom_free(page);
}

/*
 * Formula 1 and the area by hand.
 *   content      0   50   60    0    0    0   40    0    5
 *   code        30   10   10   20   20   20   10   30    0
 *   T1 - T2    -30   40   50  -20  -20  -20   30  -30    5
 *   diff        10   60   70   10  -60  -10  -20    5  -25
 * (diff[i] sums T1 - T2 over lines i-1, i, i+1). Runs above the axis:
 * lines 0-3 (content 110) and line 7 (content 0): the first paragraph is
 * 0-3. Line 7 is 3 lines after line 3: within a gap of 20 it joins (area
 * 0-7); with a gap of 2 it does not (area 0-3).
 */
static void test_danag_smooth_area(void **state) {
  (void)state;
  const uint32_t content[9] = {0, 50, 60, 0, 0, 0, 40, 0, 5};
  const uint32_t code[9] = {30, 10, 10, 20, 20, 20, 10, 30, 0};
  const int64_t want[9] = {10, 60, 70, 10, -60, -10, -20, 5, -25};
  int64_t diff[9];
  wn_danag_smooth(content, code, 9, diff);
  for (int i = 0; i < 9; i++)
    assert_int_equal(diff[i], want[i]);
  uint32_t first = 99, last = 99;
  assert_int_equal(wn_danag_area(content, diff, 9, 20, &first, &last), 1);
  assert_int_equal(first, 0);
  assert_int_equal(last, 7);
  assert_int_equal(wn_danag_area(content, diff, 9, 2, &first, &last), 1);
  assert_int_equal(first, 0);
  assert_int_equal(last, 3);
  /* Nothing above the axis: no area. */
  const int64_t flat[3] = {0, -1, -5};
  assert_int_equal(wn_danag_area(content, flat, 3, 20, &first, &last), 0);
}

static wn_dom_page *parse_fixture(void) {
  size_t len = 0;
  char *bytes = wn_test_read(WN_FIXTURES "/single/article.html", &len);
  wn_dom_page *page = NULL;
  assert_int_equal(wn_dom_parse(bytes, len, NULL, &page, NULL), WN_OK);
  free(bytes);
  return page;
}

/* The content every method must find on the fixture, and what it must not
 * take (menu, sidebar, related links, comments, footer). */
static const char *const article_in[] = {
    "Councillors in Porthcarrow voted",
    "borrowing most of the cost",
    "rock armour scheme",
    "western slipway will close",
};
static const char *const article_out[] = {
    "Subscribe", "Lifeboat crew", "Bakery closes", "About us", "Privacy",
};

static void check_article(const char *text) {
  for (size_t k = 0; k < sizeof article_in / sizeof *article_in; k++)
    if (!strstr(text, article_in[k]))
      fail_msg("missing \"%s\" in:\n%s", article_in[k], text);
  for (size_t k = 0; k < sizeof article_out / sizeof *article_out; k++)
    if (strstr(text, article_out[k]))
      fail_msg("boilerplate \"%s\" in:\n%s", article_out[k], text);
}

static void test_fixture(void **state) {
  (void)state;
  wn_dom_page *page = parse_fixture();
  const wn_single_method methods[2] = {WN_SINGLE_CNR, WN_SINGLE_DANAG};
  for (int k = 0; k < 2; k++) {
    uint32_t n = 0;
    /* The defaults: the article with its headline, byline and date; no
     * related links, no comments. */
    wn_detect_result *res = NULL;
    assert_int_equal(wn_detect_single(page, methods[k], &res, NULL), WN_OK);
    wn_detect_result_free(res);
    char *text = run_text(page, methods[k], wn_single_default_steps(methods[k]), &n);
    check_article(text);
    assert_non_null(strstr(text, "Harbour town votes to rebuild its sea wall"));
    assert_non_null(strstr(text, "By Morwenna Tregarthen"));
    assert_null(strstr(text, "Flood fund opens"));
    assert_null(strstr(text, "About time too"));
    assert_true(n >= 1);
    free(text);
  }
  /* Plain CNR keeps its whole block, the related links included, and
   * misses the headline above it: the steps make the difference. */
  uint32_t n = 0;
  char *plain = run_text(page, WN_SINGLE_CNR, WN_SINGLE_STEPS_PAPER, &n);
  check_article(plain);
  assert_non_null(strstr(plain, "Flood fund opens"));
  assert_null(strstr(plain, "Harbour town votes"));
  assert_int_equal(n, 1);
  free(plain);
  char *links = run_text(page, WN_SINGLE_CNR, WN_SINGLE_STEP_LINKS, &n);
  assert_null(strstr(links, "Flood fund opens"));
  free(links);
  wn_dom_free(page);
}

/* detect.h: a page without text has no content: WN_OK, nothing selected,
 * empty text. */
static void test_empty(void **state) {
  (void)state;
  const char *pages[] = {"", "<html><body></body></html>",
                         "<body><div><img src=a.png><br><hr></div></body>",
                         "<body><script>var x = 'not text';</script></body>"};
  for (size_t k = 0; k < sizeof pages / sizeof *pages; k++) {
    wn_dom_page *page = NULL;
    assert_int_equal(wn_dom_parse(pages[k], strlen(pages[k]), NULL, &page, NULL), WN_OK);
    for (int m = 0; m < 2; m++) {
      uint32_t n = 99;
      char *text = run_text(page, (wn_single_method)m, wn_single_default_steps((wn_single_method)m),
                            &n);
      assert_int_equal(n, 0);
      assert_string_equal(text, "");
      free(text);
      text = run_text(page, (wn_single_method)m, WN_SINGLE_STEPS_PAPER, &n);
      assert_int_equal(n, 0);
      free(text);
    }
    wn_dom_free(page);
  }
  wn_detect_result *res = NULL;
  wn_dom_page *page = wn_test_parse("<p>x</p>");
  assert_int_equal(wn_detect_single(page, (wn_single_method)7, &res, NULL), WN_EINVAL);
  assert_null(res);
  wn_dom_free(page);
}

/* Bounded input: nesting at the depth cap and a page of many nodes run
 * without recursion and keep their text. */
static void test_bounded(void **state) {
  (void)state;
  wn_buf h;
  wn_buf_init(&h, 1 << 24);
  const unsigned depth = WN_DOM_DEFAULT_MAX_DEPTH - 8;
  for (unsigned k = 0; k < depth; k++)
    assert_int_equal(wn_buf_append_str(&h, "<div>"), WN_OK);
  assert_int_equal(wn_buf_append_str(&h, "<p>deep text, with a comma, far down the tree</p>"), WN_OK);
  for (unsigned k = 0; k < depth; k++)
    assert_int_equal(wn_buf_append_str(&h, "</div>"), WN_OK);
  wn_dom_page *page = wn_test_parse(h.data);
  for (int m = 0; m < 2; m++) {
    uint32_t n = 0;
    char *text = run_text(page, (wn_single_method)m, wn_single_default_steps((wn_single_method)m), &n);
    assert_non_null(strstr(text, "deep text"));
    free(text);
  }
  wn_dom_free(page);

  wn_buf_reset(&h);
  for (unsigned k = 0; k < 40000; k++)
    assert_int_equal(wn_buf_append_str(&h, "<p>one short paragraph, of a long page.</p>"),
                     WN_OK);
  page = wn_test_parse(h.data);
  for (int m = 0; m < 2; m++) {
    uint32_t n = 0;
    char *text = run_text(page, (wn_single_method)m, wn_single_default_steps((wn_single_method)m), &n);
    /* Even text: DANAg takes it all; CNR's top rated nodes are all the
     * texts, none with a sibling, and its block is one of them. */
    if (m == WN_SINGLE_DANAG)
      assert_true(strlen(text) > 40000u * 30u);
    else
      assert_string_equal(text, "one short paragraph, of a long page.\n");
    free(text);
  }
  wn_dom_free(page);
  wn_buf_free(&h);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_names),        cmocka_unit_test(test_cnr_ratios),
      cmocka_unit_test(test_cnr_block),    cmocka_unit_test(test_danag_lines),
      cmocka_unit_test(test_danag_smooth_area), cmocka_unit_test(test_fixture),
      cmocka_unit_test(test_empty),        cmocka_unit_test(test_bounded),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
