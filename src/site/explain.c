/*
 * site/explain.c: one page's detection explained (winnow-dump explain):
 * the page is detected as wn_detector_detect would, with the detector's
 * trace on (detect/trace.c), and the labels are shown node by node as
 * text, or painted onto the page itself as HTML. A site learned with FastCE
 * is explained block by block instead: each block's path, whether it is in
 * the template's content paths, and which of the paper's extraction rules
 * (the FastContentExtractor paper, Sec. III) decided it.
 */
#include "detect/fastce_detect.h"
#include "detect/steps.h"
#include "site/explain_int.h"
#include "site/site_int.h"
#include "fetch/fetch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* The page's shape, as wn_page_result_page_type reports it. */
static wn_err wn_explain_page_type(const wn_explain *ex, wn_buf *b) {
  return wn_buf_printf(b, "page type:  %s\n",
                       wn_detect_page_type_name(wn_detect_page_shape(
                           ex->page, ex->res, ex->path[0] ? ex->path : NULL)));
}

void wn_explain_free(wn_explain *ex) {
  if (!ex)
    return;
  wn_detect_trace_free(&ex->trace);
  wn_fastce_trace_free(&ex->ftrace);
  wn_fastce_free(ex->fce);
  wn_detect_result_free(ex->res);
  wn_dom_free(ex->page);
  wn_template_free(ex->tpl);
  free(ex->bytes);
  free(ex);
}

/* FastCE: the extraction traced, then the policy wn_detect_fastce_page
 * applies (the fallback serves a page below the confidence threshold or
 * with nothing extracted). The ETDM trace is filled too, for the HTML
 * view: a text node is a candidate when its block is on a content path or
 * inside an extracted block (so "left out" paints what the rules left
 * out), the rest is template. */
static wn_err wn_explain_fastce_detect(wn_explain *ex, wn_diag *diag) {
  wn_err err = WN_OK;
  wn_detect_result *run = NULL;
  if ((err = wn_detect_fastce_run_traced(ex->page, ex->fce, &ex->ftrace, &run, diag)))
    return err;
  const double confidence = wn_detect_confidence(run);
  if ((err = wn_detect_fastce_policy(ex->page, &ex->opts, WN_SINGLE_STEPS_DEFAULT, run, &ex->res,
                                     diag)))
    return err;
  if (wn_fastce_trace_candidates(&ex->ftrace, ex->page, &ex->trace) != WN_OK)
    return wn_diag_set(diag, WN_ENOMEM, "out of memory");
  ex->trace.matched = 1;
  ex->trace.selected = ex->res && !wn_detect_fallback_reason(ex->res);
  ex->trace.confidence = confidence;
  ex->trace.min_confidence = ex->opts.min_confidence;
  ex->trace.fallback = wn_detect_fallback_reason(ex->res);
  return WN_OK;
}

wn_err wn_site_explain(wn_store *store, const wn_page_input *in, const wn_detect_options *opts,
                       wn_explain **out, wn_diag *diag) {
  wn_err err = WN_OK;
  *out = NULL;
  if (!store || !in || (!in->bytes && in->len > 0))
    return wn_diag_set(diag, WN_EINVAL, "explain needs a store and a page");
  wn_explain *ex = calloc(1, sizeof *ex);
  if (!ex)
    return wn_diag_set(diag, WN_ENOMEM, "out of memory");
  ex->trace.core = ex->trace.branch = WN_DOM_NONE;
  if (opts)
    ex->opts = *opts;
  else
    wn_detect_options_init(&ex->opts);
  if (in->site) {
    if ((err = wn_site_check(in->site, diag)))
      goto out;
    snprintf(ex->site, sizeof ex->site, "%s", in->site);
  } else if (in->url) {
    if ((err = wn_site_from_url(in->url, ex->site, sizeof ex->site, diag)))
      goto out;
  } else {
    err = wn_diag_set(diag, WN_EINVAL, "explain needs the page's site or URL");
    goto out;
  }
  if (in->url)
    snprintf(ex->name, sizeof ex->name, "%s", in->url);
  if (in->url && wn_url_path(in->url, ex->path, sizeof ex->path, NULL) != WN_OK)
    ex->path[0] = '\0';
  if (in->charset)
    snprintf(ex->charset, sizeof ex->charset, "%s", in->charset);
  if ((err = wn_site_load_any(store, ex->site, &ex->tpl, &ex->fce, &ex->generation, diag)))
    goto out;
  if (ex->tpl)
    wn_template_get_stats(ex->tpl, &ex->ts);
  if (in->len > WN_PAGE_MAX_BYTES) {
    err = wn_diag_set(diag, WN_ETOOBIG, "page of %zu bytes is past the cap of %zu bytes", in->len,
                      WN_PAGE_MAX_BYTES);
    goto out;
  }
  ex->bytes = malloc(in->len + 1);
  if (!ex->bytes) {
    err = wn_diag_set(diag, WN_ENOMEM, "out of memory");
    goto out;
  }
  if (in->len)
    memcpy(ex->bytes, in->bytes, in->len);
  ex->len = in->len;
  wn_dom_options po = {.transport_charset = in->charset};
  if ((err = wn_dom_parse(ex->bytes, ex->len, &po, &ex->page, diag)))
    goto out;
  if (ex->fce)
    err = wn_explain_fastce_detect(ex, diag);
  else
    err = wn_detect_page_traced(ex->page, ex->tpl, &ex->opts, &ex->trace, &ex->res, diag);
  if (!err && ex->tpl) {
    /* The node counts and the "T n/N" of the layout that served. */
    ex->layout = wn_template_layout(ex->tpl, ex->trace.layout);
    wn_template_get_stats(ex->layout, &ex->ts);
  }
out:
  if (err) {
    wn_explain_free(ex);
    return err;
  }
  *out = ex;
  return WN_OK;
}

/* A tree line's tail: "  text N kept K \"first 32 bytes...\"" (nothing
 * when the element holds no text of its own), cut on a UTF-8 boundary. */
static wn_err wn_explain_text_tail(wn_buf *line, uint32_t own, uint32_t own_kept,
                                   const char *first) {
  if (own == 0)
    return WN_OK;
  wn_err err = wn_buf_printf(line, "  text %u", own);
  if (!err && own_kept)
    err = wn_buf_printf(line, " kept %u", own_kept);
  if (!err && first) {
    size_t k = strlen(first) > 32 ? 32 : strlen(first);
    while (k > 0 && k < strlen(first) && (first[k] & 0xC0) == 0x80)
      k--; /* not inside a UTF-8 sequence */
    err = wn_buf_append_str(line, " \"");
    if (!err)
      err = wn_buf_append(line, first, k);
    if (!err)
      err = wn_buf_append_str(line, k < strlen(first) ? "...\"" : "\"");
  }
  return err;
}

/* ---- as text ----------------------------------------------------------------- */

static wn_err wn_path(const wn_explain *ex, uint32_t i, wn_buf *out) {
  if (i == WN_DOM_NONE)
    return wn_buf_append_str(out, "(none)");
  return wn_dom_node_path(ex->page, i, out);
}

/* "div#main.story" as a person reads a CSS selector. */
static wn_err wn_label(wn_buf *b, const wn_dom_node *n) {
  wn_err err = wn_buf_append_str(b, n->name);
  if (!err && n->id)
    err = wn_buf_printf(b, "#%s", n->id);
  for (const char *c = n->cls; !err && c && *c;) {
    while (*c == ' ' || *c == '\t' || *c == '\n')
      c++;
    size_t k = strcspn(c, " \t\n");
    if (k > 0 && !(err = wn_buf_append_char(b, '.')))
      err = wn_buf_append(b, c, k);
    c += k;
  }
  return err;
}

/* The text kept: bytes and text nodes. */
static void wn_explain_kept(const wn_dom_node *nodes, uint32_t count, const uint8_t *keep,
                            uint32_t *bytes, uint32_t *texts) {
  *bytes = *texts = 0;
  for (uint32_t i = 0; i < count; i++)
    if (keep[i] && nodes[i].tag == WN_TAG_TEXT) {
      *bytes += nodes[i].own_text_len;
      (*texts)++;
    }
}

/* The header's "method:" line. */
static wn_err wn_explain_method(const wn_explain *ex, wn_buf *b) {
  const wn_detect_trace *t = &ex->trace;
  return wn_buf_printf(b, "method:     %s%s%s\n", wn_detect_method(ex->res),
                       t->fallback ? ", fallback: " : "",
                       t->fallback ? wn_detect_fallback_name(t->fallback) : "");
}

/* The header's "selected:" and "kept:" lines. */
static wn_err wn_explain_selection(const wn_explain *ex, wn_buf *b) {
  uint32_t count = 0, n_sel = 0, kept_bytes = 0, kept_nodes = 0;
  const wn_dom_node *nodes = wn_dom_nodes(ex->page, &count);
  const uint32_t *sel = wn_detect_selected(ex->res, &n_sel);
  wn_explain_kept(nodes, count, wn_detect_keep_flags(ex->res), &kept_bytes, &kept_nodes);
  wn_err err = wn_buf_printf(b, "selected:   %u region(s)", n_sel);
  for (uint32_t k = 0; !err && k < n_sel; k++) {
    err = wn_buf_append_str(b, k ? ", " : ": ");
    if (!err)
      err = wn_path(ex, sel[k], b);
  }
  if (!err)
    err = wn_buf_printf(b, "\nkept:       %u bytes of text in %u text nodes\n", kept_bytes,
                        kept_nodes);
  return err;
}

/* A tree line's head: the element indented by its depth, its label, padded
 * to the column where the verdicts start. */
static wn_err wn_explain_line_head(wn_buf *line, const wn_dom_node *n) {
  wn_buf_reset(line);
  wn_err err = WN_OK;
  for (uint16_t d = 0; !err && d < n->depth; d++)
    err = wn_buf_append_str(line, "  ");
  if (!err)
    err = wn_label(line, n);
  while (!err && line->len < 44)
    err = wn_buf_append_char(line, ' ');
  if (!err)
    err = wn_buf_append_char(line, ' ');
  return err;
}

/* A tree line's end: the element's own text (its direct text children:
 * bytes, bytes kept, the first of them), then the line into b. */
static wn_err wn_explain_line_end(wn_buf *line, const wn_dom_node *nodes, const wn_dom_node *n,
                                  const uint8_t *keep, wn_buf *b) {
  uint32_t own = 0, own_kept = 0;
  const char *first = NULL;
  for (uint32_t c = n->first_child; c != WN_DOM_NONE; c = nodes[c].next_sibling)
    if (nodes[c].tag == WN_TAG_TEXT) {
      own += nodes[c].own_text_len;
      own_kept += keep[c] ? nodes[c].own_text_len : 0;
      if (!first)
        first = nodes[c].text;
    }
  wn_err err = wn_explain_text_tail(line, own, own_kept, first);
  if (!err)
    err = wn_buf_append(b, line->data, line->len);
  if (!err)
    err = wn_buf_append_char(b, '\n');
  return err;
}

/* One printer's view of the tree: fold(i) is how many nodes below element
 * i fold into its line (0: none; its subtree is then skipped), verdicts(i)
 * appends what the detection made of it. */
typedef struct wn_explain_view {
  uint32_t (*fold)(const void *ctx, uint32_t i);
  wn_err (*verdicts)(const void *ctx, uint32_t i, wn_buf *line);
  const void *ctx;
} wn_explain_view;

/* The tree, one line per element down to max_depth (0: all): head,
 * verdicts, " (+N)" for a folded subtree, own text. */
static wn_err wn_explain_tree(const wn_explain *ex, uint32_t max_depth, const wn_explain_view *v,
                              wn_buf *b) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(ex->page, &count);
  const uint8_t *keep = wn_detect_keep_flags(ex->res);
  wn_err err = WN_OK;
  wn_buf line;
  wn_buf_init(&line, 64 * 1024);
  for (uint32_t i = 0; !err && i < count;) {
    const wn_dom_node *n = &nodes[i];
    if (n->tag == WN_TAG_TEXT || (max_depth && n->depth >= max_depth)) {
      i++;
      continue;
    }
    const uint32_t folded = v->fold(v->ctx, i);
    err = wn_explain_line_head(&line, n);
    if (!err)
      err = v->verdicts(v->ctx, i, &line);
    if (!err && folded)
      err = wn_buf_printf(&line, " (+%u)", folded);
    if (!err)
      err = wn_explain_line_end(&line, nodes, n, keep, b);
    i = folded ? n->end : i + 1;
  }
  wn_buf_free(&line);
  return err;
}

/* The explanation's text handed over (an empty string rather than NULL). */
static wn_err wn_explain_take(wn_buf *b, char **out, size_t *len, wn_diag *diag) {
  *out = wn_buf_take(b, len);
  if (!*out) {
    *out = calloc(1, 1);
    if (len)
      *len = 0;
  }
  return *out ? WN_OK : wn_diag_set(diag, WN_ENOMEM, "out of memory");
}

static wn_err wn_explain_rule(const wn_explain *ex, wn_buf *b) {
  const wn_detect_trace *t = &ex->trace;
  wn_err err = WN_OK;
  const char *why = ex->res ? wn_detect_result_place(ex->res) : NULL;
  if (t->fallback == WN_FALLBACK_LOW_CONFIDENCE && why && strncmp(why, "no layout", 9) == 0)
    return wn_buf_printf(b,
                         "the site has %u layouts and the page has no element at the content "
                         "place of the one it fits best (its frame %.2f paired): a layout not "
                         "learned, so the single-page method %s chose the content (fallback: "
                         "low confidence)",
                         wn_template_layout_count(ex->tpl), t->confidence,
                         wn_detect_method(ex->res));
  if (t->fallback == WN_FALLBACK_LOW_CONFIDENCE)
    return wn_buf_printf(b,
                         "the page fits the template with confidence %.2f, below the threshold "
                         "%.2f: it does not look like the pages the template was learned from, so "
                         "the single-page method %s chose the content (fallback: low confidence)",
                         t->confidence, t->min_confidence, wn_detect_method(ex->res));
  wn_detect_selector sel = t->selector;
  if (sel == WN_SELECT_PLACES) {
    if (t->place == WN_DOM_NONE) {
      err = wn_buf_append_str(b, "places: the page has no page-specific text at the site's "
                                 "content place (or no places were learned), so ");
    } else {
      err = wn_buf_append_str(b, "places: the site's content place is ");
      if (!err)
        err = wn_path(ex, t->place, b);
      if (!err)
        err = wn_buf_append_str(
            b, t->place_unfit
                   ? ", but the cue selector kept this page's text mostly outside it and not "
                     "in what the samples agree is non-content: the content is not where the "
                     "samples had it, so the single-page method (DANAg) reads the page, only "
                     "its page-specific text kept; what the cue selector had chosen: "
               : t->place_whole ? " (whole: all content on the samples), and inside it "
                                : "; recurring non-content inside it is left out; ");
    }
    if (err)
      return err;
    sel = t->place != WN_DOM_NONE && t->place_whole && !t->place_unfit ? WN_SELECT_REGION
                                                                       : WN_SELECT_CUES;
  }
  switch (sel) {
  case WN_SELECT_PAPER:
    err = wn_buf_append_str(b, "paper (Algorithms 2 to 5): the branch, the parent of the largest "
                               "unpaired subtree, is ");
    if (!err)
      err = wn_path(ex, t->branch, b);
    if (!err)
      err = wn_buf_append_str(b, "; the unpaired subtrees inside it are kept and grouped");
    return err;
  case WN_SELECT_REGION:
    err = wn_buf_append_str(b, "region: the largest page-specific region (by text) is ");
    if (!err)
      err = wn_path(ex, t->core, b);
    if (!err)
      err = wn_buf_append_str(b, "; page-specific siblings of it under ");
    if (!err)
      err = wn_path(ex, t->branch, b);
    if (!err)
      err = wn_buf_append_str(b, " are kept too, whole");
    return err;
  default:
    break;
  }
  if (t->core == WN_DOM_NONE)
    return wn_buf_append_str(b, "cues: no page-specific text worth reading; nothing chosen");
  if (t->core_by_text)
    err = wn_buf_append_str(b, "cues: no block holds a paragraph (25 bytes or more of "
                               "page-specific text), so the subtree with most page-specific "
                               "text is the core: ");
  else
    err = wn_buf_printf(b, "cues: the best paragraph score (%.2f, scaled by 1 - link density)%s "
                           "makes the core ",
                        t->core_score,
                        t->siblings_joined ? ", with siblings that score like it," : "");
  if (!err)
    err = wn_path(ex, t->core, b);
  if (!err && t->branch != t->core) {
    err = wn_buf_append_str(b, "; it grows to ");
    if (!err)
      err = wn_path(ex, t->branch, b);
    if (!err)
      err = wn_buf_append_str(b, " while what it gains stays under 10% of its text (or 200 bytes)");
  }
  if (!err && t->siblings_joined)
    err = wn_buf_printf(b, "; sibling rule applied %u time(s)", t->siblings_joined);
  if (!err)
    err = wn_buf_printf(b, "; %u block(s) inside were left out as boxes of links", t->n_dropped);
  return err;
}

/* The short name of a block's fate, as the legend explains it. */
static const char *wn_fate_name(uint8_t fate) {
  switch (fate) {
  case WN_FASTCE_FATE_EXTRACTED: return "EXTRACTED";
  case WN_FASTCE_FATE_STORED: return "NON-CONTENT";
  case WN_FASTCE_FATE_LEFT_OUT: return "rule 2: left out";
  case WN_FASTCE_FATE_INCLUDED: return "rule 3: with its block";
  case WN_FASTCE_FATE_LINKS: return "LINKS: left out";
  default: return "";
  }
}

/* The traversal path of the block at element i (Sec. III: its block
 * ancestors' tags, "html" first), as FastCE learned and matched it. */
static wn_err wn_explain_block_path(const wn_explain *ex, uint32_t i, wn_buf *out) {
  const wn_dom_node *nodes = wn_dom_nodes(ex->page, NULL);
  const wn_fastce_trace *ft = &ex->ftrace;
  uint32_t chain[WN_PAGE_MAX_DEPTH + 1];
  uint32_t n = 0;
  for (uint32_t x = i; x != WN_DOM_NONE && n < WN_PAGE_MAX_DEPTH + 1; x = nodes[x].parent)
    if (ft->node[ft->block_of[x]] == x)
      chain[n++] = x;
  wn_err err = WN_OK;
  for (uint32_t k = n; k-- > 0 && !err;) {
    if (k + 1 < n)
      err = wn_buf_append_char(out, '.');
    if (!err)
      err = wn_buf_append_str(out, nodes[chain[k]].name);
  }
  return err;
}

typedef struct wn_explain_fastce_ctx {
  const wn_explain *ex;
  const uint8_t *is_block; /* node i is a block */
  const uint8_t *busy;     /* node i or one below it has something to say */
} wn_explain_fastce_ctx;

static uint32_t wn_explain_fastce_fold(const void *ctx, uint32_t i) {
  const wn_explain_fastce_ctx *c = ctx;
  const wn_dom_node *nodes = wn_dom_nodes(c->ex->page, NULL);
  return c->busy[i] ? 0 : nodes[i].end - i - 1;
}

/* "[path n/N] FATE (like \"...\")" for a block, then " SELECTED". */
static wn_err wn_explain_fastce_verdicts(const void *ctx, uint32_t i, wn_buf *line) {
  const wn_explain_fastce_ctx *c = ctx;
  const wn_explain *ex = c->ex;
  const wn_fastce_trace *ft = &ex->ftrace;
  const uint32_t blk = ft->block_of[i];
  wn_err err = WN_OK;
  if (c->is_block[i]) {
    err = wn_buf_append_char(line, '[');
    if (!err)
      err = wn_explain_block_path(ex, i, line);
    if (!err && ft->path[blk] != WN_DOM_NONE) {
      uint32_t pages = 0;
      wn_fastce_path(ex->fce, ft->path[blk], &pages);
      err = wn_buf_printf(line, " %u/%u]", pages, wn_fastce_sample_pages(ex->fce));
    } else if (!err) {
      err = wn_buf_append_str(line, " -]");
    }
    if (!err && ft->fate[blk] != WN_FASTCE_FATE_OUTSIDE)
      err = wn_buf_printf(line, " %s", wn_fate_name(ft->fate[blk]));
    if (!err && ft->fate[blk] == WN_FASTCE_FATE_STORED) {
      wn_fastce_stored st = wn_fastce_stored_get(ex->fce, ft->stored[blk]);
      err = wn_buf_printf(line, " (like \"%s\")", st.sample);
    }
  }
  uint32_t n_sel = 0, in_sel = 0;
  const uint32_t *sel = wn_detect_selected(ex->res, &n_sel);
  for (uint32_t k = 0; k < n_sel; k++)
    in_sel |= sel[k] == i;
  if (!err && in_sel)
    err = wn_buf_append_str(line, " SELECTED");
  return err;
}

/* The text of a FastCE explanation: a header, then one line per element
 * (as for ETDM), each block saying its path, whether the path is in the
 * template, and what the rules made of it. */
static wn_err wn_explain_text_fastce(const wn_explain *ex, uint32_t max_depth, wn_buf *b) {
  wn_err err = WN_OK;
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(ex->page, &count);
  const uint8_t *keep = wn_detect_keep_flags(ex->res);
  const wn_detect_trace *t = &ex->trace;
  const wn_fastce_trace *ft = &ex->ftrace;
  const uint32_t n_paths = wn_fastce_path_count(ex->fce);
  const uint32_t n_samples = wn_fastce_sample_pages(ex->fce);
  uint32_t fates[WN_FASTCE_FATE_LINKS + 1] = {0}, on_path = 0;
  for (uint32_t k = 0; k < ft->n_blocks; k++) {
    fates[ft->fate[k] <= WN_FASTCE_FATE_LINKS ? ft->fate[k] : 0]++;
    on_path += ft->path[k] != WN_DOM_NONE;
  }
  int by_text = 0; /* a format 2 record: confidence by text (detect/fastce_detect.h) */
  for (uint32_t i = 0; i < n_paths && !by_text; i++)
    by_text = wn_fastce_path_text(ex->fce, i) > 0;
  uint8_t *is_block = calloc((size_t)count + 1, 1);
  uint8_t *busy = calloc((size_t)count + 1, 1); /* a subtree with something to say */
  if (!is_block || !busy) {
    err = WN_ENOMEM;
    goto out;
  }
  for (uint32_t k = 0; k < ft->n_blocks; k++)
    is_block[ft->node[k]] = 1;
  /* busy[i]: node i or one below it is a block the rules touched, or kept
   * text (children follow parents: one backward pass). */
  for (uint32_t i = count; i-- > 0;) {
    uint32_t blk = ft->block_of[i];
    if (keep[i] || (is_block[i] && ft->fate[blk] != WN_FASTCE_FATE_OUTSIDE))
      busy[i] = 1;
    if (busy[i] && nodes[i].parent != WN_DOM_NONE)
      busy[nodes[i].parent] = 1;
  }
  err = wn_buf_printf(b,
                      "site:       %s (fastce template generation %llu: %u content paths, %u "
                      "stored non-content blocks, from %u sample pages)\n",
                      ex->site, (unsigned long long)ex->generation, n_paths,
                      wn_fastce_stored_count(ex->fce), n_samples);
  if (!err && ex->name[0])
    err = wn_buf_printf(b, "page:       %s\n", ex->name);
  if (!err)
    err = wn_buf_printf(b,
                        "match:      %u blocks, %u on a content path; the page has %u of the %u "
                        "content paths: confidence %.2f (threshold %.2f; %s)\n",
                        ft->n_blocks, on_path, ft->paths_found, n_paths, t->confidence,
                        t->min_confidence,
                        by_text ? "the share of the samples' content text per path that the "
                                  "page keeps there"
                                : "the paths the page has, weighted by the sample pages with "
                                  "content there");
  if (!err)
    err = wn_explain_method(ex, b);
  if (!err)
    err = wn_explain_page_type(ex, b);
  char links_note[96] = "";
  if (wn_fastce_flags(ex->fce) & WN_FASTCE_FLAG_SITE)
    snprintf(links_note, sizeof links_note,
             " and %u as mostly link text (the site-level link rule)",
             fates[WN_FASTCE_FATE_LINKS]);
  if (!err && t->fallback == WN_FALLBACK_LOW_CONFIDENCE)
    err = wn_buf_printf(b,
                        "decided:    %s: the single-page method %s chose the content; the "
                        "blocks below say what FastCE's rules would have made of the page\n",
                        t->confidence < t->min_confidence
                            ? "the page fits the content paths below the threshold"
                            : "the rules extracted nothing (or only stored non-content)",
                        wn_detect_method(ex->res));
  else if (!err)
    err = wn_buf_printf(b,
                        "decided:    FastCE (Sec. III): %u block(s) on a content path extracted, "
                        "%u of them dropped as like a stored non-content block%s; inside "
                        "extracted blocks %u block(s) off the paths left out (rule 2: no "
                        "sub-block on a content path) and %u kept with their block (rule 3)\n",
                        fates[WN_FASTCE_FATE_EXTRACTED] + fates[WN_FASTCE_FATE_STORED] +
                            fates[WN_FASTCE_FATE_LINKS],
                        fates[WN_FASTCE_FATE_STORED], links_note, fates[WN_FASTCE_FATE_LEFT_OUT],
                        fates[WN_FASTCE_FATE_INCLUDED]);
  if (!err)
    err = wn_explain_selection(ex, b);
  if (!err)
    err = wn_buf_append_str(
        b, "\nlegend: [path n/N]  a block; n/N: its path is a content path, with content on n "
           "of N sample pages (P)\n"
           "        [path -]    a block whose path is not in P\n"
           "        EXTRACTED   on a content path, not like a stored block: content\n"
           "        NON-CONTENT on a content path, like the stored non-content block quoted\n"
           "        LINKS       on a content path, own text mostly link text (site-level rule)\n"
           "        rule 2      inside an extracted block, off P, no sub-block in P: left out\n"
           "        rule 3      inside an extracted block, off P, a sub-block in P: kept with it\n"
           "        SELECTED    a selected region; kept: its text is main content\n"
           "        (+N)        N more nodes, none on a content path, folded\n\n");
  wn_explain_fastce_ctx c = {ex, is_block, busy};
  const wn_explain_view v = {wn_explain_fastce_fold, wn_explain_fastce_verdicts, &c};
  if (!err)
    err = wn_explain_tree(ex, max_depth, &v, b);
out:
  free(is_block);
  free(busy);
  return err;
}

typedef struct wn_explain_etdm_ctx {
  const wn_explain *ex;
  const uint8_t *in_sel; /* 2: a selected region's root, 1: inside one */
} wn_explain_etdm_ctx;

/* A template subtree without any candidate folds into one line. */
static uint32_t wn_explain_etdm_fold(const void *ctx, uint32_t i) {
  const wn_explain_etdm_ctx *c = ctx;
  const wn_detect_trace *t = &c->ex->trace;
  const wn_dom_node *nodes = wn_dom_nodes(c->ex->page, NULL);
  if (t->cand[i])
    return 0;
  for (uint32_t j = i + 1; j < nodes[i].end; j++)
    if (t->cand[j])
      return 0;
  return nodes[i].end - i - 1;
}

/* "T n/N page SELECTED DROPPED OWN CUT SPAN SHARED score S". */
static wn_err wn_explain_etdm_verdicts(const void *ctx, uint32_t i, wn_buf *line) {
  const wn_explain_etdm_ctx *c = ctx;
  const wn_explain *ex = c->ex;
  const wn_detect_trace *t = &ex->trace;
  const wn_dom_node *nodes = wn_dom_nodes(ex->page, NULL);
  /* How the policy's steps marked this element's direct text children. */
  int own_block = 0, cut = 0, span = 0, shared = 0;
  for (uint32_t k = nodes[i].first_child; t->own && k != WN_DOM_NONE; k = nodes[k].next_sibling)
    if (nodes[k].tag == WN_TAG_TEXT) {
      own_block |= t->own[k] == 1;
      cut |= t->own[k] == 2;
      span |= t->own[k] == 3;
      shared |= t->own[k] == 4;
    }
  wn_err err = WN_OK;
  if (t->tmpl_node[i] != WN_DOM_NONE) {
    const wn_template_node *tnodes = wn_template_nodes(ex->layout, NULL);
    err = wn_buf_printf(line, "T %u/%u", tnodes[t->tmpl_node[i]].count, ex->ts.sample_pages);
  }
  if (!err && t->cand[i])
    err = wn_buf_append_str(line, t->tmpl_node[i] != WN_DOM_NONE ? " page" : "page");
  if (!err && c->in_sel[i] == 2)
    err = wn_buf_append_str(line, " SELECTED");
  if (!err && t->dropped && t->dropped[i])
    err = wn_buf_append_str(line, " DROPPED");
  if (!err && own_block)
    err = wn_buf_append_str(line, " OWN");
  if (!err && cut)
    err = wn_buf_append_str(line, " CUT");
  if (!err && span)
    err = wn_buf_append_str(line, " SPAN");
  if (!err && shared)
    err = wn_buf_append_str(line, " SHARED");
  if (!err && t->score && t->score[i] > 0)
    err = wn_buf_printf(line, " score %.2f", t->score[i]);
  return err;
}

wn_err wn_explain_text(const wn_explain *ex, uint32_t max_depth, char **out, size_t *len,
                       wn_diag *diag) {
  wn_err err = WN_OK;
  if (ex->fce) {
    wn_buf fb;
    wn_buf_init(&fb, (size_t)256 * 1024 * 1024);
    err = wn_explain_text_fastce(ex, max_depth, &fb);
    if (err) {
      wn_buf_free(&fb);
      return wn_diag_set(diag, err, "explain: %s", wn_strerror(err));
    }
    return wn_explain_take(&fb, out, len, diag);
  }
  wn_buf b;
  wn_buf_init(&b, (size_t)256 * 1024 * 1024);
  uint8_t *in_sel = NULL;
  *out = NULL;
  uint32_t count = 0, n_sel = 0;
  const wn_dom_node *nodes = wn_dom_nodes(ex->page, &count);
  const uint32_t *sel = wn_detect_selected(ex->res, &n_sel);
  const wn_detect_trace *t = &ex->trace;
  in_sel = calloc((size_t)count + 1, 1);
  if (!in_sel)
    return wn_diag_set(diag, WN_ENOMEM, "out of memory");
  for (uint32_t k = 0; k < n_sel; k++)
    for (uint32_t i = sel[k]; i < nodes[sel[k]].end; i++)
      in_sel[i] = 1 + (i == sel[k]);
  uint32_t paired = 0;
  for (uint32_t i = 0; i < count; i++)
    paired += t->tmpl_node && t->tmpl_node[i] != WN_DOM_NONE;
  err = wn_buf_printf(&b,
                      "site:       %s (template generation %llu: %u nodes from %u sample pages, "
                      "min count %u)\n",
                      ex->site, (unsigned long long)ex->generation, ex->ts.nodes,
                      ex->ts.sample_pages, ex->ts.min_count);
  if (!err && ex->name[0])
    err = wn_buf_printf(&b, "page:       %s\n", ex->name);
  if (!err && wn_template_layout_count(ex->tpl) > 1)
    err = wn_buf_printf(&b,
                        "layout:     %u of %u (the one whose frame, the nodes all its samples "
                        "held, the page pairs most)\n",
                        t->layout + 1, wn_template_layout_count(ex->tpl));
  if (!err)
    err = wn_buf_printf(&b,
                        "match:      %u of %u page nodes paired with the template (ETDM); "
                        "confidence %.2f (threshold %.2f)\n",
                        paired, count, t->confidence, t->min_confidence);
  if (!err)
    err = wn_buf_printf(&b, "selector:   %s (%s)\n", wn_detect_selector_name(t->selector),
                        t->selector_from_site ? "the site's" : "asked for");
  if (!err)
    err = wn_explain_method(ex, &b);
  if (!err)
    err = wn_explain_page_type(ex, &b);
  if (!err)
    err = wn_buf_append_str(&b, "decided:    ");
  if (!err)
    err = wn_explain_rule(ex, &b);
  if (!err && t->selector == WN_SELECT_PLACES && t->place_continued)
    err = wn_buf_printf(&b, "; then %u bytes of page-specific text where the single-page "
                            "method's run of lines carried the story on past that choice",
                        t->place_continued);
  if (!err && t->own_bytes)
    err = wn_buf_printf(&b, "; then %u bytes of the page's own blocks (unpaired text in "
                            "blocks no sample had) that the single-page method kept, as the "
                            "selection held under half of the page's own text",
                        t->own_bytes);
  if (!err && t->span_bytes)
    err = wn_buf_printf(&b, "; then %u bytes cut by the story's span: on a site of articles, "
                            "where the single-page method kept nearly only what the template "
                            "kept, what it left out between its first and last text, after its "
                            "last text all but paragraphs, and link text it left out before "
                            "its first",
                        t->span_bytes);
  if (!err && t->span_added)
    err = wn_buf_printf(&b, "; then %u bytes brought in by the story's span: on a site of "
                            "articles, where the template kept under half of what the "
                            "single-page method kept and nearly all inside it, the rest of its "
                            "page-specific text",
                        t->span_added);
  if (!err && t->shared_bytes)
    err = wn_buf_printf(&b, "; then %u bytes of prose the samples shared (paired text of a "
                            "paragraph's length between the first and last text kept, which "
                            "the single-page method kept too)",
                        t->shared_bytes);
  if (!err)
    err = wn_buf_append_char(&b, '\n');
  if (!err)
    err = wn_explain_selection(ex, &b);
  if (!err)
    err = wn_buf_append_str(
        &b, "\nlegend: T n/N  paired with a template node held by n of N sample pages\n"
            "        page     page-specific (a candidate for the main content)\n"
            "        SELECTED a selected region; kept: its text is main content\n"
            "        DROPPED  left out as a box of links; score: the cue selector's\n"
            "        OWN      its text: the page's own block, read by the single-page method\n"
            "        CUT      its text: kept by the template, cut by the story's span\n"
            "        SPAN     its text: brought in by the story's span\n"
            "        SHARED   its text: prose the samples shared, kept by both readings\n"
            "        (+N) a template subtree of N more nodes, folded\n\n");
  wn_explain_etdm_ctx c = {ex, in_sel};
  const wn_explain_view v = {wn_explain_etdm_fold, wn_explain_etdm_verdicts, &c};
  if (!err)
    err = wn_explain_tree(ex, max_depth, &v, &b);
  free(in_sel);
  if (err) {
    wn_buf_free(&b);
    return wn_diag_set(diag, err, "explain: %s", wn_strerror(err));
  }
  return wn_explain_take(&b, out, len, diag);
}
