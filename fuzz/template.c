/* Template decoding (src/template, the bytes a store record carries):
 * wn_template_decode of the input; a template that decodes is encoded
 * again (must decode to the same bytes) and matched against a real page,
 * as detection does with a template read from a damaged or hostile store. */
#include "fuzz.h"

#include "dom/dom.h"
#include "template/template.h"

static wn_dom_page *page;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  page = wn_fuzz_fixture_page();
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  wn_diag diag = {{0}};
  wn_template *tpl = NULL;
  if (wn_template_decode(data, size, &tpl, &diag))
    return 0;
  wn_buf a, b;
  wn_buf_init(&a, 0);
  wn_buf_init(&b, 0);
  wn_template *again = NULL;
  if (wn_template_encode(tpl, &a, &diag) ||
      wn_template_decode(a.data, a.len, &again, &diag) ||
      wn_template_encode(again, &b, &diag) || a.len != b.len ||
      memcmp(a.data, b.data, a.len) != 0)
    abort();
  uint32_t count = 0;
  (void)wn_dom_nodes(page, &count);
  uint32_t *map = calloc(count, sizeof *map);
  uint32_t pairs = 0;
  if (!map)
    abort();
  (void)wn_template_match(tpl, page, map, &pairs);
  wn_template_stats st;
  wn_template_get_stats(tpl, &st);
  free(map);
  wn_template_free(again);
  wn_template_free(tpl);
  wn_buf_free(&a);
  wn_buf_free(&b);
  return 0;
}
