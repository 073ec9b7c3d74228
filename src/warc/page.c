/* warc/page.c: a page that outlives its reader. wn_warc_next's page
 * points into the reader's window, valid until the next call; a copy is
 * one block (the struct, its strings, its payload) that the caller frees
 * at once, or writes into a buffer of its own (the --learn read-ahead's
 * huge-page blocks, src/cli/hold.c). */
#include "warc/warc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A copy's one block: the struct, then each of its strings with its
 * NUL, then the payload with a NUL. */
enum { WN_WARC_PAGE_N_STRS = 7 };
static void wn_warc_page_strs(const wn_warc_page *pg, const char *strs[WN_WARC_PAGE_N_STRS]) {
  strs[0] = pg->warc_type;
  strs[1] = pg->target_uri;
  strs[2] = pg->record_id;
  strs[3] = pg->date;
  strs[4] = pg->block_digest;
  strs[5] = pg->content_type;
  strs[6] = pg->charset;
}

size_t wn_warc_page_copy_size(const wn_warc_page *page) {
  if (!page || (!page->payload && page->payload_len))
    return 0;
  const char *strs[WN_WARC_PAGE_N_STRS];
  wn_warc_page_strs(page, strs);
  size_t total = sizeof(wn_warc_page);
  for (size_t i = 0; i < WN_WARC_PAGE_N_STRS; i++)
    total += strs[i] ? strlen(strs[i]) + 1 : 0;
  if (page->payload_len > SIZE_MAX - total - 1)
    return 0;
  return total + page->payload_len + 1;
}

wn_err wn_warc_page_copy_to(const wn_warc_page *page, void *buf, size_t size,
                            wn_warc_page **out, wn_diag *diag) {
  *out = NULL;
  const size_t need = wn_warc_page_copy_size(page);
  if (need == 0 || !buf || size < need)
    return wn_diag_set(diag, WN_EINVAL, "wn_warc_page_copy_to: %s",
                       need == 0 ? "no page" : "buffer too small");
  const char *strs[WN_WARC_PAGE_N_STRS];
  wn_warc_page_strs(page, strs);
  wn_warc_page *copy = buf;
  *copy = *page;
  const char **dst[WN_WARC_PAGE_N_STRS] = {&copy->warc_type,    &copy->target_uri,
                                           &copy->record_id,    &copy->date,
                                           &copy->block_digest, &copy->content_type,
                                           &copy->charset};
  char *p = (char *)(copy + 1);
  for (size_t i = 0; i < WN_WARC_PAGE_N_STRS; i++) {
    if (!strs[i])
      continue;
    const size_t len = strlen(strs[i]) + 1;
    memcpy(p, strs[i], len);
    *dst[i] = p;
    p += len;
  }
  if (page->payload_len)
    memcpy(p, page->payload, page->payload_len);
  p[page->payload_len] = '\0';
  copy->payload = p;
  *out = copy;
  return WN_OK;
}

wn_err wn_warc_page_copy(const wn_warc_page *page, wn_warc_page **out, wn_diag *diag) {
  *out = NULL;
  if (!page || (!page->payload && page->payload_len))
    return wn_diag_set(diag, WN_EINVAL, "wn_warc_page_copy: no page");
  const size_t total = wn_warc_page_copy_size(page);
  if (total == 0)
    return wn_diag_set(diag, WN_ETOOBIG, "page too large to copy");
  void *copy = malloc(total);
  if (!copy)
    return wn_diag_set(diag, WN_ENOMEM, "out of memory copying a page of %zu bytes",
                       page->payload_len);
  return wn_warc_page_copy_to(page, copy, total, out, diag);
}

void wn_warc_page_free(wn_warc_page *page) { free(page); }
