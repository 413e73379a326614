"""The checks table reads the run folders as they are: each check's accuracy and FLOP ratio."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from experiment.config import RunConfig
from experiment.report.checks_table import checks_figures, checks_line, checks_table
from experiment.runner import run_experiment

from .conftest import LARGE_ANSWERS, SMALL_ANSWERS, FakeBackend, keyword_script


def _run(corpus: tuple[Path, Path], out: Path, checks: str) -> Path:
    fakes = {
        "s": FakeBackend("s", keyword_script(SMALL_ANSWERS), flops=10.0),
        "l": FakeBackend("l", keyword_script(LARGE_ANSWERS), flops=50.0),
    }
    articles, questions = corpus
    cfg = RunConfig(
        articles=articles,
        questions=questions,
        small="s",
        large="l",
        k=4,
        out=out,
        run_id=f"r-{checks.replace(',', '')}",
        checks=checks,
    )
    return run_experiment(cfg, lambda spec, _cfg: fakes[spec]).run_dir


def test_the_table_states_each_check_with_its_cost(
    corpus: tuple[Path, Path], tmp_path: Path
) -> None:
    checked = _run(corpus, tmp_path / "o", "whole,evidence")
    unchecked = _run(corpus, tmp_path / "o", "none")
    figures = checks_figures({"a": checked, "b": unchecked, "c": tmp_path / "missing"})
    json.dumps(figures)  # a record's figures: plain JSON
    lines, line = checks_table(figures), checks_line(figures)
    summary = pd.read_csv(checked / "summary.csv").set_index("method")
    pairs = dict(p.split("=") for p in line.split())
    assert set(k.rsplit("_", 1)[1] for k in pairs) == {"a"}  # b has no checks, c no run
    for key, method in (("check_acc", "large-checks-evidence@4"), ("large_acc", "large@1")):
        assert float(pairs[f"{key}_a"]) == pytest.approx(summary.loc[method, "accuracy"], abs=5e-4)
    ratio = summary.loc["large-checks-evidence@4", "flops_vs_large"]
    small = summary.loc["small-selected@4", "flops_vs_large"]
    assert ratio > small  # the small model's samples and the check's scoring calls
    assert float(pairs["check_cost_ratio_a"]) == pytest.approx(ratio, abs=5e-3)
    assert float(pairs["check_cost_ratio_alone_a"]) == pytest.approx(ratio - small, abs=5e-3)
    assert float(pairs["check_whole_cost_ratio_a"]) == pytest.approx(
        summary.loc["large-checks@4", "flops_vs_large"], abs=5e-3
    )
    table = [row for row in lines if row.startswith("|")]
    assert len(table) == 6  # two tables, each a header, a rule and one run
    q = pd.read_csv(checked / "questions.csv", keep_default_na=False)
    ev, sel = "large-checks-evidence@4", "small-selected@4"
    abstained = q[f"{ev}.answer"].astype(str) == ""
    right = lambda m: q[f"{m}.correct"].astype(str) == "True"  # noqa: E731
    fallback = ((~abstained & right(ev)) | (abstained & right(sel))).mean()
    cells = [c.strip() for c in table[5].strip("|").split("|")]
    assert cells[1] == f"{abstained.sum()} ({(abstained & right(sel)).sum()})"
    assert cells[-1] == f"{fallback:.3f}"
    assert "`r-wholeevidence`" in table[2]
    assert f"({ratio:.2f})" in table[2] and table[2].endswith(
        f" / {pairs['check_whole_cost_ratio_alone_a']} |"
    )
    assert not any("stated" in row for row in lines)  # no computed questions here
