/* cli/cmd_learn.c: `winnow learn`, sample pages in, one stored record out. */
#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void wn_cli_usage_learn(FILE *out) {
  fprintf(out,
          "usage: winnow learn --store DIR --site SITE [options] KEY.html PAGE.html...\n"
          "       winnow learn --store DIR [--site SITE] [options] [crawl options] URL\n"
          "\n"
          "Learns a site's template and stores it in DIR, replacing any template the\n"
          "site had. Nothing is written (not even the store directory) if learning\n"
          "fails.\n"
          "\n"
          "From files: a key page and at least one more page of the site (%u pages at\n"
          "most). Pages that share less than --min-share of the key page's layout are\n"
          "left out (--force keeps them), and a template that keeps nothing of the\n"
          "site's layout is refused. Prints one line per page, then:\n"
          "learned SITE: pages=P nodes=N template_nodes=T record_bytes=B generation=G\n"
          "selector=S\n"
          "\n"
          "From a URL (http or https): fetches the key page, ranks its same-site links\n"
          "by hyperlink distance, then DOM distance, fetches the best N, keeps those\n"
          "that share the key page's template (replacing the others with the next\n"
          "candidates) and learns from them. SITE defaults to the URL's site (its\n"
          "host, lower-case, with the port unless it is the default). Prints the\n"
          "n-SET (one line per page fetched), the time split into network, politeness\n"
          "wait and compute, then the 'learned' line.\n"
          "\n"
          "  --store DIR          the template store, an LMDB directory (created if needed)\n"
          "  --site SITE          the site's name: its host, lower-case (www.example.com,\n"
          "                       127.0.0.1:8080)\n"
          "  --min-count N        pages a node must occur in to belong to the template\n"
          "                       (1 to the number of pages; default 2)\n"
          "  --min-share X        share of the key page's template nodes a page must pair\n"
          "                       to be learned from (above 0, up to 1; default 0.5)\n"
          "  --force              learn from every file given, whatever it shares\n"
          "  --n N                pages of the n-SET besides the key page (1 to %u;\n"
          "                       default 4)\n"
          "  --algo A             learning algorithm: etdm (ETDM occurrence counts, the\n"
          "                       default) or fastce (FastCE path templates: content\n"
          "                       block paths and the non-content blocks on them)\n"
          "  --selector S         how detect picks the site's main content, kept with the\n"
          "                       template: places (default: where the samples hold\n"
          "                       their content, learned; the cues on a page that does\n"
          "                       not fit it); cues (template filter, then text and\n"
          "                       link density on every page); region (everything\n"
          "                       outside the template is content); paper: the paper's\n"
          "                       Algorithms 2 to 5 as stated\n"
          "  --max-fetches N      candidate pages fetched at most (default 4 n)\n"
          "  --same-domain        same site = same registrable domain (default: same host)\n"
          "  --user-agent UA      User-Agent; robots.txt is matched on its first word\n"
          "                       (default %s)\n"
          "  --delay-ms MS        least time between requests to one host (default 500)\n"
          "  --timeout-ms MS      whole-transfer timeout per request (default 30000)\n"
          "  --max-bytes N        largest page body read (default 8388608)\n"
          "  --map-size MIB       the store's largest size in MiB (default 1024)\n"
          "  -h, --help           show this help\n",
          WN_LEARN_MAX_PAGES, WN_LEARN_MAX_PAGES - 1, WN_CRAWL_DEFAULT_USER_AGENT);
}

enum {
  WN_OPT_STORE = 256,
  WN_OPT_SITE,
  WN_OPT_MIN_COUNT,
  WN_OPT_MIN_SHARE,
  WN_OPT_FORCE,
  WN_OPT_N,
  WN_OPT_ALGO,
  WN_OPT_MAX_FETCHES,
  WN_OPT_SAME_DOMAIN,
  WN_OPT_USER_AGENT,
  WN_OPT_DELAY_MS,
  WN_OPT_TIMEOUT_MS,
  WN_OPT_MAX_BYTES,
  WN_OPT_SELECTOR,
  WN_OPT_MAP_SIZE
};

static const struct option wn_learn_options_long[] = {
    {"store", required_argument, NULL, WN_OPT_STORE},
    {"site", required_argument, NULL, WN_OPT_SITE},
    {"min-count", required_argument, NULL, WN_OPT_MIN_COUNT},
    {"min-share", required_argument, NULL, WN_OPT_MIN_SHARE},
    {"force", no_argument, NULL, WN_OPT_FORCE},
    {"n", required_argument, NULL, WN_OPT_N},
    {"algo", required_argument, NULL, WN_OPT_ALGO},
    {"max-fetches", required_argument, NULL, WN_OPT_MAX_FETCHES},
    {"same-domain", no_argument, NULL, WN_OPT_SAME_DOMAIN},
    {"user-agent", required_argument, NULL, WN_OPT_USER_AGENT},
    {"delay-ms", required_argument, NULL, WN_OPT_DELAY_MS},
    {"timeout-ms", required_argument, NULL, WN_OPT_TIMEOUT_MS},
    {"max-bytes", required_argument, NULL, WN_OPT_MAX_BYTES},
    {"selector", required_argument, NULL, WN_OPT_SELECTOR},
    {"map-size", required_argument, NULL, WN_OPT_MAP_SIZE},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

typedef struct wn_learn_args {
  const char *store_dir, *site, *min_count, *n, *algo, *max_fetches, *user_agent, *delay_ms,
      *timeout_ms, *max_bytes, *min_share;
  int same_domain, force;
  size_t map_size;
  wn_detect_selector selector; /* WN_SELECT_SITE: not given */
} wn_learn_args;

/* 1 if the one argument is meant as a URL rather than a file: it has a
 * scheme ("http://", "ftp://", "file:///"), or, without --site (files
 * need one), it is not an existing file ("not a url"). Whether it is a
 * URL we can learn from is wn_site_from_url's call, with its message. */
static int wn_looks_like_url(const char *s, int have_site) {
  const char *colon = strstr(s, "://");
  if (colon && colon > s) {
    const char *p = s;
    while (p < colon && (wn_ascii_alpha(*p) || *p == '+' || *p == '-' || *p == '.'))
      p++;
    if (p == colon)
      return 1;
  }
  struct stat st;
  return !have_site && stat(s, &st) != 0;
}

/* A numeric option: when given (s not NULL), from lo to hi into *out,
 * else *out is left as it is. 0, or the usage exit code after the
 * message. */
static int wn_learn_number(const char *name, const char *s, uint32_t lo, uint32_t hi,
                           uint32_t *out) {
  if (!s)
    return 0;
  if (wn_parse_u32(s, lo, hi, out) != 0)
    return wn_cli_usage_error("learn ", "%s must be a number from %u to %u, not '%.40s'", name,
                              (unsigned)lo, (unsigned)hi, s);
  return 0;
}

/* Files: a warning per page left out, or kept by --force though it is
 * another version of the key page (the one stdout line stays the
 * 'learned' line). */
static void wn_learn_warn_left(const wn_learned *l) {
  wn_learn_summary sum;
  wn_learned_summary_get(l, &sum);
  for (size_t i = 0; i < sum.n_pages; i++) {
    const wn_learn_page *p = wn_learned_page(l, i);
    if (!p->used && p->message && p->message[0])
      wn_cli_error("warning: %s left out: %s", p->name, p->message);
    else if (p->used && p->layout > 1)
      wn_cli_error("%s: another layout, learned as layout %u", p->name, p->layout);
    else if (p->used && p->message && p->message[0])
      wn_cli_error("warning: %s %s", p->name, p->message); /* kept by --force */
  }
}

/* A crawl: the n-SET, one line per page fetched. */
static void wn_learn_print_pages(const wn_learned *l) {
  wn_learn_summary sum;
  wn_learned_summary_get(l, &sum);
  for (size_t i = 0; i < sum.n_pages; i++) {
    const wn_learn_page *p = wn_learned_page(l, i);
    const char *msg = p->message ? p->message : "";
    char dom[16] = "-";
    if (p->dom_distance != UINT32_MAX)
      snprintf(dom, sizeof dom, "%u", p->dom_distance);
    printf("%-4s %-4s h=%-2u dom=%-3s share=%.2f status=%ld %ums %lluB %s%s%s%s\n",
           i == 0 ? "key" : "cand", p->used ? "used" : "left", p->hyperlink_distance, dom,
           p->share, p->http_status, p->fetch_ms, (unsigned long long)p->bytes, p->name,
           msg[0] ? " (" : "", msg, msg[0] ? ")" : "");
  }
}

/* Parses the options into a; returns -1 to go on, else an exit code. */
static int wn_learn_parse(int argc, char **argv, wn_learn_args *a) {
  opterr = 0;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, ":h", wn_learn_options_long, NULL)) != -1) {
    switch (c) {
    case WN_OPT_STORE: a->store_dir = optarg; break;
    case WN_OPT_SITE: a->site = optarg; break;
    case WN_OPT_MIN_COUNT: a->min_count = optarg; break;
    case WN_OPT_MIN_SHARE: a->min_share = optarg; break;
    case WN_OPT_FORCE: a->force = 1; break;
    case WN_OPT_N: a->n = optarg; break;
    case WN_OPT_ALGO: a->algo = optarg; break;
    case WN_OPT_MAX_FETCHES: a->max_fetches = optarg; break;
    case WN_OPT_SAME_DOMAIN: a->same_domain = 1; break;
    case WN_OPT_USER_AGENT: a->user_agent = optarg; break;
    case WN_OPT_DELAY_MS: a->delay_ms = optarg; break;
    case WN_OPT_TIMEOUT_MS: a->timeout_ms = optarg; break;
    case WN_OPT_MAX_BYTES: a->max_bytes = optarg; break;
    case WN_OPT_MAP_SIZE:
      if (wn_cli_parse_map_size(optarg, &a->map_size) != 0)
        return wn_cli_usage_error("learn ", "--map-size is MiB from 1 to 1048576, not '%.40s'",
                                  optarg);
      break;
    case WN_OPT_SELECTOR:
      /* "site" would name the default; only a real choice is stored. */
      if (wn_detect_selector_parse(optarg, &a->selector) != 0 || a->selector == WN_SELECT_SITE)
        return wn_cli_usage_error("learn ", "--selector is cues, places, region or paper, not '%.40s'",
                                  optarg);
      break;
    case 'h':
      wn_cli_usage_learn(stdout);
      return WN_EXIT_OK;
    case ':':
      return wn_cli_usage_error("learn ", "option '%.100s' needs an argument", argv[optind - 1]);
    default:
      /* An unknown short option is in optopt; an unknown long one is the
       * argument getopt_long just passed. */
      if (optopt > 0 && optopt < 128)
        return wn_cli_usage_error("learn ", "unknown option '-%c'", optopt);
      return wn_cli_usage_error("learn ", "unknown option '%.100s'", argv[optind - 1]);
    }
  }
  return -1;
}

int wn_cli_learn(int argc, char **argv) {
  int rc = WN_EXIT_USAGE;
  wn_learn_args a = {0};
  wn_store *store = NULL;
  wn_learned *learned = NULL;
  wn_diag diag = {{0}};
  wn_err err = WN_OK;

  rc = wn_learn_parse(argc, argv, &a);
  if (rc >= 0)
    return rc;
  if (!a.store_dir)
    return wn_cli_usage_error("learn ", "learn needs --store DIR");
  wn_learn_algo algo = WN_LEARN_ETDM;
  if (a.algo && wn_learn_algo_parse(a.algo, &algo) != 0)
    return wn_cli_usage_error("learn ", "--algo: unknown algorithm '%.40s' (known: etdm, fastce)",
                              a.algo);
  size_t n_pages = (size_t)(argc - optind);
  if (n_pages == 0)
    return wn_cli_usage_error("learn ", "learn needs a URL, or a key page and at least one more "
                                        "page of the site");
  const int url_mode = n_pages == 1 && wn_looks_like_url(argv[optind], a.site != NULL);
  char *const *paths = argv + optind;

  wn_learn_options lo;
  wn_learn_options_init(&lo);
  lo.algo = algo;
  wn_crawl_options co;
  wn_crawl_options_init(&co);
  lo.selector = a.selector;
  lo.by_domain = a.same_domain;
  lo.force = a.force;
  if (a.min_share &&
      (wn_cli_parse_share(a.min_share, &lo.min_share) != 0 || lo.min_share == 0.0))
    return wn_cli_usage_error("learn ", "--min-share is a number above 0, up to 1, not '%.40s' "
                                        "(--force keeps every page)",
                              a.min_share);
  if (url_mode) {
    if (a.force)
      return wn_cli_usage_error("learn ", "--force is for learning from files");
    uint32_t v = (uint32_t)co.max_body_bytes;
    if ((rc = wn_learn_number("--n", a.n, 1, WN_LEARN_MAX_PAGES - 1, &lo.n)) ||
        (rc = wn_learn_number("--min-count", a.min_count, 1, WN_LEARN_MAX_PAGES, &lo.min_count)) ||
        (rc = wn_learn_number("--delay-ms", a.delay_ms, 0, 3600000, &co.host_delay_ms)) ||
        (rc = wn_learn_number("--timeout-ms", a.timeout_ms, 1, 3600000, &co.timeout_ms)) ||
        (rc = wn_learn_number("--max-bytes", a.max_bytes, 1, (uint32_t)WN_PAGE_MAX_BYTES, &v)))
      return rc;
    lo.max_fetches = 4 * lo.n;
    if ((rc = wn_learn_number("--max-fetches", a.max_fetches, 1, 1024, &lo.max_fetches)))
      return rc;
    co.max_body_bytes = v;
    if (co.connect_timeout_ms > co.timeout_ms)
      co.connect_timeout_ms = co.timeout_ms;
    if (a.user_agent) {
      if (!*a.user_agent || strnlen(a.user_agent, 256) > 255 || strpbrk(a.user_agent, "\r\n"))
        return wn_cli_usage_error("learn ", "--user-agent must be 1 to 255 bytes on one line");
      co.user_agent = a.user_agent;
    }
  } else {
    if (a.n || a.max_fetches || a.same_domain || a.user_agent || a.delay_ms || a.timeout_ms ||
        a.max_bytes)
      return wn_cli_usage_error("learn ", "--n, --max-fetches, --same-domain, --user-agent, "
                                          "--delay-ms, --timeout-ms and --max-bytes are for "
                                          "learning from a URL");
    if (!a.site)
      return wn_cli_usage_error("learn ", "learning from files needs --site SITE");
    if (n_pages < 2)
      return wn_cli_usage_error("learn ", "learn needs a URL, or a key page and at least one "
                                          "more page of the site");
    if (n_pages > WN_LEARN_MAX_PAGES)
      return wn_cli_usage_error("learn ", "learn takes at most %u pages, got %zu",
                                WN_LEARN_MAX_PAGES, n_pages);
    if (a.min_count &&
        wn_parse_u32(a.min_count, 1, (uint32_t)n_pages, &lo.min_count) != 0)
      return wn_cli_usage_error("learn ", "--min-count must be a number from 1 to %zu (the "
                                          "pages given), not '%.40s'",
                                n_pages, a.min_count);
  }
  if (a.site && (err = wn_site_check(a.site, &diag)) != WN_OK)
    return wn_cli_usage_error("learn ", "%s", wn_diag_message(&diag, err));

  /* An existing store is opened first, so that a store that cannot be
   * written fails before a crawl; a new one is created only once there is
   * a template to put in it. */
  struct stat st;
  if (stat(a.store_dir, &st) == 0 &&
      (rc = wn_cli_open_store(a.store_dir, 0, a.map_size, &store)) != WN_EXIT_OK)
    goto out;

  if (url_mode)
    err = wn_site_learn_url(paths[0], a.site, &lo, &co, &learned, &diag);
  else
    err = wn_site_learn_files(a.site, (const char *const *)paths, n_pages, &lo, &learned, &diag);
  /* What was tried and why a page was left out is what a user needs to
   * see, whether or not learning succeeded. */
  if (learned && url_mode)
    wn_learn_print_pages(learned);
  else if (learned)
    wn_learn_warn_left(learned);
  if (err) {
    rc = wn_cli_fail(err, &diag);
    goto out;
  }
  wn_learn_summary sum;
  wn_learned_summary_get(learned, &sum);
  if (url_mode) {
    if (sum.n_used - 1 < lo.n)
      wn_cli_error("warning: %s: only %zu of the %u pages wanted share the key page's template "
                   "(%zu links, %zu candidates, %zu fetched); learned from what there is",
                   sum.site, sum.n_used - 1, lo.n, sum.n_links, sum.n_candidates,
                   sum.n_pages - 1);
    printf("time: network %.1f ms, wait %.1f ms, compute %.1f ms (%zu pages fetched, %zu "
           "learned from)\n",
           sum.network_ms, sum.wait_ms, sum.compute_ms, sum.n_pages, sum.n_used);
  } else if (sum.n_used < sum.n_pages) {
    wn_cli_error("warning: %s: learned from %zu of the %zu pages (--force keeps the others)",
                 sum.site, sum.n_used, sum.n_pages);
  }
  if (!store && (rc = wn_cli_open_store(a.store_dir, 0, a.map_size, &store)) != WN_EXIT_OK)
    goto out;
  wn_save_info info;
  err = wn_site_save(store, learned, &info, &diag);
  if (err) {
    wn_cli_error("%s", wn_diag_message(&diag, err));
    /* Any failure to write is the store's. */
    rc = err == WN_ENOMEM ? WN_EXIT_INTERNAL : WN_EXIT_STORE;
    goto out;
  }
  /* FastCE adds its name; the ETDM line stays as scripts know it. */
  /* layouts=N only when there are several: the line stays as scripts
   * know it for a site of one layout. */
  const uint32_t layouts = wn_learned_layouts(learned);
  char more[32] = "";
  if (layouts > 1)
    snprintf(more, sizeof more, " layouts=%u", layouts);
  printf("learned %s: pages=%zu nodes=%u template_nodes=%u record_bytes=%zu generation=%llu "
         "selector=%s%s%s\n",
         sum.site, sum.n_used, sum.page_nodes, sum.template_nodes, info.record_bytes,
         (unsigned long long)info.generation, wn_detect_selector_name(sum.selector),
         algo == WN_LEARN_FASTCE ? " algo=fastce" : "", more);
  rc = WN_EXIT_OK;
out:
  wn_learned_free(learned);
  wn_store_close(store);
  return rc;
}
