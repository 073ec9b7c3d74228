/*
 * fetch/robots.c: robots.txt, RFC 9309 (Robots Exclusion Protocol).
 *
 * The parser keeps only what applies to us: the rules of every group whose
 * user-agent line names our product token (RFC 9309 2.2.1: all matching
 * groups are combined), else those of every "*" group. Matching follows
 * 2.2.2: the longest matching rule wins, allow wins a tie, '*' matches any
 * run of octets and a trailing '$' anchors the end. Paths and patterns are
 * brought to one percent-encoding form before comparing (2.2.2: octets
 * outside US-ASCII are compared encoded, encoded unreserved characters
 * decoded). Crawl-delay is not in the RFC but widely served; we read it
 * for our group only.
 */
#include "fetch/fetch.h"

#include <stdlib.h>
#include <string.h>

/* RFC 9309 2.5: crawlers must parse at least 500 kibibytes. */
#define WN_ROBOTS_MAX_BYTES ((size_t)500 * 1024)
/* A product token longer than this is not ours. */
#define WN_ROBOTS_TOKEN_MAX 64u
/* Crawl-delay is clamped to a day: values past it are nonsense, and the
 * crawler caps what it honours anyway (max_crawl_delay_ms). */
#define WN_ROBOTS_MAX_DELAY_MS (86400u * 1000u)

typedef struct robots_rule {
  char *pattern; /* normalised; '$' only as the last octet */
  size_t len;    /* octets in pattern: the "longest match" measure */
  int allow;
} robots_rule;

typedef struct rule_set {
  robots_rule *rules;
  size_t n, alloc;
  uint32_t delay_ms;
  int has_delay;
  int matched; /* some group named this agent */
} rule_set;

struct wn_robots {
  int mode; /* 0: rules; 1: allow everything; -1: disallow everything */
  rule_set set;
};

static int is_unreserved(unsigned char c) {
  return wn_ascii_alnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

/* Appends s[0..len) in the one encoded form both sides are compared in:
 * octets outside printable ASCII percent-encoded, %XX of an unreserved
 * character decoded, other %xx with upper-case hex. */
static wn_err normalise(const char *s, size_t len, wn_buf *out) {
  static const char hex[] = "0123456789ABCDEF";
  wn_err err = WN_OK;
  for (size_t i = 0; i < len && !err; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '%' && i + 2 < len && wn_hex_digit(s[i + 1]) >= 0 && wn_hex_digit(s[i + 2]) >= 0) {
      unsigned char v = (unsigned char)(wn_hex_digit(s[i + 1]) * 16 + wn_hex_digit(s[i + 2]));
      i += 2;
      if (is_unreserved(v)) {
        err = wn_buf_append_char(out, (char)v);
      } else {
        char enc[3] = {'%', hex[v >> 4], hex[v & 15]};
        err = wn_buf_append(out, enc, 3);
      }
    } else if (c <= 0x20 || c >= 0x7f) {
      char enc[3] = {'%', hex[c >> 4], hex[c & 15]};
      err = wn_buf_append(out, enc, 3);
    } else {
      err = wn_buf_append_char(out, (char)c);
    }
  }
  return err;
}

static void set_free(rule_set *set) {
  for (size_t i = 0; i < set->n; i++)
    free(set->rules[i].pattern);
  free(set->rules);
  memset(set, 0, sizeof *set);
}

static wn_err set_add(rule_set *set, const char *value, size_t len, int allow) {
  wn_buf buf;
  wn_buf_init(&buf, WN_ROBOTS_MAX_BYTES * 3);
  wn_err err = normalise(value, len, &buf);
  if (err)
    goto out;
  if (set->n == set->alloc) {
    size_t next = set->alloc ? set->alloc * 2 : 16;
    robots_rule *grown = realloc(set->rules, next * sizeof *grown);
    if (!grown) {
      err = WN_ENOMEM;
      goto out;
    }
    set->rules = grown;
    set->alloc = next;
  }
  robots_rule *rule = &set->rules[set->n];
  rule->len = buf.len;
  rule->pattern = wn_buf_take(&buf, NULL);
  if (!rule->pattern) {
    err = WN_ENOMEM;
    goto out;
  }
  rule->allow = allow;
  set->n++;
out:
  wn_buf_free(&buf);
  return err;
}

/* The product token of a User-Agent: its leading run of letters, '_' and
 * '-' (RFC 9309 2.2.1), lower-cased. */
static size_t product_token(const char *s, size_t len, char *tok, size_t tok_size) {
  size_t n = 0;
  for (size_t i = 0; i < len && n + 1 < tok_size; i++) {
    char c = s[i];
    if (!(wn_ascii_alpha(c) || c == '_' || c == '-'))
      break;
    tok[n++] = wn_ascii_lower(c);
  }
  tok[n] = '\0';
  return n;
}

/* Seconds, maybe fractional ("2", "0.5", "1.25"), to milliseconds;
 * 0 with *ok = 0 when it is not a number. */
static uint32_t parse_delay(const char *s, size_t len, int *ok) {
  uint64_t ms = 0;
  size_t i = 0;
  *ok = 0;
  for (; i < len && wn_ascii_digit(s[i]); i++) {
    *ok = 1;
    if (ms <= WN_ROBOTS_MAX_DELAY_MS)
      ms = ms * 10 + (uint64_t)(s[i] - '0') * 1000;
  }
  if (i < len && s[i] == '.') {
    uint64_t scale = 100;
    for (i++; i < len && wn_ascii_digit(s[i]); i++) {
      *ok = 1;
      ms += (uint64_t)(s[i] - '0') * scale;
      scale /= 10;
    }
  }
  if (i != len)
    *ok = 0;
  return ms > WN_ROBOTS_MAX_DELAY_MS ? WN_ROBOTS_MAX_DELAY_MS : (uint32_t)ms;
}

wn_err wn_robots_parse(const char *body, size_t len, const char *user_agent, wn_robots **out,
                       wn_diag *diag) {
  wn_err err = WN_OK;
  rule_set ours = {0}, star = {0};
  wn_robots *robots = NULL;
  *out = NULL;
  char token[WN_ROBOTS_TOKEN_MAX];
  if (!user_agent || !product_token(user_agent, strlen(user_agent), token, sizeof token))
    return wn_diag_set(diag, WN_EINVAL, "robots: user agent has no product token");
  if (len > WN_ROBOTS_MAX_BYTES)
    len = WN_ROBOTS_MAX_BYTES;

  /* The group being read applies to us (ours), to everyone (star), both,
   * or neither. A user-agent line after a rule line starts a new group. */
  int g_ours = 0, g_star = 0, in_agents = 0;
  size_t pos = 0;
  while (pos < len) {
    size_t start = pos;
    while (pos < len && body[pos] != '\n' && body[pos] != '\r')
      pos++;
    size_t end = pos;
    while (pos < len && (body[pos] == '\n' || body[pos] == '\r'))
      pos++;
    const char *hash = memchr(body + start, '#', end - start);
    if (hash)
      end = (size_t)(hash - body);
    const char *colon = memchr(body + start, ':', end - start);
    if (!colon)
      continue; /* blank, comment, or not a record: ignored (2.2) */
    size_t ks = start, ke = (size_t)(colon - body);
    while (ks < ke && wn_http_space(body[ks]))
      ks++;
    while (ke > ks && wn_http_space(body[ke - 1]))
      ke--;
    size_t vs = (size_t)(colon - body) + 1, ve = end;
    while (vs < ve && wn_http_space(body[vs]))
      vs++;
    while (ve > vs && wn_http_space(body[ve - 1]))
      ve--;
    const char *key = body + ks, *value = body + vs;
    size_t klen = ke - ks, vlen = ve - vs;
    /* Skip a UTF-8 byte order mark before the first key. */
    if (ks == 0 && klen >= 3 && memcmp(key, "\xEF\xBB\xBF", 3) == 0) {
      key += 3;
      klen -= 3;
    }

    if (wn_ascii_equal_ci(key, klen, "user-agent")) {
      if (!in_agents) {
        g_ours = g_star = 0;
        in_agents = 1;
      }
      char tok[WN_ROBOTS_TOKEN_MAX];
      if (vlen == 1 && value[0] == '*') {
        g_star = 1;
        star.matched = 1;
      } else if (product_token(value, vlen, tok, sizeof tok) && strcmp(tok, token) == 0) {
        g_ours = 1;
        ours.matched = 1;
      }
      continue;
    }
    int allow = wn_ascii_equal_ci(key, klen, "allow");
    int disallow = wn_ascii_equal_ci(key, klen, "disallow");
    int delay = wn_ascii_equal_ci(key, klen, "crawl-delay");
    if (!allow && !disallow && !delay)
      continue; /* sitemap and unknown records do not end a group */
    in_agents = 0;
    if (delay) {
      int ok = 0;
      uint32_t ms = parse_delay(value, vlen, &ok);
      if (ok && g_ours && !ours.has_delay) {
        ours.delay_ms = ms;
        ours.has_delay = 1;
      }
      if (ok && g_star && !star.has_delay) {
        star.delay_ms = ms;
        star.has_delay = 1;
      }
      continue;
    }
    if (vlen == 0)
      continue; /* "Disallow:" with no path names no path */
    if (g_ours && (err = set_add(&ours, value, vlen, allow)) != WN_OK)
      goto out;
    if (g_star && (err = set_add(&star, value, vlen, allow)) != WN_OK)
      goto out;
  }

  robots = calloc(1, sizeof *robots);
  if (!robots) {
    err = WN_ENOMEM;
    goto out;
  }
  if (ours.matched) {
    robots->set = ours;
    memset(&ours, 0, sizeof ours);
  } else {
    robots->set = star;
    memset(&star, 0, sizeof star);
  }
  *out = robots;
out:
  set_free(&ours);
  set_free(&star);
  if (err == WN_ENOMEM)
    wn_diag_set(diag, err, "robots: out of memory");
  return err;
}

wn_err wn_robots_new_all(int allow, wn_robots **out, wn_diag *diag) {
  *out = calloc(1, sizeof **out);
  if (!*out)
    return wn_diag_set(diag, WN_ENOMEM, "robots: out of memory");
  (*out)->mode = allow ? 1 : -1;
  return WN_OK;
}

/* 1 if pattern matches a prefix of path (all of it when the pattern ends
 * in '$'). Greedy with one backtrack point per '*': linear in
 * len(path) * stars, no recursion. */
static int pattern_matches(const char *pat, size_t plen, const char *path, size_t len) {
  int anchored = plen > 0 && pat[plen - 1] == '$';
  if (anchored)
    plen--;
  size_t p = 0, s = 0, star_p = SIZE_MAX, star_s = 0;
  while (s < len) {
    if (p < plen && pat[p] == '*') {
      star_p = p++;
      star_s = s;
    } else if (p < plen && pat[p] == path[s]) {
      p++;
      s++;
    } else if (p == plen && !anchored) {
      return 1; /* the pattern is a prefix of the path */
    } else if (star_p != SIZE_MAX) {
      p = star_p + 1;
      s = ++star_s;
    } else {
      return 0;
    }
  }
  while (p < plen && pat[p] == '*')
    p++;
  return p == plen;
}

int wn_robots_allowed(const wn_robots *robots, const char *path) {
  if (!robots || !path)
    return 0;
  if (strcmp(path, "/robots.txt") == 0)
    return 1; /* RFC 9309 2.2.2: implicitly allowed */
  if (robots->mode)
    return robots->mode > 0;
  wn_buf norm;
  wn_buf_init(&norm, WN_URL_MAX * 3 + 1);
  if (normalise(path, strlen(path), &norm) != WN_OK) {
    wn_buf_free(&norm);
    return 0; /* cannot tell: the careful answer */
  }
  const char *p = norm.data ? norm.data : "";
  size_t best_len = 0;
  int best_allow = 1, found = 0;
  for (size_t i = 0; i < robots->set.n; i++) {
    const robots_rule *r = &robots->set.rules[i];
    if (found && r->len < best_len)
      continue;
    if (!pattern_matches(r->pattern, r->len, p, norm.len))
      continue;
    if (!found || r->len > best_len || (r->len == best_len && r->allow)) {
      best_len = r->len;
      best_allow = r->allow;
      found = 1;
    }
  }
  wn_buf_free(&norm);
  return best_allow;
}

uint32_t wn_robots_crawl_delay_ms(const wn_robots *robots) {
  return robots && robots->mode == 0 ? robots->set.delay_ms : 0;
}

void wn_robots_free(wn_robots *robots) {
  if (!robots)
    return;
  set_free(&robots->set);
  free(robots);
}
