/* The JSONL reader (`winnow detect --jsonl`): the line-to-page logic lives
 * in src/cli/detect_stream.c (static); this target takes the same path
 * through the library that a line does: jansson loads the line with the
 * CLI's flags, its "html", "site", "url" strings become a wn_page_input
 * (charset UTF-8: a JSON string is Unicode) and the page is detected, the
 * line's "id" echoed into the JSON result. */
#include "fuzz.h"

#include <jansson.h>
#include <winnow/winnow.h>

static wn_detector *det;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  if (wn_init())
    abort();
  wn_learned *learned = wn_fuzz_learn_fixture("www.example.com");
  det = wn_fuzz_detector(learned, NULL);
  wn_learned_free(learned);
  return 0;
}

static const char *str(const json_t *root, const char *key, int allow_nul, size_t *len) {
  const json_t *v = json_object_get(root, key);
  if (!v || !json_is_string(v))
    return NULL;
  if (!allow_nul && strlen(json_string_value(v)) != json_string_length(v))
    return NULL;
  if (len)
    *len = json_string_length(v);
  return json_string_value(v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  json_error_t jerr;
  json_t *root = json_loadb((const char *)data, size,
                            JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES, &jerr);
  if (!root)
    return 0;
  if (!json_is_object(root))
    goto out;
  const json_t *id = json_object_get(root, "id");
  char *id_json = json_dumps(id ? id : json_null(), JSON_ENCODE_ANY | JSON_COMPACT);
  size_t html_len = 0;
  const char *html = str(root, "html", 1, &html_len);
  if (html && html_len <= WN_PAGE_MAX_BYTES) {
    wn_page_input in = {.bytes = html, .len = html_len, .site = str(root, "site", 0, NULL),
                        .url = str(root, "url", 0, NULL), .charset = "UTF-8"};
    wn_diag diag = {{0}};
    wn_page_result *r = NULL;
    if (wn_detector_detect(det, &in, WN_WANT_TEXT | WN_WANT_NODES, &r, &diag) == WN_OK) {
      char *out = NULL;
      if (wn_page_result_json(r, id_json, 0, &out, &diag) == WN_OK) {
        /* What the CLI prints must be one line of JSON. */
        json_t *back = json_loads(out, 0, &jerr);
        if (!back || strchr(out, '\n'))
          abort();
        json_decref(back);
        free(out);
      }
      wn_page_result_free(r);
    }
  }
  free(id_json);
out:
  json_decref(root);
  return 0;
}
