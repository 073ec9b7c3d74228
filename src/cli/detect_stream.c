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
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "dom/dom.h"

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

/* ---- the template cache -------------------------------------------------- */

/* The decoded templates of the sites seen so far, least recently used
 * evicted first. A linear scan of WN_CLI_TEMPLATE_CACHE entries costs far
 * less than the page parse it sits next to. Templates are read once: a
 * template learned while the stream runs is seen by the next stream. */
typedef struct wn_cache_entry {
  char site[WN_STORE_MAX_SITE + 1];
  int used;            /* the slot holds a site */
  wn_template *tpl;    /* NULL: the site has no template (the fallback serves it) */
  uint64_t generation;
  uint64_t last_used;
  uint32_t pages, low; /* detections not yet counted in the store */
} wn_cache_entry;

typedef struct wn_stream {
  wn_store *store;
  const wn_cli_detect_config *config;
  wn_cache_entry *cache; /* WN_CLI_TEMPLATE_CACHE entries */
  uint64_t clock;
} wn_stream;

/* Writes a slot's pending counts: one write transaction per site and
 * stream (or eviction), not per page. */
static void wn_stream_flush(wn_stream *s, wn_cache_entry *e) {
  if (e->used && e->tpl && e->pages > 0)
    wn_cli_count(s->store, e->site, e->generation, e->pages, e->low, s->config, NULL);
  e->pages = e->low = 0;
}

/* The site's slot, loading its template (or learning it has none). */
static wn_err wn_stream_template(wn_stream *s, const char *site, wn_cache_entry **out,
                                 wn_diag *diag) {
  wn_cache_entry *slot = &s->cache[0];
  for (uint32_t i = 0; i < WN_CLI_TEMPLATE_CACHE; i++) {
    wn_cache_entry *e = &s->cache[i];
    if (e->used && strcmp(e->site, site) == 0) {
      e->last_used = ++s->clock;
      *out = e;
      return WN_OK;
    }
    /* The victim: an empty slot, else the least recently used. */
    if (slot->used && (!e->used || e->last_used < slot->last_used))
      slot = e;
  }
  wn_template *tpl = NULL;
  uint64_t generation = 0;
  if (s->store) {
    wn_err err = wn_cli_load_template(s->store, site, &tpl, &generation, diag);
    if (err && err != WN_ENOTEMPLATE)
      return err;
    wn_diag_clear(diag);
  }
  wn_stream_flush(s, slot);
  wn_template_free(slot->tpl);
  size_t len = strlen(site); /* checked: <= WN_STORE_MAX_SITE */
  memcpy(slot->site, site, len + 1);
  slot->used = 1;
  slot->tpl = tpl;
  slot->generation = generation;
  slot->last_used = ++s->clock;
  *out = slot;
  return WN_OK;
}

/* ---- one line -------------------------------------------------------------- */

static int wn_blank(const char *s, size_t len) {
  for (size_t i = 0; i < len; i++)
    if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
      return 0;
  return 1;
}

/* The site of a line: "site" if given, else the host of "url". */
static wn_err wn_stream_site(const json_t *root, char *site, size_t site_size, wn_diag *diag) {
  const json_t *site_value = json_object_get(root, "site");
  const json_t *url_value = json_object_get(root, "url");
  if (site_value) {
    if (!json_is_string(site_value))
      return wn_diag_set(diag, WN_EINVAL, "\"site\" must be a string");
    const char *name = json_string_value(site_value);
    if (strlen(name) != json_string_length(site_value))
      return wn_diag_set(diag, WN_EINVAL, "\"site\" contains a NUL character");
    wn_err err = wn_cli_check_site(name, diag);
    if (err)
      return err;
    memcpy(site, name, strlen(name) + 1);
    return WN_OK;
  }
  if (url_value) {
    if (!json_is_string(url_value))
      return wn_diag_set(diag, WN_EINVAL, "\"url\" must be a string");
    if (strlen(json_string_value(url_value)) != json_string_length(url_value))
      return wn_diag_set(diag, WN_EINVAL, "\"url\" contains a NUL character");
    return wn_cli_site_from_url(json_string_value(url_value), site, site_size, diag);
  }
  return wn_diag_set(diag, WN_EINVAL, "line needs \"site\" or \"url\"");
}

/* Detection for one parsed line: fills out with "site", "method",
 * "confidence", "text" (and "html"); the caller puts "id" first. */
static wn_err wn_stream_detect(wn_stream *s, const json_t *root, json_t *out, wn_diag *diag) {
  wn_err err = WN_OK;
  char *file_bytes = NULL;
  wn_dom_page *page = NULL;
  wn_detect_result *result = NULL;
  wn_buf text, html;
  wn_buf_init(&text, WN_CLI_MAX_OUTPUT_BYTES);
  wn_buf_init(&html, WN_CLI_MAX_OUTPUT_BYTES);
  char site[WN_STORE_MAX_SITE + 1];

  /* Without a store every page goes to the single-page method: a line
   * may then leave out its site. */
  site[0] = '\0';
  if (s->store || json_object_get(root, "site") || json_object_get(root, "url")) {
    err = wn_stream_site(root, site, sizeof site, diag);
    if (err)
      goto out;
  }
  const json_t *html_value = json_object_get(root, "html");
  const json_t *path_value = json_object_get(root, "path");
  if (html_value && path_value) {
    err = wn_diag_set(diag, WN_EINVAL, "give \"html\" or \"path\", not both");
    goto out;
  }
  if (!html_value && !path_value) {
    err = wn_diag_set(diag, WN_EINVAL, "line needs \"html\" (the page) or \"path\" (a file)");
    goto out;
  }
  if (!json_is_string(html_value ? html_value : path_value)) {
    err = wn_diag_set(diag, WN_EINVAL, "\"%s\" must be a string", html_value ? "html" : "path");
    goto out;
  }
  if (path_value && strlen(json_string_value(path_value)) != json_string_length(path_value)) {
    err = wn_diag_set(diag, WN_EINVAL, "\"path\" contains a NUL character");
    goto out;
  }
  if (html_value && json_string_length(html_value) > WN_DOM_DEFAULT_MAX_BYTES) {
    err = wn_diag_set(diag, WN_ETOOBIG, "page of %zu bytes is past the cap of %zu bytes",
                      json_string_length(html_value), WN_DOM_DEFAULT_MAX_BYTES);
    goto out;
  }

  wn_cache_entry *entry = NULL;
  err = wn_stream_template(s, site, &entry, diag);
  if (err)
    goto out;

  const char *bytes;
  size_t len = 0;
  if (html_value) {
    bytes = json_string_value(html_value);
    len = json_string_length(html_value);
  } else {
    err = wn_file_read(json_string_value(path_value), WN_DOM_DEFAULT_MAX_BYTES, &file_bytes, &len,
                       diag);
    if (err)
      goto out;
    bytes = file_bytes;
  }
  /* A JSON string is Unicode, which jansson hands us as UTF-8: a <meta>
   * inside the page names the charset of bytes it no longer has. */
  wn_dom_options parse_opts = {.keep_xml = s->config->format == WN_FORMAT_HTML,
                               .transport_charset = html_value ? "UTF-8" : NULL};
  err = wn_dom_parse(bytes, len, &parse_opts, &page, diag);
  if (err)
    goto out;
  err = wn_detect_page(page, entry->tpl, &s->config->detect, &result, diag);
  if (err)
    goto out;
  if (entry->tpl && entry->pages < UINT32_MAX) {
    entry->pages++;
    entry->low += wn_detect_fallback_reason(result) == WN_FALLBACK_LOW_CONFIDENCE;
  }
  err = wn_detect_render_text(page, result, &text);
  if (!err && s->config->format == WN_FORMAT_HTML)
    err = wn_detect_render_html(page, result, &html, diag);
  if (err) {
    wn_diag_set(diag, err, "rendering the content failed");
    goto out;
  }

  json_t *text_value = json_stringn(text.data ? text.data : "", text.len);
  json_t *html_out = s->config->format == WN_FORMAT_HTML
                         ? json_stringn(html.data ? html.data : "", html.len)
                         : json_null();
  int failed = json_object_set_new(out, "site", site[0] ? json_string(site) : json_null()) != 0;
  failed |= json_object_set_new(out, "method", json_string(wn_detect_method(result))) != 0;
  failed |= json_object_set_new(out, "confidence", json_real(wn_detect_confidence(result))) != 0;
  failed |= wn_cli_json_verdict(out, result, NULL, s->config) != 0;
  failed |= json_object_set_new(out, "text", text_value) != 0;
  if (s->config->format == WN_FORMAT_HTML)
    failed |= json_object_set_new(out, "html", html_out) != 0;
  else
    json_decref(html_out);
  if (failed)
    err = wn_diag_set(diag, WN_ENOMEM,
                      "cannot build the output object (out of memory, or text not UTF-8)");
out:
  wn_buf_free(&text);
  wn_buf_free(&html);
  wn_detect_result_free(result);
  wn_dom_free(page);
  free(file_bytes);
  return err;
}

/* The output object of one input line; NULL only when out of memory. */
static json_t *wn_stream_line(wn_stream *s, const wn_buf *line, wn_err line_err) {
  wn_err err = WN_OK;
  wn_diag diag = {{0}};
  json_t *root = NULL;
  json_t *out = json_object();
  json_t *result = json_object();
  if (!out || !result) {
    json_decref(out);
    json_decref(result);
    return NULL;
  }
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
  err = wn_stream_detect(s, root, result, &diag);
out:;
  /* "id" first, echoed as it came (null if there was none). */
  json_t *id = json_is_object(root) ? json_object_get(root, "id") : NULL;
  int failed = json_object_set(out, "id", id ? id : json_null()) != 0;
  if (err) {
    json_t *msg = json_string(wn_diag_message(&diag, err));
    /* A message quoting a file name that is not UTF-8. */
    if (!msg)
      msg = json_string(wn_strerror(err));
    failed |= json_object_set_new(out, "error", msg) != 0;
  } else {
    failed |= json_object_update(out, result) != 0;
  }
  json_decref(result);
  json_decref(root);
  if (failed) {
    json_decref(out);
    return NULL;
  }
  return out;
}

/* ---- the stream ------------------------------------------------------------ */

int wn_cli_detect_stream(wn_store *store, const char *input, const wn_cli_detect_config *config) {
  int rc = WN_EXIT_INPUT;
  int is_stdin = strcmp(input, "-") == 0;
  wn_line_reader *reader = NULL;
  wn_stream s = {.store = store, .config = config};
  wn_buf line;
  wn_buf_init(&line, WN_CLI_MAX_LINE_BYTES);

  s.cache = calloc(WN_CLI_TEMPLATE_CACHE, sizeof *s.cache);
  reader = calloc(1, sizeof *reader);
  if (!s.cache || !reader) {
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
    json_t *obj = wn_stream_line(&s, &line, line_err);
    char *text = obj ? json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6))
                     : NULL;
    json_decref(obj);
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
  /* Counts are written even when the stream stopped early: the pages
   * before the stop were detected. */
  if (s.cache)
    for (uint32_t i = 0; i < WN_CLI_TEMPLATE_CACHE; i++) {
      wn_stream_flush(&s, &s.cache[i]);
      wn_template_free(s.cache[i].tpl);
    }
  free(s.cache);
  wn_buf_free(&line);
  return rc;
}
