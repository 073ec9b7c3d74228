/* tests/support/wn_run.c: see wn_run.h. */
#define _XOPEN_SOURCE 700 /* nftw */
#include "wn_run.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <lmdb.h>

#include "store/store.h"

char *wn_test_slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    fail_msg("cannot open %s", path);
  assert_int_equal(fseek(f, 0, SEEK_END), 0);
  long size = ftell(f);
  assert_true(size >= 0);
  rewind(f);
  char *bytes = malloc((size_t)size + 1);
  assert_non_null(bytes);
  assert_int_equal(fread(bytes, 1, (size_t)size, f), (size_t)size);
  fclose(f);
  bytes[size] = '\0';
  if (len)
    *len = (size_t)size;
  return bytes;
}

void wn_test_write(const char *path, const void *bytes, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f)
    fail_msg("cannot create %s", path);
  assert_int_equal(fwrite(bytes, 1, len, f), len);
  assert_int_equal(fclose(f), 0);
}

void wn_test_write_text(const char *path, const char *text) {
  wn_test_write(path, text, strlen(text));
}

static int wn_remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st;
  (void)ftw;
  (void)(flag == FTW_DP ? rmdir(path) : unlink(path));
  return 0; /* go on: what is left is found below */
}

int wn_test_temp_dir(char *out, size_t size, const char *name) {
  const char *base = getenv("TMPDIR");
  int n = base && *base ? snprintf(out, size, "%s/%s-XXXXXX", base, name) : -1;
  if (n < 0 || (size_t)n >= size)
    n = snprintf(out, size, "/tmp/%s-XXXXXX", name);
  if (n < 0 || (size_t)n >= size || !mkdtemp(out)) {
    if (size)
      out[0] = '\0';
    return -1;
  }
  return 0;
}

void wn_test_remove_tree(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0 && errno == ENOENT)
    return;
  nftw(path, wn_remove_one, 16, FTW_DEPTH | FTW_PHYS);
  if (lstat(path, &st) == 0)
    fail_msg("cannot remove %s", path);
}

pid_t wn_test_spawn(const char *const *argv, const char *stdin_path, const char *out_path,
                    const char *err_path, unsigned alarm_s) {
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    int in_fd = open(stdin_path ? stdin_path : "/dev/null", O_RDONLY);
    int out_fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int err_fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in_fd < 0 || out_fd < 0 || err_fd < 0 || dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 ||
        dup2(err_fd, 2) < 0)
      _exit(127);
    if (alarm_s)
      alarm(alarm_s);
    execv(argv[0], (char *const *)argv);
    _exit(127);
  }
  return pid;
}

/* pid's exit code, or 128 + the signal that ended it; *signal: that
 * signal, or 0. */
static int wn_wait_signal(pid_t pid, int *signal) {
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0)
    assert_int_equal(errno, EINTR);
  *signal = WIFSIGNALED(wstatus) ? WTERMSIG(wstatus) : 0;
  return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
}

int wn_test_wait(pid_t pid) {
  int signal = 0;
  return wn_wait_signal(pid, &signal);
}

/* A fresh, empty file in dir; path receives its name. */
static void wn_fresh_file(char *path, size_t size, const char *dir, const char *what) {
  int n = snprintf(path, size, "%s/%s-XXXXXX", dir, what);
  assert_true(n > 0 && (size_t)n < size);
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  close(fd);
}

void wn_test_run(wn_run *r, const char *tmp_dir, const char *stdin_path, unsigned alarm_s,
                 const char *prog, const char *const *args) {
  const char *argv[64];
  size_t argc = 0;
  argv[argc++] = prog;
  for (size_t i = 0; args[i]; i++) {
    assert_true(argc < 63);
    argv[argc++] = args[i];
  }
  argv[argc] = NULL;
  char out_path[PATH_MAX], err_path[PATH_MAX];
  wn_fresh_file(out_path, sizeof out_path, tmp_dir, "stdout");
  wn_fresh_file(err_path, sizeof err_path, tmp_dir, "stderr");
  pid_t pid = wn_test_spawn(argv, stdin_path, out_path, err_path, alarm_s);
  r->status = wn_wait_signal(pid, &r->signal);
  r->out = wn_test_slurp(out_path, &r->out_len);
  r->err = wn_test_slurp(err_path, &r->err_len);
  unlink(out_path);
  unlink(err_path);
}

void wn_run_free(wn_run *r) {
  free(r->out);
  free(r->err);
  memset(r, 0, sizeof *r);
}

uint16_t wn_test_wait_port(const char *port_file) {
  for (int i = 0; i < 400; i++) {
    FILE *f = fopen(port_file, "r");
    unsigned port = 0;
    if (f) {
      int n = fscanf(f, "%u", &port);
      fclose(f);
      if (n == 1 && port)
        return (uint16_t)port;
    }
    struct timespec ts = {.tv_sec = 0, .tv_nsec = 50 * 1000000L};
    nanosleep(&ts, NULL);
  }
  fail_msg("the daemon did not start");
  return 0;
}

typedef struct wn_walk {
  size_t records;
  int bad;
} wn_walk;

static int wn_walk_one(const char *site, const void *record, size_t record_len,
                       const void *counters, size_t counters_len, void *ctx) {
  wn_walk *w = ctx;
  wn_store_record *rec = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_store_record_decode(record, record_len, &rec, &diag);
  if (err) {
    fprintf(stderr, "site %s: %s\n", site, wn_diag_message(&diag, err));
    w->bad++;
  }
  wn_store_record_free(rec);
  if (counters && wn_store_counters_check(counters, counters_len) != 0) {
    fprintf(stderr, "site %s: counters do not decode\n", site);
    w->bad++;
  }
  w->records++;
  return 0;
}

typedef struct wn_pwalk {
  wn_pending_totals sum;
  uint64_t bad;
} wn_pwalk;

static int wn_pwalk_one(const wn_pending_site *s, void *ctx) {
  wn_pwalk *w = ctx;
  if (s->damaged) {
    fprintf(stderr, "walk: the pending pages of %s do not decode\n", s->site);
    w->bad++;
  }
  w->sum.sites++;
  w->sum.pages += s->pages;
  w->sum.bytes += s->bytes;
  return 0;
}

size_t wn_test_store_walk(wn_store *store) {
  wn_walk w = {0, 0};
  wn_diag diag = {{0}};
  wn_err err = wn_store_raw_each(store, wn_walk_one, &w, &diag);
  if (err)
    fail_msg("walk: %s", wn_diag_message(&diag, err));
  assert_int_equal(w.bad, 0);
  /* The pending samples: each decodes, and the totals are their sums. */
  wn_pwalk p = {{0, 0, 0}, 0};
  wn_pending_totals t;
  if ((err = wn_store_pending_each(store, wn_pwalk_one, &p, &diag)) ||
      (err = wn_store_pending_totals_get(store, &t, &diag)))
    fail_msg("walk pending: %s", wn_diag_message(&diag, err));
  assert_int_equal(p.bad, 0);
  assert_int_equal(t.sites, p.sum.sites);
  assert_int_equal(t.pages, p.sum.pages);
  assert_int_equal(t.bytes, p.sum.bytes);
  return w.records;
}

void wn_test_lmdb_put(const char *dir, const char *db, const void *key, size_t key_len,
                      const void *bytes, size_t len) {
  MDB_env *env = NULL;
  MDB_txn *txn = NULL;
  MDB_dbi dbi;
  assert_int_equal(mdb_env_create(&env), 0);
  assert_int_equal(mdb_env_set_maxdbs(env, 8), 0);
  assert_int_equal(mdb_env_open(env, dir, 0, 0644), 0);
  assert_int_equal(mdb_txn_begin(env, NULL, 0, &txn), 0);
  assert_int_equal(mdb_dbi_open(txn, db, MDB_CREATE, &dbi), 0);
  if (key) {
    /* LMDB copies both in; the casts drop const only to fit MDB_val. */
    MDB_val k = {key_len, (void *)key}, v = {len, (void *)bytes};
    assert_int_equal(mdb_put(txn, dbi, &k, &v, 0), 0);
  }
  assert_int_equal(mdb_txn_commit(txn), 0);
  mdb_env_close(env);
}
