/* A news story of four paragraphs, the content the single-page tests
 * build their pages around (tests/detect/test_single.c,
 * tests/detect/test_readings.c). Header-only, as wn_test.h. */
#ifndef WN_STORY_H
#define WN_STORY_H

static const char *const wn_test_story[] = {
    "The council voted on Tuesday to keep the old swimming baths open for another five years, "
    "after a campaign that gathered more than four thousand signatures in a single month.",
    "Engineers had warned that the roof needed repairs costing close to a million pounds, but "
    "a survey commissioned by the campaigners found that most of the timber was sound.",
    "The baths opened in 1912 and were the first in the county to admit women and men on the "
    "same days, a fact the campaign put on every leaflet it handed out at the market.",
    "Swimming clubs from three villages train there every evening, and the school next door "
    "has no other pool within an hour by bus, the head teacher told the meeting.",
};
#define WN_TEST_STORY_N (sizeof wn_test_story / sizeof *wn_test_story)

#endif /* WN_STORY_H */
