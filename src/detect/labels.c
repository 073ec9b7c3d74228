/*
 * detect/labels.c: match a page against its site's template (the ETDM
 * mapping of the site-level paper, Sec. 2.2, in src/template), the match
 * confidence, and the labels the selectors start from: mapped (template)
 * and candidate (main content, maybe) per page node.
 */
#include "detect/detect.h"
#include "detect/detect_int.h"

#include <stdlib.h>
#include <string.h>

wn_err wn_detect_label_match(const wn_dom_page *page, const wn_template *tpl,
                             wn_detect_labels *l, double *confidence, wn_diag *diag) {
  wn_err err = WN_OK;
  uint32_t count = 0, tcount = 0;
  wn_dom_nodes(page, &count);
  const wn_template_node *tnodes = wn_template_nodes(tpl, &tcount);
  uint32_t *map = l->tmap ? l->tmap : malloc(((size_t)count + 1) * sizeof *map);
  uint8_t *seen = calloc((size_t)tcount + 1, 1);
  if (!map || !seen) {
    err = wn_diag_set(diag, WN_ENOMEM, "detect: out of memory for %u nodes", count);
    goto out;
  }
  uint32_t pairs = 0;
  if (l->premap)
    memcpy(map, l->premap, (size_t)count * sizeof *map);
  else
    err = wn_template_match(tpl, page, map, &pairs);
  if (err) {
    wn_diag_set(diag, err, "detect: matching the page against the template failed");
    goto out;
  }
  /* Confidence: the share of the template, weighted by how many sample
   * pages held each node, that this page reproduces. */
  double have = 0, total = 0;
  for (uint32_t i = 0; i < count; i++) {
    l->mapped[i] = map[i] != WN_DOM_NONE;
    if (l->mapped[i])
      seen[map[i]] = 1;
  }
  for (uint32_t t = 0; t < tcount; t++) {
    total += tnodes[t].count;
    if (seen[t])
      have += tnodes[t].count;
  }
  *confidence = total > 0 ? have / total : 0;
  if (l->trace)
    memcpy(l->trace->tmpl_node, map, (size_t)count * sizeof *map);
out:
  if (map != l->tmap)
    free(map);
  free(seen);
  return err;
}

/*
 * Candidates for the cue selector. The paper's candidates are the unmapped
 * nodes. With node equality on tag, id and class, the article's <p> of two
 * pages are equal and mapped while their texts are not, so the paper's
 * rule would leave bare text nodes as candidates and Algorithm 3 would pick
 * one paragraph. We lift: an element is a candidate if it is unmapped, or
 * if it holds text and every child holding text is a candidate (it carries
 * only page-specific text). Candidates still form whole subtrees
 * (Theorem 1), which Algorithm 2 relies on.
 */
void wn_detect_label_lifted(const wn_dom_page *page, wn_detect_labels *l) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint8_t *all = l->cand; /* reuse: all text-holding children are candidates */
  for (uint32_t i = 0; i < count; i++)
    all[i] = 1;
  for (uint32_t i = count; i-- > 0;) {
    uint8_t c;
    if (nodes[i].tag == WN_TAG_TEXT || nodes[i].text_len == 0)
      c = !l->mapped[i];
    else
      c = !l->mapped[i] || all[i];
    l->cand[i] = c;
    uint32_t p = nodes[i].parent;
    if (p != WN_DOM_NONE && nodes[i].text_len > 0 && !c)
      all[p] = 0;
  }
  /* all[] and cand[] share storage: a parent's flag is read only after all
   * its children (higher indices) were labelled, and cand[i] overwrites
   * all[i] only once i is done. */
}
