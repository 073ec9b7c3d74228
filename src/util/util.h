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

#include <winnow/winnow.h>

/* The error enum, wn_strerror, wn_diag and wn_diag_set are public
 * (include/winnow/winnow.h). */

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

/* ---- bounded buffer ---------------------------------------------------- */

/* A growable byte buffer with a cap (curl's dynbuf): appends past the cap
 * fail with WN_ETOOBIG and leave the buffer as it was. Always
 * NUL-terminated when len > 0. */
typedef struct wn_buf {
  char *data;
  size_t len;
  size_t alloc;
  size_t cap;
} wn_buf;

void wn_buf_init(wn_buf *buf, size_t cap);
void wn_buf_free(wn_buf *buf);
void wn_buf_reset(wn_buf *buf);
wn_err wn_buf_append(wn_buf *buf, const void *data, size_t len);
wn_err wn_buf_append_str(wn_buf *buf, const char *s);
wn_err wn_buf_append_char(wn_buf *buf, char c);
wn_err wn_buf_printf(wn_buf *buf, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Hands the bytes to the caller (free() them); the buffer is empty after. */
char *wn_buf_take(wn_buf *buf, size_t *len);

/* wn_file_read is public (include/winnow/winnow.h). */

/* ---- hashing ------------------------------------------------------------ */

/* 64-bit FNV-1a, continued from seed (use WN_HASH_SEED to start). */
#define WN_HASH_SEED UINT64_C(0xcbf29ce484222325)
uint64_t wn_hash_bytes(uint64_t seed, const void *data, size_t len);

#endif /* WN_UTIL_H */
