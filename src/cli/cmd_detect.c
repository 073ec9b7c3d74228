/* cli/cmd_detect.c: `winnow detect`, one page (or a JSONL stream of pages,
 * or many files and directories) in, its main content out. */
#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>


void wn_cli_usage_detect(FILE *out) {
  fprintf(out,
          "usage: winnow detect [--store DIR] [--site SITE | --url URL] [options] FILE|-\n"
          "       winnow detect [--store DIR] [--no-robots] [options] http(s)://URL\n"
          "       winnow detect [--store DIR] [--site SITE | --url URL] [options]\n"
          "                     [--output-dir DIR] [--input-list LIST] [FILE|DIR]...\n"
          "       winnow detect [--store DIR] --jsonl [options] [FILE|-]\n"
          "       winnow detect [--store DIR] --warc [--warc-out OUT.warc.gz] [options]\n"
          "                     FILE.warc[.gz]...\n"
          "\n"
          "Extracts the main content of a page (FILE, - for stdin, or a URL fetched as\n"
          "winnow learn fetches: robots.txt unless --no-robots, its timeouts and caps;\n"
          "the site is the URL's) with the template\n"
          "learned for its site. Pages of a site without a template, pages that fit\n"
          "their template badly (match confidence below --min-confidence) and, without\n"
          "--store, every page are served by a single-page method instead; \"method\"\n"
          "and \"fallback\" in the JSON output say which and why. Each page detected with\n"
          "a template is counted in the store; a site whose recent pages fit badly is\n"
          "reported as drifting (a warning on stderr, \"drift\" in the JSON output).\n"
          "\n"
          "  --store DIR           the template store written by winnow learn\n"
          "  --site SITE           the page's site, as given to winnow learn\n"
          "  --url URL             the page's URL; the site is its host (a URL that\n"
          "                        names no site: a warning, and the single-page\n"
          "                        method; \"site_error\" in JSON says why)\n"
          "  --format FORMAT       text (default): the content, one line per block;\n"
          "                        html: the content's elements as HTML;\n"
          "                        json: {\"site\", \"site_error\" (when the URL names no\n"
          "                        site), \"method\", \"confidence\", \"fallback\",\n"
          "                        \"retried\" (when the single-page method chose again),\n"
          "                        \"page_type\" (article, forum, product, collection,\n"
          "                        listing, documentation or service),\n"
          "                        \"drift\", \"charset\", \"charset_source\", \"nodes\", \"text\"\n"
          "                        (and \"metadata\" with --metadata)};\n"
          "                        markdown: the content as Markdown, the page's metadata\n"
          "                        (title, author, date...) as YAML front matter first\n"
          "  --no-links            Markdown: link text without the link\n"
          "  --no-images           Markdown: leave images out\n"
          "  --no-tables           leave data tables out (every format)\n"
          "  --metadata            JSON and JSONL also carry \"metadata\" (title, author,\n"
          "                        date...; about 1%% more time than text alone)\n"
          "  --no-metadata         no front matter in Markdown\n"
          "  --selector SELECTOR   overrides the selector the site was learned with\n"
          "                        (winnow learn --selector): cues: template filter,\n"
          "                        then text and link density; region: the largest\n"
          "                        page-specific region, whole; places: the learned\n"
          "                        content place; paper: the paper's\n"
          "                        Algorithms 2 to 5\n"
          "  --fallback METHOD     single-page method: danag (default), cnr or readability\n"
          "  --min-confidence X    below this match confidence (0 to 1) a page is served\n"
          "                        by the fallback (default %.2f; 0: never)\n"
          "  --drift-share X       a site drifts when at least this share of its recent\n"
          "                        pages fall below --min-confidence (default %.2f)\n"
          "  --no-count            do not count detections (opens the store read-only,\n"
          "                        unless --learn writes it)\n"
          "  --map-size MIB        the store's largest size in MiB (default 1024)\n",
          WN_DETECT_DEFAULT_MIN_CONFIDENCE, 0.25);
  /* Several calls: C11 promises string literals of 4095 bytes only. */
  fprintf(out,
          "  --jsonl               read a stream (FILE, default stdin) of JSON objects, one\n"
          "                        per line: {\"id\": any, \"site\" or \"url\", \"html\" (the\n"
          "                        page) or \"path\" (a file)}; \"site\" wins over \"url\"\n"
          "                        when both are given; a line with neither is served\n"
          "                        by the single-page method, and so is one whose\n"
          "                        \"url\" names no site (not http(s); a host no site\n"
          "                        name spells), with \"site_error\" saying why (a\n"
          "                        space in the path hides nothing; an IDN host's\n"
          "                        site is its punycode form); \"charset\" or an HTTP\n"
          "                        \"content_type\" names the charset of a \"path\" file\n"
          "                        (an \"html\" string is Unicode: read as UTF-8).\n"
          "                        Writes one line per input line,\n"
          "                        in order: {\"id\"} and the fields of --format json\n"
          "                        (\"html\" or \"markdown\" too with --format html or\n"
          "                        markdown),\n"
          "                        or {\"id\", \"error\"} for a line that cannot be handled.\n"
          "                        Templates are cached per site (re-read after a\n"
          "                        minute); counts are written every 1000 pages or 5\n"
          "                        seconds and at the end.\n");
  fprintf(out,
          "  --threads N           pages detected at once, for --jsonl and many files\n"
          "                        (default: the online cores, %u here; 1: one page at\n"
          "                        a time, each answered before the next is read).\n"
          "                        Output stays in input order; at most 4 N pages are\n"
          "                        in flight (the reader waits for a slow consumer).\n"
          "  --timing              --jsonl, --warc, many files: at the end, where the\n"
          "                        workers' time went (input, decode, parse,\n"
          "                        detection, rendering, output), on stderr\n"
          "\n"
          "Learning from the input (--jsonl, --warc, many files; needs --store, made if\n"
          "missing): a site with no template is learned from its own pages in the input\n"
          "(a sample of --learn-pages pages sharing a layout, as a crawl samples one),\n"
          "stored, and all its pages are detected with it, earlier ones included. The\n"
          "pages of a site with too few of them are kept in the store (pending, at most\n"
          "--learn-pages per site, compressed): the next run adds to them.\n"
          "  --learn               learn the input's sites that have no template\n"
          "  --learn-pages N       pages a site is learned from (default 5; 3 at least\n"
          "                        when the input ends first)\n"
          "  --no-pending          keep no pages in the store: learn from this input only\n"
          "  --shard I/N           only the pages of the sites in shard I of N (0 to N-1;\n"
          "                        a hash of the site name; a page naming no site is\n"
          "                        shard 0's): N processes over the same input, one\n"
          "                        store each, each learn and detect their own sites\n"
          "                        (merge the stores: winnow-dump merge)\n"
          "  --learn-memory MIB    input read ahead at most (default 512): pages of a\n"
          "                        site whose sample comes later than this are detected\n"
          "                        before it is learned\n"
          "\n"
          "Many pages: several FILEs, a DIR (walked recursively: its *.html, *.htm and\n"
          "*.xhtml files, or every file with --all, in name order), or --input-list:\n"
          "  --input-list LIST     also the paths in LIST, one a line (- for stdin)\n"
          "  --all                 take every file of a directory, not only HTML names\n"
          "  --output-dir DIR      one file per page: DIR/its path (relative to the\n"
          "                        directory it was found in, or as given if relative\n"
          "                        without \"..\", else its name) with .html/.htm/.xhtml\n"
          "                        replaced by .txt, .html or .json (--format);\n"
          "                        directories are created, existing files overwritten.\n"
          "                        Without it: one JSON line per page on stdout, as\n"
          "                        --jsonl writes them, with the path as \"id\".\n"
          "  The pages' site is --site or --url's; with neither, the single-page method.\n"
          "  A page that fails is reported on stderr with its path and the run goes on;\n"
          "  the exit code is then that of the most severe failure: 1 a page could not\n"
          "  be read or detected, 3 the store failed, 4 an output could not be written.\n"
          "\n"
          "\n"
          "Web archives: --warc reads WARC 1.0/1.1 files (plain, gzip per record or\n"
          "whole) and detects the HTML pages of their response records (HTTP status\n"
          "2xx; chunked and gzip/deflate payloads; the Content-Type charset), the\n"
          "site from WARC-Target-URI. Output: JSON lines as --jsonl writes them, \"id\"\n"
          "{\"warc_record_id\", \"url\"}; or with --warc-out FILE a WARC of conversion\n"
          "records of the main content (text, or --format markdown), as Common Crawl's\n"
          "WET files (WARC-Refers-To the source record, WARC-Block-Digest; .gz: gzip\n"
          "per record). Damaged records are reported on stderr and skipped; a summary\n"
          "line ends the run; exit 1 if a file, record or page failed.\n"
          "\n"
          "  -h, --help            show this help\n",
          wn_cli_batch_cores());
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
  WN_OPT_NO_COUNT,
  WN_OPT_TIMING,
  WN_OPT_MAP_SIZE,
  WN_OPT_NO_LINKS,
  WN_OPT_NO_IMAGES,
  WN_OPT_NO_TABLES,
  WN_OPT_NO_METADATA,
  WN_OPT_METADATA,
  WN_OPT_THREADS,
  WN_OPT_OUTPUT_DIR,
  WN_OPT_INPUT_LIST,
  WN_OPT_ALL,
  WN_OPT_WARC,
  WN_OPT_WARC_OUT,
  WN_OPT_LEARN,
  WN_OPT_LEARN_MEMORY,
  WN_OPT_LEARN_PAGES,
  WN_OPT_NO_PENDING,
  WN_OPT_SHARD,
  WN_OPT_NO_ROBOTS
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
    {"timing", no_argument, NULL, WN_OPT_TIMING},
    {"map-size", required_argument, NULL, WN_OPT_MAP_SIZE},
    {"no-links", no_argument, NULL, WN_OPT_NO_LINKS},
    {"no-images", no_argument, NULL, WN_OPT_NO_IMAGES},
    {"no-tables", no_argument, NULL, WN_OPT_NO_TABLES},
    {"no-metadata", no_argument, NULL, WN_OPT_NO_METADATA},
    {"metadata", no_argument, NULL, WN_OPT_METADATA},
    {"threads", required_argument, NULL, WN_OPT_THREADS},
    {"output-dir", required_argument, NULL, WN_OPT_OUTPUT_DIR},
    {"input-list", required_argument, NULL, WN_OPT_INPUT_LIST},
    {"all", no_argument, NULL, WN_OPT_ALL},
    {"warc", no_argument, NULL, WN_OPT_WARC},
    {"warc-out", required_argument, NULL, WN_OPT_WARC_OUT},
    {"learn", no_argument, NULL, WN_OPT_LEARN},
    {"learn-memory", required_argument, NULL, WN_OPT_LEARN_MEMORY},
    {"learn-pages", required_argument, NULL, WN_OPT_LEARN_PAGES},
    {"no-pending", no_argument, NULL, WN_OPT_NO_PENDING},
    {"shard", required_argument, NULL, WN_OPT_SHARD},
    {"no-robots", no_argument, NULL, WN_OPT_NO_ROBOTS},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

/* The drift warning, once per site and template (the detector calls it
 * once). */
static void wn_detect_drift_warning(const wn_drift_event *ev, void *ctx) {
  (void)ctx;
  wn_cli_error("warning: site %s is drifting: %u of its last %u pages fit its template "
               "badly (confidence below %.2f); relearn it with winnow learn",
               ev->site, (unsigned)ev->counts.recent_low, (unsigned)ev->counts.recent_pages,
               ev->min_confidence);
}

/* A damaged template record: its site's pages are read by the
 * single-page method ("fallback": "damaged template"); said once per
 * reading of the record. */
static void wn_detect_damage_warning(const char *site, const char *message, void *ctx) {
  (void)ctx;
  (void)site;
  wn_cli_error("warning: %s; the site's pages are read by the single-page method "
               "(winnow-dump verify shows the damage; relearn the site)",
               message);
}

/* One page: read, detect, print. */
/* 1 if input names a page to fetch: an http(s) URL that is not a file
 * here. */
static int wn_detect_is_url(const char *input) {
  struct stat st;
  return (strncmp(input, "http://", 7) == 0 || strncmp(input, "https://", 8) == 0) &&
         stat(input, &st) != 0;
}

/* One page, a file or a URL (fetched as the crawler fetches: robots.txt
 * unless obey_robots is 0): read, detect, print. */
static int wn_detect_one(wn_detector *d, const char *site, const char *url, const char *input,
                         int obey_robots, wn_cli_format format, const wn_cli_output *output) {
  int rc = WN_EXIT_INPUT;
  wn_page_result *r = NULL;
  char *bytes = NULL, *json = NULL;
  size_t len = 0;
  wn_fetched *fetched = NULL;
  wn_diag diag = {{0}};
  wn_page_input in = {.site = site, .url = url};
  if (wn_detect_is_url(input)) {
    wn_crawl_options co;
    wn_crawl_options_init(&co);
    co.obey_robots = obey_robots;
    wn_err err = wn_page_fetch(input, &co, &fetched, &diag);
    if (err)
      return wn_cli_fail(err, &diag);
    in.bytes = fetched->bytes;
    in.len = fetched->len;
    in.charset = fetched->charset;
    /* The site and the links' base: the page's own URL, after redirects,
     * unless --site or --url say otherwise. */
    if (!url)
      in.url = fetched->url;
  } else {
    wn_err err = wn_file_read(input, WN_PAGE_MAX_BYTES, &bytes, &len, &diag);
    if (err)
      return wn_cli_fail(err, &diag);
    in.bytes = bytes;
    in.len = len;
  }
  unsigned want = (format == WN_FORMAT_HTML       ? WN_WANT_HTML
                   : format == WN_FORMAT_MARKDOWN ? WN_WANT_MARKDOWN
                                                  : WN_WANT_TEXT) |
                  (format == WN_FORMAT_JSON ? WN_WANT_NODES : 0);
  /* Metadata where it is shown: JSON (asked for), Markdown's front matter. */
  want |= wn_cli_want_extra(output, format, format == WN_FORMAT_JSON);
  wn_err err = wn_detector_detect(d, &in, want, &r, &diag);
  if (err) {
    /* What is wrong with the page names it; a template or store problem
     * names the site itself. */
    int page_err = err == WN_ETOOBIG || err == WN_ETOOMANY || err == WN_ETOODEEP ||
                   err == WN_EPARSE || err == WN_ECHARSET || err == WN_ENOTHTML;
    if (page_err)
      wn_cli_error("%s: %s", strcmp(input, "-") == 0 ? "stdin" : input,
                   wn_diag_message(&diag, err));
    else
      wn_cli_error("%s", wn_diag_message(&diag, err));
    rc = wn_exit_code(err);
    goto out;
  }
  if (format == WN_FORMAT_JSON) {
    err = wn_page_result_json(r, NULL, WN_JSON_PRETTY, &json, &diag);
    if (err) {
      rc = wn_cli_fail(err, &diag);
      goto out;
    }
  }
  size_t out_len = 0;
  const char *out = format == WN_FORMAT_HTML       ? wn_page_result_html(r, &out_len)
                    : format == WN_FORMAT_MARKDOWN ? wn_page_result_markdown(r, &out_len)
                                                   : wn_page_result_text(r, &out_len);
  int written = json ? wn_cli_write(json, strlen(json)) | wn_cli_write("\n", 1)
                     : wn_cli_write(out, out_len);
  if (written != 0) {
    wn_cli_error("cannot write the output");
    rc = WN_EXIT_INTERNAL;
    goto out;
  }
  /* An empty answer is never silent: JSON says why in "empty", and every
   * format says it here. */
  if (wn_page_result_empty(r))
    wn_cli_error("warning: %s: no content: %s", strcmp(input, "-") == 0 ? "stdin" : input,
                 wn_page_result_empty(r));
  rc = WN_EXIT_OK;
out:
  free(json);
  free(bytes);
  wn_fetched_free(fetched);
  wn_page_result_free(r);
  return rc;
}

int wn_cli_detect(int argc, char **argv) {
  int rc = WN_EXIT_USAGE;
  const char *store_dir = NULL, *site = NULL, *url = NULL;
  wn_cli_format format = WN_FORMAT_TEXT;
  wn_cli_output output = WN_CLI_OUTPUT_DEFAULT;
  wn_detector_options dopts;
  wn_detector_options_init(&dopts);
  dopts.on_drift = wn_detect_drift_warning;
  dopts.on_damage = wn_detect_damage_warning;
  size_t map_size = 0;
  int jsonl = 0, all = 0, warc = 0, learn = 0, obey_robots = 1;
  uint32_t learn_memory_mib = 512, learn_pages = 0;
  int no_pending = 0;
  uint32_t shard = 0, shards = 0;
  int timing = 0;
  wn_collector *collector = NULL;
  wn_batch_learn blearn;
  memset(&blearn, 0, sizeof blearn);
  const char *warc_out = NULL;
  uint32_t threads = wn_cli_batch_cores();
  const char *output_dir = NULL, *input_list = NULL;
  wn_store *store = NULL;
  wn_detector *d = NULL;
  wn_diag diag = {{0}};

  opterr = 0;
  optind = 1;
  int c;
  while ((c = getopt_long(argc, argv, ":h", wn_detect_options_long, NULL)) != -1) {
    switch (c) {
    case WN_OPT_STORE:
      store_dir = optarg;
      break;
    case WN_OPT_SITE:
      site = optarg;
      break;
    case WN_OPT_URL:
      url = optarg;
      break;
    case WN_OPT_FORMAT:
      if (strcmp(optarg, "text") == 0)
        format = WN_FORMAT_TEXT;
      else if (strcmp(optarg, "html") == 0)
        format = WN_FORMAT_HTML;
      else if (strcmp(optarg, "json") == 0)
        format = WN_FORMAT_JSON;
      else if (strcmp(optarg, "markdown") == 0 || strcmp(optarg, "md") == 0)
        format = WN_FORMAT_MARKDOWN;
      else
        return wn_cli_usage_error("detect ",
                                  "--format is text, html, markdown or json, not '%.40s'", optarg);
      break;
    case WN_OPT_SELECTOR:
      if (wn_detect_selector_parse(optarg, &dopts.detect.selector) != 0)
        return wn_cli_usage_error("detect ",
                                  "--selector is site, cues, places, region or paper, not '%.40s'",
                                  optarg);
      break;
    case WN_OPT_FALLBACK:
      if (wn_single_method_parse(optarg, &dopts.detect.fallback) != 0)
        return wn_cli_usage_error("detect ", "--fallback is danag, cnr or readability, not '%.40s'", optarg);
      break;
    case WN_OPT_MIN_CONFIDENCE:
      if (wn_cli_parse_share(optarg, &dopts.detect.min_confidence) != 0)
        return wn_cli_usage_error("detect ",
                                  "--min-confidence is a number from 0 to 1, not '%.40s'",
                                  optarg);
      break;
    case WN_OPT_DRIFT_SHARE:
      if (wn_cli_parse_share(optarg, &dopts.drift.max_low_share) != 0)
        return wn_cli_usage_error("detect ", "--drift-share is a number from 0 to 1, not '%.40s'",
                                  optarg);
      break;
    case WN_OPT_NO_COUNT:
      dopts.count = 0;
      break;
    case WN_OPT_TIMING:
      timing = 1;
      break;
    case WN_OPT_MAP_SIZE:
      if (wn_cli_parse_map_size(optarg, &map_size) != 0)
        return wn_cli_usage_error("detect ", "--map-size is MiB from 1 to 1048576, not '%.40s'",
                                  optarg);
      break;
    case WN_OPT_JSONL:
      jsonl = 1;
      break;
    case WN_OPT_NO_LINKS:
      output.extra_want |= WN_RENDER_NO_LINKS;
      break;
    case WN_OPT_NO_IMAGES:
      output.extra_want |= WN_RENDER_NO_IMAGES;
      break;
    case WN_OPT_NO_TABLES:
      output.extra_want |= WN_RENDER_NO_TABLES;
      break;
    case WN_OPT_NO_METADATA:
      output.metadata = 0;
      break;
    case WN_OPT_METADATA:
      output.metadata = 1;
      break;
    case WN_OPT_THREADS:
      if (wn_parse_u32(optarg, 1, WN_BATCH_MAX_THREADS, &threads) != 0)
        return wn_cli_usage_error("detect ", "--threads is a number from 1 to %u, not '%.40s'",
                                  WN_BATCH_MAX_THREADS, optarg);
      break;
    case WN_OPT_OUTPUT_DIR:
      output_dir = optarg;
      break;
    case WN_OPT_INPUT_LIST:
      input_list = optarg;
      break;
    case WN_OPT_WARC:
      warc = 1;
      break;
    case WN_OPT_WARC_OUT:
      warc_out = optarg;
      break;
    case WN_OPT_LEARN:
      learn = 1;
      break;
    case WN_OPT_NO_ROBOTS:
      obey_robots = 0;
      break;
    case WN_OPT_NO_PENDING:
      no_pending = 1;
      break;
    case WN_OPT_SHARD: {
      char head[16], tail[16];
      const char *slash = strchr(optarg, '/');
      size_t hl = slash ? (size_t)(slash - optarg) : 0;
      if (!slash || hl == 0 || hl >= sizeof head || strlen(slash + 1) >= sizeof tail)
        return wn_cli_usage_error("detect ", "--shard is I/N (such as 0/4), not '%.40s'", optarg);
      memcpy(head, optarg, hl);
      head[hl] = '\0';
      snprintf(tail, sizeof tail, "%s", slash + 1);
      if (wn_parse_u32(tail, 1, 65536, &shards) != 0 ||
          wn_parse_u32(head, 0, shards - 1, &shard) != 0)
        return wn_cli_usage_error("detect ",
                                  "--shard is I/N with N from 1 to 65536 and I below N, not "
                                  "'%.40s'",
                                  optarg);
      break;
    }
    case WN_OPT_LEARN_MEMORY:
      if (wn_parse_u32(optarg, 1, 1024u * 1024u, &learn_memory_mib) != 0)
        return wn_cli_usage_error("detect ", "--learn-memory is MiB from 1 to 1048576, not '%.40s'",
                                  optarg);
      break;
    case WN_OPT_LEARN_PAGES:
      if (wn_parse_u32(optarg, 2, WN_LEARN_MAX_PAGES, &learn_pages) != 0)
        return wn_cli_usage_error("detect ", "--learn-pages is a number from 2 to %u, not '%.40s'",
                                  WN_LEARN_MAX_PAGES, optarg);
      break;
    case WN_OPT_ALL:
      all = 1;
      break;
    case 'h':
      wn_cli_usage_detect(stdout);
      return WN_EXIT_OK;
    case ':':
      return wn_cli_usage_error("detect ", "option '%.100s' needs an argument",
                                argv[optind - 1]);
    default:
      if (optopt > 0 && optopt < 128)
        return wn_cli_usage_error("detect ", "unknown option '-%c'", optopt);
      return wn_cli_usage_error("detect ", "unknown option '%.100s'", argv[optind - 1]);
    }
  }
  int n_inputs = argc - optind;
  const char *input = n_inputs > 0 ? argv[optind] : NULL;
  /* Many pages: more than one input, a directory, a list or an output
   * directory. One file alone keeps the single-page form (stdout). */
  struct stat input_st;
  int many = !jsonl && !warc && (n_inputs > 1 || input_list || output_dir ||
                        (input && strcmp(input, "-") != 0 && stat(input, &input_st) == 0 &&
                         S_ISDIR(input_st.st_mode)));
  if (warc_out && !warc)
    return wn_cli_usage_error("detect ", "--warc-out is for --warc input");
  if ((learn_pages || learn_memory_mib != 512 || no_pending) && !learn)
    return wn_cli_usage_error("detect ",
                              "--learn-pages, --learn-memory and --no-pending are for --learn");
  if (learn && !(warc || jsonl || many))
    return wn_cli_usage_error("detect ", "--learn learns from many pages: --jsonl, --warc or "
                                         "many files");
  if (learn && !store_dir)
    return wn_cli_usage_error("detect ", "--learn needs --store DIR to keep the templates in");
  if (warc) {
    if (jsonl || output_dir || input_list || all)
      return wn_cli_usage_error("detect ", "--warc reads WARC files: not with --jsonl, "
                                           "--output-dir, --input-list or --all");
    if (site || url)
      return wn_cli_usage_error("detect ", "--warc takes each page's site from its "
                                           "WARC-Target-URI, not from --site or --url");
    if (n_inputs < 1)
      return wn_cli_usage_error("detect ", "--warc needs FILE.warc[.gz]... (- for stdin)");
    if (warc_out && format != WN_FORMAT_TEXT && format != WN_FORMAT_MARKDOWN)
      return wn_cli_usage_error("detect ", "--warc-out holds text or markdown, not %s",
                                format == WN_FORMAT_HTML ? "html" : "json");
    if (!warc_out && format == WN_FORMAT_JSON)
      return wn_cli_usage_error("detect ", "--warc writes JSON lines; its --format is text, "
                                           "html or markdown");
  } else if (jsonl) {
    if (n_inputs > 1)
      return wn_cli_usage_error("detect ", "detect takes one input, got %d", n_inputs);
    if (output_dir || input_list)
      return wn_cli_usage_error("detect ", "--jsonl writes to stdout and reads one stream; "
                                           "--output-dir and --input-list are for files");
    if (site || url)
      return wn_cli_usage_error("detect ",
                                "--jsonl takes the site from each line, not from --site or --url");
    if (format == WN_FORMAT_JSON)
      return wn_cli_usage_error("detect ", "--jsonl always writes JSON; its --format is text, "
                                           "html or markdown");
  } else {
    if (site && url)
      return wn_cli_usage_error("detect ", "give --site SITE or --url URL, not both");
    if (!many && store_dir && !site && !url && !(input && wn_detect_is_url(input)))
      return wn_cli_usage_error("detect ", "detect with --store needs --site SITE or --url URL "
                                           "(or a page given by its URL)");
    if (!obey_robots && !(input && !many && wn_detect_is_url(input)))
      return wn_cli_usage_error("detect ", "--no-robots is for a page given by its URL");
    if (!input && !input_list)
      return wn_cli_usage_error("detect ", "detect needs a page: FILE, or - for stdin");
    for (int i = optind; many && i < argc; i++)
      if (strcmp(argv[i], "-") == 0)
        return wn_cli_usage_error("detect ", "- (stdin) is a page only as the one input; "
                                             "--input-list - reads paths from stdin");
    if (all && !many)
      return wn_cli_usage_error("detect ", "--all is for directories");
    /* A bad --site is a usage error (exit 2, as for learn and sites), found
     * before any work. A URL
     * that names no site still has its pages read, as in a --jsonl line
     * (without a site: the single-page method); said once here, and in
     * the JSON output's "site_error". */
    char url_site[WN_SITE_MAX + 1];
    wn_err err = site ? wn_site_check(site, &diag)
                      : url ? wn_site_from_url(url, url_site, sizeof url_site, &diag) : WN_OK;
    if (err && site && err != WN_ENOMEM)
      return wn_cli_usage_error("detect ", "%s", wn_diag_message(&diag, err));
    if (err == WN_ENOMEM)
      return wn_cli_fail(err, &diag);
    if (err) {
      wn_cli_error("warning: --url names no site: %s; the single-page method reads %s",
                   wn_diag_message(&diag, err), many ? "the pages" : "the page");
      wn_diag_clear(&diag);
    }
    /* One page: its counts are written at once, so the JSON shows them. */
    if (!many)
      dopts.flush_pages = 1;
  }

  if (store_dir && learn) {
    /* Learning writes the store, and makes it if it is not there yet. */
    if ((rc = wn_cli_open_store(store_dir, 0, map_size, &store)) != WN_EXIT_OK)
      goto out;
  } else if (store_dir) {
    /* Read-only first: a mistyped --store must be an error, not a new
     * empty store that sends every page to the fallback. Counting needs
     * write access; without it, detect without counting rather than not
     * at all. */
    if ((rc = wn_cli_open_store(store_dir, 1, map_size, &store)) != WN_EXIT_OK)
      goto out;
    if (dopts.count) {
      wn_store *writable = NULL;
      wn_store_options so;
      wn_store_options_init(&so);
      if (map_size)
        so.map_size = map_size;
      wn_err err = wn_store_open(store_dir, &so, &writable, &diag);
      if (err) {
        wn_cli_error("warning: not counting detections: %s", wn_diag_message(&diag, err));
        wn_diag_clear(&diag);
        dopts.count = 0;
      } else {
        wn_store_close(store);
        store = writable;
      }
    }
  }
  if (shards > 1 && !warc && !jsonl && !many) {
    rc = wn_cli_usage_error("detect ", "--shard is for --jsonl, --warc and many files");
    goto out;
  }
  if (timing && !warc && !jsonl && !many) {
    rc = wn_cli_usage_error("detect ", "--timing is for --jsonl, --warc and many files");
    goto out;
  }
  /* Many pages: the batch pipeline makes a detector per thread. */
  wn_batch_counts counts;
  memset(&counts, 0, sizeof counts);
  wn_batch_times times;
  memset(&times, 0, sizeof times);
  wn_batch_options bopts = {.threads = threads, .store = store, .detector = &dopts,
                            .counts = &counts, .times = timing ? &times : NULL,
                            .output = &output, .shard = shard, .shards = shards};
  char summary[400];
  if (learn) {
    wn_collect_options co;
    wn_collect_options_init(&co);
    if (learn_pages) {
      co.sample_pages = learn_pages;
      if (co.min_pages > learn_pages)
        co.min_pages = learn_pages;
    }
    blearn.hold_bytes = (size_t)learn_memory_mib * 1024 * 1024;
    /* The samples are held beside the chunk: a quarter of its bound. */
    co.max_bytes = blearn.hold_bytes / 4 ? blearn.hold_bytes / 4 : 1;
    co.keep_parsed = 1;
    co.keep_pending = !no_pending;
    wn_err err = wn_collector_create(store, &co, &collector, &diag);
    if (err) {
      rc = wn_cli_fail(err, &diag);
      goto out;
    }
    blearn.collector = collector;
    blearn.store = store;
    bopts.learn = &blearn;
    /* The sample pages are detected from the trees learning parsed. */
    dopts.collector = collector;
  }
  if (warc) {
    rc = wn_cli_detect_warc(&bopts, argv + optind, (size_t)n_inputs, warc_out, format);
    goto timed;
  }
  if (jsonl) {
    rc = wn_cli_detect_stream(&bopts, input ? input : "-", format);
    wn_cli_batch_counts_text(&counts, "line(s)", summary, sizeof summary);
    wn_cli_error("%s", summary);
    goto timed;
  }
  if (many) {
    wn_files_options fopts = {.inputs = argv + optind,
                              .n_inputs = (size_t)n_inputs,
                              .input_list = input_list,
                              .output_dir = output_dir,
                              .all = all,
                              .site = site,
                              .url = url,
                              .format = format};
    rc = wn_cli_detect_files(&bopts, &fopts);
    wn_cli_batch_counts_text(&counts, "page(s)", summary, sizeof summary);
    wn_cli_error("%s", summary);
    goto timed;
  }
  wn_err err = wn_detector_create(store, &dopts, &d, &diag);
  if (err) {
    rc = wn_cli_fail(err, &diag);
    goto out;
  }
  rc = wn_detect_one(d, site, url, input, obey_robots, format, &output);
  goto out;
timed:
  if (timing) {
    wn_cli_batch_times_text(&times, summary, sizeof summary);
    wn_cli_error("%s", summary);
  }
out:
  if (collector) {
    wn_cli_batch_learn_report(&blearn);
    wn_cli_batch_learn_free(&blearn);
    wn_collector_destroy(collector);
  }
  wn_detector_destroy(d);
  wn_store_close(store);
  return rc;
}
