/*
 * cli/detect_files.c: `winnow detect` over many files: FILE and DIR
 * arguments and --input-list, walked in a fixed order, each page through
 * the batch pipeline (batch.c), results as JSONL on stdout or one file per
 * page under --output-dir.
 *
 * Which files: every file named (as an argument or a line of the list),
 * whatever its name; inside a directory, recursively, the files named
 * *.html, *.htm or *.xhtml (any case), or every file with --all. Entries
 * of a directory are taken in byte order of their names, so a run's order
 * (and its JSONL output) does not depend on the file system. Symbolic
 * links to files are followed; links to directories met in a walk are not
 * (a link loop would never end), and the walk goes at most
 * WN_WALK_MAX_DEPTH directories deep.
 *
 * Output paths under --output-dir: a file found in a directory DIR keeps
 * its path relative to DIR; a file named directly keeps its path as given
 * when that is relative and has no ".." (a/b.html), else its base name.
 * The extension .html/.htm/.xhtml is replaced by the format's (.txt,
 * .html, .json, .md); any other name gets it appended (x.php -> x.php.txt).
 * Directories are created; an existing file is overwritten (a rerun
 * replaces its outputs), except the page's own input file, which is an
 * error for that page.
 */
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#define WN_WALK_MAX_DEPTH 64u

/* One open directory of the walk: its entries, sorted. */
typedef struct wn_walk_dir {
  char *path;
  char **names;
  size_t n, next;
} wn_walk_dir;

typedef struct wn_files_source {
  const wn_files_options *opts;
  size_t next_input;
  FILE *list;
  int list_done;
  char *list_line;
  size_t list_size;
  wn_walk_dir stack[WN_WALK_MAX_DEPTH];
  size_t depth;
  size_t root_len; /* bytes of the walked root's path, for relative names */
} wn_files_source;

static int wn_name_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}


static int wn_ends_with_ci(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  if (n < m)
    return 0;
  for (size_t i = 0; i < m; i++)
    if (wn_ascii_lower(s[n - m + i]) != suffix[i])
      return 0;
  return 1;
}

static int wn_is_html_name(const char *name) {
  return wn_ends_with_ci(name, ".html") || wn_ends_with_ci(name, ".htm") ||
         wn_ends_with_ci(name, ".xhtml");
}

static void wn_walk_dir_free(wn_walk_dir *dir) {
  for (size_t i = 0; i < dir->n; i++)
    free(dir->names[i]);
  free(dir->names);
  free(dir->path);
  memset(dir, 0, sizeof *dir);
}

/* Opens a directory onto the stack: its names read and sorted. */
static wn_err wn_walk_push(wn_files_source *s, const char *path, wn_diag *diag) {
  wn_err err = WN_OK;
  if (s->depth == WN_WALK_MAX_DEPTH)
    return wn_diag_set(diag, WN_ETOODEEP, "%s: directories nested deeper than %u", path,
                       WN_WALK_MAX_DEPTH);
  wn_walk_dir dir = {0};
  size_t alloc = 0;
  DIR *d = opendir(path);
  if (!d)
    return wn_diag_set(diag, errno == ENOENT ? WN_ENOTFOUND : WN_EIO,
                       "cannot open directory %s: %s", path, strerror(errno));
  dir.path = strdup(path);
  if (!dir.path) {
    err = wn_diag_set(diag, WN_ENOMEM, "out of memory");
    goto out;
  }
  struct dirent *e;
  errno = 0;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    if (dir.n == alloc) {
      size_t grown = alloc ? 2 * alloc : 64;
      char **names = realloc(dir.names, grown * sizeof *names);
      if (!names) {
        err = wn_diag_set(diag, WN_ENOMEM, "out of memory");
        goto out;
      }
      dir.names = names;
      alloc = grown;
    }
    if (!(dir.names[dir.n] = strdup(e->d_name))) {
      err = wn_diag_set(diag, WN_ENOMEM, "out of memory");
      goto out;
    }
    dir.n++;
  }
  if (errno != 0) {
    err = wn_diag_set(diag, WN_EIO, "cannot read directory %s: %s", path, strerror(errno));
    goto out;
  }
  if (dir.n > 1)
    qsort(dir.names, dir.n, sizeof *dir.names, wn_name_cmp);
  s->stack[s->depth++] = dir;
  memset(&dir, 0, sizeof dir);
out:
  closedir(d);
  wn_walk_dir_free(&dir);
  return err;
}

static char *wn_path_join(const char *dir, const char *name) {
  size_t a = strlen(dir), b = strlen(name);
  char *p = malloc(a + b + 2);
  if (!p)
    return NULL;
  memcpy(p, dir, a);
  size_t at = a;
  if (a == 0 || dir[a - 1] != '/')
    p[at++] = '/';
  memcpy(p + at, name, b + 1);
  return p;
}

/* The output name of a file named directly: its path if relative and
 * without "..", else its base name. */
static char *wn_direct_out_name(const char *path) {
  const char *p = path;
  while (p[0] == '.' && p[1] == '/') {
    p += 2;
    while (*p == '/')
      p++;
  }
  int keep = path[0] != '/' && *p != '\0';
  for (const char *c = p; keep && c; c = strchr(c, '/'), c = c ? c + 1 : NULL)
    if (c[0] == '.' && c[1] == '.' && (c[2] == '/' || c[2] == '\0'))
      keep = 0;
  if (!keep) {
    const char *slash = strrchr(path, '/');
    p = slash ? slash + 1 : path;
  }
  return strdup(p);
}

/* A page for the file at path (read now, on the reader thread). */
static int wn_files_page(wn_batch_page *page, char *path, char *out_name) {
  page->name = path;
  page->out_name = out_name;
  if (!path || !out_name) {
    page->read_err = wn_diag_set(&page->diag, WN_ENOMEM, "out of memory");
    return 1;
  }
  json_t *id = json_string(path);
  page->id_json = id ? json_dumps(id, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
  json_decref(id);
  page->read_err = wn_file_read(path, WN_PAGE_MAX_BYTES, &page->raw, &page->raw_len, &page->diag);
  return 1;
}

/* A page that is only an error (a path that cannot be opened or walked):
 * it keeps its place in the output. */
static int wn_files_error_page(wn_batch_page *page, const char *path, wn_err err,
                               const wn_diag *diag) {
  page->name = strdup(path);
  json_t *id = json_string(path);
  page->id_json = id ? json_dumps(id, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
  json_decref(id);
  page->read_err = err;
  page->diag = *diag;
  return 1;
}

/* The next path named by an argument or a line of the list, or NULL. */
static const char *wn_files_next_input(wn_files_source *s, int *failed) {
  const wn_files_options *o = s->opts;
  if (s->next_input < o->n_inputs)
    return o->inputs[s->next_input++];
  while (s->list && !s->list_done) {
    errno = 0;
    ssize_t n = getline(&s->list_line, &s->list_size, s->list);
    if (n < 0) {
      s->list_done = 1;
      if (ferror(s->list)) {
        wn_cli_error("cannot read %s: %s", o->input_list, strerror(errno));
        *failed = 1;
      }
      return NULL;
    }
    while (n > 0 && (s->list_line[n - 1] == '\n' || s->list_line[n - 1] == '\r'))
      s->list_line[--n] = '\0';
    if (n > 0)
      return s->list_line;
  }
  return NULL;
}

/* The walk, then the next argument or line of the list. A loop, not
 * recursion: a run of empty directories costs no stack. */
static int wn_files_next(void *ctx, wn_batch_page *page) {
  wn_files_source *s = ctx;
  for (;;) {
    while (s->depth > 0) {
      wn_walk_dir *top = &s->stack[s->depth - 1];
      if (top->next == top->n) {
        wn_walk_dir_free(top);
        s->depth--;
        continue;
      }
      const char *name = top->names[top->next++];
      char *path = wn_path_join(top->path, name);
      if (!path)
        return wn_files_page(page, NULL, NULL);
      struct stat st;
      int is_link = 0;
      if (lstat(path, &st) != 0 ||
          ((is_link = S_ISLNK(st.st_mode)) != 0 && stat(path, &st) != 0)) {
        /* A dangling link, or an entry gone since the listing. */
        wn_diag diag = {{0}};
        wn_err err =
            wn_diag_set(&diag, WN_ENOTFOUND, "cannot open %s: %s", path, strerror(errno));
        wn_files_error_page(page, path, err, &diag);
        free(path);
        return 1;
      }
      if (S_ISDIR(st.st_mode)) {
        wn_diag diag = {{0}};
        wn_err err = is_link ? WN_OK : wn_walk_push(s, path, &diag);
        if (err) {
          wn_files_error_page(page, path, err, &diag);
          free(path);
          return 1;
        }
        free(path);
        continue;
      }
      if (!S_ISREG(st.st_mode) || !(s->opts->all || wn_is_html_name(name))) {
        free(path);
        continue;
      }
      return wn_files_page(page, path, strdup(path + s->root_len + 1));
    }
    int failed = 0;
    const char *input = wn_files_next_input(s, &failed);
    if (!input)
      return failed ? -1 : 0;
    struct stat st;
    if (!(stat(input, &st) == 0 && S_ISDIR(st.st_mode)))
      return wn_files_page(page, strdup(input), wn_direct_out_name(input));
    /* A directory: the root's own name is left out of the output paths. */
    size_t len = strlen(input);
    while (len > 1 && input[len - 1] == '/')
      len--;
    s->root_len = len == 1 && input[0] == '/' ? 0 : len;
    char *root = strdup(input);
    wn_diag diag = {{0}};
    wn_err err = root ? WN_OK : wn_diag_set(&diag, WN_ENOMEM, "out of memory");
    if (root) {
      root[len] = '\0';
      err = wn_walk_push(s, root, &diag);
    }
    free(root);
    if (err)
      return wn_files_error_page(page, input, err, &diag);
  }
}

/* ---- prepare and sinks --------------------------------------------------------- */

typedef struct wn_files_sink {
  const wn_files_options *opts;
  int worst; /* the most severe failure's exit code */
} wn_files_sink;

/* A worker: the file's bytes as read, the run's site or URL (neither:
 * the single-page method). */
static wn_err wn_files_prepare(void *ctx, wn_batch_page *page, wn_diag *diag) {
  (void)diag;
  const wn_files_source *s = ctx;
  page->in = (wn_page_input){.bytes = page->raw, .len = page->raw_len, .site = s->opts->site,
                             .url = s->opts->url};
  return WN_OK;
}

static int wn_exit_severity(int code) {
  return code == WN_EXIT_INTERNAL ? 3 : code == WN_EXIT_STORE ? 2 : code ? 1 : 0;
}

static void wn_files_failed(wn_files_sink *k, int code) {
  if (wn_exit_severity(code) > wn_exit_severity(k->worst))
    k->worst = code;
}

/* A failed page on stderr, named by its path (once). */
static void wn_files_report(wn_files_sink *k, const wn_batch_page *page) {
  const char *msg = wn_diag_message(&page->diag, page->err);
  const char *name = page->name ? page->name : "?";
  if (strstr(msg, name))
    wn_cli_error("%s", msg);
  else
    wn_cli_error("%s: %s", name, msg);
  wn_files_failed(k, wn_exit_code(page->err));
}

static int wn_files_write_line(void *ctx, wn_batch_page *page) {
  wn_files_sink *k = ctx;
  if (page->err)
    wn_files_report(k, page);
  return wn_cli_write_line(NULL, page);
}

static void wn_files_render(void *ctx, wn_batch_page *page, const wn_page_result *r) {
  wn_files_sink *k = ctx;
  if (!r) {
    page->out = strdup(""); /* nothing is written for it */
    return;
  }
  if (k->opts->format == WN_FORMAT_JSON) {
    wn_err err = wn_page_result_json(r, NULL, WN_JSON_PRETTY, &page->out, &page->diag);
    if (err) {
      page->err = err;
      page->out = strdup("");
      return;
    }
    size_t len = strlen(page->out);
    char *grown = realloc(page->out, len + 2);
    if (!grown) {
      free(page->out);
      page->out = NULL;
      return;
    }
    grown[len] = '\n';
    grown[len + 1] = '\0';
    page->out = grown;
    page->out_len = len + 1;
    return;
  }
  size_t len = 0;
  const char *text = k->opts->format == WN_FORMAT_HTML       ? wn_page_result_html(r, &len)
                     : k->opts->format == WN_FORMAT_MARKDOWN ? wn_page_result_markdown(r, &len)
                                                             : wn_page_result_text(r, &len);
  page->out = malloc(len + 1);
  if (page->out) {
    memcpy(page->out, text, len);
    page->out[len] = '\0';
    page->out_len = len;
  }
}

/* mkdir -p of the directories above path (path itself is a file). */
static int wn_make_parents(char *path) {
  for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
    *p = '\0';
    int rc = mkdir(path, 0777);
    int saved = errno;
    struct stat st;
    int ok = rc == 0 || (saved == EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode));
    *p = '/';
    if (!ok) {
      errno = saved == EEXIST ? ENOTDIR : saved;
      return -1;
    }
  }
  return 0;
}

static int wn_files_write_file(void *ctx, wn_batch_page *page) {
  wn_files_sink *k = ctx;
  if (page->err) {
    wn_files_report(k, page);
    return WN_EXIT_OK;
  }
  const char *ext = k->opts->format == WN_FORMAT_JSON       ? ".json"
                    : k->opts->format == WN_FORMAT_HTML     ? ".html"
                    : k->opts->format == WN_FORMAT_MARKDOWN ? ".md"
                                                            : ".txt";
  const char *rel = page->out_name;
  size_t keep = strlen(rel);
  const char *dot = strrchr(rel, '.');
  if (dot && !strchr(dot, '/') && wn_is_html_name(rel))
    keep = (size_t)(dot - rel);
  wn_buf path;
  wn_buf_init(&path, PATH_MAX);
  int fd = -1, failed = 0;
  if (wn_buf_printf(&path, "%s/%.*s%s", k->opts->output_dir, (int)keep, rel, ext) != WN_OK) {
    wn_cli_error("%s: output path too long", page->name);
    failed = WN_EXIT_INPUT;
    goto out;
  }
  struct stat in_st, out_st;
  if (stat(path.data, &out_st) == 0 && stat(page->name, &in_st) == 0 &&
      in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino) {
    wn_cli_error("%s: the output %s would overwrite the input", page->name, path.data);
    failed = WN_EXIT_INPUT;
    goto out;
  }
  if (wn_make_parents(path.data) != 0 ||
      (fd = open(path.data, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) < 0) {
    wn_cli_error("%s: cannot write %s: %s", page->name, path.data, strerror(errno));
    failed = WN_EXIT_INTERNAL;
    goto out;
  }
  size_t done = 0;
  while (done < page->out_len) {
    ssize_t n = write(fd, page->out + done, page->out_len - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      wn_cli_error("%s: cannot write %s: %s", page->name, path.data, strerror(errno));
      failed = WN_EXIT_INTERNAL;
      goto out;
    }
    done += (size_t)n;
  }
  if (close(fd) != 0) {
    fd = -1;
    wn_cli_error("%s: cannot write %s: %s", page->name, path.data, strerror(errno));
    failed = WN_EXIT_INTERNAL;
    goto out;
  }
  fd = -1;
out:
  if (fd >= 0)
    close(fd);
  if (failed)
    wn_files_failed(k, failed);
  wn_buf_free(&path);
  /* A file that cannot be written is that page's failure; the run goes on
   * (another directory may well be writable). */
  return WN_EXIT_OK;
}

int wn_cli_detect_files(const wn_batch_options *opts, const wn_files_options *files) {
  int rc = WN_EXIT_OK;
  wn_files_source s;
  memset(&s, 0, sizeof s);
  s.opts = files;
  if (files->input_list) {
    int is_stdin = strcmp(files->input_list, "-") == 0;
    s.list = is_stdin ? stdin : fopen(files->input_list, "r");
    if (!s.list) {
      wn_cli_error("cannot open %s: %s", files->input_list, strerror(errno));
      return WN_EXIT_INPUT;
    }
  }
  wn_files_sink k = {.opts = files};
  wn_batch_source source = {.ctx = &s, .next = wn_files_next, .prepare = wn_files_prepare};
  wn_batch_sink sink = {.ctx = &k};
  if (files->output_dir) {
    sink.want = (files->format == WN_FORMAT_HTML       ? WN_WANT_HTML
                 : files->format == WN_FORMAT_JSON     ? WN_WANT_TEXT | WN_WANT_NODES
                 : files->format == WN_FORMAT_MARKDOWN ? WN_WANT_MARKDOWN
                                                       : WN_WANT_TEXT) |
                wn_cli_want_extra(opts->output, files->format, files->format == WN_FORMAT_JSON);
    sink.render = wn_files_render;
    sink.write = wn_files_write_file;
  } else {
    sink.want = WN_WANT_TEXT | WN_WANT_NODES | (files->format == WN_FORMAT_HTML ? WN_WANT_HTML : 0) |
                (files->format == WN_FORMAT_MARKDOWN ? WN_WANT_MARKDOWN : 0) |
                wn_cli_want_extra(opts->output, files->format, 1);
    sink.render = wn_cli_render_jsonl;
    sink.write = wn_files_write_line;
  }
  rc = wn_cli_batch_run(opts, &source, &sink);
  while (s.depth > 0)
    wn_walk_dir_free(&s.stack[--s.depth]);
  free(s.list_line);
  if (s.list && s.list != stdin)
    fclose(s.list);
  /* A run that stopped (the list cannot be read, stdout cannot be
   * written) or pages that failed: the most severe code. */
  return wn_exit_severity(k.worst) > wn_exit_severity(rc) ? k.worst : rc;
}
