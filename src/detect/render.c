/*
 * detect/render.c: a result as plain text or as HTML; links made absolute.
 */
#include "detect/detect.h"
#include "detect/detect_int.h"
#include "fetch/fetch.h"

#include <stdlib.h>
#include <string.h>

#include <libxml/HTMLtree.h>
#include <libxml/tree.h>

/* Text output state: the line being written starts at line_start in out;
 * inside a pre run, pending_nl line breaks wait for the next visible
 * character (so leading and trailing blank lines of a pre are dropped). */
typedef struct wn_text_out {
  wn_buf *out;
  size_t line_start;
  uint32_t pending_nl;
  int pre_visible; /* the current pre run wrote a visible character */
} wn_text_out;

/* Ends the line: trailing blanks (pre lines may have them) are trimmed. */
static wn_err wn_text_newline(wn_text_out *t) {
  while (t->out->len > t->line_start &&
         (t->out->data[t->out->len - 1] == ' ' || t->out->data[t->out->len - 1] == '\t'))
    t->out->len--;
  if (t->out->data)
    t->out->data[t->out->len] = '\0';
  wn_err err = wn_buf_append_char(t->out, '\n');
  t->line_start = t->out->len;
  return err;
}

/* Preformatted text as written: each of its lines one output line. */
static wn_err wn_text_pre(wn_text_out *t, const char *raw) {
  wn_err err = WN_OK;
  for (const char *p = raw; *p && !err; p++) {
    if (*p == '\r')
      continue;
    if (*p == '\n') {
      /* Blanks before the line break go (only they could be on it). */
      while (t->out->len > t->line_start &&
             (t->out->data[t->out->len - 1] == ' ' || t->out->data[t->out->len - 1] == '\t'))
        t->out->len--;
      if (t->pre_visible)
        t->pending_nl++;
      continue;
    }
    for (; t->pending_nl > 0 && !err; t->pending_nl--)
      err = wn_text_newline(t);
    if (!err)
      err = wn_buf_append_char(t->out, *p);
    if (*p != ' ' && *p != '\t')
      t->pre_visible = 1;
  }
  if (!err && t->out->data)
    t->out->data[t->out->len] = '\0';
  return err;
}

/*
 * One line per block; within a block, texts join as a browser renders
 * them: a space only where the source had white space between them
 * (WN_DOM_SPACE_BEFORE / _AFTER) or where text left out (template text)
 * lay between, so "<b>un</b>believable", "H<sub>2</sub>O" and
 * "<a>manual</a>." stay words. Text inside pre keeps its lines.
 */
/* Content from outside the tree (JSON-LD articleBody): one line or
 * paragraph per line of the text, white space collapsed, empty lines
 * left out; as HTML, each line a <p> with &, < and > escaped. */
wn_err wn_detect_body_lines(const char *text, int mode, wn_buf *out) {
  wn_err err = WN_OK;
  const char *p = text;
  while (*p && !err) {
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    int started = 0, space = 0;
    for (size_t k = 0; k < n && !err; k++) {
      char c = p[k];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        space = started;
        continue;
      }
      if (!started && mode == WN_BODY_HTML)
        err = wn_buf_append_str(out, "<p>");
      if (!err && space)
        err = wn_buf_append_char(out, ' ');
      space = 0;
      started = 1;
      if (err)
        break;
      if (mode == WN_BODY_HTML && (c == '&' || c == '<' || c == '>'))
        err = wn_buf_append_str(out, c == '&' ? "&amp;" : c == '<' ? "&lt;" : "&gt;");
      else
        err = wn_buf_append_char(out, c);
    }
    if (!err && started)
      err = wn_buf_append_str(out, mode == WN_BODY_HTML ? "</p>\n" : "\n");
    p = e ? e + 1 : p + n;
  }
  return err;
}

wn_err wn_detect_render_text(const wn_dom_page *page, const wn_detect_result *result,
                             wn_buf *out) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  if (count != result->count)
    return WN_EINVAL;
  wn_err err = WN_OK;
  wn_text_out t = {.out = out, .line_start = out->len, .pending_nl = 0, .pre_visible = 0};
  int line_open = 0;
  uint32_t last_block = WN_DOM_NONE;
  uint32_t prev = WN_DOM_NONE; /* the text written last */
  int block_seen = 0;
  int gap = 0; /* text left out since prev */
  for (uint32_t k = 0; k < result->n_selected; k++) {
    uint32_t root = result->selected[k];
    for (uint32_t i = root; i < nodes[root].end; i++) {
      if (nodes[i].tag != WN_TAG_TEXT) {
        if (nodes[i].flags & WN_DOM_BLOCK)
          block_seen = 1;
        continue;
      }
      if (!result->keep[i]) {
        gap = 1;
        continue;
      }
      /* One line per block: break when a block element started since the
       * last text, or when this text sits in another block. */
      uint32_t block = nodes[i].parent;
      while (block != WN_DOM_NONE && !(nodes[block].flags & WN_DOM_BLOCK))
        block = nodes[block].parent;
      int pre = (nodes[i].flags & WN_DOM_IN_PRE) != 0;
      if (line_open && (block_seen || block != last_block)) {
        err = wn_text_newline(&t);
        t.pending_nl = 0;
        t.pre_visible = 0;
      } else if (line_open && !(pre && (nodes[prev].flags & WN_DOM_IN_PRE))) {
        if (gap || (nodes[prev].flags & WN_DOM_SPACE_AFTER) ||
            (nodes[i].flags & WN_DOM_SPACE_BEFORE))
          err = wn_buf_append_char(out, ' ');
      }
      if (!err)
        err = pre ? wn_text_pre(&t, wn_dom_raw_text(&nodes[i]))
                  : wn_buf_append(out, nodes[i].text, nodes[i].own_text_len);
      if (err)
        return err;
      line_open = 1;
      block_seen = 0;
      gap = 0;
      last_block = block;
      prev = i;
    }
    block_seen = 1; /* selected subtrees are separate blocks */
  }
  if (line_open)
    err = wn_text_newline(&t);
  if (!err && result->body_text)
    err = wn_detect_body_lines(result->body_text, WN_BODY_TEXT, out);
  return err;
}

wn_err wn_detect_render_html(const wn_dom_page *page, const wn_detect_result *result,
                             wn_buf *out, wn_diag *diag) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  if (count != result->count)
    return wn_diag_set(diag, WN_EINVAL, "detect: the result is for another page");
  /* Nothing selected, or a page without elements (its tree is the bare
   * <html><body> dom.c makes up, with no libxml2 node behind it, and an
   * empty input has no libxml2 doc at all): the HTML is empty, as the
   * text is. Only a selection that needs serialising needs the doc. */
  if (result->n_selected == 0 && result->body_text)
    return wn_detect_body_lines(result->body_text, WN_BODY_HTML, out);
  if (result->n_selected == 0 || (count <= 2 && nodes[0].text_len == 0))
    return WN_OK;
  xmlDocPtr doc = wn_dom_xml_doc(page);
  if (!doc)
    return wn_diag_set(diag, WN_EINVAL, "detect: HTML output needs a page parsed with keep_xml");
  wn_err err = WN_OK;
  for (uint32_t k = 0; k < result->n_selected && !err; k++) {
    xmlNodePtr node = nodes[result->selected[k]].xml;
    if (!node)
      continue;
    xmlBufferPtr xb = xmlBufferCreate();
    if (!xb)
      return WN_ENOMEM;
    if (htmlNodeDump(xb, doc, node) < 0)
      err = wn_diag_set(diag, WN_EIO, "detect: libxml2 could not serialise a node");
    else
      err = wn_buf_append(out, xmlBufferContent(xb), (size_t)xmlBufferLength(xb));
    if (!err)
      err = wn_buf_append_char(out, '\n');
    xmlBufferFree(xb);
  }
  return err;
}

/* ---- absolute URLs ------------------------------------------------------- */

/* Rewrites attr of el to its absolute form. */
static wn_err wn_html_absolute_attr(const wn_url_base *base, xmlNodePtr el, const char *attr,
                                    wn_buf *tmp) {
  xmlChar *v = xmlGetProp(el, (const xmlChar *)attr);
  if (!v)
    return WN_OK;
  wn_buf_reset(tmp);
  wn_err err = wn_url_base_resolve(base, (const char *)v, tmp);
  xmlFree(v);
  if (!err && tmp->len && !xmlSetProp(el, (const xmlChar *)attr, (const xmlChar *)tmp->data))
    err = WN_ENOMEM;
  return err;
}

wn_err wn_detect_render_html_base(const wn_dom_page *page, const wn_detect_result *result,
                                  const char *base_url, wn_buf *out, wn_diag *diag) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  if (!base_url || count != result->count || !wn_dom_xml_doc(page))
    return wn_detect_render_html(page, result, out, diag);
  wn_url_base *base = NULL;
  wn_err err = wn_url_base_parse(base_url, &base);
  if (err == WN_ENOMEM)
    return wn_diag_set(diag, WN_ENOMEM, "out of memory");
  /* A base that does not parse leaves the links as written. */
  err = WN_OK;
  if (base) {
    wn_buf tmp;
    wn_buf_init(&tmp, WN_URL_MAX * 4);
    /* The elements of the selection are the compact tree's, each with its
     * libxml2 node: the same walk, without recursion. */
    for (uint32_t k = 0; k < result->n_selected && !err; k++) {
      uint32_t r = result->selected[k];
      for (uint32_t i = r; i < nodes[r].end && !err; i++) {
        xmlNodePtr el = nodes[i].xml;
        if (!el || el->type != XML_ELEMENT_NODE)
          continue;
        if (nodes[i].tag == WN_TAG_A || strcmp(nodes[i].name, "area") == 0)
          err = wn_html_absolute_attr(base, el, "href", &tmp);
        else if (nodes[i].tag == WN_TAG_IMG || strcmp(nodes[i].name, "source") == 0 ||
                 strcmp(nodes[i].name, "video") == 0 || strcmp(nodes[i].name, "audio") == 0)
          err = wn_html_absolute_attr(base, el, "src", &tmp);
      }
    }
    wn_buf_free(&tmp);
  }
  wn_url_base_free(base);
  if (err)
    return wn_diag_set(diag, err, "detect: making the links absolute failed");
  return wn_detect_render_html(page, result, out, diag);
}
