/*
 * detect/repeats.c: the output never holds the story twice.
 *
 * Pages hold their story twice: an A/B test sends two copies and hides
 * one with CSS, a theme writes the article once for wide screens and once
 * for narrow ones, an "infinite scroll" page appends the story again.
 * Blocks too: a product's description in a tab and again in the
 * accordion that replaces the tabs on a phone, a carousel's cloned slides.
 * Every method keeps what it finds, and with two copies in its area it
 * keeps both (precision halves). A reader sees one. So after every
 * method, an element whose kept text equals that of an earlier element
 * (not one around it) is left out when that text is
 *  - a copy of a story: two lines or more, a sentence or more, and a
 *    quarter of all the kept text or more; or
 *  - a copy of a block of two lines or more (80 bytes or more) that
 *    does not sit in the same place of like containers as the first
 *    copy. A manual that says the same thing of two functions repeats a
 *    paragraph inside two entries of one signature, and the records of a
 *    list repeat their template's fine print (a coupon's terms under each
 *    offer); both keep every copy; or
 *  - a copy of one line (80 bytes or more) placed otherwise, on a page
 *    whose shape is not documentation (wn_detect_page_shape): a feature
 *    in a tab and in its accordion, a testimonial in a carousel's clone.
 *    A manual repeats its version notes ("Changed in version 3.5: ...")
 *    and parameter lines under entries of different classes, and a
 *    reader expects each; or
 *  - a quotation (blockquote, q) of a line (80 bytes or more) or more
 *    that the output holds outside quotations: a reply quoting the post
 *    it answers, a pull quote repeating a paragraph of its article. The
 *    quoted copy goes wherever it stands; the words stay where they were
 *    first written (the gold of threads holds them once).
 * Then lines go too (no element is a copy): a quotation's line that the
 * output holds unquoted, and a line the output holds earlier in another
 * place (wn_repeat_drop_lines). Last, text glued to its own twin
 * (wn_repeat_drop_twins).
 *
 * Elements are compared by a hash of their kept text nodes, in order
 * (each node's text hashed, the hashes of an element's children with kept
 * text hashed in turn), its length and its lines (lines of DANAg's
 * normalised source, wn_danag_lines); lines by their letters.
 */
#include "detect/single_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* Bytes an element's kept text needs to be a copy: about a sentence. */
#define WN_REPEAT_MIN_BYTES 60u
/* Lines it needs: more than one block. */
#define WN_REPEAT_MIN_LINES 2u
/* Its share of the page's kept text: at least 1 / WN_REPEAT_SHARE. */
#define WN_REPEAT_SHARE 4u
/* Bytes a text must have for its glued twin to be taken as a copy: more
 * than a word's stutter ("ha" "ha"). */
#define WN_REPEAT_MIN_TWIN 3u

typedef struct wn_repeat_elem {
  uint64_t hash;
  uint64_t len;
  uint32_t node;
} wn_repeat_elem;

static int wn_repeat_cmp(const void *a, const void *b) {
  const wn_repeat_elem *x = a, *y = b;
  if (x->hash != y->hash)
    return x->hash < y->hash ? -1 : 1;
  if (x->len != y->len)
    return x->len < y->len ? -1 : 1;
  return x->node < y->node ? -1 : x->node > y->node;
}

/* A story's copy: two lines or more, a sentence or more, a quarter of the
 * kept text. */
static int wn_repeat_story(const wn_dom_node *n, uint64_t len, uint32_t lines, uint64_t total) {
  return len && n->tag != WN_TAG_TEXT && len >= WN_REPEAT_MIN_BYTES &&
         lines >= WN_REPEAT_MIN_LINES && WN_REPEAT_SHARE * len >= total;
}

/* A block's copy: two lines or more, WN_REPEAT_MIN_BLOCK bytes or more (a
 * tab's panel, a carousel's clone, a responsive duplicate). */
#define WN_REPEAT_MIN_BLOCK 80u
static int wn_repeat_block(const wn_dom_node *n, uint64_t len, uint32_t lines) {
  return len && n->tag != WN_TAG_TEXT && len >= WN_REPEAT_MIN_BLOCK &&
         lines >= WN_REPEAT_MIN_LINES;
}

/* A line's copy: one line, WN_REPEAT_MIN_BLOCK bytes or more. */
static int wn_repeat_line(const wn_dom_node *n, uint64_t len, uint32_t lines) {
  return len && n->tag != WN_TAG_TEXT && len >= WN_REPEAT_MIN_BLOCK && lines == 1;
}

static int wn_repeat_big(const wn_dom_node *n, uint64_t len, uint32_t lines, uint64_t total) {
  return wn_repeat_story(n, len, lines, total) || wn_repeat_block(n, len, lines) ||
         wn_repeat_line(n, len, lines);
}

/* A quotation: blockquote, q. */
static int wn_repeat_quote(const wn_dom_node *n) {
  return n->tag == WN_TAG_BLOCKQUOTE ||
         (n->tag == WN_TAG_OTHER && n->name && strcmp(n->name, "q") == 0);
}

/* Inside a quotation. */
static int wn_repeat_quoted(const wn_dom_node *nodes, uint32_t i) {
  for (; i != WN_DOM_NONE; i = nodes[i].parent)
    if (wn_repeat_quote(&nodes[i]))
      return 1;
  return 0;
}

/* Two copies in the same place of like containers: every ancestor of one
 * up to their common ancestor has the tag and class of the other's at the
 * same height (ids name each entry or section apart, so they are not
 * compared). The records of a list (a coupon's terms under each offer)
 * and a manual's entries (a parameter's paragraph in two functions) repeat
 * a part of their template; a tab's panel and its accordion, a wide and a
 * narrow copy, sit in containers of different names. */
static int wn_repeat_like_placed(const wn_dom_node *nodes, uint32_t a, uint32_t b) {
  while (a != b && a != WN_DOM_NONE && b != WN_DOM_NONE) {
    if (nodes[a].depth != nodes[b].depth || strcmp(nodes[a].name, nodes[b].name) != 0 ||
        strcmp(nodes[a].cls ? nodes[a].cls : "", nodes[b].cls ? nodes[b].cls : "") != 0)
      return 0;
    a = nodes[a].parent;
    b = nodes[b].parent;
  }
  return a == b;
}

/* Letters (bytes not white space) a quoted line needs to be judged: a
 * line of about 80 bytes. */
#define WN_REPEAT_MIN_LINE_CHARS 64u

typedef struct wn_repeat_line_key {
  uint64_t hash;
  uint32_t chars;
  uint32_t line;
} wn_repeat_line_key;

static int wn_repeat_line_cmp(const void *a, const void *b) {
  const wn_repeat_line_key *x = a, *y = b;
  if (x->hash != y->hash)
    return x->hash < y->hash ? -1 : 1;
  if (x->chars != y->chars)
    return x->chars < y->chars ? -1 : 1;
  return x->line < y->line ? -1 : x->line > y->line;
}

/* The lines of the kept text that the output holds earlier. Forum
 * software writes a post as one element of lines cut by <br>, and a
 * reply quotes some of them: no element is a copy, its lines are. Lines
 * are DANAg's (line_of), compared by their letters (white space left out:
 * a quote re-flows it); a line of WN_REPEAT_MIN_LINE_CHARS letters or
 * more goes
 *  - when it is wholly quoted and the same line stands unquoted; or
 *  - when the same line stands earlier in another place (the element
 *    holding its first text is not in the same place of like containers
 *    as the earlier copy's, wn_repeat_like_placed), or just before it,
 *    with no other kept text between (a stutter: a pricing toggle's two
 *    panels, a slide beside its clone), on a page whose shape is not
 *    documentation: a post quoted in a reply without a quotation's
 *    markup (vBulletin's "Originally Posted by" panel), a line of a tab
 *    and of its accordion inside larger blocks. Other like-placed copies
 *    stay, as whole elements do: a list's records repeat their fine
 *    print, each under its own offer. A manual's table repeats a cell
 *    row after row. */
static wn_err wn_repeat_drop_lines(const wn_dom_page *page, wn_detect_result *res,
                                   const uint32_t *line_of, size_t n_lines, int *manual) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint8_t *keep = res->keep;
  void *arr[5];
  void *block = wn_scratch_arrays(5,
                                  (const size_t[]){count, n_lines * sizeof(uint64_t),
                                                   n_lines * sizeof(uint32_t),
                                                   n_lines * sizeof(uint32_t), n_lines},
                                  0x14u, arr);
  uint8_t *quoted = arr[0];
  uint64_t *lhash = arr[1];
  uint32_t *lchars = arr[2];
  uint32_t *lfirst = arr[3];
  uint8_t *lkind = arr[4]; /* bit 1: unquoted text on the line, bit 2: quoted */
  wn_repeat_line_key *keys = NULL;
  wn_err err = WN_ENOMEM;
  if (!block)
    goto out;
  for (size_t l = 0; l < n_lines; l++)
    lhash[l] = WN_HASH_SEED;
  size_t n = 0;
  for (uint32_t i = 0; i < count; i++) {
    const uint32_t p = nodes[i].parent;
    quoted[i] = (uint8_t)((p != WN_DOM_NONE && quoted[p]) || wn_repeat_quote(&nodes[i]));
    if (nodes[i].tag != WN_TAG_TEXT || !keep[i] || !nodes[i].own_text_len)
      continue;
    const uint32_t l = line_of[i];
    const char *t = nodes[i].text;
    for (uint32_t a = 0, b; a < nodes[i].own_text_len; a = b) {
      while (a < nodes[i].own_text_len && wn_html_space(t[a]))
        a++;
      for (b = a; b < nodes[i].own_text_len && !wn_html_space(t[b]); b++)
        ;
      lhash[l] = wn_hash_bytes(lhash[l], t + a, b - a);
      lchars[l] += b - a;
    }
    if (lkind[l] == 0) {
      lfirst[l] = i;
      n++;
    }
    lkind[l] |= quoted[i] ? 2 : 1;
  }
  keys = malloc((n ? n : 1) * sizeof *keys);
  if (!keys)
    goto out;
  err = WN_OK;
  n = 0;
  for (size_t l = 0; l < n_lines; l++)
    if (lkind[l] && lchars[l] >= WN_REPEAT_MIN_LINE_CHARS)
      keys[n++] = (wn_repeat_line_key){lhash[l], lchars[l], (uint32_t)l};
  qsort(keys, n, sizeof *keys, wn_repeat_line_cmp);
  /* In each run of equal lines (sorted by place) with an unquoted one,
   * every wholly quoted one goes (lkind 4); quoted copies alone all stay
   * (old pages indent with <blockquote>). Then a later line placed
   * otherwise than the run's first, or just after its copy, goes. */
  for (size_t a = 0; a < n;) {
    size_t b = a + 1;
    int unquoted = lkind[keys[a].line] != 2;
    for (; b < n && keys[b].hash == keys[a].hash && keys[b].chars == keys[a].chars; b++)
      unquoted |= lkind[keys[b].line] != 2;
    for (size_t k = a; k < b; k++)
      if (lkind[keys[k].line] == 2 && unquoted)
        lkind[keys[k].line] = 4;
    const uint32_t first = nodes[lfirst[keys[a].line]].parent;
    for (size_t k = a + 1; k < b; k++) {
      if (lkind[keys[k].line] == 4)
        continue;
      /* A stutter: no other kept text since the copy before it. */
      int between = 0;
      for (uint32_t l = keys[k - 1].line + 1; l < keys[k].line && !between; l++)
        between = lkind[l] != 0 && lkind[l] != 4;
      if (between && wn_repeat_like_placed(nodes, first, nodes[lfirst[keys[k].line]].parent))
        continue;
      if (*manual < 0) /* read once, and only for a page with such a copy */
        *manual = wn_detect_page_shape(page, res, NULL) == WN_PAGE_DOCUMENTATION;
      if (!*manual)
        lkind[keys[k].line] = 4;
    }
    a = b;
  }
  for (uint32_t i = 0; i < count; i++)
    if (nodes[i].tag == WN_TAG_TEXT && keep[i] && nodes[i].own_text_len &&
        lkind[line_of[i]] == 4)
      keep[i] = 0;
out:
  wn_scratch_release(block);
  free(keys);
  return err;
}

/*
 * A story's raw copy: one text node of many lines in a <pre> (often a
 * hidden one) holding the page's Markdown or plain-text source for
 * machines ("raw-markdown"), repeating lines the output holds rendered.
 * No element is a copy (its markup differs) and no line is (the raw text
 * is one node, one of DANAg's lines). So its own lines, cut at its line
 * feeds, are compared with the output's rendered lines (DANAg's lines of
 * the other kept text, outside such nodes) by their letters alone:
 * Markdown's marks (#, *, _, >, a numbered item's "1.") and the
 * rendering's punctuation drop out, and so does a link's destination
 * (wn_repeat_letters). When the lines it shares hold half its letters or
 * more and it is a story's size (a quarter of the kept text, as
 * wn_repeat_story), it goes. A tutorial's full listing after its steps'
 * listings repeats lines of other raw nodes, not rendered ones, and
 * stays. (Preformatted text, <pre> and its kin, is the only text that
 * keeps its line feeds in the tree: WN_DOM_IN_PRE.)
 */
#define WN_REPEAT_RAW_SHARED 2u /* shared lines hold 1/2 of its letters */

static int wn_repeat_letter(unsigned char c) { return c >= 0x80 || wn_ascii_alpha(c); }

/* Hash of [t, t + len)'s letters, their number in *chars. A Markdown
 * link's destination ("](https://...)") is skipped: the rendered line
 * shows its text only. */
static uint64_t wn_repeat_letters(uint64_t h, const char *t, size_t len, uint32_t *chars) {
  for (size_t a = 0, b; a < len; a = b) {
    while (a < len && !wn_repeat_letter((unsigned char)t[a])) {
      if (t[a] == ']' && a + 1 < len && t[a + 1] == '(') {
        const char *close = memchr(t + a, ')', len - a);
        a = close ? (size_t)(close - t) : len;
        continue;
      }
      a++;
    }
    for (b = a; b < len && wn_repeat_letter((unsigned char)t[b]); b++)
      ;
    h = wn_hash_bytes(h, t + a, b - a);
    *chars += (uint32_t)(b - a);
  }
  return h;
}

/* n is a text node of preformatted text of two lines or more (its text
 * as written: wn_dom_raw_text). */
static int wn_repeat_raw_node(const wn_dom_node *n) {
  if (n->tag != WN_TAG_TEXT || !(n->flags & WN_DOM_IN_PRE) ||
      n->own_text_len < WN_REPEAT_MIN_BLOCK)
    return 0;
  const char *nl = strchr(wn_dom_raw_text(n), '\n');
  while (nl && wn_html_space(*nl))
    nl++;
  return nl && *nl;
}

static wn_err wn_repeat_drop_raw(const wn_dom_page *page, wn_detect_result *res,
                                 const uint32_t *line_of, size_t n_lines) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint64_t total = 0;
  uint32_t raw = 0;
  for (uint32_t i = 0; i < count; i++)
    if (nodes[i].tag == WN_TAG_TEXT && res->keep[i]) {
      total += nodes[i].own_text_len;
      raw += (uint32_t)wn_repeat_raw_node(&nodes[i]);
    }
  int big = 0;
  for (uint32_t i = 0; raw && i < count && !big; i++)
    big = nodes[i].tag == WN_TAG_TEXT && res->keep[i] && wn_repeat_raw_node(&nodes[i]) &&
          WN_REPEAT_SHARE * nodes[i].own_text_len >= total;
  if (!big)
    return WN_OK; /* the common case: no allocation */
  void *arr[3];
  void *block = wn_scratch_arrays(3,
                                  (const size_t[]){n_lines * sizeof(uint64_t),
                                                   n_lines * sizeof(uint32_t), n_lines},
                                  0x6u, arr);
  if (!block)
    return WN_ENOMEM;
  uint64_t *lhash = arr[0];
  uint32_t *lchars = arr[1];
  uint8_t *lraw = arr[2]; /* the line holds a raw node */
  for (size_t l = 0; l < n_lines; l++)
    lhash[l] = WN_HASH_SEED;
  for (uint32_t i = 0; i < count; i++) {
    if (nodes[i].tag != WN_TAG_TEXT || !res->keep[i] || !nodes[i].own_text_len)
      continue;
    const uint32_t l = line_of[i];
    lraw[l] |= (uint8_t)wn_repeat_raw_node(&nodes[i]);
    lhash[l] = wn_repeat_letters(lhash[l], nodes[i].text, nodes[i].own_text_len, &lchars[l]);
  }
  size_t n = 0;
  for (size_t l = 0; l < n_lines; l++)
    if (lchars[l] && !lraw[l])
      n++;
  wn_repeat_line_key *keys = malloc((n ? n : 1) * sizeof *keys);
  if (!keys) {
    wn_scratch_release(block);
    return WN_ENOMEM;
  }
  n = 0;
  for (size_t l = 0; l < n_lines; l++)
    if (lchars[l] && !lraw[l])
      keys[n++] = (wn_repeat_line_key){lhash[l], lchars[l], (uint32_t)l};
  qsort(keys, n, sizeof *keys, wn_repeat_line_cmp);
  for (uint32_t i = 0; i < count; i++) {
    const wn_dom_node *t = &nodes[i];
    if (t->tag != WN_TAG_TEXT || !res->keep[i] || !wn_repeat_raw_node(t) ||
        WN_REPEAT_SHARE * t->own_text_len < total)
      continue;
    uint64_t all = 0, shared = 0;
    const char *text = wn_dom_raw_text(t);
    const size_t len = strlen(text);
    for (size_t a = 0, b; a < len; a = b + 1) {
      const char *nl = memchr(text + a, '\n', len - a);
      b = nl ? (size_t)(nl - text) : len;
      uint32_t chars = 0;
      const uint64_t h = wn_repeat_letters(WN_HASH_SEED, text + a, b - a, &chars);
      if (!chars)
        continue;
      all += chars;
      size_t lo = 0, hi = n;
      while (lo < hi) { /* the first key not below (h, chars) */
        const size_t mid = lo + (hi - lo) / 2;
        if (keys[mid].hash < h || (keys[mid].hash == h && keys[mid].chars < chars))
          lo = mid + 1;
        else
          hi = mid;
      }
      if (lo < n && keys[lo].hash == h && keys[lo].chars == chars)
        shared += chars;
    }
    if (all && WN_REPEAT_RAW_SHARED * shared >= all)
      res->keep[i] = 0;
  }
  free(keys);
  wn_scratch_release(block);
  return WN_OK;
}

/* A text glued to an identical text just before it on the same line, with
 * no white space between them in the source ("Seller's other
 * itemsSeller's other items", "UsedUsed"), reads as nonsense: a sighted
 * reader sees one of the two, the other being a screen-reader copy
 * (WAI-ARIA practice: a visually hidden span that repeats a label) or a
 * twin for another screen width that CSS hides. The second goes. Words
 * written twice on purpose are separated by white space, or are short
 * ("ha" "ha"). */
static void wn_repeat_drop_twins(const wn_dom_page *page, wn_detect_result *res,
                                 const uint32_t *line_of) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint32_t prev = WN_DOM_NONE;
  for (uint32_t i = 0; i < count; i++) {
    const wn_dom_node *n = &nodes[i];
    if (n->tag != WN_TAG_TEXT || !res->keep[i] || n->own_text_len == 0)
      continue;
    if (prev != WN_DOM_NONE && line_of[prev] == line_of[i] &&
        n->own_text_len >= WN_REPEAT_MIN_TWIN && nodes[prev].own_text_len == n->own_text_len &&
        !(nodes[prev].flags & WN_DOM_SPACE_AFTER) && !(n->flags & WN_DOM_SPACE_BEFORE) &&
        memcmp(nodes[prev].text, n->text, n->own_text_len) == 0) {
      res->keep[i] = 0;
      continue; /* a third twin is compared with the first */
    }
    prev = i;
  }
}

wn_err wn_detect_drop_repeats(const wn_dom_page *page, wn_detect_result *res) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  if (count == 0 || res->body_text)
    return WN_OK;
  const size_t n_lines = 2 * (size_t)count + 1;
  void *arr[6];
  void *block = wn_scratch_arrays(6,
                                  (const size_t[]){(size_t)count * sizeof(uint32_t),
                                                   n_lines * sizeof(uint32_t),
                                                   (size_t)count * sizeof(uint64_t),
                                                   (size_t)count * sizeof(uint64_t),
                                                   (size_t)count * sizeof(uint32_t), count},
                                  0x38u, arr);
  uint32_t *line_of = arr[0];
  uint32_t *content = arr[1];
  uint64_t *hash = arr[2];
  uint64_t *len = arr[3];
  uint32_t *lines = arr[4];
  uint8_t *drop = arr[5];
  wn_repeat_elem *elems = NULL;
  wn_err err = WN_ENOMEM;
  if (!block)
    goto out;
  err = WN_OK;
  wn_danag_lines(page, NULL, content, NULL, line_of);
  int manual = -1; /* the page's shape is documentation: unread yet (read once,
                      by whichever pass meets a copy first) */
  /* Lines: a kept text node that starts a line (the first kept text of
   * its line) counts one. */
  uint32_t last_line = WN_DOM_NONE;
  uint64_t total = 0;
  for (uint32_t i = 0; i < count; i++) {
    hash[i] = WN_HASH_SEED;
    if (nodes[i].tag != WN_TAG_TEXT || !res->keep[i] || nodes[i].own_text_len == 0)
      continue;
    hash[i] = wn_hash_bytes(WN_HASH_SEED, nodes[i].text, nodes[i].own_text_len);
    len[i] = nodes[i].own_text_len;
    total += len[i];
    if (line_of[i] != last_line) {
      lines[i] = 1;
      last_line = line_of[i];
    }
  }
  /* Each element from its children, last child first (the same order
   * for every copy). */
  uint32_t n = 0;
  for (uint32_t i = count; i-- > 0;) {
    const uint32_t p = nodes[i].parent;
    if (wn_repeat_big(&nodes[i], len[i], lines[i], total))
      n++;
    if (p == WN_DOM_NONE || !len[i])
      continue;
    hash[p] = wn_hash_bytes(hash[p], &hash[i], sizeof hash[i]);
    len[p] += len[i];
    lines[p] += lines[i];
  }
  if (n < 2)
    goto lines; /* no two elements large enough to be copies */
  elems = malloc((size_t)n * sizeof *elems);
  if (!elems) {
    err = WN_ENOMEM;
    goto out;
  }
  n = 0;
  for (uint32_t i = 0; i < count; i++)
    if (wn_repeat_big(&nodes[i], len[i], lines[i], total))
      elems[n++] = (wn_repeat_elem){hash[i], len[i], i};
  qsort(elems, n, sizeof *elems, wn_repeat_cmp);
  /* In each run of equal elements (sorted by place), the first stays and
   * a later one that lies after it, not inside it, goes when it is a copy
   * of a story, a quotation, or a block or a line (not in a manual) placed
   * otherwise. A quoted first copy (a pull quote above its sentence) goes
   * for the first unquoted one, which stays in its place. */
  uint32_t first = 0;
  int first_quoted = wn_repeat_quoted(nodes, elems[0].node);
  for (uint32_t k = 1; k < n; k++) {
    const uint32_t a = elems[first].node, b = elems[k].node;
    if (elems[k].hash != elems[first].hash || elems[k].len != elems[first].len) {
      first = k;
      first_quoted = wn_repeat_quoted(nodes, b);
      continue;
    }
    if (nodes[a].end > b)
      continue; /* inside the first */
    const int quoted = wn_repeat_quoted(nodes, b);
    if (first_quoted && !quoted && !drop[a]) {
      drop[a] = 1;
      first = k;
      first_quoted = 0;
    } else if (wn_repeat_story(&nodes[b], elems[k].len, lines[b], total) ||
               (quoted && !first_quoted) ||
               (wn_repeat_block(&nodes[b], elems[k].len, lines[b]) && !quoted &&
                !wn_repeat_like_placed(nodes, a, b))) {
      drop[b] = 1;
    } else if (wn_repeat_line(&nodes[b], elems[k].len, lines[b]) && !quoted &&
               !wn_repeat_like_placed(nodes, a, b)) {
      if (manual < 0) /* read once, and only for a page with such a copy */
        manual = wn_detect_page_shape(page, res, NULL) == WN_PAGE_DOCUMENTATION;
      if (!manual)
        drop[b] = 1;
    }
  }
  for (uint32_t i = 0; i < count;) {
    if (drop[i]) {
      memset(res->keep + i, 0, nodes[i].end - i);
      i = nodes[i].end;
      continue;
    }
    i++;
  }
lines:
  err = wn_repeat_drop_lines(page, res, line_of, n_lines, &manual);
  if (!err)
    err = wn_repeat_drop_raw(page, res, line_of, n_lines);
  if (!err)
    wn_repeat_drop_twins(page, res, line_of);
out:
  wn_scratch_release(block);
  free(elems);
  return err;
}
