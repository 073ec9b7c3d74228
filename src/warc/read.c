/* warc/read.c: reading WARC files (ISO 28500:2009 and :2017).
 *
 * Two layers. The stream layer turns the file into the uncompressed WARC
 * byte stream: plain bytes, or gzip through zlib (windowBits 15 + 32, one
 * inflate restarted at each member, so a file of one member per record,
 * as the standard's annex on compression recommends, and a file gzipped
 * whole read alike). The record layer keeps a window of that stream, of a
 * fixed size allocated once (a header cap plus a block cap): a record
 * (header, block of Content-Length bytes, CRLF CRLF; ISO 28500:2009, 4)
 * is read only if it fits, so no header can make the reader allocate what
 * it claims. A record that does not end where its Content-Length says, or
 * whose header does not parse, is damage: it is reported, and the reader
 * looks for the next "WARC/1.x" version line from just after the damaged
 * record's start (the window still holds the bytes, so a Content-Length
 * that lies long does not swallow the records after it).
 */
#include "warc/warc.h"
#include "fetch/fetch.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define WN_WARC_CHUNK ((size_t)64 * 1024) /* one read from the file or zlib */
#define WN_WARC_MEMBERS 1024u             /* gzip member starts remembered */
#define WN_WARC_FIELD_MAX 8192u           /* bytes of one kept header value */

struct wn_warc_reader {
  char *path;
  FILE *f;
  int own_file;
  wn_warc_reader_options opts;
  wn_err fatal; /* an error that stops the reading (I/O, memory) */
  wn_diag fatal_diag;

  /* Stream layer. zin holds file bytes; zin_base is the file offset of
   * zin[0]. */
  int gz;
  z_stream zs;
  int zs_ready;
  unsigned char *zin;
  uint64_t zin_base;
  int in_eof;
  int member_open;
  int member_damaged; /* the last member ended in an error: no second report */
  uint64_t out_total; /* uncompressed bytes produced */
  struct {
    uint64_t stream, file;
  } members[WN_WARC_MEMBERS]; /* ring of (stream, file) offsets of member starts */
  size_t m_first, m_count;

  /* Record layer: win[wpos, wend) is the stream from offset win_off + wpos. */
  unsigned char *win;
  size_t win_cap, wpos, wend;
  size_t win_max; /* what the caps can need: a whole header and block */
  uint64_t win_off;
  int src_eof;

  /* A segment (start_offset, end_offset): seeking until the first record
   * is read (the bytes before it are no damage); done past the end. */
  int seeking, done;

  wn_buf strings; /* the current record's header values and HTTP fields */
  wn_buf dechunked, decoded;
  wn_warc_stats stats;
};

void wn_warc_reader_options_init(wn_warc_reader_options *opts) {
  memset(opts, 0, sizeof *opts);
  opts->max_header_bytes = (size_t)64 * 1024;
  opts->max_block_bytes = WN_PAGE_MAX_BYTES + (size_t)64 * 1024;
  opts->max_payload_bytes = WN_PAGE_MAX_BYTES;
}

void wn_warc_reader_stats_get(const wn_warc_reader *reader, wn_warc_stats *out) {
  if (!reader) {
    memset(out, 0, sizeof *out);
    return;
  }
  *out = reader->stats;
}

static void set_fatal(wn_warc_reader *r, wn_err err, const char *what) {
  if (r->fatal)
    return;
  r->fatal = err;
  wn_diag_set(&r->fatal_diag, err, "%s: %s", r->path, what);
}

/* The file offset of the gzip member holding stream offset s (plain: s). */
static uint64_t member_of(wn_warc_reader *r, uint64_t s) {
  if (!r->gz)
    return s;
  uint64_t file = 0;
  for (size_t k = r->m_count; k-- > 0;) {
    size_t i = (r->m_first + k) % WN_WARC_MEMBERS;
    if (r->members[i].stream <= s) {
      file = r->members[i].file;
      /* the records before s are done: forget the members before this one */
      r->m_first = i;
      r->m_count -= k;
      break;
    }
  }
  return file;
}

static void report(wn_warc_reader *r, uint64_t stream_off, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* One damage report: counted, and handed to on_damage with the file and
 * the offset. */
static void report(wn_warc_reader *r, uint64_t stream_off, const char *fmt, ...) {
  if (r->seeking)
    return; /* the bytes before a segment's first record */
  r->stats.damaged++;
  if (!r->opts.on_damage)
    return;
  char what[384];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  char msg[640];
  if (r->gz)
    snprintf(msg, sizeof msg,
             "%s: record at offset %" PRIu64 " (gzip member at byte %" PRIu64 "): %s", r->path,
             stream_off, member_of(r, stream_off), what);
  else
    snprintf(msg, sizeof msg, "%s: record at offset %" PRIu64 ": %s", r->path, stream_off, what);
  r->opts.on_damage(msg, r->opts.damage_ctx);
}

/* A report about the compressed file itself, at a file offset. */
static void report_gzip(wn_warc_reader *r, uint64_t file_off, const char *what) {
  if (r->seeking)
    return; /* the bytes before a segment's first member */
  r->stats.damaged++;
  if (!r->opts.on_damage)
    return;
  char msg[640];
  snprintf(msg, sizeof msg, "%s: gzip data at byte %" PRIu64 ": %s", r->path, file_off, what);
  r->opts.on_damage(msg, r->opts.damage_ctx);
}

/* ---- the stream layer ------------------------------------------------------ */

/* At least need unread file bytes in zin (fewer at the end of the file);
 * returns how many there are. */
static size_t in_top_up(wn_warc_reader *r, size_t need) {
  if (r->zs.avail_in >= need || r->in_eof || r->fatal)
    return r->zs.avail_in;
  size_t consumed = (size_t)(r->zs.next_in - r->zin);
  r->zin_base += consumed;
  if (r->zs.avail_in)
    memmove(r->zin, r->zs.next_in, r->zs.avail_in);
  r->zs.next_in = r->zin;
  while (r->zs.avail_in < need && !r->in_eof) {
    size_t got = fread(r->zin + r->zs.avail_in, 1, WN_WARC_CHUNK - r->zs.avail_in, r->f);
    if (got == 0) {
      if (ferror(r->f))
        set_fatal(r, WN_EIO, strerror(errno));
      r->in_eof = 1;
    }
    r->zs.avail_in += (uInt)got;
  }
  return r->zs.avail_in;
}

static uint64_t in_offset(const wn_warc_reader *r) {
  return r->zin_base + (uint64_t)(r->zs.next_in - r->zin);
}

static void in_skip(wn_warc_reader *r, size_t n) {
  r->zs.next_in += n;
  r->zs.avail_in -= (uInt)n;
}

/* Finds the next gzip member (magic 1f 8b, method 8; RFC 1952, 2.3.1) and
 * starts inflating it: 1, or 0 at the end of the file. Zero bytes between
 * members (padding) are skipped silently, anything else is reported once. */
static int gz_start_member(wn_warc_reader *r) {
  int reported = r->member_damaged;
  r->member_damaged = 0;
  for (;;) {
    size_t have = in_top_up(r, 3);
    if (have == 0 || r->fatal)
      return 0;
    const unsigned char *p = r->zs.next_in;
    if (have >= 3 && p[0] == 0x1f && p[1] == 0x8b && p[2] == 8)
      break;
    if (p[0] == 0 && !reported) {
      in_skip(r, 1);
      continue;
    }
    if (!reported) {
      report_gzip(r, in_offset(r), "not a gzip member; skipping to the next member");
      reported = 1;
    }
    const unsigned char *next = have > 1 ? memchr(p + 1, 0x1f, have - 1) : NULL;
    in_skip(r, next ? (size_t)(next - p) : have);
  }
  if (inflateReset(&r->zs) != Z_OK) {
    set_fatal(r, WN_ENOMEM, "zlib: cannot reset inflate");
    return 0;
  }
  size_t i = (r->m_first + r->m_count) % WN_WARC_MEMBERS;
  if (r->m_count == WN_WARC_MEMBERS) {
    r->m_first = (r->m_first + 1) % WN_WARC_MEMBERS; /* oldest forgotten */
    r->m_count--;
  }
  r->members[i].stream = r->out_total;
  r->members[i].file = in_offset(r);
  r->m_count++;
  r->member_open = 1;
  return 1;
}

/* Up to n uncompressed bytes into dst: how many (0 at the end). */
static size_t src_read(wn_warc_reader *r, unsigned char *dst, size_t n) {
  if (n > WN_WARC_CHUNK * 16)
    n = WN_WARC_CHUNK * 16;
  if (!r->gz) {
    size_t got = 0;
    if (r->zs.avail_in) { /* the bytes read to sniff the format */
      got = r->zs.avail_in < n ? r->zs.avail_in : n;
      memcpy(dst, r->zs.next_in, got);
      in_skip(r, got);
    } else if (!r->in_eof) {
      got = fread(dst, 1, n, r->f);
      if (got == 0) {
        if (ferror(r->f))
          set_fatal(r, WN_EIO, strerror(errno));
        r->in_eof = 1;
      }
    }
    r->out_total += got;
    return got;
  }
  r->zs.next_out = dst;
  r->zs.avail_out = (uInt)n;
  while (r->zs.avail_out == n && !r->fatal) {
    if (!r->member_open && !gz_start_member(r))
      break;
    if (in_top_up(r, 1) == 0) {
      if (!r->fatal)
        report_gzip(r, in_offset(r), "the file ends inside a gzip member (truncated)");
      r->member_open = 0;
      break;
    }
    int ret = inflate(&r->zs, Z_NO_FLUSH);
    if (ret == Z_STREAM_END) {
      r->member_open = 0;
    } else if (ret == Z_DATA_ERROR || ret == Z_NEED_DICT || ret == Z_STREAM_ERROR) {
      char what[256];
      snprintf(what, sizeof what, "damaged gzip member (%s); skipping to the next member",
               r->zs.msg ? r->zs.msg : "bad data");
      report_gzip(r, in_offset(r), what);
      r->member_open = 0;
      r->member_damaged = 1;
    } else if (ret == Z_MEM_ERROR) {
      set_fatal(r, WN_ENOMEM, "zlib: out of memory");
    }
  }
  size_t got = n - r->zs.avail_out;
  r->out_total += got;
  return got;
}

/* ---- the record layer ------------------------------------------------------ */

/* At least need bytes from wpos in the window (fewer at the end of the
 * stream); returns how many there are. need must not exceed win_max: the
 * window starts small and grows to hold a record that needs it. */
static size_t win_fill(wn_warc_reader *r, size_t need) {
  if (r->wend - r->wpos < need && r->wpos + need > r->win_cap && r->win_cap < r->win_max) {
    if (r->wpos > 0) {
      memmove(r->win, r->win + r->wpos, r->wend - r->wpos);
      r->win_off += r->wpos;
      r->wend -= r->wpos;
      r->wpos = 0;
    }
    if (need > r->win_cap) {
      size_t cap = r->win_cap * 2 > need + WN_WARC_CHUNK ? r->win_cap * 2 : need + WN_WARC_CHUNK;
      if (cap > r->win_max)
        cap = r->win_max;
      unsigned char *grown = realloc(r->win, cap);
      if (!grown) {
        set_fatal(r, WN_ENOMEM, "out of memory for a record's window");
        return r->wend - r->wpos;
      }
      r->win = grown;
      r->win_cap = cap;
    }
  }
  while (r->wend - r->wpos < need && !r->src_eof && !r->fatal) {
    /* Slide the unread bytes down when the window runs out of room, and
     * early (past 4 chunks read) so that reading small records stays in a
     * few hundred KiB of cache; the unread part is then at most what one
     * read brought beyond the need, so the move is short. */
    if (r->wpos > 0 && (r->win_cap - r->wend < WN_WARC_CHUNK || r->wpos >= 4 * WN_WARC_CHUNK)) {
      memmove(r->win, r->win + r->wpos, r->wend - r->wpos);
      r->win_off += r->wpos;
      r->wend -= r->wpos;
      r->wpos = 0;
    }
    size_t room = r->win_cap - r->wend;
    if (room == 0)
      break;
    size_t want = need - (r->wend - r->wpos);
    if (want < WN_WARC_CHUNK)
      want = WN_WARC_CHUNK;
    size_t got = src_read(r, r->win + r->wend, want < room ? want : room);
    if (got == 0)
      r->src_eof = 1;
    r->wend += got;
  }
  return r->wend - r->wpos;
}

/* Moves wpos to the next "WARC/1.<digit>" and line end after wpos: 1, or
 * 0 (wpos at the end) if there is none. Not only at a line start: a file
 * cut short and another appended to it put the next record mid-line. */
static int resync(wn_warc_reader *r) {
  static const char mark[] = "WARC/1.";
  const size_t mlen = sizeof mark - 1, need = mlen + 3; /* digit, CR LF */
  if (r->wpos < r->wend)
    r->wpos++; /* not the record that failed */
  for (;;) {
    size_t have = win_fill(r, need);
    if (have < mlen + 2) {
      r->wpos = r->wend;
      return 0;
    }
    const unsigned char *base = r->win + r->wpos;
    const unsigned char *p = base;
    const unsigned char *end = base + have;
    while ((p = memchr(p, 'W', (size_t)(end - p))) != NULL) {
      if ((size_t)(end - p) < need)
        break;
      if (memcmp(p, mark, mlen) == 0 && wn_ascii_digit(p[mlen]) &&
          (p[mlen + 1] == '\n' || (p[mlen + 1] == '\r' && p[mlen + 2] == '\n'))) {
        r->wpos += (size_t)(p - base);
        return 1;
      }
      p++;
    }
    /* keep the tail that may start the mark, read on */
    r->wpos = r->wend - (need - 1);
    if (r->src_eof) {
      r->wpos = r->wend;
      return 0;
    }
    win_fill(r, (r->wend - r->wpos) + WN_WARC_CHUNK);
  }
}

typedef struct record {
  uint64_t offset;
  size_t type, id, date, uri, ctype, digest; /* offsets into strings, 0: none */
  uint64_t content_length;
  const char *block;
  size_t block_len;
  int skipped; /* too big: counted, block not read */
} record;

static int ieq_n(const char *a, size_t alen, const char *b) {
  size_t blen = strlen(b);
  if (alen != blen)
    return 0;
  for (size_t i = 0; i < alen; i++) {
    int x = (unsigned char)a[i], y = (unsigned char)b[i];
    if (wn_ascii_capital(x))
      x += 32;
    if (wn_ascii_capital(y))
      y += 32;
    if (x != y)
      return 0;
  }
  return 1;
}

/* Keeps a value in strings; its offset (never 0: strings starts with a
 * NUL), or 0 if it cannot be kept. */
static size_t keep(wn_warc_reader *r, const char *s, size_t len) {
  if (len > WN_WARC_FIELD_MAX)
    len = WN_WARC_FIELD_MAX;
  size_t at = r->strings.len;
  if (wn_buf_append(&r->strings, s, len) || wn_buf_append_char(&r->strings, '\0'))
    return 0;
  return at;
}

static const char *str(const wn_warc_reader *r, size_t at) {
  return at ? r->strings.data + at : NULL;
}

/* Parses the header lines of win[wpos, wpos + hlen) into rec. 0, or -1 if
 * there is no usable Content-Length. */
static int parse_header(wn_warc_reader *r, size_t hlen, record *rec) {
  const char *h = (const char *)r->win + r->wpos;
  const char *nl = memchr(h, '\n', hlen);
  size_t i = nl ? (size_t)(nl - h) + 1 : hlen; /* past the version line */
  int have_length = 0;
  while (i < hlen) {
    nl = memchr(h + i, '\n', hlen - i);
    size_t end = nl ? (size_t)(nl - h) : hlen;
    const char *line = h + i;
    size_t n = end - i;
    i = end + 1;
    if (n && line[n - 1] == '\r')
      n--;
    if (n == 0)
      break;
    const char *colon = memchr(line, ':', n);
    if (!colon || line[0] == ' ' || line[0] == '\t')
      continue; /* a folded line (obsolete) or a stray one: no field we keep */
    size_t name_len = (size_t)(colon - line);
    const char *v = colon + 1;
    size_t vlen = n - name_len - 1;
    while (vlen && wn_http_space(*v)) {
      v++;
      vlen--;
    }
    while (vlen && wn_http_space(v[vlen - 1]))
      vlen--;
    if (ieq_n(line, name_len, "Content-Length")) {
      uint64_t x = 0;
      size_t k = 0;
      for (; k < vlen && wn_ascii_digit(v[k]) && k < 19; k++)
        x = x * 10 + (uint64_t)(v[k] - '0');
      if (k == 0 || k != vlen)
        return -1;
      rec->content_length = x;
      have_length = 1;
    } else if (ieq_n(line, name_len, "WARC-Type")) {
      rec->type = keep(r, v, vlen);
    } else if (ieq_n(line, name_len, "WARC-Record-ID")) {
      rec->id = keep(r, v, vlen);
    } else if (ieq_n(line, name_len, "WARC-Date")) {
      rec->date = keep(r, v, vlen);
    } else if (ieq_n(line, name_len, "WARC-Target-URI")) {
      /* WARC 1.0's grammar put the URI in angle brackets and some tools
       * followed it; WARC 1.1 dropped them (its Annex on changes). */
      if (vlen >= 2 && v[0] == '<' && v[vlen - 1] == '>') {
        v++;
        vlen -= 2;
      }
      rec->uri = keep(r, v, vlen);
    } else if (ieq_n(line, name_len, "Content-Type")) {
      rec->ctype = keep(r, v, vlen);
    } else if (ieq_n(line, name_len, "WARC-Block-Digest")) {
      rec->digest = keep(r, v, vlen);
    }
  }
  return have_length ? 0 : -1;
}

/* Reads the next record: 1 (rec filled; its block is in the window until
 * the next call, unless rec->skipped), 0 at the end, -1 on a fatal error. */
static int read_record(wn_warc_reader *r, record *rec) {
  const size_t max_header = r->opts.max_header_bytes;
  for (;;) {
    memset(rec, 0, sizeof *rec);
    wn_buf_reset(&r->strings);
    wn_buf_append_char(&r->strings, '\0');
    /* Records are followed by CRLF CRLF; tolerate more blank lines. */
    for (;;) {
      if (win_fill(r, 1) == 0)
        return r->fatal ? -1 : 0;
      unsigned char c = r->win[r->wpos];
      if (c != '\r' && c != '\n')
        break;
      r->wpos++;
    }
    uint64_t off = r->win_off + r->wpos;
    rec->offset = off;
    size_t have = win_fill(r, 8);
    if (have < 7 || memcmp(r->win + r->wpos, "WARC/1.", 7) != 0) {
      if (r->fatal)
        return -1;
      report(r, off, "no WARC/1.x version line; looking for the next record");
      resync(r);
      continue;
    }
    r->stats.records++;
    r->seeking = 0;
    /* The header ends at an empty line (CRLF CRLF; bare LF tolerated). */
    size_t hlen = 0, scanned = 0, want = 4096;
    for (;;) {
      if (want > max_header + 4)
        want = max_header + 4;
      have = win_fill(r, want);
      const unsigned char *h = r->win + r->wpos;
      size_t lim = have < want ? have : want;
      for (size_t i = scanned; i + 1 < lim; i++) {
        if (h[i] != '\n')
          continue;
        if (h[i + 1] == '\n') {
          hlen = i + 2;
          break;
        }
        if (h[i + 1] == '\r' && i + 2 < lim && h[i + 2] == '\n') {
          hlen = i + 3;
          break;
        }
      }
      if (hlen || have < want || want >= max_header + 4)
        break;
      scanned = lim > 2 ? lim - 2 : 0;
      want *= 2;
    }
    if (r->fatal)
      return -1;
    if (!hlen) {
      if (have >= max_header) {
        r->stats.skipped_too_big++;
        report(r, off, "header longer than %zu bytes; looking for the next record", max_header);
      } else {
        report(r, off, "truncated in its header");
      }
      resync(r);
      continue;
    }
    if (parse_header(r, hlen, rec) != 0) {
      report(r, off, "no valid Content-Length; looking for the next record");
      resync(r);
      continue;
    }
    uint64_t cl = rec->content_length;
    if (cl > r->opts.max_block_bytes) {
      /* Skipped unread, streaming: never held whole. A Content-Length that
       * lies long here takes the rest of the file with it; it is reported
       * as truncated. */
      r->stats.skipped_too_big++;
      rec->skipped = 1;
      r->wpos += hlen;
      uint64_t left = cl;
      while (left) {
        size_t avail = r->wend - r->wpos;
        if (!avail && win_fill(r, 1) == 0)
          break;
        avail = r->wend - r->wpos;
        size_t take = avail < left ? avail : (size_t)left;
        r->wpos += take;
        left -= take;
      }
      if (left) {
        if (r->fatal)
          return -1;
        report(r, off, "truncated: Content-Length %" PRIu64 ", %" PRIu64 " bytes missing", cl,
               left);
        return 0;
      }
      have = win_fill(r, 4);
      const unsigned char *t = r->win + r->wpos;
      if (have >= 2 && t[0] == '\r' && t[1] == '\n')
        r->wpos += have >= 4 && t[2] == '\r' && t[3] == '\n' ? 4 : 2;
      return 1;
    }
    size_t total = hlen + (size_t)cl;
    have = win_fill(r, total + 4);
    if (r->fatal)
      return -1;
    if (have < total) {
      report(r, off, "truncated: Content-Length %" PRIu64 ", %zu bytes left", cl, have - hlen);
      r->wpos += hlen;
      resync(r); /* a file cut short, then another file: read that one */
      continue;
    }
    const unsigned char *t = r->win + r->wpos + total;
    size_t tail = have - total;
    size_t trailer = 0;
    if (tail >= 4 && memcmp(t, "\r\n\r\n", 4) == 0)
      trailer = 4;
    else if (tail >= 2 && t[0] == '\n' && t[1] == '\n')
      trailer = 2;
    else if (tail == 0 || (tail == 2 && t[0] == '\r' && t[1] == '\n') ||
             (tail == 1 && t[0] == '\n'))
      trailer = tail; /* the stream's end: the last record lost its blank lines */
    else {
      report(r, off,
             "Content-Length %" PRIu64 " does not end at the record's end (no CRLF CRLF "
             "after the block); looking for the next record",
             cl);
      r->wpos += hlen;
      resync(r);
      continue;
    }
    rec->block = (const char *)r->win + r->wpos + hlen;
    rec->block_len = (size_t)cl;
    r->wpos += total + trailer;
    return 1;
  }
}

/* ---- pages ----------------------------------------------------------------- */

static int starts_with_ci(const char *s, const char *prefix) {
  size_t n = strlen(prefix);
  return s && strlen(s) >= n && ieq_n(s, n, prefix);
}

/* Does the Content-Encoding value name a coding we undo? 1 yes, 0 identity
 * or none, -1 one we do not (br, zstd, compress). */
static int coding_of(const char *v, size_t len) {
  while (len && wn_http_space(*v)) {
    v++;
    len--;
  }
  while (len && wn_http_space(v[len - 1]))
    len--;
  if (len == 0 || ieq_n(v, len, "identity"))
    return 0;
  if (ieq_n(v, len, "gzip") || ieq_n(v, len, "x-gzip") || ieq_n(v, len, "deflate"))
    return 1;
  return -1;
}

wn_err wn_warc_next(wn_warc_reader *r, wn_warc_page *page, wn_diag *diag) {
  if (!r || !page)
    return wn_diag_set(diag, WN_EINVAL, "wn_warc_next: no reader or page");
  memset(page, 0, sizeof *page);
  for (;;) {
    if (r->fatal)
      break;
    if (r->done)
      return WN_ENOTFOUND;
    record rec;
    const wn_warc_stats before = r->stats;
    int rc = read_record(r, &rec);
    if (rc < 0)
      break;
    if (rc == 0)
      return WN_ENOTFOUND; /* the end of the file, as LMDB's MDB_NOTFOUND */
    if (r->opts.end_offset && member_of(r, rec.offset) >= r->opts.end_offset) {
      r->stats = before; /* the next segment's record */
      r->done = 1;
      return WN_ENOTFOUND;
    }
    if (rec.skipped)
      continue;
    page->warc_type = str(r, rec.type);
    page->target_uri = str(r, rec.uri);
    page->record_id = str(r, rec.id);
    page->date = str(r, rec.date);
    page->block_digest = str(r, rec.digest);
    page->offset = rec.offset;
    page->file_offset = member_of(r, rec.offset);
    if (r->opts.every_record) {
      page->content_type = str(r, rec.ctype);
      page->payload = rec.block;
      page->payload_len = rec.block_len;
      r->stats.pages++;
      return WN_OK;
    }
    /* response records of HTTP (ISO 28500:2009, 6, the 'response' type); others, and
     * responses of other schemes (dns:), are not pages */
    if (!page->warc_type || !ieq_n(page->warc_type, strlen(page->warc_type), "response") ||
        (rec.ctype && !starts_with_ci(str(r, rec.ctype), "application/http"))) {
      r->stats.skipped_type++;
      continue;
    }
    wn_warc_http http;
    wn_diag hd = {{0}};
    wn_err err = wn_warc_http_parse(rec.block, rec.block_len, r->opts.max_header_bytes, &http, &hd);
    if (err == WN_ETOOBIG) {
      r->stats.skipped_too_big++;
      continue;
    }
    if (err) {
      report(r, rec.offset, "%s", hd.msg);
      continue;
    }
    if (!r->opts.all_statuses && (http.status < 200 || http.status > 299)) {
      r->stats.skipped_status++;
      continue;
    }
    if (http.content_type && !wn_warc_http_type_is_html(http.content_type, http.content_type_len)) {
      r->stats.skipped_not_html++;
      continue;
    }
    const char *body = http.body;
    size_t body_len = http.body_len;
    if (http.chunked) {
      wn_buf_reset(&r->dechunked);
      err = wn_warc_http_dechunk(body, body_len, &r->dechunked, &hd);
      if (err == WN_ETOOBIG) {
        r->stats.skipped_too_big++;
        continue;
      }
      if (err == WN_ENOMEM) {
        set_fatal(r, err, "out of memory");
        break;
      }
      /* Some archivers store the body de-chunked but keep the header: a
       * body that is not chunked at all is taken as it is; one cut short
       * (a crawler's size limit) keeps what it has. */
      if (!err || r->dechunked.len) {
        body = r->dechunked.data ? r->dechunked.data : "";
        body_len = r->dechunked.len;
      }
    }
    if (http.content_encoding) {
      int coding = coding_of(http.content_encoding, http.content_encoding_len);
      if (coding < 0) {
        report(r, rec.offset, "content coding \"%.*s\" is not supported",
               (int)(http.content_encoding_len > 40 ? 40 : http.content_encoding_len),
               http.content_encoding);
        continue;
      }
      if (coding > 0) {
        wn_buf_reset(&r->decoded);
        err = wn_warc_http_inflate(body, body_len, &r->decoded, &hd);
        if (err == WN_ETOOBIG) {
          r->stats.skipped_too_big++;
          continue;
        }
        if (err == WN_ENOMEM) {
          set_fatal(r, err, "out of memory");
          break;
        }
        if (err && !wn_warc_http_sniff_html(body, body_len)) {
          report(r, rec.offset, "%s", hd.msg);
          continue;
        }
        /* else: stored decoded under the original header; taken as it is */
        if (!err) {
          body = r->decoded.data ? r->decoded.data : "";
          body_len = r->decoded.len;
        }
      }
    }
    if (body_len > r->opts.max_payload_bytes) {
      r->stats.skipped_too_big++;
      continue;
    }
    if (!http.content_type && !wn_warc_http_sniff_html(body, body_len)) {
      r->stats.skipped_not_html++;
      continue;
    }
    page->http_status = http.status;
    if (http.content_type) {
      char media[8], cs[128];
      wn_content_type_split(http.content_type, http.content_type_len, media, sizeof media, cs,
                            sizeof cs);
      /* strings may move as it grows: keep both, then point */
      size_t ct = keep(r, http.content_type, http.content_type_len);
      size_t csat = cs[0] ? keep(r, cs, strlen(cs)) : 0;
      page->warc_type = str(r, rec.type);
      page->target_uri = str(r, rec.uri);
      page->record_id = str(r, rec.id);
      page->date = str(r, rec.date);
      page->block_digest = str(r, rec.digest);
      page->content_type = str(r, ct);
      page->charset = str(r, csat);
    }
    page->payload = body;
    page->payload_len = body_len;
    r->stats.pages++;
    return WN_OK;
  }
  return wn_diag_set(diag, r->fatal, "%s", r->fatal_diag.msg);
}

wn_err wn_warc_reader_open(const char *path, const wn_warc_reader_options *opts,
                           wn_warc_reader **out, wn_diag *diag) {
  *out = NULL;
  if (!path)
    return wn_diag_set(diag, WN_EINVAL, "wn_warc_reader_open: no path");
  wn_err err = WN_OK;
  wn_warc_reader *r = calloc(1, sizeof *r);
  if (!r)
    return wn_diag_set(diag, WN_ENOMEM, "out of memory");
  if (opts)
    r->opts = *opts;
  else
    wn_warc_reader_options_init(&r->opts);
  if (!r->opts.max_header_bytes || !r->opts.max_block_bytes || !r->opts.max_payload_bytes ||
      r->opts.max_header_bytes > SIZE_MAX / 4 || r->opts.max_block_bytes > SIZE_MAX / 4) {
    err = wn_diag_set(diag, WN_EINVAL, "WARC reader: caps must be set (options_init)");
    goto out;
  }
  size_t plen = strlen(path);
  r->path = malloc(plen + 1);
  r->zin = malloc(WN_WARC_CHUNK);
  /* Small records (most pages) stay in a window of a few chunks; it
   * grows to win_max for a record that needs it. */
  r->win_max = r->opts.max_header_bytes + r->opts.max_block_bytes + 8 + WN_WARC_CHUNK;
  r->win_cap = r->win_max < 8 * WN_WARC_CHUNK ? r->win_max : 8 * WN_WARC_CHUNK;
  r->win = malloc(r->win_cap);
  if (!r->path || !r->zin || !r->win) {
    err = wn_diag_set(diag, WN_ENOMEM, "out of memory for a WARC reader (%zu bytes)", r->win_cap);
    goto out;
  }
  memcpy(r->path, path, plen + 1);
  wn_buf_init(&r->strings, r->opts.max_header_bytes * 2 + 1024);
  wn_buf_init(&r->dechunked, r->opts.max_payload_bytes);
  wn_buf_init(&r->decoded, r->opts.max_payload_bytes);
  if (strcmp(path, "-") == 0) {
    r->f = stdin;
  } else {
    r->f = fopen(path, "rb");
    if (!r->f) {
      err = wn_diag_set(diag, WN_EIO, "%s: %s", path, strerror(errno));
      goto out;
    }
    r->own_file = 1;
  }
  int gz_file = -1; /* a segment: the format is the file's, read at its start */
  if (r->opts.start_offset > 0) {
    unsigned char magic[2] = {0, 0};
    if (r->f != stdin)
      gz_file = fread(magic, 1, 2, r->f) == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
    if (r->f == stdin || r->opts.start_offset > (uint64_t)INT64_MAX ||
        fseeko(r->f, (off_t)r->opts.start_offset, SEEK_SET) != 0) {
      err = wn_diag_set(diag, WN_EINVAL, "%s: cannot seek to byte %" PRIu64 " (a segment "
                        "needs a file, not a pipe)", path, r->opts.start_offset);
      goto out;
    }
    r->zin_base = r->opts.start_offset;
    /* A plain file's offsets stay the file's; a gzip file's stream
     * offsets count on from there (members and records alike). */
    r->win_off = r->opts.start_offset;
    r->out_total = r->opts.start_offset;
    r->seeking = 1;
  }
  if (r->opts.end_offset && r->opts.end_offset <= r->opts.start_offset)
    r->done = 1; /* an empty segment */
  r->zs.next_in = r->zin;
  in_top_up(r, 2);
  if (r->fatal) {
    err = wn_diag_set(diag, r->fatal, "%s", r->fatal_diag.msg);
    goto out;
  }
  if (gz_file == 1 || (gz_file < 0 && r->zs.avail_in >= 2 && r->zin[0] == 0x1f &&
                       r->zin[1] == 0x8b)) {
    /* 15 + 32: a gzip (or zlib) header, detected by zlib */
    unsigned char *next = r->zs.next_in;
    uInt avail = r->zs.avail_in;
    if (inflateInit2(&r->zs, 15 + 32) != Z_OK) {
      err = wn_diag_set(diag, WN_ENOMEM, "zlib: cannot initialise inflate");
      goto out;
    }
    r->zs.next_in = next;
    r->zs.avail_in = avail;
    r->zs_ready = 1;
    r->gz = 1;
  }
  *out = r;
  r = NULL;
out:
  wn_warc_reader_close(r);
  return err;
}

void wn_warc_reader_close(wn_warc_reader *r) {
  if (!r)
    return;
  if (r->zs_ready)
    inflateEnd(&r->zs);
  if (r->own_file && r->f)
    fclose(r->f);
  wn_buf_free(&r->strings);
  wn_buf_free(&r->dechunked);
  wn_buf_free(&r->decoded);
  free(r->win);
  free(r->zin);
  free(r->path);
  free(r);
}
