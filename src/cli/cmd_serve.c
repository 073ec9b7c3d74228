/*
 * cli/cmd_serve.c: `winnow serve`, the daemon: reads the configuration,
 * starts the server of the library (wn_server_start) and waits for signals.
 *
 *   SIGTERM, SIGINT  stop: no new connections, requests in flight finish,
 *                    counts are flushed, then exit 0
 *   SIGHUP           read the configuration file again; a bad one is
 *                    reported and the running one kept
 *
 * The signals are blocked before any thread starts (threads inherit the
 * mask) and taken here with sigwait, so no handler runs inside the
 * library's threads.
 */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <winnow/serve.h>

#define WN_SERVE_MAX_SETS 64

void wn_cli_usage_serve(FILE *out) {
  fputs("usage: winnow serve [--config FILE] [options]\n"
        "\n"
        "Runs the daemon: keeps the configured sites' templates fresh on a schedule\n"
        "(and early when a site drifts) and answers detection requests over HTTP:\n"
        "  POST /v1/detect?url=URL   the page as the body (or JSON {\"url\", \"html\"});\n"
        "                            ?format=json (default), text or html\n"
        "  POST /v1/learn            {\"url\"} or {\"site\", \"pages\": [...]}: 202 + job\n"
        "  GET  /v1/jobs/ID, GET /v1/sites[/SITE], DELETE /v1/sites/SITE\n"
        "  GET  /healthz, GET /metrics (Prometheus)\n"
        "Every key of the configuration is described in config/winnow.yaml. Flags\n"
        "override the file. SIGTERM or SIGINT stops (requests in flight finish);\n"
        "SIGHUP reloads the file (a bad file is reported and the old one kept).\n"
        "\n"
        "  --config FILE        the YAML configuration (default: built-in defaults)\n"
        "  --store DIR          store.path\n"
        "  --listen ADDR        listen.address (an IP address; default 127.0.0.1)\n"
        "  --port N             listen.port (0: any free port; default 8080)\n"
        "  --workers N          listen.workers, HTTP threads (0: the cores)\n"
        "  --token-file FILE    listen.token_file: admin endpoints need this token\n"
        "  --log-level LEVEL    log.level: error, info or debug\n"
        "  --set KEY=VALUE      any key, e.g. --set refresh.interval=6h (repeatable)\n"
        "  --port-file FILE     once listening, write the port to FILE\n"
        "  --check              check the configuration, print a summary, exit\n"
        "  --print-config       print every key's value in use (the file, the flags and\n"
        "                       the defaults, as YAML that loads back), exit\n"
        "  -h, --help           show this help\n"
        "\n"
        "Exit status: 0 after SIGTERM/SIGINT or --check; 2 for a bad configuration;\n"
        "3 when the store cannot be opened; 1 when the file cannot be read or it\n"
        "cannot listen.\n",
        out);
}

enum {
  WN_OPT_CONFIG = 256,
  WN_OPT_STORE,
  WN_OPT_LISTEN,
  WN_OPT_PORT,
  WN_OPT_WORKERS,
  WN_OPT_TOKEN_FILE,
  WN_OPT_LOG_LEVEL,
  WN_OPT_SET,
  WN_OPT_PORT_FILE,
  WN_OPT_CHECK,
  WN_OPT_PRINT_CONFIG
};

static const struct option wn_serve_options_long[] = {
    {"config", required_argument, NULL, WN_OPT_CONFIG},
    {"store", required_argument, NULL, WN_OPT_STORE},
    {"listen", required_argument, NULL, WN_OPT_LISTEN},
    {"port", required_argument, NULL, WN_OPT_PORT},
    {"workers", required_argument, NULL, WN_OPT_WORKERS},
    {"token-file", required_argument, NULL, WN_OPT_TOKEN_FILE},
    {"log-level", required_argument, NULL, WN_OPT_LOG_LEVEL},
    {"set", required_argument, NULL, WN_OPT_SET},
    {"port-file", required_argument, NULL, WN_OPT_PORT_FILE},
    {"check", no_argument, NULL, WN_OPT_CHECK},
    {"print-config", no_argument, NULL, WN_OPT_PRINT_CONFIG},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

/* A flag as the key it sets. */
typedef struct wn_serve_set {
  const char *key;
  const char *value;
  char owned_key[128];
} wn_serve_set;

/* Loads the file (or the defaults) and applies the flags, in order. */
static wn_err wn_serve_load(const char *path, const wn_serve_set *sets, size_t n_sets,
                            wn_serve_config **out, wn_diag *diag) {
  wn_err err = wn_serve_config_load(path, out, diag);
  for (size_t i = 0; !err && i < n_sets; i++)
    err = wn_serve_config_set(*out, sets[i].key, sets[i].value, diag);
  if (err) {
    wn_serve_config_free(*out);
    *out = NULL;
  }
  return err;
}

int wn_cli_serve(int argc, char **argv) {
  const char *config = NULL, *port_file = NULL;
  int check = 0, print_config = 0;
  wn_serve_set sets[WN_SERVE_MAX_SETS];
  size_t n_sets = 0;
  int opt;
  optind = 1;
  opterr = 0;
  while ((opt = getopt_long(argc, argv, ":h", wn_serve_options_long, NULL)) != -1) {
    const char *key = NULL;
    switch (opt) {
    case WN_OPT_CONFIG: config = optarg; continue;
    case WN_OPT_PORT_FILE: port_file = optarg; continue;
    case WN_OPT_CHECK: check = 1; continue;
    case WN_OPT_PRINT_CONFIG: print_config = 1; continue;
    case WN_OPT_STORE: key = "store.path"; break;
    case WN_OPT_LISTEN: key = "listen.address"; break;
    case WN_OPT_PORT: key = "listen.port"; break;
    case WN_OPT_WORKERS: key = "listen.workers"; break;
    case WN_OPT_TOKEN_FILE: key = "listen.token_file"; break;
    case WN_OPT_LOG_LEVEL: key = "log.level"; break;
    case WN_OPT_SET: break;
    case 'h': wn_cli_usage_serve(stdout); return WN_EXIT_OK;
    case ':': return wn_cli_usage_error("serve ", "option '%s' needs a value", argv[optind - 1]);
    default: return wn_cli_usage_error("serve ", "unknown option '%s'", argv[optind - 1]);
    }
    if (n_sets == WN_SERVE_MAX_SETS)
      return wn_cli_usage_error("serve ", "more than %d settings", WN_SERVE_MAX_SETS);
    wn_serve_set *s = &sets[n_sets];
    if (key) {
      s->key = key;
      s->value = optarg;
    } else {
      const char *eq = strchr(optarg, '=');
      if (!eq || eq == optarg || (size_t)(eq - optarg) >= sizeof s->owned_key)
        return wn_cli_usage_error("serve ", "--set needs KEY=VALUE, not '%.100s'", optarg);
      memcpy(s->owned_key, optarg, (size_t)(eq - optarg));
      s->owned_key[eq - optarg] = '\0';
      s->key = s->owned_key;
      s->value = eq + 1;
    }
    n_sets++;
  }
  if (optind < argc)
    return wn_cli_usage_error("serve ", "unexpected argument '%.100s'", argv[optind]);

  wn_diag diag;
  wn_diag_clear(&diag);
  wn_serve_config *cfg = NULL;
  wn_err err = wn_serve_load(config, sets, n_sets, &cfg, &diag);
  if (err) {
    wn_cli_error("%s", wn_diag_message(&diag, err));
    return err == WN_EINVAL ? WN_EXIT_USAGE : wn_exit_code(err);
  }
  if (print_config) {
    err = wn_serve_config_print(cfg, stdout);
    if (!err && fflush(stdout) != 0)
      err = WN_EIO;
    wn_serve_config_free(cfg);
    if (err)
      wn_cli_error("--print-config: cannot write the configuration");
    return err ? wn_exit_code(err) : WN_EXIT_OK;
  }
  if (check) {
    printf("%s: configuration is valid\n", config ? config : "(defaults)");
    wn_serve_config_free(cfg);
    return WN_EXIT_OK;
  }

  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  /* A client that hangs up must not kill us with SIGPIPE. */
  signal(SIGPIPE, SIG_IGN);

  wn_server *srv = NULL;
  err = wn_server_start(cfg, &srv, &diag);
  if (err) {
    wn_cli_error("%s", wn_diag_message(&diag, err));
    wn_serve_config_free(cfg);
    return err == WN_EIO ? WN_EXIT_INPUT : wn_exit_code(err);
  }
  if (port_file) {
    FILE *f = fopen(port_file, "w");
    if (!f || fprintf(f, "%u\n", (unsigned)wn_server_port(srv)) < 0 || fclose(f) != 0) {
      wn_cli_error("cannot write the port to %s: %s", port_file, strerror(errno));
      wn_server_stop(srv);
      wn_serve_config_free(cfg);
      return WN_EXIT_INTERNAL;
    }
  }
  for (;;) {
    int sig = 0;
    if (sigwait(&set, &sig) != 0)
      continue;
    if (sig == SIGHUP) {
      wn_serve_config *next = NULL;
      wn_diag_clear(&diag);
      /* Both calls log the outcome in the daemon's own format and count
       * it in winnow_config_reloads_total. */
      err = wn_serve_load(config, sets, n_sets, &next, &diag);
      if (err)
        wn_server_reload_failed(srv, wn_diag_message(&diag, err));
      else
        (void)wn_server_reload(srv, next, &diag);
      wn_serve_config_free(next);
      continue;
    }
    break;
  }
  wn_server_stop(srv);
  wn_serve_config_free(cfg);
  return WN_EXIT_OK;
}
