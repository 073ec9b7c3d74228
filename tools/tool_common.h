/*
 * tools/tool_common.h: what the measuring tools (winnow-bench, winnow-eval,
 * winnow-snippets) share: the bare libxml2 parse that is their speed floor,
 * and the best-of-N timing loop over a corpus held in memory.
 *
 * Not part of libwinnow: tools/tool_common.c is linked into each tool.
 */
#ifndef WN_TOOL_COMMON_H
#define WN_TOOL_COMMON_H

#include <jansson.h>

#include <stddef.h>

#include <libxml/HTMLparser.h>

/* The options src/dom/dom.c gives libxml2's HTML parser, less
 * HTML_PARSE_IGNORE_ENC: dom.c hands libxml2 bytes it has already decoded
 * to UTF-8, the bare parse hands it the page's own bytes and lets it find
 * their encoding (a <meta charset> switches it), which is the floor's
 * share of the work winnow's decoding does. */
#define WN_TOOL_BARE_PARSE_OPTIONS                                                               \
  (HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_NONET |           \
   HTML_PARSE_COMPACT)

/* Parses len bytes with libxml2 alone (WN_TOOL_BARE_PARSE_OPTIONS: no
 * decoding of ours, no compact tree, no detection) and frees the tree.
 * 0, or -1 when libxml2 built no tree or len is past what it takes
 * (INT_MAX). Needs wn_init() (or xmlInitParser()) first. */
int wn_tool_parse_bare(const char *bytes, size_t len);

/* One timed figure: the pages and bytes of one pass, and the seconds of
 * the fastest pass. */
typedef struct wn_tool_timing {
  size_t pages;
  size_t bytes;
  double best_seconds;
} wn_tool_timing;

/* Handles page i of a pass: 1 and *bytes (its size, for MB/s) when the
 * page counts, 0 when it is left out of the figure. */
typedef int (*wn_tool_page_fn)(void *ctx, size_t i, size_t *bytes);

/* Runs fn over pages 0 .. n_pages - 1, repeat times (at least once), each
 * pass timed on the monotonic clock; the fastest pass counts, so that
 * other load on the machine weighs as little as it can. */
void wn_tool_time_passes(size_t n_pages, unsigned repeat, wn_tool_page_fn fn, void *ctx,
                         wn_tool_timing *out);

/* amount / seconds, 0 when no time passed. */
double wn_tool_rate(double amount, double seconds);

/* JSON reports (jansson): a value set or appended, *bad set when it could
 * not be (out of memory), so a report is built without a check per line
 * and refused whole at the end. */
void wn_tool_jset(json_t *obj, const char *key, json_t *val, int *bad);
void wn_tool_jappend(json_t *arr, json_t *val, int *bad);
json_t *wn_tool_jsize(size_t v);
/* A timing as {"pages", "bytes", "best_seconds", "pages_per_second",
 * "mb_per_second"}. */
json_t *wn_tool_json_timing(const wn_tool_timing *t, int *bad);
/* Writes root (2-space indent, 6 significant digits) and a newline to
 * stdout and frees it: 0, or 1 after a message naming prog (bad set, or
 * the write failed). */
int wn_tool_json_emit(const char *prog, json_t *root, int bad);

/* 1 when s may name a file of a corpus (a group, a page id): 1 to max
 * bytes, no separator ('/', '\\'), no control character, no leading '.'
 * (so neither "." nor ".." nor a hidden file); else 0. */
int wn_tool_name_ok(const char *s, size_t max);

/* Reads the corpus file CORPUS/NAME (at most max bytes) into *bytes
 * (free()), its length in *len, and writes its path to path (path_size
 * bytes) for the caller's later messages. 0; or 1 after a message that
 * begins "PROG: " and names the file (a path too long, a file missing,
 * unreadable, over max, or holding a NUL byte: the index files are text). */
int wn_tool_corpus_read(const char *prog, const char *corpus, const char *name, size_t max,
                        char *path, size_t path_size, char **bytes, size_t *len);

#endif /* WN_TOOL_COMMON_H */
