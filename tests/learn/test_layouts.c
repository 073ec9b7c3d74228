/* tests/learn/test_layouts.c: a template per layout (learn/learn.c,
 * wn_learn_layouts; detect/policy.c, the layout a page fits).
 *
 * tests/fixtures/layouts-site (make_fixtures.py writes it) is one site of
 * three layouts under one chrome: articles, section fronts, reference
 * pages, and a gallery of a fourth layout. Served on 127.0.0.1 and crawled
 * from an article, as `winnow learn URL` does. */
#include "wn_crawl_test.h"
#include "wn_httpd.h"

#include <stdlib.h>
#include <string.h>

#include <winnow/winnow.h>

#include "detect/detect.h"
#include "template/template.h"

#define SITE WN_FIXTURES "/layouts-site"

typedef struct served {
  wn_detect_result *res;
  wn_dom_page *page;
  char *text;
} served;

static served detect(const wn_template *tpl, const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", SITE, name);
  served s = {0};
  s.page = wn_test_parse_file(path);
  wn_detect_options o;
  wn_detect_options_init(&o);
  wn_diag diag = {{0}};
  if (wn_detect_page(s.page, tpl, &o, 0, &s.res, &diag))
    fail_msg("detect %s: %s", name, diag.msg);
  size_t len = 0;
  wn_buf b;
  wn_buf_init(&b, 0);
  assert_int_equal(wn_detect_render_text(s.page, s.res, &b), WN_OK);
  s.text = wn_buf_take(&b, &len);
  if (!s.text)
    s.text = calloc(1, 1);
  return s;
}

static void served_free(served *s) {
  wn_detect_result_free(s->res);
  wn_dom_free(s->page);
  free(s->text);
}

static wn_learn_crawl_result *crawl_site(wn_httpd **srv) {
  *srv = wn_httpd_start(SITE);
  assert_non_null(*srv);
  char url[256];
  wn_httpd_url(*srv, "/article-1.html", url, sizeof url);
  wn_crawl *crawl = wn_test_quick_crawl();
  wn_learn_crawl_result *r = NULL;
  wn_diag diag = {{0}};
  if (wn_learn_crawl(crawl, url, NULL, &r, &diag))
    fail_msg("crawl: %s", diag.msg);
  wn_crawl_destroy(crawl);
  return r;
}

/* One crawl learns the three layouts; each layout's unseen page is served
 * by its own template, its content whole; the gallery fits none and the
 * single-page method reads it, saying so. */
static void test_crawl_learns_layouts(void **state) {
  (void)state;
  wn_httpd *srv = NULL;
  wn_learn_crawl_result *r = crawl_site(&srv);
  assert_non_null(r->tpl);
  assert_int_equal(wn_template_layout_count(r->tpl), 3);
  /* The report: fronts and reference pages learned into their layouts
   * (2 and 3 in some order), the gallery left out as another layout. */
  uint32_t front = wn_test_crawled(r, "/front-1.html")->layout;
  uint32_t ref = wn_test_crawled(r, "/ref-1.html")->layout;
  assert_true(front >= 1 && ref >= 1 && front != ref);
  for (int k = 2; k <= 5; k++) {
    char name[32];
    snprintf(name, sizeof name, "/front-%d.html", k);
    assert_true(wn_test_crawled(r, name)->used);
    assert_int_equal(wn_test_crawled(r, name)->layout, front);
    snprintf(name, sizeof name, "/ref-%d.html", k);
    assert_int_equal(wn_test_crawled(r, name)->layout, ref);
  }
  const wn_learn_crawl_page *g = wn_test_crawled(r, "/gallery.html");
  assert_false(g->used);
  assert_non_null(strstr(g->message, "another layout"));

  served a = detect(r->tpl, "article-7.html");
  assert_string_equal(wn_detect_method(a.res), "template");
  assert_int_equal(wn_detect_result_layout(a.res), 0);
  assert_non_null(strstr(a.text, "Story 7: the"));
  assert_null(strstr(a.text, "printed in the valley"));
  served f = detect(r->tpl, "front-6.html");
  assert_string_equal(wn_detect_method(f.res), "template");
  assert_int_equal(wn_detect_result_layout(f.res), front);
  assert_null(wn_detect_result_place(f.res)); /* its own place served it */
  assert_non_null(strstr(f.text, "Section"));
  assert_null(strstr(f.text, "Almanac"));     /* the menu */
  served e = detect(r->tpl, "ref-6.html");
  assert_string_equal(wn_detect_method(e.res), "template");
  assert_int_equal(wn_detect_result_layout(e.res), ref);
  assert_null(wn_detect_result_place(e.res));
  assert_non_null(strstr(e.text, "Almanac entry"));
  assert_non_null(strstr(e.text, "level:")); /* the rows' labels */
  served p = detect(r->tpl, "gallery.html");
  assert_int_equal(wn_detect_fallback_reason(p.res), WN_FALLBACK_LOW_CONFIDENCE);
  assert_non_null(wn_detect_result_place(p.res));
  assert_non_null(strstr(wn_detect_result_place(p.res), "no layout"));
  assert_true(strlen(p.text) > 100); /* the captions */
  assert_null(strstr(p.text, "Valley Courier"));
  served_free(&a);
  served_free(&f);
  served_free(&e);
  served_free(&p);

  /* The record: one, holding the three; read back, it serves alike. */
  wn_buf b;
  wn_buf_init(&b, 0);
  assert_int_equal(wn_template_encode(r->tpl, &b, NULL), WN_OK);
  wn_template *back = NULL;
  assert_int_equal(wn_template_decode(b.data, b.len, &back, NULL), WN_OK);
  served f2 = detect(back, "front-6.html");
  assert_int_equal(wn_detect_result_layout(f2.res), front);
  served_free(&f2);
  wn_template_free(back);
  wn_buf_free(&b);
  wn_learn_crawl_result_free(r);
  wn_httpd_stop(srv);
}

/* Pages left out of the key page's layout that share only a bare skeleton
 * (a home page, an about page: a heading and a line of links under
 * <body>) are no layout: every page of any site would fit them. The
 * nset-site fixture has three. */
static void test_skeleton_is_no_layout(void **state) {
  (void)state;
  wn_httpd *srv = wn_httpd_start(WN_FIXTURES "/nset-site");
  assert_non_null(srv);
  char url[256];
  wn_httpd_url(srv, "/news/2015/article-7.html", url, sizeof url);
  wn_crawl *crawl = wn_test_quick_crawl();
  wn_learn_crawl_result *r = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_learn_crawl(crawl, url, NULL, &r, &diag), WN_OK);
  assert_int_equal(wn_template_layout_count(r->tpl), 1);
  assert_false(wn_test_crawled(r, "/about.html")->used);
  /* A page of another site is not taken in by such a layout. */
  wn_dom_page *page = wn_test_parse_file(WN_FIXTURES "/site/article-6.html");
  wn_detect_options o;
  wn_detect_options_init(&o);
  wn_detect_result *res = NULL;
  assert_int_equal(wn_detect_page(page, r->tpl, &o, 0, &res, &diag), WN_OK);
  assert_int_equal(wn_detect_fallback_reason(res), WN_FALLBACK_LOW_CONFIDENCE);
  wn_detect_result_free(res);
  wn_dom_free(page);
  wn_learn_crawl_result_free(r);
  wn_crawl_destroy(crawl);
  wn_httpd_stop(srv);
}

/* Learning from files: the pages given of another layout are learned as
 * one when there are enough of them; force learns none. */
static void test_files_layouts(void **state) {
  (void)state;
  const char *names[] = {"article-1.html", "article-2.html", "article-3.html", "article-4.html",
                         "front-1.html",   "front-2.html",   "ref-1.html",     "front-3.html"};
  enum { N = sizeof names / sizeof *names };
  wn_dom_page *pages[N];
  char path[512];
  for (size_t i = 0; i < N; i++) {
    snprintf(path, sizeof path, "%s/%s", SITE, names[i]);
    pages[i] = wn_test_parse_file(path);
  }
  wn_learn_check checks[N];
  wn_template *tpl = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_learn_pages((const wn_dom_page *const *)pages, N, NULL, &tpl, checks, &diag),
                   WN_OK);
  assert_int_equal(wn_template_layout_count(tpl), 2);
  assert_true(checks[4].used && checks[5].used && checks[7].used);
  assert_int_equal(checks[1].layout, 0);
  assert_int_equal(checks[4].layout, 1);
  assert_int_equal(checks[7].layout, 1);
  assert_false(checks[6].used); /* one reference page: too few */
  assert_true(checks[6].other_layout);
  wn_template_free(tpl);
  wn_learn_options lo;
  wn_learn_options_init(&lo);
  lo.force = 1;
  assert_int_equal(wn_learn_pages((const wn_dom_page *const *)pages, N, &lo, &tpl, checks, &diag),
                   WN_OK);
  assert_int_equal(wn_template_layout_count(tpl), 1);
  wn_template_free(tpl);
  for (size_t i = 0; i < N; i++)
    wn_dom_free(pages[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_crawl_learns_layouts),
      cmocka_unit_test(test_skeleton_is_no_layout),
      cmocka_unit_test(test_files_layouts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
