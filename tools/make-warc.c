/*
 * make-warc: a WARC file of a corpus's pages, each wrapped in an HTTP 200
 * response, to feed and measure the WARC reader (`winnow detect --warc`).
 *
 *   CORPUS_DIR/pages.tsv              group, id, split[, url] (header line)
 *   CORPUS_DIR/html/<group>/<id>.html the page bytes
 *
 * A page's URL is the url column when there is one, else
 * http://<group>/<id>.html (its site: the group). Options make the HTTP
 * message exercise the reader: chunked transfer coding, a gzip or deflate
 * content coding, a charset in the Content-Type. Only the public API
 * (winnow/winnow.h) and zlib.
 *
 * usage: make-warc [--gzip record|file|none] [--chunked] [--encoding gzip|deflate]
 *                  [--charset NAME] [--limit N] CORPUS_DIR OUT.warc[.gz]
 *        make-warc --read FILE.warc[.gz]   read it back: counts and speed
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include <winnow/winnow.h>

/* wn_parse_u32: the project's one whole-number parser (src/util/util.h;
 * the tools link the static library, which has it). */
#include "util.h" /* src/util: number parsing, the clock */

#define MAX_INDEX_BYTES ((size_t)16 * 1024 * 1024)
#define MAX_FIELDS 16u

static void usage(FILE *out) {
  fputs("usage: make-warc [--gzip record|file|none] [--chunked] [--encoding gzip|deflate]\n"
        "                 [--charset NAME] [--limit N] CORPUS_DIR OUT.warc[.gz]\n"
        "       make-warc --read FILE.warc[.gz]\n"
        "\n"
        "Writes each page of a corpus as an HTTP 200 response record of a WARC file.\n"
        "CORPUS_DIR holds pages.tsv, tab-separated with a header line naming the\n"
        "columns group and id (and optionally url), and html/GROUP/ID.html, each\n"
        "page's bytes. A page's URL is its url column, else http://GROUP/ID.html.\n"
        "\n"
        "  --gzip MODE       record (a gzip member a record), file (one gzip stream)\n"
        "                    or none; default: record when OUT ends in .gz, else none\n"
        "  --chunked         send the HTTP bodies with chunked transfer coding\n"
        "  --encoding CODING compress the HTTP bodies (Content-Encoding)\n"
        "  --charset NAME    name a charset in each response's Content-Type\n"
        "  --limit N         the first N pages only\n"
        "  --read FILE       read a WARC file back: record counts and speed\n",
        out);
}

/* Seconds on the monotonic clock: the project's one clock (wn_clock_ms). */
static double now_s(void) { return wn_clock_ms() / 1000.0; }

static void on_damage(const char *message, void *ctx) {
  (void)ctx;
  fprintf(stderr, "make-warc: %s\n", message);
}

static int read_back(const char *path) {
  wn_warc_reader_options opts;
  wn_warc_reader_options_init(&opts);
  opts.on_damage = on_damage;
  wn_diag diag = {{0}};
  wn_warc_reader *r = NULL;
  wn_err err = wn_warc_reader_open(path, &opts, &r, &diag);
  if (err) {
    fprintf(stderr, "make-warc: %s\n", wn_diag_message(&diag, err));
    return 1;
  }
  double t0 = now_s();
  uint64_t bytes = 0;
  wn_warc_page page;
  wn_err rc;
  while ((rc = wn_warc_next(r, &page, &diag)) == WN_OK)
    bytes += page.payload_len;
  double secs = now_s() - t0;
  wn_warc_stats st;
  wn_warc_reader_stats_get(r, &st);
  wn_warc_reader_close(r);
  if (rc != WN_ENOTFOUND) {
    fprintf(stderr, "make-warc: %s\n", wn_diag_message(&diag, rc));
    return 1;
  }
  printf("%s: %llu records, %llu pages (%.1f MB of HTML), skipped: %llu other types, %llu not "
         "HTML, %llu status, %llu too big; %llu damaged\n",
         path, (unsigned long long)st.records, (unsigned long long)st.pages, (double)bytes / 1e6,
         (unsigned long long)st.skipped_type, (unsigned long long)st.skipped_not_html,
         (unsigned long long)st.skipped_status, (unsigned long long)st.skipped_too_big,
         (unsigned long long)st.damaged);
  printf("read in %.3f s: %.0f pages/s, %.1f MB/s of HTML\n", secs,
         secs > 0 ? (double)st.pages / secs : 0.0, secs > 0 ? (double)bytes / 1e6 / secs : 0.0);
  return st.damaged ? 1 : 0;
}

/* data compressed as a gzip (gzip 1) or zlib (0) stream into out */
static wn_err compress_body(const char *data, size_t len, int gzip, wn_buf *out) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  if (deflateInit2(&zs, 6, Z_DEFLATED, gzip ? 15 + 16 : 15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return WN_ENOMEM;
  zs.next_in = (unsigned char *)(uintptr_t)data;
  zs.avail_in = (uInt)len;
  unsigned char chunk[16384];
  wn_err err = WN_OK;
  int ret;
  do {
    zs.next_out = chunk;
    zs.avail_out = sizeof chunk;
    ret = deflate(&zs, Z_FINISH);
    if (ret == Z_STREAM_ERROR) {
      err = WN_EINVAL;
      break;
    }
    if ((err = wn_buf_append(out, chunk, sizeof chunk - zs.avail_out)))
      break;
  } while (ret != Z_STREAM_END);
  deflateEnd(&zs);
  return err;
}

int main(int argc, char **argv) {
  const char *gzip_mode = NULL, *encoding = NULL, *charset = NULL;
  int chunked = 0;
  long limit = -1;
  int i = 1;
  for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0) {
      usage(stdout);
      return WN_EXIT_OK;
    }
    if (strcmp(a, "--read") == 0 && i + 2 == argc)
      return read_back(argv[i + 1]);
    if (strcmp(a, "--chunked") == 0)
      chunked = 1;
    else if (strcmp(a, "--gzip") == 0 && i + 1 < argc)
      gzip_mode = argv[++i];
    else if (strcmp(a, "--encoding") == 0 && i + 1 < argc)
      encoding = argv[++i];
    else if (strcmp(a, "--charset") == 0 && i + 1 < argc)
      charset = argv[++i];
    else if (strcmp(a, "--limit") == 0 && i + 1 < argc) {
      uint32_t n = 0;
      if (wn_parse_u32(argv[++i], 0, UINT32_MAX, &n) != 0) {
        usage(stderr);
        return WN_EXIT_USAGE;
      }
      limit = (long)n;
    } else {
      usage(stderr);
      return WN_EXIT_USAGE;
    }
  }
  if (argc - i != 2 || (encoding && strcmp(encoding, "gzip") && strcmp(encoding, "deflate"))) {
    usage(stderr);
    return WN_EXIT_USAGE;
  }
  const char *corpus = argv[i], *out_path = argv[i + 1];
  wn_warc_writer_options wopts;
  wn_warc_writer_options_init(&wopts);
  wopts.software = "make-warc (winnow " WN_VERSION_STRING ")";
  if (gzip_mode) {
    if (strcmp(gzip_mode, "record") == 0)
      wopts.gzip = WN_WARC_GZIP_RECORD;
    else if (strcmp(gzip_mode, "file") == 0)
      wopts.gzip = WN_WARC_GZIP_FILE;
    else if (strcmp(gzip_mode, "none") == 0)
      wopts.gzip = WN_WARC_GZIP_NONE;
    else {
      usage(stderr);
      return WN_EXIT_USAGE;
    }
  }
  int rc = WN_EXIT_INPUT;
  wn_diag diag = {{0}};
  char *index = NULL;
  size_t index_len = 0;
  wn_warc_writer *w = NULL;
  wn_buf path, http, body;
  wn_buf_init(&path, 8192);
  wn_buf_init(&http, WN_PAGE_MAX_BYTES * 2);
  wn_buf_init(&body, WN_PAGE_MAX_BYTES * 2);
  wn_err err;
  if ((err = wn_buf_printf(&path, "%s/pages.tsv", corpus)) ||
      (err = wn_file_read(path.data, MAX_INDEX_BYTES, &index, &index_len, &diag))) {
    fprintf(stderr, "make-warc: %s\n", wn_diag_message(&diag, err));
    goto out;
  }
  if ((err = wn_warc_writer_open(out_path, &wopts, &w, &diag))) {
    fprintf(stderr, "make-warc: %s\n", wn_diag_message(&diag, err));
    rc = WN_EXIT_INTERNAL;
    goto out;
  }
  /* the header line names the columns */
  int col_group = -1, col_id = -1, col_url = -1;
  char *line = index, *end = index + index_len;
  long n_pages = 0, n_lines = 0;
  while (line < end && (limit < 0 || n_pages < limit)) {
    char *nl = memchr(line, '\n', (size_t)(end - line));
    char *eol = nl ? nl : end;
    if (eol > line && eol[-1] == '\r')
      eol[-1] = '\0';
    *eol = '\0';
    char *fields[MAX_FIELDS];
    size_t nf = 0;
    for (char *f = line; nf < MAX_FIELDS;) {
      fields[nf++] = f;
      char *tab = strchr(f, '\t');
      if (!tab)
        break;
      *tab = '\0';
      f = tab + 1;
    }
    line = nl ? nl + 1 : end;
    if (n_lines++ == 0) {
      for (size_t k = 0; k < nf; k++) {
        if (strcmp(fields[k], "group") == 0)
          col_group = (int)k;
        else if (strcmp(fields[k], "id") == 0)
          col_id = (int)k;
        else if (strcmp(fields[k], "url") == 0)
          col_url = (int)k;
      }
      if (col_group < 0 || col_id < 0) {
        fprintf(stderr, "make-warc: %s/pages.tsv: no group and id columns\n", corpus);
        goto out;
      }
      continue;
    }
    if (fields[0][0] == '\0' || (size_t)col_group >= nf || (size_t)col_id >= nf)
      continue;
    const char *group = fields[col_group], *id = fields[col_id];
    char *page = NULL;
    size_t page_len = 0;
    wn_buf_reset(&path);
    if ((err = wn_buf_printf(&path, "%s/html/%s/%s.html", corpus, group, id)) ||
        (err = wn_file_read(path.data, WN_PAGE_MAX_BYTES, &page, &page_len, &diag))) {
      fprintf(stderr, "make-warc: %s\n", wn_diag_message(&diag, err));
      wn_diag_clear(&diag);
      continue;
    }
    wn_buf_reset(&body);
    if (encoding)
      err = compress_body(page, page_len, strcmp(encoding, "gzip") == 0, &body);
    else
      err = wn_buf_append(&body, page, page_len);
    free(page);
    wn_buf_reset(&http);
    if (!err)
      err = wn_buf_printf(&http, "HTTP/1.1 200 OK\r\nContent-Type: text/html%s%s\r\n%s%s%s",
                          charset ? "; charset=" : "", charset ? charset : "",
                          encoding ? "Content-Encoding: " : "", encoding ? encoding : "",
                          encoding ? "\r\n" : "");
    if (!err && chunked) {
      err = wn_buf_append_str(&http, "Transfer-Encoding: chunked\r\n\r\n");
      for (size_t at = 0; !err && at < body.len; at += 4096) {
        size_t n = body.len - at < 4096 ? body.len - at : 4096;
        if (!(err = wn_buf_printf(&http, "%zx\r\n", n)) &&
            !(err = wn_buf_append(&http, body.data + at, n)))
          err = wn_buf_append_str(&http, "\r\n");
      }
      if (!err)
        err = wn_buf_append_str(&http, "0\r\n\r\n");
    } else if (!err) {
      if (!(err = wn_buf_printf(&http, "Content-Length: %zu\r\n\r\n", body.len)))
        err = wn_buf_append(&http, body.data ? body.data : "", body.len);
    }
    char url[2048];
    int un = col_url >= 0 && (size_t)col_url < nf
                 ? snprintf(url, sizeof url, "%s", fields[col_url])
                 : snprintf(url, sizeof url, "http://%s/%s.html", group, id);
    if (err || un < 0 || (size_t)un >= sizeof url) {
      fprintf(stderr, "make-warc: %s: %s\n", path.data, err ? wn_strerror(err) : "URL too long");
      continue;
    }
    wn_warc_record rec = {.type = "response",
                          .target_uri = url,
                          .content_type = "application/http; msgtype=response",
                          .block = http.data,
                          .block_len = http.len};
    if ((err = wn_warc_write_record(w, &rec, NULL, &diag))) {
      fprintf(stderr, "make-warc: %s\n", wn_diag_message(&diag, err));
      rc = WN_EXIT_INTERNAL;
      goto out;
    }
    n_pages++;
  }
  err = wn_warc_writer_close(w, &diag);
  w = NULL;
  if (err) {
    fprintf(stderr, "make-warc: %s\n", wn_diag_message(&diag, err));
    rc = WN_EXIT_INTERNAL;
    goto out;
  }
  fprintf(stderr, "make-warc: %ld pages into %s\n", n_pages, out_path);
  rc = WN_EXIT_OK;
out:
  wn_warc_writer_close(w, NULL);
  wn_buf_free(&path);
  wn_buf_free(&http);
  wn_buf_free(&body);
  free(index);
  return rc;
}
