"""Verdicts that hold up: the judge's direction and bound rules, transitive vote clusters, no
verdict from too few clusters, checks that cannot run left out, the cascade's article prefix,
and TAT-QA's split by source unit. Each `# main: …` comment is what the landed main said."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from experiment import cli
from experiment.base.errors import ModelError
from experiment.base.types import Question
from experiment.evaluate.judge import gold_of, judge
from experiment.evaluate.methods import REFERENCE, routed
from experiment.evaluate.registry import MethodAnswer
from experiment.evaluate.summary import BEATS, LOSES, TIED, TOO_FEW, verdict
from experiment.evaluate.vote import clusters, majority
from experiment.generate.models.base import CandidateScores
from experiment.importers.split import half_of, shared_across_halves, units
from experiment.values.canonical import CURRENCIES, UNITS, Quantity
from experiment.values.normalize import parse_value

from .conftest import FakeBackend, run_args, write_corpus

GROWTH_Q = "What was revenue growth?"
DECREASE_Q = "By how much did revenue decrease?"
CHANGE_Q = "What was the change in revenue?"
HOW_MANY = "How many were there?"

# (answer, gold, question, right)
SIGN_CASES = [
    ("-5%", "5%", GROWTH_Q, False),  # main: right
    ("Revenue increased by $54.7 million", "$54.7 million", DECREASE_Q, False),  # main: right
    ("54.7 million", "-54.7 million", CHANGE_Q, False),  # main: right
    ("fell 5%", "5%", CHANGE_Q, False),  # only the answer has a direction; main: right
    ("100", "less than 100", HOW_MANY, False),  # a bound is not a figure; main: right
    ("more than 100", "100", HOW_MANY, False),  # main: right
    # the rule's right cases stay right
    ("5%", "5%", GROWTH_Q, True),
    ("rose 5%", "5%", GROWTH_Q, True),
    ("$54.7 million", "$54.7 million", DECREASE_Q, True),
    ("54.7 million", "-54.7 million", DECREASE_Q, True),  # the question states the fall
    ("-54.7 million", "$54.7 million", DECREASE_Q, True),
    ("a decline of 54.7 million", "-54.7 million", CHANGE_Q, True),
    ("54.7 million", "54.7 million", CHANGE_Q, True),
    ("increased by 54.7 million", "54.7 million", CHANGE_Q, True),
    ("less than 100", "under 100", HOW_MANY, True),
    ("about 100", "100", HOW_MANY, True),
]


@pytest.mark.parametrize(("answer", "gold", "question", "right"), SIGN_CASES)
def test_the_judge_reads_direction_and_bounds(
    answer: str, gold: str, question: str, right: bool
) -> None:
    q = Question("q", "a", question, (gold,), "figure")
    value = parse_value(answer, "figure", question)
    assert value is not None
    assert judge(value, q, gold_of(q), answer) is right


def _v(text: str) -> Quantity:
    value = parse_value(text, "figure")
    assert isinstance(value, Quantity), text
    return value


def _sizes(texts: list[str]) -> list[list[str]]:
    values = [_v(t) for t in texts]
    return sorted(sorted(texts[i] for i in c) for c in clusters(values, list(range(len(values)))))


def test_a_bare_figure_does_not_chain_two_currencies() -> None:
    # main: one cluster of three votes
    assert _sizes(["$250", "250", "€250"]) == [["$250"], ["250"], ["€250"]]
    assert majority([_v("$250"), _v("250"), _v("€250")]).votes == 1


def test_a_bare_figure_does_not_chain_opposite_bounds() -> None:
    # main: one cluster of three votes, though the docstring kept the bounded pair apart
    assert len(_sizes(["less than 100", "100", "more than 100"])) == 3


def test_a_bare_figure_joins_the_one_cluster_it_matches() -> None:
    assert _sizes(["$250", "250", "$250", "7"]) == [["$250", "$250", "250"], ["7"]]
    assert majority([_v("$250"), _v("250"), _v("€250"), _v("€250")]).votes == 2


ANSWERS = ["$250", "250", "€250", "250 km", "250 kg", "less than 250", "more than 250", "25"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(ANSWERS), min_size=1, max_size=10), st.randoms())
def test_clusters_do_not_depend_on_order_and_never_mix_units(texts: list[str], rnd) -> None:  # type: ignore[no-untyped-def]
    shuffled = texts[:]
    rnd.shuffle(shuffled)
    assert _sizes(texts) == _sizes(shuffled)
    for group in _sizes(texts):
        values = [_v(t) for t in group]
        units = {v.unit for v in values if v.unit}
        dims = {UNITS[u][0] if u in UNITS else u for u in units}
        assert len(dims) <= 1, group  # one dimension or one currency
        assert len({u for u in units if u in CURRENCIES}) <= 1, group
        assert len({v.qualifier for v in values if v.qualifier}) <= 1, group


def test_no_verdict_from_too_few_clusters_or_without_mcnemar() -> None:
    assert verdict(-0.5, -0.1, 1, 0.001) == TOO_FEW
    assert verdict(-0.5, -0.1, 9, 0.001) == TOO_FEW
    assert verdict(-0.5, -0.1, 10, 0.001) == LOSES
    assert verdict(0.1, 0.5, 10, 0.001) == BEATS
    assert verdict(-0.5, -0.1, 30, 0.2) == TIED  # the interval alone is not enough
    assert verdict(-0.5, 0.1, 30, 0.001) == TIED


def test_a_run_on_one_article_prints_no_verdict(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fake_factory
) -> None:  # type: ignore[no-untyped-def]
    # main: every method "loses to large@1" beside an exact McNemar p of 1.000
    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)
    questions = "\n".join(
        ["id,article_id,question,answers,kind,notes"]
        + [f"a{i},alpha,How much does the Widget cost?,$250,figure," for i in range(12)]
    )
    articles, qs = write_corpus(tmp_path, questions=questions + "\n")
    args = run_args(articles, qs, "fake-small", "fake-large", 3, tmp_path, "one")
    result = CliRunner().invoke(cli.app, args)
    assert result.exit_code == 0, result.output
    table = result.output.split("vs large@1:")[0]  # the table, not the caption's rule
    assert " beats" not in table and " loses" not in table
    assert "too few" in table
    summary = (tmp_path / "one" / "summary.csv").read_text(encoding="utf-8")
    assert "loses to" not in summary and "beats" not in summary


class Broken(FakeBackend):
    """A server that answers every scoring request with a body that is not one."""

    def score(self, messages, candidates) -> CandidateScores:  # type: ignore[no-untyped-def]
        self.scored.append((messages, tuple(candidates)))
        raise ModelError(f"{self.name}: malformed response (no choices)")


def test_checks_that_cannot_run_are_left_out_and_said_once(
    corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fakes, caplog
) -> None:  # type: ignore[no-untyped-def]
    # main: large-checks@k at accuracy 0.000, every question failed, a warning per request
    broken = Broken("fake-large", fakes["fake-large"].script)
    factory = {"fake-small": fakes["fake-small"], "fake-large": broken}
    monkeypatch.setattr(cli, "_factory", lambda: lambda spec, _cfg: factory[spec])
    articles, questions = corpus
    args = run_args(articles, questions, "fake-small", "fake-large", 4, tmp_path, "broken")
    with caplog.at_level(logging.WARNING):  # the pools' scores apart: tests/test_drafts.py
        result = CliRunner().invoke(cli.app, [*args, "--drafts", "none"])
    assert result.exit_code == 0, result.output
    assert len(broken.scored) == 1  # one probe request, then no more
    summary = (tmp_path / "broken" / "summary.csv").read_text(encoding="utf-8")
    assert "large@1" in summary and "check" not in summary
    manifest = json.loads((tmp_path / "broken" / "manifest.json").read_text(encoding="utf-8"))
    (why,) = [w for name, w in manifest["left_out"].items() if name.startswith("check (")]
    assert "malformed response" in why
    said = [r for r in caplog.records if "checks are left out" in r.getMessage()]
    assert len(said) == 1


def _answer(method: str, flops: float, prefix: float = 0.0, confidence: float = 0.0):  # type: ignore[no-untyped-def]
    tokens = int(prefix)
    return MethodAnswer(
        method, None, False, 0.0, confidence, 0, 0, 0.0, 1, evaluated_tokens=int(flops),
        flops=flops, prefix_tokens=tokens, prefix_flops=prefix,
    )  # fmt: skip


def test_a_routed_question_pays_its_article_prefix_once() -> None:
    # main: the cascade paid 10 per routed question, the prefix left out
    qs = [Question(f"q{i}", "a" if i < 3 else "b", "How many?", ("1",), "figure") for i in range(4)]
    prefix = {"q0": 0.0, "q1": 100.0, "q2": 100.0, "q3": 100.0}  # q0 read article a's prefix
    answers = {
        q.id: {
            "base": _answer("base", 1.0),
            REFERENCE: _answer(REFERENCE, 110.0 if q.id == "q0" else 10.0, prefix[q.id]),
        }
        for q in qs
    }
    got = routed(qs, answers, 1.0, "base")
    flops = {qid: a.flops for qid, a in got.items()}
    # a: q0 paid its prefix already in large@1; b: q3 pays it
    assert flops == {"q0": 111.0, "q1": 11.0, "q2": 11.0, "q3": 111.0}
    only_later = routed(qs, answers, 0.5, "base")  # q0 and q1 by id: q1's prefix is q0's
    assert only_later["q1"].flops == 11.0
    qs2 = qs[1:]
    alone = routed(qs2, answers, 1 / 3, "base")  # q1 alone: it pays article a's prefix
    assert alone["q1"].flops == 111.0


CONTEXTS = {
    "u1": ["Origo Ferries plc. Remarks on the group's yearly figures, part two", "x"],
    "u2": ["Origo Ferries plc. Remarks on the group's yearly figures, part two"],
    "u3": ["Revenue", "A paragraph of its own that no other context writes at all."],
    "u4": ["Revenue"],  # a heading shared with u3: too short to tell a source
}


def test_tatqa_contexts_that_share_a_paragraph_are_one_unit() -> None:
    unit = units(CONTEXTS)
    assert unit["u1"] == unit["u2"] and unit["u3"] != unit["u4"]
    assert shared_across_halves(CONTEXTS, unit) == 0
    # the unit is in the evaluation half only when every context of it is
    assert half_of(unit["u1"]) == ("fit" if "fit" in {half_of("u1"), half_of("u2")} else "eval")


def test_by_context_the_shared_paragraph_crosses_the_halves() -> None:
    pair = next(
        (a, b)
        for a in (f"c{i}" for i in range(50))
        for b in (f"d{i}" for i in range(50))
        if half_of(a) != half_of(b)
    )
    shared = "A long notes header that the two contexts of one report both write."
    contexts = {pair[0]: [shared], pair[1]: [shared]}
    assert shared_across_halves(contexts, {c: c for c in contexts}) == 1  # main's split
    assert shared_across_halves(contexts, units(contexts)) == 0


def test_the_selector_section_states_what_the_shipped_file_records() -> None:
    from experiment.evaluate.selector import fitted_on, learned

    said = fitted_on(learned())
    for name, n in learned().fitted["questions"].items():
        assert f"{name} ({n})" in said
    assert "SQuAD's titles" not in said


def test_large_at_1_records_the_prefix_its_call_read_from_the_cache() -> None:
    from dataclasses import replace

    from experiment.base.types import Attempt
    from experiment.evaluate.answer import Answer
    from experiment.evaluate.methods import with_prefix
    from experiment.generate.models.cost import ModelShape

    shape = ModelShape(2, 8, 8, 100, 2000, 1000)
    base = Attempt("q", "a", "large", "m", 0, 0, 0.0, "5", 1000, 5, 0.1, False, "5", "5")
    later = Answer(replace(base, evaluated_tokens=105, flops=1.0), None)  # 900 read from cache
    first = Answer(replace(base, evaluated_tokens=1005, flops=9.0), None)  # read it all
    answer = _answer(REFERENCE, 1.0)
    got = with_prefix(answer, later, shape)
    assert got.prefix_tokens == 900 and got.prefix_flops == shape.flops(range(900), 0)
    assert with_prefix(answer, first, shape).prefix_tokens == 0
    unknown = Answer(replace(base, evaluated_tokens=None), None)
    assert with_prefix(answer, unknown, shape).prefix_flops is None
    # a shape recorded in a manifest reads back
    assert ModelShape.of(shape.as_json()) == shape and ModelShape.of({}) is None
