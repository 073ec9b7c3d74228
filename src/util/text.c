/* util/text.c: ASCII case, hexadecimal digits, whole numbers and HTML's
 * lists of tokens, the same way in every module. */
#include "util/util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int wn_ascii_equal_ci(const char *s, size_t len, const char *lit) {
  size_t n = strlen(lit);
  if (len != n)
    return 0;
  for (size_t i = 0; i < n; i++)
    if (wn_ascii_lower(s[i]) != wn_ascii_lower(lit[i]))
      return 0;
  return 1;
}

int wn_hex_digit(char c) {
  if (wn_ascii_digit(c))
    return c - '0';
  c = wn_ascii_lower(c);
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

int wn_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out) {
  /* strtoull accepts leading spaces and a sign ("-1" wraps around): only
   * plain digits are a number here. */
  if (!s || s[0] < '0' || s[0] > '9')
    return -1;
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno != 0 || !end || *end != '\0' || v < min || v > max)
    return -1;
  *out = (uint32_t)v;
  return 0;
}

int wn_html_has_token(const char *list, const char *tok) {
  const size_t n = strlen(tok);
  for (const char *p = list; p && *p;) {
    while (wn_html_space((unsigned char)*p))
      p++;
    const char *w = p;
    while (*p && !wn_html_space((unsigned char)*p))
      p++;
    if ((size_t)(p - w) == n && strncmp(w, tok, n) == 0)
      return 1;
  }
  return 0;
}
