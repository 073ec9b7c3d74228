/*
 * tools/score.c: the word F1 scorer and the snippet matcher (score.h).
 */
#include "score.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

void wn_score_tokens_init(wn_score_tokens *t) {
  wn_buf_init(&t->bytes, WN_SCORE_MAX_TOKEN_BYTES);
  t->offsets = NULL;
  t->count = 0;
  t->alloc = 0;
  t->sorted = NULL;
}

void wn_score_tokens_free(wn_score_tokens *t) {
  if (!t)
    return;
  wn_buf_free(&t->bytes);
  free(t->offsets);
  free(t->sorted);
  wn_score_tokens_init(t);
}

static wn_err wn_score_tokens_push(wn_score_tokens *t, size_t offset) {
  if (t->count == t->alloc) {
    size_t next = t->alloc ? t->alloc * 2 : 256;
    if (next > SIZE_MAX / sizeof *t->offsets)
      return WN_ETOOBIG;
    size_t *grown = realloc(t->offsets, next * sizeof *grown);
    if (!grown)
      return WN_ENOMEM;
    t->offsets = grown;
    t->alloc = next;
  }
  t->offsets[t->count++] = offset;
  return WN_OK;
}

static int wn_score_cmp_str(const void *a, const void *b) {
  const char *const *sa = a;
  const char *const *sb = b;
  return strcmp(*sa, *sb);
}

/*
 * Splits UTF-8 text into tokens: maximal runs of characters iswalnum()
 * accepts, each lower-cased with towlower(). Needs a UTF-8 LC_CTYPE
 * (glibc's C.UTF-8 classifies all of Unicode). A byte that is not valid
 * UTF-8 ends a token, like any separator. Then sorts the bag.
 */
wn_err wn_score_tokenize(const char *text, size_t len, wn_score_tokens *t) {
  wn_err err = WN_OK;
  mbstate_t state;
  memset(&state, 0, sizeof state);
  size_t start = 0;
  int in_token = 0;
  size_t i = 0;
  while (i < len) {
    wchar_t wc = 0;
    size_t n = mbrtowc(&wc, text + i, len - i, &state);
    int is_word = 0;
    if (n == (size_t)-1 || n == (size_t)-2) {
      /* Invalid or truncated: a separator; resynchronise on the next byte. */
      memset(&state, 0, sizeof state);
      n = 1;
    } else if (n == 0) {
      n = 1; /* an embedded NUL */
    } else {
      is_word = iswalnum((wint_t)wc) != 0;
    }
    if (is_word) {
      char mb[MB_LEN_MAX];
      mbstate_t out_state;
      memset(&out_state, 0, sizeof out_state);
      size_t before = t->bytes.len;
      size_t m = wcrtomb(mb, (wchar_t)towlower((wint_t)wc), &out_state);
      /* wcrtomb cannot fail on a character mbrtowc just decoded; if it
       * did, the original bytes stand in. */
      err = m == (size_t)-1 ? wn_buf_append(&t->bytes, text + i, n)
                            : wn_buf_append(&t->bytes, mb, m);
      if (err)
        goto out;
      if (!in_token) {
        in_token = 1;
        start = before;
      }
    } else if (in_token) {
      if ((err = wn_buf_append_char(&t->bytes, '\0')) || (err = wn_score_tokens_push(t, start)))
        goto out;
      in_token = 0;
    }
    i += n;
  }
  if (in_token) {
    if ((err = wn_buf_append_char(&t->bytes, '\0')) || (err = wn_score_tokens_push(t, start)))
      goto out;
  }
  if (t->count) {
    t->sorted = malloc(t->count * sizeof *t->sorted);
    if (!t->sorted) {
      err = WN_ENOMEM;
      goto out;
    }
    for (size_t k = 0; k < t->count; k++)
      t->sorted[k] = t->bytes.data + t->offsets[k];
    qsort(t->sorted, t->count, sizeof *t->sorted, wn_score_cmp_str);
  }
out:
  return err;
}

/* The protocol's word-level P/R/F1 of two sorted bags: the multiset
 * intersection by one merge of the sorted arrays. */
void wn_score_bags(const wn_score_tokens *out, const wn_score_tokens *gold,
                               wn_score *s) {
  size_t i = 0, j = 0, common = 0;
  while (i < out->count && j < gold->count) {
    int c = strcmp(out->sorted[i], gold->sorted[j]);
    if (c < 0) {
      i++;
    } else if (c > 0) {
      j++;
    } else {
      common++;
      i++;
      j++;
    }
  }
  s->words_out = out->count;
  s->words_gold = gold->count;
  s->words_common = common;
  if (out->count == 0 && gold->count == 0) {
    s->precision = s->recall = s->f1 = 1.0;
  } else if (out->count == 0 || gold->count == 0) {
    s->precision = s->recall = s->f1 = 0.0;
  } else {
    s->precision = (double)common / (double)out->count;
    s->recall = (double)common / (double)gold->count;
    s->f1 = common ? 2.0 * s->precision * s->recall / (s->precision + s->recall) : 0.0;
  }
}

/* Scores two texts (tokenising both). */
wn_err wn_score_texts(const char *out, size_t out_len, const char *gold,
                                  size_t gold_len, wn_score *s) {
  wn_score_tokens a, b;
  wn_score_tokens_init(&a);
  wn_score_tokens_init(&b);
  wn_err err = wn_score_tokenize(out, out_len, &a);
  if (!err)
    err = wn_score_tokenize(gold, gold_len, &b);
  if (!err)
    wn_score_bags(&a, &b, s);
  wn_score_tokens_free(&a);
  wn_score_tokens_free(&b);
  return err;
}


/* Bytes of the white space character (str.isspace()) at s[0..len), else 0. */
static size_t wn_score_space(const unsigned char *s, size_t len) {
  unsigned char c = s[0];
  if (c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f))
    return 1;
  if (c == 0xc2 && len >= 2 && (s[1] == 0x85 || s[1] == 0xa0))
    return 2;
  if (len < 3)
    return 0;
  if ((c == 0xe1 && s[1] == 0x9a && s[2] == 0x80) || /* U+1680 */
      (c == 0xe2 && s[1] == 0x80 &&
       ((s[2] >= 0x80 && s[2] <= 0x8a) || s[2] == 0xa8 || s[2] == 0xa9 || s[2] == 0xaf)) ||
      (c == 0xe2 && s[1] == 0x81 && s[2] == 0x9f) || /* U+205F */
      (c == 0xe3 && s[1] == 0x80 && s[2] == 0x80))   /* U+3000 */
    return 3;
  return 0;
}

/* out = text with every run of white space one space, the ends trimmed. */
wn_err wn_score_collapse(const char *text, size_t len, wn_buf *out) {
  const unsigned char *s = (const unsigned char *)text;
  wn_buf_reset(out);
  size_t i = 0;
  int gap = 0;
  while (i < len) {
    size_t n = wn_score_space(s + i, len - i);
    if (n) {
      gap = out->len > 0;
      i += n;
      continue;
    }
    size_t start = i;
    while (i < len && !wn_score_space(s + i, len - i))
      i++;
    wn_err err = gap ? wn_buf_append_char(out, ' ') : WN_OK;
    if (err || (err = wn_buf_append(out, text + start, i - start)))
      return err;
    gap = 0;
  }
  return WN_OK;
}

/* 1 if needle[0..nlen) occurs in hay[0..hlen) (NUL bytes are bytes). */
int wn_score_contains(const char *hay, size_t hlen, const char *needle, size_t nlen) {
  if (nlen == 0)
    return 1;
  if (nlen > hlen)
    return 0;
  const char *p = hay, *end = hay + (hlen - nlen) + 1;
  while (p < end && (p = memchr(p, needle[0], (size_t)(end - p))) != NULL) {
    if (memcmp(p, needle, nlen) == 0)
      return 1;
    p++;
  }
  return 0;
}
