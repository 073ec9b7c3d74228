/*
 * tools/eval/eval.h: winnow-eval's parts (main.c says what the tool
 * measures). The corpus and its pages, the groups (one site's sample and
 * test pages) and the options are read by every part; each part's calls
 * are listed under its file.
 */
#ifndef WN_TOOLS_EVAL_H
#define WN_TOOLS_EVAL_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

/* wn_detector_set_steps: the ablations' steps (the unstable calls). */
#define WN_UNSTABLE_API
#include <winnow/winnow.h>

#include "score.h"
#include "tool_common.h"

/* Caps on what the corpus may cost us. */
#define WN_EVAL_MAX_INDEX_BYTES ((size_t)16 * 1024 * 1024) /* pages.tsv */
#define WN_EVAL_MAX_LINE 4096u                             /* one pages.tsv line */
#define WN_EVAL_MAX_NAME 255u                              /* a group or an id */
#define WN_EVAL_MAX_ROWS 1000000u                          /* pages in a corpus */
#define WN_EVAL_MAX_PATH 4096u
#define WN_EVAL_SITE_MAX 32u                               /* "g<index>.eval" */
#define WN_EVAL_MAX_REPEAT 1000u
#define WN_EVAL_STATUS_LEN 256u
#define WN_EVAL_REPEAT_LINE 80u /* a line this long, repeated, is a defect */

typedef struct wn_eval_page {
  const char *group; /* into the pages.tsv buffer */
  const char *id;
  size_t line;       /* in pages.tsv */
  int is_train;
  size_t group_index;
  char *html;        /* test pages: the bytes, kept for the timing loops */
  size_t html_len;
  int failed;
  char status[WN_EVAL_STATUS_LEN]; /* why it failed */
  wn_score score;          /* what the run reports (policy applied) */
  double confidence;
  /* --min-confidence / --sweep: both methods' scores on a test page */
  wn_score tpl_score;
  wn_score single_score;
  int have_single;
  int fell_back;
  /* From the corpus's optional urls.tsv and snippets.tsv (WCXB's layout,
   * tools/layout-corpora.py): the page's URL, sent with it, and its
   * snippets [snip, snip + n_snips). */
  const char *url;
  const struct wn_eval_snip *snip;
  size_t n_snips;
  /* What the detection reported: the page's shape, an empty output, and
   * the snippets found. */
  const char *page_type;
  int empty;
  int repeated; /* the output repeats a line of 80+ bytes the gold holds at most
                 * once: 2 when some such line the gold holds exactly once, 1
                 * when only lines it holds not at all (boilerplate, code) */
  size_t with_n, with_found, without_n, without_found;
} wn_eval_page;

/* One snippet of snippets.tsv: group, id, with|without, text. */
typedef struct wn_eval_snip {
  const char *group, *id, *text;
  int with;
} wn_eval_snip;

typedef struct wn_eval_group {
  const char *name;
  size_t first; /* rows [first, first + n) */
  size_t n;
  size_t n_train;
  size_t n_train_parsed;
  size_t n_test;
  size_t n_failed;
  size_t sample_bytes; /* html bytes of the train pages read */
  size_t sample_pages_read;
  char site[WN_EVAL_SITE_MAX]; /* the synthetic site its template serves */
  wn_learned *learned;         /* NULL: no template */
  uint32_t tpl_nodes;          /* wn_learned_summary_get's template_nodes */
  size_t tpl_bytes;            /* ... and template_bytes (encoded, as stored) */
  char status[WN_EVAL_STATUS_LEN]; /* why no template */
  double sum_p, sum_r, sum_f1, sum_conf;
  /* single-page mode: over all pages (sum_* are over the test pages) */
  size_t n_all;
  double all_p, all_r, all_f1;
} wn_eval_group;

typedef struct wn_eval_opts {
  uint32_t min_count;
  wn_detect_selector selector;
  wn_learn_algo algo;        /* --algo: how each group is learned */
  double learn_ms;           /* learning compute, summed over the groups */
  int per_page;
  int json;
  unsigned repeat;
  int selftest;
  int single;                /* --method given: a single-page method */
  wn_single_method method;
  uint32_t steps;            /* wn_detector_set_steps: 0 the
                                method's default, else WN_SINGLE_STEPS_SET
                                | steps */
  /* template mode: the detector's policy (wn_detect_options) */
  double min_confidence;     /* 0: the template serves every page; by
                                default the library's, as winnow detect
                                and the daemon run */
  int min_confidence_given;
  wn_single_method fallback;
  int sweep;                 /* also tabulate F1 over a range of thresholds */
  char fold;                 /* --fold: 'A' or 'B', 0 for every page */
  uint32_t train_n;          /* --train N: each group's first N pages (by id)
                                are its sample, the rest its test pages; 0:
                                the split column of pages.tsv */
  const char *scored;        /* --score-jsonl: score this output instead */
  const char *corpus;
} wn_eval_opts;

typedef struct wn_eval {
  wn_eval_opts opts;
  char *index;      /* pages.tsv bytes, split in place */
  size_t index_len;
  char *urls, *snips; /* urls.tsv and snippets.tsv bytes, split in place */
  size_t urls_len, snips_len;
  wn_eval_snip *snip;
  size_t n_snip, snip_cap;
  wn_eval_page *pages;
  size_t n_pages;
  wn_eval_group *groups;
  size_t n_groups;
  /* totals */
  size_t n_test;
  size_t n_failed;
  size_t n_train_failed;
  double sum_p, sum_r, sum_f1;
  wn_tool_timing parse_time;
  wn_tool_timing detect_time;
  /* single-page mode: over all pages */
  size_t n_all;
  double all_p, all_r, all_f1;
  /* policy: test pages served by the fallback */
  size_t n_fell_back;
  /* --score-jsonl: test pages whose line says "method": "template" */
  size_t n_scored_template;
} wn_eval;

/* corpus.c */
const char *wn_eval_selector_name(wn_detect_selector s);
int wn_eval_load_index(wn_eval *ev);
int wn_eval_load_extras(wn_eval *ev);
wn_err wn_eval_read(const wn_eval *ev, const wn_eval_page *pg, const char *kind, const char *ext,
                    char **out, size_t *out_len, wn_diag *diag);
void wn_eval_fail(wn_eval_page *pg, const char *stage, const char *msg);

/* page.c */
wn_err wn_eval_detector(double min_confidence, wn_single_method fallback, uint32_t steps,
                        const wn_learned *learned, wn_detector **out, wn_diag *diag);
int wn_eval_repeats(const char *text, size_t len, const char *gold, size_t gold_len);
wn_err wn_eval_detect_score(wn_detector *d, const char *site, wn_eval_page *pg, const char *stage,
                            const char *gold, size_t gold_len, wn_score *out, double *confidence,
                            wn_detect_fallback *fallback, int *ok);
int wn_eval_prepare(wn_eval *ev, wn_eval_page *pg, char **gold, size_t *gold_len);

/* template.c */
int wn_eval_run_template(wn_eval *ev);

/* timing.c */
void wn_eval_time_parse(wn_eval *ev);
wn_err wn_eval_time_detect(wn_eval *ev);

/* report.c */
void wn_eval_print_page(const wn_eval_page *pg);
json_t *wn_eval_json_page(const wn_eval_page *pg, int *bad);
int wn_eval_report(const wn_eval *ev);

/* single.c */
void wn_eval_single_print_text(const wn_eval *ev);
int wn_eval_single_print_json(const wn_eval *ev);
void wn_eval_add_page(wn_eval_group *g, const wn_eval_page *pg);
void wn_eval_add_group(wn_eval *ev, const wn_eval_group *g);
int wn_eval_run_single(wn_eval *ev);

/* scored.c */
int wn_eval_run_scored(wn_eval *ev);

/* selftest.c */
int wn_eval_selftest(const char *corpus);

#endif
