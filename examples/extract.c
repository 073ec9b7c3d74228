/*
 * extract: the smallest complete use of libwinnow. Learns a site's
 * template from sample pages (files) without a store, then prints the
 * main content of one more page of the site.
 *
 *   cc extract.c $(pkg-config --cflags --libs winnow) -o extract
 *   ./extract SITE PAGE.html SAMPLE.html SAMPLE.html...
 */
#include <stdio.h>
#include <stdlib.h>

#include <winnow/winnow.h>

int main(int argc, char **argv) {
  int rc = 1;
  wn_learned *learned = NULL;
  wn_detector *detector = NULL;
  wn_page_result *result = NULL;
  char *page = NULL;
  size_t len = 0;
  wn_diag diag = {{0}};
  if (argc < 5) {
    fprintf(stderr, "usage: %s SITE PAGE.html SAMPLE.html SAMPLE.html...\n", argv[0]);
    return 2;
  }
  if (wn_init() != WN_OK)
    return 1;
  wn_learn_options lo;
  wn_learn_options_init(&lo);
  wn_err err = wn_site_learn_files(argv[1], (const char *const *)argv + 3, (size_t)argc - 3,
                                   &lo, &learned, &diag);
  if (err)
    goto out;
  wn_detector_options dopts;
  wn_detector_options_init(&dopts);
  err = wn_detector_create(NULL, &dopts, &detector, &diag); /* no store */
  if (!err)
    err = wn_detector_use(detector, learned, &diag);
  if (!err)
    err = wn_file_read(argv[2], WN_PAGE_MAX_BYTES, &page, &len, &diag);
  if (err)
    goto out;
  wn_page_input in = {.bytes = page, .len = len, .site = argv[1]};
  err = wn_detector_detect(detector, &in, WN_WANT_TEXT, &result, &diag);
  if (err)
    goto out;
  size_t text_len = 0;
  const char *text = wn_page_result_text(result, &text_len);
  fprintf(stderr, "method=%s confidence=%.2f\n", wn_page_result_method(result),
          wn_page_result_confidence(result));
  fwrite(text, 1, text_len, stdout);
  rc = 0;
out:
  if (err)
    fprintf(stderr, "extract: %s\n", wn_diag_message(&diag, err));
  free(page);
  wn_page_result_free(result);
  wn_detector_destroy(detector);
  wn_learned_free(learned);
  wn_cleanup();
  return rc;
}
