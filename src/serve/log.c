/*
 * serve/log.c: the daemon's log lines, one write(2) each, for every file
 * of src/serve (the server's requests and reloads, the scheduler's learn
 * jobs).
 */
#include "serve/serve.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

void wn_serve_log(int max_level, int level, const char *fmt, ...) {
  if (level > max_level)
    return;
  char stamp[32];
  time_t t = time(NULL);
  struct tm tm;
  if (gmtime_r(&t, &tm))
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
  else
    snprintf(stamp, sizeof stamp, "-");
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  /* One write(2) per line, so lines of several threads do not interleave
   * (stderr is unbuffered: fprintf may write a line in pieces). */
  char out[1200];
  int n = snprintf(out, sizeof out, "%s winnow[%ld]: %s%s\n", stamp, (long)getpid(),
                   level == WN_LOG_ERROR ? "error: " : "", line);
  if (n > 0) {
    size_t len = (size_t)n < sizeof out ? (size_t)n : sizeof out - 1;
    ssize_t w = write(STDERR_FILENO, out, len);
    (void)w; /* nowhere left to report a failed log write */
  }
}
