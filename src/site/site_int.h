/*
 * site_int.h: what the files of src/site share. Not public: front ends see
 * include/winnow/winnow.h only.
 *
 * src/site is the layer every front end (the winnow command, the daemon,
 * the batch mode, the dump and evaluation tools) stands on: it ties the
 * core modules (dom, learn, template, detect, store) into site-level
 * operations: learn a site and store it, detect a page of a site with a
 * bounded template cache, report what the store holds.
 */
#ifndef WN_SITE_INT_H
#define WN_SITE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "detect/detect.h"
#include "dom/dom.h"
#include "learn/learn.h"
#include "store/store.h"
#include "template/fastce_template.h"
#include "template/template.h"
#include "util/util.h"

/* A learned template and its report (site/site_learn.c). */
struct wn_learned {
  char site[WN_SITE_MAX + 1];
  char *key_page;          /* malloc'd */
  int from_url;
  wn_learn_options opts;   /* as asked, defaults filled; opts.algo: how it
                              was learned */
  wn_crawl_options crawl;  /* from_url only; user_agent points to ua */
  char ua[256];
  wn_template *tpl;        /* NULL when learning failed (or algo is FastCE) */
  wn_fastce *fce;          /* FastCE: the path template; NULL otherwise */
  wn_buf tpl_bytes;        /* tpl encoded, once, when it was learned: what
                              the record stores and the detector copies */
  wn_learn_page *pages;    /* report, n_pages entries */
  char **names;            /* the pages' names (malloc'd each) */
  char (*messages)[256];
  size_t n_pages;
  size_t n_used;
  size_t n_links, n_candidates;
  uint32_t page_nodes;
  double network_ms, wait_ms, compute_ms;
};

/* wn_site_learn_pages with each page's transport charset (charsets[i]
 * may be NULL; charsets NULL: none), for pages that arrived with an HTTP
 * Content-Type (the collector's). keep (n_pages entries, may be NULL): on
 * success the pages' trees, parsed with the default caps, are handed over
 * there instead of freed. */
wn_err wn_site_learn_pages_cs(const char *site, const char *const *names,
                              const char *const *bytes, const size_t *len,
                              const char *const *charsets, size_t n_pages,
                              const wn_learn_options *opts, wn_learned **out, wn_dom_page **keep,
                              wn_diag *diag);

/* The tree learning parsed from a page with exactly these bytes and
 * transport charset (NULL: none), taken out of the collector (the caller
 * frees it), or NULL. Trees are kept for the pages of a site the
 * collector learned, until taken or until the collector's byte bound
 * drops them, oldest first. */
wn_dom_page *wn_collector_take_parsed(wn_collector *collector, const char *bytes, size_t len,
                                      const char *charset);

/* Reads and decodes a site's template from the store. A site without a
 * record is WN_ENOTEMPLATE ("no template for site X; learn it first with
 * winnow learn"). *generation (may be NULL) receives its generation. */
wn_err wn_site_load_template(wn_store *store, const char *site, wn_template **out,
                             uint64_t *generation, wn_diag *diag);
/* A record's template bytes by its algorithm: "fastce" decodes to *fce
 * (fce NULL: WN_EINVAL, the caller needs ETDM), anything else to *tpl. */
wn_err wn_site_decode_template(const wn_store_record *record, wn_template **tpl, wn_fastce **fce,
                               wn_diag *diag);
/* A valid site name's record (the caller frees it): a site without one is
 * WN_ENOTEMPLATE ("no template for site X"). */
wn_err wn_site_record_get(wn_store *store, const char *site, wn_store_record **record,
                          wn_diag *diag);
/* The same for either algorithm: *tpl for an ETDM record, *fce for a
 * FastCE one (the other NULL). */
wn_err wn_site_load_any(wn_store *store, const char *site, wn_template **tpl, wn_fastce **fce,
                        uint64_t *generation, wn_diag *diag);

#endif /* WN_SITE_INT_H */
