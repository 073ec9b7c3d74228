/*
 * tools/eval/single.c: the single-page mode (--method): every page detected
 * and scored without a template, per group and per WCXB page type.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect/steps.h" /* the single-page steps an ablation names */
#include "eval.h"

/* Detects one page (train or test) with the single-page method (d serves
 * no site: a page with no site goes to the method) and scores it. Returns
 * nonzero only for out of memory in the scorer itself. */
static wn_err wn_eval_single_page(wn_eval *ev, wn_detector *d, wn_eval_page *pg) {
  wn_err err = WN_OK;
  char *gold = NULL;
  size_t gold_len = 0;
  int ok = 0;
  if (!wn_eval_prepare(ev, pg, &gold, &gold_len))
    err = wn_eval_detect_score(d, NULL, pg, "detect", gold, gold_len, &pg->score, NULL, NULL,
                               &ok);
  free(gold);
  return err;
}

/* The seven page types of WCXB, as groups (tools/layout-corpora.py) and
 * as wn_page_result_page_type names them. */
static const char *const wn_eval_types[] = {"article", "forum", "product", "collection",
                                            "listing", "documentation", "service"};
#define WN_EVAL_N_TYPES (sizeof wn_eval_types / sizeof *wn_eval_types)

static int wn_eval_type_index(const char *name) {
  for (size_t k = 0; name && k < WN_EVAL_N_TYPES; k++)
    if (strcmp(name, wn_eval_types[k]) == 0)
      return (int)k;
  return -1;
}

/* Empty outputs, the snippet rates (with the corpus's snippets.tsv) and,
 * when groups are page types, the shape winnow read against the label. */
/* The counts behind the extras. */
typedef struct wn_eval_extras {
  size_t empty, repeated, repeated_gold, with_n, with_found, without_n, without_found, labelled, right;
  size_t conf[WN_EVAL_N_TYPES][WN_EVAL_N_TYPES];
} wn_eval_extras;

static void wn_eval_extras_count(const wn_eval *ev, wn_eval_extras *x) {
  memset(x, 0, sizeof *x);
  for (size_t i = 0; i < ev->n_pages; i++) {
    const wn_eval_page *pg = &ev->pages[i];
    if (pg->failed || (pg->is_train && !ev->opts.single))
      continue;
    x->empty += (size_t)pg->empty;
    x->repeated += (size_t)(pg->repeated > 0);
    x->repeated_gold += (size_t)(pg->repeated == 2);
    x->with_n += pg->with_n;
    x->with_found += pg->with_found;
    x->without_n += pg->without_n;
    x->without_found += pg->without_found;
    int a = wn_eval_type_index(pg->group), b = wn_eval_type_index(pg->page_type);
    if (a >= 0 && b >= 0) {
      x->conf[a][b]++;
      x->labelled++;
      x->right += (size_t)(a == b);
    }
  }
}

static void wn_eval_print_extras(const wn_eval *ev) {
  wn_eval_extras x;
  wn_eval_extras_count(ev, &x);
  const size_t empty = x.empty, repeated = x.repeated, wn = x.with_n, wf = x.with_found,
               on = x.without_n, of = x.without_found, labelled = x.labelled, right = x.right;
  size_t(*conf)[WN_EVAL_N_TYPES] = x.conf;
  printf("\nempty outputs: %zu\n", empty);
  printf("outputs repeating a line of %u+ bytes that the gold holds once: %zu (%zu at "
         "most once: %zu more repeat only lines it holds not at all)\n",
         WN_EVAL_REPEAT_LINE, x.repeated_gold, repeated, repeated - x.repeated_gold);
  if (wn + on)
    printf("snippets: \"with\" found %zu of %zu (%.4f), \"without\" found %zu of %zu (%.4f, "
           "lower is better)\n",
           wf, wn, wn ? (double)wf / (double)wn : 0.0, of, on, on ? (double)of / (double)on : 0.0);
  if (!labelled)
    return;
  printf("\npage_type against the groups' labels: %zu of %zu right (%.4f); rows the label, "
         "columns what winnow read\n%-14s",
         right, labelled, (double)right / (double)labelled, "");
  for (size_t b = 0; b < WN_EVAL_N_TYPES; b++)
    printf(" %6.6s", wn_eval_types[b]);
  printf(" %7s\n", "recall");
  for (size_t a = 0; a < WN_EVAL_N_TYPES; a++) {
    size_t row = 0;
    printf("%-14s", wn_eval_types[a]);
    for (size_t b = 0; b < WN_EVAL_N_TYPES; b++) {
      printf(" %6zu", conf[a][b]);
      row += conf[a][b];
    }
    printf(" %7.3f\n", row ? (double)conf[a][a] / (double)row : 0.0);
  }
}

void wn_eval_single_print_text(const wn_eval *ev) {
  const char *name = wn_single_method_name(ev->opts.method);
  if (ev->opts.scored)
    printf("corpus %s  (scoring %s: %zu of %zu test pages by a template)\n\n", ev->opts.corpus,
           ev->opts.scored, ev->n_scored_template, ev->n_test);
  else if (ev->opts.steps & WN_SINGLE_STEPS_SET)
    printf("corpus %s  (single-page method %s, steps 0x%02x, repeat %u)\n\n", ev->opts.corpus,
           name, (unsigned)(ev->opts.steps & ~WN_SINGLE_STEPS_SET), ev->opts.repeat);
  else
    printf("corpus %s  (single-page method %s, steps default, repeat %u)\n\n", ev->opts.corpus,
           name, ev->opts.repeat);
  if (ev->opts.train_n)
    printf("split: each group's first %u pages (by id) are train, the rest test\n\n",
           (unsigned)ev->opts.train_n);
  printf("%-34s %5s %7s %7s %7s   %5s %7s %7s %7s %6s\n", "group", "all", "P", "R", "F1", "test",
         "P", "R", "F1", "failed");
  double sum_group_f1 = 0;
  size_t scored = 0;
  for (size_t i = 0; i < ev->n_groups; i++) {
    const wn_eval_group *g = &ev->groups[i];
    double na = (double)g->n_all, nt = (double)g->n_test;
    if (g->n_all) {
      printf("%-34s %5zu %7.4f %7.4f %7.4f", g->name, g->n_all, g->all_p / na, g->all_r / na,
             g->all_f1 / na);
      sum_group_f1 += g->all_f1 / na;
      scored++;
    } else {
      printf("%-34s %5zu %7s %7s %7s", g->name, g->n_all, "-", "-", "-");
    }
    if (g->n_test)
      printf("   %5zu %7.4f %7.4f %7.4f", g->n_test, g->sum_p / nt, g->sum_r / nt, g->sum_f1 / nt);
    else
      printf("   %5zu %7s %7s %7s", g->n_test, "-", "-", "-");
    printf(" %6zu\n", g->n_failed);
    if (ev->opts.per_page)
      for (size_t k = 0; k < g->n; k++)
        wn_eval_print_page(&ev->pages[g->first + k]);
  }
  double na = ev->n_all ? (double)ev->n_all : 1.0, nt = ev->n_test ? (double)ev->n_test : 1.0;
  printf("\naccuracy, all pages (macro over %zu pages in %zu groups; %zu failed, scored 0)\n",
         ev->n_all, ev->n_groups, ev->n_failed);
  printf("  P %.4f  R %.4f  F1 %.4f\n", ev->all_p / na, ev->all_r / na, ev->all_f1 / na);
  printf("  macro mean of the per-group F1: %.4f (%zu groups)\n",
         scored ? sum_group_f1 / (double)scored : 0.0, scored);
  printf("accuracy, the template method's test pages (macro over %zu pages)\n", ev->n_test);
  printf("  P %.4f  R %.4f  F1 %.4f\n", ev->sum_p / nt, ev->sum_r / nt, ev->sum_f1 / nt);
  if (ev->opts.scored)
    return; /* nothing was timed */
  wn_eval_print_extras(ev);
  const wn_tool_timing *a = &ev->parse_time, *b = &ev->detect_time;
  printf("\nthroughput over %zu pages (train and test), %.2f MB, best of %u\n", a->pages,
         (double)a->bytes / 1e6, ev->opts.repeat);
  printf("  libxml2 parse only   : %9.1f pages/s %8.2f MB/s  (%.3f s)\n",
         wn_tool_rate((double)a->pages, a->best_seconds),
         wn_tool_rate((double)a->bytes / 1e6, a->best_seconds), a->best_seconds);
  printf("  winnow %-5s (whole) : %9.1f pages/s %8.2f MB/s  (%.3f s, %zu pages)\n", name,
         wn_tool_rate((double)b->pages, b->best_seconds),
         wn_tool_rate((double)b->bytes / 1e6, b->best_seconds), b->best_seconds, b->pages);
  if (a->best_seconds > 0 && a->bytes && b->bytes)
    printf("  %s/parse time per byte: %.2fx\n", name,
           (b->best_seconds / (double)b->bytes) / (a->best_seconds / (double)a->bytes));
}

int wn_eval_single_print_json(const wn_eval *ev) {
  int bad = 0;
  json_t *root = json_object();
  json_t *opts = json_object();
  wn_tool_jset(opts, "corpus", json_string(ev->opts.corpus), &bad);
  wn_tool_jset(opts, "method",
               ev->opts.scored ? json_string("scored")
                               : json_string(wn_single_method_name(ev->opts.method)),
               &bad);
  if (ev->opts.scored) {
    wn_tool_jset(opts, "scored", json_string(ev->opts.scored), &bad);
    wn_tool_jset(opts, "test_pages_by_template", json_integer((json_int_t)ev->n_scored_template),
                 &bad);
  }
  /* "default", or the explicit step mask (WN_SINGLE_STEP_*). */
  wn_tool_jset(opts, "steps",
               (ev->opts.steps & WN_SINGLE_STEPS_SET)
                   ? json_integer((json_int_t)(ev->opts.steps & ~WN_SINGLE_STEPS_SET))
                   : json_string("default"),
               &bad);
  wn_tool_jset(opts, "repeat", json_integer(ev->opts.repeat), &bad);
  wn_tool_jset(root, "options", opts, &bad);
  json_t *groups = json_array();
  json_t *pages = ev->opts.per_page ? json_array() : NULL;
  for (size_t i = 0; i < ev->n_groups; i++) {
    const wn_eval_group *g = &ev->groups[i];
    json_t *o = json_object();
    double na = g->n_all ? (double)g->n_all : 1.0, nt = g->n_test ? (double)g->n_test : 1.0;
    wn_tool_jset(o, "name", json_string(g->name), &bad);
    wn_tool_jset(o, "pages", wn_tool_jsize(g->n_all), &bad);
    wn_tool_jset(o, "precision", json_real(g->all_p / na), &bad);
    wn_tool_jset(o, "recall", json_real(g->all_r / na), &bad);
    wn_tool_jset(o, "f1", json_real(g->all_f1 / na), &bad);
    wn_tool_jset(o, "test_pages", wn_tool_jsize(g->n_test), &bad);
    wn_tool_jset(o, "test_f1", json_real(g->sum_f1 / nt), &bad);
    wn_tool_jset(o, "failed_pages", wn_tool_jsize(g->n_failed), &bad);
    if (!groups || json_array_append_new(groups, o) != 0)
      bad = 1;
    for (size_t k = 0; pages && k < g->n; k++)
      if (json_array_append_new(pages, wn_eval_json_page(&ev->pages[g->first + k], &bad)))
        bad = 1;
  }
  wn_tool_jset(root, "groups", groups, &bad);
  if (pages)
    wn_tool_jset(root, "pages", pages, &bad);
  double na = ev->n_all ? (double)ev->n_all : 1.0, nt = ev->n_test ? (double)ev->n_test : 1.0;
  json_t *all = json_object();
  wn_tool_jset(all, "pages", wn_tool_jsize(ev->n_all), &bad);
  wn_tool_jset(all, "failed_pages", wn_tool_jsize(ev->n_failed), &bad);
  wn_tool_jset(all, "precision", json_real(ev->all_p / na), &bad);
  wn_tool_jset(all, "recall", json_real(ev->all_r / na), &bad);
  wn_tool_jset(all, "f1", json_real(ev->all_f1 / na), &bad);
  wn_tool_jset(root, "accuracy", all, &bad);
  json_t *test = json_object();
  wn_tool_jset(test, "pages", wn_tool_jsize(ev->n_test), &bad);
  wn_tool_jset(test, "precision", json_real(ev->sum_p / nt), &bad);
  wn_tool_jset(test, "recall", json_real(ev->sum_r / nt), &bad);
  wn_tool_jset(test, "f1", json_real(ev->sum_f1 / nt), &bad);
  wn_tool_jset(root, "accuracy_test_pages", test, &bad);
  /* The outputs' extras, as the text report prints them. */
  wn_eval_extras x;
  wn_eval_extras_count(ev, &x);
  json_t *outs = json_object();
  wn_tool_jset(outs, "empty", wn_tool_jsize(x.empty), &bad);
  wn_tool_jset(outs, "repeating_a_line", wn_tool_jsize(x.repeated), &bad);
  wn_tool_jset(outs, "repeating_a_gold_line", wn_tool_jsize(x.repeated_gold), &bad);
  wn_tool_jset(outs, "with_snippets", wn_tool_jsize(x.with_n), &bad);
  wn_tool_jset(outs, "with_found", wn_tool_jsize(x.with_found), &bad);
  wn_tool_jset(outs, "without_snippets", wn_tool_jsize(x.without_n), &bad);
  wn_tool_jset(outs, "without_found", wn_tool_jsize(x.without_found), &bad);
  wn_tool_jset(root, "outputs", outs, &bad);
  if (x.labelled) {
    json_t *pt = json_object(), *conf = json_object();
    wn_tool_jset(pt, "labelled", wn_tool_jsize(x.labelled), &bad);
    wn_tool_jset(pt, "right", wn_tool_jsize(x.right), &bad);
    for (size_t a = 0; a < WN_EVAL_N_TYPES; a++) {
      json_t *row = json_object();
      for (size_t b = 0; b < WN_EVAL_N_TYPES; b++)
        wn_tool_jset(row, wn_eval_types[b], wn_tool_jsize(x.conf[a][b]), &bad);
      wn_tool_jset(conf, wn_eval_types[a], row, &bad);
    }
    wn_tool_jset(pt, "confusion", conf, &bad);
    wn_tool_jset(root, "page_type", pt, &bad);
  }
  json_t *thr = json_object();
  wn_tool_jset(thr, "parse", wn_tool_json_timing(&ev->parse_time, &bad), &bad);
  wn_tool_jset(thr, "detect", wn_tool_json_timing(&ev->detect_time, &bad), &bad);
  wn_tool_jset(root, "throughput", thr, &bad);
  return wn_tool_json_emit("winnow-eval", root, bad);
}

/* Every page, train and test, with the single-page method; no template. */
/* A page's score into its group's sums (all pages; test pages apart). */
void wn_eval_add_page(wn_eval_group *g, const wn_eval_page *pg) {
  g->n_all++;
  g->all_p += pg->score.precision;
  g->all_r += pg->score.recall;
  g->all_f1 += pg->score.f1;
  g->n_failed += (size_t)pg->failed;
  if (!pg->is_train) {
    g->sum_p += pg->score.precision;
    g->sum_r += pg->score.recall;
    g->sum_f1 += pg->score.f1;
  }
}

/* A group's sums into the corpus's. */
void wn_eval_add_group(wn_eval *ev, const wn_eval_group *g) {
  ev->n_all += g->n_all;
  ev->n_test += g->n_test;
  ev->n_failed += g->n_failed;
  ev->all_p += g->all_p;
  ev->all_r += g->all_r;
  ev->all_f1 += g->all_f1;
  ev->sum_p += g->sum_p;
  ev->sum_r += g->sum_r;
  ev->sum_f1 += g->sum_f1;
}

int wn_eval_run_single(wn_eval *ev) {
  int rc = 1;
  wn_detector *d = NULL;
  wn_diag diag;
  wn_diag_clear(&diag);
  /* No template anywhere: every page is served by the method and steps
   * given, through the detector's policy. */
  wn_err err = wn_eval_detector(0.0, ev->opts.method, ev->opts.steps, NULL, &d, &diag);
  if (err) {
    fprintf(stderr, "winnow-eval: detector: %s\n", wn_diag_message(&diag, err));
    goto out;
  }
  for (size_t gi = 0; gi < ev->n_groups; gi++) {
    wn_eval_group *g = &ev->groups[gi];
    for (size_t k = 0; k < g->n; k++) {
      wn_eval_page *pg = &ev->pages[g->first + k];
      if (wn_eval_single_page(ev, d, pg)) {
        fprintf(stderr, "winnow-eval: out of memory\n");
        goto out;
      }
      wn_eval_add_page(g, pg);
    }
    wn_eval_add_group(ev, g);
  }
  wn_detector_destroy(d);
  d = NULL;
  wn_eval_time_parse(ev);
  if (wn_eval_time_detect(ev))
    goto out;
  if (ev->opts.json) {
    rc = wn_eval_single_print_json(ev);
    goto out;
  }
  wn_eval_single_print_text(ev);
  rc = 0;
out:
  wn_detector_destroy(d);
  return rc;
}
