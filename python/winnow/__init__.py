"""winnow: the main content of web pages, by learning each site's template.

One page, no store (the single-page method)::

    import winnow
    text = winnow.extract(html_bytes, url="https://example.com/a")

Many pages of known sites (the template of each, learned once)::

    with winnow.Store("templates") as store:
        store.learn("example.com", [page1, page2, page3])   # bytes or paths
        det = winnow.Detector(store)
        r = det.detect(html_bytes, url="https://example.com/b")
        r.text, r.method, r.confidence, r.fallback

Many pages at once, GIL released: ``Detector.detect_many(pages, threads=4)``.
A WARC file: ``for rec in winnow.warc.read(path): det.detect(rec)``.
Learning while detecting: ``Detector(store, collector=winnow.Collector(store))``
and ``detect(..., learn=True)``.

A Detector is one thread's (it raises RuntimeError elsewhere); a Store and a
Collector may be shared by threads. Errors are winnow.Error (with .code,
.name, .message) or a subclass of it; those of files and of the store are
OSErrors too (FileNotFoundError, PermissionError where that is the cause).
"""
from __future__ import annotations

import collections
import concurrent.futures
import os
import threading
from typing import Any, Iterable, Iterator

from . import _winnow
from ._winnow import Collector, Result, Store, site_from_url

__all__ = [
    "extract", "bare_extraction", "Document", "Store", "Detector", "Result", "Collector", "site_from_url", "warc",
    "Error", "StoreError", "FileError", "FileMissingError", "FileDeniedError", "DamagedError",
    "SiteError", "PageError", "NotHTMLError", "NoTemplateError", "NetworkError", "InvalidError", "version", "__version__",
]

version = _winnow.version
__version__ = version


class Error(Exception):
    """An error of winnow: .code (its number), .name ("WN_E...") and .message."""

    def __init__(self, message: str, code: int = 0, name: str = ""):
        super().__init__(message)
        self.message = message
        self.code = code
        self.name = name


class StoreError(Error, OSError):
    """The store cannot be opened, read or written (WN_ESTORE, WN_ENOSPACE;
    a damaged store is WN_ESTORE, its message says what to do). An
    OSError too."""

    def __str__(self) -> str:
        return self.message


class FileError(Error, OSError):
    """A file winnow was given cannot be read or written (a page, a WARC,
    a store's directory, a snapshot): an OSError whose errno, strerror and
    filename say why, as the OS does; its subclasses are FileNotFoundError
    and PermissionError where that is the cause. .code and .name are the
    library's (WN_ENOTFOUND, WN_EIO, WN_ESTORE)."""

    def __str__(self) -> str:
        return self.message


class FileMissingError(FileError, FileNotFoundError):
    """No such file or directory."""


class FileDeniedError(FileError, PermissionError):
    """Permission denied."""


class DamagedError(Error):
    """A stored template or a snapshot file is damaged (WN_ECORRUPT,
    WN_EVERSION): the site's, not the whole store's."""


class SiteError(Error, ValueError):
    """Not a site name (WN_EINVAL from a site check)."""


class PageError(Error):
    """A page that cannot be read: past the byte, node or depth caps, not
    parseable, not decodable (WN_ETOOBIG, WN_ETOOMANY, WN_ETOODEEP,
    WN_EPARSE, WN_ECHARSET)."""


class NotHTMLError(PageError):
    """The page is not HTML (WN_ENOTHTML)."""


class NoTemplateError(Error, KeyError):
    """The site has no template (WN_ENOTEMPLATE)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return self.message


class NetworkError(Error):
    """Fetching failed (WN_ENET, WN_ETIMEOUT, WN_EHTTP, WN_EROBOTS, WN_EREDIRECT)."""


class InvalidError(Error, ValueError):
    """An argument winnow refuses (WN_EINVAL)."""


_CLASSES = {
    "WN_ESTORE": StoreError, "WN_ENOSPACE": StoreError,
    "WN_ECORRUPT": DamagedError, "WN_EVERSION": DamagedError,
    "WN_ETOOBIG": PageError, "WN_ETOOMANY": PageError, "WN_ETOODEEP": PageError,
    "WN_EPARSE": PageError, "WN_ECHARSET": PageError, "WN_ENOTHTML": NotHTMLError,
    "WN_ENOTEMPLATE": NoTemplateError,
    "WN_ENET": NetworkError, "WN_ETIMEOUT": NetworkError, "WN_EHTTP": NetworkError,
    "WN_EROBOTS": NetworkError, "WN_EREDIRECT": NetworkError,
    "WN_EINVAL": InvalidError,
}
# A site name is checked before each call that takes one: SiteError.
# A path that cannot be read: a file error (FileError and its subclasses).
_winnow._set_errors(Error, dict(_CLASSES, site=SiteError, file=FileError,
                                file_missing=FileMissingError, file_denied=FileDeniedError))


class Detector(_winnow._Detector):
    """Detector(store=None, *, min_confidence=0.25, fallback="danag",
    collector=None, want=("text", "metadata"), count=True)

    Detects the main content of pages with the templates of ``store``
    (None: every page by the single-page method). ``want``: what each
    Result renders by default, any of "text", "markdown", "html", "nodes",
    "metadata", "front_matter". ``count``: count detections in the store
    (drift), when it is writable.

    A Detector is one thread's: detect() from another thread raises
    RuntimeError. detect_many() makes one per worker thread itself.
    """

    def __init__(self, store: Store | None = None, **options: Any) -> None:
        super().__init__(store, **options)
        self._options = options

    def __enter__(self) -> "Detector":
        return self

    def __repr__(self) -> str:
        store = self.store
        opts = "".join(", %s=%r" % kv for kv in sorted(self._options.items())
                       if kv[0] != "collector")
        return "<winnow.Detector store=%s%s%s>" % (
            repr(store.path) if store is not None else "None",
            ", collector" if self.collector is not None else "", opts)

    def __reduce__(self) -> tuple[Any, ...]:
        # Pickled as its parameters: the worker that unpickles it opens its
        # store again and makes a Detector of its own (one per thread).
        return (_detector_from, (self.store, self._options))

    def detect_many(self, pages: Iterable[Any], threads: int = 1,
                    want: Any = None, raise_errors: bool = False) -> Iterator[Result]:
        """Detects every page of ``pages`` and yields a Result for each, in
        input order. A page is bytes, str, a winnow.warc.Record, a tuple
        (page, url) or a dict with "html" (or "path"), "url", "site",
        "charset". ``threads`` worker threads detect at once (each with a
        Detector of its own on the same store; the GIL is released while
        winnow works); at most 4 x threads pages are in flight. A page that
        cannot be read or detected (not HTML, past the caps, a "path" that
        cannot be opened) yields a Result whose ``error`` says why, every
        other field None (as ``winnow detect --jsonl`` writes an error line
        and goes on); with ``raise_errors`` its error is raised here
        instead, in order, and the batch ends."""
        if threads < 1:
            raise ValueError("threads must be at least 1")
        if threads == 1:
            for p in pages:
                yield self._detect_safe(self, p, want, raise_errors)
            return
        local = threading.local()
        made: list[Detector] = []
        lock = threading.Lock()
        opts = dict(self._options)

        def work(item: Any) -> Result:
            det = getattr(local, "det", None)
            if det is None:
                det = Detector(self.store, **opts)
                local.det = det
                with lock:
                    made.append(det)
            return self._detect_safe(det, item, want, raise_errors)

        pool = concurrent.futures.ThreadPoolExecutor(max_workers=threads)
        try:
            window: collections.deque = collections.deque()
            for p in pages:
                window.append(pool.submit(work, p))
                if len(window) >= 4 * threads:
                    yield window.popleft().result()
            while window:
                yield window.popleft().result()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            # Each worker's detector belongs to its thread; once the pool is
            # down no thread uses them: free them here.
            for det in made:
                det._release()

    def _release(self) -> None:
        # close() from the thread that owns it is the normal path; a
        # detector whose thread has ended is closed through its finaliser.
        try:
            self.close()
        except RuntimeError:
            pass

    @staticmethod
    def _detect_safe(det: "Detector", item: Any, want: Any, raise_errors: bool) -> Result:
        if raise_errors:
            return Detector._detect_item(det, item, want)
        try:
            return Detector._detect_item(det, item, want)
        except (Error, OSError) as e:
            return _winnow._error_result(str(e) or type(e).__name__)

    @staticmethod
    def _detect_item(det: "Detector", item: Any, want: Any) -> Result:
        if isinstance(item, tuple):
            page, url = item
            return det.detect(page, url, want=want)
        if isinstance(item, dict):
            page = item.get("html")
            if page is None:
                path = item.get("path")
                if path is None:
                    raise ValueError('a page dict needs "html" or "path"')
                with open(path, "rb") as f:
                    page = f.read()
            return det.detect(page, item.get("url"), site=item.get("site"),
                              charset=item.get("charset"), want=want)
        return det.detect(item, want=want)


def _detector_from(store: Store | None, options: dict[str, Any]) -> Detector:
    return Detector(store, **options)


# trafilatura's output formats and winnow's own names for them.
_OUTPUTS = {"txt": "text", "text": "text", "markdown": "markdown", "html": "html",
            "json": "json", "xml": "xml"}
_local = threading.local()


def _extract_detector(favor: str, comments: bool) -> Detector:
    """This thread's store-less detector for (favor, comments): extract()
    costs one parse, not a detector, per call."""
    cache = getattr(_local, "detectors", None)
    if cache is None:
        cache = _local.detectors = {}
    det = cache.get((favor, comments))
    if det is None:
        det = cache[(favor, comments)] = Detector(None, favor=favor, comments=comments)
    return det


def _xml_document(r: Result, url: str | None, with_metadata: bool) -> str:
    """trafilatura's XML: <doc> (its attributes the metadata) around
    <main>, one <p> per line of the text. Well-formed by construction
    (xml.etree escapes every value)."""
    import xml.etree.ElementTree as ET
    doc = ET.Element("doc")
    if with_metadata and r.metadata:
        for key, value in sorted(r.metadata.items()):
            if value:
                doc.set(key, value)
    if url:
        doc.set("source", url)
    main = ET.SubElement(doc, "main")
    for line in (r.text or "").splitlines():
        if line.strip():
            ET.SubElement(main, "p").text = _xml_safe(line)
    return ET.tostring(doc, encoding="unicode")


def _xml_safe(s: str) -> str:
    # XML 1.0 has no place for most control characters; drop them.
    return "".join(c for c in s if c in "\t\n\r" or ord(c) >= 0x20)


def bare_extraction(filecontent: bytes | str | None = None, url: str | None = None, *,
                    include_comments: bool = False, include_tables: bool = True,
                    include_links: bool = False, include_images: bool = False,
                    with_metadata: bool = True, favor_precision: bool = False,
                    favor_recall: bool = False, html: bytes | str | None = None
                    ) -> dict[str, Any] | None:
    """The main content of one page and its metadata as a dict, as
    trafilatura's bare_extraction(): "text", "title", "author", "date",
    "url", "hostname", "description", "sitename", "language", "pagetype"
    (winnow's page_type), "method"; None when the page has no content.
    The options are extract()'s."""
    r = _extract_result(filecontent, html, url, "txt", include_comments, include_tables,
                        include_links, include_images, with_metadata, favor_precision,
                        favor_recall)
    if r is None:
        return None
    meta = r.metadata or {}
    host = None
    source = url or meta.get("canonical_url")
    if source:
        import urllib.parse
        host = urllib.parse.urlsplit(source).hostname
    return {"text": r.text, "title": meta.get("title"), "author": meta.get("author"),
            "date": meta.get("date"), "url": source, "hostname": host,
            "description": meta.get("description"), "sitename": meta.get("site_name"),
            "language": meta.get("language"), "pagetype": r.page_type, "method": r.method}


def _extract_result(filecontent: Any, html: Any, url: str | None, output_format: str,
                    include_comments: bool, include_tables: bool, include_links: bool,
                    include_images: bool, with_metadata: bool, favor_precision: bool,
                    favor_recall: bool) -> Result | None:
    if filecontent is not None and html is not None:
        raise TypeError("extract() takes the page once: filecontent or html=, not both")
    page = filecontent if filecontent is not None else html
    if page is None:
        raise TypeError("extract() needs the page (bytes or str)")
    if output_format not in _OUTPUTS:
        raise ValueError("output_format must be one of %s, not %r"
                         % (", ".join(sorted(_OUTPUTS)), output_format))
    if favor_precision and favor_recall:
        raise ValueError("favor_precision and favor_recall exclude each other")
    favor = "precision" if favor_precision else "recall" if favor_recall else "balanced"
    det = _extract_detector(favor, bool(include_comments))
    fmt = _OUTPUTS[output_format]
    want = ["text"] if fmt in ("json", "xml", "text") else [fmt]
    if with_metadata or fmt in ("json", "xml"):
        want.append("front_matter" if fmt == "markdown" and with_metadata else "metadata")
    if not include_tables:
        want.append("no_tables")
    if not include_links:
        want.append("no_links")
    if not include_images:
        want.append("no_images")
    r = det.detect(page, url, want=want)
    if not (r.text if fmt in ("json", "xml", "text") else getattr(r, fmt)):
        return None
    return r


def extract(filecontent: bytes | str | None = None, url: str | None = None,
            output_format: str = "txt", *, include_comments: bool = False,
            include_tables: bool = True, include_links: bool = False,
            include_images: bool = False, with_metadata: bool = False,
            favor_precision: bool = False, favor_recall: bool = False,
            html: bytes | str | None = None, format: str | None = None,
            metadata: bool | None = None) -> str | None:
    """The main content of one page, by the single-page method (no store),
    as trafilatura's extract() is called; None when the page has none.

    ``filecontent`` (or ``html=``): bytes (the charset is detected as
    winnow detect does: BOM, <meta>, a guess) or str. ``url``: the page's
    address (links in markdown and html output are made absolute against
    it; "source" in json and xml). ``output_format``: "txt" (or "text"),
    "markdown", "html" (the content's elements, tables and lists whole),
    "json" (winnow detect --format json) or "xml" (trafilatura's <doc>
    with a <p> per line). ``include_comments``: the page's comment
    threads after the content. ``include_tables``: data tables (False:
    left out of every format). ``include_links`` and ``include_images``:
    links and images in Markdown. ``with_metadata``: title, author, date...
    (json, xml; markdown: YAML front matter). ``favor_precision``: the
    density reading's block alone; ``favor_recall``: every block
    Readability's reading keeps too. ``format`` and ``metadata`` are the
    older names of ``output_format`` and ``with_metadata``.
    Raises NotHTMLError for a page that is not HTML, PageError past the caps.
    """
    if format is not None:
        output_format = format
    if metadata is not None:
        with_metadata = metadata
    r = _extract_result(filecontent, html, url, output_format, include_comments,
                        include_tables, include_links, include_images, with_metadata,
                        favor_precision, favor_recall)
    if r is None:
        return None
    fmt = _OUTPUTS[output_format]
    if fmt == "json":
        return r.json()
    if fmt == "xml":
        return _xml_document(r, url, with_metadata)
    if fmt == "html":
        return _html_document(r, with_metadata)
    if fmt == "text" and with_metadata:
        return _front_matter(r.metadata) + (r.text or "")
    return getattr(r, fmt)


def _front_matter(meta: dict[str, Any] | None) -> str:
    """The metadata as YAML front matter, as winnow writes it before
    Markdown (each value a JSON string, which YAML reads)."""
    import json
    lines = ["%s: %s" % (k, json.dumps(v, ensure_ascii=False))
             for k, v in (meta or {}).items() if v]
    return "---\n" + "".join(line + "\n" for line in lines) + "---\n" if lines else ""


def _html_document(r: Result, with_metadata: bool) -> str:
    """The content's elements in an <article>, which a browser renders as
    the page showed them; with the metadata, a whole document whose <head>
    holds it."""
    import html as _html
    body = "<article>\n%s</article>\n" % (r.html or "")
    if not with_metadata:
        return body
    meta = r.metadata or {}
    head = ['<meta charset="utf-8">']
    title = meta.get("title")
    if title:
        head.append("<title>%s</title>" % _html.escape(title))
    for k, v in meta.items():
        if v and k != "title":
            head.append('<meta name="%s" content="%s">' % (_html.escape(k), _html.escape(v)))
    lang = meta.get("language")
    return ('<!DOCTYPE html>\n<html%s><head>%s</head><body>\n%s</body></html>\n'
            % (' lang="%s"' % _html.escape(lang) if lang else "", "".join(head), body))


class Document:
    """readability-lxml's call: ``Document(html).summary()`` is the main
    content as HTML (a whole document; ``html_partial=True``: its <div>),
    ``title()`` the page's title. The single-page method, as extract()."""

    def __init__(self, input: bytes | str, url: str | None = None) -> None:
        self._result = _extract_detector("balanced", False).detect(
            input, url, want=["html", "metadata"])

    def title(self) -> str:
        return (self._result.metadata or {}).get("title") or ""

    def short_title(self) -> str:
        return self.title()

    def summary(self, html_partial: bool = False) -> str:
        div = "<div>%s</div>" % (self._result.html or "")
        return div if html_partial else "<html><body>%s</body></html>" % div


from . import warc  # noqa: E402  (the submodule needs the names above)
