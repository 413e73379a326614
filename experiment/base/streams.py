"""What the package reads from outside (compressed files, server responses), bounded WHILE it is
read and made safe to write and print.

- `read_capped` reads a stream in chunks and stops at the cap: a body that never ends, or a gzip
  stream opened with `gzip.open`, takes at most the cap (plus one chunk) of memory.
- `gunzip_capped` expands gzip data (every member) in chunks: a first pass counts the expanded
  size, keeping nothing, so a small file that expands to gigabytes is refused in constant memory;
  only data within the cap is expanded a second time and kept.
- `safe_text` / `safe_strings`: a server's JSON may hold unpaired surrogates ("\\ud800") or
  non-characters, which no UTF-8 file or terminal can take; each becomes U+FFFD, so the run
  writes and prints what it got instead of ending in a traceback.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterator
from typing import IO, Any

CHUNK = 1 << 20  # bytes read or expanded at a time
GZIP_MAGIC = b"\x1f\x8b"
MAX_EXPANDED_MB = 256  # the data sets' files expand to a few tens of megabytes
REPLACEMENT = "\ufffd"
# unpaired surrogates, and the non-characters U+FFFE and U+FFFF
_UNSAFE = re.compile("[\ud800-\udfff\ufffe\uffff]")


class TooLarge(ValueError):
    """Input beyond the cap, found while reading it; `limit` is the cap in bytes."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(f"more than {limit / 2**20:g} MB")


def read_capped(stream: IO[bytes], limit: int) -> bytes:
    """Everything `stream` holds, read `CHUNK` bytes at a time; `TooLarge` as soon as it passes
    `limit` bytes (so at most `limit` + one chunk is ever held)."""
    out = bytearray()
    while block := stream.read(min(CHUNK, limit + 1 - len(out))):
        out += block
        if len(out) > limit:
            raise TooLarge(limit)
    return bytes(out)


def inflate(data: bytes, chunk: int = CHUNK) -> Iterator[bytes]:
    """The expanded bytes of gzip `data`, every member in turn, `chunk` bytes at most at a time.
    `zlib.error` for bytes after the last member that are not gzip, `EOFError` for a file cut
    short."""
    rest = data
    while rest:
        if rest[:2] != GZIP_MAGIC:
            raise zlib.error("trailing bytes after the last gzip member")
        member = zlib.decompressobj(wbits=31)
        pending = rest
        while not member.eof:
            out = member.decompress(pending, chunk)
            pending = member.unconsumed_tail
            if out:
                yield out
            elif not pending:
                break
        if not member.eof:
            raise EOFError("the gzip file ends before its data does")
        rest = member.unused_data


def gunzip_capped(data: bytes, limit: int) -> bytes:
    """gzip `data` expanded, refused with `TooLarge` where it expands beyond `limit` bytes: the
    size is counted first in constant memory, so a bomb never takes the memory."""
    size = 0
    for block in inflate(data):
        size += len(block)
        if size > limit:
            raise TooLarge(limit)
    return b"".join(inflate(data))


def safe_text(text: str) -> str:
    """`text` with every unpaired surrogate and non-character replaced by U+FFFD."""
    return _UNSAFE.sub(REPLACEMENT, text)


def safe_strings(value: Any) -> Any:
    """A decoded JSON value with every string in it (keys too) made safe (`safe_text`)."""
    if isinstance(value, str):
        return safe_text(value)
    if isinstance(value, list):
        return [safe_strings(v) for v in value]
    if isinstance(value, dict):
        return {
            safe_text(k) if isinstance(k, str) else k: safe_strings(v) for k, v in value.items()
        }
    return value
