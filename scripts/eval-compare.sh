#!/bin/sh
# The learning methods side by side on one laid-out corpus: ETDM
# with the cue selector, ETDM with content places (the default), FastCE; for
# each, word F1 on all test pages and on each half of the sites (winnow-eval
# --fold A|B: constants are chosen on one half and reported on the other),
# detection speed against a bare libxml2 parse, the median template size
# and the learning compute per group. One winnow-eval run per cell.
#
# usage: scripts/eval-compare.sh [--build DIR] [--repeat N] CORPUS_DIR...
#   --build DIR   build directory holding winnow-eval (default: build)
#   --repeat N    timing loops, the best counts (default 3)
#   CORPUS_DIR    a corpus laid out by scripts/eval.sh, e.g. /tmp/winnow-corpora/ctf
#
# Prints one Markdown table per corpus.
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
build=$repo/build
repeat=3
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --repeat) repeat=$2; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "eval-compare.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { echo "usage: scripts/eval-compare.sh [--build DIR] [--repeat N] CORPUS_DIR..." >&2; exit 2; }
ev=$build/winnow-eval
[ -x "$ev" ] || { echo "eval-compare.sh: $ev not found; build first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for corpus in "$@"; do
  echo "### $(basename "$corpus") ($corpus)"
  echo
  echo "| method | F1 all | F1 fold A | F1 fold B | detect pages/s | parse pages/s | detect/parse time | template bytes (median) | learn ms per group |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for m in "etdm cues" "etdm places" "fastce cues"; do
    set -- $m
    algo=$1 sel=$2
    name="$algo"
    [ "$algo" = etdm ] && name="etdm, selector $sel"
    [ "$algo" = etdm ] && [ "$sel" = places ] && name="etdm, selector places (default)"
    "$ev" --algo "$algo" --selector "$sel" --repeat "$repeat" --json "$corpus" >"$tmp/all.json"
    "$ev" --algo "$algo" --selector "$sel" --repeat 1 --fold A --json "$corpus" >"$tmp/a.json"
    "$ev" --algo "$algo" --selector "$sel" --repeat 1 --fold B --json "$corpus" >"$tmp/b.json"
    python3 - "$name" "$tmp/all.json" "$tmp/a.json" "$tmp/b.json" <<'EOF'
import json, sys
name, fa, fA, fB = sys.argv[1:5]
a, A, B = (json.load(open(f)) for f in (fa, fA, fB))
t = a["throughput"]
print("| %s | %.4f | %.4f | %.4f | %.0f | %.0f | %.2fx | %d | %.1f |" % (
    name, a["accuracy"]["f1"], A["accuracy"]["f1"], B["accuracy"]["f1"],
    t["detect"]["pages_per_second"], t["parse"]["pages_per_second"],
    t["detect_over_parse_time_per_byte"], a["template"]["median_bytes"],
    a["learn"]["ms_per_group"]))
EOF
  done
  echo
done
