/* bytes -> page tree, charset included (src/dom: wn_dom_sniff,
 * wn_dom_decode, wn_dom_parse). The first byte picks a transport charset
 * (as an HTTP Content-Type would give) and the tree builder (SAX or a kept
 * libxml2 tree); the rest is the page. */
#include "fuzz.h"

#include "dom/dom.h"

static const char *const charsets[] = {
    NULL,        "UTF-8",     "utf-16le", "UTF-16BE", "windows-1252", "ISO-8859-1",
    "koi8-r",    "Shift_JIS", "gb18030",  "EUC-JP",   "utf-7",        "x-user-defined",
    "bogus-cs",  "",          "UTF-32",   "big5"};

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  const char *cs = charsets[data[0] & 15u];
  int keep_xml = (data[0] >> 4) & 1;
  const char *bytes = (const char *)data + 1;
  size_t len = size - 1;
  wn_diag diag = {{0}};

  (void)wn_dom_sniff(bytes, len, cs, &diag);

  wn_dom_decoded dec;
  memset(&dec, 0, sizeof dec);
  if (wn_dom_decode(bytes, len, cs, 0, &dec, &diag) == WN_OK) {
    if (dec.utf8[dec.len] != '\0')
      abort();
    wn_dom_decoded_free(&dec);
  }

  wn_dom_options opts = {.transport_charset = cs, .keep_xml = keep_xml};
  wn_dom_page *page = NULL;
  if (wn_dom_parse(bytes, len, &opts, &page, &diag) == WN_OK) {
    uint32_t count = 0;
    const wn_dom_node *nodes = wn_dom_nodes(page, &count);
    if (count == 0 || !nodes)
      abort();
    (void)wn_dom_body(page);
    (void)wn_dom_charset(page);
    wn_dom_free(page);
  }
  return 0;
}
