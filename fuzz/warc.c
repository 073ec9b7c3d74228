/* The WARC reader (src/warc): the input is written to a file and read to
 * the end twice, once for HTML pages (HTTP parsing, chunked and content
 * codings) and once with every_record, then as two segments cut where its
 * first byte says (start_offset, end_offset: the seek and the silent
 * search for the first record); each page is copied as the batch does for
 * its workers. Damage is counted, never fatal. */
#include "fuzz.h"

#include <winnow/winnow.h>

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  return 0;
}

static void damage(const char *message, void *ctx) {
  (void)ctx;
  if (!message || !*message)
    abort();
}

static void read_all(const char *path, int every, uint64_t start, uint64_t end) {
  wn_warc_reader_options opts;
  wn_warc_reader_options_init(&opts);
  opts.start_offset = start;
  opts.end_offset = end;
  opts.every_record = every;
  opts.all_statuses = every;
  opts.on_damage = damage;
  /* Small caps, so that the skip paths are reached by small inputs. */
  opts.max_header_bytes = 4096;
  opts.max_block_bytes = 48u << 10;
  opts.max_payload_bytes = 1u << 17;
  wn_diag diag = {{0}};
  wn_warc_reader *r = NULL;
  if (wn_warc_reader_open(path, &opts, &r, &diag))
    return;
  wn_warc_page page;
  while (wn_warc_next(r, &page, &diag) == WN_OK) {
    wn_warc_page *copy = NULL;
    if (wn_warc_page_copy(&page, &copy, &diag) == WN_OK) {
      if (copy->payload_len != page.payload_len ||
          memcmp(copy->payload, page.payload, page.payload_len) != 0)
        abort();
      wn_warc_page_free(copy);
    }
  }
  wn_warc_stats st;
  wn_warc_reader_stats_get(r, &st);
  wn_warc_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *path = wn_fuzz_file(data, size);
  read_all(path, 0, 0, 0);
  read_all(path, 1, 0, 0);
  if (size > 1) {
    const uint64_t cut = 1 + (uint64_t)data[0] * (size - 1) / 255;
    read_all(path, 0, 0, cut);
    read_all(path, 0, cut, 0);
  }
  unlink(path);
  free(path);
  return 0;
}
