"""The large model as a checker, with scripted fakes: the evidence it reads, its decision, the
methods it adds to every output, the cache, and a backend that cannot score."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.base.errors import ConfigError
from experiment.base.types import Article, Attempt, Question, Span
from experiment.config import RunConfig
from experiment.evaluate.answer import Answer
from experiment.evaluate.features import ConfirmedAnswer
from experiment.evaluate.large_check import (
    EVIDENCE,
    UNKNOWN,
    WHOLE,
    Probe,
    candidate_text,
    decide,
    passage,
    probes,
)
from experiment.generate.models.base import Backend, CandidateScores

from .conftest import FakeBackend, run_args

TEXT = (
    "OrigoTech opened in Delft in 2001. It had 40 staff then. Revenue reached $12 million "
    "in 2023. The board met twice.\n\n"
    "Segment revenue ($ in millions)\n\n"
    "| Segment | 2023 | 2022 |\n"
    "| --- | --- | --- |\n"
    "| Cloud | 142.9 | 120.1 |\n"
    "| Devices | 88.0 | 91.5 |\n"
)
ARTICLE = Article("a1", "OrigoTech in numbers", "2024-01-05", TEXT, Path("a1.md"))
QUESTION = Question("q1", "a1", "How much revenue did Cloud bring in 2023?", ("142.9",), "figure")


def _span(text: str, after: int = 0) -> Span:
    at = TEXT.index(text, after)
    return Span(at, at + len(text), text)


def _candidate(text: str, samples: tuple[int, ...], after: int = 0) -> ConfirmedAnswer:
    return ConfirmedAnswer(None, text, samples[0], samples, _span(text, after), (0, 0), {})  # type: ignore[arg-type]


def _sample(raw: str, i: int) -> Answer:
    a = Attempt("q1", "a1", "small", "s", i, i, 0.7, raw, 10, 2, 0.1, False, raw, raw)
    return Answer(a, None)


def test_a_prose_passage_is_the_sentence_and_its_neighbours() -> None:
    got = passage(ARTICLE, _candidate("40", (0,)).span)
    assert got == TEXT[: TEXT.index(" The board")]  # the sentence before and the one after
    first = passage(ARTICLE, _candidate("2001", (0,)).span)  # no left neighbour
    assert first.startswith("OrigoTech opened") and "$12 million" not in first


def test_a_table_passage_is_the_caption_headers_and_the_cells_row() -> None:
    got = passage(ARTICLE, _candidate("142.9", (0,)).span)
    assert got.splitlines() == [
        "Segment revenue ($ in millions)",
        "| Segment | 2023 | 2022 |",
        "| --- | --- | --- |",
        "| Cloud | 142.9 | 120.1 |",
    ]
    assert "Devices" not in got and "Revenue reached" not in got


def test_the_candidate_text_is_the_form_written_most_often() -> None:
    small = [_sample(t, i) for i, t in enumerate(["$142.9m", "142.9", "142.9", "$142.9m", "x"])]
    assert candidate_text(small, _candidate("142.9", (0, 1, 2))) == "142.9"
    assert candidate_text(small, _candidate("142.9", (0, 1, 2, 3))) == "$142.9m"  # tie: earliest


def test_whole_is_one_call_and_evidence_one_per_passage() -> None:
    small = [_sample(t, i) for i, t in enumerate(["142.9", "120.1", "40"])]
    cands = [
        _candidate("142.9", (0,)),
        _candidate("120.1", (1,)),
        _candidate("40", (2,)),
    ]
    whole = [{"role": "user", "content": "the large@1 prompt"}]
    (one,) = probes(WHOLE, QUESTION, ARTICLE, cands, small, whole, "figure")
    assert one.messages == whole and one.texts == ("142.9", "120.1", "40", UNKNOWN)
    shown = probes(EVIDENCE, QUESTION, ARTICLE, cands, small, whole, "figure")
    assert [p.texts for p in shown] == [("142.9", "120.1", UNKNOWN), ("40", UNKNOWN)]
    assert [p.members for p in shown] == [(0, 1), (2,)]  # one row holds both cells
    user = shown[1].messages[-1]["content"]
    assert "It had 40 staff" in user and "| Cloud |" not in user and QUESTION.text in user
    assert probes(EVIDENCE, QUESTION, ARTICLE, [], small, whole, "figure") == []


def _scores(*lps: float) -> CandidateScores:
    return CandidateScores(lps, tuple(2 for _ in lps), 30, 0.1, 40, 1000.0)


def test_the_pick_is_the_largest_margin_over_unknown_on_its_own_passage() -> None:
    small = [_sample(t, i) for i, t in enumerate(["142.9", "120.1", "40"])]
    cands = [_candidate("142.9", (0,)), _candidate("120.1", (1,)), _candidate("40", (2,))]
    calls = [Probe([], ("142.9", "120.1", UNKNOWN), (0, 1)), Probe([], ("40", UNKNOWN), (2,))]
    # "40" is more probable in its own call (-1 against -3), but 142.9 beats unknown by more
    check = decide(
        EVIDENCE, cands, small, calls, [_scores(-2.0, -6.0, -5.0), _scores(-1.0, -3.0)], 0.0
    )
    assert check.margins == (3.0, -1.0, 2.0) and check.pick == 0
    assert (check.evaluated_tokens, check.flops, check.calls) == (80, 2000.0, 2)
    assert check.confidence == pytest.approx(1 / (1 + math.exp(-3)))
    none = decide(
        EVIDENCE, cands, small, calls, [_scores(-6.0, -7.0, -1.0), _scores(-4.0, -1.0)], 0.0
    )
    assert none.pick is None  # unknown wins everywhere: abstain
    unknown_cost = decide(
        EVIDENCE, cands, small, calls, [_scores(-1, -1, -1), _scores(-1, -1)], 0.0
    )
    assert unknown_cost.pick is None  # a tie with unknown is not a confirmation
    scores = [_scores(-6.0, -7.0, -1.0), _scores(-4.0, -1.0)]  # margins -5, -6, -3
    assert decide(EVIDENCE, cands, small, calls, scores, -4.0).pick == 2  # -3 passes -4
    assert decide(EVIDENCE, cands, small, calls, scores, -2.0).pick is None
    assert decide(EVIDENCE, cands, small, calls, scores, -math.inf).pick == 2  # never abstains


@pytest.fixture
def run_checks(corpus, tmp_path: Path, monkeypatch, fake_factory):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)
    articles, questions = corpus

    def run(run_id: str, *extra: str) -> Path:
        args = run_args(articles, questions, "fake-small", "fake-large", 4, tmp_path, run_id)
        result = CliRunner().invoke(cli.app, [*args, *extra])
        assert result.exit_code == 0, result.output
        return tmp_path / run_id

    return run


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def test_a_run_checks_with_the_large_model_and_every_output_has_the_methods(
    run_checks, fakes
) -> None:  # type: ignore[no-untyped-def]
    run = run_checks("checked")
    names = {r["method"] for r in _rows(run / "summary.csv")}
    assert {"large-checks@4", "large-checks-evidence@4", "cascade-check@20%"} <= names
    large = fakes["fake-large"]
    # the small model confirms answers on four questions; each is checked both ways
    whole = [m for m, _ in large.scored if "Alpha launched the Widget on" in m[-1]["content"]]
    assert large.scored and len(whole) < len(large.scored)
    questions = {r["question_id"]: r for r in _rows(run / "questions.csv")}
    # the large model's script says "10,000" for units, which the small model confirmed once
    assert questions["alpha-1"]["large-checks@4.answer"] == "10,000"
    assert questions["alpha-3"]["large-checks-evidence@4.answer"] == "$250"
    assert questions["beta-2"]["large-checks@4.answer"] == ""  # nothing confirmed: no call
    summary = {r["method"]: r for r in _rows(run / "summary.csv")}
    assert int(summary["large-checks@4"]["large_calls"]) > 0
    html = (run / "report.html") if (run / "report.html").exists() else None
    assert html is None or "large-checks@4" in html.read_text(encoding="utf-8")


def test_the_checks_come_from_the_cache_the_second_time(run_checks, fakes) -> None:  # type: ignore[no-untyped-def]
    run_checks("first")
    calls = len(fakes["fake-large"].scored)
    run_checks("first")
    assert len(fakes["fake-large"].scored) == calls


def test_checks_none_leaves_the_methods_out(run_checks, fakes) -> None:  # type: ignore[no-untyped-def]
    run = run_checks("plain", "--checks", "none", "--drafts", "none")
    names = {r["method"] for r in _rows(run / "summary.csv")}
    assert not any("check" in n for n in names) and "cascade@20%" in names
    assert fakes["fake-large"].scored == []


def test_a_backend_that_cannot_score_leaves_the_checks_out(
    corpus, tmp_path: Path, monkeypatch, fakes
) -> None:  # type: ignore[no-untyped-def]
    class Plain(FakeBackend):
        score = Backend.score  # the protocol's default: it cannot

    plain = Plain("fake-large", fakes["fake-large"].script)
    factory = {"fake-small": fakes["fake-small"], "fake-large": plain}
    monkeypatch.setattr(cli, "_factory", lambda: lambda spec, _cfg: factory[spec])
    articles, questions = corpus
    args = run_args(articles, questions, "fake-small", "fake-large", 4, tmp_path, "plain")
    result = CliRunner().invoke(cli.app, args)
    assert result.exit_code == 0, result.output
    names = {r["method"] for r in _rows(tmp_path / "plain" / "summary.csv")}
    assert "large@1" in names and not any("check" in n for n in names)


def test_the_checks_setting_is_parsed_and_a_bad_one_named() -> None:
    assert RunConfig().check_modes == (WHOLE, EVIDENCE)
    assert RunConfig(checks="evidence").check_modes == (EVIDENCE,)
    assert RunConfig(checks="none").check_modes == ()
    with pytest.raises(ConfigError, match="checks"):
        RunConfig(checks="large")


def test_cascade_check_sends_to_the_check_and_to_large_where_nothing_was_confirmed() -> None:
    from experiment.evaluate.methods import REFERENCE, routed
    from experiment.evaluate.registry import MethodAnswer

    def answer(name: str, confidence: float, calls: int, correct: bool) -> MethodAnswer:
        return MethodAnswer(name, None, correct, 1.0, confidence, 10, 1, 0.1, calls)

    qs = [Question(f"q{i}", "a1", "How many?", ("1",), "figure") for i in range(3)]
    answers = {
        # q0: least confident, the check made a call; q1: next, nothing to check; q2: kept
        "q0": {"base": answer("base", 0.1, 0, False), "check": answer("check", 0.9, 1, True)},
        "q1": {"base": answer("base", 0.2, 0, False), "check": answer("check", 0.0, 0, False)},
        "q2": {"base": answer("base", 0.9, 0, True), "check": answer("check", 0.9, 1, False)},
    }
    for qid in answers:
        answers[qid][REFERENCE] = answer(REFERENCE, 1.0, 1, qid == "q1")
    got = routed(qs, answers, 2 / 3, "base", "check", REFERENCE)
    assert [got[q.id].method for q in qs] == ["check", REFERENCE, "base"]
    assert all(got[q.id].correct for q in qs)
