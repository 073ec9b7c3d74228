/*
 * tools/eval/corpus.c: the corpus: pages.tsv (groups, ids, splits), the
 * optional urls.tsv and snippets.tsv of WCXB's layout, and a page's bytes
 * and gold.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eval.h"

const char *wn_eval_selector_name(wn_detect_selector s) {
  return wn_detect_selector_name(s);
}

/*
 * --fold A|B: two halves of a corpus by site, so that a constant chosen on
 * one half is reported on the other (docs/evaluation.md, "How to measure honestly").
 * A group's site is its name less a trailing "-YEAR" (crawl-to-the-future
 * names groups site-year); the distinct sites, sorted by name, alternate
 * between fold A (the first, third, ...) and fold B. No site is named here.
 */
static size_t wn_eval_site_len(const char *group) {
  size_t len = strlen(group);
  if (len > 5 && group[len - 5] == '-') {
    for (size_t i = len - 4; i < len; i++)
      if (group[i] < '0' || group[i] > '9')
        return len;
    return len - 5;
  }
  return len;
}

static int wn_eval_cmp_site(const void *a, const void *b) {
  const char *sa = *(const char *const *)a, *sb = *(const char *const *)b;
  size_t la = wn_eval_site_len(sa), lb = wn_eval_site_len(sb);
  int c = memcmp(sa, sb, la < lb ? la : lb);
  return c ? c : (la > lb) - (la < lb);
}

/* Keeps the pages of the chosen fold (ev->pages sorted by group). */
static int wn_eval_filter_fold(wn_eval *ev) {
  const char **sites = malloc((ev->n_pages ? ev->n_pages : 1) * sizeof *sites);
  if (!sites)
    return -1;
  size_t n_sites = 0;
  for (size_t i = 0; i < ev->n_pages; i++)
    sites[n_sites++] = ev->pages[i].group;
  qsort(sites, n_sites, sizeof *sites, wn_eval_cmp_site);
  size_t distinct = 0; /* sites[] deduplicated in place */
  for (size_t i = 0; i < n_sites; i++)
    if (distinct == 0 || wn_eval_cmp_site(&sites[distinct - 1], &sites[i]) != 0)
      sites[distinct++] = sites[i];
  size_t kept = 0;
  for (size_t i = 0; i < ev->n_pages; i++) {
    const char *g = ev->pages[i].group;
    const char **hit = bsearch(&g, sites, distinct, sizeof *sites, wn_eval_cmp_site);
    size_t pos = hit ? (size_t)(hit - sites) : 0;
    if ((pos % 2 == 0) == (ev->opts.fold == 'A'))
      ev->pages[kept++] = ev->pages[i];
  }
  ev->n_pages = kept;
  free(sites);
  return 0;
}

static int wn_eval_cmp_page(const void *a, const void *b) {
  const wn_eval_page *pa = a;
  const wn_eval_page *pb = b;
  int c = strcmp(pa->group, pb->group);
  return c ? c : strcmp(pa->id, pb->id);
}

/* Reads and checks pages.tsv; on failure prints a message naming the file
 * and line and returns nonzero. */
int wn_eval_load_index(wn_eval *ev) {
  int rc = 1;
  char path[WN_EVAL_MAX_PATH];
  if (wn_tool_corpus_read("winnow-eval", ev->opts.corpus, "pages.tsv", WN_EVAL_MAX_INDEX_BYTES,
                          path, sizeof path, &ev->index, &ev->index_len))
    goto out;
  /* Count lines to size the rows. */
  size_t lines = 0;
  for (size_t i = 0; i < ev->index_len; i++)
    lines += ev->index[i] == '\n';
  lines++;
  if (lines > WN_EVAL_MAX_ROWS + 1) {
    fprintf(stderr, "winnow-eval: %s: more than %u pages\n", path, WN_EVAL_MAX_ROWS);
    goto out;
  }
  ev->pages = calloc(lines, sizeof *ev->pages);
  if (!ev->pages) {
    fprintf(stderr, "winnow-eval: out of memory\n");
    goto out;
  }
  char *p = ev->index;
  char *end = ev->index + ev->index_len;
  size_t lineno = 0;
  while (p < end) {
    char *nl = memchr(p, '\n', (size_t)(end - p));
    char *line_end = nl ? nl : end;
    lineno++;
    if ((size_t)(line_end - p) > WN_EVAL_MAX_LINE) {
      fprintf(stderr, "winnow-eval: %s:%zu: line longer than %u bytes\n", path, lineno,
              WN_EVAL_MAX_LINE);
      goto out;
    }
    *line_end = '\0';
    if (line_end > p && line_end[-1] == '\r')
      line_end[-1] = '\0';
    char *line = p;
    p = nl ? nl + 1 : end;
    if (lineno == 1) {
      if (strcmp(line, "group\tid\tsplit") != 0) {
        fprintf(stderr, "winnow-eval: %s:1: expected the header \"group<TAB>id<TAB>split\"\n",
                path);
        goto out;
      }
      continue;
    }
    if (line[0] == '\0')
      continue; /* a trailing empty line */
    /* Exactly three tab-separated columns. */
    char *fields[3];
    fields[0] = line;
    char *tab1 = strchr(line, '\t');
    char *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
    if (!tab1 || !tab2 || strchr(tab2 + 1, '\t')) {
      fprintf(stderr, "winnow-eval: %s:%zu: expected 3 tab-separated columns (group, id, split)\n",
              path, lineno);
      goto out;
    }
    *tab1 = '\0';
    *tab2 = '\0';
    fields[1] = tab1 + 1;
    fields[2] = tab2 + 1;
    if (!wn_tool_name_ok(fields[0], WN_EVAL_MAX_NAME) ||
        !wn_tool_name_ok(fields[1], WN_EVAL_MAX_NAME)) {
      fprintf(stderr,
              "winnow-eval: %s:%zu: group and id must be 1 to %u bytes without '/', '\\' or "
              "control characters, not starting with '.'\n",
              path, lineno, WN_EVAL_MAX_NAME);
      goto out;
    }
    int is_train;
    if (strcmp(fields[2], "train") == 0) {
      is_train = 1;
    } else if (strcmp(fields[2], "test") == 0) {
      is_train = 0;
    } else {
      fprintf(stderr, "winnow-eval: %s:%zu: split must be \"train\" or \"test\", not \"%s\"\n",
              path, lineno, fields[2]);
      goto out;
    }
    wn_eval_page *pg = &ev->pages[ev->n_pages++];
    pg->group = fields[0];
    pg->id = fields[1];
    pg->is_train = is_train;
    pg->line = lineno;
  }
  if (lineno == 0) {
    fprintf(stderr, "winnow-eval: %s: empty file\n", path);
    goto out;
  }
  if (ev->n_pages == 0) {
    fprintf(stderr, "winnow-eval: %s: no pages\n", path);
    goto out;
  }
  qsort(ev->pages, ev->n_pages, sizeof *ev->pages, wn_eval_cmp_page);
  if (ev->opts.fold) {
    if (wn_eval_filter_fold(ev) != 0) {
      fprintf(stderr, "winnow-eval: out of memory\n");
      goto out;
    }
    if (ev->n_pages == 0) {
      fprintf(stderr, "winnow-eval: %s: no pages in fold %c\n", path, ev->opts.fold);
      goto out;
    }
  }
  /* --train N: the paper's setting (FastContentExtractor, Sec. IV: "20 to
   * 30 web pages at the preparation phase"): the split column is replaced
   * by each group's first N pages in id order; the rest are its test
   * pages. Pages are sorted by group, then id, here. */
  if (ev->opts.train_n) {
    size_t in_group = 0;
    for (size_t i = 0; i < ev->n_pages; i++) {
      if (i == 0 || strcmp(ev->pages[i - 1].group, ev->pages[i].group) != 0)
        in_group = 0;
      ev->pages[i].is_train = in_group++ < ev->opts.train_n;
    }
  }
  /* Groups: runs of equal group names. */
  size_t n_groups = 0;
  for (size_t i = 0; i < ev->n_pages; i++) {
    if (i > 0 && wn_eval_cmp_page(&ev->pages[i - 1], &ev->pages[i]) == 0) {
      size_t l1 = ev->pages[i - 1].line, l2 = ev->pages[i].line;
      fprintf(stderr, "winnow-eval: %s: page %s/%s is listed twice (lines %zu and %zu)\n",
              path, ev->pages[i].group, ev->pages[i].id, l1 < l2 ? l1 : l2, l1 < l2 ? l2 : l1);
      goto out;
    }
    if (i == 0 || strcmp(ev->pages[i - 1].group, ev->pages[i].group) != 0)
      n_groups++;
  }
  ev->groups = calloc(n_groups, sizeof *ev->groups);
  if (!ev->groups) {
    fprintf(stderr, "winnow-eval: out of memory\n");
    goto out;
  }
  for (size_t i = 0; i < ev->n_pages; i++) {
    if (i == 0 || strcmp(ev->pages[i - 1].group, ev->pages[i].group) != 0) {
      wn_eval_group *g = &ev->groups[ev->n_groups++];
      g->name = ev->pages[i].group;
      g->first = i;
    }
    wn_eval_group *g = &ev->groups[ev->n_groups - 1];
    g->n++;
    if (ev->pages[i].is_train)
      g->n_train++;
    else
      g->n_test++;
    ev->pages[i].group_index = ev->n_groups - 1;
  }
  rc = 0;
out:
  return rc;
}

static int wn_eval_page_key_cmp(const void *key, const void *elt) {
  const char *const *k = key;
  const wn_eval_page *pg = elt;
  int c = strcmp(k[0], pg->group);
  return c ? c : strcmp(k[1], pg->id);
}

/* The page named group/id, or NULL (pages are sorted by group, then id). */
static wn_eval_page *wn_eval_find(wn_eval *ev, const char *group, const char *id) {
  const char *key[2] = {group, id};
  return bsearch(key, ev->pages, ev->n_pages, sizeof *ev->pages, wn_eval_page_key_cmp);
}

/* Reads CORPUS/name when it exists (*buf NULL when not); splits it into
 * lines of TAB-separated fields, calling fn with each line's fields. A
 * line with the wrong number of fields, or naming no page, is an error. */
typedef int (*wn_eval_row_fn)(wn_eval *ev, char **f, size_t line);
static int wn_eval_load_rows(wn_eval *ev, const char *name, size_t n_fields, char **buf,
                             size_t *len, wn_eval_row_fn fn) {
  char path[WN_EVAL_MAX_PATH];
  int n = snprintf(path, sizeof path, "%s/%s", ev->opts.corpus, name);
  if (n < 0 || (size_t)n >= sizeof path)
    return 0;
  if (access(path, F_OK) != 0)
    return 0;
  if (wn_tool_corpus_read("winnow-eval", ev->opts.corpus, name, WN_EVAL_MAX_INDEX_BYTES, path,
                          sizeof path, buf, len))
    return 1;
  char *p = *buf, *end = *buf + *len;
  size_t lineno = 0;
  while (p < end) {
    char *nl = memchr(p, '\n', (size_t)(end - p));
    char *line_end = nl ? nl : end;
    lineno++;
    *line_end = '\0';
    char *f[4] = {p, NULL, NULL, NULL};
    size_t k = 1;
    for (char *q = p; *q && k < n_fields; q++)
      if (*q == '\t') {
        *q = '\0';
        f[k++] = q + 1;
      }
    p = nl ? nl + 1 : end;
    if (k == 1 && f[0][0] == '\0')
      continue; /* an empty line */
    if (k != n_fields || strchr(f[n_fields - 1], '\t')) {
      fprintf(stderr, "winnow-eval: %s:%zu: expected %zu tab-separated columns\n", path, lineno,
              n_fields);
      return 1;
    }
    if (fn(ev, f, lineno)) {
      fprintf(stderr, "winnow-eval: %s:%zu: no page %s/%s in pages.tsv\n", path, lineno, f[0],
              f[1]);
      return 1;
    }
  }
  return 0;
}

static int wn_eval_url_row(wn_eval *ev, char **f, size_t line) {
  (void)line;
  wn_eval_page *pg = wn_eval_find(ev, f[0], f[1]);
  if (!pg)
    return 1;
  pg->url = f[2];
  return 0;
}

static int wn_eval_snip_row(wn_eval *ev, char **f, size_t line) {
  (void)line;
  if (!wn_eval_find(ev, f[0], f[1]) || ev->n_snip >= ev->snip_cap)
    return 1; /* (more rows than the lines first counted: the file changed) */
  wn_eval_snip *s = &ev->snip[ev->n_snip++];
  s->group = f[0];
  s->id = f[1];
  s->with = strcmp(f[2], "with") == 0;
  s->text = f[3];
  return 0;
}

static int wn_eval_snip_cmp(const void *a, const void *b) {
  const wn_eval_snip *x = a, *y = b;
  int c = strcmp(x->group, y->group);
  if (!c)
    c = strcmp(x->id, y->id);
  return c ? c : (x < y ? -1 : x > y);
}

/* The corpus's URLs and snippets, when it has them. */
int wn_eval_load_extras(wn_eval *ev) {
  if (wn_eval_load_rows(ev, "urls.tsv", 3, &ev->urls, &ev->urls_len, wn_eval_url_row))
    return 1;
  char path[WN_EVAL_MAX_PATH];
  int n = snprintf(path, sizeof path, "%s/snippets.tsv", ev->opts.corpus);
  if (n < 0 || (size_t)n >= sizeof path || access(path, F_OK) != 0)
    return 0;
  /* Rows are at most the file's lines: one count first. */
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "winnow-eval: %s: %s\n", path, strerror(errno));
    return 1;
  }
  size_t lines = 1;
  for (int c; (c = getc(f)) != EOF;)
    lines += c == '\n';
  fclose(f);
  ev->snip = calloc(lines, sizeof *ev->snip);
  ev->snip_cap = lines;
  if (!ev->snip) {
    fprintf(stderr, "winnow-eval: out of memory\n");
    return 1;
  }
  if (wn_eval_load_rows(ev, "snippets.tsv", 4, &ev->snips, &ev->snips_len, wn_eval_snip_row))
    return 1;
  qsort(ev->snip, ev->n_snip, sizeof *ev->snip, wn_eval_snip_cmp);
  for (size_t i = 0; i < ev->n_snip;) {
    size_t j = i;
    while (j < ev->n_snip && strcmp(ev->snip[j].group, ev->snip[i].group) == 0 &&
           strcmp(ev->snip[j].id, ev->snip[i].id) == 0)
      j++;
    wn_eval_page *pg = wn_eval_find(ev, ev->snip[i].group, ev->snip[i].id);
    pg->snip = &ev->snip[i];
    pg->n_snips = j - i;
    i = j;
  }
  return 0;
}

/* Reads CORPUS/<kind>/<group>/<id>.<ext>. */
wn_err wn_eval_read(const wn_eval *ev, const wn_eval_page *pg, const char *kind,
                    const char *ext, char **out, size_t *out_len, wn_diag *diag) {
  char path[WN_EVAL_MAX_PATH];
  int n = snprintf(path, sizeof path, "%s/%s/%s/%s.%s", ev->opts.corpus, kind, pg->group, pg->id,
                   ext);
  if (n < 0 || (size_t)n >= sizeof path)
    return wn_diag_set(diag, WN_ETOOBIG, "path of %s/%s too long", pg->group, pg->id);
  return wn_file_read(path, WN_PAGE_MAX_BYTES, out, out_len, diag);
}

void wn_eval_fail(wn_eval_page *pg, const char *stage, const char *msg) {
  pg->failed = 1;
  memset(&pg->score, 0, sizeof pg->score);
  snprintf(pg->status, sizeof pg->status, "%s: %s", stage, msg);
  fprintf(stderr, "winnow-eval: %s/%s: %s: %s\n", pg->group, pg->id, stage, msg);
}
