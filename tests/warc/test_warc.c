/* tests/warc/test_warc.c: reading WARC files (plain, gzip per record,
 * whole-file gzip; damaged, truncated, mislabelled and non-HTML records;
 * chunked and compressed HTTP payloads; charsets) and writing WET-style
 * conversion records read back with their digests checked. The WARC files
 * are made here, in a temp dir: by the library's writer, or byte by byte
 * where the test needs a broken one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "fetch/fetch.h"
#include <sys/stat.h>

#include "warc/warc.h"
#include "wn_test.h"
#include "wn_run.h"

typedef struct fixture {
  char dir[64];
  wn_buf damage; /* damage messages, one a line */
  unsigned n_damage;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  if (!f)
    return -1;
  if (wn_test_temp_dir(f->dir, sizeof f->dir, "wn_warc_test") != 0) {
    free(f);
    return -1;
  }
  wn_buf_init(&f->damage, 1 << 20);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
  if (system(cmd) != 0)
    return -1;
  wn_buf_free(&f->damage);
  free(f);
  return 0;
}

static void on_damage(const char *message, void *ctx) {
  fixture *f = ctx;
  f->n_damage++;
  wn_buf_append_str(&f->damage, message);
  wn_buf_append_char(&f->damage, '\n');
}

/* The path of name in the temp dir; the last four stay valid. */
static const char *path_in(fixture *f, const char *name) {
  static char paths[4][256];
  static unsigned next;
  char *path = paths[next++ % 4];
  snprintf(path, sizeof paths[0], "%s/%s", f->dir, name);
  return path;
}

/* gzip (one member) of data, appended to out */
static void gzip_append(wn_buf *out, const void *data, size_t len, int window_bits) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY), Z_OK);
  zs.next_in = (unsigned char *)(uintptr_t)data;
  zs.avail_in = (uInt)len;
  unsigned char chunk[4096];
  int ret;
  do {
    zs.next_out = chunk;
    zs.avail_out = sizeof chunk;
    ret = deflate(&zs, Z_FINISH);
    assert_int_not_equal(ret, Z_STREAM_ERROR);
    assert_int_equal(wn_buf_append(out, chunk, sizeof chunk - zs.avail_out), WN_OK);
  } while (ret != Z_STREAM_END);
  deflateEnd(&zs);
}

/* One WARC record, by hand: content_length < 0 means the block's true
 * length; header_extra is added as is. */
static void record_append(wn_buf *out, const char *version, const char *type, const char *uri,
                          const char *ctype, const char *block, size_t block_len,
                          long content_length, const char *header_extra) {
  static unsigned serial;
  serial++;
  assert_int_equal(wn_buf_printf(out,
                                 "%s\r\nWARC-Type: %s\r\nWARC-Record-ID: "
                                 "<urn:uuid:00000000-0000-4000-8000-%012u>\r\n"
                                 "WARC-Date: 2026-11-23T10:00:00Z\r\n",
                                 version, type, serial),
                   WN_OK);
  if (uri)
    assert_int_equal(wn_buf_printf(out, "WARC-Target-URI: %s\r\n", uri), WN_OK);
  if (ctype)
    assert_int_equal(wn_buf_printf(out, "Content-Type: %s\r\n", ctype), WN_OK);
  if (header_extra)
    assert_int_equal(wn_buf_append_str(out, header_extra), WN_OK);
  assert_int_equal(wn_buf_printf(out, "Content-Length: %ld\r\n\r\n",
                                 content_length < 0 ? (long)block_len : content_length),
                   WN_OK);
  assert_int_equal(wn_buf_append(out, block, block_len), WN_OK);
  assert_int_equal(wn_buf_append_str(out, "\r\n\r\n"), WN_OK);
}

#define HTTP_REC "application/http; msgtype=response"

/* An HTTP response of a page: "HTTP/1.1 200 OK", headers, body. */
static void http_append(wn_buf *out, int status, const char *headers, const char *body,
                        size_t body_len) {
  assert_int_equal(wn_buf_printf(out, "HTTP/1.1 %d X\r\n%s\r\n", status, headers), WN_OK);
  assert_int_equal(wn_buf_append(out, body, body_len), WN_OK);
}

static void response_append(wn_buf *out, const char *uri, const char *headers, const char *body) {
  wn_buf http;
  wn_buf_init(&http, 0);
  http_append(&http, 200, headers, body, strlen(body));
  record_append(out, "WARC/1.0", "response", uri, HTTP_REC, http.data, http.len, -1, NULL);
  wn_buf_free(&http);
}

static wn_warc_reader *open_reader(fixture *f, const char *path, wn_warc_reader_options *opts) {
  wn_warc_reader_options o;
  if (!opts) {
    wn_warc_reader_options_init(&o);
    opts = &o;
  }
  opts->on_damage = on_damage;
  opts->damage_ctx = f;
  wn_warc_reader *r = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_warc_reader_open(path, opts, &r, &diag);
  if (err)
    fail_msg("open %s: %s", path, wn_diag_message(&diag, err));
  return r;
}

/* A writer of path in one compression mode, with the default options. */
static wn_warc_writer *open_writer(const char *path, wn_warc_gzip gzip) {
  wn_warc_writer_options wo;
  wn_warc_writer_options_init(&wo);
  wo.gzip = gzip;
  wn_warc_writer *w = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_warc_writer_open(path, &wo, &w, &diag);
  if (err)
    fail_msg("open %s for writing: %s", path, wn_diag_message(&diag, err));
  return w;
}

/* Reads every page; their target URIs, space-separated, into uris. */
static unsigned read_all(wn_warc_reader *r, char *uris, size_t size) {
  unsigned n = 0;
  uris[0] = '\0';
  wn_warc_page page;
  wn_diag diag = {{0}};
  wn_err rc;
  while ((rc = wn_warc_next(r, &page, &diag)) == WN_OK) {
    n++;
    size_t at = strlen(uris);
    snprintf(uris + at, size - at, "%s%s", at ? " " : "", page.target_uri ? page.target_uri : "-");
  }
  if (rc != WN_ENOTFOUND)
    fail_msg("wn_warc_next: %s", wn_diag_message(&diag, rc));
  return n;
}

static const char *const PAGES[] = {
    "<!DOCTYPE html><html><head><title>One</title></head><body><p>First page.</p></body></html>",
    "<html><body><h1>Two</h1><p>Second page, a bit longer than the first one is.</p></body></html>",
    "<html><body><p>Third.</p></body></html>"};

/* The library's writer makes response records in each compression mode;
 * the reader reads them all back, byte for byte. */
static void test_modes(void **state) {
  fixture *f = *state;
  const struct {
    const char *name;
    wn_warc_gzip gzip;
    int gz_magic;
  } modes[] = {{"plain.warc", WN_WARC_GZIP_AUTO, 0},
               {"record.warc.gz", WN_WARC_GZIP_AUTO, 1},
               {"whole.warc.gz", WN_WARC_GZIP_FILE, 1},
               {"none.warc.gz", WN_WARC_GZIP_NONE, 0}};
  for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
    const char *path = path_in(f, modes[m].name);
    wn_warc_writer *w = open_writer(path, modes[m].gzip);
    wn_diag diag = {{0}};
    for (size_t i = 0; i < 3; i++) {
      wn_buf http;
      wn_buf_init(&http, 0);
      http_append(&http, 200, "Content-Type: text/html\r\n", PAGES[i], strlen(PAGES[i]));
      char uri[64];
      snprintf(uri, sizeof uri, "http://www.example.com/%zu.html", i);
      wn_warc_record rec = {.type = "response",
                            .target_uri = uri,
                            .content_type = HTTP_REC,
                            .block = http.data,
                            .block_len = http.len};
      char id[WN_WARC_ID_SIZE];
      assert_int_equal(wn_warc_write_record(w, &rec, id, &diag), WN_OK);
      assert_int_equal(strlen(id), 47);
      assert_memory_equal(id, "<urn:uuid:", 10);
      assert_int_equal(id[10 + 14], '4'); /* version 4 */
      wn_buf_free(&http);
    }
    assert_int_equal(wn_warc_writer_close(w, &diag), WN_OK);

    /* what the file is: gzip or not, one member or one per record */
    size_t len = 0;
    char *bytes = NULL;
    assert_int_equal(wn_file_read(path, 1 << 20, &bytes, &len, NULL), WN_OK);
    assert_int_equal((unsigned char)bytes[0] == 0x1f && (unsigned char)bytes[1] == 0x8b,
                     modes[m].gz_magic);
    if (!modes[m].gz_magic)
      assert_memory_equal(bytes, "WARC/1.0\r\nWARC-Type: warcinfo\r\n", 31);
    free(bytes);

    wn_warc_reader *r = open_reader(f, path, NULL);
    wn_warc_page page;
    for (size_t i = 0; i < 3; i++) {
      assert_int_equal(wn_warc_next(r, &page, &diag), WN_OK);
      assert_string_equal(page.warc_type, "response");
      assert_int_equal(page.http_status, 200);
      assert_string_equal(page.content_type, "text/html");
      assert_null(page.charset);
      assert_int_equal(page.payload_len, strlen(PAGES[i]));
      assert_memory_equal(page.payload, PAGES[i], page.payload_len);
      char uri[64];
      snprintf(uri, sizeof uri, "http://www.example.com/%zu.html", i);
      assert_string_equal(page.target_uri, uri);
      assert_non_null(page.record_id);
      assert_non_null(page.date);
      if (modes[m].gzip == WN_WARC_GZIP_FILE || !modes[m].gz_magic)
        assert_true(page.file_offset == (modes[m].gz_magic ? 0 : page.offset));
      else
        assert_true(page.file_offset > 0 && page.file_offset < page.offset);
    }
    assert_int_equal(wn_warc_next(r, &page, &diag), WN_ENOTFOUND);
    assert_int_equal(wn_warc_next(r, &page, &diag), WN_ENOTFOUND); /* stays at the end */
    wn_warc_stats st;
    wn_warc_reader_stats_get(r, &st);
    assert_int_equal(st.records, 4); /* the warcinfo first */
    assert_int_equal(st.pages, 3);
    assert_int_equal(st.skipped_type, 1);
    assert_int_equal(st.damaged, 0);
    wn_warc_reader_close(r);
  }
  assert_int_equal(f->n_damage, 0);
}

/* Segments (start_offset, end_offset): cut at every byte of a file in
 * each compression mode, the two segments read every page once, in
 * order, with no damage reported and the records counted once; three
 * segments too; the file offsets are the whole file's. */
static void test_segments(void **state) {
  fixture *f = *state;
  const wn_warc_gzip gz[] = {WN_WARC_GZIP_AUTO, WN_WARC_GZIP_NONE, WN_WARC_GZIP_FILE};
  const char *names[] = {"seg-record.warc.gz", "seg-plain.warc", "seg-whole.warc.gz"};
  for (size_t m = 0; m < 3; m++) {
    const char *path = path_in(f, names[m]);
    wn_warc_writer *w = open_writer(path, gz[m]);
    wn_diag diag = {{0}};
    for (size_t i = 0; i < 6; i++) {
      wn_buf http;
      wn_buf_init(&http, 0);
      http_append(&http, 200, "Content-Type: text/html\r\n", PAGES[i % 3], strlen(PAGES[i % 3]));
      char uri[64];
      snprintf(uri, sizeof uri, "http://www.example.com/%zu.html", i);
      wn_warc_record rec = {.type = "response", .target_uri = uri, .content_type = HTTP_REC,
                            .block = http.data, .block_len = http.len};
      assert_int_equal(wn_warc_write_record(w, &rec, NULL, &diag), WN_OK);
      wn_buf_free(&http);
    }
    assert_int_equal(wn_warc_writer_close(w, &diag), WN_OK);
    char whole[1024], part[1024], joined[2048];
    uint64_t offsets[8] = {0};
    wn_warc_reader *r = open_reader(f, path, NULL);
    wn_warc_page page;
    for (unsigned i = 0; i < 6; i++) {
      assert_int_equal(wn_warc_next(r, &page, &diag), WN_OK);
      offsets[i] = page.file_offset;
    }
    wn_warc_reader_close(r);
    r = open_reader(f, path, NULL);
    assert_int_equal(read_all(r, whole, sizeof whole), 6);
    wn_warc_reader_close(r);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    const uint64_t size = (uint64_t)st.st_size;
    for (uint64_t a = 1; a < size; a += a < 512 ? 1 : 3) {
      for (int third = 0; third < (a >= 2 ? 2 : 1); third++) {
        const uint64_t cuts[4] = {0, third ? a / 2 : a, a, 0};
        joined[0] = '\0';
        uint64_t records = 0;
        for (int k = 0; k < (third ? 3 : 2); k++) {
          const uint64_t from = third ? cuts[k] : (k ? a : 0), to = third ? cuts[k + 1] : (k ? 0 : a);
          wn_warc_reader_options o;
          wn_warc_reader_options_init(&o);
          o.start_offset = from;
          o.end_offset = to;
          r = open_reader(f, path, &o);
          if (read_all(r, part, sizeof part) > 0) {
            size_t at = strlen(joined);
            snprintf(joined + at, sizeof joined - at, "%s%s", at ? " " : "", part);
          }
          wn_warc_stats rs;
          wn_warc_reader_stats_get(r, &rs);
          records += rs.records;
          /* a page's file offset is the whole file's */
          wn_warc_reader_close(r);
          r = open_reader(f, path, &o);
          while (wn_warc_next(r, &page, &diag) == WN_OK) {
            int known = 0;
            for (unsigned i = 0; i < 6; i++)
              known |= offsets[i] == page.file_offset;
            assert_true(known);
            assert_true(page.file_offset >= from && (to == 0 || page.file_offset < to));
          }
          wn_warc_reader_close(r);
        }
        if (strcmp(joined, whole) != 0 || records != 7)
          fail_msg("%s cut at %llu%s: %llu records, pages\n%s\nnot\n%s", names[m],
                   (unsigned long long)a, third ? " (three)" : "", (unsigned long long)records,
                   joined, whole);
      }
    }
  }
  assert_int_equal(f->n_damage, 0);
}

/* Records that are not HTML pages are skipped and counted, each in its
 * own counter; WARC/1.1, a bracketed URI and a sniffed page are read. */
static void test_not_html(void **state) {
  fixture *f = *state;
  wn_buf warc;
  wn_buf_init(&warc, 0);
  record_append(&warc, "WARC/1.1", "request", "http://a.example/", HTTP_REC,
                "GET / HTTP/1.1\r\n\r\n", 18, -1, NULL);
  response_append(&warc, "http://a.example/logo.png", "Content-Type: image/png\r\n",
                  "\x89PNG\r\n\x1a\n....");
  response_append(&warc, "http://a.example/data.json", "", "{\"a\": 1}");
  response_append(&warc, "http://a.example/sniffed", "", "\n  <!doctype html><p>no type</p>");
  response_append(&warc, "http://a.example/gone", "Content-Type: text/html\r\n", "<p>gone</p>");
  /* an HTML page with status 404 */
  wn_buf http;
  wn_buf_init(&http, 0);
  http_append(&http, 404, "Content-Type: text/html\r\n", "<p>not found</p>", 16);
  record_append(&warc, "WARC/1.1", "response", "http://a.example/404", HTTP_REC, http.data,
                http.len, -1, NULL);
  record_append(&warc, "WARC/1.1", "response", "dns:a.example", "text/dns", "a.example. 1.2.3.4",
                18, -1, NULL);
  record_append(&warc, "WARC/1.0", "metadata", "http://a.example/", "application/warc-fields",
                "via: x\r\n", 8, -1, NULL);
  wn_buf_reset(&http);
  http_append(&http, 200, "content-type: application/xhtml+xml; charset=\"ISO-8859-1\"\r\n",
              "<html/>", 7);
  record_append(&warc, "WARC/1.1", "response", "<http://a.example/x>", HTTP_REC, http.data,
                http.len, -1, NULL);
  const char *path = path_in(f, "mixed.warc");
  wn_test_write(path, warc.data, warc.len);

  wn_warc_reader *r = open_reader(f, path, NULL);
  char uris[1024];
  assert_int_equal(read_all(r, uris, sizeof uris), 3);
  assert_string_equal(uris, "http://a.example/sniffed http://a.example/gone http://a.example/x");
  wn_warc_stats st;
  wn_warc_reader_stats_get(r, &st);
  assert_int_equal(st.records, 9);
  assert_int_equal(st.skipped_type, 3);     /* request, dns, metadata */
  assert_int_equal(st.skipped_not_html, 2); /* png, json */
  assert_int_equal(st.skipped_status, 1);
  assert_int_equal(st.damaged, 0);
  wn_warc_reader_close(r);

  /* every status: the 404 too; every record: all nine, raw */
  wn_warc_reader_options o;
  wn_warc_reader_options_init(&o);
  o.all_statuses = 1;
  r = open_reader(f, path, &o);
  assert_int_equal(read_all(r, uris, sizeof uris), 4);
  wn_warc_reader_close(r);
  wn_warc_reader_options_init(&o);
  o.every_record = 1;
  r = open_reader(f, path, &o);
  wn_warc_page page;
  wn_diag diag = {{0}};
  assert_int_equal(wn_warc_next(r, &page, &diag), WN_OK);
  assert_string_equal(page.warc_type, "request");
  assert_int_equal(page.payload_len, 18);
  assert_memory_equal(page.payload, "GET / HTTP/1.1\r\n\r\n", 18);
  assert_int_equal(page.http_status, 0);
  assert_int_equal(read_all(r, uris, sizeof uris), 8);
  wn_warc_reader_close(r);
  wn_buf_free(&http);
  wn_buf_free(&warc);
  assert_int_equal(f->n_damage, 0);
}

/* Chunked transfer coding, gzip and deflate content codings (zlib and
 * raw), both at once, and the charset of the Content-Type. */
static void test_codings(void **state) {
  fixture *f = *state;
  const char *page = PAGES[1];
  size_t plen = strlen(page);
  wn_buf warc, body, http;
  wn_buf_init(&warc, 0);
  wn_buf_init(&body, 0);
  wn_buf_init(&http, 0);
  /* 1: chunked, in chunks of 10 with a chunk extension and a trailer */
  for (size_t at = 0; at < plen; at += 10) {
    size_t n = plen - at < 10 ? plen - at : 10;
    wn_buf_printf(&body, "%zX%s\r\n", n, at == 0 ? ";ext=1" : "");
    wn_buf_append(&body, page + at, n);
    wn_buf_append_str(&body, "\r\n");
  }
  wn_buf_append_str(&body, "0\r\nX-Trailer: y\r\n\r\n");
  http_append(&http, 200,
              "Content-Type: text/html; charset=windows-1252\r\nTransfer-Encoding: chunked\r\n",
              body.data, body.len);
  record_append(&warc, "WARC/1.0", "response", "http://c.example/chunked", HTTP_REC, http.data,
                http.len, -1, NULL);
  /* 2: gzip */
  wn_buf_reset(&body);
  wn_buf_reset(&http);
  gzip_append(&body, page, plen, 15 + 16);
  http_append(&http, 200, "Content-Type: text/html;charset=\"UTF-8\"\r\nContent-Encoding: gzip\r\n",
              body.data, body.len);
  record_append(&warc, "WARC/1.0", "response", "http://c.example/gzip", HTTP_REC, http.data,
                http.len, -1, NULL);
  /* 3: deflate as zlib, 4: deflate raw */
  for (int raw = 0; raw < 2; raw++) {
    wn_buf_reset(&body);
    wn_buf_reset(&http);
    gzip_append(&body, page, plen, raw ? -15 : 15);
    http_append(&http, 200, "Content-Type: text/html\r\nContent-Encoding: deflate\r\n", body.data,
                body.len);
    record_append(&warc, "WARC/1.0", "response",
                  raw ? "http://c.example/raw" : "http://c.example/zlib", HTTP_REC, http.data,
                  http.len, -1, NULL);
  }
  /* 5: gzip, then chunked (bare LF line ends, as some servers send) */
  wn_buf gz;
  wn_buf_init(&gz, 0);
  gzip_append(&gz, page, plen, 15 + 16);
  wn_buf_reset(&body);
  wn_buf_printf(&body, "%zx\n", gz.len / 2);
  wn_buf_append(&body, gz.data, gz.len / 2);
  wn_buf_printf(&body, "\n%zx\n", gz.len - gz.len / 2);
  wn_buf_append(&body, gz.data + gz.len / 2, gz.len - gz.len / 2);
  wn_buf_append_str(&body, "\n0\n\n");
  wn_buf_reset(&http);
  assert_int_equal(wn_buf_printf(&http,
                                 "HTTP/1.0 200 OK\nContent-Type: TEXT/HTML; Charset=koi8-r\n"
                                 "Transfer-Encoding: gzip, chunked\nContent-Encoding: x-gzip\n\n"),
                   WN_OK);
  wn_buf_append(&http, body.data, body.len);
  record_append(&warc, "WARC/1.0", "response", "http://c.example/both", HTTP_REC, http.data,
                http.len, -1, NULL);
  /* 6: a gzip coding whose data is damaged: reported, skipped */
  wn_buf_reset(&http);
  http_append(&http, 200, "Content-Type: text/html\r\nContent-Encoding: gzip\r\n",
              "\x1f\x8b\x08\x00garbage-garbage", 19);
  record_append(&warc, "WARC/1.0", "response", "http://c.example/bad-gzip", HTTP_REC, http.data,
                http.len, -1, NULL);
  /* 7: brotli, which we do not undo: reported, skipped */
  wn_buf_reset(&http);
  http_append(&http, 200, "Content-Type: text/html\r\nContent-Encoding: br\r\n", "\x0b\x02\x80", 3);
  record_append(&warc, "WARC/1.0", "response", "http://c.example/br", HTTP_REC, http.data, http.len,
                -1, NULL);
  const char *path = path_in(f, "codings.warc.gz");
  wn_buf file;
  wn_buf_init(&file, 0);
  gzip_append(&file, warc.data, warc.len, 15 + 16); /* whole file, by zlib */
  wn_test_write(path, file.data, file.len);

  wn_warc_reader *r = open_reader(f, path, NULL);
  wn_warc_page pg;
  wn_diag diag = {{0}};
  const char *const uris[] = {"http://c.example/chunked", "http://c.example/gzip",
                              "http://c.example/zlib", "http://c.example/raw",
                              "http://c.example/both"};
  const char *const charsets[] = {"windows-1252", "UTF-8", NULL, NULL, "koi8-r"};
  for (size_t i = 0; i < 5; i++) {
    assert_int_equal(wn_warc_next(r, &pg, &diag), WN_OK);
    assert_string_equal(pg.target_uri, uris[i]);
    assert_int_equal(pg.payload_len, plen);
    assert_memory_equal(pg.payload, page, plen);
    if (charsets[i])
      assert_string_equal(pg.charset, charsets[i]);
    else
      assert_null(pg.charset);
  }
  assert_int_equal(wn_warc_next(r, &pg, &diag), WN_ENOTFOUND);
  wn_warc_stats st;
  wn_warc_reader_stats_get(r, &st);
  assert_int_equal(st.pages, 5);
  assert_int_equal(st.damaged, 2);
  assert_int_equal(f->n_damage, 2);
  assert_non_null(strstr(f->damage.data, "codings.warc.gz: record at offset "));
  assert_non_null(strstr(f->damage.data, "content coding \"br\" is not supported"));
  wn_warc_reader_close(r);
  wn_buf_free(&gz);
  wn_buf_free(&file);
  wn_buf_free(&warc);
  wn_buf_free(&body);
  wn_buf_free(&http);
}

/* A record cut short: the ones before are read and it is reported with
 * the file and its offset; a cut file followed by more records (two
 * files concatenated) goes on with those. */
static void test_truncated(void **state) {
  fixture *f = *state;
  wn_buf warc;
  wn_buf_init(&warc, 0);
  response_append(&warc, "http://t.example/1", "Content-Type: text/html\r\n", PAGES[0]);
  size_t second = warc.len;
  response_append(&warc, "http://t.example/2", "Content-Type: text/html\r\n", PAGES[1]);
  size_t third = warc.len;
  response_append(&warc, "http://t.example/3", "Content-Type: text/html\r\n", PAGES[2]);
  size_t cut = warc.len - 20; /* inside the third's block */

  const char *path = path_in(f, "cut.warc");
  wn_test_write(path, warc.data, cut);
  wn_warc_reader *r = open_reader(f, path, NULL);
  char uris[1024];
  assert_int_equal(read_all(r, uris, sizeof uris), 2);
  assert_string_equal(uris, "http://t.example/1 http://t.example/2");
  wn_warc_stats st;
  wn_warc_reader_stats_get(r, &st);
  assert_int_equal(st.records, 3);
  assert_int_equal(st.damaged, 1);
  char want[512];
  snprintf(want, sizeof want, "%s: record at offset %zu: truncated: Content-Length ", path, third);
  if (!strstr(f->damage.data, want))
    fail_msg("want \"%s\" in %s", want, f->damage.data);
  wn_warc_reader_close(r);

  /* cut, then the whole file again */
  wn_buf cat;
  wn_buf_init(&cat, 0);
  wn_buf_append(&cat, warc.data, cut);
  wn_buf_append(&cat, warc.data, warc.len);
  wn_test_write(path, cat.data, cat.len);
  f->n_damage = 0;
  r = open_reader(f, path, NULL);
  assert_int_equal(read_all(r, uris, sizeof uris), 5);
  assert_string_equal(uris, "http://t.example/1 http://t.example/2 http://t.example/1 "
                            "http://t.example/2 http://t.example/3");
  wn_warc_reader_stats_get(r, &st);
  assert_int_equal(st.damaged, 1);
  wn_warc_reader_close(r);

  /* gzip per record, the file cut inside the third member */
  wn_buf gz;
  wn_buf_init(&gz, 0);
  size_t starts[4];
  const size_t ends[3] = {second, third, warc.len};
  for (int i = 0; i < 3; i++) {
    starts[i] = gz.len;
    size_t from = i == 0 ? 0 : ends[i - 1];
    gzip_append(&gz, warc.data + from, ends[i] - from, 15 + 16);
  }
  starts[3] = gz.len;
  wn_test_write(path_in(f, "cut.warc.gz"), gz.data, starts[2] + (starts[3] - starts[2]) / 2);
  f->n_damage = 0;
  r = open_reader(f, path_in(f, "cut.warc.gz"), NULL);
  assert_int_equal(read_all(r, uris, sizeof uris), 2);
  wn_warc_reader_stats_get(r, &st);
  assert_true(st.damaged >= 1);
  assert_non_null(strstr(f->damage.data, "cut.warc.gz"));
  wn_warc_reader_close(r);

  /* gzip per record, the second member damaged in its middle: the first
   * and third are read */
  wn_buf bad;
  wn_buf_init(&bad, 0);
  wn_buf_append(&bad, gz.data, gz.len);
  for (size_t k = starts[1] + 20; k < starts[1] + 40; k++)
    bad.data[k] = (char)0xA5;
  wn_test_write(path_in(f, "bad.warc.gz"), bad.data, bad.len);
  f->n_damage = 0;
  wn_buf_reset(&f->damage);
  r = open_reader(f, path_in(f, "bad.warc.gz"), NULL);
  assert_int_equal(read_all(r, uris, sizeof uris), 2);
  assert_string_equal(uris, "http://t.example/1 http://t.example/3");
  wn_warc_reader_stats_get(r, &st);
  assert_true(st.damaged >= 1);
  snprintf(want, sizeof want, "gzip data at byte ");
  assert_non_null(strstr(f->damage.data, want));
  wn_warc_reader_close(r);
  wn_buf_free(&bad);
  wn_buf_free(&gz);
  wn_buf_free(&cat);
  wn_buf_free(&warc);
}

/* Content-Length too short, too long, not a number, and huge: the record
 * is reported (or skipped as too big) and the records after it are read. */
static void test_bad_length(void **state) {
  fixture *f = *state;
  wn_buf http;
  wn_buf_init(&http, 0);
  http_append(&http, 200, "Content-Type: text/html\r\n", PAGES[1], strlen(PAGES[1]));
  const long lengths[] = {(long)http.len - 10, (long)http.len + 50, -2, 999999999999L};
  for (size_t t = 0; t < 4; t++) {
    wn_buf warc;
    wn_buf_init(&warc, 0);
    response_append(&warc, "http://l.example/1", "Content-Type: text/html\r\n", PAGES[0]);
    size_t bad_at = warc.len;
    if (lengths[t] == -2) {
      wn_buf_printf(&warc, "WARC/1.0\r\nWARC-Type: response\r\nContent-Length: 12x\r\n\r\n");
      wn_buf_append(&warc, http.data, http.len);
      wn_buf_append_str(&warc, "\r\n\r\n");
    } else {
      record_append(&warc, "WARC/1.0", "response", "http://l.example/bad", HTTP_REC, http.data,
                    http.len, lengths[t], NULL);
    }
    response_append(&warc, "http://l.example/3", "Content-Type: text/html\r\n", PAGES[2]);
    response_append(&warc, "http://l.example/4", "Content-Type: text/html\r\n", PAGES[0]);
    const char *path = path_in(f, "length.warc");
    wn_test_write(path, warc.data, warc.len);
    f->n_damage = 0;
    wn_buf_reset(&f->damage);
    wn_warc_reader *r = open_reader(f, path, NULL);
    char uris[1024];
    unsigned n = read_all(r, uris, sizeof uris);
    wn_warc_stats st;
    wn_warc_reader_stats_get(r, &st);
    if (t < 3) {
      assert_int_equal(n, 3);
      assert_string_equal(uris, "http://l.example/1 http://l.example/3 http://l.example/4");
      assert_int_equal(st.damaged, 1);
      assert_int_equal(st.records, 4);
      char want[128];
      snprintf(want, sizeof want, "record at offset %zu: ", bad_at);
      assert_non_null(strstr(f->damage.data, want));
    } else {
      /* a 1 TB claim: skipped unread (never allocated), the rest of the
       * file taken with it and reported as truncated */
      assert_int_equal(n, 1);
      assert_int_equal(st.skipped_too_big, 1);
      assert_int_equal(st.damaged, 1);
      assert_non_null(strstr(f->damage.data, "truncated: Content-Length 999999999999"));
    }
    wn_warc_reader_close(r);
    wn_buf_free(&warc);
  }
  wn_buf_free(&http);
}

/* Caps: a block past max_block_bytes and a payload past max_payload_bytes
 * (once decompressed: a gzip bomb) are skipped and counted; garbage before
 * the first record is reported and passed. */
static void test_caps(void **state) {
  fixture *f = *state;
  wn_buf warc, big, gz, http;
  wn_buf_init(&warc, 0);
  wn_buf_init(&big, 0);
  wn_buf_init(&gz, 0);
  wn_buf_init(&http, 0);
  wn_buf_append_str(&warc, "this is not a WARC record\r\nnor is this\r\n");
  response_append(&warc, "http://k.example/1", "Content-Type: text/html\r\n", PAGES[0]);
  wn_buf_append_str(&big, "<html><body><p>");
  for (int i = 0; i < 20000; i++)
    wn_buf_append_str(&big, "big page ");
  wn_buf_append_str(&big, "</p></body></html>");
  response_append(&warc, "http://k.example/big", "Content-Type: text/html\r\n", big.data);
  wn_buf_reset(&big);
  for (int i = 0; i < 300000; i++)
    wn_buf_append_str(&big, "<p>aaaa</p>");
  gzip_append(&gz, big.data, big.len, 15 + 16);
  assert_true(gz.len < 60000);
  http_append(&http, 200, "Content-Type: text/html\r\nContent-Encoding: gzip\r\n", gz.data, gz.len);
  record_append(&warc, "WARC/1.0", "response", "http://k.example/bomb", HTTP_REC, http.data,
                http.len, -1, NULL);
  response_append(&warc, "http://k.example/2", "Content-Type: text/html\r\n", PAGES[1]);
  const char *path = path_in(f, "caps.warc");
  wn_test_write(path, warc.data, warc.len);
  wn_warc_reader_options o;
  wn_warc_reader_options_init(&o);
  o.max_block_bytes = 100000;
  o.max_payload_bytes = 1000000;
  wn_warc_reader *r = open_reader(f, path, &o);
  char uris[1024];
  assert_int_equal(read_all(r, uris, sizeof uris), 2);
  assert_string_equal(uris, "http://k.example/1 http://k.example/2");
  wn_warc_stats st;
  wn_warc_reader_stats_get(r, &st);
  assert_int_equal(st.skipped_too_big, 2);
  assert_int_equal(st.damaged, 1);
  assert_non_null(
      strstr(f->damage.data, "caps.warc: record at offset 0: no WARC/1.x version line"));
  wn_warc_reader_close(r);
  wn_buf_free(&warc);
  wn_buf_free(&big);
  wn_buf_free(&gz);
  wn_buf_free(&http);
}

/* Records far larger than the reader's first window (a few chunks), in
 * each compression mode, between small ones: the window grows to hold
 * each, and every page comes back whole, byte for byte. */
static void test_large_records(void **state) {
  fixture *f = *state;
  const wn_warc_gzip gz[] = {WN_WARC_GZIP_AUTO, WN_WARC_GZIP_NONE, WN_WARC_GZIP_FILE};
  const size_t sizes[] = {100, 3u << 20, 200, 700000, 5u << 20, 300};
  for (size_t m = 0; m < 3; m++) {
    const char *path = path_in(f, "large.warc");
    wn_warc_writer *w = open_writer(path, gz[m]);
    wn_diag diag = {{0}};
    wn_buf page, http;
    wn_buf_init(&page, 0);
    wn_buf_init(&http, 0);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      wn_buf_reset(&page);
      wn_buf_reset(&http);
      assert_int_equal(wn_buf_printf(&page, "<html><body><p>page %zu ", i), WN_OK);
      while (page.len < sizes[i])
        assert_int_equal(wn_buf_printf(&page, "w%zu ", page.len % 9973), WN_OK);
      http_append(&http, 200, "Content-Type: text/html\r\n", page.data, page.len);
      char uri[64];
      snprintf(uri, sizeof uri, "http://big.example/%zu.html", i);
      wn_warc_record rec = {.type = "response", .target_uri = uri, .content_type = HTTP_REC,
                            .block = http.data, .block_len = http.len};
      assert_int_equal(wn_warc_write_record(w, &rec, NULL, &diag), WN_OK);
    }
    assert_int_equal(wn_warc_writer_close(w, &diag), WN_OK);
    wn_warc_reader *r = open_reader(f, path, NULL);
    wn_warc_page got;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      assert_int_equal(wn_warc_next(r, &got, &diag), WN_OK);
      wn_buf_reset(&page);
      assert_int_equal(wn_buf_printf(&page, "<html><body><p>page %zu ", i), WN_OK);
      while (page.len < sizes[i])
        assert_int_equal(wn_buf_printf(&page, "w%zu ", page.len % 9973), WN_OK);
      assert_int_equal(got.payload_len, page.len);
      assert_memory_equal(got.payload, page.data, page.len);
    }
    assert_int_equal(wn_warc_next(r, &got, &diag), WN_ENOTFOUND);
    wn_warc_reader_close(r);
    wn_buf_free(&page);
    wn_buf_free(&http);
  }
  assert_int_equal(f->n_damage, 0);
}

/* The WET-style output: pages read from a WARC, their main content
 * detected (store-less, the single-page method), written as conversion
 * records and read back: type, refers-to, URI, date, text and digest. */
static void test_wet_roundtrip(void **state) {
  fixture *f = *state;
  char block_digest[WN_WARC_DIGEST_SIZE];
  wn_warc_digest("abc", 3, block_digest); /* FIPS 180-2's example, base32 */
  assert_string_equal(block_digest, "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5");
  wn_warc_digest("", 0, block_digest);
  assert_string_equal(block_digest, "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");

  /* a source WARC of the fixture site's pages */
  const char *src = path_in(f, "site.warc.gz");
  wn_warc_writer *w = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_warc_writer_open(src, NULL, &w, &diag), WN_OK);
  char ids[3][WN_WARC_ID_SIZE];
  for (int i = 0; i < 3; i++) {
    char file[256];
    snprintf(file, sizeof file, "%s/site/article-%d.html", WN_FIXTURES, i + 1);
    size_t len = 0;
    char *html = wn_test_read(file, &len);
    wn_buf http;
    wn_buf_init(&http, 0);
    http_append(&http, 200, "Content-Type: text/html; charset=utf-8\r\n", html, len);
    char uri[128];
    snprintf(uri, sizeof uri, "https://www.harbourgazette.example/article-%d.html", i + 1);
    wn_warc_record rec = {.type = "response",
                          .target_uri = uri,
                          .date = "2026-01-0"
                                  "1T00:00:00Z",
                          .content_type = HTTP_REC,
                          .block = http.data,
                          .block_len = http.len};
    assert_int_equal(wn_warc_write_record(w, &rec, ids[i], &diag), WN_OK);
    wn_buf_free(&http);
    free(html);
  }
  assert_int_equal(wn_warc_writer_close(w, &diag), WN_OK);

  /* detect each page, write its text */
  const char *wet = path_in(f, "site.wet.gz");
  assert_int_equal(wn_warc_writer_open(wet, NULL, &w, &diag), WN_OK);
  wn_detector *det = NULL;
  assert_int_equal(wn_detector_create(NULL, NULL, &det, &diag), WN_OK);
  wn_warc_reader *r = open_reader(f, src, NULL);
  wn_warc_page page;
  char texts[3][4096];
  int n = 0;
  while (wn_warc_next(r, &page, &diag) == WN_OK) {
    assert_string_equal(page.record_id, ids[n]);
    assert_string_equal(page.charset, "utf-8");
    wn_page_input in = {.bytes = page.payload,
                        .len = page.payload_len,
                        .url = page.target_uri,
                        .charset = page.charset};
    wn_page_result *res = NULL;
    assert_int_equal(wn_detector_detect(det, &in, WN_WANT_TEXT, &res, &diag), WN_OK);
    assert_string_equal(wn_page_result_charset_source(res), "transport");
    size_t tlen = 0;
    const char *text = wn_page_result_text(res, &tlen);
    assert_true(tlen > 100 && tlen < sizeof texts[0]);
    memcpy(texts[n], text, tlen + 1);
    /* written from a copy, as a threaded front end would */
    wn_warc_page *copy = NULL;
    assert_int_equal(wn_warc_page_copy(&page, &copy, &diag), WN_OK);
    assert_ptr_not_equal(copy->payload, page.payload);
    assert_memory_equal(copy->payload, page.payload, page.payload_len);
    assert_int_equal(copy->payload[copy->payload_len], '\0');
    assert_string_equal(copy->charset, "utf-8");
    assert_string_equal(copy->record_id, ids[n]);
    assert_int_equal(wn_warc_write_conversion(w, copy, text, tlen, &diag), WN_OK);
    wn_warc_page_free(copy);
    /* the same copy into the caller's memory; too small a buffer is refused */
    const size_t size = wn_warc_page_copy_size(&page);
    assert_true(size > sizeof(wn_warc_page) + page.payload_len);
    void *buf = malloc(size);
    assert_non_null(buf);
    wn_warc_page *into = NULL;
    assert_int_equal(wn_warc_page_copy_to(&page, buf, size - 1, &into, &diag), WN_EINVAL);
    assert_null(into);
    assert_int_equal(wn_warc_page_copy_to(&page, buf, size, &into, &diag), WN_OK);
    assert_ptr_equal(into, buf);
    assert_memory_equal(into->payload, page.payload, page.payload_len);
    assert_int_equal(into->payload[into->payload_len], '\0');
    assert_string_equal(into->record_id, ids[n]);
    assert_string_equal(into->target_uri, page.target_uri);
    assert_true(into->payload + into->payload_len < (char *)buf + size);
    free(buf);
    wn_page_result_free(res);
    n++;
  }
  wn_warc_stats st;
  wn_warc_reader_stats_get(r, &st);
  if (n != 3)
    fail_msg("%d pages; %s; damage: %s; %llu records, %llu skipped type, %llu not html", n,
             diag.msg, f->damage.data ? f->damage.data : "", (unsigned long long)st.records,
             (unsigned long long)st.skipped_type, (unsigned long long)st.skipped_not_html);
  wn_warc_reader_close(r);
  wn_detector_destroy(det);
  assert_int_equal(wn_warc_writer_close(w, &diag), WN_OK);

  /* read back: a warcinfo, then three conversions */
  wn_warc_reader_options o;
  wn_warc_reader_options_init(&o);
  o.every_record = 1;
  r = open_reader(f, wet, &o);
  assert_int_equal(wn_warc_next(r, &page, &diag), WN_OK);
  assert_string_equal(page.warc_type, "warcinfo");
  assert_string_equal(page.content_type, "application/warc-fields");
  assert_non_null(strstr(page.payload, "software: winnow/"));
  wn_warc_digest(page.payload, page.payload_len, block_digest);
  assert_string_equal(page.block_digest, block_digest);
  for (int i = 0; i < 3; i++) {
    assert_int_equal(wn_warc_next(r, &page, &diag), WN_OK);
    assert_string_equal(page.warc_type, "conversion");
    assert_string_equal(page.content_type, "text/plain");
    char uri[128];
    snprintf(uri, sizeof uri, "https://www.harbourgazette.example/article-%d.html", i + 1);
    assert_string_equal(page.target_uri, uri);
    assert_string_equal(page.date, "2026-01-01T00:00:00Z");
    assert_int_equal(page.payload_len, strlen(texts[i]));
    assert_memory_equal(page.payload, texts[i], page.payload_len);
    wn_warc_digest(page.payload, page.payload_len, block_digest);
    assert_string_equal(page.block_digest, block_digest);
    assert_true(strcmp(page.record_id, ids[i]) != 0);
    /* WARC-Refers-To is not among the page's fields: read it raw below */
  }
  assert_int_equal(wn_warc_next(r, &page, &diag), WN_ENOTFOUND);
  wn_warc_reader_close(r);

  /* the raw bytes: each record its own gzip member, naming its source */
  size_t len = 0;
  char *bytes = NULL;
  assert_int_equal(wn_file_read(wet, 1 << 20, &bytes, &len, NULL), WN_OK);
  wn_buf plain;
  wn_buf_init(&plain, 0);
  assert_int_equal(wn_warc_http_inflate(bytes, len, &plain, NULL), WN_OK); /* first member */
  assert_non_null(strstr(plain.data, "WARC-Type: warcinfo\r\n"));
  assert_null(strstr(plain.data, "conversion")); /* one record per member */
  free(bytes);
  wn_buf_free(&plain);
  wn_warc_reader_options_init(&o);
  o.every_record = 1;
  wn_warc_writer_options wo;
  wn_warc_writer_options_init(&wo);
  wo.gzip = WN_WARC_GZIP_NONE;
  wo.warcinfo = 0;
  /* the same conversion written plain, to read its header */
  const char *plain_path = path_in(f, "one.wet");
  assert_int_equal(wn_warc_writer_open(plain_path, &wo, &w, &diag), WN_OK);
  wn_warc_page source = {
      .target_uri = "http://x.example/", .record_id = ids[0], .date = "2026-01-01T00:00:00Z"};
  assert_int_equal(wn_warc_write_conversion(w, &source, "hello\n", 6, &diag), WN_OK);
  assert_int_equal(wn_warc_writer_close(w, &diag), WN_OK);
  assert_int_equal(wn_file_read(plain_path, 1 << 20, &bytes, &len, NULL), WN_OK);
  char want[160];
  snprintf(want, sizeof want, "WARC-Refers-To: %s\r\n", ids[0]);
  assert_non_null(strstr(bytes, want));
  assert_memory_equal(bytes, "WARC/1.0\r\nWARC-Type: conversion\r\nWARC-Record-ID: <urn:uuid:", 59);
  assert_non_null(strstr(bytes, "WARC-Block-Digest: sha1:"));
  assert_non_null(strstr(bytes, "Content-Length: 6\r\n\r\nhello\n\r\n\r\n"));
  free(bytes);

  /* a header value with a line break is refused, not written */
  assert_int_equal(wn_warc_writer_open(plain_path, &wo, &w, &diag), WN_OK);
  source.target_uri = "http://x.example/\r\nWARC-Type: evil";
  assert_int_equal(wn_warc_write_conversion(w, &source, "x", 1, NULL), WN_EINVAL);
  assert_int_equal(wn_warc_writer_close(w, &diag), WN_OK);
  assert_int_equal(wn_file_read(plain_path, 1 << 20, &bytes, &len, NULL), WN_OK);
  assert_int_equal(len, 0);
  free(bytes);
  assert_int_equal(f->n_damage, 0);
}

/* Damage anywhere: files with bytes overwritten, cut or doubled at
 * deterministic random places are read to the end without a crash (the
 * sanitizer build checks every access), never yielding more pages than
 * the file had, and every page within the caps. */
static void test_mutations(void **state) {
  fixture *f = *state;
  wn_buf warc, gz, http, body;
  wn_buf_init(&warc, 0);
  wn_buf_init(&gz, 0);
  wn_buf_init(&http, 0);
  wn_buf_init(&body, 0);
  for (int i = 0; i < 6; i++) {
    size_t start = warc.len;
    const char *page = PAGES[i % 3];
    wn_buf_reset(&http);
    wn_buf_reset(&body);
    if (i % 2) {
      gzip_append(&body, page, strlen(page), 15 + 16);
      http_append(&http, 200, "Content-Type: text/html\r\nContent-Encoding: gzip\r\n", body.data,
                  body.len);
    } else {
      wn_buf_printf(&body, "%zx\r\n%s\r\n0\r\n\r\n", strlen(page), page);
      http_append(&http, 200, "Content-Type: text/html\r\nTransfer-Encoding: chunked\r\n",
                  body.data, body.len);
    }
    record_append(&warc, "WARC/1.0", "response", "http://m.example/", HTTP_REC, http.data, http.len,
                  -1, NULL);
    gzip_append(&gz, warc.data + start, warc.len - start, 15 + 16);
  }
  uint64_t seed = 0x9E3779B97F4A7C15u;
  wn_buf m;
  wn_buf_init(&m, 0);
  for (int round = 0; round < 400; round++) {
    const wn_buf *src = round % 2 ? &gz : &warc;
    wn_buf_reset(&m);
    wn_buf_append(&m, src->data, src->len);
    for (int k = 0; k < 1 + round % 4; k++) {
      seed = seed * 6364136223846793005u + 1442695040888963407u;
      size_t at = (size_t)(seed >> 33) % m.len;
      switch ((seed >> 20) % 4) {
      case 0: /* a byte changed */
        m.data[at] = (char)(seed >> 8);
        break;
      case 1: /* cut */
        m.len = at + 1;
        break;
      case 2: /* a digit of a length changed, if one is near */
        for (size_t j = at; j < m.len && j < at + 200; j++)
          if (m.data[j] >= '0' && m.data[j] <= '9') {
            m.data[j] = (char)('0' + (seed >> 40) % 10);
            break;
          }
        break;
      default: /* a stretch doubled */
        if (m.len - at > 64)
          wn_buf_append(&m, m.data + at, 64);
        break;
      }
    }
    const char *path = path_in(f, "m.warc");
    wn_test_write(path, m.data, m.len);
    wn_warc_reader_options o;
    wn_warc_reader_options_init(&o);
    o.max_block_bytes = 4096;
    o.max_payload_bytes = 2048;
    wn_warc_reader *r = open_reader(f, path, &o);
    wn_warc_page page;
    wn_diag diag = {{0}};
    wn_err rc;
    int n = 0;
    while ((rc = wn_warc_next(r, &page, &diag)) == WN_OK) {
      assert_true(page.payload_len <= 2048);
      n++;
    }
    assert_int_equal(rc, WN_ENOTFOUND);
    assert_true(n <= 7);
    wn_warc_reader_close(r);
  }
  wn_buf_free(&m);
  wn_buf_free(&warc);
  wn_buf_free(&gz);
  wn_buf_free(&http);
  wn_buf_free(&body);
}

/* The HTTP helpers on their own. */
static void test_http(void **state) {
  (void)state;
  char cs[32], media[32];
  /* The charset is read by the one Content-Type reader (fetch.h), on the
   * header value as the WARC reader hands it: not NUL-terminated. */
  wn_content_type_split("text/html; charset=\"Shift_JIS\"; x=1", 35, media, sizeof media, cs,
                        sizeof cs);
  assert_string_equal(cs, "Shift_JIS");
  assert_string_equal(media, "text/html");
  wn_content_type_split("text/html;CHARSET=utf-8 ", 24, media, sizeof media, cs, sizeof cs);
  assert_string_equal(cs, "utf-8");
  wn_content_type_split("text/html; charset=utf-8XXXX", 24, media, sizeof media, cs, sizeof cs);
  assert_string_equal(cs, "utf-8");
  wn_content_type_split("text/html", 9, media, sizeof media, cs, sizeof cs);
  assert_string_equal(cs, "");
  wn_content_type_charset("text/html; charset=ISO-8859-1", cs, sizeof cs);
  assert_string_equal(cs, "ISO-8859-1");
  assert_true(wn_warc_http_type_is_html(" Text/HTML ;charset=x", 21));
  assert_true(wn_warc_http_type_is_html("application/xhtml+xml", 21));
  assert_false(wn_warc_http_type_is_html("text/plain", 10));
  assert_false(wn_warc_http_type_is_html("text/htmlx", 10));
  assert_true(wn_warc_http_sniff_html("\xEF\xBB\xBF <!DOCTYPE html>", 20));
  assert_true(wn_warc_http_sniff_html("<p>x", 4));
  assert_true(wn_warc_http_sniff_html("<!-- c -->", 10));
  assert_false(wn_warc_http_sniff_html("<pre", 4));
  assert_false(wn_warc_http_sniff_html("<?xml version=\"1.0\"?>", 21));
  assert_false(wn_warc_http_sniff_html("{\"a\":1}", 7));
  wn_warc_http h;
  const char *msg = "HTTP/1.1 301 Moved\r\nLocation: /x\r\n X-Folded: y\r\n\r\nbody";
  assert_int_equal(wn_warc_http_parse(msg, strlen(msg), 1000, &h, NULL), WN_OK);
  assert_int_equal(h.status, 301);
  assert_null(h.content_type);
  assert_int_equal(h.body_len, 4);
  assert_int_equal(wn_warc_http_parse("HTTP/1.1 20 OK\r\n\r\n", 18, 1000, &h, NULL), WN_EPARSE);
  assert_int_equal(wn_warc_http_parse("GET / HTTP/1.1\r\n\r\n", 18, 1000, &h, NULL), WN_EPARSE);
  assert_int_equal(wn_warc_http_parse(msg, strlen(msg), 10, &h, NULL), WN_ETOOBIG);
  wn_buf out;
  wn_buf_init(&out, 8);
  assert_int_equal(wn_warc_http_dechunk("5\r\nhello\r\n0\r\n\r\n", 15, &out, NULL), WN_OK);
  assert_string_equal(out.data, "hello");
  wn_buf_reset(&out);
  assert_int_equal(wn_warc_http_dechunk("5\r\nhel", 6, &out, NULL), WN_ECORRUPT);
  wn_buf_reset(&out);
  assert_int_equal(wn_warc_http_dechunk("9\r\nhello big\r\n0\r\n\r\n", 19, &out, NULL), WN_ETOOBIG);
  wn_buf_reset(&out);
  assert_int_equal(wn_warc_http_dechunk("fffffffffffffffff\r\n", 19, &out, NULL), WN_ECORRUPT);
  wn_buf_free(&out);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_modes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_not_html, setup, teardown),
      cmocka_unit_test_setup_teardown(test_segments, setup, teardown),
      cmocka_unit_test_setup_teardown(test_codings, setup, teardown),
      cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
      cmocka_unit_test_setup_teardown(test_bad_length, setup, teardown),
      cmocka_unit_test_setup_teardown(test_caps, setup, teardown),
      cmocka_unit_test_setup_teardown(test_large_records, setup, teardown),
      cmocka_unit_test_setup_teardown(test_wet_roundtrip, setup, teardown),
      cmocka_unit_test_setup_teardown(test_mutations, setup, teardown),
      cmocka_unit_test(test_http),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
