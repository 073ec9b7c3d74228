/* Other versions of a page among learning samples (src/learn/variants.c,
 * the language checks of nset.c and links.c): two pages from outside. The
 * input up to the first NUL byte is the key page (parsed with a kept
 * libxml2 tree, as the crawl parses it), the rest the other page; the
 * input's first line is also read as a URL against the key URL, and the
 * key page's lang as a key language. Invariant: near-duplicate is
 * symmetric in kind for a page and itself (a page is its own copy). */
#include "fuzz.h"

#include <winnow/winnow.h>

#include "learn/learn.h"

#define KEY_URL "http://courier.example/en/news/story.en.html"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  if (wn_init())
    abort();
  return 0;
}

static wn_dom_page *parse(const uint8_t *data, size_t size, int keep_xml) {
  wn_dom_options o = {.keep_xml = keep_xml};
  wn_dom_page *page = NULL;
  wn_diag diag = {{0}};
  if (wn_dom_parse((const char *)data, size, &o, &page, &diag) != WN_OK)
    return NULL;
  return page;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 256 * 1024)
    return 0;
  const uint8_t *nul = memchr(data, 0, size);
  size_t key_len = nul ? (size_t)(nul - data) : size;
  const uint8_t *other = nul ? nul + 1 : data;
  size_t other_len = nul ? size - key_len - 1 : size;

  char *line = wn_fuzz_cstr(data, key_len < 4096 ? key_len : 4096);
  char *nl = strchr(line, '\n');
  if (nl)
    *nl = '\0';
  char why[256];
  (void)wn_learn_language_tag(line, strlen(line), NULL);
  (void)wn_learn_url_other_language(KEY_URL, NULL, line, why, sizeof why);
  (void)wn_learn_url_other_language(line, "en", KEY_URL, why, sizeof why);

  wn_dom_page *key = parse(data, key_len, 1), *page = parse(other, other_len, 0);
  wn_diag diag = {{0}};
  if (key) {
    (void)wn_learn_url_other_language(KEY_URL, wn_dom_lang(key), line, why, sizeof why);
    wn_link *alts = NULL;
    size_t n_alts = 0;
    if (wn_learn_alternates(key, KEY_URL, &alts, &n_alts, &diag) == WN_OK)
      wn_links_free(alts, n_alts);
    wn_learn_dup self = WN_LEARN_DUP_NONE;
    if (wn_learn_near_duplicate(key, key, &self, &diag) == WN_OK && wn_learn_page_has_text(key) &&
        self == WN_LEARN_DUP_NONE) {
      /* A page with text pairs itself whole: it is its own copy. */
      uint32_t count = 0;
      const wn_dom_node *nodes = wn_dom_nodes(key, &count);
      int elements = 0;
      for (uint32_t i = 0; i < count; i++)
        elements |= nodes[i].tag != WN_TAG_TEXT;
      if (elements) {
        fprintf(stderr, "a page with text is no near-duplicate of itself\n");
        abort();
      }
    }
  }
  if (key && page) {
    wn_learn_dup dup = WN_LEARN_DUP_NONE;
    (void)wn_learn_near_duplicate(key, page, &dup, &diag);
    (void)wn_learn_near_duplicate(page, key, &dup, &diag);
    (void)wn_learn_other_language(key, page, why, sizeof why);
  }
  wn_dom_free(key);
  wn_dom_free(page);
  free(line);
  return 0;
}
