/*
 * tests/faults: SIGKILL of the daemon during scheduled refreshes (issue
 * 14). The real `winnow serve` runs with one site on the loopback fixture
 * server and refresh.interval 1s, so learns run back to back, and is
 * killed (SIGKILL) at random moments, 24 times with a fixed seed, two
 * thirds of them timed to fall inside a learn.
 * Between runs the site's layout flips between two versions (the fixture
 * site, and the same pages with a large shared block added), so each learn
 * writes a template that differs from the last. After every kill the store
 * must check sound (wn_store_check), every record and counter decode, the
 * site hold one of the two known templates byte for byte at a generation
 * no lower than before, and its schedule record decode. Then a restarted
 * daemon serves detection from that template.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <curl/curl.h>
#include <jansson.h>

#include <winnow/winnow.h>

#include "store/store.h"
#include "wn_run.h"
#include "wn_httpd.h"

#define KILLS 24
#define ITEMS 200 /* list items of the shared block of layout B */
#define KEY_PAGE "/news/2015/article-7.html"
#define CONTENT8 "Flood barriers to be raised"

static char g_tmp[1024];
static char g_root[1100];  /* the served root: a symlink to layout A or B */
static char g_b[1100];     /* layout B */
static const char *g_winnow;
static wn_httpd *g_srv;
static char g_site[64];

static void sleep_ms(long ms) {
  struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* ---- the two layouts ------------------------------------------------------- */

/* Rewrites an HTML file with a block of ITEMS list items after <body>. */
static void grow_page(const char *path) {
  size_t plen = 0;
  char *page = wn_test_slurp(path, &plen);
  const char *body = strstr(page, "<body>");
  assert_non_null(body);
  size_t at = (size_t)(body - page) + 6;
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fwrite(page, 1, at, f);
  fputs("<div id=\"directory\"><ul>", f);
  for (int i = 0; i < ITEMS; i++)
    fprintf(f, "<li class=\"d%d\"><span>Entry %d</span></li>", i % 7, i);
  fputs("</ul></div>", f);
  fwrite(page + at, 1, plen - at, f);
  assert_int_equal(fclose(f), 0);
  free(page);
}

/* Points the served root at layout b (1) or A (0), atomically. */
static void serve_layout(int b) {
  char tmp[1200];
  snprintf(tmp, sizeof tmp, "%s.new", g_root);
  unlink(tmp);
  assert_int_equal(symlink(b ? g_b : WN_FIXTURES "/nset-site", tmp), 0);
  assert_int_equal(rename(tmp, g_root), 0);
}

/* ---- the daemon ------------------------------------------------------------- */

static void write_config(const char *path, const char *store) {
  char key_url[256];
  assert_int_equal(wn_httpd_url(g_srv, KEY_PAGE, key_url, sizeof key_url), 0);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fprintf(f,
          "store:\n  path: %s\n"
          "listen:\n  port: 0\n  workers: 2\n"
          "refresh:\n  interval: 1s\n  jitter: 0\n  retry_min: 100ms\n  retry_max: 200ms\n"
          "crawler:\n  host_delay: 10ms\n"
          "sites:\n  - url: %s\n",
          store, key_url);
  assert_int_equal(fclose(f), 0);
}

static pid_t serve_start(const char *config, const char *port_file, const char *log) {
  unlink(port_file);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    /* The daemon dies with the test, even one that stops at a failed
     * assertion before it kills the daemon. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() == 1)
      _exit(127);
    if (!freopen("/dev/null", "w", stdout) || !freopen(log, "w", stderr))
      _exit(127);
    execl(g_winnow, g_winnow, "serve", "--config", config, "--port-file", port_file,
          (char *)NULL);
    _exit(127);
  }
  return pid;
}

/* ---- the store -------------------------------------------------------------- */

/* Checks dir as a whole and returns the site's record (NULL: none yet);
 * *sched is 1 if the site has a schedule record (which must decode). */
static wn_store_record *check_store(const char *dir, int *sched) {
  wn_store_check_report report;
  wn_diag diag = {{0}};
  wn_err err = wn_store_check(dir, &report, &diag);
  if (err)
    fail_msg("check %s: %s", dir, wn_diag_message(&diag, err));
  assert_int_equal(report.damaged, 0);
  wn_store *store = NULL;
  if ((err = wn_store_open(dir, NULL, &store, &diag)))
    fail_msg("open %s: %s", dir, wn_diag_message(&diag, err));
  assert_true(wn_test_store_walk(store) <= 1);
  wn_store_record *rec = NULL;
  err = wn_store_get(store, g_site, &rec, &diag);
  if (err && err != WN_ENOTFOUND)
    fail_msg("get: %s", wn_diag_message(&diag, err));
  wn_store_schedule st;
  err = wn_store_schedule_get(store, g_site, &st, &diag);
  if (err && err != WN_ENOTFOUND)
    fail_msg("schedule: %s", wn_diag_message(&diag, err));
  *sched = err == WN_OK;
  wn_store_close(store);
  return rec;
}

static int same_template(const wn_store_record *a, const wn_store_record *b) {
  return a->template_len == b->template_len &&
         memcmp(a->template_bytes, b->template_bytes, a->template_len) == 0;
}

/* How many learns the log shows started. */
static int learns_started(const char *log) {
  size_t len = 0;
  char *text = NULL;
  if (wn_file_read(log, 1 << 22, &text, &len, NULL) != WN_OK)
    return 0;
  int n = 0;
  for (const char *p = text; (p = strstr(p, ") started")); p++)
    n++;
  free(text);
  return n;
}

/* The duration of the log's first finished learn ("done in N ms"). */
static long learn_ms(const char *log) {
  size_t len = 0;
  char *text = NULL;
  long ms = 0;
  if (wn_file_read(log, 1 << 22, &text, &len, NULL) != WN_OK)
    return 0;
  const char *p = strstr(text, " done in ");
  if (p)
    ms = strtol(p + 9, NULL, 10);
  free(text);
  return ms;
}

/* A clean run on a fresh store with layout b until the first template,
 * then SIGTERM: the reference encoding of that layout. */
static wn_store_record *reference(int b, long *ms) {
  char store[1200], config[1200], port_file[1200], log[1200];
  snprintf(store, sizeof store, "%s/ref-%d", g_tmp, b);
  snprintf(config, sizeof config, "%s/ref-%d.yaml", g_tmp, b);
  snprintf(port_file, sizeof port_file, "%s/ref.port", g_tmp);
  snprintf(log, sizeof log, "%s/ref.log", g_tmp);
  serve_layout(b);
  write_config(config, store);
  pid_t pid = serve_start(config, port_file, log);
  wn_test_wait_port(port_file);
  wn_store_record *rec = NULL;
  for (int i = 0; i < 400 && !rec; i++) {
    wn_store *s = NULL;
    if (wn_store_open(store, NULL, &s, NULL) == WN_OK) {
      if (wn_store_get(s, g_site, &rec, NULL) != WN_OK)
        rec = NULL;
      wn_store_close(s);
    }
    if (!rec)
      sleep_ms(50);
  }
  assert_non_null(rec);
  kill(pid, SIGTERM);
  assert_int_equal(wn_test_wait(pid), 0);
  long took = learn_ms(log);
  if (took > *ms)
    *ms = took;
  wn_test_remove_tree(store);
  return rec;
}

/* Whether the log's last learn started and did not end: killed mid-learn. */
static int killed_in_learn(const char *log) {
  size_t len = 0;
  char *text = NULL;
  if (wn_file_read(log, 1 << 22, &text, &len, NULL) != WN_OK)
    return 0;
  const char *started = NULL, *ended = NULL;
  for (const char *p = text; (p = strstr(p, ") started")); p++)
    started = p;
  for (const char *p = text; (p = strstr(p, " done in ")); p++)
    ended = p;
  for (const char *p = text; (p = strstr(p, " failed after ")); p++)
    if (!ended || p > ended)
      ended = p;
  int in = started && (!ended || ended < started);
  free(text);
  return in;
}

static void detect_now(uint16_t port, int b) {
  char file[1200];
  if (b)
    snprintf(file, sizeof file, "%s/news/2015/article-8.html", g_b);
  else
    snprintf(file, sizeof file, "%s/nset-site/news/2015/article-8.html", WN_FIXTURES);
  size_t len = 0;
  char *page = wn_test_slurp(file, &len);
  char url[512];
  snprintf(url, sizeof url, "http://127.0.0.1:%u/v1/detect?url=http://%s/news/2015/article-8.html",
           (unsigned)port, g_site);
  CURL *c = curl_easy_init();
  assert_non_null(c);
  FILE *out = tmpfile();
  assert_non_null(out);
  struct curl_slist *hl = curl_slist_append(NULL, "Expect:");
  curl_easy_setopt(c, CURLOPT_URL, url);
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, page);
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, out);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  assert_int_equal(curl_easy_perform(c), CURLE_OK);
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(hl);
  curl_easy_cleanup(c);
  free(page);
  assert_int_equal(status, 200);
  rewind(out);
  json_t *j = json_loadf(out, 0, NULL);
  fclose(out);
  assert_non_null(j);
  assert_string_equal(json_string_value(json_object_get(j, "method")), "template");
  assert_non_null(strstr(json_string_value(json_object_get(j, "text")), CONTENT8));
  json_decref(j);
}

static void test_kill_serve(void **state) {
  (void)state;
  long run_ms = 0; /* the longer of a learn of either layout */
  wn_store_record *enc[2] = {reference(0, &run_ms), reference(1, &run_ms)};
  assert_true(run_ms > 0);
  assert_false(same_template(enc[0], enc[1]));
  char store[1200], config[1200], port_file[1200], log[1200];
  snprintf(store, sizeof store, "%s/store", g_tmp);
  snprintf(config, sizeof config, "%s/serve.yaml", g_tmp);
  snprintf(port_file, sizeof port_file, "%s/serve.port", g_tmp);
  snprintf(log, sizeof log, "%s/serve.log", g_tmp);
  write_config(config, store);
  srand(14);
  uint64_t gen = 0;
  int held = -1; /* the layout the site's template is of */
  int in_learn = 0, advanced = 0, scheds = 0;
  for (int k = 0; k < KILLS; k++) {
    /* Each run learns the other layout than the one stored. */
    const int want = held < 0 ? 0 : 1 - held;
    serve_layout(want);
    pid_t pid = serve_start(config, port_file, log);
    /* A third of the kills at any moment of up to 2.5 s (the store check
     * at start, the first learn, due at once after a restart since its
     * interval has passed, and one or two more); the others inside a
     * learn: once the first or second learn of the run has started, within
     * 1.2 times a learn's duration, so that some land in the store write. */
    if (k % 3 == 0) {
      sleep_ms(50 + (long)((double)rand() / RAND_MAX * 2450.0));
    } else {
      const int nth = 1 + rand() % 2;
      for (int i = 0; i < 1000 && learns_started(log) < nth; i++)
        sleep_ms(5);
      sleep_ms((long)((double)rand() / RAND_MAX * 1.2 * (double)run_ms));
    }
    kill(pid, SIGKILL);
    assert_int_equal(wn_test_wait(pid), 128 + SIGKILL);
    in_learn += killed_in_learn(log);
    int sched = 0;
    wn_store_record *rec = check_store(store, &sched);
    if (!rec) {
      assert_true(gen == 0);
      continue;
    }
    /* The record and the schedule are two transactions: a kill between
     * them after the very first learn leaves no schedule yet, which a
     * restart plans afresh; one that is there decoded above. */
    scheds += sched;
    if (rec->generation < gen || rec->generation == 0)
      fail_msg("kill %d: generation %llu after %llu", k, (unsigned long long)rec->generation,
               (unsigned long long)gen);
    int is = same_template(rec, enc[0]) ? 0 : same_template(rec, enc[1]) ? 1 : -1;
    if (is < 0)
      fail_msg("kill %d: generation %llu holds neither known template (%zu bytes)", k,
               (unsigned long long)rec->generation, rec->template_len);
    if (rec->generation > gen) {
      advanced++;
      /* Learns of this run were all of layout want. */
      assert_int_equal(is, want);
    } else {
      assert_int_equal(is, held);
    }
    gen = rec->generation;
    held = is;
    wn_store_record_free(rec);
  }
  fprintf(stderr,
          "faults: %d SIGKILLs of winnow serve (interval 1s, a learn %ld ms): %d during a "
          "learn, %d runs committed a new template, generation %llu; store sound each time\n",
          KILLS, run_ms, in_learn, advanced, (unsigned long long)gen);
  assert_true(gen >= 2);
  assert_true(scheds > 0);
  /* A restart serves detection from what the store holds. */
  pid_t pid = serve_start(config, port_file, log);
  uint16_t port = wn_test_wait_port(port_file);
  detect_now(port, held);
  kill(pid, SIGTERM);
  assert_int_equal(wn_test_wait(pid), 0);
  wn_store_record_free(enc[0]);
  wn_store_record_free(enc[1]);
}

static int setup(void **state) {
  (void)state;
  g_winnow = getenv("WN_WINNOW");
  if (!g_winnow)
    g_winnow = WN_BINARY_DIR "/winnow";
  if (wn_test_temp_dir(g_tmp, sizeof g_tmp, "winnow-killserve") != 0)
    return -1;
  snprintf(g_root, sizeof g_root, "%s/root", g_tmp);
  snprintf(g_b, sizeof g_b, "%s/layout-b", g_tmp);
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "cp -r '%s/nset-site' '%s'", WN_FIXTURES, g_b);
  if (system(cmd) != 0)
    return -1;
  static const char *const articles[] = {"news/2014/article-3.html", "news/2015/article-5.html",
                                         "news/2015/article-6.html", "news/2015/article-7.html",
                                         "news/2015/article-8.html"};
  for (size_t i = 0; i < sizeof articles / sizeof articles[0]; i++) {
    char path[1300];
    snprintf(path, sizeof path, "%s/%s", g_b, articles[i]);
    grow_page(path);
  }
  serve_layout(0);
  if (wn_init() != WN_OK)
    return -1;
  g_srv = wn_httpd_start(g_root);
  if (!g_srv)
    return -1;
  snprintf(g_site, sizeof g_site, "127.0.0.1:%u", (unsigned)wn_httpd_port(g_srv));
  return 0;
}

static int teardown(void **state) {
  (void)state;
  wn_httpd_stop(g_srv);
  wn_test_remove_tree(g_tmp);
  wn_cleanup();
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_kill_serve),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
