/*
 * learn/crawl_learn.c: learning a site by crawling. Fetch the key page,
 * rank its links into the n-SET (nset.c; site-level paper, Sec. 2.1),
 * fetch the best, keep the pages that share the key page's template, and
 * learn from them (Algorithm 1 via wn_learn_template).
 */
#include "learn/learn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WN_NSET_DEFAULT_N 4u
#define WN_NSET_DEFAULT_SHARE 0.5
#define WN_NSET_DUP_CACHE 256u

/* ---- learning by crawling -------------------------------------------------------- */

/* wn_crawl_fetch, its wall time split into politeness waits and the
 * network wait proper. */
static wn_err wn_timed_fetch(wn_crawl *crawl, const char *const *urls, size_t n, wn_fetch *out,
                             wn_learn_crawl_result *res, wn_diag *diag) {
  double t0 = wn_clock_ms(), w0 = wn_crawl_waited_ms(crawl);
  wn_err err = wn_crawl_fetch(crawl, urls, n, out, diag);
  double waited = wn_crawl_waited_ms(crawl) - w0, total = wn_clock_ms() - t0;
  res->wait_ms += waited;
  res->network_ms += total > waited ? total - waited : 0.0;
  return err;
}

void wn_learn_crawl_result_free(wn_learn_crawl_result *result) {
  if (!result)
    return;
  for (size_t i = 0; i < result->n_pages; i++) {
    free(result->pages[i].url);
    free(result->pages[i].final_url);
  }
  free(result->pages);
  wn_template_free(result->tpl);
  wn_fastce_free(result->fce);
  free(result);
}

/* wn_learn_layouts over the pages the crawl left out as another layout
 * (in the order fetched: the ranking's), the report told which layout
 * each went into. */
static wn_err wn_learn_crawl_layouts(wn_learn_crawl_result *res, const wn_dom_page *key,
                                     wn_dom_page *const *cand_pages,
                                     uint8_t *const *cand_mapped,
                                     const wn_learn_crawl_options *o, wn_diag *diag) {
  const wn_dom_page *pages[WN_LEARN_MAX_PAGES];
  size_t index[WN_LEARN_MAX_PAGES], n = 0;
  wn_learn_check *checks = calloc(WN_LEARN_MAX_PAGES, sizeof *checks);
  if (!checks)
    return wn_diag_set(diag, WN_ENOMEM, "learn: out of memory");
  pages[n] = key;
  checks[n].used = 1;
  index[n++] = 0;
  for (size_t i = 1; i < res->n_pages && n < WN_LEARN_MAX_PAGES; i++) {
    const wn_learn_crawl_page *p = &res->pages[i];
    /* Mapped (parsed, with text, not another version of the key page),
     * and left out by its share. */
    if (!cand_pages[i] || !cand_mapped[i] || p->used || p->share >= o->min_share)
      continue;
    pages[n] = cand_pages[i];
    checks[n].other_layout = 1;
    index[n++] = i;
  }
  wn_learn_options lo = o->learn;
  lo.min_share = o->min_share;
  wn_err err = wn_learn_layouts(pages, n, &lo, checks, res->tpl, diag);
  for (size_t k = 1; !err && k < n; k++) {
    wn_learn_crawl_page *p = &res->pages[index[k]];
    if (!checks[k].used)
      continue;
    p->used = 1;
    p->layout = checks[k].layout;
    p->err = WN_OK;
    snprintf(p->message, sizeof p->message, "%s", checks[k].message);
    res->n_used++;
  }
  free(checks);
  return err;
}

/* Records a fetch in the report; copies what it keeps. */
static wn_err wn_report_fetch(wn_learn_crawl_result *res, const wn_fetch *f, uint32_t h,
                              uint32_t dom, size_t *index) {
  wn_learn_crawl_page *p = &res->pages[res->n_pages];
  memset(p, 0, sizeof *p);
  p->url = wn_strdup(f->url);
  p->final_url = wn_strdup(f->final_url);
  if (!p->url || (f->final_url && !p->final_url)) {
    free(p->url);
    free(p->final_url);
    return WN_ENOMEM;
  }
  p->http_status = f->http_status;
  p->bytes = f->body_len;
  p->fetch_ms = f->fetch_ms;
  p->hyperlink_distance = h;
  p->dom_distance = dom;
  p->err = f->err;
  snprintf(p->message, sizeof p->message, "%s", f->err ? f->message : "");
  *index = res->n_pages++;
  return WN_OK;
}

/* Parses a fetched body with the transport charset from its headers. */
static wn_err wn_parse_fetch(const wn_fetch *f, const wn_dom_options *base, int keep_xml,
                             wn_dom_page **page, wn_diag *diag) {
  wn_dom_options o = base ? *base : (wn_dom_options){0};
  o.transport_charset = f->charset[0] ? f->charset : NULL;
  o.keep_xml = keep_xml;
  return wn_dom_parse(f->body, f->body_len, &o, page, diag);
}

wn_err wn_learn_crawl(wn_crawl *crawl, const char *key_url, const wn_learn_crawl_options *opts,
                      wn_learn_crawl_result **out, wn_diag *diag) {
  wn_err err = WN_OK;
  wn_learn_crawl_result *res = NULL;
  wn_fetch key_fetch;
  wn_fetch *batch = NULL;
  wn_dom_page *key = NULL;
  wn_dom_page **cand_pages = NULL; /* parsed candidates, by report index */
  uint8_t **cand_mapped = NULL;    /* their key page nodes paired (wn_map_to_key) */
  wn_link *links = NULL;
  size_t n_links = 0, n_ranked = 0, next = 0;
  wn_nset_candidate *ranked = NULL;
  const char **urls = NULL;
  double *share = NULL;
  const uint8_t **check = NULL;
  size_t *check_index = NULL;
  int8_t *dup_known = NULL; /* near-duplicate verdicts by report index pair; -1 unknown */
  memset(&key_fetch, 0, sizeof key_fetch);
  *out = NULL;

  wn_learn_crawl_options o = opts ? *opts : (wn_learn_crawl_options){0};
  if (o.n == 0)
    o.n = WN_NSET_DEFAULT_N;
  if (o.n >= WN_LEARN_MAX_PAGES)
    return wn_diag_set(diag, WN_EINVAL, "learn: an n-SET of %u pages is past the cap of %u",
                       o.n, WN_LEARN_MAX_PAGES - 1);
  if (o.max_fetches == 0)
    o.max_fetches = 4 * o.n;
  if (o.max_fetches < o.n)
    o.max_fetches = o.n;
  if (!(o.min_share > 0))
    o.min_share = o.learn.min_share > 0 ? o.learn.min_share : WN_NSET_DEFAULT_SHARE;

  res = calloc(1, sizeof *res);
  if (res)
    res->pages = calloc((size_t)o.max_fetches + 1, sizeof *res->pages);
  cand_pages = calloc((size_t)o.max_fetches + 1, sizeof *cand_pages);
  cand_mapped = calloc((size_t)o.max_fetches + 1, sizeof *cand_mapped);
  if (!res || !res->pages || !cand_pages || !cand_mapped) {
    err = wn_diag_set(diag, WN_ENOMEM, "learn: out of memory");
    goto out;
  }

  /* The key page. */
  const char *key_list[1] = {key_url};
  if ((err = wn_timed_fetch(crawl, key_list, 1, &key_fetch, res, diag)))
    goto out;
  double c0 = wn_clock_ms();
  size_t key_index = 0;
  if (wn_report_fetch(res, &key_fetch, 0, UINT32_MAX, &key_index) != WN_OK) {
    err = wn_diag_set(diag, WN_ENOMEM, "learn: out of memory");
    goto out;
  }
  if (key_fetch.err) {
    err = wn_diag_set(diag, key_fetch.err, "key page %s: %s", key_url, key_fetch.message);
    goto out;
  }
  const char *base_url = key_fetch.final_url ? key_fetch.final_url : key_url;
  wn_diag inner = {{0}};
  if ((err = wn_parse_fetch(&key_fetch, &o.dom, 1, &key, &inner))) {
    wn_diag_set(diag, err, "key page %s: %s", key_url, wn_diag_message(&inner, err));
    goto out;
  }
  if (!wn_learn_page_has_text(key)) {
    err = wn_diag_set(diag, WN_EEMPTY,
                      "key page %s: no text in its body (an empty page?): nothing to learn from",
                      key_url);
    goto out;
  }
  if ((err = wn_learn_links(key, base_url, 0, &links, &n_links, diag)))
    goto out;
  res->n_links = n_links;
  if ((err = wn_learn_nset_rank(key, base_url, links, n_links, o.by_domain, o.max_fetches,
                                &ranked, &n_ranked, diag)))
    goto out;
  res->n_candidates = n_ranked;
  res->compute_ms += wn_clock_ms() - c0;

  urls = calloc((size_t)o.n + 1, sizeof *urls);
  batch = calloc((size_t)o.n + 1, sizeof *batch);
  share = calloc((size_t)o.max_fetches + 1, sizeof *share);
  check = calloc((size_t)o.max_fetches + 1, sizeof *check);
  check_index = calloc((size_t)o.max_fetches + 1, sizeof *check_index);
  /* The verdicts are kept for up to WN_NSET_DUP_CACHE fetches (64 KiB);
   * past that they are made again each round. */
  const size_t stride = (size_t)o.max_fetches + 1;
  int cache_ok = 1;
  if (stride <= WN_NSET_DUP_CACHE) {
    dup_known = malloc(stride * stride);
    cache_ok = dup_known != NULL;
    if (dup_known)
      memset(dup_known, -1, stride * stride);
  }
  if (!urls || !batch || !share || !check || !check_index || !cache_ok) {
    err = wn_diag_set(diag, WN_ENOMEM, "learn: out of memory");
    goto out;
  }

  /* Rounds: fetch as many of the next candidates as pages are missing,
   * then re-check every page fetched so far against the key page. */
  size_t good = 0;
  /* Past a full n-SET, rounds go on while each finds more pages of other
   * layouts (ETDM learns a template per layout: wn_learn_layouts), within
   * the fetch budget: a layout with too few pages gets more. A crawl that
   * met no other layout fetches no more than before. */
  const int layouts = o.learn.algo == WN_LEARN_ETDM && !o.learn.force;
  size_t others = 0;
  int more = 0;
  while (next < n_ranked && (good < o.n || more)) {
    size_t want = good < o.n ? o.n - good : o.n, nb = 0;
    size_t first_rank = next;
    while (nb < want && next < n_ranked)
      urls[nb++] = links[ranked[next++].link].url;
    if ((err = wn_timed_fetch(crawl, urls, nb, batch, res, diag)))
      goto out;
    c0 = wn_clock_ms();
    for (size_t b = 0; b < nb; b++) {
      const wn_nset_candidate *c = &ranked[first_rank + b];
      size_t idx = 0;
      if (wn_report_fetch(res, &batch[b], c->hyperlink_distance, c->dom_distance, &idx)) {
        err = wn_diag_set(diag, WN_ENOMEM, "learn: out of memory");
        goto out;
      }
      if (!batch[b].err) {
        wn_diag pd = {{0}};
        wn_err perr = wn_parse_fetch(&batch[b], &o.dom, 0, &cand_pages[idx], &pd);
        wn_learn_dup dup = WN_LEARN_DUP_NONE;
        if (!perr && !wn_learn_page_has_text(cand_pages[idx])) {
          /* Check 0 (learn.h): left out, and out of the majority too. */
          res->pages[idx].err = WN_EEMPTY;
          snprintf(res->pages[idx].message, sizeof res->pages[idx].message, "%s",
                   WN_LEARN_TEXTLESS);
        } else if (!perr && wn_learn_other_language(key, cand_pages[idx], res->pages[idx].message,
                                                    sizeof res->pages[idx].message)) {
          /* Check 1b (learn.h): another version of the key page would
           * vote its content into the template nodes; out of the
           * majority as well. */
          res->pages[idx].err = WN_EEMPTY;
        } else if (!perr && (err = wn_learn_near_duplicate(key, cand_pages[idx], &dup, diag))) {
          goto out;
        } else if (!perr && dup != WN_LEARN_DUP_NONE) {
          res->pages[idx].err = WN_EEMPTY;
          wn_learn_dup_message(dup, "the key page", res->pages[idx].message,
                               sizeof res->pages[idx].message);
        } else if (!perr &&
                   (err = wn_learn_map_to_key(key, cand_pages[idx], &cand_mapped[idx], diag))) {
          goto out;
        }
        if (perr) {
          res->pages[idx].err = perr;
          snprintf(res->pages[idx].message, sizeof res->pages[idx].message, "%s",
                   wn_diag_message(&pd, perr));
        }
      }
      wn_fetch_clear(&batch[b]);
    }
    /* Every parsed page so far takes part in the majority. */
    size_t nc = 0;
    for (size_t i = 1; i < res->n_pages; i++)
      if (cand_mapped[i]) {
        check[nc] = cand_mapped[i];
        check_index[nc++] = i;
      }
    uint32_t key_count = 0;
    wn_dom_nodes(key, &key_count);
    if (nc > 0 && (err = wn_learn_shares(key_count, check, nc, share, diag)))
      goto out;
    good = 0;
    size_t now_others = 0;
    for (size_t k = 0; k < nc; k++) {
      wn_learn_crawl_page *p = &res->pages[check_index[k]];
      p->share = share[k];
      p->used = share[k] >= o.min_share && good < o.n;
      /* Check 1b: not a near-duplicate of a page used before it (two
       * versions of one article among the candidates). Pairs are
       * compared once; the verdict is kept for later rounds. */
      wn_learn_dup dup = WN_LEARN_DUP_NONE;
      size_t dup_of = 0;
      for (size_t j = 0; p->used && j < k && dup == WN_LEARN_DUP_NONE; j++) {
        if (!res->pages[check_index[j]].used)
          continue;
        int8_t none = -1;
        int8_t *known = dup_known ? &dup_known[check_index[k] * stride + check_index[j]] : &none;
        if (*known < 0) {
          if ((err = wn_learn_near_duplicate(cand_pages[check_index[j]],
                                             cand_pages[check_index[k]], &dup, diag)))
            goto out;
          *known = (int8_t)dup;
        }
        dup = (wn_learn_dup)*known;
        dup_of = check_index[j];
      }
      if (dup != WN_LEARN_DUP_NONE) {
        char of[160];
        snprintf(of, sizeof of, "%.150s", res->pages[dup_of].url);
        p->used = 0;
        p->err = WN_EEMPTY;
        wn_learn_dup_message(dup, of, p->message, sizeof p->message);
        continue;
      }
      if (p->used) {
        good++;
        p->err = WN_OK;
        p->message[0] = '\0';
      } else if (share[k] < o.min_share) {
        now_others++;
        p->err = WN_EEMPTY;
        snprintf(p->message, sizeof p->message,
                 "pairs %.0f%% of the key page's template nodes (needs %.0f%%): another layout",
                 100.0 * share[k], 100.0 * o.min_share);
      } else {
        p->err = WN_OK;
        snprintf(p->message, sizeof p->message, "not needed: the n-SET is full");
      }
    }
    more = layouts && now_others > others;
    others = now_others;
    res->compute_ms += wn_clock_ms() - c0;
  }

  c0 = wn_clock_ms();
  if (good == 0) {
    err = wn_diag_set(diag, WN_EEMPTY,
                      "key page %s: none of the %zu same-site pages fetched shares its template "
                      "(%zu links, %zu candidates)",
                      key_url, res->n_pages - 1, n_links, n_ranked);
    goto out;
  }
  /* Learn: the key page first (wn_learn_template prefers it on a tie). */
  const wn_dom_page *learn_pages[WN_LEARN_MAX_PAGES];
  size_t np = 0;
  learn_pages[np++] = key;
  res->pages[key_index].used = 1;
  for (size_t i = 1; i < res->n_pages && np < WN_LEARN_MAX_PAGES; i++)
    if (res->pages[i].used)
      learn_pages[np++] = cand_pages[i];
  res->n_used = np;
  uint32_t nodes_total = 0;
  for (size_t i = 0; i < np; i++) {
    uint32_t c = 0;
    wn_dom_nodes(learn_pages[i], &c);
    nodes_total += c;
  }
  res->page_nodes = nodes_total;
  /* The pages kept passed check 1 round by round above (wn_learn_shares
   * over every page fetched, the way the n-SET was chosen), so they are
   * all used (force); wn_learn_pages still applies the size rule. */
  wn_learn_options lo = o.learn;
  lo.force = 1;
  if ((err = o.learn.algo == WN_LEARN_FASTCE
                 ? wn_learn_fastce_pages(learn_pages, np, &lo, &res->fce, NULL, diag)
                 : wn_learn_pages(learn_pages, np, &lo, &res->tpl, NULL, diag)))
    goto out;
  /* The pages of other layouts: a template each. */
  if (layouts && others > 0 &&
      (err = wn_learn_crawl_layouts(res, key, cand_pages, cand_mapped, &o, diag)))
    goto out;
  res->compute_ms += wn_clock_ms() - c0;

out:
  if (res && res->n_pages > 0) {
    *out = res;
    res = NULL;
  }
  wn_learn_crawl_result_free(res);
  wn_fetch_clear(&key_fetch);
  if (batch)
    for (size_t i = 0; i <= o.n; i++)
      wn_fetch_clear(&batch[i]);
  free(batch);
  wn_dom_free(key);
  if (cand_pages)
    for (size_t i = 0; i <= o.max_fetches; i++)
      wn_dom_free(cand_pages[i]);
  free(cand_pages);
  if (cand_mapped)
    for (size_t i = 0; i <= o.max_fetches; i++)
      free(cand_mapped[i]);
  free(cand_mapped);
  wn_links_free(links, n_links);
  free(ranked);
  free(urls);
  free(share);
  free(check);
  free(check_index);
  free(dup_known);
  return err;
}
