/*
 * dom: bytes in, compact page tree out.
 *
 *   bytes --wn_dom_decode--> UTF-8 --libxml2 HTML parser--> compact tree
 *
 * The compact tree is what every algorithm walks: nodes sit in one array in
 * document (pre-)order, so the subtree of node i is the index range
 * [i, node.end) and no walk ever needs recursion. Tag names are interned,
 * whitespace in text is collapsed, and text lengths and subtree ends are
 * precomputed. Everything belongs to one arena per page and goes with
 * wn_dom_free().
 *
 * Not content, and therefore not in the tree: comments, processing
 * instructions, <head>, and the subtrees of script, style, noscript,
 * template, svg, math, iframe, object, embed, canvas, and of the form
 * controls whose text is user interface (select, datalist, textarea).
 */
#ifndef WN_DOM_H
#define WN_DOM_H

#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

#include <winnow/winnow.h>

#define WN_DOM_NONE UINT32_MAX

/* Caps on what a page may cost us. Past one, parsing fails with
 * WN_ETOOBIG / WN_ETOOMANY / WN_ETOODEEP and a message naming the cap.
 * Bytes are checked before parsing; nodes and depth as the parser's events
 * arrive, which stop it (a page of millions of nodes costs what its first
 * max_nodes do). libxml2 itself stops nesting past 256 open elements, so
 * depth caps of 256 and more are never reached. */
#define WN_DOM_DEFAULT_MAX_BYTES WN_PAGE_MAX_BYTES /* winnow.h */
#define WN_DOM_DEFAULT_MAX_NODES WN_PAGE_MAX_NODES
#define WN_DOM_DEFAULT_MAX_DEPTH WN_PAGE_MAX_DEPTH

/* ---- charset decoding --------------------------------------------------- */

/* Where the charset of a page came from, in the order we look. */
typedef enum wn_charset_source {
  WN_CHARSET_BOM,       /* a byte order mark */
  WN_CHARSET_TRANSPORT, /* given by the caller (HTTP Content-Type) */
  WN_CHARSET_META,      /* <meta charset> or <meta http-equiv content-type> */
  WN_CHARSET_GUESS,     /* uchardet, because nothing was declared or the
                           declaration was contradicted by the bytes */
  WN_CHARSET_DEFAULT    /* nothing to go on: windows-1252, as browsers do;
                           pure ASCII and valid UTF-8 are taken as UTF-8 */
} wn_charset_source;

/* "bom", "transport", "meta", "guess", "default". */
const char *wn_charset_source_name(wn_charset_source source);

typedef struct wn_dom_decoded {
  char *utf8;          /* malloc'd, NUL-terminated UTF-8; free with _free */
  size_t len;          /* bytes, without the NUL */
  char charset[48];    /* canonical name actually used, e.g. "windows-1252" */
  wn_charset_source source;
} wn_dom_decoded;

/*
 * Decodes a page to UTF-8. Order: BOM (UTF-8, UTF-16, UTF-32); UTF-16 or
 * UTF-32 without a BOM, told by where the zero bytes of ASCII characters
 * fall (source WN_CHARSET_GUESS, or TRANSPORT when the transport charset
 * says the same); the transport charset (may be NULL);
 * a <meta> declaration in the first 4096 bytes; else a guess. A declaration
 * the bytes contradict (declared UTF-8 but invalid UTF-8; declared a
 * single-byte charset but the bytes are valid, non-ASCII UTF-8) is
 * overruled by the guess and the source says WN_CHARSET_GUESS.
 * ISO-8859-1 and US-ASCII are decoded as windows-1252 (WHATWG Encoding).
 * Bytes that cannot be decoded become U+FFFD; nothing is dropped silently.
 * Output larger than max_bytes (0: WN_DOM_DEFAULT_MAX_BYTES): WN_ETOOBIG.
 */
wn_err wn_dom_decode(const char *bytes, size_t len, const char *transport_charset,
                     size_t max_bytes, wn_dom_decoded *out, wn_diag *diag);
void wn_dom_decoded_free(wn_dom_decoded *decoded);

/*
 * Refuses bytes that are no text, before any decoding: WN_ENOTHTML with a
 * message naming what was seen ("not an HTML page: gzip data", "... PDF
 * document", "... PNG image", "... binary data (NUL bytes: ...)"). The
 * rule: a known file signature at the start, or, in the first KiB, NUL
 * bytes (1% or more) or C0 control bytes other than white space and ESC
 * (5% or more) in bytes that are not UTF-16 or UTF-32 text (by a byte order
 * mark, the places of their zero bytes, or, for the control bytes, a
 * transport_charset naming UTF-16). WN_OK for anything else, empty input
 * included. wn_dom_parse calls it; wn_dom_decode does not (it decodes any
 * bytes).
 */
wn_err wn_dom_sniff(const char *bytes, size_t len, const char *transport_charset,
                    wn_diag *diag);

/* ---- the compact tree --------------------------------------------------- */

/* Tags the algorithms look at; everything else is WN_TAG_OTHER (its name
 * is still interned in wn_dom_node.name). */
typedef enum wn_dom_tag {
  WN_TAG_TEXT = 0, /* a text node */
  WN_TAG_OTHER,
  WN_TAG_HTML, WN_TAG_BODY, WN_TAG_A, WN_TAG_P, WN_TAG_DIV, WN_TAG_SPAN,
  WN_TAG_H1, WN_TAG_H2, WN_TAG_H3, WN_TAG_H4, WN_TAG_H5, WN_TAG_H6,
  WN_TAG_UL, WN_TAG_OL, WN_TAG_LI, WN_TAG_DL, WN_TAG_DT, WN_TAG_DD,
  WN_TAG_TABLE, WN_TAG_TBODY, WN_TAG_THEAD, WN_TAG_TFOOT, WN_TAG_TR, WN_TAG_TD, WN_TAG_TH,
  WN_TAG_BR, WN_TAG_HR, WN_TAG_IMG, WN_TAG_FORM, WN_TAG_INPUT, WN_TAG_SELECT,
  WN_TAG_OPTION, WN_TAG_BUTTON, WN_TAG_TEXTAREA, WN_TAG_LABEL,
  WN_TAG_NAV, WN_TAG_HEADER, WN_TAG_FOOTER, WN_TAG_ASIDE, WN_TAG_MAIN,
  WN_TAG_ARTICLE, WN_TAG_SECTION, WN_TAG_BLOCKQUOTE, WN_TAG_PRE,
  WN_TAG_FIGURE, WN_TAG_FIGCAPTION, WN_TAG_CENTER, WN_TAG_FONT,
  WN_TAG_B, WN_TAG_I, WN_TAG_EM, WN_TAG_STRONG,
  WN_TAG_COUNT
} wn_dom_tag;

/* Node flags. */
#define WN_DOM_BLOCK 0x01u   /* a block-level element: text output breaks a line */
#define WN_DOM_IN_LINK 0x02u /* a text node inside an <a href> */
/* Text nodes: the source had white space before / after this text (trimmed
 * from `text`, or white-space-only text next to it). Text output puts a
 * space between two inline texts only where one of them says so, as a
 * browser renders "<b>un</b>believable" as one word. */
#define WN_DOM_SPACE_BEFORE 0x04u
#define WN_DOM_SPACE_AFTER 0x08u
/* Text nodes inside pre (or listing, xmp, plaintext): wn_dom_raw_text
 * gives the text as written, line breaks included. */
#define WN_DOM_IN_PRE 0x10u
/* Elements: the source had white space right before the start tag (the
 * text in front of it, in the same parent, ends in ASCII white space).
 * Kept for <img> only: Markdown joins an image to the text before it as a
 * browser does. */
#define WN_DOM_WS_BEFORE 0x20u

typedef struct wn_dom_node {
  uint32_t parent;       /* WN_DOM_NONE for the root */
  uint32_t first_child;  /* WN_DOM_NONE if none */
  uint32_t next_sibling; /* WN_DOM_NONE if none */
  uint32_t end;          /* one past the subtree: it is [index, end) */
  uint32_t n_children;
  uint32_t text_len;      /* bytes of collapsed text in the subtree */
  uint32_t link_text_len; /* of which inside <a href> */
  uint16_t depth;         /* root = 0 */
  uint8_t tag;            /* wn_dom_tag */
  uint8_t flags;          /* WN_DOM_* */
  /* Equality signature, the node equality of the ETDM mapping
   * (site-level paper, Sec. 2.2): elements hash the tag name, id and
   * class; text nodes hash their text. Runs of digits count as one digit
   * and URL-like ids are reduced to their shape, because those vary from
   * page to page of one template. */
  uint64_t sig;
  const char *name;     /* interned lower-case tag name; "#text" for text */
  const char *id;       /* id attribute or NULL */
  const char *cls;      /* class attribute or NULL */
  const char *text;     /* text nodes: collapsed text (NUL-terminated); every
                           algorithm reads this one (see wn_dom_raw_text) */
  uint32_t own_text_len;/* text nodes: strlen(text) */
  uint32_t attrs;       /* elements: their kept attributes (wn_dom_attr), 0:
                           none */
  void *xml;            /* the libxml2 node while the page keeps its doc */
} wn_dom_node;

typedef struct wn_dom_page wn_dom_page;

typedef struct wn_dom_options {
  size_t max_bytes;             /* 0: default */
  uint32_t max_nodes;           /* 0: default */
  uint32_t max_depth;           /* 0: default */
  const char *transport_charset;/* charset from HTTP, or NULL */
  int keep_xml;                 /* keep the libxml2 doc (needed to render HTML):
                                   the tree is then copied from libxml2's; else
                                   it is built from the parser's SAX2 events
                                   and no libxml2 tree exists (faster; the
                                   same tree) */
} wn_dom_options;

/* Parses a page. opts may be NULL (defaults). An empty page is a valid
 * page whose tree is a lone <html><body>. */
wn_err wn_dom_parse(const char *bytes, size_t len, const wn_dom_options *opts,
                    wn_dom_page **out, wn_diag *diag);
void wn_dom_free(wn_dom_page *page);

/* The nodes, valid until wn_dom_free(). Node 0 is the root (<html>). */
const wn_dom_node *wn_dom_nodes(const wn_dom_page *page, uint32_t *count);
/* Index of <body>, WN_DOM_NONE if there is none. */
uint32_t wn_dom_body(const wn_dom_page *page);
/* Why the parse ended before the page did, as libxml2's tree builder
 * ends it (the tree holds what came before): 0 it did not,
 * WN_DOM_CUT_DEPTH past its nesting limit, WN_DOM_CUT_TEXT a text node
 * past its size limit. */
enum { WN_DOM_CUT_DEPTH = 1, WN_DOM_CUT_TEXT = 2 };
int wn_dom_cut_short(const wn_dom_page *page);
/* Whether the <table> at index t holds data: at least two cells in some
 * row and no table inside it (a layout table, or a one-column list set as
 * a table, does not). Markdown writes such a table as a pipe table;
 * output without tables (WN_RENDER_NO_TABLES) leaves it out. */
int wn_dom_data_table(const wn_dom_page *page, uint32_t t);
/* Two elements of one tag whose class attributes start with the same
 * token and whose ids (if any) are of one shape, runs of digits alike
 * ("post-2909", "post-3967"): a card and the next card, whose later
 * class tokens differ ("first", "sale", a category). Ids that differ by
 * a word ("panel-search", "panel-menu") name different components. */
int wn_dom_like(const wn_dom_node *a, const wn_dom_node *b);
const char *wn_dom_charset(const wn_dom_page *page);
wn_charset_source wn_dom_charset_source(const wn_dom_page *page);
/* Input bytes the page was parsed from. */
size_t wn_dom_input_bytes(const wn_dom_page *page);
/* Milliseconds wn_dom_parse spent decoding the bytes to UTF-8 and
 * building the tree (every pass: the noscript one too). */
void wn_dom_times(const wn_dom_page *page, double *decode_ms, double *parse_ms);
/* Bytes of arena memory the tree holds. */
size_t wn_dom_memory(const wn_dom_page *page);
/* The libxml2 document (htmlDocPtr) when parsed with keep_xml, else NULL. */
void *wn_dom_xml_doc(const wn_dom_page *page);

/* The text of a text node as written, for output: for WN_DOM_IN_PRE nodes
 * the source text with the white-space-only text before it (line breaks
 * between the spans of highlighted code), NUL-terminated; for other nodes
 * their collapsed text. Valid until wn_dom_free(). (Kept behind the
 * collapsed text in one allocation rather than in a field of every node:
 * pre is rare, nodes are many.) */
const char *wn_dom_raw_text(const wn_dom_node *node);

/* ---- what the renderers and the metadata read ------------------------------
 *
 * The compact tree keeps, besides id and class, the attributes Markdown
 * needs (href of <a>; src, data-src and alt of <img>; start of <ol>;
 * colspan and rowspan of <td>/<th>), and, in a side table that is not
 * content, what the metadata reader needs from the whole document (head
 * included): <meta>, <link>, <time>, <base> (in <head>), JSON-LD scripts,
 * <title>, <h1> and the root's lang. Both builders (SAX and keep_xml) fill
 * them the same (tests/dom/test_sax.c), so Markdown and metadata need no
 * libxml2 tree. Values are the attribute as libxml2 gives it ("" for an
 * attribute without a value), cut at WN_DOM_MAX_KEPT_VALUE bytes. */
#define WN_DOM_MAX_KEPT_VALUE ((size_t)65536)
/* Text of <title> and <h1> kept: the first 16 KiB (the metadata reader
 * reads no more); JSON-LD: up to 1 MiB, longer scripts are marked cut and
 * not kept (the reader skips them). At most WN_DOM_MAX_META_ITEMS items. */
#define WN_DOM_MAX_META_TEXT ((size_t)16384)
#define WN_DOM_MAX_JSONLD ((size_t)1024 * 1024)
#define WN_DOM_MAX_META_ITEMS 20000u

/* The value of kept attribute name ("href", "src", ...) of element node,
 * or NULL when it has none (or it is not one the tree keeps). Valid until
 * wn_dom_free(). */
const char *wn_dom_attr(const wn_dom_page *page, const wn_dom_node *node, const char *name);

typedef enum wn_dom_meta_kind {
  WN_DOM_META_TAG,   /* <meta>: name, property, itemprop, http_equiv, content */
  WN_DOM_META_LINK,  /* <link>: rel, href */
  WN_DOM_META_TIME,  /* <time>: datetime, pubdate, itemprop */
  WN_DOM_META_BASE,  /* the first <base> of a <head> child of the root: href */
  WN_DOM_META_JSONLD,/* <script type=application/ld+json>: text (NULL if cut) */
  WN_DOM_META_TITLE, /* <title>: text (up to the first with visible text) */
  WN_DOM_META_H1     /* <h1>: text (likewise) */
} wn_dom_meta_kind;

/* One element the metadata reader looks at, in document order (the order
 * of their start tags), anywhere under the root element. */
typedef struct wn_dom_meta {
  uint8_t kind;  /* wn_dom_meta_kind */
  uint8_t cut;   /* text longer than its cap (JSON-LD: text is NULL) */
  const char *name, *property, *itemprop, *http_equiv, *content;
  const char *rel, *href, *datetime, *pubdate;
  const char *text; /* text content (all text below the element), NUL-terminated */
} wn_dom_meta;

/* The metadata elements, valid until wn_dom_free(). */
const wn_dom_meta *wn_dom_meta_items(const wn_dom_page *page, uint32_t *count);
/* The root element's lang (else xml:lang) attribute, NULL if none. */
const char *wn_dom_lang(const wn_dom_page *page);

/* Appends an XPath-like path of node i, e.g. "/html[1]/body[1]/div[2]/p[1]"
 * (positions count same-name element siblings in the compact tree). */
wn_err wn_dom_node_path(const wn_dom_page *page, uint32_t i, wn_buf *out);

#endif /* WN_DOM_H */
