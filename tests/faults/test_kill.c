/*
 * tests/faults: crash safety and a full map. `winnow learn` is
 * killed (SIGKILL) at random moments of a run, 40 times with a fixed seed;
 * after each kill the store must open, every record and counter must
 * decode, and the site must hold its old template (generation g) or the
 * new one (g + 1), byte for byte one of the two known encodings: LMDB
 * commits a write transaction by one meta-page write, so a process killed
 * mid-write leaves the last committed state. Then a store with a 1 MiB map
 * is filled, site after site, until learn fails: a clear message, exit 3,
 * and the store still reads with every record whole.
 */
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <winnow/winnow.h>

#include "store/store.h"
#include "wn_run.h"

#define SITE "www.harbourgazette.example"
#define PAGE(n) WN_FIXTURES "/site/article-" #n ".html"
#define KILLS 40

static char g_tmp[1024];
static const char *g_winnow;

static void sleep_us(long us) {
  struct timespec ts = {.tv_sec = us / 1000000L, .tv_nsec = (us % 1000000L) * 1000L};
  nanosleep(&ts, NULL);
}

/* Starts `winnow learn --store dir --site site [--map-size 1] pages...`,
 * its output to /dev/null or to err_path. */
static pid_t learn_start(const char *dir, const char *site, int n_pages, int tiny_map,
                         const char *err_path) {
  const char *pages[] = {PAGE(1), PAGE(2), PAGE(3), PAGE(4), PAGE(5)};
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    const char *argv[16];
    int k = 0;
    argv[k++] = g_winnow;
    argv[k++] = "learn";
    argv[k++] = "--store";
    argv[k++] = dir;
    argv[k++] = "--site";
    argv[k++] = site;
    if (tiny_map) {
      argv[k++] = "--map-size";
      argv[k++] = "1";
    }
    for (int i = 0; i < n_pages; i++)
      argv[k++] = pages[i];
    argv[k] = NULL;
    if (!freopen("/dev/null", "w", stdout) ||
        !freopen(err_path ? err_path : "/dev/null", "w", stderr))
      _exit(127);
    execv(g_winnow, (char *const *)argv);
    _exit(127);
  }
  return pid;
}

/* Opens dir, checks every record; returns the records and *rec = SITE's
 * (NULL if none). */
static size_t check_store(const char *dir, wn_store_record **rec) {
  wn_store *store = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_store_open(dir, NULL, &store, &diag);
  if (err)
    fail_msg("open %s: %s", dir, wn_diag_message(&diag, err));
  size_t records = wn_test_store_walk(store);
  if (rec) {
    *rec = NULL;
    err = wn_store_get(store, SITE, rec, &diag);
    if (err && err != WN_ENOTFOUND)
      fail_msg("get: %s", wn_diag_message(&diag, err));
  }
  wn_store_close(store);
  return records;
}

static int same_template(const wn_store_record *a, const wn_store_record *b) {
  return a->template_len == b->template_len && a->n_pages == b->n_pages &&
         memcmp(a->template_bytes, b->template_bytes, a->template_len) == 0;
}

static void test_kill_learn(void **state) {
  (void)state;
  char ref[PATH_MAX], dir[PATH_MAX];
  snprintf(ref, sizeof ref, "%s/ref", g_tmp);
  snprintf(dir, sizeof dir, "%s/kill", g_tmp);
  /* The two encodings: 4 pages (A) and 5 pages (B). */
  wn_store_record *enc[2] = {NULL, NULL};
  for (int i = 0; i < 2; i++) {
    assert_int_equal(wn_test_wait(learn_start(ref, SITE, 4 + i, 0, NULL)), 0);
    check_store(ref, &enc[i]);
    assert_non_null(enc[i]);
  }
  assert_false(same_template(enc[0], enc[1]));
  /* How long a learn takes, for the range of kill moments. */
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  assert_int_equal(wn_test_wait(learn_start(dir, SITE, 4, 0, NULL)), 0);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  long run_us = (t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_nsec - t0.tv_nsec) / 1000L;
  wn_store_record *cur = NULL;
  check_store(dir, &cur);
  assert_non_null(cur);
  int cur_enc = 0; /* dir holds A, generation 1 */
  uint64_t gen = cur->generation;
  wn_store_record_free(cur);
  srand(14);
  int killed = 0, finished = 0;
  for (int k = 0; k < KILLS; k++) {
    int want = 1 - cur_enc; /* each run replaces the template with the other */
    pid_t pid = learn_start(dir, SITE, 4 + want, 0, NULL);
    /* Up to 1.2 times a whole run: most kills land inside it. */
    sleep_us((long)((double)rand() / RAND_MAX * 1.2 * (double)run_us));
    kill(pid, SIGKILL);
    int rc = wn_test_wait(pid);
    if (rc == 128 + SIGKILL)
      killed++;
    else
      finished++;
    check_store(dir, &cur);
    assert_non_null(cur);
    if (cur->generation == gen + 1) {
      if (!same_template(cur, enc[want]))
        fail_msg("kill %d: generation %llu does not hold the new template", k,
                 (unsigned long long)cur->generation);
      cur_enc = want;
      gen++;
    } else if (cur->generation == gen) {
      if (!same_template(cur, enc[cur_enc]))
        fail_msg("kill %d: generation %llu does not hold the old template", k,
                 (unsigned long long)cur->generation);
    } else {
      fail_msg("kill %d: generation %llu, expected %llu or %llu", k,
               (unsigned long long)cur->generation, (unsigned long long)gen,
               (unsigned long long)gen + 1);
    }
    wn_store_record_free(cur);
  }
  fprintf(stderr, "faults: %d kills of winnow learn (%d killed, %d had finished), generation "
                  "%llu, store whole each time\n",
          KILLS, killed, finished, (unsigned long long)gen);
  assert_true(killed > 0);
  wn_store_record_free(enc[0]);
  wn_store_record_free(enc[1]);
  wn_test_remove_tree(ref);
  wn_test_remove_tree(dir);
}

/* A store with a 1 MiB map, filled site after site until learn fails. */
static void test_map_full(void **state) {
  (void)state;
  char dir[PATH_MAX], err_path[PATH_MAX], site[64];
  snprintf(dir, sizeof dir, "%s/full", g_tmp);
  snprintf(err_path, sizeof err_path, "%s/full.err", g_tmp);
  int rc = 0, n;
  for (n = 0; n < 5000; n++) {
    snprintf(site, sizeof site, "s%d.example", n);
    rc = wn_test_wait(learn_start(dir, site, 5, 1, err_path));
    if (rc != 0)
      break;
  }
  assert_true(n > 0 && n < 5000);
  assert_int_equal(rc, 3);
  char msg[512] = "";
  FILE *f = fopen(err_path, "r");
  assert_non_null(f);
  size_t got = fread(msg, 1, sizeof msg - 1, f);
  msg[got] = '\0';
  fclose(f);
  fprintf(stderr, "faults: 1 MiB map full after %d sites: %s", n, msg);
  assert_non_null(strstr(msg, "full"));
  /* Nothing half-written: every record decodes, the failed site has none. */
  assert_int_equal(check_store(dir, NULL), (size_t)n);
  wn_store *store = NULL;
  assert_int_equal(wn_store_open(dir, NULL, &store, NULL), WN_OK);
  wn_site_info *info = NULL;
  assert_int_equal(wn_site_info_get(store, site, &info, NULL), WN_ENOTEMPLATE);
  /* Detection from what the store has still works. */
  wn_detector *d = NULL;
  assert_int_equal(wn_detector_create(store, NULL, &d, NULL), WN_OK);
  size_t len = 0;
  char *page = NULL;
  assert_int_equal(wn_file_read(PAGE(6), WN_PAGE_MAX_BYTES, &page, &len, NULL), WN_OK);
  wn_page_input in = {.bytes = page, .len = len, .site = "s0.example"};
  wn_page_result *r = NULL;
  assert_int_equal(wn_detector_detect(d, &in, WN_WANT_TEXT, &r, NULL), WN_OK);
  assert_string_equal(wn_page_result_method(r), "template");
  wn_page_result_free(r);
  free(page);
  wn_detector_destroy(d);
  wn_store_close(store);
  wn_test_remove_tree(dir);
}

/* `winnow detect --learn` over a stream of pages of many sites, each new
 * and alone: every page is kept in the store as a pending sample. Killed
 * at random moments; after each kill every pending entry decodes and the
 * totals are their sums (check_store). Run to the end, the store holds
 * one pending page per site, however many runs were killed before. */
#define PENDING_SITES 400
#define PENDING_KILLS 20

static pid_t detect_learn_start(const char *dir, const char *jsonl) {
  const char *argv[] = {g_winnow, "detect", "--store", dir, "--learn", "--threads", "1",
                        "--jsonl", jsonl, NULL};
  return wn_test_spawn(argv, NULL, "/dev/null", "/dev/null", 0);
}

static void test_kill_pending(void **state) {
  (void)state;
  char dir[PATH_MAX], jsonl[PATH_MAX];
  snprintf(dir, sizeof dir, "%s/pending", g_tmp);
  snprintf(jsonl, sizeof jsonl, "%s/pages.jsonl", g_tmp);
  FILE *f = fopen(jsonl, "w");
  assert_non_null(f);
  for (int i = 0; i < PENDING_SITES; i++)
    fprintf(f, "{\"url\": \"https://p%03d.example/news/story.html\", \"path\": \"%s\"}\n", i,
            i % 2 ? PAGE(1) : PAGE(2));
  assert_int_equal(fclose(f), 0);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  char once[PATH_MAX + 8];
  snprintf(once, sizeof once, "%s/once", g_tmp);
  assert_int_equal(wn_test_wait(detect_learn_start(once, jsonl)), 0);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  long run_us = (t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_nsec - t0.tv_nsec) / 1000L;
  wn_test_remove_tree(once);
  srand(36);
  int killed = 0;
  for (int k = 0; k < PENDING_KILLS; k++) {
    pid_t pid = detect_learn_start(dir, jsonl);
    sleep_us((long)((double)rand() / RAND_MAX * 1.2 * (double)run_us));
    kill(pid, SIGKILL);
    killed += wn_test_wait(pid) == 128 + SIGKILL;
    check_store(dir, NULL);
  }
  assert_true(killed > 0);
  assert_int_equal(wn_test_wait(detect_learn_start(dir, jsonl)), 0);
  wn_store *store = NULL;
  assert_int_equal(wn_store_open(dir, NULL, &store, NULL), WN_OK);
  wn_pending_totals t;
  assert_int_equal(wn_store_pending_totals_get(store, &t, NULL), WN_OK);
  assert_int_equal(t.sites, PENDING_SITES);
  assert_int_equal(t.pages, PENDING_SITES);
  wn_store_close(store);
  check_store(dir, NULL);
  fprintf(stderr, "faults: %d kills of detect --learn keeping pending pages (%d killed), "
                  "store whole each time\n",
          PENDING_KILLS, killed);
  wn_test_remove_tree(dir);
}

static int setup(void **state) {
  (void)state;
  g_winnow = getenv("WN_WINNOW");
  if (!g_winnow)
    g_winnow = WN_BINARY_DIR "/winnow";
  if (wn_test_temp_dir(g_tmp, sizeof g_tmp, "winnow-kill") != 0)
    return -1;
  return wn_init() == WN_OK ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  wn_test_remove_tree(g_tmp);
  wn_cleanup();
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_kill_learn),
      cmocka_unit_test(test_map_full),
      cmocka_unit_test(test_kill_pending),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
