/*
 * serve/config_int.h: what the two files of the daemon's configuration
 * share: config.c (the YAML file, the sites, the configuration's life)
 * and config_keys.c (the table of keys, their values, printing). Not part
 * of serve.h.
 */
#ifndef WN_SERVE_CONFIG_INT_H
#define WN_SERVE_CONFIG_INT_H

#include "serve/serve.h"

/* Where a value came from, for messages. */
typedef struct wn_loc {
  const char *file; /* NULL: the command line */
  unsigned line;    /* 1-based; 0: none */
} wn_loc;

/* A message naming where the value came from and its key
 * ("winnow.yaml:12: listen.port: ..."); WN_EINVAL. */
__attribute__((format(printf, 4, 5))) wn_err wn_cfg_error(wn_diag *diag, const wn_loc *loc,
                                                          const char *key, const char *fmt,
                                                          ...);

/* Every key's default from the table, over the library's defaults cfg
 * holds already. */
wn_err wn_cfg_defaults(wn_serve_config *cfg, wn_diag *diag);
/* section.name = v, as the file or a flag says it; unknown sections and
 * keys are errors. */
wn_err wn_cfg_set_key(wn_serve_config *cfg, const char *section, const char *name,
                      const char *v, const wn_loc *loc, wn_diag *diag);
/* 1 for a section of the table or "sites". */
int wn_cfg_section_known(const char *name);
/* The sections, "store, listen, ..., sites", for messages, in list. */
const char *wn_cfg_sections(char *list, size_t size);
/* A site starts from the sections' values of every key a site may
 * override. */
void wn_cfg_site_defaults(const wn_serve_config *cfg, wn_serve_site *s);
/* One override of a site entry; a key a site may not set is an error
 * naming those it may. */
wn_err wn_cfg_site_set(wn_serve_site *s, const char *name, const char *v, const wn_loc *loc,
                       const char *key, wn_diag *diag);

#endif /* WN_SERVE_CONFIG_INT_H */
