/*
 * tools/eval/report.c: the template mode's report (text or JSON), and one
 * page's line and JSON object, which the single-page mode prints too.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval.h"

static int wn_eval_cmp_size(const void *a, const void *b) {
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  return (x > y) - (x < y);
}

typedef struct wn_eval_summary {
  size_t tpl_groups;
  size_t tpl_min, tpl_median, tpl_max;          /* template nodes */
  size_t bytes_min, bytes_median, bytes_max;    /* template bytes */
  double sample_mean; /* html bytes of the train pages read */
  size_t scored_groups;
  double group_macro_f1;
  double p, r, f1; /* macro over test pages */
} wn_eval_summary;

/* min, median, max of v[0..n) (sorts v); n > 0. */
static void wn_eval_spread(size_t *v, size_t n, size_t *min, size_t *median, size_t *max) {
  qsort(v, n, sizeof *v, wn_eval_cmp_size);
  *min = v[0];
  *max = v[n - 1];
  *median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static wn_err wn_eval_summarise(const wn_eval *ev, wn_eval_summary *s) {
  memset(s, 0, sizeof *s);
  size_t *sizes = calloc(ev->n_groups ? 2 * ev->n_groups : 1, sizeof *sizes);
  if (!sizes)
    return WN_ENOMEM;
  size_t *bytes = sizes + ev->n_groups;
  size_t sample_bytes = 0, sample_pages = 0;
  double sum_group_f1 = 0;
  for (size_t i = 0; i < ev->n_groups; i++) {
    const wn_eval_group *g = &ev->groups[i];
    if (g->learned) {
      bytes[s->tpl_groups] = g->tpl_bytes;
      sizes[s->tpl_groups++] = g->tpl_nodes;
    }
    sample_bytes += g->sample_bytes;
    sample_pages += g->sample_pages_read;
    if (g->n_test) {
      s->scored_groups++;
      sum_group_f1 += g->sum_f1 / (double)g->n_test;
    }
  }
  if (s->tpl_groups) {
    wn_eval_spread(sizes, s->tpl_groups, &s->tpl_min, &s->tpl_median, &s->tpl_max);
    wn_eval_spread(bytes, s->tpl_groups, &s->bytes_min, &s->bytes_median, &s->bytes_max);
  }
  s->sample_mean = sample_pages ? (double)sample_bytes / (double)sample_pages : 0.0;
  s->group_macro_f1 = s->scored_groups ? sum_group_f1 / (double)s->scored_groups : 0.0;
  if (ev->n_test) {
    s->p = ev->sum_p / (double)ev->n_test;
    s->r = ev->sum_r / (double)ev->n_test;
    s->f1 = ev->sum_f1 / (double)ev->n_test;
  }
  free(sizes);
  return WN_OK;
}

void wn_eval_print_page(const wn_eval_page *pg) {
  printf("    %s\t%s\t%.4f\t%.4f\t%.4f\t%zu\t%zu\t%.3f", pg->group, pg->id, pg->score.precision,
         pg->score.recall, pg->score.f1, pg->score.words_out, pg->score.words_gold,
         pg->confidence);
  if (pg->have_single)
    printf("\ttemplate_F1 %.4f\tfallback_F1 %.4f%s", pg->tpl_score.f1, pg->single_score.f1,
           pg->fell_back ? "\tfell_back" : "");
  if (pg->repeated)
    printf(pg->repeated == 2 ? "\trepeats_a_gold_line" : "\trepeats_a_line");
  if (pg->failed)
    printf("\tFAILED %s", pg->status);
  printf("\n");
}

/* F1 of the policy at each threshold: a page whose confidence is below it
 * is scored by the fallback. Pages that failed count 0 either way. */
#define WN_EVAL_SWEEP_STEPS 20
static void wn_eval_sweep_at(const wn_eval *ev, double t, size_t *fell, double *f1) {
  *fell = 0;
  *f1 = 0;
  for (size_t i = 0; i < ev->n_pages; i++) {
    const wn_eval_page *pg = &ev->pages[i];
    if (pg->is_train || pg->failed || !pg->have_single)
      continue;
    if (pg->confidence < t) {
      (*fell)++;
      *f1 += pg->single_score.f1;
    } else {
      *f1 += pg->tpl_score.f1;
    }
  }
  if (ev->n_test)
    *f1 /= (double)ev->n_test;
}

static void wn_eval_print_sweep(const wn_eval *ev) {
  printf("\npolicy sweep (fallback %s; a page below the threshold is served by it)\n",
         wn_single_method_name(ev->opts.fallback));
  printf("  %9s %9s %7s\n", "threshold", "fell_back", "F1");
  for (int k = 0; k <= WN_EVAL_SWEEP_STEPS; k++) {
    double t = (double)k / WN_EVAL_SWEEP_STEPS;
    size_t fell;
    double f1;
    wn_eval_sweep_at(ev, t, &fell, &f1);
    printf("  %9.2f %9zu %7.4f\n", t, fell, f1);
  }
  /* Every page by whichever method scored higher: the most any threshold
   * rule could reach. */
  double best = 0;
  for (size_t i = 0; i < ev->n_pages; i++) {
    const wn_eval_page *pg = &ev->pages[i];
    if (!pg->is_train && !pg->failed && pg->have_single)
      best += pg->tpl_score.f1 > pg->single_score.f1 ? pg->tpl_score.f1 : pg->single_score.f1;
  }
  printf("  oracle (the better method per page): F1 %.4f\n",
         ev->n_test ? best / (double)ev->n_test : 0.0);
}

static void wn_eval_print_text(const wn_eval *ev, const wn_eval_summary *s) {
  printf("corpus %s  (algo %s, selector %s, min-count %u%s, repeat %u)\n", ev->opts.corpus,
         wn_learn_algo_name(ev->opts.algo), wn_eval_selector_name(ev->opts.selector),
         ev->opts.min_count, ev->opts.min_count ? "" : " = library default", ev->opts.repeat);
  if (ev->opts.train_n)
    printf("split: each group's first %u pages (by id) learned from, the rest tested\n",
           (unsigned)ev->opts.train_n);
  printf("learn: %.1f ms compute for %zu groups (%.2f ms per group, parse included)\n\n",
         ev->opts.learn_ms, ev->n_groups, ev->n_groups ? ev->opts.learn_ms / (double)ev->n_groups : 0.0);
  printf("%-34s %5s %7s %7s %7s %9s %9s %6s\n", "group", "pages", "P", "R", "F1", "tpl_nodes",
         "sample_B", "failed");
  for (size_t i = 0; i < ev->n_groups; i++) {
    const wn_eval_group *g = &ev->groups[i];
    double n = (double)g->n_test;
    if (g->n_test)
      printf("%-34s %5zu %7.4f %7.4f %7.4f", g->name, g->n_test, g->sum_p / n, g->sum_r / n,
             g->sum_f1 / n);
    else
      printf("%-34s %5zu %7s %7s %7s", g->name, g->n_test, "-", "-", "-");
    if (g->learned)
      printf(" %9u", (unsigned)g->tpl_nodes);
    else
      printf(" %9s", "none");
    printf(" %9.0f %6zu\n",
           g->sample_pages_read ? (double)g->sample_bytes / (double)g->sample_pages_read : 0.0,
           g->n_failed);
    if (ev->opts.per_page) {
      for (size_t k = 0; k < g->n; k++) {
        const wn_eval_page *pg = &ev->pages[g->first + k];
        if (!pg->is_train)
          wn_eval_print_page(pg);
      }
    }
  }
  printf("\naccuracy (macro over %zu test pages in %zu groups; %zu failed, scored 0)\n",
         ev->n_test, ev->n_groups, ev->n_failed);
  printf("  P %.4f  R %.4f  F1 %.4f\n", s->p, s->r, s->f1);
  printf("  macro mean of the per-group F1: %.4f (%zu groups with test pages)\n",
         s->group_macro_f1, s->scored_groups);
  if (ev->opts.min_confidence > 0)
    printf("  policy: min-confidence %.2f, fallback %s: %zu of %zu test pages fell back\n",
           ev->opts.min_confidence, wn_single_method_name(ev->opts.fallback), ev->n_fell_back,
           ev->n_test);
  if (ev->opts.sweep)
    wn_eval_print_sweep(ev);
  if (ev->n_train_failed)
    printf("  train pages that could not be read or parsed: %zu\n", ev->n_train_failed);
  printf("\ntemplate nodes over %zu groups: min %zu  median %zu  max %zu\n", s->tpl_groups,
         s->tpl_min, s->tpl_median, s->tpl_max);
  printf("template bytes (encoded, as stored): min %zu  median %zu  max %zu\n", s->bytes_min,
         s->bytes_median, s->bytes_max);
  printf("  mean html bytes of a sample (train) page: %.0f\n", s->sample_mean);
  printf("\nthroughput over %zu test pages, %.2f MB, best of %u\n", ev->parse_time.pages,
         (double)ev->parse_time.bytes / 1e6, ev->opts.repeat);
  const wn_tool_timing *a = &ev->parse_time, *b = &ev->detect_time;
  printf("  libxml2 parse only   : %9.1f pages/s %8.2f MB/s  (%.3f s)\n",
         wn_tool_rate((double)a->pages, a->best_seconds),
         wn_tool_rate((double)a->bytes / 1e6, a->best_seconds), a->best_seconds);
  printf("  winnow detect (whole): %9.1f pages/s %8.2f MB/s  (%.3f s, %zu pages)\n",
         wn_tool_rate((double)b->pages, b->best_seconds),
         wn_tool_rate((double)b->bytes / 1e6, b->best_seconds), b->best_seconds, b->pages);
  if (a->best_seconds > 0 && b->bytes && a->bytes) {
    /* Per byte, so the ratio holds when some groups have no template. */
    double per_a = a->best_seconds / (double)a->bytes;
    double per_b = b->best_seconds / (double)b->bytes;
    printf("  detect/parse time per byte: %.2fx\n", per_b / per_a);
  }
}

/* jansson helpers: a NULL value (out of memory) or a failed set marks the
 * whole document failed; checked once at the end. */
json_t *wn_eval_json_page(const wn_eval_page *pg, int *bad) {
  json_t *o = json_object();
  wn_tool_jset(o, "group", json_string(pg->group), bad);
  wn_tool_jset(o, "id", json_string(pg->id), bad);
  wn_tool_jset(o, "precision", json_real(pg->score.precision), bad);
  wn_tool_jset(o, "recall", json_real(pg->score.recall), bad);
  wn_tool_jset(o, "f1", json_real(pg->score.f1), bad);
  wn_tool_jset(o, "words_out", wn_tool_jsize(pg->score.words_out), bad);
  wn_tool_jset(o, "words_gold", wn_tool_jsize(pg->score.words_gold), bad);
  wn_tool_jset(o, "words_common", wn_tool_jsize(pg->score.words_common), bad);
  wn_tool_jset(o, "confidence", json_real(pg->confidence), bad);
  wn_tool_jset(o, "html_bytes", wn_tool_jsize(pg->html_len), bad);
  wn_tool_jset(o, "failed", json_boolean(pg->failed), bad);
  if (pg->page_type)
    wn_tool_jset(o, "page_type", json_string(pg->page_type), bad);
  if (pg->failed)
    wn_tool_jset(o, "error", json_string(pg->status), bad);
  return o;
}

static int wn_eval_print_json(const wn_eval *ev, const wn_eval_summary *s) {
  int bad = 0;
  json_t *root = json_object();
  json_t *opts = json_object();
  wn_tool_jset(opts, "min_count", json_integer(ev->opts.min_count), &bad);
  wn_tool_jset(opts, "selector", json_string(wn_eval_selector_name(ev->opts.selector)), &bad);
  wn_tool_jset(opts, "repeat", json_integer(ev->opts.repeat), &bad);
  wn_tool_jset(opts, "min_confidence", json_real(ev->opts.min_confidence), &bad);
  wn_tool_jset(opts, "fallback", json_string(wn_single_method_name(ev->opts.fallback)), &bad);
  if (ev->opts.train_n)
    wn_tool_jset(opts, "train", json_integer(ev->opts.train_n), &bad);
  wn_tool_jset(root, "corpus", json_string(ev->opts.corpus), &bad);
  wn_tool_jset(root, "options", opts, &bad);
  wn_tool_jset(root, "fell_back", wn_tool_jsize(ev->n_fell_back), &bad);

  json_t *groups = json_array();
  json_t *pages = ev->opts.per_page ? json_array() : NULL;
  json_t *failures = json_array();
  for (size_t i = 0; i < ev->n_groups; i++) {
    const wn_eval_group *g = &ev->groups[i];
    double n = g->n_test ? (double)g->n_test : 1.0;
    json_t *o = json_object();
    wn_tool_jset(o, "group", json_string(g->name), &bad);
    wn_tool_jset(o, "train_pages", wn_tool_jsize(g->n_train), &bad);
    wn_tool_jset(o, "train_pages_parsed", wn_tool_jsize(g->n_train_parsed), &bad);
    wn_tool_jset(o, "test_pages", wn_tool_jsize(g->n_test), &bad);
    wn_tool_jset(o, "failed_pages", wn_tool_jsize(g->n_failed), &bad);
    wn_tool_jset(o, "precision", g->n_test ? json_real(g->sum_p / n) : json_null(), &bad);
    wn_tool_jset(o, "recall", g->n_test ? json_real(g->sum_r / n) : json_null(), &bad);
    wn_tool_jset(o, "f1", g->n_test ? json_real(g->sum_f1 / n) : json_null(), &bad);
    wn_tool_jset(o, "mean_confidence", g->n_test ? json_real(g->sum_conf / n) : json_null(),
                 &bad);
    wn_tool_jset(o, "template", json_boolean(g->learned != NULL), &bad);
    wn_tool_jset(o, "site", json_string(g->site), &bad);
    wn_tool_jset(o, "template_nodes", g->learned ? json_integer(g->tpl_nodes) : json_null(),
                 &bad);
    wn_tool_jset(o, "sample_html_bytes_mean",
                 json_real(g->sample_pages_read
                               ? (double)g->sample_bytes / (double)g->sample_pages_read
                               : 0.0),
                 &bad);
    if (!g->learned)
      wn_tool_jset(o, "error", json_string(g->status), &bad);
    if (!groups || json_array_append_new(groups, o) != 0)
      bad = 1;
    for (size_t k = 0; k < g->n; k++) {
      const wn_eval_page *pg = &ev->pages[g->first + k];
      if (pages && !pg->is_train && json_array_append_new(pages, wn_eval_json_page(pg, &bad)))
        bad = 1;
      if (pg->failed) {
        json_t *f = json_object();
        wn_tool_jset(f, "group", json_string(pg->group), &bad);
        wn_tool_jset(f, "id", json_string(pg->id), &bad);
        wn_tool_jset(f, "split", json_string(pg->is_train ? "train" : "test"), &bad);
        wn_tool_jset(f, "error", json_string(pg->status), &bad);
        if (!failures || json_array_append_new(failures, f) != 0)
          bad = 1;
      }
    }
  }
  wn_tool_jset(root, "groups", groups, &bad);
  if (pages)
    wn_tool_jset(root, "pages", pages, &bad);
  wn_tool_jset(root, "failures", failures, &bad);

  json_t *acc = json_object();
  wn_tool_jset(acc, "test_pages", wn_tool_jsize(ev->n_test), &bad);
  wn_tool_jset(acc, "failed_pages", wn_tool_jsize(ev->n_failed), &bad);
  wn_tool_jset(acc, "failed_train_pages", wn_tool_jsize(ev->n_train_failed), &bad);
  wn_tool_jset(acc, "precision", json_real(s->p), &bad);
  wn_tool_jset(acc, "recall", json_real(s->r), &bad);
  wn_tool_jset(acc, "f1", json_real(s->f1), &bad);
  wn_tool_jset(acc, "group_macro_f1", json_real(s->group_macro_f1), &bad);
  wn_tool_jset(acc, "groups", wn_tool_jsize(ev->n_groups), &bad);
  wn_tool_jset(acc, "groups_scored", wn_tool_jsize(s->scored_groups), &bad);
  wn_tool_jset(root, "accuracy", acc, &bad);

  json_t *tpl = json_object();
  wn_tool_jset(tpl, "groups", wn_tool_jsize(s->tpl_groups), &bad);
  wn_tool_jset(tpl, "min_nodes", wn_tool_jsize(s->tpl_min), &bad);
  wn_tool_jset(tpl, "median_nodes", wn_tool_jsize(s->tpl_median), &bad);
  wn_tool_jset(tpl, "max_nodes", wn_tool_jsize(s->tpl_max), &bad);
  wn_tool_jset(tpl, "min_bytes", wn_tool_jsize(s->bytes_min), &bad);
  wn_tool_jset(tpl, "median_bytes", wn_tool_jsize(s->bytes_median), &bad);
  wn_tool_jset(tpl, "max_bytes", wn_tool_jsize(s->bytes_max), &bad);
  wn_tool_jset(tpl, "sample_html_bytes_mean", json_real(s->sample_mean), &bad);
  wn_tool_jset(root, "template", tpl, &bad);

  json_t *lrn = json_object();
  wn_tool_jset(lrn, "compute_ms", json_real(ev->opts.learn_ms), &bad);
  wn_tool_jset(lrn, "ms_per_group",
               json_real(ev->n_groups ? ev->opts.learn_ms / (double)ev->n_groups : 0.0), &bad);
  wn_tool_jset(root, "learn", lrn, &bad);

  json_t *thr = json_object();
  wn_tool_jset(thr, "repeat", json_integer(ev->opts.repeat), &bad);
  wn_tool_jset(thr, "parse", wn_tool_json_timing(&ev->parse_time, &bad), &bad);
  wn_tool_jset(thr, "detect", wn_tool_json_timing(&ev->detect_time, &bad), &bad);
  double ratio = 0.0;
  if (ev->parse_time.best_seconds > 0 && ev->parse_time.bytes && ev->detect_time.bytes)
    ratio = (ev->detect_time.best_seconds / (double)ev->detect_time.bytes) /
            (ev->parse_time.best_seconds / (double)ev->parse_time.bytes);
  wn_tool_jset(thr, "detect_over_parse_time_per_byte", json_real(ratio), &bad);
  wn_tool_jset(root, "throughput", thr, &bad);

  return wn_tool_json_emit("winnow-eval", root, bad);
}

/* The template mode's report, text or JSON (--json), on stdout. 0 when it
 * was written. */
int wn_eval_report(const wn_eval *ev) {
  wn_eval_summary s;
  if (wn_eval_summarise(ev, &s)) {
    fprintf(stderr, "winnow-eval: out of memory\n");
    return 1;
  }
  if (ev->opts.json) {
    if (wn_eval_print_json(ev, &s))
      return 1;
  } else {
    wn_eval_print_text(ev, &s);
  }
  if (fflush(stdout) != 0) {
    fprintf(stderr, "winnow-eval: cannot write the report: %s\n", strerror(errno));
    return 1;
  }
  return 0;
}
