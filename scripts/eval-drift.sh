#!/bin/sh
# Template drift on the crawl-to-the-future corpus, end to end
# through the winnow command line: for each site, a template learned from
# its pages of one year (the 5 train pages of SITE-FROM) serves
#   1. the rest of that year's pages: they should fit (method "template"),
#      and the site should not be reported drifting;
#   2. then all of its pages of a later year (SITE-TO), a redesign: they
#      should not fit (fallback "low confidence") and the site should be
#      reported drifting by `winnow sites`.
# Prints, per site, how many pages of each phase the template served and
# whether the site drifted after each phase, then totals.
#
# usage: scripts/eval-drift.sh [--build DIR] [--from YEAR] [--to YEAR]
#                            [--min-confidence X] CORPUS_DIR
#   --build DIR          build directory with winnow (default: build)
#   --from YEAR          year of the template (default 2000)
#   --to YEAR            year of the redesign (default 2015)
#   --min-confidence X   passed to winnow detect (default: winnow's)
#   CORPUS_DIR           crawl-to-the-future laid out by tools/layout-corpora.py
#                        (groups SITE-YEAR), e.g. /tmp/winnow-corpora/ctf
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
build=$repo/build
from=2000
to=2015
minconf=
corpus=

usage() {
  sed -n '13,21p' "$0" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
  case $1 in
    --build) [ $# -ge 2 ] || { usage >&2; exit 2; }; build=$2; shift 2 ;;
    --from) [ $# -ge 2 ] || { usage >&2; exit 2; }; from=$2; shift 2 ;;
    --to) [ $# -ge 2 ] || { usage >&2; exit 2; }; to=$2; shift 2 ;;
    --min-confidence) [ $# -ge 2 ] || { usage >&2; exit 2; }; minconf=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "eval-drift.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) corpus=$1; shift ;;
  esac
done
[ -n "$corpus" ] || { usage >&2; exit 2; }
winnow=$build/winnow
[ -x "$winnow" ] || { echo "eval-drift.sh: $winnow not found; build first" >&2; exit 1; }
[ -f "$corpus/pages.tsv" ] || { echo "eval-drift.sh: $corpus/pages.tsv not found" >&2; exit 1; }

work=$(mktemp -d /tmp/winnow-drift-XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
store=$work/store

# JSONL of a group's pages of one split ("test", "train" or "all").
jsonl() { # group split site
  # Strings are JSON-escaped (backslash, quote, tab, CR); values come in
  # through the environment, which awk (unlike -v) takes verbatim.
  WN_G=$1 WN_S=$2 WN_SITE=$3 WN_DIR=$corpus/html awk -F'\t' \
    'BEGIN { g = ENVIRON["WN_G"]; s = ENVIRON["WN_S"]; site = ENVIRON["WN_SITE"]; dir = ENVIRON["WN_DIR"] }
     function esc(x,   out, i, c) {
       out = ""
       for (i = 1; i <= length(x); i++) {
         c = substr(x, i, 1)
         if (c == "\\" || c == "\"") out = out "\\" c
         else if (c == "\t") out = out "\\t"
         else if (c == "\r") out = out "\\r"
         else out = out c
       }
       return out
     }
     NR > 1 && $1 == g && (s == "all" || $3 == s) {
       printf "{\"id\": \"%s\", \"site\": \"%s\", \"path\": \"%s/%s/%s.html\"}\n",
              esc($2), esc(site), esc(dir), esc(g), esc($2)
     }' "$corpus/pages.tsv"
}

# Count of lines of a JSONL output whose method is "template".
served() { grep -c '"method":"template"' "$1" || true; }
lines() { grep -c '' "$1" || true; }
# Lowest, median and highest match confidence in a JSONL output.
confs() {
  sed -n 's/.*"confidence":\([0-9.eE+-]*\).*/\1/p' "$1" | sort -g |
    awk '{ v[NR] = $1 } END { if (NR) printf "%.2f/%.2f/%.2f", v[1], v[int((NR + 1) / 2)], v[NR]; else printf "-" }'
}

printf '%-24s %14s %14s %9s %14s %14s %9s\n' site "$from served" "conf min/med/max" drifting \
  "$to served" "conf min/med/max" drifting
tot_a=0; tot_an=0; tot_b=0; tot_bn=0; ok_a=0; ok_b=0; sites=0
for g in $(awk -F'\t' -v y="-$from" 'NR > 1 && substr($1, length($1) - 4) == y { print $1 }' "$corpus/pages.tsv" | sort -u); do
  site=${g%-"$from"}
  later=$site-$to
  grep -q "^$later	" "$corpus/pages.tsv" || continue
  train=$(awk -F'\t' -v g="$g" -v dir="$corpus/html" 'NR > 1 && $1 == g && $3 == "train" { print dir "/" g "/" $2 ".html" }' "$corpus/pages.tsv" | sort)
  # shellcheck disable=SC2086
  "$winnow" learn --store "$store" --site "$site" $train >/dev/null
  jsonl "$g" test "$site" >"$work/a.jsonl"
  jsonl "$later" all "$site" >"$work/b.jsonl"
  "$winnow" detect --store "$store" --jsonl ${minconf:+--min-confidence "$minconf"} "$work/a.jsonl" >"$work/a.out" 2>/dev/null
  da=$("$winnow" sites --store "$store" "$site" | sed -n 's/.*drifting=\([a-z]*\).*/\1/p')
  "$winnow" detect --store "$store" --jsonl ${minconf:+--min-confidence "$minconf"} "$work/b.jsonl" >"$work/b.out" 2>/dev/null
  db=$("$winnow" sites --store "$store" "$site" | sed -n 's/.*drifting=\([a-z]*\).*/\1/p')
  a=$(served "$work/a.out"); an=$(lines "$work/a.out")
  b=$(served "$work/b.out"); bn=$(lines "$work/b.out")
  printf '%-24s %8s/%-5s %16s %9s %8s/%-5s %16s %9s\n' "$site" "$a" "$an" "$(confs "$work/a.out")" \
    "$da" "$b" "$bn" "$(confs "$work/b.out")" "$db"
  tot_a=$((tot_a + a)); tot_an=$((tot_an + an)); tot_b=$((tot_b + b)); tot_bn=$((tot_bn + bn))
  [ "$da" = no ] && ok_a=$((ok_a + 1))
  [ "$db" = yes ] && ok_b=$((ok_b + 1))
  sites=$((sites + 1))
done
echo
echo "$from pages served by their own template: $tot_a of $tot_an; sites not drifting after them: $ok_a of $sites"
echo "$to pages served by the $from template: $tot_b of $tot_bn (the rest by the fallback); sites reported drifting: $ok_b of $sites"
