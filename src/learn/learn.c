/*
 * learn/learn.c: occurrence counts (Algorithm 1 of the site-level paper)
 * and the site template built from them.
 */
#include "learn/learn.h"

#include <stdlib.h>
#include <string.h>

wn_err wn_learn_occurrences(const wn_dom_page *key, const wn_dom_page *const *others,
                            size_t n_others, uint32_t *occurrences, wn_diag *diag) {
  wn_err err = WN_OK;
  uint32_t count = 0;
  wn_dom_nodes(key, &count);
  uint32_t *map = malloc((size_t)count * sizeof *map);
  if (!map)
    return wn_diag_set(diag, WN_ENOMEM, "learn: out of memory for %u nodes", count);
  memset(occurrences, 0, (size_t)count * sizeof *occurrences);
  wn_etdm_view kv = wn_etdm_view_of_page(key);
  /* Algorithm 1: for each page of the n-SET, map it top-down against the
   * key page; every key node paired with a node of that page occurs once
   * more. */
  for (size_t p = 0; p < n_others; p++) {
    wn_etdm_view ov = wn_etdm_view_of_page(others[p]);
    uint32_t pairs = 0;
    err = wn_etdm_map(&kv, &ov, map, &pairs);
    if (err) {
      wn_diag_set(diag, err, "learn: mapping page %zu failed", p + 1);
      goto out;
    }
    for (uint32_t i = 0; i < count; i++)
      if (map[i] != WN_DOM_NONE)
        occurrences[i]++;
  }
out:
  free(map);
  return err;
}

wn_err wn_learn_medoid(const wn_dom_page *const *pages, size_t n_pages, size_t *base,
                       wn_diag *diag) {
  wn_err err = WN_OK;
  uint64_t total[WN_LEARN_MAX_PAGES] = {0};
  uint32_t *map = NULL;
  *base = 0;
  if (n_pages > WN_LEARN_MAX_PAGES)
    return wn_diag_set(diag, WN_EINVAL, "learn: more than %u pages", WN_LEARN_MAX_PAGES);
  uint32_t largest = 0;
  for (size_t i = 0; i < n_pages; i++) {
    uint32_t c = 0;
    wn_dom_nodes(pages[i], &c);
    if (c > largest)
      largest = c;
  }
  map = malloc((size_t)largest * sizeof *map);
  if (!map)
    return wn_diag_set(diag, WN_ENOMEM, "learn: out of memory for %u nodes", largest);
  /* The ETDM pairs nodes one to one, so its size is symmetric: one mapping
   * per unordered pair. */
  for (size_t i = 0; i < n_pages; i++) {
    wn_etdm_view a = wn_etdm_view_of_page(pages[i]);
    for (size_t j = i + 1; j < n_pages; j++) {
      wn_etdm_view b = wn_etdm_view_of_page(pages[j]);
      uint32_t pairs = 0;
      err = wn_etdm_map(&a, &b, map, &pairs);
      if (err) {
        wn_diag_set(diag, err, "learn: mapping pages %zu and %zu failed", i + 1, j + 1);
        goto out;
      }
      total[i] += pairs;
      total[j] += pairs;
    }
  }
  for (size_t i = 1; i < n_pages; i++)
    if (total[i] > total[*base])
      *base = i;
out:
  free(map);
  return err;
}

wn_err wn_learn_template(const wn_dom_page *const *pages, size_t n_pages,
                         const wn_learn_options *opts, wn_template **out, wn_diag *diag) {
  wn_err err = WN_OK;
  uint32_t *occ = NULL, *keep = NULL;
  wn_template_node *tnodes = NULL;
  *out = NULL;
  if (n_pages < 2 || n_pages > WN_LEARN_MAX_PAGES)
    return wn_diag_set(diag, WN_EINVAL, "learn: need 2 to %u pages, got %zu", WN_LEARN_MAX_PAGES,
                       n_pages);
  uint32_t min_count = opts && opts->min_count ? opts->min_count : 2;
  if (min_count > n_pages)
    return wn_diag_set(diag, WN_EINVAL, "learn: min count %u is more than the %zu pages",
                       min_count, n_pages);
  /* The key page is the base of the template. The paper takes the page it
   * is asked about; a site template serves every later page, and a key
   * page from another layout of the site (an older design, a gallery among
   * articles) would make a template that fits none of them. So the base is
   * the medoid: the sample page whose ETDM with the others pairs the most
   * nodes (the first page on a tie). */
  size_t base = 0;
  err = wn_learn_medoid(pages, n_pages, &base, diag);
  if (err)
    goto out;
  const wn_dom_page *others[WN_LEARN_MAX_PAGES];
  size_t n_others = 0;
  for (size_t i = 0; i < n_pages; i++)
    if (i != base)
      others[n_others++] = pages[i];
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(pages[base], &count);
  occ = malloc((size_t)count * sizeof *occ);
  keep = malloc((size_t)count * sizeof *keep);
  tnodes = calloc(count, sizeof *tnodes);
  if (!occ || !keep || !tnodes) {
    err = wn_diag_set(diag, WN_ENOMEM, "learn: out of memory for %u nodes", count);
    goto out;
  }
  err = wn_learn_occurrences(pages[base], others, n_others, occ, diag);
  if (err)
    goto out;
  /* The template keeps the key page's nodes that recur, with their count
   * of pages (the key page itself plus its occurrences). A node below
   * min_count is page-specific; by the top-down property its whole subtree
   * is too (Theorem 1), so the kept nodes form a tree. */
  uint32_t n = 0;
  for (uint32_t i = 0; i < count; i++) {
    keep[i] = WN_DOM_NONE;
    uint32_t pages_with = occ[i] + 1;
    if (pages_with < min_count)
      continue;
    uint32_t parent = nodes[i].parent;
    if (parent != WN_DOM_NONE && keep[parent] == WN_DOM_NONE)
      continue;
    keep[i] = n;
    tnodes[n].sig = wn_template_fold(nodes[i].sig);
    tnodes[n].parent = parent == WN_DOM_NONE ? WN_DOM_NONE : keep[parent];
    tnodes[n].count = (uint8_t)(pages_with > 255 ? 255 : pages_with);
    tnodes[n].is_text = nodes[i].tag == WN_TAG_TEXT;
    n++;
  }
  if (n == 0) {
    err = wn_diag_set(diag, WN_EINVAL,
                      "learn: the pages share no structure (their roots differ); are they of one site?");
    goto out;
  }
  err = wn_template_from_nodes(tnodes, n, (uint32_t)n_pages, min_count, out, diag);
  if (!err && opts)
    wn_template_set_selector(*out, (uint8_t)opts->selector);
out:
  free(occ);
  free(keep);
  free(tnodes);
  return err;
}
