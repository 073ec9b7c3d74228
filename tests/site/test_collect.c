/*
 * tests/site/test_collect.c: the collector (wn_collector_*, site/collect.c)
 * through the public interface, on real pages of tests/fixtures: a site's
 * pages held until its sample is complete, then learned and detected; a
 * page of another layout left out of the sample; a site with a template
 * in a real store never held; the bounds on sites and bytes; failed
 * attempts and giving up; relearning; and many threads adding at once.
 */
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <winnow/winnow.h>

#include "wn_run.h"

#define NEWS "www.harbourgazette.example"
#define ARTICLE(n) WN_FIXTURES "/site/article-" #n ".html"
#define BLOG "blog.example"
#define POST(n) WN_FIXTURES "/places-blog/post-" #n ".html"
#define MANUAL_PAGE(n) WN_FIXTURES "/places-manual/page-" #n ".html"

static char g_tmp[PATH_MAX];

typedef struct page {
  char *bytes;
  size_t len;
  char url[256];
} page;

static page load(const char *path, const char *url) {
  page p;
  memset(&p, 0, sizeof p);
  p.bytes = wn_test_slurp(path, &p.len);
  snprintf(p.url, sizeof p.url, "%s", url);
  return p;
}

static void unload(page *p) {
  free(p->bytes);
  p->bytes = NULL;
}

static wn_collect_state add(wn_collector *c, const page *p, unsigned flags) {
  wn_page_input in = {.bytes = p->bytes, .len = p->len, .url = p->url};
  wn_collect_state state = WN_COLLECT_NO_SITE;
  wn_diag diag = {{0}};
  wn_err err = wn_collector_add(c, &in, NULL, flags, &state, &diag);
  if (err)
    fail_msg("add %s: %s", p->url, wn_diag_message(&diag, err));
  return state;
}

static wn_collector *make(wn_store *store, uint32_t sample, size_t max_bytes,
                          uint32_t max_sites) {
  wn_collect_options o;
  wn_collect_options_init(&o);
  if (sample)
    o.sample_pages = sample;
  if (o.min_pages > o.sample_pages)
    o.min_pages = o.sample_pages;
  if (max_bytes)
    o.max_bytes = max_bytes;
  if (max_sites)
    o.max_sites = max_sites;
  wn_collector *c = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_collector_create(store, &o, &c, &diag);
  if (err)
    fail_msg("create: %s", wn_diag_message(&diag, err));
  return c;
}

/* Detects p with learned; its text must hold want and not unwanted. */
static void expect_detect(const wn_learned *l, const char *path, const char *url,
                          const char *want, const char *unwanted) {
  wn_detector *d = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_detector_create(NULL, NULL, &d, &diag), WN_OK);
  assert_int_equal(wn_detector_use(d, l, &diag), WN_OK);
  size_t len = 0;
  char *bytes = wn_test_slurp(path, &len);
  wn_page_input in = {.bytes = bytes, .len = len, .url = url};
  wn_page_result *r = NULL;
  wn_err err = wn_detector_detect(d, &in, WN_WANT_TEXT, &r, &diag);
  if (err)
    fail_msg("detect: %s", wn_diag_message(&diag, err));
  assert_string_equal(wn_page_result_method(r), "template");
  const char *text = wn_page_result_text(r, NULL);
  if (!strstr(text, want))
    fail_msg("expected \"%s\" in:\n%s", want, text);
  if (unwanted && strstr(text, unwanted))
    fail_msg("did not expect \"%s\" in:\n%s", unwanted, text);
  wn_page_result_free(r);
  free(bytes);
  wn_detector_destroy(d);
}

static void test_options(void **state) {
  (void)state;
  wn_collect_options o;
  wn_collect_options_init(&o);
  assert_int_equal(o.sample_pages, 5);
  assert_int_equal(o.min_pages, 3);
  assert_int_equal(o.max_attempts, 3);
  assert_int_equal(o.max_sites, 4096);
  assert_int_equal(o.max_bytes, (size_t)256 * 1024 * 1024);
  wn_collector *c = NULL;
  wn_diag diag = {{0}};
  o.sample_pages = 1;
  assert_int_equal(wn_collector_create(NULL, &o, &c, &diag), WN_EINVAL);
  assert_null(c);
  wn_collect_options_init(&o);
  o.min_pages = 6;
  assert_int_equal(wn_collector_create(NULL, &o, &c, &diag), WN_EINVAL);
  wn_collect_options_init(&o);
  o.max_sites = 0;
  assert_int_equal(wn_collector_create(NULL, &o, &c, &diag), WN_EINVAL);
  assert_int_equal(wn_collector_create(NULL, NULL, &c, &diag), WN_OK);
  /* A page that names no site is no error, and not held. */
  page p = load(ARTICLE(1), "not a url");
  assert_int_equal(add(c, &p, 0), WN_COLLECT_NO_SITE);
  wn_page_input bad = {.bytes = p.bytes, .len = p.len, .site = "Not A Site!"};
  wn_collect_state st;
  assert_int_equal(wn_collector_add(c, &bad, NULL, 0, &st, &diag), WN_EINVAL);
  assert_int_equal(wn_collector_learn(c, NEWS, NULL, &diag), WN_ENOTFOUND);
  unload(&p);
  wn_collector_destroy(c);
}

/* Two sites interleaved: each is ready at its fifth page, is learned from
 * the five, and its later pages are not held. */
static void test_held_until_ready(void **state) {
  (void)state;
  wn_collector *c = make(NULL, 0, 0, 0);
  page news[6], blog[5];
  const char *articles[6] = {ARTICLE(1), ARTICLE(2), ARTICLE(3), ARTICLE(4), ARTICLE(5),
                             ARTICLE(6)};
  const char *posts[5] = {POST(1), POST(2), POST(3), POST(4), POST(5)};
  for (int i = 0; i < 6; i++) {
    char url[128];
    snprintf(url, sizeof url, "https://" NEWS "/news/story-%d.html", i + 1);
    news[i] = load(articles[i], url);
  }
  for (int i = 0; i < 5; i++) {
    char url[128];
    snprintf(url, sizeof url, "https://" BLOG "/2024/post-%d/", i + 1);
    blog[i] = load(posts[i], url);
  }
  for (int i = 0; i < 4; i++) {
    assert_int_equal(add(c, &news[i], 0), WN_COLLECT_HELD);
    assert_int_equal(add(c, &blog[i], 0), WN_COLLECT_HELD);
  }
  wn_collect_stats st;
  wn_collector_stats_get(c, &st);
  assert_int_equal(st.pages_held, 8);
  assert_int_equal(st.sites_held, 2);
  assert_true(st.bytes_held > 0);

  /* Three pages are enough for pending, two are not. */
  size_t n = 0;
  assert_int_equal(add(c, &news[4], 0), WN_COLLECT_READY);
  wn_learned *l = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_collector_learn(c, NEWS, &l, &diag);
  if (err)
    fail_msg("learn: %s", wn_diag_message(&diag, err));
  wn_learn_summary sum;
  wn_learned_summary_get(l, &sum);
  assert_string_equal(sum.site, NEWS);
  assert_int_equal(sum.n_pages, 5);
  assert_int_equal(sum.n_used, 5);
  expect_detect(l, ARTICLE(6), "https://" NEWS "/news/story-6.html", "Councillors voted unanimously",
                "Youth rowers take regional title");
  wn_learned_free(l);
  /* Learned: its next page is not held. */
  assert_int_equal(add(c, &news[5], 0), WN_COLLECT_TEMPLATE);
  wn_collector_stats_get(c, &st);
  assert_int_equal(st.sites_learned, 1);
  assert_int_equal(st.pages_learned, 5);
  assert_int_equal(st.pages_held, 4);
  (void)n;

  assert_int_equal(add(c, &blog[4], 0), WN_COLLECT_READY);
  /* A sixth page of a ready site is not needed. */
  assert_int_equal(add(c, &blog[0], 0), WN_COLLECT_READY);
  assert_int_equal(wn_collector_learn(c, BLOG, NULL, &diag), WN_OK);
  wn_collector_stats_get(c, &st);
  assert_int_equal(st.sites_learned, 2);
  assert_int_equal(st.pages_held, 0);
  assert_int_equal(st.bytes_held, 0);
  assert_int_equal(st.sites_held, 0);
  for (int i = 0; i < 6; i++)
    unload(&news[i]);
  for (int i = 0; i < 5; i++)
    unload(&blog[i]);
  wn_collector_destroy(c);
}

typedef struct pending_seen {
  char sites[4][64];
  uint32_t pages[4];
  int n;
} pending_seen;

static int on_pending(const char *site, uint32_t pages, void *ctx) {
  pending_seen *s = ctx;
  assert_true(s->n < 4);
  snprintf(s->sites[s->n], sizeof s->sites[s->n], "%s", site);
  s->pages[s->n++] = pages;
  return 0;
}

/* The sites holding enough pages, first seen first; a page of another
 * layout (a manual page under the blog's site) is left out of the sample
 * and the key page is one of the posts: its URL is nearest the others'. */
static void test_pending_and_other_layout(void **state) {
  (void)state;
  wn_collector *c = make(NULL, 0, 0, 0);
  page p[7];
  p[0] = load(MANUAL_PAGE(1), "https://" BLOG "/docs/manual/install.html");
  p[1] = load(POST(1), "https://" BLOG "/2024/post-1/");
  p[2] = load(ARTICLE(1), "https://" NEWS "/news/story-1.html");
  p[3] = load(POST(2), "https://" BLOG "/2024/post-2/");
  p[4] = load(ARTICLE(2), "https://" NEWS "/news/story-2.html");
  p[5] = load(POST(3), "https://" BLOG "/2024/post-3/");
  p[6] = load(POST(4), "https://" BLOG "/2024/post-4/");
  for (int i = 0; i < 7; i++)
    assert_int_equal(add(c, &p[i], 0), i == 6 ? WN_COLLECT_READY : WN_COLLECT_HELD);
  pending_seen seen;
  memset(&seen, 0, sizeof seen);
  wn_diag diag = {{0}};
  assert_int_equal(wn_collector_pending_each(c, 0, on_pending, &seen, &diag), WN_OK);
  assert_int_equal(seen.n, 1);
  assert_string_equal(seen.sites[0], BLOG);
  assert_int_equal(seen.pages[0], 5);
  memset(&seen, 0, sizeof seen);
  assert_int_equal(wn_collector_pending_each(c, 2, on_pending, &seen, &diag), WN_OK);
  assert_int_equal(seen.n, 2);
  assert_string_equal(seen.sites[0], BLOG); /* first seen first */
  assert_string_equal(seen.sites[1], NEWS);

  wn_learned *l = NULL;
  wn_err err = wn_collector_learn(c, BLOG, &l, &diag);
  if (err)
    fail_msg("learn: %s", wn_diag_message(&diag, err));
  wn_learn_summary sum;
  wn_learned_summary_get(l, &sum);
  assert_int_equal(sum.n_pages, 5);
  assert_int_equal(sum.n_used, 4);
  assert_string_equal(sum.key_page, "https://" BLOG "/2024/post-1/");
  int manual_left_out = 0;
  for (size_t i = 0; i < sum.n_pages; i++) {
    const wn_learn_page *lp = wn_learned_page(l, i);
    if (strstr(lp->name, "/docs/")) {
      assert_int_equal(lp->used, 0);
      manual_left_out = 1;
    }
  }
  assert_true(manual_left_out);
  wn_learned_free(l);
  for (int i = 0; i < 7; i++)
    unload(&p[i]);
  wn_collector_destroy(c);
}

/* A site whose template is in the store is never held; RELEARN holds its
 * pages all the same. */
static void test_store_and_relearn(void **state) {
  (void)state;
  char dir[PATH_MAX + 8];
  snprintf(dir, sizeof dir, "%s/store", g_tmp);
  wn_store *store = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_store_open(dir, NULL, &store, &diag), WN_OK);
  const char *paths[] = {ARTICLE(1), ARTICLE(2), ARTICLE(3)};
  wn_learned *l = NULL;
  assert_int_equal(wn_site_learn_files(NEWS, paths, 3, NULL, &l, &diag), WN_OK);
  assert_int_equal(wn_site_save(store, l, NULL, &diag), WN_OK);
  wn_learned_free(l);

  wn_collector *c = make(store, 3, 0, 0);
  page a = load(ARTICLE(4), "https://" NEWS "/news/story-4.html");
  page b = load(ARTICLE(5), "https://" NEWS "/news/story-5.html");
  page d = load(ARTICLE(6), "https://" NEWS "/news/story-6.html");
  assert_int_equal(add(c, &a, 0), WN_COLLECT_TEMPLATE);
  wn_collect_stats st;
  wn_collector_stats_get(c, &st);
  assert_int_equal(st.pages_held, 0);
  assert_int_equal(add(c, &a, WN_COLLECT_RELEARN), WN_COLLECT_HELD);
  assert_int_equal(add(c, &b, 0), WN_COLLECT_HELD);
  assert_int_equal(add(c, &d, 0), WN_COLLECT_READY);
  assert_int_equal(wn_collector_learn(c, NEWS, &l, &diag), WN_OK);
  wn_save_info info;
  assert_int_equal(wn_site_save(store, l, &info, &diag), WN_OK);
  assert_int_equal(info.generation, 2);
  wn_learned_free(l);
  unload(&a);
  unload(&b);
  unload(&d);
  wn_collector_destroy(c);
  wn_store_close(store);
}

/* A detector that found no template for a site serves the site by its
 * template from the page after one is stored through the same store
 * handle, not a cache age later. */
static void test_detector_sees_learned_site(void **state) {
  (void)state;
  char dir[PATH_MAX + 16];
  snprintf(dir, sizeof dir, "%s/store-fresh", g_tmp);
  wn_store *store = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_store_open(dir, NULL, &store, &diag), WN_OK);
  wn_detector *d = NULL;
  assert_int_equal(wn_detector_create(store, NULL, &d, &diag), WN_OK);
  size_t len = 0;
  char *bytes = wn_test_slurp(ARTICLE(6), &len);
  wn_page_input in = {.bytes = bytes, .len = len, .site = "fresh.example"};
  wn_page_result *r = NULL;
  assert_int_equal(wn_detector_detect(d, &in, WN_WANT_TEXT, &r, &diag), WN_OK);
  assert_int_equal(wn_page_result_fallback(r), WN_FALLBACK_NO_TEMPLATE);
  wn_page_result_free(r);

  wn_collector *c = make(store, 3, 0, 0);
  const char *paths[3] = {ARTICLE(1), ARTICLE(2), ARTICLE(3)};
  for (int i = 0; i < 3; i++) {
    char url[128];
    snprintf(url, sizeof url, "https://fresh.example/news/%d.html", i);
    page p = load(paths[i], url);
    assert_int_equal(add(c, &p, 0), i == 2 ? WN_COLLECT_READY : WN_COLLECT_HELD);
    unload(&p);
  }
  wn_learned *l = NULL;
  assert_int_equal(wn_collector_learn(c, "fresh.example", &l, &diag), WN_OK);
  assert_int_equal(wn_site_save(store, l, NULL, &diag), WN_OK);
  wn_learned_free(l);

  assert_int_equal(wn_detector_detect(d, &in, WN_WANT_TEXT, &r, &diag), WN_OK);
  assert_string_equal(wn_page_result_method(r), "template");
  assert_int_equal(wn_page_result_generation(r), 1);
  wn_page_result_free(r);
  free(bytes);
  wn_collector_destroy(c);
  wn_detector_destroy(d);
  wn_store_close(store);
}

/* Bounds: a page past max_bytes is not held; holding more evicts the
 * least recently seen site's pages; a site past max_sites forgets the
 * least recently seen site. */
static void test_bounds(void **state) {
  (void)state;
  page a1 = load(ARTICLE(1), "https://a.example/1.html");
  page a2 = load(ARTICLE(2), "https://a.example/2.html");
  page b1 = load(POST(1), "https://b.example/1.html");
  page c1 = load(MANUAL_PAGE(1), "https://c.example/1.html");
  /* Room for a1 and a2 and not much more. */
  wn_collector *c = make(NULL, 0, a1.len + a2.len + 16, 0);
  assert_int_equal(add(c, &a1, 0), WN_COLLECT_HELD);
  assert_int_equal(add(c, &a2, 0), WN_COLLECT_HELD);
  assert_int_equal(add(c, &b1, 0), WN_COLLECT_HELD); /* a.example gave up its pages */
  wn_collect_stats st;
  wn_collector_stats_get(c, &st);
  assert_int_equal(st.pages_held, 1);
  assert_int_equal(st.pages_evicted, 2);
  assert_true(st.bytes_held <= a1.len + a2.len + 16);
  wn_collector_destroy(c);

  c = make(NULL, 0, 100, 0);
  assert_int_equal(add(c, &a1, 0), WN_COLLECT_TOO_BIG);
  wn_collector_destroy(c);

  /* Two sites at most: the third forgets the first (and its page). */
  c = make(NULL, 0, 0, 2);
  assert_int_equal(add(c, &a1, 0), WN_COLLECT_HELD);
  assert_int_equal(add(c, &b1, 0), WN_COLLECT_HELD);
  assert_int_equal(add(c, &c1, 0), WN_COLLECT_HELD);
  wn_collector_stats_get(c, &st);
  assert_int_equal(st.pages_held, 2);
  assert_int_equal(st.pages_evicted, 1);
  /* a.example starts again from nothing. */
  assert_int_equal(add(c, &a2, 0), WN_COLLECT_HELD);
  wn_collector_stats_get(c, &st);
  assert_int_equal(st.pages_held, 2); /* b.example was forgotten in turn */
  wn_collector_destroy(c);
  unload(&a1);
  unload(&a2);
  unload(&b1);
  unload(&c1);
}

/* Pages that share no layout: each failed attempt drops the key page;
 * after max_attempts the site is given up and holds nothing. */
static void test_attempts_then_give_up(void **state) {
  (void)state;
  wn_collect_options o;
  wn_collect_options_init(&o);
  o.sample_pages = 3;
  o.min_pages = 2;
  o.max_attempts = 2;
  wn_collector *c = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_collector_create(NULL, &o, &c, &diag), WN_OK);
  page p[4];
  p[0] = load(WN_FIXTURES "/learn-check/empty.html", "https://x.example/a.html");
  p[1] = load(WN_FIXTURES "/learn-check/garbage.bin", "https://x.example/b.html");
  p[2] = load(ARTICLE(1), "https://x.example/c.html");
  p[3] = load(POST(1), "https://x.example/d.html");
  assert_int_equal(add(c, &p[0], 0), WN_COLLECT_HELD);
  assert_int_equal(add(c, &p[1], 0), WN_COLLECT_HELD);
  assert_int_equal(add(c, &p[2], 0), WN_COLLECT_READY);
  wn_learned *l = NULL;
  wn_err err = wn_collector_learn(c, "x.example", &l, &diag);
  assert_int_not_equal(err, WN_OK);
  assert_non_null(l); /* the report says why */
  wn_learned_free(l);
  wn_collect_stats st;
  wn_collector_stats_get(c, &st);
  assert_int_equal(st.learn_failures, 1);
  assert_int_equal(st.pages_held, 2);
  assert_int_equal(add(c, &p[3], 0), WN_COLLECT_READY);
  assert_int_not_equal(wn_collector_learn(c, "x.example", NULL, &diag), WN_OK);
  wn_collector_stats_get(c, &st);
  assert_int_equal(st.sites_given_up, 1);
  assert_int_equal(st.pages_held, 0);
  assert_int_equal(add(c, &p[0], 0), WN_COLLECT_GAVE_UP);
  for (int i = 0; i < 4; i++)
    unload(&p[i]);
  wn_collector_destroy(c);
}

/* Threads adding pages of their own sites and learning them at once. */
typedef struct worker {
  wn_collector *c;
  int index;
  int learned;
} worker;

static void *worker_main(void *arg) {
  worker *w = arg;
  const char *paths[5] = {ARTICLE(1), ARTICLE(2), ARTICLE(3), ARTICLE(4), ARTICLE(5)};
  for (int round = 0; round < 4; round++) {
    char site[64];
    snprintf(site, sizeof site, "t%d-%d.example", w->index, round);
    for (int i = 0; i < 5; i++) {
      size_t len = 0;
      char *bytes = wn_test_slurp(paths[i], &len);
      char url[128];
      snprintf(url, sizeof url, "https://%s/news/%d.html", site, i);
      wn_page_input in = {.bytes = bytes, .len = len, .url = url};
      wn_collect_state st;
      wn_diag diag = {{0}};
      if (wn_collector_add(w->c, &in, NULL, 0, &st, &diag) == WN_OK && st == WN_COLLECT_READY &&
          wn_collector_learn(w->c, site, NULL, &diag) == WN_OK)
        w->learned++;
      free(bytes);
    }
  }
  return NULL;
}

static void test_threads(void **state) {
  (void)state;
  wn_collector *c = make(NULL, 0, 0, 0);
  worker w[4];
  pthread_t t[4];
  for (int i = 0; i < 4; i++) {
    w[i] = (worker){.c = c, .index = i};
    assert_int_equal(pthread_create(&t[i], NULL, worker_main, &w[i]), 0);
  }
  int learned = 0;
  for (int i = 0; i < 4; i++) {
    pthread_join(t[i], NULL);
    learned += w[i].learned;
  }
  assert_int_equal(learned, 16);
  wn_collect_stats st;
  wn_collector_stats_get(c, &st);
  assert_int_equal(st.sites_learned, 16);
  assert_int_equal(st.pages_held, 0);
  wn_collector_destroy(c);
}

static int setup(void **state) {
  (void)state;
  if (wn_test_temp_dir(g_tmp, sizeof g_tmp, "wn-collect") != 0)
    return -1;
  return wn_init() == WN_OK ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  wn_test_remove_tree(g_tmp);
  wn_cleanup();
  return 0;
}

typedef struct count_ctx {
  const char *site;
  uint32_t pages;
  uint32_t sites;
} count_ctx;

static int count_pending(const wn_pending_site *s, void *ctx) {
  count_ctx *k = ctx;
  k->sites++;
  if (strcmp(s->site, k->site) == 0)
    k->pages = s->pages;
  return 0;
}

static count_ctx pending_of(wn_store *store, const char *site) {
  count_ctx k = {site, 0, 0};
  assert_int_equal(wn_store_pending_each(store, count_pending, &k, NULL), WN_OK);
  return k;
}

/* Pages of a site too few in one run are kept in the store: the next
 * collector (the next run, a restarted daemon) reads them back, the site
 * is learned from both runs' pages, and storing its template drops them.
 * A page seen again is not held twice; a read-only store keeps nothing. */
static void test_pending_across_runs(void **state) {
  (void)state;
  char dir[PATH_MAX + 16];
  snprintf(dir, sizeof dir, "%s/store-pending", g_tmp);
  wn_store *store = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_store_open(dir, NULL, &store, &diag), WN_OK);
  page a[5];
  const char *articles[5] = {ARTICLE(1), ARTICLE(2), ARTICLE(3), ARTICLE(4), ARTICLE(5)};
  for (int i = 0; i < 5; i++) {
    char url[128];
    snprintf(url, sizeof url, "https://" NEWS "/news/story-%d.html", i + 1);
    a[i] = load(articles[i], url);
  }
  /* Run 1: two pages, too few (pending wants 3). */
  wn_collector *c = make(store, 0, 0, 0);
  assert_int_equal(add(c, &a[0], 0), WN_COLLECT_HELD);
  assert_int_equal(add(c, &a[1], 0), WN_COLLECT_HELD);
  pending_seen none = {{{0}}, {0}, 0};
  assert_int_equal(wn_collector_pending_each(c, 0, on_pending, &none, &diag), WN_OK);
  assert_int_equal(none.n, 0);
  assert_int_equal(wn_collector_flush(c, &diag), WN_OK);
  wn_collect_stats st;
  wn_collector_stats_get(c, &st);
  assert_int_equal(st.pages_kept, 2);
  wn_collector_destroy(c);
  assert_int_equal(pending_of(store, NEWS).pages, 2);

  /* Run 2: the two come back; a page seen again is not held twice. */
  c = make(store, 0, 0, 0);
  assert_int_equal(add(c, &a[1], 0), WN_COLLECT_HELD);
  wn_collector_stats_get(c, &st);
  assert_int_equal(st.pages_restored, 2);
  assert_int_equal(st.pages_held, 2);
  assert_int_equal(add(c, &a[2], 0), WN_COLLECT_HELD);
  wn_collector_destroy(c); /* flushes */
  assert_int_equal(pending_of(store, NEWS).pages, 3);

  /* A read-only store: its pages come back, nothing is written. */
  wn_store_options ro;
  wn_store_options_init(&ro);
  ro.read_only = 1;
  wn_store *rs = NULL;
  wn_store_close(store);
  assert_int_equal(wn_store_open(dir, &ro, &rs, &diag), WN_OK);
  c = make(rs, 0, 0, 0);
  assert_int_equal(add(c, &a[3], 0), WN_COLLECT_HELD);
  wn_collector_stats_get(c, &st);
  assert_int_equal(st.pages_restored, 3);
  assert_int_equal(wn_collector_flush(c, &diag), WN_OK);
  wn_collector_stats_get(c, &st);
  assert_int_equal(st.pages_kept, 0);
  wn_collector_destroy(c);
  wn_store_close(rs);
  assert_int_equal(wn_store_open(dir, NULL, &store, &diag), WN_OK);
  assert_int_equal(pending_of(store, NEWS).pages, 3);

  /* Run 3: five pages with the store's three; learned, stored, gone. */
  c = make(store, 0, 0, 0);
  assert_int_equal(add(c, &a[3], 0), WN_COLLECT_HELD);
  assert_int_equal(add(c, &a[4], 0), WN_COLLECT_READY);
  wn_learned *l = NULL;
  wn_err err = wn_collector_learn(c, NEWS, &l, &diag);
  if (err)
    fail_msg("learn: %s", wn_diag_message(&diag, err));
  wn_learn_summary sum;
  wn_learned_summary_get(l, &sum);
  assert_int_equal(sum.n_pages, 5);
  assert_int_equal(sum.n_used, 5);
  assert_int_equal(wn_site_save(store, l, NULL, &diag), WN_OK);
  wn_learned_free(l);
  wn_collector_destroy(c);
  count_ctx k = pending_of(store, NEWS);
  assert_int_equal(k.pages, 0);
  assert_int_equal(k.sites, 0);
  wn_test_store_walk(store);

  /* keep_pending 0: nothing kept. */
  wn_collect_options o;
  wn_collect_options_init(&o);
  o.keep_pending = 0;
  assert_int_equal(wn_collector_create(store, &o, &c, &diag), WN_OK);
  page other = load(POST(1), "https://" BLOG "/2024/post-1/");
  assert_int_equal(add(c, &other, 0), WN_COLLECT_HELD);
  wn_collector_destroy(c);
  assert_int_equal(pending_of(store, BLOG).sites, 0);
  unload(&other);
  for (int i = 0; i < 5; i++)
    unload(&a[i]);
  wn_store_close(store);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_pending_across_runs),
      cmocka_unit_test(test_options),
      cmocka_unit_test(test_held_until_ready),
      cmocka_unit_test(test_pending_and_other_layout),
      cmocka_unit_test(test_store_and_relearn),
      cmocka_unit_test(test_detector_sees_learned_site),
      cmocka_unit_test(test_bounds),
      cmocka_unit_test(test_attempts_then_give_up),
      cmocka_unit_test(test_threads),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
