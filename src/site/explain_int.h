/*
 * site/explain_int.h: the explanation of one page's detection, shared by
 * explain.c (the detection with its trace, and the text view) and
 * explain_html.c (the page itself, painted).
 */
#ifndef WN_SITE_EXPLAIN_INT_H
#define WN_SITE_EXPLAIN_INT_H

#include "detect/fastce_detect.h"
#include "site/site_int.h"

struct wn_explain {
  char site[WN_SITE_MAX + 1];
  char name[1024];           /* the page's URL, or "" */
  uint64_t generation;
  wn_template *tpl;          /* ETDM; NULL for FastCE */
  const wn_template *layout; /* the layout of tpl that served the page */
  wn_template_stats ts;
  wn_fastce *fce;            /* FastCE; NULL for ETDM */
  wn_fastce_trace ftrace;    /* FastCE: each block's fate (run without fallback) */
  wn_dom_page *page;
  wn_detect_result *res;
  wn_detect_trace trace;
  wn_detect_options opts;
  wn_single_method fallback;
  char *bytes;               /* the page, for the HTML view's own parse */
  size_t len;
  char charset[64];
  char path[512];            /* the URL's path, weak evidence of the shape */
};

#endif /* WN_SITE_EXPLAIN_INT_H */
