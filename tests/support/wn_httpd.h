/*
 * wn_httpd: a small HTTP/1.1 server on loopback for tests (libmicrohttpd,
 * its own threads, one per connection), serving a fixture directory.
 *
 *   wn_httpd *srv = wn_httpd_start(WN_FIXTURES "/crawl/site");
 *   char url[256];
 *   wn_httpd_url(srv, "/index.html", url, sizeof url);  // http://127.0.0.1:PORT/index.html
 *   ... fetch ...
 *   assert_int_equal(wn_httpd_requests(srv, "/robots.txt"), 1);
 *   wn_httpd_stop(srv);
 *
 * Files. GET /a/b.html serves ROOT/a/b.html with status 200; a path
 * ending in '/' serves its index.html; a missing file is 404. The
 * Content-Type comes from the extension: .html/.htm text/html, .xhtml
 * application/xhtml+xml, .txt text/plain, .pdf application/pdf, .json
 * application/json, .xml application/xml, .css text/css, .js
 * text/javascript, .png image/png, .gz application/gzip, anything else
 * application/octet-stream (no charset parameter is added).
 *
 * Sidecar. ROOT/a/b.html.headers, if present, changes the answer: one
 * "Name: value" per line; "Status: 503" sets the status, every other line
 * is sent as a header and replaces the default of the same name (e.g.
 * "Content-Type: text/html; charset=windows-1252", "Location: /x",
 * "Content-Encoding: gzip" for a file stored compressed). A sidecar may
 * exist without its file (then the body is empty): ROOT/robots.txt.headers
 * with "Status: 503" makes robots.txt answer 503.
 *
 * Built-in paths (the numbers are decimal):
 *   /__status/<code>   that status (200..599) with a small HTML body
 *   /__slow/<ms>       waits <ms> (at most 60000), then a small HTML page
 *   /__redirect/<n>    302 to /__redirect/<n-1>; /__redirect/0 is a page
 *   /__loop            302 to itself, for ever
 *   /__to/<host>/<p>   302 to http://<host>:<this port>/<p>: with host
 *                      "localhost", a redirect to another origin
 *   /__big/<bytes>     an HTML page of exactly <bytes> bytes (at most 1 GiB,
 *                      generated as it is sent)
 *   /__gzip/<path>     ROOT/<path> gzip-compressed with Content-Encoding:
 *                      gzip when the request accepts gzip, else plain
 *
 * Every request is logged (Host without port, path without query, time on
 * the CLOCK_MONOTONIC clock in ms, as wn_httpd_now_ms) under a mutex;
 * the log keeps the first 4096 requests.
 */
#ifndef WN_HTTPD_H
#define WN_HTTPD_H

#include <stddef.h>
#include <stdint.h>

typedef struct wn_httpd wn_httpd;

/* Starts serving root_dir on 127.0.0.1, on a free port the kernel picks.
 * NULL on failure (a message on stderr). */
wn_httpd *wn_httpd_start(const char *root_dir);
/* Stops the server (waits for its threads) and frees it; NULL is harmless. */
void wn_httpd_stop(wn_httpd *srv);

uint16_t wn_httpd_port(const wn_httpd *srv);
/* "http://127.0.0.1:PORT" + path into buf; 0, or -1 if it does not fit. */
int wn_httpd_url(const wn_httpd *srv, const char *path, char *buf, size_t size);
/* The same with another name for the loopback address, e.g. "localhost":
 * to the crawler a different host (own robots.txt, own delays). */
int wn_httpd_url_host(const wn_httpd *srv, const char *host, const char *path, char *buf,
                      size_t size);

/* Requests for path so far (any host). */
size_t wn_httpd_requests(wn_httpd *srv, const char *path);
/* Times (ms, wn_httpd_now_ms clock) of the requests for path whose Host
 * is host (NULL: any), in arrival order, at most max into ms (may be NULL
 * with max 0); returns how many there were. */
size_t wn_httpd_request_times(wn_httpd *srv, const char *host, const char *path, uint64_t *ms,
                              size_t max);
/* Responses sent gzip-compressed so far. */
size_t wn_httpd_gzip_count(wn_httpd *srv);
/* Forgets the log. */
void wn_httpd_log_clear(wn_httpd *srv);

/* CLOCK_MONOTONIC in milliseconds. */
uint64_t wn_httpd_now_ms(void);
/* A loopback port with nothing listening on it (bound, read, closed):
 * connecting to it is refused. 0 on failure. */
uint16_t wn_httpd_unused_port(void);

#endif
