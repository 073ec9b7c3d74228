/*
 * winnow-eval: accuracy and throughput of site-level detection on a corpus
 * in the uniform evaluation layout (../shared/corpus/README.md):
 *
 *   CORPUS_DIR/pages.tsv                  group, id, split (train | test)
 *   CORPUS_DIR/html/<group>/<id>.html     the page bytes
 *   CORPUS_DIR/gold/<group>/<id>.txt      the main content, UTF-8 text
 *
 * Per group: the train pages, sorted by id, are the learning sample (the
 * first is the key page; --train N makes the first N pages by id the
 * sample and the rest the test pages, whatever the split column says); a template is learned from them and every test
 * page is detected with it and scored against its gold with the protocol
 * of the corpus README:
 *   - tokens are maximal runs of Unicode letters and digits, lower-cased;
 *   - with the bags (multisets) P of the output and G of the gold,
 *     precision = |P n G| / |P|, recall = |P n G| / |G|, F1 their harmonic
 *     mean; both empty: all 1; one empty: all 0;
 *   - figures are macro means over test pages, per group and per corpus.
 * A group whose sample learns no template (its pages share no layout) is
 * reported on stderr and its test pages are served as winnow detect serves
 * a site without one: by the single-page fallback. A page that cannot be
 * read, parsed or detected scores 0, is counted and is reported on
 * stderr; nothing is skipped silently.
 *
 * The eval is a client of the public API (winnow/winnow.h) only, so it
 * measures what a front end gets: each group is learned with
 * wn_site_learn_pages (force: from exactly its train pages) under a
 * synthetic site name ("g<index>.eval"), served to a store-less
 * wn_detector with wn_detector_use, and every page is detected with
 * wn_detector_detect, the library's own detection policy.
 *
 * Throughput is measured in the same run over the test pages held in
 * memory: a bare libxml2 parse of the raw bytes, and winnow's whole
 * per-page detection cost (wn_detector_detect: parse to compact tree,
 * detect, render text; and freeing the result). Each loop runs --repeat
 * times and the best run counts.
 *
 * With --method cnr|danag, a single-page method instead (no template):
 * every page of the corpus, train and test, is detected and scored; the
 * figures are given over all pages and over the test pages alone (the
 * pages the template method is scored on, for a side-by-side), and the
 * throughput loops run over all pages.
 *
 * The detector's policy, as winnow detect and the daemon run it: a test
 * page whose match confidence is below --min-confidence X (default the
 * library's, 0.25; 0: the template serves every page) is served by the
 * single-page fallback (--fallback); --sweep scores the policy at thresholds 0 to 1 from one run
 * (the template's and the fallback's results are scored on every test
 * page: a second detection per page, with the template alone or with no
 * site, gives the one the policy did not pick).
 *
 * usage: winnow-eval [--min-count N] [--selector cues|places|region|paper] [--per-page]
 *                    [--min-confidence X] [--fallback cnr|danag] [--sweep]
 *                    [--fold A|B] [--train N] [--json] [--repeat N] CORPUS_DIR
 *        winnow-eval --method cnr|danag [--steps paper|default|N] [--per-page]
 *                    [--train N] [--json] [--repeat N] CORPUS_DIR
 *        winnow-eval --selftest [CORPUS_DIR]
 */
#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>
#include <wctype.h>

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

/* Caps on what the corpus may cost us. */
#define WN_EVAL_MAX_INDEX_BYTES ((size_t)16 * 1024 * 1024) /* pages.tsv */
#define WN_EVAL_MAX_LINE 4096u                             /* one pages.tsv line */
#define WN_EVAL_MAX_NAME 255u                              /* a group or an id */
#define WN_EVAL_MAX_ROWS 1000000u                          /* pages in a corpus */
#define WN_EVAL_MAX_PATH 4096u
#define WN_EVAL_SITE_MAX 32u                               /* "g<index>.eval" */
#define WN_EVAL_MAX_REPEAT 1000u
#define WN_EVAL_STATUS_LEN 256u

/* ---- small helpers ---------------------------------------------------------- */


/* ---- the corpus ------------------------------------------------------------ */

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

static const char *wn_eval_selector_name(wn_detect_selector s) {
  return wn_detect_selector_name(s);
}

/*
 * --fold A|B: two halves of a corpus by site, so that a constant chosen on
 * one half is reported on the other (docs/evaluation.md, "How to measure honestly").
 * A group's site is its name less a trailing "-YEAR" (crawl-to-the-future
 * names groups site-year); the distinct sites, sorted by name, alternate
 * between fold A (the first, third, ...) and fold B. No site is named here.
 */
static size_t wn_eval_site_len(const char *group) {
  size_t len = strlen(group);
  if (len > 5 && group[len - 5] == '-') {
    for (size_t i = len - 4; i < len; i++)
      if (group[i] < '0' || group[i] > '9')
        return len;
    return len - 5;
  }
  return len;
}

static int wn_eval_cmp_site(const void *a, const void *b) {
  const char *sa = *(const char *const *)a, *sb = *(const char *const *)b;
  size_t la = wn_eval_site_len(sa), lb = wn_eval_site_len(sb);
  int c = memcmp(sa, sb, la < lb ? la : lb);
  return c ? c : (la > lb) - (la < lb);
}

/* Keeps the pages of the chosen fold (ev->pages sorted by group). */
static int wn_eval_filter_fold(wn_eval *ev) {
  const char **sites = malloc((ev->n_pages ? ev->n_pages : 1) * sizeof *sites);
  if (!sites)
    return -1;
  size_t n_sites = 0;
  for (size_t i = 0; i < ev->n_pages; i++)
    sites[n_sites++] = ev->pages[i].group;
  qsort(sites, n_sites, sizeof *sites, wn_eval_cmp_site);
  size_t distinct = 0; /* sites[] deduplicated in place */
  for (size_t i = 0; i < n_sites; i++)
    if (distinct == 0 || wn_eval_cmp_site(&sites[distinct - 1], &sites[i]) != 0)
      sites[distinct++] = sites[i];
  size_t kept = 0;
  for (size_t i = 0; i < ev->n_pages; i++) {
    const char *g = ev->pages[i].group;
    const char **hit = bsearch(&g, sites, distinct, sizeof *sites, wn_eval_cmp_site);
    size_t pos = hit ? (size_t)(hit - sites) : 0;
    if ((pos % 2 == 0) == (ev->opts.fold == 'A'))
      ev->pages[kept++] = ev->pages[i];
  }
  ev->n_pages = kept;
  free(sites);
  return 0;
}

static int wn_eval_cmp_page(const void *a, const void *b) {
  const wn_eval_page *pa = a;
  const wn_eval_page *pb = b;
  int c = strcmp(pa->group, pb->group);
  return c ? c : strcmp(pa->id, pb->id);
}

/* Reads and checks pages.tsv; on failure prints a message naming the file
 * and line and returns nonzero. */
static int wn_eval_load_index(wn_eval *ev) {
  int rc = 1;
  char path[WN_EVAL_MAX_PATH];
  wn_diag diag;
  wn_diag_clear(&diag);
  int plen = snprintf(path, sizeof path, "%s/pages.tsv", ev->opts.corpus);
  if (plen < 0 || (size_t)plen >= sizeof path) {
    fprintf(stderr, "winnow-eval: corpus path too long\n");
    goto out;
  }
  wn_err err = wn_file_read(path, WN_EVAL_MAX_INDEX_BYTES, &ev->index, &ev->index_len, &diag);
  if (err) {
    /* wn_file_read's messages name the file. */
    if (diag.msg[0])
      fprintf(stderr, "winnow-eval: %s\n", diag.msg);
    else
      fprintf(stderr, "winnow-eval: %s: %s\n", path, wn_strerror(err));
    goto out;
  }
  if (memchr(ev->index, '\0', ev->index_len)) {
    fprintf(stderr, "winnow-eval: %s: holds a NUL byte\n", path);
    goto out;
  }
  /* Count lines to size the rows. */
  size_t lines = 0;
  for (size_t i = 0; i < ev->index_len; i++)
    lines += ev->index[i] == '\n';
  lines++;
  if (lines > WN_EVAL_MAX_ROWS + 1) {
    fprintf(stderr, "winnow-eval: %s: more than %u pages\n", path, WN_EVAL_MAX_ROWS);
    goto out;
  }
  ev->pages = calloc(lines, sizeof *ev->pages);
  if (!ev->pages) {
    fprintf(stderr, "winnow-eval: out of memory\n");
    goto out;
  }
  char *p = ev->index;
  char *end = ev->index + ev->index_len;
  size_t lineno = 0;
  while (p < end) {
    char *nl = memchr(p, '\n', (size_t)(end - p));
    char *line_end = nl ? nl : end;
    lineno++;
    if ((size_t)(line_end - p) > WN_EVAL_MAX_LINE) {
      fprintf(stderr, "winnow-eval: %s:%zu: line longer than %u bytes\n", path, lineno,
              WN_EVAL_MAX_LINE);
      goto out;
    }
    *line_end = '\0';
    if (line_end > p && line_end[-1] == '\r')
      line_end[-1] = '\0';
    char *line = p;
    p = nl ? nl + 1 : end;
    if (lineno == 1) {
      if (strcmp(line, "group\tid\tsplit") != 0) {
        fprintf(stderr, "winnow-eval: %s:1: expected the header \"group<TAB>id<TAB>split\"\n",
                path);
        goto out;
      }
      continue;
    }
    if (line[0] == '\0')
      continue; /* a trailing empty line */
    /* Exactly three tab-separated columns. */
    char *fields[3];
    fields[0] = line;
    char *tab1 = strchr(line, '\t');
    char *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
    if (!tab1 || !tab2 || strchr(tab2 + 1, '\t')) {
      fprintf(stderr, "winnow-eval: %s:%zu: expected 3 tab-separated columns (group, id, split)\n",
              path, lineno);
      goto out;
    }
    *tab1 = '\0';
    *tab2 = '\0';
    fields[1] = tab1 + 1;
    fields[2] = tab2 + 1;
    if (!wn_tool_name_ok(fields[0], WN_EVAL_MAX_NAME) ||
        !wn_tool_name_ok(fields[1], WN_EVAL_MAX_NAME)) {
      fprintf(stderr,
              "winnow-eval: %s:%zu: group and id must be 1 to %u bytes without '/', '\\' or "
              "control characters, not starting with '.'\n",
              path, lineno, WN_EVAL_MAX_NAME);
      goto out;
    }
    int is_train;
    if (strcmp(fields[2], "train") == 0) {
      is_train = 1;
    } else if (strcmp(fields[2], "test") == 0) {
      is_train = 0;
    } else {
      fprintf(stderr, "winnow-eval: %s:%zu: split must be \"train\" or \"test\", not \"%s\"\n",
              path, lineno, fields[2]);
      goto out;
    }
    wn_eval_page *pg = &ev->pages[ev->n_pages++];
    pg->group = fields[0];
    pg->id = fields[1];
    pg->is_train = is_train;
    pg->line = lineno;
  }
  if (lineno == 0) {
    fprintf(stderr, "winnow-eval: %s: empty file\n", path);
    goto out;
  }
  if (ev->n_pages == 0) {
    fprintf(stderr, "winnow-eval: %s: no pages\n", path);
    goto out;
  }
  qsort(ev->pages, ev->n_pages, sizeof *ev->pages, wn_eval_cmp_page);
  if (ev->opts.fold) {
    if (wn_eval_filter_fold(ev) != 0) {
      fprintf(stderr, "winnow-eval: out of memory\n");
      goto out;
    }
    if (ev->n_pages == 0) {
      fprintf(stderr, "winnow-eval: %s: no pages in fold %c\n", path, ev->opts.fold);
      goto out;
    }
  }
  /* --train N: the paper's setting (FastContentExtractor, Sec. IV: "20 to
   * 30 web pages at the preparation phase"): the split column is replaced
   * by each group's first N pages in id order; the rest are its test
   * pages. Pages are sorted by group, then id, here. */
  if (ev->opts.train_n) {
    size_t in_group = 0;
    for (size_t i = 0; i < ev->n_pages; i++) {
      if (i == 0 || strcmp(ev->pages[i - 1].group, ev->pages[i].group) != 0)
        in_group = 0;
      ev->pages[i].is_train = in_group++ < ev->opts.train_n;
    }
  }
  /* Groups: runs of equal group names. */
  size_t n_groups = 0;
  for (size_t i = 0; i < ev->n_pages; i++) {
    if (i > 0 && wn_eval_cmp_page(&ev->pages[i - 1], &ev->pages[i]) == 0) {
      size_t l1 = ev->pages[i - 1].line, l2 = ev->pages[i].line;
      fprintf(stderr, "winnow-eval: %s: page %s/%s is listed twice (lines %zu and %zu)\n",
              path, ev->pages[i].group, ev->pages[i].id, l1 < l2 ? l1 : l2, l1 < l2 ? l2 : l1);
      goto out;
    }
    if (i == 0 || strcmp(ev->pages[i - 1].group, ev->pages[i].group) != 0)
      n_groups++;
  }
  ev->groups = calloc(n_groups, sizeof *ev->groups);
  if (!ev->groups) {
    fprintf(stderr, "winnow-eval: out of memory\n");
    goto out;
  }
  for (size_t i = 0; i < ev->n_pages; i++) {
    if (i == 0 || strcmp(ev->pages[i - 1].group, ev->pages[i].group) != 0) {
      wn_eval_group *g = &ev->groups[ev->n_groups++];
      g->name = ev->pages[i].group;
      g->first = i;
    }
    wn_eval_group *g = &ev->groups[ev->n_groups - 1];
    g->n++;
    if (ev->pages[i].is_train)
      g->n_train++;
    else
      g->n_test++;
    ev->pages[i].group_index = ev->n_groups - 1;
  }
  rc = 0;
out:
  return rc;
}

/* ---- urls.tsv and snippets.tsv ------------------------------------------------- */

static int wn_eval_page_key_cmp(const void *key, const void *elt) {
  const char *const *k = key;
  const wn_eval_page *pg = elt;
  int c = strcmp(k[0], pg->group);
  return c ? c : strcmp(k[1], pg->id);
}

/* The page named group/id, or NULL (pages are sorted by group, then id). */
static wn_eval_page *wn_eval_find(wn_eval *ev, const char *group, const char *id) {
  const char *key[2] = {group, id};
  return bsearch(key, ev->pages, ev->n_pages, sizeof *ev->pages, wn_eval_page_key_cmp);
}

/* Reads CORPUS/name when it exists (*buf NULL when not); splits it into
 * lines of TAB-separated fields, calling fn with each line's fields. A
 * line with the wrong number of fields, or naming no page, is an error. */
typedef int (*wn_eval_row_fn)(wn_eval *ev, char **f, size_t line);
static int wn_eval_load_rows(wn_eval *ev, const char *name, size_t n_fields, char **buf,
                             size_t *len, wn_eval_row_fn fn) {
  char path[WN_EVAL_MAX_PATH];
  int n = snprintf(path, sizeof path, "%s/%s", ev->opts.corpus, name);
  if (n < 0 || (size_t)n >= sizeof path)
    return 0;
  if (access(path, F_OK) != 0)
    return 0;
  wn_diag diag;
  wn_diag_clear(&diag);
  wn_err err = wn_file_read(path, WN_EVAL_MAX_INDEX_BYTES, buf, len, &diag);
  if (err) {
    fprintf(stderr, "winnow-eval: %s: %s\n", path, wn_diag_message(&diag, err));
    return 1;
  }
  char *p = *buf, *end = *buf + *len;
  size_t lineno = 0;
  while (p < end) {
    char *nl = memchr(p, '\n', (size_t)(end - p));
    char *line_end = nl ? nl : end;
    lineno++;
    *line_end = '\0';
    char *f[4] = {p, NULL, NULL, NULL};
    size_t k = 1;
    for (char *q = p; *q && k < n_fields; q++)
      if (*q == '\t') {
        *q = '\0';
        f[k++] = q + 1;
      }
    p = nl ? nl + 1 : end;
    if (k == 1 && f[0][0] == '\0')
      continue; /* an empty line */
    if (k != n_fields || strchr(f[n_fields - 1], '\t')) {
      fprintf(stderr, "winnow-eval: %s:%zu: expected %zu tab-separated columns\n", path, lineno,
              n_fields);
      return 1;
    }
    if (fn(ev, f, lineno)) {
      fprintf(stderr, "winnow-eval: %s:%zu: no page %s/%s in pages.tsv\n", path, lineno, f[0],
              f[1]);
      return 1;
    }
  }
  return 0;
}

static int wn_eval_url_row(wn_eval *ev, char **f, size_t line) {
  (void)line;
  wn_eval_page *pg = wn_eval_find(ev, f[0], f[1]);
  if (!pg)
    return 1;
  pg->url = f[2];
  return 0;
}

static int wn_eval_snip_row(wn_eval *ev, char **f, size_t line) {
  (void)line;
  if (!wn_eval_find(ev, f[0], f[1]) || ev->n_snip >= ev->snip_cap)
    return 1; /* (more rows than the lines first counted: the file changed) */
  wn_eval_snip *s = &ev->snip[ev->n_snip++];
  s->group = f[0];
  s->id = f[1];
  s->with = strcmp(f[2], "with") == 0;
  s->text = f[3];
  return 0;
}

static int wn_eval_snip_cmp(const void *a, const void *b) {
  const wn_eval_snip *x = a, *y = b;
  int c = strcmp(x->group, y->group);
  if (!c)
    c = strcmp(x->id, y->id);
  return c ? c : (x < y ? -1 : x > y);
}

/* The corpus's URLs and snippets, when it has them. */
static int wn_eval_load_extras(wn_eval *ev) {
  if (wn_eval_load_rows(ev, "urls.tsv", 3, &ev->urls, &ev->urls_len, wn_eval_url_row))
    return 1;
  char path[WN_EVAL_MAX_PATH];
  int n = snprintf(path, sizeof path, "%s/snippets.tsv", ev->opts.corpus);
  if (n < 0 || (size_t)n >= sizeof path || access(path, F_OK) != 0)
    return 0;
  /* Rows are at most the file's lines: one count first. */
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "winnow-eval: %s: %s\n", path, strerror(errno));
    return 1;
  }
  size_t lines = 1;
  for (int c; (c = getc(f)) != EOF;)
    lines += c == '\n';
  fclose(f);
  ev->snip = calloc(lines, sizeof *ev->snip);
  ev->snip_cap = lines;
  if (!ev->snip) {
    fprintf(stderr, "winnow-eval: out of memory\n");
    return 1;
  }
  if (wn_eval_load_rows(ev, "snippets.tsv", 4, &ev->snips, &ev->snips_len, wn_eval_snip_row))
    return 1;
  qsort(ev->snip, ev->n_snip, sizeof *ev->snip, wn_eval_snip_cmp);
  for (size_t i = 0; i < ev->n_snip;) {
    size_t j = i;
    while (j < ev->n_snip && strcmp(ev->snip[j].group, ev->snip[i].group) == 0 &&
           strcmp(ev->snip[j].id, ev->snip[i].id) == 0)
      j++;
    wn_eval_page *pg = wn_eval_find(ev, ev->snip[i].group, ev->snip[i].id);
    pg->snip = &ev->snip[i];
    pg->n_snips = j - i;
    i = j;
  }
  return 0;
}

/* Reads CORPUS/<kind>/<group>/<id>.<ext>. */
static wn_err wn_eval_read(const wn_eval *ev, const wn_eval_page *pg, const char *kind,
                           const char *ext, char **out, size_t *out_len, wn_diag *diag) {
  char path[WN_EVAL_MAX_PATH];
  int n = snprintf(path, sizeof path, "%s/%s/%s/%s.%s", ev->opts.corpus, kind, pg->group, pg->id,
                   ext);
  if (n < 0 || (size_t)n >= sizeof path)
    return wn_diag_set(diag, WN_ETOOBIG, "path of %s/%s too long", pg->group, pg->id);
  return wn_file_read(path, WN_PAGE_MAX_BYTES, out, out_len, diag);
}

static void wn_eval_fail(wn_eval_page *pg, const char *stage, const char *msg) {
  pg->failed = 1;
  memset(&pg->score, 0, sizeof pg->score);
  snprintf(pg->status, sizeof pg->status, "%s: %s", stage, msg);
  fprintf(stderr, "winnow-eval: %s/%s: %s: %s\n", pg->group, pg->id, stage, msg);
}

/* ---- detectors ------------------------------------------------------------- */

/* A store-less detector with the eval's policy: min_confidence and the
 * fallback method and steps as given; counting off (there is no store).
 * learned (may be NULL) is served under its site. */
static wn_err wn_eval_detector(double min_confidence, wn_single_method fallback, uint32_t steps,
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
#define WN_EVAL_REPEAT_LINE 80u
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

static int wn_eval_repeats(const char *text, size_t len, const char *gold, size_t gold_len) {
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
static wn_err wn_eval_detect_score(wn_detector *d, const char *site, wn_eval_page *pg,
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

/* Learns a group's template from its train pages (sorted by id; the first
 * is the key page) with wn_site_learn_pages under the group's synthetic
 * site. force: the eval learns from exactly the train pages, whatever
 * each shares of the key page's layout. A train page that cannot be read
 * is reported and left out; one the library cannot parse is reported and
 * the rest are learned from. Failures leave g->learned NULL with
 * g->status set. */
static wn_err wn_eval_learn_group(wn_eval *ev, wn_eval_group *g, size_t gi) {
  wn_err err = WN_OK;
  char *bytes[WN_LEARN_MAX_PAGES];
  size_t len[WN_LEARN_MAX_PAGES];
  const char *names[WN_LEARN_MAX_PAGES];
  wn_eval_page *train[WN_LEARN_MAX_PAGES];
  size_t n_read = 0;
  size_t n_used = 0;
  wn_diag diag;
  snprintf(g->site, sizeof g->site, "g%zu.eval", gi);
  for (size_t k = 0; k < g->n; k++) {
    wn_eval_page *pg = &ev->pages[g->first + k];
    if (!pg->is_train)
      continue;
    if (n_used == WN_LEARN_MAX_PAGES) {
      fprintf(stderr, "winnow-eval: group %s: more than %u train pages; %s and later unused\n",
              g->name, WN_LEARN_MAX_PAGES, pg->id);
      break;
    }
    n_used++;
    wn_diag_clear(&diag);
    wn_err e = wn_eval_read(ev, pg, "html", "html", &bytes[n_read], &len[n_read], &diag);
    if (e) {
      wn_eval_fail(pg, "train page read", wn_diag_message(&diag, e));
      ev->n_train_failed++;
      continue;
    }
    g->sample_bytes += len[n_read];
    g->sample_pages_read++;
    names[n_read] = pg->id;
    train[n_read] = pg;
    n_read++;
  }
  wn_learn_options lopts;
  wn_learn_options_init(&lopts);
  if (ev->opts.min_count)
    lopts.min_count = ev->opts.min_count;
  /* Learned with the selector, as `winnow learn --selector` does; detection
   * then uses the site's (WN_SELECT_SITE), the path a daemon takes. */
  lopts.selector = ev->opts.selector;
  lopts.algo = ev->opts.algo;
  /* force: the corpus's train split is the sample, as the protocol says.
   * Without it the share check leaves pages out in 5 of the 40 CTF groups:
   * the F1 at threshold 0 stays, but confidences move and with them the
   * --sweep figures (e.g. CPE at 0.30: 0.9579 -> 0.9611). */
  lopts.force = 1;
  size_t n_learn = n_read;
  for (;;) {
    if (n_learn < 2) {
      snprintf(g->status, sizeof g->status,
               "learning needs at least 2 train pages (%zu of %zu listed usable)", n_learn,
               g->n_train);
      break;
    }
    wn_learned *l = NULL;
    wn_diag_clear(&diag);
    wn_err e = wn_site_learn_pages(g->site, names, (const char *const *)bytes, len, n_learn,
                                   &lopts, &l, &diag);
    if (e == WN_ENOMEM) {
      wn_learned_free(l);
      err = e;
      break;
    }
    if (!e) {
      g->learned = l;
      wn_learn_summary ls;
      wn_learned_summary_get(l, &ls);
      ev->opts.learn_ms += ls.compute_ms;
      break;
    }
    /* A page the library could not parse stops learning before any page
     * is used: report it, leave it out and learn from the rest. */
    size_t bad = n_learn;
    wn_learn_summary sum;
    if (l) {
      wn_learned_summary_get(l, &sum);
      for (size_t i = 0; sum.n_used == 0 && i < sum.n_pages && i < n_learn; i++)
        if (wn_learned_page(l, i)->err != WN_OK) {
          bad = i;
          break;
        }
    }
    if (bad < n_learn) {
      const wn_learn_page *lp = wn_learned_page(l, bad);
      wn_eval_fail(train[bad], "train page parse",
                   lp->message && lp->message[0] ? lp->message : wn_strerror(lp->err));
      ev->n_train_failed++;
      free(bytes[bad]);
      for (size_t i = bad; i + 1 < n_learn; i++) {
        bytes[i] = bytes[i + 1];
        len[i] = len[i + 1];
        names[i] = names[i + 1];
        train[i] = train[i + 1];
      }
      n_learn--;
      n_read--;
      wn_learned_free(l);
      continue;
    }
    snprintf(g->status, sizeof g->status, "learn: %s", wn_diag_message(&diag, e));
    wn_learned_free(l);
    break;
  }
  g->n_train_parsed = n_learn;
  if (g->learned) {
    wn_learn_summary sum;
    wn_learned_summary_get(g->learned, &sum);
    g->tpl_nodes = sum.template_nodes;
    g->tpl_bytes = sum.template_bytes;
  } else if (!err) {
    fprintf(stderr, "winnow-eval: group %s: no template: %s\n", g->name, g->status);
  }
  for (size_t k = 0; k < n_read; k++)
    free(bytes[k]);
  return err;
}

/* Reads a page's html (kept on the page for the timing loops) and gold. 0
 * when all went well; otherwise the page is marked failed (it scores 0). */
static int wn_eval_prepare(wn_eval *ev, wn_eval_page *pg, char **gold, size_t *gold_len) {
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

/* Detects one test page with the group's detectors and scores it: pol
 * applies --min-confidence and --fallback; tpl (only with a min-confidence
 * above 0) the template alone. With a threshold or --sweep both
 * the template's and the fallback's results are scored, whichever the
 * policy picked. Returns nonzero only for out of memory in the scorer
 * itself (the run cannot go on). */
static wn_err wn_eval_test_page(wn_eval *ev, const wn_eval_group *g, wn_detector *pol,
                                wn_detector *tpl, wn_eval_page *pg) {
  wn_err err = WN_OK;
  char *gold = NULL;
  size_t gold_len = 0;
  int ok = 0;

  if (wn_eval_prepare(ev, pg, &gold, &gold_len))
    goto out;
  if (!pol) {
    wn_eval_fail(pg, "detect", "no detector");
    goto out;
  }
  wn_detect_fallback reason = WN_FALLBACK_NONE;
  err = wn_eval_detect_score(pol, g->site, pg, "detect", gold, gold_len, &pg->score,
                             &pg->confidence, &reason, &ok);
  if (!ok)
    goto out;
  pg->fell_back = reason != WN_FALLBACK_NONE;
  if (pg->fell_back)
    pg->single_score = pg->score;
  if (!pg->fell_back || !g->learned)
    pg->tpl_score = pg->score; /* no template: served so at any threshold */
  if (ev->opts.min_confidence > 0 || ev->opts.sweep) {
    /* The result the policy did not pick, so that any threshold can be
     * applied afterwards: the fallback (a page with no site goes to the
     * single-page method), or the template alone (min_confidence 0). */
    if (pg->fell_back)
      err = tpl ? wn_eval_detect_score(tpl, g->site, pg, "detect", gold, gold_len,
                                       &pg->tpl_score, NULL, NULL, &ok)
                : WN_OK;
    else
      err = wn_eval_detect_score(pol, NULL, pg, "fallback", gold, gold_len, &pg->single_score,
                                 NULL, NULL, &ok);
    if (!ok)
      goto out;
    pg->have_single = 1;
  }
out:
  free(gold);
  return err;
}

/* ---- throughput ------------------------------------------------------------ */

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

static void wn_eval_time_parse(wn_eval *ev) {
  wn_tool_time_passes(ev->n_pages, ev->opts.repeat, wn_eval_parse_page, ev, &ev->parse_time);
}

/* (b) winnow's whole per-page cost through the public API: one
 * wn_detector_detect (parse to the compact tree, detect, render the text)
 * and freeing its result, timed page by page; setting a group's detector
 * up (wn_detector_use, once per site in a real run) and file reading are
 * left out. In template mode the test pages of groups with a template,
 * detected by the policy (--min-confidence, --fallback); in single-page
 * mode every page, by the method (a page with no site). */
static wn_err wn_eval_time_detect(wn_eval *ev) {
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

/* ---- report ---------------------------------------------------------------- */

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

static void wn_eval_print_page(const wn_eval_page *pg) {
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
static json_t *wn_eval_json_page(const wn_eval_page *pg, int *bad) {
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

/* ---- single-page mode ------------------------------------------------------ */

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

static void wn_eval_single_print_text(const wn_eval *ev) {
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

static int wn_eval_single_print_json(const wn_eval *ev) {
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
static void wn_eval_add_page(wn_eval_group *g, const wn_eval_page *pg) {
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
static void wn_eval_add_group(wn_eval *ev, const wn_eval_group *g) {
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

static int wn_eval_run_single(wn_eval *ev) {
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

/* ---- scoring an output (--score-jsonl) ---------------------------------------- */

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
static int wn_eval_run_scored(wn_eval *ev) {
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

/* ---- selftest -------------------------------------------------------------- */

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

static int wn_eval_selftest(const char *corpus) {
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

/* ---- main ------------------------------------------------------------------ */

static void wn_eval_usage(FILE *f) {
  fprintf(f,
          "usage: winnow-eval [--algo etdm|fastce] [--min-count N] [--selector cues|places|region|paper]\n"
          "                   [--per-page] [--json]\n"
          "                   [--min-confidence X] [--fallback cnr|danag] [--sweep]\n"
          "                   [--fold A|B] [--train N] [--repeat N] CORPUS_DIR\n"
          "       winnow-eval --method cnr|danag [--steps paper|default|N] [--per-page]\n"
          "                   [--fold A|B] [--train N] [--json] [--repeat N] CORPUS_DIR\n"
          "       winnow-eval --score-jsonl OUTPUT.jsonl [--per-page] [--fold A|B] [--json] CORPUS_DIR\n"
          "       winnow-eval --selftest [CORPUS_DIR]\n"
          "\n"
          "CORPUS_DIR holds pages.tsv (group, id, split), html/<group>/<id>.html and\n"
          "gold/<group>/<id>.txt (see ../shared/corpus/README.md); optionally urls.tsv\n"
          "(group, id, url: each page is sent with its URL) and snippets.tsv (group, id,\n"
          "with|without, snippet: the snippet rates), as tools/layout-corpora.py writes\n"
          "WCXB. Reported too: empty outputs, outputs repeating a line of 80+ bytes the\n"
          "gold holds once, and, when groups are page types, page_type against them.\n"
          "  --algo A        how each group is learned: etdm (default) or fastce\n"
          "  --min-count N   sample pages a node must occur in to be template (0: default)\n"
          "  --selector S    the selector each group's template is learned with:\n"
          "                  places (default), cues, region, or paper (Algorithms 2 to 5 as stated)\n"
          "  --per-page      one line per test page: group id P R F1 words_out words_gold confidence\n"
          "                  (with --sweep or --min-confidence also both methods' F1;\n"
          "                  repeats_a_gold_line marks an output repeating a line the gold\n"
          "                  holds once, repeats_a_line one the gold holds not at all)\n"
          "  --fold F        A or B: only the pages of one half of the sites (a group's\n"
          "                  name less a trailing -YEAR; sorted sites alternate A, B, A...)\n"
          "  --train N       each group's first N pages (sorted by id) are its sample and\n"
          "                  the rest its test pages, instead of pages.tsv's split column\n"
          "                  (2 to %u; with --method the same pages are scored as test)\n"
          "  --json          one JSON object with all the figures\n"
          "  --score-jsonl F score the output F of winnow detect --jsonl or --warc instead of\n"
          "                  detecting: each line's \"id\" names its page, as \"group/id\" or as\n"
          "                  {\"url\": \"http://group/id.html\"} (make-warc's URLs)\n"
          "  --repeat N      timing loops run N times, the best counts (default 3)\n"
          "  --min-confidence X  the detection policy: a test page whose match\n"
          "                  confidence is below X is served by the fallback (default\n"
          "                  0.25, as winnow detect runs; 0: the template serves every page)\n"
          "  --fallback M    the policy's single-page method, cnr or danag (default danag)\n"
          "  --sweep         also the policy's F1 at thresholds 0, 0.05, ..., 1\n"
          "  --method M      a single-page method, cnr or danag, on every page (train\n"
          "                  and test) instead of the template method; figures over all\n"
          "                  pages and over the test pages\n"
          "  --steps S       the method's added steps (ablation): paper (none), default,\n"
          "                  or a bit mask of WN_SINGLE_STEP_* (src/detect/steps.h)\n"
          "  --selftest      check the tokeniser and scorer (and, given a corpus, that\n"
          "                  every gold file scores 1 against itself and 0 against nothing)\n",
          WN_LEARN_MAX_PAGES);
}

static int wn_eval_parse_args(int argc, char **argv, wn_eval_opts *o) {
  memset(o, 0, sizeof *o);
  o->selector = WN_SELECT_PLACES;
  o->repeat = 3;
  o->fallback = WN_SINGLE_DANAG;
  uint32_t steps = 0;
  int steps_given = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    uint32_t v = 0;
    if (strcmp(a, "--min-count") == 0) {
      if (i + 1 >= argc || wn_parse_u32(argv[++i], 0, 255, &v)) {
        fprintf(stderr, "winnow-eval: --min-count needs a number from 0 to 255\n");
        return 2;
      }
      o->min_count = (uint32_t)v;
    } else if (strcmp(a, "--algo") == 0) {
      if (i + 1 >= argc || wn_learn_algo_parse(argv[++i], &o->algo) != 0) {
        fprintf(stderr, "winnow-eval: --algo needs etdm or fastce\n");
        return 2;
      }
    } else if (strcmp(a, "--selector") == 0) {
      if (i + 1 >= argc) {
        fprintf(stderr, "winnow-eval: --selector needs cues, places, region or paper\n");
        return 2;
      }
      const char *s = argv[++i];
      if (wn_detect_selector_parse(s, &o->selector) != 0 || o->selector == WN_SELECT_SITE) {
        fprintf(stderr,
                "winnow-eval: --selector: unknown selector \"%s\" (cues, places, region or paper)\n", s);
        return 2;
      }
    } else if (strcmp(a, "--repeat") == 0) {
      if (i + 1 >= argc || wn_parse_u32(argv[++i], 0, WN_EVAL_MAX_REPEAT, &v) || v == 0) {
        fprintf(stderr, "winnow-eval: --repeat needs a number from 1 to %u\n", WN_EVAL_MAX_REPEAT);
        return 2;
      }
      o->repeat = (unsigned)v;
    } else if (strcmp(a, "--method") == 0) {
      if (i + 1 >= argc || wn_single_method_parse(argv[++i], &o->method) != 0) {
        fprintf(stderr, "winnow-eval: --method needs cnr or danag\n");
        return 2;
      }
      o->single = 1;
    } else if (strcmp(a, "--steps") == 0) {
      if (i + 1 >= argc) {
        fprintf(stderr, "winnow-eval: --steps needs paper, default or a number\n");
        return 2;
      }
      const char *s = argv[++i];
      if (strcmp(s, "paper") == 0) {
        steps = 0; /* the paper's method as stated: no added step */
      } else if (strcmp(s, "default") == 0) {
        steps_given = 0;
        continue;
      } else if (wn_parse_u32(s, 0, WN_SINGLE_STEPS_ALL, &v)) {
        fprintf(stderr, "winnow-eval: --steps needs paper, default or a number up to 4095\n");
        return 2;
      } else {
        steps = (uint32_t)v;
      }
      steps_given = 1;
    } else if (strcmp(a, "--min-confidence") == 0) {
      char *end = NULL;
      double x = i + 1 < argc ? strtod(argv[++i], &end) : -1.0;
      if (!end || end == argv[i] || *end != '\0' || !(x >= 0.0 && x <= 1.0)) {
        fprintf(stderr, "winnow-eval: --min-confidence needs a number from 0 to 1\n");
        return 2;
      }
      o->min_confidence = x;
      o->min_confidence_given = 1;
    } else if (strcmp(a, "--fallback") == 0) {
      if (i + 1 >= argc || wn_single_method_parse(argv[++i], &o->fallback) != 0) {
        fprintf(stderr, "winnow-eval: --fallback needs cnr or danag\n");
        return 2;
      }
    } else if (strcmp(a, "--sweep") == 0) {
      o->sweep = 1;
    } else if (strcmp(a, "--score-jsonl") == 0) {
      if (i + 1 >= argc) {
        fprintf(stderr, "winnow-eval: --score-jsonl needs a file of winnow's JSON lines\n");
        return 2;
      }
      o->scored = argv[++i];
    } else if (strcmp(a, "--fold") == 0) {
      const char *f = i + 1 < argc ? argv[++i] : "";
      if (strcmp(f, "A") != 0 && strcmp(f, "B") != 0) {
        fprintf(stderr, "winnow-eval: --fold needs A or B\n");
        return 2;
      }
      o->fold = f[0];
    } else if (strcmp(a, "--train") == 0) {
      if (i + 1 >= argc || wn_parse_u32(argv[++i], 2, WN_LEARN_MAX_PAGES, &v)) {
        fprintf(stderr, "winnow-eval: --train needs a number from 2 to %u\n", WN_LEARN_MAX_PAGES);
        return 2;
      }
      o->train_n = v;
    } else if (strcmp(a, "--per-page") == 0) {
      o->per_page = 1;
    } else if (strcmp(a, "--json") == 0) {
      o->json = 1;
    } else if (strcmp(a, "--selftest") == 0) {
      o->selftest = 1;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      wn_eval_usage(stdout);
      return 1;
    } else if (a[0] == '-' && a[1] != '\0') {
      fprintf(stderr, "winnow-eval: unknown option %s\n", a);
      wn_eval_usage(stderr);
      return 2;
    } else if (o->corpus) {
      fprintf(stderr, "winnow-eval: one corpus directory only (got %s and %s)\n", o->corpus, a);
      return 2;
    } else {
      o->corpus = a;
    }
  }
  if (!o->corpus && !o->selftest) {
    wn_eval_usage(stderr);
    return 2;
  }
  if (o->single && (o->min_confidence_given || o->sweep)) {
    fprintf(stderr, "winnow-eval: --min-confidence and --sweep go with the template method\n");
    return 2;
  }
  /* The default policy is the one users get (winnow detect, the daemon):
   * a page that fits its template too badly goes to the fallback. */
  if (!o->single && !o->min_confidence_given)
    o->min_confidence = WN_DETECT_DEFAULT_MIN_CONFIDENCE;
  if (steps_given && !o->single) {
    fprintf(stderr, "winnow-eval: --steps goes with --method\n");
    return 2;
  }
  o->steps = steps_given ? WN_SINGLE_STEPS_SET | steps : WN_SINGLE_STEPS_DEFAULT;
  return 0;
}

static int wn_eval_check_dir(const char *dir) {
  struct stat st;
  if (stat(dir, &st) != 0) {
    fprintf(stderr, "winnow-eval: corpus directory %s: %s\n", dir, strerror(errno));
    return 1;
  }
  if (!S_ISDIR(st.st_mode)) {
    fprintf(stderr, "winnow-eval: %s is not a directory\n", dir);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  int rc = 1;
  wn_eval ev;
  memset(&ev, 0, sizeof ev);
  int a = wn_eval_parse_args(argc, argv, &ev.opts);
  if (a)
    return a == 1 ? 0 : 2;
  /* The tokeniser needs a UTF-8 LC_CTYPE that classifies all of Unicode;
   * glibc's C.UTF-8 does, and keeps "." as the decimal point. */
  if (!setlocale(LC_ALL, "C.UTF-8") && !setlocale(LC_ALL, "C.utf8")) {
    fprintf(stderr, "winnow-eval: the C.UTF-8 locale is not available\n");
    return 1;
  }
  if (ev.opts.corpus && wn_eval_check_dir(ev.opts.corpus))
    return 1;
  if (ev.opts.selftest)
    return wn_eval_selftest(ev.opts.corpus);

  wn_err ierr = wn_init();
  if (ierr) {
    fprintf(stderr, "winnow-eval: %s\n", wn_strerror(ierr));
    return 1;
  }
  wn_detector *pol = NULL, *tpl = NULL;
  if (wn_eval_load_index(&ev) || wn_eval_load_extras(&ev))
    goto out;
  if (ev.opts.scored) {
    if (wn_eval_run_scored(&ev))
      goto out;
    rc = fflush(stdout) == 0 ? 0 : 1;
    goto out;
  }
  if (ev.opts.single) {
    if (wn_eval_run_single(&ev))
      goto out;
    if (fflush(stdout) != 0) {
      fprintf(stderr, "winnow-eval: cannot write the report: %s\n", strerror(errno));
      goto out;
    }
    rc = 0;
    goto out;
  }
  for (size_t gi = 0; gi < ev.n_groups; gi++) {
    wn_eval_group *g = &ev.groups[gi];
    if (wn_eval_learn_group(&ev, g, gi)) {
      fprintf(stderr, "winnow-eval: out of memory\n");
      goto out;
    }
    {
      /* The policy's detector, and with a threshold the template's alone
       * (min_confidence 0) for the pages the policy sends to the fallback.
       * A group that learned no template is served as winnow detect serves
       * a site without one: by the fallback ("no template"). */
      wn_diag diag;
      wn_diag_clear(&diag);
      wn_err e = wn_eval_detector(ev.opts.min_confidence, ev.opts.fallback,
                                  WN_SINGLE_STEPS_DEFAULT, g->learned, &pol, &diag);
      if (!e && g->learned && ev.opts.min_confidence > 0)
        e = wn_eval_detector(0.0, ev.opts.fallback, WN_SINGLE_STEPS_DEFAULT, g->learned, &tpl,
                             &diag);
      if (e) {
        fprintf(stderr, "winnow-eval: group %s: detector: %s\n", g->name,
                wn_diag_message(&diag, e));
        goto out;
      }
    }
    for (size_t k = 0; k < g->n; k++) {
      wn_eval_page *pg = &ev.pages[g->first + k];
      if (pg->is_train)
        continue;
      if (wn_eval_test_page(&ev, g, pol, tpl, pg)) {
        fprintf(stderr, "winnow-eval: out of memory\n");
        goto out;
      }
      g->sum_p += pg->score.precision;
      g->sum_r += pg->score.recall;
      g->sum_f1 += pg->score.f1;
      g->sum_conf += pg->confidence;
      g->n_failed += (size_t)pg->failed;
      ev.n_fell_back += (size_t)pg->fell_back;
    }
    wn_detector_destroy(pol);
    wn_detector_destroy(tpl);
    pol = tpl = NULL;
    ev.n_test += g->n_test;
    ev.n_failed += g->n_failed;
    ev.sum_p += g->sum_p;
    ev.sum_r += g->sum_r;
    ev.sum_f1 += g->sum_f1;
  }
  wn_eval_time_parse(&ev);
  if (wn_eval_time_detect(&ev))
    goto out;

  wn_eval_summary s;
  if (wn_eval_summarise(&ev, &s)) {
    fprintf(stderr, "winnow-eval: out of memory\n");
    goto out;
  }
  if (ev.opts.json) {
    if (wn_eval_print_json(&ev, &s))
      goto out;
  } else {
    wn_eval_print_text(&ev, &s);
  }
  if (fflush(stdout) != 0) {
    fprintf(stderr, "winnow-eval: cannot write the report: %s\n", strerror(errno));
    goto out;
  }
  rc = 0;
out:
  wn_detector_destroy(pol);
  wn_detector_destroy(tpl);
  for (size_t i = 0; i < ev.n_groups; i++)
    wn_learned_free(ev.groups[i].learned);
  for (size_t i = 0; i < ev.n_pages; i++)
    free(ev.pages[i].html);
  free(ev.groups);
  free(ev.pages);
  free(ev.index);
  free(ev.urls);
  free(ev.snips);
  free(ev.snip);
  wn_cleanup();
  return rc;
}
