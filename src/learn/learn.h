/*
 * learn: from a site's sample pages to the site's template.
 *
 * The site-level paper (../shared/papers/site-level-etdm-main-content.md)
 * maps a key page against each page of its n-SET with an equal top-down
 * mapping (ETDM, Sec. 2.2) and counts, per key-page node, in how many
 * sample pages it recurs (Algorithm 1). A daemon needs a template that
 * serves every later page of the site, so we generalise: all sample pages
 * are merged top-down into one tree, like a site style tree, each node
 * counting the sample pages that hold an equal node at the mapped place;
 * nodes held by fewer than min_count pages (page-specific content) are
 * dropped. That tree is the template (src/template).
 */
#ifndef WN_LEARN_H
#define WN_LEARN_H

#include <stddef.h>
#include <stdint.h>

#include "dom/dom.h"
#include "template/template.h"
#include "util/util.h"

/* wn_learn_options (min_count 0 read as 2; selector kept in the
 * template) and WN_LEARN_MAX_PAGES are public (include/winnow/winnow.h). */

/* Algorithm 1 of the paper: occurrences[i] (the caller's array of the key
 * page's node count) receives how many of the other pages hold a node
 * mapped to key node i by the ETDM. */
wn_err wn_learn_occurrences(const wn_dom_page *key, const wn_dom_page *const *others,
                            size_t n_others, uint32_t *occurrences, wn_diag *diag);

/* The sample page whose ETDM mappings with the others pair the most nodes
 * in all (the first on a tie): the base of the template. */
wn_err wn_learn_medoid(const wn_dom_page *const *pages, size_t n_pages, size_t *base,
                       wn_diag *diag);

/* Learns a template from the pages: Algorithm 1 with the medoid page as
 * the key page (pages[0], the page the caller calls key, is preferred on
 * a tie), keeping the nodes that occur in at least min_count pages. */
wn_err wn_learn_template(const wn_dom_page *const *pages, size_t n_pages,
                         const wn_learn_options *opts, wn_template **out, wn_diag *diag);

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

/* The host of a URL, lower-case, into host[host_size]. */
wn_err wn_url_host(const char *url, char *host, size_t host_size, wn_diag *diag);

/* 1 if a and b (normalised URLs) belong to the same site: the same host,
 * or with by_domain the same registrable domain (public suffix list, via
 * libpsl: news.example.co.uk and www.example.co.uk share example.co.uk);
 * 0 if not or if either does not parse. */
int wn_url_same_site(const char *a, const char *b, int by_domain);

/* One hyperlink of a page. */
typedef struct wn_link {
  char *url;     /* absolute, normalised, no fragment (malloc'd) */
  uint32_t node; /* index of the <a> element in the page's compact tree */
} wn_link;

/* The page's <a href> links to http(s) URLs in document order, resolved
 * against the page's <base href> (itself resolved against page_url) or
 * else page_url. Needs a page parsed with keep_xml. Links that do not
 * resolve are skipped; duplicates are kept (each is one place in the DOM).
 * At most max_links (0: 10000). Free with wn_links_free. */
wn_err wn_learn_links(const wn_dom_page *page, const char *page_url, size_t max_links,
                      wn_link **out, size_t *n_out, wn_diag *diag);
void wn_links_free(wn_link *links, size_t n);

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

/* wn_crawl_options and wn_crawl_options_init are public (winnow.h). wn_crawl_create
 * also reads 0 in connect_timeout_ms, timeout_ms, max_body_bytes,
 * host_parallel and total_parallel (and a NULL or empty user_agent) as the
 * default; 0 in host_delay_ms, max_crawl_delay_ms (Crawl-delay ignored) and
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
 * (WN_ENET, WN_ETIMEOUT) with a message starting "robots.txt: "; a
 * robots.txt answering 5xx makes every page WN_EROBOTS. */
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
/* Frees what a wn_fetch holds and zeroes it. */
void wn_fetch_clear(wn_fetch *fetch);

/* ---- the n-SET (nset.c): site-level paper, Sec. 2.1 -------------------------
 *
 * The paper ranks the key page's same-site links by "hyperlink distance"
 * (as close to zero as possible) and breaks ties by "DOM distance" (links
 * as far apart as possible in the key page's DOM), without formulas. Ours:
 *
 *  hyperlink distance h(K, U) between the key URL K and a link U: split
 *  both paths at '/' into segments (K = k1..km, U = u1..un; "/a/b/" has
 *  the segments a, b and ""), then
 *      h = |m - n| + #{ i <= min(m, n) : k_i !~ u_i } + (query K !~ query U)
 *  where x !~ y means the two differ after each run of digits is folded to
 *  one digit (story-123.html ~ story-9.html, 2015/11/20 ~ 2015/12/01: pages
 *  that differ only in numbers are the likeliest to share a template).
 *  Links to the key page itself, to other sites and duplicates of an
 *  earlier link are not candidates.
 *
 *  DOM distance between two link nodes: the number of edges on the tree
 *  path between them, depth(a) + depth(b) - 2 depth(lowest common
 *  ancestor).
 *
 *  Ranking: by h ascending; within one h, greedily for spread (farthest-
 *  first): the next candidate is the one whose smallest DOM distance to the
 *  candidates ranked so far (of any h) is largest, earlier in document
 *  order on a tie; the very first is the first in document order. Links in
 *  one menu point to pages of one kind; spread samples the page's regions.
 */

/* h as defined above for two normalised URLs; UINT32_MAX if either does
 * not parse. */
uint32_t wn_learn_hyperlink_distance(const char *key_url, const char *url);
/* Edges between nodes a and b of the page. */
uint32_t wn_learn_dom_distance(const wn_dom_page *page, uint32_t a, uint32_t b);

typedef struct wn_nset_candidate {
  size_t link;                 /* index in the links array */
  uint32_t hyperlink_distance;
  uint32_t dom_distance;       /* smallest DOM distance to the candidates
                                  ranked before it; UINT32_MAX for the first */
} wn_nset_candidate;

#define WN_NSET_MAX_CANDIDATES 4096u /* distinct same-site links considered */

/* Ranks the key page's links (from wn_learn_links) as above; the first
 * max_ranked (0: 64) are written to *out (malloc'd), best first. */
wn_err wn_learn_nset_rank(const wn_dom_page *key, const char *key_url, const wn_link *links,
                          size_t n_links, int by_domain, size_t max_ranked,
                          wn_nset_candidate **out, size_t *n_out, wn_diag *diag);

/* ---- learning a site by crawling (nset.c) ----------------------------------- */

typedef struct wn_learn_crawl_options {
  uint32_t n;             /* pages in the n-SET besides the key page;
                             default 4, the paper's best (Sec. 3, Table 1) */
  uint32_t max_fetches;   /* candidate pages fetched at most; default 4 n */
  double min_share;       /* a page must pair this share of the key page's
                             template nodes to join; default 0.5 */
  int by_domain;          /* same site = registrable domain, not host */
  wn_learn_options learn;
  wn_dom_options dom;     /* caps for parsing; transport_charset is ignored */
} wn_learn_crawl_options;

/* One page the crawl fetched (the key page first, then each candidate in
 * the order fetched). */
typedef struct wn_learn_crawl_page {
  char *url;               /* malloc'd */
  char *final_url;         /* after redirects, malloc'd, may be NULL */
  long http_status;
  uint64_t bytes;
  uint32_t fetch_ms;
  uint32_t hyperlink_distance; /* 0 for the key page */
  uint32_t dom_distance;       /* UINT32_MAX for the key page and the first */
  double share;            /* of the key page's template nodes it pairs */
  int used;                /* 1: learned from */
  wn_err err;              /* WN_OK, or why it was not used */
  char message[256];
} wn_learn_crawl_page;

typedef struct wn_learn_crawl_result {
  wn_template *tpl;        /* owned; NULL after wn_learn_crawl failed */
  wn_learn_crawl_page *pages;
  size_t n_pages;
  size_t n_used;           /* pages learned from, the key page included */
  size_t n_links;          /* <a href> links on the key page */
  size_t n_candidates;     /* ranked candidates */
  uint32_t page_nodes;     /* nodes of the pages learned from */
  double network_ms;       /* wall time spent waiting in wn_crawl_fetch */
  double compute_ms;       /* wall time of our own work (parse, links,
                              rank, map, learn) */
} wn_learn_crawl_result;

/* Fetches the key page, ranks its links, fetches the best candidates,
 * keeps those that share the key page's template (replacing a page that
 * failed or does not with the next candidate, up to max_fetches), and
 * learns the template from the key page and the pages kept. A key page
 * that cannot be fetched or parsed fails with its fetch error and a message
 * naming the URL; so does a site where no candidate qualifies (WN_EEMPTY).
 * Fewer than n good pages is not an error: n_used says how many. *out is
 * set even on failure when the key page was fetched (for reporting); free
 * it with wn_learn_crawl_result_free. */
wn_err wn_learn_crawl(wn_crawl *crawl, const char *key_url, const wn_learn_crawl_options *opts,
                      wn_learn_crawl_result **out, wn_diag *diag);
void wn_learn_crawl_result_free(wn_learn_crawl_result *result);

#endif /* WN_LEARN_H */
