/*
 * warc: reading and writing WARC files (ISO 28500:2009, WARC 1.0, and
 * ISO 28500:2017, WARC 1.1), the public API of which is the "WARC" section
 * of include/winnow/winnow.h.
 *
 *   read.c   the byte stream (plain or gzip, zlib continuing across
 *            members), the record layer (header, block, trailer, resync)
 *   http.c   the HTTP response inside a `response` record: status line,
 *            headers, chunked transfer coding, content coding, HTML sniff
 *   write.c  records out (warcinfo, conversion, any), gzip per record or
 *            whole file, record ids, block digests
 *
 * This header holds what the files share and what the unit tests reach.
 */
#ifndef WN_WARC_H
#define WN_WARC_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

#include <winnow/winnow.h>

/* "sha1:" and the 32 base32 characters of a 160-bit digest, NUL. */
#define WN_WARC_DIGEST_SIZE 38u

/* The WARC-Block-Digest value of a block, "sha1:" + base32 (RFC 4648,
 * upper case, no padding: 160 bits are exactly 32 characters) of its SHA-1,
 * the labelled digest of WARC 1.0's WARC-Block-Digest field (ISO 28500:2009,
 * section 5, whose example is "sha1:" and base32). */
void wn_warc_digest(const void *block, size_t len, char out[WN_WARC_DIGEST_SIZE]);

/* ---- http.c -------------------------------------------------------------- */

/* A parsed HTTP response message. Pointers are into the block (not
 * NUL-terminated) unless said. */
typedef struct wn_warc_http {
  int status;
  const char *content_type; /* the header's value, or NULL */
  size_t content_type_len;
  int chunked;                  /* Transfer-Encoding names chunked */
  const char *content_encoding; /* or NULL */
  size_t content_encoding_len;
  const char *body;
  size_t body_len;
} wn_warc_http;

/* Parses the status line and headers of an HTTP/1.x response (CRLF or bare
 * LF line ends, header lines folded with leading white space joined), at
 * most max_header bytes of them. WN_EPARSE: not an HTTP response;
 * WN_ETOOBIG: the header is longer than max_header. */
wn_err wn_warc_http_parse(const char *block, size_t len, size_t max_header, wn_warc_http *out,
                          wn_diag *diag);

/* Undoes the chunked transfer coding (RFC 9112, 7.1) of in into out (whose
 * cap bounds the result). Trailer fields are dropped. A body that ends
 * before its last chunk is WN_ECORRUPT. */
wn_err wn_warc_http_dechunk(const char *in, size_t len, wn_buf *out, wn_diag *diag);

/* Decompresses a gzip, zlib or raw deflate body (the "gzip", "x-gzip" and
 * "deflate" content codings; "deflate" is meant to be zlib but servers
 * send raw deflate too, RFC 9110, 8.4.1.2) into out (cap bounds it).
 * WN_ETOOBIG past the cap, WN_ECORRUPT for damaged data. */
wn_err wn_warc_http_inflate(const char *in, size_t len, wn_buf *out, wn_diag *diag);


/* The media type of a Content-Type value is HTML (text/html or
 * application/xhtml+xml): 1, else 0. (Its charset: wn_content_type_split,
 * fetch.h.) */
int wn_warc_http_type_is_html(const char *value, size_t len);

/* 1 if bytes without a Content-Type look like HTML: the WHATWG MIME
 * Sniffing standard's HTML patterns (section 7.1, "identifying a resource
 * with an unknown MIME type": a tag such as "<!DOCTYPE HTML", "<HTML",
 * "<BODY", "<P" or "<!--" after leading white space, followed by a space
 * or ">"). */
int wn_warc_http_sniff_html(const char *bytes, size_t len);

#endif /* WN_WARC_H */
