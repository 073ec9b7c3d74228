/*
 * winnow-demo-server: serves a directory on 127.0.0.1 (a free port) so
 * that scripts/demo can crawl the bundled demo site as a real one, with
 * robots.txt and HTTP, without any outside network. Prints the port on
 * stdout, then serves until stdin closes or a signal stops it.
 *
 * It is the test suite's server (tests/support/wn_httpd.c, libmicrohttpd);
 * not installed.
 *
 *   winnow-demo-server DIR
 */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "wn_httpd.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: winnow-demo-server DIR\n");
    return 2;
  }
  wn_httpd *srv = wn_httpd_start(argv[1]);
  if (!srv)
    return 1;
  printf("%u\n", (unsigned)wn_httpd_port(srv));
  fflush(stdout);
  /* Serve until stdin reaches its end (the script closes it) or a signal
   * ends the process. */
  char buf[256];
  while (read(STDIN_FILENO, buf, sizeof buf) > 0)
    ;
  wn_httpd_stop(srv);
  return 0;
}
