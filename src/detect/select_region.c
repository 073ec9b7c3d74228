/*
 * detect/select_region.c: WN_SELECT_REGION trusts the template: the
 * page's largest page-specific region is the content, whole, lists of
 * links included. For sites whose operator knows that everything outside
 * the template is content.
 */
#include "detect/detect.h"
#include "detect/detect_int.h"

#include <stdlib.h>

/*
 * The paper's Algorithms 2 to 5 on the lifted candidates, with two
 * changes that make "largest region" mean what a reader means:
 *  - Algorithm 3 weighs a reduced candidate by its page-specific text, not
 *    its node count, so a long table of contents outweighs a deep but
 *    empty widget;
 *  - Algorithm 4 keeps, besides that largest region, only the reduced
 *    candidates that are its siblings (children of the branch), not every
 *    candidate deeper inside the branch. A page-specific slot inside a
 *    template box (the current chapter's title in a navigation bar, the
 *    "next page" title in a footer) hangs below a mapped box, not beside
 *    the content, and stays out.
 * Within what is kept, only page-specific text is rendered (as in the cue
 * selector): no link box is dropped, because on such sites an index or a
 * table of contents is the page's content.
 */
wn_err wn_detect_select_region(const wn_dom_page *page, const wn_detect_labels *l,
                               wn_detect_result *res) {
  wn_err err = WN_OK;
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint32_t *set = malloc(((size_t)count + 1) * sizeof *set);
  uint32_t *ctext = calloc((size_t)count + 1, sizeof *ctext); /* candidate text */
  if (!set || !ctext) {
    err = WN_ENOMEM;
    goto out;
  }
  for (uint32_t i = count; i-- > 0;) {
    if (nodes[i].tag == WN_TAG_TEXT && l->cand[i])
      ctext[i] = nodes[i].own_text_len;
    if (nodes[i].parent != WN_DOM_NONE)
      ctext[nodes[i].parent] += ctext[i];
  }
  uint32_t n = wn_detect_reduce(page, l->cand, set);
  uint32_t largest = WN_DOM_NONE;
  for (uint32_t k = 0; k < n; k++) /* strict >: the first on a tie */
    if (ctext[set[k]] > 0 && (largest == WN_DOM_NONE || ctext[set[k]] > ctext[largest]))
      largest = set[k];
  uint32_t kept = 0;
  if (l->trace) {
    l->trace->core = largest;
    l->trace->branch = largest == WN_DOM_NONE ? WN_DOM_NONE : nodes[largest].parent;
  }
  if (largest != WN_DOM_NONE) {
    uint32_t branch = nodes[largest].parent;
    for (uint32_t k = 0; k < n; k++)
      if (set[k] == largest ||
          (branch != WN_DOM_NONE && nodes[set[k]].parent == branch && ctext[set[k]] > 0))
        set[kept++] = set[k];
  }
  for (uint32_t k = 0; k < kept; k++)
    for (uint32_t i = set[k]; i < nodes[set[k]].end; i++)
      if (nodes[i].tag == WN_TAG_TEXT)
        res->keep[i] = l->cand[i];
  kept = wn_detect_group(page, set, kept);
  res->selected = set;
  res->n_selected = kept;
  set = NULL;
out:
  free(set);
  free(ctext);
  return err;
}
