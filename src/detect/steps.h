/*
 * detect/steps.h: the steps added to the papers' single-page methods, as
 * bits of the steps a detector is given by wn_detector_set_steps (the
 * unstable part of winnow.h, WN_UNSTABLE_API), for the evaluation tools'
 * ablations (winnow-eval --steps, winnow-snippets --steps; the figures of
 * docs/single-page.md and docs/evaluation.md). Not public API: a program
 * never sets steps, and gets the measured default.
 */
#ifndef WN_DETECT_STEPS_H
#define WN_DETECT_STEPS_H

#define WN_SINGLE_STEP_LINKS 0x01u /* drop link boxes inside the block */
#define WN_SINGLE_STEP_MENUS 0x02u /* CNR: the links/nodes menu ratio */
#define WN_SINGLE_STEP_HTML5 0x04u /* <main>/<article> as hints */
#define WN_SINGLE_STEP_TITLE 0x08u /* recover the headline above the block */
#define WN_SINGLE_STEP_SCORE 0x10u /* CNR: top-rated nodes by paragraph text */
#define WN_SINGLE_STEP_BOXES 0x20u /* drop boxes named like comments/nav/footer */
#define WN_SINGLE_STEP_CONTAINER 0x40u /* DANAg: the story's container, past the gap */
#define WN_SINGLE_STEP_RETRY 0x80u /* little prose kept: masks relaxed, the other method, JSON-LD, <p> */
#define WN_SINGLE_STEP_SECOND 0x100u /* a second reading (Readability's scoring), combined by blocks */
#define WN_SINGLE_STEP_AREA 0x200u /* the page's main area or records when the readings kept a part */
/* The leanings and options of wn_detect_options (favor, comments), not
 * in the default set: */
#define WN_SINGLE_STEP_UNION 0x400u /* favor recall: every block the second reading keeps */
#define WN_SINGLE_STEP_COMMENTS 0x800u /* comment threads kept after the content */
#define WN_SINGLE_STEPS_ALL 0xfffu /* every step bit above */
#define WN_SINGLE_STEPS_DEFAULT 0u /* the method's measured default set */
/* An explicit set: WN_SINGLE_STEPS_SET | steps (WN_SINGLE_STEPS_SET alone
 * is the paper's method as stated). */
#define WN_SINGLE_STEPS_SET 0x80000000u

#endif /* WN_DETECT_STEPS_H */
