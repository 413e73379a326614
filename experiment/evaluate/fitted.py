"""The fitted files the package ships, read through one place.

Each shipped fit (the selectors, the text selector, the derived pick) is a JSON file beside this
module, written by a `factqa bench fit ...` command. `read_fitted` reads one: a missing or
damaged file is an error that names it and the fix, never a silent fallback; every file read is
noted with its SHA-256, and a run's manifest records them (`fitted_files`), so a result says
which fits made it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from experiment.base.errors import ModelError

HERE = Path(__file__).parent
SHIPPED = {  # file name -> the command that writes it
    "selector.json": "factqa bench fit selector",
    "selector_checked.json": "factqa bench fit selector --large-evidence",
    "text_selector.json": "factqa bench fit text-scores",
    "derived_selector.json": "factqa bench fit derived",
}
_read: dict[str, str] = {}  # file name -> SHA-256, of every fitted file read by this process


class FittedFileMissing(ModelError):
    """A shipped fitted file is missing or unreadable."""


def read_fitted(path: Path) -> dict[str, Any]:
    """The JSON of the fitted file `path`, noted with its SHA-256 (module docstring)."""
    try:
        raw = path.read_bytes()
        data = json.loads(raw)
    except (OSError, ValueError) as e:
        shipped = path.parent == HERE and path.name in SHIPPED
        fix = (
            f"reinstall factqa (the package ships {path.name}) or write it again with "
            f"`{SHIPPED[path.name]} --write`"
            if shipped
            else "give the path of a file written by a `factqa bench fit` command"
        )
        what = "is missing" if isinstance(e, OSError) else "is not valid JSON"
        raise FittedFileMissing(f"the fitted file {path} {what}. Fix: {fix}") from e
    if not isinstance(data, dict):
        raise FittedFileMissing(f"the fitted file {path} holds no fit. Fix: write it again")
    _read[path.name if path.parent == HERE else str(path)] = hashlib.sha256(raw).hexdigest()
    return data


def fitted_read() -> dict[str, str]:
    """Every fitted file this process has read, with its SHA-256, by name."""
    return dict(sorted(_read.items()))


def shipped_hashes() -> dict[str, str]:
    """The SHA-256 of every shipped fitted file (a missing one is an error)."""
    for name in SHIPPED:
        read_fitted(HERE / name)
    return {name: _read[name] for name in SHIPPED}
