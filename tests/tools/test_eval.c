/*
 * tests/tools/test_eval.c: winnow-eval (WN_BINARY_DIR/winnow-eval, run with
 * fork + exec) on a corpus laid out as tools/layout-corpora.py lays out
 * WCXB, written into a temp dir: groups named by page type, urls.tsv,
 * snippets.tsv. Worked out by hand:
 *
 *   forum/t1    a QAPage (JSON-LD): page_type forum, right. with: the
 *               question, found; without: the footer's text, not found.
 *   article/a1  a story, no statement, URL path /docs/: page_type
 *               documentation (the path decides), wrong. Its gold holds its
 *               one long line once; the page shows it twice in two boxes of
 *               different classes, and the output once: no repeat.
 *   article/a2  an empty body: an empty output. with: a sentence, missed.
 *
 * JSON: outputs {empty 1, with 2 found 1, without 1 found 0}, page_type
 * {labelled 3, right 1, confusion forum.forum 1, article.documentation 1,
 * article.article 1}. Then a urls.tsv naming no page: a clear message and
 * exit 1.
 */
#include "wn_test.h"
#include "wn_run.h"

#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

static const char *g_tool = WN_BINARY_DIR "/winnow-eval";
static char g_tmp[256];

static void wn_put(const char *dir, const char *rel, const char *text) {
  char path[PATH_MAX];
  int n = snprintf(path, sizeof path, "%s/%s", dir, rel);
  assert_true(n > 0 && (size_t)n < sizeof path);
  for (char *p = path + strlen(dir) + 1; *p; p++)
    if (*p == '/') {
      *p = '\0';
      mkdir(path, 0755);
      *p = '/';
    }
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fputs(text, f) >= 0, 1);
  assert_int_equal(fclose(f), 0);
}

#define LONG_LINE                                                                                \
  "The harbour board voted on Monday to rebuild the north wall of the old harbour before the "   \
  "winter storms return to the coast."

static void wn_corpus(const char *dir) {
  mkdir(dir, 0755);
  wn_put(dir, "pages.tsv", "group\tid\tsplit\narticle\ta1\ttest\narticle\ta2\ttest\nforum\tt1\ttest\n");
  wn_put(dir, "html/forum/t1.html",
         "<html><head><script type=\"application/ld+json\">{\"@type\": \"QAPage\"}</script>"
         "</head><body><main><h1>How do I reseal a window?</h1><p>The old putty is cracked and "
         "the frame lets the rain in after every storm that comes in from the sea.</p></main>"
         "<footer><p>Terms of use and the privacy policy of this forum.</p></footer></body></html>");
  wn_put(dir, "gold/forum/t1.txt",
         "How do I reseal a window?\nThe old putty is cracked and the frame lets the rain in "
         "after every storm that comes in from the sea.\n");
  wn_put(dir, "html/article/a1.html",
         "<html><body><main><h1>Harbour wall</h1><div class=wide><p>" LONG_LINE "</p><p>Work "
         "begins in May.</p></div><div class=narrow><p>" LONG_LINE "</p><p>Work begins in May."
         "</p></div></main></body></html>");
  wn_put(dir, "gold/article/a1.txt", "Harbour wall\n" LONG_LINE "\nWork begins in May.\n");
  wn_put(dir, "html/article/a2.html", "<html><body></body></html>");
  wn_put(dir, "gold/article/a2.txt", "A story that the page never showed.\n");
  wn_put(dir, "urls.tsv",
         "article\ta1\thttps://news.example/docs/harbour\narticle\ta2\thttps://news.example/"
         "a2\nforum\tt1\thttps://ask.example/q/1\n");
  wn_put(dir, "snippets.tsv",
         "article\ta2\twith\tA story that the page never showed.\nforum\tt1\twith\tThe old "
         "putty is cracked\nforum\tt1\twithout\tTerms of use and the privacy policy\n");
}

static json_int_t wn_int(json_t *o, const char *a, const char *b) {
  json_t *v = json_object_get(json_object_get(o, a), b);
  if (!json_is_integer(v))
    fail_msg("no integer %s.%s", a, b);
  return json_integer_value(v);
}

static void test_wcxb_layout(void **state) {
  (void)state;
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s/corpus", g_tmp);
  wn_corpus(dir);
  wn_run r;
  wn_test_run(&r, g_tmp, NULL, 0, g_tool,
              (const char *const[]){"--method", "danag", "--repeat", "1", "--json", dir, NULL});
  if (r.status != 0)
    fail_msg("exit %d: %s", r.status, r.err);
  json_t *root = json_loads(r.out, 0, NULL);
  assert_non_null(root);
  assert_int_equal(wn_int(root, "outputs", "empty"), 1);
  assert_int_equal(wn_int(root, "outputs", "repeating_a_line"), 0);
  assert_int_equal(wn_int(root, "outputs", "repeating_a_gold_line"), 0);
  assert_int_equal(wn_int(root, "outputs", "with_snippets"), 2);
  assert_int_equal(wn_int(root, "outputs", "with_found"), 1);
  assert_int_equal(wn_int(root, "outputs", "without_snippets"), 1);
  assert_int_equal(wn_int(root, "outputs", "without_found"), 0);
  assert_int_equal(wn_int(root, "page_type", "labelled"), 3);
  assert_int_equal(wn_int(root, "page_type", "right"), 2);
  json_t *conf = json_object_get(json_object_get(root, "page_type"), "confusion");
  assert_int_equal(wn_int(conf, "forum", "forum"), 1);
  assert_int_equal(wn_int(conf, "article", "documentation"), 1);
  assert_int_equal(wn_int(conf, "article", "article"), 1);
  json_decref(root);
  wn_run_free(&r);
  /* The text report says the same. */
  wn_test_run(&r, g_tmp, NULL, 0, g_tool,
              (const char *const[]){"--method", "danag", "--repeat", "1", dir, NULL});
  assert_int_equal(r.status, 0);
  if (!strstr(r.out, "empty outputs: 1\n") ||
      !strstr(r.out, "page_type against the groups' labels: 2 of 3 right"))
    fail_msg("report:\n%s", r.out);
  wn_run_free(&r);
  /* A urls.tsv line naming no page of pages.tsv. */
  wn_put(dir, "urls.tsv", "article\tnope\thttps://news.example/x\n");
  wn_test_run(&r, g_tmp, NULL, 0, g_tool,
              (const char *const[]){"--method", "danag", "--repeat", "1", dir, NULL});
  assert_int_equal(r.status, 1);
  if (!strstr(r.err, "urls.tsv:1: no page article/nope"))
    fail_msg("stderr:\n%s", r.err);
  wn_run_free(&r);
}

/* A site whose sample pages share no layout learns no template; its test
 * page is served as winnow detect serves it, by the single-page method,
 * and scored (not failed). */
static void test_no_template(void **state) {
  (void)state;
  char dir[PATH_MAX];
  snprintf(dir, sizeof dir, "%s/sites", g_tmp);
  mkdir(dir, 0755);
  wn_put(dir, "pages.tsv", "group\tid\tsplit\nshop\t1\ttrain\nshop\t2\ttrain\nshop\t3\ttest\n");
  wn_put(dir, "html/shop/1.html", "<html><body><table><tr><td>Old price list</td></tr></table>"
                                  "</body></html>");
  wn_put(dir, "gold/shop/1.txt", "Old price list\n");
  wn_put(dir, "html/shop/2.html", "<html><body><ul><li>Opening hours</li></ul></body></html>");
  wn_put(dir, "gold/shop/2.txt", "Opening hours\n");
  wn_put(dir, "html/shop/3.html",
         "<html><body><h1>Storm lantern</h1><p>" LONG_LINE "</p></body></html>");
  wn_put(dir, "gold/shop/3.txt", "Storm lantern\n" LONG_LINE "\n");
  wn_run r;
  wn_test_run(&r, g_tmp, NULL, 0, g_tool, (const char *const[]){"--repeat", "1", "--json", dir, NULL});
  if (r.status != 0)
    fail_msg("exit %d: %s", r.status, r.err);
  json_t *root = json_loads(r.out, 0, NULL);
  assert_non_null(root);
  assert_int_equal(wn_int(root, "accuracy", "failed_pages"), 0);
  json_t *f1 = json_object_get(json_object_get(root, "accuracy"), "f1");
  if (!json_is_real(f1) || json_real_value(f1) < 0.9)
    fail_msg("the page not served by the single-page method:\n%s", r.out);
  json_decref(root);
  wn_run_free(&r);
}

/* The scorer's own checks (tokens, F1, repeated lines) pass, and say so. */
static void test_selftest(void **state) {
  (void)state;
  wn_run r;
  wn_test_run(&r, g_tmp, NULL, 0, g_tool, (const char *const[]){"--selftest", NULL});
  if (r.status != 0 || !strstr(r.out, "selftest passed") || strstr(r.out, "FAIL"))
    fail_msg("exit %d:\n%s", r.status, r.out);
  if (!strstr(r.out, "ok   repeats white space differs"))
    fail_msg("no repeated-line check:\n%s", r.out);
  wn_run_free(&r);
}

static int setup(void **state) {
  (void)state;
  return wn_test_temp_dir(g_tmp, sizeof g_tmp, "wn-test-eval");
}

static int teardown(void **state) {
  (void)state;
  wn_test_remove_tree(g_tmp);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_wcxb_layout),
                                     cmocka_unit_test(test_no_template),
                                     cmocka_unit_test(test_selftest)};
  return cmocka_run_group_tests(tests, setup, teardown);
}
