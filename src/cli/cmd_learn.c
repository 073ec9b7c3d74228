/* cli/cmd_learn.c: `winnow learn`, sample pages in, one stored record out. */
#include "cli/cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dom/dom.h"
#include "learn/learn.h"

void wn_cli_usage_learn(FILE *out) {
  fprintf(out,
          "usage: winnow learn --store DIR --site SITE [--min-count N] KEY.html PAGE.html...\n"
          "\n"
          "Learns SITE's template from a key page and at least one more page of the\n"
          "site (%u pages at most) and stores it in DIR, replacing any template the\n"
          "site had. The template is built on the key page, or on another sample page\n"
          "if that one matches the rest better. Nothing is written if any page cannot\n"
          "be read or parsed.\n"
          "Prints one line: learned SITE: pages=P nodes=N template_nodes=T\n"
          "record_bytes=B generation=G\n"
          "\n"
          "  --store DIR     the template store, an LMDB directory (created if needed)\n"
          "  --site SITE     the site's name, usually its host (www.example.com)\n"
          "  --min-count N   pages a node must occur in to belong to the template\n"
          "                  (1 to the number of pages; default 2)\n"
          "  -h, --help      show this help\n",
          WN_LEARN_MAX_PAGES);
}

enum { WN_OPT_STORE = 256, WN_OPT_SITE, WN_OPT_MIN_COUNT };

static const struct option wn_learn_options_long[] = {
    {"store", required_argument, NULL, WN_OPT_STORE},
    {"site", required_argument, NULL, WN_OPT_SITE},
    {"min-count", required_argument, NULL, WN_OPT_MIN_COUNT},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

int wn_cli_learn(int argc, char **argv) {
  int rc = WN_EXIT_USAGE;
  const char *store_dir = NULL, *site = NULL, *min_count_arg = NULL;
  wn_store *store = NULL;
  wn_dom_page **pages = NULL;
  wn_store_page *page_info = NULL;
  wn_template *tpl = NULL;
  char *bytes = NULL;
  size_t n_pages = 0, n_parsed = 0;
  wn_diag diag = {{0}};
  wn_buf tpl_bytes, record_bytes;
  wn_buf_init(&tpl_bytes, WN_STORE_MAX_TEMPLATE);
  /* A record is its template plus metadata: page names are capped too. */
  wn_buf_init(&record_bytes, WN_STORE_MAX_TEMPLATE +
                                 (size_t)WN_STORE_MAX_PAGES * (WN_STORE_MAX_PAGE_NAME + 64) + 4096);

  opterr = 0;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, ":h", wn_learn_options_long, NULL)) != -1) {
    switch (c) {
    case WN_OPT_STORE:
      store_dir = optarg;
      break;
    case WN_OPT_SITE:
      site = optarg;
      break;
    case WN_OPT_MIN_COUNT:
      min_count_arg = optarg;
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
  if (!store_dir) {
    rc = wn_cli_usage_error(wn_cli_usage_learn, "learn needs --store DIR");
    goto out;
  }
  if (!site) {
    rc = wn_cli_usage_error(wn_cli_usage_learn, "learn needs --site SITE");
    goto out;
  }
  if (wn_cli_check_site(site, &diag) != WN_OK) {
    rc = wn_cli_usage_error(wn_cli_usage_learn, "%s", wn_diag_message(&diag, WN_EINVAL));
    goto out;
  }
  n_pages = (size_t)(argc - optind);
  if (n_pages < 2) {
    rc = wn_cli_usage_error(wn_cli_usage_learn,
                            "learn needs a key page and at least one more page of the site");
    goto out;
  }
  if (n_pages > WN_LEARN_MAX_PAGES) {
    rc = wn_cli_usage_error(wn_cli_usage_learn, "learn takes at most %u pages, got %zu",
                            WN_LEARN_MAX_PAGES, n_pages);
    goto out;
  }
  wn_learn_options learn_opts = {.min_count = 2};
  if (min_count_arg &&
      wn_cli_parse_u32(min_count_arg, 1, (uint32_t)n_pages, &learn_opts.min_count) != 0) {
    rc = wn_cli_usage_error(wn_cli_usage_learn,
                            "--min-count must be a number from 1 to %zu (the pages given), "
                            "not '%.40s'",
                            n_pages, min_count_arg);
    goto out;
  }
  char *const *paths = argv + optind;
  for (size_t i = 0; i < n_pages; i++) {
    if (strnlen(paths[i], (size_t)WN_STORE_MAX_PAGE_NAME + 1) > WN_STORE_MAX_PAGE_NAME) {
      wn_cli_error("file name longer than %u bytes: %.100s...", WN_STORE_MAX_PAGE_NAME, paths[i]);
      rc = WN_EXIT_INPUT;
      goto out;
    }
  }

  /* The store first: a store that cannot be opened fails before any work,
   * and an empty but valid store exists even if a page fails below. */
  wn_err err = wn_store_open(store_dir, NULL, &store, &diag);
  if (err) {
    wn_cli_error("%s", wn_diag_message(&diag, err));
    rc = err == WN_ENOMEM ? WN_EXIT_INTERNAL : WN_EXIT_STORE;
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

  err = wn_learn_template((const wn_dom_page *const *)pages, n_pages, &learn_opts, &tpl, &diag);
  if (!err)
    err = wn_template_encode(tpl, &tpl_bytes, &diag);
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
      .pages = page_info,
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
  printf("learned %s: pages=%zu nodes=%u template_nodes=%u record_bytes=%zu generation=%llu\n",
         site, n_pages, page_nodes, stats.nodes, record_bytes.len,
         (unsigned long long)generation);
  rc = WN_EXIT_OK;
out:
  free(bytes);
  for (size_t i = 0; i < n_parsed; i++)
    wn_dom_free(pages[i]);
  free(pages);
  free(page_info);
  wn_template_free(tpl);
  wn_buf_free(&tpl_bytes);
  wn_buf_free(&record_bytes);
  wn_store_close(store);
  return rc;
}
