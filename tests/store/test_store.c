/*
 * tests/store/test_store.c: the store against a real LMDB environment in a
 * temporary directory, and the record codec against every truncation and
 * every flipped bit of a real record.
 */
#define _GNU_SOURCE /* unshare, CLONE_NEWNS, setgroups */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <lmdb.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/store.h"
#include "wn_run.h"

/* ---- fixture: a fresh directory per test ------------------------------- */

typedef struct fixture {
  char base[64]; /* wn_test_temp_dir directory */
  char dir[96];  /* base/db: the store, created by wn_store_open */
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  if (!f)
    return -1;
  if (wn_test_temp_dir(f->base, sizeof f->base, "wn_store_test") != 0) {
    free(f);
    return -1;
  }
  snprintf(f->dir, sizeof f->dir, "%s/db", f->base);
  *state = f;
  return 0;
}

static void remove_store_files(const char *dir) {
  static const char *const files[] = {"data.mdb", "lock.mdb"};
  char path[256];
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, files[i]);
    unlink(path);
  }
  rmdir(dir);
}

/* Removes everything a test may have made; fails when something is left, so
 * a test that leaves stray files is noticed. */
static int teardown(void **state) {
  fixture *f = *state;
  char path[160];
  remove_store_files(f->dir);
  snprintf(path, sizeof path, "%s/empty", f->base);
  remove_store_files(path);
  snprintf(path, sizeof path, "%s/file", f->base);
  unlink(path);
  int rc = rmdir(f->base);
  free(f);
  return rc == 0 ? 0 : -1;
}

/* ---- sample records ----------------------------------------------------- */

typedef struct sample {
  wn_store_record rec;
  wn_store_page pages[WN_STORE_MAX_PAGES + 1];
  char names[3][64];
  char key_page[64];
  unsigned char tpl[512];
} sample;

/* A record with 3 pages and a binary template (NUL bytes included);
 * variant changes every field. */
static void sample_init(sample *s, unsigned variant) {
  memset(s, 0, sizeof *s);
  snprintf(s->rec.algorithm, sizeof s->rec.algorithm, "%s", variant % 2 ? "fastce" : "etdm");
  s->rec.learned_at = variant == 3 ? -5 : 1700000000 + (int64_t)variant;
  s->rec.generation = 77; /* the store overwrites it */
  s->rec.n_pages = 3;
  s->rec.pages = s->pages;
  for (unsigned i = 0; i < 3; i++) {
    snprintf(s->names[i], sizeof s->names[i], "https://site.example/p-%u-%u.html", variant, i);
    s->pages[i].name = s->names[i];
    s->pages[i].bytes = UINT64_C(1000) * (i + 1) + variant + (i == 2 ? UINT64_C(1) << 40 : 0);
    s->pages[i].http_status = i == 2 ? -1 : (int32_t)(200 + i);
    s->pages[i].fetch_ms = 17 * i + variant;
  }
  s->rec.page_nodes = 4321 + variant;
  s->rec.template_nodes = 987 + variant;
  for (size_t j = 0; j < sizeof s->tpl; j++)
    s->tpl[j] = (unsigned char)(j * 31 + variant);
  s->rec.template_bytes = s->tpl;
  s->rec.template_len = sizeof s->tpl - variant % 7;
  /* Format 2: the key page (none in variant 0) and the learn parameters. */
  if (variant != 0) {
    snprintf(s->key_page, sizeof s->key_page, "https://site.example/key-%u.html", variant);
    s->rec.key_page = s->key_page;
  }
  wn_store_learn_params *params = &s->rec.params;
  params->from_url = (uint8_t)(variant % 2);
  params->by_domain = (uint8_t)(variant == 2);
  params->selector = (uint8_t)(variant % 4);
  params->min_count = 2 + variant;
  params->n = 4 + variant;
  params->max_fetches = 16 + variant;
  params->min_share = (double)(variant % 5) / 8.0;
  params->host_delay_ms = 1000 + variant;
  params->timeout_ms = 30000 + variant;
  params->max_body_bytes = (UINT64_C(8) << 20) + variant + (UINT64_C(1) << 40);
  snprintf(params->user_agent, sizeof params->user_agent, "winnow-test/%u (+https://x.example)",
           variant);
}

static void assert_params_equal(const wn_store_learn_params *got,
                                const wn_store_learn_params *want) {
  assert_int_equal(got->from_url, want->from_url);
  assert_int_equal(got->by_domain, want->by_domain);
  assert_int_equal(got->selector, want->selector);
  assert_int_equal(got->min_count, want->min_count);
  assert_int_equal(got->n, want->n);
  assert_int_equal(got->max_fetches, want->max_fetches);
  assert_memory_equal(&got->min_share, &want->min_share, sizeof got->min_share);
  assert_int_equal(got->host_delay_ms, want->host_delay_ms);
  assert_int_equal(got->timeout_ms, want->timeout_ms);
  assert_true(got->max_body_bytes == want->max_body_bytes);
  assert_string_equal(got->user_agent, want->user_agent);
}

/* Every field but the format version. */
static void assert_record_fields(const wn_store_record *got, const wn_store_record *want) {
  assert_string_equal(got->algorithm, want->algorithm);
  assert_true(got->learned_at == want->learned_at);
  assert_int_equal(got->n_pages, want->n_pages);
  for (uint32_t i = 0; i < want->n_pages; i++) {
    assert_non_null(got->pages);
    assert_non_null(got->pages[i].name);
    assert_string_equal(got->pages[i].name, want->pages[i].name);
    assert_true(got->pages[i].bytes == want->pages[i].bytes);
    assert_true(got->pages[i].http_status == want->pages[i].http_status);
    assert_int_equal(got->pages[i].fetch_ms, want->pages[i].fetch_ms);
  }
  assert_int_equal(got->page_nodes, want->page_nodes);
  assert_int_equal(got->template_nodes, want->template_nodes);
  assert_int_equal(got->template_len, want->template_len);
  assert_non_null(got->template_bytes);
  if (want->template_len)
    assert_memory_equal(got->template_bytes, want->template_bytes, want->template_len);
  if (want->key_page && want->key_page[0]) {
    assert_non_null(got->key_page);
    assert_string_equal(got->key_page, want->key_page);
  } else {
    assert_null(got->key_page);
  }
  assert_params_equal(&got->params, &want->params);
}

static void assert_record_matches(const wn_store_record *got, const wn_store_record *want) {
  assert_int_equal(got->format_version, WN_STORE_FORMAT_VERSION);
  assert_record_fields(got, want);
}

static wn_store *open_store(const char *dir, int read_only, size_t map_size) {
  wn_store_options opts = {map_size, read_only};
  wn_store *store = NULL;
  wn_diag diag;
  wn_diag_clear(&diag);
  wn_err err = wn_store_open(dir, &opts, &store, &diag);
  if (err)
    print_error("open %s: %s\n", dir, wn_diag_message(&diag, err));
  assert_int_equal(err, WN_OK);
  assert_non_null(store);
  return store;
}

/* Encodes a sample record into a malloc'd buffer of exactly its length. */
static unsigned char *encode_sample(const sample *s, size_t *len) {
  wn_buf buf;
  wn_diag diag;
  wn_diag_clear(&diag);
  wn_buf_init(&buf, 0);
  assert_int_equal(wn_store_record_encode(&s->rec, &buf, &diag), WN_OK);
  unsigned char *bytes = (unsigned char *)wn_buf_take(&buf, len);
  assert_non_null(bytes);
  return bytes;
}

/* Decodes a copy of exactly len bytes on the heap, so ASan catches any read
 * past the end. */
static wn_err decode_exact(const unsigned char *bytes, size_t len, wn_store_record **out,
                           wn_diag *diag) {
  unsigned char *copy = malloc(len ? len : 1);
  assert_non_null(copy);
  if (len)
    memcpy(copy, bytes, len);
  wn_diag_clear(diag);
  wn_err err = wn_store_record_decode(len ? copy : NULL, len, out, diag);
  free(copy);
  return err;
}

/* Bytes of the format-2 learn section of a record (store.c's layout). */
static size_t learn_section_len(const wn_store_record *rec) {
  const size_t key_len = rec->key_page ? strlen(rec->key_page) : 0;
  return 4 + key_len + 3 + 3 * 4 + 8 + 2 * 4 + 8 + 4 + strlen(rec->params.user_agent);
}

/* Recomputes the checksum of an encoded record after a test changed it, so
 * that the decoder's own check of the changed field is what fails. */
static void reseal(unsigned char *bytes, size_t len) {
  const uint64_t h = wn_hash_bytes(WN_HASH_SEED, bytes, len - 4);
  const uint32_t sum = (uint32_t)(h ^ (h >> 32));
  for (size_t i = 0; i < 4; i++)
    bytes[len - 4 + i] = (unsigned char)(sum >> (8 * i));
}

/* ---- a hand encoder for format 1 ----------------------------------------
 *
 * Written from the layout in store.c, independently of the store's encoder
 * (which only writes the current format), so that a format-1 record as an
 * older winnow stored it can be fed to today's decoder. */

static void v1_bytes(wn_buf *b, const void *p, size_t n) {
  assert_int_equal(wn_buf_append(b, p, n), WN_OK);
}

static void v1_u32(wn_buf *b, uint32_t v) {
  unsigned char x[4];
  for (size_t i = 0; i < 4; i++)
    x[i] = (unsigned char)(v >> (8 * i));
  v1_bytes(b, x, sizeof x);
}

static void v1_u64(wn_buf *b, uint64_t v) {
  unsigned char x[8];
  for (size_t i = 0; i < 8; i++)
    x[i] = (unsigned char)(v >> (8 * i));
  v1_bytes(b, x, sizeof x);
}

static unsigned char *encode_v1(const wn_store_record *rec, size_t *len) {
  wn_buf b;
  wn_buf_init(&b, 0);
  v1_bytes(&b, "WNSR", 4);
  v1_u32(&b, 1);
  v1_u32(&b, (uint32_t)strlen(rec->algorithm));
  v1_bytes(&b, rec->algorithm, strlen(rec->algorithm));
  v1_u64(&b, (uint64_t)rec->learned_at);
  v1_u64(&b, rec->generation);
  v1_u32(&b, rec->n_pages);
  for (uint32_t i = 0; i < rec->n_pages; i++) {
    const char *name = rec->pages[i].name ? rec->pages[i].name : "";
    v1_u32(&b, (uint32_t)strlen(name));
    v1_bytes(&b, name, strlen(name));
    v1_u64(&b, rec->pages[i].bytes);
    v1_u32(&b, (uint32_t)rec->pages[i].http_status);
    v1_u32(&b, rec->pages[i].fetch_ms);
  }
  v1_u32(&b, rec->page_nodes);
  v1_u32(&b, rec->template_nodes);
  v1_u64(&b, rec->template_len);
  v1_bytes(&b, rec->template_bytes, rec->template_len);
  v1_u32(&b, 0); /* the checksum, sealed below */
  unsigned char *bytes = (unsigned char *)wn_buf_take(&b, len);
  assert_non_null(bytes);
  reseal(bytes, *len);
  return bytes;
}

/* Writes raw bytes under a site with LMDB directly (tests/support). */
static void raw_put(const char *dir, const char *db_name, const char *site, const void *bytes,
                    size_t len) {
  wn_test_lmdb_put(dir, db_name, site, site ? strlen(site) : 0, bytes, len);
}

/* ---- put / get / delete ------------------------------------------------- */

static void test_put_get_round_trip(void **state) {
  fixture *f = *state;
  wn_store *store = open_store(f->dir, 0, 0);
  sample s;
  sample_init(&s, 1);
  wn_diag diag;
  wn_diag_clear(&diag);
  uint64_t generation = 0;
  assert_int_equal(wn_store_put(store, "www.example.com", &s.rec, &generation, NULL, &diag), WN_OK);
  assert_int_equal(generation, 1);

  wn_store_record *got = NULL;
  assert_int_equal(wn_store_get(store, "www.example.com", &got, &diag), WN_OK);
  assert_non_null(got);
  assert_int_equal(got->generation, 1);
  assert_record_matches(got, &s.rec);
  wn_store_record_free(got);

  /* Keys are exact: no prefix or case folding. */
  assert_int_equal(wn_store_get(store, "www.example.co", &got, &diag), WN_ENOTFOUND);
  assert_null(got);
  wn_store_close(store);
}

/* wn_store_check on a store this process holds open: a sound store is
 * reported sound, with what it holds, and the open handle still works. */
static void test_check_while_open(void **state) {
  fixture *f = *state;
  wn_store *store = open_store(f->dir, 0, 0);
  sample s;
  sample_init(&s, 1);
  wn_diag diag;
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_put(store, "www.example.com", &s.rec, NULL, NULL, &diag), WN_OK);
  assert_int_equal(wn_store_put(store, "news.example.com", &s.rec, NULL, NULL, &diag), WN_OK);
  for (int round = 0; round < 2; round++) {
    wn_store_check_report report;
    wn_diag_clear(&diag);
    wn_err err = wn_store_check(f->dir, &report, &diag);
    if (err)
      fail_msg("round %d: %s (problem: %s)", round, wn_diag_message(&diag, err), report.problem);
    assert_int_equal(report.damaged, 0);
    assert_string_equal(report.problem, "");
    assert_true(report.databases >= 1);
    assert_true(report.entries >= 2);
    /* The handle is unharmed: it reads and writes as before. */
    wn_store_record *got = NULL;
    assert_int_equal(wn_store_get(store, "www.example.com", &got, &diag), WN_OK);
    wn_store_record_free(got);
    assert_int_equal(wn_store_put(store, "www.example.com", &s.rec, NULL, NULL, &diag), WN_OK);
  }
  wn_store_close(store);
  /* And after the close, as before. */
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_check(f->dir, NULL, &diag), WN_OK);
}

/* Damage is still found while this process holds the store open: the
 * check bounds each value by its own map of the file, not by the map this
 * process holds. The one record on overflow pages (a fresh store: no
 * freed copy of it) has its first overflow page's header broken on disk. */
static void test_check_while_open_finds_damage(void **state) {
  fixture *f = *state;
  wn_store *store = open_store(f->dir, 0, 0);
  sample s;
  sample_init(&s, 1);
  static unsigned char big[3 * 4096];
  for (size_t j = 0; j < sizeof big; j++)
    big[j] = (unsigned char)(j * 7 + 1);
  s.rec.template_bytes = big;
  s.rec.template_len = sizeof big;
  wn_diag diag;
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_put(store, "big.example.com", &s.rec, NULL, NULL, &diag), WN_OK);
  wn_store_check_report report;
  assert_int_equal(wn_store_check(f->dir, &report, &diag), WN_OK);

  char path[160];
  snprintf(path, sizeof path, "%s/data.mdb", f->dir);
  int fd = open(path, O_RDWR);
  assert_true(fd >= 0);
  const size_t psize = (size_t)report.page_bytes;
  const size_t flags_at = sizeof(size_t) + 2; /* MDB_page: pgno, pad, flags */
  size_t broken = 0;
  unsigned char *page = malloc(psize);
  assert_non_null(page);
  for (size_t pg = 2; pg < report.pages_used && !broken; pg++) {
    assert_int_equal(pread(fd, page, psize, (off_t)(pg * psize)), (ssize_t)psize);
    size_t pgno;
    uint16_t flags;
    memcpy(&pgno, page, sizeof pgno);
    memcpy(&flags, page + flags_at, sizeof flags);
    if (pgno == pg && (flags & 0x04)) { /* P_OVERFLOW */
      flags = 0x02;                     /* P_LEAF: not what the record points at */
      assert_int_equal(pwrite(fd, &flags, sizeof flags, (off_t)(pg * psize + flags_at)),
                       (ssize_t)sizeof flags);
      broken = pg;
    }
  }
  free(page);
  close(fd);
  assert_true(broken > 0);

  wn_diag_clear(&diag);
  assert_int_equal(wn_store_check(f->dir, &report, &diag), WN_ESTORE);
  assert_int_equal(report.damaged, 1);
  assert_non_null(strstr(report.problem, "overflow page"));
  assert_non_null(strstr(report.problem, "big.example.com"));
  wn_store_close(store);
}

static void test_generation_increments_on_replace(void **state) {
  fixture *f = *state;
  wn_store *store = open_store(f->dir, 0, 0);
  wn_diag diag;
  wn_diag_clear(&diag);
  sample s;
  for (unsigned i = 1; i <= 4; i++) {
    sample_init(&s, i);
    uint64_t generation = 0;
    assert_int_equal(wn_store_put(store, "a.example", &s.rec, &generation, NULL, &diag), WN_OK);
    assert_int_equal(generation, i);
  }
  /* Another site counts on its own; NULL generation_out is allowed. */
  assert_int_equal(wn_store_put(store, "b.example", &s.rec, NULL, NULL, &diag), WN_OK);

  wn_store_record *got = NULL;
  assert_int_equal(wn_store_get(store, "a.example", &got, &diag), WN_OK);
  assert_int_equal(got->generation, 4);
  assert_record_matches(got, &s.rec); /* the last one written */
  wn_store_record_free(got);
  assert_int_equal(wn_store_get(store, "b.example", &got, &diag), WN_OK);
  assert_int_equal(got->generation, 1);
  wn_store_record_free(got);
  wn_store_close(store);
}

static void test_get_missing_site(void **state) {
  fixture *f = *state;
  wn_store *store = open_store(f->dir, 0, 0);
  wn_diag diag;
  wn_diag_clear(&diag);
  wn_store_record *got = (wn_store_record *)&diag; /* must be reset to NULL */
  assert_int_equal(wn_store_get(store, "nowhere.example", &got, &diag), WN_ENOTFOUND);
  assert_null(got);
  assert_string_equal(diag.msg, "store: no template for site nowhere.example");
  wn_store_close(store);
}

static void test_delete(void **state) {
  fixture *f = *state;
  wn_store *store = open_store(f->dir, 0, 0);
  wn_diag diag;
  wn_diag_clear(&diag);
  sample s;
  sample_init(&s, 2);
  assert_int_equal(wn_store_put(store, "gone.example", &s.rec, NULL, NULL, &diag), WN_OK);
  assert_int_equal(wn_store_put(store, "gone.example", &s.rec, NULL, NULL, &diag), WN_OK);
  assert_int_equal(wn_store_put(store, "kept.example", &s.rec, NULL, NULL, &diag), WN_OK);
  assert_int_equal(wn_store_delete(store, "gone.example", &diag), WN_OK);

  wn_store_record *got = NULL;
  assert_int_equal(wn_store_get(store, "gone.example", &got, &diag), WN_ENOTFOUND);
  assert_int_equal(wn_store_get(store, "kept.example", &got, &diag), WN_OK);
  wn_store_record_free(got);

  wn_diag_clear(&diag);
  assert_int_equal(wn_store_delete(store, "gone.example", &diag), WN_ENOTFOUND);
  assert_non_null(strstr(diag.msg, "gone.example"));

  /* A deleted site starts again at generation 1. */
  uint64_t generation = 0;
  assert_int_equal(wn_store_put(store, "gone.example", &s.rec, &generation, NULL, &diag), WN_OK);
  assert_int_equal(generation, 1);
  wn_store_close(store);
}

/* ---- list --------------------------------------------------------------- */

#define COLLECT_MAX 200

typedef struct collector {
  char names[COLLECT_MAX][WN_STORE_MAX_SITE + 1];
  size_t count;
  size_t stop_after;  /* 0: never stop */
  wn_store *deleter;  /* when set, delete each site as it is listed */
  int delete_failures;
} collector;

static int collect_site(const char *site, void *ctx) {
  collector *c = ctx;
  if (c->count < COLLECT_MAX)
    snprintf(c->names[c->count], sizeof c->names[c->count], "%s", site);
  c->count++;
  if (c->deleter && wn_store_delete(c->deleter, site, NULL) != WN_OK)
    c->delete_failures++;
  return c->stop_after && c->count >= c->stop_after;
}

static void test_list_in_key_order(void **state) {
  fixture *f = *state;
  wn_store *store = open_store(f->dir, 0, 0);
  wn_diag diag;
  wn_diag_clear(&diag);
  sample s;
  sample_init(&s, 0);
  static const char *const inserted[] = {"b.example", "a.example", "c.example", "aa.example",
                                         "B.example"};
  static const char *const sorted[] = {"B.example", "a.example", "aa.example", "b.example",
                                       "c.example"};
  collector *c = calloc(1, sizeof *c);
  assert_non_null(c);

  /* An empty store lists nothing. */
  assert_int_equal(wn_store_list(store, collect_site, c, &diag), WN_OK);
  assert_int_equal(c->count, 0);

  for (size_t i = 0; i < 5; i++)
    assert_int_equal(wn_store_put(store, inserted[i], &s.rec, NULL, NULL, &diag), WN_OK);
  assert_int_equal(wn_store_list(store, collect_site, c, &diag), WN_OK);
  assert_int_equal(c->count, 5);
  for (size_t i = 0; i < 5; i++)
    assert_string_equal(c->names[i], sorted[i]);

  /* A nonzero return stops the walk. */
  memset(c, 0, sizeof *c);
  c->stop_after = 2;
  assert_int_equal(wn_store_list(store, collect_site, c, &diag), WN_OK);
  assert_int_equal(c->count, 2);
  assert_string_equal(c->names[1], "a.example");

  assert_int_equal(wn_store_list(store, NULL, c, &diag), WN_EINVAL);
  free(c);
  wn_store_close(store);
}

/* More sites than one read batch: order holds across batches, a stop in the
 * second batch is honoured, and the callback may write to the store. */
static void test_list_many_sites(void **state) {
  fixture *f = *state;
  wn_store *store = open_store(f->dir, 0, 0);
  wn_diag diag;
  wn_diag_clear(&diag);
  sample s;
  sample_init(&s, 0);
  s.rec.template_len = 8;
  char site[32];
  for (unsigned i = 150; i-- > 0;) {
    snprintf(site, sizeof site, "site-%03u.example", i);
    assert_int_equal(wn_store_put(store, site, &s.rec, NULL, NULL, &diag), WN_OK);
  }
  collector *c = calloc(1, sizeof *c);
  assert_non_null(c);
  assert_int_equal(wn_store_list(store, collect_site, c, &diag), WN_OK);
  assert_int_equal(c->count, 150);
  for (unsigned i = 0; i < 150; i++) {
    snprintf(site, sizeof site, "site-%03u.example", i);
    assert_string_equal(c->names[i], site);
  }

  memset(c, 0, sizeof *c);
  c->stop_after = 70;
  assert_int_equal(wn_store_list(store, collect_site, c, &diag), WN_OK);
  assert_int_equal(c->count, 70);
  assert_string_equal(c->names[69], "site-069.example");

  memset(c, 0, sizeof *c);
  c->deleter = store;
  assert_int_equal(wn_store_list(store, collect_site, c, &diag), WN_OK);
  assert_int_equal(c->count, 150);
  assert_int_equal(c->delete_failures, 0);
  memset(c, 0, sizeof *c);
  assert_int_equal(wn_store_list(store, collect_site, c, &diag), WN_OK);
  assert_int_equal(c->count, 0);
  free(c);
  wn_store_close(store);
}

/* ---- codec -------------------------------------------------------------- */

static void test_encode_decode_round_trip(void **state) {
  (void)state;
  wn_diag diag;
  for (unsigned variant = 0; variant < 5; variant++) {
    sample s;
    sample_init(&s, variant);
    size_t len = 0;
    unsigned char *bytes = encode_sample(&s, &len);
    assert_memory_equal(bytes, "WNSR", 4);
    wn_store_record *got = NULL;
    assert_int_equal(decode_exact(bytes, len, &got, &diag), WN_OK);
    assert_int_equal(got->generation, 77);
    assert_record_matches(got, &s.rec);
    wn_store_record_free(got);
    free(bytes);
  }

  /* No pages and an empty template still decode, to an empty template that
   * is not NULL. */
  sample s;
  sample_init(&s, 0);
  s.rec.n_pages = 0;
  s.rec.pages = NULL;
  s.rec.template_len = 0;
  s.rec.template_bytes = NULL;
  s.rec.algorithm[0] = '\0';
  size_t len = 0;
  unsigned char *bytes = encode_sample(&s, &len);
  wn_store_record *got = NULL;
  assert_int_equal(decode_exact(bytes, len, &got, &diag), WN_OK);
  assert_int_equal(got->n_pages, 0);
  assert_null(got->pages);
  assert_int_equal(got->template_len, 0);
  assert_non_null(got->template_bytes);
  assert_string_equal(got->algorithm, "");
  wn_store_record_free(got);
  free(bytes);

  /* A page with a NULL name is stored as an empty name. */
  sample_init(&s, 1);
  s.pages[1].name = NULL;
  bytes = encode_sample(&s, &len);
  assert_int_equal(decode_exact(bytes, len, &got, &diag), WN_OK);
  assert_string_equal(got->pages[1].name, "");
  wn_store_record_free(got);
  free(bytes);
  wn_store_record_free(NULL);
}

static void test_encode_appends_and_refuses_cleanly(void **state) {
  (void)state;
  sample s;
  sample_init(&s, 1);
  wn_diag diag;
  wn_buf buf;
  wn_buf_init(&buf, 0);
  assert_int_equal(wn_buf_append(&buf, "xyz", 3), WN_OK);
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_record_encode(&s.rec, &buf, &diag), WN_OK);
  assert_memory_equal(buf.data, "xyz", 3);
  wn_store_record *got = NULL;
  assert_int_equal(wn_store_record_decode(buf.data + 3, buf.len - 3, &got, &diag), WN_OK);
  assert_record_matches(got, &s.rec);
  wn_store_record_free(got);

  /* Each refusal names its cause and leaves the buffer as it was. */
  const size_t before = buf.len;
  memset(s.rec.algorithm, 'a', sizeof s.rec.algorithm);
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_record_encode(&s.rec, &buf, &diag), WN_EINVAL);
  assert_non_null(strstr(diag.msg, "algorithm"));
  assert_int_equal(buf.len, before);

  sample_init(&s, 1);
  char long_name[WN_STORE_MAX_PAGE_NAME + 2];
  memset(long_name, 'n', sizeof long_name - 1);
  long_name[sizeof long_name - 1] = '\0';
  s.pages[2].name = long_name;
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_record_encode(&s.rec, &buf, &diag), WN_EINVAL);
  assert_non_null(strstr(diag.msg, "page 2"));
  assert_int_equal(buf.len, before);
  long_name[WN_STORE_MAX_PAGE_NAME] = '\0'; /* exactly at the cap is fine */
  assert_int_equal(wn_store_record_encode(&s.rec, &buf, &diag), WN_OK);
  buf.len = before;

  sample_init(&s, 1);
  s.rec.pages = NULL;
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_record_encode(&s.rec, &buf, &diag), WN_EINVAL);

  /* The length is refused before any template byte is read. */
  sample_init(&s, 1);
  s.rec.template_len = WN_STORE_MAX_TEMPLATE + 1;
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_record_encode(&s.rec, &buf, &diag), WN_ETOOBIG);
  assert_non_null(strstr(diag.msg, "template"));
  assert_int_equal(buf.len, before);
  wn_buf_free(&buf);

  /* A record past the output buffer's own cap. */
  sample_init(&s, 1);
  wn_buf_init(&buf, 64);
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_record_encode(&s.rec, &buf, &diag), WN_ETOOBIG);
  assert_int_equal(buf.len, 0);
  wn_buf_free(&buf);

  assert_int_equal(wn_store_record_encode(NULL, &buf, NULL), WN_EINVAL);
  assert_int_equal(wn_store_record_decode("WNSR", 4, NULL, NULL), WN_EINVAL);
}

static void test_decode_other_version(void **state) {
  (void)state;
  sample s;
  sample_init(&s, 1);
  size_t len = 0;
  unsigned char *bytes = encode_sample(&s, &len);
  /* Version is the u32 after the magic, little-endian. */
  bytes[4] = 99;
  bytes[5] = bytes[6] = bytes[7] = 0;
  wn_diag diag;
  wn_store_record *got = (wn_store_record *)&diag;
  assert_int_equal(decode_exact(bytes, len, &got, &diag), WN_EVERSION);
  assert_null(got);
  assert_string_equal(
      diag.msg, "store: record format version 99 is not supported (this build reads 1 to 2)");
  /* Version 0 is no version we ever wrote. */
  bytes[4] = 0;
  assert_int_equal(decode_exact(bytes, len, &got, &diag), WN_EVERSION);
  /* The version is judged before anything after it, even a short record. */
  assert_int_equal(decode_exact(bytes, 8, &got, &diag), WN_EVERSION);
  free(bytes);
}

static void test_decode_every_truncation(void **state) {
  (void)state;
  sample s;
  sample_init(&s, 2);
  size_t len = 0;
  unsigned char *bytes = encode_sample(&s, &len);
  wn_diag diag;
  for (size_t cut = 0; cut < len; cut++) {
    wn_store_record *got = (wn_store_record *)&diag;
    wn_err err = decode_exact(bytes, cut, &got, &diag);
    if (err != WN_ECORRUPT)
      print_error("prefix of %zu/%zu bytes: %s (%s)\n", cut, len, wn_strerror_name(err), diag.msg);
    assert_int_equal(err, WN_ECORRUPT);
    assert_null(got);
    assert_non_null(strstr(diag.msg, "truncated"));
  }
  free(bytes);
}

static void test_decode_every_flipped_bit(void **state) {
  (void)state;
  sample s;
  sample_init(&s, 3);
  size_t len = 0;
  unsigned char *bytes = encode_sample(&s, &len);
  wn_diag diag;
  for (size_t pos = 0; pos < len; pos++) {
    for (unsigned bit = 0; bit < 8; bit++) {
      bytes[pos] ^= (unsigned char)(1u << bit);
      wn_store_record *got = NULL;
      wn_err err = decode_exact(bytes, len, &got, &diag);
      const wn_err want = pos >= 4 && pos < 8 ? WN_EVERSION : WN_ECORRUPT;
      if (err != want)
        print_error("bit %u of byte %zu: %s (%s)\n", bit, pos, wn_strerror_name(err), diag.msg);
      assert_int_equal(err, want);
      assert_null(got);
      bytes[pos] ^= (unsigned char)(1u << bit);
    }
  }
  /* The stored checksum itself. */
  bytes[len - 1] ^= 0x80;
  assert_int_equal(decode_exact(bytes, len, &(wn_store_record *){NULL}, &diag), WN_ECORRUPT);
  assert_non_null(strstr(diag.msg, "checksum"));
  free(bytes);
}

static void test_decode_structural_damage(void **state) {
  (void)state;
  sample s;
  sample_init(&s, 0); /* algorithm "etdm": 4 bytes */
  size_t len = 0;
  unsigned char *bytes = encode_sample(&s, &len);
  unsigned char *work = malloc(len + 1);
  assert_non_null(work);
  wn_diag diag;
  wn_store_record *got = NULL;

  /* Trailing bytes. */
  memcpy(work, bytes, len);
  work[len] = 0;
  assert_int_equal(decode_exact(work, len + 1, &got, &diag), WN_ECORRUPT);
  assert_non_null(strstr(diag.msg, "trailing"));

  /* Wrong magic. */
  memcpy(work, bytes, len);
  work[0] = 'X';
  assert_int_equal(decode_exact(work, len, &got, &diag), WN_ECORRUPT);
  assert_non_null(strstr(diag.msg, "magic"));

  /* Algorithm length at its cap (16 >= 16). */
  memcpy(work, bytes, len);
  work[8] = 16;
  assert_int_equal(decode_exact(work, len, &got, &diag), WN_ECORRUPT);
  assert_non_null(strstr(diag.msg, "algorithm"));

  /* Page count past its cap: magic 4 + version 4 + length 4 + "etdm" 4 +
   * learned_at 8 + generation 8 puts it at offset 32. */
  memcpy(work, bytes, len);
  assert_int_equal(work[32], 3);
  work[32] = (unsigned char)(WN_STORE_MAX_PAGES + 1);
  assert_int_equal(decode_exact(work, len, &got, &diag), WN_ECORRUPT);
  assert_non_null(strstr(diag.msg, "cap"));

  /* First page name length past its cap (u32 at 36). */
  memcpy(work, bytes, len);
  work[36] = 0x01;
  work[37] = 0x08; /* 0x0801 = 2049 */
  assert_int_equal(decode_exact(work, len, &got, &diag), WN_ECORRUPT);
  assert_non_null(strstr(diag.msg, "cap"));

  /* A NUL inside the first page name (its bytes start at 40). */
  memcpy(work, bytes, len);
  work[42] = '\0';
  assert_int_equal(decode_exact(work, len, &got, &diag), WN_ECORRUPT);
  assert_non_null(strstr(diag.msg, "NUL"));

  /* Template length: u64 just before the template, the learn section and
   * the checksum. */
  const size_t tlen_at = len - 4 - learn_section_len(&s.rec) - s.rec.template_len - 8;
  memcpy(work, bytes, len);
  assert_int_equal(work[tlen_at], s.rec.template_len & 0xff);
  memset(work + tlen_at, 0xff, 8);
  assert_int_equal(decode_exact(work, len, &got, &diag), WN_ECORRUPT);
  assert_non_null(strstr(diag.msg, "cap"));
  /* ... and longer than what is left before the checksum. */
  memcpy(work, bytes, len);
  const uint64_t past = s.rec.template_len + learn_section_len(&s.rec) + 4 + 1;
  for (size_t i = 0; i < 8; i++)
    work[tlen_at + i] = (unsigned char)(past >> (8 * i));
  assert_int_equal(decode_exact(work, len, &got, &diag), WN_ECORRUPT);
  assert_non_null(strstr(diag.msg, "truncated"));
  assert_null(got);

  free(work);
  free(bytes);
}


/* ---- format 2: the key page and learn parameters ------------------------ */

/* What a format-1 record of s decodes to: no key page, zero parameters. */
static wn_store_record as_format_1(const sample *s) {
  wn_store_record want = s->rec;
  want.key_page = NULL;
  memset(&want.params, 0, sizeof want.params);
  return want;
}

static void test_decode_format_1(void **state) {
  (void)state;
  wn_diag diag;
  for (unsigned variant = 0; variant < 5; variant++) {
    sample s;
    sample_init(&s, variant);
    size_t len = 0;
    unsigned char *bytes = encode_v1(&s.rec, &len);
    /* Format 1 is format 2 without the learn section. */
    size_t len2 = 0;
    unsigned char *bytes2 = encode_sample(&s, &len2);
    assert_int_equal(len2, len + learn_section_len(&s.rec));
    free(bytes2);

    wn_store_record *got = NULL;
    wn_err err = decode_exact(bytes, len, &got, &diag);
    if (err)
      print_error("variant %u: %s\n", variant, diag.msg);
    assert_int_equal(err, WN_OK);
    assert_int_equal(got->format_version, 1);
    assert_int_equal(got->generation, 77);
    const wn_store_record want = as_format_1(&s);
    assert_record_fields(got, &want);
    wn_store_record_free(got);

    /* Every truncation of a format-1 record fails cleanly too. */
    for (size_t cut = 0; cut < len; cut++) {
      got = (wn_store_record *)&diag;
      err = decode_exact(bytes, cut, &got, &diag);
      if (err != WN_ECORRUPT)
        print_error("v1 prefix of %zu/%zu bytes: %s (%s)\n", cut, len, wn_strerror_name(err),
                    diag.msg);
      assert_int_equal(err, WN_ECORRUPT);
      assert_null(got);
      assert_non_null(strstr(diag.msg, "truncated"));
    }

    /* A format-1 body under a version-2 header is short of its learn
     * section, not silently read as something else. */
    bytes[4] = 2;
    reseal(bytes, len);
    assert_int_equal(decode_exact(bytes, len, &got, &diag), WN_ECORRUPT);
    assert_null(got);
    free(bytes);
  }
}

static void test_format_1_record_in_store(void **state) {
  fixture *f = *state;
  wn_diag diag;
  wn_diag_clear(&diag);
  sample s;
  sample_init(&s, 3);
  s.rec.generation = 5;
  wn_store *store = open_store(f->dir, 0, 0);
  wn_store_close(store);
  size_t len = 0;
  unsigned char *bytes = encode_v1(&s.rec, &len);
  raw_put(f->dir, "sites", "old.example", bytes, len);
  free(bytes);

  /* Read as it is, counted, then replaced by a format-2 record whose
   * generation carries on from the old one. */
  store = open_store(f->dir, 0, 0);
  wn_store_record *got = NULL;
  assert_int_equal(wn_store_get(store, "old.example", &got, &diag), WN_OK);
  assert_int_equal(got->format_version, 1);
  assert_int_equal(got->generation, 5);
  const wn_store_record want = as_format_1(&s);
  assert_record_fields(got, &want);
  wn_store_record_free(got);
  int counted = 0;
  assert_int_equal(wn_store_count(store, "old.example", 5, 3, 1, &counted, NULL, &diag), WN_OK);
  assert_int_equal(counted, 1);

  uint64_t generation = 0;
  size_t record_bytes = 0;
  assert_int_equal(
      wn_store_put(store, "old.example", &s.rec, &generation, &record_bytes, &diag), WN_OK);
  assert_int_equal(generation, 6);
  assert_int_equal(wn_store_get(store, "old.example", &got, &diag), WN_OK);
  assert_int_equal(got->generation, 6);
  assert_record_matches(got, &s.rec);
  wn_store_record_free(got);
  wn_store_close(store);
}

static void test_put_reports_record_bytes(void **state) {
  fixture *f = *state;
  wn_store *store = open_store(f->dir, 0, 0);
  wn_diag diag;
  wn_diag_clear(&diag);
  for (unsigned variant = 0; variant < 3; variant++) {
    sample s;
    sample_init(&s, variant);
    size_t record_bytes = 0, len = 0;
    assert_int_equal(wn_store_put(store, "size.example", &s.rec, NULL, &record_bytes, &diag),
                     WN_OK);
    /* The same record as encode makes it (the generation field has a fixed
     * width, so the stored generation does not change the size). */
    unsigned char *bytes = encode_sample(&s, &len);
    free(bytes);
    assert_int_equal(record_bytes, len);
  }
  /* A refused put leaves the out-parameters alone. */
  sample s;
  sample_init(&s, 1);
  s.rec.params.from_url = 2;
  size_t record_bytes = 12345;
  uint64_t generation = 999;
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_put(store, "size.example", &s.rec, &generation, &record_bytes, &diag),
                   WN_EINVAL);
  assert_non_null(strstr(diag.msg, "size.example"));
  assert_int_equal(record_bytes, 12345);
  assert_int_equal(generation, 999);
  wn_store_close(store);
}

static void encode_refused(const wn_store_record *rec, const char *why) {
  wn_buf buf;
  wn_diag diag;
  wn_buf_init(&buf, 0);
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_record_encode(rec, &buf, &diag), WN_EINVAL);
  if (!strstr(diag.msg, why))
    fail_msg("refusal \"%s\" does not mention %s", diag.msg, why);
  assert_int_equal(buf.len, 0);
  wn_buf_free(&buf);
}

static void round_trips(const wn_store_record *rec) {
  wn_buf buf;
  wn_diag diag;
  wn_buf_init(&buf, 0);
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_record_encode(rec, &buf, &diag), WN_OK);
  wn_store_record *got = NULL;
  assert_int_equal(decode_exact((const unsigned char *)buf.data, buf.len, &got, &diag), WN_OK);
  assert_record_matches(got, rec);
  wn_store_record_free(got);
  wn_buf_free(&buf);
}

static void test_learn_params_bounds(void **state) {
  (void)state;
  sample s;
  char key[WN_STORE_MAX_PAGE_NAME + 2];
  memset(key, 'k', sizeof key - 1);
  key[sizeof key - 1] = '\0';

  /* Exactly at each cap round-trips; one past it is refused. */
  sample_init(&s, 1);
  key[WN_STORE_MAX_PAGE_NAME] = '\0';
  s.rec.key_page = key;
  memset(s.rec.params.user_agent, 'u', WN_STORE_MAX_USER_AGENT - 1);
  s.rec.params.user_agent[WN_STORE_MAX_USER_AGENT - 1] = '\0';
  s.rec.params.min_share = 1.0;
  s.rec.params.selector = 255;
  s.rec.params.min_count = s.rec.params.n = s.rec.params.max_fetches = UINT32_MAX;
  s.rec.params.max_body_bytes = UINT64_MAX;
  round_trips(&s.rec);
  key[WN_STORE_MAX_PAGE_NAME] = 'k';
  encode_refused(&s.rec, "key page");
  key[WN_STORE_MAX_PAGE_NAME] = '\0';
  memset(s.rec.params.user_agent, 'u', WN_STORE_MAX_USER_AGENT);
  encode_refused(&s.rec, "user agent");

  /* An empty key page is no key page; min_share 0 is a share. */
  sample_init(&s, 2);
  s.rec.key_page = (char *)"";
  s.rec.params.min_share = 0.0;
  s.rec.params.user_agent[0] = '\0';
  round_trips(&s.rec);

  const double bad_shares[] = {-0.125, 1.5, NAN, INFINITY, -INFINITY};
  for (size_t i = 0; i < sizeof bad_shares / sizeof bad_shares[0]; i++) {
    sample_init(&s, 1);
    s.rec.params.min_share = bad_shares[i];
    encode_refused(&s.rec, "min_share");
  }
  sample_init(&s, 1);
  s.rec.params.from_url = 2;
  encode_refused(&s.rec, "from_url");
  sample_init(&s, 1);
  s.rec.params.by_domain = 7;
  encode_refused(&s.rec, "by_domain");
}

/* Decodes a resealed copy of bytes with one change; the decoder's own check
 * of that field must name it. */
static void damaged_fails(const unsigned char *bytes, size_t len, size_t at,
                          const void *with, size_t n, const char *why) {
  unsigned char *work = malloc(len);
  assert_non_null(work);
  memcpy(work, bytes, len);
  memcpy(work + at, with, n);
  reseal(work, len);
  wn_diag diag;
  wn_store_record *got = (wn_store_record *)&diag;
  assert_int_equal(decode_exact(work, len, &got, &diag), WN_ECORRUPT);
  assert_null(got);
  if (!strstr(diag.msg, why))
    fail_msg("damage at %zu: \"%s\" does not mention %s", at, diag.msg, why);
  free(work);
}

static void test_decode_learn_section_damage(void **state) {
  (void)state;
  sample s;
  sample_init(&s, 1);
  size_t len = 0;
  unsigned char *bytes = encode_sample(&s, &len);
  const size_t key_at = len - 4 - learn_section_len(&s.rec); /* u32 key page length */
  const size_t key_len = strlen(s.rec.key_page);
  const size_t flags_at = key_at + 4 + key_len;
  const size_t share_at = flags_at + 3 + 12;
  const size_t agent_len = strlen(s.rec.params.user_agent);
  const size_t agent_at = len - 4 - agent_len - 4; /* u32 user agent length */
  assert_int_equal(bytes[key_at], key_len);
  assert_int_equal(bytes[agent_at], agent_len);

  const unsigned char past_cap[4] = {0x01, 0x08, 0, 0}; /* 2049 */
  damaged_fails(bytes, len, key_at, past_cap, 4, "cap");
  const unsigned char huge[4] = {0xff, 0xff, 0xff, 0xff};
  damaged_fails(bytes, len, key_at, huge, 4, "cap");
  damaged_fails(bytes, len, key_at + 4 + 3, "", 1, "NUL");
  const unsigned char two = 2;
  damaged_fails(bytes, len, flags_at, &two, 1, "from_url");
  damaged_fails(bytes, len, flags_at + 1, &two, 1, "by_domain");
  const unsigned char nan_bits[8] = {0, 0, 0, 0, 0, 0, 0xf8, 0x7f};
  damaged_fails(bytes, len, share_at, nan_bits, 8, "min_share");
  const unsigned char two_bits[8] = {0, 0, 0, 0, 0, 0, 0, 0x40}; /* 2.0 */
  damaged_fails(bytes, len, share_at, two_bits, 8, "min_share");
  const unsigned char agent_cap[4] = {0x00, 0x01, 0, 0}; /* 256 */
  damaged_fails(bytes, len, agent_at, agent_cap, 4, "cap");
  damaged_fails(bytes, len, agent_at + 4 + 2, "", 1, "NUL");
  /* A length one past what is there runs into the checksum: truncated. */
  const unsigned char longer = (unsigned char)(agent_len + 5);
  damaged_fails(bytes, len, agent_at, &longer, 1, "truncated");
  free(bytes);
}


/* ---- read-only stores without a lock file ------------------------------ */

/*
 * LMDB opens lock.mdb read-write even to read, so a store that is not ours
 * to write (lock.mdb owned by someone else, or missing in a directory we
 * cannot write) used to be unreadable. Permission bits do not stop root, and
 * the tests may run as root, so the reading is done in a child process that,
 * when root, first becomes nobody (uid/gid 65534): the files stay root's,
 * exactly the case of a store owned by another user. Not root, the parent
 * takes write permission away with chmod instead. A child that cannot drop
 * privileges skips the test.
 */
#define CHILD_SKIP 77

/* The child's checks, as an exit code (cmocka must not run in a child). */
static int child_read_lockless(const char *dir, int drop, int expect_open) {
  if (drop && (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0))
    return CHILD_SKIP;
  wn_store_options ro;
  wn_store_options_init(&ro);
  ro.read_only = 1;
  wn_store *store = NULL;
  wn_diag diag;
  wn_diag_clear(&diag);
  wn_err err = wn_store_open(dir, &ro, &store, &diag);
  if (!expect_open) {
    if (err == WN_OK || store || !strstr(diag.msg, dir)) {
      fprintf(stderr, "child: open of an unreadable store: %s\n", wn_diag_message(&diag, err));
      wn_store_close(store);
      return 10;
    }
    return 0;
  }
  if (err != WN_OK) {
    fprintf(stderr, "child: read-only open: %s\n", wn_diag_message(&diag, err));
    return 11;
  }
  int rc = 0;
  wn_store_record *got = NULL;
  int counted = 0;
  if (wn_store_lockless(store) != 1)
    rc = 12;
  else if (wn_store_get(store, "ro.example", &got, &diag) != WN_OK || got->generation != 1 ||
           !got->key_page || strcmp(got->key_page, "https://site.example/key-1.html") != 0)
    rc = 13;
  else if (wn_store_put(store, "ro.example", got, NULL, NULL, &diag) != WN_EINVAL ||
           wn_store_count(store, "ro.example", 0, 1, 0, &counted, NULL, &diag) != WN_EINVAL)
    rc = 14;
  wn_store_record_free(got);
  wn_store_close(store);
  if (rc)
    return rc;
  /* Writing needs the lock: a writable open still fails, with a message. */
  wn_diag_clear(&diag);
  err = wn_store_open(dir, NULL, &store, &diag);
  if (err == WN_OK || store) {
    wn_store_close(store);
    return 15;
  }
  return 0;
}

/* Runs child_read_lockless in a child; returns its exit code. */
static int run_child(const char *dir, int drop, int expect_open) {
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0)
    _exit(child_read_lockless(dir, drop, expect_open));
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  return WEXITSTATUS(status);
}

static void test_read_only_store_without_lock(void **state) {
  fixture *f = *state;
  const int root = geteuid() == 0;
  char lock[160], data[160];
  snprintf(lock, sizeof lock, "%s/lock.mdb", f->dir);
  snprintf(data, sizeof data, "%s/data.mdb", f->dir);
  wn_store *store = open_store(f->dir, 0, 0);
  sample s;
  sample_init(&s, 1);
  assert_int_equal(wn_store_put(store, "ro.example", &s.rec, NULL, NULL, NULL), WN_OK);
  wn_store_close(store);

  /* Whoever may write the lock file gets the ordinary, locked store. */
  store = open_store(f->dir, 1, 0);
  assert_int_equal(wn_store_lockless(store), 0);
  wn_store_close(store);
  assert_int_equal(wn_store_lockless(NULL), 0);

  /* lock.mdb not writable by the reader. */
  assert_int_equal(chmod(f->base, 0755), 0);
  if (!root)
    assert_int_equal(chmod(lock, 0444), 0);
  int rc = run_child(f->dir, root, 1);
  if (rc == CHILD_SKIP)
    skip();
  assert_int_equal(rc, 0);

  /* No lock.mdb, in a directory the reader cannot write. */
  assert_int_equal(unlink(lock), 0);
  assert_int_equal(chmod(f->dir, 0555), 0);
  rc = run_child(f->dir, root, 1);
  assert_int_equal(chmod(f->dir, 0755), 0);
  assert_int_equal(rc, 0);
  struct stat st;
  assert_int_equal(stat(lock, &st), -1); /* the reader made none */

  /* The data itself unreadable: still an error, not an empty store. */
  assert_int_equal(chmod(f->dir, 0555), 0);
  assert_int_equal(chmod(data, root ? 0600 : 0200), 0);
  rc = run_child(f->dir, root, 0);
  assert_int_equal(chmod(data, 0644), 0);
  assert_int_equal(chmod(f->dir, 0755), 0);
  assert_int_equal(rc, 0);
}

/* A store on a read-only file system (a read-only bind mount in a private
 * mount namespace: needs CAP_SYS_ADMIN, so this skips elsewhere). LMDB
 * drops the lock file of a read-only environment there by itself
 * (mdb_env_setup_locks on EROFS); the store says so all the same. */
static int child_read_only_mount(const char *dir) {
  if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
      mount(dir, dir, NULL, MS_BIND, NULL) != 0 ||
      mount(NULL, dir, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL) != 0)
    return CHILD_SKIP;
  return child_read_lockless(dir, 0, 1);
}

static void test_read_only_file_system(void **state) {
  fixture *f = *state;
  wn_store *store = open_store(f->dir, 0, 0);
  sample s;
  sample_init(&s, 1);
  assert_int_equal(wn_store_put(store, "ro.example", &s.rec, NULL, NULL, NULL), WN_OK);
  wn_store_close(store);
  char lock[160];
  snprintf(lock, sizeof lock, "%s/lock.mdb", f->dir);
  for (int pass = 0; pass < 2; pass++) {
    /* With lock.mdb present, then without. */
    if (pass == 1)
      assert_int_equal(unlink(lock), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
      _exit(child_read_only_mount(f->dir));
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) == CHILD_SKIP)
      skip();
    assert_int_equal(WEXITSTATUS(status), 0);
  }
}


/* ---- map size ----------------------------------------------------------- */

static void test_options_init_and_map_size(void **state) {
  fixture *f = *state;
  wn_store_options opts;
  memset(&opts, 0xa5, sizeof opts);
  wn_store_options_init(&opts);
  assert_true(opts.map_size == WN_STORE_DEFAULT_MAP_SIZE);
  assert_int_equal(opts.read_only, 0);
  wn_store_options_init(NULL);
  assert_true(wn_store_map_size(NULL) == 0);

  wn_store *store = NULL;
  wn_diag diag;
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_open(f->dir, &opts, &store, &diag), WN_OK);
  assert_true(wn_store_map_size(store) == WN_STORE_DEFAULT_MAP_SIZE);
  wn_store_close(store);
  store = open_store(f->dir, 0, (size_t)3 << 20);
  assert_true(wn_store_map_size(store) == (size_t)3 << 20);
  wn_store_close(store);
}

/* A map smaller than the data already stored is raised to the data file's
 * size: the store opens and reads; only growing it needs a larger map, and
 * the error says so. */
static void test_small_map_raised_to_file_size(void **state) {
  fixture *f = *state;
  const size_t mib = (size_t)1 << 20;
  wn_store *store = open_store(f->dir, 0, 8 * mib);
  sample s;
  sample_init(&s, 1);
  unsigned char *big = calloc(1, 2 * mib);
  assert_non_null(big);
  s.rec.template_bytes = big;
  s.rec.template_len = 2 * mib;
  wn_diag diag;
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_put(store, "big.example", &s.rec, NULL, NULL, &diag), WN_OK);
  wn_store_close(store);
  char data[160];
  snprintf(data, sizeof data, "%s/data.mdb", f->dir);
  struct stat st;
  assert_int_equal(stat(data, &st), 0);
  assert_true(st.st_size > (off_t)(2 * mib));

  for (int read_only = 0; read_only < 2; read_only++) {
    store = open_store(f->dir, read_only, 64 << 10);
    assert_true(wn_store_map_size(store) >= (size_t)st.st_size);
    wn_store_record *got = NULL;
    assert_int_equal(wn_store_get(store, "big.example", &got, &diag), WN_OK);
    assert_int_equal(got->template_len, 2 * mib);
    wn_store_record_free(got);
    wn_store_close(store);
  }

  /* Growing past the raised map: WN_ENOSPACE, and how to fix it. */
  store = open_store(f->dir, 0, 64 << 10);
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_put(store, "bigger.example", &s.rec, NULL, NULL, &diag),
                   WN_ENOSPACE);
  assert_non_null(strstr(diag.msg, "store is full (map size "));
  assert_non_null(strstr(diag.msg, " MiB); reopen with a larger map size"));
  assert_non_null(strstr(diag.msg, "bigger.example"));
  wn_store_close(store);

  /* A whole number of MiB is printed as one. */
  snprintf(data, sizeof data, "%s/empty", f->base);
  store = open_store(data, 0, mib);
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_put(store, "big.example", &s.rec, NULL, NULL, &diag), WN_ENOSPACE);
  assert_non_null(
      strstr(diag.msg, "store is full (map size 1 MiB); reopen with a larger map size"));
  wn_store_close(store);

  store = open_store(f->dir, 0, 16 * mib);
  assert_int_equal(wn_store_put(store, "bigger.example", &s.rec, NULL, NULL, &diag), WN_OK);
  wn_store_close(store);
  free(big);
}

/* ---- site names --------------------------------------------------------- */

static void test_invalid_site_names(void **state) {
  fixture *f = *state;
  wn_store *store = open_store(f->dir, 0, 0);
  sample s;
  sample_init(&s, 1);
  char too_long[WN_STORE_MAX_SITE + 2];
  memset(too_long, 'x', sizeof too_long - 1);
  too_long[sizeof too_long - 1] = '\0';
  const char *const bad[] = {"", too_long, "a\nb.example", "tab\there", "del\x7f", "\x01",
                             "esc\x1b[0m", NULL};
  const char *const why[] = {"empty", "longer", "control", "control", "control", "control",
                             "control", "no site"};
  wn_diag diag;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    wn_diag_clear(&diag);
    assert_int_equal(wn_store_put(store, bad[i], &s.rec, NULL, NULL, &diag), WN_EINVAL);
    assert_non_null(strstr(diag.msg, why[i]));
    wn_store_record *got = (wn_store_record *)&diag;
    assert_int_equal(wn_store_get(store, bad[i], &got, NULL), WN_EINVAL);
    assert_null(got);
    assert_int_equal(wn_store_delete(store, bad[i], NULL), WN_EINVAL);
  }

  /* Exactly at the cap, and bytes above ASCII, are site names. */
  too_long[WN_STORE_MAX_SITE] = '\0';
  assert_int_equal(wn_store_put(store, too_long, &s.rec, NULL, NULL, &diag), WN_OK);
  assert_int_equal(
      wn_store_put(store, "b\xc3\xbc" "cher.example", &s.rec, NULL, NULL, &diag), WN_OK);
  wn_store_record *got = NULL;
  assert_int_equal(wn_store_get(store, too_long, &got, &diag), WN_OK);
  wn_store_record_free(got);

  /* Nothing invalid was written. */
  collector *c = calloc(1, sizeof *c);
  assert_non_null(c);
  assert_int_equal(wn_store_list(store, collect_site, c, &diag), WN_OK);
  assert_int_equal(c->count, 2);
  free(c);
  wn_store_close(store);
}

/* ---- read-only, reopening, other processes ------------------------------ */

static void test_read_only_can_get_not_write(void **state) {
  fixture *f = *state;
  wn_store *store = open_store(f->dir, 0, 0);
  sample s;
  sample_init(&s, 1);
  wn_diag diag;
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_put(store, "ro.example", &s.rec, NULL, NULL, &diag), WN_OK);
  wn_store_close(store);

  store = open_store(f->dir, 1, 0);
  wn_store_record *got = NULL;
  assert_int_equal(wn_store_get(store, "ro.example", &got, &diag), WN_OK);
  assert_record_matches(got, &s.rec);
  wn_store_record_free(got);

  wn_diag_clear(&diag);
  assert_int_equal(wn_store_put(store, "ro.example", &s.rec, NULL, NULL, &diag), WN_EINVAL);
  assert_non_null(strstr(diag.msg, "read-only"));
  assert_non_null(strstr(diag.msg, "ro.example"));
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_delete(store, "ro.example", &diag), WN_EINVAL);
  assert_non_null(strstr(diag.msg, "read-only"));

  collector *c = calloc(1, sizeof *c);
  assert_non_null(c);
  assert_int_equal(wn_store_list(store, collect_site, c, &diag), WN_OK);
  assert_int_equal(c->count, 1);
  free(c);
  wn_store_close(store);

  /* The refused writes changed nothing. */
  store = open_store(f->dir, 0, 0);
  uint64_t generation = 0;
  assert_int_equal(wn_store_put(store, "ro.example", &s.rec, &generation, NULL, &diag), WN_OK);
  assert_int_equal(generation, 2);
  wn_store_close(store);
}

static void test_open_errors(void **state) {
  fixture *f = *state;
  wn_store *store = (wn_store *)f;
  wn_store_options ro = {0, 1};
  wn_diag diag;
  struct stat st;

  /* Read-only never creates a store. */
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_open(f->dir, &ro, &store, &diag), WN_ENOTFOUND);
  assert_null(store);
  assert_non_null(strstr(diag.msg, f->dir));
  assert_int_equal(stat(f->dir, &st), -1);

  char path[160];
  snprintf(path, sizeof path, "%s/empty", f->base);
  assert_int_equal(mkdir(path, 0755), 0);
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_open(path, &ro, &store, &diag), WN_ENOTFOUND);
  assert_non_null(strstr(diag.msg, "data.mdb"));

  /* An LMDB environment without our database is not a store. */
  raw_put(path, "other", NULL, NULL, 0);
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_open(path, &ro, &store, &diag), WN_ENOTFOUND);
  assert_non_null(strstr(diag.msg, "sites"));

  snprintf(path, sizeof path, "%s/file", f->base);
  FILE *file = fopen(path, "w");
  assert_non_null(file);
  fclose(file);
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_open(path, NULL, &store, &diag), WN_EINVAL);
  assert_non_null(strstr(diag.msg, "not a directory"));

  snprintf(path, sizeof path, "%s/missing/db", f->base);
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_open(path, NULL, &store, &diag), WN_EIO);
  assert_non_null(strstr(diag.msg, "cannot create"));

  assert_int_equal(wn_store_open("", NULL, &store, NULL), WN_EINVAL);
  assert_int_equal(wn_store_open(NULL, NULL, &store, NULL), WN_EINVAL);
  assert_int_equal(wn_store_open(f->dir, NULL, NULL, NULL), WN_EINVAL);

  /* NULL options: defaults, and the directory is created. */
  assert_int_equal(wn_store_open(f->dir, NULL, &store, &diag), WN_OK);
  assert_int_equal(stat(f->dir, &st), 0);
  assert_true(S_ISDIR(st.st_mode));
  wn_store_close(store);
  wn_store_close(NULL);
}

static void test_reopen_sees_replaced_record(void **state) {
  fixture *f = *state;
  sample s1, s2;
  sample_init(&s1, 1);
  sample_init(&s2, 2);
  wn_diag diag;
  wn_diag_clear(&diag);

  wn_store *store = open_store(f->dir, 0, 0);
  assert_int_equal(wn_store_put(store, "re.example", &s1.rec, NULL, NULL, &diag), WN_OK);
  wn_store_close(store);
  store = open_store(f->dir, 0, 0);
  assert_int_equal(wn_store_put(store, "re.example", &s2.rec, NULL, NULL, &diag), WN_OK);
  wn_store_close(store);

  store = open_store(f->dir, 1, 0);
  wn_store_record *got = NULL;
  assert_int_equal(wn_store_get(store, "re.example", &got, &diag), WN_OK);
  assert_int_equal(got->generation, 2);
  assert_record_matches(got, &s2.rec);
  wn_store_record_free(got);
  wn_store_close(store);
}

static int read_byte(int fd) {
  unsigned char c;
  ssize_t n;
  do
    n = read(fd, &c, 1);
  while (n < 0 && errno == EINTR);
  return n == 1 ? c : -1;
}

static void write_byte(int fd, unsigned char c) {
  ssize_t n;
  do
    n = write(fd, &c, 1);
  while (n < 0 && errno == EINTR);
}

/* The child of test_other_process_reads_while_parent_writes: keeps one
 * read-only handle open across the parent's replacement and reports what it
 * saw. No cmocka in here; it answers 'y' or 'n' over the pipe. */
static int child_reader(const char *dir, int from_parent, int to_parent) {
  wn_store_options ro = {0, 1};
  wn_store *store = NULL;
  int ok = 1;
  if (read_byte(from_parent) != 'g' || wn_store_open(dir, &ro, &store, NULL) != WN_OK)
    return 1;
  for (unsigned round = 1; round <= 2 && ok; round++) {
    if (round == 2 && read_byte(from_parent) != 'g') {
      ok = 0;
      break;
    }
    sample want;
    sample_init(&want, round);
    wn_store_record *got = NULL;
    ok = wn_store_get(store, "shared.example", &got, NULL) == WN_OK && got->generation == round &&
         got->template_len == want.rec.template_len &&
         memcmp(got->template_bytes, want.tpl, want.rec.template_len) == 0 &&
         strcmp(got->pages[0].name, want.names[0]) == 0;
    wn_store_record_free(got);
    write_byte(to_parent, ok ? 'y' : 'n');
  }
  wn_store_close(store);
  return ok ? 0 : 1;
}

static void test_other_process_reads_while_parent_writes(void **state) {
  fixture *f = *state;
  int down[2], up[2];
  assert_int_equal(pipe(down), 0);
  assert_int_equal(pipe(up), 0);
  /* Fork before either side opens the store: LMDB environments must not
   * cross fork(). */
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    close(down[1]);
    close(up[0]);
    _exit(child_reader(f->dir, down[0], up[1]));
  }
  close(down[0]);
  close(up[1]);

  wn_store *store = open_store(f->dir, 0, 0);
  wn_diag diag;
  wn_diag_clear(&diag);
  sample s;
  sample_init(&s, 1);
  assert_int_equal(wn_store_put(store, "shared.example", &s.rec, NULL, NULL, &diag), WN_OK);
  write_byte(down[1], 'g');
  assert_int_equal(read_byte(up[0]), 'y');
  /* The child's handle is still open while we replace the record. */
  sample_init(&s, 2);
  assert_int_equal(wn_store_put(store, "shared.example", &s.rec, NULL, NULL, &diag), WN_OK);
  write_byte(down[1], 'g');
  assert_int_equal(read_byte(up[0]), 'y');
  wn_store_close(store);

  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  close(down[1]);
  close(up[0]);
}

#define BIG_TEMPLATE ((size_t)4 << 20)

static int child_big_writer(const char *dir, int from_parent) {
  wn_store_options opts = {(size_t)32 << 20, 0};
  wn_store *store = NULL;
  if (read_byte(from_parent) != 'g' || wn_store_open(dir, &opts, &store, NULL) != WN_OK)
    return 1;
  sample s;
  sample_init(&s, 1);
  unsigned char *big = malloc(BIG_TEMPLATE);
  if (!big)
    return 1;
  for (size_t i = 0; i < BIG_TEMPLATE; i++)
    big[i] = (unsigned char)(i % 251);
  s.rec.template_bytes = big;
  s.rec.template_len = BIG_TEMPLATE;
  wn_err err = wn_store_put(store, "big.example", &s.rec, NULL, NULL, NULL);
  free(big);
  wn_store_close(store);
  return err == WN_OK ? 0 : 1;
}

/* A reader opened with a small map keeps working after another process
 * grows the data past it (MDB_MAP_RESIZED is handled, not passed up). */
static void test_map_grown_by_other_process(void **state) {
  fixture *f = *state;
  const size_t small_map = (size_t)1 << 20;
  wn_diag diag;
  wn_diag_clear(&diag);
  sample s;
  sample_init(&s, 2);
  wn_store *store = open_store(f->dir, 0, small_map);
  assert_int_equal(wn_store_put(store, "small.example", &s.rec, NULL, NULL, &diag), WN_OK);
  wn_store_close(store);

  int down[2];
  assert_int_equal(pipe(down), 0);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    close(down[1]);
    _exit(child_big_writer(f->dir, down[0]));
  }
  close(down[0]);

  store = open_store(f->dir, 1, small_map);
  wn_store_record *got = NULL;
  assert_int_equal(wn_store_get(store, "small.example", &got, &diag), WN_OK);
  wn_store_record_free(got);
  write_byte(down[1], 'g');
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFEXITED(status));
  assert_int_equal(WEXITSTATUS(status), 0);
  close(down[1]);

  got = NULL;
  wn_diag_clear(&diag);
  wn_err err = wn_store_get(store, "big.example", &got, &diag);
  if (err)
    print_error("%s\n", wn_diag_message(&diag, err));
  assert_int_equal(err, WN_OK);
  assert_int_equal(got->template_len, BIG_TEMPLATE);
  for (size_t i = 0; i < BIG_TEMPLATE; i += 4093)
    assert_int_equal(got->template_bytes[i], i % 251);
  wn_store_record_free(got);
  assert_int_equal(wn_store_get(store, "small.example", &got, &diag), WN_OK);
  assert_record_matches(got, &s.rec);
  wn_store_record_free(got);
  wn_store_close(store);
}

/* ---- limits and damage inside the store -------------------------------- */

static void test_too_many_pages_refused_at_put(void **state) {
  fixture *f = *state;
  wn_store *store = open_store(f->dir, 0, 0);
  wn_diag diag;
  wn_diag_clear(&diag);
  sample s;
  sample_init(&s, 1);
  assert_int_equal(wn_store_put(store, "pages.example", &s.rec, NULL, NULL, &diag), WN_OK);

  sample many;
  sample_init(&many, 2);
  for (unsigned i = 3; i < WN_STORE_MAX_PAGES + 1; i++)
    many.pages[i] = many.pages[i % 3];
  many.rec.n_pages = WN_STORE_MAX_PAGES + 1;
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_put(store, "pages.example", &many.rec, NULL, NULL, &diag), WN_EINVAL);
  assert_non_null(strstr(diag.msg, "pages.example"));
  assert_non_null(strstr(diag.msg, "65 sample pages"));
  assert_int_equal(wn_store_put(store, "new.example", &many.rec, NULL, NULL, NULL), WN_EINVAL);

  /* The old record is untouched and the refused site was never created. */
  wn_store_record *got = NULL;
  assert_int_equal(wn_store_get(store, "pages.example", &got, &diag), WN_OK);
  assert_int_equal(got->generation, 1);
  assert_record_matches(got, &s.rec);
  wn_store_record_free(got);
  assert_int_equal(wn_store_get(store, "new.example", &got, &diag), WN_ENOTFOUND);

  /* Exactly at the cap is accepted. */
  many.rec.n_pages = WN_STORE_MAX_PAGES;
  assert_int_equal(wn_store_put(store, "new.example", &many.rec, NULL, NULL, &diag), WN_OK);
  assert_int_equal(wn_store_get(store, "new.example", &got, &diag), WN_OK);
  assert_record_matches(got, &many.rec);
  wn_store_record_free(got);
  wn_store_close(store);
}

static void test_map_full_is_enospace(void **state) {
  fixture *f = *state;
  wn_store *store = open_store(f->dir, 0, (size_t)256 << 10);
  sample s;
  sample_init(&s, 1);
  const size_t big_len = (size_t)1 << 20;
  unsigned char *big = calloc(1, big_len);
  assert_non_null(big);
  s.rec.template_bytes = big;
  s.rec.template_len = big_len;
  wn_diag diag;
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_put(store, "full.example", &s.rec, NULL, NULL, &diag), WN_ENOSPACE);
  assert_non_null(strstr(diag.msg, "full.example"));
  assert_non_null(
      strstr(diag.msg, "store is full (map size 0.25 MiB); reopen with a larger map size"));
  free(big);

  /* The failed transaction left nothing behind and the store still works. */
  wn_store_record *got = NULL;
  assert_int_equal(wn_store_get(store, "full.example", &got, &diag), WN_ENOTFOUND);
  sample_init(&s, 1);
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_put(store, "full.example", &s.rec, NULL, NULL, &diag), WN_OK);
  assert_int_equal(wn_store_get(store, "full.example", &got, &diag), WN_OK);
  assert_int_equal(got->generation, 1);
  wn_store_record_free(got);
  wn_store_close(store);
}

static void test_damaged_records_in_store(void **state) {
  fixture *f = *state;
  wn_diag diag;
  wn_diag_clear(&diag);
  sample s;
  sample_init(&s, 1);
  wn_store *store = open_store(f->dir, 0, 0);
  assert_int_equal(wn_store_put(store, "good.example", &s.rec, NULL, NULL, &diag), WN_OK);
  wn_store_close(store);

  size_t len = 0;
  unsigned char *bytes = encode_sample(&s, &len);
  raw_put(f->dir, "sites", "bad.example", bytes, len / 2);
  bytes[4] = 7; /* a future format version */
  raw_put(f->dir, "sites", "future.example", bytes, len);
  free(bytes);

  store = open_store(f->dir, 0, 0);
  wn_store_record *got = (wn_store_record *)&diag;
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_get(store, "bad.example", &got, &diag), WN_ECORRUPT);
  assert_null(got);
  assert_non_null(strstr(diag.msg, "bad.example"));
  assert_non_null(strstr(diag.msg, "truncated"));
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_get(store, "future.example", &got, &diag), WN_EVERSION);
  assert_string_equal(diag.msg, "store: site future.example: record format version 7 is not "
                                "supported (this build reads 1 to 2)");

  /* A record that does not decode is replaced, counting from generation 0. */
  uint64_t generation = 0;
  assert_int_equal(wn_store_put(store, "bad.example", &s.rec, &generation, NULL, &diag), WN_OK);
  assert_int_equal(generation, 1);
  assert_int_equal(wn_store_put(store, "future.example", &s.rec, &generation, NULL, &diag), WN_OK);
  assert_int_equal(generation, 1);
  assert_int_equal(wn_store_get(store, "bad.example", &got, &diag), WN_OK);
  assert_record_matches(got, &s.rec);
  wn_store_record_free(got);
  wn_store_close(store);
}

/* ---- threads ------------------------------------------------------------ */

#define THREAD_READERS 4
#define THREAD_WRITES 60

typedef struct reader_ctx {
  wn_store *store;
  int reads;
  int failures;
} reader_ctx;

/* A record whose every field is derived from its generation, so a reader can
 * tell a torn or mixed record from a whole one. */
static void generation_record(wn_store_record *rec, unsigned char *tpl, uint64_t generation) {
  memset(rec, 0, sizeof *rec);
  snprintf(rec->algorithm, sizeof rec->algorithm, "%s", "etdm");
  rec->learned_at = (int64_t)generation;
  rec->template_len = 1000 + (size_t)generation;
  memset(tpl, (int)(generation & 0xff), rec->template_len);
  rec->template_bytes = tpl;
}

static void *reader_thread(void *arg) {
  reader_ctx *ctx = arg;
  for (int i = 0; i < 300; i++) {
    wn_store_record *got = NULL;
    if (wn_store_get(ctx->store, "t.example", &got, NULL) != WN_OK) {
      ctx->failures++;
      continue;
    }
    const uint64_t g = got->generation;
    int ok = got->learned_at == (int64_t)g && got->template_len == 1000 + g;
    for (size_t j = 0; ok && j < got->template_len; j++)
      ok = got->template_bytes[j] == (unsigned char)(g & 0xff);
    if (!ok)
      ctx->failures++;
    ctx->reads++;
    wn_store_record_free(got);
  }
  return NULL;
}

/* One handle shared by reader threads while another thread writes
 * (MDB_NOTLS): every read sees one whole record. */
static void test_threads_share_one_handle(void **state) {
  fixture *f = *state;
  wn_store *store = open_store(f->dir, 0, 0);
  unsigned char *tpl = malloc(1000 + THREAD_WRITES + 1);
  assert_non_null(tpl);
  wn_store_record rec;
  generation_record(&rec, tpl, 1);
  assert_int_equal(wn_store_put(store, "t.example", &rec, NULL, NULL, NULL), WN_OK);

  pthread_t threads[THREAD_READERS];
  reader_ctx ctx[THREAD_READERS];
  for (int i = 0; i < THREAD_READERS; i++) {
    ctx[i] = (reader_ctx){store, 0, 0};
    assert_int_equal(pthread_create(&threads[i], NULL, reader_thread, &ctx[i]), 0);
  }
  int write_failures = 0;
  for (uint64_t g = 2; g <= THREAD_WRITES; g++) {
    uint64_t got_generation = 0;
    generation_record(&rec, tpl, g);
    if (wn_store_put(store, "t.example", &rec, &got_generation, NULL, NULL) != WN_OK ||
        got_generation != g)
      write_failures++;
  }
  for (int i = 0; i < THREAD_READERS; i++) {
    assert_int_equal(pthread_join(threads[i], NULL), 0);
    assert_int_equal(ctx[i].failures, 0);
    assert_int_equal(ctx[i].reads, 300);
  }
  assert_int_equal(write_failures, 0);
  free(tpl);
  wn_store_close(store);
}

/* More live threads than LMDB has reader slots (126 by default): with
 * MDB_NOTLS a finished read gives its slot back, without it every thread
 * would keep one until it exits and the 127th read would fail. */
#define MANY_THREADS 140

typedef struct slot_ctx {
  wn_store *store;
  pthread_barrier_t *barrier;
  wn_err err;
} slot_ctx;

static void *read_once_and_wait(void *arg) {
  slot_ctx *ctx = arg;
  wn_store_record *got = NULL;
  ctx->err = wn_store_get(ctx->store, "t.example", &got, NULL);
  wn_store_record_free(got);
  pthread_barrier_wait(ctx->barrier);
  return NULL;
}

static void test_many_threads_do_not_hold_reader_slots(void **state) {
  fixture *f = *state;
  wn_store *store = open_store(f->dir, 0, 0);
  unsigned char tpl[1001];
  wn_store_record rec;
  generation_record(&rec, tpl, 1);
  assert_int_equal(wn_store_put(store, "t.example", &rec, NULL, NULL, NULL), WN_OK);

  pthread_barrier_t barrier;
  assert_int_equal(pthread_barrier_init(&barrier, NULL, MANY_THREADS + 1), 0);
  pthread_t *threads = calloc(MANY_THREADS, sizeof *threads);
  slot_ctx *ctx = calloc(MANY_THREADS, sizeof *ctx);
  assert_non_null(threads);
  assert_non_null(ctx);
  for (int i = 0; i < MANY_THREADS; i++) {
    ctx[i] = (slot_ctx){store, &barrier, WN_EINVAL};
    assert_int_equal(pthread_create(&threads[i], NULL, read_once_and_wait, &ctx[i]), 0);
  }
  pthread_barrier_wait(&barrier); /* every thread has read and is still alive */
  int failures = 0;
  for (int i = 0; i < MANY_THREADS; i++) {
    assert_int_equal(pthread_join(threads[i], NULL), 0);
    failures += ctx[i].err != WN_OK;
  }
  assert_int_equal(failures, 0);
  pthread_barrier_destroy(&barrier);
  free(ctx);
  free(threads);
  wn_store_close(store);
}


/* ---- detection counters --------------------------------------------------- */

static void test_counters_count_and_reset(void **state) {
  fixture *f = *state;
  wn_store *store = open_store(f->dir, 0, 0);
  wn_diag diag;
  wn_diag_clear(&diag);
  sample s;
  sample_init(&s, 1);
  wn_store_stats st;
  int counted = -1;
  /* No record: nothing to count against. */
  assert_int_equal(wn_store_count(store, "a.example", 0, 3, 1, &counted, &st, &diag),
                   WN_ENOTFOUND);
  assert_int_equal(counted, 0);
  assert_int_equal(wn_store_put(store, "a.example", &s.rec, NULL, NULL, &diag), WN_OK);
  assert_int_equal(wn_store_stats_get(store, "a.example", &st, &diag), WN_OK);
  assert_int_equal(st.generation, 1);
  assert_int_equal(st.counts.pages, 0);
  assert_int_equal(st.counts.updated_at, 0);

  assert_int_equal(wn_store_count(store, "a.example", 0, 10, 2, &counted, &st, &diag), WN_OK);
  assert_int_equal(counted, 1);
  assert_int_equal(wn_store_count(store, "a.example", 1, 5, 4, &counted, NULL, &diag), WN_OK);
  assert_int_equal(wn_store_stats_get(store, "a.example", &st, &diag), WN_OK);
  assert_int_equal(st.counts.pages, 15);
  assert_int_equal(st.counts.low, 6);
  assert_int_equal(st.counts.recent_pages, 15);
  assert_int_equal(st.counts.recent_low, 6);
  assert_true(st.counts.updated_at > 0);

  /* Counts for a generation that is not current are dropped. */
  assert_int_equal(wn_store_count(store, "a.example", 7, 5, 5, &counted, &st, &diag), WN_OK);
  assert_int_equal(counted, 0);
  assert_int_equal(st.counts.pages, 15);
  /* More low than pages is refused. */
  assert_int_equal(wn_store_count(store, "a.example", 0, 1, 2, &counted, &st, &diag), WN_EINVAL);

  /* A new template starts the counters afresh. */
  assert_int_equal(wn_store_put(store, "a.example", &s.rec, NULL, NULL, &diag), WN_OK);
  assert_int_equal(wn_store_stats_get(store, "a.example", &st, &diag), WN_OK);
  assert_int_equal(st.generation, 2);
  assert_int_equal(st.counts.pages, 0);
  assert_int_equal(st.counts.low, 0);
  /* And so does deleting the site. */
  assert_int_equal(wn_store_count(store, "a.example", 2, 4, 4, &counted, &st, &diag), WN_OK);
  assert_int_equal(wn_store_delete(store, "a.example", &diag), WN_OK);
  assert_int_equal(wn_store_put(store, "a.example", &s.rec, NULL, NULL, &diag), WN_OK);
  assert_int_equal(wn_store_stats_get(store, "a.example", &st, &diag), WN_OK);
  assert_int_equal(st.counts.pages, 0);
  wn_store_close(store);

  /* Read-only handles read the counters but cannot count. */
  store = open_store(f->dir, 1, 0);
  assert_int_equal(wn_store_stats_get(store, "a.example", &st, &diag), WN_OK);
  assert_int_equal(wn_store_count(store, "a.example", 0, 1, 0, &counted, &st, &diag), WN_EINVAL);
  wn_store_close(store);
}

static void test_counters_window_and_drift(void **state) {
  fixture *f = *state;
  wn_store *store = open_store(f->dir, 0, 0);
  wn_diag diag;
  wn_diag_clear(&diag);
  sample s;
  sample_init(&s, 1);
  assert_int_equal(wn_store_put(store, "b.example", &s.rec, NULL, NULL, &diag), WN_OK);
  wn_store_stats st;
  int counted = 0;
  /* 1000 good pages: the window halves 512+ down, no drift. */
  for (int i = 0; i < 10; i++)
    assert_int_equal(wn_store_count(store, "b.example", 0, 100, 0, &counted, &st, &diag), WN_OK);
  assert_int_equal(st.counts.pages, 1000);
  assert_true(st.counts.recent_pages <= WN_STORE_RECENT_WINDOW);
  assert_true(st.counts.recent_pages > WN_STORE_RECENT_WINDOW / 2);
  assert_int_equal(st.counts.recent_low, 0);
  assert_false(wn_store_drifting(&st.counts, NULL));
  /* Then the site is redesigned: 200 pages, all low. The lifetime share is
   * 1/6, under the 0.25 threshold; the recent share is past it. */
  for (int i = 0; i < 4; i++)
    assert_int_equal(wn_store_count(store, "b.example", 0, 50, 50, &counted, &st, &diag), WN_OK);
  assert_int_equal(st.counts.pages, 1200);
  assert_int_equal(st.counts.low, 200);
  assert_true((double)st.counts.low / (double)st.counts.pages < WN_STORE_DRIFT_SHARE);
  assert_true(st.counts.recent_low * 4 >= st.counts.recent_pages);
  assert_true(wn_store_drifting(&st.counts, NULL));
  /* Too few pages never drift, whatever their share. */
  wn_store_stats few = {.generation = 1,
                        .counts = {.pages = 5, .low = 5, .recent_pages = 5, .recent_low = 5}};
  assert_false(wn_store_drifting(&few.counts, NULL));
  wn_store_drift_policy lax = {.min_pages = 5, .max_low_share = 0.9};
  assert_true(wn_store_drifting(&few.counts, &lax));
  wn_store_close(store);
}

static void test_damaged_counters_start_afresh(void **state) {
  fixture *f = *state;
  wn_store *store = open_store(f->dir, 0, 0);
  wn_diag diag;
  wn_diag_clear(&diag);
  sample s;
  sample_init(&s, 1);
  assert_int_equal(wn_store_put(store, "c.example", &s.rec, NULL, NULL, &diag), WN_OK);
  wn_store_close(store);
  raw_put(f->dir, "stats", "c.example", "garbage", 7);
  store = open_store(f->dir, 0, 0);
  wn_store_stats st;
  int counted = 0;
  assert_int_equal(wn_store_stats_get(store, "c.example", &st, &diag), WN_OK);
  assert_int_equal(st.counts.pages, 0);
  assert_int_equal(wn_store_count(store, "c.example", 0, 2, 1, &counted, &st, &diag), WN_OK);
  assert_int_equal(st.counts.pages, 2);
  assert_int_equal(st.counts.low, 1);
  wn_store_close(store);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_put_get_round_trip, setup, teardown),
      cmocka_unit_test_setup_teardown(test_counters_count_and_reset, setup, teardown),
      cmocka_unit_test_setup_teardown(test_counters_window_and_drift, setup, teardown),
      cmocka_unit_test_setup_teardown(test_damaged_counters_start_afresh, setup, teardown),
      cmocka_unit_test_setup_teardown(test_generation_increments_on_replace, setup, teardown),
      cmocka_unit_test_setup_teardown(test_get_missing_site, setup, teardown),
      cmocka_unit_test_setup_teardown(test_delete, setup, teardown),
      cmocka_unit_test_setup_teardown(test_list_in_key_order, setup, teardown),
      cmocka_unit_test_setup_teardown(test_list_many_sites, setup, teardown),
      cmocka_unit_test(test_encode_decode_round_trip),
      cmocka_unit_test(test_encode_appends_and_refuses_cleanly),
      cmocka_unit_test(test_decode_other_version),
      cmocka_unit_test(test_decode_every_truncation),
      cmocka_unit_test(test_decode_every_flipped_bit),
      cmocka_unit_test(test_decode_structural_damage),
      cmocka_unit_test(test_decode_format_1),
      cmocka_unit_test_setup_teardown(test_format_1_record_in_store, setup, teardown),
      cmocka_unit_test_setup_teardown(test_put_reports_record_bytes, setup, teardown),
      cmocka_unit_test(test_learn_params_bounds),
      cmocka_unit_test(test_decode_learn_section_damage),
      cmocka_unit_test_setup_teardown(test_invalid_site_names, setup, teardown),
      cmocka_unit_test_setup_teardown(test_read_only_can_get_not_write, setup, teardown),
      cmocka_unit_test_setup_teardown(test_open_errors, setup, teardown),
      cmocka_unit_test_setup_teardown(test_read_only_store_without_lock, setup, teardown),
      cmocka_unit_test_setup_teardown(test_read_only_file_system, setup, teardown),
      cmocka_unit_test_setup_teardown(test_reopen_sees_replaced_record, setup, teardown),
      cmocka_unit_test_setup_teardown(test_other_process_reads_while_parent_writes, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_map_grown_by_other_process, setup, teardown),
      cmocka_unit_test_setup_teardown(test_too_many_pages_refused_at_put, setup, teardown),
      cmocka_unit_test_setup_teardown(test_map_full_is_enospace, setup, teardown),
      cmocka_unit_test_setup_teardown(test_options_init_and_map_size, setup, teardown),
      cmocka_unit_test_setup_teardown(test_small_map_raised_to_file_size, setup, teardown),
      cmocka_unit_test_setup_teardown(test_damaged_records_in_store, setup, teardown),
      cmocka_unit_test_setup_teardown(test_threads_share_one_handle, setup, teardown),
      cmocka_unit_test_setup_teardown(test_many_threads_do_not_hold_reader_slots, setup,
                                      teardown),
      cmocka_unit_test_setup_teardown(test_check_while_open, setup, teardown),
      cmocka_unit_test_setup_teardown(test_check_while_open_finds_damage, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
