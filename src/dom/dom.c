/*
 * dom/dom.c: libxml2's HTML parser (recovering from broken markup) into the
 * compact tree of dom.h: straight from its SAX2 events by default
 * (build_sax.c), or, for a page that keeps libxml2's document (keep_xml),
 * copied from that tree (build_xml.c). Both give the same compact tree
 * (tests/dom/test_sax.c): they emit its nodes through the steps of
 * emit.c. Here: the parse, the page's life and its accessors.
 */
#include "dom/dom.h"
#include "dom/build.h"
#include "dom/dom_int.h"

#include <libxml/HTMLparser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Subtree ends, depth-free text sums: one backward pass over the pre-order
 * array adds each node's counts to its parent. */
static void wn_finish(wn_dom_page *page) {
  wn_dom_node *nodes = page->nodes;
  for (uint32_t i = 0; i < page->count; i++) {
    nodes[i].end = i + 1;
    if (nodes[i].tag == WN_TAG_TEXT) {
      nodes[i].text_len = nodes[i].own_text_len;
      nodes[i].link_text_len = (nodes[i].flags & WN_DOM_IN_LINK) ? nodes[i].own_text_len : 0;
    }
  }
  for (uint32_t i = page->count; i-- > 0;) {
    uint32_t p = nodes[i].parent;
    if (p == WN_DOM_NONE)
      continue;
    if (nodes[i].end > nodes[p].end)
      nodes[p].end = nodes[i].end;
    nodes[p].text_len += nodes[i].text_len;
    nodes[p].link_text_len += nodes[i].link_text_len;
  }
  page->body = WN_DOM_NONE;
  for (uint32_t i = 0; i < page->count; i++)
    if (nodes[i].tag == WN_TAG_BODY) {
      page->body = i;
      break;
    }
}

static wn_err wn_dom_parse_pass(const char *bytes, size_t len, const wn_dom_options *opts,
                                int noscript_content, wn_dom_page **out, wn_diag *diag) {
  wn_err err = WN_OK;
  wn_dom_page *page = NULL;
  wn_dom_decoded decoded = {0};
  xmlDocPtr doc = NULL;
  wn_builder builder = {.page = NULL, .cap = 0, .max_nodes = 0, .last_text = WN_DOM_NONE,
                        .noscript_content = noscript_content};
  *out = NULL;

  size_t max_bytes = opts && opts->max_bytes ? opts->max_bytes : WN_DOM_DEFAULT_MAX_BYTES;
  uint32_t max_nodes = opts && opts->max_nodes ? opts->max_nodes : WN_DOM_DEFAULT_MAX_NODES;
  uint32_t max_depth = opts && opts->max_depth ? opts->max_depth : WN_DOM_DEFAULT_MAX_DEPTH;
  int keep_xml = opts ? opts->keep_xml : 0;
  if (!bytes && len)
    return wn_diag_set(diag, WN_EINVAL, "page: no bytes");
  if (len > max_bytes)
    return wn_diag_set(diag, WN_ETOOBIG, "page is %zu bytes, past the cap of %zu", len,
                       max_bytes);
  if (len > INT32_MAX)
    return wn_diag_set(diag, WN_ETOOBIG, "page is too large for the HTML parser");
  wn_buf_init(&builder.pre_space, max_bytes);

  /* A compressed body, a PDF, an image: refused, not "extracted" as
   * windows-1252 mojibake. */
  err = wn_dom_sniff(bytes, len, opts ? opts->transport_charset : NULL, diag);
  if (err)
    return err;

  page = calloc(1, sizeof *page);
  if (!page)
    return WN_ENOMEM;
  /* The arena's cap bounds a page's memory: the tree is at most a small
   * multiple of the decoded text plus a per-node cost. */
  page->arena = wn_arena_create(0);
  if (!page->arena) {
    err = WN_ENOMEM;
    goto out;
  }
  page->input_bytes = len;

  const double t0 = wn_clock_ms();
  err = wn_dom_decode(bytes ? bytes : "", len, opts ? opts->transport_charset : NULL,
                      max_bytes, &decoded, diag);
  page->decode_ms = wn_clock_ms() - t0;
  if (err)
    goto out;
  snprintf(page->charset, sizeof page->charset, "%s", decoded.charset);
  page->charset_source = decoded.source;

  builder.page = page;
  builder.max_nodes = max_nodes;
  builder.max_depth = max_depth;
  wn_emit_reserve(&builder, decoded.utf8, decoded.len);
  if (decoded.len > 0) {
    /* The bytes are UTF-8 now: IGNORE_ENC keeps libxml2 from switching
     * encodings again on a <meta charset>. */
    const int options = HTML_PARSE_RECOVER | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING |
                        HTML_PARSE_NONET | HTML_PARSE_IGNORE_ENC | HTML_PARSE_COMPACT;
    if (keep_xml) {
      err = wn_build_xml(&builder, decoded.utf8, decoded.len, options, &doc, diag);
    } else {
      err = wn_build_sax(&builder, decoded.utf8, decoded.len, options, diag);
    }
    if (err)
      goto out;
  }
  if (page->count <= 1) {
    /* Nothing but a bare root: give it the <html><body> of an empty page. */
    page->count = 0;
    err = wn_emit_empty(&builder);
    if (err)
      goto out;
  }
  wn_finish(page);
  if (keep_xml && doc) {
    page->doc = doc;
    doc = NULL;
  }
  *out = page;
  page = NULL;
out:
  wn_buf_free(&builder.pre_space);
  if (doc)
    xmlFreeDoc(doc);
  wn_dom_decoded_free(&decoded);
  wn_dom_free(page);
  if (err == WN_ENOMEM)
    wn_diag_set(diag, err, "page: out of memory while building the tree");
  return err;
}

/* The bytes that lie inside <noscript> elements (any case): from
 * each "<noscript" to the next "</noscript", or to the end when none
 * closes it. 0: the page has none. */
static size_t wn_noscript_bytes(const char *bytes, size_t len) {
  static const char open[] = "<noscript", close[] = "</noscript";
  size_t total = 0, start = 0;
  int inside = 0;
  for (size_t i = 0; i < len;) {
    const char *p = memchr(bytes + i, '<', len - i);
    if (!p)
      break;
    i = (size_t)(p - bytes);
    const char *tag = inside ? close : open;
    const size_t n = inside ? sizeof close - 1 : sizeof open - 1;
    size_t k = 1;
    while (k < n && i + k < len && (p[k] | 0x20) == tag[k])
      k++;
    if (k == n) {
      if (inside)
        total += i - start;
      else
        start = i;
      inside = !inside;
      i += n;
      continue;
    }
    i++;
  }
  if (inside)
    total += len - start;
  return total;
}

/*
 * A <noscript> is left out of the tree: what a page shows without
 * scripts is no part of the page a reader sees. Two kinds of page are
 * read with noscript as content instead (a second parse):
 *  - libxml2 parses a noscript's content as markup, and an element left
 *    open inside it (a "<noscript><div id=nojs></noscript>" at the top of
 *    a body: HTML's parser reads it as text when scripts run) keeps the
 *    noscript open to the end of the body, so the whole page lies inside
 *    it;
 *  - a page whose scripts draw everything (a forum's single-page
 *    application) and whose server sends the same content in a noscript
 *    for readers without scripts and for crawlers: the page outside
 *    noscript is a shell (a site name, "Loading").
 * Both have little text outside noscript and much markup inside it: the
 * second parse runs when the noscripts' bytes are more than
 * WN_DOM_NOSCRIPT_MARKUP times the text outside them (a page of a few
 * tracking pixels in noscript never pays for it), or when the first tree
 * holds less than one byte of text in WN_DOM_NOSCRIPT_PAGE of the page's
 * (the noscript left open may be short), and its tree is taken
 * when more of the page's text lies inside noscript than outside.
 */
#define WN_DOM_NOSCRIPT_MARKUP 16u /* a page's markup is rarely 16 bytes per byte of its text */
/* Or when the tree holds next to nothing for the page's size: a
 * "<noscript><div></noscript>" whose own bytes are few may still have
 * swallowed the page. */
#define WN_DOM_NOSCRIPT_PAGE 256u

wn_err wn_dom_parse(const char *bytes, size_t len, const wn_dom_options *opts,
                    wn_dom_page **out, wn_diag *diag) {
  const double t0 = wn_clock_ms();
  wn_err err = wn_dom_parse_pass(bytes, len, opts, 0, out, diag);
  if (err)
    return err;
  double decode_ms = (*out)->decode_ms; /* every pass's */
  if (!bytes)
    goto out;
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(*out, &count);
  const uint64_t text = count ? nodes[0].text_len : 0;
  const size_t inside = (*out)->noscript ? wn_noscript_bytes(bytes, len) : 0;
  if (inside == 0 ||
      (WN_DOM_NOSCRIPT_MARKUP * text >= inside && WN_DOM_NOSCRIPT_PAGE * text >= len))
    goto out;
  wn_dom_page *again = NULL;
  err = wn_dom_parse_pass(bytes, len, opts, 1, &again, diag);
  if (err) {
    err = err == WN_ENOMEM ? err : WN_OK; /* the first tree stands */
    goto out;
  }
  decode_ms += again->decode_ms;
  nodes = wn_dom_nodes(again, &count);
  if (count && nodes[0].text_len > 2 * text) {
    wn_dom_free(*out);
    *out = again;
  } else {
    wn_dom_free(again);
  }
out:
  (*out)->decode_ms = decode_ms;
  (*out)->parse_ms = wn_clock_ms() - t0 - decode_ms;
  return err;
}

void wn_dom_free(wn_dom_page *page) {
  if (!page)
    return;
  if (page->doc)
    xmlFreeDoc(page->doc);
  free(page->attrs);
  free(page->meta);
  wn_arena_destroy(page->arena);
  free(page);
}

const wn_dom_node *wn_dom_nodes(const wn_dom_page *page, uint32_t *count) {
  if (count)
    *count = page->count;
  return page->nodes;
}

uint32_t wn_dom_body(const wn_dom_page *page) { return page->body; }
int wn_dom_cut_short(const wn_dom_page *page) { return page->cut_short; }

/* Whether two strings are equal up to their first white space (token)
 * or wholly (whole), runs of digits alike. */
static int wn_dom_shape_eq(const char *a, const char *b, int token) {
  const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
  for (;;) {
    const int x_end = !*x || (token && wn_html_space(*x));
    const int y_end = !*y || (token && wn_html_space(*y));
    if (x_end || y_end)
      return x_end && y_end;
    if (wn_ascii_digit(*x) && wn_ascii_digit(*y)) {
      while (wn_ascii_digit(*x))
        x++;
      while (wn_ascii_digit(*y))
        y++;
    } else if (*x++ != *y++) {
      return 0;
    }
  }
}

int wn_dom_like(const wn_dom_node *a, const wn_dom_node *b) {
  if (a->tag != b->tag || !a->cls || !b->cls || wn_html_space((unsigned char)a->cls[0]) ||
      !a->cls[0] || !a->id != !b->id)
    return 0;
  return (!a->id || wn_dom_shape_eq(a->id, b->id, 0)) && wn_dom_shape_eq(a->cls, b->cls, 1);
}

int wn_dom_data_table(const wn_dom_page *page, uint32_t t) {
  const wn_dom_node *nodes = page->nodes;
  if (t >= page->count || nodes[t].tag != WN_TAG_TABLE)
    return 0;
  uint32_t widest = 0;
  for (uint32_t j = t + 1; j < nodes[t].end; j++) {
    const wn_dom_node *n = &nodes[j];
    if (n->tag == WN_TAG_TABLE)
      return 0;
    if (n->tag != WN_TAG_TR)
      continue;
    uint32_t cells = 0;
    for (uint32_t c = n->first_child; c != WN_DOM_NONE; c = nodes[c].next_sibling)
      cells += nodes[c].tag == WN_TAG_TD || nodes[c].tag == WN_TAG_TH;
    if (cells > widest)
      widest = cells;
  }
  return widest >= 2;
}

const char *wn_dom_charset(const wn_dom_page *page) { return page->charset; }
wn_charset_source wn_dom_charset_source(const wn_dom_page *page) { return page->charset_source; }
size_t wn_dom_input_bytes(const wn_dom_page *page) { return page->input_bytes; }

void wn_dom_times(const wn_dom_page *page, double *decode_ms, double *parse_ms) {
  *decode_ms = page->decode_ms;
  *parse_ms = page->parse_ms;
}
size_t wn_dom_memory(const wn_dom_page *page) { return wn_arena_used(page->arena); }
void *wn_dom_xml_doc(const wn_dom_page *page) { return page->doc; }



const char *wn_dom_lang(const wn_dom_page *page) { return page->lang; }

const char *wn_dom_raw_text(const wn_dom_node *node) {
  if (node->tag != WN_TAG_TEXT || !node->text)
    return NULL;
  if (node->flags & WN_DOM_IN_PRE)
    return node->text + node->own_text_len + 1;
  return node->text;
}

/* One step of a node's path: '/', the tag name (at most WN_MAX_TAG_NAME
 * bytes, build.h), '[', a position, ']'. */
#define WN_PATH_SEGMENT_MAX (WN_MAX_TAG_NAME + 16)

wn_err wn_dom_node_path(const wn_dom_page *page, uint32_t i, wn_buf *out) {
  if (i >= page->count)
    return WN_EINVAL;
  /* Collect the ancestors, then print top-down. */
  uint32_t n = (uint32_t)page->nodes[i].depth + 1;
  uint32_t *chain = malloc((size_t)n * sizeof *chain);
  if (!chain)
    return WN_ENOMEM;
  n = 0;
  for (uint32_t k = i; k != WN_DOM_NONE && n <= page->nodes[i].depth; k = page->nodes[k].parent)
    chain[n++] = k;
  wn_err err = WN_OK;
  while (n-- > 0) {
    const wn_dom_node *node = &page->nodes[chain[n]];
    uint32_t position = 1;
    if (node->parent != WN_DOM_NONE) {
      for (uint32_t s = page->nodes[node->parent].first_child; s != chain[n];
           s = page->nodes[s].next_sibling)
        if (page->nodes[s].tag == node->tag &&
            (page->nodes[s].name == node->name || strcmp(page->nodes[s].name, node->name) == 0))
          position++;
    }
    /* "/name[position]", written without printf: a result's paths are a
     * good part of a JSON line's cost. */
    const char *name = node->tag == WN_TAG_TEXT ? "text()" : node->name;
    char digits[10];
    size_t nd = 0;
    do
      digits[nd++] = (char)('0' + position % 10);
    while ((position /= 10) > 0);
    char seg[WN_PATH_SEGMENT_MAX];
    size_t len = 0, name_len = strlen(name);
    if (name_len > sizeof seg - sizeof digits - 3)
      name_len = sizeof seg - sizeof digits - 3;
    seg[len++] = '/';
    memcpy(seg + len, name, name_len);
    len += name_len;
    seg[len++] = '[';
    while (nd > 0)
      seg[len++] = digits[--nd];
    seg[len++] = ']';
    err = wn_buf_append(out, seg, len);
    if (err)
      break;
  }
  free(chain);
  return err;
}
