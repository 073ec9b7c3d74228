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

/* The walk both box steps share: an element (not a text node) that holds
 * some but less than half of the kept text and that is_box says is a box
 * has its whole subtree left out. links[] counts the link text nodes of each
 * subtree, for is_box. */
typedef int (*wn_single_box_test)(const wn_dom_page *page, const wn_dom_node *n, uint32_t links);

static wn_err wn_single_drop_minor(const wn_dom_page *page, wn_detect_result *res,
                                   wn_single_box_test is_box) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint32_t *kept = calloc(count ? count : 1, sizeof *kept);   /* kept text bytes */
  uint32_t *links = calloc(count ? count : 1, sizeof *links); /* link text nodes */
  if (!kept || !links) {
    free(kept);
    free(links);
    return WN_ENOMEM;
  }
  for (uint32_t i = count; i-- > 0;) {
    if (nodes[i].tag == WN_TAG_TEXT) {
      kept[i] = res->keep[i] ? nodes[i].own_text_len : 0;
      links[i] = (nodes[i].flags & WN_DOM_IN_LINK) != 0;
    }
    uint32_t p = nodes[i].parent;
    if (p != WN_DOM_NONE) {
      kept[p] += kept[i];
      links[p] += links[i];
    }
  }
  uint32_t total = count ? kept[0] : 0;
  for (uint32_t i = 0; i < count;) {
    const wn_dom_node *n = &nodes[i];
    if (n->tag != WN_TAG_TEXT && kept[i] > 0 && 2 * (uint64_t)kept[i] < total &&
        is_box(page, n, links[i])) {
      for (uint32_t j = i; j < n->end; j++)
        res->keep[j] = 0;
      i = n->end;
      continue;
    }
    i++;
  }
  free(kept);
  free(links);
  return WN_OK;
}

/*
 * Link boxes (WN_SINGLE_STEP_LINKS). Both papers keep everything inside
 * the chosen block or area, and in a news page that takes in the lists of
 * related stories, tags and share links beside the article. A block that
 * is mostly link text is such a list; a container (table, list, div...)
 * holding several links needs less to be one, as in Readability's cleaning
 * and in the template method's cue selector (select_cues.c): a container with
 * at least two links and more than a fifth link text, any block with more
 * than half (wn_detect_link_limit). Never the container that holds most
 * of the content itself: only blocks holding less than half of the kept
 * text are judged.
 */
static int wn_single_is_link_box(const wn_dom_page *page, const wn_dom_node *n, uint32_t links) {
  (void)page;
  return (n->flags & WN_DOM_BLOCK) &&
         (double)n->link_text_len > wn_detect_link_limit(n->tag, links) * (double)n->text_len;
}

wn_err wn_single_drop_links(const wn_dom_page *page, wn_detect_result *res) {
  return wn_single_drop_minor(page, res, wn_single_is_link_box);
}

/*
 * Headline recovery (WN_SINGLE_STEP_TITLE). The block with most text is
 * the article body; its headline, byline and date often sit in a sibling
 * container above it, and both papers lose them. A gold standard of news
 * (and a reader) counts them as content. The headline of a page is marked
 * up as <h1> by convention: when no kept text lies in an <h1>, the last
 * <h1> before the first kept text joins the content, and so does the text
 * between them if it is short (a byline and a date, not a teaser list):
 * at most WN_SINGLE_TITLE_GAP_BYTES and never link-dense.
 */
#define WN_SINGLE_TITLE_GAP_BYTES 300u
#define WN_SINGLE_TITLE_MAX_BYTES 400u

static int wn_single_is_link_box(const wn_dom_page *page, const wn_dom_node *n, uint32_t links);
static int wn_single_is_named_box(const wn_dom_page *page, const wn_dom_node *n, uint32_t links);

/* Text nodes of [from, to) that lie in a box starting there (a
 * named box or a link box, as WN_SINGLE_STEP_BOXES and _LINKS judge them)
 * get skip[i] = 1. */
static wn_err wn_single_gap_boxes(const wn_dom_page *page, uint32_t from, uint32_t to,
                                  uint8_t *skip) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint32_t *links = calloc(count ? count : 1, sizeof *links); /* link text nodes per subtree */
  if (!links)
    return WN_ENOMEM;
  for (uint32_t i = count; i-- > 0;) {
    if (nodes[i].tag == WN_TAG_TEXT)
      links[i] = (nodes[i].flags & WN_DOM_IN_LINK) != 0;
    if (nodes[i].parent != WN_DOM_NONE)
      links[nodes[i].parent] += links[i];
  }
  for (uint32_t i = from; i < to;) {
    const wn_dom_node *n = &nodes[i];
    if (n->tag != WN_TAG_TEXT && n->end <= to &&
        (wn_single_is_named_box(page, n, links[i]) || wn_single_is_link_box(page, n, links[i]))) {
      memset(skip + i, 1, n->end - i);
      i = n->end;
      continue;
    }
    i++;
  }
  free(links);
  return WN_OK;
}

/* The boxes between the headline and the content are judged as the box
 * steps judge boxes inside it, so that the share buttons under a headline
 * ("Share this with friends Twitter Facebook", "Comments Tweet More") stay
 * out while the byline, date and standfirst come in. cand: NULL for the
 * single-page methods; for a content place (select_places.c), the
 * page-specific nodes: only their text counts and comes in. The gap is
 * judged, not cut at a length, so that the caption of a story's lead
 * video, between its headline and its body, comes in with it. */
static wn_err wn_single_title(const wn_dom_page *page, wn_detect_result *res,
                              const uint8_t *cand) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint32_t first = WN_DOM_NONE;
  for (uint32_t i = 0; i < count;) {
    if (nodes[i].tag == WN_TAG_H1) {
      for (uint32_t j = i; j < nodes[i].end; j++)
        if (res->keep[j])
          return WN_OK; /* the content has its headline */
      i = nodes[i].end; /* each node is looked at once */
      continue;
    }
    if (res->keep[i] && first == WN_DOM_NONE)
      first = i;
    i++;
  }
  if (first == WN_DOM_NONE)
    return WN_OK;
  uint32_t h1 = WN_DOM_NONE;
  for (uint32_t i = first; i-- > 0;)
    if (nodes[i].tag == WN_TAG_H1 && nodes[i].end <= first) {
      h1 = i;
      break;
    }
  if (h1 == WN_DOM_NONE || nodes[h1].text_len == 0 || nodes[h1].text_len > WN_SINGLE_TITLE_MAX_BYTES ||
      2 * nodes[h1].link_text_len > nodes[h1].text_len)
    return WN_OK;
  if (cand) {
    /* With a template: a headline the template holds (a site name in an
     * <h1>) is not this page's. */
    int specific = 0;
    for (uint32_t i = h1; i < nodes[h1].end && !specific; i++)
      specific = nodes[i].tag == WN_TAG_TEXT && cand[i];
    if (!specific)
      return WN_OK;
  }
  uint8_t *skip = NULL;
  if (first > nodes[h1].end) {
    skip = calloc(count, 1);
    if (!skip || wn_single_gap_boxes(page, nodes[h1].end, first, skip)) {
      free(skip);
      return WN_ENOMEM;
    }
  }
  uint64_t gap = 0, gap_links = 0, kept = 0;
  for (uint32_t i = nodes[h1].end; i < first; i++)
    if (nodes[i].tag == WN_TAG_TEXT && !(skip && skip[i]) && (!cand || cand[i])) {
      gap += nodes[i].own_text_len;
      if (nodes[i].flags & WN_DOM_IN_LINK)
        gap_links += nodes[i].own_text_len;
    }
  for (uint32_t i = first; cand && i < count; i++)
    kept += res->keep[i] ? nodes[i].own_text_len : 0;
  for (uint32_t i = h1; i < nodes[h1].end; i++)
    if (nodes[i].tag == WN_TAG_TEXT)
      res->keep[i] = 1;
  /* With a template, what lies between the headline and the content is
   * page-specific and not a box: a standfirst, a byline, the caption of
   * the story's lead video. A byte count made for a page with no template
   * (a teaser list) cuts those; the bound is the content itself: more
   * than it kept, and the <h1> is not this content's headline. */
  uint64_t limit = cand ? kept : WN_SINGLE_TITLE_GAP_BYTES;
  if (gap <= limit && 2 * gap_links <= gap)
    for (uint32_t i = nodes[h1].end; i < first; i++)
      if (nodes[i].tag == WN_TAG_TEXT && !(skip && skip[i]) && (!cand || cand[i]))
        res->keep[i] = 1;
  free(skip);
  return WN_OK;
}

/*
 * The standfirst (part of WN_SINGLE_STEP_TITLE, single-page methods). A
 * story's lead paragraph often sits apart from its body, under the
 * headline in a box of its own before the lead photo, and both methods
 * start at the body. The paragraphs (<p>) between the nearest heading
 * before the content and the content come in when they are no box (as
 * the box steps judge them), the gap is not mostly link text, and they
 * are shorter than the content (a standfirst introduces the story; it
 * is not another one). Paragraph text only: the dates, credits and
 * labels around it are not running text. Runs after the headline step,
 * so that the heading is the headline when that came in.
 */
static wn_err wn_single_standfirst(const wn_dom_page *page, wn_detect_result *res) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint32_t first = WN_DOM_NONE;
  uint64_t kept = 0;
  for (uint32_t i = 0; i < count; i++)
    if (res->keep[i] && nodes[i].tag == WN_TAG_TEXT) {
      if (first == WN_DOM_NONE)
        first = i;
      kept += nodes[i].own_text_len;
    }
  if (first == WN_DOM_NONE)
    return WN_OK;
  uint32_t head = WN_DOM_NONE;
  for (uint32_t i = first; i-- > 0;)
    if (nodes[i].tag >= WN_TAG_H1 && nodes[i].tag <= WN_TAG_H6) {
      if (nodes[i].end > first)
        return WN_OK; /* the content starts in a heading */
      head = i;
      break;
    }
  if (head == WN_DOM_NONE || nodes[head].end >= first)
    return WN_OK;
  uint8_t *flags = calloc(count, 1); /* 1: in a box of the gap; 2: in a <p> */
  if (!flags || wn_single_gap_boxes(page, nodes[head].end, first, flags)) {
    free(flags);
    return WN_ENOMEM;
  }
  uint64_t prose = 0, all = 0, linked = 0;
  for (uint32_t i = nodes[head].end; i < first; i++) {
    uint32_t p = nodes[i].parent;
    if (nodes[i].tag == WN_TAG_P || (p != WN_DOM_NONE && p >= nodes[head].end && (flags[p] & 2)))
      flags[i] |= 2;
    if (nodes[i].tag != WN_TAG_TEXT || (flags[i] & 1))
      continue;
    all += nodes[i].own_text_len;
    if (nodes[i].flags & WN_DOM_IN_LINK)
      linked += nodes[i].own_text_len;
    else if (flags[i] & 2)
      prose += nodes[i].own_text_len;
  }
  if (prose > 0 && prose < kept && 2 * linked <= all)
    for (uint32_t i = nodes[head].end; i < first; i++)
      if (nodes[i].tag == WN_TAG_TEXT && flags[i] == 2)
        res->keep[i] = 1;
  free(flags);
  return WN_OK;
}

wn_err wn_single_add_title_clean(const wn_dom_page *page, wn_detect_result *res) {
  wn_err err = wn_single_title(page, res, NULL);
  return err ? err : wn_single_standfirst(page, res);
}

wn_err wn_single_add_title_place(const wn_dom_page *page, const uint8_t *cand,
                                 wn_detect_result *res) {
  return wn_single_title(page, res, cand);
}

/*
 * Boxes named as not content (WN_SINGLE_STEP_BOXES). Page authors name
 * their containers, and a few names are web-wide conventions for what is
 * not the article: comment threads, footers, sidebars, navigation, share
 * buttons, related stories, sponsored boxes, breadcrumbs (the
 * "unlikely candidates" of Readability and of boilerplate work since),
 * photo galleries embedded in a story (their captions are no part of
 * its text), the post's metadata line ("entry-meta", "post-meta": date,
 * categories, tags, reading time), photo credits, the author box under
 * a post ("author-box", "author-bio": who wrote it, the same on every
 * post of that writer) and calls to action ("cta"). A block inside the
 * content whose id or class holds one of these words, a <form> (its text
 * is the labels and prompts of a sign-up or a search; a page that wraps
 * everything in one form keeps it, as a box never holds half the
 * content), a block whose ARIA
 * landmark role says it is navigation, complementary, the page footer
 * (contentinfo) or header (banner), and a caption (<figcaption>, or the
 * <figure> of a picture: one holding no table, listing or quotation) is
 * left out; as for link boxes, never a block holding half the content (a
 * gallery page keeps its gallery). Output that carries images still
 * shows a figure's image (wn_detect_figures).
 */
static const char *const wn_single_box_words[] = {
    "comment", "footer", "sidebar", "breadcrumb", "share", "social",
    "related", "sponsor", "promo", "advert", "newsletter", "nav", "gallery",
    "meta", "credit", "author-box", "author-bio",
};

/* A call to action ("cta", "cta-box", "article-donation-CTA",
 * "ctaButton"): a box asking the reader to subscribe, donate or sign up.
 * Short, so matched as a word of its own (a run of letters that is
 * "cta", or that starts with "cta" and an upper-case letter), not inside
 * "selectable". */
static int wn_single_has_cta(const char *s) {
  for (size_t i = 0; i < 128 && s[i];) {
    if (!(((s[i] | 0x20) >= 'a') && ((s[i] | 0x20) <= 'z'))) {
      i++;
      continue;
    }
    size_t b = i;
    while (i < 128 && ((s[i] | 0x20) >= 'a') && ((s[i] | 0x20) <= 'z'))
      i++;
    if (i - b >= 3 && (s[b] | 0x20) == 'c' && (s[b + 1] | 0x20) == 't' && (s[b + 2] | 0x20) == 'a' &&
        (i - b == 3 || (s[b + 2] == 'a' && s[b + 3] >= 'A' && s[b + 3] <= 'Z')))
      return 1;
  }
  return 0;
}

static int wn_single_has_word(const char *s) {
  if (!s)
    return 0;
  if (wn_single_has_cta(s))
    return 1;
  char low[128];
  size_t len = strlen(s);
  if (len >= sizeof low)
    len = sizeof low - 1; /* names longer than this are cut: still bounded */
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    low[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
  }
  low[len] = '\0';
  for (size_t k = 0; k < sizeof wn_single_box_words / sizeof *wn_single_box_words; k++)
    if (strstr(low, wn_single_box_words[k]))
      return 1;
  return 0;
}

/* ARIA's landmark roles for what is not the article: the ones <nav>,
 * <aside>, <footer> and the page <header> carry implicitly. A standard's
 * markup, as those elements are, not a naming habit. */
static int wn_single_role_not_content(const char *role) {
  if (!role)
    return 0;
  return strcmp(role, "navigation") == 0 || strcmp(role, "complementary") == 0 ||
         strcmp(role, "contentinfo") == 0 || strcmp(role, "banner") == 0;
}

/* A <figure> that illustrates: one with no table, code listing or
 * quotation in it (a data table, a listing or a pull quote set as a
 * figure is text of the story; a picture's figure holds its caption and
 * credit only). */
static int wn_single_is_illustration(const wn_dom_page *page, const wn_dom_node *f) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  for (uint32_t i = (uint32_t)(f - nodes) + 1; i < f->end; i++)
    if (nodes[i].tag == WN_TAG_TABLE || nodes[i].tag == WN_TAG_PRE ||
        nodes[i].tag == WN_TAG_BLOCKQUOTE)
      return 0;
  return 1;
}

static int wn_single_is_named_box(const wn_dom_page *page, const wn_dom_node *n, uint32_t links) {
  (void)links;
  return n->tag == WN_TAG_NAV || n->tag == WN_TAG_FOOTER || n->tag == WN_TAG_ASIDE ||
         n->tag == WN_TAG_FORM ||
         n->tag == WN_TAG_FIGCAPTION || (n->tag == WN_TAG_FIGURE && wn_single_is_illustration(page, n)) ||
         wn_single_has_word(n->id) || wn_single_has_word(n->cls) ||
         wn_single_role_not_content(wn_dom_attr(page, n, "role"));
}

/*
 * Headings left alone (part of WN_SINGLE_STEP_BOXES). A heading titles
 * the text below it. When the box steps left out what a heading titled
 * (the list under "Related posts", the author box under "About the
 * author", the form under "Subscribe"), or the method's area ends on the
 * heading of the next section, the heading titles nothing that is kept:
 * a kept heading with no kept text after it, or whose next kept text lies
 * in a heading of a higher rank (an <h2> after an <h3>), is left out too.
 * A heading followed by one of its own rank stays: sites set a standfirst
 * or a kicker as a heading above the headline's sibling. No word list: the
 * document's own outline says it.
 */
static int wn_single_heading_level(const wn_dom_node *n) {
  return n->tag >= WN_TAG_H1 && n->tag <= WN_TAG_H6 ? 1 + (n->tag - WN_TAG_H1) : 0;
}

static void wn_single_drop_orphan_headings(const wn_dom_page *page, wn_detect_result *res) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  /* Content of headings only (a page that is its title) stays whole. */
  int body = 0;
  for (uint32_t i = 0; i < count && !body;) {
    if (wn_single_heading_level(&nodes[i])) {
      i = nodes[i].end;
      continue;
    }
    body = nodes[i].tag == WN_TAG_TEXT && res->keep[i] && nodes[i].own_text_len;
    i++;
  }
  if (!body)
    return;
  /* From the end: the level of the heading holding the next kept text
   * (0: not in a heading), or -1 when no kept text follows. */
  int next = -1;
  for (uint32_t i = count; i-- > 0;) {
    const wn_dom_node *n = &nodes[i];
    int level = wn_single_heading_level(n);
    if (level) {
      int kept = 0;
      for (uint32_t j = i; j < n->end && !kept; j++)
        kept = res->keep[j] && nodes[j].tag == WN_TAG_TEXT;
      if (!kept)
        continue;
      if (next == -1 || (next > 0 && next < level)) {
        for (uint32_t j = i; j < n->end; j++)
          res->keep[j] = 0;
        continue;
      }
      next = level;
      continue;
    }
    if (n->tag == WN_TAG_TEXT && res->keep[i] && n->own_text_len) {
      uint32_t h = n->parent;
      while (h != WN_DOM_NONE && !wn_single_heading_level(&nodes[h]))
        h = nodes[h].parent;
      if (h == WN_DOM_NONE)
        next = 0;
    }
  }
}

/*
 * Captions without markup (part of WN_SINGLE_STEP_BOXES). Most pages set
 * an image's caption and credit in a wrapper of their own making, not in
 * a <figure>: the nearest element around the image that has text holds
 * the image and its caption ("Photo: Getty Images", "The harbour at low
 * tide"). That text is no part of the running text either (as
 * <figcaption> is not). Told from the story by its length: a caption is
 * shorter than the story's paragraphs, so a wrapper whose text is shorter
 * than the median kept paragraph is left out; one that is itself a
 * paragraph, a heading or a link, or that is mostly link text, or holds
 * half of the kept text, is not judged. No constant and no name: the
 * page's own paragraphs set the length. Output that carries images
 * still shows the image (wn_detect_figures).
 */
static int wn_cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* Kept text bytes per subtree (malloc'd, the page's node count), or
 * NULL when out of memory. */
static uint64_t *wn_single_kept_sums(const wn_dom_node *nodes, uint32_t count, const uint8_t *keep) {
  uint64_t *kept = calloc((size_t)count + 1, sizeof *kept);
  if (!kept)
    return NULL;
  for (uint32_t i = count; i-- > 0;) {
    if (nodes[i].tag == WN_TAG_TEXT && keep[i])
      kept[i] = nodes[i].own_text_len;
    if (nodes[i].parent != WN_DOM_NONE)
      kept[nodes[i].parent] += kept[i];
  }
  return kept;
}

static wn_err wn_single_image_captions(const wn_dom_page *page, wn_detect_result *res) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint32_t images = 0;
  for (uint32_t i = 0; i < count; i++)
    images += nodes[i].tag == WN_TAG_IMG;
  if (images == 0)
    return WN_OK;
  uint64_t *kept = wn_single_kept_sums(nodes, count, res->keep);
  uint32_t *lens = malloc(((size_t)count + 1) * sizeof *lens);
  if (!kept || !lens) {
    free(kept);
    free(lens);
    return WN_ENOMEM;
  }
  uint32_t n = 0;
  for (uint32_t i = 0; i < count; i++)
    if (nodes[i].tag == WN_TAG_P && kept[i] > 0)
      lens[n++] = nodes[i].text_len;
  if (n > 0) {
    qsort(lens, n, sizeof *lens, wn_cmp_u32);
    const uint32_t median = lens[n / 2];
    const uint64_t total = count ? kept[0] : 0;
    for (uint32_t i = 0; i < count; i++) {
      if (nodes[i].tag != WN_TAG_IMG)
        continue;
      uint32_t a = nodes[i].parent;
      while (a != WN_DOM_NONE && nodes[a].text_len == 0)
        a = nodes[a].parent;
      if (a == WN_DOM_NONE || kept[a] == 0 || nodes[a].text_len >= median ||
          2 * kept[a] >= total || 2 * nodes[a].link_text_len > nodes[a].text_len)
        continue;
      const uint8_t t = nodes[a].tag;
      if (t == WN_TAG_P || t == WN_TAG_A || (t >= WN_TAG_H1 && t <= WN_TAG_H6) ||
          t == WN_TAG_BODY || t == WN_TAG_HTML)
        continue;
      for (uint32_t j = a; j < nodes[a].end; j++)
        res->keep[j] = 0;
    }
  }
  free(kept);
  free(lens);
  return WN_OK;
}

wn_err wn_single_drop_boxes(const wn_dom_page *page, wn_detect_result *res) {
  wn_err err = wn_single_drop_minor(page, res, wn_single_is_named_box);
  if (!err)
    err = wn_single_image_captions(page, res);
  if (!err)
    wn_single_drop_orphan_headings(page, res);
  return err;
}

/*
 * Comment threads (part of WN_SINGLE_STEP_BOXES). A blog post's reader
 * comments are often longer than the post, so the named-box rule above,
 * which never drops a block holding half the kept text, keeps them, and
 * both methods may even choose the thread as the content (a blog post's
 * output was then mostly its comments). The thread is marked up
 * by a web-wide convention: the comment systems and blog engines name its
 * container and its items "comment" (WordPress's comments, commentlist,
 * comment-body, the #respond form; Disqus's disqus_thread; Drupal's
 * comment-wrapper), which is also Readability's "unlikely candidates"
 * list. So a container whose id or class holds a word containing
 * "comment" (not "commentary", a news column) or "disqus", or the word
 * "respond" or "replies", is masked before the method runs: DANAg leaves
 * it out of its normalised source, CNR counts it a nonContentNode, and its
 * text is never kept.
 *
 * Page footers likewise (a word ending in "foot" or "footer": foot,
 * site-footer, pageFooter; the "footer" of Readability's list). Their
 * legal notices and "best viewed with" disclaimers are the longest
 * paragraphs of a page that has no article (a section front: teasers and
 * links only), so DANAg chose them and the named-box rule, which never
 * drops half the kept text, kept them (a section front whose gold is
 * empty came out as its legal notice). Masked, such a page has no line where content
 * outweighs code and nothing is selected. A name that only starts with
 * it ("footnotes") is content.
 *
 * Never the post itself: not <html>, <body> or <main>, and not a
 * container that holds the page's first <h1>, the headline of the post
 * the thread comments on (a theme that names the page wrapper
 * "comments-open" must not lose the post).
 */
/* w[0..n) equals the lower-case lit, ignoring case: w holds letters only,
 * whose lower case is the byte | 0x20. */
static int wn_single_word_is(const char *w, const char *lit, size_t n) {
  for (size_t k = 0; k < n; k++)
    if ((char)(w[k] | 0x20) != lit[k])
      return 0;
  return 1;
}

static int wn_single_word_masked(const char *w, size_t len, int container, int threads) {
  /* A page footer: a word that ends in "foot" or "footer" (foot,
   * blq-foot, pagefooter, site-footer), not "footnote"; and a container,
   * not the closing paragraph of a story ("zn-body__footer"). */
  if (container && ((len >= 4 && wn_single_word_is(w + len - 4, "foot", 4)) ||
                    (len >= 6 && wn_single_word_is(w + len - 6, "footer", 6))))
    return 1;
  if (!threads)
    return 0;
  /* (compared in place, first letter first: this runs on every id and
   * class of every page; copying each name lower-cased and calling memcmp
   * at every offset cost 3% of detection) */
  for (size_t i = 0; i + 7 <= len; i++)
    if ((w[i] | 0x20) == 'c' && wn_single_word_is(w + i, "comment", 7) &&
        !(i + 9 <= len && wn_single_word_is(w + i + 7, "ar", 2)))
      return 1;
  for (size_t i = 0; i + 6 <= len; i++)
    if ((w[i] | 0x20) == 'd' && wn_single_word_is(w + i, "disqus", 6))
      return 1;
  return len == 7 && (wn_single_word_is(w, "respond", 7) || wn_single_word_is(w, "replies", 7));
}

/* id or class holds a comment word; words are runs of letters, compared
 * without case ("comment-list", "commentList", "fb_comments",
 * "userComments" all hold one). Bounded: names past 128 bytes are cut. */
static int wn_single_names_masked(const char *s, int container, int threads) {
  if (!s)
    return 0;
  size_t i = 0;
  for (;;) {
    while (i < 128 && s[i] && !(((s[i] | 0x20) >= 'a') && ((s[i] | 0x20) <= 'z')))
      i++;
    if (i >= 128 || !s[i])
      return 0;
    size_t b = i;
    while (i < 128 && ((s[i] | 0x20) >= 'a') && ((s[i] | 0x20) <= 'z'))
      i++;
    if (wn_single_word_masked(s + b, i - b, container, threads))
      return 1;
  }
}

static uint32_t wn_single_mask_names(const wn_dom_page *page, uint8_t *mask, int all) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  memset(mask, 0, count);
  uint32_t h1 = WN_DOM_NONE;
  for (uint32_t i = 0; i < count && h1 == WN_DOM_NONE; i++)
    if (nodes[i].tag == WN_TAG_H1 && nodes[i].text_len > 0)
      h1 = i;
  uint32_t threads = 0;
  for (uint32_t i = 0; i < count;) {
    const wn_dom_node *n = &nodes[i];
    int container = (n->flags & WN_DOM_BLOCK) && n->tag != WN_TAG_P &&
                    !(n->tag >= WN_TAG_H1 && n->tag <= WN_TAG_H6);
    if (n->tag != WN_TAG_TEXT && n->tag != WN_TAG_HTML && n->tag != WN_TAG_BODY &&
        n->tag != WN_TAG_MAIN && !(h1 != WN_DOM_NONE && i <= h1 && h1 < n->end) &&
        (wn_single_names_masked(n->id, container, all) ||
         wn_single_names_masked(n->cls, container, all))) {
      memset(mask + i, 1, n->end - i);
      threads++;
      i = n->end;
      continue;
    }
    i++;
  }
  return threads;
}

uint32_t wn_single_not_content_mask(const wn_dom_page *page, uint8_t *mask) {
  return wn_single_mask_names(page, mask, 1);
}

/*
 * Semantic hints (WN_SINGLE_STEP_HTML5). A page that marks up where its
 * article is says where its content is: schema.org's
 * itemprop="articleBody" (the markup search engines read; news sites
 * have written it since about 2015), else HTML5's one
 * <article>, else one <main> (or ARIA's role="main"). When most of the
 * kept text lies in it, the text outside it is left out; the headline
 * comes back with WN_SINGLE_STEP_TITLE.
 */
static uint32_t wn_single_hint(const wn_dom_page *page) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint32_t body = WN_DOM_NONE, article = WN_DOM_NONE, main = WN_DOM_NONE;
  uint32_t n_body = 0, n_article = 0, n_main = 0;
  for (uint32_t i = 0; i < count; i++) {
    if (nodes[i].tag == WN_TAG_TEXT)
      continue;
    const char *prop = wn_dom_attr(page, &nodes[i], "itemprop");
    const char *role = wn_dom_attr(page, &nodes[i], "role");
    if (prop && strcmp(prop, "articleBody") == 0 && n_body++ == 0)
      body = i;
    if (nodes[i].tag == WN_TAG_ARTICLE && n_article++ == 0)
      article = i;
    if ((nodes[i].tag == WN_TAG_MAIN || (role && strcmp(role, "main") == 0)) && n_main++ == 0)
      main = i;
  }
  return n_body == 1      ? body
         : n_article == 1 ? article
         : n_main == 1    ? main
                          : WN_DOM_NONE;
}

/* The text res keeps (*all) and how much of it lies inside node hint
 * (*in). */
static void wn_single_kept_in(const wn_dom_node *nodes, uint32_t count,
                              const wn_detect_result *res, uint32_t hint, uint64_t *in,
                              uint64_t *all) {
  *in = *all = 0;
  for (uint32_t i = 0; i < count; i++)
    if (res->keep[i]) {
      *all += nodes[i].own_text_len;
      if (i >= hint && i < nodes[hint].end)
        *in += nodes[i].own_text_len;
    }
}

/* hint: wn_single_hint's answer (found once per page: it reads two
 * attributes of every element). */
static wn_err wn_single_html5_at(const wn_dom_page *page, uint32_t hint, wn_detect_result *res) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  if (hint == WN_DOM_NONE)
    return WN_OK;
  uint64_t in = 0, all = 0;
  wn_single_kept_in(nodes, count, res, hint, &in, &all);
  if (2 * in <= all)
    return WN_OK;
  for (uint32_t i = 0; i < count; i++)
    if (i < hint || i >= nodes[hint].end)
      res->keep[i] = 0;
  return WN_OK;
}

/* The article's paragraphs (part of WN_SINGLE_STEP_HTML5). The method's
 * area is a run of lines or a block, and a story cut by an embed, a
 * gallery or a box of links longer than DANAg's gap loses the part beyond
 * it. The page marks up where its article is: of the elements that say
 * so (itemprop="articleBody", <article>, <main>, role="main"), the
 * outermost that holds more than half of the kept text is the article,
 * and every paragraph (<p>) in it is running text, as trafilatura reads
 * the paragraphs of the article it finds by its markup. The outermost,
 * not the innermost: sites set the parts of one story (its header, its
 * ingredients, its steps) as <article>s of their own inside one <main>
 * or one outer <article>. The box and link steps that run next take the
 * boxes among the paragraphs out again. Paragraphs only: headings and
 * list items as well were measured no better. */
static wn_err wn_single_hint_paragraphs(const wn_dom_page *page, const uint8_t *mask,
                                        wn_detect_result *res) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint64_t *kept = wn_single_kept_sums(nodes, count, res->keep);
  if (!kept)
    return WN_ENOMEM;
  uint32_t hint = WN_DOM_NONE;
  for (uint32_t i = 0; i < count; i++) {
    if (nodes[i].tag == WN_TAG_TEXT || 2 * kept[i] <= kept[0])
      continue;
    const char *prop = wn_dom_attr(page, &nodes[i], "itemprop");
    const char *role = wn_dom_attr(page, &nodes[i], "role");
    if (nodes[i].tag == WN_TAG_ARTICLE || nodes[i].tag == WN_TAG_MAIN ||
        (prop && strcmp(prop, "articleBody") == 0) || (role && strcmp(role, "main") == 0)) {
      hint = i; /* those holding more than half nest: the first is the outermost */
      break;
    }
  }
  free(kept);
  if (hint != WN_DOM_NONE)
    wn_danag_keep_prose(nodes, mask, NULL, NULL, hint, res->keep);
  return WN_OK;
}

wn_err wn_single_html5(const wn_dom_page *page, wn_detect_result *res) {
  return wn_single_html5_at(page, wn_single_hint(page), res);
}

/* The steps each method runs by default: those that raised its word F1
 * in the ablation of docs/single-page.md (link boxes, named boxes, the
 * headline and the semantic hints for both; the story's container for
 * DANAg, danag.c) and the retry. CNR's menu ratio lowered its F1, so it
 * stays available for measurement only. */
uint32_t wn_single_default_steps(wn_single_method method) {
  switch (method) {
  case WN_SINGLE_CNR:
    return WN_SINGLE_STEP_LINKS | WN_SINGLE_STEP_BOXES | WN_SINGLE_STEP_TITLE |
           WN_SINGLE_STEP_HTML5 | WN_SINGLE_STEP_RETRY;
  case WN_SINGLE_DANAG:
    return WN_SINGLE_STEP_LINKS | WN_SINGLE_STEP_BOXES | WN_SINGLE_STEP_TITLE |
           WN_SINGLE_STEP_HTML5 | WN_SINGLE_STEP_CONTAINER | WN_SINGLE_STEP_RETRY;
  }
  return 0;
}

/* The other half of the semantic hints (WN_SINGLE_STEP_HTML5, below): the
 * method kept mostly text outside the element the page marks as its
 * article (or kept nothing), and that element holds text that is not
 * link text. The page
 * says where its article is; the method went wrong (the longest run of
 * text on a 2015 news page is often a teaser of another story, its full
 * text sent for CSS to cut short), so it chooses again inside the
 * article, everything else masked as a comment thread is. No constant. */
static wn_err wn_single_rehint(const wn_dom_page *page, wn_single_method method, uint32_t steps,
                               uint32_t hint, uint8_t **mask, wn_detect_result *res) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  if (hint == WN_DOM_NONE)
    return WN_OK;
  uint64_t in = 0, all = 0;
  wn_single_kept_in(nodes, count, res, hint, &in, &all);
  uint64_t prose = 0;
  for (uint32_t i = hint; i < nodes[hint].end; i++)
    if (nodes[i].tag == WN_TAG_TEXT && !(nodes[i].flags & WN_DOM_IN_LINK) &&
        !(*mask && (*mask)[i]))
      prose += nodes[i].own_text_len;
  if (2 * in > all || prose == 0)
    return WN_OK;
  if (!*mask) {
    *mask = calloc(count ? count : 1, 1);
    if (!*mask)
      return WN_ENOMEM;
  }
  for (uint32_t i = 0; i < count; i++)
    if ((i < hint && nodes[i].end <= hint) || i >= nodes[hint].end)
      (*mask)[i] = 1; /* not the hint's ancestors: a masked subtree is skipped whole */
  memset(res->keep, 0, count);
  return method == WN_SINGLE_CNR ? wn_cnr_select(page, steps, *mask, res)
                                 : wn_danag_select(page, steps, *mask, res);
}

wn_err wn_detect_single_steps(const wn_dom_page *page, wn_single_method method, uint32_t steps,
                              wn_detect_result **out, wn_diag *diag) {
  return wn_detect_single_masked(page, method, steps, NULL, 0, out, diag);
}

/* The method and its steps on one page, into res->keep (not yet
 * finished): mask (may be NULL, may grow with the hints) marks what the
 * method neither chooses nor keeps. */
static wn_err wn_single_run(const wn_dom_page *page, wn_single_method method, uint32_t steps,
                            uint8_t **mask, wn_detect_result *res) {
  wn_err err = method == WN_SINGLE_CNR ? wn_cnr_select(page, steps, *mask, res)
                                       : wn_danag_select(page, steps, *mask, res);
  const uint32_t hint = (steps & WN_SINGLE_STEP_HTML5) ? wn_single_hint(page) : WN_DOM_NONE;
  if (!err && (steps & WN_SINGLE_STEP_HTML5))
    err = wn_single_rehint(page, method, steps, hint, mask, res);
  if (!err && (steps & WN_SINGLE_STEP_HTML5))
    err = wn_single_hint_paragraphs(page, *mask, res);
  if (!err && (steps & WN_SINGLE_STEP_LINKS))
    err = wn_single_drop_links(page, res);
  if (!err && (steps & WN_SINGLE_STEP_HTML5))
    err = wn_single_html5_at(page, hint, res);
  if (!err && (steps & WN_SINGLE_STEP_BOXES))
    err = wn_single_drop_boxes(page, res);
  if (!err && (steps & WN_SINGLE_STEP_TITLE))
    err = wn_single_add_title_clean(page, res);
  if (!err && (steps & WN_SINGLE_STEP_HTML5))
    err = wn_single_recipe(page, res);
  return err;
}

/*
 * Never empty where the page has text (WN_SINGLE_STEP_RETRY). The name
 * masks and the semantic hints are web-wide conventions, and on some
 * pages they are wrong: a class or id that holds "comment" on the
 * article's own wrapper, a page whose <article> is a teaser. Nothing else
 * would notice that the page's running text is gone. Readability.js
 * retries with its cleaning switched off when its result is short; so
 * does this: when the method keeps less than a quarter of the page's
 * prose (below), it chooses again with the comment masks, the named boxes
 * and the hints off (page footers stay masked: a footer is never the
 * article, and an index page with no article must not get its legal
 * notice). The second choice is taken when it keeps more prose and
 * agrees with the first: at least half of the prose the first kept is
 * in it, so a retry that wanders off into the comment thread the first
 * had rightly masked is not taken.
 */
#define WN_SINGLE_RETRY_SHARE 4u /* kept * 4 < prose: less than a quarter */

/* Prose: the text of paragraphs (<p>) that is not link text, in bytes,
 * of the whole page (*page_prose) and of what keep keeps (*kept_prose).
 * A paragraph is the one markup every language and every site uses for
 * running text, so its share tells how much of a page's running text a
 * method kept, with no word list. */
static void wn_single_prose(const wn_dom_node *nodes, uint32_t count, const uint8_t *keep,
                            const uint8_t *mask, uint8_t *in_p, uint64_t *page_prose,
                            uint64_t *kept_prose) {
  *page_prose = *kept_prose = 0;
  for (uint32_t i = 0; i < count; i++) {
    uint32_t p = nodes[i].parent;
    in_p[i] = nodes[i].tag == WN_TAG_P || (p != WN_DOM_NONE && in_p[p]);
    if (nodes[i].tag == WN_TAG_TEXT && in_p[i] && !(nodes[i].flags & WN_DOM_IN_LINK) &&
        !(mask && mask[i])) {
      *page_prose += nodes[i].own_text_len;
      if (keep[i])
        *kept_prose += nodes[i].own_text_len;
    }
  }
}

/* The retry itself: *res is replaced by the second choice when that is
 * taken. in_p: scratch of the page's node count. */
static wn_err wn_single_retry(const wn_dom_page *page, wn_single_method method, uint32_t steps,
                              const uint8_t *mask, uint8_t *in_p, wn_detect_result **res) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint64_t prose = 0, kept = 0;
  wn_single_prose(nodes, count, (*res)->keep, mask, in_p, &prose, &kept);
  if (WN_SINGLE_RETRY_SHARE * kept >= prose)
    return WN_OK;
  wn_detect_result *again = wn_detect_result_alloc(count, (*res)->method);
  uint8_t *foot = malloc(count);
  wn_err err = WN_ENOMEM;
  if (!again || !foot)
    goto out;
  if (wn_single_mask_names(page, foot, 0) == 0) {
    free(foot);
    foot = NULL;
  }
  err = wn_single_run(page, method, steps & ~(WN_SINGLE_STEP_BOXES | WN_SINGLE_STEP_HTML5), &foot,
                      again);
  if (err)
    goto out;
  uint64_t kept2 = 0, both = 0;
  wn_single_prose(nodes, count, again->keep, NULL, in_p, &prose, &kept2);
  for (uint32_t i = 0; i < count; i++)
    if (nodes[i].tag == WN_TAG_TEXT && in_p[i] && !(nodes[i].flags & WN_DOM_IN_LINK) &&
        (*res)->keep[i] && again->keep[i])
      both += nodes[i].own_text_len;
  if (kept2 > kept && 2 * both >= kept) {
    wn_detect_result *t = *res;
    *res = again;
    again = t;
    (*res)->retried = "masks relaxed";
  }
out:
  wn_detect_result_free(again);
  free(foot);
  return err;
}

/*
 * The other method as a candidate (part of WN_SINGLE_STEP_RETRY). DANAg
 * reads lines of the source, CNR the tree's text-to-node ratios: where one
 * kept less than a quarter of the page's prose, the other often finds the
 * article (a story cut into many short blocks reads as code to DANAg; a
 * story spread over sibling blocks splits CNR's ratio). The other is taken
 * when it keeps more than twice the prose: a clear difference in size,
 * not a tie broken by a rule. "retried" names it.
 */
static wn_err wn_single_other_method(const wn_dom_page *page, wn_single_method method,
                                     uint8_t *in_p, wn_detect_result **res) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint64_t prose = 0, kept = 0;
  wn_single_prose(nodes, count, (*res)->keep, NULL, in_p, &prose, &kept);
  if (WN_SINGLE_RETRY_SHARE * kept >= prose)
    return WN_OK;
  const wn_single_method other = method == WN_SINGLE_DANAG ? WN_SINGLE_CNR : WN_SINGLE_DANAG;
  const uint32_t steps = wn_single_default_steps(other) & ~WN_SINGLE_STEP_RETRY;
  wn_detect_result *again = wn_detect_result_alloc(count, (*res)->method);
  uint8_t *mask = malloc(count);
  wn_err err = WN_ENOMEM;
  if (!again || !mask)
    goto out;
  if (!(steps & WN_SINGLE_STEP_BOXES) || wn_single_not_content_mask(page, mask) == 0) {
    free(mask);
    mask = NULL;
  }
  err = wn_single_run(page, other, steps, &mask, again);
  if (err)
    goto out;
  uint64_t kept2 = 0;
  wn_single_prose(nodes, count, again->keep, NULL, in_p, &prose, &kept2);
  if (kept2 > 2 * kept) {
    wn_detect_result *t = *res;
    *res = again;
    again = t;
    (*res)->retried = wn_single_method_name(other);
  }
out:
  wn_detect_result_free(again);
  free(mask);
  return err;
}

/* Some sites write their articleBody as HTML ("<p>...</p>": it holds an
 * end tag or a <br>; a lone "<" is text): its text, one line per block,
 * parsed by libxml2 as any page is. *body is replaced
 * (NULL when it holds no text). */
static wn_err wn_single_markup_text(char **body, size_t *len) {
  wn_dom_page *sub = NULL;
  wn_detect_result *all = NULL;
  wn_buf out;
  wn_buf_init(&out, WN_DOM_DEFAULT_MAX_BYTES);
  wn_err err = wn_dom_parse(*body, *len, NULL, &sub, NULL);
  if (err)
    goto out;
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(sub, &count);
  all = wn_detect_result_alloc(count, "json-ld");
  if (!all) {
    err = WN_ENOMEM;
    goto out;
  }
  for (uint32_t i = 0; i < count; i++)
    all->keep[i] = nodes[i].tag == WN_TAG_TEXT;
  err = wn_single_finish(nodes, count, all);
  if (!err)
    err = wn_detect_render_text(sub, all, &out);
  if (!err && wn_buf_append_char(&out, '\0') == WN_OK) {
    free(*body);
    *len = out.len - 1;
    *body = *len ? wn_buf_take(&out, NULL) : NULL;
  }
out:
  wn_buf_free(&out);
  wn_detect_result_free(all);
  wn_dom_free(sub);
  return err == WN_ENOMEM ? err : WN_OK; /* markup libxml2 cannot read stays as it is */
}

/*
 * The last resort (part of WN_SINGLE_STEP_RETRY), after the method and
 * its retry. Two candidates the page offers itself:
 *  - its JSON-LD articleBody (schema.org), the article's text as the site
 *    states it for search engines: taken when it is more than twice what
 *    was kept, so a page whose text a script writes into the page (no
 *    text in the tree) or a method that kept a teaser gets the article;
 *  - its paragraphs: when nothing at all was kept and the page has <p>
 *    text outside links and page footers, that text is the content, as
 *    trafilatura's baseline takes every <p>. Never empty where the page
 *    has running text.
 * res->retried says which. in_p: a scratch array of the page's node
 * count, or NULL.
 */
static wn_err wn_single_last_resort(const wn_dom_page *page, wn_detect_result *res,
                                    uint8_t *in_p) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  int own_p = 0;
  if (!in_p) {
    in_p = malloc(count);
    if (!in_p)
      return WN_ENOMEM;
    own_p = 1;
  }
  uint64_t prose = 0, kept = 0, all = 0;
  wn_single_prose(nodes, count, res->keep, NULL, in_p, &prose, &kept);
  for (uint32_t i = 0; i < count; i++)
    if (res->keep[i])
      all += nodes[i].own_text_len;
  wn_err err = WN_OK;
  size_t jlen = 0;
  /* A JSON-LD string is no longer than the script that holds it, so only
   * a page whose scripts are more than twice what was kept is parsed:
   * most pages never reach jansson here. */
  uint64_t scripts = 0;
  uint32_t n_meta = 0;
  const wn_dom_meta *meta = wn_dom_meta_items(page, &n_meta);
  for (uint32_t i = 0; i < n_meta; i++)
    if (meta[i].kind == WN_DOM_META_JSONLD && meta[i].text && !meta[i].cut)
      scripts += strlen(meta[i].text);
  char *body = 2 * all < scripts ? wn_detect_jsonld_body(page, &jlen) : NULL;
  if (body && (strstr(body, "</") || strstr(body, "<br"))) {
    err = wn_single_markup_text(&body, &jlen);
    if (err)
      goto out;
  }
  if (body && 2 * all < (uint64_t)jlen) {
    memset(res->keep, 0, count);
    res->body_text = body;
    res->retried = "json-ld articleBody";
    body = NULL;
  } else if (all == 0 && prose > 0) {
    uint8_t *foot = malloc(count);
    if (!foot) {
      err = WN_ENOMEM;
      goto out;
    }
    wn_single_mask_names(page, foot, 0);
    for (uint32_t i = 0; i < count; i++)
      if (nodes[i].tag == WN_TAG_TEXT && in_p[i] && !foot[i] && !(nodes[i].flags & WN_DOM_IN_LINK))
        res->keep[i] = 1;
    free(foot);
    res->retried = "paragraphs";
  }
out:
  free(body);
  if (own_p)
    free(in_p);
  return err;
}

wn_err wn_detect_single_masked(const wn_dom_page *page, wn_single_method method, uint32_t steps,
                               const uint8_t *known, int mask_known, wn_detect_result **out,
                               wn_diag *diag) {
  wn_err err = WN_OK;
  uint8_t *mask = NULL;
  uint8_t *in_p = NULL;
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
  if ((steps & WN_SINGLE_STEP_BOXES) && (!mask_known || known)) {
    mask = malloc(count ? count : 1);
    if (!mask) {
      err = wn_diag_set(diag, WN_ENOMEM, "detect: out of memory for %u nodes", count);
      goto out;
    }
    if (mask_known) {
      memcpy(mask, known, count); /* the semantic hints may add to it */
    } else if (wn_single_not_content_mask(page, mask) == 0) {
      free(mask); /* no thread: the methods run as without the step */
      mask = NULL;
    }
  }
  err = wn_single_run(page, method, steps, &mask, res);
  if (!err && (steps & WN_SINGLE_STEP_RETRY) && count > 0) {
    in_p = malloc(count);
    err = in_p ? wn_single_retry(page, method, steps, mask, in_p, &res) : WN_ENOMEM;
    if (!err)
      err = wn_single_other_method(page, method, in_p, &res);
    if (!err)
      err = wn_single_last_resort(page, res, in_p);
  }
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
  free(mask);
  free(in_p);
  return err;
}

wn_err wn_detect_single(const wn_dom_page *page, wn_single_method method,
                        wn_detect_result **out, wn_diag *diag) {
  return wn_detect_single_steps(page, method, wn_single_default_steps(method), out, diag);
}
