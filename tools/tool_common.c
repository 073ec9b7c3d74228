/*
 * tools/tool_common.c: the bare parse and the timing loop of the measuring
 * tools (tool_common.h).
 */
#include "tool_common.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int wn_tool_name_ok(const char *s, size_t max) {
  size_t len = strlen(s);
  if (len == 0 || len > max || s[0] == '.')
    return 0;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c < 0x20 || c == 0x7f || c == '/' || c == '\\')
      return 0;
  }
  return 1;
}

double wn_tool_rate(double amount, double seconds) { return seconds > 0 ? amount / seconds : 0.0; }

void wn_tool_jset(json_t *obj, const char *key, json_t *val, int *bad) {
  if (!obj || !val || json_object_set_new(obj, key, val) != 0)
    *bad = 1;
}

void wn_tool_jappend(json_t *arr, json_t *val, int *bad) {
  if (!arr || !val || json_array_append_new(arr, val) != 0)
    *bad = 1;
}

json_t *wn_tool_jsize(size_t v) { return json_integer((json_int_t)v); }

json_t *wn_tool_json_timing(const wn_tool_timing *t, int *bad) {
  json_t *o = json_object();
  wn_tool_jset(o, "pages", wn_tool_jsize(t->pages), bad);
  wn_tool_jset(o, "bytes", wn_tool_jsize(t->bytes), bad);
  wn_tool_jset(o, "best_seconds", json_real(t->best_seconds), bad);
  wn_tool_jset(o, "pages_per_second", json_real(wn_tool_rate((double)t->pages, t->best_seconds)),
               bad);
  wn_tool_jset(o, "mb_per_second",
               json_real(wn_tool_rate((double)t->bytes / 1e6, t->best_seconds)), bad);
  return o;
}

int wn_tool_json_emit(const char *prog, json_t *root, int bad) {
  int rc = 1;
  if (bad) {
    fprintf(stderr, "%s: out of memory building the JSON report\n", prog);
    goto out;
  }
  if (json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(6)) != 0) {
    fprintf(stderr, "%s: cannot write the JSON report\n", prog);
    goto out;
  }
  printf("\n");
  rc = 0;
out:
  json_decref(root);
  return rc;
}

int wn_tool_corpus_read(const char *prog, const char *corpus, const char *name, size_t max,
                        char *path, size_t path_size, char **bytes, size_t *len) {
  *bytes = NULL;
  *len = 0;
  int n = snprintf(path, path_size, "%s/%s", corpus, name);
  if (n < 0 || (size_t)n >= path_size) {
    fprintf(stderr, "%s: corpus path too long\n", prog);
    return 1;
  }
  wn_diag diag;
  wn_diag_clear(&diag);
  wn_err err = wn_file_read(path, max, bytes, len, &diag);
  if (err) {
    /* wn_file_read's messages name the file; the bare code does not. */
    if (diag.msg[0])
      fprintf(stderr, "%s: %s\n", prog, diag.msg);
    else
      fprintf(stderr, "%s: %s: %s\n", prog, path, wn_strerror(err));
    return 1;
  }
  if (memchr(*bytes, '\0', *len)) {
    fprintf(stderr, "%s: %s: holds a NUL byte\n", prog, path);
    free(*bytes);
    *bytes = NULL;
    *len = 0;
    return 1;
  }
  return 0;
}
