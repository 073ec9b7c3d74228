/*
 * detect/single_prose.c: how much running text a reading kept, the
 * measure the retry chain (single.c) and the combination of two readings
 * (combine.c) both judge by.
 */
#include "detect/single_int.h"

/* Prose: the text of paragraphs (<p>) that is not link text, in bytes,
 * of the whole page (*page_prose) and of what keep keeps (*kept_prose).
 * A paragraph is the one markup every language and every site uses for
 * running text, so its share tells how much of a page's running text a
 * method kept, with no word list. */
void wn_single_prose(const wn_dom_node *nodes, uint32_t count, const uint8_t *keep,
                     const uint8_t *mask, uint8_t *in_p, uint64_t *page_prose,
                     uint64_t *kept_prose) {
  *page_prose = *kept_prose = 0;
  for (uint32_t i = 0; i < count; i++) {
    uint32_t p = nodes[i].parent;
    in_p[i] = nodes[i].tag == WN_TAG_P || (p != WN_DOM_NONE && in_p[p]);
    if (nodes[i].tag == WN_TAG_TEXT && in_p[i] && !(nodes[i].flags & WN_DOM_IN_LINK) &&
        !(mask && mask[i])) {
      *page_prose += nodes[i].own_text_len;
      if (keep[i])
        *kept_prose += nodes[i].own_text_len;
    }
  }
}
