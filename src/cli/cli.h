/*
 * cli: the `winnow` command line, a thin front end over the core.
 *
 * Argument parsing and formatting only: every step of learning and
 * detection is a call into src/dom, src/learn, src/template, src/detect and
 * src/store. The exit codes below are a contract scripts rely on (see the
 * comment block at the top of main.c); they are only ever appended.
 */
#ifndef WN_CLI_H
#define WN_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "detect/detect.h"
#include "store/store.h"
#include "template/template.h"
#include "util/util.h"

/* Exit codes (documented in main.c). */
enum {
  WN_EXIT_OK = 0,       /* done */
  WN_EXIT_INPUT = 1,    /* a page, URL, site or record could not be used */
  WN_EXIT_USAGE = 2,    /* bad command line */
  WN_EXIT_STORE = 3,    /* the store could not be opened, read or written */
  WN_EXIT_INTERNAL = 4  /* out of memory, or the output could not be written */
};

/* Longest URL we hand to libcurl's URL parser. */
#define WN_CLI_MAX_URL ((size_t)64 * 1024)
/* Longest JSONL input line: a page of WN_DOM_DEFAULT_MAX_BYTES plus its
 * JSON escaping (quotes and backslashes double) and the other fields. */
#define WN_CLI_MAX_LINE_BYTES ((size_t)32 * 1024 * 1024)
/* Largest rendered output of one page (text or HTML). HTML serialisation
 * may grow a page by its entity escapes; four times the page cap is far
 * more than any page needs. */
#define WN_CLI_MAX_OUTPUT_BYTES (4 * WN_DOM_DEFAULT_MAX_BYTES)
/* Decoded templates a JSONL stream keeps, one per site. */
#define WN_CLI_TEMPLATE_CACHE 256u

typedef enum wn_cli_format {
  WN_FORMAT_TEXT = 0,
  WN_FORMAT_HTML,
  WN_FORMAT_JSON
} wn_cli_format;

/* How `winnow detect` detects: what the options chose. */
typedef struct wn_cli_detect_config {
  wn_cli_format format;
  wn_detect_options detect; /* selector, min_confidence, fallback */
  int count;                /* count detections in the store (drift) */
  wn_store_drift_policy drift;
} wn_cli_detect_config;

/* ---- commands (each returns an exit code) --------------------------------- */

int wn_cli_learn(int argc, char **argv);
int wn_cli_detect(int argc, char **argv);
int wn_cli_sites(int argc, char **argv);

/* The JSONL stream of `winnow detect --jsonl`: reads input ("-" for stdin)
 * line by line and writes one JSON object per line to stdout. store may be
 * NULL (every page by the single-page method). */
int wn_cli_detect_stream(wn_store *store, const char *input, const wn_cli_detect_config *config);

void wn_cli_usage_main(FILE *out);
void wn_cli_usage_learn(FILE *out);
void wn_cli_usage_detect(FILE *out);
void wn_cli_usage_sites(FILE *out);

/* ---- shared helpers (common.c) ------------------------------------------- */

/* Prints "winnow: <message>\n" to stderr. */
void wn_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "winnow: <message>" and the command's usage to stderr; returns
 * WN_EXIT_USAGE. */
int wn_cli_usage_error(void (*usage)(FILE *out), const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The exit code for a core error met while handling the input: store
 * errors give WN_EXIT_STORE, out of memory WN_EXIT_INTERNAL, the rest
 * WN_EXIT_INPUT. */
int wn_cli_exit_code(wn_err err);

/* Parses a decimal unsigned number in [min, max], the whole string and
 * nothing else (no sign, no spaces). Returns 0 on success, -1 if not. */
int wn_cli_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out);

/* A site name must be 1 to WN_STORE_MAX_SITE bytes without control
 * characters. WN_EINVAL with a message if not. */
wn_err wn_cli_check_site(const char *site, wn_diag *diag);

/* The host of a URL, by libcurl's URL API (never by hand), into site
 * (site_size >= WN_STORE_MAX_SITE + 1). WN_EINVAL with a message for a URL
 * that does not parse or has no host. */
wn_err wn_cli_site_from_url(const char *url, char *site, size_t site_size, wn_diag *diag);

/* Reads and decodes a site's template from the store. A site without a
 * record is WN_ENOTEMPLATE with the message "no template for site X; learn
 * it first with winnow learn". *out is freed with wn_template_free;
 * *generation (may be NULL) receives the record's generation. */
wn_err wn_cli_load_template(wn_store *store, const char *site, wn_template **out,
                            uint64_t *generation, wn_diag *diag);

/* Counts detections of a site in the store (wn_store_count) and, the first
 * time a site is seen drifting in this process, prints a warning line to
 * stderr. Failures to count are warned about, never fatal: counters are
 * advisory. after (may be NULL) receives the counters; returns 1 if they
 * were counted. */
int wn_cli_count(wn_store *store, const char *site, uint64_t generation, uint32_t pages,
                 uint32_t low, const wn_cli_detect_config *config, wn_store_stats *after);

/* Adds "fallback" (null, "no template" or "low confidence") and, when
 * stats is not NULL, "drift": {"pages", "low", "recent_pages",
 * "recent_low", "drifting"} to a JSON object (a json_t *). 0 ok, -1 out of
 * memory. */
int wn_cli_json_verdict(void *obj, const wn_detect_result *result, const wn_store_stats *stats,
                        const wn_cli_detect_config *config);

/* Parses a decimal fraction in [0, 1] ("0.5", "1", ".25"). 0 ok, -1 not. */
int wn_cli_parse_share(const char *s, double *out);

/* Writes len bytes to stdout. Returns 0, or -1 on a write error. */
int wn_cli_write(const void *data, size_t len);

#endif /* WN_CLI_H */
