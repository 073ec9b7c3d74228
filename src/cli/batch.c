/*
 * cli/batch.c: the batch pipeline of `winnow detect` (a JSONL stream, many
 * files): a reader, N workers each with its own detector, a writer that
 * keeps input order, and a bounded window between them (cli.h says how
 * to add a source).
 *
 * The window is a ring of window_pages slots indexed by sequence number:
 * page s lives in slot s % window from the time it is read until it is
 * written. Three counters under one mutex, n_written <= n_claimed <=
 * n_read: n_read pages have been read, n_claimed of them taken by a
 * worker, n_written of them written and freed. The reader waits while n_read -
 * n_written reaches the window (or the bytes in flight the byte budget),
 * so a stalled consumer stops the reading, not only the writing; the
 * writer waits for slot n_written to be done, so the output keeps the
 * input's order whatever order the workers finish in.
 */
#include "cli.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { WN_SLOT_FREE = 0, WN_SLOT_READ, WN_SLOT_CLAIMED, WN_SLOT_DONE };

typedef struct wn_batch {
  const wn_batch_options *opts;
  wn_batch_source *source;
  wn_batch_sink *sink;
  pthread_mutex_t mu;
  pthread_cond_t space; /* the reader waits for room in the window */
  pthread_cond_t work;  /* workers wait for a page */
  pthread_cond_t done;  /* the writer waits for the next page in order */
  wn_batch_page *slots;
  unsigned char *state;
  size_t window, window_bytes, bytes;
  uint64_t n_read, n_claimed, n_written;
  int input_done;
  int stop;     /* the writer failed: everyone stops */
  int write_rc; /* its exit code */
} wn_batch;

unsigned wn_cli_batch_cores(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  if (n < 1)
    return 1;
  return n > (long)WN_BATCH_MAX_THREADS ? WN_BATCH_MAX_THREADS : (unsigned)n;
}

void wn_cli_batch_page_free(wn_batch_page *page, wn_batch_source *source) {
  if (source && source->release && page->prepared)
    source->release(source->ctx, page);
  free(page->raw);
  free(page->name);
  free(page->out_name);
  free(page->id_json);
  free(page->out);
  memset(page, 0, sizeof *page);
}

/* A worker's part: prepare, detect, render. The raw bytes are kept until
 * the page is written: the window counts them until then. */
static void wn_batch_process(wn_batch_source *source, wn_batch_sink *sink, wn_detector *d,
                             wn_batch_page *page) {
  wn_page_result *r = NULL;
  page->err = page->read_err;
  if (!page->err && source->prepare)
    page->err = source->prepare(source->ctx, page, &page->diag);
  if (!page->err)
    page->err = wn_detector_detect(d, &page->in, sink->want, &r, &page->diag);
  sink->render(sink->ctx, page, page->err ? NULL : r);
  wn_page_result_free(r);
  if (source->release && page->prepared)
    source->release(source->ctx, page);
  page->prepared = NULL;
}

/* The writer's part for one page. */
static int wn_batch_write(wn_batch_sink *sink, wn_batch_page *page) {
  if (!page->out) {
    wn_cli_error("out of memory writing the output of a page");
    return WN_EXIT_INTERNAL;
  }
  return sink->write(sink->ctx, page);
}

/* ---- one thread -------------------------------------------------------------- */

/* Read, detect, write, one page at a time: a caller that waits for each
 * answer before it sends the next line (a pipe both ways) is served. */
static int wn_batch_run_inline(const wn_batch_options *opts, wn_batch_source *source,
                               wn_batch_sink *sink) {
  int rc = WN_EXIT_OK;
  wn_detector *d = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_detector_create(opts->store, opts->detector, &d, &diag);
  if (err)
    return wn_cli_fail(err, &diag);
  for (;;) {
    wn_batch_page page;
    memset(&page, 0, sizeof page);
    int got = source->next(source->ctx, &page);
    if (got <= 0) {
      wn_cli_batch_page_free(&page, source);
      rc = got < 0 ? WN_EXIT_INPUT : WN_EXIT_OK;
      break;
    }
    wn_batch_process(source, sink, d, &page);
    rc = wn_batch_write(sink, &page);
    wn_cli_batch_page_free(&page, source);
    if (rc != WN_EXIT_OK)
      break;
  }
  wn_detector_destroy(d);
  return rc;
}

/* ---- threads ----------------------------------------------------------------- */

typedef struct wn_batch_worker {
  wn_batch *b;
  wn_detector *d;
  pthread_t thread;
  int started;
} wn_batch_worker;

static void *wn_batch_worker_main(void *arg) {
  wn_batch_worker *w = arg;
  wn_batch *b = w->b;
  pthread_mutex_lock(&b->mu);
  for (;;) {
    while (!b->stop && b->n_claimed == b->n_read && !b->input_done)
      pthread_cond_wait(&b->work, &b->mu);
    if (b->stop || b->n_claimed == b->n_read)
      break;
    uint64_t seq = b->n_claimed++;
    size_t slot = (size_t)(seq % b->window);
    b->state[slot] = WN_SLOT_CLAIMED;
    pthread_mutex_unlock(&b->mu);
    wn_batch_process(b->source, b->sink, w->d, &b->slots[slot]);
    pthread_mutex_lock(&b->mu);
    b->state[slot] = WN_SLOT_DONE;
    if (seq == b->n_written)
      pthread_cond_signal(&b->done);
  }
  pthread_mutex_unlock(&b->mu);
  return NULL;
}

static void *wn_batch_writer_main(void *arg) {
  wn_batch *b = arg;
  pthread_mutex_lock(&b->mu);
  for (;;) {
    size_t slot = (size_t)(b->n_written % b->window);
    while (!b->stop && !(b->n_written < b->n_read && b->state[slot] == WN_SLOT_DONE) &&
           !(b->input_done && b->n_written == b->n_read))
      pthread_cond_wait(&b->done, &b->mu);
    if (b->stop || b->n_written == b->n_read)
      break;
    /* The slot is ours until n_written moves past it. */
    pthread_mutex_unlock(&b->mu);
    wn_batch_page *page = &b->slots[slot];
    int rc = wn_batch_write(b->sink, page);
    size_t len = page->raw_len;
    wn_cli_batch_page_free(page, b->source);
    pthread_mutex_lock(&b->mu);
    b->state[slot] = WN_SLOT_FREE;
    b->n_written++;
    b->bytes -= len;
    /* The reader is woken once half the window is free, not per page: it
     * then reads a run of pages (fewer wake-ups, same bound). A reader
     * held by the byte budget is woken too: at most half the window's
     * pages are left then, and none once all is written. */
    if (b->n_read - b->n_written <= b->window / 2)
      pthread_cond_signal(&b->space);
    if (rc != WN_EXIT_OK) {
      b->stop = 1;
      b->write_rc = rc;
      pthread_cond_broadcast(&b->space);
      pthread_cond_broadcast(&b->work);
      break;
    }
  }
  pthread_mutex_unlock(&b->mu);
  return NULL;
}

/* The reader: the calling thread. Returns 0 at the end of the input,
 * WN_EXIT_INPUT if it failed. */
static int wn_batch_read(wn_batch *b) {
  int rc = WN_EXIT_OK;
  for (;;) {
    wn_batch_page page;
    memset(&page, 0, sizeof page);
    int got = b->source->next(b->source->ctx, &page);
    if (got <= 0) {
      wn_cli_batch_page_free(&page, b->source);
      rc = got < 0 ? WN_EXIT_INPUT : WN_EXIT_OK;
      break;
    }
    pthread_mutex_lock(&b->mu);
    /* Full: window_pages in flight, or the bytes would pass the budget
     * (a page alone is always let in, or a page past it would wait for
     * ever). */
    while (!b->stop && (b->n_read - b->n_written >= b->window ||
                        (b->bytes > 0 && (b->bytes >= b->window_bytes ||
                                          page.raw_len > b->window_bytes - b->bytes))))
      pthread_cond_wait(&b->space, &b->mu);
    if (b->stop) {
      pthread_mutex_unlock(&b->mu);
      wn_cli_batch_page_free(&page, b->source);
      break;
    }
    size_t slot = (size_t)(b->n_read % b->window);
    b->slots[slot] = page;
    b->state[slot] = WN_SLOT_READ;
    /* Only a page let in alone passes the budget (by at most one line's
     * cap, WN_CLI_MAX_LINE_BYTES, or one page's). */
    b->bytes += page.raw_len;
    b->n_read++;
    pthread_cond_signal(&b->work);
    pthread_mutex_unlock(&b->mu);
  }
  pthread_mutex_lock(&b->mu);
  b->input_done = 1;
  pthread_cond_broadcast(&b->work);
  pthread_cond_broadcast(&b->done);
  pthread_mutex_unlock(&b->mu);
  return rc;
}

int wn_cli_batch_run(const wn_batch_options *opts, wn_batch_source *source, wn_batch_sink *sink) {
  if (opts->threads <= 1)
    return wn_batch_run_inline(opts, source, sink);
  int rc = WN_EXIT_OK;
  unsigned n = opts->threads > WN_BATCH_MAX_THREADS ? WN_BATCH_MAX_THREADS : opts->threads;
  wn_batch b;
  memset(&b, 0, sizeof b);
  b.opts = opts;
  b.source = source;
  b.sink = sink;
  b.window = opts->window_pages ? opts->window_pages : 4 * (size_t)n;
  b.window_bytes = opts->window_bytes ? opts->window_bytes : WN_BATCH_WINDOW_BYTES;
  pthread_t writer;
  int writer_started = 0, sync_ready = 0;
  wn_batch_worker *workers = calloc(n, sizeof *workers);
  b.slots = calloc(b.window, sizeof *b.slots);
  b.state = calloc(b.window, 1);
  if (!workers || !b.slots || !b.state) {
    wn_cli_error("out of memory");
    rc = WN_EXIT_INTERNAL;
    goto out;
  }
  for (unsigned i = 0; i < n; i++) {
    wn_diag diag = {{0}};
    wn_err err = wn_detector_create(opts->store, opts->detector, &workers[i].d, &diag);
    if (err) {
      rc = wn_cli_fail(err, &diag);
      goto out;
    }
    workers[i].b = &b;
  }
  if (pthread_mutex_init(&b.mu, NULL) != 0) {
    wn_cli_error("cannot create a mutex");
    rc = WN_EXIT_INTERNAL;
    goto out;
  }
  if (pthread_cond_init(&b.space, NULL) != 0 || pthread_cond_init(&b.work, NULL) != 0 ||
      pthread_cond_init(&b.done, NULL) != 0) {
    /* Linux's condition variables take no resources to fail on; a failure
     * here is not worth unwinding one by one. */
    pthread_mutex_destroy(&b.mu);
    wn_cli_error("cannot create a condition variable");
    rc = WN_EXIT_INTERNAL;
    goto out;
  }
  sync_ready = 1;
  for (unsigned i = 0; i < n; i++) {
    if (pthread_create(&workers[i].thread, NULL, wn_batch_worker_main, &workers[i]) != 0)
      break;
    workers[i].started = 1;
  }
  if (!workers[0].started || pthread_create(&writer, NULL, wn_batch_writer_main, &b) != 0) {
    wn_cli_error("cannot start threads");
    pthread_mutex_lock(&b.mu);
    b.stop = 1;
    b.input_done = 1;
    pthread_cond_broadcast(&b.work);
    pthread_mutex_unlock(&b.mu);
    rc = WN_EXIT_INTERNAL;
  } else {
    writer_started = 1;
    rc = wn_batch_read(&b);
  }
out:
  if (writer_started)
    pthread_join(writer, NULL);
  for (unsigned i = 0; workers && i < n; i++) {
    if (workers[i].started)
      pthread_join(workers[i].thread, NULL);
    /* Destroying writes the detector's pending counts. */
    wn_detector_destroy(workers[i].d);
  }
  /* Pages read but not written (the writer stopped). */
  for (size_t i = 0; b.slots && i < b.window; i++)
    if (b.state[i] != WN_SLOT_FREE)
      wn_cli_batch_page_free(&b.slots[i], source);
  if (b.write_rc != WN_EXIT_OK)
    rc = b.write_rc;
  if (sync_ready) {
    pthread_cond_destroy(&b.space);
    pthread_cond_destroy(&b.work);
    pthread_cond_destroy(&b.done);
    pthread_mutex_destroy(&b.mu);
  }
  free(b.slots);
  free(b.state);
  free(workers);
  return rc;
}
