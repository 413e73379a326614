"""Typed errors. The library raises these; only the CLI turns them into exit codes and messages."""

from __future__ import annotations

from pathlib import Path


class FactQAError(Exception):
    """Base class: every error the CLI reports without a traceback."""


class InputError(FactQAError):
    """Bad input data, located precisely: file, line, field, and what to do about it."""

    def __init__(
        self,
        message: str,
        *,
        path: Path | str | None = None,
        line: int | None = None,
        field: str | None = None,
        fix: str | None = None,
    ) -> None:
        self.path = Path(path) if path is not None else None
        self.line = line
        self.field = field
        self.fix = fix
        self.reason = message
        super().__init__(self._render())

    @classmethod
    def missing_columns(cls, missing: list[str], path: Path, fix: str) -> InputError:
        """A CSV file whose header lacks `missing` (named at line 1, the first as the field)."""
        return cls(
            f"missing column(s) {', '.join(missing)}", path=path, line=1, field=missing[0], fix=fix
        )

    def _render(self) -> str:
        where = ""
        if self.path is not None:
            where = str(self.path)
            if self.line is not None:
                where += f":{self.line}"
            where += ": "
        field = f"field '{self.field}': " if self.field else ""
        fix = f" Fix: {self.fix}" if self.fix else ""
        return f"{where}{field}{self.reason}.{fix}"


class ModelError(FactQAError):
    """A model cannot be found, fetched, verified or loaded."""


class CannotScore(ModelError):
    """The backend cannot score given answers (`Backend.score`): the large model cannot check."""


class ConfigError(FactQAError):
    """A run configuration value is invalid; `field` names the setting where it is known, and
    `allowed` the values it takes ("a value from 1 to 1000") where they are a range."""

    def __init__(
        self, message: str, *, field: str | None = None, allowed: str | None = None
    ) -> None:
        super().__init__(message)
        self.field = field
        self.allowed = allowed

    def for_option(self) -> str:
        """The message for a setting given on the command line: its option and what it takes."""
        if not (self.field and self.allowed):
            return str(self)
        option = "--" + self.field.replace("_", "-")
        return f"field '{option}': {self}. Fix: give {option} {self.allowed}"


class RunFailed(FactQAError):
    """A run finished, but too many of a model's generations failed: its files are written, its
    manifest says why (`failed`), and `result` is what the run computed."""

    def __init__(self, reason: str, run_dir: Path, result: object) -> None:
        self.reason = reason
        self.run_dir = run_dir
        self.result = result
        super().__init__(
            f"{run_dir}: the run failed: {reason}. Its files are written and its manifest.json "
            "marks it failed. Fix: fix the model or server and run the same command again "
            "(the generations that worked are cached)"
        )


class OutputError(FactQAError):
    """A run's file cannot be written, after every generation was made (and cached)."""

    def __init__(self, path: Path, reason: str) -> None:
        self.path = path
        super().__init__(
            f"{path}: cannot write it ({reason}). Fix: the answers are cached: fix the folder "
            "and run the same command again"
        )
