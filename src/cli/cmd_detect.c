/* cli/cmd_detect.c: `winnow detect`, one page (or a JSONL stream of pages)
 * in, its main content out. */
#include "cli/cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "dom/dom.h"

void wn_cli_usage_detect(FILE *out) {
  fputs("usage: winnow detect --store DIR (--site SITE | --url URL)\n"
        "                     [--format text|html|json] [--selector cues|paper] FILE|-\n"
        "       winnow detect --store DIR --jsonl [--format text|html]\n"
        "                     [--selector cues|paper] [FILE|-]\n"
        "\n"
        "Extracts the main content of a page (FILE, or - for stdin) with the template\n"
        "learned for its site. The store is opened read-only.\n"
        "\n"
        "  --store DIR          the template store written by winnow learn\n"
        "  --site SITE          the page's site, as given to winnow learn\n"
        "  --url URL            the page's URL; the site is its host\n"
        "  --format FORMAT      text (default): the content, one line per block;\n"
        "                       html: the content's elements as HTML;\n"
        "                       json: {\"site\", \"method\", \"confidence\", \"charset\",\n"
        "                       \"charset_source\", \"nodes\", \"text\"}\n"
        "  --selector SELECTOR  cues (default): template filter, then text and link\n"
        "                       density; paper: the paper's Algorithms 2 to 5\n"
        "  --jsonl              read a stream (FILE, default stdin) of JSON objects, one\n"
        "                       per line: {\"id\": any, \"site\" or \"url\", \"html\" (the\n"
        "                       page) or \"path\" (a file)}; \"site\" wins over \"url\"\n"
        "                       when both are given. Writes one line per input line,\n"
        "                       in order: {\"id\", \"site\", \"method\", \"confidence\",\n"
        "                       \"text\"} (and \"html\" with --format html), or\n"
        "                       {\"id\", \"error\"} for a line that cannot be handled.\n"
        "                       Templates are read once per site and kept for the\n"
        "                       rest of the stream.\n"
        "  -h, --help           show this help\n",
        out);
}

enum { WN_OPT_STORE = 256, WN_OPT_SITE, WN_OPT_URL, WN_OPT_FORMAT, WN_OPT_SELECTOR, WN_OPT_JSONL };

static const struct option wn_detect_options_long[] = {
    {"store", required_argument, NULL, WN_OPT_STORE},
    {"site", required_argument, NULL, WN_OPT_SITE},
    {"url", required_argument, NULL, WN_OPT_URL},
    {"format", required_argument, NULL, WN_OPT_FORMAT},
    {"selector", required_argument, NULL, WN_OPT_SELECTOR},
    {"jsonl", no_argument, NULL, WN_OPT_JSONL},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

/* The single-page JSON object: site, method, confidence, charset,
 * charset_source, nodes, text, in that order. */
static wn_err wn_detect_json(const wn_dom_page *page, const wn_detect_result *result,
                             const char *site, const wn_buf *text, char **out, wn_diag *diag) {
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
  json_t *site_value = json_string(site);
  if (!site_value) {
    err = wn_diag_set(diag, WN_EINVAL, "site name is not valid UTF-8");
    goto out;
  }
  if (json_object_set_new(obj, "site", site_value) != 0 ||
      json_object_set_new(obj, "method", json_string(wn_detect_method(result))) != 0 ||
      json_object_set_new(obj, "confidence", json_real(wn_detect_confidence(result))) != 0 ||
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

/* One page: read, parse, detect, render. */
static int wn_detect_one(wn_store *store, const char *site, const char *input,
                         wn_cli_format format, wn_detect_selector selector) {
  int rc = WN_EXIT_INPUT;
  wn_template *tpl = NULL;
  wn_dom_page *page = NULL;
  wn_detect_result *result = NULL;
  char *bytes = NULL;
  char *json = NULL;
  size_t len = 0;
  wn_diag diag = {{0}};
  wn_buf text;
  wn_buf_init(&text, WN_CLI_MAX_OUTPUT_BYTES);

  wn_err err = wn_cli_load_template(store, site, &tpl, &diag);
  if (err) {
    wn_cli_error("%s", wn_diag_message(&diag, err));
    rc = wn_cli_exit_code(err);
    goto out;
  }
  err = wn_file_read(input, WN_DOM_DEFAULT_MAX_BYTES, &bytes, &len, &diag);
  if (err) {
    wn_cli_error("%s", wn_diag_message(&diag, err));
    rc = wn_cli_exit_code(err);
    goto out;
  }
  wn_dom_options parse_opts = {.keep_xml = format == WN_FORMAT_HTML};
  err = wn_dom_parse(bytes, len, &parse_opts, &page, &diag);
  if (err) {
    wn_cli_error("%s: %s", strcmp(input, "-") == 0 ? "stdin" : input,
                 wn_diag_message(&diag, err));
    rc = wn_cli_exit_code(err);
    goto out;
  }
  free(bytes);
  bytes = NULL;
  wn_detect_options detect_opts = {.selector = selector};
  err = wn_detect_run(page, tpl, &detect_opts, &result, &diag);
  if (err) {
    wn_cli_error("%s", wn_diag_message(&diag, err));
    rc = wn_cli_exit_code(err);
    goto out;
  }
  if (format == WN_FORMAT_HTML)
    err = wn_detect_render_html(page, result, &text, &diag);
  else
    err = wn_detect_render_text(page, result, &text);
  if (!err && format == WN_FORMAT_JSON)
    err = wn_detect_json(page, result, site, &text, &json, &diag);
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
  wn_cli_format format = WN_FORMAT_TEXT;
  wn_detect_selector selector = WN_SELECT_CUES;
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
        format = WN_FORMAT_TEXT;
      } else if (strcmp(optarg, "html") == 0) {
        format = WN_FORMAT_HTML;
      } else if (strcmp(optarg, "json") == 0) {
        format = WN_FORMAT_JSON;
      } else {
        rc = wn_cli_usage_error(wn_cli_usage_detect,
                                "--format is text, html or json, not '%.40s'", optarg);
        goto out;
      }
      break;
    case WN_OPT_SELECTOR:
      if (strcmp(optarg, "cues") == 0) {
        selector = WN_SELECT_CUES;
      } else if (strcmp(optarg, "paper") == 0) {
        selector = WN_SELECT_PAPER;
      } else {
        rc = wn_cli_usage_error(wn_cli_usage_detect,
                                "--selector is cues or paper, not '%.40s'", optarg);
        goto out;
      }
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
  if (!store_dir) {
    rc = wn_cli_usage_error(wn_cli_usage_detect, "detect needs --store DIR");
    goto out;
  }
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
    if (format == WN_FORMAT_JSON) {
      rc = wn_cli_usage_error(wn_cli_usage_detect,
                              "--jsonl always writes JSON; its --format is text or html");
      goto out;
    }
  } else {
    if (!site_arg == !url) {
      rc = wn_cli_usage_error(wn_cli_usage_detect, "detect needs one of --site SITE or --url URL");
      goto out;
    }
    if (!input) {
      rc = wn_cli_usage_error(wn_cli_usage_detect, "detect needs a page: FILE, or - for stdin");
      goto out;
    }
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

  /* Read-only: any number of detectors may run while learn writes. */
  wn_store_options store_opts = {.read_only = 1};
  wn_err err = wn_store_open(store_dir, &store_opts, &store, &diag);
  if (err) {
    wn_cli_error("%s", wn_diag_message(&diag, err));
    rc = err == WN_ENOMEM ? WN_EXIT_INTERNAL : WN_EXIT_STORE;
    goto out;
  }
  if (jsonl)
    rc = wn_cli_detect_stream(store, input ? input : "-", format, selector);
  else
    rc = wn_detect_one(store, site, input, format, selector);
out:
  wn_store_close(store);
  return rc;
}
