/*
 * serve/respond.c: the answers every endpoint gives (a body with its
 * status and headers, JSON, {"error", "message"}, a library error as its
 * status) and the admin token check.
 */
#include "serve/serve.h"
#include "serve/server_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>
#include <microhttpd.h>

/* Queues body (malloc'd, taken over; NULL for none) with status. */
enum MHD_Result wn_serve_respond(struct MHD_Connection *c, wn_req *req, unsigned status,
                                 const char *type, char *body, size_t len,
                                 const char *const *headers) {
  struct MHD_Response *resp =
      MHD_create_response_from_buffer(body ? len : 0, body ? body : (void *)"",
                                      body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
  if (!resp) {
    free(body);
    return MHD_NO;
  }
  if (type)
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
  for (size_t i = 0; headers && headers[i]; i += 2)
    MHD_add_response_header(resp, headers[i], headers[i + 1]);
  enum MHD_Result rc = MHD_queue_response(c, status, resp);
  MHD_destroy_response(resp);
  (void)req; /* the status is counted when the request completes */
  return rc;
}

enum MHD_Result wn_serve_respond_json(struct MHD_Connection *c, wn_req *req, unsigned status,
                                      json_t *obj, const char *const *headers) {
  char *text = obj ? json_dumps(obj, JSON_COMPACT | JSON_REAL_PRECISION(6)) : NULL;
  json_decref(obj);
  if (!text)
    return wn_serve_respond(c, req, 500, "text/plain", strdup("out of memory\n"), 14, NULL);
  size_t len = strlen(text);
  /* A newline, so `curl` output ends cleanly. */
  char *withnl = realloc(text, len + 2);
  if (withnl) {
    withnl[len] = '\n';
    withnl[len + 1] = '\0';
    text = withnl;
    len++;
  }
  return wn_serve_respond(c, req, status, "application/json", text, len, headers);
}

/* {"error": "name", "message": "..."} */
enum MHD_Result wn_serve_respond_error(struct MHD_Connection *c, wn_req *req, unsigned status,
                                       const char *name, const char *const *headers,
                                       const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  json_t *o = json_object();
  if (o) {
    json_object_set_new(o, "error", json_string(name));
    json_object_set_new(o, "message", json_string(msg));
  }
  return wn_serve_respond_json(c, req, status, o, headers);
}

/* The HTTP status for a library error on a request's own input. */
unsigned wn_serve_status_of(wn_err err) {
  switch (err) {
  case WN_EINVAL: return 400;
  case WN_ETOOBIG: return 413;
  case WN_ENOTFOUND:
  case WN_ENOTEMPLATE: return 404;
  case WN_ENOTHTML:
  case WN_ECHARSET:
  case WN_EPARSE:
  case WN_ETOOMANY:
  case WN_ETOODEEP:
  case WN_EEMPTY: return 422;
  case WN_EBUSY:
  case WN_ENOMEM: return 503;
  default: return 500;
  }
}

enum MHD_Result wn_serve_respond_err(struct MHD_Connection *c, wn_req *req, wn_err err,
                                     const wn_diag *diag) {
  static const char *const retry[] = {MHD_HTTP_HEADER_RETRY_AFTER, "5", NULL};
  unsigned status = wn_serve_status_of(err);
  return wn_serve_respond_error(c, req, status, wn_strerror_name(err), status == 503 ? retry : NULL,
                                "%s", wn_diag_message(diag, err));
}

enum MHD_Result wn_serve_method_not_allowed(struct MHD_Connection *c, wn_req *req,
                                            const char *allow, const char *method) {
  const char *const headers[] = {MHD_HTTP_HEADER_ALLOW, allow, NULL};
  return wn_serve_respond_error(c, req, 405, "method_not_allowed", headers,
                                "%s is not allowed here (allowed: %s)", method, allow);
}

/* ---- the token ------------------------------------------------------------------------ */

/* Compares in time independent of where the strings differ. */
static int wn_token_equal(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  unsigned char diff = (unsigned char)(la != lb);
  for (size_t i = 0; i < la; i++)
    diff |= (unsigned char)(a[i] ^ b[i % (lb ? lb : 1)]);
  return diff == 0;
}

/* 1 if the request may use an admin endpoint; else a 401 is queued. */
int wn_serve_authorized(struct MHD_Connection *c, wn_req *req, enum MHD_Result *rc) {
  const char *token = req->cfg->token;
  if (!token)
    return 1;
  const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
  if (auth && strncasecmp(auth, "Bearer ", 7) == 0) {
    auth += 7;
    while (*auth == ' ')
      auth++;
    if (wn_token_equal(auth, token))
      return 1;
  }
  static const char *const headers[] = {MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer", NULL};
  *rc = wn_serve_respond_error(c, req, 401, "unauthorized", headers,
                               "this endpoint needs \"Authorization: Bearer <token>\" "
                               "(listen.token)");
  return 0;
}
