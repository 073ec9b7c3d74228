/*
 * cli: the `winnow` command line, argument parsing and printing over the
 * public library (include/winnow/winnow.h) and nothing else: every step of
 * learning and detection is a libwinnow call. The exit codes are the
 * library's (WN_EXIT_*, wn_exit_code), a contract scripts rely on (see the
 * comment block at the top of main.c).
 */
#ifndef WN_CLI_H
#define WN_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <winnow/winnow.h>

/* Longest JSONL input line: a page of WN_PAGE_MAX_BYTES plus its JSON
 * escaping (quotes and backslashes double) and the other fields. */
#define WN_CLI_MAX_LINE_BYTES ((size_t)32 * 1024 * 1024)

typedef enum wn_cli_format {
  WN_FORMAT_TEXT = 0,
  WN_FORMAT_HTML,
  WN_FORMAT_JSON,
  WN_FORMAT_MARKDOWN
} wn_cli_format;

/* ---- commands (each returns an exit code) --------------------------------- */

int wn_cli_learn(int argc, char **argv);
int wn_cli_detect(int argc, char **argv);
int wn_cli_sites(int argc, char **argv);
int wn_cli_serve(int argc, char **argv);

/* The JSONL stream of `winnow detect --jsonl`: reads input ("-" for stdin)
 * line by line, detects with d, writes one JSON object per line. */
int wn_cli_detect_stream(wn_detector *d, const char *input, wn_cli_format format);
/* WN_RENDER_* and WN_WANT_METADATA bits the stream adds to what it asks
 * (the options of `winnow detect`). */
extern unsigned wn_cli_detect_extra_want;

void wn_cli_usage_main(FILE *out);
void wn_cli_usage_learn(FILE *out);
void wn_cli_usage_detect(FILE *out);
void wn_cli_usage_sites(FILE *out);
void wn_cli_usage_serve(FILE *out);

/* ---- shared helpers (common.c) ------------------------------------------- */

/* Prints "winnow: <message>\n" to stderr. */
void wn_cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Prints "winnow: <message>" and "winnow: see 'winnow <command> --help'"
 * to stderr (one line of what is wrong, not the whole help); returns
 * WN_EXIT_USAGE. */
int wn_cli_usage_error(const char *command, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prints the error's message and returns its exit code (wn_exit_code). */
int wn_cli_fail(wn_err err, const wn_diag *diag);

/* Parses a decimal unsigned number in [min, max], the whole string and
 * nothing else (no sign, no spaces). Returns 0 on success, -1 if not. */
int wn_cli_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out);

/* Parses a decimal fraction in [0, 1] ("0.5", "1", ".25"). 0 ok, -1 not. */
int wn_cli_parse_share(const char *s, double *out);

/* --map-size MiB: 1 MiB to 1 TiB into bytes. 0 ok, -1 not. */
int wn_cli_parse_map_size(const char *s, size_t *out);

/* Opens the store for a command. read_only: a missing directory is an
 * error (a mistyped --store must not become a new empty store); a store
 * on a read-only file system is opened without its lock, with a note on
 * stderr. Returns an exit code (0 ok). */
int wn_cli_open_store(const char *dir, int read_only, size_t map_size, wn_store **out);

/* Writes len bytes to stdout. Returns 0, or -1 on a write error. */
int wn_cli_write(const void *data, size_t len);

#endif /* WN_CLI_H */
