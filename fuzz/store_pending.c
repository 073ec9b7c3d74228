/* Pending-sample entries (wn_store_pending_entry_decode, the bytes of the
 * store's "pending" database): the input as it is, and a copy whose
 * trailing CRC-32 is made right so that the fuzzer reaches the pages past
 * the checksum test (names, lengths, zstd frames). At most 4 pages are
 * decompressed, each within WN_PAGE_MAX_BYTES. */
#include "fuzz.h"

#include <zlib.h>

#include "store/store.h"

static void one(const uint8_t *data, size_t size) {
  wn_diag diag = {{0}};
  wn_store_pending_held *pages = NULL;
  uint32_t n = 0;
  if (wn_store_pending_entry_decode(data, size, 4, &pages, &n, &diag) != WN_OK)
    return;
  for (uint32_t i = 0; i < n; i++)
    if (!pages[i].name || !pages[i].name[0] || pages[i].len > WN_PAGE_MAX_BYTES)
      abort();
  wn_store_pending_held_free(pages, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  one(data, size);
  if (size < 4)
    return 0;
  uint8_t *copy = malloc(size);
  if (!copy)
    abort();
  memcpy(copy, data, size);
  uint32_t crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), copy, (uInt)(size - 4));
  for (int i = 0; i < 4; i++)
    copy[size - 4 + (size_t)i] = (uint8_t)(crc >> (8 * i));
  one(copy, size);
  free(copy);
  return 0;
}
