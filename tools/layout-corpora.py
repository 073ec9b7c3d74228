#!/usr/bin/env python3
"""Lay out the shared evaluation corpora in the uniform evaluation layout.

    tools/layout-corpora.py SRC_DIR OUT_DIR

SRC_DIR holds crawl-to-the-future.tar.xz and cleanportaleval.tar.xz (e.g.
../shared/corpus), and cleaneval.tar.xz and wcxb-dev.tar.xz when there are
(they are laid out too). A corpus already in OUT_DIR is left as it is. Both archives are unpacked into a temporary directory
(never into the repository) and written out as

    OUT_DIR/ctf/html/<group>/<id>.html   the page bytes, unchanged
    OUT_DIR/ctf/gold/<group>/<id>.txt    the gold text, UTF-8
    OUT_DIR/ctf/pages.tsv                group, id, split (header line first)
    OUT_DIR/cpe/...                      the same for CleanPortalEval
    OUT_DIR/ce/...                       the same for CleanEval
    OUT_DIR/wcxb/...                     the same for WCXB dev, with urls.tsv
                                         and snippets.tsv
    OUT_DIR/wcxb-hosts/...               WCXB dev's hosts of 3+ pages, each
                                         page left out once (below), with
                                         urls.tsv

following "A uniform layout for evaluation tools" in the corpus README:
pages are sorted by their original file name within a group, the first 5
are the learning sample ("train", the first of them the key page), the
rest are "test".

Groups:
  ctf  "<site>-<year>" from pairs.tsv (a site in one year shares a template)
  cpe  the host, i.e. the file name's prefix before the first "_"
  ce   one page per group, "dev_NNNN" / "final_NNNN" (a single-page
       corpus: every page is a test page; --fold alternates pages)
  wcxb the page type (article, forum, ...): every page a test page
  wcxb-hosts  "<host>_<k>": a host's pages with its k-th page the one test
       page and the others its learning sample (leave one out); the ids are
       "<type>.<id>" (the type first, for the figures per type)

Ids:
  ctf  the original names hold spaces, quotes, "&" and the like and can be
       long, so the id is "<NNN>-<slug>": NNN the zero-padded rank of the
       original html file name within the group (so sorting ids sorts the
       original names) and slug a filesystem-safe, shortened stem.
  cpe  the original stem ("washingtonpost.com_blog1_3"), already safe.

Gold cleaning:
  ctf  a third of the gold files are windows-1252, not UTF-8; every file is
       decoded as UTF-8 where valid and as windows-1252 byte by byte where
       not, and written as UTF-8. The text is otherwise unchanged.
  cpe, ce  CleanEval form: the first "URL:" line is dropped, the <p>, <h>, <l>
       block markers and any other tag or comment ("<!-- this page
       contains no article -->") are removed, and HTML entities (&#8217;,
       &ldquo;, ...) are decoded.

Python standard library only.
"""

import codecs
import html
import json
import os
import re
import shutil
import sys
import tarfile
import tempfile
import urllib.parse

TRAIN_PAGES = 5
SLUG_MAX = 60

CTF_ARCHIVE = "crawl-to-the-future.tar.xz"
CPE_ARCHIVE = "cleanportaleval.tar.xz"
CE_ARCHIVE = "cleaneval.tar.xz"
WCXB_ARCHIVE = "wcxb-dev.tar.xz"
WCXB_TYPES = ("article", "forum", "product", "collection", "listing",
              "documentation", "service")


def fail(msg):
    print("layout-corpora: " + msg, file=sys.stderr)
    sys.exit(1)


# ---- decoding -------------------------------------------------------------

def _cp1252_fallback(err):
    """Decodes the bytes UTF-8 rejected as windows-1252, one by one.

    The five bytes windows-1252 leaves undefined (0x81, 0x8D, 0x8F, 0x90,
    0x9D) map to the C1 control of the same value, as the WHATWG decoder
    does, so nothing is dropped.
    """
    bad = err.object[err.start:err.end]
    out = []
    for b in bad:
        try:
            out.append(bytes([b]).decode("cp1252"))
        except UnicodeDecodeError:
            out.append(chr(b))
    return "".join(out), err.end


codecs.register_error("wn_cp1252_fallback", _cp1252_fallback)


def decode_text(data):
    """UTF-8 where the bytes are UTF-8, windows-1252 where they are not."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    return data.decode("utf-8", errors="wn_cp1252_fallback")


# ---- CleanEval gold -------------------------------------------------------

# Tags and comments in the CleanEval gold: the block markers <p>, <h>, <l>,
# the odd </p>, and comments. Only things that look like tags are removed, so
# a "<" in running text ("a < b") survives.
_TAG_RE = re.compile(r"<!--.*?-->|</?[A-Za-z][A-Za-z0-9]*(\s[^<>]*)?/?>", re.S)


def clean_cleaneval(text):
    lines = text.splitlines()
    # The URL line is the first non-empty line (the files start with a
    # blank line).
    for i, line in enumerate(lines):
        if line.strip():
            if line.lstrip().startswith("URL:"):
                del lines[i]
            break
    body = "\n".join(lines)
    # Markers start blocks; a space keeps the words on either side apart.
    body = _TAG_RE.sub(" ", body)
    body = html.unescape(body)
    # Tidy the whitespace the markers leave behind; words are untouched.
    out = [re.sub(r"[ \t]+", " ", ln).strip() for ln in body.splitlines()]
    text = "\n".join(out)
    text = re.sub(r"\n{3,}", "\n\n", text).strip()
    return text + "\n" if text else ""


# ---- ids ------------------------------------------------------------------

def slugify(stem):
    s = re.sub(r"[^A-Za-z0-9._-]+", "_", stem)
    s = re.sub(r"_+", "_", s).strip("._-")
    return s[:SLUG_MAX].rstrip("._-") or "page"


def safe_group(name):
    s = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._")
    if not s:
        fail("empty group name from %r" % name)
    return s


# ---- output ---------------------------------------------------------------

class Corpus:
    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.rows = []  # (group, id, split)

    def add_group(self, group, pages, train=TRAIN_PAGES, test=None):
        """pages: list of (id, html_bytes, gold_text), sorted by id; the
        first `train` of them are the group's learning sample, or, with
        test (an index), every page but that one."""
        ids = [p[0] for p in pages]
        if ids != sorted(ids):
            fail("ids of group %s are not sorted" % group)
        if len(set(ids)) != len(ids):
            fail("duplicate ids in group %s" % group)
        hdir = os.path.join(self.out_dir, "html", group)
        gdir = os.path.join(self.out_dir, "gold", group)
        os.makedirs(hdir, exist_ok=True)
        os.makedirs(gdir, exist_ok=True)
        for n, (pid, page, gold) in enumerate(pages):
            with open(os.path.join(hdir, pid + ".html"), "wb") as f:
                f.write(page)
            with open(os.path.join(gdir, pid + ".txt"), "w", encoding="utf-8",
                      newline="\n") as f:
                f.write(gold)
            if test is not None:
                split = "test" if n == test else "train"
            else:
                split = "train" if n < train else "test"
            self.rows.append((group, pid, split))

    def finish(self, name):
        self.rows.sort(key=lambda r: (r[0], r[1]))
        with open(os.path.join(self.out_dir, "pages.tsv"), "w", encoding="utf-8",
                  newline="\n") as f:
            f.write("group\tid\tsplit\n")
            for r in self.rows:
                f.write("\t".join(r) + "\n")
        groups = {}
        for g, _, split in self.rows:
            c = groups.setdefault(g, [0, 0])
            c[0 if split == "train" else 1] += 1
        train = sum(c[0] for c in groups.values())
        test = sum(c[1] for c in groups.values())
        small = [g for g, c in groups.items() if c[1] == 0]
        if len(groups) > 100:
            print("%s: %d groups, %d pages (%d train, %d test)"
                  % (name, len(groups), len(self.rows), train, test))
            return
        print("%s: %d groups, %d pages (%d train, %d test)"
              % (name, len(groups), len(self.rows), train, test))
        for g in sorted(groups):
            print("  %-32s %3d train %3d test" % (g, groups[g][0], groups[g][1]))
        if small:
            print("  warning: groups without test pages: %s" % ", ".join(small))


def extract(archive, dest):
    with tarfile.open(archive, "r:xz") as tar:
        try:
            tar.extractall(dest, filter="data")
        except TypeError:  # Python without extraction filters
            for m in tar.getmembers():
                if m.name.startswith("/") or ".." in m.name.split("/") or \
                        not (m.isfile() or m.isdir()):
                    fail("%s: unsafe member %r" % (archive, m.name))
            tar.extractall(dest)


def find_root(top, marker):
    """The directory under top holding marker (archives may add a folder)."""
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames.sort()
        if marker in filenames or marker in dirnames:
            return dirpath
    fail("%s not found in the archive" % marker)
    return None


def layout_ctf(src_root, out_dir):
    pairs = os.path.join(src_root, "pairs.tsv")
    groups = {}
    with open(pairs, encoding="utf-8") as f:
        header = f.readline().rstrip("\r\n").split("\t")
        if header[:4] != ["site", "year", "html", "gold"]:
            fail("%s: unexpected header %r" % (pairs, header))
        for lineno, line in enumerate(f, start=2):
            line = line.rstrip("\r\n")
            if not line:
                continue
            cols = line.split("\t")
            if len(cols) != 4:
                fail("%s:%d: expected 4 columns, got %d" % (pairs, lineno, len(cols)))
            site, year, hpath, gpath = cols
            group = safe_group("%s-%s" % (site, year))
            groups.setdefault(group, []).append((hpath, gpath))
    corpus = Corpus(out_dir)
    for group in sorted(groups):
        entries = sorted(groups[group], key=lambda e: os.path.basename(e[0]))
        names = [os.path.basename(e[0]) for e in entries]
        if len(set(names)) != len(names):
            fail("group %s: duplicate html file names" % group)
        width = max(3, len(str(len(entries) - 1)))
        pages = []
        for n, (hpath, gpath) in enumerate(entries):
            stem = os.path.splitext(os.path.basename(hpath))[0]
            pid = "%0*d-%s" % (width, n, slugify(stem))
            with open(os.path.join(src_root, "extracted", hpath), "rb") as f:
                page = f.read()
            with open(os.path.join(src_root, "extracted", gpath), "rb") as f:
                gold = decode_text(f.read()).replace("\r\n", "\n")
            pages.append((pid, page, gold))
        corpus.add_group(group, pages)
    corpus.finish("crawl-to-the-future")


def layout_cpe(src_root, out_dir):
    in_dir = os.path.join(src_root, "input")
    gold_dir = os.path.join(src_root, "GoldStandard")
    groups = {}
    for name in sorted(os.listdir(in_dir)):
        if not name.endswith(".html"):
            continue
        stem = name[:-len(".html")]
        if "_" not in stem:
            fail("%s: no host prefix in the file name" % name)
        if slugify(stem) != stem:
            fail("%s: file name is not filesystem-safe" % name)
        gold_path = os.path.join(gold_dir, stem + ".txt")
        if not os.path.isfile(gold_path):
            fail("%s: no gold file %s" % (name, gold_path))
        group = safe_group(stem.split("_", 1)[0])
        groups.setdefault(group, []).append(stem)
    corpus = Corpus(out_dir)
    for group in sorted(groups):
        pages = []
        for stem in sorted(groups[group]):
            with open(os.path.join(in_dir, stem + ".html"), "rb") as f:
                page = f.read()
            with open(os.path.join(gold_dir, stem + ".txt"), "rb") as f:
                gold = clean_cleaneval(decode_text(f.read()))
            pages.append((stem, page, gold))
        corpus.add_group(group, pages)
    corpus.finish("CleanPortalEval")


def layout_ce(src_root, out_dir):
    """CleanEval is a single-page corpus: every page is its own group (so
    that winnow-eval's --fold alternates pages) and a test page. Groups are
    "dev_<id>" and "final_<id>", the id zero-padded so that they sort as
    numbers."""
    corpus = Corpus(out_dir)
    for part in ("dev", "final"):
        in_dir = os.path.join(src_root, part, "input")
        gold_dir = os.path.join(src_root, part, "GoldStandard")
        for name in sorted(os.listdir(in_dir)):
            if not name.endswith(".html"):
                continue
            stem = name[:-len(".html")]
            if slugify(stem) != stem:
                fail("%s: file name is not filesystem-safe" % name)
            gold_path = os.path.join(gold_dir, stem + ".txt")
            if not os.path.isfile(gold_path):
                fail("%s: no gold file %s" % (name, gold_path))
            with open(os.path.join(in_dir, name), "rb") as f:
                page = f.read()
            with open(gold_path, "rb") as f:
                gold = clean_cleaneval(decode_text(f.read()))
            group = "%s_%04d" % (part, int(stem)) if stem.isdigit() else \
                safe_group("%s_%s" % (part, stem))
            corpus.add_group(group, [(stem, page, gold)], train=0)
    corpus.finish("CleanEval")


def _one_line(text):
    return " ".join(str(text).split())


def _wcxb_records(src_root):
    """WCXB dev's pages in file order: (stem, page type, gold text, url,
    html path, the ground-truth record). The gold is
    ground_truth.main_content, the type _internal.page_type.primary."""
    html_dir = os.path.join(src_root, "html")
    gt_dir = os.path.join(src_root, "ground-truth")
    for name in sorted(os.listdir(gt_dir)):
        if not name.endswith(".json"):
            continue
        stem = name[:-len(".json")]
        if slugify(stem) != stem:
            fail("%s: file name is not filesystem-safe" % name)
        with open(os.path.join(gt_dir, name), encoding="utf-8") as f:
            rec = json.load(f)
        ptype = rec.get("_internal", {}).get("page_type", {}).get("primary")
        if ptype not in WCXB_TYPES:
            fail("%s: unknown page type %r" % (name, ptype))
        gold = (rec.get("ground_truth") or {}).get("main_content") or ""
        hpath = os.path.join(html_dir, stem + ".html")
        if not os.path.isfile(hpath):
            fail("%s: no page %s" % (name, hpath))
        yield (stem, ptype, gold.rstrip("\n") + "\n" if gold else "",
               _one_line(rec.get("url") or ""), hpath, rec)


def layout_wcxb(src_root, out_dir):
    """WCXB is a single-page corpus of seven page types: the group is the
    page type (so winnow-eval's per-group lines are the per-type figures),
    every page a test page. Beside the usual files, urls.tsv (group, id,
    url: WCXB's protocol sends each page with its URL) and snippets.tsv
    (group, id, with|without, snippet on one line) for the snippet rates.
    The gold is ground_truth.main_content; the type is
    _internal.page_type.primary."""
    corpus = Corpus(out_dir)
    urls, snippets = [], []
    for stem, ptype, gold, url, hpath, rec in _wcxb_records(src_root):
        with open(hpath, "rb") as f:
            page = f.read()
        corpus.add_group(ptype, [(stem, page, gold)], train=0)
        if url:
            urls.append((ptype, stem, url))
        gt = rec.get("ground_truth") or {}
        for kind in ("with", "without"):
            for snip in gt.get(kind) or []:
                snip = _one_line(snip)
                if snip:
                    snippets.append((ptype, stem, kind, snip))
    corpus.finish("WCXB dev")
    for fname, rows in (("urls.tsv", urls), ("snippets.tsv", snippets)):
        rows.sort()
        with open(os.path.join(out_dir, fname), "w", encoding="utf-8", newline="\n") as f:
            for r in rows:
                f.write("\t".join(r) + "\n")


HOSTS_MIN_PAGES = 3


def layout_wcxb_hosts(src_root, out_dir):
    """The site-level check: WCXB dev's hosts with HOSTS_MIN_PAGES pages or
    more (shops, manuals, forums: several pages of one site). Each page is
    left out once: group "<host>_<k>" holds all the host's pages, its k-th
    the test page, the rest the sample its template is learned from. The
    single-page method reads the same test pages, so the two compare page
    for page."""
    hosts = {}
    for stem, ptype, gold, url, hpath, _ in _wcxb_records(src_root):
        host = (urllib.parse.urlsplit(url).hostname or "").lower() if url else ""
        if host:
            hosts.setdefault(host, []).append(("%s.%s" % (ptype, stem), hpath, gold, url))
    corpus = Corpus(out_dir)
    urls = []
    for host in sorted(hosts):
        pages = sorted(hosts[host])
        if len(pages) < HOSTS_MIN_PAGES:
            continue
        data = []
        for pid, hpath, gold, url in pages:
            with open(hpath, "rb") as f:
                data.append((pid, f.read(), gold))
        for k in range(len(pages)):
            group = "%s_%d" % (safe_group(host), k + 1)
            corpus.add_group(group, data, test=k)
            urls.extend((group, pid, url) for pid, _, _, url in pages)
    corpus.finish("WCXB dev hosts (leave one out)")
    urls.sort()
    with open(os.path.join(out_dir, "urls.tsv"), "w", encoding="utf-8", newline="\n") as f:
        for r in urls:
            f.write("\t".join(r) + "\n")


def main(argv):
    if len(argv) != 3 or argv[1] in ("-h", "--help"):
        print("usage: %s SRC_DIR OUT_DIR" % os.path.basename(argv[0]), file=sys.stderr)
        return 2
    src, out = argv[1], argv[2]
    archives = {}
    for key, name in (("ctf", CTF_ARCHIVE), ("cpe", CPE_ARCHIVE), ("ce", CE_ARCHIVE),
                      ("wcxb", WCXB_ARCHIVE)):
        path = os.path.join(src, name)
        if os.path.isfile(path):
            archives[key] = path
        elif key in ("ctf", "cpe"):
            fail("%s not found (SRC_DIR should hold the corpus archives)" % path)
    # Each corpus is laid out once; one already there is left as it is.
    if "wcxb" in archives:
        archives["wcxb-hosts"] = archives["wcxb"]
    todo = [k for k in ("ctf", "cpe", "ce", "wcxb", "wcxb-hosts")
            if k in archives and not os.path.exists(os.path.join(out, k))]
    os.makedirs(out, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="winnow-corpora-")
    try:
        for key, layout, marker in (("ctf", layout_ctf, "pairs.tsv"),
                                    ("cpe", layout_cpe, "GoldStandard"),
                                    ("ce", layout_ce, "final"),
                                    ("wcxb", layout_wcxb, "ground-truth"),
                                    ("wcxb-hosts", layout_wcxb_hosts, "ground-truth")):
            if key not in todo:
                continue
            dest = os.path.join(tmp, key)
            os.makedirs(dest)
            extract(archives[key], dest)
            root = find_root(dest, marker)
            # Write to a sibling and rename, so a failed run leaves no
            # half-made corpus for eval.sh to mistake for a finished one.
            part = os.path.join(out, key + ".partial")
            shutil.rmtree(part, ignore_errors=True)
            layout(root, part)
            os.rename(part, os.path.join(out, key))
            print("  -> %s" % os.path.join(out, key))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
