/*
 * tests/learn/test_links.c: a page's links, resolved against <base href>
 * or the page URL.
 */
#include "wn_test.h"

#include <stdlib.h>
#include <string.h>

#include "learn/learn.h"

static wn_dom_page *parse_xml(const char *html) {
  wn_dom_options opts = {0};
  opts.keep_xml = 1;
  wn_dom_page *page = NULL;
  assert_int_equal(wn_dom_parse(html, strlen(html), &opts, &page, NULL), WN_OK);
  return page;
}

static void test_links(void **state) {
  (void)state;
  wn_dom_page *page = parse_xml(
      "<html><head><title>t</title><base href=\"/docs/v2/\"></head><body>"
      "<a href=\"../x\">x</a> <a href=\"./y\">y</a> <a href=\"?q\">q</a>"
      "<a href=\"#top\">top</a> <a href=\"page#s\">s</a>"
      "<a href=\"https://other.org/p\">other</a>"
      "<a href=\"mailto:me@example.com\">mail</a> <a href=\"javascript:go()\">js</a>"
      "<a name=\"anchor\">no href</a> <a href=\"page\">again</a>"
      "</body></html>");
  wn_link *links = NULL;
  size_t n = 0;
  wn_diag diag = {{0}};
  wn_err err = wn_learn_links(page, "http://example.com/start/index.html", 0, &links, &n, &diag);
  assert_int_equal(err, WN_OK);
  static const char *const want[] = {
      "http://example.com/docs/x",       "http://example.com/docs/v2/y",
      "http://example.com/docs/v2/?q",   "http://example.com/docs/v2/",
      "http://example.com/docs/v2/page", "https://other.org/p",
      "http://example.com/docs/v2/page",
  };
  assert_int_equal(n, sizeof want / sizeof want[0]);
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  for (size_t i = 0; i < n; i++) {
    assert_string_equal(links[i].url, want[i]);
    assert_true(links[i].node < count);
    assert_int_equal(nodes[links[i].node].tag, WN_TAG_A);
  }
  /* Document order: the node indexes rise. */
  for (size_t i = 1; i < n; i++)
    assert_true(links[i].node > links[i - 1].node);
  wn_links_free(links, n);

  /* The cap. */
  assert_int_equal(wn_learn_links(page, "http://example.com/", 2, &links, &n, NULL), WN_OK);
  assert_int_equal(n, 2);
  wn_links_free(links, n);
  wn_dom_free(page);
}

static void test_links_without_base(void **state) {
  (void)state;
  wn_dom_page *page = parse_xml("<p><a href=\"../x\">x</a><a href=\"#top\">t</a></p>");
  wn_link *links = NULL;
  size_t n = 0;
  assert_int_equal(wn_learn_links(page, "http://example.com/a/b/page.html?p=2", 0, &links, &n,
                                  NULL),
                   WN_OK);
  assert_int_equal(n, 2);
  assert_string_equal(links[0].url, "http://example.com/a/x");
  assert_string_equal(links[1].url, "http://example.com/a/b/page.html?p=2");
  wn_links_free(links, n);
  /* A page URL that is not http(s) is refused. */
  wn_diag diag = {{0}};
  assert_int_equal(wn_learn_links(page, "file:///etc/passwd", 0, &links, &n, &diag), WN_EINVAL);
  wn_dom_free(page);

  /* Without the libxml2 doc there are no attributes to read. */
  wn_dom_page *bare = wn_test_parse("<a href=\"x\">x</a>");
  assert_int_equal(wn_learn_links(bare, "http://example.com/", 0, &links, &n, NULL), WN_EINVAL);
  wn_dom_free(bare);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_links),
      cmocka_unit_test(test_links_without_base),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
