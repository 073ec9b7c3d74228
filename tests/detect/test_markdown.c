/* tests/detect/test_markdown.c: Markdown output of a selection, checked
 * line by line: headings, paragraphs, nested lists, block quotes, tables,
 * code, emphasis, links made absolute, images, escaping, the switches,
 * and template text left out. */
#include "wn_test.h"

#include <stdlib.h>

#include <winnow/winnow.h>

#include "detect/detect.h"
#include "detect/detect_int.h"

/* Renders the whole <body> of html as the selection, every text kept but
 * those equal to left_out (NULL: none), from a page parsed with or
 * without libxml2's tree. */
static char *render_page(const char *html, const char *left_out, const wn_render_options *opts,
                         int keep_xml) {
  wn_dom_page *page = NULL;
  wn_dom_options popts = {.keep_xml = keep_xml};
  wn_diag diag = {{0}};
  assert_int_equal(wn_dom_parse(html, strlen(html), &popts, &page, &diag), WN_OK);
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
  wn_err err = wn_detect_render_markdown(page, res, opts, &buf, &diag);
  if (err)
    fail_msg("render: %s", wn_diag_message(&diag, err));
  wn_detect_result_free(res);
  wn_dom_free(page);
  char *text = wn_buf_take(&buf, NULL);
  return text ? text : calloc(1, 1);
}

/* Markdown reads the compact tree only (its kept attributes): the page
 * built from SAX events renders byte for byte what the page that keeps
 * libxml2's tree renders. */
static char *render(const char *html, const char *left_out, const wn_render_options *opts) {
  char *sax = render_page(html, left_out, opts, 0);
  char *xml = render_page(html, left_out, opts, 1);
  if (strcmp(sax, xml) != 0)
    fail_msg("SAX page:\n%s\n--- keep_xml page:\n%s", sax, xml);
  free(xml);
  return sax;
}

/* Compares line by line, naming the first line that differs. */
static void check_lines(const char *what, const char *got, const char *want) {
  size_t line = 1;
  const char *g = got, *w = want;
  while (*g || *w) {
    const char *ge = strchr(g, '\n'), *we = strchr(w, '\n');
    size_t gl = ge ? (size_t)(ge - g) : strlen(g), wl = we ? (size_t)(we - w) : strlen(w);
    if (gl != wl || memcmp(g, w, gl) != 0)
      fail_msg("%s: line %zu\n  want [%.*s]\n  got  [%.*s]\n--- whole output:\n%s", what, line,
               (int)wl, w, (int)gl, g, got);
    g += gl + (ge ? 1 : 0);
    w += wl + (we ? 1 : 0);
    line++;
  }
}

static void check(const char *html, const char *left_out, const wn_render_options *opts,
                  const char *want) {
  char *got = render(html, left_out, opts);
  check_lines(html, got, want);
  free(got);
}

static void test_blocks(void **state) {
  (void)state;
  check("<h1>Title</h1><p>One <em>two</em> <strong>three</strong>.</p><h3>Sub</h3><p>End</p>",
        NULL, NULL, "# Title\n\nOne *two* **three**.\n\n### Sub\n\nEnd\n");
  /* Emphasis markers go inside the white space, not around it. */
  check("<p>a<b> bold </b>c</p>", NULL, NULL, "a **bold** c\n");
  check("<blockquote><p>Quoted</p><p>Two</p></blockquote><p>After</p>", NULL, NULL,
        "> Quoted\n>\n> Two\n\nAfter\n");
  check("<p>Line one<br>line two</p><hr><p>x</p>", NULL, NULL,
        "Line one\\\nline two\n\n* * *\n\nx\n");
}

static void test_nested_lists(void **state) {
  (void)state;
  check("<ul><li>one</li><li>two<ul><li>two a</li><li>two b<ol start=\"9\"><li>nine</li>"
        "<li>ten</li></ol></li></ul></li><li>three</li></ul><p>after</p>",
        NULL, NULL,
        "- one\n"
        "- two\n"
        "  - two a\n"
        "  - two b\n"
        "    9. nine\n"
        "    10. ten\n"
        "- three\n"
        "\n"
        "after\n");
  /* A paragraph and a quote inside an item stay under its indentation. */
  check("<ol><li><p>first</p><blockquote>said</blockquote></li><li>second</li></ol>", NULL, NULL,
        "1. first\n"
        "\n"
        "   > said\n"
        "\n"
        "2. second\n");
}

static void test_table(void **state) {
  (void)state;
  check("<table><tr><th>Name</th><th>Qty</th></tr>"
        "<tr><td>a|b</td><td>1</td></tr>"
        "<tr><td colspan=\"2\">both <b>columns</b></td></tr>"
        "<tr><td>short</td></tr></table>",
        NULL, NULL,
        "| Name | Qty |\n"
        "| --- | --- |\n"
        "| a\\|b | 1 |\n"
        "| both **columns** |  |\n"
        "| short |  |\n");
  /* A layout table (one column, or tables inside) is blocks. */
  check("<table><tr><td>alone</td></tr><tr><td>again</td></tr></table>", NULL, NULL,
        "alone\n\nagain\n");
  wn_render_options no_tables = {.links = 1, .images = 1, .tables = 0};
  check("<p>before</p><table><tr><td>a</td><td>b</td></tr></table><p>after</p>", NULL,
        &no_tables, "before\n\nafter\n");
}

static void test_code(void **state) {
  (void)state;
  check("<p>Call <code>f(a_b)</code> now</p>"
        "<pre class=\"language-c\"><code>int x;\n\nif (x) {\n  y();\n}\n</code></pre>",
        NULL, NULL,
        "Call `f(a_b)` now\n"
        "\n"
        "```c\n"
        "int x;\n"
        "\n"
        "if (x) {\n"
        "  y();\n"
        "}\n"
        "```\n");
  /* Backticks in the code lengthen the fence (CommonMark 4.5, 6.1). */
  check("<p><code>a`b</code></p><pre>```\nx\n```</pre>", NULL, NULL,
        "``a`b``\n\n````\n```\nx\n```\n````\n");
  /* Highlighted code: spans inside pre, line breaks between them. */
  check("<pre><code class=\"lang-sh\"><span>ls</span>\n<span>pwd</span></code></pre>", NULL, NULL,
        "```sh\nls\npwd\n```\n");
}

static void test_escaping(void **state) {
  (void)state;
  check("<p># not a heading</p><p>1. not a list</p><p>- no bullet</p><p>+ no</p>"
        "<p>&gt; no quote</p>",
        NULL, NULL,
        "\\# not a heading\n\n1\\. not a list\n\n\\- no bullet\n\n\\+ no\n\n\\> no quote\n");
  check("<p>a *star* [link] `tick` \\ snake_case _under_ &amp;copy; &lt;b&gt; ~~s~~</p>", NULL,
        NULL, "a \\*star\\* \\[link\\] \\`tick\\` \\\\ snake_case \\_under\\_ \\&copy; \\<b> "
              "\\~~s\\~~\n");
}

static void test_links_and_images(void **state) {
  (void)state;
  wn_render_options base = {
      .base_url = "https://www.example.com/dir/page.html", .links = 1, .images = 1, .tables = 1};
  check("<p>See <a href=\"other.html\">this</a>, <a href=\"/root\">that</a>, "
        "<a href=\"#frag\">here</a>, <a href=\"https://x.org/a b\">there</a> and "
        "<a href=\"javascript:void(0)\">not</a>.</p>"
        "<p><img src=\"../i/p.png\" alt=\"A [nice] photo\"> <img data-src=\"lazy.jpg\" "
        "src=\"data:image/gif;base64,R0\" alt=\"\"></p>",
        NULL, &base,
        "See [this](https://www.example.com/dir/other.html), "
        "[that](https://www.example.com/root), "
        "[here](https://www.example.com/dir/page.html#frag), "
        "[there](https://x.org/a%20b) and not.\n"
        "\n"
        "![A \\[nice\\] photo](https://www.example.com/i/p.png) "
        "![](https://www.example.com/dir/lazy.jpg)\n");
  /* A responsive image with its sources in srcset only: the first. */
  check("<p><img srcset=\"/w/a-320.jpg 320w, /w/a-640.jpg 640w\" alt=\"Harbour\"></p>", NULL,
        &base, "![Harbour](https://www.example.com/w/a-320.jpg)\n");
  /* A link around blocks (a card) stays on one line: Markdown links
   * cannot span lines; a heading's marker goes before the link. */
  check("<p>x</p><a href=\"/s\"><h3>Card title</h3><p>Its summary</p></a><p>y</p>", NULL, NULL,
        "x\n\n### [Card title Its summary](/s)\n\ny\n");
  check("<a href=\"/t\"><div>one</div><div>two</div></a>", NULL, NULL, "[one two](/t)\n");
  /* Without a base, links stay as written. */
  check("<p><a href=\"rel.html\">r</a></p>", NULL, NULL, "[r](rel.html)\n");
  wn_render_options none = {.base_url = NULL, .links = 0, .images = 0, .tables = 1};
  check("<p>See <a href=\"x\">this</a> <img src=\"y.png\" alt=\"y\">now</p>", NULL, &none,
        "See this now\n");
}

static void test_template_left_out(void **state) {
  (void)state;
  /* The header's text is template: it, its link and its logo go; the
   * image in the article stays (text around it is kept). */
  check("<div id=h><img src=logo.png alt=Logo><a href=/>Home</a></div>"
        "<div id=a><h2>News</h2><p><img src=p.png alt=P>Story <a href=/more>more</a></p></div>",
        "Home", NULL, "## News\n\n![P](p.png)Story [more](/more)\n");
  /* A heading, item or link whose text is all template leaves no marker. */
  check("<h1>Home</h1><ul><li>Home</li><li>kept</li></ul><p><a href=/x>Home</a> tail</p>",
        "Home", NULL, "- kept\n\ntail\n");
}

static void test_fixture_page(void **state) {
  (void)state;
  /* The whole hand-made article, by the public API: the header and
   * footer are the single-page method's to drop; the front matter from
   * the head. */
  size_t len = 0;
  char *html = wn_test_read(WN_FIXTURES "/markdown/article.html", &len);
  size_t want_len = 0;
  char *want = wn_test_read(WN_FIXTURES "/markdown/article.md", &want_len);
  wn_detector *d = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_detector_create(NULL, NULL, &d, &diag), WN_OK);
  wn_page_input in = {.bytes = html, .len = len,
                      .url = "https://garden.example/guides/rain-garden.html"};
  wn_page_result *r = NULL;
  assert_int_equal(wn_detector_detect(d, &in, WN_WANT_MARKDOWN | WN_WANT_FRONT_MATTER, &r, &diag),
                   WN_OK);
  check_lines("article.html", wn_page_result_markdown(r, NULL), want);
  assert_non_null(wn_page_result_metadata(r));
  wn_page_result_free(r);
  /* HTML output: the same links absolute. */
  assert_int_equal(wn_detector_detect(d, &in, WN_WANT_HTML, &r, &diag), WN_OK);
  const char *out = wn_page_result_html(r, NULL);
  assert_non_null(strstr(out, "href=\"https://garden.example/faq.html#soil\""));
  assert_non_null(strstr(out, "src=\"https://garden.example/guides/img/garden.jpg\""));
  assert_null(wn_page_result_metadata(r));
  wn_page_result_free(r);
  /* Without a URL they stay as written. */
  in.url = NULL;
  assert_int_equal(wn_detector_detect(d, &in, WN_WANT_HTML | WN_WANT_MARKDOWN, &r, &diag), WN_OK);
  assert_non_null(strstr(wn_page_result_html(r, NULL), "href=\"../faq.html#soil\""));
  assert_non_null(strstr(wn_page_result_markdown(r, NULL), "[soil FAQ](../faq.html#soil)"));
  wn_page_result_free(r);
  wn_detector_destroy(d);
  free(html);
  free(want);
}

static void test_empty(void **state) {
  (void)state;
  check("", NULL, NULL, "");
  check("<p>   </p><img>", NULL, NULL, "");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_blocks),         cmocka_unit_test(test_nested_lists),
      cmocka_unit_test(test_table),          cmocka_unit_test(test_code),
      cmocka_unit_test(test_escaping),       cmocka_unit_test(test_links_and_images),
      cmocka_unit_test(test_template_left_out), cmocka_unit_test(test_fixture_page),
      cmocka_unit_test(test_empty),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
