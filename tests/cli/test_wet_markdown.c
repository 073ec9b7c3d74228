/*
 * `winnow detect --warc IN --warc-out OUT`: each conversion record is typed
 * for what it holds, text/plain for text (as in a WET file) and
 * text/markdown for --format markdown. The real binary (WN_WINNOW) on a
 * WARC written here with the library's writer, read back with its reader.
 * And tools/make-warc's usage, which says what its input is.
 */
#include "wn_test.h"
#include "wn_run.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ARTICLE WN_FIXTURES "/markdown/article.html"
#define ARTICLE_URL "https://garden.example/guides/rain-garden.html"

static const char *g_winnow;
static char g_tmp[256];

/* A WARC of one HTTP 200 response holding the article. */
static void write_input(const char *path) {
  size_t len = 0;
  char *html = wn_test_read(ARTICLE, &len);
  static const char head[] = "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n";
  size_t block_len = sizeof head - 1 + len;
  char *block = malloc(block_len);
  assert_non_null(block);
  memcpy(block, head, sizeof head - 1);
  memcpy(block + sizeof head - 1, html, len);
  wn_warc_writer *w = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_warc_writer_open(path, NULL, &w, &diag), WN_OK);
  const wn_warc_record rec = {.type = "response",
                              .target_uri = ARTICLE_URL,
                              .content_type = "application/http; msgtype=response",
                              .block = block,
                              .block_len = block_len};
  assert_int_equal(wn_warc_write_record(w, &rec, NULL, &diag), WN_OK);
  assert_int_equal(wn_warc_writer_close(w, &diag), WN_OK);
  free(block);
  free(html);
}

/* The one conversion record of path: its Content-Type, and whether its
 * block holds want. */
static void expect_conversion(const char *path, const char *type, const char *want) {
  wn_warc_reader_options ro;
  wn_warc_reader_options_init(&ro);
  ro.every_record = 1;
  wn_warc_reader *r = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_warc_reader_open(path, &ro, &r, &diag), WN_OK);
  wn_warc_page p;
  wn_err got;
  int conversions = 0;
  while ((got = wn_warc_next(r, &p, &diag)) == WN_OK) {
    if (strcmp(p.warc_type, "conversion") != 0)
      continue;
    conversions++;
    assert_non_null(p.content_type);
    assert_string_equal(p.content_type, type);
    assert_string_equal(p.target_uri, ARTICLE_URL);
    char *block = malloc(p.payload_len + 1);
    assert_non_null(block);
    memcpy(block, p.payload, p.payload_len);
    block[p.payload_len] = '\0';
    if (!strstr(block, want))
      fail_msg("%s: no \"%s\" in:\n%s", path, want, block);
    free(block);
  }
  assert_int_equal(got, WN_ENOTFOUND);
  assert_int_equal(conversions, 1);
  wn_warc_reader_close(r);
}

static void test_conversion_types(void **state) {
  (void)state;
  char in[512], out_md[512], out_text[512];
  snprintf(in, sizeof in, "%s/in.warc", g_tmp);
  snprintf(out_md, sizeof out_md, "%s/out-md.warc", g_tmp);
  snprintf(out_text, sizeof out_text, "%s/out-text.warc", g_tmp);
  write_input(in);

  wn_run r;
  const char *md[] = {"detect", "--warc", in, "--warc-out", out_md, "--format", "markdown", NULL};
  wn_test_run(&r, g_tmp, NULL, 60, g_winnow, md);
  if (r.status != 0)
    fail_msg("exit %d: %s", r.status, r.err);
  wn_run_free(&r);
  expect_conversion(out_md, "text/markdown; charset=utf-8", "# Building a rain garden");

  const char *text[] = {"detect", "--warc", in, "--warc-out", out_text, NULL};
  wn_test_run(&r, g_tmp, NULL, 60, g_winnow, text);
  if (r.status != 0)
    fail_msg("exit %d: %s", r.status, r.err);
  wn_run_free(&r);
  expect_conversion(out_text, "text/plain", "Building a rain garden");
}

/* tools/make-warc says what it reads: a usage line and the corpus layout,
 * on stderr with exit 2 when called wrongly, on stdout with --help. */
static void test_make_warc_usage(void **state) {
  (void)state;
  const char *tool = WN_BINARY_DIR "/make-warc";
  if (access(tool, X_OK) != 0)
    skip();
  wn_run r;
  const char *none[] = {NULL};
  wn_test_run(&r, g_tmp, NULL, 60, tool, none);
  assert_int_equal(r.status, 2);
  assert_non_null(strstr(r.err, "usage: make-warc"));
  assert_non_null(strstr(r.err, "CORPUS_DIR holds pages.tsv"));
  assert_non_null(strstr(r.err, "html/GROUP/ID.html"));
  wn_run_free(&r);
  const char *help[] = {"--help", NULL};
  wn_test_run(&r, g_tmp, NULL, 60, tool, help);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.out, "usage: make-warc"));
  assert_non_null(strstr(r.out, "group and id"));
  wn_run_free(&r);
}

static int setup(void **state) {
  (void)state;
  g_winnow = getenv("WN_WINNOW");
  if (!g_winnow)
    return -1;
  return wn_test_temp_dir(g_tmp, sizeof g_tmp, "wn-wet-md");
}

static int teardown(void **state) {
  (void)state;
  wn_test_remove_tree(g_tmp);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conversion_types),
      cmocka_unit_test(test_make_warc_usage),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
