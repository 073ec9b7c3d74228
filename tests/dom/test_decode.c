/* tests/dom/test_decode.c: charset detection and decoding to UTF-8.
 * The pages under tests/fixtures/charset/ come from make_fixtures.py
 * there, so their bytes are exact. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <errno.h>
#include <iconv.h>

#include "dom/dom.h"

#ifndef WN_FIXTURES
#define WN_FIXTURES "tests/fixtures"
#endif

#define FFFD "\xEF\xBF\xBD"

static char *load(const char *name, size_t *len) {
  char path[512];
  int n = snprintf(path, sizeof path, "%s/charset/%s", WN_FIXTURES, name);
  assert_true(n > 0 && (size_t)n < sizeof path);
  char *data = NULL;
  wn_diag diag;
  wn_diag_clear(&diag);
  wn_err err = wn_file_read(path, 1u << 20, &data, len, &diag);
  if (err)
    fail_msg("cannot read %s: %s", path, wn_diag_message(&diag, err));
  return data;
}

/* Decodes a fixture and checks the call succeeded. */
static void decode_fixture(const char *name, const char *transport, wn_dom_decoded *out) {
  size_t len = 0;
  char *bytes = load(name, &len);
  wn_diag diag;
  wn_diag_clear(&diag);
  wn_err err = wn_dom_decode(bytes, len, transport, 0, out, &diag);
  free(bytes);
  if (err)
    fail_msg("decode %s: %s", name, wn_diag_message(&diag, err));
  assert_non_null(out->utf8);
  assert_int_equal(strlen(out->utf8), out->len);
}

/* Well-formed UTF-8 (Unicode Table 3-7), written apart from decode.c's
 * own check so one bug cannot hide the other. */
static int utf8_valid(const char *s, size_t len) {
  const unsigned char *p = (const unsigned char *)s;
  size_t i = 0;
  while (i < len) {
    uint32_t cp;
    size_t n;
    if (p[i] < 0x80) {
      i++;
      continue;
    } else if ((p[i] & 0xE0) == 0xC0) {
      cp = p[i] & 0x1Fu, n = 2;
    } else if ((p[i] & 0xF0) == 0xE0) {
      cp = p[i] & 0x0Fu, n = 3;
    } else if ((p[i] & 0xF8) == 0xF0) {
      cp = p[i] & 0x07u, n = 4;
    } else {
      return 0;
    }
    if (i + n > len)
      return 0;
    for (size_t k = 1; k < n; k++) {
      if ((p[i + k] & 0xC0) != 0x80)
        return 0;
      cp = (cp << 6) | (p[i + k] & 0x3Fu);
    }
    static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
      return 0;
    i += n;
  }
  return 1;
}

static void assert_contains(const wn_dom_decoded *d, const char *needle) {
  if (!strstr(d->utf8, needle))
    fail_msg("expected \"%s\" in output (charset %s, source %s):\n%s", needle, d->charset,
             wn_charset_source_name(d->source), d->utf8);
}

/* ---- declared and true -------------------------------------------------- */

static void test_utf8_meta(void **state) {
  (void)state;
  size_t len = 0;
  char *bytes = load("utf8_meta.html", &len);
  wn_dom_decoded d;
  assert_int_equal(wn_dom_decode(bytes, len, NULL, 0, &d, NULL), WN_OK);
  /* Already clean UTF-8: the output is the input, byte for byte. */
  assert_int_equal(d.len, len);
  assert_memory_equal(d.utf8, bytes, len);
  assert_contains(&d, "<p>caf\xC3\xA9 5 \xE2\x82\xAC \xE4\xB8\xAD\xE6\x96\x87</p>");
  assert_string_equal(d.charset, "UTF-8");
  assert_int_equal(d.source, WN_CHARSET_META);
  wn_dom_decoded_free(&d);
  free(bytes);
}

static void test_windows1252_meta(void **state) {
  (void)state;
  wn_dom_decoded d;
  decode_fixture("windows1252_meta.html", NULL, &d);
  /* 0x93 “, 0xE9 é, 0x94 ”, 0x80 € */
  assert_contains(&d, "<p>\xE2\x80\x9C" "caf\xC3\xA9\xE2\x80\x9D costs \xE2\x82\xAC" "5</p>");
  assert_string_equal(d.charset, "windows-1252");
  assert_int_equal(d.source, WN_CHARSET_META);
  wn_dom_decoded_free(&d);
}

static void test_latin1_meta_is_windows1252(void **state) {
  (void)state;
  wn_dom_decoded d;
  decode_fixture("latin1_meta.html", NULL, &d);
  /* In true ISO-8859-1, 0x93 would be a C1 control; browsers read “. */
  assert_contains(&d, "<p>\xE2\x80\x9Cquoted\xE2\x80\x9D na\xC3\xAFve</p>");
  assert_string_equal(d.charset, "windows-1252");
  assert_int_equal(d.source, WN_CHARSET_META);
  wn_dom_decoded_free(&d);
}

static void test_http_equiv_any_order_and_case(void **state) {
  (void)state;
  wn_dom_decoded d;
  decode_fixture("http_equiv_windows1251.html", NULL, &d);
  assert_contains(&d, "<p>\xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82, "
                      "\xD0\xBC\xD0\xB8\xD1\x80</p>"); /* Привет, мир */
  assert_string_equal(d.charset, "windows-1251");
  assert_int_equal(d.source, WN_CHARSET_META);
  wn_dom_decoded_free(&d);
}

static void test_meta_utf16_means_utf8(void **state) {
  (void)state;
  static const char page[] = "<meta charset=\"utf-16le\"><p>caf\xC3\xA9</p>";
  wn_dom_decoded d;
  assert_int_equal(wn_dom_decode(page, sizeof page - 1, NULL, 0, &d, NULL), WN_OK);
  assert_string_equal(d.charset, "UTF-8");
  assert_int_equal(d.source, WN_CHARSET_META);
  assert_string_equal(d.utf8, page);
  wn_dom_decoded_free(&d);
}

/* ---- declared and false ----------------------------------------------- */

static void test_meta_utf8_but_windows1252(void **state) {
  (void)state;
  wn_dom_decoded d;
  decode_fixture("meta_utf8_but_windows1252.html", NULL, &d);
  assert_contains(&d, "Le caf\xC3\xA9 \xC3\xA9tait ferm\xC3\xA9");
  assert_contains(&d, "cr\xC3\xAApes");
  assert_null(strstr(d.utf8, FFFD));
  assert_int_equal(d.source, WN_CHARSET_GUESS);
  assert_string_not_equal(d.charset, "UTF-8");
  wn_dom_decoded_free(&d);
}

static void test_meta_latin1_but_utf8(void **state) {
  (void)state;
  wn_dom_decoded d;
  decode_fixture("meta_latin1_but_utf8.html", NULL, &d);
  assert_contains(&d, "<p>caf\xC3\xA9</p>");
  assert_null(strstr(d.utf8, "\xC3\x83")); /* not double-encoded (Ã©) */
  assert_string_equal(d.charset, "UTF-8");
  assert_int_equal(d.source, WN_CHARSET_GUESS);
  wn_dom_decoded_free(&d);
}

static void test_transport_utf8_but_not(void **state) {
  (void)state;
  static const char page[] = "<p>caf\xE9 cr\xE8me br\xFBl\xE9" "e</p>";
  wn_dom_decoded d;
  assert_int_equal(wn_dom_decode(page, sizeof page - 1, "UTF-8", 0, &d, NULL), WN_OK);
  assert_int_equal(d.source, WN_CHARSET_GUESS);
  assert_string_not_equal(d.charset, "UTF-8");
  assert_true(utf8_valid(d.utf8, d.len));
  assert_contains(&d, "<p>caf");
  wn_dom_decoded_free(&d);
}

static void test_meta_utf8_damaged(void **state) {
  (void)state;
  wn_dom_decoded d;
  /* A stray byte fails the strict check, so uchardet decides; it says
   * UTF-8 for a page this UTF-8, and only the stray byte is lost. */
  decode_fixture("meta_utf8_stray_byte.html", NULL, &d);
  assert_int_equal(d.source, WN_CHARSET_GUESS);
  assert_string_equal(d.charset, "UTF-8");
  assert_contains(&d, "Le caf\xC3\xA9 \xC3\xA9tait ferm\xC3\xA9");
  assert_contains(&d, "C" FFFD "est tr\xC3\xA8s");
  wn_dom_decoded_free(&d);

  /* A page cut off inside its last character keeps its declaration. */
  decode_fixture("meta_utf8_cut_off.html", NULL, &d);
  assert_int_equal(d.source, WN_CHARSET_META);
  assert_string_equal(d.charset, "UTF-8");
  assert_contains(&d, "Le caf\xC3\xA9 \xC3\xA9tait ferm\xC3\xA9");
  /* It ends in "l'été" cut inside its last é. */
  assert_string_equal(d.utf8 + d.len - 6, "\xC3\xA9t" FFFD);
  wn_dom_decoded_free(&d);
}

/* ---- byte order marks --------------------------------------------------- */

static void test_bom_utf8(void **state) {
  (void)state;
  wn_dom_decoded d;
  /* The BOM beats both the transport and the page's windows-1252 meta. */
  decode_fixture("bom_utf8.html", "koi8-r", &d);
  assert_int_equal(strncmp(d.utf8, "<!DOCTYPE html>", 15), 0); /* BOM stripped */
  assert_contains(&d, "<p>caf\xC3\xA9 \xE2\x82\xAC</p>");
  assert_string_equal(d.charset, "UTF-8");
  assert_int_equal(d.source, WN_CHARSET_BOM);
  wn_dom_decoded_free(&d);
}

static void test_bom_utf16le(void **state) {
  (void)state;
  static const char want[] = "<!DOCTYPE html>\n<html>\n<head>\n<title>t</title>\n</head>\n"
                             "<body>\n<p>caf\xC3\xA9 \xE2\x82\xAC \xE4\xB8\xAD\xE6\x96\x87</p>\n"
                             "</body>\n</html>\n";
  wn_dom_decoded d;
  decode_fixture("bom_utf16le.html", NULL, &d);
  assert_int_equal(d.len, sizeof want - 1);
  assert_memory_equal(d.utf8, want, sizeof want - 1);
  assert_string_equal(d.charset, "UTF-16LE");
  assert_int_equal(d.source, WN_CHARSET_BOM);
  wn_dom_decoded_free(&d);
}

static void test_bom_utf16be(void **state) {
  (void)state;
  static const char page[] = "\xFE\xFF\x00<\x00p\x00>\x00\xE9\x20\xAC\x00<";
  wn_dom_decoded d;
  assert_int_equal(wn_dom_decode(page, sizeof page - 1, NULL, 0, &d, NULL), WN_OK);
  assert_string_equal(d.utf8, "<p>\xC3\xA9\xE2\x82\xAC<");
  assert_string_equal(d.charset, "UTF-16BE");
  assert_int_equal(d.source, WN_CHARSET_BOM);
  wn_dom_decoded_free(&d);
}

/* ---- guessing ------------------------------------------------------------ */

static void test_undeclared_windows1252_guessed(void **state) {
  (void)state;
  wn_dom_decoded d;
  decode_fixture("undeclared_windows1252.html", NULL, &d);
  /* uchardet may say WINDOWS-1252 or ISO-8859-1/-15; the text is what
   * counts. */
  assert_contains(&d, "Le caf\xC3\xA9 \xC3\xA9tait ferm\xC3\xA9");
  assert_contains(&d, "\xC2\xAB C'est tr\xC3\xA8s agr\xC3\xA9" "able \xC2\xBB");
  assert_int_equal(d.source, WN_CHARSET_GUESS);
  wn_dom_decoded_free(&d);
}

static void test_undeclared_ascii_and_utf8(void **state) {
  (void)state;
  wn_dom_decoded d;
  static const char ascii[] = "<p>plain</p>";
  assert_int_equal(wn_dom_decode(ascii, sizeof ascii - 1, NULL, 0, &d, NULL), WN_OK);
  assert_string_equal(d.utf8, ascii);
  assert_string_equal(d.charset, "UTF-8");
  assert_int_equal(d.source, WN_CHARSET_DEFAULT);
  wn_dom_decoded_free(&d);

  static const char utf8[] = "<p>caf\xC3\xA9</p>";
  assert_int_equal(wn_dom_decode(utf8, sizeof utf8 - 1, NULL, 0, &d, NULL), WN_OK);
  assert_string_equal(d.utf8, utf8);
  assert_string_equal(d.charset, "UTF-8");
  assert_int_equal(d.source, WN_CHARSET_GUESS);
  wn_dom_decoded_free(&d);
}

/* ---- transport and labels ------------------------------------------------ */

static void test_transport_overrides_meta(void **state) {
  (void)state;
  wn_dom_decoded d;
  decode_fixture("meta_koi8r_windows1252.html", NULL, &d);
  assert_contains(&d, "<p>caf\xD0\x98</p>"); /* KOI8-R 0xE9 is И */
  assert_string_equal(d.charset, "KOI8-R");
  assert_int_equal(d.source, WN_CHARSET_META);
  wn_dom_decoded_free(&d);

  decode_fixture("meta_koi8r_windows1252.html", "windows-1252", &d);
  assert_contains(&d, "<p>caf\xC3\xA9</p>");
  assert_string_equal(d.charset, "windows-1252");
  assert_int_equal(d.source, WN_CHARSET_TRANSPORT);
  wn_dom_decoded_free(&d);
}

static void test_transport_label_normalised(void **state) {
  (void)state;
  static const char *const labels[] = {" \"Latin1\" ", "ISO-8859-1", "us-ascii", "CP1252",
                                       "'iso8859-1'", "\tL1\n"};
  for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++) {
    wn_dom_decoded d;
    decode_fixture("meta_koi8r_windows1252.html", labels[i], &d);
    assert_contains(&d, "<p>caf\xC3\xA9</p>");
    assert_string_equal(d.charset, "windows-1252");
    assert_int_equal(d.source, WN_CHARSET_TRANSPORT);
    wn_dom_decoded_free(&d);
  }
  static const struct {
    const char *label, *name;
  } others[] = {{"utf8", "UTF-8"}, {"x-sjis", "Shift_JIS"}, {"Shift_JIS", "Shift_JIS"},
                {"gb2312", "GBK"}, {"GBK", "GBK"}, {"ks_c_5601-1987", "EUC-KR"},
                {"iso-8859-9", "windows-1254"}};
  static const char ascii[] = "<p>plain</p>";
  for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
    wn_dom_decoded d;
    assert_int_equal(wn_dom_decode(ascii, sizeof ascii - 1, others[i].label, 0, &d, NULL), WN_OK);
    assert_string_equal(d.charset, others[i].name);
    assert_int_equal(d.source, WN_CHARSET_TRANSPORT);
    assert_string_equal(d.utf8, ascii);
    wn_dom_decoded_free(&d);
  }
}

static void test_unknown_label_falls_through(void **state) {
  (void)state;
  static const char *const labels[] = {"x-no-such-charset", "utf-7", "", "utf-8//TRANSLIT",
                                       "a-label-that-is-far-too-long-to-be-a-charset-name"};
  for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++) {
    wn_dom_decoded d;
    decode_fixture("windows1252_meta.html", labels[i], &d);
    assert_string_equal(d.charset, "windows-1252");
    assert_int_equal(d.source, WN_CHARSET_META);
    wn_dom_decoded_free(&d);
  }
  /* An unknown meta label is no declaration either. */
  wn_dom_decoded d;
  decode_fixture("meta_utf7.html", NULL, &d);
  assert_string_equal(d.charset, "UTF-8");
  assert_int_equal(d.source, WN_CHARSET_DEFAULT);
  assert_contains(&d, "<p>plain +AOk- ascii</p>");
  wn_dom_decoded_free(&d);
}

static void test_label_outside_table(void **state) {
  (void)state;
  /* Not a WHATWG label, but iconv knows it and it is ASCII-compatible. */
  static const char page[] = "<p>caf\x82</p>"; /* CP437 0x82 is é */
  wn_dom_decoded d;
  assert_int_equal(wn_dom_decode(page, sizeof page - 1, "cp437", 0, &d, NULL), WN_OK);
  assert_string_equal(d.utf8, "<p>caf\xC3\xA9</p>");
  assert_string_equal(d.charset, "CP437");
  assert_int_equal(d.source, WN_CHARSET_TRANSPORT);
  wn_dom_decoded_free(&d);
}

/* ---- the prescan ---------------------------------------------------------- */

static void test_prescan_skips_comments_and_tags(void **state) {
  (void)state;
  wn_dom_decoded d;
  decode_fixture("prescan_tricky.html", NULL, &d);
  assert_contains(&d, "<p>caf\xC3\xA9</p>");
  assert_string_equal(d.charset, "windows-1252");
  assert_int_equal(d.source, WN_CHARSET_META);
  wn_dom_decoded_free(&d);
}

static void test_prescan_window(void **state) {
  (void)state;
  wn_dom_decoded d;
  decode_fixture("late_meta.html", NULL, &d);
  assert_string_equal(d.charset, "UTF-8");
  assert_int_equal(d.source, WN_CHARSET_DEFAULT);
  wn_dom_decoded_free(&d);

  /* A value cut off by the end of the bytes is not taken ("koi8" would be
   * a valid label of its own). */
  static const char cut[] = "<meta charset=koi8";
  assert_int_equal(wn_dom_decode(cut, sizeof cut - 1, NULL, 0, &d, NULL), WN_OK);
  assert_int_equal(d.source, WN_CHARSET_DEFAULT);
  wn_dom_decoded_free(&d);
}

static void test_prescan_forms(void **state) {
  (void)state;
  static const char *const pages[] = {
      "<meta charset=windows-1252><p>caf\xE9",
      "<meta charset='windows-1252'/><p>caf\xE9",
      "<META\tCHARSET = \"Windows-1252\" ><p>caf\xE9",
      "<meta http-equiv=content-type content=\"text/html;charset=windows-1252\"><p>caf\xE9",
      "<meta content=\"text/html; charset='windows-1252'\" http-equiv=\"Content-Type\">caf\xE9",
      "<meta charset=\"windows-1252\" charset=\"koi8-r\">caf\xE9",
      /* "<!-->" is a whole comment to the prescan. */
      "<!--><meta charset=windows-1252>caf\xE9<!-- --><meta charset=koi8-r>",
  };
  for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++) {
    wn_dom_decoded d;
    assert_int_equal(wn_dom_decode(pages[i], strlen(pages[i]), NULL, 0, &d, NULL), WN_OK);
    if (strcmp(d.charset, "windows-1252") != 0 || d.source != WN_CHARSET_META)
      fail_msg("page %zu: %s from %s", i, d.charset, wn_charset_source_name(d.source));
    assert_contains(&d, "caf\xC3\xA9");
    wn_dom_decoded_free(&d);
  }
  /* content without http-equiv declares nothing. */
  static const char no_pragma[] = "<meta content=\"text/html; charset=koi8-r\"><p>x</p>";
  wn_dom_decoded d;
  assert_int_equal(wn_dom_decode(no_pragma, sizeof no_pragma - 1, NULL, 0, &d, NULL), WN_OK);
  assert_int_equal(d.source, WN_CHARSET_DEFAULT);
  wn_dom_decoded_free(&d);
}

/* ---- replacement ---------------------------------------------------------- */

static void test_invalid_utf8_replaced(void **state) {
  (void)state;
  /* One U+FFFD per maximal subpart (Unicode 3.9): C0 and AF are never
   * valid; ED A0 80 is a surrogate, so three; F0 9F 98 is cut off, one. */
  static const char page[] = "\xEF\xBB\xBF" "a\xC0\xAF" "b\xED\xA0\x80" "c\xF0\x9F\x98";
  static const char want[] = "a" FFFD FFFD "b" FFFD FFFD FFFD "c" FFFD;
  wn_dom_decoded d;
  assert_int_equal(wn_dom_decode(page, sizeof page - 1, NULL, 0, &d, NULL), WN_OK);
  assert_int_equal(d.len, sizeof want - 1);
  assert_memory_equal(d.utf8, want, sizeof want - 1);
  wn_dom_decoded_free(&d);
}

static void test_nul_replaced(void **state) {
  (void)state;
  static const char ascii[] = "a\0b";
  wn_dom_decoded d;
  assert_int_equal(wn_dom_decode(ascii, 3, NULL, 0, &d, NULL), WN_OK);
  assert_int_equal(d.len, 5);
  assert_memory_equal(d.utf8, "a" FFFD "b", 6);
  wn_dom_decoded_free(&d);

  static const char latin[] = "a\0b\xE9";
  assert_int_equal(wn_dom_decode(latin, 4, "windows-1252", 0, &d, NULL), WN_OK);
  assert_int_equal(d.len, 7);
  assert_memory_equal(d.utf8, "a" FFFD "b\xC3\xA9", 8);
  wn_dom_decoded_free(&d);
}

static void test_undecodable_replaced(void **state) {
  (void)state;
  wn_dom_decoded d;
  /* Shift_JIS: あ, then a lead byte cut off by the end (iconv: EINVAL). */
  static const char sjis[] = "\x82\xA0ok\x82";
  assert_int_equal(wn_dom_decode(sjis, sizeof sjis - 1, "shift_jis", 0, &d, NULL), WN_OK);
  assert_string_equal(d.utf8, "\xE3\x81\x82ok" FFFD);
  wn_dom_decoded_free(&d);

  /* EUC-JP: an invalid pair in the middle (iconv: EILSEQ), decoding goes on. */
  static const char eucjp[] = "a\xA4\xA2\xFF" "b";
  assert_int_equal(wn_dom_decode(eucjp, sizeof eucjp - 1, "euc-jp", 0, &d, NULL), WN_OK);
  assert_string_equal(d.utf8, "a\xE3\x81\x82" FFFD "b");
  wn_dom_decoded_free(&d);

  /* windows-1258 (glibc's CP1258) holds a letter back in case a combining
   * mark follows: the end of input must flush it. */
  static const char cp1258[] = "caf\xE9";
  assert_int_equal(wn_dom_decode(cp1258, sizeof cp1258 - 1, "windows-1258", 0, &d, NULL), WN_OK);
  assert_string_equal(d.utf8, "caf\xC3\xA9");
  wn_dom_decoded_free(&d);

  /* UTF-16LE: a lone high surrogate, then an odd byte at the end. */
  static const char utf16[] = "\xFF\xFE\x00\xD8" "a\x00" "b";
  assert_int_equal(wn_dom_decode(utf16, sizeof utf16 - 1, NULL, 0, &d, NULL), WN_OK);
  assert_string_equal(d.utf8, FFFD "a" FFFD);
  wn_dom_decoded_free(&d);
}

/* ---- bounds ----------------------------------------------------------------- */

static void test_empty_input(void **state) {
  (void)state;
  wn_dom_decoded d;
  assert_int_equal(wn_dom_decode("", 0, NULL, 0, &d, NULL), WN_OK);
  assert_non_null(d.utf8);
  assert_int_equal(d.len, 0);
  assert_string_equal(d.utf8, "");
  assert_string_equal(d.charset, "UTF-8");
  assert_int_equal(d.source, WN_CHARSET_DEFAULT);
  wn_dom_decoded_free(&d);

  assert_int_equal(wn_dom_decode(NULL, 0, "windows-1252", 0, &d, NULL), WN_OK);
  assert_non_null(d.utf8);
  assert_int_equal(d.len, 0);
  wn_dom_decoded_free(&d);

  /* A lone BOM is an empty page too. */
  assert_int_equal(wn_dom_decode("\xEF\xBB\xBF", 3, NULL, 0, &d, NULL), WN_OK);
  assert_int_equal(d.len, 0);
  assert_int_equal(d.source, WN_CHARSET_BOM);
  wn_dom_decoded_free(&d);
}

static void test_max_bytes(void **state) {
  (void)state;
  size_t len = 0;
  char *bytes = load("utf8_meta.html", &len);
  wn_dom_decoded d;
  wn_diag diag;
  wn_diag_clear(&diag);
  assert_int_equal(wn_dom_decode(bytes, len, NULL, 16, &d, &diag), WN_ETOOBIG);
  assert_null(d.utf8);
  assert_non_null(strstr(diag.msg, "cap of 16 bytes"));
  /* Exactly at the cap is fine. */
  assert_int_equal(wn_dom_decode(bytes, len, NULL, len, &d, NULL), WN_OK);
  assert_int_equal(d.len, len);
  wn_dom_decoded_free(&d);
  free(bytes);

  /* The cap is on the output: ten euro signs are 10 bytes in, 30 out. */
  static const char euros[] = "\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80";
  assert_int_equal(wn_dom_decode(euros, 10, "windows-1252", 29, &d, NULL), WN_ETOOBIG);
  assert_null(d.utf8);
  assert_int_equal(wn_dom_decode(euros, 10, "windows-1252", 30, &d, NULL), WN_OK);
  assert_int_equal(d.len, 30);
  wn_dom_decoded_free(&d);
}

static uint32_t xorshift32(uint32_t *s) {
  uint32_t x = *s;
  x ^= x << 13;
  x ^= x >> 17;
  x ^= x << 5;
  return *s = x;
}

static void test_random_bytes(void **state) {
  (void)state;
  enum { N = 6000 };
  static const char *const transports[] = {
      NULL,        "utf-8",     "windows-1252", "shift_jis", "euc-jp",   "gb18030",
      "big5",      "euc-kr",    "iso-2022-jp",  "utf-16le",  "utf-16be", "windows-1258",
      "koi8-r",    "x-mac-cyrillic"};
  char *bytes = malloc(N);
  assert_non_null(bytes);
  uint32_t seed = 0x12345678u;
  for (int round = 0; round < 4; round++) {
    for (size_t i = 0; i < N; i++)
      bytes[i] = (char)(xorshift32(&seed) & 0xFFu);
    /* Round 1 is mostly ASCII, which reaches uchardet's language models;
     * rounds 2 and 3 start with BOMs. */
    if (round == 1)
      for (size_t i = 0; i < N; i++)
        if (xorshift32(&seed) % 8u)
          bytes[i] = (char)(0x20 + xorshift32(&seed) % 0x5Fu);
    if (round == 2)
      memcpy(bytes, "\xEF\xBB\xBF", 3);
    if (round == 3)
      memcpy(bytes, "\xFE\xFF", 2);
    for (size_t t = 0; t < sizeof transports / sizeof transports[0]; t++) {
      for (size_t len = N; len > 0; len = len > 1 ? len / 3 : 0) {
        wn_dom_decoded d;
        wn_diag diag;
        wn_diag_clear(&diag);
        wn_err err = wn_dom_decode(bytes, len, transports[t], 0, &d, &diag);
        if (err)
          fail_msg("round %d %s len %zu: %s", round, transports[t] ? transports[t] : "(none)",
                   len, wn_diag_message(&diag, err));
        assert_true(utf8_valid(d.utf8, d.len));
        assert_int_equal(strlen(d.utf8), d.len);
        assert_true(d.charset[0] != '\0');
        wn_dom_decoded_free(&d);
      }
    }
  }
  free(bytes);
}

/* ---- the small things ----------------------------------------------------- */

static void test_invalid_arguments(void **state) {
  (void)state;
  wn_dom_decoded d;
  memset(&d, 0x5A, sizeof d);
  assert_int_equal(wn_dom_decode(NULL, 3, NULL, 0, &d, NULL), WN_EINVAL);
  assert_null(d.utf8);
  assert_int_equal(wn_dom_decode("abc", 3, NULL, 0, NULL, NULL), WN_EINVAL);
}

static void test_source_names(void **state) {
  (void)state;
  assert_string_equal(wn_charset_source_name(WN_CHARSET_BOM), "bom");
  assert_string_equal(wn_charset_source_name(WN_CHARSET_TRANSPORT), "transport");
  assert_string_equal(wn_charset_source_name(WN_CHARSET_META), "meta");
  assert_string_equal(wn_charset_source_name(WN_CHARSET_GUESS), "guess");
  assert_string_equal(wn_charset_source_name(WN_CHARSET_DEFAULT), "default");
  assert_non_null(wn_charset_source_name((wn_charset_source)99));
}

static void test_free_is_harmless(void **state) {
  (void)state;
  wn_dom_decoded_free(NULL);
  wn_dom_decoded d;
  memset(&d, 0, sizeof d);
  wn_dom_decoded_free(&d);
  assert_int_equal(wn_dom_decode("x", 1, NULL, 0, &d, NULL), WN_OK);
  wn_dom_decoded_free(&d);
  assert_null(d.utf8);
  assert_int_equal(d.len, 0);
  wn_dom_decoded_free(&d); /* twice: zeroed, so harmless */
}

/* ---- binary input ----------------------------------------------------------- */

/* wn_dom_sniff and the bytes-to-page entry point both refuse the bytes with
 * WN_ENOTHTML and a message naming `what`. */
static void expect_refused(const char *bytes, size_t len, const char *transport,
                           const char *what) {
  wn_diag diag;
  wn_diag_clear(&diag);
  wn_err err = wn_dom_sniff(bytes, len, transport, &diag);
  if (err != WN_ENOTHTML)
    fail_msg("%s: sniff gave %s, not WN_ENOTHTML", what, wn_strerror(err));
  if (!strstr(diag.msg, what))
    fail_msg("%s: message \"%s\"", what, diag.msg);
  wn_dom_page *page = (wn_dom_page *)&diag; /* must be reset to NULL */
  wn_diag_clear(&diag);
  wn_dom_options opts = {.transport_charset = transport};
  assert_int_equal(wn_dom_parse(bytes, len, &opts, &page, &diag), WN_ENOTHTML);
  assert_null(page);
  assert_non_null(strstr(diag.msg, what));
}

static void expect_text(const char *bytes, size_t len, const char *transport) {
  wn_diag diag;
  wn_diag_clear(&diag);
  wn_err err = wn_dom_sniff(bytes, len, transport, &diag);
  if (err)
    fail_msg("refused as %s", diag.msg);
  wn_dom_page *page = NULL;
  wn_dom_options opts = {.transport_charset = transport};
  assert_int_equal(wn_dom_parse(bytes, len, &opts, &page, NULL), WN_OK);
  wn_dom_free(page);
}

#define BYTES(s) s, sizeof s - 1

static void test_binary_refused(void **state) {
  (void)state;
  expect_refused(BYTES("\x1F\x8B\x08\x00\x00\x00\x00\x00\x00\x03\xB3\xC9\x28\xC9\xCD\xB1"),
                 NULL, "gzip data");
  expect_refused(BYTES("%PDF-1.4\n%\xE2\xE3\xCF\xD3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n"),
                 NULL, "PDF document");
  expect_refused(BYTES("GIF89a\x01\x00\x01\x00\x80\x00\x00\xFF\xFF\xFF\x00\x00\x00!"), NULL,
                 "GIF image");
  expect_refused(BYTES("\x89PNG\r\n\x1A\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"), NULL,
                 "PNG image");
  expect_refused(BYTES("\xFF\xD8\xFF\xE0\x00\x10JFIF\x00\x01\x01"), NULL, "JPEG image");
  expect_refused(BYTES("PK\x03\x04\x14\x00\x00\x00\x08\x00index.html"), NULL, "ZIP archive");
  /* The signature wins over a transport charset that says otherwise (a
   * gzip body whose Content-Encoding got lost on the way). */
  expect_refused(BYTES("\x1F\x8B\x08\x00\x00\x00\x00\x00"), "utf-8", "gzip data");

  /* Random bytes: about one in ten a control byte, a few NULs. Without a
   * NUL, the control bytes alone. */
  enum { N = 4096 };
  char *bytes = malloc(N);
  assert_non_null(bytes);
  uint32_t seed = 0x2545F491u;
  for (size_t i = 0; i < N; i++)
    bytes[i] = (char)(xorshift32(&seed) & 0xFFu);
  bytes[0] = 'x'; /* no signature by chance */
  expect_refused(bytes, N, NULL, "binary data");
  expect_refused(bytes, N, "windows-1252", "binary data");
  for (size_t i = 0; i < N; i++)
    if (bytes[i] == 0)
      bytes[i] = 1;
  expect_refused(bytes, N, NULL, "binary data (control bytes");
  /* Markup with NULs all through it (a binary format with text inside),
   * in no UTF-16 or UTF-32 pattern. */
  for (size_t i = 0; i < N; i++)
    bytes[i] = (i % 7 == 3 || i % 11 == 5) ? '\0' : "<p>text</p>"[i % 11];
  expect_refused(bytes, N, NULL, "binary data (NUL bytes");
  free(bytes);
}

static void test_text_not_refused(void **state) {
  (void)state;
  expect_text(BYTES(""), NULL);
  expect_text(BYTES("<p>Hello</p>"), NULL);
  /* Text that starts like a two-letter signature. */
  expect_text(BYTES("BMW unveils a new car, and MZ was a motorcycle maker.\n"), NULL);
  expect_text(BYTES("MZ motorcycles\n<p>History</p>"), NULL);
  /* ISO-2022-JP shifts with ESC, a C0 byte. */
  expect_text(BYTES("<p>\x1B$B$3$s$K$A$O\x1B(B \x1B$B@$3&\x1B(B</p>"), "iso-2022-jp");
  /* A page with one stray NUL in its first KiB. */
  char page[2048];
  memset(page, 'a', sizeof page);
  memcpy(page, "<html><body><p>", 15);
  page[500] = '\0';
  expect_text(page, sizeof page, NULL);
  /* UTF-16 with a BOM, and UTF-16 declared by the transport, whose CJK code
   * units hold C0 bytes and no zero byte. */
  expect_text(BYTES("\xFF\xFE<\x00p\x00>\x00\x2D\x4E\x87\x65<\x00/\x00p\x00>\x00"), NULL);
  char cjk[512];
  for (size_t i = 0; i < sizeof cjk; i += 2) {
    cjk[i] = (char)(0x01 + i % 0x1F); /* low byte: C0 range */
    cjk[i + 1] = 0x4E;                /* U+4Exx, CJK ideographs */
  }
  expect_text(cjk, sizeof cjk, "utf-16le");
}

/* Spreads an ASCII string into code units of `unit` bytes, little or big
 * endian. */
static size_t widen(const char *ascii, size_t unit, int big, char *out) {
  size_t n = 0;
  for (const char *p = ascii; *p; p++)
    for (size_t k = 0; k < unit; k++)
      out[n++] = (char)((big ? k == unit - 1 : k == 0) ? *p : 0);
  return n;
}

static void test_utf16_and_utf32_without_bom(void **state) {
  (void)state;
  static const char html[] = "<html><body><p>caf";
  static const char tail[] = "</p></body></html>";
  char bytes[512];
  const struct {
    size_t unit;
    int big;
    const char *charset;
  } cases[] = {{2, 0, "UTF-16LE"}, {2, 1, "UTF-16BE"}, {4, 0, "UTF-32LE"}, {4, 1, "UTF-32BE"}};
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    size_t unit = cases[c].unit;
    int big = cases[c].big;
    size_t n = widen(html, unit, big, bytes);
    /* U+00E9, then U+4E2D: a non-ASCII letter and a CJK one. */
    static const unsigned int extra[] = {0xE9, 0x4E2D};
    for (size_t e = 0; e < 2; e++)
      for (size_t k = 0; k < unit; k++) {
        size_t shift = 8 * (big ? unit - 1 - k : k);
        bytes[n++] = (char)((extra[e] >> shift) & 0xFFu);
      }
    n += widen(tail, unit, big, bytes + n);
    wn_dom_decoded d;
    wn_diag diag;
    wn_diag_clear(&diag);
    assert_int_equal(wn_dom_decode(bytes, n, NULL, 0, &d, &diag), WN_OK);
    assert_string_equal(d.charset, cases[c].charset);
    assert_int_equal(d.source, WN_CHARSET_GUESS);
    assert_string_equal(d.utf8, "<html><body><p>caf\xC3\xA9\xE4\xB8\xAD</p></body></html>");
    wn_dom_decoded_free(&d);
    /* A transport charset saying the same is reported as the source. */
    if (unit == 2) {
      assert_int_equal(wn_dom_decode(bytes, n, big ? "utf-16be" : "utf-16le", 0, &d, NULL),
                       WN_OK);
      assert_string_equal(d.charset, cases[c].charset);
      assert_int_equal(d.source, WN_CHARSET_TRANSPORT);
      wn_dom_decoded_free(&d);
    }
    /* And the page parses: its text is the text, not gb18030 mojibake. */
    wn_dom_page *page = NULL;
    assert_int_equal(wn_dom_parse(bytes, n, NULL, &page, &diag), WN_OK);
    uint32_t count = 0;
    const wn_dom_node *nodes = wn_dom_nodes(page, &count);
    assert_int_equal(nodes[count - 1].tag, WN_TAG_TEXT);
    assert_string_equal(nodes[count - 1].text, "caf\xC3\xA9\xE4\xB8\xAD");
    assert_string_equal(wn_dom_charset(page), cases[c].charset);
    wn_dom_free(page);
  }
  /* UTF-32 with its BOM (FF FE 00 00 is not UTF-16LE's BOM and a NUL). */
  char bom32[64] = "\xFF\xFE\x00\x00";
  size_t n = 4 + widen("<p>ok</p>", 4, 0, bom32 + 4);
  wn_dom_decoded d;
  assert_int_equal(wn_dom_decode(bom32, n, NULL, 0, &d, NULL), WN_OK);
  assert_string_equal(d.charset, "UTF-32LE");
  assert_int_equal(d.source, WN_CHARSET_BOM);
  assert_string_equal(d.utf8, "<p>ok</p>");
  wn_dom_decoded_free(&d);
}

/* iconv over the whole input, as a reference: a byte it cannot map is one
 * U+FFFD, and so is NUL (the parser takes a NUL-terminated string). */
static char *iconv_reference(const char *iconv_name, const char *bytes, size_t len, size_t *out_len) {
  iconv_t cd = iconv_open("UTF-8", iconv_name);
  assert_true(cd != (iconv_t)-1);
  size_t cap = len * 4 + 16, used = 0;
  char *out = malloc(cap);
  assert_non_null(out);
  char *in = (char *)bytes;
  size_t in_left = len;
  for (;;) {
    char *o = out + used;
    size_t o_left = cap - used;
    int flush = in_left == 0; /* a held character (a letter waiting for its mark) */
    size_t rc = flush ? iconv(cd, NULL, NULL, &o, &o_left) : iconv(cd, &in, &in_left, &o, &o_left);
    int e = rc == (size_t)-1 ? errno : 0;
    used = (size_t)(o - out);
    if (flush)
      break;
    if (!e)
      continue;
    assert_true(e == EILSEQ || e == EINVAL);
    in++;
    in_left--;
    memcpy(out + used, FFFD, 3);
    used += 3;
  }
  iconv_close(cd);
  char *clean = malloc(used * 3 + 1);
  assert_non_null(clean);
  size_t n = 0;
  for (size_t i = 0; i < used; i++) {
    if (out[i] == 0) {
      memcpy(clean + n, FFFD, 3);
      n += 3;
    } else {
      clean[n++] = out[i];
    }
  }
  clean[n] = 0;
  free(out);
  *out_len = n;
  return clean;
}

/* Every single-byte charset decodes every byte as iconv does over the
 * whole page (decode.c reads them through a table built from iconv), and
 * the two where iconv joins a letter with its combining mark keep that. */
static void test_single_byte_charsets_as_iconv(void **state) {
  (void)state;
  static const struct {
    const char *label, *iconv;
  } sets[] = {
      {"windows-1252", "CP1252"},   {"windows-1250", "CP1250"}, {"windows-1251", "CP1251"},
      {"windows-1253", "CP1253"},   {"windows-1254", "CP1254"}, {"windows-1255", "CP1255"},
      {"windows-1256", "CP1256"},   {"windows-1257", "CP1257"}, {"windows-1258", "CP1258"},
      {"windows-874", "CP874"},     {"iso-8859-2", "ISO-8859-2"}, {"iso-8859-3", "ISO-8859-3"},
      {"iso-8859-5", "ISO-8859-5"}, {"iso-8859-6", "ISO-8859-6"}, {"iso-8859-7", "ISO-8859-7"},
      {"iso-8859-8", "ISO-8859-8"}, {"iso-8859-15", "ISO-8859-15"}, {"koi8-r", "KOI8-R"},
      {"koi8-u", "KOI8-U"},         {"ibm866", "IBM866"},       {"macintosh", "MACINTOSH"},
      {"x-mac-cyrillic", "MAC-CYRILLIC"},
  };
  /* Every byte, then pairs of a letter and each high byte (a combining
   * mark in windows-1255 and -1258), then a long ASCII run. */
  char page[256 + 2 * 128 + 200];
  size_t len = 0;
  for (int b = 0; b < 256; b++)
    page[len++] = (char)(b ? b : 'x');
  page[100] = 0; /* one NUL inside */
  for (int b = 0x80; b < 0x100; b++) {
    page[len++] = 'a';
    page[len++] = (char)b;
  }
  for (; len < sizeof page; len++)
    page[len] = (char)('a' + len % 26);
  for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
    wn_dom_decoded d;
    assert_int_equal(wn_dom_decode(page, len, sets[k].label, 0, &d, NULL), WN_OK);
    size_t want_len = 0;
    char *want = iconv_reference(sets[k].iconv, page, len, &want_len);
    if (d.len != want_len || memcmp(d.utf8, want, want_len) != 0)
    {
      size_t at = 0;
      while (at < d.len && at < want_len && d.utf8[at] == want[at])
        at++;
      fail_msg("%s: decoded as %s, %zu bytes, differs from iconv's %zu at byte %zu (%s / %s)", sets[k].label,
               d.charset, d.len, want_len, at, d.utf8 + (at > 12 ? at - 12 : 0), want + (at > 12 ? at - 12 : 0));
    }
    free(want);
    wn_dom_decoded_free(&d);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_utf8_meta),
      cmocka_unit_test(test_windows1252_meta),
      cmocka_unit_test(test_latin1_meta_is_windows1252),
      cmocka_unit_test(test_http_equiv_any_order_and_case),
      cmocka_unit_test(test_meta_utf16_means_utf8),
      cmocka_unit_test(test_meta_utf8_but_windows1252),
      cmocka_unit_test(test_meta_latin1_but_utf8),
      cmocka_unit_test(test_transport_utf8_but_not),
      cmocka_unit_test(test_meta_utf8_damaged),
      cmocka_unit_test(test_bom_utf8),
      cmocka_unit_test(test_bom_utf16le),
      cmocka_unit_test(test_bom_utf16be),
      cmocka_unit_test(test_undeclared_windows1252_guessed),
      cmocka_unit_test(test_undeclared_ascii_and_utf8),
      cmocka_unit_test(test_transport_overrides_meta),
      cmocka_unit_test(test_transport_label_normalised),
      cmocka_unit_test(test_unknown_label_falls_through),
      cmocka_unit_test(test_label_outside_table),
      cmocka_unit_test(test_prescan_skips_comments_and_tags),
      cmocka_unit_test(test_prescan_window),
      cmocka_unit_test(test_prescan_forms),
      cmocka_unit_test(test_invalid_utf8_replaced),
      cmocka_unit_test(test_nul_replaced),
      cmocka_unit_test(test_undecodable_replaced),
      cmocka_unit_test(test_empty_input),
      cmocka_unit_test(test_max_bytes),
      cmocka_unit_test(test_random_bytes),
      cmocka_unit_test(test_invalid_arguments),
      cmocka_unit_test(test_source_names),
      cmocka_unit_test(test_free_is_harmless),
      cmocka_unit_test(test_binary_refused),
      cmocka_unit_test(test_text_not_refused),
      cmocka_unit_test(test_utf16_and_utf32_without_bom),
      cmocka_unit_test(test_single_byte_charsets_as_iconv),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
