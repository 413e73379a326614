"""Read a GGUF file's header and tensor table to tell, before llama.cpp loads it, whether the
file is whole: the tensor data must reach as far as the table says.

Only the layout is read (version 2 and 3: little-endian header, metadata key-values, tensor
infos, aligned data section). Tensor sizes come from ggml's block sizes; a tensor of a type not in
the table is validated by its start offset only.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

# ggml type id -> (bytes per block, elements per block)
TYPE_SIZES = {
    0: (4, 1), 1: (2, 1), 2: (18, 32), 3: (20, 32), 6: (22, 32), 7: (24, 32), 8: (34, 32),
    9: (36, 32), 10: (84, 256), 11: (110, 256), 12: (144, 256), 13: (176, 256), 14: (210, 256),
    15: (292, 256), 24: (1, 1), 25: (2, 1), 26: (4, 1), 27: (8, 1), 28: (8, 1), 30: (2, 1),
}  # fmt: skip
_SCALAR = {
    0: "B",
    1: "b",
    2: "H",
    3: "h",
    4: "I",
    5: "i",
    6: "f",
    7: "?",
    10: "Q",
    11: "q",
    12: "d",
}
STRING, ARRAY = 8, 9


class Truncated(ValueError):
    """The file ends before what its header promises."""


def _read(f: BinaryIO, fmt: str) -> tuple:  # type: ignore[type-arg]
    size = struct.calcsize("<" + fmt)
    data = f.read(size)
    if len(data) != size:
        raise Truncated("the header is cut short")
    return struct.unpack("<" + fmt, data)


def _string(f: BinaryIO) -> bytes:
    (n,) = _read(f, "Q")
    if n > 1 << 24:
        raise ValueError(f"a string of {n:,} bytes in the header")
    data = f.read(n)
    if len(data) != n:
        raise Truncated("the header is cut short")
    return data


class _Array(int):
    """An array's length, where the header holds an array (its items are skipped)."""


def _value(f: BinaryIO, kind: int) -> object:
    if kind == STRING:
        return _string(f)
    if kind == ARRAY:
        inner, n = _read(f, "IQ")
        if inner in _SCALAR:  # skip scalar arrays (token scores, types) in one seek
            f.seek(n * struct.calcsize(_SCALAR[inner]), 1)
        else:
            for _ in range(n):
                _value(f, inner)
        return _Array(n)
    if kind not in _SCALAR:
        raise ValueError(f"unknown metadata type {kind}")
    return _read(f, _SCALAR[kind])[0]


@dataclass(frozen=True)
class Header:
    """A GGUF file's metadata (scalars and strings; an array as its length) and tensor table."""

    metadata: dict[str, object]
    tensors: dict[str, tuple[tuple[int, ...], int, int]]  # name -> (dims, ggml type, offset)
    data_start: int

    def elements(self, name: str) -> int:
        return math.prod(self.tensors[name][0]) if name in self.tensors else 0


def read_header(path: Path) -> Header:
    """The header and tensor table of a GGUF v2/v3 file; raises if they are unreadable."""
    with path.open("rb") as f:
        magic, version = _read(f, "4sI")
        if magic != b"GGUF" or version not in (2, 3):
            raise ValueError(f"not a GGUF v2/v3 file (magic {magic!r}, version {version})")
        n_tensors, n_kv = _read(f, "QQ")
        metadata: dict[str, object] = {}
        for _ in range(n_kv):
            key = _string(f).decode("utf-8", errors="replace")
            (kind,) = _read(f, "I")
            value = _value(f, kind)
            metadata[key] = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        tensors = {}
        for _ in range(n_tensors):
            name = _string(f).decode("utf-8", errors="replace")
            (n_dims,) = _read(f, "I")
            dims = _read(f, "Q" * n_dims)
            ttype, offset = _read(f, "IQ")
            tensors[name] = (tuple(dims), ttype, offset)
        alignment = metadata.get("general.alignment", 32)
        alignment = alignment if isinstance(alignment, int) and alignment > 0 else 32
        data_start = -(-f.tell() // alignment) * alignment
    return Header(metadata, tensors, data_start)


def expected_size(path: Path) -> int:
    """The smallest file size the header and tensor table allow; raises if they are unreadable."""
    header = read_header(path)
    end = 0
    for dims, ttype, offset in header.tensors.values():
        block_bytes, block = TYPE_SIZES.get(ttype, (0, 1))
        end = max(end, offset + math.prod(dims) // block * block_bytes)
    return header.data_start + end


def validate_whole(path: Path) -> None:
    """Raise `Truncated` (or ValueError for an unreadable table) if the file is not whole."""
    need = expected_size(path)
    have = path.stat().st_size
    if have < need:
        raise Truncated(f"has {have:,} bytes, its tensor table needs {need:,}")
