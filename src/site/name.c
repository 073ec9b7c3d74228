/* site/name.c: the one rule from a URL to its site, and what a site name
 * may be. */
#include "site/site_int.h"

#include <string.h>

#include <curl/curl.h>

wn_err wn_site_from_url(const char *url, char *site, size_t site_size, wn_diag *diag) {
  wn_err err = WN_OK;
  CURLU *h = NULL;
  char *scheme = NULL, *host = NULL, *port = NULL;
  if (site_size > 0)
    site[0] = '\0';
  if (!url)
    return wn_diag_set(diag, WN_EINVAL, "no URL");
  size_t url_len = strnlen(url, WN_URL_MAX + 1);
  if (url_len > WN_URL_MAX)
    return wn_diag_set(diag, WN_EINVAL, "URL is longer than %zu bytes", WN_URL_MAX);
  h = curl_url();
  if (!h)
    return wn_diag_set(diag, WN_ENOMEM, "out of memory parsing a URL");
  /* No default scheme: "example.com/x" is a file name or a typo, not a
   * URL; curl_url refuses it without CURLU_GUESS_SCHEME. */
  CURLUcode rc = curl_url_set(h, CURLUPART_URL, url, 0);
  if (rc == CURLUE_OUT_OF_MEMORY) {
    err = wn_diag_set(diag, WN_ENOMEM, "out of memory parsing a URL");
    goto out;
  }
  if (rc != CURLUE_OK) {
    err = wn_diag_set(diag, WN_EINVAL, "not a URL: '%.200s' (%s)", url, curl_url_strerror(rc));
    goto out;
  }
  rc = curl_url_get(h, CURLUPART_SCHEME, &scheme, 0);
  if (rc != CURLUE_OK) {
    err = wn_diag_set(diag, WN_EINVAL, "not a URL: '%.200s'", url);
    goto out;
  }
  if (strcmp(scheme, "http") != 0 && strcmp(scheme, "https") != 0) {
    err = wn_diag_set(diag, WN_EINVAL, "%s URLs are not supported (only http and https): '%.200s'",
                      scheme, url);
    goto out;
  }
  rc = curl_url_get(h, CURLUPART_HOST, &host, 0);
  if (rc != CURLUE_OK || !host[0]) {
    err = wn_diag_set(diag, WN_EINVAL, "URL '%.200s' has no host", url);
    goto out;
  }
  /* The port only when it is not the scheme's default: http://x:80/ and
   * http://x/ are one site, http://x:8080/ another. */
  rc = curl_url_get(h, CURLUPART_PORT, &port, CURLU_NO_DEFAULT_PORT);
  if (rc != CURLUE_OK && rc != CURLUE_NO_PORT) {
    err = wn_diag_set(diag, WN_EINVAL, "URL '%.200s': %s", url, curl_url_strerror(rc));
    goto out;
  }
  size_t len = strlen(host) + (port ? 1 + strlen(port) : 0);
  if (len > WN_SITE_MAX || len >= site_size) {
    err = wn_diag_set(diag, WN_EINVAL, "host of URL '%.200s' is longer than %u bytes", url,
                      WN_SITE_MAX);
    goto out;
  }
  /* curl keeps the host's case; DNS names are case-insensitive, so the
   * site is lower-cased (LOCALHOST and localhost are one site). */
  size_t k = 0;
  for (const char *p = host; *p; p++)
    site[k++] = (*p >= 'A' && *p <= 'Z') ? (char)(*p + 32) : *p;
  if (port) {
    site[k++] = ':';
    for (const char *p = port; *p; p++)
      site[k++] = *p;
  }
  site[k] = '\0';
out:
  curl_free(port);
  curl_free(host);
  curl_free(scheme);
  curl_url_cleanup(h);
  return err;
}

wn_err wn_site_check(const char *site, wn_diag *diag) {
  if (!site)
    return wn_diag_set(diag, WN_EINVAL, "no site name");
  size_t len = strnlen(site, (size_t)WN_SITE_MAX + 1);
  if (len == 0)
    return wn_diag_set(diag, WN_EINVAL, "site name is empty");
  if (len > WN_SITE_MAX)
    return wn_diag_set(diag, WN_EINVAL, "site name is longer than %u bytes", WN_SITE_MAX);
  /* A host name, or a bracketed IPv6 address, then an optional port: the
   * form wn_site_from_url writes, so a site given by name and one taken
   * from a URL cannot differ in spelling only. */
  size_t i = 0;
  if (site[0] == '[') {
    while (i < len && site[i] != ']')
      i++;
    if (i == len)
      return wn_diag_set(diag, WN_EINVAL, "site name '%.100s': '[' without ']'", site);
    for (size_t k = 1; k < i; k++) {
      char c = site[k];
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || c == ':' || c == '.'))
        return wn_diag_set(diag, WN_EINVAL, "site name '%.100s': not an IPv6 address", site);
    }
    i++;
  } else {
    for (; i < len && site[i] != ':'; i++) {
      char c = site[i];
      if (c >= 'A' && c <= 'Z')
        return wn_diag_set(diag, WN_EINVAL,
                           "site name '%.100s' has upper case; sites are lower-case hosts", site);
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
            c == '_' || (unsigned char)c >= 0x80))
        return wn_diag_set(diag, WN_EINVAL,
                           "site name '%.100s' is not a host name (a character '%c' at %zu); "
                           "give the host, e.g. www.example.com",
                           site, c >= 0x20 && c < 0x7f ? c : '?', i);
    }
    if (i == 0)
      return wn_diag_set(diag, WN_EINVAL, "site name '%.100s' has no host", site);
  }
  if (i < len) {
    if (site[i] != ':' || i + 1 == len || len - i - 1 > 5)
      return wn_diag_set(diag, WN_EINVAL, "site name '%.100s': bad port", site);
    for (size_t k = i + 1; k < len; k++)
      if (site[k] < '0' || site[k] > '9')
        return wn_diag_set(diag, WN_EINVAL, "site name '%.100s': bad port", site);
  }
  return WN_OK;
}
