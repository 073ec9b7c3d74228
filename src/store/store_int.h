/*
 * store/store_int.h: what store.c (the LMDB side) and record.c (the record
 * codec) share. Not part of the store's interface.
 */
#ifndef WN_STORE_INT_H
#define WN_STORE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

#define WN_STORE_MAGIC "WNSR"
#define WN_STORE_MAGIC_LEN 4u
#define WN_STORE_ALGORITHM_CAP (sizeof(((wn_store_record *)0)->algorithm))

/* The records' checksum: 64-bit FNV-1a of bytes, folded to 32 bits. */
uint32_t wn_store_checksum(const void *bytes, size_t len);

/* An encoded record into *out: copy 1 copies the variable parts (a
 * record the caller keeps), 0 borrows them from bytes (a look inside a
 * transaction). */
wn_err wn_store_record_parse(const unsigned char *bytes, size_t len, int copy,
                             wn_store_record *out, wn_diag *diag);

/* An inner diagnostic's message without its "store: " prefix, for a
 * caller that wraps it with the site's name. */
const char *wn_store_diag_detail(const wn_diag *inner, wn_err err);

#endif /* WN_STORE_INT_H */
