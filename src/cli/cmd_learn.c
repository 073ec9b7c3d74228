/* cli/cmd_learn.c: `winnow learn`, sample pages in, one stored record out. */
#include "cli/cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "detect/detect.h"
#include "dom/dom.h"
#include "learn/learn.h"

void wn_cli_usage_learn(FILE *out) {
  fprintf(out,
          "usage: winnow learn --store DIR --site SITE [--min-count N] [--selector S]\n"
          "                    KEY.html PAGE.html...\n"
          "       winnow learn --store DIR [--site SITE] [--n N] [--algo etdm] [--selector S]\n"
          "                    [crawl options] URL\n"
          "\n"
          "Learns a site's template and stores it in DIR, replacing any template the\n"
          "site had. Nothing is written if learning fails.\n"
          "\n"
          "From files: a key page and at least one more page of the site (%u pages at\n"
          "most). The template is built on the key page, or on another sample page if\n"
          "that one matches the rest better. Prints one line:\n"
          "learned SITE: pages=P nodes=N template_nodes=T record_bytes=B generation=G\n"
          "selector=S\n"
          "\n"
          "From a URL (http or https): fetches the key page, ranks its same-site links\n"
          "by hyperlink distance, then DOM distance, fetches the best N, keeps those\n"
          "that share the key page's template (replacing the others with the next\n"
          "candidates) and learns from them. SITE defaults to the URL's host. Prints\n"
          "the n-SET (one line per page fetched), the time split into network wait and\n"
          "compute, then the 'learned' line.\n"
          "\n"
          "  --store DIR          the template store, an LMDB directory (created if needed)\n"
          "  --site SITE          the site's name, usually its host (www.example.com)\n"
          "  --min-count N        pages a node must occur in to belong to the template\n"
          "                       (1 to the number of pages; default 2)\n"
          "  --n N                pages of the n-SET besides the key page (1 to %u;\n"
          "                       default 4)\n"
          "  --algo A             learning algorithm: etdm (the only one so far)\n"
          "  --selector S         how detect picks the site's main content, kept with the\n"
          "                       template: cues (default; sites with page-specific boxes:\n"
          "                       news, portals, blogs) or region (everything outside the\n"
          "                       template is content: documentation, manuals); paper:\n"
          "                       the paper's Algorithms 2 to 5 as stated\n"
          "  --max-fetches N      candidate pages fetched at most (default 4 n)\n"
          "  --same-domain        same site = same registrable domain (default: same host)\n"
          "  --user-agent UA      User-Agent; robots.txt is matched on its first word\n"
          "                       (default %s)\n"
          "  --delay-ms MS        least time between requests to one host (default 500)\n"
          "  --timeout-ms MS      whole-transfer timeout per request (default 30000)\n"
          "  --max-bytes N        largest page body read (default 8388608)\n"
          "  -h, --help           show this help\n",
          WN_LEARN_MAX_PAGES, WN_LEARN_MAX_PAGES - 1, WN_CRAWL_DEFAULT_USER_AGENT);
}

enum {
  WN_OPT_STORE = 256,
  WN_OPT_SITE,
  WN_OPT_MIN_COUNT,
  WN_OPT_N,
  WN_OPT_ALGO,
  WN_OPT_MAX_FETCHES,
  WN_OPT_SAME_DOMAIN,
  WN_OPT_USER_AGENT,
  WN_OPT_DELAY_MS,
  WN_OPT_TIMEOUT_MS,
  WN_OPT_MAX_BYTES,
  WN_OPT_SELECTOR
};

static const struct option wn_learn_options_long[] = {
    {"store", required_argument, NULL, WN_OPT_STORE},
    {"site", required_argument, NULL, WN_OPT_SITE},
    {"min-count", required_argument, NULL, WN_OPT_MIN_COUNT},
    {"n", required_argument, NULL, WN_OPT_N},
    {"algo", required_argument, NULL, WN_OPT_ALGO},
    {"max-fetches", required_argument, NULL, WN_OPT_MAX_FETCHES},
    {"same-domain", no_argument, NULL, WN_OPT_SAME_DOMAIN},
    {"user-agent", required_argument, NULL, WN_OPT_USER_AGENT},
    {"delay-ms", required_argument, NULL, WN_OPT_DELAY_MS},
    {"timeout-ms", required_argument, NULL, WN_OPT_TIMEOUT_MS},
    {"max-bytes", required_argument, NULL, WN_OPT_MAX_BYTES},
    {"selector", required_argument, NULL, WN_OPT_SELECTOR},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

/* Encodes the template and its record and writes it in one transaction.
 * Prints the 'learned' line. Returns an exit code. */
static int wn_cli_store_template(wn_store *store, const char *site, const wn_template *tpl,
                                 const wn_store_page *page_info, size_t n_pages,
                                 uint32_t page_nodes) {
  int rc = WN_EXIT_INTERNAL;
  wn_diag diag = {{0}};
  wn_buf tpl_bytes, record_bytes;
  wn_buf_init(&tpl_bytes, WN_STORE_MAX_TEMPLATE);
  /* A record is its template plus metadata: page names are capped too. */
  wn_buf_init(&record_bytes, WN_STORE_MAX_TEMPLATE +
                                 (size_t)WN_STORE_MAX_PAGES * (WN_STORE_MAX_PAGE_NAME + 64) + 4096);
  wn_err err = wn_template_encode(tpl, &tpl_bytes, &diag);
  if (err) {
    wn_cli_error("%s: %s", site, wn_diag_message(&diag, err));
    rc = wn_cli_exit_code(err);
    goto out;
  }
  wn_template_stats stats;
  wn_template_get_stats(tpl, &stats);
  wn_store_record record = {
      .learned_at = (int64_t)time(NULL),
      .n_pages = (uint32_t)n_pages,
      .pages = (wn_store_page *)page_info,
      .page_nodes = page_nodes,
      .template_nodes = stats.nodes,
      .template_bytes = (unsigned char *)tpl_bytes.data,
      .template_len = tpl_bytes.len,
  };
  memcpy(record.algorithm, "etdm", sizeof "etdm");
  err = wn_store_record_encode(&record, &record_bytes, &diag);
  if (err) {
    wn_cli_error("%s", wn_diag_message(&diag, err));
    rc = wn_cli_exit_code(err);
    goto out;
  }
  uint64_t generation = 0;
  err = wn_store_put(store, site, &record, &generation, &diag);
  if (err) {
    wn_cli_error("%s", wn_diag_message(&diag, err));
    /* Any failure to write is the store's. */
    rc = err == WN_ENOMEM ? WN_EXIT_INTERNAL : WN_EXIT_STORE;
    goto out;
  }
  printf("learned %s: pages=%zu nodes=%u template_nodes=%u record_bytes=%zu generation=%llu "
         "selector=%s\n",
         site, n_pages, page_nodes, stats.nodes, record_bytes.len,
         (unsigned long long)generation,
         wn_detect_selector_name(stats.selector ? (wn_detect_selector)stats.selector
                                                : WN_SELECT_CUES));
  rc = WN_EXIT_OK;
out:
  wn_buf_free(&tpl_bytes);
  wn_buf_free(&record_bytes);
  return rc;
}

typedef struct wn_learn_args {
  const char *store_dir, *site, *min_count, *n, *algo, *max_fetches, *user_agent, *delay_ms,
      *timeout_ms, *max_bytes;
  int same_domain;
  wn_detect_selector selector; /* WN_SELECT_SITE: not given */
} wn_learn_args;

/* 1 if the argument is meant as a URL: it starts with http:// or https://
 * (any case). Whether it is a valid URL is curl_url's call, later. */
static int wn_looks_like_url(const char *s) {
  static const char *const schemes[] = {"http://", "https://"};
  for (size_t k = 0; k < 2; k++) {
    size_t n = strlen(schemes[k]);
    size_t i = 0;
    while (i < n && s[i] && (s[i] | 0x20) == schemes[k][i])
      i++;
    if (i == n)
      return 1;
  }
  return 0;
}

/* A numeric option of learn: when given (s not NULL), from lo to hi into
 * *out, else dflt (0 for the library's default). 0, or the usage exit
 * code after the message. */
static int wn_learn_number(const char *name, const char *s, uint32_t lo, uint32_t hi,
                           uint32_t dflt, uint32_t *out) {
  *out = dflt;
  if (!s)
    return 0;
  if (wn_cli_parse_u32(s, lo, hi, out) != 0)
    return wn_cli_usage_error(wn_cli_usage_learn, "%s must be a number from %u to %u, not '%.40s'",
                              name, (unsigned)lo, (unsigned)hi, s);
  return 0;
}

/* `winnow learn URL`: crawl the n-SET, learn, store. */
static int wn_cli_learn_url(const wn_learn_args *a, const char *url, wn_store *store,
                            const char *site) {
  int rc = WN_EXIT_INPUT;
  wn_diag diag = {{0}};
  wn_crawl *crawl = NULL;
  wn_learn_crawl_result *res = NULL;
  wn_store_page *page_info = NULL;
  wn_crawl_options co;
  wn_crawl_options_init(&co);
  wn_learn_crawl_options lo = {0};
  lo.by_domain = a->same_domain;
  uint32_t v;
  int bad;
  if ((bad = wn_learn_number("--n", a->n, 1, WN_LEARN_MAX_PAGES - 1, 0, &v)))
    return bad;
  lo.n = v;
  if ((bad = wn_learn_number("--max-fetches", a->max_fetches, 1, 1024, 0, &v)))
    return bad;
  lo.max_fetches = v;
  if ((bad = wn_learn_number("--min-count", a->min_count, 1, WN_LEARN_MAX_PAGES, 0, &v)))
    return bad;
  lo.learn.min_count = v;
  lo.learn.selector = (uint8_t)a->selector;
  if ((bad = wn_learn_number("--delay-ms", a->delay_ms, 0, 3600000, co.host_delay_ms, &v)))
    return bad;
  co.host_delay_ms = v;
  if ((bad = wn_learn_number("--timeout-ms", a->timeout_ms, 1, 3600000, co.timeout_ms, &v)))
    return bad;
  co.timeout_ms = v;
  if (co.connect_timeout_ms > v)
    co.connect_timeout_ms = v;
  if ((bad = wn_learn_number("--max-bytes", a->max_bytes, 1, (uint32_t)WN_DOM_DEFAULT_MAX_BYTES,
                             (uint32_t)co.max_body_bytes, &v)))
    return bad;
  co.max_body_bytes = v;
  if (a->user_agent) {
    if (!*a->user_agent || strnlen(a->user_agent, 513) > 512 || strpbrk(a->user_agent, "\r\n"))
      return wn_cli_usage_error(wn_cli_usage_learn,
                                "--user-agent must be 1 to 512 bytes on one line");
    co.user_agent = a->user_agent;
  }

  wn_err err = wn_crawl_create(&co, &crawl, &diag);
  if (err) {
    wn_cli_error("%s", wn_diag_message(&diag, err));
    rc = wn_cli_exit_code(err);
    goto out;
  }
  err = wn_learn_crawl(crawl, url, &lo, &res, &diag);
  if (res) {
    /* The n-SET as fetched, whether or not learning succeeded: what was
     * tried and why a page was left out is what a user needs to see. */
    for (size_t i = 0; i < res->n_pages; i++) {
      const wn_learn_crawl_page *p = &res->pages[i];
      char dom[16] = "-";
      if (p->dom_distance != UINT32_MAX)
        snprintf(dom, sizeof dom, "%u", p->dom_distance);
      printf("%-4s %-4s h=%-2u dom=%-3s share=%.2f status=%ld %ums %lluB %s%s%s%s\n",
             i == 0 ? "key" : "cand", p->used ? "used" : "left", p->hyperlink_distance, dom,
             i == 0 ? 1.0 : p->share, p->http_status, p->fetch_ms,
             (unsigned long long)p->bytes, p->url, p->message[0] ? " (" : "", p->message,
             p->message[0] ? ")" : "");
    }
  }
  if (err) {
    wn_cli_error("%s", wn_diag_message(&diag, err));
    rc = wn_cli_exit_code(err);
    goto out;
  }
  const uint32_t wanted = lo.n ? lo.n : 4;
  if (res->n_used - 1 < wanted)
    wn_cli_error("warning: %s: only %zu of the %u pages wanted share the key page's template "
                 "(%zu links, %zu candidates, %zu fetched); learned from what there is",
                 site, res->n_used - 1, wanted, res->n_links, res->n_candidates,
                 res->n_pages - 1);
  printf("time: network %.1f ms, compute %.1f ms (%zu pages fetched, %zu learned from)\n",
         res->network_ms, res->compute_ms, res->n_pages, res->n_used);
  page_info = calloc(res->n_used, sizeof *page_info);
  if (!page_info) {
    wn_cli_error("out of memory");
    rc = WN_EXIT_INTERNAL;
    goto out;
  }
  size_t k = 0;
  for (size_t i = 0; i < res->n_pages && k < res->n_used; i++) {
    const wn_learn_crawl_page *p = &res->pages[i];
    if (!p->used)
      continue;
    page_info[k].name = p->url;
    page_info[k].bytes = p->bytes;
    page_info[k].http_status = (int32_t)p->http_status;
    page_info[k].fetch_ms = p->fetch_ms;
    k++;
  }
  rc = wn_cli_store_template(store, site, res->tpl, page_info, k, res->page_nodes);
out:
  free(page_info);
  wn_learn_crawl_result_free(res);
  wn_crawl_destroy(crawl);
  return rc;
}

int wn_cli_learn(int argc, char **argv) {
  int rc = WN_EXIT_USAGE;
  wn_learn_args a = {0};
  const char *site = NULL;
  char url_site[WN_STORE_MAX_SITE + 1];
  wn_store *store = NULL;
  wn_dom_page **pages = NULL;
  wn_store_page *page_info = NULL;
  wn_template *tpl = NULL;
  char *bytes = NULL;
  size_t n_pages = 0, n_parsed = 0;
  wn_diag diag = {{0}};

  opterr = 0;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, ":h", wn_learn_options_long, NULL)) != -1) {
    switch (c) {
    case WN_OPT_STORE: a.store_dir = optarg; break;
    case WN_OPT_SITE: a.site = optarg; break;
    case WN_OPT_MIN_COUNT: a.min_count = optarg; break;
    case WN_OPT_N: a.n = optarg; break;
    case WN_OPT_ALGO: a.algo = optarg; break;
    case WN_OPT_MAX_FETCHES: a.max_fetches = optarg; break;
    case WN_OPT_SAME_DOMAIN: a.same_domain = 1; break;
    case WN_OPT_USER_AGENT: a.user_agent = optarg; break;
    case WN_OPT_DELAY_MS: a.delay_ms = optarg; break;
    case WN_OPT_TIMEOUT_MS: a.timeout_ms = optarg; break;
    case WN_OPT_MAX_BYTES: a.max_bytes = optarg; break;
    case WN_OPT_SELECTOR:
      /* "site" would name the default; only a real choice is stored. */
      if (wn_detect_selector_parse(optarg, &a.selector) != 0 || a.selector == WN_SELECT_SITE) {
        rc = wn_cli_usage_error(wn_cli_usage_learn,
                                "--selector is cues, region or paper, not '%.40s'", optarg);
        goto out;
      }
      break;
    case 'h':
      wn_cli_usage_learn(stdout);
      rc = WN_EXIT_OK;
      goto out;
    case ':':
      rc = wn_cli_usage_error(wn_cli_usage_learn, "option '%.100s' needs an argument",
                              argv[optind - 1]);
      goto out;
    default:
      /* An unknown short option is in optopt; an unknown long one is the
       * argument getopt_long just passed. */
      if (optopt > 0 && optopt < 128)
        rc = wn_cli_usage_error(wn_cli_usage_learn, "unknown option '-%c'", optopt);
      else
        rc = wn_cli_usage_error(wn_cli_usage_learn, "unknown option '%.100s'",
                                argv[optind - 1]);
      goto out;
    }
  }
  if (!a.store_dir) {
    rc = wn_cli_usage_error(wn_cli_usage_learn, "learn needs --store DIR");
    goto out;
  }
  if (a.algo && strcmp(a.algo, "etdm") != 0) {
    rc = wn_cli_usage_error(wn_cli_usage_learn, "--algo: unknown algorithm '%.40s' (known: etdm)",
                            a.algo);
    goto out;
  }
  n_pages = (size_t)(argc - optind);
  const int url_mode = n_pages == 1 && wn_looks_like_url(argv[optind]);
  site = a.site;
  if (url_mode && !site) {
    if (wn_cli_site_from_url(argv[optind], url_site, sizeof url_site, &diag) != WN_OK) {
      wn_cli_error("%s", wn_diag_message(&diag, WN_EINVAL));
      rc = WN_EXIT_INPUT;
      goto out;
    }
    site = url_site;
  }
  if (!site) {
    rc = wn_cli_usage_error(wn_cli_usage_learn, "learn needs --site SITE");
    goto out;
  }
  if (wn_cli_check_site(site, &diag) != WN_OK) {
    rc = wn_cli_usage_error(wn_cli_usage_learn, "%s", wn_diag_message(&diag, WN_EINVAL));
    goto out;
  }
  if (!url_mode && (a.n || a.max_fetches || a.same_domain || a.user_agent || a.delay_ms ||
                    a.timeout_ms || a.max_bytes)) {
    rc = wn_cli_usage_error(wn_cli_usage_learn,
                            "--n, --max-fetches, --same-domain, --user-agent, --delay-ms, "
                            "--timeout-ms and --max-bytes are for learning from a URL");
    goto out;
  }
  if (!url_mode && n_pages < 2) {
    rc = wn_cli_usage_error(wn_cli_usage_learn,
                            "learn needs a URL, or a key page and at least one more page of "
                            "the site");
    goto out;
  }
  if (n_pages > WN_LEARN_MAX_PAGES) {
    rc = wn_cli_usage_error(wn_cli_usage_learn, "learn takes at most %u pages, got %zu",
                            WN_LEARN_MAX_PAGES, n_pages);
    goto out;
  }
  wn_learn_options learn_opts = {.min_count = 2, .selector = (uint8_t)a.selector};
  if (!url_mode && a.min_count &&
      wn_cli_parse_u32(a.min_count, 1, (uint32_t)n_pages, &learn_opts.min_count) != 0) {
    rc = wn_cli_usage_error(wn_cli_usage_learn,
                            "--min-count must be a number from 1 to %zu (the pages given), "
                            "not '%.40s'",
                            n_pages, a.min_count);
    goto out;
  }
  char *const *paths = argv + optind;
  for (size_t i = 0; i < n_pages; i++) {
    if (strnlen(paths[i], (size_t)WN_STORE_MAX_PAGE_NAME + 1) > WN_STORE_MAX_PAGE_NAME) {
      wn_cli_error("%s longer than %u bytes: %.100s...", url_mode ? "URL" : "file name",
                   WN_STORE_MAX_PAGE_NAME, paths[i]);
      rc = WN_EXIT_INPUT;
      goto out;
    }
  }

  /* The store first: a store that cannot be opened fails before any work,
   * and an empty but valid store exists even if a page fails below. */
  wn_err err = wn_store_open(a.store_dir, NULL, &store, &diag);
  if (err) {
    wn_cli_error("%s", wn_diag_message(&diag, err));
    rc = err == WN_ENOMEM ? WN_EXIT_INTERNAL : WN_EXIT_STORE;
    goto out;
  }
  if (url_mode) {
    rc = wn_cli_learn_url(&a, paths[0], store, site);
    goto out;
  }

  pages = calloc(n_pages, sizeof *pages);
  page_info = calloc(n_pages, sizeof *page_info);
  if (!pages || !page_info) {
    wn_cli_error("out of memory");
    rc = WN_EXIT_INTERNAL;
    goto out;
  }
  uint32_t page_nodes = 0;
  for (size_t i = 0; i < n_pages; i++) {
    size_t len = 0;
    /* wn_file_read's messages name the file; the parser's do not. */
    err = wn_file_read(paths[i], WN_DOM_DEFAULT_MAX_BYTES, &bytes, &len, &diag);
    if (err) {
      wn_cli_error("%s", wn_diag_message(&diag, err));
      rc = wn_cli_exit_code(err);
      goto out;
    }
    err = wn_dom_parse(bytes, len, NULL, &pages[i], &diag);
    free(bytes);
    bytes = NULL;
    if (err) {
      wn_cli_error("%s: %s", paths[i], wn_diag_message(&diag, err));
      rc = wn_cli_exit_code(err);
      goto out;
    }
    n_parsed = i + 1;
    uint32_t count = 0;
    wn_dom_nodes(pages[i], &count);
    /* At most WN_LEARN_MAX_PAGES * WN_DOM_DEFAULT_MAX_NODES: no overflow. */
    page_nodes += count;
    page_info[i].name = paths[i];
    page_info[i].bytes = len;
  }

  err = wn_learn_pages((const wn_dom_page *const *)pages, n_pages, &learn_opts, &tpl, NULL, &diag);
  if (err) {
    wn_cli_error("%s: %s", site, wn_diag_message(&diag, err));
    rc = wn_cli_exit_code(err);
    goto out;
  }
  rc = wn_cli_store_template(store, site, tpl, page_info, n_pages, page_nodes);
out:
  free(bytes);
  for (size_t i = 0; i < n_parsed; i++)
    wn_dom_free(pages[i]);
  free(pages);
  free(page_info);
  wn_template_free(tpl);
  wn_store_close(store);
  return rc;
}
