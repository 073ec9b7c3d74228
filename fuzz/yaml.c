/* The daemon's YAML configuration (wn_serve_config_load, libyaml): the
 * input as a config file. A config that loads is also overridden key by
 * key as command-line flags do. */
#include "fuzz.h"

#include <winnow/serve.h>
#include <winnow/winnow.h>

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *path = wn_fuzz_file(data, size);
  wn_diag diag = {{0}};
  wn_serve_config *cfg = NULL;
  if (wn_serve_config_load(path, &cfg, &diag) == WN_OK) {
    (void)wn_serve_config_set(cfg, "listen.port", "0", &diag);
    (void)wn_serve_config_set(cfg, "refresh.interval", "6h", &diag);
    wn_serve_config_free(cfg);
  } else if (!wn_diag_message(&diag, WN_EINVAL)[0]) {
    abort();
  }
  unlink(path);
  free(path);
  return 0;
}
