/*
 * detect/policy.c: which method serves a page. With a template: match,
 * confidence, then one of four selectors sharing the labelling:
 *  - WN_SELECT_PAPER runs Algorithms 2 to 5 of the site-level paper as
 *    stated (select_paper.c);
 *  - WN_SELECT_CUES uses the template as a filter and then single-page
 *    cues (select_cues.c);
 *  - WN_SELECT_REGION trusts the template: the page's largest
 *    page-specific region is the content, whole (select_region.c);
 *  - WN_SELECT_PLACES (the default since content places) takes the
 *    content at the place the samples held it, the cue selector where a
 *    page does not fit it (select_places.c).
 * Which one a site uses is chosen when it is learned and kept in its
 * template (WN_SELECT_SITE); a caller may override it. Without a template,
 * or when the page does not fit it, a single-page method (single.c)
 * serves the page. wn_detect_policy is that decision's second half for
 * every template method (ETDM here, FastCE in fastce_match.c, the dump
 * tool's explain through both): this is the only file that calls both a
 * template method's result and the single-page methods.
 */
#include "detect/detect.h"
#include "detect/detect_int.h"
#include "detect/single_int.h"

#include <stdlib.h>
#include <string.h>

const char *wn_detect_selector_name(wn_detect_selector selector) {
  switch (selector) {
  case WN_SELECT_SITE:
    return "site";
  case WN_SELECT_CUES:
    return "cues";
  case WN_SELECT_PAPER:
    return "paper";
  case WN_SELECT_REGION:
    return "region";
  case WN_SELECT_PLACES:
    return "places";
  }
  return NULL;
}

wn_err wn_detect_selector_parse(const char *name, wn_detect_selector *out) {
  for (int s = WN_SELECT_SITE; name && s <= WN_SELECT_LAST; s++)
    if (strcmp(name, wn_detect_selector_name((wn_detect_selector)s)) == 0) {
      *out = (wn_detect_selector)s;
      return WN_OK;
    }
  return WN_EINVAL;
}

/* ---- running ------------------------------------------------------------------ */

/* The single-page reading the policy's second readings use (opts'
 * fallback method, default steps): made once per page. made[0] holds
 * DANAg's, which the places selector may have made already; made[1]
 * another method's. The caller frees both. */
static wn_err wn_detect_second(const wn_dom_page *page, const wn_detect_options *opts,
                               wn_detect_result *made[2], const wn_detect_result **out,
                               wn_diag *diag) {
  const wn_single_method method = opts ? opts->fallback : WN_SINGLE_DANAG;
  wn_detect_result **slot = &made[method == WN_SINGLE_DANAG ? 0 : 1];
  wn_err err = *slot ? WN_OK : wn_detect_single(page, method, slot, diag);
  *out = *slot;
  return err;
}

/*
 * The page's own blocks (issue 43; the template as one reading of two).
 * A site's template knows its frame: a text node the ETDM pairs with a
 * template node holds text every sample held, and an element it pairs
 * recurs in the samples. The content place a selector chooses was fitted
 * to the samples' layout, and on a page of another shape (a shop's grid
 * beside its product pages, a product with a specifications block its
 * samples lacked) it holds a part of what the page says alone. So when
 * the selection holds less than half of the page's own text (unpaired
 * text nodes), the single-page method reads the page too, as a second
 * reading that fails differently, and the text it keeps is added where
 * the template says it is the page's own: an unpaired text node in an
 * unpaired element (a block no sample had), or in a paired block beside
 * such a one. A slot of the frame that recurs with other words on every
 * page (a "most read" list's headlines, a teaser module, a date line),
 * among slots only, stays out.
 */
#define WN_DETECT_OWN_SHARE 2u /* the selection holds under 1/2 of the own text */

static wn_err wn_detect_own_blocks(const wn_dom_page *page, const wn_detect_options *opts,
                                   const uint8_t *mapped, wn_detect_result *made[2],
                                   wn_detect_trace *trace, wn_detect_result *res,
                                   wn_diag *diag) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint64_t kept = 0, own = 0;
  for (uint32_t i = 0; i < count; i++) {
    if (nodes[i].tag != WN_TAG_TEXT)
      continue;
    if (res->keep[i])
      kept += nodes[i].own_text_len;
    if (!mapped[i])
      own += nodes[i].own_text_len;
  }
  if (WN_DETECT_OWN_SHARE * kept >= own)
    return WN_OK;
  /* Where the page's own block lies: under the frame element nearest to it
   * (its nearest paired ancestor). When that element holds none of what
   * the selection kept, the block is a region the samples had beside
   * their content (a thread of reader comments under each post, a box of
   * teasers) and stays out; a page that states a product or a discussion
   * (schema.org, og:type) has its parts there (specifications, reviews,
   * replies), and they come in wherever they lie. */
  const int parts = (wn_detect_result_stated(page, res) &
                     (WN_LD_FORUM | WN_LD_PRODUCT | WN_OG_PRODUCT)) != 0;
  /* held[e]: the selection keeps text at or below element e; then, for a
   * text node, 2: text the second reading may add. */
  uint8_t *held = calloc(count ? count : 1, 1);
  if (!held)
    return wn_diag_set(diag, WN_ENOMEM, "detect: out of memory for %u nodes", count);
  for (uint32_t i = count; i-- > 0;)
    if (((nodes[i].tag == WN_TAG_TEXT && res->keep[i]) || held[i]) &&
        nodes[i].parent != WN_DOM_NONE)
      held[nodes[i].parent] = 1;
  uint32_t open = 0;
  /* beside[e]: paired element e has an unpaired child holding text. */
  uint8_t *beside = calloc(count ? count : 1, 1);
  if (!beside) {
    free(held);
    return wn_diag_set(diag, WN_ENOMEM, "detect: out of memory for %u nodes", count);
  }
  for (uint32_t i = 0; i < count; i++) {
    const uint32_t p = nodes[i].parent;
    if (nodes[i].tag != WN_TAG_TEXT && !mapped[i] && nodes[i].text_len && p != WN_DOM_NONE &&
        mapped[p])
      beside[p] = 1;
  }
  for (uint32_t i = 0; i < count; i++) {
    const uint32_t p = nodes[i].parent;
    /* A slot among the page's own blocks: a paired block whose text is
     * the page's own, beside a block no sample had (an answer's first
     * paragraphs, which the samples' answers had too, before paragraphs
     * they did not). Its text may come in as the own blocks' does. A
     * "most read" list's slots stand among slots only; on a page that
     * states its parts (a product, a thread), every slot is a part. The
     * slot is the block, through paired inline elements (a <code> in its
     * <pre>). */
    uint32_t sb = p;
    while (parts && sb != WN_DOM_NONE && mapped[sb] && !(nodes[sb].flags & WN_DOM_BLOCK))
      sb = nodes[sb].parent;
    if (nodes[i].tag == WN_TAG_TEXT && !res->keep[i] && !mapped[i] && p != WN_DOM_NONE &&
        mapped[p] && sb != WN_DOM_NONE && mapped[sb] && (nodes[sb].flags & WN_DOM_BLOCK) &&
        nodes[sb].parent != WN_DOM_NONE && (parts || beside[nodes[sb].parent])) {
      if (parts || held[nodes[sb].parent]) {
        held[i] = 2;
        open++;
      }
      continue;
    }
    if (nodes[i].tag != WN_TAG_TEXT || res->keep[i] || mapped[i] || p == WN_DOM_NONE ||
        mapped[p])
      continue;
    uint32_t e = p;
    while (e != WN_DOM_NONE && !mapped[e])
      e = nodes[e].parent;
    if (parts || (e != WN_DOM_NONE && held[e])) {
      held[i] = 2;
      open++;
    }
  }
  /* A word is read with its sentence: where the text that may come in
   * lies in an inline element (a code name, an emphasis) the samples never
   * had, inside a block they had (an answer's paragraph), the block's other
   * page-specific text may come in with it; else the output would hold the
   * word alone, cut from its sentence. And the other way: a sentence that
   * may come in brings its words in inline elements the samples had too
   * (the <code> of an answer's paragraph). Each block is read once, its
   * blocks inside it left to their own sentences. */
  uint32_t last_block = WN_DOM_NONE;
  for (uint32_t i = 0; i < count; i++) {
    if (held[i] != 2 || nodes[i].tag != WN_TAG_TEXT)
      continue;
    uint32_t b = nodes[i].parent;
    while (b != WN_DOM_NONE && !(nodes[b].flags & WN_DOM_BLOCK))
      b = nodes[b].parent;
    if (b == WN_DOM_NONE || b == last_block)
      continue;
    last_block = b;
    for (uint32_t j = b + 1; j < nodes[b].end; j++) {
      if (nodes[j].tag != WN_TAG_TEXT && (nodes[j].flags & WN_DOM_BLOCK)) {
        j = nodes[j].end - 1; /* a block inside: its own sentences */
        continue;
      }
      if (nodes[j].tag == WN_TAG_TEXT && held[j] != 2 && !res->keep[j] && !mapped[j]) {
        held[j] = 2;
        open++;
      }
    }
  }
  wn_err err = WN_OK;
  uint32_t added = 0;
  const wn_detect_result *single = NULL;
  if (open == 0)
    goto out; /* nothing the second reading could add: it is not run */
  if ((err = wn_detect_second(page, opts, made, &single, diag)))
    goto out;
  for (uint32_t i = 0; i < count; i++)
    if (held[i] == 2 && single->keep[i]) {
      res->keep[i] = 1;
      added++;
      if (trace) {
        trace->own[i] = 1;
        trace->own_bytes += nodes[i].own_text_len;
      }
    }
  if (added && (err = wn_detect_result_select(page, res, NULL)))
    wn_diag_set(diag, err, "detect: out of memory for %u nodes", count);
out:
  free(held);
  free(beside);
  return err;
}

/*
 * The story's span (issue 43; the template as one reading of two, again).
 * On a site of articles (most samples read as articles by themselves,
 * stating no product, discussion or code: the template's shape) the
 * single-page method (DANAg) reads a page as lines and judges block by
 * block where its content runs; it fails differently from the template
 * (it may keep a teaser list or lose the headline, never because of the
 * samples). Where the two readings agree on the place, one inside the
 * other, the single-page reading's judgement stands within its span (from
 * the first to the last text it kept):
 *  - the template's reading holds nearly all of it (19/20) and more: the
 *    content place brings whatever in it is page-specific, blocks no
 *    sample had (a photo gallery between the paragraphs, a video strip, an
 *    ad's text). The text the single-page reading left out inside its
 *    span goes, except a quotation (an embedded post or tweet in the
 *    story's flow, whose byline and link read as a box). Before it the
 *    template's text stays (the headline, the date line), but not link
 *    text the single-page reading left out: navigation the page has and
 *    its samples did not share. After it, where the single-page reading
 *    says the story has ended, only a paragraph stays (a contributor
 *    line, a correction: the story's own prose, written as the story
 *    is); a strip of videos, a comment count, share buttons are boxes,
 *    not paragraphs, and go;
 *  - the template's reading lies nearly all (19/20) inside the single-page
 *    one and is under half of it: the content place held one part of a
 *    page of many (a grid's first cards, the intro above a list). The
 *    single-page reading's page-specific text comes in (its frame text,
 *    which every sample held, stays out), in what the samples agree is
 *    not content only as a grid's cards (wn_detect_span_out).
 * On a site of threads (the forum shape) the cut is narrower: inside the
 * span, what the single-page reading left out goes only when it is no
 * paragraph and no post's words (wn_detect_post_words: a post's
 * signature, its vote count and badges, which the template keeps as the
 * page's own text in the frame's slots; a short reply stays); before
 * and after the span nothing goes, since a thread's short last replies
 * are where a reading of one story ends too early.
 * Not on a manual or a shop (another shape): their pages are many parts
 * (notes, tables of contents, specifications) that a reading of one story
 * cuts, and where the template holds more of them than the single-page
 * reading (docs/design.md, "The story's span").
 */
#define WN_DETECT_SPAN_AGREE 20u /* inside: at least 19/20 of its text */
#define WN_DETECT_SPAN_PART 2u   /* a part: under 1/2 of the other reading */

/* Text i lies in a paragraph: its nearest block element is a <p>. */
static int wn_detect_in_paragraph(const wn_dom_node *nodes, uint32_t i) {
  uint32_t b = nodes[i].parent;
  while (b != WN_DOM_NONE && !(nodes[b].flags & WN_DOM_BLOCK))
    b = nodes[b].parent;
  return b != WN_DOM_NONE && nodes[b].tag == WN_TAG_P;
}

/* Text node n reads as a post's words, not a signature's fragments: a
 * line of a paragraph's length (WN_DETECT_PROSE_BYTES), or a sentence of
 * three words or more ending in '.', '!' or '?' ("Thanks, that
 * worked!"). A name, a date, "2 silver badges" are neither. */
#define WN_DETECT_PROSE_BYTES 80u /* Readability's paragraph length */
static int wn_detect_post_words(const wn_dom_node *n) {
  if (n->flags & WN_DOM_IN_LINK)
    return 0;
  if (n->own_text_len >= WN_DETECT_PROSE_BYTES)
    return 1;
  uint32_t end = n->own_text_len, spaces = 0;
  while (end > 0 && wn_html_space((unsigned char)n->text[end - 1]))
    end--;
  for (uint32_t k = 1; k < end; k++)
    spaces += wn_html_space((unsigned char)n->text[k]) &&
              !wn_html_space((unsigned char)n->text[k - 1]);
  return end > 0 && spaces >= 2 &&
         (n->text[end - 1] == '.' || n->text[end - 1] == '!' || n->text[end - 1] == '?');
}

static int wn_detect_quoted(const wn_dom_node *nodes, uint32_t i) {
  for (uint32_t a = nodes[i].parent; a != WN_DOM_NONE; a = nodes[a].parent)
    if (nodes[a].tag == WN_TAG_BLOCKQUOTE)
      return 1;
  return 0;
}

/* t (a template node or WN_DOM_NONE) is a place the samples agree holds
 * no content: an aside beside the content place or a place to skip
 * inside it. */
static int wn_detect_not_content(const wn_template *tpl, uint32_t t) {
  const wn_template_places *pl = wn_template_get_places(tpl);
  for (uint32_t k = 0; t != WN_DOM_NONE && k < pl->n_aside; k++)
    if (pl->aside[k] == t)
      return 1;
  for (uint32_t k = 0; t != WN_DOM_NONE && k < pl->n_skip; k++)
    if (pl->skip[k] == t)
      return 1;
  return 0;
}

/* What the samples agree is not content (a comment thread, a box of
 * teasers) is evidence against the single-page reading that keeps it,
 * unless what it keeps there is a page's many parts the samples' cue
 * selector read as a box: a run of records (wn_detect_records_find) that
 * lead with a link or show a price, a grid's cards or a listing's
 * entries. A thread's replies (prose, dated or not) stay out. *out: NULL
 * when nothing the reading would bring lies there, else per node 1 where
 * it stays out. */
static wn_err wn_detect_span_out(const wn_dom_page *page, const wn_template *tpl,
                                 const uint32_t *tmap, const wn_detect_result *single,
                                 const uint8_t *cand, const wn_detect_result *res,
                                 uint8_t **out) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  *out = NULL;
  uint8_t *nc = calloc((size_t)count + 1, 1);
  uint8_t *in = calloc((size_t)count + 1, 1);
  if (!nc || !in) {
    free(nc);
    free(in);
    return WN_ENOMEM;
  }
  uint32_t any = 0;
  for (uint32_t i = 0; i < count; i++) {
    if (nodes[i].tag == WN_TAG_TEXT || !wn_detect_not_content(tpl, tmap[i]))
      continue;
    memset(nc + i, 1, nodes[i].end - i);
    for (uint32_t j = i; j < nodes[i].end; j++)
      if (nodes[j].tag == WN_TAG_TEXT && single->keep[j] && !res->keep[j] && cand[j]) {
        in[j] = 1;
        any++;
      }
    i = nodes[i].end - 1;
  }
  wn_err err = WN_OK;
  if (any) {
    wn_detect_records rec = {0};
    wn_detect_record_traits tr = {0};
    if ((err = wn_detect_records_find(page, in, &rec)))
      goto out;
    for (uint32_t r = rec.first, j = 0; rec.n && r != WN_DOM_NONE && j < rec.n;
         r = wn_detect_record_next(nodes, &rec, r), j++)
      wn_detect_record_read(nodes, r, in, &tr);
    const int cards = rec.n >= 3 &&
                      (2 * tr.priced >= rec.n || 2 * tr.linked >= rec.n);
    if (!cards) {
      *out = nc;
      nc = NULL;
    }
  }
out:
  free(nc);
  free(in);
  return err;
}

static wn_err wn_detect_story_span(const wn_dom_page *page, const wn_template *tpl,
                                   const wn_detect_options *opts, wn_detect_result *made[2],
                                   const uint8_t *cand, const uint32_t *tmap,
                                   wn_detect_trace *trace, wn_detect_result *res,
                                   wn_diag *diag) {
  const int thread = wn_template_shape(tpl) == WN_PAGE_FORUM + 1;
  if (wn_template_shape(tpl) != WN_PAGE_ARTICLE + 1 && !thread)
    return WN_OK;
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  const wn_detect_result *single = NULL;
  wn_err err = wn_detect_second(page, opts, made, &single, diag);
  if (err)
    return err;
  uint64_t ks = 0, kt = 0, both = 0;
  uint32_t first = WN_DOM_NONE, last = 0;
  for (uint32_t i = 0; i < count; i++) {
    if (nodes[i].tag != WN_TAG_TEXT)
      continue;
    const uint64_t n = nodes[i].own_text_len;
    kt += res->keep[i] ? n : 0;
    if (!single->keep[i])
      continue;
    ks += n;
    both += res->keep[i] ? n : 0;
    first = first == WN_DOM_NONE ? i : first;
    last = i;
  }
  const uint64_t a = WN_DETECT_SPAN_AGREE;
  const int cut = ks > 0 && both * a >= ks * (a - 1);
  const int part = kt > 0 && both * a >= kt * (a - 1) && kt * WN_DETECT_SPAN_PART < ks;
  if (!cut && !part)
    return WN_OK;
  uint8_t *out = NULL; /* part: 1 where the samples agree is not content */
  if (!cut && tmap && (err = wn_detect_span_out(page, tpl, tmap, single, cand, res, &out)))
    return wn_diag_set(diag, err, "detect: out of memory for %u nodes", count);
  uint64_t changed = 0;
  for (uint32_t i = 0; i < count; i++) {
    if (nodes[i].tag != WN_TAG_TEXT || res->keep[i] == single->keep[i] || (out && out[i]))
      continue;
    if (cut) {
      if (!res->keep[i])
        continue;
      const int stays = thread      ? i < first || i > last || wn_detect_quoted(nodes, i) ||
                                           (wn_detect_in_paragraph(nodes, i) &&
                                            !(nodes[i].flags & WN_DOM_IN_LINK)) ||
                                           wn_detect_post_words(&nodes[i])
                        : i < first ? !(nodes[i].flags & WN_DOM_IN_LINK)
                        : i < last  ? wn_detect_quoted(nodes, i)
                                    : wn_detect_in_paragraph(nodes, i) &&
                                         !(nodes[i].flags & WN_DOM_IN_LINK);
      if (stays)
        continue;
      res->keep[i] = 0;
      if (trace)
        trace->own[i] = 2;
    } else {
      if (res->keep[i] || !cand[i])
        continue;
      res->keep[i] = 1;
      if (trace)
        trace->own[i] = 3;
    }
    changed += nodes[i].own_text_len;
  }
  free(out);
  if (trace)
    *(cut ? &trace->span_bytes : &trace->span_added) += (uint32_t)changed;
  if (changed && (err = wn_detect_result_select(page, res, NULL)))
    wn_diag_set(diag, err, "detect: out of memory for %u nodes", count);
  return err;
}

/*
 * Prose the samples shared (issue 43; the template as one reading of two).
 * A text node the ETDM pairs is text every sample held there, so the
 * selectors read it as frame. A site's pages share prose too: product
 * variants learned from one another (the same description, the same
 * FAQ), a note every post carries. Frame text inside content is short
 * (a label, "Share this", "Specifications:"); so a paired text node of
 * a paragraph's length (WN_DETECT_PROSE_BYTES, Readability's 80
 * characters), not link text, that lies between the first and the last
 * text the selection kept and that the single-page reading keeps, is
 * content: both readings place it amid the page's content, and only the
 * samples' agreement called it frame.
 */

/* Text i is shared prose the selection left out. */
static int wn_detect_shared_text(const wn_dom_node *nodes, uint32_t i, const uint8_t *mapped,
                                 const wn_detect_result *res) {
  return nodes[i].tag == WN_TAG_TEXT && !res->keep[i] && mapped[i] &&
         nodes[i].own_text_len >= WN_DETECT_PROSE_BYTES && !(nodes[i].flags & WN_DOM_IN_LINK);
}

static wn_err wn_detect_shared_prose(const wn_dom_page *page, const wn_detect_options *opts,
                                     const uint8_t *mapped, wn_detect_result *made[2],
                                     wn_detect_trace *trace, wn_detect_result *res,
                                     wn_diag *diag) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint32_t first = WN_DOM_NONE, last = 0, open = 0;
  for (uint32_t i = 0; i < count; i++)
    if (nodes[i].tag == WN_TAG_TEXT && res->keep[i]) {
      if (first == WN_DOM_NONE)
        first = i;
      last = i;
    }
  for (uint32_t i = first; first != WN_DOM_NONE && i < last; i++)
    open += wn_detect_shared_text(nodes, i, mapped, res) ? 1u : 0u;
  if (open == 0)
    return WN_OK; /* nothing the second reading could add: it is not run */
  const wn_detect_result *single = NULL;
  wn_err err = wn_detect_second(page, opts, made, &single, diag);
  if (err)
    return err;
  uint32_t added = 0;
  for (uint32_t i = first; i < last; i++)
    if (single->keep[i] && wn_detect_shared_text(nodes, i, mapped, res)) {
      res->keep[i] = 1;
      added++;
      if (trace) {
        trace->own[i] = 4;
        trace->shared_bytes += nodes[i].own_text_len;
      }
    }
  if (added && (err = wn_detect_result_select(page, res, NULL)))
    wn_diag_set(diag, err, "detect: out of memory for %u nodes", count);
  return err;
}

/* Match, confidence, then selection; a page whose confidence is below
 * min_confidence stops before the selection (the fallback will serve it):
 * WN_OK, *out NULL, *confidence set. */
static wn_err wn_detect_template(const wn_dom_page *page, const wn_template *tpl,
                                 const uint32_t *premap, const wn_detect_options *opts,
                                 double min_confidence,
                                 wn_detect_trace *trace, wn_detect_result **out,
                                 double *confidence, wn_diag *diag) {
  wn_err err = WN_OK;
  wn_detect_labels l = {0};
  wn_detect_result *made[2] = {NULL, NULL}; /* wn_detect_second's readings */
  l.trace = trace;
  l.premap = premap;
  l.danag = &made[0];
  *out = NULL;
  wn_detect_result *res = NULL;
  /* The caller's choice, else the site's (kept in its template), else cues. */
  wn_detect_selector selector = opts ? opts->selector : WN_SELECT_SITE;
  if ((unsigned)selector > WN_SELECT_LAST)
    return wn_diag_set(diag, WN_EINVAL, "detect: unknown selector %d", (int)selector);
  const int from_site = selector == WN_SELECT_SITE;
  if (selector == WN_SELECT_SITE) {
    uint8_t site = wn_template_selector(tpl);
    if (site > WN_SELECT_LAST)
      return wn_diag_set(diag, WN_ECORRUPT, "detect: the template names unknown selector %u",
                         site);
    selector = wn_detect_site_selector(tpl);
  }
  uint32_t count = 0;
  wn_dom_nodes(page, &count);

  /* "template": the default selector (places) and the cue selector it
   * falls back to on a page that does not fit its place, so that the
   * method names (and the daemon's metrics) stay those of before the
   * default changed; the selector is in the trace (winnow-dump explain). */
  res = wn_detect_result_alloc(count, selector == WN_SELECT_PAPER    ? "template-paper"
                                      : selector == WN_SELECT_REGION ? "template-region"
                                                                     : "template");
  l.mapped = malloc((size_t)count + 1);
  l.cand = malloc((size_t)count + 1);
  if (selector == WN_SELECT_PLACES)
    l.tmap = malloc(((size_t)count + 1) * sizeof *l.tmap);
  if (!res || !l.mapped || !l.cand || (selector == WN_SELECT_PLACES && !l.tmap)) {
    err = wn_diag_set(diag, WN_ENOMEM, "detect: out of memory for %u nodes", count);
    goto out;
  }
  if (trace) {
    if ((err = wn_detect_trace_start(trace, count)))
      goto out;
    trace->selector = selector;
    trace->selector_from_site = from_site;
    trace->matched = 1;
  }
  err = wn_detect_label_match(page, tpl, &l, &res->confidence, diag);
  if (err)
    goto out;
  *confidence = res->confidence;
  if (res->confidence < min_confidence)
    goto out;

  if (selector == WN_SELECT_PAPER) {
    err = wn_detect_select_paper(page, &l, res);
  } else if (selector == WN_SELECT_REGION) {
    wn_detect_label_lifted(page, &l);
    err = wn_detect_select_region(page, &l, res);
  } else if (selector == WN_SELECT_PLACES) {
    wn_detect_label_lifted(page, &l);
    err = wn_detect_select_places(page, tpl, &l, res);
  } else {
    wn_detect_label_lifted(page, &l);
    err = wn_detect_select_cues(page, &l, res);
  }
  if (err)
    goto out;
  for (uint32_t i = 0; i < count; i++)
    res->tmpl[i] = !l.cand[i];
  if ((err = wn_detect_own_blocks(page, opts, l.mapped, made, trace, res, diag)))
    goto out;
  if (selector == WN_SELECT_PLACES &&
      (err = wn_detect_story_span(page, tpl, opts, made, l.cand, l.tmap, trace, res, diag)))
    goto out;
  if ((err = wn_detect_shared_prose(page, opts, l.mapped, made, trace, res, diag)))
    goto out;
  if (trace) {
    memcpy(trace->cand, l.cand, count);
    trace->selected = 1;
  }
  *out = res;
  res = NULL;
out:
  wn_detect_result_free(made[0]);
  wn_detect_result_free(made[1]);
  free(l.mapped);
  free(l.cand);
  free(l.tmap);
  wn_detect_result_free(res);
  if (err == WN_ENOMEM)
    wn_diag_set(diag, err, "detect: out of memory");
  return err;
}

wn_err wn_detect_run(const wn_dom_page *page, const wn_template *tpl,
                     const wn_detect_options *opts, wn_detect_result **out, wn_diag *diag) {
  double confidence = 0;
  return wn_detect_template(page, tpl, NULL, opts, 0.0, NULL, out, &confidence, diag);
}

wn_err wn_detect_policy(const wn_dom_page *page, const wn_detect_options *opts, uint32_t steps,
                        wn_detect_result *tmpl, wn_detect_fallback reason, double confidence,
                        wn_detect_result **out, wn_diag *diag) {
  *out = NULL;
  wn_detect_result *res = tmpl;
  wn_err err = WN_OK;
  if (!res) {
    /* steps: the measured default set (0) unless an ablation asks for an
     * explicit one (WN_SINGLE_STEPS_SET | bits). */
    const wn_single_method fallback = opts ? opts->fallback : WN_SINGLE_DANAG;
    /* The leaning (favor) and the comment threads, as steps of the
     * method's default set. Readability's reading alone has no steps. */
    if (opts && !(steps & WN_SINGLE_STEPS_SET) && fallback != WN_SINGLE_READABILITY &&
        (opts->favor != WN_FAVOR_BALANCED || opts->comments)) {
      steps = wn_single_default_steps(fallback);
      if (opts->favor == WN_FAVOR_PRECISION)
        steps &= ~(WN_SINGLE_STEP_SECOND | WN_SINGLE_STEP_AREA);
      else if (opts->favor == WN_FAVOR_RECALL)
        steps |= WN_SINGLE_STEP_UNION;
      if (opts->comments)
        steps |= WN_SINGLE_STEP_COMMENTS;
      steps |= WN_SINGLE_STEPS_SET;
    }
    err = (steps & WN_SINGLE_STEPS_SET)
              ? wn_detect_single_steps(page, fallback, steps & ~WN_SINGLE_STEPS_SET, &res, diag)
              : wn_detect_single(page, fallback, &res, diag);
    if (err)
      return err;
    res->confidence = confidence;
    res->fallback = reason;
  }
  /* The output invariants, whichever method chose. */
  wn_detect_drop_controls(page, res);
  if ((err = wn_detect_drop_repeats(page, res))) {
    wn_detect_result_free(res);
    return wn_diag_set(diag, err, "detect: %s", wn_strerror(err));
  }
  *out = res;
  return WN_OK;
}


/*
 * Layouts: a site of several layouts has a template per layout
 * (template.h). The page is matched against each, and the one it fits best
 * serves it, as if it were the site's only template: its places, its
 * confidence against the threshold. Fit is the share of the layout's
 * frame, the nodes every one of its samples held, that the page pairs:
 * the confidence (all template nodes, weighted by their counts) is not
 * comparable across layouts, since a template learned from articles holds
 * structure some of them share and a page of its layout does not repeat.
 * The first layout (the key page's) wins a tie. One ETDM match per
 * layout, then the chosen one's again inside the selection.
 */
static double wn_detect_frame_fit(const wn_template *tpl, const uint8_t *seen) {
  uint32_t count = 0;
  const wn_template_node *t = wn_template_nodes(tpl, &count);
  wn_template_stats st;
  wn_template_get_stats(tpl, &st);
  uint32_t frame = 0, have = 0;
  for (uint32_t i = 0; i < count; i++)
    if (t[i].count >= st.sample_pages) {
      frame++;
      have += seen[i];
    }
  return frame ? (double)have / frame : 0.0;
}
wn_err wn_detect_layout(const wn_dom_page *page, const wn_template *tpl, uint32_t *layout,
                        double *confidence, int *placed, uint32_t **best_map, wn_diag *diag) {
  *layout = 0;
  *confidence = 0;
  *placed = 1;
  if (best_map)
    *best_map = NULL;
  const uint32_t n = wn_template_layout_count(tpl);
  if (n == 1)
    return WN_OK;
  uint32_t count = 0, tmax = 0;
  wn_dom_nodes(page, &count);
  for (uint32_t k = 0; k < n; k++) {
    uint32_t tc = 0;
    wn_template_nodes(wn_template_layout(tpl, k), &tc);
    tmax = tc > tmax ? tc : tmax;
  }
  uint32_t *map = malloc(((size_t)count + 1) * sizeof *map);
  uint32_t *best_one = best_map ? malloc(((size_t)count + 1) * sizeof *best_one) : NULL;
  uint8_t *seen = malloc((size_t)tmax + 1);
  wn_err err = WN_OK;
  if (!map || !seen || (best_map && !best_one)) {
    err = wn_diag_set(diag, WN_ENOMEM, "detect: out of memory for %u nodes", count);
    goto out;
  }
  double best = -1;
  for (uint32_t k = 0; k < n; k++) {
    const wn_template *t = wn_template_layout(tpl, k);
    uint32_t tc = 0, pairs = 0;
    wn_template_nodes(t, &tc);
    if ((err = wn_template_match(t, page, map, &pairs))) {
      wn_diag_set(diag, err, "detect: matching the page against layout %u failed", k + 1);
      goto out;
    }
    memset(seen, 0, tc);
    for (uint32_t i = 0; i < count; i++)
      if (map[i] != WN_DOM_NONE)
        seen[map[i]] = 1;
    double fit = wn_detect_frame_fit(t, seen);
    if (fit > best) {
      const uint32_t place = wn_template_get_places(t)->content;
      best = fit;
      *layout = k;
      *confidence = fit;
      *placed = place == WN_DOM_NONE || seen[place];
      if (best_one) {
        uint32_t *t2 = best_one;
        best_one = map;
        map = t2;
      }
    }
  }
  if (!err && best_map) {
    *best_map = best_one;
    best_one = NULL;
  }
out:
  free(map);
  free(best_one);
  free(seen);
  return err;
}

/* wn_detect_page and wn_detect_page_traced. */
static wn_err wn_detect_page_with(const wn_dom_page *page, const wn_template *tpl,
                                  const wn_detect_options *opts, uint32_t steps,
                                  wn_detect_trace *trace, wn_detect_result **out, wn_diag *diag) {
  *out = NULL;
  uint32_t layout = 0;
  int placed = 1;
  const char *no_layout = NULL;
  double fit = 0;
  uint32_t *map = NULL; /* the chosen layout's match, not made again */
  if (tpl && wn_template_layout_count(tpl) > 1) {
    wn_err lerr = wn_detect_layout(page, tpl, &layout, &fit, &placed, &map, diag);
    if (lerr)
      return lerr;
    tpl = wn_template_layout(tpl, layout);
  }
  if (!placed) {
    /* A site of several layouts, and the page has no element where the
     * one it fits best keeps its content: the page is of a layout not
     * learned (a gallery on a site learned from articles, fronts and
     * reference pages), and a template of another layout says nothing of
     * where its content is. (On a site of one layout such a page is left
     * to the cue selector with the template as its filter: select_places.c.) */
    no_layout = "no layout: the page has no element at the content place of the layout it "
                "fits best; the single-page method read it";
    tpl = NULL;
    free(map);
    if (trace) {
      /* explain reads the trace as of a page matched below the threshold. */
      uint32_t count = 0;
      wn_dom_nodes(page, &count);
      wn_err terr = wn_detect_trace_start(trace, count);
      if (terr)
        return wn_diag_set(diag, terr, "detect: out of memory for %u nodes", count);
      trace->matched = 1;
      trace->confidence = fit;
      trace->min_confidence = opts ? opts->min_confidence : 0.0;
    }
  }
  const double min_confidence = opts ? opts->min_confidence : 0.0;
  wn_detect_result *res = NULL;
  double confidence = 0.0;
  wn_detect_fallback reason = WN_FALLBACK_NO_TEMPLATE;
  if (tpl) {
    wn_err err =
        wn_detect_template(page, tpl, map, opts, min_confidence, trace, &res, &confidence, diag);
    free(map);
    if (err)
      return err;
    if (trace) {
      trace->confidence = confidence;
      trace->min_confidence = min_confidence;
      trace->layout = layout;
    }
    if (res) {
      res->layout = layout;
      return wn_detect_policy(page, opts, steps, res, WN_FALLBACK_NONE, confidence, out, diag);
    }
    /* The page does not look like the pages the template was learned
     * from (a redesign, another section of the site, another site under
     * one name): whatever the template's selection says rests on a match
     * that did not happen, so a method that needs no template decides
     * (and the selection is not even run). */
    reason = WN_FALLBACK_LOW_CONFIDENCE;
  }
  if (no_layout) {
    reason = WN_FALLBACK_LOW_CONFIDENCE;
    confidence = fit; /* of the layout it fits best */
  }
  wn_err err = wn_detect_policy(page, opts, steps, NULL, reason, confidence, &res, diag);
  if (err)
    return err;
  res->layout = layout;
  res->place = no_layout;
  if (trace) {
    trace->fallback = reason;
    trace->layout = layout;
  }
  *out = res;
  return WN_OK;
}

wn_err wn_detect_page(const wn_dom_page *page, const wn_template *tpl,
                      const wn_detect_options *opts, uint32_t steps, wn_detect_result **out,
                      wn_diag *diag) {
  return wn_detect_page_with(page, tpl, opts, steps, NULL, out, diag);
}

wn_err wn_detect_page_traced(const wn_dom_page *page, const wn_template *tpl,
                             const wn_detect_options *opts, wn_detect_trace *trace,
                             wn_detect_result **out, wn_diag *diag) {
  return wn_detect_page_with(page, tpl, opts, WN_SINGLE_STEPS_DEFAULT, trace, out, diag);
}

wn_detect_selector wn_detect_site_selector(const wn_template *tpl) {
  /* 0 (a template learned before templates named their selector, or
   * before content places were the default: it has no places) and values
   * this build does not know mean cues; detection itself refuses the
   * latter. Learning with no selector asked for names places. */
  uint8_t s = tpl ? wn_template_selector(tpl) : 0;
  return s == WN_SELECT_SITE || s > WN_SELECT_LAST ? WN_SELECT_CUES : (wn_detect_selector)s;
}

const char *wn_detect_fallback_name(wn_detect_fallback reason) {
  switch (reason) {
  case WN_FALLBACK_NO_TEMPLATE:
    return "no template";
  case WN_FALLBACK_LOW_CONFIDENCE:
    return "low confidence";
  case WN_FALLBACK_DAMAGED:
    return "damaged template";
  case WN_FALLBACK_NONE:
  default:
    return NULL;
  }
}
