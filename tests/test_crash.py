"""SIGKILL at 20 random moments of a real run: each resumed run writes the uninterrupted files."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from experiment.config import PROJECT_ROOT

from .conftest import ARTICLE_A, ARTICLE_B

EXPORTS = ("attempts.csv", "questions.csv", "summary.csv", "curves.csv", "blindspots.csv")
TEMPLATES = [
    ("alpha", "How many units were sold in the first month (report {i})?", "13,200", "figure"),
    ("alpha", "When was the Widget launched (report {i})?", "12 March 2024", "date"),
    ("alpha", "How much does the Widget cost (report {i})?", "$250", "figure"),
    ("beta", "How many staff did the office open with (report {i})?", "40", "figure"),
    ("beta", "What is the CEO's salary (report {i})?", "unanswerable", "figure"),
]


def make_corpus(root: Path, copies: int = 5) -> tuple[Path, Path]:
    arts = root / "articles"
    arts.mkdir(parents=True)
    (arts / "alpha.md").write_text(ARTICLE_A, encoding="utf-8")
    (arts / "beta.md").write_text(ARTICLE_B, encoding="utf-8")
    lines = ["id,article_id,question,answers,kind,notes"]
    for i in range(copies):
        for j, (art, q, gold, kind) in enumerate(TEMPLATES):
            lines.append(f'{art}-{i}-{j},{art},{q.format(i=i)},"{gold}",{kind},')
    qs = root / "questions.csv"
    qs.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return arts, qs


def start(arts: Path, qs: Path, out: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}
    return subprocess.Popen(
        [sys.executable, "-m", "tests.crash_worker", str(arts), str(qs), str(out)],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def finish(arts: Path, qs: Path, out: Path) -> float:
    t0 = time.perf_counter()
    proc = start(arts, qs, out)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0 and b"done" in stdout, stderr.decode()
    return time.perf_counter() - t0


def test_sigkill_at_20_random_moments_then_resume_gives_identical_files(tmp_path: Path) -> None:
    arts, qs = make_corpus(tmp_path)
    reference = tmp_path / "reference"
    took = finish(arts, qs, reference)
    expected = {name: (reference / "t" / name).read_bytes() for name in EXPORTS}
    rng = random.Random(20261202)
    mid_run = 0
    for trial in range(20):
        out = tmp_path / f"trial{trial}"
        proc = start(arts, qs, out)
        time.sleep(rng.uniform(0.0, took))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        cache = out / ".cache" / "generations.sqlite"
        was_mid = cache.exists() and not (out / "t" / "manifest.json").exists()
        mid_run += was_mid  # killed while generating, with some samples possibly stored
        finish(arts, qs, out)
        for name in EXPORTS:
            assert (out / "t" / name).read_bytes() == expected[name], (trial, name)
        assert not list((out / "t").glob(".*.tmp"))  # no temporary file left behind
        manifest = json.loads((out / "t" / "manifest.json").read_text())
        assert manifest["attempts"] == 25 * 4
        if manifest["cached_attempts"]:
            assert manifest["resumed"] is True
    assert mid_run >= 5  # most kills landed inside the run, not before or after it
