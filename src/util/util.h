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

/* The bounded buffer (wn_buf) is public (include/winnow/winnow.h). */

/* wn_file_read is public (include/winnow/winnow.h). */

/* ---- hashing ------------------------------------------------------------ */

/* 64-bit FNV-1a, continued from seed (use WN_HASH_SEED to start). */
#define WN_HASH_SEED UINT64_C(0xcbf29ce484222325)
uint64_t wn_hash_bytes(uint64_t seed, const void *data, size_t len);

#endif /* WN_UTIL_H */
