"""The method registry: a method registered in a test reaches every output with no other edit,
and the registry keeps its order, refuses what it cannot compute, and names methods by k."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.evaluate.methods import CASCADE, PASS, REFERENCE, SELECTED, VERIFIED
from experiment.evaluate.question_samples import QuestionSamples
from experiment.evaluate.registry import (
    REGISTRY,
    Choice,
    Method,
    registered,
)
from experiment.report.html import render_html
from experiment.report.run import load_run

from .conftest import run_args

TOY = "small-last@{k}"


def _last(qs: QuestionSamples) -> Choice:
    """The toy method: the small model's last sample, whatever it says."""
    last = qs.small[-1]
    return Choice(last if last.value is not None else None, qs.small[-1:], failed=last.failed)


def test_a_registered_method_reaches_summary_console_questions_and_the_html_page(
    corpus, tmp_path: Path, monkeypatch, fake_factory
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)
    articles, questions = corpus
    toy = Method(TOY, frozenset({"small"}), _last)
    with registered(toy, before=CASCADE):
        args = run_args(articles, questions, "fake-small", "fake-large", 3, tmp_path, "toy")
        res = CliRunner().invoke(cli.app, args)
        assert res.exit_code == 0, res.output
        assert "small-last@3" in res.output  # the console table
        run = load_run(tmp_path / "toy")
        assert run.methods.index("small-last@3") == run.methods.index("cascade") - 1
        # the fake small model's third sample for "units" is "13,200": right
        assert bool(run.questions.set_index("question_id").loc["alpha-1", "small-last@3.correct"])
        page = render_html(tmp_path / "toy", articles)
        assert "small-last@3" in page
    assert toy not in list(REGISTRY)
    with (tmp_path / "toy" / "summary.csv").open(encoding="utf-8") as f:
        assert "small-last@3" in [row["method"] for row in csv.DictReader(f)]


def test_names_take_k_and_the_table_order_is_the_registry_order() -> None:
    assert VERIFIED.name(7) == "small-verified@7" and VERIFIED.family == "small-verified"
    assert REFERENCE == "large@1" and not PASS.keeps_one and VERIFIED.per_k
    names = REGISTRY.names(4)
    assert names[:3] == ["large@1", "large-verified@1", "small@1"]
    assert names.index(SELECTED.name(4)) < names.index("cascade") < names.index("cascade@20%")
    # without the article, the selectors and the routed cascades are left out
    assert SELECTED.name(4) not in REGISTRY.names(4, frozenset({"small", "large"}))
    assert REGISTRY.by_name("small-pass@4", 4) is PASS


def test_a_method_needs_one_function_and_known_needs_and_a_free_name() -> None:
    with pytest.raises(ValueError, match="one function"):
        Method("bad@{k}", frozenset({"small"}))
    with pytest.raises(ValueError, match="needs"):
        Method("bad@{k}", frozenset({"telepathy"}), _last)
    with pytest.raises(ValueError, match="registered already"):
        REGISTRY.register(Method(VERIFIED.pattern, frozenset({"small"}), _last))
