/*
 * detect/site_algorithms.c: the steps of the site-level paper
 * (Algorithms 2 to 5 of "Main Content Extraction from Heterogeneous
 * Webpages", Alarte, Insa, Silva and Tamarit) on a candidate set, and
 * the one link-box rule shared by the cue selector and the
 * single-page methods. Nothing here knows about templates or methods: the
 * selectors (select_*.c) and single-page methods (single.c) call in.
 */
#include "detect/detect.h"
#include "detect/detect_int.h"

#include <stdlib.h>
#include <string.h>

/* Algorithm 2: by Theorem 1 the candidates form whole subtrees, so a
 * candidate belongs to the reduced set iff its parent is no candidate; one
 * pass in document order, no climbing. */
static uint32_t wn_reduce_nodes(const wn_dom_node *nodes, uint32_t count, const uint8_t *cand,
                                uint32_t *reduced) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < count; i++) {
    if (!cand[i])
      continue;
    uint32_t p = nodes[i].parent;
    if (p == WN_DOM_NONE || !cand[p])
      reduced[n++] = i;
  }
  return n;
}

uint32_t wn_detect_reduce(const wn_dom_page *page, const uint8_t *cand, uint32_t *reduced) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  return wn_reduce_nodes(nodes, count, cand, reduced);
}

uint32_t wn_detect_branch(const wn_dom_page *page, const uint32_t *reduced, uint32_t n) {
  const wn_dom_node *nodes = wn_dom_nodes(page, NULL);
  uint32_t branch = WN_DOM_NONE, best = 0;
  /* Algorithm 3: the parent with the largest subtree; a strict > keeps the
   * first in document order on a tie, as the paper asks. */
  for (uint32_t k = 0; k < n; k++) {
    uint32_t p = nodes[reduced[k]].parent;
    if (p == WN_DOM_NONE)
      p = reduced[k]; /* the root itself is a candidate: it is its own branch */
    uint32_t size = nodes[p].end - p;
    if (size > best) {
      best = size;
      branch = p;
    }
  }
  return branch;
}

uint32_t wn_detect_discard(const wn_dom_page *page, uint32_t branch, uint32_t *reduced,
                           uint32_t n) {
  if (branch == WN_DOM_NONE)
    return 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, NULL);
  uint32_t kept = 0;
  /* Algorithm 4: a node is in the branch iff its index lies in the
   * branch's pre-order range. */
  for (uint32_t k = 0; k < n; k++)
    if (reduced[k] >= branch && reduced[k] < nodes[branch].end)
      reduced[kept++] = reduced[k];
  return kept;
}

typedef struct wn_member {
  uint32_t parent;
  uint32_t node;
} wn_member;

static int wn_cmp_member(const void *a, const void *b) {
  const wn_member *x = a, *y = b;
  if (x->parent != y->parent)
    return x->parent < y->parent ? -1 : 1;
  return x->node < y->node ? -1 : x->node > y->node;
}

uint32_t wn_detect_group(const wn_dom_page *page, uint32_t *set, uint32_t n) {
  const wn_dom_node *nodes = wn_dom_nodes(page, NULL);
  wn_member *m = malloc(((size_t)n + 1) * sizeof *m);
  if (!m)
    return n; /* out of memory: the set stays ungrouped, still correct */
  /* Algorithm 5, to a fixed point: siblings are replaced by their parent;
   * a parent brought in this way absorbs members of its subtree. Sorting
   * by parent finds the siblings in O(n log n) a round; each round lifts at
   * least one node a level, so rounds are bounded by the depth. */
  int changed = 1;
  while (changed && n > 1) {
    changed = 0;
    for (uint32_t k = 0; k < n; k++) {
      m[k].parent = nodes[set[k]].parent;
      m[k].node = set[k];
    }
    qsort(m, n, sizeof *m, wn_cmp_member);
    for (uint32_t k = 0; k < n; k++) {
      int sibling = m[k].parent != WN_DOM_NONE &&
                    ((k > 0 && m[k - 1].parent == m[k].parent) ||
                     (k + 1 < n && m[k + 1].parent == m[k].parent));
      set[k] = sibling ? m[k].parent : m[k].node;
      changed |= sibling;
    }
    qsort(set, n, sizeof *set, wn_u32_cmp);
    /* Drop duplicates and members inside an earlier member's subtree. */
    uint32_t out = 0;
    for (uint32_t k = 0; k < n; k++) {
      if (out > 0 && set[k] < nodes[set[out - 1]].end)
        continue;
      set[out++] = set[k];
    }
    n = out;
  }
  if (n > 1)
    qsort(set, n, sizeof *set, wn_u32_cmp);
  free(m);
  return n;
}

/* ---- the link-box rule ------------------------------------------------------ */

/* A box with one link is a byline or a credit, not a list of links: it is
 * judged like a single block. */
#define WN_DETECT_BOX_MIN_LINKS 2u

/* A container (a box of its own: table, list, div...) inside the content
 * that is this much link text is a box of links with blurbs (related
 * stories, "full coverage"); a single block (a paragraph, a list item) must
 * be mostly links to be dropped, so that prose with inline links stays.
 * The one link-box rule: the single-page methods use it too (single.c). */
double wn_detect_link_limit(uint8_t tag, uint32_t links) {
  switch (tag) {
  case WN_TAG_TABLE: case WN_TAG_TBODY: case WN_TAG_TR: case WN_TAG_TD:
  case WN_TAG_UL: case WN_TAG_OL: case WN_TAG_DL: case WN_TAG_DIV:
  case WN_TAG_SECTION: case WN_TAG_ASIDE: case WN_TAG_NAV: case WN_TAG_FORM:
  case WN_TAG_CENTER: case WN_TAG_HEADER: case WN_TAG_FOOTER:
    if (links >= WN_DETECT_BOX_MIN_LINKS)
      return WN_DETECT_MAX_BOX_LINK_DENSITY;
    return WN_DETECT_MAX_LINK_DENSITY;
  default:
    return WN_DETECT_MAX_LINK_DENSITY;
  }
}

/*
 * Permalink marks. Documentation generators and blogs put a link to the
 * heading's own anchor inside or beside it, showing only a symbol: Sphinx's
 * "¶" headerlink, "#" or "§" anchors, a link emoji. It is a control of the
 * page, not text of the content: a link to a fragment of the page itself
 * whose whole text is one such mark is left out of every text output.
 * Marks, not names: the symbol is what a reader sees.
 */
static int wn_detect_is_mark(const char *s, uint32_t len) {
  static const char *const marks[] = {
      "\xc2\xb6",         /* ¶ */
      "\xc2\xa7",         /* § */
      "#",
      "\xf0\x9f\x94\x97", /* U+1F517 link symbol */
      "\xe2\x9a\x93",     /* U+2693 anchor */
  };
  while (len && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r'))
    s++, len--;
  while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\n' ||
                 s[len - 1] == '\r'))
    len--;
  for (size_t k = 0; k < sizeof marks / sizeof *marks; k++)
    if (strlen(marks[k]) == len && memcmp(s, marks[k], len) == 0)
      return 1;
  return 0;
}

/*
 * Button labels. A <button> of a few words is a control: "Read more",
 * "Share", "Add to cart", "Sign in". A reader presses it and does not read
 * it as the page's text; the single-page area reads buttons as frame
 * already (area.c), the template and Readability's reading may keep them.
 * Sites also make whole cards, and an FAQ's questions, buttons: a label
 * of WN_DETECT_CONTROL_LABEL bytes or more is left as the methods kept it.
 */
#define WN_DETECT_CONTROL_LABEL 20u

void wn_detect_drop_controls(const wn_dom_page *page, wn_detect_result *res) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  for (uint32_t i = 0; i < count; i++) {
    const wn_dom_node *n = &nodes[i];
    if (n->tag == WN_TAG_BUTTON && n->text_len < WN_DETECT_CONTROL_LABEL) {
      memset(res->keep + i, 0, n->end - i);
      i = n->end - 1;
      continue;
    }
    if (n->tag != WN_TAG_A || n->text_len == 0 || n->text_len > 8)
      continue;
    const char *href = wn_dom_attr(page, n, "href");
    if (!href || href[0] != '#')
      continue;
    /* The link's text is one text node (a mark is never split). */
    uint32_t t = WN_DOM_NONE, texts = 0;
    for (uint32_t j = i + 1; j < n->end; j++)
      if (nodes[j].tag == WN_TAG_TEXT && nodes[j].own_text_len) {
        t = j;
        texts++;
      }
    if (texts == 1 && wn_detect_is_mark(nodes[t].text, nodes[t].own_text_len))
      res->keep[t] = 0;
  }
}
