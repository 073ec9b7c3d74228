/*
 * cli/detect_warc.c: `winnow detect --warc FILE.warc[.gz]...`, web archives
 * in, through the batch pipeline (batch.c), JSONL or a WET-style WARC out.
 *
 * The source: the HTML pages of the files' `response` records, in file and
 * record order (the library's WARC reader: gzip per record or whole,
 * chunked and compressed payloads, the Content-Type charset). The reading
 * thread hands each page to the pipeline as one block (wn_warc_page_copy,
 * one malloc; with --learn, in the hold's blocks, hold.c) kept in
 * page->raw until the page is written, so the window
 * counts its bytes and the WET writer still has the source record's id,
 * URI and date.
 *
 * The sinks: JSONL on stdout, one line per page in record order, its "id"
 * the record's {"warc_record_id", "url"}; or with --warc-out a WARC of
 * `conversion` records holding each page's main content (text, or Markdown
 * with --format markdown), as Common Crawl's WET files hold the text of
 * theirs, each naming its source with WARC-Refers-To.
 *
 * Damaged records are reported (one stderr line each, naming file and
 * offset) and skipped; the rest of the file is read. A summary line goes to
 * stderr at the end; the exit code is 1 if any file could not be read, any
 * record was damaged or any page failed, else 0.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

#include <jansson.h>

typedef struct wn_warc_source {
  char *const *paths;
  size_t n_paths, next_path;
  const char *current;      /* the file being read */
  wn_warc_reader *reader;
  wn_warc_stats total;      /* of the files read to their end */
  wn_cli_hold *hold;        /* with --learn: where the pages are copied, or NULL */
  unsigned long files_failed;
} wn_warc_source;

typedef struct wn_warc_sink {
  wn_warc_writer *writer;   /* NULL: JSONL on stdout */
  wn_cli_format format;
  unsigned long pages_ok, pages_failed;
} wn_warc_sink;

static void wn_warc_on_damage(const char *message, void *ctx) {
  (void)ctx;
  wn_cli_error("%s", message);
}

static void wn_warc_stats_add(wn_warc_stats *to, const wn_warc_stats *s) {
  to->records += s->records;
  to->pages += s->pages;
  to->skipped_type += s->skipped_type;
  to->skipped_not_html += s->skipped_not_html;
  to->skipped_status += s->skipped_status;
  to->skipped_too_big += s->skipped_too_big;
  to->damaged += s->damaged;
}

static void wn_warc_close_current(wn_warc_source *s) {
  if (!s->reader)
    return;
  wn_warc_stats st;
  wn_warc_reader_stats_get(s->reader, &st);
  wn_warc_stats_add(&s->total, &st);
  wn_warc_reader_close(s->reader);
  s->reader = NULL;
}

/* The reading thread: the next page of the current file, or of the next
 * file that opens. */
static int wn_warc_next_page(void *ctx, wn_batch_page *page) {
  wn_warc_source *s = ctx;
  wn_diag diag;
  for (;;) {
    wn_diag_clear(&diag);
    if (!s->reader) {
      if (s->next_path == s->n_paths)
        return 0;
      s->current = s->paths[s->next_path++];
      wn_warc_reader_options ro;
      wn_warc_reader_options_init(&ro);
      ro.on_damage = wn_warc_on_damage;
      wn_err err = wn_warc_reader_open(s->current, &ro, &s->reader, &diag);
      if (err) {
        wn_cli_error("%s", wn_diag_message(&diag, err));
        s->files_failed++;
        continue;
      }
    }
    wn_warc_page p;
    wn_err got = wn_warc_next(s->reader, &p, &diag);
    if (got == WN_ENOTFOUND) {
      wn_warc_close_current(s);
      continue;
    }
    if (got != WN_OK) {
      /* Reading this file cannot go on (I/O, memory): the next one may. */
      wn_cli_error("%s: %s", s->current, wn_diag_message(&diag, got));
      s->files_failed++;
      wn_warc_close_current(s);
      continue;
    }
    wn_warc_page *copy = NULL;
    /* A --learn run holds its window's pages: in the hold's blocks. */
    const size_t size = s->hold ? wn_warc_page_copy_size(&p) : 0;
    void *held = size ? wn_cli_hold_alloc(s->hold, size) : NULL;
    wn_err err = held ? wn_warc_page_copy_to(&p, held, size, &copy, &diag)
                      : wn_warc_page_copy(&p, &copy, &diag);
    if (err) {
      wn_cli_hold_free(s->hold, held);
      page->read_err = err;
      page->diag = diag;
      return 1;
    }
    page->hold = held ? s->hold : NULL;
    page->raw = (char *)copy; /* one block, freed by the pipeline */
    page->raw_len = p.payload_len;
    page->name = copy->target_uri ? strdup(copy->target_uri) : NULL;
    return 1;
  }
}

/* A worker: the page's input, and its id for JSON output. */
static wn_err wn_warc_prepare(void *ctx, wn_batch_page *page, wn_diag *diag) {
  (void)ctx;
  const wn_warc_page *w = (const wn_warc_page *)page->raw;
  page->in = (wn_page_input){.bytes = w->payload,
                             .len = w->payload_len,
                             .url = w->target_uri,
                             .charset = w->charset && *w->charset ? w->charset : NULL};
  json_t *id = json_object();
  if (id) {
    json_object_set_new(id, "warc_record_id", w->record_id ? json_string(w->record_id)
                                                           : json_null());
    json_object_set_new(id, "url", w->target_uri ? json_string(w->target_uri) : json_null());
    page->id_json = json_dumps(id, JSON_COMPACT);
    json_decref(id);
  }
  if (!page->id_json)
    return wn_diag_set(diag, WN_ENOMEM, "out of memory");
  return WN_OK;
}

/* ---- the WET sink ---------------------------------------------------------- */

static void wn_wet_render(void *ctx, wn_batch_page *page, const wn_page_result *r) {
  wn_warc_sink *k = ctx;
  if (!r) {
    page->out = strdup("");
    page->out_len = 0;
    return;
  }
  size_t len = 0;
  const char *content = k->format == WN_FORMAT_MARKDOWN ? wn_page_result_markdown(r, &len)
                                                        : wn_page_result_text(r, &len);
  page->out = malloc(len + 1);
  if (page->out) {
    memcpy(page->out, content, len);
    page->out[len] = '\0';
    page->out_len = len;
  }
}

static int wn_wet_write(void *ctx, wn_batch_page *page) {
  wn_warc_sink *k = ctx;
  if (page->err) {
    wn_cli_error("%s: %s", page->name ? page->name : "(a record)",
                 wn_diag_message(&page->diag, page->err));
    k->pages_failed++;
    return WN_EXIT_OK;
  }
  wn_diag diag;
  wn_diag_clear(&diag);
  /* wn_warc_write_conversion's record, typed for what it holds: Markdown
   * is text/markdown (RFC 7763, which asks for the charset), text is
   * text/plain as in a WET file. */
  const wn_warc_page *src = (const wn_warc_page *)page->raw;
  const wn_warc_record rec = {.type = "conversion",
                              .target_uri = src->target_uri,
                              .date = src->date,
                              .refers_to = src->record_id,
                              .content_type = k->format == WN_FORMAT_MARKDOWN
                                                  ? "text/markdown; charset=utf-8"
                                                  : "text/plain",
                              .block = page->out ? page->out : "",
                              .block_len = page->out_len};
  wn_err err = wn_warc_write_record(k->writer, &rec, NULL, &diag);
  if (err) {
    wn_cli_error("%s", wn_diag_message(&diag, err));
    return WN_EXIT_INTERNAL;
  }
  k->pages_ok++;
  return WN_EXIT_OK;
}

/* JSONL: the stream's sink, counting. */
static void wn_warc_jsonl_render(void *ctx, wn_batch_page *page, const wn_page_result *r) {
  (void)ctx;
  wn_cli_render_jsonl(NULL, page, r);
}

static int wn_warc_jsonl_write(void *ctx, wn_batch_page *page) {
  wn_warc_sink *k = ctx;
  if (page->err)
    k->pages_failed++;
  else
    k->pages_ok++;
  return wn_cli_write_line(NULL, page);
}

int wn_cli_detect_warc(const wn_batch_options *opts, char *const *paths, size_t n_paths,
                       const char *warc_out, wn_cli_format format) {
  int rc = WN_EXIT_OK;
  wn_diag diag;
  wn_diag_clear(&diag);
  wn_warc_source src = {.paths = paths, .n_paths = n_paths};
  wn_warc_sink k = {.format = format};
  if (warc_out) {
    wn_warc_writer_options wo;
    wn_warc_writer_options_init(&wo);
    wn_err err = wn_warc_writer_open(warc_out, &wo, &k.writer, &diag);
    if (err) {
      wn_cli_error("%s", wn_diag_message(&diag, err));
      return err == WN_ENOMEM ? WN_EXIT_INTERNAL : WN_EXIT_INPUT;
    }
  }
  wn_batch_source source = {.ctx = &src, .next = wn_warc_next_page, .prepare = wn_warc_prepare};
  unsigned want = format == WN_FORMAT_MARKDOWN ? WN_WANT_MARKDOWN : WN_WANT_TEXT;
  wn_batch_sink sink = {.ctx = &k, .want = want, .render = wn_wet_render, .write = wn_wet_write};
  if (!warc_out) {
    sink.want = WN_WANT_TEXT | WN_WANT_NODES | (format == WN_FORMAT_HTML ? WN_WANT_HTML : 0) |
                (format == WN_FORMAT_MARKDOWN ? WN_WANT_MARKDOWN : 0) |
                wn_cli_want_extra(opts->output, format, 1);
    sink.render = wn_warc_jsonl_render;
    sink.write = wn_warc_jsonl_write;
  } else {
    /* The WET text alone (Markdown with its front matter): no node paths
     * to compute. */
    sink.want |= wn_cli_want_extra(opts->output, format, 0);
  }
  if (opts->learn)
    src.hold = wn_cli_hold_create(); /* NULL: malloc, as without --learn */
  rc = wn_cli_batch_run(opts, &source, &sink);
  wn_cli_hold_destroy(src.hold); /* every page is freed once the run returns */
  wn_warc_close_current(&src);
  if (k.writer) {
    wn_err err = wn_warc_writer_close(k.writer, &diag);
    if (err) {
      wn_cli_error("%s", wn_diag_message(&diag, err));
      if (rc == WN_EXIT_OK)
        rc = WN_EXIT_INTERNAL;
    }
  }
  const wn_warc_stats *t = &src.total;
  unsigned long empty = opts->counts ? atomic_load(&opts->counts->empty) : 0;
  wn_cli_error("%zu WARC file(s): %llu records, %llu HTML pages (%lu detected, %lu with no "
               "content, %lu failed), "
               "skipped %llu (not a response), %llu (not HTML), %llu (HTTP status), "
               "%llu (too big); %llu damaged; %lu file(s) unreadable",
               n_paths, (unsigned long long)t->records, (unsigned long long)t->pages,
               k.pages_ok, empty, k.pages_failed, (unsigned long long)t->skipped_type,
               (unsigned long long)t->skipped_not_html, (unsigned long long)t->skipped_status,
               (unsigned long long)t->skipped_too_big, (unsigned long long)t->damaged,
               src.files_failed);
  if (rc == WN_EXIT_OK && (src.files_failed || t->damaged || k.pages_failed))
    rc = WN_EXIT_INPUT;
  return rc;
}
