/*
 * tools/tool_common.h: what the measuring tools (winnow-bench, winnow-eval,
 * winnow-snippets) share: the bare libxml2 parse that is their speed floor,
 * and the best-of-N timing loop over a corpus held in memory.
 *
 * Not part of libwinnow: tools/tool_common.c is linked into each tool.
 */
#ifndef WN_TOOL_COMMON_H
#define WN_TOOL_COMMON_H

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

#endif /* WN_TOOL_COMMON_H */
