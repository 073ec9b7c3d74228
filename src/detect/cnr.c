/*
 * detect/cnr.c: the chars-nodes ratio method (../shared/papers/
 * cnr-chars-nodes-ratio.txt), on the compact tree.
 *
 *   (i)   Algorithm 1: per node, chars / nodes of its subtree;
 *   (ii)  the top-rated nodes, lifted to blocks by Algorithm 2;
 *   (iii) the block with most text is the main content.
 *
 * The compact tree holds nodes in preorder, so Algorithm 1's recursion is
 * one pass in reverse preorder (every child before its parent) and
 * Algorithm 2 is wn_detect_group (the site-level paper's Algorithm 5,
 * which is the same fixed point: drop descendants, replace siblings by
 * their parent until no two share one).
 */
#include "detect/single_int.h"

#include <stdlib.h>
#include <string.h>

/* Sec. IV: "nonContentNode", weight 1 and no text: nodes without text
 * (img), and nodes mainly used for menus (nav and a). Script, style, svg,
 * video and the like never reach the compact tree. */
static int wn_cnr_non_content(const wn_dom_node *n) {
  if (n->tag == WN_TAG_TEXT)
    return 0;
  return n->text_len == 0 || n->tag == WN_TAG_A || n->tag == WN_TAG_NAV;
}

void wn_cnr_ratios(const wn_dom_page *page, uint32_t *weight, uint32_t *chars, double *ratio) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  memset(weight, 0, (size_t)count * sizeof *weight);
  memset(chars, 0, (size_t)count * sizeof *chars);
  /* Algorithm 1, bottom-up: weight[] and chars[] first collect the sums of
   * the children (higher indices, already final), then the node's own
   * case of the algorithm's switch sets its values. */
  for (uint32_t i = count; i-- > 0;) {
    const wn_dom_node *n = &nodes[i];
    if (n->tag == WN_TAG_TEXT) {
      weight[i] = 1;
      chars[i] = wn_single_chars(n->text, n->own_text_len);
    } else if (wn_cnr_non_content(n)) {
      weight[i] = 1;
      chars[i] = 0;
    } else {
      weight[i] += 1; /* "descendants = 1" counts the node itself */
    }
    ratio[i] = (double)chars[i] / (double)weight[i];
    if (n->parent != WN_DOM_NONE) {
      weight[n->parent] += weight[i];
      chars[n->parent] += chars[i];
    }
  }
}

/* Step (ii), "those nodes with a higher CNR": the paper leaves the
 * threshold to a parameter of its tool. We take the nodes whose ratio is
 * at least WN_CNR_TOP times that of <body>, the page's own average, so
 * that the threshold follows the page (measured on crawl-to-the-future,
 * README). */
#define WN_CNR_TOP 2.0

wn_err wn_cnr_select(const wn_dom_page *page, uint32_t steps, wn_detect_result *res) {
  (void)steps;
  wn_err err = WN_OK;
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint32_t *weight = malloc(((size_t)count + 1) * sizeof *weight);
  uint32_t *chars = malloc(((size_t)count + 1) * sizeof *chars);
  double *ratio = malloc(((size_t)count + 1) * sizeof *ratio);
  uint32_t *set = malloc(((size_t)count + 1) * sizeof *set);
  if (!weight || !chars || !ratio || !set) {
    err = WN_ENOMEM;
    goto out;
  }
  uint32_t body = wn_dom_body(page);
  if (body == WN_DOM_NONE)
    body = 0;
  if (count == 0)
    goto out;
  wn_cnr_ratios(page, weight, chars, ratio);
  if (chars[body] == 0)
    goto out; /* no text: nothing is selected (detect.h) */
  double top = WN_CNR_TOP;
  const char *env = getenv("WN_CNR_TOP");
  if (env)
    top = strtod(env, NULL);
  double threshold = top * ratio[body];
  uint32_t n = 0;
  for (uint32_t i = body; i < nodes[body].end; i++)
    if (chars[i] > 0 && ratio[i] >= threshold)
      set[n++] = i;
  /* Algorithm 2: descendants out, siblings lifted to their parent. */
  n = wn_detect_group(page, set, n);
  /* Step (iii): the block with most text (first on a tie). */
  uint32_t block = WN_DOM_NONE;
  for (uint32_t k = 0; k < n; k++)
    if (block == WN_DOM_NONE || chars[set[k]] > chars[block])
      block = set[k];
  if (block == WN_DOM_NONE)
    goto out;
  /* "All the nodes of this container are part of the final block." */
  for (uint32_t i = block; i < nodes[block].end; i++)
    if (nodes[i].tag == WN_TAG_TEXT)
      res->keep[i] = 1;
out:
  free(weight);
  free(chars);
  free(ratio);
  free(set);
  return err;
}
