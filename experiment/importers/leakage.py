"""The leakage guard: which text of a public data set is written in the repository.

A data set's passages and questions are read by its importer and folded to a canonical form
(lower case, letters and digits only, single spaces), so that a sentence copied into a test as
two concatenated string literals, with other quotes or line breaks, is still found. Every
window of `WINDOW` canonical characters of the data is hashed; every window of each repository
file is looked up, and runs of matching windows are merged into fragments: a fragment is a
stretch of the file of at least `WINDOW` canonical characters that the data set also writes.

A fragment is counted once per file and place, and tagged with the half (importers/split.py) of
the data it was found in: the evaluation half's fragments are the guard's figure; the fitting
half's are reported beside it (the project writes neither: its fixtures are its own).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from experiment.importers.layout import Imported
from experiment.importers.split import Half, half_of

WINDOW = 40  # canonical characters: the "sentence fragment of 40 or more characters"
_FOLD = re.compile(r"[^0-9A-Za-z]+")  # matched on the text as written, so offsets are its own
TEXT_SUFFIXES = {
    ".py", ".md", ".txt", ".csv", ".json", ".toml", ".cfg", ".ini", ".yml", ".yaml", ".ipynb",
    ".j2", ".html", ".sh", ".tsv", "",
}  # fmt: skip


def canonical(text: str) -> tuple[str, list[int]]:
    """`text` folded (module docstring) and, for each canonical character, its offset in
    `text` (a run of dropped characters becomes one space at the offset of its first)."""
    out: list[str] = []
    where: list[int] = []
    last = 0
    for m in _FOLD.finditer(text):
        for i in range(last, m.start()):
            out.append(text[i].lower())
            where.append(i)
        if out and out[-1] != " ":
            out.append(" ")
            where.append(m.start())
        last = m.end()
    for i in range(last, len(text)):
        out.append(text[i].lower())
        where.append(i)
    return "".join(out), where


def _windows(folded: str) -> Iterator[tuple[int, int]]:
    for i in range(len(folded) - WINDOW + 1):
        yield i, hash(folded[i : i + WINDOW])


@dataclass(frozen=True)
class Fragment:
    """A stretch of a repository file that a data set also writes."""

    path: str  # relative to the scanned root
    line: int  # 1-based, where the fragment starts
    half: Half
    text: str  # as the file writes it

    def __str__(self) -> str:
        shown = " ".join(self.text.split())
        shown = shown if len(shown) <= 100 else shown[:97] + "..."
        return f"{self.path}:{self.line} ({self.half} half): {shown}"


class Index:
    """The hashed windows of a data set's texts, each with the halves that write it."""

    def __init__(self) -> None:
        self.windows: dict[int, int] = {}  # hash -> bit set of halves (1 fit, 2 eval)
        self.texts = 0

    def add(self, text: str, half: Half) -> None:
        bit = 2 if half == "eval" else 1
        folded, _ = canonical(text)
        for _, h in _windows(folded):
            self.windows[h] = self.windows.get(h, 0) | bit
        self.texts += 1

    def add_rows(self, rows: Iterable[Imported]) -> None:
        """Each row's passage (once) and question, in its group's half."""
        seen: set[str] = set()
        for row in rows:
            half = half_of(row.group)
            if row.passage_id not in seen:
                seen.add(row.passage_id)
                self.add(row.passage, half)
            self.add(row.question, half)

    def scan(self, text: str, path: str) -> list[Fragment]:
        """The fragments of `text` (a file's, named `path`) found in the index."""
        folded, where = canonical(text)
        found: list[Fragment] = []
        start = end = -1
        bits = 0
        for i, h in _windows(folded):
            hit = self.windows.get(h, 0)
            if hit and i <= end:  # the run goes on
                end, bits = i + WINDOW, bits | hit
                continue
            if start >= 0:
                found.append(self._fragment(text, where, start, end, bits, path))
                start = -1
            if hit:
                start, end, bits = i, i + WINDOW, hit
        if start >= 0:
            found.append(self._fragment(text, where, start, end, bits, path))
        return found

    @staticmethod
    def _fragment(
        text: str, where: list[int], start: int, end: int, bits: int, path: str
    ) -> Fragment:
        a, b = where[start], where[end - 1] + 1
        half: Half = "eval" if bits & 2 else "fit"
        return Fragment(path, text.count("\n", 0, a) + 1, half, text[a:b])


def repository_files(root: Path, names: Iterable[str]) -> Iterator[tuple[str, str]]:
    """The text files among `names` (relative to `root`) with their text."""
    for name in names:
        path = root / name
        if path.suffix.lower() not in TEXT_SUFFIXES or not path.is_file():
            continue
        try:
            yield name, path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # not text


def scan_repository(index: Index, root: Path, names: Iterable[str]) -> list[Fragment]:
    """Every fragment of the data in the named repository files."""
    return [f for name, text in repository_files(root, names) for f in index.scan(text, name)]
