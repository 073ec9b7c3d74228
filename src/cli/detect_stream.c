/*
 * cli/detect_stream.c: `winnow detect --jsonl`, a stream of pages in, one
 * JSON object per page out.
 *
 * Every input line gets exactly one output line, in order, so a caller can
 * pair them up by position alone: a line that cannot be handled (not JSON,
 * missing fields, unreadable page, a damaged template, ...) gets an
 * {"id", "error"} object and the stream goes on. A site without a template
 * is no error: the single-page fallback serves its pages. Only a store
 * that cannot be opened (before the stream starts) or an input that cannot
 * be read stops it.
 *
 * The lines go through the batch pipeline (batch.c): this file is its
 * JSONL source (a line is read on the reader thread, parsed on a worker)
 * and its JSONL sink (one line per page on stdout, flushed).
 */
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>



/* ---- a bounded line reader ---------------------------------------------- */

/* Reads with read(2), not stdio: a stream is often a pipe whose writer
 * waits for our answer before it sends the next line, so we must not block
 * to fill a buffer. Lines past the cap are consumed and dropped, and
 * reported, so that the next line is read as it should be. */
typedef struct wn_line_reader {
  int fd;
  size_t pos, len;
  int eof;
  char chunk[64 * 1024];
} wn_line_reader;

/* 1: a line is in *line (without its '\n'), or *line_err says why it was
 * dropped (WN_ETOOBIG past the cap, WN_ENOMEM). 0: end of input. -1: read
 * error (errno). */
static int wn_line_read(wn_line_reader *r, wn_buf *line, wn_err *line_err) {
  int any = 0;
  wn_buf_reset(line);
  *line_err = WN_OK;
  for (;;) {
    if (r->pos == r->len) {
      if (r->eof)
        return any;
      ssize_t n = read(r->fd, r->chunk, sizeof r->chunk);
      if (n < 0) {
        if (errno == EINTR)
          continue;
        return -1;
      }
      r->pos = 0;
      r->len = (size_t)n;
      if (n == 0) {
        r->eof = 1;
        continue;
      }
    }
    any = 1;
    const char *start = r->chunk + r->pos;
    const char *nl = memchr(start, '\n', r->len - r->pos);
    size_t n = nl ? (size_t)(nl - start) : r->len - r->pos;
    if (*line_err == WN_OK) {
      wn_err err = wn_buf_append(line, start, n);
      if (err) {
        *line_err = err;
        wn_buf_free(line); /* keeps the cap; do not hold 32 MiB for nothing */
      }
    }
    r->pos += n + (nl ? 1 : 0);
    if (nl)
      return 1;
  }
}

/* ---- the JSONL source ------------------------------------------------------ */

typedef struct wn_stream_source {
  int fd;
  int is_stdin;
  const char *input;
  wn_line_reader *reader;
  wn_buf line;
} wn_stream_source;

/* Reader thread: one line, its bytes handed to the page as they are. */
static int wn_stream_next(void *ctx, wn_batch_page *page) {
  wn_stream_source *s = ctx;
  wn_err line_err = WN_OK;
  int got = wn_line_read(s->reader, &s->line, &line_err);
  if (got < 0) {
    wn_cli_error("cannot read %s: %s", s->is_stdin ? "stdin" : s->input, strerror(errno));
    return -1;
  }
  if (got == 0)
    return 0;
  if (line_err == WN_ETOOBIG) {
    page->read_err = wn_diag_set(&page->diag, WN_ETOOBIG,
                                 "line is longer than the cap of %zu bytes", WN_CLI_MAX_LINE_BYTES);
  } else if (line_err) {
    page->read_err = wn_diag_set(&page->diag, line_err, "cannot read the line: %s",
                                 wn_strerror(line_err));
  } else if (s->line.len > 0) {
    /* A copy: the line buffer keeps its allocation for the next line. */
    page->raw = malloc(s->line.len + 1);
    if (!page->raw) {
      page->read_err = wn_diag_set(&page->diag, WN_ENOMEM, "cannot read the line: %s",
                                   wn_strerror(WN_ENOMEM));
    } else {
      memcpy(page->raw, s->line.data, s->line.len + 1);
      page->raw_len = s->line.len;
    }
  }
  return 1;
}

/* What a line owns while it is detected. */
typedef struct wn_stream_prepared {
  json_t *root;
  char *file_bytes;
  char charset[64];
} wn_stream_prepared;

static void wn_stream_release(void *ctx, wn_batch_page *page) {
  (void)ctx;
  wn_stream_prepared *p = page->prepared;
  if (p) {
    json_decref(p->root);
    free(p->file_bytes);
    free(p);
  }
  page->prepared = NULL;
}

static int wn_blank(const char *s, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
      return 0;
  return 1;
}

/* A string field of a line: NULL if absent; WN_EINVAL if not a string
 * or holding a NUL (names and URLs are C strings). */
static wn_err wn_stream_string(const json_t *root, const char *key, int allow_nul,
                               const char **out, size_t *len, wn_diag *diag) {
  const json_t *v = json_object_get(root, key);
  *out = NULL;
  if (!v)
    return WN_OK;
  if (!json_is_string(v))
    return wn_diag_set(diag, WN_EINVAL, "\"%s\" must be a string", key);
  if (!allow_nul && strlen(json_string_value(v)) != json_string_length(v))
    return wn_diag_set(diag, WN_EINVAL, "\"%s\" contains a NUL character", key);
  *out = json_string_value(v);
  if (len)
    *len = json_string_length(v);
  return WN_OK;
}

/* A worker: the line's JSON into the page's input. The id is kept first,
 * so that an error on a later field still echoes it. */
static wn_err wn_stream_prepare(void *ctx, wn_batch_page *page, wn_diag *diag) {
  (void)ctx;
  wn_err err = WN_OK;
  const char *data = page->raw ? page->raw : "";
  wn_stream_prepared *p = calloc(1, sizeof *p);
  if (!p)
    return wn_diag_set(diag, WN_ENOMEM, "out of memory");
  page->prepared = p;
  if (wn_blank(data, page->raw_len))
    return wn_diag_set(diag, WN_EINVAL, "empty line");
  json_error_t jerr;
  p->root = json_loadb(data, page->raw_len,
                       JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES, &jerr);
  if (!p->root)
    return wn_diag_set(diag, WN_EINVAL, "not JSON: %s (column %d)", jerr.text, jerr.column);
  if (!json_is_object(p->root))
    return wn_diag_set(diag, WN_EINVAL, "not a JSON object");
  const json_t *id = json_object_get(p->root, "id");
  page->id_json = json_dumps(id ? id : json_null(), JSON_ENCODE_ANY | JSON_COMPACT);
  if (!page->id_json)
    return wn_diag_set(diag, WN_ENOMEM, "out of memory");

  const char *site = NULL, *url = NULL, *html = NULL, *path = NULL, *charset = NULL,
             *content_type = NULL;
  size_t html_len = 0;
  if ((err = wn_stream_string(p->root, "site", 0, &site, NULL, diag)) ||
      (err = wn_stream_string(p->root, "url", 0, &url, NULL, diag)) ||
      (err = wn_stream_string(p->root, "html", 1, &html, &html_len, diag)) ||
      (err = wn_stream_string(p->root, "path", 0, &path, NULL, diag)) ||
      (err = wn_stream_string(p->root, "charset", 0, &charset, NULL, diag)) ||
      (err = wn_stream_string(p->root, "content_type", 0, &content_type, NULL, diag)))
    return err;
  if (html && path)
    return wn_diag_set(diag, WN_EINVAL, "give \"html\" or \"path\", not both");
  if (!html && !path)
    return wn_diag_set(diag, WN_EINVAL, "line needs \"html\" (the page) or \"path\" (a file)");
  if (html && html_len > WN_PAGE_MAX_BYTES)
    return wn_diag_set(diag, WN_ETOOBIG, "page of %zu bytes is past the cap of %zu bytes",
                       html_len, WN_PAGE_MAX_BYTES);
  /* Neither site nor url: the library's single-page method. The URL goes
   * with the site too: links are made absolute against it. */
  page->in = (wn_page_input){.bytes = html, .len = html_len, .site = site, .url = url};
  if (path) {
    err = wn_file_read(path, WN_PAGE_MAX_BYTES, &p->file_bytes, &page->in.len, diag);
    if (err)
      return err;
    page->in.bytes = p->file_bytes;
    /* The file holds the bytes as fetched: the transport's charset is
     * theirs (HTML's encoding sniffing puts it after a byte order mark and
     * before <meta>). An explicit "charset" wins over "content_type". */
    if (charset) {
      page->in.charset = charset;
    } else if (content_type) {
      wn_content_type_charset(content_type, p->charset, sizeof p->charset);
      page->in.charset = p->charset[0] ? p->charset : NULL;
    }
  } else {
    /* A JSON string is Unicode, which jansson hands us as UTF-8: a <meta>
     * inside the page, like a "charset" or "content_type" of the line,
     * names the charset of bytes it no longer has. */
    page->in.charset = "UTF-8";
  }
  return WN_OK;
}


/* ---- the stream ------------------------------------------------------------ */

int wn_cli_detect_stream(const wn_batch_options *opts, const char *input, wn_cli_format format) {
  int rc = WN_EXIT_INPUT;
  wn_stream_source s = {.fd = -1, .is_stdin = strcmp(input, "-") == 0, .input = input};
  wn_buf_init(&s.line, WN_CLI_MAX_LINE_BYTES);
  s.reader = calloc(1, sizeof *s.reader);
  if (!s.reader) {
    wn_cli_error("out of memory");
    rc = WN_EXIT_INTERNAL;
    goto out;
  }
  s.fd = s.is_stdin ? STDIN_FILENO : open(input, O_RDONLY | O_CLOEXEC);
  if (s.fd < 0) {
    wn_cli_error("cannot open %s: %s", input, strerror(errno));
    goto out;
  }
  s.reader->fd = s.fd;
  wn_batch_source source = {.ctx = &s, .next = wn_stream_next, .prepare = wn_stream_prepare,
                            .release = wn_stream_release};
  wn_batch_sink sink = {.want = WN_WANT_TEXT | WN_WANT_NODES |
                                (format == WN_FORMAT_HTML ? WN_WANT_HTML : 0) |
                                (format == WN_FORMAT_MARKDOWN ? WN_WANT_MARKDOWN : 0) |
                                wn_cli_want_extra(opts->output, format, 1),
                        .render = wn_cli_render_jsonl,
                        .write = wn_cli_write_line};
  rc = wn_cli_batch_run(opts, &source, &sink);
out:
  if (!s.is_stdin && s.fd >= 0)
    close(s.fd);
  free(s.reader);
  wn_buf_free(&s.line);
  return rc;
}
