/*
 * template/template.c: the template tree, its binary encoding, and the
 * equal top-down mapping (ETDM) used by both learning and detection.
 */
#include "template/template.h"

#include <stdlib.h>
#include <string.h>

struct wn_template {
  wn_template_node *nodes;
  uint32_t count;
  uint32_t text_nodes;
  uint32_t sample_pages;
  uint32_t min_count;
  uint8_t selector;
  uint8_t shape; /* version 6: the samples' page shape + 1; 0 unknown */
  wn_template_positions pos;
  wn_template_places places;
  /* The site's other layouts (on the first layout only; they hold none). */
  wn_template *layouts[WN_TEMPLATE_MAX_LAYOUTS - 1];
  uint32_t n_layouts;
};

/* ---- building ------------------------------------------------------------ */

wn_err wn_template_from_nodes(const wn_template_node *nodes, uint32_t count,
                              uint32_t sample_pages, uint32_t min_count, wn_template **out,
                              wn_diag *diag) {
  *out = NULL;
  if (count == 0 || count > WN_TEMPLATE_MAX_NODES)
    return wn_diag_set(diag, WN_EINVAL, "template: %u nodes (must be 1 to %u)", count,
                       WN_TEMPLATE_MAX_NODES);
  wn_template *tpl = calloc(1, sizeof *tpl);
  if (!tpl)
    return WN_ENOMEM;
  tpl->nodes = malloc((size_t)count * sizeof *tpl->nodes);
  if (!tpl->nodes) {
    free(tpl);
    return WN_ENOMEM;
  }
  memcpy(tpl->nodes, nodes, (size_t)count * sizeof *nodes);
  tpl->count = count;
  tpl->sample_pages = sample_pages;
  tpl->min_count = min_count;
  tpl->pos.date_node = tpl->pos.author_node = WN_DOM_NONE;
  tpl->places.content = WN_DOM_NONE;
  /* Recompute the links from parent indices (pre-order: parents first). */
  wn_template_node *t = tpl->nodes;
  uint32_t *last = malloc((size_t)count * sizeof *last);
  if (!last) {
    wn_template_free(tpl);
    return WN_ENOMEM;
  }
  for (uint32_t i = 0; i < count; i++) {
    t[i].first_child = t[i].next_sibling = WN_DOM_NONE;
    t[i].n_children = 0;
    t[i].end = i + 1;
    last[i] = WN_DOM_NONE;
    if (t[i].is_text)
      tpl->text_nodes++;
    uint32_t p = t[i].parent;
    if (i == 0 ? p != WN_DOM_NONE : p >= i) {
      free(last);
      wn_template_free(tpl);
      return wn_diag_set(diag, WN_ECORRUPT, "template: node %u has a bad parent", i);
    }
    if (p == WN_DOM_NONE)
      continue;
    if (last[p] == WN_DOM_NONE)
      t[p].first_child = i;
    else
      t[last[p]].next_sibling = i;
    last[p] = i;
    t[p].n_children++;
  }
  for (uint32_t i = count; i-- > 1;)
    if (t[i].end > t[t[i].parent].end)
      t[t[i].parent].end = t[i].end;
  free(last);
  *out = tpl;
  return WN_OK;
}

void wn_template_free(wn_template *tpl) {
  if (!tpl)
    return;
  for (uint32_t k = 0; k < tpl->n_layouts; k++)
    wn_template_free(tpl->layouts[k]);
  free(tpl->nodes);
  free(tpl);
}

uint32_t wn_template_layout_count(const wn_template *tpl) { return 1 + tpl->n_layouts; }

const wn_template *wn_template_layout(const wn_template *tpl, uint32_t k) {
  return k == 0 ? tpl : k <= tpl->n_layouts ? tpl->layouts[k - 1] : NULL;
}

wn_err wn_template_add_layout(wn_template *tpl, wn_template *layout) {
  if (!layout || layout == tpl || layout->n_layouts > 0 ||
      tpl->n_layouts + 1 >= WN_TEMPLATE_MAX_LAYOUTS)
    return WN_EINVAL;
  tpl->layouts[tpl->n_layouts++] = layout;
  return WN_OK;
}

const wn_template_node *wn_template_nodes(const wn_template *tpl, uint32_t *count) {
  if (count)
    *count = tpl->count;
  return tpl->nodes;
}

void wn_template_get_stats(const wn_template *tpl, wn_template_stats *stats) {
  stats->nodes = tpl->count;
  stats->text_nodes = tpl->text_nodes;
  stats->sample_pages = tpl->sample_pages;
  stats->min_count = tpl->min_count;
  stats->selector = tpl->selector;
  stats->layouts = 1 + tpl->n_layouts;
}

uint8_t wn_template_selector(const wn_template *tpl) { return tpl->selector; }
uint8_t wn_template_shape(const wn_template *tpl) { return tpl->shape; }
wn_err wn_template_set_shape(wn_template *tpl, uint8_t shape) {
  if (shape > WN_TEMPLATE_MAX_SHAPE)
    return WN_EINVAL;
  tpl->shape = shape;
  return WN_OK;
}
void wn_template_set_selector(wn_template *tpl, uint8_t selector) { tpl->selector = selector; }

wn_template_positions wn_template_get_positions(const wn_template *tpl) { return tpl->pos; }

static int wn_position_ok(const wn_template *tpl, uint32_t node) {
  return node == WN_DOM_NONE || (node < tpl->count && !tpl->nodes[node].is_text);
}

wn_err wn_template_set_positions(wn_template *tpl, const wn_template_positions *pos) {
  if (!wn_position_ok(tpl, pos->date_node) || !wn_position_ok(tpl, pos->author_node))
    return WN_EINVAL;
  tpl->pos = *pos;
  return WN_OK;
}

const wn_template_places *wn_template_get_places(const wn_template *tpl) { return &tpl->places; }

wn_err wn_template_set_places(wn_template *tpl, const wn_template_places *places) {
  uint32_t c = places->content;
  if (places->whole > 1)
    return WN_EINVAL;
  if (c == WN_DOM_NONE) {
    if (places->n_skip || places->whole || places->n_aside)
      return WN_EINVAL;
  } else if (c >= tpl->count || tpl->nodes[c].is_text || places->n_skip > WN_TEMPLATE_MAX_SKIP ||
             places->n_aside > WN_TEMPLATE_MAX_SKIP) {
    return WN_EINVAL;
  }
  for (uint32_t k = 0; k < places->n_aside; k++) {
    uint32_t s = places->aside[k];
    if (s >= tpl->count || tpl->nodes[s].is_text || (c <= s && s < tpl->nodes[c].end) ||
        (s < c && c < tpl->nodes[s].end))
      return WN_EINVAL;
    for (uint32_t j = 0; j < places->n_aside; j++)
      if (j != k && places->aside[j] <= s && s < tpl->nodes[places->aside[j]].end)
        return WN_EINVAL;
  }
  for (uint32_t k = 0; k < places->n_skip; k++) {
    uint32_t s = places->skip[k];
    if (s <= c || s >= tpl->nodes[c].end || tpl->nodes[s].is_text)
      return WN_EINVAL;
    for (uint32_t j = 0; j < places->n_skip; j++)
      if (j != k && places->skip[j] <= s && s < tpl->nodes[places->skip[j]].end)
        return WN_EINVAL;
  }
  tpl->places = *places;
  return WN_OK;
}

/* ---- encoding --------------------------------------------------------------- */

static wn_err wn_template_encode_one(const wn_template *tpl, wn_buf *out, wn_diag *diag) {
  wn_err err;
  unsigned char head[9] = {'W', 'N', 'T', 'P', (unsigned char)WN_TEMPLATE_FORMAT_VERSION,
                           (unsigned char)tpl->min_count, (unsigned char)tpl->sample_pages,
                           (unsigned char)(tpl->sample_pages >> 8), tpl->selector};
  if ((err = wn_buf_append(out, head, sizeof head)) || (err = wn_varint_put(out, tpl->count)))
    goto out;
  for (uint32_t i = 0; i < tpl->count; i++) {
    const wn_template_node *n = &tpl->nodes[i];
    unsigned char cb[2] = {n->count, n->is_text};
    if ((err = wn_varint_put(out, n->n_children)) || (err = wn_buf_append(out, cb, 2)) ||
        (err = wn_le32_put(out, n->sig)))
      goto out;
  }
  /* Positions as index + 1, so that "none" is one byte. */
  if ((err = wn_varint_put(out, tpl->pos.date_node == WN_DOM_NONE ? 0 : tpl->pos.date_node + 1)) ||
      (err =
           wn_varint_put(out, tpl->pos.author_node == WN_DOM_NONE ? 0 : tpl->pos.author_node + 1)))
    goto out;
  const wn_template_places *pl = &tpl->places;
  unsigned char whole = pl->whole;
  if ((err = wn_varint_put(out, pl->content == WN_DOM_NONE ? 0 : pl->content + 1)) ||
      (err = wn_buf_append(out, &whole, 1)) || (err = wn_varint_put(out, pl->n_skip)))
    goto out;
  for (uint32_t k = 0; k < pl->n_skip; k++)
    if ((err = wn_varint_put(out, pl->skip[k])))
      goto out;
  if ((err = wn_varint_put(out, pl->n_aside)))
    goto out;
  for (uint32_t k = 0; k < pl->n_aside; k++)
    if ((err = wn_varint_put(out, pl->aside[k])))
      goto out;
  err = wn_buf_append(out, &tpl->shape, 1);
out:
  if (err)
    wn_diag_set(diag, err, "template: cannot encode %u nodes: %s", tpl->count,
                wn_strerror(err));
  return err;
}

static wn_err wn_template_decode_one(const void *bytes, size_t len, wn_template **out,
                                     wn_diag *diag) {
  wn_err err = WN_OK;
  wn_template_node *nodes = NULL;
  uint32_t *open = NULL; /* children still expected per open ancestor */
  uint32_t *stack = NULL;
  *out = NULL;
  wn_reader r = {bytes, len};
  if (len < 8 || memcmp(bytes, "WNTP", 4) != 0)
    return wn_diag_set(diag, WN_ECORRUPT, "template: not a template (bad magic or %zu bytes)",
                       len);
  /* Version 1 had no selector byte: its templates read as selector 0.
   * Versions 1 and 2 had no metadata positions: they read as none. */
  unsigned version = r.p[4];
  if (version < 1 || version > WN_TEMPLATE_FORMAT_VERSION)
    return wn_diag_set(diag, WN_EVERSION,
                       "template: format version %u is not supported (this build reads 1 to %u)",
                       r.p[4], WN_TEMPLATE_FORMAT_VERSION);
  size_t head = version == 1 ? 8 : 9;
  if (len < head)
    return wn_diag_set(diag, WN_ECORRUPT, "template: truncated header (%zu bytes)", len);
  uint32_t min_count = r.p[5];
  uint32_t sample_pages = (uint32_t)r.p[6] | ((uint32_t)r.p[7] << 8);
  uint8_t selector = head == 9 ? r.p[8] : 0;
  r.p += head;
  r.left -= head;
  uint32_t count = 0;
  if (!wn_varint_get(&r, &count) || count == 0 || count > WN_TEMPLATE_MAX_NODES ||
      count > r.left / 7 + 1) {
    err = wn_diag_set(diag, WN_ECORRUPT, "template: bad node count");
    goto out;
  }
  nodes = calloc(count, sizeof *nodes);
  open = calloc(count, sizeof *open);
  stack = calloc(count, sizeof *stack);
  if (!nodes || !open || !stack) {
    err = WN_ENOMEM;
    goto out;
  }
  /* Pre-order with child counts: a node's parent is the deepest open node
   * still expecting children. */
  uint32_t top = 0;
  for (uint32_t i = 0; i < count; i++) {
    uint32_t n_children = 0;
    if (!wn_varint_get(&r, &n_children) || r.left < 6) {
      err = wn_diag_set(diag, WN_ECORRUPT, "template: truncated at node %u of %u", i, count);
      goto out;
    }
    nodes[i].count = r.p[0];
    nodes[i].is_text = r.p[1];
    nodes[i].sig = (uint32_t)r.p[2] | ((uint32_t)r.p[3] << 8) | ((uint32_t)r.p[4] << 16) |
                   ((uint32_t)r.p[5] << 24);
    r.p += 6;
    r.left -= 6;
    if (i == 0) {
      nodes[i].parent = WN_DOM_NONE;
    } else {
      if (top == 0) {
        err = wn_diag_set(diag, WN_ECORRUPT, "template: node %u has no parent", i);
        goto out;
      }
      nodes[i].parent = stack[top - 1];
      if (--open[top - 1] == 0)
        top--;
    }
    if (n_children > count - 1 - i || (nodes[i].is_text && n_children)) {
      err = wn_diag_set(diag, WN_ECORRUPT, "template: node %u claims %u children", i, n_children);
      goto out;
    }
    if (n_children) {
      stack[top] = i;
      open[top] = n_children;
      top++;
    }
  }
  uint32_t pos[2] = {0, 0}; /* index + 1; 0: none */
  if (top == 0 && version >= 3 && (!wn_varint_get(&r, &pos[0]) || !wn_varint_get(&r, &pos[1]))) {
    err = wn_diag_set(diag, WN_ECORRUPT, "template: truncated metadata positions");
    goto out;
  }
  wn_template_places places = {.content = WN_DOM_NONE};
  if (top == 0 && version >= 4) {
    uint32_t content = 0;
    int ok = wn_varint_get(&r, &content) && r.left >= 1 && r.p[0] <= 1;
    if (ok) {
      places.whole = r.p[0];
      r.p++;
      r.left--;
      ok = wn_varint_get(&r, &places.n_skip);
    }
    if (!ok || places.n_skip > WN_TEMPLATE_MAX_SKIP || content > count) {
      err = wn_diag_set(diag, WN_ECORRUPT, "template: bad content places");
      goto out;
    }
    places.content = content ? content - 1 : WN_DOM_NONE;
    for (uint32_t k = 0; k < places.n_skip; k++)
      if (!wn_varint_get(&r, &places.skip[k])) {
        err = wn_diag_set(diag, WN_ECORRUPT, "template: truncated content places");
        goto out;
      }
    if (version >= 5) {
      if (!wn_varint_get(&r, &places.n_aside) || places.n_aside > WN_TEMPLATE_MAX_SKIP) {
        err = wn_diag_set(diag, WN_ECORRUPT, "template: bad content places (asides)");
        goto out;
      }
      for (uint32_t k = 0; k < places.n_aside; k++)
        if (!wn_varint_get(&r, &places.aside[k])) {
          err = wn_diag_set(diag, WN_ECORRUPT, "template: truncated content places (asides)");
          goto out;
        }
    }
  }
  uint8_t shape = 0;
  if (top == 0 && version >= 6) {
    if (r.left < 1 || r.p[0] > WN_TEMPLATE_MAX_SHAPE) {
      err = wn_diag_set(diag, WN_ECORRUPT, "template: bad site shape");
      goto out;
    }
    shape = r.p[0];
    r.p++;
    r.left--;
  }
  if (top != 0 || r.left != 0) {
    err = wn_diag_set(diag, WN_ECORRUPT, "template: %s", top ? "truncated tree" : "trailing bytes");
    goto out;
  }
  err = wn_template_from_nodes(nodes, count, sample_pages, min_count, out, diag);
  if (!err) {
    (*out)->selector = selector;
    (*out)->shape = shape;
    wn_template_positions p = {pos[0] ? pos[0] - 1 : WN_DOM_NONE, pos[1] ? pos[1] - 1 : WN_DOM_NONE};
    if ((pos[0] && pos[0] > count) || (pos[1] && pos[1] > count) ||
        wn_template_set_positions(*out, &p) != WN_OK) {
      wn_template_free(*out);
      *out = NULL;
      err = wn_diag_set(diag, WN_ECORRUPT, "template: a metadata position is not an element");
    } else if (wn_template_set_places(*out, &places) != WN_OK) {
      wn_template_free(*out);
      *out = NULL;
      err = wn_diag_set(diag, WN_ECORRUPT, "template: a content place is not an element inside the content");
    }
  }
out:
  free(nodes);
  free(open);
  free(stack);
  return err;
}

/* A site of one layout is encoded as that layout alone ("WNTP"), as
 * before layouts: older builds read it. Several: "WNTL", u8 version, varint
 * n, then n times varint length and that layout's "WNTP" bytes. */
#define WN_TEMPLATE_LAYOUTS_VERSION 1u

wn_err wn_template_encode(const wn_template *tpl, wn_buf *out, wn_diag *diag) {
  if (tpl->n_layouts == 0)
    return wn_template_encode_one(tpl, out, diag);
  wn_err err = WN_OK;
  wn_buf one;
  wn_buf_init(&one, out->cap ? out->cap : SIZE_MAX);
  const unsigned char head[5] = {'W', 'N', 'T', 'L', (unsigned char)WN_TEMPLATE_LAYOUTS_VERSION};
  if ((err = wn_buf_append(out, head, sizeof head)) ||
      (err = wn_varint_put(out, 1 + tpl->n_layouts)))
    goto out;
  for (uint32_t k = 0; k <= tpl->n_layouts; k++) {
    one.len = 0;
    if ((err = wn_template_encode_one(wn_template_layout(tpl, k), &one, diag)))
      goto out;
    if ((err = wn_varint_put(out, (uint32_t)one.len)) ||
        (err = wn_buf_append(out, one.data, one.len)))
      goto out;
  }
out:
  wn_buf_free(&one);
  if (err)
    wn_diag_set(diag, err, "template: cannot encode %u layouts: %s", 1 + tpl->n_layouts,
                wn_strerror(err));
  return err;
}

wn_err wn_template_decode(const void *bytes, size_t len, wn_template **out, wn_diag *diag) {
  *out = NULL;
  if (len < 5 || memcmp(bytes, "WNTL", 4) != 0)
    return wn_template_decode_one(bytes, len, out, diag);
  wn_reader r = {bytes, len};
  if (r.p[4] != WN_TEMPLATE_LAYOUTS_VERSION)
    return wn_diag_set(diag, WN_EVERSION,
                       "template: layouts format version %u is not supported (this build "
                       "reads %u)",
                       r.p[4], WN_TEMPLATE_LAYOUTS_VERSION);
  r.p += 5;
  r.left -= 5;
  uint32_t n = 0;
  if (!wn_varint_get(&r, &n) || n < 2 || n > WN_TEMPLATE_MAX_LAYOUTS)
    return wn_diag_set(diag, WN_ECORRUPT, "template: bad layout count (2 to %u)",
                       WN_TEMPLATE_MAX_LAYOUTS);
  wn_template *first = NULL;
  wn_err err = WN_OK;
  for (uint32_t k = 0; k < n; k++) {
    uint32_t one = 0;
    wn_template *t = NULL;
    if (!wn_varint_get(&r, &one) || one > r.left) {
      err = wn_diag_set(diag, WN_ECORRUPT, "template: layout %u of %u truncated", k + 1, n);
      goto out;
    }
    if ((err = wn_template_decode_one(r.p, one, &t, diag)))
      goto out;
    r.p += one;
    r.left -= one;
    if (k == 0)
      first = t;
    else
      wn_template_add_layout(first, t); /* k < n <= WN_TEMPLATE_MAX_LAYOUTS */
  }
  if (r.left != 0) {
    err = wn_diag_set(diag, WN_ECORRUPT, "template: trailing bytes after %u layouts", n);
    goto out;
  }
  *out = first;
  first = NULL;
out:
  wn_template_free(first);
  return err;
}

/* ---- the mapping ------------------------------------------------------------- */

uint32_t wn_template_align(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb,
                           uint32_t *pair, uint16_t *scratch) {
  uint32_t pairs = 0;
  for (uint32_t i = 0; i < na; i++)
    pair[i] = WN_DOM_NONE;
  /* Common prefix and suffix first: most child lists of one template agree
   * almost everywhere, and this keeps the quadratic part small. */
  uint32_t lo = 0;
  while (lo < na && lo < nb && a[lo] == b[lo]) {
    pair[lo] = lo;
    lo++;
    pairs++;
  }
  uint32_t ha = na, hb = nb;
  while (ha > lo && hb > lo && a[ha - 1] == b[hb - 1]) {
    ha--;
    hb--;
    pair[ha] = hb;
    pairs++;
  }
  uint32_t ma = ha - lo, mb = hb - lo;
  if (ma == 0 || mb == 0)
    return pairs;
  if (scratch && (uint64_t)ma * mb <= WN_TEMPLATE_LCS_CELLS) {
    /* Longest common subsequence; L[i][j] = LCS of a[lo+i..ha), b[lo+j..hb). */
    uint32_t w = mb + 1;
    for (uint32_t j = 0; j <= mb; j++)
      scratch[(size_t)ma * w + j] = 0;
    for (uint32_t i = ma; i-- > 0;) {
      scratch[(size_t)i * w + mb] = 0;
      for (uint32_t j = mb; j-- > 0;) {
        uint16_t v;
        if (a[lo + i] == b[lo + j])
          v = (uint16_t)(scratch[(size_t)(i + 1) * w + j + 1] + 1);
        else {
          uint16_t down = scratch[(size_t)(i + 1) * w + j];
          uint16_t right = scratch[(size_t)i * w + j + 1];
          v = down > right ? down : right;
        }
        scratch[(size_t)i * w + j] = v;
      }
    }
    uint32_t i = 0, j = 0;
    while (i < ma && j < mb) {
      if (a[lo + i] == b[lo + j] &&
          scratch[(size_t)i * w + j] == scratch[(size_t)(i + 1) * w + j + 1] + 1) {
        pair[lo + i] = lo + j;
        pairs++;
        i++;
        j++;
      } else if (scratch[(size_t)(i + 1) * w + j] >= scratch[(size_t)i * w + j + 1]) {
        i++;
      } else {
        j++;
      }
    }
    return pairs;
  }
  /* Too large for the table: greedy in-order pairing with a bounded look
   * ahead, linear in the list lengths. */
  uint32_t j = lo;
  for (uint32_t i = lo; i < ha && j < hb; i++) {
    uint32_t limit = hb - j < 64 ? hb : j + 64;
    for (uint32_t k = j; k < limit; k++) {
      if (a[i] == b[k]) {
        pair[i] = k;
        pairs++;
        j = k + 1;
        break;
      }
    }
  }
  return pairs;
}

/* Scratch of the mapping, grown as needed and reused across node pairs. */
typedef struct wn_etdm_scratch {
  uint32_t *a, *b, *a_index, *b_index, *pair;
  uint32_t list_cap;
  uint16_t *table;
  size_t table_cap;
  uint32_t *work; /* pending pairs (a, b) */
  uint32_t work_cap;
} wn_etdm_scratch;

static void wn_etdm_scratch_free(wn_etdm_scratch *s) {
  free(s->a);
  free(s->b);
  free(s->a_index);
  free(s->b_index);
  free(s->pair);
  free(s->table);
  free(s->work);
}

static int wn_etdm_reserve(wn_etdm_scratch *s, uint32_t n) {
  if (n <= s->list_cap)
    return 1;
  uint32_t cap = s->list_cap ? s->list_cap : 64;
  while (cap < n)
    cap *= 2;
  uint32_t **lists[] = {&s->a, &s->b, &s->a_index, &s->b_index, &s->pair};
  for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++) {
    uint32_t *grown = realloc(*lists[k], (size_t)cap * sizeof **lists[k]);
    if (!grown)
      return 0;
    *lists[k] = grown;
  }
  s->list_cap = cap;
  return 1;
}

wn_err wn_etdm_map(const wn_etdm_view *a, const wn_etdm_view *b, uint32_t *map, uint32_t *pairs_out) {
  wn_err err = WN_OK;
  wn_etdm_scratch s = {0};
  uint32_t pairs = 0;
  for (uint32_t i = 0; i < a->count; i++)
    map[i] = WN_DOM_NONE;
  *pairs_out = 0;
  if (a->count == 0 || b->count == 0 || a->sig(a->tree, 0) != b->sig(b->tree, 0))
    goto out;
  s.work_cap = 1024;
  s.work = malloc((size_t)s.work_cap * 2 * sizeof *s.work);
  if (!s.work) {
    err = WN_ENOMEM;
    goto out;
  }
  map[0] = 0;
  pairs = 1;
  uint32_t top = 0;
  s.work[top * 2] = 0;
  s.work[top * 2 + 1] = 0;
  top++;
  while (top > 0) {
    top--;
    uint32_t ia = s.work[top * 2], ib = s.work[top * 2 + 1];
    uint32_t na = a->n_children(a->tree, ia), nb = b->n_children(b->tree, ib);
    if (na == 0 || nb == 0)
      continue;
    if (!wn_etdm_reserve(&s, na > nb ? na : nb)) {
      err = WN_ENOMEM;
      goto out;
    }
    uint32_t k = 0;
    for (uint32_t c = a->first_child(a->tree, ia); c != WN_DOM_NONE; c = a->next_sibling(a->tree, c)) {
      s.a[k] = a->sig(a->tree, c);
      s.a_index[k++] = c;
    }
    k = 0;
    for (uint32_t c = b->first_child(b->tree, ib); c != WN_DOM_NONE; c = b->next_sibling(b->tree, c)) {
      s.b[k] = b->sig(b->tree, c);
      s.b_index[k++] = c;
    }
    /* The LCS table is needed only when the lists differ in the middle;
     * it is sized for the largest middle part align may tabulate. */
    uint16_t *table = NULL;
    if ((uint64_t)na * nb <= WN_TEMPLATE_LCS_CELLS) {
      size_t cells = (size_t)(na + 1u) * (nb + 1u);
      if (cells > s.table_cap) {
        uint16_t *grown = realloc(s.table, cells * sizeof *grown);
        if (!grown) {
          err = WN_ENOMEM;
          goto out;
        }
        s.table = grown;
        s.table_cap = cells;
      }
      table = s.table;
    }
    pairs += wn_template_align(s.a, na, s.b, nb, s.pair, table);
    for (uint32_t i = 0; i < na; i++) {
      if (s.pair[i] == WN_DOM_NONE)
        continue;
      uint32_t ca = s.a_index[i], cb = s.b_index[s.pair[i]];
      map[ca] = cb;
      if (a->first_child(a->tree, ca) == WN_DOM_NONE || b->first_child(b->tree, cb) == WN_DOM_NONE)
        continue;
      if (top == s.work_cap) {
        uint32_t *grown = realloc(s.work, (size_t)s.work_cap * 4 * sizeof *s.work);
        if (!grown) {
          err = WN_ENOMEM;
          goto out;
        }
        s.work = grown;
        s.work_cap *= 2;
      }
      s.work[top * 2] = ca;
      s.work[top * 2 + 1] = cb;
      top++;
    }
  }
  *pairs_out = pairs;
out:
  wn_etdm_scratch_free(&s);
  return err;
}

/* ---- views of the two kinds of tree ------------------------------------------ */

static uint32_t wn_dom_view_sig(const void *tree, uint32_t i) {
  return wn_template_fold(((const wn_dom_node *)tree)[i].sig);
}
static uint32_t wn_dom_view_first(const void *tree, uint32_t i) {
  return ((const wn_dom_node *)tree)[i].first_child;
}
static uint32_t wn_dom_view_next(const void *tree, uint32_t i) {
  return ((const wn_dom_node *)tree)[i].next_sibling;
}
static uint32_t wn_dom_view_n(const void *tree, uint32_t i) {
  return ((const wn_dom_node *)tree)[i].n_children;
}
static uint32_t wn_tpl_view_sig(const void *tree, uint32_t i) {
  return ((const wn_template_node *)tree)[i].sig;
}
static uint32_t wn_tpl_view_first(const void *tree, uint32_t i) {
  return ((const wn_template_node *)tree)[i].first_child;
}
static uint32_t wn_tpl_view_next(const void *tree, uint32_t i) {
  return ((const wn_template_node *)tree)[i].next_sibling;
}
static uint32_t wn_tpl_view_n(const void *tree, uint32_t i) {
  return ((const wn_template_node *)tree)[i].n_children;
}

wn_etdm_view wn_etdm_view_of_page(const wn_dom_page *page) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  wn_etdm_view v = {nodes, count, wn_dom_view_sig, wn_dom_view_first, wn_dom_view_next,
                    wn_dom_view_n};
  return v;
}

wn_etdm_view wn_etdm_view_of_template(const wn_template *tpl) {
  wn_etdm_view v = {tpl->nodes, tpl->count, wn_tpl_view_sig, wn_tpl_view_first,
                    wn_tpl_view_next, wn_tpl_view_n};
  return v;
}

wn_err wn_template_match(const wn_template *tpl, const wn_dom_page *page, uint32_t *map,
                         uint32_t *pairs) {
  wn_etdm_view a = wn_etdm_view_of_page(page);
  wn_etdm_view b = wn_etdm_view_of_template(tpl);
  return wn_etdm_map(&a, &b, map, pairs);
}
