/*
 * detect/single_hints.c: the page's own markup of where its article is
 * (WN_SINGLE_STEP_HTML5; docs/single-page.md).
 */
#include "detect/single_int.h"

#include <stdlib.h>
#include <string.h>

/*
 * Semantic hints (WN_SINGLE_STEP_HTML5). A page that marks up where its
 * article is says where its content is: schema.org's
 * itemprop="articleBody" (the markup search engines read; news sites
 * have written it since about 2015), else HTML5's one
 * <article>, else one <main> (or ARIA's role="main"). When most of the
 * kept text lies in it, the text outside it is left out; the headline
 * comes back with WN_SINGLE_STEP_TITLE.
 */
uint32_t wn_single_hint(const wn_dom_page *page) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint32_t body = WN_DOM_NONE, article = WN_DOM_NONE, main = WN_DOM_NONE, entry = WN_DOM_NONE;
  uint32_t n_body = 0, n_article = 0, n_main = 0, n_entry = 0;
  for (uint32_t i = 0; i < count; i++) {
    if (nodes[i].tag == WN_TAG_TEXT)
      continue;
    const char *prop = wn_dom_attr(page, &nodes[i], "itemprop");
    const char *role = wn_dom_attr(page, &nodes[i], "role");
    if (prop && strcmp(prop, "articleBody") == 0 && n_body++ == 0)
      body = i;
    if (nodes[i].tag == WN_TAG_ARTICLE && n_article++ == 0)
      article = i;
    if ((nodes[i].tag == WN_TAG_MAIN || (role && strcmp(role, "main") == 0)) && n_main++ == 0)
      main = i;
    /* Both names hold "entry": one fast search before the token reads. */
    if (nodes[i].cls && strstr(nodes[i].cls, "entry") &&
        (wn_html_has_token(nodes[i].cls, "hentry") ||
         wn_html_has_token(nodes[i].cls, "h-entry")) &&
        n_entry++ == 0)
      entry = i;
  }
  return n_body == 1      ? body
         : n_article == 1 ? article
         : n_entry == 1   ? entry
         : n_main == 1    ? main
                          : WN_DOM_NONE;
}

/* The text res keeps (*all) and how much of it lies inside node hint
 * (*in). */
void wn_single_kept_in(const wn_dom_node *nodes, uint32_t count,
                              const wn_detect_result *res, uint32_t hint, uint64_t *in,
                              uint64_t *all) {
  *in = *all = 0;
  for (uint32_t i = 0; i < count; i++)
    if (res->keep[i]) {
      *all += nodes[i].own_text_len;
      if (i >= hint && i < nodes[hint].end)
        *in += nodes[i].own_text_len;
    }
}

/* hint: wn_single_hint's answer (found once per page: it reads two
 * attributes of every element). */
wn_err wn_single_html5_at(const wn_dom_page *page, uint32_t hint, wn_detect_result *res) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  if (hint == WN_DOM_NONE)
    return WN_OK;
  uint64_t in = 0, all = 0;
  wn_single_kept_in(nodes, count, res, hint, &in, &all);
  if (2 * in <= all)
    return WN_OK;
  for (uint32_t i = 0; i < count; i++)
    if (i < hint || i >= nodes[hint].end)
      res->keep[i] = 0;
  return WN_OK;
}

/* The article's paragraphs (part of WN_SINGLE_STEP_HTML5). The method's
 * area is a run of lines or a block, and a story cut by an embed, a
 * gallery or a box of links longer than DANAg's gap loses the part beyond
 * it. The page marks up where its article is: of the elements that say
 * so (itemprop="articleBody", <article>, <main>, role="main"), the
 * outermost that holds more than half of the kept text is the article,
 * and every paragraph (<p>) in it is running text, as trafilatura reads
 * the paragraphs of the article it finds by its markup. The outermost,
 * not the innermost: sites set the parts of one story (its header, its
 * ingredients, its steps) as <article>s of their own inside one <main>
 * or one outer <article>. The box and link steps that run next take the
 * boxes among the paragraphs out again. Paragraphs only: headings and
 * list items as well were measured no better. */
wn_err wn_single_hint_paragraphs(const wn_dom_page *page, const uint8_t *mask,
                                        wn_detect_result *res) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint64_t *kept = wn_single_kept_sums(nodes, count, res->keep);
  if (!kept)
    return WN_ENOMEM;
  uint32_t hint = WN_DOM_NONE;
  for (uint32_t i = 0; i < count; i++) {
    if (nodes[i].tag == WN_TAG_TEXT || 2 * kept[i] <= kept[0])
      continue;
    const char *prop = wn_dom_attr(page, &nodes[i], "itemprop");
    const char *role = wn_dom_attr(page, &nodes[i], "role");
    if (nodes[i].tag == WN_TAG_ARTICLE || nodes[i].tag == WN_TAG_MAIN ||
        (prop && strcmp(prop, "articleBody") == 0) || (role && strcmp(role, "main") == 0)) {
      hint = i; /* those holding more than half nest: the first is the outermost */
      break;
    }
  }
  free(kept);
  if (hint != WN_DOM_NONE)
    wn_danag_keep_prose(nodes, mask, NULL, NULL, hint, res->keep);
  return WN_OK;
}

wn_err wn_single_html5(const wn_dom_page *page, wn_detect_result *res) {
  return wn_single_html5_at(page, wn_single_hint(page), res);
}

/*
 * A product's description as the page marks it (part of
 * WN_SINGLE_STEP_HTML5): on a page that states one product, the element
 * microdata marks as the description (itemprop="description") of the
 * page's Product item (its nearest item is a Product) is content, as a
 * recipe's marked ingredients are: its lines may be short (a list of
 * features) and read as a box to a method of runs of prose. Its text
 * outside the mask is kept. At most WN_PRODUCT_DESCRIPTIONS such
 * elements (a page marks one, or one per tab).
 */
#define WN_PRODUCT_DESCRIPTIONS 4u

wn_err wn_single_product_text(const wn_dom_page *page, const uint8_t *mask,
                              wn_detect_result *res) {
  uint32_t count = 0, found = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  int stated = -1; /* read once, at the first marked description */
  for (uint32_t i = 0; i < count && found < WN_PRODUCT_DESCRIPTIONS; i++) {
    if (!nodes[i].attrs || nodes[i].tag == WN_TAG_TEXT)
      continue;
    const char *prop = wn_dom_attr(page, &nodes[i], "itemprop");
    if (!prop || !wn_html_has_token(prop, "description") || nodes[i].text_len == 0)
      continue;
    const char *type = NULL;
    for (uint32_t a = nodes[i].parent; a != WN_DOM_NONE && !type; a = nodes[a].parent)
      type = nodes[a].attrs ? wn_dom_attr(page, &nodes[a], "itemtype") : NULL;
    if (!type || !wn_detect_itemtype_is(type, "Product"))
      continue;
    if (stated < 0) {
      const uint32_t k = wn_detect_result_stated(page, res);
      stated = (k & (WN_LD_PRODUCT | WN_OG_PRODUCT)) != 0 &&
               !(k & (WN_LD_LIST_PRODUCTS | WN_OG_PRODUCT_GROUP));
    }
    if (!stated)
      return WN_OK;
    found++;
    for (uint32_t j = i; j < nodes[i].end; j++)
      if (nodes[j].tag == WN_TAG_TEXT && !(mask && mask[j]))
        res->keep[j] = 1;
    i = nodes[i].end - 1;
  }
  return WN_OK;
}
