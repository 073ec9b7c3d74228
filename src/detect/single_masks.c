/*
 * detect/single_masks.c: the not-content mask, computed before a method
 * runs, so that the method neither chooses nor keeps what it covers
 * (part of WN_SINGLE_STEP_BOXES; docs/single-page.md).
 */
#include "detect/single_int.h"

#include <stdlib.h>
#include <string.h>

/*
 * Comment threads (part of WN_SINGLE_STEP_BOXES). A blog post's reader
 * comments are often longer than the post, so the named-box rule above,
 * which never drops a block holding half the kept text, keeps them, and
 * both methods may even choose the thread as the content (a blog post's
 * output was then mostly its comments). The thread is marked up
 * by a web-wide convention: the comment systems and blog engines name its
 * container and its items "comment" (WordPress's comments, commentlist,
 * comment-body, the #respond form; Disqus's disqus_thread; Drupal's
 * comment-wrapper), which is also Readability's "unlikely candidates"
 * list. So a container whose id or class holds a word containing
 * "comment" (not "commentary", a news column) or "disqus", or the word
 * "respond" or "replies", is masked before the method runs: DANAg leaves
 * it out of its normalised source, CNR counts it a nonContentNode, and its
 * text is never kept.
 *
 * Page footers likewise (a word ending in "foot" or "footer": foot,
 * site-footer, pageFooter; the "footer" of Readability's list). Their
 * legal notices and "best viewed with" disclaimers are the longest
 * paragraphs of a page that has no article (a section front: teasers and
 * links only), so DANAg chose them and the named-box rule, which never
 * drops half the kept text, kept them (a section front whose gold is
 * empty came out as its legal notice). Masked, such a page has no line where content
 * outweighs code and nothing is selected. A name that only starts with
 * it ("footnotes") is content.
 *
 * A forum post's signature likewise: the lines a member set once to
 * stand under every post they write (a quote, links to their projects),
 * which forum software names so (vBulletin's and phpBB's signature,
 * XenForo's message-signature); a thread's reader reads past them. Not on
 * a page that shows code listings (wn_detect_page_shows_code): there a
 * signature is a function's (PostgreSQL's func_signature, Javadoc's
 * member-signature), the entry itself.
 *
 * A product's reviews likewise, on a page that states a product and no
 * article (JSON-LD or og:type): a product page's content is its name,
 * description and specifications, and its customers' reviews are its
 * comment thread, often longer than the rest (a shelf's twenty reviews
 * under its four-line description). The review systems shops embed name
 * their container and each review by that word (Bazaarvoice's
 * bv-reviews, Yotpo's yotpo-reviews, PowerReviews' pr-review-display, a
 * Shopify theme's product-reviews), not "preview". A review of a product
 * that states an article (a magazine's test) is the article.
 *
 * Never the post itself: not <html>, <body> or <main>, and not a
 * container that holds the page's first <h1>, the headline of the post
 * the thread comments on (a theme that names the page wrapper
 * "comments-open" must not lose the post).
 */
/* w[0..n) equals the lower-case lit, ignoring case: w holds letters only,
 * whose lower case is the byte | 0x20. */
static int wn_single_word_is(const char *w, const char *lit, size_t n) {
  for (size_t k = 0; k < n; k++)
    if ((char)(w[k] | 0x20) != lit[k])
      return 0;
  return 1;
}

/* What the name masks cover: comment threads (with posts' signatures and
 * a product's reviews), page footers (and dialogs), and signatures alone
 * (a thread read as the content). Whether a page's signatures and reviews
 * are masked is read once, when a name first holds the word. */
typedef struct wn_mask_kinds {
  int threads, footers, signatures;
  int reviews; /* -1: not read yet, else 0 or 1 */
  int code;    /* -1: not read yet, else wn_detect_page_shows_code */
  const wn_dom_page *page;
} wn_mask_kinds;

/* Signatures are a post's on a page without code listings (read once,
 * when a name first holds the word). */
static int wn_single_signatures_masked(wn_mask_kinds *k) {
  if (k->code < 0)
    k->code = wn_detect_page_shows_code(k->page);
  return !k->code;
}

/* A product's reviews are masked on a page that states a product and no
 * article (read once, when a name first holds the word). */
static int wn_single_reviews_masked(wn_mask_kinds *k) {
  if (k->reviews < 0) {
    const uint32_t stated = wn_detect_stated_kinds(k->page);
    k->reviews = (stated & (WN_LD_PRODUCT | WN_OG_PRODUCT)) != 0 &&
                 (stated & (WN_LD_ARTICLE | WN_OG_ARTICLE)) == 0;
  }
  return k->reviews;
}

static int wn_single_word_masked(const char *w, size_t len, int container, wn_mask_kinds *k) {
  const int threads = k->threads, footers = k->footers;
  /* A page footer: a word that ends in "foot" or "footer" (foot,
   * blq-foot, pagefooter, site-footer), not "footnote"; and a container,
   * not the closing paragraph of a story ("zn-body__footer"). */
  if (footers && container && ((len >= 4 && wn_single_word_is(w + len - 4, "foot", 4)) ||
                               (len >= 6 && wn_single_word_is(w + len - 6, "footer", 6))))
    return 1;
  /* A post's signature: with the threads, and in a thread read as the
   * page's content (its posts kept, not their signatures). */
  if (threads || k->signatures)
    for (size_t i = 0; i + 9 <= len; i++)
      if ((w[i] | 0x20) == 's' && wn_single_word_is(w + i, "signature", 9) &&
          wn_single_signatures_masked(k))
        return 1;
  if (!threads)
    return 0;
  /* (compared in place, first letter first: this runs on every id and
   * class of every page; copying each name lower-cased and calling memcmp
   * at every offset cost 3% of detection) */
  for (size_t i = 0; i + 7 <= len; i++)
    if ((w[i] | 0x20) == 'c' && wn_single_word_is(w + i, "comment", 7) &&
        !(i + 9 <= len && wn_single_word_is(w + i + 7, "ar", 2)))
      return 1;
  for (size_t i = 0; i + 6 <= len; i++)
    if ((w[i] | 0x20) == 'd' && wn_single_word_is(w + i, "disqus", 6))
      return 1;
  for (size_t i = 0; i + 6 <= len; i++)
    if ((w[i] | 0x20) == 'r' && wn_single_word_is(w + i, "review", 6) &&
        !(i > 0 && (w[i - 1] | 0x20) == 'p') && wn_single_reviews_masked(k))
      return 1;
  return len == 7 && (wn_single_word_is(w, "respond", 7) || wn_single_word_is(w, "replies", 7));
}

/* A word that negates the next one: "not", "no", "non" ("wsite-not-footer",
 * the content wrapper of a site builder; "no-comments", a post whose
 * comments are closed). */
static int wn_single_word_negates(const char *w, size_t len) {
  return (len == 2 && wn_single_word_is(w, "no", 2)) ||
         (len == 3 && (wn_single_word_is(w, "not", 3) || wn_single_word_is(w, "non", 3)));
}

/* id or class holds a comment word; words are runs of letters, compared
 * without case ("comment-list", "commentList", "fb_comments",
 * "userComments" all hold one), and a word after a negation does not
 * count ("not-footer" says what the element is not). Bounded: names past
 * 128 bytes are cut. */
static int wn_single_names_masked(const char *s, int container, wn_mask_kinds *k) {
  if (!s)
    return 0;
  size_t i = 0;
  int negated = 0;
  for (;;) {
    while (i < 128 && s[i] && !wn_ascii_alpha(s[i])) {
      negated &= s[i] == '-' || s[i] == '_'; /* "not-footer", not "not footer" */
      i++;
    }
    if (i >= 128 || !s[i])
      return 0;
    size_t b = i;
    while (i < 128 && wn_ascii_alpha(s[i]))
      i++;
    if (!negated && wn_single_word_masked(s + b, i - b, container, k))
      return 1;
    negated = wn_single_word_negates(s + b, i - b);
  }
}

/* A dialog: the <dialog> element or ARIA's dialog roles. A consent
 * banner, a sign-up prompt or a modal shown over the page is never its
 * article, and a long one beside a short text won DANAg's choice; the
 * standard's markup says what it is, whatever its names (masked in both
 * modes, as page footers are). */
static int wn_single_is_dialog(const wn_dom_page *page, const wn_dom_node *n) {
  if (n->tag == WN_TAG_OTHER && n->name && strcmp(n->name, "dialog") == 0)
    return 1;
  const char *role = wn_dom_attr(page, n, "role");
  return role && (strcmp(role, "dialog") == 0 || strcmp(role, "alertdialog") == 0);
}

/* A container whose name marks a page footer but that holds more than
 * half of the body's text is no page footer: a story's list of places set
 * in its page's "footer" area, a thread in its topic's. A <footer> element
 * stays one (HTML says so), and a name that marks a comment thread too is
 * masked as the thread. */
static int wn_single_not_footer(const wn_dom_page *page, const wn_dom_node *n, int container,
                                uint64_t body_text, int threads) {
  if (n->tag == WN_TAG_FOOTER || 2 * (uint64_t)n->text_len <= body_text)
    return 0;
  wn_mask_kinds feet = {.footers = 1, .reviews = -1, .code = -1, .page = page};
  if (!wn_single_names_masked(n->id, container, &feet) &&
      !wn_single_names_masked(n->cls, container, &feet))
    return 0;
  wn_mask_kinds thread = {.threads = 1, .reviews = -1, .code = -1, .page = page};
  return !(threads && (wn_single_names_masked(n->id, container, &thread) ||
                       wn_single_names_masked(n->cls, container, &thread)));
}

/* The containers the names mark: comment threads (threads), page footers
 * (footers) and dialogs (footers: masked in both modes), posts'
 * signatures (threads or signatures). */
static uint32_t wn_single_mask_kinds(const wn_dom_page *page, uint8_t *mask, int threads,
                                     int footers, int signatures) {
  wn_mask_kinds kinds = {.threads = threads, .footers = footers, .signatures = signatures,
                         .reviews = -1, .code = -1, .page = page};
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  memset(mask, 0, count);
  uint32_t h1 = WN_DOM_NONE;
  for (uint32_t i = 0; i < count && h1 == WN_DOM_NONE; i++)
    if (nodes[i].tag == WN_TAG_H1 && nodes[i].text_len > 0)
      h1 = i;
  uint32_t masked = 0;
  const uint32_t body = wn_dom_body(page);
  const uint64_t body_text = body == WN_DOM_NONE ? 0 : nodes[body].text_len;
  for (uint32_t i = 0; i < count;) {
    const wn_dom_node *n = &nodes[i];
    int container = (n->flags & WN_DOM_BLOCK) && n->tag != WN_TAG_P &&
                    !(n->tag >= WN_TAG_H1 && n->tag <= WN_TAG_H6);
    if (n->tag != WN_TAG_TEXT && n->tag != WN_TAG_HTML && n->tag != WN_TAG_BODY &&
        n->tag != WN_TAG_MAIN && !(h1 != WN_DOM_NONE && i <= h1 && h1 < n->end) &&
        (wn_single_names_masked(n->id, container, &kinds) ||
         wn_single_names_masked(n->cls, container, &kinds) ||
         (footers && wn_single_is_dialog(page, n))) &&
        !wn_single_not_footer(page, n, container, body_text, threads)) {
      memset(mask + i, 1, n->end - i);
      masked++;
      i = n->end;
      continue;
    }
    i++;
  }
  return masked;
}

uint32_t wn_single_mask_names(const wn_dom_page *page, uint8_t *mask, wn_single_masking m) {
  return wn_single_mask_kinds(page, mask, m == WN_MASK_ALL, 1, m == WN_MASK_POSTS);
}

uint32_t wn_single_not_content_mask(const wn_dom_page *page, uint8_t *mask) {
  return wn_single_mask_names(page, mask, WN_MASK_ALL);
}

/* Comment threads kept (WN_SINGLE_STEP_COMMENTS, wn_detect_options.comments,
 * trafilatura's include_comments): the text of the containers the comment
 * masks name, after the content, as a reader who scrolls on reads them;
 * not their link text (author links, "Reply") nor their forms (the
 * "Leave a reply" box). */
wn_err wn_single_add_comments(const wn_dom_page *page, wn_detect_result *res) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  if (count == 0 || res->body_text)
    return WN_OK;
  uint8_t *mask = malloc(count);
  uint8_t *form = malloc(count);
  if (!mask || !form) {
    free(mask);
    free(form);
    return WN_ENOMEM;
  }
  if (wn_single_mask_kinds(page, mask, 1, 0, 0) > 0)
    for (uint32_t i = 0; i < count; i++) {
      const uint32_t p = nodes[i].parent;
      form[i] = (uint8_t)((p != WN_DOM_NONE && form[p]) || nodes[i].tag == WN_TAG_FORM ||
                          nodes[i].tag == WN_TAG_BUTTON || nodes[i].tag == WN_TAG_TEXTAREA ||
                          nodes[i].tag == WN_TAG_SELECT);
      if (mask[i] && !form[i] && nodes[i].tag == WN_TAG_TEXT && nodes[i].own_text_len &&
          !(nodes[i].flags & WN_DOM_IN_LINK))
        res->keep[i] = 1;
    }
  free(mask);
  free(form);
  return WN_OK;
}
