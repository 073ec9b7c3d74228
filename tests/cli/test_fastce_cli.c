/*
 * `winnow learn --algo fastce` then `winnow detect`, `winnow sites` and
 * `winnow-dump show`, as a user runs them: the real binaries with fork +
 * exec on the demo news site in tests/fixtures/site, a real store in a
 * temporary directory.
 */
#include "wn_run.h"
#include "wn_test.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define SITE "www.harbourgazette.example"
#define PAGE(n) WN_FIXTURES "/site/article-" #n ".html"

static char g_tmp[64];

/* Runs prog with args (NULL-terminated) into r, freeing r's last run. */
static void wn_run_prog(wn_run *r, const char *prog, const char *const *args) {
  wn_run_free(r);
  wn_test_run(r, g_tmp, NULL, 0, prog, args);
}

#define WINNOW(r, ...) wn_run_prog((r), getenv("WN_WINNOW"), (const char *const[]){__VA_ARGS__, NULL})
#define DUMP(r, ...) \
  wn_run_prog((r), WN_BINARY_DIR "/winnow-dump", (const char *const[]){__VA_ARGS__, NULL})

static void wn_has(const char *hay, const char *needle) {
  if (!strstr(hay, needle))
    fail_msg("expected \"%s\" in:\n%s", needle, hay);
}

static void wn_lacks(const char *hay, const char *needle) {
  if (strstr(hay, needle))
    fail_msg("did not expect \"%s\" in:\n%s", needle, hay);
}

static void test_learn_detect_fastce(void **state) {
  (void)state;
  if (!getenv("WN_WINNOW"))
    skip();
  char store[PATH_MAX];
  snprintf(store, sizeof store, "%s/store", g_tmp);
  static wn_run r;
  WINNOW(&r, "learn", "--store", store, "--site", SITE, "--algo", "fastce", PAGE(1), PAGE(2),
         PAGE(3), PAGE(4), PAGE(5));
  if (r.status != 0)
    fail_msg("learn: %d %s", r.status, r.err);
  wn_has(r.out, "learned " SITE ": pages=5 ");
  wn_has(r.out, " algo=fastce\n");
  /* The site's record says how it was learned. */
  WINNOW(&r, "sites", "--store", store);
  assert_int_equal(r.status, 0);
  wn_has(r.out, SITE " generation=1 ");
  wn_has(r.out, " algo=fastce\n");
  /* detect takes the method from the record: the story, not the menu. */
  WINNOW(&r, "detect", "--store", store, "--site", SITE, "--format", "json", PAGE(6));
  if (r.status != 0)
    fail_msg("detect: %d %s", r.status, r.err);
  wn_has(r.out, "\"method\": \"fastce\"");
  wn_has(r.out, "Council backs sea wall repairs after a winter of storms");
  wn_has(r.out, "The sea wall along the South Parade was built in the 1930s");
  wn_has(r.out, "My grandchildren used to play on that beach, she said.");
  wn_lacks(r.out, "Local News");
  /* show: the content paths and the stored non-content blocks. */
  DUMP(&r, "--store", store, "show", SITE);
  if (r.status != 0)
    fail_msg("show: %d %s", r.status, r.err);
  wn_has(r.out, "site " SITE ": fastce, ");
  wn_has(r.out, "from 5 sample pages; site-level rules");
  wn_has(r.out, "content paths (n/N: sample pages with a content block on the path; bytes of "
                "content text on it per sample page):\n");
  wn_has(r.out, "  html.body.div.main.article.div.p  5/5  ");
  /* The site-level rules keep the "more stories" and "most popular" lists
   * (content to ContentExtractor: they differ from page to page) out of P. */
  wn_lacks(r.out, "html.body.div.main.section.ul");
  wn_has(r.out, "stored non-content blocks");
  DUMP(&r, "--store", store, "list");
  assert_int_equal(r.status, 0);
  wn_has(r.out, SITE);
  wn_has(r.out, " fastce ");
  wn_run_free(&r);
}

static void test_learn_unknown_algo(void **state) {
  (void)state;
  if (!getenv("WN_WINNOW"))
    skip();
  char store[PATH_MAX];
  snprintf(store, sizeof store, "%s/store2", g_tmp);
  static wn_run r;
  WINNOW(&r, "learn", "--store", store, "--site", SITE, "--algo", "cex", PAGE(1), PAGE(2));
  assert_int_equal(r.status, WN_EXIT_USAGE);
  wn_has(r.err, "--algo: unknown algorithm 'cex' (known: etdm, fastce)");
  assert_int_equal(access(store, F_OK), -1); /* nothing written */
  wn_run_free(&r);
}

static int setup(void **state) {
  (void)state;
  return wn_test_temp_dir(g_tmp, sizeof g_tmp, "wn-fastce-cli");
}

static int teardown(void **state) {
  (void)state;
  wn_test_remove_tree(g_tmp);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_learn_detect_fastce),
      cmocka_unit_test(test_learn_unknown_algo),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
