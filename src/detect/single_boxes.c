/*
 * detect/single_boxes.c: the steps that take boxes out of a method's
 * choice and bring its headline in (WN_SINGLE_STEP_LINKS, _BOXES and
 * _TITLE; docs/single-page.md). Each reads and writes res->keep.
 */
#include "detect/single_int.h"

#include <stdlib.h>
#include <string.h>

/* The walk both box steps share: an element (not a text node) that holds
 * some but less than half of the kept text and that is_box says is a box
 * has its whole subtree left out. links[] counts the link text nodes of each
 * subtree, for is_box. */
typedef int (*wn_single_box_test)(const wn_dom_page *page, const wn_dom_node *n, uint32_t links);

/* Box names name a box beside the content (a call to action, a promotion,
 * a meta line), not the content's own repeated parts. A run of
 * WN_SINGLE_BOX_PARTS or more like sibling boxes (wn_dom_like: kept
 * siblings with no other kept text between them) that together hold at
 * least half of the kept text is the page's parts, cards a page builder
 * named "call-to-action": it stays, unless an element around it that
 * holds less than all the kept text is a box itself (the slides of a
 * promotion bar). Sets *run_end to the end of the run's last element. */
#define WN_SINGLE_BOX_PARTS 3u
static int wn_single_box_parts(const wn_dom_page *page, const uint32_t *kept,
                               const uint32_t *links, uint32_t total, uint32_t first,
                               wn_single_box_test is_box, uint32_t *run_end) {
  const wn_dom_node *nodes = wn_dom_nodes(page, NULL);
  uint64_t sum = 0;
  uint32_t like = 0;
  *run_end = nodes[first].end;
  for (uint32_t c = first; c != WN_DOM_NONE; c = nodes[c].next_sibling) {
    if (kept[c] == 0)
      continue;
    if (!wn_dom_like(&nodes[first], &nodes[c]) || 2 * (uint64_t)kept[c] >= total ||
        !is_box(page, &nodes[c], links[c]))
      break;
    sum += kept[c];
    like++;
    *run_end = nodes[c].end;
  }
  if (like < WN_SINGLE_BOX_PARTS || 2 * sum < total)
    return 0;
  for (uint32_t a = nodes[first].parent; a != WN_DOM_NONE; a = nodes[a].parent)
    if (kept[a] < total && is_box(page, &nodes[a], links[a]))
      return 0;
  return 1;
}

/* parts: whether runs of like boxes may be the page's parts
 * (wn_single_box_parts). */
static wn_err wn_single_drop_minor(const wn_dom_page *page, wn_detect_result *res,
                                   wn_single_box_test is_box, int parts) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  void *arr[2];
  void *block = wn_scratch_arrays(
      2, (const size_t[]){(size_t)count * sizeof(uint32_t), (size_t)count * sizeof(uint32_t)},
      0x3u, arr);
  if (!block)
    return WN_ENOMEM;
  uint32_t *kept = arr[0];  /* kept text bytes */
  uint32_t *links = arr[1]; /* link text nodes */
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
      uint32_t run_end = 0;
      if (parts && wn_single_box_parts(page, kept, links, total, i, is_box, &run_end)) {
        i = run_end;
        continue;
      }
      for (uint32_t j = i; j < n->end; j++)
        res->keep[j] = 0;
      i = n->end;
      continue;
    }
    i++;
  }
  wn_scratch_release(block);
  return WN_OK;
}

/* A list whose every item says more outside its links than in them ("BigQuery
 * sandbox: get started at no cost", a manual's list of topics with a line
 * each) is prose that names links, not a list of links: the box measure
 * (a fifth) is for lists of headlines and tags. Still a box past half
 * link text, as any block is. */
static int wn_single_prose_list(const wn_dom_page *page, const wn_dom_node *n) {
  if ((n->tag != WN_TAG_UL && n->tag != WN_TAG_OL) ||
      2 * (uint64_t)n->link_text_len > n->text_len)
    return 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, NULL);
  uint32_t items = 0;
  for (uint32_t c = n->first_child; c != WN_DOM_NONE; c = nodes[c].next_sibling) {
    if (nodes[c].text_len == 0)
      continue;
    if (nodes[c].tag != WN_TAG_LI || nodes[c].text_len - nodes[c].link_text_len <=
                                         nodes[c].link_text_len)
      return 0;
    items++;
  }
  return items >= 2;
}

/*
 * Link boxes (WN_SINGLE_STEP_LINKS). Both papers keep everything inside
 * the chosen block or area, and in a news page that takes in the lists of
 * related stories, tags and share links beside the article. A block that
 * is mostly link text is such a list; a container (table, list, div...)
 * holding several links needs less to be one, as in Readability's cleaning
 * and in the template method's cue selector (select_cues.c): a container with
 * at least two links and more than a fifth link text (a list of prose
 * items excepted, wn_single_prose_list), any block with more than half
 * (wn_detect_link_limit). Never the container that holds most
 * of the content itself: only blocks holding less than half of the kept
 * text are judged.
 */
static int wn_single_is_link_box(const wn_dom_page *page, const wn_dom_node *n, uint32_t links) {
  return (n->flags & WN_DOM_BLOCK) &&
         (double)n->link_text_len > wn_detect_link_limit(n->tag, links) * (double)n->text_len &&
         !wn_single_prose_list(page, n);
}

wn_err wn_single_drop_links(const wn_dom_page *page, wn_detect_result *res) {
  return wn_single_drop_minor(page, res, wn_single_is_link_box, 0);
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
    if (!wn_ascii_alpha(s[i])) {
      i++;
      continue;
    }
    size_t b = i;
    while (i < 128 && wn_ascii_alpha(s[i]))
      i++;
    if (i - b >= 3 && (s[b] | 0x20) == 'c' && (s[b + 1] | 0x20) == 't' && (s[b + 2] | 0x20) == 'a' &&
        (i - b == 3 || (s[b + 2] == 'a' && wn_ascii_capital(s[b + 3]))))
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
    low[i] = wn_ascii_lower(c);
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
/* Kept text bytes per subtree (malloc'd, the page's node count), or
 * NULL when out of memory. */
uint64_t *wn_single_kept_sums(const wn_dom_node *nodes, uint32_t count, const uint8_t *keep) {
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
    qsort(lens, n, sizeof *lens, wn_u32_cmp);
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
  return wn_single_drop_boxes_parts(page, res, 1);
}

wn_err wn_single_drop_boxes_parts(const wn_dom_page *page, wn_detect_result *res, int parts) {
  wn_err err = wn_single_drop_minor(page, res, wn_single_is_named_box, parts);
  if (!err)
    err = wn_single_image_captions(page, res);
  if (!err)
    wn_single_drop_orphan_headings(page, res);
  return err;
}
