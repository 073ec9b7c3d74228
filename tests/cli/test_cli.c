/*
 * The `winnow` command line, tested as scripts use it: the real binary
 * (WN_WINNOW, set by ctest) run with fork + exec on the demo news site in
 * tests/fixtures/site, a real LMDB store in a temporary directory, stdout,
 * stderr and exit codes captured and checked.
 */
#include "wn_test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "store/store.h"
#include "template/template.h"
#include "wn_httpd.h"
#include "wn_run.h"

#define SITE "www.harbourgazette.example"
#define PAGE(n) WN_FIXTURES "/site/article-" #n ".html"
/* Parses stdout as one JSON object and checks a page of a site without a
 * template was served by the single-page fallback, saying so. */
static void wn_expect_fallback_json(const char *out, const char *method, const char *reason);

static const char *g_winnow;
static char g_tmp[PATH_MAX];
static char g_store[PATH_MAX];
static char *g_learn_out; /* stdout of the learn run of the group setup */
static time_t g_learn_time;

/* ---- running the binary --------------------------------------------------- */

static int wn_temp_file(char *path, size_t size, const char *what) {
  int n = snprintf(path, size, "%s/%s-XXXXXX", g_tmp, what);
  assert_true(n > 0 && (size_t)n < size);
  int fd = mkstemp(path);
  assert_true(fd >= 0);
  return fd;
}

/* Runs winnow with args (NULL-terminated), stdin from stdin_path (or
 * /dev/null), and captures both outputs. */
static void wn_run_args(wn_run *r, const char *stdin_path, const char *const *args) {
  wn_test_run(r, g_tmp, stdin_path, 0, g_winnow, args);
}

#define RUN(r, in, ...) wn_run_args((r), (in), (const char *const[]){__VA_ARGS__, NULL})

/* The JSON object a command that succeeds prints. */
static json_t *wn_run_json(const char *const *args) {
  wn_run r;
  wn_run_args(&r, NULL, args);
  assert_int_equal(r.status, 0);
  json_t *root = json_loads(r.out, 0, NULL);
  if (!root)
    fail_msg("not one JSON object: %s", r.out);
  wn_run_free(&r);
  return root;
}
#define RUN_JSON(...) wn_run_json((const char *const[]){__VA_ARGS__, NULL})

static void wn_expect_contains(const char *hay, const char *needle) {
  if (!strstr(hay, needle))
    fail_msg("expected to find \"%s\" in:\n%s", needle, hay);
}

static void wn_expect_lacks(const char *hay, const char *needle) {
  if (strstr(hay, needle))
    fail_msg("did not expect \"%s\" in:\n%s", needle, hay);
}

/* Writes bytes to a new file in the temp dir; path receives its name. */
static void wn_write_temp(char *path, size_t size, const char *what, const char *bytes,
                          size_t len) {
  int fd = wn_temp_file(path, size, what);
  size_t done = 0;
  while (done < len) {
    ssize_t n = write(fd, bytes + done, len - done);
    assert_true(n > 0);
    done += (size_t)n;
  }
  close(fd);
}

static void wn_join(char *out, size_t size, const char *dir, const char *name) {
  int n = snprintf(out, size, "%s/%s", dir, name);
  assert_true(n > 0 && (size_t)n < size);
}

/* The record of a site, through the library (read-only), or NULL with
 * *err set. */
static wn_store_record *wn_get_record(const char *dir, const char *site, wn_err *err) {
  wn_store *store = NULL;
  wn_store_record *rec = NULL;
  wn_diag diag = {{0}};
  wn_store_options opts = {.read_only = 1};
  *err = wn_store_open(dir, &opts, &store, &diag);
  if (*err == WN_OK)
    *err = wn_store_get(store, site, &rec, &diag);
  wn_store_close(store);
  return rec;
}

/* ---- the demo site's articles ---------------------------------------------- */

/* What a reader should get from article-6 and article-7, and what is
 * boilerplate of every page (header, nav, search, sidebar, footer) or of
 * that page (its "Most popular" and "Related stories" links). */
static const char *const g_article6_content[] = {
    "Council backs sea wall repairs after a winter of storms",
    "Councillors voted unanimously to spend four million pounds on the crumbling wall",
    "The sea wall along the South Parade was built in the 1930s and has been patched many "
    "times since.",
    "Engineers told Thursday's meeting that the wall was not in danger of immediate collapse",
    "Using the dredged shingle saves money on both projects, the council said",
    "My grandchildren used to play on that beach, she said.",
    "The council will also install tide gauges along the wall so that it can see how quickly "
    "the beach is lost in future winters.",
    NULL};
static const char *const g_article6_boilerplate[] = {
    "Storm damage bill tops a million pounds",         /* its related stories */
    "Lifeboat crew called out six times in one night", /* its related stories */
    "Youth rowers take regional title in a photo finish", /* its most popular */
    "Residents split over parking charges on the seafront", NULL};
static const char *const g_article7_content[] = {
    "Youth rowers take regional title in a photo finish",
    "won the regional championship by a quarter of a second",
    "The club had never won the regional title in its ninety-year history.",
    "The judges needed the photo to separate the boats.",
    "A season on borrowed oars",
    "raised money for new oars by washing cars outside the supermarket.",
    "The club runs taster sessions for beginners aged twelve and over on Wednesday evenings "
    "from the boathouse on Ferry Lane.",
    NULL};
static const char *const g_article7_boilerplate[] = {
    "Snow brings down rowing club boathouse roof",                 /* related stories */
    "Regatta draws crews from across the coast",                   /* related stories */
    "Council backs sea wall repairs after a winter of storms",     /* most popular */
    "Bus route to the hospital will run on Sundays",               /* most popular */
    NULL};
static const char *const g_site_boilerplate[] = {
    "Local News", "Business", "Opinion", "Weather", "Search the Gazette",
    "News from Port Ellery and the Saltmarsh Coast", "Most popular", "Related stories",
    "Morning Tide newsletter", "Sign up", "All rights reserved", "\xc2\xa9 2024",
    "Contact the newsroom", "Terms of use", NULL};

static void wn_expect_article(const char *text, const char *const *content,
                              const char *const *boilerplate) {
  for (size_t i = 0; content[i]; i++)
    wn_expect_contains(text, content[i]);
  for (size_t i = 0; boilerplate[i]; i++)
    wn_expect_lacks(text, boilerplate[i]);
  for (size_t i = 0; g_site_boilerplate[i]; i++)
    wn_expect_lacks(text, g_site_boilerplate[i]);
}

/* ---- setup: learn the demo site once ---------------------------------------- */

static int wn_group_setup(void **state) {
  (void)state;
  g_winnow = getenv("WN_WINNOW");
  if (!g_winnow || !*g_winnow)
    g_winnow = WN_BINARY_DIR "/winnow";
  if (access(g_winnow, X_OK) != 0) {
    fprintf(stderr, "winnow binary not found at %s\n", g_winnow);
    return -1;
  }
  if (wn_test_temp_dir(g_tmp, sizeof g_tmp, "wn-cli") != 0)
    return -1;
  wn_join(g_store, sizeof g_store, g_tmp, "store");
  g_learn_time = time(NULL);
  wn_run r;
  RUN(&r, NULL, "learn", "--store", g_store, "--site", SITE, PAGE(1), PAGE(2), PAGE(3), PAGE(4),
      PAGE(5));
  if (r.status != 0) {
    fprintf(stderr, "learn failed (%d): %s", r.status, r.err);
    wn_run_free(&r);
    return -1;
  }
  g_learn_out = r.out;
  r.out = NULL;
  wn_run_free(&r);
  return 0;
}

static int wn_group_teardown(void **state) {
  (void)state;
  free(g_learn_out);
  if (g_tmp[0])
    wn_test_remove_tree(g_tmp);
  return 0;
}

/* ---- help and usage ----------------------------------------------------------- */

static void test_help(void **state) {
  (void)state;
  wn_run r;
  RUN(&r, NULL, "--help");
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "usage: winnow <command>");
  wn_expect_contains(r.out, "winnow learn --store DIR --site SITE");
  wn_expect_contains(r.out, "winnow detect [--store DIR] --jsonl");
  wn_expect_contains(r.out, "winnow sites --store DIR");
  assert_int_equal(r.err_len, 0);
  wn_run_free(&r);

  RUN(&r, NULL, "learn", "--help");
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "usage: winnow learn");
  wn_expect_contains(r.out, "--min-count N");
  assert_int_equal(r.err_len, 0);
  wn_run_free(&r);

  /* --help wins over the other arguments, even incomplete ones. */
  RUN(&r, NULL, "detect", "--format", "json", "--help");
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "usage: winnow detect");
  wn_expect_contains(r.out, "--jsonl");
  wn_expect_contains(r.out, "--selector");
  assert_int_equal(r.err_len, 0);
  wn_run_free(&r);
}

typedef struct wn_usage_case {
  const char *args[16];
  const char *message; /* expected in stderr */
} wn_usage_case;

static void test_usage_errors(void **state) {
  (void)state;
  const wn_usage_case cases[] = {
      {{NULL}, "winnow: no command given"},
      {{"frobnicate"}, "winnow: unknown command 'frobnicate'"},
      {{"learn", "--bogus", "x"}, "winnow: unknown option '--bogus'"},
      {{"learn", "--site", SITE, "--store"}, "winnow: option '--store' needs an argument"},
      {{"learn", "--site", SITE, PAGE(1), PAGE(2)}, "learn needs --store DIR"},
      {{"learn", "--store", g_store, PAGE(1), PAGE(2)}, "needs --site SITE"},
      {{"learn", "--store", g_store, "--site", "", PAGE(1), PAGE(2)}, "is not a site"},
      {{"learn", "--store", g_store, "--site", "WWW.Example.com", PAGE(1), PAGE(2)},
       "is not a site"},
      {{"learn", "--store", g_store, "--site", "example.com/x", PAGE(1), PAGE(2)},
       "is not a site"},
      /* detect: a bad --site is a usage error (2), as for learn and sites. */
      {{"detect", "--site", "WWW.Example.com", PAGE(1)}, "is not a site"},
      {{"learn", "--store", g_store, "--site", "one.example", PAGE(1)},
       "learn needs a URL, or a key page and at least one more page"},
      {{"learn", "--store", g_store, "--site", "x.example"}, "learn needs a URL, or a key page"},
      {{"learn", "--store", g_store, "--site", "x.example", "--min-count", "abc", PAGE(1),
        PAGE(2)},
       "--min-count must be a number from 1 to 2"},
      {{"learn", "--store", g_store, "--site", "x.example", "--min-count", "0", PAGE(1), PAGE(2)},
       "--min-count must be"},
      {{"learn", "--store", g_store, "--site", "x.example", "--min-count", "3", PAGE(1), PAGE(2)},
       "--min-count must be"},
      {{"learn", "--store", g_store, "--site", "x.example", "--min-count", "-1", PAGE(1),
        PAGE(2)},
       "--min-count must be"},
      {{"learn", "--store", g_store, "--site", "x.example", "--min-count", "2x", PAGE(1),
        PAGE(2)},
       "--min-count must be"},
      {{"detect", "--store", g_store, PAGE(6)}, "detect with --store needs --site SITE or --url"},
      {{"detect", "--store", g_store, "--site", SITE, "--url", "https://" SITE "/", PAGE(6)},
       "give --site SITE or --url URL, not both"},
      {{"detect", "--fallback", "boilerpipe", PAGE(6)}, "--fallback is danag, cnr or readability"},
      {{"detect", "--min-confidence", "1.5", PAGE(6)}, "--min-confidence is a number from 0 to 1"},
      {{"detect", "--min-confidence", "-0", PAGE(6)}, "--min-confidence is a number"},
      {{"detect", "--min-confidence", "nan", PAGE(6)}, "--min-confidence is a number"},
      {{"detect", "--drift-share", "x", PAGE(6)}, "--drift-share is a number"},
      {{"learn", "--store", g_store, "--n", "0", "http://127.0.0.1:1/"}, "--n must be a number"},
      {{"learn", "--store", g_store, "--algo", "cex", "http://127.0.0.1:1/"},
       "--algo: unknown algorithm 'cex' (known: etdm, fastce)"},
      {{"learn", "--store", g_store, "--site", "x.example", "--n", "3", PAGE(1), PAGE(2)},
       "are for learning from a URL"},
      {{"sites"}, "sites needs --store DIR"},
      {{"sites", "--store", g_store, "--drift-share", "2"}, "--drift-share is a number"},
      {{"detect", "--store", g_store, "--site", SITE}, "detect needs a page"},
      {{"detect", "--store", g_store, "--jsonl", PAGE(6), PAGE(7)},
       "detect takes one input, got 2"},
      {{"detect", "--store", g_store, "--site", SITE, "--format", "xml", PAGE(6)},
       "--format is text, html, markdown or json, not 'xml'"},
      {{"detect", "--store", g_store, "--site", SITE, "--selector", "magic", PAGE(6)},
       "--selector is site, cues, places, region or paper, not 'magic'"},
      {{"detect", "--store", g_store, "--site", SITE, PAGE(6), "--format"},
       "option '--format' needs an argument"},
      {{"detect", "--store", g_store, "--jsonl", "--format", "json"}, "--jsonl always writes JSON"},
      {{"detect", "--store", g_store, "--jsonl", "--site", SITE}, "--jsonl takes the site"},
      {{"detect", "--store", g_store, "-x", PAGE(6)}, "unknown option '-x'"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    wn_run r;
    wn_run_args(&r, NULL, cases[i].args);
    if (r.status != 2)
      fail_msg("case %zu (%s): exit %d, stderr: %s", i, cases[i].message, r.status, r.err);
    assert_int_equal(r.out_len, 0);
    wn_expect_contains(r.err, cases[i].message);
    /* One line says what is wrong, a second where to read more; not the
     * whole help. */
    assert_memory_equal(r.err, "winnow: ", 8);
    wn_expect_contains(r.err, "winnow: see 'winnow ");
    wn_expect_lacks(r.err, "usage: winnow");
    wn_run_free(&r);
  }
  /* None of those wrote a record. */
  wn_err err;
  assert_null(wn_get_record(g_store, "one.example", &err));
  assert_int_equal(err, WN_ENOTFOUND);
  assert_null(wn_get_record(g_store, "x.example", &err));
  assert_int_equal(err, WN_ENOTFOUND);
}

/* ---- learn ---------------------------------------------------------------------- */

static uint64_t wn_file_size(const char *path) {
  struct stat st;
  assert_int_equal(stat(path, &st), 0);
  return (uint64_t)st.st_size;
}

static void test_learn_summary(void **state) {
  (void)state;
  char site[256], selector[16];
  unsigned pages = 0, nodes = 0, tnodes = 0;
  unsigned long long record_bytes = 0, generation = 0;
  int end = 0;
  int got = sscanf(g_learn_out,
                   "learned %255[^:]: pages=%u nodes=%u template_nodes=%u record_bytes=%llu "
                   "generation=%llu selector=%15s\n%n",
                   site, &pages, &nodes, &tnodes, &record_bytes, &generation, selector, &end);
  if (got != 7)
    fail_msg("unexpected summary: %s", g_learn_out);
  /* Exactly one line. */
  assert_int_equal((size_t)end, strlen(g_learn_out));
  assert_string_equal(site, SITE);
  assert_int_equal(pages, 5);
  assert_int_equal(generation, 1);
  assert_string_equal(selector, "places"); /* the default, when none is chosen */
  /* nodes is the sum of the pages' node counts; the template keeps part
   * of the key page. */
  const char *names[] = {PAGE(1), PAGE(2), PAGE(3), PAGE(4), PAGE(5)};
  uint32_t sum = 0, key_nodes = 0;
  for (size_t i = 0; i < 5; i++) {
    size_t len = 0;
    char *bytes = wn_test_read(names[i], &len);
    wn_dom_page *page = NULL;
    assert_int_equal(wn_dom_parse(bytes, len, NULL, &page, NULL), WN_OK);
    uint32_t count = 0;
    wn_dom_nodes(page, &count);
    sum += count;
    if (i == 0)
      key_nodes = count;
    wn_dom_free(page);
    free(bytes);
  }
  assert_int_equal(nodes, sum);
  assert_true(tnodes > 20 && tnodes < key_nodes);
  assert_true(record_bytes > 0);

  /* The stored record says the same. */
  wn_err err;
  wn_store_record *rec = wn_get_record(g_store, SITE, &err);
  assert_int_equal(err, WN_OK);
  assert_string_equal(rec->algorithm, "etdm");
  assert_int_equal(rec->generation, 1);
  assert_int_equal(rec->n_pages, 5);
  assert_int_equal(rec->page_nodes, nodes);
  assert_int_equal(rec->template_nodes, tnodes);
  assert_true(rec->learned_at >= (int64_t)g_learn_time - 5 &&
              rec->learned_at <= (int64_t)time(NULL) + 5);
  for (uint32_t i = 0; i < 5; i++) {
    assert_string_equal(rec->pages[i].name, names[i]);
    assert_int_equal(rec->pages[i].bytes, wn_file_size(names[i]));
  }
  wn_buf encoded;
  wn_buf_init(&encoded, 0);
  assert_int_equal(wn_store_record_encode(rec, &encoded, NULL), WN_OK);
  assert_int_equal(encoded.len, record_bytes);
  wn_buf_free(&encoded);
  /* The template bytes decode to a template of the stated size. */
  wn_template *tpl = NULL;
  assert_int_equal(wn_template_decode(rec->template_bytes, rec->template_len, &tpl, NULL), WN_OK);
  wn_template_stats stats;
  wn_template_get_stats(tpl, &stats);
  assert_int_equal(stats.nodes, tnodes);
  assert_int_equal(stats.sample_pages, 5);
  assert_int_equal(stats.min_count, 2);
  wn_template_free(tpl);
  wn_store_record_free(rec);
}

/* A site learned with --selector keeps it: learn and sites say so, detect
 * uses it unless told otherwise, and a bad name is a usage error that
 * writes nothing. */
static void test_learn_selector(void **state) {
  (void)state;
  wn_run r;
  RUN(&r, NULL, "learn", "--store", g_store, "--site", "region.example", "--selector", "region",
      PAGE(1), PAGE(2), PAGE(3));
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, " generation=1 selector=region\n");
  wn_run_free(&r);
  RUN(&r, NULL, "sites", "--store", g_store, "region.example");
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "drifting=no selector=region\n");
  wn_run_free(&r);
  json_t *root = RUN_JSON("sites", "--store", g_store, "--json", "region.example");
  assert_string_equal(json_string_value(json_object_get(root, "selector")), "region");
  json_decref(root);
  root = RUN_JSON("detect", "--store", g_store, "--site", "region.example", "--format", "json",
                  PAGE(6));
  assert_string_equal(json_string_value(json_object_get(root, "method")), "template-region");
  json_decref(root);
  root = RUN_JSON("detect", "--store", g_store, "--site", "region.example", "--format", "json",
                  "--selector", "cues", PAGE(6));
  assert_string_equal(json_string_value(json_object_get(root, "method")), "template");
  json_decref(root);
  /* "site" names no choice; unknown names are refused; nothing written. */
  const char *bad[] = {"site", "Region", ""};
  for (size_t i = 0; i < 3; i++) {
    RUN(&r, NULL, "learn", "--store", g_store, "--site", "region.example", "--selector", bad[i],
        PAGE(1), PAGE(2));
    assert_int_equal(r.status, 2);
    wn_expect_contains(r.err, "--selector is cues, places, region or paper");
    wn_run_free(&r);
  }
  RUN(&r, NULL, "sites", "--store", g_store, "region.example");
  wn_expect_contains(r.out, "region.example generation=1 ");
  wn_run_free(&r);

  /* The default, places, and why: sites names the place the samples agree
   * on (the blog's post body: whole) and what recurs beside it (its
   * comment thread and its "more stories" list: two asides). */
#define BLOG_POST(n) WN_FIXTURES "/places-blog/post-" #n ".html"
  RUN(&r, NULL, "learn", "--store", g_store, "--site", "blog.example", BLOG_POST(1),
      BLOG_POST(2), BLOG_POST(3), BLOG_POST(4), BLOG_POST(5));
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, " generation=1 selector=places\n");
  wn_run_free(&r);
  RUN(&r, NULL, "sites", "--store", g_store, "blog.example");
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "drifting=no selector=places place=whole skips=0 asides=2\n");
  wn_run_free(&r);
  root = RUN_JSON("sites", "--store", g_store, "--json", "blog.example");
  assert_string_equal(json_string_value(json_object_get(root, "place")), "whole");
  assert_int_equal(json_integer_value(json_object_get(root, "place_asides")), 2);
  json_decref(root);
  /* The region selector learns no places: no place= on its line. */
  root = RUN_JSON("sites", "--store", g_store, "--json", "region.example");
  assert_null(json_object_get(root, "place"));
  json_decref(root);
#undef BLOG_POST
}

static void test_learn_generation_and_failures_write_nothing(void **state) {
  (void)state;
  wn_run r;
  RUN(&r, NULL, "learn", "--store", g_store, "--site", "second.example", PAGE(1), PAGE(2));
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "learned second.example: pages=2 nodes=");
  wn_expect_contains(r.out, " generation=1 selector=places\n");
  wn_run_free(&r);

  RUN(&r, NULL, "learn", "--min-count", "3", "--store", g_store, "--site", "second.example",
      PAGE(3), PAGE(4), PAGE(5));
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "learned second.example: pages=3 nodes=");
  wn_expect_contains(r.out, " generation=2 selector=places\n");
  assert_int_equal(r.err_len, 0);
  wn_run_free(&r);

  /* A missing page: exit 1, the file named, and the record untouched. */
  RUN(&r, NULL, "learn", "--store", g_store, "--site", "second.example", PAGE(1),
      WN_FIXTURES "/site/no-such-article.html", PAGE(2));
  assert_int_equal(r.status, 1);
  assert_int_equal(r.out_len, 0);
  assert_memory_equal(r.err, "winnow: ", 8);
  wn_expect_contains(r.err, "no-such-article.html");
  wn_run_free(&r);

  /* A page past the byte cap: exit 1, the file named, record untouched. */
  char big[PATH_MAX];
  size_t big_len = WN_DOM_DEFAULT_MAX_BYTES + 1;
  char *spaces = malloc(big_len);
  assert_non_null(spaces);
  memset(spaces, ' ', big_len);
  wn_write_temp(big, sizeof big, "big.html", spaces, big_len);
  free(spaces);
  RUN(&r, NULL, "learn", "--store", g_store, "--site", "second.example", PAGE(1), big);
  assert_int_equal(r.status, 1);
  assert_int_equal(r.out_len, 0);
  wn_expect_contains(r.err, big);
  wn_expect_contains(r.err, "cap");
  wn_run_free(&r);
  unlink(big);

  wn_err err;
  wn_store_record *rec = wn_get_record(g_store, "second.example", &err);
  assert_int_equal(err, WN_OK);
  assert_int_equal(rec->generation, 2);
  assert_int_equal(rec->n_pages, 3);
  assert_string_equal(rec->pages[0].name, PAGE(3));
  wn_store_record_free(rec);
}

static void test_learn_missing_file_fresh_store(void **state) {
  (void)state;
  char fresh[PATH_MAX];
  wn_join(fresh, sizeof fresh, g_tmp, "fresh-store");
  wn_run r;
  RUN(&r, NULL, "learn", "--store", fresh, "--site", SITE, PAGE(1), PAGE(2),
      WN_FIXTURES "/site/missing.html");
  assert_int_equal(r.status, 1);
  assert_int_equal(r.out_len, 0);
  wn_expect_contains(r.err, "winnow: ");
  wn_expect_contains(r.err, WN_FIXTURES "/site/missing.html");
  wn_run_free(&r);

  /* A failed learn leaves nothing behind: not even the store directory,
   * so a mistyped path does not become an empty store... */
  struct stat st;
  assert_int_not_equal(stat(fresh, &st), 0);
  /* ...and detect says the store is missing (exit 3). */
  RUN(&r, NULL, "detect", "--store", fresh, "--site", SITE, "--format", "json", PAGE(6));
  assert_int_equal(r.status, 3);
  assert_int_equal(r.out_len, 0);
  wn_run_free(&r);
  wn_test_remove_tree(fresh);
}

static void wn_expect_error_line(const char *line, const json_t *id, const char *message);

/* ---- detect ----------------------------------------------------------------------- */

static void test_detect_text(void **state) {
  (void)state;
  wn_run r;
  RUN(&r, NULL, "detect", "--store", g_store, "--site", SITE, PAGE(6));
  assert_int_equal(r.status, 0);
  assert_int_equal(r.err_len, 0);
  wn_expect_article(r.out, g_article6_content, g_article6_boilerplate);
  /* One line per block: the title first, each paragraph on its own line. */
  assert_memory_equal(r.out, "Council backs sea wall repairs after a winter of storms\n",
                      strlen("Council backs sea wall repairs after a winter of storms\n"));
  wn_expect_contains(r.out, "\nThe sea wall along the South Parade was built in the 1930s");
  wn_expect_contains(r.out, "in future winters.\n");
  assert_int_equal(r.out[r.out_len - 1], '\n');
  wn_run_free(&r);

  RUN(&r, NULL, "detect", "--format", "text", "--store", g_store, "--site", SITE, PAGE(7));
  assert_int_equal(r.status, 0);
  assert_int_equal(r.err_len, 0);
  wn_expect_article(r.out, g_article7_content, g_article7_boilerplate);
  /* The subheading inside the story is a line of its own. */
  wn_expect_contains(r.out, "\nA season on borrowed oars\n");
  wn_run_free(&r);
}

static void wn_expect_fallback_json(const char *out, const char *method, const char *reason) {
  json_error_t jerr;
  json_t *root = json_loads(out, 0, &jerr);
  if (!root)
    fail_msg("not JSON (%s): %s", jerr.text, out);
  assert_string_equal(json_string_value(json_object_get(root, "method")), method);
  assert_string_equal(json_string_value(json_object_get(root, "fallback")), reason);
  /* No template was used, so nothing was counted. */
  assert_null(json_object_get(root, "drift"));
  const char *text = json_string_value(json_object_get(root, "text"));
  assert_non_null(text);
  /* Whatever the method, the story's headline is content. */
  assert_true(strstr(text, "Council backs sea wall repairs") ||
              strstr(text, "Youth rowers take regional title"));
  json_decref(root);
}

static void test_detect_json(void **state) {
  (void)state;
  const char *const pages[] = {PAGE(6), PAGE(7)};
  const char *const titles[] = {"Council backs sea wall repairs after a winter of storms",
                                "Youth rowers take regional title in a photo finish"};
  for (size_t p = 0; p < 2; p++) {
    wn_run r;
    RUN(&r, NULL, "detect", "--store", g_store, "--site", SITE, "--format", "json", pages[p]);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.err_len, 0);
    json_error_t jerr;
    json_t *root = json_loads(r.out, 0, &jerr);
    if (!root)
      fail_msg("not JSON (%s): %s", jerr.text, r.out);
    assert_true(json_is_object(root));
    /* site, method, confidence, fallback, page_type, drift, charset,
     * charset_source, nodes, text ("metadata" only with --metadata) */
    assert_int_equal(json_object_size(root), 10);
    assert_string_equal(json_string_value(json_object_get(root, "site")), SITE);
    assert_string_equal(json_string_value(json_object_get(root, "method")), "template");
    assert_true(json_is_null(json_object_get(root, "fallback")));
    json_t *drift = json_object_get(root, "drift");
    assert_true(json_is_object(drift));
    assert_true(json_integer_value(json_object_get(drift, "pages")) >= 1);
    assert_int_equal(json_integer_value(json_object_get(drift, "low")), 0);
    assert_true(json_is_false(json_object_get(drift, "drifting")));
    json_t *conf = json_object_get(root, "confidence");
    assert_true(json_is_real(conf));
    assert_true(json_real_value(conf) > 0.5 && json_real_value(conf) <= 1.0);
    const char *charset = json_string_value(json_object_get(root, "charset"));
    assert_non_null(charset);
    assert_true(strcasecmp(charset, "utf-8") == 0);
    assert_string_equal(json_string_value(json_object_get(root, "charset_source")), "meta");
    json_t *nodes = json_object_get(root, "nodes");
    assert_true(json_is_array(nodes));
    assert_true(json_array_size(nodes) > 0);
    for (size_t i = 0; i < json_array_size(nodes); i++) {
      const char *path = json_string_value(json_array_get(nodes, i));
      assert_non_null(path);
      assert_memory_equal(path, "/html", 5);
      wn_expect_contains(path, "/body");
      /* The story lives in <main>; nothing selected from the sidebar,
       * header or footer. */
      wn_expect_contains(path, "/main");
    }
    const char *text = json_string_value(json_object_get(root, "text"));
    assert_non_null(text);
    wn_expect_contains(text, titles[p]);
    if (p == 0)
      wn_expect_article(text, g_article6_content, g_article6_boilerplate);
    else
      wn_expect_article(text, g_article7_content, g_article7_boilerplate);
    json_decref(root);
    wn_run_free(&r);
  }

  /* The paper's selector says so in "method". */
  wn_run r;
  RUN(&r, NULL, "detect", "--store", g_store, "--site", SITE, "--format", "json", "--selector",
      "paper", PAGE(6));
  assert_int_equal(r.status, 0);
  json_t *root = json_loads(r.out, 0, NULL);
  assert_non_null(root);
  assert_string_equal(json_string_value(json_object_get(root, "method")), "template-paper");
  json_decref(root);
  wn_run_free(&r);
}

static void test_detect_html(void **state) {
  (void)state;
  wn_run r;
  RUN(&r, NULL, "detect", "--store", g_store, "--site", SITE, "--format", "html", PAGE(6));
  assert_int_equal(r.status, 0);
  assert_int_equal(r.err_len, 0);
  wn_expect_contains(r.out, "<h1");
  wn_expect_contains(r.out, "Council backs sea wall repairs after a winter of storms</h1>");
  wn_expect_contains(r.out, "<p>The sea wall along the South Parade");
  wn_expect_lacks(r.out, "<html");
  wn_expect_lacks(r.out, "<nav");
  wn_expect_lacks(r.out, "site-footer");
  wn_expect_lacks(r.out, "Most popular");
  wn_expect_lacks(r.out, "Related stories");
  wn_run_free(&r);
}

static void test_detect_url_and_stdin(void **state) {
  (void)state;
  wn_run by_site, r;
  RUN(&by_site, NULL, "detect", "--store", g_store, "--site", SITE, PAGE(7));
  assert_int_equal(by_site.status, 0);
  assert_true(by_site.out_len > 100);

  /* The site is the URL's host. */
  RUN(&r, NULL, "detect", "--store", g_store, "--url",
      "https://" SITE "/sport/2024/03/rowing-final?ref=home#comments", PAGE(7));
  assert_int_equal(r.status, 0);
  assert_int_equal(r.out_len, by_site.out_len);
  assert_memory_equal(r.out, by_site.out, r.out_len);
  wn_run_free(&r);

  /* One site rule: the port is part of the site unless it is the
   * scheme's default, the host is lower-cased, user info is not. */
  RUN(&r, NULL, "detect", "--store", g_store, "--url", "http://user@" SITE ":8080/x", "--format",
      "json", PAGE(7));
  assert_int_equal(r.status, 0);
  json_t *root = json_loads(r.out, 0, NULL);
  assert_non_null(root);
  assert_string_equal(json_string_value(json_object_get(root, "site")), SITE ":8080");
  assert_string_equal(json_string_value(json_object_get(root, "fallback")), "no template");
  json_decref(root);
  wn_run_free(&r);
  RUN(&r, NULL, "detect", "--store", g_store, "--url", "HTTP://WWW.HarbourGazette.Example:80/x",
      "--format", "json", PAGE(7));
  assert_int_equal(r.status, 0);
  root = json_loads(r.out, 0, NULL);
  assert_non_null(root);
  assert_string_equal(json_string_value(json_object_get(root, "site")), SITE);
  json_decref(root);
  wn_run_free(&r);

  /* The page on stdin. */
  RUN(&r, PAGE(7), "detect", "--store", g_store, "--site", SITE, "-");
  assert_int_equal(r.status, 0);
  assert_int_equal(r.out_len, by_site.out_len);
  assert_memory_equal(r.out, by_site.out, r.out_len);
  wn_run_free(&r);
  wn_run_free(&by_site);

  /* Another host has no template: the fallback serves it. */
  RUN(&r, NULL, "detect", "--store", g_store, "--url", "https://other.example/a.html", "--format",
      "json", PAGE(7));
  assert_int_equal(r.status, 0);
  wn_expect_fallback_json(r.out, "danag", "no template");
  wn_run_free(&r);

  /* A URL that names no site still has its page read: the
   * single-page method, a warning that says why, "site_error" in JSON. */
  RUN(&r, NULL, "detect", "--store", g_store, "--url", "not a url", PAGE(7));
  assert_int_equal(r.status, 0);
  assert_true(r.out_len > 100);
  wn_expect_contains(r.err, "winnow: warning: --url names no site: not a URL: 'not a url'");
  wn_run_free(&r);
  RUN(&r, NULL, "detect", "--store", g_store, "--url", "file:///etc/hosts", "--format", "json",
      PAGE(7));
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.err, "file URLs are not supported");
  root = json_loads(r.out, 0, NULL);
  assert_non_null(root);
  assert_true(json_is_null(json_object_get(root, "site")));
  wn_expect_contains(json_string_value(json_object_get(root, "site_error")),
                     "file URLs are not supported");
  assert_string_equal(json_string_value(json_object_get(root, "method")), "danag");
  wn_expect_contains(json_string_value(json_object_get(root, "text")), g_article7_content[1]);
  json_decref(root);
  wn_run_free(&r);
}

/* URLs as a crawl has them: a space in the path hides nothing
 * (the site's template serves the page), a host with '_' and an IDN host
 * name their sites, a host no site name spells leaves the page to the
 * single-page method; never an error, never "out of memory". */
static void test_detect_url_crawl_forms(void **state) {
  (void)state;
  wn_run r, by_site;
  RUN(&by_site, NULL, "detect", "--store", g_store, "--site", SITE, PAGE(7));
  assert_int_equal(by_site.status, 0);
  RUN(&r, NULL, "detect", "--store", g_store, "--url",
      "https://" SITE "/sport/rowing final tx_news_pi1%5Baction%5D=detail", PAGE(7));
  assert_int_equal(r.status, 0);
  assert_int_equal(r.err_len, 0);
  assert_int_equal(r.out_len, by_site.out_len);
  assert_memory_equal(r.out, by_site.out, r.out_len);
  wn_run_free(&r);
  wn_run_free(&by_site);
  static const char *const urls[][2] = {
      {"https://my_host.example.com/a", "my_host.example.com"},
      {"https://b\xc3\xbc" "cher.example/x", "xn--bcher-kva.example"},
      {"https://B\xc3\x9c" "CHER.example/x y", "xn--bcher-kva.example"},
      {"https://ex ample.example/x", NULL}};
  for (size_t i = 0; i < sizeof urls / sizeof urls[0]; i++) {
    RUN(&r, NULL, "detect", "--store", g_store, "--url", urls[i][0], "--format", "json", PAGE(7));
    assert_int_equal(r.status, 0);
    wn_expect_lacks(r.err, "out of memory");
    json_t *root = json_loads(r.out, 0, NULL);
    if (!root)
      fail_msg("%s: not JSON: %s", urls[i][0], r.out);
    if (urls[i][1]) {
      assert_int_equal(r.err_len, 0);
      assert_string_equal(json_string_value(json_object_get(root, "site")), urls[i][1]);
      assert_null(json_object_get(root, "site_error"));
    } else {
      wn_expect_contains(r.err, "warning: --url names no site: ");
      assert_true(json_is_null(json_object_get(root, "site")));
      wn_expect_contains(json_string_value(json_object_get(root, "site_error")), "Bad hostname");
    }
    assert_string_equal(json_string_value(json_object_get(root, "method")), "danag");
    wn_expect_contains(json_string_value(json_object_get(root, "text")), g_article7_content[1]);
    json_decref(root);
    wn_run_free(&r);
  }
}

static void test_detect_failures(void **state) {
  (void)state;
  wn_run r;
  RUN(&r, NULL, "detect", "--store", g_store, "--site", "unknown.example", "--format", "json",
      "--fallback", "cnr", PAGE(6));
  assert_int_equal(r.status, 0);
  wn_expect_fallback_json(r.out, "cnr", "no template");
  wn_run_free(&r);

  RUN(&r, NULL, "detect", "--store", g_store, "--site", SITE, WN_FIXTURES "/site/nope.html");
  assert_int_equal(r.status, 1);
  assert_int_equal(r.out_len, 0);
  assert_memory_equal(r.err, "winnow: ", 8);
  wn_expect_contains(r.err, WN_FIXTURES "/site/nope.html");
  wn_run_free(&r);

  /* A record whose template bytes do not decode: the page is read by the
   * single-page method ("damaged template"), with a warning naming the
   * site, in a stream too. */
  {
    wn_store *store = NULL;
    wn_diag diag = {{0}};
    assert_int_equal(wn_store_open(g_store, NULL, &store, &diag), WN_OK);
    unsigned char junk[] = "not a template";
    wn_store_page sample = {.name = (char *)"junk.html", .bytes = 1};
    wn_store_record rec = {.algorithm = "etdm", .n_pages = 1, .pages = &sample,
                           .template_bytes = junk, .template_len = sizeof junk - 1};
    wn_err err = wn_store_put(store, "corrupt.example", &rec, NULL, NULL, &diag);
    if (err)
      fail_msg("%s", wn_diag_message(&diag, err));
    wn_store_close(store);
  }
  RUN(&r, NULL, "detect", "--store", g_store, "--site", "corrupt.example", "--format", "json",
      PAGE(6));
  assert_int_equal(r.status, 0);
  wn_expect_fallback_json(r.out, "danag", "damaged template");
  wn_expect_contains(r.out, "Councillors voted unanimously");
  wn_expect_contains(r.err, "winnow: warning: template of site corrupt.example: ");
  wn_run_free(&r);
  char in_path[PATH_MAX];
  const char line[] = "{\"id\": 3, \"site\": \"corrupt.example\", \"path\": \"" PAGE(6) "\"}\n";
  wn_write_temp(in_path, sizeof in_path, "corrupt.jsonl", line, sizeof line - 1);
  RUN(&r, in_path, "detect", "--store", g_store, "--jsonl");
  assert_int_equal(r.status, 0);
  wn_expect_fallback_json(r.out, "danag", "damaged template");
  wn_expect_contains(r.err, "template of site corrupt.example: ");
  wn_run_free(&r);
  unlink(in_path);

  /* A store that cannot be opened: exit 3, for detect and learn. */
  char file[PATH_MAX], under_file[PATH_MAX];
  wn_write_temp(file, sizeof file, "a-file", "x", 1);
  wn_join(under_file, sizeof under_file, file, "store");
  RUN(&r, NULL, "detect", "--store", under_file, "--site", SITE, PAGE(6));
  assert_int_equal(r.status, 3);
  assert_int_equal(r.out_len, 0);
  assert_memory_equal(r.err, "winnow: ", 8);
  wn_run_free(&r);
  RUN(&r, NULL, "learn", "--store", under_file, "--site", SITE, PAGE(1), PAGE(2));
  assert_int_equal(r.status, 3);
  assert_int_equal(r.out_len, 0);
  assert_memory_equal(r.err, "winnow: ", 8);
  wn_run_free(&r);
  RUN(&r, NULL, "detect", "--store", under_file, "--jsonl", PAGE(6));
  assert_int_equal(r.status, 3);
  assert_int_equal(r.out_len, 0);
  wn_run_free(&r);
  /* Detection never creates a store. */
  char absent[PATH_MAX];
  wn_join(absent, sizeof absent, g_tmp, "absent-store");
  RUN(&r, NULL, "detect", "--store", absent, "--site", SITE, PAGE(6));
  assert_int_equal(r.status, 3);
  assert_int_equal(r.out_len, 0);
  wn_run_free(&r);
  struct stat st;
  assert_int_not_equal(stat(absent, &st), 0);
  unlink(file);
}

/* ---- detect --jsonl -------------------------------------------------------------- */

/* Splits output into lines; returns how many (each NUL-terminated in place). */
static size_t wn_lines(char *out, size_t len, char **lines, size_t max) {
  size_t n = 0;
  char *p = out;
  while (p < out + len) {
    char *nl = memchr(p, '\n', (size_t)(out + len - p));
    assert_non_null(nl); /* every line is terminated */
    *nl = '\0';
    assert_true(n < max);
    lines[n++] = p;
    p = nl + 1;
  }
  return n;
}

static json_t *wn_parse_line(const char *line) {
  json_error_t jerr;
  json_t *obj = json_loads(line, 0, &jerr);
  if (!obj || !json_is_object(obj))
    fail_msg("output line is not a JSON object (%s): %s", jerr.text, line);
  return obj;
}

static void wn_expect_error_line(const char *line, const json_t *id, const char *message) {
  json_t *obj = wn_parse_line(line);
  assert_int_equal(json_object_size(obj), 2);
  assert_true(json_equal(json_object_get(obj, "id"), (json_t *)id));
  const char *err = json_string_value(json_object_get(obj, "error"));
  if (!err)
    fail_msg("expected an error object: %s", line);
  wn_expect_contains(err, message);
  json_decref(obj);
}

static void wn_expect_result_line(const char *line, const json_t *id, const char *const *content,
                                  const char *const *boilerplate, int with_html) {
  json_t *obj = wn_parse_line(line);
  if (json_object_get(obj, "error"))
    fail_msg("unexpected error: %s", line);
  /* Keys in the documented order: those of --format json after "id"
   * ("drift" once the stream's counts were written). */
  const char *keys[] = {"id",      "site",    "method",         "confidence", "fallback",
                        "page_type", "drift", "charset", "charset_source", "nodes",
                        "text",    "html"};
  size_t k = 0;
  const char *key;
  json_t *value;
  json_object_foreach(obj, key, value) {
    while (k < sizeof keys / sizeof keys[0] && strcmp(key, keys[k]) != 0 &&
           (strcmp(keys[k], "drift") == 0 || (!with_html && strcmp(keys[k], "html") == 0)))
      k++;
    assert_true(k < sizeof keys / sizeof keys[0]);
    assert_string_equal(key, keys[k]);
    k++;
  }
  assert_int_equal(k, with_html ? 12u : 11u);
  assert_true(json_equal(json_object_get(obj, "id"), (json_t *)id));
  assert_string_equal(json_string_value(json_object_get(obj, "site")), SITE);
  assert_string_equal(json_string_value(json_object_get(obj, "method")), "template");
  double conf = json_real_value(json_object_get(obj, "confidence"));
  assert_true(conf > 0.5 && conf <= 1.0);
  wn_expect_article(json_string_value(json_object_get(obj, "text")), content, boilerplate);
  if (with_html) {
    const char *html = json_string_value(json_object_get(obj, "html"));
    assert_non_null(html);
    wn_expect_contains(html, "<h1");
    wn_expect_contains(html, content[0]);
    wn_expect_lacks(html, "Most popular");
  }
  json_decref(obj);
}

static char *wn_json_line(json_t *obj) {
  char *s = json_dumps(obj, JSON_COMPACT);
  assert_non_null(s);
  json_decref(obj);
  return s;
}

static void test_jsonl_stream(void **state) {
  (void)state;
  size_t page_len = 0;
  char *page6 = wn_test_read(PAGE(6), &page_len);
  char *good_html = wn_json_line(json_pack("{s:i, s:s, s:s#}", "id", 1, "site", SITE, "html",
                                           page6, (int)page_len));
  char *good_path = wn_json_line(
      json_pack("{s:s, s:s, s:s}", "id", "two", "url", "https://" SITE "/sport/x", "path",
                PAGE(7)));
  char *no_site = wn_json_line(json_pack("{s:i, s:s}", "id", 5, "html", "<p>a page</p>"));
  char *unknown = wn_json_line(
      json_pack("{s:s, s:s, s:s}", "id", "six", "site", "unknown.example", "path", PAGE(6)));
  wn_buf in;
  wn_buf_init(&in, 0);
  assert_int_equal(wn_buf_printf(&in, "%s\n%s\n%s\n%s\n%s\n%s\n", good_html, good_path,
                                 "this is not JSON", "[1, 2, 3]", no_site, unknown),
                   WN_OK);
  char in_path[PATH_MAX];
  wn_write_temp(in_path, sizeof in_path, "stream.jsonl", in.data, in.len);

  wn_run r;
  RUN(&r, in_path, "detect", "--store", g_store, "--jsonl");
  assert_int_equal(r.status, 0);
  /* stderr: the summary line alone. */
  assert_non_null(strstr(r.err, " line(s): "));
  assert_non_null(strchr(r.err, '\n'));
  assert_int_equal(strchr(r.err, '\n')[1], '\0');
  char *lines[16];
  assert_int_equal(wn_lines(r.out, r.out_len, lines, 16), 6);

  json_t *id1 = json_integer(1), *id2 = json_string("two"), *id5 = json_integer(5),
         *id6 = json_string("six");
  wn_expect_result_line(lines[0], id1, g_article6_content, g_article6_boilerplate, 0);
  wn_expect_result_line(lines[1], id2, g_article7_content, g_article7_boilerplate, 0);
  wn_expect_error_line(lines[2], json_null(), "not JSON");
  wn_expect_error_line(lines[3], json_null(), "not a JSON object");
  /* A page of no site: the single-page method serves it. */
  {
    json_t *obj = wn_parse_line(lines[4]);
    assert_true(json_equal(json_object_get(obj, "id"), id5));
    assert_true(json_is_null(json_object_get(obj, "site")));
    assert_string_equal(json_string_value(json_object_get(obj, "method")), "danag");
    assert_string_equal(json_string_value(json_object_get(obj, "fallback")), "no template");
    assert_non_null(json_string_value(json_object_get(obj, "text")));
    json_decref(obj);
  }
  /* A site without a template: served by the fallback, which says so. */
  {
    json_t *obj = wn_parse_line(lines[5]);
    assert_true(json_equal(json_object_get(obj, "id"), id6));
    assert_string_equal(json_string_value(json_object_get(obj, "method")), "danag");
    assert_string_equal(json_string_value(json_object_get(obj, "fallback")), "no template");
    wn_expect_contains(json_string_value(json_object_get(obj, "text")), g_article6_content[0]);
    json_decref(obj);
  }
  json_decref(id1);
  json_decref(id2);
  json_decref(id5);
  json_decref(id6);
  wn_run_free(&r);

  unlink(in_path);
  wn_buf_free(&in);
  free(good_html);
  free(good_path);
  free(no_site);
  free(unknown);
  free(page6);
}

static void test_jsonl_bad_lines_and_html(void **state) {
  (void)state;
  wn_buf in;
  wn_buf_init(&in, 0);
  char *lines_in[16];
  size_t n_in = 0;
  lines_in[n_in++] = wn_json_line(json_pack("{s:[i,s], s:s, s:s, s:s}", "id", 1, "a", "site",
                                            SITE, "html", "<p>x</p>", "path", PAGE(6)));
  lines_in[n_in++] = wn_json_line(json_pack("{s:b, s:s}", "id", 1, "site", SITE));
  lines_in[n_in++] = wn_json_line(
      json_pack("{s:f, s:s, s:s}", "id", 4.5, "site", SITE, "path", "/nonexistent/page.html"));
  lines_in[n_in++] = wn_json_line(
      json_pack("{s:s, s:s, s:s}", "id", "u", "url", "not a url", "html", "<p>x</p>"));
  lines_in[n_in++] = wn_json_line(json_pack("{s:i, s:i, s:s}", "id", 6, "site", 42, "html", "x"));
  lines_in[n_in++] = wn_json_line(json_pack("{s:{s:i}, s:s, s:s}", "id", "k", 7, "url",
                                            "https://" SITE "/a", "path", PAGE(7)));
  lines_in[n_in++] =
      wn_json_line(json_pack("{s:n, s:s, s:s}", "id", "site", SITE, "path", PAGE(6)));
  /* An empty line first, then the lines above; then a line past the cap,
   * a good line after it, and a last line without a newline. */
  assert_int_equal(wn_buf_append_char(&in, '\n'), WN_OK);
  for (size_t i = 0; i < n_in; i++) {
    assert_int_equal(wn_buf_printf(&in, "%s\n", lines_in[i]), WN_OK);
    free(lines_in[i]);
  }
  const char head[] = "{\"id\": 8, \"site\": \"" SITE "\", \"html\": \"";
  assert_int_equal(wn_buf_append_str(&in, head), WN_OK);
  size_t filler = (size_t)33 * 1024 * 1024;
  char *big = malloc(filler);
  assert_non_null(big);
  memset(big, 'a', filler);
  assert_int_equal(wn_buf_append(&in, big, filler), WN_OK);
  free(big);
  assert_int_equal(wn_buf_append_str(&in, "\"}\n"), WN_OK);
  char *after = wn_json_line(json_pack("{s:i, s:s, s:s}", "id", 9, "site", SITE, "path", PAGE(7)));
  char *last = wn_json_line(json_pack("{s:i, s:s, s:s}", "id", 10, "site", SITE, "path", PAGE(6)));
  assert_int_equal(wn_buf_printf(&in, "%s\n%s", after, last), WN_OK);
  free(after);
  free(last);
  char in_path[PATH_MAX];
  wn_write_temp(in_path, sizeof in_path, "bad.jsonl", in.data, in.len);
  wn_buf_free(&in);

  /* The stream as a FILE argument, with HTML output. */
  wn_run r;
  RUN(&r, NULL, "detect", "--store", g_store, "--jsonl", "--format", "html", in_path);
  assert_int_equal(r.status, 0);
  /* stderr: the summary line alone. */
  assert_non_null(strstr(r.err, " line(s): "));
  assert_non_null(strchr(r.err, '\n'));
  assert_int_equal(strchr(r.err, '\n')[1], '\0');
  char *lines[32];
  assert_int_equal(wn_lines(r.out, r.out_len, lines, 32), 11);

  json_t *id;
  wn_expect_error_line(lines[0], json_null(), "empty line");
  id = json_pack("[i,s]", 1, "a");
  wn_expect_error_line(lines[1], id, "not both");
  json_decref(id);
  wn_expect_error_line(lines[2], json_true(), "\"html\" (the page) or \"path\" (a file)");
  id = json_real(4.5);
  wn_expect_error_line(lines[3], id, "/nonexistent/page.html");
  json_decref(id);
  /* A URL that names no site is no error: the page is read without one. */
  json_t *obj = wn_parse_line(lines[4]);
  assert_null(json_object_get(obj, "error"));
  assert_string_equal(json_string_value(json_object_get(obj, "id")), "u");
  assert_true(json_is_null(json_object_get(obj, "site")));
  wn_expect_contains(json_string_value(json_object_get(obj, "site_error")), "not a URL");
  assert_string_equal(json_string_value(json_object_get(obj, "method")), "danag");
  assert_true(json_is_string(json_object_get(obj, "text")));
  json_decref(obj);
  id = json_integer(6);
  wn_expect_error_line(lines[5], id, "\"site\" must be a string");
  json_decref(id);
  id = json_pack("{s:i}", "k", 7);
  wn_expect_result_line(lines[6], id, g_article7_content, g_article7_boilerplate, 1);
  json_decref(id);
  wn_expect_result_line(lines[7], json_null(), g_article6_content, g_article6_boilerplate, 1);
  /* The line past the cap is reported without its id (it was not read)
   * and the stream picks up at the next line. */
  wn_expect_error_line(lines[8], json_null(), "longer than the cap");
  id = json_integer(9);
  wn_expect_result_line(lines[9], id, g_article7_content, g_article7_boilerplate, 1);
  json_decref(id);
  id = json_integer(10);
  wn_expect_result_line(lines[10], id, g_article6_content, g_article6_boilerplate, 1);
  json_decref(id);
  wn_run_free(&r);
  unlink(in_path);
}

static void test_jsonl_many_lines_two_sites(void **state) {
  (void)state;
  /* Lines of three sites interleaved (one without a template): the
   * template cache must hand each line its own site's template. */
  wn_run r;
  RUN(&r, NULL, "learn", "--store", g_store, "--site", "third.example", PAGE(2), PAGE(3),
      PAGE(4));
  assert_int_equal(r.status, 0);
  wn_run_free(&r);
  wn_buf in;
  wn_buf_init(&in, 0);
  const size_t n = 40;
  for (size_t i = 0; i < n; i++) {
    const char *site = i % 3 == 0 ? "third.example" : i % 3 == 1 ? SITE : "missing.example";
    char *line = wn_json_line(json_pack("{s:i, s:s, s:s}", "id", (int)i, "site", site, "path",
                                        i % 2 ? PAGE(6) : PAGE(7)));
    assert_int_equal(wn_buf_printf(&in, "%s\n", line), WN_OK);
    free(line);
  }
  char in_path[PATH_MAX];
  wn_write_temp(in_path, sizeof in_path, "many.jsonl", in.data, in.len);
  wn_buf_free(&in);
  RUN(&r, in_path, "detect", "--store", g_store, "--jsonl", "-");
  assert_int_equal(r.status, 0);
  char *lines[64];
  assert_int_equal(wn_lines(r.out, r.out_len, lines, 64), n);
  for (size_t i = 0; i < n; i++) {
    json_t *obj = wn_parse_line(lines[i]);
    assert_int_equal(json_integer_value(json_object_get(obj, "id")), (json_int_t)i);
    const char *site = json_string_value(json_object_get(obj, "site"));
    assert_string_equal(site, i % 3 == 0 ? "third.example" : i % 3 == 1 ? SITE
                                                                       : "missing.example");
    /* The site without a template is served by the fallback. */
    assert_string_equal(json_string_value(json_object_get(obj, "method")),
                        i % 3 == 2 ? "danag" : "template");
    wn_expect_contains(json_string_value(json_object_get(obj, "text")),
                       i % 2 ? "Council backs sea wall repairs"
                             : "Youth rowers take regional title");
    json_decref(obj);
  }
  wn_run_free(&r);

  unlink(in_path);

  /* A page given inline is UTF-8 (it is a JSON string), whatever its
   * <meta> says. (The decoder would also overrule this <meta>, as the bytes
   * are valid UTF-8; winnow says UTF-8 so that nothing is left to guess.) */
  size_t page_len = 0;
  char *page = wn_test_slurp(PAGE(6), &page_len);
  const char *meta = "<meta charset=\"utf-8\">", *name = "Margaret Oyelaran";
  const char *meta_p = strstr(page, meta), *name_p = strstr(page, name);
  assert_non_null(meta_p);
  assert_non_null(name_p);
  size_t meta_at = (size_t)(meta_p - page);
  size_t name_at = (size_t)(name_p - page);
  assert_true(meta_at < name_at);
  size_t after_meta = meta_at + strlen(meta);
  wn_buf changed;
  wn_buf_init(&changed, 0);
  assert_int_equal(wn_buf_append(&changed, page, meta_at), WN_OK);
  assert_int_equal(wn_buf_append_str(&changed, "<meta charset=\"windows-1252\">"), WN_OK);
  assert_int_equal(wn_buf_append(&changed, page + after_meta, name_at - after_meta), WN_OK);
  assert_int_equal(wn_buf_append_str(&changed, "Margar\xc3\xa9t \xc3\x93yelaran"), WN_OK);
  assert_int_equal(wn_buf_append_str(&changed, page + name_at + strlen(name)), WN_OK);
  free(page);
  char *line = wn_json_line(json_pack("{s:i, s:s, s:s#}", "id", 1, "site", SITE, "html",
                                      changed.data, (int)changed.len));
  wn_buf_free(&changed);
  wn_write_temp(in_path, sizeof in_path, "meta.jsonl", line, strlen(line));
  free(line);
  RUN(&r, in_path, "detect", "--store", g_store, "--jsonl");
  assert_int_equal(r.status, 0);
  json_t *obj = wn_parse_line(r.out);
  const char *text = json_string_value(json_object_get(obj, "text"));
  assert_non_null(text);
  wn_expect_contains(text, "Margar\xc3\xa9t \xc3\x93yelaran, who has lived on the parade");
  json_decref(obj);
  wn_run_free(&r);
  unlink(in_path);

  /* An input that cannot be opened: exit 1, nothing on stdout. */
  RUN(&r, NULL, "detect", "--store", g_store, "--jsonl", WN_FIXTURES "/site/none.jsonl");
  assert_int_equal(r.status, 1);
  assert_int_equal(r.out_len, 0);
  wn_expect_contains(r.err, "winnow: cannot open " WN_FIXTURES "/site/none.jsonl");
  wn_run_free(&r);

  /* An empty stream: no output, success. */
  RUN(&r, NULL, "detect", "--store", g_store, "--jsonl");
  assert_int_equal(r.status, 0);
  assert_int_equal(r.out_len, 0);
  wn_run_free(&r);
}


/* ---- single-page fallback, confidence and drift ------------------------------ */

static void test_detect_without_store(void **state) {
  (void)state;
  wn_run r;
  RUN(&r, NULL, "detect", PAGE(6));
  assert_int_equal(r.status, 0);
  assert_int_equal(r.err_len, 0);
  wn_expect_contains(r.out, g_article6_content[0]);
  wn_run_free(&r);
  RUN(&r, NULL, "detect", "--format", "json", "--fallback", "cnr", PAGE(6));
  assert_int_equal(r.status, 0);
  wn_expect_fallback_json(r.out, "cnr", "no template");
  json_t *root = json_loads(r.out, 0, NULL);
  assert_true(json_is_null(json_object_get(root, "site")));
  json_decref(root);
  wn_run_free(&r);
  /* A stream without a store: lines need no site. */
  char in_path[PATH_MAX];
  const char line[] = "{\"id\": 1, \"path\": \"" PAGE(7) "\"}\n";
  wn_write_temp(in_path, sizeof in_path, "nostore.jsonl", line, sizeof line - 1);
  RUN(&r, in_path, "detect", "--jsonl");
  assert_int_equal(r.status, 0);
  json_t *obj = json_loads(r.out, 0, NULL);
  assert_non_null(obj);
  assert_string_equal(json_string_value(json_object_get(obj, "method")), "danag");
  wn_expect_contains(json_string_value(json_object_get(obj, "text")), g_article7_content[0]);
  json_decref(obj);
  wn_run_free(&r);
  unlink(in_path);
}

/* A page of another site's layout, detected under the demo site's name:
 * it does not fit the template, the fallback serves it, the miss is
 * counted, and after enough such pages the site is reported drifting. */
static void test_low_confidence_and_drift(void **state) {
  (void)state;
  char store[PATH_MAX];
  wn_join(store, sizeof store, g_tmp, "drift-store");
  wn_run r;
  RUN(&r, NULL, "learn", "--store", store, "--site", SITE, PAGE(1), PAGE(2), PAGE(3), PAGE(4),
      PAGE(5));
  assert_int_equal(r.status, 0);
  wn_run_free(&r);
  const char *other = WN_FIXTURES "/nset-site/news/2015/article-7.html";
  RUN(&r, NULL, "detect", "--store", store, "--site", SITE, "--format", "json", other);
  assert_int_equal(r.status, 0);
  json_t *root = json_loads(r.out, 0, NULL);
  assert_non_null(root);
  assert_string_equal(json_string_value(json_object_get(root, "method")), "danag");
  assert_string_equal(json_string_value(json_object_get(root, "fallback")), "low confidence");
  double conf = json_real_value(json_object_get(root, "confidence"));
  assert_true(conf < 0.25); /* the default --min-confidence */
  wn_expect_contains(json_string_value(json_object_get(root, "text")),
                     "River levels fall after a week of rain");
  json_t *drift = json_object_get(root, "drift");
  assert_int_equal(json_integer_value(json_object_get(drift, "pages")), 1);
  assert_int_equal(json_integer_value(json_object_get(drift, "low")), 1);
  assert_true(json_is_false(json_object_get(drift, "drifting"))); /* too few pages yet */
  json_decref(root);
  wn_run_free(&r);
  /* --min-confidence 0 keeps the template whatever the fit. */
  RUN(&r, NULL, "detect", "--store", store, "--site", SITE, "--format", "json",
      "--min-confidence", "0", "--no-count", other);
  assert_int_equal(r.status, 0);
  root = json_loads(r.out, 0, NULL);
  assert_string_equal(json_string_value(json_object_get(root, "method")), "template");
  assert_null(json_object_get(root, "drift")); /* --no-count */
  json_decref(root);
  wn_run_free(&r);

  /* 9 pages that fit and 20 that do not, in one stream: counted at the
   * end, 21 of 30 low, past the 0.25 share: drifting, with a warning. */
  wn_buf in;
  wn_buf_init(&in, 0);
  for (int i = 0; i < 29; i++)
    assert_int_equal(wn_buf_printf(&in, "{\"id\": %d, \"site\": \"%s\", \"path\": \"%s\"}\n", i,
                                   SITE, i % 3 == 0 ? PAGE(6) : other),
                     WN_OK);
  char in_path[PATH_MAX];
  wn_write_temp(in_path, sizeof in_path, "drift.jsonl", in.data, in.len);
  RUN(&r, in_path, "detect", "--store", store, "--jsonl");
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.err, "warning: site " SITE " is drifting: 20 of its last 30 pages");
  wn_run_free(&r);
  RUN(&r, NULL, "sites", "--store", store);
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, SITE " generation=1 ");
  wn_expect_contains(r.out, "detected=30 low=20 recent=30/20 drifting=yes");
  wn_run_free(&r);
  RUN(&r, NULL, "sites", "--store", store, "--json", SITE);
  assert_int_equal(r.status, 0);
  root = json_loads(r.out, 0, NULL);
  assert_non_null(root);
  assert_true(json_is_true(json_object_get(root, "drifting")));
  assert_int_equal(json_array_size(json_object_get(root, "pages")), 5);
  json_decref(root);
  wn_run_free(&r);
  /* A stricter share: not drifting. */
  RUN(&r, NULL, "sites", "--store", store, "--drift-share", "0.9");
  wn_expect_contains(r.out, "drifting=no");
  wn_run_free(&r);
  /* Relearning starts the counters afresh. */
  RUN(&r, NULL, "learn", "--store", store, "--site", SITE, PAGE(1), PAGE(2), PAGE(3));
  assert_int_equal(r.status, 0);
  wn_run_free(&r);
  RUN(&r, NULL, "sites", "--store", store);
  wn_expect_contains(r.out, SITE " generation=2 ");
  wn_expect_contains(r.out, "detected=0 low=0 recent=0/0 drifting=no");
  wn_run_free(&r);
  /* A site that is not there. */
  RUN(&r, NULL, "sites", "--store", store, "nowhere.example");
  assert_int_equal(r.status, 1);
  wn_expect_contains(r.err, "nowhere.example");
  wn_run_free(&r);
  unlink(in_path);
  wn_buf_free(&in);
  wn_test_remove_tree(store);
}

/* ---- learn by crawling ----------------------------------------------------------- */

static void test_learn_url(void **state) {
  (void)state;
  wn_httpd *srv = wn_httpd_start(WN_FIXTURES "/nset-site");
  assert_non_null(srv);
  char url[256], store[PATH_MAX];
  wn_join(store, sizeof store, g_tmp, "crawl-store");
  wn_httpd_url(srv, "/news/2015/article-7.html", url, sizeof url);
  wn_run r;
  RUN(&r, NULL, "learn", "--store", store, "--n", "3", "--delay-ms", "0", url);
  if (r.status != 0)
    fail_msg("learn %s: %d %s", url, r.status, r.err);
  assert_int_equal(r.err_len, 0);
  wn_expect_contains(r.out, "key  used h=0 ");
  wn_expect_contains(r.out, "/news/2015/article-8.html");
  wn_expect_contains(r.out, "status=404");
  wn_expect_contains(r.out, "another layout");
  wn_expect_contains(r.out, "time: network ");
  wn_expect_contains(r.out, " ms, wait ");
  /* The site keeps the port: two servers on one host are two sites. */
  char site[300], learned_line[400];
  assert_int_equal(sscanf(url, "http://%255[^/]", site), 1);
  snprintf(learned_line, sizeof learned_line, "learned %s: pages=4 ", site);
  wn_expect_contains(r.out, learned_line);
  wn_run_free(&r);
  wn_err err;
  assert_null(wn_get_record(store, "127.0.0.1", &err));
  wn_store_record *rec = wn_get_record(store, site, &err);
  assert_non_null(rec);
  assert_int_equal(rec->n_pages, 4);
  assert_string_equal(rec->pages[0].name, url);
  /* The record keeps what a scheduler needs to relearn the site. */
  assert_int_equal(rec->format_version, 2);
  assert_string_equal(rec->key_page, url);
  assert_int_equal(rec->params.from_url, 1);
  assert_int_equal(rec->params.n, 3);
  assert_int_equal(rec->params.max_fetches, 12);
  assert_int_equal(rec->params.host_delay_ms, 0);
  for (uint32_t i = 0; i < rec->n_pages; i++) {
    assert_int_equal(rec->pages[i].http_status, 200);
    assert_true(rec->pages[i].bytes > 500);
    assert_memory_equal(rec->pages[i].name, "http://127.0.0.1:", 17);
  }
  wn_store_record_free(rec);
  /* A key page that fails: a clear error, exit 1, the old record kept. */
  wn_httpd_url(srv, "/news/2015/article-9.html", url, sizeof url);
  RUN(&r, NULL, "learn", "--store", store, "--delay-ms", "0", url);
  assert_int_equal(r.status, 1);
  wn_expect_contains(r.err, "winnow: key page ");
  wn_expect_contains(r.err, "404");
  wn_run_free(&r);
  rec = wn_get_record(store, site, &err);
  assert_non_null(rec);
  assert_int_equal(rec->generation, 1);
  wn_store_record_free(rec);
  /* Fewer good pages than asked: learned, with a warning. */
  wn_httpd_url(srv, "/news/2015/article-7.html", url, sizeof url);
  RUN(&r, NULL, "learn", "--store", store, "--n", "6", "--delay-ms", "0", "--site",
      "courier.example", url);
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.err, "warning: courier.example: only 3 of the 6 pages wanted");
  wn_expect_contains(r.out, "learned courier.example: pages=4 ");
  wn_run_free(&r);
  /* Nothing listens there: a network error. */
  RUN(&r, NULL, "learn", "--store", store, "--timeout-ms", "2000", "http://127.0.0.1:1/x.html");
  assert_int_equal(r.status, 1);
  wn_expect_contains(r.err, "winnow: key page http://127.0.0.1:1/x.html: ");
  wn_expect_contains(r.err, "could not connect");
  wn_expect_lacks(r.err, "robots.txt");
  wn_run_free(&r);
  /* What is not an http(s) URL says so (exit 1), and writes nothing. */
  static const char *const not_urls[][2] = {{"ftp://127.0.0.1/x", "ftp URLs are not supported"},
                                            {"file:///etc/passwd", "file URLs are not supported"},
                                            {"not a url", "not a URL"}};
  for (size_t i = 0; i < 3; i++) {
    char other[PATH_MAX];
    wn_join(other, sizeof other, g_tmp, "never-created");
    RUN(&r, NULL, "learn", "--store", other, not_urls[i][0]);
    assert_int_equal(r.status, 1);
    wn_expect_contains(r.err, not_urls[i][1]);
    wn_expect_lacks(r.err, "--site");
    wn_run_free(&r);
    struct stat st;
    assert_int_not_equal(stat(other, &st), 0);
  }
  wn_httpd_stop(srv);
  wn_test_remove_tree(store);
}

/* ---- what the library issue fixed, seen from the command line ---------------- */

/* An empty answer is never silent: a 0-byte file and a page whose text
 * lies past libxml2's nesting limit each say why, on stderr and in JSON's
 * "empty"; a page with content says nothing; the batch counts them. */
static void test_empty_never_silent(void **state) {
  (void)state;
  char zero[PATH_MAX], deep[PATH_MAX], tiny[PATH_MAX];
  wn_write_temp(zero, sizeof zero, "zero.html", "", 0);
  wn_buf b;
  wn_buf_init(&b, 0);
  assert_int_equal(wn_buf_append_str(&b, "<html><body>"), WN_OK);
  for (int i = 0; i < 5000; i++)
    assert_int_equal(wn_buf_append_str(&b, "<div>"), WN_OK);
  assert_int_equal(wn_buf_append_str(&b, "<p>The only text, far too deep to be read.</p>"), WN_OK);
  for (int i = 0; i < 5000; i++)
    assert_int_equal(wn_buf_append_str(&b, "</div>"), WN_OK);
  assert_int_equal(wn_buf_append_str(&b, "</body></html>"), WN_OK);
  wn_write_temp(deep, sizeof deep, "deep.html", b.data, b.len);
  wn_buf_free(&b);
  const char *page = "<html><body><p>A short page with one sentence.</p></body></html>";
  wn_write_temp(tiny, sizeof tiny, "tiny.html", page, strlen(page));

  wn_run r;
  RUN(&r, NULL, "detect", zero);
  assert_int_equal(r.status, 0);
  assert_int_equal(r.out_len, 0);
  wn_expect_contains(r.err, "zero.html");
  wn_expect_contains(r.err, ": no content: no text in the page");
  wn_run_free(&r);
  RUN(&r, NULL, "detect", "--format", "json", deep);
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "\"empty\": \"cut short: more than 256 nested elements\"");
  wn_expect_contains(r.err, ": no content: cut short: more than 256 nested elements");
  wn_run_free(&r);
  RUN(&r, NULL, "detect", "--format", "json", tiny);
  assert_int_equal(r.status, 0);
  assert_null(strstr(r.out, "\"empty\""));
  wn_expect_contains(r.out, "A short page with one sentence.");
  assert_int_equal(r.err_len, 0);
  wn_run_free(&r);
  RUN(&r, NULL, "detect", zero, deep, tiny);
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.err, "3 page(s): 3 detected (2 with no content), 0 failed");
  wn_run_free(&r);
}

/* `winnow detect URL`: the page is fetched as the crawler fetches (a real
 * server on 127.0.0.1): robots.txt obeyed unless --no-robots, an HTTP
 * error or a body that is not HTML is exit 1 with the reason, and the
 * site is the URL's, so a stored template serves it. */
static void test_detect_url(void **state) {
  (void)state;
  wn_httpd *srv = wn_httpd_start(WN_FIXTURES "/crawl/site");
  assert_non_null(srv);
  char url[256], secret[256], pdf[256], missing[256];
  assert_int_equal(wn_httpd_url(srv, "/article.html", url, sizeof url), 0);
  assert_int_equal(wn_httpd_url(srv, "/private/secret.html", secret, sizeof secret), 0);
  assert_int_equal(wn_httpd_url(srv, "/doc.pdf", pdf, sizeof pdf), 0);
  assert_int_equal(wn_httpd_url(srv, "/missing.html", missing, sizeof missing), 0);
  wn_run r;
  RUN(&r, NULL, "detect", "--format", "json", url);
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "Repetition compresses well");
  wn_expect_contains(r.out, "\"site\": \"127.0.0.1:");
  wn_run_free(&r);
  RUN(&r, NULL, "detect", secret);
  assert_int_equal(r.status, 1);
  wn_expect_contains(r.err, "robots.txt disallows /private/secret.html");
  wn_run_free(&r);
  RUN(&r, NULL, "detect", "--no-robots", secret);
  assert_int_equal(r.status, 0);
  assert_true(r.out_len > 0);
  wn_run_free(&r);
  RUN(&r, NULL, "detect", pdf);
  assert_int_equal(r.status, 1);
  wn_expect_contains(r.err, "not HTML");
  wn_run_free(&r);
  RUN(&r, NULL, "detect", missing);
  assert_int_equal(r.status, 1);
  wn_expect_contains(r.err, "HTTP 404");
  wn_run_free(&r);
  /* With a store the URL names the site: no --site needed. */
  RUN(&r, NULL, "detect", "--store", g_store, "--format", "json", url);
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "\"fallback\": \"no template\"");
  wn_run_free(&r);
  RUN(&r, NULL, "detect", "--no-robots", PAGE(1));
  assert_int_equal(r.status, 2);
  wn_expect_contains(r.err, "--no-robots is for a page given by its URL");
  wn_run_free(&r);
  wn_httpd_stop(srv);
}

static void test_cli_fixes(void **state) {
  (void)state;
  wn_run r;
  RUN(&r, NULL, "--version");
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "winnow 0.4.0\n");
  wn_run_free(&r);

  /* A page of another layout among the sample files: left out with a
   * warning naming it; --force keeps it. */
  char store[PATH_MAX];
  wn_join(store, sizeof store, g_tmp, "fixes-store");
  RUN(&r, NULL, "learn", "--store", store, "--site", "mixed.example", PAGE(1), PAGE(2), PAGE(3),
      WN_FIXTURES "/nset-site/about.html");
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.err, "warning: " WN_FIXTURES "/nset-site/about.html left out: ");
  wn_expect_contains(r.out, "learned mixed.example: pages=3 ");
  wn_run_free(&r);
  RUN(&r, NULL, "learn", "--store", store, "--site", "mixed.example", "--force", PAGE(1),
      PAGE(2), PAGE(3), WN_FIXTURES "/nset-site/about.html");
  assert_int_equal(r.status, 0);
  assert_int_equal(r.err_len, 0);
  wn_expect_contains(r.out, "learned mixed.example: pages=4 ");
  wn_run_free(&r);
  /* Pages that share only the document skeleton: refused, nothing stored. */
  RUN(&r, NULL, "learn", "--store", store, "--site", "empty.example", "--force",
      WN_FIXTURES "/learn-check/empty.html", WN_FIXTURES "/learn-check/empty.html");
  assert_int_equal(r.status, 1);
  wn_run_free(&r);
  RUN(&r, NULL, "sites", "--store", store, "empty.example");
  assert_int_equal(r.status, 1);
  wn_run_free(&r);

  /* Binary input is not HTML: exit 1, not "extracted" garbage. */
  RUN(&r, NULL, "detect", WN_FIXTURES "/learn-check/garbage.bin");
  assert_int_equal(r.status, 1);
  assert_int_equal(r.out_len, 0);
  wn_expect_contains(r.err, "not an HTML page");
  wn_run_free(&r);
  /* An empty page in HTML: empty output, no internal message, but never
   * silent: a warning says why there is nothing. */
  RUN(&r, NULL, "detect", "--format", "html", WN_FIXTURES "/learn-check/empty.html");
  assert_int_equal(r.status, 0);
  assert_int_equal(r.out_len, 0);
  wn_expect_contains(r.err, "empty.html: no content: no text in the page");
  wn_run_free(&r);
  /* The map size can be set; a bad one is a usage error. */
  RUN(&r, NULL, "sites", "--store", store, "--map-size", "2048");
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "mixed.example generation=2 ");
  wn_run_free(&r);
  RUN(&r, NULL, "sites", "--store", store, "--map-size", "0");
  assert_int_equal(r.status, 2);
  wn_expect_contains(r.err, "--map-size");
  wn_run_free(&r);
  /* The key page is kept and shown. */
  RUN(&r, NULL, "sites", "--store", store, "--pages", "mixed.example");
  assert_int_equal(r.status, 0);
  wn_expect_contains(r.out, "  key " PAGE(1) "\n");
  wn_run_free(&r);
  wn_test_remove_tree(store);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_help),
      cmocka_unit_test(test_usage_errors),
      cmocka_unit_test(test_learn_summary),
      cmocka_unit_test(test_learn_generation_and_failures_write_nothing),
      cmocka_unit_test(test_learn_selector),
      cmocka_unit_test(test_learn_missing_file_fresh_store),
      cmocka_unit_test(test_detect_text),
      cmocka_unit_test(test_detect_json),
      cmocka_unit_test(test_detect_html),
      cmocka_unit_test(test_detect_url_and_stdin),
      cmocka_unit_test(test_detect_url_crawl_forms),
      cmocka_unit_test(test_detect_failures),
      cmocka_unit_test(test_jsonl_stream),
      cmocka_unit_test(test_jsonl_bad_lines_and_html),
      cmocka_unit_test(test_jsonl_many_lines_two_sites),
      cmocka_unit_test(test_detect_without_store),
      cmocka_unit_test(test_low_confidence_and_drift),
      cmocka_unit_test(test_learn_url),
      cmocka_unit_test(test_cli_fixes),
      cmocka_unit_test(test_empty_never_silent),
      cmocka_unit_test(test_detect_url),
  };
  return cmocka_run_group_tests(tests, wn_group_setup, wn_group_teardown);
}
