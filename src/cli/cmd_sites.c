/* cli/cmd_sites.c: `winnow sites`, what the store holds per site: the
 * template (generation, when and from which pages it was learned) and the
 * detection counters that say whether the site drifts. */
#include "cli.h"

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
          "  recent=R/RL drifting=yes|no selector=S [place=P skips=K asides=A]\n"
          "selector is how detect picks the site's content (winnow learn --selector);\n"
          "with places, also place=whole|cues|none skips=K asides=A: where the sample\n"
          "pages held their content and why a page's content is chosen there (whole:\n"
          "the place held nothing but content, all of it is kept; cues: the cue\n"
          "selector's choice, made again inside the place when it took one of the A\n"
          "asides beside it; none: no place agreed, the cue selector on every page),\n"
          "K elements inside the place left out as recurring non-content;\n"
          "detected and low count the pages detected with the current template and\n"
          "those that fitted it badly (served by the fallback); recent=R/RL is the same\n"
          "over about the last %u pages. A site drifts when at least --drift-share of\n"
          "its recent pages (and at least --drift-min-pages of them) fitted badly: relearn\n"
          "it. Sites without a template whose pages wait in the store (pending samples,\n"
          "kept by detect --learn and the daemon's learning.from_requests) follow, one\n"
          "line each:\n"
          "  SITE pending pages=P bytes=B last_seen=TIME\n"
          "Exit status 0, or 1 if a SITE given has neither template nor pending pages.\n"
          "\n"
          "  --store DIR             the template store\n"
          "  --json                  one JSON object per site and line instead\n"
          "  --pages                 also list the key page and the pages each template\n"
          "                          was learned from\n"
          "  --drift-share X         share of low-confidence recent pages that is drift\n"
          "                          (0 to 1, default %.2f)\n"
          "  --drift-min-pages N     recent pages needed before a site can drift\n"
          "                          (default %u)\n"
          "  --map-size MIB          the store's largest size in MiB (default 1024)\n"
          "  -h, --help              show this help\n",
          512u, 0.25, 20u);
}

enum {
  WN_OPT_STORE = 256,
  WN_OPT_JSON,
  WN_OPT_PAGES,
  WN_OPT_DRIFT_SHARE,
  WN_OPT_DRIFT_MIN,
  WN_OPT_MAP_SIZE
};

static const struct option wn_sites_options_long[] = {
    {"store", required_argument, NULL, WN_OPT_STORE},
    {"json", no_argument, NULL, WN_OPT_JSON},
    {"pages", no_argument, NULL, WN_OPT_PAGES},
    {"drift-share", required_argument, NULL, WN_OPT_DRIFT_SHARE},
    {"drift-min-pages", required_argument, NULL, WN_OPT_DRIFT_MIN},
    {"map-size", required_argument, NULL, WN_OPT_MAP_SIZE},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

typedef struct wn_sites_ctx {
  wn_store *store;
  int json;
  int pages;
  wn_drift_policy drift;
  int rc;
} wn_sites_ctx;

static void wn_format_time(int64_t t, char *out, size_t size) {
  struct tm tm;
  time_t tt = (time_t)t;
  if (t <= 0 || !gmtime_r(&tt, &tm) || strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
    snprintf(out, size, "-");
}

/* A pending site's line (or JSON object). */
static int wn_sites_pending_line(const wn_pending_site *p, int json) {
  char seen[32];
  wn_format_time(p->last_seen, seen, sizeof seen);
  if (!json) {
    printf("%s pending pages=%u bytes=%llu last_seen=%s%s\n", p->site, p->pages,
           (unsigned long long)p->bytes, seen, p->damaged ? " damaged=yes" : "");
    return 0;
  }
  json_t *obj = json_pack("{s:s, s:b, s:I, s:I, s:I, s:s, s:b}", "site", p->site, "pending", 1,
                          "pending_pages", (json_int_t)p->pages, "bytes", (json_int_t)p->bytes,
                          "page_bytes", (json_int_t)p->page_bytes, "last_seen", seen, "damaged",
                          p->damaged);
  char *line = obj ? json_dumps(obj, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
  json_decref(obj);
  if (!line)
    return -1;
  printf("%s\n", line);
  free(line);
  return 0;
}

typedef struct wn_pending_ctx {
  int json;
  int failed;
} wn_pending_ctx;

static int wn_sites_pending_one(const wn_pending_site *p, void *arg) {
  wn_pending_ctx *k = arg;
  if (wn_sites_pending_line(p, k->json) != 0) {
    k->failed = 1;
    return 1;
  }
  return 0;
}

/* Prints one site; returns 0 to go on (wn_site_each's contract). */
static int wn_sites_one(const char *site, void *arg) {
  wn_sites_ctx *ctx = arg;
  wn_diag diag = {{0}};
  wn_site_info *info = NULL;
  json_t *obj = NULL;
  char *line = NULL;
  wn_err err = wn_site_info_get(ctx->store, site, &info, &diag);
  if (err == WN_ENOTEMPLATE || err == WN_ENOTFOUND) {
    /* No template: its pages may be pending. */
    wn_pending_site p;
    if (wn_store_pending_site_get(ctx->store, site, &p, NULL) == WN_OK) {
      if (wn_sites_pending_line(&p, ctx->json) != 0)
        ctx->rc = WN_EXIT_INTERNAL;
      goto out;
    }
  }
  if (err) {
    /* A damaged record is reported and the listing goes on. */
    wn_cli_error("%s", wn_diag_message(&diag, err));
    if (ctx->rc == WN_EXIT_OK)
      ctx->rc = wn_exit_code(err);
    goto out;
  }
  char learned[32];
  wn_format_time(info->learned_at, learned, sizeof learned);
  const wn_site_counts *st = &info->counts;
  const int drifting = wn_site_drifting(st, &ctx->drift);
  const char *selector = wn_detect_selector_name(info->selector);
  /* Why a page's content is chosen where it is: the places learned. */
  const char *place = info->place;
  char why[128] = "";
  if (place)
    snprintf(why, sizeof why, " place=%s skips=%u asides=%u", place, info->place_skips,
             info->place_asides);
  /* layouts=N only for several: a site of one keeps the line scripts know. */
  if (info->layouts > 1)
    snprintf(why + strlen(why), sizeof why - strlen(why), " layouts=%u", info->layouts);
  if (!ctx->json) {
    printf("%s generation=%llu learned=%s pages=%zu template_nodes=%u detected=%llu low=%llu "
           "recent=%u/%u drifting=%s selector=%s%s%s%s\n",
           site, (unsigned long long)info->generation, learned, info->n_pages,
           info->template_nodes, (unsigned long long)st->pages, (unsigned long long)st->low,
           st->recent_pages, st->recent_low, drifting ? "yes" : "no", selector, why,
           /* ETDM, the default, keeps the line scripts know */
           strcmp(info->algorithm, "etdm") ? " algo=" : "",
           strcmp(info->algorithm, "etdm") ? info->algorithm : "");
    if (ctx->pages) {
      if (info->key_page)
        printf("  key %s%s\n", info->key_page, info->from_url ? " (crawled)" : "");
      for (size_t i = 0; i < info->n_pages; i++)
        printf("  page status=%d %ums %lluB %s\n", info->page_status[i], info->page_fetch_ms[i],
               (unsigned long long)info->page_bytes[i], info->pages[i]);
    }
    goto out;
  }
  obj = json_pack("{s:s, s:I, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:b, s:s}", "site", site,
                  "generation", (json_int_t)info->generation, "algorithm", info->algorithm,
                  "learned_at", learned, "template_nodes", (json_int_t)info->template_nodes,
                  "detected", (json_int_t)st->pages, "low", (json_int_t)st->low, "recent_pages",
                  (json_int_t)st->recent_pages, "recent_low", (json_int_t)st->recent_low,
                  "template_bytes", (json_int_t)info->template_bytes, "drifting", drifting,
                  "selector", selector);
  if (obj && info->layouts > 0 &&
      json_object_set_new(obj, "layouts", json_integer(info->layouts)) != 0) {
    ctx->rc = WN_EXIT_INTERNAL;
    goto out;
  }
  if (obj && place &&
      (json_object_set_new(obj, "place", json_string(place)) != 0 ||
       json_object_set_new(obj, "place_skips", json_integer(info->place_skips)) != 0 ||
       json_object_set_new(obj, "place_asides", json_integer(info->place_asides)) != 0)) {
    ctx->rc = WN_EXIT_INTERNAL;
    goto out;
  }
  json_t *pages = json_array();
  if (!obj || !pages || json_object_set_new(obj, "pages", pages) != 0) {
    ctx->rc = WN_EXIT_INTERNAL;
    goto out;
  }
  if (info->key_page) {
    /* Key pages that are not UTF-8 (file names) show as null. */
    json_t *key = json_string(info->key_page);
    if (json_object_set_new(obj, "key_page", key ? key : json_null()) != 0) {
      ctx->rc = WN_EXIT_INTERNAL;
      goto out;
    }
  }
  for (size_t i = 0; i < info->n_pages; i++) {
    json_t *name = json_string(info->pages[i]);
    json_t *po = json_pack("{s:o, s:I, s:i, s:I}", "name", name ? name : json_null(), "bytes",
                           (json_int_t)info->page_bytes[i], "http_status",
                           (int)info->page_status[i], "fetch_ms",
                           (json_int_t)info->page_fetch_ms[i]);
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
  wn_site_info_free(info);
  return ctx->rc == WN_EXIT_INTERNAL;
}

int wn_cli_sites(int argc, char **argv) {
  int rc = WN_EXIT_USAGE;
  const char *store_dir = NULL;
  wn_sites_ctx ctx = {.rc = WN_EXIT_OK};
  wn_drift_policy_init(&ctx.drift);
  size_t map_size = 0;
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
        return wn_cli_usage_error("sites ",
                                  "--drift-share is a number from 0 to 1, not '%.40s'", optarg);
      break;
    case WN_OPT_DRIFT_MIN:
      if (wn_parse_u32(optarg, 1, 1000000, &ctx.drift.min_pages) != 0)
        return wn_cli_usage_error("sites ",
                                  "--drift-min-pages is a number from 1 to 1000000, not '%.40s'",
                                  optarg);
      break;
    case WN_OPT_MAP_SIZE:
      if (wn_cli_parse_map_size(optarg, &map_size) != 0)
        return wn_cli_usage_error("sites ", "--map-size is MiB from 1 to 1048576, not '%.40s'",
                                  optarg);
      break;
    case 'h':
      wn_cli_usage_sites(stdout);
      return WN_EXIT_OK;
    case ':':
      return wn_cli_usage_error("sites ", "option '%.100s' needs an argument",
                                argv[optind - 1]);
    default:
      if (optopt > 0 && optopt < 128)
        return wn_cli_usage_error("sites ", "unknown option '-%c'", optopt);
      return wn_cli_usage_error("sites ", "unknown option '%.100s'", argv[optind - 1]);
    }
  }
  if (!store_dir)
    return wn_cli_usage_error("sites ", "sites needs --store DIR");
  for (int i = optind; i < argc; i++)
    if (wn_site_check(argv[i], &diag) != WN_OK)
      return wn_cli_usage_error("sites ", "%s", wn_diag_message(&diag, WN_EINVAL));
  if ((rc = wn_cli_open_store(store_dir, 1, map_size, &ctx.store)) != WN_EXIT_OK)
    return rc;
  if (optind < argc) {
    for (int i = optind; i < argc && ctx.rc != WN_EXIT_INTERNAL; i++)
      wn_sites_one(argv[i], &ctx);
  } else {
    wn_err err = wn_site_each(ctx.store, wn_sites_one, &ctx, &diag);
    wn_pending_ctx k = {.json = ctx.json};
    if (!err)
      err = wn_store_pending_each(ctx.store, wn_sites_pending_one, &k, &diag);
    if (err)
      ctx.rc = wn_cli_fail(err, &diag);
    else if (k.failed)
      ctx.rc = WN_EXIT_INTERNAL;
  }
  rc = ctx.rc;
  wn_store_close(ctx.store);
  return rc;
}
