/*
 * tests/faults: a full disk. The test enters a private mount
 * namespace and mounts a 256 KiB tmpfs, puts a store there and learns site
 * after site with the real `winnow learn` until the file system is full:
 * exit 3 and a message naming the store and "no space left on device"; the
 * store still checks sound (wn_store_check, `winnow-dump verify`), every
 * earlier site decodes and detects, the refused site has no record. Two
 * amounts of free space: one where LMDB's last write fails with ENOSPC and
 * one where the file system cuts it short, which LMDB reports as EIO
 * (mdb.c, mdb_page_flush: "short write, filesystem full?"). Then the
 * daemon with its store on the full disk: POST /v1/learn is a failed job
 * (the old template kept) and POST /v1/detect answers from what it has;
 * with space freed, the same learn succeeds.
 *
 * Mounting needs CAP_SYS_ADMIN, or an unprivileged user namespace: where
 * neither is allowed (a container, a locked-down kernel) every test here
 * is SKIPPED with a message, never failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <curl/curl.h>
#include <jansson.h>

#include <winnow/serve.h>
#include <winnow/winnow.h>

#include "store/store.h"
#include "wn_run.h"
#include "wn_httpd.h"

#define PAGE(n) WN_FIXTURES "/site/article-" #n ".html"
#define NSET WN_FIXTURES "/nset-site/news/2015/"
#define KEY_PAGE "/news/2015/article-7.html"
#define CONTENT8 "Flood barriers to be raised"
#define TMPFS_BYTES "256k"

static char g_tmp[1024];
static char g_mnt[1100];
static const char *g_winnow;
static char g_no_tmpfs[256]; /* why the tests are skipped; "" when mounted */

static void sleep_ms(long ms) {
  struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* ---- the file system ------------------------------------------------------ */

static int write_map(const char *path, const char *text) {
  int fd = open(path, O_WRONLY);
  if (fd < 0)
    return -1;
  ssize_t n = write(fd, text, strlen(text));
  close(fd);
  return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* A private mount namespace (nothing we mount is seen outside, and a crash
 * leaves no mount behind): as root with CAP_SYS_ADMIN, else in a user
 * namespace of our own. */
static int enter_mount_namespace(char *why, size_t cap) {
  if (unshare(CLONE_NEWNS) != 0) {
    const int first = errno;
    uid_t uid = getuid();
    gid_t gid = getgid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
      snprintf(why, cap, "unshare(CLONE_NEWNS): %s; with a user namespace: %s", strerror(first),
               strerror(errno));
      return -1;
    }
    char map[64];
    snprintf(map, sizeof map, "0 %u 1", (unsigned)uid);
    int bad = write_map("/proc/self/setgroups", "deny") != 0 ||
              write_map("/proc/self/uid_map", map) != 0;
    snprintf(map, sizeof map, "0 %u 1", (unsigned)gid);
    if (bad || write_map("/proc/self/gid_map", map) != 0) {
      snprintf(why, cap, "cannot map our user into a user namespace: %s", strerror(errno));
      return -1;
    }
  }
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
    snprintf(why, cap, "cannot make mounts private: %s", strerror(errno));
    return -1;
  }
  return 0;
}

/* Fills the tmpfs with a file until free bytes are left (0: none). */
static void fill_to(size_t free_bytes) {
  char path[1200];
  snprintf(path, sizeof path, "%s/filler", g_mnt);
  unlink(path);
  struct statvfs fs;
  assert_int_equal(statvfs(g_mnt, &fs), 0);
  size_t avail = (size_t)fs.f_bavail * fs.f_frsize;
  size_t want = avail > free_bytes ? avail - free_bytes : 0;
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  static const char zero[4096];
  while (want > 0) {
    size_t k = want < sizeof zero ? want : sizeof zero;
    if (fwrite(zero, 1, k, f) != k)
      break; /* full: free_bytes 0 */
    want -= k;
  }
  fclose(f);
}

static void unfill(void) {
  char path[1200];
  snprintf(path, sizeof path, "%s/filler", g_mnt);
  unlink(path);
}

static size_t mnt_free(void) {
  struct statvfs fs;
  assert_int_equal(statvfs(g_mnt, &fs), 0);
  return (size_t)fs.f_bavail * fs.f_frsize;
}

/* ---- processes ------------------------------------------------------------- */

/* Runs argv (NULL-terminated) with stdout to /dev/null and stderr to err. */
static int run(const char *const *argv, const char *err) {
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    /* A daemon it starts dies with the test, even one that stops at a
     * failed assertion before it kills the daemon. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() == 1)
      _exit(127);
    if (!freopen("/dev/null", "w", stdout) || !freopen(err, "w", stderr))
      _exit(127);
    execv(argv[0], (char *const *)argv);
    _exit(127);
  }
  return wn_test_wait(pid);
}

static char *read_text(const char *path) {
  size_t len = 0;
  return wn_test_slurp(path, &len);
}

/* ---- the command line ------------------------------------------------------ */

/* Learns sites into a store on a tmpfs with free_bytes left until the disk
 * is full; returns how many were learned. */
static int fill_with_sites(const char *dir, size_t free_bytes, char *msg, size_t cap) {
  char err_path[1200], site[64];
  snprintf(err_path, sizeof err_path, "%s/learn.err", g_tmp);
  wn_test_remove_tree(dir);
  fill_to(free_bytes);
  int rc = 0, n;
  for (n = 0; n < 2000; n++) {
    snprintf(site, sizeof site, "s%d.example", n);
    const char *argv[] = {g_winnow, "learn", "--store", dir, "--site", site, PAGE(1), PAGE(2),
                          PAGE(3),  PAGE(4), PAGE(5), NULL};
    rc = run(argv, err_path);
    if (rc != 0)
      break;
  }
  assert_true(n > 0 && n < 2000);
  assert_int_equal(rc, 3); /* a store error, not a signal */
  char *text = read_text(err_path);
  snprintf(msg, cap, "%s", text);
  free(text);
  return n;
}

static void check_full_store(const char *dir, int n, const char *msg) {
  /* The message names the store and the cause. */
  if (!strstr(msg, dir) || !strstr(msg, "no space left on device"))
    fail_msg("unclear message: %s", msg);
  /* Sound, with nothing half-written. */
  wn_store_check_report report;
  wn_diag diag = {{0}};
  wn_err err = wn_store_check(dir, &report, &diag);
  if (err)
    fail_msg("check: %s", wn_diag_message(&diag, err));
  assert_int_equal(report.damaged, 0);
  char err_path[1200], out_path[1200];
  snprintf(err_path, sizeof err_path, "%s/verify.err", g_tmp);
  snprintf(out_path, sizeof out_path, "%s/verify.out", g_tmp);
  char dump[1200];
  snprintf(dump, sizeof dump, "%s/winnow-dump", WN_BINARY_DIR);
  const char *verify[] = {dump, "--store", dir, "verify", NULL};
  assert_int_equal(run(verify, err_path), 0);
  wn_store *store = NULL;
  if ((err = wn_store_open(dir, NULL, &store, &diag)))
    fail_msg("open: %s", wn_diag_message(&diag, err));
  assert_int_equal(wn_test_store_walk(store), (size_t)n);
  char site[64];
  snprintf(site, sizeof site, "s%d.example", n);
  wn_site_info *info = NULL;
  assert_int_equal(wn_site_info_get(store, site, &info, NULL), WN_ENOTEMPLATE);
  /* Every earlier site detects with its template, counting on a full disk. */
  wn_detector *d = NULL;
  assert_int_equal(wn_detector_create(store, NULL, &d, NULL), WN_OK);
  size_t len = 0;
  char *page = wn_test_slurp(PAGE(6), &len);
  for (int i = 0; i < n; i++) {
    snprintf(site, sizeof site, "s%d.example", i);
    wn_page_input in = {.bytes = page, .len = len, .site = site};
    wn_page_result *r = NULL;
    if ((err = wn_detector_detect(d, &in, WN_WANT_TEXT, &r, &diag)))
      fail_msg("detect %s: %s", site, wn_diag_message(&diag, err));
    assert_string_equal(wn_page_result_method(r), "template");
    wn_page_result_free(r);
  }
  free(page);
  wn_detector_destroy(d);
  wn_store_close(store);
  /* And the command line's detect, which counts into the store. */
  const char *detect[] = {g_winnow, "detect", "--store", dir, "--site", "s0.example", PAGE(6),
                          NULL};
  assert_int_equal(run(detect, err_path), 0);
}

static void test_disk_full_cli(void **state) {
  (void)state;
  if (g_no_tmpfs[0]) {
    fprintf(stderr, "SKIPPED: no tmpfs: %s\n", g_no_tmpfs);
    skip();
  }
  char dir[1200], msg[1024];
  snprintf(dir, sizeof dir, "%s/store", g_mnt);
  /* 128 KiB left: the last write fails with ENOSPC; 64 KiB left: it is cut
   * short (EIO from LMDB). Which one depends on the sizes of the writes;
   * both are the same clear error. */
  static const size_t free_kib[] = {128, 64};
  for (size_t k = 0; k < sizeof free_kib / sizeof free_kib[0]; k++) {
    int n = fill_with_sites(dir, free_kib[k] * 1024, msg, sizeof msg);
    fprintf(stderr, "faults: %s tmpfs with %zu KiB free: full after %d sites: %s",
            TMPFS_BYTES, free_kib[k], n, msg);
    check_full_store(dir, n, msg);
  }
  /* The whole tmpfs, no filler. */
  int n = fill_with_sites(dir, SIZE_MAX, msg, sizeof msg);
  struct stat st;
  char data[1300];
  snprintf(data, sizeof data, "%s/data.mdb", dir);
  assert_int_equal(stat(data, &st), 0);
  fprintf(stderr, "faults: %s tmpfs: full after %d sites, data.mdb %lld bytes: %s", TMPFS_BYTES,
          n, (long long)st.st_size, msg);
  check_full_store(dir, n, msg);
  wn_test_remove_tree(dir);
  unfill();
}

/* Pending samples on a full disk: `winnow detect --learn` over pages of
 * many new sites keeps them in the store until the disk is full; then it
 * says so (the store named, "no space left on device"), still detects
 * every page (exit 0), and the store checks sound with every pending
 * entry whole. */
static void test_disk_full_pending(void **state) {
  (void)state;
  if (g_no_tmpfs[0]) {
    fprintf(stderr, "SKIPPED: no tmpfs: %s\n", g_no_tmpfs);
    skip();
  }
  char dir[1200], jsonl[1200], err_path[1200], out_path[1200];
  snprintf(dir, sizeof dir, "%s/store", g_mnt);
  snprintf(jsonl, sizeof jsonl, "%s/pages.jsonl", g_tmp);
  snprintf(err_path, sizeof err_path, "%s/pending.err", g_tmp);
  snprintf(out_path, sizeof out_path, "%s/pending.out", g_tmp);
  FILE *f = fopen(jsonl, "w");
  assert_non_null(f);
  for (int i = 0; i < 400; i++)
    fprintf(f, "{\"url\": \"https://p%03d.example/story.html\", \"path\": \"%s\"}\n", i,
            PAGE(1));
  assert_int_equal(fclose(f), 0);
  wn_test_remove_tree(dir);
  fill_to(SIZE_MAX); /* the whole tmpfs: a few batches fit, then none */
  const char *argv[] = {g_winnow, "detect", "--store", dir, "--learn", "--threads", "1",
                        "--jsonl", jsonl, NULL};
  assert_int_equal(run(argv, err_path), 0);
  char *msg = read_text(err_path);
  fprintf(stderr, "faults: %s", strstr(msg, "cannot") ? strstr(msg, "cannot") : msg);
  if (!strstr(msg, "cannot") || !strstr(msg, "no space left on device") ||
      !strstr(msg, dir) || !strstr(msg, "400 line(s): 400 detected"))
    fail_msg("unclear message: %s", msg);
  free(msg);
  wn_store_check_report report;
  wn_diag diag = {{0}};
  wn_err err = wn_store_check(dir, &report, &diag);
  if (err)
    fail_msg("check: %s", wn_diag_message(&diag, err));
  wn_store *store = NULL;
  if ((err = wn_store_open(dir, NULL, &store, &diag)))
    fail_msg("open: %s", wn_diag_message(&diag, err));
  wn_test_store_walk(store);
  wn_pending_totals t;
  assert_int_equal(wn_store_pending_totals_get(store, &t, NULL), WN_OK);
  if (!(t.sites > 0 && t.sites < 400))
    fail_msg("pending sites %llu", (unsigned long long)t.sites);
  wn_store_close(store);
  (void)out_path;
  wn_test_remove_tree(dir);
  unfill();
}

/* ---- the daemon --------------------------------------------------------------- */

typedef struct reply {
  long status;
  char *body;
  size_t len;
} reply;

static size_t on_body(char *data, size_t size, size_t n, void *ctx) {
  reply *r = ctx;
  size_t add = size * n;
  char *grown = realloc(r->body, r->len + add + 1);
  if (!grown)
    return 0;
  memcpy(grown + r->len, data, add);
  r->len += add;
  grown[r->len] = '\0';
  r->body = grown;
  return add;
}

static reply http(uint16_t port, const char *method, const char *path, const char *body,
                  size_t len) {
  reply r;
  memset(&r, 0, sizeof r);
  CURL *c = curl_easy_init();
  assert_non_null(c);
  char url[4096];
  snprintf(url, sizeof url, "http://127.0.0.1:%u%s", (unsigned)port, path);
  struct curl_slist *hl = curl_slist_append(NULL, "Expect:");
  if (body && body[0] == '{')
    hl = curl_slist_append(hl, "Content-Type: application/json");
  curl_easy_setopt(c, CURLOPT_URL, url);
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &r);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, hl);
  if (body) {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
  }
  if (curl_easy_perform(c) != CURLE_OK)
    r.status = -1;
  else
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
  curl_slist_free_all(hl);
  curl_easy_cleanup(c);
  return r;
}

static json_t *get_json(uint16_t port, const char *path) {
  reply r = http(port, "GET", path, NULL, 0);
  json_t *j = r.status == 200 ? json_loadb(r.body, r.len, 0, NULL) : NULL;
  free(r.body);
  return j;
}

static long long site_generation(uint16_t port, const char *site) {
  char path[512];
  snprintf(path, sizeof path, "/v1/sites/%s", site);
  json_t *j = get_json(port, path);
  json_t *g = json_object_get(json_object_get(j, "template"), "generation");
  long long gen = json_is_integer(g) ? (long long)json_integer_value(g) : 0;
  json_decref(j);
  return gen;
}

/* A page of the fixture site with a large block of shared boilerplate
 * (items list items) after <body>: a layout whose template is much larger. */
static char *grown_page(const char *file, int items, size_t *len) {
  size_t plen = 0;
  char *page = wn_test_slurp(file, &plen);
  const char *body = strstr(page, "<body>");
  assert_non_null(body);
  size_t at = (size_t)(body - page) + 6;
  size_t cap = plen + (size_t)items * 64 + 64;
  char *out = malloc(cap);
  assert_non_null(out);
  memcpy(out, page, at);
  size_t o = at;
  o += (size_t)snprintf(out + o, cap - o, "<div id=\"directory\"><ul>");
  for (int i = 0; i < items; i++)
    o += (size_t)snprintf(out + o, cap - o, "<li class=\"d%d\"><span>Entry %d</span></li>",
                          i % 7, i);
  o += (size_t)snprintf(out + o, cap - o, "</ul></div>");
  memcpy(out + o, page + at, plen - at);
  o += plen - at;
  out[o] = '\0';
  free(page);
  *len = o;
  return out;
}

/* POST /v1/learn from pages 6, 7, 8 of the fixture site grown by items;
 * waits for the job, returns its JSON. */
static json_t *learn_grown(uint16_t port, const char *site, int items) {
  json_t *pages = json_array();
  static const char *const files[] = {NSET "article-7.html", NSET "article-6.html",
                                      NSET "article-8.html"};
  for (size_t i = 0; i < 3; i++) {
    size_t len = 0;
    char *html = grown_page(files[i], items, &len);
    char url[512];
    snprintf(url, sizeof url, "http://%s/news/2015/%s", site, strrchr(files[i], '/') + 1);
    json_array_append_new(pages, json_pack("{s:s, s:s%}", "url", url, "html", html, len));
    free(html);
  }
  json_t *in = json_pack("{s:s, s:o}", "site", site, "pages", pages);
  char *body = json_dumps(in, 0);
  json_decref(in);
  reply r = http(port, "POST", "/v1/learn", body, strlen(body));
  free(body);
  assert_int_equal(r.status, 202);
  json_t *j = json_loadb(r.body, r.len, 0, NULL);
  free(r.body);
  long long id = (long long)json_integer_value(json_object_get(j, "job"));
  json_decref(j);
  char path[64];
  snprintf(path, sizeof path, "/v1/jobs/%lld", id);
  for (int i = 0; i < 1200; i++) {
    j = get_json(port, path);
    assert_non_null(j);
    const char *st = json_string_value(json_object_get(j, "state"));
    if (strcmp(st, "done") == 0 || strcmp(st, "failed") == 0)
      return j;
    json_decref(j);
    sleep_ms(50);
  }
  fail_msg("job %lld did not finish", id);
  return NULL;
}

static void detect8(uint16_t port, const char *site) {
  size_t len = 0;
  char *page = wn_test_slurp(NSET "article-8.html", &len);
  char path[512];
  snprintf(path, sizeof path, "/v1/detect?url=http://%s/news/2015/article-8.html", site);
  reply r = http(port, "POST", path, page, len);
  free(page);
  assert_int_equal(r.status, 200);
  json_t *j = json_loadb(r.body, r.len, 0, NULL);
  free(r.body);
  assert_non_null(j);
  assert_string_equal(json_string_value(json_object_get(j, "method")), "template");
  assert_non_null(strstr(json_string_value(json_object_get(j, "text")), CONTENT8));
  json_decref(j);
}

static void test_disk_full_daemon(void **state) {
  (void)state;
  if (g_no_tmpfs[0]) {
    fprintf(stderr, "SKIPPED: no tmpfs: %s\n", g_no_tmpfs);
    skip();
  }
  unfill();
  wn_httpd *site_srv = wn_httpd_start(WN_FIXTURES "/nset-site");
  assert_non_null(site_srv);
  char key_url[256], site[64], dir[1200], config[1200], text[4096];
  assert_int_equal(wn_httpd_url(site_srv, KEY_PAGE, key_url, sizeof key_url), 0);
  snprintf(site, sizeof site, "127.0.0.1:%u", (unsigned)wn_httpd_port(site_srv));
  snprintf(dir, sizeof dir, "%s/serve-store", g_mnt);
  snprintf(config, sizeof config, "%s/serve.yaml", g_tmp);
  wn_test_remove_tree(dir);
  snprintf(text, sizeof text,
           "store:\n  path: %s\n"
           "listen:\n  port: 0\n  workers: 2\n  max_body: 4MiB\n"
           "refresh:\n  interval: 1h\n  jitter: 0\n"
           "crawler:\n  host_delay: 20ms\n"
           "sites:\n  - url: %s\n",
           dir, key_url);
  FILE *f = fopen(config, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
  wn_serve_config *cfg = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_serve_config_load(config, &cfg, &diag);
  if (err)
    fail_msg("config: %s", wn_diag_message(&diag, err));
  wn_server *srv = NULL;
  err = wn_server_start(cfg, &srv, &diag);
  wn_serve_config_free(cfg);
  if (err)
    fail_msg("start: %s", wn_diag_message(&diag, err));
  uint16_t port = wn_server_port(srv);
  long long gen = 0;
  for (int i = 0; i < 400 && gen < 1; i++) {
    gen = site_generation(port, site);
    if (gen < 1)
      sleep_ms(50);
  }
  assert_int_equal(gen, 1);
  detect8(port, site);

  /* The disk fills up: a new, larger layout cannot be written. */
  fill_to(0);
  assert_true(mnt_free() < 4096);
  json_t *job = learn_grown(port, site, 1500);
  const char *st = json_string_value(json_object_get(job, "state"));
  const char *message = json_string_value(json_object_get(job, "message"));
  fprintf(stderr, "faults: daemon, store on a full %s tmpfs: learn job %s: %s: %s\n",
          TMPFS_BYTES, st, json_string_value(json_object_get(job, "error")),
          message ? message : "");
  assert_string_equal(st, "failed");
  assert_string_equal(json_string_value(json_object_get(job, "error")), "WN_ENOSPACE");
  assert_non_null(strstr(message, "no space left on device"));
  json_decref(job);
  /* The old template is kept and still serves. */
  assert_int_equal(site_generation(port, site), 1);
  for (int i = 0; i < 5; i++)
    detect8(port, site);
  reply r = http(port, "GET", "/healthz", NULL, 0);
  assert_int_equal(r.status, 200);
  free(r.body);

  /* Space again: the same learn goes through. */
  unfill();
  job = learn_grown(port, site, 1500);
  assert_string_equal(json_string_value(json_object_get(job, "state")), "done");
  assert_int_equal(json_integer_value(json_object_get(job, "generation")), 2);
  json_decref(job);
  assert_int_equal(site_generation(port, site), 2);
  wn_server_stop(srv);
  wn_httpd_stop(site_srv);
  wn_store_check_report report;
  assert_int_equal(wn_store_check(dir, &report, NULL), WN_OK);
  wn_test_remove_tree(dir);
}

static int setup(void **state) {
  (void)state;
  g_winnow = getenv("WN_WINNOW");
  if (!g_winnow)
    g_winnow = WN_BINARY_DIR "/winnow";
  if (wn_test_temp_dir(g_tmp, sizeof g_tmp, "winnow-full") != 0)
    return -1;
  snprintf(g_mnt, sizeof g_mnt, "%s/mnt", g_tmp);
  if (mkdir(g_mnt, 0755) != 0)
    return -1;
  if (enter_mount_namespace(g_no_tmpfs, sizeof g_no_tmpfs) == 0 &&
      mount("winnow-full", g_mnt, "tmpfs", MS_NOSUID | MS_NODEV, "size=" TMPFS_BYTES) != 0)
    snprintf(g_no_tmpfs, sizeof g_no_tmpfs, "mount -t tmpfs: %s", strerror(errno));
  if (g_no_tmpfs[0])
    fprintf(stderr, "faults: disk-full tests SKIPPED: cannot mount a tmpfs (%s)\n", g_no_tmpfs);
  return wn_init() == WN_OK ? 0 : -1;
}

static int teardown(void **state) {
  (void)state;
  if (!g_no_tmpfs[0])
    umount2(g_mnt, MNT_DETACH); /* lazily: a failed test may leave a file open */
  wn_test_remove_tree(g_tmp);
  wn_cleanup();
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_disk_full_cli),
      cmocka_unit_test(test_disk_full_pending),
      cmocka_unit_test(test_disk_full_daemon),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
