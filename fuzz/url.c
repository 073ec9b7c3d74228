/* URLs and site names (src/fetch/url.c, wn_site_from_url, wn_site_check):
 * the input up to the first newline is a base, the rest an href (or the
 * whole input a URL, and a site name). Invariant: a site that
 * wn_site_from_url writes passes wn_site_check and wn_site_name_valid. */
#include "fuzz.h"

#include <winnow/winnow.h>

#include "fetch/fetch.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  if (wn_init())
    abort();
  return 0;
}

static void check_site_of(const char *url) {
  char site[WN_SITE_MAX + 1];
  wn_diag diag = {{0}};
  if (wn_site_from_url(url, site, sizeof site, &diag) == WN_OK) {
    if (wn_site_check(site, &diag) != WN_OK || !wn_site_name_valid(site)) {
      fprintf(stderr, "site '%s' of '%s' is not a valid site name\n", site, url);
      abort();
    }
  }
  char host[WN_SITE_MAX + 1];
  (void)wn_url_host(url, host, sizeof host, &diag);
  char small[8];
  (void)wn_url_site(url, small, sizeof small, &diag);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 3 * WN_URL_MAX)
    return 0;
  char *all = wn_fuzz_cstr(data, size);
  wn_diag diag = {{0}};
  check_site_of(all);
  (void)wn_site_check(all, &diag);
  (void)wn_site_name_valid(all);

  char *nl = strchr(all, '\n');
  const char *base = all, *href = all;
  if (nl) {
    *nl = '\0';
    href = nl + 1;
  }
  char *out = NULL;
  if (wn_url_resolve(nl ? base : NULL, href, &out, &diag) == WN_OK) {
    check_site_of(out);
    /* Normal form is a fixed point. */
    char *again = NULL;
    if (wn_url_resolve(NULL, out, &again, &diag) == WN_OK) {
      (void)wn_url_same_site(out, again, 0);
      (void)wn_url_same_site(out, again, 1);
      free(again);
    }
    free(out);
  }
  (void)wn_url_same_site(base, href, 1);
  free(all);
  return 0;
}
