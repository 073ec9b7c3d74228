/*
 * cli/output.c: what every front end of `winnow detect` writes the same
 * way: the want bits the output options add (wn_cli_output, parsed by
 * cmd_detect.c), and the JSONL sink ({"id", the result's fields} or
 * {"id", "error"}, one line a page) of --jsonl, many files and --warc.
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

unsigned wn_cli_want_extra(const wn_cli_output *output, wn_cli_format format, int json) {
  const wn_cli_output dflt = WN_CLI_OUTPUT_DEFAULT;
  if (!output)
    output = &dflt;
  unsigned extra = output->extra_want;
  if (json)
    return extra | (output->metadata == 1 ? WN_WANT_METADATA : 0u);
  if (format == WN_FORMAT_MARKDOWN && output->metadata != 0)
    extra |= WN_WANT_FRONT_MATTER;
  return extra;
}

void wn_cli_render_jsonl(void *ctx, wn_batch_page *page, const wn_page_result *r) {
  (void)ctx;
  wn_diag diag = {{0}};
  if (r) {
    wn_err err = wn_page_result_json(r, page->id_json ? page->id_json : "null", 0, &page->out,
                                     &diag);
    if (!err) {
      page->out_len = strlen(page->out);
      return;
    }
    page->err = err;
    page->diag = diag;
  }
  /* {"id", "error"}: the id echoed as it came (null if there was none). */
  json_t *msg = json_string(wn_diag_message(&page->diag, page->err));
  /* A message quoting a file name that is not UTF-8. */
  if (!msg)
    msg = json_string(wn_strerror(page->err));
  char *msg_json = msg ? json_dumps(msg, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
  json_decref(msg);
  wn_buf out;
  wn_buf_init(&out, 0);
  if (msg_json && wn_buf_printf(&out, "{\"id\":%s,\"error\":%s}",
                                page->id_json ? page->id_json : "null", msg_json) == WN_OK)
    page->out = wn_buf_take(&out, &page->out_len);
  wn_buf_free(&out);
  free(msg_json);
}

int wn_cli_write_line(void *ctx, wn_batch_page *page) {
  (void)ctx;
  /* One line out per line in, flushed: a caller may wait for it before
   * sending the next. */
  int written = wn_cli_write(page->out, page->out_len) | wn_cli_write("\n", 1);
  if (written != 0 || fflush(stdout) != 0) {
    wn_cli_error("cannot write the output");
    return WN_EXIT_INTERNAL;
  }
  return WN_EXIT_OK;
}
