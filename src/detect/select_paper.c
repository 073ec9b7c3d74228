/*
 * detect/select_paper.c: WN_SELECT_PAPER, Algorithms 2 to 5 of the
 * site-level paper as stated: candidates are the unmapped nodes, the
 * branch is the parent of a reduced candidate with the largest subtree.
 */
#include "detect/detect.h"
#include "detect/detect_int.h"

#include <stdlib.h>

wn_err wn_detect_select_paper(const wn_dom_page *page, wn_detect_labels *l,
                              wn_detect_result *res) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint32_t *set = malloc(((size_t)count + 1) * sizeof *set);
  if (!set)
    return WN_ENOMEM;
  for (uint32_t i = 0; i < count; i++)
    l->cand[i] = !l->mapped[i];
  uint32_t n = wn_detect_reduce(page, l->cand, set);
  uint32_t branch = wn_detect_branch(page, set, n);
  if (l->trace)
    l->trace->branch = branch;
  n = wn_detect_discard(page, branch, set, n);
  n = wn_detect_group(page, set, n);
  for (uint32_t k = 0; k < n; k++)
    for (uint32_t i = set[k]; i < nodes[set[k]].end; i++)
      if (nodes[i].tag == WN_TAG_TEXT)
        res->keep[i] = 1;
  res->selected = set;
  res->n_selected = n;
  return WN_OK;
}
