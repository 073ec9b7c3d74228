/*
 * dom/prescan.c: the <meta> prescan of the WHATWG HTML standard
 * (13.2.3.2, "prescan a byte stream to determine its encoding"): the
 * charset a page declares in its first bytes, for decode.c's choice.
 */
#include "dom/charset.h"

#include <string.h>

#include "util/util.h"

typedef struct wn_span {
  const char *p;
  size_t len;
} wn_span;

static int wn_span_is(wn_span s, const char *lower) {
  return wn_ascii_equal_ci(s.p, s.len, lower);
}

static int wn_starts_with_ci(const char *p, size_t left, const char *lower) {
  size_t n = strlen(lower);
  return left >= n && wn_ascii_equal_ci(p, n, lower);
}

/*
 * "Get an attribute" (WHATWG HTML 13.2.3.2). Names and values are spans
 * into the input; the standard lower-cases them, we compare
 * case-insensitively instead. Returns 0 when there is no further attribute
 * (a '>' or the end of the window).
 */
static int wn_prescan_attribute(const char *s, size_t end, size_t *pos, wn_span *name,
                                wn_span *value) {
  size_t i = *pos;
  while (i < end && (wn_html_space(s[i]) || s[i] == '/'))
    i++;
  if (i >= end || s[i] == '>') {
    *pos = i;
    return 0;
  }
  size_t name_start = i;
  /* The name: an '=' counts only after the first byte. */
  while (i < end) {
    unsigned char c = (unsigned char)s[i];
    if ((c == '=' && i > name_start) || wn_html_space(c) || c == '/' || c == '>')
      break;
    i++;
  }
  *name = (wn_span){s + name_start, i - name_start};
  *value = (wn_span){s + i, 0};
  if (i >= end) {
    *pos = i;
    return 0;
  }
  while (i < end && wn_html_space(s[i]))
    i++;
  if (i >= end || s[i] != '=') {
    *pos = i; /* attribute without a value */
    return 1;
  }
  i++;
  while (i < end && wn_html_space(s[i]))
    i++;
  if (i >= end) {
    *pos = i;
    return 0;
  }
  if (s[i] == '"' || s[i] == '\'') {
    char quote = s[i++];
    size_t start = i;
    while (i < end && s[i] != quote)
      i++;
    if (i >= end) {
      *pos = i;
      return 0;
    }
    *value = (wn_span){s + start, i - start};
    *pos = i + 1;
    return 1;
  }
  if (s[i] == '>') {
    *pos = i;
    return 1;
  }
  size_t start = i;
  while (i < end && !wn_html_space(s[i]) && s[i] != '>')
    i++;
  *value = (wn_span){s + start, i - start};
  *pos = i;
  /* A value cut off by the window may be a shorter, valid label
   * ("koi8" of "koi8-r"): the standard gives up there, and so do we. */
  return i < end;
}

/* "Extracting a character encoding from a meta element" (WHATWG HTML
 * 2.x, used on the content attribute). */
static int wn_meta_content_charset(wn_span content, wn_span *charset) {
  const char *s = content.p;
  size_t n = content.len, i = 0;
  for (;;) {
    while (i < n && !wn_starts_with_ci(s + i, n - i, "charset"))
      i++;
    if (i >= n)
      return 0;
    i += 7;
    while (i < n && wn_html_space(s[i]))
      i++;
    if (i < n && s[i] == '=')
      break;
  }
  i++;
  while (i < n && wn_html_space(s[i]))
    i++;
  if (i >= n)
    return 0;
  if (s[i] == '"' || s[i] == '\'') {
    char quote = s[i++];
    size_t start = i;
    while (i < n && s[i] != quote)
      i++;
    if (i >= n)
      return 0; /* unmatched quote */
    *charset = (wn_span){s + start, i - start};
    return 1;
  }
  size_t start = i;
  while (i < n && !wn_html_space(s[i]) && s[i] != ';')
    i++;
  *charset = (wn_span){s + start, i - start};
  return 1;
}

/* Looks at one <meta> whose attributes start at *pos; 1 with *choice set
 * when it declares a charset we can decode. */
static int wn_prescan_meta(const char *s, size_t end, size_t *pos, wn_charset_choice *choice) {
  /* The standard keeps an attribute list so that only the first of
   * duplicate names counts; only three names matter to us. */
  int seen_http_equiv = 0, seen_content = 0, seen_charset = 0;
  int got_pragma = 0;
  enum { NEED_UNSET, NEED_TRUE, NEED_FALSE } need_pragma = NEED_UNSET;
  wn_span charset = {NULL, 0};
  wn_span name, value;
  /* Each attribute consumes at least one byte, so this ends. */
  while (wn_prescan_attribute(s, end, pos, &name, &value)) {
    if (wn_span_is(name, "http-equiv")) {
      if (seen_http_equiv++)
        continue;
      if (wn_span_is(value, "content-type"))
        got_pragma = 1;
    } else if (wn_span_is(name, "content")) {
      if (seen_content++)
        continue;
      wn_span found;
      if (charset.p == NULL && wn_meta_content_charset(value, &found)) {
        charset = found;
        need_pragma = NEED_TRUE;
      }
    } else if (wn_span_is(name, "charset")) {
      if (seen_charset++)
        continue;
      charset = value;
      need_pragma = NEED_FALSE;
    }
  }
  if (need_pragma == NEED_UNSET || (need_pragma == NEED_TRUE && !got_pragma))
    return 0;
  if (charset.p == NULL)
    return 0;
  if (!wn_dom_charset_resolve(charset.p, charset.len, choice))
    return 0;
  /* A page whose meta we could read as ASCII is not UTF-16 (WHATWG:
   * "If charset is UTF-16BE/LE, then set charset to UTF-8"). */
  if (choice->flags & WN_CS_UTF16) {
    wn_dom_charset_utf8(choice);
  }
  return 1;
}

/*
 * "Prescan a byte stream to determine its encoding" (WHATWG HTML
 * 13.2.3.2) over the first WN_DECODE_PRESCAN_BYTES: skips comments and
 * other tags (attribute values may hold '>'), looks inside <meta> only.
 * A <meta> whose label we do not know is passed over, as the standard
 * does.
 */
int wn_dom_charset_prescan(const char *s, size_t len, wn_charset_choice *choice) {
  size_t end = len < WN_DECODE_PRESCAN_BYTES ? len : WN_DECODE_PRESCAN_BYTES;
  size_t i = 0;
  while (i < end) {
    if (s[i] != '<') {
      i++;
      continue;
    }
    if (wn_starts_with_ci(s + i, end - i, "<!--")) {
      /* To the first '>' preceded by "--" after the '<' ("<!-->" ends). */
      size_t j = i + 4;
      while (j < end && !(s[j] == '>' && s[j - 1] == '-' && s[j - 2] == '-'))
        j++;
      i = j + 1;
      continue;
    }
    if (wn_starts_with_ci(s + i, end - i, "<meta") && i + 5 < end &&
        (wn_html_space(s[i + 5]) || s[i + 5] == '/')) {
      size_t pos = i + 5;
      if (wn_prescan_meta(s, end, &pos, choice))
        return 1;
      i = pos; /* at the '>' or the end; past i, so the scan moves on */
      continue;
    }
    unsigned char next = i + 1 < end ? (unsigned char)s[i + 1] : 0;
    unsigned char after = i + 2 < end ? (unsigned char)s[i + 2] : 0;
    int letter = wn_ascii_alpha(next);
    int end_letter = next == '/' && wn_ascii_alpha(after);
    if (letter || end_letter) {
      /* A start or end tag: skip its name, then its attributes, so that a
       * '>' inside a quoted value does not end it. */
      size_t pos = i + (end_letter ? 2 : 1);
      while (pos < end && !wn_html_space(s[pos]) && s[pos] != '>')
        pos++;
      wn_span name, value;
      while (wn_prescan_attribute(s, end, &pos, &name, &value))
        ;
      i = pos + 1;
      continue;
    }
    if (next == '!' || next == '/' || next == '?') {
      size_t j = i + 2;
      while (j < end && s[j] != '>')
        j++;
      i = j + 1;
      continue;
    }
    i++;
  }
  return 0;
}
