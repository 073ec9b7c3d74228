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

int wn_reader_take(wn_reader *r, size_t n, const unsigned char **p) {
  if (r->left < n)
    return 0;
  *p = r->p;
  r->p += n;
  r->left -= n;
  return 1;
}
