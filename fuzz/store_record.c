/* Store record decoding (wn_store_record_decode, the bytes of data.mdb):
 * the input as it is, and a copy whose trailing checksum is made right so
 * that the fuzzer reaches the fields past the checksum test. A record that
 * decodes is encoded again (must decode to the same bytes) and its
 * template decoded, as `winnow-dump` and detection do. */
#include "fuzz.h"

#include "store/store.h"
#include "template/template.h"

static void one(const uint8_t *data, size_t size) {
  wn_diag diag = {{0}};
  wn_store_record *rec = NULL;
  if (wn_store_record_decode(data, size, &rec, &diag))
    return;
  wn_buf a, b;
  wn_buf_init(&a, 0);
  wn_buf_init(&b, 0);
  wn_store_record *again = NULL;
  if (wn_store_record_encode(rec, &a, &diag) ||
      wn_store_record_decode(a.data, a.len, &again, &diag) ||
      wn_store_record_encode(again, &b, &diag) || a.len != b.len ||
      memcmp(a.data, b.data, a.len) != 0)
    abort();
  wn_template *tpl = NULL;
  if (wn_template_decode(rec->template_bytes, rec->template_len, &tpl, &diag) == WN_OK)
    wn_template_free(tpl);
  wn_store_record_free(again);
  wn_store_record_free(rec);
  wn_buf_free(&a);
  wn_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  one(data, size);
  if (size < 4)
    return 0;
  /* The checksum: FNV-1a of every byte before it, folded, little-endian. */
  uint8_t *copy = malloc(size);
  if (!copy)
    abort();
  memcpy(copy, data, size);
  uint64_t h = wn_hash_bytes(WN_HASH_SEED, copy, size - 4);
  uint32_t sum = (uint32_t)(h ^ (h >> 32));
  for (int i = 0; i < 4; i++)
    copy[size - 4 + (size_t)i] = (uint8_t)(sum >> (8 * i));
  one(copy, size);
  free(copy);
  return 0;
}
