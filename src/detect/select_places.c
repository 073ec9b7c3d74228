/*
 * detect/select_places.c: WN_SELECT_PLACES, content at the place the site
 * keeps it, and the sample view learning finds that place from.
 *
 * The cue selector chooses page by page with single-page cues: on a blog
 * post with a long comment thread it may take the thread, on a short post
 * a teaser list beside it, on a manual it drops an index that is all links.
 * A site-level tool can do better: at learn time (src/learn/places.c) the
 * cue selector is run on every sample page, and the template element that
 * held what it kept on most of them is the site's content place; elements
 * inside it whose page-specific text it left out on most samples (a
 * comment list, a "more stories" box: the same structure on every page,
 * other text) are places to skip. Where one sample went wrong, the others
 * outvote it; elements beside it that the samples agree are not content
 * are asides. At detect time, with the page's element paired with the
 * content place, the cue selector runs on the whole page first:
 *  - when it kept mostly text outside the place, more than the place
 *    holds, and not in the asides, the page's content is not where the
 *    samples had it (the page does not fit): the single-page method
 *    (DANAg) reads it, only its page-specific text kept;
 *  - else, on a site whose place held nothing but content on the samples
 *    (the cue selector kept nearly all of its text: manuals, references),
 *    the region selector inside the place: lists of links and tables
 *    kept, HTML5 <aside> boxes left out, and the cue selector's text
 *    taken back where the largest region holds less than half of it;
 *  - else its choice, made again inside the place when it kept an aside
 *    (a comment thread, a teaser list beside a short post); the skipped
 *    places are left out.
 * A page that does not pair the place, or holds no page-specific text
 * there, is one the places do not describe: the cue selector serves it.
 * (Not the single-page method with the template as its filter: on a
 * short post with no element at the place, it takes the reader comments
 * under it for the post; CHANGELOG.md has the figures.)
 * Last, on every page but those the single-page method read, the story
 * past the place (wn_places_continue): where DANAg's run of lines carries
 * the story on past what was chosen, the rest of the run comes in.
 *
 * The default selector (docs/design.md, "Content places"; figures in
 * docs/evaluation.md): better than the cue selector alone on both news
 * corpora (both folds) and on the manuals; where it still loses pages, a
 * place judged whole keeps a page-specific box the samples never showed,
 * which the cue selector drops.
 */
#include "detect/detect.h"
#include "detect/detect_int.h"
#include "detect/single_int.h"

#include <stdlib.h>
#include <string.h>

wn_err wn_detect_sample(const wn_dom_page *page, const wn_template *tpl, uint32_t *map,
                        uint8_t *cand, uint8_t *keep, wn_diag *diag) {
  wn_err err = WN_OK;
  uint32_t count = 0;
  wn_dom_nodes(page, &count);
  wn_detect_labels l = {0};
  wn_detect_result *res = wn_detect_result_alloc(count, "template");
  l.mapped = malloc((size_t)count + 1);
  l.cand = cand;
  if (!res || !l.mapped) {
    err = wn_diag_set(diag, WN_ENOMEM, "learn: out of memory for %u nodes", count);
    goto out;
  }
  uint32_t pairs = 0;
  if ((err = wn_template_match(tpl, page, map, &pairs))) {
    wn_diag_set(diag, err, "learn: matching a sample page against the template failed");
    goto out;
  }
  for (uint32_t i = 0; i < count; i++)
    l.mapped[i] = map[i] != WN_DOM_NONE;
  wn_detect_label_lifted(page, &l);
  if ((err = wn_detect_select_cues(page, &l, res))) {
    wn_diag_set(diag, err, "learn: out of memory selecting a sample page's content");
    goto out;
  }
  memcpy(keep, res->keep, count);
out:
  free(l.mapped);
  wn_detect_result_free(res);
  return err;
}

/* The page element paired with the content place, or WN_DOM_NONE. The
 * ETDM pairs a template node with at most one page node. */
static uint32_t wn_places_find(const uint32_t *tmap, uint32_t count, uint32_t tnode) {
  for (uint32_t i = 0; i < count; i++)
    if (tmap[i] == tnode)
      return i;
  return WN_DOM_NONE;
}

/* t (a template node or WN_DOM_NONE) is one of the place's asides. */
static int wn_places_is_aside(const wn_template_places *pl, uint32_t t) {
  for (uint32_t k = 0; t != WN_DOM_NONE && k < pl->n_aside; k++)
    if (pl->aside[k] == t)
      return 1;
  return 0;
}

/* The kept text that lies in the place's asides: what the samples agree
 * is not content. (Not the skipped places inside it: text kept there by
 * a page whose content lies outside the place says the page's layout
 * moved, measured on news pages whose story moved into a box that held
 * teasers on the samples.) */
static uint64_t wn_places_aside_text(const wn_dom_page *page, const uint32_t *tmap,
                                     const wn_template_places *pl, const uint8_t *keep) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint64_t known = 0;
  for (uint32_t i = 0; i < count; i++) {
    if (!wn_places_is_aside(pl, tmap[i]))
      continue;
    for (uint32_t j = i; j < nodes[i].end; j++)
      known += keep[j] ? nodes[j].own_text_len : 0;
    i = nodes[i].end - 1;
  }
  return known;
}

/* An element of ARIA role complementary, or an <aside> that is not a
 * footnote nor holds footnotes (ARIA role note: Sphinx's footnote list
 * is an <aside> of <aside role="note">s). */
static int wn_places_tangential(const wn_dom_page *page, const wn_dom_node *nodes, uint32_t i) {
  const char *role = wn_dom_attr(page, &nodes[i], "role");
  if (role && strcmp(role, "complementary") == 0)
    return 1;
  if (nodes[i].tag != WN_TAG_ASIDE)
    return 0;
  for (uint32_t j = i; j < nodes[i].end; j++) {
    role = nodes[j].tag == WN_TAG_TEXT ? NULL : wn_dom_attr(page, &nodes[j], "role");
    if (role && strcmp(role, "note") == 0)
      return 0;
  }
  return 1;
}

/* out[i]: a candidate inside the place, outside its skipped places. */
static void wn_places_candidates(uint32_t count, const uint8_t *in, const uint8_t *cand,
                                 uint8_t *out) {
  for (uint32_t i = 0; i < count; i++)
    out[i] = in[i] == 1 && cand[i];
}

/* mark: exactly the nodes of res's selected subtrees. */
static void wn_places_mark_selected(const wn_dom_node *nodes, uint32_t count,
                                    const wn_detect_result *res, uint8_t *mark) {
  memset(mark, 0, count);
  for (uint32_t k = 0; k < res->n_selected; k++)
    for (uint32_t i = res->selected[k]; i < nodes[res->selected[k]].end; i++)
      mark[i] = 1;
}

/* Every kept text into mark, and its element with it when that is a
 * candidate, so that the text is rendered. */
static void wn_places_mark_kept(const wn_dom_node *nodes, uint32_t count, const uint8_t *cand,
                                const uint8_t *keep, uint8_t *mark) {
  for (uint32_t i = 0; i < count; i++)
    if (keep[i]) {
      mark[i] = 1;
      if (nodes[i].parent != WN_DOM_NONE && cand[nodes[i].parent])
        mark[nodes[i].parent] = 1;
    }
}

/* res->selected becomes the grouped roots of mark (Algorithms 2 and 5);
 * set (count + 1 entries) is taken over. */
static void wn_places_reselect(const wn_dom_page *page, const uint8_t *mark, uint32_t *set,
                               wn_detect_result *res) {
  uint32_t n = wn_detect_reduce(page, mark, set);
  n = wn_detect_group(page, set, n);
  free(res->selected);
  res->selected = set;
  res->n_selected = n;
}

/* DANAg's reading of the page to the caller (labels.danag), when it
 * asked and has none yet; else it stays *d's, freed by the caller. */
static void wn_places_hand_over(const wn_detect_labels *l, wn_detect_result **d) {
  if (l->danag && !*l->danag) {
    *l->danag = *d;
    *d = NULL;
  }
}

/* res becomes the single-page method's (DANAg's) choice less what the
 * template holds: its page-specific text, rendered with its elements.
 * mark (count + 1 bytes) is scratch; set (count + 1 entries) is taken
 * over, freed on error. */
static wn_err wn_places_single(const wn_dom_page *page, const wn_detect_labels *l,
                               wn_detect_result *res, uint8_t *mark, uint32_t *set) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  wn_detect_result *d = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_detect_single_masked(page, WN_SINGLE_DANAG,
                                       wn_single_default_steps(WN_SINGLE_DANAG), l->not_content,
                                       l->not_content_known, &d, &diag);
  if (err) {
    free(set);
    return err;
  }
  const uint8_t *dk = wn_detect_keep_flags(d);
  for (uint32_t i = 0; i < count; i++)
    res->keep[i] = dk[i] && l->cand[i];
  memset(mark, 0, count);
  wn_places_mark_kept(nodes, count, l->cand, res->keep, mark);
  wn_places_hand_over(l, &d);
  wn_detect_result_free(d);
  wn_places_reselect(page, mark, set, res);
  return WN_OK;
}

/*
 * A content area kept whole. The region selector keeps the place's
 * largest page-specific region and the regions beside it; in a place that
 * is all content that loses blocks the template happens to hold: a page
 * repeats a section block a variable number of times and the samples gave
 * the template a slot for the third or fourth one, so the block's element
 * is a template node and its text hangs below it, not beside the largest
 * region. The page itself says what such a block is: where two or more
 * siblings of one kind (tag and class; a class there must be, a bare <tr>
 * or <div> is every kind of box) hold kept content, the page's content is
 * a run of such blocks, and a template element of that kind beside them
 * that brings less text than the run holds is one more: its template
 * nodes are transparent and all its page-specific text is kept. One kept
 * block of a kind is no run, and a run that holds little is not where the
 * content is (a caption and a topic list kept from boxes whose class a
 * longer highlights box shares: that box is not one more of them). A
 * block the template does not hold is a page-specific region the region
 * selector judged. Skipped places and <aside>s (in[] 2) stay out.
 */
#define WN_PLACES_KINDS 16u

static int wn_places_same_kind(const wn_dom_node *a, const wn_dom_node *b) {
  if (a->tag != b->tag)
    return 0;
  return a->cls == b->cls || (a->cls && b->cls && strcmp(a->cls, b->cls) == 0);
}

/* held[i - at]: the kept page-specific text in i's subtree, in bytes. */
static void wn_places_held(const wn_dom_node *nodes, uint32_t at, const uint8_t *keep,
                           const uint8_t *cand, uint32_t *held) {
  const uint32_t end = nodes[at].end;
  memset(held, 0, (size_t)(end - at) * sizeof *held);
  for (uint32_t i = end; i-- > at;) {
    if (nodes[i].tag == WN_TAG_TEXT && keep[i] && cand[i])
      held[i - at] = nodes[i].own_text_len;
    if (i > at)
      held[nodes[i].parent - at] += held[i - at];
  }
}

static wn_err wn_places_runs(const wn_dom_page *page, const wn_detect_labels *l,
                             const uint8_t *in, uint32_t at, wn_detect_result *res) {
  const wn_dom_node *nodes = wn_dom_nodes(page, NULL);
  const uint32_t end = nodes[at].end;
  uint32_t *held = malloc(((size_t)(end - at) + 1) * sizeof *held);
  if (!held)
    return WN_ENOMEM;
  wn_places_held(nodes, at, res->keep, l->cand, held);
  for (uint32_t p = at; p < end; p++) {
    if (nodes[p].tag == WN_TAG_TEXT || in[p] != 1 || held[p - at] == 0)
      continue;
    /* The kinds of p's children that hold content, and how many of each
     * (the first WN_PLACES_KINDS kinds). */
    uint32_t kind[WN_PLACES_KINDS], n_of[WN_PLACES_KINDS], text_of[WN_PLACES_KINDS], nk = 0;
    for (uint32_t c = nodes[p].first_child; c != WN_DOM_NONE; c = nodes[c].next_sibling) {
      if (nodes[c].tag == WN_TAG_TEXT || !nodes[c].cls || held[c - at] == 0)
        continue;
      uint32_t k = 0;
      while (k < nk && !wn_places_same_kind(&nodes[kind[k]], &nodes[c]))
        k++;
      if (k < nk) {
        n_of[k]++;
        text_of[k] += held[c - at];
      } else if (nk < WN_PLACES_KINDS) {
        kind[nk] = c;
        text_of[nk] = held[c - at];
        n_of[nk++] = 1;
      }
    }
    for (uint32_t c = nodes[p].first_child; c != WN_DOM_NONE; c = nodes[c].next_sibling) {
      if (nodes[c].tag == WN_TAG_TEXT || held[c - at] > 0 || in[c] != 1 || !l->mapped[c])
        continue;
      uint32_t k = 0;
      while (k < nk && !(n_of[k] >= 2 && wn_places_same_kind(&nodes[kind[k]], &nodes[c])))
        k++;
      uint64_t brings = 0;
      for (uint32_t j = c; k < nk && j < nodes[c].end; j++)
        if (nodes[j].tag == WN_TAG_TEXT && in[j] == 1 && l->cand[j])
          brings += nodes[j].own_text_len;
      if (k < nk && brings >= text_of[k])
        continue;
      for (uint32_t j = c; k < nk && j < nodes[c].end; j++)
        if (nodes[j].tag == WN_TAG_TEXT && in[j] == 1 && l->cand[j])
          res->keep[j] = 1;
    }
  }
  free(held);
  return WN_OK;
}

/* Text that reads as a label: in a heading, a header cell or a term, or
 * ending in a colon (ASCII or full width). */
static int wn_places_label(const wn_dom_node *text, const wn_dom_node *el) {
  if ((el->tag >= WN_TAG_H1 && el->tag <= WN_TAG_H6) || el->tag == WN_TAG_TH ||
      el->tag == WN_TAG_DT)
    return 1;
  uint32_t n = text->own_text_len;
  while (n > 0 && (text->text[n - 1] == ' ' || text->text[n - 1] == '\n'))
    n--;
  return (n >= 1 && text->text[n - 1] == ':') ||
         (n >= 3 && memcmp(text->text + n - 3, "\xef\xbc\x9a", 3) == 0);
}

/*
 * Labels, in a place that is all content, once the content is chosen:
 * template text alone in its element that reads as a label, whose next
 * sibling (the value) holds kept page-specific text and more text than
 * the label, is that value's label ("Syntax:" in the <th> before its
 * <td>, a section's "DESCRIPTION" in the <h2> before its body): identical
 * on every page, so template text, but a reader reads it with its value.
 * Likewise template words of a heading whose other words are kept
 * ("Directive" before the directive's name): a heading is read whole.
 */
static wn_err wn_places_labels(const wn_dom_page *page, const wn_detect_labels *l, uint32_t at,
                               wn_detect_result *res) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  const uint32_t end = nodes[at].end;
  wn_err err = WN_OK;
  uint8_t *mark = NULL; /* made at the first label: most pages have none */
  uint32_t *set = NULL;
  uint32_t *held = malloc(((size_t)(end - at) + 1) * sizeof *held);
  if (!held) {
    err = WN_ENOMEM;
    goto out;
  }
  wn_places_held(nodes, at, res->keep, l->cand, held);
  for (uint32_t i = at + 1; i < end; i++) {
    if (nodes[i].tag != WN_TAG_TEXT || l->cand[i] || res->keep[i])
      continue;
    uint32_t p = nodes[i].parent;
    if (p == at)
      continue;
    const int heading = nodes[p].tag >= WN_TAG_H1 && nodes[p].tag <= WN_TAG_H6;
    if (!(heading && held[p - at] > 0)) {
      if (nodes[p].text_len != nodes[i].own_text_len || !wn_places_label(&nodes[i], &nodes[p]))
        continue; /* not alone in its element, or not a label */
      uint32_t v = nodes[p].next_sibling;
      while (v != WN_DOM_NONE && nodes[v].text_len == 0)
        v = nodes[v].next_sibling;
      if (v == WN_DOM_NONE || !held[v - at] || nodes[v].text_len <= nodes[i].own_text_len)
        continue;
    }
    if (!mark) {
      mark = calloc((size_t)count + 1, 1);
      set = malloc(((size_t)count + 1) * sizeof *set);
      if (!mark || !set) {
        err = WN_ENOMEM;
        goto out;
      }
      wn_places_mark_selected(nodes, count, res, mark);
    }
    res->keep[i] = 1;
    mark[i] = mark[p] = 1; /* rendered as its element (a heading, a cell) */
  }
  if (mark) {
    wn_places_mark_kept(nodes, count, l->cand, res->keep, mark);
    wn_places_reselect(page, mark, set, res);
    set = NULL;
  }
out:
  free(held);
  free(mark);
  free(set);
  return err;
}

/* The selection by the places alone (the cue selector's on a template
 * with no place; the single-page method's on a page the place does not
 * describe or that does not fit it). */
static wn_err wn_places_choose(const wn_dom_page *page, const wn_template *tpl,
                               const wn_detect_labels *l, wn_detect_result *res, int *by_single,
                               uint32_t *whole_at) {
  wn_err err = WN_OK;
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  const wn_template_places *pl = wn_template_get_places(tpl);
  uint32_t *set = NULL;
  uint8_t *in = NULL, *mark = NULL, *ckeep = NULL;
  uint32_t at = pl->content == WN_DOM_NONE || !l->tmap
                    ? WN_DOM_NONE
                    : wn_places_find(l->tmap, count, pl->content);
  /* A page of a site of articles (the template's shape) with no element
   * at the content place is of another layout than the samples: as an
   * unfit page (below), the single-page method reads it, the template as
   * its filter. So too where the samples showed no kind of site (no
   * shape: a news site's story beside its section front), since nothing
   * says the page is of a kind the cue selector reads better. Not on a
   * shop or a manual, whose pages are many parts the cue selector reads
   * better (docs/design.md, "The story's span"). */
  const uint8_t shape = wn_template_shape(tpl);
  if (at == WN_DOM_NONE && pl->content != WN_DOM_NONE &&
      (shape == WN_PAGE_ARTICLE + 1 || shape == 0)) {
    mark = calloc((size_t)count + 1, 1);
    set = malloc(((size_t)count + 1) * sizeof *set);
    if (!mark || !set) {
      err = WN_ENOMEM;
      goto out;
    }
    err = wn_places_single(page, l, res, mark, set);
    set = NULL;
    *by_single = 1;
    res->place = "not paired: the page has no element at the content place; the "
                 "single-page method read it";
    goto out;
  }
  if (at == WN_DOM_NONE) {
    err = wn_detect_select_cues(page, l, res);
    if (pl->content != WN_DOM_NONE)
      res->place = "not paired: the page has no element at the content place; the cue "
                   "selector chose";
    return err;
  }
  in = calloc((size_t)count + 1, 1);   /* 1: inside the place; 2: in a skipped place */
  mark = calloc((size_t)count + 1, 1);
  ckeep = calloc((size_t)count + 1, 1);
  set = malloc(((size_t)count + 1) * sizeof *set);
  if (!in || !mark || !ckeep || !set) {
    err = WN_ENOMEM;
    goto out;
  }
  uint64_t text = 0;
  uint32_t end = nodes[at].end;
  for (uint32_t i = at; i < end; i++) {
    uint32_t t = l->tmap[i];
    int skip = 0;
    for (uint32_t k = 0; t != WN_DOM_NONE && i != at && k < pl->n_skip && !skip; k++)
      skip = pl->skip[k] == t;
    if (skip) {
      for (uint32_t j = i; j < nodes[i].end; j++)
        in[j] = 2;
      i = nodes[i].end - 1;
      continue;
    }
    in[i] = 1;
    if (l->cand[i] && nodes[i].tag == WN_TAG_TEXT)
      text += nodes[i].own_text_len;
  }
  if (text == 0) {
    err = wn_detect_select_cues(page, l, res);
    res->place = "no text: the content place holds no page-specific text; the cue selector "
                 "chose";
    goto out;
  }
  if (l->trace) {
    l->trace->place = at;
    l->trace->place_whole = pl->whole;
  }
  /* The cue selector on the whole page first: it is right on most pages
   * of most sites, and it tells whether this page fits the place. */
  if ((err = wn_detect_select_cues(page, l, res)))
    goto out;
  uint64_t kin = 0, kall = 0;
  for (uint32_t i = 0; i < count; i++)
    if (res->keep[i]) {
      kall += nodes[i].own_text_len;
      kin += in[i] == 1 ? nodes[i].own_text_len : 0;
    }
  int wrong = kin * 2 < kall;
  if (wrong && kall - kin > text) {
    /* It kept mostly text outside the place, more than the place holds
     * at all. Either it went wrong (it kept a comment thread or a teaser
     * list: text of the asides, which the samples agree is not content),
     * or this page's content is not where the samples had it (a story
     * that runs on past the element five samples kept it in; another
     * layout): then the page is read without the place. (Where the
     * place holds more than the cue selector kept outside it, as an
     * index that is all links, the page's content has not left the
     * place.) */
    uint64_t known = wn_places_aside_text(page, l->tmap, pl, res->keep);
    if (known * 2 <= kall - kin) {
      if (l->trace)
        l->trace->place_unfit = 1;
      /* The page does not fit the place: the single-page method reads
       * it, the template as its filter (only page-specific text), rather
       * than the cue selector, whose choice this was. DANAg reads these
       * pages better: what the cue selector keeps on them is often not
       * the story (a gallery's captions taken for it), while DANAg's run
       * of lines follows the story wherever its elements lie. */
      err = wn_places_single(page, l, res, mark, set);
      set = NULL;
      *by_single = 1;
      res->place = "unfit: the page's content is not where the samples had it; the "
                   "single-page method read it";
      goto out;
    }
  }
  if (pl->whole) {
    *whole_at = at;
    /* A place that held nothing but content on the samples: the region
     * selector inside it (its largest page-specific region and the
     * regions beside it, lists of links included; a page-specific slot in
     * a template box, such as the current chapter's title in a navigation
     * bar, stays out). Two rules below keep what the region selector
     * alone would get wrong in a place: a box the samples never showed
     * (an <aside>), and a place whose content is many small template
     * paragraphs (the half rule). */
    /* What the cue selector kept inside the place, for the check below. */
    uint64_t ck = 0, rk = 0;
    for (uint32_t i = 0; i < count; i++) {
      ckeep[i] = res->keep[i] && in[i] == 1;
      ck += ckeep[i] ? nodes[i].own_text_len : 0;
    }
    free(res->selected);
    res->selected = NULL;
    res->n_selected = 0;
    memset(res->keep, 0, count);
    wn_places_candidates(count, in, l->cand, mark); /* mark reused as candidates */
    /* An HTML5 <aside> inside the place is, by its definition, content
     * tangential to what is around it (a related-stories box, a promo, a
     * newsletter sign-up), as is an ARIA role "complementary": not a
     * region of the content, even on a site whose samples showed none.
     * Footnotes (ARIA role note, in <aside>s) are content. */
    for (uint32_t i = at + 1; i < end; i++)
      if (nodes[i].tag != WN_TAG_TEXT && wn_places_tangential(page, nodes, i)) {
        memset(mark + i, 0, nodes[i].end - i);
        memset(in + i, 2, nodes[i].end - i);
        i = nodes[i].end - 1;
      }
    wn_detect_labels inner = *l;
    inner.cand = mark;
    if ((err = wn_detect_select_region(page, &inner, res)))
      goto out;
    /* The largest region holding less than half of what the cue selector
     * kept in the place: the content's paragraphs are template nodes, each
     * its own small region, and the largest region is a list beside them.
     * The cue selector's text comes back. */
    for (uint32_t i = 0; i < count; i++)
      rk += res->keep[i] ? nodes[i].own_text_len : 0;
    if (rk * 2 < ck)
      for (uint32_t i = 0; i < count; i++)
        res->keep[i] |= ckeep[i];
    /* The headline: a place that holds a post's body may leave its <h1>
     * just above (the single-page methods' headline step), kept when its
     * text is page-specific. */
    if ((err = wn_single_add_title_place(page, l->cand, res)))
      goto out;
    wn_places_mark_selected(nodes, count, res, mark);
    for (uint32_t i = 0; i < count; i++)
      if (nodes[i].tag == WN_TAG_TEXT && res->keep[i] && !l->cand[i])
        res->keep[i] = 0;
    if ((err = wn_places_runs(page, l, in, at, res)))
      goto out;
    wn_places_mark_kept(nodes, count, l->cand, res->keep, mark);
    wn_places_reselect(page, mark, set, res);
    set = NULL;
    goto out;
  }
  if (wrong) {
    /* It chose the asides (a comment thread, a teaser list beside a short
     * post): choose again inside the place. */
    wn_places_candidates(count, in, l->cand, mark); /* mark reused as candidates */
    wn_detect_labels inner = *l;
    inner.cand = mark;
    free(res->selected);
    res->selected = NULL;
    res->n_selected = 0;
    memset(res->keep, 0, count);
    if ((err = wn_detect_select_cues(page, &inner, res)))
      goto out;
  }
  /* Skipped places out. */
  wn_places_mark_selected(nodes, count, res, mark);
  for (uint32_t i = 0; i < count; i++)
    if (in[i] == 2) {
      mark[i] = 0;
      res->keep[i] = 0;
    }
  wn_places_reselect(page, mark, set, res);
  set = NULL;
out:
  free(set);
  free(in);
  free(mark);
  free(ckeep);
  return err;
}

/* A text node with a letter or digit (or any non-ASCII byte): what the
 * scorer and a reader count as text; white space and punctuation alone
 * neither continue nor break a run. */
static int wn_places_wordy(const wn_dom_node *n) {
  for (uint32_t k = 0; k < n->own_text_len; k++) {
    unsigned char c = (unsigned char)n->text[k];
    if (c >= 0x80 || wn_ascii_alnum(c))
      return 1;
  }
  return 0;
}

/*
 * The story past the place. The content place is one element, the one
 * that held the content on most samples; on a given page the story may
 * run on past it: split around an inline picture into a sibling element,
 * its first paragraph in an element of its own, an element the samples
 * held only on two pages. The single-page method (DANAg, the default
 * fallback) reads the page as lines and keeps the article's run of lines
 * wherever its elements lie. Where a run of lines it kept (contiguous in
 * document order: no text it left out in between) overlaps what the
 * places kept, the rest of that run is the same story continuing: its
 * text comes in when the template says it is page-specific (a candidate),
 * it is not link text, and it does not lie in an aside (what the samples
 * agree is not content beside the place: a comment thread that follows a
 * post at once, which DANAg's run reaches; tested). The places to skip,
 * inside the place, are not excluded: a run that reaches one there has
 * gone through it with the story (an ad slot the story continues past;
 * excluding it cuts the story at the slot). A run that does not touch
 * the places' choice (DANAg chose another block: a teaser list, a comment
 * thread) adds nothing, so the places still decide where the content is.
 * It runs on every page the places selector serves, those it hands to the
 * cue selector too: their stories run on past the choice as well.
 *
 * No constant. Only runs count, not every page-specific text DANAg kept:
 * on index pages that would bring teaser lists in. (The figures behind
 * these choices: CHANGELOG.md, "The place reads more of the story".)
 */
static wn_err wn_places_continue(const wn_dom_page *page, const wn_template *tpl,
                                 const wn_detect_labels *l, wn_detect_result *res) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  wn_detect_result *d = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_detect_single_masked(page, WN_SINGLE_DANAG,
                                       wn_single_default_steps(WN_SINGLE_DANAG), l->not_content,
                                       l->not_content_known, &d, &diag);
  if (err)
    return err;
  uint8_t *add = calloc((size_t)count + 1, 1);
  uint8_t *mark = NULL;
  uint32_t *set = NULL;
  if (!add) {
    err = WN_ENOMEM;
    goto out;
  }
  const uint8_t *dk = wn_detect_keep_flags(d);
  /* Never into what the samples agree is not content beside the place:
   * the asides (add[] = 2 there). */
  const wn_template_places *pl = wn_template_get_places(tpl);
  for (uint32_t i = 0; l->tmap && i < count; i++)
    if (wn_places_is_aside(pl, l->tmap[i])) {
      memset(add + i, 2, nodes[i].end - i);
      i = nodes[i].end - 1;
    }
  uint32_t added = 0;
  uint32_t start = WN_DOM_NONE;
  int touches = 0;
  for (uint32_t i = 0; i <= count; i++) {
    if (i < count && (nodes[i].tag != WN_TAG_TEXT || !wn_places_wordy(&nodes[i])))
      continue;
    if (i < count && dk[i]) {
      if (start == WN_DOM_NONE) {
        start = i;
        touches = 0;
      }
      touches |= res->keep[i];
      continue;
    }
    /* A run of DANAg's ends here (or the page does). */
    for (uint32_t j = start; start != WN_DOM_NONE && touches && j < i; j++)
      if (nodes[j].tag == WN_TAG_TEXT && dk[j] && !res->keep[j] && l->cand[j] && !add[j] &&
          !(nodes[j].flags & WN_DOM_IN_LINK)) {
        add[j] = 1;
        added += nodes[j].own_text_len;
      }
    start = WN_DOM_NONE;
  }
  if (l->trace)
    l->trace->place_continued = added;
  if (added == 0)
    goto out;
  mark = calloc((size_t)count + 1, 1);
  set = malloc(((size_t)count + 1) * sizeof *set);
  if (!mark || !set) {
    err = WN_ENOMEM;
    goto out;
  }
  wn_places_mark_selected(nodes, count, res, mark);
  for (uint32_t i = 0; i < count; i++)
    if (add[i] == 1)
      res->keep[i] = 1;
  wn_places_mark_kept(nodes, count, l->cand, res->keep, mark);
  wn_places_reselect(page, mark, set, res);
  set = NULL;
out:
  free(set);
  free(mark);
  free(add);
  wn_places_hand_over(l, &d);
  wn_detect_result_free(d);
  return err;
}

wn_err wn_detect_select_places(const wn_dom_page *page, const wn_template *tpl,
                               const wn_detect_labels *l, wn_detect_result *res) {
  uint32_t count = 0;
  wn_dom_nodes(page, &count);
  /* The not-content mask once for the page: the cue selector (once or
   * twice) and DANAg all read it. */
  uint8_t *nc = malloc((size_t)count + 1);
  if (!nc)
    return WN_ENOMEM;
  wn_detect_labels with = *l;
  with.not_content_known = 1;
  with.not_content = wn_single_not_content_mask(page, nc) ? nc : NULL;
  int by_single = 0;
  uint32_t whole_at = WN_DOM_NONE;
  wn_err err = wn_places_choose(page, tpl, &with, res, &by_single, &whole_at);
  /* (After the single-page method chose, its page-specific text is all
   * kept: the story past the place would add nothing.) */
  if (!err && !by_single)
    err = wn_places_continue(page, tpl, &with, res);
  if (!err && whole_at != WN_DOM_NONE)
    err = wn_places_labels(page, &with, whole_at, res);
  free(nc);
  return err;
}
