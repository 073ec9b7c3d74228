/*
 * detect/markdown.c: a result as Markdown (CommonMark, with GitHub's pipe
 * tables).
 *
 * Renders what detection kept, as the text renderer does (render.c): the
 * selected subtrees, their text nodes with result->keep set, and nothing
 * of the template. Structure comes from the compact tree (tags, text, the
 * white-space flags), and so do the attributes it reads (href, src, alt,
 * class, colspan, start: wn_dom_attr), so no libxml2 tree is needed.
 *
 * The walk is iterative over the compact tree (first_child / next_sibling
 * / parent) with an explicit stack no deeper than the tree, so the input
 * controls no recursion. One level of nesting is fixed: a table cell is
 * rendered by a walk of its own in "cell" mode, in which tables are plain
 * text, so that walk never starts another.
 *
 * Escaping follows CommonMark 0.30 (spec.commonmark.org), section 2.4
 * "Backslash escapes": any ASCII punctuation may be escaped, so only the
 * characters that would start markup where they stand are.
 */
#include "detect/detect.h"
#include "detect/detect_int.h"
#include "fetch/fetch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Containers (block quotes, list items) that indent their lines; deeper
 * nesting is rendered without further indentation rather than refused. */
#define WN_MD_MAX_BOXES 32u
/* A cell's colspan counts at most this many columns (HTML caps it at 1000;
 * a Markdown table that wide is no table a reader can use). */
#define WN_MD_MAX_COLSPAN 64u
/* Longest code fence / code span delimiter we write: a longer run of
 * backticks in the code gets this many, the spec's rule degraded. */
#define WN_MD_MAX_FENCE 32u

typedef struct wn_md_box {
  char prefix[8];  /* written on each line of the container: "> ", "   " */
  uint8_t len;
  char marker[16]; /* a list item's marker, written once on its first line */
  uint8_t marker_len;
  uint8_t started;  /* a line of the container was begun */
} wn_md_box;

typedef struct wn_md_frame {
  uint32_t node;
  uint32_t close_off;  /* inline closing text at closes[close_off..] */
  uint32_t open_off;   /* its opener, while unwritten, at open[open_off..] */
  uint8_t after;       /* newlines wanted after the element */
  uint8_t box;         /* pushed a box */
  uint8_t list;        /* a list: 1 unordered, 2 ordered */
  uint8_t emph;        /* emphasis opened: 1 em, 2 strong */
  uint8_t heading;
  uint8_t link;
  uint32_t item;       /* ordered lists: the next item's number */
} wn_md_frame;

typedef struct wn_md {
  wn_buf *out;
  const wn_dom_page *page;
  const wn_dom_node *nodes;
  const uint8_t *keep;
  const uint8_t *live;   /* the subtree holds something to render */
  const wn_render_options *opts;
  wn_url_base *base;     /* NULL: links stay as written */
  wn_md_box box[WN_MD_MAX_BOXES];
  uint32_t n_box;
  uint32_t pending_nl;   /* line breaks wanted before the next content */
  int line_open;         /* the current line has content after its prefix */
  int wrote_any;
  int space;             /* a space is owed before the next inline content */
  int hard_break;        /* a <br> waits */
  int cell;              /* rendering a table cell: one line, no blocks */
  uint32_t in_heading, in_em, in_strong, in_link;
  int heading_line;      /* the current heading's line has begun */
  int link_line;         /* the open link's "[" is written: blocks inside it
                            are spaces (a link cannot span lines) */
  wn_buf open;           /* inline openers waiting for their first content */
  wn_buf closes;         /* closing texts of the open inline elements */
  wn_buf scratch;
  wn_md_frame *stack;
  uint32_t stack_cap;
} wn_md;

static int wn_md_is(const wn_dom_node *n, const char *name) { return strcmp(n->name, name) == 0; }

static const char *wn_md_attr(const wn_md *md, const wn_dom_node *n, const char *name) {
  return wn_dom_attr(md->page, n, name);
}

/* A block break wanted before the next content; it supersedes a <br>. */
static void wn_md_want(wn_md *md, uint32_t n) {
  if (md->pending_nl < n)
    md->pending_nl = n;
  if (n)
    md->hard_break = 0;
}

/* A blank line inside the containers that have begun (one just opened
 * starts after the blank line): their prefixes, trailing blanks trimmed
 * ("> " gives ">"). */
static wn_err wn_md_blank_line(wn_md *md) {
  size_t start = md->out->len;
  wn_err err = WN_OK;
  for (uint32_t b = 0; b < md->n_box && !err && md->box[b].started; b++)
    err = wn_buf_append(md->out, md->box[b].prefix, md->box[b].len);
  while (!err && md->out->len > start && md->out->data[md->out->len - 1] == ' ')
    md->out->len--;
  return err ? err : wn_buf_append_char(md->out, '\n');
}

/* Starts a line or continues the current one, before any content: the
 * line breaks wanted, then the containers' prefixes (a list item's marker
 * on its first line). */
static wn_err wn_md_begin(wn_md *md) {
  wn_err err = WN_OK;
  if (md->cell) {
    if ((md->pending_nl || md->hard_break) && md->line_open)
      md->space = 1;
    md->pending_nl = 0;
    md->hard_break = 0;
    return WN_OK;
  }
  if (((md->in_heading && md->heading_line) || md->link_line) && md->line_open) {
    if (md->pending_nl || md->hard_break)
      md->space = 1;
    md->pending_nl = 0;
    md->hard_break = 0;
    return WN_OK;
  }
  if (md->line_open && md->pending_nl == 0 && !md->hard_break)
    return WN_OK;
  if (md->line_open && md->pending_nl <= 1 && md->hard_break)
    err = wn_buf_append_str(md->out, "\\\n"); /* CommonMark 6.7, hard line break */
  else if (md->line_open)
    err = wn_buf_append_char(md->out, '\n');
  if (md->wrote_any)
    for (uint32_t k = 1; k < md->pending_nl && !err; k++)
      err = wn_md_blank_line(md);
  for (uint32_t b = 0; b < md->n_box && !err; b++) {
    wn_md_box *box = &md->box[b];
    if (box->marker_len) {
      err = wn_buf_append(md->out, box->marker, box->marker_len);
      box->marker_len = 0;
    } else {
      err = wn_buf_append(md->out, box->prefix, box->len);
    }
    box->started = 1;
  }
  md->pending_nl = 0;
  md->hard_break = 0;
  md->line_open = 0; /* a prefix, no content yet */
  md->space = 0;
  md->wrote_any = 1;
  if (md->in_heading)
    md->heading_line = 1;
  return err;
}

static int wn_md_alnum(char c) {
  return wn_ascii_alnum(c) || (unsigned char)c >= 0x80;
}

/* "&name;" or "&#123;": text that a Markdown reader would take for an
 * entity reference (CommonMark 2.5). */
static int wn_md_entity_like(const char *s, size_t len) {
  size_t k = 1;
  while (k < len && k < 40 && (wn_md_alnum(s[k]) || s[k] == '#'))
    k++;
  return k > 1 && k < len && s[k] == ';';
}

/* Text as Markdown: the characters that would start markup escaped.
 * line_start: the text begins a line (block markers matter there). */
static wn_err wn_md_escape(wn_md *md, const char *s, size_t len, int line_start) {
  wn_buf *out = md->out;
  wn_err err = WN_OK;
  size_t k = 0;
  if (line_start && len > 0) {
    /* Block starts (CommonMark 4.1 to 5.3): ATX headings, quotes, list
     * bullets, setext underlines, ordered list numbers. */
    char c = s[0];
    if (c == '#' || c == '>' || c == '-' || c == '+' || c == '=')
      err = wn_buf_append_char(out, '\\');
    size_t d = 0;
    while (d < len && d < 10 && wn_ascii_digit(s[d]))
      d++;
    if (!err && d > 0 && d < len && (s[d] == '.' || s[d] == ')')) {
      err = wn_buf_append(out, s, d);
      if (!err)
        err = wn_buf_append_char(out, '\\');
      k = d;
    }
  }
  /* Runs of characters that need no escape go out whole: text is most of
   * a page's Markdown. */
  size_t run = k;
  for (; k < len && !err; k++) {
    char c = s[k];
    int esc = 0;
    switch (c) {
    case '\\': case '*': case '`': case '[': case ']': case '<':
      esc = 1;
      break;
    case '_': /* intraword underscores emphasise nothing (CommonMark 6.2) */
      esc = !(k > 0 && k + 1 < len && wn_md_alnum(s[k - 1]) && wn_md_alnum(s[k + 1]));
      break;
    case '~': /* GFM strikethrough */
      esc = k + 1 < len && s[k + 1] == '~';
      break;
    case '|':
      esc = md->cell;
      break;
    case '!': /* would make a following link an image */
      esc = k + 1 == len;
      break;
    case '&':
      esc = wn_md_entity_like(s + k, len - k);
      break;
    default:
      break;
    }
    if (!esc)
      continue;
    if (k > run)
      err = wn_buf_append(out, s + run, k - run);
    if (!err)
      err = wn_buf_append_char(out, '\\');
    run = k; /* the escaped character starts the next run */
  }
  if (!err && len > run)
    err = wn_buf_append(out, s + run, len - run);
  return err;
}

/* Before an inline item: the line, the owed space, the waiting openers. */
static wn_err wn_md_inline_begin(wn_md *md, int space_before, int *line_start) {
  wn_err err = wn_md_begin(md);
  if (!err && md->line_open && (md->space || space_before))
    err = wn_buf_append_char(md->out, ' ');
  *line_start = !md->line_open && md->open.len == 0;
  if (!err && md->open.len)
    err = wn_buf_append(md->out, md->open.data, md->open.len);
  if (md->in_link)
    md->link_line = 1;
  md->open.len = 0;
  md->space = 0;
  md->line_open = 1;
  return err;
}

/* ---- URLs ------------------------------------------------------------------ */

/* Appends raw resolved against md->base (as written when there is no base
 * or it does not resolve), with the characters that would end a Markdown
 * link destination percent-encoded (RFC 3986 2.1: an encoded space or
 * parenthesis names the same resource). 0 if the URL is not to be linked
 * (javascript:, empty). */
static int wn_md_url(wn_md *md, const char *raw, int is_image, wn_err *err) {
  wn_buf_reset(&md->scratch);
  *err = wn_url_base_resolve(md->base, raw, &md->scratch);
  if (*err || md->scratch.len == 0)
    return 0;
  const char *u = md->scratch.data;
  if (strncmp(u, "javascript:", 11) == 0 || (is_image && strncmp(u, "data:", 5) == 0))
    return 0;
  for (size_t k = 0; k < md->scratch.len && !*err; k++) {
    char c = u[k];
    if (c == ' ' || c == '(' || c == ')' || c == '<' || c == '>' || (unsigned char)c < 0x20)
      *err = wn_buf_printf(md->out, "%%%02X", (unsigned)(unsigned char)c);
    else
      *err = wn_buf_append_char(md->out, c);
  }
  return 1;
}

/* The image of node i: ![alt](src), src absolute. */
static wn_err wn_md_image(wn_md *md, uint32_t i) {
  const wn_dom_node *n = &md->nodes[i];
  const char *src = wn_md_attr(md, n, "src");
  wn_err err = WN_OK;
  char *first = NULL; /* the first candidate of srcset, when that is the source */
  if (!src || !*src || strncmp(src, "data:", 5) == 0) {
    /* Lazy loading puts the real source in data-src. */
    src = wn_md_attr(md, n, "data-src");
  }
  if (!src || !*src) {
    /* A responsive image may give its sources in srcset only ("a.jpg 1x,
     * b.jpg 2x"): the first candidate's URL. */
    const char *set = wn_md_attr(md, n, "srcset");
    if (set) {
      set += strspn(set, " \t\n\r\f,");
      size_t len = strcspn(set, " \t\n\r\f,");
      if (len > 0 && strncmp(set, "data:", 5) != 0) {
        first = malloc(len + 1);
        if (!first)
          return WN_ENOMEM;
        memcpy(first, set, len);
        first[len] = '\0';
        src = first;
      }
    }
  }
  if (!src || !*src)
    return WN_OK;
  const char *alt = wn_md_attr(md, n, "alt");
  /* The compact tree keeps white space only as flags of text nodes, and,
   * for images, whether white space came right before the start tag. */
  int space_before = (n->flags & WN_DOM_WS_BEFORE) != 0;
  int line_start = 0;
  err = wn_md_inline_begin(md, space_before, &line_start);
  if (!err)
    err = wn_buf_append_str(md->out, "![");
  if (!err && alt) {
    /* Alt text on one line, white space collapsed. */
    wn_buf_reset(&md->scratch);
    int blank = 0;
    for (const char *p = alt; *p && !err; p++) {
      int ws = wn_html_space(*p);
      if (ws) {
        blank = md->scratch.len > 0;
        continue;
      }
      if (blank)
        err = wn_buf_append_char(&md->scratch, ' ');
      blank = 0;
      if (!err)
        err = wn_buf_append_char(&md->scratch, *p);
    }
    if (!err && md->scratch.len)
      err = wn_md_escape(md, md->scratch.data, md->scratch.len, 0);
  }
  if (!err)
    err = wn_buf_append_str(md->out, "](");
  if (!err) {
    size_t mark = md->out->len;
    if (!wn_md_url(md, src, 1, &err) && !err)
      md->out->len = mark;
  }
  if (!err)
    err = wn_buf_append_char(md->out, ')');
  free(first);
  return err;
}

/* ---- code ------------------------------------------------------------------- */

/* The kept text of subtree i into md->scratch: as written (raw) for code
 * blocks, else collapsed and joined as the text renderer joins it. */
static wn_err wn_md_gather(wn_md *md, uint32_t i, int raw) {
  wn_buf_reset(&md->scratch);
  wn_err err = WN_OK;
  uint32_t prev = WN_DOM_NONE;
  for (uint32_t j = i; j < md->nodes[i].end && !err; j++) {
    const wn_dom_node *n = &md->nodes[j];
    if (n->tag != WN_TAG_TEXT || !md->keep[j])
      continue;
    if (raw) {
      err = wn_buf_append_str(&md->scratch, wn_dom_raw_text(n));
      continue;
    }
    if (prev != WN_DOM_NONE &&
        ((md->nodes[prev].flags & WN_DOM_SPACE_AFTER) || (n->flags & WN_DOM_SPACE_BEFORE)))
      err = wn_buf_append_char(&md->scratch, ' ');
    if (!err)
      err = wn_buf_append(&md->scratch, n->text, n->own_text_len);
    prev = j;
  }
  return err;
}

/* The longest run of backticks in s. */
static size_t wn_md_backticks(const char *s, size_t len) {
  size_t best = 0, run = 0;
  for (size_t k = 0; k < len; k++) {
    run = s[k] == '`' ? run + 1 : 0;
    if (run > best)
      best = run;
  }
  return best;
}

static wn_err wn_md_ticks(wn_buf *out, size_t n) {
  wn_err err = WN_OK;
  for (size_t k = 0; k < n && !err; k++)
    err = wn_buf_append_char(out, '`');
  return err;
}

/* Inline code (CommonMark 6.1): a backtick string longer than any run in
 * the code, padded with a space where the code starts or ends with one. */
static wn_err wn_md_code_span(wn_md *md, uint32_t i) {
  wn_err err = wn_md_gather(md, i, 0);
  if (err || md->scratch.len == 0)
    return err;
  /* scratch is reused by nothing below until the span is written. */
  const char *code = md->scratch.data;
  size_t len = md->scratch.len;
  size_t ticks = wn_md_backticks(code, len) + 1;
  if (ticks > WN_MD_MAX_FENCE)
    ticks = WN_MD_MAX_FENCE;
  int pad = code[0] == '`' || code[len - 1] == '`';
  uint32_t first = i, last = i;
  for (uint32_t j = i; j < md->nodes[i].end; j++)
    if (md->nodes[j].tag == WN_TAG_TEXT && md->keep[j]) {
      if (first == i)
        first = j;
      last = j;
    }
  int line_start = 0;
  err = wn_md_inline_begin(md, (md->nodes[first].flags & WN_DOM_SPACE_BEFORE) != 0, &line_start);
  if (!err)
    err = wn_md_ticks(md->out, ticks);
  if (!err && pad)
    err = wn_buf_append_char(md->out, ' ');
  if (!err)
    err = wn_buf_append(md->out, code, len);
  if (!err && pad)
    err = wn_buf_append_char(md->out, ' ');
  if (!err)
    err = wn_md_ticks(md->out, ticks);
  md->space = (md->nodes[last].flags & WN_DOM_SPACE_AFTER) != 0;
  return err;
}

/* The language of a code block: class="language-x" (HTML, "The code
 * element": the convention for naming a language) or "lang-x", on the pre
 * or on the code inside it. */
static void wn_md_language(const wn_md *md, uint32_t i, char *lang, size_t size) {
  lang[0] = '\0';
  for (uint32_t j = i; j < md->nodes[i].end && j < i + 3; j++) {
    const char *cls = md->nodes[j].cls;
    if (!cls || md->nodes[j].tag == WN_TAG_TEXT)
      continue;
    for (const char *p = cls; *p;) {
      while (*p == ' ' || *p == '\t' || *p == '\n')
        p++;
      const char *w = p;
      while (*p && *p != ' ' && *p != '\t' && *p != '\n')
        p++;
      size_t skip = strncmp(w, "language-", 9) == 0 ? 9 : strncmp(w, "lang-", 5) == 0 ? 5 : 0;
      if (!skip || (size_t)(p - w) <= skip)
        continue;
      size_t n = 0;
      for (const char *c = w + skip; c < p && n + 1 < size; c++)
        if (wn_md_alnum(*c) || *c == '+' || *c == '-' || *c == '#' || *c == '.' || *c == '_')
          lang[n++] = *c;
      lang[n] = '\0';
      return;
    }
  }
}

/* A fenced code block (CommonMark 4.5): each line of the code under the
 * containers' prefixes; leading blank lines and trailing blanks dropped,
 * as the text renderer drops them. */
static wn_err wn_md_code_block(wn_md *md, uint32_t i) {
  if (md->cell || md->in_heading || md->link_line)
    return wn_md_code_span(md, i);
  wn_err err = wn_md_gather(md, i, 1);
  if (err)
    return err;
  /* Normalise in place: no CR, no leading blank lines, no trailing
   * white space. */
  char *s = md->scratch.data;
  size_t len = 0;
  for (size_t k = 0; k < md->scratch.len; k++)
    if (s[k] != '\r')
      s[len++] = s[k];
  size_t start = 0;
  for (size_t k = 0; k < len; k++) {
    if (s[k] == '\n')
      start = k + 1;
    else if (s[k] != ' ' && s[k] != '\t')
      break;
  }
  while (len > start && (s[len - 1] == '\n' || s[len - 1] == ' ' || s[len - 1] == '\t'))
    len--;
  if (len <= start)
    return WN_OK;
  size_t ticks = wn_md_backticks(s + start, len - start) + 1;
  if (ticks < 3)
    ticks = 3;
  if (ticks > WN_MD_MAX_FENCE)
    ticks = WN_MD_MAX_FENCE;
  char lang[32];
  wn_md_language(md, i, lang, sizeof lang);
  wn_md_want(md, 2);
  err = wn_md_begin(md);
  if (!err)
    err = wn_md_ticks(md->out, ticks);
  if (!err)
    err = wn_buf_append_str(md->out, lang);
  md->line_open = 1;
  for (size_t k = start; k <= len && !err;) {
    const char *nl = memchr(s + k, '\n', len - k);
    size_t end = nl ? (size_t)(nl - s) : len;
    md->pending_nl = 1;
    err = wn_md_begin(md);
    if (!err)
      err = wn_buf_append(md->out, s + k, end - k);
    md->line_open = 1;
    k = end + 1;
  }
  md->pending_nl = 1;
  if (!err)
    err = wn_md_begin(md);
  if (!err)
    err = wn_md_ticks(md->out, ticks);
  md->line_open = 1;
  wn_md_want(md, 2);
  return err;
}

/* ---- tables ------------------------------------------------------------------ */

static wn_err wn_md_walk(wn_md *md, uint32_t root);

static uint32_t wn_md_colspan(const wn_md *md, const wn_dom_node *n) {
  const char *v = wn_md_attr(md, n, "colspan");
  uint32_t span = 0;
  for (const char *p = v; p && wn_ascii_digit(*p) && span <= WN_MD_MAX_COLSPAN; p++)
    span = span * 10 + (uint32_t)(*p - '0');
  if (span < 1)
    span = 1;
  return span > WN_MD_MAX_COLSPAN ? WN_MD_MAX_COLSPAN : span;
}

/* One cell's content on one line, into cell (a walk in cell mode). */
static wn_err wn_md_cell(const wn_md *md, uint32_t c, wn_md_frame *stack, wn_buf *cell) {
  wn_md sub = {0};
  sub.out = cell;
  sub.page = md->page;
  sub.nodes = md->nodes;
  sub.keep = md->keep;
  sub.live = md->live;
  sub.opts = md->opts;
  sub.base = md->base;
  sub.cell = 1;
  sub.stack = stack; /* not md's: the caller's walk is parked on its frames */
  sub.stack_cap = md->stack_cap;
  wn_buf_init(&sub.open, 4096);
  wn_buf_init(&sub.closes, 1024 * 1024);
  wn_buf_init(&sub.scratch, WN_DOM_DEFAULT_MAX_BYTES);
  wn_err err = WN_OK;
  if (md->live[c])
    for (uint32_t k = md->nodes[c].first_child; k != WN_DOM_NONE && !err;
         k = md->nodes[k].next_sibling)
      err = wn_md_walk(&sub, k);
  wn_buf_free(&sub.open);
  wn_buf_free(&sub.closes);
  wn_buf_free(&sub.scratch);
  return err;
}

/* A pipe table (GFM, "Tables (extension)"): the first row is the header
 * row GFM requires; a cell spanning n columns is followed by n - 1 empty
 * ones; short rows are padded. */
static wn_err wn_md_table(wn_md *md, uint32_t t) {
  const wn_dom_node *nodes = md->nodes;
  wn_err err = WN_OK;
  uint32_t ncols = 0, nrows = 0;
  for (uint32_t j = t + 1; j < nodes[t].end; j++) {
    if (nodes[j].tag != WN_TAG_TR)
      continue;
    uint32_t w = 0;
    for (uint32_t c = nodes[j].first_child; c != WN_DOM_NONE; c = nodes[c].next_sibling)
      if (nodes[c].tag == WN_TAG_TD || nodes[c].tag == WN_TAG_TH)
        w += wn_md_colspan(md, &nodes[c]);
    if (w == 0)
      continue;
    nrows++;
    if (w > ncols)
      ncols = w;
  }
  if (nrows == 0)
    return WN_OK;
  wn_md_frame *stack = malloc((size_t)md->stack_cap * sizeof *stack);
  if (!stack)
    return WN_ENOMEM;
  wn_buf cell;
  wn_buf_init(&cell, WN_DOM_DEFAULT_MAX_BYTES);
  wn_md_want(md, 2);
  uint32_t row = 0;
  for (uint32_t j = t + 1; j < nodes[t].end && !err; j++) {
    if (nodes[j].tag != WN_TAG_TR)
      continue;
    uint32_t w = 0;
    for (uint32_t c = nodes[j].first_child; c != WN_DOM_NONE && !err; c = nodes[c].next_sibling) {
      if (nodes[c].tag != WN_TAG_TD && nodes[c].tag != WN_TAG_TH)
        continue;
      if (w == 0) {
        md->pending_nl = md->pending_nl ? md->pending_nl : 1;
        err = wn_md_begin(md);
        if (!err)
          err = wn_buf_append_char(md->out, '|');
        md->line_open = 1;
      }
      wn_buf_reset(&cell);
      if (!err)
        err = wn_md_cell(md, c, stack, &cell);
      if (!err)
        err = wn_buf_append_char(md->out, ' ');
      if (!err && cell.len)
        err = wn_buf_append(md->out, cell.data, cell.len);
      if (!err)
        err = wn_buf_append_str(md->out, " |");
      uint32_t span = wn_md_colspan(md, &nodes[c]);
      for (uint32_t s = 1; s < span && !err; s++)
        err = wn_buf_append_str(md->out, "  |");
      w += span;
    }
    if (w == 0)
      continue;
    for (; w < ncols && !err; w++)
      err = wn_buf_append_str(md->out, "  |");
    if (row++ == 0) {
      md->pending_nl = 1;
      if (!err)
        err = wn_md_begin(md);
      if (!err)
        err = wn_buf_append_char(md->out, '|');
      for (uint32_t k = 0; k < ncols && !err; k++)
        err = wn_buf_append_str(md->out, " --- |");
      md->line_open = 1;
    }
  }
  wn_buf_free(&cell);
  free(stack);
  wn_md_want(md, 2);
  return err;
}

/* ---- the walk ----------------------------------------------------------------- */

static wn_err wn_md_push_box(wn_md *md, const char *prefix, const char *marker, size_t marker_len,
                             wn_md_frame *f) {
  if (md->cell || md->n_box >= WN_MD_MAX_BOXES)
    return WN_OK;
  wn_md_box *b = &md->box[md->n_box++];
  memset(b, 0, sizeof *b);
  if (marker) {
    memcpy(b->marker, marker, marker_len);
    b->marker_len = (uint8_t)marker_len;
    memset(b->prefix, ' ', marker_len);
    b->len = (uint8_t)marker_len;
  } else {
    b->len = (uint8_t)strlen(prefix);
    memcpy(b->prefix, prefix, b->len);
  }
  f->box = 1;
  return WN_OK;
}

/* Enters element i: writes or arranges what comes before its content.
 * *descend: 0 when the element was rendered whole (or left out). */
static wn_err wn_md_enter(wn_md *md, uint32_t i, wn_md_frame *f, int *descend) {
  const wn_dom_node *n = &md->nodes[i];
  const wn_render_options *o = md->opts;
  wn_err err = WN_OK;
  *descend = 0;
  switch (n->tag) {
  case WN_TAG_IMG:
    return o->images ? wn_md_image(md, i) : WN_OK;
  case WN_TAG_BR:
    md->hard_break = md->line_open && md->pending_nl == 0;
    return WN_OK;
  case WN_TAG_HR:
    if (md->cell || md->in_heading || md->link_line)
      return WN_OK;
    wn_md_want(md, 2);
    err = wn_md_begin(md);
    if (!err)
      err = wn_buf_append_str(md->out, "* * *");
    md->line_open = 1;
    wn_md_want(md, 2);
    return err;
  case WN_TAG_PRE:
    return wn_md_code_block(md, i);
  case WN_TAG_TABLE:
    if (!md->cell && !md->link_line && wn_dom_data_table(md->page, i))
      return o->tables ? wn_md_table(md, i) : WN_OK;
    break;
  default:
    break;
  }
  if (n->tag == WN_TAG_OTHER && (wn_md_is(n, "listing") || wn_md_is(n, "xmp") ||
                                 wn_md_is(n, "plaintext")))
    return wn_md_code_block(md, i);
  if (n->tag == WN_TAG_OTHER && !(n->flags & WN_DOM_IN_PRE) &&
      (wn_md_is(n, "code") || wn_md_is(n, "kbd") || wn_md_is(n, "samp") || wn_md_is(n, "tt")))
    return wn_md_code_span(md, i);

  *descend = 1;
  f->close_off = (uint32_t)md->closes.len;
  f->open_off = (uint32_t)md->open.len;
  if (n->tag >= WN_TAG_H1 && n->tag <= WN_TAG_H6 && !md->cell && !md->in_heading &&
      !md->link_line) {
    wn_md_want(md, 2);
    f->after = 2;
    f->heading = 1;
    md->in_heading++;
    md->heading_line = 0;
    static const char hashes[] = "###### ";
    size_t level = (size_t)(n->tag - WN_TAG_H1) + 1;
    if (md->open.len == 0)
      return wn_buf_append(&md->open, hashes + 6 - level, level + 1);
    /* Inline openers wait (a card: <a><h3>...</h3></a>): the heading's
     * marker goes before them, at the start of the line. */
    size_t waiting = md->open.len;
    err = wn_buf_append(&md->open, hashes, level + 1); /* room */
    if (!err) {
      memmove(md->open.data + level + 1, md->open.data, waiting);
      memcpy(md->open.data, hashes + 6 - level, level + 1);
    }
    f->open_off = 0;
    return err;
  }
  if (md->cell || md->in_heading || md->link_line) {
    if (n->flags & WN_DOM_BLOCK) {
      wn_md_want(md, 1); /* a space in a cell or heading */
      f->after = 1;
    }
  } else if (n->tag == WN_TAG_UL || n->tag == WN_TAG_OL || wn_md_is(n, "menu") ||
             wn_md_is(n, "dir")) {
    f->list = n->tag == WN_TAG_OL ? 2 : 1;
    f->item = 1;
    if (n->tag == WN_TAG_OL) {
      const char *start = wn_md_attr(md, n, "start");
      uint32_t v = 0;
      int digits = 0;
      for (const char *p = start; p && wn_ascii_digit(*p) && digits < 9; p++, digits++)
        v = v * 10 + (uint32_t)(*p - '0');
      if (digits)
        f->item = v;
    }
    /* A list in a list item is tight against it. */
    int nested = md->n_box && md->box[md->n_box - 1].marker[0];
    wn_md_want(md, nested ? 1 : 2);
    f->after = nested ? 1 : 2;
  } else if (n->tag == WN_TAG_LI) {
    /* The marker of the nearest list: its frame is the parent's. */
    wn_md_frame *list = f > md->stack ? f - 1 : NULL;
    char marker[16];
    size_t mlen = 2;
    memcpy(marker, "- ", 3);
    if (list && list->list == 2) {
      int w = snprintf(marker, sizeof marker, "%u. ", (unsigned)list->item);
      mlen = w > 0 && (size_t)w < sizeof marker ? (size_t)w : 0;
      list->item++;
    }
    wn_md_want(md, 1);
    f->after = 1;
    err = wn_md_push_box(md, NULL, marker, mlen, f);
  } else if (n->tag == WN_TAG_BLOCKQUOTE) {
    wn_md_want(md, 2);
    f->after = 2;
    err = wn_md_push_box(md, "> ", NULL, 0, f);
  } else if (n->flags & WN_DOM_BLOCK) {
    wn_md_want(md, 2);
    f->after = 2;
  }
  if (err)
    return err;
  /* Inline markup. */
  if ((n->tag == WN_TAG_EM || n->tag == WN_TAG_I) && !md->in_em) {
    f->emph = 1;
    md->in_em++;
    err = wn_buf_append_char(&md->open, '*');
    if (!err)
      err = wn_buf_append_char(&md->closes, '*');
  } else if ((n->tag == WN_TAG_STRONG || n->tag == WN_TAG_B) && !md->in_strong) {
    f->emph = 2;
    md->in_strong++;
    err = wn_buf_append_str(&md->open, "**");
    if (!err)
      err = wn_buf_append_str(&md->closes, "**");
  } else if (n->tag == WN_TAG_A && o->links && !md->in_link) {
    const char *href = wn_md_attr(md, n, "href");
    if (href) {
      size_t mark = md->closes.len;
      err = wn_buf_append_str(&md->closes, "](");
      wn_buf *saved = md->out;
      md->out = &md->closes; /* wn_md_url writes to md->out */
      int linked = !err && wn_md_url(md, href, 0, &err);
      md->out = saved;
      if (!err && linked)
        err = wn_buf_append_char(&md->closes, ')');
      if (!err && linked) {
        f->link = 1;
        md->in_link++;
        err = wn_buf_append_char(&md->open, '[');
      } else {
        md->closes.len = mark;
      }
    }
  }
  return err;
}

/* Leaves element f->node: closes what it opened. */
static wn_err wn_md_leave(wn_md *md, wn_md_frame *f) {
  wn_err err = WN_OK;
  size_t close_len = md->closes.len - f->close_off;
  if (md->open.len > f->open_off) {
    /* Nothing was written inside: its opener goes unwritten, and so does
     * its closer. */
    md->open.len = f->open_off;
  } else if (close_len) {
    err = wn_buf_append(md->out, md->closes.data + f->close_off, close_len);
  }
  md->closes.len = f->close_off;
  if (f->emph == 1)
    md->in_em--;
  if (f->emph == 2)
    md->in_strong--;
  if (f->link) {
    md->in_link--;
    md->link_line = 0;
  }
  if (f->heading)
    md->in_heading--;
  if (f->box)
    md->n_box--;
  wn_md_want(md, f->after);
  return err;
}

static wn_err wn_md_text(wn_md *md, uint32_t i) {
  const wn_dom_node *n = &md->nodes[i];
  if (!md->keep[i]) {
    md->space = md->line_open; /* left-out text lay between: not a join */
    return WN_OK;
  }
  int line_start = 0;
  wn_err err = wn_md_inline_begin(md, (n->flags & WN_DOM_SPACE_BEFORE) != 0, &line_start);
  if (!err)
    err = wn_md_escape(md, n->text, n->own_text_len, line_start && !md->cell);
  md->space = (n->flags & WN_DOM_SPACE_AFTER) != 0;
  return err;
}

/* Renders subtree root. Iterative: the frames on md->stack are the open
 * elements, at most the tree's depth. */
static wn_err wn_md_walk(wn_md *md, uint32_t root) {
  const wn_dom_node *nodes = md->nodes;
  wn_err err = WN_OK;
  uint32_t top = 0;
  uint32_t i = root;
  while (i != WN_DOM_NONE && !err) {
    int descend = 0;
    if (nodes[i].tag == WN_TAG_TEXT) {
      err = wn_md_text(md, i);
    } else if (!md->live[i]) {
      if (nodes[i].text_len > 0)
        md->space = md->line_open;
    } else {
      if (top >= md->stack_cap)
        return WN_ETOODEEP;
      wn_md_frame *f = &md->stack[top];
      memset(f, 0, sizeof *f);
      f->node = i;
      err = wn_md_enter(md, i, f, &descend);
      if (!err && descend && nodes[i].first_child != WN_DOM_NONE) {
        top++;
        i = nodes[i].first_child;
        continue;
      }
      if (!err && descend)
        err = wn_md_leave(md, f);
    }
    /* Next: a sibling, or leave elements until one has a sibling. */
    if (i == root)
      break;
    while (!err && nodes[i].next_sibling == WN_DOM_NONE) {
      if (top == 0)
        return err;
      top--;
      i = md->stack[top].node;
      err = wn_md_leave(md, &md->stack[top]);
      if (i == root)
        return err;
    }
    i = nodes[i].next_sibling;
  }
  return err;
}

/* Content from outside the tree (JSON-LD articleBody): its lines as
 * paragraphs, escaped as text is. */
static wn_err wn_md_body(const char *text, wn_buf *out) {
  wn_buf lines;
  wn_buf_init(&lines, WN_DOM_DEFAULT_MAX_BYTES);
  wn_err err = wn_detect_body_lines(text, WN_BODY_TEXT, &lines);
  wn_md md = {0};
  md.out = out;
  for (size_t k = 0; !err && k < lines.len;) {
    const char *nl = memchr(lines.data + k, '\n', lines.len - k);
    size_t n = nl ? (size_t)(nl - (lines.data + k)) : lines.len - k;
    if (k > 0)
      err = wn_buf_append_char(out, '\n');
    if (!err)
      err = wn_md_escape(&md, lines.data + k, n, 1);
    if (!err)
      err = wn_buf_append_char(out, '\n');
    k += n + 1;
  }
  wn_buf_free(&lines);
  return err;
}

wn_err wn_detect_render_markdown(const wn_dom_page *page, const wn_detect_result *result,
                                 const wn_render_options *opts, wn_buf *out, wn_diag *diag) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  if (count != result->count)
    return wn_diag_set(diag, WN_EINVAL, "detect: the result is for another page");
  wn_render_options dflt = {.base_url = NULL, .links = 1, .images = 1, .tables = 1};
  if (!opts)
    opts = &dflt;
  if (result->n_selected == 0 && result->body_text)
    return wn_md_body(result->body_text, out);
  if (result->n_selected == 0 || (count <= 2 && nodes[0].text_len == 0))
    return WN_OK;
  wn_err err = WN_ENOMEM;
  wn_md md = {0};
  uint8_t *live = calloc(count, 1);
  uint8_t *kept_below = calloc(count, 1);
  uint8_t *keep = NULL; /* result->keep with captions back, when any came back */
  uint32_t *regions = NULL, n_regions = result->n_selected; /* with figures, when any */
  uint32_t *text_anc = malloc((size_t)count * sizeof *text_anc);
  uint32_t depth = 0;
  if (!live || !kept_below || !text_anc)
    goto out;
  if (opts->images && wn_detect_figures(page, result, &keep, &regions, &n_regions))
    goto out;
  const uint8_t *kept = keep ? keep : result->keep;
  /* What has content: kept text, and the images of kept regions. An image
   * belongs to the nearest element around it that has text: it is kept
   * when some of that text is (a logo in a dropped header is not), or
   * when that element lies outside the selection (a figure selected
   * whole). */
  for (uint32_t i = count; i-- > 0;) {
    if (nodes[i].tag == WN_TAG_TEXT && kept[i] && nodes[i].own_text_len)
      kept_below[i] = 1;
    if (kept_below[i] && nodes[i].parent != WN_DOM_NONE)
      kept_below[nodes[i].parent] = 1;
    if (nodes[i].depth > depth)
      depth = nodes[i].depth;
  }
  /* A figure's text, wherever it sits inside the figure, is its caption
   * and credit: an image belongs to the text around the figure, so a
   * figure whose caption was left out still shows its image. in_fig
   * marks the figure and its subtree (live is its scratch here, cleared
   * below). */
  uint8_t *in_fig = live;
  for (uint32_t i = 0; i < count; i++) {
    uint32_t p = nodes[i].parent;
    in_fig[i] = nodes[i].tag == WN_TAG_FIGURE || (p != WN_DOM_NONE && in_fig[p]);
    text_anc[i] = p == WN_DOM_NONE                         ? WN_DOM_NONE
                  : nodes[p].text_len > 0 && !in_fig[p] ? p
                                                             : text_anc[p];
  }
  memset(live, 0, count);
  const uint32_t *sel = regions ? regions : result->selected;
  for (uint32_t k = 0; k < n_regions; k++) {
    uint32_t r = sel[k];
    for (uint32_t i = r; i < nodes[r].end; i++) {
      live[i] = kept_below[i] || nodes[i].tag == WN_TAG_BR || nodes[i].tag == WN_TAG_HR;
      if (nodes[i].tag == WN_TAG_IMG && opts->images) {
        uint32_t a = text_anc[i];
        live[i] = a == WN_DOM_NONE || a < r || kept_below[a];
      }
    }
    for (uint32_t i = nodes[r].end; i-- > r + 1;)
      if (live[i])
        live[nodes[i].parent] = 1;
  }
  md.out = out;
  md.page = page;
  md.nodes = nodes;
  md.keep = kept;
  md.live = live;
  md.opts = opts;
  md.stack_cap = depth + 2;
  md.stack = malloc((size_t)md.stack_cap * sizeof *md.stack);
  if (!md.stack)
    goto out;
  wn_buf_init(&md.open, 4096);
  wn_buf_init(&md.closes, 1024 * 1024);
  wn_buf_init(&md.scratch, WN_DOM_DEFAULT_MAX_BYTES);
  /* A base that does not parse leaves links as written (md.base NULL). */
  if (opts->base_url && wn_url_base_parse(opts->base_url, &md.base) == WN_ENOMEM)
    goto out;
  err = WN_OK;
  for (uint32_t k = 0; k < n_regions && !err; k++) {
    uint32_t r = sel[k];
    if (!live[r])
      continue;
    wn_md_want(&md, 2); /* selected subtrees are separate blocks */
    err = wn_md_walk(&md, r);
  }
  if (!err && md.wrote_any)
    err = wn_buf_append_char(out, '\n');
  if (err)
    wn_diag_set(diag, err, "detect: rendering Markdown failed");
out:
  if (err == WN_ENOMEM)
    wn_diag_set(diag, err, "out of memory");
  wn_url_base_free(md.base);
  wn_buf_free(&md.open);
  wn_buf_free(&md.closes);
  wn_buf_free(&md.scratch);
  free(md.stack);
  free(live);
  free(kept_below);
  free(text_anc);
  free(keep);
  free(regions);
  return err;
}
