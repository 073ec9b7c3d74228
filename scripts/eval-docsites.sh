#!/bin/sh
# End-to-end evaluation of learning by crawling on real
# documentation sites from Debian packages, served on loopback:
#
#   1. serve the package's HTML on 127.0.0.1 (python3 -m http.server);
#   2. `winnow learn URL` from one key page: the crawler ranks the key page's
#      links, fetches its n-SET, checks each page shares the key page's
#      template and learns; its report (the n-SET chosen, the time split
#      into network wait and compute) is printed;
#   3. every other HTML page of the site is detected with the template the
#      crawl chose, and scored against the gold text of the corpus tool
#      docgold.py (../shared/corpus/tools/docgold.py) by winnow-eval, which
#      learns from exactly the pages the crawl chose (key page first).
#
#   4. with --random K, the paper's claim that ranking matters: K times, the
#      key page plus as many pages drawn at random from the site (seeds 1 to
#      K) against the crawl's ranked n-SET, both scored on the same pages
#      (the site less the key page and both n-SETs).
#
# usage: scripts/eval-docsites.sh [--build DIR] [--out DIR] [--n N] [--docgold PATH]
#                               [--selector S] [--random K] [PKG...]
#                               [-- WINNOW_EVAL_ARGS...]
#   --build DIR      build directory with winnow and winnow-eval (default: build)
#   --out DIR        work directory outside the repository (default: /tmp/winnow-docsites)
#   --n N            n-SET size (default: winnow's, 4)
#   --docgold PATH   the gold extractor (default: ../shared/corpus/tools/docgold.py)
#   --selector S     learn with winnow learn --selector S (cues, region, paper)
#   --random K       also compare the ranked n-SET with K random ones
#   --key PAGE       the key page, relative to the package's HTML root
#                    (default: a reference page of each package)
#   PKG              python3.11-doc, postgresql-doc-15, git-doc, cmake-doc
#                    (default: the first two)
#   after "--":      passed to winnow-eval (e.g. --per-page)
#
# Needs: apt-get install python3 python3.11-doc postgresql-doc-15 [git-doc cmake-doc]
set -eu

repo=$(cd "$(dirname "$0")/.." && pwd)
build=$repo/build
out=/tmp/winnow-docsites
n=
docgold=$repo/../shared/corpus/tools/docgold.py
pkgs=
selector=
key_arg=
random=0

usage() {
  sed -n '20,34p' "$0" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
  case $1 in
    --build) [ $# -ge 2 ] || { usage >&2; exit 2; }; build=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || { usage >&2; exit 2; }; out=$2; shift 2 ;;
    --n) [ $# -ge 2 ] || { usage >&2; exit 2; }; n=$2; shift 2 ;;
    --docgold) [ $# -ge 2 ] || { usage >&2; exit 2; }; docgold=$2; shift 2 ;;
    --selector) [ $# -ge 2 ] || { usage >&2; exit 2; }; selector=$2; shift 2 ;;
    --key) [ $# -ge 2 ] || { usage >&2; exit 2; }; key_arg=$2; shift 2 ;;
    --random)
      [ $# -ge 2 ] || { usage >&2; exit 2; }
      case $2 in ''|*[!0-9]*) echo "eval-docsites.sh: --random needs a number" >&2; exit 2 ;; esac
      random=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    -*) echo "eval-docsites.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) pkgs="$pkgs $1"; shift ;;
  esac
done
[ -n "$pkgs" ] || pkgs="python3.11-doc postgresql-doc-15"

for tool in winnow winnow-eval; do
  if [ ! -x "$build/$tool" ]; then
    echo "eval-docsites.sh: $build/$tool not found; build first (cmake -S . -B $build && cmake --build $build)" >&2
    exit 1
  fi
done
if [ ! -f "$docgold" ]; then
  echo "eval-docsites.sh: gold extractor $docgold not found (--docgold PATH)" >&2
  exit 1
fi
case $out in
  "$repo"|"$repo"/*) echo "eval-docsites.sh: --out $out is inside the repository" >&2; exit 1 ;;
esac

server=
cleanup() {
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; fi
}
trap cleanup EXIT INT TERM

status=0
for pkg in $pkgs; do
  case $pkg in
    python3.11-doc) root=/usr/share/doc/python3.11/html; key=library/os.html ;;
    postgresql-doc-15) root=/usr/share/doc/postgresql-doc-15/html; key=sql-select.html ;;
    git-doc) root=/usr/share/doc/git-doc; key=git-add.html ;;
    cmake-doc) root=/usr/share/doc/cmake-data/html; key=command/add_library.html ;;
    *) echo "eval-docsites.sh: unknown package $pkg (python3.11-doc, postgresql-doc-15, git-doc, cmake-doc)" >&2; exit 2 ;;
  esac
  [ -z "$key_arg" ] || key=$key_arg
  if [ ! -f "$root/$key" ]; then
    echo "eval-docsites.sh: $root/$key not found: apt-get install $pkg" >&2
    exit 1
  fi
  work=$out/$pkg
  rm -rf "$work"
  mkdir -p "$work"
  echo "== $pkg: gold text from $root"
  # Gold: the corpus tool's rules, and tools/docgold-more.py's for the
  # manuals it does not know (git-doc, cmake-doc).
  python3 "$repo/tools/docgold-more.py" "$docgold" "$pkg" "$root" "$work/docgold" >/dev/null

  # A free port: bind to 0 and read what the kernel gave.
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
  python3 -m http.server "$port" --bind 127.0.0.1 --directory "$root" >"$work/server.log" 2>&1 &
  server=$!
  i=0
  until python3 -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:$port/$key')" 2>/dev/null; do
    i=$((i + 1))
    [ $i -lt 50 ] || { echo "eval-docsites.sh: the server did not come up" >&2; exit 1; }
    sleep 0.1
  done

  url=http://127.0.0.1:$port/$key
  echo "== $pkg: winnow learn $url"
  # Loopback: no politeness delay needed against our own server.
  if ! "$build/winnow" learn --store "$work/store" --delay-ms 0 ${n:+--n "$n"} \
      ${selector:+--selector "$selector"} "$url" \
      >"$work/learn.txt" 2>"$work/learn.err"; then
    cat "$work/learn.txt" "$work/learn.err"
    echo "eval-docsites.sh: learning $pkg failed" >&2
    status=1
    kill "$server" 2>/dev/null || true
    server=
    continue
  fi
  cat "$work/learn.txt" "$work/learn.err"
  kill "$server" 2>/dev/null || true
  server=

  # The corpus: the pages the crawl learned from (key page first) as the
  # train split, every other page with gold as the test split.
  python3 - "$root" "$work" "$port" "$random" <<'PY'
import os, random, sys
root, work, port, n_random = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
prefix = "http://127.0.0.1:%s/" % port
used = []
for line in open(os.path.join(work, "learn.txt")):
    f = line.split()
    if len(f) > 2 and f[1] == "used":
        u = [x for x in f if x.startswith(prefix)][0]
        used.append(u[len(prefix):])
gold_root = os.path.join(work, "docgold", "gold")
group = os.path.basename(work)

def gold_of(rel):
    gold = os.path.join(gold_root, rel + ".txt")
    if not os.path.exists(gold) and rel.endswith(".html"):
        gold = os.path.join(gold_root, rel[:-5] + ".txt")
    return gold if os.path.exists(gold) else None

site = []  # every HTML page of the site that has gold, in a stable order
for dirpath, dirs, files in os.walk(root):
    dirs.sort()
    for name in sorted(files):
        if name.endswith(".html"):
            rel = os.path.relpath(os.path.join(dirpath, name), root)
            if gold_of(rel):
                site.append(rel)

def write(corpus, train, skip):
    """train (key page first) as the train split; every other page with
    gold, less those in skip, as the test split."""
    os.makedirs(os.path.join(corpus, "html", group))
    os.makedirs(os.path.join(corpus, "gold", group))
    rows = []
    def add(rel, split, rank):
        ident = rel.replace("/", "__")
        if ident.endswith(".html"):
            ident = ident[:-5]
        # Train ids sort in the given order (the key page first).
        ident = ("a%02d_" % rank if split == "train" else "p_") + ident
        os.symlink(os.path.join(root, rel), os.path.join(corpus, "html", group, ident + ".html"))
        os.symlink(gold_of(rel), os.path.join(corpus, "gold", group, ident + ".txt"))
        rows.append((group, ident, split))
    for k, rel in enumerate(train):
        if not gold_of(rel):
            sys.exit("no gold for learned page %s" % rel)
        add(rel, "train", k)
    for rel in site:
        if rel not in train and rel not in skip:
            add(rel, "test", 0)
    with open(os.path.join(corpus, "pages.tsv"), "w") as f:
        f.write("group\tid\tsplit\n")
        for r in rows:
            f.write("\t".join(r) + "\n")
    return sum(1 for r in rows if r[2] == "test")

scored = write(os.path.join(work, "corpus"), used, set())
print("== %s: n-SET %s; %d pages scored" % (group, ", ".join(used), scored))
# Random n-SETs of the same size, drawn from the site less the key page.
for seed in range(1, n_random + 1):
    pool = [rel for rel in site if rel != used[0]]
    drawn = random.Random(seed).sample(pool, len(used) - 1)
    skip = set(used) | set(drawn)
    write(os.path.join(work, "random-%d" % seed), [used[0]] + drawn, skip)
    scored = write(os.path.join(work, "ranked-%d" % seed), used, skip)
    print("== %s: random n-SET %d: %s; %d pages scored" % (group, seed, ", ".join(drawn), scored))
PY
  echo "== $pkg: detection of every other page"
  "$build/winnow-eval" ${selector:+--selector "$selector"} "$@" "$work/corpus" || status=1
  # The same pages as a user gets them: winnow detect against the store the
  # crawl wrote (its template of every layout it learned), scored alike
  # (the test pages; the last figures --score-jsonl prints).
  python3 - "$work" "$port" >"$work/served.jsonl" <<'PY'
import json, os, sys
work, port = sys.argv[1], sys.argv[2]
corpus = os.path.join(work, "corpus")
for line in list(open(os.path.join(corpus, "pages.tsv")))[1:]:
    group, ident, split = line.rstrip("\n").split("\t")
    if split == "test":
        print(json.dumps({"id": group + "/" + ident, "site": "127.0.0.1:" + port,
                          "path": os.path.realpath(os.path.join(corpus, "html", group,
                                                                ident + ".html"))}))
PY
  "$build/winnow" detect --store "$work/store" --jsonl "$work/served.jsonl" \
    >"$work/served.out.jsonl" 2>"$work/served.err" || status=1
  served=$("$build/winnow-eval" --score-jsonl "$work/served.out.jsonl" "$work/corpus" |
             sed -n 's/^  P \([0-9.]*\)  R \([0-9.]*\)  F1 \([0-9.]*\)$/P \1 R \2 F1 \3/p' | tail -1)
  layouts=$(python3 -c '
import collections, json, sys
c = collections.Counter()
for line in open(sys.argv[1]):
    d = json.loads(line)
    c["layout %s" % d.get("layout", 1) if d.get("method", "").startswith("template") else d.get("method")] += 1
print(", ".join("%s: %d" % kv for kv in sorted(c.items())))' "$work/served.out.jsonl")
  echo "== $pkg: served from the store: $served ($layouts)"
  echo
  seed=1
  while [ "$seed" -le "$random" ]; do
    for kind in ranked random; do
      f1=$("$build/winnow-eval" ${selector:+--selector "$selector"} --repeat 1 "$@" \
             "$work/$kind-$seed" | sed -n 's/^  P \([0-9.]*\)  R \([0-9.]*\)  F1 \([0-9.]*\)$/P \1 R \2 F1 \3/p') ||
        status=1
      echo "== $pkg: seed $seed, $kind n-SET: $f1"
    done
    seed=$((seed + 1))
  done
done
exit $status
