/*
 * winnow-dump: see what a winnow store holds and move it between machines
 * (modelled on LMDB's mdb_stat and mdb_dump). A front end over the public
 * API only (include/winnow/winnow.h): it parses arguments and formats.
 *
 *   winnow-dump --store DIR list [--sort name|learned|pages|size] [--json]
 *   winnow-dump --store DIR show SITE [--json] [--depth N] [--page FILE]
 *   winnow-dump --store DIR explain SITE PAGE.html [--url URL] [--html OUT]
 *   winnow-dump --store DIR stats [--json]
 *   winnow-dump --store DIR export FILE [SITE...]
 *   winnow-dump --store DIR import FILE
 *   winnow-dump --store DIR merge FILE...
 *   winnow-dump --store DIR verify
 *   winnow-dump --store DIR snapshot NEWDIR
 *   winnow-dump --store DIR delete SITE
 *   winnow-dump --store DIR pending [--json]
 *   winnow-dump --store DIR drop-pending SITE|--all
 *
 * Exit status (WN_EXIT_*): 0 done; 1 a site, page or record could not be
 * used (an unknown site, a damaged record found by verify or left out by
 * export, a page that does not parse); 2 usage; 3 the store could not be
 * opened, read or written; 4 out of memory or output not written.
 */
#include <winnow/winnow.h>

/* wn_parse_u32: the project's one whole-number parser (src/util/util.h;
 * the tools link the static library, which has it). */
#include "util.h" /* src/util: number parsing, the clock */

#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void usage(FILE *out) {
  fprintf(out,
          "usage: winnow-dump --store DIR COMMAND [ARGS]  (or COMMAND --store DIR [ARGS])\n"
          "\n"
          "Commands:\n"
          "  list [--sort name|learned|pages|size] [--json]\n"
          "                     every site: algorithm, selector, learned at, sample pages,\n"
          "                     template size, detection counts and drift\n"
          "  show SITE [--json] [--depth N] [--page FILE]\n"
          "                     the template as a tree: tag#id.class and in how many sample\n"
          "                     pages each node was; [page] marks where page-specific content\n"
          "                     sits. Named from the key page (or FILE) mapped onto it.\n"
          "  explain SITE PAGE.html [--url URL] [--html OUT.html] [--depth N]\n"
          "                     detection of one page, node by node (SITE may be '-' with\n"
          "                     --url); --html writes the page with its regions coloured\n"
          "  stats [--json]     store size, map use, records per algorithm and version\n"
          "  export FILE [SITE...]  a portable snapshot of the store (or of SITEs)\n"
          "  import FILE        write a snapshot's records (all or none), report replaced\n"
          "  merge FILE...      write each snapshot's records where they are newer (a\n"
          "                     greater generation): the stores of workers that learned\n"
          "                     disjoint sites merge into one, in any order\n"
          "  verify             walk every page (in a child process) and decode every\n"
          "                     record; exit 1 if a record is damaged, 3 if the store is\n"
          "                     damaged (every command walks it first)\n"
          "  snapshot NEWDIR    a consistent, compacted copy of the whole store (as\n"
          "                     mdb_copy -c), while others write; for read-only workers\n"
          "  delete SITE        remove a site's template and counters\n"
          "  pending [--json]   sites without a template whose pages wait in the store\n"
          "                     (pending samples): pages, bytes, when last seen\n"
          "  drop-pending SITE|--all\n"
          "                     forget a site's pending pages (or every site's)\n"
          "\n"
          "Options:\n"
          "  --store DIR        the template store (required)\n"
          "  --map-size MIB     the store's largest size in MiB (default 1024)\n"
          "  -h, --help         show this help\n"
          "\n"
          "Exit status: 0 done, 1 a site/page/record could not be used, 2 usage,\n"
          "3 store error, 4 out of memory or output not written.\n");
}

static int fail(wn_err err, const wn_diag *diag) {
  fprintf(stderr, "winnow-dump: %s\n", wn_diag_message(diag, err));
  return wn_exit_code(err);
}

static int usage_error(const char *msg) {
  fprintf(stderr, "winnow-dump: %s (try --help)\n", msg);
  return WN_EXIT_USAGE;
}

static const char *fmt_time(int64_t t, char *buf, size_t size) {
  time_t tt = (time_t)t;
  struct tm tm;
  if (t == 0 || !gmtime_r(&tt, &tm) || strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
    snprintf(buf, size, "-");
  return buf;
}

/* ---- list --------------------------------------------------------------------- */

typedef struct site_row {
  wn_site_info *info; /* NULL: damaged */
  char site[WN_SITE_MAX + 1];
  wn_err err;
  char message[512];
} site_row;

typedef struct rows {
  site_row *v;
  size_t n, alloc;
  wn_store *store;
  int oom;
} rows;

static int collect_site(const char *site, void *ctx) {
  rows *r = ctx;
  if (r->n == r->alloc) {
    size_t alloc = r->alloc ? 2 * r->alloc : 32;
    site_row *v = realloc(r->v, alloc * sizeof *v);
    if (!v) {
      r->oom = 1;
      return 1;
    }
    r->v = v;
    r->alloc = alloc;
  }
  site_row *row = &r->v[r->n++];
  memset(row, 0, sizeof *row);
  snprintf(row->site, sizeof row->site, "%s", site);
  wn_diag d;
  wn_diag_clear(&d);
  row->err = wn_site_info_get(r->store, site, &row->info, &d);
  if (row->err)
    snprintf(row->message, sizeof row->message, "%s", wn_diag_message(&d, row->err));
  return 0;
}

static int sort_key = 0; /* 0 name, 1 learned, 2 pages, 3 size */

static int row_cmp(const void *a, const void *b) {
  const site_row *x = a, *y = b;
  if (sort_key && x->info && y->info) {
    long double kx = 0, ky = 0;
    if (sort_key == 1) {
      kx = (long double)x->info->learned_at;
      ky = (long double)y->info->learned_at;
    } else if (sort_key == 2) {
      kx = (long double)x->info->counts.pages;
      ky = (long double)y->info->counts.pages;
    } else {
      kx = (long double)x->info->template_bytes;
      ky = (long double)y->info->template_bytes;
    }
    if (kx != ky)
      return kx > ky ? -1 : 1; /* largest / newest first */
  } else if (sort_key && (x->info != NULL) != (y->info != NULL)) {
    return x->info ? -1 : 1; /* damaged last */
  }
  return strcmp(x->site, y->site);
}

static int cmd_list(wn_store *store, int argc, char **argv) {
  int json = 0;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0)
      json = 1;
    else if (strcmp(argv[i], "--sort") == 0 && i + 1 < argc) {
      const char *k = argv[++i];
      if (strcmp(k, "name") == 0)
        sort_key = 0;
      else if (strcmp(k, "learned") == 0)
        sort_key = 1;
      else if (strcmp(k, "pages") == 0)
        sort_key = 2;
      else if (strcmp(k, "size") == 0)
        sort_key = 3;
      else
        return usage_error("--sort takes name, learned, pages or size");
    } else
      return usage_error("list takes --sort KEY and --json");
  }
  rows r = {.store = store};
  wn_diag diag;
  wn_diag_clear(&diag);
  wn_err err = wn_site_each(store, collect_site, &r, &diag);
  if (!err && r.oom)
    err = wn_diag_set(&diag, WN_ENOMEM, "out of memory");
  int rc = WN_EXIT_OK;
  if (err) {
    rc = fail(err, &diag);
    goto out;
  }
  if (r.n > 0) /* qsort wants a valid pointer even for no elements */
    qsort(r.v, r.n, sizeof *r.v, row_cmp);
  if (!json)
    printf("%-24s %-5s %-6s %-20s %5s %8s %6s %8s %6s %s\n", "SITE", "ALGO", "SELECT",
           "LEARNED", "PAGES", "T_BYTES", "T_NODES", "DETECTED", "LOW", "DRIFT");
  for (size_t i = 0; i < r.n; i++) {
    const site_row *row = &r.v[i];
    const wn_site_info *in = row->info;
    char when[32];
    if (json) {
      json_t *o = json_object();
      json_object_set_new(o, "site", json_string(row->site));
      if (!in) {
        json_object_set_new(o, "damaged", json_string(row->message));
        json_object_set_new(o, "error", json_string(wn_strerror_name(row->err)));
      } else {
        json_object_set_new(o, "algorithm", json_string(in->algorithm));
        json_object_set_new(o, "selector", json_string(wn_detect_selector_name(in->selector)));
        json_object_set_new(o, "format_version", json_integer(in->format_version));
        json_object_set_new(o, "generation", json_integer((json_int_t)in->generation));
        json_object_set_new(o, "learned_at",
                            json_string(fmt_time(in->learned_at, when, sizeof when)));
        json_object_set_new(o, "key_page", in->key_page ? json_string(in->key_page) : json_null());
        json_t *pages = json_array();
        for (size_t k = 0; k < in->n_pages; k++)
          json_array_append_new(pages, json_string(in->pages[k]));
        json_object_set_new(o, "sample_pages", pages);
        json_object_set_new(o, "template_bytes", json_integer((json_int_t)in->template_bytes));
        json_object_set_new(o, "template_nodes", json_integer(in->template_nodes));
        if (in->layouts > 0)
          json_object_set_new(o, "layouts", json_integer(in->layouts));
        json_object_set_new(o, "page_nodes", json_integer(in->page_nodes));
        json_object_set_new(o, "detected", json_integer((json_int_t)in->counts.pages));
        json_object_set_new(o, "low", json_integer((json_int_t)in->counts.low));
        json_object_set_new(o, "recent_pages", json_integer(in->counts.recent_pages));
        json_object_set_new(o, "recent_low", json_integer(in->counts.recent_low));
        json_object_set_new(o, "drifting", json_boolean(wn_site_drifting(&in->counts, NULL)));
      }
      char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
      json_decref(o);
      if (!s) {
        rc = WN_EXIT_INTERNAL;
        goto out;
      }
      puts(s);
      free(s);
    } else if (!in) {
      printf("%-24s DAMAGED: %s\n", row->site, row->message);
    } else {
      printf("%-24s %-5s %-6s %-20s %5zu %8zu %7u %8llu %6llu %s\n", row->site, in->algorithm,
             wn_detect_selector_name(in->selector), fmt_time(in->learned_at, when, sizeof when),
             in->n_pages, in->template_bytes, in->template_nodes,
             (unsigned long long)in->counts.pages, (unsigned long long)in->counts.low,
             wn_site_drifting(&in->counts, NULL) ? "yes" : "no");
    }
    if (!in)
      rc = WN_EXIT_INPUT;
  }
out:
  for (size_t i = 0; i < r.n; i++)
    wn_site_info_free(r.v[i].info);
  free(r.v);
  if (fflush(stdout) != 0 && rc == WN_EXIT_OK)
    rc = WN_EXIT_INTERNAL;
  return rc;
}

/* ---- show --------------------------------------------------------------------- */

static const char *place_mark(wn_place place) {
  return place == WN_PLACE_CONTENT         ? "  <== content place (cues, then inside it)"
         : place == WN_PLACE_CONTENT_WHOLE ? "  <== content place (all of it is content)"
         : place == WN_PLACE_SKIP          ? "  <-- skipped: recurring non-content"
         : place == WN_PLACE_ASIDE         ? "  <-- aside: recurring non-content beside the place"
                                           : "";
}

static int print_entry(const wn_template_entry *e, void *ctx) {
  const uint32_t pages = *(const uint32_t *)ctx;
  for (uint32_t d = 0; d < e->depth; d++)
    fputs("  ", stdout);
  if (!e->tag) {
    printf("%s sig=%08x  %u/%u%s\n", e->is_text ? "#text" : "element", e->signature, e->count,
           pages, place_mark(e->place));
    return 0;
  }
  if (e->page_specific) {
    printf("[page] %s%s%s%s%s  (%u nodes, %u bytes of text)\n", e->tag, e->id ? "#" : "",
           e->id ? e->id : "", e->cls ? "." : "", e->cls ? e->cls : "", e->nodes, e->text_bytes);
    return 0;
  }
  if (e->is_text) {
    int n = (int)(strlen(e->text) > 48 ? 48 : strlen(e->text));
    printf("\"%.*s%s\"  %u/%u\n", n, e->text, strlen(e->text) > 48 ? "..." : "", e->count,
           pages);
    return 0;
  }
  printf("%s", e->tag);
  if (e->id)
    printf("#%s", e->id);
  if (e->cls) {
    /* class="a b" reads as .a.b */
    for (const char *c = e->cls; *c;) {
      size_t k = strcspn(c, " \t\n");
      if (k)
        printf(".%.*s", (int)k, c);
      c += k;
      c += strspn(c, " \t\n");
    }
  }
  printf("  %u/%u%s\n", e->count, pages, place_mark(e->place));
  return 0;
}

static int stop_walk(const wn_template_entry *e, void *ctx) {
  (void)e;
  (void)ctx;
  return 1;
}

static int parse_u32(const char *s, uint32_t *out) { return wn_parse_u32(s, 0, 100000, out); }

static int cmd_show(wn_store *store, int argc, char **argv) {
  int json = 0;
  uint32_t depth = 0;
  const char *site = NULL, *page = NULL;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--json") == 0)
      json = 1;
    else if (strcmp(argv[i], "--depth") == 0 && i + 1 < argc) {
      if (parse_u32(argv[++i], &depth))
        return usage_error("--depth takes a number");
    } else if (strcmp(argv[i], "--page") == 0 && i + 1 < argc)
      page = argv[++i];
    else if (argv[i][0] != '-' && !site)
      site = argv[i];
    else
      return usage_error("show takes SITE, --json, --depth N and --page FILE");
  }
  if (!site)
    return usage_error("show needs a SITE");
  wn_diag diag;
  wn_diag_clear(&diag);
  /* A FastCE template is paths and blocks, not a tree: its own view. */
  wn_site_info *info = NULL;
  if (wn_site_info_get(store, site, &info, &diag) == WN_OK && strcmp(info->algorithm, "fastce") == 0) {
    wn_site_info_free(info);
    char *s = NULL;
    wn_err err = wn_site_fastce_show(store, site, json ? WN_JSON_PRETTY : 0, &s, &diag);
    if (err)
      return fail(err, &diag);
    fputs(s, stdout);
    if (json)
      putchar('\n');
    free(s);
    return fflush(stdout) ? WN_EXIT_INTERNAL : WN_EXIT_OK;
  }
  wn_site_info_free(info);
  wn_diag_clear(&diag);
  if (json) {
    char *s = NULL;
    wn_err err = wn_site_template_json(store, site, page, depth, WN_JSON_PRETTY, &s, &diag);
    if (err)
      return fail(err, &diag);
    puts(s);
    free(s);
    return fflush(stdout) ? WN_EXIT_INTERNAL : WN_EXIT_OK;
  }
  wn_template_summary sum;
  /* The header needs the summary, which a walk fills: a first walk stops
   * at once (a template is small; reading it twice costs nothing). */
  wn_err err = wn_site_template_each(store, site, page, 0, stop_walk, NULL, &sum, &diag);
  if (err)
    return fail(err, &diag);
  printf("site %s: %u template nodes (%u text) from %u sample pages, min count %u, "
         "selector %s\n",
         site, sum.nodes, sum.text_nodes, sum.sample_pages, sum.min_count,
         wn_detect_selector_name(sum.selector));
  wn_site_info *li = NULL;
  if (wn_site_info_get(store, site, &li, &diag) == WN_OK && li->layouts > 1)
    printf("layouts: %u; shown: %s\n", li->layouts,
           sum.named ? "the one the page below fits" : "the first (the key page's; give a page "
                                                       "of another with --page FILE)");
  wn_site_info_free(li);
  if (sum.named)
    printf("named from %s (%u template nodes it does not pair are not shown)\n", sum.named_from,
           sum.unpaired);
  else
    printf("unnamed: no page of the site to name the nodes (give one with --page FILE)\n");
  printf("n/N: held by n of the N sample pages; [page]: page-specific, where content sits\n\n");
  err = wn_site_template_each(store, site, page, depth, print_entry, &sum.sample_pages, NULL,
                              &diag);
  if (err)
    return fail(err, &diag);
  return fflush(stdout) ? WN_EXIT_INTERNAL : WN_EXIT_OK;
}

/* ---- explain ------------------------------------------------------------------ */

static int cmd_explain(wn_store *store, int argc, char **argv) {
  const char *site = NULL, *file = NULL, *url = NULL, *html = NULL;
  uint32_t depth = 0;
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--url") == 0 && i + 1 < argc)
      url = argv[++i];
    else if (strcmp(argv[i], "--html") == 0 && i + 1 < argc)
      html = argv[++i];
    else if (strcmp(argv[i], "--depth") == 0 && i + 1 < argc) {
      if (parse_u32(argv[++i], &depth))
        return usage_error("--depth takes a number");
    } else if ((argv[i][0] != '-' || strcmp(argv[i], "-") == 0) && !site)
      site = argv[i];
    else if ((argv[i][0] != '-' || strcmp(argv[i], "-") == 0) && !file)
      file = argv[i];
    else
      return usage_error("explain takes SITE PAGE.html, --url URL, --html OUT, --depth N");
  }
  if (!site || !file)
    return usage_error("explain needs SITE and PAGE.html");
  if (strcmp(site, "-") == 0) {
    if (!url)
      return usage_error("explain: SITE '-' needs --url");
    site = NULL;
  }
  wn_diag diag;
  wn_diag_clear(&diag);
  char *bytes = NULL, *text = NULL, *page_html = NULL;
  size_t len = 0, text_len = 0, html_len = 0;
  wn_explain *ex = NULL;
  int rc = WN_EXIT_OK;
  wn_err err = wn_file_read(file, WN_PAGE_MAX_BYTES, &bytes, &len, &diag);
  if (!err) {
    wn_page_input in = {.bytes = bytes, .len = len, .site = site, .url = url};
    err = wn_site_explain(store, &in, NULL, &ex, &diag);
  }
  if (!err)
    err = wn_explain_text(ex, depth, &text, &text_len, &diag);
  if (!err && html)
    err = wn_explain_html(ex, &page_html, &html_len, &diag);
  if (err) {
    rc = fail(err, &diag);
    goto out;
  }
  if (html) {
    FILE *f = fopen(html, "wb");
    int bad = !f || fwrite(page_html, 1, html_len, f) != html_len;
    if (f)
      bad |= fclose(f) != 0;
    if (bad) {
      fprintf(stderr, "winnow-dump: cannot write %s\n", html);
      rc = WN_EXIT_INTERNAL;
      goto out;
    }
  }
  fwrite(text, 1, text_len, stdout);
  if (fflush(stdout) != 0)
    rc = WN_EXIT_INTERNAL;
out:
  free(bytes);
  free(text);
  free(page_html);
  wn_explain_free(ex);
  return rc;
}

/* ---- stats -------------------------------------------------------------------- */

static int cmd_stats(wn_store *store, int argc, char **argv) {
  int json = argc == 1 && strcmp(argv[0], "--json") == 0;
  if (argc > 0 && !json)
    return usage_error("stats takes --json");
  wn_diag diag;
  wn_diag_clear(&diag);
  wn_store_usage u;
  wn_err err = wn_store_usage_get(store, &u, &diag);
  if (err)
    return fail(err, &diag);
  const double mib = 1024.0 * 1024.0;
  const uint64_t used = u.pages_used * u.page_bytes;
  if (json) {
    json_t *o = json_object();
    json_object_set_new(o, "path", json_string(u.path ? u.path : ""));
    json_object_set_new(o, "file_bytes", json_integer((json_int_t)u.file_bytes));
    json_object_set_new(o, "map_bytes", json_integer((json_int_t)u.map_bytes));
    json_object_set_new(o, "page_bytes", json_integer((json_int_t)u.page_bytes));
    json_object_set_new(o, "pages_used", json_integer((json_int_t)u.pages_used));
    json_object_set_new(o, "depth", json_integer(u.depth));
    json_object_set_new(o, "records", json_integer((json_int_t)u.records));
    json_object_set_new(o, "counters", json_integer((json_int_t)u.counters));
    json_object_set_new(o, "record_bytes", json_integer((json_int_t)u.record_bytes));
    json_object_set_new(o, "damaged", json_integer((json_int_t)u.damaged));
    json_t *alg = json_object(), *ver = json_object();
    for (size_t k = 0; k < u.n_algorithms; k++)
      json_object_set_new(alg, u.algorithms[k].name,
                          json_integer((json_int_t)u.algorithms[k].records));
    for (size_t v = 0; v < 8; v++)
      if (u.by_version[v]) {
        char key[8];
        snprintf(key, sizeof key, "%zu", v);
        json_object_set_new(ver, key, json_integer((json_int_t)u.by_version[v]));
      }
    json_object_set_new(o, "algorithms", alg);
    json_object_set_new(o, "format_versions", ver);
    wn_pending_totals pt;
    if ((err = wn_store_pending_totals_get(store, &pt, &diag))) {
      json_decref(o);
      return fail(err, &diag);
    }
    json_object_set_new(o, "pending_sites", json_integer((json_int_t)pt.sites));
    json_object_set_new(o, "pending_pages", json_integer((json_int_t)pt.pages));
    json_object_set_new(o, "pending_bytes", json_integer((json_int_t)pt.bytes));
    char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!s)
      return WN_EXIT_INTERNAL;
    puts(s);
    free(s);
  } else {
    printf("store:           %s\n", u.path ? u.path : "?");
    printf("file size:       %llu bytes (%.2f MiB)\n", (unsigned long long)u.file_bytes,
           (double)u.file_bytes / mib);
    printf("map size:        %.0f MiB, %.2f MiB used (%llu pages of %llu bytes, %.2f%%)\n",
           (double)u.map_bytes / mib, (double)used / mib, (unsigned long long)u.pages_used,
           (unsigned long long)u.page_bytes,
           u.map_bytes ? 100.0 * (double)used / (double)u.map_bytes : 0.0);
    printf("tree depth:      %u\n", u.depth);
    printf("records:         %llu (%llu bytes), counters: %llu\n", (unsigned long long)u.records,
           (unsigned long long)u.record_bytes, (unsigned long long)u.counters);
    for (size_t k = 0; k < u.n_algorithms; k++)
      printf("  algorithm %-6s %llu\n", u.algorithms[k].name,
             (unsigned long long)u.algorithms[k].records);
    for (size_t v = 0; v < 8; v++)
      if (u.by_version[v])
        printf("  format %zu%s      %llu\n", v, v == 7 ? "+" : "", (unsigned long long)u.by_version[v]);
    printf("damaged records: %llu%s\n", (unsigned long long)u.damaged,
           u.damaged ? " (run verify)" : "");
  }
  wn_pending_totals t;
  err = wn_store_pending_totals_get(store, &t, &diag);
  if (err)
    return fail(err, &diag);
  if (!json)
    printf("pending:         %llu site(s), %llu page(s), %llu bytes\n",
           (unsigned long long)t.sites, (unsigned long long)t.pages,
           (unsigned long long)t.bytes);
  return fflush(stdout) ? WN_EXIT_INTERNAL : WN_EXIT_OK;
}

/* ---- export, import, verify, delete --------------------------------------------- */

typedef struct damaged_ctx {
  const char *suffix;
  unsigned long n;
} damaged_ctx;

static void report_damaged(const char *site, wn_err err, const char *message, void *ctx) {
  damaged_ctx *d = ctx;
  d->n++;
  printf("DAMAGED %s: %s (%s)%s\n", site, message, wn_strerror_name(err), d->suffix);
}

static int cmd_export(wn_store *store, int argc, char **argv) {
  if (argc < 1)
    return usage_error("export needs a FILE");
  wn_diag diag;
  wn_diag_clear(&diag);
  uint64_t n = 0;
  damaged_ctx d = {"; left out", 0};
  wn_err err = wn_store_export(store, argv[0], (const char *const *)argv + 1, (size_t)argc - 1,
                               report_damaged, &d, &n, &diag);
  if (err)
    return fail(err, &diag);
  printf("exported %llu record(s) to %s\n", (unsigned long long)n, argv[0]);
  if (fflush(stdout) != 0)
    return WN_EXIT_INTERNAL;
  /* Written, but without the damaged records: say so in the status too. */
  return d.n ? WN_EXIT_INPUT : WN_EXIT_OK;
}

static void report_import(const char *site, int replaced, uint64_t generation, void *ctx) {
  (void)ctx;
  printf("%s %s (generation %llu)\n", replaced ? "replaced" : "added", site,
         (unsigned long long)generation);
}

static int cmd_import(wn_store *store, int argc, char **argv) {
  if (argc != 1)
    return usage_error("import needs one FILE");
  wn_diag diag;
  wn_diag_clear(&diag);
  uint64_t n = 0;
  wn_err err = wn_store_import(store, argv[0], report_import, NULL, &n, &diag);
  if (err)
    return fail(err, &diag);
  printf("imported %llu record(s) from %s\n", (unsigned long long)n, argv[0]);
  return fflush(stdout) ? WN_EXIT_INTERNAL : WN_EXIT_OK;
}

typedef struct pending_ctx {
  int json;
  uint64_t sites, pages, bytes, damaged;
} pending_ctx;

static int count_pending(const wn_pending_site *p, void *arg) {
  pending_ctx *k = arg;
  k->sites++;
  k->pages += p->pages;
  k->bytes += p->bytes;
  k->damaged += p->damaged != 0;
  if (p->damaged)
    printf("DAMAGED pending pages of %s\n", p->site);
  return 0;
}

static int cmd_merge(wn_store *store, int argc, char **argv) {
  if (argc < 1)
    return usage_error("merge needs one FILE or more");
  wn_diag diag;
  wn_diag_clear(&diag);
  for (int i = 0; i < argc; i++) {
    uint64_t n = 0;
    wn_err err = wn_store_merge(store, argv[i], report_import, NULL, &n, &diag);
    if (err)
      return fail(err, &diag);
    printf("merged %llu newer record(s) from %s\n", (unsigned long long)n, argv[i]);
  }
  return fflush(stdout) ? WN_EXIT_INTERNAL : WN_EXIT_OK;
}

static int cmd_verify(wn_store *store, int argc, const wn_store_check_report *check) {
  if (argc != 0)
    return usage_error("verify takes no arguments");
  /* The pages were walked before the store was opened (main). */
  printf("pages: %llu in use, %llu bytes each, file %llu bytes", (unsigned long long)check->pages_used,
         (unsigned long long)check->page_bytes, (unsigned long long)check->file_bytes);
  if (check->pages_past_end)
    printf(" (%llu unused page(s) after them, from an interrupted write)",
           (unsigned long long)check->pages_past_end);
  printf("; walked %llu database(s), %llu entries in %.1f ms: sound\n",
         (unsigned long long)check->databases, (unsigned long long)check->entries,
         (double)check->elapsed_us / 1000.0);
  wn_diag diag;
  wn_diag_clear(&diag);
  uint64_t n = 0, bad = 0;
  damaged_ctx d = {"", 0};
  wn_err err = wn_store_verify(store, report_damaged, &d, &n, &bad, &diag);
  if (err)
    return fail(err, &diag);
  printf("%llu record(s), %llu damaged\n", (unsigned long long)n, (unsigned long long)bad);
  /* Pending samples: each entry decodes (a damaged one is dropped when
   * next written; drop-pending drops it now). */
  pending_ctx k = {.json = -1};
  if ((err = wn_store_pending_each(store, count_pending, &k, &diag)))
    return fail(err, &diag);
  printf("%llu pending site(s), %llu damaged\n", (unsigned long long)k.sites,
         (unsigned long long)k.damaged);
  bad += k.damaged;
  if (fflush(stdout) != 0)
    return WN_EXIT_INTERNAL;
  /* A record that does not decode is the site's problem, not the store's
   * (wn_exit_code: WN_ECORRUPT is 1): the store itself read fine. */
  return bad ? WN_EXIT_INPUT : WN_EXIT_OK;
}

static int print_pending(const wn_pending_site *p, void *arg) {
  pending_ctx *k = arg;
  char seen[32];
  fmt_time(p->last_seen, seen, sizeof seen);
  k->sites++;
  k->pages += p->pages;
  k->bytes += p->bytes;
  k->damaged += p->damaged != 0;
  if (!k->json) {
    printf("%s pages=%u bytes=%llu page_bytes=%llu last_seen=%s%s\n", p->site, p->pages,
           (unsigned long long)p->bytes, (unsigned long long)p->page_bytes, seen,
           p->damaged ? " DAMAGED" : "");
    return 0;
  }
  json_t *o = json_pack("{s:s, s:I, s:I, s:I, s:s, s:b}", "site", p->site, "pages",
                        (json_int_t)p->pages, "bytes", (json_int_t)p->bytes, "page_bytes",
                        (json_int_t)p->page_bytes, "last_seen", seen, "damaged", p->damaged);
  char *line = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
  json_decref(o);
  if (!line)
    return 1;
  puts(line);
  free(line);
  return 0;
}

static int cmd_pending(wn_store *store, int argc, char **argv) {
  pending_ctx k = {.json = argc == 1 && strcmp(argv[0], "--json") == 0};
  if (argc > 0 && !k.json)
    return usage_error("pending takes --json");
  wn_diag diag;
  wn_diag_clear(&diag);
  wn_err err = wn_store_pending_each(store, print_pending, &k, &diag);
  if (err)
    return fail(err, &diag);
  if (!k.json)
    fprintf(stderr, "%llu pending site(s), %llu page(s), %llu bytes%s\n",
            (unsigned long long)k.sites, (unsigned long long)k.pages,
            (unsigned long long)k.bytes, k.damaged ? "; some damaged (drop-pending them)" : "");
  return fflush(stdout) ? WN_EXIT_INTERNAL : k.damaged ? WN_EXIT_INPUT : WN_EXIT_OK;
}

static int cmd_drop_pending(wn_store *store, int argc, char **argv) {
  if (argc != 1)
    return usage_error("drop-pending needs one SITE, or --all");
  const int all = strcmp(argv[0], "--all") == 0;
  wn_diag diag;
  wn_diag_clear(&diag);
  uint64_t n = 0;
  wn_err err = wn_store_pending_drop(store, all ? NULL : argv[0], &n, &diag);
  if (err)
    return fail(err, &diag);
  printf("dropped the pending pages of %llu site(s)\n", (unsigned long long)n);
  return fflush(stdout) ? WN_EXIT_INTERNAL : WN_EXIT_OK;
}

static int cmd_snapshot(wn_store *store, int argc, char **argv) {
  if (argc != 1)
    return usage_error("snapshot needs one NEWDIR");
  wn_diag diag;
  wn_diag_clear(&diag);
  wn_err err = wn_store_snapshot(store, argv[0], &diag);
  if (err)
    return fail(err, &diag);
  printf("snapshot written to %s\n", argv[0]);
  return fflush(stdout) ? WN_EXIT_INTERNAL : WN_EXIT_OK;
}

static int cmd_delete(wn_store *store, int argc, char **argv) {
  if (argc != 1)
    return usage_error("delete needs one SITE");
  wn_diag diag;
  wn_diag_clear(&diag);
  wn_err err = wn_site_delete(store, argv[0], &diag);
  if (err)
    return fail(err, &diag);
  printf("deleted %s\n", argv[0]);
  return fflush(stdout) ? WN_EXIT_INTERNAL : WN_EXIT_OK;
}

/* ---- main --------------------------------------------------------------------- */

int main(int argc, char **argv) {
  const char *dir = NULL;
  size_t map_mib = 0;
  int i = 1;
  /* Global options come before the command; the command parses its own. */
  for (; i < argc && argv[i][0] == '-'; i++) {
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      usage(stdout);
      return WN_EXIT_OK;
    } else if (strcmp(argv[i], "--store") == 0 && i + 1 < argc) {
      dir = argv[++i];
    } else if (strcmp(argv[i], "--map-size") == 0 && i + 1 < argc) {
      uint32_t v = 0;
      if (parse_u32(argv[++i], &v) || v == 0)
        return usage_error("--map-size takes MiB");
      map_mib = v;
    } else {
      return usage_error("unknown option");
    }
  }
  if (i >= argc)
    return usage_error("no command");
  const char *cmd = argv[i++];
  static const char *const commands[] = {"list",   "show",   "explain", "stats",
                                         "export", "import", "verify",  "delete",
                                         "snapshot", "pending", "drop-pending", "merge"};
  size_t c = 0;
  while (c < sizeof commands / sizeof commands[0] && strcmp(cmd, commands[c]) != 0)
    c++;
  if (c == sizeof commands / sizeof commands[0])
    return usage_error("unknown command");
  /* The global options may follow the command too, as `winnow` takes
   * them ("winnow-dump show --store DIR SITE"): taken out of what the
   * command parses. */
  int kept = i;
  for (int j = i; j < argc; j++) {
    if (strcmp(argv[j], "--store") == 0 && j + 1 < argc) {
      dir = argv[++j];
    } else if (strcmp(argv[j], "--map-size") == 0 && j + 1 < argc) {
      uint32_t v = 0;
      if (parse_u32(argv[++j], &v) || v == 0)
        return usage_error("--map-size takes MiB");
      map_mib = v;
    } else {
      argv[kept++] = argv[j];
    }
  }
  argc = kept;
  if (!dir)
    return usage_error("--store DIR is required");
  if (wn_init() != WN_OK) {
    fprintf(stderr, "winnow-dump: cannot initialise the library\n");
    return WN_EXIT_INTERNAL;
  }
  wn_store_options so;
  wn_store_options_init(&so);
  if (map_mib)
    so.map_size = map_mib * 1024 * 1024;
  /* Only import, merge, delete and drop-pending write; everything else reads (and so works on
   * a store another process is writing, or on a read-only copy). */
  so.read_only = strcmp(cmd, "import") != 0 && strcmp(cmd, "delete") != 0 &&
                 strcmp(cmd, "drop-pending") != 0 && strcmp(cmd, "merge") != 0;
  wn_store *store = NULL;
  wn_diag diag;
  wn_diag_clear(&diag);
  /* LMDB trusts its file: walk it in a child first, so that a damaged
   * store is a message and exit 3, never a signal (wn_store_check). A
   * store not there yet is wn_store_open's to report. */
  wn_store_check_report check;
  wn_err err = wn_store_check(dir, &check, &diag);
  if (err && err != WN_ENOTFOUND) {
    fprintf(stderr, "winnow-dump: %s\n", wn_diag_message(&diag, err));
    wn_cleanup();
    return err == WN_ENOMEM ? WN_EXIT_INTERNAL : WN_EXIT_STORE;
  }
  wn_diag_clear(&diag);
  err = wn_store_open(dir, &so, &store, &diag);
  if (err) {
    fprintf(stderr, "winnow-dump: %s\n", wn_diag_message(&diag, err));
    wn_cleanup();
    return WN_EXIT_STORE; /* a store that cannot be opened is the store's */
  }
  int n = argc - i;
  char **args = argv + i;
  int rc;
  switch (c) {
  case 0: rc = cmd_list(store, n, args); break;
  case 1: rc = cmd_show(store, n, args); break;
  case 2: rc = cmd_explain(store, n, args); break;
  case 3: rc = cmd_stats(store, n, args); break;
  case 4: rc = cmd_export(store, n, args); break;
  case 5: rc = cmd_import(store, n, args); break;
  case 6: rc = cmd_verify(store, n, &check); break;
  case 7: rc = cmd_delete(store, n, args); break;
  case 8: rc = cmd_snapshot(store, n, args); break;
  case 9: rc = cmd_pending(store, n, args); break;
  case 10: rc = cmd_drop_pending(store, n, args); break;
  default: rc = cmd_merge(store, n, args); break;
  }
  wn_store_close(store);
  wn_cleanup();
  return rc;
}
