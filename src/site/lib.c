/* site/lib.c: the library's process-wide state, its version, wn_free, the
 * one error-to-exit-code mapping and the documented option defaults. */
#include "site/site_int.h"


#include <curl/curl.h>
#include <libxml/parser.h>

const char *wn_version(void) { return WN_VERSION_STRING; }

/* Everything the library hands over is malloc'd: wn_free is free(), kept
 * behind the library's own symbol so that a program need not share our C
 * runtime's allocator. */
void wn_free(void *ptr) { free(ptr); }

int wn_exit_code(wn_err err) {
  switch (err) {
  case WN_OK:
    return WN_EXIT_OK;
  case WN_ESTORE:
  case WN_ENOSPACE:
  case WN_EBUSY:
    return WN_EXIT_STORE;
  case WN_ENOMEM:
    return WN_EXIT_INTERNAL;
  default:
    /* A record that does not decode (ECORRUPT, EVERSION) is the input the
     * command was given (a site), not the store failing: 1, as before. */
    return WN_EXIT_INPUT;
  }
}

/* libxml2 wants one global initialisation before threads start
 * (xmlInitParser is not thread-safe). libcurl's (curl_global_init) is
 * left to where a crawl starts (fetch/crawl.c), as libcurl 7.84 and later
 * allow (reference counted, thread-safe): it initialises TLS, which
 * touches megabytes of libcrypto that a process that only detects pages
 * would carry. An older libcurl is initialised here, from the main
 * thread, as it requires. A count lets a program and a library it embeds
 * both call us. */
#if LIBCURL_VERSION_NUM >= 0x075400
#define WN_INIT_CURL 0
#else
#define WN_INIT_CURL 1
#endif
static unsigned wn_init_count;

wn_err wn_init(void) {
  if (wn_init_count++ > 0)
    return WN_OK;
  xmlInitParser();
  if (WN_INIT_CURL && curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    wn_init_count = 0;
    return WN_ENET;
  }
  return WN_OK;
}

void wn_cleanup(void) {
  if (wn_init_count == 0 || --wn_init_count > 0)
    return;
  if (WN_INIT_CURL)
    curl_global_cleanup();
  xmlCleanupParser();
}

void wn_detect_options_init(wn_detect_options *opts) {
  *opts = (wn_detect_options){.selector = WN_SELECT_SITE,
                              .min_confidence = WN_DETECT_DEFAULT_MIN_CONFIDENCE,
                              .fallback = WN_SINGLE_DANAG};
}

void wn_drift_policy_init(wn_drift_policy *policy) {
  *policy = (wn_drift_policy){.min_pages = WN_STORE_DRIFT_MIN_PAGES,
                              .max_low_share = WN_STORE_DRIFT_SHARE};
}

void wn_detector_options_init(wn_detector_options *opts) {
  *opts = (wn_detector_options){0};
  wn_detect_options_init(&opts->detect);
  opts->cache_sites = 256;
  opts->max_age_ms = 60000;
  opts->count = 1;
  opts->flush_pages = 1000;
  opts->flush_ms = 5000;
  wn_drift_policy_init(&opts->drift);
  opts->max_bytes = WN_DOM_DEFAULT_MAX_BYTES;
  opts->max_nodes = WN_DOM_DEFAULT_MAX_NODES;
  opts->max_depth = WN_DOM_DEFAULT_MAX_DEPTH;
}


