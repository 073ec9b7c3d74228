/*
 * detect/danag.c: DANAg, content and code density of the lines of a
 * normalised source (the DANAg paper of Mohammadzadeh, Gottron,
 * Schweiggert and Nakhaeizadeh).
 *
 *   Sec. 3.1  per line, T1 = characters of content, T2 = characters of code;
 *   Sec. 3.2  Formula 1 smooths T1 - T2 over neighbouring lines; the run of
 *             lines above the axis with most content is the first paragraph;
 *   Sec. 3.3  runs within a gap of 20 lines before and after it join it;
 *   Sec. 3.4  the text of that area is the main content.
 *
 * The normalised source. The paper finds the lines of a normalised HTML
 * file and searches its tokens in them. We write the source from the
 * compact tree instead, so that every line maps back to text nodes without
 * searching: a line breaks before and after every block element (the
 * places where a normalising pretty-printer breaks lines), inline elements
 * and text stay on their line. Code is the length the tags would have in
 * such a source: "<name id=".." class="..">", "</name>". The tree keeps
 * no other attributes, so an <a> is charged WN_DANAG_HREF_CODE more for
 * its href and an <img> WN_DANAG_SRC_CODE for its src: in real sources
 * these are the bulk of a menu's code. Script, style and comments are not
 * in the tree, which is the paper's preprocessing step.
 *
 * Markup inside prose is not code. Sec. 3.1's hypothesis is that content
 * lines hold more text than tags, and Sec. 5 finds where it fails: on
 * "fully structured" pages (Wikipedia, the manuals, F1 0.40) every line of
 * the content carries many tags. Those tags are inline formatting of the
 * text itself (<code><span class="pre">, <em>, a highlighter's <span
 * class="k"> in a <pre>), and charging them stopped DANAg at the first
 * code block or marked-up paragraph of a manual (a twentieth of a long
 * manual page kept). Boilerplate is made of blocks, links, images
 * and form controls; formatting inside a block that is not mostly link
 * text is charged nothing (wn_danag_free_markup). In a menu or a teaser
 * list (a block that is mostly link text) the same tags are still code.
 */
#include "detect/single_int.h"

#include <stdlib.h>
#include <string.h>

/* An href or a src as the source would spell it: ` href="..."` with a
 * path of some thirty characters. */
#define WN_DANAG_HREF_CODE 40u
#define WN_DANAG_SRC_CODE 40u
/* Sec. 3.3: "We configure the gap parameter with a value of 20." */
#define WN_DANAG_GAP 20u

/* An inline element that formats text (not a link, image or form
 * control) inside a block whose text is less than half link text: its
 * tags are part of the prose, not code. Climbs to the nearest block
 * (bounded by the tree's depth cap). */
static int wn_danag_free_markup(const wn_dom_node *nodes, const wn_dom_node *n) {
  if (n->flags & WN_DOM_BLOCK || n->text_len == 0)
    return 0;
  switch (n->tag) {
  case WN_TAG_A:
  case WN_TAG_IMG:
  case WN_TAG_BR:
  case WN_TAG_INPUT:
  case WN_TAG_SELECT:
  case WN_TAG_OPTION:
  case WN_TAG_BUTTON:
  case WN_TAG_TEXTAREA:
  case WN_TAG_LABEL:
  case WN_TAG_FORM:
    return 0;
  default:
    break;
  }
  const wn_dom_node *b = n;
  while (!(b->flags & WN_DOM_BLOCK) && b->parent != WN_DOM_NONE)
    b = &nodes[b->parent];
  return 2 * (uint64_t)b->link_text_len < b->text_len;
}

static uint32_t wn_danag_start_code(const wn_dom_node *n) {
  uint32_t len = 2u + (uint32_t)strlen(n->name); /* "<name>" */
  if (n->id)
    len += 6u + (uint32_t)strlen(n->id); /* ` id=""` */
  if (n->cls)
    len += 9u + (uint32_t)strlen(n->cls); /* ` class=""` */
  if (n->tag == WN_TAG_A)
    len += WN_DANAG_HREF_CODE;
  if (n->tag == WN_TAG_IMG)
    len += WN_DANAG_SRC_CODE;
  return len;
}

static int wn_danag_void(const wn_dom_node *n) {
  return n->tag == WN_TAG_BR || n->tag == WN_TAG_HR || n->tag == WN_TAG_IMG ||
         n->tag == WN_TAG_INPUT;
}

/* Characters (not bytes) of a text: UTF-8 continuation bytes do not count. */
static uint32_t wn_danag_text_chars(const char *s, uint32_t len) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < len; i++)
    n += ((unsigned char)s[i] & 0xC0u) != 0x80u;
  return n;
}

typedef struct wn_danag_writer {
  const wn_dom_node *nodes;
  const uint8_t *mask; /* text not counted as content, or NULL */
  uint32_t *content;
  uint32_t *code;
  uint32_t line;
  int used; /* the current line holds something */
} wn_danag_writer;

static void wn_danag_break(wn_danag_writer *w) {
  if (w->used) {
    w->line++;
    w->content[w->line] = 0;
    if (w->code)
      w->code[w->line] = 0;
    w->used = 0;
  }
}

/* Closes element e: its end tag, and a line break after a block. */
static void wn_danag_close(wn_danag_writer *w, const wn_dom_node *e) {
  if (w->code && !wn_danag_void(e) && !wn_danag_free_markup(w->nodes, e)) {
    w->code[w->line] += 3u + (uint32_t)strlen(e->name);
    w->used = 1;
  }
  if (e->flags & WN_DOM_BLOCK)
    wn_danag_break(w);
}

uint32_t wn_danag_lines(const wn_dom_page *page, const uint8_t *mask, uint32_t *content,
                        uint32_t *code, uint32_t *line_of) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  wn_danag_writer w = {nodes, mask, content, code, 0, 0};
  content[0] = 0;
  if (code)
    code[0] = 0;
  uint32_t prev = WN_DOM_NONE; /* the last node opened */
  for (uint32_t i = 0; i < count; i++) {
    /* End tags of the elements that closed before i: climb from the last
     * node while its subtree ends at or before i (bounded by the depth
     * cap; each element is closed once). */
    for (uint32_t e = prev; e != WN_DOM_NONE && nodes[e].end <= i; e = nodes[e].parent)
      if (nodes[e].tag != WN_TAG_TEXT)
        wn_danag_close(&w, &nodes[e]);
    const wn_dom_node *n = &nodes[i];
    if (mask && mask[i]) {
      /* A masked subtree (a comment thread) is left out of the source, as
       * script and style are: no line, no content, no code, so that the
       * paragraphs on either side of it are neighbours. */
      for (uint32_t j = i; j < n->end; j++)
        line_of[j] = w.line;
      prev = n->parent;
      i = n->end - 1;
      continue;
    }
    if (n->tag == WN_TAG_TEXT) {
      line_of[i] = w.line;
      w.content[w.line] += wn_danag_text_chars(n->text, n->own_text_len);
      w.used = 1;
    } else {
      if (n->flags & WN_DOM_BLOCK)
        wn_danag_break(&w);
      line_of[i] = w.line;
      if (code && !wn_danag_free_markup(nodes, n))
        w.code[w.line] += wn_danag_start_code(n);
      w.used = 1;
    }
    prev = i;
  }
  for (uint32_t e = prev; e != WN_DOM_NONE; e = nodes[e].parent)
    if (nodes[e].tag != WN_TAG_TEXT)
      wn_danag_close(&w, &nodes[e]);
  return w.used ? w.line + 1 : w.line;
}

void wn_danag_smooth(const uint32_t *content, const uint32_t *code, uint32_t n, int64_t *diff) {
  for (uint32_t i = 0; i < n; i++) {
    int64_t d = 0;
    for (uint32_t j = i ? i - 1 : 0; j <= i + 1 && j < n; j++)
      d += (int64_t)content[j] - (int64_t)code[j];
    diff[i] = d;
  }
}

int wn_danag_area(const uint32_t *content, const int64_t *diff, uint32_t n, uint32_t gap,
                  uint32_t *first, uint32_t *last) {
  /* Sec. 3.2: among the runs of lines above the axis, the one with the
   * most characters of content. */
  uint64_t best = 0;
  int found = 0;
  for (uint32_t i = 0; i < n;) {
    if (diff[i] <= 0) {
      i++;
      continue;
    }
    uint32_t j = i;
    uint64_t sum = 0;
    while (j < n && diff[j] > 0)
      sum += content[j++];
    if (!found || sum > best) {
      best = sum;
      *first = i;
      *last = j - 1;
      found = 1;
    }
    i = j;
  }
  if (!found)
    return 0;
  /* Sec. 3.3: runs at most gap lines away join the area, on both sides,
   * until none is that close. */
  uint32_t f = *first, l = *last;
  for (uint32_t i = l + 1; i < n && i - l - 1 <= gap; i++)
    if (diff[i] > 0)
      l = i;
  for (uint32_t i = f; i-- > 0 && f - i - 1 <= gap;)
    if (diff[i] > 0)
      f = i;
  *first = f;
  *last = l;
  return 1;
}

/*
 * The article's container (WN_SINGLE_STEP_CONTAINER). Sec. 3.3's gap is
 * counted in lines of the normalised source, and an inline box inside a
 * story (a pull quote, a "related stories" box, a table of figures) is
 * often longer than 20 lines: the area then holds one half of the story,
 * and the paper's method loses the other (a story cut at its fact box).
 * The tree knows what the lines do not: the
 * element that holds most (more than half) of the area's text is the
 * story's container, and its other lines where content outweighs code (the smoothed
 * difference above the axis, as Sec. 3.2 reads every line) are the rest
 * of the story, however far from the area; the lines of the box between
 * stay out (joining the whole span of lines, boxes between included, was
 * measured lower on both news corpora). A paragraph (<p>) of the
 * container comes in however short: its markup says it is running text,
 * where a one-line paragraph between empty ad slots has lines that the
 * smoothing reads as code. What it costs: text ads inside the container
 * whose lines read as prose, or that are set as paragraphs, come in with
 * the story.
 */
void wn_danag_keep_prose(const wn_dom_node *nodes, const uint8_t *mask, const int64_t *diff,
                         const uint32_t *line_of, uint32_t el, uint8_t *keep) {
  uint32_t para = WN_DOM_NONE; /* the <p> the walk is in */
  for (uint32_t i = el; i < nodes[el].end; i++) {
    if (nodes[i].tag == WN_TAG_P)
      para = i;
    else if (para != WN_DOM_NONE && i >= nodes[para].end)
      para = WN_DOM_NONE;
    if (nodes[i].tag == WN_TAG_TEXT && (para != WN_DOM_NONE || (diff && diff[line_of[i]] > 0)) &&
        (!mask || !mask[i]))
      keep[i] = 1;
  }
}

/* Like items: an element and a sibling of its own element and class
 * (the same class attribute, not empty). */
static int wn_danag_alike(const wn_dom_node *a, const wn_dom_node *b) {
  return a->tag == b->tag && a->cls && b->cls && strcmp(a->cls, b->cls) == 0;
}

/* The container as one of a run of like items (WN_SINGLE_STEP_CONTAINER):
 * the posts of a forum thread, the sections or text blocks a CMS builds a
 * page of, each an element of one class beside others of that class. The
 * method's area holds one of them (the longest post); the nearest
 * ancestor of the container (itself included) that has a like sibling is
 * such an item, and the prose of its like siblings comes in as the
 * container's own does. Comment threads are masked and stay out; their
 * items are the same kind of run. */
static void wn_danag_like_items(const wn_dom_node *nodes, const uint8_t *mask,
                                const int64_t *diff, const uint32_t *line_of, uint32_t c,
                                uint8_t *keep) {
  for (uint32_t x = c; x != WN_DOM_NONE; x = nodes[x].parent) {
    const uint32_t par = nodes[x].parent;
    if (par == WN_DOM_NONE || !nodes[x].cls)
      continue;
    int like = 0;
    for (uint32_t s = par + 1; s < nodes[par].end && !like; s = nodes[s].end)
      like = s != x && wn_danag_alike(&nodes[s], &nodes[x]);
    if (!like)
      continue;
    for (uint32_t s = par + 1; s < nodes[par].end; s = nodes[s].end)
      if (s != x && wn_danag_alike(&nodes[s], &nodes[x]) && !(mask && mask[s]))
        wn_danag_keep_prose(nodes, mask, diff, line_of, s, keep);
    return;
  }
}

static wn_err wn_danag_container(const wn_dom_node *nodes, uint32_t count, const uint8_t *mask,
                                 const int64_t *diff, const uint32_t *line_of, uint32_t first,
                                 uint32_t last, uint8_t *keep) {
  uint64_t *held = calloc((size_t)count + 1, sizeof *held);
  if (!held)
    return WN_ENOMEM;
  uint64_t total = 0;
  for (uint32_t i = 0; i < count; i++)
    if (nodes[i].tag == WN_TAG_TEXT && line_of[i] >= first && line_of[i] <= last &&
        (!mask || !mask[i])) {
      total += nodes[i].own_text_len;
      /* bounded by the tree's depth cap */
      for (uint32_t a = nodes[i].parent; a != WN_DOM_NONE; a = nodes[a].parent)
        held[a] += nodes[i].own_text_len;
    }
  /* The deepest such element: those holding more than half of the text
   * nest, so the last in document order is inside all the others. */
  uint32_t c = WN_DOM_NONE;
  for (uint32_t i = 0; i < count; i++)
    if (nodes[i].tag != WN_TAG_TEXT && held[i] * 2 > total)
      c = i;
  if (c != WN_DOM_NONE)
    wn_danag_keep_prose(nodes, mask, diff, line_of, c, keep);
  if (c != WN_DOM_NONE)
    wn_danag_like_items(nodes, mask, diff, line_of, c, keep);
  free(held);
  return WN_OK;
}

wn_err wn_danag_select(const wn_dom_page *page, uint32_t steps, const uint8_t *mask,
                       wn_detect_result *res) {
  wn_err err = WN_OK;
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  size_t lines = 2 * (size_t)count + 2;
  void *arr[4];
  void *block = wn_scratch_arrays(4,
                                  (const size_t[]){lines * sizeof(uint32_t),
                                                   lines * sizeof(uint32_t),
                                                   lines * sizeof(int64_t),
                                                   ((size_t)count + 1) * sizeof(uint32_t)},
                                  0u, arr);
  uint32_t *content = arr[0];
  uint32_t *code = arr[1];
  int64_t *diff = arr[2];
  uint32_t *line_of = arr[3];
  if (!block) {
    err = WN_ENOMEM;
    goto out;
  }
  if (count == 0)
    goto out;
  uint32_t n = wn_danag_lines(page, mask, content, code, line_of);
  wn_danag_smooth(content, code, n, diff);
  uint32_t first = 0, last = 0;
  if (!wn_danag_area(content, diff, n, WN_DANAG_GAP, &first, &last))
    goto out; /* no line where content outweighs code: nothing selected */
  /* Sec. 3.4: the area goes to the parser whole; its text is the content. */
  for (uint32_t i = 0; i < count; i++)
    if (nodes[i].tag == WN_TAG_TEXT && line_of[i] >= first && line_of[i] <= last &&
        (!mask || !mask[i]))
      res->keep[i] = 1;
  if (steps & WN_SINGLE_STEP_CONTAINER)
    err = wn_danag_container(nodes, count, mask, diff, line_of, first, last, res->keep);
out:
  wn_scratch_release(block);
  return err;
}
