"""The authors' record schemas, validated field by field, and the JSON loader every reader shares.

A record that differs from its schema raises `Malformed`; `each` skips it and counts it by reason
in the import summary (`ImportStats.skipped`), so one bad record among thousands costs only
itself. A file that cannot be read as a whole (not JSON, nested too deep, a top level of another
shape) is refused by the reader with an `InputError` instead.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from functools import partial
from pathlib import Path
from typing import Any

from experiment.base.errors import InputError
from experiment.importers.layout import Imported, ImportStats, shown

Rule = Callable[[Any], str | None]  # a field's value -> what is wrong with it, or None
Schema = Mapping[str, Rule]

_NAMES = {bool: "true/false", int: "a number", float: "a number", str: "text"}
_NAMES |= {list: "a list", dict: "an object", type(None): "null"}


def json_type(value: Any) -> str:
    """What a JSON value is, in words ('null', 'a number', 'an object', ...)."""
    return _NAMES.get(type(value), type(value).__name__)


def _wrong(value: Any, expected: str) -> str:
    return f"{json_type(value)}, expected {expected}"


def text(value: Any) -> str | None:
    """Non-empty text."""
    if not isinstance(value, str):
        return _wrong(value, "text")
    return None if value.strip() else "empty text"


def any_text(value: Any) -> str | None:
    """Text, possibly empty."""
    return None if isinstance(value, str) else _wrong(value, "text")


def whole(value: Any) -> str | None:
    """A whole number (not true/false)."""
    ok = isinstance(value, int) and not isinstance(value, bool)
    return None if ok else _wrong(value, "a whole number")


def flag(value: Any) -> str | None:
    """true or false."""
    return None if isinstance(value, bool) else _wrong(value, "true/false")


def items(value: Any) -> str | None:
    """A list (its items are validated as records of their own)."""
    return None if isinstance(value, list) else _wrong(value, "a list")


def record(value: Any) -> str | None:
    """An object (its fields are validated as a record of its own)."""
    return None if isinstance(value, dict) else _wrong(value, "an object")


def list_of(item: Rule, nonempty: bool = False) -> Rule:
    """A list whose every item passes `item` (and that has one, if `nonempty`)."""

    def test(value: Any) -> str | None:
        if not isinstance(value, list):
            return _wrong(value, "a list")
        if nonempty and not value:
            return "an empty list"
        problem = next((p for p in map(item, value) if p), None)
        return f"an item: {problem}" if problem else None

    return test


def finite(value: Any) -> str | None:
    """A finite number (not true/false, NaN or infinity)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return _wrong(value, "a number")
    return None if isinstance(value, int) or math.isfinite(value) else "not a finite number"


def one_of(allowed: Collection[str]) -> Rule:
    """One of the `allowed` strings, exactly."""

    def test(value: Any) -> str | None:
        if isinstance(value, str) and value in allowed:
            return None
        seen = shown(value) if isinstance(value, str) else json_type(value)
        return f"{seen} is not one of {', '.join(map(repr, allowed))}"

    return test


def either(expected: str, *rules: Rule) -> Rule:
    """Passes when one of `rules` passes; else the complaint of the one made for the value's
    type, or that it is not `expected`."""

    def test(value: Any) -> str | None:
        problems = [r(value) for r in rules]
        if None in problems:
            return None
        wrong_type = _wrong(value, "")
        specific = [p for p in problems if p and not p.startswith(wrong_type)]
        return specific[0] if specific else _wrong(value, expected)

    return test


class Malformed(Exception):
    """A record that differs from the authors' schema: skipped and counted by `reason`."""

    def __init__(self, kind: str, field: str, problem: str) -> None:
        self.reason = f"malformed {kind} ({field}: {problem})"
        super().__init__(self.reason)


def validate(
    value: Any, schema: Schema, kind: str, optional: Schema | None = None
) -> dict[str, Any]:
    """`value` as a record of `kind` with every field of `schema` (and any of `optional`) as it
    should be; `Malformed` naming the first field that is not."""
    if not isinstance(value, dict):
        raise Malformed(kind, "record", _wrong(value, "an object"))
    for key, test in {**schema, **(optional or {})}.items():
        if key not in value and key in schema:
            raise Malformed(kind, key, "missing")
        problem = test(value[key]) if key in value else None
        if problem:
            raise Malformed(kind, key, problem)
    return value


Task = tuple[str, Callable[[], list[Imported]]]  # (where a record is, how to read it)
Read = Callable[[int, Any, str], list[Imported]]  # (index, record, where) -> its questions


def listed(where: str, values: list[Any], read: Read) -> Iterator[Task]:
    """A task per item of `values`: `read(index, item, location)`, located at `where[index]`."""
    for i, value in enumerate(values):
        at = f"{where}[{i}]"
        yield at, partial(read, i, value, at)


def each(tasks: Iterable[Task], stats: ImportStats) -> list[Imported]:
    """The questions of every record; a `Malformed` record is skipped and counted by reason."""
    rows: list[Imported] = []
    for where, read in tasks:
        try:
            rows += read()
        except Malformed as e:
            stats.skip(e.reason, where)
    return rows


def decode_json(text: str, path: Path, line: int | None = None) -> Any:
    """`json.loads(text)`; a document nested too deep or with a number too long to read is
    refused with an `InputError` (a `json.JSONDecodeError` is left to the caller)."""
    fix = "give the data set file as its authors publish it"
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        raise
    except RecursionError:
        raise InputError("JSON nested too deep to read", path=path, line=line, fix=fix) from None
    except ValueError:  # an integer beyond Python's digit limit (4300 digits)
        raise InputError("JSON number too long to read", path=path, line=line, fix=fix) from None
