/*
 * util: the small shared pieces every module uses: one error enum with its
 * messages, a diagnostic buffer for detail, a bounded arena, a bounded
 * growable byte buffer, and hashing.
 *
 * Nothing here knows about pages, sites or templates.
 */
#ifndef WN_UTIL_H
#define WN_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* Only the base of the public interface: the error enum, wn_strerror,
 * wn_diag, wn_buf and wn_file_read. util sits below every module and sees
 * nothing of stores, sites or detectors. */
#include <winnow/base.h>

/* ---- arena ------------------------------------------------------------ */

/* A bump allocator with a byte cap: everything a parsed page needs comes
 * from one arena and goes with it in one free (lexbor's habit). */
typedef struct wn_arena wn_arena;

/* cap_bytes bounds the total the arena may hand out; 0 means no cap. */
wn_arena *wn_arena_create(size_t cap_bytes);
void wn_arena_destroy(wn_arena *arena);
/* 16-byte aligned, uninitialised; NULL when out of memory or past the cap. */
void *wn_arena_alloc(wn_arena *arena, size_t size);
/* Zeroed. */
void *wn_arena_calloc(wn_arena *arena, size_t count, size_t size);
/* NUL-terminated copy of len bytes. */
char *wn_arena_strndup(wn_arena *arena, const char *s, size_t len);
/* Bytes handed out so far (a page's memory cost). */
size_t wn_arena_used(const wn_arena *arena);

/* The bounded buffer (wn_buf) and wn_file_read are public
 * (include/winnow/base.h). */

/* n arrays in one block, the i-th of sizes[i] bytes, each aligned for
 * any type, zeroed where bit i of zeroed is set (as calloc would give it;
 * the others as malloc would); out[i] points at each. The block comes
 * from the calling thread's scratch stack (util/scratch.c): a reading
 * takes its per-node arrays for one page so and gives them back with
 * wn_scratch_release before it returns, last taken first given back, on
 * the same thread. Returns the block, NULL when out of memory or when
 * the sizes overflow. */
void *wn_scratch_arrays(size_t n, const size_t *sizes, unsigned zeroed, void **out);
/* Gives back the block wn_scratch_arrays returned last on this thread
 * (NULL: nothing). Any other block is a caller's bug: it aborts. */
void wn_scratch_release(void *block);

/* Room for len more bytes (up to the cap) in one allocation, when the
 * caller knows the size ahead: appends up to it then never reallocate. */
wn_err wn_buf_reserve(wn_buf *buf, size_t len);

/* ---- hashing ------------------------------------------------------------ */

/* 64-bit FNV-1a, continued from seed (use WN_HASH_SEED to start). */
#define WN_HASH_SEED UINT64_C(0xcbf29ce484222325)
uint64_t wn_hash_bytes(uint64_t seed, const void *data, size_t len);

/* qsort's comparison of two uint32_t. */
int wn_u32_cmp(const void *a, const void *b);

/* A malloc'd copy of s; NULL for NULL (and when out of memory). */
char *wn_strdup(const char *s);

/* ---- ASCII text (text.c) --------------------------------------------------- */

/* ASCII character classes, whatever the locale says (C's <ctype.h>
 * follows the locale, and takes only an unsigned char's value or EOF):
 * the one definition of each, as curl's curl_ctype.h is. c is a char or
 * an unsigned char's value; bytes past 0x7F are in no class. */
static inline int wn_ascii_digit(int c) { return c >= '0' && c <= '9'; }
static inline int wn_ascii_capital(int c) { return c >= 'A' && c <= 'Z'; }
static inline int wn_ascii_small(int c) { return c >= 'a' && c <= 'z'; }
static inline int wn_ascii_alpha(int c) { return wn_ascii_capital(c) || wn_ascii_small(c); }
static inline int wn_ascii_alnum(int c) { return wn_ascii_alpha(c) || wn_ascii_digit(c); }
/* HTTP's and robots.txt's optional white space: space and tab. */
static inline int wn_http_space(int c) { return c == ' ' || c == '\t'; }

/* c lower-cased when it is an ASCII capital, else c unchanged: protocol
 * names (HTTP headers, media types, robots.txt keys, charset labels) are
 * ASCII case-insensitive, whatever the locale says. */
static inline char wn_ascii_lower(char c) {
  return wn_ascii_capital(c) ? (char)(c - 'A' + 'a') : c;
}
/* c upper-cased when it is a small ASCII letter (charset names for iconv). */
static inline char wn_ascii_upcase(char c) {
  return wn_ascii_small(c) ? (char)(c - 'a' + 'A') : c;
}

/* 1 for HTML's ASCII white space (tab, line feed, form feed, carriage
 * return, space; not the vertical tab), whatever the locale says; else 0.
 * c is a char or an unsigned char's value. */
static inline int wn_html_space(int c) {
  return c == 0x09 || c == 0x0A || c == 0x0C || c == 0x0D || c == 0x20;
}

/* 1 when the len bytes at s equal the NUL-terminated lit, ASCII case
 * ignored on both sides; else 0. */
int wn_ascii_equal_ci(const char *s, size_t len, const char *lit);

/* The value of a hexadecimal digit (either case), or -1. */
int wn_hex_digit(char c);

/* 1 when tok is one of the tokens of list (an attribute's set of tokens
 * separated by HTML white space: class, rel, itemprop), matched exactly;
 * a NULL list holds none. */
int wn_html_has_token(const char *list, const char *tok);

/* A whole number of plain decimal digits (no sign, spaces, or anything
 * after them), from min to max: 0 and *out set, else -1 and *out left.
 * The one number reader of the command line, the tools and the daemon's
 * configuration. */
int wn_parse_u32(const char *s, uint32_t min, uint32_t max, uint32_t *out);

/* ---- time (clock.c) ---------------------------------------------------------- */

/* The monotonic clock in milliseconds, with the fraction (for deadlines,
 * timeouts and the time a step took; never a date). */
double wn_clock_ms(void);

/* ---- encoded records (varint.c) -------------------------------------------- */

/* The reading end of a stored record: the next byte and how many are left.
 * The readers below advance it, and return 1, or 0 when the record ends
 * too soon or is malformed. */
typedef struct wn_reader {
  const unsigned char *p;
  size_t left;
} wn_reader;

/* LEB128 (7 bits a byte, low first, high bit: more follow), at most 5
 * bytes and 32 bits. */
wn_err wn_varint_put(wn_buf *out, uint32_t v);
int wn_varint_get(wn_reader *r, uint32_t *v);
/* Four and eight bytes, little-endian: appended to a buffer, written at
 * p, read from p. */
wn_err wn_le32_put(wn_buf *out, uint32_t v);
wn_err wn_le64_put(wn_buf *out, uint64_t v);
void wn_le32_write(unsigned char *p, uint32_t v);
void wn_le64_write(unsigned char *p, uint64_t v);
uint32_t wn_le32_get(const unsigned char *p);
uint64_t wn_le64_get(const unsigned char *p);
/* Two's complement back to signed without the implementation-defined
 * conversion of an out-of-range unsigned value. */
int64_t wn_i64_from_u64(uint64_t u);
/* The next n bytes, borrowed from the record. */
int wn_reader_take(wn_reader *r, size_t n, const unsigned char **p);

#endif /* WN_UTIL_H */
