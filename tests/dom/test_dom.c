/* tests/dom/test_dom.c: the compact tree built from real HTML. */
#include "wn_test.h"

#include <stdlib.h>

static void test_tree_shape(void **state) {
  (void)state;
  wn_dom_page *page = wn_test_parse(
      "<!DOCTYPE html><html><head><title>T</title><style>p{}</style></head>"
      "<body><div id=\"a\"><p>One  two\n three</p><p>x <a href=\"/y\">link</a></p></div>"
      "<script>var x = 1;</script><!-- a comment --><noscript>no</noscript>"
      "<div id=\"b\"><p>z</p></div></body></html>");
  uint32_t count = 0;
  const wn_dom_node *n = wn_dom_nodes(page, &count);
  /* html body div#a p "One two three" p "x" a "link" div#b p "z" */
  assert_int_equal(count, 12);
  assert_string_equal(n[0].name, "html");
  assert_int_equal(wn_dom_body(page), 1);
  assert_int_equal(n[2].tag, WN_TAG_DIV);
  assert_string_equal(n[2].id, "a");
  assert_string_equal(n[4].text, "One two three");
  assert_int_equal(n[4].own_text_len, 13);
  assert_int_equal(n[2].end, 9);
  assert_int_equal(n[1].end, 12);
  assert_int_equal(n[2].n_children, 2);
  assert_int_equal(n[3].next_sibling, 5);
  assert_int_equal(n[8].flags & WN_DOM_IN_LINK, WN_DOM_IN_LINK);
  assert_int_equal(n[6].flags & WN_DOM_IN_LINK, 0);
  assert_int_equal(n[2].text_len, 13 + 1 + 4);
  assert_int_equal(n[2].link_text_len, 4);
  assert_int_equal(n[9].depth, 2);
  for (uint32_t i = 0; i < count; i++) {
    assert_string_not_equal(n[i].name, "script");
    assert_string_not_equal(n[i].name, "style");
    assert_string_not_equal(n[i].name, "noscript");
    assert_string_not_equal(n[i].name, "title");
  }
  wn_dom_free(page);
}

/* An <object>'s fallback content is what a browser without the plugin
 * shows, which today is every browser for Flash: a video's caption is
 * text the reader sees. */
static void test_object_fallback(void **state) {
  (void)state;
  wn_dom_page *page = wn_test_parse(
      "<body><object data=\"v.swf\"><param name=\"movie\" value=\"v.swf\">"
      "<div class=\"caption\"><p>The mayor opens the bridge.</p></div>"
      "</object></body>");
  uint32_t t = wn_test_find(page, "#text", "The mayor opens the bridge.");
  assert_int_not_equal(t, WN_DOM_NONE);
  wn_dom_free(page);
  /* <embed> is a void element, but libxml2 (2.9) nests what follows it
   * inside it: that is the page's content, not the embed's. */
  page = wn_test_parse("<body><object data=\"v.swf\"><embed src=\"v.swf\">"
                       "<p>The mayor opens the bridge.</p></object>"
                       "<p>Traffic returns on Monday.</p></body>");
  assert_int_not_equal(wn_test_find(page, "#text", "The mayor opens the bridge."), WN_DOM_NONE);
  assert_int_not_equal(wn_test_find(page, "#text", "Traffic returns on Monday."), WN_DOM_NONE);
  wn_dom_free(page);
}

static void test_signatures(void **state) {
  (void)state;
  wn_dom_page *a = wn_test_parse("<div id=\"story-123\" class=\"c2\">A 1999</div>"
                                 "<div id=\"http://x.org/p?q=1\">B</div><div class=\"other\">C</div>");
  wn_dom_page *b = wn_test_parse("<div id=\"story-98765\" class=\"c7\">A 2004</div>"
                                 "<div id=\"http://x.org/z?q=2\">B</div><div class=\"else\">C</div>");
  const wn_dom_node *na = wn_dom_nodes(a, NULL);
  const wn_dom_node *nb = wn_dom_nodes(b, NULL);
  uint32_t da = wn_test_find(a, "div", "story-123"), db = wn_test_find(b, "div", "story-98765");
  /* Digit runs fold: the ids, classes and texts above are equal. */
  assert_true(na[da].sig == nb[db].sig);
  assert_true(na[da + 1].sig == nb[db + 1].sig);
  /* URL-like ids count by shape only. */
  assert_true(na[da + 2].sig == nb[db + 2].sig);
  /* Different classes differ. */
  assert_true(na[da + 4].sig != nb[db + 4].sig);
  /* An element never equals a text node with the same letters. */
  assert_true(na[da].sig != na[da + 1].sig);
  wn_dom_free(a);
  wn_dom_free(b);
}

static void test_broken_markup(void **state) {
  (void)state;
  wn_dom_page *page =
      wn_test_parse("<html><body><div><p>unclosed <b>bold<p>second</div></td></span>"
                    "<table><tr><td>cell</table><p>after &amp; &eacute;");
  uint32_t count = 0;
  const wn_dom_node *n = wn_dom_nodes(page, &count);
  assert_true(count > 5);
  int saw_after = 0;
  for (uint32_t i = 0; i < count; i++) {
    if (n[i].tag == WN_TAG_TEXT && strcmp(n[i].text, "after & \xc3\xa9") == 0)
      saw_after = 1;
    assert_true(n[i].end <= count && n[i].end > i);
  }
  assert_true(saw_after);
  wn_dom_free(page);
}

static void test_empty_page(void **state) {
  (void)state;
  const char *inputs[] = {"", "   \n\t", "<!-- only a comment -->", "<script>x()</script>"};
  for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; k++) {
    wn_dom_page *page = wn_test_parse(inputs[k]);
    uint32_t count = 0;
    const wn_dom_node *n = wn_dom_nodes(page, &count);
    assert_true(count >= 2);
    assert_int_equal(n[0].tag, WN_TAG_HTML);
    assert_int_not_equal(wn_dom_body(page), WN_DOM_NONE);
    assert_int_equal(n[0].text_len, 0);
    wn_dom_free(page);
  }
}

static void test_caps(void **state) {
  (void)state;
  wn_dom_page *page = NULL;
  wn_diag diag = {{0}};
  /* Bytes. */
  const char *small = "<p>0123456789</p>";
  wn_dom_options opts = {.max_bytes = 8};
  assert_int_equal(wn_dom_parse(small, strlen(small), &opts, &page, &diag), WN_ETOOBIG);
  assert_null(page);
  assert_non_null(strstr(diag.msg, "cap"));
  /* Nodes: 2000 paragraphs past a cap of 1000 nodes. */
  wn_buf buf;
  wn_buf_init(&buf, 0);
  for (int i = 0; i < 2000; i++)
    assert_int_equal(wn_buf_append_str(&buf, "<p>x</p>"), WN_OK);
  wn_dom_options nodes_cap = {.max_nodes = 1000};
  wn_diag_clear(&diag);
  assert_int_equal(wn_dom_parse(buf.data, buf.len, &nodes_cap, &page, &diag), WN_ETOOMANY);
  assert_null(page);
  assert_non_null(strstr(diag.msg, "1000"));
  /* Depth: 5000 nested divs past the default depth cap; no recursion of
   * ours may overflow on the way. */
  wn_buf_reset(&buf);
  for (int i = 0; i < 5000; i++)
    assert_int_equal(wn_buf_append_str(&buf, "<div>"), WN_OK);
  assert_int_equal(wn_buf_append_str(&buf, "deep"), WN_OK);
  wn_diag_clear(&diag);
  wn_err err = wn_dom_parse(buf.data, buf.len, NULL, &page, &diag);
  if (err == WN_OK) {
    /* libxml2 may itself stop nesting; then the tree must respect the cap. */
    uint32_t count = 0;
    const wn_dom_node *n = wn_dom_nodes(page, &count);
    for (uint32_t i = 0; i < count; i++)
      assert_true(n[i].depth <= WN_DOM_DEFAULT_MAX_DEPTH);
    wn_dom_free(page);
  } else {
    assert_int_equal(err, WN_ETOODEEP);
    assert_null(page);
  }
  wn_buf_free(&buf);
}

static void test_node_path(void **state) {
  (void)state;
  wn_dom_page *page =
      wn_test_parse("<body><div>a</div><div><p>b</p><span>c</span><p id=\"t\">d</p></div></body>");
  uint32_t p = wn_test_find(page, "p", "t");
  wn_buf buf;
  wn_buf_init(&buf, 0);
  assert_int_equal(wn_dom_node_path(page, p, &buf), WN_OK);
  assert_string_equal(buf.data, "/html[1]/body[1]/div[2]/p[2]");
  wn_buf_reset(&buf);
  assert_int_equal(wn_dom_node_path(page, p + 1, &buf), WN_OK);
  assert_string_equal(buf.data, "/html[1]/body[1]/div[2]/p[2]/text()[1]");
  wn_buf_free(&buf);
  wn_dom_free(page);
}

static void test_keep_xml(void **state) {
  (void)state;
  const char *html = "<body><p>hello</p></body>";
  wn_dom_page *page = NULL;
  wn_dom_options opts = {.keep_xml = 1};
  assert_int_equal(wn_dom_parse(html, strlen(html), &opts, &page, NULL), WN_OK);
  assert_non_null(wn_dom_xml_doc(page));
  const wn_dom_node *n = wn_dom_nodes(page, NULL);
  assert_non_null(n[wn_test_find(page, "p", NULL)].xml);
  wn_dom_free(page);
  page = wn_test_parse(html);
  assert_null(wn_dom_xml_doc(page));
  wn_dom_free(page);
}

static void test_meta_charset_respected(void **state) {
  (void)state;
  /* windows-1252 bytes declared in meta: the tree holds UTF-8. */
  const char html[] = "<html><head><meta charset=\"windows-1252\"></head>"
                      "<body><p>caf\xe9 \x93quoted\x94</p></body></html>";
  wn_dom_page *page = NULL;
  assert_int_equal(wn_dom_parse(html, sizeof html - 1, NULL, &page, NULL), WN_OK);
  const wn_dom_node *n = wn_dom_nodes(page, NULL);
  uint32_t p = wn_test_find(page, "p", NULL);
  assert_string_equal(n[p + 1].text, "caf\xc3\xa9 \xe2\x80\x9cquoted\xe2\x80\x9d");
  assert_string_equal(wn_dom_charset(page), "windows-1252");
  assert_int_equal(wn_dom_charset_source(page), WN_CHARSET_META);
  wn_dom_free(page);
}

/* Text output needs to know where the source had white space around a
 * text node and what pre holds as written; the collapsed text every
 * algorithm reads stays as it was. */
static void test_space_and_pre_flags(void **state) {
  (void)state;
  wn_dom_page *page = wn_test_parse(
      "<body><p><b>un</b>believable</p><p><b>one</b> <i>two</i><b> three </b>four</p>"
      "<pre>\n  int x;\n  <span>return</span>\n\n<span>x;</span>  </pre></body>");
  uint32_t count = 0;
  const wn_dom_node *n = wn_dom_nodes(page, &count);
  uint32_t un = wn_test_find(page, "#text", "un");
  uint32_t bel = wn_test_find(page, "#text", "believable");
  assert_int_equal(n[un].flags & (WN_DOM_SPACE_BEFORE | WN_DOM_SPACE_AFTER), 0);
  assert_int_equal(n[bel].flags & (WN_DOM_SPACE_BEFORE | WN_DOM_SPACE_AFTER), 0);
  uint32_t one = wn_test_find(page, "#text", "one");
  uint32_t two = wn_test_find(page, "#text", "two");
  uint32_t three = wn_test_find(page, "#text", "three");
  uint32_t four = wn_test_find(page, "#text", "four");
  assert_int_equal(n[one].flags & WN_DOM_SPACE_AFTER, WN_DOM_SPACE_AFTER);
  assert_int_equal(n[two].flags & WN_DOM_SPACE_BEFORE, WN_DOM_SPACE_BEFORE);
  assert_int_equal(n[three].flags & (WN_DOM_SPACE_BEFORE | WN_DOM_SPACE_AFTER),
                   WN_DOM_SPACE_BEFORE | WN_DOM_SPACE_AFTER);
  assert_int_equal(n[three].own_text_len, 5); /* collapsed and trimmed as before */
  assert_int_equal(n[four].flags & WN_DOM_SPACE_BEFORE, 0);
  assert_string_equal(wn_dom_raw_text(&n[four]), "four");
  /* Inside pre: collapsed text as everywhere, the raw text beside it; the
   * white-space-only text between the spans goes in front of the next. */
  uint32_t intx = wn_test_find(page, "#text", "int x;");
  assert_int_equal(n[intx].flags & WN_DOM_IN_PRE, WN_DOM_IN_PRE);
  assert_int_equal(n[intx].own_text_len, 6);
  assert_string_equal(wn_dom_raw_text(&n[intx]), "\n  int x;\n  ");
  uint32_t ret = wn_test_find(page, "#text", "return");
  assert_string_equal(wn_dom_raw_text(&n[ret]), "return");
  uint32_t x = wn_test_find(page, "#text", "x;");
  assert_int_equal(n[x].flags & WN_DOM_IN_PRE, WN_DOM_IN_PRE);
  assert_string_equal(wn_dom_raw_text(&n[x]), "\n\nx;");
  for (uint32_t i = 0; i < count; i++)
    if (n[i].tag == WN_TAG_TEXT && !(n[i].flags & WN_DOM_IN_PRE))
      assert_ptr_equal(wn_dom_raw_text(&n[i]), n[i].text);
  wn_dom_free(page);
}

/* Soft hyphens are hints where a line may break: the tree's text has none,
 * a node of soft hyphens only is no text and no space between its
 * neighbours, and white space around them is still white space. */
static void test_soft_hyphens(void **state) {
  (void)state;
  wn_dom_page *page = wn_test_parse("<body><p>Mit&shy;tel&shy;al\xc2\xadter</p>"
                                    "<p><b>Aus</b><i>&shy;</i>gabe</p><p><b>one</b> &shy; two</p>"
                                    "</body>");
  uint32_t count = 0;
  const wn_dom_node *n = wn_dom_nodes(page, &count);
  uint32_t w = wn_test_find(page, "#text", "Mittelalter");
  assert_int_equal(n[w].own_text_len, 11);
  uint32_t aus = wn_test_find(page, "#text", "Aus");
  uint32_t gabe = wn_test_find(page, "#text", "gabe");
  assert_int_equal(n[aus].flags & WN_DOM_SPACE_AFTER, 0);
  assert_int_equal(n[gabe].flags & WN_DOM_SPACE_BEFORE, 0);
  uint32_t two = wn_test_find(page, "#text", "two");
  assert_int_equal(n[two].flags & WN_DOM_SPACE_BEFORE, WN_DOM_SPACE_BEFORE);
  for (uint32_t i = 0; i < count; i++)
    if (n[i].tag == WN_TAG_TEXT && strstr(n[i].text, "\xc2\xad"))
      fail_msg("soft hyphen kept in [%s]", n[i].text);
  wn_dom_free(page);
}

/* The tree's text is in NFC: a letter and its combining accent become
 * the precomposed letter, a character excluded from composition (Bengali
 * U+09DF) its canonical pair, conjoining Hangul jamo their syllable, and
 * text written either way has one
 * signature. Text already in NFC (Polish, Cyrillic, Chinese) is as it
 * was, in either tree builder. */
static void test_nfc(void **state) {
  (void)state;
  static const char *const in[][2] = {
      {"Cafe\xcc\x81 cre\xcc\x80me", "Caf\xc3\xa9 cr\xc3\xa8me"},
      {"\xe0\xa7\x9f", "\xe0\xa6\xaf\xe0\xa6\xbc"},
      {"\xe1\x84\x92\xe1\x85\xa1\xe1\x86\xab", "\xed\x95\x9c"}, /* jamo: U+D55C */
      {"Za\xc5\xbc\xc3\xb3\xc5\x82\xc4\x87 \xd0\xb9\xd0\xbe\xd0\xb4 \xe4\xb8\xad\xe6\x96\x87",
       "Za\xc5\xbc\xc3\xb3\xc5\x82\xc4\x87 \xd0\xb9\xd0\xbe\xd0\xb4 \xe4\xb8\xad\xe6\x96\x87"},
  };
  for (int keep_xml = 0; keep_xml <= 1; keep_xml++)
    for (size_t k = 0; k < sizeof in / sizeof *in; k++) {
      char html[256];
      snprintf(html, sizeof html, "<body><p>%s</p><p>%s</p></body>", in[k][0], in[k][1]);
      wn_dom_options opts = {.keep_xml = keep_xml};
      wn_dom_page *page = NULL;
      wn_diag diag = {{0}};
      assert_int_equal(wn_dom_parse(html, strlen(html), &opts, &page, &diag), WN_OK);
      uint32_t count = 0;
      const wn_dom_node *n = wn_dom_nodes(page, &count);
      uint32_t t[2], found = 0;
      for (uint32_t i = 0; i < count && found < 2; i++)
        if (n[i].tag == WN_TAG_TEXT)
          t[found++] = i;
      assert_int_equal(found, 2);
      for (int j = 0; j < 2; j++) {
        assert_string_equal(n[t[j]].text, in[k][1]);
        assert_int_equal(n[t[j]].own_text_len, strlen(in[k][1]));
      }
      assert_true(n[t[0]].sig == n[t[1]].sig);
      wn_dom_free(page);
    }
}

/* A noscript is left out, but one whose unclosed <div> keeps it open to
 * the end of the body (libxml2 reads its content as markup) holds the
 * whole page, and a shell whose noscript holds the page's text, are read
 * with noscript as content. */
static void test_noscript(void **state) {
  (void)state;
  wn_dom_page *page = wn_test_parse("<body><noscript><p>Turn on JavaScript</p></noscript>"
                                    "<p>The story.</p></body>");
  wn_test_find(page, "#text", "The story.");
  uint32_t count = 0;
  const wn_dom_node *n = wn_dom_nodes(page, &count);
  for (uint32_t i = 0; i < count; i++)
    if (n[i].tag == WN_TAG_TEXT && strstr(n[i].text, "JavaScript"))
      fail_msg("noscript text kept");
  wn_dom_free(page);
  const char *swallowed = "<html><body><NOSCRIPT><div id=\"nojs\"></noscript><div id=\"page\">"
                          "<h1>Bears</h1><p>A record year for the bears of the park.</p></div>"
                          "<script>var x = 1;</script></body></html>";
  for (int keep_xml = 0; keep_xml <= 1; keep_xml++) {
    wn_dom_options opts = {.keep_xml = keep_xml};
    wn_dom_page *p = NULL;
    wn_diag diag = {{0}};
    assert_int_equal(wn_dom_parse(swallowed, strlen(swallowed), &opts, &p, &diag), WN_OK);
    wn_test_find(p, "#text", "A record year for the bears of the park.");
    wn_dom_free(p);
  }
  /* The same left open after a line of text ("Skip to content"): the
   * noscript's own bytes are few, but the tree outside it holds next to
   * nothing for a page of this size, so the page is read again. */
  {
    wn_buf h;
    wn_buf_init(&h, 1 << 20);
    assert_int_equal(wn_buf_append_str(&h, "<html><body><div id=\"skip\"><a href=\"#c\">Skip to "
                                           "content</a></div><noscript><div id=\"left\">"
                                           "</noscript><div id=\"c\">"),
                     WN_OK);
    for (int k = 0; k < 40; k++)
      assert_int_equal(wn_buf_printf(&h, "<p>Paragraph %d of the week's news: the union's "
                                         "branch met on Thursday and voted to strike on the "
                                         "first Monday of next month.</p>",
                                     k),
                       WN_OK);
    assert_int_equal(wn_buf_append_str(&h, "</div></body></html>"), WN_OK);
    wn_dom_page *p = NULL;
    wn_diag diag = {{0}};
    assert_int_equal(wn_dom_parse(h.data, h.len, NULL, &p, &diag), WN_OK);
    wn_test_find(p, "#text", "Paragraph 39 of the week's news: the union's branch met on "
                             "Thursday and voted to strike on the first Monday of next month.");
    wn_dom_free(p);
    wn_buf_free(&h);
  }
  /* A forum drawn by scripts: the page outside noscript is its name and
   * "Loading"; the thread is in noscript, for readers without scripts. */
  static const char post[] = "<div class=\"post\"><span class=\"author\">ann</span><p>The lens "
                              "is fine for a first look at the moon and the planets.</p></div>";
  char shell[4096] = "<html><body><header>Forum</header><p>Loading</p>"
                     "<noscript><div id=\"main-outlet\">";
  for (int k = 0; k < 6; k++)
    strcat(shell, post);
  strcat(shell, "</div></noscript></body></html>");
  wn_dom_page *p = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_dom_parse(shell, strlen(shell), NULL, &p, &diag), WN_OK);
  wn_test_find(p, "#text", "The lens is fine for a first look at the moon and the planets.");
  wn_test_find(p, "#text", "Loading");
  wn_dom_free(p);
}

/* Element of name whose kept attribute attr is value. */
static uint32_t find_attr(const wn_dom_page *page, const char *name, const char *attr,
                          const char *value) {
  uint32_t count = 0;
  const wn_dom_node *n = wn_dom_nodes(page, &count);
  for (uint32_t i = 0; i < count; i++) {
    const char *v = wn_dom_attr(page, &n[i], attr);
    if (strcmp(n[i].name, name) == 0 && v && strcmp(v, value) == 0)
      return i;
  }
  fail_msg("no <%s %s=\"%s\">", name, attr, value);
  return WN_DOM_NONE;
}

/* What Markdown and the metadata read without libxml2's tree: the kept
 * attributes, the white space before an image, and the side table of
 * head elements, in document order, with its rules (the first <base> of
 * the head, titles and headings up to the first with visible text, one
 * of a kind at a time, elements in skipped subtrees read too). */
static void test_kept_attributes_and_meta(void **state) {
  (void)state;
  wn_dom_page *page = wn_test_parse(
      "<!DOCTYPE html><html lang=\"de\"><head><title> </title><title>Real</title>"
      "<base href=\"/b/\"><base href=\"/ignored/\"><meta name=\"author\" content=\"A\">"
      "<link rel=\"alternate canonical\" href=\"/c\">"
      "<script type=\"Application/LD+JSON\">{\"headline\": \"H\"}</script>"
      "<script>var notld = 1;</script>"
      "<noscript><meta property=\"og:title\" content=\"N\"></noscript></head>"
      "<body><h1> </h1><h1>Head <script>x</script>line</h1><h1>Later</h1>"
      "<p>text <!-- c --><img src=\"a.png\" alt=\"x\"> and <img data-src=\"b.png\" alt>"
      "<a href=\"/l\" title=\"t\">l</a><a name=\"n\">m</a></p>"
      "<ol start=\"3\"><li>x</ol><table><tr><td colspan=\"2\" rowspan=\"1\">c</td></tr>"
      "</table><time datetime=\"2020-01-02\" pubdate>t</time>"
      "<div role=\"navigation\" title=\"t\">n</div><div itemprop=\"articleBody\">b</div>"
      "<a href=\"/r\" role=\"button\">r</a></body></html>");
  uint32_t count = 0;
  const wn_dom_node *n = wn_dom_nodes(page, &count);
  uint32_t a = find_attr(page, "img", "src", "a.png");
  assert_string_equal(wn_dom_attr(page, &n[a], "alt"), "x");
  assert_null(wn_dom_attr(page, &n[a], "data-src"));
  assert_int_equal(n[a].flags & WN_DOM_WS_BEFORE, 0); /* a comment lies between */
  uint32_t b = find_attr(page, "img", "data-src", "b.png");
  assert_string_equal(wn_dom_attr(page, &n[b], "alt"), ""); /* no value: "" */
  assert_int_equal(n[b].flags & WN_DOM_WS_BEFORE, WN_DOM_WS_BEFORE);
  uint32_t l = find_attr(page, "a", "href", "/l");
  assert_null(wn_dom_attr(page, &n[l], "title")); /* not one Markdown reads */
  assert_int_equal(n[l + 2].tag, WN_TAG_A);
  assert_null(wn_dom_attr(page, &n[l + 2], "href"));
  assert_int_not_equal(find_attr(page, "ol", "start", "3"), WN_DOM_NONE);
  uint32_t td = find_attr(page, "td", "colspan", "2");
  assert_string_equal(wn_dom_attr(page, &n[td], "rowspan"), "1");
  /* role and itemprop on every element (the single-page methods' cues) */
  uint32_t nav = find_attr(page, "div", "role", "navigation");
  assert_null(wn_dom_attr(page, &n[nav], "title"));
  assert_null(wn_dom_attr(page, &n[nav], "itemprop"));
  assert_int_not_equal(find_attr(page, "div", "itemprop", "articleBody"), WN_DOM_NONE);
  uint32_t r = find_attr(page, "a", "role", "button");
  assert_string_equal(wn_dom_attr(page, &n[r], "href"), "/r");

  assert_string_equal(wn_dom_lang(page), "de");
  uint32_t k = 0;
  const wn_dom_meta *m = wn_dom_meta_items(page, &k);
  static const uint8_t kinds[] = {WN_DOM_META_TITLE, WN_DOM_META_TITLE, WN_DOM_META_BASE,
                                  WN_DOM_META_TAG,   WN_DOM_META_LINK,  WN_DOM_META_JSONLD,
                                  WN_DOM_META_TAG,   WN_DOM_META_H1,    WN_DOM_META_H1,
                                  WN_DOM_META_TIME};
  assert_int_equal(k, sizeof kinds);
  for (uint32_t i = 0; i < k; i++)
    assert_int_equal(m[i].kind, kinds[i]);
  assert_string_equal(m[0].text, " ");
  assert_string_equal(m[1].text, "Real");
  assert_string_equal(m[2].href, "/b/");
  assert_string_equal(m[3].name, "author");
  assert_string_equal(m[3].content, "A");
  assert_null(m[3].property);
  assert_string_equal(m[4].rel, "alternate canonical");
  assert_string_equal(m[4].href, "/c");
  assert_string_equal(m[5].text, "{\"headline\": \"H\"}");
  assert_string_equal(m[6].property, "og:title");
  assert_string_equal(m[7].text, " ");
  assert_string_equal(m[8].text, "Head xline"); /* all text below it, as libxml2 gives it */
  assert_string_equal(m[9].datetime, "2020-01-02");
  assert_string_equal(m[9].pubdate, "");
  wn_dom_free(page);

  /* A JSON-LD script past its cap is marked and not kept. */
  wn_buf big;
  wn_buf_init(&big, 0);
  assert_int_equal(wn_buf_append_str(&big, "<html><head><script type=application/ld+json>"),
                   WN_OK);
  for (size_t i = 0; i <= WN_DOM_MAX_JSONLD / 8; i++)
    assert_int_equal(wn_buf_append_str(&big, "[1,2,3]\n"), WN_OK);
  assert_int_equal(wn_buf_append_str(&big, "</script></head><body>x</body></html>"), WN_OK);
  wn_diag diag = {{0}};
  assert_int_equal(wn_dom_parse(big.data, big.len, NULL, &page, &diag), WN_OK);
  m = wn_dom_meta_items(page, &k);
  assert_int_equal(k, 1);
  assert_int_equal(m[0].kind, WN_DOM_META_JSONLD);
  assert_int_equal(m[0].cut, 1);
  assert_null(m[0].text);
  wn_dom_free(page);
  wn_buf_free(&big);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tree_shape),   cmocka_unit_test(test_signatures),
      cmocka_unit_test(test_object_fallback),
      cmocka_unit_test(test_broken_markup), cmocka_unit_test(test_empty_page),
      cmocka_unit_test(test_caps),          cmocka_unit_test(test_node_path),
      cmocka_unit_test(test_keep_xml),      cmocka_unit_test(test_meta_charset_respected),
      cmocka_unit_test(test_space_and_pre_flags),
      cmocka_unit_test(test_soft_hyphens),
      cmocka_unit_test(test_nfc),
      cmocka_unit_test(test_noscript),
      cmocka_unit_test(test_kept_attributes_and_meta),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
