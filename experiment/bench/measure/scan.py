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

    factqa bench scan-shapes [--large]     (50 KB and 500 KB; --large adds 5 MB)

The same cold check on texts of one shape each, generated here (`SHAPES`: prose with figures and
dates, a space-separated list of 3-digit numbers, comma-grouped numbers, one large pipe table, many
small tables, long digit runs, dates, text without figures, one long line without a sentence break,
the bundled articles), at each size in one run. It prints each shape's seconds per size (wall
time; the smaller sizes the best of a few tries, as timing noise weighs most on them), the CPU
seconds at the largest size and the ratio of CPU time (which other jobs on the machine inflate
less) for each tenfold step (linear: about 10), then the machine-readable line `scan_s_5mb_prose=...
scan_s_5mb_table=... scan_cpu_s_5mb_prose=... scan_cpu_s_5mb_table=... scan_worst_ratio=...` (the
5 MB fields with `--large`; `scan_worst_ratio`: the largest ratio over every shape and step).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from itertools import pairwise
from typing import Annotated

import typer

from experiment.bench.app import command
from experiment.bench.harness import ROOT, at_least
from experiment.values.normalize import scan
from experiment.values.tables import _label_unit, _read, article_mentions, parse_tables
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
    for cached in (scan, article_mentions, parse_tables, _read, _label_unit, instruction_ranges):
        cached.cache_clear()
    start, cpu = time.perf_counter(), time.process_time()
    found = confirm_text(ANSWER, text, "", "figure")
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    assert not found.confirmed, "the probe answer must not be in the bundled articles"
    return seconds, cpu


def _label(size_mb: float) -> str:
    return f"{size_mb:g}".replace(".", "p")


def _run(sizes: list[float]) -> None:
    times, cpus = {}, {}
    for size in sizes:
        times[size], cpus[size] = scan_times(article(size))
        print(
            f"{size:g} MB: {times[size]:.2f} s ({size / times[size]:.2f} MB/s), "
            f"{cpus[size]:.2f} s of CPU",
            flush=True,
        )
    first, last = sizes[0], sizes[-1]
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
    _run(sizes or [0.1, 5.0])


# --- shapes -------------------------------------------------------------------------------------
MONTHS = ("January", "March", "April", "June", "July", "September", "October", "December")
OWNERS = ("the ferry line", "the county library", "the orchard", "the workshop", "the clinic")
TABLE_HEAD = (
    "Figures in thousands of dollars\n\n| Item | 2024 | 2023 | Change |\n|---|---:|---:|---:|\n"
)
WORDS = "the river town kept its old mill while new roads brought traders from hills and coast"


def _prose(r: random.Random) -> str:
    who, month, year = r.choice(OWNERS), r.choice(MONTHS), r.randint(1950, 2030)
    sentence = r.choice(
        [
            f"In {month} {year}, {who} shipped {r.randint(1, 99):,},{r.randint(100, 999)} crates, "
            f"up {r.randint(1, 40)}.{r.randint(0, 9)}% on the year before.",
            f"{who.capitalize()} spent ${r.randint(2, 900)} million on {r.randint(3, 60)} vans "
            f"between {r.randint(1990, 2010)} and {r.randint(2011, 2029)}.",
            f"About {r.choice(['two', 'seven', 'forty', 'a dozen'])} staff joined on "
            f"{r.randint(1, 28)} {month} {year}; the site covers {r.randint(2, 90)} hectares.",
            f"Its reach grew to {r.randint(2, 9)}.{r.randint(1, 9)} km by Q{r.randint(1, 4)} "
            f"{year}, costing €{r.randint(10, 99)}k.",
        ]
    )
    return sentence + (" " if r.random() < 0.8 else "\n\n")


def _row(r: random.Random, i: int) -> str:
    return (
        f"| Line {i} | {r.randint(1, 99_999):,} | {r.randint(0, 999)}.{r.randint(0, 9)} "
        f"| ({r.randint(1, 9_999):,}) |\n"
    )


def _table(r: random.Random, chars: int) -> str:
    rows, size = [TABLE_HEAD], len(TABLE_HEAD)
    while size < chars:
        rows.append(_row(r, len(rows)))
        size += len(rows[-1])
    return "".join(rows)


def _small_table(r: random.Random) -> str:
    rows = "".join(_row(r, i) for i in range(r.randint(2, 5)))
    return f"The quarter's figures follow.\n\n{TABLE_HEAD}{rows}\n"


def _date(r: random.Random) -> str:
    y, m, d, month = r.randint(1900, 2099), r.randint(1, 12), r.randint(1, 28), r.choice(MONTHS)
    forms = [f"{d} {month} {y}", f"{month} {d}, {y}", f"{y}-{m:02d}-{d:02d}", f"{m}/{d}/{y}"]
    forms += [f"Q{r.randint(1, 4)} {y}", f"the {y // 10 * 10}s", f"FY{y}", f"early {y}"]
    return r.choice(forms)


def _words(r: random.Random) -> str:
    return " ".join(r.choice(WORDS.split()) for _ in range(r.randint(8, 20))).capitalize()


# each shape: a function of (random, size in characters) giving the text, and what it holds
SHAPES: dict[str, tuple[Callable[[random.Random, int], str], str]] = {}


def _repeated(part: Callable[[random.Random], str]) -> Callable[[random.Random, int], str]:
    def make(r: random.Random, chars: int) -> str:
        parts, size = [], 0
        while size < chars:
            parts.append(part(r))
            size += len(parts[-1])
        return "".join(parts)[:chars]

    return make


SHAPES["prose"] = (_repeated(_prose), "sentences with figures, amounts, percentages and dates")
SHAPES["spaced"] = (_repeated(lambda r: f"{r.randint(100, 999)} "), "one line: 123 456 789 ...")
SHAPES["comma"] = (
    _repeated(lambda r: f"{r.randint(1, 999)},{r.randint(0, 999):03d},{r.randint(0, 999):03d} "),
    "comma-grouped numbers: 12,345,678 ...",
)
SHAPES["table"] = (_table, "one pipe table, four columns, a scale caption")
SHAPES["tables"] = (_repeated(_small_table), "pipe tables of 2 to 5 rows between sentences")
SHAPES["digits"] = (
    _repeated(lambda r: "".join(r.choices("0123456789", k=r.randint(30, 200))) + " "),
    "runs of 30 to 200 digits",
)
SHAPES["dates"] = (
    _repeated(lambda r: f"It opened on {_date(r)} and closed in {_date(r)}. "),
    "two dates a sentence, nine forms",
)
SHAPES["plain"] = (_repeated(lambda r: _words(r) + ". "), "sentences without a figure")
SHAPES["longline"] = (
    _repeated(lambda r: _prose(r).replace(". ", ", ").replace(".\n\n", ", ")),
    "prose as one line with no sentence end",
)
SHAPES["bundled"] = (lambda r, chars: article(chars / 1_000_000), "the bundled articles repeated")


def shape_text(shape: str, chars: int, seed: int = 0) -> str:
    """A text of `shape` (`SHAPES`) of `chars` characters (a table: whole rows, at least)."""
    return SHAPES[shape][0](random.Random(seed), chars)


SIZES = (0.05, 0.5)  # MB; `--large` adds 5
TRIES_UNDER = 1.0  # a size measured in under this many seconds is measured again, the best kept


def _best_times(text: str) -> tuple[float, float]:
    """Wall and CPU seconds of a cold check of `text`: the best of up to 3 tries while fast."""
    best = scan_times(text)
    for _ in range(2):
        if best[0] >= TRIES_UNDER:
            break
        best = min(best, scan_times(text))
    return best


def _ratios(cpu: dict[float, float]) -> list[float]:
    sizes = sorted(cpu)
    return [cpu[b] / cpu[a] for a, b in pairwise(sizes)]


def shape_table(shapes: list[str], sizes: list[float]) -> tuple[list[str], dict[str, float]]:
    """Measure every shape at every size: the table's lines (Markdown) and the figures."""
    heads = [f"{s * 1000:g} KB" if s < 1 else f"{s:g} MB" for s in sizes]
    steps = [f"{b:g}/{a:g} MB" for a, b in pairwise(sizes)]
    lines = [
        "| shape | "
        + " | ".join(f"s, {h}" for h in heads)
        + f" | CPU s, {heads[-1]} | "
        + " | ".join(f"ratio {s}" for s in steps)
        + " |",
        "|---|" + "---:|" * (len(heads) + 1 + len(steps)),
    ]
    print("\n".join(lines), flush=True)
    figures: dict[str, float] = {}
    worst = 0.0
    for shape in shapes:
        wall, cpu = {}, {}
        for size in sizes:
            wall[size], cpu[size] = _best_times(shape_text(shape, int(size * 1_000_000)))
            figures[f"scan_s_{_label(size)}mb_{shape}"] = wall[size]
            figures[f"scan_cpu_s_{_label(size)}mb_{shape}"] = cpu[size]
        ratios = _ratios(cpu)
        worst = max([worst, *ratios])
        cells = [f"{wall[s]:.2f}" for s in sizes] + [f"{cpu[sizes[-1]]:.2f}"]
        cells += [f"{x:.1f}" for x in ratios]
        lines.append(f"| {shape} | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    figures["scan_worst_ratio"] = worst
    return lines, figures


def _run_shapes(large: bool, only: list[str]) -> None:
    sizes = [*SIZES, 5.0] if large else list(SIZES)
    for name in only:
        if name not in SHAPES:
            raise typer.BadParameter(f"unknown shape {name!r}; the shapes: {', '.join(SHAPES)}")
    shapes = only or list(SHAPES)
    print(f"cold checks of {ANSWER!r}; seconds of wall time, ratios of CPU time", flush=True)
    _, figures = shape_table(shapes, sizes)
    keys = [f"scan{cpu}_s_5mb_{shape}" for cpu in ("", "_cpu") for shape in ("prose", "table")]
    keys = [k for k in keys if k in figures]
    print(
        " ".join(
            [
                *(f"{k}={figures[k]:.2f}" for k in keys),
                f"scan_worst_ratio={figures['scan_worst_ratio']:.1f}",
            ]
        )
    )


@command("scan-shapes")
def scan_shapes_command(
    large: Annotated[bool, typer.Option("--large", help="Also measure 5 MB (minutes).")] = False,
    shape: Annotated[
        list[str] | None, typer.Option("--shape", help="Only this shape (repeatable).")
    ] = None,
) -> None:
    """Scan time of each text shape at 50 KB, 500 KB (and 5 MB): linear for every shape?"""
    _run_shapes(large, shape or [])
