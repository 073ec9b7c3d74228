/*
 * learn/nset.c: the n-SET of the site-level paper (Sec. 2.1): rank the key
 * page's same-site links by hyperlink distance and DOM distance (defined in
 * learn.h). Fetching the ranked pages and learning from them is
 * crawl_learn.c.
 */
#include "learn/learn.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WN_NSET_DEFAULT_RANKED 64u

/* ---- hyperlink distance ----------------------------------------------------- */

/* Path and query of a URL by curl's URL API. *path and *query are curl
 * strings (curl_free); *query is NULL when there is none. */
static int wn_url_path_query(const char *url, char **path, char **query) {
  *path = NULL;
  *query = NULL;
  CURLU *h = curl_url();
  if (!h)
    return -1;
  int rc = -1;
  if (curl_url_set(h, CURLUPART_URL, url, 0) != CURLUE_OK ||
      curl_url_get(h, CURLUPART_PATH, path, 0) != CURLUE_OK)
    goto out;
  if (curl_url_get(h, CURLUPART_QUERY, query, 0) != CURLUE_OK)
    *query = NULL;
  rc = 0;
out:
  curl_url_cleanup(h);
  if (rc) {
    curl_free(*path);
    *path = NULL;
  }
  return rc;
}

/* 1 if the byte ranges differ once each run of digits counts as one digit. */
static int wn_folded_differ(const char *a, size_t alen, const char *b, size_t blen) {
  size_t i = 0, j = 0;
  while (i < alen && j < blen) {
    if (wn_ascii_digit(a[i]) && wn_ascii_digit(b[j])) {
      while (i < alen && wn_ascii_digit(a[i]))
        i++;
      while (j < blen && wn_ascii_digit(b[j]))
        j++;
      continue;
    }
    if (a[i] != b[j])
      return 1;
    i++;
    j++;
  }
  return i != alen || j != blen;
}

/* Splits a path (which starts with '/') into at most cap segments:
 * starts[k], lens[k]. Returns the count (segments past the cap are cut:
 * paths that deep are far apart anyway). */
static size_t wn_split_path(const char *path, const char **starts, size_t *lens, size_t cap) {
  size_t n = 0;
  const char *p = path;
  if (*p == '/')
    p++;
  for (;;) {
    const char *slash = strchr(p, '/');
    size_t len = slash ? (size_t)(slash - p) : strlen(p);
    if (n < cap) {
      starts[n] = p;
      lens[n] = len;
      n++;
    }
    if (!slash)
      break;
    p = slash + 1;
  }
  return n;
}

#define WN_NSET_MAX_SEGMENTS 64u

/* A URL's path segments and query (both functions below compare two). */
typedef struct wn_url_parts {
  char *path, *query; /* curl's, or NULL */
  const char *seg[WN_NSET_MAX_SEGMENTS];
  size_t len[WN_NSET_MAX_SEGMENTS];
  size_t n;
} wn_url_parts;

static int wn_url_parts_get(const char *url, wn_url_parts *u) {
  u->path = u->query = NULL;
  u->n = 0;
  if (wn_url_path_query(url, &u->path, &u->query) != 0)
    return -1;
  u->n = wn_split_path(u->path, u->seg, u->len, WN_NSET_MAX_SEGMENTS);
  return 0;
}

static void wn_url_parts_free(wn_url_parts *u) {
  curl_free(u->path);
  curl_free(u->query);
}

uint32_t wn_learn_hyperlink_distance(const char *key_url, const char *url) {
  wn_url_parts k, u;
  uint32_t d = UINT32_MAX;
  int ok = wn_url_parts_get(key_url, &k) == 0;
  ok = wn_url_parts_get(url, &u) == 0 && ok;
  if (ok) {
    size_t m = k.n, n = u.n, common = m < n ? m : n;
    d = (uint32_t)(m > n ? m - n : n - m);
    for (size_t i = 0; i < common; i++)
      d += (uint32_t)wn_folded_differ(k.seg[i], k.len[i], u.seg[i], u.len[i]);
    const char *a = k.query ? k.query : "", *b = u.query ? u.query : "";
    d += (uint32_t)wn_folded_differ(a, strlen(a), b, strlen(b));
  }
  wn_url_parts_free(&k);
  wn_url_parts_free(&u);
  return d;
}

/* ---- another language by path (rule a of learn.h) ------------------------------ */

/* 1 if the key's tag at this place is the key page's language (learn.h:
 * the lang agrees; without a lang, a tag with a subtag, or the only
 * place the two URLs differ). */
static int wn_key_language_at(const char *tag, size_t len, const char *key_lang,
                              int only_difference) {
  int sub = 0;
  if (!wn_learn_language_tag(tag, len, &sub))
    return 0;
  const char *l = key_lang;
  while (l && (*l == ' ' || *l == '\t' || *l == '\n' || *l == '\r'))
    l++;
  if (l && *l)
    return wn_learn_lang_agrees(l, tag, len);
  return sub || only_difference;
}

/* 1 if the byte ranges are the same tag (ASCII case ignored, '-' = '_'). */
static int wn_same_tag(const char *a, size_t alen, const char *b, size_t blen) {
  if (alen != blen)
    return 0;
  for (size_t i = 0; i < alen; i++) {
    char x = a[i] == '_' ? '-' : a[i], y = b[i] == '_' ? '-' : b[i];
    if (wn_ascii_lower(x) != wn_ascii_lower(y))
      return 0;
  }
  return 1;
}

#define WN_NSET_MAX_PARTS 16u

/* Splits a file name at '.' into at most cap parts. */
static size_t wn_split_dots(const char *s, size_t len, const char **starts, size_t *lens,
                            size_t cap) {
  size_t n = 0, i = 0;
  while (n < cap) {
    size_t j = i;
    while (j < len && s[j] != '.')
      j++;
    starts[n] = s + i;
    lens[n] = j - i;
    n++;
    if (j >= len)
      break;
    i = j + 1;
  }
  return n;
}

static int wn_bytes_equal(const char *a, size_t alen, const char *b, size_t blen) {
  return alen == blen && memcmp(a, b, alen) == 0;
}

int wn_learn_url_other_language(const char *key_url, const char *key_lang, const char *url,
                                char *why, size_t why_size) {
  wn_url_parts kp, up;
  int other = 0;
  int ok = wn_url_parts_get(key_url, &kp) == 0;
  ok = wn_url_parts_get(url, &up) == 0 && ok;
  if (!ok)
    goto out;
  const char *const *ks = kp.seg, *const *us = up.seg;
  const size_t *kl = kp.len, *ul = up.len;
  const size_t m = kp.n, n = up.n;
  const int same_query = strcmp(kp.query ? kp.query : "", up.query ? up.query : "") == 0;
  /* Segments at the same place from the root: /en/guide/x.html and
   * /fr/guide/x.html, /manual/de-de/x and /manual/fr-fr/x. */
  size_t common = m < n ? m : n;
  size_t differ = m == n ? 0 : 2;
  for (size_t i = 0; i < common; i++)
    differ += !wn_bytes_equal(ks[i], kl[i], us[i], ul[i]);
  for (size_t i = 0; i < common && !other; i++) {
    if (wn_same_tag(ks[i], kl[i], us[i], ul[i]) ||
        !wn_learn_language_tag(us[i], ul[i], NULL) ||
        !wn_key_language_at(ks[i], kl[i], key_lang, differ == 1 && same_query))
      continue;
    other = 1;
    if (why && why_size)
      snprintf(why, why_size,
               "path segment \"%.*s\" where the key page's has \"%.*s\": another language",
               (int)(ul[i] > 32 ? 32 : ul[i]), us[i], (int)(kl[i] > 32 ? 32 : kl[i]), ks[i]);
  }
  /* A language part of the file name (Apache's content negotiation:
   * index.en.html, index.html.fr), counted from the end; the first part
   * is the name itself. */
  if (!other && m == n && m > 0) {
    const char *kd[WN_NSET_MAX_PARTS], *ud[WN_NSET_MAX_PARTS];
    size_t kdl[WN_NSET_MAX_PARTS], udl[WN_NSET_MAX_PARTS];
    size_t kn = wn_split_dots(ks[m - 1], kl[m - 1], kd, kdl, WN_NSET_MAX_PARTS);
    size_t un = wn_split_dots(us[n - 1], ul[n - 1], ud, udl, WN_NSET_MAX_PARTS);
    size_t parts_differ = kn == un ? 0 : 2;
    for (size_t k = 0; k < kn && k < un; k++)
      parts_differ += !wn_bytes_equal(kd[k], kdl[k], ud[k], udl[k]);
    const int only = differ == 1 && parts_differ == 1 && same_query;
    for (size_t back = 0; back + 1 < kn && back + 1 < un && !other; back++) {
      size_t a = kn - 1 - back, b = un - 1 - back;
      if (wn_same_tag(kd[a], kdl[a], ud[b], udl[b]) ||
          !wn_learn_language_tag(ud[b], udl[b], NULL) ||
          !wn_key_language_at(kd[a], kdl[a], key_lang, only))
        continue;
      other = 1;
      if (why && why_size)
        snprintf(why, why_size,
                 "file name part \"%.*s\" where the key page's has \"%.*s\": another language",
                 (int)(udl[b] > 32 ? 32 : udl[b]), ud[b], (int)(kdl[a] > 32 ? 32 : kdl[a]),
                 kd[a]);
    }
  }
out:
  wn_url_parts_free(&kp);
  wn_url_parts_free(&up);
  return other;
}

/* ---- DOM distance ------------------------------------------------------------- */

uint32_t wn_learn_dom_distance(const wn_dom_page *page, uint32_t a, uint32_t b) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  if (a >= count || b >= count)
    return UINT32_MAX;
  uint32_t d = 0;
  /* Climb the deeper node to the other's depth, then both to the common
   * ancestor: O(depth), and depth is capped by the parser. */
  while (nodes[a].depth > nodes[b].depth) {
    a = nodes[a].parent;
    d++;
  }
  while (nodes[b].depth > nodes[a].depth) {
    b = nodes[b].parent;
    d++;
  }
  while (a != b) {
    a = nodes[a].parent;
    b = nodes[b].parent;
    d += 2;
  }
  return d;
}

/* ---- ranking -------------------------------------------------------------------- */

typedef struct wn_rank_item {
  size_t link;
  uint32_t h;
  uint32_t min_dist; /* to the candidates ranked so far */
  int ranked;
} wn_rank_item;

wn_err wn_learn_nset_rank(const wn_dom_page *key, const char *key_url, const wn_link *links,
                          size_t n_links, int by_domain, size_t max_ranked,
                          wn_nset_candidate **out, size_t *n_out, wn_diag *diag) {
  wn_err err = WN_OK;
  wn_rank_item *items = NULL;
  const char **seen = NULL;
  wn_link *alts = NULL;
  size_t n_items = 0, n_seen = 0, n_alts = 0;
  *out = NULL;
  *n_out = 0;
  /* Other versions of the key page are no samples (learn.h, rule a). */
  if ((err = wn_learn_alternates(key, key_url, &alts, &n_alts, diag)))
    return err;
  const char *key_lang = wn_dom_lang(key);
  if (max_ranked == 0)
    max_ranked = WN_NSET_DEFAULT_RANKED;
  size_t cap = n_links < WN_NSET_MAX_CANDIDATES ? n_links : WN_NSET_MAX_CANDIDATES;
  items = calloc(cap ? cap : 1, sizeof *items);
  seen = calloc(cap + 1, sizeof *seen);
  if (!items || !seen) {
    err = wn_diag_set(diag, WN_ENOMEM, "learn: out of memory ranking %zu links", n_links);
    goto out;
  }
  /* The key page itself is "seen" from the start. Duplicates are found by
   * a sorted array kept small: binary search, insertion (cap is bounded). */
  seen[n_seen++] = key_url;
  for (size_t i = 0; i < n_links && n_items < cap; i++) {
    const char *u = links[i].url;
    if (!u || !wn_url_same_site(key_url, u, by_domain))
      continue;
    size_t lo = 0, hi = n_seen;
    int found = 0;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      int c = strcmp(seen[mid], u);
      if (c == 0) {
        found = 1;
        break;
      }
      if (c < 0)
        lo = mid + 1;
      else
        hi = mid;
    }
    if (found)
      continue;
    uint32_t h = wn_learn_hyperlink_distance(key_url, u);
    if (h == UINT32_MAX)
      continue;
    int alternate = 0;
    for (size_t a = 0; a < n_alts && !alternate; a++)
      alternate = strcmp(alts[a].url, u) == 0;
    if (alternate || wn_learn_url_other_language(key_url, key_lang, u, NULL, 0))
      continue;
    memmove(seen + lo + 1, seen + lo, (n_seen - lo) * sizeof *seen);
    seen[lo] = u;
    n_seen++;
    items[n_items].link = i;
    items[n_items].h = h;
    items[n_items].min_dist = UINT32_MAX;
    n_items++;
  }

  size_t want = n_items < max_ranked ? n_items : max_ranked;
  wn_nset_candidate *ranked = calloc(want ? want : 1, sizeof *ranked);
  if (!ranked) {
    err = wn_diag_set(diag, WN_ENOMEM, "learn: out of memory ranking %zu links", n_links);
    goto out;
  }
  for (size_t r = 0; r < want; r++) {
    /* Best: lowest h; then largest distance to those ranked; then document
     * order (items are in document order, so the first found wins). */
    size_t best = SIZE_MAX;
    for (size_t k = 0; k < n_items; k++) {
      if (items[k].ranked)
        continue;
      if (best == SIZE_MAX || items[k].h < items[best].h ||
          (items[k].h == items[best].h && items[k].min_dist > items[best].min_dist))
        best = k;
    }
    wn_rank_item *b = &items[best];
    b->ranked = 1;
    ranked[r].link = b->link;
    ranked[r].hyperlink_distance = b->h;
    ranked[r].dom_distance = b->min_dist;
    /* Farthest-first: every remaining candidate's distance to the ranked
     * set shrinks to include the new member. */
    for (size_t k = 0; k < n_items; k++) {
      if (items[k].ranked)
        continue;
      uint32_t d = wn_learn_dom_distance(key, links[items[k].link].node, links[b->link].node);
      if (d < items[k].min_dist)
        items[k].min_dist = d;
    }
  }
  *out = ranked;
  *n_out = want;
out:
  free(items);
  free(seen);
  wn_links_free(alts, n_alts);
  return err;
}
