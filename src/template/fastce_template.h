/*
 * template/fastce_template.h: FastCE path templates, the second learning algorithm
 * (the FastContentExtractor paper, "FastContentExtractor").
 *
 * A page is partitioned into blocks (Sec. II, after ContentExtractor): a
 * block is an element of one of the block tags below; its *own content*
 * is what lies in it outside its sub-blocks (Fig. 3: the <p> with its
 * <span>s taken out, and each <span>). Each block has a feature vector
 * (terms, hyperlinks, images: Sec. II) and a traversal path, the string
 * of block tags from <html> down to it, "html.body.div.p" (Sec. III).
 *
 * The template (what src/learn builds, src/store keeps, src/detect uses):
 *  - P, the content paths: paths of blocks that are content on a sample
 *    page (blocks whose feature vector recurs on few other sample pages);
 *  - the stored non-content blocks: blocks that recur (non-content) whose
 *    path is in P, kept with their feature vectors so that detection can
 *    tell them from content at the same path (Sec. III).
 *
 * Record (little-endian, version WN_FASTCE_FORMAT_VERSION):
 *   "WNFC" u8 version, u16 sample_pages, u16 similarity x 1000, u8 flags
 *   (WN_FASTCE_FLAG_*; format 2 only),
 *   varint n_paths, per path: varint length, the path bytes, u8 pages
 *   (sample pages holding content there), varint text (bytes of content
 *   text on the path per sample page, rounded; format 2 only: format 1,
 *   still read, has no such field and reads as 0);
 *   varint n_blocks, per stored block: varint path index, varint n_terms,
 *   per term: u32 term hash, varint count (terms ascending); varint
 *   sample length, sample bytes (the block's first words, for show);
 *   u32 CRC-32 (zlib) of everything before it.
 * Decoding takes (bytes, len) and trusts nothing: every count is checked
 * against the caps and the bytes left, paths must be sorted and distinct,
 * terms ascending; anything else is WN_ECORRUPT / WN_EVERSION with a
 * message, never a crash.
 */
#ifndef WN_TEMPLATE_FASTCE_TEMPLATE_H
#define WN_TEMPLATE_FASTCE_TEMPLATE_H

#include <stddef.h>
#include <stdint.h>

#include "dom/dom.h"
#include "util/util.h"

#define WN_FASTCE_FORMAT_VERSION 2u
#define WN_FASTCE_MAX_PATHS 4096u        /* content paths kept */
#define WN_FASTCE_MAX_PATH_BYTES 1024u   /* a path string ("html.body...") */
#define WN_FASTCE_MAX_STORED 4096u       /* stored non-content blocks */
#define WN_FASTCE_MAX_TERMS 512u         /* distinct features of one block */
#define WN_FASTCE_MAX_SAMPLE 80u         /* bytes of a stored block's text kept for show */
#define WN_FASTCE_MAX_BLOCKS 200000u     /* blocks of one page */
/* ContentExtractor's similarity test: two blocks are similar when the
 * cosine of their feature vectors is above 0.9 (paper, Sec. II). */
#define WN_FASTCE_SIMILARITY 0.9

/* The template was learned with the site-level rules on top of the
 * paper's (docs/fastce.md, "Beyond the paper"): detection then also leaves
 * out a block on a content path whose own text is mostly link text. */
#define WN_FASTCE_FLAG_SITE 1u
#define WN_FASTCE_FLAGS_KNOWN WN_FASTCE_FLAG_SITE
/* Detection's link rule: own link text above this share of own text. */
#define WN_FASTCE_MAX_LINK_SHARE 0.5

/* Feature dimensions besides terms: hyperlinks and images (Sec. II; the
 * compact tree holds no scripts, so that dimension is always 0). */
#define WN_FASTCE_FEATURE_LINK 1u
#define WN_FASTCE_FEATURE_IMAGE 2u

typedef struct wn_fastce_term {
  uint32_t hash;  /* a term's hash, or one of the WN_FASTCE_FEATURE_* */
  uint32_t count;
} wn_fastce_term;

/* One block of a partitioned page. */
typedef struct wn_fastce_block {
  uint32_t node;        /* the element in the compact tree */
  uint32_t parent;      /* enclosing block (index in blocks), WN_DOM_NONE for the root */
  uint64_t path;        /* hash of the path string (wn_hash_bytes of "html.body...") */
  uint32_t term_first;  /* own-content features: terms[term_first, +n_terms) */
  uint32_t n_terms;
  uint32_t text_len;    /* bytes of own text */
  uint32_t n_sub;       /* sub-blocks (direct) */
  double norm;          /* Euclidean length of the feature vector */
} wn_fastce_block;

/* A page's blocks in document order (block 0 is <html>), all from arena. */
typedef struct wn_fastce_blocks {
  wn_fastce_block *blocks;
  uint32_t n;
  wn_fastce_term *terms;
  uint32_t *block_of;   /* per page node: the block whose own content it is */
} wn_fastce_blocks;

/* 1 if the tag is a block tag. The paper names TABLE, TR, HR, UL, P,
 * SPAN, DIV ("such as", Sec. I); ours: those but SPAN, with their HTML
 * siblings (ol, dl, pre, blockquote, h1-h6, form) and the HTML5 sectioning
 * elements, which later pages use where 2009's used tables. span, li, td
 * and th are parts of their block: chosen on half of the sites, where
 * making them blocks too, or keeping to the paper's list, did worse
 * (docs/fastce.md). html and body are blocks: tag1 of
 * every path is HTML (Sec. III). */
int wn_fastce_is_block(const wn_dom_node *node);

/* Partitions page into blocks. WN_ETOOMANY past WN_FASTCE_MAX_BLOCKS. */
wn_err wn_fastce_partition(const wn_dom_page *page, wn_arena *arena, wn_fastce_blocks *out,
                           wn_diag *diag);
typedef struct wn_fastce wn_fastce;
/* The same for detection against fce: only blocks whose path holds
 * stored non-content blocks get their features (the only ones detection
 * compares); the others have none. */
wn_err wn_fastce_partition_for(const wn_dom_page *page, const wn_fastce *fce, wn_arena *arena,
                               wn_fastce_blocks *out, wn_diag *diag);
/* Appends the path string of block b ("html.body.div.p"), at most
 * WN_FASTCE_MAX_PATH_BYTES; WN_ETOOBIG past it. */
wn_err wn_fastce_path_string(const wn_dom_page *page, const wn_fastce_blocks *blocks, uint32_t b,
                             wn_buf *out);
/* Cosine of two feature vectors (terms ascending); 0 if either is empty. */
double wn_fastce_cosine(const wn_fastce_term *a, uint32_t na, const wn_fastce_term *b,
                        uint32_t nb);
/* The same with the vectors' lengths known (wn_fastce_norm): learning and
 * detection compare each block many times. */
double wn_fastce_cosine_n(const wn_fastce_term *a, uint32_t na, double norm_a,
                          const wn_fastce_term *b, uint32_t nb, double norm_b);
double wn_fastce_norm(const wn_fastce_term *a, uint32_t na);

/* ---- the template ------------------------------------------------------- */

typedef struct wn_fastce_stored {
  uint32_t path;        /* index into the paths */
  const wn_fastce_term *terms;
  uint32_t n_terms;
  const char *sample;   /* NUL-terminated */
  double norm;          /* Euclidean length of the feature vector */
} wn_fastce_stored;

/* A builder: add paths and stored blocks, then finish. */
wn_fastce *wn_fastce_new(uint32_t sample_pages);
void wn_fastce_free(wn_fastce *fce);
/* Adds a content path (counts the sample page for it when it is there
 * already): its index, or WN_DOM_NONE past the caps. */
uint32_t wn_fastce_add_path(wn_fastce *fce, const char *path, size_t len);
/* Stores a non-content block at path index p (terms ascending; copied,
 * cut to WN_FASTCE_MAX_TERMS). WN_ETOOMANY past WN_FASTCE_MAX_STORED. */
wn_err wn_fastce_add_stored(wn_fastce *fce, uint32_t p, const wn_fastce_term *terms,
                            uint32_t n_terms, const char *sample, size_t sample_len);
/* Sorts the paths (stored blocks follow) and builds the lookup. */
wn_err wn_fastce_finish(wn_fastce *fce, wn_diag *diag);

uint32_t wn_fastce_path_count(const wn_fastce *fce);
const char *wn_fastce_path(const wn_fastce *fce, uint32_t i, uint32_t *pages);
/* Bytes of content text on path i per sample page (0: not known, a format
 * 1 record); the setter is the builder's. */
uint32_t wn_fastce_path_text(const wn_fastce *fce, uint32_t i);
uint32_t wn_fastce_flags(const wn_fastce *fce);
void wn_fastce_set_flags(wn_fastce *fce, uint32_t flags);
void wn_fastce_set_path_text(wn_fastce *fce, uint32_t i, uint32_t bytes);
uint32_t wn_fastce_sample_pages(const wn_fastce *fce);
uint32_t wn_fastce_stored_count(const wn_fastce *fce);
/* Stored blocks on path index p (0 before wn_fastce_finish). */
uint32_t wn_fastce_stored_on(const wn_fastce *fce, uint32_t p);
wn_fastce_stored wn_fastce_stored_get(const wn_fastce *fce, uint32_t i);
/* The index of the path with this hash, or WN_DOM_NONE. */
uint32_t wn_fastce_find(const wn_fastce *fce, uint64_t path_hash);
/* The first stored non-content block of path index p whose features are
 * similar (cosine > WN_FASTCE_SIMILARITY) to these, or WN_DOM_NONE. */
uint32_t wn_fastce_stored_like(const wn_fastce *fce, uint32_t p, const wn_fastce_term *terms,
                               uint32_t n_terms, double norm);
/* 1 if the features are similar (cosine > WN_FASTCE_SIMILARITY) to a
 * stored non-content block of path index p. */
int wn_fastce_is_stored(const wn_fastce *fce, uint32_t p, const wn_fastce_term *terms,
                        uint32_t n_terms, double norm);

wn_err wn_fastce_encode(const wn_fastce *fce, wn_buf *out, wn_diag *diag);
wn_err wn_fastce_decode(const void *bytes, size_t len, wn_fastce **out, wn_diag *diag);

#endif /* WN_TEMPLATE_FASTCE_TEMPLATE_H */
