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

__all__ = ["read", "segments", "Reader", "Record"]


def segments(path: "str | os.PathLike[str]", n: int) -> list[tuple[int, int]]:
    """Cuts the WARC file at path into n byte ranges (start, end) of about
    equal size, for n readers in parallel (``read(path, start=, end=)``,
    a Dask or process-pool task each): every record is read by exactly one
    of them, the one whose range holds the record's first byte (its gzip
    member's). A file gzipped whole is read by the first."""
    if n < 1:
        raise ValueError("n must be at least 1")
    size = os.path.getsize(path)
    cuts = [size * k // n for k in range(n + 1)]
    return [(cuts[k], cuts[k + 1] if k + 1 < n else 0) for k in range(n)
            if k + 1 == n or cuts[k + 1] > cuts[k]]


def read(path: "str | os.PathLike[str]", all_statuses: bool = False, *, start: int = 0,
         end: int = 0) -> Iterator[Record]:
    """Yields the HTML pages of the WARC file at path (gzip or not; "-":
    standard input) as Records, in file order.

    Raises winnow.FileError (FileNotFoundError, PermissionError) for a file
    that cannot be read, and winnow.InvalidError, after the last page, for a
    file that holds bytes but no WARC record (not a WARC file), as
    ``winnow detect --warc`` exits 1; an empty file yields nothing.
    ``start`` and ``end``: a segment of the file (``segments()``)."""
    from . import InvalidError
    with Reader(path, all_statuses=all_statuses, start=start, end=end) as r:
        yield from r
        st = r.stats()
    if st["records"] == 0 and st["damaged"] > 0 and start == 0:
        raise InvalidError("%s: no WARC record (not a WARC file?)" % os.fspath(path),
                           2, "WN_EINVAL")
