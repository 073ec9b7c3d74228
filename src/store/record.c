/*
 * store/record.c: the site record codec, pure (no LMDB): what
 * wn_store_put writes as a record's value and wn_store_get reads back
 * (fuzz/store_record.c feeds it arbitrary bytes).
 *
 * Record format, version 2. All integers little-endian, no padding:
 *
 *   "WNSR"              4 bytes  magic
 *   u32 format version           1 or 2 (WN_STORE_FORMAT_VERSION is written)
 *   u32 algorithm length         < 16, then that many bytes (no NUL)
 *   i64 learned_at               two's complement
 *   u64 generation
 *   u32 n_pages                  <= WN_STORE_MAX_PAGES, then per page:
 *       u32 name length          <= WN_STORE_MAX_PAGE_NAME, then the bytes (no NUL)
 *       u64 bytes
 *       i32 http_status          two's complement
 *       u32 fetch_ms
 *   u32 page_nodes
 *   u32 template_nodes
 *   u64 template length          <= WN_STORE_MAX_TEMPLATE, then the bytes
 *   -- version 2 only: how the site was learned (wn_store_learn_params) --
 *   u32 key page length          <= WN_STORE_MAX_PAGE_NAME, then the bytes (no
 *                                NUL); 0 for no key page (decodes as NULL)
 *   u8  from_url                 0 or 1
 *   u8  by_domain                0 or 1
 *   u8  selector
 *   u32 min_count, u32 n, u32 max_fetches
 *   u64 min_share                IEEE 754 binary64 bits; finite, 0 to 1
 *   u32 host_delay_ms, u32 timeout_ms
 *   u64 max_body_bytes
 *   u32 user agent length        < WN_STORE_MAX_USER_AGENT, then the bytes (no NUL)
 *   -- both versions --
 *   u32 checksum                 64-bit FNV-1a (wn_hash_bytes) of every byte
 *                                before it, folded to 32 bits (high ^ low)
 *
 * Version 1 is version 2 without the learn section: it is still read (key
 * page NULL, parameters zero), so stores written before the scheduler needed
 * the parameters keep working; the next put of the site rewrites it as 2.
 * The new section comes after the template, so both versions share one
 * parser up to it.
 *
 * Decoding reads the magic and the version before anything else: a later
 * format may change everything after the version, its checksum included, so
 * an unknown version is WN_EVERSION and not "corrupt". The rest is parsed
 * with every length checked against both its cap and the bytes that remain
 * before anything is copied, then the checksum is compared, so a damaged
 * record says what is wrong with it (truncated, a length past its cap,
 * trailing bytes, checksum) and never makes us read past the buffer or
 * allocate more than the record itself holds.
 *
 */
#include "store/store.h"
#include "store/store_int.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int32_t wn_i32_from_u32(uint32_t u) {
  return u <= (uint32_t)INT32_MAX ? (int32_t)u : -(int32_t)(UINT32_MAX - u) - 1;
}

/* A double as its IEEE 754 binary64 bits and back (C11 Annex F; checked at
 * compile time below), so the stored bytes do not depend on the host. */
_Static_assert(sizeof(double) == sizeof(uint64_t), "double is not 64 bits");

static uint64_t wn_double_bits(double d) {
  uint64_t u;
  memcpy(&u, &d, sizeof u);
  return u;
}

static double wn_double_from_bits(uint64_t u) {
  double d;
  memcpy(&d, &u, sizeof d);
  return d;
}

/* min_share is a share of the key page's template nodes: NaN, infinities
 * and values outside 0 to 1 mean a damaged record or a caller's bug. */
static int wn_min_share_valid(double share) {
  return share >= 0.0 && share <= 1.0; /* false for NaN */
}

uint32_t wn_store_checksum(const void *bytes, size_t len) {
  uint64_t h = wn_hash_bytes(WN_HASH_SEED, bytes, len);
  return (uint32_t)(h ^ (h >> 32));
}

/* Inner diagnostics start with "store: "; when a caller wraps one with the
 * site name, the prefix is not repeated. */
const char *wn_store_diag_detail(const wn_diag *inner, wn_err err) {
  const char *msg = wn_diag_message(inner, err);
  static const char prefix[] = "store: ";
  if (strncmp(msg, prefix, sizeof prefix - 1) == 0)
    msg += sizeof prefix - 1;
  return msg;
}

/* ---- encoding ---------------------------------------------------------- */

/* Checks everything encode relies on before a byte is written, so a refused
 * record leaves the output as it was. */
static wn_err wn_record_check(const wn_store_record *record, wn_diag *diag) {
  if (strnlen(record->algorithm, WN_STORE_ALGORITHM_CAP) == WN_STORE_ALGORITHM_CAP)
    return wn_diag_set(diag, WN_EINVAL,
                       "store: algorithm name is not NUL-terminated within %zu bytes",
                       WN_STORE_ALGORITHM_CAP);
  if (record->n_pages > WN_STORE_MAX_PAGES)
    return wn_diag_set(diag, WN_EINVAL, "store: record has %u sample pages (cap %u)",
                       (unsigned)record->n_pages, WN_STORE_MAX_PAGES);
  if (record->n_pages > 0 && !record->pages)
    return wn_diag_set(diag, WN_EINVAL, "store: record has %u sample pages but no page array",
                       (unsigned)record->n_pages);
  for (uint32_t i = 0; i < record->n_pages; i++) {
    const char *name = record->pages[i].name;
    if (name && strnlen(name, WN_STORE_MAX_PAGE_NAME + 1) > WN_STORE_MAX_PAGE_NAME)
      return wn_diag_set(diag, WN_EINVAL,
                         "store: name of sample page %u is longer than %u bytes",
                         (unsigned)i, WN_STORE_MAX_PAGE_NAME);
  }
  if (record->template_len > WN_STORE_MAX_TEMPLATE)
    return wn_diag_set(diag, WN_ETOOBIG, "store: template of %zu bytes is past the cap of %zu",
                       record->template_len, WN_STORE_MAX_TEMPLATE);
  if (record->template_len > 0 && !record->template_bytes)
    return wn_diag_set(diag, WN_EINVAL, "store: template of %zu bytes has no bytes",
                       record->template_len);
  if (record->key_page &&
      strnlen(record->key_page, WN_STORE_MAX_PAGE_NAME + 1) > WN_STORE_MAX_PAGE_NAME)
    return wn_diag_set(diag, WN_EINVAL, "store: key page name is longer than %u bytes",
                       WN_STORE_MAX_PAGE_NAME);
  const wn_store_learn_params *params = &record->params;
  if (params->from_url > 1 || params->by_domain > 1)
    return wn_diag_set(diag, WN_EINVAL,
                       "store: learn parameter from_url %u or by_domain %u is not 0 or 1",
                       (unsigned)params->from_url, (unsigned)params->by_domain);
  if (!wn_min_share_valid(params->min_share))
    return wn_diag_set(diag, WN_EINVAL,
                       "store: learn parameter min_share %g is not within 0 to 1",
                       params->min_share);
  if (strnlen(params->user_agent, WN_STORE_MAX_USER_AGENT) == WN_STORE_MAX_USER_AGENT)
    return wn_diag_set(diag, WN_EINVAL,
                       "store: user agent is not NUL-terminated within %u bytes",
                       WN_STORE_MAX_USER_AGENT);
  return WN_OK;
}

/* The version-2 learn section (see the layout above). */
static wn_err wn_encode_learn_section(const wn_store_record *record, wn_buf *out) {
  const wn_store_learn_params *params = &record->params;
  const char *key_page = record->key_page ? record->key_page : "";
  const size_t key_len = strlen(key_page);             /* <= cap: wn_record_check */
  const size_t agent_len = strlen(params->user_agent); /* < cap: wn_record_check */
  const unsigned char flags[3] = {params->from_url, params->by_domain, params->selector};
  wn_err err;
  if ((err = wn_le32_put(out, (uint32_t)key_len)) ||
      (err = wn_buf_append(out, key_page, key_len)) ||
      (err = wn_buf_append(out, flags, sizeof flags)) ||
      (err = wn_le32_put(out, params->min_count)) || (err = wn_le32_put(out, params->n)) ||
      (err = wn_le32_put(out, params->max_fetches)) ||
      (err = wn_le64_put(out, wn_double_bits(params->min_share))) ||
      (err = wn_le32_put(out, params->host_delay_ms)) ||
      (err = wn_le32_put(out, params->timeout_ms)) ||
      (err = wn_le64_put(out, params->max_body_bytes)) ||
      (err = wn_le32_put(out, (uint32_t)agent_len)) ||
      (err = wn_buf_append(out, params->user_agent, agent_len)))
    return err;
  return WN_OK;
}

wn_err wn_store_record_encode(const wn_store_record *record, wn_buf *out, wn_diag *diag) {
  if (!record || !out)
    return wn_diag_set(diag, WN_EINVAL, "store: encode needs a record and a buffer");
  wn_err err = wn_record_check(record, diag);
  if (err)
    return err;

  const size_t start = out->len;
  const size_t alg_len = strlen(record->algorithm); /* < 16: wn_record_check */
  if ((err = wn_buf_append(out, WN_STORE_MAGIC, WN_STORE_MAGIC_LEN)) ||
      (err = wn_le32_put(out, WN_STORE_FORMAT_VERSION)) ||
      (err = wn_le32_put(out, (uint32_t)alg_len)) ||
      (err = wn_buf_append(out, record->algorithm, alg_len)) ||
      (err = wn_le64_put(out, (uint64_t)record->learned_at)) ||
      (err = wn_le64_put(out, record->generation)) || (err = wn_le32_put(out, record->n_pages)))
    goto out;
  for (uint32_t i = 0; i < record->n_pages; i++) {
    const wn_store_page *page = &record->pages[i];
    const char *name = page->name ? page->name : "";
    const size_t name_len = strlen(name); /* <= cap: wn_record_check */
    if ((err = wn_le32_put(out, (uint32_t)name_len)) ||
        (err = wn_buf_append(out, name, name_len)) || (err = wn_le64_put(out, page->bytes)) ||
        (err = wn_le32_put(out, (uint32_t)page->http_status)) ||
        (err = wn_le32_put(out, page->fetch_ms)))
      goto out;
  }
  if ((err = wn_le32_put(out, record->page_nodes)) ||
      (err = wn_le32_put(out, record->template_nodes)) ||
      (err = wn_le64_put(out, (uint64_t)record->template_len)) ||
      (err = wn_buf_append(out, record->template_bytes, record->template_len)) ||
      (err = wn_encode_learn_section(record, out)))
    goto out;
  err = wn_le32_put(out, wn_store_checksum(out->data + start, out->len - start));

out:
  if (err) {
    out->len = start;
    if (out->data)
      out->data[start] = '\0';
    if (err == WN_ETOOBIG)
      wn_diag_set(diag, err, "store: encoded record is past the output buffer's cap of %zu bytes",
                  out->cap);
    else
      wn_diag_set(diag, err, "store: cannot encode record: %s", wn_strerror(err));
  }
  return err;
}

/* ---- decoding ---------------------------------------------------------- */

typedef struct record_reader {
  const unsigned char *bytes;
  size_t len;
  size_t pos;
  wn_diag *diag;
} record_reader;

static wn_err wn_record_take(record_reader *r, size_t n, const char *what,
                          const unsigned char **out) {
  if (r->len - r->pos < n)
    return wn_diag_set(r->diag, WN_ECORRUPT,
                       "store: record truncated: %s needs %zu bytes at offset %zu, %zu remain",
                       what, n, r->pos, r->len - r->pos);
  *out = r->bytes + r->pos;
  r->pos += n;
  return WN_OK;
}

static wn_err wn_record_u32(record_reader *r, const char *what, uint32_t *v) {
  const unsigned char *p = NULL;
  wn_err err = wn_record_take(r, 4, what, &p);
  if (!err)
    *v = wn_le32_get(p);
  return err;
}

static wn_err wn_record_u64(record_reader *r, const char *what, uint64_t *v) {
  const unsigned char *p = NULL;
  wn_err err = wn_record_take(r, 8, what, &p);
  if (!err)
    *v = wn_le64_get(p);
  return err;
}

/* Releases what a record owns, leaving it empty. */
static void wn_record_release(wn_store_record *record) {
  if (record->pages) {
    for (uint32_t i = 0; i < record->n_pages; i++)
      free(record->pages[i].name);
    free(record->pages);
  }
  free(record->template_bytes);
  free(record->key_page);
  memset(record, 0, sizeof *record);
}

/* Heap copy of len bytes plus a NUL, so text can be used as a C string. */
static unsigned char *wn_bytes_dup(const unsigned char *bytes, size_t len) {
  unsigned char *copy = malloc(len + 1);
  if (!copy)
    return NULL;
  if (len)
    memcpy(copy, bytes, len);
  copy[len] = '\0';
  return copy;
}

/* The version-2 learn section into rec (key_page copied only with copy). */
static wn_err wn_parse_learn_section(record_reader *r, int copy, wn_store_record *rec) {
  wn_diag *diag = r->diag;
  wn_store_learn_params *params = &rec->params;
  const unsigned char *p = NULL;
  uint32_t len;
  uint64_t u64;
  wn_err err;

  if ((err = wn_record_u32(r, "the key page length", &len)))
    return err;
  if (len > WN_STORE_MAX_PAGE_NAME)
    return wn_diag_set(diag, WN_ECORRUPT, "store: key page name of %u bytes is past the cap of %u",
                       (unsigned)len, WN_STORE_MAX_PAGE_NAME);
  if ((err = wn_record_take(r, len, "the key page name", &p)))
    return err;
  if (memchr(p, '\0', len))
    return wn_diag_set(diag, WN_ECORRUPT, "store: key page name contains a NUL byte");
  if (copy && len > 0) {
    rec->key_page = (char *)wn_bytes_dup(p, len);
    if (!rec->key_page)
      return wn_diag_set(diag, WN_ENOMEM, "store: out of memory decoding the key page name");
  }
  if ((err = wn_record_take(r, 3, "the learn flags", &p)))
    return err;
  if (p[0] > 1 || p[1] > 1)
    return wn_diag_set(diag, WN_ECORRUPT,
                       "store: learn flag from_url %u or by_domain %u is not 0 or 1",
                       (unsigned)p[0], (unsigned)p[1]);
  params->from_url = p[0];
  params->by_domain = p[1];
  params->selector = p[2];
  if ((err = wn_record_u32(r, "min_count", &params->min_count)) ||
      (err = wn_record_u32(r, "n", &params->n)) ||
      (err = wn_record_u32(r, "max_fetches", &params->max_fetches)) ||
      (err = wn_record_u64(r, "min_share", &u64)))
    return err;
  params->min_share = wn_double_from_bits(u64);
  if (!wn_min_share_valid(params->min_share))
    return wn_diag_set(diag, WN_ECORRUPT,
                       "store: learn parameter min_share (bits 0x%016llx) is not within 0 to 1",
                       (unsigned long long)u64);
  if ((err = wn_record_u32(r, "host_delay_ms", &params->host_delay_ms)) ||
      (err = wn_record_u32(r, "timeout_ms", &params->timeout_ms)) ||
      (err = wn_record_u64(r, "max_body_bytes", &params->max_body_bytes)) ||
      (err = wn_record_u32(r, "the user agent length", &len)))
    return err;
  if (len >= WN_STORE_MAX_USER_AGENT)
    return wn_diag_set(diag, WN_ECORRUPT, "store: user agent of %u bytes is past the cap of %u",
                       (unsigned)len, WN_STORE_MAX_USER_AGENT - 1);
  if ((err = wn_record_take(r, len, "the user agent", &p)))
    return err;
  if (memchr(p, '\0', len))
    return wn_diag_set(diag, WN_ECORRUPT, "store: user agent contains a NUL byte");
  memcpy(params->user_agent, p, len);
  params->user_agent[len] = '\0';
  return WN_OK;
}

/*
 * Parses and checks one whole record into *rec. With copy == 0 only the
 * scalar fields are filled and nothing is allocated (put uses this to read
 * the old generation without copying the template). With copy != 0 page
 * names and the template are copied into memory *rec owns. On failure *rec
 * owns nothing.
 */
wn_err wn_store_record_parse(const unsigned char *bytes, size_t len, int copy,
                             wn_store_record *rec, wn_diag *diag) {
  record_reader r = {bytes, len, 0, diag};
  const unsigned char *p = NULL;
  uint32_t u32;
  uint64_t u64;
  wn_err err;

  memset(rec, 0, sizeof *rec);
  if ((err = wn_record_take(&r, WN_STORE_MAGIC_LEN, "the magic", &p)))
    goto out;
  if (memcmp(p, WN_STORE_MAGIC, WN_STORE_MAGIC_LEN) != 0) {
    err = wn_diag_set(diag, WN_ECORRUPT, "store: record does not start with the %s magic",
                      WN_STORE_MAGIC);
    goto out;
  }
  if ((err = wn_record_u32(&r, "the format version", &rec->format_version)))
    goto out;
  if (rec->format_version < WN_STORE_FORMAT_VERSION_MIN ||
      rec->format_version > WN_STORE_FORMAT_VERSION) {
    err = wn_diag_set(diag, WN_EVERSION,
                      "store: record format version %u is not supported (this build reads %u "
                      "to %u)",
                      (unsigned)rec->format_version, WN_STORE_FORMAT_VERSION_MIN,
                      WN_STORE_FORMAT_VERSION);
    goto out;
  }

  if ((err = wn_record_u32(&r, "the algorithm length", &u32)))
    goto out;
  if (u32 >= WN_STORE_ALGORITHM_CAP) {
    err = wn_diag_set(diag, WN_ECORRUPT, "store: algorithm name of %u bytes is past the cap of %zu",
                      (unsigned)u32, WN_STORE_ALGORITHM_CAP - 1);
    goto out;
  }
  if ((err = wn_record_take(&r, u32, "the algorithm name", &p)))
    goto out;
  if (memchr(p, '\0', u32)) {
    err = wn_diag_set(diag, WN_ECORRUPT, "store: algorithm name contains a NUL byte");
    goto out;
  }
  memcpy(rec->algorithm, p, u32);
  rec->algorithm[u32] = '\0';

  if ((err = wn_record_u64(&r, "learned_at", &u64)))
    goto out;
  rec->learned_at = wn_i64_from_u64(u64);
  if ((err = wn_record_u64(&r, "the generation", &rec->generation)) ||
      (err = wn_record_u32(&r, "the page count", &u32)))
    goto out;
  if (u32 > WN_STORE_MAX_PAGES) {
    err = wn_diag_set(diag, WN_ECORRUPT, "store: record lists %u sample pages, past the cap of %u",
                      (unsigned)u32, WN_STORE_MAX_PAGES);
    goto out;
  }
  rec->n_pages = u32;
  if (copy && rec->n_pages > 0) {
    rec->pages = calloc(rec->n_pages, sizeof *rec->pages);
    if (!rec->pages) {
      err = wn_diag_set(diag, WN_ENOMEM, "store: out of memory decoding %u pages",
                        (unsigned)rec->n_pages);
      goto out;
    }
  }
  for (uint32_t i = 0; i < rec->n_pages; i++) {
    uint32_t name_len, status, fetch_ms;
    uint64_t page_bytes;
    if ((err = wn_record_u32(&r, "a page name length", &name_len)))
      goto out;
    if (name_len > WN_STORE_MAX_PAGE_NAME) {
      err = wn_diag_set(diag, WN_ECORRUPT,
                        "store: name of sample page %u is %u bytes, past the cap of %u",
                        (unsigned)i, (unsigned)name_len, WN_STORE_MAX_PAGE_NAME);
      goto out;
    }
    if ((err = wn_record_take(&r, name_len, "a page name", &p)))
      goto out;
    if (memchr(p, '\0', name_len)) {
      err = wn_diag_set(diag, WN_ECORRUPT, "store: name of sample page %u contains a NUL byte",
                        (unsigned)i);
      goto out;
    }
    if ((err = wn_record_u64(&r, "a page size", &page_bytes)) ||
        (err = wn_record_u32(&r, "a page HTTP status", &status)) ||
        (err = wn_record_u32(&r, "a page fetch time", &fetch_ms)))
      goto out;
    if (copy) {
      wn_store_page *page = &rec->pages[i];
      page->name = (char *)wn_bytes_dup(p, name_len);
      if (!page->name) {
        err = wn_diag_set(diag, WN_ENOMEM, "store: out of memory decoding a page name");
        goto out;
      }
      page->bytes = page_bytes;
      page->http_status = wn_i32_from_u32(status);
      page->fetch_ms = fetch_ms;
    }
  }

  if ((err = wn_record_u32(&r, "the page node count", &rec->page_nodes)) ||
      (err = wn_record_u32(&r, "the template node count", &rec->template_nodes)) ||
      (err = wn_record_u64(&r, "the template length", &u64)))
    goto out;
  if (u64 > WN_STORE_MAX_TEMPLATE) {
    err = wn_diag_set(diag, WN_ECORRUPT,
                      "store: template length %llu is past the cap of %zu bytes",
                      (unsigned long long)u64, WN_STORE_MAX_TEMPLATE);
    goto out;
  }
  rec->template_len = (size_t)u64;
  if ((err = wn_record_take(&r, rec->template_len, "the template", &p)))
    goto out;
  if (copy) {
    rec->template_bytes = wn_bytes_dup(p, rec->template_len);
    if (!rec->template_bytes) {
      err = wn_diag_set(diag, WN_ENOMEM, "store: out of memory copying a template of %zu bytes",
                        rec->template_len);
      goto out;
    }
  }

  if (rec->format_version >= 2 && (err = wn_parse_learn_section(&r, copy, rec)))
    goto out;

  const size_t body_len = r.pos;
  if ((err = wn_record_u32(&r, "the checksum", &u32)))
    goto out;
  if (r.pos != r.len) {
    err = wn_diag_set(diag, WN_ECORRUPT, "store: record has %zu trailing bytes after its checksum",
                      r.len - r.pos);
    goto out;
  }
  const uint32_t computed = wn_store_checksum(bytes, body_len);
  if (u32 != computed) {
    err = wn_diag_set(diag, WN_ECORRUPT,
                      "store: record checksum mismatch (stored 0x%08x, computed 0x%08x)",
                      (unsigned)u32, (unsigned)computed);
    goto out;
  }

out:
  if (err) {
    if (copy)
      wn_record_release(rec);
    else
      memset(rec, 0, sizeof *rec);
  }
  return err;
}

wn_err wn_store_record_decode(const void *bytes, size_t len, wn_store_record **out,
                              wn_diag *diag) {
  wn_err err = WN_OK;
  wn_store_record *rec = NULL;
  if (!out)
    return wn_diag_set(diag, WN_EINVAL, "store: decode needs somewhere to put the record");
  *out = NULL;
  if (!bytes && len > 0)
    return wn_diag_set(diag, WN_EINVAL, "store: decode of %zu bytes from NULL", len);
  rec = malloc(sizeof *rec);
  if (!rec)
    return wn_diag_set(diag, WN_ENOMEM, "store: out of memory decoding a record");
  /* A zero-length record is simply truncated; never hand NULL to memcmp. */
  static const unsigned char empty[1] = {0};
  err = wn_store_record_parse(bytes ? bytes : empty, len, 1, rec, diag);
  if (err)
    goto out;
  *out = rec;
  rec = NULL;
out:
  free(rec);
  return err;
}

void wn_store_record_free(wn_store_record *record) {
  if (!record)
    return;
  wn_record_release(record);
  free(record);
}

