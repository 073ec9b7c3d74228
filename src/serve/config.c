/*
 * serve/config.c: the daemon's configuration, from YAML (libyaml's document
 * API) or from its defaults, with overrides from the command line.
 *
 * Every value is parsed by the same function whether it comes from the
 * file or from a flag ("listen.port" = "9000"), so both accept the same
 * forms and give the same messages. A message names the file, the line
 * and the key: "winnow.yaml:12: listen.port: 70000 is not a port (0 to
 * 65535)". Unknown keys are errors, not ignored: a misspelt key silently
 * left at its default is the mistake an operator finds last.
 *
 * Per-site overrides are kept as written and merged over the learning
 * defaults at the end (wn_config_finish), so the order of the sections in
 * the file does not matter and a flag that changes a default reaches every
 * site that does not override it.
 */
#include "serve/config_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#define WN_SITE_MAX_OVERRIDES 16u

/* What a site entry said, kept raw until the defaults are known. */
typedef struct wn_site_raw {
  char *key[WN_SITE_MAX_OVERRIDES];
  char *value[WN_SITE_MAX_OVERRIDES];
  unsigned line[WN_SITE_MAX_OVERRIDES];
  size_t n;
} wn_site_raw;

/* ---- the configuration ------------------------------------------------------------ */

/* The library's defaults, then the table's. */
static wn_err wn_config_defaults(wn_serve_config *cfg, wn_diag *diag) {
  memset(cfg, 0, sizeof *cfg);
  wn_crawl_options_init(&cfg->crawl);
  wn_learn_options_init(&cfg->learn);
  wn_detector_options_init(&cfg->detector);
  return wn_cfg_defaults(cfg, diag);
}

static void wn_site_raw_free(wn_site_raw *raw) {
  if (!raw)
    return;
  for (size_t i = 0; i < raw->n; i++) {
    free(raw->key[i]);
    free(raw->value[i]);
  }
  free(raw);
}

void wn_serve_config_free(wn_serve_config *cfg) {
  if (!cfg)
    return;
  for (size_t i = 0; i < cfg->n_sites; i++) {
    free(cfg->sites[i].url);
    wn_site_raw_free(cfg->sites[i].raw);
  }
  free(cfg->sites);
  free(cfg->path);
  free(cfg->store_path);
  free(cfg->address);
  free(cfg->token);
  free(cfg->user_agent);
  free(cfg);
}

/* Merges each site's overrides over the section's values and checks what
 * depends on more than one key. */
static wn_err wn_config_finish(wn_serve_config *cfg, wn_diag *diag) {
  wn_loc loc = {cfg->path, 0};
  if (cfg->retry_min_ms > cfg->retry_max_ms)
    return wn_cfg_error(diag, &loc, "refresh.retry_min", "is longer than refresh.retry_max");
  cfg->crawl.user_agent = cfg->user_agent;
  for (size_t i = 0; i < cfg->n_sites; i++) {
    wn_serve_site *s = &cfg->sites[i];
    wn_cfg_site_defaults(cfg, s);
    wn_site_raw *raw = s->raw;
    for (size_t r = 0; raw && r < raw->n; r++) {
      wn_loc kl = {cfg->path, raw->line[r]};
      char key[160];
      snprintf(key, sizeof key, "sites[%zu].%s", i, raw->key[r]);
      const char *name = raw->key[r];
      if (strcmp(name, "url") == 0 || strcmp(name, "site") == 0)
        continue;
      wn_err err = wn_cfg_site_set(s, name, raw->value[r], &kl, key, diag);
      if (err)
        return err;
    }
  }
  return WN_OK;
}

/* Adds one site from its raw pairs (taken over). */
static wn_err wn_config_add_site(wn_serve_config *cfg, wn_site_raw *raw, unsigned line,
                                 wn_diag *diag) {
  wn_err err = WN_OK;
  char key[64];
  snprintf(key, sizeof key, "sites[%zu]", cfg->n_sites);
  wn_loc loc = {cfg->path, line};
  const char *url = NULL, *site = NULL;
  for (size_t k = 0; k < raw->n; k++) {
    if (strcmp(raw->key[k], "url") == 0)
      url = raw->value[k];
    else if (strcmp(raw->key[k], "site") == 0)
      site = raw->value[k];
  }
  if (cfg->n_sites >= WN_SERVE_MAX_SITES) {
    err = wn_cfg_error(diag, &loc, key, "more than %u sites", WN_SERVE_MAX_SITES);
    goto out;
  }
  if (!url) {
    err = wn_cfg_error(diag, &loc, key, "has no url (the key page to learn the site from)");
    goto out;
  }
  wn_serve_site s;
  memset(&s, 0, sizeof s);
  s.line = line;
  wn_diag inner;
  wn_diag_clear(&inner);
  wn_err e = site ? wn_site_check(site, &inner)
                  : wn_site_from_url(url, s.site, sizeof s.site, &inner);
  if (e) {
    err = wn_cfg_error(diag, &loc, key, "%s", wn_diag_message(&inner, e));
    goto out;
  }
  if (site) {
    /* The URL must still be one we can crawl. */
    char url_site[WN_SITE_MAX + 1];
    if ((e = wn_site_from_url(url, url_site, sizeof url_site, &inner))) {
      err = wn_cfg_error(diag, &loc, key, "%s", wn_diag_message(&inner, e));
      goto out;
    }
    snprintf(s.site, sizeof s.site, "%s", site);
  }
  if (wn_serve_config_site(cfg, s.site)) {
    err = wn_cfg_error(diag, &loc, key, "site %s is configured twice", s.site);
    goto out;
  }
  if (!(s.url = strdup(url))) {
    err = wn_diag_set(diag, WN_ENOMEM, "config: out of memory");
    goto out;
  }
  wn_serve_site *grown = realloc(cfg->sites, (cfg->n_sites + 1) * sizeof *grown);
  if (!grown) {
    free(s.url);
    err = wn_diag_set(diag, WN_ENOMEM, "config: out of memory");
    goto out;
  }
  cfg->sites = grown;
  s.raw = raw;
  raw = NULL;
  cfg->sites[cfg->n_sites++] = s;
out:
  wn_site_raw_free(raw);
  return err;
}

const wn_serve_site *wn_serve_config_site(const wn_serve_config *cfg, const char *site) {
  for (size_t i = 0; cfg && site && i < cfg->n_sites; i++)
    if (strcmp(cfg->sites[i].site, site) == 0)
      return &cfg->sites[i];
  return NULL;
}

static unsigned wn_line(const yaml_node_t *node) { return (unsigned)node->start_mark.line + 1; }

static const char *wn_scalar(const yaml_node_t *node) {
  return node && node->type == YAML_SCALAR_NODE ? (const char *)node->data.scalar.value : NULL;
}

static wn_err wn_config_sites(wn_serve_config *cfg, yaml_document_t *doc, yaml_node_t *seq,
                              wn_diag *diag) {
  wn_loc loc = {cfg->path, wn_line(seq)};
  if (seq->type == YAML_SCALAR_NODE && !*wn_scalar(seq))
    return WN_OK; /* "sites:" with nothing */
  if (seq->type != YAML_SEQUENCE_NODE)
    return wn_cfg_error(diag, &loc, "sites", "must be a list of sites (- url: ...)");
  for (yaml_node_item_t *it = seq->data.sequence.items.start; it < seq->data.sequence.items.top;
       it++) {
    yaml_node_t *entry = yaml_document_get_node(doc, *it);
    if (!entry)
      continue;
    wn_loc el = {cfg->path, wn_line(entry)};
    char key[64];
    snprintf(key, sizeof key, "sites[%zu]", cfg->n_sites);
    wn_site_raw *raw = calloc(1, sizeof *raw);
    if (!raw)
      return wn_diag_set(diag, WN_ENOMEM, "config: out of memory");
    if (entry->type == YAML_SCALAR_NODE) {
      /* "- https://example.com/key-page.html": a site by its URL alone. */
      raw->key[0] = strdup("url");
      raw->value[0] = strdup(wn_scalar(entry));
      raw->line[0] = wn_line(entry);
      raw->n = 1;
      if (!raw->key[0] || !raw->value[0]) {
        wn_site_raw_free(raw);
        return wn_diag_set(diag, WN_ENOMEM, "config: out of memory");
      }
    } else if (entry->type == YAML_MAPPING_NODE) {
      for (yaml_node_pair_t *p = entry->data.mapping.pairs.start;
           p < entry->data.mapping.pairs.top; p++) {
        yaml_node_t *k = yaml_document_get_node(doc, p->key);
        yaml_node_t *v = yaml_document_get_node(doc, p->value);
        const char *ks = wn_scalar(k), *vs = wn_scalar(v);
        if (!ks || !vs) {
          wn_loc pl = {cfg->path, k ? wn_line(k) : el.line};
          wn_site_raw_free(raw);
          return wn_cfg_error(diag, &pl, key, "%s must be a plain value",
                              ks ? ks : "every key");
        }
        for (size_t j = 0; j < raw->n; j++) {
          if (strcmp(raw->key[j], ks) == 0) {
            wn_loc pl = {cfg->path, wn_line(k)};
            wn_site_raw_free(raw);
            return wn_cfg_error(diag, &pl, key, "%s is given twice", ks);
          }
        }
        if (raw->n >= WN_SITE_MAX_OVERRIDES) {
          wn_site_raw_free(raw);
          return wn_cfg_error(diag, &el, key, "has too many keys");
        }
        raw->key[raw->n] = strdup(ks);
        raw->value[raw->n] = strdup(vs);
        raw->line[raw->n] = wn_line(k);
        raw->n++;
        if (!raw->key[raw->n - 1] || !raw->value[raw->n - 1]) {
          wn_site_raw_free(raw);
          return wn_diag_set(diag, WN_ENOMEM, "config: out of memory");
        }
      }
    } else {
      wn_site_raw_free(raw);
      return wn_cfg_error(diag, &el, key, "must be a URL or a mapping with url:");
    }
    wn_err err = wn_config_add_site(cfg, raw, el.line, diag);
    if (err)
      return err;
  }
  (void)loc;
  return WN_OK;
}

static wn_err wn_config_document(wn_serve_config *cfg, yaml_document_t *doc, wn_diag *diag) {
  yaml_node_t *root = yaml_document_get_root_node(doc);
  wn_loc loc = {cfg->path, 1};
  if (!root)
    return WN_OK; /* an empty file: the defaults */
  if (root->type != YAML_MAPPING_NODE) {
    loc.line = wn_line(root);
    return wn_cfg_error(diag, &loc, "(top)", "must be a mapping of sections");
  }
  for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top;
       p++) {
    yaml_node_t *k = yaml_document_get_node(doc, p->key);
    yaml_node_t *v = yaml_document_get_node(doc, p->value);
    const char *section = wn_scalar(k);
    loc.line = k ? wn_line(k) : 1;
    if (!section || !v)
      return wn_cfg_error(diag, &loc, "(top)", "section names must be plain words");
    for (yaml_node_pair_t *q = root->data.mapping.pairs.start; q < p; q++) {
      const char *prev = wn_scalar(yaml_document_get_node(doc, q->key));
      if (prev && strcmp(prev, section) == 0)
        return wn_cfg_error(diag, &loc, section, "section is given twice");
    }
    wn_err err;
    if (!wn_cfg_section_known(section)) {
      char list[256];
      return wn_cfg_error(diag, &loc, section, "unknown section (%s)",
                          wn_cfg_sections(list, sizeof list));
    }
    if (strcmp(section, "sites") == 0) {
      if ((err = wn_config_sites(cfg, doc, v, diag)))
        return err;
      continue;
    }
    if (v->type == YAML_SCALAR_NODE && !*wn_scalar(v))
      continue; /* "crawler:" with nothing under it */
    if (v->type != YAML_MAPPING_NODE) {
      return wn_cfg_error(diag, &loc, section, "must be a mapping of keys");
    }
    for (yaml_node_pair_t *q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top; q++) {
      yaml_node_t *qk = yaml_document_get_node(doc, q->key);
      yaml_node_t *qv = yaml_document_get_node(doc, q->value);
      const char *name = wn_scalar(qk), *value = wn_scalar(qv);
      wn_loc kl = {cfg->path, qk ? wn_line(qk) : loc.line};
      if (!name)
        return wn_cfg_error(diag, &kl, section, "keys must be plain words");
      for (yaml_node_pair_t *r = v->data.mapping.pairs.start; r < q; r++) {
        const char *prev = wn_scalar(yaml_document_get_node(doc, r->key));
        if (prev && strcmp(prev, name) == 0) {
          char key[160];
          snprintf(key, sizeof key, "%s.%s", section, name);
          return wn_cfg_error(diag, &kl, key, "is given twice");
        }
      }
      if (!value) {
        char key[160];
        snprintf(key, sizeof key, "%s.%s", section, name);
        return wn_cfg_error(diag, &kl, key, "must be a plain value, not a list or mapping");
      }
      if ((err = wn_cfg_set_key(cfg, section, name, value, &kl, diag)))
        return err;
    }
  }
  return WN_OK;
}

wn_err wn_serve_config_load(const char *path, wn_serve_config **out, wn_diag *diag) {
  wn_err err = WN_OK;
  char *bytes = NULL;
  size_t len = 0;
  yaml_parser_t parser;
  yaml_document_t doc;
  int parser_ready = 0, doc_ready = 0;

  if (!out)
    return wn_diag_set(diag, WN_EINVAL, "config: load needs somewhere to put the config");
  *out = NULL;
  wn_serve_config *cfg = malloc(sizeof *cfg);
  if (!cfg)
    return wn_diag_set(diag, WN_ENOMEM, "config: out of memory");
  if ((err = wn_config_defaults(cfg, diag)))
    goto out;
  if (!path)
    goto finish;
  if (!(cfg->path = strdup(path))) {
    err = wn_diag_set(diag, WN_ENOMEM, "config: out of memory");
    goto out;
  }
  wn_diag inner;
  wn_diag_clear(&inner);
  if ((err = wn_file_read(path, WN_SERVE_MAX_CONFIG_BYTES, &bytes, &len, &inner))) {
    err = wn_diag_set(diag, err == WN_ETOOBIG ? WN_EINVAL : err, "config: %s",
                      wn_diag_message(&inner, err));
    goto out;
  }
  if (!yaml_parser_initialize(&parser)) {
    err = wn_diag_set(diag, WN_ENOMEM, "config: out of memory");
    goto out;
  }
  parser_ready = 1;
  yaml_parser_set_input_string(&parser, (const unsigned char *)bytes, len);
  if (!yaml_parser_load(&parser, &doc)) {
    err = wn_diag_set(diag, WN_EINVAL, "%s:%zu: %s%s%s", path, parser.problem_mark.line + 1,
                      parser.problem ? parser.problem : "not valid YAML",
                      parser.context ? " " : "", parser.context ? parser.context : "");
    goto out;
  }
  doc_ready = 1;
  if ((err = wn_config_document(cfg, &doc, diag)))
    goto out;
finish:
  if ((err = wn_config_finish(cfg, diag)))
    goto out;
  *out = cfg;
  cfg = NULL;
out:
  if (doc_ready)
    yaml_document_delete(&doc);
  if (parser_ready)
    yaml_parser_delete(&parser);
  free(bytes);
  wn_serve_config_free(cfg);
  return err;
}

wn_err wn_serve_config_set(wn_serve_config *cfg, const char *key, const char *value,
                           wn_diag *diag) {
  if (!cfg || !key || !value)
    return wn_diag_set(diag, WN_EINVAL, "config: set needs a config, a key and a value");
  const char *dot = strchr(key, '.');
  if (!dot || dot == key || !dot[1] || strlen(key) >= 128)
    return wn_cfg_error(diag, NULL, key, "is not a key (section.name, e.g. listen.port)");
  char section[128];
  memcpy(section, key, (size_t)(dot - key));
  section[dot - key] = '\0';
  if (strcmp(section, "sites") == 0)
    return wn_cfg_error(diag, NULL, key, "sites are set in the config file only");
  wn_err err = wn_cfg_set_key(cfg, section, dot + 1, value, NULL, diag);
  if (err)
    return err;
  return wn_config_finish(cfg, diag);
}

static char *wn_dup_or_null(const char *s, int *oom) {
  if (!s)
    return NULL;
  char *c = strdup(s);
  if (!c)
    *oom = 1;
  return c;
}

wn_serve_config *wn_serve_config_copy(const wn_serve_config *src) {
  if (!src)
    return NULL;
  wn_serve_config *cfg = malloc(sizeof *cfg);
  if (!cfg)
    return NULL;
  *cfg = *src;
  int oom = 0;
  cfg->path = wn_dup_or_null(src->path, &oom);
  cfg->store_path = wn_dup_or_null(src->store_path, &oom);
  cfg->address = wn_dup_or_null(src->address, &oom);
  cfg->token = wn_dup_or_null(src->token, &oom);
  cfg->user_agent = wn_dup_or_null(src->user_agent, &oom);
  cfg->crawl.user_agent = cfg->user_agent;
  cfg->sites = NULL;
  cfg->n_sites = 0;
  if (src->n_sites) {
    cfg->sites = calloc(src->n_sites, sizeof *cfg->sites);
    if (!cfg->sites) {
      oom = 1;
    } else {
      for (size_t i = 0; i < src->n_sites; i++) {
        cfg->sites[i] = src->sites[i];
        cfg->sites[i].raw = NULL; /* the copy is finished: overrides merged */
        cfg->sites[i].url = wn_dup_or_null(src->sites[i].url, &oom);
        cfg->n_sites = i + 1;
      }
    }
  }
  if (oom) {
    wn_serve_config_free(cfg);
    return NULL;
  }
  return cfg;
}
