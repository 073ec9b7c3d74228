/*
 * detect/result.c: the result every method fills (detect_int.h), its
 * allocation and the accessors of detect.h.
 */
#include "detect/detect.h"
#include "detect/detect_int.h"

#include <stdlib.h>
#include <string.h>

#include "dom/dom.h"

wn_detect_result *wn_detect_result_alloc(uint32_t count, const char *method) {
  /* One allocation: the result, then its two per-node arrays. */
  const size_t n = count ? count : 1;
  wn_detect_result *res = calloc(1, sizeof *res + 2 * n);
  if (!res)
    return NULL;
  res->tmpl = (uint8_t *)(res + 1);
  res->keep = res->tmpl + n;
  res->count = count;
  res->method = method;
  return res;
}

wn_err wn_detect_result_select(const wn_dom_page *page, wn_detect_result *res, uint8_t *kept_below) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  const size_t cells = count ? count : 1;
  uint8_t *all = malloc(2 * cells);       /* every text below is kept */
  uint8_t *any = all ? all + cells : NULL; /* some text below is kept */
  uint32_t *sel = malloc(((size_t)count + 1) * sizeof *sel);
  wn_err err = WN_OK;
  if (!all || !sel) {
    err = WN_ENOMEM;
    goto out;
  }
  memset(all, 1, count);
  memset(any, 0, count);
  for (uint32_t i = count; i-- > 0;) {
    if (nodes[i].tag == WN_TAG_TEXT) {
      any[i] = res->keep[i];
      all[i] = res->keep[i];
    }
    uint32_t p = nodes[i].parent;
    if (p != WN_DOM_NONE) {
      any[p] |= any[i];
      all[p] &= all[i];
    }
  }
  uint32_t n = 0;
  for (uint32_t i = 0; i < count;) {
    if (any[i] && all[i]) {
      sel[n++] = i;
      i = nodes[i].end; /* the whole subtree is in; skip it */
      continue;
    }
    i++;
  }
  if (kept_below)
    memcpy(kept_below, any, count);
  free(res->selected);
  res->selected = sel;
  res->n_selected = n;
  sel = NULL;
out:
  free(all);
  free(sel);
  return err;
}

wn_err wn_detect_result_drop_tables(const wn_dom_page *page, wn_detect_result *res) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  if (count != res->count)
    return WN_EINVAL;
  int dropped = 0;
  for (uint32_t i = 0; i < count;) {
    if (nodes[i].tag == WN_TAG_TABLE && wn_dom_data_table(page, i)) {
      for (uint32_t j = i; j < nodes[i].end; j++)
        if (res->keep[j]) {
          res->keep[j] = 0;
          dropped = 1;
        }
      i = nodes[i].end;
      continue;
    }
    i++;
  }
  return dropped ? wn_detect_result_select(page, res, NULL) : WN_OK;
}

void wn_detect_result_free(wn_detect_result *result) {
  if (!result)
    return;
  free(result->selected);
  free(result->body_text);
  free(result);
}

wn_detect_fallback wn_detect_fallback_reason(const wn_detect_result *result) {
  return result->fallback;
}

double wn_detect_confidence(const wn_detect_result *result) { return result->confidence; }
const char *wn_detect_result_retried(const wn_detect_result *result) { return result->retried; }
int wn_detect_result_has_body(const wn_detect_result *result) {
  return result->body_text && result->body_text[0];
}
const char *wn_detect_result_place(const wn_detect_result *result) { return result->place; }
uint32_t wn_detect_result_layout(const wn_detect_result *result) { return result->layout; }
const char *wn_detect_method(const wn_detect_result *result) { return result->method; }
const uint32_t *wn_detect_selected(const wn_detect_result *result, uint32_t *count) {
  if (count)
    *count = result->n_selected;
  return result->selected;
}
const uint8_t *wn_detect_template_flags(const wn_detect_result *result) { return result->tmpl; }
