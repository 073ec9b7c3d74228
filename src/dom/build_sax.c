/*
 * dom/build_sax.c: the compact tree straight from libxml2's SAX2 events
 * (the default: no libxml2 tree is built). The same tree as the keep_xml
 * builder's (tests/dom/test_sax.c).
 */
#include "dom/build.h"

#include <libxml/HTMLparser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <stdlib.h>
#include <string.h>

/* ---- straight from SAX2 (the default) --------------------------------------
 *
 * Without keep_xml no libxml2 tree is built at all: the compact tree is
 * built from the HTML parser's SAX2 events (startElement, endElement,
 * characters, cdataBlock, comment, processingInstruction), so a page costs
 * one pass and no per-node malloc, and the caps stop the parser
 * (xmlStopParser) as the events arrive instead of after a whole tree.
 *
 * The parser recovers from broken markup (implied html/body/p,
 * auto-closing) before any event is sent, so the events are the ones
 * libxml2's own tree builder (SAX2.c, xmlSAX2StartElement and friends)
 * sees. To give the very tree the keep_xml path copies, this builder also
 * does what that tree builder does with them (libxml2 2.9.14):
 *  - consecutive characters() of one element are one text node (until an
 *    element, comment or PI comes between); cdataBlock() makes its own
 *    kind of node, joined only with cdata; a text node stops growing at
 *    XML_MAX_TEXT_LENGTH, and the tree builder stops the parse there;
 *  - text outside any element is dropped;
 *  - an element that starts when no element is open goes under the
 *    document's first child: inside the root element if that is the first
 *    child (no doctype, comment or PI before it), else beside the root,
 *    which is not part of the page;
 *  - "Couldn't find end of Start Tag" pops an element with no endElement
 *    event: the parser's own stack of open names (ctxt->nameNr) says
 *    which elements are open, and ours follows it;
 *  - an element names its node without a namespace prefix ("x:y" is y);
 *  - past xmlParserMaxDepth (256) open elements the tree builder's
 *    nodePush fails: the element is dropped and the parser halted.
 * tests/dom/test_sax.c holds both builders to the same tree on every
 * fixture page and on broken markup. */


typedef struct wn_sax {
  wn_builder *b;
  htmlParserCtxtPtr ctxt;
  wn_diag *diag;
  wn_err err;
  int stopped;
  /* One frame per element libxml2 holds open (ctxt->nameNr); frames of
   * elements without a compact node are marked outside. */
  wn_frame stack[WN_XML_MAX_DEPTH + 2];
  uint32_t depth;     /* open elements */
  uint32_t top;       /* of which with a compact node (their depth) */
  /* The document's children, as the tree builder would have them. */
  int doc_children;   /* any child yet (doctype, comment, PI, element) */
  int root_seen;      /* the root element exists */
  wn_frame root;      /* the root's frame (index 0 once built), kept after
                         it closed */
  /* Table rows of element names seen, by the name's address: the parser
   * interns names in its dictionary, so one address is one name. Names
   * without a row are kept too (entry NULL): custom elements and those of
   * SVG come by the hundred. */
  struct {
    const xmlChar *name;
    const wn_tag_entry *entry;
  } tags[64];
  /* The text node being built in the innermost open element. */
  wn_buf text;
  int text_open;
  int text_cdata;
  /* All text below a JSON-LD script, a <title>, an <h1> being read for
   * the metadata side table (0, 1, 2): its frame's place in stack. */
  struct {
    int active;
    int cut;
    uint32_t depth;
    uint32_t item;
    wn_buf buf;
  } capture[3];
  int capturing; /* how many are active */
  /* An inline <svg> being read (see WN_SVG_ROOT): its frame's place in
   * stack + 1 (0: none), open <text> and not-drawn elements in it, its
   * drawn text so far, and what its element needs when it is emitted at
   * its end. */
  uint32_t svg_at, svg_text, svg_hide;
  wn_buf svg_buf;
  char *svg_id, *svg_cls;
  int svg_ws;
} wn_sax;

static void wn_sax_fail(wn_sax *s, wn_err err) {
  s->err = err;
  s->stopped = 1;
  xmlStopParser(s->ctxt);
}

/* Ends the text node being built: a compact text node (or white space
 * flags) in the innermost open element. */
static void wn_sax_flush(wn_sax *s) {
  if (!s->text_open)
    return;
  s->text_open = 0;
  if (s->depth == 0 || s->stack[s->depth - 1].outside)
    return;
  wn_err err = wn_buf_append_char(&s->text, '\0');
  if (!err)
    err = wn_emit_text(s->b, &s->stack[s->depth - 1], s->top, s->text.data, NULL, s->diag);
  if (err)
    wn_sax_fail(s, err);
}

/* Ends the captures of the element at stack place depth (all: depth
 * UINT32_MAX): their text goes to their items. */
static void wn_sax_capture_end(wn_sax *s, uint32_t depth) {
  for (int c = 0; c < 3; c++) {
    if (!s->capture[c].active || (depth != UINT32_MAX && s->capture[c].depth != depth))
      continue;
    s->capture[c].active = 0;
    s->capturing--;
    wn_buf *buf = &s->capture[c].buf;
    wn_err err = wn_dom_meta_text(s->b->page, s->capture[c].item, buf->data, buf->len,
                              s->capture[c].cut);
    if (err) {
      wn_sax_fail(s, err);
      continue;
    }
    if (!wn_dom_meta_blank(buf->data, buf->len)) {
      if (c == 1)
        s->b->title_done = 1;
      if (c == 2)
        s->b->h1_done = 1;
    }
  }
}

static void wn_sax_capture_text(wn_sax *s, const xmlChar *ch, size_t len) {
  for (int c = 0; c < 3; c++) {
    if (!s->capture[c].active)
      continue;
    wn_buf *buf = &s->capture[c].buf;
    size_t cap = c == 0 ? WN_DOM_MAX_JSONLD : WN_DOM_MAX_META_TEXT;
    size_t room = cap - buf->len, n = len;
    if (n > room) {
      n = room;
      s->capture[c].cut = 1;
    }
    if (n && wn_buf_append(buf, ch, n))
      wn_sax_fail(s, WN_ENOMEM);
  }
}

/* The metadata side table at the start of an element under the root: me
 * is its wn_meta_el, parent the frame of the element around it (NULL for
 * the root), frame its own new frame. */
static void wn_sax_meta_start(wn_sax *s, uint8_t me, const xmlChar **atts, wn_frame *parent,
                              wn_frame *frame);

/* The <svg> on top of the stack (its frame just taken off) closed: its
 * element and its drawn text, if it drew any, under its parent. */
static void wn_sax_svg_end(wn_sax *s) {
  s->svg_at = 0;
  s->svg_text = s->svg_hide = 0;
  int drawn = 0;
  for (size_t k = 0; k < s->svg_buf.len && !drawn; k++) {
    char c = s->svg_buf.data[k];
    drawn = c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f';
  }
  wn_err err = WN_OK;
  if (drawn && s->depth > 0) {
    wn_frame *parent = &s->stack[s->depth - 1];
    wn_frame frame;
    err = wn_emit_element(s->b, parent, &parent->last_child, s->top, "svg", &wn_svg_entry,
                          s->svg_id, s->svg_cls, 0, NULL, s->svg_ws, NULL, &frame, s->diag);
    if (!err)
      err = wn_buf_append_char(&s->svg_buf, '\0');
    if (!err)
      err = wn_emit_text(s->b, &frame, s->top + 1, s->svg_buf.data, NULL, s->diag);
  }
  free(s->svg_id);
  free(s->svg_cls);
  s->svg_id = s->svg_cls = NULL;
  wn_buf_reset(&s->svg_buf);
  if (err)
    wn_sax_fail(s, err);
}

static void wn_sax_pop(wn_sax *s) {
  wn_sax_flush(s);
  if (s->depth == 0)
    return;
  wn_frame *f = &s->stack[--s->depth];
  if (s->capturing)
    wn_sax_capture_end(s, s->depth);
  if (f->svg == WN_SVG_TEXT) {
    /* A space after each drawn text; past the cap (WN_ETOOBIG) dropped. */
    if (--s->svg_text == 0 && !s->svg_hide &&
        wn_buf_append_char(&s->svg_buf, ' ') == WN_ENOMEM)
      wn_sax_fail(s, WN_ENOMEM);
  } else if (f->svg == WN_SVG_HIDE) {
    s->svg_hide--;
  } else if (f->svg == WN_SVG_ROOT) {
    wn_sax_svg_end(s);
  }
  if (!f->outside) {
    s->top--;
    if (f->index == 0)
      s->root = *f; /* later top-level elements may still join it */
  }
  if (s->depth == 0)
    s->top = 0;
}

/* Follows the parser's stack of open names: elements it popped without an
 * endElement event close here. */
static void wn_sax_sync(wn_sax *s, int open) {
  uint32_t want = open > 0 ? (uint32_t)open : 0;
  while (s->depth > want)
    wn_sax_pop(s);
}

/* The value of attribute name in a SAX attribute list, as xmlGetNoNsProp
 * gives it from the tree: the first one; "" for an attribute without a
 * value. *found tells whether there was one. */
static const char *wn_sax_attr(const xmlChar **atts, const char *name, int *found) {
  *found = 0;
  for (size_t i = 0; atts && atts[i]; i += 2)
    if (strcmp((const char *)atts[i], name) == 0) {
      *found = 1;
      return atts[i + 1] ? (const char *)atts[i + 1] : "";
    }
  return NULL;
}

/* What an element keeps of its attributes, in one pass over them: id,
 * class, whether it has an href, and the values of names (kept, parallel
 * to names). As wn_sax_attr gives each: the first one, "" for an
 * attribute without a value. The HTML parser gives names in lower case. */
static void wn_sax_attrs_read(const xmlChar **atts, const char *const *names, const char **id,
                              const char **cls, int *has_href, const char **kept) {
  for (size_t i = 0; atts && atts[i]; i += 2) {
    const char *name = (const char *)atts[i];
    const char *value = atts[i + 1] ? (const char *)atts[i + 1] : "";
    if (name[0] == 'i' && name[1] == 'd' && name[2] == '\0') {
      if (!*id)
        *id = value;
      continue;
    }
    if (name[0] == 'c' && !*cls && strcmp(name, "class") == 0) {
      *cls = value;
      continue;
    }
    if (name[0] == 'h' && strcmp(name, "href") == 0)
      *has_href = 1;
    for (uint32_t k = 0; names && names[k]; k++)
      if (!kept[k] && names[k][0] == name[0] && strcmp(names[k], name) == 0) {
        kept[k] = value;
        break;
      }
  }
}

/* The element name libxml2's tree builder gives a node: xmlSplitQName
 * drops a "prefix:" (but keeps ":name" and "name:" whole). */
static const char *wn_sax_local_name(const char *name) {
  const char *colon = name[0] == ':' ? NULL : strchr(name, ':');
  return colon && colon[1] ? colon + 1 : name;
}

static const char *wn_sax_get(const void *el, const char *name, void **owned) {
  int found = 0;
  *owned = NULL;
  return wn_sax_attr((const xmlChar **)(uintptr_t)el, name, &found);
}

static void wn_sax_meta_start(wn_sax *s, uint8_t me, const xmlChar **atts, wn_frame *parent,
                              wn_frame *frame) {
  wn_err err = WN_OK;
  if (me == WN_ME_HEAD) {
    if (parent && parent->index == 0)
      frame->meta |= WN_FM_HEAD;
    return;
  }
  if (me == WN_ME_BASE) {
    if (!parent || !(parent->meta & WN_FM_HEAD) || (parent->meta & WN_FM_BASE_SEEN))
      return;
    parent->meta |= WN_FM_BASE_SEEN;
  }
  int c = me == WN_ME_SCRIPT ? 0 : me == WN_ME_TITLE ? 1 : me == WN_ME_H1 ? 2 : -1;
  if (c >= 0 && s->capture[c].active)
    return; /* one of a kind at a time */
  if ((me == WN_ME_TITLE && s->b->title_done) || (me == WN_ME_H1 && s->b->h1_done))
    return;
  wn_dom_meta *m = wn_dom_meta_element(s->b->page, me, atts, wn_sax_get, &err);
  if (err) {
    wn_sax_fail(s, err);
    return;
  }
  if (m && c >= 0) {
    s->capture[c].active = 1;
    s->capture[c].cut = 0;
    s->capture[c].depth = s->depth; /* the place its frame gets */
    s->capture[c].item = s->b->page->n_meta - 1;
    wn_buf_reset(&s->capture[c].buf);
    s->capturing++;
  }
}

static void wn_sax_start(void *ctx, const xmlChar *xname, const xmlChar **atts) {
  wn_sax *s = ctx;
  if (s->stopped)
    return;
  wn_sax_sync(s, s->ctxt->nameNr - 1);
  /* The text before it in the same parent ends in white space (what
   * libxml2's tree gives as its previous sibling, a text node). */
  int ws_before = 0;
  if (s->text_open && !s->text_cdata && s->text.len) {
    char last = s->text.data[s->text.len - 1];
    ws_before = last == ' ' || last == '\n' || last == '\t' || last == '\r';
  }
  wn_sax_flush(s);
  if (s->stopped)
    return;
  if (s->depth > WN_XML_MAX_DEPTH) {
    /* libxml2's tree builder drops this element and halts the parser
     * (nodePush: "Excessive depth in document"); what was built so far is
     * the page, and the result says it was cut short. */
    s->stopped = 1;
    s->b->page->cut_short = WN_DOM_CUT_DEPTH;
    xmlStopParser(s->ctxt);
    return;
  }
  wn_frame *parent = NULL;
  uint32_t no_sibling = WN_DOM_NONE;
  uint32_t *prev = NULL;
  int outside = 0, offroot = 0, is_root = 0;
  uint32_t top = s->top;
  if (s->depth > 0) {
    parent = &s->stack[s->depth - 1];
    outside = parent->outside;
    offroot = (parent->meta & WN_FM_OFFROOT) != 0;
    prev = &parent->last_child;
  } else if (!s->root_seen) {
    /* The root element: the document's first child, or the first element
     * beside a doctype, comment or PI. */
    s->doc_children = 1;
    s->root_seen = 1;
    is_root = 1;
    prev = &no_sibling;
  } else if (s->root.index == 0) {
    /* After the root closed, an element joins the root, one level below
     * it: a page that closes </html> before its article (a theme whose
     * header template ends the document) still has it, as a browser
     * reads it (HTML's "after after body" mode parses on in the body).
     * libxml2's tree builder does so when the root is the document's
     * first child, else it puts it beside the root, and
     * wn_xml_adopt_strays moves it under the root in that tree too. */
    parent = &s->root;
    prev = &s->root.last_child;
    top = 1;
  } else {
    outside = 1; /* beside the root: not in the page */
    offroot = 1;
  }
  wn_frame frame = {.index = WN_DOM_NONE, .last_child = WN_DOM_NONE, .outside = 1};
  if (!offroot) {
    /* Every element under the root is looked up (the metadata side table
     * reads the <head> and skipped subtrees too); the names' addresses
     * make most lookups one comparison. */
    char name[WN_MAX_TAG_NAME + 1];
    size_t slot = ((uintptr_t)xname >> 4) % (sizeof s->tags / sizeof s->tags[0]);
    const wn_tag_entry *entry = NULL;
    const char *lower = name;
    if (xname && s->tags[slot].name == xname) {
      entry = s->tags[slot].entry;
      if (entry)
        lower = entry->name;
      else if (!outside)
        wn_lower_name(wn_sax_local_name((const char *)xname), name);
    } else {
      wn_lower_name(wn_sax_local_name((const char *)xname), name);
      entry = wn_tag_lookup(name);
      if (xname) {
        s->tags[slot].name = xname;
        s->tags[slot].entry = entry;
      }
    }
    if (s->svg_at) {
      /* Inside an <svg> being read: nothing of it enters the tree; what
       * it draws is gathered (wn_sax_chars). */
      char low[WN_MAX_TAG_NAME + 1];
      wn_lower_name(wn_sax_local_name((const char *)xname), low);
      frame.svg = wn_svg_kind(low);
      s->svg_text += frame.svg == WN_SVG_TEXT;
      s->svg_hide += frame.svg == WN_SVG_HIDE;
    } else if (!outside && parent && strcmp(lower, "svg") == 0) {
      int found = 0;
      if (!wn_svg_hidden(wn_sax_attr(atts, "aria-hidden", &found))) {
        frame.svg = WN_SVG_ROOT;
        s->svg_at = s->depth + 1;
        s->svg_ws = ws_before;
        s->svg_id = wn_strdup(wn_sax_attr(atts, "id", &found));
        s->svg_cls = wn_strdup(wn_sax_attr(atts, "class", &found));
        wn_buf_reset(&s->svg_buf);
      }
    } else if (!outside && !wn_skipped(s->b, entry)) {
      int has_href = 0;
      const char *id = NULL, *cls = NULL;
      const char *const *names = wn_dom_kept_names(entry ? entry->tag : WN_TAG_OTHER);
      const char *kept[WN_DOM_MAX_KEPT + 1] = {NULL};
      wn_sax_attrs_read(atts, names, &id, &cls, &has_href, kept);
      wn_err err = wn_emit_element(s->b, parent, prev, top, lower, entry, id, cls, has_href,
                                   names ? kept : NULL, ws_before, NULL, &frame, s->diag);
      if (err) {
        wn_sax_fail(s, err);
        return;
      }
    }
    if (is_root) {
      int found = 0, oom = 0;
      const char *lang = wn_sax_attr(atts, "lang", &found);
      if (!found)
        lang = wn_sax_attr(atts, "xml:lang", &found);
      s->b->page->lang = wn_dom_value_copy(s->b->page->arena, lang, WN_DOM_MAX_KEPT_VALUE, &oom);
      if (oom) {
        wn_sax_fail(s, WN_ENOMEM);
        return;
      }
    }
    if (entry && entry->meta) {
      wn_sax_meta_start(s, entry->meta, atts, parent, &frame);
      if (s->stopped)
        return;
    }
  } else {
    frame.meta = WN_FM_OFFROOT;
  }
  s->stack[s->depth++] = frame;
  if (!frame.outside) {
    s->top = top + 1;
    if (frame.index == 0)
      s->root = frame;
  }
}

static void wn_sax_end(void *ctx, const xmlChar *name) {
  wn_sax *s = ctx;
  (void)name;
  if (s->stopped)
    return;
  wn_sax_sync(s, s->ctxt->nameNr);
  wn_sax_pop(s);
}

static void wn_sax_chars(wn_sax *s, const xmlChar *ch, int len, int cdata) {
  if (s->stopped || len < 0)
    return;
  wn_sax_sync(s, s->ctxt->nameNr);
  if (s->depth == 0)
    return; /* the tree builder drops text outside any element */
  if (s->capturing)
    wn_sax_capture_text(s, ch, (size_t)len);
  if (s->svg_at && s->svg_text && !s->svg_hide) {
    /* Past the cap the rest is dropped (WN_ETOOBIG leaves it as it was). */
    if (wn_buf_append(&s->svg_buf, ch, (size_t)len) == WN_ENOMEM)
      wn_sax_fail(s, WN_ENOMEM);
    return;
  }
  if (s->stack[s->depth - 1].outside)
    return;
  if (s->text_open && s->text_cdata != cdata)
    wn_sax_flush(s);
  if (s->stopped)
    return;
  if (!s->text_open) {
    wn_buf_reset(&s->text);
    s->text_open = 1;
    s->text_cdata = cdata;
  } else if (s->text.len + (size_t)len > WN_XML_MAX_TEXT) {
    /* xmlSAX2Text: "huge text node", and the parse ends there. */
    wn_sax_flush(s);
    s->stopped = 1;
    s->b->page->cut_short = WN_DOM_CUT_TEXT;
    xmlStopParser(s->ctxt);
    return;
  }
  wn_err err = wn_buf_append(&s->text, ch, (size_t)len);
  if (err)
    wn_sax_fail(s, err);
}

static void wn_sax_characters(void *ctx, const xmlChar *ch, int len) {
  wn_sax_chars(ctx, ch, len, 0);
}

static void wn_sax_cdata(void *ctx, const xmlChar *ch, int len) { wn_sax_chars(ctx, ch, len, 1); }

/* A comment or PI: a node of libxml2's tree between two texts, and a
 * child of the document when no element is open. */
static void wn_sax_other_node(wn_sax *s) {
  if (s->stopped)
    return;
  wn_sax_sync(s, s->ctxt->nameNr);
  wn_sax_flush(s);
  if (s->depth == 0)
    s->doc_children = 1;
}

static void wn_sax_comment(void *ctx, const xmlChar *value) {
  (void)value;
  wn_sax_other_node(ctx);
}

static void wn_sax_pi(void *ctx, const xmlChar *target, const xmlChar *data) {
  (void)target;
  (void)data;
  wn_sax_other_node(ctx);
}

/* A doctype, wherever it stands, becomes the document's first child
 * (xmlCreateIntSubset puts it in front in an HTML document). */
static void wn_sax_doctype(void *ctx, const xmlChar *name, const xmlChar *external_id,
                           const xmlChar *system_id) {
  wn_sax *s = ctx;
  (void)name;
  (void)external_id;
  (void)system_id;
  s->doc_children = 1;
}

/* Parses the decoded UTF-8 as htmlReadMemory(utf8, len, NULL, "UTF-8",
 * options) does (htmlDoRead), with our handlers in place of the tree
 * builder's, and two passes over the bytes fewer: libxml2 neither copies
 * them into its own buffer nor converts them to UTF-8 again. */
wn_err wn_build_sax(wn_builder *b, const char *utf8, size_t len, int options, wn_diag *diag) {
  wn_err err = WN_OK;
  htmlParserCtxtPtr ctxt = NULL;
  wn_sax *s = calloc(1, sizeof *s);
  if (!s)
    return WN_ENOMEM;
  s->b = b;
  s->diag = diag;
  s->root.index = WN_DOM_NONE;
  s->root.last_child = WN_DOM_NONE;
  wn_buf_init(&s->text, WN_XML_MAX_TEXT + 1); /* libxml2's text cap, and a NUL */
  wn_buf_init(&s->svg_buf, WN_XML_MAX_TEXT + 1);
  for (int c = 0; c < 3; c++)
    wn_buf_init(&s->capture[c].buf, WN_DOM_MAX_JSONLD + 1);
  ctxt = htmlNewParserCtxt();
  /* An input stream over the bytes where they are, with no input buffer
   * behind it: nothing to grow from, nothing to shrink (the page is all
   * there), and no copy. (A static input buffer would do the same, but
   * libxml2 2.9.14 reads such a buffer's start again once the parser has
   * shrunk it and reaches its end: tests/dom/test_sax.c.) */
  xmlParserInputPtr input = ctxt ? xmlNewInputStream(ctxt) : NULL;
  if (!input) {
    err = WN_ENOMEM;
    goto out;
  }
  input->base = input->cur = (const xmlChar *)utf8;
  input->end = input->base + len; /* utf8[len] is its NUL */
  input->length = (int)len;
  if (inputPush(ctxt, input) < 0) {
    xmlFreeInputStream(input);
    err = WN_ENOMEM;
    goto out;
  }
  if (!ctxt->sax) {
    err = WN_ENOMEM;
    goto out;
  }
  s->ctxt = ctxt;
  htmlSAXHandler *sax = ctxt->sax;
  memset(sax, 0, sizeof *sax);
  sax->initialized = 1; /* SAX1-style startElement, as the HTML parser calls it */
  sax->internalSubset = wn_sax_doctype;
  sax->startElement = wn_sax_start;
  sax->endElement = wn_sax_end;
  sax->characters = wn_sax_characters;
  sax->cdataBlock = wn_sax_cdata;
  sax->comment = wn_sax_comment;
  sax->processingInstruction = wn_sax_pi;
  ctxt->userData = s;
  htmlCtxtUseOptions(ctxt, options);
  ctxt->html = 1;
  /* The bytes are valid UTF-8 already (wn_dom_decode made them so, and
   * dropped a byte order mark): the parser is told so and reads them as
   * they are. libxml2's UTF-8 handler (what htmlDoRead installs for
   * "UTF-8") would copy and check every byte once more before the parse;
   * with neither, libxml2 2.9 would guess an encoding at the first
   * non-ASCII byte. With IGNORE_ENC a <meta charset> changes nothing. */
  ctxt->charset = XML_CHAR_ENCODING_UTF8;
  wn_xml_errors xerrs = {.ctxt = ctxt, .oom = 0};
  WN_WITH_XML_ERRORS(&xerrs, htmlParseDocument(ctxt));
  /* After an allocation failure libxml2 returns what it had: a page cut
   * short, not a page. */
  if ((xerrs.oom || ctxt->errNo == XML_ERR_NO_MEMORY) && !s->err)
    s->err = WN_ENOMEM;
  if (!s->stopped) {
    /* Text still open at the end (the parser closes elements with
     * events, so this is only a safeguard). */
    wn_sax_flush(s);
  }
  /* Elements still open when the parse stopped: what they hold so far. */
  if (s->capturing)
    wn_sax_capture_end(s, UINT32_MAX);
  err = s->err;
out:
  if (ctxt) {
    if (ctxt->myDoc)
      xmlFreeDoc(ctxt->myDoc);
    ctxt->myDoc = NULL;
    htmlFreeParserCtxt(ctxt);
  }
  wn_buf_free(&s->text);
  wn_buf_free(&s->svg_buf);
  free(s->svg_id);
  free(s->svg_cls);
  for (int c = 0; c < 3; c++)
    wn_buf_free(&s->capture[c].buf);
  free(s);
  return err;
}
