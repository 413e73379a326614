"""Where a command will write, validated before it does any work.

A file where a folder is wanted (or the reverse) is an `InputError` naming the option; a place
this process may not write into is a `PermissionError` naming the path (the CLI shows both in one
line). Nothing is created here, so a command that is refused leaves no empty folder behind.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from experiment.base.errors import InputError


def writable(folder: Path) -> bool:
    """Whether this process may make files in the existing `folder`."""
    return os.access(folder, os.W_OK | os.X_OK)


def validate_folder(path: Path, option: str) -> None:
    """`path` is a folder, or can be made one, that this process may write into."""
    if path.exists() and not path.is_dir():
        raise InputError(
            "is a file, not a folder",
            path=path,
            field=option,
            fix=f"give {option} a folder (it is made if missing)",
        )
    _validate_base(path, option)


def validate_file(path: Path, option: str) -> None:
    """`path` names a file (not a folder) that this process may write or replace."""
    if path.is_dir():
        raise InputError(
            "is a folder, not a file", path=path, field=option, fix=f"give {option} a file name"
        )
    _validate_base(path.parent, option)


def _validate_base(folder: Path, option: str) -> None:
    """The nearest existing path at or above `folder` is a folder this process may write into."""
    base = next(p for p in (folder, *folder.parents) if p.exists())
    if not base.is_dir():
        raise InputError(
            f"{base} is a file, so nothing can be made under it",
            path=folder,
            field=option,
            fix=f"give {option} a path under a folder",
        )
    if not writable(base):
        raise PermissionError(
            errno.EACCES, f"{os.strerror(errno.EACCES)} (for {option})", str(base)
        )
