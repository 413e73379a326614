"""The records docs/RESULTS.md is written from, and one renderer per section.

A subcommand that publishes figures saves what its section shows as a `Record`,
`results/bench/NAME.json`: the command that measured it (a data file as `PATH/TO/<name>`), the
commit and date, and its figures as structured values (never a public data set's question,
passage or gold text). Its module registers the section's renderer with `@renders(NAME, PART)`;
`bench/document` puts the sections in the reader's order and `factqa bench report` writes the
whole document from the records and the results folders alone, with no model.

A record migrated once from docs/RESULTS.md (a measurement that ran models and was not run
again) says so in `recorded_from` and holds its section as `blocks` (text, tables with their
cells, machine-readable lines); it renders through `render_blocks`, with a note that names the
command that records it anew. Nothing writes blocks any more: a study's command records its
figures, and the first run of it replaces the migrated record.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from experiment.base.files import atomic_write
from experiment.config import git_commit
from experiment.report.tables import markdown_table

RECORDS = "bench"  # the records' folder under results/
Block = dict[str, Any]  # {"text": str} | {"table": {"header", "rows"}} | {"line": {key: value}}


@dataclass(frozen=True)
class Record:
    """What one section of docs/RESULTS.md is rendered from."""

    name: str
    command: str
    figures: dict[str, Any] = field(default_factory=dict)
    commit: str = ""
    date: str = ""
    recorded_from: str = ""  # "docs/RESULTS.md at commit X": a section migrated once

    @property
    def blocks(self) -> list[Block] | None:
        """The section as blocks, for a record migrated from the document (else None)."""
        blocks = self.figures.get("blocks")
        return list(blocks) if isinstance(blocks, list) else None


def measured(name: str, command: str, figures: dict[str, Any]) -> Record:
    """A record of a measurement made now: this checkout's commit and today's date (UTC)."""
    return Record(
        name, command, figures, git_commit()[:12], dt.datetime.now(dt.UTC).date().isoformat()
    )


def records_dir(results: Path) -> Path:
    return results / RECORDS


def save(record: Record, results: Path) -> Path:
    """Write `results/bench/NAME.json` (keys in a fixed order, so a rerun that measures the same
    figures changes nothing but its commit and date)."""
    path = records_dir(results) / f"{record.name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, dumped(record))
    return path


def dumped(record: Record) -> str:
    """A record's file as `save` writes it."""
    data = {k: v for k, v in asdict(record).items() if v != "" or k == "command"}
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def load(path: Path) -> Record:
    data = json.loads(path.read_text(encoding="utf-8"))
    return Record(**data)


def load_all(results: Path) -> dict[str, Record]:
    """Every record under `results/bench/`, by name."""
    where = records_dir(results)
    return {p.stem: load(p) for p in sorted(where.glob("*.json"))} if where.is_dir() else {}


Renderer = Callable[[Record], str]


@dataclass(frozen=True)
class Section:
    """A registered section: its name, the part of the document it belongs to, its renderer."""

    name: str
    part: str
    render: Renderer


SECTIONS: dict[str, Section] = {}


def renders(name: str, part: str) -> Callable[[Renderer], Renderer]:
    """Register the decorated function as the renderer of section `name`, placed in `part`
    (one of `bench/document.PARTS`; after the sections that the document lists by name). A
    name ending in `*` renders a family: every record whose name begins with what precedes it
    (`server-*`: `server-experiment`, `server-llama-server`)."""

    def register(fn: Renderer) -> Renderer:
        SECTIONS[name] = Section(name, part, fn)
        return fn

    return register


def section_of(name: str) -> Section | None:
    """The registered section that renders the record `name`: its own, else its family's."""
    if name in SECTIONS:
        return SECTIONS[name]
    families = [s for key, s in SECTIONS.items() if key.endswith("*")]
    return next((s for s in families if name.startswith(s.name[:-1])), None)


def render(record: Record) -> str:
    """A section's Markdown from its record: its module's renderer, or its blocks."""
    if record.blocks is not None:
        return render_blocks(record.blocks, record)
    section = section_of(record.name)
    if section is None:
        raise KeyError(f"no renderer is registered for the section {record.name}")
    return section.render(record).strip()


def provenance(record: Record) -> str:
    """The note a migrated record's section carries: where it was recorded, how anew."""
    when = f" ({record.date})" if record.date else ""
    return (
        f"*Recorded by an earlier run{when}, migrated from {record.recorded_from}; "
        f"`{record.command}` records it anew.*"
    )


def render_blocks(blocks: Sequence[Block], record: Record | None = None) -> str:
    """Blocks as Markdown; a migrated record's note after its heading (or first)."""
    parts = [_block(b) for b in blocks]
    if record is not None and record.recorded_from:
        at = 1 if parts and parts[0].startswith("#") else 0
        parts.insert(at, provenance(record))
    return "\n\n".join(parts)


def _block(b: Block) -> str:
    if "text" in b:
        return str(b["text"])
    if "table" in b:
        t = b["table"]
        lines = markdown_table(t["header"], t["rows"])
        if t.get("align"):
            lines[1] = "| " + " | ".join(t["align"]) + " |"
        return "\n".join(lines)
    if "line" in b:
        return "`" + " ".join(f"{k}={v}" for k, v in b["line"].items()) + "`"
    raise ValueError(f"unknown block {sorted(b)}")


def _chunks(markdown: str) -> Iterable[str]:
    chunk: list[str] = []
    for line in markdown.strip().splitlines():
        if line.strip():
            chunk.append(line.rstrip())
        elif chunk:
            yield "\n".join(chunk)
            chunk = []
    if chunk:
        yield "\n".join(chunk)


def _is_line(chunk: str) -> bool:
    """A machine-readable line: `key=value key=value ...` on one line."""
    if "\n" in chunk or not (chunk.startswith("`") and chunk.endswith("`")):
        return False
    words = chunk.strip("`").split()
    return bool(words) and all("=" in w and " " not in w for w in words)


def line_pairs(text: str) -> dict[str, str]:
    """The `key=value` pairs of every machine-readable line in `text`."""
    pairs: dict[str, str] = {}
    for chunk in _chunks(text):
        if _is_line(chunk):
            pairs.update(p.split("=", 1) for p in chunk.strip("`").split())  # type: ignore[misc]
    return pairs
