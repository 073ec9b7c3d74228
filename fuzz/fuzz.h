/*
 * Shared helpers of the libFuzzer targets (fuzz/<name>.c, built with
 * -DWN_FUZZ=ON; see scripts/fuzz). Each target is one input surface: a
 * function that takes bytes from outside (the open web, a file, a socket).
 */
#ifndef WN_FUZZ_H
#define WN_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <winnow/winnow.h>

#include "dom/dom.h"

/* A target that needs no set-up leaves LLVMFuzzerInitialize out
 * (libFuzzer calls it only where it is defined). */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A NUL-terminated copy of the input (the C-string surfaces). */
static inline char *wn_fuzz_cstr(const uint8_t *data, size_t size) {
  char *s = malloc(size + 1);
  if (!s)
    abort();
  memcpy(s, data, size);
  s[size] = '\0';
  return s;
}

/* Writes the input to a fresh file under $TMPDIR and returns its path
 * (malloc'd); the caller unlinks it. The file surfaces (WARC, YAML) take a
 * path, as the program does. */
static inline char *wn_fuzz_file(const uint8_t *data, size_t size) {
  const char *tmp = getenv("TMPDIR");
  char tmpl[4096];
  snprintf(tmpl, sizeof tmpl, "%s/wn-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  int fd = mkstemp(tmpl);
  if (fd < 0)
    abort();
  size_t off = 0;
  while (off < size) {
    ssize_t n = write(fd, data + off, size - off);
    if (n <= 0)
      abort();
    off += (size_t)n;
  }
  close(fd);
  return strdup(tmpl);
}

/* The template of the test suite's fixture site (WN_FIXTURES/site, its
 * seven article pages), learned under the name site; aborts with the
 * message if it cannot be (the target would test nothing). */
static inline wn_learned *wn_fuzz_learn_fixture(const char *site) {
  char paths[7][4096];
  const char *ptrs[7];
  for (int i = 0; i < 7; i++) {
    snprintf(paths[i], sizeof paths[i], "%s/site/article-%d.html", WN_FIXTURES, i + 1);
    ptrs[i] = paths[i];
  }
  wn_learned *learned = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_site_learn_files(site, ptrs, 7, NULL, &learned, &diag);
  if (err) {
    fprintf(stderr, "learn: %s\n", wn_diag_message(&diag, err));
    abort();
  }
  return learned;
}

/* A detector without a store: serving learned's template when learned is
 * not NULL, its single-page method fallback (the options' default when
 * fallback is NULL). Aborts if it cannot be made. */
static inline wn_detector *wn_fuzz_detector(const wn_learned *learned,
                                            const wn_single_method *fallback) {
  wn_diag diag = {{0}};
  wn_detector_options opts;
  wn_detector_options_init(&opts);
  if (fallback)
    opts.detect.fallback = *fallback;
  wn_detector *det = NULL;
  if (wn_detector_create(NULL, &opts, &det, &diag) ||
      (learned && wn_detector_use(det, learned, &diag)))
    abort();
  return det;
}

/* The test suite's fixture page WN_FIXTURES/site/article-1.html, parsed,
 * for the targets that decode a template and match it against a real
 * page; aborts if it cannot be read. */
static inline wn_dom_page *wn_fuzz_fixture_page(void) {
  char *bytes = NULL;
  size_t len = 0;
  wn_dom_page *page = NULL;
  wn_diag diag = {{0}};
  if (wn_file_read(WN_FIXTURES "/site/article-1.html", 1u << 20, &bytes, &len, &diag) ||
      wn_dom_parse(bytes, len, NULL, &page, &diag))
    abort();
  free(bytes);
  return page;
}

#endif
