/*
 * detect/single.c: the single-page method's driver. A method (cnr.c,
 * danag.c) marks the text nodes of the main content in res->keep, the
 * steps run on it (single_hints.c, single_boxes.c; the masks of
 * single_masks.c run before it), the retry chain runs when little prose
 * was kept, and this file turns keep[] into the result every renderer
 * reads: the selected subtree roots and the per-node "not content" flags.
 */
#include "detect/single_int.h"

#include <stdlib.h>
#include <string.h>

const char *wn_single_method_name(wn_single_method method) {
  switch (method) {
  case WN_SINGLE_CNR:
    return "cnr";
  case WN_SINGLE_DANAG:
    return "danag";
  case WN_SINGLE_READABILITY:
    return "readability";
  }
  return NULL;
}

wn_err wn_single_method_parse(const char *name, wn_single_method *out) {
  if (!name)
    return WN_EINVAL;
  if (strcmp(name, "cnr") == 0) {
    *out = WN_SINGLE_CNR;
    return WN_OK;
  }
  if (strcmp(name, "danag") == 0) {
    *out = WN_SINGLE_DANAG;
    return WN_OK;
  }
  if (strcmp(name, "readability") == 0) {
    *out = WN_SINGLE_READABILITY;
    return WN_OK;
  }
  return WN_EINVAL;
}

/*
 * From keep[] to the selection: the selected roots are the maximal
 * subtrees all of whose text nodes are kept (and that hold one), so that
 * render_html shows the content's own elements and no neighbour; an
 * element is "not content" (tmpl) when no kept text lies below it.
 * One reverse pass for the subtree facts, one forward pass for the roots.
 */
static wn_err wn_single_finish(const wn_dom_page *page, wn_detect_result *res) {
  uint8_t *any = malloc(res->count ? res->count : 1);
  if (!any)
    return WN_ENOMEM;
  wn_err err = wn_detect_result_select(page, res, any);
  if (!err)
    for (uint32_t i = 0; i < res->count; i++)
      res->tmpl[i] = !any[i];
  free(any);
  return err;
}

/* The steps each method runs by default: those that raised its word F1
 * in the ablation of docs/single-page.md (link boxes, named boxes, the
 * headline and the semantic hints for both; the story's container for
 * DANAg, danag.c) and the retry. CNR's menu ratio lowered its F1, so it
 * stays available for measurement only. */
uint32_t wn_single_default_steps(wn_single_method method) {
  switch (method) {
  case WN_SINGLE_CNR:
    return WN_SINGLE_STEP_LINKS | WN_SINGLE_STEP_BOXES | WN_SINGLE_STEP_TITLE |
           WN_SINGLE_STEP_HTML5 | WN_SINGLE_STEP_RETRY;
  case WN_SINGLE_DANAG:
    return WN_SINGLE_STEP_LINKS | WN_SINGLE_STEP_BOXES | WN_SINGLE_STEP_TITLE |
           WN_SINGLE_STEP_HTML5 | WN_SINGLE_STEP_CONTAINER | WN_SINGLE_STEP_RETRY |
           WN_SINGLE_STEP_SECOND | WN_SINGLE_STEP_AREA;
  case WN_SINGLE_READABILITY:
    return 0;
  }
  return 0;
}

/* The other half of the semantic hints (WN_SINGLE_STEP_HTML5, below): the
 * method kept mostly text outside the element the page marks as its
 * article (or kept nothing), and that element holds text that is not
 * link text. The page
 * says where its article is; the method went wrong (the longest run of
 * text on a 2015 news page is often a teaser of another story, its full
 * text sent for CSS to cut short), so it chooses again inside the
 * article, everything else masked as a comment thread is. No constant. */
static wn_err wn_single_rehint(const wn_dom_page *page, wn_single_method method, uint32_t steps,
                               uint32_t hint, uint8_t **mask, wn_detect_result *res) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  if (hint == WN_DOM_NONE)
    return WN_OK;
  uint64_t in = 0, all = 0;
  wn_single_kept_in(nodes, count, res, hint, &in, &all);
  uint64_t prose = 0;
  for (uint32_t i = hint; i < nodes[hint].end; i++)
    if (nodes[i].tag == WN_TAG_TEXT && !(nodes[i].flags & WN_DOM_IN_LINK) &&
        !(*mask && (*mask)[i]))
      prose += nodes[i].own_text_len;
  if (2 * in > all || prose == 0)
    return WN_OK;
  if (!*mask) {
    *mask = calloc(count ? count : 1, 1);
    if (!*mask)
      return WN_ENOMEM;
  }
  for (uint32_t i = 0; i < count; i++)
    if ((i < hint && nodes[i].end <= hint) || i >= nodes[hint].end)
      (*mask)[i] = 1; /* not the hint's ancestors: a masked subtree is skipped whole */
  memset(res->keep, 0, count);
  return method == WN_SINGLE_CNR ? wn_cnr_select(page, steps, *mask, res)
                                 : wn_danag_select(page, steps, *mask, res);
}

wn_err wn_detect_single_steps(const wn_dom_page *page, wn_single_method method, uint32_t steps,
                              wn_detect_result **out, wn_diag *diag) {
  return wn_detect_single_masked(page, method, steps, NULL, 0, out, diag);
}

/* The method and its steps on one page, into res->keep (not yet
 * finished): mask (may be NULL, may grow with the hints) marks what the
 * method neither chooses nor keeps. */
static wn_err wn_single_run(const wn_dom_page *page, wn_single_method method, uint32_t steps,
                            uint8_t **mask, wn_detect_result *res) {
  wn_err err = method == WN_SINGLE_CNR ? wn_cnr_select(page, steps, *mask, res)
                                       : wn_danag_select(page, steps, *mask, res);
  const uint32_t hint = (steps & WN_SINGLE_STEP_HTML5) ? wn_single_hint(page) : WN_DOM_NONE;
  if (!err && (steps & WN_SINGLE_STEP_HTML5))
    err = wn_single_rehint(page, method, steps, hint, mask, res);
  if (!err && (steps & WN_SINGLE_STEP_HTML5))
    err = wn_single_hint_paragraphs(page, *mask, res);
  if (!err && (steps & WN_SINGLE_STEP_LINKS))
    err = wn_single_drop_links(page, res);
  if (!err && (steps & WN_SINGLE_STEP_HTML5))
    err = wn_single_html5_at(page, hint, res);
  if (!err && (steps & WN_SINGLE_STEP_BOXES))
    err = wn_single_drop_boxes(page, res);
  if (!err && (steps & WN_SINGLE_STEP_TITLE))
    err = wn_single_add_title_clean(page, res);
  if (!err && (steps & WN_SINGLE_STEP_HTML5))
    err = wn_single_recipe(page, res);
  if (!err && (steps & WN_SINGLE_STEP_HTML5))
    err = wn_single_product_text(page, *mask, res);
  return err;
}

/*
 * Never empty where the page has text (WN_SINGLE_STEP_RETRY). The name
 * masks and the semantic hints are web-wide conventions, and on some
 * pages they are wrong: a class or id that holds "comment" on the
 * article's own wrapper, a page whose <article> is a teaser. Nothing else
 * would notice that the page's running text is gone. Readability.js
 * retries with its cleaning switched off when its result is short; so
 * does this: when the method keeps less than a quarter of the page's
 * prose (below), it chooses again with the comment masks, the named boxes
 * and the hints off (page footers stay masked: a footer is never the
 * article, and an index page with no article must not get its legal
 * notice). The second choice is taken when it keeps more prose and
 * agrees with the first: at least half of the prose the first kept is
 * in it, so a retry that wanders off into the comment thread the first
 * had rightly masked is not taken.
 */
#define WN_SINGLE_RETRY_SHARE 4u /* kept * 4 < prose: less than a quarter */

/* The retry itself: *res is replaced by the second choice when that is
 * taken. in_p: scratch of the page's node count. */
static wn_err wn_single_retry(const wn_dom_page *page, wn_single_method method, uint32_t steps,
                              const uint8_t *mask, uint8_t *in_p, wn_detect_result **res) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint64_t prose = 0, kept = 0;
  wn_single_prose(nodes, count, (*res)->keep, mask, in_p, &prose, &kept);
  if (WN_SINGLE_RETRY_SHARE * kept >= prose)
    return WN_OK;
  wn_detect_result *again = wn_detect_result_alloc(count, (*res)->method);
  uint8_t *foot = malloc(count);
  wn_err err = WN_ENOMEM;
  if (!again || !foot)
    goto out;
  if (wn_single_mask_names(page, foot, WN_MASK_FOOTERS) == 0) {
    free(foot);
    foot = NULL;
  }
  err = wn_single_run(page, method, steps & ~(WN_SINGLE_STEP_BOXES | WN_SINGLE_STEP_HTML5), &foot,
                      again);
  if (err)
    goto out;
  uint64_t kept2 = 0, both = 0;
  wn_single_prose(nodes, count, again->keep, NULL, in_p, &prose, &kept2);
  for (uint32_t i = 0; i < count; i++)
    if (nodes[i].tag == WN_TAG_TEXT && in_p[i] && !(nodes[i].flags & WN_DOM_IN_LINK) &&
        (*res)->keep[i] && again->keep[i])
      both += nodes[i].own_text_len;
  if (kept2 > kept && 2 * both >= kept) {
    wn_detect_result *t = *res;
    *res = again;
    again = t;
    (*res)->retried = "masks relaxed";
  }
out:
  wn_detect_result_free(again);
  free(foot);
  return err;
}

/*
 * The other method as a candidate (part of WN_SINGLE_STEP_RETRY). DANAg
 * reads lines of the source, CNR the tree's text-to-node ratios: where one
 * kept less than a quarter of the page's prose, the other often finds the
 * article (a story cut into many short blocks reads as code to DANAg; a
 * story spread over sibling blocks splits CNR's ratio). The other is taken
 * when it keeps more than twice the prose: a clear difference in size,
 * not a tie broken by a rule. "retried" names it.
 */
static wn_err wn_single_other_method(const wn_dom_page *page, wn_single_method method,
                                     uint8_t *in_p, wn_detect_result **res) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint64_t prose = 0, kept = 0;
  wn_single_prose(nodes, count, (*res)->keep, NULL, in_p, &prose, &kept);
  if (WN_SINGLE_RETRY_SHARE * kept >= prose)
    return WN_OK;
  const wn_single_method other = method == WN_SINGLE_DANAG ? WN_SINGLE_CNR : WN_SINGLE_DANAG;
  const uint32_t steps = wn_single_default_steps(other) & ~WN_SINGLE_STEP_RETRY;
  wn_detect_result *again = wn_detect_result_alloc(count, (*res)->method);
  uint8_t *mask = malloc(count);
  wn_err err = WN_ENOMEM;
  if (!again || !mask)
    goto out;
  if (!(steps & WN_SINGLE_STEP_BOXES) || wn_single_not_content_mask(page, mask) == 0) {
    free(mask);
    mask = NULL;
  }
  err = wn_single_run(page, other, steps, &mask, again);
  if (err)
    goto out;
  uint64_t kept2 = 0;
  wn_single_prose(nodes, count, again->keep, NULL, in_p, &prose, &kept2);
  if (kept2 > 2 * kept) {
    wn_detect_result *t = *res;
    *res = again;
    again = t;
    (*res)->retried = wn_single_method_name(other);
  }
out:
  wn_detect_result_free(again);
  free(mask);
  return err;
}

/* Some sites write their articleBody as HTML ("<p>...</p>": it holds an
 * end tag or a <br>; a lone "<" is text): its text, one line per block,
 * parsed by libxml2 as any page is. *body is replaced
 * (NULL when it holds no text). */
static wn_err wn_single_markup_text(char **body, size_t *len) {
  wn_dom_page *sub = NULL;
  wn_detect_result *all = NULL;
  wn_buf out;
  wn_buf_init(&out, WN_DOM_DEFAULT_MAX_BYTES);
  wn_err err = wn_dom_parse(*body, *len, NULL, &sub, NULL);
  if (err)
    goto out;
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(sub, &count);
  all = wn_detect_result_alloc(count, "json-ld");
  if (!all) {
    err = WN_ENOMEM;
    goto out;
  }
  for (uint32_t i = 0; i < count; i++)
    all->keep[i] = nodes[i].tag == WN_TAG_TEXT;
  err = wn_single_finish(sub, all);
  if (!err)
    err = wn_detect_render_text(sub, all, &out);
  if (!err && wn_buf_append_char(&out, '\0') == WN_OK) {
    free(*body);
    *len = out.len - 1;
    *body = *len ? wn_buf_take(&out, NULL) : NULL;
  }
out:
  wn_buf_free(&out);
  wn_detect_result_free(all);
  wn_dom_free(sub);
  return err == WN_ENOMEM ? err : WN_OK; /* markup libxml2 cannot read stays as it is */
}

/* A text node with a letter or digit (or any non-ASCII byte). */
static int wn_single_wordy(const wn_dom_node *n) {
  for (uint32_t k = 0; k < n->own_text_len; k++) {
    unsigned char c = (unsigned char)n->text[k];
    if (c >= 0x80 || wn_ascii_alnum(c))
      return 1;
  }
  return 0;
}

/*
 * The last resort (part of WN_SINGLE_STEP_RETRY), after the method and
 * its retry. Two candidates the page offers itself:
 *  - its JSON-LD articleBody (schema.org), the article's text as the site
 *    states it for search engines: taken when it is more than twice what
 *    was kept, so a page whose text a script writes into the page (no
 *    text in the tree) or a method that kept a teaser gets the article;
 *  - its paragraphs: when nothing at all was kept and the page has <p>
 *    text outside links and page footers, that text is the content, as
 *    trafilatura's baseline takes every <p>; on a page with no <p> text
 *    at all, its text outside links and page footers (a gallery's
 *    captions). Never empty where the page has text outside links.
 * res->retried says which. in_p: a scratch array of the page's node
 * count, or NULL.
 */
static wn_err wn_single_last_resort(const wn_dom_page *page, wn_detect_result *res,
                                    uint8_t *in_p) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  int own_p = 0;
  if (!in_p) {
    in_p = malloc(count);
    if (!in_p)
      return WN_ENOMEM;
    own_p = 1;
  }
  uint64_t prose = 0, kept = 0, all = 0;
  wn_single_prose(nodes, count, res->keep, NULL, in_p, &prose, &kept);
  for (uint32_t i = 0; i < count; i++)
    if (res->keep[i])
      all += nodes[i].own_text_len;
  wn_err err = WN_OK;
  size_t jlen = 0;
  /* A JSON-LD string is no longer than the script that holds it, so only
   * a page whose scripts are more than twice what was kept is parsed:
   * most pages never reach jansson here. */
  uint64_t scripts = 0;
  uint32_t n_meta = 0;
  const wn_dom_meta *meta = wn_dom_meta_items(page, &n_meta);
  for (uint32_t i = 0; i < n_meta; i++)
    if (meta[i].kind == WN_DOM_META_JSONLD && meta[i].text && !meta[i].cut)
      scripts += strlen(meta[i].text);
  const char *kind = NULL;
  char *body = 2 * all < scripts ? wn_detect_jsonld_body(page, &jlen, &kind) : NULL;
  if (body && (strstr(body, "</") || strstr(body, "<br"))) {
    err = wn_single_markup_text(&body, &jlen);
    if (err)
      goto out;
  }
  if (body && 2 * all < (uint64_t)jlen) {
    memset(res->keep, 0, count);
    res->body_text = body;
    res->retried = kind;
    body = NULL;
  } else if (all == 0) {
    uint8_t *foot = malloc(count);
    if (!foot) {
      err = WN_ENOMEM;
      goto out;
    }
    wn_single_mask_names(page, foot, WN_MASK_FOOTERS);
    /* No paragraphs at all (a gallery's captions, a table of figures):
     * the text outside links and page footers, wherever it is. */
    for (uint32_t i = 0; i < count; i++)
      if (nodes[i].tag == WN_TAG_TEXT && (in_p[i] || prose == 0) && !foot[i] &&
          !(nodes[i].flags & WN_DOM_IN_LINK) && wn_single_wordy(&nodes[i]))
        res->keep[i] = 1;
    free(foot);
    res->retried = prose > 0 ? "paragraphs" : "text outside links";
  }
out:
  free(body);
  if (own_p)
    free(in_p);
  return err;
}

/*
 * A page of parts leans to recall (part of WN_SINGLE_STEP_SECOND). On a
 * service page (a landing page of sections: hero, features, quotes,
 * pricing) and on a thread (posts), the content is many parts of like
 * weight, and the density reading, built for one block, leaves some out
 * however the area and the parts readings widen it. Readability's
 * reading takes its candidate's qualifying siblings, so it fails the
 * other way: where the page's shape (shape.c, from what it states and
 * its structure; not its URL, which the single-page method is not given)
 * is one of these two, every block it keeps joins, as the recall leaning
 * (WN_SINGLE_STEP_UNION, wn_detect_options.favor) does on every page.
 * Not on the other shapes: on an article its extra blocks are the boxes
 * beside the story, on a grid or a product the other products.
 */
static int wn_single_leans_to_recall(const wn_dom_page *page, const wn_detect_result *res) {
  const wn_detect_page_type shape = wn_detect_page_shape(page, res, NULL);
  return shape == WN_PAGE_SERVICE || shape == WN_PAGE_FORUM;
}

wn_err wn_detect_single_masked(const wn_dom_page *page, wn_single_method method, uint32_t steps,
                               const uint8_t *known, int mask_known, wn_detect_result **out,
                               wn_diag *diag) {
  wn_err err = WN_OK;
  uint8_t *mask = NULL;
  uint8_t *names = NULL; /* the mask before the hint narrowed it */
  uint8_t *in_p = NULL;
  *out = NULL;
  const char *name = wn_single_method_name(method);
  if (!page || !name)
    return wn_diag_set(diag, WN_EINVAL, "detect: unknown single-page method %d", (int)method);
  uint32_t count = 0;
  wn_dom_nodes(page, &count);
  wn_detect_result *res = wn_detect_result_alloc(count, name);
  if (!res) {
    err = wn_diag_set(diag, WN_ENOMEM, "detect: out of memory for %u nodes", count);
    goto out;
  }
  if (method == WN_SINGLE_READABILITY) {
    /* The second reading alone, as Readability states it: no step. */
    err = wn_readability_select(page, res);
    if (!err)
      err = wn_single_finish(page, res);
    if (err) {
      wn_diag_set(diag, err, "detect: %s: %s", name, wn_strerror(err));
      goto out;
    }
    *out = res;
    return WN_OK;
  }
  if ((steps & WN_SINGLE_STEP_BOXES) && (!mask_known || known)) {
    mask = malloc(count ? count : 1);
    if (!mask) {
      err = wn_diag_set(diag, WN_ENOMEM, "detect: out of memory for %u nodes", count);
      goto out;
    }
    if (mask_known) {
      memcpy(mask, known, count); /* the semantic hints may add to it */
    } else if (wn_single_not_content_mask(page, mask) == 0) {
      free(mask); /* no thread: the methods run as without the step */
      mask = NULL;
    }
  }
  /* The semantic hint may narrow the mask to its element (a teaser's
   * <article>, wn_single_rehint). The first reading keeps to it; the
   * readings after it do not where the hint is what they question:
   * Readability's reading of another article than the first's, and the
   * page's area (area.c), are judged with the names' mask alone, kept
   * here. */
  if (mask && (steps & WN_SINGLE_STEP_HTML5)) {
    names = malloc(count ? count : 1);
    if (!names) {
      err = wn_diag_set(diag, WN_ENOMEM, "detect: out of memory for %u nodes", count);
      goto out;
    }
    memcpy(names, mask, count);
  }
  err = wn_single_run(page, method, steps, &mask, res);
  const uint8_t *names_mask = (steps & WN_SINGLE_STEP_HTML5) ? names : mask;
  if (!err && (steps & WN_SINGLE_STEP_RETRY) && count > 0) {
    in_p = malloc(count);
    err = in_p ? wn_single_retry(page, method, steps, mask, in_p, &res) : WN_ENOMEM;
    if (!err)
      err = wn_single_other_method(page, method, in_p, &res);
  }
  if (!err && (steps & WN_SINGLE_STEP_SECOND))
    err = wn_single_second(page, mask, names_mask, steps, res);
  if (!err && (steps & WN_SINGLE_STEP_AREA))
    err = wn_single_area(page, names_mask, steps, res);
  if (!err && (steps & WN_SINGLE_STEP_UNION))
    err = wn_single_second_union(page, names_mask, steps, res);
  else if (!err && (steps & WN_SINGLE_STEP_SECOND) && wn_single_leans_to_recall(page, res))
    err = wn_single_second_union(page, names_mask, steps, res);
  if (!err && (steps & WN_SINGLE_STEP_RETRY) && count > 0)
    err = wn_single_last_resort(page, res, in_p);
  if (!err && (steps & WN_SINGLE_STEP_COMMENTS))
    err = wn_single_add_comments(page, res);
  if (!err)
    err = wn_single_finish(page, res);
  if (err) {
    wn_diag_set(diag, err, "detect: %s: %s", name, wn_strerror(err));
    goto out;
  }
  *out = res;
  res = NULL;
out:
  wn_detect_result_free(res);
  free(mask);
  free(names);
  free(in_p);
  return err;
}

wn_err wn_detect_single(const wn_dom_page *page, wn_single_method method,
                        wn_detect_result **out, wn_diag *diag) {
  return wn_detect_single_steps(page, method, wn_single_default_steps(method), out, diag);
}
