/*
 * detect/meta.c: a page's metadata from its markup.
 *
 * The compact tree has no <head> and no <script> as content; what this
 * reads from them is in the page's metadata side table (wn_dom_meta_items,
 * the elements in document order), filled by either builder:
 * <title>, <meta name|property|itemprop content> (HTML "Standard metadata
 * names", Open Graph (ogp.me), Dublin Core, the article: namespace),
 * JSON-LD scripts (schema.org Article: headline, author, datePublished,
 * publisher; top-level objects, arrays and @graph), <time datetime>,
 * <link rel=canonical> and <html lang>. Each field takes the source of
 * highest priority that has it (lower rank wins); the order is
 * trafilatura's (metadata.py: JSON-LD, then Open Graph, then <meta>, then
 * the page's own elements), with the headline before <title>, which
 * often carries the site's name.
 */
#include "detect/detect.h"
#include "detect/detect_int.h"
#include "fetch/fetch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#include <jansson.h>

/* Bound: longest field kept (longer text is cut at a character
 * boundary). */
#define WN_META_MAX_FIELD 4096u

enum { WN_M_TITLE, WN_M_AUTHOR, WN_M_DATE, WN_M_LANG, WN_M_CANON, WN_M_DESC, WN_M_SITE,
       WN_M_COUNT };

typedef struct wn_meta_acc {
  char *val[WN_M_COUNT];
  int rank[WN_M_COUNT];
  char *h1;             /* the first <h1>'s text, for <title> */
  char *title_el;       /* <title> */
  int oom;
} wn_meta_acc;

/* s with white space collapsed and trimmed, cut to WN_META_MAX_FIELD bytes
 * at a character boundary; NULL if empty or out of memory (oom set). */
static char *wn_meta_clean(const char *s, int *oom) {
  if (!s)
    return NULL;
  size_t n = strlen(s);
  if (n > 4 * WN_META_MAX_FIELD)
    n = 4 * WN_META_MAX_FIELD;
  char *out = malloc(n + 1);
  if (!out) {
    *oom = 1;
    return NULL;
  }
  size_t len = 0;
  int blank = 0;
  for (size_t k = 0; k < n && len < WN_META_MAX_FIELD; k++) {
    if (wn_html_space((unsigned char)s[k])) {
      blank = len > 0;
      continue;
    }
    if (blank)
      out[len++] = ' ';
    blank = 0;
    if (len < WN_META_MAX_FIELD)
      out[len++] = s[k];
  }
  /* Cut at a character boundary: drop a trailing partial UTF-8 sequence. */
  if (len == WN_META_MAX_FIELD) {
    size_t k = len;
    while (k > 0 && ((unsigned char)out[k - 1] & 0xC0) == 0x80)
      k--;
    if (k > 0 && ((unsigned char)out[k - 1] & 0x80))
      len = k - 1;
  }
  out[len] = '\0';
  if (len == 0) {
    free(out);
    return NULL;
  }
  return out;
}

/* Offers value for field at rank: taken if better than what is there. */
static void wn_meta_offer(wn_meta_acc *a, int field, int rank, const char *value) {
  if (!value || (a->val[field] && a->rank[field] <= rank))
    return;
  char *v = NULL;
  if (field == WN_M_DATE) {
    char iso[40];
    if (!wn_detect_date_iso(value, iso, sizeof iso))
      return;
    v = wn_meta_clean(iso, &a->oom);
  } else {
    v = wn_meta_clean(value, &a->oom);
  }
  if (!v)
    return;
  free(a->val[field]);
  a->val[field] = v;
  a->rank[field] = rank;
}

/* ---- dates ------------------------------------------------------------------- */

static int wn_digits(const char *s, size_t n, unsigned *out) {
  unsigned v = 0;
  for (size_t k = 0; k < n; k++) {
    if (s[k] < '0' || s[k] > '9')
      return 0;
    v = v * 10 + (unsigned)(s[k] - '0');
  }
  *out = v;
  return 1;
}

static int wn_date_valid(unsigned y, unsigned m, unsigned d) {
  static const unsigned mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (y < 1900 || y > 2199 || m < 1 || m > 12 || d < 1 || d > mdays[m - 1])
    return 0;
  return !(m == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0));
}

static unsigned wn_month_name(const char *w, size_t n) {
  static const char *names[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                "jul", "aug", "sep", "oct", "nov", "dec"};
  if (n < 3)
    return 0;
  for (unsigned m = 0; m < 12; m++) {
    int same = 1;
    for (size_t k = 0; k < 3 && same; k++)
      same = (w[k] | 0x20) == names[m][k];
    if (same)
      return m + 1;
  }
  return 0;
}

int wn_detect_date_iso(const char *in, char *out, size_t size) {
  if (!in || size < 40)
    return 0;
  while (wn_html_space((unsigned char)*in))
    in++;
  size_t n = strlen(in);
  while (n && wn_html_space((unsigned char)in[n - 1]))
    n--;
  unsigned y = 0, m = 0, d = 0;
  /* ISO 8601 / RFC 3339 first: YYYY-MM-DD (or / or . between), then an
   * optional time, kept as given when it is well formed. */
  if (n >= 10 && wn_digits(in, 4, &y) && (in[4] == '-' || in[4] == '/' || in[4] == '.') &&
      in[7] == in[4] && wn_digits(in + 5, 2, &m) && wn_digits(in + 8, 2, &d)) {
    if (!wn_date_valid(y, m, d))
      return 0;
    size_t k = 10;
    unsigned hh = 0, mm = 0, ss = 0;
    if (in[4] == '-' && n >= 16 && (in[10] == 'T' || in[10] == ' ') && wn_digits(in + 11, 2, &hh) &&
        in[13] == ':' && wn_digits(in + 14, 2, &mm) && hh < 24 && mm < 60) {
      k = 16;
      if (n >= 19 && in[16] == ':' && wn_digits(in + 17, 2, &ss) && ss < 61) {
        k = 19;
        if (k < n && (in[k] == '.' || in[k] == ',')) {
          size_t f = k + 1;
          while (f < n && f < k + 10 && wn_ascii_digit(in[f]))
            f++;
          if (f > k + 1)
            k = f;
        }
      }
      unsigned zh = 0, zm = 0;
      if (k < n && in[k] == 'Z')
        k++;
      else if (k + 6 <= n && (in[k] == '+' || in[k] == '-') && wn_digits(in + k + 1, 2, &zh) &&
               in[k + 3] == ':' && wn_digits(in + k + 4, 2, &zm))
        k += 6;
      else if (k + 5 <= n && (in[k] == '+' || in[k] == '-') && wn_digits(in + k + 1, 4, &zh))
        k += 5;
      if (k != n) /* something else follows: the date alone */
        k = 10;
    }
    if (k == 10) {
      snprintf(out, size, "%04u-%02u-%02u", y, m, d);
    } else {
      memcpy(out, in, k);
      out[k] = '\0';
      out[10] = 'T';
    }
    return 1;
  }
  if (n == 8 && wn_digits(in, 4, &y) && wn_digits(in + 4, 2, &m) && wn_digits(in + 6, 2, &d) &&
      wn_date_valid(y, m, d)) {
    snprintf(out, size, "%04u-%02u-%02u", y, m, d);
    return 1;
  }
  /* Written out: a month name, a day and a year in any order ("March 4,
   * 2021", "4 Mar 2021", "Thu, 04 Mar 2021 10:00:00 GMT"); the time of day
   * is dropped. Purely numeric d/m/y forms are ambiguous and refused. */
  y = m = d = 0;
  for (size_t k = 0; k < n;) {
    while (k < n && !wn_ascii_alnum(in[k]))
      k++;
    size_t w = k;
    if (k < n && wn_ascii_digit(in[k])) {
      while (k < n && wn_ascii_digit(in[k]))
        k++;
      unsigned v = 0;
      int is_time = k < n && in[k] == ':';
      if (is_time) {
        while (k < n && (in[k] == ':' || wn_ascii_digit(in[k])))
          k++;
        continue;
      }
      if (k - w == 4 && wn_digits(in + w, 4, &v) && !y)
        y = v;
      else if (k - w <= 2 && wn_digits(in + w, k - w, &v) && !d)
        d = v;
      else
        return 0;
    } else {
      while (k < n && wn_ascii_alpha(in[k]))
        k++;
      unsigned mo = wn_month_name(in + w, k - w);
      if (mo && !m)
        m = mo;
      /* "st", "nd", "th" after a day, weekday and zone names are skipped. */
    }
  }
  if (!wn_date_valid(y, m, d))
    return 0;
  snprintf(out, size, "%04u-%02u-%02u", y, m, d);
  return 1;
}

/* ---- JSON-LD ------------------------------------------------------------------ */

static const char *wn_json_str(const json_t *o, const char *key) {
  const json_t *v = json_object_get(o, key);
  if (json_is_array(v))
    v = json_array_get(v, 0);
  if (json_is_object(v))
    v = json_object_get(v, "name");
  return json_is_string(v) ? json_string_value(v) : NULL;
}

/* schema.org types whose name is the page's headline. */
static int wn_jsonld_article(const json_t *item) {
  const json_t *t = json_object_get(item, "@type");
  if (json_is_array(t))
    t = json_array_get(t, 0);
  const char *s = json_is_string(t) ? json_string_value(t) : "";
  return strstr(s, "Article") || strstr(s, "Posting") || strcmp(s, "Report") == 0 ||
         strcmp(s, "WebPage") == 0 || strcmp(s, "Recipe") == 0 || strcmp(s, "Review") == 0;
}

/* author: a string, a Person or Organization object, or an array of
 * those; names joined with ", ". */
static void wn_jsonld_author(wn_meta_acc *a, const json_t *author, int rank) {
  char buf[1024];
  size_t len = 0;
  size_t n = json_is_array(author) ? json_array_size(author) : 1;
  for (size_t k = 0; k < n && k < 16; k++) {
    const json_t *v = json_is_array(author) ? json_array_get(author, k) : author;
    if (json_is_object(v))
      v = json_object_get(v, "name");
    if (!json_is_string(v) || json_string_length(v) == 0)
      continue;
    size_t vl = json_string_length(v);
    if (len + vl + 3 >= sizeof buf)
      break;
    if (len) {
      memcpy(buf + len, ", ", 2);
      len += 2;
    }
    memcpy(buf + len, json_string_value(v), vl);
    len += vl;
  }
  buf[len] = '\0';
  if (len)
    wn_meta_offer(a, WN_M_AUTHOR, rank, buf);
}

static void wn_jsonld_item(wn_meta_acc *a, const json_t *item) {
  if (!json_is_object(item))
    return;
  /* Items that describe the page (articles) outrank others (the site's
   * Organization, a BreadcrumbList). */
  int art = wn_jsonld_article(item);
  int rank = art ? 10 : 15;
  wn_meta_offer(a, WN_M_TITLE, rank, wn_json_str(item, "headline"));
  if (art)
    wn_meta_offer(a, WN_M_TITLE, rank + 1, wn_json_str(item, "name"));
  const json_t *author = json_object_get(item, "author");
  if (author)
    wn_jsonld_author(a, author, rank);
  wn_meta_offer(a, WN_M_DATE, rank, wn_json_str(item, "datePublished"));
  if (art)
    wn_meta_offer(a, WN_M_DATE, rank + 2, wn_json_str(item, "dateCreated"));
  wn_meta_offer(a, WN_M_DESC, rank + 20, wn_json_str(item, "description"));
  wn_meta_offer(a, WN_M_LANG, rank + 20, wn_json_str(item, "inLanguage"));
  const json_t *pub = json_object_get(item, "publisher");
  if (json_is_object(pub))
    wn_meta_offer(a, WN_M_SITE, rank + 10, wn_json_str(pub, "name"));
  const json_t *t = json_object_get(item, "@type");
  if (json_is_string(t) && strcmp(json_string_value(t), "WebSite") == 0)
    wn_meta_offer(a, WN_M_SITE, 30, wn_json_str(item, "name"));
}

static void wn_jsonld_meta_item(const json_t *item, void *ctx) { wn_jsonld_item(ctx, item); }

static void wn_jsonld(wn_meta_acc *a, const char *text) {
  wn_detect_jsonld_each(text, wn_jsonld_meta_item, a);
}

/* ---- <meta> --------------------------------------------------------------------- */

static int wn_ieq(const char *a, const char *b) {
  for (; *a && *b; a++, b++)
    if (wn_ascii_lower(*a) != wn_ascii_lower(*b))
      return 0;
  return *a == *b;
}

static int wn_is_url(const char *s) { return strncmp(s, "http://", 7) == 0 || strncmp(s, "https://", 8) == 0; }

static void wn_meta_tag(wn_meta_acc *a, const char *key, const char *content) {
  if (!key || !content)
    return;
  /* Open Graph and the article: namespace. */
  if (wn_ieq(key, "og:title"))
    wn_meta_offer(a, WN_M_TITLE, 20, content);
  else if (wn_ieq(key, "twitter:title") || wn_ieq(key, "dc.title") || wn_ieq(key, "title") ||
           wn_ieq(key, "citation_title"))
    wn_meta_offer(a, WN_M_TITLE, 30, content);
  else if (wn_ieq(key, "og:description"))
    wn_meta_offer(a, WN_M_DESC, 20, content);
  else if (wn_ieq(key, "description") || wn_ieq(key, "dc.description"))
    wn_meta_offer(a, WN_M_DESC, 10, content);
  else if (wn_ieq(key, "twitter:description"))
    wn_meta_offer(a, WN_M_DESC, 30, content);
  else if (wn_ieq(key, "og:site_name"))
    wn_meta_offer(a, WN_M_SITE, 10, content);
  else if (wn_ieq(key, "application-name"))
    wn_meta_offer(a, WN_M_SITE, 40, content);
  else if (wn_ieq(key, "og:url"))
    wn_meta_offer(a, WN_M_CANON, 20, content);
  else if (wn_ieq(key, "og:locale"))
    wn_meta_offer(a, WN_M_LANG, 30, content);
  else if (wn_ieq(key, "article:published_time") || wn_ieq(key, "og:article:published_time") ||
           wn_ieq(key, "datepublished"))
    wn_meta_offer(a, WN_M_DATE, 20, content);
  else if (wn_ieq(key, "date") || wn_ieq(key, "pubdate") || wn_ieq(key, "publishdate") ||
           wn_ieq(key, "publish_date") || wn_ieq(key, "publication_date") ||
           wn_ieq(key, "dc.date") || wn_ieq(key, "dc.date.issued") || wn_ieq(key, "dcterms.date") ||
           wn_ieq(key, "dcterms.issued") || wn_ieq(key, "dcterms.created") ||
           wn_ieq(key, "citation_publication_date") || wn_ieq(key, "citation_date") ||
           wn_ieq(key, "sailthru.date") || wn_ieq(key, "parsely-pub-date"))
    wn_meta_offer(a, WN_M_DATE, 30, content);
  else if (wn_ieq(key, "author") || wn_ieq(key, "dc.creator") || wn_ieq(key, "parsely-author") ||
           wn_ieq(key, "citation_author") || wn_ieq(key, "sailthru.author"))
    wn_meta_offer(a, WN_M_AUTHOR, 20, content);
  else if (wn_ieq(key, "article:author") && !wn_is_url(content))
    wn_meta_offer(a, WN_M_AUTHOR, 25, content);
}

/* rel="canonical" among the link's space-separated rel tokens. */

static void wn_meta_element(wn_meta_acc *a, const wn_dom_meta *m) {
  switch (m->kind) {
  case WN_DOM_META_TAG:
    wn_meta_tag(a, m->name, m->content);
    wn_meta_tag(a, m->property, m->content);
    wn_meta_tag(a, m->itemprop, m->content);
    if (m->http_equiv && m->content && wn_ieq(m->http_equiv, "content-language"))
      wn_meta_offer(a, WN_M_LANG, 20, m->content);
    break;
  case WN_DOM_META_LINK:
    if (wn_html_has_token(m->rel, "canonical"))
      wn_meta_offer(a, WN_M_CANON, 10, m->href);
    break;
  case WN_DOM_META_TIME: {
    int published = m->pubdate || (m->itemprop && wn_ieq(m->itemprop, "datePublished"));
    wn_meta_offer(a, WN_M_DATE, published ? 35 : 40, m->datetime);
    break;
  }
  case WN_DOM_META_JSONLD:
    if (m->text && !m->cut)
      wn_jsonld(a, m->text);
    break;
  case WN_DOM_META_TITLE:
    if (!a->title_el)
      a->title_el = wn_meta_clean(m->text, &a->oom);
    break;
  case WN_DOM_META_H1:
    if (!a->h1)
      a->h1 = wn_meta_clean(m->text, &a->oom);
    break;
  default: /* <base>: read by wn_meta_base */
    break;
  }
}

/* The longest part of a <title> split at " | ", " - ", " – ", " — ",
 * " » " or " · " (in place): "Site | Section | Headline" and "Headline -
 * Site.com" give the headline (trafilatura's title rule, metadata.py). */
static void wn_meta_title_part(char *t) {
  static const char *const seps[] = {" | ", " - ", " \xe2\x80\x93 ", " \xe2\x80\x94 ",
                                     " \xc2\xbb ", " \xc2\xb7 "};
  const char *best = t;
  size_t best_len = 0, n_parts = 0;
  const char *start = t;
  for (const char *p = t;; p++) {
    size_t sep = 0;
    for (size_t k = 0; k < sizeof seps / sizeof seps[0] && *p; k++)
      if (strncmp(p, seps[k], strlen(seps[k])) == 0)
        sep = strlen(seps[k]);
    if (!*p || sep) {
      n_parts++;
      if ((size_t)(p - start) > best_len) {
        best = start;
        best_len = (size_t)(p - start);
      }
      if (!*p)
        break;
      p += sep - 1;
      start = p + 1;
    }
  }
  if (n_parts > 1 && best_len > 0) {
    memmove(t, best, best_len);
    t[best_len] = '\0';
  }
}

/* The document's base URL: <base href> resolved against the page's URL
 * (HTML, "document base URL"), else the page's URL. */
static char *wn_meta_base(const wn_dom_meta *items, uint32_t n_items, const char *page_url,
                          int *oom) {
  wn_buf b;
  wn_buf_init(&b, 16384);
  char *out = NULL;
  wn_url_base *page_base = NULL;
  for (uint32_t k = 0; k < n_items; k++) {
    if (items[k].kind != WN_DOM_META_BASE || !items[k].href)
      continue;
    /* Without a page URL the href is taken as written. A page URL that
     * does not parse is an empty base: an absolute href still resolves. */
    if (page_url && !page_base) {
      wn_err err = wn_url_base_parse(page_url, &page_base);
      if (err == WN_EINVAL)
        err = wn_url_base_parse(NULL, &page_base);
      if (err) {
        *oom = 1;
        break;
      }
    }
    if (wn_url_base_resolve(page_base, items[k].href, &b) != WN_OK)
      *oom = 1;
  }
  wn_url_base_free(page_base);
  if (b.len)
    out = wn_buf_take(&b, NULL);
  wn_buf_free(&b);
  if (out || !page_url)
    return out;
  out = strdup(page_url);
  if (!out)
    *oom = 1;
  return out;
}

wn_err wn_detect_metadata_read(const wn_dom_page *page, const char *page_url,
                               wn_detect_metadata *out, wn_diag *diag) {
  memset(out, 0, sizeof *out);
  uint32_t n_items = 0;
  const wn_dom_meta *items = wn_dom_meta_items(page, &n_items);
  wn_meta_acc a;
  memset(&a, 0, sizeof a);
  /* <html lang> (or xml:lang, which the HTML parser keeps as a name). */
  wn_meta_offer(&a, WN_M_LANG, 10, wn_dom_lang(page));
  /* The elements in document order. */
  for (uint32_t k = 0; k < n_items; k++)
    wn_meta_element(&a, &items[k]);
  /* <title> last: it often carries the site's name ("Headline - Site");
   * when the first <h1> is part of it, the <h1> is the headline, else the
   * longest of its parts between separators. */
  if (a.title_el && a.h1 && strstr(a.title_el, a.h1))
    wn_meta_offer(&a, WN_M_TITLE, 50, a.h1);
  if (a.title_el)
    wn_meta_title_part(a.title_el);
  wn_meta_offer(&a, WN_M_TITLE, 60, a.title_el);
  /* og:locale is en_US; a language tag is en-US (BCP 47). */
  if (a.val[WN_M_LANG])
    for (char *p = a.val[WN_M_LANG]; *p; p++)
      if (*p == '_')
        *p = '-';
  if (a.val[WN_M_CANON]) {
    char *base = wn_meta_base(items, n_items, page_url, &a.oom);
    if (base) {
      /* A base that does not parse leaves the canonical URL as written. */
      wn_url_base *h = NULL;
      wn_buf b;
      wn_buf_init(&b, 16384);
      wn_err err = wn_url_base_parse(base, &h);
      if (err == WN_ENOMEM)
        a.oom = 1;
      if (h && wn_url_base_resolve(h, a.val[WN_M_CANON], &b) == WN_OK && b.len) {
        free(a.val[WN_M_CANON]);
        a.val[WN_M_CANON] = wn_buf_take(&b, NULL);
      }
      wn_buf_free(&b);
      wn_url_base_free(h);
      free(base);
    }
  }
  free(a.h1);
  free(a.title_el);
  out->title = a.val[WN_M_TITLE];
  out->author = a.val[WN_M_AUTHOR];
  out->date = a.val[WN_M_DATE];
  out->language = a.val[WN_M_LANG];
  out->canonical_url = a.val[WN_M_CANON];
  out->description = a.val[WN_M_DESC];
  out->site_name = a.val[WN_M_SITE];
  if (a.oom) {
    wn_detect_metadata_free(out);
    return wn_diag_set(diag, WN_ENOMEM, "out of memory");
  }
  return WN_OK;
}

void wn_detect_metadata_free(wn_detect_metadata *meta) {
  if (!meta)
    return;
  free(meta->title);
  free(meta->author);
  free(meta->date);
  free(meta->language);
  free(meta->canonical_url);
  free(meta->description);
  free(meta->site_name);
  memset(meta, 0, sizeof *meta);
}

/* ---- positions the site prints metadata at ------------------------------------ */

size_t wn_detect_node_text(const wn_dom_page *page, uint32_t node, char *out, size_t size) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  if (size == 0 || node >= count || nodes[node].text_len == 0 ||
      nodes[node].text_len >= size)
    return 0;
  size_t len = 0;
  for (uint32_t i = node; i < nodes[node].end; i++) {
    if (nodes[i].tag != WN_TAG_TEXT || nodes[i].own_text_len == 0)
      continue;
    size_t n = nodes[i].own_text_len;
    if (len + (len > 0) + n >= size)
      return 0;
    if (len > 0)
      out[len++] = ' ';
    memcpy(out + len, nodes[i].text, n);
    len += n;
  }
  out[len] = '\0';
  return len;
}

int wn_detect_byline_author(const char *text, char *out, size_t size) {
  if (!text || size == 0)
    return 0;
  while (wn_html_space((unsigned char)*text))
    text++;
  if ((text[0] | 0x20) != 'b' || (text[1] | 0x20) != 'y' ||
      !(wn_html_space((unsigned char)text[2]) || text[2] == ':'))
    return 0;
  const char *s = text + 3;
  while (wn_html_space((unsigned char)*s) || *s == ':')
    s++;
  /* The name ends where a byline goes on with a title, a place or a date. */
  size_t n = 0;
  while (s[n] && !strchr(",|;(0123456789", s[n]) && strncmp(s + n, " - ", 3) != 0)
    n++;
  while (n && wn_html_space((unsigned char)s[n - 1]))
    n--;
  int letter = 0;
  for (size_t k = 0; k < n; k++)
    letter |= wn_ascii_alpha(s[k]) || (unsigned char)s[k] >= 0x80;
  if (!letter || n + 1 > size)
    return 0;
  memcpy(out, s, n);
  out[n] = '\0';
  return 1;
}

wn_err wn_detect_metadata_positions(const wn_dom_page *page, const wn_template *tpl,
                                    wn_detect_metadata *meta, wn_diag *diag) {
  wn_template_positions pos = wn_template_get_positions(tpl);
  int want_date = !meta->date && pos.date_node != WN_DOM_NONE;
  int want_author = !meta->author && pos.author_node != WN_DOM_NONE;
  if (!want_date && !want_author)
    return WN_OK;
  uint32_t count = 0, pairs = 0;
  wn_dom_nodes(page, &count);
  uint32_t *map = malloc(((size_t)count + 1) * sizeof *map);
  if (!map)
    return wn_diag_set(diag, WN_ENOMEM, "detect: out of memory for %u nodes", count);
  wn_err err = wn_template_match(tpl, page, map, &pairs);
  if (err) {
    wn_diag_set(diag, err, "detect: matching the page against the template failed");
    goto out;
  }
  char text[WN_META_POSITION_TEXT], value[WN_META_POSITION_TEXT];
  /* The date and the byline may be one element ("By Jane Doe, March 4,
   * 2003"): each position is read on its own. */
  for (uint32_t i = 0; i < count && (want_date || want_author); i++) {
    if (map[i] == WN_DOM_NONE || (map[i] != pos.date_node && map[i] != pos.author_node))
      continue;
    if (!wn_detect_node_text(page, i, text, sizeof text))
      continue;
    if (want_date && map[i] == pos.date_node) {
      want_date = 0;
      if (wn_detect_date_iso(text, value, sizeof value) && !(meta->date = strdup(value)))
        err = WN_ENOMEM;
    }
    if (want_author && map[i] == pos.author_node) {
      want_author = 0;
      if (wn_detect_byline_author(text, value, sizeof value) && !(meta->author = strdup(value)))
        err = WN_ENOMEM;
    }
    if (err) {
      wn_diag_set(diag, err, "out of memory");
      goto out;
    }
  }
out:
  free(map);
  return err;
}
