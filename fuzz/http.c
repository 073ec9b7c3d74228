/* The daemon's HTTP request handling (src/serve/server.c on
 * libmicrohttpd): a wn_server is started once on 127.0.0.1, port 0, over a
 * store holding one learned site; each input is sent as a raw request on
 * a loopback connection (then the write side is closed) and the answer
 * read. After each input the server must still answer GET /healthz with
 * 200: a request may fail, the daemon may not. Learning is not reachable
 * (no sites configured, allow_any_site off), so no input reaches out. */
#include "fuzz.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <errno.h>
#include <poll.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>

#include <winnow/serve.h>
#include <winnow/winnow.h>

static wn_server *srv;
static uint16_t port;

static int dial(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    abort();
  struct timeval tv = {.tv_sec = 5, .tv_usec = 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
  sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
    /* A signal (libFuzzer's timers) or the send timeout can interrupt a
     * blocking connect that then goes on by itself: wait for it to finish
     * (a 10-minute run beside builds once died of "Interrupted system
     * call" here, the server being fine). */
    int e = errno;
    if (e != EINTR && e != EINPROGRESS && e != EAGAIN) {
      perror("connect");
      abort();
    }
    struct pollfd pfd = {.fd = fd, .events = POLLOUT};
    int soerr = 0;
    socklen_t sl = sizeof soerr;
    int ready;
    do
      ready = poll(&pfd, 1, 5000);
    while (ready < 0 && errno == EINTR);
    if (ready <= 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0 || soerr != 0) {
      fprintf(stderr, "connect: %s\n", ready <= 0 ? "timed out" : strerror(soerr));
      abort();
    }
  }
  return fd;
}

/* 1 if buf holds a whole answer: its header and Content-Length bytes. */
static int answered(char *buf, size_t got) {
  buf[got] = '\0';
  const char *end = strstr(buf, "\r\n\r\n");
  if (!end)
    return 0;
  size_t head = (size_t)(end - buf) + 4;
  for (const char *p = buf; p && p < end; p = strstr(p, "\r\n")) {
    p += p == buf ? 0 : 2;
    if (strncasecmp(p, "Content-Length:", 15) == 0)
      return got >= head + strtoul(p + 15, NULL, 10);
    if (p == buf)
      p++;
  }
  return 0;
}

/* Sends req, closes the write side, reads the answer into buf (up to
 * size - 1 bytes kept, the rest drained), waiting first_ms for the first
 * byte. Returns the bytes kept. */
static size_t exchange(const void *req, size_t len, char *buf, size_t size, int first_ms) {
  int fd = dial();
  size_t off = 0;
  while (off < len) {
    ssize_t n = send(fd, (const char *)req + off, len - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break; /* the server may close early on a bad request */
    off += (size_t)n;
  }
  shutdown(fd, SHUT_WR);
  /* Read until the server closes, the answer is whole (Content-Length),
   * or the server pauses: libmicrohttpd holds a half-closed connection
   * (an incomplete request, a keep-alive one after its answer) until
   * listen.timeout, so waiting for the close would cost a second an input.
   * first_ms for the first byte (200 for an input), then 50 ms of
   * silence. A server that hangs is caught by the /healthz check after,
   * which waits 5 s: on a loaded machine (a 10-minute run beside builds)
   * 200 ms was once too short for it, a false "stopped answering". */
  size_t got = 0, total = 0;
  char sink[4096];
  for (;;) {
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    int ready = poll(&pfd, 1, total ? 50 : first_ms);
    if (ready < 0 && errno == EINTR)
      continue;
    if (ready <= 0)
      break;
    char *dst = got + 1 < size ? buf + got : sink;
    size_t room = got + 1 < size ? size - 1 - got : sizeof sink;
    ssize_t n = recv(fd, dst, room, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      break;
    total += (size_t)n;
    if (dst != sink)
      got += (size_t)n;
    if (dst != sink && answered(buf, got))
      break;
  }
  buf[got] = '\0';
  close(fd);
  return got;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  wn_diag diag = {{0}};
  if (wn_init())
    abort();
  const char *tmp = getenv("TMPDIR");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/wn-fuzz-http-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir))
    abort();
  char store_dir[4200];
  snprintf(store_dir, sizeof store_dir, "%s/store", dir);

  /* One learned site, so that /v1/detect and /v1/sites have a template. */
  wn_store *store = NULL;
  wn_learned *learned = wn_fuzz_learn_fixture("www.example.com");
  if (wn_store_open(store_dir, NULL, &store, &diag) || wn_site_save(store, learned, NULL, &diag))
    abort();
  wn_learned_free(learned);
  wn_store_close(store);

  wn_serve_config *cfg = NULL;
  if (wn_serve_config_load(NULL, &cfg, &diag) ||
      wn_serve_config_set(cfg, "store.path", store_dir, &diag) ||
      wn_serve_config_set(cfg, "listen.address", "127.0.0.1", &diag) ||
      wn_serve_config_set(cfg, "listen.port", "0", &diag) ||
      wn_serve_config_set(cfg, "listen.workers", "2", &diag) ||
      wn_serve_config_set(cfg, "listen.timeout", "1s", &diag) ||
      wn_serve_config_set(cfg, "log.level", "error", &diag)) {
    fprintf(stderr, "config: %s\n", wn_diag_message(&diag, WN_EINVAL));
    abort();
  }
  wn_err err = wn_server_start(cfg, &srv, &diag);
  wn_serve_config_free(cfg);
  if (err) {
    fprintf(stderr, "start: %s\n", wn_diag_message(&diag, err));
    abort();
  }
  port = wn_server_port(srv);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char buf[65536];
  struct timespec t0, t1, t2;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  (void)exchange(data, size, buf, sizeof buf, 200);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  static const char health[] = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  char ok[4096];
  (void)exchange(health, sizeof health - 1, ok, sizeof ok, 5000);
  clock_gettime(CLOCK_MONOTONIC, &t2);
  if (getenv("WN_FUZZ_TIMING")) /* where the time of an input goes */
    fprintf(stderr, "request %.3f s, health %.3f s\n",
            (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
            (double)(t2.tv_sec - t1.tv_sec) + (double)(t2.tv_nsec - t1.tv_nsec) / 1e9);
  if (strncmp(ok, "HTTP/1.1 200", 12) != 0) {
    fprintf(stderr, "the server stopped answering: '%.200s'\n", ok);
    abort();
  }
  return 0;
}
