/*
 * site/collect.c: the collector: copies of pages of sites without a
 * template, held until a site has enough of them to learn from (see
 * wn_collector in include/winnow/winnow.h).
 *
 * The site-level paper learns from a key page and an n-SET of same-site
 * pages that share its template (Sec. 2.1); a crawl fetches them, here
 * they arrive with the input. What the crawl's ranking does with links,
 * the collector does with the pages at hand: the key page is the held page
 * whose URL is nearest the others' by the n-SET's hyperlink distance
 * (learn/nset.c), the others follow by their distance to it, and learning
 * keeps only those that share the key page's layout (the share check).
 *
 * Sites live in a hash table with a least-recently-seen list through it:
 * max_sites bounds the table, max_bytes the page bytes held. A site being
 * learned (outside the lock) is busy: it is neither evicted nor learned
 * twice, and its held pages stay where they are (new pages are appended
 * behind them, never moving them), so the learner reads them unlocked.
 *
 * With keep_pending, a held page of a site without a template is also
 * queued for the store (a job, owning a copy), and the queue is written in
 * one transaction every WN_COLLECT_FLUSH_PAGES pages, WN_COLLECT_FLUSH_BYTES
 * or WN_COLLECT_FLUSH_MS (wn_collector_flush): one commit, one fsync, for many pages. A site seen
 * for the first time reads back what earlier runs kept for it. The store's
 * copy follows the held pages: a dropped page rewrites it (drop, then the
 * pages still held); a stored template drops it (store/pending.c).
 */
#include "site/site_int.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WN_COLLECT_DEFAULT_SAMPLE 5u
#define WN_COLLECT_DEFAULT_MIN 3u
#define WN_COLLECT_DEFAULT_ATTEMPTS 3u
#define WN_COLLECT_DEFAULT_SITES 4096u
#define WN_COLLECT_DEFAULT_BYTES ((size_t)256 * 1024 * 1024)
#define WN_COLLECT_MAX_SITES (1u << 24)
#define WN_COLLECT_DEFAULT_PENDING_SITES 65536u
#define WN_COLLECT_DEFAULT_PENDING_BYTES ((size_t)256 * 1024 * 1024)
#define WN_COLLECT_FLUSH_PAGES 64u
#define WN_COLLECT_FLUSH_MS 1000.0
#define WN_COLLECT_FLUSH_BYTES ((size_t)32 * 1024 * 1024) /* the copies queued */

enum { WN_CS_COLLECTING = 0, WN_CS_TEMPLATE, WN_CS_GAVE_UP };

typedef struct wn_held {
  char *name;
  char *url; /* NULL when the page came without one */
  char *bytes;
  size_t len;
  char charset[64]; /* "" when none */
  int restored;     /* read back from the store: not in this run's input */
} wn_held;

/* A write queued for the store: drop the site's pending pages (page.name
 * NULL), or keep a page (a copy). */
typedef struct wn_pjob {
  char site[WN_SITE_MAX + 1];
  wn_held page;
} wn_pjob;

/* A learned page's tree, kept for its detection (wn_collector_take_parsed):
 * the page is then parsed once, not twice. */
typedef struct wn_parsed {
  struct wn_parsed *next; /* oldest first */
  char *bytes;            /* the page, to know it again */
  size_t len;
  char charset[64];
  wn_dom_page *page;
  size_t cost; /* counted against max_bytes: the bytes and the tree */
} wn_parsed;

typedef struct wn_csite {
  char name[WN_SITE_MAX + 1];
  int state;
  int busy;               /* wn_collector_learn runs on it */
  uint32_t n_pages;       /* held, in arrival order */
  wn_held *pages;         /* sample_pages entries, allocated with the site */
  size_t bytes;           /* held bytes */
  uint32_t attempts;      /* failed learning attempts */
  int keep;               /* pages go to the store too (keep_pending, and no
                             template when first seen) */
  uint64_t first_seen;    /* order of first sighting */
  struct wn_csite *chain; /* hash bucket */
  struct wn_csite *newer, *older;
} wn_csite;

struct wn_collector {
  wn_store *store;
  wn_collect_options o;
  pthread_mutex_t mu;
  wn_csite **buckets;
  size_t n_buckets; /* a power of two */
  wn_csite *newest, *oldest;
  size_t n_sites;
  size_t bytes;
  uint64_t seen;
  wn_collect_stats st;
  wn_parsed *parsed, *parsed_last;
  size_t parsed_bytes;
  _Atomic size_t n_parsed; /* read unlocked: most pages find none */
  int read_pending;        /* keep_pending and a store */
  int keep_pending;        /* ... a writable one */
  wn_pjob *jobs;           /* queued for the store, in order */
  size_t n_jobs, cap_jobs;
  size_t jobs_bytes;       /* the queued copies' bytes */
  double jobs_since;       /* wn_clock_ms of the oldest queued job */
  pthread_mutex_t flush_mu; /* one flush at a time; taken before mu */
};

void wn_collect_options_init(wn_collect_options *opts) {
  memset(opts, 0, sizeof *opts);
  opts->sample_pages = WN_COLLECT_DEFAULT_SAMPLE;
  opts->min_pages = WN_COLLECT_DEFAULT_MIN;
  opts->max_attempts = WN_COLLECT_DEFAULT_ATTEMPTS;
  opts->max_sites = WN_COLLECT_DEFAULT_SITES;
  opts->max_bytes = WN_COLLECT_DEFAULT_BYTES;
  wn_learn_options_init(&opts->learn);
  opts->keep_pending = 1;
  opts->pending_sites = WN_COLLECT_DEFAULT_PENDING_SITES;
  opts->pending_bytes = WN_COLLECT_DEFAULT_PENDING_BYTES;
}

/* ---- the table ----------------------------------------------------------------- */

static wn_csite **wn_collect_slot(wn_collector *c, const char *site) {
  /* The project's FNV-1a: site names are short and bounded, and the table
   * by max_sites. */
  size_t h = (size_t)wn_hash_bytes(WN_HASH_SEED, site, strlen(site));
  wn_csite **p = &c->buckets[h & (c->n_buckets - 1)];
  while (*p && strcmp((*p)->name, site) != 0)
    p = &(*p)->chain;
  return p;
}

static void wn_collect_unlink(wn_collector *c, wn_csite *s) {
  if (s->newer)
    s->newer->older = s->older;
  else
    c->newest = s->older;
  if (s->older)
    s->older->newer = s->newer;
  else
    c->oldest = s->newer;
  s->newer = s->older = NULL;
}

static void wn_collect_touch(wn_collector *c, wn_csite *s) {
  if (c->newest == s)
    return;
  if (s->newer || s->older || c->oldest == s)
    wn_collect_unlink(c, s);
  s->older = c->newest;
  if (c->newest)
    c->newest->newer = s;
  c->newest = s;
  if (!c->oldest)
    c->oldest = s;
}

static void wn_held_free(wn_held *h) {
  free(h->name);
  free(h->url);
  free(h->bytes);
  memset(h, 0, sizeof *h);
}

/* Under the lock: queues a write for the store, a copy of page (NULL: drop
 * what the store keeps for site). A copy that cannot be made is counted as
 * a store error: the page stays held in memory. */
static void wn_collect_queue(wn_collector *c, const char *site, const wn_held *page) {
  if (!c->keep_pending)
    return; /* a read-only store: read back, never written */
  if (c->n_jobs == c->cap_jobs) {
    size_t cap = c->cap_jobs ? 2 * c->cap_jobs : 2 * WN_COLLECT_FLUSH_PAGES;
    wn_pjob *grown = realloc(c->jobs, cap * sizeof *grown);
    if (!grown) {
      c->st.store_errors++;
      return;
    }
    c->jobs = grown;
    c->cap_jobs = cap;
  }
  wn_pjob *j = &c->jobs[c->n_jobs];
  memset(j, 0, sizeof *j);
  snprintf(j->site, sizeof j->site, "%s", site);
  if (page) {
    j->page.name = wn_strdup(page->name);
    j->page.url = wn_strdup(page->url);
    j->page.bytes = malloc(page->len ? page->len : 1);
    if (!j->page.name || (page->url && !j->page.url) || !j->page.bytes) {
      wn_held_free(&j->page);
      c->st.store_errors++;
      return;
    }
    memcpy(j->page.bytes, page->bytes, page->len);
    j->page.len = page->len;
    memcpy(j->page.charset, page->charset, sizeof j->page.charset);
    c->jobs_bytes += page->len;
  }
  if (c->n_jobs == 0)
    c->jobs_since = wn_clock_ms();
  c->n_jobs++;
}

/* Under the lock: the store's copy of s becomes what s holds now. */
static void wn_collect_queue_rewrite(wn_collector *c, const wn_csite *s) {
  wn_collect_queue(c, s->name, NULL);
  for (uint32_t i = 0; i < s->n_pages; i++)
    wn_collect_queue(c, s->name, &s->pages[i]);
}

/* Drops held page i; the others keep their order. */
static void wn_collect_drop_page(wn_collector *c, wn_csite *s, uint32_t i) {
  c->bytes -= s->pages[i].len;
  s->bytes -= s->pages[i].len;
  c->st.pages_held--;
  wn_held_free(&s->pages[i]);
  memmove(&s->pages[i], &s->pages[i + 1], (s->n_pages - i - 1) * sizeof *s->pages);
  s->n_pages--;
  memset(&s->pages[s->n_pages], 0, sizeof *s->pages);
  if (s->n_pages == 0)
    c->st.sites_held--;
}

static void wn_collect_drop_all(wn_collector *c, wn_csite *s) {
  while (s->n_pages > 0)
    wn_collect_drop_page(c, s, s->n_pages - 1);
}

static void wn_collect_remove(wn_collector *c, wn_csite *s) {
  wn_csite **p = wn_collect_slot(c, s->name);
  *p = s->chain;
  wn_collect_unlink(c, s);
  wn_collect_drop_all(c, s);
  free(s->pages);
  free(s);
  c->n_sites--;
}

/* Frees held bytes, oldest sites first (never keep nor a busy site), until
 * need more bytes fit under max_bytes. 0 when they do. */
static int wn_collect_make_room(wn_collector *c, const wn_csite *keep, size_t need) {
  for (wn_csite *s = c->oldest; s && c->bytes + need > c->o.max_bytes;) {
    wn_csite *next = s->newer;
    if (s != keep && !s->busy && s->n_pages > 0) {
      c->st.pages_evicted += s->n_pages;
      wn_collect_drop_all(c, s);
    }
    s = next;
  }
  return c->bytes + need <= c->o.max_bytes ? 0 : -1;
}

/* ---- create, destroy -------------------------------------------------------------- */

wn_err wn_collector_create(wn_store *store, const wn_collect_options *opts, wn_collector **out,
                           wn_diag *diag) {
  *out = NULL;
  wn_collect_options o;
  if (opts)
    o = *opts;
  else
    wn_collect_options_init(&o);
  if (o.sample_pages < 2 || o.sample_pages > WN_LEARN_MAX_PAGES)
    return wn_diag_set(diag, WN_EINVAL, "collector: sample_pages must be 2 to %u, not %u",
                       WN_LEARN_MAX_PAGES, o.sample_pages);
  if (o.min_pages < 2 || o.min_pages > o.sample_pages)
    return wn_diag_set(diag, WN_EINVAL, "collector: min_pages must be 2 to sample_pages (%u), not %u",
                       o.sample_pages, o.min_pages);
  if (o.max_attempts < 1 || o.max_sites < 1 || o.max_sites > WN_COLLECT_MAX_SITES ||
      o.max_bytes < 1)
    return wn_diag_set(diag, WN_EINVAL,
                       "collector: max_attempts, max_sites (at most %u) and max_bytes must be "
                       "at least 1",
                       WN_COLLECT_MAX_SITES);
  if (!wn_learn_algo_name(o.learn.algo))
    return wn_diag_set(diag, WN_EINVAL, "collector: unknown learning algorithm %d",
                       (int)o.learn.algo);
  if (o.keep_pending && (o.pending_sites < 1 || o.pending_bytes < 1))
    return wn_diag_set(diag, WN_EINVAL,
                       "collector: pending_sites and pending_bytes must be at least 1");
  wn_collector *c = calloc(1, sizeof *c);
  if (!c)
    return wn_diag_set(diag, WN_ENOMEM, "out of memory");
  c->store = store;
  c->o = o;
  c->read_pending = o.keep_pending && store;
  c->keep_pending = c->read_pending && wn_store_writable(store);
  c->n_buckets = 16;
  while (c->n_buckets < (size_t)o.max_sites * 2)
    c->n_buckets *= 2;
  c->buckets = calloc(c->n_buckets, sizeof *c->buckets);
  if (!c->buckets || pthread_mutex_init(&c->mu, NULL) != 0) {
    free(c->buckets);
    free(c);
    return wn_diag_set(diag, WN_ENOMEM, "out of memory");
  }
  if (pthread_mutex_init(&c->flush_mu, NULL) != 0) {
    pthread_mutex_destroy(&c->mu);
    free(c->buckets);
    free(c);
    return wn_diag_set(diag, WN_ENOMEM, "out of memory");
  }
  *out = c;
  return WN_OK;
}

static void wn_parsed_free(wn_parsed *p) {
  wn_dom_free(p->page);
  free(p->bytes);
  free(p);
}

void wn_collector_destroy(wn_collector *c) {
  if (!c)
    return;
  wn_collector_flush(c, NULL);
  for (size_t i = 0; i < c->n_jobs; i++)
    wn_held_free(&c->jobs[i].page);
  free(c->jobs);
  pthread_mutex_destroy(&c->flush_mu);
  while (c->oldest)
    wn_collect_remove(c, c->oldest);
  while (c->parsed) {
    wn_parsed *p = c->parsed;
    c->parsed = p->next;
    wn_parsed_free(p);
  }
  pthread_mutex_destroy(&c->mu);
  free(c->buckets);
  free(c);
}

/* ---- add ---------------------------------------------------------------------------- */

/* A site seen for the first time: does the store hold a record for it? */
static wn_err wn_collect_lookup(wn_collector *c, const char *site, int *has, wn_diag *diag) {
  *has = 0;
  if (!c->store)
    return WN_OK;
  wn_store_record *rec = NULL;
  wn_err err = wn_store_get(c->store, site, &rec, diag);
  wn_store_record_free(rec);
  if (err == WN_ENOTFOUND) {
    wn_diag_clear(diag);
    return WN_OK;
  }
  if (err)
    return err;
  *has = 1;
  return WN_OK;
}

static void wn_collect_restore(wn_collector *c, wn_csite *s);

static wn_err wn_collect_new_site(wn_collector *c, const char *site, wn_csite **out,
                                  wn_diag *diag) {
  int has = 0;
  wn_err err = wn_collect_lookup(c, site, &has, diag);
  if (err)
    return err;
  /* Forget the least recently seen site that is not being learned. */
  if (c->n_sites >= c->o.max_sites) {
    wn_csite *victim = c->oldest;
    while (victim && victim->busy)
      victim = victim->newer;
    if (!victim)
      return wn_diag_set(diag, WN_EBUSY, "collector: all %u sites are being learned",
                         c->o.max_sites);
    if (victim->n_pages)
      c->st.pages_evicted += victim->n_pages;
    wn_collect_remove(c, victim);
  }
  wn_csite *s = calloc(1, sizeof *s);
  wn_held *pages = calloc(c->o.sample_pages, sizeof *pages);
  if (!s || !pages) {
    free(s);
    free(pages);
    return wn_diag_set(diag, WN_ENOMEM, "out of memory");
  }
  snprintf(s->name, sizeof s->name, "%s", site);
  s->pages = pages;
  s->state = has ? WN_CS_TEMPLATE : WN_CS_COLLECTING;
  s->keep = !has && c->read_pending;
  s->first_seen = c->seen++;
  wn_csite **slot = wn_collect_slot(c, site);
  *slot = s;
  c->n_sites++;
  wn_collect_touch(c, s);
  if (s->keep)
    wn_collect_restore(c, s);
  *out = s;
  return WN_OK;
}

/* Under the lock: h (its memory now the site's) joins s's held pages. */
static void wn_collect_take(wn_collector *c, wn_csite *s, wn_held *h) {
  if (s->n_pages == 0)
    c->st.sites_held++;
  s->pages[s->n_pages++] = *h;
  s->bytes += h->len;
  c->bytes += h->len;
  c->st.pages_held++;
  memset(h, 0, sizeof *h);
}

/* Under the lock, for a site just seen without a template: the pages
 * earlier runs kept for it in the store, within the memory bound. A
 * damaged entry is dropped; a store that cannot be read is counted, and
 * the site starts afresh. */
static void wn_collect_restore(wn_collector *c, wn_csite *s) {
  wn_store_pending_held *got = NULL;
  uint32_t n = 0;
  wn_diag inner = {{0}};
  wn_err err = wn_store_pending_get(c->store, s->name, c->o.sample_pages, &got, &n, &inner);
  if (err == WN_ECORRUPT)
    wn_collect_queue(c, s->name, NULL);
  if (err) {
    c->st.store_errors += err != WN_ENOTFOUND;
    return;
  }
  for (uint32_t i = 0; i < n; i++) {
    if (got[i].len > c->o.max_bytes || wn_collect_make_room(c, s, got[i].len) != 0)
      break;
    wn_held h = {.name = got[i].name, .url = got[i].url, .bytes = got[i].bytes,
                 .len = got[i].len, .restored = 1};
    memcpy(h.charset, got[i].charset, sizeof h.charset);
    got[i].name = got[i].url = got[i].bytes = NULL;
    wn_collect_take(c, s, &h);
    c->st.pages_restored++;
  }
  wn_store_pending_held_free(got, n);
}

static wn_err wn_collect_hold(wn_collector *c, wn_csite *s, const wn_page_input *page,
                              const char *name, wn_diag *diag) {
  wn_held h = {0};
  char fallback[32];
  if (!name)
    name = page->url;
  if (!name) {
    snprintf(fallback, sizeof fallback, "page %u", s->n_pages + 1);
    name = fallback;
  }
  h.name = wn_strdup(name);
  h.url = wn_strdup(page->url);
  h.bytes = malloc(page->len ? page->len : 1);
  if (!h.name || (page->url && !h.url) || !h.bytes) {
    wn_held_free(&h);
    return wn_diag_set(diag, WN_ENOMEM, "out of memory");
  }
  memcpy(h.bytes, page->bytes, page->len);
  h.len = page->len;
  if (page->charset)
    snprintf(h.charset, sizeof h.charset, "%s", page->charset);
  wn_collect_take(c, s, &h);
  if (s->keep)
    wn_collect_queue(c, s->name, &s->pages[s->n_pages - 1]);
  return WN_OK;
}

/* With flush_mu held: the queued jobs, in one transaction. */
static wn_err wn_collect_write(wn_collector *c, wn_diag *diag) {
  pthread_mutex_lock(&c->mu);
  wn_pjob *jobs = c->jobs;
  const size_t n = c->n_jobs;
  c->jobs = NULL;
  c->n_jobs = c->cap_jobs = c->jobs_bytes = 0;
  pthread_mutex_unlock(&c->mu);
  if (n == 0) {
    free(jobs);
    return WN_OK;
  }
  wn_err err = WN_OK;
  wn_store_pending_op *ops = malloc(n * sizeof *ops);
  wn_store_pending_page *pages = malloc(n * sizeof *pages);
  wn_store_pending_outcome res = {0};
  if (!ops || !pages) {
    err = wn_diag_set(diag, WN_ENOMEM, "collector: out of memory keeping pending pages");
  } else {
    for (size_t i = 0; i < n; i++) {
      const wn_held *h = &jobs[i].page;
      pages[i] = (wn_store_pending_page){.name = h->name, .url = h->url,
                                         .charset = h->charset, .bytes = h->bytes,
                                         .len = h->len};
      ops[i] = (wn_store_pending_op){.site = jobs[i].site, .drop = h->name == NULL,
                                     .pages = h->name ? &pages[i] : NULL,
                                     .n_pages = h->name != NULL};
    }
    const wn_store_pending_limits lim = {.site_pages = c->o.sample_pages,
                                         .sites = c->o.pending_sites,
                                         .bytes = c->o.pending_bytes};
    err = wn_store_pending_apply(c->store, ops, n, &lim, &res, diag);
  }
  pthread_mutex_lock(&c->mu);
  if (err) {
    c->st.store_errors++;
  } else {
    c->st.pages_kept += res.added;
    c->st.pending_evicted += res.pages_evicted;
  }
  pthread_mutex_unlock(&c->mu);
  for (size_t i = 0; i < n; i++)
    wn_held_free(&jobs[i].page);
  free(jobs);
  free(ops);
  free(pages);
  return err;
}

wn_err wn_collector_flush(wn_collector *c, wn_diag *diag) {
  if (!c)
    return wn_diag_set(diag, WN_EINVAL, "collector: no collector");
  if (!c->keep_pending)
    return WN_OK;
  pthread_mutex_lock(&c->flush_mu);
  wn_err err = wn_collect_write(c, diag);
  pthread_mutex_unlock(&c->flush_mu);
  return err;
}

wn_err wn_collector_add(wn_collector *c, const wn_page_input *page, const char *name,
                        unsigned flags, wn_collect_state *state, wn_diag *diag) {
  *state = WN_COLLECT_NO_SITE;
  if (!c || !page || (!page->bytes && page->len))
    return wn_diag_set(diag, WN_EINVAL, "collector: no page");
  char site[WN_SITE_MAX + 1];
  if (page->site) {
    wn_err err = wn_site_check(page->site, diag);
    if (err)
      return err;
    snprintf(site, sizeof site, "%s", page->site);
  } else if (!page->url || wn_site_from_url(page->url, site, sizeof site, diag) != WN_OK) {
    /* No site to learn for: not the collector's error. */
    wn_diag_clear(diag);
    return WN_OK;
  }
  if ((name && strlen(name) > WN_STORE_MAX_PAGE_NAME) ||
      (!name && page->url && strlen(page->url) > WN_STORE_MAX_PAGE_NAME)) {
    *state = WN_COLLECT_TOO_BIG;
    return WN_OK;
  }
  wn_err err = WN_OK;
  pthread_mutex_lock(&c->mu);
  wn_csite *s = *wn_collect_slot(c, site);
  if (!s) {
    err = wn_collect_new_site(c, site, &s, diag);
    if (err)
      goto out;
  }
  wn_collect_touch(c, s);
  if (flags & WN_COLLECT_RELEARN) {
    if (s->state != WN_CS_COLLECTING) {
      s->state = WN_CS_COLLECTING;
      s->attempts = 0;
      s->keep = 0; /* it has a template: nothing pending in the store */
    }
  }
  if (s->state == WN_CS_TEMPLATE) {
    *state = WN_COLLECT_TEMPLATE;
    goto out;
  }
  if (s->state == WN_CS_GAVE_UP) {
    *state = WN_COLLECT_GAVE_UP;
    goto out;
  }
  if (s->n_pages == c->o.sample_pages) {
    *state = WN_COLLECT_READY; /* enough already; this one is not needed */
    goto out;
  }
  /* A page held already (seen in an earlier run, or twice in this one) is
   * not held twice: the sample would be its near-duplicate. */
  const char *same = name ? name : page->url;
  for (uint32_t i = 0; same && i < s->n_pages; i++)
    if (strcmp(s->pages[i].name, same) == 0) {
      *state = WN_COLLECT_HELD;
      goto out;
    }
  if (page->len > c->o.max_bytes || wn_collect_make_room(c, s, page->len) != 0) {
    *state = WN_COLLECT_TOO_BIG;
    goto out;
  }
  err = wn_collect_hold(c, s, page, name, diag);
  if (!err)
    *state = s->n_pages == c->o.sample_pages ? WN_COLLECT_READY : WN_COLLECT_HELD;
out:;
  const int flush = c->n_jobs >= WN_COLLECT_FLUSH_PAGES ||
                    c->jobs_bytes >= WN_COLLECT_FLUSH_BYTES ||
                    (c->n_jobs > 0 && wn_clock_ms() - c->jobs_since >= WN_COLLECT_FLUSH_MS);
  pthread_mutex_unlock(&c->mu);
  /* One thread writes; the others go on (their pages wait for the next). */
  if (!err && flush && pthread_mutex_trylock(&c->flush_mu) == 0) {
    err = wn_collect_write(c, diag);
    pthread_mutex_unlock(&c->flush_mu);
  }
  return err;
}

/* ---- trees kept for detection ------------------------------------------------------------ */

/* Under the lock: p joins the kept trees; the oldest go while they pass
 * max_bytes (their own bound, beside the held pages'). */
static void wn_collect_keep_parsed(wn_collector *c, wn_parsed *p) {
  if (c->parsed_last)
    c->parsed_last->next = p;
  else
    c->parsed = p;
  c->parsed_last = p;
  c->parsed_bytes += p->cost;
  atomic_fetch_add_explicit(&c->n_parsed, 1, memory_order_relaxed);
  while (c->parsed && c->parsed_bytes > c->o.max_bytes) {
    wn_parsed *old = c->parsed;
    c->parsed = old->next;
    if (!c->parsed)
      c->parsed_last = NULL;
    c->parsed_bytes -= old->cost;
    atomic_fetch_sub_explicit(&c->n_parsed, 1, memory_order_relaxed);
    wn_parsed_free(old);
  }
}

wn_dom_page *wn_collector_take_parsed(wn_collector *c, const char *bytes, size_t len,
                                      const char *charset) {
  if (!c || atomic_load_explicit(&c->n_parsed, memory_order_relaxed) == 0)
    return NULL;
  if (!charset)
    charset = "";
  wn_dom_page *page = NULL;
  pthread_mutex_lock(&c->mu);
  for (wn_parsed **pp = &c->parsed, *prev = NULL; *pp; prev = *pp, pp = &(*pp)->next) {
    wn_parsed *p = *pp;
    /* The length first: a page's bytes are compared only with a page of
     * its length. */
    if (p->len != len || strcmp(p->charset, charset) != 0 || memcmp(p->bytes, bytes, len) != 0)
      continue;
    *pp = p->next;
    if (c->parsed_last == p)
      c->parsed_last = prev;
    c->parsed_bytes -= p->cost;
    atomic_fetch_sub_explicit(&c->n_parsed, 1, memory_order_relaxed);
    page = p->page;
    p->page = NULL;
    wn_parsed_free(p);
    break;
  }
  pthread_mutex_unlock(&c->mu);
  return page;
}

/* ---- learn ---------------------------------------------------------------------------- */

/* The sample's order (the key page first): see the file's comment. A page
 * without a URL is at no known distance (UINT32_MAX) from any other. */
static void wn_collect_order(const wn_held *pages, uint32_t n, uint32_t *order) {
  uint32_t h[WN_LEARN_MAX_PAGES][WN_LEARN_MAX_PAGES];
  for (uint32_t i = 0; i < n; i++) {
    h[i][i] = 0;
    for (uint32_t j = 0; j < i; j++) {
      uint32_t d = pages[i].url && pages[j].url
                       ? wn_learn_hyperlink_distance(pages[i].url, pages[j].url)
                       : UINT32_MAX;
      h[i][j] = h[j][i] = d;
    }
  }
  uint32_t key = 0;
  uint64_t best = UINT64_MAX;
  for (uint32_t i = 0; i < n; i++) {
    uint64_t sum = 0;
    for (uint32_t j = 0; j < n; j++)
      sum += h[i][j];
    if (sum < best) {
      best = sum;
      key = i;
    }
  }
  order[0] = key;
  uint32_t k = 1;
  for (uint32_t i = 0; i < n; i++)
    if (i != key)
      order[k++] = i;
  /* Insertion sort of the rest by distance to the key, stable. */
  for (uint32_t i = 2; i < n; i++) {
    uint32_t v = order[i], j = i;
    while (j > 1 && h[key][order[j - 1]] > h[key][v]) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = v;
  }
}

wn_err wn_collector_learn(wn_collector *c, const char *site, wn_learned **out, wn_diag *diag) {
  if (out)
    *out = NULL;
  if (!c || !site)
    return wn_diag_set(diag, WN_EINVAL, "collector: no site");
  const char *names[WN_LEARN_MAX_PAGES], *bytes[WN_LEARN_MAX_PAGES];
  const char *charsets[WN_LEARN_MAX_PAGES];
  size_t lens[WN_LEARN_MAX_PAGES];
  int restored[WN_LEARN_MAX_PAGES];
  uint32_t order[WN_LEARN_MAX_PAGES];
  pthread_mutex_lock(&c->mu);
  wn_csite *s = *wn_collect_slot(c, site);
  if (!s || s->n_pages == 0 || s->state != WN_CS_COLLECTING) {
    pthread_mutex_unlock(&c->mu);
    return wn_diag_set(diag, WN_ENOTFOUND, "collector: no pages held for site %s", site);
  }
  if (s->busy) {
    pthread_mutex_unlock(&c->mu);
    return wn_diag_set(diag, WN_EBUSY, "collector: site %s is being learned", site);
  }
  s->busy = 1;
  const uint32_t n = s->n_pages;
  wn_collect_order(s->pages, n, order);
  for (uint32_t i = 0; i < n; i++) {
    const wn_held *h = &s->pages[order[i]];
    names[i] = h->name;
    bytes[i] = h->bytes;
    lens[i] = h->len;
    charsets[i] = h->charset[0] ? h->charset : NULL;
    restored[i] = h->restored;
  }
  pthread_mutex_unlock(&c->mu);

  /* The pages are read unlocked: a busy site's first n pages stay put. */
  wn_learned *l = NULL;
  wn_dom_page *trees[WN_LEARN_MAX_PAGES] = {0};
  wn_err err = n < 2 ? wn_diag_set(diag, WN_EEMPTY, "collector: one page held for site %s", site)
                     : wn_site_learn_pages_cs(site, names, bytes, lens, charsets, n, &c->o.learn,
                                              &l, c->o.keep_parsed ? trees : NULL,
                                              diag);
  /* Learned: the trees wait for the pages' detection, with the pages'
   * bytes to know them by (moved out of the held pages, not copied). */
  wn_parsed *kept[WN_LEARN_MAX_PAGES] = {0};
  for (uint32_t i = 0; !err && i < n; i++) {
    if (!trees[i])
      continue;
    /* A page from an earlier run is not detected in this one. */
    kept[i] = restored[i] ? NULL : calloc(1, sizeof *kept[i]);
    if (!kept[i]) {
      wn_dom_free(trees[i]);
      trees[i] = NULL;
      continue;
    }
    kept[i]->page = trees[i];
    trees[i] = NULL;
  }

  pthread_mutex_lock(&c->mu);
  s->busy = 0;
  if (!err) {
    c->st.sites_learned++;
    c->st.pages_learned += l->n_used;
    s->state = WN_CS_TEMPLATE;
    for (uint32_t i = 0; i < n; i++) {
      wn_parsed *p = kept[i];
      if (!p)
        continue;
      wn_held *h = &s->pages[order[i]];
      p->bytes = h->bytes;
      p->len = h->len;
      memcpy(p->charset, h->charset, sizeof p->charset);
      h->bytes = NULL; /* now the tree's; the held page's length still counts below */
      p->cost = p->len + wn_dom_memory(p->page);
      wn_collect_keep_parsed(c, p);
    }
    wn_collect_drop_all(c, s);
  } else if (err == WN_ENOMEM) {
    /* Nothing learned about the pages: try again later. */
  } else {
    c->st.learn_failures++;
    if (++s->attempts >= c->o.max_attempts) {
      s->state = WN_CS_GAVE_UP;
      c->st.sites_given_up++;
      wn_collect_drop_all(c, s);
      if (s->keep)
        wn_collect_queue(c, s->name, NULL);
    } else {
      /* The page that failed to parse, else the key page: a sample that
       * does not share the key page's layout may share another's. */
      uint32_t drop = order[0];
      for (uint32_t i = 0; l && i < n; i++) {
        const wn_learn_page *p = wn_learned_page(l, i);
        if (p && p->err && p->err != WN_EEMPTY) {
          drop = order[i];
          break;
        }
      }
      wn_collect_drop_page(c, s, drop);
      if (s->keep)
        wn_collect_queue_rewrite(c, s);
    }
  }
  pthread_mutex_unlock(&c->mu);
  if (out)
    *out = l;
  else
    wn_learned_free(l);
  return err;
}

/* ---- pending, stats -------------------------------------------------------------------- */

typedef struct wn_pending {
  char name[WN_SITE_MAX + 1];
  uint32_t pages;
  uint64_t first_seen;
} wn_pending;

static int wn_pending_cmp(const void *a, const void *b) {
  const wn_pending *x = a, *y = b;
  return x->first_seen < y->first_seen ? -1 : x->first_seen > y->first_seen;
}

wn_err wn_collector_pending_each(wn_collector *c, uint32_t min_pages, wn_collect_fn fn,
                                 void *ctx, wn_diag *diag) {
  if (!c || !fn)
    return wn_diag_set(diag, WN_EINVAL, "collector: no callback");
  if (min_pages == 0)
    min_pages = c->o.min_pages;
  pthread_mutex_lock(&c->mu);
  size_t n = 0;
  for (wn_csite *s = c->oldest; s; s = s->newer)
    n += s->state == WN_CS_COLLECTING && !s->busy && s->n_pages >= min_pages;
  wn_pending *list = n ? malloc(n * sizeof *list) : NULL;
  if (n && !list) {
    pthread_mutex_unlock(&c->mu);
    return wn_diag_set(diag, WN_ENOMEM, "out of memory");
  }
  size_t k = 0;
  for (wn_csite *s = c->oldest; s && k < n; s = s->newer)
    if (s->state == WN_CS_COLLECTING && !s->busy && s->n_pages >= min_pages) {
      memcpy(list[k].name, s->name, sizeof s->name);
      list[k].pages = s->n_pages;
      list[k].first_seen = s->first_seen;
      k++;
    }
  pthread_mutex_unlock(&c->mu);
  if (k > 1)
    qsort(list, k, sizeof *list, wn_pending_cmp);
  for (size_t i = 0; i < k; i++)
    if (fn(list[i].name, list[i].pages, ctx) != 0)
      break;
  free(list);
  return WN_OK;
}

/* The name before 0.4 (deprecated, removed in 0.5.0). */
wn_err wn_collector_pending(wn_collector *c, uint32_t min_pages, wn_collect_fn fn, void *ctx,
                            wn_diag *diag) {
  return wn_collector_pending_each(c, min_pages, fn, ctx, diag);
}

void wn_collector_stats_get(wn_collector *c, wn_collect_stats *out) {
  memset(out, 0, sizeof *out);
  if (!c)
    return;
  pthread_mutex_lock(&c->mu);
  *out = c->st;
  out->bytes_held = c->bytes;
  pthread_mutex_unlock(&c->mu);
}
