/*
 * winnow-bench: throughput of detection against a bare libxml2 parse, on
 * the pages of a corpus laid out by scripts/eval.sh:
 *
 *   CORPUS_DIR/pages.tsv               group, id, split (train | test)
 *   CORPUS_DIR/html/<group>/<id>.html  the page bytes
 *
 * Each group is a site: its template is learned in memory from its train
 * pages (wn_site_learn_pages, every train page kept, as winnow-eval does)
 * and handed to every detector with wn_detector_use; no store is opened.
 * Then, for 1 .. cores threads, five measurements over all pages of the
 * corpus:
 *
 *   parse     htmlReadMemory + xmlFreeDoc on the page's own bytes, with
 *             the options src/dom uses but IGNORE_ENC (libxml2 alone: no
 *             decoding of ours, no tree of ours, no detection;
 *             tools/tool_common.h, as winnow-eval and winnow-snippets)
 *   template  wn_detector_detect with the page's site (decode, parse,
 *             match, select, render the text)
 *   fallback  wn_detector_detect with no site: the single-page method
 *   markdown  template, rendering Markdown with its front matter (the
 *             page's metadata) instead of the text
 *   metadata  template, the text and the page's metadata
 *   layouts   (--layouts K) template, each site learned, not forced,
 *             from its own train pages and the next K - 1 sites', which
 *             cluster into further layouts of it: the cost of matching a
 *             page against every layout (with --layouts the template mode
 *             learns its own pages not forced too: the same first layout)
 *
 * Threads take pages from one shared counter (each its own wn_detector,
 * as the library asks). Each figure is whole passes over the corpus (every
 * mode sees the same pages), as many as make --seconds of wall time, the
 * modes taking turns pass by pass, so a change in the machine's
 * load weighs on all of them alike. pages/s and MB/s
 * are pages and bytes over wall time; MB/CPU-s is bytes over the CPU time
 * of the measuring threads, the per-thread cost whatever else runs on the
 * machine. Peak memory is the process's maximum resident set (getrusage),
 * the corpus held in memory included.
 *
 * Uses only the public API (winnow/winnow.h), libxml2 for the bare parse
 * (tools/tool_common.c), and POSIX threads.
 */
#include <winnow/winnow.h>

/* wn_parse_u32: the project's one whole-number parser (src/util/util.h;
 * the tools link the static library, which has it). */
#include "util.h" /* src/util: number parsing, the clock */

#include "tool_common.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define WN_BENCH_MAX_INDEX_BYTES ((size_t)16 * 1024 * 1024) /* pages.tsv */
#define WN_BENCH_MAX_PAGES 1000000u
#define WN_BENCH_MAX_THREADS 256u
#define WN_BENCH_SITE_SIZE 64u

typedef struct wn_bench_page {
  char *bytes;
  size_t len;
  size_t group;
  int is_train;
  const char *id; /* into the index buffer */
} wn_bench_page;

typedef struct wn_bench_group {
  const char *name; /* into the index buffer */
  char site[WN_BENCH_SITE_SIZE];
  wn_learned *learned;
  wn_learned *learned_k; /* --layouts K: the site with other sites' pages as layouts */
} wn_bench_group;

typedef enum wn_bench_mode {
  WN_BENCH_PARSE,
  WN_BENCH_TEMPLATE,
  WN_BENCH_FALLBACK,
  WN_BENCH_MARKDOWN,
  WN_BENCH_METADATA,
  WN_BENCH_LAYOUTS,
  WN_BENCH_MODES
} wn_bench_mode;

static const char *const wn_bench_mode_names[] = {"parse",    "template", "fallback",
                                                  "markdown", "metadata", "layouts"};
/* What each detecting mode asks of wn_detector_detect. */
static const unsigned wn_bench_mode_want[] = {0, WN_WANT_TEXT, WN_WANT_TEXT,
                                              WN_WANT_MARKDOWN | WN_WANT_FRONT_MATTER,
                                              WN_WANT_TEXT | WN_WANT_METADATA, WN_WANT_TEXT};

typedef struct wn_bench {
  const char *corpus;
  double seconds;
  unsigned max_threads;
  int only;               /* -1: all modes, else one wn_bench_mode */
  unsigned layouts;       /* --layouts K (0: no layouts mode) */
  char *index;
  wn_bench_page *pages;
  size_t n_pages;
  wn_bench_group *groups;
  size_t n_groups;
  size_t total_bytes;
} wn_bench;

/* One run: a mode, a number of threads, the pages to do. */
typedef struct wn_bench_run {
  const wn_bench *bench;
  wn_bench_mode mode;
  atomic_size_t next;    /* the shared page counter */
  size_t stop;           /* pages to do in the run */
} wn_bench_run;

typedef struct wn_bench_worker {
  wn_bench_run *run;
  wn_detector *detector; /* template and fallback modes */
  size_t pages;
  size_t bytes;
  size_t errors;
  double finished;       /* monotonic seconds */
  double cpu;            /* the thread's CPU seconds */
  pthread_t thread;
} wn_bench_worker;

/* Seconds on the monotonic clock: the project's one clock (wn_clock_ms). */
static double wn_bench_now(void) { return wn_clock_ms() / 1000.0; }

static double wn_bench_thread_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long wn_bench_peak_kib(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0)
    return -1;
  return ru.ru_maxrss; /* KiB on Linux */
}

/* Reads pages.tsv and every page it lists. Messages name the file. */
static int wn_bench_load(wn_bench *b) {
  char path[4096];
  wn_diag diag;
  size_t len = 0;
  if (wn_tool_corpus_read("winnow-bench", b->corpus, "pages.tsv", WN_BENCH_MAX_INDEX_BYTES, path,
                          sizeof path, &b->index, &len))
    return -1;
  size_t lines = 0;
  for (size_t i = 0; i < len; i++)
    lines += b->index[i] == '\n';
  lines++;
  if (lines > WN_BENCH_MAX_PAGES) {
    fprintf(stderr, "winnow-bench: %s: more than %u pages\n", path, WN_BENCH_MAX_PAGES);
    return -1;
  }
  b->pages = calloc(lines, sizeof *b->pages);
  b->groups = calloc(lines, sizeof *b->groups);
  if (!b->pages || !b->groups) {
    fprintf(stderr, "winnow-bench: out of memory\n");
    return -1;
  }
  char *line = b->index;
  size_t line_no = 0;
  while (line && *line) {
    char *end = strchr(line, '\n');
    if (end)
      *end = '\0';
    line_no++;
    size_t l = strlen(line);
    if (l && line[l - 1] == '\r')
      line[l - 1] = '\0';
    char *next = end ? end + 1 : NULL;
    if (line_no == 1 || !*line) {
      line = next;
      continue;
    }
    char *tab1 = strchr(line, '\t');
    char *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
    if (!tab1 || !tab2) {
      fprintf(stderr, "winnow-bench: %s:%zu: expected group<TAB>id<TAB>split\n", path, line_no);
      return -1;
    }
    *tab1 = '\0';
    *tab2 = '\0';
    const char *group = line, *id = tab1 + 1, *split = tab2 + 1;
    size_t g = b->n_groups;
    /* pages.tsv lists a group's pages together; look back for its name. */
    for (size_t k = b->n_groups; k-- > 0;)
      if (strcmp(b->groups[k].name, group) == 0) {
        g = k;
        break;
      }
    if (g == b->n_groups) {
      b->groups[g].name = group;
      snprintf(b->groups[g].site, sizeof b->groups[g].site, "g%zu.bench", g);
      b->n_groups++;
    }
    wn_bench_page *pg = &b->pages[b->n_pages];
    pg->group = g;
    pg->id = id;
    pg->is_train = strcmp(split, "train") == 0;
    int n = snprintf(path, sizeof path, "%s/html/%s/%s.html", b->corpus, group, id);
    if (n < 0 || (size_t)n >= sizeof path) {
      fprintf(stderr, "winnow-bench: page path too long\n");
      return -1;
    }
    wn_diag_clear(&diag);
    wn_err e = wn_file_read(path, WN_PAGE_MAX_BYTES, &pg->bytes, &pg->len, &diag);
    if (e) {
      fprintf(stderr, "winnow-bench: %s (left out)\n", wn_diag_message(&diag, e));
    } else {
      b->total_bytes += pg->len;
      b->n_pages++;
    }
    line = next;
  }
  if (b->n_pages == 0) {
    fprintf(stderr, "winnow-bench: %s lists no readable page\n", b->corpus);
    return -1;
  }
  return 0;
}

/* Learns each group's template from its train pages (all of them, force,
 * as winnow-eval does). A group that cannot be learned is reported; its
 * pages then go to the fallback in the template run too. */
/* Site g learned from the train pages of k sites, g and the next k - 1
 * (names, bytes, lens: scratch of n_pages entries); NULL when it has no
 * template (why on stderr with one site). */
static wn_learned *wn_bench_learn_one(const wn_bench *b, size_t g, size_t k,
                                      const wn_learn_options *lopts, const char **names,
                                      const char **bytes, size_t *lens) {
  size_t n = 0;
  for (size_t j = 0; j < k && j < b->n_groups; j++) {
    size_t h = (g + j) % b->n_groups;
    for (size_t i = 0; i < b->n_pages && n < WN_LEARN_MAX_PAGES; i++)
      if (b->pages[i].group == h && b->pages[i].is_train) {
        names[n] = b->pages[i].id;
        bytes[n] = b->pages[i].bytes;
        lens[n] = b->pages[i].len;
        n++;
      }
  }
  wn_diag diag;
  wn_diag_clear(&diag);
  wn_learned *l = NULL;
  wn_err e = wn_site_learn_pages(b->groups[g].site, names, bytes, lens, n, lopts, &l, &diag);
  if (e) {
    if (k == 1)
      fprintf(stderr, "winnow-bench: group %s: no template: %s\n", b->groups[g].name,
              wn_diag_message(&diag, e));
    wn_learned_free(l);
    return NULL;
  }
  return l;
}

static int wn_bench_learn(wn_bench *b) {
  const char **names = malloc(b->n_pages * sizeof *names);
  const char **bytes = malloc(b->n_pages * sizeof *bytes);
  size_t *lens = malloc(b->n_pages * sizeof *lens);
  int rc = 0;
  if (!names || !bytes || !lens) {
    fprintf(stderr, "winnow-bench: out of memory\n");
    rc = -1;
    goto out;
  }
  /* --layouts K: each site learned again, from its own train pages and
   * those of the next K - 1 sites, not forced, so that the others' pages
   * cluster into layouts of its own; the template mode then learns its
   * own pages not forced either: the same first layout in both. */
  wn_learn_options lopts;
  wn_learn_options_init(&lopts);
  lopts.force = b->layouts < 2;
  for (size_t g = 0; g < b->n_groups; g++) {
    b->groups[g].learned = wn_bench_learn_one(b, g, 1, &lopts, names, bytes, lens);
    if (b->layouts > 1)
      b->groups[g].learned_k = wn_bench_learn_one(b, g, b->layouts, &lopts, names, bytes, lens);
  }
out:
  free(names);
  free(bytes);
  free(lens);
  return rc;
}

static wn_err wn_bench_detector(const wn_bench *b, wn_bench_mode mode, wn_detector **out) {
  wn_detector_options opts;
  wn_detector_options_init(&opts);
  opts.count = 0;
  opts.max_age_ms = 0;
  opts.cache_sites = (uint32_t)(b->n_groups + 1);
  wn_diag diag;
  wn_diag_clear(&diag);
  wn_err e = wn_detector_create(NULL, &opts, out, &diag);
  for (size_t g = 0; !e && g < b->n_groups; g++) {
    wn_learned *l = mode == WN_BENCH_LAYOUTS && b->groups[g].learned_k ? b->groups[g].learned_k
                                                                        : b->groups[g].learned;
    if (l)
      e = wn_detector_use(*out, l, &diag);
  }
  if (e) {
    fprintf(stderr, "winnow-bench: detector: %s\n", wn_diag_message(&diag, e));
    wn_detector_destroy(*out);
    *out = NULL;
  }
  return e;
}

static int wn_bench_one(wn_bench_worker *w, const wn_bench_page *pg, const char *site) {
  if (w->run->mode == WN_BENCH_PARSE)
    return wn_tool_parse_bare(pg->bytes, pg->len);
  wn_page_input in = {.bytes = pg->bytes, .len = pg->len, .site = site};
  wn_page_result *r = NULL;
  wn_err e = wn_detector_detect(w->detector, &in, wn_bench_mode_want[w->run->mode], &r, NULL);
  wn_page_result_free(r);
  return e ? -1 : 0;
}

static void *wn_bench_thread(void *arg) {
  wn_bench_worker *w = arg;
  wn_bench_run *run = w->run;
  const wn_bench *b = run->bench;
  double cpu0 = wn_bench_thread_cpu();
  for (;;) {
    size_t i = atomic_fetch_add(&run->next, 1);
    if (i >= run->stop)
      break;
    i %= b->n_pages;
    const wn_bench_page *pg = &b->pages[i];
    const char *site = NULL;
    if (run->mode != WN_BENCH_FALLBACK && b->groups[pg->group].learned)
      site = b->groups[pg->group].site;
    if (wn_bench_one(w, pg, site))
      w->errors++;
    w->pages++;
    w->bytes += pg->len;
  }
  w->finished = wn_bench_now();
  w->cpu = wn_bench_thread_cpu() - cpu0;
  return NULL;
}

/* What runs of one mode and thread count add up to. */
typedef struct wn_bench_figures {
  double wall;   /* seconds */
  double cpu;    /* CPU seconds of the threads */
  size_t pages;
  size_t bytes;
  size_t errors;
} wn_bench_figures;

/* One pass over all pages, split among the threads; adds to *sum. */
static int wn_bench_measure(const wn_bench *b, wn_bench_mode mode, unsigned threads,
                            wn_bench_figures *sum) {
  wn_bench_worker *workers = calloc(threads, sizeof *workers);
  wn_bench_run run = {.bench = b, .mode = mode};
  int rc = 0;
  unsigned started = 0;
  if (!workers) {
    fprintf(stderr, "winnow-bench: out of memory\n");
    return -1;
  }
  atomic_init(&run.next, 0);
  run.stop = b->n_pages;
  for (unsigned t = 0; t < threads; t++) {
    workers[t].run = &run;
    if (mode != WN_BENCH_PARSE && wn_bench_detector(b, mode, &workers[t].detector)) {
      rc = -1;
      goto out;
    }
  }
  double start = wn_bench_now();
  for (; started < threads; started++) {
    int e = pthread_create(&workers[started].thread, NULL, wn_bench_thread, &workers[started]);
    if (e) {
      fprintf(stderr, "winnow-bench: pthread_create: %s\n", strerror(e));
      atomic_store(&run.next, run.stop); /* the started ones stop */
      rc = -1;
      break;
    }
  }
  double end = start;
  for (unsigned t = 0; t < started; t++) {
    pthread_join(workers[t].thread, NULL);
    if (workers[t].finished > end)
      end = workers[t].finished;
    sum->pages += workers[t].pages;
    sum->bytes += workers[t].bytes;
    sum->errors += workers[t].errors;
    sum->cpu += workers[t].cpu;
  }
  sum->wall += end - start;
out:
  for (unsigned t = 0; t < threads; t++)
    wn_detector_destroy(workers[t].detector);
  free(workers);
  return rc;
}

static void wn_bench_usage(FILE *f) {
  fprintf(f,
          "usage: winnow-bench [--threads N] [--seconds S] CORPUS_DIR\n"
          "  CORPUS_DIR holds pages.tsv (group, id, split) and html/<group>/<id>.html,\n"
          "  as scripts/eval.sh lays them out (e.g. /tmp/winnow-corpora/ctf).\n"
          "  --threads N   measure 1 .. N threads (default: the cores)\n"
          "  --seconds S   least wall time of each measurement (default 2)\n"
          "  --only MODE   measure one mode alone (for a profiler): parse, template,\n"
          "                fallback, markdown, metadata or layouts\n"
          "  --layouts K   also the layouts mode: each site learned with the next K - 1\n"
          "                sites' train pages, which become layouts of it (2 to 8)\n");
}

int main(int argc, char **argv) {
  wn_bench b = {.seconds = 2.0, .only = -1};
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  b.max_threads = cores > 0 ? (unsigned)cores : 1u;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      uint32_t v = 0;
      if (wn_parse_u32(argv[++i], 1, WN_BENCH_MAX_THREADS, &v) != 0) {
        fprintf(stderr, "winnow-bench: --threads takes 1 to %u\n", WN_BENCH_MAX_THREADS);
        return 2;
      }
      b.max_threads = (unsigned)v;
    } else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
      char *end = NULL;
      errno = 0;
      double v = strtod(argv[++i], &end);
      if (errno || !end || *end || !(v > 0) || v > 3600) {
        fprintf(stderr, "winnow-bench: --seconds takes a number above 0 and at most 3600\n");
        return 2;
      }
      b.seconds = v;
    } else if (strcmp(argv[i], "--layouts") == 0 && i + 1 < argc) {
      uint32_t v = 0;
      if (wn_parse_u32(argv[++i], 2, 8, &v) != 0) {
        fprintf(stderr, "winnow-bench: --layouts takes 2 to 8\n");
        return 2;
      }
      b.layouts = v;
    } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      i++;
      for (int m = WN_BENCH_PARSE; m < WN_BENCH_MODES; m++)
        if (strcmp(argv[i], wn_bench_mode_names[m]) == 0)
          b.only = m;
      if (b.only < 0) {
        fprintf(stderr, "winnow-bench: --only takes parse, template, fallback, markdown or metadata\n");
        return 2;
      }
    } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      wn_bench_usage(stdout);
      return 0;
    } else if (argv[i][0] == '-' || b.corpus) {
      wn_bench_usage(stderr);
      return 2;
    } else {
      b.corpus = argv[i];
    }
  }
  if (!b.corpus) {
    wn_bench_usage(stderr);
    return 2;
  }
  if (wn_init()) {
    fprintf(stderr, "winnow-bench: the library did not initialise\n");
    return 1;
  }
  int rc = 1;
  if (wn_bench_load(&b) || wn_bench_learn(&b))
    goto out;
  size_t learned = 0;
  for (size_t g = 0; g < b.n_groups; g++)
    learned += b.groups[g].learned != NULL;
  printf("winnow-bench %s: %s\n", wn_version(), b.corpus);
  printf("%zu pages, %.1f MB, %zu sites (%zu with a template); %u core%s; "
         "each figure at least %.1f s\n",
         b.n_pages, (double)b.total_bytes / 1e6, b.n_groups, learned, (unsigned)cores,
         cores == 1 ? "" : "s", b.seconds);
  if (b.layouts > 1) {
    size_t sites = 0, layouts = 0;
    for (size_t g = 0; g < b.n_groups; g++)
      if (b.groups[g].learned_k) {
        sites++;
        layouts += wn_learned_layouts(b.groups[g].learned_k);
      }
    printf("layouts mode: %zu sites, %.2f layouts each on average (%u asked)\n", sites,
           sites ? (double)layouts / (double)sites : 0.0, b.layouts);
  }
  printf("peak memory after loading and learning: %.1f MB\n\n",
         (double)wn_bench_peak_kib() / 1024.0);
  /* Whole passes over the corpus, so every mode sees the same pages; the
   * modes take turns pass by pass, so that a change in what else runs on
   * the machine weighs on all of them alike. */
  wn_bench_figures fig[WN_BENCH_MAX_THREADS + 1][WN_BENCH_MODES];
  memset(fig, 0, sizeof fig);
  for (unsigned t = 1; t <= b.max_threads; t++)
    for (int more = 1; more;) {
      more = 0;
      for (int m = WN_BENCH_PARSE; m < WN_BENCH_MODES; m++)
        if ((b.only < 0 || b.only == m) && (m != WN_BENCH_LAYOUTS || b.layouts > 1) &&
            fig[t][m].wall < b.seconds) {
          if (wn_bench_measure(&b, (wn_bench_mode)m, t, &fig[t][m]))
            goto out;
          more |= fig[t][m].wall < b.seconds;
        }
    }
  printf("%-9s %7s %9s %8s %9s %12s %9s %6s\n", "mode", "threads", "pages/s", "MB/s",
         "vs parse", "MB/CPU-s", "vs 1 thr", "errors");
  for (int m = WN_BENCH_PARSE; m < WN_BENCH_MODES; m++)
    for (unsigned t = 1; (b.only < 0 || b.only == m) && (m != WN_BENCH_LAYOUTS || b.layouts > 1) &&
                         t <= b.max_threads;
         t++) {
      const wn_bench_figures *f = &fig[t][m], *p = &fig[t][WN_BENCH_PARSE];
      double mbs = f->wall > 0 ? (double)f->bytes / f->wall / 1e6 : 0;
      double parse_mbs = p->wall > 0 ? (double)p->bytes / p->wall / 1e6 : 0;
      double one = fig[1][m].wall > 0 ? (double)fig[1][m].bytes / fig[1][m].wall / 1e6 : 0;
      printf("%-9s %7u %9.1f %8.2f %8.2fx %12.2f %8.2fx %6zu\n", wn_bench_mode_names[m], t,
             f->wall > 0 ? (double)f->pages / f->wall : 0.0, mbs,
             parse_mbs > 0 ? mbs / parse_mbs : 0.0,
             f->cpu > 0 ? (double)f->bytes / f->cpu / 1e6 : 0.0, one > 0 ? mbs / one : 0.0,
             f->errors);
    }
  printf("\npeak memory (max resident set, corpus in memory included): %.1f MB\n",
         (double)wn_bench_peak_kib() / 1024.0);
  rc = 0;
out:
  for (size_t i = 0; i < b.n_pages; i++)
    free(b.pages[i].bytes);
  for (size_t g = 0; g < b.n_groups; g++) {
    wn_learned_free(b.groups[g].learned);
    wn_learned_free(b.groups[g].learned_k);
  }
  free(b.pages);
  free(b.groups);
  free(b.index);
  wn_cleanup();
  return rc;
}
