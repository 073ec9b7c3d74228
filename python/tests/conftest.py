"""Fixtures of the Python package's tests: the repository's own test pages
(tests/fixtures), a fresh store in a temporary directory, a WARC file
written here, and a loopback HTTP server for crawling."""
import functools
import gzip
import http.server
import os
import threading

import pytest

FIXTURES = os.environ.get("WN_FIXTURES") or os.path.join(
    os.path.dirname(__file__), "..", "..", "tests", "fixtures")
SITE = "www.harbourgazette.example"


def article(n: int) -> str:
    return os.path.join(FIXTURES, "site", "article-%d.html" % n)


def read(path: str) -> bytes:
    with open(path, "rb") as f:
        return f.read()


@pytest.fixture
def store(tmp_path):
    import winnow
    with winnow.Store(tmp_path / "store") as s:
        yield s


@pytest.fixture
def learned(store):
    """A store that holds SITE's template, learned from articles 1-5."""
    store.learn(SITE, [article(n) for n in range(1, 6)])
    return store


def warc_record(url: str, body: bytes, status: str = "200 OK",
                content_type: str = "text/html; charset=utf-8") -> bytes:
    http_msg = ("HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n"
                % (status, content_type, len(body))).encode() + body
    head = ("WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: %s\r\n"
            "WARC-Date: 2026-11-28T00:00:00Z\r\n"
            "WARC-Record-ID: <urn:uuid:%08d-0000-0000-0000-000000000000>\r\n"
            "Content-Type: application/http; msgtype=response\r\n"
            "Content-Length: %d\r\n\r\n" % (url, abs(hash(url)) % 10**8, len(http_msg))).encode()
    return gzip.compress(head + http_msg + b"\r\n\r\n")


@pytest.fixture
def warc_file(tmp_path):
    """A .warc.gz of articles 6 and 7 of SITE, a 404 and an image between."""
    path = tmp_path / "pages.warc.gz"
    with open(path, "wb") as f:
        f.write(warc_record("https://%s/a6" % SITE, read(article(6))))
        f.write(warc_record("https://%s/logo.png" % SITE, b"\x89PNG\r\n\x1a\n", "200 OK",
                            "image/png"))
        f.write(warc_record("https://%s/gone" % SITE, b"<html>gone</html>", "404 Not Found"))
        f.write(warc_record("https://%s/a7" % SITE, read(article(7))))
    return path


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def http_site():
    """tests/fixtures/nset-site served on 127.0.0.1 (a port of its own)."""
    handler = functools.partial(_Quiet, directory=os.path.join(FIXTURES, "nset-site"))
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield "http://127.0.0.1:%d" % srv.server_address[1]
    srv.shutdown()
    srv.server_close()
