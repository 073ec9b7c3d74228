/*
 * learn/variants.c: other versions of one page among the samples: the
 * page in another language, and near-duplicates (a copy under another
 * URL, a translation that declares no language).
 *
 * The site-level paper learns from a key page and an n-SET of pages that
 * share its template (Sec. 2.1): what recurs over the samples is template,
 * what varies is content. Another version of the key page repeats the
 * key page's content structure node for node (a translation pairs every
 * element, and so do its paragraphs; a copy pairs its text as well), so
 * content counts as recurring and becomes template. Such a page is no
 * sample. The rules are in learn.h ("Other versions of a page").
 */
#include "learn/learn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- language tags ------------------------------------------------------------ */

/* ISO 639-1, the two-letter primary language subtags of BCP 47 (RFC 5646,
 * Sec. 2.2.1): a bare two-letter path segment is a language only if it is
 * one of these (js, db, ui... are not). */
static const char wn_iso639_1[] =
    "aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv "
    "cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr "
    "ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw "
    "ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv "
    "ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr "
    "ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi "
    "yo za zh zu";


static int wn_iso639_1_has(const char *s) {
  char a = wn_ascii_lower(s[0]), b = wn_ascii_lower(s[1]);
  for (const char *p = wn_iso639_1; p[0]; p += 3) {
    if (p[0] == a && p[1] == b)
      return 1;
    if (!p[2])
      break;
  }
  return 0;
}

int wn_learn_language_tag(const char *s, size_t len, int *has_subtag) {
  /* The tags sites put in their URLs: a primary subtag, then an optional
   * script (4 letters) and region (2 letters or 3 digits) subtag, joined
   * by '-' or '_' (en, de-de, pt_BR, zh-Hans, sr-Latn-RS). A primary of
   * three letters (ISO 639-2/3) only with a subtag: bare, it is as often
   * a word (api, doc, faq). */
  size_t i = 0;
  while (i < len && wn_ascii_alpha((unsigned char)s[i]))
    i++;
  size_t primary = i;
  if (primary != 2 && primary != 3)
    return 0;
  if (primary == 2 && !wn_iso639_1_has(s))
    return 0;
  int subtags = 0, script = 0, region = 0;
  while (i < len) {
    if (s[i] != '-' && s[i] != '_')
      return 0;
    size_t start = ++i, alpha = 0, digit = 0;
    while (i < len && s[i] != '-' && s[i] != '_') {
      alpha += wn_ascii_alpha((unsigned char)s[i]) != 0;
      digit += wn_ascii_digit((unsigned char)s[i]) != 0;
      i++;
    }
    size_t n = i - start;
    if (n == 4 && alpha == 4 && !script && !region)
      script = 1;
    else if (((n == 2 && alpha == 2) || (n == 3 && digit == 3)) && !region)
      region = 1;
    else
      return 0;
    subtags++;
  }
  if (primary == 3 && subtags == 0)
    return 0;
  if (has_subtag)
    *has_subtag = subtags > 0;
  return 1;
}

/* Bytes of the primary subtag of a lang value (up to '-' or '_'). */
static size_t wn_primary_len(const char *s, size_t len) {
  size_t i = 0;
  while (i < len && s[i] != '-' && s[i] != '_')
    i++;
  return i;
}

/* 1 if the byte ranges are equal ignoring ASCII case, with '-' and '_'
 * one character. */
static int wn_tag_equal(const char *a, size_t alen, const char *b, size_t blen) {
  if (alen != blen)
    return 0;
  for (size_t i = 0; i < alen; i++) {
    char x = wn_ascii_lower(a[i]), y = wn_ascii_lower(b[i]);
    if (x == '_')
      x = '-';
    if (y == '_')
      y = '-';
    if (x != y)
      return 0;
  }
  return 1;
}

/* A lang value trimmed of white space; 0 bytes when absent or empty. */
static size_t wn_lang_trim(const char *lang, const char **start) {
  *start = lang;
  if (!lang)
    return 0;
  while (**start == ' ' || **start == '\t' || **start == '\n' || **start == '\r')
    (*start)++;
  size_t n = strlen(*start);
  while (n > 0 && ((*start)[n - 1] == ' ' || (*start)[n - 1] == '\t' ||
                   (*start)[n - 1] == '\n' || (*start)[n - 1] == '\r'))
    n--;
  return n;
}

int wn_learn_lang_differs(const char *key_lang, const char *lang) {
  const char *a = NULL, *b = NULL;
  size_t alen = wn_lang_trim(key_lang, &a), blen = wn_lang_trim(lang, &b);
  if (alen == 0 || blen == 0)
    return 0;
  /* Primary subtags only: en and en-US on two pages of one site are one
   * language (a regional copy of a page is a near-duplicate, found by its
   * text, not by its tag). */
  return !wn_tag_equal(a, wn_primary_len(a, alen), b, wn_primary_len(b, blen));
}

int wn_learn_lang_agrees(const char *lang, const char *tag, size_t tag_len) {
  const char *a = NULL;
  size_t alen = wn_lang_trim(lang, &a);
  if (alen == 0)
    return 0;
  return wn_tag_equal(a, wn_primary_len(a, alen), tag, wn_primary_len(tag, tag_len));
}

/* ---- near-duplicates ----------------------------------------------------------- */

/* Structure must agree this closely: the share of each page's elements
 * the ETDM pairs with the other page, on the page where it is higher and
 * on the other. A translation is the same tree with other words, but for
 * its per-page boxes (a list of related articles in its language); two
 * articles of one template often differ more (paragraphs, items, lines),
 * but not always: the text decides. */
#define WN_DUP_MIN_ELEMENTS 0.95
#define WN_DUP_MIN_ELEMENTS_LARGER 0.6
/* A copy: the text the ETDM does not pair (text nodes pair when their
 * text is equal, digits folded) is at most this share of each page's. */
#define WN_DUP_COPY_TEXT 0.01
/* A translation: each page's unpaired text, summed per block element
 * (the nearest block-level element above it: a paragraph, an item, a
 * cell, a heading), the blocks paired by the ETDM, one side's lengths
 * scaled by the ratio of the two totals (a language is longer or shorter
 * than another throughout). The paired blocks must hold WN_DUP_MIN_MATCHED
 * of each side's unpaired text, none more than WN_DUP_MAX_BLOCK of it,
 * and differ by at most WN_DUP_MAX_DEVIATION of the longer in sum; and
 * the lengths of the long ones (WN_DUP_LONG_BYTES and more: paragraphs,
 * where a translation keeps the proportions and short labels vary most),
 * at least WN_DUP_MIN_LONG of them, must correlate (Pearson) at least
 * WN_DUP_MIN_CORRELATION. Last, the words must differ: at most
 * WN_DUP_MAX_SHARED_WORDS of one side's unpaired words (counted by
 * occurrence, so that the common words of a language weigh) occur in the
 * other's, on the side where fewer do.
 *
 * Measured on Debian Reference (chapters in en against fr and de):
 * translations correlate 0.95 to 0.99, deviate 0.10 to 0.15 and share
 * 0.11 to 0.22 of their words; on tests/fixtures/lang-site, a five-
 * paragraph story against its French and German versions correlates
 * 0.90 and 0.97 and shares 0.09 and 0.05. Against that, on
 * tests/fixtures/site articles of one template, element for element
 * alike, paragraphs of like length, correlate 0.66 to 0.73 and deviate
 * 0.14 to 0.18 (the deviation alone does not tell them apart);
 * tests/fixtures/places-sections, generated pages of one vocabulary cut
 * to one pattern of lengths, agree in shape and share all their words;
 * two English articles of lang-site share 0.34 to 0.42. */
#define WN_DUP_MIN_MATCHED 0.8
#define WN_DUP_MAX_BLOCK 0.5
#define WN_DUP_MAX_DEVIATION 0.2
#define WN_DUP_LONG_BYTES 100.0
#define WN_DUP_MIN_LONG 5u
#define WN_DUP_MIN_CORRELATION 0.85
#define WN_DUP_MAX_SHARED_WORDS 0.28
#define WN_DUP_WORD_BITS (1u << 18)

typedef struct wn_dup_side {
  const wn_dom_node *nodes;
  uint32_t count;
  uint8_t *paired;      /* one byte a node */
  uint32_t *block_text; /* per block element: its unpaired text bytes */
  uint8_t *words;       /* WN_DUP_WORD_BITS bits: the words of its unpaired text */
  uint64_t elements, elements_paired, text, text_unpaired;
} wn_dup_side;

/* The hash of a word (a run of ASCII letters and non-ASCII bytes, two
 * bytes or more, ASCII lower-cased: digits and punctuation are no words,
 * numbers and code recur in a translation) in WN_DUP_WORD_BITS bits. */
static uint32_t wn_dup_word_hash(const char *w, size_t n) {
  uint32_t h = 2166136261u; /* FNV-1a */
  for (size_t i = 0; i < n; i++) {
    const unsigned char c = (unsigned char)wn_ascii_lower(w[i]);
    h = (h ^ c) * 16777619u;
  }
  return h & (WN_DUP_WORD_BITS - 1u);
}

static int wn_dup_word_byte(unsigned char c) {
  return wn_ascii_alpha(c) || c >= 0x80;
}

/* Sets the words of a text in bits (set = 1), or counts them: returns
 * the words of the text and adds to *found those present in other. */
static uint64_t wn_dup_words(const char *t, uint8_t *bits, int set, const uint8_t *other,
                             uint64_t *found) {
  uint64_t total = 0;
  for (size_t i = 0; t[i];) {
    if (!wn_dup_word_byte((unsigned char)t[i])) {
      i++;
      continue;
    }
    size_t start = i;
    while (t[i] && wn_dup_word_byte((unsigned char)t[i]))
      i++;
    if (i - start < 2)
      continue;
    uint32_t h = wn_dup_word_hash(t + start, i - start);
    if (set)
      bits[h >> 3] = (uint8_t)(bits[h >> 3] | (1u << (h & 7u)));
    if (other) {
      total++;
      if (other[h >> 3] & (1u << (h & 7u)))
        (*found)++;
    }
  }
  return total;
}

/* The share of a's unpaired words (occurrences) that occur in b's
 * unpaired text. */
static double wn_dup_shared_words(const wn_dup_side *a, const wn_dup_side *b) {
  uint64_t total = 0, found = 0;
  for (uint32_t i = 0; i < a->count; i++)
    if (a->nodes[i].tag == WN_TAG_TEXT && !a->paired[i] && a->nodes[i].text)
      total += wn_dup_words(a->nodes[i].text, NULL, 0, b->words, &found);
  return total ? (double)found / (double)total : 1.0;
}

/* Counts and block texts of one side; paired[] is set. */
static void wn_dup_measure(wn_dup_side *s) {
  for (uint32_t i = 0; i < s->count; i++) {
    const wn_dom_node *n = &s->nodes[i];
    if (n->tag != WN_TAG_TEXT) {
      s->elements++;
      s->elements_paired += s->paired[i];
      continue;
    }
    s->text += n->own_text_len;
    if (s->paired[i] || n->own_text_len == 0)
      continue;
    s->text_unpaired += n->own_text_len;
    if (n->text)
      (void)wn_dup_words(n->text, s->words, 1, NULL, NULL);
    /* Depth is capped by the parser, so the climb is bounded. */
    uint32_t block = n->parent;
    while (block != WN_DOM_NONE && !(s->nodes[block].flags & WN_DOM_BLOCK))
      block = s->nodes[block].parent;
    if (block != WN_DOM_NONE)
      s->block_text[block] += n->own_text_len;
  }
}

/* The translation rule above. */
static int wn_dup_blocks_agree(const wn_dup_side *a, const wn_dup_side *b, const uint32_t *map) {
  if (a->text_unpaired == 0 || b->text_unpaired == 0)
    return 0;
  const double r = (double)b->text_unpaired / (double)a->text_unpaired;
  uint64_t matched_a = 0, matched_b = 0;
  uint32_t largest = 0, n_long = 0;
  double deviation = 0.0, weight = 0.0;
  double sx = 0.0, sy = 0.0, sxx = 0.0, syy = 0.0, sxy = 0.0;
  for (uint32_t i = 0; i < a->count; i++) {
    uint32_t ta = a->block_text[i];
    if (ta == 0)
      continue;
    if (ta > largest)
      largest = ta;
    uint32_t j = map[i];
    if (j == WN_DOM_NONE || j >= b->count || b->block_text[j] == 0)
      continue;
    double x = r * (double)ta, y = (double)b->block_text[j];
    double longer = x > y ? x : y;
    deviation += x > y ? x - y : y - x;
    weight += longer;
    matched_a += ta;
    matched_b += b->block_text[j];
    if (longer >= WN_DUP_LONG_BYTES) {
      n_long++;
      sx += x;
      sy += y;
      sxx += x * x;
      syy += y * y;
      sxy += x * y;
    }
  }
  if (n_long < WN_DUP_MIN_LONG || (double)largest > WN_DUP_MAX_BLOCK * (double)a->text_unpaired ||
      (double)matched_a < WN_DUP_MIN_MATCHED * (double)a->text_unpaired ||
      (double)matched_b < WN_DUP_MIN_MATCHED * (double)b->text_unpaired ||
      deviation > WN_DUP_MAX_DEVIATION * weight)
    return 0;
  /* Pearson's r, compared squared to spare a square root: cov >= 0 and
   * cov^2 >= c^2 vx vy. */
  const double k = (double)n_long;
  const double cov = sxy - sx * sy / k, vx = sxx - sx * sx / k, vy = syy - sy * sy / k;
  if (!(vx > 0.0 && vy > 0.0) || cov <= 0.0)
    return 0;
  return cov * cov >= WN_DUP_MIN_CORRELATION * WN_DUP_MIN_CORRELATION * vx * vy;
}

wn_err wn_learn_near_duplicate(const wn_dom_page *a, const wn_dom_page *b, wn_learn_dup *out,
                               wn_diag *diag) {
  wn_err err = WN_OK;
  wn_dup_side sa = {0}, sb = {0};
  uint32_t *map = NULL;
  *out = WN_LEARN_DUP_NONE;
  sa.nodes = wn_dom_nodes(a, &sa.count);
  sb.nodes = wn_dom_nodes(b, &sb.count);
  map = malloc((size_t)(sa.count ? sa.count : 1) * sizeof *map);
  sa.paired = calloc(sa.count ? sa.count : 1, 1);
  sb.paired = calloc(sb.count ? sb.count : 1, 1);
  sa.block_text = calloc(sa.count ? sa.count : 1, sizeof *sa.block_text);
  sb.block_text = calloc(sb.count ? sb.count : 1, sizeof *sb.block_text);
  sa.words = calloc(WN_DUP_WORD_BITS / 8u, 1);
  sb.words = calloc(WN_DUP_WORD_BITS / 8u, 1);
  if (!map || !sa.paired || !sb.paired || !sa.block_text || !sb.block_text || !sa.words ||
      !sb.words) {
    err = wn_diag_set(diag, WN_ENOMEM, "learn: out of memory comparing two pages");
    goto out;
  }
  wn_etdm_view va = wn_etdm_view_of_page(a), vb = wn_etdm_view_of_page(b);
  uint32_t pairs = 0;
  if ((err = wn_etdm_map(&va, &vb, map, &pairs))) {
    wn_diag_set(diag, err, "learn: mapping two sample pages failed");
    goto out;
  }
  for (uint32_t i = 0; i < sa.count; i++)
    if (map[i] != WN_DOM_NONE && map[i] < sb.count) {
      sa.paired[i] = 1;
      sb.paired[map[i]] = 1;
    }
  wn_dup_measure(&sa);
  wn_dup_measure(&sb);
  if (sa.elements == 0 || sb.elements == 0 || sa.text == 0 || sb.text == 0)
    goto out;
  /* The smaller tree pairs nearly whole, the larger mostly: a translation
   * may carry other per-page boxes (its own related links). */
  const double ea = (double)sa.elements_paired / (double)sa.elements,
               eb = (double)sb.elements_paired / (double)sb.elements;
  if ((ea > eb ? ea : eb) < WN_DUP_MIN_ELEMENTS || (ea < eb ? ea : eb) < WN_DUP_MIN_ELEMENTS_LARGER)
    goto out;
  if ((double)sa.text_unpaired <= WN_DUP_COPY_TEXT * (double)sa.text &&
      (double)sb.text_unpaired <= WN_DUP_COPY_TEXT * (double)sb.text)
    *out = WN_LEARN_DUP_COPY;
  else if (wn_dup_blocks_agree(&sa, &sb, map)) {
    /* Another language: few of the words of one are words of the other
     * (the lesser of the two shares; a technical text keeps some words
     * untranslated). */
    double ab = wn_dup_shared_words(&sa, &sb), ba = wn_dup_shared_words(&sb, &sa);
    if ((ab < ba ? ab : ba) <= WN_DUP_MAX_SHARED_WORDS)
      *out = WN_LEARN_DUP_SHAPE;
  }
out:
  free(map);
  free(sa.paired);
  free(sb.paired);
  free(sa.block_text);
  free(sb.block_text);
  free(sa.words);
  free(sb.words);
  return err;
}

int wn_learn_other_language(const wn_dom_page *key, const wn_dom_page *page, char *why,
                            size_t why_size) {
  const char *kl = wn_dom_lang(key), *pl = wn_dom_lang(page);
  if (!wn_learn_lang_differs(kl, pl))
    return 0;
  if (why && why_size)
    snprintf(why, why_size,
             "its lang is \"%.32s\", the key page's \"%.32s\": another language",
             pl, kl);
  return 1;
}

void wn_learn_dup_message(wn_learn_dup dup, const char *of, char *why, size_t why_size) {
  if (!why || !why_size)
    return;
  if (dup == WN_LEARN_DUP_COPY)
    snprintf(why, why_size, "a near-duplicate of %s: the same DOM and the same text (a copy)", of);
  else
    snprintf(why, why_size,
             "a near-duplicate of %s: the same DOM and text blocks of the same lengths "
             "(a translation?)",
             of);
}
