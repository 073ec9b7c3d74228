/* util/clock.c: the one millisecond clock. */
#include "util/util.h"

#include <time.h>

double wn_clock_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}
