/* tests/template/test_template.c: sibling pairing, the ETDM, encoding. */
#include "wn_test.h"

#include <stdlib.h>
#include <string.h>

#include "detect/detect.h"
#include "learn/learn.h"
#include "template/template.h"

static void test_align_lcs(void **state) {
  (void)state;
  /* a: A B C D E    b: A C X D E F   -> A-A, C-C, D-D, E-E; B unpaired. */
  const uint32_t a[] = {1, 2, 3, 4, 5};
  const uint32_t b[] = {1, 3, 9, 4, 5, 6};
  uint32_t pair[5];
  uint16_t scratch[6 * 7];
  assert_int_equal(wn_template_align(a, 5, b, 6, pair, scratch), 4);
  assert_int_equal(pair[0], 0);
  assert_int_equal(pair[1], WN_DOM_NONE);
  assert_int_equal(pair[2], 1);
  assert_int_equal(pair[3], 3);
  assert_int_equal(pair[4], 4);
  /* Repeated siblings pair in order: p p p against p p. */
  const uint32_t c[] = {7, 7, 7};
  const uint32_t d[] = {7, 7};
  uint32_t pair2[3];
  assert_int_equal(wn_template_align(c, 3, d, 2, pair2, scratch), 2);
  assert_int_equal(pair2[0], 0);
  assert_int_equal(pair2[1], 1);
  assert_int_equal(pair2[2], WN_DOM_NONE);
  /* A middle that needs the table: x A B y against z B A w keeps one. */
  const uint32_t e[] = {10, 1, 2, 11};
  const uint32_t f[] = {12, 2, 1, 13};
  uint32_t pair3[4];
  assert_int_equal(wn_template_align(e, 4, f, 4, pair3, scratch), 1);
  /* Without scratch the greedy pairing still pairs in order. */
  assert_int_equal(wn_template_align(a, 5, b, 6, pair, NULL), 4);
  assert_int_equal(pair[2], 1);
}

static wn_template *learn(const char *const *html, size_t n) {
  wn_dom_page *pages[8];
  for (size_t i = 0; i < n; i++)
    pages[i] = wn_test_parse(html[i]);
  wn_template *tpl = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_learn_template((const wn_dom_page *const *)pages, n, NULL, &tpl, &diag),
                   WN_OK);
  for (size_t i = 0; i < n; i++)
    wn_dom_free(pages[i]);
  return tpl;
}

static const char *const site[] = {
    "<body><div id=nav><a href=/>Home</a><a href=/w>World</a></div>"
    "<div id=main><h1>First story</h1><p>Alpha words here.</p></div><div id=foot>(c) Site</div></body>",
    "<body><div id=nav><a href=/>Home</a><a href=/w>World</a></div>"
    "<div id=main><h1>Second story</h1><p>Beta text.</p><p>More beta.</p></div><div id=foot>(c) Site</div></body>",
    "<body><div id=nav><a href=/>Home</a><a href=/s>Sport</a></div>"
    "<div id=main><h1>Third story</h1><p>Gamma.</p></div><div id=foot>(c) Site</div></body>",
};

static void test_encode_decode(void **state) {
  (void)state;
  wn_template *tpl = learn(site, 3);
  wn_template_set_selector(tpl, 3);
  /* Learned with the default selector it has content places; this record
   * is checked without them first. */
  wn_template_places none = {.content = WN_DOM_NONE};
  assert_int_equal(wn_template_set_places(tpl, &none), WN_OK);
  /* Three stories: the samples read as articles, the site's shape. */
  assert_int_equal(wn_template_shape(tpl), WN_PAGE_ARTICLE + 1);
  assert_int_equal(wn_template_set_shape(tpl, WN_TEMPLATE_MAX_SHAPE + 1), WN_EINVAL);
  assert_int_equal(wn_template_set_shape(tpl, 0), WN_OK);
  wn_buf buf;
  wn_buf_init(&buf, 0);
  assert_int_equal(wn_template_encode(tpl, &buf, NULL), WN_OK);
  wn_template *back = NULL;
  assert_int_equal(wn_template_decode(buf.data, buf.len, &back, NULL), WN_OK);
  uint32_t n1 = 0, n2 = 0;
  const wn_template_node *a = wn_template_nodes(tpl, &n1);
  const wn_template_node *b = wn_template_nodes(back, &n2);
  assert_int_equal(n1, n2);
  for (uint32_t i = 0; i < n1; i++) {
    assert_int_equal(a[i].sig, b[i].sig);
    assert_int_equal(a[i].parent, b[i].parent);
    assert_int_equal(a[i].end, b[i].end);
    assert_int_equal(a[i].count, b[i].count);
    assert_int_equal(a[i].is_text, b[i].is_text);
  }
  wn_template_stats st;
  wn_template_get_stats(back, &st);
  assert_int_equal(st.sample_pages, 3);
  assert_int_equal(st.min_count, 2);
  assert_int_equal(st.selector, 3);
  assert_int_equal(wn_template_selector(back), 3);
  /* These pages print no date or byline: no metadata positions, two
   * zero bytes; learned without the places selector: no content places,
   * four zero bytes (place, whole, skips, asides); then shape 0. */
  assert_int_equal(wn_template_get_positions(back).date_node, WN_DOM_NONE);
  assert_int_equal(wn_template_get_positions(back).author_node, WN_DOM_NONE);
  assert_int_equal(wn_template_get_places(back)->content, WN_DOM_NONE);
  wn_template_free(back);
  for (size_t k = 1; k <= 7; k++)
    assert_int_equal(buf.data[buf.len - k], 0);

  /* The shape round-trips; a shape byte past the last is damage. */
  buf.data[buf.len - 1] = (char)(WN_PAGE_DOCUMENTATION + 1);
  assert_int_equal(wn_template_decode(buf.data, buf.len, &back, NULL), WN_OK);
  assert_int_equal(wn_template_shape(back), WN_PAGE_DOCUMENTATION + 1);
  wn_template_free(back);
  buf.data[buf.len - 1] = (char)(WN_TEMPLATE_MAX_SHAPE + 1);
  assert_int_equal(wn_template_decode(buf.data, buf.len, &back, NULL), WN_ECORRUPT);
  buf.data[buf.len - 1] = 0;

  /* Format 5, written before templates carried the site's shape: the same
   * without its byte. It still reads, with shape 0. */
  wn_buf v5;
  wn_buf_init(&v5, 0);
  assert_int_equal(wn_buf_append(&v5, buf.data, buf.len - 1), WN_OK);
  v5.data[4] = 5;
  assert_int_equal(wn_template_decode(v5.data, v5.len, &back, NULL), WN_OK);
  assert_int_equal(wn_template_shape(back), 0);
  wn_template_free(back);
  wn_buf_free(&v5);
  buf.len--; /* as format 5 wrote it, for the older formats below */

  /* Format 4, written before content places had asides: the same without
   * the asides' byte. It still reads, with none. */
  wn_buf v4;
  wn_buf_init(&v4, 0);
  assert_int_equal(wn_buf_append(&v4, buf.data, buf.len - 1), WN_OK);
  v4.data[4] = 4;
  assert_int_equal(wn_template_decode(v4.data, v4.len, &back, NULL), WN_OK);
  assert_int_equal(wn_template_get_places(back)->n_aside, 0);
  wn_template_free(back);
  wn_buf_free(&v4);

  /* Format 3, written before templates carried content places: the same
   * without the three place bytes. It still reads, with none. */
  wn_buf v3;
  wn_buf_init(&v3, 0);
  assert_int_equal(wn_buf_append(&v3, buf.data, buf.len - 4), WN_OK);
  v3.data[4] = 3;
  assert_int_equal(wn_template_decode(v3.data, v3.len, &back, NULL), WN_OK);
  assert_int_equal(wn_template_get_places(back)->content, WN_DOM_NONE);
  assert_int_equal(wn_template_get_places(back)->n_skip, 0);
  wn_template_free(back);
  wn_buf_free(&v3);

  /* Format 2, written before templates carried metadata positions: the
   * same without the two position bytes. It still reads, with none. */
  wn_buf v2;
  wn_buf_init(&v2, 0);
  assert_int_equal(wn_buf_append(&v2, buf.data, buf.len - 6), WN_OK);
  v2.data[4] = 2;
  assert_int_equal(wn_template_decode(v2.data, v2.len, &back, NULL), WN_OK);
  assert_int_equal(wn_template_selector(back), 3);
  assert_int_equal(wn_template_get_positions(back).date_node, WN_DOM_NONE);
  assert_int_equal(wn_template_get_positions(back).author_node, WN_DOM_NONE);
  assert_int_equal(wn_template_nodes(back, NULL)[n1 - 1].sig, a[n1 - 1].sig);
  wn_template_free(back);

  /* Format 1, written before templates carried a selector: the format 2
   * header without the selector byte. It still reads, with selector 0. */
  wn_buf v1;
  wn_buf_init(&v1, 0);
  assert_int_equal(wn_buf_append(&v1, v2.data, 8), WN_OK);
  assert_int_equal(wn_buf_append(&v1, v2.data + 9, v2.len - 9), WN_OK);
  v1.data[4] = 1;
  assert_int_equal(wn_template_decode(v1.data, v1.len, &back, NULL), WN_OK);
  assert_int_equal(wn_template_selector(back), 0);
  assert_int_equal(wn_template_get_positions(back).date_node, WN_DOM_NONE);
  assert_int_equal(wn_template_nodes(back, NULL)[n1 - 1].sig, a[n1 - 1].sig);
  wn_template_free(back);
  wn_buf_free(&v1);
  wn_buf_free(&v2);
  buf.len++; /* format 6 again */

  /* Positions round-trip; one at a text node or past the nodes is
   * refused, when set and when decoded. */
  uint32_t elem = 1, text = WN_DOM_NONE;
  for (uint32_t i = 0; i < n1; i++)
    if (a[i].is_text && text == WN_DOM_NONE)
      text = i;
  assert_false(a[elem].is_text);
  assert_int_not_equal(text, WN_DOM_NONE);
  wn_template_positions pos = {elem, WN_DOM_NONE};
  assert_int_equal(wn_template_set_positions(tpl, &pos), WN_OK);
  wn_template_positions bad = {text, WN_DOM_NONE};
  assert_int_equal(wn_template_set_positions(tpl, &bad), WN_EINVAL);
  bad = (wn_template_positions){WN_DOM_NONE, n1};
  assert_int_equal(wn_template_set_positions(tpl, &bad), WN_EINVAL);
  wn_buf withpos;
  wn_buf_init(&withpos, 0);
  assert_int_equal(wn_template_encode(tpl, &withpos, NULL), WN_OK);
  assert_int_equal(wn_template_decode(withpos.data, withpos.len, &back, NULL), WN_OK);
  assert_int_equal(wn_template_get_positions(back).date_node, elem);
  assert_int_equal(wn_template_get_positions(back).author_node, WN_DOM_NONE);
  wn_template_free(back);
  if (text < 127) { /* one varint byte: point the date position at a text node */
    withpos.data[withpos.len - 6] = (char)(text + 1);
    wn_diag pdiag = {{0}};
    assert_int_equal(wn_template_decode(withpos.data, withpos.len, &back, &pdiag), WN_ECORRUPT);
    assert_null(back);
    assert_non_null(strstr(pdiag.msg, "position"));
  }
  wn_buf_free(&withpos);
  pos.date_node = WN_DOM_NONE;
  assert_int_equal(wn_template_set_positions(tpl, &pos), WN_OK);

  /* Content places round-trip; a skip outside the content place, nested
   * in another skip, or at a text node is refused, when set and when
   * decoded. Node 1 (<body>) is the place, two element children inside
   * it are skipped. */
  uint32_t kids[2], nk = 0;
  for (uint32_t c = a[1].first_child; c != WN_DOM_NONE && nk < 2; c = a[c].next_sibling)
    if (!a[c].is_text)
      kids[nk++] = c;
  assert_int_equal(nk, 2);
  wn_template_places pl = {.content = 1, .whole = 1, .n_skip = 2, .skip = {kids[0], kids[1]}};
  assert_int_equal(wn_template_set_places(tpl, &pl), WN_OK);
  wn_buf withpl;
  wn_buf_init(&withpl, 0);
  assert_int_equal(wn_template_encode(tpl, &withpl, NULL), WN_OK);
  assert_int_equal(wn_template_decode(withpl.data, withpl.len, &back, NULL), WN_OK);
  const wn_template_places *bp = wn_template_get_places(back);
  assert_int_equal(bp->content, 1);
  assert_int_equal(bp->whole, 1);
  assert_int_equal(bp->n_skip, 2);
  assert_int_equal(bp->skip[0], kids[0]);
  assert_int_equal(bp->skip[1], kids[1]);
  wn_template_free(back);
  wn_template_places badpl = {.content = kids[0], .n_skip = 1, .skip = {kids[1]}};
  assert_int_equal(wn_template_set_places(tpl, &badpl), WN_EINVAL); /* not inside */
  badpl = (wn_template_places){.content = 1, .n_skip = 1, .skip = {1}};
  assert_int_equal(wn_template_set_places(tpl, &badpl), WN_EINVAL); /* the place itself */
  badpl = (wn_template_places){.content = WN_DOM_NONE, .whole = 1};
  assert_int_equal(wn_template_set_places(tpl, &badpl), WN_EINVAL);
  if (text > 1 && text < a[1].end) {
    badpl = (wn_template_places){.content = 1, .n_skip = 1, .skip = {text}};
    assert_int_equal(wn_template_set_places(tpl, &badpl), WN_EINVAL);
  }
  if (kids[0] < 127 && kids[1] < 127) {
    /* The last byte is the shape (0), the one before it the asides'
     * count (0), the one before that the second skip: point that at the
     * place itself. */
    withpl.data[withpl.len - 3] = 1;
    wn_diag pldiag = {{0}};
    assert_int_equal(wn_template_decode(withpl.data, withpl.len, &back, &pldiag), WN_ECORRUPT);
    assert_null(back);
    assert_non_null(strstr(pldiag.msg, "content place"));
    /* A whole flag other than 0 or 1. */
    withpl.data[withpl.len - 3] = (char)kids[1];
    withpl.data[withpl.len - 6] = 7;
    assert_int_equal(wn_template_decode(withpl.data, withpl.len, &back, NULL), WN_ECORRUPT);
    withpl.data[withpl.len - 6] = 1;
    /* More asides than a template may hold. */
    withpl.data[withpl.len - 2] = (char)(WN_TEMPLATE_MAX_SKIP + 1);
    assert_int_equal(wn_template_decode(withpl.data, withpl.len, &back, NULL), WN_ECORRUPT);
  }
  wn_buf_free(&withpl);

  /* Asides round-trip: the first child of <body> is the place, the
   * second beside it an aside. One around the place, the place itself,
   * inside it, or twice is refused, when set and when decoded. */
  pl = (wn_template_places){.content = kids[0], .n_aside = 1, .aside = {kids[1]}};
  assert_int_equal(wn_template_set_places(tpl, &pl), WN_OK);
  wn_buf withas;
  wn_buf_init(&withas, 0);
  assert_int_equal(wn_template_encode(tpl, &withas, NULL), WN_OK);
  assert_int_equal(wn_template_decode(withas.data, withas.len, &back, NULL), WN_OK);
  assert_int_equal(wn_template_get_places(back)->content, kids[0]);
  assert_int_equal(wn_template_get_places(back)->n_aside, 1);
  assert_int_equal(wn_template_get_places(back)->aside[0], kids[1]);
  wn_template_free(back);
  badpl = (wn_template_places){.content = kids[0], .n_aside = 1, .aside = {1}};
  assert_int_equal(wn_template_set_places(tpl, &badpl), WN_EINVAL); /* around it */
  badpl = (wn_template_places){.content = kids[0], .n_aside = 1, .aside = {kids[0]}};
  assert_int_equal(wn_template_set_places(tpl, &badpl), WN_EINVAL); /* the place */
  badpl = (wn_template_places){.content = kids[0], .n_aside = 2, .aside = {kids[1], kids[1]}};
  assert_int_equal(wn_template_set_places(tpl, &badpl), WN_EINVAL); /* nested */
  badpl = (wn_template_places){.content = WN_DOM_NONE, .n_aside = 1, .aside = {kids[1]}};
  assert_int_equal(wn_template_set_places(tpl, &badpl), WN_EINVAL); /* no place */
  if (kids[0] < 127) {
    /* The byte before the shape is the aside: point it at the place. */
    withas.data[withas.len - 2] = (char)kids[0];
    assert_int_equal(wn_template_decode(withas.data, withas.len, &back, NULL), WN_ECORRUPT);
    assert_null(back);
  }
  wn_buf_free(&withas);
  pl = (wn_template_places){.content = WN_DOM_NONE};
  assert_int_equal(wn_template_set_places(tpl, &pl), WN_OK);

  /* Every truncation is a clean error. */
  for (size_t len = 0; len < buf.len; len++) {
    wn_diag diag = {{0}};
    back = NULL;
    wn_err err = wn_template_decode(buf.data, len, &back, &diag);
    assert_true(err == WN_ECORRUPT);
    assert_null(back);
    assert_true(diag.msg[0] != '\0');
  }
  /* Trailing bytes too. */
  assert_int_equal(wn_buf_append_char(&buf, 0), WN_OK);
  assert_int_equal(wn_template_decode(buf.data, buf.len, &back, NULL), WN_ECORRUPT);
  buf.len--;
  /* Another version. */
  buf.data[4] = 9;
  wn_diag diag = {{0}};
  assert_int_equal(wn_template_decode(buf.data, buf.len, &back, &diag), WN_EVERSION);
  assert_non_null(strstr(diag.msg, "version 9"));
  buf.data[4] = (char)WN_TEMPLATE_FORMAT_VERSION;
  /* A node claiming more children than there are nodes (the header is 9
   * bytes and the node count 1 here: byte 10 is the root's child count). */
  buf.data[10] = 0x7f;
  assert_int_not_equal(wn_template_decode(buf.data, buf.len, &back, NULL), WN_OK);
  wn_buf_free(&buf);
  wn_template_free(tpl);
}

static const char *const fronts[] = {
    "<body><div id=nav><a href=/>Home</a></div><ul class=teasers><li><a href=/1>One</a></li>"
    "<li><a href=/2>Two</a></li></ul></body>",
    "<body><div id=nav><a href=/>Home</a></div><ul class=teasers><li><a href=/3>Three</a></li>"
    "</ul></body>",
    "<body><div id=nav><a href=/>Home</a></div><ul class=teasers><li><a href=/4>Four</a></li>"
    "<li><a href=/5>Five</a></li><li><a href=/6>Six</a></li></ul></body>",
};

/* A site of several layouts: one record, "WNTL" and each layout's own
 * bytes; a site of one layout keeps the bytes older builds read. */
static void test_layouts(void **state) {
  (void)state;
  wn_template *tpl = learn(site, 3);
  wn_template *other = learn(fronts, 3);
  wn_buf one;
  wn_buf_init(&one, 0);
  assert_int_equal(wn_template_encode(tpl, &one, NULL), WN_OK);
  assert_memory_equal(one.data, "WNTP", 4);
  assert_int_equal(wn_template_layout_count(tpl), 1);
  assert_ptr_equal(wn_template_layout(tpl, 0), tpl);
  assert_null(wn_template_layout(tpl, 1));

  uint32_t other_nodes = 0;
  wn_template_nodes(other, &other_nodes);
  assert_int_equal(wn_template_add_layout(tpl, other), WN_OK);
  assert_int_equal(wn_template_layout_count(tpl), 2);
  /* A layout holds no layouts; a template is not its own layout. */
  wn_template *third = learn(fronts, 3);
  assert_int_equal(wn_template_add_layout(third, tpl), WN_EINVAL);
  assert_int_equal(wn_template_add_layout(tpl, tpl), WN_EINVAL);
  wn_buf two;
  wn_buf_init(&two, 0);
  assert_int_equal(wn_template_encode(tpl, &two, NULL), WN_OK);
  assert_memory_equal(two.data, "WNTL", 4);
  wn_template *back = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_template_decode(two.data, two.len, &back, &diag), WN_OK);
  assert_int_equal(wn_template_layout_count(back), 2);
  uint32_t n = 0;
  wn_template_nodes(wn_template_layout(back, 1), &n);
  assert_int_equal(n, other_nodes);
  /* The first layout's bytes are the one-layout record's. */
  wn_buf first;
  wn_buf_init(&first, 0);
  assert_int_equal(wn_template_encode(wn_template_layout(back, 0), &first, NULL), WN_OK);
  wn_template_free(back);
  assert_true(first.len > one.len); /* it holds the second layout too */
  wn_buf_free(&first);

  /* Damage: a count of 1 or past the cap, a length past the end, bytes
   * after the last layout, another version, a layout inside a layout. */
  wn_buf bad;
  wn_buf_init(&bad, 0);
  assert_int_equal(wn_buf_append(&bad, two.data, two.len), WN_OK);
  bad.data[5] = 1;
  assert_int_equal(wn_template_decode(bad.data, bad.len, &back, &diag), WN_ECORRUPT);
  bad.data[5] = (char)(WN_TEMPLATE_MAX_LAYOUTS + 1);
  assert_int_equal(wn_template_decode(bad.data, bad.len, &back, &diag), WN_ECORRUPT);
  bad.data[5] = 2;
  assert_int_equal(wn_template_decode(bad.data, bad.len - 1, &back, &diag), WN_ECORRUPT);
  assert_int_equal(wn_buf_append(&bad, "x", 1), WN_OK);
  wn_diag_clear(&diag);
  assert_int_equal(wn_template_decode(bad.data, bad.len, &back, &diag), WN_ECORRUPT);
  assert_non_null(strstr(diag.msg, "trailing"));
  bad.len--;
  bad.data[4] = 9;
  assert_int_equal(wn_template_decode(bad.data, bad.len, &back, &diag), WN_EVERSION);
  assert_null(back);
  wn_buf_free(&bad);

  /* At most WN_TEMPLATE_MAX_LAYOUTS. */
  for (uint32_t k = wn_template_layout_count(tpl); k < WN_TEMPLATE_MAX_LAYOUTS; k++)
    assert_int_equal(wn_template_add_layout(tpl, learn(fronts, 3)), WN_OK);
  assert_int_equal(wn_template_add_layout(tpl, third), WN_EINVAL);
  wn_template_free(third);
  wn_buf_reset(&two);
  assert_int_equal(wn_template_encode(tpl, &two, NULL), WN_OK);
  assert_int_equal(wn_template_decode(two.data, two.len, &back, &diag), WN_OK);
  assert_int_equal(wn_template_layout_count(back), WN_TEMPLATE_MAX_LAYOUTS);
  wn_template_free(back);
  wn_buf_free(&one);
  wn_buf_free(&two);
  wn_template_free(tpl);
}

static void test_match(void **state) {
  (void)state;
  wn_template *tpl = learn(site, 3);
  wn_dom_page *page = wn_test_parse(
      "<body><div id=nav><a href=/>Home</a><a href=/w>World</a></div>"
      "<div id=main><h1>Fourth</h1><p>Delta.</p></div><div id=foot>(c) Site</div></body>");
  uint32_t count = 0, pairs = 0;
  const wn_dom_node *n = wn_dom_nodes(page, &count);
  uint32_t *map = malloc(count * sizeof *map);
  assert_int_equal(wn_template_match(tpl, page, map, &pairs), WN_OK);
  assert_true(pairs > 0);
  assert_int_not_equal(map[wn_test_find(page, "#text", "Home")], WN_DOM_NONE);
  assert_int_not_equal(map[wn_test_find(page, "#text", "(c) Site")], WN_DOM_NONE);
  assert_int_not_equal(map[wn_test_find(page, "div", "main")], WN_DOM_NONE);
  assert_int_equal(map[wn_test_find(page, "#text", "Fourth")], WN_DOM_NONE);
  assert_int_equal(map[wn_test_find(page, "#text", "Delta.")], WN_DOM_NONE);
  (void)n;
  free(map);
  wn_dom_free(page);
  wn_template_free(tpl);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_align_lcs),
      cmocka_unit_test(test_encode_decode),
      cmocka_unit_test(test_layouts),
      cmocka_unit_test(test_match),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
