/*
 * tools/tool_common.c: the bare parse and the timing loop of the measuring
 * tools (tool_common.h).
 */
#include "tool_common.h"

#include <limits.h>

#include <libxml/parser.h>

/* wn_clock_ms: the project's one monotonic clock (src/util/util.h; the
 * tools link the static library, which has it). */
#include "util.h" /* src/util: number parsing, the clock */

int wn_tool_parse_bare(const char *bytes, size_t len) {
  if (len > (size_t)INT_MAX)
    return -1;
  htmlDocPtr doc = htmlReadMemory(bytes, (int)len, NULL, NULL, WN_TOOL_BARE_PARSE_OPTIONS);
  if (!doc)
    return -1;
  xmlFreeDoc(doc);
  return 0;
}

void wn_tool_time_passes(size_t n_pages, unsigned repeat, wn_tool_page_fn fn, void *ctx,
                         wn_tool_timing *out) {
  out->pages = 0;
  out->bytes = 0;
  out->best_seconds = -1.0;
  for (unsigned r = 0; r < repeat || r == 0; r++) {
    size_t pages = 0, bytes = 0;
    double t0 = wn_clock_ms();
    for (size_t i = 0; i < n_pages; i++) {
      size_t page_bytes = 0;
      if (fn(ctx, i, &page_bytes)) {
        pages++;
        bytes += page_bytes;
      }
    }
    double seconds = (wn_clock_ms() - t0) / 1000.0;
    out->pages = pages;
    out->bytes = bytes;
    if (out->best_seconds < 0 || seconds < out->best_seconds)
      out->best_seconds = seconds;
  }
}
