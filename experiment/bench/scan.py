"""Scan time against article size: is reading an article linear in its text?

    factqa bench scan [SIZE_MB ...]      (default: 0.1 5)

Each article is the bundled articles (articles/*.md) repeated up to SIZE_MB megabytes, so every
size has the same density of figures, dates and tables. One `factqa verify --article` check
(`verify.answer.confirm_text`, an answer the text does not state, so the near-miss search runs too)
is timed cold: every cache emptied first. All sizes are measured in one run, on one machine, so
their ratio is meaningful; linear scanning gives a ratio near the ratio of the sizes.

The last line printed is machine-readable: `scan_s_<size>mb=...` (wall time) and
`scan_cpu_s_<size>mb=...` (this process's CPU time, which other jobs on the machine do not
inflate) per size, and `scan_ratio_<last>mb_to_<first>mb=...` and `scan_cpu_ratio_...` for each.
"""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Annotated

import typer

from experiment.bench.app import command
from experiment.bench.harness import ROOT, at_least
from experiment.values.normalize import scan
from experiment.values.tables import _read, article_mentions, parse_tables
from experiment.verify.answer import confirm_text
from experiment.verify.injection import instruction_ranges

ANSWER = "12,345,679 tonnes"  # in no bundled article


def article(size_mb: float) -> str:
    """The bundled articles repeated up to `size_mb` megabytes (characters)."""
    base = "\n\n".join(p.read_text(encoding="utf-8") for p in sorted(ROOT.glob("articles/*.md")))
    chars = int(size_mb * 1_000_000)
    return (base * (chars // len(base) + 1))[:chars]


def scan_seconds(text: str) -> float:
    """One cold confirmation of `ANSWER` in `text`, in seconds of wall time."""
    return scan_times(text)[0]


def scan_times(text: str) -> tuple[float, float]:
    """One cold confirmation of `ANSWER` in `text`: seconds of wall time and of this process's CPU
    time (the second does not count what other jobs on the machine take)."""
    for cached in (scan, article_mentions, parse_tables, _read, instruction_ranges):
        cached.cache_clear()
    start, cpu = time.perf_counter(), time.process_time()
    found = confirm_text(ANSWER, text, "", "figure")
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    assert not found.confirmed, "the probe answer must not be in the bundled articles"
    return seconds, cpu


def _label(size_mb: float) -> str:
    return f"{size_mb:g}".replace(".", "p")


def _run(args: SimpleNamespace) -> None:
    times, cpus = {}, {}
    for size in args.sizes:
        times[size], cpus[size] = scan_times(article(size))
        print(
            f"{size:g} MB: {times[size]:.2f} s ({size / times[size]:.2f} MB/s), "
            f"{cpus[size]:.2f} s of CPU",
            flush=True,
        )
    first, last = args.sizes[0], args.sizes[-1]
    fields = [f"scan_s_{_label(s)}mb={t:.2f}" for s, t in times.items()]
    fields += [f"scan_cpu_s_{_label(s)}mb={t:.2f}" for s, t in cpus.items()]
    ratio, cpu_ratio = times[last] / times[first], cpus[last] / cpus[first]
    fields.append(f"scan_ratio_{_label(last)}mb_to_{_label(first)}mb={ratio:.1f}")
    fields.append(f"scan_cpu_ratio_{_label(last)}mb_to_{_label(first)}mb={cpu_ratio:.1f}")
    print(" ".join(fields))


@command("scan")
def scan_command(
    sizes: Annotated[
        list[float] | None, typer.Argument(help="Article sizes in MB (default: 0.1 5).")
    ] = None,
) -> None:
    """Scan time against article size: is reading an article linear in its text?"""
    at_least(sizes or [], "SIZE_MB", 1e-6, "a size in MB above 0 (e.g. 0.1 5)")
    _run(SimpleNamespace(sizes=sizes or [0.1, 5.0]))
