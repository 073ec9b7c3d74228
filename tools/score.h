/*
 * tools/score.h: the yardsticks of every accuracy figure, one copy each:
 * the word F1 of the CleanEval protocol and the corpora of
 * ../shared/corpus (winnow-eval), and the snippet match of trafilatura's
 * benchmark (winnow-snippets). Unit tests: tests/tools/test_score.c.
 */
#ifndef WN_TOOL_SCORE_H
#define WN_TOOL_SCORE_H

#include <stddef.h>

#include <winnow/winnow.h>

/* Bytes of text one bag may hold. */
#define WN_SCORE_MAX_TOKEN_BYTES ((size_t)256 * 1024 * 1024)

/* A page's bag of tokens: NUL-terminated lower-cased UTF-8 words packed in
 * one buffer, and (once sorted) pointers to them in byte order. */
typedef struct wn_score_tokens {
  wn_buf bytes;
  size_t *offsets;
  size_t count;
  size_t alloc;
  const char **sorted;
} wn_score_tokens;

/* Word-level precision, recall and F1 of an output against its gold. */
typedef struct wn_score {
  double precision;
  double recall;
  double f1;
  size_t words_out;
  size_t words_gold;
  size_t words_common;
} wn_score;

void wn_score_tokens_init(wn_score_tokens *t);
void wn_score_tokens_free(wn_score_tokens *t);
/* Splits UTF-8 text into words (maximal runs of what iswalnum() accepts,
 * lower-cased; needs a UTF-8 LC_CTYPE such as C.UTF-8) and sorts the bag.
 * WN_ENOMEM, WN_ETOOBIG past WN_SCORE_MAX_TOKEN_BYTES. */
wn_err wn_score_tokenize(const char *text, size_t len, wn_score_tokens *t);
/* P/R/F1 of two sorted bags: the multiset intersection. Both empty: 1;
 * one empty: 0. */
void wn_score_bags(const wn_score_tokens *out, const wn_score_tokens *gold, wn_score *s);
/* Both at once: tokenises out and gold, scores them. */
wn_err wn_score_texts(const char *out, size_t out_len, const char *gold, size_t gold_len,
                      wn_score *s);

/* The snippet benchmark's matching: text with every run of white space
 * (Python's str.isspace(), as the benchmark's scripts) one space and the
 * ends trimmed, into out; then a snippet is found when it occurs in the
 * collapsed output. */
wn_err wn_score_collapse(const char *text, size_t len, wn_buf *out);
int wn_score_contains(const char *hay, size_t hlen, const char *needle, size_t nlen);

#endif /* WN_TOOL_SCORE_H */
