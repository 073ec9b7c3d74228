/*
 * detect/trace.c: the trace behind the dump tool's `explain`. The steps
 * (labels.c, select_*.c, policy.c) copy what they computed into it when a
 * caller asked for one; this file only owns its memory, so that detection
 * without a trace (every other caller) is unchanged.
 */
#include "detect/detect.h"
#include "detect/detect_int.h"
#include "detect/fastce_detect.h"

#include <stdlib.h>
#include <string.h>

wn_err wn_detect_trace_start(wn_detect_trace *trace, uint32_t count) {
  wn_detect_trace_free(trace);
  const size_t n = (size_t)count + 1;
  trace->count = count;
  trace->tmpl_node = malloc(n * sizeof *trace->tmpl_node);
  trace->cand = calloc(n, 1);
  trace->score = calloc(n, sizeof *trace->score);
  trace->dropped = calloc(n, 1);
  trace->own = calloc(n, 1);
  trace->core = WN_DOM_NONE;
  trace->branch = WN_DOM_NONE;
  trace->place = WN_DOM_NONE;
  if (!trace->tmpl_node || !trace->cand || !trace->score || !trace->dropped || !trace->own) {
    wn_detect_trace_free(trace);
    return WN_ENOMEM;
  }
  for (uint32_t i = 0; i < count; i++)
    trace->tmpl_node[i] = WN_DOM_NONE;
  return WN_OK;
}

void wn_detect_trace_free(wn_detect_trace *trace) {
  if (!trace)
    return;
  free(trace->tmpl_node);
  free(trace->cand);
  free(trace->score);
  free(trace->dropped);
  free(trace->own);
  memset(trace, 0, sizeof *trace);
  trace->core = WN_DOM_NONE;
  trace->branch = WN_DOM_NONE;
  trace->place = WN_DOM_NONE;
}

const uint8_t *wn_detect_keep_flags(const wn_detect_result *result) { return result->keep; }

void wn_fastce_trace_free(wn_fastce_trace *trace) {
  if (!trace)
    return;
  free(trace->block_of);
  free(trace->node);
  free(trace->path);
  free(trace->stored);
  free(trace->outer);
  free(trace->fate);
  memset(trace, 0, sizeof *trace);
}

wn_err wn_fastce_trace_candidates(const wn_fastce_trace *ft, const wn_dom_page *page,
                                  wn_detect_trace *out) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  if (count != ft->count)
    return WN_EINVAL;
  wn_err err = wn_detect_trace_start(out, count);
  if (err)
    return err;
  for (uint32_t i = 0; i < count; i++)
    out->cand[i] = nodes[i].tag == WN_TAG_TEXT && ft->fate[ft->block_of[i]] != WN_FASTCE_FATE_OUTSIDE;
  return WN_OK;
}
