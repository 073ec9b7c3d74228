/* tests/detect/test_fastce.c: FastCE's detection phase (Sec. III of the
 * paper): blocks on content paths are extracted, stored non-content blocks
 * dropped, and each of the sub-block rules, on hand-made pages and
 * templates. */
#include "wn_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "detect/fastce_detect.h"
#include "learn/learn.h"

/* A template of the given paths and no stored blocks. */
static wn_fastce *wn_paths(const char *const *paths, size_t n) {
  wn_fastce *f = wn_fastce_new(2);
  assert_non_null(f);
  for (size_t i = 0; i < n; i++)
    assert_int_not_equal(wn_fastce_add_path(f, paths[i], strlen(paths[i])), WN_DOM_NONE);
  assert_int_equal(wn_fastce_finish(f, NULL), WN_OK);
  return f;
}

static char *wn_text(const wn_dom_page *page, const wn_fastce *f, wn_detect_result **res_out) {
  wn_detect_result *res = NULL;
  assert_int_equal(wn_detect_fastce_run(page, f, &res, NULL), WN_OK);
  wn_buf b;
  wn_buf_init(&b, 1 << 20);
  assert_int_equal(wn_detect_render_text(page, res, &b), WN_OK);
  char *s = wn_buf_take(&b, NULL);
  if (!s)
    s = calloc(1, 1);
  if (res_out)
    *res_out = res;
  else
    wn_detect_result_free(res);
  return s;
}

/* Rule 1: every sub-block of B on a path in P: B whole. (Text output
 * breaks a line at each block element.) */
static void test_rule_all_sub_blocks_in_p(void **state) {
  (void)state;
  const char *p[] = {"html.body.div.div", "html.body.div.div.div"};
  wn_fastce *f = wn_paths(p, 2);
  wn_dom_page *page = wn_test_parse("<body><nav><p>Menu</p></nav><div><div>Keep <div>the "
                                    "inner</div> too.</div></div></body>");
  wn_detect_result *res = NULL;
  char *t = wn_text(page, f, &res);
  assert_string_equal(t, "Keep\nthe inner\ntoo.\n");
  /* One selected subtree: the div on the content path (the outermost
   * extracted block), not the div around it. */
  uint32_t n = 0;
  const uint32_t *sel = wn_detect_selected(res, &n);
  assert_int_equal(n, 1);
  assert_int_equal(sel[0], wn_test_find(page, "div", NULL) + 1);
  assert_string_equal(wn_detect_method(res), "fastce");
  assert_true(wn_detect_confidence(res) == 1.0);
  wn_detect_result_free(res);
  free(t);
  wn_dom_free(page);
  wn_fastce_free(f);
}

/* Rule 2: B' not in P with no sub-block in P: B without B'. */
static void test_rule_sub_block_dropped(void **state) {
  (void)state;
  const char *p[] = {"html.body.div.div"};
  wn_fastce *f = wn_paths(p, 1);
  wn_dom_page *page = wn_test_parse(
      "<body><div><div>Keep this<div>not this</div>and the end.</div></div></body>");
  char *t = wn_text(page, f, NULL);
  assert_string_equal(t, "Keep this\nand the end.\n");
  free(t);
  wn_dom_free(page);
  wn_fastce_free(f);
}

/* Rule 3: B' not in P but with a sub-block in P: B including B'. Blocks
 * outside every extracted block (the list) are left out. */
static void test_rule_sub_block_kept(void **state) {
  (void)state;
  const char *p[] = {"html.body.div.div", "html.body.div.div.div.div"};
  wn_fastce *f = wn_paths(p, 2);
  wn_dom_page *page = wn_test_parse("<body><div><div>Keep<div>outer<div>inner</div></div>end"
                                    "</div><ul><li>Elsewhere</li></ul></div></body>");
  char *t = wn_text(page, f, NULL);
  assert_string_equal(t, "Keep\nouter\ninner\nend\n");
  free(t);
  wn_dom_free(page);
  wn_fastce_free(f);
}

/* A block on a content path like a stored non-content block is dropped;
 * its neighbour on the same path is kept. Confidence: the share of P the
 * page has (1 of 2 paths, equal weights). */
static void test_stored_block_dropped(void **state) {
  (void)state;
  wn_dom_page *sample = wn_test_parse("<body><div><p>Copyright Example News, all rights "
                                      "reserved.</p></div></body>");
  wn_arena *arena = wn_arena_create(0);
  wn_fastce_blocks bl;
  assert_int_equal(wn_fastce_partition(sample, arena, &bl, NULL), WN_OK);
  assert_int_equal(bl.n, 4);
  wn_fastce *f = wn_fastce_new(2);
  assert_int_equal(wn_fastce_add_path(f, "html.body.div.p", 15), 0);
  assert_int_equal(wn_fastce_add_path(f, "html.body.div.h1", 16), 1);
  assert_int_equal(wn_fastce_add_stored(f, 0, bl.terms + bl.blocks[3].term_first,
                                        bl.blocks[3].n_terms, "Copyright", 9),
                   WN_OK);
  assert_int_equal(wn_fastce_finish(f, NULL), WN_OK);
  wn_dom_page *page = wn_test_parse("<body><div><p>The story itself.</p><p>Copyright "
                                    "Example News, all rights reserved.</p></div></body>");
  wn_detect_result *res = NULL;
  char *t = wn_text(page, f, &res);
  assert_string_equal(t, "The story itself.\n");
  assert_true(wn_detect_confidence(res) == 0.5);
  wn_detect_result_free(res);
  free(t);
  wn_dom_free(page);
  wn_fastce_free(f);
  wn_arena_destroy(arena);
  wn_dom_free(sample);
}

/* Learned and detected end to end; a page that has none of the paths goes
 * to the single-page fallback, saying so. */
static void test_learn_then_detect(void **state) {
  (void)state;
  static const char *const html[3] = {
      "<body><div id=nav><a href=/>Home</a></div><div><h1>One</h1><p>First story text about "
      "boats.</p></div><div><p>Copyright Example News.</p></div></body>",
      "<body><div id=nav><a href=/>Home</a></div><div><h1>Two</h1><p>Second story text about "
      "trains.</p></div><div><p>Copyright Example News.</p></div></body>",
      "<body><div id=nav><a href=/>Home</a></div><div><h1>Three</h1><p>Third story text about "
      "planes.</p></div><div><p>Copyright Example News.</p></div></body>"};
  wn_dom_page *pages[3];
  for (int i = 0; i < 3; i++)
    pages[i] = wn_test_parse(html[i]);
  wn_fastce *f = NULL;
  assert_int_equal(wn_learn_fastce((const wn_dom_page *const *)pages, 3, &f, NULL), WN_OK);
  wn_dom_page *page = wn_test_parse(
      "<body><div id=nav><a href=/>Home</a></div><div><h1>Four</h1><p>A new story about "
      "bicycles.</p></div><div><p>Copyright Example News.</p></div></body>");
  char *t = wn_text(page, f, NULL);
  assert_string_equal(t, "Four\nA new story about bicycles.\n");
  free(t);
  wn_detect_options o;
  wn_detect_options_init(&o);
  wn_detect_result *res = NULL;
  wn_dom_page *other = wn_test_parse("<body><table><tr><td>Some other layout with enough text "
                                     "to be content.</td></tr></table></body>");
  assert_int_equal(wn_detect_fastce_page(other, f, &o, 0, &res, NULL), WN_OK);
  assert_int_equal(wn_detect_fallback_reason(res), WN_FALLBACK_LOW_CONFIDENCE);
  assert_true(wn_detect_confidence(res) == 0.0);
  wn_detect_result_free(res);
  wn_dom_free(other);
  wn_dom_free(page);
  wn_fastce_free(f);
  for (int i = 0; i < 3; i++)
    wn_dom_free(pages[i]);
}

/* A FastCE result goes through the same policy as an ETDM one: a
 * permalink mark (Sphinx's "¶" after a heading) is not text. */
static void test_permalink_marks(void **state) {
  (void)state;
  static const char *const words[] = {"boats", "trains", "planes", "ferries"};
  wn_dom_page *pages[4];
  char html[1024];
  for (int i = 0; i < 4; i++) {
    snprintf(html, sizeof html,
             "<body><div id=nav><a href=/>Home</a></div><div class=body><h1>On %s<a "
             "class=headerlink href=\"#h\">\xc2\xb6</a></h1><p>A story about %s, told at "
             "length for the readers of the site.</p></div><div><p>Copyright Example.</p>"
             "</div></body>",
             words[i], words[i]);
    pages[i] = wn_test_parse(html);
  }
  wn_fastce *f = NULL;
  assert_int_equal(wn_learn_fastce((const wn_dom_page *const *)pages, 3, &f, NULL), WN_OK);
  wn_detect_options o;
  wn_detect_options_init(&o);
  wn_detect_result *res = NULL;
  assert_int_equal(wn_detect_fastce_page(pages[3], f, &o, 0, &res, NULL), WN_OK);
  assert_int_equal(wn_detect_fallback_reason(res), WN_FALLBACK_NONE);
  wn_buf out;
  wn_buf_init(&out, 1 << 20);
  assert_int_equal(wn_detect_render_text(pages[3], res, &out), WN_OK);
  assert_non_null(strstr(out.data, "On ferries"));
  if (strstr(out.data, "\xc2\xb6"))
    fail_msg("a permalink mark in FastCE's text:\n%s", out.data);
  wn_buf_free(&out);
  wn_detect_result_free(res);
  wn_fastce_free(f);
  for (int i = 0; i < 4; i++)
    wn_dom_free(pages[i]);
}

/* The link rule (site-level, WN_FASTCE_FLAG_SITE): a block on a content
 * path whose own text is more than half link text is left out. The
 * second <p> here holds "Ferry fares rise" (16 bytes) and "Bus" (3) as
 * links and " and " (5) outside: 19 of 24 bytes are link text. Left out
 * with the flag; kept without it (the paper's rules alone). */
static void test_link_rule(void **state) {
  (void)state;
  const char *p[] = {"html.body.div.p"};
  wn_fastce *f = wn_paths(p, 1);
  wn_dom_page *page = wn_test_parse("<body><div><p>The ferry now runs every hour.</p><p><a "
                                    "href=/a>Ferry fares rise</a> and <a href=/b>Bus</a></p>"
                                    "</div></body>");
  char *t = wn_text(page, f, NULL);
  assert_string_equal(t, "The ferry now runs every hour.\nFerry fares rise and Bus\n");
  free(t);
  wn_fastce_set_flags(f, WN_FASTCE_FLAG_SITE);
  t = wn_text(page, f, NULL);
  assert_string_equal(t, "The ferry now runs every hour.\n");
  free(t);
  wn_dom_free(page);
  wn_fastce_free(f);
}

/* Confidence weighs each content path by the content text the samples had
 * on it (format 2): a page that has the navigation's path but not the
 * story's fits badly however many paths it has. Story path: 200 bytes per
 * sample page, list path: 20. */
static void test_confidence_by_text(void **state) {
  (void)state;
  wn_fastce *f = wn_fastce_new(4);
  assert_int_equal(wn_fastce_add_path(f, "html.body.div.p", 15), 0);
  assert_int_equal(wn_fastce_add_path(f, "html.body.ul", 12), 1);
  wn_fastce_set_path_text(f, 0, 200);
  wn_fastce_set_path_text(f, 1, 20);
  assert_int_equal(wn_fastce_finish(f, NULL), WN_OK);
  /* Only the list, 10 bytes ("Home About" is 10): 10 / 220. */
  wn_dom_page *page = wn_test_parse("<body><ul><li>Home About</li></ul><table><tr><td>A story "
                                    "of another layout</td></tr></table></body>");
  wn_detect_result *res = NULL;
  assert_int_equal(wn_detect_fastce_run(page, f, &res, NULL), WN_OK);
  assert_true(fabs(wn_detect_confidence(res) - 10.0 / 220.0) < 1e-9);
  wn_detect_result_free(res);
  wn_dom_free(page);
  /* The list (30 bytes, counted up to 20) and a 100-byte paragraph:
   * (20 + 100) / 220. */
  page = wn_test_parse("<body><ul><li>Home About Contact Sport Weather</li></ul><div><p>"
                       "0123456789012345678901234567890123456789012345678901234567890123456789"
                       "012345678901234567890123456789</p></div></body>");
  assert_int_equal(wn_detect_fastce_run(page, f, &res, NULL), WN_OK);
  assert_true(fabs(wn_detect_confidence(res) - 120.0 / 220.0) < 1e-9);
  wn_detect_result_free(res);
  wn_dom_free(page);
  wn_fastce_free(f);
}

/* ---- the paper's Figures 1 to 3, walked through the code ------------------- */

/* Block b's own content (paper, Fig. 3): its text outside its sub-blocks,
 * runs of white space made one space, trimmed. */
static char *wn_own_text(const wn_dom_page *page, const wn_fastce_blocks *bl, uint32_t b) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  wn_buf raw;
  wn_buf_init(&raw, 1 << 16);
  const uint32_t node = bl->blocks[b].node;
  for (uint32_t i = node; i < nodes[node].end; i++)
    if (nodes[i].tag == WN_TAG_TEXT && bl->block_of[i] == b && nodes[i].text) {
      assert_int_equal(wn_buf_append(&raw, nodes[i].text, nodes[i].own_text_len), WN_OK);
      assert_int_equal(wn_buf_append_char(&raw, ' '), WN_OK);
    }
  char *out = calloc(raw.len + 1, 1);
  assert_non_null(out);
  size_t n = 0;
  for (size_t i = 0; i < raw.len; i++) {
    int space = raw.data[i] == ' ' || raw.data[i] == '\n' || raw.data[i] == '\t';
    if (space && (n == 0 || out[n - 1] == ' '))
      continue;
    out[n++] = space ? ' ' : raw.data[i];
  }
  while (n > 0 && out[n - 1] == ' ')
    n--;
  out[n] = '\0';
  wn_buf_free(&raw);
  return out;
}

static char *wn_block_path(const wn_dom_page *page, const wn_fastce_blocks *bl, uint32_t b) {
  wn_buf path;
  wn_buf_init(&path, WN_FASTCE_MAX_PATH_BYTES + 1);
  assert_int_equal(wn_fastce_path_string(page, bl, b, &path), WN_OK);
  char *s = wn_buf_take(&path, NULL);
  assert_non_null(s);
  return s;
}

/* Figure 2's source, with the four sub-blocks' tag as a parameter. */
#define WN_FIG2(OUTER, SUB, TAIL)                                                                \
  "<" OUTER " class=para> On Sept. 27, the US <" SUB " class=\"yshortcuts\" "                   \
  "id=\"lw_1223369478_0\">House of Representatives</" SUB "> unanimously passed a resolution " \
  "recognizing <" SUB " class=\"yshortcuts\" id=\"lw_1223369478_1\">The Christian Science "     \
  "Monitor</" SUB "> on its centennial. The measure was sponsored by <" SUB                     \
  " class=\"yshortcuts\" id=\"lw_1223369478_2\">Rep. Lamar Smith</" SUB "> (R) of Texas who "   \
  "once served on the Monitor staff. It was cosponsored by 40 other <" SUB                      \
  " class=\"yshortcuts\" id=\"lw_1223369478_3\">members of Congress</" SUB ">. " TAIL "</"      \
  OUTER ">"

/* The partition (paper, Sec. II, Figs. 1 to 3). With Figure 2's markup
 * itself the code makes the <p> one block: SPAN is not one of our block
 * tags (template/fastce_template.h, docs/fastce.md), so the four names are part of
 * the paragraph's own content. With the same paragraph written with four
 * block elements in the spans' places (a <div> around four <p>s, as HTML
 * allows), the partition is Figure 3's: five blocks, the four sub-blocks
 * and the outer block with them taken out; and the paths are Sec. III's
 * "tag1.tag2..." strings, "html" first. */
static void test_paper_figures_partition(void **state) {
  (void)state;
  wn_arena *arena = wn_arena_create(0);
  wn_fastce_blocks bl;
  wn_dom_page *spans =
      wn_test_parse("<html><body>" WN_FIG2("p", "span", "") "</body></html>");
  assert_int_equal(wn_fastce_partition(spans, arena, &bl, NULL), WN_OK);
  assert_int_equal(bl.n, 3); /* html, body, p */
  char *path = wn_block_path(spans, &bl, 2);
  assert_string_equal(path, "html.body.p");
  free(path);
  assert_int_equal(bl.blocks[2].n_sub, 0);
  char *own = wn_own_text(spans, &bl, 2);
  assert_string_equal(own, "On Sept. 27, the US House of Representatives unanimously passed a "
                           "resolution recognizing The Christian Science Monitor on its "
                           "centennial. The measure was sponsored by Rep. Lamar Smith (R) of "
                           "Texas who once served on the Monitor staff. It was cosponsored by "
                           "40 other members of Congress .");
  free(own);

  wn_dom_page *blocks = wn_test_parse("<html><body>" WN_FIG2("div", "p", "") "</body></html>");
  assert_int_equal(wn_fastce_partition(blocks, arena, &bl, NULL), WN_OK);
  assert_int_equal(bl.n, 7); /* html, body, div, 4 x p */
  assert_int_equal(bl.blocks[2].n_sub, 4);
  path = wn_block_path(blocks, &bl, 2);
  assert_string_equal(path, "html.body.div");
  free(path);
  /* Figure 3, last block: the outer block less its sub-blocks. */
  own = wn_own_text(blocks, &bl, 2);
  assert_string_equal(own, "On Sept. 27, the US unanimously passed a resolution recognizing on "
                           "its centennial. The measure was sponsored by (R) of Texas who once "
                           "served on the Monitor staff. It was cosponsored by 40 other .");
  free(own);
  /* Figure 3, the four sub-blocks, each on html.body.div.p. */
  static const char *const sub[4] = {"House of Representatives", "The Christian Science Monitor",
                                     "Rep. Lamar Smith", "members of Congress"};
  for (uint32_t k = 0; k < 4; k++) {
    assert_int_equal(bl.blocks[3 + k].parent, 2);
    path = wn_block_path(blocks, &bl, 3 + k);
    assert_string_equal(path, "html.body.div.p");
    free(path);
    own = wn_own_text(blocks, &bl, 3 + k);
    assert_string_equal(own, sub[k]);
    free(own);
  }
  /* The features (Sec. II) are the own content's: the outer block's vector
   * has "texas" but not "house" (which is its first sub-block's). */
  const wn_fastce_block *outer = &bl.blocks[2], *first = &bl.blocks[3];
  wn_dom_page *probe = wn_test_parse("<html><body><p>house</p><p>texas</p></body></html>");
  wn_fastce_blocks pb;
  assert_int_equal(wn_fastce_partition(probe, arena, &pb, NULL), WN_OK);
  const wn_fastce_term *house = pb.terms + pb.blocks[2].term_first;
  const wn_fastce_term *texas = pb.terms + pb.blocks[3].term_first;
  assert_true(wn_fastce_cosine(bl.terms + outer->term_first, outer->n_terms, house, 1) == 0.0);
  assert_true(wn_fastce_cosine(bl.terms + outer->term_first, outer->n_terms, texas, 1) > 0.0);
  assert_true(wn_fastce_cosine(bl.terms + first->term_first, first->n_terms, house, 1) > 0.0);
  wn_dom_free(probe);
  wn_dom_free(blocks);
  wn_dom_free(spans);
  wn_arena_destroy(arena);
}

/* A small site around Figure 1's paragraph, learned (Sec. III, Fig. 4) and
 * detected (Fig. 5), with each extraction rule, worked out by hand.
 *
 * Four sample pages, each a story paragraph (div.para) of other words
 * with four sub-blocks (the spans' places, as <p>s) and a footer div that
 * reads the same on every page; the first two also quote a line (a <p> in
 * a <blockquote> in the story). ContentExtractor's test with four pages:
 * a block recurs when a similar one (cosine > 0.9) is on a quarter of the
 * three other pages, i.e. on one.
 *  - html, body, the blockquotes: no own content, no features, never
 *    content;
 *  - div.para (html.body.div): other words on every page: content, 4/4;
 *  - the sub-blocks (html.body.div.p): other names on every page:
 *    content, 4/4;
 *  - the quoted lines (html.body.div.blockquote.p): content, 2/4;
 *  - the footer (html.body.div): alike on all four: non-content, and its
 *    path is in P, so it is stored (once: the four are alike).
 * So P = {html.body.div, html.body.div.blockquote.p, html.body.div.p}.
 *
 * The new page is Figure 1's paragraph (sub-blocks as <p>s) with a
 * "Share this story" form and a quote inside, then the footer:
 *  - rule 1: div.para is on a path of P and so are its four sub-blocks:
 *    it is extracted whole, its text in the page's order (the paper's
 *    point against ContentExtractor: "the US House of Representatives"
 *    reads as one phrase);
 *  - rule 2: the form (html.body.div.form) is not in P and none of its
 *    sub-blocks (it has none) is: div.para without it;
 *  - rule 3: the blockquote (html.body.div.blockquote) is not in P, but
 *    its sub-block p is: div.para including it, "Quote:" and all;
 *  - the footer is on a path of P but like the stored block: dropped. */
#define WN_FIG_FOOT "<div class=foot>Copyright The Daily Courier, all rights reserved.</div>"
static void test_paper_figures_site(void **state) {
  (void)state;
  static const char *const html[4] = {
      "<html><body><div class=para>Early on Monday the council <p>Mayor Dana Ortiz</p> voted "
      "to rebuild <p>Harbour Bridge</p> before winter; funding came from <p>regional transport "
      "grants</p> and a levy on <p>cruise ship arrivals</p>.<blockquote><p>Nobody expected "
      "the river to rise so fast</p></blockquote></div>" WN_FIG_FOOT "</body></html>",
      "<html><body><div class=para>Teachers at <p>Northfield Academy</p> marched through "
      "<p>Market Square</p> asking <p>education minister Paula Grant</p> for smaller "
      "<p>primary school classes</p> this autumn.<blockquote><p>We will open our doors again "
      "in spring</p></blockquote></div>" WN_FIG_FOOT "</body></html>",
      "<html><body><div class=para>Rain flooded <p>Riverside Stadium</p> hours before "
      "<p>United's cup final</p>, so <p>league officials</p> moved kickoff to <p>Sunday "
      "afternoon</p> instead.</div>" WN_FIG_FOOT "</body></html>",
      "<html><body><div class=para>Volunteers planted <p>four hundred oak saplings</p> along "
      "<p>Canal Walk</p> with help from <p>local scout troops</p> and <p>Greenway "
      "Trust</p> staff.</div>" WN_FIG_FOOT "</body></html>"};
  wn_dom_page *pages[4];
  for (int i = 0; i < 4; i++)
    pages[i] = wn_test_parse(html[i]);
  wn_fastce *f = NULL;
  assert_int_equal(wn_learn_fastce((const wn_dom_page *const *)pages, 4, &f, NULL), WN_OK);
  assert_int_equal(wn_fastce_path_count(f), 3);
  uint32_t n = 0;
  assert_string_equal(wn_fastce_path(f, 0, &n), "html.body.div");
  assert_int_equal(n, 4);
  assert_string_equal(wn_fastce_path(f, 1, &n), "html.body.div.blockquote.p");
  assert_int_equal(n, 2);
  assert_string_equal(wn_fastce_path(f, 2, &n), "html.body.div.p");
  assert_int_equal(n, 4);
  assert_int_equal(wn_fastce_stored_count(f), 1);
  wn_fastce_stored st = wn_fastce_stored_get(f, 0);
  assert_int_equal(st.path, 0);
  assert_string_equal(st.sample, "Copyright The Daily Courier, all rights reserved.");

  wn_dom_page *page = wn_test_parse(
      "<html><body>" WN_FIG2("div", "p",
                             "<form>Share this story</form><blockquote>Quote: <p>A century of "
                             "fair reporting</p></blockquote>") WN_FIG_FOOT "</body></html>");
  wn_detect_result *res = NULL;
  char *t = wn_text(page, f, &res);
  assert_string_equal(t, "On Sept. 27, the US\nHouse of Representatives\nunanimously passed a "
                         "resolution recognizing\nThe Christian Science Monitor\non its "
                         "centennial. The measure was sponsored by\nRep. Lamar Smith\n(R) of "
                         "Texas who once served on the Monitor staff. It was cosponsored by 40 "
                         "other\nmembers of Congress\n.\nQuote:\nA century of fair reporting\n");
  /* One extracted region, div.para; every path of P is on the page. */
  uint32_t n_sel = 0;
  const uint32_t *sel = wn_detect_selected(res, &n_sel);
  assert_int_equal(n_sel, 1);
  assert_int_equal(sel[0], wn_test_find(page, "div", NULL));
  assert_true(wn_detect_confidence(res) == 1.0);
  wn_detect_result_free(res);
  free(t);
  wn_dom_free(page);
  wn_fastce_free(f);
  for (int i = 0; i < 4; i++)
    wn_dom_free(pages[i]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rule_all_sub_blocks_in_p),
      cmocka_unit_test(test_rule_sub_block_dropped),
      cmocka_unit_test(test_rule_sub_block_kept),
      cmocka_unit_test(test_stored_block_dropped),
      cmocka_unit_test(test_learn_then_detect),
      cmocka_unit_test(test_permalink_marks),
      cmocka_unit_test(test_link_rule),
      cmocka_unit_test(test_confidence_by_text),
      cmocka_unit_test(test_paper_figures_partition),
      cmocka_unit_test(test_paper_figures_site),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
