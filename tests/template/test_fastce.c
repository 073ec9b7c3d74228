/* tests/template/test_fastce.c: FastCE's block partition, the cosine test
 * and the template record (template/fastce_template.h). */
#include "wn_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "template/fastce_template.h"

/* The paper's Fig. 1, shortened, after a navigation box, with a div for
 * its sub-block (a span is no block of ours: template/fastce_template.h). Worked by
 * hand: blocks (document order) html, body, div#nav, div, div; paths
 * "html", "html.body", "html.body.div" (twice: paths are not unique,
 * Sec. III), "html.body.div.div". Own content: div#nav: one link and the
 * term "home"; the outer div: on sept 27 the us passed it (the span's
 * "US" is its own; the inner div's words are the inner div's, Fig. 3);
 * the inner div: house of representatives. */
static const char *fig1 = "<html><body><div id=nav><a href=\"/\">Home</a></div>"
                          "<div>On Sept. 27, the <span>US</span> <div>House of "
                          "Representatives</div> passed it.</div></body></html>";

static void test_partition(void **state) {
  (void)state;
  wn_dom_page *page = wn_test_parse(fig1);
  wn_arena *arena = wn_arena_create(0);
  wn_fastce_blocks bl;
  assert_int_equal(wn_fastce_partition(page, arena, &bl, NULL), WN_OK);
  assert_int_equal(bl.n, 5);
  const char *paths[5] = {"html", "html.body", "html.body.div", "html.body.div",
                          "html.body.div.div"};
  const uint32_t terms[5] = {0, 0, 2, 7, 3};
  const uint32_t parent[5] = {WN_DOM_NONE, 0, 1, 1, 3};
  wn_buf b;
  wn_buf_init(&b, 4096);
  for (uint32_t i = 0; i < 5; i++) {
    wn_buf_reset(&b);
    assert_int_equal(wn_fastce_path_string(page, &bl, i, &b), WN_OK);
    assert_int_equal(b.len, strlen(paths[i]));
    assert_memory_equal(b.data, paths[i], b.len);
    assert_true(bl.blocks[i].path == wn_hash_bytes(WN_HASH_SEED, paths[i], strlen(paths[i])));
    assert_int_equal(bl.blocks[i].n_terms, terms[i]);
    assert_int_equal(bl.blocks[i].parent, parent[i]);
  }
  assert_int_equal(bl.blocks[1].n_sub, 2);
  assert_int_equal(bl.blocks[3].n_sub, 1);
  /* The nav box: one link dimension, counted once, and one term. */
  const wn_fastce_term *t = bl.terms + bl.blocks[2].term_first;
  assert_int_equal(t[0].hash, WN_FASTCE_FEATURE_LINK);
  assert_int_equal(t[0].count, 1);
  /* Text nodes belong to their block: "House of Representatives" to the
   * inner div, "passed it." and the span's "US" to the outer one. */
  assert_int_equal(bl.block_of[wn_test_find(page, "#text", "House of Representatives")], 4);
  assert_int_equal(bl.block_of[wn_test_find(page, "#text", "passed it.")], 3);
  assert_int_equal(bl.block_of[wn_test_find(page, "#text", "US")], 3);
  assert_int_equal(bl.block_of[wn_test_find(page, "span", NULL)], 3);
  wn_buf_free(&b);
  wn_arena_destroy(arena);
  wn_dom_free(page);
}

static void test_cosine(void **state) {
  (void)state;
  const wn_fastce_term a[2] = {{20, 1}, {30, 1}}, b[1] = {{20, 1}}, c[1] = {{40, 3}};
  assert_true(fabs(wn_fastce_cosine(a, 2, b, 1) - 1.0 / sqrt(2.0)) < 1e-12);
  assert_true(fabs(wn_fastce_cosine(a, 2, a, 2) - 1.0) < 1e-12);
  assert_true(wn_fastce_cosine(a, 2, c, 1) == 0.0);
  assert_true(wn_fastce_cosine(a, 0, a, 2) == 0.0);
  /* Counts weigh: (2,1) against (1,1) is 3 / sqrt(5 * 2). */
  const wn_fastce_term d[2] = {{20, 2}, {30, 1}};
  assert_true(fabs(wn_fastce_cosine(d, 2, a, 2) - 3.0 / sqrt(10.0)) < 1e-12);
}

/* A template of two paths and one stored block (the p of fig1). */
static wn_fastce *wn_small_template(void) {
  wn_dom_page *page = wn_test_parse(fig1);
  wn_arena *arena = wn_arena_create(0);
  wn_fastce_blocks bl;
  assert_int_equal(wn_fastce_partition(page, arena, &bl, NULL), WN_OK);
  wn_fastce *f = wn_fastce_new(3);
  assert_non_null(f);
  assert_int_equal(wn_fastce_add_path(f, "html.body.p", 11), 0);
  assert_int_equal(wn_fastce_add_path(f, "html.body.div.p", 15), 1);
  assert_int_equal(wn_fastce_add_path(f, "html.body.p", 11), 0); /* a second page */
  assert_int_equal(wn_fastce_add_stored(f, 1, bl.terms + bl.blocks[3].term_first,
                                        bl.blocks[3].n_terms, "On Sept. 27", 11),
                   WN_OK);
  assert_int_equal(wn_fastce_finish(f, NULL), WN_OK);
  wn_arena_destroy(arena);
  wn_dom_free(page);
  return f;
}

static void test_record_round_trip(void **state) {
  (void)state;
  wn_fastce *f = wn_small_template();
  /* finish sorts the paths: "html.body.div.p" < "html.body.p". */
  uint32_t pages = 0;
  assert_string_equal(wn_fastce_path(f, 0, &pages), "html.body.div.p");
  assert_int_equal(pages, 1);
  assert_string_equal(wn_fastce_path(f, 1, &pages), "html.body.p");
  assert_int_equal(pages, 2);
  assert_int_equal(wn_fastce_stored_get(f, 0).path, 0);
  wn_buf b;
  wn_buf_init(&b, 1 << 20);
  assert_int_equal(wn_fastce_encode(f, &b, NULL), WN_OK);
  wn_fastce *g = NULL;
  assert_int_equal(wn_fastce_decode(b.data, b.len, &g, NULL), WN_OK);
  assert_int_equal(wn_fastce_path_count(g), 2);
  assert_int_equal(wn_fastce_sample_pages(g), 3);
  assert_string_equal(wn_fastce_path(g, 1, &pages), "html.body.p");
  assert_int_equal(pages, 2);
  assert_int_equal(wn_fastce_find(g, wn_hash_bytes(WN_HASH_SEED, "html.body.p", 11)), 1);
  assert_int_equal(wn_fastce_find(g, wn_hash_bytes(WN_HASH_SEED, "html.body", 9)), WN_DOM_NONE);
  assert_int_equal(wn_fastce_stored_count(g), 1);
  wn_fastce_stored s = wn_fastce_stored_get(f, 0), t = wn_fastce_stored_get(g, 0);
  assert_int_equal(s.n_terms, 7);
  assert_int_equal(t.n_terms, 7);
  assert_memory_equal(s.terms, t.terms, 7 * sizeof *s.terms);
  assert_string_equal(t.sample, "On Sept. 27");
  /* The stored block is like itself on its path, and on no other. */
  assert_true(wn_fastce_is_stored(g, 0, s.terms, s.n_terms, wn_fastce_norm(s.terms, s.n_terms)));
  assert_false(wn_fastce_is_stored(g, 1, s.terms, s.n_terms, wn_fastce_norm(s.terms, s.n_terms)));
  /* Encoding again gives the same bytes. */
  wn_buf c;
  wn_buf_init(&c, 1 << 20);
  assert_int_equal(wn_fastce_encode(g, &c, NULL), WN_OK);
  assert_int_equal(c.len, b.len);
  assert_memory_equal(c.data, b.data, b.len);
  wn_buf_free(&c);
  wn_buf_free(&b);
  wn_fastce_free(g);
  wn_fastce_free(f);
}

/* Format 2 keeps the flags and each path's text bytes; a format 1 record
 * (no flags byte, no text bytes) still decodes, as flags 0 and text 0,
 * and is written back as format 2. */
static void test_record_format2_and_1(void **state) {
  (void)state;
  wn_fastce *f = wn_small_template();
  wn_fastce_set_path_text(f, 1, 300);
  wn_fastce_set_flags(f, WN_FASTCE_FLAG_SITE);
  wn_buf b;
  wn_buf_init(&b, 1 << 20);
  assert_int_equal(wn_fastce_encode(f, &b, NULL), WN_OK);
  assert_int_equal(((const unsigned char *)b.data)[4], 2);
  wn_fastce *g = NULL;
  assert_int_equal(wn_fastce_decode(b.data, b.len, &g, NULL), WN_OK);
  assert_int_equal(wn_fastce_flags(g), WN_FASTCE_FLAG_SITE);
  assert_int_equal(wn_fastce_path_text(g, 0), 0);
  assert_int_equal(wn_fastce_path_text(g, 1), 300);
  wn_fastce_free(g);
  wn_buf_free(&b);
  wn_fastce_free(f);

  /* A format 1 record by hand: one path "html.body.p" on 2 of 2 pages, no
   * stored block. */
  unsigned char v1[64];
  size_t n = 0;
  static const unsigned char head[] = {'W', 'N', 'F', 'C', 1, 2, 0, 0x84, 0x03, 1, 11};
  memcpy(v1, head, sizeof head);
  n = sizeof head;
  memcpy(v1 + n, "html.body.p", 11);
  n += 11;
  v1[n++] = 2; /* pages */
  v1[n++] = 0; /* stored blocks */
  uint32_t crc = (uint32_t)crc32(0L, v1, (uInt)n);
  for (int k = 0; k < 4; k++)
    v1[n++] = (unsigned char)(crc >> (8 * k));
  wn_diag d = {{0}};
  wn_err e = wn_fastce_decode(v1, n, &g, &d);
  if (e)
    fail_msg("%s", wn_diag_message(&d, e));
  uint32_t pages = 0;
  assert_string_equal(wn_fastce_path(g, 0, &pages), "html.body.p");
  assert_int_equal(pages, 2);
  assert_int_equal(wn_fastce_path_text(g, 0), 0);
  assert_int_equal(wn_fastce_flags(g), 0);
  wn_buf_init(&b, 1 << 20);
  assert_int_equal(wn_fastce_encode(g, &b, NULL), WN_OK);
  assert_int_equal(b.len, n + 2); /* the flags byte and one text varint more */
  wn_buf_free(&b);
  wn_fastce_free(g);
  /* Unknown flags are refused. */
  f = wn_small_template();
  wn_buf_init(&b, 1 << 20);
  assert_int_equal(wn_fastce_encode(f, &b, NULL), WN_OK);
  unsigned char *bad = (unsigned char *)b.data;
  bad[9] = 0x80;
  crc = (uint32_t)crc32(0L, bad, (uInt)(b.len - 4));
  for (int k = 0; k < 4; k++)
    bad[b.len - 4 + (size_t)k] = (unsigned char)(crc >> (8 * k));
  assert_int_equal(wn_fastce_decode(b.data, b.len, &g, &d), WN_ECORRUPT);
  assert_non_null(strstr(wn_diag_message(&d, WN_ECORRUPT), "unknown flags"));
  wn_buf_free(&b);
  wn_fastce_free(f);
}

static void test_record_corrupt(void **state) {
  (void)state;
  wn_fastce *f = wn_small_template();
  wn_buf b;
  wn_buf_init(&b, 1 << 20);
  assert_int_equal(wn_fastce_encode(f, &b, NULL), WN_OK);
  unsigned char *copy = malloc(b.len);
  assert_non_null(copy);
  /* Every truncation and every flipped bit fails cleanly. */
  for (size_t n = 0; n < b.len; n++) {
    wn_fastce *g = NULL;
    assert_int_not_equal(wn_fastce_decode(b.data, n, &g, NULL), WN_OK);
    assert_null(g);
  }
  for (size_t i = 0; i < b.len; i++) {
    for (unsigned bit = 0; bit < 8; bit++) {
      memcpy(copy, b.data, b.len);
      copy[i] ^= (unsigned char)(1u << bit);
      wn_fastce *g = NULL;
      wn_diag d = {{0}};
      wn_err e = wn_fastce_decode(copy, b.len, &g, &d);
      assert_int_not_equal(e, WN_OK);
      assert_null(g);
      assert_true(e == WN_ECORRUPT || e == WN_EVERSION);
    }
  }
  /* Another version is WN_EVERSION with a message. */
  memcpy(copy, b.data, b.len);
  copy[4] = 9;
  wn_fastce *g = NULL;
  wn_diag d = {{0}};
  assert_int_equal(wn_fastce_decode(copy, b.len, &g, &d), WN_EVERSION);
  assert_non_null(strstr(wn_diag_message(&d, WN_EVERSION), "version 9"));
  /* A good checksum does not make a lie true: a path count past what the
   * bytes can hold, and paths out of order, are refused. */
  unsigned char lie[] = {'W', 'N', 'F', 'C', 1, 3, 0, 0x84, 0x03, 0xff, 0xff, 0x03, 0, 0, 0, 0};
  uint32_t crc = (uint32_t)crc32(0L, lie, sizeof lie - 4);
  for (int k = 0; k < 4; k++)
    lie[sizeof lie - 4 + (size_t)k] = (unsigned char)(crc >> (8 * k));
  assert_int_equal(wn_fastce_decode(lie, sizeof lie, &g, &d), WN_ECORRUPT);
  unsigned char order[] = {'W', 'N', 'F', 'C', 1, 3, 0, 0x84, 0x03, 2, 1, 'b', 1, 1, 'a', 1, 0,
                           0, 0, 0, 0};
  crc = (uint32_t)crc32(0L, order, sizeof order - 4);
  for (int k = 0; k < 4; k++)
    order[sizeof order - 4 + (size_t)k] = (unsigned char)(crc >> (8 * k));
  assert_int_equal(wn_fastce_decode(order, sizeof order, &g, &d), WN_ECORRUPT);
  order[11] = 'a';
  order[14] = 'b';
  crc = (uint32_t)crc32(0L, order, sizeof order - 4);
  for (int k = 0; k < 4; k++)
    order[sizeof order - 4 + (size_t)k] = (unsigned char)(crc >> (8 * k));
  assert_int_equal(wn_fastce_decode(order, sizeof order, &g, &d), WN_OK); /* in order: fine */
  wn_fastce_free(g);
  free(copy);
  wn_buf_free(&b);
  wn_fastce_free(f);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_partition),
      cmocka_unit_test(test_cosine),
      cmocka_unit_test(test_record_round_trip),
      cmocka_unit_test(test_record_format2_and_1),
      cmocka_unit_test(test_record_corrupt),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
