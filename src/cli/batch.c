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
  if (page->hold)
    wn_cli_hold_free(page->hold, page->raw);
  else
    free(page->raw);
  free(page->name);
  free(page->out_name);
  free(page->id_json);
  free(page->out);
  memset(page, 0, sizeof *page);
}

static int wn_batch_cmp_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* --learn: what the page's result says of learning (a worker). */
static void wn_batch_learn_count(wn_batch_learn *learn, const wn_page_result *r) {
  if (!learn || !r)
    return;
  const char *site = wn_page_result_site(r);
  if (wn_page_result_fallback(r) == WN_FALLBACK_NO_TEMPLATE) {
    if (site)
      atomic_fetch_add_explicit(&learn->pages_no_template, 1, memory_order_relaxed);
    return;
  }
  /* Served by a template learned here (not a page of such a site that
   * fitted it badly and went to the single-page method). */
  if (site && learn->n_learned && wn_page_result_fallback(r) == WN_FALLBACK_NONE &&
      bsearch(&site, learn->learned, learn->n_learned, sizeof *learn->learned, wn_batch_cmp_name))
    atomic_fetch_add_explicit(&learn->pages_learned_sites, 1, memory_order_relaxed);
}

/* Adds one page's times (ms) to the sums (us). */
static void wn_batch_time(wn_batch_times *t, double prepare_ms, const wn_page_result *r,
                          double output_ms) {
  wn_page_times pt = {0, 0, 0, 0};
  wn_page_result_times_get(r, &pt);
#define WN_US(ms) ((uint64_t)((ms) > 0 ? (ms) * 1000.0 + 0.5 : 0))
  atomic_fetch_add_explicit(&t->pages, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(&t->prepare_us, WN_US(prepare_ms), memory_order_relaxed);
  atomic_fetch_add_explicit(&t->decode_us, WN_US(pt.decode_ms), memory_order_relaxed);
  atomic_fetch_add_explicit(&t->parse_us, WN_US(pt.parse_ms), memory_order_relaxed);
  atomic_fetch_add_explicit(&t->detect_us, WN_US(pt.detect_ms), memory_order_relaxed);
  atomic_fetch_add_explicit(&t->render_us, WN_US(pt.render_ms), memory_order_relaxed);
  atomic_fetch_add_explicit(&t->output_us, WN_US(output_ms), memory_order_relaxed);
#undef WN_US
}

/* A worker's part: prepare, detect, render. The raw bytes are kept until
 * the page is written: the window counts them until then. */
static void wn_batch_process(wn_batch_source *source, wn_batch_sink *sink, wn_detector *d,
                             const wn_batch_options *opts, wn_batch_page *page) {
  wn_batch_learn *learn = opts->learn;
  wn_page_result *r = NULL;
  const double t0 = opts->times ? wn_clock_ms() : 0;
  page->err = page->read_err;
  if (!page->err && source->prepare)
    page->err = source->prepare(source->ctx, page, &page->diag);
  const double t1 = opts->times ? wn_clock_ms() : 0;
  if (!page->err)
    page->err = wn_detector_detect(d, &page->in, sink->want, &r, &page->diag);
  if (!page->err)
    wn_batch_learn_count(learn, r);
  if (opts->counts) {
    if (page->err)
      atomic_fetch_add_explicit(&opts->counts->failed, 1, memory_order_relaxed);
    else
      atomic_fetch_add_explicit(&opts->counts->detected, 1, memory_order_relaxed);
    if (!page->err && wn_page_result_empty(r))
      atomic_fetch_add_explicit(&opts->counts->empty, 1, memory_order_relaxed);
  }
  const double t2 = opts->times ? wn_clock_ms() : 0;
  sink->render(sink->ctx, page, page->err ? NULL : r);
  if (opts->times)
    wn_batch_time(opts->times, t1 - t0, r, wn_clock_ms() - t2);
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
    wn_batch_process(source, sink, d, opts, &page);
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
    wn_batch_process(b->source, b->sink, w->d, b->opts, &b->slots[slot]);
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

static int wn_batch_run_pages(const wn_batch_options *opts, wn_batch_source *source,
                              wn_batch_sink *sink) {
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

/* ---- --learn ------------------------------------------------------------------ */

/* A chunk of pages read ahead, then replayed to the pipeline as a source
 * whose pages are already prepared. */
typedef struct wn_batch_chunk {
  wn_batch_source *orig;
  wn_batch_page *pages;
  size_t n, cap, next;
} wn_batch_chunk;

static int wn_chunk_next(void *ctx, wn_batch_page *page) {
  wn_batch_chunk *k = ctx;
  if (k->next == k->n)
    return 0;
  *page = k->pages[k->next];
  memset(&k->pages[k->next], 0, sizeof *page);
  k->next++;
  return 1;
}

static void wn_chunk_release(void *ctx, wn_batch_page *page) {
  wn_batch_chunk *k = ctx;
  if (k->orig->release)
    k->orig->release(k->orig->ctx, page);
  page->prepared = NULL;
}

static int wn_batch_learned_add(wn_batch_learn *learn, const char *site) {
  if (learn->n_learned == learn->cap_learned) {
    size_t cap = learn->cap_learned ? 2 * learn->cap_learned : 64;
    char **grown = realloc(learn->learned, cap * sizeof *grown);
    if (!grown)
      return -1;
    learn->learned = grown;
    learn->cap_learned = cap;
  }
  size_t len = strlen(site) + 1;
  char *copy = malloc(len);
  if (!copy)
    return -1;
  memcpy(copy, site, len);
  /* Sorted insertion: a run learns few sites next to the pages it reads. */
  size_t i = learn->n_learned;
  while (i > 0 && strcmp(learn->learned[i - 1], site) > 0) {
    learn->learned[i] = learn->learned[i - 1];
    i--;
  }
  learn->learned[i] = copy;
  learn->n_learned++;
  return 0;
}

/* Learns site from the collector and stores its template. A failure to
 * learn is the site's (the single-page method serves it); a failure to
 * store is said and counted. */
static void wn_batch_learn_site(wn_batch_learn *learn, const char *site) {
  const double t0 = wn_clock_ms();
  wn_diag diag = {{0}};
  wn_learned *l = NULL;
  wn_err err = wn_collector_learn(learn->collector, site, &l, &diag);
  if (!err) {
    err = wn_site_save(learn->store, l, NULL, &diag);
    if (err) {
      wn_cli_error("cannot store the template learned for %s: %s", site,
                   wn_diag_message(&diag, err));
      learn->sites_save_failed++;
    } else if (wn_batch_learned_add(learn, site) != 0) {
      wn_cli_error("out of memory counting the sites learned");
    }
  } else if (err == WN_ENOMEM) {
    wn_cli_error("cannot learn %s: %s", site, wn_diag_message(&diag, err));
  }
  wn_learned_free(l);
  learn->learn_ms += wn_clock_ms() - t0;
}

static int wn_batch_learn_pending(const char *site, uint32_t pages, void *ctx) {
  (void)pages;
  wn_batch_learn_site(ctx, site);
  return 0;
}

/* Learns every site holding enough pages; a failed attempt drops a page,
 * so a site is tried again only while it still holds enough. */
static void wn_batch_learn_all(wn_batch_learn *learn) {
  for (;;) {
    wn_collect_stats before, after;
    wn_collector_stats_get(learn->collector, &before);
    wn_diag diag = {{0}};
    if (wn_collector_pending_each(learn->collector, 0, wn_batch_learn_pending, learn, &diag) !=
        WN_OK)
      return;
    wn_collector_stats_get(learn->collector, &after);
    if (after.sites_learned == before.sites_learned &&
        after.learn_failures == before.learn_failures)
      return;
  }
}

/* The page's input bytes that are not inside raw (a JSON line's decoded
 * "html"; a file it names): held too. */
static size_t wn_batch_page_bytes(const wn_batch_page *p) {
  size_t n = p->raw_len;
  if (p->in.bytes && !(p->raw && p->in.bytes >= p->raw && p->in.bytes < p->raw + p->raw_len + 1))
    n += p->in.len;
  return n;
}

/* Reads a chunk: pages prepared and offered to the collector. Returns 1
 * at the end of the input, 0 when the chunk is full, -1 when the input
 * failed (the pages read are kept). */
static int wn_batch_read_chunk(const wn_batch_options *opts, wn_batch_source *source,
                               wn_batch_chunk *k) {
  wn_batch_learn *learn = opts->learn;
  size_t bytes = 0;
  while (bytes < learn->hold_bytes) {
    if (k->n == k->cap) {
      size_t cap = k->cap ? 2 * k->cap : 256;
      wn_batch_page *grown = realloc(k->pages, cap * sizeof *grown);
      if (!grown) {
        wn_cli_error("out of memory holding pages to learn from");
        return -1;
      }
      k->pages = grown;
      k->cap = cap;
    }
    wn_batch_page *page = &k->pages[k->n];
    memset(page, 0, sizeof *page);
    int got = source->next(source->ctx, page);
    if (got <= 0) {
      wn_cli_batch_page_free(page, source);
      return got < 0 ? -1 : 1;
    }
    k->n++;
    if (!page->read_err && source->prepare)
      page->read_err = source->prepare(source->ctx, page, &page->diag);
    bytes += wn_batch_page_bytes(page);
    if (page->read_err)
      continue;
    wn_collect_state state = WN_COLLECT_NO_SITE;
    wn_diag diag = {{0}};
    wn_err err = wn_collector_add(learn->collector, &page->in, page->name, 0, &state, &diag);
    if (err == WN_ENOMEM || err == WN_ESTORE || err == WN_ENOSPACE)
      wn_cli_error("cannot hold a page to learn from: %s", wn_diag_message(&diag, err));
    else if (!err && state == WN_COLLECT_READY) {
      char site[WN_SITE_MAX + 1];
      if (page->in.site)
        snprintf(site, sizeof site, "%s", page->in.site);
      else if (wn_site_from_url(page->in.url, site, sizeof site, &diag) != WN_OK)
        continue;
      wn_batch_learn_site(learn, site);
    }
  }
  return 0;
}

static int wn_batch_run_learning(const wn_batch_options *opts, wn_batch_source *source,
                                 wn_batch_sink *sink) {
  int rc = WN_EXIT_OK;
  wn_batch_chunk k = {.orig = source};
  wn_batch_source replay = {.ctx = &k, .next = wn_chunk_next, .prepare = NULL,
                            .release = wn_chunk_release};
  for (;;) {
    k.n = k.next = 0;
    const double t0 = wn_clock_ms();
    int end = wn_batch_read_chunk(opts, source, &k);
    opts->learn->read_ms += wn_clock_ms() - t0;
    /* Every site that can be learned now is, so that the chunk's earlier
     * pages get its template too. */
    wn_batch_learn_all(opts->learn);
    rc = wn_batch_run_pages(opts, &replay, sink);
    /* Pages the pipeline did not take (it stopped). */
    for (size_t i = k.next; i < k.n; i++)
      wn_cli_batch_page_free(&k.pages[i], source);
    if (rc != WN_EXIT_OK || end != 0) {
      if (rc == WN_EXIT_OK && end < 0)
        rc = WN_EXIT_INPUT;
      break;
    }
  }
  free(k.pages);
  return rc;
}

/* --shard I/N: the source's pages of the sites in shard I, the others
 * read and dropped. A page is prepared here, in the reader, to know its
 * site. */
typedef struct wn_shard_source {
  wn_batch_source *orig;
  uint32_t shard, shards;
} wn_shard_source;

uint32_t wn_cli_shard_of(const char *site, uint32_t shards) {
  if (!site || shards <= 1)
    return 0;
  return (uint32_t)(wn_hash_bytes(WN_HASH_SEED, site, strlen(site)) % shards);
}

static int wn_shard_next(void *ctx, wn_batch_page *page) {
  wn_shard_source *s = ctx;
  for (;;) {
    int got = s->orig->next(s->orig->ctx, page);
    if (got <= 0)
      return got;
    if (!page->read_err && s->orig->prepare)
      page->read_err = s->orig->prepare(s->orig->ctx, page, &page->diag);
    /* A page without a site (or unreadable) is shard 0's: every page is
     * one shard's, once. */
    uint32_t k = 0;
    char site[WN_SITE_MAX + 1];
    if (!page->read_err && page->in.site)
      k = wn_cli_shard_of(page->in.site, s->shards);
    else if (!page->read_err && page->in.url &&
             wn_site_from_url(page->in.url, site, sizeof site, NULL) == WN_OK)
      k = wn_cli_shard_of(site, s->shards);
    if (k == s->shard)
      return 1;
    wn_cli_batch_page_free(page, s->orig);
  }
}

static void wn_shard_release(void *ctx, wn_batch_page *page) {
  wn_shard_source *s = ctx;
  if (s->orig->release)
    s->orig->release(s->orig->ctx, page);
}

int wn_cli_batch_run(const wn_batch_options *opts, wn_batch_source *source, wn_batch_sink *sink) {
  wn_shard_source shard = {source, opts->shard, opts->shards};
  wn_batch_source sharded = {&shard, wn_shard_next, NULL, wn_shard_release};
  if (opts->shards > 1)
    source = &sharded;
  if (opts->learn)
    return wn_batch_run_learning(opts, source, sink);
  return wn_batch_run_pages(opts, source, sink);
}

void wn_cli_batch_counts_text(const wn_batch_counts *c, const char *unit, char *buf, size_t size) {
  unsigned long detected = atomic_load(&c->detected), empty = atomic_load(&c->empty),
                failed = atomic_load(&c->failed);
  snprintf(buf, size, "%lu %s: %lu detected (%lu with no content), %lu failed", detected + failed,
           unit, detected, empty, failed);
}

void wn_cli_batch_times_text(const wn_batch_times *t, char *buf, size_t size) {
  const double us[6] = {(double)atomic_load(&t->prepare_us), (double)atomic_load(&t->decode_us),
                        (double)atomic_load(&t->parse_us),   (double)atomic_load(&t->detect_us),
                        (double)atomic_load(&t->render_us),  (double)atomic_load(&t->output_us)};
  double all = 0;
  for (int i = 0; i < 6; i++)
    all += us[i];
  const double d = all > 0 ? all : 1;
  snprintf(buf, size,
           "timing: %llu page(s), %.3f s in workers: input %.3f s (%.1f%%), decode %.3f s "
           "(%.1f%%), parse %.3f s (%.1f%%), detection %.3f s (%.1f%%), rendering %.3f s "
           "(%.1f%%), output %.3f s (%.1f%%)",
           (unsigned long long)atomic_load(&t->pages), all / 1e6, us[0] / 1e6, 100 * us[0] / d,
           us[1] / 1e6, 100 * us[1] / d, us[2] / 1e6, 100 * us[2] / d, us[3] / 1e6,
           100 * us[3] / d, us[4] / 1e6, 100 * us[4] / d, us[5] / 1e6, 100 * us[5] / d);
}

void wn_cli_batch_learn_report(const wn_batch_learn *learn) {
  wn_collect_stats st;
  wn_diag diag = {{0}};
  wn_err err = wn_collector_flush(learn->collector, &diag);
  if (err)
    wn_cli_error("cannot keep pending pages in the store: %s", wn_diag_message(&diag, err));
  wn_collector_stats_get(learn->collector, &st);
  wn_cli_error("learning: %llu site(s) learned from %llu of their pages in the input, serving "
               "%lu page(s); %lu page(s) of sites without enough pages of one layout went to "
               "the single-page method (%llu site(s) given up, %llu page(s) still held, %llu "
               "dropped for the memory bound); %.0f ms reading ahead, %.0f ms of it learning%s",
               (unsigned long long)st.sites_learned, (unsigned long long)st.pages_learned,
               (unsigned long)atomic_load(&learn->pages_learned_sites),
               (unsigned long)atomic_load(&learn->pages_no_template),
               (unsigned long long)st.sites_given_up, (unsigned long long)st.pages_held,
               (unsigned long long)st.pages_evicted, learn->read_ms, learn->learn_ms,
               learn->sites_save_failed ? "; some templates could not be stored" : "");
  if (st.pages_kept || st.pages_restored || st.store_errors)
    wn_cli_error("pending samples: %llu page(s) read back from earlier runs, %llu kept in the "
                 "store for later ones (%llu dropped for the store's bounds%s)",
                 (unsigned long long)st.pages_restored, (unsigned long long)st.pages_kept,
                 (unsigned long long)st.pending_evicted,
                 st.store_errors ? "; some could not be written" : "");
}

void wn_cli_batch_learn_free(wn_batch_learn *learn) {
  for (size_t i = 0; i < learn->n_learned; i++)
    free(learn->learned[i]);
  free(learn->learned);
  learn->learned = NULL;
  learn->n_learned = learn->cap_learned = 0;
}
