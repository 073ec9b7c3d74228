/* tests/detect/test_shapes.c: pages of many parts (area.c) and the page's
 * shape (shape.c), through the public detector as `winnow detect` runs:
 * a grid of product cards, an index of posts, a service page of sections
 * in <main> (and its story after it), a landing page of parts without it,
 * a product with its specification table (not its customers' reviews)
 * and a thread with its quotes (not its signatures) are read whole; an article followed by a carousel of teasers in the
 * same <main> keeps its article alone; page_type from what the
 * page states, its structure and its URL; JSON escapes U+2028/U+2029. */
#include "wn_test.h"

#include <stdlib.h>

#include <jansson.h>

#include "winnow/winnow.h"

typedef struct shaped {
  char *text;
  char *json;
  const char *page_type; /* static */
} shaped;

static void detect(const char *html, const char *url, shaped *out) {
  wn_detector_options o;
  wn_detector_options_init(&o);
  wn_detector *d = NULL;
  wn_diag diag = {{0}};
  assert_int_equal(wn_detector_create(NULL, &o, &d, &diag), WN_OK);
  wn_page_input in = {.bytes = html, .len = strlen(html), .url = url};
  wn_page_result *r = NULL;
  wn_err err = wn_detector_detect(d, &in, WN_WANT_TEXT, &r, &diag);
  if (err)
    fprintf(stderr, "%s\n", wn_diag_message(&diag, err));
  assert_int_equal(err, WN_OK);
  size_t len = 0;
  const char *t = wn_page_result_text(r, &len);
  out->text = strdup(t ? t : "");
  assert_non_null(out->text);
  out->page_type = wn_page_result_page_type(r);
  assert_non_null(out->page_type);
  out->json = NULL;
  assert_int_equal(wn_page_result_json(r, NULL, 0, &out->json, &diag), WN_OK);
  wn_page_result_free(r);
  wn_detector_destroy(d);
}

static void shaped_free(shaped *s) {
  free(s->text);
  wn_free(s->json);
}

/* Appends s to b (fails the test when it cannot). */
static void put(wn_buf *b, const char *s) { assert_int_equal(wn_buf_append_str(b, s), WN_OK); }

/* Each post's first 40 bytes are in text, once. */
static void expect_posts(const char *text, const char *const *posts, size_t n) {
  for (size_t k = 0; k < n; k++) {
    char want[48];
    snprintf(want, sizeof want, "%.40s", posts[k]);
    wn_test_expect(text, want, 1);
  }
}

/* The site's frame around every page below: a menu, a header, a footer. */
#define FRAME_TOP                                                                                \
  "<html><head><title>Shop</title>%s</head><body><header><a href=/>Home</a> <a "                 \
  "href=/about>About us</a> <a href=/help>Help and contact</a></header><nav><ul><li><a "         \
  "href=/a>Tents</a></li><li><a href=/b>Stoves</a></li><li><a href=/c>Lanterns</a></li><li><a "  \
  "href=/d>Sleeping bags</a></li></ul></nav>"
#define FRAME_END                                                                                \
  "<footer><p>Copyright the company, all rights reserved, terms of use and privacy policy "      \
  "apply to this site.</p></footer></body></html>"

static char *page(const char *head, const char *main_html) {
  size_t n = strlen(FRAME_TOP) + strlen(head) + strlen(main_html) + strlen(FRAME_END) + 1;
  char *s = malloc(n);
  assert_non_null(s);
  int w = snprintf(s, n, FRAME_TOP, head);
  assert_true(w > 0);
  strcat(s, main_html);
  strcat(s, FRAME_END);
  return s;
}

/* A grid of product cards: an intro line, then cards of a linked name, a
 * price and a rating. Density keeps the intro, or one card; the
 * grid is the content. */
static void test_grid_of_cards(void **state) {
  (void)state;
  static const char *names[] = {"Alder", "Birch", "Cedar", "Dogwood", "Elm", "Fir", "Gum",
                                "Hazel"};
  wn_buf b;
  wn_buf_init(&b, 1 << 20);
  put(&b, "<main><h1>Two-person tents</h1><p>Our range of light "
          "tents for two, tested on the hill before we sell "
          "them.</p><ul class=grid>");
  for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
    char card[512];
    snprintf(card, sizeof card,
             "<li class=card><a href=/p/%zu><img src=/i/%zu.jpg alt=''>%s Trail 2</a><span "
             "class=price>$%zu9.00</span><span>4.5 stars</span><button>Add to cart</button></li>",
             k, k, names[k], k + 1);
    put(&b, card);
  }
  put(&b, "</ul></main>");
  char *html = page("", b.data);
  shaped s;
  detect(html, "https://shop.example/tents/two-person", &s);
  for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
    char want[64];
    snprintf(want, sizeof want, "%s Trail 2", names[k]);
    wn_test_expect(s.text, want, 1);
  }
  assert_non_null(strstr(s.text, "Our range of light tents"));
  assert_null(strstr(s.text, "Sleeping bags")); /* the menu */
  assert_null(strstr(s.text, "Copyright"));     /* the footer */
  assert_string_equal(s.page_type, "collection"); /* prices in the records read whole */
  shaped_free(&s);
  free(html);
  wn_buf_free(&b);
}

/* A service page: <main> is a run of sections (hero, features, pricing,
 * questions) of like weight; every one is content. */
static void test_service_sections(void **state) {
  (void)state;
  const char *main_html =
      "<main><section><h1>Ledger for small workshops</h1><p>Invoices, stock and hours in one "
      "place.</p></section><section><h2>Features</h2><p>Send an invoice from your phone.</p><p>"
      "Count the stock you have left.</p><p>Track the hours each job took.</p></section><section>"
      "<h2>Pricing</h2><p>Free for one user; nine a month for a team of five.</p></section>"
      "<section><h2>Questions</h2><p>Can I export my data? Yes, as a spreadsheet, at any time."
      "</p><p>Is there a contract? No, stop when you like.</p></section></main>";
  char *html = page("", main_html);
  shaped s;
  detect(html, "https://ledger.example/", &s);
  static const char *want[] = {"Ledger for small workshops", "Send an invoice",
                               "Free for one user", "Can I export my data", "Is there a contract"};
  for (size_t k = 0; k < sizeof want / sizeof *want; k++)
    wn_test_expect(s.text, want[k], 1);
  assert_null(strstr(s.text, "Help and contact"));
  shaped_free(&s);
  free(html);
}

/* A landing page without <main> (reduced from a real one, words
 * replaced): the body is a run of parts (a hero, three features, a
 * customer's quote), set apart by strips of screenshots, then a list of
 * links and a newsletter box. Density keeps the first two features,
 * neither most of what it kept; the siblings that read as parts come too,
 * up to the link list, which ends the run (the box after it stays out).
 * The same page stating an article keeps what density kept. */
static void landing_page(wn_buf *b, const char *head) {
  put(b, "<html><head><title>Ledger</title>");
  put(b, head);
  put(b, "</head><body><header><a href=/>Home</a> <a href=/about>About us</a></header><nav><ul>"
         "<li><a href=/a>Pricing</a></li><li><a href=/b>Customers</a></li></ul></nav><div "
         "class=hero><h1>Ledger for small workshops</h1><p>Invoices, stock and the hours of "
         "every job kept in one place, on the bench and in the office.</p></div>");
  for (int strip = 0; strip < 2; strip++) {
    put(b, "<div class=shots>");
    for (int k = 0; k < 30; k++) {
      char shot[96];
      snprintf(shot, sizeof shot, "<div class=shot><img src=\"/img/%d-%d.png\" alt=\"\"></div>",
               strip, k);
      put(b, shot);
    }
    put(b, "</div>");
    if (strip == 0)
      put(b, "<div class=\"feature invoices\"><h2>Invoices from the bench</h2><p>Write an "
             "invoice on your phone while the customer is still at the counter, add the parts "
             "you used from stock, and send it before they have left the shop.</p><p>Paid "
             "invoices are matched with your bank statement each night, so the books are "
             "closed at the end of the month without an evening of typing.</p></div><div "
             "class=\"feature stock\"><h2>Stock that counts itself</h2><p>Every part an invoice "
             "uses is taken off the shelf count, and a list of what is running low is ready "
             "each Monday morning, sorted by supplier.</p><p>Order from the list in two taps; "
             "the supplier's prices are kept, so you see at once which order costs less this "
             "week than the last.</p></div>");
  }
  put(b, "<div class=\"feature hours\"><h2>Hours that bill themselves</h2><p>Start a timer when "
         "the job starts; the hours go on the invoice at the rate you set for each kind of "
         "work.</p></div><div class=quote><p>\"We closed our books in an afternoon for the "
         "first time in twelve years of trading,\" says a joiner from the valley.</p></div><div "
         "class=links><a href=/l1>Invoices</a> <a href=/l2>Stock</a> <a href=/l3>Hours</a> <a "
         "href=/l4>Reports</a> <a href=/l5>Pricing</a> <a href=/l6>Customers</a></div><div "
         "class=promo><p>Our newsletter comes once a month with tips for running a workshop; "
         "sign up on the page of your account settings.</p></div><footer><p>Copyright the "
         "company, all rights reserved.</p></footer></body></html>");
}

static void test_landing_parts(void **state) {
  (void)state;
  wn_buf b;
  wn_buf_init(&b, 1 << 20);
  landing_page(&b, "");
  shaped s;
  detect(b.data, "https://ledger.example/", &s);
  static const char *want[] = {"Invoices from the bench", "Stock that counts itself",
                               "Hours that bill themselves", "Start a timer",
                               "We closed our books"};
  for (size_t k = 0; k < sizeof want / sizeof *want; k++)
    wn_test_expect(s.text, want[k], 1);
  if (strstr(s.text, "newsletter") || strstr(s.text, "Copyright"))
    fail_msg("past the parts' run:\n%s", s.text);
  shaped_free(&s);
  wn_buf_free(&b);

  wn_buf_init(&b, 1 << 20);
  landing_page(&b, "<meta property=\"og:type\" content=\"article\">");
  detect(b.data, "https://ledger.example/", &s);
  wn_test_expect(s.text, "Stock that counts itself", 1);
  assert_null(strstr(s.text, "Hours that bill themselves"));
  shaped_free(&s);
  wn_buf_free(&b);
}

/* A service page whose <main> holds its sections and whose story, a
 * section of prose, stands after </main>: the page reads as a service
 * page, so Readability's reading, which finds the story, joins whole (the
 * recall leaning of a page of parts). Stating an article, the same page
 * is read without it. */
static void test_service_leans_to_recall(void **state) {
  (void)state;
  const char *body =
      "<main><section><h1>Ledger for small workshops</h1><p>Invoices, stock and hours in one "
      "place.</p></section><section><h2>Features</h2><p>Send an invoice from your phone.</p><p>"
      "Count the stock you have left.</p><p>Track the hours each job took.</p></section><section>"
      "<h2>Pricing</h2><p>Free for one user; nine a month for a team of five.</p></section>"
      "</main><section class=story><h2>Our story</h2><p>We started Ledger in a joiner's "
      "workshop in the valley, where the books were kept in a shoebox and closed once a year in "
      "a week of late evenings, and we wanted our evenings back.</p><p>Twelve years later the "
      "shoebox is gone, and four thousand workshops close their books each month in an "
      "afternoon, from the bench or from the office, with the same small team answering the "
      "phone.</p></section>";
  char *html = page("", body);
  shaped s;
  detect(html, "https://ledger.example/", &s);
  wn_test_expect(s.text, "Free for one user", 1);
  wn_test_expect(s.text, "We started Ledger in a joiner's workshop", 1);
  wn_test_expect(s.text, "Twelve years later the shoebox is gone", 1);
  assert_null(strstr(s.text, "Copyright"));
  shaped_free(&s);
  free(html);

  html = page("<meta property=\"og:type\" content=\"article\">", body);
  detect(html, "https://ledger.example/", &s);
  wn_test_expect(s.text, "Free for one user", 1);
  assert_null(strstr(s.text, "We started Ledger"));
  shaped_free(&s);
  free(html);
}

/* A product page: its name, price, description and specification table
 * are the content; the "You may also like" list of other products' links
 * is not. */
static void test_product_specs(void **state) {
  (void)state;
  const char *head =
      "<script type=\"application/ld+json\">{\"@context\":\"https://schema.org\",\"@type\":"
      "\"Product\",\"name\":\"Storm lantern\",\"offers\":{\"@type\":\"Offer\",\"price\":"
      "\"39.00\",\"priceCurrency\":\"USD\"}}</script>";
  const char *body =
      "<main><div class=product><div class=gallery><img src=a.jpg alt=\"\"></div><div class=info>"
      "<h1>Storm lantern</h1><div class=price>$39.00</div><div class=description><p>A lantern of "
      "brushed steel with a glass globe, lit by one wick that burns eight hours on a filling of "
      "lamp oil.</p><p>The handle folds flat and the base screws off for cleaning after a long "
      "season.</p></div><h2>Specifications</h2><table class=specs><tr><th>Height</th><td>28 "
      "cm</td></tr><tr><th>Weight</th><td>640 g</td></tr><tr><th>Fuel</th><td>Lamp oil or "
      "paraffin</td></tr><tr><th>Burn time</th><td>Eight hours per filling</td></tr><tr><th>"
      "Material</th><td>Brushed steel, borosilicate glass</td></tr></table></div></div><section "
      "class=related><h2>You may also like</h2><ul><li><a href=/p/1>Camp stove</a> <span>$59.00"
      "</span></li><li><a href=/p/2>Tent light</a> <span>$19.00</span></li><li><a href=/p/3>Wick "
      "set</a> <span>$4.00</span></li><li><a href=/p/4>Lamp oil, one litre</a> <span>$9.00</span>"
      "</li></ul></section></main>";
  char *html = page(head, body);
  shaped s;
  detect(html, "https://shop.example/p/storm-lantern", &s);
  static const char *want[] = {"Storm lantern", "$39.00", "brushed steel with a glass globe",
                               "handle folds flat", "Specifications", "640 g",
                               "Lamp oil or paraffin", "Brushed steel, borosilicate glass"};
  for (size_t k = 0; k < sizeof want / sizeof *want; k++)
    wn_test_expect(s.text, want[k], 1);
  if (strstr(s.text, "You may also like") || strstr(s.text, "Camp stove"))
    fail_msg("other products kept:\n%s", s.text);
  assert_string_equal(s.page_type, "product");
  shaped_free(&s);
  free(html);
}

/* A product page with its customers' reviews under the description (a
 * shelf unit, reduced from a shop's page, words replaced): the reviews,
 * longer than the description, are the product's comment thread and stay
 * out; a magazine's test of the same product, which states an article,
 * is its review and is read whole. */
static void product_with_reviews(wn_buf *b, const char *head) {
  put(b, "<html><head><title>Shelf</title>");
  put(b, head);
  put(b, "</head><body><header><a href=/>Home</a> <a href=/rooms>Rooms</a></header><main><div "
         "class=product><h1>Cubby shelf unit, white</h1><div class=price>$89.99</div><div "
         "class=details><p>The plain lines make the cubby shelf easy to place in any room, "
         "standing as a bookcase or lying as a sideboard under the window.</p><p>Add boxes or "
         "doors to the cubbies to hide what you would rather not show.</p><p>Max load per "
         "shelf 29 lb; wipe clean with a damp cloth.</p></div></div><section "
         "id=product-reviews class=\"reviews-section\"><h2>Reviews</h2>");
  static const char *reviews[] = {
      "Sturdy and smart. Robust, easy to put together in an evening, and the cubbies hold all "
      "the toys of two small children without bending at all.",
      "The sewist's dream storage. I set two units back to back as an island in my craft room "
      "and every fabric bin now has a home of its own.",
      "A full inch shorter than the two older units I own, so the tops do not line up, and I "
      "had to return it to the store on the following weekend.",
      "Perfect for everyday use. I put my television on it and use the lower cubbies for "
      "games, cables and the remote controls that used to vanish."};
  for (size_t k = 0; k < sizeof reviews / sizeof *reviews; k++) {
    put(b, "<div class=review-card><p class=review-text>");
    put(b, reviews[k]);
    put(b, "</p><span class=stars>5 stars</span></div>");
  }
  put(b, "</section></main><footer><p>Copyright the company.</p></footer></body></html>");
}

static void test_product_reviews(void **state) {
  (void)state;
  wn_buf b;
  wn_buf_init(&b, 1 << 20);
  product_with_reviews(&b, "<script type=\"application/ld+json\">{\"@context\":"
                           "\"https://schema.org\",\"@type\":\"Product\",\"name\":\"Cubby shelf "
                           "unit\"}</script>");
  shaped s;
  detect(b.data, "https://shop.example/p/cubby-shelf", &s);
  wn_test_expect(s.text, "easy to place in any room", 1);
  wn_test_expect(s.text, "Max load per shelf", 1);
  if (strstr(s.text, "Sturdy and smart") || strstr(s.text, "sewist's dream"))
    fail_msg("the reviews kept:\n%s", s.text);
  assert_string_equal(s.page_type, "product");
  shaped_free(&s);
  wn_buf_free(&b);

  wn_buf_init(&b, 1 << 20);
  product_with_reviews(&b, "<meta property=\"og:type\" content=\"article\"><script "
                           "type=\"application/ld+json\">{\"@context\":\"https://schema.org\","
                           "\"@type\":\"Product\",\"name\":\"Cubby shelf unit\"}</script>");
  detect(b.data, "https://magazine.example/tests/cubby-shelf", &s);
  wn_test_expect(s.text, "Sturdy and smart", 1);
  wn_test_expect(s.text, "sewist's dream", 1);
  shaped_free(&s);
  wn_buf_free(&b);
}

/* A service page whose only <article> is a teaser of the company's blog
 * beside the page's own text: the hint's article is read first, and the
 * page's text, which Readability's reading and the area find outside it,
 * comes too. */
static void test_teaser_article(void **state) {
  (void)state;
  const char *body =
      "<div class=container><div class=page-content><h1>Affordable movers in the valley</h1>"
      "<p>Want an affordable move across town or across the state? Our crews pack, load and "
      "drive for the lowest price in the region, with no hidden fees on the day.</p><p>Every "
      "quote is free and fixed: we come to your home, count the rooms and the boxes, and the "
      "price we write down is the price you pay when the last box is in.</p><p>We store what "
      "does not fit yet in our heated warehouse for as long as you need, and bring it when "
      "you call, at any hour of a working day.</p><p>Families, students and offices have moved "
      "with us for thirty years, and most of them found us because a neighbour did.</p></div>"
      "<div class=sidebar><h3>From our blog</h3><article><h2><a href=/blog/award>Movers of the "
      "year</a></h2><p>Our crews were named movers of the year at the convention.</p><a "
      "href=/blog/award>Continue reading</a></article></div></div>";
  char *html = page("", body);
  shaped s;
  detect(html, "https://movers.example/affordable-movers/", &s);
  static const char *want[] = {"Want an affordable move", "Every quote is free",
                               "We store what does not fit", "Families, students and offices"};
  for (size_t k = 0; k < sizeof want / sizeof *want; k++)
    wn_test_expect(s.text, want[k], 1);
  shaped_free(&s);
  free(html);
}

/* An article followed, in the same <main>, by a carousel of teasers that
 * are all links: more text than the article, but link text; the article
 * stays alone (the area's second measure). */
static void test_article_beside_teasers(void **state) {
  (void)state;
  wn_buf b;
  wn_buf_init(&b, 1 << 20);
  put(&b, "<main><article><h1>The harbour wall is rebuilt</h1><p>Work on the harbour wall "
          "began on Monday, after a winter of storms had torn two gaps in it, and the "
          "council expects the repairs to last until the end of the summer season.</p><p>"
          "Fishermen said the gaps had made the harbour unsafe in an easterly wind, and "
          "several boats had been moved to the next town while the repairs were planned.</p>"
          "</article><div class=carousel>");
  for (int k = 0; k < 16; k++) {
    char t[256];
    snprintf(t, sizeof t,
             "<div class=slide><a href=/s/%d>Another story number %d about the town and its "
             "people and their boats</a></div>",
             k, k);
    put(&b, t);
  }
  put(&b, "</div></main>");
  char *html = page("<meta property=\"og:type\" content=\"article\">", b.data);
  shaped s;
  detect(html, "https://news.example/2025/harbour-wall", &s);
  assert_non_null(strstr(s.text, "Work on the harbour wall"));
  assert_non_null(strstr(s.text, "Fishermen said"));
  assert_null(strstr(s.text, "Another story number"));
  assert_string_equal(s.page_type, "article");
  shaped_free(&s);
  free(html);
  wn_buf_free(&b);
}

/* A list page whose content is a table of records (a list of prize
 * winners): an intro, then a table with a header row and a row a year,
 * each winner's name linked to a page of its own. Mostly link text, as a
 * carousel of teasers is, but the links are the records' fields: the
 * table is the content and stays with its intro. */
static void test_table_of_records(void **state) {
  (void)state;
  wn_buf b;
  wn_buf_init(&b, 1 << 20);
  put(&b, "<main><h1>List of prize winners</h1><p>The prize has been given every year since "
          "the society was founded, for work in the sciences and in letters, by a jury that "
          "changes each decade and meets in the spring.</p><p>In years when the jury could "
          "not agree, no prize was given and the money went back to the society's fund.</p>"
          "<table class=wikitable><tr><th>Year</th><th>Sciences</th><th>Letters</th></tr>");
  for (int k = 0; k < 30; k++) {
    char t[512];
    snprintf(t, sizeof t,
             "<tr><td>%d</td><td><a href=/w/s%d>Winner of the sciences prize number %d</a></td>"
             "<td><a href=/w/l%d>Winner of the letters prize number %d</a></td></tr>",
             1950 + k, k, k, k, k);
    put(&b, t);
  }
  put(&b, "</table></main>");
  char *html = page("", b.data);
  shaped s;
  detect(html, "https://prize.example/wiki/List_of_winners", &s);
  assert_non_null(strstr(s.text, "The prize has been given"));
  assert_non_null(strstr(s.text, "Winner of the sciences prize number 3"));
  assert_non_null(strstr(s.text, "Winner of the letters prize number 29"));
  assert_null(strstr(s.text, "Sleeping bags"));
  shaped_free(&s);
  free(html);
  wn_buf_free(&b);
}

/* A club's list of trails built with a page builder (reduced from a real
 * one, words replaced): no <main>, a heading and an intro, then a run of
 * cards its builder named as calls to action ("cta"), each a trail's
 * name, its details and a button. The name says box; a run of like boxes
 * that holds most of the text is the page's parts. The promotion bar's
 * slides, like boxes too, stay out: the bar around them is a box. */
static void test_named_cards(void **state) {
  (void)state;
  wn_buf b;
  wn_buf_init(&b, 1 << 20);
  put(&b, "<html><head><title>Trails</title></head><body><div class=\"promo-bar\">");
  for (int k = 0; k < 3; k++)
    put(&b, "<div class=\"promo-bar__slide\">Free jerseys</div>");
  put(&b, "</div><header><nav><ul>");
  for (int k = 0; k < 20; k++) {
    char t[128];
    snprintf(t, sizeof t, "<li><a href=/m%d>Menu entry %d</a></li>", k, k);
    put(&b, t);
  }
  put(&b, "</ul></nav></header><div class=wrap><div class=intro><h1>Trails</h1><p>The club "
          "builds, maintains and rides the trails of the county's parks, and it is dedicated "
          "to advocating for them.</p></div><div class=list>");
  for (int k = 0; k < 8; k++) {
    char t[512];
    snprintf(t, sizeof t,
             "<div class=\"widget cta cta--image-left\"><div class=cta-content><h2>Trail "
             "number %d</h2><div class=cta-description>Difficulty: hard<br>Length: %d "
             "miles<br>Steward: Mr %d</div><a class=cta-button href=/t/%d>Trail map</a></div>"
             "</div>",
             k, 3 + k, k, k);
    put(&b, t);
  }
  put(&b, "</div></div><footer><p>Copyright the club, all rights reserved.</p></footer>"
          "</body></html>");
  shaped s;
  detect(b.data, "https://club.example/trails/", &s);
  wn_test_expect(s.text, "The club builds", 1);
  wn_test_expect(s.text, "Trail number 0", 1);
  wn_test_expect(s.text, "Trail number 7", 1);
  assert_non_null(strstr(s.text, "Length: 10 miles"));
  assert_null(strstr(s.text, "Free jerseys"));
  assert_null(strstr(s.text, "Menu entry"));
  assert_null(strstr(s.text, "Copyright"));
  shaped_free(&s);
  wn_buf_free(&b);
}

/* A news site's front page (reduced from a real one, words replaced): a
 * page <header> whose topics menu holds a featured talk's summary (the
 * page's longest prose, so density keeps it), and a <main> of cards whose
 * headline and author are links, each followed by its date. What the
 * readings kept in the header says nothing of <main>: the cards come in
 * (the area adds to what the readings kept; the menu stays out). */
static void test_main_beside_header(void **state) {
  (void)state;
  wn_buf b;
  wn_buf_init(&b, 1 << 20);
  put(&b, "<html><head><title>Home</title></head><body><header><nav><ul><li><a href=/dev>"
          "Development</a><div class=dropdown><h3>Featured in Development</h3><p>A speaker "
          "discusses how a language grew from writing phone apps into a tool for secure "
          "services at a large scale, why having no garbage collector removes the long tail "
          "of latency, and how its abstractions cost nothing at run time. He shares the "
          "plan for adopting it step by step and shows how it now works with two other "
          "languages' ecosystems.</p><a href=/dev/all>All in development</a></div></li>");
  for (int k = 0; k < 6; k++) {
    char t[128];
    snprintf(t, sizeof t, "<li><a href=/topic/%d>Topic %d</a></li>", k, k);
    put(&b, t);
  }
  put(&b, "</ul></nav></header><main><h1>Homepage</h1><section><h2><a href=/news/>News</a>"
          "</h2><ul class=cards>");
  for (int k = 0; k < 8; k++) {
    char t[512];
    snprintf(t, sizeof t,
             "<li><div class=card><h4><a href=/news/%d>Headline number %d about a cloud "
             "service that now runs queries across regions</a></h4><div class=card-footer>"
             "<a href=/profile/%d>Author Name %d</a> <span class=date>on <span>Mar 0%d"
             "</span></span></div></div></li>",
             k, k, k, k, k + 1);
    put(&b, t);
  }
  put(&b, "</ul></section></main><footer><p>Copyright the news site.</p></footer>"
          "</body></html>");
  shaped s;
  detect(b.data, "https://news.example/", &s);
  assert_non_null(strstr(s.text, "Headline number 0 about"));
  assert_non_null(strstr(s.text, "Headline number 7 about"));
  assert_null(strstr(s.text, "Topic 3"));
  assert_null(strstr(s.text, "Copyright"));
  shaped_free(&s);
  wn_buf_free(&b);
}

/* A section front (reduced from a real one, words replaced): a heading
 * and a line, then cards whose headline and summary are one link each,
 * no <main>. Density keeps the heading; the cards hold no text outside
 * links, so the measure that keeps an article beside teasers would refuse
 * them; what was kept is less than one card, so it is no article, and
 * the cards are read. The same page stating an article keeps its
 * stated story alone. */
static void front_page(wn_buf *b) {
  static const char *heads[] = {"Renting a boat could cost you more than the fare",
                                "What to know about the ferry app both towns use",
                                "Harbour fees rise for the second year in a row",
                                "The last boatyard on the river closes its doors",
                                "A new slipway opens for small boats in spring",
                                "Volunteers clean the estuary after the storm"};
  wn_buf_init(b, 1 << 20);
  put(b, "<div id=app><section><div><h1>Boat hire news and coverage</h1><p>Stay up to date "
         "with our boat hire coverage</p><hr></div></section><section><div><div "
         "class=list>");
  for (size_t k = 0; k < sizeof heads / sizeof *heads; k++) {
    char card[1024];
    snprintf(card, sizeof card,
             "<div class=card><div class=text><a href=/story/%zu><h2>%s</h2><p>Our reporter "
             "spent a week on the water with the crews and owners, and found that story "
             "number %zu is not the first of its kind this year.</p></a></div><div "
             "class=pic><a href=/story/%zu><img src=/i/%zu.jpg alt=''></a></div></div><hr>",
             k, heads[k], k, k, k);
    put(b, card);
  }
  put(b, "</div></div></div></section></div>");
}

static void test_cards_linked_whole(void **state) {
  (void)state;
  wn_buf b;
  front_page(&b);
  char *html = page("", b.data);
  shaped s;
  detect(html, "https://news.example/boat-hire/1823/", &s);
  wn_test_expect(s.text, "Renting a boat could cost you more", 1);
  wn_test_expect(s.text, "Volunteers clean the estuary", 1);
  wn_test_expect(s.text, "story number 5 is not the first", 1);
  wn_test_expect(s.text, "Sleeping bags", 0); /* the menu */
  shaped_free(&s);
  free(html);
  /* Stated as an article, the cards stay teasers beside it. */
  html = page("<meta property=\"og:type\" content=\"article\">", b.data);
  detect(html, "https://news.example/boat-hire/1823/", &s);
  assert_null(strstr(s.text, "is not the first of its kind"));
  shaped_free(&s);
  free(html);
  wn_buf_free(&b);
}

/* A best sellers page (reduced from a real one, words replaced): no
 * <main>, a heading, then a list whose items each wrap their card in a
 * <span> and a <div> (the card's name and price are links). The items
 * are records by their cores, alike item to item; read whole. */
static void test_wrapped_cards(void **state) {
  (void)state;
  static const char *names[] = {"Lantern", "Kettle", "Compass", "Whistle", "Torch",
                                "Blanket", "Flask", "Rope", "Stool", "Tarp"};
  wn_buf b;
  wn_buf_init(&b, 1 << 20);
  put(&b, "<div id=page><div id=top><h1>Best sellers</h1><p>Our most popular goods "
          "based on sales, updated every hour.</p></div><div id=list><ol class=grid>");
  for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
    char card[1024];
    snprintf(card, sizeof card,
             "<li class=item><span class=cell><div class=card><a href=/p/%zu><img "
             "src=/i/%zu.jpg alt=''><div class=name>Camp %s, steel, folding, for two "
             "people and a dog, with a carry bag, spare parts and a guide to its use on "
             "the trail, sold by the maker and sent the next day</div></a><div "
             "class=stars>4.%zu out of 5 stars, 1,204 ratings</div><a "
             "href=/p/%zu><span class=price>$%zu.99</span></a></div></span></li>",
             k, k, names[k], k, k, 10 + k);
    put(&b, card);
  }
  put(&b, "</ol></div></div>");
  char *html = page("", b.data);
  shaped s;
  detect(html, "https://shop.example/best-sellers/camping", &s);
  wn_test_expect(s.text, "Camp Lantern, steel", 1);
  wn_test_expect(s.text, "Camp Tarp, steel", 1);
  wn_test_expect(s.text, "Our most popular goods", 1);
  wn_test_expect(s.text, "Sleeping bags", 0); /* the menu */
  assert_string_equal(s.page_type, "collection");
  shaped_free(&s);
  free(html);
  wn_buf_free(&b);
}

/* A shop's category page (reduced from a real one, words replaced): a
 * heading, then a list of products, each one link whole (name, colours,
 * size, price). A shop's code writes each item's own classes after the
 * first ("first", "last", "sale", its post number): the items are
 * records by their first class token, not by the whole attribute. The
 * page states a CollectionPage in JSON-LD and og:type article (an SEO
 * plugin's default on every page): the list statement decides, and the
 * products are read as cards, not as teasers beside an article. */
static void test_cards_classes_vary(void **state) {
  (void)state;
  static const char *names[] = {"Small cup", "Tall cup", "Wide mug", "Travel mug", "Tumbler",
                                "Flask", "Bottle", "Jug"};
  static const char *extra[] = {"first", "", "sale", "last outofstock"};
  wn_buf b;
  wn_buf_init(&b, 1 << 20);
  put(&b, "<div id=content><h1>Reusable cups</h1><p>Every cup is made by hand.</p><ul "
          "class=\"products columns-4\">");
  for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
    char card[1024];
    snprintf(card, sizeof card,
             "<li class=\"product type-product post-%zu status-publish %s instock\"><a "
             "href=/p/%zu class=\"loop-link\"><img src=/i/%zu.jpg alt=''><h2>%s of glass "
             "%zu</h2><div class=swatches><span>Amber</span><span>Bluestone</span><span>"
             "Flaxen</span><span>Lilac</span><span>Meadowlark</span><span>Mood indigo</span>"
             "<span>Ruby wine</span><span>Sandstone</span><span>Strawberry</span><span>"
             "Terracotta</span><span>Vintage blue</span><span>Violet</span></div><span "
             "class=size>"
             "%zu ounces, %zu millilitres</span><span class=price>$%zu.95</span></a></li>",
             2900 + 17 * k, extra[k % 4], k, k, names[k], k, 4 + k, 118 + 30 * k, 20 + k);
    put(&b, card);
  }
  put(&b, "</ul></div>");
  char *html = page("<meta property=\"og:type\" content=\"article\"><script "
                    "type=\"application/ld+json\">{\"@context\":\"https://schema.org\","
                    "\"@type\":\"CollectionPage\",\"name\":\"Reusable cups\"}</script>",
                    b.data);
  shaped s;
  detect(html, "https://shop.example/cups/", &s);
  wn_test_expect(s.text, "Small cup of glass 0", 1);
  wn_test_expect(s.text, "Jug of glass 7", 1);
  wn_test_expect(s.text, "Tumbler of glass 4", 1);
  wn_test_expect(s.text, "Sleeping bags", 0); /* the menu */
  shaped_free(&s);
  free(html);
  wn_buf_free(&b);
}

/* A threaded forum (reduced from a real one, words replaced): a question
 * of several paragraphs, then answers in a section named for comments,
 * each reply nested in a <div class=indented> after the answer it
 * answers, so that no three answers stand side by side. The page states
 * a DiscussionForumPosting. The answers and their replies are one run of
 * records (a reply's container joins the run), and on a page that states
 * a thread they are its content even though the question density kept
 * is longer than an answer. */
static void test_threaded_replies(void **state) {
  (void)state;
  static const char *answers[] = {
      "Consulting pays well in the first years, but the hours are long and the travel wears on "
      "you after the second year.",
      "I disagree, the exit options are what make it worth it, you can move into industry at a "
      "level you would not reach otherwise.",
      "Both are true, it depends on the firm and on the office you join more than on the title.",
      "Talk to people two years ahead of you at the firms you are looking at, they will tell "
      "you what the brochures leave out.",
      "If you like solving a new problem every few months it is a good fit, if you want to "
      "build one thing for years it is not.",
      "The pay gap to banking has closed at the junior levels, so choose on the work itself, "
      "and on the people you would spend your evenings with.",
      "Ask each firm how many of last year's analysts are still there, the number says more "
      "than any interview about how the place treats its juniors.",
      "I left after three years and do not regret a day of it, but I would not do a fourth, "
      "the learning curve flattens and the travel does not.",
      "Whatever you pick, negotiate the start date, a month off between degree and job is the "
      "last long break you will get for a while.",
      "Industry is underrated, you own your work and see it ship, which no slide deck gives "
      "you, and the hours leave room for a life.",
  };
  wn_buf b;
  wn_buf_init(&b, 1 << 20);
  put(&b, "<div id=page><div class=region><article class=forum><h1>Is consulting worth it?</h1>"
          "<div class=content><p>I have two offers for the autumn, one from a consulting firm "
          "and one from a company in the industry I studied, and I keep going back and forth "
          "between them.</p><p>For those who have done it, was it worth it, and what would you "
          "tell someone in my place who has to decide by ""the end of the month?</p></div></article><div id=comments "
          "class=post-comments><section class=comment-list>");
  for (size_t k = 0; k < sizeof answers / sizeof *answers; k++) {
    char post[1024];
    snprintf(post, sizeof post,
             "<article class=\"js-comment comment-layer\" id=comment-%zu><div class=author><a "
             "href=/u/%zu>member%zu</a> <time>Mar %zu, 2024</time></div><div class=text><p>"
             "%s</p></div></article>",
             k, k, k, k + 1, answers[k]);
    /* Every second answer is a reply to the one before: nested. */
    if (k % 2 == 1)
      put(&b, "<div class=indented>");
    put(&b, post);
    if (k % 2 == 1)
      put(&b, "</div>");
  }
  put(&b, "</section></div></div></div>");
  char *html = page("<script type=\"application/ld+json\">{\"@context\":\"https://schema.org\","
                    "\"@type\":\"DiscussionForumPosting\",\"headline\":\"Is consulting worth "
                    "it?\"}</script>",
                    b.data);
  shaped s;
  detect(html, "https://forum.example/careers/is-consulting-worth-it", &s);
  wn_test_expect(s.text, "I have two offers for the autumn", 1);
  expect_posts(s.text, answers, sizeof answers / sizeof *answers);
  wn_test_expect(s.text, "Sleeping bags", 0); /* the menu */
  shaped_free(&s);
  free(html);
  wn_buf_free(&b);
}

/* A forum thread: the topic's title and buttons, then its posts, each an
 * author and date line and the post's prose, in a container named
 * "comments" (the comment-thread mask's word) inside a <form>. The posts
 * are the content: every one is kept, the first among them. */
static void test_thread(void **state) {
  (void)state;
  static const char *posts[] = {
      "I am new to woodworking and want to build a bench for the garden this spring, what tools "
      "should I buy first and which can wait until later?",
      "Start with a good hand saw, a chisel set and a square; a drill comes next, and clamps, "
      "you can never have enough clamps for glue ups.",
      "Buy used where you can, old planes from the flea market tune up nicely and cost a "
      "fraction of new ones, and they teach you how the tool works.",
      "Take a weekend class at the community college if there is one near you, an hour with a "
      "teacher saves a month of mistakes at the bench.",
      "Build the bench from construction lumber first, it forgives mistakes, and make the good "
      "one from oak once you know the joints.",
  };
  wn_buf b;
  wn_buf_init(&b, 1 << 20);
  put(&b, "<main><h1>Which tools first for a garden bench?</h1>"
          "<a href=/reply>Reply</a> <a href=/follow>Follow</a>"
          "<div id=comments><form>");
  for (size_t k = 0; k < sizeof posts / sizeof *posts; k++) {
    /* The fourth post quotes the first, the fifth one line of the
     * second's two (forum software cuts a post's lines with <br>): the
     * words are kept once, where they were first written. */
    static const char second_line[] =
        "And sharpen everything before you start, a dull chisel is the one that slips and "
        "finds your thumb.";
    char quote[512] = "";
    if (k == 3 || k == 4)
      snprintf(quote, sizeof quote,
               "<blockquote class=quote><div class=by>user%d said:</div><div class=quoted>"
               "%s</div></blockquote>",
               k == 3 ? 0 : 1, k == 3 ? posts[0] : second_line);
    /* The second member signs each post: the signature stays out. */
    const char *sig = k % 2 == 1 ? "<div class=signature>Measure twice, cut once, and then "
                                   "measure again before you glue anything at all.</div>"
                                 : "";
    char post[1792];
    snprintf(post, sizeof post,
             "<article class=post id=comment-%zu><div class=author><a href=/u/%zu>user%zu</a> "
             "<time>Feb %zu, 2006</time></div><div class=body>%s%s%s%s</div>%s</article>",
             k, k, k, k + 1, quote, posts[k], k == 1 ? "<br>" : "", k == 1 ? second_line : "",
             sig);
    put(&b, post);
  }
  put(&b, "</form></div></main>");
  char *html = page("", b.data);
  shaped s;
  detect(html, "https://woodworking.example/forum/t/garden-bench/42", &s);
  expect_posts(s.text, posts, sizeof posts / sizeof *posts);
  if (wn_test_occurrences(s.text, "I am new to woodworking") != 1 ||
      strstr(s.text, "I am new to woodworking") > strstr(s.text, "Start with a good hand saw"))
    fail_msg("the quoted post not once in its place:\n%s", s.text);
  if (wn_test_occurrences(s.text, "And sharpen everything") != 1 ||
      strstr(s.text, "And sharpen everything") > strstr(s.text, "Buy used where you can"))
    fail_msg("the quoted line not once in its place:\n%s", s.text);
  if (strstr(s.text, "Measure twice"))
    fail_msg("a signature kept:\n%s", s.text);
  assert_string_equal(s.page_type, "forum");
  shaped_free(&s);
  free(html);
  wn_buf_free(&b);
}

/* A product's description in a tab and again in the accordion that
 * replaces the tabs on a phone: output once. Coupons whose records repeat
 * the same terms under each offer: every record keeps them. */
static void test_no_block_twice(void **state) {
  (void)state;
  const char *desc = "<p>A lantern of brushed steel with a glass globe, lit by one wick that "
                     "burns eight hours on a filling of lamp oil.</p><p>The handle folds flat "
                     "and the base screws off for cleaning after a long season of use.</p>";
  wn_buf b;
  wn_buf_init(&b, 1 << 20);
  put(&b, "<main><h1>Storm lantern</h1><div class=tabs><div "
          "class=tab-panel>");
  put(&b, desc);
  put(&b, "</div></div><div class=accordion><div "
          "class=accordion-body>");
  put(&b, desc);
  /* More text than the two copies: each is under a quarter of the kept
   * text, so the story rule does not see them, the block rule does. */
  put(&b, "</div></div><section><h2>Details</h2>");
  for (int k = 0; k < 6; k++)
    put(&b, "<p>Every lantern is tested in our workshop before it ships, "
            "filled, lit and left to burn through a whole night, then "
            "cleaned, packed in paper and sent in a box of card.</p>");
  put(&b, "</section></main>");
  char *html = page("", b.data);
  shaped s;
  detect(html, "https://shop.example/lantern", &s);
  if (wn_test_occurrences(s.text, "brushed steel") != 1 ||
      wn_test_occurrences(s.text, "handle folds") != 1)
    fail_msg("the description not once:\n%s", s.text);
  shaped_free(&s);
  free(html);
  wn_buf_reset(&b);
  put(&b, "<main><h1>Coupons</h1><div class=coupons>");
  static const char *offers[] = {"Fifty off a service call", "Free safety inspection",
                                 "Ten percent off a new panel", "Twenty off a ceiling fan"};
  for (size_t k = 0; k < sizeof offers / sizeof *offers; k++) {
    char rec[512];
    snprintf(rec, sizeof rec,
             "<div class=coupon><h2>%s</h2><div class=terms><p>Must be presented before the "
             "start of work, one per household.</p><p>Not valid with other offers or coupons, "
             "some restrictions apply.</p></div></div>",
             offers[k]);
    put(&b, rec);
  }
  put(&b, "</div></main>");
  html = page("", b.data);
  detect(html, "https://electric.example/coupons", &s);
  if (wn_test_occurrences(s.text, "Not valid with other offers") != 4)
    fail_msg("the terms not under each offer:\n%s", s.text);
  shaped_free(&s);
  free(html);
  /* One line in a tab and again in the accordion that replaces the tabs
   * on a phone: once. A manual's version note under entries of two
   * classes (a function, a class) with their code: each entry keeps it. */
  wn_buf_reset(&b);
  static const char feature[] =
      "Send invoices from your phone in a minute and get paid by card or bank transfer the "
      "same day.";
  put(&b, "<main><h1>Invoicing for small teams</h1><div "
          "class=tabs><div class=tab-panel><p>");
  put(&b, feature);
  put(&b, "</p></div></div><div class=accordion><div "
          "class=accordion-body><p>");
  put(&b, feature);
  put(&b, "</p></div></div><section><h2>Reports</h2>");
  for (int k = 0; k < 4; k++)
    put(&b, "<p>See what came in and what went out each month, with taxes "
            "worked out for you and ready for your accountant at the end of "
            "the year.</p>");
  put(&b, "</section></main>");
  html = page("", b.data);
  detect(html, "https://books.example/invoicing", &s);
  if (wn_test_occurrences(s.text, "Send invoices from your phone") != 1)
    fail_msg("the feature not once:\n%s", s.text);
  shaped_free(&s);
  free(html);
  wn_buf_reset(&b);
  put(&b, "<main><h1>shelve: persistent objects</h1>");
  static const char *const entries[][2] = {{"function", "shelve.open(filename)"},
                                           {"class", "shelve.Shelf(dict)"}};
  for (int k = 0; k < 2; k++) {
    char entry[1024];
    snprintf(entry, sizeof entry,
             "<dl class=\"py %s\"><dt>%s</dt><dd><p>%s</p><pre>db = %s\ndb['key'] = "
             "value</pre><div class=versionchanged><p>Changed in version 3.10: the default "
             "protocol is now version 5 of pickle, not version 3 as before.</p></div></dd></dl>",
             entries[k][0], entries[k][1],
             k ? "A dictionary that keeps its values in a file, pickled, under string keys."
               : "Open a persistent dictionary and return it; the file is created when missing.",
             entries[k][1]);
    put(&b, entry);
  }
  put(&b, "</main>");
  html = page("", b.data);
  detect(html, "https://lang.example/library/shelve.html", &s);
  assert_string_equal(s.page_type, "documentation");
  if (wn_test_occurrences(s.text, "Changed in version 3.10") != 2)
    fail_msg("the version note not under each entry:\n%s", s.text);
  shaped_free(&s);
  free(html);
  /* A pull quote set above the paragraph it repeats: the words once, in
   * the paragraph's place. */
  wn_buf_reset(&b);
  put(&b, "<main><article><h1>The harbour wall</h1><p>The council met on Tuesday night to "
          "decide the fate of the old harbour wall, which storms have broken twice in ten "
          "years.</p><blockquote class=pullquote><p>We cannot keep patching a wall the "
          "sea has already decided to take back from us.</p></blockquote><p>The engineer "
          "was blunt.</p><p>We cannot keep patching a wall the sea has already decided to "
          "take back from us.</p><p>A new wall of stone would cost four million and take two "
          "summers to build, and the council will vote on it in May after a public "
          "meeting in the school hall.</p></article></main>");
  html = page("", b.data);
  detect(html, "https://news.example/2024/05/harbour-wall", &s);
  if (wn_test_occurrences(s.text, "cannot keep patching") != 1 ||
      strstr(s.text, "cannot keep patching") < strstr(s.text, "was blunt."))
    fail_msg("the pull quote's sentence not once in its paragraph:\n%s", s.text);
  shaped_free(&s);
  free(html);
  /* A label glued to its screen-reader copy, and a size written for two
   * screen widths: each read once. Words repeated with a space between
   * them, or too short to be a copy, stay. */
  wn_buf_reset(&b);
  put(&b, "<main><h1>Trail runner 3</h1><p>A light shoe for long days on rough ground, "
          "with a sole that grips wet rock and a mesh that dries in an hour.</p><p><span "
          "class=label>Seller's other items<span class=clipped>Seller's other items</span>"
          "</span></p><p>Height: <span class=wide>Knee High</span><span class=narrow>Knee "
          "High</span></p><p>Run run run, said the coach, and we ran.</p><p>Grip: "
          "<b>ok</b><b>ok</b></p></main>");
  html = page("", b.data);
  detect(html, "https://shop.example/trail-runner-3", &s);
  if (wn_test_occurrences(s.text, "Seller's other items") != 1 ||
      wn_test_occurrences(s.text, "Knee High") != 1 || !strstr(s.text, "Run run run") ||
      !strstr(s.text, "okok"))
    fail_msg("a glued twin kept, or a repeat on purpose lost:\n%s", s.text);
  shaped_free(&s);
  free(html);
  wn_buf_free(&b);
}

/* page_type from what the page states: schema.org types in JSON-LD,
 * og:type; the URL's path only where the page states nothing. */
static void test_page_type_stated(void **state) {
  (void)state;
  static const struct {
    const char *head, *url, *want;
  } cases[] = {
      {"<script type=\"application/ld+json\">{\"@context\":\"https://schema.org\",\"@type\":"
       "\"Product\",\"name\":\"Lantern\"}</script>",
       "https://shop.example/lantern", "product"},
      {"<script type=\"application/ld+json\">{\"@graph\":[{\"@type\":\"WebPage\"},{\"@type\":"
       "\"QAPage\",\"mainEntity\":{\"@type\":\"Question\"}}]}</script>",
       "https://ask.example/q/1", "forum"},
      {"<script type=\"application/ld+json\">{\"@type\":\"TechArticle\"}</script>",
       "https://example.com/a", "documentation"},
      {"<script type=\"application/ld+json\">{\"@type\":\"ItemList\",\"itemListElement\":[{"
       "\"@type\":\"Product\"}]}</script>",
       "https://shop.example/all", "collection"},
      {"<meta property=\"og:type\" content=\"product.group\">", "https://shop.example/x",
       "collection"},
      {"<meta property=\"og:type\" content=\"article\">", "https://example.com/docs/intro",
       "article"},
      {"", "https://example.com/forum/t/the-kettle/12", "forum"},
      {"", "https://example.com/docs/install", "documentation"},
      {"", "https://example.com/blog/", "listing"},
      {"", NULL, "article"},
      {"<script type=\"application/ld+json\">{not json</script>", NULL, "article"},
      /* A front page: its URL, or the canonical URL it names, is the root. */
      {"", "https://example.com/", "service"},
      {"<link rel=canonical href=\"https://example.com/\">", NULL, "service"},
      {"<meta property=\"og:url\" content=\"https://example.com/?ref=1\">", NULL, "service"},
      {"<link rel=\"alternate canonical\" href=/>", NULL, "service"},
      {"<link rel=canonical href=\"https://example.com/lanterns\">", NULL, "article"},
      {"<link rel=canonical href=\"lanterns/\">", NULL, "article"},
      {"<link rel=canonical href=\"//example.com/\">", NULL, "service"},
      {"<link rel=canonical href=\"/lanterns?from=https://example.com/\">", NULL, "article"},
      {"<link rel=canonical href=\"mailto:shop@example.com\">", NULL, "article"},
      {"<link rel=canonical href=\"https://example.com/\"><meta property=\"og:type\" "
       "content=\"article\">",
       NULL, "article"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    char *html = page(cases[k].head, "<main><p>A short page of one paragraph about lanterns, "
                                     "kettles and the rest of the kit.</p></main>");
    shaped s;
    detect(html, cases[k].url, &s);
    if (strcmp(s.page_type, cases[k].want) != 0)
      fail_msg("case %zu: page_type %s, want %s", k, s.page_type, cases[k].want);
    json_t *obj = json_loads(s.json, 0, NULL);
    assert_non_null(obj);
    assert_string_equal(json_string_value(json_object_get(obj, "page_type")), cases[k].want);
    json_decref(obj);
    shaped_free(&s);
    free(html);
  }
  /* A page that shows code is documentation, but not a site's front page:
   * a developer tool's landing page shows its commands. */
  const char *code = "<main><h1>Lantern</h1><p>A command line tool that lights up your "
                     "logs, one line at a time, in any terminal.</p><pre>lantern --follow "
                     "app.log</pre><p>Or read the logs of a whole folder at once.</p><pre>"
                     "lantern logs/</pre></main>";
  static const struct {
    const char *url, *want;
  } fronts[] = {{"https://lantern.example/", "service"},
                {"https://lantern.example/guide/logs", "documentation"}};
  for (size_t k = 0; k < sizeof fronts / sizeof *fronts; k++) {
    char *html = page("", code);
    shaped s;
    detect(html, fronts[k].url, &s);
    if (strcmp(s.page_type, fronts[k].want) != 0)
      fail_msg("%s: page_type %s, want %s", fronts[k].url, s.page_type, fronts[k].want);
    shaped_free(&s);
    free(html);
  }
}

/* A page whose script draws its text, stating it in JSON-LD: the body it
 * states is the content, and the result is not reported empty. */
static void test_stated_body_not_empty(void **state) {
  (void)state;
  const char *html =
      "<html><head><script type=\"application/ld+json\">{\"@type\":\"NewsArticle\","
      "\"articleBody\":\"The harbour wall is rebuilt after a winter of storms tore two gaps in "
      "it.\"}</script></head><body><div id=app></div></body></html>";
  shaped s;
  detect(html, "https://news.example/harbour", &s);
  wn_test_expect(s.text, "The harbour wall is rebuilt", 1);
  json_t *obj = json_loads(s.json, 0, NULL);
  assert_non_null(obj);
  assert_null(json_object_get(obj, "empty"));
  assert_string_equal(json_string_value(json_object_get(obj, "retried")), "json-ld articleBody");
  json_decref(obj);
  shaped_free(&s);
}

/* U+2028 and U+2029 in the text leave JSON escaped, so that a reader
 * splitting JSON Lines on Unicode line ends does not cut a record. */
static void test_json_line_separators(void **state) {
  (void)state;
  char *html = page("", "<main><p>First line\xe2\x80\xa8second line\xe2\x80\xa9third line of "
                        "the one paragraph on this page.</p></main>");
  shaped s;
  detect(html, NULL, &s);
  assert_non_null(strstr(s.text, "\xe2\x80\xa8")); /* the text keeps it */
  assert_null(strstr(s.json, "\xe2\x80\xa8"));
  assert_null(strstr(s.json, "\xe2\x80\xa9"));
  assert_non_null(strstr(s.json, "\\u2028"));
  assert_non_null(strstr(s.json, "\\u2029"));
  json_t *obj = json_loads(s.json, 0, NULL);
  assert_non_null(obj);
  assert_non_null(strstr(json_string_value(json_object_get(obj, "text")), "\xe2\x80\xa8second"));
  json_decref(obj);
  shaped_free(&s);
  free(html);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_grid_of_cards),
      cmocka_unit_test(test_service_sections),
      cmocka_unit_test(test_landing_parts),
      cmocka_unit_test(test_service_leans_to_recall),
      cmocka_unit_test(test_article_beside_teasers),
      cmocka_unit_test(test_table_of_records),
      cmocka_unit_test(test_named_cards),
      cmocka_unit_test(test_cards_linked_whole),
      cmocka_unit_test(test_wrapped_cards),
      cmocka_unit_test(test_cards_classes_vary),
      cmocka_unit_test(test_product_specs),
      cmocka_unit_test(test_product_reviews),
      cmocka_unit_test(test_teaser_article),
      cmocka_unit_test(test_thread),
      cmocka_unit_test(test_threaded_replies),
      cmocka_unit_test(test_no_block_twice),
      cmocka_unit_test(test_page_type_stated),
      cmocka_unit_test(test_stated_body_not_empty),
      cmocka_unit_test(test_json_line_separators),
      cmocka_unit_test(test_main_beside_header),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
