/*
 * fetch/content_type.c: the one reader of an HTTP Content-Type value
 * (RFC 9110 8.3: type "/" subtype, then ";"-separated parameters, a value
 * token or quoted string). The crawler, the WARC reader, the daemon and the
 * command line's JSONL "content_type" all read a page's transport charset
 * through it.
 */
#include "fetch/fetch.h"

#include <string.h>

void wn_content_type_split(const char *ct, size_t len, char *media, size_t media_size,
                           char *charset, size_t charset_size) {
  if (media_size)
    media[0] = '\0';
  if (charset_size)
    charset[0] = '\0';
  if (!ct)
    return;
  const char *p = ct, *end = ct + len;
  while (p < end && wn_http_space(*p))
    p++;
  size_t n = 0;
  while (p < end && *p != ';' && !wn_http_space(*p)) {
    if (n + 1 < media_size)
      media[n++] = wn_ascii_lower(*p);
    p++;
  }
  if (media_size)
    media[n] = '\0';
  while (p < end) {
    while (p < end && *p != ';')
      p++;
    if (p == end)
      break;
    p++;
    while (p < end && wn_http_space(*p))
      p++;
    const char *name = p;
    while (p < end && *p != '=' && *p != ';')
      p++;
    size_t name_len = (size_t)(p - name);
    while (name_len && wn_http_space(name[name_len - 1]))
      name_len--;
    if (p == end || *p != '=')
      continue;
    p++;
    while (p < end && wn_http_space(*p))
      p++;
    int quoted = p < end && *p == '"';
    if (quoted)
      p++;
    const char *value = p;
    while (p < end && (quoted ? *p != '"' : (*p != ';' && !wn_http_space(*p) && *p != '\r')))
      p++;
    size_t value_len = (size_t)(p - value);
    /* The first charset counts; one too long for the field is dropped (a
     * cut name would name another charset, or none). */
    if (wn_ascii_equal_ci(name, name_len, "charset") && charset_size && !charset[0] &&
        value_len + 1 <= charset_size) {
      memcpy(charset, value, value_len);
      charset[value_len] = '\0';
    }
  }
}

void wn_content_type_charset(const char *content_type, char *charset, size_t size) {
  char media[8];
  wn_content_type_split(content_type, content_type ? strlen(content_type) : 0, media,
                        sizeof media, charset, size);
}
