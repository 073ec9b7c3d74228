/*
 * tools/eval/scored.c: scoring an output (--score-jsonl): a winnow JSON-
 * lines output scored page by page against the corpus's gold.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"

/* One line of the output: the page it names ("group/id") and its text. */
typedef struct wn_scored_line {
  char *key;
  json_t *obj;
} wn_scored_line;

static int wn_scored_cmp(const void *a, const void *b) {
  return strcmp(((const wn_scored_line *)a)->key, ((const wn_scored_line *)b)->key);
}

/* The page a line names: its "id" as "group/id", or {"url":
 * "http(s)://group/id.html"} as make-warc names a corpus page. */
static char *wn_scored_key(const json_t *id) {
  if (json_is_string(id))
    return strdup(json_string_value(id));
  const char *url = json_string_value(json_object_get(id, "url"));
  if (!url)
    return NULL;
  const char *p = strstr(url, "://");
  if (!p)
    return NULL;
  p += 3;
  size_t len = strlen(p);
  if (len > 5 && strcmp(p + len - 5, ".html") == 0)
    len -= 5;
  char *key = malloc(len + 1);
  if (key) {
    memcpy(key, p, len);
    key[len] = '\0';
  }
  return key;
}

/* Scores every page of the corpus by the line of a winnow JSON-lines output
 * that names it (`winnow detect --jsonl` with "id" "group/id", or --warc
 * over make-warc's WARC of the corpus): the figures of the single-page
 * mode, over all pages and over the test pages. A page without a line, or
 * whose line is an error, scores 0 and is counted as failed. */
int wn_eval_run_scored(wn_eval *ev) {
  int rc = 1;
  wn_scored_line *lines = NULL;
  size_t n = 0, cap = 0;
  FILE *f = fopen(ev->opts.scored, "rb");
  if (!f) {
    fprintf(stderr, "winnow-eval: %s: %s\n", ev->opts.scored, strerror(errno));
    return 1;
  }
  json_error_t jerr;
  for (size_t lineno = 1;; lineno++) {
    json_t *obj = json_loadf(f, JSON_DISABLE_EOF_CHECK, &jerr);
    if (!obj) {
      if (feof(f) || jerr.position == 0)
        break;
      fprintf(stderr, "winnow-eval: %s: line %zu: %s\n", ev->opts.scored, lineno, jerr.text);
      goto out;
    }
    char *key = wn_scored_key(json_object_get(obj, "id"));
    if (!key) {
      json_decref(obj);
      continue;
    }
    if (n == cap) {
      cap = cap ? 2 * cap : 1024;
      wn_scored_line *grown = realloc(lines, cap * sizeof *lines);
      if (!grown) {
        free(key);
        json_decref(obj);
        fprintf(stderr, "winnow-eval: out of memory\n");
        goto out;
      }
      lines = grown;
    }
    lines[n++] = (wn_scored_line){.key = key, .obj = obj};
  }
  if (n)
    qsort(lines, n, sizeof *lines, wn_scored_cmp);
  for (size_t gi = 0; gi < ev->n_groups; gi++) {
    wn_eval_group *g = &ev->groups[gi];
    for (size_t k = 0; k < g->n; k++) {
      wn_eval_page *pg = &ev->pages[g->first + k];
      char key[2 * WN_EVAL_MAX_LINE];
      snprintf(key, sizeof key, "%s/%s", pg->group, pg->id);
      wn_scored_line probe = {.key = key};
      const wn_scored_line *line = n ? bsearch(&probe, lines, n, sizeof *lines, wn_scored_cmp)
                                     : NULL;
      const char *text = line ? json_string_value(json_object_get(line->obj, "text")) : NULL;
      char *gold = NULL;
      size_t gold_len = 0;
      wn_diag diag;
      wn_diag_clear(&diag);
      wn_err e = wn_eval_read(ev, pg, "gold", "txt", &gold, &gold_len, &diag);
      if (e) {
        wn_eval_fail(pg, "gold", wn_diag_message(&diag, e));
      } else if (!text) {
        wn_eval_fail(pg, "output", line ? "its line has no \"text\"" : "no line names it");
      } else if (wn_score_texts(text, strlen(text), gold, gold_len, &pg->score)) {
        free(gold);
        fprintf(stderr, "winnow-eval: out of memory\n");
        goto out;
      }
      free(gold);
      const char *method = line ? json_string_value(json_object_get(line->obj, "method")) : NULL;
      wn_eval_add_page(g, pg);
      if (!pg->is_train)
        ev->n_scored_template += method && strcmp(method, "template") == 0;
    }
    wn_eval_add_group(ev, g);
  }
  rc = ev->opts.json ? wn_eval_single_print_json(ev) : (wn_eval_single_print_text(ev), 0);
out:
  for (size_t i = 0; i < n; i++) {
    free(lines[i].key);
    json_decref(lines[i].obj);
  }
  free(lines);
  fclose(f);
  return rc;
}
