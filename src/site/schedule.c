/* site/schedule.c: the daemon's per-site refresh schedule and the store's
 * map size, through the site layer (site/schedule.h), so that src/serve
 * includes no private store header. */
#include "site/schedule.h"

#include <string.h>

#include "store/store.h"

#include <stddef.h>

/* The two structs are one layout, field by field: a field added to one and
 * not the other (which the copies below would drop without a word) stops
 * the build here. */
#define WN_SAME_FIELD(f)                                                                  \
  _Static_assert(offsetof(wn_site_schedule, f) == offsetof(wn_store_schedule, f) &&       \
                     sizeof(((wn_site_schedule *)0)->f) == sizeof(((wn_store_schedule *)0)->f), \
                 "wn_site_schedule." #f " is not wn_store_schedule." #f)
WN_SAME_FIELD(last_success);
WN_SAME_FIELD(last_failure);
WN_SAME_FIELD(next_run);
WN_SAME_FIELD(failures);
WN_SAME_FIELD(last_duration_ms);
WN_SAME_FIELD(runs);
WN_SAME_FIELD(last_error);
_Static_assert(sizeof(wn_site_schedule) == sizeof(wn_store_schedule),
               "wn_site_schedule and wn_store_schedule have the same fields");

wn_err wn_site_schedule_put(wn_store *store, const char *site, const wn_site_schedule *sched,
                            wn_diag *diag) {
  if (!sched) /* the store's own message */
    return wn_store_schedule_put(store, site, NULL, diag);
  wn_store_schedule st;
  memset(&st, 0, sizeof st);
  st.last_success = sched->last_success;
  st.last_failure = sched->last_failure;
  st.next_run = sched->next_run;
  st.failures = sched->failures;
  st.last_duration_ms = sched->last_duration_ms;
  st.runs = sched->runs;
  memcpy(st.last_error, sched->last_error, sizeof st.last_error);
  return wn_store_schedule_put(store, site, &st, diag);
}

wn_err wn_site_schedule_get(wn_store *store, const char *site, wn_site_schedule *out,
                            wn_diag *diag) {
  if (!out) /* the store's own message */
    return wn_store_schedule_get(store, site, NULL, diag);
  memset(out, 0, sizeof *out);
  wn_store_schedule st;
  memset(&st, 0, sizeof st);
  wn_err err = wn_store_schedule_get(store, site, &st, diag);
  if (err)
    return err;
  out->last_success = st.last_success;
  out->last_failure = st.last_failure;
  out->next_run = st.next_run;
  out->failures = st.failures;
  out->last_duration_ms = st.last_duration_ms;
  out->runs = st.runs;
  memcpy(out->last_error, st.last_error, sizeof out->last_error);
  return WN_OK;
}

size_t wn_site_store_map_size(const wn_store *store) { return wn_store_map_size(store); }
