/* site/info.c: what the store holds per site, as front ends show it. */
#include "site/site_int.h"

#include <stdlib.h>
#include <string.h>

/* The info and everything it points to, in one allocation's worth of
 * bookkeeping: the record stays alive and the arrays point into it. */
typedef struct wn_site_info_full {
  wn_site_info info;
  wn_store_record *record;
  char site[WN_SITE_MAX + 1];
  const char **pages;
  uint64_t *bytes;
  int32_t *status;
  uint32_t *fetch_ms;
} wn_site_info_full;

void wn_site_info_free(wn_site_info *info) {
  if (!info)
    return;
  wn_site_info_full *f = (wn_site_info_full *)info;
  wn_store_record_free(f->record);
  free(f->pages);
  free(f->bytes);
  free(f->status);
  free(f->fetch_ms);
  free(f);
}

wn_err wn_site_info_get(wn_store *store, const char *site, wn_site_info **out, wn_diag *diag) {
  wn_err err = WN_OK;
  wn_template *tpl = NULL;
  wn_store_stats st;
  *out = NULL;
  wn_site_info_full *f = calloc(1, sizeof *f);
  if (!f)
    return wn_diag_set(diag, WN_ENOMEM, "out of memory");
  if ((err = wn_site_record_get(store, site, &f->record, diag)))
    goto out;
  err = wn_store_stats_get(store, site, &st, diag);
  if (err == WN_ENOTFOUND) /* deleted between the two reads */
    err = wn_diag_set(diag, WN_ENOTEMPLATE, "no template for site %s", site);
  if (err)
    goto out;
  /* The selector lives in the template bytes; a template that does not
   * decode is a damaged record like any other. */
  wn_diag inner = {{0}};
  wn_fastce *fce = NULL; /* FastCE selects blocks itself: selector as asked */
  err = wn_site_decode_template(f->record, &tpl, &fce, &inner);
  wn_fastce_free(fce);
  if (err) {
    wn_diag_set(diag, err, "template of site %s: %s", site, wn_diag_message(&inner, err));
    goto out;
  }
  const wn_store_record *r = f->record;
  size_t n = r->n_pages;
  f->pages = calloc(n ? n : 1, sizeof *f->pages);
  f->bytes = calloc(n ? n : 1, sizeof *f->bytes);
  f->status = calloc(n ? n : 1, sizeof *f->status);
  f->fetch_ms = calloc(n ? n : 1, sizeof *f->fetch_ms);
  if (!f->pages || !f->bytes || !f->status || !f->fetch_ms) {
    err = wn_diag_set(diag, WN_ENOMEM, "out of memory");
    goto out;
  }
  for (size_t i = 0; i < n; i++) {
    f->pages[i] = r->pages[i].name ? r->pages[i].name : "";
    f->bytes[i] = r->pages[i].bytes;
    f->status[i] = r->pages[i].http_status;
    f->fetch_ms[i] = r->pages[i].fetch_ms;
  }
  memcpy(f->site, site, strlen(site) + 1);
  wn_site_info *i = &f->info;
  i->site = f->site;
  i->algorithm = r->algorithm;
  i->format_version = r->format_version;
  i->generation = r->generation;
  i->learned_at = r->learned_at;
  i->key_page = r->key_page;
  i->from_url = r->params.from_url;
  if (r->format_version >= 2) {
    i->learn = (wn_learn_options){.min_count = r->params.min_count,
                                  .selector = (wn_detect_selector)r->params.selector,
                                  .min_share = r->params.min_share,
                                  .n = r->params.n,
                                  .max_fetches = r->params.max_fetches,
                                  .by_domain = r->params.by_domain};
    i->crawl_user_agent = r->params.user_agent[0] ? r->params.user_agent : NULL;
    i->crawl_delay_ms = r->params.host_delay_ms;
    i->crawl_timeout_ms = r->params.timeout_ms;
    i->crawl_max_bytes = r->params.max_body_bytes;
  }
  /* The algorithm, from the record's own field (one this build does not
   * know reads as etdm: algorithm names it). */
  (void)wn_learn_algo_parse(r->algorithm, &i->learn.algo);
  i->n_pages = n;
  i->pages = f->pages;
  i->page_bytes = f->bytes;
  i->page_status = f->status;
  i->page_fetch_ms = f->fetch_ms;
  i->page_nodes = r->page_nodes;
  i->template_nodes = r->template_nodes;
  i->template_bytes = r->template_len;
  i->selector = wn_detect_site_selector(tpl);
  if (tpl && i->selector == WN_SELECT_PLACES) {
    const wn_template_places *pl = wn_template_get_places(tpl);
    i->place = pl->content == WN_DOM_NONE ? "none" : pl->whole ? "whole" : "cues";
    i->place_skips = pl->n_skip;
    i->place_asides = pl->n_aside;
  }
  i->layouts = tpl ? wn_template_layout_count(tpl) : 0;
  i->counts = st.counts;
out:
  wn_template_free(tpl);
  if (err) {
    wn_site_info_free(&f->info);
    return err;
  }
  *out = &f->info;
  return WN_OK;
}


int wn_site_drifting(const wn_site_counts *c, const wn_drift_policy *policy) {
  return wn_store_drifting(c, policy);
}

wn_err wn_site_each(wn_store *store, wn_site_fn fn, void *ctx, wn_diag *diag) {
  return wn_store_list(store, fn, ctx, diag);
}

/* The name before 0.4 (deprecated, removed in 0.5.0). */
wn_err wn_site_list(wn_store *store, wn_site_fn fn, void *ctx, wn_diag *diag) {
  return wn_site_each(store, fn, ctx, diag);
}

wn_err wn_site_delete(wn_store *store, const char *site, wn_diag *diag) {
  wn_err err = wn_site_check(site, diag);
  if (err)
    return err;
  err = wn_store_delete(store, site, diag);
  if (err == WN_ENOTFOUND)
    return wn_diag_set(diag, WN_ENOTEMPLATE, "no template for site %s", site);
  return err;
}
