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

/* ---- one line -------------------------------------------------------------- */

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

/* Detection for one parsed line: the result's JSON with "id" first. */
static wn_err wn_stream_detect(wn_detector *d, wn_cli_format format, const json_t *root,
                               char **out, wn_diag *diag) {
  wn_err err = WN_OK;
  char *file_bytes = NULL, *id_json = NULL;
  wn_page_result *r = NULL;
  const char *site = NULL, *url = NULL, *html = NULL, *path = NULL;
  size_t html_len = 0;
  if ((err = wn_stream_string(root, "site", 0, &site, NULL, diag)) ||
      (err = wn_stream_string(root, "url", 0, &url, NULL, diag)) ||
      (err = wn_stream_string(root, "html", 1, &html, &html_len, diag)) ||
      (err = wn_stream_string(root, "path", 0, &path, NULL, diag)))
    goto out;
  if (html && path) {
    err = wn_diag_set(diag, WN_EINVAL, "give \"html\" or \"path\", not both");
    goto out;
  }
  if (!html && !path) {
    err = wn_diag_set(diag, WN_EINVAL, "line needs \"html\" (the page) or \"path\" (a file)");
    goto out;
  }
  if (html && html_len > WN_PAGE_MAX_BYTES) {
    err = wn_diag_set(diag, WN_ETOOBIG, "page of %zu bytes is past the cap of %zu bytes",
                      html_len, WN_PAGE_MAX_BYTES);
    goto out;
  }
  /* The URL goes with the site too: links are made absolute against it. */
  wn_page_input in = {.bytes = html, .len = html_len, .site = site, .url = url};
  if (path) {
    err = wn_file_read(path, WN_PAGE_MAX_BYTES, &file_bytes, &in.len, diag);
    if (err)
      goto out;
    in.bytes = file_bytes;
  } else {
    /* A JSON string is Unicode, which jansson hands us as UTF-8: a <meta>
     * inside the page names the charset of bytes it no longer has. */
    in.charset = "UTF-8";
  }
  unsigned want = WN_WANT_TEXT | WN_WANT_NODES | (format == WN_FORMAT_HTML ? WN_WANT_HTML : 0) |
                  (format == WN_FORMAT_MARKDOWN ? WN_WANT_MARKDOWN : 0) |
                  wn_cli_detect_extra_want;
  err = wn_detector_detect(d, &in, want, &r, diag);
  if (err)
    goto out;
  const json_t *id = json_object_get(root, "id");
  id_json = json_dumps(id ? id : json_null(), JSON_ENCODE_ANY | JSON_COMPACT);
  if (!id_json) {
    err = wn_diag_set(diag, WN_ENOMEM, "out of memory");
    goto out;
  }
  err = wn_page_result_json(r, id_json, 0, out, diag);
out:
  free(id_json);
  free(file_bytes);
  wn_page_result_free(r);
  return err;
}

/* The output line of one input line (malloc'd); NULL only when out of
 * memory. */
static char *wn_stream_line(wn_detector *d, wn_cli_format format, const wn_buf *line,
                            wn_err line_err) {
  wn_err err = WN_OK;
  wn_diag diag = {{0}};
  json_t *root = NULL;
  char *text = NULL;
  const char *data = line->data ? line->data : "";
  if (line_err == WN_ETOOBIG) {
    err = wn_diag_set(&diag, WN_ETOOBIG, "line is longer than the cap of %zu bytes",
                      WN_CLI_MAX_LINE_BYTES);
    goto out;
  }
  if (line_err) {
    err = wn_diag_set(&diag, line_err, "cannot read the line: %s", wn_strerror(line_err));
    goto out;
  }
  if (wn_blank(data, line->len)) {
    err = wn_diag_set(&diag, WN_EINVAL, "empty line");
    goto out;
  }
  json_error_t jerr;
  root = json_loadb(data, line->len, JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES,
                    &jerr);
  if (!root) {
    err = wn_diag_set(&diag, WN_EINVAL, "not JSON: %s (column %d)", jerr.text, jerr.column);
    goto out;
  }
  if (!json_is_object(root)) {
    err = wn_diag_set(&diag, WN_EINVAL, "not a JSON object");
    goto out;
  }
  err = wn_stream_detect(d, format, root, &text, &diag);
out:
  if (err) {
    /* {"id", "error"}: the id echoed as it came (null if there was none). */
    json_t *id = json_is_object(root) ? json_object_get(root, "id") : NULL;
    json_t *msg = json_string(wn_diag_message(&diag, err));
    /* A message quoting a file name that is not UTF-8. */
    if (!msg)
      msg = json_string(wn_strerror(err));
    json_t *obj = json_pack("{s:O, s:o}", "id", id ? id : json_null(), "error", msg);
    text = obj ? json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(obj);
  }
  json_decref(root);
  return text;
}

/* ---- the stream ------------------------------------------------------------ */

int wn_cli_detect_stream(wn_detector *d, const char *input, wn_cli_format format) {
  int rc = WN_EXIT_INPUT;
  int is_stdin = strcmp(input, "-") == 0;
  wn_line_reader *reader = NULL;
  wn_buf line;
  wn_buf_init(&line, WN_CLI_MAX_LINE_BYTES);

  reader = calloc(1, sizeof *reader);
  if (!reader) {
    wn_cli_error("out of memory");
    rc = WN_EXIT_INTERNAL;
    goto out;
  }
  reader->fd = is_stdin ? STDIN_FILENO : open(input, O_RDONLY | O_CLOEXEC);
  if (reader->fd < 0) {
    wn_cli_error("cannot open %s: %s", input, strerror(errno));
    goto out;
  }
  for (;;) {
    wn_err line_err = WN_OK;
    int got = wn_line_read(reader, &line, &line_err);
    if (got < 0) {
      wn_cli_error("cannot read %s: %s", is_stdin ? "stdin" : input, strerror(errno));
      goto out;
    }
    if (got == 0)
      break;
    char *text = wn_stream_line(d, format, &line, line_err);
    if (!text) {
      wn_cli_error("out of memory writing the output of a line");
      rc = WN_EXIT_INTERNAL;
      goto out;
    }
    /* One line out per line in, flushed: a caller may wait for it before
     * sending the next. */
    int written = wn_cli_write(text, strlen(text)) | wn_cli_write("\n", 1);
    free(text);
    if (written != 0 || fflush(stdout) != 0) {
      wn_cli_error("cannot write the output");
      rc = WN_EXIT_INTERNAL;
      goto out;
    }
  }
  rc = WN_EXIT_OK;
out:
  if (reader && !is_stdin && reader->fd >= 0)
    close(reader->fd);
  free(reader);
  wn_buf_free(&line);
  return rc;
}
