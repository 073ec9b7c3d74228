/*
 * cli: the `winnow` command line, argument parsing and printing over the
 * public library (include/winnow/winnow.h) and nothing else: every step of
 * learning and detection is a libwinnow call. The one private header it
 * takes is util/util.h, for wn_parse_u32 (a front end's job that the
 * daemon's configuration and the tools share; not library API). The exit codes are the
 * library's (WN_EXIT_*, wn_exit_code), a contract scripts rely on (see the
 * comment block at the top of main.c).
 */
#ifndef WN_CLI_H
#define WN_CLI_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <winnow/winnow.h>

#include "util.h" /* src/util: number parsing, the clock */

/* Longest JSONL input line: a page of WN_PAGE_MAX_BYTES plus its JSON
 * escaping (quotes and backslashes double) and the other fields. */
#define WN_CLI_MAX_LINE_BYTES ((size_t)32 * 1024 * 1024)

typedef enum wn_cli_format {
  WN_FORMAT_TEXT = 0,
  WN_FORMAT_HTML,
  WN_FORMAT_JSON,
  WN_FORMAT_MARKDOWN
} wn_cli_format;

/* ---- commands (each returns an exit code) --------------------------------- */

int wn_cli_learn(int argc, char **argv);
int wn_cli_detect(int argc, char **argv);
int wn_cli_sites(int argc, char **argv);
int wn_cli_serve(int argc, char **argv);

/* ---- batch detection (batch.c) ---------------------------------------------
 *
 * Many pages through detection, on one thread or several, results in input
 * order: a reader (the calling thread) takes pages from a source, `threads`
 * workers (each with its own wn_detector, the library's rule) detect them,
 * a writer thread hands each result to a sink in input order. At most
 * `window_pages` pages (and about `window_bytes` of input) are in flight
 * between reading and writing: when the window is full the reader blocks,
 * so memory stays bounded however long the input and however slow the
 * consumer. threads == 1 runs everything on the calling thread, one page
 * at a time (read, detect, write), as the stream always did.
 *
 * Adding a source (a WARC reader, say): write its next() (reader thread:
 * read one page's bytes into raw, name it; set read_err and diag for a
 * page that cannot be read, it still gets its place in the output), its
 * prepare() (a worker: turn raw into page->in, e.g. parse the record's
 * HTTP headers; may keep state in page->prepared for release() to free),
 * fill a wn_batch_source and call wn_cli_batch_run with a sink. The
 * sources: JSONL lines (detect_stream.c), files and directories
 * (detect_files.c), WARC records (detect_warc.c). Sinks: JSONL on stdout,
 * one file per page, a WARC or WET of the results. */

/* The memory a --learn run holds its read-ahead pages in (hold.c): huge-
 * page blocks, reused. wn_cli_hold_create returns NULL where there is no
 * pool (under AddressSanitizer); wn_cli_hold_alloc returns NULL when the
 * pool has no room (use malloc then). Thread-safe. */
typedef struct wn_cli_hold wn_cli_hold;
wn_cli_hold *wn_cli_hold_create(void);
void *wn_cli_hold_alloc(wn_cli_hold *h, size_t n);
void wn_cli_hold_free(wn_cli_hold *h, void *p);
void wn_cli_hold_destroy(wn_cli_hold *h);

typedef struct wn_batch_page {
  /* The source's next() fills these (reader thread). */
  char *raw;            /* what the source read (malloc'd, or from hold: freed by the
                           pipeline): the page's bytes, or the source's own record
                           (detect_warc.c: a wn_warc_page in one block) that its
                           prepare() reads */
  size_t raw_len;
  wn_cli_hold *hold;    /* raw came from this pool, not malloc; or NULL */
  char *name;           /* the page's name in messages (a path), or NULL (malloc'd) */
  char *out_name;       /* its output path relative to an output directory, or NULL */
  wn_err read_err;      /* WN_OK, or why the page could not be read (diag says more) */
  /* The source's prepare() fills these (a worker). */
  wn_page_input in;     /* may point into raw or into prepared */
  char *id_json;        /* raw JSON put first as "id" in JSON output, or NULL (malloc'd) */
  void *prepared;       /* the source's per-page state, freed by its release() */
  /* The worker fills these. */
  wn_err err;           /* the page's error (read, prepare or detect), or WN_OK */
  wn_diag diag;
  char *out;            /* what the sink writes (malloc'd), NULL if out of memory */
  size_t out_len;
} wn_batch_page;

typedef struct wn_batch_source {
  void *ctx;
  /* 1: a page is in *page; 0: the input is done; -1: the input failed (the
   * source has said why on stderr; pages read before are still written). */
  int (*next)(void *ctx, wn_batch_page *page);
  /* Fills page->in (and id_json); an error is the page's. */
  wn_err (*prepare)(void *ctx, wn_batch_page *page, wn_diag *diag);
  void (*release)(void *ctx, wn_batch_page *page); /* may be NULL */
} wn_batch_source;

typedef struct wn_batch_sink {
  void *ctx;
  unsigned want; /* WN_WANT_* for wn_detector_detect */
  /* A worker: page->out from the result r, or from page->err when r is
   * NULL. Leaves page->out NULL only when out of memory. */
  void (*render)(void *ctx, wn_batch_page *page, const wn_page_result *r);
  /* The writer, in input order: writes page->out. 0, or an exit code that
   * stops the run (the output cannot be written). */
  int (*write)(void *ctx, wn_batch_page *page);
} wn_batch_sink;

/* --learn: sites of the input without a template are learned from their
 * own pages in the input (see batch.c). The reader reads up to
 * hold_bytes of input ahead (a chunk), offering each page to the
 * collector and learning a site as soon as it has its sample; at the end
 * of the chunk the sites with enough pages are learned too; then the
 * chunk goes through detection, its earlier pages included. Files and
 * WARCs that fit in hold_bytes are thus read once and detected with every
 * template their sites can have. */
typedef struct wn_batch_learn {
  wn_collector *collector;
  wn_store *store;           /* written: the templates learned */
  size_t hold_bytes;         /* input held at once (one chunk) */
  /* The sites learned here (sorted, for bsearch in the workers). */
  char **learned;
  size_t n_learned, cap_learned;
  /* Counted by the workers: pages detected with a template learned here,
   * and pages that found no template. */
  _Atomic unsigned long pages_learned_sites, pages_no_template;
  unsigned long sites_save_failed;
  double read_ms, learn_ms; /* the reader's time reading and learning */
} wn_batch_learn;

/* What a run's pages came to (the workers count; read after the run). */
typedef struct wn_batch_counts {
  _Atomic unsigned long detected; /* a result, content or not */
  _Atomic unsigned long empty;    /* of which with no content (wn_page_result_empty) */
  _Atomic unsigned long failed;   /* an error instead */
} wn_batch_counts;

/* "N page(s): D detected (E with no content), F failed" into buf. */
void wn_cli_batch_counts_text(const wn_batch_counts *c, const char *unit, char *buf, size_t size);

/* --timing: where the workers' time went, summed over the pages, in
 * microseconds: preparing the input (a JSON line parsed and its file
 * read, a WARC record's HTTP response split), then the library's phases
 * (wn_page_times), then the output (JSON, text) written into memory. */
typedef struct wn_batch_times {
  _Atomic uint64_t pages;
  _Atomic uint64_t prepare_us, decode_us, parse_us, detect_us, render_us, output_us;
} wn_batch_times;

/* "timing: ..." of t into buf. */
void wn_cli_batch_times_text(const wn_batch_times *t, char *buf, size_t size);

/* The options of `winnow detect` that shape output (cmd_detect.c parses
 * them; every front end reads them): WN_RENDER_* bits (--no-links, ...),
 * and metadata: -1 default (in Markdown's front matter, not in JSON), 1
 * --metadata (JSON too), 0 --no-metadata. */
typedef struct wn_cli_output {
  unsigned extra_want;
  int metadata;
} wn_cli_output;
#define WN_CLI_OUTPUT_DEFAULT ((wn_cli_output){0u, -1})
/* The want bits output adds for a format (output.c); json: the output is
 * JSON, which carries the metadata only when asked. output may be NULL:
 * the defaults. */
unsigned wn_cli_want_extra(const wn_cli_output *output, wn_cli_format format, int json);

typedef struct wn_batch_options {
  unsigned threads;      /* workers; 1: all on the calling thread */
  size_t window_pages;   /* pages in flight at most; 0: 4 * threads */
  size_t window_bytes;   /* input bytes in flight (one page always fits);
                            0: WN_BATCH_WINDOW_BYTES */
  wn_store *store;       /* may be NULL */
  const wn_detector_options *detector;
  wn_batch_learn *learn; /* NULL: no --learn */
  wn_batch_counts *counts; /* NULL: not counted */
  wn_batch_times *times;   /* NULL: not timed */
  const wn_cli_output *output; /* NULL: the defaults */
  uint32_t shard, shards; /* --shard I/N: only the pages of sites in shard I
                             of N (shards 0 or 1: all) */
} wn_batch_options;

/* The shard of a site: its 64-bit FNV-1a hash modulo shards (0 for NULL). */
uint32_t wn_cli_shard_of(const char *site, uint32_t shards);

#define WN_BATCH_MAX_THREADS 256u
#define WN_BATCH_WINDOW_BYTES ((size_t)64 * 1024 * 1024)

/* The number of online cores (at least 1, at most WN_BATCH_MAX_THREADS). */
unsigned wn_cli_batch_cores(void);

/* Runs the pipeline to the end of the source. Returns 0, or the exit code
 * that stopped it: WN_EXIT_INPUT (the input failed), the sink's write
 * code, or that of a detector that cannot be created. Errors of single
 * pages do not stop it: the sink reports them. */
int wn_cli_batch_run(const wn_batch_options *opts, wn_batch_source *source, wn_batch_sink *sink);

/* The learning summary line of a --learn run, on stderr. */
void wn_cli_batch_learn_report(const wn_batch_learn *learn);
void wn_cli_batch_learn_free(wn_batch_learn *learn);

/* Frees what a page owns and zeroes it. */
void wn_cli_batch_page_free(wn_batch_page *page, wn_batch_source *source);

/* The JSONL sink (output.c): a page's result as one line, {"id",
 * the result's fields} or {"id", "error"}; written to stdout, flushed. */
void wn_cli_render_jsonl(void *ctx, wn_batch_page *page, const wn_page_result *r);
int wn_cli_write_line(void *ctx, wn_batch_page *page);

/* The JSONL stream of `winnow detect --jsonl`: reads input ("-" for stdin)
 * line by line, writes one JSON object per line, in order. */
int wn_cli_detect_stream(const wn_batch_options *opts, const char *input, wn_cli_format format);

/* Many pages of files and directories (detect_files.c). */
typedef struct wn_files_options {
  char *const *inputs;    /* files and directories (walked recursively) */
  size_t n_inputs;
  const char *input_list; /* a file of paths, one a line ("-": stdin), or NULL */
  const char *output_dir; /* one output file per page, or NULL: JSONL on stdout */
  int all;                /* walk every file, not only .html/.htm/.xhtml */
  const char *site, *url; /* the pages' site, or neither: the single-page method */
  wn_cli_format format;
} wn_files_options;

/* Returns the exit code: 0 if every page was written, else the most
 * severe of its failures (4 > 3 > 1). */
int wn_cli_detect_files(const wn_batch_options *opts, const wn_files_options *files);

/* WARC files in (detect_warc.c): JSONL on stdout, or a WET-style WARC of
 * conversion records at warc_out. */
int wn_cli_detect_warc(const wn_batch_options *opts, char *const *paths, size_t n_paths,
                       const char *warc_out, wn_cli_format format);

void wn_cli_usage_main(FILE *out);
void wn_cli_usage_learn(FILE *out);
void wn_cli_usage_detect(FILE *out);
void wn_cli_usage_sites(FILE *out);
void wn_cli_usage_serve(FILE *out);

/* ---- shared helpers (common.c) ------------------------------------------- */

/* Prints "winnow: <message>\n" to stderr. */
void wn_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "winnow: <message>" and "winnow: see 'winnow <command> --help'"
 * to stderr (one line of what is wrong, not the whole help); returns
 * WN_EXIT_USAGE. */
int wn_cli_usage_error(const char *command, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prints the error's message and returns its exit code (wn_exit_code). */
int wn_cli_fail(wn_err err, const wn_diag *diag);

/* Whole numbers: wn_parse_u32 (util/util.h), the one parser of the
 * command line, the tools and the daemon's configuration. */

/* Parses a decimal fraction in [0, 1] ("0.5", "1", ".25"). 0 ok, -1 not. */
int wn_cli_parse_share(const char *s, double *out);

/* --map-size MiB: 1 MiB to 1 TiB into bytes. 0 ok, -1 not. */
int wn_cli_parse_map_size(const char *s, size_t *out);

/* Opens the store for a command. read_only: a missing directory is an
 * error (a mistyped --store must not become a new empty store); a store
 * on a read-only file system is opened without its lock, with a note on
 * stderr. Returns an exit code (0 ok). */
int wn_cli_open_store(const char *dir, int read_only, size_t map_size, wn_store **out);

/* Writes len bytes to stdout. Returns 0, or -1 on a write error. */
int wn_cli_write(const void *data, size_t len);

#endif /* WN_CLI_H */
