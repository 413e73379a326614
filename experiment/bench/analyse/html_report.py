"""The HTML report in a real browser: size and load time of real runs' pages, and of a page of
3,000 questions; saves the README's screenshot.

    factqa bench html-report RUN_DIR [RUN_DIR ...] [--screenshot docs/report.png] [--scale 10]

For each run: `factqa report RUN --html` (the same code), then headless Chromium opens the page
from disk, applies the "confirmed but wrong" filter through the page's own button and validates the
visible count against the page's data. The first run is also copied with its questions repeated
`--scale` times (new ids), to time a page of thousands of questions. The screenshot is taken of
the first run with the filter applied. The last line is machine-readable.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import pandas as pd
import typer

from experiment.base.files import LEDGER, file_record
from experiment.bench.app import command
from experiment.record.manifest import read as read_manifest
from experiment.record.write import write_manifest
from experiment.report.browser import headless
from experiment.report.html import write_html
from experiment.report.run import load_run


def open_page(page: Path, screenshot: Path | None) -> tuple[float, int]:
    """(load seconds, questions shown under "confirmed but wrong") for one page."""
    from selenium.webdriver.common.by import By

    browser = headless()
    try:
        t0 = time.perf_counter()
        browser.get(page.resolve().as_uri())
        browser.find_element(By.ID, "shown")  # the script has run once the count is there
        load = time.perf_counter() - t0
        expected = page.read_text(encoding="utf-8").count('data-in_text_wrong="1"')
        browser.find_element(By.CSS_SELECTOR, 'button[data-filter="in_text_wrong"]').click()
        shown = browser.find_element(By.ID, "shown").text
        assert shown == f"showing {min(expected, 50)} of {expected}", shown
        if screenshot is not None:
            bar = browser.find_element(By.CSS_SELECTOR, ".bar")
            browser.execute_script("arguments[0].scrollIntoView();", bar)
            browser.save_screenshot(str(screenshot))
        return load, expected
    finally:
        browser.quit()


def scaled_copy(run: Path, times: int, out: Path) -> Path:
    """`run` with every question (and its attempts) repeated `times` times under new ids (the
    files copied as text, cell for cell, so the copy is a run folder as `factqa run` writes;
    its manifest records the new files)."""
    shutil.copytree(run, out, ignore=shutil.ignore_patterns("report.html", "plots", LEDGER))
    scaled = ("questions.csv", "attempts.csv")
    for name in scaled:
        frame = pd.read_csv(run / name, keep_default_na=False, dtype=str)
        parts = [frame.assign(question_id=frame.question_id + f"-{i}") for i in range(times)]
        pd.concat(parts).to_csv(out / name, index=False)
    manifest = read_manifest(out / "manifest.json")
    outputs = manifest.outputs | {name: file_record(out / name) for name in scaled}
    write_manifest(out / "manifest.json", replace(manifest, outputs=outputs))
    return out


def _run(runs: list[Path], screenshot: Path | None, scale: int) -> None:

    line = []
    for i, run in enumerate(runs):
        t0 = time.perf_counter()
        page = write_html(run)
        render = time.perf_counter() - t0
        load, wrong = open_page(page, screenshot if i == 0 else None)
        size = page.stat().st_size / 2**20
        print(f"{run.name}: {size:.1f} MiB, rendered in {render:.1f} s, loaded in {load:.2f} s; "
              f"{wrong} confirmed but wrong")  # fmt: skip
        line.append(f"{run.name}_mib={size:.2f} {run.name}_load_s={load:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        big = scaled_copy(runs[0], scale, Path(tmp) / "scaled")
        n = len(load_run(big).questions)
        page = write_html(big)  # the copy's manifest names the run's own articles folder
        load, _ = open_page(page, None)
        size = page.stat().st_size / 2**20
        print(f"{n:,} questions: {size:.1f} MiB, loaded in {load:.2f} s")
        line.append(f"q{n}_mib={size:.2f} q{n}_load_s={load:.2f}")
    print(" ".join(line))


@command("html-report")
def html_report_command(
    runs: Annotated[list[Path], typer.Argument(help="Finished run folders.")],
    screenshot: Annotated[
        Path | None, typer.Option(help="Save a screenshot of the first page here.")
    ] = None,
    scale: Annotated[int, typer.Option(help="Copies of the first run's questions.", min=1)] = 10,
) -> None:
    """The HTML report in a real browser: size and load time of real runs' pages, and of a
    page of 3,000 questions; saves the README's screenshot."""
    _run(runs, screenshot, scale)
