"""A model that misbehaves: every attempt is recorded with a reason, and the run goes on."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.base.types import Generation
from experiment.generate.trouble import output_trouble

from .conftest import LARGE_ANSWERS, FakeBackend, keyword_script, run_args


@pytest.mark.parametrize(
    ("text", "finish", "reason"),
    [
        ("", "stop", "empty output"),
        ("   \n\t", "stop", "only whitespace"),
        (
            "the the the the the the the the the the",
            "length",
            "repetitive output (hit the token limit)",
        ),
        ("!!!!!!!!!!!!!!!!!!!!!!!!", "length", "repetitive output (hit the token limit)"),
        ("это не указано в статье", "stop", "text in another script, no figure"),
        ("", "error: RuntimeError: boom", "model error: RuntimeError: boom"),
        ("The answer is about", "length", "hit the token limit without an answer"),
        ("Alpha did well", "stop", ""),
    ],
)
def test_output_trouble_names_the_problem(text: str, finish: str, reason: str) -> None:
    assert output_trouble(text, finish) == reason


class Troubled(FakeBackend):
    """Garbage of every kind by question; raises on the launch question's first call."""

    def generate(self, messages, params, seeds):  # type: ignore[no-untyped-def]
        question = messages[-1]["content"].rsplit("Question: ", 1)[-1]
        if "launched" in question and not getattr(self, "raised", False):
            self.raised = True
            raise RuntimeError("CUDA error: illegal memory access")
        return super().generate(messages, params, seeds)


GARBAGE = {
    "units": ["", "   ", "13,200 13,200 13,200 13,200 13,200 13,200 13,200 13,200"],
    "launched": ["12 March 2024"],
    "cost": ["стоимость не указана"],
    "staff": ["40"],
    "salary": ["unknown"],
}


def test_run_survives_garbage_and_a_crash_mid_batch(corpus, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    small = Troubled("bad-small", keyword_script(GARBAGE))
    large = FakeBackend("fake-large", keyword_script(LARGE_ANSWERS))
    monkeypatch.setattr(
        cli, "_factory", lambda: lambda spec, cfg: small if spec == "bad" else large
    )
    res = CliRunner().invoke(cli.app, run_args(*corpus, "bad", "large", 3, tmp_path, "t"))
    assert res.exit_code == 0, res.output
    a = pd.read_csv(tmp_path / "t" / "attempts.csv", keep_default_na=False)
    small_rows = a[a.role == "small"]
    reasons = set(small_rows.reason)
    assert {"empty output", "only whitespace", "text in another script, no figure"} <= reasons
    assert "model error: RuntimeError: CUDA error: illegal memory access" in reasons
    assert len(small_rows) == 5 * 3  # every attempt has its row
    # Failures are counted apart from deliberate abstentions, in the manifest and the console.
    failed = small_rows[(small_rows.value == "") & (small_rows.reason != "model abstained")]
    manifest = json.loads((tmp_path / "t" / "manifest.json").read_text())
    assert manifest["failures"] == {"small": len(failed), "large": 0} and len(failed) >= 4
    assert f"small model {len(failed)} of 15 samples" in " ".join(res.output.split())
    summary = pd.read_csv(tmp_path / "t" / "summary.csv").set_index("method")
    assert summary.loc["large@1", "failed"] == 0 and summary.loc["small@1", "failed"] >= 1
    # The failed samples were not cached: the same command generates them again, and only them.
    small.calls.clear()
    res = CliRunner().invoke(cli.app, run_args(*corpus, "bad", "large", 3, tmp_path, "t"))
    assert res.exit_code == 0
    assert {q for q, _ in small.calls} and all("launched" in q for q, _ in small.calls)
    again = pd.read_csv(tmp_path / "t" / "attempts.csv", keep_default_na=False)
    assert "model error" not in " ".join(again.reason)


def test_a_model_that_always_fails_stops_the_run_with_a_clear_message(
    corpus, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    class Dead(FakeBackend):
        def generate(self, messages, params, seeds):  # type: ignore[no-untyped-def]
            raise ConnectionError("server at 127.0.0.1:9 refused the connection")

    dead = Dead("dead", keyword_script({}))
    many = corpus[1].read_text() + "".join(
        f'alpha-x{i},alpha,How many units in week {i}?,"13,200",figure,\n' for i in range(5)
    )
    corpus[1].write_text(many)
    monkeypatch.setattr(cli, "_factory", lambda: lambda spec, cfg: dead)
    res = CliRunner().invoke(cli.app, run_args(*corpus, "dead", "dead", 2, tmp_path, "t"))
    assert res.exit_code == 1
    assert "failed on 5 questions in a row" in res.output and "refused the connection" in res.output
    assert not (tmp_path / "t" / "attempts.csv").exists()  # nothing half-written


def test_generation_count_mismatch_is_an_error() -> None:
    from experiment.base.types import Article, Question
    from experiment.generate.models.base import SamplingParams
    from experiment.generate.sampling import sample_question

    class Short(FakeBackend):
        def generate(self, messages, params, seeds):  # type: ignore[no-untyped-def]
            return [Generation("1", 1, 1, 0.0)]

    art = Article("a", "t", "2024-01-01", "It had 1 office.", Path("a.md"))
    q = Question("q", "a", "How many offices?", ("1",), "figure")
    out = sample_question(Short("s", keyword_script({})), art, q, 3, SamplingParams(), 0, None)
    assert all(s.generation.finish_reason.startswith("error: ModelError") for s in out)
