#!/bin/sh
# Mozilla's Readability.js (the single-page extractor of Firefox's reader
# view) on a laid-out corpus, scored with the corpus protocol, beside
# winnow's single-page fallback (DANAg) on the same pages: the "best
# single-page extractor" the fallback is measured against.
#
# usage: scripts/compare-readability.sh [--build DIR] [--work DIR] CORPUS_DIR...
#   --build DIR   build directory holding winnow-eval (default: build)
#   --work DIR    where Readability.js and its outputs go, outside the
#                 repository (default: /tmp/winnow-readability)
#   CORPUS_DIR    a corpus laid out by scripts/eval.sh, e.g. /tmp/winnow-corpora/ctf
#
# Needs node and npm (Debian: nodejs, npm) and the npm registry: the
# packages @mozilla/readability and jsdom are installed into WORK, never
# into the repository; nothing of winnow depends on them. Readability's
# output is its article title, a newline, then its textContent.
# Prints, per corpus: Readability.js and DANAg, word F1 over all pages and
# over the template method's test pages, and the pages where each is
# ahead by more than 0.2.
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
build=$repo/build
work=/tmp/winnow-readability
while [ $# -gt 0 ]; do
  case $1 in
    --build) build=$2; shift 2 ;;
    --work) work=$2; shift 2 ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "compare-readability.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
[ $# -ge 1 ] || { echo "usage: scripts/compare-readability.sh [--build DIR] [--work DIR] CORPUS_DIR..." >&2; exit 2; }
case $work in
  "$repo"|"$repo"/*) echo "compare-readability.sh: --work must be outside the repository" >&2; exit 2 ;;
esac
command -v node >/dev/null && command -v npm >/dev/null ||
  { echo "compare-readability.sh: needs node and npm (apt-get install nodejs npm)" >&2; exit 1; }
[ -x "$build/winnow-eval" ] || { echo "compare-readability.sh: $build/winnow-eval not found; build first" >&2; exit 1; }

mkdir -p "$work"
if [ ! -d "$work/node_modules/@mozilla/readability" ] || [ ! -d "$work/node_modules/jsdom" ]; then
  (cd "$work" && { [ -f package.json ] || npm init -y >/dev/null; } &&
    npm install --no-audit --no-fund @mozilla/readability jsdom >/dev/null)
fi
cat >"$work/run.js" <<'EOF'
// node run.js CORPUS OUT FROM TO: Readability.js on pages [FROM, TO) of pages.tsv
const fs = require('fs'), path = require('path');
const { JSDOM, VirtualConsole } = require('jsdom');
const { Readability } = require('@mozilla/readability');
const [corpus, out, from, to] = process.argv.slice(2);
const rows = fs.readFileSync(path.join(corpus, 'pages.tsv'), 'utf8').trim().split('\n')
  .slice(1).map(l => l.split('\t')).slice(+from, +to);
const quiet = new VirtualConsole();
for (const [g, id] of rows) {
  const f = path.join(out, g, id + '.txt');
  if (fs.existsSync(f)) continue;
  let text = '';
  try {
    const dom = new JSDOM(fs.readFileSync(path.join(corpus, 'html', g, id + '.html')),
                          { virtualConsole: quiet });
    const art = new Readability(dom.window.document).parse();
    text = art ? (art.title ? art.title + '\n' : '') + (art.textContent || '') : '';
    dom.window.close();
  } catch (e) { text = ''; }
  fs.mkdirSync(path.join(out, g), { recursive: true });
  fs.writeFileSync(f, text);
}
EOF

for corpus in "$@"; do
  name=$(basename "$corpus")
  out=$work/out-$name
  pages=$(($(wc -l <"$corpus/pages.tsv") - 1))
  # chunks of 200 pages, one node process each: jsdom's memory stays bounded
  from=0
  while [ "$from" -lt "$pages" ]; do
    node --max-old-space-size=4000 "$work/run.js" "$corpus" "$out" "$from" $((from + 200)) 2>/dev/null
    from=$((from + 200))
  done
  "$build/winnow-eval" --method danag --per-page "$corpus" >"$work/danag-$name.txt" 2>/dev/null
  python3 - "$corpus" "$out" "$work/danag-$name.txt" "$name" <<'EOF'
import collections, re, sys
corpus, out, danag, name = sys.argv[1:5]
tok = lambda s: [t.lower() for t in re.findall(r"[^\W_]+", s)]
def f1(o, g):
    P, G = collections.Counter(tok(o)), collections.Counter(tok(g))
    if not P and not G:
        return 1.0
    i = sum((P & G).values())
    if i == 0:
        return 0.0
    p, r = i / sum(P.values()), i / sum(G.values())
    return 2 * p * r / (p + r)
rows = [l.rstrip("\n").split("\t") for l in open(f"{corpus}/pages.tsv", encoding="utf-8")][1:]
rjs, split = {}, {}
for g, i, s in rows:
    o = open(f"{out}/{g}/{i}.txt", encoding="utf-8", errors="replace").read()
    gold = open(f"{corpus}/gold/{g}/{i}.txt", encoding="utf-8", errors="replace").read()
    rjs[(g, i)] = f1(o, gold)
    split[(g, i)] = s
dan = {}
for line in open(danag, encoding="utf-8"):
    f = line.strip("\n").split("\t")
    if len(f) >= 5 and f[0].startswith("    "):
        dan[(f[0].strip(), f[1])] = float(f[4])
def mean(d, test):
    v = [x for k, x in d.items() if not test or split[k] == "test"]
    return sum(v) / len(v)
print(f"### {name}: word F1 (all pages / the template method's test pages)")
print(f"  Readability.js  {mean(rjs, 0):.4f} / {mean(rjs, 1):.4f}")
print(f"  winnow DANAg    {mean(dan, 0):.4f} / {mean(dan, 1):.4f}")
for who, a, b in (("Readability.js", rjs, dan), ("DANAg", dan, rjs)):
    ahead = sorted(((a[k] - b[k], k) for k in a if k in b and a[k] - b[k] > 0.2), reverse=True)
    print(f"  {who} ahead by more than 0.2 on {len(ahead)} pages")
    for d, (g, i) in ahead[:10]:
        print(f"    {d:+.3f} {g} {i}")
EOF
done
