/* util/buf.c: the bounded growable buffer, file reading and hashing. */
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void wn_buf_init(wn_buf *buf, size_t cap) {
  buf->data = NULL;
  buf->len = 0;
  buf->alloc = 0;
  buf->cap = cap ? cap : SIZE_MAX / 2;
}

void wn_buf_free(wn_buf *buf) {
  if (!buf)
    return;
  free(buf->data);
  buf->data = NULL;
  buf->len = buf->alloc = 0;
}

void wn_buf_reset(wn_buf *buf) {
  buf->len = 0;
  if (buf->data)
    buf->data[0] = '\0';
}

/* Room for need bytes in all (the NUL included), growing by doubling. */
static wn_err wn_buf_grow(wn_buf *buf, size_t need) {
  if (need <= buf->alloc)
    return WN_OK;
  size_t next = buf->alloc ? buf->alloc : 256;
  while (next < need)
    next = next > SIZE_MAX / 2 ? need : next * 2;
  char *grown = realloc(buf->data, next);
  if (!grown)
    return WN_ENOMEM;
  buf->data = grown;
  buf->alloc = next;
  return WN_OK;
}

wn_err wn_buf_reserve(wn_buf *buf, size_t len) {
  if (buf->len >= buf->cap)
    return WN_OK;
  if (len > buf->cap - buf->len)
    len = buf->cap - buf->len; /* the cap refuses the rest when it comes */
  if (buf->len + len + 1 <= buf->alloc)
    return WN_OK;
  char *grown = realloc(buf->data, buf->len + len + 1);
  if (!grown)
    return WN_ENOMEM;
  buf->data = grown;
  buf->alloc = buf->len + len + 1;
  buf->data[buf->len] = '\0'; /* a buffer's data is always a string */
  return WN_OK;
}

wn_err wn_buf_append(wn_buf *buf, const void *data, size_t len) {
  if (len > buf->cap || buf->len > buf->cap - len)
    return WN_ETOOBIG;
  wn_err err = wn_buf_grow(buf, buf->len + len + 1);
  if (err)
    return err;
  if (len)
    memcpy(buf->data + buf->len, data, len);
  buf->len += len;
  buf->data[buf->len] = '\0';
  return WN_OK;
}

wn_err wn_buf_append_str(wn_buf *buf, const char *s) { return wn_buf_append(buf, s, strlen(s)); }

wn_err wn_buf_append_char(wn_buf *buf, char c) { return wn_buf_append(buf, &c, 1); }

wn_err wn_buf_printf(wn_buf *buf, const char *fmt, ...) {
  char small[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0)
    return WN_EINVAL;
  if ((size_t)n < sizeof small)
    return wn_buf_append(buf, small, (size_t)n);
  char *big = malloc((size_t)n + 1);
  if (!big)
    return WN_ENOMEM;
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  wn_err err = wn_buf_append(buf, big, (size_t)n);
  free(big);
  return err;
}

char *wn_buf_take(wn_buf *buf, size_t *len) {
  char *data = buf->data;
  if (len)
    *len = buf->len;
  if (!data) {
    data = malloc(1);
    if (data)
      data[0] = '\0';
  }
  buf->data = NULL;
  buf->len = buf->alloc = 0;
  return data;
}

/* A regular file of size bytes (by fstat) into buf with read(2): room for
 * all of it at once, then reads until the end (a file that grew since is
 * read whole, up to buf's cap). */
static wn_err wn_file_read_fd(int fd, const char *path, size_t size, wn_buf *buf, wn_diag *diag) {
  if (size > buf->cap)
    return wn_diag_set(diag, WN_ETOOBIG, "%s is larger than the cap of %zu bytes", path,
                       buf->cap);
  /* One byte more than the size: the read that finds the end needs room. */
  wn_err err = wn_buf_reserve(buf, size + 1);
  if (err)
    return err;
  for (;;) {
    char *at;
    size_t room;
    char extra;
    if (buf->len >= buf->cap) {
      at = &extra; /* at the cap: only the end of the file may come */
      room = 1;
    } else {
      if (buf->len + 1 >= buf->alloc && (err = wn_buf_reserve(buf, buf->alloc)) != WN_OK)
        return err;
      at = buf->data + buf->len;
      room = buf->alloc - 1 - buf->len;
      if (room > buf->cap - buf->len)
        room = buf->cap - buf->len;
    }
    ssize_t n = read(fd, at, room);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return wn_diag_set(diag, WN_EIO, "cannot read %s: %s", path, strerror(errno));
    if (n == 0)
      break;
    if (at == &extra)
      return wn_diag_set(diag, WN_ETOOBIG, "%s is larger than the cap of %zu bytes", path,
                         buf->cap);
    buf->len += (size_t)n;
  }
  buf->data[buf->len] = '\0';
  return WN_OK;
}

wn_err wn_file_read(const char *path, size_t max_bytes, char **out, size_t *out_len,
                    wn_diag *diag) {
  wn_err err = WN_OK;
  FILE *f = NULL;
  wn_buf buf;
  wn_buf_init(&buf, max_bytes);
  *out = NULL;
  *out_len = 0;
  int is_stdin = strcmp(path, "-") == 0;
  if (!is_stdin) {
    /* A regular file: its size is known, so one allocation and read(2)
     * straight into it (no stdio buffer, no copy, no regrowing). */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      err = wn_diag_set(diag, errno == ENOENT ? WN_ENOTFOUND : WN_EIO, "cannot open %s: %s",
                        path, strerror(errno));
      goto out;
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
      err = wn_file_read_fd(fd, path, (size_t)st.st_size, &buf, diag);
      close(fd);
      if (err)
        goto out;
      goto done;
    }
    f = fdopen(fd, "rb");
    if (!f) {
      err = wn_diag_set(diag, WN_EIO, "cannot open %s: %s", path, strerror(errno));
      close(fd);
      goto out;
    }
  } else {
    f = stdin;
  }
  char chunk[65536];
  for (;;) {
    size_t n = fread(chunk, 1, sizeof chunk, f);
    if (n > 0) {
      err = wn_buf_append(&buf, chunk, n);
      if (err == WN_ETOOBIG) {
        wn_diag_set(diag, err, "%s is larger than the cap of %zu bytes", path, max_bytes);
        goto out;
      }
      if (err)
        goto out;
    }
    if (n < sizeof chunk) {
      if (ferror(f)) {
        err = wn_diag_set(diag, WN_EIO, "cannot read %s: %s", path, strerror(errno));
        goto out;
      }
      break;
    }
  }
done:
  *out = wn_buf_take(&buf, out_len);
  if (!*out)
    err = WN_ENOMEM;
out:
  if (f && !is_stdin)
    fclose(f);
  wn_buf_free(&buf);
  return err;
}

int wn_u32_cmp(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

char *wn_strdup(const char *s) {
  if (!s)
    return NULL;
  size_t n = strlen(s);
  char *d = malloc(n + 1);
  if (d)
    memcpy(d, s, n + 1);
  return d;
}

uint64_t wn_hash_bytes(uint64_t seed, const void *data, size_t len) {
  const unsigned char *p = data;
  uint64_t h = seed;
  for (size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}
