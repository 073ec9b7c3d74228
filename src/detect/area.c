/*
 * detect/area.c: the area reading (WN_SINGLE_STEP_AREA), a third reading
 * of a page for pages made of many parts.
 *
 * Density (DANAg, Sec. 3.3) and Readability's scoring both look for one
 * block of running text: the article. A forum thread, a grid of products,
 * an index of articles, a landing page of sections or a manual's table of
 * entries has no such block; its content is many parts of like weight
 * (posts, cards, items, sections) cut apart by markup, and either reading
 * keeps one part (an intro above a list, one card, one section). Such a
 * page still says where its content is, by the frame around it: HTML's
 * <main> (or ARIA's role=main) holds "the dominant content of the body",
 * and what lies outside it, or in <nav>, <aside>, <header>, <footer>, a
 * <form>, a dialog or an ARIA landmark of navigation, is the site's frame.
 *
 * The area reading is that content: the text of the page's main element
 * (else the body) less the frame, less the not-content mask (comment
 * threads, page footers, dialogs) and less the named boxes the density
 * reading's box step leaves out. It fails where density does not, on an
 * article beside teasers and share bars inside <main>, and is right where
 * density fails: a page of parts. The two are chosen between by how much
 * of the area the readings kept: an article is most of its area, so
 * keeping less than half of a marked <main>'s text (a third of the
 * body's), and as little of its text outside links, says the page is
 * made of parts and the readings kept one (the second measure keeps an
 * article whose <main> is otherwise a carousel of teasers, all links).
 * Then the area is added whole to what they kept (the headline above
 * <main>, the standfirst).
 *
 * Where the area is not taken (no <main> and a body mostly frame, or an
 * area of other things), the records reading (records.c) is: the page's
 * main data region, by the same two measures.
 *
 * Where neither is taken, the parts reading (wn_area_parts) looks at what
 * the readings kept: when it lies in several sibling parts of one
 * container, none holding most of it (two features of a landing page,
 * two sections of a manual's page), the page is made of parts at that
 * level and the readings kept some of them; the siblings that read as
 * the same kind of part come too. Readability.js takes a candidate's
 * siblings by a like test (a paragraph of more than 80 characters, few
 * links); here a sibling is a part when it holds a run of text of that
 * length outside links, is mostly not link text, and is not frame. Only
 * those between the kept parts, and the unbroken run of them on either
 * side (a sibling with text that is not a part ends the run: a
 * subscription box after a rule, a link list), so that what lies past
 * the content's edge stays out. Not on a page that states an article:
 * its one story is the content, and its siblings are the article's boxes
 * (an author's note, a product teaser).
 */
#include "detect/single_int.h"

#include <stdlib.h>
#include <string.h>

/* The readings' share of the area under which the page is read as parts:
 * kept * share < area. A page that marks its <main> has said where its
 * content is, and keeping less than half of it is enough; the body, with
 * whatever frame its names do not mark, needs less than a third. (Both
 * read off WCXB: tuned; the body's half lowered crawl-to-the-future.) */
#define WN_AREA_SHARE 3u
#define WN_AREA_SHARE_MAIN 2u

/* The parts reading: the largest kept part holds less than
 * (WN_PARTS_SHARE - 1) / WN_PARTS_SHARE of the kept text (two thirds: a
 * story with its headline in another part is one part); a sibling part
 * holds a text of WN_PARTS_PARAGRAPH bytes or more outside links
 * (Readability.js's sibling paragraph: more than 80 characters). */
#define WN_PARTS_SHARE 3u
#define WN_PARTS_PARAGRAPH 80u

/* ARIA roles of the frame: the landmarks <nav>, <aside>, <footer> and the
 * page <header> carry implicitly, and a search form. */
static int wn_area_frame_role(const char *role) {
  if (!role)
    return 0;
  return strcmp(role, "navigation") == 0 || strcmp(role, "complementary") == 0 ||
         strcmp(role, "contentinfo") == 0 || strcmp(role, "banner") == 0 ||
         strcmp(role, "search") == 0 || strcmp(role, "menu") == 0 ||
         strcmp(role, "menubar") == 0;
}

/* The frame inside the area: elements HTML or ARIA define as not the
 * page's dominant content. A <header> is frame only outside <main> and
 * <article> (inside them it holds the headline); with the body as the
 * area, that is the page's header. */
static int wn_area_is_frame(const wn_dom_page *page, const wn_dom_node *n, int in_article,
                            int forms) {
  switch (n->tag) {
  case WN_TAG_FORM:
    return forms;
  case WN_TAG_NAV:
  case WN_TAG_ASIDE:
  case WN_TAG_FOOTER:
  case WN_TAG_BUTTON:
  case WN_TAG_SELECT:
  case WN_TAG_TEXTAREA:
    return 1;
  case WN_TAG_HEADER:
    return !in_article;
  default:
    break;
  }
  return wn_area_frame_role(wn_dom_attr(page, n, "role"));
}

/* The page's main element: of the <main> and role=main elements, the one
 * holding most text; WN_DOM_NONE when none holds any. */
static uint32_t wn_area_main(const wn_dom_page *page) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint32_t best = WN_DOM_NONE;
  for (uint32_t i = 0; i < count; i++) {
    const wn_dom_node *n = &nodes[i];
    if (n->tag == WN_TAG_TEXT || n->text_len == 0)
      continue;
    int is_main = n->tag == WN_TAG_MAIN;
    if (!is_main) {
      const char *role = wn_dom_attr(page, n, "role");
      is_main = role && strcmp(role, "main") == 0;
    }
    if (is_main && (best == WN_DOM_NONE || n->text_len > nodes[best].text_len))
      best = i;
  }
  return best;
}

/* Marks in area[] the text nodes of root's subtree that are not frame
 * and not under mask; returns their text bytes. forms: a <form> is frame
 * (a search, a sign-up); the records reading counts it as content, as
 * forums wrap their posts in one. */
static uint64_t wn_area_mark(const wn_dom_page *page, uint32_t root, const uint8_t *mask,
                             uint8_t *area, int forms) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  uint64_t bytes = 0;
  /* article_end: the end of the outermost <main>/<article> open here (a
   * <header> inside it is the headline's, not the page's). */
  uint32_t article_end = nodes[root].tag == WN_TAG_MAIN || nodes[root].tag == WN_TAG_ARTICLE
                             ? nodes[root].end
                             : 0;
  if (article_end == 0 && nodes[root].tag != WN_TAG_BODY && nodes[root].tag != WN_TAG_HTML)
    article_end = nodes[root].end; /* role=main */
  for (uint32_t i = root; i < nodes[root].end;) {
    const wn_dom_node *n = &nodes[i];
    if (mask && mask[i]) {
      i = n->end;
      continue;
    }
    if (n->tag == WN_TAG_TEXT) {
      area[i] = 1;
      bytes += n->own_text_len;
      i++;
      continue;
    }
    if (i != root && wn_area_is_frame(page, n, i < article_end, forms)) {
      i = n->end;
      continue;
    }
    if ((n->tag == WN_TAG_ARTICLE || n->tag == WN_TAG_MAIN) && n->end > article_end)
      article_end = n->end;
    i++;
  }
  return bytes;
}

/* Text bytes of keep[], all and outside links. */
static void wn_area_sum(const wn_dom_node *nodes, uint32_t count, const uint8_t *keep,
                        uint64_t *all, uint64_t *plain) {
  *all = *plain = 0;
  for (uint32_t i = 0; i < count; i++) {
    if (!keep[i] || nodes[i].tag != WN_TAG_TEXT)
      continue;
    *all += nodes[i].own_text_len;
    if (!(nodes[i].flags & WN_DOM_IN_LINK))
      *plain += nodes[i].own_text_len;
  }
}

/* A table of records: no table nested in it, a header cell, and at
 * least WN_AREA_TABLE_ROWS rows of two cells or more (a chart, a list of
 * laureates, a schedule). Its links are fields of its records (a name
 * linked to its page), not a way elsewhere as a carousel's or a menu's
 * are. */
#define WN_AREA_TABLE_ROWS 5u
static int wn_area_record_table(const wn_dom_node *nodes, uint32_t t) {
  uint32_t rows = 0;
  int header = 0;
  for (uint32_t j = t + 1; j < nodes[t].end; j++) {
    if (nodes[j].tag == WN_TAG_TABLE)
      return 0;
    header |= nodes[j].tag == WN_TAG_TH;
    if (nodes[j].tag != WN_TAG_TR)
      continue;
    uint32_t cells = 0;
    for (uint32_t c = nodes[j].first_child; c != WN_DOM_NONE; c = nodes[c].next_sibling)
      cells += nodes[c].tag == WN_TAG_TD || nodes[c].tag == WN_TAG_TH;
    rows += cells >= 2;
  }
  return header && rows >= WN_AREA_TABLE_ROWS;
}

/* Text bytes of keep[] in links inside tables of records. */
static uint64_t wn_area_table_links(const wn_dom_node *nodes, uint32_t count,
                                    const uint8_t *keep) {
  uint64_t bytes = 0;
  for (uint32_t i = 0; i < count; i++) {
    if (nodes[i].tag != WN_TAG_TABLE || !wn_area_record_table(nodes, i))
      continue;
    for (uint32_t j = i + 1; j < nodes[i].end; j++)
      if (keep[j] && nodes[j].tag == WN_TAG_TEXT && (nodes[j].flags & WN_DOM_IN_LINK))
        bytes += nodes[j].own_text_len;
    i = nodes[i].end - 1;
  }
  return bytes;
}

/* The records reading: the page's main data region (records.c), read
 * when the area is not (no <main>, or an area mostly of other things):
 * the run of like records with most text outside the frame, by the same
 * two measures as the area. A forum thread's posts, cut apart by their
 * author and date lines, which density reads as breaks; a grid's cards;
 * an index's entries. */
static wn_err wn_area_records_once(const wn_dom_page *page, const uint8_t *mask, int thread,
                                   uint32_t steps, wn_detect_result *res, uint64_t kept,
                                   uint64_t kept_plain, int *taken) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  const uint32_t body = wn_dom_body(page);
  *taken = 0;
  if (body == WN_DOM_NONE)
    return WN_OK;
  wn_err err = WN_OK;
  wn_detect_result *reg = wn_detect_result_alloc(count, res->method);
  uint8_t *elig = calloc(count ? count : 1, 1);
  if (!reg || !elig) {
    err = WN_ENOMEM;
    goto out;
  }
  const uint64_t page_text = wn_area_mark(page, body, mask, elig, 0);
  wn_detect_records rec;
  err = wn_detect_records_find(page, elig, &rec);
  /* The second measure keeps an article beside a box of teasers. What
   * density kept is no article, and the measure is waived, when the page
   * states no item of its own (an article, a product) and it holds less
   * text outside links than one record holds in all, the records being
   * cards of like weight (none holds half of them: a layout table's rows
   * are not): a listing's heading above cards that are links whole. A
   * list stated in JSON-LD (a CollectionPage) outweighs og:type article,
   * which SEO plugins write on every page of a site. */
  uint32_t stated = wn_detect_result_stated(page, res);
  if (stated & WN_LD_LIST)
    stated &= ~(uint32_t)WN_OG_ARTICLE;
  const int cards = !(stated & (WN_LD_ARTICLE | WN_OG_ARTICLE | WN_LD_PRODUCT | WN_OG_PRODUCT)) &&
                    2 * rec.largest <= rec.text;
  /* The records must be the page's main region (a third of its text
   * outside the frame, not a menu's few items) and, by both measures,
   * more than three times what density kept. */
  if (err || rec.n < 3 || WN_AREA_SHARE * rec.text <= page_text ||
      rec.text <= WN_AREA_SHARE * kept ||
      (rec.plain <= WN_AREA_SHARE * kept_plain && (!cards || kept_plain * rec.n >= rec.text)))
    goto out;
  /* A thread the comment names masked is the page's content only when
   * what density kept outside it is less than one of its posts: a title
   * and its buttons, not an article the thread is under. A page that
   * states a thread (QAPage, DiscussionForumPosting) is its posts, its
   * question however long. */
  if (thread && kept * rec.n >= rec.text && !(stated & WN_LD_FORUM))
    goto out;
  for (uint32_t r = rec.first, k = 0; r != WN_DOM_NONE && k < rec.n;
       r = wn_detect_record_next(nodes, &rec, r), k++)
    for (uint32_t i = r; i < nodes[r].end; i++)
      reg->keep[i] = elig[i];
  /* The named boxes leave out what each record carries beside its text
   * (share bars, its metadata line); not in a thread, whose posts the
   * comment word names one by one. */
  if ((steps & WN_SINGLE_STEP_BOXES) && !thread) {
    err = wn_single_drop_boxes(page, reg);
    if (err)
      goto out;
  }
  uint64_t bytes = 0, plain = 0;
  wn_area_sum(nodes, count, reg->keep, &bytes, &plain);
  if (bytes <= WN_AREA_SHARE * kept ||
      (plain <= WN_AREA_SHARE * kept_plain && (!cards || kept_plain * rec.n >= bytes)))
    goto out;
  for (uint32_t i = 0; i < count; i++)
    res->keep[i] |= reg->keep[i];
  res->area = 1;
  *taken = 1;
out:
  wn_detect_result_free(reg);
  free(elig);
  return err;
}

/* The records outside the masks; else, when the masks hid a thread
 * (WN_SINGLE_STEP_BOXES), its posts, with page footers still masked. */
static wn_err wn_area_records(const wn_dom_page *page, const uint8_t *mask, uint32_t steps,
                              wn_detect_result *res, uint64_t kept, uint64_t kept_plain) {
  int taken = 0;
  wn_err err = wn_area_records_once(page, mask, 0, steps, res, kept, kept_plain, &taken);
  if (err || taken || !mask || !(steps & WN_SINGLE_STEP_BOXES))
    return err;
  uint32_t count = 0;
  wn_dom_nodes(page, &count);
  uint8_t *footers = malloc(count ? count : 1);
  if (!footers)
    return WN_ENOMEM;
  wn_single_mask_names(page, footers, WN_MASK_POSTS);
  err = wn_area_records_once(page, footers, 1, steps, res, kept, kept_plain, &taken);
  free(footers);
  return err;
}

/* A container that can be a part of a page: a block of its own, not a
 * paragraph, a heading or inline markup. */
static int wn_area_part_tag(const wn_dom_node *n) {
  switch (n->tag) {
  case WN_TAG_DIV:
  case WN_TAG_SECTION:
  case WN_TAG_ARTICLE:
  case WN_TAG_LI:
  case WN_TAG_UL:
  case WN_TAG_OTHER:
    return 1;
  default:
    return 0;
  }
}

/* Sibling c as a part: 1 when it is one (its text outside frame and mask
 * marked in part[c, end), cleared here first), 0 when it holds text and
 * is not one, -1 when it holds no text (an image, a spacer: neither
 * breaks a run of parts nor is one). Reads c's subtree only, so that the
 * siblings together cost one pass over the page. */
static int wn_area_part_reads(const wn_dom_page *page, uint32_t c, const uint8_t *mask,
                              uint8_t *part) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  if (nodes[c].text_len == 0)
    return -1;
  if (!wn_area_part_tag(&nodes[c]) || (mask && mask[c]) ||
      wn_area_is_frame(page, &nodes[c], 0, 1))
    return 0;
  memset(part + c, 0, nodes[c].end - c);
  wn_area_mark(page, c, mask, part, 1);
  uint64_t all = 0, plain = 0;
  uint32_t longest = 0;
  for (uint32_t i = c; i < nodes[c].end; i++) {
    if (!part[i])
      continue;
    all += nodes[i].own_text_len;
    if (nodes[i].flags & WN_DOM_IN_LINK)
      continue;
    plain += nodes[i].own_text_len;
    if (nodes[i].own_text_len > longest)
      longest = nodes[i].own_text_len;
  }
  return 2 * plain > all && longest >= WN_PARTS_PARAGRAPH;
}

/* The lowest node holding all the kept text (kept: wn_single_kept_sums). */
static uint32_t wn_area_kept_root(const wn_dom_node *nodes, const uint64_t *kept) {
  uint32_t at = 0;
  for (;;) {
    uint32_t next = WN_DOM_NONE;
    for (uint32_t c = nodes[at].first_child; c != WN_DOM_NONE && next == WN_DOM_NONE;
         c = nodes[c].next_sibling)
      if (kept[c] == kept[0])
        next = c;
    if (next == WN_DOM_NONE)
      return at;
    at = next;
  }
}

/* The parts reading (the file's comment): the siblings of the kept parts
 * that are parts too, added to res->keep. */
static wn_err wn_area_parts(const wn_dom_page *page, const uint8_t *mask, wn_detect_result *res) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  if (count == 0 || (wn_detect_result_stated(page, res) & (WN_LD_ARTICLE | WN_OG_ARTICLE)))
    return WN_OK;
  uint64_t *kept = wn_single_kept_sums(nodes, count, res->keep);
  if (!kept)
    return WN_ENOMEM;
  wn_err err = WN_OK;
  uint8_t *part = NULL;
  if (kept[0] == 0)
    goto out;
  const uint32_t root = wn_area_kept_root(nodes, kept);
  uint32_t first = WN_DOM_NONE, last = WN_DOM_NONE, parts = 0;
  uint64_t in_parts = 0, largest = 0;
  for (uint32_t c = nodes[root].first_child; c != WN_DOM_NONE; c = nodes[c].next_sibling) {
    if (kept[c] == 0 || !wn_area_part_tag(&nodes[c]))
      continue;
    if (first == WN_DOM_NONE)
      first = c;
    last = c;
    parts++;
    in_parts += kept[c];
    if (kept[c] > largest)
      largest = kept[c];
  }
  if (parts < 2 || 2 * in_parts < kept[0] ||
      WN_PARTS_SHARE * largest > (WN_PARTS_SHARE - 1) * kept[0])
    goto out;
  part = malloc(count);
  if (!part) {
    err = WN_ENOMEM;
    goto out;
  }
  /* Before the first kept part: the run of parts that ends at it. */
  uint32_t run = WN_DOM_NONE;
  for (uint32_t c = nodes[root].first_child; c != first; c = nodes[c].next_sibling) {
    if (nodes[c].tag == WN_TAG_TEXT || kept[c] > 0)
      continue;
    const int r = wn_area_part_reads(page, c, mask, part);
    if (r == 0)
      run = WN_DOM_NONE;
    else if (r == 1 && run == WN_DOM_NONE)
      run = c;
  }
  /* From that run on: every part up to the last kept one, then the run
   * that goes on from it. */
  int past = 0;
  for (uint32_t c = run != WN_DOM_NONE ? run : first; c != WN_DOM_NONE;
       c = nodes[c].next_sibling) {
    if (nodes[c].tag == WN_TAG_TEXT || kept[c] > 0) {
      past |= c == last;
      continue;
    }
    const int r = wn_area_part_reads(page, c, mask, part);
    if (r == 0 && past)
      break;
    if (r == 1)
      for (uint32_t i = c; i < nodes[c].end; i++)
        res->keep[i] |= part[i];
  }
out:
  free(kept);
  free(part);
  return err;
}

wn_err wn_single_area(const wn_dom_page *page, const uint8_t *mask, uint32_t steps,
                      wn_detect_result *res) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  if (count == 0 || res->body_text)
    return WN_OK;
  uint32_t root = wn_area_main(page);
  const uint64_t share = root == WN_DOM_NONE ? WN_AREA_SHARE : WN_AREA_SHARE_MAIN;
  if (root == WN_DOM_NONE)
    root = wn_dom_body(page);
  if (root == WN_DOM_NONE)
    return WN_OK;
  uint64_t kept = 0, kept_plain = 0;
  wn_area_sum(nodes, count, res->keep, &kept, &kept_plain);
  /* Cheap bound first: the area and the records hold at most the body's
   * text. */
  const uint32_t body = wn_dom_body(page);
  if (body == WN_DOM_NONE || (uint64_t)nodes[body].text_len <= share * kept)
    return wn_area_parts(page, mask, res);
  wn_err err = WN_OK;
  wn_detect_result *area = wn_detect_result_alloc(count, res->method);
  if (!area)
    return WN_ENOMEM;
  const uint64_t area_bytes = wn_area_mark(page, root, mask, area->keep, 1);
  /* What the readings kept in the page's frame outside a marked <main>
   * (a page header's menu, a dropdown's featured teaser) says nothing of
   * the area: an article the readings found is in it or beside it, not
   * in the header. Only the rest is measured against the area. */
  uint64_t in = kept, in_plain = kept_plain;
  if (share == WN_AREA_SHARE_MAIN) {
    in = in_plain = 0;
    uint32_t article_end = 0;
    for (uint32_t i = 0; i < count;) {
      const wn_dom_node *n = &nodes[i];
      const int in_root = i >= root && i < nodes[root].end;
      const int around_root = i < root && n->end > root;
      if (!in_root && n->tag != WN_TAG_TEXT) {
        if (!around_root && wn_area_is_frame(page, n, i < article_end, 0)) {
          i = n->end;
          continue;
        }
        if (n->tag == WN_TAG_ARTICLE && n->end > article_end)
          article_end = n->end;
      }
      if (res->keep[i] && n->tag == WN_TAG_TEXT) {
        in += n->own_text_len;
        if (!(n->flags & WN_DOM_IN_LINK))
          in_plain += n->own_text_len;
      }
      i++;
    }
  }
  if (area_bytes <= share * in) {
    err = wn_area_records(page, mask, steps, res, kept, kept_plain);
    goto out;
  }
  /* The named boxes density's step leaves out (sidebars, share bars,
   * related stories, breadcrumbs...), judged against the area's text as
   * the step judges them against a reading's. Those names were chosen on
   * articles, where they name boxes beside the story; in a marked <main>
   * of a page that does not state an article, they name its parts (a
   * landing page's call to action, a card's "meta" line, a grid's
   * "related" row), and the frame alone is left out. A run of like
   * boxes is read as the page's parts (wn_single_box_parts) only where
   * the readings kept something: where they kept nothing, the area is
   * all there is to judge the run against, and a gallery's figures
   * would bring in the masthead and menu its body does not mark (the
   * last resort reads the captions). */
  const int article =
      root == body || (wn_detect_result_stated(page, res) & (WN_LD_ARTICLE | WN_OG_ARTICLE)) != 0;
  if ((steps & WN_SINGLE_STEP_BOXES) && article) {
    err = wn_single_drop_boxes_parts(page, area, kept > 0);
    if (err)
      goto out;
  }
  /* Parts, by both measures: the area holds more than share times the
   * text the readings kept, and more than share times their text outside
   * links. The second keeps an article whose area is mostly links (a
   * carousel of teasers, a menu the names did not mark) with its article. */
  uint64_t bytes = 0, plain = 0;
  wn_area_sum(nodes, count, area->keep, &bytes, &plain);
  plain += wn_area_table_links(nodes, count, area->keep);
  if (bytes <= share * in || plain <= share * in_plain) {
    err = wn_area_records(page, mask, steps, res, kept, kept_plain);
    goto out;
  }
  for (uint32_t i = 0; i < count; i++)
    res->keep[i] |= area->keep[i];
  res->area = 1;
  /* The records may still be the page: a thread the masks hid leaves an
   * area of a title and buttons. They are judged against what is now
   * kept, area included. */
  wn_area_sum(nodes, count, res->keep, &kept, &kept_plain);
  err = wn_area_records(page, mask, steps, res, kept, kept_plain);
out:
  wn_detect_result_free(area);
  if (!err && !res->area)
    err = wn_area_parts(page, mask, res);
  return err;
}
