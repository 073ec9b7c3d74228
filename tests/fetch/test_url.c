/*
 * tests/fetch/test_url.c: URL resolution and normal form, references
 * resolved against a parsed base (rendered links), same-site tests by host
 * and by registrable domain, the site a URL belongs to.
 */
#include "wn_test.h"

#include <stdlib.h>
#include <string.h>

#include "fetch/fetch.h"

static const char *const BASE = "http://Example.COM:80/a/b/c.html?x=1#frag";

static void expect_resolve(const char *base, const char *href, const char *want) {
  char *got = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_url_resolve(base, href, &got, &diag);
  if (err)
    fail_msg("%s against %s: %s", href, base ? base : "-", wn_diag_message(&diag, err));
  assert_string_equal(got, want);
  free(got);
}

static void expect_refused(const char *base, const char *href) {
  char *got = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_url_resolve(base, href, &got, &diag), WN_EINVAL);
  assert_null(got);
  assert_true(diag.msg[0] != '\0');
}

static void test_resolve_relative(void **state) {
  (void)state;
  expect_resolve(BASE, "../x", "http://example.com/a/x");
  expect_resolve(BASE, "./y", "http://example.com/a/b/y");
  expect_resolve(BASE, "?q", "http://example.com/a/b/c.html?q");
  expect_resolve(BASE, "/root", "http://example.com/root");
  expect_resolve(BASE, "//Other.ORG/z", "http://other.org/z");
  expect_resolve(BASE, "  page.html \n", "http://example.com/a/b/page.html");
  expect_resolve(BASE, "../../../../up", "http://example.com/up");
}

static void test_resolve_fragments(void **state) {
  (void)state;
  expect_resolve(BASE, "#top", "http://example.com/a/b/c.html?x=1");
  expect_resolve(BASE, "", "http://example.com/a/b/c.html?x=1");
  expect_resolve(BASE, "page#s", "http://example.com/a/b/page");
  expect_resolve(NULL, "https://x.org/p#s", "https://x.org/p");
}

static void test_normal_form(void **state) {
  (void)state;
  expect_resolve(NULL, "HTTP://WWW.Example.Com", "http://www.example.com/");
  expect_resolve(NULL, "https://example.com:443/p", "https://example.com/p");
  expect_resolve(NULL, "http://example.com:8080/p", "http://example.com:8080/p");
  expect_resolve(NULL, "http://example.com/a/./b/../c", "http://example.com/a/c");
}

static void test_refused(void **state) {
  (void)state;
  expect_refused(BASE, "mailto:someone@example.com");
  expect_refused(BASE, "javascript:void(0)");
  expect_refused(BASE, "ftp://example.com/file");
  expect_refused(NULL, "example.com/no-scheme");
  expect_refused(NULL, "/relative/without/base");
  expect_refused("mailto:x@y.z", "page.html");
  char *longurl = malloc(WN_URL_MAX + 64);
  assert_non_null(longurl);
  memcpy(longurl, "http://example.com/", 19);
  memset(longurl + 19, 'a', WN_URL_MAX);
  longurl[19 + WN_URL_MAX] = '\0';
  expect_refused(NULL, longurl);
  free(longurl);
}

static void test_host(void **state) {
  (void)state;
  char host[64];
  assert_int_equal(wn_url_host("http://News.Example.CO.UK:8080/x", host, sizeof host, NULL),
                   WN_OK);
  assert_string_equal(host, "news.example.co.uk");
  char tiny[4];
  assert_int_equal(wn_url_host("http://example.com/", tiny, sizeof tiny, NULL), WN_ETOOBIG);
  assert_int_equal(wn_url_host("not a url", host, sizeof host, NULL), WN_EINVAL);
}

static void test_same_site(void **state) {
  (void)state;
  assert_int_equal(wn_url_same_site("http://a.example.com/x", "https://a.example.com/y", 0), 1);
  assert_int_equal(wn_url_same_site("http://a.example.com/x", "http://b.example.com/y", 0), 0);
  assert_int_equal(wn_url_same_site("http://a.example.com/x", "http://b.example.com/y", 1), 1);
  assert_int_equal(wn_url_same_site("http://a.example.co.uk/", "http://b.example.co.uk/", 1), 1);
  assert_int_equal(wn_url_same_site("http://a.example.co.uk/", "http://b.example.co.uk/", 0), 0);
  /* co.uk is a public suffix: two owners, not one site. */
  assert_int_equal(wn_url_same_site("http://example.co.uk/", "http://other.co.uk/", 1), 0);
  /* IP addresses only ever match themselves. */
  assert_int_equal(wn_url_same_site("http://127.0.0.1/", "http://10.0.0.1/", 1), 0);
  assert_int_equal(wn_url_same_site("http://127.0.0.1:1/", "http://127.0.0.1:2/", 1), 1);
  assert_int_equal(wn_url_same_site("mailto:x@example.com", "http://example.com/", 1), 0);
}

static void expect_site(const char *url, const char *want) {
  char site[WN_SITE_MAX + 1];
  wn_diag diag = {{0}};
  wn_err err = wn_url_site(url, site, sizeof site, &diag);
  if (err)
    fail_msg("%s: %s", url, wn_diag_message(&diag, err));
  assert_string_equal(site, want);
  assert_true(wn_site_name_valid(site));
}

static void expect_no_site(const char *url, const char *message_part) {
  char site[WN_SITE_MAX + 1] = "x";
  wn_diag diag = {{0}};
  assert_int_equal(wn_url_site(url, site, sizeof site, &diag), WN_EINVAL);
  assert_string_equal(site, "");
  const char *msg = wn_diag_message(&diag, WN_EINVAL);
  if (!strstr(msg, message_part))
    fail_msg("%s: message '%s' lacks '%s'", url, msg, message_part);
}

static void test_site(void **state) {
  (void)state;
  expect_site("http://LOCALHOST:8765/x", "localhost:8765");
  expect_site("http://x:80/", "x");
  expect_site("https://x:443", "x");
  expect_site("http://x:443", "x:443");
  expect_site("https://x:80/", "x:80");
  expect_site("https://News.Example.COM/a?b#c", "news.example.com");
  expect_site("http://[::1]:8080/", "[::1]:8080");
  expect_site("http://[FE80::1]/", "[fe80::1]");
  expect_site("http://127.0.0.1:9/", "127.0.0.1:9");
  expect_no_site("ftp://x/", "ftp URLs are not supported: only http and https");
  expect_no_site("file:///etc/passwd", "file URLs are not supported: only http and https");
  expect_no_site("not a url", "not a URL");
  expect_no_site("LOCALHOST:8765", "not a URL");
  expect_no_site("http://", "not a URL");
  expect_no_site(NULL, "not a URL");
  /* URLs as a crawl has them. A space (or another control) in
   * the path, query or fragment does not hide the host; spaces around the
   * URL and tabs and newlines in it are dropped, as browsers drop them. */
  expect_site("https://schwimmverband.at/news-artikel tx_news_pi1%5Baction%5D=detail",
              "schwimmverband.at");
  expect_site("https://x.example/a b?c d#e f", "x.example");
  expect_site("https://x.example:8080/a\x01b\x7f", "x.example:8080");
  expect_site("  https://x.example/a\tb\nc\r\n", "x.example");
  /* '_' in a host: DNS and curl take it, and so does the site rule. */
  expect_site("https://my_host.example.com/a", "my_host.example.com");
  expect_site("http://_dmarc.Example.ORG:81/", "_dmarc.example.org:81");
  /* IDN hosts are named in punycode, whatever the process's locale (this
   * test never calls setlocale: "C"), and one site with its ASCII form. */
  expect_site("https://b\xc3\xbc" "cher.example/x", "xn--bcher-kva.example");
  expect_site("https://B\xc3\x9c" "CHER.Example/x y", "xn--bcher-kva.example");
  expect_site("https://xn--bcher-kva.example/", "xn--bcher-kva.example");
  /* A host no site name spells says why, and never "out of memory". */
  expect_no_site("https://caf\xe9.example/", "has no ASCII form");
  expect_no_site("https://ex ample.com/", "Bad hostname");
  expect_no_site("https://a\x01b.example/", "Bad hostname");
  expect_no_site("https://a~b.example/", "cannot name a site");
  static const char *const never_oom[] = {"https://caf\xe9.example/", "https://\xff/",
                                          ("https://b\xc3\xbc" "cher.\xff/"), "http:// /"};
  for (size_t i = 0; i < sizeof never_oom / sizeof never_oom[0]; i++) {
    char site[WN_SITE_MAX + 1];
    wn_diag diag = {{0}};
    wn_err err = wn_url_site(never_oom[i], site, sizeof site, &diag);
    assert_int_equal(err, WN_EINVAL);
    if (strstr(wn_diag_message(&diag, err), "memory"))
      fail_msg("%s: %s", never_oom[i], wn_diag_message(&diag, err));
  }
  /* Too small a buffer. */
  char tiny[4];
  assert_int_equal(wn_url_site("http://example.com/", tiny, sizeof tiny, NULL), WN_ETOOBIG);
  assert_string_equal(tiny, "");
}

static void test_site_name_valid(void **state) {
  (void)state;
  assert_true(wn_site_name_valid("example.com"));
  assert_true(wn_site_name_valid("localhost:8765"));
  assert_true(wn_site_name_valid("[::1]:8080"));
  assert_true(wn_site_name_valid("[::1]"));
  assert_true(wn_site_name_valid("a:65535"));
  assert_true(wn_site_name_valid("my_host.example.com"));
  assert_true(wn_site_name_valid("_dmarc.example.org:81"));
  assert_false(wn_site_name_valid(NULL));
  assert_false(wn_site_name_valid(""));
  assert_false(wn_site_name_valid("Example.com"));
  assert_false(wn_site_name_valid("example.com/x"));
  assert_false(wn_site_name_valid("http://example.com"));
  assert_false(wn_site_name_valid("a b"));
  assert_false(wn_site_name_valid("a%20b"));
  assert_false(wn_site_name_valid("b\xc3\xbc" "cher.example"));
  assert_false(wn_site_name_valid("a:"));
  assert_false(wn_site_name_valid("a:0"));
  assert_false(wn_site_name_valid("a:080"));
  assert_false(wn_site_name_valid("a:65536"));
  assert_false(wn_site_name_valid("a:1:2"));
  assert_false(wn_site_name_valid(":80"));
  assert_false(wn_site_name_valid("[]"));
  assert_false(wn_site_name_valid("[::1"));
  assert_false(wn_site_name_valid("[::g]"));
  char longest[WN_SITE_MAX + 2];
  memset(longest, 'a', sizeof longest);
  longest[WN_SITE_MAX] = '\0';
  assert_true(wn_site_name_valid(longest));
  longest[WN_SITE_MAX] = 'a';
  longest[WN_SITE_MAX + 1] = '\0';
  assert_false(wn_site_name_valid(longest));
}

/* ref resolved against base (NULL: no base) as a rendered link is. */
static void expect_link(const wn_url_base *base, const char *ref, const char *want) {
  wn_buf out;
  wn_buf_init(&out, 0);
  assert_int_equal(wn_url_base_resolve(base, ref, &out), WN_OK);
  assert_int_equal(out.len, strlen(want));
  if (out.len)
    assert_string_equal(out.data, want);
  wn_buf_free(&out);
}

static void test_base_resolve(void **state) {
  (void)state;
  wn_url_base *base = NULL;
  assert_int_equal(wn_url_base_parse("http://Example.COM/a/b/c.html?x=1", &base), WN_OK);
  assert_non_null(base);
  /* Trimmed, resolved by RFC 3986; unlike wn_url_resolve the fragment,
   * the host as written and any scheme are kept. */
  expect_link(base, "  d.html \n", "http://Example.COM/a/b/d.html");
  expect_link(base, "../e f.html#s", "http://Example.COM/a/e%20f.html#s");
  expect_link(base, "#top", "http://Example.COM/a/b/c.html?x=1#top");
  expect_link(base, "?q=2", "http://Example.COM/a/b/c.html?q=2");
  expect_link(base, "//cdn.example/i.png", "http://cdn.example/i.png");
  expect_link(base, "mailto:x@example.com", "mailto:x@example.com");
  expect_link(base, " \t ", "");
  /* Past WN_URL_MAX: as written. */
  char *longref = malloc(WN_URL_MAX + 2);
  assert_non_null(longref);
  memset(longref, 'a', WN_URL_MAX + 1);
  longref[WN_URL_MAX + 1] = '\0';
  expect_link(base, longref, longref);
  free(longref);
  wn_url_base_free(base);

  /* No base: as written, trimmed. */
  expect_link(NULL, " d.html ", "d.html");
  /* An empty base resolves absolute references only. */
  assert_int_equal(wn_url_base_parse(NULL, &base), WN_OK);
  expect_link(base, "HTTP://Example.COM/a/../b", "http://Example.COM/b");
  expect_link(base, "d.html", "d.html");
  expect_link(base, "#top", "#top");
  wn_url_base_free(base);

  /* Any scheme is a base; what does not parse is refused. */
  assert_int_equal(wn_url_base_parse("ftp://files.example/a/b", &base), WN_OK);
  expect_link(base, "c", "ftp://files.example/a/c");
  wn_url_base_free(base);
  base = (wn_url_base *)1;
  assert_int_equal(wn_url_base_parse("not a url", &base), WN_EINVAL);
  assert_null(base);
  wn_url_base_free(NULL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_resolve_relative),  cmocka_unit_test(test_resolve_fragments),
      cmocka_unit_test(test_normal_form),       cmocka_unit_test(test_refused),
      cmocka_unit_test(test_host),              cmocka_unit_test(test_same_site),
      cmocka_unit_test(test_site),              cmocka_unit_test(test_site_name_valid),
      cmocka_unit_test(test_base_resolve),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
