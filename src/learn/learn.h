/*
 * learn: from a site's sample pages to the site's template.
 *
 * The site-level paper ("Main Content Extraction from Heterogeneous Webpages",
 * Alarte, Insa, Silva and Tamarit)
 * maps a key page against each page of its n-SET with an equal top-down
 * mapping (ETDM, Sec. 2.2) and counts, per key-page node, in how many
 * sample pages it recurs (Algorithm 1). A daemon needs a template that
 * serves every later page of the site, so we generalise: all sample pages
 * are merged top-down into one tree, like a site style tree, each node
 * counting the sample pages that hold an equal node at the mapped place;
 * nodes held by fewer than min_count pages (page-specific content) are
 * dropped. That tree is the template (src/template).
 */
#ifndef WN_LEARN_H
#define WN_LEARN_H

#include <stddef.h>
#include <stdint.h>

#include "dom/dom.h"
#include "fetch/fetch.h"
#include "template/fastce_template.h"
#include "template/template.h"
#include "util/util.h"

/* wn_learn_options (min_count 0 read as 2; selector kept in the
 * template) and WN_LEARN_MAX_PAGES are public (include/winnow/winnow.h). */

/* Algorithm 1 of the paper: occurrences[i] (the caller's array of the key
 * page's node count) receives how many of the other pages hold a node
 * mapped to key node i by the ETDM. */
wn_err wn_learn_occurrences(const wn_dom_page *key, const wn_dom_page *const *others,
                            size_t n_others, uint32_t *occurrences, wn_diag *diag);

/* The sample page whose ETDM mappings with the others pair the most nodes
 * in all (the first on a tie): the base of the template. */
wn_err wn_learn_medoid(const wn_dom_page *const *pages, size_t n_pages, size_t *base,
                       wn_diag *diag);

/* Learns a template from the pages: Algorithm 1 with the medoid page as
 * the key page (pages[0], the page the caller calls key, is preferred on
 * a tie), keeping the nodes that occur in at least min_count pages. */
wn_err wn_learn_template(const wn_dom_page *const *pages, size_t n_pages,
                         const wn_learn_options *opts, wn_template **out, wn_diag *diag);

/* The template's metadata positions (positions.c): the template nodes
 * (keep[i]: the template node of base page node i, or WN_DOM_NONE) where
 * the pages print an article's date and byline, from the ETDM of the base
 * page with each other page. See positions.c for the rule. */
wn_err wn_learn_positions(const wn_dom_page *base, const wn_dom_page *const *others,
                          size_t n_others, const uint32_t *keep, wn_template_positions *pos,
                          wn_diag *diag);

/* The content places of tpl (see template.h) from the pages it was
 * learned from (src/learn/places.c): runs the cue selector on each page
 * against tpl and sets the places the majority agrees on (none when they
 * do not). */
wn_err wn_learn_places(wn_template *tpl, const wn_dom_page *const *pages, size_t n_pages,
                       wn_diag *diag);

/* ---- learning with checks (learn.c) -------------------------------------------
 *
 * Sample pages must belong together: pages of unrelated layouts (or an
 * empty page and binary garbage) "learn" a template of the bare document
 * skeleton, which fits every page and says nothing. Two checks, the same
 * for learning from files and by crawling:
 *
 *  0. Text: a page with no text in its body (an empty file, bare markup)
 *     is left out, force or not (WN_LEARN_TEXTLESS says why); a key page
 *     without text is WN_EEMPTY.
 *  1. Template sharing (the crawl's n-SET check, Sec. 2.1 of the paper
 *     asks that the n-SET pages "share the template" of the key page): the
 *     key page's template nodes are the key page nodes that at least two
 *     of the other pages pair under the ETDM (with one other page, the
 *     nodes it pairs); a page is used when its own mapping covers at least
 *     min_share of them. Fewer than two pages used (the key page counted):
 *     WN_EEMPTY. force uses every page.
 *  1b. Other versions of the key page (rules b and c of "Other versions
 *     of a page" below): a page whose lang differs from the key page's,
 *     or that is a near-duplicate of the key page, is left out before
 *     check 1 (so that it does not vote on the key page's template
 *     nodes); a page that passes check 1 but is a near-duplicate of a
 *     page used before it is left out after. force keeps them.
 *  2. Size: the template must keep at least one element below <body>. A
 *     template of <html>, <head> (and what is in it) and <body> alone
 *     means no part of the visible layout recurs: detect would find every
 *     element page-specific, which is no template. Applies under force too.
 */

typedef struct wn_learn_check {
  double share;      /* of the key page's template nodes this page pairs
                        (1 for the key page; 0 when not measured: a page
                        without text or of another language) */
  int used;          /* 1: learned from */
  wn_err err;        /* WN_OK, or WN_EEMPTY when left out */
  int dup;           /* wn_learn_dup: left out as a near-duplicate (1b) */
  size_t dup_of;     /* with dup: the page it duplicates (0: the key page) */
  char message[256]; /* why it was left out; "" if used */
  int other_layout;  /* left out by check 1 as another layout */
  uint32_t layout;   /* used: the layout it was learned into (0: the key
                        page's; see wn_learn_layouts) */
} wn_learn_check;

/* Why a page without text is left out (check 0), as the report says it. */
#define WN_LEARN_TEXTLESS "no text in the page's body (an empty page?): not a sample"

/* 1 if page holds text below <body> other than white space (check 0). */
int wn_learn_page_has_text(const wn_dom_page *page);

/* The key page nodes (one byte each, 1: paired) that page pairs under the
 * ETDM against key. *out is malloc'd (the key page's node count bytes). */
wn_err wn_learn_map_to_key(const wn_dom_page *key, const wn_dom_page *page, uint8_t **out,
                           wn_diag *diag);

/* Check 1 over n pages given by their wn_learn_map_to_key arrays (count:
 * the key page's nodes): share[p] for each. */
wn_err wn_learn_shares(uint32_t count, const uint8_t *const *mapped, size_t n, double *share,
                       wn_diag *diag);

/* Check 1 over pages (pages[0] is the key page), the one check of both
 * learning methods: used[] (WN_LEARN_MAX_PAGES entries) receives the key
 * page and the pages that pass, *n_used their count, checks[i] (n_pages
 * entries, may be NULL) each page's measured share and why it was left
 * out. force uses every page, whatever its share; the shares are then
 * measured only when checks is given. WN_EEMPTY when fewer than two pages
 * are used ("only N of M pages share a layout (...)"); WN_EINVAL for fewer
 * than 2 or more than WN_LEARN_MAX_PAGES pages. */
wn_err wn_learn_check_pages(const wn_dom_page *const *pages, size_t n_pages,
                            const wn_learn_options *opts, wn_learn_check *checks,
                            const wn_dom_page **used, size_t *n_used, wn_diag *diag);

/* Learns a template from pages (pages[0] is the key page) with both checks
 * above: pages that fail check 1 are left out (checks[i] says why), the
 * rest learn the template as wn_learn_template does. checks (n_pages
 * entries) may be NULL. WN_EEMPTY with a message "only N of M pages share
 * a layout (...)" or naming the size rule; WN_EINVAL for fewer than 2 or
 * more than WN_LEARN_MAX_PAGES pages. */
wn_err wn_learn_pages(const wn_dom_page *const *pages, size_t n_pages,
                      const wn_learn_options *opts, wn_template **out, wn_learn_check *checks,
                      wn_diag *diag);

/* ---- layouts ------------------------------------------------------------------
 *
 * A site is rarely one layout: articles and section fronts, reference
 * pages and release notes. Check 1 leaves the pages of other layouts out
 * of the key page's sample; wn_learn_layouts learns them a template each,
 * added to tpl as its layouts (template.h), by clustering the pages left
 * out: the first of them (in the given order: a crawl's rank) is a key
 * page, check 1 and 1b run against it, and the pages that pass join it.
 * (Check 1 holds one way: a page pairs min_share of the key page's
 * template nodes. The other way, the share of a page's own nodes the key
 * page pairs, counts its content too, and is low for every page of much
 * text: no test.) A cluster of
 * at least WN_LEARN_LAYOUT_MIN_PAGES pages is learned, its template the
 * nodes all its pages hold (min_count: its page count), its frame: a
 * layout comes of the pages a crawl happened to fetch, and structure two
 * of three articles share by chance (their sections, their paragraph
 * slots) is content, not layout. A frame of which the site's key page
 * pairs min_share or more is no layout of its own (a few small pages that
 * share a bare skeleton: every page, of this site or another, would fit
 * it), and its cluster is left out. A smaller cluster is left out, its
 * first page with it, and the next page left is tried, up to
 * WN_TEMPLATE_MAX_LAYOUTS layouts in all. checks[i] of a page learned
 * into layout k says used and layout k; force learns no layouts.
 */
#define WN_LEARN_LAYOUT_MIN_PAGES 3u

wn_err wn_learn_layouts(const wn_dom_page *const *pages, size_t n_pages,
                        const wn_learn_options *opts, wn_learn_check *checks, wn_template *tpl,
                        wn_diag *diag);

/* ---- other versions of a page (variants.c) --------------------------------------
 *
 * Sec. 2.1 asks that the n-SET pages share the key page's template; they
 * must also hold other content. Another version of the key page (the same
 * article in another language, a copy under another URL) repeats its
 * content node for node, so Algorithm 1 counts the content as recurring
 * and it becomes template. The samples leave out:
 *
 *  a. before fetching (the crawl's ranking, nset.c): a link named by the
 *     key page's <link rel="alternate" hreflang> (any language: a regional
 *     variant is a copy) or by an <a hreflang> of a language other than
 *     the key page's lang; and a link whose path holds a language tag
 *     other than the key page's at the place where the key page's path
 *     holds its own (wn_learn_url_other_language);
 *  b. after parsing: a page whose <html lang> names another primary
 *     language than the key page's (both must declare one);
 *  c. a near-duplicate of the key page or of a sample kept before it
 *     (wn_learn_near_duplicate).
 *
 * Learning from files applies b and c (check 1b in wn_learn_check_pages);
 * force keeps such pages. The crawl applies a to c always.
 */

/* 1 if the bytes are a language tag as URLs carry them: a primary subtag
 * (two letters of ISO 639-1; three letters only with a subtag), then an
 * optional script and region subtag, '-' or '_' between (en, fr, de-de,
 * pt_BR, zh-Hans). *has_subtag (may be NULL) says whether a subtag
 * follows the primary one. */
int wn_learn_language_tag(const char *s, size_t len, int *has_subtag);
/* 1 if both lang values are given and their primary subtags differ
 * (ASCII case ignored). */
int wn_learn_lang_differs(const char *key_lang, const char *lang);
/* 1 if lang is given and has the primary subtag of tag[0..tag_len). */
int wn_learn_lang_agrees(const char *lang, const char *tag, size_t tag_len);
/* Rule b: 1 if page's lang differs from key's (wn_learn_lang_differs);
 * why (may be NULL) receives the reason for the report. */
int wn_learn_other_language(const wn_dom_page *key, const wn_dom_page *page, char *why,
                            size_t why_size);

typedef enum wn_learn_dup {
  WN_LEARN_DUP_NONE = 0,
  WN_LEARN_DUP_COPY,  /* the same elements and the same text */
  WN_LEARN_DUP_SHAPE  /* the same elements, text lines of the same lengths */
} wn_learn_dup;

/*
 * Rule c. Two pages are near-duplicates when the ETDM of one onto the
 * other pairs at least 95% of the elements of one page and 60% of the
 * other's (a translation keeps the tree, but for per-page boxes such as
 * its own related links) and either
 *  - COPY: the text it leaves unpaired (text nodes pair when their text
 *    is equal) is at most 1% of each page's text; or
 *  - SHAPE (a translation): the unpaired text, summed per block element
 *    and the blocks paired by the ETDM, has the same proportions on both
 *    pages: once one side is scaled by the ratio of the two totals, the
 *    paired blocks (at least 80% of each side's unpaired text, none over
 *    half of it) differ by at most 20% in sum, and the lengths of at
 *    least 5 blocks of 100 bytes or more correlate at 0.85 or more; and
 *    the words differ: of one page's unpaired words (letters, not digits;
 *    by occurrence), at most 28% occur in the other's, on the side where
 *    fewer do (pages of one site in one language share their language's
 *    common words).
 * *out says which. Costs one ETDM mapping. The constants and what they
 * were measured on: variants.c.
 */
wn_err wn_learn_near_duplicate(const wn_dom_page *a, const wn_dom_page *b, wn_learn_dup *out,
                               wn_diag *diag);
/* The report's reason for a near-duplicate of `of` ("the key page",
 * "page 3", a file name). */
void wn_learn_dup_message(wn_learn_dup dup, const char *of, char *why, size_t why_size);

/* Rule a, by path: 1 if url's path holds a language tag other than the
 * key page's where the key page's path holds its own, as a segment
 * (/en/x.html, /fr/x.html) or as a dot-separated part of the file name
 * after its first (x.en.html, x.fr.html; parts counted from the end). A
 * tag in the key page's path is its language when key_lang (the key
 * page's lang, may be NULL) has its primary subtag; when key_lang is
 * absent, when the tag has a subtag (de-de) or the two URLs differ in
 * that segment alone. why (may be NULL) receives the reason. */
int wn_learn_url_other_language(const char *key_url, const char *key_lang, const char *url,
                                char *why, size_t why_size);

/* ---- a page's links (links.c) ---------------------------------------------- */

/* One hyperlink of a page. */
typedef struct wn_link {
  char *url;     /* absolute, normalised, no fragment (malloc'd) */
  uint32_t node; /* index of the <a> element in the page's compact tree */
} wn_link;

/* The page's <a href> links to http(s) URLs in document order, resolved
 * against the page's <base href> (itself resolved against page_url) or
 * else page_url. Needs a page parsed with keep_xml. Links that do not
 * resolve are skipped; duplicates are kept (each is one place in the DOM).
 * At most max_links (0: 10000). Free with wn_links_free. */
wn_err wn_learn_links(const wn_dom_page *page, const char *page_url, size_t max_links,
                      wn_link **out, size_t *n_out, wn_diag *diag);
void wn_links_free(wn_link *links, size_t n);

/* The page's other versions by its own word (rule a above): the URLs of
 * <link rel="alternate" hreflang> elements and of <a hreflang> links
 * whose hreflang's primary subtag differs from the page's lang (none
 * when the page declares no lang), resolved as wn_learn_links does, in
 * document order, at most 1024. Needs keep_xml; a page without it has
 * none. Free with wn_links_free (node is WN_DOM_NONE). */
wn_err wn_learn_alternates(const wn_dom_page *page, const char *page_url, wn_link **out,
                           size_t *n_out, wn_diag *diag);

/* ---- the n-SET (nset.c): site-level paper, Sec. 2.1 -------------------------
 *
 * The paper ranks the key page's same-site links by "hyperlink distance"
 * (as close to zero as possible) and breaks ties by "DOM distance" (links
 * as far apart as possible in the key page's DOM), without formulas. Ours:
 *
 *  hyperlink distance h(K, U) between the key URL K and a link U: split
 *  both paths at '/' into segments (K = k1..km, U = u1..un; "/a/b/" has
 *  the segments a, b and ""), then
 *      h = |m - n| + #{ i <= min(m, n) : k_i !~ u_i } + (query K !~ query U)
 *  where x !~ y means the two differ after each run of digits is folded to
 *  one digit (story-123.html ~ story-9.html, 2015/11/20 ~ 2015/12/01: pages
 *  that differ only in numbers are the likeliest to share a template).
 *  Links to the key page itself, to other sites, duplicates of an
 *  earlier link and other versions of the key page (rule a of "Other
 *  versions of a page" above) are not candidates.
 *
 *  DOM distance between two link nodes: the number of edges on the tree
 *  path between them, depth(a) + depth(b) - 2 depth(lowest common
 *  ancestor).
 *
 *  Ranking: by h ascending; within one h, greedily for spread (farthest-
 *  first): the next candidate is the one whose smallest DOM distance to the
 *  candidates ranked so far (of any h) is largest, earlier in document
 *  order on a tie; the very first is the first in document order. Links in
 *  one menu point to pages of one kind; spread samples the page's regions.
 */

/* h as defined above for two normalised URLs; UINT32_MAX if either does
 * not parse. */
uint32_t wn_learn_hyperlink_distance(const char *key_url, const char *url);
/* Edges between nodes a and b of the page. */
uint32_t wn_learn_dom_distance(const wn_dom_page *page, uint32_t a, uint32_t b);

typedef struct wn_nset_candidate {
  size_t link;                 /* index in the links array */
  uint32_t hyperlink_distance;
  uint32_t dom_distance;       /* smallest DOM distance to the candidates
                                  ranked before it; UINT32_MAX for the first */
} wn_nset_candidate;

#define WN_NSET_MAX_CANDIDATES 4096u /* distinct same-site links considered */

/* Ranks the key page's links (from wn_learn_links) as above; the first
 * max_ranked (0: 64) are written to *out (malloc'd), best first. */
wn_err wn_learn_nset_rank(const wn_dom_page *key, const char *key_url, const wn_link *links,
                          size_t n_links, int by_domain, size_t max_ranked,
                          wn_nset_candidate **out, size_t *n_out, wn_diag *diag);

/* ---- learning a site by crawling (crawl_learn.c) ----------------------------------- */

typedef struct wn_learn_crawl_options {
  uint32_t n;             /* pages in the n-SET besides the key page;
                             default 4, the paper's best (Sec. 3, Table 1) */
  uint32_t max_fetches;   /* candidate pages fetched at most; default 4 n */
  double min_share;       /* a page must pair this share of the key page's
                             template nodes to join (check 1 above);
                             0: learn.min_share, or else 0.5 */
  int by_domain;          /* same site = registrable domain, not host */
  wn_learn_options learn; /* learn.algo: ETDM (tpl) or FastCE (fce) */
  wn_dom_options dom;     /* caps for parsing; transport_charset is ignored */
} wn_learn_crawl_options;

/* One page the crawl fetched (the key page first, then each candidate in
 * the order fetched). */
typedef struct wn_learn_crawl_page {
  char *url;               /* malloc'd */
  char *final_url;         /* after redirects, malloc'd, may be NULL */
  long http_status;
  uint64_t bytes;
  uint32_t fetch_ms;
  uint32_t hyperlink_distance; /* 0 for the key page */
  uint32_t dom_distance;       /* UINT32_MAX for the key page and the first */
  double share;            /* of the key page's template nodes it pairs */
  int used;                /* 1: learned from */
  uint32_t layout;         /* used: the layout learned into (0: the key page's) */
  wn_err err;              /* WN_OK, or why it was not used */
  char message[256];
} wn_learn_crawl_page;

typedef struct wn_learn_crawl_result {
  wn_template *tpl;        /* owned; NULL after wn_learn_crawl failed */
  wn_fastce *fce;          /* owned: the template when algo is FastCE (tpl NULL) */
  wn_learn_crawl_page *pages;
  size_t n_pages;
  size_t n_used;           /* pages learned from, the key page included */
  size_t n_links;          /* <a href> links on the key page */
  size_t n_candidates;     /* ranked candidates */
  uint32_t page_nodes;     /* nodes of the pages learned from */
  double network_ms;       /* wall time spent in wn_crawl_fetch waiting
                              for the network (wait_ms excluded) */
  double wait_ms;          /* wall time wn_crawl_fetch held requests back
                              for politeness (per-host delay, Crawl-delay)
                              with nothing in flight */
  double compute_ms;       /* wall time of our own work (parse, links,
                              rank, map, learn) */
} wn_learn_crawl_result;

/* Fetches the key page, ranks its links, fetches the best candidates,
 * keeps those that share the key page's template (replacing a page that
 * failed or does not with the next candidate, up to max_fetches), and
 * learns the template from the key page and the pages kept. A key page
 * that cannot be fetched or parsed fails with its fetch error and a message
 * naming the URL; so does a site where no candidate qualifies (WN_EEMPTY).
 * Fewer than n good pages is not an error: n_used says how many. *out is
 * set even on failure when the key page was fetched (for reporting); free
 * it with wn_learn_crawl_result_free. */
wn_err wn_learn_crawl(wn_crawl *crawl, const char *key_url, const wn_learn_crawl_options *opts,
                      wn_learn_crawl_result **out, wn_diag *diag);
void wn_learn_crawl_result_free(wn_learn_crawl_result *result);

/* ---- FastCE path templates (fastce.c) ---------------------------------------
 *
 * The second learning algorithm: FastContentExtractor's preparation phase
 * (the FastContentExtractor paper, Sec. III; the template is
 * template/fastce_template.h). */

/* Learns a FastCE template from all the pages (2 to WN_LEARN_MAX_PAGES):
 * partition, ContentExtractor's cosine test per path, content paths and
 * the stored non-content blocks on them. WN_EEMPTY when no block is
 * content (nothing but recurring blocks). */
wn_err wn_learn_fastce(const wn_dom_page *const *pages, size_t n_pages, wn_fastce **out,
                       wn_diag *diag);

/* wn_learn_pages's check 1 (pages[0] is the key page; force uses every
 * page), then wn_learn_fastce on the pages used. checks as there. With
 * opts->selector WN_SELECT_PAPER the template is the paper's as stated;
 * otherwise the site rules apply too (docs/fastce.md): a content path
 * where DANAg keeps under half the samples' text there is dropped, and
 * detection leaves out link-text blocks on content paths. */
wn_err wn_learn_fastce_pages(const wn_dom_page *const *pages, size_t n_pages,
                             const wn_learn_options *opts, wn_fastce **out,
                             wn_learn_check *checks, wn_diag *diag);

#endif /* WN_LEARN_H */
