/*
 * learn: from a site's sample pages to the site's template.
 *
 * The site-level paper (../shared/papers/site-level-etdm-main-content.md)
 * maps a key page against each page of its n-SET with an equal top-down
 * mapping (ETDM, Sec. 2.2) and counts, per key-page node, in how many
 * sample pages it recurs (Algorithm 1). A daemon needs a template that
 * serves every later page of the site, so we generalise: all sample pages
 * are merged top-down into one tree, like a site style tree, each node
 * counting the sample pages that hold an equal node at the mapped place;
 * nodes held by fewer than min_count pages (page-specific content) are
 * dropped. That tree is the template (src/template).
 */
#ifndef WN_LEARN_H
#define WN_LEARN_H

#include <stddef.h>
#include <stdint.h>

#include "dom/dom.h"
#include "template/template.h"
#include "util/util.h"

#define WN_LEARN_MAX_PAGES 64u

typedef struct wn_learn_options {
  uint32_t min_count; /* pages a node must occur in to be template; 0: 2 */
} wn_learn_options;

/* Algorithm 1 of the paper: occurrences[i] (the caller's array of the key
 * page's node count) receives how many of the other pages hold a node
 * mapped to key node i by the ETDM. */
wn_err wn_learn_occurrences(const wn_dom_page *key, const wn_dom_page *const *others,
                            size_t n_others, uint32_t *occurrences, wn_diag *diag);

/* The sample page whose ETDM mappings with the others pair the most nodes
 * in all (the first on a tie): the base of the template. */
wn_err wn_learn_medoid(const wn_dom_page *const *pages, size_t n_pages, size_t *base,
                       wn_diag *diag);

/* Learns a template from the pages: Algorithm 1 with the medoid page as
 * the key page (pages[0], the page the caller calls key, is preferred on
 * a tie), keeping the nodes that occur in at least min_count pages. */
wn_err wn_learn_template(const wn_dom_page *const *pages, size_t n_pages,
                         const wn_learn_options *opts, wn_template **out, wn_diag *diag);

#endif /* WN_LEARN_H */
