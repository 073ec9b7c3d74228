/*
 * site/schedule.h: what the daemon (src/serve) keeps in the store through
 * the site layer, so that it needs no private store header: each site's
 * refresh schedule, and the store's map size for its metrics.
 *
 * Not public: the schedule is the daemon's business, and a program that
 * embeds libwinnow has no use for it. The functions live in libwinnow
 * (src/site/schedule.c) beside the rest of the site layer.
 */
#ifndef WN_SITE_SCHEDULE_H
#define WN_SITE_SCHEDULE_H

#include <stddef.h>
#include <stdint.h>

#include <winnow/winnow.h>

#include "store/schedule.h"

/* What the daemon's scheduler knows about a site (the store's struct, one
 * definition). */
typedef wn_store_schedule wn_site_schedule;
#define WN_SITE_MAX_SCHED_ERROR WN_STORE_MAX_SCHED_ERROR

/* Writes a site's schedule in one small transaction (last_error is cut to
 * fit). WN_EINVAL, WN_ESTORE, WN_ENOSPACE, WN_ENOMEM. */
wn_err wn_site_schedule_put(wn_store *store, const char *site, const wn_site_schedule *sched,
                            wn_diag *diag);
/* Reads it: WN_ENOTFOUND when the site has none, WN_ECORRUPT when it does
 * not decode; WN_EINVAL, WN_ESTORE. */
wn_err wn_site_schedule_get(wn_store *store, const char *site, wn_site_schedule *out,
                            wn_diag *diag);

/* The map size in effect (bytes): the requested one, or more when the data
 * on disk needed more. 0 for NULL. */
size_t wn_site_store_map_size(const wn_store *store);

#endif /* WN_SITE_SCHEDULE_H */
