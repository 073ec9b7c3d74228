/* tests/detect/test_metadata.c: a page's metadata from each form of
 * markup (meta, Open Graph, JSON-LD object / array / @graph, <time>,
 * canonical, lang), which form wins, dates as ISO 8601, and the metadata
 * in JSON and in Markdown front matter. */
#include "wn_test.h"

#include <stdlib.h>

#include <jansson.h>
#include <winnow/winnow.h>

#include "detect/detect.h"

static void read_meta_page(const char *html, const char *url, wn_detect_metadata *m,
                           int keep_xml) {
  wn_dom_page *page = NULL;
  wn_dom_options popts = {.keep_xml = keep_xml};
  wn_diag diag = {{0}};
  assert_int_equal(wn_dom_parse(html, strlen(html), &popts, &page, &diag), WN_OK);
  wn_err err = wn_detect_metadata_read(page, url, m, &diag);
  if (err)
    fail_msg("metadata: %s", wn_diag_message(&diag, err));
  wn_dom_free(page);
}

static void same_field(const char *field, const char *sax, const char *xml) {
  if ((sax == NULL) != (xml == NULL) || (sax && strcmp(sax, xml) != 0))
    fail_msg("%s: SAX page [%s], keep_xml page [%s]", field, sax ? sax : "(null)",
             xml ? xml : "(null)");
}

/* The metadata comes from the page's side table, which both builders
 * fill: a page built from SAX events (no libxml2 tree) reads the same. */
static void read_meta(const char *html, const char *url, wn_detect_metadata *m) {
  wn_detect_metadata x;
  read_meta_page(html, url, m, 0);
  read_meta_page(html, url, &x, 1);
  same_field("title", m->title, x.title);
  same_field("author", m->author, x.author);
  same_field("date", m->date, x.date);
  same_field("language", m->language, x.language);
  same_field("canonical_url", m->canonical_url, x.canonical_url);
  same_field("description", m->description, x.description);
  same_field("site_name", m->site_name, x.site_name);
  wn_detect_metadata_free(&x);
}

static void expect(const char *field, const char *got, const char *want) {
  if (!want && !got)
    return;
  if (!want || !got || strcmp(got, want) != 0)
    fail_msg("%s: want [%s], got [%s]", field, want ? want : "(null)", got ? got : "(null)");
}

static void test_meta_tags(void **state) {
  (void)state;
  wn_detect_metadata m;
  read_meta("<html lang=de><head><title>Page title | Site</title>"
            "<meta name=description content=' Plain   description '>"
            "<meta name=author content='Anna Berg'>"
            "<meta name=dc.date content='2019/11/02'>"
            "<link rel='alternate canonical' href='/a/b?x=1'>"
            "<meta name=application-name content=Appname>"
            "</head><body><p>text</p></body></html>",
            "https://site.example/a/c.html", &m);
  expect("title", m.title, "Page title"); /* the longest part of <title> */
  expect("author", m.author, "Anna Berg");
  expect("date", m.date, "2019-11-02");
  expect("language", m.language, "de");
  expect("canonical_url", m.canonical_url, "https://site.example/a/b?x=1");
  expect("description", m.description, "Plain description");
  expect("site_name", m.site_name, "Appname");
  wn_detect_metadata_free(&m);
}

static void test_open_graph(void **state) {
  (void)state;
  wn_detect_metadata m;
  /* Open Graph outranks <title> and the plain <meta>; article:author that
   * is a URL (a profile page) is no name. */
  read_meta("<head><title>Long title - Site</title>"
            "<meta property=og:title content='OG headline'>"
            "<meta property=og:description content='OG description'>"
            "<meta property=og:site_name content='OG Site'>"
            "<meta property=og:url content='https://og.example/story'>"
            "<meta property=og:locale content=en_GB>"
            "<meta property=article:published_time content='2022-02-03T04:05:06+00:00'>"
            "<meta property=article:author content='https://facebook.com/someone'>"
            "</head><body></body>",
            NULL, &m);
  expect("title", m.title, "OG headline");
  expect("author", m.author, NULL);
  expect("date", m.date, "2022-02-03T04:05:06+00:00");
  expect("language", m.language, "en-GB");
  expect("canonical_url", m.canonical_url, "https://og.example/story");
  expect("description", m.description, "OG description");
  expect("site_name", m.site_name, "OG Site");
  wn_detect_metadata_free(&m);
}

static void test_json_ld(void **state) {
  (void)state;
  wn_detect_metadata m;
  /* An object: author as a string. */
  read_meta("<head><script type='application/ld+json'>{\"@context\":\"https://schema.org\","
            "\"@type\":\"NewsArticle\",\"headline\":\"LD headline\",\"author\":\"Cai Wu\","
            "\"datePublished\":\"2020-07-08\",\"publisher\":{\"@type\":\"Organization\","
            "\"name\":\"LD Times\"}}</script>"
            "<meta property=og:title content='OG loses'></head><body></body>",
            NULL, &m);
  expect("title", m.title, "LD headline");
  expect("author", m.author, "Cai Wu");
  expect("date", m.date, "2020-07-08");
  expect("site_name", m.site_name, "LD Times");
  wn_detect_metadata_free(&m);

  /* An array, the article second; author an array of objects. */
  read_meta("<body><script type=\"application/ld+json\">[{\"@type\":\"BreadcrumbList\","
            "\"name\":\"crumbs\"},{\"@type\":\"BlogPosting\",\"name\":\"Array post\","
            "\"author\":[{\"@type\":\"Person\",\"name\":\"A One\"},{\"name\":\"B Two\"}],"
            "\"datePublished\":\"March 9, 2018\"}]</script></body>",
            NULL, &m);
  expect("title", m.title, "Array post");
  expect("author", m.author, "A One, B Two");
  expect("date", m.date, "2018-03-09");
  wn_detect_metadata_free(&m);

  /* @graph; author an object; a broken script before it is skipped. */
  read_meta("<head><script type=application/ld+json>{not json</script>"
            "<script type=application/ld+json>{\"@context\":\"https://schema.org\",\"@graph\":["
            "{\"@type\":\"WebSite\",\"name\":\"Graph Site\"},"
            "{\"@type\":[\"Article\"],\"headline\":\"Graph headline\","
            "\"author\":{\"@type\":\"Person\",\"name\":\"Dee Ess\"},"
            "\"datePublished\":\"2017-12-31T23:59:00Z\",\"inLanguage\":\"fr\"}]}</script>"
            "</head><body></body>",
            NULL, &m);
  expect("title", m.title, "Graph headline");
  expect("author", m.author, "Dee Ess");
  expect("date", m.date, "2017-12-31T23:59:00Z");
  expect("site_name", m.site_name, "Graph Site");
  expect("language", m.language, "fr");
  wn_detect_metadata_free(&m);
}

static void test_page_elements(void **state) {
  (void)state;
  wn_detect_metadata m;
  /* <time datetime>: the one marked as the publication date wins; the
   * <h1> inside <title> is the headline. */
  read_meta("<html xml:lang=pt><head><title>Big news today - The Paper</title></head><body>"
            "<h1>Big news today</h1><time datetime='2016-05-04'>updated</time>"
            "<time pubdate datetime='2015-01-02T03:04'>Jan 2</time></body></html>",
            NULL, &m);
  expect("title", m.title, "Big news today");
  expect("date", m.date, "2015-01-02T03:04");
  expect("language", m.language, "pt");
  wn_detect_metadata_free(&m);
  read_meta("<head><title>NEWS | World \xe2\x80\x94 Storm reaches the coast - Paper.com</title>"
            "</head><body><h1>Other</h1></body>", NULL, &m);
  expect("title", m.title, "Storm reaches the coast");
  wn_detect_metadata_free(&m);
  /* Nothing told: every field NULL. */
  read_meta("<p>just text</p>", NULL, &m);
  expect("title", m.title, NULL);
  expect("date", m.date, NULL);
  expect("canonical_url", m.canonical_url, NULL);
  wn_detect_metadata_free(&m);
  /* <base href> moves the canonical URL's base. */
  read_meta("<head><base href='https://cdn.example/x/'><link rel=canonical href=y.html></head>",
            "https://site.example/page", &m);
  expect("canonical_url", m.canonical_url, "https://cdn.example/x/y.html");
  wn_detect_metadata_free(&m);
}

static void test_dates(void **state) {
  (void)state;
  static const char *const cases[][2] = {
      {"2021-03-04", "2021-03-04"},
      {" 2021/03/04 ", "2021-03-04"},
      {"2021.03.04", "2021-03-04"},
      {"20210304", "2021-03-04"},
      {"2021-03-04T10:00:00+01:00", "2021-03-04T10:00:00+01:00"},
      {"2021-03-04 10:00:00Z", "2021-03-04T10:00:00Z"},
      {"2021-03-04T10:00:00.123-0500", "2021-03-04T10:00:00.123-0500"},
      {"2021-03-04T10:00 and more", "2021-03-04"},
      {"March 4, 2021", "2021-03-04"},
      {"4th Mar 2021", "2021-03-04"},
      {"Thu, 04 Mar 2021 10:00:00 GMT", "2021-03-04"},
      {"2020-02-29", "2020-02-29"},
      {"2021-02-29", NULL},
      {"2021-13-01", NULL},
      {"04/03/2021", NULL},
      {"yesterday", NULL},
      {"", NULL},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char out[40];
    int ok = wn_detect_date_iso(cases[k][0], out, sizeof out);
    if (ok != (cases[k][1] != NULL) || (ok && strcmp(out, cases[k][1]) != 0))
      fail_msg("date [%s]: want [%s], got %d [%s]", cases[k][0],
               cases[k][1] ? cases[k][1] : "(none)", ok, ok ? out : "");
  }
}

static const char *const g_page =
    "<html lang=en><head><title>T</title><meta name=author content='Q \"Quote\" Z'>"
    "<meta name=description content='line\\ one: #two'></head>"
    "<body><article><h1>T</h1><p>Some body text that is long enough to be the content of"
    " this page, and then some more words.</p></article></body></html>";

static void test_json_and_front_matter(void **state) {
  (void)state;
  wn_detector *d = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_detector_create(NULL, NULL, &d, &diag), WN_OK);
  wn_page_input in = {.bytes = g_page, .len = strlen(g_page), .url = "https://m.example/p"};
  wn_page_result *r = NULL;
  assert_int_equal(wn_detector_detect(d, &in, WN_WANT_TEXT | WN_WANT_METADATA, &r, &diag), WN_OK);
  const wn_page_metadata *m = wn_page_result_metadata(r);
  assert_non_null(m);
  assert_string_equal(m->title, "T");
  assert_string_equal(m->author, "Q \"Quote\" Z");
  assert_null(m->date);
  char *json = NULL;
  assert_int_equal(wn_page_result_json(r, NULL, 0, &json, &diag), WN_OK);
  json_t *root = json_loads(json, 0, NULL);
  assert_non_null(root);
  json_t *meta = json_object_get(root, "metadata");
  assert_true(json_is_object(meta));
  assert_int_equal(json_object_size(meta), 7);
  assert_string_equal(json_string_value(json_object_get(meta, "language")), "en");
  assert_true(json_is_null(json_object_get(meta, "date")));
  json_decref(root);
  free(json);
  wn_page_result_free(r);

  /* Front matter: quoted, escaped, first. */
  assert_int_equal(wn_detector_detect(d, &in, WN_WANT_MARKDOWN | WN_WANT_FRONT_MATTER, &r, &diag),
                   WN_OK);
  const char *md = wn_page_result_markdown(r, NULL);
  const char *want = "---\n"
                     "title: \"T\"\n"
                     "author: \"Q \\\"Quote\\\" Z\"\n"
                     "language: \"en\"\n"
                     "description: \"line\\\\ one: #two\"\n"
                     "---\n"
                     "\n";
  if (strncmp(md, want, strlen(want)) != 0)
    fail_msg("front matter:\n%s", md);
  wn_page_result_free(r);
  /* Text alone reads no metadata. */
  assert_int_equal(wn_detector_detect(d, &in, WN_WANT_TEXT, &r, &diag), WN_OK);
  assert_null(wn_page_result_metadata(r));
  json = NULL;
  assert_int_equal(wn_page_result_json(r, NULL, 0, &json, &diag), WN_OK);
  assert_null(strstr(json, "\"metadata\""));
  free(json);
  wn_page_result_free(r);
  wn_detector_destroy(d);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_meta_tags),      cmocka_unit_test(test_open_graph),
      cmocka_unit_test(test_json_ld),        cmocka_unit_test(test_page_elements),
      cmocka_unit_test(test_dates),          cmocka_unit_test(test_json_and_front_matter),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
