/* tests/detect/test_render.c: text output of a selection: one line per
 * block, inline elements joined as a browser renders them, pre kept line
 * by line. */
#include "wn_test.h"

#include <stdlib.h>

#include "detect/detect.h"
#include "detect/detect_int.h"

/* Renders the whole <body> of html as the selection, every text kept but
 * the text nodes equal to `left_out` (NULL: none). */
static char *render(const char *html, const char *left_out) {
  wn_dom_page *page = wn_test_parse(html);
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  wn_detect_result *res = wn_detect_result_alloc(count, "test");
  assert_non_null(res);
  res->selected = malloc(sizeof *res->selected);
  assert_non_null(res->selected);
  res->selected[0] = wn_dom_body(page);
  res->n_selected = 1;
  for (uint32_t i = 0; i < count; i++)
    res->keep[i] = nodes[i].tag == WN_TAG_TEXT &&
                   !(left_out && strcmp(nodes[i].text, left_out) == 0);
  wn_buf buf;
  wn_buf_init(&buf, 0);
  assert_int_equal(wn_detect_render_text(page, res, &buf), WN_OK);
  wn_detect_result_free(res);
  wn_dom_free(page);
  char *text = wn_buf_take(&buf, NULL);
  return text ? text : calloc(1, 1);
}

static void check(const char *html, const char *left_out, const char *want) {
  char *got = render(html, left_out);
  if (strcmp(got, want) != 0)
    fail_msg("%s\n  want [%s]\n  got  [%s]", html, want, got);
  free(got);
}

static void test_inline_joins(void **state) {
  (void)state;
  check("<p><b>un</b>believable</p>", NULL, "unbelievable\n");
  check("<p>H<sub>2</sub>O is water</p>", NULL, "H2O is water\n");
  check("<p>Read the <a href=/m>manual</a>.</p>", NULL, "Read the manual.\n");
  check("<p>E = mc<sup>2</sup>, said <em>he</em>; <i>so</i> <b>there</b></p>", NULL,
        "E = mc2, said he; so there\n");
  /* White space inside the inline element, or as text of its own. */
  check("<p><b>one </b>two<i> three</i></p>", NULL, "one two three\n");
  check("<p><span>one</span>\n  <span>two</span></p>", NULL, "one two\n");
  /* Text left out in between (template text) leaves a space, not a join. */
  check("<p>left<span>X</span>right</p>", "X", "left right\n");
}

static void test_block_boundaries(void **state) {
  (void)state;
  check("<div><p>First</p><p>Second</p>Tail<br>After</div>", NULL,
        "First\nSecond\nTail\nAfter\n");
  check("<ul><li>a</li><li>b</li></ul><table><tr><td>c</td><td>d</td></tr></table>", NULL,
        "a\nb\nc\nd\n");
  check("<h1>Title</h1><div>x<div>y</div>z</div>", NULL, "Title\nx\ny\nz\n");
  check("", NULL, "");
}

static void test_pre_keeps_lines(void **state) {
  (void)state;
  check("<pre>\nint main(void) {\n  return 0;   \n}\n</pre>", NULL,
        "int main(void) {\n  return 0;\n}\n");
  /* Highlighted code: the line breaks sit between the spans. */
  check("<pre><span>a</span>\n<span>  b</span>\n\n<span>c</span>\n</pre>", NULL,
        "a\n  b\n\nc\n");
  check("<p>Before</p><pre>x  =  1\r\ny = 2</pre><p>After <b>all</b></p>", NULL,
        "Before\nx  =  1\ny = 2\nAfter all\n");
  check("<listing>one\ntwo</listing><xmp>three\nfour</xmp>", NULL, "one\ntwo\nthree\nfour\n");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_inline_joins),
      cmocka_unit_test(test_block_boundaries),
      cmocka_unit_test(test_pre_keeps_lines),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
