/*
 * `winnow detect --format markdown` as scripts use it: the real binary
 * (WN_WINNOW) run with fork + exec, on the hand-made article of
 * tests/fixtures/markdown and on the demo news site of tests/fixtures/site
 * with a template learned into a real store in a temporary directory.
 */
#include "wn_test.h"
#include "wn_run.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#define ARTICLE WN_FIXTURES "/markdown/article.html"
#define ARTICLE_URL "https://garden.example/guides/rain-garden.html"
#define SITE "www.harbourgazette.example"
#define PAGE(n) WN_FIXTURES "/site/article-" #n ".html"

static const char *g_winnow;
static char g_tmp[256];

/* Runs winnow with args (NULL-terminated), stdin from stdin_path or
 * /dev/null; outputs captured (tests/support/wn_run.h). */
static void run(wn_run *r, const char *stdin_path, const char *const *args) {
  wn_test_run(r, g_tmp, stdin_path, 0, g_winnow, args);
}

#define RUN(r, in, ...)                                                        \
  do {                                                                         \
    const char *const wn_args_[] = {__VA_ARGS__, NULL};                        \
    run((r), (in), wn_args_);                                                  \
  } while (0)

static void test_single_page(void **state) {
  (void)state;
  wn_run r;
  RUN(&r, NULL, "detect", "--format", "markdown", "--url", ARTICLE_URL, ARTICLE);
  assert_int_equal(r.status, 0);
  size_t len = 0;
  char *want = wn_test_read(WN_FIXTURES "/markdown/article.md", &len);
  if (strcmp(r.out, want) != 0)
    fail_msg("want:\n%s\ngot:\n%s", want, r.out);
  free(want);
  wn_run_free(&r);

  /* The switches: no front matter, no links (their text stays), no
   * images, no data tables. */
  RUN(&r, NULL, "detect", "--format", "markdown", "--url", ARTICLE_URL, "--no-metadata",
      "--no-links", "--no-images", "--no-tables", ARTICLE);
  assert_int_equal(r.status, 0);
  assert_true(strncmp(r.out, "# Building a rain garden\n", 25) == 0);
  assert_non_null(strstr(r.out, "See the soil FAQ or the city's guide."));
  assert_null(strstr(r.out, "]("));
  assert_null(strstr(r.out, "| Roof area"));
  assert_non_null(strstr(r.out, "- About **two hours**\n"));
  wn_run_free(&r);

  /* Markdown from stdin; a bad format names markdown. */
  RUN(&r, ARTICLE, "detect", "--format", "markdown", "-");
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.out, "[soil FAQ](../faq.html#soil)"));
  wn_run_free(&r);
  RUN(&r, NULL, "detect", "--format", "mark", ARTICLE);
  assert_int_equal(r.status, 2);
  assert_non_null(strstr(r.err, "--format is text, html, markdown or json"));
  wn_run_free(&r);
}

static void test_with_template(void **state) {
  (void)state;
  char store[PATH_MAX];
  snprintf(store, sizeof store, "%s/store", g_tmp);
  wn_run r;
  RUN(&r, NULL, "learn", "--store", store, "--site", SITE, PAGE(1), PAGE(2), PAGE(3), PAGE(4),
      PAGE(5));
  assert_int_equal(r.status, 0);
  wn_run_free(&r);
  /* The template's text (the site's navigation and footer) is not in the
   * Markdown, the story is, under its heading. */
  RUN(&r, NULL, "detect", "--store", store, "--url", "https://" SITE "/news/sea-wall.html",
      "--format", "markdown", PAGE(6));
  assert_int_equal(r.status, 0);
  wn_run t;
  RUN(&t, NULL, "detect", "--store", store, "--site", SITE, PAGE(6));
  assert_int_equal(t.status, 0);
  /* Every line of the text output is in the Markdown (escaping aside, the
   * demo's text has no Markdown characters), and nothing else is. */
  size_t words_md = 0, words_text = 0;
  for (const char *p = r.out; *p; p++)
    words_md += *p == ' ';
  for (const char *p = t.out; *p; p++)
    words_text += *p == ' ';
  assert_non_null(strstr(r.out, "Council backs sea wall repairs"));
  char first[128];
  const char *nl = strchr(t.out, '\n');
  assert_non_null(nl);
  snprintf(first, sizeof first, "%.*s", (int)(nl - t.out), t.out);
  assert_non_null(strstr(r.out, first));
  /* Markdown adds markers, never whole lines of boilerplate. */
  assert_true(words_md >= words_text && words_md < words_text + words_text / 5 + 20);
  wn_run_free(&t);
  wn_run_free(&r);

  /* The JSONL stream: "markdown" and "metadata" keys, links absolute
   * against the line's URL. */
  char in_path[PATH_MAX];
  snprintf(in_path, sizeof in_path, "%s/in.jsonl", g_tmp);
  FILE *f = fopen(in_path, "w");
  assert_non_null(f);
  fprintf(f, "{\"id\": 1, \"site\": \"%s\", \"url\": \"https://%s/news/x.html\", \"path\": \"%s\"}\n",
          SITE, SITE, PAGE(7));
  fprintf(f, "{\"id\": 2, \"url\": \"%s\", \"path\": \"%s\"}\n", ARTICLE_URL, ARTICLE);
  fclose(f);
  RUN(&r, NULL, "detect", "--store", store, "--jsonl", "--format", "markdown", "--metadata",
      in_path);
  assert_int_equal(r.status, 0);
  char *line = r.out;
  for (int k = 0; k < 2; k++) {
    char *end = strchr(line, '\n');
    assert_non_null(end);
    *end = '\0';
    json_t *obj = json_loads(line, 0, NULL);
    assert_non_null(obj);
    const char *md = json_string_value(json_object_get(obj, "markdown"));
    assert_non_null(md);
    assert_true(json_is_object(json_object_get(obj, "metadata")));
    assert_non_null(json_object_get(obj, "text"));
    if (k == 1) {
      assert_non_null(strstr(md, "[soil FAQ](https://garden.example/faq.html#soil)"));
      /* Front matter is for Markdown files; the stream has "metadata". */
      assert_true(strncmp(md, "# Building", 10) == 0);
      assert_string_equal(
          json_string_value(json_object_get(json_object_get(obj, "metadata"), "date")),
          "2023-05-17T08:30:00Z");
    } else {
      assert_non_null(strstr(md, "Youth rowers take regional title"));
    }
    json_decref(obj);
    line = end + 1;
  }
  wn_run_free(&r);
  RUN(&r, NULL, "detect", "--store", store, "--jsonl", "--no-metadata", in_path);
  assert_int_equal(r.status, 0);
  assert_null(strstr(r.out, "\"metadata\""));
  assert_null(strstr(r.out, "\"markdown\""));
  wn_run_free(&r);
}

static int setup(void **state) {
  (void)state;
  g_winnow = getenv("WN_WINNOW");
  if (!g_winnow || !*g_winnow)
    g_winnow = WN_BINARY_DIR "/winnow";
  return wn_test_temp_dir(g_tmp, sizeof g_tmp, "wn-md");
}

static int teardown(void **state) {
  (void)state;
  char cmd[PATH_MAX + 16];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_tmp);
  return system(cmd) == 0 ? 0 : -1;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_single_page),
      cmocka_unit_test(test_with_template),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
