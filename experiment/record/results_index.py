"""A results folder's index, `results.json`: what the results are of (`Source`: the preset, and
how its questions are imported again from the data file) and each file's size and SHA-256.
Written by `record.results`, read by `report.results`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

# the results folder's own format (its run manifest has the run's); format 1 kept the checks
# and the pools' scores as two tables, format 2 as one (scores.csv.gz): both are read
RESULTS_FORMAT = 2
READS = (1, 2)
INDEX = "results.json"
MANIFEST = "manifest.json"


@dataclass(frozen=True)
class Source:
    """What a results folder is of: the preset, whether its data set is public (its text is
    then left out), and how its questions are imported again from the data file (`data_file`:
    the file's name; "" for the bundled corpus)."""

    preset: str
    public: bool
    data_file: str = ""
    fmt: str = ""
    sample: int = 0
    unanswerable: int | None = None
    half: str | None = None
    seed: int = 0
    title: str = ""
    command: str = ""  # the command that made the run, paths as PATH/TO/<name>
    line: str = ""  # the preset's machine-readable figures (`bench.presets.figures_line`)
    sealed: bool = False  # the preset's sealed sample (`bench/sealed.py`): imported by its ids
    variant: bool = False  # a variant of the preset's run (`bench/run.py`): its page, no headline

    @classmethod
    def of(cls, data: dict[str, Any]) -> Source:
        names = set(cls.__dataclass_fields__)
        return cls(**{k: v for k, v in data.items() if k in names})


def text_key(text: str) -> str:
    """The key a scored text is found by in drafts.csv.gz: its SHA-256, 16 hex digits."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
