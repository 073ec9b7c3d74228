/* warc/http.c: the HTTP response a WARC `response` record holds (ISO
 * 28500:2009, section 6, 'response': "application/http; msgtype=response"): the message as
 * received, so its transfer and content codings are still applied. */
#include "warc/warc.h"

#include <string.h>
#include <zlib.h>

static void trim(const char **s, size_t *len) {
  while (*len && wn_http_space(**s)) {
    (*s)++;
    (*len)--;
  }
  while (*len && ((*s)[*len - 1] == ' ' || (*s)[*len - 1] == '\t' || (*s)[*len - 1] == '\r'))
    (*len)--;
}

/* Does the comma-separated list value name token (case-insensitive)? */
static int list_has(const char *value, size_t len, const char *token) {
  size_t i = 0;
  while (i < len) {
    size_t j = i;
    while (j < len && value[j] != ',')
      j++;
    const char *item = value + i;
    size_t n = j - i;
    trim(&item, &n);
    /* parameters (";q=...") do not change the coding's name */
    for (size_t k = 0; k < n; k++)
      if (item[k] == ';') {
        n = k;
        trim(&item, &n);
        break;
      }
    if (wn_ascii_equal_ci(item, n, token))
      return 1;
    i = j + 1;
  }
  return 0;
}

wn_err wn_warc_http_parse(const char *block, size_t len, size_t max_header, wn_warc_http *out,
                          wn_diag *diag) {
  memset(out, 0, sizeof *out);
  /* Status line: "HTTP/1.1 200 OK" (RFC 9112, 4); HTTP/1.0 and 0.9-era
   * servers archived long ago say "HTTP/1.0". */
  if (len < 12 || memcmp(block, "HTTP/", 5) != 0)
    return wn_diag_set(diag, WN_EPARSE, "not an HTTP response (no status line)");
  size_t i = 5;
  while (i < len && block[i] != ' ' && block[i] != '\n')
    i++;
  while (i < len && block[i] == ' ')
    i++;
  int status = 0;
  size_t digits = 0;
  while (i < len && wn_ascii_digit(block[i]) && digits < 3) {
    status = status * 10 + (block[i] - '0');
    i++;
    digits++;
  }
  if (digits != 3 || (i < len && block[i] != ' ' && block[i] != '\r' && block[i] != '\n'))
    return wn_diag_set(diag, WN_EPARSE, "HTTP status line has no 3-digit status");
  out->status = status;
  const char *nl = memchr(block + i, '\n', len - i);
  if (!nl)
    return wn_diag_set(diag, WN_EPARSE, "HTTP header ends before its end");
  i = (size_t)(nl - block) + 1;
  /* Header fields up to the empty line. A folded line (leading white
   * space, RFC 9112, 5.2, obsolete but archived) continues the last field;
   * only the fields read here matter, so it is skipped. */
  for (;;) {
    if (i > max_header)
      return wn_diag_set(diag, WN_ETOOBIG, "HTTP header longer than %zu bytes", max_header);
    if (i >= len)
      return wn_diag_set(diag, WN_EPARSE, "HTTP header ends before its end");
    nl = memchr(block + i, '\n', len - i);
    size_t end = nl ? (size_t)(nl - block) : len;
    if (end > max_header)
      return wn_diag_set(diag, WN_ETOOBIG, "HTTP header longer than %zu bytes", max_header);
    const char *line = block + i;
    size_t n = end - i;
    if (n && line[n - 1] == '\r')
      n--;
    if (!nl) {
      if (n)
        return wn_diag_set(diag, WN_EPARSE, "HTTP header ends before its end");
      i = len;
      break;
    }
    i = end + 1;
    if (n == 0)
      break;
    if (line[0] == ' ' || line[0] == '\t')
      continue;
    const char *colon = memchr(line, ':', n);
    if (!colon)
      continue; /* a stray line: browsers skip it too */
    size_t name_len = (size_t)(colon - line);
    const char *value = colon + 1;
    size_t value_len = n - name_len - 1;
    trim(&value, &value_len);
    if (wn_ascii_equal_ci(line, name_len, "content-type")) {
      out->content_type = value;
      out->content_type_len = value_len;
    } else if (wn_ascii_equal_ci(line, name_len, "transfer-encoding")) {
      if (list_has(value, value_len, "chunked"))
        out->chunked = 1;
    } else if (wn_ascii_equal_ci(line, name_len, "content-encoding")) {
      out->content_encoding = value;
      out->content_encoding_len = value_len;
    }
  }
  out->body = block + i;
  out->body_len = len - i;
  return WN_OK;
}

wn_err wn_warc_http_dechunk(const char *in, size_t len, wn_buf *out, wn_diag *diag) {
  /* chunk = chunk-size [ chunk-ext ] CRLF chunk-data CRLF; last-chunk is
   * a size of 0 (RFC 9112, 7.1). */
  size_t i = 0;
  for (;;) {
    size_t size = 0, digits = 0;
    while (i < len && wn_http_space(in[i]))
      i++;
    for (; i < len && wn_hex_digit(in[i]) >= 0; i++, digits++) {
      if (size > (SIZE_MAX >> 4) || digits > 15)
        return wn_diag_set(diag, WN_ECORRUPT, "chunk size too large");
      size = size * 16 + (size_t)wn_hex_digit(in[i]);
    }
    if (!digits)
      return wn_diag_set(diag, WN_ECORRUPT, "chunked body: no chunk size at byte %zu", i);
    const char *nl = i < len ? memchr(in + i, '\n', len - i) : NULL;
    if (!nl)
      return wn_diag_set(diag, WN_ECORRUPT, "chunked body ends in a chunk size line");
    i = (size_t)(nl - in) + 1;
    if (size == 0)
      return WN_OK; /* trailer fields, if any, are not the payload */
    if (size > len - i)
      return wn_diag_set(diag, WN_ECORRUPT, "chunked body ends inside a chunk of %zu bytes", size);
    wn_err err = wn_buf_append(out, in + i, size);
    if (err)
      return wn_diag_set(
          diag, err, err == WN_ETOOBIG ? "payload larger than %zu bytes" : "out of memory (%zu)",
          out->cap);
    i += size;
    if (i < len && in[i] == '\r')
      i++;
    if (i < len && in[i] == '\n')
      i++;
  }
}

static wn_err inflate_with(const char *in, size_t len, int window_bits, wn_buf *out,
                           wn_diag *diag) {
  z_stream zs;
  memset(&zs, 0, sizeof zs);
  if (inflateInit2(&zs, window_bits) != Z_OK)
    return wn_diag_set(diag, WN_ENOMEM, "zlib: cannot initialise inflate");
  wn_err err = WN_OK;
  unsigned char chunk[16384];
  zs.next_in = (unsigned char *)(uintptr_t)in;
  size_t left = len;
  int ret = Z_OK;
  do {
    if (zs.avail_in == 0 && left) {
      uInt take = left > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uInt)left;
      zs.avail_in = take;
      left -= take;
    }
    zs.next_out = chunk;
    zs.avail_out = sizeof chunk;
    ret = inflate(&zs, Z_NO_FLUSH);
    if (ret != Z_OK && ret != Z_STREAM_END) {
      err = wn_diag_set(diag, ret == Z_MEM_ERROR ? WN_ENOMEM : WN_ECORRUPT, "content coding: %s",
                        zs.msg ? zs.msg : "damaged or truncated data");
      goto out;
    }
    size_t got = sizeof chunk - zs.avail_out;
    if (got && (err = wn_buf_append(out, chunk, got)) != WN_OK) {
      wn_diag_set(diag, err,
                  err == WN_ETOOBIG ? "payload larger than %zu bytes once decoded"
                                    : "out of memory (%zu)",
                  out->cap);
      goto out;
    }
    if (ret != Z_STREAM_END && zs.avail_in == 0 && !left && got == 0) {
      err = wn_diag_set(diag, WN_ECORRUPT, "content coding: compressed data truncated");
      goto out;
    }
  } while (ret != Z_STREAM_END);
out:
  inflateEnd(&zs);
  return err;
}

wn_err wn_warc_http_inflate(const char *in, size_t len, wn_buf *out, wn_diag *diag) {
  /* 15 + 32: zlib detects a gzip or zlib header itself. */
  size_t start = out->len;
  wn_diag first = {{0}};
  wn_err err = inflate_with(in, len, 15 + 32, out, &first);
  if (err != WN_ECORRUPT)
    return err == WN_OK ? WN_OK : wn_diag_set(diag, err, "%s", first.msg);
  /* "deflate" sent as raw deflate, without the zlib wrapper. */
  out->len = start;
  if (inflate_with(in, len, -15, out, NULL) == WN_OK)
    return WN_OK;
  out->len = start;
  return wn_diag_set(diag, WN_ECORRUPT, "%s", first.msg);
}

int wn_warc_http_type_is_html(const char *value, size_t len) {
  const char *semi = memchr(value, ';', len);
  size_t n = semi ? (size_t)(semi - value) : len;
  trim(&value, &n);
  return wn_ascii_equal_ci(value, n, "text/html") ||
         wn_ascii_equal_ci(value, n, "application/xhtml+xml");
}

int wn_warc_http_sniff_html(const char *bytes, size_t len) {
  /* WHATWG MIME Sniffing, 7.1, the rows whose pattern is "<" + a tag name
   * + a tag-terminating byte (space or ">"), case-insensitive, after
   * leading white space. */
  static const char *const tags[] = {
      "!DOCTYPE HTML", "HTML",  "HEAD", "SCRIPT", "IFRAME", "H1", "DIV", "FONT", "TABLE", "A",
      "STYLE",         "TITLE", "B",    "BODY",   "BR",     "P",  "!--"};
  size_t i = 0;
  if (len >= 3 && (unsigned char)bytes[0] == 0xEF && (unsigned char)bytes[1] == 0xBB &&
      (unsigned char)bytes[2] == 0xBF)
    i = 3;
  while (i < len && (bytes[i] == ' ' || bytes[i] == '\t' || bytes[i] == '\n' || bytes[i] == '\r' ||
                     bytes[i] == '\f'))
    i++;
  if (i >= len || bytes[i] != '<')
    return 0;
  i++;
  for (size_t t = 0; t < sizeof tags / sizeof tags[0]; t++) {
    size_t n = strlen(tags[t]);
    if (len - i < n + 1 || !wn_ascii_equal_ci(bytes + i, n, tags[t]))
      continue;
    char after = bytes[i + n];
    if (after == ' ' || after == '>')
      return 1;
  }
  return 0;
}
