/*
 * fetch/url.c: URLs resolved and normalised by libcurl's URL API, sites
 * named and compared by host or by registrable domain (libpsl).
 *
 * Nothing here takes a URL apart by hand: curl_url parses, resolves
 * (RFC 3986, 5.2) and removes dot segments. We only decide which
 * references to hand it and fix up the few places where curl 7.88 differs
 * from the RFC (see wn_url_resolve).
 */
#include "fetch/fetch.h"

#include <arpa/inet.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <libpsl.h>

/* Lower-cases the ASCII letters of the host in place through the URL API:
 * curl 7.88 keeps the host as written, and our normal form is lower-case
 * (host names compare case-insensitively, RFC 3986 3.2.2). */
static CURLUcode lower_host(CURLU *h) {
  char *host = NULL;
  CURLUcode rc = curl_url_get(h, CURLUPART_HOST, &host, 0);
  if (rc)
    return rc;
  int changed = 0;
  for (char *p = host; *p; p++) {
    if (wn_ascii_capital(*p)) {
      *p = wn_ascii_lower(*p);
      changed = 1;
    }
  }
  if (changed)
    rc = curl_url_set(h, CURLUPART_HOST, host, 0);
  curl_free(host);
  return rc;
}

/* Parses an absolute http(s) URL into a handle, checking the scheme. */
static wn_err parse_http(CURLU *h, const char *url, const char *what, wn_diag *diag) {
  CURLUcode rc = curl_url_set(h, CURLUPART_URL, url, 0);
  if (rc)
    return wn_diag_set(diag, WN_EINVAL, "url: %s does not parse: %s", what,
                       curl_url_strerror(rc));
  char *scheme = NULL;
  rc = curl_url_get(h, CURLUPART_SCHEME, &scheme, 0);
  if (rc)
    return wn_diag_set(diag, WN_EINVAL, "url: %s has no scheme", what);
  int ok = strcmp(scheme, "http") == 0 || strcmp(scheme, "https") == 0;
  wn_err err = ok ? WN_OK
                  : wn_diag_set(diag, WN_EINVAL, "url: %s is not http(s) but %s:", what, scheme);
  curl_free(scheme);
  return err;
}

wn_err wn_url_resolve(const char *base, const char *href, char **out, wn_diag *diag) {
  wn_err err = WN_OK;
  CURLU *h = NULL;
  char *url = NULL;
  char *trimmed = NULL;
  *out = NULL;
  if (!href)
    return wn_diag_set(diag, WN_EINVAL, "url: no href");
  /* An href attribute is trimmed of ASCII whitespace before it is parsed
   * (HTML, "valid URL potentially surrounded by spaces"). */
  size_t len = strlen(href);
  while (len && wn_html_space(*href)) {
    href++;
    len--;
  }
  while (len && wn_html_space(href[len - 1]))
    len--;
  if (len > WN_URL_MAX)
    return wn_diag_set(diag, WN_EINVAL, "url: longer than %zu bytes", WN_URL_MAX);
  trimmed = malloc(len + 1);
  if (!trimmed)
    return wn_diag_set(diag, WN_ENOMEM, "url: out of memory");
  memcpy(trimmed, href, len);
  trimmed[len] = '\0';

  h = curl_url();
  if (!h) {
    err = wn_diag_set(diag, WN_ENOMEM, "url: out of memory");
    goto out;
  }
  if (base) {
    err = parse_http(h, base, "base URL", diag);
    if (err)
      goto out;
  }
  /* An empty reference or a bare fragment names the base document itself
   * (RFC 3986, 5.2.2); curl 7.88 resolves those to the base's directory,
   * so they keep the base as it is. */
  if (!base || (trimmed[0] != '\0' && trimmed[0] != '#')) {
    CURLUcode rc = curl_url_set(h, CURLUPART_URL, trimmed, 0);
    if (rc) {
      err = wn_diag_set(diag, WN_EINVAL, "url: %.200s does not resolve: %s", trimmed,
                        curl_url_strerror(rc));
      goto out;
    }
  }
  char *scheme = NULL;
  if (curl_url_get(h, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK) {
    err = wn_diag_set(diag, WN_EINVAL, "url: %.200s has no scheme", trimmed);
    goto out;
  }
  int http = strcmp(scheme, "http") == 0 || strcmp(scheme, "https") == 0;
  curl_free(scheme);
  if (!http) {
    err = wn_diag_set(diag, WN_EINVAL, "url: %.200s is not http(s)", trimmed);
    goto out;
  }
  if (curl_url_set(h, CURLUPART_FRAGMENT, NULL, 0) != CURLUE_OK || lower_host(h) != CURLUE_OK ||
      curl_url_get(h, CURLUPART_URL, &url, CURLU_NO_DEFAULT_PORT) != CURLUE_OK) {
    err = wn_diag_set(diag, WN_EINVAL, "url: %.200s cannot be normalised", trimmed);
    goto out;
  }
  len = strlen(url);
  if (len > WN_URL_MAX) {
    err = wn_diag_set(diag, WN_EINVAL, "url: longer than %zu bytes", WN_URL_MAX);
    goto out;
  }
  /* Hand the caller malloc'd memory, not curl's. */
  *out = malloc(len + 1);
  if (!*out) {
    err = wn_diag_set(diag, WN_ENOMEM, "url: out of memory");
    goto out;
  }
  memcpy(*out, url, len + 1);
out:
  curl_free(url);
  curl_url_cleanup(h);
  free(trimmed);
  return err;
}

/* ---- a base for many references ---------------------------------------------- */

struct wn_url_base {
  CURLU *h; /* the parsed base; empty for a document without a URL */
};

wn_err wn_url_base_parse(const char *url, wn_url_base **out) {
  wn_err err = WN_ENOMEM;
  wn_url_base *base = NULL;
  *out = NULL;
  base = calloc(1, sizeof *base);
  if (!base)
    goto out;
  base->h = curl_url();
  if (!base->h)
    goto out;
  /* Any scheme: a page's URL may be ftp: or file: and its links still
   * resolve against it. */
  if (url) {
    CURLUcode rc = curl_url_set(base->h, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME);
    if (rc != CURLUE_OK) {
      err = rc == CURLUE_OUT_OF_MEMORY ? WN_ENOMEM : WN_EINVAL;
      goto out;
    }
  }
  *out = base;
  base = NULL;
  err = WN_OK;
out:
  wn_url_base_free(base);
  return err;
}

void wn_url_base_free(wn_url_base *base) {
  if (!base)
    return;
  curl_url_cleanup(base->h);
  free(base);
}

wn_err wn_url_base_resolve(const wn_url_base *base, const char *ref, wn_buf *out) {
  size_t len = strlen(ref);
  while (len && wn_html_space(*ref)) {
    ref++;
    len--;
  }
  while (len && wn_html_space(ref[len - 1]))
    len--;
  if (len == 0)
    return WN_OK;
  if (!base || len > WN_URL_MAX)
    return wn_buf_append(out, ref, len);
  wn_err err = WN_ENOMEM;
  char *trimmed = malloc(len + 1);
  CURLU *h = curl_url_dup(base->h);
  char *url = NULL;
  if (!trimmed || !h)
    goto out;
  memcpy(trimmed, ref, len);
  trimmed[len] = '\0';
  /* A bare fragment names the base document itself (RFC 3986, 5.2.2);
   * curl 7.88 resolves it to the base's directory, so it is set as the
   * fragment. Other references resolve by RFC 3986 in curl_url_set; a
   * space in them is percent-encoded, as browsers do. */
  CURLUcode rc = trimmed[0] == '#'
                     ? curl_url_set(h, CURLUPART_FRAGMENT, trimmed + 1, 0)
                     : curl_url_set(h, CURLUPART_URL, trimmed,
                                    CURLU_NON_SUPPORT_SCHEME | CURLU_ALLOW_SPACE);
  if (rc == CURLUE_OK)
    rc = curl_url_get(h, CURLUPART_URL, &url, 0);
  err = rc == CURLUE_OK ? wn_buf_append_str(out, url) : wn_buf_append(out, ref, len);
out:
  curl_free(url);
  curl_url_cleanup(h);
  free(trimmed);
  return err;
}

/* ---- hosts ------------------------------------------------------------------------ */

/* One part of an http(s) URL into out[size]: the host, lower-case (one
 * longer than out: WN_ETOOBIG), or the path (cut to out: its first
 * segments say most). */
static wn_err url_part(const char *url, CURLUPart part, char *out, size_t size, wn_diag *diag) {
  wn_err err = WN_OK;
  char *got = NULL;
  const int host = part == CURLUPART_HOST;
  if (size)
    out[0] = '\0';
  CURLU *h = curl_url();
  if (!h)
    return wn_diag_set(diag, WN_ENOMEM, "url: out of memory");
  err = parse_http(h, url, "URL", diag);
  if (err)
    goto out;
  if ((host && lower_host(h) != CURLUE_OK) || curl_url_get(h, part, &got, 0) != CURLUE_OK) {
    err = wn_diag_set(diag, WN_EINVAL, "url: no %s in URL", host ? "host" : "path");
    goto out;
  }
  size_t len = strlen(got);
  if (host && len >= size) {
    err = wn_diag_set(diag, WN_ETOOBIG, "url: host longer than %zu bytes", size);
    goto out;
  }
  if (size)
    snprintf(out, size, "%s", got);
out:
  curl_free(got);
  curl_url_cleanup(h);
  return err;
}

wn_err wn_url_host(const char *url, char *host, size_t host_size, wn_diag *diag) {
  return url_part(url, CURLUPART_HOST, host, host_size, diag);
}

wn_err wn_url_path(const char *url, char *path, size_t path_size, wn_diag *diag) {
  return url_part(url, CURLUPART_PATH, path, path_size, diag);
}

/* An IP literal has no registrable domain, whatever the suffix list would
 * make of its last labels ("127.0.0.1" is not a name under "0.1"). */
static int is_ip_literal(const char *host) {
  unsigned char addr[16];
  if (host[0] == '[')
    return 1;
  return inet_pton(AF_INET, host, addr) == 1 || inet_pton(AF_INET6, host, addr) == 1;
}

int wn_url_same_site(const char *a, const char *b, int by_domain) {
  char ha[256], hb[256];
  if (!a || !b || wn_url_host(a, ha, sizeof ha, NULL) || wn_url_host(b, hb, sizeof hb, NULL))
    return 0;
  if (strcmp(ha, hb) == 0)
    return 1;
  if (!by_domain || is_ip_literal(ha) || is_ip_literal(hb))
    return 0;
  /* The built-in list is compiled into libpsl: no file to find at run
   * time. A host that is itself a public suffix has no registrable domain
   * (NULL) and only matches itself. */
  const psl_ctx_t *psl = psl_builtin();
  if (!psl)
    return 0;
  const char *da = psl_registrable_domain(psl, ha);
  const char *db = psl_registrable_domain(psl, hb);
  return da && db && strcmp(da, db) == 0;
}

/* ---- the site a URL belongs to ---------------------------------------------- */

/* A URL as a crawl hands it over, made parseable the way browsers read it
 * (WHATWG URL Standard, basic URL parser, its first steps): leading and
 * trailing C0 controls and spaces dropped, ASCII tab and newline removed
 * wherever they are. The C0 controls, spaces and DEL left are
 * percent-encoded, as the path, query and fragment percent-encode sets do:
 * curl 7.88 refuses a raw space ("Bad path"; CURLU_ALLOW_SPACE is 7.78 and
 * later, and CURLU_URLENCODE still refuses one in the fragment). This only
 * escapes bytes; curl_url still parses. In the host an escape is no way
 * round: curl decodes it there and refuses the host ("Bad hostname").
 * *out is malloc'd (3 bytes per byte at most). */
static wn_err wn_url_tidy(const char *url, size_t len, char **out, wn_diag *diag) {
  static const char hex[] = "0123456789ABCDEF";
  while (len && (unsigned char)url[0] <= 0x20) {
    url++;
    len--;
  }
  while (len && (unsigned char)url[len - 1] <= 0x20)
    len--;
  char *tidy = malloc(3 * len + 1);
  if (!tidy)
    return wn_diag_set(diag, WN_ENOMEM, "url: out of memory");
  size_t n = 0;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)url[i];
    if (c == '\t' || c == '\n' || c == '\r')
      continue;
    if (c <= 0x20 || c == 0x7f) {
      tidy[n++] = '%';
      tidy[n++] = hex[c >> 4];
      tidy[n++] = hex[c & 0xf];
    } else {
      tidy[n++] = (char)c;
    }
  }
  tidy[n] = '\0';
  *out = tidy;
  return WN_OK;
}

static int is_ascii(const char *s) {
  for (; *s; s++)
    if ((unsigned char)*s >= 0x80)
      return 0;
  return 1;
}

/* An internationalised host in its ASCII form (IDNA 2008, punycode), the
 * form site names take, so that http://bücher.example/ and
 * http://xn--bcher-kva.example/ are one site. curl converts with libidn2's
 * idn2_lookup_ul, which reads the host in the charset of the calling
 * thread's locale: in a program that never called setlocale that is ASCII,
 * every non-ASCII host fails, and curl 7.88 reports the failure as
 * CURLUE_OUT_OF_MEMORY. Our URLs are UTF-8 (JSON strings, WARC target
 * URIs, a UTF-8 terminal), so the conversion runs under a UTF-8 locale for
 * this thread only (uselocale, POSIX 2008): neither the process's locale
 * nor other threads see it. Where there is no C.UTF-8 locale, the
 * process's own is used. *ascii is curl's (curl_free). */
static wn_err wn_url_host_ascii(CURLU *h, const char *host, char **ascii, wn_diag *diag) {
  *ascii = NULL;
#ifdef CURLU_PUNYCODE
  locale_t utf8 = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
  locale_t old = utf8 ? uselocale(utf8) : (locale_t)0;
  CURLUcode rc = curl_url_get(h, CURLUPART_HOST, ascii, CURLU_PUNYCODE);
  if (utf8) {
    uselocale(old);
    freelocale(utf8);
  }
  if (rc == CURLUE_OK)
    return WN_OK;
  /* curl 7.88 leaves its copy of the host behind when the conversion
   * fails. */
  curl_free(*ascii);
  *ascii = NULL;
  /* Not WN_ENOMEM even for CURLUE_OUT_OF_MEMORY: curl 7.88 says that for
   * a host libidn2 refuses, and the page is served all the same. */
  return wn_diag_set(diag, WN_EINVAL,
                     "url: host '%.200s' has no ASCII form to name a site with: %s", host,
                     rc == CURLUE_LACKS_IDN ? "libcurl was built without IDN support"
                                            : "not a valid internationalised domain name");
#else
  (void)h;
  return wn_diag_set(diag, WN_EINVAL,
                     "url: host '%.200s' has no ASCII form to name a site with: libcurl is "
                     "older than 7.88 (no CURLU_PUNYCODE)",
                     host);
#endif
}

/* One rule names a site everywhere (learn, detect, the store's keys): the
 * host, lower-case, and the port unless it is the scheme's default. A
 * site is what a template is learned for, and robots.txt and politeness
 * apply per origin (RFC 9309 2.3); the scheme is left out because a site
 * served over http and https is one layout, one template. */
wn_err wn_url_site(const char *url, char *site, size_t site_size, wn_diag *diag) {
  wn_err err = WN_OK;
  CURLU *h = NULL;
  char *tidy = NULL, *scheme = NULL, *host = NULL, *ascii = NULL, *port = NULL;
  if (site_size)
    site[0] = '\0';
  if (!url)
    return wn_diag_set(diag, WN_EINVAL, "not a URL: none given");
  size_t len = strnlen(url, WN_URL_MAX + 1);
  if (len > WN_URL_MAX)
    return wn_diag_set(diag, WN_EINVAL, "not a URL: longer than %zu bytes", WN_URL_MAX);
  /* Without "://" a string is not a URL we take, though curl might read
   * "example.com:8080" as the scheme "example.com". */
  if (!strstr(url, "://"))
    return wn_diag_set(diag, WN_EINVAL,
                       "not a URL: '%.200s' (a URL starts with http:// or https://)", url);
  if ((err = wn_url_tidy(url, len, &tidy, diag)))
    return err;
  h = curl_url();
  if (!h) {
    err = wn_diag_set(diag, WN_ENOMEM, "url: out of memory");
    goto out;
  }
  /* Any scheme parses, so that the message can name it. */
  CURLUcode rc = curl_url_set(h, CURLUPART_URL, tidy, CURLU_NON_SUPPORT_SCHEME);
  if (rc == CURLUE_OK)
    rc = curl_url_get(h, CURLUPART_SCHEME, &scheme, 0);
  if (rc == CURLUE_OUT_OF_MEMORY) {
    err = wn_diag_set(diag, WN_ENOMEM, "url: out of memory");
    goto out;
  }
  if (rc != CURLUE_OK) {
    err = wn_diag_set(diag, WN_EINVAL, "not a URL: '%.200s' (%s)", url, curl_url_strerror(rc));
    goto out;
  }
  if (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0) {
    err = wn_diag_set(diag, WN_EINVAL, "%.40s URLs are not supported: only http and https",
                      scheme);
    goto out;
  }
  rc = curl_url_get(h, CURLUPART_HOST, &host, 0);
  if (rc == CURLUE_OK) {
    /* NULL port: the scheme's default (CURLU_NO_DEFAULT_PORT), or none. */
    CURLUcode prc = curl_url_get(h, CURLUPART_PORT, &port, CURLU_NO_DEFAULT_PORT);
    if (prc != CURLUE_OK && prc != CURLUE_NO_PORT)
      rc = prc;
  }
  if (rc == CURLUE_OUT_OF_MEMORY) {
    err = wn_diag_set(diag, WN_ENOMEM, "url: out of memory");
    goto out;
  }
  if (rc != CURLUE_OK || !host[0]) {
    err = wn_diag_set(diag, WN_EINVAL, "not a URL: '%.200s' has no host", url);
    goto out;
  }
  if (!is_ascii(host) && (err = wn_url_host_ascii(h, host, &ascii, diag)))
    goto out;
  char *name = ascii ? ascii : host;
  for (char *p = name; *p; p++)
    *p = wn_ascii_lower(*p);
  int n = snprintf(site, site_size, "%s%s%s", name, port ? ":" : "", port ? port : "");
  if (n < 0 || (size_t)n >= site_size) {
    if (site_size)
      site[0] = '\0';
    err = wn_diag_set(diag, WN_ETOOBIG, "url: site name of '%.200s' longer than %zu bytes", url,
                      site_size ? site_size - 1 : 0);
    goto out;
  }
  if (!wn_site_name_valid(site)) {
    err = wn_diag_set(diag, WN_EINVAL, "url: host '%.200s' cannot name a site", site);
    site[0] = '\0';
    goto out;
  }
out:
  free(tidy);
  curl_free(scheme);
  curl_free(host);
  curl_free(ascii);
  curl_free(port);
  curl_url_cleanup(h);
  return err;
}

/* '_' is no letter of a host name (RFC 952, RFC 1123 2.1), but DNS
 * carries it (RFC 2181 11), the URL Standard's host parser and curl take
 * it, and real hosts have it ("my_host.example.com"). The store keys a
 * site by its name's bytes and never splits one, and '_' is unreserved in
 * the daemon's /v1/sites/SITE paths, so it names a site like any letter. */
static int is_site_host_char(char c) {
  return wn_ascii_small(c) || wn_ascii_digit(c) || c == '.' || c == '-' || c == '_';
}

static int is_v6_char(char c) {
  return (c >= 'a' && c <= 'f') || wn_ascii_digit(c) || c == ':' || c == '.';
}

int wn_site_name_valid(const char *site) {
  if (!site)
    return 0;
  size_t len = strnlen(site, WN_SITE_MAX + 1);
  if (len == 0 || len > WN_SITE_MAX)
    return 0;
  size_t i = 0;
  if (site[0] == '[') {
    /* An IPv6 literal keeps its brackets, as in a URL (RFC 3986 3.2.2). */
    i = 1;
    while (i < len && is_v6_char(site[i]))
      i++;
    if (i == 1 || i >= len || site[i] != ']')
      return 0;
    i++;
  } else {
    while (i < len && is_site_host_char(site[i]))
      i++;
    if (i == 0)
      return 0;
  }
  if (i == len)
    return 1;
  if (site[i] != ':')
    return 0;
  /* A port: 1 to 65535, in decimal, without a leading zero. */
  i++;
  if (i == len || len - i > 5 || site[i] == '0')
    return 0;
  unsigned long port = 0;
  for (; i < len; i++) {
    if (site[i] < '0' || site[i] > '9')
      return 0;
    port = port * 10 + (unsigned long)(site[i] - '0');
  }
  return port <= 65535;
}
