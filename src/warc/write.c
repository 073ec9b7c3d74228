/* warc/write.c: writing WARC/1.0 records (ISO 28500:2009), by default the
 * `conversion` records of WET-style files: the text of a page, naming its
 * source record in WARC-Refers-To, as Common Crawl's WET files do.
 *
 * Each record gets a fresh WARC-Record-ID (a random, version 4 UUID as a
 * urn:uuid URI, RFC 9562, 5.4) and a WARC-Block-Digest (SHA-1 from nettle,
 * base32). Compressed files hold one gzip member per record (what readers
 * and CDX indexes expect: a record can be read alone from its offset) or,
 * on request, one member for the whole file. */
#include "warc/warc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include <nettle/sha1.h>

#define WN_WARC_OUT_CHUNK ((size_t)64 * 1024)
#define WN_WARC_HEADER_VALUE_MAX 8192u

struct wn_warc_writer {
  char *path;
  FILE *f;
  int own_file;
  wn_warc_gzip gzip; /* NONE, RECORD or FILE once opened */
  z_stream zs;
  int zs_ready;
  wn_err failed; /* a write failed: the file is incomplete, nothing more is written */
  wn_buf head;
  unsigned char out[WN_WARC_OUT_CHUNK];
};

void wn_warc_digest(const void *block, size_t len, char out[WN_WARC_DIGEST_SIZE]) {
  static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"; /* RFC 4648, 6 */
  struct sha1_ctx ctx;
  uint8_t d[SHA1_DIGEST_SIZE];
  sha1_init(&ctx);
  sha1_update(&ctx, len, block);
  sha1_digest(&ctx, sizeof d, d);
  memcpy(out, "sha1:", 5);
  size_t o = 5;
  /* 20 bytes = 4 groups of 5 bytes = 4 x 8 characters */
  for (size_t g = 0; g < sizeof d; g += 5) {
    uint64_t bits = 0;
    for (size_t k = 0; k < 5; k++)
      bits = bits << 8 | d[g + k];
    for (int k = 7; k >= 0; k--)
      out[o++] = alphabet[(bits >> (5 * k)) & 31];
  }
  out[o] = '\0';
}

void wn_warc_writer_options_init(wn_warc_writer_options *opts) {
  memset(opts, 0, sizeof *opts);
  opts->gzip = WN_WARC_GZIP_AUTO;
  opts->level = 6;
  opts->warcinfo = 1;
}

static wn_err fail(wn_warc_writer *w, wn_diag *diag, wn_err err, const char *what) {
  if (!w->failed)
    w->failed = err;
  return wn_diag_set(diag, err, "%s: %s", w->path, what);
}

static wn_err put_raw(wn_warc_writer *w, const void *data, size_t len, wn_diag *diag) {
  if (len && fwrite(data, 1, len, w->f) != len)
    return fail(w, diag, WN_EIO, strerror(errno));
  return WN_OK;
}

/* Deflates data into the file; flush Z_FINISH ends the member. */
static wn_err put_deflate(wn_warc_writer *w, const void *data, size_t len, int flush,
                          wn_diag *diag) {
  const unsigned char *p = data;
  for (;;) {
    uInt take = len > WN_WARC_OUT_CHUNK * 16 ? (uInt)(WN_WARC_OUT_CHUNK * 16) : (uInt)len;
    w->zs.next_in = (unsigned char *)(uintptr_t)p;
    w->zs.avail_in = take;
    int last = take == len;
    int mode = last ? flush : Z_NO_FLUSH;
    int ret;
    do {
      w->zs.next_out = w->out;
      w->zs.avail_out = (uInt)sizeof w->out;
      ret = deflate(&w->zs, mode);
      if (ret == Z_STREAM_ERROR)
        return fail(w, diag, WN_EINVAL, "zlib: deflate failed");
      wn_err err = put_raw(w, w->out, sizeof w->out - w->zs.avail_out, diag);
      if (err)
        return err;
    } while (w->zs.avail_out == 0 || (mode == Z_FINISH && ret != Z_STREAM_END));
    p += take;
    len -= take;
    if (last)
      return WN_OK;
  }
}

/* One part of a record; end: the record's last part. */
static wn_err put(wn_warc_writer *w, const void *data, size_t len, int end, wn_diag *diag) {
  if (w->gzip == WN_WARC_GZIP_NONE)
    return put_raw(w, data, len, diag);
  return put_deflate(w, data, len, w->gzip == WN_WARC_GZIP_RECORD && end ? Z_FINISH : Z_NO_FLUSH,
                     diag);
}

static wn_err random_bytes(void *buf, size_t len) {
  unsigned char *p = buf;
  while (len) {
    ssize_t got = getrandom(p, len, 0);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break;
    p += got;
    len -= (size_t)got;
  }
  if (!len)
    return WN_OK;
  /* a kernel without getrandom: the device */
  int fd = open("/dev/urandom", O_RDONLY);
  if (fd < 0)
    return WN_EIO;
  while (len) {
    ssize_t got = read(fd, p, len);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break;
    p += got;
    len -= (size_t)got;
  }
  close(fd);
  return len ? WN_EIO : WN_OK;
}

/* "<urn:uuid:...>" of a random version 4 UUID (RFC 9562, 5.4). */
static wn_err record_id(char id[WN_WARC_ID_SIZE]) {
  unsigned char b[16];
  if (random_bytes(b, sizeof b))
    return WN_EIO;
  b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
  b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
  static const char hex[] = "0123456789abcdef";
  size_t o = 0;
  memcpy(id, "<urn:uuid:", 10);
  o = 10;
  for (size_t i = 0; i < 16; i++) {
    if (i == 4 || i == 6 || i == 8 || i == 10)
      id[o++] = '-';
    id[o++] = hex[b[i] >> 4];
    id[o++] = hex[b[i] & 15];
  }
  id[o++] = '>';
  id[o] = '\0';
  return WN_OK;
}

/* A header value must be one line of printable bytes (no CR or LF that
 * would start a field of the caller's making). */
static int value_ok(const char *v) {
  size_t n = 0;
  for (; v[n]; n++) {
    unsigned char c = (unsigned char)v[n];
    if ((c < 0x20 && c != '\t') || c == 0x7f || n >= WN_WARC_HEADER_VALUE_MAX)
      return 0;
  }
  return 1;
}

static wn_err write_record(wn_warc_writer *w, const wn_warc_record *rec, const char *filename,
                           char *id_out, wn_diag *diag) {
  if (w->failed)
    return wn_diag_set(diag, w->failed, "%s: an earlier write failed", w->path);
  if (!rec || !rec->type || !rec->type[0] || (!rec->block && rec->block_len))
    return wn_diag_set(diag, WN_EINVAL, "WARC record: no type or no block");
  const char *fields[] = {rec->type,      rec->target_uri,   rec->date,
                          rec->refers_to, rec->content_type, filename};
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
    if (fields[i] && !value_ok(fields[i]))
      return wn_diag_set(diag, WN_EINVAL,
                         "WARC record: a header value is not one line of "
                         "text (or is longer than %u bytes)",
                         WN_WARC_HEADER_VALUE_MAX);
  char id[WN_WARC_ID_SIZE];
  if (record_id(id))
    return wn_diag_set(diag, WN_EIO, "no random bytes for a record id: %s", strerror(errno));
  char date[32];
  if (!rec->date) {
    time_t now = time(NULL);
    struct tm tm;
    if (!gmtime_r(&now, &tm) || !strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm))
      return wn_diag_set(diag, WN_EINVAL, "the clock cannot be read");
  }
  char digest[WN_WARC_DIGEST_SIZE];
  wn_warc_digest(rec->block ? rec->block : "", rec->block_len, digest);
  /* The fields WARC 1.0 makes mandatory (WARC-Record-ID, Content-Length,
   * WARC-Date, WARC-Type; ISO 28500:2009, 5), then the ones given. */
  wn_buf *h = &w->head;
  wn_buf_reset(h);
  wn_err err = wn_buf_printf(h,
                             "WARC/1.0\r\nWARC-Type: %s\r\nWARC-Record-ID: %s\r\n"
                             "WARC-Date: %s\r\n",
                             rec->type, id, rec->date ? rec->date : date);
  if (!err && filename)
    err = wn_buf_printf(h, "WARC-Filename: %s\r\n", filename);
  if (!err && rec->target_uri)
    err = wn_buf_printf(h, "WARC-Target-URI: %s\r\n", rec->target_uri);
  if (!err && rec->refers_to)
    err = wn_buf_printf(h, "WARC-Refers-To: %s\r\n", rec->refers_to);
  if (!err && rec->content_type)
    err = wn_buf_printf(h, "Content-Type: %s\r\n", rec->content_type);
  if (!err)
    err = wn_buf_printf(h, "WARC-Block-Digest: %s\r\nContent-Length: %zu\r\n\r\n", digest,
                        rec->block_len);
  if (err)
    return wn_diag_set(diag, err, "WARC record header: %s", wn_strerror(err));
  if (w->gzip == WN_WARC_GZIP_RECORD && deflateReset(&w->zs) != Z_OK)
    return fail(w, diag, WN_EINVAL, "zlib: cannot reset deflate");
  if ((err = put(w, h->data, h->len, 0, diag)) ||
      (err = put(w, rec->block, rec->block_len, 0, diag)) || (err = put(w, "\r\n\r\n", 4, 1, diag)))
    return err;
  if (id_out)
    memcpy(id_out, id, sizeof id);
  return WN_OK;
}

wn_err wn_warc_write_record(wn_warc_writer *w, const wn_warc_record *record, char *id,
                            wn_diag *diag) {
  if (!w)
    return wn_diag_set(diag, WN_EINVAL, "wn_warc_write_record: no writer");
  return write_record(w, record, NULL, id, diag);
}

wn_err wn_warc_write_conversion(wn_warc_writer *w, const wn_warc_page *source, const char *text,
                                size_t text_len, wn_diag *diag) {
  if (!w || !source || (!text && text_len))
    return wn_diag_set(diag, WN_EINVAL, "wn_warc_write_conversion: no writer, page or text");
  wn_warc_record rec = {.type = "conversion",
                        .target_uri = source->target_uri,
                        .date = source->date,
                        .refers_to = source->record_id,
                        .content_type = "text/plain",
                        .block = text ? text : "",
                        .block_len = text_len};
  return write_record(w, &rec, NULL, NULL, diag);
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

wn_err wn_warc_writer_open(const char *path, const wn_warc_writer_options *opts,
                           wn_warc_writer **out, wn_diag *diag) {
  *out = NULL;
  if (!path)
    return wn_diag_set(diag, WN_EINVAL, "wn_warc_writer_open: no path");
  wn_warc_writer_options o;
  if (opts)
    o = *opts;
  else
    wn_warc_writer_options_init(&o);
  if (o.level < 1 || o.level > 9 || o.gzip < WN_WARC_GZIP_AUTO || o.gzip > WN_WARC_GZIP_FILE)
    return wn_diag_set(diag, WN_EINVAL, "WARC writer: level 1 to 9 and a known gzip mode");
  wn_err err = WN_OK;
  wn_warc_writer *w = calloc(1, sizeof *w);
  if (!w)
    return wn_diag_set(diag, WN_ENOMEM, "out of memory");
  size_t plen = strlen(path);
  w->path = malloc(plen + 1);
  if (!w->path) {
    err = wn_diag_set(diag, WN_ENOMEM, "out of memory");
    goto out;
  }
  memcpy(w->path, path, plen + 1);
  wn_buf_init(&w->head, 64 * 1024);
  w->gzip = o.gzip != WN_WARC_GZIP_AUTO ? o.gzip
            : ends_with(path, ".gz")    ? WN_WARC_GZIP_RECORD
                                        : WN_WARC_GZIP_NONE;
  if (w->gzip != WN_WARC_GZIP_NONE) {
    /* 15 + 16: a gzip wrapper (RFC 1952) around each member */
    if (deflateInit2(&w->zs, o.level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      err = wn_diag_set(diag, WN_ENOMEM, "zlib: cannot initialise deflate");
      goto out;
    }
    w->zs_ready = 1;
  }
  if (strcmp(path, "-") == 0) {
    w->f = stdout;
  } else {
    w->f = fopen(path, "wb");
    if (!w->f) {
      err = wn_diag_set(diag, WN_EIO, "%s: %s", path, strerror(errno));
      goto out;
    }
    w->own_file = 1;
  }
  if (o.warcinfo) {
    /* warcinfo (ISO 28500:2009, 6): what made the file, as
     * application/warc-fields */
    char fields[512];
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    int n = snprintf(
        fields, sizeof fields,
        "software: %s\r\nformat: WARC File Format 1.0\r\n"
        "conformsTo: http://bibnum.bnf.fr/WARC/WARC_ISO_28500_version1_latestdraft.pdf\r\n",
        o.software ? o.software : "winnow/" WN_VERSION_STRING);
    if (n < 0 || (size_t)n >= sizeof fields) {
      err = wn_diag_set(diag, WN_EINVAL, "WARC writer: software name too long");
      goto out;
    }
    wn_warc_record info = {.type = "warcinfo",
                           .content_type = "application/warc-fields",
                           .block = fields,
                           .block_len = (size_t)n};
    if ((err = write_record(w, &info, strcmp(path, "-") ? base : NULL, NULL, diag)))
      goto out;
  }
  *out = w;
  w = NULL;
out:
  if (w) {
    if (w->own_file && w->f)
      fclose(w->f);
    w->f = NULL;
    if (w->zs_ready)
      deflateEnd(&w->zs);
    wn_buf_free(&w->head);
    free(w->path);
    free(w);
  }
  return err;
}

wn_err wn_warc_writer_close(wn_warc_writer *w, wn_diag *diag) {
  if (!w)
    return WN_OK;
  wn_err err = w->failed;
  if (!err && w->gzip == WN_WARC_GZIP_FILE)
    err = put_deflate(w, "", 0, Z_FINISH, diag);
  if (!err && fflush(w->f) != 0)
    err = fail(w, diag, WN_EIO, strerror(errno));
  if (w->own_file && fclose(w->f) != 0 && !err)
    err = wn_diag_set(diag, WN_EIO, "%s: %s", w->path, strerror(errno));
  if (w->failed && err == w->failed)
    wn_diag_set(diag, err, "%s: an earlier write failed; the file is incomplete", w->path);
  if (w->zs_ready)
    deflateEnd(&w->zs);
  wn_buf_free(&w->head);
  free(w->path);
  free(w);
  return err;
}
