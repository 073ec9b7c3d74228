/*
 * detect/render.c: a result as plain text or as HTML.
 */
#include "detect/detect.h"
#include "detect/detect_int.h"

#include <libxml/HTMLtree.h>
#include <libxml/tree.h>

wn_err wn_detect_render_text(const wn_dom_page *page, const wn_detect_result *result,
                             wn_buf *out) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  if (count != result->count)
    return WN_EINVAL;
  wn_err err = WN_OK;
  int line_open = 0;
  uint32_t last_block = WN_DOM_NONE;
  int block_seen = 0;
  for (uint32_t k = 0; k < result->n_selected; k++) {
    uint32_t root = result->selected[k];
    for (uint32_t i = root; i < nodes[root].end; i++) {
      if (nodes[i].tag != WN_TAG_TEXT) {
        if (nodes[i].flags & WN_DOM_BLOCK)
          block_seen = 1;
        continue;
      }
      if (!result->keep[i])
        continue;
      /* One line per block: break when a block element started since the
       * last text, or when this text sits in another block. */
      uint32_t block = nodes[i].parent;
      while (block != WN_DOM_NONE && !(nodes[block].flags & WN_DOM_BLOCK))
        block = nodes[block].parent;
      if (line_open && (block_seen || block != last_block))
        err = wn_buf_append_char(out, '\n');
      else if (line_open)
        err = wn_buf_append_char(out, ' ');
      if (!err)
        err = wn_buf_append(out, nodes[i].text, nodes[i].own_text_len);
      if (err)
        return err;
      line_open = 1;
      block_seen = 0;
      last_block = block;
    }
    block_seen = 1; /* selected subtrees are separate blocks */
  }
  if (line_open)
    err = wn_buf_append_char(out, '\n');
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
