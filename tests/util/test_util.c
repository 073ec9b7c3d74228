/* tests/util/test_util.c: the lowest module's helpers, table by table:
 * number parsing, ASCII case, hex digits, the little-endian and varint
 * codecs (every truncation), the bounded buffer, the arena and its cap. */
#include "wn_test.h"

#include <stdlib.h>

#include "util/util.h"

static void test_parse_u32(void **state) {
  (void)state;
  static const struct {
    const char *s;
    uint32_t min, max;
    int ok;
    uint32_t want;
  } cases[] = {
      {"0", 0, 10, 1, 0},          {"10", 0, 10, 1, 10},        {"11", 0, 10, 0, 0},
      {"4294967295", 0, UINT32_MAX, 1, UINT32_MAX},           {"4294967296", 0, UINT32_MAX, 0, 0},
      {"99999999999999999999", 0, UINT32_MAX, 0, 0},          {"", 0, 10, 0, 0},
      {" 1", 0, 10, 0, 0},         {"1 ", 0, 10, 0, 0},         {"+1", 0, 10, 0, 0},
      {"-1", 0, 10, 0, 0},         {"1x", 0, 10, 0, 0},         {"0x10", 0, 100, 0, 0},
      {"007", 0, 10, 1, 7},        {"1", 2, 10, 0, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    uint32_t v = 12345;
    int rc = wn_parse_u32(cases[i].s, cases[i].min, cases[i].max, &v);
    if ((rc == 0) != cases[i].ok || (cases[i].ok && v != cases[i].want) ||
        (!cases[i].ok && v != 12345))
      fail_msg("\"%s\" [%u, %u]: rc %d, value %u", cases[i].s, cases[i].min, cases[i].max, rc, v);
  }
  uint32_t v = 0;
  assert_int_equal(wn_parse_u32(NULL, 0, 10, &v), -1);
}

static void test_ascii(void **state) {
  (void)state;
  static const struct {
    const char *s, *lit;
    int equal;
  } cases[] = {
      {"Content-Type", "content-type", 1}, {"UTF-8", "utf-8", 1}, {"utf-8", "UTF-8", 1},
      {"utf-8x", "utf-8", 0},             {"utf", "utf-8", 0},    {"", "", 1},
      {"\xc3\x89", "\xc3\xa9", 0},        /* É is not é to an ASCII compare */
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    if (wn_ascii_equal_ci(cases[i].s, strlen(cases[i].s), cases[i].lit) != cases[i].equal)
      fail_msg("\"%s\" vs \"%s\"", cases[i].s, cases[i].lit);
  assert_int_equal(wn_ascii_lower('Q'), 'q');
  assert_int_equal(wn_ascii_lower('['), '[');
  assert_int_equal(wn_hex_digit('0'), 0);
  assert_int_equal(wn_hex_digit('f'), 15);
  assert_int_equal(wn_hex_digit('F'), 15);
  assert_int_equal(wn_hex_digit('g'), -1);
  char *d = wn_strdup("copy");
  assert_string_equal(d, "copy");
  free(d);
  assert_null(wn_strdup(NULL));
  uint32_t u[] = {3, 1, UINT32_MAX, 0, 2};
  qsort(u, 5, sizeof *u, wn_u32_cmp);
  assert_true(u[0] == 0 && u[1] == 1 && u[2] == 2 && u[3] == 3 && u[4] == UINT32_MAX);
}

/* Every value round-trips; every truncation of its bytes is refused. */
static void test_codecs(void **state) {
  (void)state;
  static const uint32_t v32[] = {0, 1, 127, 128, 16383, 16384, 0x0fffffffu, UINT32_MAX};
  for (size_t i = 0; i < sizeof v32 / sizeof *v32; i++) {
    wn_buf b;
    wn_buf_init(&b, 0);
    assert_int_equal(wn_varint_put(&b, v32[i]), WN_OK);
    assert_true(b.len >= 1 && b.len <= 5);
    for (size_t cut = 0; cut <= b.len; cut++) {
      wn_reader r = {(const unsigned char *)b.data, cut};
      uint32_t got = 0;
      int ok = wn_varint_get(&r, &got);
      if (cut < b.len)
        assert_int_equal(ok, 0);
      else
        assert_true(ok == 1 && got == v32[i] && r.left == 0);
    }
    wn_buf_reset(&b);
    assert_int_equal(wn_le32_put(&b, v32[i]), WN_OK);
    assert_int_equal(b.len, 4);
    assert_int_equal(wn_le32_get((const unsigned char *)b.data), v32[i]);
    wn_buf_free(&b);
  }
  /* A sixth varint byte, or a fifth past 32 bits, is malformed. */
  const unsigned char too_long[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
  wn_reader r = {too_long, sizeof too_long};
  uint32_t got;
  assert_int_equal(wn_varint_get(&r, &got), 0);
  const unsigned char too_big[] = {0xff, 0xff, 0xff, 0xff, 0x7f};
  r = (wn_reader){too_big, sizeof too_big};
  assert_int_equal(wn_varint_get(&r, &got), 0);

  static const uint64_t v64[] = {0, 1, UINT64_C(0x0102030405060708), UINT64_MAX};
  for (size_t i = 0; i < sizeof v64 / sizeof *v64; i++) {
    unsigned char p[8];
    wn_le64_write(p, v64[i]);
    assert_true(wn_le64_get(p) == v64[i]);
  }
  unsigned char p[8];
  wn_le64_write(p, UINT64_C(0x0102030405060708));
  assert_int_equal(p[0], 0x08); /* little-endian on every host */
  assert_int_equal(p[7], 0x01);
  assert_true(wn_i64_from_u64(UINT64_MAX) == -1);
  assert_true(wn_i64_from_u64(UINT64_C(1) << 63) == INT64_MIN);
  assert_true(wn_i64_from_u64(42) == 42);

  const unsigned char rec[] = {1, 2, 3};
  r = (wn_reader){rec, 3};
  const unsigned char *at = NULL;
  assert_int_equal(wn_reader_take(&r, 2, &at), 1);
  assert_true(at == rec && r.left == 1);
  assert_int_equal(wn_reader_take(&r, 2, &at), 0);
}

static void test_buf_cap(void **state) {
  (void)state;
  wn_buf b;
  wn_buf_init(&b, 8);
  assert_int_equal(wn_buf_append_str(&b, "12345678"), WN_OK);
  assert_int_equal(wn_buf_append_char(&b, '9'), WN_ETOOBIG);
  assert_int_equal(b.len, 8); /* unchanged by the refused append */
  wn_buf_reset(&b);
  assert_int_equal(b.len, 0);
  assert_int_equal(wn_buf_printf(&b, "%d-%s", 42, "x"), WN_OK);
  assert_memory_equal(b.data, "42-x", 4);
  wn_buf_free(&b);
}

static void test_arena(void **state) {
  (void)state;
  wn_arena *a = wn_arena_create(1024);
  assert_non_null(a);
  void *p = wn_arena_alloc(a, 3);
  void *q = wn_arena_alloc(a, 5);
  assert_non_null(p);
  assert_non_null(q);
  assert_int_equal((uintptr_t)q % 16, 0);
  unsigned char *z = wn_arena_calloc(a, 10, 4);
  for (size_t i = 0; i < 40; i++)
    assert_int_equal(z[i], 0);
  char *s = wn_arena_strndup(a, "abcdef", 3);
  assert_string_equal(s, "abc");
  assert_true(wn_arena_used(a) >= 3 + 5 + 40 + 4);
  assert_null(wn_arena_alloc(a, 2048)); /* past the cap */
  assert_null(wn_arena_calloc(a, SIZE_MAX / 2, 4)); /* the product overflows */
  wn_arena_destroy(a);
  assert_true(wn_hash_bytes(WN_HASH_SEED, "a", 1) != wn_hash_bytes(WN_HASH_SEED, "b", 1));
  assert_true(wn_hash_bytes(WN_HASH_SEED, "", 0) == WN_HASH_SEED);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_u32), cmocka_unit_test(test_ascii),
      cmocka_unit_test(test_codecs),    cmocka_unit_test(test_buf_cap),
      cmocka_unit_test(test_arena),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
