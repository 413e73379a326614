"""Each writer of the files factqa owns, killed (SIGKILL) just before a step that changes the
disk: after the kill nothing of the user's is lost and no half-written file is visible, the
next command finds the old set of files or the new one, and the next run completes with the
files an uninterrupted run writes. `tests/owned_worker.py` runs the writer and kills itself.

Import and verify --out are killed at every step; report --html and bench report (a few
seconds of drawing each) at four steps spread over their run, the first and the last included.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from experiment.base.files import LEDGER, recover
from experiment.config import PROJECT_ROOT
from experiment.importers.service import import_dataset

from . import owned_worker
from .test_importers import squad_file
from .test_owned_files import MY_ARTICLE, MY_QUESTIONS, make_run, snapshot

WRITERS = ("import", "verify", "report", "bench")  # owned_writes_killed: their number


def kill(at: int, writer: str, *args: Path) -> int:
    """The writer's exit status, killed before its step `at`."""
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    cmd = [sys.executable, "-m", "tests.owned_worker", str(at), writer, *map(str, args)]
    proc = subprocess.run(cmd, cwd=PROJECT_ROOT, env=env, capture_output=True, timeout=600)
    assert proc.returncode == -signal.SIGKILL, (at, proc.stdout, proc.stderr.decode()[-2000:])
    return proc.returncode


def steps(monkeypatch: pytest.MonkeyPatch, writer: str, *args: Path) -> int:
    """How many steps that change the disk `writer` takes on `args`, run here."""
    count = [0]

    def counted(real: Callable[..., Any]) -> Callable[..., Any]:
        def step(*a: Any, **k: Any) -> Any:
            count[0] += 1
            return real(*a, **k)

        return step

    owned_worker.prepare(writer)
    with monkeypatch.context() as m:
        for name in owned_worker.CHANGES:
            m.setattr(os, name, counted(getattr(os, name)))
        m.setattr(shutil, "rmtree", counted(shutil.rmtree))
        owned_worker.write(writer, [str(a) for a in args])
    return count[0]


def visible(folder: Path) -> dict[str, bytes]:
    """The files a reader sees: none under a hidden name (temporaries, staged folders)."""
    return {
        k: v
        for k, v in snapshot(folder).items()
        if not any(p.startswith(".") for p in Path(k).parts)
    }


def leftovers(folder: Path) -> list[str]:
    """Hidden entries a finished writer leaves besides its ledger: none."""
    return sorted(
        str(p.relative_to(folder))
        for p in folder.rglob(".*")
        if p.name != LEDGER and not p.name.startswith(".lock")
    )


def half_written(seen: dict[str, bytes], old: dict[str, bytes], new: dict[str, bytes]) -> list[str]:
    """The files that are neither as they were nor as an uninterrupted writer leaves them."""
    return sorted(k for k, v in seen.items() if v not in (old.get(k), new.get(k)))


def spread(total: int, points: int) -> list[int]:
    return sorted({1 + round(i * (total - 1) / (points - 1)) for i in range(points)})


def test_an_import_killed_at_every_step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    src = squad_file(tmp_path)
    template = tmp_path / "template"
    import_dataset("squad", src, template)  # the earlier import, and the user's files beside it
    (template / "articles" / "harbour.md").write_text(MY_ARTICLE, encoding="utf-8")
    (template / "questions" / "harbour.csv").write_text(MY_QUESTIONS, encoding="utf-8")
    (template / "notes.txt").write_text("mine\n", encoding="utf-8")
    user = {k: v for k, v in visible(template).items() if "harbour" in k or k == "notes.txt"}
    old = visible(template)
    reference = tmp_path / "reference"
    shutil.copytree(template, reference)
    total = steps(monkeypatch, "import", src, reference)
    new = visible(reference)
    assert new != old and total > 10
    for at in range(1, total + 1):
        out = tmp_path / f"killed{at}"
        shutil.copytree(template, out)
        kill(at, "import", src, out)
        seen = visible(out)
        assert all(seen[k] == v for k, v in user.items()), at  # nothing of the user's lost
        assert half_written(seen, old, new) == [], at
        recover(out)  # what the next command into the folder does first
        assert visible(out) in (old, new), at  # the old import or the new one, whole
        assert leftovers(out) == [], at
        owned_worker.write("import", [str(src), str(out)])  # the next run completes
        assert visible(out) == new and snapshot(out) == snapshot(reference), at


def test_verify_out_killed_at_every_step(corpus, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    arts, _ = corpus
    template = tmp_path / "template"
    template.mkdir()
    (template / "answers.csv").write_text(
        'article_id,answer\nalpha,-12 stores\nalpha,"13,200"\nalpha,$250\n', encoding="utf-8"
    )
    (template / "earlier.csv").write_text("article_id,answer\nalpha,1998\n", encoding="utf-8")
    owned_worker.write(
        "verify", [str(template / "earlier.csv"), str(arts), str(template / "v.csv")]
    )
    (template / "mine.csv").write_text("my,data\n", encoding="utf-8")
    old = visible(template)
    reference = tmp_path / "reference"
    shutil.copytree(template, reference)
    args = (reference / "answers.csv", arts, reference / "v.csv")
    total = steps(monkeypatch, "verify", *args)
    new = visible(reference)
    assert new["v.csv"] != old["v.csv"] and total >= 4
    for at in range(1, total + 1):
        out = tmp_path / f"killed{at}"
        shutil.copytree(template, out)
        kill(at, "verify", out / "answers.csv", arts, out / "v.csv")
        assert visible(out) in (old, new), at  # the old results or the new, whole
        owned_worker.write("verify", [str(out / "answers.csv"), str(arts), str(out / "v.csv")])
        assert visible(out) == new and leftovers(out) == [], at


def seen_in(run_dir: Path) -> dict[str, bytes]:
    """`visible`, the folder's own path (the report names it) written as RUN."""
    return {k: v.replace(str(run_dir).encode(), b"RUN") for k, v in visible(run_dir).items()}


def test_report_html_killed_at_four_steps(corpus, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    template = make_run(corpus, tmp_path / "runs")
    (template / "notes.txt").write_text("my notes on this run\n", encoding="utf-8")
    old = visible(template)
    reference = tmp_path / "reference"
    shutil.copytree(template, reference)
    total = steps(monkeypatch, "report", reference)
    new = seen_in(reference)
    assert set(new) - set(old) >= {"report.md", "report.html", "plots/accuracy_vs_k.png"}
    for at in spread(total, 4):
        out = tmp_path / f"killed{at}"
        shutil.copytree(template, out)
        kill(at, "report", out)
        seen = seen_in(out)
        assert seen["notes.txt"] == old["notes.txt"], at
        assert half_written(seen, old, new) == [], at
        owned_worker.write("report", [str(out)])  # the next run completes
        assert seen_in(out) == new and leftovers(out) == [], at


def test_bench_report_killed_at_four_steps(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    template = tmp_path / "template"
    (template / "results").mkdir(parents=True)
    shutil.copytree(PROJECT_ROOT / "results" / "bundled", template / "results" / "bundled")
    shutil.copytree(PROJECT_ROOT / "docs" / "results", template / "docs" / "results")
    shutil.copy(PROJECT_ROOT / "docs" / "RESULTS.md", template / "docs" / "RESULTS.md")
    shutil.copy(PROJECT_ROOT / "README.md", template / "README.md")
    (template / "docs" / "mine.md").write_text("my page\n", encoding="utf-8")
    old = visible(template)

    def args(root: Path) -> tuple[Path, Path, Path]:
        return root / "results", root / "docs" / "RESULTS.md", root / "README.md"

    reference = tmp_path / "reference"
    shutil.copytree(template, reference)
    total = steps(monkeypatch, "bench", *args(reference))
    new = visible(reference)
    assert new != old and total >= 4
    for at in spread(total, 4):
        out = tmp_path / f"killed{at}"
        shutil.copytree(template, out)
        kill(at, "bench", *args(out))
        seen = visible(out)
        assert seen["docs/mine.md"] == b"my page\n", at
        assert half_written(seen, old, new) == [], at
        owned_worker.write("bench", [str(a) for a in args(out)])  # the next run completes
        assert visible(out) == new and leftovers(out) == [], at
