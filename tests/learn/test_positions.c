/* tests/learn/test_positions.c: the template positions where a site prints
 * an article's date and byline without markup (learn/positions.c), and
 * the date and author read there at detect time (detect/meta.c): the
 * fixture site tests/fixtures/meta-position prints them in a
 * <span class="date"> and a <p class="byline">, and a constant date in its
 * footer (<span class="stamp">) that must not be taken. */
#include "wn_test.h"

#include <stdlib.h>

#include <winnow/winnow.h>

#include "detect/detect.h"
#include "learn/learn.h"

#define DIR WN_FIXTURES "/meta-position/"

static const char *const train[] = {DIR "article-1.html", DIR "article-2.html",
                                    DIR "article-3.html"};

static uint32_t find_class(const wn_dom_page *page, const char *name, const char *cls) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  for (uint32_t i = 0; i < count; i++)
    if (strcmp(nodes[i].name, name) == 0 && nodes[i].cls && strcmp(nodes[i].cls, cls) == 0)
      return i;
  fail_msg("no %s.%s", name, cls);
  return WN_DOM_NONE;
}

/* Learning finds the span and the byline paragraph, not the footer's
 * constant date. */
static void test_learned_positions(void **state) {
  (void)state;
  wn_dom_page *pages[3];
  for (size_t i = 0; i < 3; i++)
    pages[i] = wn_test_parse_file(train[i]);
  wn_template *tpl = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_learn_pages((const wn_dom_page *const *)pages, 3, NULL, &tpl, NULL, &diag);
  if (err)
    fail_msg("learn: %s", wn_diag_message(&diag, err));
  wn_template_positions pos = wn_template_get_positions(tpl);
  assert_int_not_equal(pos.date_node, WN_DOM_NONE);
  assert_int_not_equal(pos.author_node, WN_DOM_NONE);
  const wn_template_node *t = wn_template_nodes(tpl, NULL);
  const wn_dom_node *n = wn_dom_nodes(pages[0], NULL);
  uint32_t date = find_class(pages[0], "span", "date");
  uint32_t byline = find_class(pages[0], "p", "byline");
  uint32_t stamp = find_class(pages[0], "span", "stamp");
  assert_int_equal(t[pos.date_node].sig, wn_template_fold(n[date].sig));
  assert_int_equal(t[pos.author_node].sig, wn_template_fold(n[byline].sig));
  assert_int_not_equal(t[pos.date_node].sig, wn_template_fold(n[stamp].sig));

  /* The page's own node at each position, through the ETDM. */
  wn_dom_page *page = wn_test_parse_file(DIR "article-4.html");
  wn_detect_metadata m = {0};
  assert_int_equal(wn_detect_metadata_positions(page, tpl, &m, &diag), WN_OK);
  assert_string_equal(m.date, "2003-06-02");
  assert_string_equal(m.author, "Carl Moss");
  wn_detect_metadata_free(&m);
  /* A field already given (by the markup) is kept. */
  m.date = strdup("2001-01-01");
  assert_int_equal(wn_detect_metadata_positions(page, tpl, &m, &diag), WN_OK);
  assert_string_equal(m.date, "2001-01-01");
  assert_string_equal(m.author, "Carl Moss");
  wn_detect_metadata_free(&m);
  wn_dom_free(page);
  wn_template_free(tpl);
  for (size_t i = 0; i < 3; i++)
    wn_dom_free(pages[i]);
}

/* Pages whose date element never changes, or holds no date on most
 * pages, give no position. */
static void test_no_position(void **state) {
  (void)state;
#define PAGE_FMT                                                                          \
  "<html><body><div class=nav><a href=/>Home</a></div>"                                 \
  "<span class=date>%s</span><p class=byline>%s</p>"                                    \
  "<div class=text><p>%s</p></div></body></html>"
  const char *dates[][3] = {{"March 1, 2003", "March 1, 2003", "March 1, 2003"},
                            {"May 5, 2003", "Breaking news", "Latest"}};
  const char *bylines[][3] = {{"By Desk", "By Desk", "By Desk"},
                              {"By Anna Berg", "Staff", "Wire"}};
  const char *texts[] = {"First story about a river and a town in spring.",
                         "Second story about a council and an old bridge.",
                         "Third story about a school and its new library."};
  for (size_t k = 0; k < 2; k++) {
    wn_dom_page *pages[3];
    for (size_t i = 0; i < 3; i++) {
      char html[1024];
      snprintf(html, sizeof html, PAGE_FMT, dates[k][i], bylines[k][i], texts[i]);
      pages[i] = wn_test_parse(html);
    }
    wn_template *tpl = NULL;
    assert_int_equal(wn_learn_pages((const wn_dom_page *const *)pages, 3, NULL, &tpl, NULL, NULL),
                     WN_OK);
    wn_template_positions pos = wn_template_get_positions(tpl);
    assert_int_equal(pos.date_node, WN_DOM_NONE);
    assert_int_equal(pos.author_node, WN_DOM_NONE);
    wn_template_free(tpl);
    for (size_t i = 0; i < 3; i++)
      wn_dom_free(pages[i]);
  }
}

static const wn_page_metadata *detect(wn_detector *d, const char *path, const char *insert,
                                      wn_page_result **r) {
  size_t len = 0;
  char *bytes = wn_test_read(path, &len);
  char *page = bytes;
  if (insert) { /* after <head> */
    size_t head = 0;
    while (head + 6 <= len && strncmp(bytes + head, "<head>", 6) != 0)
      head++;
    assert_true(head + 6 <= len);
    head += 6;
    page = malloc(len + strlen(insert) + 1);
    assert_non_null(page);
    memcpy(page, bytes, head);
    memcpy(page + head, insert, strlen(insert));
    memcpy(page + head + strlen(insert), bytes + head, len - head + 1);
    len += strlen(insert);
  }
  wn_page_input in = {.bytes = page, .len = len, .site = "planet.example"};
  wn_diag diag = {{0}};
  wn_err err = wn_detector_detect(d, &in, WN_WANT_TEXT | WN_WANT_METADATA, r, &diag);
  if (err)
    fail_msg("detect %s: %s", path, wn_diag_message(&diag, err));
  if (page != bytes)
    free(page);
  free(bytes);
  assert_string_equal(wn_page_result_method(*r), "template");
  return wn_page_result_metadata(*r);
}

/* Through the public API: learned from files, a later page's date and
 * author come from the positions; a page whose positions hold no date or
 * byline has none; markup still wins. */
static void test_detect_positions(void **state) {
  (void)state;
  wn_learned *learned = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_site_learn_files("planet.example", train, 3, NULL, &learned, &diag);
  if (err)
    fail_msg("learn: %s", wn_diag_message(&diag, err));
  wn_detector *d = NULL;
  assert_int_equal(wn_detector_create(NULL, NULL, &d, NULL), WN_OK);
  assert_int_equal(wn_detector_use(d, learned, NULL), WN_OK);

  wn_page_result *r = NULL;
  const wn_page_metadata *m = detect(d, DIR "article-4.html", NULL, &r);
  assert_string_equal(m->date, "2003-06-02");
  assert_string_equal(m->author, "Carl Moss");
  wn_page_result_free(r);

  m = detect(d, DIR "nodate.html", NULL, &r);
  assert_null(m->date);
  assert_null(m->author);
  wn_page_result_free(r);

  m = detect(d, DIR "article-4.html",
             "<meta name=\"date\" content=\"2003-06-01\"><meta name=\"author\" content=\"C. Moss\">",
             &r);
  assert_string_equal(m->date, "2003-06-01");
  assert_string_equal(m->author, "C. Moss");
  wn_page_result_free(r);

  /* The training pages too (article-3: a weekday and a section). */
  m = detect(d, DIR "article-3.html", NULL, &r);
  assert_string_equal(m->date, "2003-05-20");
  assert_string_equal(m->author, "Rosa Lind");
  wn_page_result_free(r);
  wn_detector_destroy(d);
  wn_learned_free(learned);
}

static void test_byline_and_text(void **state) {
  (void)state;
  char out[64];
  assert_true(wn_detect_byline_author("  By Jane Doe, Staff Writer", out, sizeof out));
  assert_string_equal(out, "Jane Doe");
  assert_true(wn_detect_byline_author("by: JOHN SMITH - Reuters", out, sizeof out));
  assert_string_equal(out, "JOHN SMITH");
  assert_false(wn_detect_byline_author("Bylines are short", out, sizeof out));
  assert_false(wn_detect_byline_author("By , 2003", out, sizeof out));
  assert_false(wn_detect_byline_author("Staff", out, sizeof out));
  assert_false(wn_detect_byline_author("By Jane Doe", out, 4)); /* does not fit */

  wn_dom_page *page = wn_test_parse("<p id=a>By <b>Jane</b> Doe</p><p id=b>x</p>");
  uint32_t a = wn_test_find(page, "p", "a");
  assert_int_equal(wn_detect_node_text(page, a, out, sizeof out), strlen("By Jane Doe"));
  assert_string_equal(out, "By Jane Doe");
  assert_int_equal(wn_detect_node_text(page, a, out, 8), 0); /* too long: not looked at */
  wn_dom_free(page);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_learned_positions),
      cmocka_unit_test(test_no_position),
      cmocka_unit_test(test_detect_positions),
      cmocka_unit_test(test_byline_and_text),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
