#!/bin/sh
# Every accuracy figure a single-page or policy change is judged by, in one
# table (docs/evaluation.md, "The rule discipline"): the open web
# (trafilatura-dev snippets and CleanEval, all pages and each fold; WCXB
# dev overall and per page type, with its empty outputs, snippet rates,
# repeated lines and the page_type read against its labels), the
# single-page method alone on every page of both news corpora, and the
# template default on their test pages. The manuals are crawled by
# scripts/eval-docsites.sh (slower; run it for a change that can reach
# them).
#
# usage: scripts/eval-all.sh [--build DIR] [--out DIR] [--snippets DIR] [CORPUS_ROOT] [-- ARGS...]
#   --build DIR     build directory with winnow-eval and winnow-snippets (default: build)
#   --out DIR       laid-out corpora (default: /tmp/winnow-corpora; made by
#                   tools/layout-corpora.py when missing)
#   --snippets DIR  the unpacked trafilatura-dev corpus (default: OUT/trafilatura-dev,
#                   unpacked there when missing)
#   CORPUS_ROOT     folder with the corpus archives (default: ../shared/corpus)
#   after "--":     passed to the single-page runs (e.g. --steps 0x7f)
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
build=$repo/build
out=/tmp/winnow-corpora
src=$repo/../shared/corpus
snip=""
while [ $# -gt 0 ]; do
  case $1 in
    --build|--out|--snippets)
      [ $# -ge 2 ] || { echo "eval-all.sh: $1 needs a directory" >&2; exit 2; }
      case $1 in --build) build=$2 ;; --out) out=$2 ;; --snippets) snip=$2 ;; esac
      shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; break ;;
    -*) echo "eval-all.sh: unknown option $1" >&2; exit 2 ;;
    *) src=$1; shift ;;
  esac
done
[ -n "$snip" ] || snip=$out/trafilatura-dev
case $out in
  "$repo"|"$repo"/*) echo "eval-all.sh: --out $out is inside the repository" >&2; exit 1 ;;
esac
for t in winnow-eval winnow-snippets; do
  [ -x "$build/$t" ] || { echo "eval-all.sh: $build/$t not found; build it first" >&2; exit 1; }
done
if [ ! -d "$out/ctf" ] || [ ! -d "$out/cpe" ] || [ ! -d "$out/ce" ] ||
   { [ -f "$src/wcxb-dev.tar.xz" ] && [ ! -d "$out/wcxb" ]; }; then
  python3 "$repo/tools/layout-corpora.py" "$src" "$out" >/dev/null
fi
if [ ! -f "$snip/snippets.json" ]; then
  mkdir -p "$out"
  tar -xJf "$src/trafilatura-dev.tar.xz" -C "$out"
fi

# F1 of one winnow-eval run: the all-pages line for --method, else the test pages'.
f1() {
  "$build/winnow-eval" --repeat 1 "$@" 2>/dev/null |
    awk '/^accuracy/ { getline; for (i = 1; i <= NF; i++) if ($i == "F1") { print $(i + 1); exit } }'
}
sn() {
  "$build/winnow-snippets" --repeat 1 "$@" "$snip" 2>/dev/null |
    awk '$1 == "all" || $1 == "fold" { for (i = 1; i <= NF; i++) { if ($i == "F1") f = $(i + 1); if ($i == "empty") e = $(i + 1) }
         printf "%s%s", (n++ ? " " : ""), f } END { printf " (empty %s)\n", e }'
}
printf '%-44s %s\n' "trafilatura-dev snippets F1 all A B" "$(sn "$@")"
printf '%-44s %s %s %s\n' "CleanEval word F1 all A B" \
  "$(f1 --method danag "$@" "$out/ce")" "$(f1 --method danag --fold A "$@" "$out/ce")" \
  "$(f1 --method danag --fold B "$@" "$out/ce")"
if [ -d "$out/wcxb" ]; then
  "$build/winnow-eval" --method danag --repeat 1 "$@" "$out/wcxb" 2>/dev/null | awk '
    /^accuracy, all pages/ { getline; for (i = 1; i <= NF; i++) if ($i == "F1") all = $(i + 1) }
    $1 ~ /^(article|forum|product|collection|listing|documentation|service)$/ && NF >= 10 && !($1 in t) {
      t[$1] = $9; order[n++] = $1 }
    /^empty outputs/ { empty = $3 }
    /^outputs repeating/ { rep = $13; more = $14; gsub(/[(]/, "", more); more -= rep }
    /^snippets:/ { w = $7; wo = $13; gsub(/[(),]/, "", w); gsub(/[(),]/, "", wo) }
    /^page_type against/ { pt = $10; gsub(/[();]/, "", pt) }
    END {
      printf "%-44s %s", "WCXB dev word F1 all, per type", all
      for (k = 0; k < n; k++) printf " %s %s", substr(order[k], 1, 4), t[order[k]]
      printf "\n%-44s empty %s, repeating %s (+%s lines gold lacks), with %s, without %s, page_type %s\n",
        "WCXB dev outputs", empty, rep, more, w, wo, pt }'
fi
printf '%-44s %s\n' "crawl-to-the-future single-page, all pages" "$(f1 --method danag "$@" "$out/ctf")"
printf '%-44s %s\n' "CleanPortalEval single-page, all pages" "$(f1 --method danag "$@" "$out/cpe")"
printf '%-44s %s\n' "crawl-to-the-future template default, test" "$(f1 "$out/ctf")"
printf '%-44s %s\n' "CleanPortalEval template default, test" "$(f1 "$out/cpe")"
