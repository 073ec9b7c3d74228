/*
 * fetch/crawl.c: a polite fetcher on the libcurl multi interface.
 *
 * One wn_crawl_fetch call runs one event loop over a batch of URLs:
 *
 *   schedule  -- start what the politeness rules allow now; note when the
 *                next start becomes allowed
 *   perform   -- curl_multi_perform moves every transfer on
 *   finish    -- completed transfers become wn_fetch outcomes (or a host's
 *                robots.txt)
 *   poll      -- curl_multi_poll sleeps until socket activity, curl's own
 *                timers, or the next allowed start, whichever comes first
 *
 * Politeness, per origin (scheme, host, port: the unit robots.txt applies
 * to, RFC 9309 2.3): robots.txt is fetched once before any page and kept
 * for the crawl's life; request starts are spaced by
 * max(host_delay_ms, min(Crawl-delay, max_crawl_delay_ms)), the
 * robots.txt request included; at most host_parallel requests are in
 * flight per origin and total_parallel overall.
 *
 * Redirects of pages are followed here, not by curl: a 3xx answer's
 * Location (resolved by curl, normalised by curl_url) becomes the job's
 * new URL and the job goes back to the queue, so every hop is a request
 * like any other: the target origin's robots.txt is fetched and obeyed,
 * its delay and parallel cap apply, and at most max_redirects hops are
 * made. robots.txt itself is fetched with curl following up to five
 * redirects (RFC 9309 2.3.1.2), whose answer stands for the first origin.
 */
#include "fetch/fetch.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <curl/curl.h>

#define WN_CRAWL_MAX_HOSTS 1024u          /* origins cached at once */
#define WN_ROBOTS_BODY_MAX ((size_t)500 * 1024) /* RFC 9309 2.5 */
#define WN_ROBOTS_MAX_REDIRECTS 5L        /* RFC 9309 2.3.1.2 */
#define WN_ORIGIN_MAX 300u                /* "https://" + host (255) + ":port" */
#define WN_POLL_MAX_MS 1000               /* a sleep never outlasts this */

typedef enum robots_state { ROBOTS_NONE, ROBOTS_FETCHING, ROBOTS_READY } robots_state;

typedef struct crawl_host {
  char origin[WN_ORIGIN_MAX]; /* "scheme://host:port", the cache key */
  robots_state state;
  wn_robots *robots;
  wn_err robots_err;        /* robots.txt unreachable: pages fail alike */
  char robots_note[200];    /* why pages are refused (5xx, network) */
  uint32_t delay_ms;        /* gap between request starts */
  uint64_t last_start_ms;   /* monotonic; 0 before the first request */
  uint32_t in_flight;
  uint32_t pinned;          /* unfinished jobs of this batch on it */
  uint64_t last_used;       /* batch counter, for eviction */
} crawl_host;

struct wn_crawl {
  wn_crawl_options opts;
  char *user_agent;
  CURLM *multi;
  crawl_host *hosts;
  size_t n_hosts;
  uint64_t batch;
  double waited_ms; /* politeness waits with nothing in flight, all batches */
};

typedef enum job_state { JOB_PENDING, JOB_RUNNING, JOB_DONE } job_state;

typedef struct crawl_job {
  char *url;       /* normalised; after a redirect, the target */
  char *path;      /* path and query, for robots.txt */
  size_t host;
  job_state state;
  uint32_t redirects; /* hops followed so far */
} crawl_job;

typedef enum stop_reason { STOP_NONE, STOP_TOOBIG, STOP_NOMEM, STOP_EARLY } stop_reason;

#define ROBOTS_JOB SIZE_MAX

typedef struct transfer {
  struct transfer *prev, *next; /* the batch's active list */
  CURL *easy;
  size_t job;  /* index in the batch, or ROBOTS_JOB */
  size_t host;
  wn_buf body;
  stop_reason stop;
  int checked; /* status and type looked at on the first body bytes */
  char errbuf[CURL_ERROR_SIZE];
  char refused[96]; /* an address refused (refuse_private): which, and why */
} transfer;

/* One batch in progress. */
typedef struct batch {
  wn_crawl *crawl;
  crawl_job *jobs;
  wn_fetch *out;
  size_t n, remaining;
  uint32_t total_in_flight;
  uint64_t started_ms;
  struct transfer *active; /* transfers in flight, for abandoning them */
} batch;

/* Whole milliseconds of the one clock (util.h), for the queue's times. */
static uint64_t now_ms(void) { return (uint64_t)wn_clock_ms(); }

double wn_crawl_waited_ms(const wn_crawl *crawl) { return crawl ? crawl->waited_ms : 0.0; }

void wn_crawl_options_init(wn_crawl_options *opts) {
  memset(opts, 0, sizeof *opts);
  opts->user_agent = WN_CRAWL_DEFAULT_USER_AGENT;
  opts->connect_timeout_ms = 5000;
  opts->timeout_ms = 30000;
  opts->max_body_bytes = (size_t)8 * 1024 * 1024;
  opts->max_redirects = 5;
  opts->host_delay_ms = 500;
  opts->host_parallel = 2;
  opts->max_crawl_delay_ms = 10000;
  opts->total_parallel = 16;
  opts->obey_robots = 1;
}

wn_err wn_crawl_create(const wn_crawl_options *opts, wn_crawl **out, wn_diag *diag) {
  wn_err err = WN_OK;
  wn_crawl_options defaults;
  wn_crawl_options_init(&defaults);
  *out = NULL;
  wn_crawl *crawl = calloc(1, sizeof *crawl);
  if (!crawl)
    return wn_diag_set(diag, WN_ENOMEM, "crawl: out of memory");
  crawl->opts = opts ? *opts : defaults;
  wn_crawl_options *o = &crawl->opts;
  /* Zero means "default" where zero makes no sense; delays and redirects
   * may be zero on purpose. */
  if (!o->user_agent || !o->user_agent[0])
    o->user_agent = defaults.user_agent;
  if (!o->connect_timeout_ms)
    o->connect_timeout_ms = defaults.connect_timeout_ms;
  if (!o->timeout_ms)
    o->timeout_ms = defaults.timeout_ms;
  if (!o->max_body_bytes)
    o->max_body_bytes = defaults.max_body_bytes;
  if (o->max_redirects > 5)
    o->max_redirects = 5;
  if (!o->host_parallel)
    o->host_parallel = defaults.host_parallel;
  if (!o->total_parallel)
    o->total_parallel = defaults.total_parallel;

  /* The product token is what robots.txt groups are matched on. */
  wn_robots *probe = NULL;
  err = wn_robots_parse("", 0, o->user_agent, &probe, diag);
  wn_robots_free(probe);
  if (err)
    goto out;
  size_t ua_len = strlen(o->user_agent);
  crawl->user_agent = malloc(ua_len + 1);
  if (!crawl->user_agent) {
    err = wn_diag_set(diag, WN_ENOMEM, "crawl: out of memory");
    goto out;
  }
  memcpy(crawl->user_agent, o->user_agent, ua_len + 1);
  o->user_agent = crawl->user_agent;

  /* Thread-safe in libcurl >= 7.84 and reference counted. */
  if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    err = wn_diag_set(diag, WN_ENET, "crawl: libcurl could not initialise");
    goto out;
  }
  crawl->multi = curl_multi_init();
  if (!crawl->multi) {
    curl_global_cleanup();
    err = wn_diag_set(diag, WN_ENOMEM, "crawl: curl_multi_init failed");
    goto out;
  }
  *out = crawl;
  crawl = NULL;
out:
  if (crawl) {
    free(crawl->user_agent);
    free(crawl);
  }
  return err;
}

void wn_crawl_destroy(wn_crawl *crawl) {
  if (!crawl)
    return;
  for (size_t i = 0; i < crawl->n_hosts; i++)
    wn_robots_free(crawl->hosts[i].robots);
  free(crawl->hosts);
  curl_multi_cleanup(crawl->multi);
  curl_global_cleanup();
  free(crawl->user_agent);
  free(crawl);
}

void wn_fetch_clear(wn_fetch *fetch) {
  if (!fetch)
    return;
  free(fetch->url);
  free(fetch->final_url);
  free(fetch->body);
  memset(fetch, 0, sizeof *fetch);
}

/* ---- hosts ---------------------------------------------------------------- */

static void host_reset(crawl_host *h, const char *origin, uint32_t delay_ms) {
  wn_robots_free(h->robots);
  memset(h, 0, sizeof *h);
  snprintf(h->origin, sizeof h->origin, "%s", origin);
  h->delay_ms = delay_ms;
}

/* The cached origin, or a new entry; when the cache is full, the least
 * recently used origin that nothing is waiting on is forgotten (its
 * robots.txt is fetched again if it comes back). */
static wn_err host_get(wn_crawl *crawl, const char *origin, size_t *index, wn_diag *diag) {
  size_t victim = SIZE_MAX;
  for (size_t i = 0; i < crawl->n_hosts; i++) {
    crawl_host *h = &crawl->hosts[i];
    if (strcmp(h->origin, origin) == 0) {
      *index = i;
      return WN_OK;
    }
    if (!h->pinned && !h->in_flight && h->state != ROBOTS_FETCHING &&
        (victim == SIZE_MAX || h->last_used < crawl->hosts[victim].last_used))
      victim = i;
  }
  if (crawl->n_hosts < WN_CRAWL_MAX_HOSTS) {
    if (!crawl->hosts) {
      crawl->hosts = calloc(WN_CRAWL_MAX_HOSTS, sizeof *crawl->hosts);
      if (!crawl->hosts)
        return wn_diag_set(diag, WN_ENOMEM, "crawl: out of memory");
    }
    victim = crawl->n_hosts++;
  } else if (victim == SIZE_MAX) {
    return wn_diag_set(diag, WN_ETOOMANY, "crawl: more than %u hosts in one batch",
                       WN_CRAWL_MAX_HOSTS);
  }
  host_reset(&crawl->hosts[victim], origin, crawl->opts.host_delay_ms);
  *index = victim;
  return WN_OK;
}

/* Splits a normalised URL into its origin and its path with query. */
static wn_err url_origin(const char *url, char *origin, size_t origin_size, char **path,
                         wn_diag *diag) {
  wn_err err = WN_OK;
  char *scheme = NULL, *host = NULL, *port = NULL, *p = NULL, *query = NULL;
  *path = NULL;
  CURLU *h = curl_url();
  if (!h)
    return wn_diag_set(diag, WN_ENOMEM, "crawl: out of memory");
  if (curl_url_set(h, CURLUPART_URL, url, 0) != CURLUE_OK ||
      curl_url_get(h, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
      curl_url_get(h, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
      curl_url_get(h, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) != CURLUE_OK ||
      curl_url_get(h, CURLUPART_PATH, &p, 0) != CURLUE_OK) {
    err = wn_diag_set(diag, WN_EINVAL, "crawl: %.200s does not parse", url);
    goto out;
  }
  if (curl_url_get(h, CURLUPART_QUERY, &query, 0) != CURLUE_OK)
    query = NULL;
  int n = snprintf(origin, origin_size, "%s://%s:%s", scheme, host, port);
  if (n < 0 || (size_t)n >= origin_size) {
    err = wn_diag_set(diag, WN_EINVAL, "crawl: host of %.200s is too long", url);
    goto out;
  }
  wn_buf b;
  wn_buf_init(&b, WN_URL_MAX + 2);
  if (wn_buf_append_str(&b, p) || (query && (wn_buf_append_char(&b, '?') ||
                                             wn_buf_append_str(&b, query)))) {
    wn_buf_free(&b);
    err = wn_diag_set(diag, WN_EINVAL, "crawl: path of %.200s is too long", url);
    goto out;
  }
  *path = wn_buf_take(&b, NULL);
  if (!*path)
    err = wn_diag_set(diag, WN_ENOMEM, "crawl: out of memory");
out:
  curl_free(scheme);
  curl_free(host);
  curl_free(port);
  curl_free(p);
  curl_free(query);
  curl_url_cleanup(h);
  return err;
}

/* ---- transfers -------------------------------------------------------------- */

static int is_html_type(const char *media_type) {
  return strcmp(media_type, "text/html") == 0 || strcmp(media_type, "application/xhtml+xml") == 0;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *userp) {
  transfer *t = userp;
  size_t n = size * nmemb;
  if (t->job == ROBOTS_JOB) {
    /* Past 500 KiB the rest is ignored (RFC 9309 2.5): keep what fits and
     * stop the transfer; finish() reads the stop as "complete". */
    size_t room = t->body.cap - t->body.len;
    if (n > room) {
      if (wn_buf_append(&t->body, data, room) != WN_OK)
        t->stop = STOP_NOMEM;
      else
        t->stop = STOP_EARLY;
      return 0;
    }
  } else if (!t->checked) {
    /* The first body bytes: headers are in. An error status or a type we
     * do not want needs no body, so the transfer stops here. */
    t->checked = 1;
    long status = 0;
    char *ct = NULL;
    char media[128], charset[48];
    curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(t->easy, CURLINFO_CONTENT_TYPE, &ct);
    wn_content_type_split(ct, ct ? strlen(ct) : 0, media, sizeof media, charset, sizeof charset);
    if (status < 200 || status > 299 || !is_html_type(media)) {
      t->stop = STOP_EARLY;
      return 0;
    }
  }
  wn_err err = wn_buf_append(&t->body, data, n);
  if (err) {
    t->stop = err == WN_ETOOBIG ? STOP_TOOBIG : STOP_NOMEM;
    return 0; /* curl ends the transfer with CURLE_WRITE_ERROR */
  }
  return n;
}

/* Opens the socket of a connection unless refuse_private is set and its
 * address is one a stranger must not reach through us
 * (wn_ip_kind): libcurl then tries the name's other addresses, and fails
 * with CURLE_COULDNT_CONNECT when none is left. */
static curl_socket_t open_socket(void *ctx, curlsocktype purpose, struct curl_sockaddr *addr) {
  transfer *t = ctx;
  (void)purpose;
  const char *kind = NULL;
  char ip[INET6_ADDRSTRLEN] = "?";
  if (addr->family == AF_INET && addr->addrlen >= sizeof(struct sockaddr_in)) {
    const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)&addr->addr;
    kind = wn_ip_kind(AF_INET, &in->sin_addr);
    inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip);
  } else if (addr->family == AF_INET6 && addr->addrlen >= sizeof(struct sockaddr_in6)) {
    const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)&addr->addr;
    kind = wn_ip_kind(AF_INET6, &in6->sin6_addr);
    inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof ip);
  } else {
    kind = "not an internet address";
  }
  if (kind) {
    snprintf(t->refused, sizeof t->refused, "address %s is %s", ip, kind);
    return CURL_SOCKET_BAD;
  }
  return socket(addr->family, addr->socktype, addr->protocol);
}

static wn_err start_transfer(batch *b, size_t job, size_t host, const char *url, uint64_t now,
                             wn_diag *diag) {
  wn_crawl *crawl = b->crawl;
  const wn_crawl_options *o = &crawl->opts;
  transfer *t = calloc(1, sizeof *t);
  if (!t)
    return wn_diag_set(diag, WN_ENOMEM, "crawl: out of memory");
  t->job = job;
  t->host = host;
  wn_buf_init(&t->body, job == ROBOTS_JOB ? WN_ROBOTS_BODY_MAX : o->max_body_bytes);
  t->easy = curl_easy_init();
  if (!t->easy) {
    free(t);
    return wn_diag_set(diag, WN_ENOMEM, "crawl: curl_easy_init failed");
  }
  CURL *e = t->easy;
  long redirects = WN_ROBOTS_MAX_REDIRECTS;
  CURLcode rc = CURLE_OK;
#define SET(opt, val)                                                                            \
  if (rc == CURLE_OK)                                                                            \
  rc = curl_easy_setopt(e, opt, val)
  SET(CURLOPT_URL, url);
  SET(CURLOPT_USERAGENT, o->user_agent);
  SET(CURLOPT_CONNECTTIMEOUT_MS, (long)o->connect_timeout_ms);
  SET(CURLOPT_TIMEOUT_MS, (long)o->timeout_ms);
  /* Pages: redirects are followed by the scheduler, hop by hop. */
  SET(CURLOPT_FOLLOWLOCATION, job == ROBOTS_JOB ? 1L : 0L);
  SET(CURLOPT_MAXREDIRS, redirects);
  SET(CURLOPT_ACCEPT_ENCODING, "");
  SET(CURLOPT_PROTOCOLS_STR, "http,https");
  SET(CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  SET(CURLOPT_WRITEFUNCTION, on_body);
  SET(CURLOPT_WRITEDATA, t);
  SET(CURLOPT_ERRORBUFFER, t->errbuf);
  SET(CURLOPT_PRIVATE, t);
  SET(CURLOPT_NOSIGNAL, 1L);
  if (o->refuse_private) {
    SET(CURLOPT_OPENSOCKETFUNCTION, open_socket);
    SET(CURLOPT_OPENSOCKETDATA, t);
  }
#undef SET
  if (rc != CURLE_OK || curl_multi_add_handle(crawl->multi, e) != CURLM_OK) {
    curl_easy_cleanup(e);
    free(t);
    return wn_diag_set(diag, WN_ENET, "crawl: could not set up a transfer: %s",
                       curl_easy_strerror(rc));
  }
  t->next = b->active;
  if (b->active)
    b->active->prev = t;
  b->active = t;
  crawl_host *h = &crawl->hosts[host];
  h->in_flight++;
  h->last_start_ms = now;
  b->total_in_flight++;
  if (job != ROBOTS_JOB) {
    b->jobs[job].state = JOB_RUNNING;
    /* Time since the batch began not spent in this job's earlier hops. */
    uint64_t queued = now - b->started_ms;
    queued = queued > b->out[job].fetch_ms ? queued - b->out[job].fetch_ms : 0;
    b->out[job].queued_ms = queued > UINT32_MAX ? UINT32_MAX : (uint32_t)queued;
  }
  return WN_OK;
}

static void job_done(batch *b, size_t job, wn_err err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void job_done(batch *b, size_t job, wn_err err, const char *fmt, ...) {
  crawl_job *j = &b->jobs[job];
  wn_fetch *f = &b->out[job];
  f->err = err;
  if (fmt) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->message, sizeof f->message, fmt, ap);
    va_end(ap);
  }
  if (j->state == JOB_PENDING) {
    uint64_t queued = now_ms() - b->started_ms;
    f->queued_ms = queued > UINT32_MAX ? UINT32_MAX : (uint32_t)queued;
  }
  j->state = JOB_DONE;
  b->crawl->hosts[j->host].pinned--;
  b->remaining--;
}

/* "host:port" of an origin ("scheme://host:port"), and the host alone. */
static const char *origin_host_port(const char *origin) {
  const char *p = strstr(origin, "://");
  return p ? p + 3 : origin;
}

static void origin_host(const char *origin, char *host, size_t host_size) {
  const char *hp = origin_host_port(origin);
  const char *colon = strrchr(hp, ':');
  size_t len = colon ? (size_t)(colon - hp) : strlen(hp);
  snprintf(host, host_size, "%.*s", (int)(len > 255 ? 255 : len), hp);
}

/* Why a connect failed, in words, from the socket's errno. */
static const char *connect_reason(CURL *e, const char *fallback) {
  long os_errno = 0;
  curl_easy_getinfo(e, CURLINFO_OS_ERRNO, &os_errno);
  switch (os_errno) {
  case ECONNREFUSED: return "connection refused";
  case EHOSTUNREACH: return "host unreachable";
  case ENETUNREACH: return "network unreachable";
  case ETIMEDOUT: return "timed out";
  case ECONNRESET: return "connection reset";
  default: return fallback;
  }
}

/* A failed curl transfer as our error and a one-line message. *unreachable
 * is set when no connection to the origin was made at all (the name does
 * not resolve, the connect was refused or timed out): the host is down,
 * whatever was asked of it. */
static wn_err map_curl_error(const wn_crawl_options *o, CURL *e, CURLcode rc, const char *errbuf,
                             const char *refused, const char *origin, char *msg,
                             size_t msg_size, int *unreachable) {
  const char *text = errbuf[0] ? errbuf : curl_easy_strerror(rc);
  *unreachable = 0;
  if (refused[0] && rc == CURLE_COULDNT_CONNECT) {
    snprintf(msg, msg_size,
             "refused to connect to %s: %s (private, loopback, link-local and metadata "
             "addresses are not crawled here)",
             origin_host_port(origin), refused);
    *unreachable = 1;
    return WN_ENET;
  }
  switch (rc) {
  case CURLE_OPERATION_TIMEDOUT: {
    /* curl says which limit fired only in prose; the elapsed time says it
     * too: the limit nearer to it. */
    curl_off_t total_us = 0;
    curl_easy_getinfo(e, CURLINFO_TOTAL_TIME_T, &total_us);
    int64_t ms = (int64_t)(total_us / 1000);
    int64_t to_connect = ms - (int64_t)o->connect_timeout_ms;
    int64_t to_total = ms - (int64_t)o->timeout_ms;
    if (llabs(to_connect) < llabs(to_total)) {
      snprintf(msg, msg_size, "could not connect to %s (connect timed out after %u ms)",
               origin_host_port(origin), o->connect_timeout_ms);
      *unreachable = 1;
    } else {
      snprintf(msg, msg_size, "timed out after %u ms", o->timeout_ms);
    }
    return WN_ETIMEOUT;
  }
  case CURLE_TOO_MANY_REDIRECTS:
    snprintf(msg, msg_size, "more than %u redirects", o->max_redirects);
    return WN_EREDIRECT;
  case CURLE_COULDNT_RESOLVE_HOST:
  case CURLE_COULDNT_RESOLVE_PROXY: {
    char host[256];
    origin_host(origin, host, sizeof host);
    snprintf(msg, msg_size, "could not resolve host %.200s", host);
    *unreachable = 1;
    return WN_ENET;
  }
  case CURLE_COULDNT_CONNECT:
    snprintf(msg, msg_size, "could not connect to %s (%s)", origin_host_port(origin),
             connect_reason(e, text));
    *unreachable = 1;
    return WN_ENET;
  default:
    snprintf(msg, msg_size, "%s", text);
    return WN_ENET;
  }
}

static void finish_robots(batch *b, transfer *t, CURLcode rc) {
  wn_crawl *crawl = b->crawl;
  crawl_host *h = &crawl->hosts[t->host];
  long status = 0;
  curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
  int complete = rc == CURLE_OK || (rc == CURLE_WRITE_ERROR && t->stop == STOP_EARLY);
  wn_robots *robots = NULL;
  if (complete && status >= 200 && status <= 299) {
    if (wn_robots_parse(t->body.data ? t->body.data : "", t->body.len, crawl->user_agent,
                        &robots, NULL) != WN_OK)
      robots = NULL;
  } else if ((complete && status >= 500) || !complete) {
    /* RFC 9309 2.3.1.4: a server error or an unreachable server means
     * complete disallow. A redirect chain too long counts as unavailable
     * (2.3.1.2), handled below with 4xx. */
    if (rc == CURLE_TOO_MANY_REDIRECTS) {
      wn_robots_new_all(1, &robots, NULL);
    } else if (complete) {
      snprintf(h->robots_note, sizeof h->robots_note,
               "robots.txt answered HTTP %ld: the site is treated as disallowed", status);
      wn_robots_new_all(0, &robots, NULL);
    } else {
      /* A host that cannot be reached at all is reported as such, not as
       * a robots.txt problem: asking for the page would fail alike. */
      char msg[160];
      int unreachable = 0;
      h->robots_err = map_curl_error(&crawl->opts, t->easy, rc, t->errbuf, t->refused, h->origin, msg,
                                     sizeof msg, &unreachable);
      snprintf(h->robots_note, sizeof h->robots_note, "%s%s", unreachable ? "" : "robots.txt: ",
               msg);
      wn_robots_new_all(0, &robots, NULL);
    }
  } else {
    /* 4xx (RFC 9309 2.3.1.3: unavailable, crawl freely) and any other
     * final status without a file. */
    wn_robots_new_all(1, &robots, NULL);
  }
  if (!robots) {
    /* Out of memory: refusing is the careful answer. */
    h->robots_err = WN_ENOMEM;
    snprintf(h->robots_note, sizeof h->robots_note, "robots.txt: out of memory");
  }
  h->robots = robots;
  h->state = ROBOTS_READY;
  uint32_t crawl_delay = wn_robots_crawl_delay_ms(robots);
  if (crawl_delay > crawl->opts.max_crawl_delay_ms)
    crawl_delay = crawl->opts.max_crawl_delay_ms;
  if (crawl_delay > h->delay_ms)
    h->delay_ms = crawl_delay;
}

/* A page answered with a redirect: the job takes the target as its URL
 * (and its origin as its host) and goes back to the queue, where the
 * target's robots.txt and delays apply like anywhere else. 1 if the job
 * is queued again; 0 if it ended (too many hops, a target that does not
 * parse or is not http(s), out of memory). */
static int follow_redirect(batch *b, size_t job, const char *location) {
  wn_crawl *crawl = b->crawl;
  crawl_job *j = &b->jobs[job];
  if (j->redirects >= crawl->opts.max_redirects) {
    job_done(b, job, WN_EREDIRECT, "more than %u redirects", crawl->opts.max_redirects);
    return 0;
  }
  wn_diag d = {{0}};
  char *url = NULL, *path = NULL;
  char origin[WN_ORIGIN_MAX];
  size_t host = 0;
  wn_err e = wn_url_resolve(j->url, location, &url, &d);
  if (!e)
    e = url_origin(url, origin, sizeof origin, &path, &d);
  if (!e)
    e = host_get(crawl, origin, &host, &d);
  if (e) {
    free(url);
    free(path);
    job_done(b, job, e == WN_ENOMEM ? e : WN_EREDIRECT, "redirect to %.100s: %s", location,
             wn_diag_message(&d, e));
    return 0;
  }
  crawl->hosts[j->host].pinned--;
  crawl->hosts[host].pinned++;
  crawl->hosts[host].last_used = crawl->batch;
  free(j->url);
  free(j->path);
  j->url = url;
  j->path = path;
  j->host = host;
  j->redirects++;
  j->state = JOB_PENDING;
  return 1;
}

static void finish_page(batch *b, transfer *t, CURLcode rc) {
  const wn_crawl_options *o = &b->crawl->opts;
  wn_fetch *f = &b->out[t->job];
  char *ct = NULL, *eff = NULL, *location = NULL;
  curl_off_t total_us = 0;
  curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &f->http_status);
  curl_easy_getinfo(t->easy, CURLINFO_CONTENT_TYPE, &ct);
  curl_easy_getinfo(t->easy, CURLINFO_EFFECTIVE_URL, &eff);
  curl_easy_getinfo(t->easy, CURLINFO_REDIRECT_URL, &location);
  curl_easy_getinfo(t->easy, CURLINFO_TOTAL_TIME_T, &total_us);
  wn_content_type_split(ct, ct ? strlen(ct) : 0, f->media_type, sizeof f->media_type, f->charset,
                        sizeof f->charset);
  /* Network wait over all hops of the job. */
  uint64_t hop_ms = (uint64_t)total_us / 1000 + f->fetch_ms;
  f->fetch_ms = hop_ms > UINT32_MAX ? UINT32_MAX : (uint32_t)hop_ms;
  free(f->final_url);
  f->final_url = NULL;
  if (eff) {
    size_t len = strlen(eff);
    f->final_url = malloc(len + 1);
    if (f->final_url)
      memcpy(f->final_url, eff, len + 1);
  }
  int answered = rc == CURLE_OK || (rc == CURLE_WRITE_ERROR && t->stop == STOP_EARLY);
  if (answered && f->http_status >= 300 && f->http_status <= 399 && location &&
      t->stop != STOP_NOMEM && (!eff || f->final_url)) {
    follow_redirect(b, t->job, location);
    return;
  }
  if (t->stop == STOP_TOOBIG) {
    job_done(b, t->job, WN_ETOOBIG, "body larger than %zu bytes", o->max_body_bytes);
  } else if (t->stop == STOP_NOMEM || (eff && !f->final_url)) {
    job_done(b, t->job, WN_ENOMEM, "out of memory");
  } else if (!answered) {
    char msg[sizeof f->message];
    int unreachable = 0;
    wn_err err = map_curl_error(o, t->easy, rc, t->errbuf, t->refused, b->crawl->hosts[t->host].origin, msg,
                                sizeof msg, &unreachable);
    job_done(b, t->job, err, "%s", msg);
  } else if (f->http_status < 200 || f->http_status > 299) {
    job_done(b, t->job, WN_EHTTP, "HTTP %ld", f->http_status);
  } else if (!is_html_type(f->media_type)) {
    job_done(b, t->job, WN_ENOTHTML, "not HTML: %s",
             f->media_type[0] ? f->media_type : "no Content-Type");
  } else {
    f->body = wn_buf_take(&t->body, &f->body_len);
    if (!f->body)
      job_done(b, t->job, WN_ENOMEM, "out of memory");
    else
      job_done(b, t->job, WN_OK, NULL);
  }
}

static void transfer_free(batch *b, transfer *t) {
  if (t->prev)
    t->prev->next = t->next;
  else
    b->active = t->next;
  if (t->next)
    t->next->prev = t->prev;
  curl_multi_remove_handle(b->crawl->multi, t->easy);
  curl_easy_cleanup(t->easy);
  wn_buf_free(&t->body);
  free(t);
}

static void finish_transfer(batch *b, transfer *t, CURLcode rc) {
  crawl_host *h = &b->crawl->hosts[t->host];
  if (t->job == ROBOTS_JOB)
    finish_robots(b, t, rc);
  else
    finish_page(b, t, rc);
  h->in_flight--;
  b->total_in_flight--;
  transfer_free(b, t);
}

/* ---- the batch -------------------------------------------------------------- */

static int may_start(const batch *b, const crawl_host *h, uint64_t now, uint64_t *wake) {
  const wn_crawl_options *o = &b->crawl->opts;
  if (b->total_in_flight >= o->total_parallel || h->in_flight >= o->host_parallel)
    return 0; /* a finishing transfer wakes the loop */
  if (h->last_start_ms) {
    uint64_t next = h->last_start_ms + h->delay_ms;
    if (now < next) {
      if (next < *wake)
        *wake = next;
      return 0;
    }
  }
  return 1;
}

/* Starts what may start now, in the order the caller gave; ends the jobs
 * robots.txt refuses. *wake: the next time a delay runs out. */
static wn_err schedule(batch *b, uint64_t *wake, wn_diag *diag) {
  wn_crawl *crawl = b->crawl;
  int obey = crawl->opts.obey_robots;
  uint64_t now = now_ms();
  *wake = UINT64_MAX;
  for (size_t i = 0; i < b->n && b->total_in_flight < crawl->opts.total_parallel; i++) {
    crawl_job *j = &b->jobs[i];
    if (j->state != JOB_PENDING)
      continue;
    crawl_host *h = &crawl->hosts[j->host];
    if (obey && h->state == ROBOTS_NONE) {
      if (may_start(b, h, now, wake)) {
        char robots_url[WN_ORIGIN_MAX + 16];
        snprintf(robots_url, sizeof robots_url, "%s/robots.txt", h->origin);
        wn_err err = start_transfer(b, ROBOTS_JOB, j->host, robots_url, now, diag);
        if (err)
          return err;
        h->state = ROBOTS_FETCHING;
      }
      continue;
    }
    if (obey && h->state == ROBOTS_FETCHING)
      continue;
    if (obey && h->robots_err) {
      job_done(b, i, h->robots_err, "%s", h->robots_note);
      continue;
    }
    if (obey && !wn_robots_allowed(h->robots, j->path)) {
      if (h->robots_note[0])
        job_done(b, i, WN_EROBOTS, "%s", h->robots_note);
      else
        job_done(b, i, WN_EROBOTS, "robots.txt disallows %.200s", j->path);
      continue;
    }
    if (may_start(b, h, now, wake)) {
      wn_err err = start_transfer(b, i, j->host, j->url, now, diag);
      if (err)
        return err;
    }
  }
  return WN_OK;
}

static void drain(batch *b) {
  CURLMsg *msg;
  int left = 0;
  while ((msg = curl_multi_info_read(b->crawl->multi, &left)) != NULL) {
    if (msg->msg != CURLMSG_DONE)
      continue;
    transfer *t = NULL;
    curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&t);
    if (t)
      finish_transfer(b, t, msg->data.result);
  }
}

wn_err wn_crawl_fetch(wn_crawl *crawl, const char *const *urls, size_t n, wn_fetch *out,
                      wn_diag *diag) {
  wn_err err = WN_OK;
  batch b = {0};
  if (!crawl || (n && (!urls || !out)))
    return wn_diag_set(diag, WN_EINVAL, "crawl: no crawl or no URLs");
  if (!n)
    return WN_OK;
  memset(out, 0, n * sizeof *out);
  b.crawl = crawl;
  b.out = out;
  b.n = n;
  b.started_ms = now_ms();
  crawl->batch++;
  b.jobs = calloc(n, sizeof *b.jobs);
  if (!b.jobs)
    return wn_diag_set(diag, WN_ENOMEM, "crawl: out of memory");

  for (size_t i = 0; i < n; i++) {
    crawl_job *j = &b.jobs[i];
    wn_fetch *f = &out[i];
    j->state = JOB_DONE;
    const char *asked = urls[i] ? urls[i] : "";
    size_t len = strnlen(asked, WN_URL_MAX + 1);
    f->url = malloc(len + 1);
    if (!f->url) {
      err = wn_diag_set(diag, WN_ENOMEM, "crawl: out of memory");
      goto out;
    }
    memcpy(f->url, asked, len);
    f->url[len] = '\0';
    wn_diag d = {{0}};
    wn_err e = wn_url_resolve(NULL, f->url, &j->url, &d);
    char origin[WN_ORIGIN_MAX];
    if (!e)
      e = url_origin(j->url, origin, sizeof origin, &j->path, &d);
    if (!e)
      e = host_get(crawl, origin, &j->host, &d);
    if (e == WN_ENOMEM) {
      err = wn_diag_set(diag, WN_ENOMEM, "crawl: out of memory");
      goto out;
    }
    if (e) {
      f->err = e;
      snprintf(f->message, sizeof f->message, "%s", wn_diag_message(&d, e));
      continue;
    }
    crawl->hosts[j->host].pinned++;
    crawl->hosts[j->host].last_used = crawl->batch;
    j->state = JOB_PENDING;
    b.remaining++;
  }

  while (b.remaining) {
    if (crawl->opts.cancel && *crawl->opts.cancel) {
      err = wn_diag_set(diag, WN_EBUSY, "crawl: cancelled");
      goto out;
    }
    uint64_t wake = UINT64_MAX;
    err = schedule(&b, &wake, diag);
    if (err)
      goto out;
    if (!b.remaining)
      break;
    int running = 0;
    CURLMcode mc = curl_multi_perform(crawl->multi, &running);
    if (mc != CURLM_OK) {
      err = wn_diag_set(diag, WN_ENET, "crawl: %s", curl_multi_strerror(mc));
      goto out;
    }
    uint32_t before = (uint32_t)b.remaining + b.total_in_flight;
    drain(&b);
    if ((uint32_t)b.remaining + b.total_in_flight != before)
      continue; /* something finished: schedule again at once */
    if (!b.total_in_flight && wake == UINT64_MAX) {
      /* Nothing running and nothing to wait for, yet work is left: a bug,
       * not a reason to spin. */
      err = wn_diag_set(diag, WN_EINVAL, "crawl: %zu fetches cannot be scheduled", b.remaining);
      goto out;
    }
    uint64_t now = now_ms();
    uint64_t wait = wake == UINT64_MAX ? WN_POLL_MAX_MS : (wake > now ? wake - now : 0);
    if (wait > WN_POLL_MAX_MS)
      wait = WN_POLL_MAX_MS;
    /* With nothing in flight the batch is only waiting for a per-origin
     * delay or Crawl-delay to run out: politeness, not network, time. */
    const int politeness = !b.total_in_flight;
    double w0 = politeness ? wn_clock_ms() : 0.0;
    /* curl shortens the wait to its own timers (timeouts, happy eyeballs). */
    mc = curl_multi_poll(crawl->multi, NULL, 0, (int)wait, NULL);
    if (politeness)
      crawl->waited_ms += wn_clock_ms() - w0;
    if (mc != CURLM_OK) {
      err = wn_diag_set(diag, WN_ENET, "crawl: %s", curl_multi_strerror(mc));
      goto out;
    }
  }
out:
  /* The batch failed: abandon what is in flight. An origin whose
   * robots.txt was being fetched goes back to "not fetched". */
  while (b.active) {
    transfer *t = b.active;
    if (t->job == ROBOTS_JOB)
      crawl->hosts[t->host].state = ROBOTS_NONE;
    else
      out[t->job].err = err;
    crawl->hosts[t->host].in_flight--;
    b.total_in_flight--;
    transfer_free(&b, t);
  }
  for (size_t i = 0; i < n; i++) {
    if (b.jobs[i].state != JOB_DONE && b.jobs[i].host < crawl->n_hosts)
      crawl->hosts[b.jobs[i].host].pinned--;
    free(b.jobs[i].url);
    free(b.jobs[i].path);
  }
  free(b.jobs);
  return err;
}
