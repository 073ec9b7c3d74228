/*
 * store/damage.c: telling a damaged store from a good one without dying.
 *
 * LMDB trusts its file: page numbers found in a page are followed straight
 * into the memory map (mdb.c, mdb_page_get: "me_map + psize * pgno"), so a
 * damaged branch page sends a reader past the end of the file (SIGBUS) or
 * out of the map (SIGSEGV). No error code can come back from that, so we
 * check in two steps before the process trusts the file:
 *
 * 1. In process, cheap (two page reads, always done by wn_store_open): the
 *    two meta pages (lmdb's MDB_meta, below) are read with pread, never
 *    through the map, and each must be a meta page with LMDB's magic and
 *    data version, a sane page size, its last page and its two trees' roots
 *    inside the file; the file must be a whole number of pages and hold
 *    every page the newer meta says is in use (a truncated file fails here).
 *    The metas are read before the file's size: LMDB writes data pages
 *    before the meta that points to them, and the file only grows, so a
 *    writer committing meanwhile cannot make a good store look truncated.
 *
 * 2. In a child process (wn_store_check): the child opens the environment
 *    with its map at the file's size, and walks every entry of every
 *    database with a cursor (the free list, the list of databases, and each
 *    named database), which visits every branch and leaf page; for each
 *    value it checks that the value lies inside the file, and for a value on
 *    overflow pages that the first of them says so (flags, page number,
 *    page count), which is all LMDB itself will read of it before handing
 *    out the bytes. Entry counts must match what each tree says it holds,
 *    which also bounds the walk (a page that points back up the tree cannot
 *    make it loop). If any of it is wrong the child says what; if LMDB dies
 *    following a bad page number, the parent sees the signal. Either way the
 *    parent reports the store damaged and lives.
 *
 * On-disk layout read here: lmdb 0.9 (mdb.c, MDB_page, MDB_meta, MDB_db;
 * MDB_DATA_VERSION 1), native byte order, pgno_t = txnid_t = size_t.
 */
#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <lmdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LMDB_MAGIC 0xBEEFC0DEu  /* mdb.c MDB_MAGIC */
#define LMDB_DATA_VERSION 1u    /* mdb.c MDB_DATA_VERSION (without MDB_DEVEL) */
#define LMDB_P_OVERFLOW 0x04u   /* mdb.c page flags */
#define LMDB_P_META 0x08u
#define LMDB_MIN_PAGE 512u
#define LMDB_MAX_PAGE 65536u
#define LMDB_MAX_DEPTH 32u      /* mdb.c CURSOR_STACK: deeper trees are refused */
#define LMDB_P_INVALID (~(size_t)0)
/* MDB_page: pgno (size_t), pad (u16), flags (u16), lower/upper or pages (u32). */
#define LMDB_PAGEHDRSZ (sizeof(size_t) + 8u)
#define LMDB_PAGE_FLAGS_AT (sizeof(size_t) + 2u)
#define LMDB_PAGE_COUNT_AT (sizeof(size_t) + 4u)
/* MDB_meta after the page header: magic (u32), version (u32), address
 * (pointer), mapsize (size_t), dbs[2] (MDB_db), last_pg, txnid. MDB_db:
 * pad (u32; the page size in dbs[0]), flags (u16), depth (u16), then
 * branch, leaf and overflow page counts, entries and root (size_t each). */
#define LMDB_DB_SIZE (8u + 5u * sizeof(size_t))
#define LMDB_META_DBS_AT (LMDB_PAGEHDRSZ + 8u + sizeof(void *) + sizeof(size_t))
#define LMDB_META_LAST_AT (LMDB_META_DBS_AT + 2u * LMDB_DB_SIZE)
#define LMDB_META_END (LMDB_META_LAST_AT + 2u * sizeof(size_t))

/* Longest a walk may take before its child is killed and the store called
 * damaged: tree pages and one page per record take milliseconds for
 * thousands of sites (docs/hardening.md), so this only ends a walk that is
 * lost in a damaged tree. */
#define WN_STORE_CHECK_TIMEOUT_MS 120000
#define WN_STORE_CHECK_MAX_DBS 16u
#define WN_STORE_CHECK_MSG 512u

/* Child exit codes (anything else, a signal included, is a crash). */
#define CHILD_OK 0
#define CHILD_DAMAGED 10
#define CHILD_CANNOT 11

static const char restore_hint[] =
    "restore it from a backup (winnow-dump export/import, mdb_copy)";

static uint32_t ne32(const unsigned char *p) {
  uint32_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

static uint16_t ne16(const unsigned char *p) {
  uint16_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

static size_t nez(const unsigned char *p) {
  size_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

__attribute__((format(printf, 3, 4))) static void problem_set(char *problem, size_t cap,
                                                              const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(problem, cap, fmt, ap);
  va_end(ap);
}

typedef struct meta_view {
  uint32_t page_bytes;
  size_t last_pg;
  size_t txnid;
  size_t roots[2];
  uint16_t depths[2];
} meta_view;

/* One meta page's own consistency (index 0 or 1); file_pages not yet known. */
static int meta_parse(const unsigned char *p, size_t len, unsigned index, meta_view *m,
                      char *problem, size_t cap) {
  if (len < LMDB_META_END) {
    problem_set(problem, cap, "meta page %u is cut short (the file ends inside it)", index);
    return -1;
  }
  const size_t pgno = nez(p);
  const uint16_t flags = ne16(p + LMDB_PAGE_FLAGS_AT);
  const uint32_t magic = ne32(p + LMDB_PAGEHDRSZ);
  const uint32_t version = ne32(p + LMDB_PAGEHDRSZ + 4);
  if (!(flags & LMDB_P_META) || pgno != index || magic != LMDB_MAGIC) {
    problem_set(problem, cap,
                "meta page %u is not an LMDB meta page (page number %zu, flags 0x%x, magic "
                "0x%08x)",
                index, pgno, (unsigned)flags, (unsigned)magic);
    return -1;
  }
  if (version != LMDB_DATA_VERSION) {
    problem_set(problem, cap, "meta page %u has LMDB data version %u (expected %u)", index,
                (unsigned)version, LMDB_DATA_VERSION);
    return -1;
  }
  m->page_bytes = ne32(p + LMDB_META_DBS_AT);
  if (m->page_bytes < LMDB_MIN_PAGE || m->page_bytes > LMDB_MAX_PAGE ||
      (m->page_bytes & (m->page_bytes - 1)) != 0) {
    problem_set(problem, cap, "meta page %u gives a page size of %u bytes", index,
                (unsigned)m->page_bytes);
    return -1;
  }
  m->last_pg = nez(p + LMDB_META_LAST_AT);
  m->txnid = nez(p + LMDB_META_LAST_AT + sizeof(size_t));
  for (unsigned d = 0; d < 2; d++) {
    const unsigned char *db = p + LMDB_META_DBS_AT + d * LMDB_DB_SIZE;
    m->depths[d] = ne16(db + 6);
    m->roots[d] = nez(db + 8 + 4 * sizeof(size_t));
  }
  if (m->last_pg < 1) {
    problem_set(problem, cap, "meta page %u says page %zu is the last in use", index,
                m->last_pg);
    return -1;
  }
  for (unsigned d = 0; d < 2; d++) {
    const char *tree = d == 0 ? "free-page" : "main";
    if (m->roots[d] == LMDB_P_INVALID) {
      if (m->depths[d] != 0) {
        problem_set(problem, cap, "meta page %u: the empty %s tree has depth %u", index, tree,
                    (unsigned)m->depths[d]);
        return -1;
      }
      continue;
    }
    if (m->roots[d] < 2 || m->roots[d] > m->last_pg) {
      problem_set(problem, cap,
                  "meta page %u puts the root of the %s tree at page %zu, outside pages 2 to "
                  "%zu in use",
                  index, tree, m->roots[d], m->last_pg);
      return -1;
    }
    if (m->depths[d] < 1 || m->depths[d] > LMDB_MAX_DEPTH) {
      problem_set(problem, cap, "meta page %u: the %s tree has depth %u", index, tree,
                  (unsigned)m->depths[d]);
      return -1;
    }
  }
  return 0;
}

static wn_err file_check_once(const char *dir, wn_store_file *out, char *problem, size_t cap,
                              wn_diag *diag) {
  char path[4200];
  unsigned char *page = NULL;
  wn_err err = WN_OK;
  int fd = -1;
  memset(out, 0, sizeof *out);
  problem[0] = '\0';
  int k = snprintf(path, sizeof path, "%s/data.mdb", dir);
  if (k < 0 || (size_t)k >= sizeof path)
    return wn_diag_set(diag, WN_EINVAL, "store: directory name too long: %.64s...", dir);
  fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT)
      return WN_OK; /* no data file yet: LMDB creates it (or says there is none) */
    return wn_diag_set(diag, WN_EIO, "store: cannot read %s: %s", path, strerror(errno));
  }
  out->exists = 1;
  page = malloc(LMDB_MAX_PAGE);
  if (!page) {
    err = wn_diag_set(diag, WN_ENOMEM, "store: out of memory checking %s", dir);
    goto out;
  }
  meta_view metas[2];
  memset(metas, 0, sizeof metas);
  /* Meta 0 gives the page size, and so where meta 1 is. */
  for (unsigned i = 0; i < 2; i++) {
    const off_t at = i == 0 ? 0 : (off_t)metas[0].page_bytes;
    ssize_t got = pread(fd, page, LMDB_META_END, at);
    if (got < 0) {
      err = wn_diag_set(diag, WN_EIO, "store: cannot read %s: %s", path, strerror(errno));
      goto out;
    }
    if (i == 0 && got == 0) {
      problem_set(problem, cap, "data.mdb is empty");
      goto out;
    }
    if (meta_parse(page, (size_t)got, i, &metas[i], problem, cap) != 0)
      goto out;
  }
  if (metas[0].page_bytes != metas[1].page_bytes) {
    problem_set(problem, cap, "the meta pages disagree on the page size (%u and %u bytes)",
                (unsigned)metas[0].page_bytes, (unsigned)metas[1].page_bytes);
    goto out;
  }
  /* The size after the metas (see the top of the file). */
  struct stat st;
  if (fstat(fd, &st) != 0) {
    err = wn_diag_set(diag, WN_EIO, "store: cannot read %s: %s", path, strerror(errno));
    goto out;
  }
  const meta_view *newer = metas[1].txnid > metas[0].txnid ? &metas[1] : &metas[0];
  const uint64_t psize = newer->page_bytes;
  out->file_bytes = (uint64_t)st.st_size;
  out->page_bytes = psize;
  out->pages_used = (uint64_t)newer->last_pg + 1;
  const uint64_t file_pages = out->file_bytes / psize;
  for (unsigned i = 0; i < 2; i++) {
    if ((uint64_t)metas[i].last_pg >= file_pages) {
      problem_set(problem, cap,
                  "data.mdb holds %llu pages of %llu bytes but meta page %u says %llu are in "
                  "use: the file was cut short",
                  (unsigned long long)file_pages, (unsigned long long)psize, i,
                  (unsigned long long)metas[i].last_pg + 1);
      goto out;
    }
  }
  if (out->file_bytes % psize != 0) {
    problem_set(problem, cap, "data.mdb is %llu bytes, not a whole number of %llu-byte pages",
                (unsigned long long)out->file_bytes, (unsigned long long)psize);
    goto out;
  }
  out->pages_past_end = file_pages - out->pages_used;
out:
  free(page);
  close(fd);
  return err;
}

wn_err wn_store_file_check(const char *dir, wn_store_file *out, char *problem, size_t cap,
                           wn_diag *diag) {
  wn_err err = file_check_once(dir, out, problem, cap, diag);
  if (err || !problem[0])
    return err;
  /* pread is not atomic against a writer's pwrite of the same meta page:
   * a meta read half-written looks damaged. A real fault stays one; a
   * torn read does not survive a second look. */
  struct timespec pause = {0, 20 * 1000 * 1000};
  nanosleep(&pause, NULL);
  return file_check_once(dir, out, problem, cap, diag);
}

wn_err wn_store_damaged(const char *dir, const char *problem, wn_diag *diag) {
  return wn_diag_set(diag, WN_ESTORE, "store %s is damaged: %s; %s", dir, problem,
                     restore_hint);
}

/* ---- the walk, in the child -------------------------------------------------- */

typedef struct walker {
  int fd;                 /* the pipe to the parent */
  const char *map;        /* the child's map */
  uint64_t file_bytes;
  size_t psize;
  size_t last_pgno;
  uint64_t entries;
} walker;

/* Sends a line to the parent: '@' what is being walked, '!' what is wrong,
 * '?' why the check could not run, '=' counts. Short writes to a pipe of
 * less than PIPE_BUF bytes do not happen (POSIX write). */
__attribute__((format(printf, 3, 4))) static void child_say(const walker *w, char kind,
                                                            const char *fmt, ...) {
  char line[WN_STORE_CHECK_MSG];
  line[0] = kind;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line + 1, sizeof line - 2, fmt, ap);
  va_end(ap);
  size_t len = n < 0 ? 1 : (size_t)n + 1 >= sizeof line - 1 ? sizeof line - 2 : (size_t)n + 1;
  line[len++] = '\n';
  ssize_t rc = write(w->fd, line, len);
  (void)rc; /* the parent gone: nothing to tell */
}

/* The key as text for a message: at most 64 bytes, anything but printable
 * ASCII as '?' (free-list keys are binary transaction ids). */
static const char *key_text(const MDB_val *key, char *buf, size_t cap) {
  size_t n = key->mv_size < cap - 1 ? key->mv_size : cap - 1;
  const unsigned char *k = key->mv_data;
  for (size_t i = 0; i < n; i++)
    buf[i] = k[i] >= 0x20 && k[i] < 0x7f ? (char)k[i] : '?';
  buf[n] = '\0';
  return buf;
}

/* 0 if the value's bytes are inside the file (and, for a value on overflow
 * pages, the first of them says so); else -1 with the reason sent. */
static int child_value_check(walker *w, const char *db, const MDB_val *key, const MDB_val *val) {
  if (!w->map)
    return 0; /* the map was not found (child_find_map): tree pages only */
  const char *p = val->mv_data;
  const char *file_end = w->map + w->file_bytes;
  char kbuf[65];
  if (p < w->map || p > file_end || val->mv_size > (size_t)(file_end - p)) {
    child_say(w, '!', "database \"%s\": the value of key \"%s\" (%zu bytes) lies outside the file",
              db, key_text(key, kbuf, sizeof kbuf), val->mv_size);
    return -1;
  }
  const size_t off = (size_t)(p - w->map);
  if (off % w->psize != LMDB_PAGEHDRSZ)
    return 0; /* a value inside its leaf page: the leaf was read already */
  /* Values start at a page's data area only on overflow pages (leaf nodes
   * have an 8-byte header before the value). */
  const unsigned char *hdr = (const unsigned char *)p - LMDB_PAGEHDRSZ;
  const size_t pgno = off / w->psize;
  const uint16_t flags = ne16(hdr + LMDB_PAGE_FLAGS_AT);
  const uint32_t pages = ne32(hdr + LMDB_PAGE_COUNT_AT);
  const size_t need = (LMDB_PAGEHDRSZ - 1 + val->mv_size) / w->psize + 1; /* mdb.c OVPAGES */
  if (nez(hdr) != pgno || !(flags & LMDB_P_OVERFLOW) || pages != need ||
      pgno + need - 1 > w->last_pgno) {
    child_say(w, '!',
              "database \"%s\": the overflow page %zu holding key \"%s\" is damaged (page "
              "number %zu, flags 0x%x, %u pages for %zu bytes)",
              db, pgno, key_text(key, kbuf, sizeof kbuf), nez(hdr), (unsigned)flags,
              (unsigned)pages, val->mv_size);
    return -1;
  }
  return 0;
}

/* A free-list entry: an IDL (mdb.c midl.h: a count, then that many page
 * numbers) of pages a writer will reuse, each of which must be in the file. */
static int child_freelist_check(walker *w, const MDB_val *val) {
  const size_t z = sizeof(size_t);
  if (val->mv_size < z || val->mv_size % z != 0 || nez(val->mv_data) != val->mv_size / z - 1) {
    child_say(w, '!', "the free-page list holds an entry of %zu bytes that is not a page list",
              val->mv_size);
    return -1;
  }
  const unsigned char *ids = val->mv_data;
  for (size_t i = 1; i < val->mv_size / z; i++) {
    size_t pg = nez(ids + i * z);
    if (pg < 2 || pg > w->last_pgno) {
      child_say(w, '!', "the free-page list names page %zu, outside pages 2 to %zu in use", pg,
                w->last_pgno);
      return -1;
    }
  }
  return 0;
}

/* Walks one database; kind 0: the free list, 1: the main database (named
 * databases), 2: a named database. */
static int child_walk_db(walker *w, MDB_txn *txn, MDB_dbi dbi, const char *name, int kind,
                         char (*names)[64], unsigned *n_names) {
  MDB_stat st;
  MDB_cursor *cur = NULL;
  MDB_val key, val;
  int rc;
  child_say(w, '@', "%s", name);
  if ((rc = mdb_stat(txn, dbi, &st)) != MDB_SUCCESS) {
    child_say(w, '!', "database \"%s\": %s", name, mdb_strerror(rc));
    return -1;
  }
  if (st.ms_depth > LMDB_MAX_DEPTH) {
    child_say(w, '!', "database \"%s\" has depth %u", name, st.ms_depth);
    return -1;
  }
  if ((rc = mdb_cursor_open(txn, dbi, &cur)) != MDB_SUCCESS) {
    child_say(w, '!', "database \"%s\": %s", name, mdb_strerror(rc));
    return -1;
  }
  uint64_t n = 0;
  int result = 0;
  while ((rc = mdb_cursor_get(cur, &key, &val, MDB_NEXT)) == MDB_SUCCESS) {
    if (++n > st.ms_entries) {
      child_say(w, '!', "database \"%s\" holds more entries than the %zu its tree counts", name,
                st.ms_entries);
      result = -1;
      break;
    }
    if (child_value_check(w, name, &key, &val) != 0 ||
        (kind == 0 && child_freelist_check(w, &val) != 0)) {
      result = -1;
      break;
    }
    if (kind == 1) {
      if (*n_names >= WN_STORE_CHECK_MAX_DBS || key.mv_size == 0 || key.mv_size >= 64 ||
          memchr(key.mv_data, '\0', key.mv_size)) {
        child_say(w, '!', "the list of databases holds an entry that is not a database name");
        result = -1;
        break;
      }
      memcpy(names[*n_names], key.mv_data, key.mv_size);
      names[*n_names][key.mv_size] = '\0';
      (*n_names)++;
    }
  }
  if (result == 0 && rc != MDB_NOTFOUND) {
    child_say(w, '!', "database \"%s\": %s", name, mdb_strerror(rc));
    result = -1;
  }
  if (result == 0 && n != st.ms_entries) {
    child_say(w, '!', "database \"%s\": walked %llu entries, its tree counts %zu", name,
              (unsigned long long)n, st.ms_entries);
    result = -1;
  }
  w->entries += n;
  mdb_cursor_close(cur);
  return result;
}

/* Mappings of the data file the child had before it opened the
 * environment: the parent's map, when the parent holds the store open,
 * which fork copied into the child. The child never reads them. */
#define CHILD_MAX_INHERITED 16u
typedef struct inherited_maps {
  unsigned long long starts[CHILD_MAX_INHERITED];
  unsigned n;
  int overflow; /* more than CHILD_MAX_INHERITED: the child's map cannot be told apart */
} inherited_maps;

/* Calls fn for each mapping of the file with inode ino at offset 0 in this
 * process (proc(5), /proc/self/maps: "address perms offset dev inode
 * path"), until fn returns nonzero; -1 if the list cannot be read. */
static int each_file_map(unsigned long long ino, int (*fn)(unsigned long long start, void *ctx),
                         void *ctx) {
  FILE *maps = fopen("/proc/self/maps", "r");
  if (!maps)
    return -1;
  char line[1024];
  while (fgets(line, sizeof line, maps)) {
    unsigned long long lo = 0, hi = 0, off = 0, inode = 0;
    char perms[8];
    if (sscanf(line, "%llx-%llx %7s %llx %*s %llu", &lo, &hi, perms, &off, &inode) == 5 &&
        inode == ino && off == 0 && fn(lo, ctx))
      break;
  }
  fclose(maps);
  return 0;
}

static int inherited_add(unsigned long long start, void *ctx) {
  inherited_maps *im = ctx;
  if (im->n == CHILD_MAX_INHERITED) {
    im->overflow = 1;
    return 1;
  }
  im->starts[im->n++] = start;
  return 0;
}

/* The data file's inode, 0 when it cannot be read. */
static unsigned long long data_file_inode(const char *dir) {
  char path[4200];
  struct stat st;
  int k = snprintf(path, sizeof path, "%s/data.mdb", dir);
  if (k < 0 || (size_t)k >= sizeof path || stat(path, &st) != 0)
    return 0;
  return (unsigned long long)st.st_ino;
}

typedef struct own_map {
  const inherited_maps *skip;
  unsigned long long found;
} own_map;

static int own_map_take(unsigned long long start, void *ctx) {
  own_map *om = ctx;
  for (unsigned i = 0; i < om->skip->n; i++)
    if (om->skip->starts[i] == start)
      return 0;
  om->found = start;
  return 1;
}

/* The start of the child's own mapping of the environment's data file:
 * the one that is not among those it inherited (skip). NULL when it cannot
 * be told. */
static const char *child_find_map(MDB_env *env, const inherited_maps *skip) {
  int dfd = -1;
  struct stat st;
  if (skip->overflow || mdb_env_get_fd(env, &dfd) != MDB_SUCCESS || fstat(dfd, &st) != 0)
    return NULL;
  own_map om = {.skip = skip, .found = 0};
  if (each_file_map((unsigned long long)st.st_ino, own_map_take, &om) != 0 || !om.found)
    return NULL;
  return (const char *)(uintptr_t)om.found;
}

static int child_open(MDB_env **env, const char *dir, size_t map_size, unsigned int flags) {
  int rc;
  if ((rc = mdb_env_create(env)) != MDB_SUCCESS)
    return rc;
  if ((rc = mdb_env_set_mapsize(*env, map_size)) != MDB_SUCCESS ||
      (rc = mdb_env_set_maxdbs(*env, WN_STORE_CHECK_MAX_DBS)) != MDB_SUCCESS ||
      (rc = mdb_env_open(*env, dir, flags, 0644)) != MDB_SUCCESS) {
    mdb_env_close(*env);
    *env = NULL;
  }
  return rc;
}

/* The child's whole life; never returns. */
__attribute__((noreturn)) static void child_run(const char *dir, const wn_store_file *file,
                                                int fd) {
  walker w = {.fd = fd, .file_bytes = file->file_bytes, .psize = (size_t)file->page_bytes};
  MDB_env *env = NULL;
  MDB_txn *txn = NULL;
  char names[WN_STORE_CHECK_MAX_DBS][64];
  unsigned n_names = 0, n_dbs = 0;
  int code = CHILD_DAMAGED, rc;
  /* A crash here is the expected way to learn of some damage: no core file. */
  struct rlimit no_core = {0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  /* The parent may hold this store open: its map of the data file is in
   * the child too, beside the one the child's own open makes. Values are
   * bounded against the child's, so the parent's are noted first. (The
   * child's open is its own: LMDB's one-open-per-process rule is about one
   * process, and the child uses nothing of the parent's environment.) */
  inherited_maps inherited = {.n = 0, .overflow = 0};
  unsigned long long ino = data_file_inode(dir);
  if (!ino || each_file_map(ino, inherited_add, &inherited) != 0)
    inherited.overflow = 1; /* cannot tell the maps apart: tree pages only */
  /* The map at the file's size: nothing of the map lies past the end of the
   * file (where a read is SIGBUS). */
  const unsigned int flags = MDB_RDONLY | MDB_NOTLS;
  rc = child_open(&env, dir, (size_t)file->file_bytes, flags);
  if (rc == EACCES || rc == EROFS || rc == EPERM) /* as wn_store_open: no lock file */
    rc = child_open(&env, dir, (size_t)file->file_bytes, flags | MDB_NOLOCK);
  if (rc != MDB_SUCCESS) {
    const int damage = rc == MDB_INVALID || rc == MDB_VERSION_MISMATCH || rc == MDB_CORRUPTED ||
                       rc == MDB_PAGE_NOTFOUND;
    child_say(&w, damage ? '!' : '?', "%s", mdb_strerror(rc));
    code = damage ? CHILD_DAMAGED : CHILD_CANNOT;
    goto out;
  }
  for (int attempt = 0;; attempt++) {
    rc = mdb_txn_begin(env, NULL, MDB_RDONLY, &txn);
    if (rc != MDB_MAP_RESIZED || attempt > 0)
      break;
    /* A writer grew the file since it was measured: map the new size. */
    struct stat st;
    int dfd = -1;
    if (mdb_env_get_fd(env, &dfd) != MDB_SUCCESS || fstat(dfd, &st) != 0 ||
        (rc = mdb_env_set_mapsize(env, (size_t)st.st_size)) != MDB_SUCCESS)
      break;
    w.file_bytes = (uint64_t)st.st_size;
  }
  if (rc != MDB_SUCCESS) {
    child_say(&w, '?', "cannot begin a read transaction: %s", mdb_strerror(rc));
    code = CHILD_CANNOT;
    goto out;
  }
  MDB_envinfo info;
  if ((rc = mdb_env_info(env, &info)) != MDB_SUCCESS) {
    child_say(&w, '?', "%s", mdb_strerror(rc));
    code = CHILD_CANNOT;
    goto out;
  }
  /* mdb_env_info's me_mapaddr is only the MDB_FIXEDMAP address (NULL
   * here): find the map among our mappings by data.mdb's inode. Without it
   * the walk still visits every tree page, only without the value bounds. */
  w.map = child_find_map(env, &inherited);
  w.last_pgno = info.me_last_pgno;
  /* dbi 0 is LMDB's free-page list (readable in a read transaction, as
   * mdb_stat -f does), dbi 1 the main database listing the named ones. */
  if (child_walk_db(&w, txn, 0, "(free pages)", 0, names, &n_names) != 0 ||
      child_walk_db(&w, txn, 1, "(databases)", 1, names, &n_names) != 0)
    goto out;
  for (unsigned i = 0; i < n_names; i++) {
    MDB_dbi dbi;
    if ((rc = mdb_dbi_open(txn, names[i], 0, &dbi)) != MDB_SUCCESS) {
      child_say(&w, '!', "database \"%s\" cannot be opened: %s", names[i], mdb_strerror(rc));
      goto out;
    }
    if (child_walk_db(&w, txn, dbi, names[i], 2, names, &n_names) != 0)
      goto out;
    n_dbs++;
  }
  child_say(&w, '=', "%u %llu", n_dbs, (unsigned long long)w.entries);
  code = CHILD_OK;
out:
  if (txn)
    mdb_txn_abort(txn); /* frees the reader slot for the next opener */
  if (env)
    mdb_env_close(env);
  _exit(code);
}

/* ---- the walk, from the parent ------------------------------------------------ */

static int64_t now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int64_t now_ms(void) { return (int64_t)wn_clock_ms(); }

/* Reads the child's lines until it closes the pipe or the time is up
 * (returns -1 then). */
static int parent_read(int fd, char *buf, size_t cap, size_t *len, int64_t deadline) {
  for (;;) {
    int64_t left = deadline - now_ms();
    if (left <= 0)
      return -1;
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    int rc = poll(&pfd, 1, left > 1000 ? 1000 : (int)left);
    if (rc < 0 && errno == EINTR)
      continue;
    if (rc <= 0)
      continue;
    char tmp[1024];
    ssize_t n = read(fd, tmp, sizeof tmp);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return 0;
    size_t take = (size_t)n < cap - 1 - *len ? (size_t)n : cap - 1 - *len;
    memcpy(buf + *len, tmp, take);
    *len += take;
    buf[*len] = '\0';
  }
}

/* The last line of a kind in the child's output, without its newline. */
static int line_of(const char *out, char kind, char *dst, size_t cap) {
  int found = 0;
  for (const char *p = out; *p;) {
    const char *nl = strchr(p, '\n');
    size_t n = nl ? (size_t)(nl - p) : strlen(p);
    if (n > 0 && p[0] == kind) {
      size_t c = n - 1 < cap - 1 ? n - 1 : cap - 1;
      memcpy(dst, p + 1, c);
      dst[c] = '\0';
      found = 1;
    }
    p += n + (nl ? 1 : 0);
  }
  return found;
}

static wn_err walk_in_child(const char *dir, const wn_store_file *file,
                            wn_store_check_report *rep, wn_diag *diag) {
  int fds[2];
  if (pipe(fds) != 0)
    return wn_diag_set(diag, WN_ESTORE, "store: cannot check %s: pipe: %s", dir, strerror(errno));
  fflush(NULL); /* nothing buffered is written twice (the child uses _exit anyway) */
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(fds[0]);
    close(fds[1]);
    return wn_diag_set(diag, WN_ESTORE, "store: cannot check %s: fork: %s", dir, strerror(e));
  }
  if (pid == 0) {
    close(fds[0]);
    /* A sanitizer's report of the crash would only be noise here. */
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) {
      dup2(devnull, 2);
      close(devnull);
    }
    child_run(dir, file, fds[1]);
  }
  close(fds[1]);
  char *out = calloc(1, 8192);
  if (!out) {
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    close(fds[0]);
    return wn_diag_set(diag, WN_ENOMEM, "store: out of memory checking %s", dir);
  }
  size_t len = 0;
  int timed_out = parent_read(fds[0], out, 8192, &len, now_ms() + WN_STORE_CHECK_TIMEOUT_MS) != 0;
  close(fds[0]);
  if (timed_out)
    kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  char where[128] = "", msg[WN_STORE_CHECK_MSG] = "";
  if (!line_of(out, '@', where, sizeof where))
    snprintf(where, sizeof where, "(opening)");
  wn_err err = WN_OK;
  if (timed_out) {
    problem_set(rep->problem, sizeof rep->problem,
                "walking database \"%s\" took longer than %d s (a loop in its pages?)", where,
                WN_STORE_CHECK_TIMEOUT_MS / 1000);
  } else if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    problem_set(rep->problem, sizeof rep->problem,
                "reading the pages of database \"%s\" crashed the checking process (%s): a page "
                "points outside the file or is garbage",
                where, sig == SIGBUS ? "SIGBUS" : sig == SIGSEGV ? "SIGSEGV" : strsignal(sig));
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == CHILD_OK) {
    unsigned dbs = 0;
    unsigned long long entries = 0;
    if (line_of(out, '=', msg, sizeof msg) && sscanf(msg, "%u %llu", &dbs, &entries) == 2) {
      rep->databases = dbs;
      rep->entries = entries;
    }
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == CHILD_DAMAGED &&
             line_of(out, '!', msg, sizeof msg)) {
    problem_set(rep->problem, sizeof rep->problem, "%s", msg);
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == CHILD_CANNOT &&
             line_of(out, '?', msg, sizeof msg)) {
    err = wn_diag_set(diag, WN_ESTORE, "store: cannot check %s: %s", dir, msg);
  } else {
    /* A sanitizer turns a crash into an exit code; so may a runtime. */
    problem_set(rep->problem, sizeof rep->problem,
                "reading the pages of database \"%s\" crashed the checking process (exit %d): "
                "a page points outside the file or is garbage",
                where, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
  free(out);
  return err;
}

wn_err wn_store_check(const char *dir, wn_store_check_report *report, wn_diag *diag) {
  wn_store_check_report local;
  wn_store_check_report *rep = report ? report : &local;
  memset(rep, 0, sizeof *rep);
  if (!dir || !*dir)
    return wn_diag_set(diag, WN_EINVAL, "store: no directory given");
  const int64_t start = now_us();
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    return wn_diag_set(diag, WN_ENOTFOUND, "store: no store at %s: not a directory", dir);
  wn_store_file file;
  wn_err err = wn_store_file_check(dir, &file, rep->problem, sizeof rep->problem, diag);
  if (err)
    return err;
  if (!file.exists)
    return wn_diag_set(diag, WN_ENOTFOUND, "store: no store in %s (data.mdb is missing)", dir);
  rep->file_bytes = file.file_bytes;
  rep->page_bytes = file.page_bytes;
  rep->pages_used = file.pages_used;
  rep->pages_past_end = file.pages_past_end;
  if (!rep->problem[0] && (err = walk_in_child(dir, &file, rep, diag)))
    return err;
  rep->elapsed_us = (uint64_t)(now_us() - start);
  if (rep->problem[0]) {
    rep->damaged = 1;
    return wn_store_damaged(dir, rep->problem, diag);
  }
  return WN_OK;
}
