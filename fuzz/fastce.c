/* FastCE template decoding (src/template/fastce_record.c, the bytes a store
 * record of algorithm "fastce" carries): wn_fastce_decode of the input; a
 * template that decodes is encoded, decoded and encoded again (the same
 * bytes both times) and used to detect a real page, as detection does
 * with a template read from a damaged or hostile store. */
#include "fuzz.h"

#include "detect/fastce_detect.h"
#include "dom/dom.h"
#include "template/fastce_template.h"

#include <zlib.h>

static wn_dom_page *page;

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  page = wn_fuzz_fixture_page();
  return 0;
}

/* The input as it is (the checksum test), then with its last four bytes
 * made the CRC-32 of the rest: without that, nearly every mutation stops
 * at the checksum and the parser behind it is never reached (a first
 * 10-minute run kept a corpus of 18 inputs). */
static void one(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  one(data, size);
  if (size >= 13 && size <= (1u << 20)) {
    uint8_t *fixed = malloc(size);
    if (!fixed)
      return 0;
    memcpy(fixed, data, size);
    uint32_t crc = (uint32_t)crc32(0L, fixed, (uInt)(size - 4));
    for (int k = 0; k < 4; k++)
      fixed[size - 4 + (size_t)k] = (uint8_t)(crc >> (8 * k));
    one(fixed, size);
    free(fixed);
  }
  return 0;
}

static void one(const uint8_t *data, size_t size) {
  wn_diag diag = {{0}};
  wn_fastce *f = NULL;
  if (wn_fastce_decode(data, size, &f, &diag))
    return;
  wn_buf a, b;
  wn_buf_init(&a, 0);
  wn_buf_init(&b, 0);
  wn_fastce *again = NULL;
  if (wn_fastce_encode(f, &a, &diag) || wn_fastce_decode(a.data, a.len, &again, &diag) ||
      wn_fastce_encode(again, &b, &diag) || a.len != b.len || memcmp(a.data, b.data, a.len) != 0)
    abort();
  wn_fastce_free(again);
  wn_buf_free(&b);
  wn_detect_result *res = NULL;
  if (wn_detect_fastce_run(page, f, &res, &diag) == WN_OK)
    wn_detect_result_free(res);
  wn_buf_free(&a);
  wn_fastce_free(f);
}
