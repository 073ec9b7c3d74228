/*
 * tools/eval/timing.c: throughput: a bare libxml2 parse of the pages
 * against winnow's whole detection of them, best of --repeat runs.
 */
#include <limits.h>
#include <stdio.h>

#include "util.h" /* src/util: number parsing, the clock, buffers */
#include "detect/steps.h" /* the single-page steps an ablation names */
#include "eval.h"

/* Seconds on the monotonic clock: the project's one clock (wn_clock_ms). */
static double wn_eval_now(void) { return wn_clock_ms() / 1000.0; }

/* (a) the floor: libxml2's HTML parser on the raw bytes, and nothing else
 * (tools/tool_common.h), over the pages (b) detects. */
static int wn_eval_parse_page(void *ctx, size_t i, size_t *bytes) {
  const wn_eval *ev = ctx;
  const wn_eval_page *pg = &ev->pages[i];
  if ((pg->is_train && !ev->opts.single) || !pg->html || pg->html_len > INT_MAX)
    return 0;
  (void)wn_tool_parse_bare(pg->html, pg->html_len);
  *bytes = pg->html_len;
  return 1;
}

void wn_eval_time_parse(wn_eval *ev) {
  wn_tool_time_passes(ev->n_pages, ev->opts.repeat, wn_eval_parse_page, ev, &ev->parse_time);
}

/* (b) winnow's whole per-page cost through the public API: one
 * wn_detector_detect (parse to the compact tree, detect, render the text)
 * and freeing its result, timed page by page; setting a group's detector
 * up (wn_detector_use, once per site in a real run) and file reading are
 * left out. In template mode the test pages of groups with a template,
 * detected by the policy (--min-confidence, --fallback); in single-page
 * mode every page, by the method (a page with no site). */
wn_err wn_eval_time_detect(wn_eval *ev) {
  wn_tool_timing *t = &ev->detect_time;
  wn_err err = WN_OK;
  wn_detector *d = NULL;
  wn_diag diag;
  t->best_seconds = -1.0;
  for (unsigned r = 0; r < ev->opts.repeat; r++) {
    size_t pages = 0, bytes = 0;
    double dt = 0.0;
    for (size_t gi = 0; gi < ev->n_groups; gi++) {
      const wn_eval_group *g = &ev->groups[gi];
      if (!ev->opts.single && !g->learned)
        continue;
      wn_diag_clear(&diag);
      if (ev->opts.single)
        err = wn_eval_detector(0.0, ev->opts.method, ev->opts.steps, NULL, &d, &diag);
      else
        err = wn_eval_detector(ev->opts.min_confidence, ev->opts.fallback,
                               WN_SINGLE_STEPS_DEFAULT, g->learned, &d, &diag);
      if (err) {
        fprintf(stderr, "winnow-eval: group %s: detector: %s\n", g->name,
                wn_diag_message(&diag, err));
        goto out;
      }
      for (size_t k = 0; k < g->n; k++) {
        const wn_eval_page *pg = &ev->pages[g->first + k];
        if (!pg->html || (!ev->opts.single && pg->is_train))
          continue;
        const wn_page_input in = {.bytes = pg->html,
                                  .len = pg->html_len,
                                  .site = ev->opts.single ? NULL : g->site};
        wn_page_result *res = NULL;
        double t0 = wn_eval_now();
        (void)wn_detector_detect(d, &in, WN_WANT_TEXT, &res, NULL);
        wn_page_result_free(res);
        dt += wn_eval_now() - t0;
        pages++;
        bytes += pg->html_len;
      }
      wn_detector_destroy(d);
      d = NULL;
    }
    t->pages = pages;
    t->bytes = bytes;
    if (t->best_seconds < 0 || dt < t->best_seconds)
      t->best_seconds = dt;
  }
out:
  wn_detector_destroy(d);
  return err;
}
