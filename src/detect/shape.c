/*
 * detect/shape.c: the page's shape (its page_type), from evidence on the
 * page itself.
 *
 * Seven shapes, WCXB's page types: an article, a forum thread, a product,
 * a collection (a grid of products), a listing (an index of articles,
 * courses, reviews), documentation and a service page (SaaS and
 * marketing pages of sections). The evidence, strongest first:
 *  - what the page states for search engines: schema.org types in its
 *    JSON-LD (QAPage, DiscussionForumPosting, Product, ItemList,
 *    CollectionPage, TechArticle, Article...) and its og:type;
 *  - its structure: code listings (a manual), like records read whole by
 *    the area reading (area.c) with prices (a grid of products) or dates
 *    (an index of posts), or sections (a service page);
 *  - its URL's path (a segment "docs", "forum", "product", "blog", ...),
 *    weak evidence: it decides only where the page states nothing.
 * No list of sites, no class names: the types are the web's own
 * vocabularies (schema.org, the Open Graph protocol) and the path words
 * are the conventions of CMSs and shops the world over.
 */
#include "detect/detect_int.h"

#include <string.h>

#include "dom/dom.h"

static const char *const wn_page_type_names[] = {
    "article", "forum", "product", "collection", "listing", "documentation", "service",
};

const char *wn_detect_page_type_name(wn_detect_page_type t) {
  return (unsigned)t < sizeof wn_page_type_names / sizeof *wn_page_type_names
             ? wn_page_type_names[t]
             : NULL;
}

/* Path words: a segment of the path equal to one of these (case
 * folded), or, for the longer ones, starting with it ("products",
 * "questions"). */
typedef struct wn_path_word {
  const char *word;
  wn_detect_page_type type;
} wn_path_word;

static const wn_path_word wn_path_words[] = {
    {"forum", WN_PAGE_FORUM},        {"forums", WN_PAGE_FORUM},
    {"thread", WN_PAGE_FORUM},       {"threads", WN_PAGE_FORUM},
    {"questions", WN_PAGE_FORUM},    {"discussion", WN_PAGE_FORUM},
    {"discussions", WN_PAGE_FORUM},  {"community", WN_PAGE_FORUM},
    {"topic", WN_PAGE_FORUM},        {"t", WN_PAGE_FORUM},
    {"product", WN_PAGE_PRODUCT},    {"products", WN_PAGE_PRODUCT},
    {"p", WN_PAGE_PRODUCT},          {"dp", WN_PAGE_PRODUCT},
    {"item", WN_PAGE_PRODUCT},
    {"collections", WN_PAGE_COLLECTION}, {"category", WN_PAGE_COLLECTION},
    {"categories", WN_PAGE_COLLECTION},  {"shop", WN_PAGE_COLLECTION},
    {"c", WN_PAGE_COLLECTION},
    {"docs", WN_PAGE_DOCUMENTATION}, {"doc", WN_PAGE_DOCUMENTATION},
    {"documentation", WN_PAGE_DOCUMENTATION}, {"manual", WN_PAGE_DOCUMENTATION},
    {"reference", WN_PAGE_DOCUMENTATION},     {"api", WN_PAGE_DOCUMENTATION},
    {"wiki", WN_PAGE_DOCUMENTATION},          {"kb", WN_PAGE_DOCUMENTATION},
    {"pricing", WN_PAGE_SERVICE},    {"features", WN_PAGE_SERVICE},
    {"solutions", WN_PAGE_SERVICE},  {"services", WN_PAGE_SERVICE},
    {"platform", WN_PAGE_SERVICE},   {"enterprise", WN_PAGE_SERVICE},
    {"tag", WN_PAGE_LISTING},        {"tags", WN_PAGE_LISTING},
    {"archive", WN_PAGE_LISTING},    {"archives", WN_PAGE_LISTING},
    {"blog", WN_PAGE_ARTICLE},       {"news", WN_PAGE_ARTICLE},
    {"article", WN_PAGE_ARTICLE},    {"articles", WN_PAGE_ARTICLE},
    {"story", WN_PAGE_ARTICLE},      {"post", WN_PAGE_ARTICLE},
};

static int wn_seg_is(const char *seg, size_t len, const char *word) {
  size_t n = strlen(word);
  if (n != len)
    return 0;
  for (size_t i = 0; i < n; i++) {
    if (wn_ascii_lower(seg[i]) != word[i])
      return 0;
  }
  return 1;
}

/* The shape a path's segments name, the first segment that names one
 * deciding, else -1. A blog post under /blog/ and /2025/ is an article;
 * /blog/ alone, with no further segment, is the blog's index. */
static int wn_path_type(const char *path) {
  if (!path)
    return -1;
  const char *p = path;
  int found = -1, after = 0;
  while (*p) {
    while (*p == '/')
      p++;
    const char *s = p;
    while (*p && *p != '/')
      p++;
    size_t len = (size_t)(p - s);
    if (len == 0)
      break;
    if (found >= 0) {
      after++;
      continue;
    }
    for (size_t k = 0; k < sizeof wn_path_words / sizeof *wn_path_words; k++)
      if (wn_seg_is(s, len, wn_path_words[k].word)) {
        found = (int)wn_path_words[k].type;
        break;
      }
  }
  if (found == WN_PAGE_ARTICLE && after == 0)
    return WN_PAGE_LISTING; /* /blog/, /news/: the index */
  return found;
}

/* Code listings: a manual's entries show code (several <pre>, or many
 * inline code names). */
int wn_detect_page_shows_code(const wn_dom_page *page) {
  uint32_t count = 0, pre = 0, code = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  for (uint32_t i = 0; i < count && pre < 2 && code < 8; i++) {
    const wn_dom_node *n = &nodes[i];
    if (n->tag == WN_TAG_PRE && n->text_len > 0)
      pre++;
    else if (n->tag == WN_TAG_OTHER && n->name && n->text_len > 0 && strcmp(n->name, "code") == 0)
      code++;
  }
  return pre >= 2 || code >= 8;
}

/* Prices (a currency sign next to a digit) in the kept text. */
static uint32_t wn_shape_prices(const wn_dom_page *page, const uint8_t *keep) {
  uint32_t count = 0, prices = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  for (uint32_t i = 0; keep && i < count; i++)
    if (nodes[i].tag == WN_TAG_TEXT && keep[i] &&
        wn_detect_has_price(nodes[i].text, nodes[i].own_text_len))
      prices++;
  return prices;
}

wn_detect_page_type wn_detect_page_shape(const wn_dom_page *page, const wn_detect_result *res,
                                         const char *path) {
  /* Read once: the area reading may have read it already. */
  const uint32_t k = res && res->stated_known ? res->stated : wn_detect_stated_kinds(page);
  /* What the page states of itself, its kind of main entity first. */
  if (k & WN_LD_FORUM)
    return WN_PAGE_FORUM;
  if (k & WN_LD_TECH)
    return WN_PAGE_DOCUMENTATION;
  if ((k & (WN_OG_PRODUCT_GROUP | WN_LD_LIST_PRODUCTS)) ||
      ((k & WN_LD_LIST) && (k & (WN_LD_PRODUCT | WN_OG_PRODUCT))))
    return WN_PAGE_COLLECTION;
  if (k & (WN_LD_PRODUCT | WN_OG_PRODUCT))
    return WN_PAGE_PRODUCT;
  const uint8_t *keep = res ? wn_detect_keep_flags(res) : NULL;
  const uint32_t prices = wn_shape_prices(page, keep);
  if (k & WN_LD_LIST)
    return prices >= 3 ? WN_PAGE_COLLECTION : WN_PAGE_LISTING;
  /* Records: most of the kept text is a run of three or more like
   * records. */
  wn_detect_records rec = {0};
  wn_detect_record_traits tr = {0};
  uint64_t kept = 0;
  if (keep) {
    uint32_t count = 0;
    const wn_dom_node *nodes = wn_dom_nodes(page, &count);
    for (uint32_t i = 0; i < count; i++)
      if (keep[i] && nodes[i].tag == WN_TAG_TEXT)
        kept += nodes[i].own_text_len;
    if (wn_detect_records_find(page, keep, &rec) != WN_OK)
      rec.n = 0; /* out of memory: the shape is read without records */
    for (uint32_t r = rec.first, j = 0; rec.n && r != WN_DOM_NONE && j < rec.n;
         r = wn_detect_record_next(nodes, &rec, r), j++)
      wn_detect_record_read(nodes, r, keep, &tr);
  }
  const int records = rec.n >= 3 && 2 * rec.text > kept;
  const int by_path = wn_path_type(path);
  const int parts = records || (res && res->area);
  const int code = wn_detect_page_shows_code(page);
  if (k & (WN_LD_ARTICLE | WN_OG_ARTICLE)) {
    if (by_path >= 0 && by_path != WN_PAGE_ARTICLE && parts)
      return (wn_detect_page_type)by_path;
    return WN_PAGE_ARTICLE;
  }
  if (by_path >= 0 && (by_path != WN_PAGE_ARTICLE || !parts))
    return (wn_detect_page_type)by_path;
  /* A site's front page (its own URL, or the canonical URL it names, is
   * the root) is no manual even when it shows code: a developer tool's
   * landing page shows its commands. */
  const int front = (k & WN_FRONT) || (path && path[strspn(path, "/")] == '\0');
  if (code && !front)
    return WN_PAGE_DOCUMENTATION;
  if (records) {
    /* What the records show: a grid of products its prices, an index of
     * posts or articles their dates or the link each one leads with; a
     * thread's posts are dated prose. */
    if (2 * tr.priced >= rec.n)
      return WN_PAGE_COLLECTION;
    if (2 * tr.linked >= rec.n)
      return WN_PAGE_LISTING;
    if (2 * tr.dated >= rec.n)
      return WN_PAGE_FORUM;
    return WN_PAGE_SERVICE;
  }
  if (res && res->area)
    return prices >= 3 ? WN_PAGE_COLLECTION : WN_PAGE_SERVICE;
  /* Nor is a front page an article: it is the site's landing page, when
   * no records show an index. */
  if (front)
    return WN_PAGE_SERVICE;
  return WN_PAGE_ARTICLE;
}
