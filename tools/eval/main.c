/*
 * winnow-eval: accuracy and throughput of site-level detection on a corpus
 * in the uniform evaluation layout (../shared/corpus/README.md):
 *
 *   CORPUS_DIR/pages.tsv                  group, id, split (train | test)
 *   CORPUS_DIR/html/<group>/<id>.html     the page bytes
 *   CORPUS_DIR/gold/<group>/<id>.txt      the main content, UTF-8 text
 *
 * Per group: the train pages, sorted by id, are the learning sample (the
 * first is the key page; --train N makes the first N pages by id the
 * sample and the rest the test pages, whatever the split column says); a template is learned from them and every test
 * page is detected with it and scored against its gold with the protocol
 * of the corpus README:
 *   - tokens are maximal runs of Unicode letters and digits, lower-cased;
 *   - with the bags (multisets) P of the output and G of the gold,
 *     precision = |P n G| / |P|, recall = |P n G| / |G|, F1 their harmonic
 *     mean; both empty: all 1; one empty: all 0;
 *   - figures are macro means over test pages, per group and per corpus.
 * A group whose sample learns no template (its pages share no layout) is
 * reported on stderr and its test pages are served as winnow detect serves
 * a site without one: by the single-page fallback. A page that cannot be
 * read, parsed or detected scores 0, is counted and is reported on
 * stderr; nothing is skipped silently.
 *
 * The eval is a client of the public API (winnow/winnow.h) only, so it
 * measures what a front end gets: each group is learned with
 * wn_site_learn_pages (force: from exactly its train pages) under a
 * synthetic site name ("g<index>.eval"), served to a store-less
 * wn_detector with wn_detector_use, and every page is detected with
 * wn_detector_detect, the library's own detection policy.
 *
 * Throughput is measured in the same run over the test pages held in
 * memory: a bare libxml2 parse of the raw bytes, and winnow's whole
 * per-page detection cost (wn_detector_detect: parse to compact tree,
 * detect, render text; and freeing the result). Each loop runs --repeat
 * times and the best run counts.
 *
 * With --method cnr|danag, a single-page method instead (no template):
 * every page of the corpus, train and test, is detected and scored; the
 * figures are given over all pages and over the test pages alone (the
 * pages the template method is scored on, for a side-by-side), and the
 * throughput loops run over all pages.
 *
 * The detector's policy, as winnow detect and the daemon run it: a test
 * page whose match confidence is below --min-confidence X (default the
 * library's, 0.25; 0: the template serves every page) is served by the
 * single-page fallback (--fallback); --sweep scores the policy at thresholds 0 to 1 from one run
 * (the template's and the fallback's results are scored on every test
 * page: a second detection per page, with the template alone or with no
 * site, gives the one the policy did not pick).
 *
 * usage: winnow-eval [--min-count N] [--selector cues|places|region|paper] [--per-page]
 *                    [--min-confidence X] [--fallback cnr|danag] [--sweep]
 *                    [--fold A|B] [--train N] [--json] [--repeat N] CORPUS_DIR
 *        winnow-eval --method cnr|danag [--steps paper|default|N] [--per-page]
 *                    [--train N] [--json] [--repeat N] CORPUS_DIR
 *        winnow-eval --selftest [CORPUS_DIR]
 */
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util.h" /* src/util: number parsing */
#include "detect/steps.h" /* the single-page steps an ablation names */
#include "eval.h"

static void wn_eval_usage(FILE *f) {
  fprintf(f,
          "usage: winnow-eval [--algo etdm|fastce] [--min-count N] [--selector cues|places|region|paper]\n"
          "                   [--per-page] [--json]\n"
          "                   [--min-confidence X] [--fallback cnr|danag] [--sweep]\n"
          "                   [--fold A|B] [--train N] [--repeat N] CORPUS_DIR\n"
          "       winnow-eval --method cnr|danag [--steps paper|default|N] [--per-page]\n"
          "                   [--fold A|B] [--train N] [--json] [--repeat N] CORPUS_DIR\n"
          "       winnow-eval --score-jsonl OUTPUT.jsonl [--per-page] [--fold A|B] [--json] CORPUS_DIR\n"
          "       winnow-eval --selftest [CORPUS_DIR]\n"
          "\n"
          "CORPUS_DIR holds pages.tsv (group, id, split), html/<group>/<id>.html and\n"
          "gold/<group>/<id>.txt (see ../shared/corpus/README.md); optionally urls.tsv\n"
          "(group, id, url: each page is sent with its URL) and snippets.tsv (group, id,\n"
          "with|without, snippet: the snippet rates), as tools/layout-corpora.py writes\n"
          "WCXB. Reported too: empty outputs, outputs repeating a line of 80+ bytes the\n"
          "gold holds once, and, when groups are page types, page_type against them.\n"
          "  --algo A        how each group is learned: etdm (default) or fastce\n"
          "  --min-count N   sample pages a node must occur in to be template (0: default)\n"
          "  --selector S    the selector each group's template is learned with:\n"
          "                  places (default), cues, region, or paper (Algorithms 2 to 5 as stated)\n"
          "  --per-page      one line per test page: group id P R F1 words_out words_gold confidence\n"
          "                  (with --sweep or --min-confidence also both methods' F1;\n"
          "                  repeats_a_gold_line marks an output repeating a line the gold\n"
          "                  holds once, repeats_a_line one the gold holds not at all)\n"
          "  --fold F        A or B: only the pages of one half of the sites (a group's\n"
          "                  name less a trailing -YEAR; sorted sites alternate A, B, A...)\n"
          "  --train N       each group's first N pages (sorted by id) are its sample and\n"
          "                  the rest its test pages, instead of pages.tsv's split column\n"
          "                  (2 to %u; with --method the same pages are scored as test)\n"
          "  --json          one JSON object with all the figures\n"
          "  --score-jsonl F score the output F of winnow detect --jsonl or --warc instead of\n"
          "                  detecting: each line's \"id\" names its page, as \"group/id\" or as\n"
          "                  {\"url\": \"http://group/id.html\"} (make-warc's URLs)\n"
          "  --repeat N      timing loops run N times, the best counts (default 3)\n"
          "  --min-confidence X  the detection policy: a test page whose match\n"
          "                  confidence is below X is served by the fallback (default\n"
          "                  0.25, as winnow detect runs; 0: the template serves every page)\n"
          "  --fallback M    the policy's single-page method, cnr or danag (default danag)\n"
          "  --sweep         also the policy's F1 at thresholds 0, 0.05, ..., 1\n"
          "  --method M      a single-page method, cnr or danag, on every page (train\n"
          "                  and test) instead of the template method; figures over all\n"
          "                  pages and over the test pages\n"
          "  --steps S       the method's added steps (ablation): paper (none), default,\n"
          "                  or a bit mask of WN_SINGLE_STEP_* (src/detect/steps.h)\n"
          "  --selftest      check the tokeniser and scorer (and, given a corpus, that\n"
          "                  every gold file scores 1 against itself and 0 against nothing)\n",
          WN_LEARN_MAX_PAGES);
}

static int wn_eval_parse_args(int argc, char **argv, wn_eval_opts *o) {
  memset(o, 0, sizeof *o);
  o->selector = WN_SELECT_PLACES;
  o->repeat = 3;
  o->fallback = WN_SINGLE_DANAG;
  uint32_t steps = 0;
  int steps_given = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    uint32_t v = 0;
    if (strcmp(a, "--min-count") == 0) {
      if (i + 1 >= argc || wn_parse_u32(argv[++i], 0, 255, &v)) {
        fprintf(stderr, "winnow-eval: --min-count needs a number from 0 to 255\n");
        return 2;
      }
      o->min_count = (uint32_t)v;
    } else if (strcmp(a, "--algo") == 0) {
      if (i + 1 >= argc || wn_learn_algo_parse(argv[++i], &o->algo) != 0) {
        fprintf(stderr, "winnow-eval: --algo needs etdm or fastce\n");
        return 2;
      }
    } else if (strcmp(a, "--selector") == 0) {
      if (i + 1 >= argc) {
        fprintf(stderr, "winnow-eval: --selector needs cues, places, region or paper\n");
        return 2;
      }
      const char *s = argv[++i];
      if (wn_detect_selector_parse(s, &o->selector) != 0 || o->selector == WN_SELECT_SITE) {
        fprintf(stderr,
                "winnow-eval: --selector: unknown selector \"%s\" (cues, places, region or paper)\n", s);
        return 2;
      }
    } else if (strcmp(a, "--repeat") == 0) {
      if (i + 1 >= argc || wn_parse_u32(argv[++i], 0, WN_EVAL_MAX_REPEAT, &v) || v == 0) {
        fprintf(stderr, "winnow-eval: --repeat needs a number from 1 to %u\n", WN_EVAL_MAX_REPEAT);
        return 2;
      }
      o->repeat = (unsigned)v;
    } else if (strcmp(a, "--method") == 0) {
      if (i + 1 >= argc || wn_single_method_parse(argv[++i], &o->method) != 0) {
        fprintf(stderr, "winnow-eval: --method needs cnr or danag\n");
        return 2;
      }
      o->single = 1;
    } else if (strcmp(a, "--steps") == 0) {
      if (i + 1 >= argc) {
        fprintf(stderr, "winnow-eval: --steps needs paper, default or a number\n");
        return 2;
      }
      const char *s = argv[++i];
      if (strcmp(s, "paper") == 0) {
        steps = 0; /* the paper's method as stated: no added step */
      } else if (strcmp(s, "default") == 0) {
        steps_given = 0;
        continue;
      } else if (wn_parse_u32(s, 0, WN_SINGLE_STEPS_ALL, &v)) {
        fprintf(stderr, "winnow-eval: --steps needs paper, default or a number up to 4095\n");
        return 2;
      } else {
        steps = (uint32_t)v;
      }
      steps_given = 1;
    } else if (strcmp(a, "--min-confidence") == 0) {
      char *end = NULL;
      double x = i + 1 < argc ? strtod(argv[++i], &end) : -1.0;
      if (!end || end == argv[i] || *end != '\0' || !(x >= 0.0 && x <= 1.0)) {
        fprintf(stderr, "winnow-eval: --min-confidence needs a number from 0 to 1\n");
        return 2;
      }
      o->min_confidence = x;
      o->min_confidence_given = 1;
    } else if (strcmp(a, "--fallback") == 0) {
      if (i + 1 >= argc || wn_single_method_parse(argv[++i], &o->fallback) != 0) {
        fprintf(stderr, "winnow-eval: --fallback needs cnr or danag\n");
        return 2;
      }
    } else if (strcmp(a, "--sweep") == 0) {
      o->sweep = 1;
    } else if (strcmp(a, "--score-jsonl") == 0) {
      if (i + 1 >= argc) {
        fprintf(stderr, "winnow-eval: --score-jsonl needs a file of winnow's JSON lines\n");
        return 2;
      }
      o->scored = argv[++i];
    } else if (strcmp(a, "--fold") == 0) {
      const char *f = i + 1 < argc ? argv[++i] : "";
      if (strcmp(f, "A") != 0 && strcmp(f, "B") != 0) {
        fprintf(stderr, "winnow-eval: --fold needs A or B\n");
        return 2;
      }
      o->fold = f[0];
    } else if (strcmp(a, "--train") == 0) {
      if (i + 1 >= argc || wn_parse_u32(argv[++i], 2, WN_LEARN_MAX_PAGES, &v)) {
        fprintf(stderr, "winnow-eval: --train needs a number from 2 to %u\n", WN_LEARN_MAX_PAGES);
        return 2;
      }
      o->train_n = v;
    } else if (strcmp(a, "--per-page") == 0) {
      o->per_page = 1;
    } else if (strcmp(a, "--json") == 0) {
      o->json = 1;
    } else if (strcmp(a, "--selftest") == 0) {
      o->selftest = 1;
    } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      wn_eval_usage(stdout);
      return 1;
    } else if (a[0] == '-' && a[1] != '\0') {
      fprintf(stderr, "winnow-eval: unknown option %s\n", a);
      wn_eval_usage(stderr);
      return 2;
    } else if (o->corpus) {
      fprintf(stderr, "winnow-eval: one corpus directory only (got %s and %s)\n", o->corpus, a);
      return 2;
    } else {
      o->corpus = a;
    }
  }
  if (!o->corpus && !o->selftest) {
    wn_eval_usage(stderr);
    return 2;
  }
  if (o->single && (o->min_confidence_given || o->sweep)) {
    fprintf(stderr, "winnow-eval: --min-confidence and --sweep go with the template method\n");
    return 2;
  }
  /* The default policy is the one users get (winnow detect, the daemon):
   * a page that fits its template too badly goes to the fallback. */
  if (!o->single && !o->min_confidence_given)
    o->min_confidence = WN_DETECT_DEFAULT_MIN_CONFIDENCE;
  if (steps_given && !o->single) {
    fprintf(stderr, "winnow-eval: --steps goes with --method\n");
    return 2;
  }
  o->steps = steps_given ? WN_SINGLE_STEPS_SET | steps : WN_SINGLE_STEPS_DEFAULT;
  return 0;
}

static int wn_eval_check_dir(const char *dir) {
  struct stat st;
  if (stat(dir, &st) != 0) {
    fprintf(stderr, "winnow-eval: corpus directory %s: %s\n", dir, strerror(errno));
    return 1;
  }
  if (!S_ISDIR(st.st_mode)) {
    fprintf(stderr, "winnow-eval: %s is not a directory\n", dir);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv) {
  int rc = 1;
  wn_eval ev;
  memset(&ev, 0, sizeof ev);
  int a = wn_eval_parse_args(argc, argv, &ev.opts);
  if (a)
    return a == 1 ? 0 : 2;
  /* The tokeniser needs a UTF-8 LC_CTYPE that classifies all of Unicode;
   * glibc's C.UTF-8 does, and keeps "." as the decimal point. */
  if (!setlocale(LC_ALL, "C.UTF-8") && !setlocale(LC_ALL, "C.utf8")) {
    fprintf(stderr, "winnow-eval: the C.UTF-8 locale is not available\n");
    return 1;
  }
  if (ev.opts.corpus && wn_eval_check_dir(ev.opts.corpus))
    return 1;
  if (ev.opts.selftest)
    return wn_eval_selftest(ev.opts.corpus);

  wn_err ierr = wn_init();
  if (ierr) {
    fprintf(stderr, "winnow-eval: %s\n", wn_strerror(ierr));
    return 1;
  }
  if (wn_eval_load_index(&ev) || wn_eval_load_extras(&ev))
    goto out;
  if (ev.opts.scored) {
    if (wn_eval_run_scored(&ev))
      goto out;
    rc = fflush(stdout) == 0 ? 0 : 1;
    goto out;
  }
  if (ev.opts.single) {
    if (wn_eval_run_single(&ev))
      goto out;
    if (fflush(stdout) != 0) {
      fprintf(stderr, "winnow-eval: cannot write the report: %s\n", strerror(errno));
      goto out;
    }
    rc = 0;
    goto out;
  }
  if (wn_eval_run_template(&ev))
    goto out;
  rc = 0;
out:
  for (size_t i = 0; i < ev.n_groups; i++)
    wn_learned_free(ev.groups[i].learned);
  for (size_t i = 0; i < ev.n_pages; i++)
    free(ev.pages[i].html);
  free(ev.groups);
  free(ev.pages);
  free(ev.index);
  free(ev.urls);
  free(ev.snips);
  free(ev.snip);
  wn_cleanup();
  return rc;
}
