/*
 * learn/learn.c: occurrence counts (Algorithm 1 of the site-level paper)
 * and the site template built from them.
 */
#include "detect/detect.h"
#include "learn/learn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WN_LEARN_DEFAULT_SHARE 0.5

/* The learning options' defaults (winnow.h), here where they are read:
 * learning a layout starts from them too. */
void wn_learn_options_init(wn_learn_options *opts) {
  /* n = 4: the site-level paper's best n-SET size (Sec. 3, Table 1);
   * min_count = 2: a node on two pages already recurs; min_share 0.5: a
   * page sharing less than half of the key page's layout is of another
   * kind (docs/learning.md). */
  *opts = (wn_learn_options){.min_count = 2,
                             .selector = WN_SELECT_SITE,
                             .min_share = WN_LEARN_DEFAULT_SHARE,
                             .force = 0,
                             .n = 4,
                             .max_fetches = 16,
                             .by_domain = 0,
                             .algo = WN_LEARN_ETDM};
}

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


/* The site's shape (template.h): the page type most sample pages show by
 * themselves (what they state, their code listings: detect's shape read
 * without a selection), + 1; 0 when no type holds a majority. Detection
 * reads it as the site's kind: a news site's pages are one story each, a
 * manual's are many parts. */
static uint8_t wn_learn_shape(const wn_dom_page *const *pages, size_t n_pages) {
  uint32_t votes[WN_TEMPLATE_MAX_SHAPE] = {0};
  for (size_t p = 0; p < n_pages; p++) {
    unsigned t = (unsigned)wn_detect_page_shape(pages[p], NULL, NULL);
    if (t < WN_TEMPLATE_MAX_SHAPE)
      votes[t]++;
  }
  for (unsigned t = 0; t < WN_TEMPLATE_MAX_SHAPE; t++)
    if (votes[t] * 2 > n_pages)
      return (uint8_t)(t + 1);
  return 0;
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

/* wn_learn_template, also counting in *layout the kept elements below
 * <body> (the size rule of wn_learn_pages). */
static wn_err wn_learn_build(const wn_dom_page *const *pages, size_t n_pages,
                             const wn_learn_options *opts, wn_template **out, uint32_t *layout,
                             wn_diag *diag) {
  wn_err err = WN_OK;
  uint8_t *below_body = NULL;
  *layout = 0;
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
  below_body = calloc(count ? count : 1, 1);
  if (!occ || !keep || !tnodes || !below_body) {
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
    /* Nodes come parents first, so the parent's flag is known. */
    below_body[i] = parent != WN_DOM_NONE &&
                    (below_body[parent] || nodes[parent].tag == WN_TAG_BODY);
    if (below_body[i] && nodes[i].tag != WN_TAG_TEXT)
      (*layout)++;
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
  /* No selector asked for: the default, content places (README, "Content
   * places": better than the cue selector on CleanPortalEval and on the
   * manuals, within 0.01 on crawl-to-the-future; a page that does not fit
   * the place gets the cue selector's choice anyway). */
  wn_detect_selector selector =
      opts && opts->selector != WN_SELECT_SITE ? opts->selector : WN_SELECT_PLACES;
  err = wn_template_from_nodes(tnodes, n, (uint32_t)n_pages, min_count, out, diag);
  if (!err)
    wn_template_set_selector(*out, (uint8_t)selector);
  if (!err) {
    wn_template_positions pos;
    if (!(err = wn_learn_positions(pages[base], others, n_others, keep, &pos, diag)))
      err = wn_template_set_positions(*out, &pos);
    /* The content places cost a cue selection per sample page: learned
     * only for the selector that reads them. */
    if (!err && selector == WN_SELECT_PLACES)
      err = wn_learn_places(*out, pages, n_pages, diag);
    if (!err)
      err = wn_template_set_shape(*out, wn_learn_shape(pages, n_pages));
    if (err) {
      wn_template_free(*out);
      *out = NULL;
    }
  }
out:
  free(occ);
  free(keep);
  free(tnodes);
  free(below_body);
  return err;
}

wn_err wn_learn_template(const wn_dom_page *const *pages, size_t n_pages,
                         const wn_learn_options *opts, wn_template **out, wn_diag *diag) {
  uint32_t layout = 0;
  return wn_learn_build(pages, n_pages, opts, out, &layout, diag);
}

/* ---- learning with checks ------------------------------------------------------ */

/*
 * The template check of Sec. 2.1's output: the key page's template nodes
 * are the nodes that at least two of the pages fetched so far pair (ETDM,
 * Algorithm 1's counters; with one page, the nodes it pairs); a page joins
 * when its own mapping covers at least min_share of them. Two, not a
 * majority: pages of another layout (a section front, a gallery) pair
 * little beyond the site-wide chrome, and when they outnumber the good
 * pages a majority would shrink "the template" to that chrome and let them
 * all in; two good pages that agree are enough to define it.
 */
/* Which key page nodes a candidate pairs (one byte a key node). Mapped
 * once, when the candidate is parsed; later rounds reuse it. */
wn_err wn_learn_map_to_key(const wn_dom_page *key, const wn_dom_page *page, uint8_t **out,
                            wn_diag *diag) {
  uint32_t count = 0, pairs = 0;
  wn_dom_nodes(key, &count);
  uint32_t *map = malloc((size_t)count * sizeof *map);
  uint8_t *mapped = malloc(count ? count : 1);
  wn_err err = WN_OK;
  if (!map || !mapped) {
    err = wn_diag_set(diag, WN_ENOMEM, "learn: out of memory mapping a candidate page");
    goto out;
  }
  wn_etdm_view kv = wn_etdm_view_of_page(key), pv = wn_etdm_view_of_page(page);
  if ((err = wn_etdm_map(&kv, &pv, map, &pairs))) {
    wn_diag_set(diag, err, "learn: mapping a candidate page against the key page failed");
    goto out;
  }
  for (uint32_t i = 0; i < count; i++)
    mapped[i] = map[i] != WN_DOM_NONE;
  *out = mapped;
  mapped = NULL;
out:
  free(map);
  free(mapped);
  return err;
}

wn_err wn_learn_shares(uint32_t count, const uint8_t *const *mapped, size_t n,
                             double *share, wn_diag *diag) {
  uint32_t *occ = calloc(count ? count : 1, sizeof *occ);
  if (!occ)
    return wn_diag_set(diag, WN_ENOMEM, "learn: out of memory checking %zu pages", n);
  for (size_t p = 0; p < n; p++)
    for (uint32_t i = 0; i < count; i++)
      occ[i] += mapped[p][i];
  const uint32_t agree = n >= 2 ? 2u : 1u;
  uint32_t total = 0;
  for (uint32_t i = 0; i < count; i++)
    total += occ[i] >= agree;
  for (size_t p = 0; p < n; p++) {
    uint32_t have = 0;
    for (uint32_t i = 0; i < count; i++)
      have += occ[i] >= agree && mapped[p][i];
    share[p] = total ? (double)have / (double)total : 0.0;
  }
  free(occ);
  return WN_OK;
}

int wn_learn_page_has_text(const wn_dom_page *page) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint32_t body = wn_dom_body(page);
  if (body == WN_DOM_NONE || body >= count || nodes[body].text_len == 0)
    return 0;
  /* Collapsed text may still be a lone space between elements. */
  for (uint32_t i = body; i < nodes[body].end; i++) {
    const char *t = nodes[i].text;
    if (nodes[i].tag != WN_TAG_TEXT || !t)
      continue;
    for (; *t; t++)
      if (*t != ' ' && *t != '\t' && *t != '\n' && *t != '\r' && *t != '\f')
        return 1;
  }
  return 0;
}

wn_err wn_learn_check_pages(const wn_dom_page *const *pages, size_t n_pages,
                            const wn_learn_options *opts, wn_learn_check *checks,
                            const wn_dom_page **used, size_t *n_used, wn_diag *diag) {
  wn_err err = WN_OK;
  uint8_t *mapped[WN_LEARN_MAX_PAGES] = {0};
  double share[WN_LEARN_MAX_PAGES] = {0};
  wn_learn_check own[WN_LEARN_MAX_PAGES];
  *n_used = 0;
  if (n_pages < 2 || n_pages > WN_LEARN_MAX_PAGES)
    return wn_diag_set(diag, WN_EINVAL, "learn: need 2 to %u pages, got %zu", WN_LEARN_MAX_PAGES,
                       n_pages);
  /* force uses every page whatever it pairs: the shares are measured only
   * for the caller's checks (a crawl has measured them already). */
  const int measure = checks != NULL || !(opts && opts->force);
  if (!checks)
    checks = own;
  const double min_share = opts && opts->min_share > 0 ? opts->min_share : WN_LEARN_DEFAULT_SHARE;
  const int force = opts && opts->force;
  memset(checks, 0, n_pages * sizeof *checks);
  checks[0].share = 1.0;
  checks[0].used = 1;

  /* Check 0: a page with no text (an empty file, an error page of bare
   * markup) is no sample, force or not: its skeleton pairs with anything
   * and it holds no content for a template to frame. */
  int text[WN_LEARN_MAX_PAGES];
  size_t n_textless = 0;
  for (size_t i = 0; i < n_pages; i++) {
    text[i] = wn_learn_page_has_text(pages[i]);
    n_textless += !text[i];
  }
  if (!text[0]) {
    checks[0].used = 0;
    checks[0].err = WN_EEMPTY;
    snprintf(checks[0].message, sizeof checks[0].message, "%s", WN_LEARN_TEXTLESS);
    return wn_diag_set(diag, WN_EEMPTY,
                       "learn: the key page has no text in its body (an empty page?): "
                       "learn from a page with content first");
  }

  /* Check 1b, first half: a translation or a copy of the key page pairs
   * its content too, so it would count content among the key page's
   * template nodes; it is left out before check 1. */
  int variant[WN_LEARN_MAX_PAGES] = {0};
  size_t n_variants = 0;
  for (size_t i = 1; i < n_pages && (!force || measure); i++) {
    if (!text[i])
      continue;
    wn_learn_check *c = &checks[i];
    wn_learn_dup dup = WN_LEARN_DUP_NONE;
    if (wn_learn_other_language(pages[0], pages[i], c->message, sizeof c->message)) {
      variant[i] = 1;
    } else {
      if ((err = wn_learn_near_duplicate(pages[0], pages[i], &dup, diag)))
        goto out;
      if (dup != WN_LEARN_DUP_NONE) {
        variant[i] = 1;
        c->dup = (int)dup;
        c->dup_of = 0;
        wn_learn_dup_message(dup, "the key page", c->message, sizeof c->message);
      }
    }
    /* force keeps it, and says so. */
    if (force && variant[i]) {
      /* The reason moved behind the prefix, cut to fit. */
      static const char kept[] = "kept by force, though ";
      const size_t prefix = sizeof kept - 1;
      size_t len = strnlen(c->message, sizeof c->message - 1);
      if (len > sizeof c->message - 1 - prefix)
        len = sizeof c->message - 1 - prefix;
      memmove(c->message + prefix, c->message, len);
      memcpy(c->message, kept, prefix);
      c->message[prefix + len] = '\0';
      variant[i] = 0;
      c->dup = 0;
      continue;
    }
    n_variants += (size_t)variant[i];
  }

  /* Check 1: every other page with text against the key page, in one
   * round. */
  if (measure) {
    uint32_t key_count = 0;
    wn_dom_nodes(pages[0], &key_count);
    const uint8_t *maps[WN_LEARN_MAX_PAGES];
    double shares[WN_LEARN_MAX_PAGES];
    size_t index[WN_LEARN_MAX_PAGES], nm = 0;
    for (size_t i = 1; i < n_pages; i++) {
      if (!text[i] || variant[i])
        continue;
      if ((err = wn_learn_map_to_key(pages[0], pages[i], &mapped[i], diag)))
        goto out;
      maps[nm] = mapped[i];
      index[nm++] = i;
    }
    if (nm > 0 && (err = wn_learn_shares(key_count, maps, nm, shares, diag)))
      goto out;
    for (size_t k = 0; k < nm; k++)
      share[index[k]] = shares[k];
  }
  size_t n = 0;
  size_t used_index[WN_LEARN_MAX_PAGES];
  used_index[n] = 0;
  used[n++] = pages[0];
  double best_left = 0.0;
  for (size_t i = 1; i < n_pages; i++) {
    wn_learn_check *c = &checks[i];
    c->share = share[i];
    if (!text[i]) {
      c->err = WN_EEMPTY;
      snprintf(c->message, sizeof c->message, "%s", WN_LEARN_TEXTLESS);
      continue;
    }
    if (variant[i]) {
      c->err = WN_EEMPTY; /* the message was set by check 1b */
      continue;
    }
    c->used = force || share[i] >= min_share;
    /* Check 1b, second half: two samples that are versions of one page
     * (one article in two languages among the n-SET) count each other's
     * content as recurring; the first one used stays. */
    for (size_t k = 1; c->used && !force && k < n; k++) {
      wn_learn_dup dup = WN_LEARN_DUP_NONE;
      if ((err = wn_learn_near_duplicate(used[k], pages[i], &dup, diag)))
        goto out;
      if (dup == WN_LEARN_DUP_NONE)
        continue;
      char of[32];
      snprintf(of, sizeof of, "page %zu", used_index[k] + 1);
      c->used = 0;
      c->err = WN_EEMPTY;
      c->dup = (int)dup;
      c->dup_of = used_index[k];
      wn_learn_dup_message(dup, of, c->message, sizeof c->message);
      n_variants++;
    }
    if (c->dup)
      continue;
    if (c->used) {
      used_index[n] = i;
      used[n++] = pages[i];
      continue;
    }
    if (share[i] > best_left)
      best_left = share[i];
    c->err = WN_EEMPTY;
    c->other_layout = 1;
    snprintf(c->message, sizeof c->message,
             "pairs %.0f%% of the key page's template nodes (needs %.0f%%): another layout",
             100.0 * share[i], 100.0 * min_share);
  }
  if (n < 2 && n_textless == n_pages - 1) {
    err = wn_diag_set(diag, WN_EEMPTY,
                      "learn: only the key page of %zu has text: the other pages are empty or "
                      "hold no text in their body",
                      n_pages);
    goto out;
  }
  if (n < 2 && n_variants + n_textless == n_pages - 1) {
    err = wn_diag_set(diag, WN_EEMPTY,
                      "learn: the other pages are other versions of the key page (another "
                      "language, near-duplicates)%s: give pages of other content",
                      n_textless ? " or hold no text" : "");
    goto out;
  }
  if (n < 2) {
    err = wn_diag_set(diag, WN_EEMPTY,
                      "learn: only %zu of %zu pages share a layout (the best other page pairs "
                      "%.0f%% of the key page's template nodes, %.0f%% needed%s%s): are they of "
                      "one site and one kind?",
                      n, n_pages, 100.0 * best_left, 100.0 * min_share,
                      n_textless ? "; pages without text are left out" : "",
                      n_variants ? "; other versions of the key page are left out" : "");
    goto out;
  }
  *n_used = n;
out:
  for (size_t i = 0; i < n_pages; i++)
    free(mapped[i]);
  return err;
}

/* The share of tpl's frame (the nodes all its samples held) that page
 * pairs. */
static wn_err wn_learn_frame_fit(const wn_template *tpl, const wn_dom_page *page, double *fit,
                                 wn_diag *diag) {
  uint32_t count = 0, tcount = 0, pairs = 0;
  wn_dom_nodes(page, &count);
  const wn_template_node *t = wn_template_nodes(tpl, &tcount);
  wn_template_stats st;
  wn_template_get_stats(tpl, &st);
  uint32_t *map = malloc(((size_t)count + 1) * sizeof *map);
  uint8_t *seen = calloc((size_t)tcount + 1, 1);
  wn_err err = WN_OK;
  if (!map || !seen) {
    err = wn_diag_set(diag, WN_ENOMEM, "learn: out of memory matching a layout");
    goto out;
  }
  if ((err = wn_template_match(tpl, page, map, &pairs))) {
    wn_diag_set(diag, err, "learn: matching the key page against a layout failed");
    goto out;
  }
  for (uint32_t i = 0; i < count; i++)
    if (map[i] != WN_DOM_NONE)
      seen[map[i]] = 1;
  uint32_t frame = 0, have = 0;
  for (uint32_t i = 0; i < tcount; i++)
    if (t[i].count >= st.sample_pages) {
      frame++;
      have += seen[i];
    }
  *fit = frame ? (double)have / frame : 0.0;
out:
  free(map);
  free(seen);
  return err;
}

wn_err wn_learn_layouts(const wn_dom_page *const *pages, size_t n_pages,
                        const wn_learn_options *opts, wn_learn_check *checks, wn_template *tpl,
                        wn_diag *diag) {
  const double min_share = opts && opts->min_share > 0 ? opts->min_share : WN_LEARN_DEFAULT_SHARE;
  size_t rest[WN_LEARN_MAX_PAGES], n_rest = 0;
  if (opts && opts->force)
    return WN_OK;
  for (size_t i = 1; i < n_pages && i < WN_LEARN_MAX_PAGES; i++)
    if (!checks[i].used && checks[i].other_layout)
      rest[n_rest++] = i;
  wn_err err = WN_OK;
  while (n_rest >= WN_LEARN_LAYOUT_MIN_PAGES &&
         wn_template_layout_count(tpl) < WN_TEMPLATE_MAX_LAYOUTS) {
    const wn_dom_page *group[WN_LEARN_MAX_PAGES], *used[WN_LEARN_MAX_PAGES];
    wn_learn_check sub[WN_LEARN_MAX_PAGES];
    size_t n_used = 0, member[WN_LEARN_MAX_PAGES], n_member = 0;
    for (size_t k = 0; k < n_rest; k++)
      group[k] = pages[rest[k]];
    wn_diag quiet = {{0}};
    wn_err cerr = wn_learn_check_pages(group, n_rest, opts, sub, used, &n_used, &quiet);
    if (cerr == WN_ENOMEM) {
      err = wn_diag_set(diag, cerr, "learn: out of memory clustering layouts");
      break;
    }
    /* The key page of the cluster, and the pages that pass check 1 (and
     * 1b) against it. */
    member[n_member++] = 0;
    for (size_t k = 1; !cerr && k < n_rest; k++)
      if (sub[k].used)
        member[n_member++] = k;
    if (n_member >= WN_LEARN_LAYOUT_MIN_PAGES) {
      for (size_t m = 0; m < n_member; m++)
        used[m] = group[member[m]];
      wn_template *t = NULL;
      uint32_t layout = 0;
      wn_diag bd = {{0}};
      /* Its template keeps what all its pages hold: its frame. */
      wn_learn_options lo;
      if (opts)
        lo = *opts;
      else
        wn_learn_options_init(&lo);
      lo.min_count = (uint32_t)n_member;
      wn_err berr = wn_learn_build(used, n_member, &lo, &t, &layout, &bd);
      if (berr == WN_ENOMEM) {
        err = wn_diag_set(diag, berr, "learn: out of memory learning a layout");
        break;
      }
      double key_fit = 0;
      if (!berr && layout > 0 && (err = wn_learn_frame_fit(t, pages[0], &key_fit, diag))) {
        wn_template_free(t);
        break;
      }
      if (!berr && layout > 0 && key_fit < min_share) {
        const uint32_t k = wn_template_layout_count(tpl);
        wn_template_add_layout(tpl, t); /* fewer than WN_TEMPLATE_MAX_LAYOUTS */
        for (size_t m = 0; m < n_member; m++) {
          wn_learn_check *c = &checks[rest[member[m]]];
          c->used = 1;
          c->layout = k;
          c->err = WN_OK;
          c->other_layout = 0;
          snprintf(c->message, sizeof c->message, "learned as layout %u", k + 1);
        }
      } else {
        wn_template_free(t);
        /* No template of its own: its key page alone leaves. A frame the
         * site's key page pairs as much of as check 1 asks is no layout of
         * its own (small pages sharing a bare skeleton): the cluster leaves
         * whole. */
        if (berr || layout == 0)
          n_member = 1;
      }
    } else {
      n_member = 1;
    }
    /* The cluster (or its key page alone) leaves the pages still to place. */
    size_t keep = 0;
    for (size_t k = 0, m = 0; k < n_rest; k++) {
      if (m < n_member && member[m] == k) {
        m++;
        continue;
      }
      rest[keep++] = rest[k];
    }
    n_rest = keep;
  }
  return err;
}

wn_err wn_learn_pages(const wn_dom_page *const *pages, size_t n_pages,
                      const wn_learn_options *opts, wn_template **out, wn_learn_check *checks,
                      wn_diag *diag) {
  wn_err err = WN_OK;
  const wn_dom_page *used[WN_LEARN_MAX_PAGES];
  size_t n_used = 0;
  *out = NULL;
  if ((err = wn_learn_check_pages(pages, n_pages, opts, checks, used, &n_used, diag)))
    return err;

  uint32_t layout = 0;
  if ((err = wn_learn_build(used, n_used, opts, out, &layout, diag)))
    goto out;
  /* Check 2: a template of the document skeleton alone describes no
   * layout (see learn.h). */
  if (layout == 0) {
    wn_template_free(*out);
    *out = NULL;
    err = wn_diag_set(diag, WN_EEMPTY,
                      "learn: the %zu pages share no element below <body>: nothing of a page "
                      "layout recurs, so there is no template to learn",
                      n_used);
    goto out;
  }
  /* The pages of other layouts, a template each (wn_learn_layouts). */
  if (checks && (err = wn_learn_layouts(pages, n_pages, opts, checks, *out, diag))) {
    wn_template_free(*out);
    *out = NULL;
  }
out:
  return err;
}
