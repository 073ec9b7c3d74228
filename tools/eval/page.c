/*
 * tools/eval/page.c: one page detected and scored: the store-less detector
 * with the eval's policy, the snippets found, the repeated lines, the
 * score.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h" /* src/util: number parsing, the clock, buffers */
#include "eval.h"

/* A store-less detector with the eval's policy: min_confidence and the
 * fallback method and steps as given; counting off (there is no store).
 * learned (may be NULL) is served under its site. */
wn_err wn_eval_detector(double min_confidence, wn_single_method fallback, uint32_t steps,
                        const wn_learned *learned, wn_detector **out, wn_diag *diag) {
  wn_detector_options o;
  wn_detector_options_init(&o);
  /* The selector the template was learned with, as a daemon detects. */
  o.detect.selector = WN_SELECT_SITE;
  o.detect.min_confidence = min_confidence;
  o.detect.fallback = fallback;
  o.count = 0;
  wn_err err = wn_detector_create(NULL, &o, out, diag);
  if (err)
    return err;
  err = wn_detector_set_steps(*out, steps, diag);
  if (!err && learned)
    err = wn_detector_use(*out, learned, diag);
  if (err) {
    wn_detector_destroy(*out);
    *out = NULL;
  }
  return err;
}

/* The empty output and the snippets of pg found in text (the snippet
 * protocol: white space collapsed in both). */
static wn_err wn_eval_snippets(wn_eval_page *pg, const char *text, size_t len) {
  pg->empty = len == 0;
  pg->with_n = pg->with_found = pg->without_n = pg->without_found = 0;
  if (!pg->n_snips)
    return WN_OK;
  wn_buf hay, needle;
  wn_buf_init(&hay, (size_t)64 << 20);
  wn_buf_init(&needle, (size_t)1 << 20);
  wn_err err = wn_score_collapse(text, len, &hay);
  for (size_t k = 0; !err && k < pg->n_snips; k++) {
    const wn_eval_snip *s = &pg->snip[k];
    wn_buf_reset(&needle);
    err = wn_score_collapse(s->text, strlen(s->text), &needle);
    if (err)
      break;
    int found = wn_score_contains(hay.data, hay.len, needle.data, needle.len);
    if (s->with) {
      pg->with_n++;
      pg->with_found += (size_t)found;
    } else {
      pg->without_n++;
      pg->without_found += (size_t)found;
    }
  }
  wn_buf_free(&hay);
  wn_buf_free(&needle);
  return err;
}

/* Whether text repeats a line of WN_EVAL_REPEAT_LINE bytes or more that
 * gold holds at most once (a tab's copy, a carousel's clone, a
 * responsive duplicate): 2 when the gold holds some such line exactly
 * once, 1 when it holds them not at all (repeated boilerplate, a line of
 * code the gold leaves out), else 0. Lines and the gold are compared with
 * their white space collapsed: gold files wrap lines and re-indent code. */
typedef struct wn_eval_line {
  const char *s;
  size_t len;
} wn_eval_line;

static int wn_eval_line_cmp(const void *a, const void *b) {
  const wn_eval_line *x = a, *y = b;
  if (x->len != y->len)
    return x->len < y->len ? -1 : 1;
  return memcmp(x->s, y->s, x->len);
}

static size_t wn_eval_count_in(const char *hay, size_t hlen, const char *needle, size_t nlen,
                               size_t cap) {
  size_t n = 0;
  for (size_t i = 0; n < cap && nlen && i + nlen <= hlen; i++)
    if (hay[i] == needle[0] && memcmp(hay + i, needle, nlen) == 0) {
      n++;
      i += nlen - 1;
    }
  return n;
}

/* s's len bytes into out with each run of white space one space (a line
 * end too when keep_lines is 0, else the run keeps one '\n' when it held
 * one) and none at a line's ends; returns the bytes written. */
static size_t wn_eval_collapse(const char *s, size_t len, char *out, int keep_lines) {
  size_t o = 0;
  for (size_t i = 0; i < len;) {
    if (!wn_html_space(s[i])) {
      out[o++] = s[i++];
      continue;
    }
    int nl = 0;
    for (; i < len && wn_html_space(s[i]); i++)
      nl |= s[i] == '\n';
    if (keep_lines && nl) {
      while (o && out[o - 1] == ' ')
        o--;
      out[o++] = '\n';
    } else if (o && out[o - 1] != '\n' && i < len) {
      out[o++] = ' ';
    }
  }
  return o;
}

int wn_eval_repeats(const char *text, size_t len, const char *gold, size_t gold_len) {
  char *t = malloc(len + 1), *g = malloc(gold_len + 1);
  wn_eval_line *lines = NULL;
  int found = 0;
  if (!t || !g)
    goto out; /* not counted: the report says so by its total */
  len = wn_eval_collapse(text, len, t, 1);
  gold_len = wn_eval_collapse(gold, gold_len, g, 0);
  size_t n = 0;
  for (size_t i = 0; i < len;) {
    const char *nl = memchr(t + i, '\n', len - i);
    size_t e = nl ? (size_t)(nl - t) : len;
    n += e - i >= WN_EVAL_REPEAT_LINE;
    i = e + 1;
  }
  if (n < 2 || !(lines = malloc(n * sizeof *lines)))
    goto out;
  n = 0;
  for (size_t i = 0; i < len;) {
    const char *nl = memchr(t + i, '\n', len - i);
    size_t e = nl ? (size_t)(nl - t) : len;
    if (e - i >= WN_EVAL_REPEAT_LINE)
      lines[n++] = (wn_eval_line){t + i, e - i};
    i = e + 1;
  }
  qsort(lines, n, sizeof *lines, wn_eval_line_cmp);
  for (size_t k = 1; k < n && found < 2; k++)
    if (wn_eval_line_cmp(&lines[k - 1], &lines[k]) == 0) {
      const size_t in_gold = wn_eval_count_in(g, gold_len, lines[k].s, lines[k].len, 2);
      if (in_gold < 2 && found < 1 + (int)in_gold)
        found = 1 + (int)in_gold;
    }
out:
  free(t);
  free(g);
  free(lines);
  return found;
}

/* One detection of pg's bytes (site NULL: the single-page method), its
 * text scored against the gold. A detection failure marks the page failed
 * under stage (*ok = 0); the returned error is only the scorer's own (out
 * of memory), after which the run cannot go on. */
wn_err wn_eval_detect_score(wn_detector *d, const char *site, wn_eval_page *pg,
                            const char *stage, const char *gold, size_t gold_len,
                            wn_score *out, double *confidence,
                            wn_detect_fallback *fallback, int *ok) {
  wn_page_result *r = NULL;
  wn_diag diag;
  wn_diag_clear(&diag);
  *ok = 0;
  const wn_page_input in = {.bytes = pg->html, .len = pg->html_len, .site = site, .url = pg->url};
  wn_err e = wn_detector_detect(d, &in, WN_WANT_TEXT, &r, &diag);
  if (e) {
    wn_eval_fail(pg, stage, wn_diag_message(&diag, e));
    return WN_OK;
  }
  pg->page_type = wn_page_result_page_type(r);
  if (confidence)
    *confidence = wn_page_result_confidence(r);
  if (fallback)
    *fallback = wn_page_result_fallback(r);
  size_t len = 0;
  const char *text = wn_page_result_text(r, &len);
  e = wn_score_texts(text, len, gold, gold_len, out);
  if (!e)
    e = wn_eval_snippets(pg, text, len);
  pg->repeated = text ? wn_eval_repeats(text, len, gold, gold_len) : 0;
  if (e)
    wn_eval_fail(pg, "score", wn_strerror(e));
  else
    *ok = 1;
  wn_page_result_free(r);
  return e;
}

/* Reads a page's html (kept on the page for the timing loops) and gold. 0
 * when all went well; otherwise the page is marked failed (it scores 0). */
int wn_eval_prepare(wn_eval *ev, wn_eval_page *pg, char **gold, size_t *gold_len) {
  wn_diag diag;
  wn_diag_clear(&diag);
  wn_err e = wn_eval_read(ev, pg, "html", "html", &pg->html, &pg->html_len, &diag);
  if (e) {
    wn_eval_fail(pg, "read", wn_diag_message(&diag, e));
    return -1;
  }
  wn_diag_clear(&diag);
  e = wn_eval_read(ev, pg, "gold", "txt", gold, gold_len, &diag);
  if (e) {
    wn_eval_fail(pg, "gold", wn_diag_message(&diag, e));
    return -1;
  }
  return 0;
}
