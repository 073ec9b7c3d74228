/* util/scratch.c: the readings' per-page arrays from a stack per thread.
 *
 * A reading takes its per-node arrays for one page and gives them back
 * before it returns, and a reading it runs inside does the same: the
 * arrays live last in, first out. So they come from a stack of chunks
 * kept by the thread that detects, and a page's detection after the
 * first costs the C allocator no call for them (issue 46: no allocation
 * per node or per array in the readings).
 *
 * Each block has a header that links it to the block before it, so a
 * block given back out of order (a bug) is caught, not silently freed
 * under a live one. A chunk holds 512 KiB (a page of 5,000 nodes fits)
 * or one block larger than that. When a chunk empties it is kept as the
 * thread's spare if it is no larger than that (WN_SCRATCH_KEEP); a large
 * page's chunks are freed, as malloc would give them back, so a thread
 * holds at most 512 KiB between pages, not the largest page it ever read.
 * A thread's chunks are freed when it exits (a pthread key's destructor).
 * Under AddressSanitizer what is given back is poisoned, so a read after
 * the release is reported as a use after free would be.
 */
#include "util/util.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define WN_SCRATCH_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WN_SCRATCH_ASAN 1
#endif
#endif
#ifdef WN_SCRATCH_ASAN
#include <sanitizer/asan_interface.h>
#define WN_SCRATCH_POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define WN_SCRATCH_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define WN_SCRATCH_POISON(p, n) ((void)(p), (void)(n))
#define WN_SCRATCH_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define WN_SCRATCH_ALIGN 16u
#define WN_SCRATCH_MIN ((size_t)512 << 10)  /* a chunk's least size */
#define WN_SCRATCH_KEEP ((size_t)512 << 10) /* a larger spare is not kept */

typedef struct wn_scratch_chunk {
  struct wn_scratch_chunk *prev; /* the chunk below on the stack */
  size_t size;                   /* bytes of data */
  size_t used;
  void *last; /* the block on top, NULL when empty */
} wn_scratch_chunk;

/* Before each block: the block below it in its chunk. */
typedef struct wn_scratch_head {
  void *below;
  size_t pad; /* the header stays a multiple of the alignment */
} wn_scratch_head;

typedef struct wn_scratch {
  wn_scratch_chunk *top;
  wn_scratch_chunk *spare;
} wn_scratch;

#define WN_SCRATCH_ROUND(n) (((n) + WN_SCRATCH_ALIGN - 1) & ~(size_t)(WN_SCRATCH_ALIGN - 1))
#define WN_SCRATCH_CHUNK_HEAD WN_SCRATCH_ROUND(sizeof(wn_scratch_chunk))
#define WN_SCRATCH_HEAD WN_SCRATCH_ROUND(sizeof(wn_scratch_head))

static _Thread_local wn_scratch *wn_scratch_tls;
static pthread_key_t wn_scratch_key;
static pthread_once_t wn_scratch_once = PTHREAD_ONCE_INIT;
static int wn_scratch_key_ok;

static unsigned char *wn_scratch_data(wn_scratch_chunk *c) {
  return (unsigned char *)c + WN_SCRATCH_CHUNK_HEAD;
}

static void wn_scratch_destroy(void *p) {
  wn_scratch *s = p;
  if (!s)
    return;
  for (wn_scratch_chunk *c = s->top; c;) {
    wn_scratch_chunk *prev = c->prev;
    WN_SCRATCH_UNPOISON(wn_scratch_data(c), c->size);
    free(c);
    c = prev;
  }
  if (s->spare)
    WN_SCRATCH_UNPOISON(wn_scratch_data(s->spare), s->spare->size);
  free(s->spare);
  free(s);
  if (wn_scratch_tls == s)
    wn_scratch_tls = NULL;
}

static void wn_scratch_key_make(void) {
  wn_scratch_key_ok = pthread_key_create(&wn_scratch_key, wn_scratch_destroy) == 0;
}

static wn_scratch *wn_scratch_get(void) {
  if (wn_scratch_tls)
    return wn_scratch_tls;
  pthread_once(&wn_scratch_once, wn_scratch_key_make);
  if (!wn_scratch_key_ok)
    return NULL;
  wn_scratch *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  if (pthread_setspecific(wn_scratch_key, s) != 0) {
    free(s);
    return NULL;
  }
  wn_scratch_tls = s;
  return s;
}

/* need bytes (a header and a block) on top: the top chunk, the spare, or
 * a new chunk. */
static wn_scratch_chunk *wn_scratch_room(wn_scratch *s, size_t need) {
  wn_scratch_chunk *c = s->top;
  if (c && c->size - c->used >= need)
    return c;
  if (s->spare && s->spare->size >= need) {
    c = s->spare;
    s->spare = NULL;
  } else {
    const size_t size = need > WN_SCRATCH_MIN ? need : WN_SCRATCH_MIN;
    if (size > SIZE_MAX - WN_SCRATCH_CHUNK_HEAD)
      return NULL;
    c = malloc(WN_SCRATCH_CHUNK_HEAD + size);
    if (!c)
      return NULL;
    c->size = size;
    WN_SCRATCH_POISON(wn_scratch_data(c), size);
  }
  c->used = 0;
  c->last = NULL;
  c->prev = s->top;
  s->top = c;
  return c;
}

void *wn_scratch_arrays(size_t n, const size_t *sizes, unsigned zeroed, void **out) {
  size_t total = 0;
  for (size_t i = 0; i < n; i++) {
    size_t size = sizes[i] ? sizes[i] : 1;
    if (size > SIZE_MAX / 4 || total > SIZE_MAX / 4)
      return NULL; /* (so the sum stays under SIZE_MAX / 2) */
    total += WN_SCRATCH_ROUND(size);
  }
  if (total == 0)
    total = WN_SCRATCH_ALIGN;
  wn_scratch *s = wn_scratch_get();
  if (!s || total > SIZE_MAX / 2 - WN_SCRATCH_HEAD)
    return NULL;
  wn_scratch_chunk *c = wn_scratch_room(s, WN_SCRATCH_HEAD + total);
  if (!c)
    return NULL;
  unsigned char *at = wn_scratch_data(c) + c->used;
  WN_SCRATCH_UNPOISON(at, WN_SCRATCH_HEAD + total);
  wn_scratch_head *h = (wn_scratch_head *)(void *)at;
  h->below = c->last;
  h->pad = 0;
  unsigned char *block = at + WN_SCRATCH_HEAD;
  c->last = block;
  c->used += WN_SCRATCH_HEAD + total;
  size_t off = 0;
  for (size_t i = 0; i < n; i++) {
    out[i] = block + off;
    if (i < sizeof zeroed * 8 && ((zeroed >> i) & 1u))
      memset(out[i], 0, sizes[i]);
    off += WN_SCRATCH_ROUND(sizes[i] ? sizes[i] : 1);
  }
  return block;
}

void wn_scratch_release(void *block) {
  if (!block)
    return;
  wn_scratch *s = wn_scratch_tls;
  wn_scratch_chunk *c = s ? s->top : NULL;
  if (!c || c->last != block) {
    /* Not the block on top: a caller gave its arrays back out of order
     * (or on another thread). Going on would free a live block. */
    fprintf(stderr, "winnow: scratch block %p given back out of order\n", block);
    abort();
  }
  unsigned char *at = (unsigned char *)block - WN_SCRATCH_HEAD;
  c->last = ((wn_scratch_head *)(void *)at)->below;
  const size_t was = c->used;
  c->used = (size_t)(at - wn_scratch_data(c));
  WN_SCRATCH_POISON(at, was - c->used);
  if (c->used)
    return;
  s->top = c->prev;
  wn_scratch_chunk *drop = c;
  if (c->size <= WN_SCRATCH_KEEP && (!s->spare || s->spare->size < c->size)) {
    drop = s->spare;
    s->spare = c;
  }
  if (drop) {
    WN_SCRATCH_UNPOISON(wn_scratch_data(drop), drop->size);
    free(drop);
  }
}
