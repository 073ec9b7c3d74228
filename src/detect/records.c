/*
 * detect/records.c: repeated records (Liu, Grossman and Zhai, "Mining
 * Data Records in Web Pages", KDD 2003): the records of a data region are
 * like subtrees side by side under one parent. A forum thread's posts, a
 * grid's cards, an index's entries, a landing page's feature boxes.
 *
 * MDR compares generalized nodes by tag-string edit distance; a page's
 * own markup is simpler to read here: the records of one region are
 * written by one template of the site's code and so share their
 * signature (wn_dom_node.sig: tag, id shape, class). The region found is
 * the run of three or more adjacent containers of one signature holding
 * the most text that counts (keep[]).
 */
#include "detect/detect_int.h"

#include <stdlib.h>
#include <string.h>

#include "dom/dom.h"

/* The element a container's only children lead to: itself when it has
 * no child element alone (a shop's <li> wraps its card in a <span> and a
 * <div>; the card is the <div>). */
static uint32_t wn_record_core(const wn_dom_node *nodes, uint32_t i) {
  while (nodes[i].n_children == 1 && nodes[nodes[i].first_child].tag != WN_TAG_TEXT)
    i = nodes[i].first_child;
  return i;
}

/* A record is a structured subtree: a container (not a paragraph, a
 * heading or inline markup) whose core has two children or more. An
 * article's run of paragraphs is prose, not records; a menu's
 * <li><a>name</a> is one link. */
static int wn_is_record(const wn_dom_node *nodes, uint32_t i) {
  switch (nodes[i].tag) {
  case WN_TAG_TR: /* a row of one cell is a layout table's */
    return nodes[i].n_children >= 2;
  case WN_TAG_DIV:
  case WN_TAG_LI:
  case WN_TAG_ARTICLE:
  case WN_TAG_SECTION:
  case WN_TAG_OTHER:
  case WN_TAG_DL:
  case WN_TAG_DD:
    return nodes[wn_record_core(nodes, i)].n_children >= 2;
  default:
    return 0;
  }
}

/* Records of one region are written by one template of the site's code:
 * their containers share a signature, and so do their cores. Wrappers of
 * a page's layout (a header's, a body's, a footer's) may share the first
 * and not the second. A shop's or a blog's code adds each item's own
 * class tokens after the first ("first", "sale", a category), and the
 * items are alike by that first token and an id of one shape
 * (wn_dom_like), as MDR's tag strings would find them alike. */
static int wn_records_same(const wn_dom_node *a, const wn_dom_node *b) {
  return a->sig == b->sig || wn_dom_like(a, b);
}

static int wn_records_alike(const wn_dom_node *nodes, uint32_t a, uint32_t b) {
  return wn_records_same(&nodes[a], &nodes[b]) &&
         wn_records_same(&nodes[wn_record_core(nodes, a)], &nodes[wn_record_core(nodes, b)]);
}

/* A record's replies: a sibling that is no record like the run's but
 * holds such records as children or grandchildren (a threaded forum's
 * <div class="indented"> after the post it answers, which nests the
 * replies to those replies). MDR reads a post and its replies as one
 * generalized node; here the replies' container joins the run, so that
 * a thread's posts are one run and not runs of two cut at every reply. */
static int wn_records_replies(const wn_dom_node *nodes, uint32_t c, uint32_t first) {
  for (uint32_t k = nodes[c].first_child; k != WN_DOM_NONE; k = nodes[k].next_sibling) {
    if (nodes[k].tag == WN_TAG_TEXT)
      continue;
    if (wn_is_record(nodes, k) && wn_records_alike(nodes, k, first))
      return 1;
    for (uint32_t g = nodes[k].first_child; g != WN_DOM_NONE; g = nodes[g].next_sibling)
      if (nodes[g].tag != WN_TAG_TEXT && wn_is_record(nodes, g) &&
          wn_records_alike(nodes, g, first))
        return 1;
  }
  return 0;
}

/* Whether sibling c continues the run that starts at first: a record
 * like it, or the replies to one. */
static int wn_records_member(const wn_dom_node *nodes, uint32_t c, uint32_t first) {
  if (wn_is_record(nodes, c) && wn_records_alike(nodes, c, first))
    return 1;
  return nodes[c].tag != WN_TAG_TEXT && wn_records_replies(nodes, c, first);
}

/* Closes a run: the best so far when it has three records or more and
 * more text. */
static void wn_records_close(const wn_detect_records *run, wn_detect_records *best) {
  if (run->first != WN_DOM_NONE && run->n >= 3 && run->text > best->text)
    *best = *run;
}

uint32_t wn_detect_record_next(const wn_dom_node *nodes, const wn_detect_records *rec,
                               uint32_t r) {
  for (r = nodes[r].next_sibling; r != WN_DOM_NONE; r = nodes[r].next_sibling)
    if (nodes[r].tag != WN_TAG_TEXT && nodes[r].text_len != 0 &&
        wn_records_member(nodes, r, rec->first))
      return r;
  return WN_DOM_NONE;
}

wn_err wn_detect_records_find(const wn_dom_page *page, const uint8_t *keep,
                              wn_detect_records *best) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  memset(best, 0, sizeof *best);
  best->first = WN_DOM_NONE;
  uint64_t *sums = calloc(2 * ((size_t)count + 1), sizeof *sums);
  if (!sums)
    return WN_ENOMEM;
  uint64_t *kept = sums, *plain = sums + count + 1;
  for (uint32_t i = count; i-- > 0;) {
    if (nodes[i].tag == WN_TAG_TEXT && keep[i]) {
      kept[i] = nodes[i].own_text_len;
      plain[i] = (nodes[i].flags & WN_DOM_IN_LINK) ? 0 : nodes[i].own_text_len;
    }
    if (nodes[i].parent != WN_DOM_NONE) {
      kept[nodes[i].parent] += kept[i];
      plain[nodes[i].parent] += plain[i];
    }
  }
  for (uint32_t p = 0; p < count; p++) {
    if (nodes[p].n_children < 3 || kept[p] <= best->text)
      continue;
    wn_detect_records run = {.first = WN_DOM_NONE};
    for (uint32_t c = nodes[p].first_child; c != WN_DOM_NONE; c = nodes[c].next_sibling) {
      if (nodes[c].tag == WN_TAG_TEXT || nodes[c].text_len == 0)
        continue; /* white space, a rule or a spacer between records */
      const int record = wn_is_record(nodes, c);
      if (run.first == WN_DOM_NONE || !wn_records_member(nodes, c, run.first)) {
        wn_records_close(&run, best);
        memset(&run, 0, sizeof run);
        run.first = record ? c : WN_DOM_NONE;
        if (!record)
          continue;
      }
      run.n++;
      run.text += kept[c];
      run.plain += plain[c];
      if (kept[c] > run.largest)
        run.largest = kept[c];
    }
    wn_records_close(&run, best);
  }
  free(sums);
  return WN_OK;
}

int wn_detect_has_price(const char *t, uint32_t len) {
  for (uint32_t i = 0; i < len; i++) {
    const unsigned char c = (unsigned char)t[i];
    int sign = c == '$' || (c == 0xE2 && i + 2 < len && (unsigned char)t[i + 1] == 0x82 &&
                            (unsigned char)t[i + 2] == 0xAC) /* EUR */
               || (c == 0xC2 && i + 1 < len && (unsigned char)t[i + 1] == 0xA3); /* GBP */
    if (!sign)
      continue;
    uint32_t w = c == '$' ? 1 : c == 0xE2 ? 3 : 2;
    if ((i + w < len && wn_ascii_digit(t[i + w])) ||
        (i + w + 1 < len && t[i + w] == ' ' && wn_ascii_digit(t[i + w + 1])) ||
        (i > 0 && wn_ascii_digit(t[i - 1])) ||
        (i > 1 && t[i - 1] == ' ' && wn_ascii_digit(t[i - 2])))
      return 1;
  }
  return 0;
}

static int wn_is_time(const wn_dom_node *n) {
  return n->tag == WN_TAG_OTHER && n->name && strcmp(n->name, "time") == 0;
}

void wn_detect_record_read(const wn_dom_node *nodes, uint32_t r, const uint8_t *keep,
                           wn_detect_record_traits *out) {
  int price = 0, date = 0, first_seen = 0, link_first = 0;
  for (uint32_t i = r + 1; i < nodes[r].end; i++) {
    const wn_dom_node *n = &nodes[i];
    if (wn_is_time(n))
      date = 1;
    if (n->tag != WN_TAG_TEXT || !keep[i] || n->own_text_len == 0)
      continue;
    if (!first_seen) {
      first_seen = 1;
      link_first = (n->flags & WN_DOM_IN_LINK) != 0;
    }
    if (!price && wn_detect_has_price(n->text, n->own_text_len))
      price = 1;
  }
  out->priced += (uint32_t)price;
  out->dated += (uint32_t)date;
  out->linked += (uint32_t)link_first;
}
