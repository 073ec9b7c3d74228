/* tests/util/test_util.c: the lowest module's helpers, table by table:
 * number parsing, ASCII case, hex digits, the little-endian and varint
 * codecs (every truncation), the bounded buffer, the arena and its cap. */
#include "wn_test.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/util.h"
#include "wn_run.h"

static void test_parse_u32(void **state) {
  (void)state;
  static const struct {
    const char *s;
    uint32_t min, max;
    int ok;
    uint32_t want;
  } cases[] = {
      {"0", 0, 10, 1, 0},          {"10", 0, 10, 1, 10},        {"11", 0, 10, 0, 0},
      {"4294967295", 0, UINT32_MAX, 1, UINT32_MAX},           {"4294967296", 0, UINT32_MAX, 0, 0},
      {"99999999999999999999", 0, UINT32_MAX, 0, 0},          {"", 0, 10, 0, 0},
      {" 1", 0, 10, 0, 0},         {"1 ", 0, 10, 0, 0},         {"+1", 0, 10, 0, 0},
      {"-1", 0, 10, 0, 0},         {"1x", 0, 10, 0, 0},         {"0x10", 0, 100, 0, 0},
      {"007", 0, 10, 1, 7},        {"1", 2, 10, 0, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    uint32_t v = 12345;
    int rc = wn_parse_u32(cases[i].s, cases[i].min, cases[i].max, &v);
    if ((rc == 0) != cases[i].ok || (cases[i].ok && v != cases[i].want) ||
        (!cases[i].ok && v != 12345))
      fail_msg("\"%s\" [%u, %u]: rc %d, value %u", cases[i].s, cases[i].min, cases[i].max, rc, v);
  }
  uint32_t v = 0;
  assert_int_equal(wn_parse_u32(NULL, 0, 10, &v), -1);
}

static void test_ascii(void **state) {
  (void)state;
  static const struct {
    const char *s, *lit;
    int equal;
  } cases[] = {
      {"Content-Type", "content-type", 1}, {"UTF-8", "utf-8", 1}, {"utf-8", "UTF-8", 1},
      {"utf-8x", "utf-8", 0},             {"utf", "utf-8", 0},    {"", "", 1},
      {"\xc3\x89", "\xc3\xa9", 0},        /* É is not é to an ASCII compare */
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    if (wn_ascii_equal_ci(cases[i].s, strlen(cases[i].s), cases[i].lit) != cases[i].equal)
      fail_msg("\"%s\" vs \"%s\"", cases[i].s, cases[i].lit);
  assert_int_equal(wn_ascii_lower('Q'), 'q');
  assert_int_equal(wn_ascii_lower('['), '[');
  assert_int_equal(wn_hex_digit('0'), 0);
  assert_int_equal(wn_hex_digit('f'), 15);
  assert_int_equal(wn_hex_digit('F'), 15);
  assert_int_equal(wn_hex_digit('g'), -1);
  char *d = wn_strdup("copy");
  assert_string_equal(d, "copy");
  free(d);
  assert_null(wn_strdup(NULL));
  uint32_t u[] = {3, 1, UINT32_MAX, 0, 2};
  qsort(u, 5, sizeof *u, wn_u32_cmp);
  assert_true(u[0] == 0 && u[1] == 1 && u[2] == 2 && u[3] == 3 && u[4] == UINT32_MAX);
}

/* Every value round-trips; every truncation of its bytes is refused. */
static void test_codecs(void **state) {
  (void)state;
  static const uint32_t v32[] = {0, 1, 127, 128, 16383, 16384, 0x0fffffffu, UINT32_MAX};
  for (size_t i = 0; i < sizeof v32 / sizeof *v32; i++) {
    wn_buf b;
    wn_buf_init(&b, 0);
    assert_int_equal(wn_varint_put(&b, v32[i]), WN_OK);
    assert_true(b.len >= 1 && b.len <= 5);
    for (size_t cut = 0; cut <= b.len; cut++) {
      wn_reader r = {(const unsigned char *)b.data, cut};
      uint32_t got = 0;
      int ok = wn_varint_get(&r, &got);
      if (cut < b.len)
        assert_int_equal(ok, 0);
      else
        assert_true(ok == 1 && got == v32[i] && r.left == 0);
    }
    wn_buf_reset(&b);
    assert_int_equal(wn_le32_put(&b, v32[i]), WN_OK);
    assert_int_equal(b.len, 4);
    assert_int_equal(wn_le32_get((const unsigned char *)b.data), v32[i]);
    wn_buf_free(&b);
  }
  /* A sixth varint byte, or a fifth past 32 bits, is malformed. */
  const unsigned char too_long[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
  wn_reader r = {too_long, sizeof too_long};
  uint32_t got;
  assert_int_equal(wn_varint_get(&r, &got), 0);
  const unsigned char too_big[] = {0xff, 0xff, 0xff, 0xff, 0x7f};
  r = (wn_reader){too_big, sizeof too_big};
  assert_int_equal(wn_varint_get(&r, &got), 0);

  static const uint64_t v64[] = {0, 1, UINT64_C(0x0102030405060708), UINT64_MAX};
  for (size_t i = 0; i < sizeof v64 / sizeof *v64; i++) {
    unsigned char p[8];
    wn_le64_write(p, v64[i]);
    assert_true(wn_le64_get(p) == v64[i]);
  }
  unsigned char p[8];
  wn_le64_write(p, UINT64_C(0x0102030405060708));
  assert_int_equal(p[0], 0x08); /* little-endian on every host */
  assert_int_equal(p[7], 0x01);
  assert_true(wn_i64_from_u64(UINT64_MAX) == -1);
  assert_true(wn_i64_from_u64(UINT64_C(1) << 63) == INT64_MIN);
  assert_true(wn_i64_from_u64(42) == 42);

  const unsigned char rec[] = {1, 2, 3};
  r = (wn_reader){rec, 3};
  const unsigned char *at = NULL;
  assert_int_equal(wn_reader_take(&r, 2, &at), 1);
  assert_true(at == rec && r.left == 1);
  assert_int_equal(wn_reader_take(&r, 2, &at), 0);
}

static void test_buf_cap(void **state) {
  (void)state;
  wn_buf b;
  wn_buf_init(&b, 8);
  assert_int_equal(wn_buf_append_str(&b, "12345678"), WN_OK);
  assert_int_equal(wn_buf_append_char(&b, '9'), WN_ETOOBIG);
  assert_int_equal(b.len, 8); /* unchanged by the refused append */
  wn_buf_reset(&b);
  assert_int_equal(b.len, 0);
  assert_int_equal(wn_buf_printf(&b, "%d-%s", 42, "x"), WN_OK);
  assert_memory_equal(b.data, "42-x", 4);
  wn_buf_free(&b);
}

/* wn_buf_reserve: one allocation for what is announced, the cap kept. */
static void test_buf_reserve(void **state) {
  (void)state;
  wn_buf b;
  wn_buf_init(&b, 100);
  assert_int_equal(wn_buf_reserve(&b, 50), WN_OK);
  assert_true(b.alloc >= 51);
  assert_string_equal(b.data, ""); /* still a string, empty */
  char *before = b.data;
  for (int i = 0; i < 50; i++)
    assert_int_equal(wn_buf_append_char(&b, 'x'), WN_OK);
  assert_ptr_equal(b.data, before); /* no reallocation */
  assert_int_equal(wn_buf_reserve(&b, 1000), WN_OK); /* past the cap: up to it */
  assert_true(b.alloc <= 101);
  assert_int_equal(wn_buf_append(&b, "0123456789012345678901234567890123456789012345678901", 51),
                   WN_ETOOBIG);
  wn_buf_free(&b);
}

typedef struct {
  const char *path;
  size_t len;
} wn_fifo_job;

static void *wn_fifo_writer(void *arg) {
  const wn_fifo_job *job = arg;
  int fd = open(job->path, O_WRONLY);
  for (size_t i = 0; fd >= 0 && i < job->len; i++)
    if (write(fd, "f", 1) != 1)
      break;
  if (fd >= 0)
    close(fd);
  return NULL;
}

/* wn_file_read: a regular file is read whole at its size, at the cap and
 * not past it; an empty file is ""; a pipe (no size ahead) the same way;
 * a missing file says so. */
static void test_file_read(void **state) {
  (void)state;
  char dir[] = "/tmp/wn-test-read-XXXXXX";
  assert_non_null(mkdtemp(dir));
  char path[256];
  snprintf(path, sizeof path, "%s/page", dir);
  char *bytes = NULL;
  size_t len = 0;
  wn_diag diag;
  const size_t sizes[] = {0, 1, 4095, 4096, 70000, 200000};
  for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    char *want = malloc(sizes[k] + 1);
    assert_non_null(want);
    for (size_t i = 0; i < sizes[k]; i++)
      want[i] = (char)('a' + i % 23);
    wn_test_write(path, want, sizes[k]);
    assert_int_equal(wn_file_read(path, sizes[k] ? sizes[k] : 1, &bytes, &len, NULL), WN_OK);
    assert_int_equal(len, sizes[k]);
    assert_memory_equal(bytes, want, sizes[k]);
    assert_int_equal(bytes[len], '\0');
    wn_free(bytes);
    if (sizes[k] > 1) { /* (a cap of 0 is no cap) */
      wn_diag_clear(&diag);
      assert_int_equal(wn_file_read(path, sizes[k] - 1, &bytes, &len, &diag), WN_ETOOBIG);
      assert_null(bytes);
      assert_non_null(strstr(wn_diag_message(&diag, WN_ETOOBIG), "larger than the cap"));
    }
    free(want);
  }
  snprintf(path, sizeof path, "%s/fifo", dir);
  assert_int_equal(mkfifo(path, 0600), 0);
  for (int over = 0; over < 2; over++) {
    wn_fifo_job job = {path, 100000};
    pthread_t writer;
    assert_int_equal(pthread_create(&writer, NULL, wn_fifo_writer, &job), 0);
    wn_err err = wn_file_read(path, over ? 99999 : 100000, &bytes, &len, NULL);
    pthread_join(writer, NULL);
    assert_int_equal(err, over ? WN_ETOOBIG : WN_OK);
    if (!over) {
      assert_int_equal(len, 100000);
      assert_int_equal(bytes[99999], 'f');
      wn_free(bytes);
    }
  }
  unlink(path);
  snprintf(path, sizeof path, "%s/missing", dir);
  assert_int_equal(wn_file_read(path, 10, &bytes, &len, NULL), WN_ENOTFOUND);
  snprintf(path, sizeof path, "%s/page", dir);
  unlink(path);
  rmdir(dir);
}

static void test_arena(void **state) {
  (void)state;
  wn_arena *a = wn_arena_create(1024);
  assert_non_null(a);
  void *p = wn_arena_alloc(a, 3);
  void *q = wn_arena_alloc(a, 5);
  assert_non_null(p);
  assert_non_null(q);
  assert_int_equal((uintptr_t)q % 16, 0);
  unsigned char *z = wn_arena_calloc(a, 10, 4);
  for (size_t i = 0; i < 40; i++)
    assert_int_equal(z[i], 0);
  char *s = wn_arena_strndup(a, "abcdef", 3);
  assert_string_equal(s, "abc");
  assert_true(wn_arena_used(a) >= 3 + 5 + 40 + 4);
  assert_null(wn_arena_alloc(a, 2048)); /* past the cap */
  assert_null(wn_arena_calloc(a, SIZE_MAX / 2, 4)); /* the product overflows */
  wn_arena_destroy(a);
  assert_true(wn_hash_bytes(WN_HASH_SEED, "a", 1) != wn_hash_bytes(WN_HASH_SEED, "b", 1));
  assert_true(wn_hash_bytes(WN_HASH_SEED, "", 0) == WN_HASH_SEED);
}

/* The readings' scratch stack: arrays aligned and zeroed as asked, a
 * block given back makes room for the next at the same place (no call to
 * the allocator), blocks nest, a block larger than a chunk is served, and
 * a block given back out of order stops the program (in a child). */
static void test_scratch(void **state) {
  (void)state;
  void *a[3];
  unsigned char *outer =
      wn_scratch_arrays(3, (const size_t[]){5, 100 * sizeof(uint64_t), 0}, 0x2u, a);
  assert_non_null(outer);
  assert_ptr_equal(a[0], outer);
  for (int i = 0; i < 3; i++)
    assert_int_equal((uintptr_t)a[i] % 16, 0);
  for (size_t i = 0; i < 100; i++)
    assert_int_equal(((uint64_t *)a[1])[i], 0);
  memset(a[0], 0xAB, 5);
  void *b[1];
  void *inner = wn_scratch_arrays(1, (const size_t[]){4096}, 0u, b);
  assert_non_null(inner);
  assert_true((unsigned char *)inner >= outer + 5 + 800);
  /* Larger than any chunk so far: a chunk of its own on top. */
  void *c[1];
  void *big = wn_scratch_arrays(1, (const size_t[]){(size_t)3 << 20}, 0x1u, c);
  assert_non_null(big);
  assert_int_equal(((unsigned char *)c[0])[((size_t)3 << 20) - 1], 0);
  wn_scratch_release(big);
  wn_scratch_release(inner);
  void *again = wn_scratch_arrays(1, (const size_t[]){64}, 0u, b);
  assert_ptr_equal(again, inner); /* the room given back, reused */
  wn_scratch_release(again);
  assert_int_equal(((unsigned char *)a[0])[4], 0xAB); /* the outer block untouched */
  wn_scratch_release(outer);
  wn_scratch_release(NULL);
  assert_null(wn_scratch_arrays(2, (const size_t[]){SIZE_MAX / 2, SIZE_MAX / 2}, 0u, a));

  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    /* Out of order: the outer block given back while the inner lives. */
    void *x[1];
    void *first = wn_scratch_arrays(1, (const size_t[]){8}, 0u, x);
    void *second = wn_scratch_arrays(1, (const size_t[]){8}, 0u, x);
    (void)second;
    if (freopen("/dev/null", "w", stderr) == NULL)
      _exit(3);
    wn_scratch_release(first);
    _exit(0); /* not reached when the check works */
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  assert_true(WIFSIGNALED(status));
  assert_int_equal(WTERMSIG(status), SIGABRT);
}

/* Each thread has its own stack, freed when the thread ends (under
 * AddressSanitizer a chunk left behind is reported as a leak). */
static void *wn_scratch_thread(void *arg) {
  void *a[1];
  void *block = wn_scratch_arrays(1, (const size_t[]){1000}, 0x1u, a);
  *(int *)arg = block != NULL && ((unsigned char *)a[0])[999] == 0;
  wn_scratch_release(block);
  return NULL;
}

static void test_scratch_threads(void **state) {
  (void)state;
  void *a[1];
  void *mine = wn_scratch_arrays(1, (const size_t[]){16}, 0u, a);
  assert_non_null(mine);
  int ok[2] = {0, 0};
  pthread_t t[2];
  for (int i = 0; i < 2; i++)
    assert_int_equal(pthread_create(&t[i], NULL, wn_scratch_thread, &ok[i]), 0);
  for (int i = 0; i < 2; i++)
    assert_int_equal(pthread_join(t[i], NULL), 0);
  assert_true(ok[0] && ok[1]);
  wn_scratch_release(mine); /* still this thread's top block */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_u32), cmocka_unit_test(test_ascii),
      cmocka_unit_test(test_codecs),    cmocka_unit_test(test_buf_cap),
      cmocka_unit_test(test_arena),     cmocka_unit_test(test_buf_reserve),
      cmocka_unit_test(test_file_read), cmocka_unit_test(test_scratch),
      cmocka_unit_test(test_scratch_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
