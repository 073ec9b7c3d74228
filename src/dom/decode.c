/*
 * dom/decode.c: page bytes in any charset to NUL-terminated UTF-8.
 *
 * The charset is chosen in the order of the WHATWG HTML standard, "Determining
 * the character encoding" (HTML Living Standard, 13.2.3.2): a byte order mark,
 * the transport layer, a <meta> prescan ("prescan a byte stream to determine
 * its encoding"), then a guess (here uchardet). Labels map to encodings as in
 * the WHATWG Encoding standard, section 4.2 "Names and labels", so
 * ISO-8859-1 and US-ASCII decode as windows-1252, as browsers do.
 *
 * Unlike a browser we also overrule a declaration the bytes contradict (a
 * page that says UTF-8 but is not, or says Latin-1 but is valid UTF-8):
 * we only read pages, and a wrong declaration would garble every non-ASCII
 * character of the extracted text.
 *
 * Everything is per call (one iconv_t, one uchardet handle), so decoding is
 * thread-safe.
 */
#include "dom/dom.h"

#include <errno.h>
#include <iconv.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uchardet/uchardet.h>

#include "dom/charset.h"
#include "util/util.h"

/* uchardet sees at most this much; it settles long before on real pages,
 * and this bounds the work a huge page can cost the guess. */
#define WN_DECODE_GUESS_BYTES ((size_t)1024 * 1024)
/* iconv converts through a stack buffer of this size. */
#define WN_DECODE_CHUNK 16384u

static const char wn_replacement[3] = {'\xEF', '\xBF', '\xBD'}; /* U+FFFD */

/* ---- UTF-8 ---------------------------------------------------------------- */

/*
 * Length of the well-formed UTF-8 sequence at p (Unicode 15, Table 3-7:
 * no overlongs, no surrogates, nothing past U+10FFFF), or 0 when it is
 * ill-formed; then *bad is the length of its maximal subpart, the bytes
 * one U+FFFD replaces (Unicode 3.9 "U+FFFD Substitution of Maximal
 * Subparts", which is also what WHATWG's UTF-8 decoder does).
 */
static size_t wn_utf8_sequence(const unsigned char *p, size_t left, size_t *bad) {
  unsigned char c = p[0];
  if (c < 0x80)
    return 1;
  size_t need;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    need = 1;
  } else if (c >= 0xE0 && c <= 0xEF) {
    need = 2;
    if (c == 0xE0)
      lo = 0xA0;
    else if (c == 0xED)
      hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    need = 3;
    if (c == 0xF0)
      lo = 0x90;
    else if (c == 0xF4)
      hi = 0x8F;
  } else {
    *bad = 1;
    return 0;
  }
  size_t i = 1;
  for (; i <= need; i++) {
    if (i >= left)
      break;
    unsigned char b = p[i];
    if (i == 1 ? (b < lo || b > hi) : (b < 0x80 || b > 0xBF))
      break;
  }
  if (i > need)
    return need + 1;
  *bad = i;
  return 0;
}

/* The length of the run of ASCII bytes (below 0x80; with stop_at_nul, not
 * NUL either) at p, read eight at a time: most of a page is ASCII, and
 * the loops below look at it byte by byte only where it is not.
 * (v - 0x01..01) & ~v & 0x80..80 is nonzero iff a byte of v is zero. */
static size_t wn_ascii_run(const unsigned char *p, size_t len, int stop_at_nul) {
  const uint64_t high = UINT64_C(0x8080808080808080), ones = UINT64_C(0x0101010101010101);
  size_t i = 0;
  for (; len - i >= 8; i += 8) {
    uint64_t v;
    memcpy(&v, p + i, sizeof v);
    if ((v & high) || (stop_at_nul && ((v - ones) & ~v & high)))
      break;
  }
  while (i < len && p[i] < 0x80 && (p[i] || !stop_at_nul))
    i++;
  return i;
}

typedef struct wn_utf8_scan {
  int valid;     /* well-formed throughout (NUL counts as well-formed) */
  int multibyte; /* at least one sequence of two or more bytes */
  int whole;     /* valid, and no sequence cut off by the end */
} wn_utf8_scan;

/* Whether bytes are UTF-8, as evidence for choosing a charset. A sequence
 * cut off by the very end of a page that has shown multi-byte UTF-8 before
 * still counts as valid: fetchers cut pages at a byte cap, and one cut
 * character must not turn a whole UTF-8 page into windows-1252 (the
 * cleaner replaces it). */
static wn_utf8_scan wn_utf8_check(const unsigned char *p, size_t len) {
  wn_utf8_scan scan = {1, 0, 1};
  size_t i = 0;
  while (i < len) {
    if (p[i] < 0x80) {
      i += wn_ascii_run(p + i, len - i, 0);
      continue;
    }
    size_t bad = 0;
    size_t n = wn_utf8_sequence(p + i, len - i, &bad);
    if (n == 0) {
      int cut_off = scan.multibyte && p[i] >= 0xC2 && p[i] <= 0xF4 && bad == len - i;
      if (!cut_off)
        scan.valid = 0;
      scan.whole = 0;
      return scan;
    }
    scan.multibyte = 1;
    i += n;
  }
  return scan;
}

/*
 * Appends UTF-8 text, replacing ill-formed sequences and NUL bytes with
 * U+FFFD (the parser takes a NUL-terminated string). Well-formed runs are
 * appended whole.
 */
static wn_err wn_utf8_append_clean(wn_buf *out, const unsigned char *p, size_t len) {
  wn_err err = WN_OK;
  size_t run = 0, i = 0;
  while (i < len) {
    size_t skip = 0;
    if (p[i] == 0) {
      skip = 1;
    } else if (p[i] < 0x80) {
      i += wn_ascii_run(p + i, len - i, 1);
      continue;
    } else {
      size_t n = wn_utf8_sequence(p + i, len - i, &skip);
      if (n) {
        i += n;
        continue;
      }
    }
    if ((err = wn_buf_append(out, p + run, i - run)) != WN_OK)
      return err;
    if ((err = wn_buf_append(out, wn_replacement, sizeof wn_replacement)) != WN_OK)
      return err;
    i += skip;
    run = i;
  }
  return wn_buf_append(out, p + run, len - run);
}

/* ---- iconv ------------------------------------------------------------------ */

/*
 * Converts with iconv. An undecodable sequence (EILSEQ) or one cut off by
 * the end (EINVAL) becomes one U+FFFD for one code unit (four bytes in UTF-32, two in
 * UTF-16, else one), and decoding goes on. Output passes the UTF-8 cleaner
 * too, so a NUL in the input never reaches the parser.
 */
static wn_err wn_iconv_append(wn_buf *out, iconv_t cd, size_t unit, const char *bytes,
                              size_t len, wn_diag *diag) {
  wn_err err = WN_OK;
  char chunk[WN_DECODE_CHUNK];
  /* POSIX iconv takes char ** for historical reasons; it never writes
   * through the input pointer. */
  char *in = (char *)bytes;
  size_t in_left = len;
  int flushed = 0;
  while (!flushed) {
    char *outp = chunk;
    size_t out_left = sizeof chunk;
    size_t rc;
    if (in_left > 0) {
      rc = iconv(cd, &in, &in_left, &outp, &out_left);
    } else {
      /* Stateful charsets (ISO-2022-JP, windows-1258's combining marks)
       * may still hold a character. */
      rc = iconv(cd, NULL, NULL, &outp, &out_left);
      flushed = rc != (size_t)-1;
    }
    int saved = rc == (size_t)-1 ? errno : 0;
    err = wn_utf8_append_clean(out, (const unsigned char *)chunk, (size_t)(outp - chunk));
    if (err)
      goto out;
    if (saved == 0 || saved == E2BIG)
      continue;
    if ((saved == EILSEQ || saved == EINVAL) && in_left > 0) {
      size_t skip = unit < in_left ? unit : in_left;
      in += skip;
      in_left -= skip;
      err = wn_buf_append(out, wn_replacement, sizeof wn_replacement);
      if (err)
        goto out;
      continue;
    }
    err = wn_diag_set(diag, WN_ECHARSET, "decode: iconv failed: %s", strerror(saved));
    goto out;
  }
out:
  return err;
}

/*
 * A single-byte charset through a table of its 256 characters, each asked
 * of iconv once (so the mapping is iconv's, byte for byte, U+FFFD where it
 * has none and for NUL), instead of iconv over the whole page: one lookup
 * per byte, and ASCII copied in runs. Not for the charsets where iconv
 * joins a letter with the combining mark after it (WN_CS_COMPOSES).
 * Returns WN_ECHARSET, with nothing appended, when iconv does not map
 * some byte to one whole character; the caller then uses iconv itself.
 */
static wn_err wn_single_byte_append(wn_buf *out, iconv_t cd, const char *bytes, size_t len) {
  struct {
    uint8_t len;
    char utf8[3];
  } table[256];
  int ascii_same = 1;
  unsigned mapped = 0;
  for (unsigned b = 0; b < 256; b++) {
    char in_byte = (char)b, conv[8];
    char *in = &in_byte, *outp = conv;
    size_t in_left = 1, out_left = sizeof conv;
    iconv(cd, NULL, NULL, NULL, NULL);
    size_t rc = iconv(cd, &in, &in_left, &outp, &out_left);
    if (rc != (size_t)-1)
      rc = iconv(cd, NULL, NULL, &outp, &out_left);
    size_t n = (size_t)(outp - conv);
    if (rc == (size_t)-1 || b == 0) {
      if (rc == (size_t)-1 && errno != EILSEQ && errno != EINVAL)
        break;
      memcpy(conv, wn_replacement, sizeof wn_replacement);
      n = sizeof wn_replacement;
    } else if (n == 0 || n > sizeof table[0].utf8 || in_left != 0) {
      break;
    }
    table[b].len = (uint8_t)n;
    memcpy(table[b].utf8, conv, n);
    if (b > 0 && b < 0x80 && (n != 1 || (unsigned char)conv[0] != b))
      ascii_same = 0;
    mapped++;
  }
  iconv(cd, NULL, NULL, NULL, NULL); /* as it was, for iconv itself after a refusal */
  if (mapped < 256)
    return WN_ECHARSET;
  const unsigned char *p = (const unsigned char *)bytes;
  char chunk[WN_DECODE_CHUNK];
  size_t used = 0, i = 0;
  wn_err err = wn_buf_reserve(out, len + 1);
  while (!err && i < len) {
    size_t run = ascii_same ? wn_ascii_run(p + i, len - i, 1) : 0;
    if (run) {
      if (used && (err = wn_buf_append(out, chunk, used)) != WN_OK)
        break;
      used = 0;
      err = wn_buf_append(out, p + i, run);
      i += run;
      continue;
    }
    if (used + sizeof table[0].utf8 > sizeof chunk) {
      if ((err = wn_buf_append(out, chunk, used)) != WN_OK)
        break;
      used = 0;
    }
    memcpy(chunk + used, table[p[i]].utf8, table[p[i]].len);
    used += table[p[i]].len;
    i++;
  }
  if (!err && used)
    err = wn_buf_append(out, chunk, used);
  return err;
}

/* ---- guessing ------------------------------------------------------------- */

/*
 * Asks uchardet. Returns 1 with *choice set when it named a charset we can
 * decode; 0 when it had no answer (or one iconv cannot use), -1 when out of
 * memory.
 */
static int wn_guess(const char *bytes, size_t len, wn_charset_choice *choice) {
  uchardet_t ud = uchardet_new();
  if (!ud)
    return -1;
  int found = 0;
  size_t n = len < WN_DECODE_GUESS_BYTES ? len : WN_DECODE_GUESS_BYTES;
  if (uchardet_handle_data(ud, bytes, n) != 0) {
    found = -1;
    goto out;
  }
  uchardet_data_end(ud);
  const char *name = uchardet_get_charset(ud);
  if (name && name[0] != '\0')
    found = wn_dom_charset_resolve(name, strlen(name), choice);
out:
  uchardet_delete(ud);
  return found;
}

static void wn_choose_windows_1252(wn_charset_choice *choice) {
  wn_dom_charset_reset(choice);
  /* Part of glibc's standard set; if it were missing, the cleaner below
   * still yields valid UTF-8 with U+FFFD for every non-ASCII byte. */
  if (!wn_dom_charset_resolve("windows-1252", 12, choice))
    wn_dom_charset_utf8(choice);
}

/* ---- the public functions -------------------------------------------------- */

const char *wn_charset_source_name(wn_charset_source source) {
  switch (source) {
  case WN_CHARSET_BOM:
    return "bom";
  case WN_CHARSET_TRANSPORT:
    return "transport";
  case WN_CHARSET_META:
    return "meta";
  case WN_CHARSET_GUESS:
    return "guess";
  case WN_CHARSET_DEFAULT:
    return "default";
  }
  return "unknown";
}

void wn_dom_decoded_free(wn_dom_decoded *decoded) {
  if (!decoded)
    return;
  free(decoded->utf8);
  memset(decoded, 0, sizeof *decoded);
}

/*
 * Chooses the charset (HTML Living Standard 13.2.3.2, "determining the
 * character encoding", with our overruling of contradicted declarations).
 * Moves *bytes past a byte order mark.
 */
static wn_err wn_charset_choose(const char **bytes, size_t *len, const char *transport_charset,
                                wn_charset_choice *choice, wn_charset_source *source,
                                int *utf8_whole, wn_diag *diag) {
  const unsigned char *u = (const unsigned char *)*bytes;
  /* A byte order mark wins over everything and is not content. */
  if (*len >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF) {
    wn_dom_charset_utf8(choice);
    *bytes += 3;
    *len -= 3;
    *source = WN_CHARSET_BOM;
    return WN_OK;
  }
  /* UTF-32's marks first: FF FE 00 00 also starts like UTF-16LE's. */
  if (*len >= 4 && ((u[0] == 0xFF && u[1] == 0xFE && u[2] == 0 && u[3] == 0) ||
                    (u[0] == 0 && u[1] == 0 && u[2] == 0xFE && u[3] == 0xFF))) {
    if (wn_dom_charset_encoding(u[0] == 0xFF ? WN_ENC_UTF32LE : WN_ENC_UTF32BE, choice)) {
      *bytes += 4;
      *len -= 4;
      *source = WN_CHARSET_BOM;
      return WN_OK;
    }
  }
  if (*len >= 2 && ((u[0] == 0xFF && u[1] == 0xFE) || (u[0] == 0xFE && u[1] == 0xFF))) {
    const char *label = u[0] == 0xFF ? "utf-16le" : "utf-16be";
    if (wn_dom_charset_resolve(label, strlen(label), choice)) {
      *bytes += 2;
      *len -= 2;
      *source = WN_CHARSET_BOM;
      return WN_OK;
    }
  }

  /* UTF-16 or UTF-32 without a mark: the zero bytes of ASCII characters
   * tell, where a single-byte guess would make mojibake of every
   * character (uchardet reads "<\0h\0t\0" as gb18030). A transport
   * declaration of the same encoding is still reported as such. */
  int wide = wn_dom_sniff_wide(u, *len);
  if (wide >= 0 && wn_dom_charset_encoding(wide, choice)) {
    wn_charset_choice declared_wide = {.name = "", .flags = 0, .cd = WN_NO_ICONV};
    *source = WN_CHARSET_GUESS;
    if (transport_charset &&
        wn_dom_charset_resolve(transport_charset,
                           strnlen(transport_charset, WN_DECODE_TRANSPORT_MAX), &declared_wide) &&
        strcmp(declared_wide.name, choice->name) == 0)
      *source = WN_CHARSET_TRANSPORT;
    wn_dom_charset_reset(&declared_wide);
    return WN_OK;
  }

  /* A declaration: the transport layer's, else a <meta>. */
  int declared = 0;
  if (transport_charset &&
      wn_dom_charset_resolve(transport_charset, strnlen(transport_charset, WN_DECODE_TRANSPORT_MAX),
                         choice)) {
    *source = WN_CHARSET_TRANSPORT;
    declared = 1;
  } else if (wn_dom_charset_prescan(*bytes, *len, choice)) {
    *source = WN_CHARSET_META;
    declared = 1;
  }

  wn_utf8_scan scan = wn_utf8_check((const unsigned char *)*bytes, *len);
  *utf8_whole = scan.whole;
  int contradicted = 0;
  if (declared && (choice->flags & WN_CS_UTF8) && !scan.valid) {
    contradicted = 1;
  } else if (declared && (choice->flags & WN_CS_SINGLE_BYTE) && scan.valid && scan.multibyte) {
    /* Valid multi-byte UTF-8 is all but impossible in real single-byte
     * text (it needs an accented capital or a symbol followed by exactly
     * the right number of C1 bytes): the page lies about its charset. */
    wn_dom_charset_utf8(choice);
    *source = WN_CHARSET_GUESS;
    return WN_OK;
  } else if (declared) {
    return WN_OK;
  }

  /* Nothing usable declared, or a declared UTF-8 that is not: guess.
   * Valid UTF-8 needs no guessing; pure ASCII is UTF-8 by default. */
  if (scan.valid) {
    wn_dom_charset_utf8(choice);
    *source = scan.multibyte ? WN_CHARSET_GUESS : WN_CHARSET_DEFAULT;
    return WN_OK;
  }
  int found = wn_guess(*bytes, *len, choice);
  if (found < 0)
    return wn_diag_set(diag, WN_ENOMEM, "decode: out of memory in the charset guess");
  /* uchardet may well say UTF-8, even for a page that declared UTF-8 and
   * failed the strict check: it tolerates a few stray bytes in a UTF-8
   * page, and the cleaner then replaces just those. */
  if (found) {
    *source = WN_CHARSET_GUESS;
  } else {
    wn_choose_windows_1252(choice);
    *source = contradicted ? WN_CHARSET_GUESS : WN_CHARSET_DEFAULT;
  }
  return WN_OK;
}

wn_err wn_dom_decode(const char *bytes, size_t len, const char *transport_charset,
                     size_t max_bytes, wn_dom_decoded *out, wn_diag *diag) {
  wn_err err = WN_OK;
  wn_charset_choice choice = {.name = "", .flags = 0, .cd = WN_NO_ICONV};
  wn_charset_source source = WN_CHARSET_DEFAULT;
  size_t cap = max_bytes ? max_bytes : WN_DOM_DEFAULT_MAX_BYTES;
  wn_buf buf;
  wn_buf_init(&buf, cap);

  if (!out)
    return wn_diag_set(diag, WN_EINVAL, "decode: no output given");
  memset(out, 0, sizeof *out);
  if (!bytes && len > 0)
    return wn_diag_set(diag, WN_EINVAL, "decode: %zu bytes given as NULL", len);
  if (!bytes)
    bytes = "";

  int utf8_whole = 0; /* the bytes were checked: UTF-8 without a flaw */
  err = wn_charset_choose(&bytes, &len, transport_charset, &choice, &source, &utf8_whole, diag);
  if (err)
    goto out;

  if (choice.cd == WN_NO_ICONV) {
    err = wn_buf_reserve(&buf, len + 1);
    if (!err && utf8_whole && !memchr(bytes, 0, len))
      err = wn_buf_append(&buf, bytes, len); /* nothing for the cleaner to do */
    else if (!err)
      err = wn_utf8_append_clean(&buf, (const unsigned char *)bytes, len);
  } else if ((choice.flags & WN_CS_SINGLE_BYTE) && !(choice.flags & WN_CS_COMPOSES) &&
             (err = wn_single_byte_append(&buf, choice.cd, bytes, len)) != WN_ECHARSET) {
    /* done, or failed */
  } else
    err = wn_iconv_append(&buf, choice.cd,
                          (choice.flags & WN_CS_UTF32)   ? 4
                          : (choice.flags & WN_CS_UTF16) ? 2
                                                         : 1,
                          bytes, len, diag);
  if (err == WN_ETOOBIG) {
    wn_diag_set(diag, err, "decode: page is larger than the cap of %zu bytes once decoded from %s",
                cap, choice.name);
    goto out;
  }
  if (err) {
    wn_diag_set(diag, err, "decode: %s while decoding from %s", wn_strerror(err), choice.name);
    goto out;
  }

  out->utf8 = wn_buf_take(&buf, &out->len);
  if (!out->utf8) {
    err = wn_diag_set(diag, WN_ENOMEM, "decode: out of memory");
    goto out;
  }
  snprintf(out->charset, sizeof out->charset, "%s", choice.name);
  out->source = source;
out:
  wn_dom_charset_reset(&choice);
  wn_buf_free(&buf);
  return err;
}
