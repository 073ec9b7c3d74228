/*
 * store/schedule.h: the daemon's refresh schedule of a site as the store
 * keeps it, the struct alone. The store reads and writes it
 * (wn_store_schedule_*, store/store.h); the daemon (src/serve) reaches it
 * through the site layer (site/schedule.h), which includes this data-only
 * header and nothing else of the store.
 */
#ifndef WN_STORE_SCHEDULE_H
#define WN_STORE_SCHEDULE_H

#include <stdint.h>

#define WN_STORE_MAX_SCHED_ERROR 512u /* bytes of last_error, NUL included */

/* What the daemon's scheduler knows about a site, kept per site in its own
 * database so that it survives a restart and exists before the site's
 * first template. */
typedef struct wn_store_schedule {
  int64_t last_success;      /* Unix time in ms of the last good learn; 0: never */
  int64_t last_failure;      /* ... of the last failed one; 0: never */
  int64_t next_run;          /* when the next learn is due (Unix ms); 0: at once */
  uint32_t failures;         /* failed learns since the last good one */
  uint32_t last_duration_ms; /* of the last learn, good or not */
  uint64_t runs;             /* learns so far */
  char last_error[WN_STORE_MAX_SCHED_ERROR]; /* why the last failure failed, or "" */
} wn_store_schedule;

#endif /* WN_STORE_SCHEDULE_H */
