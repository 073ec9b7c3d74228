/* cli/cmd_detect.c: `winnow detect`, one page (or a JSONL stream of pages)
 * in, its main content out. */
#include "cli/cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "dom/dom.h"

void wn_cli_usage_detect(FILE *out) {
  fprintf(out,
          "usage: winnow detect [--store DIR] [--site SITE | --url URL] [options] FILE|-\n"
          "       winnow detect [--store DIR] --jsonl [options] [FILE|-]\n"
          "\n"
          "Extracts the main content of a page (FILE, or - for stdin) with the template\n"
          "learned for its site. Pages of a site without a template, pages that fit\n"
          "their template badly (match confidence below --min-confidence) and, without\n"
          "--store, every page are served by a single-page method instead; \"method\"\n"
          "and \"fallback\" in the JSON output say which and why. Each page detected with\n"
          "a template is counted in the store; a site whose recent pages fit badly is\n"
          "reported as drifting (a warning on stderr, \"drift\" in the JSON output).\n"
          "\n"
          "  --store DIR           the template store written by winnow learn\n"
          "  --site SITE           the page's site, as given to winnow learn\n"
          "  --url URL             the page's URL; the site is its host\n"
          "  --format FORMAT       text (default): the content, one line per block;\n"
          "                        html: the content's elements as HTML;\n"
          "                        json: {\"site\", \"method\", \"confidence\", \"fallback\",\n"
          "                        \"drift\", \"charset\", \"charset_source\", \"nodes\", \"text\"}\n"
          "  --selector SELECTOR   overrides the selector the site was learned with\n"
          "                        (winnow learn --selector): cues: template filter,\n"
          "                        then text and link density; region: the largest\n"
          "                        page-specific region, whole; paper: the paper's\n"
          "                        Algorithms 2 to 5\n"
          "  --fallback METHOD     single-page method: danag (default) or cnr\n"
          "  --min-confidence X    below this match confidence (0 to 1) a page is served\n"
          "                        by the fallback (default %.2f; 0: never)\n"
          "  --drift-share X       a site drifts when at least this share of its recent\n"
          "                        pages fall below --min-confidence (default %.2f)\n"
          "  --no-count            do not count detections (opens the store read-only)\n"
          "  --jsonl               read a stream (FILE, default stdin) of JSON objects, one\n"
          "                        per line: {\"id\": any, \"site\" or \"url\", \"html\" (the\n"
          "                        page) or \"path\" (a file)}; \"site\" wins over \"url\"\n"
          "                        when both are given. Writes one line per input line,\n"
          "                        in order: {\"id\", \"site\", \"method\", \"confidence\",\n"
          "                        \"fallback\", \"text\"} (and \"html\" with --format html),\n"
          "                        or {\"id\", \"error\"} for a line that cannot be handled.\n"
          "                        Templates are read once per site and kept for the\n"
          "                        rest of the stream; counts are written at the end.\n"
          "  -h, --help            show this help\n",
          WN_DETECT_DEFAULT_MIN_CONFIDENCE, WN_STORE_DRIFT_SHARE);
}

enum {
  WN_OPT_STORE = 256,
  WN_OPT_SITE,
  WN_OPT_URL,
  WN_OPT_FORMAT,
  WN_OPT_SELECTOR,
  WN_OPT_JSONL,
  WN_OPT_FALLBACK,
  WN_OPT_MIN_CONFIDENCE,
  WN_OPT_DRIFT_SHARE,
  WN_OPT_NO_COUNT
};

static const struct option wn_detect_options_long[] = {
    {"store", required_argument, NULL, WN_OPT_STORE},
    {"site", required_argument, NULL, WN_OPT_SITE},
    {"url", required_argument, NULL, WN_OPT_URL},
    {"format", required_argument, NULL, WN_OPT_FORMAT},
    {"selector", required_argument, NULL, WN_OPT_SELECTOR},
    {"jsonl", no_argument, NULL, WN_OPT_JSONL},
    {"fallback", required_argument, NULL, WN_OPT_FALLBACK},
    {"min-confidence", required_argument, NULL, WN_OPT_MIN_CONFIDENCE},
    {"drift-share", required_argument, NULL, WN_OPT_DRIFT_SHARE},
    {"no-count", no_argument, NULL, WN_OPT_NO_COUNT},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

/* The single-page JSON object: site, method, confidence, fallback, drift,
 * charset, charset_source, nodes, text, in that order. */
static wn_err wn_detect_json(const wn_dom_page *page, const wn_detect_result *result,
                             const char *site, const wn_store_stats *stats,
                             const wn_cli_detect_config *config, const wn_buf *text, char **out,
                             wn_diag *diag) {
  wn_err err = WN_ENOMEM;
  json_t *obj = json_object();
  json_t *nodes = json_array();
  wn_buf path;
  wn_buf_init(&path, 64 * 1024);
  *out = NULL;
  /* json_object_set_new takes the value's reference even when it fails;
   * "nodes" is set with json_object_set, so we keep ours and fill it in
   * place. */
  if (!obj || !nodes)
    goto out;
  json_t *site_value = site ? json_string(site) : json_null();
  if (!site_value) {
    err = wn_diag_set(diag, WN_EINVAL, "site name is not valid UTF-8");
    goto out;
  }
  if (json_object_set_new(obj, "site", site_value) != 0 ||
      json_object_set_new(obj, "method", json_string(wn_detect_method(result))) != 0 ||
      json_object_set_new(obj, "confidence", json_real(wn_detect_confidence(result))) != 0 ||
      wn_cli_json_verdict(obj, result, stats, config) != 0 ||
      json_object_set_new(obj, "charset", json_string(wn_dom_charset(page))) != 0 ||
      json_object_set_new(obj, "charset_source",
                          json_string(wn_charset_source_name(wn_dom_charset_source(page)))) != 0 ||
      json_object_set(obj, "nodes", nodes) != 0)
    goto out;
  uint32_t n = 0;
  const uint32_t *selected = wn_detect_selected(result, &n);
  for (uint32_t k = 0; k < n; k++) {
    wn_buf_reset(&path);
    wn_err path_err = wn_dom_node_path(page, selected[k], &path);
    if (path_err) {
      err = wn_diag_set(diag, path_err, "cannot write the path of node %u", selected[k]);
      goto out;
    }
    if (json_array_append_new(nodes, json_stringn(path.data ? path.data : "", path.len)) != 0)
      goto out;
  }
  /* The parser decodes every page to UTF-8, so this fails only when memory
   * does, or if the core broke that promise. */
  json_t *text_value = json_stringn(text->data ? text->data : "", text->len);
  if (!text_value) {
    err = wn_diag_set(diag, WN_EINVAL, "the content is not valid UTF-8");
    goto out;
  }
  if (json_object_set_new(obj, "text", text_value) != 0)
    goto out;
  *out = json_dumps(obj, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
  if (*out)
    err = WN_OK;
out:
  json_decref(nodes);
  json_decref(obj);
  wn_buf_free(&path);
  if (err == WN_ENOMEM)
    wn_diag_set(diag, err, "out of memory writing JSON");
  return err;
}

/* One page: read, parse, detect, render. site is NULL without a store. */
static int wn_detect_one(wn_store *store, const char *site, const char *input,
                         const wn_cli_detect_config *config) {
  int rc = WN_EXIT_INPUT;
  wn_template *tpl = NULL;
  wn_dom_page *page = NULL;
  wn_detect_result *result = NULL;
  char *bytes = NULL;
  char *json = NULL;
  size_t len = 0;
  uint64_t generation = 0;
  wn_diag diag = {{0}};
  wn_buf text;
  wn_buf_init(&text, WN_CLI_MAX_OUTPUT_BYTES);

  wn_err err = WN_OK;
  if (store && site) {
    err = wn_cli_load_template(store, site, &tpl, &generation, &diag);
    /* No template is no error: the fallback serves the page. */
    if (err && err != WN_ENOTEMPLATE) {
      wn_cli_error("%s", wn_diag_message(&diag, err));
      rc = wn_cli_exit_code(err);
      goto out;
    }
    wn_diag_clear(&diag);
  }
  err = wn_file_read(input, WN_DOM_DEFAULT_MAX_BYTES, &bytes, &len, &diag);
  if (err) {
    wn_cli_error("%s", wn_diag_message(&diag, err));
    rc = wn_cli_exit_code(err);
    goto out;
  }
  wn_dom_options parse_opts = {.keep_xml = config->format == WN_FORMAT_HTML};
  err = wn_dom_parse(bytes, len, &parse_opts, &page, &diag);
  if (err) {
    wn_cli_error("%s: %s", strcmp(input, "-") == 0 ? "stdin" : input,
                 wn_diag_message(&diag, err));
    rc = wn_cli_exit_code(err);
    goto out;
  }
  free(bytes);
  bytes = NULL;
  err = wn_detect_page(page, tpl, &config->detect, &result, &diag);
  if (err) {
    wn_cli_error("%s", wn_diag_message(&diag, err));
    rc = wn_cli_exit_code(err);
    goto out;
  }
  wn_store_stats stats;
  int counted = 0;
  if (tpl) {
    const int low = wn_detect_fallback_reason(result) == WN_FALLBACK_LOW_CONFIDENCE;
    counted = wn_cli_count(store, site, generation, 1, (uint32_t)low, config, &stats);
  }
  if (config->format == WN_FORMAT_HTML)
    err = wn_detect_render_html(page, result, &text, &diag);
  else
    err = wn_detect_render_text(page, result, &text);
  if (!err && config->format == WN_FORMAT_JSON)
    err = wn_detect_json(page, result, site, counted ? &stats : NULL, config, &text, &json,
                         &diag);
  if (err) {
    wn_cli_error("rendering the content: %s", wn_diag_message(&diag, err));
    rc = wn_cli_exit_code(err);
    goto out;
  }
  int written = json ? wn_cli_write(json, strlen(json)) | wn_cli_write("\n", 1)
                     : wn_cli_write(text.data, text.len);
  if (written != 0) {
    wn_cli_error("cannot write the output");
    rc = WN_EXIT_INTERNAL;
    goto out;
  }
  rc = WN_EXIT_OK;
out:
  free(json);
  free(bytes);
  wn_buf_free(&text);
  wn_detect_result_free(result);
  wn_dom_free(page);
  wn_template_free(tpl);
  return rc;
}

int wn_cli_detect(int argc, char **argv) {
  int rc = WN_EXIT_USAGE;
  const char *store_dir = NULL, *site_arg = NULL, *url = NULL;
  wn_cli_detect_config config = {
      .format = WN_FORMAT_TEXT,
      .detect = {.selector = WN_SELECT_SITE,
                 .min_confidence = WN_DETECT_DEFAULT_MIN_CONFIDENCE,
                 .fallback = WN_SINGLE_DANAG},
      .count = 1,
      .drift = {.min_pages = WN_STORE_DRIFT_MIN_PAGES, .max_low_share = WN_STORE_DRIFT_SHARE}};
  int jsonl = 0;
  wn_store *store = NULL;
  wn_diag diag = {{0}};
  char site[WN_STORE_MAX_SITE + 1];
  site[0] = '\0';

  opterr = 0;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, ":h", wn_detect_options_long, NULL)) != -1) {
    switch (c) {
    case WN_OPT_STORE:
      store_dir = optarg;
      break;
    case WN_OPT_SITE:
      site_arg = optarg;
      break;
    case WN_OPT_URL:
      url = optarg;
      break;
    case WN_OPT_FORMAT:
      if (strcmp(optarg, "text") == 0) {
        config.format = WN_FORMAT_TEXT;
      } else if (strcmp(optarg, "html") == 0) {
        config.format = WN_FORMAT_HTML;
      } else if (strcmp(optarg, "json") == 0) {
        config.format = WN_FORMAT_JSON;
      } else {
        rc = wn_cli_usage_error(wn_cli_usage_detect,
                                "--format is text, html or json, not '%.40s'", optarg);
        goto out;
      }
      break;
    case WN_OPT_SELECTOR:
      if (wn_detect_selector_parse(optarg, &config.detect.selector) != 0) {
        rc = wn_cli_usage_error(wn_cli_usage_detect,
                                "--selector is site, cues, region or paper, not '%.40s'",
                                optarg);
        goto out;
      }
      break;
    case WN_OPT_FALLBACK:
      if (wn_single_method_parse(optarg, &config.detect.fallback) != 0) {
        rc = wn_cli_usage_error(wn_cli_usage_detect, "--fallback is cnr or danag, not '%.40s'",
                                optarg);
        goto out;
      }
      break;
    case WN_OPT_MIN_CONFIDENCE:
      if (wn_cli_parse_share(optarg, &config.detect.min_confidence) != 0) {
        rc = wn_cli_usage_error(wn_cli_usage_detect,
                                "--min-confidence is a number from 0 to 1, not '%.40s'", optarg);
        goto out;
      }
      break;
    case WN_OPT_DRIFT_SHARE:
      if (wn_cli_parse_share(optarg, &config.drift.max_low_share) != 0) {
        rc = wn_cli_usage_error(wn_cli_usage_detect,
                                "--drift-share is a number from 0 to 1, not '%.40s'", optarg);
        goto out;
      }
      break;
    case WN_OPT_NO_COUNT:
      config.count = 0;
      break;
    case WN_OPT_JSONL:
      jsonl = 1;
      break;
    case 'h':
      wn_cli_usage_detect(stdout);
      rc = WN_EXIT_OK;
      goto out;
    case ':':
      rc = wn_cli_usage_error(wn_cli_usage_detect, "option '%.100s' needs an argument",
                              argv[optind - 1]);
      goto out;
    default:
      /* An unknown short option is in optopt; an unknown long one is the
       * argument getopt_long just passed. */
      if (optopt > 0 && optopt < 128)
        rc = wn_cli_usage_error(wn_cli_usage_detect, "unknown option '-%c'", optopt);
      else
        rc = wn_cli_usage_error(wn_cli_usage_detect, "unknown option '%.100s'", argv[optind - 1]);
      goto out;
    }
  }
  int n_inputs = argc - optind;
  const char *input = n_inputs > 0 ? argv[optind] : NULL;
  if (n_inputs > 1) {
    rc = wn_cli_usage_error(wn_cli_usage_detect, "detect takes one input, got %d", n_inputs);
    goto out;
  }
  if (jsonl) {
    if (site_arg || url) {
      rc = wn_cli_usage_error(wn_cli_usage_detect,
                              "--jsonl takes the site from each line, not from --site or --url");
      goto out;
    }
    if (config.format == WN_FORMAT_JSON) {
      rc = wn_cli_usage_error(wn_cli_usage_detect,
                              "--jsonl always writes JSON; its --format is text or html");
      goto out;
    }
  } else {
    if (site_arg && url) {
      rc = wn_cli_usage_error(wn_cli_usage_detect, "give --site SITE or --url URL, not both");
      goto out;
    }
    if (store_dir && !site_arg && !url) {
      rc = wn_cli_usage_error(wn_cli_usage_detect,
                              "detect with --store needs --site SITE or --url URL");
      goto out;
    }
    if (!input) {
      rc = wn_cli_usage_error(wn_cli_usage_detect, "detect needs a page: FILE, or - for stdin");
      goto out;
    }
    if (site_arg || url) {
      wn_err err = site_arg ? wn_cli_check_site(site_arg, &diag)
                            : wn_cli_site_from_url(url, site, sizeof site, &diag);
      if (err) {
        wn_cli_error("%s", wn_diag_message(&diag, err));
        rc = wn_cli_exit_code(err);
        goto out;
      }
      if (site_arg)
        memcpy(site, site_arg, strlen(site_arg) + 1); /* checked: <= WN_STORE_MAX_SITE */
    }
  }

  if (store_dir) {
    /* Counting needs a write transaction per page (one per site and stream
     * for --jsonl); LMDB serialises writers, readers never wait. */
    /* Read-only first: a mistyped --store must be an error, not a new
     * empty store that sends every page to the fallback. */
    wn_store_options store_opts = {.read_only = 1};
    wn_err err = wn_store_open(store_dir, &store_opts, &store, &diag);
    if (err) {
      wn_cli_error("%s", wn_diag_message(&diag, err));
      rc = err == WN_ENOMEM ? WN_EXIT_INTERNAL : WN_EXIT_STORE;
      goto out;
    }
    if (config.count) {
      wn_store *writable = NULL;
      wn_store_close(store);
      store = NULL;
      store_opts.read_only = 0;
      err = wn_store_open(store_dir, &store_opts, &writable, &diag);
      if (err) {
        /* Counting is advisory: detect without it rather than not at all. */
        wn_cli_error("warning: not counting detections: %s", wn_diag_message(&diag, err));
        wn_diag_clear(&diag);
        config.count = 0;
        store_opts.read_only = 1;
        err = wn_store_open(store_dir, &store_opts, &store, &diag);
        if (err) {
          wn_cli_error("%s", wn_diag_message(&diag, err));
          rc = err == WN_ENOMEM ? WN_EXIT_INTERNAL : WN_EXIT_STORE;
          goto out;
        }
      } else {
        store = writable;
      }
    }
  } else {
    config.count = 0;
  }
  if (jsonl)
    rc = wn_cli_detect_stream(store, input ? input : "-", &config);
  else
    rc = wn_detect_one(store, site[0] ? site : NULL, input, &config);
out:
  wn_store_close(store);
  return rc;
}
