/* tests/tools/test_score.c: the scorers every accuracy figure is read
 * with (tools/score.c): word tokens, the bag F1, white space as the
 * snippet benchmark collapses it, and snippet matching. */
#include "wn_test.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>

#include "score.h"

/* The bag of text, its words joined by spaces in sorted order. */
static char *bag(const char *text) {
  wn_score_tokens t;
  wn_score_tokens_init(&t);
  assert_int_equal(wn_score_tokenize(text, strlen(text), &t), WN_OK);
  wn_buf b;
  wn_buf_init(&b, 0);
  for (size_t i = 0; i < t.count; i++) {
    if (i)
      assert_int_equal(wn_buf_append_char(&b, ' '), WN_OK);
    assert_int_equal(wn_buf_append_str(&b, t.sorted[i]), WN_OK);
  }
  assert_int_equal(wn_buf_append_char(&b, '\0'), WN_OK);
  wn_score_tokens_free(&t);
  return b.data;
}

static void test_tokens(void **state) {
  (void)state;
  static const struct {
    const char *text, *want;
  } cases[] = {
      {"", ""},
      {"  \n\t ", ""},
      {"Hello, World!", "hello world"},
      {"it's e-mail", "e it mail s"},             /* punctuation separates */
      {"Ünïcödé ÉTÉ", "été ünïcödé"},             /* lower-cased beyond ASCII */
      {"a\xff" "b", "a b"},                        /* invalid UTF-8 separates */
      {"x\xe2\x80\x94y 2026", "2026 x y"},         /* an em dash; digits are words */
      {"b a b", "a b b"},                          /* a bag: repeats count */
      {"東京 漢字", "東京 漢字"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char *got = bag(cases[i].text);
    if (strcmp(got, cases[i].want) != 0)
      fail_msg("case %zu: \"%s\" -> \"%s\", want \"%s\"", i, cases[i].text, got, cases[i].want);
    free(got);
  }
}

static void test_f1(void **state) {
  (void)state;
  static const struct {
    const char *out, *gold;
    double p, r, f1;
  } cases[] = {
      {"the cat sat", "the cat sat", 1, 1, 1},
      {"", "", 1, 1, 1},                    /* nothing to find, nothing found */
      {"", "some gold", 0, 0, 0},
      {"some output", "", 0, 0, 0},
      {"a b c d", "a b", 0.5, 1, 2.0 / 3},
      {"a a a", "a", 1.0 / 3, 1, 0.5},      /* a multiset: one a in common */
      {"x y", "z w", 0, 0, 0},
      {"The CAT", "the cat.", 1, 1, 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    wn_score s;
    assert_int_equal(wn_score_texts(cases[i].out, strlen(cases[i].out), cases[i].gold,
                                    strlen(cases[i].gold), &s),
                     WN_OK);
    if (fabs(s.precision - cases[i].p) > 1e-9 || fabs(s.recall - cases[i].r) > 1e-9 ||
        fabs(s.f1 - cases[i].f1) > 1e-9)
      fail_msg("case %zu: P %f R %f F1 %f", i, s.precision, s.recall, s.f1);
  }
}

static void test_collapse_and_contains(void **state) {
  (void)state;
  static const struct {
    const char *text, *want;
  } cases[] = {
      {"", ""},
      {"  a  b\n\tc  ", "a b c"},
      {"a\xc2\xa0" "b", "a b"},           /* NO-BREAK SPACE */
      {"a\xe3\x80\x80" "b", "a b"},       /* IDEOGRAPHIC SPACE */
      {"a\xe2\x80\x8b" "b", "a\xe2\x80\x8b" "b"}, /* ZERO WIDTH SPACE is no space to Python */
      {"a\x1c" "b", "a b"},               /* Python's isspace() takes the separators */
  };
  wn_buf out;
  wn_buf_init(&out, 0);
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    assert_int_equal(wn_score_collapse(cases[i].text, strlen(cases[i].text), &out), WN_OK);
    if (out.len != strlen(cases[i].want) ||
        (out.len && memcmp(out.data, cases[i].want, out.len) != 0))
      fail_msg("case %zu: got \"%.*s\"", i, (int)out.len, out.data ? out.data : "");
  }
  wn_buf_free(&out);
  const char hay[] = "one two\0three";
  assert_true(wn_score_contains(hay, sizeof hay - 1, "two", 3));
  assert_true(wn_score_contains(hay, sizeof hay - 1, "three", 5)); /* past a NUL */
  assert_true(wn_score_contains(hay, sizeof hay - 1, "", 0));
  assert_false(wn_score_contains(hay, sizeof hay - 1, "four", 4));
  assert_false(wn_score_contains("ab", 2, "abc", 3));
}

int main(void) {
  setlocale(LC_CTYPE, "C.UTF-8");
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tokens),
      cmocka_unit_test(test_f1),
      cmocka_unit_test(test_collapse_and_contains),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
