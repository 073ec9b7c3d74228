/*
 * detect/single.c: the single-page methods' common part. A method (cnr.c,
 * danag.c) marks the text nodes of the main content in res->keep; this
 * file turns that into the result every renderer reads: the selected
 * subtree roots and the per-node "not content" flags.
 */
#include "detect/single_int.h"

#include <stdlib.h>
#include <string.h>

const char *wn_single_method_name(wn_single_method method) {
  switch (method) {
  case WN_SINGLE_CNR:
    return "cnr";
  case WN_SINGLE_DANAG:
    return "danag";
  }
  return NULL;
}

int wn_single_method_parse(const char *name, wn_single_method *out) {
  if (!name)
    return -1;
  if (strcmp(name, "cnr") == 0) {
    *out = WN_SINGLE_CNR;
    return 0;
  }
  if (strcmp(name, "danag") == 0) {
    *out = WN_SINGLE_DANAG;
    return 0;
  }
  return -1;
}

uint32_t wn_single_chars(const char *text, uint32_t len) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)text[i];
    /* UTF-8 continuation bytes belong to the character before them. */
    if ((c & 0xC0u) == 0x80u || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f')
      continue;
    n++;
  }
  return n;
}

/*
 * From keep[] to the selection: the selected roots are the maximal
 * subtrees all of whose text nodes are kept (and that hold one), so that
 * render_html shows the content's own elements and no neighbour; an
 * element is "not content" (tmpl) when no kept text lies below it.
 * One reverse pass for the subtree facts, one forward pass for the roots.
 */
static wn_err wn_single_finish(const wn_dom_node *nodes, uint32_t count, wn_detect_result *res) {
  uint8_t *all = malloc(count ? count : 1);   /* every text below is kept */
  uint8_t *any = calloc(count ? count : 1, 1); /* some text below is kept */
  uint32_t *sel = malloc(((size_t)count + 1) * sizeof *sel);
  wn_err err = WN_OK;
  if (!all || !any || !sel) {
    err = WN_ENOMEM;
    goto out;
  }
  memset(all, 1, count);
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
  for (uint32_t i = 0; i < count; i++)
    res->tmpl[i] = !any[i];
  res->selected = sel;
  res->n_selected = n;
  sel = NULL;
out:
  free(all);
  free(any);
  free(sel);
  return err;
}

uint32_t wn_single_default_steps(wn_single_method method) {
  switch (method) {
  case WN_SINGLE_CNR:
    return WN_SINGLE_STEPS_PAPER;
  case WN_SINGLE_DANAG:
    return WN_SINGLE_STEPS_PAPER;
  }
  return 0;
}

wn_err wn_detect_single_steps(const wn_dom_page *page, wn_single_method method, uint32_t steps,
                              wn_detect_result **out, wn_diag *diag) {
  wn_err err = WN_OK;
  *out = NULL;
  const char *name = wn_single_method_name(method);
  if (!page || !name)
    return wn_diag_set(diag, WN_EINVAL, "detect: unknown single-page method %d", (int)method);
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  wn_detect_result *res = wn_detect_result_alloc(count, name);
  if (!res) {
    err = wn_diag_set(diag, WN_ENOMEM, "detect: out of memory for %u nodes", count);
    goto out;
  }
  err = method == WN_SINGLE_CNR ? wn_cnr_select(page, steps, res)
                                : wn_danag_select(page, steps, res);
  if (!err)
    err = wn_single_finish(nodes, count, res);
  if (err) {
    wn_diag_set(diag, err, "detect: %s: %s", name, wn_strerror(err));
    goto out;
  }
  *out = res;
  res = NULL;
out:
  wn_detect_result_free(res);
  return err;
}

wn_err wn_detect_single(const wn_dom_page *page, wn_single_method method,
                        wn_detect_result **out, wn_diag *diag) {
  return wn_detect_single_steps(page, method, wn_single_default_steps(method), out, diag);
}
