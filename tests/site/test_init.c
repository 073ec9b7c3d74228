/*
 * tests/site/test_init.c: wn_init and wn_cleanup (src/site/lib.c). A
 * process that only detects pages must not pay for TLS: wn_init leaves
 * libcurl's global state to the first crawl (fetch/crawl.c), as a
 * thread-safe libcurl allows, and initialising OpenSSL touches megabytes
 * of libcrypto that every detection worker would carry. Measured with the
 * process's own resident set (/proc/self/statm), which counts the pages of
 * shared libraries a call touches.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include <cmocka.h>
#include <libxml/parser.h>

#include <winnow/winnow.h>

static long wn_resident_kib(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  assert_non_null(f);
  long size = 0, resident = 0;
  assert_int_equal(fscanf(f, "%ld %ld", &size, &resident), 2);
  fclose(f);
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* Runs first, in a process that has made no libcurl call; libxml2's own
 * initialisation (what wn_init must do) is made before measuring. */
static void test_init_touches_little(void **state) {
  (void)state;
  xmlInitParser();
  long before = wn_resident_kib();
  assert_int_equal(wn_init(), WN_OK);
  long grown = wn_resident_kib() - before;
  print_message("wn_init: resident set +%ld KiB\n", grown);
  assert_true(grown < 512);
  wn_cleanup();
}

/* The count: a library embedding winnow and the program around it may both
 * call wn_init; the state lasts until the last wn_cleanup, and a second
 * round after it works as the first. */
static void test_init_counted(void **state) {
  (void)state;
  assert_int_equal(wn_init(), WN_OK);
  assert_int_equal(wn_init(), WN_OK);
  wn_cleanup();
  static const char a[] = "<html><body><nav><a href=/>Home</a> <a href=/b>News</a></nav>"
                          "<p>The first page tells of the harbour and its boats.</p></body></html>";
  static const char b[] = "<html><body><nav><a href=/>Home</a> <a href=/b>News</a></nav>"
                          "<p>The second page tells of the market and its stalls.</p></body></html>";
  const char *names[] = {"a.html", "b.html"};
  const char *bytes[] = {a, b};
  size_t len[] = {sizeof a - 1, sizeof b - 1};
  wn_learned *learned = NULL;
  wn_diag diag = {0};
  assert_int_equal(wn_site_learn_pages("init.example", names, bytes, len, 2, NULL, &learned, &diag),
                   WN_OK);
  wn_learned_free(learned);
  wn_cleanup();
  wn_cleanup(); /* one more than wn_init: nothing */
  assert_int_equal(wn_init(), WN_OK);
  wn_cleanup();
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_init_touches_little),
      cmocka_unit_test(test_init_counted),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
