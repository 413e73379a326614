"""`factqa bench report`: the README's answer and public tables and each preset's section of
docs/RESULTS.md, from the committed results alone (no run folder, no model)."""

from __future__ import annotations

from pathlib import Path

from experiment.bench.app import subcommands
from experiment.bench.run import default_runs
from experiment.config import PROJECT_ROOT
from experiment.record.results_index import INDEX
from experiment.report.first_screen import update_answer
from experiment.report.markdown import benchmark_section, benchmark_summary, update_section
from experiment.report.results import load_results


def preset_section(path: Path) -> str:
    """One results folder's section: the benchmark section and its figures line."""
    res = load_results(path)
    src = res.source
    return benchmark_section(res.run, src.title, src.command) + f"\n\n`{src.line}`\n"


INVENTORY = "bench-inventory"  # the section of the results and the tool's own size


def inventory_line(results: Path, results_md: Path, scripts: Path) -> str:
    """What the published figures are computed from and the tool that makes them: the committed
    results' files and bytes, the results file's lines, `factqa bench`'s subcommands and the
    scripts left in `scripts` (bench/)."""
    files = [f for p in _folders(results) for f in p.iterdir() if f.is_file()]
    lines = len(results_md.read_text(encoding="utf-8").splitlines()) if results_md.exists() else 0
    return (
        f"results_files={len(files)} results_bytes={sum(f.stat().st_size for f in files)} "
        f"results_md_lines={lines} bench_subcommands={len(subcommands())} "
        f"bench_scripts_left={len(list(scripts.glob('*.py')))}"
    )


def _inventory(results: Path, results_md: Path, scripts: Path) -> str:
    return (
        "## The committed results and the benchmark tool\n\n"
        "Written by `factqa bench report` (no model): the files and bytes under results/, the "
        "lines of this file, the subcommands of `factqa bench` and the scripts left in bench/.\n\n"
        f"`{inventory_line(results, results_md, scripts)}`"
    )


def _folders(results: Path) -> list[Path]:
    return sorted(p for p in results.iterdir() if (p / INDEX).is_file())


def write_report(
    results: Path, results_md: Path, readme: Path, scripts: Path = PROJECT_ROOT / "bench"
) -> list[str]:
    """Every results folder's section into `results_md`, then the summary, the README's tables
    and the inventory line (`inventory_line`); the names of the sections written."""
    written = []
    for path in _folders(results):
        update_section(results_md, f"bench-{path.name}", preset_section(path))
        written.append(f"bench-{path.name}")
    public, first = default_runs(results, results)
    if any((p / INDEX).is_file() for p in public.values()):
        summary = benchmark_summary(public)
        update_section(results_md, "bench-summary", summary)
        update_section(readme, "public", summary)
        written += ["bench-summary", "public"]
    update_answer(readme, first)
    # twice: the line counts the results file's lines with the section in place
    for _ in range(2):
        update_section(results_md, INVENTORY, _inventory(results, results_md, scripts))
    return [*written, INVENTORY]
