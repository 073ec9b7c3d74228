/* site/schedule.c: the daemon's per-site refresh schedule and the store's
 * map size, through the site layer (site/schedule.h), so that src/serve
 * includes no private store header. */
#include "site/schedule.h"

#include "store/store.h"

wn_err wn_site_schedule_put(wn_store *store, const char *site, const wn_site_schedule *sched,
                            wn_diag *diag) {
  return wn_store_schedule_put(store, site, sched, diag);
}

wn_err wn_site_schedule_get(wn_store *store, const char *site, wn_site_schedule *out,
                            wn_diag *diag) {
  return wn_store_schedule_get(store, site, out, diag);
}

size_t wn_site_store_map_size(const wn_store *store) { return wn_store_map_size(store); }
