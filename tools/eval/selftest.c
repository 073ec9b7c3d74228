/*
 * tools/eval/selftest.c: the scorer's and the repeat check's own cases
 * (--selftest), and a corpus's index read when one is given.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h" /* src/util: number parsing, the clock, buffers */
#include "eval.h"

static int wn_eval_expect(const char *name, const char *out, const char *gold, double p, double r,
                          double f1) {
  wn_score s;
  memset(&s, 0, sizeof s);
  if (wn_score_texts(out, strlen(out), gold, strlen(gold), &s)) {
    printf("FAIL %s: scorer error\n", name);
    return 1;
  }
  double eps = 1e-9;
  int ok = s.precision > p - eps && s.precision < p + eps && s.recall > r - eps &&
           s.recall < r + eps && s.f1 > f1 - eps && s.f1 < f1 + eps;
  printf("%s %s: P %.4f R %.4f F1 %.4f (want %.4f %.4f %.4f)\n", ok ? "ok  " : "FAIL", name,
         s.precision, s.recall, s.f1, p, r, f1);
  return !ok;
}

static int wn_eval_expect_tokens(const char *name, const char *text, const char *want) {
  wn_score_tokens t;
  wn_buf got;
  wn_score_tokens_init(&t);
  wn_buf_init(&got, 4096);
  int bad = 1;
  if (wn_score_tokenize(text, strlen(text), &t))
    goto out;
  /* In text order, space-separated. */
  for (size_t k = 0; k < t.count; k++) {
    const char *tok = t.bytes.data + t.offsets[k];
    if ((k && wn_buf_append_char(&got, ' ')) || wn_buf_append(&got, tok, strlen(tok)))
      goto out;
  }
  bad = strcmp(got.data ? got.data : "", want) != 0;
out:
  printf("%s %s: [%s] (want [%s])\n", bad ? "FAIL" : "ok  ", name, got.data ? got.data : "", want);
  wn_buf_free(&got);
  wn_score_tokens_free(&t);
  return bad;
}

static int wn_eval_expect_repeats(const char *name, const char *text, const char *gold, int want) {
  const int got = wn_eval_repeats(text, strlen(text), gold, strlen(gold));
  printf("%s repeats %s: %d (want %d)\n", got == want ? "ok  " : "FAIL", name, got, want);
  return got != want;
}

int wn_eval_selftest(const char *corpus) {
  int fails = 0;
  fails += wn_eval_expect_tokens("ascii", "The cat, the DOG; 42x y-z", "the cat the dog 42x y z");
  fails += wn_eval_expect_tokens("unicode", "Stra\xc3\x9f" "e \xc3\x9c" "BER caf\xc3\xa9\xe2\x80\x94"
                                            "na\xc3\xafve \xe6\x9d\xb1\xe4\xba\xac \xce\x91\xce\x98\xce\x97\xce\x9d\xce\x91",
                                 "stra\xc3\x9f" "e \xc3\xbc" "ber caf\xc3\xa9 na\xc3\xafve "
                                 "\xe6\x9d\xb1\xe4\xba\xac \xce\xb1\xce\xb8\xce\xb7\xce\xbd\xce\xb1");
  fails += wn_eval_expect_tokens("invalid utf-8 splits", "ab\xff" "cd \xc3", "ab cd");
  fails += wn_eval_expect_tokens("punctuation only", " -- ... !? ", "");
  fails += wn_eval_expect("identical", "The cat sat on the mat.", "the CAT sat on the mat", 1, 1, 1);
  fails += wn_eval_expect("both empty", "", " ... ", 1, 1, 1);
  fails += wn_eval_expect("output empty", "", "some gold", 0, 0, 0);
  fails += wn_eval_expect("gold empty", "some output", "", 0, 0, 0);
  fails += wn_eval_expect("disjoint", "alpha beta", "gamma delta", 0, 0, 0);
  /* P = {the, cat, sat}, G = {the, the, cat, dog}: common 2. */
  fails += wn_eval_expect("multiset", "the cat sat", "the cat the dog", 2.0 / 3.0, 0.5,
                          2.0 * (2.0 / 3.0) * 0.5 / (2.0 / 3.0 + 0.5));
  /* Repeats count only as often as on both sides. */
  fails += wn_eval_expect("repeats", "a a a a", "a a", 0.5, 1.0, 2.0 / 3.0);
  fails += wn_eval_expect("order ignored", "b a c", "c b a", 1, 1, 1);
#define WN_EVAL_L1 "A line long enough to be judged as a repeat, first half of it, "
#define WN_EVAL_L2 "and its second half."
#define WN_EVAL_L WN_EVAL_L1 WN_EVAL_L2
  fails += wn_eval_expect_repeats("twice, gold once", WN_EVAL_L "\n" WN_EVAL_L, WN_EVAL_L, 2);
  fails += wn_eval_expect_repeats("twice, gold never", WN_EVAL_L "\n" WN_EVAL_L, "other", 1);
  fails += wn_eval_expect_repeats("white space differs", WN_EVAL_L "\n\t" WN_EVAL_L1 "  " WN_EVAL_L2 " ",
                                  WN_EVAL_L, 2);
  fails += wn_eval_expect_repeats("gold wraps it twice", WN_EVAL_L "\n" WN_EVAL_L,
                                  WN_EVAL_L1 "\n" WN_EVAL_L2 " " WN_EVAL_L1 "\n " WN_EVAL_L2, 0);
  fails += wn_eval_expect_repeats("once", WN_EVAL_L "\nother", WN_EVAL_L, 0);
  fails += wn_eval_expect_repeats("short lines", "a short line\na short line", "", 0);
#undef WN_EVAL_L
#undef WN_EVAL_L1
#undef WN_EVAL_L2

  if (corpus) {
    /* Every gold file against itself (1) and against nothing (0, or 1 when
     * the gold has no words). */
    wn_eval ev;
    memset(&ev, 0, sizeof ev);
    ev.opts.corpus = corpus;
    size_t checked = 0, empty = 0, bad = 0;
    if (wn_eval_load_index(&ev)) {
      fails++;
    } else {
      for (size_t i = 0; i < ev.n_pages; i++) {
        char *gold = NULL;
        size_t len = 0;
        wn_diag diag;
        wn_diag_clear(&diag);
        wn_err e = wn_eval_read(&ev, &ev.pages[i], "gold", "txt", &gold, &len, &diag);
        if (e) {
          printf("FAIL %s/%s: %s\n", ev.pages[i].group, ev.pages[i].id, wn_diag_message(&diag, e));
          bad++;
          continue;
        }
        wn_score self, none;
        memset(&self, 0, sizeof self);
        memset(&none, 0, sizeof none);
        if (wn_score_texts(gold, len, gold, len, &self) ||
            wn_score_texts("", 0, gold, len, &none)) {
          bad++;
        } else {
          int no_words = self.words_gold == 0;
          empty += (size_t)no_words;
          if (self.f1 != 1.0 || self.words_common != self.words_gold ||
              none.f1 != (no_words ? 1.0 : 0.0)) {
            printf("FAIL %s/%s: self F1 %.4f, empty F1 %.4f\n", ev.pages[i].group,
                   ev.pages[i].id, self.f1, none.f1);
            bad++;
          }
        }
        checked++;
        free(gold);
      }
      printf("%s gold self-check: %zu files (%zu without words), %zu bad\n", bad ? "FAIL" : "ok  ",
             checked, empty, bad);
      fails += bad != 0;
    }
    free(ev.pages);
    free(ev.groups);
    free(ev.index);
  }
  printf("%s\n", fails ? "selftest FAILED" : "selftest passed");
  return fails ? 1 : 0;
}
