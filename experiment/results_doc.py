"""Keep docs/RESULTS.md current: each benchmark rewrites only its own marked section."""

from __future__ import annotations

from pathlib import Path

from experiment.report import atomic_write

HEADER = "# Results\n\nEvery figure here was measured by the committed command shown with it.\n"


def update_section(path: Path, name: str, body: str) -> None:
    """Replace the text between `<!-- name:start -->` and `<!-- name:end -->`, or append it."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    text = path.read_text(encoding="utf-8") if path.exists() else HEADER
    block = f"{start}\n{body.strip()}\n{end}"
    if start in text and end in text:
        before, rest = text.split(start, 1)
        _, after = rest.split(end, 1)
        text = before + block + after
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    atomic_write(path, text)
