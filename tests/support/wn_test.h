/* Shared helpers of the test programs (header-only: each test is one
 * program). */
#ifndef WN_TEST_H
#define WN_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dom/dom.h"
#include "template/template.h"

/* Parses an HTML string; fails the test on error. */
static inline wn_dom_page *wn_test_parse(const char *html) {
  wn_dom_page *page = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_dom_parse(html, strlen(html), NULL, &page, &diag);
  if (err)
    fprintf(stderr, "parse failed: %s\n", wn_diag_message(&diag, err));
  assert_int_equal(err, WN_OK);
  assert_non_null(page);
  return page;
}

/* Index of the first node with that name and, if text is not NULL, whose
 * own text (text nodes) or id (elements) equals it. */
static inline uint32_t wn_test_find(const wn_dom_page *page, const char *name, const char *key) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  for (uint32_t i = 0; i < count; i++) {
    if (strcmp(nodes[i].name, name) != 0)
      continue;
    const char *v = nodes[i].tag == WN_TAG_TEXT ? nodes[i].text : nodes[i].id;
    if (!key || (v && strcmp(v, key) == 0))
      return i;
  }
  fail_msg("no node %s %s", name, key ? key : "");
  return WN_DOM_NONE;
}

static inline char *wn_test_read(const char *path, size_t *len) {
  char *bytes = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_file_read(path, WN_DOM_DEFAULT_MAX_BYTES, &bytes, len, &diag);
  if (err)
    fprintf(stderr, "%s\n", wn_diag_message(&diag, err));
  assert_int_equal(err, WN_OK);
  return bytes;
}

/* Reads and parses an HTML file; fails the test on error. */
static inline wn_dom_page *wn_test_parse_file(const char *path) {
  size_t len = 0;
  char *bytes = wn_test_read(path, &len);
  wn_dom_page *page = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_dom_parse(bytes, len, NULL, &page, &diag);
  if (err)
    fail_msg("%s: %s", path, wn_diag_message(&diag, err));
  free(bytes);
  return page;
}

/* How many times needle stands in hay (overlapping copies counted). */
static inline size_t wn_test_occurrences(const char *hay, const char *needle) {
  size_t n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
    n++;
  return n;
}

/* want is in text (in 1) or not (in 0); else the test fails, printing
 * text. */
static inline void wn_test_expect(const char *text, const char *want, int in) {
  if ((strstr(text, want) != NULL) != in)
    fail_msg("\"%s\" %s:\n%s", want, in ? "missing" : "kept", text);
}

/* The template node the ETDM pairs with the first element of class cls
 * in page; fails the test when there is none. */
static inline uint32_t wn_test_paired(const wn_template *tpl, const wn_dom_page *page,
                                      const char *cls) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint32_t *map = malloc(((size_t)count + 1) * sizeof *map);
  assert_non_null(map);
  uint32_t pairs = 0;
  assert_int_equal(wn_template_match(tpl, page, map, &pairs), WN_OK);
  uint32_t t = WN_DOM_NONE;
  for (uint32_t i = 0; i < count && t == WN_DOM_NONE; i++)
    if (nodes[i].tag != WN_TAG_TEXT && nodes[i].cls && strcmp(nodes[i].cls, cls) == 0)
      t = map[i];
  free(map);
  assert_int_not_equal(t, WN_DOM_NONE);
  return t;
}

#endif
