/*
 * detect/readability.c: the second reading of a page, Readability's
 * candidate scoring (arc90's readability, as Mozilla's Readability.js
 * 0.6 states it; one of the extractors compared by Bevendorff et al.,
 * 2023, "An Empirical Comparison of Web Content Extraction Algorithms"),
 * on the compact tree.
 *
 * It reads a page another way than the density methods (cnr.c, danag.c)
 * do, so it fails on other pages: they measure how much text a stretch of
 * the page holds against its markup; this scores each paragraph by its
 * length and its commas, gives the score to the paragraph's parent and
 * (halved, then a third per level) to its ancestors, and takes the best
 * scored container with those of its siblings that score near it or read
 * as prose. A short text beside a longer box, prose with many inline
 * links (each link costs a density method its markup; here only its share
 * of the text), and text outside <p> (a block with no block inside it
 * counts as a paragraph, and so does a run of inline text beside blocks)
 * are where the two part ways.
 *
 * The steps, in Readability.js's order:
 *  1. unlikely candidates out: an element whose class and id hold one of
 *     the "unlikely" words and none of the "maybe" words (not <body>,
 *     not a link, not inside a table), an element whose ARIA role is a
 *     menu, navigation, complementary box, alert or dialog, and a
 *     <dialog>;
 *  2. paragraphs scored (<p>, <td>, <pre>, <section>, <h2>-<h6>, a <div>
 *     with no block inside, a run of inline text): 1 + the comma-separated
 *     parts + a point per 100 characters (at most 3), given to 5
 *     ancestors (the parent whole, the grandparent half, then level * 3);
 *     an ancestor starts from its tag's score and its names' weight;
 *  3. each candidate's score times (1 - its link density); the best one,
 *     moved up to an ancestor three of the near-best share, up while the
 *     parent scores higher, and up past parents with one child;
 *  4. its siblings: those scoring at least a fifth of it (ten at least;
 *     a fifth of it more for the same class), and paragraphs that read as
 *     prose (over 80 characters under a quarter link text, or a short
 *     sentence with no link);
 *  5. the article cleaned: footers, asides and short share boxes out, and
 *     the "conditional" cleaning of forms, tables, lists and divs with
 *     fewer than 10 commas (negative names, many images, more inputs than
 *     a third of the paragraphs, link-dense);
 *  6. under 500 characters kept, again with the unlikely words off, then
 *     the name weights off, then the conditional cleaning off; the
 *     longest attempt wins.
 * Lengths are in characters (UTF-8 code points), as Readability counts
 * them in a JavaScript string of the page's text.
 */
#include "detect/single_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define WN_RD_STRIP_UNLIKELYS 0x1u
#define WN_RD_WEIGHT_CLASSES 0x2u
#define WN_RD_CLEAN_CONDITIONALLY 0x4u
#define WN_RD_ALL_FLAGS 0x7u

#define WN_RD_MIN_PARAGRAPH 25u  /* characters a paragraph needs to be scored */
#define WN_RD_ANCESTORS 5u       /* levels a paragraph's score reaches */
#define WN_RD_TOP_CANDIDATES 5u  /* the near-best kept for the shared-ancestor move */
#define WN_RD_CHAR_THRESHOLD 500u /* an article shorter than this is retried */
#define WN_RD_SHARE_MAX 500u     /* a share box this short is cleaned */
#define WN_RD_NAME_BYTES 256u    /* class and id read, bounded */

/* Readability.js's REGEXPS, as words searched in "class id" lower-cased. */
static const char *const wn_rd_unlikely[] = {
    "-ad-",     "ai2html",  "banner",       "breadcrumbs", "combx",      "comment",
    "community", "cover-wrap", "disqus",    "extra",       "footer",     "gdpr",
    "header",   "legends",  "menu",         "related",     "remark",     "replies",
    "rss",      "shoutbox", "sidebar",      "skyscraper",  "social",     "sponsor",
    "supplemental", "ad-break", "agegate",  "pagination",  "pager",      "popup",
    "yom-remote",
};
static const char *const wn_rd_maybe[] = {
    "and", "article", "body", "column", "content", "main", "mathjax", "shadow",
};
static const char *const wn_rd_negative[] = {
    "-ad-", "hidden", "banner", "combx", "comment", "com-", "contact", "footer", "gdpr",
    "masthead", "media", "meta", "outbrain", "promo", "related", "scroll", "share",
    "shoutbox", "sidebar", "skyscraper", "sponsor", "shopping", "tags", "widget",
};
static const char *const wn_rd_positive[] = {
    "article", "body", "content", "entry", "hentry", "h-entry", "main", "page",
    "pagination", "post", "text", "blog", "story",
};

/* A list of words searched in names, indexed by first byte: bit k of
 * first[c] says words[k] starts with c, so a search reads the names once
 * and compares only the words that start there (a strstr per word read
 * them once a word: 1.6% of a page's time on WCXB dev). */
typedef struct wn_rd_words {
  const char *const *words;
  uint64_t first[256];
} wn_rd_words;

typedef struct wn_rd {
  const wn_dom_page *page;
  const wn_dom_node *nodes;
  uint32_t count;
  uint32_t flags;
  uint8_t *gone;      /* out before scoring (step 1), whole subtrees */
  uint8_t *blockdesc; /* has a descendant that keeps a <div> from being a paragraph */
  uint8_t *in_head;   /* inside a heading */
  uint8_t *in_table;  /* inside a <table> or <code> */
  uint8_t *cand;      /* scored as a candidate */
  uint8_t *take;      /* in the article (step 4): whole subtrees */
  uint32_t *chars, *lchars, *hchars, *commas; /* per subtree, without gone */
  uint32_t *np, *nimg, *nli, *ninput;          /* elements per subtree */
  double *score;
  wn_rd_words unlikely, maybe, negative, positive;
} wn_rd;

/* Appends s lower-cased to buf (k bytes used), bounded by
 * WN_RD_NAME_BYTES with its NUL; returns the bytes used. */
static size_t wn_rd_lower(char *buf, size_t k, const char *s) {
  for (size_t i = 0; s[i] && k < WN_RD_NAME_BYTES - 1; i++)
    buf[k++] = wn_ascii_lower(s[i]);
  buf[k] = '\0';
  return k;
}

/* "class id", lower-cased and bounded, into buf. */
static void wn_rd_names(const wn_dom_node *n, char *buf) {
  size_t k = wn_rd_lower(buf, 0, n->cls ? n->cls : "");
  if (n->cls && n->id && k < WN_RD_NAME_BYTES - 1)
    buf[k++] = ' ';
  wn_rd_lower(buf, k, n->id ? n->id : "");
}

static void wn_rd_words_init(wn_rd_words *w, const char *const *words, size_t n) {
  memset(w->first, 0, sizeof w->first);
  w->words = words;
  for (size_t k = 0; k < n; k++)
    w->first[(unsigned char)words[k][0]] |= UINT64_C(1) << k;
}

/* Whether one of the words occurs in names (as strstr would find it). */
static int wn_rd_any(const char *names, const wn_rd_words *w) {
  for (const unsigned char *p = (const unsigned char *)names; *p; p++) {
    for (uint64_t m = w->first[*p]; m; m &= m - 1) {
      const unsigned k = (unsigned)__builtin_ctzll(m);
      const unsigned char *word = (const unsigned char *)w->words[k];
      size_t j = 1;
      while (word[j] && p[j] == word[j])
        j++;
      if (!word[j])
        return 1;
    }
  }
  return 0;
}

/* "hid" as a whole word of the names (the ^hid$| hid$| hid |^hid of the
 * negative pattern). */
static int wn_rd_has_hid(const char *names) {
  for (const char *p = strstr(names, "hid"); p; p = strstr(p + 1, "hid"))
    if ((p == names || p[-1] == ' ') && (p[3] == '\0' || p[3] == ' '))
      return 1;
  return 0;
}

#define WN_RD_COUNT(a) (sizeof(a) / sizeof *(a))
_Static_assert(WN_RD_COUNT(wn_rd_unlikely) <= 64 && WN_RD_COUNT(wn_rd_maybe) <= 64 &&
                   WN_RD_COUNT(wn_rd_negative) <= 64 && WN_RD_COUNT(wn_rd_positive) <= 64,
               "a word list is indexed by a 64-bit mask (wn_rd_words)");

/* Readability's class weight: -25 for a negative name, +25 for a
 * positive one, for the class and for the id. */
static int wn_rd_weight(const wn_rd *rd, const wn_dom_node *n) {
  if (!(rd->flags & WN_RD_WEIGHT_CLASSES))
    return 0;
  int w = 0;
  char buf[WN_RD_NAME_BYTES];
  for (int part = 0; part < 2; part++) {
    const char *s = part ? n->id : n->cls;
    if (!s || !*s)
      continue;
    wn_rd_lower(buf, 0, s);
    if (wn_rd_any(buf, &rd->negative) || wn_rd_has_hid(buf))
      w -= 25;
    if (wn_rd_any(buf, &rd->positive))
      w += 25;
  }
  return w;
}

static int wn_rd_is_heading(uint8_t tag) { return tag >= WN_TAG_H1 && tag <= WN_TAG_H6; }

static int wn_rd_name_is(const wn_dom_node *n, const char *name) {
  return n->tag == WN_TAG_OTHER && n->name && strcmp(n->name, name) == 0;
}

/* Readability's DIV_TO_P_ELEMS: a <div> holding one of these is not a
 * paragraph. */
static int wn_rd_keeps_div(const wn_dom_node *n) {
  switch (n->tag) {
  case WN_TAG_BLOCKQUOTE:
  case WN_TAG_DL:
  case WN_TAG_DIV:
  case WN_TAG_IMG:
  case WN_TAG_OL:
  case WN_TAG_P:
  case WN_TAG_PRE:
  case WN_TAG_TABLE:
  case WN_TAG_UL:
    return 1;
  default:
    return 0;
  }
}

/* Step 1's roles and elements: what a browser shows over or beside the
 * page, never its article. */
static int wn_rd_role_out(const char *role) {
  static const char *const roles[] = {"menu", "menubar", "complementary", "navigation",
                                      "alert", "alertdialog", "dialog"};
  if (!role)
    return 0;
  for (size_t k = 0; k < WN_RD_COUNT(roles); k++)
    if (strcmp(role, roles[k]) == 0)
      return 1;
  return 0;
}

/* Code points and commas of a text (Readability's REGEXPS.commas: the
 * comma, the Arabic, fullwidth and small commas). */
static void wn_rd_text_counts(const char *t, uint32_t len, uint32_t *chars, uint32_t *commas) {
  uint32_t c = 0, k = 0;
  for (uint32_t i = 0; i < len; i++) {
    unsigned char b = (unsigned char)t[i];
    if ((b & 0xC0u) != 0x80u)
      c++;
    if (b == ',')
      k++;
    else if (i + 1 < len && b == 0xD8 && (unsigned char)t[i + 1] == 0x8C)
      k++; /* U+060C */
    else if (i + 2 < len && b == 0xEF &&
             (((unsigned char)t[i + 1] == 0xBC && (unsigned char)t[i + 2] == 0x8C) ||
              ((unsigned char)t[i + 1] == 0xB9 && (unsigned char)t[i + 2] == 0x90) ||
              ((unsigned char)t[i + 1] == 0xB8 &&
               ((unsigned char)t[i + 2] == 0x90 || (unsigned char)t[i + 2] == 0x91))))
      k++; /* U+FF0C, U+FE50, U+FE10, U+FE11 */
  }
  *chars = c;
  *commas = k;
}

/* Step 1 and the per-subtree counts. */
static void wn_rd_prepare(wn_rd *rd) {
  const wn_dom_node *nodes = rd->nodes;
  const uint32_t count = rd->count;
  char names[WN_RD_NAME_BYTES];
  memset(rd->gone, 0, count);
  for (uint32_t i = 0; i < count;) {
    const wn_dom_node *n = &nodes[i];
    uint32_t p = n->parent;
    rd->in_table[i] = p != WN_DOM_NONE &&
                      (rd->in_table[p] || nodes[p].tag == WN_TAG_TABLE || wn_rd_name_is(&nodes[p], "code"));
    rd->in_head[i] = p != WN_DOM_NONE && (rd->in_head[p] || wn_rd_is_heading(nodes[p].tag));
    if (n->tag == WN_TAG_TEXT) {
      i++;
      continue;
    }
    int drop = wn_rd_role_out(wn_dom_attr(rd->page, n, "role")) || wn_rd_name_is(n, "dialog");
    if (!drop && (rd->flags & WN_RD_STRIP_UNLIKELYS) && n->tag != WN_TAG_BODY &&
        n->tag != WN_TAG_HTML && n->tag != WN_TAG_A && !rd->in_table[i] && (n->cls || n->id)) {
      wn_rd_names(n, names);
      drop = wn_rd_any(names, &rd->unlikely) && !wn_rd_any(names, &rd->maybe);
    }
    if (drop) {
      memset(rd->gone + i, 1, n->end - i);
      for (uint32_t j = i + 1; j < n->end; j++) {
        rd->in_table[j] = 0; /* not read: the subtree is out */
        rd->in_head[j] = 0;
      }
      i = n->end;
      continue;
    }
    i++;
  }
  memset(rd->blockdesc, 0, count);
  for (uint32_t i = count; i-- > 0;) {
    const wn_dom_node *n = &nodes[i];
    if (rd->gone[i]) {
      rd->chars[i] = rd->lchars[i] = rd->hchars[i] = rd->commas[i] = 0;
      rd->np[i] = rd->nimg[i] = rd->nli[i] = rd->ninput[i] = 0;
      continue;
    }
    if (n->tag == WN_TAG_TEXT) {
      wn_rd_text_counts(n->text, n->own_text_len, &rd->chars[i], &rd->commas[i]);
      rd->lchars[i] = (n->flags & WN_DOM_IN_LINK) ? rd->chars[i] : 0;
      rd->hchars[i] = rd->in_head[i] ? rd->chars[i] : 0;
    }
    rd->np[i] += n->tag == WN_TAG_P;
    rd->nimg[i] += n->tag == WN_TAG_IMG;
    rd->nli[i] += n->tag == WN_TAG_LI;
    rd->ninput[i] += n->tag == WN_TAG_INPUT;
    uint32_t p = n->parent;
    if (p == WN_DOM_NONE)
      continue;
    rd->chars[p] += rd->chars[i];
    rd->lchars[p] += rd->lchars[i];
    rd->hchars[p] += rd->hchars[i];
    rd->commas[p] += rd->commas[i];
    rd->np[p] += rd->np[i];
    rd->nimg[p] += rd->nimg[i];
    rd->nli[p] += rd->nli[i];
    rd->ninput[p] += rd->ninput[i];
    if (wn_rd_keeps_div(n) || rd->blockdesc[i])
      rd->blockdesc[p] = 1;
  }
}

static double wn_rd_density(const wn_rd *rd, uint32_t i) {
  return rd->chars[i] ? (double)rd->lchars[i] / (double)rd->chars[i] : 0.0;
}

/* Readability's _initializeNode: the tag's score and the names' weight. */
static void wn_rd_init(wn_rd *rd, uint32_t i) {
  const wn_dom_node *n = &rd->nodes[i];
  double s = 0;
  switch (n->tag) {
  case WN_TAG_DIV:
    s = 5;
    break;
  case WN_TAG_PRE:
  case WN_TAG_TD:
  case WN_TAG_BLOCKQUOTE:
    s = 3;
    break;
  case WN_TAG_OL:
  case WN_TAG_UL:
  case WN_TAG_DL:
  case WN_TAG_DD:
  case WN_TAG_DT:
  case WN_TAG_LI:
  case WN_TAG_FORM:
    s = -3;
    break;
  case WN_TAG_H1:
  case WN_TAG_H2:
  case WN_TAG_H3:
  case WN_TAG_H4:
  case WN_TAG_H5:
  case WN_TAG_H6:
  case WN_TAG_TH:
    s = -5;
    break;
  default:
    if (wn_rd_name_is(n, "address"))
      s = -3;
    break;
  }
  rd->score[i] = s + wn_rd_weight(rd, n);
  rd->cand[i] = 1;
}

/* Step 2 for one paragraph: chars and commas, its first ancestor. */
static void wn_rd_give(wn_rd *rd, uint32_t parent, uint32_t chars, uint32_t commas) {
  if (chars < WN_RD_MIN_PARAGRAPH)
    return;
  uint32_t hundreds = chars / 100;
  double s = 1.0 + (double)commas + 1.0 + (double)(hundreds < 3 ? hundreds : 3);
  uint32_t a = parent;
  for (uint32_t level = 0; level < WN_RD_ANCESTORS && a != WN_DOM_NONE; level++) {
    if (rd->nodes[a].parent == WN_DOM_NONE)
      break; /* the root element is no candidate */
    if (!rd->cand[a])
      wn_rd_init(rd, a);
    double div = level == 0 ? 1.0 : level == 1 ? 2.0 : (double)level * 3.0;
    rd->score[a] += s / div;
    a = rd->nodes[a].parent;
  }
}

/* A container whose inline runs are wrapped into paragraphs. */
static int wn_rd_wraps(const wn_dom_node *n) {
  return n->tag == WN_TAG_DIV || n->tag == WN_TAG_BODY || n->tag == WN_TAG_ARTICLE ||
         n->tag == WN_TAG_MAIN || n->tag == WN_TAG_CENTER;
}

/* Phrasing content: text, or an inline element with no block inside. */
static int wn_rd_phrasing(const wn_rd *rd, uint32_t c) {
  const wn_dom_node *n = &rd->nodes[c];
  return n->tag == WN_TAG_TEXT ||
         ((!(n->flags & WN_DOM_BLOCK) || n->tag == WN_TAG_BR) && !rd->blockdesc[c] &&
          n->tag != WN_TAG_IMG);
}

/* A <div> with no block inside reads as a paragraph. */
static int wn_rd_paragraph(const wn_rd *rd, uint32_t i) {
  const uint8_t t = rd->nodes[i].tag;
  return t == WN_TAG_P || (t == WN_TAG_DIV && !rd->blockdesc[i]);
}

/* The run of phrasing siblings starting at child k: returns its last
 * child; its link characters and commas summed. */
static uint32_t wn_rd_run(const wn_rd *rd, uint32_t k, uint32_t *lchars, uint32_t *commas) {
  uint32_t last = k;
  *lchars = *commas = 0;
  for (uint32_t c = k; c != WN_DOM_NONE && !rd->gone[c] && wn_rd_phrasing(rd, c);
       c = rd->nodes[c].next_sibling) {
    *lchars += rd->lchars[c];
    *commas += rd->commas[c];
    last = c;
  }
  return last;
}

static uint32_t wn_rd_run_chars(const wn_rd *rd, uint32_t first, uint32_t last) {
  uint32_t ch = 0;
  for (uint32_t c = first;; c = rd->nodes[c].next_sibling) {
    ch += rd->chars[c];
    if (c == last)
      break;
  }
  return ch;
}

static void wn_rd_score(wn_rd *rd) {
  const wn_dom_node *nodes = rd->nodes;
  memset(rd->cand, 0, rd->count);
  for (uint32_t i = 0; i < rd->count;) {
    const wn_dom_node *n = &nodes[i];
    if (rd->gone[i]) {
      i = n->end;
      continue;
    }
    if (n->tag == WN_TAG_TEXT) {
      i++;
      continue;
    }
    const uint8_t t = n->tag;
    if (n->parent != WN_DOM_NONE &&
        (t == WN_TAG_P || t == WN_TAG_TD || t == WN_TAG_PRE || t == WN_TAG_SECTION ||
         (t >= WN_TAG_H2 && t <= WN_TAG_H6) || wn_rd_paragraph(rd, i)))
      wn_rd_give(rd, n->parent, rd->chars[i], rd->commas[i]);
    if (wn_rd_wraps(n) && rd->blockdesc[i]) {
      for (uint32_t c = n->first_child; c != WN_DOM_NONE;) {
        if (rd->gone[c] || !wn_rd_phrasing(rd, c)) {
          c = nodes[c].next_sibling;
          continue;
        }
        uint32_t lch = 0, com = 0;
        uint32_t last = wn_rd_run(rd, c, &lch, &com);
        wn_rd_give(rd, i, wn_rd_run_chars(rd, c, last), com);
        c = nodes[last].next_sibling;
      }
    }
    i++;
  }
  for (uint32_t i = 0; i < rd->count; i++)
    if (rd->cand[i])
      rd->score[i] *= 1.0 - wn_rd_density(rd, i);
}

static int wn_rd_is_ancestor(const wn_dom_node *nodes, uint32_t a, uint32_t x) {
  return a < x && x < nodes[a].end;
}

/* Step 3: the top candidate, WN_DOM_NONE when nothing scored. */
static uint32_t wn_rd_top(wn_rd *rd) {
  const wn_dom_node *nodes = rd->nodes;
  uint32_t top[WN_RD_TOP_CANDIDATES];
  uint32_t n_top = 0;
  for (uint32_t i = 0; i < rd->count; i++) {
    if (!rd->cand[i])
      continue;
    uint32_t k = n_top < WN_RD_TOP_CANDIDATES ? n_top++ : WN_RD_TOP_CANDIDATES;
    if (k == WN_RD_TOP_CANDIDATES) {
      if (rd->score[i] <= rd->score[top[WN_RD_TOP_CANDIDATES - 1]])
        continue;
      k = WN_RD_TOP_CANDIDATES - 1;
    }
    while (k > 0 && rd->score[top[k - 1]] < rd->score[i]) {
      top[k] = top[k - 1];
      k--;
    }
    top[k] = i;
  }
  if (n_top == 0 || nodes[top[0]].tag == WN_TAG_BODY)
    return WN_DOM_NONE;
  uint32_t best = top[0];
  /* Three near-best candidates (three quarters of the best) sharing an
   * ancestor of the best: that ancestor holds the article. */
  uint32_t alt[WN_RD_TOP_CANDIDATES];
  uint32_t n_alt = 0;
  for (uint32_t k = 1; k < n_top; k++)
    if (rd->score[top[0]] > 0 && rd->score[top[k]] / rd->score[top[0]] >= 0.75)
      alt[n_alt++] = top[k];
  if (n_alt >= 3) {
    for (uint32_t a = nodes[best].parent; a != WN_DOM_NONE && nodes[a].tag != WN_TAG_BODY;
         a = nodes[a].parent) {
      uint32_t holding = 0;
      for (uint32_t k = 0; k < n_alt; k++)
        holding += (uint32_t)wn_rd_is_ancestor(nodes, a, alt[k]);
      if (holding >= 3) {
        best = a;
        break;
      }
    }
    if (!rd->cand[best]) {
      wn_rd_init(rd, best);
    }
  }
  /* Up while the parent scores higher (not below a third of the best). */
  double last = rd->score[best];
  const double floor = last / 3.0;
  for (uint32_t a = nodes[best].parent; a != WN_DOM_NONE && nodes[a].tag != WN_TAG_BODY;
       a = nodes[a].parent) {
    if (!rd->cand[a])
      continue;
    if (rd->score[a] < floor)
      break;
    if (rd->score[a] > last) {
      best = a;
      break;
    }
    last = rd->score[a];
  }
  /* Up past parents whose only child element it is. */
  for (uint32_t a = nodes[best].parent; a != WN_DOM_NONE && nodes[a].tag != WN_TAG_BODY;
       a = nodes[a].parent) {
    uint32_t elements = 0;
    for (uint32_t c = nodes[a].first_child; c != WN_DOM_NONE && elements < 2;
         c = nodes[c].next_sibling)
      elements += nodes[c].tag != WN_TAG_TEXT && !rd->gone[c];
    if (elements != 1)
      break;
    best = a;
  }
  return best;
}

/* A short paragraph with no link that ends a sentence (". " or a final
 * "."). */
static int wn_rd_sentence(const wn_rd *rd, uint32_t first, uint32_t last_end) {
  for (uint32_t j = first; j < last_end; j++) {
    const wn_dom_node *t = &rd->nodes[j];
    if (t->tag != WN_TAG_TEXT || rd->gone[j])
      continue;
    for (uint32_t k = 0; k < t->own_text_len; k++)
      if (t->text[k] == '.' && (k + 1 == t->own_text_len || t->text[k + 1] == ' '))
        return 1;
  }
  return 0;
}

/* Readability's prose test for a sibling paragraph. */
static int wn_rd_prose(const wn_rd *rd, uint32_t chars, uint32_t lchars, uint32_t first,
                       uint32_t last_end) {
  double ld = chars ? (double)lchars / (double)chars : 0.0;
  if (chars > 80 && ld < 0.25)
    return 1;
  return chars < 80 && chars > 0 && lchars == 0 && wn_rd_sentence(rd, first, last_end);
}

static int wn_rd_same_class(const wn_dom_node *a, const wn_dom_node *b) {
  return a->cls && b->cls && *a->cls && strcmp(a->cls, b->cls) == 0;
}

/* Step 4: the article, marked in take[] (whole subtrees). */
static void wn_rd_siblings(wn_rd *rd, uint32_t best) {
  const wn_dom_node *nodes = rd->nodes;
  memset(rd->take, 0, rd->count);
  uint32_t parent = nodes[best].parent;
  if (parent == WN_DOM_NONE) {
    memset(rd->take + best, 1, nodes[best].end - best);
    return;
  }
  double threshold = rd->score[best] * 0.2;
  if (threshold < 10.0)
    threshold = 10.0;
  for (uint32_t c = nodes[parent].first_child; c != WN_DOM_NONE;) {
    if (rd->gone[c]) {
      c = nodes[c].next_sibling;
      continue;
    }
    if (c == best) {
      memset(rd->take + c, 1, nodes[c].end - c);
      c = nodes[c].next_sibling;
      continue;
    }
    if (wn_rd_wraps(&nodes[parent]) && rd->blockdesc[parent] && wn_rd_phrasing(rd, c)) {
      /* A run of inline text beside the article, judged as a paragraph. */
      uint32_t lch = 0, com = 0;
      uint32_t last = wn_rd_run(rd, c, &lch, &com);
      if (wn_rd_prose(rd, wn_rd_run_chars(rd, c, last), lch, c, nodes[last].end))
        memset(rd->take + c, 1, nodes[last].end - c);
      c = nodes[last].next_sibling;
      continue;
    }
    double bonus = wn_rd_same_class(&nodes[c], &nodes[best]) ? rd->score[best] * 0.2 : 0.0;
    if ((rd->cand[c] && rd->score[c] + bonus >= threshold) ||
        (nodes[c].tag != WN_TAG_TEXT && wn_rd_paragraph(rd, c) &&
         wn_rd_prose(rd, rd->chars[c], rd->lchars[c], c, nodes[c].end)))
      memset(rd->take + c, 1, nodes[c].end - c);
    c = nodes[c].next_sibling;
  }
}

/* Step 5 for one element of the article: whether it is cleaned out. */
static int wn_rd_clean_out(const wn_rd *rd, uint32_t i, const uint8_t *in_figure) {
  const wn_dom_node *n = &rd->nodes[i];
  if (n->tag == WN_TAG_FOOTER || n->tag == WN_TAG_ASIDE || n->tag == WN_TAG_BUTTON ||
      wn_rd_name_is(n, "object") || wn_rd_name_is(n, "embed"))
    return 1;
  if ((n->cls || n->id) && rd->chars[i] < WN_RD_SHARE_MAX) {
    char names[WN_RD_NAME_BYTES];
    wn_rd_names(n, names);
    if (strstr(names, "share"))
      return 1;
  }
  if (!(rd->flags & WN_RD_CLEAN_CONDITIONALLY))
    return 0;
  const uint8_t t = n->tag;
  int fieldset = wn_rd_name_is(n, "fieldset");
  if (t != WN_TAG_FORM && t != WN_TAG_TABLE && t != WN_TAG_UL && t != WN_TAG_DIV && !fieldset)
    return 0;
  const int weight = wn_rd_weight(rd, n);
  if (weight < 0)
    return 1;
  if (rd->commas[i] >= 10)
    return 0;
  if (t == WN_TAG_TABLE) {
    /* A data table (headed cells, or many rows) is content. */
    for (uint32_t j = i + 1; j < n->end; j++)
      if (rd->nodes[j].tag == WN_TAG_TH || rd->nodes[j].tag == WN_TAG_THEAD ||
          wn_rd_name_is(&rd->nodes[j], "caption"))
        return 0;
  }
  const int is_list = t == WN_TAG_UL || t == WN_TAG_OL;
  const double p = rd->np[i], img = rd->nimg[i], input = rd->ninput[i];
  const double li = (double)rd->nli[i] - 100.0;
  const uint32_t len = rd->chars[i];
  const double ld = wn_rd_density(rd, i);
  const double hd = len ? (double)rd->hchars[i] / (double)len : 0.0;
  return (img > 1 && p / img < 0.5 && !in_figure[i]) || (!is_list && li > p) ||
         (input > (double)(rd->np[i] / 3)) ||
         (!is_list && hd < 0.9 && len < 25 && (img == 0 || img > 2) && !in_figure[i]) ||
         (!is_list && weight < 25 && ld > 0.2) || (weight >= 25 && ld > 0.5);
}

/* Step 5 over take[]; writes keep[] and returns the characters kept. */
static uint32_t wn_rd_clean(wn_rd *rd, uint8_t *in_figure, uint8_t *keep) {
  const wn_dom_node *nodes = rd->nodes;
  uint32_t kept = 0;
  memset(keep, 0, rd->count);
  for (uint32_t i = 0; i < rd->count; i++) {
    uint32_t p = nodes[i].parent;
    in_figure[i] = p != WN_DOM_NONE && (in_figure[p] || nodes[p].tag == WN_TAG_FIGURE);
  }
  for (uint32_t i = 0; i < rd->count;) {
    const wn_dom_node *n = &nodes[i];
    if (!rd->take[i] || rd->gone[i]) {
      i++;
      continue;
    }
    if (n->tag != WN_TAG_TEXT && wn_rd_clean_out(rd, i, in_figure)) {
      i = n->end;
      continue;
    }
    if (n->tag == WN_TAG_TEXT) {
      keep[i] = 1;
      kept += rd->chars[i];
    }
    i++;
  }
  return kept;
}

wn_err wn_readability_select(const wn_dom_page *page, wn_detect_result *res) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  if (count == 0)
    return WN_OK;
  wn_rd rd;
  memset(&rd, 0, sizeof rd);
  rd.page = page;
  rd.nodes = nodes;
  rd.count = count;
  wn_rd_words_init(&rd.unlikely, wn_rd_unlikely, WN_RD_COUNT(wn_rd_unlikely));
  wn_rd_words_init(&rd.maybe, wn_rd_maybe, WN_RD_COUNT(wn_rd_maybe));
  wn_rd_words_init(&rd.negative, wn_rd_negative, WN_RD_COUNT(wn_rd_negative));
  wn_rd_words_init(&rd.positive, wn_rd_positive, WN_RD_COUNT(wn_rd_positive));
  wn_err err = WN_ENOMEM;
  void *arr[4];
  void *block = wn_scratch_arrays(4,
                                  (const size_t[]){(size_t)count * 9,
                                                   (size_t)count * 8 * sizeof(uint32_t),
                                                   (size_t)count * sizeof(double), count},
                                  0x8u, arr);
  if (!block)
    goto out;
  uint8_t *bytes = arr[0];
  uint32_t *words = arr[1];
  double *score = arr[2];
  uint8_t *best_keep = arr[3];
  rd.gone = bytes;
  rd.blockdesc = bytes + 2 * (size_t)count;
  rd.in_head = bytes + 3 * (size_t)count;
  rd.in_table = bytes + 4 * (size_t)count;
  rd.cand = bytes + 5 * (size_t)count;
  rd.take = bytes + 6 * (size_t)count;
  uint8_t *in_figure = bytes + 7 * (size_t)count;
  uint8_t *keep = bytes + 8 * (size_t)count;
  rd.chars = words;
  rd.lchars = words + count;
  rd.hchars = words + 2 * (size_t)count;
  rd.commas = words + 3 * (size_t)count;
  rd.np = words + 4 * (size_t)count;
  rd.nimg = words + 5 * (size_t)count;
  rd.nli = words + 6 * (size_t)count;
  rd.ninput = words + 7 * (size_t)count;
  rd.score = score;
  /* Step 6: the flags dropped one at a time while the article is short. */
  static const uint32_t attempts[] = {
      WN_RD_ALL_FLAGS, WN_RD_ALL_FLAGS & ~WN_RD_STRIP_UNLIKELYS,
      WN_RD_CLEAN_CONDITIONALLY, 0};
  uint32_t best_kept = 0;
  for (size_t a = 0; a < sizeof attempts / sizeof *attempts; a++) {
    /* Step 1 and the counts depend on the unlikely words alone: made
     * again only when that flag changes. */
    if (a == 0 || (attempts[a] ^ attempts[a - 1]) & WN_RD_STRIP_UNLIKELYS) {
      rd.flags = attempts[a];
      memset(words, 0, (size_t)count * 8 * sizeof *words);
      wn_rd_prepare(&rd);
    }
    rd.flags = attempts[a];
    wn_rd_score(&rd);
    uint32_t top = wn_rd_top(&rd);
    if (top == WN_DOM_NONE) {
      /* Nothing scored above the body: the body is the article. */
      uint32_t body = wn_dom_body(page);
      top = body == WN_DOM_NONE ? 0 : body;
      memset(rd.take, 0, count);
      memset(rd.take + top, 1, nodes[top].end - top);
    } else {
      wn_rd_siblings(&rd, top);
    }
    uint32_t kept = wn_rd_clean(&rd, in_figure, keep);
    if (a == 0 || kept > best_kept) {
      best_kept = kept;
      memcpy(best_keep, keep, count);
    }
    if (kept >= WN_RD_CHAR_THRESHOLD)
      break;
  }
  for (uint32_t i = 0; i < count; i++)
    res->keep[i] = best_keep[i];
  err = WN_OK;
out:
  wn_scratch_release(block);
  return err;
}
