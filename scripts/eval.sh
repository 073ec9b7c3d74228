#!/bin/sh
# Evaluates winnow on the shared corpora with the protocol of
# ../shared/corpus/README.md: lays the corpora out (once) outside the
# project tree with tools/layout-corpora.py, then runs winnow-eval on each.
#
# usage: scripts/eval.sh [--build DIR] [--out DIR] [CORPUS_ROOT] [-- WINNOW_EVAL_ARGS...]
#   --build DIR    build directory holding winnow-eval (default: build in the repository)
#   --out DIR      where the laid-out corpora live (default: /tmp/winnow-corpora)
#   CORPUS_ROOT    folder with the corpus archives (default: ../shared/corpus
#                  relative to the repository)
#   after "--":    passed to winnow-eval (e.g. --selector paper --per-page --json,
#                  or --method danag for a single-page method on every page)
#
# The layout is made only when OUT/ctf or OUT/cpe is missing; remove OUT to
# redo it.
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
build=$repo/build
out=/tmp/winnow-corpora
src=$repo/../shared/corpus

usage() {
  sed -n '6,13p' "$0" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
  case $1 in
    --build) [ $# -ge 2 ] || { usage >&2; exit 2; }; build=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || { usage >&2; exit 2; }; out=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    -*) echo "eval.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) src=$1; shift ;;
  esac
done

eval_bin=$build/winnow-eval
if [ ! -x "$eval_bin" ]; then
  echo "eval.sh: $eval_bin not found; build it first:" >&2
  echo "  cmake -S . -B $build && cmake --build $build --target winnow-eval" >&2
  exit 1
fi

case $out in
  "$repo"|"$repo"/*)
    echo "eval.sh: --out $out is inside the repository; lay the corpora out elsewhere" >&2
    exit 1 ;;
esac

if [ ! -d "$out/ctf" ] || [ ! -d "$out/cpe" ]; then
  if [ -d "$out/ctf" ] || [ -d "$out/cpe" ]; then
    echo "eval.sh: $out holds only one corpus; remove it to lay both out again" >&2
    exit 1
  fi
  echo "== laying out the corpora from $src into $out"
  python3 "$repo/tools/layout-corpora.py" "$src" "$out"
  echo
fi

status=0
for corpus in ctf cpe; do
  case $corpus in
    ctf) title="crawl-to-the-future" ;;
    cpe) title="CleanPortalEval" ;;
  esac
  echo "== $title ($out/$corpus)"
  "$eval_bin" "$@" "$out/$corpus" || status=1
  echo
done
exit $status
