/*
 * tests/tools/test_dump.c: winnow-dump, the program (WN_BINARY_DIR
 * /winnow-dump, run with fork + exec) and the library functions under it,
 * against real stores in a temp dir learned from tests/fixtures/site: each
 * subcommand, a damaged record (garbage template bytes through the store's
 * own put; and a patched byte of data.mdb), an empty store, an unknown
 * site, an export/import round trip across two stores, a store holding a
 * format-1 record, and the explain trace leaving detection unchanged.
 */
#include "wn_test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "detect/detect.h"
#include "store/store.h"
#include "template/template.h"
#include "wn_run.h"

#define SITE_DIR WN_FIXTURES "/site"
#define DEMO "demo.example"

static const char *g_tool = WN_BINARY_DIR "/winnow-dump";
static char g_tmp[PATH_MAX];
static int g_seq;

/* ---- running the binary --------------------------------------------------- */

static void wn_path(char *out, const char *name) {
  int n = snprintf(out, PATH_MAX, "%s/%s", g_tmp, name);
  assert_true(n > 0 && n < PATH_MAX);
}

/* A fresh name in the temp dir. */
static void wn_fresh(char *out, const char *what) {
  char name[64];
  snprintf(name, sizeof name, "%s-%d", what, ++g_seq);
  wn_path(out, name);
}

static void wn_run_args(wn_run *r, const char *const *args) {
  wn_test_run(r, g_tmp, NULL, 0, g_tool, args);
}

#define RUN(r, ...) wn_run_args((r), (const char *const[]){__VA_ARGS__, NULL})

static void wn_expect_contains(const char *hay, const char *needle) {
  if (!strstr(hay, needle))
    fail_msg("expected to find \"%s\" in:\n%s", needle, hay);
}

static void wn_expect_lacks(const char *hay, const char *needle) {
  if (strstr(hay, needle))
    fail_msg("did not expect \"%s\" in:\n%s", needle, hay);
}

static const void *wn_find(const void *hay, size_t len, const void *needle, size_t n) {
  const char *h = hay;
  for (size_t i = 0; n <= len && i + n <= len; i++)
    if (memcmp(h + i, needle, n) == 0)
      return h + i;
  return NULL;
}

/* ---- stores --------------------------------------------------------------- */

static wn_store *wn_open(const char *dir, int read_only) {
  wn_store_options so;
  wn_store_options_init(&so);
  so.read_only = read_only;
  wn_store *store = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_store_open(dir, &so, &store, &diag);
  if (err)
    fail_msg("open %s: %s", dir, wn_diag_message(&diag, err));
  return store;
}

/* A store in a fresh directory with DEMO learned from article-1..5 and a
 * few detections counted (so it has counters to carry). */
static void wn_demo_store(char *dir) {
  wn_fresh(dir, "store");
  const char *paths[5] = {SITE_DIR "/article-1.html", SITE_DIR "/article-2.html",
                          SITE_DIR "/article-3.html", SITE_DIR "/article-4.html",
                          SITE_DIR "/article-5.html"};
  wn_learned *learned = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_site_learn_files(DEMO, paths, 5, NULL, &learned, &diag);
  if (err)
    fail_msg("learn: %s", wn_diag_message(&diag, err));
  wn_store *store = wn_open(dir, 0);
  assert_int_equal(wn_site_save(store, learned, NULL, &diag), WN_OK);
  int counted = 0;
  assert_int_equal(wn_store_count(store, DEMO, 0, 10, 3, &counted, NULL, &diag), WN_OK);
  assert_int_equal(counted, 1);
  wn_learned_free(learned);
  wn_store_close(store);
}

/* Every record's and counters' bytes of a store, in key order, as text
 * that compares equal iff the bytes do. */
static int wn_collect_raw(const char *site, const void *record, size_t record_len,
                          const void *counters, size_t counters_len, void *ctx) {
  wn_buf *b = ctx;
  assert_int_equal(wn_buf_printf(b, "%s:%zu:", site, record_len), WN_OK);
  assert_int_equal(wn_buf_append(b, record, record_len), WN_OK);
  assert_int_equal(wn_buf_printf(b, ":%zu:", counters_len), WN_OK);
  if (counters_len)
    assert_int_equal(wn_buf_append(b, counters, counters_len), WN_OK);
  return 0;
}

static void wn_raw_dump(const char *dir, wn_buf *out) {
  wn_store *store = wn_open(dir, 1);
  wn_diag diag = {{0}};
  assert_int_equal(wn_store_raw_each(store, wn_collect_raw, out, &diag), WN_OK);
  wn_store_close(store);
}

/* The demo record with its template bytes replaced by garbage, stored under
 * site by the store's own put: the record decodes, its template does not. */
static void wn_put_garbage_template(const char *dir, const char *site) {
  wn_store *store = wn_open(dir, 0);
  wn_store_record *rec = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_store_get(store, DEMO, &rec, &diag), WN_OK);
  static unsigned char garbage[] = "this is not a template at all";
  unsigned char *keep = rec->template_bytes;
  size_t keep_len = rec->template_len;
  rec->template_bytes = garbage;
  rec->template_len = sizeof garbage - 1;
  assert_int_equal(wn_store_put(store, site, rec, NULL, NULL, &diag), WN_OK);
  rec->template_bytes = keep;
  rec->template_len = keep_len;
  wn_store_record_free(rec);
  wn_store_close(store);
}

/* ---- the subcommands -------------------------------------------------------- */

static void test_list(void **state) {
  (void)state;
  char dir[PATH_MAX];
  wn_demo_store(dir);
  wn_run r;
  RUN(&r, "--store", dir, "list");
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "SITE");
  wn_expect_contains(r.out, DEMO);
  wn_expect_contains(r.out, "etdm");
  wn_expect_contains(r.out, "places");
  wn_run_free(&r);

  RUN(&r, "--store", dir, "list", "--json", "--sort", "size");
  assert_int_equal(r.status, 0);
  json_error_t jerr;
  json_t *o = json_loads(r.out, 0, &jerr);
  assert_non_null(o);
  assert_string_equal(json_string_value(json_object_get(o, "site")), DEMO);
  assert_string_equal(json_string_value(json_object_get(o, "algorithm")), "etdm");
  assert_int_equal(json_integer_value(json_object_get(o, "detected")), 10);
  assert_int_equal(json_integer_value(json_object_get(o, "low")), 3);
  assert_int_equal(json_array_size(json_object_get(o, "sample_pages")), 5);
  assert_true(json_integer_value(json_object_get(o, "template_nodes")) > 50);
  json_decref(o);
  wn_run_free(&r);

  RUN(&r, "--store", dir, "list", "--sort", "colour");
  assert_int_equal(r.status, WN_EXIT_USAGE);
  wn_run_free(&r);
}

static void test_show(void **state) {
  (void)state;
  char dir[PATH_MAX];
  wn_demo_store(dir);
  wn_run r;
  RUN(&r, "--store", dir, "show", DEMO);
  assert_int_equal(r.status, 0);
  /* Named from the key page: the masthead and navigation of the fixture
   * site, held by all five sample pages; the headline's text is the page's. */
  wn_expect_contains(r.out, "named from " SITE_DIR "/article-1.html");
  wn_expect_contains(r.out, "    header.site-header  5/5\n");
  wn_expect_contains(r.out, "\"The Harbour Gazette\"  5/5");
  wn_expect_contains(r.out, "          h1.headline  5/5\n            [page] #text");
  wn_run_free(&r);

  /* The global options after the command, as `winnow` takes them. */
  RUN(&r, "show", "--store", dir, DEMO);
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "named from " SITE_DIR "/article-1.html");
  wn_run_free(&r);
  RUN(&r, "show", DEMO);
  assert_int_equal(r.status, WN_EXIT_USAGE);
  wn_expect_contains(r.err, "--store DIR is required");
  wn_run_free(&r);

  RUN(&r, "--store", dir, "show", DEMO, "--depth", "2");
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "  body.article-page  5/5\n");
  wn_expect_lacks(r.out, "header.site-header");
  wn_run_free(&r);

  /* Unnamed (no page): signatures and counts of the template as stored. */
  RUN(&r, "--store", dir, "show", DEMO, "--page", "");
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "unnamed");
  wn_expect_contains(r.out, "element sig=");
  wn_run_free(&r);

  RUN(&r, "--store", dir, "show", DEMO, "--json");
  assert_int_equal(r.status, 0);
  json_error_t jerr;
  json_t *o = json_loads(r.out, 0, &jerr);
  assert_non_null(o);
  assert_int_equal(json_integer_value(json_object_get(o, "sample_pages")), 5);
  json_t *root = json_array_get(json_object_get(o, "tree"), 0);
  assert_string_equal(json_string_value(json_object_get(root, "tag")), "html");
  json_t *body = json_array_get(json_object_get(root, "children"), 0);
  assert_string_equal(json_string_value(json_object_get(body, "class")), "article-page");
  assert_int_equal(json_integer_value(json_object_get(body, "count")), 5);
  json_decref(o);
  wn_run_free(&r);

  RUN(&r, "--store", dir, "show", "nosuch.example");
  assert_int_equal(r.status, WN_EXIT_INPUT);
  wn_expect_contains(r.err, "no template for site nosuch.example");
  wn_run_free(&r);
}

static void test_explain(void **state) {
  (void)state;
  char dir[PATH_MAX], html[PATH_MAX];
  wn_demo_store(dir);
  wn_fresh(html, "explain.html");
  wn_run r;
  RUN(&r, "--store", dir, "explain", DEMO, SITE_DIR "/article-6.html", "--html", html);
  if (r.status != 0)
    fail_msg("explain: %s", r.err);
  wn_expect_contains(r.out, "selector:   places (the site's)");
  wn_expect_contains(r.out, "decided:    places: the site's content place is "
                            "/html[1]/body[1]/div[1]/main[1]/article[1]/div[2] (whole");
  wn_expect_contains(r.out, "selected:   1 region(s): /html[1]/body[1]/div[1]/main[1]/article[1]");
  wn_expect_contains(r.out, "article.story");
  wn_expect_contains(r.out, "SELECTED");
  wn_expect_contains(r.out, "T 5/5 (+37)"); /* the header, folded */
  wn_expect_contains(r.out, "OWN      its text: the page's own block");
  wn_expect_lacks(r.out, " OWN  text"); /* an article of the site's layout: none */
  wn_run_free(&r);
  char *page = wn_test_slurp(html, NULL);
  wn_expect_contains(page, "id=\"wn-legend\"");
  wn_expect_contains(page, "the page's own block");
  wn_expect_lacks(page, "data-wn-own=\"1\"");
  wn_expect_contains(page, "data-wn=\"kept\"");
  wn_expect_contains(page, "data-wn=\"template\"");
  wn_expect_contains(page, "data-wn-sel=\"1\"");
  wn_expect_lacks(page, "<script");
  free(page);

  /* The site from --url. */
  RUN(&r, "--store", dir, "explain", "-", SITE_DIR "/article-6.html", "--url",
      "http://demo.example/a6");
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "page:       http://demo.example/a6");
  wn_run_free(&r);

  RUN(&r, "--store", dir, "explain", "nosuch.example", SITE_DIR "/article-6.html");
  assert_int_equal(r.status, WN_EXIT_INPUT);
  wn_expect_contains(r.err, "nosuch.example");
  wn_run_free(&r);

  RUN(&r, "--store", dir, "explain", DEMO, SITE_DIR "/no-such-page.html");
  assert_int_equal(r.status, WN_EXIT_INPUT);
  wn_run_free(&r);
}

/* A site learned with FastCE is explained block by block: each block's
 * path, whether it is a content path (n/N sample pages), and what the
 * paper's rules made of it; the HTML view paints it too. (The fixtures'
 * story paragraphs are on html.body.div.main.article.div.p on all five
 * samples; the header is on no content path and folds.) */
static void test_explain_fastce(void **state) {
  (void)state;
  char dir[PATH_MAX], html[PATH_MAX];
  wn_fresh(dir, "store");
  wn_fresh(html, "explain-fastce.html");
  const char *paths[5] = {SITE_DIR "/article-1.html", SITE_DIR "/article-2.html",
                          SITE_DIR "/article-3.html", SITE_DIR "/article-4.html",
                          SITE_DIR "/article-5.html"};
  wn_learned *learned = NULL;
  wn_diag diag = {{0}};
  wn_learn_options lo;
  wn_learn_options_init(&lo);
  lo.algo = WN_LEARN_FASTCE;
  wn_err err = wn_site_learn_files(DEMO, paths, 5, &lo, &learned, &diag);
  if (err)
    fail_msg("learn: %s", wn_diag_message(&diag, err));
  wn_store *store = wn_open(dir, 0);
  assert_int_equal(wn_site_save(store, learned, NULL, &diag), WN_OK);
  wn_learned_free(learned);
  wn_store_close(store);
  wn_run r;
  RUN(&r, "--store", dir, "explain", DEMO, SITE_DIR "/article-6.html", "--html", html);
  if (r.status != 0)
    fail_msg("explain: %s", r.err);
  /* With the site-level rules the lists of other stories are out of P
   * (docs/fastce.md), and so is the one photo's caption (the single-page
   * method leaves captions out): three content paths, and the story's
   * paragraphs are selected one by one, as their div is on no content path. */
  wn_expect_contains(r.out, "site:       " DEMO " (fastce template generation 1: 3 content "
                            "paths, 0 stored non-content blocks, from 5 sample pages)");
  wn_expect_contains(r.out, "the page has 2 of the 3 content paths");
  wn_expect_contains(r.out, "method:     fastce\n");
  wn_expect_contains(r.out, "decided:    FastCE (Sec. III): 7 block(s) on a content path");
  wn_expect_contains(r.out, "[html.body.div.main.article.div.p 5/5] EXTRACTED SELECTED  text 236 "
                            "kept 236 \"The sea wall along the South Par...\"");
  wn_expect_contains(r.out, "[html.body.div.main.article.h1 5/5] EXTRACTED SELECTED");
  wn_expect_contains(r.out, "header.site-header                       [html.body.header -] (+37)");
  wn_expect_contains(r.out, "section.related                      [html.body.div.main.section -] "
                            "(+12)");
  wn_expect_lacks(r.out, "paired with the template (ETDM)");
  wn_run_free(&r);
  char *page = wn_test_slurp(html, NULL);
  wn_expect_contains(page, "data-wn=\"kept\"");
  wn_expect_contains(page, "not on a content path");
  wn_expect_lacks(page, "<script");
  free(page);
}

static void test_stats_verify_delete(void **state) {
  (void)state;
  char dir[PATH_MAX];
  wn_demo_store(dir);
  wn_run r;
  RUN(&r, "--store", dir, "stats");
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "records:         1 (");
  wn_expect_contains(r.out, "counters: 1");
  wn_expect_contains(r.out, "algorithm etdm   1");
  wn_expect_contains(r.out, "format 2      1");
  wn_expect_contains(r.out, "damaged records: 0");
  wn_run_free(&r);

  RUN(&r, "--store", dir, "stats", "--json");
  assert_int_equal(r.status, 0);
  json_error_t jerr;
  json_t *o = json_loads(r.out, 0, &jerr);
  assert_non_null(o);
  assert_int_equal(json_integer_value(json_object_get(o, "records")), 1);
  assert_true(json_integer_value(json_object_get(o, "file_bytes")) > 0);
  assert_true(json_integer_value(json_object_get(o, "pages_used")) > 0);
  json_decref(o);
  wn_run_free(&r);

  RUN(&r, "--store", dir, "verify");
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "1 record(s), 0 damaged");
  wn_run_free(&r);

  RUN(&r, "--store", dir, "delete", DEMO);
  assert_int_equal(r.status, 0);
  wn_run_free(&r);
  RUN(&r, "--store", dir, "delete", DEMO);
  assert_int_equal(r.status, WN_EXIT_INPUT);
  wn_expect_contains(r.err, "no template for site " DEMO);
  wn_run_free(&r);
  RUN(&r, "--store", dir, "list");
  assert_int_equal(r.status, 0);
  wn_expect_lacks(r.out, DEMO);
  wn_run_free(&r);
}

static void test_empty_store(void **state) {
  (void)state;
  char dir[PATH_MAX], file[PATH_MAX], other[PATH_MAX];
  wn_fresh(dir, "empty");
  wn_store_close(wn_open(dir, 0));
  wn_run r;
  RUN(&r, "--store", dir, "list");
  assert_int_equal(r.status, 0);
  wn_expect_lacks(r.out, "etdm");
  wn_run_free(&r);
  RUN(&r, "--store", dir, "verify");
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "0 record(s), 0 damaged");
  wn_run_free(&r);
  RUN(&r, "--store", dir, "stats");
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "records:         0");
  wn_run_free(&r);
  wn_fresh(file, "empty.wndump");
  RUN(&r, "--store", dir, "export", file);
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "exported 0 record(s)");
  wn_run_free(&r);
  wn_fresh(other, "empty-import");
  RUN(&r, "--store", other, "import", file);
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "imported 0 record(s)");
  wn_run_free(&r);
  /* A store directory that does not exist is the store's failure. */
  RUN(&r, "--store", "/nonexistent/winnow-store", "list");
  assert_int_equal(r.status, WN_EXIT_STORE);
  wn_run_free(&r);
}

/* ---- damaged records ------------------------------------------------------------ */

static void test_damaged_template(void **state) {
  (void)state;
  char dir[PATH_MAX], file[PATH_MAX];
  wn_demo_store(dir);
  wn_put_garbage_template(dir, "broken.example");
  wn_run r;
  RUN(&r, "--store", dir, "verify");
  assert_int_equal(r.status, WN_EXIT_INPUT);
  wn_expect_contains(r.out, "DAMAGED broken.example: template:");
  wn_expect_contains(r.out, "2 record(s), 1 damaged");
  wn_expect_lacks(r.out, "DAMAGED " DEMO);
  wn_run_free(&r);

  /* list reports it and carries on with the others. */
  RUN(&r, "--store", dir, "list");
  assert_int_equal(r.status, WN_EXIT_INPUT);
  wn_expect_contains(r.out, "broken.example           DAMAGED");
  wn_expect_contains(r.out, DEMO "             etdm");
  wn_run_free(&r);

  RUN(&r, "--store", dir, "stats");
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "damaged records: 1");
  wn_run_free(&r);

  /* export leaves it out, says so, and writes the others. */
  wn_fresh(file, "damaged.wndump");
  RUN(&r, "--store", dir, "export", file);
  assert_int_equal(r.status, WN_EXIT_INPUT);
  wn_expect_contains(r.out, "DAMAGED broken.example");
  wn_expect_contains(r.out, "exported 1 record(s)");
  wn_run_free(&r);
}

/* A byte of the record patched in data.mdb itself: the record's checksum
 * no longer holds. */
static void test_damaged_bytes_on_disk(void **state) {
  (void)state;
  char dir[PATH_MAX], data[PATH_MAX];
  wn_demo_store(dir);
  int n = snprintf(data, sizeof data, "%s/data.mdb", dir);
  assert_true(n > 0 && (size_t)n < sizeof data);
  size_t len = 0;
  char *bytes = wn_test_slurp(data, &len);
  /* The record is the value starting with "WNSR"; its first page name
   * (the key page's path) lies a few dozen bytes in. */
  char *rec = NULL;
  for (size_t i = 0; i + 4 <= len && !rec; i++)
    if (memcmp(bytes + i, "WNSR", 4) == 0)
      rec = bytes + i;
  assert_non_null(rec);
  char *name = (char *)wn_find(rec, len - (size_t)(rec - bytes), "article-1.html", 14);
  assert_non_null(name);
  name[0] = 'A';
  FILE *f = fopen(data, "r+b");
  assert_non_null(f);
  assert_int_equal(fseek(f, (long)(name - bytes), SEEK_SET), 0);
  assert_int_equal(fputc('A', f), 'A');
  fclose(f);
  free(bytes);
  wn_run r;
  RUN(&r, "--store", dir, "verify");
  assert_int_equal(r.status, WN_EXIT_INPUT);
  wn_expect_contains(r.out, "DAMAGED " DEMO);
  wn_expect_contains(r.out, "checksum");
  wn_run_free(&r);
}

/* ---- export / import ------------------------------------------------------------- */

static void test_export_import_round_trip(void **state) {
  (void)state;
  char a[PATH_MAX], b[PATH_MAX], file[PATH_MAX];
  wn_demo_store(a);
  wn_fresh(b, "import");
  wn_fresh(file, "snapshot.wndump");
  wn_run r;
  RUN(&r, "--store", a, "export", file);
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "exported 1 record(s)");
  wn_run_free(&r);
  RUN(&r, "--store", b, "import", file);
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "added " DEMO " (generation 1)");
  wn_run_free(&r);

  /* Records and counters byte-identical in both stores. */
  wn_buf ra, rb;
  wn_buf_init(&ra, 0);
  wn_buf_init(&rb, 0);
  wn_raw_dump(a, &ra);
  wn_raw_dump(b, &rb);
  assert_true(ra.len > 100);
  assert_int_equal(ra.len, rb.len);
  assert_memory_equal(ra.data, rb.data, ra.len);
  wn_buf_free(&ra);
  wn_buf_free(&rb);

  /* The imported store serves the site: explain works there too. */
  RUN(&r, "--store", b, "explain", DEMO, SITE_DIR "/article-7.html");
  assert_int_equal(r.status, 0);
  wn_run_free(&r);

  /* Again: the site is replaced, and says so. */
  RUN(&r, "--store", b, "import", file);
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "replaced " DEMO);
  wn_run_free(&r);

  /* Chosen sites: an unknown one is an error and writes nothing. */
  char part[PATH_MAX];
  wn_fresh(part, "part.wndump");
  RUN(&r, "--store", a, "export", part, DEMO, "nosuch.example");
  assert_int_equal(r.status, WN_EXIT_INPUT);
  wn_expect_contains(r.err, "no template for site nosuch.example");
  assert_int_not_equal(access(part, F_OK), 0);
  wn_run_free(&r);
  RUN(&r, "--store", a, "export", part, DEMO);
  assert_int_equal(r.status, 0);
  wn_run_free(&r);
}

/* snapshot: a consistent copy taken while another writer goes on, opened
 * read-only without a lock (a read-only directory, as on a read-only file
 * system), byte-identical records; an existing store is not overwritten. */
static void test_snapshot_read_only(void **state) {
  (void)state;
  char a[PATH_MAX], snap[PATH_MAX];
  wn_demo_store(a);
  wn_fresh(snap, "snapshot");
  /* A writer holds the source store open and keeps counting meanwhile. */
  wn_store *writer = wn_open(a, 0);
  wn_diag diag = {{0}};
  int counted = 0;
  assert_int_equal(wn_store_count(writer, DEMO, 0, 5, 0, &counted, NULL, &diag), WN_OK);
  wn_run r;
  RUN(&r, "--store", a, "snapshot", snap);
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "snapshot written to");
  wn_run_free(&r);
  assert_int_equal(wn_store_count(writer, DEMO, 0, 5, 0, &counted, NULL, &diag), WN_OK);
  wn_store_close(writer);
  RUN(&r, "--store", a, "snapshot", snap);
  assert_int_equal(r.status, 1);
  wn_expect_contains(r.err, "already holds a store");
  wn_run_free(&r);

  /* The copy, read-only: the lock file goes and the directory is made
   * unwritable, as a shipped read-only copy is. */
  char lock[PATH_MAX + 16];
  snprintf(lock, sizeof lock, "%s/lock.mdb", snap);
  unlink(lock);
  assert_int_equal(chmod(snap, 0555), 0);
  wn_store *ro = wn_open(snap, 1);
  wn_detector_options dopts;
  wn_detector_options_init(&dopts);
  wn_detector *det = NULL;
  assert_int_equal(wn_detector_create(ro, &dopts, &det, &diag), WN_OK);
  size_t len = 0;
  char *page = wn_test_slurp(SITE_DIR "/article-6.html", &len);
  wn_page_input in = {.bytes = page, .len = len, .site = DEMO};
  wn_page_result *res = NULL;
  assert_int_equal(wn_detector_detect(det, &in, WN_WANT_TEXT, &res, &diag), WN_OK);
  assert_string_equal(wn_page_result_method(res), "template");
  wn_page_result_free(res);
  wn_detector_destroy(det);
  free(page);
  wn_store_close(ro);
  assert_int_equal(chmod(snap, 0755), 0);
  /* The snapshot's records are the source's as of the copy. */
  wn_store *sa = wn_open(a, 1), *sb = wn_open(snap, 1);
  wn_site_info *ia = NULL, *ib = NULL;
  assert_int_equal(wn_site_info_get(sa, DEMO, &ia, &diag), WN_OK);
  assert_int_equal(wn_site_info_get(sb, DEMO, &ib, &diag), WN_OK);
  assert_int_equal(ia->generation, ib->generation);
  assert_int_equal(ia->template_bytes, ib->template_bytes);
  assert_int_equal(ib->counts.pages, 15);  /* 10 + 5 before the copy */
  assert_int_equal(ia->counts.pages, 20);  /* and 5 more after it */
  wn_site_info_free(ia);
  wn_site_info_free(ib);
  wn_store_close(sa);
  wn_store_close(sb);
}

static void test_import_refuses_damaged_snapshot(void **state) {
  (void)state;
  char a[PATH_MAX], b[PATH_MAX], file[PATH_MAX];
  wn_demo_store(a);
  wn_fresh(b, "refuse");
  wn_fresh(file, "bad.wndump");
  wn_run r;
  RUN(&r, "--store", a, "export", file);
  assert_int_equal(r.status, 0);
  wn_run_free(&r);
  size_t len = 0;
  char *bytes = wn_test_slurp(file, &len);
  /* One flipped byte in the middle: the checksum catches it. */
  bytes[len / 2] ^= 0x20;
  FILE *f = fopen(file, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(bytes, 1, len, f), len);
  fclose(f);
  RUN(&r, "--store", b, "import", file);
  assert_int_equal(r.status, WN_EXIT_INPUT);
  wn_expect_contains(r.err, "checksum");
  wn_run_free(&r);
  /* A later snapshot version is refused as such. */
  bytes[len / 2] ^= 0x20;
  bytes[8] = 9;
  f = fopen(file, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(bytes, 1, len, f), len);
  fclose(f);
  free(bytes);
  RUN(&r, "--store", b, "import", file);
  assert_int_equal(r.status, WN_EXIT_INPUT);
  wn_expect_contains(r.err, "snapshot version 9");
  wn_run_free(&r);
  /* Nothing was written. */
  RUN(&r, "--store", b, "list");
  assert_int_equal(r.status, 0);
  wn_expect_lacks(r.out, DEMO);
  wn_run_free(&r);

  /* A damaged record among good ones: every record is checked before any
   * is written, so nothing is. */
  char dir[PATH_MAX];
  wn_demo_store(dir);
  wn_diag diag = {{0}};
  wn_store *target = wn_open(b, 0);
  wn_store_record *good = NULL;
  wn_store *src = wn_open(dir, 1);
  assert_int_equal(wn_store_get(src, DEMO, &good, &diag), WN_OK);
  wn_store_close(src);
  wn_buf enc;
  wn_buf_init(&enc, 0);
  assert_int_equal(wn_store_record_encode(good, &enc, &diag), WN_OK);
  wn_store_raw items[2] = {{.site = DEMO, .record = enc.data, .record_len = enc.len},
                           /* the same record, its last byte cut off */
                           {.site = "x.example", .record = enc.data, .record_len = enc.len - 1}};
  assert_int_equal(wn_store_raw_put(target, items, 2, NULL, &diag), WN_ECORRUPT);
  wn_store_record *none = NULL;
  assert_int_equal(wn_store_get(target, DEMO, &none, &diag), WN_ENOTFOUND);
  wn_store_close(target);
  wn_store_record_free(good);
  wn_buf_free(&enc);
}

/* A snapshot written by hand from the layout in site/inspect.c, sealed with
 * a good checksum, so that what import checks past the checksum shows. */
static void wn_le(wn_buf *b, uint64_t v, size_t n);

static void wn_write_snapshot(const char *path, const wn_store_raw *items, size_t n) {
  wn_buf b;
  wn_buf_init(&b, 0);
  assert_int_equal(wn_buf_append(&b, "WNDUMP\r\n", 8), WN_OK);
  wn_le(&b, 1, 4);
  wn_le(&b, n, 4);
  wn_le(&b, 0, 8);
  for (size_t i = 0; i < n; i++) {
    wn_le(&b, strlen(items[i].site), 4);
    assert_int_equal(wn_buf_append(&b, items[i].site, strlen(items[i].site)), WN_OK);
    wn_le(&b, items[i].record_len, 8);
    assert_int_equal(wn_buf_append(&b, items[i].record, items[i].record_len), WN_OK);
    wn_le(&b, 0, 4);
  }
  wn_le(&b, wn_hash_bytes(WN_HASH_SEED, b.data, b.len), 8);
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(b.data, 1, b.len, f), b.len);
  fclose(f);
  wn_buf_free(&b);
}

static void test_import_checks_every_record(void **state) {
  (void)state;
  char a[PATH_MAX], b[PATH_MAX], file[PATH_MAX];
  wn_demo_store(a);
  wn_fresh(b, "checks");
  wn_fresh(file, "handmade.wndump");
  wn_store *src = wn_open(a, 1);
  wn_store_record *good = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_store_get(src, DEMO, &good, &diag), WN_OK);
  wn_store_close(src);
  wn_buf enc, bad;
  wn_buf_init(&enc, 0);
  wn_buf_init(&bad, 0);
  assert_int_equal(wn_store_record_encode(good, &enc, &diag), WN_OK);
  /* A record that decodes but whose template does not. */
  static unsigned char garbage[] = "no template here";
  unsigned char *own = good->template_bytes;
  size_t own_len = good->template_len;
  good->template_bytes = garbage;
  good->template_len = sizeof garbage - 1;
  assert_int_equal(wn_store_record_encode(good, &bad, &diag), WN_OK);
  good->template_bytes = own;
  good->template_len = own_len;
  wn_store_record_free(good);

  wn_store_raw items[2] = {{.site = DEMO, .record = enc.data, .record_len = enc.len},
                           {.site = "bad.example", .record = bad.data, .record_len = bad.len}};
  wn_write_snapshot(file, items, 2);
  wn_run r;
  RUN(&r, "--store", b, "import", file);
  assert_int_equal(r.status, WN_EXIT_INPUT);
  wn_expect_contains(r.err, "record 2 (site bad.example): template:");
  wn_expect_contains(r.err, "nothing imported");
  wn_run_free(&r);
  RUN(&r, "--store", b, "list");
  wn_expect_lacks(r.out, DEMO); /* the good record before it was not written */
  wn_run_free(&r);

  /* One site twice. */
  items[1] = items[0];
  wn_write_snapshot(file, items, 2);
  RUN(&r, "--store", b, "import", file);
  assert_int_equal(r.status, WN_EXIT_INPUT);
  wn_expect_contains(r.err, "site " DEMO " appears twice");
  wn_run_free(&r);

  /* The hand-made snapshot with the good record alone imports. */
  wn_write_snapshot(file, items, 1);
  RUN(&r, "--store", b, "import", file);
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "added " DEMO);
  wn_run_free(&r);
  wn_buf_free(&enc);
  wn_buf_free(&bad);
}

/* ---- an older format -------------------------------------------------------------- */

static void wn_le(wn_buf *b, uint64_t v, size_t n) {
  unsigned char x[8];
  for (size_t i = 0; i < n; i++)
    x[i] = (unsigned char)(v >> (8 * i));
  assert_int_equal(wn_buf_append(b, x, n), WN_OK);
}

/* A format-1 record as an older winnow wrote it (store.c's layout, by
 * hand, as tests/store does): no learn section. */
static void wn_encode_v1(const wn_store_record *rec, wn_buf *b) {
  assert_int_equal(wn_buf_append(b, "WNSR", 4), WN_OK);
  wn_le(b, 1, 4);
  wn_le(b, strlen(rec->algorithm), 4);
  assert_int_equal(wn_buf_append(b, rec->algorithm, strlen(rec->algorithm)), WN_OK);
  wn_le(b, (uint64_t)rec->learned_at, 8);
  wn_le(b, rec->generation, 8);
  wn_le(b, rec->n_pages, 4);
  for (uint32_t i = 0; i < rec->n_pages; i++) {
    wn_le(b, strlen(rec->pages[i].name), 4);
    assert_int_equal(wn_buf_append(b, rec->pages[i].name, strlen(rec->pages[i].name)), WN_OK);
    wn_le(b, rec->pages[i].bytes, 8);
    wn_le(b, (uint32_t)rec->pages[i].http_status, 4);
    wn_le(b, rec->pages[i].fetch_ms, 4);
  }
  wn_le(b, rec->page_nodes, 4);
  wn_le(b, rec->template_nodes, 4);
  wn_le(b, rec->template_len, 8);
  assert_int_equal(wn_buf_append(b, rec->template_bytes, rec->template_len), WN_OK);
  const uint64_t h = wn_hash_bytes(WN_HASH_SEED, b->data, b->len);
  wn_le(b, (uint32_t)(h ^ (h >> 32)), 4);
}

static void test_format1_store(void **state) {
  (void)state;
  char a[PATH_MAX], old[PATH_MAX], file[PATH_MAX], copy[PATH_MAX];
  wn_demo_store(a);
  wn_fresh(old, "format1");
  wn_store *src = wn_open(a, 1);
  wn_store_record *rec = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_store_get(src, DEMO, &rec, &diag), WN_OK);
  wn_store_close(src);
  wn_buf v1;
  wn_buf_init(&v1, 0);
  wn_encode_v1(rec, &v1);
  wn_store_record_free(rec);
  wn_store *store = wn_open(old, 0);
  wn_store_raw item = {.site = "old.example", .record = v1.data, .record_len = v1.len};
  assert_int_equal(wn_store_raw_put(store, &item, 1, NULL, &diag), WN_OK);
  wn_store_close(store);

  wn_run r;
  RUN(&r, "--store", old, "stats");
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "format 1      1");
  wn_expect_contains(r.out, "damaged records: 0");
  wn_run_free(&r);
  RUN(&r, "--store", old, "verify");
  assert_int_equal(r.status, 0);
  wn_run_free(&r);
  RUN(&r, "--store", old, "list", "--json");
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "\"format_version\":1");
  wn_expect_contains(r.out, "\"key_page\":null");
  wn_run_free(&r);
  /* Format 1 has no key page: show names the nodes from the first sample
   * page, which is the key page. */
  RUN(&r, "--store", old, "show", "old.example", "--depth", "3");
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "    header.site-header  5/5");
  wn_run_free(&r);
  RUN(&r, "--store", old, "explain", "old.example", SITE_DIR "/article-6.html");
  assert_int_equal(r.status, 0);
  wn_run_free(&r);

  /* Exported and imported, it stays a format-1 record, byte for byte. */
  wn_fresh(file, "v1.wndump");
  wn_fresh(copy, "v1-copy");
  RUN(&r, "--store", old, "export", file);
  assert_int_equal(r.status, 0);
  wn_run_free(&r);
  RUN(&r, "--store", copy, "import", file);
  assert_int_equal(r.status, 0);
  wn_run_free(&r);
  wn_buf got;
  wn_buf_init(&got, 0);
  wn_raw_dump(copy, &got);
  assert_non_null(wn_find(got.data, got.len, v1.data, v1.len));
  wn_buf_free(&got);
  wn_buf_free(&v1);
}

/* ---- the trace leaves detection as it was -------------------------------------------- */

static void test_trace_changes_nothing(void **state) {
  (void)state;
  char dir[PATH_MAX];
  wn_demo_store(dir);
  wn_store *store = wn_open(dir, 1);
  wn_store_record *rec = NULL;
  wn_template *tpl = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_store_get(store, DEMO, &rec, &diag), WN_OK);
  assert_int_equal(wn_template_decode(rec->template_bytes, rec->template_len, &tpl, &diag), WN_OK);
  const char *pages[] = {SITE_DIR "/article-6.html", SITE_DIR "/article-7.html",
                         WN_FIXTURES "/nset-site/index.html"};
  for (wn_detect_selector s = WN_SELECT_SITE; s <= WN_SELECT_LAST; s++) {
    for (size_t p = 0; p < sizeof pages / sizeof pages[0]; p++) {
      if (access(pages[p], R_OK) != 0)
        continue;
      size_t len = 0;
      char *bytes = wn_test_read(pages[p], &len);
      wn_dom_page *page = NULL;
      assert_int_equal(wn_dom_parse(bytes, len, NULL, &page, &diag), WN_OK);
      wn_detect_options opts;
      wn_detect_options_init(&opts);
      opts.selector = s;
      wn_detect_result *plain = NULL, *traced = NULL;
      wn_detect_trace trace;
      memset(&trace, 0, sizeof trace);
      assert_int_equal(wn_detect_page(page, tpl, &opts, 0, &plain, &diag), WN_OK);
      assert_int_equal(wn_detect_page_traced(page, tpl, &opts, &trace, &traced, &diag), WN_OK);
      uint32_t n1 = 0, n2 = 0, count = 0;
      wn_dom_nodes(page, &count);
      const uint32_t *s1 = wn_detect_selected(plain, &n1);
      const uint32_t *s2 = wn_detect_selected(traced, &n2);
      assert_int_equal(n1, n2);
      if (n1)
        assert_memory_equal(s1, s2, n1 * sizeof *s1);
      assert_memory_equal(wn_detect_keep_flags(plain), wn_detect_keep_flags(traced), count);
      assert_memory_equal(wn_detect_template_flags(plain), wn_detect_template_flags(traced),
                          count);
      assert_true(wn_detect_confidence(plain) == wn_detect_confidence(traced));
      assert_true(trace.confidence == wn_detect_confidence(plain));
      assert_int_equal(trace.count, count);
      wn_detect_trace_free(&trace);
      wn_detect_result_free(plain);
      wn_detect_result_free(traced);
      wn_dom_free(page);
      free(bytes);
    }
  }
  wn_template_free(tpl);
  wn_store_record_free(rec);
  wn_store_close(store);
}

/* ---- setup ----------------------------------------------------------------------- */

static int group_setup(void **state) {
  (void)state;
  if (wn_test_temp_dir(g_tmp, sizeof g_tmp, "wn-dump") != 0)
    return -1;
  if (access(g_tool, X_OK) != 0) {
    fprintf(stderr, "no %s: build the winnow-dump target\n", g_tool);
    return -1;
  }
  return wn_init() == WN_OK ? 0 : -1;
}

static int group_teardown(void **state) {
  (void)state;
  wn_test_remove_tree(g_tmp);
  wn_cleanup();
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_list),
      cmocka_unit_test(test_show),
      cmocka_unit_test(test_explain),
      cmocka_unit_test(test_explain_fastce),
      cmocka_unit_test(test_stats_verify_delete),
      cmocka_unit_test(test_empty_store),
      cmocka_unit_test(test_damaged_template),
      cmocka_unit_test(test_damaged_bytes_on_disk),
      cmocka_unit_test(test_export_import_round_trip),
      cmocka_unit_test(test_import_refuses_damaged_snapshot),
      cmocka_unit_test(test_snapshot_read_only),
      cmocka_unit_test(test_import_checks_every_record),
      cmocka_unit_test(test_format1_store),
      cmocka_unit_test(test_trace_changes_nothing),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
