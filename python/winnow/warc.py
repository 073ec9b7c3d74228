"""WARC files: ``for rec in winnow.warc.read(path): detector.detect(rec)``.

A record is a winnow.warc.Record: .url, .payload (bytes), .charset,
.content_type, .http_status, .date, .record_id, .type, .offset. Only HTML
responses with a 2xx status are pages (``all_statuses=True``: any status);
damaged records are skipped and counted, never fatal (Reader.stats()).
"""
from __future__ import annotations

import os
from typing import Iterator

from ._winnow import WarcReader as Reader, WarcRecord as Record

__all__ = ["read", "Reader", "Record"]


def read(path: "str | os.PathLike[str]", all_statuses: bool = False) -> Iterator[Record]:
    """Yields the HTML pages of the WARC file at path (gzip or not; "-":
    standard input) as Records, in file order.

    Raises winnow.FileError (FileNotFoundError, PermissionError) for a file
    that cannot be read, and winnow.InvalidError, after the last page, for a
    file that holds bytes but no WARC record (not a WARC file), as
    ``winnow detect --warc`` exits 1; an empty file yields nothing."""
    from . import InvalidError
    with Reader(path, all_statuses=all_statuses) as r:
        yield from r
        st = r.stats()
    if st["records"] == 0 and st["damaged"] > 0:
        raise InvalidError("%s: no WARC record (not a WARC file?)" % os.fspath(path),
                           2, "WN_EINVAL")
