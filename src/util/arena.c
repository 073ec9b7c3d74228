/* util/arena.c: a bump allocator in chunks, with a total byte cap. */
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

#define WN_ARENA_CHUNK (64u * 1024u)
#define WN_ARENA_ALIGN 16u

typedef struct wn_arena_chunk {
  struct wn_arena_chunk *next;
  size_t size;
  size_t used;
  /* Payload follows, aligned by the header's size (a multiple of 16). */
} wn_arena_chunk;

struct wn_arena {
  wn_arena_chunk *head;
  size_t cap;
  size_t handed_out;
};

#define WN_CHUNK_HEADER                                                      \
  ((sizeof(wn_arena_chunk) + WN_ARENA_ALIGN - 1) & ~(size_t)(WN_ARENA_ALIGN - 1))

wn_arena *wn_arena_create(size_t cap_bytes) {
  wn_arena *arena = calloc(1, sizeof *arena);
  if (!arena)
    return NULL;
  arena->cap = cap_bytes;
  return arena;
}

void wn_arena_destroy(wn_arena *arena) {
  if (!arena)
    return;
  wn_arena_chunk *chunk = arena->head;
  while (chunk) {
    wn_arena_chunk *next = chunk->next;
    free(chunk);
    chunk = next;
  }
  free(arena);
}

void *wn_arena_alloc(wn_arena *arena, size_t size) {
  if (!arena)
    return NULL;
  if (size == 0)
    size = 1;
  if (size > SIZE_MAX / 2)
    return NULL;
  size_t rounded = (size + WN_ARENA_ALIGN - 1) & ~(size_t)(WN_ARENA_ALIGN - 1);
  if (arena->cap && (rounded > arena->cap || arena->handed_out > arena->cap - rounded))
    return NULL;
  wn_arena_chunk *chunk = arena->head;
  if (!chunk || chunk->size - chunk->used < rounded) {
    size_t payload = rounded > WN_ARENA_CHUNK ? rounded : WN_ARENA_CHUNK;
    wn_arena_chunk *fresh = malloc(WN_CHUNK_HEADER + payload);
    if (!fresh)
      return NULL;
    fresh->size = payload;
    fresh->used = 0;
    if (chunk && rounded > WN_ARENA_CHUNK) {
      /* A big block goes behind the current chunk so its free space stays
       * usable for the small allocations that follow. */
      fresh->next = chunk->next;
      chunk->next = fresh;
    } else {
      fresh->next = chunk;
      arena->head = fresh;
    }
    chunk = fresh;
  }
  void *p = (char *)chunk + WN_CHUNK_HEADER + chunk->used;
  chunk->used += rounded;
  arena->handed_out += rounded;
  return p;
}

void *wn_arena_calloc(wn_arena *arena, size_t count, size_t size) {
  if (size && count > SIZE_MAX / size)
    return NULL;
  void *p = wn_arena_alloc(arena, count * size);
  if (p)
    memset(p, 0, count * size);
  return p;
}

char *wn_arena_strndup(wn_arena *arena, const char *s, size_t len) {
  char *p = wn_arena_alloc(arena, len + 1);
  if (!p)
    return NULL;
  if (len)
    memcpy(p, s, len);
  p[len] = '\0';
  return p;
}

size_t wn_arena_used(const wn_arena *arena) { return arena ? arena->handed_out : 0; }
