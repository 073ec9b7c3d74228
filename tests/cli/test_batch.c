/*
 * `winnow detect` on many pages (src/cli/batch.c, detect_stream.c,
 * detect_files.c), tested as scripts use it: the real binary (WN_WINNOW)
 * run with fork + exec over the demo news site of tests/fixtures/site, a
 * real store in a temporary directory. Threads keep input order and give
 * the output of one thread; a consumer that stops reading stops the
 * reading (a bounded window); two processes count into one store; files
 * and directories in, JSONL or an output directory out; a JSONL line's
 * charset.
 */
/* wait4 (the peak memory of a child) is BSD and GNU, not POSIX. */
#define _DEFAULT_SOURCE
#include "wn_run.h"
#include "wn_test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#define SITE "www.harbourgazette.example"
#define PAGE(n) WN_FIXTURES "/site/article-" #n ".html"

static const char *g_winnow;
static char g_tmp[PATH_MAX];
static char g_store[PATH_MAX];

/* ---- running the binary (tests/support/wn_run.h) ------------------------- */

static void wn_join(char *out, size_t size, const char *dir, const char *name) {
  int n = snprintf(out, size, "%s/%s", dir, name);
  assert_true(n > 0 && (size_t)n < size);
}

static void wn_copy_file(const char *from, const char *to) {
  size_t len = 0;
  char *bytes = wn_test_slurp(from, &len);
  wn_test_write(to, bytes, len);
  free(bytes);
}

static void wn_build_argv(const char **argv, const char *const *args) {
  size_t argc = 0;
  argv[argc++] = g_winnow;
  for (size_t i = 0; args[i]; i++) {
    assert_true(argc < 63);
    argv[argc++] = args[i];
  }
  argv[argc] = NULL;
}

/* Starts winnow with stdin from stdin_path (or /dev/null) and both
 * outputs into files named after tag. */
static pid_t wn_spawn(const char *stdin_path, const char *tag, const char *const *args) {
  const char *argv[64];
  wn_build_argv(argv, args);
  char out_path[PATH_MAX], err_path[PATH_MAX];
  char name[64];
  snprintf(name, sizeof name, "%s.out", tag);
  wn_join(out_path, sizeof out_path, g_tmp, name);
  snprintf(name, sizeof name, "%s.err", tag);
  wn_join(err_path, sizeof err_path, g_tmp, name);
  return wn_test_spawn(argv, stdin_path, out_path, err_path, 0);
}

static void wn_collect(wn_run *r, pid_t pid, const char *tag) {
  char path[PATH_MAX], name[64];
  r->status = wn_test_wait(pid);
  snprintf(name, sizeof name, "%s.out", tag);
  wn_join(path, sizeof path, g_tmp, name);
  r->out = wn_test_slurp(path, &r->out_len);
  unlink(path);
  snprintf(name, sizeof name, "%s.err", tag);
  wn_join(path, sizeof path, g_tmp, name);
  r->err = wn_test_slurp(path, &r->err_len);
  unlink(path);
}

static void wn_run_args(wn_run *r, const char *stdin_path, const char *const *args) {
  wn_test_run(r, g_tmp, stdin_path, 0, g_winnow, args);
}

#define RUN(r, in, ...) wn_run_args((r), (in), (const char *const[]){__VA_ARGS__, NULL})
#define SPAWN(in, tag, ...) wn_spawn((in), (tag), (const char *const[]){__VA_ARGS__, NULL})

static void wn_expect_contains(const char *hay, const char *needle) {
  if (!strstr(hay, needle))
    fail_msg("expected to find \"%s\" in:\n%.2000s", needle, hay);
}

/* stderr holds the run's summary line and nothing else. */
static void wn_expect_summary_only(const char *err, const char *what) {
  const char *nl = strchr(err, '\n');
  if (strncmp(err, "winnow: ", 8) != 0 || !strstr(err, what) || !nl || nl[1] != '\0')
    fail_msg("expected only the summary line (\"%s\") on stderr:\n%s", what, err);
}

/* Splits out into lines (in place); returns their number. */
static size_t wn_lines(char *out, size_t len, char **lines, size_t max) {
  size_t n = 0;
  char *p = out, *end = out + len;
  while (p < end) {
    char *nl = memchr(p, '\n', (size_t)(end - p));
    assert_non_null(nl);
    *nl = '\0';
    assert_true(n < max);
    lines[n++] = p;
    p = nl + 1;
  }
  return n;
}

static json_t *wn_parse_line(const char *line) {
  json_error_t jerr;
  json_t *obj = json_loads(line, 0, &jerr);
  if (!obj)
    fail_msg("not JSON (%s): %.300s", jerr.text, line);
  return obj;
}

static void wn_append_json(wn_buf *buf, json_t *obj) {
  assert_non_null(obj);
  char *line = json_dumps(obj, JSON_COMPACT);
  assert_non_null(line);
  assert_int_equal(wn_buf_printf(buf, "%s\n", line), WN_OK);
  free(line);
  json_decref(obj);
}

/* ---- setup ------------------------------------------------------------------ */

static int wn_group_setup(void **state) {
  (void)state;
  g_winnow = getenv("WN_WINNOW");
  if (!g_winnow || !*g_winnow)
    g_winnow = WN_BINARY_DIR "/winnow";
  if (access(g_winnow, X_OK) != 0) {
    fprintf(stderr, "winnow binary not found at %s\n", g_winnow);
    return -1;
  }
  /* A consumer that stops reading must not kill the test with SIGPIPE. */
  signal(SIGPIPE, SIG_IGN);
  if (wn_test_temp_dir(g_tmp, sizeof g_tmp, "wn-batch") != 0)
    return -1;
  wn_join(g_store, sizeof g_store, g_tmp, "store");
  wn_run r;
  RUN(&r, NULL, "learn", "--store", g_store, "--site", SITE, PAGE(1), PAGE(2), PAGE(3), PAGE(4),
      PAGE(5));
  int status = r.status;
  if (status != 0)
    fprintf(stderr, "learn failed (%d): %s", r.status, r.err);
  wn_run_free(&r);
  return status == 0 ? 0 : -1;
}

static int wn_group_teardown(void **state) {
  (void)state;
  if (g_tmp[0])
    wn_test_remove_tree(g_tmp);
  return 0;
}

/* ---- order and identity across threads --------------------------------------- */

/* A page inline, grown to about size bytes by paragraphs of its own. */
static char *wn_sized_page(size_t i, size_t size) {
  wn_buf b;
  wn_buf_init(&b, 0);
  assert_int_equal(wn_buf_printf(&b, "<html><head><title>Page %zu</title></head><body>"
                                     "<div id=\"nav\"><a href=\"/\">Home</a></div><div>",
                                 i),
                   WN_OK);
  for (size_t k = 0; b.len < size; k++)
    assert_int_equal(wn_buf_printf(&b, "<p>Paragraph %zu of page %zu: the harbour wall and "
                                       "the shingle, the council and the tide.</p>",
                                   k, i),
                     WN_OK);
  assert_int_equal(wn_buf_append_str(&b, "</div></body></html>"), WN_OK);
  return wn_buf_take(&b, NULL);
}

/* Line i of the mixed stream: a learned site, a site without a template,
 * a URL, no site at all, inline pages from 200 bytes to 200 KB, and lines
 * that are errors of every kind. */
static void wn_mixed_line(wn_buf *in, size_t i) {
  switch (i % 10) {
  case 0:
  case 1:
  case 2:
    wn_append_json(in, json_pack("{s:i, s:s, s:s}", "id", (int)i, "site", SITE, "path",
                                 i % 2 ? PAGE(6) : PAGE(7)));
    break;
  case 3:
    wn_append_json(in, json_pack("{s:i, s:s, s:s}", "id", (int)i, "site", "unlearned.example",
                                 "path", PAGE(6)));
    break;
  case 4:
    wn_append_json(in, json_pack("{s:i, s:s, s:s}", "id", (int)i, "url",
                                 "https://" SITE "/news/x.html", "path", PAGE(7)));
    break;
  case 5: {
    char *page = wn_sized_page(i, (size_t)200 << (i % 7) * 2); /* 200 B to 800 KB */
    wn_append_json(in, json_pack("{s:i, s:s}", "id", (int)i, "html", page));
    free(page);
    break;
  }
  case 6:
    assert_int_equal(wn_buf_printf(&in[0], "not json %zu\n", i), WN_OK);
    break;
  case 7:
    wn_append_json(in, json_pack("{s:i, s:s}", "id", (int)i, "path",
                                 WN_FIXTURES "/site/missing.html"));
    break;
  case 8:
    wn_append_json(in, json_pack("{s:s, s:s}", "id", "no page", "site", SITE));
    break;
  default: {
    char png[PATH_MAX];
    wn_join(png, sizeof png, g_tmp, "image.html");
    wn_test_write(png, "\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
    wn_append_json(in, json_pack("{s:i, s:s, s:s}", "id", (int)i, "site", SITE, "path", png));
    break;
  }
  }
}

static void test_threads_keep_order(void **state) {
  (void)state;
  const size_t n = 2000;
  wn_buf in;
  wn_buf_init(&in, 0);
  for (size_t i = 0; i < n; i++)
    wn_mixed_line(&in, i);
  char in_path[PATH_MAX];
  wn_join(in_path, sizeof in_path, g_tmp, "mixed.jsonl");
  wn_test_write(in_path, in.data, in.len);
  wn_buf_free(&in);

  /* Without counting, a page's line does not depend on which detector
   * served it: 8 threads give the bytes one thread gives. */
  wn_run one, eight;
  RUN(&one, NULL, "detect", "--store", g_store, "--no-count", "--jsonl", "--threads", "1",
      in_path);
  RUN(&eight, NULL, "detect", "--store", g_store, "--no-count", "--jsonl", "--threads", "8",
      in_path);
  assert_int_equal(one.status, 0);
  assert_int_equal(eight.status, 0);
  assert_int_equal(one.out_len, eight.out_len);
  assert_memory_equal(one.out, eight.out, one.out_len);
  wn_run_free(&eight);

  /* --timing changes no line, and says where the time of every line went
   * (the lines that failed before detection too). */
  RUN(&eight, NULL, "detect", "--store", g_store, "--no-count", "--jsonl", "--threads", "2",
      "--timing", in_path);
  assert_int_equal(eight.status, 0);
  assert_int_equal(one.out_len, eight.out_len);
  assert_memory_equal(one.out, eight.out, one.out_len);
  {
    char want[64];
    snprintf(want, sizeof want, "timing: %zu page(s), ", n);
    wn_expect_contains(eight.err, want);
    const char *parse = strstr(eight.err, "parse ");
    assert_non_null(parse);
    assert_true(strtod(parse + 6, NULL) > 0);
    wn_expect_contains(eight.err, "detection ");
    wn_expect_contains(eight.err, "output ");
  }
  wn_run_free(&eight);
  RUN(&eight, NULL, "detect", "--timing", in_path);
  assert_int_equal(eight.status, 2);
  wn_expect_contains(eight.err, "--timing is for --jsonl, --warc and many files");
  wn_run_free(&eight);
  RUN(&eight, NULL, "detect", "--store", g_store, "--no-count", "--jsonl", "--threads", "8",
      in_path);

  char **lines = calloc(n + 1, sizeof *lines);
  assert_non_null(lines);
  assert_int_equal(wn_lines(eight.out, eight.out_len, lines, n + 1), n);
  for (size_t i = 0; i < n; i++) {
    json_t *obj = wn_parse_line(lines[i]);
    const json_t *id = json_object_get(obj, "id");
    const char *method = json_string_value(json_object_get(obj, "method"));
    const char *error = json_string_value(json_object_get(obj, "error"));
    switch (i % 10) {
    case 0:
    case 1:
    case 2:
    case 4:
      assert_int_equal(json_integer_value(id), (json_int_t)i);
      assert_string_equal(method, "template");
      wn_expect_contains(json_string_value(json_object_get(obj, "text")),
                         i % 10 == 4 || i % 2 == 0 ? "Youth rowers take regional title"
                                                   : "Council backs sea wall repairs");
      break;
    case 3:
      assert_string_equal(method, "danag");
      assert_string_equal(json_string_value(json_object_get(obj, "fallback")), "no template");
      break;
    case 5:
      assert_int_equal(json_integer_value(id), (json_int_t)i);
      assert_true(json_is_null(json_object_get(obj, "site")));
      wn_expect_contains(json_string_value(json_object_get(obj, "text")), "Paragraph 0 of page");
      break;
    case 6:
      assert_true(json_is_null(id));
      wn_expect_contains(error, "not JSON");
      break;
    case 7:
      assert_int_equal(json_integer_value(id), (json_int_t)i);
      wn_expect_contains(error, "missing.html");
      break;
    case 8:
      assert_string_equal(json_string_value(id), "no page");
      wn_expect_contains(error, "line needs \"html\"");
      break;
    default:
      assert_int_equal(json_integer_value(id), (json_int_t)i);
      wn_expect_contains(error, "not an HTML page");
      break;
    }
    json_decref(obj);
  }
  free(lines);
  wn_run_free(&eight);

  /* Counting on: the same lines in the same order, but for "drift" (the
   * counts a line shows depend on which detector wrote them when). */
  RUN(&eight, NULL, "detect", "--store", g_store, "--jsonl", "--threads", "8", in_path);
  assert_int_equal(eight.status, 0);
  char **counted = calloc(n + 1, sizeof *counted);
  lines = calloc(n + 1, sizeof *lines);
  assert_non_null(counted);
  assert_non_null(lines);
  assert_int_equal(wn_lines(one.out, one.out_len, lines, n + 1), n);
  assert_int_equal(wn_lines(eight.out, eight.out_len, counted, n + 1), n);
  for (size_t i = 0; i < n; i++) {
    json_t *a = wn_parse_line(lines[i]), *b = wn_parse_line(counted[i]);
    json_object_del(b, "drift");
    if (!json_equal(a, b))
      fail_msg("line %zu differs:\n%.300s\n%.300s", i, lines[i], counted[i]);
    json_decref(a);
    json_decref(b);
  }
  free(lines);
  free(counted);
  wn_run_free(&one);
  wn_run_free(&eight);
  unlink(in_path);
}

/* ---- a consumer that stops reading -------------------------------------------- */

static void wn_set_nonblock(int fd) {
  int flags = fcntl(fd, F_GETFL);
  assert_true(flags >= 0);
  assert_int_equal(fcntl(fd, F_SETFL, flags | O_NONBLOCK), 0);
}

static double wn_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Feeds lines of about 64 KB of page (so its output is as big) and
 * pad_bytes of padding the detector ignores to `winnow detect --jsonl
 * --threads threads`, never reading its output, until it has taken nothing
 * for a second and a half; checks it took at most bound_lines lines (and
 * its pipe buffers), then reads the output: one line per line. */
static void wn_check_window(const char *threads, size_t pad_bytes, size_t max_lines,
                            size_t bound_lines) {
  char *page = wn_sized_page(1, 64 * 1024);
  char *pad = malloc(pad_bytes + 1);
  assert_non_null(pad);
  memset(pad, 'x', pad_bytes);
  pad[pad_bytes] = '\0';
  wn_buf line;
  wn_buf_init(&line, 0);
  wn_append_json(&line, json_pack("{s:i, s:s, s:s}", "id", 7, "html", page, "pad", pad));
  free(page);
  free(pad);
  const size_t line_len = line.len;

  int in_pipe[2], out_pipe[2];
  assert_int_equal(pipe(in_pipe), 0);
  assert_int_equal(pipe(out_pipe), 0);
  const char *argv[64];
  wn_build_argv(argv, (const char *const[]){"detect", "--no-count", "--jsonl", "--threads",
                                            threads, NULL});
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    int null_fd = open("/dev/null", O_WRONLY);
    if (null_fd < 0 || dup2(in_pipe[0], 0) < 0 || dup2(out_pipe[1], 1) < 0 ||
        dup2(null_fd, 2) < 0)
      _exit(127);
    close(in_pipe[1]);
    close(out_pipe[0]);
    execv(g_winnow, (char *const *)argv);
    _exit(127);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  wn_set_nonblock(in_pipe[1]);

  size_t sent = 0, total = max_lines * line_len;
  double last_progress = wn_now();
  while (sent < total && wn_now() - last_progress < 1.5) {
    size_t at = sent % line_len;
    ssize_t n = write(in_pipe[1], line.data + at, line_len - at);
    if (n > 0) {
      sent += (size_t)n;
      last_progress = wn_now();
    } else {
      assert_true(n < 0 && (errno == EAGAIN || errno == EINTR));
      struct pollfd p = {.fd = in_pipe[1], .events = POLLOUT};
      poll(&p, 1, 100);
    }
  }
  /* Beside the lines: a 64 KB read chunk and the two 64 KB pipe buffers. */
  size_t bound = bound_lines * line_len + 3 * 64 * 1024;
  if (sent > bound)
    fail_msg("the reader took %zu bytes (%zu lines) while nothing was written out; the window "
             "allows %zu",
             sent, sent / line_len, bound);
  assert_true(sent >= 2 * line_len); /* it did start */

  /* Now read: every line written (a cut last line is an error line). */
  close(in_pipe[1]);
  size_t lines_out = 0;
  char buf[65536];
  for (;;) {
    ssize_t n = read(out_pipe[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    assert_true(n >= 0);
    if (n == 0)
      break;
    for (ssize_t k = 0; k < n; k++)
      lines_out += buf[k] == '\n';
  }
  close(out_pipe[0]);
  assert_int_equal(wn_test_wait(pid), 0);
  assert_int_equal(lines_out, (sent + line_len - 1) / line_len);
  wn_buf_free(&line);
}

static void test_window_bounds_reading(void **state) {
  (void)state;
  /* 256 KB lines, 2 threads: the window is 4 x 2 pages; with the one the
   * reader holds while it waits and the one the writer is writing, 10.
   * Without the bound the reader takes all 240 lines (60 MB). */
  wn_check_window("2", 192 * 1024, 240, 10);
  /* 4 MB lines, 16 threads: 64 pages would be 256 MB, but the byte budget
   * (64 MiB) lets 16 in, and the reader holds one more. */
  wn_check_window("16", 4 * 1024 * 1024, 40, 18);
}

/* ---- two processes, one store ------------------------------------------------- */

static void test_two_processes_count_into_one_store(void **state) {
  (void)state;
  char store[PATH_MAX], in_path[PATH_MAX];
  wn_join(store, sizeof store, g_tmp, "shared-store");
  wn_run r;
  RUN(&r, NULL, "learn", "--store", store, "--site", SITE, PAGE(1), PAGE(2), PAGE(3), PAGE(4),
      PAGE(5));
  assert_int_equal(r.status, 0);
  wn_run_free(&r);
  /* 1500 pages each: past the 1000-page flush, so both processes write
   * counts while the other runs, then once more at the end. */
  const size_t n = 1500;
  wn_buf in;
  wn_buf_init(&in, 0);
  for (size_t i = 0; i < n; i++)
    wn_append_json(&in, json_pack("{s:i, s:s, s:s}", "id", (int)i, "site", SITE, "path",
                                  i % 2 ? PAGE(6) : PAGE(7)));
  wn_join(in_path, sizeof in_path, g_tmp, "shared.jsonl");
  wn_test_write(in_path, in.data, in.len);
  wn_buf_free(&in);

  pid_t a = SPAWN(NULL, "proc-a", "detect", "--store", store, "--jsonl", "--threads", "2", in_path);
  pid_t b = SPAWN(NULL, "proc-b", "detect", "--store", store, "--jsonl", "--threads", "2", in_path);
  wn_run ra, rb;
  memset(&ra, 0, sizeof ra);
  memset(&rb, 0, sizeof rb);
  wn_collect(&ra, a, "proc-a");
  wn_collect(&rb, b, "proc-b");
  assert_int_equal(ra.status, 0);
  assert_int_equal(rb.status, 0);
  wn_run *runs[2] = {&ra, &rb};
  for (size_t k = 0; k < 2; k++) {
    char **lines = calloc(n + 1, sizeof *lines);
    assert_non_null(lines);
    assert_int_equal(wn_lines(runs[k]->out, runs[k]->out_len, lines, n + 1), n);
    for (size_t i = 0; i < n; i++) {
      json_t *obj = wn_parse_line(lines[i]);
      assert_int_equal(json_integer_value(json_object_get(obj, "id")), (json_int_t)i);
      assert_string_equal(json_string_value(json_object_get(obj, "method")), "template");
      json_decref(obj);
    }
    free(lines);
    wn_run_free(runs[k]);
  }
  /* Not one count lost. */
  wn_store *s = NULL;
  wn_site_info *info = NULL;
  wn_store_options so;
  wn_store_options_init(&so);
  so.read_only = 1;
  assert_int_equal(wn_store_open(store, &so, &s, NULL), WN_OK);
  assert_int_equal(wn_site_info_get(s, SITE, &info, NULL), WN_OK);
  assert_int_equal(info->counts.pages, 2 * n);
  wn_site_info_free(info);
  wn_store_close(s);
  unlink(in_path);
}

/* ---- files and directories --------------------------------------------------- */

static void wn_mkdir(const char *path) { assert_true(mkdir(path, 0777) == 0 || errno == EEXIST); }

static char *wn_read_out(const char *dir, const char *rel) {
  char path[PATH_MAX];
  wn_join(path, sizeof path, dir, rel);
  size_t len = 0;
  return wn_test_slurp(path, &len);
}

static int wn_exists(const char *dir, const char *rel) {
  char path[PATH_MAX];
  wn_join(path, sizeof path, dir, rel);
  return access(path, F_OK) == 0;
}

static void test_directories_and_output_dir(void **state) {
  (void)state;
  char in[PATH_MAX], out[PATH_MAX], path[PATH_MAX];
  wn_join(in, sizeof in, g_tmp, "site-in");
  wn_join(out, sizeof out, g_tmp, "site-out");
  /* in/news/a.html, in/news/deep/b.HTM, in/c.xhtml, in/notes.txt (not
   * HTML by name), in/zz-bad.html (an image), in/loop -> in (not
   * followed). */
  wn_mkdir(in);
  wn_join(path, sizeof path, in, "news");
  wn_mkdir(path);
  wn_join(path, sizeof path, in, "news/deep");
  wn_mkdir(path);
  wn_join(path, sizeof path, in, "news/a.html");
  wn_copy_file(PAGE(6), path);
  wn_join(path, sizeof path, in, "news/deep/b.HTM");
  wn_copy_file(PAGE(7), path);
  wn_join(path, sizeof path, in, "c.xhtml");
  wn_copy_file(PAGE(6), path);
  wn_join(path, sizeof path, in, "notes.txt");
  wn_copy_file(PAGE(7), path);
  wn_join(path, sizeof path, in, "zz-bad.html");
  wn_test_write(path, "\x89PNG\r\n\x1a\n\0\0\0", 11);
  wn_join(path, sizeof path, in, "loop");
  assert_int_equal(symlink(in, path), 0);

  /* An old output is replaced. */
  wn_mkdir(out);
  wn_join(path, sizeof path, out, "news");
  wn_mkdir(path);
  wn_join(path, sizeof path, out, "news/a.txt");
  wn_test_write(path, "stale", 5);

  wn_run r;
  RUN(&r, NULL, "detect", "--store", g_store, "--site", SITE, "--threads", "2", "--output-dir",
      out, in, PAGE(7));
  /* The image fails, is named on stderr, and the rest is written. */
  assert_int_equal(r.status, 1);
  wn_expect_contains(r.err, "zz-bad.html: not an HTML page");
  char *text = wn_read_out(out, "news/a.txt");
  wn_expect_contains(text, "Council backs sea wall repairs");
  assert_null(strstr(text, "stale"));
  free(text);
  text = wn_read_out(out, "news/deep/b.txt");
  wn_expect_contains(text, "Youth rowers take regional title");
  free(text);
  assert_true(wn_exists(out, "c.txt"));
  assert_false(wn_exists(out, "notes.txt"));
  assert_false(wn_exists(out, "notes.txt.txt"));
  assert_false(wn_exists(out, "zz-bad.txt"));
  assert_false(wn_exists(out, "loop"));
  /* A file named directly by an absolute path: its name. */
  assert_true(wn_exists(out, "article-7.txt"));
  wn_run_free(&r);

  /* --all takes notes.txt too; --format json writes .json. */
  RUN(&r, NULL, "detect", "--store", g_store, "--site", SITE, "--all", "--format", "json",
      "--output-dir", out, in);
  assert_int_equal(r.status, 1);
  text = wn_read_out(out, "notes.txt.json");
  json_t *obj = wn_parse_line(text);
  assert_string_equal(json_string_value(json_object_get(obj, "method")), "template");
  json_decref(obj);
  free(text);
  assert_true(wn_exists(out, "news/deep/b.json"));
  wn_run_free(&r);

  /* No --output-dir: JSONL on stdout, the paths as ids, in name order. */
  RUN(&r, NULL, "detect", "--site", SITE, "--threads", "3", in);
  assert_int_equal(r.status, 1);
  char *lines[16];
  assert_int_equal(wn_lines(r.out, r.out_len, lines, 16), 4);
  const char *expect[] = {"c.xhtml", "news/a.html", "news/deep/b.HTM", "zz-bad.html"};
  for (size_t i = 0; i < 4; i++) {
    obj = wn_parse_line(lines[i]);
    char want[PATH_MAX];
    wn_join(want, sizeof want, in, expect[i]);
    assert_string_equal(json_string_value(json_object_get(obj, "id")), want);
    /* Without a store: the single-page method. */
    if (i < 3)
      assert_string_equal(json_string_value(json_object_get(obj, "method")), "danag");
    else
      wn_expect_contains(json_string_value(json_object_get(obj, "error")), "not an HTML page");
    json_decref(obj);
  }
  wn_run_free(&r);

  /* The output directory is the input's: a page is never written over its
   * own file. */
  RUN(&r, NULL, "detect", "--format", "html", "--output-dir", in, in);
  assert_int_equal(r.status, 1);
  wn_expect_contains(r.err, "would overwrite the input");
  text = wn_read_out(in, "news/a.html");
  wn_expect_contains(text, "<!DOCTYPE html>");
  free(text);
  wn_run_free(&r);

  /* One file alone is still the one-page form: text on stdout. */
  RUN(&r, NULL, "detect", "--store", g_store, "--site", SITE, PAGE(6));
  assert_int_equal(r.status, 0);
  assert_memory_equal(r.out, "Council backs sea wall repairs", 30);
  wn_run_free(&r);
  wn_test_remove_tree(in);
  wn_test_remove_tree(out);
}

static void test_input_list(void **state) {
  (void)state;
  char list[PATH_MAX], out[PATH_MAX];
  wn_join(list, sizeof list, g_tmp, "list.txt");
  wn_join(out, sizeof out, g_tmp, "list-out");
  const char *text = PAGE(6) "\n\n" WN_FIXTURES "/site/none.html\r\n" PAGE(7) "\n";
  wn_test_write(list, text, strlen(text));
  wn_run r;
  RUN(&r, NULL, "detect", "--store", g_store, "--url", "https://" SITE "/x", "--input-list",
      list);
  /* The missing file: its error line, its message, exit 1; the rest done. */
  assert_int_equal(r.status, 1);
  wn_expect_contains(r.err, "winnow: cannot open " WN_FIXTURES "/site/none.html");
  char *lines[8];
  assert_int_equal(wn_lines(r.out, r.out_len, lines, 8), 3);
  json_t *obj = wn_parse_line(lines[0]);
  assert_string_equal(json_string_value(json_object_get(obj, "id")), PAGE(6));
  assert_string_equal(json_string_value(json_object_get(obj, "method")), "template");
  json_decref(obj);
  obj = wn_parse_line(lines[1]);
  wn_expect_contains(json_string_value(json_object_get(obj, "error")), "none.html");
  json_decref(obj);
  obj = wn_parse_line(lines[2]);
  assert_string_equal(json_string_value(json_object_get(obj, "id")), PAGE(7));
  json_decref(obj);
  wn_run_free(&r);

  /* From stdin, into a directory: absolute paths by their names. */
  RUN(&r, list, "detect", "--store", g_store, "--site", SITE, "--input-list", "-",
      "--output-dir", out);
  assert_int_equal(r.status, 1);
  char *page = wn_read_out(out, "article-6.txt");
  wn_expect_contains(page, "Council backs sea wall repairs");
  free(page);
  assert_true(wn_exists(out, "article-7.txt"));
  wn_run_free(&r);

  /* A list that cannot be opened; stdin in the file list. */
  RUN(&r, NULL, "detect", "--input-list", WN_FIXTURES "/none.txt");
  assert_int_equal(r.status, 1);
  wn_expect_contains(r.err, "cannot open " WN_FIXTURES "/none.txt");
  wn_run_free(&r);
  RUN(&r, NULL, "detect", PAGE(6), "-");
  assert_int_equal(r.status, 2);
  wn_run_free(&r);
  RUN(&r, NULL, "detect", "--jsonl", "--output-dir", out);
  assert_int_equal(r.status, 2);
  wn_run_free(&r);
  RUN(&r, NULL, "detect", "--jsonl", "--threads", "0");
  assert_int_equal(r.status, 2);
  wn_expect_contains(r.err, "--threads is a number from 1");
  wn_run_free(&r);
  unlink(list);
  wn_test_remove_tree(out);
}

/* ---- a line's charset ------------------------------------------------------------ */

static void test_jsonl_content_type(void **state) {
  (void)state;
  const char *file = WN_FIXTURES "/charset/undeclared_windows1252.html";
  wn_buf in;
  wn_buf_init(&in, 0);
  /* 0: nothing said, the bytes guessed; 1: the Content-Type's charset;
   * 2: an explicit "charset" wins over it; 3: a quoted value among other
   * parameters; 4: a Content-Type without charset; 5: an "html" string is
   * Unicode whatever the line says; 6: neither site nor url, the
   * single-page method; 7: content_type not a string. */
  wn_append_json(&in, json_pack("{s:i, s:s}", "id", 0, "path", file));
  wn_append_json(&in, json_pack("{s:i, s:s, s:s}", "id", 1, "path", file, "content_type",
                                "text/html; charset=ISO-8859-1"));
  wn_append_json(&in, json_pack("{s:i, s:s, s:s, s:s}", "id", 2, "path", file, "content_type",
                                "text/html; charset=ISO-8859-1", "charset", "koi8-r"));
  wn_append_json(&in, json_pack("{s:i, s:s, s:s}", "id", 3, "path", file, "content_type",
                                "text/html;format=x; Charset=\"windows-1251\"; q=1"));
  wn_append_json(&in, json_pack("{s:i, s:s, s:s}", "id", 4, "path", file, "content_type",
                                "text/html"));
  wn_append_json(&in, json_pack("{s:i, s:s, s:s}", "id", 5, "html",
                                "<p>Le caf\xc3\xa9 \xc3\xa9tait ferm\xc3\xa9, "
                                "mais l'\xc3\xa9l\xc3\xa8ve a attendu.</p>",
                                "content_type", "text/html; charset=koi8-r"));
  wn_append_json(&in, json_pack("{s:i, s:s}", "id", 6, "path", PAGE(6)));
  wn_append_json(&in, json_pack("{s:i, s:s, s:i}", "id", 7, "path", file, "content_type", 5));
  char in_path[PATH_MAX];
  wn_join(in_path, sizeof in_path, g_tmp, "charset.jsonl");
  wn_test_write(in_path, in.data, in.len);
  wn_buf_free(&in);
  wn_run r;
  RUN(&r, NULL, "detect", "--store", g_store, "--jsonl", "--threads", "2", in_path);
  assert_int_equal(r.status, 0);
  char *lines[16];
  assert_int_equal(wn_lines(r.out, r.out_len, lines, 16), 8);
  const char *charset[] = {"windows-1252", "windows-1252", "KOI8-R", "windows-1251",
                           "windows-1252", "UTF-8"};
  const char *source[] = {"guess", "transport", "transport", "transport", "guess", "transport"};
  const char *cafe[] = {"caf\xc3\xa9", "caf\xc3\xa9", "caf\xd0\x98", "caf\xd0\xb9",
                        "caf\xc3\xa9", "caf\xc3\xa9"};
  for (size_t i = 0; i < 6; i++) {
    json_t *obj = wn_parse_line(lines[i]);
    assert_int_equal(json_integer_value(json_object_get(obj, "id")), (json_int_t)i);
    assert_string_equal(json_string_value(json_object_get(obj, "charset")), charset[i]);
    assert_string_equal(json_string_value(json_object_get(obj, "charset_source")), source[i]);
    wn_expect_contains(json_string_value(json_object_get(obj, "text")), cafe[i]);
    json_decref(obj);
  }
  json_t *obj = wn_parse_line(lines[6]);
  assert_true(json_is_null(json_object_get(obj, "site")));
  assert_string_equal(json_string_value(json_object_get(obj, "method")), "danag");
  assert_string_equal(json_string_value(json_object_get(obj, "fallback")), "no template");
  wn_expect_contains(json_string_value(json_object_get(obj, "text")),
                     "Council backs sea wall repairs");
  json_decref(obj);
  obj = wn_parse_line(lines[7]);
  assert_string_equal(json_string_value(json_object_get(obj, "error")),
                      "\"content_type\" must be a string");
  json_decref(obj);
  wn_run_free(&r);
  unlink(in_path);
}

/* ---- URLs that name no site, or name it only when read as a crawl has them ---- */

/* A crawl's URLs with a space in the path, a host with '_' or
 * an IDN host, and one whose host no site name spells. Every line gets its
 * page's text and no "error"; the site is named where it can be (the host
 * for a space in the path, so the learned template serves the page; the
 * host with '_'; the IDN host in punycode), and "site_error" says why
 * where it cannot. */
static const struct {
  const char *url;
  const char *site; /* NULL: no site, "site_error" holds what */
  const char *method;
} g_crawl_urls[] = {
    {"https://" SITE "/news-artikel tx_news_pi1%5Baction%5D=detail", SITE, "template"},
    {"https://my_host.example.com/a", "my_host.example.com", "danag"},
    {"https://b\xc3\xbc" "cher.example/x", "xn--bcher-kva.example", "danag"},
    {"https://ex ample.example/x", NULL, "danag"},
    {"ftp://" SITE "/x", NULL, "danag"},
};
static const char *const g_crawl_site_error[] = {NULL, NULL, NULL, "Bad hostname",
                                                 "ftp URLs are not supported"};

static void wn_expect_crawl_line(const char *line, size_t i) {
  json_t *obj = wn_parse_line(line);
  if (json_object_get(obj, "error"))
    fail_msg("%s: unexpected error: %s", g_crawl_urls[i].url, line);
  const char *site = json_string_value(json_object_get(obj, "site"));
  if (g_crawl_urls[i].site) {
    if (!site)
      fail_msg("%s: no site: %s", g_crawl_urls[i].url, line);
    assert_string_equal(site, g_crawl_urls[i].site);
    assert_null(json_object_get(obj, "site_error"));
  } else {
    assert_true(json_is_null(json_object_get(obj, "site")));
    wn_expect_contains(json_string_value(json_object_get(obj, "site_error")),
                       g_crawl_site_error[i]);
  }
  assert_string_equal(json_string_value(json_object_get(obj, "method")), g_crawl_urls[i].method);
  wn_expect_contains(json_string_value(json_object_get(obj, "text")),
                     "Councillors voted unanimously");
  json_decref(obj);
}

static void test_jsonl_crawl_urls(void **state) {
  (void)state;
  const size_t n = sizeof g_crawl_urls / sizeof g_crawl_urls[0];
  size_t len = 0;
  char *html = wn_test_slurp(PAGE(6), &len);
  wn_buf in;
  wn_buf_init(&in, 0);
  for (size_t i = 0; i < n; i++) {
    /* "path" and "html": both ways a line gives its page. */
    if (i % 2)
      wn_append_json(&in, json_pack("{s:i, s:s, s:s}", "id", (int)i, "url", g_crawl_urls[i].url,
                                    "path", PAGE(6)));
    else
      wn_append_json(&in, json_pack("{s:i, s:s, s:s%}", "id", (int)i, "url",
                                    g_crawl_urls[i].url, "html", html, len));
  }
  free(html);
  char in_path[PATH_MAX];
  wn_join(in_path, sizeof in_path, g_tmp, "crawl-urls.jsonl");
  wn_test_write(in_path, in.data, in.len);
  wn_buf_free(&in);
  wn_run r;
  RUN(&r, NULL, "detect", "--store", g_store, "--no-count", "--jsonl", in_path);
  assert_int_equal(r.status, 0);
  wn_expect_summary_only(r.err, "line(s): ");
  char *lines[16];
  assert_int_equal(wn_lines(r.out, r.out_len, lines, 16), n);
  for (size_t i = 0; i < n; i++)
    wn_expect_crawl_line(lines[i], i);
  wn_run_free(&r);
  unlink(in_path);
}

/* --warc: the pages of a WARC (gzip per record) in record order, with as
 * many threads as one; --warc-out: a WET-style WARC read back; a damaged
 * (truncated) file: what came before is detected, the damage reported,
 * exit 1. */
static void wn_make_warc(const char *path, int with_png) {
  wn_warc_writer *w = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_warc_writer_open(path, NULL, &w, &diag), WN_OK);
  for (int i = 1; i <= 6; i++) {
    char file[PATH_MAX], uri[256];
    snprintf(file, sizeof file, WN_FIXTURES "/site/article-%d.html", i);
    snprintf(uri, sizeof uri, "http://" SITE "/news/article-%d.html", i);
    size_t len = 0;
    char *html = wn_test_slurp(file, &len);
    wn_buf http;
    wn_buf_init(&http, 0);
    assert_int_equal(wn_buf_printf(&http, "HTTP/1.1 200 OK\r\nContent-Type: text/html; "
                                          "charset=utf-8\r\nContent-Length: %zu\r\n\r\n", len),
                     WN_OK);
    assert_int_equal(wn_buf_append(&http, html, len), WN_OK);
    wn_warc_record rec = {.type = "response", .target_uri = uri,
                          .content_type = "application/http; msgtype=response",
                          .block = http.data, .block_len = http.len};
    char id[WN_WARC_ID_SIZE];
    assert_int_equal(wn_warc_write_record(w, &rec, id, &diag), WN_OK);
    wn_buf_free(&http);
    free(html);
    if (with_png && i == 3) {
      static const char png[] = "HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n\x89PNG\r\n";
      wn_warc_record img = {.type = "response", .target_uri = "http://" SITE "/logo.png",
                            .content_type = "application/http; msgtype=response",
                            .block = png, .block_len = sizeof png - 1};
      assert_int_equal(wn_warc_write_record(w, &img, id, &diag), WN_OK);
    }
  }
  assert_int_equal(wn_warc_writer_close(w, &diag), WN_OK);
}

/* The JSON lines of wn_make_warc's six articles, detected with a
 * template: in record order, each naming its record's URL; with all, its
 * record id, site and charset source too. */
static void wn_expect_warc_lines(const wn_run *run, int all) {
  char *lines[16];
  size_t n = wn_lines(run->out, run->out_len, lines, 16);
  assert_int_equal(n, 6);
  for (size_t i = 0; i < n; i++) {
    json_t *obj = wn_parse_line(lines[i]);
    char uri[256];
    snprintf(uri, sizeof uri, "http://" SITE "/news/article-%zu.html", i + 1);
    json_t *id = json_object_get(obj, "id");
    assert_string_equal(json_string_value(json_object_get(id, "url")), uri);
    if (all) {
      assert_memory_equal(json_string_value(json_object_get(id, "warc_record_id")),
                          "<urn:uuid:", 10);
      assert_string_equal(json_string_value(json_object_get(obj, "site")), SITE);
      assert_string_equal(json_string_value(json_object_get(obj, "charset_source")),
                          "transport");
    }
    assert_string_equal(json_string_value(json_object_get(obj, "method")), "template");
    if (i == 5)
      wn_expect_contains(json_string_value(json_object_get(obj, "text")),
                         "Councillors voted unanimously");
    json_decref(obj);
  }
}

static void test_warc_in_wet_out(void **state) {
  (void)state;
  char warc[PATH_MAX], wet[PATH_MAX], cut[PATH_MAX];
  wn_join(warc, sizeof warc, g_tmp, "site.warc.gz");
  wn_join(wet, sizeof wet, g_tmp, "site.wet.gz");
  wn_join(cut, sizeof cut, g_tmp, "cut.warc.gz");
  wn_make_warc(warc, 1);

  wn_run one, four;
  RUN(&one, NULL, "detect", "--store", g_store, "--no-count", "--threads", "1", "--warc", warc);
  RUN(&four, NULL, "detect", "--store", g_store, "--no-count", "--threads", "4", "--warc", warc);
  assert_int_equal(one.status, 0);
  assert_int_equal(four.status, 0);
  assert_int_equal(one.out_len, four.out_len);
  assert_memory_equal(one.out, four.out, one.out_len);
  wn_expect_contains(one.err, "6 HTML pages (6 detected, 0 with no content, 0 failed)");
  wn_expect_contains(one.err, "1 (not HTML)");
  wn_expect_warc_lines(&one, 1);
  wn_run_free(&one);
  wn_run_free(&four);

  /* --learn, every site new: the window's pages are held in the hold's
   * blocks (hold.c), not malloc'd; each comes back whole, in order, and
   * the site is learned from them. */
  char fresh1[PATH_MAX], fresh4[PATH_MAX];
  wn_join(fresh1, sizeof fresh1, g_tmp, "warc-learn-1");
  wn_join(fresh4, sizeof fresh4, g_tmp, "warc-learn-4");
  RUN(&one, NULL, "detect", "--store", fresh1, "--learn", "--no-count", "--threads", "1",
      "--warc", warc);
  RUN(&four, NULL, "detect", "--store", fresh4, "--learn", "--no-count", "--threads", "4",
      "--warc", warc);
  assert_int_equal(one.status, 0);
  assert_int_equal(four.status, 0);
  assert_int_equal(one.out_len, four.out_len);
  assert_memory_equal(one.out, four.out, one.out_len);
  wn_expect_contains(one.err, "1 site(s) learned");
  wn_expect_warc_lines(&one, 0);
  wn_run_free(&one);
  wn_run_free(&four);

  /* WET out, read back: one conversion record per page, in order, each
   * with its text and a digest. */
  RUN(&one, NULL, "detect", "--store", g_store, "--no-count", "--warc", warc, "--warc-out", wet);
  assert_int_equal(one.status, 0);
  assert_int_equal(one.out_len, 0);
  wn_run_free(&one);
  wn_warc_reader_options ro;
  wn_warc_reader_options_init(&ro);
  ro.every_record = 1;
  wn_warc_reader *r = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_warc_reader_open(wet, &ro, &r, &diag), WN_OK);
  wn_warc_page p;
  size_t conversions = 0;
  wn_err got;
  while ((got = wn_warc_next(r, &p, &diag)) == WN_OK) {
    if (strcmp(p.warc_type, "conversion") != 0)
      continue;
    conversions++;
    char uri[256];
    snprintf(uri, sizeof uri, "http://" SITE "/news/article-%zu.html", conversions);
    assert_string_equal(p.target_uri, uri);
    assert_non_null(p.block_digest);
    assert_memory_equal(p.block_digest, "sha1:", 5);
    if (conversions == 6) {
      assert_true(p.payload_len > 100);
      assert_non_null(strstr(p.payload, "Councillors voted unanimously"));
      assert_null(strstr(p.payload, "Youth rowers take regional title"));
    }
  }
  assert_int_equal(got, WN_ENOTFOUND);
  assert_int_equal(conversions, 6);
  wn_warc_stats st;
  wn_warc_reader_stats_get(r, &st);
  assert_int_equal(st.damaged, 0);
  wn_warc_reader_close(r);

  /* A file cut in the middle of its last records. */
  size_t len = 0;
  char *bytes = wn_test_slurp(warc, &len);
  wn_test_write(cut, bytes, len - len / 5);
  free(bytes);
  RUN(&one, NULL, "detect", "--store", g_store, "--no-count", "--warc", cut);
  assert_int_equal(one.status, 1);
  char *lines[16];
  size_t n = wn_lines(one.out, one.out_len, lines, 16);
  assert_true(n >= 3 && n < 6);
  wn_expect_contains(one.err, "damaged");
  wn_run_free(&one);
  /* A file that is not there: said, exit 1; usage errors are 2. */
  RUN(&one, NULL, "detect", "--warc", "/nonexistent/x.warc.gz");
  assert_int_equal(one.status, 1);
  wn_run_free(&one);
  RUN(&one, NULL, "detect", "--warc", warc, "--site", SITE);
  assert_int_equal(one.status, 2);
  wn_run_free(&one);
  RUN(&one, NULL, "detect", "--warc-out", wet, PAGE(1));
  assert_int_equal(one.status, 2);
  wn_run_free(&one);
}

/* The same URLs as WARC-Target-URIs, and one whose host is not UTF-8:
 * every record's page is detected. */
static void test_warc_crawl_urls(void **state) {
  (void)state;
  const size_t n = sizeof g_crawl_urls / sizeof g_crawl_urls[0];
  char warc[PATH_MAX];
  wn_join(warc, sizeof warc, g_tmp, "crawl-urls.warc.gz");
  size_t len = 0;
  char *html = wn_test_slurp(PAGE(6), &len);
  wn_warc_writer *w = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_warc_writer_open(warc, NULL, &w, &diag), WN_OK);
  for (size_t i = 0; i <= n; i++) {
    wn_buf http;
    wn_buf_init(&http, 0);
    assert_int_equal(wn_buf_printf(&http, "HTTP/1.1 200 OK\r\nContent-Type: text/html; "
                                          "charset=utf-8\r\nContent-Length: %zu\r\n\r\n", len),
                     WN_OK);
    assert_int_equal(wn_buf_append(&http, html, len), WN_OK);
    wn_warc_record rec = {.type = "response",
                          .target_uri = i < n ? g_crawl_urls[i].url : "http://caf\xe9.example/",
                          .content_type = "application/http; msgtype=response",
                          .block = http.data, .block_len = http.len};
    char id[WN_WARC_ID_SIZE];
    assert_int_equal(wn_warc_write_record(w, &rec, id, &diag), WN_OK);
    wn_buf_free(&http);
  }
  assert_int_equal(wn_warc_writer_close(w, &diag), WN_OK);
  free(html);
  wn_run r;
  RUN(&r, NULL, "detect", "--store", g_store, "--no-count", "--warc", warc);
  assert_int_equal(r.status, 0);
  char expect[128];
  snprintf(expect, sizeof expect, "%zu HTML pages (%zu detected, 0 with no content, 0 failed)", n + 1, n + 1);
  wn_expect_contains(r.err, expect);
  char *lines[16];
  assert_int_equal(wn_lines(r.out, r.out_len, lines, 16), n + 1);
  for (size_t i = 0; i < n; i++)
    wn_expect_crawl_line(lines[i], i);
  /* Latin-1 in the host: no site, and a "site_error" that is valid JSON
   * all the same (the byte written '?'). */
  json_t *obj = wn_parse_line(lines[n]);
  assert_null(json_object_get(obj, "error"));
  assert_true(json_is_null(json_object_get(obj, "site")));
  wn_expect_contains(json_string_value(json_object_get(obj, "site_error")), "caf?.example");
  wn_expect_contains(json_string_value(json_object_get(obj, "text")),
                     "Councillors voted unanimously");
  json_decref(obj);
  wn_run_free(&r);
  unlink(warc);
}

/* ---- --learn ------------------------------------------------------------------ */

#define LSITE "learn.harbour.example"
#define LBLOG "learn.blog.example"

/* The interleaved stream of two sites without a template and one page of
 * a third: which page each line is. */
static const char *const wn_learn_order[] = {"N1", "B1", "N2", "L1", "B2", "N3", "B3",
                                             "N4", "B4", "N5", "B5", "N6", "N7"};
#define WN_LEARN_LINES (sizeof wn_learn_order / sizeof *wn_learn_order)

static void wn_learn_input(const char *path) {
  wn_buf in;
  wn_buf_init(&in, 0);
  for (size_t i = 0; i < WN_LEARN_LINES; i++) {
    const char *w = wn_learn_order[i];
    char file[PATH_MAX], url[256];
    int n = w[1] - '0';
    if (w[0] == 'N') {
      snprintf(file, sizeof file, WN_FIXTURES "/site/article-%d.html", n);
      snprintf(url, sizeof url, "https://" LSITE "/news/story-%d.html", n);
    } else if (w[0] == 'B') {
      snprintf(file, sizeof file, WN_FIXTURES "/places-blog/post-%d.html", n);
      snprintf(url, sizeof url, "https://" LBLOG "/2024/post-%d/", n);
    } else {
      snprintf(file, sizeof file, WN_FIXTURES "/places-blog/post-%d.html", n);
      snprintf(url, sizeof url, "https://lonely.example/post-%d/", n);
    }
    wn_append_json(&in, json_pack("{s:s, s:s, s:s}", "id", w, "url", url, "path", file));
  }
  wn_test_write(path, in.data, in.len);
  wn_buf_free(&in);
}

/* Sites of a stream learned from their own pages: every page of a learned
 * site, the ones before its sample was complete included, is detected with
 * its template; a site of one page gets the single-page method; two
 * threads write the bytes one thread writes; the store keeps the
 * templates, so the next run learns nothing. */
static void test_learn_from_stream(void **state) {
  (void)state;
  char in_path[PATH_MAX], store1[PATH_MAX], store2[PATH_MAX];
  wn_join(in_path, sizeof in_path, g_tmp, "learn.jsonl");
  wn_join(store1, sizeof store1, g_tmp, "learn-store-1");
  wn_join(store2, sizeof store2, g_tmp, "learn-store-2");
  wn_learn_input(in_path);

  wn_run one, two, again;
  RUN(&one, NULL, "detect", "--store", store1, "--learn", "--no-count", "--jsonl", "--threads", "1",
      in_path);
  RUN(&two, NULL, "detect", "--store", store2, "--learn", "--no-count", "--jsonl", "--threads", "2",
      in_path);
  if (one.status != 0)
    fail_msg("detect --learn: %d: %s", one.status, one.err);
  assert_int_equal(two.status, 0);
  assert_int_equal(one.out_len, two.out_len);
  assert_memory_equal(one.out, two.out, one.out_len);
  wn_expect_contains(one.err, "learning: 2 site(s) learned from 10 of their pages");
  wn_expect_contains(one.err, "serving 12 page(s); 1 page(s) of sites without enough pages");
  char *one_out = malloc(one.out_len + 1);
  assert_non_null(one_out);
  memcpy(one_out, one.out, one.out_len + 1);

  char *lines[WN_LEARN_LINES + 1];
  assert_int_equal(wn_lines(one.out, one.out_len, lines, WN_LEARN_LINES + 1), WN_LEARN_LINES);
  for (size_t i = 0; i < WN_LEARN_LINES; i++) {
    json_t *obj = wn_parse_line(lines[i]);
    assert_string_equal(json_string_value(json_object_get(obj, "id")), wn_learn_order[i]);
    const char *method = json_string_value(json_object_get(obj, "method"));
    const char *text = json_string_value(json_object_get(obj, "text"));
    if (wn_learn_order[i][0] == 'L') {
      assert_string_equal(method, "danag");
      assert_string_equal(json_string_value(json_object_get(obj, "fallback")), "no template");
    } else {
      assert_string_equal(method, "template");
      assert_non_null(text);
    }
    /* The template keeps the news site's menu out of its first page too. */
    if (strcmp(wn_learn_order[i], "N6") == 0) {
      wn_expect_contains(text, "Councillors voted unanimously");
      assert_null(strstr(text, "Youth rowers take regional title"));
    }
    json_decref(obj);
  }

  /* Learned pages were detected from the trees learning parsed: the same
   * bytes as a run that parses every page, with the stored templates. */
  RUN(&again, NULL, "detect", "--store", store1, "--learn", "--no-count", "--jsonl", "--threads",
      "1", in_path);
  assert_int_equal(again.status, 0);
  wn_expect_contains(again.err, "learning: 0 site(s) learned");
  wn_expect_contains(again.err, "serving 0 page(s); 1 page(s)");
  assert_int_equal(again.out_len, one.out_len);
  assert_memory_equal(again.out, one_out, one.out_len);
  free(one_out);
  wn_run_free(&one);
  wn_run_free(&two);
  wn_run_free(&again);
}

/* --learn's usage errors, said before any work. */
static void test_learn_usage(void **state) {
  (void)state;
  wn_run r;
  RUN(&r, NULL, "detect", "--learn", "--jsonl", "-");
  assert_int_equal(r.status, 2);
  wn_expect_contains(r.err, "--learn needs --store");
  wn_run_free(&r);
  RUN(&r, NULL, "detect", "--store", g_store, "--learn", "--site", SITE, PAGE(1));
  assert_int_equal(r.status, 2);
  wn_expect_contains(r.err, "--learn learns from many pages");
  wn_run_free(&r);
  RUN(&r, NULL, "detect", "--store", g_store, "--learn-pages", "4", "--jsonl", "-");
  assert_int_equal(r.status, 2);
  wn_expect_contains(r.err, "are for --learn");
  wn_run_free(&r);
  RUN(&r, NULL, "detect", "--store", g_store, "--learn", "--learn-pages", "1", "--jsonl", "-");
  assert_int_equal(r.status, 2);
  wn_expect_contains(r.err, "--learn-pages is a number from 2");
  wn_run_free(&r);
}

/* Peak resident memory of a run, from wait4. */
static long wn_run_maxrss_kb(const char *stdin_path, const char *tag, const char *const *args,
                             int *status) {
  const char *argv[64];
  wn_build_argv(argv, args);
  char out_path[PATH_MAX], err_path[PATH_MAX], name[64];
  snprintf(name, sizeof name, "%s.out", tag);
  wn_join(out_path, sizeof out_path, g_tmp, name);
  snprintf(name, sizeof name, "%s.err", tag);
  wn_join(err_path, sizeof err_path, g_tmp, name);
  pid_t pid = wn_test_spawn(argv, stdin_path, out_path, err_path, 120);
  int st = 0;
  struct rusage ru;
  assert_int_equal(wait4(pid, &st, 0, &ru), pid);
  *status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  unlink(out_path);
  unlink(err_path);
  return ru.ru_maxrss;
}

/* The read-ahead bound: a stream of 48 MB (one page of the learned site
 * among large pages of sites seen once) read with --learn-memory 1 holds
 * about 1 MiB at once, where reading it all ahead would take the whole
 * stream; the site's pages read before its sample was complete are
 * detected before it is learned, the later ones with its template. */
static void test_learn_memory_bound(void **state) {
  (void)state;
  char in_path[PATH_MAX], store[PATH_MAX];
  wn_join(in_path, sizeof in_path, g_tmp, "learn-big.jsonl");
  wn_join(store, sizeof store, g_tmp, "learn-store-big");
  const size_t n_big = 120, big = 400 * 1024;
  char *page = wn_sized_page(0, big);
  FILE *f = fopen(in_path, "wb");
  assert_non_null(f);
  int article = 1;
  for (size_t i = 0; i < n_big; i++) {
    wn_buf line;
    wn_buf_init(&line, 0);
    if (i % 3 == 0 && article <= 7) {
      char file[PATH_MAX], url[256];
      snprintf(file, sizeof file, WN_FIXTURES "/site/article-%d.html", article);
      snprintf(url, sizeof url, "https://" LSITE "/news/story-%d.html", article);
      article++;
      wn_append_json(&line, json_pack("{s:s, s:s, s:s}", "id", "news", "url", url, "path", file));
    }
    char url[64];
    snprintf(url, sizeof url, "https://big%zu.example/", i);
    wn_append_json(&line, json_pack("{s:s, s:s, s:s}", "id", "big", "url", url, "html", page));
    assert_int_equal(fwrite(line.data, 1, line.len, f), line.len);
    wn_buf_free(&line);
  }
  assert_int_equal(fclose(f), 0);
  free(page);

  int status = -1;
  long bounded = wn_run_maxrss_kb(NULL, "learn-bound",
                                  (const char *const[]){"detect", "--store", store, "--learn",
                                                        "--learn-memory", "1", "--no-count",
                                                        "--threads", "1", "--jsonl", in_path, NULL},
                                  &status);
  assert_int_equal(status, 0);
  wn_test_remove_tree(store);
  long all = wn_run_maxrss_kb(NULL, "learn-all",
                              (const char *const[]){"detect", "--store", store, "--learn",
                                                    "--no-count", "--threads", "1", "--jsonl",
                                                    in_path, NULL},
                              &status);
  assert_int_equal(status, 0);
  /* 48 MB of input: read all ahead, it is held (as lines and as pages);
   * bounded, a few MiB over the program's own. The difference, not a
   * ratio: a sanitizer's quarantine of freed blocks raises both. */
  if (!(all > 48 * 1024 && all - bounded > 24 * 1024))
    fail_msg("peak memory: %ld KiB bounded, %ld KiB reading all ahead", bounded, all);

  wn_test_remove_tree(store);
  wn_run r;
  RUN(&r, NULL, "detect", "--store", store, "--learn", "--learn-memory", "1", "--no-count",
      "--threads", "1", "--jsonl", in_path);
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.err, "learning: 1 site(s) learned");
  size_t n_lines = n_big + 7;
  char **lines = calloc(n_lines + 1, sizeof *lines);
  assert_non_null(lines);
  assert_int_equal(wn_lines(r.out, r.out_len, lines, n_lines + 1), n_lines);
  int seen = 0, first_template = 0;
  for (size_t i = 0; i < n_lines; i++) {
    json_t *obj = wn_parse_line(lines[i]);
    if (strcmp(json_string_value(json_object_get(obj, "id")), "news") == 0) {
      seen++;
      const char *method = json_string_value(json_object_get(obj, "method"));
      if (strcmp(method, "template") == 0 && !first_template)
        first_template = seen;
      if (first_template)
        assert_string_equal(method, "template");
    }
    json_decref(obj);
  }
  assert_int_equal(seen, 7);
  /* The sample (5 pages) is complete at the fifth news page; about 1 MiB
   * is read ahead (three lines), so the pages before it were written
   * before the site was learned. */
  assert_true(first_template > 1 && first_template <= 5);
  free(lines);
  wn_run_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_threads_keep_order),
      cmocka_unit_test(test_window_bounds_reading),
      cmocka_unit_test(test_two_processes_count_into_one_store),
      cmocka_unit_test(test_directories_and_output_dir),
      cmocka_unit_test(test_input_list),
      cmocka_unit_test(test_jsonl_content_type),
      cmocka_unit_test(test_jsonl_crawl_urls),
      cmocka_unit_test(test_warc_in_wet_out),
      cmocka_unit_test(test_warc_crawl_urls),
      cmocka_unit_test(test_learn_from_stream),
      cmocka_unit_test(test_learn_usage),
      cmocka_unit_test(test_learn_memory_bound),
  };
  return cmocka_run_group_tests(tests, wn_group_setup, wn_group_teardown);
}
