/*
 * dom/charset.h: what the charset files of src/dom share (not part of
 * dom.h):
 *
 *   labels.c   charset labels to encodings (WHATWG Encoding 4.2), a
 *              choice's iconv descriptor
 *   decode.c   bytes to UTF-8: the order of the choice (WHATWG HTML
 *              13.2.3.2), UTF-8 checks, iconv, the guess
 *   prescan.c  the <meta> prescan of that order
 *   sniff.c    bytes that are no HTML page at all (binary input), and
 *              UTF-16/32 told by where their zero bytes fall
 */
#ifndef WN_DOM_CHARSET_H
#define WN_DOM_CHARSET_H

#include <iconv.h>
#include <stddef.h>

/* Longest charset label we take from a page or caller, and how much of a
 * caller's string we read looking for it (labels may come padded). */
#define WN_DECODE_LABEL_MAX 40u
#define WN_DECODE_TRANSPORT_MAX 256u
/* The <meta> prescan looks at this many bytes (WHATWG says 1024; pages with
 * long <head> preambles put the declaration later, so we look further). */
#define WN_DECODE_PRESCAN_BYTES 4096u

/* Labels (WHATWG Encoding, 4.2 "Names and labels"): flags of an encoding. */
#define WN_CS_SINGLE_BYTE 0x01u /* every byte is one character */
#define WN_CS_UTF8 0x02u        /* decoded by our own UTF-8 pass, not iconv */
#define WN_CS_UTF16 0x04u       /* two-byte code units */
#define WN_CS_UTF32 0x08u       /* four-byte code units */
#define WN_CS_COMPOSES 0x10u    /* single-byte, but iconv joins a letter and its
                                   combining mark into one character */

/* The encodings we decode, by index (labels.c's table). */
enum {
  WN_ENC_UTF8, WN_ENC_IBM866, WN_ENC_ISO8859_2, WN_ENC_ISO8859_3,
  WN_ENC_ISO8859_4, WN_ENC_ISO8859_5, WN_ENC_ISO8859_6, WN_ENC_ISO8859_7,
  WN_ENC_ISO8859_8, WN_ENC_ISO8859_8I, WN_ENC_ISO8859_10, WN_ENC_ISO8859_13,
  WN_ENC_ISO8859_14, WN_ENC_ISO8859_15, WN_ENC_ISO8859_16, WN_ENC_KOI8R,
  WN_ENC_KOI8U, WN_ENC_MACINTOSH, WN_ENC_WIN874, WN_ENC_WIN1250,
  WN_ENC_WIN1251, WN_ENC_WIN1252, WN_ENC_WIN1253, WN_ENC_WIN1254,
  WN_ENC_WIN1255, WN_ENC_WIN1256, WN_ENC_WIN1257, WN_ENC_WIN1258,
  WN_ENC_MACCYRILLIC, WN_ENC_GBK, WN_ENC_GB18030, WN_ENC_BIG5, WN_ENC_EUCJP,
  WN_ENC_ISO2022JP, WN_ENC_SHIFTJIS, WN_ENC_EUCKR, WN_ENC_UTF16BE,
  WN_ENC_UTF16LE, WN_ENC_UTF32BE, WN_ENC_UTF32LE, WN_ENC_COUNT
};

/* A charset we decided on: what we report and how we convert. */
typedef struct wn_charset_choice {
  char name[48];
  unsigned flags;
  iconv_t cd; /* (iconv_t)-1 for UTF-8, which we decode ourselves */
} wn_charset_choice;

/* No converter: UTF-8, which decode.c checks itself. */
#define WN_NO_ICONV ((iconv_t)-1)

/* Resolves a label (labels.c): 1 with *choice filled (its iconv descriptor
 * open) when it names a charset we can decode, else 0. */
int wn_dom_charset_resolve(const char *label, size_t len, wn_charset_choice *choice);
/* Closes choice's converter and empties it. */
void wn_dom_charset_reset(wn_charset_choice *choice);
/* Sets choice to UTF-8. */
void wn_dom_charset_utf8(wn_charset_choice *choice);
/* Sets choice to encoding index (WN_ENC_*), its converter opened: 1, or 0
 * when iconv lacks it (choice unchanged). */
int wn_dom_charset_encoding(int index, wn_charset_choice *choice);
/* The <meta> prescan (prescan.c): 1 with *choice set when the first
 * WN_DECODE_PRESCAN_BYTES declare a charset we can decode. */
int wn_dom_charset_prescan(const char *s, size_t len, wn_charset_choice *choice);
/* UTF-16 or UTF-32 without a byte order mark (sniff.c): WN_ENC_UTF16LE/BE
 * or WN_ENC_UTF32LE/BE, or -1. */
int wn_dom_sniff_wide(const unsigned char *u, size_t len);

#endif /* WN_DOM_CHARSET_H */
