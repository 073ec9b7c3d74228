/*
 * detect/repeats.c: the output never holds the same block twice.
 *
 * Pages hold their story twice: an A/B test sends two copies and hides
 * one with CSS, a theme writes the article once for wide screens and once
 * for narrow ones, an "infinite scroll" page appends the story again.
 * Every method keeps what it finds, and with two copies in its area it
 * keeps both (precision halves). A reader sees one. So after every
 * method, a kept line (a line of DANAg's normalised source: the text
 * between two block boundaries or <br>s) whose kept text is a sentence
 * long and equals that of an earlier kept line, next to another such
 * line (a copied stretch, not one quoted line), is left out. Short lines
 * ("Reply", a table's "Yes") repeat for good reasons and stay.
 */
#include "detect/single_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* Bytes a line's kept text needs to be judged: about a sentence. */
#define WN_REPEAT_MIN_BYTES 60u

typedef struct wn_repeat_line {
  uint64_t hash;
  uint32_t len;
  uint32_t first, last; /* its kept text nodes: [first, last] */
  uint32_t order;       /* its place among the kept lines */
} wn_repeat_line;

static int wn_repeat_cmp(const void *a, const void *b) {
  const wn_repeat_line *x = a, *y = b;
  if (x->hash != y->hash)
    return x->hash < y->hash ? -1 : 1;
  if (x->len != y->len)
    return x->len < y->len ? -1 : 1;
  return x->first < y->first ? -1 : x->first > y->first;
}

wn_err wn_detect_drop_repeats(const wn_dom_page *page, wn_detect_result *res) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  if (count == 0 || res->body_text)
    return WN_OK;
  const size_t n_lines = 2 * (size_t)count + 1;
  uint32_t *line_of = malloc((size_t)count * sizeof *line_of);
  uint32_t *content = malloc(n_lines * sizeof *content);
  wn_repeat_line *lines = malloc(((size_t)count + 1) * sizeof *lines);
  uint8_t *dup = malloc((size_t)count + 3); /* by order + 1: a repeated line */
  wn_err err = WN_ENOMEM;
  if (!line_of || !content || !lines || !dup)
    goto out;
  wn_danag_lines(page, NULL, content, NULL, line_of);
  /* Lines come in document order: each line's kept text nodes are one
   * stretch of the node order. */
  uint32_t n = 0, cur = WN_DOM_NONE;
  for (uint32_t i = 0; i < count; i++) {
    if (nodes[i].tag != WN_TAG_TEXT || !res->keep[i] || nodes[i].own_text_len == 0)
      continue;
    if (line_of[i] != cur) {
      cur = line_of[i];
      lines[n].hash = WN_HASH_SEED;
      lines[n].len = 0;
      lines[n].first = i;
      lines[n].order = n;
      n++;
    }
    wn_repeat_line *l = &lines[n - 1];
    if (l->len) /* a space between the line's text nodes */
      l->hash = wn_hash_bytes(l->hash, " ", 1);
    l->hash = wn_hash_bytes(l->hash, nodes[i].text, nodes[i].own_text_len);
    l->len += nodes[i].own_text_len + (l->len ? 1u : 0u);
    l->last = i;
  }
  qsort(lines, n, sizeof *lines, wn_repeat_cmp);
  /* A repeat is a copy of a stretch: a repeated line whose neighbour
   * among the kept lines repeats too. One repeated line alone (a quote in
   * a reply, a signature) stays. */
  memset(dup, 0, (size_t)n + 2);
  for (uint32_t k = 1; k < n; k++) {
    const wn_repeat_line *a = &lines[k - 1], *b = &lines[k];
    if (b->len >= WN_REPEAT_MIN_BYTES && a->hash == b->hash && a->len == b->len)
      dup[b->order + 1] = 1;
  }
  for (uint32_t k = 0; k < n; k++) {
    const wn_repeat_line *b = &lines[k];
    if (!dup[b->order + 1] || !(dup[b->order] || dup[b->order + 2]))
      continue;
    for (uint32_t i = b->first; i <= b->last; i++)
      if (line_of[i] == line_of[b->first])
        res->keep[i] = 0;
  }
  err = WN_OK;
out:
  free(line_of);
  free(content);
  free(lines);
  free(dup);
  return err;
}
