/*
 * fetch: everything that touches the network for learning: URLs and the
 * site a URL belongs to (url.c), robots.txt (robots.c, RFC 9309) and a
 * polite crawler on libcurl multi (crawl.c). It knows nothing of pages'
 * structure: learn takes the bodies it fetches. url.c is also where detect
 * resolves a page's links when it renders them (wn_url_base_*), so that
 * every URL goes through one place.
 */
#ifndef WN_FETCH_H
#define WN_FETCH_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

#include <winnow/winnow.h>

/* ---- URLs (url.c) ----------------------------------------------------------
 * Every URL is parsed, resolved and normalised by libcurl's URL API
 * (curl_url), never by hand. Normal form: scheme and host lower-case,
 * default port dropped, dot segments removed, fragment dropped, an empty
 * path written "/". Only http and https URLs are accepted.
 */

#define WN_URL_MAX ((size_t)8 * 1024) /* longer URLs are refused */

/* Resolves href against base (an absolute URL) and normalises the result;
 * base may be NULL when href is absolute. *out is malloc'd. WN_EINVAL with
 * a message when the result does not parse, is longer than WN_URL_MAX, or
 * is not http(s) (mailto:, javascript:, ftp:, ...). */
wn_err wn_url_resolve(const char *base, const char *href, char **out, wn_diag *diag);

/* A base URL parsed once, for resolving many references against it: a
 * page's links and images written absolute (HTML and Markdown output), its
 * <base href> and canonical URL (metadata). Unlike wn_url_resolve, which
 * chooses pages to crawl, this keeps any scheme (mailto:, ftp:) and the
 * fragment, and a reference that does not resolve is written as it is:
 * rendering a link never fails on the link. */
typedef struct wn_url_base wn_url_base;

/* Parses url (any scheme) as a base into *out (free it with
 * wn_url_base_free). url NULL: an empty base, against which only absolute
 * references resolve (a document without a URL of its own). Returns
 * WN_EINVAL when url does not parse, WN_ENOMEM; *out is NULL then. */
wn_err wn_url_base_parse(const char *url, wn_url_base **out);
void wn_url_base_free(wn_url_base *base);

/* Appends ref, trimmed of ASCII white space (HTML, "valid URL potentially
 * surrounded by spaces"), resolved against base (RFC 3986, 5.2) to out. An
 * empty ref appends nothing. The trimmed ref is appended as written when
 * base is NULL, when ref is longer than WN_URL_MAX or when it does not
 * resolve. Returns only out's errors (WN_ENOMEM, WN_ETOOBIG). */
wn_err wn_url_base_resolve(const wn_url_base *base, const char *ref, wn_buf *out);

/* The host of a URL, lower-case, into host[host_size]. */
wn_err wn_url_host(const char *url, char *host, size_t host_size, wn_diag *diag);

/* The path of an http(s) URL ("/" at least), cut to path[path_size]. */
wn_err wn_url_path(const char *url, char *path, size_t path_size, wn_diag *diag);

/* 1 if a and b (normalised URLs) belong to the same site: the same host,
 * or with by_domain the same registrable domain (public suffix list, via
 * libpsl: news.example.co.uk and www.example.co.uk share example.co.uk);
 * 0 if not or if either does not parse. */
int wn_url_same_site(const char *a, const char *b, int by_domain);

/* ---- the site a URL belongs to (url.c) ---------------------------------------
 *
 * One rule, used everywhere a site is named (the store's key, the CLI, the
 * crawl's report): the host, lower-case (IDN hosts in their punycode
 * form), then ":port" unless the port is the scheme's default (80 for
 * http, 443 for https). IPv6 hosts keep their brackets ("[::1]:8080").
 * The scheme is not part of it: http://x/ and https://x/ are one site.
 */

/* WN_SITE_MAX (255 bytes) is public (winnow.h). */

/* The site of an http(s) URL into site[site_size] (WN_SITE_MAX + 1 holds
 * any). The URL is read as a browser reads one: spaces and controls around
 * it dropped, tabs and newlines in it removed, spaces and other controls in
 * it percent-encoded, so that a space in the path does not hide the host.
 * An internationalised host is named in punycode. WN_EINVAL with a message
 * for anything else: "ftp URLs are not supported: only http and https",
 * "not a URL: '...'" for a string that is none, "url: host '...' has no
 * ASCII form ..." for an IDN host that cannot be converted; WN_ETOOBIG if
 * the name is longer than site_size allows; WN_ENOMEM only when memory
 * runs out. On any error site is "". */
wn_err wn_url_site(const char *url, char *site, size_t site_size, wn_diag *diag);

/* 1 if site is a site name as wn_url_site writes them: 1 to WN_SITE_MAX
 * bytes, a host of [a-z0-9._-] or a bracketed IPv6 literal, then
 * optionally ':' and a port 1..65535; no upper case, no '/', nothing
 * else. 0 otherwise (and for NULL). */
int wn_site_name_valid(const char *site);

/* ---- robots.txt (robots.c), RFC 9309 -------------------------------------- */

typedef struct wn_robots wn_robots;

/* Parses a robots.txt body for one user agent (the product token of our
 * User-Agent, matched case-insensitively; groups for "*" apply when no
 * group names us). Bytes past 500 KiB are ignored (RFC 9309, 2.5). */
wn_err wn_robots_parse(const char *body, size_t len, const char *user_agent, wn_robots **out,
                       wn_diag *diag);
/* A robots.txt that allows everything (4xx answer) or nothing (5xx or
 * unreachable). */
wn_err wn_robots_new_all(int allow, wn_robots **out, wn_diag *diag);
/* 1 if the path (with its query, percent-encoded as in the URL) may be
 * fetched: longest matching rule wins, allow wins a tie, '*' and '$'
 * patterns as in RFC 9309 2.2.2; /robots.txt is always allowed. */
int wn_robots_allowed(const wn_robots *robots, const char *path);
/* Crawl-delay of our group in milliseconds (0 if none). */
uint32_t wn_robots_crawl_delay_ms(const wn_robots *robots);
void wn_robots_free(wn_robots *robots);

/* ---- fetching (crawl.c): libcurl multi, a polite client --------------------- */

/* wn_crawl_options, wn_crawl_options_init and WN_CRAWL_DEFAULT_USER_AGENT
 * are public (winnow.h). wn_crawl_create also reads 0 in
 * connect_timeout_ms, timeout_ms, max_body_bytes, host_parallel and
 * total_parallel (and a NULL or empty user_agent) as the default; 0 in
 * host_delay_ms, max_crawl_delay_ms (Crawl-delay ignored) and
 * max_redirects (no redirect followed) means 0. max_redirects above 5 is
 * taken as 5. */

/* One fetch's outcome. err is WN_OK only for a 2xx answer whose media type
 * is text/html or application/xhtml+xml and whose body fits the cap; any
 * other outcome keeps err and a one-line message saying what happened
 * (e.g. "HTTP 404", "robots.txt disallows /private/", "timed out after
 * 30000 ms", "not HTML: application/pdf", "body larger than 8388608
 * bytes", "more than 5 redirects", "could not resolve host"). When the
 * host's robots.txt could not be fetched at all (refused, unresolvable,
 * timed out), its pages are not fetched either and carry that error
 * (WN_ENET, WN_ETIMEOUT). When no connection was made at all the message
 * says the host is unreachable, the same as a page would ("could not
 * connect to 127.0.0.1:9 (connection refused)", "could not resolve host
 * x.invalid", "could not connect to h:80 (connect timed out after 5000
 * ms)"); other robots.txt failures start "robots.txt: ". A robots.txt
 * answering 5xx makes every page WN_EROBOTS. */
typedef struct wn_fetch {
  char *url;            /* as asked (malloc'd copy) */
  char *final_url;      /* after redirects (malloc'd) or NULL */
  long http_status;     /* 0 if no HTTP answer */
  char media_type[128]; /* lower-case, without parameters; "" if none */
  char charset[48];     /* Content-Type charset parameter; "" if none */
  char *body;           /* malloc'd, NUL-terminated; NULL unless err == WN_OK */
  size_t body_len;
  uint32_t fetch_ms;    /* request start to last byte (network wait) */
  uint32_t queued_ms;   /* waited for politeness before the request */
  wn_err err;
  char message[256];
} wn_fetch;

/* NULL when a crawl for a stranger may connect to the address (family
 * AF_INET with a struct in_addr, or AF_INET6 with a struct in6_addr), else
 * what the address is: "loopback", "private (10.0.0.0/8)", "link-local
 * (169.254.0.0/16, cloud metadata)"... (wn_crawl_options.refuse_private). */
const char *wn_ip_kind(int family, const void *addr);

typedef struct wn_crawl wn_crawl;

/* opts may be NULL (defaults). Copies what it needs from opts. */
wn_err wn_crawl_create(const wn_crawl_options *opts, wn_crawl **out, wn_diag *diag);
void wn_crawl_destroy(wn_crawl *crawl);

/* Fetches urls[0..n) concurrently within the politeness limits (robots.txt
 * fetched once per host and cached for the crawl's life; per-host delay
 * and parallel cap; Crawl-delay), out[i] for urls[i]. Returns WN_OK when
 * every fetch ran to an outcome (each out[i].err says which); another
 * error only when the batch itself failed (out of memory, curl could not
 * start), and then out[] may hold partial results: wn_fetch_clear each.
 * Compressed transfers are decoded; the body cap counts decoded bytes.
 * A "host" is an origin (scheme, host, port: what robots.txt covers,
 * RFC 9309 2.3); the crawl remembers 1024 of them, forgetting the least
 * recently used when full. Redirects (at most max_redirects hops) are
 * followed hop by hop like new requests: each target passes its own
 * origin's robots.txt, delay and parallel cap; final_url says where the
 * page came from, fetch_ms sums the hops. */
wn_err wn_crawl_fetch(wn_crawl *crawl, const char *const *urls, size_t n, wn_fetch *out,
                      wn_diag *diag);
/* Milliseconds this crawl's wn_crawl_fetch calls have spent, in all,
 * waiting for a per-origin delay (host_delay_ms, Crawl-delay) to run out
 * with no request in flight: politeness, not network time. Callers take
 * the difference around a wn_crawl_fetch to split its wall time. 0 for
 * NULL. */
double wn_crawl_waited_ms(const wn_crawl *crawl);
/* Frees what a wn_fetch holds and zeroes it. */
void wn_fetch_clear(wn_fetch *fetch);

/* ---- Content-Type (content_type.c) ---------------------------------------- */

/* Splits a Content-Type value of len bytes (RFC 9110 8.3): the media type
 * lower-cased without parameters into media, the first charset parameter
 * unquoted into charset ("" if none, or if it does not fit). Either output
 * is cut to its size. wn_content_type_charset (public, winnow.h) is the
 * charset alone of a NUL-terminated value. */
void wn_content_type_split(const char *ct, size_t len, char *media, size_t media_size,
                           char *charset, size_t charset_size);

#endif /* WN_FETCH_H */
