"""Files every stage writes: atomic writes, and CSV that a spreadsheet opens safely.

Files are written atomically (temporary file, fsync, rename), so an interrupted run never leaves a
half-written file; they get the mode the umask gives a new file (0644 under 022), and a write
that fails names the file it was writing. Text cells that a spreadsheet would run as a formula
(starting with = + - @, tab or carriage return) are prefixed with a quote, as OWASP advises; cells
that read as numbers stay numbers.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import os
import re
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no lock
    fcntl = None  # type: ignore[assignment]

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")


def safe_name(text: str) -> bool:
    """A name that stays one plain file or folder name wherever it is joined: letters, digits,
    '-', '_' and '.', starting with a letter or digit, and no '..'."""
    return bool(_NAME.fullmatch(text)) and ".." not in text


_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def safe_cell(value: Any) -> Any:
    """A text cell a spreadsheet would run as a formula gets a leading quote (OWASP); a cell that
    is a plain number ("-5", "+3.5") stays as it is."""
    if not isinstance(value, str) or not value.startswith(FORMULA_START):
        return value
    return value if _NUMBER.fullmatch(value) else "'" + value


def read_cell(value: str) -> str:
    """The text `safe_cell` neutralized, as it was written (the leading quote removed)."""
    if value.startswith("'") and value[1:].startswith(FORMULA_START):
        return value[1:]
    return value


def _umask_mode() -> int:
    """The mode `open` gives a new file under the current umask (mkstemp's is always 0600)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write `data` (text as UTF-8, or bytes) to `path` all at once; an OSError names `path`,
    whatever step failed."""
    try:
        _write_then_rename(path, data.encode("utf-8") if isinstance(data, str) else data)
    except OSError as e:
        raise OSError(e.errno, e.strerror or str(e), str(path)) from e


def _write_then_rename(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, _umask_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """An exclusive lock on the file `path` (created if need be) while inside: one holder at a
    time, the others wait; released when the holder ends, even if it is killed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as f:
        if fcntl is not None:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        yield


def file_record(path: Path) -> dict[str, Any]:
    """A file's size and SHA-256, as a run's manifest records its outputs."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return {"bytes": path.stat().st_size, "sha256": h.hexdigest()}


def csv_text(rows: Iterable[Mapping[str, Any]], columns: Sequence[str]) -> str:
    """`rows` as spreadsheet-safe CSV text, in `columns` (a missing cell is empty)."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({c: safe_cell(_cell(row.get(c, ""))) for c in columns})
    return buf.getvalue()


def write_csv(path: Path, rows: Iterable[Mapping[str, Any]], columns: Sequence[str]) -> None:
    """`rows` as CSV at `path`, gzip-compressed (reproducibly: no name or time in the header)
    where the name ends in `.gz`."""
    text = csv_text(rows, columns)
    if path.suffix == ".gz":
        atomic_write(path, gzip.compress(text.encode("utf-8"), mtime=0))
    else:
        atomic_write(path, text)


def _cell(v: Any) -> Any:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:.6g}"
    return v
