/*
 * python/winnow/_winnow.c: the CPython extension under `import winnow`,
 * written against the public header <winnow/winnow.h> only.
 *
 * Types: Store (wn_store), Detector (wn_detector, one thread's), Result
 * (wn_page_result, read lazily), Collector (wn_collector), WarcReader
 * (wn_warc_reader) and WarcRecord (a page copied out of it). Every call
 * that parses, matches, learns, crawls or reads a file runs with the GIL
 * released, so threads detect at once. Errors are winnow.Error or one of
 * its subclasses (made in __init__.py and handed in with _set_errors),
 * carrying winnow's code, its name and the message.
 *
 * Lifetimes: a Detector or Collector holds a reference to its Store, and
 * the store is closed when it is closed and no Detector or Collector uses
 * it any more (Store.close() then only marks it closed).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#if PY_VERSION_HEX < 0x030A0000 /* Python 3.9: Py_NewRef came in 3.10 */
static inline PyObject *wn_py_new_ref(PyObject *o) {
  Py_INCREF(o);
  return o;
}
#define Py_NewRef(o) wn_py_new_ref((PyObject *)(o))
/* and PyModule_AddObjectRef, which takes no reference */
static int wn_py_add_object_ref(PyObject *m, const char *name, PyObject *v) {
  Py_INCREF(v);
  if (PyModule_AddObject(m, name, v) < 0) {
    Py_DECREF(v);
    return -1;
  }
  return 0;
}
#define PyModule_AddObjectRef wn_py_add_object_ref
#endif
#include <structmember.h>

#include <stdint.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <winnow/winnow.h>

/* ---- errors ------------------------------------------------------------ */

/* winnow.Error and the class for each wn_err, from __init__.py. */
static PyObject *error_base;
static PyObject *error_class[WN_ERR_COUNT];
static PyObject *error_site; /* winnow.SiteError: a bad site name */

static PyObject *raise_as(PyObject *cls, wn_err err, const wn_diag *diag) {
  const char *msg = diag ? wn_diag_message(diag, err) : wn_strerror(err);
  if (!cls) {
    PyErr_SetString(PyExc_RuntimeError, msg);
    return NULL;
  }
  if (err == WN_ENOMEM)
    return PyErr_NoMemory();
  PyObject *exc = PyObject_CallFunction(cls, "sis", msg, (int)err, wn_strerror_name(err));
  if (!exc)
    return NULL;
  PyErr_SetObject(cls, exc);
  Py_DECREF(exc);
  return NULL;
}

static PyObject *raise_err(wn_err err, const wn_diag *diag) {
  PyObject *cls = (err > 0 && err < WN_ERR_COUNT && error_class[err]) ? error_class[err]
                                                                       : error_base;
  return raise_as(cls, err, diag);
}

/* The classes of the file errors (winnow.FileError and its subclasses of
 * FileNotFoundError and PermissionError, from __init__.py). */
static PyObject *error_file, *error_file_missing, *error_file_denied;

/* Why path cannot be read, as the OS says (0: it can). */
static int path_errno(const char *path) {
  struct stat st;
  if (!path || strcmp(path, "-") == 0)
    return 0;
  if (stat(path, &st) != 0)
    return errno;
  if (access(path, R_OK) != 0)
    return errno;
  return 0;
}

/* An error of a call that read the files of paths[0..n): when one of them
 * cannot be read, the error is a file error whose class, errno and
 * filename say why (FileNotFoundError, PermissionError, OSError), and
 * still a winnow.Error with the library's code and message. Otherwise as
 * raise_err. */
static PyObject *raise_paths_err(wn_err err, const wn_diag *diag, const char *const *paths,
                                 Py_ssize_t n) {
  int e = 0;
  const char *bad = NULL;
  if (err == WN_ENOTFOUND || err == WN_EIO || err == WN_ESTORE)
    for (Py_ssize_t i = 0; i < n && !e; i++)
      if ((e = path_errno(paths[i])) != 0)
        bad = paths[i];
  PyObject *cls = !e ? NULL
                  : e == ENOENT || e == ENOTDIR ? error_file_missing
                  : e == EACCES || e == EPERM   ? error_file_denied
                                                : error_file;
  if (!cls || err == WN_ENOMEM)
    return raise_err(err, diag);
  raise_as(cls, err, diag);
  PyObject *type, *value, *tb;
  PyErr_Fetch(&type, &value, &tb);
  PyErr_NormalizeException(&type, &value, &tb);
  PyObject *no = PyLong_FromLong(e), *str = PyUnicode_FromString(strerror(e)),
           *name = PyUnicode_DecodeFSDefault(bad);
  if (!no || !str || !name || PyObject_SetAttrString(value, "errno", no) < 0 ||
      PyObject_SetAttrString(value, "strerror", str) < 0 ||
      PyObject_SetAttrString(value, "filename", name) < 0) {
    Py_XDECREF(no);
    Py_XDECREF(str);
    Py_XDECREF(name);
    Py_XDECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
    return NULL;
  }
  Py_DECREF(no);
  Py_DECREF(str);
  Py_DECREF(name);
  PyErr_Restore(type, value, tb);
  return NULL;
}

static PyObject *raise_path_err(wn_err err, const wn_diag *diag, const char *path) {
  return raise_paths_err(err, diag, &path, 1);
}

static PyObject *py_set_errors(PyObject *self, PyObject *args) {
  (void)self;
  PyObject *base, *table;
  if (!PyArg_ParseTuple(args, "OO!", &base, &PyDict_Type, &table))
    return NULL;
  Py_XSETREF(error_base, Py_NewRef(base));
  PyObject *site = PyDict_GetItemString(table, "site");
  Py_XSETREF(error_site, Py_NewRef(site ? site : base));
  PyObject *file = PyDict_GetItemString(table, "file");
  PyObject *missing = PyDict_GetItemString(table, "file_missing");
  PyObject *denied = PyDict_GetItemString(table, "file_denied");
  Py_XSETREF(error_file, Py_NewRef(file ? file : base));
  Py_XSETREF(error_file_missing, Py_NewRef(missing ? missing : error_file));
  Py_XSETREF(error_file_denied, Py_NewRef(denied ? denied : error_file));
  for (int e = 1; e < WN_ERR_COUNT; e++) {
    PyObject *cls = PyDict_GetItemString(table, wn_strerror_name((wn_err)e));
    Py_XSETREF(error_class[e], Py_NewRef(cls ? cls : base));
  }
  Py_RETURN_NONE;
}

/* A site name checked as winnow checks it (SiteError otherwise). */
static int check_site(const char *site) {
  wn_diag diag = {{0}};
  wn_err err = wn_site_check(site, &diag);
  if (err) {
    raise_as(error_site, err, &diag);
    return -1;
  }
  return 0;
}

/* A path argument: str or os.PathLike, as UTF-8 bytes (a new reference). */
static PyObject *path_bytes(PyObject *obj) {
  PyObject *out = NULL;
  if (!PyUnicode_FSConverter(obj, &out))
    return NULL;
  return out;
}

/* Context managers: __enter__ gives the object, __exit__ calls its
 * close() (the same for every type that has one). */
static PyObject *return_self(PyObject *self, PyObject *unused) {
  (void)unused;
  return Py_NewRef(self);
}

static PyObject *exit_closes(PyObject *self, PyObject *args) {
  (void)args;
  return PyObject_CallMethod(self, "close", NULL);
}

/* ---- Store ------------------------------------------------------------- */

typedef struct {
  PyObject_HEAD wn_store *store;
  int closed;     /* close() was called */
  Py_ssize_t users; /* Detectors and Collectors holding it */
  int read_only;
  PyObject *path;
} StoreObject;

static PyTypeObject Store_Type;

static void store_release(StoreObject *s) {
  if (s->store && s->closed && s->users == 0) {
    wn_store *st = s->store;
    s->store = NULL;
    Py_BEGIN_ALLOW_THREADS wn_store_close(st);
    Py_END_ALLOW_THREADS
  }
}

static int store_usable(StoreObject *s) {
  if (!s->store || s->closed) {
    PyErr_SetString(PyExc_ValueError, "the store is closed");
    return 0;
  }
  return 1;
}

static int Store_init(StoreObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"path", "readonly", "map_size", NULL};
  PyObject *path_obj;
  int readonly = 0;
  Py_ssize_t map_size = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|pn", kwlist, &path_obj, &readonly, &map_size))
    return -1;
  if (self->store) {
    PyErr_SetString(PyExc_ValueError, "Store is already open");
    return -1;
  }
  if (map_size < 0) {
    PyErr_SetString(PyExc_ValueError, "map_size must not be negative");
    return -1;
  }
  PyObject *path = path_bytes(path_obj);
  if (!path)
    return -1;
  wn_store_options o;
  wn_store_options_init(&o);
  o.read_only = readonly;
  if (map_size)
    o.map_size = (size_t)map_size;
  wn_diag diag = {{0}};
  wn_store *st = NULL;
  wn_err err;
  const char *p = PyBytes_AS_STRING(path);
  Py_BEGIN_ALLOW_THREADS err = wn_store_open(p, &o, &st, &diag);
  Py_END_ALLOW_THREADS if (err) {
    raise_path_err(err, &diag, p);
    Py_DECREF(path);
    return -1;
  }
  self->store = st;
  self->closed = 0;
  self->users = 0;
  self->read_only = readonly;
  Py_XSETREF(self->path, PyUnicode_DecodeFSDefault(p));
  Py_DECREF(path);
  return self->path ? 0 : -1;
}

static void Store_dealloc(StoreObject *self) {
  self->closed = 1;
  self->users = 0;
  store_release(self);
  Py_XDECREF(self->path);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *Store_close(StoreObject *self, PyObject *unused) {
  (void)unused;
  self->closed = 1;
  store_release(self);
  Py_RETURN_NONE;
}

static PyObject *Store_enter(StoreObject *self, PyObject *unused) {
  (void)unused;
  if (!store_usable(self))
    return NULL;
  return Py_NewRef(self);
}

static int site_list_fn(const char *site, void *ctx) {
  PyObject *s = PyUnicode_FromString(site);
  if (!s || PyList_Append((PyObject *)ctx, s) < 0) {
    Py_XDECREF(s);
    return 1;
  }
  Py_DECREF(s);
  return 0;
}

static PyObject *Store_sites(StoreObject *self, PyObject *unused) {
  (void)unused;
  if (!store_usable(self))
    return NULL;
  PyObject *list = PyList_New(0);
  if (!list)
    return NULL;
  wn_diag diag = {{0}};
  /* The walk calls back into Python per site: the GIL stays held. */
  wn_err err = wn_site_each(self->store, site_list_fn, list, &diag);
  if (PyErr_Occurred()) {
    Py_DECREF(list);
    return NULL;
  }
  if (err) {
    Py_DECREF(list);
    return raise_err(err, &diag);
  }
  return list;
}

static int dict_set(PyObject *d, const char *key, PyObject *v) {
  if (!v)
    return -1;
  int r = PyDict_SetItemString(d, key, v);
  Py_DECREF(v);
  return r;
}

static PyObject *str_or_none(const char *s) {
  if (!s)
    Py_RETURN_NONE;
  return PyUnicode_DecodeUTF8(s, (Py_ssize_t)strlen(s), "replace");
}

static PyObject *counts_dict(const wn_site_counts *c) {
  return Py_BuildValue("{s:K,s:K,s:I,s:I,s:L}", "pages", (unsigned long long)c->pages, "low",
                       (unsigned long long)c->low, "recent_pages", c->recent_pages,
                       "recent_low", c->recent_low, "updated_at", (long long)c->updated_at);
}

static PyObject *Store_info(StoreObject *self, PyObject *args) {
  const char *site;
  if (!PyArg_ParseTuple(args, "s", &site) || !store_usable(self) || check_site(site) < 0)
    return NULL;
  wn_site_info *info = NULL;
  wn_diag diag = {{0}};
  wn_err err;
  Py_BEGIN_ALLOW_THREADS err = wn_site_info_get(self->store, site, &info, &diag);
  Py_END_ALLOW_THREADS if (err) return raise_err(err, &diag);
  PyObject *d = PyDict_New();
  PyObject *pages = PyList_New(0);
  if (!d || !pages)
    goto fail;
  for (size_t i = 0; i < info->n_pages; i++) {
    PyObject *pg = Py_BuildValue("{s:N,s:K,s:i}", "name", str_or_none(info->pages[i]), "bytes",
                                 (unsigned long long)info->page_bytes[i], "http_status",
                                 (int)info->page_status[i]);
    if (!pg || PyList_Append(pages, pg) < 0) {
      Py_XDECREF(pg);
      goto fail;
    }
    Py_DECREF(pg);
  }
  if (dict_set(d, "site", str_or_none(info->site)) < 0 ||
      dict_set(d, "algorithm", str_or_none(info->algorithm)) < 0 ||
      dict_set(d, "generation", PyLong_FromUnsignedLongLong(info->generation)) < 0 ||
      dict_set(d, "learned_at", PyLong_FromLongLong(info->learned_at)) < 0 ||
      dict_set(d, "key_page", str_or_none(info->key_page)) < 0 ||
      dict_set(d, "from_url", PyBool_FromLong(info->from_url)) < 0 ||
      dict_set(d, "selector", str_or_none(wn_detect_selector_name(info->selector))) < 0 ||
      dict_set(d, "template_nodes", PyLong_FromUnsignedLong(info->template_nodes)) < 0 ||
      dict_set(d, "template_bytes", PyLong_FromSize_t(info->template_bytes)) < 0 ||
      dict_set(d, "place", str_or_none(info->place)) < 0 ||
      dict_set(d, "layouts", PyLong_FromUnsignedLong(info->layouts)) < 0 ||
      dict_set(d, "counts", counts_dict(&info->counts)) < 0 ||
      PyDict_SetItemString(d, "pages", pages) < 0)
    goto fail;
  Py_DECREF(pages);
  wn_site_info_free(info);
  return d;
fail:
  Py_XDECREF(d);
  Py_XDECREF(pages);
  wn_site_info_free(info);
  return NULL;
}

static PyObject *Store_delete(StoreObject *self, PyObject *args) {
  const char *site;
  if (!PyArg_ParseTuple(args, "s", &site) || !store_usable(self) || check_site(site) < 0)
    return NULL;
  wn_diag diag = {{0}};
  wn_err err;
  Py_BEGIN_ALLOW_THREADS err = wn_site_delete(self->store, site, &diag);
  Py_END_ALLOW_THREADS if (err) return raise_err(err, &diag);
  Py_RETURN_NONE;
}

static PyObject *Store_export(StoreObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"path", "sites", NULL};
  PyObject *path_obj, *sites_obj = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O", kwlist, &path_obj, &sites_obj) ||
      !store_usable(self))
    return NULL;
  PyObject *path = path_bytes(path_obj);
  if (!path)
    return NULL;
  PyObject *seq = NULL, *result = NULL;
  const char **names = NULL;
  Py_ssize_t n = 0;
  if (sites_obj != Py_None) {
    if (PyUnicode_Check(sites_obj)) {
      PyErr_SetString(PyExc_TypeError, "sites must be a list of site names, not a str");
      goto out;
    }
    seq = PySequence_Fast(sites_obj, "sites must be a list of site names");
    if (!seq)
      goto out;
    n = PySequence_Fast_GET_SIZE(seq);
    names = PyMem_Calloc((size_t)n + 1, sizeof *names);
    if (!names) {
      PyErr_NoMemory();
      goto out;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
      names[i] = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, i));
      if (!names[i] || check_site(names[i]) < 0)
        goto out;
    }
  }
  uint64_t written = 0;
  wn_diag diag = {{0}};
  wn_err err;
  const char *p = PyBytes_AS_STRING(path);
  Py_BEGIN_ALLOW_THREADS err =
      wn_store_export(self->store, p, names, (size_t)n, NULL, NULL, &written, &diag);
  Py_END_ALLOW_THREADS if (err) raise_path_err(err, &diag, p);
  else result = PyLong_FromUnsignedLongLong(written);
out:
  PyMem_Free(names);
  Py_XDECREF(seq);
  Py_DECREF(path);
  return result;
}

static PyObject *Store_import(StoreObject *self, PyObject *args) {
  PyObject *path_obj;
  if (!PyArg_ParseTuple(args, "O", &path_obj) || !store_usable(self))
    return NULL;
  PyObject *path = path_bytes(path_obj);
  if (!path)
    return NULL;
  uint64_t n = 0;
  wn_diag diag = {{0}};
  wn_err err;
  const char *p = PyBytes_AS_STRING(path);
  Py_BEGIN_ALLOW_THREADS err = wn_store_import(self->store, p, NULL, NULL, &n, &diag);
  Py_END_ALLOW_THREADS if (err) raise_path_err(err, &diag, p);
  Py_DECREF(path);
  if (err)
    return NULL;
  return PyLong_FromUnsignedLongLong(n);
}

/* The report of one learning (a dict), and the learned template saved in
 * the store when it succeeded. Takes learned. */
static PyObject *learn_report(StoreObject *store, wn_learned *learned, wn_err err,
                              const wn_diag *diag, const char *const *paths, Py_ssize_t n_paths) {
  PyObject *d = NULL, *pages = NULL;
  if (err) {
    /* The report says why, page by page: carried on the exception. */
    raise_paths_err(err, diag, paths, n_paths);
    if (learned) {
      PyObject *type, *value, *tb;
      PyErr_Fetch(&type, &value, &tb);
      PyErr_NormalizeException(&type, &value, &tb);
      pages = PyList_New(0);
      wn_learn_summary sum;
      wn_learned_summary_get(learned, &sum);
      for (size_t i = 0; pages && i < sum.n_pages; i++) {
        const wn_learn_page *pg = wn_learned_page(learned, i);
        PyObject *o = Py_BuildValue("{s:N,s:O,s:d,s:N}", "name", str_or_none(pg->name), "used",
                                    pg->used ? Py_True : Py_False, "share", pg->share,
                                    "message", str_or_none(pg->message));
        if (o)
          PyList_Append(pages, o);
        Py_XDECREF(o);
      }
      if (pages && value)
        PyObject_SetAttrString(value, "pages", pages);
      Py_XDECREF(pages);
      PyErr_Clear();
      PyErr_Restore(type, value, tb);
      wn_learned_free(learned);
    }
    return NULL;
  }
  wn_save_info saved = {0};
  wn_diag sdiag = {{0}};
  wn_err serr;
  Py_BEGIN_ALLOW_THREADS serr = wn_site_save(store->store, learned, &saved, &sdiag);
  Py_END_ALLOW_THREADS if (serr) {
    wn_learned_free(learned);
    return raise_err(serr, &sdiag);
  }
  wn_learn_summary sum;
  wn_learned_summary_get(learned, &sum);
  d = PyDict_New();
  pages = PyList_New(0);
  if (!d || !pages)
    goto fail;
  for (size_t i = 0; i < sum.n_pages; i++) {
    const wn_learn_page *pg = wn_learned_page(learned, i);
    PyObject *o = Py_BuildValue(
        "{s:N,s:O,s:d,s:l,s:K,s:I,s:N}", "name", str_or_none(pg->name), "used",
        pg->used ? Py_True : Py_False, "share", pg->share, "http_status", pg->http_status,
        "bytes", (unsigned long long)pg->bytes, "layout", pg->layout, "message",
        str_or_none(pg->message));
    if (!o || PyList_Append(pages, o) < 0) {
      Py_XDECREF(o);
      goto fail;
    }
    Py_DECREF(o);
  }
  if (dict_set(d, "site", str_or_none(sum.site)) < 0 ||
      dict_set(d, "algorithm", str_or_none(wn_learn_algo_name(wn_learned_algo(learned)))) < 0 ||
      dict_set(d, "generation", PyLong_FromUnsignedLongLong(saved.generation)) < 0 ||
      dict_set(d, "used", PyLong_FromSize_t(sum.n_used)) < 0 ||
      dict_set(d, "layouts", PyLong_FromUnsignedLong(wn_learned_layouts(learned))) < 0 ||
      dict_set(d, "template_bytes", PyLong_FromSize_t(sum.template_bytes)) < 0 ||
      PyDict_SetItemString(d, "pages", pages) < 0)
    goto fail;
  Py_DECREF(pages);
  wn_learned_free(learned);
  return d;
fail:
  Py_XDECREF(d);
  Py_XDECREF(pages);
  wn_learned_free(learned);
  return NULL;
}

static int parse_algo(const char *name, wn_learn_algo *algo) {
  if (wn_learn_algo_parse(name, algo) != 0) {
    PyErr_Format(PyExc_ValueError, "algo must be \"etdm\" or \"fastce\", not \"%s\"", name);
    return -1;
  }
  return 0;
}

static PyObject *Store_learn(StoreObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"site", "pages", "algo", "force", NULL};
  const char *site, *algo_name = "etdm";
  PyObject *pages_obj;
  int force = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "sO|$sp", kwlist, &site, &pages_obj, &algo_name,
                                   &force) ||
      !store_usable(self) || check_site(site) < 0)
    return NULL;
  if (self->read_only) {
    PyErr_SetString(PyExc_ValueError, "the store was opened read-only");
    return NULL;
  }
  wn_learn_algo algo;
  if (parse_algo(algo_name, &algo) < 0)
    return NULL;
  if (PyUnicode_Check(pages_obj) || PyBytes_Check(pages_obj)) {
    PyErr_SetString(PyExc_TypeError, "pages must be a list of pages (bytes) or of paths");
    return NULL;
  }
  PyObject *seq = PySequence_Fast(pages_obj, "pages must be a list of pages (bytes) or paths");
  if (!seq)
    return NULL;
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  PyObject *held = PyList_New(n); /* keeps the bytes and paths alive */
  const char **bytes = PyMem_Calloc((size_t)n + 1, sizeof *bytes);
  const char **names = PyMem_Calloc((size_t)n + 1, sizeof *names);
  size_t *lens = PyMem_Calloc((size_t)n + 1, sizeof *lens);
  PyObject *result = NULL;
  char(*labels)[32] = PyMem_Calloc((size_t)n + 1, sizeof *labels);
  if (!held || !bytes || !names || !lens || !labels) {
    PyErr_NoMemory();
    goto out;
  }
  int kind = -1; /* 0: bytes, 1: paths */
  for (Py_ssize_t i = 0; i < n; i++) {
    PyObject *it = PySequence_Fast_GET_ITEM(seq, i);
    int k = PyBytes_Check(it) || PyByteArray_Check(it) ? 0 : 1;
    if (kind >= 0 && k != kind) {
      PyErr_SetString(PyExc_TypeError, "pages must be all bytes or all paths, not a mix");
      goto out;
    }
    kind = k;
    PyObject *b = k == 0 ? PyBytes_FromObject(it) : path_bytes(it);
    if (!b)
      goto out;
    PyList_SET_ITEM(held, i, b);
    bytes[i] = PyBytes_AS_STRING(b);
    lens[i] = (size_t)PyBytes_GET_SIZE(b);
    snprintf(labels[i], sizeof labels[i], "page %zd", i + 1);
    names[i] = labels[i];
  }
  wn_learn_options lo;
  wn_learn_options_init(&lo);
  lo.algo = algo;
  lo.force = force;
  wn_learned *learned = NULL;
  wn_diag diag = {{0}};
  wn_err err;
  Py_BEGIN_ALLOW_THREADS if (kind == 1) err =
      wn_site_learn_files(site, bytes, (size_t)n, &lo, &learned, &diag);
  else err = wn_site_learn_pages(site, names, bytes, lens, (size_t)n, &lo, &learned, &diag);
  Py_END_ALLOW_THREADS result = learn_report(self, learned, err, &diag,
                                             kind == 1 ? (const char *const *)bytes : NULL, n);
out:
  PyMem_Free(bytes);
  PyMem_Free(names);
  PyMem_Free(lens);
  PyMem_Free(labels);
  Py_XDECREF(held);
  Py_DECREF(seq);
  return result;
}

static PyObject *Store_learn_url(StoreObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"url",        "site",        "algo",     "n",
                           "obey_robots", "delay_ms",   "timeout_ms", "user_agent",
                           NULL};
  const char *url, *site = NULL, *algo_name = "etdm", *ua = NULL;
  unsigned int n = 0, delay = 0, timeout = 0;
  int robots = 1;
  PyObject *delay_obj = Py_None, *timeout_obj = Py_None;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "s|z$sIpOOz", kwlist, &url, &site, &algo_name, &n,
                                   &robots, &delay_obj, &timeout_obj, &ua) ||
      !store_usable(self))
    return NULL;
  if (site && check_site(site) < 0)
    return NULL;
  if (self->read_only) {
    PyErr_SetString(PyExc_ValueError, "the store was opened read-only");
    return NULL;
  }
  wn_learn_algo algo;
  if (parse_algo(algo_name, &algo) < 0)
    return NULL;
  wn_learn_options lo;
  wn_learn_options_init(&lo);
  lo.algo = algo;
  if (n)
    lo.n = n;
  wn_crawl_options co;
  wn_crawl_options_init(&co);
  co.obey_robots = robots;
  if (delay_obj != Py_None) {
    delay = (unsigned int)PyLong_AsUnsignedLong(delay_obj);
    if (PyErr_Occurred())
      return NULL;
    co.host_delay_ms = delay;
  }
  if (timeout_obj != Py_None) {
    timeout = (unsigned int)PyLong_AsUnsignedLong(timeout_obj);
    if (PyErr_Occurred())
      return NULL;
    co.timeout_ms = timeout;
  }
  if (ua)
    co.user_agent = ua;
  wn_learned *learned = NULL;
  wn_diag diag = {{0}};
  wn_err err;
  Py_BEGIN_ALLOW_THREADS err = wn_site_learn_url(url, site, &lo, &co, &learned, &diag);
  Py_END_ALLOW_THREADS return learn_report(self, learned, err, &diag, NULL, 0);
}

static PyObject *Store_repr(StoreObject *self) {
  return PyUnicode_FromFormat("<winnow.Store %R%s>", self->path ? self->path : Py_None,
                              self->closed ? " closed" : (self->read_only ? " read-only" : ""));
}

static PyObject *Store_get_closed(StoreObject *self, void *c) {
  (void)c;
  return PyBool_FromLong(self->closed || !self->store);
}

/* Pickled as its parameters: a worker process opens the store again
 * (LMDB is shared between processes). */
static PyObject *Store_reduce(StoreObject *self, PyObject *unused) {
  (void)unused;
  if (!self->path) {
    PyErr_SetString(PyExc_ValueError, "the Store was never opened");
    return NULL;
  }
  return Py_BuildValue("(O(Oi))", (PyObject *)Py_TYPE(self), self->path, self->read_only);
}

static PyMethodDef Store_methods[] = {
    {"__reduce__", (PyCFunction)Store_reduce, METH_NOARGS, NULL},
    {"close", (PyCFunction)Store_close, METH_NOARGS,
     "close($self, /)\n--\n\nCloses the store once no Detector or Collector uses it."},
    {"__enter__", (PyCFunction)Store_enter, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)exit_closes, METH_VARARGS, NULL},
    {"sites", (PyCFunction)Store_sites, METH_NOARGS,
     "sites($self, /)\n--\n\nThe sites that have a template (a list), in name order."},
    {"info", (PyCFunction)Store_info, METH_VARARGS,
     "info($self, site, /)\n--\n\nWhat the store holds for site: how and from which pages its\n"
     "template was learned, its generation, layouts and detection counts.\n"
     "Raises NoTemplateError when the site has none."},
    {"delete", (PyCFunction)Store_delete, METH_VARARGS,
     "delete($self, site, /)\n--\n\nRemoves the site's template and counts."},
    {"export", (PyCFunction)(void (*)(void))Store_export, METH_VARARGS | METH_KEYWORDS,
     "export($self, path, sites=None)\n--\n\nWrites a portable snapshot of the sites (all: None) to\n"
     "path; returns the number of records written."},
    {"import_", (PyCFunction)Store_import, METH_VARARGS,
     "import_($self, path, /)\n--\n\nReads a snapshot written by export() into the store, all or\n"
     "nothing; returns the number of records."},
    {"learn", (PyCFunction)(void (*)(void))Store_learn, METH_VARARGS | METH_KEYWORDS,
     "learn($self, site, pages, *, algo='etdm', force=False)\n--\n\n"
     "Learns site's template from pages (the key page first): a list of\n"
     "pages as bytes, or of paths to files. Saves it and returns the\n"
     "report (generation, layouts, each page used or why not). Raises\n"
     "winnow.Error when too few pages share a layout (the report on the\n"
     "exception's .pages)."},
    {"learn_url", (PyCFunction)(void (*)(void))Store_learn_url, METH_VARARGS | METH_KEYWORDS,
     "learn_url($self, url, site=None, *, algo='etdm', n=4, obey_robots=True,\n"
     "          delay_ms=None, timeout_ms=None, user_agent=None)\n--\n\n"
     "Crawls the key page url and its best same-site links (politely:\n"
     "robots.txt, a per-host delay), learns the site's template and saves\n"
     "it. Returns the report, as learn()."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Store_getset[] = {
    {"closed", (getter)Store_get_closed, NULL, "True once close() was called.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMemberDef Store_members[] = {
    {"path", T_OBJECT, offsetof(StoreObject, path), READONLY, "The store directory."},
    {"readonly", T_INT, offsetof(StoreObject, read_only), READONLY, "Opened read-only."},
    {NULL, 0, 0, 0, NULL}};

static PyTypeObject Store_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "winnow.Store",
    .tp_basicsize = sizeof(StoreObject),
    .tp_dealloc = (destructor)Store_dealloc,
    .tp_repr = (reprfunc)Store_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Store(path, readonly=False, map_size=0)\n--\n\n"
              "A template store: an LMDB directory (created unless readonly)\n"
              "holding each site's template. Use it as a context manager, or\n"
              "close() it. Raises StoreError for a store that cannot be opened\n"
              "or is damaged.",
    .tp_methods = Store_methods,
    .tp_members = Store_members,
    .tp_getset = Store_getset,
    .tp_init = (initproc)Store_init,
    .tp_new = PyType_GenericNew,
};

/* ---- Result ------------------------------------------------------------ */

/* A page's result; or, from Detector.detect_many, a page that failed: r
 * NULL and error its message (every field None, 0 for the numbers). */
typedef struct {
  PyObject_HEAD wn_page_result *r;
  unsigned want;
  PyObject *error; /* str, or NULL */
  PyObject *fields; /* unpickled (r NULL): every field by name, and "_json" */
} ResultObject;

static PyTypeObject Result_Type;

static void Result_dealloc(ResultObject *self) {
  wn_page_result_free(self->r);
  Py_XDECREF(self->error);
  Py_XDECREF(self->fields);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *text_of(const char *s, size_t len) {
  return PyUnicode_DecodeUTF8(s ? s : "", s ? (Py_ssize_t)len : 0, "replace");
}

/* The rendered outputs: the getter's closure names which (None unless
 * the detection asked for it). */
typedef struct {
  unsigned want;
  const char *(*get)(const wn_page_result *r, size_t *len);
} rendered_kind;
static const rendered_kind rendered_text = {WN_WANT_TEXT, wn_page_result_text};
static const rendered_kind rendered_markdown = {WN_WANT_MARKDOWN, wn_page_result_markdown};
static const rendered_kind rendered_html = {WN_WANT_HTML, wn_page_result_html};

static PyObject *Result_rendered(ResultObject *self, void *closure) {
  const rendered_kind *k = closure;
  if (!self->r || !(self->want & k->want))
    Py_RETURN_NONE;
  size_t len = 0;
  const char *s = k->get(self->r, &len);
  return text_of(s, len);
}

/* The string fields: the closure is the accessor. */
typedef struct {
  const char *(*get)(const wn_page_result *r);
} string_field;
static const string_field field_method = {wn_page_result_method};
static const string_field field_page_type = {wn_page_result_page_type};
static const string_field field_site = {wn_page_result_site};
static const string_field field_site_error = {wn_page_result_site_error};
static const string_field field_empty = {wn_page_result_empty};
static const string_field field_charset = {wn_page_result_charset};

static PyObject *Result_string(ResultObject *self, void *closure) {
  if (!self->r)
    Py_RETURN_NONE;
  return str_or_none(((const string_field *)closure)->get(self->r));
}

static PyObject *Result_confidence(ResultObject *self, void *c) {
  (void)c;
  return PyFloat_FromDouble(self->r ? wn_page_result_confidence(self->r) : 0.0);
}

static PyObject *Result_fallback(ResultObject *self, void *c) {
  (void)c;
  if (!self->r)
    Py_RETURN_NONE;
  return str_or_none(wn_detect_fallback_name(wn_page_result_fallback(self->r)));
}

static PyObject *Result_generation(ResultObject *self, void *c) {
  (void)c;
  return PyLong_FromUnsignedLongLong(self->r ? wn_page_result_generation(self->r) : 0);
}

static PyObject *Result_layout(ResultObject *self, void *c) {
  (void)c;
  return PyLong_FromUnsignedLong(self->r ? wn_page_result_layout(self->r) : 0);
}

static PyObject *Result_nodes(ResultObject *self, void *c) {
  (void)c;
  if (!self->r || !(self->want & WN_WANT_NODES))
    Py_RETURN_NONE;
  size_t n = wn_page_result_node_count(self->r);
  PyObject *list = PyList_New((Py_ssize_t)n);
  for (size_t i = 0; list && i < n; i++) {
    PyObject *s = str_or_none(wn_page_result_node(self->r, i));
    if (!s) {
      Py_CLEAR(list);
      break;
    }
    PyList_SET_ITEM(list, (Py_ssize_t)i, s);
  }
  return list;
}

static PyObject *Result_metadata(ResultObject *self, void *c) {
  (void)c;
  const wn_page_metadata *m = self->r ? wn_page_result_metadata(self->r) : NULL;
  if (!m)
    Py_RETURN_NONE;
  return Py_BuildValue("{s:N,s:N,s:N,s:N,s:N,s:N,s:N}", "title", str_or_none(m->title), "author",
                       str_or_none(m->author), "date", str_or_none(m->date), "language",
                       str_or_none(m->language), "canonical_url", str_or_none(m->canonical_url),
                       "description", str_or_none(m->description), "site_name",
                       str_or_none(m->site_name));
}

static PyObject *Result_error(ResultObject *self, void *c) {
  (void)c;
  if (!self->error)
    Py_RETURN_NONE;
  return Py_NewRef(self->error);
}

/* obj as JSON text as the command line writes it: UTF-8 as it is,
 * compact, or indented by 2 when pretty. */
static PyObject *json_text(PyObject *obj, int pretty) {
  PyObject *json = PyImport_ImportModule("json");
  PyObject *dumps = json ? PyObject_GetAttrString(json, "dumps") : NULL;
  Py_XDECREF(json);
  PyObject *fargs = dumps ? PyTuple_Pack(1, obj) : NULL;
  PyObject *fkw = fargs ? (pretty ? Py_BuildValue("{s:O,s:i}", "ensure_ascii", Py_False,
                                                  "indent", 2)
                                  : Py_BuildValue("{s:O,s:(ss)}", "ensure_ascii", Py_False,
                                                  "separators", ",", ":"))
                        : NULL;
  PyObject *out = fkw ? PyObject_Call(dumps, fargs, fkw) : NULL;
  Py_XDECREF(dumps);
  Py_XDECREF(fargs);
  Py_XDECREF(fkw);
  return out;
}

/* {"id", "error"} as the command line writes a page that failed. */
static PyObject *Result_error_json(ResultObject *self, PyObject *id, int pretty) {
  PyObject *err = self->error ? self->error : Py_None;
  PyObject *obj = id != Py_None ? Py_BuildValue("{s:O,s:O}", "id", id, "error", err)
                                : Py_BuildValue("{s:O}", "error", err);
  PyObject *out = obj ? json_text(obj, pretty) : NULL;
  Py_XDECREF(obj);
  return out;
}

/* An unpickled result's json(): the line it was pickled with ("_json",
 * compact, no id), the id put first, pretty-printed on demand. */
static PyObject *Result_detached_json(ResultObject *self, PyObject *id, int pretty) {
  PyObject *line = PyDict_GetItemString(self->fields, "_json"); /* borrowed */
  if (!line || !PyUnicode_Check(line))
    return Result_error_json(self, id, pretty);
  if (id == Py_None && !pretty)
    return Py_NewRef(line);
  PyObject *json = PyImport_ImportModule("json");
  PyObject *obj = json ? PyObject_CallMethod(json, "loads", "O", line) : NULL;
  Py_XDECREF(json);
  PyObject *ordered = obj ? PyDict_New() : NULL;
  int bad = !ordered;
  if (!bad && id != Py_None)
    bad = PyDict_SetItemString(ordered, "id", id) < 0;
  if (!bad)
    bad = PyDict_Update(ordered, obj) < 0;
  PyObject *out = !bad ? json_text(ordered, pretty) : NULL;
  Py_XDECREF(obj);
  Py_XDECREF(ordered);
  return out;
}

static PyObject *Result_json(ResultObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"pretty", "id", NULL};
  int pretty = 0;
  PyObject *id = Py_None, *id_json = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|p$O", kwlist, &pretty, &id))
    return NULL;
  if (!self->r && self->fields)
    return Result_detached_json(self, id, pretty);
  if (!self->r)
    return Result_error_json(self, id, pretty);
  const char *id_raw = NULL;
  if (id != Py_None) {
    /* The id as the CLI writes it: compact, UTF-8 as it is. */
    id_json = json_text(id, 0);
    if (!id_json || !(id_raw = PyUnicode_AsUTF8(id_json))) {
      Py_XDECREF(id_json);
      return NULL;
    }
  }
  char *out = NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_page_result_json(self->r, id_raw, pretty ? WN_JSON_PRETTY : 0, &out, &diag);
  Py_XDECREF(id_json);
  if (err)
    return raise_err(err, &diag);
  PyObject *s = PyUnicode_DecodeUTF8(out, (Py_ssize_t)strlen(out), "replace");
  wn_free(out);
  return s;
}

static PyObject *Result_repr(ResultObject *self) {
  if (!self->r && self->fields) {
    if (self->error)
      return PyUnicode_FromFormat("<winnow.Result error=%R (unpickled)>", self->error);
    PyObject *m = PyDict_GetItemString(self->fields, "method"); /* borrowed */
    return PyUnicode_FromFormat("<winnow.Result method=%R (unpickled)>", m ? m : Py_None);
  }
  if (!self->r)
    return PyUnicode_FromFormat("<winnow.Result error=%R>", self->error);
  size_t len = 0;
  if (self->want & WN_WANT_TEXT)
    wn_page_result_text(self->r, &len);
  return PyUnicode_FromFormat("<winnow.Result method=%s confidence=%d%% %zu bytes of text>",
                              wn_page_result_method(self->r),
                              (int)(wn_page_result_confidence(self->r) * 100 + 0.5), len);
}

#define WN_CLOSURE(x) ((void *)(uintptr_t)(const void *)&(x))
static PyGetSetDef Result_getset[] = {
    {"text", (getter)Result_rendered, NULL,
     "The main content as plain text, one line per block (None unless asked).",
     WN_CLOSURE(rendered_text)},
    {"markdown", (getter)Result_rendered, NULL, "The main content as Markdown (None unless asked).",
     WN_CLOSURE(rendered_markdown)},
    {"html", (getter)Result_rendered, NULL,
     "The main content's elements as HTML (None unless asked).", WN_CLOSURE(rendered_html)},
    {"method", (getter)Result_string, NULL,
     "How it was found: \"template\", \"fastce\", \"danag\", \"cnr\" or \"readability\".",
     WN_CLOSURE(field_method)},
    {"page_type", (getter)Result_string, NULL,
     "The page's shape: \"article\", \"forum\", \"product\", \"collection\", \"listing\", "
     "\"documentation\" or \"service\".",
     WN_CLOSURE(field_page_type)},
    {"confidence", (getter)Result_confidence, NULL, "How well the page fits its template, 0 to 1.",
     NULL},
    {"fallback", (getter)Result_fallback, NULL,
     "None when the template served the page; else \"no template\" or \"low confidence\".", NULL},
    {"empty", (getter)Result_string, NULL, "None when content was found; else why none was.",
     WN_CLOSURE(field_empty)},
    {"nodes", (getter)Result_nodes, NULL,
     "The selected subtrees' paths (None unless asked with want=\"nodes\").", NULL},
    {"metadata", (getter)Result_metadata, NULL,
     "title, author, date, language, canonical_url, description, site_name (None unless asked).",
     NULL},
    {"site", (getter)Result_string, NULL, "The page's site, or None.", WN_CLOSURE(field_site)},
    {"site_error", (getter)Result_string, NULL, "Why the page's url named no site, or None.",
     WN_CLOSURE(field_site_error)},
    {"generation", (getter)Result_generation, NULL, "The template's generation (0: none).", NULL},
    {"layout", (getter)Result_layout, NULL, "The site's layout that served the page, from 1.",
     NULL},
    {"charset", (getter)Result_string, NULL, "The charset the page was read in.",
     WN_CLOSURE(field_charset)},
    {"error", (getter)Result_error, NULL,
     "None; for a page detect_many could not read or detect, why (every other field is then "
     "None, or 0).",
     NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyGetSetDef Result_getset[];

/* Every field by name (the getters'), as a dict. */
static PyObject *Result_as_dict(ResultObject *self, PyObject *unused) {
  (void)unused;
  PyObject *d = PyDict_New();
  for (PyGetSetDef *g = Result_getset; d && g->name; g++) {
    PyObject *v = PyObject_GetAttrString((PyObject *)self, g->name);
    if (!v || PyDict_SetItemString(d, g->name, v) < 0)
      Py_CLEAR(d);
    Py_XDECREF(v);
  }
  return d;
}

static PyObject *py_result_from_dict(PyObject *mod, PyObject *args);

/* Pickled as its fields and its JSON line; unpickled, it answers the
 * same (a worker's results come back to the parent process whole). */
static PyObject *Result_reduce(ResultObject *self, PyObject *unused) {
  (void)unused;
  PyObject *d = Result_as_dict(self, NULL);
  PyObject *line = d ? PyObject_CallMethod((PyObject *)self, "json", NULL) : NULL;
  if (!line || PyDict_SetItemString(d, "_json", line) < 0) {
    Py_XDECREF(d);
    Py_XDECREF(line);
    return NULL;
  }
  Py_DECREF(line);
  PyObject *mod = PyImport_ImportModule("winnow._winnow");
  PyObject *fn = mod ? PyObject_GetAttrString(mod, "_result_from_dict") : NULL;
  Py_XDECREF(mod);
  PyObject *out = fn ? Py_BuildValue("(O(O))", fn, d) : NULL;
  Py_XDECREF(fn);
  Py_DECREF(d);
  return out;
}

/* An unpickled result reads its fields from the dict it was made from. */
static PyObject *Result_getattro(ResultObject *self, PyObject *name) {
  if (!self->r && self->fields && PyUnicode_Check(name) &&
      PyUnicode_READ_CHAR(name, 0) != '_') {
    PyObject *v = PyDict_GetItemWithError(self->fields, name); /* borrowed */
    if (v)
      return Py_NewRef(v);
    if (PyErr_Occurred())
      return NULL;
  }
  return PyObject_GenericGetAttr((PyObject *)self, name);
}

/* Two results are equal when every field is. */
static PyObject *Result_richcompare(PyObject *a, PyObject *b, int op) {
  if ((op != Py_EQ && op != Py_NE) || !PyObject_TypeCheck(b, Py_TYPE(a)))
    Py_RETURN_NOTIMPLEMENTED;
  PyObject *da = Result_as_dict((ResultObject *)a, NULL);
  PyObject *db = da ? Result_as_dict((ResultObject *)b, NULL) : NULL;
  PyObject *out = db ? PyObject_RichCompare(da, db, op) : NULL;
  Py_XDECREF(da);
  Py_XDECREF(db);
  return out;
}

static PyMethodDef Result_methods[] = {
    {"json", (PyCFunction)(void (*)(void))Result_json, METH_VARARGS | METH_KEYWORDS,
     "json($self, pretty=False, *, id=None)\n--\n\nThe result as winnow detect --format json writes it;\n"
     "with id (any JSON value), first as \"id\", as --jsonl and --warc write each line."},
    {"as_dict", (PyCFunction)Result_as_dict, METH_NOARGS,
     "as_dict($self, /)\n--\n\nEvery field by name: text, markdown, html, method, page_type, ...,\n"
     "error."},
    {"__reduce__", (PyCFunction)Result_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL}};

static PyTypeObject Result_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "winnow.Result",
    .tp_basicsize = sizeof(ResultObject),
    .tp_dealloc = (destructor)Result_dealloc,
    .tp_repr = (reprfunc)Result_repr,
    .tp_getattro = (getattrofunc)Result_getattro,
    .tp_richcompare = Result_richcompare,
    .tp_hash = PyObject_HashNotImplemented,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The main content of one page and how it was found (Detector.detect).",
    .tp_getset = Result_getset,
    .tp_methods = Result_methods,
};

/* ---- WarcRecord -------------------------------------------------------- */

typedef struct {
  PyObject_HEAD PyObject *url, *payload, *charset, *content_type, *date, *record_id, *type;
  int http_status;
  unsigned long long offset;
} WarcRecordObject;

static PyTypeObject WarcRecord_Type;

static void WarcRecord_dealloc(WarcRecordObject *self) {
  Py_XDECREF(self->url);
  Py_XDECREF(self->payload);
  Py_XDECREF(self->charset);
  Py_XDECREF(self->content_type);
  Py_XDECREF(self->date);
  Py_XDECREF(self->record_id);
  Py_XDECREF(self->type);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *WarcRecord_repr(WarcRecordObject *self) {
  return PyUnicode_FromFormat("<winnow.warc.Record %R, %zd bytes>", self->url,
                              PyBytes_GET_SIZE(self->payload));
}

static PyMemberDef WarcRecord_members[] = {
    {"url", T_OBJECT, offsetof(WarcRecordObject, url), READONLY, "WARC-Target-URI, or None."},
    {"payload", T_OBJECT, offsetof(WarcRecordObject, payload), READONLY,
     "The HTTP body as bytes, de-chunked and decompressed."},
    {"charset", T_OBJECT, offsetof(WarcRecordObject, charset), READONLY,
     "The Content-Type's charset, or None."},
    {"content_type", T_OBJECT, offsetof(WarcRecordObject, content_type), READONLY,
     "The HTTP Content-Type, or None."},
    {"date", T_OBJECT, offsetof(WarcRecordObject, date), READONLY, "WARC-Date."},
    {"record_id", T_OBJECT, offsetof(WarcRecordObject, record_id), READONLY, "WARC-Record-ID."},
    {"type", T_OBJECT, offsetof(WarcRecordObject, type), READONLY, "WARC-Type."},
    {"http_status", T_INT, offsetof(WarcRecordObject, http_status), READONLY, "HTTP status."},
    {"offset", T_ULONGLONG, offsetof(WarcRecordObject, offset), READONLY,
     "Offset of the gzip member the record begins in (what CDX indexes give)."},
    {NULL, 0, 0, 0, NULL}};

static PyTypeObject WarcRecord_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "winnow.warc.Record",
    .tp_basicsize = sizeof(WarcRecordObject),
    .tp_dealloc = (destructor)WarcRecord_dealloc,
    .tp_repr = (reprfunc)WarcRecord_repr,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "One page of a WARC file; Detector.detect takes it as it is.",
    .tp_members = WarcRecord_members,
};

/* ---- WarcReader -------------------------------------------------------- */

typedef struct {
  PyObject_HEAD wn_warc_reader *reader;
  PyObject *path; /* as given (str), for the repr */
} WarcReaderObject;

static PyTypeObject WarcReader_Type;

static int WarcReader_init(WarcReaderObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"path", "all_statuses", "start", "end", NULL};
  PyObject *path_obj;
  int all = 0;
  unsigned long long start = 0, end = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|p$KK", kwlist, &path_obj, &all, &start, &end))
    return -1;
  if (self->reader) {
    PyErr_SetString(PyExc_ValueError, "the reader is already open");
    return -1;
  }
  PyObject *path = path_bytes(path_obj);
  if (!path)
    return -1;
  wn_warc_reader_options o;
  wn_warc_reader_options_init(&o);
  o.all_statuses = all;
  o.start_offset = start;
  o.end_offset = end;
  wn_diag diag = {{0}};
  wn_err err;
  const char *p = PyBytes_AS_STRING(path);
  Py_BEGIN_ALLOW_THREADS err = wn_warc_reader_open(p, &o, &self->reader, &diag);
  Py_END_ALLOW_THREADS if (err) raise_path_err(err, &diag, p);
  else Py_XSETREF(self->path, PyUnicode_DecodeFSDefault(p));
  Py_DECREF(path);
  if (err)
    return -1;
  return 0;
}

static void WarcReader_dealloc(WarcReaderObject *self) {
  wn_warc_reader_close(self->reader);
  Py_XDECREF(self->path);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *WarcReader_repr(WarcReaderObject *self) {
  if (!self->reader)
    return PyUnicode_FromFormat("<winnow.warc.Reader %R closed>",
                                self->path ? self->path : Py_None);
  wn_warc_stats st;
  wn_warc_reader_stats_get(self->reader, &st);
  return PyUnicode_FromFormat("<winnow.warc.Reader %R, %llu records, %llu pages read>",
                              self->path ? self->path : Py_None,
                              (unsigned long long)st.records, (unsigned long long)st.pages);
}

static PyObject *WarcReader_next(WarcReaderObject *self) {
  if (!self->reader)
    return NULL; /* closed: iteration ends */
  wn_warc_page pg;
  wn_diag diag = {{0}};
  wn_err r;
  Py_BEGIN_ALLOW_THREADS r = wn_warc_next(self->reader, &pg, &diag);
  Py_END_ALLOW_THREADS if (r == WN_ENOTFOUND) return NULL; /* the end */
  if (r)
    return raise_err(r, &diag);
  WarcRecordObject *rec = PyObject_New(WarcRecordObject, &WarcRecord_Type);
  if (!rec)
    return NULL;
  rec->url = str_or_none(pg.target_uri);
  rec->payload = PyBytes_FromStringAndSize(pg.payload, (Py_ssize_t)pg.payload_len);
  rec->charset = str_or_none(pg.charset);
  rec->content_type = str_or_none(pg.content_type);
  rec->date = str_or_none(pg.date);
  rec->record_id = str_or_none(pg.record_id);
  rec->type = str_or_none(pg.warc_type);
  rec->http_status = pg.http_status;
  rec->offset = pg.file_offset;
  if (!rec->url || !rec->payload || !rec->charset || !rec->content_type || !rec->date ||
      !rec->record_id || !rec->type) {
    Py_DECREF(rec);
    return NULL;
  }
  return (PyObject *)rec;
}

static PyObject *WarcReader_stats(WarcReaderObject *self, PyObject *unused) {
  (void)unused;
  if (!self->reader) {
    PyErr_SetString(PyExc_ValueError, "the reader is closed");
    return NULL;
  }
  wn_warc_stats s;
  wn_warc_reader_stats_get(self->reader, &s);
  return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K,s:K}", "records", (unsigned long long)s.records,
                       "pages", (unsigned long long)s.pages, "skipped_type",
                       (unsigned long long)s.skipped_type, "skipped_not_html",
                       (unsigned long long)s.skipped_not_html, "skipped_status",
                       (unsigned long long)s.skipped_status, "skipped_too_big",
                       (unsigned long long)s.skipped_too_big, "damaged",
                       (unsigned long long)s.damaged);
}

static PyObject *WarcReader_close(WarcReaderObject *self, PyObject *unused) {
  (void)unused;
  wn_warc_reader_close(self->reader);
  self->reader = NULL;
  Py_RETURN_NONE;
}

static PyMethodDef WarcReader_methods[] = {
    {"stats", (PyCFunction)WarcReader_stats, METH_NOARGS,
     "stats($self, /)\n--\n\nRecords read, pages returned, and what was skipped or damaged."},
    {"close", (PyCFunction)WarcReader_close, METH_NOARGS, "close($self, /)\n--\n\nCloses the file."},
    {"__enter__", (PyCFunction)return_self, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)exit_closes, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

static PyTypeObject WarcReader_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "winnow.warc.Reader",
    .tp_basicsize = sizeof(WarcReaderObject),
    .tp_repr = (reprfunc)WarcReader_repr,
    .tp_dealloc = (destructor)WarcReader_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Reader(path, all_statuses=False, *, start=0, end=0)\n--\n\n"
              "Iterates over the HTML pages of a WARC file (gzip or not; \"-\":\n"
              "standard input) as winnow.warc.Record objects. Damaged records\n"
              "are skipped and counted (stats()). start and end: only the records\n"
              "that begin at file offsets [start, end) (end 0: the end of the\n"
              "file), any byte offsets: the reader finds the next record itself,\n"
              "so that segments read in parallel read every record once\n"
              "(winnow.warc.segments).",
    .tp_iter = PyObject_SelfIter,
    .tp_iternext = (iternextfunc)WarcReader_next,
    .tp_methods = WarcReader_methods,
    .tp_init = (initproc)WarcReader_init,
    .tp_new = PyType_GenericNew,
};

/* ---- Collector --------------------------------------------------------- */

typedef struct {
  PyObject_HEAD wn_collector *collector;
  StoreObject *store;
} CollectorObject;

static PyTypeObject Collector_Type;

static PyObject *Collector_repr(CollectorObject *self) {
  if (!self->collector)
    return PyUnicode_FromString("<winnow.Collector (not made)>");
  wn_collect_stats st;
  wn_collector_stats_get(self->collector, &st);
  return PyUnicode_FromFormat("<winnow.Collector store=%R, %llu pages held, %llu sites learned>",
                              self->store && self->store->path ? self->store->path : Py_None,
                              (unsigned long long)st.pages_held,
                              (unsigned long long)st.sites_learned);
}

static int Collector_init(CollectorObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"store", "sample_pages", "min_pages", "max_sites", "max_bytes",
                           "algo",  "keep_pending", NULL};
  PyObject *store_obj;
  unsigned int sample = 0, minp = 0, max_sites = 0;
  Py_ssize_t max_bytes = 0;
  const char *algo_name = "etdm";
  int keep_pending = 1;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O!|$IIInsp", kwlist, &Store_Type, &store_obj,
                                   &sample, &minp, &max_sites, &max_bytes, &algo_name,
                                   &keep_pending))
    return -1;
  StoreObject *st = (StoreObject *)store_obj;
  if (self->collector) {
    PyErr_SetString(PyExc_ValueError, "the collector is already made");
    return -1;
  }
  if (!store_usable(st))
    return -1;
  if (st->read_only) {
    PyErr_SetString(PyExc_ValueError, "a collector needs a store opened for writing");
    return -1;
  }
  wn_collect_options o;
  wn_collect_options_init(&o);
  if (sample)
    o.sample_pages = sample;
  if (minp)
    o.min_pages = minp;
  if (max_sites)
    o.max_sites = max_sites;
  if (max_bytes > 0)
    o.max_bytes = (size_t)max_bytes;
  if (parse_algo(algo_name, &o.learn.algo) < 0)
    return -1;
  o.keep_parsed = 1;
  o.keep_pending = keep_pending;
  wn_diag diag = {{0}};
  wn_err err = wn_collector_create(st->store, &o, &self->collector, &diag);
  if (err) {
    raise_err(err, &diag);
    return -1;
  }
  self->store = (StoreObject *)Py_NewRef(st);
  st->users++;
  return 0;
}

static void Collector_dealloc(CollectorObject *self) {
  wn_collector_destroy(self->collector);
  if (self->store) {
    self->store->users--;
    store_release(self->store);
    Py_DECREF(self->store);
  }
  Py_TYPE(self)->tp_free((PyObject *)self);
}

/* A page argument as a wn_page_input: bytes (charset detected), str (read
 * as UTF-8) or a WarcRecord (its payload, url and charset). *hold keeps
 * what the pointers point into. url and site override the record's. */
static int page_input(PyObject *page, const char *url, const char *site, const char *charset,
                      wn_page_input *in, PyObject **hold) {
  memset(in, 0, sizeof *in);
  *hold = NULL;
  if (PyObject_TypeCheck(page, &WarcRecord_Type)) {
    WarcRecordObject *rec = (WarcRecordObject *)page;
    *hold = Py_NewRef(page);
    in->bytes = PyBytes_AS_STRING(rec->payload);
    in->len = (size_t)PyBytes_GET_SIZE(rec->payload);
    in->url = rec->url != Py_None ? PyUnicode_AsUTF8(rec->url) : NULL;
    in->charset = rec->charset != Py_None ? PyUnicode_AsUTF8(rec->charset) : NULL;
    if (PyErr_Occurred())
      goto fail;
  } else if (PyBytes_Check(page)) {
    *hold = Py_NewRef(page);
    in->bytes = PyBytes_AS_STRING(page);
    in->len = (size_t)PyBytes_GET_SIZE(page);
  } else if (PyByteArray_Check(page) || PyMemoryView_Check(page)) {
    *hold = PyBytes_FromObject(page);
    if (!*hold)
      return -1;
    in->bytes = PyBytes_AS_STRING(*hold);
    in->len = (size_t)PyBytes_GET_SIZE(*hold);
  } else if (PyUnicode_Check(page)) {
    Py_ssize_t n = 0;
    const char *s = PyUnicode_AsUTF8AndSize(page, &n);
    if (s) {
      *hold = Py_NewRef(page);
    } else if (PyErr_ExceptionMatches(PyExc_UnicodeEncodeError)) {
      /* A lone surrogate (text decoded with surrogateescape, or a JSON
       * escape of half a pair) is no character: written as '?' and the
       * page read. */
      PyErr_Clear();
      *hold = PyUnicode_AsEncodedString(page, "utf-8", "replace");
      if (!*hold)
        return -1;
      s = PyBytes_AS_STRING(*hold);
      n = PyBytes_GET_SIZE(*hold);
    } else {
      return -1;
    }
    in->bytes = s;
    in->len = (size_t)n;
    in->charset = "utf-8";
  } else {
    PyErr_Format(PyExc_TypeError, "a page is bytes, str or a winnow.warc.Record, not %.100s",
                 Py_TYPE(page)->tp_name);
    return -1;
  }
  if (url)
    in->url = url;
  if (site) {
    if (check_site(site) < 0)
      goto fail;
    in->site = site;
  }
  if (charset)
    in->charset = charset;
  return 0;
fail:
  Py_CLEAR(*hold);
  return -1;
}

static const char *const collect_state_names[] = {"no site", "template", "held",
                                                  "ready",   "gave up",  "too big"};

static PyObject *Collector_add(CollectorObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"page", "url", "site", "charset", "name", NULL};
  PyObject *page;
  const char *url = NULL, *site = NULL, *charset = NULL, *name = NULL;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|z$zzz", kwlist, &page, &url, &site, &charset,
                                   &name))
    return NULL;
  wn_page_input in;
  PyObject *hold;
  if (page_input(page, url, site, charset, &in, &hold) < 0)
    return NULL;
  wn_collect_state state = WN_COLLECT_NO_SITE;
  wn_diag diag = {{0}};
  wn_err err;
  Py_BEGIN_ALLOW_THREADS err = wn_collector_add(self->collector, &in, name, 0, &state, &diag);
  Py_END_ALLOW_THREADS Py_DECREF(hold);
  if (err)
    return raise_err(err, &diag);
  return PyUnicode_FromString(collect_state_names[state]);
}

/* Learns site from the held pages and saves the template: the report. */
static PyObject *collector_learn_site(CollectorObject *self, const char *site) {
  wn_learned *learned = NULL;
  wn_diag diag = {{0}};
  wn_err err;
  Py_BEGIN_ALLOW_THREADS err = wn_collector_learn(self->collector, site, &learned, &diag);
  Py_END_ALLOW_THREADS return learn_report(self->store, learned, err, &diag, NULL, 0);
}

static PyObject *Collector_learn(CollectorObject *self, PyObject *args) {
  const char *site;
  if (!PyArg_ParseTuple(args, "s", &site) || check_site(site) < 0 || !store_usable(self->store))
    return NULL;
  return collector_learn_site(self, site);
}

static int pending_fn(const char *site, uint32_t pages, void *ctx) {
  PyObject *t = Py_BuildValue("(sI)", site, pages);
  if (!t || PyList_Append((PyObject *)ctx, t) < 0) {
    Py_XDECREF(t);
    return 1;
  }
  Py_DECREF(t);
  return 0;
}

static PyObject *Collector_pending(CollectorObject *self, PyObject *args) {
  unsigned int min_pages = 0;
  if (!PyArg_ParseTuple(args, "|I", &min_pages))
    return NULL;
  PyObject *list = PyList_New(0);
  if (!list)
    return NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_collector_pending_each(self->collector, min_pages, pending_fn, list, &diag);
  if (PyErr_Occurred() || err) {
    Py_DECREF(list);
    return err && !PyErr_Occurred() ? raise_err(err, &diag) : NULL;
  }
  return list;
}

static PyObject *Collector_stats(CollectorObject *self, PyObject *unused) {
  (void)unused;
  wn_collect_stats s;
  wn_collector_stats_get(self->collector, &s);
  return Py_BuildValue("{s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K,s:K}", "pages_held",
                       (unsigned long long)s.pages_held, "bytes_held",
                       (unsigned long long)s.bytes_held, "sites_held",
                       (unsigned long long)s.sites_held, "sites_learned",
                       (unsigned long long)s.sites_learned, "pages_learned",
                       (unsigned long long)s.pages_learned, "learn_failures",
                       (unsigned long long)s.learn_failures, "sites_given_up",
                       (unsigned long long)s.sites_given_up, "pages_evicted",
                       (unsigned long long)s.pages_evicted, "pages_kept",
                       (unsigned long long)s.pages_kept, "pages_restored",
                       (unsigned long long)s.pages_restored, "pending_evicted",
                       (unsigned long long)s.pending_evicted, "store_errors",
                       (unsigned long long)s.store_errors);
}

static PyObject *Collector_flush(CollectorObject *self, PyObject *unused) {
  (void)unused;
  wn_diag diag = {{0}};
  wn_err err;
  Py_BEGIN_ALLOW_THREADS err = wn_collector_flush(self->collector, &diag);
  Py_END_ALLOW_THREADS if (err) return raise_err(err, &diag);
  Py_RETURN_NONE;
}

static PyMethodDef Collector_methods[] = {
    {"add", (PyCFunction)(void (*)(void))Collector_add, METH_VARARGS | METH_KEYWORDS,
     "add($self, page, url=None, *, site=None, charset=None, name=None)\n--\n\n"
     "Offers a page of a site that has no template. Returns what became\n"
     "of it: \"held\", \"ready\" (call learn(site)), \"template\" (its site\n"
     "has one), \"no site\", \"gave up\" or \"too big\"."},
    {"learn", (PyCFunction)Collector_learn, METH_VARARGS,
     "learn($self, site, /)\n--\n\nLearns site from the pages held for it and saves the template\n"
     "in the store; returns the report, as Store.learn()."},
    {"pending", (PyCFunction)Collector_pending, METH_VARARGS,
     "pending($self, min_pages=0, /)\n--\n\n"
     "Sites holding at least min_pages pages (0: the collector's\n"
     "min_pages), with how many: what to learn when the input ends."},
    {"stats", (PyCFunction)Collector_stats, METH_NOARGS,
     "stats($self, /)\n--\n\nPages and bytes held, sites learned, failures, evictions, and the\n"
     "pending samples kept in the store and read back from it."},
    {"flush", (PyCFunction)Collector_flush, METH_NOARGS,
     "flush($self, /)\n--\n\nWrites the pages held since the last flush to the store (pending\n"
     "samples, for the next run; with keep_pending, the default). Done on its own every\n"
     "64 pages and when the collector goes; call it before a run ends."},
    {NULL, NULL, 0, NULL}};

static PyTypeObject Collector_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "winnow.Collector",
    .tp_basicsize = sizeof(CollectorObject),
    .tp_repr = (reprfunc)Collector_repr,
    .tp_dealloc = (destructor)Collector_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Collector(store, *, sample_pages=5, min_pages=3, max_sites=4096,\n"
              "          max_bytes=268435456, algo='etdm', keep_pending=True)\n--\n\n"
              "Learning while detecting: holds a few pages of each site that has\n"
              "no template, within bounds, until the site has sample_pages of\n"
              "them, then learns it into the store. Give it to Detector(...,\n"
              "collector=c) and detect(..., learn=True) does it all. Thread-safe.\n"
              "keep_pending: the pages held are written to the store as pending\n"
              "samples (flush()), so that the next run goes on where this one\n"
              "stopped (default True; False: held in memory only).",
    .tp_methods = Collector_methods,
    .tp_init = (initproc)Collector_init,
    .tp_new = PyType_GenericNew,
};

/* ---- Detector ---------------------------------------------------------- */

typedef struct {
  PyObject_HEAD wn_detector *det;
  StoreObject *store;         /* or NULL */
  CollectorObject *collector; /* or NULL */
  unsigned long thread;       /* the thread that made it */
  unsigned want;              /* default outputs */
} DetectorObject;

static PyTypeObject Detector_Type;

/* "text", "markdown", "html", "nodes", "metadata", "front_matter" (a str
 * or an iterable of them) as WN_WANT_* bits. */
static int parse_want(PyObject *obj, unsigned *want) {
  static const struct {
    const char *name;
    unsigned bit;
  } names[] = {{"text", WN_WANT_TEXT},         {"markdown", WN_WANT_MARKDOWN},
               {"html", WN_WANT_HTML},         {"nodes", WN_WANT_NODES},
               {"metadata", WN_WANT_METADATA}, {"front_matter", WN_WANT_FRONT_MATTER},
               {"no_links", WN_RENDER_NO_LINKS},  {"no_images", WN_RENDER_NO_IMAGES},
               {"no_tables", WN_RENDER_NO_TABLES}};
  PyObject *seq = NULL;
  if (PyUnicode_Check(obj)) {
    seq = PyTuple_Pack(1, obj);
  } else {
    seq = PySequence_Fast(obj, "want must be a str or a list of str");
  }
  if (!seq)
    return -1;
  unsigned w = 0;
  for (Py_ssize_t i = 0; i < PySequence_Fast_GET_SIZE(seq); i++) {
    const char *s = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, i));
    if (!s) {
      Py_DECREF(seq);
      return -1;
    }
    size_t k = 0;
    for (; k < sizeof names / sizeof *names; k++)
      if (strcmp(s, names[k].name) == 0)
        break;
    if (k == sizeof names / sizeof *names) {
      PyErr_Format(PyExc_ValueError,
                   "want: \"%s\" is not one of text, markdown, html, nodes, metadata, "
                   "front_matter, no_links, no_images, no_tables",
                   s);
      Py_DECREF(seq);
      return -1;
    }
    w |= names[k].bit;
  }
  Py_DECREF(seq);
  *want = w;
  return 0;
}

/* A damaged template record: a RuntimeWarning (the site's pages are read
 * by the single-page method, "fallback" says "damaged template"). Called
 * by the library with the GIL released, maybe from a worker thread. */
static void detector_on_damage(const char *site, const char *message, void *ctx) {
  (void)site;
  (void)ctx;
  PyGILState_STATE g = PyGILState_Ensure();
  if (PyErr_WarnFormat(PyExc_RuntimeWarning, 1,
                       "winnow: %s; the site's pages are read by the single-page method "
                       "(relearn the site)",
                       message) < 0)
    PyErr_WriteUnraisable(NULL); /* warnings as errors: cannot raise from here */
  PyGILState_Release(g);
}

static int Detector_init(DetectorObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"store", "min_confidence", "fallback", "collector", "want",
                           "count", "favor",          "comments", NULL};
  PyObject *store_obj = Py_None, *collector_obj = Py_None, *want_obj = NULL;
  double min_conf = WN_DETECT_DEFAULT_MIN_CONFIDENCE;
  const char *fallback = "danag", *favor = "balanced";
  int count = 1, comments = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "|O$dsOOpsp", kwlist, &store_obj, &min_conf,
                                   &fallback, &collector_obj, &want_obj, &count, &favor,
                                   &comments))
    return -1;
  int favor_id = strcmp(favor, "balanced") == 0    ? WN_FAVOR_BALANCED
                 : strcmp(favor, "precision") == 0 ? WN_FAVOR_PRECISION
                 : strcmp(favor, "recall") == 0    ? WN_FAVOR_RECALL
                                                   : -1;
  if (favor_id < 0) {
    PyErr_Format(PyExc_ValueError,
                 "favor must be \"balanced\", \"precision\" or \"recall\", not \"%s\"", favor);
    return -1;
  }
  if (self->det) {
    PyErr_SetString(PyExc_ValueError, "the detector is already made");
    return -1;
  }
  if (store_obj != Py_None && !PyObject_TypeCheck(store_obj, &Store_Type)) {
    PyErr_Format(PyExc_TypeError, "store must be a winnow.Store or None, not %.100s",
                 Py_TYPE(store_obj)->tp_name);
    return -1;
  }
  if (collector_obj != Py_None && !PyObject_TypeCheck(collector_obj, &Collector_Type)) {
    PyErr_Format(PyExc_TypeError, "collector must be a winnow.Collector or None, not %.100s",
                 Py_TYPE(collector_obj)->tp_name);
    return -1;
  }
  StoreObject *st = store_obj == Py_None ? NULL : (StoreObject *)store_obj;
  CollectorObject *col = collector_obj == Py_None ? NULL : (CollectorObject *)collector_obj;
  if (st && !store_usable(st))
    return -1;
  if (col && col->store != st) {
    PyErr_SetString(PyExc_ValueError, "the collector must learn into the detector's store");
    return -1;
  }
  unsigned want = WN_WANT_TEXT | WN_WANT_METADATA;
  if (want_obj && parse_want(want_obj, &want) < 0)
    return -1;
  wn_detector_options o;
  wn_detector_options_init(&o);
  o.on_damage = detector_on_damage;
  o.detect.min_confidence = min_conf;
  o.detect.favor = favor_id;
  o.detect.comments = comments;
  if (wn_single_method_parse(fallback, &o.detect.fallback) != 0) {
    PyErr_Format(PyExc_ValueError,
                 "fallback must be \"danag\", \"cnr\" or \"readability\", not \"%s\"", fallback);
    return -1;
  }
  o.count = count && st && !st->read_only;
  o.collector = col ? col->collector : NULL;
  wn_diag diag = {{0}};
  wn_err err = wn_detector_create(st ? st->store : NULL, &o, &self->det, &diag);
  if (err) {
    raise_err(err, &diag);
    return -1;
  }
  if (st) {
    self->store = (StoreObject *)Py_NewRef(st);
    st->users++;
  }
  if (col)
    self->collector = (CollectorObject *)Py_NewRef(col);
  self->thread = PyThread_get_thread_ident();
  self->want = want;
  return 0;
}

static void detector_close(DetectorObject *self) {
  if (self->det) {
    wn_detector *d = self->det;
    self->det = NULL;
    Py_BEGIN_ALLOW_THREADS wn_detector_destroy(d);
    Py_END_ALLOW_THREADS
  }
  Py_CLEAR(self->collector);
  if (self->store) {
    self->store->users--;
    store_release(self->store);
    Py_CLEAR(self->store);
  }
}

static void Detector_dealloc(DetectorObject *self) {
  detector_close(self);
  Py_TYPE(self)->tp_free((PyObject *)self);
}

static int detector_usable(DetectorObject *self) {
  if (!self->det) {
    PyErr_SetString(PyExc_ValueError, "the detector is closed");
    return 0;
  }
  if (PyThread_get_thread_ident() != self->thread) {
    PyErr_SetString(PyExc_RuntimeError,
                    "a winnow.Detector belongs to the thread that made it: make one per "
                    "thread (detect_many does)");
    return 0;
  }
  return 1;
}

static PyObject *Detector_detect(DetectorObject *self, PyObject *args, PyObject *kw) {
  static char *kwlist[] = {"page", "url", "site", "charset", "want", "learn", NULL};
  PyObject *page, *want_obj = NULL;
  const char *url = NULL, *site = NULL, *charset = NULL;
  int learn = 0;
  if (!PyArg_ParseTupleAndKeywords(args, kw, "O|z$zzOp", kwlist, &page, &url, &site, &charset,
                                   &want_obj, &learn) ||
      !detector_usable(self))
    return NULL;
  unsigned want = self->want;
  if (want_obj && want_obj != Py_None && parse_want(want_obj, &want) < 0)
    return NULL;
  if (learn && !self->collector) {
    PyErr_SetString(PyExc_ValueError, "learn=True needs a Detector made with a collector");
    return NULL;
  }
  wn_page_input in;
  PyObject *hold;
  if (page_input(page, url, site, charset, &in, &hold) < 0)
    return NULL;
  if (learn) {
    wn_collect_state state = WN_COLLECT_NO_SITE;
    wn_diag cdiag = {{0}};
    wn_err cerr;
    Py_BEGIN_ALLOW_THREADS cerr =
        wn_collector_add(self->collector->collector, &in, in.url, 0, &state, &cdiag);
    Py_END_ALLOW_THREADS if (cerr) {
      Py_DECREF(hold);
      return raise_err(cerr, &cdiag);
    }
    if (state == WN_COLLECT_READY) {
      char site_name[WN_SITE_MAX + 1];
      if (in.site)
        snprintf(site_name, sizeof site_name, "%s", in.site);
      else if (wn_site_from_url(in.url, site_name, sizeof site_name, NULL) != WN_OK)
        site_name[0] = 0;
      if (site_name[0]) {
        PyObject *rep = collector_learn_site(self->collector, site_name);
        /* A sample that does not share a layout waits for more pages:
         * detection goes on with the single-page method. */
        if (!rep && PyErr_ExceptionMatches(error_base))
          PyErr_Clear();
        else if (!rep) {
          Py_DECREF(hold);
          return NULL;
        }
        Py_XDECREF(rep);
      }
    }
  }
  wn_page_result *r = NULL;
  wn_diag diag = {{0}};
  wn_err err;
  Py_BEGIN_ALLOW_THREADS err = wn_detector_detect(self->det, &in, want, &r, &diag);
  Py_END_ALLOW_THREADS Py_DECREF(hold);
  if (err)
    return raise_err(err, &diag);
  ResultObject *res = PyObject_New(ResultObject, &Result_Type);
  if (!res) {
    wn_page_result_free(r);
    return NULL;
  }
  res->r = r;
  res->want = want;
  res->error = NULL;
  res->fields = NULL;
  return (PyObject *)res;
}

static PyObject *Detector_flush(DetectorObject *self, PyObject *unused) {
  (void)unused;
  if (!detector_usable(self))
    return NULL;
  wn_diag diag = {{0}};
  wn_err err;
  Py_BEGIN_ALLOW_THREADS err = wn_detector_flush(self->det, &diag);
  Py_END_ALLOW_THREADS if (err) return raise_err(err, &diag);
  Py_RETURN_NONE;
}

static PyObject *Detector_close(DetectorObject *self, PyObject *unused) {
  (void)unused;
  detector_close(self);
  Py_RETURN_NONE;
}

static PyMethodDef Detector_methods[] = {
    {"detect", (PyCFunction)(void (*)(void))Detector_detect, METH_VARARGS | METH_KEYWORDS,
     "detect($self, page, url=None, *, site=None, charset=None, want=None, learn=False)\n--\n\n"
     "The main content of one page: bytes (its charset detected as winnow\n"
     "does), str, or a winnow.warc.Record. url (or site) names the page's\n"
     "site, whose template serves it; without one, or when the page fits\n"
     "badly, the single-page method does. want: what to render (default\n"
     "the Detector's). learn=True first offers the page to the Detector's\n"
     "collector and learns its site when its sample is complete.\n"
     "Raises NotHTMLError, PageError (past the caps), SiteError."},
    {"flush", (PyCFunction)Detector_flush, METH_NOARGS,
     "flush($self, /)\n--\n\nWrites the pending detection counts to the store now."},
    {"close", (PyCFunction)Detector_close, METH_NOARGS,
     "close($self, /)\n--\n\nWrites pending counts and frees the detector."},
    {"__enter__", (PyCFunction)return_self, METH_NOARGS, NULL},
    {"__exit__", (PyCFunction)exit_closes, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

static PyObject *Detector_get_store(DetectorObject *self, void *c) {
  (void)c;
  return Py_NewRef(self->store ? (PyObject *)self->store : Py_None);
}

static PyObject *Detector_get_collector(DetectorObject *self, void *c) {
  (void)c;
  return Py_NewRef(self->collector ? (PyObject *)self->collector : Py_None);
}

static PyGetSetDef Detector_getset[] = {
    {"store", (getter)Detector_get_store, NULL, "The Store, or None.", NULL},
    {"collector", (getter)Detector_get_collector, NULL, "The Collector, or None.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject Detector_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "winnow._Detector",
    .tp_basicsize = sizeof(DetectorObject),
    .tp_dealloc = (destructor)Detector_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
    .tp_doc = "The C detector under winnow.Detector.",
    .tp_methods = Detector_methods,
    .tp_getset = Detector_getset,
    .tp_init = (initproc)Detector_init,
    .tp_new = PyType_GenericNew,
};

/* ---- module ------------------------------------------------------------ */

static PyObject *py_site_from_url(PyObject *self, PyObject *args) {
  (void)self;
  const char *url;
  if (!PyArg_ParseTuple(args, "s", &url))
    return NULL;
  char site[WN_SITE_MAX + 1];
  wn_diag diag = {{0}};
  wn_err err = wn_site_from_url(url, site, sizeof site, &diag);
  if (err)
    return raise_err(err, &diag);
  return PyUnicode_FromString(site);
}

/* A Result for a page that failed (detect_many): its message, no result. */
static PyObject *py_error_result(PyObject *mod, PyObject *args) {
  (void)mod;
  PyObject *msg = NULL;
  if (!PyArg_ParseTuple(args, "U", &msg))
    return NULL;
  ResultObject *res = PyObject_New(ResultObject, &Result_Type);
  if (!res)
    return NULL;
  res->r = NULL;
  res->want = 0;
  res->error = Py_NewRef(msg);
  res->fields = NULL;
  return (PyObject *)res;
}

/* The unpickled Result (Result.__reduce__). */
static PyObject *py_result_from_dict(PyObject *mod, PyObject *args) {
  (void)mod;
  PyObject *d = NULL;
  if (!PyArg_ParseTuple(args, "O!", &PyDict_Type, &d))
    return NULL;
  ResultObject *res = PyObject_New(ResultObject, &Result_Type);
  if (!res)
    return NULL;
  res->r = NULL;
  res->want = 0;
  PyObject *e = PyDict_GetItemString(d, "error"); /* borrowed */
  res->error = e && e != Py_None ? Py_NewRef(e) : NULL;
  res->fields = PyDict_Copy(d);
  if (!res->fields) {
    Py_DECREF(res);
    return NULL;
  }
  return (PyObject *)res;
}

static PyMethodDef module_methods[] = {
    {"_set_errors", py_set_errors, METH_VARARGS, NULL},
    {"_result_from_dict", py_result_from_dict, METH_VARARGS, NULL},
    {"_error_result", py_error_result, METH_VARARGS, NULL},
    {"site_from_url", py_site_from_url, METH_VARARGS,
     "site_from_url($module, url, /)\n--\n\nThe site a URL belongs to (its host, lower-cased, with a\n"
     "port that is not the scheme's): the unit a template serves."},
    {NULL, NULL, 0, NULL}};

static void module_free(void *m) {
  (void)m;
  wn_cleanup();
}

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "winnow._winnow", "The C extension under the winnow package.", -1,
    module_methods,        NULL,             NULL,
    NULL,                  module_free};

PyMODINIT_FUNC PyInit__winnow(void) {
  wn_err err = wn_init();
  if (err) {
    PyErr_Format(PyExc_ImportError, "winnow: %s", wn_strerror(err));
    return NULL;
  }
  PyTypeObject *types[] = {&Store_Type,      &Result_Type,     &WarcRecord_Type,
                           &WarcReader_Type, &Collector_Type,  &Detector_Type};
  for (size_t i = 0; i < sizeof types / sizeof *types; i++)
    if (PyType_Ready(types[i]) < 0)
      return NULL;
  PyObject *m = PyModule_Create(&module_def);
  if (!m)
    return NULL;
  if (PyModule_AddObjectRef(m, "Store", (PyObject *)&Store_Type) < 0 ||
      PyModule_AddObjectRef(m, "Result", (PyObject *)&Result_Type) < 0 ||
      PyModule_AddObjectRef(m, "WarcRecord", (PyObject *)&WarcRecord_Type) < 0 ||
      PyModule_AddObjectRef(m, "WarcReader", (PyObject *)&WarcReader_Type) < 0 ||
      PyModule_AddObjectRef(m, "Collector", (PyObject *)&Collector_Type) < 0 ||
      PyModule_AddObjectRef(m, "_Detector", (PyObject *)&Detector_Type) < 0 ||
      PyModule_AddStringConstant(m, "version", wn_version()) < 0) {
    Py_DECREF(m);
    return NULL;
  }
  PyObject *codes = PyDict_New();
  if (!codes)
    goto fail;
  for (int e = 0; e < WN_ERR_COUNT; e++) {
    PyObject *v = PyLong_FromLong(e);
    if (!v || PyDict_SetItemString(codes, wn_strerror_name((wn_err)e), v) < 0) {
      Py_XDECREF(v);
      Py_DECREF(codes);
      goto fail;
    }
    Py_DECREF(v);
  }
  if (PyModule_AddObject(m, "codes", codes) < 0) {
    Py_DECREF(codes);
    goto fail;
  }
  return m;
fail:
  Py_DECREF(m);
  return NULL;
}
