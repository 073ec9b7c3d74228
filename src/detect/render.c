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
  /* Room for the selected subtrees' text at once (a subtree's text_len,
   * no second walk; separators and raw <pre> text may grow it once). */
  size_t room = 0;
  for (uint32_t k = 0; k < result->n_selected; k++)
    room += (size_t)nodes[result->selected[k]].text_len + 1;
  wn_err err = wn_buf_reserve(out, room);
  if (err)
    return err;
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

/*
 * A figure's caption goes with its image (detect_int.h). The single-page
 * methods leave <figcaption> text out of the content: a caption is no
 * part of the article's running text, and the plain text leaves it out,
 * as trafilatura leaves figures out unless images are asked for. Output
 * that carries images (HTML, Markdown with images) renders a figure of
 * the content whole, its image with its caption. A figure is of the
 * content when it lies inside a selected region and the nearest element
 * around it with text has kept text (or lies outside the region), or,
 * outside every region, when it sits within the run of the content: the
 * nearest element around it with more text than the figure's own has
 * kept text both before and after it (an image between two kept
 * paragraphs, not a picture in a sidebar after the article). An image
 * whose caption block of a site's own making was left out (single.c,
 * "captions without markup") is shown alone on the same terms.
 */
static int wn_figure_has_image(const wn_dom_node *nodes, uint32_t f) {
  for (uint32_t i = f; i < nodes[f].end; i++)
    if (nodes[i].tag == WN_TAG_IMG)
      return 1;
  return 0;
}

static wn_err wn_figure_keep_caption(const wn_dom_node *nodes, uint32_t count,
                                     const wn_detect_result *result, uint32_t f, uint8_t **keep) {
  if (!*keep) {
    *keep = malloc(count);
    if (!*keep)
      return WN_ENOMEM;
    memcpy(*keep, result->keep, count);
  }
  for (uint32_t c = f + 1; c < nodes[f].end; c++) {
    if (nodes[c].tag != WN_TAG_FIGCAPTION)
      continue;
    for (uint32_t i = c; i < nodes[c].end; i++)
      if (nodes[i].tag == WN_TAG_TEXT)
        (*keep)[i] = 1;
    c = nodes[c].end - 1;
  }
  return WN_OK;
}

/* Element e, outside every region, sits within the run of the content:
 * the nearest element around it with more text than its own has kept
 * text both before and after it. before[i]: kept text nodes in [0, i). */
static int wn_within_content(const wn_dom_node *nodes, const uint32_t *before, uint32_t e) {
  uint32_t a = nodes[e].parent;
  while (a != WN_DOM_NONE && nodes[a].text_len <= nodes[e].text_len)
    a = nodes[a].parent;
  return a != WN_DOM_NONE && before[e] != before[a] &&
         before[nodes[a].end] != before[nodes[e].end];
}

/* Appends f to *outer (allocated for count entries on first use). */
static wn_err wn_push_outer(uint32_t **outer, uint32_t *n, uint32_t count, uint32_t f) {
  if (!*outer) {
    *outer = malloc((size_t)count * sizeof **outer);
    if (!*outer)
      return WN_ENOMEM;
  }
  (*outer)[(*n)++] = f;
  return WN_OK;
}

wn_err wn_detect_figures(const wn_dom_page *page, const wn_detect_result *result, uint8_t **keep,
                         uint32_t **regions, uint32_t *n_regions) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  *keep = NULL;
  *regions = NULL;
  *n_regions = result->n_selected;
  uint32_t first = 0;
  while (first < count && nodes[first].tag != WN_TAG_FIGURE && nodes[first].tag != WN_TAG_IMG)
    first++;
  if (first == count || result->n_selected == 0)
    return WN_OK; /* most pages: nothing to do, nothing allocated */
  wn_err err = WN_ENOMEM;
  uint32_t *before = malloc(((size_t)count + 1) * sizeof *before); /* kept text nodes in [0, i) */
  uint32_t *outer = NULL;
  uint32_t n_outer = 0;
  if (!before)
    goto out;
  before[0] = 0;
  for (uint32_t i = 0; i < count; i++)
    before[i + 1] = before[i] + (nodes[i].tag == WN_TAG_TEXT && result->keep[i] &&
                                 nodes[i].own_text_len > 0);
  uint32_t k = 0;
  for (uint32_t f = first; f < count; f++) {
    while (k < result->n_selected && nodes[result->selected[k]].end <= f)
      k++;
    if (nodes[f].tag == WN_TAG_IMG && !(k < result->n_selected && result->selected[k] <= f)) {
      /* An image outside every region whose caption block (the nearest
       * element around it with text, not mostly link text) has no kept
       * text: shown alone when the block sits within the content. */
      uint32_t w = nodes[f].parent;
      while (w != WN_DOM_NONE && nodes[w].text_len == 0)
        w = nodes[w].parent;
      if (w == WN_DOM_NONE || before[w] != before[nodes[w].end] ||
          2 * nodes[w].link_text_len > nodes[w].text_len || !wn_within_content(nodes, before, w))
        continue;
      if (wn_push_outer(&outer, &n_outer, count, f))
        goto out;
      continue;
    }
    if (nodes[f].tag != WN_TAG_FIGURE || before[f] != before[nodes[f].end] ||
        !wn_figure_has_image(nodes, f))
      continue; /* not a figure, or one with kept text already */
    uint32_t r = k < result->n_selected && result->selected[k] <= f ? result->selected[k]
                                                                    : WN_DOM_NONE;
    if (r != WN_DOM_NONE) {
      uint32_t a = nodes[f].parent;
      while (a != WN_DOM_NONE && nodes[a].text_len == 0)
        a = nodes[a].parent;
      if (!(a == WN_DOM_NONE || a < r || before[a] != before[nodes[a].end]))
        continue;
    } else {
      if (!wn_within_content(nodes, before, f))
        continue;
      if (wn_push_outer(&outer, &n_outer, count, f))
        goto out;
    }
    if (wn_figure_keep_caption(nodes, count, result, f, keep))
      goto out;
    f = nodes[f].end - 1;
  }
  if (n_outer) {
    uint32_t n = 0, j = 0;
    *regions = malloc(((size_t)result->n_selected + n_outer) * sizeof **regions);
    if (!*regions)
      goto out;
    for (uint32_t s = 0; s < result->n_selected || j < n_outer;)
      (*regions)[n++] = (j >= n_outer || (s < result->n_selected && result->selected[s] < outer[j]))
                            ? result->selected[s++]
                            : outer[j++];
    *n_regions = n;
  }
  err = WN_OK;
out:
  if (err) {
    free(*keep);
    *keep = NULL;
  }
  free(before);
  free(outer);
  return err;
}

/* The elements a region cannot stand without (HTML's content models): a
 * row or a cell outside its table, an item outside its list. A region of
 * such an element is written inside the wrapper it needs, and
 * consecutive regions of one parent share it, so that the output is HTML
 * a browser renders as it rendered the page (a bare <tr> is dropped by
 * any parser). NULL: the region stands alone. */
static const char *wn_html_wrapper(const wn_dom_node *nodes, uint32_t r, const char **close) {
  const uint32_t p = nodes[r].parent;
  switch (nodes[r].tag) {
  case WN_TAG_TBODY:
  case WN_TAG_THEAD:
  case WN_TAG_TFOOT:
  case WN_TAG_TR:
    *close = "</table>";
    return "<table>";
  case WN_TAG_TD:
  case WN_TAG_TH:
    *close = "</tr></table>";
    return "<table><tr>";
  case WN_TAG_LI:
    if (p != WN_DOM_NONE && nodes[p].tag == WN_TAG_OL) {
      *close = "</ol>";
      return "<ol>";
    }
    *close = "</ul>";
    return "<ul>";
  case WN_TAG_DT:
  case WN_TAG_DD:
    *close = "</dl>";
    return "<dl>";
  default:
    break;
  }
  if (nodes[r].name && strcmp(nodes[r].name, "caption") == 0) {
    *close = "</table>";
    return "<table>";
  }
  *close = NULL;
  return NULL;
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
  uint8_t *keep = NULL;
  uint32_t *regions = NULL, n_regions = 0;
  wn_err err = wn_detect_figures(page, result, &keep, &regions, &n_regions);
  free(keep); /* a region is written whole: its figures' captions with it */
  const uint32_t *sel = regions ? regions : result->selected;
  const char *open_close = NULL; /* the wrapper open now, and its parent */
  uint32_t open_parent = WN_DOM_NONE;
  for (uint32_t k = 0; k < n_regions && !err; k++) {
    xmlNodePtr node = nodes[sel[k]].xml;
    if (!node)
      continue;
    const char *close = NULL;
    const char *wrap = wn_html_wrapper(nodes, sel[k], &close);
    if (open_close &&
        (!close || strcmp(close, open_close) != 0 || nodes[sel[k]].parent != open_parent)) {
      err = wn_buf_append_str(out, open_close);
      if (!err)
        err = wn_buf_append_char(out, '\n');
      open_close = NULL;
    }
    if (!err && wrap && !open_close) {
      err = wn_buf_append_str(out, wrap);
      open_close = close;
      open_parent = nodes[sel[k]].parent;
    }
    if (err)
      break;
    xmlBufferPtr xb = xmlBufferCreate();
    if (!xb) {
      err = WN_ENOMEM;
      break;
    }
    if (htmlNodeDump(xb, doc, node) < 0)
      err = wn_diag_set(diag, WN_EIO, "detect: libxml2 could not serialise a node");
    else
      err = wn_buf_append(out, xmlBufferContent(xb), (size_t)xmlBufferLength(xb));
    if (!err)
      err = wn_buf_append_char(out, '\n');
    xmlBufferFree(xb);
  }
  if (!err && open_close) {
    err = wn_buf_append_str(out, open_close);
    if (!err)
      err = wn_buf_append_char(out, '\n');
  }
  free(regions);
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
    uint8_t *keep = NULL;
    uint32_t *regions = NULL, n_regions = 0;
    err = wn_detect_figures(page, result, &keep, &regions, &n_regions);
    free(keep);
    const uint32_t *sel = regions ? regions : result->selected;
    for (uint32_t k = 0; k < n_regions && !err; k++) {
      uint32_t r = sel[k];
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
    free(regions);
  }
  wn_url_base_free(base);
  if (err)
    return wn_diag_set(diag, err, "detect: making the links absolute failed");
  return wn_detect_render_html(page, result, out, diag);
}
