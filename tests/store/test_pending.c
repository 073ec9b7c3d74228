/*
 * tests/store/test_pending.c: pending samples in a real LMDB store
 * (store/pending.c): pages kept per site and read back byte for byte,
 * duplicates and the per-site bound, a stored template (put, import)
 * dropping them, list, totals and drop; the bounds on sites and bytes
 * under 100,000 sites of one page each, least recently seen first out;
 * every flipped bit and truncation of a real entry read as damage, never
 * a crash, and written over; damaged totals counted again; a full map.
 */
#include <limits.h>
#include <lmdb.h>
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

#include "store/store.h"
#include "wn_run.h"

static char g_dir[PATH_MAX];

static int setup(void **state) {
  (void)state;
  return wn_test_temp_dir(g_dir, sizeof g_dir, "wn-pending");
}

static int teardown(void **state) {
  (void)state;
  wn_test_remove_tree(g_dir);
  return 0;
}

static wn_store *open_store(size_t map_size) {
  wn_store_options o;
  wn_store_options_init(&o);
  if (map_size)
    o.map_size = map_size;
  wn_store *store = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_store_open(g_dir, &o, &store, &diag);
  if (err)
    fail_msg("open: %s", wn_diag_message(&diag, err));
  return store;
}

static void fresh(void) {
  wn_test_remove_tree(g_dir);
}

static const wn_store_pending_limits g_lim = {.site_pages = 5, .sites = 1000,
                                              .bytes = 64u << 20};

static wn_err keep(wn_store *store, const char *site, int drop, const wn_store_pending_page *pages,
                   uint32_t n, wn_store_pending_outcome *res) {
  wn_store_pending_op op = {.site = site, .drop = drop, .pages = pages, .n_pages = n};
  wn_diag diag = {{0}};
  return wn_store_pending_apply(store, &op, 1, &g_lim, res, &diag);
}

static uint32_t pages_of(wn_store *store, const char *site) {
  wn_store_pending_held *got = NULL;
  uint32_t n = 0;
  wn_err err = wn_store_pending_get(store, site, 64, &got, &n, NULL);
  wn_store_pending_held_free(got, n);
  return err == WN_ENOTFOUND ? 0 : err ? UINT32_MAX : n;
}

static void test_round_trip(void **state) {
  (void)state;
  fresh();
  wn_store *store = open_store(0);
  size_t len = 0;
  char *html = wn_test_slurp(WN_FIXTURES "/site/article-1.html", &len);
  wn_store_pending_page p[3] = {
      {.name = "http://a.example/1", .url = "http://a.example/1", .charset = "utf-8",
       .bytes = html, .len = len},
      {.name = "page2.html", .bytes = "<p>two</p>", .len = 10},
      {.name = "http://a.example/3", .url = "http://a.example/3", .bytes = "", .len = 0}};
  wn_store_pending_outcome res;
  assert_int_equal(keep(store, "a.example", 0, p, 2, &res), WN_OK);
  assert_int_equal(res.added, 2);
  /* The same page again is not kept twice; a third is appended. */
  assert_int_equal(keep(store, "a.example", 0, p, 3, &res), WN_OK);
  assert_int_equal(res.added, 1);
  assert_int_equal(res.skipped, 2);

  wn_store_pending_held *got = NULL;
  uint32_t n = 0;
  assert_int_equal(wn_store_pending_get(store, "a.example", 64, &got, &n, NULL), WN_OK);
  assert_int_equal(n, 3);
  assert_string_equal(got[0].name, "http://a.example/1");
  assert_string_equal(got[0].url, "http://a.example/1");
  assert_string_equal(got[0].charset, "utf-8");
  assert_int_equal(got[0].len, len);
  assert_memory_equal(got[0].bytes, html, len);
  assert_string_equal(got[1].name, "page2.html");
  assert_null(got[1].url);
  assert_string_equal(got[1].charset, "");
  assert_memory_equal(got[1].bytes, "<p>two</p>", 10);
  assert_int_equal(got[2].len, 0);
  wn_store_pending_held_free(got, n);
  /* At most max_pages read back. */
  assert_int_equal(wn_store_pending_get(store, "a.example", 2, &got, &n, NULL), WN_OK);
  assert_int_equal(n, 2);
  wn_store_pending_held_free(got, n);

  /* Compressed: the page takes less room than its bytes. */
  wn_pending_totals t;
  assert_int_equal(wn_store_pending_totals_get(store, &t, NULL), WN_OK);
  assert_int_equal(t.sites, 1);
  assert_int_equal(t.pages, 3);
  assert_true(t.bytes < len / 2);
  wn_test_store_walk(store);

  /* The per-site bound. */
  wn_store_pending_page more[4];
  char names[4][32];
  for (int i = 0; i < 4; i++) {
    snprintf(names[i], sizeof names[i], "extra-%d", i);
    more[i] = (wn_store_pending_page){.name = names[i], .bytes = "x", .len = 1};
  }
  assert_int_equal(keep(store, "a.example", 0, more, 4, &res), WN_OK);
  assert_int_equal(res.added, 2);
  assert_int_equal(pages_of(store, "a.example"), 5);

  /* drop 1 forgets what the site held, then keeps the op's pages. */
  assert_int_equal(keep(store, "a.example", 1, more, 1, &res), WN_OK);
  assert_int_equal(pages_of(store, "a.example"), 1);
  wn_test_store_walk(store);
  free(html);
  wn_store_close(store);
}

/* A stored template ends the sample; a site with one keeps none. */
static void test_template_drops_pending(void **state) {
  (void)state;
  fresh();
  wn_store *store = open_store(0);
  wn_store_pending_page p = {.name = "one", .bytes = "<p>1</p>", .len = 8};
  wn_store_pending_outcome res;
  assert_int_equal(keep(store, "b.example", 0, &p, 1, &res), WN_OK);
  assert_int_equal(keep(store, "c.example", 0, &p, 1, &res), WN_OK);
  unsigned char tpl[16] = {1, 2, 3};
  wn_store_record rec = {.algorithm = "etdm", .template_bytes = tpl, .template_len = sizeof tpl};
  assert_int_equal(wn_store_put(store, "b.example", &rec, NULL, NULL, NULL), WN_OK);
  assert_int_equal(pages_of(store, "b.example"), 0);
  assert_int_equal(keep(store, "b.example", 0, &p, 1, &res), WN_OK);
  assert_int_equal(res.added, 0);
  assert_int_equal(res.skipped, 1);
  assert_int_equal(pages_of(store, "b.example"), 0);
  wn_pending_totals t;
  assert_int_equal(wn_store_pending_totals_get(store, &t, NULL), WN_OK);
  assert_int_equal(t.sites, 1);
  wn_test_store_walk(store);

  /* Drop by name, then all. */
  uint64_t dropped = 0;
  wn_diag diag = {{0}};
  assert_int_equal(wn_store_pending_drop(store, "b.example", &dropped, &diag), WN_ENOTFOUND);
  assert_int_equal(wn_store_pending_drop(store, "c.example", &dropped, NULL), WN_OK);
  assert_int_equal(dropped, 1);
  assert_int_equal(keep(store, "d.example", 0, &p, 1, &res), WN_OK);
  assert_int_equal(keep(store, "e.example", 0, &p, 1, &res), WN_OK);
  assert_int_equal(wn_store_pending_drop(store, NULL, &dropped, NULL), WN_OK);
  assert_int_equal(dropped, 2);
  assert_int_equal(wn_store_pending_totals_get(store, &t, NULL), WN_OK);
  assert_int_equal(t.sites + t.pages + t.bytes, 0);
  wn_test_store_walk(store);
  wn_store_close(store);

  /* Read-only: nothing written. */
  wn_store_options o;
  wn_store_options_init(&o);
  o.read_only = 1;
  assert_int_equal(wn_store_open(g_dir, &o, &store, NULL), WN_OK);
  assert_int_equal(keep(store, "f.example", 0, &p, 1, &res), WN_EINVAL);
  wn_store_close(store);
}

typedef struct seen {
  char first[64];
  uint64_t n;
} seen;

static int note_site(const wn_pending_site *s, void *ctx) {
  seen *k = ctx;
  if (k->n++ == 0)
    snprintf(k->first, sizeof k->first, "%s", s->site);
  return 0;
}

/* 100,000 sites of one page each through a store bounded at 1,000 sites
 * and then at 64 KiB: the bounds hold after every batch, the survivors
 * are the sites seen last, and a site seen again moves to the back. */
static void test_bounds_100000_sites(void **state) {
  (void)state;
  fresh();
  wn_store *store = open_store(0);
  enum { SITES = 100000, BATCH = 64, LIMIT = 1000 };
  wn_store_pending_limits lim = {.site_pages = 5, .sites = LIMIT, .bytes = 1u << 30};
  wn_store_pending_op ops[BATCH];
  wn_store_pending_page pages[BATCH];
  char sites[BATCH][32], html[BATCH][96];
  uint64_t evicted = 0;
  for (int base = 0; base < SITES; base += BATCH) {
    int n = 0;
    for (int i = base; i < base + BATCH && i < SITES; i++, n++) {
      /* Site 0 is seen again every batch: never the least recently seen. */
      const int id = n == 0 && base > 0 ? 0 : i;
      snprintf(sites[n], sizeof sites[n], "s%06d.example", id);
      int hl = snprintf(html[n], sizeof html[n], "<html><p>page %d of a crawl</p></html>", i);
      pages[n] = (wn_store_pending_page){.name = html[n], .bytes = html[n], .len = (size_t)hl};
      ops[n] = (wn_store_pending_op){.site = sites[n], .pages = &pages[n], .n_pages = 1};
    }
    wn_store_pending_outcome res;
    wn_diag diag = {{0}};
    wn_err err = wn_store_pending_apply(store, ops, (size_t)n, &lim, &res, &diag);
    if (err)
      fail_msg("apply at %d: %s", base, wn_diag_message(&diag, err));
    evicted += res.sites_evicted;
    wn_pending_totals t;
    assert_int_equal(wn_store_pending_totals_get(store, &t, NULL), WN_OK);
    assert_true(t.sites <= LIMIT);
  }
  wn_pending_totals t;
  assert_int_equal(wn_store_pending_totals_get(store, &t, NULL), WN_OK);
  assert_int_equal(t.sites, LIMIT);
  assert_true(t.pages >= LIMIT);
  assert_true(evicted >= SITES - LIMIT - 2000);
  /* The survivors: site 0 and the last sites seen. */
  assert_int_not_equal(pages_of(store, "s000000.example"), 0);
  assert_int_equal(pages_of(store, "s000001.example"), 0);
  assert_int_equal(pages_of(store, "s099999.example"), 1);
  assert_int_equal(pages_of(store, "s098000.example"), 0);
  seen k = {{0}, 0};
  assert_int_equal(wn_store_pending_each(store, note_site, &k, NULL), WN_OK);
  assert_int_equal(k.n, LIMIT);
  wn_test_store_walk(store);

  /* The byte bound. */
  lim.bytes = 64 * 1024;
  wn_store_pending_page p = {.name = "x", .bytes = "<p>x</p>", .len = 8};
  wn_store_pending_op op = {.site = "last.example", .pages = &p, .n_pages = 1};
  assert_int_equal(wn_store_pending_apply(store, &op, 1, &lim, NULL, NULL), WN_OK);
  assert_int_equal(wn_store_pending_totals_get(store, &t, NULL), WN_OK);
  assert_true(t.bytes <= lim.bytes);
  assert_true(t.sites < LIMIT);
  assert_int_equal(pages_of(store, "last.example"), 1);
  wn_test_store_walk(store);
  wn_store_close(store);
}

/* Raw bytes into one of the store's databases (tests/support). */
static void raw_put(const char *db, const void *key, size_t key_len, const void *bytes,
                    size_t len) {
  wn_test_lmdb_put(g_dir, db, key, key_len, bytes, len);
}

static unsigned char *raw_get(const char *db, const char *site, size_t *len) {
  MDB_env *env = NULL;
  MDB_txn *txn = NULL;
  MDB_dbi dbi;
  assert_int_equal(mdb_env_create(&env), 0);
  assert_int_equal(mdb_env_set_maxdbs(env, 8), 0);
  assert_int_equal(mdb_env_open(env, g_dir, MDB_RDONLY, 0644), 0);
  assert_int_equal(mdb_txn_begin(env, NULL, MDB_RDONLY, &txn), 0);
  assert_int_equal(mdb_dbi_open(txn, db, 0, &dbi), 0);
  MDB_val k = {strlen(site), (void *)site}, v;
  assert_int_equal(mdb_get(txn, dbi, &k, &v), 0);
  unsigned char *copy = malloc(v.mv_size);
  assert_non_null(copy);
  memcpy(copy, v.mv_data, v.mv_size);
  *len = v.mv_size;
  mdb_txn_abort(txn);
  mdb_env_close(env);
  return copy;
}

/* Every flipped bit and every truncation of a real entry: read as damage
 * (or, for a bit the checksum cannot see, as the same pages), listed as
 * damaged, and written over by the next page kept. */
static void test_damaged_entries(void **state) {
  (void)state;
  fresh();
  wn_store *store = open_store(0);
  wn_store_pending_page p[2] = {{.name = "http://g.example/1", .url = "http://g.example/1",
                                 .charset = "utf-8", .bytes = "<p>one page</p>", .len = 15},
                                {.name = "two", .bytes = "<p>two</p>", .len = 10}};
  assert_int_equal(keep(store, "g.example", 0, p, 2, NULL), WN_OK);
  wn_store_close(store);
  size_t len = 0;
  unsigned char *good = raw_get("pending", "g.example", &len);
  unsigned char *bad = malloc(len);
  assert_non_null(bad);
  int damaged = 0;
  for (size_t bit = 0; bit < len * 8; bit += 3) {
    memcpy(bad, good, len);
    bad[bit / 8] ^= (unsigned char)(1u << (bit % 8));
    raw_put("pending", "g.example", 9, bad, len);
    store = open_store(0);
    wn_store_pending_held *got = NULL;
    uint32_t n = 0;
    wn_diag diag = {{0}};
    wn_err err = wn_store_pending_get(store, "g.example", 64, &got, &n, &diag);
    if (err) {
      assert_int_equal(err, WN_ECORRUPT);
      assert_non_null(strstr(diag.msg, "g.example"));
      damaged++;
    } else {
      assert_int_equal(n, 2);
      assert_memory_equal(got[0].bytes, "<p>one page</p>", 15);
    }
    wn_store_pending_held_free(got, n);
    wn_store_close(store);
  }
  assert_int_equal(damaged, (int)((len * 8 + 2) / 3));
  for (size_t cut = 0; cut < len; cut++) {
    raw_put("pending", "g.example", 9, good, cut ? cut : 1);
    store = open_store(0);
    assert_int_equal(pages_of(store, "g.example"), UINT32_MAX);
    wn_store_close(store);
  }
  /* Listed as damaged; the next page kept replaces it. */
  store = open_store(0);
  seen k = {{0}, 0};
  assert_int_equal(wn_store_pending_each(store, note_site, &k, NULL), WN_OK);
  assert_int_equal(k.n, 1);
  wn_store_pending_outcome res;
  assert_int_equal(keep(store, "g.example", 0, &p[1], 1, &res), WN_OK);
  assert_int_equal(res.damaged, 1);
  assert_int_equal(pages_of(store, "g.example"), 1);
  wn_test_store_walk(store);
  wn_store_close(store);

  /* Damaged totals are counted again from the entries. */
  raw_put("pending_order", "\0\0\0\0\0\0\0\0", 8, "garbage", 7);
  store = open_store(0);
  wn_pending_totals t;
  assert_int_equal(wn_store_pending_totals_get(store, &t, NULL), WN_OK);
  assert_int_equal(t.sites, 1);
  assert_int_equal(t.pages, 1);
  assert_int_equal(keep(store, "h.example", 0, p, 1, NULL), WN_OK);
  wn_test_store_walk(store);
  wn_store_close(store);
  free(good);
  free(bad);
}

/* A map too small for the pages: WN_ENOSPACE, nothing half-written. */
static void test_map_full(void **state) {
  (void)state;
  fresh();
  wn_store *store = open_store(1u << 20);
  size_t len = 0;
  char *html = wn_test_slurp(WN_FIXTURES "/site/article-1.html", &len);
  /* Pages that do not compress: random bytes. */
  char *noise = malloc(64 * 1024);
  assert_non_null(noise);
  srand(3);
  for (size_t i = 0; i < 64 * 1024; i++)
    noise[i] = (char)rand();
  wn_err err = WN_OK;
  int kept = 0;
  for (int i = 0; i < 64 && !err; i++) {
    char site[32];
    snprintf(site, sizeof site, "full%02d.example", i);
    wn_store_pending_page p = {.name = site, .bytes = noise, .len = 64 * 1024};
    wn_diag diag = {{0}};
    wn_store_pending_op op = {.site = site, .pages = &p, .n_pages = 1};
    err = wn_store_pending_apply(store, &op, 1, &g_lim, NULL, &diag);
    if (err) {
      assert_int_equal(err, WN_ENOSPACE);
      assert_non_null(strstr(diag.msg, "store is full"));
    } else {
      kept++;
    }
  }
  assert_int_equal(err, WN_ENOSPACE);
  assert_true(kept > 0);
  wn_pending_totals t;
  assert_int_equal(wn_store_pending_totals_get(store, &t, NULL), WN_OK);
  assert_int_equal(t.sites, (uint64_t)kept);
  wn_test_store_walk(store);
  free(noise);
  free(html);
  wn_store_close(store);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_round_trip),
      cmocka_unit_test(test_template_drops_pending),
      cmocka_unit_test(test_bounds_100000_sites),
      cmocka_unit_test(test_damaged_entries),
      cmocka_unit_test(test_map_full),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
