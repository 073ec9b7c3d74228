/* util/varint.c: the pieces of the stored records (templates, FastCE
 * templates): varints, little-endian words and a bounded reader. */
#include "util/util.h"

wn_err wn_varint_put(wn_buf *out, uint32_t v) {
  unsigned char b[5];
  size_t n = 0;
  do {
    b[n] = (unsigned char)(v & 0x7fu);
    v >>= 7;
    if (v)
      b[n] |= 0x80u;
    n++;
  } while (v);
  return wn_buf_append(out, b, n);
}

int wn_varint_get(wn_reader *r, uint32_t *v) {
  uint32_t result = 0;
  for (unsigned shift = 0; shift < 35; shift += 7) {
    if (r->left == 0)
      return 0;
    unsigned char b = *r->p++;
    r->left--;
    if (shift == 28 && (b & 0x70u))
      return 0; /* more than 32 bits */
    result |= (uint32_t)(b & 0x7fu) << shift;
    if (!(b & 0x80u)) {
      *v = result;
      return 1;
    }
  }
  return 0;
}

wn_err wn_le32_put(wn_buf *out, uint32_t v) {
  unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                        (unsigned char)(v >> 24)};
  return wn_buf_append(out, b, 4);
}

uint32_t wn_le32_get(const unsigned char *p) {
  return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

void wn_le32_write(unsigned char *p, uint32_t v) {
  for (size_t i = 0; i < 4; i++)
    p[i] = (unsigned char)(v >> (8 * i));
}

void wn_le64_write(unsigned char *p, uint64_t v) {
  for (size_t i = 0; i < 8; i++)
    p[i] = (unsigned char)(v >> (8 * i));
}

uint64_t wn_le64_get(const unsigned char *p) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; i++)
    v |= (uint64_t)p[i] << (8 * i);
  return v;
}

wn_err wn_le64_put(wn_buf *out, uint64_t v) {
  unsigned char b[8];
  wn_le64_write(b, v);
  return wn_buf_append(out, b, sizeof b);
}

int64_t wn_i64_from_u64(uint64_t u) {
  return u <= (uint64_t)INT64_MAX ? (int64_t)u : -(int64_t)(UINT64_MAX - u) - 1;
}

int wn_reader_take(wn_reader *r, size_t n, const unsigned char **p) {
  if (r->left < n)
    return 0;
  *p = r->p;
  r->p += n;
  r->left -= n;
  return 1;
}
