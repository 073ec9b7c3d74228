#!/bin/sh
# The library's layers, read from its object files (docs/design.md,
# "Layout"): util -> dom, fetch, store -> template, warc -> detect ->
# learn -> site -> serve -> cli. A file may call into its own module and
# the modules below it, never above (nothing calls back up), and no two
# files call each other, directly or round a circle (tsort finds it).
# Calls are the wn_* symbols a file leaves undefined and another defines
# (nm), so a call hidden behind a header or a macro counts too.
# usage: check_layers.sh OBJECT...   (the objects of src/<module>/*.c)
set -eu
export LC_ALL=C
[ $# -gt 0 ] || { echo "usage: check_layers.sh OBJECT..." >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for o in "$@"; do
  # src/<module>/<file>.c.o (CMake's object names) -> module/file
  f=$(printf '%s\n' "$o" | sed -n 's|.*/src/\([a-z_]*\)/\([a-z_0-9]*\)\.c\.o$|\1/\2|p')
  [ -n "$f" ] || { echo "check_layers: $o: not an object of src/<module>/<file>.c" >&2; exit 2; }
  nm -P "$o" | awk -v f="$f" '$1 ~ /^wn_/ && $2 ~ /^[TDBR]$/ { print $1, f >> "'"$tmp"'/defs" }
                             $1 ~ /^wn_/ && $2 == "U" { print $1, f >> "'"$tmp"'/uses" }'
done
touch "$tmp/defs" "$tmp/uses"
sort -u "$tmp/defs" > "$tmp/defs.s"
sort -u "$tmp/uses" > "$tmp/uses.s"
# user file -> defining file, once per pair
join "$tmp/uses.s" "$tmp/defs.s" | awk '$2 != $3 { print $2, $3 }' | sort -u > "$tmp/edges"
if [ ! -s "$tmp/edges" ]; then
  echo "check_layers: no call between the $# objects given: not the library's objects?" >&2
  exit 2
fi
bad=$(awk '
  BEGIN { split("util:0 dom:1 fetch:1 store:1 template:2 warc:2 detect:3 learn:4 site:5 serve:6 cli:7", l, " ")
          for (i in l) { split(l[i], kv, ":"); layer[kv[1]] = kv[2] } }
  { split($1, a, "/"); split($2, b, "/")
    if (!(a[1] in layer) || !(b[1] in layer)) { print $1 " -> " $2 " (a module of no layer)"; next }
    if (layer[b[1]] > layer[a[1]]) print $1 " -> " $2 " (" a[1] " calls up into " b[1] ")" }
' "$tmp/edges")
if [ -n "$bad" ]; then
  echo "calls against the layers:" >&2
  printf '%s\n' "$bad" >&2
  exit 1
fi
if ! tsort "$tmp/edges" > /dev/null 2> "$tmp/loop"; then
  echo "files that call each other round a circle:" >&2
  cat "$tmp/loop" >&2
  exit 1
fi
echo "layers: $(wc -l < "$tmp/edges") calls between $# files, none up, no circle"
