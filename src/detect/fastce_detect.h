/*
 * detect/fastce_detect.h: the detection phase of FastContentExtractor
 * (the FastContentExtractor paper, Sec. III, Fig. 5) against
 * a FastCE path template (template/fastce_template.h). The result is the same
 * wn_detect_result the ETDM path gives (selected subtrees, kept text), so
 * text, HTML, Markdown and JSON output work unchanged.
 */
#ifndef WN_DETECT_FASTCE_DETECT_H
#define WN_DETECT_FASTCE_DETECT_H

#include "detect/detect.h"
#include "template/fastce_template.h"

/* The extraction of Sec. III on one page, no fallback: blocks whose path
 * is in P are extracted, unless similar to a stored non-content block of
 * that path (or, with WN_FASTCE_FLAG_SITE, mostly link text); a block B'
 * inside an extracted block whose path is not in P is left out when none
 * of its sub-blocks has a path in P, else kept with it (the paper's
 * sub-block rules). Confidence: the share of the samples' content text
 * per path (wn_fastce_path_text, each path at most its share) that the
 * page keeps there; for a format 1 template, the share of the content
 * paths, weighted by the sample pages that had content there, that the
 * page has. Method "fastce". */
wn_err wn_detect_fastce_run(const wn_dom_page *page, const wn_fastce *fce,
                            wn_detect_result **out, wn_diag *diag);

/* What the detection phase made of each block of a page, for winnow-dump
 * explain (site/explain.c). */
typedef enum wn_fastce_fate {
  WN_FASTCE_FATE_OUTSIDE = 0, /* not on a content path, in no extracted block */
  WN_FASTCE_FATE_EXTRACTED,   /* on a content path: content */
  WN_FASTCE_FATE_STORED,      /* on a content path, but like a stored
                                 non-content block of it: dropped */
  WN_FASTCE_FATE_LEFT_OUT,    /* inside an extracted block, not on a content
                                 path, no sub-block on one: left out (rule 2) */
  WN_FASTCE_FATE_INCLUDED,    /* inside an extracted block, not on a content
                                 path, a sub-block on one: goes with its
                                 extracted block (rule 3) */
  WN_FASTCE_FATE_LINKS        /* on a content path, own text mostly link
                                 text: left out (site-level link rule) */
} wn_fastce_fate;

typedef struct wn_fastce_trace {
  uint32_t count;       /* page nodes */
  uint32_t n_blocks;
  uint32_t *block_of;   /* per page node: the block whose own content it is */
  uint32_t *node;       /* per block: its element */
  uint32_t *path;       /* per block: its path's index in the template, or WN_DOM_NONE */
  uint32_t *stored;     /* per block: the stored block it is like, or WN_DOM_NONE */
  uint32_t *outer;      /* per block: the nearest enclosing block on a content path */
  uint8_t *fate;        /* per block: a wn_fastce_fate */
  uint32_t paths_found; /* content paths the page has a block on */
} wn_fastce_trace;

/* wn_detect_fastce_run, recording each block's fate into trace (zeroed,
 * or used before and freed; NULL: none). Free with wn_fastce_trace_free. */
wn_err wn_detect_fastce_run_traced(const wn_dom_page *page, const wn_fastce *fce,
                                   wn_fastce_trace *trace, wn_detect_result **out, wn_diag *diag);
void wn_fastce_trace_free(wn_fastce_trace *trace);
/* Starts an ETDM-style trace (detect.h) for the same page, for the views
 * that read one: a text node is a candidate when its block is on a
 * content path or inside an extracted block; nothing is paired. */
wn_err wn_fastce_trace_candidates(const wn_fastce_trace *trace, const wn_dom_page *page,
                                  wn_detect_trace *out);

/* The policy on a FastCE result run (taken over): it serves when its
 * confidence reaches opts' threshold and it selected something, else the
 * single-page method does, with steps (wn_detect_policy, as for ETDM). */
wn_err wn_detect_fastce_policy(const wn_dom_page *page, const wn_detect_options *opts,
                               uint32_t steps, wn_detect_result *run, wn_detect_result **out,
                               wn_diag *diag);
/* wn_detect_page for a FastCE template: run, then the single-page
 * fallback (opts->fallback, with steps) when the confidence is below
 * opts->min_confidence or nothing was extracted. */
wn_err wn_detect_fastce_page(const wn_dom_page *page, const wn_fastce *fce,
                             const wn_detect_options *opts, uint32_t steps,
                             wn_detect_result **out, wn_diag *diag);

#endif /* WN_DETECT_FASTCE_DETECT_H */
