/*
 * dom/labels.c: charset labels to the encodings we decode (WHATWG
 * Encoding, section 4.2 "Names and labels"), and a charset choice's life
 * (its iconv descriptor). decode.c, prescan.c and sniff.c choose through
 * these; nothing here calls them.
 */
#include "dom/charset.h"

#include <iconv.h>
#include <string.h>

#include "util/util.h"

typedef struct wn_charset_encoding {
  const char *name;  /* WHATWG name, reported in wn_dom_decoded.charset */
  const char *iconv; /* glibc iconv name of the same mapping */
  unsigned flags;
} wn_charset_encoding;

/* Where WHATWG's encoding is a superset of the ISO one (Shift_JIS is
 * windows-31j, EUC-KR is windows-949, Big5 is Big5-HKSCS) we give iconv
 * the superset. */
static const wn_charset_encoding wn_encodings[WN_ENC_COUNT] = {
    [WN_ENC_UTF8] = {"UTF-8", "UTF-8", WN_CS_UTF8},
    [WN_ENC_IBM866] = {"IBM866", "IBM866", WN_CS_SINGLE_BYTE},
    [WN_ENC_ISO8859_2] = {"ISO-8859-2", "ISO-8859-2", WN_CS_SINGLE_BYTE},
    [WN_ENC_ISO8859_3] = {"ISO-8859-3", "ISO-8859-3", WN_CS_SINGLE_BYTE},
    [WN_ENC_ISO8859_4] = {"ISO-8859-4", "ISO-8859-4", WN_CS_SINGLE_BYTE},
    [WN_ENC_ISO8859_5] = {"ISO-8859-5", "ISO-8859-5", WN_CS_SINGLE_BYTE},
    [WN_ENC_ISO8859_6] = {"ISO-8859-6", "ISO-8859-6", WN_CS_SINGLE_BYTE},
    [WN_ENC_ISO8859_7] = {"ISO-8859-7", "ISO-8859-7", WN_CS_SINGLE_BYTE},
    [WN_ENC_ISO8859_8] = {"ISO-8859-8", "ISO-8859-8", WN_CS_SINGLE_BYTE},
    [WN_ENC_ISO8859_8I] = {"ISO-8859-8-I", "ISO-8859-8", WN_CS_SINGLE_BYTE},
    [WN_ENC_ISO8859_10] = {"ISO-8859-10", "ISO-8859-10", WN_CS_SINGLE_BYTE},
    [WN_ENC_ISO8859_13] = {"ISO-8859-13", "ISO-8859-13", WN_CS_SINGLE_BYTE},
    [WN_ENC_ISO8859_14] = {"ISO-8859-14", "ISO-8859-14", WN_CS_SINGLE_BYTE},
    [WN_ENC_ISO8859_15] = {"ISO-8859-15", "ISO-8859-15", WN_CS_SINGLE_BYTE},
    [WN_ENC_ISO8859_16] = {"ISO-8859-16", "ISO-8859-16", WN_CS_SINGLE_BYTE},
    [WN_ENC_KOI8R] = {"KOI8-R", "KOI8-R", WN_CS_SINGLE_BYTE},
    [WN_ENC_KOI8U] = {"KOI8-U", "KOI8-U", WN_CS_SINGLE_BYTE},
    [WN_ENC_MACINTOSH] = {"macintosh", "MACINTOSH", WN_CS_SINGLE_BYTE},
    [WN_ENC_WIN874] = {"windows-874", "CP874", WN_CS_SINGLE_BYTE},
    [WN_ENC_WIN1250] = {"windows-1250", "CP1250", WN_CS_SINGLE_BYTE},
    [WN_ENC_WIN1251] = {"windows-1251", "CP1251", WN_CS_SINGLE_BYTE},
    [WN_ENC_WIN1252] = {"windows-1252", "CP1252", WN_CS_SINGLE_BYTE},
    [WN_ENC_WIN1253] = {"windows-1253", "CP1253", WN_CS_SINGLE_BYTE},
    [WN_ENC_WIN1254] = {"windows-1254", "CP1254", WN_CS_SINGLE_BYTE},
    [WN_ENC_WIN1255] = {"windows-1255", "CP1255", WN_CS_SINGLE_BYTE | WN_CS_COMPOSES},
    [WN_ENC_WIN1256] = {"windows-1256", "CP1256", WN_CS_SINGLE_BYTE},
    [WN_ENC_WIN1257] = {"windows-1257", "CP1257", WN_CS_SINGLE_BYTE},
    [WN_ENC_WIN1258] = {"windows-1258", "CP1258", WN_CS_SINGLE_BYTE | WN_CS_COMPOSES},
    [WN_ENC_MACCYRILLIC] = {"x-mac-cyrillic", "MAC-CYRILLIC", WN_CS_SINGLE_BYTE},
    [WN_ENC_GBK] = {"GBK", "GBK", 0},
    [WN_ENC_GB18030] = {"gb18030", "GB18030", 0},
    [WN_ENC_BIG5] = {"Big5", "BIG5-HKSCS", 0},
    [WN_ENC_EUCJP] = {"EUC-JP", "EUC-JP", 0},
    [WN_ENC_ISO2022JP] = {"ISO-2022-JP", "ISO-2022-JP", 0},
    [WN_ENC_SHIFTJIS] = {"Shift_JIS", "CP932", 0},
    [WN_ENC_EUCKR] = {"EUC-KR", "CP949", 0},
    [WN_ENC_UTF16BE] = {"UTF-16BE", "UTF-16BE", WN_CS_UTF16},
    [WN_ENC_UTF16LE] = {"UTF-16LE", "UTF-16LE", WN_CS_UTF16},
    /* No label names these (WHATWG has none, and a declared UTF-32 is
     * refused below): only a byte order mark or the zero bytes of its
     * code units (wn_dom_sniff_wide) choose them. */
    [WN_ENC_UTF32BE] = {"UTF-32BE", "UTF-32BE", WN_CS_UTF32},
    [WN_ENC_UTF32LE] = {"UTF-32LE", "UTF-32LE", WN_CS_UTF32},
};

typedef struct wn_charset_label {
  const char *label; /* lower case */
  int encoding;
} wn_charset_label;

/* The labels of WHATWG Encoding 4.2, plus the names uchardet reports
 * ("uhc", "mac-cyrillic", "tis-620"...). Linear search: it runs a few
 * times per page. */
static const wn_charset_label wn_labels[] = {
    {"utf-8", WN_ENC_UTF8}, {"utf8", WN_ENC_UTF8},
    {"unicode-1-1-utf-8", WN_ENC_UTF8}, {"unicode11utf8", WN_ENC_UTF8},
    {"unicode20utf8", WN_ENC_UTF8}, {"x-unicode20utf8", WN_ENC_UTF8},
    {"866", WN_ENC_IBM866}, {"cp866", WN_ENC_IBM866},
    {"csibm866", WN_ENC_IBM866}, {"ibm866", WN_ENC_IBM866},
    {"csisolatin2", WN_ENC_ISO8859_2}, {"iso-8859-2", WN_ENC_ISO8859_2},
    {"iso-ir-101", WN_ENC_ISO8859_2}, {"iso8859-2", WN_ENC_ISO8859_2},
    {"iso88592", WN_ENC_ISO8859_2}, {"iso_8859-2", WN_ENC_ISO8859_2},
    {"iso_8859-2:1987", WN_ENC_ISO8859_2}, {"l2", WN_ENC_ISO8859_2},
    {"latin2", WN_ENC_ISO8859_2},
    {"csisolatin3", WN_ENC_ISO8859_3}, {"iso-8859-3", WN_ENC_ISO8859_3},
    {"iso-ir-109", WN_ENC_ISO8859_3}, {"iso8859-3", WN_ENC_ISO8859_3},
    {"iso88593", WN_ENC_ISO8859_3}, {"iso_8859-3", WN_ENC_ISO8859_3},
    {"iso_8859-3:1988", WN_ENC_ISO8859_3}, {"l3", WN_ENC_ISO8859_3},
    {"latin3", WN_ENC_ISO8859_3},
    {"csisolatin4", WN_ENC_ISO8859_4}, {"iso-8859-4", WN_ENC_ISO8859_4},
    {"iso-ir-110", WN_ENC_ISO8859_4}, {"iso8859-4", WN_ENC_ISO8859_4},
    {"iso88594", WN_ENC_ISO8859_4}, {"iso_8859-4", WN_ENC_ISO8859_4},
    {"iso_8859-4:1988", WN_ENC_ISO8859_4}, {"l4", WN_ENC_ISO8859_4},
    {"latin4", WN_ENC_ISO8859_4},
    {"csisolatincyrillic", WN_ENC_ISO8859_5}, {"cyrillic", WN_ENC_ISO8859_5},
    {"iso-8859-5", WN_ENC_ISO8859_5}, {"iso-ir-144", WN_ENC_ISO8859_5},
    {"iso8859-5", WN_ENC_ISO8859_5}, {"iso88595", WN_ENC_ISO8859_5},
    {"iso_8859-5", WN_ENC_ISO8859_5}, {"iso_8859-5:1988", WN_ENC_ISO8859_5},
    {"arabic", WN_ENC_ISO8859_6}, {"asmo-708", WN_ENC_ISO8859_6},
    {"csiso88596e", WN_ENC_ISO8859_6}, {"csiso88596i", WN_ENC_ISO8859_6},
    {"csisolatinarabic", WN_ENC_ISO8859_6}, {"ecma-114", WN_ENC_ISO8859_6},
    {"iso-8859-6", WN_ENC_ISO8859_6}, {"iso-8859-6-e", WN_ENC_ISO8859_6},
    {"iso-8859-6-i", WN_ENC_ISO8859_6}, {"iso-ir-127", WN_ENC_ISO8859_6},
    {"iso8859-6", WN_ENC_ISO8859_6}, {"iso88596", WN_ENC_ISO8859_6},
    {"iso_8859-6", WN_ENC_ISO8859_6}, {"iso_8859-6:1987", WN_ENC_ISO8859_6},
    {"csisolatingreek", WN_ENC_ISO8859_7}, {"ecma-118", WN_ENC_ISO8859_7},
    {"elot_928", WN_ENC_ISO8859_7}, {"greek", WN_ENC_ISO8859_7},
    {"greek8", WN_ENC_ISO8859_7}, {"iso-8859-7", WN_ENC_ISO8859_7},
    {"iso-ir-126", WN_ENC_ISO8859_7}, {"iso8859-7", WN_ENC_ISO8859_7},
    {"iso88597", WN_ENC_ISO8859_7}, {"iso_8859-7", WN_ENC_ISO8859_7},
    {"iso_8859-7:1987", WN_ENC_ISO8859_7}, {"sun_eu_greek", WN_ENC_ISO8859_7},
    {"csiso88598e", WN_ENC_ISO8859_8}, {"csisolatinhebrew", WN_ENC_ISO8859_8},
    {"hebrew", WN_ENC_ISO8859_8}, {"iso-8859-8", WN_ENC_ISO8859_8},
    {"iso-8859-8-e", WN_ENC_ISO8859_8}, {"iso-ir-138", WN_ENC_ISO8859_8},
    {"iso8859-8", WN_ENC_ISO8859_8}, {"iso88598", WN_ENC_ISO8859_8},
    {"iso_8859-8", WN_ENC_ISO8859_8}, {"iso_8859-8:1988", WN_ENC_ISO8859_8},
    {"visual", WN_ENC_ISO8859_8},
    {"csiso88598i", WN_ENC_ISO8859_8I}, {"iso-8859-8-i", WN_ENC_ISO8859_8I},
    {"logical", WN_ENC_ISO8859_8I},
    {"csisolatin6", WN_ENC_ISO8859_10}, {"iso-8859-10", WN_ENC_ISO8859_10},
    {"iso-ir-157", WN_ENC_ISO8859_10}, {"iso8859-10", WN_ENC_ISO8859_10},
    {"iso885910", WN_ENC_ISO8859_10}, {"l6", WN_ENC_ISO8859_10},
    {"latin6", WN_ENC_ISO8859_10},
    {"iso-8859-13", WN_ENC_ISO8859_13}, {"iso8859-13", WN_ENC_ISO8859_13},
    {"iso885913", WN_ENC_ISO8859_13},
    {"iso-8859-14", WN_ENC_ISO8859_14}, {"iso8859-14", WN_ENC_ISO8859_14},
    {"iso885914", WN_ENC_ISO8859_14},
    {"csisolatin9", WN_ENC_ISO8859_15}, {"iso-8859-15", WN_ENC_ISO8859_15},
    {"iso8859-15", WN_ENC_ISO8859_15}, {"iso885915", WN_ENC_ISO8859_15},
    {"iso_8859-15", WN_ENC_ISO8859_15}, {"l9", WN_ENC_ISO8859_15},
    {"iso-8859-16", WN_ENC_ISO8859_16},
    {"cskoi8r", WN_ENC_KOI8R}, {"koi", WN_ENC_KOI8R}, {"koi8", WN_ENC_KOI8R},
    {"koi8-r", WN_ENC_KOI8R}, {"koi8_r", WN_ENC_KOI8R},
    {"koi8-ru", WN_ENC_KOI8U}, {"koi8-u", WN_ENC_KOI8U},
    {"csmacintosh", WN_ENC_MACINTOSH}, {"mac", WN_ENC_MACINTOSH},
    {"macintosh", WN_ENC_MACINTOSH}, {"x-mac-roman", WN_ENC_MACINTOSH},
    {"dos-874", WN_ENC_WIN874}, {"iso-8859-11", WN_ENC_WIN874},
    {"iso8859-11", WN_ENC_WIN874}, {"iso885911", WN_ENC_WIN874},
    {"tis-620", WN_ENC_WIN874}, {"windows-874", WN_ENC_WIN874},
    {"cp1250", WN_ENC_WIN1250}, {"windows-1250", WN_ENC_WIN1250},
    {"x-cp1250", WN_ENC_WIN1250},
    {"cp1251", WN_ENC_WIN1251}, {"windows-1251", WN_ENC_WIN1251},
    {"x-cp1251", WN_ENC_WIN1251},
    {"ansi_x3.4-1968", WN_ENC_WIN1252}, {"ascii", WN_ENC_WIN1252},
    {"cp1252", WN_ENC_WIN1252}, {"cp819", WN_ENC_WIN1252},
    {"csisolatin1", WN_ENC_WIN1252}, {"ibm819", WN_ENC_WIN1252},
    {"iso-8859-1", WN_ENC_WIN1252}, {"iso-ir-100", WN_ENC_WIN1252},
    {"iso8859-1", WN_ENC_WIN1252}, {"iso88591", WN_ENC_WIN1252},
    {"iso_8859-1", WN_ENC_WIN1252}, {"iso_8859-1:1987", WN_ENC_WIN1252},
    {"l1", WN_ENC_WIN1252}, {"latin1", WN_ENC_WIN1252},
    {"us-ascii", WN_ENC_WIN1252}, {"windows-1252", WN_ENC_WIN1252},
    {"x-cp1252", WN_ENC_WIN1252},
    {"cp1253", WN_ENC_WIN1253}, {"windows-1253", WN_ENC_WIN1253},
    {"x-cp1253", WN_ENC_WIN1253},
    {"cp1254", WN_ENC_WIN1254}, {"csisolatin5", WN_ENC_WIN1254},
    {"iso-8859-9", WN_ENC_WIN1254}, {"iso-ir-148", WN_ENC_WIN1254},
    {"iso8859-9", WN_ENC_WIN1254}, {"iso88599", WN_ENC_WIN1254},
    {"iso_8859-9", WN_ENC_WIN1254}, {"iso_8859-9:1989", WN_ENC_WIN1254},
    {"l5", WN_ENC_WIN1254}, {"latin5", WN_ENC_WIN1254},
    {"windows-1254", WN_ENC_WIN1254}, {"x-cp1254", WN_ENC_WIN1254},
    {"cp1255", WN_ENC_WIN1255}, {"windows-1255", WN_ENC_WIN1255},
    {"x-cp1255", WN_ENC_WIN1255},
    {"cp1256", WN_ENC_WIN1256}, {"windows-1256", WN_ENC_WIN1256},
    {"x-cp1256", WN_ENC_WIN1256},
    {"cp1257", WN_ENC_WIN1257}, {"windows-1257", WN_ENC_WIN1257},
    {"x-cp1257", WN_ENC_WIN1257},
    {"cp1258", WN_ENC_WIN1258}, {"windows-1258", WN_ENC_WIN1258},
    {"x-cp1258", WN_ENC_WIN1258},
    {"x-mac-cyrillic", WN_ENC_MACCYRILLIC}, {"x-mac-ukrainian", WN_ENC_MACCYRILLIC},
    {"mac-cyrillic", WN_ENC_MACCYRILLIC}, {"maccyrillic", WN_ENC_MACCYRILLIC},
    {"chinese", WN_ENC_GBK}, {"csgb2312", WN_ENC_GBK},
    {"csiso58gb231280", WN_ENC_GBK}, {"gb2312", WN_ENC_GBK},
    {"gb_2312", WN_ENC_GBK}, {"gb_2312-80", WN_ENC_GBK}, {"gbk", WN_ENC_GBK},
    {"iso-ir-58", WN_ENC_GBK}, {"x-gbk", WN_ENC_GBK}, {"euc-cn", WN_ENC_GBK},
    {"gb18030", WN_ENC_GB18030},
    {"big5", WN_ENC_BIG5}, {"big5-hkscs", WN_ENC_BIG5}, {"cn-big5", WN_ENC_BIG5},
    {"csbig5", WN_ENC_BIG5}, {"x-x-big5", WN_ENC_BIG5},
    {"cseucpkdfmtjapanese", WN_ENC_EUCJP}, {"euc-jp", WN_ENC_EUCJP},
    {"x-euc-jp", WN_ENC_EUCJP},
    {"csiso2022jp", WN_ENC_ISO2022JP}, {"iso-2022-jp", WN_ENC_ISO2022JP},
    {"csshiftjis", WN_ENC_SHIFTJIS}, {"ms932", WN_ENC_SHIFTJIS},
    {"ms_kanji", WN_ENC_SHIFTJIS}, {"shift-jis", WN_ENC_SHIFTJIS},
    {"shift_jis", WN_ENC_SHIFTJIS}, {"sjis", WN_ENC_SHIFTJIS},
    {"windows-31j", WN_ENC_SHIFTJIS}, {"x-sjis", WN_ENC_SHIFTJIS},
    {"cp932", WN_ENC_SHIFTJIS},
    {"cseuckr", WN_ENC_EUCKR}, {"csksc56011987", WN_ENC_EUCKR},
    {"euc-kr", WN_ENC_EUCKR}, {"iso-ir-149", WN_ENC_EUCKR},
    {"korean", WN_ENC_EUCKR}, {"ks_c_5601-1987", WN_ENC_EUCKR},
    {"ks_c_5601-1989", WN_ENC_EUCKR}, {"ksc5601", WN_ENC_EUCKR},
    {"ksc_5601", WN_ENC_EUCKR}, {"windows-949", WN_ENC_EUCKR},
    {"uhc", WN_ENC_EUCKR}, {"cp949", WN_ENC_EUCKR},
    {"unicodefffe", WN_ENC_UTF16BE}, {"utf-16be", WN_ENC_UTF16BE},
    {"csunicode", WN_ENC_UTF16LE}, {"iso-10646-ucs-2", WN_ENC_UTF16LE},
    {"ucs-2", WN_ENC_UTF16LE}, {"unicode", WN_ENC_UTF16LE},
    {"unicodefeff", WN_ENC_UTF16LE}, {"utf-16", WN_ENC_UTF16LE},
    {"utf-16le", WN_ENC_UTF16LE},
};

void wn_dom_charset_reset(wn_charset_choice *choice) {
  if (choice->cd != WN_NO_ICONV)
    iconv_close(choice->cd);
  choice->name[0] = '\0';
  choice->flags = 0;
  choice->cd = WN_NO_ICONV;
}


static void wn_copy_name(char *dst, size_t cap, const char *src) {
  size_t n = strlen(src);
  if (n >= cap)
    n = cap - 1;
  memcpy(dst, src, n);
  dst[n] = '\0';
}

/*
 * Decides whether a label not in our table still names a charset we can
 * use: iconv must know it and it must read printable ASCII as ASCII (the
 * page's markup, including the label, was ASCII; this refuses UTF-7,
 * UTF-32, EBCDIC and the like, which WHATWG refuses too).
 */
static int wn_charset_ascii_compatible(iconv_t cd) {
  char probe[95];
  char back[sizeof probe * 4];
  for (size_t i = 0; i < sizeof probe; i++)
    probe[i] = (char)(0x20 + i);
  char *in = probe;
  size_t in_left = sizeof probe;
  char *outp = back;
  size_t out_left = sizeof back;
  size_t rc = iconv(cd, &in, &in_left, &outp, &out_left);
  int ok = rc != (size_t)-1 && in_left == 0 && (size_t)(outp - back) == sizeof probe &&
           memcmp(probe, back, sizeof probe) == 0;
  iconv(cd, NULL, NULL, NULL, NULL); /* back to the initial state */
  return ok;
}

/* Chooses one of wn_encodings by its index (UTF-8 needs no converter);
 * 0 when iconv lacks it. */
int wn_dom_charset_encoding(int index, wn_charset_choice *choice) {
  const wn_charset_encoding *enc = &wn_encodings[index];
  iconv_t cd = WN_NO_ICONV;
  if (!(enc->flags & WN_CS_UTF8)) {
    cd = iconv_open("UTF-8", enc->iconv);
    if (cd == WN_NO_ICONV)
      return 0;
  }
  wn_dom_charset_reset(choice);
  wn_copy_name(choice->name, sizeof choice->name, enc->name);
  choice->flags = enc->flags;
  choice->cd = cd;
  return 1;
}

/*
 * Resolves a label (WHATWG Encoding, "get an encoding": ASCII whitespace
 * trimmed, case-insensitive), trimming quotes too since pages write
 * charset="'utf-8'" and worse. Returns 1 with *choice filled (and its iconv
 * descriptor open) when the label names a charset we can decode, else 0.
 */
int wn_dom_charset_resolve(const char *label, size_t len, wn_charset_choice *choice) {
  while (len > 0 && (wn_html_space(label[0]) || label[0] == '"' ||
                     label[0] == '\'')) {
    label++;
    len--;
  }
  while (len > 0 && (wn_html_space(label[len - 1]) ||
                     label[len - 1] == '"' || label[len - 1] == '\''))
    len--;
  if (len == 0 || len > WN_DECODE_LABEL_MAX)
    return 0;
  char lower[WN_DECODE_LABEL_MAX + 1];
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)label[i];
    /* Only characters charset names use; this also keeps iconv's
     * "//TRANSLIT" suffixes and control bytes out of iconv_open. */
    int ok = wn_ascii_alnum(c) || c == '-' || c == '_' || c == '.' || c == ':';
    if (!ok)
      return 0;
    lower[i] = wn_ascii_lower((char)c);
  }
  lower[len] = '\0';

  const wn_charset_encoding *enc = NULL;
  for (size_t i = 0; i < sizeof wn_labels / sizeof wn_labels[0]; i++) {
    if (strcmp(wn_labels[i].label, lower) == 0) {
      enc = &wn_encodings[wn_labels[i].encoding];
      break;
    }
  }
  if (enc)
    return wn_dom_charset_encoding((int)(enc - wn_encodings), choice);

  /* Not a WHATWG label: let iconv try it, under the ASCII rule above.
   * We know nothing of its shape, so no contradiction check applies. */
  iconv_t cd = iconv_open("UTF-8", lower);
  if (cd == WN_NO_ICONV)
    return 0;
  if (!wn_charset_ascii_compatible(cd)) {
    iconv_close(cd);
    return 0;
  }
  wn_dom_charset_reset(choice);
  for (size_t i = 0; i < len && i + 1 < sizeof choice->name; i++) {
    choice->name[i] = wn_ascii_upcase(lower[i]);
    choice->name[i + 1] = '\0';
  }
  choice->cd = cd;
  return 1;
}

void wn_dom_charset_utf8(wn_charset_choice *choice) {
  wn_dom_charset_reset(choice);
  wn_copy_name(choice->name, sizeof choice->name, wn_encodings[WN_ENC_UTF8].name);
  choice->flags = WN_CS_UTF8;
}

