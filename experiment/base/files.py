"""Files every stage writes: atomic writes, a ledger of the files the tool owns, and CSV that a
spreadsheet opens safely.

Files are written atomically (temporary file in the same folder, fsync, rename), so an
interrupted run never leaves a half-written file; the temporary's name carries the writer's
process id, and the next writer into the folder removes those of a writer that is gone. They get
the mode the umask gives a new file (0644 under 022), and a write that fails names the file.

`Ledger`: a folder's `.factqa-owned.json` maps each file the tool wrote (relative path) to the
SHA-256 of what it wrote. A file is replaced or removed only where the ledger names it and its
content still has that SHA-256; any other file (the user's, or one the user edited) is refused
with `NotOwned`, naming the file and the fix. `Ledger.swap` moves a staged folder's files in as
one step: the plan is written first, and a writer killed while it moves files is finished by the
next writer (`recover`), so a reader sees the old set or the new one once anything runs again.

A text cell is quoted only where a spreadsheet would run it as a formula (`safe_cell`); the
quote is undone on reading (`read_cell`), so every value reads back as written.
"""

from __future__ import annotations

import csv
import glob
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from experiment.base.errors import InputError

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


_OPERATOR = frozenset("=(|!@&+-*/^")  # after a leading + or -: an expression, not a value


def formula_risk(value: str) -> bool:
    """Whether a spreadsheet would run `value` as a formula: it starts with '=', '@', a tab or a
    carriage return, or with '+' or '-' and holds an operator, a call or a reference after it
    ("-2+3", "+cmd|' /C calc'!A0", "-SUM(A1)"). A signed number ("-12") or signed text
    ("-12 stores", "- see note", "-x") is a value, shown as written."""
    if value.startswith(("=", "@", "\t", "\r")):
        return True
    if value.startswith(("+", "-")) and not _NUMBER.fullmatch(value):
        return any(c in _OPERATOR for c in value[1:])
    return False


def _quoted_form(value: str) -> bool:
    """A value that reads as one `safe_cell` quoted: quotes, then a formula's first character."""
    return value.startswith("'") and value.lstrip("'").startswith(FORMULA_START)


def safe_cell(value: Any) -> Any:
    """A text cell a spreadsheet would run as a formula gets a leading quote (OWASP), and so
    does one that already reads as quoted (so `read_cell` gives it back); any other value, a
    signed number or signed text included, stays as it is."""
    if not isinstance(value, str) or not (formula_risk(value) or _quoted_form(value)):
        return value
    return "'" + value


def read_cell(value: str) -> str:
    """The text `safe_cell` quoted, as it was written (one leading quote removed); files written
    before the guard narrowed (every cell starting with a formula character) read the same."""
    return value[1:] if _quoted_form(value) else value


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
    _remove_stale_temporaries(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=temporary_prefix(path.name), suffix=".tmp")
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


def csv_data(name: str, rows: Iterable[Mapping[str, Any]], columns: Sequence[str]) -> bytes:
    """The bytes of the CSV file `name`: gzip-compressed (reproducibly: no name or time in the
    header) where the name ends in `.gz`."""
    data = csv_text(rows, columns).encode("utf-8")
    return gzip.compress(data, mtime=0) if name.endswith(".gz") else data


def write_csv(path: Path, rows: Iterable[Mapping[str, Any]], columns: Sequence[str]) -> None:
    """`rows` as CSV at `path` (`csv_data`), written atomically."""
    atomic_write(path, csv_data(path.name, rows, columns))


def _cell(v: Any) -> Any:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:.6g}"
    return v


TEMPORARY = re.compile(r"\..+\.factqa-(\d+)-[^/]*\.tmp")  # a temporary of `atomic_write`
STAGING = re.compile(r"\.factqa-[a-z]+-(\d+)-[^/]*")  # a staged folder of `Ledger.stage`
LEDGER = ".factqa-owned.json"
PLAN = "plan.json"  # in a staged folder: what `Ledger.swap` moves in and removes


def temporary_prefix(name: str) -> str:
    """The start of a temporary's name for the file `name`: it names the writing process."""
    return f".{name}.factqa-{os.getpid()}-"


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    return str(file_record(path)["sha256"])


_ACTIVE: set[Path] = set()  # this process's staged folders in use


def _gone(pid: int) -> bool:
    """Whether the process `pid` has ended (this process never has)."""
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # another user's process: running
        return False
    return False


class NotOwned(InputError):
    """A file the tool would replace or remove but did not write (or the user changed since)."""

    def __init__(self, path: Path, fix: str) -> None:
        super().__init__(
            "factqa did not write this file (or it was changed since), so it is not replaced "
            "or removed",
            path=path,
            fix=fix,
        )


class Ledger:
    """The files of one folder the tool owns: relative path -> SHA-256 of what it wrote.

    Open it with `Ledger.open`, which first finishes or removes what a killed writer left.
    Every replace or remove checks ownership first (`check`); a write records the SHA-256 it
    is about to write as pending before it renames, so a writer killed at any point leaves a
    file the ledger still owns."""

    def __init__(self, folder: Path, files: dict[str, str], pending: dict[str, str]) -> None:
        self.folder = folder
        self.files = files
        self.pending = pending

    @classmethod
    def open(cls, folder: Path, adopt: Mapping[str, str] | None = None) -> Ledger:
        """The ledger of `folder` (empty where there is none or it is damaged: then nothing is
        owned). A folder written before ledgers were kept adopts `adopt` (relative path ->
        SHA-256 an earlier record of the tool wrote): each file whose content still has that
        SHA-256, and no other."""
        recover(folder)
        path = folder / LEDGER
        if not path.is_file():
            found = {
                rel: sha
                for rel, sha in (adopt or {}).items()
                if _inside(rel) and (folder / rel).is_file() and sha256_file(folder / rel) == sha
            }
            return cls(folder, found, {})
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            data = {}
        files, pending = (
            _entries(data.get(k) if isinstance(data, dict) else None) for k in ("files", "pending")
        )
        for rel, sha in pending.items():  # a writer killed between its rename and its record
            if (folder / rel).is_file() and sha256_file(folder / rel) == sha:
                files[rel] = sha
        return cls(folder, files, {})

    def names(self, rel: str) -> bool:
        """Whether the tool wrote `rel` here (whatever it holds now)."""
        return rel in self.files or rel in self.pending

    def owns(self, rel: str) -> bool:
        """Whether `rel` is a file this ledger owns with the content it recorded."""
        path = self.folder / rel
        if not path.is_file():
            return False
        shas = {self.files.get(rel), self.pending.get(rel)} - {None}
        return bool(shas) and sha256_file(path) in shas

    def check(self, rel: str, fix: str) -> None:
        """Refuse (`NotOwned`) to replace or remove `rel` where it exists and is not owned."""
        path = self.folder / rel
        if (path.exists() or path.is_symlink()) and not self.owns(rel):
            raise NotOwned(path, fix)

    def save(self) -> None:
        data = {"files": dict(sorted(self.files.items()))}
        if self.pending:
            data["pending"] = dict(sorted(self.pending.items()))
        atomic_write(self.folder / LEDGER, json.dumps(data, indent=1) + "\n")

    def write(
        self, items: Mapping[str, str | bytes], fix: str, replace_theirs: bool = False
    ) -> None:
        """Write each relative path of `items` atomically, after refusing the whole set if any
        exists and is not owned (unless `replace_theirs`: the user asked to replace it); the
        ledger records each SHA-256 before the file is renamed."""
        data = {rel: v.encode("utf-8") if isinstance(v, str) else v for rel, v in items.items()}
        for rel in data if not replace_theirs else ():
            self.check(rel, fix)
        self.pending.update({rel: sha256_bytes(b) for rel, b in data.items()})
        self.save()
        for rel, b in data.items():
            atomic_write(self.folder / rel, b)
        self.files.update({rel: self.pending.pop(rel) for rel in data})
        self.save()

    def place(self, rel: str, tmp: Path, fix: str) -> None:
        """Rename the finished file `tmp` (in this folder) to `rel`, as `write` would."""
        self.check(rel, fix)
        self.pending[rel] = sha256_file(tmp)
        self.save()
        os.replace(tmp, self.folder / rel)
        self.files[rel] = self.pending.pop(rel)
        self.save()

    def remove(self, rels: Iterable[str], fix: str) -> None:
        """Remove each of `rels` this ledger owns; refuse them all if one exists unowned."""
        rels = list(rels)
        for rel in rels:
            self.check(rel, fix)
        for rel in rels:
            (self.folder / rel).unlink(missing_ok=True)
            self.files.pop(rel, None)
            self.pending.pop(rel, None)
        self.save()

    @contextmanager
    def stage(self, job: str) -> Iterator[Path]:
        """A hidden folder beside the files to write a whole set into before `swap`; removed on
        leaving (or, after a kill, by the next `Ledger.open`)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".factqa-{job}-{os.getpid()}-", dir=self.folder))
        _ACTIVE.add(staging.resolve())
        try:
            yield staging
        finally:
            _ACTIVE.discard(staging.resolve())
            if not (staging / PLAN).exists():  # a swap that failed midway: `recover` ends it
                shutil.rmtree(staging, ignore_errors=True)

    def swap(
        self, staging: Path, remove: Iterable[str], fix: str, forget: Iterable[str] = ()
    ) -> None:
        """Move every file of `staging` to the same place here and remove `remove` (owned
        files), as one step: each is checked first, then the plan is written (from then on a
        killed writer's work is finished by the next `Ledger.open`), then applied. `forget`:
        files of the tool that the ledger replaces (an earlier record), removed too."""
        new = {
            str(p.relative_to(staging)): sha256_file(p)
            for p in sorted(staging.rglob("*"))
            if p.is_file() and p.name != PLAN
        }
        gone = sorted(set(remove) - set(new))
        for rel in [*new, *gone]:
            self.check(rel, fix)
        plan = {
            "files": new,
            "remove": {  # "" where the file is gone already: only its record is dropped
                rel: sha256_file(self.folder / rel) if (self.folder / rel).is_file() else ""
                for rel in gone
            },
            "forget": [rel for rel in forget if _inside(rel)],
            "ledger": {"files": self.files, "pending": self.pending},
        }
        atomic_write(staging / PLAN, json.dumps(plan, indent=1) + "\n")
        _apply(self.folder, staging, plan)
        self.files = _entries(plan["ledger"]["files"]) | new
        for rel in gone:
            self.files.pop(rel, None)


def _inside(rel: str) -> bool:
    """A relative path that stays inside its folder."""
    parts = Path(rel).parts
    return bool(parts) and not Path(rel).is_absolute() and ".." not in parts


def _entries(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        return {}
    return {
        k: v for k, v in value.items() if isinstance(k, str) and isinstance(v, str) and _inside(k)
    }


def _apply(folder: Path, staging: Path, plan: Mapping[str, Any]) -> None:
    """Carry out a swap's plan; run again after a kill it finishes the same work."""
    for rel in plan["files"]:
        src = staging / rel
        if src.is_file():
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            os.replace(src, folder / rel)
    for rel, sha in plan["remove"].items():
        path = folder / rel
        if path.is_file() and sha256_file(path) == sha:  # still what was checked as owned
            path.unlink()
    files = _entries(plan["ledger"]["files"]) | dict(plan["files"])
    pending = {k: v for k, v in _entries(plan["ledger"]["pending"]).items() if k not in files}
    for rel in plan["remove"]:
        if rel not in plan["files"]:
            files.pop(rel, None)
    data = {"files": dict(sorted(files.items()))} | ({"pending": pending} if pending else {})
    atomic_write(folder / LEDGER, json.dumps(data, indent=1) + "\n")
    for rel in plan["forget"]:
        (folder / rel).unlink(missing_ok=True)
    shutil.rmtree(staging, ignore_errors=True)


def _stale(pid: int, staging: Path) -> bool:
    """A staged folder is stale when its writer has ended, or is this process and no longer
    uses it."""
    return staging.resolve() not in _ACTIVE if pid == os.getpid() else _gone(pid)


def _remove_stale_temporaries(path: Path) -> None:
    """The temporaries of `path` that a killed writer left (a writer still running keeps its)."""
    for entry in path.parent.glob(f".{glob.escape(path.name)}.factqa-*.tmp"):
        found = TEMPORARY.fullmatch(entry.name)
        if found and entry.is_file() and _gone(int(found.group(1))):
            entry.unlink(missing_ok=True)


def recover(folder: Path) -> None:
    """What a killed writer left in `folder`: its temporaries are removed, and a staged folder
    is finished where its plan was written (`Ledger.swap`), else removed. Another running
    writer's are left alone."""
    if not folder.is_dir():
        return
    for entry in sorted(folder.iterdir()):
        temporary = TEMPORARY.fullmatch(entry.name)
        staged = STAGING.fullmatch(entry.name)
        if temporary and entry.is_file() and _gone(int(temporary.group(1))):
            entry.unlink(missing_ok=True)
        elif staged and entry.is_dir() and _stale(int(staged.group(1)), entry):
            try:
                plan = json.loads((entry / PLAN).read_text(encoding="utf-8"))
            except (OSError, ValueError):
                plan = None
            if plan is not None:
                _apply(folder, entry, plan)
            shutil.rmtree(entry, ignore_errors=True)
