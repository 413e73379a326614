"""The `factqa run` command line that reproduces a run, built from its effective settings.

Each setting becomes its flag (`top_p` -> `--top-p`), every value shell-quoted; a path inside the
working folder is written relative to it, so the command holds no machine's folder names where it
need not and runs again from the same place.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def flag(name: str) -> str:
    """A setting's command-line flag."""
    return "--" + name.replace("_", "-")


def shown_path(path: Path, here: Path | None = None) -> str:
    """A path as a command should hold it: relative to `here` (the working folder) when inside
    it, else as given."""
    here = (here or Path.cwd()).resolve()
    try:
        return path.resolve().relative_to(here).as_posix()
    except ValueError:
        return path.as_posix()


def run_command(options: Iterable[tuple[str, Any]]) -> str:
    """`factqa run` with `options` (name, value) as flags, in the order given."""
    parts = ["factqa", "run"]
    for name, value in options:
        text = shown_path(value) if isinstance(value, Path) else str(value)
        parts += [flag(name), shlex.quote(text)]
    return " ".join(parts)
