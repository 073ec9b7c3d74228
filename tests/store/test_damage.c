/*
 * tests/store/test_damage.c: a damaged store never kills a command.
 * A real store (about 40 sites, some records on overflow
 * pages, counters, schedules, free pages) is copied and damaged on disk:
 * byte ranges overwritten (8192-36863 with 0x5a among them),
 * meta pages and page headers, the file cut short and grown with garbage,
 * and ~100 random small changes with a fixed seed. The real programs then
 * run on it as processes -- winnow sites, winnow detect --store, winnow
 * learn --store, winnow-dump verify, and winnow serve for a few -- and none
 * may end by a signal; on a store known to be damaged each must exit 3 and
 * say "store DIR is damaged: WHAT; restore it from a backup". Also the
 * library: wn_store_check's report and wn_store_open's refusal.
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

#include "store/store.h"
#include "wn_run.h"

#define SITE_DIR WN_FIXTURES "/site"
#define PAGE SITE_DIR "/article-4.html"
#define N_SITES 40
#define PSIZE 4096L

static char g_tmp[64]; /* short: every path is built under it */
static char g_base[PATH_MAX]; /* the undamaged store */
static long g_base_bytes;
static int g_seq;
static int g_skip_learn; /* the random loop learns every fifth round only (time) */

/* ---- running the programs ------------------------------------------------- */

/* How a command ended and what it said. */
typedef struct wn_outcome {
  int signaled; /* the signal that ended it, or 0 */
  int status;   /* exit code when not signaled */
  char text[4096]; /* stdout then stderr, cut */
} wn_outcome;

/* Appends len bytes of src to the text in dst (cap bytes), cut. */
static void wn_append_cut(char *dst, size_t cap, const char *src, size_t len) {
  size_t at = strlen(dst);
  size_t n = len < cap - 1 - at ? len : cap - 1 - at;
  memcpy(dst + at, src, n);
  dst[at + n] = '\0';
}

static void run_argv(wn_outcome *r, const char *const *argv) {
  wn_run run;
  /* A daemon that starts would serve forever: 5 s is plenty to refuse. */
  wn_test_run(&run, g_tmp, NULL, 5, argv[0], argv + 1);
  memset(r, 0, sizeof *r);
  r->signaled = run.signal;
  r->status = run.signal ? -1 : run.status;
  wn_append_cut(r->text, sizeof r->text, run.out, run.out_len);
  wn_append_cut(r->text, sizeof r->text, run.err, run.err_len);
  wn_run_free(&run);
}

#define RUN(r, ...) run_argv((r), (const char *const[]){__VA_ARGS__, NULL})

enum { CMD_SITES, CMD_DETECT, CMD_LEARN, CMD_VERIFY, CMD_SERVE, N_CMDS };
static const char *const cmd_names[N_CMDS] = {"sites", "detect", "learn", "verify", "serve"};

static void run_cmd(wn_outcome *r, int cmd, const char *dir) {
  static const char winnow[] = WN_BINARY_DIR "/winnow";
  static const char dump[] = WN_BINARY_DIR "/winnow-dump";
  switch (cmd) {
  case CMD_SITES: RUN(r, winnow, "sites", "--store", dir); break;
  case CMD_DETECT: RUN(r, winnow, "detect", "--store", dir, "--site", "site01.example", PAGE); break;
  case CMD_LEARN:
    RUN(r, winnow, "learn", "--store", dir, "--site", "new.example", SITE_DIR "/article-1.html",
        SITE_DIR "/article-2.html", SITE_DIR "/article-3.html");
    break;
  case CMD_VERIFY: RUN(r, dump, "--store", dir, "verify"); break;
  default: RUN(r, winnow, "serve", "--store", dir, "--port", "0"); break;
  }
}

/* Every command on dir: none ends by a signal; with damaged, each exits 3
 * and names the damage (and the daemon refuses to start); else each either
 * succeeds or says something. Returns how many exited 3 as damaged. */
static int run_all(const char *dir, int damaged, int with_serve, const char *what) {
  int n_damaged = 0;
  for (int cmd = 0; cmd < (with_serve ? N_CMDS : CMD_SERVE); cmd++) {
    if (cmd == CMD_LEARN && g_skip_learn)
      continue;
    wn_outcome r;
    run_cmd(&r, cmd, dir);
    if (r.signaled)
      fail_msg("%s: winnow %s died of signal %d:\n%s", what, cmd_names[cmd], r.signaled, r.text);
    const int says_damaged = strstr(r.text, " is damaged: ") != NULL;
    if (says_damaged) {
      if (r.status != 3)
        fail_msg("%s: %s said damaged but exited %d:\n%s", what, cmd_names[cmd], r.status, r.text);
      if (!strstr(r.text, "restore it from a backup (winnow-dump export/import, mdb_copy)"))
        fail_msg("%s: %s gave no way out:\n%s", what, cmd_names[cmd], r.text);
      n_damaged++;
    }
    if (damaged && !says_damaged)
      fail_msg("%s: %s exited %d without calling the store damaged:\n%s", what, cmd_names[cmd],
               r.status, r.text);
    if (!damaged && r.status != 0 && !r.text[0])
      fail_msg("%s: %s exited %d and said nothing", what, cmd_names[cmd], r.status);
  }
  return n_damaged;
}

/* ---- stores ----------------------------------------------------------------- */

static void copy_file(const char *from, const char *to) {
  FILE *in = fopen(from, "rb");
  FILE *out = fopen(to, "wb");
  assert_non_null(in);
  assert_non_null(out);
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, in)) > 0)
    assert_int_equal(fwrite(buf, 1, n, out), n);
  fclose(in);
  assert_int_equal(fclose(out), 0);
}

/* A fresh copy of the base store (data.mdb only: lock.mdb is remade). */
static void fresh_copy(char *dir) {
  snprintf(dir, PATH_MAX, "%s/copy-%d", g_tmp, ++g_seq);
  assert_int_equal(mkdir(dir, 0755), 0);
  char from[PATH_MAX + 16], to[PATH_MAX + 16];
  snprintf(from, sizeof from, "%s/data.mdb", g_base);
  snprintf(to, sizeof to, "%s/data.mdb", dir);
  copy_file(from, to);
}

static void data_path(char *out, const char *dir) {
  snprintf(out, PATH_MAX + 16, "%s/data.mdb", dir);
}

static void overwrite(const char *dir, long at, long len, int byte) {
  char path[PATH_MAX + 16];
  data_path(path, dir);
  FILE *f = fopen(path, "r+b");
  assert_non_null(f);
  assert_int_equal(fseek(f, at, SEEK_SET), 0);
  for (long i = 0; i < len; i++)
    assert_int_not_equal(fputc(byte, f), EOF);
  assert_int_equal(fclose(f), 0);
}

static void resize(const char *dir, long bytes) {
  char path[PATH_MAX + 16];
  data_path(path, dir);
  assert_int_equal(truncate(path, bytes), 0);
}

static void grow_garbage(const char *dir, long bytes) {
  char path[PATH_MAX + 16];
  data_path(path, dir);
  FILE *f = fopen(path, "ab");
  assert_non_null(f);
  for (long i = 0; i < bytes; i++)
    assert_int_not_equal(fputc((int)(i * 131 % 251), f), EOF);
  assert_int_equal(fclose(f), 0);
}

/* The base store, through the library: site01..site40 from one learned
 * template; every fourth with long sample-page names (a record past half a
 * page goes to overflow pages); counters and schedules for some; a few
 * deleted, so the free list holds pages. */
static void make_base(void) {
  snprintf(g_base, sizeof g_base, "%s/base", g_tmp);
  const char *paths[3] = {SITE_DIR "/article-1.html", SITE_DIR "/article-2.html",
                          SITE_DIR "/article-3.html"};
  wn_learned *learned = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_site_learn_files("site01.example", paths, 3, NULL, &learned, &diag);
  if (err)
    fail_msg("learn: %s", wn_diag_message(&diag, err));
  wn_store *store = NULL;
  assert_int_equal(wn_store_open(g_base, NULL, &store, &diag), WN_OK);
  assert_int_equal(wn_site_save(store, learned, NULL, &diag), WN_OK);
  wn_learned_free(learned);
  wn_store_record *rec = NULL;
  assert_int_equal(wn_store_get(store, "site01.example", &rec, &diag), WN_OK);
  static char long_name[1500];
  memset(long_name, 'p', sizeof long_name - 1);
  wn_store_page pages[8];
  for (int i = 2; i <= N_SITES; i++) {
    char site[32];
    snprintf(site, sizeof site, "site%02d.example", i);
    wn_store_record copy = *rec;
    if (i % 4 == 0) {
      for (int k = 0; k < 8; k++)
        pages[k] = (wn_store_page){.name = long_name, .bytes = 1000u + (uint64_t)k};
      copy.pages = pages;
      copy.n_pages = 8;
    }
    assert_int_equal(wn_store_put(store, site, &copy, NULL, NULL, &diag), WN_OK);
    if (i % 3 == 0) {
      int counted = 0;
      assert_int_equal(wn_store_count(store, site, 0, 10, 2, &counted, NULL, &diag), WN_OK);
      wn_store_schedule sched = {.next_run = 1000 * i, .runs = (uint64_t)i};
      assert_int_equal(wn_store_schedule_put(store, site, &sched, &diag), WN_OK);
    }
  }
  for (int i = 5; i <= N_SITES; i += 9) {
    char site[32];
    snprintf(site, sizeof site, "site%02d.example", i);
    assert_int_equal(wn_store_delete(store, site, &diag), WN_OK);
  }
  wn_store_record_free(rec);
  wn_store_close(store);
  char path[PATH_MAX + 16];
  struct stat st;
  data_path(path, g_base);
  assert_int_equal(stat(path, &st), 0);
  g_base_bytes = (long)st.st_size;
  assert_true(g_base_bytes >= 16 * PSIZE);
}

static int group_setup(void **state) {
  (void)state;
  if (wn_test_temp_dir(g_tmp, sizeof g_tmp, "wn-damage") != 0)
    return -1;
  if (wn_init() != WN_OK)
    return -1;
  make_base();
  return 0;
}

static int group_teardown(void **state) {
  (void)state;
  wn_test_remove_tree(g_tmp);
  wn_cleanup();
  return 0;
}

/* ---- the tests ---------------------------------------------------------------- */

/* Without this the other tests could pass by refusing every store. */
static void test_sound_store_works(void **state) {
  (void)state;
  char dir[PATH_MAX];
  fresh_copy(dir);
  for (int cmd = 0; cmd < CMD_SERVE; cmd++) {
    wn_outcome r;
    run_cmd(&r, cmd, dir);
    if (r.signaled || r.status != 0)
      fail_msg("%s on a sound store: signal %d exit %d:\n%s", cmd_names[cmd], r.signaled, r.status,
               r.text);
    if (cmd == CMD_VERIFY)
      assert_non_null(strstr(r.text, ": sound\n"));
  }
  wn_store_check_report rep;
  wn_diag diag = {{0}};
  assert_int_equal(wn_store_check(dir, &rep, &diag), WN_OK);
  assert_int_equal(rep.damaged, 0);
  assert_string_equal(rep.problem, "");
  assert_int_equal(rep.page_bytes, PSIZE);
  assert_true(rep.pages_used * rep.page_bytes <= rep.file_bytes);
  assert_int_equal(rep.databases, 5); /* sites, stats, schedule, pending, pending_order */
  assert_true(rep.entries >= N_SITES);
}

/* The issue's two cases. */
static void test_issue_ranges(void **state) {
  (void)state;
  char dir[PATH_MAX];
  fresh_copy(dir);
  overwrite(dir, 8192, 36864 - 8192, 0x5a);
  run_all(dir, 1, 1, "8192-36863 = 0x5a");
  fresh_copy(dir);
  overwrite(dir, 28672, 16, 0xff);
  run_all(dir, 0, 0, "16 x 0xff at 28672");
}

/* Ranges over the whole file, meta pages included. A range that covers
 * every page in use cannot be missed; smaller ones may land on free pages
 * (then nothing is wrong) but never crash. */
static void test_ranges_over_file(void **state) {
  (void)state;
  static const struct {
    long at, len;
    int byte, damaged;
  } cases[] = {
      {0, PSIZE, 0x5a, 1},                  /* meta page 0 */
      {PSIZE, PSIZE, 0x00, 1},              /* meta page 1 */
      {16, 8, 0x00, 1},                     /* meta 0's magic and version */
      {PSIZE + 40, 4, 0x11, 1},             /* meta 1's page size */
      {2 * PSIZE, -1, 0x5a, 1},             /* every page after the metas */
      {2 * PSIZE, -1, 0x00, 1},
      {3 * PSIZE, 5 * PSIZE, 0xa5, 0},
      {7 * PSIZE + 100, 3000, 0x00, 0},
      {-3 * PSIZE, 3 * PSIZE, 0xff, 0},     /* the last pages */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char dir[PATH_MAX], what[96];
    fresh_copy(dir);
    long at = cases[i].at < 0 ? g_base_bytes + cases[i].at : cases[i].at;
    long len = cases[i].len < 0 ? g_base_bytes - at : cases[i].len;
    overwrite(dir, at, len, cases[i].byte);
    snprintf(what, sizeof what, "bytes %ld-%ld = 0x%02x", at, at + len - 1, cases[i].byte);
    run_all(dir, cases[i].damaged, cases[i].damaged && i % 2 == 0, what);
  }
}

/* Each page's header in turn: the roots and the pages a tree uses are
 * found; none crashes. */
static void test_page_headers(void **state) {
  (void)state;
  int found = 0;
  for (long pg = 0; pg < g_base_bytes / PSIZE; pg++) {
    char dir[PATH_MAX], what[64];
    fresh_copy(dir);
    overwrite(dir, pg * PSIZE, 16, 0xff);
    snprintf(what, sizeof what, "header of page %ld", pg);
    found += run_all(dir, pg < 2, 0, what) > 0;
  }
  /* Most pages of a compact store are in use: most damage is seen. */
  assert_true(found >= 4);
}

static void test_truncated(void **state) {
  (void)state;
  const long sizes[] = {0, 100, PSIZE, 2 * PSIZE, g_base_bytes / 2, g_base_bytes - PSIZE,
                        g_base_bytes - 1};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    char dir[PATH_MAX], what[64];
    fresh_copy(dir);
    resize(dir, sizes[i]);
    snprintf(what, sizeof what, "cut to %ld bytes", sizes[i]);
    run_all(dir, 1, i == 3, what);
  }
  char dir[PATH_MAX];
  fresh_copy(dir);
  resize(dir, g_base_bytes / 2);
  wn_store_check_report rep;
  wn_diag diag = {{0}};
  assert_int_equal(wn_store_check(dir, &rep, &diag), WN_ESTORE);
  assert_int_equal(rep.damaged, 1);
  assert_non_null(strstr(rep.problem, "cut short"));
  /* wn_store_open refuses it too, without the walk. */
  wn_store *store = NULL;
  wn_store_options so;
  wn_store_options_init(&so);
  so.read_only = 1;
  wn_diag_clear(&diag);
  assert_int_equal(wn_store_open(dir, &so, &store, &diag), WN_ESTORE);
  assert_null(store);
  assert_non_null(strstr(wn_diag_message(&diag, WN_ESTORE), " is damaged: "));
}

/* Garbage after the last page: a partial page is damage; whole pages are
 * what an interrupted write leaves, unused and harmless, and verify says
 * they are there. */
static void test_grown(void **state) {
  (void)state;
  char dir[PATH_MAX];
  fresh_copy(dir);
  grow_garbage(dir, 1000);
  run_all(dir, 1, 0, "grown by 1000 bytes");
  fresh_copy(dir);
  grow_garbage(dir, 3 * PSIZE);
  run_all(dir, 0, 0, "grown by 3 pages");
  wn_outcome r;
  run_cmd(&r, CMD_VERIFY, dir);
  assert_int_equal(r.status, 0);
  assert_non_null(strstr(r.text, "(3 unused page(s) after them"));
}

/* ~100 random 1-4 byte changes (fixed seed): never a signal, and a command
 * that fails says why. */
static void test_random_small(void **state) {
  (void)state;
  unsigned long long seed = 0x5eed1414ULL;
  int damaged = 0;
  for (int round = 0; round < 100; round++) {
    char dir[PATH_MAX], what[96];
    fresh_copy(dir);
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    long at = (long)((seed >> 33) % (unsigned long long)g_base_bytes);
    int n = 1 + (int)((seed >> 20) % 4);
    for (int k = 0; k < n && at + k < g_base_bytes; k++)
      overwrite(dir, at + k, 1, (int)((seed >> (8 * k)) & 0xff) ^ 0x80);
    snprintf(what, sizeof what, "round %d: %d byte(s) at %ld", round, n, at);
    g_skip_learn = round % 5 != 0;
    damaged += run_all(dir, 0, 0, what) > 0;
    g_skip_learn = 0;
    wn_test_remove_tree(dir);
  }
  print_message("random changes: %d of 100 found the store damaged\n", damaged);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sound_store_works), cmocka_unit_test(test_issue_ranges),
      cmocka_unit_test(test_ranges_over_file),  cmocka_unit_test(test_page_headers),
      cmocka_unit_test(test_truncated),         cmocka_unit_test(test_grown),
      cmocka_unit_test(test_random_small),
  };
  return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
