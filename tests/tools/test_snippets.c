/*
 * tests/tools/test_snippets.c: winnow-snippets, the program (WN_BINARY_DIR
 * /winnow-snippets, run with fork + exec), on the hand-made snippet corpus
 * tests/fixtures/snippets, whose answer is worked out by hand:
 *
 *   1a2b3c4d5e6f7a8b  fold A  an article with a nav and a footer. with: two
 *                     sentences of the article (one written with doubled
 *                     spaces, a newline and a trailing space) TP, one that is
 *                     on no part of the page FN; without: the nav's and the
 *                     footer's text TN, a phrase of the article FP.
 *                     tp 2 fn 1 fp 1 tn 2
 *   quiet-label       fold B (not hex: 'q' is odd), url "hard::..." (a label,
 *                     sent without a URL): a recipe beside a link list. with:
 *                     three sentences, one written with U+2009 and U+3000,
 *                     one with a leading U+00A0, all TP; without: a sentence
 *                     of the recipe FP, a phrase on no part of the page TN.
 *                     tp 3 fn 0 fp 1 tn 1
 *   f00d000000000000  fold B, an empty body: empty output. tp 0 fn 2 fp 0 tn 1
 *   0000000000000bad  fold A, listed but no html file: reported, scored as
 *                     empty output. tp 0 fn 1 fp 0 tn 1
 *
 * all: tp 5 fn 4 fp 2 tn 5, 2 empty; A: 2 2 1 3, 1 empty; B: 3 2 1 2, 1
 * empty. Then bad corpora: each a clear message and exit 1 (2 for usage).
 */
#include "wn_test.h"
#include "wn_run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#define CORPUS WN_FIXTURES "/snippets"

static const char *g_tool = WN_BINARY_DIR "/winnow-snippets";
static char g_tmp[PATH_MAX];
static int g_seq;

/* A fresh path in the temp dir. */
static void wn_fresh(char *out, const char *what) {
  int n = snprintf(out, PATH_MAX, "%s/%s-%d", g_tmp, what, ++g_seq);
  assert_true(n > 0 && n < PATH_MAX);
}

static void wn_run_args(wn_run *r, const char *const *args) {
  wn_test_run(r, g_tmp, NULL, 0, g_tool, args);
}

#define RUN(r, ...) wn_run_args((r), (const char *const[]){__VA_ARGS__, NULL})

static void wn_expect_contains(const char *hay, const char *needle) {
  if (!strstr(hay, needle))
    fail_msg("expected to find \"%s\" in:\n%s", needle, hay);
}

static json_t *wn_parse(const wn_run *r) {
  json_error_t jerr;
  json_t *root = json_loads(r->out, 0, &jerr);
  if (!root)
    fail_msg("not JSON (%s): %s\nstderr: %s", jerr.text, r->out, r->err);
  return root;
}

static size_t wn_jsize(const json_t *obj, const char *key) {
  json_t *v = json_object_get(obj, key);
  if (!json_is_integer(v))
    fail_msg("no integer \"%s\"", key);
  return (size_t)json_integer_value(v);
}

/* The counts of one figure block ("all", "fold_A", "fold_B"). */
static void wn_expect_counts(const json_t *root, const char *block, size_t pages, size_t tp,
                             size_t fn, size_t fp, size_t tn, size_t empty) {
  json_t *c = json_object_get(root, block);
  if (!json_is_object(c))
    fail_msg("no \"%s\" block", block);
  assert_int_equal(wn_jsize(c, "pages"), pages);
  assert_int_equal(wn_jsize(c, "tp"), tp);
  assert_int_equal(wn_jsize(c, "fn"), fn);
  assert_int_equal(wn_jsize(c, "fp"), fp);
  assert_int_equal(wn_jsize(c, "tn"), tn);
  assert_int_equal(wn_jsize(c, "empty"), empty);
  double p = (double)tp / (double)(tp + fp), rc = (double)tp / (double)(tp + fn);
  double acc = (double)(tp + tn) / (double)(tp + fn + fp + tn);
  double f1 = 2.0 * (double)tp / (double)(2 * tp + fp + fn);
  assert_float_equal(json_real_value(json_object_get(c, "precision")), p, 1e-5);
  assert_float_equal(json_real_value(json_object_get(c, "recall")), rc, 1e-5);
  assert_float_equal(json_real_value(json_object_get(c, "accuracy")), acc, 1e-5);
  assert_float_equal(json_real_value(json_object_get(c, "f1")), f1, 1e-5);
}

static void test_counts(void **state) {
  (void)state;
  wn_run r;
  RUN(&r, "--json", "--repeat", "1", CORPUS);
  if (r.status != 0)
    fail_msg("exit %d: %s", r.status, r.err);
  json_t *root = wn_parse(&r);
  wn_expect_counts(root, "all", 4, 5, 4, 2, 5, 2);
  wn_expect_counts(root, "fold_A", 2, 2, 2, 1, 3, 1);
  wn_expect_counts(root, "fold_B", 2, 3, 2, 1, 2, 1);
  /* The empty pages, in id order: the unreadable one failed, the empty
   * one did not; both are on stderr with why. */
  json_t *empty = json_object_get(root, "empty_pages");
  assert_int_equal(json_array_size(empty), 2);
  assert_string_equal(json_string_value(json_object_get(json_array_get(empty, 0), "id")),
                      "0000000000000bad");
  assert_true(json_is_true(json_object_get(json_array_get(empty, 0), "failed")));
  assert_string_equal(json_string_value(json_object_get(json_array_get(empty, 1), "id")),
                      "f00d000000000000");
  assert_true(json_is_false(json_object_get(json_array_get(empty, 1), "failed")));
  wn_expect_contains(r.err, "empty output: 0000000000000bad (fold A): read: ");
  wn_expect_contains(r.err, "empty output: f00d000000000000 (fold B): no text extracted");
  /* Both timing loops ran over the 3 pages that could be read. */
  json_t *thr = json_object_get(root, "throughput");
  assert_int_equal(wn_jsize(json_object_get(thr, "parse"), "pages"), 3);
  assert_int_equal(wn_jsize(json_object_get(thr, "detect"), "pages"), 3);
  json_decref(root);
  wn_run_free(&r);
}

static const json_t *wn_page(const json_t *pages, const char *id) {
  for (size_t i = 0; i < json_array_size(pages); i++) {
    const json_t *pg = json_array_get(pages, i);
    if (strcmp(json_string_value(json_object_get(pg, "id")), id) == 0)
      return pg;
  }
  fail_msg("no page %s", id);
  return NULL;
}

static void test_per_page(void **state) {
  (void)state;
  wn_run r;
  RUN(&r, "--json", "--per-page", "--repeat", "1", CORPUS);
  assert_int_equal(r.status, 0);
  json_t *root = wn_parse(&r);
  json_t *pages = json_object_get(root, "pages");
  assert_int_equal(json_array_size(pages), 4);
  const json_t *news = wn_page(pages, "1a2b3c4d5e6f7a8b");
  assert_string_equal(json_string_value(json_object_get(news, "fold")), "A");
  assert_int_equal(wn_jsize(news, "tp"), 2);
  assert_int_equal(wn_jsize(news, "fn"), 1);
  assert_int_equal(wn_jsize(news, "fp"), 1);
  assert_int_equal(wn_jsize(news, "tn"), 2);
  json_t *missed = json_object_get(news, "missed_with");
  json_t *found = json_object_get(news, "found_without");
  assert_int_equal(json_array_size(missed), 1);
  assert_string_equal(json_string_value(json_array_get(missed, 0)),
                      "a sentence that appears nowhere on the page");
  assert_int_equal(json_array_size(found), 1);
  assert_string_equal(json_string_value(json_array_get(found, 0)), "the old town hall");
  const json_t *recipe = wn_page(pages, "quiet-label");
  assert_string_equal(json_string_value(json_object_get(recipe, "fold")), "B");
  assert_true(json_is_null(json_object_get(recipe, "url"))); /* a label: no URL */
  assert_int_equal(wn_jsize(recipe, "tp"), 3);
  assert_int_equal(json_array_size(json_object_get(recipe, "missed_with")), 0);
  found = json_object_get(recipe, "found_without");
  assert_int_equal(json_array_size(found), 1);
  assert_string_equal(json_string_value(json_array_get(found, 0)),
                      "Mix the starter with warm water");
  assert_true(json_is_true(json_object_get(wn_page(pages, "f00d000000000000"), "empty")));
  json_decref(root);
  wn_run_free(&r);
}

static void test_fold_and_text(void **state) {
  (void)state;
  wn_run r;
  RUN(&r, "--json", "--fold", "B", "--repeat", "1", CORPUS);
  assert_int_equal(r.status, 0);
  json_t *root = wn_parse(&r);
  wn_expect_counts(root, "all", 2, 3, 2, 1, 2, 1);
  wn_expect_counts(root, "fold_B", 2, 3, 2, 1, 2, 1);
  assert_null(json_object_get(root, "fold_A"));
  json_decref(root);
  wn_run_free(&r);

  RUN(&r, "--per-page", "--repeat", "1", CORPUS);
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "all    pages 4  P 0.7143  R 0.5556  acc 0.6250  F1 0.6250  empty 2");
  wn_expect_contains(r.out, "fold A pages 2  P 0.6667  R 0.5000  acc 0.6250  F1 0.5714  empty 1");
  wn_expect_contains(r.out, "fold B pages 2  P 0.7500  R 0.6000  acc 0.6250  F1 0.6667  empty 1");
  wn_expect_contains(r.out, "1a2b3c4d5e6f7a8b\tA\t2\t1\t1\t2\t0\tmissed: \"a sentence that "
                            "appears nowhere on the page\"\tfound: \"the old town hall\"\n");
  wn_expect_contains(r.out, "speed  parse ");
  wn_run_free(&r);
}

/* A corpus dir in the temp dir whose snippets.json is json. */
static void wn_corpus(char *dir, const char *json) {
  char path[PATH_MAX];
  wn_fresh(dir, "corpus");
  assert_int_equal(mkdir(dir, 0700), 0);
  int n = snprintf(path, sizeof path, "%s/snippets.json", dir);
  assert_true(n > 0 && n < (int)sizeof path);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fputs(json, f) >= 0, 1);
  assert_int_equal(fclose(f), 0);
}

static void wn_expect_bad(const char *json, const char *message) {
  char dir[PATH_MAX];
  wn_run r;
  wn_corpus(dir, json);
  RUN(&r, "--repeat", "1", dir);
  assert_int_equal(r.status, 1);
  assert_string_equal(r.out, "");
  wn_expect_contains(r.err, message);
  wn_run_free(&r);
}

static void test_bad_corpus(void **state) {
  (void)state;
  wn_expect_bad("{\"../up\": {\"url\": \"x\", \"with\": [\"a\"], \"without\": [\"b\"]}}",
                "id \"../up\" is not a safe file name");
  wn_expect_bad("{\".hidden\": {\"url\": \"x\", \"with\": [\"a\"], \"without\": [\"b\"]}}",
                "is not a safe file name");
  wn_expect_bad("{\"a1\": {\"url\": \"x\", \"with\": [\" \\u00a0\\n\"], \"without\": []}}",
                "page a1: \"with\" item 0: empty once white space is collapsed");
  wn_expect_bad("{\"a1\": {\"url\": \"x\", \"with\": [1], \"without\": []}}",
                "\"with\" item 0: not a string");
  wn_expect_bad("{\"a1\": {\"with\": [\"a\"], \"without\": []}}", "page a1: expected {\"url\"");
  wn_expect_bad("{\"a1\": {\"url\": \"x\", \"with\": [\"a\"], \"without\": [\"b\"]},"
                " \"a1\": {\"url\": \"y\", \"with\": [\"a\"], \"without\": [\"b\"]}}",
                "snippets.json:1:");
  wn_expect_bad("[1, 2]", "expected an object of 1 to");
  wn_expect_bad("{}", "expected an object of 1 to");
  {
    /* A NUL byte: refused by name before the JSON parser sees it. */
    char dir[PATH_MAX], path[PATH_MAX];
    wn_corpus(dir, "");
    int n = snprintf(path, sizeof path, "%s/snippets.json", dir);
    assert_true(n > 0 && n < (int)sizeof path);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    static const char nul[] = "{\"a1\": {\"url\": \"x\0\"}}";
    assert_int_equal(fwrite(nul, 1, sizeof nul - 1, f), sizeof nul - 1);
    assert_int_equal(fclose(f), 0);
    wn_run rn;
    RUN(&rn, "--repeat", "1", dir);
    assert_int_equal(rn.status, 1);
    wn_expect_contains(rn.err, "snippets.json: holds a NUL byte");
    wn_run_free(&rn);
  }

  wn_run r;
  RUN(&r, WN_FIXTURES "/no-such-corpus");
  assert_int_equal(r.status, 1);
  wn_expect_contains(r.err, "corpus directory");
  wn_run_free(&r);
  RUN(&r, "--fold", "C", CORPUS);
  assert_int_equal(r.status, 2);
  wn_expect_contains(r.err, "--fold needs A or B");
  wn_run_free(&r);
  RUN(&r, "--repeat", "0", CORPUS);
  assert_int_equal(r.status, 2);
  wn_run_free(&r);
  /* --steps: a bit no step has is a usage error. */
  RUN(&r, "--steps", "4096", CORPUS);
  assert_int_equal(r.status, 2);
  wn_expect_contains(r.err, "--steps needs");
  wn_run_free(&r);
}

/* An ablation's steps reach the detector (wn_detector_set_steps): the
 * papers' methods as stated, every step on, run and score the corpus. */
static void test_steps(void **state) {
  (void)state;
  static const char *const steps[] = {"paper", "4095", "default"};
  for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
    wn_run r;
    RUN(&r, "--json", "--steps", steps[i], "--repeat", "1", CORPUS);
    if (r.status != 0)
      fail_msg("--steps %s: exit %d: %s", steps[i], r.status, r.err);
    json_t *root = wn_parse(&r);
    assert_non_null(json_object_get(root, "all"));
    json_decref(root);
    wn_run_free(&r);
  }
}

static int group_setup(void **state) {
  (void)state;
  if (wn_test_temp_dir(g_tmp, sizeof g_tmp, "wn-snippets") != 0)
    return -1;
  if (access(g_tool, X_OK) != 0) {
    fprintf(stderr, "no %s: build the winnow-snippets target\n", g_tool);
    return -1;
  }
  return 0;
}

/* The temp dir holds only corpus-N/snippets.json (the runs' output files
 * are unlinked as they are read). */
static int group_teardown(void **state) {
  (void)state;
  char path[PATH_MAX];
  for (int i = 1; i <= g_seq; i++) {
    int n = snprintf(path, sizeof path, "%s/corpus-%d/snippets.json", g_tmp, i);
    if (n > 0 && (size_t)n < sizeof path)
      unlink(path);
    n = snprintf(path, sizeof path, "%s/corpus-%d", g_tmp, i);
    if (n > 0 && (size_t)n < sizeof path)
      rmdir(path);
  }
  rmdir(g_tmp);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_counts),
      cmocka_unit_test(test_per_page),
      cmocka_unit_test(test_fold_and_text),
      cmocka_unit_test(test_bad_corpus),
      cmocka_unit_test(test_steps),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
