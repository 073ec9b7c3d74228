/* site/site_learn.c: learning a site (from files, pages in memory or a crawl)
 * into a wn_learned, and storing it.
 *
 * Learning and storing are two steps so that nothing touches the store
 * until a template exists: a failed learn leaves no directory and no
 * record behind, and a daemon can learn on a background thread and store
 * in one short transaction. */
#include "site/site_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char *wn_strdup_n(const char *s, size_t max) {
  size_t len = strnlen(s, max);
  char *d = malloc(len + 1);
  if (d) {
    memcpy(d, s, len);
    d[len] = '\0';
  }
  return d;
}

/* A wn_learned with room for n report pages. */
static wn_learned *wn_learned_alloc(const char *site, const char *key_page, size_t n,
                                    const wn_learn_options *opts) {
  wn_learned *l = calloc(1, sizeof *l);
  if (!l)
    return NULL;
  l->pages = calloc(n ? n : 1, sizeof *l->pages);
  l->names = calloc(n ? n : 1, sizeof *l->names);
  l->messages = calloc(n ? n : 1, sizeof *l->messages);
  l->key_page = wn_strdup_n(key_page, WN_STORE_MAX_PAGE_NAME);
  if (!l->pages || !l->names || !l->messages || !l->key_page) {
    wn_learned_free(l);
    return NULL;
  }
  memcpy(l->site, site, strlen(site) + 1); /* checked by the caller */
  wn_buf_init(&l->tpl_bytes, WN_STORE_MAX_TEMPLATE);
  l->opts = *opts;
  l->n_pages = n;
  for (size_t i = 0; i < n; i++) {
    l->pages[i].message = l->messages[i];
    l->pages[i].dom_distance = UINT32_MAX;
  }
  return l;
}

void wn_learned_free(wn_learned *l) {
  if (!l)
    return;
  if (l->names)
    for (size_t i = 0; i < l->n_pages; i++)
      free(l->names[i]);
  free(l->names);
  free(l->messages);
  free(l->pages);
  free(l->key_page);
  wn_template_free(l->tpl);
  wn_fastce_free(l->fce);
  wn_buf_free(&l->tpl_bytes);
  free(l);
}

/* Encodes a freshly learned template once: the summary reports its size,
 * wn_site_save stores these bytes and wn_detector_use decodes them. On
 * failure the template is dropped (nothing learned can be saved). */
static wn_err wn_learned_encode(wn_learned *l, wn_diag *diag) {
  wn_err err = l->fce ? wn_fastce_encode(l->fce, &l->tpl_bytes, diag)
                      : wn_template_encode(l->tpl, &l->tpl_bytes, diag);
  if (err) {
    wn_template_free(l->tpl);
    l->tpl = NULL;
    wn_fastce_free(l->fce);
    l->fce = NULL;
  }
  return err;
}

/* Options with the documented defaults where the caller left zeros (a
 * zeroed struct must not mean "min_count 0"). */
static wn_learn_options wn_learn_options_fill(const wn_learn_options *in) {
  wn_learn_options o;
  wn_learn_options_init(&o);
  if (!in)
    return o;
  wn_learn_options d = o;
  o = *in;
  if (!o.min_count)
    o.min_count = d.min_count;
  if (o.min_share == 0.0)
    o.min_share = d.min_share; /* out-of-range values are refused later */
  if (!o.n)
    o.n = d.n;
  if (!o.max_fetches)
    o.max_fetches = 4 * o.n;
  return o;
}

/* Files and pages in memory: a key page and 1 to 63 more. */
static wn_err wn_learn_check_count(size_t n_pages, wn_diag *diag) {
  if (n_pages < 2)
    return wn_diag_set(diag, WN_EINVAL,
                       "learning needs a key page and at least one more page of the site");
  if (n_pages > WN_LEARN_MAX_PAGES)
    return wn_diag_set(diag, WN_EINVAL, "learning takes at most %u pages, got %zu",
                       WN_LEARN_MAX_PAGES, n_pages);
  return WN_OK;
}

static wn_err wn_learn_check_args(const char *site, const wn_learn_options *o, size_t n,
                                  wn_diag *diag) {
  wn_err err = wn_site_check(site, diag);
  if (err)
    return err;
  if ((unsigned)o->selector > WN_SELECT_LAST)
    return wn_diag_set(diag, WN_EINVAL, "unknown selector %d", (int)o->selector);
  if (!(o->min_share >= 0.0 && o->min_share <= 1.0))
    return wn_diag_set(diag, WN_EINVAL, "min_share must be from 0 to 1");
  if (n > 0 && o->min_count > n)
    return wn_diag_set(diag, WN_EINVAL, "min_count %u is more than the %zu pages given",
                       o->min_count, n);
  if (!wn_learn_algo_name(o->algo))
    return wn_diag_set(diag, WN_EINVAL, "unknown learning algorithm %d", (int)o->algo);
  return WN_OK;
}

/* The deprecated *_algo calls: the options with their algorithm set. */
static wn_learn_options wn_learn_options_with(const wn_learn_options *opts, wn_learn_algo algo) {
  wn_learn_options o;
  if (opts)
    o = *opts;
  else
    wn_learn_options_init(&o);
  o.algo = algo;
  return o;
}

wn_err wn_site_learn_pages(const char *site, const char *const *names,
                           const char *const *bytes, const size_t *len, size_t n_pages,
                           const wn_learn_options *opts, wn_learned **out, wn_diag *diag) {
  return wn_site_learn_pages_cs(site, names, bytes, len, NULL, n_pages, opts, out, NULL, diag);
}

wn_err wn_site_learn_pages_algo(wn_learn_algo algo, const char *site, const char *const *names,
                                const char *const *bytes, const size_t *len, size_t n_pages,
                                const wn_learn_options *opts, wn_learned **out,
                                wn_diag *diag) {
  const wn_learn_options o = wn_learn_options_with(opts, algo);
  return wn_site_learn_pages(site, names, bytes, len, n_pages, &o, out, diag);
}

wn_err wn_site_learn_pages_cs(const char *site, const char *const *names,
                              const char *const *bytes, const size_t *len,
                              const char *const *charsets, size_t n_pages,
                              const wn_learn_options *opts_in, wn_learned **out,
                              wn_dom_page **keep, wn_diag *diag) {
  wn_err err = WN_OK;
  wn_dom_page **pages = NULL;
  wn_learn_check *checks = NULL;
  size_t n_parsed = 0;
  wn_learned *l = NULL;
  const wn_learn_options opts = wn_learn_options_fill(opts_in);
  const double t0 = wn_clock_ms();
  *out = NULL;
  err = wn_learn_check_count(n_pages, diag);
  if (err)
    return err;
  err = wn_learn_check_args(site, &opts, n_pages, diag);
  if (err)
    return err;
  for (size_t i = 0; i < n_pages; i++)
    if (strnlen(names[i], (size_t)WN_STORE_MAX_PAGE_NAME + 1) > WN_STORE_MAX_PAGE_NAME)
      return wn_diag_set(diag, WN_EINVAL, "page name longer than %u bytes: %.100s...",
                         WN_STORE_MAX_PAGE_NAME, names[i]);
  l = wn_learned_alloc(site, names[0], n_pages, &opts);
  pages = calloc(n_pages, sizeof *pages);
  if (!l || !pages) {
    err = wn_diag_set(diag, WN_ENOMEM, "out of memory");
    goto out;
  }
  for (size_t i = 0; i < n_pages; i++) {
    l->names[i] = wn_strdup_n(names[i], WN_STORE_MAX_PAGE_NAME);
    if (!l->names[i]) {
      err = wn_diag_set(diag, WN_ENOMEM, "out of memory");
      goto out;
    }
    l->pages[i].name = l->names[i];
    l->pages[i].bytes = len[i];
  }
  for (size_t i = 0; i < n_pages; i++) {
    wn_diag page_diag = {{0}};
    const wn_dom_options dom = {.transport_charset = charsets ? charsets[i] : NULL};
    err = wn_dom_parse(bytes[i], len[i], &dom, &pages[i], &page_diag);
    if (err) {
      l->pages[i].err = err;
      snprintf(l->messages[i], sizeof l->messages[i], "%s", wn_diag_message(&page_diag, err));
      wn_diag_set(diag, err, "%s: %s", names[i], wn_diag_message(&page_diag, err));
      goto out;
    }
    n_parsed = i + 1;
    uint32_t count = 0;
    wn_dom_nodes(pages[i], &count);
    l->page_nodes += count; /* at most 64 pages of the node cap: no overflow */
  }
  checks = calloc(n_pages, sizeof *checks);
  if (!checks) {
    err = wn_diag_set(diag, WN_ENOMEM, "out of memory");
    goto out;
  }
  wn_diag learn_diag = {{0}};
  err = opts.algo == WN_LEARN_FASTCE
            ? wn_learn_fastce_pages((const wn_dom_page *const *)pages, n_pages, &opts, &l->fce,
                                    checks, &learn_diag)
            : wn_learn_pages((const wn_dom_page *const *)pages, n_pages, &opts, &l->tpl, checks,
                             &learn_diag);
  /* The checks say, page by page, what was used and why a page was left
   * out, whether or not a template came of it. */
  l->n_used = 0;
  for (size_t i = 0; i < n_pages; i++) {
    l->pages[i].used = checks[i].used;
    l->pages[i].layout = checks[i].used ? checks[i].layout + 1 : 0;
    l->pages[i].share = checks[i].share;
    l->pages[i].err = checks[i].err;
    snprintf(l->messages[i], sizeof l->messages[i], "%s", checks[i].message);
    if (checks[i].dup && checks[i].dup_of > 0 && checks[i].dup_of < n_pages)
      wn_learn_dup_message((wn_learn_dup)checks[i].dup, names[checks[i].dup_of], l->messages[i],
                           sizeof l->messages[i]); /* the page by its name */
    l->n_used += checks[i].used != 0;
  }
  if (err) {
    wn_diag_set(diag, err, "%s: %s", site, wn_diag_message(&learn_diag, err));
    goto out;
  }
  err = wn_learned_encode(l, diag);
  /* Learned: the caller may keep the trees (they are what detection would
   * parse, with the default caps). */
  if (!err && keep)
    for (size_t i = 0; i < n_pages; i++) {
      keep[i] = pages[i];
      pages[i] = NULL;
    }
out:
  if (l)
    l->compute_ms = wn_clock_ms() - t0;
  for (size_t i = 0; i < n_parsed; i++)
    wn_dom_free(pages[i]);
  free(pages);
  free(checks);
  *out = l;
  return err;
}

wn_err wn_site_learn_files_algo(wn_learn_algo algo, const char *site, const char *const *paths,
                                size_t n_paths, const wn_learn_options *opts, wn_learned **out,
                                wn_diag *diag) {
  const wn_learn_options o = wn_learn_options_with(opts, algo);
  return wn_site_learn_files(site, paths, n_paths, &o, out, diag);
}

wn_err wn_site_learn_files(const char *site, const char *const *paths, size_t n_paths,
                           const wn_learn_options *opts, wn_learned **out, wn_diag *diag) {
  wn_err err = WN_OK;
  char **bytes = NULL;
  size_t *len = NULL;
  *out = NULL;
  err = wn_learn_check_count(n_paths, diag);
  if (err)
    return err;
  bytes = calloc(n_paths, sizeof *bytes);
  len = calloc(n_paths, sizeof *len);
  if (!bytes || !len) {
    err = wn_diag_set(diag, WN_ENOMEM, "out of memory");
    goto out;
  }
  for (size_t i = 0; i < n_paths; i++) {
    /* wn_file_read's messages name the file. */
    err = wn_file_read(paths[i], WN_DOM_DEFAULT_MAX_BYTES, &bytes[i], &len[i], diag);
    if (err)
      goto out;
  }
  err = wn_site_learn_pages(site, paths, (const char *const *)bytes, len, n_paths, opts, out,
                            diag);
out:
  if (bytes)
    for (size_t i = 0; i < n_paths; i++)
      free(bytes[i]);
  free(bytes);
  free(len);
  return err;
}

wn_err wn_site_learn_url_algo(wn_learn_algo algo, const char *url, const char *site,
                              const wn_learn_options *opts, const wn_crawl_options *crawl,
                              wn_learned **out, wn_diag *diag) {
  const wn_learn_options o = wn_learn_options_with(opts, algo);
  return wn_site_learn_url(url, site, &o, crawl, out, diag);
}

wn_err wn_site_learn_url(const char *url, const char *site_in, const wn_learn_options *opts_in,
                         const wn_crawl_options *crawl_in, wn_learned **out, wn_diag *diag) {
  wn_err err = WN_OK;
  wn_crawl *crawl = NULL;
  wn_learn_crawl_result *res = NULL;
  wn_learned *l = NULL;
  char site[WN_SITE_MAX + 1];
  const wn_learn_options opts = wn_learn_options_fill(opts_in);
  wn_crawl_options co;
  *out = NULL;
  /* The URL's own errors first ("ftp URLs are not supported"): a URL
   * without a site cannot be crawled whatever site it is stored as. */
  err = wn_site_from_url(url, site, sizeof site, diag);
  if (err)
    return err;
  if (site_in) {
    err = wn_site_check(site_in, diag);
    if (err)
      return err;
    memcpy(site, site_in, strlen(site_in) + 1);
  }
  err = wn_learn_check_args(site, &opts, 0, diag);
  if (err)
    return err;
  if (opts.n + 1 > WN_LEARN_MAX_PAGES)
    return wn_diag_set(diag, WN_EINVAL, "n must be from 1 to %u", WN_LEARN_MAX_PAGES - 1);
  if (crawl_in)
    co = *crawl_in;
  else
    wn_crawl_options_init(&co);

  wn_learn_crawl_options lo = {.n = opts.n,
                               .max_fetches = opts.max_fetches,
                               .min_share = opts.min_share,
                               .by_domain = opts.by_domain,
                               .learn = opts};
  err = wn_crawl_create(&co, &crawl, diag);
  if (err)
    return err;
  err = wn_learn_crawl(crawl, url, &lo, &res, diag);
  if (!res)
    goto out;
  l = wn_learned_alloc(site, url, res->n_pages, &opts);
  if (!l) {
    err = wn_diag_set(diag, WN_ENOMEM, "out of memory");
    goto out;
  }
  l->from_url = 1;
  l->crawl = co;
  snprintf(l->ua, sizeof l->ua, "%s",
           co.user_agent && *co.user_agent ? co.user_agent : WN_CRAWL_DEFAULT_USER_AGENT);
  l->crawl.user_agent = l->ua;
  for (size_t i = 0; i < res->n_pages; i++) {
    const wn_learn_crawl_page *p = &res->pages[i];
    wn_learn_page *q = &l->pages[i];
    l->names[i] = wn_strdup_n(p->url, WN_STORE_MAX_PAGE_NAME);
    if (!l->names[i]) {
      err = wn_diag_set(diag, WN_ENOMEM, "out of memory");
      goto out;
    }
    q->name = l->names[i];
    q->used = p->used;
    q->layout = p->used ? p->layout + 1 : 0;
    q->share = i == 0 ? 1.0 : p->share;
    q->http_status = p->http_status;
    q->bytes = p->bytes;
    q->fetch_ms = p->fetch_ms;
    q->hyperlink_distance = p->hyperlink_distance;
    q->dom_distance = p->dom_distance;
    q->err = p->err;
    snprintf(l->messages[i], sizeof l->messages[i], "%s", p->message);
  }
  l->n_used = res->n_used;
  l->n_links = res->n_links;
  l->n_candidates = res->n_candidates;
  l->page_nodes = res->page_nodes;
  l->network_ms = res->network_ms;
  l->wait_ms = res->wait_ms;
  l->compute_ms = res->compute_ms;
  if (!err) {
    l->tpl = res->tpl; /* the template moves to the wn_learned */
    res->tpl = NULL;
    l->fce = res->fce;
    res->fce = NULL;
    err = wn_learned_encode(l, diag);
  }
out:
  wn_learn_crawl_result_free(res);
  wn_crawl_destroy(crawl);
  *out = l;
  return err;
}

void wn_learned_summary_get(const wn_learned *l, wn_learn_summary *out) {
  wn_template_stats stats = {0};
  if (l->tpl)
    wn_template_get_stats(l->tpl, &stats);
  else if (l->fce) /* paths and stored blocks: a FastCE template's "nodes" */
    stats.nodes = wn_fastce_path_count(l->fce) + wn_fastce_stored_count(l->fce);
  *out = (wn_learn_summary){.site = l->site,
                            .key_page = l->key_page,
                            .from_url = l->from_url,
                            .n_pages = l->n_pages,
                            .n_used = l->n_used,
                            .n_links = l->n_links,
                            .n_candidates = l->n_candidates,
                            .page_nodes = l->page_nodes,
                            .template_nodes = stats.nodes,
                            .template_bytes = l->tpl || l->fce ? l->tpl_bytes.len : 0,
                            .selector = l->tpl ? wn_detect_site_selector(l->tpl)
                                               : (l->opts.selector ? l->opts.selector
                                                                   : WN_SELECT_CUES),
                            .network_ms = l->network_ms,
                            .wait_ms = l->wait_ms,
                            .compute_ms = l->compute_ms};
}

wn_learn_algo wn_learned_algo(const wn_learned *l) { return l->opts.algo; }

uint32_t wn_learned_layouts(const wn_learned *l) {
  return l->tpl ? wn_template_layout_count(l->tpl) : l->fce ? 1 : 0;
}

const char *wn_learn_algo_name(wn_learn_algo algo) {
  switch (algo) {
  case WN_LEARN_ETDM:
    return "etdm";
  case WN_LEARN_FASTCE:
    return "fastce";
  }
  return NULL;
}

wn_err wn_learn_algo_parse(const char *name, wn_learn_algo *out) {
  for (int a = WN_LEARN_ETDM; name && a <= WN_LEARN_ALGO_LAST; a++)
    if (strcmp(name, wn_learn_algo_name((wn_learn_algo)a)) == 0) {
      *out = (wn_learn_algo)a;
      return WN_OK;
    }
  return WN_EINVAL;
}

const wn_learn_page *wn_learned_page(const wn_learned *l, size_t i) {
  return i < l->n_pages ? &l->pages[i] : NULL;
}

wn_err wn_site_save(wn_store *store, const wn_learned *l, wn_save_info *info, wn_diag *diag) {
  wn_err err = WN_OK;
  wn_store_page *page_info = NULL;
  if (info)
    *info = (wn_save_info){0};
  if (!l || (!l->tpl && !l->fce))
    return wn_diag_set(diag, WN_EINVAL, "nothing learned to save");
  page_info = calloc(l->n_used ? l->n_used : 1, sizeof *page_info);
  if (!page_info) {
    err = wn_diag_set(diag, WN_ENOMEM, "out of memory");
    goto out;
  }
  /* The record lists the pages learned from, not those left out. */
  uint32_t k = 0;
  for (size_t i = 0; i < l->n_pages && k < l->n_used; i++) {
    const wn_learn_page *p = &l->pages[i];
    if (!p->used)
      continue;
    page_info[k].name = (char *)p->name;
    page_info[k].bytes = p->bytes;
    page_info[k].http_status = (int32_t)p->http_status;
    page_info[k].fetch_ms = p->fetch_ms;
    k++;
  }
  wn_learn_summary sum;
  wn_learned_summary_get(l, &sum);
  wn_store_record record = {
      .learned_at = (int64_t)time(NULL),
      .n_pages = k,
      .pages = page_info,
      .page_nodes = l->page_nodes,
      .template_nodes = sum.template_nodes,
      .template_bytes = (unsigned char *)l->tpl_bytes.data,
      .template_len = l->tpl_bytes.len,
  };
  snprintf(record.algorithm, sizeof record.algorithm, "%s", wn_learn_algo_name(l->opts.algo));
  /* The key page and how the site was learned: a scheduler relearns the
   * site from the record alone. */
  record.key_page = l->key_page;
  wn_store_learn_params *p = &record.params;
  p->from_url = (uint8_t)(l->from_url != 0);
  p->by_domain = (uint8_t)(l->opts.by_domain != 0);
  p->selector = (uint8_t)l->opts.selector;
  p->min_count = l->opts.min_count;
  p->min_share = l->opts.min_share;
  if (l->from_url) {
    p->n = l->opts.n;
    p->max_fetches = l->opts.max_fetches;
    p->host_delay_ms = l->crawl.host_delay_ms;
    p->timeout_ms = l->crawl.timeout_ms;
    p->max_body_bytes = l->crawl.max_body_bytes;
    snprintf(p->user_agent, sizeof p->user_agent, "%s", l->ua);
  }
  uint64_t generation = 0;
  size_t record_bytes = 0;
  err = wn_store_put(store, l->site, &record, &generation, &record_bytes, diag);
  if (err)
    goto out;
  if (info) {
    info->generation = generation;
    info->record_bytes = record_bytes;
  }
out:
  free(page_info);
  return err;
}

wn_err wn_site_load_template(wn_store *store, const char *site, wn_template **out,
                             uint64_t *generation, wn_diag *diag) {
  return wn_site_load_any(store, site, out, NULL, generation, diag);
}

wn_err wn_site_decode_template(const wn_store_record *record, wn_template **tpl, wn_fastce **fce,
                               wn_diag *diag) {
  *tpl = NULL;
  if (fce)
    *fce = NULL;
  if (strcmp(record->algorithm, "fastce") == 0)
    return fce ? wn_fastce_decode(record->template_bytes, record->template_len, fce, diag)
               : wn_diag_set(diag, WN_EINVAL, "it was learned with fastce; this needs etdm");
  return wn_template_decode(record->template_bytes, record->template_len, tpl, diag);
}

wn_err wn_site_record_get(wn_store *store, const char *site, wn_store_record **record,
                          wn_diag *diag) {
  *record = NULL;
  wn_err err = wn_site_check(site, diag);
  if (err)
    return err;
  err = wn_store_get(store, site, record, diag);
  if (err == WN_ENOTFOUND)
    err = wn_diag_set(diag, WN_ENOTEMPLATE, "no template for site %s", site);
  return err;
}

wn_err wn_site_load_any(wn_store *store, const char *site, wn_template **out, wn_fastce **fce,
                        uint64_t *generation, wn_diag *diag) {
  wn_store_record *record = NULL;
  wn_diag inner = {{0}};
  *out = NULL;
  if (fce)
    *fce = NULL;
  if (generation)
    *generation = 0;
  wn_err err = wn_store_get(store, site, &record, &inner);
  if (err == WN_ENOTFOUND) {
    err = wn_diag_set(diag, WN_ENOTEMPLATE,
                      "no template for site %s; learn it first with winnow learn", site);
    goto out;
  }
  if (err) {
    wn_diag_set(diag, err, "%s", wn_diag_message(&inner, err));
    goto out;
  }
  err = wn_site_decode_template(record, out, fce, &inner);
  if (err) {
    wn_diag_set(diag, err, "template of site %s: %s", site, wn_diag_message(&inner, err));
    goto out;
  }
  if (generation)
    *generation = record->generation;
out:
  wn_store_record_free(record);
  return err;
}
