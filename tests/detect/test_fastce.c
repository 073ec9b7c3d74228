/* tests/detect/test_fastce.c: FastCE's detection phase (Sec. III of the
 * paper): blocks on content paths are extracted, stored non-content blocks
 * dropped, and each of the sub-block rules, on hand-made pages and
 * templates. */
#include "wn_test.h"

#include <stdlib.h>
#include <string.h>

#include "detect/fastce.h"
#include "learn/learn.h"

/* A template of the given paths and no stored blocks. */
static wn_fastce *wn_paths(const char *const *paths, size_t n) {
  wn_fastce *f = wn_fastce_new(2);
  assert_non_null(f);
  for (size_t i = 0; i < n; i++)
    assert_int_not_equal(wn_fastce_add_path(f, paths[i], strlen(paths[i])), WN_DOM_NONE);
  assert_int_equal(wn_fastce_finish(f, NULL), WN_OK);
  return f;
}

static char *wn_text(const wn_dom_page *page, const wn_fastce *f, wn_detect_result **res_out) {
  wn_detect_result *res = NULL;
  assert_int_equal(wn_detect_fastce_run(page, f, &res, NULL), WN_OK);
  wn_buf b;
  wn_buf_init(&b, 1 << 20);
  assert_int_equal(wn_detect_render_text(page, res, &b), WN_OK);
  char *s = wn_buf_take(&b, NULL);
  if (!s)
    s = calloc(1, 1);
  if (res_out)
    *res_out = res;
  else
    wn_detect_result_free(res);
  return s;
}

/* Rule 1: every sub-block of B on a path in P: B whole. (Text output
 * breaks a line at each block element.) */
static void test_rule_all_sub_blocks_in_p(void **state) {
  (void)state;
  const char *p[] = {"html.body.div.div", "html.body.div.div.div"};
  wn_fastce *f = wn_paths(p, 2);
  wn_dom_page *page = wn_test_parse("<body><nav><p>Menu</p></nav><div><div>Keep <div>the "
                                    "inner</div> too.</div></div></body>");
  wn_detect_result *res = NULL;
  char *t = wn_text(page, f, &res);
  assert_string_equal(t, "Keep\nthe inner\ntoo.\n");
  /* One selected subtree: the div on the content path (the outermost
   * extracted block), not the div around it. */
  uint32_t n = 0;
  const uint32_t *sel = wn_detect_selected(res, &n);
  assert_int_equal(n, 1);
  assert_int_equal(sel[0], wn_test_find(page, "div", NULL) + 1);
  assert_string_equal(wn_detect_method(res), "fastce");
  assert_true(wn_detect_confidence(res) == 1.0);
  wn_detect_result_free(res);
  free(t);
  wn_dom_free(page);
  wn_fastce_free(f);
}

/* Rule 2: B' not in P with no sub-block in P: B without B'. */
static void test_rule_sub_block_dropped(void **state) {
  (void)state;
  const char *p[] = {"html.body.div.div"};
  wn_fastce *f = wn_paths(p, 1);
  wn_dom_page *page = wn_test_parse(
      "<body><div><div>Keep this<div>not this</div>and the end.</div></div></body>");
  char *t = wn_text(page, f, NULL);
  assert_string_equal(t, "Keep this\nand the end.\n");
  free(t);
  wn_dom_free(page);
  wn_fastce_free(f);
}

/* Rule 3: B' not in P but with a sub-block in P: B including B'. Blocks
 * outside every extracted block (the list) are left out. */
static void test_rule_sub_block_kept(void **state) {
  (void)state;
  const char *p[] = {"html.body.div.div", "html.body.div.div.div.div"};
  wn_fastce *f = wn_paths(p, 2);
  wn_dom_page *page = wn_test_parse("<body><div><div>Keep<div>outer<div>inner</div></div>end"
                                    "</div><ul><li>Elsewhere</li></ul></div></body>");
  char *t = wn_text(page, f, NULL);
  assert_string_equal(t, "Keep\nouter\ninner\nend\n");
  free(t);
  wn_dom_free(page);
  wn_fastce_free(f);
}

/* A block on a content path like a stored non-content block is dropped;
 * its neighbour on the same path is kept. Confidence: the share of P the
 * page has (1 of 2 paths, equal weights). */
static void test_stored_block_dropped(void **state) {
  (void)state;
  wn_dom_page *sample = wn_test_parse("<body><div><p>Copyright Example News, all rights "
                                      "reserved.</p></div></body>");
  wn_arena *arena = wn_arena_create(0);
  wn_fastce_blocks bl;
  assert_int_equal(wn_fastce_partition(sample, arena, &bl, NULL), WN_OK);
  assert_int_equal(bl.n, 4);
  wn_fastce *f = wn_fastce_new(2);
  assert_int_equal(wn_fastce_add_path(f, "html.body.div.p", 15), 0);
  assert_int_equal(wn_fastce_add_path(f, "html.body.div.h1", 16), 1);
  assert_int_equal(wn_fastce_add_stored(f, 0, bl.terms + bl.blocks[3].term_first,
                                        bl.blocks[3].n_terms, "Copyright", 9),
                   WN_OK);
  assert_int_equal(wn_fastce_finish(f, NULL), WN_OK);
  wn_dom_page *page = wn_test_parse("<body><div><p>The story itself.</p><p>Copyright "
                                    "Example News, all rights reserved.</p></div></body>");
  wn_detect_result *res = NULL;
  char *t = wn_text(page, f, &res);
  assert_string_equal(t, "The story itself.\n");
  assert_true(wn_detect_confidence(res) == 0.5);
  wn_detect_result_free(res);
  free(t);
  wn_dom_free(page);
  wn_fastce_free(f);
  wn_arena_destroy(arena);
  wn_dom_free(sample);
}

/* Learned and detected end to end; a page that has none of the paths goes
 * to the single-page fallback, saying so. */
static void test_learn_then_detect(void **state) {
  (void)state;
  static const char *const html[3] = {
      "<body><div id=nav><a href=/>Home</a></div><div><h1>One</h1><p>First story text about "
      "boats.</p></div><div><p>Copyright Example News.</p></div></body>",
      "<body><div id=nav><a href=/>Home</a></div><div><h1>Two</h1><p>Second story text about "
      "trains.</p></div><div><p>Copyright Example News.</p></div></body>",
      "<body><div id=nav><a href=/>Home</a></div><div><h1>Three</h1><p>Third story text about "
      "planes.</p></div><div><p>Copyright Example News.</p></div></body>"};
  wn_dom_page *pages[3];
  for (int i = 0; i < 3; i++)
    pages[i] = wn_test_parse(html[i]);
  wn_fastce *f = NULL;
  assert_int_equal(wn_learn_fastce((const wn_dom_page *const *)pages, 3, &f, NULL), WN_OK);
  wn_dom_page *page = wn_test_parse(
      "<body><div id=nav><a href=/>Home</a></div><div><h1>Four</h1><p>A new story about "
      "bicycles.</p></div><div><p>Copyright Example News.</p></div></body>");
  char *t = wn_text(page, f, NULL);
  assert_string_equal(t, "Four\nA new story about bicycles.\n");
  free(t);
  wn_detect_options o;
  wn_detect_options_init(&o);
  wn_detect_result *res = NULL;
  wn_dom_page *other = wn_test_parse("<body><table><tr><td>Some other layout with enough text "
                                     "to be content.</td></tr></table></body>");
  assert_int_equal(wn_detect_fastce_page(other, f, &o, &res, NULL), WN_OK);
  assert_int_equal(wn_detect_fallback_reason(res), WN_FALLBACK_LOW_CONFIDENCE);
  assert_true(wn_detect_confidence(res) == 0.0);
  wn_detect_result_free(res);
  wn_dom_free(other);
  wn_dom_free(page);
  wn_fastce_free(f);
  for (int i = 0; i < 3; i++)
    wn_dom_free(pages[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rule_all_sub_blocks_in_p),
      cmocka_unit_test(test_rule_sub_block_dropped),
      cmocka_unit_test(test_rule_sub_block_kept),
      cmocka_unit_test(test_stored_block_dropped),
      cmocka_unit_test(test_learn_then_detect),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
