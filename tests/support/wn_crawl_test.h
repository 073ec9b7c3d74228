/*
 * wn_crawl_test.h: helpers of the tests that crawl a fixture site served
 * on 127.0.0.1 (tests/learn/test_nset.c, test_variants.c).
 */
#ifndef WN_CRAWL_TEST_H
#define WN_CRAWL_TEST_H

#include "wn_test.h"

#include "learn/learn.h"

/* A crawler for loopback fixtures: no politeness delay, a 5 s timeout. */
static inline wn_crawl *wn_test_quick_crawl(void) {
  wn_crawl_options o;
  wn_crawl_options_init(&o);
  o.host_delay_ms = 0;
  o.timeout_ms = 5000;
  wn_crawl *c = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_crawl_create(&o, &c, &diag), WN_OK);
  return c;
}

/* The crawled page whose URL ends in suffix (the test fails without one). */
static inline const wn_learn_crawl_page *wn_test_crawled(const wn_learn_crawl_result *r,
                                                         const char *suffix) {
  size_t sl = strlen(suffix);
  for (size_t i = 0; i < r->n_pages; i++) {
    size_t ul = strlen(r->pages[i].url);
    if (ul >= sl && strcmp(r->pages[i].url + ul - sl, suffix) == 0)
      return &r->pages[i];
  }
  fail_msg("page %s not fetched", suffix);
  return NULL;
}

#endif /* WN_CRAWL_TEST_H */
