/*
 * site/fetch_page.c: wn_page_fetch, one page fetched with the crawler's
 * client (src/fetch: robots.txt, timeouts, caps, redirects) for detection
 * of a page given by URL (`winnow detect URL`).
 */
#include "site/site_int.h"

#include <stdlib.h>
#include <string.h>

typedef struct wn_fetched_own {
  wn_fetched pub;
  wn_fetch fetch;
} wn_fetched_own;

wn_err wn_page_fetch(const char *url, const wn_crawl_options *crawl_opts, wn_fetched **out,
                     wn_diag *diag) {
  *out = NULL;
  if (!url || (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0))
    return wn_diag_set(diag, WN_EINVAL, "not an http(s) URL: %.200s", url ? url : "(none)");
  wn_crawl *crawl = NULL;
  wn_err err = wn_crawl_create(crawl_opts, &crawl, diag);
  if (err)
    return err;
  wn_fetched_own *f = calloc(1, sizeof *f);
  if (!f) {
    wn_crawl_destroy(crawl);
    return wn_diag_set(diag, WN_ENOMEM, "out of memory");
  }
  const char *urls[1] = {url};
  err = wn_crawl_fetch(crawl, urls, 1, &f->fetch, diag);
  wn_crawl_destroy(crawl);
  if (!err && f->fetch.err)
    err = wn_diag_set(diag, f->fetch.err, "%s: %s", url, f->fetch.message);
  if (err) {
    wn_fetch_clear(&f->fetch);
    free(f);
    return err;
  }
  f->pub = (wn_fetched){.url = f->fetch.final_url ? f->fetch.final_url : f->fetch.url,
                        .bytes = f->fetch.body,
                        .len = f->fetch.body_len,
                        .charset = f->fetch.charset[0] ? f->fetch.charset : NULL,
                        .http_status = f->fetch.http_status,
                        .fetch_ms = f->fetch.fetch_ms};
  *out = &f->pub;
  return WN_OK;
}

void wn_fetched_free(wn_fetched *fetched) {
  if (!fetched)
    return;
  wn_fetched_own *f = (wn_fetched_own *)fetched;
  wn_fetch_clear(&f->fetch);
  free(f);
}
