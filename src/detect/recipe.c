/*
 * detect/recipe.c: a recipe's ingredients and steps, as the page states
 * them in schema.org markup (part of WN_SINGLE_STEP_HTML5).
 *
 * On a recipe page the recipe is the content as much as the story around
 * it: its ingredients and its steps, set as lists or tables of short
 * lines. A single-page method reads runs of prose and leaves such lists
 * out (their lines are short; an ingredient linked to its shop page looks
 * like a menu). The page says what they are: schema.org's Recipe, which
 * search engines read for their recipe results, names every ingredient
 * and step, in JSON-LD (recipeIngredient, recipeInstructions) or as
 * microdata (itemprop on the elements themselves). Per group (the
 * ingredients, the steps) the page's elements are found: with microdata
 * the elements marked; with JSON-LD the elements whose text is a stated
 * string, white space aside, taken only when at least two and at least
 * half of the strings are found (the page shows the recipe it states).
 * The element holding them all (the table, when they are its rows) is
 * the group's box: kept whole, with the group labels and headings
 * between the parts ("For the dough:"), when the parts are at least half
 * of its text; else (it is the page, or a column with more in it) only
 * the parts are kept. No word list: the markup is the same in every
 * language.
 */
#include "detect/detect_int.h"
#include "detect/single_int.h"

#include <stdlib.h>
#include <string.h>

/* Bounds: parts read from JSON-LD, and the bytes of a part compared. */
#define WN_RECIPE_MAX_PARTS 256u
#define WN_RECIPE_MAX_LEN 4096u

/* s[0..len) without white space into out (size bytes); its length, or
 * size when it does not fit. */
static size_t wn_recipe_strip(const char *s, size_t len, char *out, size_t size) {
  size_t n = 0;
  for (size_t i = 0; i < len; i++) {
    if (wn_html_space((unsigned char)s[i]))
      continue;
    if (n == size)
      return size;
    out[n++] = s[i];
  }
  return n;
}

/* The text of element node without white space, as wn_recipe_strip. */
static size_t wn_recipe_node_text(const wn_dom_node *nodes, uint32_t node, char *out,
                                  size_t size) {
  size_t n = 0;
  for (uint32_t i = node; i < nodes[node].end; i++) {
    if (nodes[i].tag != WN_TAG_TEXT)
      continue;
    size_t k = wn_recipe_strip(nodes[i].text, nodes[i].own_text_len, out + n, size - n);
    if (k == size - n)
      return size;
    n += k;
  }
  return n;
}

static uint32_t wn_recipe_lca(const wn_dom_node *nodes, uint32_t a, uint32_t b) {
  if (a == WN_DOM_NONE)
    return b;
  while (a != b) {
    if (nodes[a].depth >= nodes[b].depth)
      a = nodes[a].parent;
    else
      b = nodes[b].parent;
  }
  return a;
}

/* Keeps group g's box, or its parts: found[i] == g + 1 marks the
 * group's elements. */
static void wn_recipe_keep_group(const wn_dom_node *nodes, uint32_t count, const uint8_t *found,
                                 int g, uint8_t *keep) {
  uint32_t box = WN_DOM_NONE;
  uint64_t parts = 0;
  for (uint32_t i = 0; i < count; i++)
    if (found[i] == g + 1) {
      box = wn_recipe_lca(nodes, box, i);
      parts += nodes[i].text_len;
      i = nodes[i].end - 1; /* an element inside a part is not counted again */
    }
  if (box == WN_DOM_NONE)
    return;
  /* Rows are parts of their table: its header row (a group label) too. */
  while ((nodes[box].tag == WN_TAG_TR || nodes[box].tag == WN_TAG_TBODY ||
          nodes[box].tag == WN_TAG_THEAD || nodes[box].tag == WN_TAG_TFOOT) &&
         nodes[box].parent != WN_DOM_NONE)
    box = nodes[box].parent;
  int whole = (uint64_t)nodes[box].text_len <= 2 * parts;
  for (uint32_t i = box; i < nodes[box].end; i++) {
    if (!whole && found[i] != g + 1)
      continue;
    for (uint32_t j = i; j < nodes[i].end; j++)
      if (nodes[j].tag == WN_TAG_TEXT && nodes[j].own_text_len > 0)
        keep[j] = 1;
    i = nodes[i].end - 1;
  }
}

/* The JSON-LD strings: the elements whose text is one of them. */
static wn_err wn_recipe_match(const wn_dom_page *page, const wn_detect_part *parts, uint32_t n,
                              void *vkeep) {
  uint8_t *keep = vkeep;
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  wn_err err = WN_OK;
  void *arr[5];
  void *block = wn_scratch_arrays(5,
                                  (const size_t[]){(size_t)n * WN_RECIPE_MAX_LEN,
                                                   (size_t)n * sizeof(size_t), n, WN_RECIPE_MAX_LEN,
                                                   (size_t)count + 1},
                                  0x16u, arr);
  char *want = arr[0];
  size_t *wlen = arr[1];
  uint8_t *hit = arr[2];
  char *text = arr[3];
  uint8_t *found = arr[4];
  if (!block) {
    err = WN_ENOMEM;
    goto out;
  }
  size_t lo = WN_RECIPE_MAX_LEN, hi = 0;
  for (uint32_t k = 0; k < n; k++) {
    wlen[k] = wn_recipe_strip(parts[k].text, parts[k].len, want + (size_t)k * WN_RECIPE_MAX_LEN,
                              WN_RECIPE_MAX_LEN);
    if (wlen[k] == 0 || wlen[k] == WN_RECIPE_MAX_LEN) {
      wlen[k] = 0; /* empty or too long: not looked for */
      continue;
    }
    lo = wlen[k] < lo ? wlen[k] : lo;
    hi = wlen[k] > hi ? wlen[k] : hi;
  }
  for (uint32_t i = 0; i < count && hi > 0; i++) {
    /* Collapsed text holds at least the stripped bytes; white space at
     * most doubles it between short words. */
    if (nodes[i].tag == WN_TAG_TEXT || nodes[i].text_len < lo || nodes[i].text_len > 2 * hi + 64)
      continue;
    size_t tl = wn_recipe_node_text(nodes, i, text, WN_RECIPE_MAX_LEN);
    for (uint32_t k = 0; k < n; k++)
      if (wlen[k] == tl && memcmp(want + (size_t)k * WN_RECIPE_MAX_LEN, text, tl) == 0) {
        hit[k] = 1;
        found[i] = (uint8_t)(parts[k].group + 1);
        break;
      }
  }
  for (int g = 0; g < 2; g++) {
    uint32_t stated = 0, shown = 0;
    for (uint32_t k = 0; k < n; k++)
      if (parts[k].group == g && wlen[k] > 0) {
        stated++;
        shown += hit[k];
      }
    if (shown >= 2 && 2 * shown >= stated)
      wn_recipe_keep_group(nodes, count, found, g, keep);
  }
out:
  wn_scratch_release(block);
  return err;
}

wn_err wn_single_recipe(const wn_dom_page *page, wn_detect_result *res) {
  uint32_t count = 0;
  const wn_dom_node *nodes = wn_dom_nodes(page, &count);
  /* Microdata first: the elements say what they are. */
  uint8_t *found = NULL;
  for (uint32_t i = 0; i < count; i++) {
    if (nodes[i].tag == WN_TAG_TEXT)
      continue;
    const char *prop = wn_dom_attr(page, &nodes[i], "itemprop");
    int g = 0;
    if (wn_html_has_token(prop, "recipeIngredient") || wn_html_has_token(prop, "ingredients"))
      g = 1;
    else if (wn_html_has_token(prop, "recipeInstructions"))
      g = 2;
    if (!g)
      continue;
    if (!found && !(found = calloc((size_t)count + 1, 1)))
      return WN_ENOMEM;
    found[i] = (uint8_t)g;
  }
  if (found) {
    for (int g = 0; g < 2; g++)
      wn_recipe_keep_group(nodes, count, found, g, res->keep);
    free(found);
    return WN_OK;
  }
  /* Else JSON-LD (rare: only a page whose JSON-LD names a Recipe is
   * parsed). */
  return wn_detect_jsonld_recipe(page, WN_RECIPE_MAX_PARTS, wn_recipe_match, res->keep);
}
