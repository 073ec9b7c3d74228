/*
 * winnow/base.h: the base types of libwinnow's interface, which every
 * other part of it uses: the error codes and their messages (wn_err,
 * wn_strerror), the failure detail (wn_diag), memory the library hands
 * over (wn_free), the bounded byte buffer (wn_buf) and reading a file.
 *
 * winnow/winnow.h includes this header, and a program includes winnow.h:
 * the two are one interface (its conventions are at the top of winnow.h).
 * This part stands alone so that the library's own lowest layer (src/util,
 * which implements most of it) can use these types without seeing the rest
 * of the interface.
 */
#ifndef WINNOW_BASE_H
#define WINNOW_BASE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the shared library exports: these functions and nothing else (the
 * library is built with -fvisibility=hidden). */
#if defined(__GNUC__)
#define WN_API __attribute__((visibility("default")))
#else
#define WN_API
#endif

/* Marks a function that stays for one release under an old name (the
 * message names its replacement): calling it warns at compile time
 * (-Wdeprecated-declarations). Placed after the declarator. */
#if defined(__GNUC__)
#define WN_DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#define WN_DEPRECATED(msg)
#endif

/* Errors. One list generates the enum and its messages (libuv's X-macro
 * habit). Codes are only ever appended: scripts and records may rely on
 * them. */
#define WN_ERROR_LIST(X)                                                     \
  X(WN_OK, "success")                                                        \
  X(WN_ENOMEM, "out of memory")                                              \
  X(WN_EINVAL, "invalid argument")                                           \
  X(WN_EIO, "input/output error")                                            \
  X(WN_ETOOBIG, "input is larger than the byte cap")                         \
  X(WN_ETOOMANY, "page has more nodes than the node cap")                    \
  X(WN_ETOODEEP, "page is nested deeper than the depth cap")                 \
  X(WN_EPARSE, "page could not be parsed")                                   \
  X(WN_ECHARSET, "character set could not be decoded")                       \
  X(WN_ENOTFOUND, "not found")                                               \
  X(WN_ECORRUPT, "record is truncated or corrupt")                           \
  X(WN_EVERSION, "record format version is not supported")                   \
  X(WN_ESTORE, "store error")                                                \
  X(WN_EEMPTY, "page has no content")                                        \
  X(WN_ENOTEMPLATE, "site has no template")                                  \
  X(WN_ENOSPACE, "store is full")                                            \
  X(WN_EBUSY, "resource is busy")                                            \
  X(WN_ENET, "network error")                                                \
  X(WN_ETIMEOUT, "timed out")                                                \
  X(WN_EHTTP, "HTTP error status")                                           \
  X(WN_EROBOTS, "disallowed by robots.txt")                                  \
  X(WN_ENOTHTML, "not an HTML page")                                         \
  X(WN_EREDIRECT, "too many redirects")

typedef enum wn_err {
#define WN_ERROR_ENUM(code, msg) code,
  WN_ERROR_LIST(WN_ERROR_ENUM)
#undef WN_ERROR_ENUM
  WN_ERR_COUNT
} wn_err;

/* Message for an error code (the list above); never NULL. */
WN_API const char *wn_strerror(wn_err err);
/* Symbolic name of an error code ("WN_ENOMEM"); never NULL. */
WN_API const char *wn_strerror_name(wn_err err);

/* Detail of the last failure, curl-style: the first message wins until
 * wn_diag_clear(), so the innermost (most specific) cause is kept. */
typedef struct wn_diag {
  char msg[512];
} wn_diag;
WN_API void wn_diag_clear(wn_diag *diag);
/* Sets the message if none is set yet; returns err, so that a caller
 * (the library, or a front end reporting its own errors the same way)
 * can `return wn_diag_set(d, WN_EINVAL, "...")`. diag may be NULL. */
WN_API wn_err wn_diag_set(wn_diag *diag, wn_err err, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* The message, or wn_strerror(err) when no detail was recorded. */
WN_API const char *wn_diag_message(const wn_diag *diag, wn_err err);

/* Frees memory the library allocated and handed over: the char * of
 * wn_buf_take, wn_file_read, wn_page_result_json, wn_site_template_json,
 * wn_site_fastce_show, wn_explain_text and wn_explain_html. NULL is
 * harmless. That memory comes from malloc, and free() keeps working on
 * it; wn_free is the documented way, which stays right for a program whose
 * C runtime or allocator is not the library's. Objects with a type of
 * their own (wn_page_result, wn_learned, ...) have their own *_free. */
WN_API void wn_free(void *ptr);

/* A growable byte buffer with a cap (curl's dynbuf), for front ends as
 * for the library: appends past the cap fail with WN_ETOOBIG and leave the
 * buffer as it was. Always NUL-terminated when len > 0. */
typedef struct wn_buf {
  char *data;
  size_t len;
  size_t alloc;
  size_t cap;
} wn_buf;

/* cap 0: no cap. */
WN_API void wn_buf_init(wn_buf *buf, size_t cap);
WN_API void wn_buf_free(wn_buf *buf);
/* Empties the buffer, keeping its memory. */
WN_API void wn_buf_reset(wn_buf *buf);
/* The appends return WN_ETOOBIG (past the cap), WN_ENOMEM; _str, _char
 * and _printf also WN_EINVAL (NULL, or a format that fails). */
WN_API wn_err wn_buf_append(wn_buf *buf, const void *data, size_t len);
WN_API wn_err wn_buf_append_str(wn_buf *buf, const char *s);
WN_API wn_err wn_buf_append_char(wn_buf *buf, char c);
WN_API wn_err wn_buf_printf(wn_buf *buf, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Hands the bytes to the caller (wn_free them); the buffer is empty
 * after. */
WN_API char *wn_buf_take(wn_buf *buf, size_t *len);

/* Reads a whole file (or stdin for "-") of at most max_bytes. *out is
 * malloc'd and NUL-terminated (wn_free it). Messages name the file.
 * Returns WN_ENOTFOUND (no such file), WN_EIO, WN_ETOOBIG (past
 * max_bytes), WN_ENOMEM. */
WN_API wn_err wn_file_read(const char *path, size_t max_bytes, char **out, size_t *out_len,
                           wn_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* WINNOW_BASE_H */
