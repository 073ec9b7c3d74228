/*
 * dom/sniff.c: bytes that are no HTML page (an image, a PDF, an archive,
 * binary data), refused before decoding (wn_dom_sniff), and UTF-16 or
 * UTF-32 text without a byte order mark, told by its zero bytes.
 */
#include "dom/charset.h"

#include <string.h>

#include "dom/dom.h"
#include "util/util.h"

/* Binary sniffing looks at this many bytes, as the WHATWG MIME Sniffing
 * standard's "resource header" does (section 7.1: up to 1445 bytes; its
 * binary-data rule, 7.2, reads the same header). */
#define WN_SNIFF_BYTES 1024u
/* NUL bytes in text: a stray one happens (a broken CMS, a padded file);
 * a share of 1% is no text. */
#define WN_SNIFF_MAX_NUL_PERCENT 1u
/* C0 control bytes other than the white space HTML knows (TAB, LF, VT,
 * FF, CR) and ESC (ISO-2022-JP's shifts): random or compressed bytes hold
 * about 10%, text next to none. */
#define WN_SNIFF_MAX_CONTROL_PERCENT 5u

/*
 * UTF-16 or UTF-32 text without a byte order mark, told by where the zero
 * bytes fall: HTML is mostly ASCII markup, and an ASCII character is one
 * byte and one (UTF-16) or three (UTF-32) zero bytes, always at the same
 * place in its code unit. Returns WN_ENC_UTF16LE/BE or WN_ENC_UTF32LE/BE,
 * or -1 when the first WN_SNIFF_BYTES bytes do not look like one.
 */
int wn_dom_sniff_wide(const unsigned char *u, size_t len) {
  size_t n = len < WN_SNIFF_BYTES ? len : WN_SNIFF_BYTES;
  n -= n % 4;
  if (n < 8)
    return -1;
  size_t zero[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < n; i++)
    zero[i % 4] += u[i] == 0;
  size_t units4 = n / 4, units2 = n / 2;
  /* UTF-32: the top byte of every code unit is zero (Unicode ends at
   * U+10FFFF) and the next one nearly always (the BMP); the low byte of an
   * ASCII-heavy text is not. */
  if (zero[3] * 10 >= units4 * 9 && zero[2] * 10 >= units4 * 9 && zero[0] * 2 < units4)
    return WN_ENC_UTF32LE;
  if (zero[0] * 10 >= units4 * 9 && zero[1] * 10 >= units4 * 9 && zero[3] * 2 < units4)
    return WN_ENC_UTF32BE;
  /* UTF-16: a third of the code units or more are ASCII (high byte zero),
   * and hardly any low byte is zero. */
  size_t odd = zero[1] + zero[3], even = zero[0] + zero[2];
  if (odd * 3 >= units2 && even * 20 <= odd)
    return WN_ENC_UTF16LE;
  if (even * 3 >= units2 && odd * 20 <= even)
    return WN_ENC_UTF16BE;
  return -1;
}

typedef struct wn_magic {
  const char *prefix; /* must start the bytes too, NULL if nothing */
  size_t offset;      /* where `bytes` sit */
  const char *bytes;
  size_t len;
  const char *what;   /* NULL: a two-letter signature (see below) */
} wn_magic;

/* File signatures of what a server hands out instead of a page: a body
 * still compressed (a Content-Encoding lost on the way), a download, an
 * image. From the WHATWG MIME Sniffing standard (6.1 images, 6.2 audio and
 * video, 7.1 archives and PDF) and the formats' own specifications. */
#define WN_MAGIC(offset, bytes, what) {NULL, offset, bytes, sizeof bytes - 1, what}
#define WN_MAGIC_AFTER(prefix, offset, bytes, what) {prefix, offset, bytes, sizeof bytes - 1, what}
static const wn_magic wn_magics[] = {
    WN_MAGIC(0, "\x1F\x8B\x08", "gzip data"),
    WN_MAGIC_AFTER("BZh", 4, "1AY&SY", "bzip2 data"), /* "BZh" level, block magic */
    WN_MAGIC(0, "\xFD" "7zXZ\x00", "xz data"),
    WN_MAGIC(0, "\x28\xB5\x2F\xFD", "zstd data"),
    WN_MAGIC(0, "7z\xBC\xAF\x27\x1C", "7-Zip archive"),
    WN_MAGIC(0, "PK\x03\x04", "ZIP archive"),
    WN_MAGIC(0, "PK\x05\x06", "ZIP archive"),
    WN_MAGIC(0, "Rar!\x1A\x07", "RAR archive"),
    WN_MAGIC(0, "%PDF-", "PDF document"),
    WN_MAGIC(0, "%!PS-Adobe-", "PostScript document"),
    WN_MAGIC(0, "\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1", "OLE compound document (MS Office)"),
    WN_MAGIC(0, "GIF87a", "GIF image"),
    WN_MAGIC(0, "GIF89a", "GIF image"),
    WN_MAGIC(0, "\x89PNG\r\n\x1A\n", "PNG image"),
    WN_MAGIC(0, "\xFF\xD8\xFF", "JPEG image"),
    WN_MAGIC_AFTER("RIFF", 8, "WEBP", "WebP image"), /* "RIFF", a length, the type */
    WN_MAGIC_AFTER("RIFF", 8, "WAVE", "WAVE audio"),
    WN_MAGIC_AFTER("RIFF", 8, "AVI ", "AVI video"),
    WN_MAGIC(0, "BM", NULL),           /* BMP: too short alone, see below */
    WN_MAGIC(0, "\x00\x00\x01\x00", "ICO image"),
    WN_MAGIC(4, "ftyp", "MP4/QuickTime media"),
    WN_MAGIC(0, "\x1A\x45\xDF\xA3", "Matroska/WebM media"),
    WN_MAGIC(0, "OggS\x00", "Ogg media"),
    WN_MAGIC(0, "ID3", "MP3 audio"),
    WN_MAGIC(0, "fLaC", "FLAC audio"),
    WN_MAGIC(0, "wOFF", "WOFF font"),
    WN_MAGIC(0, "wOF2", "WOFF2 font"),
    WN_MAGIC(0, "\x7F" "ELF", "ELF executable"),
    WN_MAGIC(0, "MZ", NULL),           /* DOS/Windows executable: see below */
    WN_MAGIC(0, "\x00" "asm", "WebAssembly module"),
    WN_MAGIC(0, "SQLite format 3\x00", "SQLite database"),
};

/* What a known file signature at the start of the bytes says, or NULL. */
static const char *wn_sniff_magic(const unsigned char *u, size_t len) {
  for (size_t i = 0; i < sizeof wn_magics / sizeof wn_magics[0]; i++) {
    const wn_magic *m = &wn_magics[i];
    if (len < m->offset + m->len || memcmp(u + m->offset, m->bytes, m->len) != 0)
      continue;
    if (m->prefix && memcmp(u, m->prefix, strlen(m->prefix)) != 0)
      continue; /* the prefix ends before offset: len covers it */
    if (m->what)
      return m->what;
    /* Two-letter signatures are also how some text starts ("BMW...",
     * "MZ..."): taken only with a C0 control byte or NUL among the next
     * few bytes, which text does not have. */
    for (size_t k = 2; k < 16 && k < len; k++)
      if (u[k] < 0x09 || (u[k] > 0x0D && u[k] < 0x20))
        return u[0] == 'B' ? "BMP image" : "DOS/Windows executable";
  }
  return NULL;
}

wn_err wn_dom_sniff(const char *bytes, size_t len, const char *transport_charset,
                    wn_diag *diag) {
  if (!bytes || len == 0)
    return WN_OK;
  const unsigned char *u = (const unsigned char *)bytes;
  const char *what = wn_sniff_magic(u, len);
  if (what)
    return wn_diag_set(diag, WN_ENOTHTML, "not an HTML page: %s", what);
  /* A byte order mark, or zero bytes where UTF-16 or UTF-32 put them:
   * text whose code units may hold any byte. */
  if ((len >= 3 && u[0] == 0xEF && u[1] == 0xBB && u[2] == 0xBF) ||
      (len >= 2 && ((u[0] == 0xFF && u[1] == 0xFE) || (u[0] == 0xFE && u[1] == 0xFF))) ||
      (len >= 4 && u[0] == 0 && u[1] == 0 && u[2] == 0xFE && u[3] == 0xFF) ||
      wn_dom_sniff_wide(u, len) >= 0)
    return WN_OK;
  size_t n = len < WN_SNIFF_BYTES ? len : WN_SNIFF_BYTES;
  size_t nul = 0, control = 0;
  for (size_t i = 0; i < n; i++) {
    nul += u[i] == 0;
    control += u[i] < 0x20 && (u[i] < 0x09 || u[i] > 0x0D) && u[i] != 0x1B;
  }
  if (nul > 0 && nul * 100 >= n * WN_SNIFF_MAX_NUL_PERCENT)
    return wn_diag_set(diag, WN_ENOTHTML,
                       "not an HTML page: binary data (NUL bytes: %zu in the first %zu)", nul,
                       n);
  if (control * 100 < n * WN_SNIFF_MAX_CONTROL_PERCENT)
    return WN_OK;
  /* A declared UTF-16 (CJK text, no ASCII to show its zeros) may hold
   * any byte in its code units. */
  wn_charset_choice declared = {.name = "", .flags = 0, .cd = WN_NO_ICONV};
  int wide = transport_charset &&
             wn_dom_charset_resolve(transport_charset,
                                strnlen(transport_charset, WN_DECODE_TRANSPORT_MAX), &declared) &&
             (declared.flags & (WN_CS_UTF16 | WN_CS_UTF32));
  wn_dom_charset_reset(&declared);
  if (wide)
    return WN_OK;
  return wn_diag_set(diag, WN_ENOTHTML,
                     "not an HTML page: binary data (control bytes: %zu in the first %zu)",
                     control, n);
}
