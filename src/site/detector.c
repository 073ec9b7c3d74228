/* site/detector.c: detection at volume for many sites: a bounded cache of
 * decoded templates, batched detection counts, the drift report, and one
 * JSON shape for a result.
 *
 * A detector belongs to one thread at a time; the store it reads may be
 * shared (LMDB readers never block). The hot path reads the store only
 * when a site is first seen (or its cached template has aged), and writes
 * it only when batched counts are flushed. */
/* wn_detector_set_steps, the unstable part of winnow.h, is defined here. */
#define WN_UNSTABLE_API
#include "site/site_int.h"
#include "detect/fastce_detect.h"
#include "detect/steps.h"
#include "fetch/fetch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

/* Largest rendered output of one page (text or HTML): serialisation may
 * grow a page by its entity escapes; four times the page cap is far more
 * than any page needs. */
#define WN_RESULT_MAX_BYTES (4 * WN_DOM_DEFAULT_MAX_BYTES)
#define WN_CACHE_MAX_SITES 65536u

typedef struct wn_cache_entry {
  char site[WN_SITE_MAX + 1];
  int used;            /* the slot holds a site */
  int pinned;          /* given by wn_detector_use: never evicted or reread */
  wn_template *tpl;    /* NULL: the site has no template (the fallback serves it) */
  wn_fastce *fce;      /* a FastCE template instead (tpl NULL) */
  uint64_t generation;
  double loaded_ms;
  uint64_t store_puts; /* wn_store_puts when it was (re)read */
  uint64_t last_used;
  uint32_t pages, low; /* detections not yet counted in the store */
  int has_counts;      /* counts below were written by this detector */
  wn_site_counts counts;
  int drifting;
  uint64_t drift_reported; /* generation whose drift was reported; 0 none */
  int damaged;         /* the site's record did not decode: tpl and fce NULL */
} wn_cache_entry;

struct wn_detector {
  wn_store *store;
  wn_detector_options opts;
  wn_cache_entry *cache;
  uint32_t n_cache;
  uint64_t clock;
  uint32_t pending;      /* pages detected since the last flush */
  double last_flush_ms;
  int count;             /* counting on (a store opened for writing) */
  uint32_t steps;        /* the single-page method's steps: 0, the default
                            (wn_detector_set_steps) */
};

struct wn_page_result {
  char site[WN_SITE_MAX + 1];
  int has_site;
  /* Why the page's URL named no site (valid UTF-8), or "": the page was
   * served without one. */
  char site_error[sizeof ((wn_diag *)0)->msg];
  const char *method;
  double confidence;
  wn_detect_fallback fallback;
  const char *retried; /* static: why the single-page method chose again, or NULL */
  const char *page_type; /* static: the page's shape (detect/shape.c) */
  const char *empty;   /* static: why no content was found, or NULL */
  const char *place;   /* static: why the content place did not serve, or NULL */
  uint32_t layout, layouts; /* the site's layout that served, of how many */
  uint64_t generation;
  char charset[48];
  const char *charset_source;
  char **nodes;          /* paths; one allocation each */
  size_t n_nodes;
  wn_buf text, html, markdown;
  wn_detect_metadata meta; /* WN_WANT_METADATA */
  wn_page_metadata meta_view;
  unsigned want;         /* WN_WANT_* rendered */
  int has_counts, drifting;
  wn_site_counts counts;
  wn_page_times times;
};

/* ---- the cache ------------------------------------------------------------ */

/* Writes a slot's pending counts: one write transaction per site and
 * flush, not per page. Counting is advisory: a failure is dropped (the
 * store may be read-only, full, or the site deleted meanwhile). */
static void wn_entry_flush(wn_detector *d, wn_cache_entry *e) {
  if (!e->used || (!e->tpl && !e->fce) || e->pages == 0 || e->pinned || !d->count) {
    e->pages = e->low = 0;
    return;
  }
  wn_store_stats st;
  int counted = 0;
  wn_err err = wn_store_count(d->store, e->site, e->generation, e->pages, e->low, &counted, &st,
                              NULL);
  e->pages = e->low = 0;
  if (err || !counted)
    return;
  e->has_counts = 1;
  e->counts = st.counts;
  e->drifting = wn_store_drifting(&st.counts, &d->opts.drift);
  if (e->drifting && e->drift_reported != e->generation) {
    e->drift_reported = e->generation;
    if (d->opts.on_drift) {
      wn_drift_event ev = {.site = e->site,
                           .generation = e->generation,
                           .counts = e->counts,
                           .min_confidence = d->opts.detect.min_confidence};
      d->opts.on_drift(&ev, d->opts.drift_ctx);
    }
  }
}

wn_err wn_detector_flush(wn_detector *d, wn_diag *diag) {
  (void)diag;
  for (uint32_t i = 0; i < d->n_cache; i++)
    wn_entry_flush(d, &d->cache[i]);
  d->pending = 0;
  d->last_flush_ms = wn_clock_ms();
  return WN_OK;
}

static void wn_entry_clear(wn_cache_entry *e) {
  wn_template_free(e->tpl);
  wn_fastce_free(e->fce);
  memset(e, 0, sizeof *e);
}

/* The slot of a site: cached, or a victim slot (empty, else the least
 * recently used unpinned one) for the caller to fill. *found says which. */
static wn_cache_entry *wn_cache_slot(wn_detector *d, const char *site, int *found) {
  wn_cache_entry *victim = NULL;
  /* A linear scan of a few hundred entries costs far less than the page
   * parse it sits next to. */
  for (uint32_t i = 0; i < d->n_cache; i++) {
    wn_cache_entry *e = &d->cache[i];
    if (e->used && strcmp(e->site, site) == 0) {
      *found = 1;
      return e;
    }
    if (e->pinned)
      continue;
    if (!victim || (victim->used && (!e->used || e->last_used < victim->last_used)))
      victim = e;
  }
  *found = 0;
  return victim;
}

/* The site's cache entry, reading its template from the store when it is
 * not cached or has aged. */
static wn_err wn_detector_entry(wn_detector *d, const char *site, wn_cache_entry **out,
                                wn_diag *diag) {
  int found = 0;
  const double now = wn_clock_ms();
  wn_cache_entry *e = wn_cache_slot(d, site, &found);
  if (!e)
    return wn_diag_set(diag, WN_EBUSY, "every template cache slot is pinned");
  /* Stale after max_age_ms, or at once when this process wrote a record
   * to the store meanwhile (a site learned from the pages being detected,
   * or relearned, is served by its template from the next page on). */
  const uint64_t puts = wn_store_puts(d->store);
  const int stale = found && !e->pinned &&
                    ((d->opts.max_age_ms > 0 && now - e->loaded_ms >= (double)d->opts.max_age_ms) ||
                     (d->store && puts != e->store_puts));
  if (found && !stale) {
    e->last_used = ++d->clock;
    *out = e;
    return WN_OK;
  }
  if (stale && d->store) {
    /* The generation alone (a small read) says whether the site was
     * relearned; the template is decoded again only if it was. */
    wn_store_stats st;
    if (wn_store_stats_get(d->store, site, &st, NULL) == WN_OK && st.generation == e->generation &&
        (e->tpl || e->fce)) {
      e->loaded_ms = now;
      e->store_puts = puts;
      e->last_used = ++d->clock;
      *out = e;
      return WN_OK;
    }
  }
  wn_template *tpl = NULL;
  wn_fastce *fce = NULL;
  uint64_t generation = 0;
  int damaged = 0;
  if (d->store) {
    wn_err err = wn_site_load_any(d->store, site, &tpl, &fce, &generation, diag);
    /* A record that does not decode costs the site its template, not its
     * pages: they go to the single-page method, and the caller is told. */
    damaged = err == WN_ECORRUPT || err == WN_EVERSION;
    if (damaged && d->opts.on_damage)
      d->opts.on_damage(site, wn_diag_message(diag, err), d->opts.drift_ctx);
    if (err && err != WN_ENOTEMPLATE && !damaged)
      return err;
    wn_diag_clear(diag);
  }
  wn_entry_flush(d, e);
  wn_entry_clear(e);
  memcpy(e->site, site, strlen(site) + 1); /* checked: <= WN_SITE_MAX */
  e->used = 1;
  e->tpl = tpl;
  e->fce = fce;
  e->generation = generation;
  e->damaged = damaged;
  e->loaded_ms = now;
  e->store_puts = puts;
  e->last_used = ++d->clock;
  *out = e;
  return WN_OK;
}

wn_err wn_detector_create(wn_store *store, const wn_detector_options *opts, wn_detector **out,
                          wn_diag *diag) {
  *out = NULL;
  wn_detector *d = calloc(1, sizeof *d);
  if (!d)
    return wn_diag_set(diag, WN_ENOMEM, "out of memory");
  if (opts)
    d->opts = *opts;
  else
    wn_detector_options_init(&d->opts);
  wn_detector_options dflt;
  wn_detector_options_init(&dflt);
  if (d->opts.cache_sites == 0)
    d->opts.cache_sites = dflt.cache_sites;
  if (d->opts.cache_sites > WN_CACHE_MAX_SITES)
    d->opts.cache_sites = WN_CACHE_MAX_SITES;
  if (d->opts.flush_pages == 0)
    d->opts.flush_pages = dflt.flush_pages;
  if (d->opts.drift.min_pages == 0)
    d->opts.drift = dflt.drift;
  if ((unsigned)d->opts.detect.selector > WN_SELECT_LAST ||
      !(d->opts.detect.min_confidence >= 0.0 && d->opts.detect.min_confidence <= 1.0) ||
      wn_single_method_name(d->opts.detect.fallback) == NULL ||
      d->opts.detect.favor < WN_FAVOR_BALANCED || d->opts.detect.favor > WN_FAVOR_RECALL ||
      (d->opts.detect.comments != 0 && d->opts.detect.comments != 1)) {
    free(d);
    return wn_diag_set(diag, WN_EINVAL, "detector options: selector, min_confidence (0 to 1), "
                                        "fallback, favor or comments out of range");
  }
  d->cache = calloc(d->opts.cache_sites, sizeof *d->cache);
  if (!d->cache) {
    free(d);
    return wn_diag_set(diag, WN_ENOMEM, "out of memory");
  }
  d->n_cache = d->opts.cache_sites;
  d->store = store;
  d->count = store && d->opts.count;
  d->last_flush_ms = wn_clock_ms();
  *out = d;
  return WN_OK;
}

void wn_detector_destroy(wn_detector *d) {
  if (!d)
    return;
  /* Counts are written even when the caller stopped early: the pages
   * before the stop were detected. */
  wn_detector_flush(d, NULL);
  for (uint32_t i = 0; i < d->n_cache; i++)
    wn_entry_clear(&d->cache[i]);
  free(d->cache);
  free(d);
}

wn_err wn_detector_set_steps(wn_detector *d, uint32_t steps, wn_diag *diag) {
  if (!d)
    return wn_diag_set(diag, WN_EINVAL, "no detector");
  if (steps != WN_SINGLE_STEPS_DEFAULT &&
      (!(steps & WN_SINGLE_STEPS_SET) || (steps & ~(WN_SINGLE_STEPS_SET | WN_SINGLE_STEPS_ALL))))
    return wn_diag_set(diag, WN_EINVAL,
                       "steps 0x%x: 0, or 0x%x with step bits of 0x%x", (unsigned)steps,
                       (unsigned)WN_SINGLE_STEPS_SET, (unsigned)WN_SINGLE_STEPS_ALL);
  d->steps = steps;
  return WN_OK;
}

wn_err wn_detector_use(wn_detector *d, const wn_learned *learned, wn_diag *diag) {
  if (!learned || (!learned->tpl && !learned->fce))
    return wn_diag_set(diag, WN_EINVAL, "nothing learned to use");
  /* A copy from the learned bytes: the detector owns its templates and
   * the caller may free learned at once. */
  wn_template *copy = NULL;
  wn_fastce *fce = NULL;
  wn_err err = learned->fce
                   ? wn_fastce_decode(learned->tpl_bytes.data, learned->tpl_bytes.len, &fce, diag)
                   : wn_template_decode(learned->tpl_bytes.data, learned->tpl_bytes.len, &copy,
                                        diag);
  if (err)
    return err;
  int found = 0;
  wn_cache_entry *e = wn_cache_slot(d, learned->site, &found);
  if (!e) {
    wn_template_free(copy);
    wn_fastce_free(fce);
    return wn_diag_set(diag, WN_EBUSY, "every template cache slot is pinned");
  }
  wn_entry_flush(d, e);
  wn_entry_clear(e);
  memcpy(e->site, learned->site, strlen(learned->site) + 1);
  e->used = 1;
  e->pinned = 1;
  e->tpl = copy;
  e->fce = fce;
  e->loaded_ms = wn_clock_ms();
  e->last_used = ++d->clock;
  return WN_OK;
}

/* ---- one page ---------------------------------------------------------------- */

/* Copies src into dst[dst_size] (truncated on a character boundary),
 * each byte of an ill-formed UTF-8 sequence (RFC 3629 4: no overlong
 * forms, no surrogates, nothing past U+10FFFF) written as '?': a message
 * that quotes a URL of a Latin-1 page, or cuts one after 200 bytes, must
 * still go into JSON. */
static void wn_utf8_scrub(char *dst, size_t dst_size, const char *src) {
  const unsigned char *s = (const unsigned char *)src;
  size_t n = 0;
  if (dst_size == 0)
    return;
  while (*s) {
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xbf;
    if (s[0] < 0x80)
      len = 1;
    else if (s[0] >= 0xc2 && s[0] <= 0xdf)
      len = 2;
    else if (s[0] >= 0xe0 && s[0] <= 0xef) {
      len = 3;
      lo = s[0] == 0xe0 ? 0xa0 : 0x80;
      hi = s[0] == 0xed ? 0x9f : 0xbf;
    } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
      len = 4;
      lo = s[0] == 0xf0 ? 0x90 : 0x80;
      hi = s[0] == 0xf4 ? 0x8f : 0xbf;
    }
    /* The second byte has the lead's range, the others 80 to BF. */
    for (size_t k = 1; k < len; k++)
      if (s[k] < (k == 1 ? lo : 0x80) || s[k] > (k == 1 ? hi : 0xbf))
        len = 0;
    if (len == 0) {
      if (n + 1 >= dst_size)
        break;
      dst[n++] = '?';
      s++;
      continue;
    }
    if (n + len >= dst_size)
      break;
    memcpy(dst + n, s, len);
    n += len;
    s += len;
  }
  dst[n] = '\0';
}

void wn_page_result_free(wn_page_result *r) {
  if (!r)
    return;
  for (size_t i = 0; i < r->n_nodes; i++)
    free(r->nodes[i]);
  free(r->nodes);
  wn_buf_free(&r->text);
  wn_buf_free(&r->html);
  wn_buf_free(&r->markdown);
  wn_detect_metadata_free(&r->meta);
  free(r);
}

static wn_err wn_result_nodes(wn_page_result *r, const wn_dom_page *page,
                              const wn_detect_result *res, wn_diag *diag) {
  uint32_t n = 0;
  const uint32_t *selected = wn_detect_selected(res, &n);
  wn_buf path;
  wn_err err = WN_OK;
  wn_buf_init(&path, 64 * 1024);
  r->nodes = calloc(n ? n : 1, sizeof *r->nodes);
  if (!r->nodes)
    return wn_diag_set(diag, WN_ENOMEM, "out of memory");
  for (uint32_t k = 0; k < n; k++) {
    wn_buf_reset(&path);
    err = wn_dom_node_path(page, selected[k], &path);
    if (err) {
      wn_diag_set(diag, err, "cannot write the path of node %u", selected[k]);
      break;
    }
    size_t len = 0;
    char *s = wn_buf_take(&path, &len);
    if (!s)
      s = calloc(1, 1);
    if (!s) {
      err = wn_diag_set(diag, WN_ENOMEM, "out of memory");
      break;
    }
    r->nodes[r->n_nodes++] = s;
  }
  wn_buf_free(&path);
  return err;
}

/* The fields of the metadata, in the order JSON and front matter give
 * them. */
#define WN_META_FIELDS(X)                                                    \
  X(title) X(author) X(date) X(language) X(canonical_url) X(description) X(site_name)

/* YAML front matter (the block Jekyll, Hugo and Pandoc read): "---", one
 * "key: value" line per field the page has, "---"; nothing when the page
 * has none. Values are JSON
 * strings, which YAML 1.2 reads as double-quoted scalars (YAML 1.2,
 * section 1.3, "YAML is a superset of JSON"): jansson escapes them. */
static wn_err wn_result_front_matter(const wn_page_metadata *m, wn_buf *out, wn_diag *diag) {
  int any = 0;
#define WN_ANY_FIELD(f) any |= m->f != NULL;
  WN_META_FIELDS(WN_ANY_FIELD)
#undef WN_ANY_FIELD
  if (!any) /* no block at all rather than an empty one */
    return WN_OK;
  wn_err err = wn_buf_append_str(out, "---\n");
#define WN_FRONT_FIELD(f)                                                    \
  if (!err && m->f) {                                                        \
    json_t *v = json_string(m->f);                                           \
    char *q = v ? json_dumps(v, JSON_ENCODE_ANY) : NULL;                     \
    json_decref(v);                                                          \
    if (!q)                                                                  \
      err = wn_diag_set(diag, WN_ENOMEM, "out of memory writing front matter"); \
    else                                                                     \
      err = wn_buf_printf(out, "%s: %s\n", #f, q);                           \
    free(q);                                                                 \
  }
  WN_META_FIELDS(WN_FRONT_FIELD)
#undef WN_FRONT_FIELD
  if (!err)
    err = wn_buf_append_str(out, "---\n\n");
  return err;
}

/* Why the selection holds no text, or NULL when it holds some. */
static const char *wn_result_empty(const wn_dom_page *page, const wn_detect_result *res) {
  uint32_t n_sel = 0, n_nodes = 0;
  const uint32_t *sel = wn_detect_selected(res, &n_sel);
  const wn_dom_node *nodes = wn_dom_nodes(page, &n_nodes);
  for (uint32_t i = 0; i < n_sel; i++)
    if (sel[i] < n_nodes && nodes[sel[i]].text_len > 0)
      return NULL;
  if (wn_detect_result_has_body(res))
    return NULL; /* the page's JSON-LD body: text outside its tree */
  switch (wn_dom_cut_short(page)) {
  case WN_DOM_CUT_DEPTH:
    return "cut short: more than 256 nested elements";
  case WN_DOM_CUT_TEXT:
    return "cut short: a text of more than 10 MB";
  default:
    break;
  }
  return n_nodes > 0 && nodes[0].text_len > 0 ? "everything filtered" : "no text in the page";
}

wn_err wn_detector_detect(wn_detector *d, const wn_page_input *in, unsigned want,
                          wn_page_result **out, wn_diag *diag) {
  wn_err err = WN_OK;
  wn_dom_page *page = NULL;
  wn_detect_result *res = NULL;
  wn_cache_entry *entry = NULL;
  *out = NULL;
  if (!in || (!in->bytes && in->len > 0))
    return wn_diag_set(diag, WN_EINVAL, "no page");
  wn_page_result *r = calloc(1, sizeof *r);
  if (!r)
    return wn_diag_set(diag, WN_ENOMEM, "out of memory");
  wn_buf_init(&r->text, WN_RESULT_MAX_BYTES);
  wn_buf_init(&r->html, WN_RESULT_MAX_BYTES);
  wn_buf_init(&r->markdown, WN_RESULT_MAX_BYTES);
  if (want & WN_WANT_FRONT_MATTER)
    want |= WN_WANT_METADATA;
  r->want = want;

  /* The site: given, else the URL's; a page with neither goes to the
   * single-page method. */
  if (in->site) {
    err = wn_site_check(in->site, diag);
    if (err)
      goto out;
    memcpy(r->site, in->site, strlen(in->site) + 1);
    r->has_site = 1;
  } else if (in->url) {
    /* A URL that names no site (not http(s), a host no site name can
     * spell) does not cost the page its content: it is served as a page
     * without a site, and the result says why ("site_error"). */
    wn_diag site_diag;
    wn_diag_clear(&site_diag);
    err = wn_site_from_url(in->url, r->site, sizeof r->site, &site_diag);
    if (err == WN_ENOMEM) {
      wn_diag_set(diag, err, "%s", wn_diag_message(&site_diag, err));
      goto out;
    }
    if (err) {
      wn_utf8_scrub(r->site_error, sizeof r->site_error, wn_diag_message(&site_diag, err));
      r->site[0] = '\0';
      err = WN_OK;
    } else {
      r->has_site = 1;
    }
  }
  if (r->has_site) {
    err = wn_detector_entry(d, r->site, &entry, diag);
    if (err)
      goto out;
  }
  if (in->len > d->opts.max_bytes) {
    err = wn_diag_set(diag, WN_ETOOBIG, "page of %zu bytes is past the cap of %zu bytes",
                      in->len, d->opts.max_bytes);
    goto out;
  }
  wn_dom_options parse_opts = {.max_bytes = d->opts.max_bytes,
                               .max_nodes = d->opts.max_nodes,
                               .max_depth = d->opts.max_depth,
                               .transport_charset = in->charset,
                               /* Only HTML output serialises libxml2's
                                * tree; Markdown and metadata read the
                                * compact tree's attributes and side table. */
                               .keep_xml = (want & WN_WANT_HTML) != 0};
  /* A page the collector learned from: its tree, parsed with these very
   * options (the default caps, no libxml2 tree kept). */
  if (d->opts.collector && !parse_opts.keep_xml &&
      parse_opts.max_bytes == WN_DOM_DEFAULT_MAX_BYTES &&
      parse_opts.max_nodes == WN_DOM_DEFAULT_MAX_NODES &&
      parse_opts.max_depth == WN_DOM_DEFAULT_MAX_DEPTH)
    page = wn_collector_take_parsed(d->opts.collector, in->bytes ? in->bytes : "", in->len,
                                    in->charset);
  if (!page) {
    err = wn_dom_parse(in->bytes ? in->bytes : "", in->len, &parse_opts, &page, diag);
    if (err)
      goto out;
    wn_dom_times(page, &r->times.decode_ms, &r->times.parse_ms);
  }
  double t = wn_clock_ms();
  /* The method is the site record's: FastCE paths or ETDM. */
  err = entry && entry->fce
            ? wn_detect_fastce_page(page, entry->fce, &d->opts.detect, d->steps, &res, diag)
            : wn_detect_page(page, entry ? entry->tpl : NULL, &d->opts.detect, d->steps, &res,
                             diag);
  if (err)
    goto out;
  r->method = wn_detect_method(res);
  r->confidence = wn_detect_confidence(res);
  r->fallback = wn_detect_fallback_reason(res);
  if (r->fallback == WN_FALLBACK_NO_TEMPLATE && entry && entry->damaged)
    r->fallback = WN_FALLBACK_DAMAGED;
  r->retried = wn_detect_result_retried(res);
  {
    /* The URL's path is weak evidence of the shape; a URL that does not
     * parse gives none. */
    char path[512];
    if (!in->url || wn_url_path(in->url, path, sizeof path, NULL) != WN_OK)
      path[0] = '\0';
    r->page_type = wn_detect_page_type_name(wn_detect_page_shape(page, res, path[0] ? path : NULL));
  }
  r->empty = wn_result_empty(page, res);
  r->place = wn_detect_result_place(res);
  r->layouts = entry && entry->tpl ? wn_template_layout_count(entry->tpl) : 1;
  r->layout = entry && entry->tpl ? wn_detect_result_layout(res) : 0;
  r->generation = entry && (entry->tpl || entry->fce) ? entry->generation : 0;
  snprintf(r->charset, sizeof r->charset, "%s", wn_dom_charset(page));
  r->charset_source = wn_charset_source_name(wn_dom_charset_source(page));
  {
    const double now = wn_clock_ms();
    r->times.detect_ms = now - t;
    t = now;
  }
  if ((want & WN_RENDER_NO_TABLES) && (err = wn_detect_result_drop_tables(page, res)) != WN_OK) {
    wn_diag_set(diag, err, "leaving the tables out failed");
    goto out;
  }
  if (want & WN_WANT_NODES) {
    err = wn_result_nodes(r, page, res, diag);
    if (err)
      goto out;
  }
  if (want & WN_WANT_TEXT) {
    err = wn_detect_render_text(page, res, &r->text);
    if (err) {
      wn_diag_set(diag, err, "rendering the text failed");
      goto out;
    }
  }
  if (want & WN_WANT_METADATA) {
    err = wn_detect_metadata_read(page, in->url, &r->meta, diag);
    /* No date or author in the markup: where the site prints them. */
    if (!err && entry && entry->tpl)
      err = wn_detect_metadata_positions(page, wn_template_layout(entry->tpl, r->layout),
                                         &r->meta, diag);
    if (err)
      goto out;
    r->meta_view = (wn_page_metadata){.title = r->meta.title,
                                      .author = r->meta.author,
                                      .date = r->meta.date,
                                      .language = r->meta.language,
                                      .canonical_url = r->meta.canonical_url,
                                      .description = r->meta.description,
                                      .site_name = r->meta.site_name};
  }
  if (want & WN_WANT_MARKDOWN) {
    wn_render_options ropts = {.base_url = in->url,
                               .links = !(want & WN_RENDER_NO_LINKS),
                               .images = !(want & WN_RENDER_NO_IMAGES),
                               .tables = !(want & WN_RENDER_NO_TABLES)};
    if (want & WN_WANT_FRONT_MATTER)
      err = wn_result_front_matter(&r->meta_view, &r->markdown, diag);
    if (!err)
      err = wn_detect_render_markdown(page, res, &ropts, &r->markdown, diag);
    if (err)
      goto out;
  }
  /* After Markdown: making the links absolute changes the page's doc. */
  if (want & WN_WANT_HTML) {
    err = wn_detect_render_html_base(page, res, in->url, &r->html, diag);
    if (err)
      goto out;
  }
  r->times.render_ms = wn_clock_ms() - t;
  /* Count it, and flush every flush_pages pages or flush_ms: a long
   * stream must show drift while it runs, not only when it ends. */
  if (entry && (entry->tpl || entry->fce) && !entry->pinned && entry->pages < UINT32_MAX) {
    entry->pages++;
    entry->low += r->fallback == WN_FALLBACK_LOW_CONFIDENCE;
    d->pending++;
  }
  if (d->count && d->pending > 0 &&
      (d->pending >= d->opts.flush_pages ||
       (d->opts.flush_ms > 0 && wn_clock_ms() - d->last_flush_ms >= (double)d->opts.flush_ms)))
    wn_detector_flush(d, NULL);
  if (entry && entry->has_counts) {
    r->has_counts = 1;
    r->counts = entry->counts;
    r->drifting = entry->drifting;
  }
out:
  wn_detect_result_free(res);
  wn_dom_free(page);
  if (err) {
    wn_page_result_free(r);
    return err;
  }
  *out = r;
  return WN_OK;
}

/* ---- the result ------------------------------------------------------------- */

const char *wn_page_result_site(const wn_page_result *r) { return r->has_site ? r->site : NULL; }
const char *wn_page_result_empty(const wn_page_result *r) { return r->empty; }
const char *wn_page_result_place(const wn_page_result *r) { return r->place; }
uint32_t wn_page_result_layout(const wn_page_result *r) { return r->layout + 1; }
const char *wn_page_result_site_error(const wn_page_result *r) {
  return r->site_error[0] ? r->site_error : NULL;
}
const char *wn_page_result_method(const wn_page_result *r) { return r->method; }
const char *wn_page_result_page_type(const wn_page_result *r) { return r->page_type; }
double wn_page_result_confidence(const wn_page_result *r) { return r->confidence; }
wn_detect_fallback wn_page_result_fallback(const wn_page_result *r) { return r->fallback; }
uint64_t wn_page_result_generation(const wn_page_result *r) { return r->generation; }
const char *wn_page_result_charset(const wn_page_result *r) { return r->charset; }
const char *wn_page_result_charset_source(const wn_page_result *r) { return r->charset_source; }

void wn_page_result_times_get(const wn_page_result *r, wn_page_times *out) {
  if (out)
    *out = r ? r->times : (wn_page_times){0, 0, 0, 0};
}

size_t wn_page_result_node_count(const wn_page_result *r) { return r->n_nodes; }

const char *wn_page_result_node(const wn_page_result *r, size_t i) {
  return i < r->n_nodes ? r->nodes[i] : NULL;
}

const char *wn_page_result_text(const wn_page_result *r, size_t *len) {
  if (len)
    *len = r->text.len;
  return r->text.data ? r->text.data : "";
}

const char *wn_page_result_html(const wn_page_result *r, size_t *len) {
  if (len)
    *len = r->html.len;
  return r->html.data ? r->html.data : "";
}

const char *wn_page_result_markdown(const wn_page_result *r, size_t *len) {
  if (len)
    *len = r->markdown.len;
  return r->markdown.data ? r->markdown.data : "";
}

const wn_page_metadata *wn_page_result_metadata(const wn_page_result *r) {
  return (r->want & WN_WANT_METADATA) ? &r->meta_view : NULL;
}

/* The name before 0.4 (deprecated, removed in 0.5.0). */
int wn_page_result_counts(const wn_page_result *r, wn_site_counts *out, int *drifting) {
  return wn_page_result_counts_get(r, out, drifting);
}

int wn_page_result_counts_get(const wn_page_result *r, wn_site_counts *out, int *drifting) {
  if (!r->has_counts)
    return 0;
  if (out)
    *out = r->counts;
  if (drifting)
    *drifting = r->drifting;
  return 1;
}

/* U+2028 and U+2029 escaped as \u2028 and \u2029 in JSON text. JSON allows
 * them raw, but readers that split JSON Lines on Unicode's line ends
 * (Python's str.splitlines(), JavaScript before ES2019) cut a record in
 * two there. Their UTF-8 bytes (E2 80 A8/A9) occur in JSON text only
 * inside strings, so the replacement is safe anywhere. *text is
 * malloc'd and replaced. */
static wn_err wn_json_escape_line_ends(char **text) {
  size_t n = 0, len = 0;
  const unsigned char *s = (const unsigned char *)*text;
  for (; s[len]; len++)
    if (s[len] == 0xE2 && s[len + 1] == 0x80 && (s[len + 2] == 0xA8 || s[len + 2] == 0xA9))
      n++;
  if (n == 0)
    return WN_OK;
  char *out = malloc(len + 3 * n + 1); /* 3 bytes become 6 */
  if (!out) {
    free(*text);
    *text = NULL;
    return WN_ENOMEM;
  }
  size_t o = 0;
  for (size_t i = 0; i < len; i++) {
    if (s[i] == 0xE2 && s[i + 1] == 0x80 && (s[i + 2] == 0xA8 || s[i + 2] == 0xA9)) {
      memcpy(out + o, s[i + 2] == 0xA8 ? "\\u2028" : "\\u2029", 6);
      o += 6;
      i += 2;
      continue;
    }
    out[o++] = (char)s[i];
  }
  out[o] = '\0';
  free(*text);
  *text = out;
  return WN_OK;
}

wn_err wn_page_result_json(const wn_page_result *r, const char *id_json, unsigned flags,
                           char **out, wn_diag *diag) {
  wn_err err = WN_ENOMEM;
  json_t *obj = json_object();
  *out = NULL;
  if (!obj)
    goto out;
  if (id_json) {
    /* Zeroed: jansson 2.14 returns NULL without filling it when it cannot
     * allocate its lexer, and says json_error_out_of_memory otherwise. */
    json_error_t jerr;
    memset(&jerr, 0, sizeof jerr);
    json_t *id = json_loads(id_json, JSON_DECODE_ANY, &jerr);
    if (!id) {
      if (jerr.text[0] == '\0' || json_error_code(&jerr) == json_error_out_of_memory)
        err = wn_diag_set(diag, WN_ENOMEM, "out of memory");
      else
        err = wn_diag_set(diag, WN_EINVAL, "id is not JSON: %s", jerr.text);
      goto out;
    }
    if (json_object_set_new(obj, "id", id) != 0)
      goto out;
  }
  const char *reason = wn_detect_fallback_name(r->fallback);
  /* json_object_set_new takes the value's reference even when it fails. */
  if (json_object_set_new(obj, "site", r->has_site ? json_string(r->site) : json_null()) != 0 ||
      (r->site_error[0] &&
       json_object_set_new(obj, "site_error", json_string(r->site_error)) != 0) ||
      json_object_set_new(obj, "method", json_string(r->method)) != 0 ||
      json_object_set_new(obj, "confidence", json_real(r->confidence)) != 0 ||
      json_object_set_new(obj, "fallback", reason ? json_string(reason) : json_null()) != 0 ||
      (r->retried && json_object_set_new(obj, "retried", json_string(r->retried)) != 0) ||
      (r->page_type && json_object_set_new(obj, "page_type", json_string(r->page_type)) != 0) ||
      (r->empty && json_object_set_new(obj, "empty", json_string(r->empty)) != 0) ||
      (r->place && json_object_set_new(obj, "place", json_string(r->place)) != 0) ||
      (r->layouts > 1 && json_object_set_new(obj, "layout", json_integer(r->layout + 1)) != 0))
    goto out;
  if (r->has_counts) {
    json_t *drift = json_pack(
        "{s:I, s:I, s:I, s:I, s:b}", "pages", (json_int_t)r->counts.pages, "low",
        (json_int_t)r->counts.low, "recent_pages", (json_int_t)r->counts.recent_pages,
        "recent_low", (json_int_t)r->counts.recent_low, "drifting", r->drifting);
    if (!drift || json_object_set_new(obj, "drift", drift) != 0)
      goto out;
  }
  if (json_object_set_new(obj, "charset", json_string(r->charset)) != 0 ||
      json_object_set_new(obj, "charset_source", json_string(r->charset_source)) != 0)
    goto out;
  if (r->want & WN_WANT_NODES) {
    json_t *nodes = json_array();
    if (json_object_set_new(obj, "nodes", nodes) != 0)
      goto out;
    for (size_t i = 0; i < r->n_nodes; i++)
      if (json_array_append_new(nodes, json_string(r->nodes[i])) != 0)
        goto out;
  }
  /* The parser decodes every page to UTF-8, so these fail only when
   * memory does, or if the core broke that promise. */
  if (r->want & WN_WANT_TEXT)
    if (json_object_set_new(obj, "text", json_stringn(r->text.data ? r->text.data : "",
                                                      r->text.len)) != 0)
      goto out;
  if (r->want & WN_WANT_HTML)
    if (json_object_set_new(obj, "html", json_stringn(r->html.data ? r->html.data : "",
                                                      r->html.len)) != 0)
      goto out;
  if (r->want & WN_WANT_MARKDOWN)
    if (json_object_set_new(obj, "markdown",
                            json_stringn(r->markdown.data ? r->markdown.data : "",
                                         r->markdown.len)) != 0)
      goto out;
  if (r->want & WN_WANT_METADATA) {
    json_t *meta = json_object();
    if (json_object_set_new(obj, "metadata", meta) != 0)
      goto out;
#define WN_JSON_FIELD(f)                                                     \
    if (json_object_set_new(meta, #f,                                        \
                            r->meta_view.f ? json_string(r->meta_view.f) : json_null()) != 0) \
      goto out;
    WN_META_FIELDS(WN_JSON_FIELD)
#undef WN_JSON_FIELD
  }
  size_t jflags = JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6) |
                  ((flags & WN_JSON_PRETTY) ? JSON_INDENT(2) : JSON_COMPACT);
  *out = json_dumps(obj, jflags);
  if (*out)
    err = wn_json_escape_line_ends(out);
out:
  json_decref(obj);
  if (err == WN_ENOMEM)
    wn_diag_set(diag, err, "out of memory writing JSON (or content not UTF-8)");
  return err;
}
