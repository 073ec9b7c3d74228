/*
 * dom/text.c: text as the tree keeps it (white space collapsed, soft
 * hyphens gone, Unicode NFC) and the node signatures the ETDM compares
 * (node equality on tag, id and class; text by its shape).
 */
#include "dom/dom.h"
#include "dom/dom_int.h"

#include <stdint.h>
#include <string.h>
#include <utf8proc.h>

static int wn_is_space(const unsigned char *p, size_t left, size_t *width) {
  if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\f' || *p == '\v') {
    *width = 1;
    return 1;
  }
  if (left >= 2 && p[0] == 0xC2 && p[1] == 0xA0) { /* U+00A0 no-break space */
    *width = 2;
    return 1;
  }
  *width = 1;
  return 0;
}

/* Text in Unicode's canonical composition (NFC). One text can be written
 * as several code point sequences (a letter and its combining accent, or
 * the precomposed letter; a Bengali consonant with its nukta, or the
 * character that is both); a reader sees one text, and so must a search
 * index, a deduplicator or a comparison with text written elsewhere.
 * Most text is in NFC already and most code points cannot change under
 * it: below U+0300 nothing does, and above it only a code point that
 * combines (a non-zero combining class, or one the composition table
 * holds), has a canonical decomposition or is excluded from composition,
 * and the conjoining Hangul jamo (composed by rule, not by the table).
 * Only text holding one of those is normalized (utf8proc). */
static int wn_nfc_may_change(const char *s, size_t n) {
  const utf8proc_uint8_t *p = (const utf8proc_uint8_t *)s;
  size_t i = 0;
  while (i < n) {
    if (p[i] < 0xCC) { /* ASCII and the leads of U+0080..U+02FF */
      i += p[i] < 0x80 ? 1 : 2;
      continue;
    }
    utf8proc_int32_t cp = 0;
    utf8proc_ssize_t w = utf8proc_iterate(p + i, (utf8proc_ssize_t)(n - i), &cp);
    if (w <= 0)
      return 0; /* not UTF-8: left as it is */
    i += (size_t)w;
    if (cp < 0x300)
      continue;
    if (cp >= 0x1100 && cp <= 0x11FF)
      return 1;
    const utf8proc_property_t *pr = utf8proc_get_property(cp);
    if (pr->combining_class || pr->comp_exclusion || pr->comb_index != UINT16_MAX ||
        (pr->decomp_seqindex != UINT16_MAX && pr->decomp_type == 0))
      return 1;
  }
  return 0;
}

/* out[0..*n) (arena memory, cap bytes) in NFC; a longer result goes to a
 * new arena block. */
static char *wn_nfc(wn_arena *arena, char *out, size_t cap, uint32_t *n, int *oom) {
  if (!wn_nfc_may_change(out, *n))
    return out;
  utf8proc_uint8_t *d = NULL;
  utf8proc_ssize_t m = utf8proc_map((const utf8proc_uint8_t *)out, (utf8proc_ssize_t)*n, &d,
                                    UTF8PROC_STABLE | UTF8PROC_COMPOSE);
  if (m == UTF8PROC_ERROR_NOMEM) {
    *oom = 1;
    return out;
  }
  if (m < 0 || (size_t)m > UINT32_MAX - 1) {
    free(d); /* invalid UTF-8 (or absurdly long): left as it is */
    return out;
  }
  char *to = out;
  if ((size_t)m + 1 > cap && !(to = wn_arena_alloc(arena, (size_t)m + 1))) {
    free(d);
    *oom = 1;
    return out;
  }
  memcpy(to, d, (size_t)m);
  to[m] = '\0';
  *n = (uint32_t)m;
  free(d);
  return to;
}

/* Collapses runs of white space to one space and trims both ends. Returns
 * NULL for white-space-only text (not a node of ours). *edges gets
 * WN_DOM_SPACE_BEFORE / WN_DOM_SPACE_AFTER for what was trimmed: text
 * output needs it to join inline elements as a browser does. Soft hyphens
 * (U+00AD) go: they are hints where a line may break, shown only there,
 * and a word written "Mit&shy;tel&shy;al&shy;ter" is one word to a reader
 * and to a search index. The text is returned in NFC (wn_nfc). */
char *wn_dom_collapse(wn_arena *arena, const char *text, uint32_t *out_len, uint8_t *edges,
                      int *oom) {
  size_t len = strlen(text);
  const unsigned char *p = (const unsigned char *)text;
  size_t i = 0, width = 1, n = 0;
  *edges = 0;
  while (i < len && wn_is_space(p + i, len - i, &width))
    i += width;
  if (i == len)
    return NULL;
  if (i > 0)
    *edges |= WN_DOM_SPACE_BEFORE;
  const size_t start = i;
  if (len - i > UINT32_MAX - 1) {
    *oom = 1;
    return NULL;
  }
  char *out = wn_arena_alloc(arena, len - i + 1);
  if (!out) {
    *oom = 1;
    return NULL;
  }
  int pending_space = 0;
  unsigned high = 0; /* any byte of a non-ASCII character kept */
  while (i < len) {
    if (wn_is_space(p + i, len - i, &width)) {
      pending_space = 1;
      i += width;
      continue;
    }
    if (p[i] == 0xC2 && i + 1 < len && p[i + 1] == 0xAD) {
      i += 2;
      continue;
    }
    if (pending_space) {
      if (n > 0)
        out[n++] = ' ';
      else
        *edges |= WN_DOM_SPACE_BEFORE; /* white space after a leading soft hyphen */
      pending_space = 0;
    }
    /* This byte, and the run after it of bytes that are neither white
     * space nor the lead of a no-break space or soft hyphen, copied whole. */
    size_t j = i;
    do
      high |= p[j++];
    while (j < len && p[j] > ' ' && p[j] != 0xC2);
    memcpy(out + n, p + i, j - i);
    n += j - i;
    i = j;
  }
  if (n == 0) {
    if (*edges == 0 && !pending_space)
      *edges = WN_DOM_COLLAPSE_HIDDEN; /* soft hyphens only: no text, and no space either */
    return NULL;
  }
  if (pending_space)
    *edges |= WN_DOM_SPACE_AFTER;
  out[n] = '\0';
  *out_len = (uint32_t)n;
  if (!(high & 0x80))
    return out; /* ASCII is in NFC */
  return wn_nfc(arena, out, len - start + 1, out_len, oom);
}

/* Hash of a string with runs of digits folded to one '0': article ids,
 * dates and counters in ids, classes and text vary between pages built
 * from one template. */
static uint64_t wn_hash_shape(uint64_t h, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    unsigned char c = *p++;
    if (wn_ascii_digit(c)) {
      while (wn_ascii_digit(*p))
        p++;
      c = '0';
    }
    h ^= c;
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}

/* An id that looks like a URL or a path (generated per page) counts only by
 * its shape. */
static int wn_is_url_like(const char *s) {
  return strstr(s, "://") != NULL || strchr(s, '/') != NULL || strchr(s, '?') != NULL;
}

uint64_t wn_dom_element_sig(const char *name, const char *id, const char *cls) {
  uint64_t h = wn_hash_bytes(WN_HASH_SEED, "<", 1);
  h = wn_hash_bytes(h, name, strlen(name));
  h = wn_hash_bytes(h, "#", 1);
  if (id)
    h = wn_is_url_like(id) ? wn_hash_bytes(h, "url", 3) : wn_hash_shape(h, id);
  h = wn_hash_bytes(h, ".", 1);
  if (cls)
    h = wn_hash_shape(h, cls);
  return h;
}

uint64_t wn_dom_text_sig(const char *text) {
  return wn_hash_shape(wn_hash_bytes(WN_HASH_SEED, "\"", 1), text);
}
