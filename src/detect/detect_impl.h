/*
 * detect_impl.h: the result type shared by the files of src/detect (the
 * template method in detect.c, the single-page methods in cnr.c and
 * danag.c). Not part of the public interface: callers see the opaque
 * wn_detect_result of detect.h.
 */
#ifndef WN_DETECT_IMPL_H
#define WN_DETECT_IMPL_H

#include <stdint.h>

#include "detect/detect.h"

struct wn_detect_result {
  uint32_t *selected;   /* subtree roots, document order (malloc'd) */
  uint32_t n_selected;
  uint8_t *tmpl;        /* per page node: boilerplate (template or, for a
                           single-page method, not content) */
  uint8_t *keep;        /* per page node: a text node that is main content */
  uint32_t count;       /* page nodes */
  double confidence;    /* template fit; see wn_detect_confidence */
  const char *method;   /* static string */
  wn_detect_fallback fallback; /* set by wn_detect_page */
};

/* A zeroed result for a page of count nodes with tmpl and keep allocated
 * (all 0); NULL when out of memory. */
wn_detect_result *wn_detect_result_alloc(uint32_t count, const char *method);

/* The link-box rule (detect.c), shared by the cue selector and the
 * single-page methods: the largest share of its text that may be link text
 * in a block of this tag holding this many links, past which the block is
 * a list of links and left out. */
double wn_detect_link_limit(uint8_t tag, uint32_t links);

#endif /* WN_DETECT_IMPL_H */
