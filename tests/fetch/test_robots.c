/*
 * tests/fetch/test_robots.c: the RFC 9309 parser and matcher. The cases
 * follow the RFC's sections (2.2.1 groups, 2.2.2 rules and wildcards,
 * 2.5 the size limit) and its examples.
 */
#include "wn_test.h"

#include <stdlib.h>

#include "fetch/fetch.h"

static const char *const UA = "winnow/0.1 (+https://example.org/bot)";

static wn_robots *parse(const char *body) {
  wn_robots *robots = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_robots_parse(body, strlen(body), UA, &robots, &diag);
  if (err)
    fail_msg("%s", wn_diag_message(&diag, err));
  return robots;
}

static void test_our_group_wins_over_star(void **state) {
  (void)state;
  wn_robots *r = parse("User-agent: *\n"
                       "Disallow: /\n"
                       "\n"
                       "User-agent: otherbot\n"
                       "Disallow: /mine/\n"
                       "\n"
                       "# us, in capitals: product tokens match case-insensitively\n"
                       "User-agent: WINNOW\n"
                       "Disallow: /private/\n"
                       "Crawl-delay: 2.5\n");
  assert_int_equal(wn_robots_allowed(r, "/"), 1);
  assert_int_equal(wn_robots_allowed(r, "/mine/x"), 1);
  assert_int_equal(wn_robots_allowed(r, "/private/x.html"), 0);
  assert_int_equal(wn_robots_allowed(r, "/private"), 1);
  assert_int_equal(wn_robots_crawl_delay_ms(r), 2500);
  wn_robots_free(r);
}

static void test_star_fallback(void **state) {
  (void)state;
  wn_robots *r = parse("User-agent: otherbot\nDisallow: /\n\n"
                       "User-agent: *\nDisallow: /tmp/\nCrawl-delay: 3\n");
  assert_int_equal(wn_robots_allowed(r, "/tmp/a"), 0);
  assert_int_equal(wn_robots_allowed(r, "/index.html"), 1);
  /* Crawl-delay of the group that applies to us, the "*" group here. */
  assert_int_equal(wn_robots_crawl_delay_ms(r), 3000);
  wn_robots_free(r);
}

static void test_multiple_agents_one_group(void **state) {
  (void)state;
  /* 2.2.1: several user-agent lines share the rules that follow; a later
   * group naming us again is merged. */
  wn_robots *r = parse("User-agent: a-bot\n"
                       "User-agent: winnow/2.0\n"
                       "User-agent: b-bot\n"
                       "Disallow: /one/\n"
                       "\n"
                       "User-agent: c-bot\n"
                       "Disallow: /three/\n"
                       "\n"
                       "user-agent: winnow\n"
                       "disallow: /two/\n");
  assert_int_equal(wn_robots_allowed(r, "/one/x"), 0);
  assert_int_equal(wn_robots_allowed(r, "/two/x"), 0);
  assert_int_equal(wn_robots_allowed(r, "/three/x"), 1);
  assert_int_equal(wn_robots_crawl_delay_ms(r), 0);
  wn_robots_free(r);
}

static void test_longest_match_and_ties(void **state) {
  (void)state;
  wn_robots *r = parse("User-agent: *\n"
                       "Disallow: /shop\n"
                       "Allow: /shop/public/\n"
                       "Disallow: /shop/public/secret\n"
                       "Allow: /tie\n"
                       "Disallow: /tie\n");
  assert_int_equal(wn_robots_allowed(r, "/shop"), 0);
  assert_int_equal(wn_robots_allowed(r, "/shopping"), 0);
  assert_int_equal(wn_robots_allowed(r, "/shop/public/a"), 1);
  assert_int_equal(wn_robots_allowed(r, "/shop/public/secret.html"), 0);
  assert_int_equal(wn_robots_allowed(r, "/tie/x"), 1); /* allow wins a tie */
  assert_int_equal(wn_robots_allowed(r, "/other"), 1);
  wn_robots_free(r);
}

static void test_wildcards(void **state) {
  (void)state;
  wn_robots *r = parse("User-agent: winnow\n"
                       "Disallow: /*.pdf$\n"
                       "Disallow: /search*q=\n"
                       "Disallow: /exact$\n"
                       "Allow: /*.pdf$x\n");
  assert_int_equal(wn_robots_allowed(r, "/docs/a.pdf"), 0);
  assert_int_equal(wn_robots_allowed(r, "/docs/a.pdf?x=1"), 1);
  assert_int_equal(wn_robots_allowed(r, "/docs/a.pdfx"), 1);
  assert_int_equal(wn_robots_allowed(r, "/search?lang=en&q=cats"), 0);
  assert_int_equal(wn_robots_allowed(r, "/search?lang=en"), 1);
  assert_int_equal(wn_robots_allowed(r, "/exact"), 0);
  assert_int_equal(wn_robots_allowed(r, "/exact/"), 1);
  wn_robots_free(r);
}

static void test_percent_encoding(void **state) {
  (void)state;
  /* 2.2.2: UTF-8 in the file matches its encoded form in the URL, and an
   * encoded unreserved character matches the plain one. */
  wn_robots *r = parse("User-agent: *\n"
                       "Disallow: /caf\xC3\xA9/\n"
                       "Disallow: /%7Euser/\n"
                       "Disallow: /a%2fb\n");
  assert_int_equal(wn_robots_allowed(r, "/caf%C3%A9/menu"), 0);
  assert_int_equal(wn_robots_allowed(r, "/caf%c3%a9/menu"), 0);
  assert_int_equal(wn_robots_allowed(r, "/~user/x"), 0);
  assert_int_equal(wn_robots_allowed(r, "/a%2Fb"), 0);
  /* An encoded '/' is reserved: it is not the same path as a plain one. */
  assert_int_equal(wn_robots_allowed(r, "/a/b"), 1);
  wn_robots_free(r);
}

static void test_odd_input(void **state) {
  (void)state;
  /* Rules before any user-agent line, comments, CRLF, blank values, a BOM,
   * unknown records and a sitemap inside a group. */
  wn_robots *r = parse("\xEF\xBB\xBF"
                       "Disallow: /orphan/\r\n"
                       "User-agent: * # everyone\r\n"
                       "Sitemap: https://example.com/sitemap.xml\r\n"
                       "Disallow:\r\n"
                       "Foo: bar\r\n"
                       "Disallow: /x/ # comment\r\n"
                       "Crawl-delay: soon\r\n");
  assert_int_equal(wn_robots_allowed(r, "/orphan/a"), 1);
  assert_int_equal(wn_robots_allowed(r, "/x/a"), 0);
  assert_int_equal(wn_robots_allowed(r, "/y"), 1);
  assert_int_equal(wn_robots_crawl_delay_ms(r), 0);
  wn_robots_free(r);

  r = parse("");
  assert_int_equal(wn_robots_allowed(r, "/anything"), 1);
  wn_robots_free(r);

  wn_robots *bad = NULL;
  assert_int_equal(wn_robots_parse("", 0, "/0.1", &bad, NULL), WN_EINVAL);
  assert_null(bad);
}

static void test_robots_txt_always_allowed(void **state) {
  (void)state;
  wn_robots *r = parse("User-agent: *\nDisallow: /\n");
  assert_int_equal(wn_robots_allowed(r, "/"), 0);
  assert_int_equal(wn_robots_allowed(r, "/robots.txt"), 1);
  wn_robots_free(r);
  wn_robots *none = NULL;
  assert_int_equal(wn_robots_new_all(0, &none, NULL), WN_OK);
  assert_int_equal(wn_robots_allowed(none, "/a"), 0);
  assert_int_equal(wn_robots_allowed(none, "/robots.txt"), 1);
  wn_robots_free(none);
  wn_robots *all = NULL;
  assert_int_equal(wn_robots_new_all(1, &all, NULL), WN_OK);
  assert_int_equal(wn_robots_allowed(all, "/a"), 1);
  assert_int_equal(wn_robots_crawl_delay_ms(all), 0);
  wn_robots_free(all);
}

static void test_size_cap(void **state) {
  (void)state;
  /* A rule past 500 KiB is not read (2.5). */
  size_t pad = (size_t)500 * 1024;
  const char *head = "User-agent: *\nDisallow: /early/\n#";
  const char *tail = "\nDisallow: /late/\n";
  size_t len = strlen(head) + pad + strlen(tail);
  char *body = malloc(len + 1);
  assert_non_null(body);
  memcpy(body, head, strlen(head));
  memset(body + strlen(head), 'x', pad);
  memcpy(body + strlen(head) + pad, tail, strlen(tail) + 1);
  wn_robots *r = NULL;
  assert_int_equal(wn_robots_parse(body, len, UA, &r, NULL), WN_OK);
  assert_int_equal(wn_robots_allowed(r, "/early/a"), 0);
  assert_int_equal(wn_robots_allowed(r, "/late/a"), 1);
  wn_robots_free(r);
  free(body);
}

static void test_crawl_delay_forms(void **state) {
  (void)state;
  static const struct {
    const char *value;
    uint32_t ms;
  } cases[] = {{"1", 1000}, {"0.5", 500}, {"0.25", 250}, {"10.", 10000}, {"1e3", 0},
               {"-1", 0},   {"", 0},      {"99999999999", 86400000}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char body[128];
    snprintf(body, sizeof body, "User-agent: winnow\nCrawl-delay: %s\n", cases[i].value);
    wn_robots *r = parse(body);
    if (wn_robots_crawl_delay_ms(r) != cases[i].ms)
      fail_msg("Crawl-delay %s: %u ms, want %u", cases[i].value, wn_robots_crawl_delay_ms(r),
               cases[i].ms);
    wn_robots_free(r);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_our_group_wins_over_star),
      cmocka_unit_test(test_star_fallback),
      cmocka_unit_test(test_multiple_agents_one_group),
      cmocka_unit_test(test_longest_match_and_ties),
      cmocka_unit_test(test_wildcards),
      cmocka_unit_test(test_percent_encoding),
      cmocka_unit_test(test_odd_input),
      cmocka_unit_test(test_robots_txt_always_allowed),
      cmocka_unit_test(test_size_cap),
      cmocka_unit_test(test_crawl_delay_forms),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
