/* tests/support/wn_httpd.c: the loopback test server of wn_httpd.h. */
#include "wn_httpd.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>
#include <zlib.h>

#include "util/util.h"

#define LOG_MAX 4096u
#define FILE_MAX ((size_t)64 * 1024 * 1024)
#define SIDECAR_MAX ((size_t)16 * 1024)
#define HEADERS_MAX 16u
#define SLOW_MAX_MS 60000ul
#define BIG_MAX ((uint64_t)1 << 30)

typedef struct log_entry {
  char host[64];
  char path[256];
  uint64_t ms;
} log_entry;

struct wn_httpd {
  struct MHD_Daemon *daemon;
  char root[512];
  uint16_t port;
  atomic_int stopping;
  pthread_mutex_t lock;
  log_entry *log;
  size_t n_log;
  size_t gzip_count;
};

uint64_t wn_httpd_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

uint16_t wn_httpd_unused_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    return 0;
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  uint16_t port = 0;
  if (bind(fd, (struct sockaddr *)&addr, sizeof addr) == 0 &&
      getsockname(fd, (struct sockaddr *)&addr, &len) == 0)
    port = ntohs(addr.sin_port);
  close(fd);
  return port;
}

/* A decimal number with nothing after it, at most max; -1 if not. */
static long parse_number(const char *s, unsigned long max) {
  if (!*s)
    return -1;
  unsigned long v = 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9')
      return -1;
    v = v * 10 + (unsigned long)(*s - '0');
    if (v > max)
      return -1;
  }
  return (long)v;
}

static void log_request(wn_httpd *srv, struct MHD_Connection *c, const char *url) {
  log_entry e;
  memset(&e, 0, sizeof e);
  e.ms = wn_httpd_now_ms();
  const char *host = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host");
  if (host) {
    size_t n = 0;
    /* Without the port; "[::1]:80" keeps its brackets. */
    const char *end = host[0] == '[' ? strchr(host, ']') : strchr(host, ':');
    size_t len = end ? (size_t)(end - host) + (host[0] == '[') : strlen(host);
    for (; n < len && n + 1 < sizeof e.host; n++) {
      char ch = host[n];
      e.host[n] = ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
    }
  }
  snprintf(e.path, sizeof e.path, "%s", url);
  pthread_mutex_lock(&srv->lock);
  if (srv->n_log < LOG_MAX)
    srv->log[srv->n_log++] = e;
  pthread_mutex_unlock(&srv->lock);
}

static const char *type_of(const char *path) {
  static const struct {
    const char *ext, *type;
  } types[] = {
      {".html", "text/html"}, {".htm", "text/html"}, {".xhtml", "application/xhtml+xml"},
      {".txt", "text/plain"}, {".pdf", "application/pdf"}, {".json", "application/json"},
      {".xml", "application/xml"}, {".css", "text/css"}, {".js", "text/javascript"},
      {".png", "image/png"}, {".gz", "application/gzip"},
  };
  size_t len = strlen(path);
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
    size_t n = strlen(types[i].ext);
    if (len >= n && strcmp(path + len - n, types[i].ext) == 0)
      return types[i].type;
  }
  return "application/octet-stream";
}

static enum MHD_Result send_bytes(struct MHD_Connection *c, unsigned status, const void *body,
                                  size_t len, const char *type, const char *location) {
  struct MHD_Response *r =
      MHD_create_response_from_buffer(len, (void *)(uintptr_t)body, MHD_RESPMEM_MUST_COPY);
  if (!r)
    return MHD_NO;
  if (type)
    MHD_add_response_header(r, "Content-Type", type);
  if (location)
    MHD_add_response_header(r, "Location", location);
  enum MHD_Result ret = MHD_queue_response(c, status, r);
  MHD_destroy_response(r);
  return ret;
}

static enum MHD_Result send_page(struct MHD_Connection *c, unsigned status, const char *text) {
  char body[256];
  int n = snprintf(body, sizeof body, "<!DOCTYPE html><html><body><p>%s</p></body></html>", text);
  return send_bytes(c, status, body, (size_t)n, "text/html", NULL);
}

/* ---- /__big: generated as sent ------------------------------------------- */

static const char big_head[] = "<!DOCTYPE html><html><body><p>";

static ssize_t big_reader(void *cls, uint64_t pos, char *buf, size_t max) {
  uint64_t total = *(uint64_t *)cls;
  if (pos >= total)
    return MHD_CONTENT_READER_END_OF_STREAM;
  size_t n = 0;
  for (; n < max && pos + n < total; n++) {
    uint64_t at = pos + n;
    buf[n] = at < sizeof big_head - 1 ? big_head[at] : (at % 64 == 63 ? ' ' : 'x');
  }
  return (ssize_t)n;
}

/* ---- gzip ------------------------------------------------------------------ */

static int gzip_bytes(const char *in, size_t len, char **out, size_t *out_len) {
  z_stream z;
  memset(&z, 0, sizeof z);
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    return -1;
  uLong bound = deflateBound(&z, (uLong)len);
  char *buf = malloc(bound);
  if (!buf) {
    deflateEnd(&z);
    return -1;
  }
  z.next_in = (Bytef *)(uintptr_t)in;
  z.avail_in = (uInt)len;
  z.next_out = (Bytef *)buf;
  z.avail_out = (uInt)bound;
  int rc = deflate(&z, Z_FINISH);
  *out_len = (size_t)z.total_out;
  deflateEnd(&z);
  if (rc != Z_STREAM_END) {
    free(buf);
    return -1;
  }
  *out = buf;
  return 0;
}

/* ---- files ------------------------------------------------------------------ */

/* Nothing outside the root: no ".." anywhere (fixture names never hold one). */
static int safe_path(const char *url) { return url[0] == '/' && !strstr(url, ".."); }

static enum MHD_Result serve_file(wn_httpd *srv, struct MHD_Connection *c, const char *url,
                                  int gzip) {
  char path[1024], sidecar[1100];
  char *body = NULL, *side = NULL, *zipped = NULL;
  size_t len = 0, side_len = 0;
  enum MHD_Result ret = MHD_NO;
  if (!safe_path(url))
    return send_page(c, 400, "bad path");
  size_t ulen = strlen(url);
  int n = snprintf(path, sizeof path, "%s%s%s", srv->root, url,
                   url[ulen - 1] == '/' ? "index.html" : "");
  if (n < 0 || (size_t)n >= sizeof path)
    return send_page(c, 414, "path too long");
  snprintf(sidecar, sizeof sidecar, "%s.headers", path);
  int have_file = wn_file_read(path, FILE_MAX, &body, &len, NULL) == WN_OK;
  int have_side = wn_file_read(sidecar, SIDECAR_MAX, &side, &side_len, NULL) == WN_OK;
  if (!have_file && !have_side) {
    ret = send_page(c, 404, "not found");
    goto out;
  }
  const char *payload = body ? body : "";
  size_t payload_len = have_file ? len : 0;
  if (gzip && have_file) {
    const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Accept-Encoding");
    if (accept && strstr(accept, "gzip")) {
      size_t zlen = 0;
      if (gzip_bytes(payload, payload_len, &zipped, &zlen) != 0)
        goto out;
      payload = zipped;
      payload_len = zlen;
    } else {
      gzip = 0;
    }
  }
  struct MHD_Response *r =
      MHD_create_response_from_buffer(payload_len, (void *)(uintptr_t)payload, MHD_RESPMEM_MUST_COPY);
  if (!r)
    goto out;
  unsigned status = 200;
  int typed = 0;
  if (gzip) {
    MHD_add_response_header(r, "Content-Encoding", "gzip");
    MHD_add_response_header(r, "Vary", "Accept-Encoding");
    pthread_mutex_lock(&srv->lock);
    srv->gzip_count++;
    pthread_mutex_unlock(&srv->lock);
  }
  if (have_side) {
    /* "Name: value" lines; Status is ours, the rest are headers. */
    char *line = side;
    while (line && *line) {
      char *nl = strchr(line, '\n');
      if (nl)
        *nl = '\0';
      size_t ll = strlen(line);
      if (ll && line[ll - 1] == '\r')
        line[--ll] = '\0';
      char *colon = strchr(line, ':');
      if (colon) {
        *colon = '\0';
        char *value = colon + 1;
        while (*value == ' ')
          value++;
        if (strcasecmp(line, "Status") == 0) {
          long code = parse_number(value, 599);
          if (code >= 100)
            status = (unsigned)code;
        } else {
          if (strcasecmp(line, "Content-Type") == 0)
            typed = 1;
          MHD_add_response_header(r, line, value);
        }
      }
      line = nl ? nl + 1 : NULL;
    }
  }
  if (!typed)
    MHD_add_response_header(r, "Content-Type", type_of(path));
  ret = MHD_queue_response(c, status, r);
  MHD_destroy_response(r);
out:
  free(body);
  free(side);
  free(zipped);
  return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **con_cls) {
  wn_httpd *srv = cls;
  (void)version;
  (void)upload_data;
  (void)upload_data_size;
  /* MHD calls twice per request: the first call only sets up. */
  if (!*con_cls) {
    *con_cls = srv;
    return MHD_YES;
  }
  log_request(srv, c, url);
  if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
    return send_page(c, 405, "method not allowed");

  if (strncmp(url, "/__status/", 10) == 0) {
    long code = parse_number(url + 10, 599);
    if (code < 200)
      return send_page(c, 400, "bad status");
    return send_page(c, (unsigned)code, url + 10);
  }
  if (strncmp(url, "/__slow/", 8) == 0) {
    long ms = parse_number(url + 8, SLOW_MAX_MS);
    if (ms < 0)
      return send_page(c, 400, "bad delay");
    /* Sleeps in slices so that stopping the server is not held up. */
    uint64_t until = wn_httpd_now_ms() + (uint64_t)ms;
    while (!atomic_load(&srv->stopping) && wn_httpd_now_ms() < until) {
      struct timespec slice = {0, 10 * 1000 * 1000};
      nanosleep(&slice, NULL);
    }
    return send_page(c, 200, "slow");
  }
  if (strncmp(url, "/__redirect/", 12) == 0) {
    long left = parse_number(url + 12, 1000);
    if (left < 0)
      return send_page(c, 400, "bad count");
    if (left == 0)
      return send_page(c, 200, "redirect end");
    char next[64];
    snprintf(next, sizeof next, "/__redirect/%ld", left - 1);
    return send_bytes(c, 302, "", 0, "text/html", next);
  }
  if (strcmp(url, "/__loop") == 0)
    return send_bytes(c, 302, "", 0, "text/html", "/__loop");
  if (strncmp(url, "/__to/", 6) == 0) {
    /* /__to/<host>/<path>: 302 to http://<host>:<this port>/<path>. */
    const char *host = url + 6;
    const char *slash = strchr(host, '/');
    if (!slash || slash == host || slash - host > 64)
      return send_page(c, 400, "bad target");
    char next[512];
    int n = snprintf(next, sizeof next, "http://%.*s:%u%s", (int)(slash - host), host,
                     (unsigned)srv->port, slash);
    if (n < 0 || (size_t)n >= sizeof next)
      return send_page(c, 400, "target too long");
    return send_bytes(c, 302, "", 0, "text/html", next);
  }
  if (strncmp(url, "/__big/", 7) == 0) {
    long bytes = parse_number(url + 7, (unsigned long)BIG_MAX);
    if (bytes < 0)
      return send_page(c, 400, "bad size");
    uint64_t *total = malloc(sizeof *total);
    if (!total)
      return MHD_NO;
    *total = (uint64_t)bytes;
    struct MHD_Response *r =
        MHD_create_response_from_callback(*total, 64 * 1024, big_reader, total, free);
    if (!r) {
      free(total);
      return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", "text/html");
    enum MHD_Result ret = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    return ret;
  }
  if (strncmp(url, "/__gzip/", 8) == 0)
    return serve_file(srv, c, url + 7, 1);
  return serve_file(srv, c, url, 0);
}

wn_httpd *wn_httpd_start(const char *root_dir) {
  wn_httpd *srv = calloc(1, sizeof *srv);
  if (!srv)
    return NULL;
  srv->log = calloc(LOG_MAX, sizeof *srv->log);
  int n = snprintf(srv->root, sizeof srv->root, "%s", root_dir);
  if (!srv->log || n < 0 || (size_t)n >= sizeof srv->root) {
    fprintf(stderr, "wn_httpd: out of memory or root too long\n");
    free(srv->log);
    free(srv);
    return NULL;
  }
  pthread_mutex_init(&srv->lock, NULL);
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof addr);
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  /* One thread per connection: a /__slow answer must not hold up the
   * others (the crawler fetches in parallel). */
  srv->daemon = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
                                     MHD_USE_ERROR_LOG,
                                 0, NULL, NULL, on_request, srv, MHD_OPTION_SOCK_ADDR,
                                 (struct sockaddr *)&addr, MHD_OPTION_CONNECTION_TIMEOUT,
                                 (unsigned int)30, MHD_OPTION_END);
  const union MHD_DaemonInfo *info =
      srv->daemon ? MHD_get_daemon_info(srv->daemon, MHD_DAEMON_INFO_BIND_PORT) : NULL;
  if (!info || !info->port) {
    fprintf(stderr, "wn_httpd: could not start on 127.0.0.1: %s\n", strerror(errno));
    if (srv->daemon)
      MHD_stop_daemon(srv->daemon);
    pthread_mutex_destroy(&srv->lock);
    free(srv->log);
    free(srv);
    return NULL;
  }
  srv->port = info->port;
  return srv;
}

void wn_httpd_stop(wn_httpd *srv) {
  if (!srv)
    return;
  atomic_store(&srv->stopping, 1);
  MHD_stop_daemon(srv->daemon);
  pthread_mutex_destroy(&srv->lock);
  free(srv->log);
  free(srv);
}

uint16_t wn_httpd_port(const wn_httpd *srv) { return srv->port; }

int wn_httpd_url_host(const wn_httpd *srv, const char *host, const char *path, char *buf,
                      size_t size) {
  int n = snprintf(buf, size, "http://%s:%u%s", host, (unsigned)srv->port, path);
  return n < 0 || (size_t)n >= size ? -1 : 0;
}

int wn_httpd_url(const wn_httpd *srv, const char *path, char *buf, size_t size) {
  return wn_httpd_url_host(srv, "127.0.0.1", path, buf, size);
}

size_t wn_httpd_request_times(wn_httpd *srv, const char *host, const char *path, uint64_t *ms,
                              size_t max) {
  size_t count = 0;
  pthread_mutex_lock(&srv->lock);
  for (size_t i = 0; i < srv->n_log; i++) {
    const log_entry *e = &srv->log[i];
    if (strcmp(e->path, path) != 0 || (host && strcmp(e->host, host) != 0))
      continue;
    if (ms && count < max)
      ms[count] = e->ms;
    count++;
  }
  pthread_mutex_unlock(&srv->lock);
  return count;
}

size_t wn_httpd_requests(wn_httpd *srv, const char *path) {
  return wn_httpd_request_times(srv, NULL, path, NULL, 0);
}

size_t wn_httpd_gzip_count(wn_httpd *srv) {
  pthread_mutex_lock(&srv->lock);
  size_t n = srv->gzip_count;
  pthread_mutex_unlock(&srv->lock);
  return n;
}

void wn_httpd_log_clear(wn_httpd *srv) {
  pthread_mutex_lock(&srv->lock);
  srv->n_log = 0;
  srv->gzip_count = 0;
  pthread_mutex_unlock(&srv->lock);
}
