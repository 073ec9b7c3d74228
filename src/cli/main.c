/*
 * winnow: learn a website's template from a few of its pages, then extract
 * the main content of the site's other pages.
 *
 * Usage
 *
 *   winnow learn --store DIR --site SITE [--min-count N] KEY.html PAGE.html...
 *   winnow learn --store DIR [--site SITE] [--n N] [crawl options] URL
 *   winnow detect [--store DIR] [--site SITE | --url URL] [options] FILE|-
 *   winnow detect [--store DIR] [--site SITE | --url URL] [options]
 *                 [--output-dir DIR] [--input-list LIST] [FILE|DIR]...
 *   winnow detect [--store DIR] --jsonl [options] [FILE|-]
 *   winnow sites --store DIR [--json] [SITE...]
 *   winnow serve [--config FILE] [options]
 *   winnow --help | winnow <command> --help | winnow --version
 *
 * Exit codes (a contract: scripts rely on them; codes are only appended)
 *
 *   0  success. For `detect --jsonl`: the whole stream was read and every
 *      input line got its output line, even if some lines were errors
 *      (those are {"id": ..., "error": "..."} objects on their line).
 *      For many files (detect FILE|DIR..., --input-list): every page was
 *      detected and written; else the code of the most severe failure
 *      (1 a page, 3 the store, 4 an output file), after all pages.
 *   1  failure on the input: a page that cannot be read or parsed (past
 *      the byte, node or depth cap, undecodable), an invalid URL, a site
 *      with no template ("winnow: no template for site X; learn it first
 *      with winnow learn"), a record or template that does not decode, or
 *      sample pages that share no structure. For `detect --jsonl`: the
 *      input stream cannot be opened or read.
 *   2  usage: unknown command or option, a missing or invalid argument,
 *      or the wrong number of pages. One line says what is wrong, a second
 *      where to read more ("winnow: see 'winnow learn --help'").
 *   3  the store cannot be opened, read or written (missing directory for
 *      a read-only open, no permission, map full, LMDB error).
 *   4  internal: out of memory, or the output cannot be written.
 *
 * Every error is one line on stderr: "winnow: <message>". Results go to
 * stdout and nothing else does.
 */
#include "cli.h"

#include <string.h>

void wn_cli_usage_main(FILE *out) {
  fputs("usage: winnow <command> [options]\n"
        "\n"
        "Learns a website's template from a few of its pages, then extracts the\n"
        "main content of the site's other pages.\n"
        "\n"
        "commands:\n"
        "  learn    learn a site's template (from sample pages, or by crawling from\n"
        "           a URL) and store it\n"
        "  detect   extract the main content of a page with its site's template, or\n"
        "           by a single-page method when there is none or the page fits badly\n"
        "  sites    list the stored sites, their templates and whether they drift\n"
        "  serve    run the daemon: an HTTP API for detection and learning, and\n"
        "           each configured site relearned on a schedule\n"
        "\n"
        "  winnow learn --store DIR --site SITE [--min-count N] KEY.html PAGE.html...\n"
        "  winnow learn --store DIR [--site SITE] [--n N] [crawl options] URL\n"
        "  winnow detect [--store DIR] [--site SITE | --url URL] [options] FILE|-\n"
        "  winnow detect [--store DIR] [--site SITE | --url URL] [options]\n"
        "                [--output-dir DIR] [--input-list LIST] [FILE|DIR]...\n"
        "  winnow detect [--store DIR] --jsonl [options] [FILE|-]\n"
        "  winnow sites --store DIR [--json] [SITE...]\n"
        "  winnow serve [--config FILE] [--port N] [--store DIR] [options]\n"
        "\n"
        "'winnow <command> --help' describes a command's options;\n"
        "'winnow --version' prints the version.\n"
        "\n"
        "exit codes: 0 ok, 1 bad input (page, URL, site, record), 2 usage,\n"
        "3 store cannot be opened, read or written, 4 out of memory or output error.\n",
        out);
}

int main(int argc, char **argv) {
  int rc = WN_EXIT_USAGE;
  if (argc < 2)
    return wn_cli_usage_error(NULL, "no command given");
  if (wn_init() != WN_OK) {
    wn_cli_error("cannot initialise libcurl");
    return WN_EXIT_INTERNAL;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    wn_cli_usage_main(stdout);
    rc = WN_EXIT_OK;
  } else if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
    printf("winnow %s\n", wn_version());
    rc = WN_EXIT_OK;
  } else if (strcmp(cmd, "learn") == 0) {
    rc = wn_cli_learn(argc - 1, argv + 1);
  } else if (strcmp(cmd, "detect") == 0) {
    rc = wn_cli_detect(argc - 1, argv + 1);
  } else if (strcmp(cmd, "sites") == 0) {
    rc = wn_cli_sites(argc - 1, argv + 1);
  } else if (strcmp(cmd, "serve") == 0) {
    rc = wn_cli_serve(argc - 1, argv + 1);
  } else {
    rc = wn_cli_usage_error(NULL, "unknown command '%.100s'", cmd);
  }
  /* Output is buffered: a full disk or a closed pipe shows up here. */
  if (fflush(stdout) != 0 || ferror(stdout)) {
    wn_cli_error("cannot write the output");
    if (rc == WN_EXIT_OK)
      rc = WN_EXIT_INTERNAL;
  }
  wn_cleanup();
  return rc;
}
