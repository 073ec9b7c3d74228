/*
 * tests/dom/test_sax.c: the compact tree built straight from libxml2's SAX2
 * events (the default) is the tree copied from libxml2's own document
 * (keep_xml), node by node, on every fixture page and on broken markup;
 * and the caps stop the parser while it runs.
 *
 * Set WN_DOM_COMPARE_DIRS to a colon-separated list of directories to hold
 * every page under them to the same test (the corpora: see
 * /tmp/winnow-corpora/{ctf,cpe}/html, laid out by scripts/eval.sh).
 */
#include "wn_test.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>

static int wn_str_same(const char *a, const char *b) {
  if (!a || !b)
    return a == b;
  return strcmp(a, b) == 0;
}

/* The kept attributes of two nodes (wn_dom_attr) agree. */
static int wn_same_attrs(const wn_dom_page *a, const wn_dom_node *p, const wn_dom_page *b,
                         const wn_dom_node *q) {
  static const char *const names[] = {"href",    "src",     "data-src", "alt",     "start",
                                      "colspan", "rowspan", "role",     "itemprop"};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
    if (!wn_str_same(wn_dom_attr(a, p, names[k]), wn_dom_attr(b, q, names[k])))
      return 0;
  return 1;
}

/* The metadata side tables agree: NULL, else what differs. */
static const char *wn_same_meta(const wn_dom_page *a, const wn_dom_page *b) {
  uint32_t na = 0, nb = 0;
  const wn_dom_meta *x = wn_dom_meta_items(a, &na);
  const wn_dom_meta *y = wn_dom_meta_items(b, &nb);
  if (!wn_str_same(wn_dom_lang(a), wn_dom_lang(b)))
    return "lang";
  if (na != nb)
    return "item count";
  for (uint32_t i = 0; i < na; i++) {
    const wn_dom_meta *p = &x[i], *q = &y[i];
    if (p->kind != q->kind || p->cut != q->cut)
      return "item kind";
    if (!wn_str_same(p->name, q->name) || !wn_str_same(p->property, q->property) ||
        !wn_str_same(p->itemprop, q->itemprop) || !wn_str_same(p->http_equiv, q->http_equiv) ||
        !wn_str_same(p->content, q->content) || !wn_str_same(p->rel, q->rel) ||
        !wn_str_same(p->href, q->href) || !wn_str_same(p->datetime, q->datetime) ||
        !wn_str_same(p->pubdate, q->pubdate))
      return "item attribute";
    if (!wn_str_same(p->text, q->text))
      return "item text";
  }
  return NULL;
}

/* Both builders on the same bytes; 0 when the trees (or the errors) are
 * the same, else a message in why. */
static int wn_compare(const char *bytes, size_t len, const wn_dom_options *base, char *why,
                      size_t why_size) {
  wn_dom_options sax_opts = base ? *base : (wn_dom_options){0};
  wn_dom_options xml_opts = sax_opts;
  sax_opts.keep_xml = 0;
  xml_opts.keep_xml = 1;
  wn_dom_page *a = NULL, *b = NULL;
  wn_diag da, db;
  wn_diag_clear(&da);
  wn_diag_clear(&db);
  wn_err ea = wn_dom_parse(bytes, len, &sax_opts, &a, &da);
  wn_err eb = wn_dom_parse(bytes, len, &xml_opts, &b, &db);
  int rc = 0;
  if (ea != eb) {
    snprintf(why, why_size, "sax: %s, tree: %s", wn_strerror_name(ea), wn_strerror_name(eb));
    rc = 1;
    goto out;
  }
  if (ea) {
    if (strcmp(wn_diag_message(&da, ea), wn_diag_message(&db, eb)) != 0) {
      snprintf(why, why_size, "messages differ: \"%s\" / \"%s\"", wn_diag_message(&da, ea),
               wn_diag_message(&db, eb));
      rc = 1;
    }
    goto out;
  }
  uint32_t na = 0, nb = 0;
  const wn_dom_node *x = wn_dom_nodes(a, &na);
  const wn_dom_node *y = wn_dom_nodes(b, &nb);
  for (uint32_t i = 0; i < na && i < nb; i++) {
    const wn_dom_node *p = &x[i], *q = &y[i];
    const char *field = NULL;
    if (p->tag != q->tag || !wn_str_same(p->name, q->name))
      field = "tag";
    else if (p->parent != q->parent || p->first_child != q->first_child ||
             p->next_sibling != q->next_sibling || p->end != q->end ||
             p->n_children != q->n_children || p->depth != q->depth)
      field = "shape";
    else if (p->text_len != q->text_len || p->link_text_len != q->link_text_len ||
             p->own_text_len != q->own_text_len || !wn_str_same(p->text, q->text) ||
             !wn_str_same(wn_dom_raw_text(p), wn_dom_raw_text(q)))
      field = "text";
    else if (!wn_str_same(p->id, q->id) || !wn_str_same(p->cls, q->cls))
      field = "attributes";
    else if (!wn_same_attrs(a, p, b, q))
      field = "kept attributes";
    else if (p->flags != q->flags)
      field = "flags";
    else if (p->sig != q->sig)
      field = "signature";
    if (field) {
      snprintf(why, why_size, "node %u (%s, sax \"%.40s\" / tree \"%.40s\"): %s differs", i,
               q->name, p->text ? p->text : (p->id ? p->id : ""),
               q->text ? q->text : (q->id ? q->id : ""), field);
      rc = 1;
      goto out;
    }
  }
  const char *meta_why = wn_same_meta(a, b);
  if (meta_why) {
    snprintf(why, why_size, "metadata side table: %s differs", meta_why);
    rc = 1;
    goto out;
  }
  if (na != nb || wn_dom_body(a) != wn_dom_body(b)) {
    snprintf(why, why_size, "sax: %u nodes, body %u; tree: %u nodes, body %u", na,
             wn_dom_body(a), nb, wn_dom_body(b));
    rc = 1;
  }
out:
  wn_dom_free(a);
  wn_dom_free(b);
  return rc;
}

static void wn_expect_same(const char *html, const wn_dom_options *opts) {
  char why[512];
  if (wn_compare(html, strlen(html), opts, why, sizeof why)) {
    print_error("page \"%.60s...%s\": %s\n", html, strlen(html) > 60 ? html + strlen(html) - 60 : "", why);
    fail();
  }
}

/* Every *.html / *.htm file under dir; counts pages and failures. */
static void wn_compare_dir(const char *dir, size_t *pages, size_t *failed) {
  DIR *d = opendir(dir);
  assert_non_null(d);
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.')
      continue;
    char path[4096];
    int n = snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    assert_true(n > 0 && (size_t)n < sizeof path);
    struct stat st;
    if (stat(path, &st) != 0)
      continue;
    if (S_ISDIR(st.st_mode)) {
      wn_compare_dir(path, pages, failed);
      continue;
    }
    size_t l = strlen(e->d_name);
    int html = (l > 5 && strcmp(e->d_name + l - 5, ".html") == 0) ||
               (l > 4 && strcmp(e->d_name + l - 4, ".htm") == 0);
    if (!html)
      continue;
    size_t len = 0;
    char *bytes = wn_test_read(path, &len);
    char why[512];
    (*pages)++;
    if (wn_compare(bytes, len, NULL, why, sizeof why)) {
      print_error("%s: %s\n", path, why);
      (*failed)++;
    }
    free(bytes);
  }
  closedir(d);
}

static void test_fixture_pages(void **state) {
  (void)state;
  size_t pages = 0, failed = 0;
  wn_compare_dir(WN_FIXTURES, &pages, &failed);
  assert_true(pages >= 40); /* the fixtures were found */
  assert_int_equal(failed, 0);
}

/* The corpora, when asked (they are not part of the repository). */
static void test_compare_dirs(void **state) {
  (void)state;
  const char *dirs = getenv("WN_DOM_COMPARE_DIRS");
  if (!dirs || !*dirs)
    skip();
  char *copy = strdup(dirs);
  assert_non_null(copy);
  size_t pages = 0, failed = 0;
  for (char *p = copy, *next; p && *p; p = next) {
    next = strchr(p, ':');
    if (next)
      *next++ = '\0';
    wn_compare_dir(p, &pages, &failed);
  }
  free(copy);
  print_message("compared %zu pages, %zu differ\n", pages, failed);
  assert_true(pages > 0);
  assert_int_equal(failed, 0);
}

static void test_broken_markup(void **state) {
  (void)state;
  static const char *const pages[] = {
      /* unclosed, misnested, stray end tags */
      "<html><body><div><p>unclosed <b>bold<p>second</div></td></span>"
      "<table><tr><td>cell</table><p>after &amp; &eacute; &bogus; &#x263a;",
      "<div><span>a<div>b</span>c</div>d",
      "<ul><li>one<li>two<ul><li>inner</ul><li>three</ul>",
      "<table><td>no row<td>two</tr><tr><th>h</table>",
      "<p>one<p>two<div>three<p>four",
      "<a href=\"/x\">link <a href=\"/y\">nested</a> tail</a> out",
      "<a>no href <b>bold</b></a><a href>empty href</a>",
      /* attributes: repeated, empty, without value, upper case */
      "<div id=a id=b class=\"c d\" class=e>x</div><div id>y</div><DIV ID=\"Up\" CLASS=Z>z</DIV>",
      "<div id=\"\" class=\"\">empty</div><p id=story-12345>digits</p>",
      "<div role=\"main\" itemprop=articleBody><nav ROLE=navigation>x</nav><td role>y</td></div>",
      /* start tags cut off or broken */
      "<body><div class=\"x\"<p>broken</p></div>",
      "<body><p>text <div class=x",
      "<body><div>a</div><span id=\"unterminated",
      "<body><p>a<b/>b<br/>c<div/>d</p>",
      "<body><p>a</p><img src=x alt=\"<p>\">after",
      /* misplaced html, head, body, doctype */
      "<html id=a><body><html id=b><p>inner</p></html><body class=c>more</body></html>",
      "<p>before</p><html><head><title>t</title></head><body>x</body></html>",
      "<body>a<head><title>late</title></head>b</body>",
      "<body><p>a<!DOCTYPE html>b</p></body>",
      "<!DOCTYPE html><!DOCTYPE other><p>two doctypes",
      /* what comes after the root element closes */
      "<html><body><p>a</p></body></html><p>after</p>trailing text",
      "<html><body><p>a</p></body></html><div><p>b</p></div><span>c</span>",
      "<!DOCTYPE html><html><body><p>a</p></body></html><p>after</p>",
      "<!-- first --><html><body><p>a</p></body></html><p>after</p>",
      "<?xml version=\"1.0\"?><html><body>a</body></html><p>b</p>",
      "<html><body>a</body></html><!-- c --><p>b</p>",
      "<html><body>a</body></html><script>x()</script><p>b</p>",
      /* comments, PIs, CDATA between texts */
      "<p>one<!-- c -->two<?php echo 1; ?>three<![CDATA[four]]>five</p>",
      "<p>a <!-- c --> b</p><p> <!-- only --> </p>",
      /* skipped subtrees between texts */
      "<p>a<script>var x = '<p>';</script>b<style>p{}</style>c<noscript>n</noscript>d</p>",
      "<p>x<svg><text>in svg</text><p>p in svg</p></svg>y<select><option>o</select>z</p>",
      /* inline SVG: its drawn text, one element (dom.c, WN_SVG_ROOT) */
      "<div>a<svg id=d class=\"dia x\"><defs><symbol><text>no</text></symbol></defs>"
      "<title>t</title><g><path d=M0/><text>SELECT</text><text><tspan>r</tspan>-"
      "<tspan>c</tspan></text></g><text><![CDATA[FROM]]></text></svg> b</div>",
      "<div><svg aria-hidden=true><text>icon</text></svg><svg><use href=#i /></svg>"
      "<svg><g><text> </text></g></svg><p>after</p></div>",
      "<div><svg><svg><text>inner</text></svg><text>outer<desc>d</desc></text>"
      "<foreignObject><p>html</p></foreignObject></svg></div>",
      "<p>x<svg><text>never closed",
      "<p>x<template><p>t</p></template>y<textarea>ta</textarea>z<iframe>f</iframe>w</p>",
      "<p>before<script>never closed",
      "<p>before<style>never closed",
      /* white space and pre */
      "<p> lead <b> bold </b>trail </p>\n<p>un<b>believ</b>able</p>",
      "<pre>  line 1\n  <span>x</span>\n  <span>y</span>\n</pre><pre>\n\n</pre><p>after</p>",
      "<pre><code>a\n\n<b>b</b>  <i> </i> c</code></pre><listing> l </listing><xmp> <b> </xmp>",
      "<plaintext> everything <p> after is text",
      "<p>\xc2\xa0nbsp\xc2\xa0</p><p>\t\r\n\f</p>",
      /* odd names and text at the top level */
      "plain text only",
      "   <p>x</p>",
      "<my-element data-x=1>custom</my-element><x:y>ns</x:y><_u>under</_u>",
      "<p>a</p></html>x</body>y",
      "<frameset><frame src=a><noframes>nf</noframes></frameset>",
      "<table><caption>c</caption><colgroup><col></colgroup><tbody><tr><td>x</td></tr></table>",
      "<form><input name=a><label>l</label><button>b</button><select><option>1</select></form>",
      "<p>a</p><p>b</p",
      "<p>a</p><",
      "<p>a &lt; b &gt c &amp d &#0; &#xD800; &#1114112;</p>",
      "<body><p>\x01\x02 control</p></body>",
      /* what Markdown and the metadata read: kept attributes, white space
       * before an image, the metadata side table */
      "<!DOCTYPE html><html lang=de><head><title> </title><title>T</title><base href=/b/>"
      "<base href=/x/><meta name=author content=A><link rel=canonical href=/c>"
      "<script type=application/ld+json>{\"a\":1}</script><noscript><meta property=og:title "
      "content=N></noscript></head><body><h1> </h1><h1>H <script>x</script>y</h1>"
      "<p>t <!-- c --><img src=a.png alt=x> and <img data-src=b.png alt><a href=/l>l</a>"
      "</p><ol start=3><li>x</ol><table><tr><td colspan=2>c</table><time datetime=2020>t",
      "<html xml:lang=fr><head><head><base href=/a/></head><title>a<b>b</b></title>"
      "<svg><title>s</title></svg><p>x <img src=1>\n<img src=2><![CDATA[z]]> <img src=3>",
      "<p>x</p></html><!-- after --><meta name=late content=1><h1>late</h1><img src=late>",
      "<!DOCTYPE html><p>x</p></html><meta name=late content=1><title>late</title>",
  };
  for (size_t k = 0; k < sizeof pages / sizeof pages[0]; k++)
    wn_expect_same(pages[k], NULL);
  /* Small caps hit on the way, in the same place by both builders. */
  wn_dom_options small_nodes = {.max_nodes = 7};
  wn_dom_options small_depth = {.max_depth = 3};
  for (size_t k = 0; k < sizeof pages / sizeof pages[0]; k++) {
    wn_expect_same(pages[k], &small_nodes);
    wn_expect_same(pages[k], &small_depth);
  }
}

/* Inline SVG: what it draws with <text> is one text node of one <svg>
 * element; an icon (no text, or aria-hidden) is not in the tree. */
static void test_svg_text(void **state) {
  (void)state;
  wn_dom_page *page = wn_test_parse(
      "<body><p>The statement:</p><svg class=diagram><defs><symbol id=s><text>HIDDEN</text>"
      "</symbol></defs><title>a diagram</title><g><path d=M0/><text x=1>SELECT</text>"
      "<text><tspan>result</tspan>-<tspan>column</tspan></text><text>FROM</text></g></svg>"
      "<svg aria-hidden=true><text>ICON</text></svg><svg class=icon><use href=#s /></svg>"
      "<p>After.</p></body>");
  uint32_t count = 0, svgs = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  for (uint32_t i = 0; i < count; i++) {
    if (nodes[i].tag == WN_TAG_TEXT || strcmp(nodes[i].name, "svg") != 0)
      continue;
    svgs++;
    assert_string_equal(nodes[i].cls, "diagram");
    assert_int_equal(nodes[i].end, i + 2); /* one child: its text */
    assert_int_equal(nodes[i + 1].tag, WN_TAG_TEXT);
    assert_string_equal(nodes[i + 1].text, "SELECT result-column FROM");
    assert_true(nodes[i].flags & WN_DOM_BLOCK);
  }
  assert_int_equal(svgs, 1);
  for (uint32_t i = 0; i < count; i++)
    if (nodes[i].tag == WN_TAG_TEXT) {
      assert_null(strstr(nodes[i].text, "HIDDEN"));
      assert_null(strstr(nodes[i].text, "ICON"));
      assert_null(strstr(nodes[i].text, "a diagram"));
    }
  wn_dom_free(page);
}

/* Deep nesting: past 256 open elements libxml2's tree builder stops the
 * parse; with a depth cap above that, both builders keep the same part. */
static void test_deep_nesting(void **state) {
  (void)state;
  wn_dom_options deep = {.max_depth = 1000};
  const char *opens[] = {"<div>", "<div id=d>", "<span class=s>", "<a href=/h>"};
  const char *inner[] = {"<svg>", "<math>", ""};
  const char *last[] = {"<div id=last class=l href=x>t", "<a href=x id=i>t", "<script id=s>t",
                        "t"};
  wn_buf buf;
  wn_buf_init(&buf, 0);
  for (size_t o = 0; o < sizeof opens / sizeof opens[0]; o++)
    for (size_t in = 0; in < sizeof inner / sizeof inner[0]; in++)
      for (size_t l = 0; l < sizeof last / sizeof last[0]; l++)
        for (int levels = 250; levels <= 262; levels += 3) {
          wn_buf_reset(&buf);
          assert_int_equal(wn_buf_append_str(&buf, "<body>text"), WN_OK);
          for (int i = 0; i < levels; i++) {
            assert_int_equal(wn_buf_append_str(&buf, i == levels / 2 ? inner[in] : opens[o]),
                             WN_OK);
            assert_int_equal(wn_buf_append_str(&buf, i % 7 == 0 ? "x " : ""), WN_OK);
          }
          assert_int_equal(wn_buf_append_str(&buf, last[l]), WN_OK);
          assert_int_equal(wn_buf_append_str(&buf, "</div> after"), WN_OK);
          wn_expect_same(buf.data, &deep);
          wn_expect_same(buf.data, NULL);
        }
  wn_buf_free(&buf);
}

/* A text node past libxml2's 10,000,000-byte text cap: the tree builder
 * stops there, and so must we. */
static void test_huge_text(void **state) {
  (void)state;
  wn_buf buf;
  wn_buf_init(&buf, 0);
  assert_int_equal(wn_buf_append_str(&buf, "<body><p>"), WN_OK);
  while (buf.len < 10500000)
    assert_int_equal(wn_buf_append_str(&buf, "word and more words "), WN_OK);
  assert_int_equal(wn_buf_append_str(&buf, "</p><p>after</p></body>"), WN_OK);
  wn_expect_same(buf.data, NULL);
  wn_buf_free(&buf);
}

/* A page many times the parser's input chunk, read to its end exactly
 * once: the SAX builder hands libxml2 the bytes in place, and libxml2
 * 2.9.14, given them as a static input buffer instead, read the page's
 * start a second time after its end (every paragraph twice). */
static void test_long_page(void **state) {
  (void)state;
  wn_buf buf;
  wn_buf_init(&buf, 0);
  assert_int_equal(wn_buf_append_str(&buf, "<!DOCTYPE html><html><head><title>Long</title>"
                                           "<script>var x = \"</p>\";</script></head><body>"),
                   WN_OK);
  for (int i = 0; i < 3000; i++) {
    char p[160];
    snprintf(p, sizeof p, "<p class=\"c%d\" title=\"caf\xc3\xa9 %d\">Paragraph %d, "
             "na\xc3\xafve r\xc3\xa9sum\xc3\xa9 \xe2\x80\x94 text</p>\n", i % 7, i, i);
    assert_int_equal(wn_buf_append_str(&buf, p), WN_OK);
  }
  assert_int_equal(wn_buf_append_str(&buf, "</body></html>\n\n<!-- after the end -->\n"), WN_OK);
  wn_expect_same(buf.data, NULL);
  wn_dom_page *page = NULL;
  assert_int_equal(wn_dom_parse(buf.data, buf.len, NULL, &page, NULL), WN_OK);
  size_t paragraphs = 0, last = 0;
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  for (uint32_t i = 0; i < count; i++) {
    const char *t = nodes[i].text;
    paragraphs += t && strncmp(t, "Paragraph ", 10) == 0;
    last += t && strncmp(t, "Paragraph 2999,", 15) == 0;
  }
  assert_int_equal(paragraphs, 3000);
  assert_int_equal(last, 1);
  wn_dom_free(page);
  wn_buf_free(&buf);
}

static long wn_peak_kib(void) {
  struct rusage ru;
  assert_int_equal(getrusage(RUSAGE_SELF, &ru), 0);
  return ru.ru_maxrss;
}

/* A page of 15 MB and two million nodes. The node cap stops the
 * parser as the nodes arrive; building libxml2's whole tree first took
 * 729 MB. */
static void test_caps_while_parsing(void **state) {
  (void)state;
  wn_buf buf;
  wn_buf_init(&buf, 0);
  assert_int_equal(wn_buf_append_str(&buf, "<html><body>"), WN_OK);
  while (buf.len < 15u * 1000 * 1000)
    assert_int_equal(wn_buf_append_str(&buf, "<i>a</i><i>b</i>"), WN_OK);
  assert_int_equal(wn_buf_append_str(&buf, "</body></html>"), WN_OK);
  long before = wn_peak_kib();
  wn_dom_page *page = NULL;
  wn_diag diag;
  wn_diag_clear(&diag);
  assert_int_equal(wn_dom_parse(buf.data, buf.len, NULL, &page, &diag), WN_ETOOMANY);
  assert_null(page);
  assert_non_null(strstr(diag.msg, "300000"));
  long grown_mib = (wn_peak_kib() - before) / 1024;
  print_message("peak memory grew by %ld MiB for a %zu MB page\n", grown_mib,
                buf.len / 1000000);
  /* The page's decoded copy, libxml2's input buffers and 300,000 nodes:
   * under 150 MiB (libxml2's tree of the whole page alone was 700). */
  assert_true(grown_mib < 150);
  /* The depth cap stops it too. (At the default cap libxml2 itself stops
   * nesting first: see test_deep_nesting.) */
  wn_buf_reset(&buf);
  for (int i = 0; i < 300; i++)
    assert_int_equal(wn_buf_append_str(&buf, "<div>"), WN_OK);
  while (buf.len < 1000000)
    assert_int_equal(wn_buf_append_str(&buf, "<p>x</p>"), WN_OK);
  wn_diag_clear(&diag);
  wn_dom_options shallow = {.max_depth = 100};
  assert_int_equal(wn_dom_parse(buf.data, buf.len, &shallow, &page, &diag), WN_ETOODEEP);
  assert_null(page);
  wn_buf_free(&buf);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      /* First: it measures the process's peak memory. */
      cmocka_unit_test(test_caps_while_parsing),
      cmocka_unit_test(test_fixture_pages),
      cmocka_unit_test(test_broken_markup),
      cmocka_unit_test(test_svg_text),
      cmocka_unit_test(test_deep_nesting),
      cmocka_unit_test(test_huge_text),
      cmocka_unit_test(test_long_page),
      cmocka_unit_test(test_compare_dirs),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
