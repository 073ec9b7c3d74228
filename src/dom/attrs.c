/*
 * dom/attrs.c: what the tree keeps beside its nodes: the attributes
 * Markdown and the single-page methods read (wn_dom_attr), and the
 * metadata side table of what is not content (wn_dom_meta_items: <meta>,
 * <link>, <time>, <base>, JSON-LD, <title>, <h1>).
 */
#include "dom/dom.h"
#include "dom/dom_int.h"

#include <stdlib.h>
#include <string.h>

#include "util/util.h"

/* The attributes Markdown reads, by element (markdown.c), and on every
 * element the three that say what a part of the page is, which the
 * single-page methods and the page's shape read (single.c, meta.c): ARIA's
 * role ("main", "navigation", "complementary"), schema.org's itemprop
 * ("articleBody") and its microdata itemtype (".../QAPage"). */
static const char *const wn_kept_a[] = {"href", "role", "itemprop", "itemtype", NULL};
static const char *const wn_kept_img[] = {"src", "data-src", "srcset", "alt", "role", "itemprop",
                                           "itemtype", NULL};
static const char *const wn_kept_ol[] = {"start", "role", "itemprop", "itemtype", NULL};
static const char *const wn_kept_cell[] = {"colspan", "rowspan", "role", "itemprop", "itemtype",
                                            NULL};
static const char *const wn_kept_any[] = {"role", "itemprop", "itemtype", NULL};

const char *const *wn_dom_kept_names(uint8_t tag) {
  switch (tag) {
  case WN_TAG_A: return wn_kept_a;
  case WN_TAG_IMG: return wn_kept_img;
  case WN_TAG_OL: return wn_kept_ol;
  case WN_TAG_TD:
  case WN_TAG_TH: return wn_kept_cell;
  case WN_TAG_TEXT: return NULL;
  default: return wn_kept_any;
  }
}

/* A value as the side tables keep it: copied into the arena, at most
 * WN_DOM_MAX_KEPT_VALUE bytes. NULL stays NULL. */
const char *wn_dom_value_copy(wn_arena *arena, const char *value, size_t cap, int *oom) {
  if (!value)
    return NULL;
  size_t len = strlen(value);
  if (len > cap)
    len = cap;
  char *copy = wn_arena_strndup(arena, value, len);
  if (!copy)
    *oom = 1;
  return copy;
}

/* Keeps the values (parallel to names, NULL: absent) of element node. */
wn_err wn_dom_keep_attrs(wn_dom_page *page, wn_dom_node *node, const char *const *names,
                         const char *const *values) {
  uint32_t n = 0;
  for (uint32_t k = 0; names[k]; k++)
    n += values[k] != NULL;
  if (n == 0)
    return WN_OK;
  if (page->n_attrs == 0)
    page->n_attrs = 1; /* entry 0: "none" */
  if ((uint64_t)page->n_attrs + n + 1 > page->cap_attrs) {
    uint32_t cap = page->cap_attrs ? page->cap_attrs : 256;
    while ((uint64_t)page->n_attrs + n + 1 > cap) {
      if (cap > UINT32_MAX / 2)
        return WN_ENOMEM;
      cap *= 2;
    }
    struct wn_dom_attr_entry *grown = realloc(page->attrs, (size_t)cap * sizeof *grown);
    if (!grown)
      return WN_ENOMEM;
    page->attrs = grown;
    page->cap_attrs = cap;
  }
  int oom = 0;
  node->attrs = page->n_attrs;
  for (uint32_t k = 0; names[k]; k++) {
    if (!values[k])
      continue;
    page->attrs[page->n_attrs].name = names[k];
    page->attrs[page->n_attrs++].value =
        wn_dom_value_copy(page->arena, values[k], WN_DOM_MAX_KEPT_VALUE, &oom);
  }
  page->attrs[page->n_attrs].name = NULL;
  page->attrs[page->n_attrs++].value = NULL;
  return oom ? WN_ENOMEM : WN_OK;
}

/* A new metadata item of kind, or NULL past the cap (*err set only when
 * memory ran out). */
static wn_dom_meta *wn_dom_meta_add(wn_dom_page *page, uint8_t kind, wn_err *err) {
  if (page->n_meta >= WN_DOM_MAX_META_ITEMS)
    return NULL;
  if (page->n_meta == page->cap_meta) {
    uint32_t cap = page->cap_meta ? page->cap_meta * 2 : 16;
    wn_dom_meta *grown = realloc(page->meta, (size_t)cap * sizeof *grown);
    if (!grown) {
      *err = WN_ENOMEM;
      return NULL;
    }
    page->meta = grown;
    page->cap_meta = cap;
  }
  wn_dom_meta *m = &page->meta[page->n_meta++];
  memset(m, 0, sizeof *m);
  m->kind = kind;
  return m;
}

static int wn_ascii_ieq(const char *a, const char *b) {
  for (; *a && *b; a++, b++)
    if (wn_ascii_lower(*a) != wn_ascii_lower(*b))
      return 0;
  return *a == *b;
}

/* White space as the metadata reader collapses it (meta.c). */
int wn_dom_meta_blank(const char *s, size_t len) {
  for (size_t k = 0; k < len; k++)
    if (!(s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r' || s[k] == '\f' ||
          s[k] == '\v'))
      return 0;
  return 1;
}

/* The metadata item of element kind me (meta, link, time, base): its
 * attributes. Scripts, titles and headings get their text from the
 * builder. Returns the item or NULL (none made, *err on failure). */
wn_dom_meta *wn_dom_meta_element(wn_dom_page *page, uint8_t me, const void *el, wn_attr_fn get,
                                 wn_err *err) {
  static const uint8_t kinds[] = {0, WN_DOM_META_TAG, WN_DOM_META_LINK, WN_DOM_META_TIME,
                                  WN_DOM_META_BASE, WN_DOM_META_JSONLD, WN_DOM_META_TITLE,
                                  WN_DOM_META_H1};
  if (me == WN_ME_NONE || me >= WN_ME_HEAD)
    return NULL;
  void *owned = NULL;
  if (me == WN_ME_SCRIPT) {
    const char *type = get(el, "type", &owned);
    int ld = type && wn_ascii_ieq(type, "application/ld+json");
    xmlFree(owned);
    if (!ld)
      return NULL;
  }
  wn_dom_meta *m = wn_dom_meta_add(page, kinds[me], err);
  if (!m)
    return NULL;
  int oom = 0;
#define WN_META_GET(field, attr)                                                         \
  do {                                                                                   \
    owned = NULL;                                                                        \
    m->field = wn_dom_value_copy(page->arena, get(el, attr, &owned), WN_DOM_MAX_KEPT_VALUE, &oom); \
    xmlFree(owned);                                                                      \
  } while (0)
  switch (me) {
  case WN_ME_META:
    WN_META_GET(content, "content");
    WN_META_GET(name, "name");
    WN_META_GET(property, "property");
    WN_META_GET(itemprop, "itemprop");
    WN_META_GET(http_equiv, "http-equiv");
    break;
  case WN_ME_LINK:
    WN_META_GET(rel, "rel");
    WN_META_GET(href, "href");
    break;
  case WN_ME_TIME:
    WN_META_GET(datetime, "datetime");
    WN_META_GET(pubdate, "pubdate");
    WN_META_GET(itemprop, "itemprop");
    break;
  case WN_ME_BASE:
    WN_META_GET(href, "href");
    break;
  default:
    break;
  }
#undef WN_META_GET
  if (oom)
    *err = WN_ENOMEM;
  return m;
}

/* Sets item's text (len bytes of text, longer than its cap when cut). */
wn_err wn_dom_meta_text(wn_dom_page *page, uint32_t item, const char *text, size_t len, int cut) {
  wn_dom_meta *m = &page->meta[item];
  m->cut = (uint8_t)cut;
  if (cut && m->kind == WN_DOM_META_JSONLD)
    return WN_OK; /* not read at all (meta.c) */
  m->text = wn_arena_strndup(page->arena, text ? text : "", len);
  return m->text ? WN_OK : WN_ENOMEM;
}

size_t wn_dom_meta_cap(uint8_t kind) {
  return kind == WN_DOM_META_JSONLD ? WN_DOM_MAX_JSONLD : WN_DOM_MAX_META_TEXT;
}

const char *wn_dom_attr(const wn_dom_page *page, const wn_dom_node *node, const char *name) {
  if (!node->attrs || node->attrs >= page->n_attrs)
    return NULL;
  for (uint32_t k = node->attrs; page->attrs[k].name; k++)
    if (strcmp(page->attrs[k].name, name) == 0)
      return page->attrs[k].value;
  return NULL;
}

const wn_dom_meta *wn_dom_meta_items(const wn_dom_page *page, uint32_t *count) {
  if (count)
    *count = page->n_meta;
  return page->meta;
}
