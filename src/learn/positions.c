/*
 * learn/positions.c: the template positions where a site prints an
 * article's date and byline.
 *
 * Pages of many sites, older ones above all, state no date or author in
 * their markup (no <meta>, JSON-LD or <time>) but print both at one place
 * of their template: a <span class="date">, a <p class="byline">. Such an
 * element recurs on the pages (the ETDM pairs it, site-level paper Sec.
 * 2.2) while its text changes from page to page. A template element is the
 * date position when, on most of the sample pages that hold it (at least
 * two thirds: a clear majority, which one odd page, an undated brief or a
 * missing byline, does not overturn), its text is a date
 * (wn_detect_date_iso), and the date is not the same on all of them (a
 * date that never changes is the template's own: a copyright or a fixed
 * "updated" line, or such a date inside a header whose other text changes).
 * The author position likewise, for text that is a byline ("By Jane Doe")
 * whose name is not the same on all pages (a fixed "By invitation" is no
 * byline; a one-author site has no need of it either). Only short elements are looked at
 * (WN_META_POSITION_TEXT): a date line or a byline is one short line, and
 * a container of a whole header is not the place of either.
 *
 * Of several qualifying elements the one that gives a value on the most
 * pages wins, then the one with the least text (the innermost: the <span>
 * rather than the <td> around it), then the later one in document order
 * (again the inner one when they tie on text).
 */
#include "detect/detect.h"
#include "learn/learn.h"

#include <stdlib.h>
#include <string.h>

typedef struct wn_position_pick {
  uint32_t node; /* base page node, WN_DOM_NONE if none yet */
  uint32_t hits;
  uint64_t text;
} wn_position_pick;

static void wn_position_offer(wn_position_pick *pick, uint32_t node, uint32_t hits,
                              uint32_t have, int varies, uint64_t text) {
  /* hits >= 2/3 of have, in integers. */
  if (!varies || hits == 0 || (uint64_t)hits * 3 < (uint64_t)have * 2)
    return;
  if (pick->node == WN_DOM_NONE || hits > pick->hits ||
      (hits == pick->hits && text <= pick->text)) {
    pick->node = node;
    pick->hits = hits;
    pick->text = text;
  }
}

/* Per candidate element: what its text was on the pages so far. Values
 * are compared by a 64-bit FNV-1a hash (a collision can only hide a
 * change, never invent one). */
typedef struct wn_position_tally {
  uint32_t node;              /* base page node */
  uint32_t have, dates, bylines;
  uint64_t text;              /* bytes of text over the pages */
  uint64_t first_date, first_author;
  uint8_t date_varies, author_varies;
} wn_position_tally;

static uint64_t wn_fnv1a(const char *s) {
  uint64_t h = 14695981039346656037u;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211u;
  return h;
}

static void wn_tally_value(uint32_t n, uint64_t h, uint64_t *first, uint8_t *varies) {
  if (n == 1)
    *first = h;
  else if (*first != h)
    *varies = 1;
}

wn_err wn_learn_positions(const wn_dom_page *base, const wn_dom_page *const *others,
                          size_t n_others, const uint32_t *keep, wn_template_positions *pos,
                          wn_diag *diag) {
  wn_err err = WN_OK;
  pos->date_node = pos->author_node = WN_DOM_NONE;
  uint32_t count = 0, n_cand = 0;
  const wn_dom_node *nodes = wn_dom_nodes(base, &count);
  /* One page mapped at a time: memory is the base page's size, not the
   * sample's. */
  uint32_t *map = malloc(((size_t)count + 1) * sizeof *map);
  wn_position_tally *t = calloc((size_t)count + 1, sizeof *t);
  if (!map || !t) {
    err = wn_diag_set(diag, WN_ENOMEM, "learn: out of memory for %u nodes", count);
    goto out;
  }
  for (uint32_t i = 0; i < count; i++)
    if (keep[i] != WN_DOM_NONE && nodes[i].tag != WN_TAG_TEXT && nodes[i].text_len > 0 &&
        nodes[i].text_len < WN_META_POSITION_TEXT)
      t[n_cand++].node = i;
  if (n_cand == 0)
    goto out;
  wn_etdm_view kv = wn_etdm_view_of_page(base);
  char text[WN_META_POSITION_TEXT], value[WN_META_POSITION_TEXT];
  for (size_t p = 0; p <= n_others; p++) {
    const wn_dom_page *page = p == 0 ? base : others[p - 1];
    if (p > 0) {
      wn_etdm_view ov = wn_etdm_view_of_page(page);
      uint32_t pairs = 0;
      if ((err = wn_etdm_map(&kv, &ov, map, &pairs))) {
        wn_diag_set(diag, err, "learn: mapping page %zu failed", p);
        goto out;
      }
    }
    for (uint32_t c = 0; c < n_cand; c++) {
      wn_position_tally *k = &t[c];
      uint32_t node = p == 0 ? k->node : map[k->node];
      if (node == WN_DOM_NONE)
        continue;
      k->have++;
      size_t len = wn_detect_node_text(page, node, text, sizeof text);
      if (len == 0)
        continue;
      k->text += len;
      /* The value, not the text, must change: a header whose headline
       * changes around a constant date is no date position. */
      if (wn_detect_date_iso(text, value, sizeof value))
        wn_tally_value(++k->dates, wn_fnv1a(value), &k->first_date, &k->date_varies);
      if (wn_detect_byline_author(text, value, sizeof value))
        wn_tally_value(++k->bylines, wn_fnv1a(value), &k->first_author, &k->author_varies);
    }
  }
  wn_position_pick date = {WN_DOM_NONE, 0, 0}, author = {WN_DOM_NONE, 0, 0};
  for (uint32_t c = 0; c < n_cand; c++) {
    const wn_position_tally *k = &t[c];
    wn_position_offer(&date, k->node, k->dates, k->have, k->date_varies, k->text);
    wn_position_offer(&author, k->node, k->bylines, k->have, k->author_varies, k->text);
  }
  if (date.node != WN_DOM_NONE)
    pos->date_node = keep[date.node];
  if (author.node != WN_DOM_NONE)
    pos->author_node = keep[author.node];
out:
  free(map);
  free(t);
  return err;
}
