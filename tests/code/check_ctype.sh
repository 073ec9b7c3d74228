#!/bin/sh
# One definition of each ASCII character class (src/util/util.h, as curl's
# curl_ctype.h): no other file of src/ tests for letters or digits by
# hand, with <ctype.h> (which follows the locale) or with the "| 0x20"
# trick. A line that needs a class of its own (hex digits, a URL's
# unreserved set) builds it from these.
# usage: check_ctype.sh SOURCE_DIR
set -eu
src=$1/src
pat="(>= '[aA0]' && [^&|]* <= '[zZ9]')|(\\| 0x20\\) >= 'a')|\\b(isspace|isalpha|isdigit|isalnum|isupper|islower|tolower|toupper)\\(|#include <ctype\\.h>"
found=$(grep -rnE "$pat" "$src" --include='*.c' --include='*.h' | grep -v "^$src/util/util.h:" || true)
if [ -n "$found" ]; then
  echo "character classes written by hand (use src/util/util.h's wn_ascii_*):" >&2
  printf '%s\n' "$found" >&2
  exit 1
fi
echo "character classes: one definition (src/util/util.h)"
