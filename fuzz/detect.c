/* Detection of a page against a template: a template is learned once from
 * tests/fixtures/site (the same pages the test suite learns from), then
 * each input is detected as a page of that site, rendered every way the
 * API offers (text, HTML, nodes, Markdown, metadata, JSON). A second
 * detector without a template takes the single-page path (DANAg with its
 * steps, Readability's reading combined with it, the repeat invariant);
 * a third reads with Readability's reading alone. */
#include "fuzz.h"

#include <winnow/winnow.h>

#define SITE "www.example.com"

static wn_detector *with_template;
static wn_detector *single;
static wn_detector *second;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  if (wn_init())
    abort();
  wn_learned *learned = wn_fuzz_learn_fixture(SITE);
  const wn_single_method readability = WN_SINGLE_READABILITY;
  with_template = wn_fuzz_detector(learned, NULL);
  single = wn_fuzz_detector(NULL, NULL);
  second = wn_fuzz_detector(NULL, &readability);
  wn_learned_free(learned);
  return 0;
}

static void run(wn_detector *det, const wn_page_input *in) {
  wn_diag diag = {{0}};
  wn_page_result *r = NULL;
  if (wn_detector_detect(det, in, WN_WANT_TEXT | WN_WANT_HTML | WN_WANT_NODES, &r, &diag))
    return;
  size_t len = 0;
  (void)wn_page_result_text(r, &len);
  (void)wn_page_result_html(r, &len);
  (void)wn_page_result_markdown(r, &len);
  (void)wn_page_result_metadata(r);
  for (size_t i = 0; i < wn_page_result_node_count(r); i++)
    if (!wn_page_result_node(r, i))
      abort();
  char *json = NULL;
  if (wn_page_result_json(r, "1", 0, &json, &diag) == WN_OK)
    free(json);
  wn_page_result_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  wn_page_input in = {.bytes = (const char *)data, .len = size, .site = SITE,
                      .url = "http://" SITE "/news/a.html"};
  run(with_template, &in);
  in.site = NULL;
  in.url = NULL;
  run(single, &in);
  run(second, &in);
  return 0;
}
