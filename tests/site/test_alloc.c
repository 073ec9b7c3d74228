/* tests/site/test_alloc.c: how often winnow's own code calls the C
 * allocator for one page. The program is linked with malloc, calloc,
 * realloc, free, strdup and strndup wrapped (CMakeLists.txt: the linker's
 * --wrap), so the calls counted are those of winnow's objects, not
 * libxml2's (a shared library, not wrapped). A tree is built in the
 * page's arena, so parsing a page of 5,000 nodes costs a few calls for the
 * arena's blocks and the growing side tables, not one per node; the
 * readings allocate their arrays per page, not per node. */
#include "wn_test.h"

#include <stdlib.h>
#include <string.h>

#include "dom/dom.h"

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void __real_free(void *p);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);

static size_t g_counting; /* 1 while counting */
static size_t g_allocs, g_frees;

void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
void __wrap_free(void *p);
char *__wrap_strdup(const char *s);
char *__wrap_strndup(const char *s, size_t n);

void *__wrap_malloc(size_t size) {
  g_allocs += g_counting;
  return __real_malloc(size);
}
void *__wrap_calloc(size_t n, size_t size) {
  g_allocs += g_counting;
  return __real_calloc(n, size);
}
void *__wrap_realloc(void *p, size_t size) {
  g_allocs += g_counting;
  return __real_realloc(p, size);
}
void __wrap_free(void *p) {
  g_frees += g_counting && p ? 1u : 0u;
  __real_free(p);
}
char *__wrap_strdup(const char *s) {
  g_allocs += g_counting;
  return __real_strdup(s);
}
char *__wrap_strndup(const char *s, size_t n) {
  g_allocs += g_counting;
  return __real_strndup(s, n);
}

/* A page of 1,000 blocks of five nodes each (div, p, text, a, text), with
 * classes, ids and links, as a listing is. */
static char *wn_page_5000(size_t *len) {
  wn_buf b;
  wn_buf_init(&b, 0);
  assert_int_equal(wn_buf_append_str(&b, "<!DOCTYPE html><html lang=en><head><title>Items</title>"
                                         "<meta name=description content=\"A list\"></head><body>"),
                   WN_OK);
  for (int i = 0; i < 1000; i++)
    assert_int_equal(wn_buf_printf(&b,
                                   "<div class=\"item c%d\" id=\"i%d\"><p>Item %d has a few words "
                                   "of text, as a record does. <a href=\"/item/%d\">More</a></p>"
                                   "</div>\n",
                                   i % 5, i, i, i),
                     WN_OK);
  assert_int_equal(wn_buf_append_str(&b, "</body></html>"), WN_OK);
  return wn_buf_take(&b, len);
}

static void test_parse_allocations(void **state) {
  (void)state;
  size_t len = 0;
  char *html = wn_page_5000(&len);
  wn_dom_page *page = NULL;
  g_allocs = g_frees = 0;
  g_counting = 1;
  wn_err err = wn_dom_parse(html, len, NULL, &page, NULL);
  g_counting = 0;
  assert_int_equal(err, WN_OK);
  uint32_t count = 0;
  (void)wn_dom_nodes(page, &count);
  assert_true(count >= 5000);
  /* At least the arena's first block: the wrappers are in place. */
  assert_true(g_allocs > 0);
  if (g_allocs >= 50)
    fail_msg("parsing %u nodes made %zu allocator calls (and %zu frees)", count, g_allocs,
             g_frees);
  print_message("parsing %u nodes: %zu allocator calls, %zu frees\n", count, g_allocs, g_frees);
  wn_dom_free(page);
  free(html);
}

static void test_detect_allocations(void **state) {
  (void)state;
  size_t len = 0;
  char *html = wn_page_5000(&len);
  wn_detector *d = NULL;
  assert_int_equal(wn_detector_create(NULL, NULL, &d, NULL), WN_OK);
  wn_page_input in = {.bytes = html, .len = len, .url = "https://shop.example/list"};
  wn_page_result *r = NULL;
  g_allocs = g_frees = 0;
  g_counting = 1;
  wn_err err = wn_detector_detect(d, &in, WN_WANT_TEXT | WN_WANT_NODES, &r, NULL);
  g_counting = 0;
  assert_int_equal(err, WN_OK);
  assert_true(wn_page_result_text(r, NULL)[0] != '\0');
  /* Every reading's arrays are per page, and those a reading gives back
   * before it returns come from the thread's scratch stack: a per-node
   * allocation anywhere would make thousands of calls, a reading's arrays
   * from malloc again a dozen more. */
  if (g_allocs >= 50)
    fail_msg("detecting a page of 5,000 nodes made %zu allocator calls", g_allocs);
  print_message("detecting a page of 5,000 nodes: %zu allocator calls, %zu frees\n", g_allocs,
                g_frees);
  wn_page_result_free(r);
  /* The next page on this thread finds the scratch stack made: fewer
   * calls than the first (its chunk and its bookkeeping are not made
   * again). */
  const size_t first = g_allocs;
  g_allocs = g_frees = 0;
  g_counting = 1;
  err = wn_detector_detect(d, &in, WN_WANT_TEXT | WN_WANT_NODES, &r, NULL);
  g_counting = 0;
  assert_int_equal(err, WN_OK);
  print_message("the same page again: %zu allocator calls\n", g_allocs);
  assert_true(g_allocs + 2 <= first);
  wn_page_result_free(r);
  wn_detector_destroy(d);
  free(html);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_allocations),
      cmocka_unit_test(test_detect_allocations),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
