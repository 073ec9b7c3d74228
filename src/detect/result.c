/*
 * detect/result.c: the result every method fills (detect_int.h), its
 * allocation and the accessors of detect.h.
 */
#include "detect/detect.h"
#include "detect/detect_int.h"

#include <stdlib.h>

wn_detect_result *wn_detect_result_alloc(uint32_t count, const char *method) {
  wn_detect_result *res = calloc(1, sizeof *res);
  if (!res)
    return NULL;
  res->tmpl = calloc(count ? count : 1, 1);
  res->keep = calloc(count ? count : 1, 1);
  if (!res->tmpl || !res->keep) {
    wn_detect_result_free(res);
    return NULL;
  }
  res->count = count;
  res->method = method;
  return res;
}

void wn_detect_result_free(wn_detect_result *result) {
  if (!result)
    return;
  free(result->selected);
  free(result->tmpl);
  free(result->keep);
  free(result->body_text);
  free(result);
}

wn_detect_fallback wn_detect_fallback_reason(const wn_detect_result *result) {
  return result->fallback;
}

double wn_detect_confidence(const wn_detect_result *result) { return result->confidence; }
const char *wn_detect_result_retried(const wn_detect_result *result) { return result->retried; }
const char *wn_detect_result_place(const wn_detect_result *result) { return result->place; }
uint32_t wn_detect_result_layout(const wn_detect_result *result) { return result->layout; }
const char *wn_detect_method(const wn_detect_result *result) { return result->method; }
const uint32_t *wn_detect_selected(const wn_detect_result *result, uint32_t *count) {
  if (count)
    *count = result->n_selected;
  return result->selected;
}
const uint8_t *wn_detect_template_flags(const wn_detect_result *result) { return result->tmpl; }
