/*
 * cli/hold.c: the memory a `--learn` run holds its read-ahead pages in.
 *
 * With --learn the batch reads ahead up to --learn-memory of input before
 * it detects (batch.c), so that a site's first pages get the template its
 * later ones teach. Every page of that window is alive at once: with
 * malloc, each copy lands in memory the process has never touched, and
 * the kernel faults it in 4 KiB at a time (16% of a run on WCXB dev where
 * every site is new, against 0.7% for the same copy without --learn,
 * whose freed pages are reused; docs/speed.md). Here the copies go into
 * blocks the kernel is asked to back with huge pages (MADV_HUGEPAGE, 512
 * times fewer faults), and a block whose pages are all freed is reused,
 * not unmapped, so the next window faults nothing in.
 *
 * A page too large for a block, or one that comes when WN_HOLD_MAX_BLOCKS
 * are all in use, is malloc'd as before (wn_cli_hold_alloc returns NULL).
 * Under AddressSanitizer there is no pool: the pages stay malloc'd so
 * that the sanitizer still checks every read of them.
 */
#define _GNU_SOURCE /* MAP_ANONYMOUS, MADV_HUGEPAGE */
#include "cli.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#if defined(__SANITIZE_ADDRESS__)
#define WN_HOLD_POOL 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WN_HOLD_POOL 0
#endif
#endif
#ifndef WN_HOLD_POOL
#define WN_HOLD_POOL 1
#endif

/* A block: 32 MiB (16 huge pages); a page of more than a quarter of one
 * is malloc'd. 64 blocks hold 2 GiB, four times the default
 * --learn-memory; past them, malloc. */
#define WN_HOLD_BLOCK ((size_t)32 << 20)
#define WN_HOLD_MAX_BLOCKS 64u
#define WN_HOLD_ALIGN 16u

typedef struct wn_hold_block {
  char *base;
  size_t used;
  size_t live; /* allocations not yet freed */
} wn_hold_block;

struct wn_cli_hold {
  pthread_mutex_t mu;
  wn_hold_block blocks[WN_HOLD_MAX_BLOCKS];
  uint32_t n_blocks;
  uint32_t current; /* the block allocations come from */
};

wn_cli_hold *wn_cli_hold_create(void) {
  if (!WN_HOLD_POOL)
    return NULL;
  wn_cli_hold *h = calloc(1, sizeof *h);
  if (!h)
    return NULL;
  if (pthread_mutex_init(&h->mu, NULL) != 0) {
    free(h);
    return NULL;
  }
  return h;
}

/* A block to allocate from: an emptied one, else a new mapping. */
static int wn_hold_next_block(wn_cli_hold *h) {
  for (uint32_t b = 0; b < h->n_blocks; b++)
    if (h->blocks[b].live == 0) {
      h->blocks[b].used = 0;
      h->current = b;
      return 1;
    }
  if (h->n_blocks == WN_HOLD_MAX_BLOCKS)
    return 0;
  void *base = mmap(NULL, WN_HOLD_BLOCK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                    -1, 0);
  if (base == MAP_FAILED)
    return 0;
#ifdef MADV_HUGEPAGE
  (void)madvise(base, WN_HOLD_BLOCK, MADV_HUGEPAGE); /* a hint: 4 KiB pages if refused */
#endif
  h->blocks[h->n_blocks] = (wn_hold_block){.base = base};
  h->current = h->n_blocks++;
  return 1;
}

void *wn_cli_hold_alloc(wn_cli_hold *h, size_t n) {
  if (!h || n == 0 || n > WN_HOLD_BLOCK / 4)
    return NULL;
  n = (n + WN_HOLD_ALIGN - 1) & ~(size_t)(WN_HOLD_ALIGN - 1);
  void *p = NULL;
  pthread_mutex_lock(&h->mu);
  wn_hold_block *b = h->n_blocks ? &h->blocks[h->current] : NULL;
  if (!b || WN_HOLD_BLOCK - b->used < n) {
    b = wn_hold_next_block(h) ? &h->blocks[h->current] : NULL;
  }
  if (b) {
    p = b->base + b->used;
    b->used += n;
    b->live++;
  }
  pthread_mutex_unlock(&h->mu);
  return p;
}

void wn_cli_hold_free(wn_cli_hold *h, void *p) {
  if (!h || !p)
    return;
  pthread_mutex_lock(&h->mu);
  for (uint32_t b = 0; b < h->n_blocks; b++) {
    wn_hold_block *k = &h->blocks[b];
    if ((char *)p >= k->base && (char *)p < k->base + WN_HOLD_BLOCK) {
      if (k->live > 0 && --k->live == 0 && b == h->current)
        k->used = 0; /* the block in use, emptied: start it again */
      break;
    }
  }
  pthread_mutex_unlock(&h->mu);
}

void wn_cli_hold_destroy(wn_cli_hold *h) {
  if (!h)
    return;
  for (uint32_t b = 0; b < h->n_blocks; b++)
    munmap(h->blocks[b].base, WN_HOLD_BLOCK);
  pthread_mutex_destroy(&h->mu);
  free(h);
}
