#!/bin/sh
# Learning while detecting, measured: every page of each corpus (train and
# test), the sites interleaved in a seeded random order, written as one
# WARC (make-warc) and run through `winnow detect --store EMPTY --learn
# --warc`; its test pages are scored (winnow-eval --score-jsonl) beside
# learn-then-detect (winnow-eval: each site learned from its 5 train pages)
# and the single-page method alone (the same WARC, no store). Wall times of
# the two WARC runs are printed too (one thread unless --threads).
#
# usage: scripts/eval-learn.sh [--build DIR] [--out DIR] [--seed N] [--threads N] [CORPUS_ROOT]
#   --build DIR    build directory holding winnow, winnow-eval and make-warc (default: build)
#   --out DIR      where the laid-out corpora live (default: /tmp/winnow-corpora)
#   --seed N       the shuffle's seed (default 7)
#   --threads N    winnow detect --threads (default 1)
#   CORPUS_ROOT    folder with the corpus archives (default: ../shared/corpus)
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
build=$repo/build
out=/tmp/winnow-corpora
src=$repo/../shared/corpus
seed=7
threads=1

usage() {
  sed -n '10,15p' "$0" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
  case $1 in
    --build) [ $# -ge 2 ] || { usage >&2; exit 2; }; build=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || { usage >&2; exit 2; }; out=$2; shift 2 ;;
    --seed) [ $# -ge 2 ] || { usage >&2; exit 2; }; seed=$2; shift 2 ;;
    --threads) [ $# -ge 2 ] || { usage >&2; exit 2; }; threads=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "eval-learn.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) src=$1; shift ;;
  esac
done
case $seed in ''|*[!0-9]*) echo "eval-learn.sh: --seed is a number" >&2; exit 2 ;; esac

for bin in winnow winnow-eval make-warc; do
  if [ ! -x "$build/$bin" ]; then
    echo "eval-learn.sh: $build/$bin not found; build it first:" >&2
    echo "  cmake -S . -B $build && cmake --build $build" >&2
    exit 1
  fi
done
case $out in
  "$repo"|"$repo"/*)
    echo "eval-learn.sh: --out $out is inside the repository; lay the corpora out elsewhere" >&2
    exit 1 ;;
esac
if [ ! -d "$out/ctf" ] || [ ! -d "$out/cpe" ]; then
  echo "== laying out the corpora from $src into $out"
  python3 "$repo/tools/layout-corpora.py" "$src" "$out"
fi

scratch=$(mktemp -d "${TMPDIR:-/tmp}/wn-eval-learn-XXXXXX")
trap 'rm -rf "$scratch"' EXIT INT TERM

now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
f1_of() { sed -n '/test pages/{n;s/.*F1 \([0-9.]*\).*/\1/p;}' "$1"; }

printf '%-6s %8s %16s %12s %10s %10s\n' corpus --learn learn-then-detect single-page learn_s plain_s
for c in ctf cpe; do
  corpus=$out/$c
  mix=$scratch/$c
  mkdir -p "$mix"
  ln -s "$corpus/html" "$mix/html"
  ln -s "$corpus/gold" "$mix/gold"
  # The index in a seeded random order (make-warc writes pages in index order).
  { head -n 1 "$corpus/pages.tsv"
    awk -v seed="$seed" 'BEGIN { srand(seed) } NR > 1 { printf "%.12f\t%s\n", rand(), $0 }' \
      "$corpus/pages.tsv" | sort | cut -f 2-
  } > "$mix/pages.tsv"
  "$build/make-warc" "$mix" "$scratch/$c.warc.gz" 2>/dev/null

  t0=$(now)
  "$build/winnow" detect --store "$scratch/store-$c" --learn --threads "$threads" \
    --warc "$scratch/$c.warc.gz" > "$scratch/$c-learn.jsonl" 2> "$scratch/$c-learn.err"
  t1=$(now)
  "$build/winnow" detect --threads "$threads" --warc "$scratch/$c.warc.gz" \
    > "$scratch/$c-single.jsonl" 2> /dev/null
  t2=$(now)

  "$build/winnow-eval" --score-jsonl "$scratch/$c-learn.jsonl" "$corpus" > "$scratch/$c-learn.txt"
  "$build/winnow-eval" --score-jsonl "$scratch/$c-single.jsonl" "$corpus" > "$scratch/$c-single.txt"
  "$build/winnow-eval" --repeat 1 "$corpus" > "$scratch/$c-ltd.txt"
  ltd=$(sed -n '/^accuracy (macro/{n;s/.*F1 \([0-9.]*\).*/\1/p;}' "$scratch/$c-ltd.txt")
  printf '%-6s %8s %16s %12s %10s %10s\n' "$c" "$(f1_of "$scratch/$c-learn.txt")" "$ltd" \
    "$(f1_of "$scratch/$c-single.txt")" "$(secs "$t0" "$t1")" "$(secs "$t1" "$t2")"
  grep '^winnow: learning:' "$scratch/$c-learn.err" | sed 's/^/       /'
done
echo "(word F1 over each corpus's test pages; seed $seed, $threads thread(s))"
