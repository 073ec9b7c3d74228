/* cli/common.c: what the commands share: messages, numbers, the store. */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

__attribute__((format(printf, 1, 0))) static void wn_cli_verror(const char *fmt, va_list ap) {
  /* One line at a time: the batch's threads report too. */
  flockfile(stderr);
  fputs("winnow: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  funlockfile(stderr);
}

void wn_cli_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  wn_cli_verror(fmt, ap);
  va_end(ap);
}

int wn_cli_usage_error(const char *command, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  wn_cli_verror(fmt, ap);
  va_end(ap);
  fprintf(stderr, "winnow: see 'winnow %s--help'\n", command ? command : "");
  return WN_EXIT_USAGE;
}

int wn_cli_fail(wn_err err, const wn_diag *diag) {
  wn_cli_error("%s", wn_diag_message(diag, err));
  return wn_exit_code(err);
}

int wn_cli_parse_share(const char *s, double *out) {
  /* Digits and one point only: no sign, exponent, hex, inf or nan. */
  size_t digits = 0, points = 0;
  for (const char *p = s; *p; p++) {
    if (wn_ascii_digit(*p))
      digits++;
    else if (*p == '.' && points == 0)
      points++;
    else
      return -1;
  }
  if (digits == 0 || strlen(s) > 32)
    return -1;
  char *end = NULL;
  errno = 0;
  double v = strtod(s, &end);
  if (errno != 0 || !end || *end != '\0' || !(v >= 0.0 && v <= 1.0))
    return -1;
  *out = v;
  return 0;
}

int wn_cli_parse_map_size(const char *s, size_t *out) {
  uint32_t mib = 0;
  if (wn_parse_u32(s, 1, 1024u * 1024u, &mib) != 0)
    return -1;
  *out = (size_t)mib * 1024 * 1024;
  return 0;
}

int wn_cli_open_store(const char *dir, int read_only, size_t map_size, wn_store **out) {
  wn_diag diag = {{0}};
  wn_store_options so;
  wn_store_options_init(&so);
  so.read_only = read_only;
  if (map_size)
    so.map_size = map_size;
  /* LMDB trusts its file, and a damaged page kills the reader with a
   * signal: walk the store in a child first (wn_store_check: ~20 ms on a
   * small store, ~0.1 s of CPU for 5000 sites; docs/hardening.md), so a
   * damaged store is a message
   * and exit 3. A store not there yet is wn_store_open's to report (or to
   * create). */
  wn_err err = wn_store_check(dir, NULL, &diag);
  if (err == WN_ENOTFOUND) {
    wn_diag_clear(&diag);
    err = WN_OK;
  }
  if (!err)
    err = wn_store_open(dir, &so, out, &diag);
  if (err) {
    wn_cli_error("%s", wn_diag_message(&diag, err));
    /* Any failure to open is the store's, whatever the code says. */
    return err == WN_ENOMEM ? WN_EXIT_INTERNAL : WN_EXIT_STORE;
  }
  if (wn_store_lockless(*out))
    wn_cli_error("note: store %s is on a read-only file system; opened without its lock "
                 "file (nothing may write it meanwhile)", dir);
  return WN_EXIT_OK;
}

int wn_cli_write(const void *data, size_t len) {
  if (len > 0 && fwrite(data, 1, len, stdout) != len)
    return -1;
  return 0;
}
