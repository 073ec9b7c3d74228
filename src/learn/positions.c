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

wn_err wn_learn_positions(const wn_dom_page *base, const wn_dom_page *const *others,
                          size_t n_others, const uint32_t *keep, wn_template_positions *pos,
                          wn_diag *diag) {
  wn_err err = WN_OK;
  pos->date_node = pos->author_node = WN_DOM_NONE;
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(base, &count);
  uint32_t *maps = malloc((n_others ? n_others : 1) * ((size_t)count + 1) * sizeof *maps);
  if (!maps)
    return wn_diag_set(diag, WN_ENOMEM, "learn: out of memory for %u nodes", count);
  wn_etdm_view kv = wn_etdm_view_of_page(base);
  for (size_t p = 0; p < n_others; p++) {
    wn_etdm_view ov = wn_etdm_view_of_page(others[p]);
    uint32_t pairs = 0;
    if ((err = wn_etdm_map(&kv, &ov, maps + p * count, &pairs))) {
      wn_diag_set(diag, err, "learn: mapping page %zu failed", p + 1);
      goto out;
    }
  }
  wn_position_pick date = {WN_DOM_NONE, 0, 0}, author = {WN_DOM_NONE, 0, 0};
  char text[WN_META_POSITION_TEXT], value[WN_META_POSITION_TEXT];
  char first_date[WN_META_POSITION_TEXT], first_author[WN_META_POSITION_TEXT];
  for (uint32_t i = 0; i < count; i++) {
    if (keep[i] == WN_DOM_NONE || nodes[i].tag == WN_TAG_TEXT || nodes[i].text_len == 0 ||
        nodes[i].text_len >= WN_META_POSITION_TEXT)
      continue;
    uint32_t have = 0, dates = 0, bylines = 0;
    uint64_t total = 0;
    /* The value, not the text, must change: a header whose headline
     * changes around a constant date is no date position. */
    int date_varies = 0, author_varies = 0;
    for (size_t p = 0; p <= n_others; p++) {
      const wn_dom_page *page = p == 0 ? base : others[p - 1];
      uint32_t node = p == 0 ? i : maps[(p - 1) * count + i];
      if (node == WN_DOM_NONE)
        continue;
      have++;
      size_t len = wn_detect_node_text(page, node, text, sizeof text);
      if (len == 0)
        continue;
      total += len;
      if (wn_detect_date_iso(text, value, sizeof value)) {
        if (dates++ == 0)
          memcpy(first_date, value, strlen(value) + 1);
        else if (strcmp(first_date, value) != 0)
          date_varies = 1;
      }
      if (wn_detect_byline_author(text, value, sizeof value)) {
        if (bylines++ == 0)
          memcpy(first_author, value, strlen(value) + 1);
        else if (strcmp(first_author, value) != 0)
          author_varies = 1;
      }
    }
    wn_position_offer(&date, i, dates, have, date_varies, total);
    wn_position_offer(&author, i, bylines, have, author_varies, total);
  }
  if (date.node != WN_DOM_NONE)
    pos->date_node = keep[date.node];
  if (author.node != WN_DOM_NONE)
    pos->author_node = keep[author.node];
out:
  free(maps);
  return err;
}
