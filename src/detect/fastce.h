/*
 * detect/fastce.h: the detection phase of FastContentExtractor
 * (../shared/papers/fast-content-extractor.txt, Sec. III, Fig. 5) against
 * a FastCE path template (template/fastce.h). The result is the same
 * wn_detect_result the ETDM path gives (selected subtrees, kept text), so
 * text, HTML, Markdown and JSON output work unchanged.
 */
#ifndef WN_DETECT_FASTCE_H
#define WN_DETECT_FASTCE_H

#include "detect/detect.h"
#include "template/fastce.h"

/* The extraction of Sec. III on one page, no fallback: blocks whose path
 * is in P are extracted, unless similar to a stored non-content block of
 * that path; a block B' inside an extracted block whose path is not in P
 * is left out when none of its sub-blocks has a path in P, else kept with
 * it (the paper's sub-block rules). Confidence: the share of the content
 * paths, weighted by the sample pages that had content there, that the
 * page has. Method "fastce". */
wn_err wn_detect_fastce_run(const wn_dom_page *page, const wn_fastce *fce,
                            wn_detect_result **out, wn_diag *diag);

/* wn_detect_page for a FastCE template: run, then the single-page
 * fallback (opts->fallback) when the confidence is below
 * opts->min_confidence or nothing was extracted. */
wn_err wn_detect_fastce_page(const wn_dom_page *page, const wn_fastce *fce,
                             const wn_detect_options *opts, wn_detect_result **out,
                             wn_diag *diag);

#endif /* WN_DETECT_FASTCE_H */
