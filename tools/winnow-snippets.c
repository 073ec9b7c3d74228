/*
 * winnow-snippets: the single-page method scored on a snippet corpus, with
 * the protocol of trafilatura's benchmark (../shared/corpus/README.md,
 * "trafilatura-dev.tar.xz"; adbar/trafilatura, tests/eval_common.py):
 *
 *   CORPUS_DIR/html/<id>.html     the page bytes
 *   CORPUS_DIR/snippets.json      {id: {"url", "with": [...], "without": [...]}}
 *
 * Every page is detected through the public API as `winnow detect` does
 * without a store: a store-less wn_detector with the library's default
 * options (--fallback aside), the page's bytes and its url. A "url" that
 * does not start with http:// or https:// is a label: the page is sent
 * without a URL.
 *
 * Scoring: white space is collapsed in the extracted text and in each
 * snippet: every run of the characters Python's str.isspace() accepts (what
 * the benchmark's re.sub(r"\s+", " ", text).strip() replaces: ASCII white
 * space, 0x1c-0x1f, U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029,
 * U+202F, U+205F, U+3000) becomes one space, and the ends are trimmed. A
 * "with" snippet found in the text is a true positive, else a false
 * negative; a "without" snippet found is a false positive, else a true
 * negative. Precision, recall, accuracy ((TP + TN) / all) and F1 are
 * counted over all snippets of all pages (micro); a zero denominator gives
 * 0, as in the benchmark. A page that cannot be read or detected scores as
 * empty output (no snippet found), is counted among the empty pages and is
 * reported on stderr with why; nothing is skipped. A snippet that is empty
 * once collapsed is a bad corpus (the benchmark's validate() refuses it).
 *
 * Folds: fold A is the pages whose id begins with the hex digit 0-7, fold B
 * 8-f (the ids are 16 hex digits; either case). An id that does not begin
 * with a hex digit goes by its first byte's parity: even A, odd B.
 *
 * Throughput, in the same run over the pages held in memory: a bare
 * libxml2 parse (tools/tool_common.h, as winnow-eval and winnow-bench) and
 * winnow's whole per-page detection (wn_detector_detect and freeing the
 * result); each loop runs --repeat times and the best run counts.
 *
 * usage: winnow-snippets [--per-page] [--json] [--repeat N] [--fold A|B]
 *                        [--fallback danag|cnr] [--steps paper|default|N] CORPUS_DIR
 *
 * --steps, as winnow-eval's: the single-page method's added steps (an
 * ablation), paper (none), default, or a bit mask of WN_SINGLE_STEP_*.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <jansson.h>

/* wn_detector_set_steps: the ablations' steps (the unstable calls). */
#define WN_UNSTABLE_API
#include <winnow/winnow.h>

/* wn_parse_u32: the project's one whole-number parser (src/util/util.h;
 * the tools link the static library, which has it). */
#include "util.h" /* src/util: number parsing, the clock */
/* The single-page steps an ablation names (not public API). */
#include "detect/steps.h"
#include "score.h"
#include "tool_common.h"

/* Caps on what the corpus may cost us. A page has the CLI's cap
 * (WN_PAGE_MAX_BYTES, as `winnow detect FILE` reads it). */
#define WN_SNIP_MAX_INDEX_BYTES ((size_t)64 * 1024 * 1024) /* snippets.json */
#define WN_SNIP_MAX_PAGES 1000000u
#define WN_SNIP_MAX_SNIPPETS 32u /* per list and page (the benchmark has 1 to 6) */
#define WN_SNIP_MAX_ID 200u      /* bytes of an id: a file name with ".html" */
#define WN_SNIP_MAX_PATH 4096u
#define WN_SNIP_MAX_TEXT_BYTES ((size_t)256 * 1024 * 1024) /* one collapsed text */
#define WN_SNIP_MAX_REPEAT 1000u
#define WN_SNIP_STATUS_LEN 256u
#define WN_SNIP_SHOW_BYTES 80u /* a snippet in a --per-page line */

typedef struct wn_snip_page {
  const char *id;  /* held by the snippets.json root */
  const char *url; /* NULL: a label, the page is sent without a URL */
  char fold;       /* 'A' or 'B' */
  char **snips;    /* collapsed: n_with "with", then n_without "without" */
  size_t n_with, n_without;
  uint32_t found_with;    /* bit i: "with" snippet i was found in the text */
  uint32_t found_without; /* bit i: "without" snippet i was found */
  char *html;     /* the bytes, kept for the timing loops; NULL if unread */
  size_t html_len;
  int failed; /* could not be read or detected: scored as empty output */
  int empty;
  char status[WN_SNIP_STATUS_LEN]; /* why the output is empty */
  size_t tp, fn, fp, tn;
} wn_snip_page;

typedef struct wn_snip_counts {
  size_t pages, empty, tp, fn, fp, tn;
} wn_snip_counts;

typedef struct wn_snip_opts {
  int per_page, json, fallback_given;
  uint32_t steps; /* wn_detector_set_steps */
  unsigned repeat;
  char fold; /* 'A', 'B', or 0 for every page */
  wn_single_method fallback;
  const char *corpus;
} wn_snip_opts;

typedef struct wn_snip {
  wn_snip_opts opts;
  json_t *root; /* snippets.json: owns the ids and urls */
  wn_snip_page *pages;
  size_t n_pages;
  wn_tool_timing parse_time, detect_time;
} wn_snip;

/* ---- the corpus ---------------------------------------------------------------- */

/* Fold A: a first hex digit 0-7; B: 8-f. Else the first byte's parity. */
static char wn_snip_fold(const char *id) {
  unsigned char c = (unsigned char)id[0];
  if (c >= '0' && c <= '9')
    return c <= '7' ? 'A' : 'B';
  if ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))
    return 'B';
  return c % 2 ? 'B' : 'A';
}

static int wn_snip_cmp_page(const void *a, const void *b) {
  return strcmp(((const wn_snip_page *)a)->id, ((const wn_snip_page *)b)->id);
}

/* The collapsed copies of one list of snippets into pg->snips from *next.
 * 0, or -1 after a message naming the page and list. */
static int wn_snip_load_list(const char *path, wn_snip_page *pg, json_t *list, const char *key,
                             size_t *next, wn_buf *tmp) {
  size_t i;
  json_t *v;
  json_array_foreach(list, i, v) {
    wn_err err = json_is_string(v) ? wn_score_collapse(json_string_value(v),
                                                      json_string_length(v), tmp)
                                   : WN_EINVAL;
    if (err || tmp->len == 0) {
      fprintf(stderr, "winnow-snippets: %s: page %s: \"%s\" item %zu: %s\n", path, pg->id, key, i,
              err == WN_ENOMEM ? "out of memory"
              : err            ? "not a string"
                               : "empty once white space is collapsed");
      return -1;
    }
    char *copy = malloc(tmp->len + 1);
    if (!copy) {
      fprintf(stderr, "winnow-snippets: out of memory\n");
      return -1;
    }
    memcpy(copy, tmp->data, tmp->len + 1);
    pg->snips[(*next)++] = copy;
  }
  return 0;
}

/* Reads and checks snippets.json (the pages of --fold only, sorted by id);
 * on failure prints a message naming the file and returns nonzero. */
static int wn_snip_load(wn_snip *s) {
  int rc = 1;
  char path[WN_SNIP_MAX_PATH];
  char *bytes = NULL;
  size_t len = 0;
  wn_buf tmp;
  wn_buf_init(&tmp, WN_SNIP_MAX_TEXT_BYTES);
  if (wn_tool_corpus_read("winnow-snippets", s->opts.corpus, "snippets.json",
                          WN_SNIP_MAX_INDEX_BYTES, path, sizeof path, &bytes, &len))
    goto out;
  json_error_t jerr;
  s->root = json_loadb(bytes, len, JSON_REJECT_DUPLICATES, &jerr);
  if (!s->root) {
    fprintf(stderr, "winnow-snippets: %s:%d:%d: %s\n", path, jerr.line, jerr.column, jerr.text);
    goto out;
  }
  size_t n = json_is_object(s->root) ? json_object_size(s->root) : 0;
  if (n == 0 || n > WN_SNIP_MAX_PAGES) {
    fprintf(stderr, "winnow-snippets: %s: expected an object of 1 to %u pages {id: {...}}\n",
            path, WN_SNIP_MAX_PAGES);
    goto out;
  }
  s->pages = calloc(n, sizeof *s->pages);
  if (!s->pages) {
    fprintf(stderr, "winnow-snippets: out of memory\n");
    goto out;
  }
  const char *id;
  json_t *entry;
  json_object_foreach(s->root, id, entry) {
    if (!wn_tool_name_ok(id, WN_SNIP_MAX_ID)) {
      fprintf(stderr,
              "winnow-snippets: %s: id \"%.64s\" is not a safe file name (1 to %u bytes, no "
              "'/', '\\' or control characters, no leading '.')\n",
              path, id, WN_SNIP_MAX_ID);
      goto out;
    }
    json_t *url = json_object_get(entry, "url");
    json_t *with = json_object_get(entry, "with");
    json_t *without = json_object_get(entry, "without");
    if (!json_is_object(entry) || !json_is_string(url) || !json_is_array(with) ||
        !json_is_array(without)) {
      fprintf(stderr,
              "winnow-snippets: %s: page %s: expected {\"url\": string, \"with\": [...], "
              "\"without\": [...]}\n",
              path, id);
      goto out;
    }
    if (json_array_size(with) > WN_SNIP_MAX_SNIPPETS ||
        json_array_size(without) > WN_SNIP_MAX_SNIPPETS) {
      fprintf(stderr, "winnow-snippets: %s: page %s: more than %u snippets in a list\n", path,
              id, WN_SNIP_MAX_SNIPPETS);
      goto out;
    }
    char fold = wn_snip_fold(id);
    if (s->opts.fold && fold != s->opts.fold)
      continue;
    wn_snip_page *pg = &s->pages[s->n_pages++];
    pg->id = id;
    pg->fold = fold;
    const char *u = json_string_value(url);
    pg->url = strncmp(u, "http://", 7) == 0 || strncmp(u, "https://", 8) == 0 ? u : NULL;
    pg->n_with = json_array_size(with);
    pg->n_without = json_array_size(without);
    pg->snips = calloc(pg->n_with + pg->n_without + 1, sizeof *pg->snips);
    if (!pg->snips) {
      fprintf(stderr, "winnow-snippets: out of memory\n");
      goto out;
    }
    size_t next = 0;
    if (wn_snip_load_list(path, pg, with, "with", &next, &tmp) ||
        wn_snip_load_list(path, pg, without, "without", &next, &tmp))
      goto out;
  }
  if (s->n_pages == 0) {
    fprintf(stderr, "winnow-snippets: %s: no pages in fold %c\n", path, s->opts.fold);
    goto out;
  }
  qsort(s->pages, s->n_pages, sizeof *s->pages, wn_snip_cmp_page);
  rc = 0;
out:
  free(bytes);
  wn_buf_free(&tmp);
  return rc;
}

/* ---- detection and scores ------------------------------------------------------ */

/* Scores pg against its collapsed output text[0..len). */
static void wn_snip_score(wn_snip_page *pg, const char *text, size_t len) {
  pg->tp = pg->fn = pg->fp = pg->tn = 0;
  pg->found_with = pg->found_without = 0;
  pg->empty = len == 0;
  for (size_t i = 0; i < pg->n_with; i++) {
    if (wn_score_contains(text, len, pg->snips[i], strlen(pg->snips[i]))) {
      pg->found_with |= (uint32_t)1 << i;
      pg->tp++;
    } else {
      pg->fn++;
    }
  }
  for (size_t i = 0; i < pg->n_without; i++) {
    const char *snip = pg->snips[pg->n_with + i];
    if (wn_score_contains(text, len, snip, strlen(snip))) {
      pg->found_without |= (uint32_t)1 << i;
      pg->fp++;
    } else {
      pg->tn++;
    }
  }
}

static void wn_snip_fail(wn_snip_page *pg, const char *stage, const char *msg) {
  pg->failed = 1;
  snprintf(pg->status, sizeof pg->status, "%s: %s", stage, msg);
  wn_snip_score(pg, "", 0);
}

/* Reads, detects and scores one page. A page that cannot be read or
 * detected is scored as empty output; the returned error is only the
 * scorer's own (out of memory), after which the run cannot go on. */
static wn_err wn_snip_page_run(const wn_snip *s, wn_detector *d, wn_snip_page *pg,
                               wn_buf *text) {
  char path[WN_SNIP_MAX_PATH];
  wn_diag diag;
  wn_diag_clear(&diag);
  wn_page_result *r = NULL;
  wn_err err = WN_OK;
  int n = snprintf(path, sizeof path, "%s/html/%s.html", s->opts.corpus, pg->id);
  wn_err e = n < 0 || (size_t)n >= sizeof path
                 ? wn_diag_set(&diag, WN_ETOOBIG, "path of %s too long", pg->id)
                 : wn_file_read(path, WN_PAGE_MAX_BYTES, &pg->html, &pg->html_len, &diag);
  if (e) {
    wn_snip_fail(pg, "read", wn_diag_message(&diag, e));
    goto out;
  }
  const wn_page_input in = {.bytes = pg->html, .len = pg->html_len, .url = pg->url};
  e = wn_detector_detect(d, &in, WN_WANT_TEXT, &r, &diag);
  if (e) {
    wn_snip_fail(pg, "detect", wn_diag_message(&diag, e));
    goto out;
  }
  size_t len = 0;
  const char *raw = wn_page_result_text(r, &len);
  if ((err = wn_score_collapse(raw ? raw : "", raw ? len : 0, text)) != WN_OK)
    goto out;
  wn_snip_score(pg, text->len ? text->data : "", text->len);
  if (pg->empty)
    snprintf(pg->status, sizeof pg->status, "no text extracted (method %s)",
             wn_page_result_method(r));
out:
  if (pg->empty)
    fprintf(stderr, "winnow-snippets: empty output: %s (fold %c): %s\n", pg->id, pg->fold,
            pg->status);
  wn_page_result_free(r);
  return err;
}

static void wn_snip_add(wn_snip_counts *c, const wn_snip_page *pg) {
  c->pages++;
  c->empty += (size_t)pg->empty;
  c->tp += pg->tp;
  c->fn += pg->fn;
  c->fp += pg->fp;
  c->tn += pg->tn;
}

static double wn_snip_ratio(size_t num, size_t den) {
  return den ? (double)num / (double)den : 0.0;
}

/* ---- throughput ------------------------------------------------------------------ */

/* One page of a timing pass: the pages that could be read. */
typedef struct wn_snip_timed {
  const wn_snip *s;
  wn_detector *d; /* NULL: the bare parse */
} wn_snip_timed;

static int wn_snip_time_page(void *ctx, size_t i, size_t *bytes) {
  const wn_snip_timed *tm = ctx;
  const wn_snip_page *pg = &tm->s->pages[i];
  if (!pg->html || pg->html_len > INT_MAX)
    return 0;
  if (tm->d) {
    const wn_page_input in = {.bytes = pg->html, .len = pg->html_len, .url = pg->url};
    wn_page_result *res = NULL;
    (void)wn_detector_detect(tm->d, &in, WN_WANT_TEXT, &res, NULL);
    wn_page_result_free(res);
  } else {
    (void)wn_tool_parse_bare(pg->html, pg->html_len);
  }
  *bytes = pg->html_len;
  return 1;
}

/* The floor: libxml2's HTML parser on the raw bytes, and nothing else
 * (tools/tool_common.h), d NULL; else winnow's whole per-page cost:
 * wn_detector_detect (decode, parse to the compact tree, detect, render
 * text) and freeing the result. Pages that could not be read are left out. */
static void wn_snip_time(const wn_snip *s, wn_detector *d, wn_tool_timing *t) {
  wn_snip_timed tm = {.s = s, .d = d};
  wn_tool_time_passes(s->n_pages, s->opts.repeat, wn_snip_time_page, &tm, t);
}

/* Detection's speed as a share of the bare parse's (pages/s over pages/s). */
static double wn_snip_speed_share(const wn_snip *s) {
  double parse = wn_tool_rate((double)s->parse_time.pages, s->parse_time.best_seconds);
  double detect = wn_tool_rate((double)s->detect_time.pages, s->detect_time.best_seconds);
  return parse > 0 ? detect / parse : 0.0;
}

/* ---- report ---------------------------------------------------------------------- */

static void wn_snip_print_counts(const char *label, const wn_snip_counts *c) {
  size_t all = c->tp + c->fn + c->fp + c->tn;
  printf("%-6s pages %zu  P %.4f  R %.4f  acc %.4f  F1 %.4f  empty %zu"
         "  (tp %zu fn %zu fp %zu tn %zu)\n",
         label, c->pages, wn_snip_ratio(c->tp, c->tp + c->fp), wn_snip_ratio(c->tp, c->tp + c->fn),
         wn_snip_ratio(c->tp + c->tn, all), wn_snip_ratio(2 * c->tp, 2 * c->tp + c->fp + c->fn),
         c->empty, c->tp, c->fn, c->fp, c->tn);
}

/* A snippet for a --per-page line: at most WN_SNIP_SHOW_BYTES bytes, cut
 * at a character boundary. */
static void wn_snip_print_snippet(const char *snip) {
  size_t len = strlen(snip), show = len;
  if (show > WN_SNIP_SHOW_BYTES) {
    show = WN_SNIP_SHOW_BYTES;
    while (show > 0 && ((unsigned char)snip[show] & 0xc0) == 0x80)
      show--;
  }
  printf(" \"%.*s%s\"", (int)show, snip, show < len ? "..." : "");
}

/* id fold tp fn fp tn empty, then the "with" snippets missed and the
 * "without" snippets found. */
static void wn_snip_print_page(const wn_snip_page *pg) {
  printf("%s\t%c\t%zu\t%zu\t%zu\t%zu\t%d\tmissed:", pg->id, pg->fold, pg->tp, pg->fn, pg->fp,
         pg->tn, pg->empty);
  for (size_t i = 0; i < pg->n_with; i++)
    if (!(pg->found_with >> i & 1u))
      wn_snip_print_snippet(pg->snips[i]);
  printf("\tfound:");
  for (size_t i = 0; i < pg->n_without; i++)
    if (pg->found_without >> i & 1u)
      wn_snip_print_snippet(pg->snips[pg->n_with + i]);
  printf("\n");
}

static void wn_snip_print_text(const wn_snip *s, const wn_snip_counts c[3]) {
  char fold[2] = {s->opts.fold, '\0'};
  printf("corpus %s  (%zu pages%s%s, fallback %s%s, repeat %u)\n", s->opts.corpus, s->n_pages,
         s->opts.fold ? ", fold " : "", fold, wn_single_method_name(s->opts.fallback),
         s->opts.fallback_given ? "" : " (default)", s->opts.repeat);
  if (s->opts.per_page) {
    printf("# id\tfold\ttp\tfn\tfp\ttn\tempty\tmissed \"with\"\tfound \"without\"\n");
    for (size_t i = 0; i < s->n_pages; i++)
      wn_snip_print_page(&s->pages[i]);
  }
  wn_snip_print_counts("all", &c[0]);
  if (s->opts.fold != 'B')
    wn_snip_print_counts("fold A", &c[1]);
  if (s->opts.fold != 'A')
    wn_snip_print_counts("fold B", &c[2]);
  const wn_tool_timing *a = &s->parse_time, *b = &s->detect_time;
  printf("speed  parse %.0f pages/s  detect %.0f pages/s  (%.2fx parse)  over %zu pages, "
         "%.2f MB, best of %u\n",
         wn_tool_rate((double)a->pages, a->best_seconds),
         wn_tool_rate((double)b->pages, b->best_seconds), wn_snip_speed_share(s), a->pages,
         (double)a->bytes / 1e6, s->opts.repeat);
}

/* jansson helpers: a NULL value (out of memory) or a failed set marks the
 * whole document failed; checked once at the end. */
static json_t *wn_snip_json_counts(const wn_snip_counts *c, int *bad) {
  json_t *o = json_object();
  size_t all = c->tp + c->fn + c->fp + c->tn;
  wn_tool_jset(o, "pages", wn_tool_jsize(c->pages), bad);
  wn_tool_jset(o, "empty", wn_tool_jsize(c->empty), bad);
  wn_tool_jset(o, "tp", wn_tool_jsize(c->tp), bad);
  wn_tool_jset(o, "fn", wn_tool_jsize(c->fn), bad);
  wn_tool_jset(o, "fp", wn_tool_jsize(c->fp), bad);
  wn_tool_jset(o, "tn", wn_tool_jsize(c->tn), bad);
  wn_tool_jset(o, "precision", json_real(wn_snip_ratio(c->tp, c->tp + c->fp)), bad);
  wn_tool_jset(o, "recall", json_real(wn_snip_ratio(c->tp, c->tp + c->fn)), bad);
  wn_tool_jset(o, "accuracy", json_real(wn_snip_ratio(c->tp + c->tn, all)), bad);
  wn_tool_jset(o, "f1", json_real(wn_snip_ratio(2 * c->tp, 2 * c->tp + c->fp + c->fn)), bad);
  return o;
}

static json_t *wn_snip_json_page(const wn_snip_page *pg, int *bad) {
  json_t *o = json_object(), *missed = json_array(), *found = json_array();
  char fold[2] = {pg->fold, '\0'};
  wn_tool_jset(o, "id", json_string(pg->id), bad);
  wn_tool_jset(o, "fold", json_string(fold), bad);
  wn_tool_jset(o, "url", pg->url ? json_string(pg->url) : json_null(), bad);
  wn_tool_jset(o, "tp", wn_tool_jsize(pg->tp), bad);
  wn_tool_jset(o, "fn", wn_tool_jsize(pg->fn), bad);
  wn_tool_jset(o, "fp", wn_tool_jsize(pg->fp), bad);
  wn_tool_jset(o, "tn", wn_tool_jsize(pg->tn), bad);
  wn_tool_jset(o, "empty", json_boolean(pg->empty), bad);
  if (pg->empty)
    wn_tool_jset(o, pg->failed ? "error" : "reason", json_string(pg->status), bad);
  for (size_t i = 0; i < pg->n_with; i++)
    if (!(pg->found_with >> i & 1u))
      wn_tool_jappend(missed, json_string(pg->snips[i]), bad);
  for (size_t i = 0; i < pg->n_without; i++)
    if (pg->found_without >> i & 1u)
      wn_tool_jappend(found, json_string(pg->snips[pg->n_with + i]), bad);
  wn_tool_jset(o, "missed_with", missed, bad);
  wn_tool_jset(o, "found_without", found, bad);
  return o;
}

static int wn_snip_print_json(const wn_snip *s, const wn_snip_counts c[3]) {
  int bad = 0;
  json_t *root = json_object(), *opts = json_object(), *empty = json_array();
  json_t *pages = s->opts.per_page ? json_array() : NULL;
  char fold[2] = {s->opts.fold, '\0'};
  wn_tool_jset(root, "corpus", json_string(s->opts.corpus), &bad);
  wn_tool_jset(opts, "fold", s->opts.fold ? json_string(fold) : json_null(), &bad);
  wn_tool_jset(opts, "fallback", json_string(wn_single_method_name(s->opts.fallback)), &bad);
  wn_tool_jset(opts, "repeat", json_integer(s->opts.repeat), &bad);
  wn_tool_jset(root, "options", opts, &bad);
  wn_tool_jset(root, "all", wn_snip_json_counts(&c[0], &bad), &bad);
  if (s->opts.fold != 'B')
    wn_tool_jset(root, "fold_A", wn_snip_json_counts(&c[1], &bad), &bad);
  if (s->opts.fold != 'A')
    wn_tool_jset(root, "fold_B", wn_snip_json_counts(&c[2], &bad), &bad);
  for (size_t i = 0; i < s->n_pages; i++) {
    const wn_snip_page *pg = &s->pages[i];
    if (pg->empty) {
      json_t *e = json_object();
      wn_tool_jset(e, "id", json_string(pg->id), &bad);
      wn_tool_jset(e, "failed", json_boolean(pg->failed), &bad);
      wn_tool_jset(e, "reason", json_string(pg->status), &bad);
      wn_tool_jappend(empty, e, &bad);
    }
    if (pages)
      wn_tool_jappend(pages, wn_snip_json_page(pg, &bad), &bad);
  }
  wn_tool_jset(root, "empty_pages", empty, &bad);
  if (pages)
    wn_tool_jset(root, "pages", pages, &bad);
  json_t *thr = json_object();
  wn_tool_jset(thr, "repeat", json_integer(s->opts.repeat), &bad);
  wn_tool_jset(thr, "parse", wn_tool_json_timing(&s->parse_time, &bad), &bad);
  wn_tool_jset(thr, "detect", wn_tool_json_timing(&s->detect_time, &bad), &bad);
  wn_tool_jset(thr, "detect_over_parse_speed", json_real(wn_snip_speed_share(s)), &bad);
  wn_tool_jset(root, "throughput", thr, &bad);
  return wn_tool_json_emit("winnow-snippets", root, bad);
}

/* ---- main ------------------------------------------------------------------------ */

static void wn_snip_usage(FILE *f) {
  fprintf(f,
          "usage: winnow-snippets [--per-page] [--json] [--repeat N] [--fold A|B]\n"
          "                       [--fallback danag|cnr] [--steps paper|default|N] CORPUS_DIR\n"
          "\n"
          "Scores winnow detect (no store) on CORPUS_DIR/html/<id>.html against the \"with\"\n"
          "and \"without\" snippets of CORPUS_DIR/snippets.json: P, R, accuracy and F1 over\n"
          "all snippets, for all pages and each fold (A: ids from 0-7, B: 8-f).\n"
          "  --per-page      one line per page: id fold tp fn fp tn empty, the \"with\"\n"
          "                  snippets missed and the \"without\" snippets found\n"
          "  --json          one JSON object with all the figures\n"
          "  --repeat N      timing loops run N times, the best counts (default 3)\n"
          "  --fold F        A or B: only the pages of one fold\n"
          "  --fallback M    the single-page method, danag or cnr (default: the library's)\n"
          "  --steps S       the method's added steps (ablation): paper (none), default,\n"
          "                  or a bit mask of WN_SINGLE_STEP_* (src/detect/steps.h)\n");
}

static int wn_snip_parse_args(int argc, char **argv, wn_snip_opts *o) {
  memset(o, 0, sizeof *o);
  o->repeat = 3;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--repeat") == 0) {
      const char *v = i + 1 < argc ? argv[++i] : "";
      uint32_t n = 0;
      if (wn_parse_u32(v, 1, WN_SNIP_MAX_REPEAT, &n) != 0) {
        fprintf(stderr, "winnow-snippets: --repeat needs a number from 1 to %u\n",
                WN_SNIP_MAX_REPEAT);
        return 2;
      }
      o->repeat = (unsigned)n;
    } else if (strcmp(a, "--fold") == 0) {
      const char *f = i + 1 < argc ? argv[++i] : "";
      if (strcmp(f, "A") != 0 && strcmp(f, "B") != 0) {
        fprintf(stderr, "winnow-snippets: --fold needs A or B\n");
        return 2;
      }
      o->fold = f[0];
    } else if (strcmp(a, "--fallback") == 0) {
      if (i + 1 >= argc || wn_single_method_parse(argv[++i], &o->fallback) != 0) {
        fprintf(stderr, "winnow-snippets: --fallback needs danag or cnr\n");
        return 2;
      }
      o->fallback_given = 1;
    } else if (strcmp(a, "--steps") == 0) {
      const char *v = i + 1 < argc ? argv[++i] : "";
      uint32_t n = 0;
      if (strcmp(v, "paper") == 0) {
        o->steps = WN_SINGLE_STEPS_SET;
      } else if (strcmp(v, "default") == 0) {
        o->steps = WN_SINGLE_STEPS_DEFAULT;
      } else if (wn_parse_u32(v, 0, WN_SINGLE_STEPS_ALL, &n) == 0) {
        o->steps = WN_SINGLE_STEPS_SET | n;
      } else {
        fprintf(stderr, "winnow-snippets: --steps needs paper, default or a number up to 4095\n");
        return 2;
      }
    } else if (strcmp(a, "--per-page") == 0) {
      o->per_page = 1;
    } else if (strcmp(a, "--json") == 0) {
      o->json = 1;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      wn_snip_usage(stdout);
      return 1;
    } else if (a[0] == '-' && a[1] != '\0') {
      fprintf(stderr, "winnow-snippets: unknown option %s\n", a);
      wn_snip_usage(stderr);
      return 2;
    } else if (o->corpus) {
      fprintf(stderr, "winnow-snippets: one corpus directory only (got %s and %s)\n", o->corpus,
              a);
      return 2;
    } else {
      o->corpus = a;
    }
  }
  if (!o->corpus) {
    wn_snip_usage(stderr);
    return 2;
  }
  return 0;
}

int main(int argc, char **argv) {
  int rc = 1;
  wn_snip s;
  memset(&s, 0, sizeof s);
  int a = wn_snip_parse_args(argc, argv, &s.opts);
  if (a)
    return a == 1 ? 0 : 2;
  struct stat st;
  if (stat(s.opts.corpus, &st) != 0) {
    fprintf(stderr, "winnow-snippets: corpus directory %s: %s\n", s.opts.corpus,
            strerror(errno));
    return 1;
  }
  if (!S_ISDIR(st.st_mode)) {
    fprintf(stderr, "winnow-snippets: %s is not a directory\n", s.opts.corpus);
    return 1;
  }
  wn_err ierr = wn_init();
  if (ierr) {
    fprintf(stderr, "winnow-snippets: %s\n", wn_strerror(ierr));
    return 1;
  }
  wn_detector *d = NULL;
  wn_buf text;
  wn_buf_init(&text, WN_SNIP_MAX_TEXT_BYTES);
  if (wn_snip_load(&s))
    goto out;
  /* The library's defaults, as `winnow detect` without --store runs; no
   * store, so nothing is counted. */
  wn_detector_options o;
  wn_detector_options_init(&o);
  if (s.opts.fallback_given)
    o.detect.fallback = s.opts.fallback;
  s.opts.fallback = o.detect.fallback; /* for the report */
  wn_diag diag;
  wn_diag_clear(&diag);
  wn_err err = wn_detector_create(NULL, &o, &d, &diag);
  if (!err)
    err = wn_detector_set_steps(d, s.opts.steps, &diag);
  if (err) {
    fprintf(stderr, "winnow-snippets: detector: %s\n", wn_diag_message(&diag, err));
    goto out;
  }
  wn_snip_counts c[3]; /* all, fold A, fold B */
  memset(c, 0, sizeof c);
  for (size_t i = 0; i < s.n_pages; i++) {
    wn_snip_page *pg = &s.pages[i];
    if (wn_snip_page_run(&s, d, pg, &text)) {
      fprintf(stderr, "winnow-snippets: %s: out of memory\n", pg->id);
      goto out;
    }
    wn_snip_add(&c[0], pg);
    wn_snip_add(&c[pg->fold == 'A' ? 1 : 2], pg);
  }
  wn_snip_time(&s, NULL, &s.parse_time);
  wn_snip_time(&s, d, &s.detect_time);
  if (s.opts.json) {
    if (wn_snip_print_json(&s, c))
      goto out;
  } else {
    wn_snip_print_text(&s, c);
  }
  if (fflush(stdout) != 0) {
    fprintf(stderr, "winnow-snippets: cannot write the report: %s\n", strerror(errno));
    goto out;
  }
  rc = 0;
out:
  wn_detector_destroy(d);
  wn_buf_free(&text);
  for (size_t i = 0; s.pages && i < s.n_pages; i++) {
    for (size_t k = 0; s.pages[i].snips && k < s.pages[i].n_with + s.pages[i].n_without; k++)
      free(s.pages[i].snips[k]);
    free(s.pages[i].snips);
    free(s.pages[i].html);
  }
  free(s.pages);
  json_decref(s.root);
  wn_cleanup();
  return rc;
}
