/* site/name.c: the public names of the one URL-to-site rule, which lives
 * with the URL code (src/fetch/url.c: wn_url_site, wn_site_name_valid). */
#include "site/site_int.h"

wn_err wn_site_from_url(const char *url, char *site, size_t site_size, wn_diag *diag) {
  return wn_url_site(url, site, site_size, diag);
}

wn_err wn_site_check(const char *site, wn_diag *diag) {
  if (!site)
    return wn_diag_set(diag, WN_EINVAL, "no site name");
  if (wn_site_name_valid(site))
    return WN_OK;
  /* The form wn_url_site writes, so that a site given by name and one
   * taken from a URL cannot differ in spelling only. */
  return wn_diag_set(diag, WN_EINVAL,
                     "site name '%.100s' is not a site: give its host, lower-case, with "
                     ":port unless it is the default (www.example.com, 127.0.0.1:8080)",
                     site);
}
