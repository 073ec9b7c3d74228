/*
 * tests/learn/test_variants.c: other versions of a page among the
 * samples (learn.h, "Other versions of a page"): language tags in paths,
 * lang, hreflang, near-duplicates; learning from files and by crawling
 * the fixture site tests/fixtures/lang-site from a real HTTP server.
 *
 * The fixture: articles of a local paper under en/ (harbour, ferry,
 * library, market, bridge: one layout, lang="en"), the French versions of
 * three of them under fr/ (lang="fr", each named by its English page's
 * <link rel="alternate" hreflang> and an <a hreflang> language switch),
 * and under en/: harbour-de.html, the harbour story in German with no
 * lang at all (only its text tells); lettre.html, a French article
 * (lang="fr") at an English path; print/harbour.html and
 * print/ferry.html, copies of two articles. The key page en/harbour.html
 * links to all of them (and to /fr/ferry.html, /fr/library.html without
 * hreflang) besides its nav links, which are 404.
 */
#include "wn_crawl_test.h"

#include <stdlib.h>

#include "learn/learn.h"
#include <winnow/winnow.h>
#include "wn_httpd.h"

#define SITE WN_FIXTURES "/lang-site"
#define KEY_URL "http://courier.example/en/harbour.html"
#define AT(path) "http://courier.example" path

static wn_dom_page *parse_file(const char *path, int keep_xml) {
  size_t len = 0;
  char *bytes = wn_test_read(path, &len);
  wn_dom_options o = {.keep_xml = keep_xml};
  wn_dom_page *page = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_dom_parse(bytes, len, &o, &page, &diag), WN_OK);
  free(bytes);
  return page;
}

static void test_language_tag(void **state) {
  (void)state;
  int sub = -1;
  assert_true(wn_learn_language_tag("en", 2, &sub));
  assert_int_equal(sub, 0);
  assert_true(wn_learn_language_tag("de-de", 5, &sub));
  assert_int_equal(sub, 1);
  assert_true(wn_learn_language_tag("pt_BR", 5, NULL));
  assert_true(wn_learn_language_tag("zh-Hans", 7, NULL));
  assert_true(wn_learn_language_tag("sr-Latn-RS", 10, NULL));
  assert_true(wn_learn_language_tag("es-419", 6, NULL));
  assert_true(wn_learn_language_tag("yue-HK", 6, NULL));
  /* Words, not languages: not ISO 639-1, three letters bare, too long. */
  assert_false(wn_learn_language_tag("js", 2, NULL));
  assert_false(wn_learn_language_tag("ui", 2, NULL));
  assert_false(wn_learn_language_tag("api", 3, NULL));
  assert_false(wn_learn_language_tag("news", 4, NULL));
  assert_false(wn_learn_language_tag("2015", 4, NULL));
  assert_false(wn_learn_language_tag("en-", 3, NULL));
  assert_false(wn_learn_language_tag("en-gb-x", 7, NULL));
  assert_false(wn_learn_language_tag("", 0, NULL));

  assert_true(wn_learn_lang_differs("en", "fr"));
  assert_false(wn_learn_lang_differs("en", "en-GB"));
  assert_false(wn_learn_lang_differs("EN", " en "));
  assert_false(wn_learn_lang_differs(NULL, "fr"));
  assert_false(wn_learn_lang_differs("en", ""));
}

static void test_url_language(void **state) {
  (void)state;
  char why[256];
  const char *k = KEY_URL;
  /* The key page says lang="en": its en segment is its language. */
  assert_true(wn_learn_url_other_language(k, "en", "http://courier.example/fr/harbour.html", why,
                                          sizeof why));
  assert_non_null(strstr(why, "\"fr\""));
  assert_true(wn_learn_url_other_language(k, "en", AT("/fr/ferry.html"), NULL, 0));
  assert_true(wn_learn_url_other_language(k, "en-US", "http://courier.example/en-gb/ferry.html",
                                          NULL, 0));
  assert_false(wn_learn_url_other_language(k, "en", AT("/en/ferry.html"), NULL, 0));
  assert_false(wn_learn_url_other_language(k, "en", "http://courier.example/js/app.html", NULL, 0));
  assert_false(wn_learn_url_other_language(k, "en", "http://courier.example/ferry.html", NULL, 0));
  /* A bare two-letter segment the key page's lang does not confirm is a
   * section, not a language: /it/ and /hr/ of an English site. */
  assert_false(wn_learn_url_other_language("http://corp.example/it/jobs.html", "en",
                                           "http://corp.example/hr/jobs.html", NULL, 0));
  /* Without a lang: a tag with a region counts; a bare one only where
   * the two URLs differ in it alone. */
  assert_true(wn_learn_url_other_language("http://shop.example/de-de/cart.html", NULL,
                                          "http://shop.example/fr-fr/help.html", NULL, 0));
  assert_true(wn_learn_url_other_language(k, NULL, AT("/fr/harbour.html"), NULL, 0));
  assert_false(wn_learn_url_other_language(k, NULL, AT("/fr/ferry.html"), NULL, 0));
  /* The language as a part of the file name (index.en.html). */
  assert_true(wn_learn_url_other_language("http://doc.example/ch01.en.html", "en",
                                          "http://doc.example/ch02.fr.html", why, sizeof why));
  assert_non_null(strstr(why, "file name"));
  assert_true(wn_learn_url_other_language("http://doc.example/ch01.en.html", NULL,
                                          "http://doc.example/ch01.fr.html", NULL, 0));
  assert_false(wn_learn_url_other_language("http://doc.example/ch01.en.html", NULL,
                                           "http://doc.example/ch02.fr.html", NULL, 0));
  assert_false(wn_learn_url_other_language("http://doc.example/ch01.en.html", "en",
                                           "http://doc.example/ch02.en.html", NULL, 0));
  assert_false(wn_learn_url_other_language("http://doc.example/a.tar.gz", "en",
                                           "http://doc.example/b.tar.gz", NULL, 0));
}

static void test_alternates_and_rank(void **state) {
  (void)state;
  wn_dom_page *key = parse_file(SITE "/en/harbour.html", 1);
  wn_link *alts = NULL;
  size_t n_alts = 0;
  wn_diag diag = {{0}};
  assert_int_equal(wn_learn_alternates(key, KEY_URL, &alts, &n_alts, &diag), WN_OK);
  /* <link rel="alternate" hreflang="fr"> and <a hreflang="fr">. */
  assert_int_equal(n_alts, 2);
  for (size_t i = 0; i < n_alts; i++)
    assert_string_equal(alts[i].url, "http://courier.example/fr/harbour.html");
  wn_links_free(alts, n_alts);

  wn_link *links = NULL;
  size_t n_links = 0;
  assert_int_equal(wn_learn_links(key, KEY_URL, 0, &links, &n_links, &diag), WN_OK);
  wn_nset_candidate *ranked = NULL;
  size_t n = 0;
  assert_int_equal(wn_learn_nset_rank(key, KEY_URL, links, n_links, 0, 0, &ranked, &n, &diag),
                   WN_OK);
  /* Nav (4), ferry, library, market, harbour-de, bridge, lettre,
   * print/harbour; none of fr/. */
  assert_int_equal(n, 11);
  for (size_t i = 0; i < n; i++)
    assert_null(strstr(links[ranked[i].link].url, "/fr/"));
  free(ranked);
  wn_links_free(links, n_links);
  wn_dom_free(key);
}

static void test_near_duplicate(void **state) {
  (void)state;
  wn_dom_page *key = parse_file(SITE "/en/harbour.html", 0);
  static const struct {
    const char *path;
    wn_learn_dup want;
  } cases[] = {
      {SITE "/en/harbour-de.html", WN_LEARN_DUP_SHAPE},  /* German, no lang */
      {SITE "/fr/harbour.html", WN_LEARN_DUP_SHAPE},     /* French */
      {SITE "/en/print/harbour.html", WN_LEARN_DUP_COPY},
      {SITE "/en/ferry.html", WN_LEARN_DUP_NONE},        /* same paragraph count */
      {SITE "/en/bridge.html", WN_LEARN_DUP_NONE},
      {SITE "/fr/ferry.html", WN_LEARN_DUP_NONE},        /* another article */
  };
  wn_diag diag = {{0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    wn_dom_page *page = parse_file(cases[i].path, 0);
    wn_learn_dup dup = (wn_learn_dup)-1, back = (wn_learn_dup)-1;
    assert_int_equal(wn_learn_near_duplicate(key, page, &dup, &diag), WN_OK);
    assert_int_equal(wn_learn_near_duplicate(page, key, &back, &diag), WN_OK);
    if (dup != cases[i].want || back != cases[i].want)
      fail_msg("%s: %d and %d, want %d", cases[i].path, (int)dup, (int)back, (int)cases[i].want);
    wn_dom_free(page);
  }
  wn_dom_free(key);
  /* Pages of one template that only look alike: hand-made articles with
   * paragraphs of like length, generated manual pages of one vocabulary
   * cut to one pattern of lengths. */
  static const char *const alike[][2] = {
      {WN_FIXTURES "/site/article-1.html", WN_FIXTURES "/site/article-2.html"},
      {WN_FIXTURES "/site/article-2.html", WN_FIXTURES "/site/article-5.html"},
      {WN_FIXTURES "/places-sections/page-1.html", WN_FIXTURES "/places-sections/page-2.html"},
  };
  for (size_t i = 0; i < sizeof alike / sizeof alike[0]; i++) {
    wn_dom_page *a = parse_file(alike[i][0], 0), *b = parse_file(alike[i][1], 0);
    wn_learn_dup dup = (wn_learn_dup)-1;
    assert_int_equal(wn_learn_near_duplicate(a, b, &dup, &diag), WN_OK);
    if (dup != WN_LEARN_DUP_NONE)
      fail_msg("%s and %s: %d", alike[i][0], alike[i][1], (int)dup);
    wn_dom_free(a);
    wn_dom_free(b);
  }
}

/* Learning from files: each other version is left out with a warning
 * that says why, by name; --force keeps them. */
static void test_files(void **state) {
  (void)state;
  static const char *const paths[] = {
      SITE "/en/harbour.html",    SITE "/fr/harbour.html",       SITE "/en/ferry.html",
      SITE "/en/harbour-de.html", SITE "/en/library.html",       SITE "/en/print/ferry.html",
      SITE "/en/lettre.html",     SITE "/en/market.html",        SITE "/en/print/harbour.html",
      SITE "/en/bridge.html"};
  enum { N = sizeof paths / sizeof paths[0] };
  static const char *const why[N] = {
      NULL, "its lang is \"fr\", the key page's \"en\": another language", NULL,
      "a near-duplicate of the key page: the same DOM and text blocks of the same lengths",
      NULL, "a near-duplicate of " SITE "/en/ferry.html: the same DOM and the same text (a copy)",
      "its lang is \"fr\"", NULL,
      "a near-duplicate of the key page: the same DOM and the same text",
      NULL};
  wn_learn_options o;
  wn_learn_options_init(&o);
  wn_learned *l = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_site_learn_files("courier.example", paths, N, &o, &l, &diag);
  if (err)
    fail_msg("%s", wn_diag_message(&diag, err));
  for (size_t i = 0; i < N; i++) {
    const wn_learn_page *p = wn_learned_page(l, i);
    if (!why[i]) {
      assert_true(p->used);
      continue;
    }
    assert_false(p->used);
    assert_int_equal(p->err, WN_EEMPTY);
    if (!strstr(p->message, why[i]))
      fail_msg("%s: \"%s\", want \"%s\"", paths[i], p->message, why[i]);
  }
  wn_learn_summary sum;
  wn_learned_summary_get(l, &sum);
  assert_int_equal(sum.n_used, 5);
  /* The template of the five English articles alone. */
  wn_dom_page *en[5];
  static const size_t en_index[5] = {0, 2, 4, 7, 9};
  for (size_t i = 0; i < 5; i++)
    en[i] = parse_file(paths[en_index[i]], 0);
  wn_template *plain = NULL;
  assert_int_equal(wn_learn_template((const wn_dom_page *const *)en, 5, &o, &plain, &diag), WN_OK);
  uint32_t want = 0;
  wn_template_nodes(plain, &want);
  assert_int_equal(sum.template_nodes, want);
  wn_template_free(plain);
  for (size_t i = 0; i < 5; i++)
    wn_dom_free(en[i]);
  wn_learned_free(l);

  /* force: every page, as before, and the versions of the key page say
   * they were kept though they are. */
  o.force = 1;
  l = NULL;
  assert_int_equal(wn_site_learn_files("courier.example", paths, N, &o, &l, &diag), WN_OK);
  wn_learned_summary_get(l, &sum);
  assert_int_equal(sum.n_used, N);
  const wn_learn_page *fr = wn_learned_page(l, 1);
  assert_true(fr->used);
  if (strncmp(fr->message, "kept by force, though its lang is \"fr\"", 38) != 0)
    fail_msg("fr/harbour.html kept by force: \"%s\"", fr->message);
  wn_learned_free(l);

  /* Nothing but versions of the key page: refused, saying so. */
  static const char *const only[] = {SITE "/en/harbour.html", SITE "/fr/harbour.html",
                                     SITE "/en/print/harbour.html"};
  o.force = 0;
  l = NULL;
  wn_diag_clear(&diag);
  assert_int_equal(wn_site_learn_files("courier.example", only, 3, &o, &l, &diag), WN_EEMPTY);
  assert_non_null(strstr(wn_diag_message(&diag, WN_EEMPTY), "other versions of the key page"));
  wn_learned_free(l);
}

/* ---- by crawling: the fixture from 127.0.0.1 -------------------------------- */

static void test_crawl(void **state) {
  (void)state;
  wn_httpd *srv = wn_httpd_start(SITE);
  assert_non_null(srv);
  char url[256];
  wn_httpd_url(srv, "/en/harbour.html", url, sizeof url);
  wn_crawl *crawl = wn_test_quick_crawl();
  /* n = 6: more than the four other English articles, so that every
   * candidate is fetched and judged. */
  wn_learn_crawl_options o = {.n = 6};
  wn_learn_crawl_result *r = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_learn_crawl(crawl, url, &o, &r, &diag);
  if (err)
    fail_msg("%s", wn_diag_message(&diag, err));
  assert_non_null(r->tpl);
  /* Not one French page was fetched: they were no candidates. */
  static const char *const fr[] = {"/fr/harbour.html", "/fr/ferry.html", "/fr/library.html"};
  for (size_t i = 0; i < 3; i++)
    assert_int_equal(wn_httpd_requests(srv, fr[i]), 0);
  for (size_t i = 0; i < r->n_pages; i++)
    assert_null(strstr(r->pages[i].url, "/fr/"));
  /* 1 + 4 nav (404) + 7 articles and versions. */
  assert_int_equal(r->n_pages, 12);
  assert_int_equal(r->n_used, 1 + 4);
  static const char *const used[] = {"/en/ferry.html", "/en/library.html", "/en/market.html",
                                     "/en/bridge.html"};
  for (size_t i = 0; i < 4; i++)
    assert_true(wn_test_crawled(r, used[i])->used);
  const wn_learn_crawl_page *de = wn_test_crawled(r, "/en/harbour-de.html");
  assert_false(de->used);
  assert_non_null(strstr(de->message, "near-duplicate of the key page"));
  const wn_learn_crawl_page *lettre = wn_test_crawled(r, "/en/lettre.html");
  assert_false(lettre->used);
  assert_non_null(strstr(lettre->message, "another language"));
  const wn_learn_crawl_page *copy = wn_test_crawled(r, "/en/print/harbour.html");
  assert_false(copy->used);
  assert_non_null(strstr(copy->message, "(a copy)"));
  /* The template is the one of the five English articles. */
  static const char *const en[] = {"/en/harbour.html", "/en/ferry.html", "/en/library.html",
                                   "/en/market.html", "/en/bridge.html"};
  wn_dom_page *pages[5];
  for (size_t i = 0; i < 5; i++) {
    char path[256];
    snprintf(path, sizeof path, "%s%s", SITE, en[i]);
    pages[i] = parse_file(path, 0);
  }
  wn_template *plain = NULL;
  assert_int_equal(wn_learn_template((const wn_dom_page *const *)pages, 5, NULL, &plain, &diag),
                   WN_OK);
  uint32_t a = 0, b = 0;
  wn_template_nodes(plain, &a);
  wn_template_nodes(r->tpl, &b);
  assert_int_equal(a, b);
  wn_template_free(plain);
  for (size_t i = 0; i < 5; i++)
    wn_dom_free(pages[i]);
  wn_learn_crawl_result_free(r);
  wn_crawl_destroy(crawl);
  wn_httpd_stop(srv);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_language_tag),
      cmocka_unit_test(test_url_language),
      cmocka_unit_test(test_alternates_and_rank),
      cmocka_unit_test(test_near_duplicate),
      cmocka_unit_test(test_files),
      cmocka_unit_test(test_crawl),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
