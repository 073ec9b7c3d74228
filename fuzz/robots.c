/* robots.txt parsing and matching (src/fetch/robots.c, RFC 9309): the
 * input up to the first NUL is the body (the rest, if any, a path to
 * test); the parsed rules are asked about a set of paths. */
#include "fuzz.h"

#include "fetch/fetch.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  return 0;
}

static const char *const paths[] = {"/", "/robots.txt", "/private/", "/a/b.html?q=1",
                                    "/%7Euser/", "/$", "/index.php", "/*", ""};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *nul = memchr(data, 0, size);
  size_t body_len = nul ? (size_t)(nul - data) : size;
  char *extra = nul ? wn_fuzz_cstr(nul + 1, size - body_len - 1) : NULL;
  static const char *const agents[] = {"winnow", "Winnow/0.1", "*"};
  for (size_t a = 0; a < sizeof agents / sizeof *agents; a++) {
    wn_diag diag = {{0}};
    wn_robots *r = NULL;
    /* The body as bytes, not NUL-terminated: the parser must keep to len. */
    if (wn_robots_parse((const char *)data, body_len, agents[a], &r, &diag))
      continue;
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++)
      (void)wn_robots_allowed(r, paths[i]);
    if (extra)
      (void)wn_robots_allowed(r, extra);
    (void)wn_robots_crawl_delay_ms(r);
    wn_robots_free(r);
  }
  free(extra);
  return 0;
}
