"""The Python package over libwinnow: every call, its errors, bad input,
and threads."""
import json
import os
import subprocess
import threading

import pytest

import winnow
from conftest import SITE, article, read


# ---- extract -------------------------------------------------------------

def test_extract_formats():
    page = read(os.path.join(os.path.dirname(article(1)), "..", "single", "article.html"))
    text = winnow.extract(page)
    assert "Harbour town votes to rebuild its sea wall" in text
    assert text == winnow.extract(page.decode("utf-8"))  # str in, the same text
    md = winnow.extract(page, url="https://news.example/a", format="markdown")
    assert md.startswith("# ") or "\n# " in md or "Harbour town" in md
    html = winnow.extract(page, format="html")
    assert "<p" in html
    doc = json.loads(winnow.extract(page, format="json", metadata=True))
    assert doc["method"] == "danag" and doc["fallback"] == "no template"
    assert doc["page_type"] == "article"  # a news story, no statement otherwise
    assert doc["text"] == text and "metadata" in doc
    front = winnow.extract(page, format="markdown", metadata=True)
    assert front.startswith("---\n")


def test_page_type_and_line_separators():
    page = ("<html><head><script type='application/ld+json'>"
            '{"@context": "https://schema.org", "@type": "QAPage"}</script></head>'
            "<body><main><p>How do I reseal a window?\u2028The old putty is cracked and the "
            "frame lets the rain in after every storm.</p></main></body></html>")
    det = winnow.Detector()
    r = det.detect(page, "https://ask.example/q/1")
    assert r.page_type == "forum"
    line = r.json()
    assert "\u2028" not in line and "\\u2028" in line  # one JSON line, whatever splits it
    assert len(line.splitlines()) == 1
    assert "\u2028" in json.loads(line)["text"]


def test_extract_bad_input():
    with pytest.raises(winnow.NotHTMLError) as e:
        winnow.extract(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR")
    assert e.value.name == "WN_ENOTHTML" and e.value.code == winnow._winnow.codes["WN_ENOTHTML"]
    assert isinstance(e.value, winnow.PageError) and isinstance(e.value, winnow.Error)
    with pytest.raises(TypeError):
        winnow.extract(12)
    with pytest.raises(ValueError):
        winnow.extract(b"<p>x</p>", format="pdf")
    # no text is no error: the result says why it is empty
    r = winnow.Detector().detect(b"")
    assert r.text == "" and r.empty == "no text in the page"
    with pytest.raises(winnow.PageError):
        winnow.extract(b"<b>x</b>" * 400000)  # past the node cap
    with pytest.raises(winnow.PageError) as e:
        winnow.extract(b"<p>" + b"a" * (17 << 20))  # past the byte cap
    assert e.value.name == "WN_ETOOBIG"


def test_site_from_url():
    assert winnow.site_from_url("HTTPS://Example.COM:443/a?b") == "example.com"
    assert winnow.site_from_url("http://127.0.0.1:8080/") == "127.0.0.1:8080"
    with pytest.raises(winnow.InvalidError):
        winnow.site_from_url("ftp://example.com/")


# ---- Store ---------------------------------------------------------------

def test_store_learn_paths_and_info(store):
    rep = store.learn(SITE, [article(n) for n in range(1, 6)])
    assert rep["site"] == SITE and rep["generation"] == 1 and rep["used"] >= 3
    assert [p["used"] for p in rep["pages"]].count(True) == rep["used"]
    assert store.sites() == [SITE]
    info = store.info(SITE)
    assert info["algorithm"] == "etdm" and info["generation"] == 1
    assert info["key_page"].endswith("article-1.html") and info["layouts"] >= 1
    assert len(info["pages"]) == rep["used"]


def test_store_learn_bytes_fastce(store):
    rep = store.learn(SITE, [read(article(n)) for n in range(1, 6)], algo="fastce")
    assert rep["algorithm"] == "fastce" and rep["pages"][0]["name"] == "page 1"
    assert store.info(SITE)["algorithm"] == "fastce"
    store.learn(SITE, [read(article(n)) for n in range(1, 6)])
    assert store.info(SITE)["generation"] == 2


def test_store_learn_errors(store, tmp_path):
    with pytest.raises(winnow.SiteError):
        store.learn("Not A Site", [article(1), article(2)])
    with pytest.raises(TypeError):
        store.learn(SITE, "article-1.html")  # a str is not a list of pages
    with pytest.raises(TypeError):
        store.learn(SITE, [article(1), read(article(2))])  # a mix
    with pytest.raises(ValueError):
        store.learn(SITE, [article(1), article(2)], algo="magic")
    with pytest.raises(winnow.Error):
        store.learn(SITE, [article(1)])  # one page is too few
    with pytest.raises(winnow.Error) as e:
        store.learn(SITE, [str(tmp_path / "missing.html"), article(2)])
    assert e.value.name == "WN_ENOTFOUND"
    # pages of two different sites do not share a layout: the report says why
    other = os.path.join(os.path.dirname(article(1)), "..", "single", "article.html")
    with pytest.raises(winnow.Error) as e:
        store.learn(SITE, [article(1), other])
    assert e.value.name == "WN_EEMPTY" and len(e.value.pages) == 2


def test_store_export_import_delete(learned, tmp_path):
    snap = tmp_path / "snap.wnx"
    assert learned.export(snap) == 1
    assert learned.export(snap, sites=[SITE]) == 1
    with pytest.raises(winnow.NoTemplateError):
        learned.export(tmp_path / "x.wnx", sites=["nosuch.example"])
    with winnow.Store(tmp_path / "copy") as other:
        assert other.import_(snap) == 1
        assert other.sites() == [SITE]
        assert other.info(SITE)["generation"] == learned.info(SITE)["generation"]
    learned.delete(SITE)
    assert learned.sites() == []
    with pytest.raises(winnow.NoTemplateError):
        learned.delete(SITE)
    with pytest.raises(winnow.NoTemplateError):
        learned.info(SITE)
    (tmp_path / "bad.wnx").write_bytes(b"WNX garbage" * 10)
    with pytest.raises(winnow.DamagedError):
        learned.import_(tmp_path / "bad.wnx")


def test_store_readonly_closed_damaged(tmp_path):
    with pytest.raises(winnow.Error) as e:
        winnow.Store(tmp_path / "none", readonly=True)
    assert e.value.name == "WN_ENOTFOUND"
    path = tmp_path / "s"
    with winnow.Store(path) as s:
        s.learn(SITE, [article(n) for n in range(1, 6)])
    with winnow.Store(path, readonly=True) as ro:
        assert ro.sites() == [SITE] and ro.readonly
        with pytest.raises(ValueError):
            ro.learn(SITE, [article(1), article(2)])
    assert ro.closed
    with pytest.raises(ValueError):
        ro.sites()
    # a damaged store: its meta pages overwritten
    data = path / "data.mdb"
    raw = bytearray(data.read_bytes())
    raw[0:8192] = b"\xff" * 8192
    data.write_bytes(bytes(raw))
    with pytest.raises(winnow.StoreError) as e:
        winnow.Store(path)
    assert "damaged" in str(e.value)
    with pytest.raises(TypeError):
        winnow.Store(12)


def test_store_closes_after_its_users(tmp_path):
    s = winnow.Store(tmp_path / "s")
    s.learn(SITE, [article(n) for n in range(1, 6)])
    det = winnow.Detector(s)
    s.close()  # the detector still uses it
    assert det.detect(read(article(6)), "https://%s/a6" % SITE).method == "template"
    det.close()
    with pytest.raises(ValueError):
        det.detect(b"<p>x</p>")


# ---- Detector ------------------------------------------------------------

def test_detect_template(learned):
    det = winnow.Detector(learned, want=["text", "markdown", "html", "nodes", "metadata"])
    r = det.detect(read(article(6)), "https://%s/local/a6" % SITE)
    assert r.method == "template" and r.fallback is None and r.empty is None
    assert r.confidence >= 0.25 and r.site == SITE and r.generation == 1 and r.layout == 1
    assert r.text and r.markdown and r.html.startswith("<") and r.nodes
    assert r.metadata["title"] and "canonical_url" in r.metadata
    assert json.loads(r.json())["method"] == "template"
    # site= names the site whatever the URL
    assert det.detect(read(article(6)), site=SITE).method == "template"
    # a site with no template, and a page with no site
    r = det.detect(read(article(6)), "https://elsewhere.example/x")
    assert r.method == "danag" and r.fallback == "no template"
    r = det.detect(read(article(6)), "mailto:someone")
    assert r.site is None and r.site_error
    # want per call; unrequested outputs are None
    r = det.detect(read(article(6)), "https://%s/a" % SITE, want="text")
    assert r.markdown is None and r.html is None and r.metadata is None and r.text


def test_detect_matches_cli(learned):
    """The package and `winnow detect` give the same JSON, byte for byte."""
    winnow_bin = os.environ.get("WN_WINNOW")
    if not winnow_bin:
        pytest.skip("WN_WINNOW (the winnow program) not set")
    det = winnow.Detector(learned, count=False)
    path = learned.path
    for n in (6, 7):
        url = "https://%s/a%d" % (SITE, n)
        want = det.detect(read(article(n)), url, want=["text", "nodes"]).json(pretty=True) + "\n"
        learned_out = subprocess.run(
            [winnow_bin, "detect", "--store", path, "--no-count", "--format", "json",
             "--url", url, article(n)], capture_output=True, check=True).stdout.decode()
        assert learned_out == want


def test_detect_bad_input(learned):
    det = winnow.Detector(learned)
    with pytest.raises(TypeError):
        det.detect(None)
    with pytest.raises(winnow.SiteError):
        det.detect(b"<p>x</p>", site="Bad Site")
    with pytest.raises(ValueError):
        det.detect(b"<p>x</p>", want="pdf")
    with pytest.raises(winnow.NotHTMLError):
        det.detect(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj", "https://%s/f.pdf" % SITE)
    with pytest.raises(ValueError):
        det.detect(b"<p>x</p>", learn=True)  # no collector
    with pytest.raises(ValueError):
        winnow.Detector(learned, fallback="best")
    with pytest.raises(TypeError):
        winnow.Detector("a store path")
    # the detector is still usable after errors
    assert det.detect(read(article(7)), "https://%s/a7" % SITE).method == "template"


def test_detector_is_one_threads(learned):
    det = winnow.Detector(learned)
    errors = []

    def other():
        try:
            det.detect(read(article(6)))
        except RuntimeError as e:
            errors.append(e)

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert len(errors) == 1 and "thread" in str(errors[0])


def test_detect_many_threads(learned):
    pages = []
    for k in range(6):
        for n in range(1, 8):
            pages.append((read(article(n)), "https://%s/a%d?k=%d" % (SITE, n, k)))
    pages.append({"path": article(3), "url": "https://%s/x" % SITE})
    pages.append({"html": read(article(4)), "site": SITE})
    pages.append(read(article(5)))  # no site: the single-page method
    det = winnow.Detector(learned, want=["text", "metadata"])
    one = [(r.text, r.method, r.confidence) for r in det.detect_many(pages, threads=1)]
    four = [(r.text, r.method, r.confidence) for r in det.detect_many(pages, threads=4)]
    assert one == four and len(one) == len(pages)
    assert one[-1][1] == "danag" and one[0][1] == "template"
    # with raise_errors, an error stops the iteration at its page, in order
    bad = pages[:3] + [b"\x89PNG\r\n\x1a\n\0\0"] + pages[3:6]
    got = []
    with pytest.raises(winnow.NotHTMLError):
        for r in det.detect_many(bad, threads=2, raise_errors=True):
            got.append(r)
    assert len(got) == 3
    with pytest.raises(ValueError):
        list(det.detect_many(pages, threads=0))


def test_detect_many_bad_pages(learned, tmp_path):
    """A PNG, an empty page, a page past the size cap and a path that does
    not open, among good pages: a Result for every input, in order; the
    failed ones say why, with every other field None."""
    good = [(read(article(n)), "https://%s/a%d" % (SITE, n)) for n in range(1, 8)]
    png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"
    huge = b"<html><body><p>" + b"x " * (33 << 20) + b"</p></body></html>"
    pages = (good[:2] + [png] + good[2:4] + [b""] + good[4:5] + [huge] +
             [{"path": str(tmp_path / "missing.html")}] + good[5:])
    det = winnow.Detector(learned)
    for threads in (1, 3):
        got = list(det.detect_many(pages, threads=threads))
        assert len(got) == len(pages)
        failed = [i for i, r in enumerate(got) if r.error]
        assert failed == [2, 7, 8], [(i, r.error) for i, r in enumerate(got)]
        assert "HTML" in got[2].error or "html" in got[2].error
        assert "missing.html" in got[8].error
        for i in failed:
            r = got[i]
            assert r.method is None and r.text is None and r.page_type is None
            assert r.confidence == 0.0 and r.metadata is None
            assert json.loads(r.json(id=i)) == {"id": i, "error": r.error}
            assert "error=" in repr(r)
        # the empty page is a page without content, not a failure
        assert got[5].error is None and got[5].method == "danag"
        assert [r.text for i, r in enumerate(got) if i not in (2, 5, 7, 8)] == \
            [det.detect(p, u).text for p, u in good]


def _detect_in_worker(args):
    path, page, url = args
    with winnow.Store(path, readonly=True) as st:
        return winnow.Detector(st, count=False).detect(page, url)


def test_results_cross_processes(learned, tmp_path):
    """Results pickle: a pool of two processes returns Results equal to
    one process's, field for field, with the same JSON line; a failed
    page's Result too."""
    import concurrent.futures
    import pickle
    pages = [(read(article(n)), "https://%s/a%d" % (SITE, n)) for n in range(1, 8)]
    det = winnow.Detector(learned, count=False)
    here = [det.detect(p, u) for p, u in pages]
    path = str(learned.path)
    with concurrent.futures.ProcessPoolExecutor(max_workers=2) as pool:
        there = list(pool.map(_detect_in_worker, [(path, p, u) for p, u in pages]))
    assert there == here
    assert [r.json(id=k) for k, r in enumerate(there)] == \
        [r.json(id=k) for k, r in enumerate(here)]
    assert there[0].method == "template" and there[0].text == here[0].text
    assert there[0].as_dict() == here[0].as_dict()
    assert set(here[0].as_dict()) >= {"text", "method", "page_type", "confidence", "error"}
    bad = next(det.detect_many([b"\x89PNG\r\n\x1a\n\0\0"]))
    back = pickle.loads(pickle.dumps(bad))
    assert back == bad and back.error == bad.error and back.method is None
    assert back.json(id=3) == bad.json(id=3)
    assert here[0] != here[1]
    # a Store and a Detector pickle as their parameters: the worker opens
    # the store again and detects as here
    with concurrent.futures.ProcessPoolExecutor(max_workers=2) as pool:
        again = list(pool.map(_detect_with, [(det, p, u) for p, u in pages]))
    assert again == here
    st2 = pickle.loads(pickle.dumps(learned))
    assert st2.path == learned.path and st2.readonly == learned.readonly
    st2.close()


def _detect_with(args):
    det, page, url = args
    return det.detect(page, url)


# ---- Collector: learning while detecting -----------------------------------

def test_collector_learns_while_detecting(store):
    col = winnow.Collector(store, sample_pages=5)
    det = winnow.Detector(store, collector=col)
    methods = [det.detect(read(article(n)), "https://%s/a%d" % (SITE, n), learn=True).method
               for n in range(1, 8)]
    assert methods[0] == "danag"
    assert methods[-1] == "template"  # learned from the first five
    assert store.sites() == [SITE]
    st = col.stats()
    assert st["sites_learned"] == 1 and st["pages_held"] == 0
    with pytest.raises(winnow.Error):
        col.learn(SITE)  # nothing held any more
    with pytest.raises(ValueError):
        winnow.Detector(None, collector=col)  # the collector's store is another


def test_collector_add_and_pending(store):
    col = winnow.Collector(store, sample_pages=5, min_pages=3)
    states = [col.add(read(article(n)), "https://%s/a%d" % (SITE, n)) for n in range(1, 4)]
    assert states == ["held", "held", "held"]
    assert col.add(b"<p>x</p>") == "no site"
    assert col.pending() == [(SITE, 3)]
    rep = col.learn(SITE)
    assert rep["site"] == SITE and store.sites() == [SITE]
    assert col.add(read(article(4)), "https://%s/a4" % SITE) == "template"
    with pytest.raises(TypeError):
        winnow.Collector("store")


def test_collector_keeps_pending_pages(store):
    # Two pages in one "run", one in the next: the first two wait in the
    # store (pending samples) and come back; keep_pending=False keeps none.
    col = winnow.Collector(store, sample_pages=5, min_pages=3)
    for n in (1, 2):
        assert col.add(read(article(n)), "https://%s/a%d" % (SITE, n)) == "held"
    col.flush()
    assert col.stats()["pages_kept"] == 2
    del col
    col = winnow.Collector(store, sample_pages=5, min_pages=3)
    assert col.add(read(article(3)), "https://%s/a3" % SITE) == "held"
    assert col.stats()["pages_restored"] == 2
    assert col.pending() == [(SITE, 3)]
    col.learn(SITE)
    assert store.sites() == [SITE]
    other = winnow.Collector(store, keep_pending=False)
    assert other.add(read(article(1)), "https://blog.example/p1") == "held"
    other.flush()
    assert other.stats()["pages_kept"] == 0


# ---- WARC ------------------------------------------------------------------

def test_warc_read_and_detect(learned, warc_file):
    det = winnow.Detector(learned)
    recs = list(winnow.warc.read(warc_file))
    assert [r.url for r in recs] == ["https://%s/a6" % SITE, "https://%s/a7" % SITE]
    assert recs[0].http_status == 200 and recs[0].charset == "utf-8"
    assert recs[0].payload == read(article(6))
    for rec in recs:
        r = det.detect(rec)
        assert r.method == "template" and r.site == SITE
    with winnow.warc.Reader(warc_file) as reader:
        n = sum(1 for _ in reader)
        st = reader.stats()
    assert n == 2 and st["skipped_not_html"] == 1 and st["skipped_status"] == 1
    assert len(list(winnow.warc.read(warc_file, all_statuses=True))) == 3


def test_warc_damaged_and_missing(tmp_path, warc_file):
    data = warc_file.read_bytes()
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes(data[: len(data) - 200])  # the last record truncated
    with winnow.warc.Reader(cut) as reader:
        urls = [r.url for r in reader]
        st = reader.stats()
    assert urls == ["https://%s/a6" % SITE] and st["damaged"] >= 1
    with pytest.raises(winnow.Error) as e:
        list(winnow.warc.read(tmp_path / "none.warc"))
    assert e.value.name == "WN_EIO"
    # a file of bytes that holds no WARC record: InvalidError, as the CLI exits 1
    page = tmp_path / "page.warc"
    page.write_bytes(read(article(1)))
    with pytest.raises(winnow.InvalidError):
        list(winnow.warc.read(page))
    empty = tmp_path / "empty.warc"
    empty.write_bytes(b"")
    assert list(winnow.warc.read(empty)) == []


def test_file_errors_are_oserrors(tmp_path):
    """Errors of files and of the store are OSErrors as the OS says them,
    and still winnow errors with the library's code and message."""
    import errno
    missing = tmp_path / "none.warc"
    with pytest.raises(FileNotFoundError) as e:
        list(winnow.warc.read(missing))
    assert isinstance(e.value, winnow.FileError) and isinstance(e.value, winnow.Error)
    assert e.value.errno == errno.ENOENT and e.value.filename == str(missing)
    assert str(missing) in str(e.value) and e.value.name == "WN_EIO"
    with pytest.raises(FileNotFoundError) as e:
        winnow.Store(tmp_path / "no" / "parent" / "store")
    assert e.value.filename.endswith("store")
    with pytest.raises(FileNotFoundError):
        winnow.Store(tmp_path / "none", readonly=True)
    with winnow.Store(tmp_path / "s") as store:
        with pytest.raises(FileNotFoundError) as e:
            store.learn(SITE, [article(1), str(tmp_path / "missing.html"), article(2)])
        assert e.value.filename == str(tmp_path / "missing.html")
        with pytest.raises(FileNotFoundError):
            store.import_(tmp_path / "none.wnx")
    assert issubclass(winnow.StoreError, OSError)
    if os.geteuid() != 0:  # root reads any file
        locked = tmp_path / "locked.html"
        locked.write_bytes(read(article(1)))
        locked.chmod(0)
        with winnow.Store(tmp_path / "s2") as store:
            with pytest.raises(PermissionError) as e:
                store.learn(SITE, [str(locked), article(2)])
        assert e.value.errno == errno.EACCES


# ---- crawling ----------------------------------------------------------------

def test_learn_url(store, http_site):
    rep = store.learn_url(http_site + "/news/", delay_ms=0, timeout_ms=5000)
    site = http_site[len("http://"):]
    assert rep["site"] == site and store.sites() == [site]
    assert rep["pages"][0]["http_status"] == 200
    with pytest.raises(winnow.NetworkError):
        store.learn_url("http://127.0.0.1:1/", delay_ms=0, timeout_ms=2000)
    with pytest.raises(winnow.InvalidError):
        store.learn_url("ftp://example.com/")


def test_help_reads():
    assert "Detector" in winnow.__doc__
    for obj in (winnow.extract, winnow.Store, winnow.Detector, winnow.Detector.detect,
                winnow.Detector.detect_many, winnow.Store.learn, winnow.Collector,
                winnow.warc.read):
        assert obj.__doc__ and len(obj.__doc__) > 40, obj


def test_spark_style_partition_matches_cli(learned):
    """docs/scaling.md's mapPartitions function (SparkFiles aside) gives the
    CLI's --jsonl lines byte for byte, error lines included."""
    winnow_bin = os.environ.get("WN_WINNOW")
    if not winnow_bin:
        pytest.skip("WN_WINNOW (the winnow program) not set")

    def detect(lines, snap):
        import json, winnow
        with winnow.Store(snap, readonly=True) as store, \
                winnow.Detector(store, count=False, want=["text", "nodes"]) as det:
            for line in lines:
                page = json.loads(line)
                try:
                    r = det.detect(page["html"], page.get("url"), site=page.get("site"))
                    yield r.json(id=page.get("id"))
                except winnow.Error as e:
                    yield json.dumps({"id": page.get("id"), "error": e.message},
                                     separators=(",", ":"), ensure_ascii=False)

    lines = [json.dumps({"id": n, "url": "https://%s/a%d" % (SITE, n),
                         "html": read(article(n)).decode("utf-8")}) for n in range(1, 8)]
    lines.append(json.dumps({"id": "png", "html": "\x89PNG\r\n\x1a\n"}))
    lines.append(json.dumps({"id": [1, "x"], "site": SITE, "html": read(article(6)).decode()}))
    learned.close()
    cli = subprocess.run([winnow_bin, "detect", "--store", learned.path, "--no-count", "--jsonl"],
                         input="\n".join(lines).encode() + b"\n", capture_output=True).stdout
    ours = "".join(line + "\n" for line in detect(lines, learned.path)).encode()
    assert ours == cli


# ---- trafilatura's calls -------------------------------------------------------

def _single(name: str) -> bytes:
    return read(os.path.join(os.path.dirname(article(1)), "..", name))


def test_extract_as_trafilatura():
    page = _single("single/article.html")
    # the blog's comment thread: out by default, kept after the story on request
    text = winnow.extract(page)
    with_comments = winnow.extract(page, include_comments=True)
    assert "About time too" not in text and "About time too" in with_comments
    assert with_comments.index("Councillors in Porthcarrow") < with_comments.index("About time")
    # None when the page has no content; the old keyword names still work
    assert winnow.extract(b"<html><body><nav><a href='/'>Home</a></nav></body></html>") is None
    assert winnow.extract(html=page, format="text") == text
    with pytest.raises(ValueError):
        winnow.extract(page, output_format="pdf")
    with pytest.raises(ValueError):
        winnow.extract(page, favor_precision=True, favor_recall=True)
    with pytest.raises(TypeError):
        winnow.extract(page, no_such_option=True)
    # metadata in text output: YAML front matter first
    meta = winnow.extract(page, with_metadata=True)
    assert meta.startswith("---\ntitle: ") and meta.endswith(text)


def test_extract_formats_and_tables():
    import html.parser
    import xml.etree.ElementTree as ET
    page = _single("markdown/article.html")
    # xml: well-formed, trafilatura's <doc><main><p>
    doc = ET.fromstring(winnow.extract(page, output_format="xml", with_metadata=True,
                                       url="https://example.org/rain"))
    assert doc.tag == "doc" and doc.get("source") == "https://example.org/rain"
    assert doc.get("title") and any("rain garden" in (p.text or "") for p in doc.iter("p"))
    # html: one <article> holding the content's elements, tables whole
    out = winnow.extract(page, output_format="html")
    assert out.startswith("<article>") and out.rstrip().endswith("</article>")
    assert "<table>" in out and "<th>Roof area</th>" in out

    class Tags(html.parser.HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.seen: set[str] = set()

        def handle_starttag(self, tag, attrs):
            self.seen.add(tag)

    p = Tags()
    p.feed(out)
    assert "article" in p.seen and "tr" in p.seen and "table" in p.seen
    # include_tables=False: the data table goes from every format
    assert "Roof area" in winnow.extract(page)
    for fmt in ("txt", "markdown", "html", "xml"):
        assert "Roof area" not in winnow.extract(page, output_format=fmt, include_tables=False)
    # include_images: images in Markdown only on request (trafilatura's default)
    assert "![" not in winnow.extract(page, output_format="markdown")
    assert "![" in winnow.extract(page, output_format="markdown", include_images=True)
    # include_links: links in Markdown only on request (trafilatura's default)
    assert "](" not in winnow.extract(page, output_format="markdown")
    assert "](https://example.org" in winnow.extract(page, output_format="markdown",
                                                      include_links=True)


def test_extract_favor_and_bare_extraction():
    page = _single("single/catalogue.html")
    words = {f: len((winnow.extract(page, **{f: True}) if f else winnow.extract(page)).split())
             for f in ("favor_precision", None, "favor_recall")}
    assert words["favor_precision"] < words[None] <= words["favor_recall"]
    d = winnow.bare_extraction(_single("single/article.html"),
                               url="https://www.harbourgazette.example/x")
    assert d["title"] == "Harbour town votes to rebuild its sea wall"
    assert d["hostname"] == "www.harbourgazette.example" and d["pagetype"] == "article"
    assert d["text"].startswith("Harbour town votes")
    assert winnow.bare_extraction(b"<html><body></body></html>") is None
    # the Detector takes the same leanings
    with pytest.raises(ValueError):
        winnow.Detector(None, favor="maybe")
    det = winnow.Detector(None, favor="recall", comments=True)
    assert "About time too" in det.detect(_single("single/article.html")).text


def test_document_as_readability_lxml():
    page = _single("single/article.html")
    doc = winnow.Document(page, url="https://www.harbourgazette.example/x")
    assert doc.title() == "Harbour town votes to rebuild its sea wall"
    whole = doc.summary()
    assert whole.startswith("<html><body><div>") and "Councillors in Porthcarrow" in whole
    part = doc.summary(html_partial=True)
    assert part.startswith("<div>") and "About time too" not in part
    assert winnow.Document(b"<html><body></body></html>").summary(html_partial=True) == "<div></div>"


def test_signatures_reprs_and_surrogates(tmp_path):
    import inspect
    sig = inspect.signature(winnow.Detector.detect)
    assert list(sig.parameters)[:3] == ["self", "page", "url"]
    assert sig.parameters["learn"].default is False
    assert "keep_pending" in inspect.signature(winnow.Collector).parameters
    assert "map_size" in inspect.signature(winnow.Store).parameters
    assert list(inspect.signature(winnow.Store.learn).parameters)[1:3] == ["site", "pages"]
    with winnow.Store(tmp_path / "s") as store:
        assert repr(store) == "<winnow.Store %r>" % str(tmp_path / "s")
        det = winnow.Detector(store, favor="recall")
        assert repr(det) == "<winnow.Detector store=%r, favor='recall'>" % str(tmp_path / "s")
        col = winnow.Collector(store)
        assert "0 pages held" in repr(col)
        del col
        det.close()
    with winnow.warc.Reader(tmp_path / "s" / "data.mdb") as reader:
        assert "0 pages read" in repr(reader) and "data.mdb" in repr(reader)
    assert "closed" in repr(reader)
    # a lone surrogate is no character: '?' and the page is read
    out = winnow.extract("<p>Half a pair \udc80 in a paragraph long enough to be read.</p>")
    assert out and "Half a pair ? in a paragraph" in out

