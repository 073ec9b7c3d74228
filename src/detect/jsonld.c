/*
 * detect/jsonld.c: what a page states of itself in JSON-LD scripts
 * (schema.org, JSON-LD 1.1) and in microdata and og:type: the article's
 * body (articleBody), a recipe's parts (Recipe), and the page's kind (the
 * types shape.c weighs). The metadata fields JSON-LD gives (headline,
 * author, dates) are meta.c's; both walk scripts with
 * wn_detect_jsonld_each.
 */
#include "detect/detect_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fetch/fetch.h"
#include "util/util.h"
#include <utf8proc.h>

/* Bounds: largest JSON-LD script parsed, items looked at in one. */
#define WN_JSONLD_MAX_BYTES ((size_t)1024 * 1024)
#define WN_JSONLD_MAX_ITEMS 64u

/* The script's JSON, parsed (NULL: none); the caller json_decref's it. */
static json_t *wn_jsonld_load(const char *text) {
  size_t len = strlen(text);
  return len > WN_JSONLD_MAX_BYTES ? NULL : json_loadb(text, len, JSON_DECODE_ANY, NULL);
}

static void wn_jsonld_walk(const json_t *root, wn_detect_jsonld_fn fn, void *ctx) {
  size_t seen = 0;
  size_t n = json_is_array(root) ? json_array_size(root) : 1;
  for (size_t k = 0; k < n && seen < WN_JSONLD_MAX_ITEMS; k++, seen++) {
    const json_t *item = json_is_array(root) ? json_array_get(root, k) : root;
    fn(item, ctx);
    const json_t *graph = json_object_get(item, "@graph");
    for (size_t g = 0; json_is_array(graph) && g < json_array_size(graph) &&
                       seen < WN_JSONLD_MAX_ITEMS;
         g++, seen++)
      fn(json_array_get(graph, g), ctx);
  }
}

void wn_detect_jsonld_each(const char *text, wn_detect_jsonld_fn fn, void *ctx) {
  json_t *root = wn_jsonld_load(text);
  if (!root)
    return;
  wn_jsonld_walk(root, fn, ctx);
  json_decref(root);
}

/* The longest body seen so far (malloc'd copy), and what stated it. */
typedef struct wn_jsonld_body {
  char *text;
  size_t len;
  const char *kind;
} wn_jsonld_body;

/* Keeps text (n bytes) as the body when it is the longest seen. */
static void wn_jsonld_body_offer(wn_jsonld_body *b, const char *text, size_t n,
                                 const char *kind) {
  if (n <= b->len)
    return;
  char *copy = malloc(n + 1);
  if (!copy)
    return; /* out of memory: the page keeps what the method chose */
  memcpy(copy, text, n);
  copy[n] = '\0';
  free(b->text);
  b->text = copy;
  b->len = n;
  b->kind = kind;
}

static int wn_jsonld_is(const json_t *item, const char *type);

/* Appends v, a string, as a block of the HTML body being built: as it is
 * where it is written as HTML (an end tag or a <br>, as the articleBody
 * test reads it), else as a paragraph of text, escaped. */
static wn_err wn_jsonld_para(wn_buf *out, const json_t *v) {
  if (!json_is_string(v) || json_string_length(v) == 0)
    return WN_OK;
  const char *t = json_string_value(v);
  const size_t n = json_string_length(v);
  if (strstr(t, "</") || strstr(t, "<br")) {
    wn_err err = wn_buf_append_str(out, "<div>");
    err = err ? err : wn_buf_append(out, t, n);
    return err ? err : wn_buf_append_str(out, "</div>");
  }
  wn_err err = wn_buf_append_str(out, "<p>");
  for (size_t k = 0; !err && k < n; k++)
    err = t[k] == '&'   ? wn_buf_append_str(out, "&amp;")
          : t[k] == '<' ? wn_buf_append_str(out, "&lt;")
          : t[k] == '>' ? wn_buf_append_str(out, "&gt;")
                        : wn_buf_append_char(out, t[k]);
  return err ? err : wn_buf_append_str(out, "</p>");
}

#define WN_HOWTO_MAX_STEPS 256u /* steps and directions read, in all */

/* A HowTo's step (schema.org): a HowToStep's name and text, or its
 * directions and tips (itemListElement), or a HowToSection's steps. */
static wn_err wn_jsonld_howto_step(wn_buf *out, const json_t *step, int depth, uint32_t *seen) {
  if (++*seen > WN_HOWTO_MAX_STEPS || depth > 2)
    return WN_OK;
  if (json_is_string(step))
    return wn_jsonld_para(out, step);
  if (!json_is_object(step))
    return WN_OK;
  wn_err err = wn_jsonld_is(step, "HowToSection") ? WN_OK
                                                    : wn_jsonld_para(out, json_object_get(step, "name"));
  if (!err)
    err = wn_jsonld_para(out, json_object_get(step, "text"));
  const json_t *list = json_object_get(step, "itemListElement");
  if (!list)
    list = json_object_get(step, "steps");
  const size_t n = json_is_array(list) ? json_array_size(list) : list ? 1 : 0;
  for (size_t k = 0; !err && k < n; k++)
    err = wn_jsonld_howto_step(out, json_is_array(list) ? json_array_get(list, k) : list,
                               depth + 1, seen);
  return err;
}

/* A HowTo's text as its JSON-LD states it, as HTML (the last resort reads
 * it as it reads an articleBody written so): its description, then each
 * step in order (the instructions of a page whose script draws them). */
static void wn_jsonld_howto_body(const json_t *item, wn_jsonld_body *b) {
  const json_t *steps = json_object_get(item, "step");
  if (!steps)
    return;
  wn_buf out;
  wn_buf_init(&out, WN_JSONLD_MAX_BYTES);
  uint32_t seen = 0;
  wn_err err = wn_jsonld_para(&out, json_object_get(item, "description"));
  const size_t n = json_is_array(steps) ? json_array_size(steps) : 1;
  for (size_t k = 0; !err && k < n; k++)
    err = wn_jsonld_howto_step(&out, json_is_array(steps) ? json_array_get(steps, k) : steps, 0,
                               &seen);
  if (!err && out.len)
    wn_jsonld_body_offer(b, out.data, out.len, "json-ld HowTo");
  wn_buf_free(&out);
}

/* The body a script states: an article's articleBody, or a HowTo's
 * description and steps. */
static void wn_jsonld_body_item(const json_t *item, void *ctx) {
  wn_jsonld_body *b = ctx;
  const json_t *v = json_object_get(item, "articleBody");
  if (json_is_string(v))
    wn_jsonld_body_offer(b, json_string_value(v), json_string_length(v), "json-ld articleBody");
  else if (wn_jsonld_is(item, "HowTo"))
    wn_jsonld_howto_body(item, b);
}

char *wn_detect_jsonld_body(const wn_dom_page *page, size_t *len, const char **kind) {
  uint32_t n_items = 0;
  const wn_dom_meta *items = wn_dom_meta_items(page, &n_items);
  wn_jsonld_body b = {NULL, 0, NULL};
  for (uint32_t i = 0; i < n_items; i++)
    if (items[i].kind == WN_DOM_META_JSONLD && items[i].text && !items[i].cut)
      wn_detect_jsonld_each(items[i].text, wn_jsonld_body_item, &b);
  /* In NFC, as the page tree's text is (src/dom/dom.c). */
  utf8proc_uint8_t *nfc = NULL;
  utf8proc_ssize_t m = b.text ? utf8proc_map((const utf8proc_uint8_t *)b.text,
                                             (utf8proc_ssize_t)b.len, &nfc,
                                             UTF8PROC_STABLE | UTF8PROC_COMPOSE)
                              : -1;
  if (m >= 0) {
    free(b.text);
    b.text = (char *)nfc;
    b.len = (size_t)m;
  }
  *len = b.len;
  *kind = b.kind;
  return b.text;
}

/* A Recipe's parts as its JSON-LD states them (schema.org): the strings
 * of recipeIngredient (group 0) and of recipeInstructions (group 1: a
 * string, or HowToStep texts, or the steps of HowToSections). */
typedef struct wn_jsonld_parts {
  wn_detect_part *parts;
  uint32_t n, max;
} wn_jsonld_parts;

static void wn_jsonld_part(wn_jsonld_parts *p, int group, const json_t *v) {
  if (json_is_object(v))
    v = json_object_get(v, "text");
  if (!json_is_string(v) || p->n >= p->max || json_string_length(v) == 0)
    return;
  p->parts[p->n].group = group;
  p->parts[p->n].text = json_string_value(v);
  p->parts[p->n].len = json_string_length(v);
  p->n++;
}

static int wn_jsonld_is(const json_t *item, const char *type) {
  const json_t *t = json_object_get(item, "@type");
  for (size_t k = 0; json_is_array(t) ? k < json_array_size(t) : k < 1; k++) {
    const json_t *e = json_is_array(t) ? json_array_get(t, k) : t;
    if (json_is_string(e) && strcmp(json_string_value(e), type) == 0)
      return 1;
  }
  return 0;
}

static void wn_jsonld_recipe_item(const json_t *item, void *ctx) {
  wn_jsonld_parts *p = ctx;
  if (!wn_jsonld_is(item, "Recipe"))
    return;
  const json_t *ing = json_object_get(item, "recipeIngredient");
  if (!ing)
    ing = json_object_get(item, "ingredients"); /* the older name */
  for (size_t k = 0; json_is_array(ing) && k < json_array_size(ing); k++)
    wn_jsonld_part(p, 0, json_array_get(ing, k));
  const json_t *ins = json_object_get(item, "recipeInstructions");
  if (json_is_string(ins))
    wn_jsonld_part(p, 1, ins);
  for (size_t k = 0; json_is_array(ins) && k < json_array_size(ins); k++) {
    const json_t *step = json_array_get(ins, k);
    const json_t *sub = json_is_object(step) ? json_object_get(step, "itemListElement") : NULL;
    if (json_is_array(sub))
      for (size_t j = 0; j < json_array_size(sub); j++)
        wn_jsonld_part(p, 1, json_array_get(sub, j));
    else
      wn_jsonld_part(p, 1, step);
  }
}

wn_err wn_detect_jsonld_recipe(const wn_dom_page *page, uint32_t max, wn_detect_recipe_fn fn,
                               void *ctx) {
  uint32_t n_items = 0;
  const wn_dom_meta *items = wn_dom_meta_items(page, &n_items);
  wn_detect_part *parts = NULL;
  wn_err err = WN_OK;
  for (uint32_t i = 0; i < n_items; i++) {
    if (items[i].kind != WN_DOM_META_JSONLD || !items[i].text || items[i].cut ||
        !strstr(items[i].text, "Recipe"))
      continue; /* (most pages: no JSON parse for them) */
    if (!parts && !(parts = malloc((size_t)max * sizeof *parts)))
      return WN_ENOMEM;
    json_t *root = wn_jsonld_load(items[i].text);
    if (!root)
      continue;
    wn_jsonld_parts p = {parts, 0, max};
    wn_jsonld_walk(root, wn_jsonld_recipe_item, &p);
    err = p.n ? fn(page, parts, p.n, ctx) : WN_OK; /* the strings live in root */
    json_decref(root);
    if (err || p.n)
      break;
  }
  free(parts);
  return err;
}


/* ---- the page's stated kind (shape.c) ------------------------------------- */

/* schema.org types, grouped by the page shape they state. A type names
 * the page's kind only at the top of a script (an item, or an item of its
 * @graph) or as a page's mainEntity: a Product inside an ItemList's
 * elements is a card of a grid, not the page. */
static uint32_t wn_jsonld_kind_of(const char *s) {
  if (strcmp(s, "TechArticle") == 0 || strcmp(s, "APIReference") == 0)
    return WN_LD_TECH;
  if (strcmp(s, "QAPage") == 0 || strcmp(s, "DiscussionForumPosting") == 0)
    return WN_LD_FORUM;
  if (strcmp(s, "Product") == 0 || strcmp(s, "ProductGroup") == 0 ||
      strcmp(s, "IndividualProduct") == 0)
    return WN_LD_PRODUCT;
  if (strcmp(s, "ItemList") == 0 || strcmp(s, "CollectionPage") == 0 ||
      strcmp(s, "SearchResultsPage") == 0 || strcmp(s, "OfferCatalog") == 0)
    return WN_LD_LIST;
  if (strcmp(s, "FAQPage") == 0)
    return WN_LD_FAQ;
  if (strstr(s, "Article") || strcmp(s, "BlogPosting") == 0 ||
      strcmp(s, "LiveBlogPosting") == 0 || strcmp(s, "Report") == 0 ||
      strcmp(s, "Recipe") == 0)
    return WN_LD_ARTICLE;
  return 0;
}

static uint32_t wn_jsonld_kinds_of(const json_t *item) {
  uint32_t kinds = 0;
  const json_t *t = json_object_get(item, "@type");
  for (size_t k = 0; json_is_array(t) ? k < json_array_size(t) : k < 1; k++) {
    const json_t *e = json_is_array(t) ? json_array_get(t, k) : t;
    if (json_is_string(e))
      kinds |= wn_jsonld_kind_of(json_string_value(e));
  }
  return kinds;
}

static void wn_jsonld_kind_item(const json_t *item, void *ctx) {
  uint32_t *kinds = ctx;
  const uint32_t k = wn_jsonld_kinds_of(item);
  *kinds |= k;
  /* A list whose first element is a Product (itself, or as its "item"):
   * a grid of products. */
  const json_t *el = (k & WN_LD_LIST) ? json_object_get(item, "itemListElement") : NULL;
  if (json_is_array(el))
    el = json_array_get(el, 0);
  if (json_is_object(el) && json_is_object(json_object_get(el, "item")))
    el = json_object_get(el, "item");
  if (json_is_object(el) && (wn_jsonld_kinds_of(el) & WN_LD_PRODUCT))
    *kinds |= WN_LD_LIST_PRODUCTS;
  const json_t *main = json_object_get(item, "mainEntity");
  if (json_is_array(main))
    main = json_array_get(main, 0);
  if (json_is_object(main))
    *kinds |= wn_jsonld_kinds_of(main);
}

/* Whether a script may name one of the types above: most scripts state
 * only an Organization, a WebSite and a BreadcrumbList, and are not
 * parsed for the shape. */
static int wn_jsonld_may_state(const char *text) {
  static const char *const words[] = {"Article", "Posting", "Product", "QAPage", "ItemList",
                                      "CollectionPage", "SearchResultsPage", "OfferCatalog",
                                      "FAQPage", "Report", "Recipe", "APIReference"};
  for (size_t k = 0; k < sizeof words / sizeof *words; k++)
    if (strstr(text, words[k]))
      return 1;
  return 0;
}

/* The next type of an itemtype list at *p (space-separated URLs): the
 * URL's last segment, its length in *n; NULL past the last. */
static const char *wn_itemtype_next(const char **p, size_t *n) {
  const char *s = *p;
  while (*s == ' ')
    s++;
  if (!*s)
    return NULL;
  const char *e = s;
  while (*e && *e != ' ')
    e++;
  const char *slash = e;
  while (slash > s && slash[-1] != '/')
    slash--;
  *p = e;
  *n = (size_t)(e - slash);
  return slash;
}

int wn_detect_itemtype_is(const char *itemtype, const char *type) {
  const size_t want = strlen(type);
  size_t n = 0;
  for (const char *p = itemtype, *t; (t = wn_itemtype_next(&p, &n));)
    if (n == want && memcmp(t, type, n) == 0)
      return 1;
  return 0;
}

/* The kinds microdata states (itemtype="https://schema.org/QAPage"): the
 * types of the items at the top (not inside another item), as JSON-LD's
 * are read. One Product at the top is the page's product; several are
 * the cards of a grid. */
static uint32_t wn_microdata_kinds(const wn_dom_page *page) {
  uint32_t count = 0, kinds = 0, products = 0, top_end = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  for (uint32_t i = 0; i < count; i++) {
    if (!nodes[i].attrs || i < top_end)
      continue;
    const char *t = wn_dom_attr(page, &nodes[i], "itemtype");
    if (!t)
      continue;
    top_end = nodes[i].end;
    /* The type is the URL's last segment; an itemtype may list several. */
    char word[64];
    size_t n = 0;
    for (const char *p = t, *seg; (seg = wn_itemtype_next(&p, &n));) {
      if (n > 0 && n < sizeof word) {
        memcpy(word, seg, n);
        word[n] = '\0';
        const uint32_t k = wn_jsonld_kind_of(word);
        products += (k & WN_LD_PRODUCT) != 0;
        kinds |= k & ~WN_LD_PRODUCT;
      }
    }
  }
  if (products == 1)
    kinds |= WN_LD_PRODUCT;
  else if (products > 1)
    kinds |= WN_LD_LIST_PRODUCTS;
  return kinds;
}

uint32_t wn_detect_result_stated(const wn_dom_page *page, wn_detect_result *res) {
  if (!res)
    return wn_detect_stated_kinds(page);
  if (!res->stated_known) {
    res->stated = wn_detect_stated_kinds(page);
    res->stated_known = 1;
  }
  return res->stated;
}

/* 1 when ref, an absolute URL or a path-absolute reference ("/",
 * "//host/"), names its site's root: the path libcurl reads in it is "/"
 * (whatever its query). A relative reference names no root that the page
 * alone can tell. */
static int wn_url_is_root(const char *ref) {
  while (wn_html_space((unsigned char)*ref))
    ref++;
  char abs[2048];
  const char *url = ref;
  if (ref[0] == '/') {
    const int n = snprintf(abs, sizeof abs, ref[1] == '/' ? "http:%s" : "http://host%s", ref);
    if (n < 0 || (size_t)n >= sizeof abs)
      return 0;
    url = abs;
  }
  char path[8]; /* "/" and a byte past it are enough to tell */
  return wn_url_path(url, path, sizeof path, NULL) == WN_OK && strcmp(path, "/") == 0;
}

uint32_t wn_detect_stated_kinds(const wn_dom_page *page) {
  uint32_t n_items = 0, kinds = 0;
  const wn_dom_meta *items = wn_dom_meta_items(page, &n_items);
  for (uint32_t i = 0; i < n_items; i++) {
    const wn_dom_meta *m = &items[i];
    if (m->kind == WN_DOM_META_LINK && m->rel && m->href &&
        wn_html_has_token(m->rel, "canonical") && wn_url_is_root(m->href))
      kinds |= WN_FRONT;
    if (m->kind == WN_DOM_META_TAG && m->property && m->content &&
        wn_ascii_equal_ci(m->property, strlen(m->property), "og:url") &&
        wn_url_is_root(m->content))
      kinds |= WN_FRONT;
    if (m->kind == WN_DOM_META_TAG && m->property && m->content && wn_ascii_equal_ci(m->property, strlen(m->property), "og:type")) {
      const char *c = m->content;
      while (wn_html_space((unsigned char)*c))
        c++;
      if (wn_ascii_equal_ci(c, strlen(c), "article"))
        kinds |= WN_OG_ARTICLE;
      else if (wn_ascii_equal_ci(c, strlen(c), "product.group"))
        kinds |= WN_OG_PRODUCT_GROUP;
      else if (wn_ascii_equal_ci(c, strlen(c), "product") || wn_ascii_equal_ci(c, strlen(c), "og:product"))
        kinds |= WN_OG_PRODUCT;
      continue;
    }
    if (m->kind != WN_DOM_META_JSONLD || !m->text || m->cut || !wn_jsonld_may_state(m->text))
      continue;
    json_t *root = wn_jsonld_load(m->text);
    if (!root)
      continue;
    wn_jsonld_walk(root, wn_jsonld_kind_item, &kinds);
    json_decref(root);
  }
  return kinds | wn_microdata_kinds(page);
}
