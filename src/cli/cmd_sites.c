/* cli/cmd_sites.c: `winnow sites`, what the store holds per site: the
 * template (generation, when and from which pages it was learned) and the
 * detection counters that say whether the site drifts. */
#include "cli/cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

void wn_cli_usage_sites(FILE *out) {
  fprintf(out,
          "usage: winnow sites --store DIR [--json] [--pages] [--drift-share X]\n"
          "                    [--drift-min-pages N] [SITE...]\n"
          "\n"
          "Lists the sites of the store (or the SITEs given), one line each:\n"
          "  SITE generation=G learned=TIME pages=P template_nodes=T detected=D low=L\n"
          "  recent=R/RL drifting=yes|no selector=S\n"
          "selector is how detect picks the site's content (winnow learn --selector);\n"
          "detected and low count the pages detected with the current template and\n"
          "those that fitted it badly (served by the fallback); recent=R/RL is the same\n"
          "over about the last %u pages. A site drifts when at least --drift-share of\n"
          "its recent pages (and at least --drift-min-pages of them) fitted badly: relearn\n"
          "it. Exit status 0, or 1 if a SITE given has no template.\n"
          "\n"
          "  --store DIR             the template store\n"
          "  --json                  one JSON object per site and line instead\n"
          "  --pages                 also list the pages each template was learned from\n"
          "  --drift-share X         share of low-confidence recent pages that is drift\n"
          "                          (0 to 1, default %.2f)\n"
          "  --drift-min-pages N     recent pages needed before a site can drift\n"
          "                          (default %u)\n"
          "  -h, --help              show this help\n",
          WN_STORE_RECENT_WINDOW, WN_STORE_DRIFT_SHARE, WN_STORE_DRIFT_MIN_PAGES);
}

enum { WN_OPT_STORE = 256, WN_OPT_JSON, WN_OPT_PAGES, WN_OPT_DRIFT_SHARE, WN_OPT_DRIFT_MIN };

static const struct option wn_sites_options_long[] = {
    {"store", required_argument, NULL, WN_OPT_STORE},
    {"json", no_argument, NULL, WN_OPT_JSON},
    {"pages", no_argument, NULL, WN_OPT_PAGES},
    {"drift-share", required_argument, NULL, WN_OPT_DRIFT_SHARE},
    {"drift-min-pages", required_argument, NULL, WN_OPT_DRIFT_MIN},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

typedef struct wn_sites_ctx {
  wn_store *store;
  int json;
  int pages;
  wn_store_drift_policy drift;
  int rc;
} wn_sites_ctx;

static void wn_format_time(int64_t t, char *out, size_t size) {
  struct tm tm;
  time_t tt = (time_t)t;
  if (t <= 0 || !gmtime_r(&tt, &tm) || strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
    snprintf(out, size, "-");
}

/* Prints one site; returns 0 to go on (wn_store_list's contract). */
static int wn_sites_one(const char *site, void *arg) {
  wn_sites_ctx *ctx = arg;
  wn_diag diag = {{0}};
  wn_store_record *rec = NULL;
  wn_store_stats st;
  json_t *obj = NULL;
  char *line = NULL;
  wn_template *tpl = NULL;
  wn_err err = wn_store_get(ctx->store, site, &rec, &diag);
  if (!err)
    err = wn_store_stats_get(ctx->store, site, &st, &diag);
  /* The selector lives in the template bytes; a template that does not
   * decode is a damaged record like any other. */
  if (!err)
    err = wn_template_decode(rec->template_bytes, rec->template_len, &tpl, &diag);
  if (err) {
    /* A damaged record is reported and the listing goes on. */
    wn_cli_error("%s", wn_diag_message(&diag, err));
    if (ctx->rc == WN_EXIT_OK)
      ctx->rc = wn_cli_exit_code(err == WN_ENOTFOUND ? WN_ENOTEMPLATE : err);
    goto out;
  }
  char learned[32];
  wn_format_time(rec->learned_at, learned, sizeof learned);
  const int drifting = wn_store_drifting(&st, &ctx->drift);
  const uint8_t sel = wn_template_selector(tpl);
  const char *selector = wn_detect_selector_name(sel ? (wn_detect_selector)sel : WN_SELECT_CUES);
  if (!selector)
    selector = "unknown";
  if (!ctx->json) {
    printf("%s generation=%llu learned=%s pages=%u template_nodes=%u detected=%llu low=%llu "
           "recent=%u/%u drifting=%s selector=%s\n",
           site, (unsigned long long)rec->generation, learned, rec->n_pages,
           rec->template_nodes, (unsigned long long)st.pages, (unsigned long long)st.low,
           st.recent_pages, st.recent_low, drifting ? "yes" : "no", selector);
    if (ctx->pages)
      for (uint32_t i = 0; i < rec->n_pages; i++)
        printf("  page status=%d %ums %lluB %s\n", rec->pages[i].http_status,
               rec->pages[i].fetch_ms, (unsigned long long)rec->pages[i].bytes,
               rec->pages[i].name ? rec->pages[i].name : "");
    goto out;
  }
  obj = json_pack("{s:s, s:I, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:s}", "site", site,
                  "generation", (json_int_t)rec->generation, "algorithm", rec->algorithm,
                  "learned_at", learned, "template_nodes", (json_int_t)rec->template_nodes,
                  "detected", (json_int_t)st.pages, "low", (json_int_t)st.low, "recent_pages",
                  (json_int_t)st.recent_pages, "recent_low", (json_int_t)st.recent_low,
                  "template_bytes", (json_int_t)rec->template_len, "drifting", drifting,
                  "selector", selector);
  json_t *pages = json_array();
  if (!obj || !pages || json_object_set_new(obj, "pages", pages) != 0) {
    ctx->rc = WN_EXIT_INTERNAL;
    goto out;
  }
  for (uint32_t i = 0; i < rec->n_pages; i++) {
    const wn_store_page *p = &rec->pages[i];
    /* Page names that are not UTF-8 (file names) show as null. */
    json_t *name = p->name ? json_string(p->name) : NULL;
    json_t *po = json_pack("{s:o, s:I, s:i, s:I}", "name", name ? name : json_null(), "bytes",
                           (json_int_t)p->bytes, "http_status", (int)p->http_status, "fetch_ms",
                           (json_int_t)p->fetch_ms);
    if (!po || json_array_append_new(pages, po) != 0) {
      ctx->rc = WN_EXIT_INTERNAL;
      goto out;
    }
  }
  line = json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER);
  if (!line) {
    ctx->rc = WN_EXIT_INTERNAL;
    goto out;
  }
  printf("%s\n", line);
out:
  free(line);
  json_decref(obj);
  wn_template_free(tpl);
  wn_store_record_free(rec);
  return ctx->rc == WN_EXIT_INTERNAL;
}

int wn_cli_sites(int argc, char **argv) {
  int rc = WN_EXIT_USAGE;
  const char *store_dir = NULL;
  wn_sites_ctx ctx = {.drift = {.min_pages = WN_STORE_DRIFT_MIN_PAGES,
                                .max_low_share = WN_STORE_DRIFT_SHARE},
                      .rc = WN_EXIT_OK};
  wn_diag diag = {{0}};
  opterr = 0;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, ":h", wn_sites_options_long, NULL)) != -1) {
    switch (c) {
    case WN_OPT_STORE:
      store_dir = optarg;
      break;
    case WN_OPT_JSON:
      ctx.json = 1;
      break;
    case WN_OPT_PAGES:
      ctx.pages = 1;
      break;
    case WN_OPT_DRIFT_SHARE:
      if (wn_cli_parse_share(optarg, &ctx.drift.max_low_share) != 0)
        return wn_cli_usage_error(wn_cli_usage_sites,
                                  "--drift-share is a number from 0 to 1, not '%.40s'", optarg);
      break;
    case WN_OPT_DRIFT_MIN:
      if (wn_cli_parse_u32(optarg, 1, 1000000, &ctx.drift.min_pages) != 0)
        return wn_cli_usage_error(wn_cli_usage_sites,
                                  "--drift-min-pages is a number from 1 to 1000000, not '%.40s'",
                                  optarg);
      break;
    case 'h':
      wn_cli_usage_sites(stdout);
      return WN_EXIT_OK;
    case ':':
      return wn_cli_usage_error(wn_cli_usage_sites, "option '%.100s' needs an argument",
                                argv[optind - 1]);
    default:
      if (optopt > 0 && optopt < 128)
        return wn_cli_usage_error(wn_cli_usage_sites, "unknown option '-%c'", optopt);
      return wn_cli_usage_error(wn_cli_usage_sites, "unknown option '%.100s'", argv[optind - 1]);
    }
  }
  if (!store_dir)
    return wn_cli_usage_error(wn_cli_usage_sites, "sites needs --store DIR");
  for (int i = optind; i < argc; i++)
    if (wn_cli_check_site(argv[i], &diag) != WN_OK)
      return wn_cli_usage_error(wn_cli_usage_sites, "%s", wn_diag_message(&diag, WN_EINVAL));
  wn_store_options so = {.read_only = 1};
  wn_err err = wn_store_open(store_dir, &so, &ctx.store, &diag);
  if (err) {
    wn_cli_error("%s", wn_diag_message(&diag, err));
    return err == WN_ENOMEM ? WN_EXIT_INTERNAL : WN_EXIT_STORE;
  }
  if (optind < argc) {
    for (int i = optind; i < argc && ctx.rc != WN_EXIT_INTERNAL; i++)
      wn_sites_one(argv[i], &ctx);
  } else {
    err = wn_store_list(ctx.store, wn_sites_one, &ctx, &diag);
    if (err) {
      wn_cli_error("%s", wn_diag_message(&diag, err));
      ctx.rc = wn_cli_exit_code(err);
    }
  }
  rc = ctx.rc;
  wn_store_close(ctx.store);
  return rc;
}
