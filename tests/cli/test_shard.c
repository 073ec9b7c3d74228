/*
 * tests/cli/test_shard.c: learning past one process. Three sites' pages,
 * interleaved, go through `winnow detect --learn` once in one process and
 * once as two processes each taking its shard of the sites (--shard 0/2,
 * 1/2) into a store of its own; the two stores are exported and merged
 * (winnow-dump merge) in both orders. The merged stores equal the one
 * process's site for site (generation, sample pages, key page, the
 * template's tree), and the two outputs put back in input order equal its
 * output byte for byte. Merging a store again writes nothing: a record
 * only replaces an older one. And the pending samples as the command
 * line shows and drops them.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include <winnow/winnow.h>

#include "util/util.h"
#include "wn_run.h"

static const char *g_winnow;
static char g_dump[PATH_MAX];
static char g_tmp[PATH_MAX];

#define N_SITES 3
static char g_sites[N_SITES][64];

static void path_of(char *out, size_t size, const char *name) {
  int n = snprintf(out, size, "%s/%s", g_tmp, name);
  assert_true(n > 0 && (size_t)n < size);
}

/* Exit status of prog with args, its stdout into out_name. */
static int run_rc(const char *prog, const char *out_name, const char *const *args) {
  char out[PATH_MAX], err[PATH_MAX];
  path_of(out, sizeof out, out_name);
  path_of(err, sizeof err, "run.err");
  const char *argv[32];
  size_t k = 0;
  argv[k++] = prog;
  for (size_t i = 0; args[i]; i++)
    argv[k++] = args[i];
  argv[k] = NULL;
  return wn_test_wait(wn_test_spawn(argv, NULL, out, err, 120));
}

static void run_ok(const char *prog, const char *out_name, const char *const *args) {
  int rc = run_rc(prog, out_name, args);
  if (rc != 0) {
    char err[PATH_MAX];
    path_of(err, sizeof err, "run.err");
    char *text = wn_test_slurp(err, NULL);
    fail_msg("%s %s: exit %d: %s", prog, args[0], rc, text);
  }
}

/* Site names that fall into both shards of 2: the first two in shard 0
 * and 1, as the CLI hashes them (64-bit FNV-1a of the name). */
static void choose_sites(void) {
  static const char *const stems[N_SITES] = {"news", "blog", "docs"};
  for (int s = 0; s < N_SITES; s++) {
    for (int k = 0;; k++) {
      snprintf(g_sites[s], sizeof g_sites[s], "%s%d.shard.example", stems[s], k);
      uint64_t h = wn_hash_bytes(WN_HASH_SEED, g_sites[s], strlen(g_sites[s]));
      if (s == 2 || (int)(h % 2) == s)
        break;
    }
  }
}

/* The input: seven news articles, five blog posts and five manual pages,
 * interleaved, one JSON line each with its position as "id". */
static void write_input(const char *path) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  int id = 0;
  for (int i = 1; i <= 7; i++) {
    fprintf(f, "{\"id\":%d,\"url\":\"https://%s/news/story-%d.html\",\"path\":\"%s/site/article-%d.html\"}\n",
            id++, g_sites[0], i, WN_FIXTURES, i);
    if (i <= 5) {
      fprintf(f, "{\"id\":%d,\"url\":\"https://%s/2024/post-%d/\",\"path\":\"%s/places-blog/post-%d.html\"}\n",
              id++, g_sites[1], i, WN_FIXTURES, i);
      fprintf(f, "{\"id\":%d,\"url\":\"https://%s/manual/page-%d.html\",\"path\":\"%s/places-manual/page-%d.html\"}\n",
              id++, g_sites[2], i, WN_FIXTURES, i);
    }
  }
  assert_int_equal(fclose(f), 0);
}

static wn_store *open_store(const char *name) {
  char dir[PATH_MAX];
  path_of(dir, sizeof dir, name);
  wn_store_options o;
  wn_store_options_init(&o);
  o.read_only = 1;
  wn_store *store = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_store_open(dir, &o, &store, &diag);
  if (err)
    fail_msg("open %s: %s", name, wn_diag_message(&diag, err));
  return store;
}

/* The site in a and b: the same record but for when it was learned, and
 * the same template. */
static void expect_same_site(wn_store *a, wn_store *b, const char *site) {
  wn_site_info *x = NULL, *y = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_site_info_get(a, site, &x, &diag);
  if (err)
    fail_msg("%s in the one process's store: %s", site, wn_diag_message(&diag, err));
  if ((err = wn_site_info_get(b, site, &y, &diag)))
    fail_msg("%s in the merged store: %s", site, wn_diag_message(&diag, err));
  assert_int_equal(x->generation, y->generation);
  assert_string_equal(x->algorithm, y->algorithm);
  assert_string_equal(x->key_page, y->key_page);
  assert_int_equal(x->n_pages, y->n_pages);
  for (size_t i = 0; i < x->n_pages; i++)
    assert_string_equal(x->pages[i], y->pages[i]);
  assert_int_equal(x->template_nodes, y->template_nodes);
  assert_int_equal(x->template_bytes, y->template_bytes);
  assert_int_equal(x->layouts, y->layouts);
  wn_site_info_free(x);
  wn_site_info_free(y);
  char *tx = NULL, *ty = NULL;
  assert_int_equal(wn_site_template_json(a, site, NULL, 0, 0, &tx, NULL), WN_OK);
  assert_int_equal(wn_site_template_json(b, site, NULL, 0, 0, &ty, NULL), WN_OK);
  assert_string_equal(tx, ty);
  wn_free(tx);
  wn_free(ty);
}

typedef struct names {
  char list[16][64];
  int n;
} names;

static int add_name(const char *site, void *ctx) {
  names *k = ctx;
  if (k->n < 16)
    snprintf(k->list[k->n++], sizeof k->list[0], "%s", site);
  return 0;
}

static names sites_of(wn_store *store) {
  names k = {{{0}}, 0};
  assert_int_equal(wn_site_each(store, add_name, &k, NULL), WN_OK);
  return k;
}

static void test_sharded_learning_equals_one_process(void **state) {
  (void)state;
  choose_sites();
  char input[PATH_MAX], store[PATH_MAX];
  path_of(input, sizeof input, "input.jsonl");
  write_input(input);
  const char *stores[] = {"single", "w0", "w1"};
  const char *shard[] = {NULL, "0/2", "1/2"};
  for (int i = 0; i < 3; i++) {
    path_of(store, sizeof store, stores[i]);
    char out[32];
    snprintf(out, sizeof out, "%s.jsonl", stores[i]);
    const char *with[] = {"detect", "--store", store, "--learn", "--no-count", "--threads", "1",
                          "--shard", shard[i], "--jsonl", input, NULL};
    const char *without[] = {"detect", "--store", store,   "--learn", "--no-count",
                             "--threads", "1",    "--jsonl", input, NULL};
    run_ok(g_winnow, out, shard[i] ? with : without);
  }
  /* Export each worker's store, merge in both orders. */
  char dump0[PATH_MAX], dump1[PATH_MAX], w[PATH_MAX];
  path_of(dump0, sizeof dump0, "w0.wndump");
  path_of(dump1, sizeof dump1, "w1.wndump");
  path_of(w, sizeof w, "w0");
  run_ok(g_dump, "export0.out", (const char *const[]){"--store", w, "export", dump0, NULL});
  path_of(w, sizeof w, "w1");
  run_ok(g_dump, "export1.out", (const char *const[]){"--store", w, "export", dump1, NULL});
  char m01[PATH_MAX], m10[PATH_MAX];
  path_of(m01, sizeof m01, "merged01");
  path_of(m10, sizeof m10, "merged10");
  run_ok(g_dump, "merge01.out", (const char *const[]){"--store", m01, "merge", dump0, dump1, NULL});
  run_ok(g_dump, "merge10.out", (const char *const[]){"--store", m10, "merge", dump1, dump0, NULL});
  /* Merged again: nothing is newer. */
  run_ok(g_dump, "again.out", (const char *const[]){"--store", m01, "merge", dump0, NULL});
  char again[PATH_MAX];
  path_of(again, sizeof again, "again.out");
  char *text = wn_test_slurp(again, NULL);
  assert_non_null(strstr(text, "merged 0 newer record(s)"));
  free(text);

  wn_store *single = open_store("single"), *a = open_store("merged01"),
           *b = open_store("merged10");
  names want = sites_of(single);
  assert_int_equal(want.n, N_SITES); /* every site was learned */
  for (int m = 0; m < 2; m++) {
    names got = sites_of(m ? b : a);
    assert_int_equal(got.n, want.n);
    for (int i = 0; i < want.n; i++) {
      assert_string_equal(got.list[i], want.list[i]);
      expect_same_site(single, m ? b : a, want.list[i]);
    }
  }
  wn_store_close(single);
  wn_store_close(a);
  wn_store_close(b);

  /* The outputs, put back in input order by their "id". */
  char *lines[64] = {0};
  int n_lines = 0;
  for (int s = 1; s <= 2; s++) {
    char out[PATH_MAX];
    path_of(out, sizeof out, s == 1 ? "w0.jsonl" : "w1.jsonl");
    char *bytes = wn_test_slurp(out, NULL);
    for (char *line = strtok(bytes, "\n"); line; line = strtok(NULL, "\n")) {
      json_t *j = json_loads(line, 0, NULL);
      assert_non_null(j);
      json_int_t id = json_integer_value(json_object_get(j, "id"));
      json_decref(j);
      assert_true(id >= 0 && id < 64 && !lines[id]);
      lines[id] = strdup(line);
      n_lines++;
    }
    free(bytes);
  }
  char single_out[PATH_MAX];
  path_of(single_out, sizeof single_out, "single.jsonl");
  char *expect = wn_test_slurp(single_out, NULL);
  size_t at = 0;
  for (int i = 0; i < n_lines; i++) {
    assert_non_null(lines[i]);
    size_t len = strlen(lines[i]);
    assert_memory_equal(expect + at, lines[i], len);
    assert_int_equal(expect[at + len], '\n');
    at += len + 1;
    free(lines[i]);
  }
  assert_int_equal(expect[at], '\0');
  assert_int_equal(n_lines, 17);
  /* And the templates served: the sites' later pages. */
  assert_non_null(strstr(expect, "\"method\":\"template\""));
  free(expect);
}

static char *output_of(const char *out_name) {
  char out[PATH_MAX];
  path_of(out, sizeof out, out_name);
  return wn_test_slurp(out, NULL);
}

/* Pages of a site too few to learn from wait in the store: `winnow sites`
 * and `winnow-dump pending` show them, `drop-pending` forgets them. */
static void test_pending_shown_and_dropped(void **state) {
  (void)state;
  char input[PATH_MAX], store[PATH_MAX];
  path_of(input, sizeof input, "two.jsonl");
  path_of(store, sizeof store, "pending-store");
  FILE *f = fopen(input, "w");
  assert_non_null(f);
  for (int i = 1; i <= 2; i++)
    fprintf(f, "{\"url\":\"https://few.example/news/story-%d.html\",\"path\":\"%s/site/article-%d.html\"}\n",
            i, WN_FIXTURES, i);
  assert_int_equal(fclose(f), 0);
  run_ok(g_winnow, "two.out",
         (const char *const[]){"detect", "--store", store, "--learn", "--jsonl", input, NULL});
  run_ok(g_winnow, "sites.out", (const char *const[]){"sites", "--store", store, NULL});
  char *text = output_of("sites.out");
  if (!strstr(text, "few.example pending pages=2 bytes="))
    fail_msg("winnow sites: %s", text);
  free(text);
  run_ok(g_winnow, "site.out",
         (const char *const[]){"sites", "--store", store, "--json", "few.example", NULL});
  text = output_of("site.out");
  json_t *j = json_loads(text, 0, NULL);
  assert_non_null(j);
  assert_true(json_is_true(json_object_get(j, "pending")));
  assert_int_equal(json_integer_value(json_object_get(j, "pending_pages")), 2);
  json_decref(j);
  free(text);
  run_ok(g_dump, "pending.out", (const char *const[]){"--store", store, "pending", NULL});
  text = output_of("pending.out");
  assert_non_null(strstr(text, "few.example pages=2 "));
  free(text);
  run_ok(g_dump, "drop.out",
         (const char *const[]){"--store", store, "drop-pending", "few.example", NULL});
  text = output_of("drop.out");
  assert_non_null(strstr(text, "dropped the pending pages of 1 site(s)"));
  free(text);
  /* Gone: listed no more, dropped no more, and not a site of the store. */
  run_ok(g_dump, "pending2.out", (const char *const[]){"--store", store, "pending", NULL});
  text = output_of("pending2.out");
  assert_string_equal(text, "");
  free(text);
  assert_int_equal(run_rc(g_dump, "drop2.out",
                          (const char *const[]){"--store", store, "drop-pending", "few.example",
                                                NULL}),
                   WN_EXIT_INPUT);
  assert_int_equal(
      run_rc(g_winnow, "site2.out", (const char *const[]){"sites", "--store", store, "few.example", NULL}),
      WN_EXIT_INPUT);
}

static int setup(void **state) {
  (void)state;
  g_winnow = getenv("WN_WINNOW");
  if (!g_winnow)
    g_winnow = WN_BINARY_DIR "/winnow";
  snprintf(g_dump, sizeof g_dump, "%s/winnow-dump", WN_BINARY_DIR);
  return wn_test_temp_dir(g_tmp, sizeof g_tmp, "winnow-shard");
}

static int teardown(void **state) {
  (void)state;
  wn_test_remove_tree(g_tmp);
  return 0;
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sharded_learning_equals_one_process),
      cmocka_unit_test(test_pending_shown_and_dropped),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
