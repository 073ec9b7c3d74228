/*
 * winnow/serve.h: the daemon (winnow serve), a library of its own.
 *
 * A long-lived server: detection over HTTP (libmicrohttpd, JSON), learning
 * in the background, each configured site relearned on a schedule and
 * early when it drifts. The command line's `winnow serve` is these calls
 * plus signal handling; config/winnow.yaml documents every key.
 *
 * These functions are not in libwinnow: they are in the static library
 * winnow_serve (src/serve), which the `winnow` command and the daemon's
 * tests link beside libwinnow, so that a program that only extracts needs
 * no HTTP server or YAML library (`pkg-config --libs winnow` names none).
 * Neither the header nor that library is installed. Everything else the
 * daemon uses is winnow.h's, which this header includes; the conventions
 * (wn_err, wn_diag, *_free(NULL) harmless) are the same.
 */
#ifndef WINNOW_SERVE_H
#define WINNOW_SERVE_H

#include <stdint.h>
#include <stdio.h>

#include <winnow/winnow.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- configuration ------------------------------------------------------ */

typedef struct wn_serve_config wn_serve_config;

/* Reads a YAML configuration (path NULL: the defaults). Errors name the
 * file, line and key ("winnow.yaml:12: listen.port: ..."). Returns
 * WN_EINVAL (a bad file, key or value; a file past 4 MiB), WN_ENOTFOUND
 * (no such file), WN_EIO (the file cannot be read), WN_ENOMEM. */
wn_err wn_serve_config_load(const char *path, wn_serve_config **out, wn_diag *diag);
/* Overrides one key as the file would set it ("listen.port", "9000"), as
 * command-line flags do. Site entries are set in the file only. Returns
 * WN_EINVAL (an unknown key, a bad value), WN_ENOMEM. */
wn_err wn_serve_config_set(wn_serve_config *cfg, const char *key, const char *value,
                           wn_diag *diag);
/* Writes the configuration in use as YAML that loads back to the same
 * values: every key of every section (keys left to the library's default
 * and the token as comments), then each site with what it sets
 * differently (`winnow serve --print-config`). Returns WN_EINVAL, WN_EIO
 * (a write failed). */
wn_err wn_serve_config_print(const wn_serve_config *cfg, FILE *out);
/* NULL is harmless. */
void wn_serve_config_free(wn_serve_config *cfg);

/* ---- the server ---------------------------------------------------------- */

typedef struct wn_server wn_server;

/* Opens the store (checked first with wn_store_check), starts the learning
 * threads and the scheduler, then listens. Returns once it serves (the
 * work runs on its own threads). The configuration is copied. Returns
 * WN_EINVAL (no config, a bad listen.address), WN_EIO (cannot listen),
 * WN_ENOMEM, and what wn_store_check and wn_store_open return (WN_ESTORE,
 * WN_ENOSPACE, WN_EBUSY). */
wn_err wn_server_start(const wn_serve_config *cfg, wn_server **out, wn_diag *diag);
/* The port it listens on (the one the kernel chose for port 0); 0 for
 * NULL. */
uint16_t wn_server_port(const wn_server *srv);
/* Takes a new configuration: sites, schedule, learning and crawling
 * defaults, token, detection options for new detectors, log level. The
 * store, the address, the port and the thread counts need a restart: a
 * change to them is reported (WN_EINVAL) and nothing is changed. Requests
 * in flight finish with the configuration they started with, which is
 * freed when the last of them ends; a server can be reloaded any number of
 * times. Every outcome is logged and counted
 * (winnow_config_reloads_total{result="success"|"failure"}). Returns
 * WN_EINVAL, WN_EBUSY (requests in flight still use the 63 configurations
 * before this one: reload again once they finish), WN_ENOMEM. */
wn_err wn_server_reload(wn_server *srv, const wn_serve_config *cfg, wn_diag *diag);
/* A reload that failed before it reached wn_server_reload (the file did
 * not load): counts it as a failed reload and logs why (a line like every
 * line of the daemon). NULL srv is harmless. */
void wn_server_reload_failed(wn_server *srv, const char *why);
/* Stops listening, lets requests in flight finish, stops the learning
 * threads (a running crawl is cancelled within a second and keeps the old
 * template), flushes counts and frees. NULL is harmless. */
void wn_server_stop(wn_server *srv);

#ifdef __cplusplus
}
#endif

#endif /* WINNOW_SERVE_H */
