"""The calculation prompt's own token limit: fitted on the fitting halves, given to calculation
answers only, and old runs keep their ids."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from experiment.base.types import Article, Generation, Question
from experiment.bench.fit.calc_limit import LIMITS, SHARE, choose
from experiment.config import PROJECT_ROOT, RunConfig
from experiment.generate.models.base import GREEDY, Messages, SamplingParams
from experiment.generate.prompts import AUTO, CALC, CALC_MAX_TOKENS, FIGURE
from experiment.generate.sampling import params_for, sample_all
from experiment.record.migrate import migrate

from .conftest import FakeBackend


def test_only_a_calculation_gets_its_own_limit() -> None:
    assert params_for(GREEDY, CALC, 96).max_tokens == 96
    assert params_for(GREEDY, FIGURE, 96).max_tokens == GREEDY.max_tokens
    assert params_for(GREEDY, CALC, 0).max_tokens == GREEDY.max_tokens


class Limits(FakeBackend):
    """A fake that records the token limit of every call."""

    def __init__(self) -> None:
        super().__init__("limits", lambda m, s, n: "12")
        self.limits: list[int] = []

    def generate(
        self, messages: Messages, params: SamplingParams, seeds: Sequence[int]
    ) -> list[Generation]:
        self.limits += [params.max_tokens] * len(seeds)
        return super().generate(messages, params, seeds)


def test_a_run_answers_a_routed_question_with_the_calculation_limit() -> None:
    art = Article("a", "t", "2025-01-01", "Sales were 12 in 2024 and 9 in 2023.", Path("a.md"))
    routed = Question("q1", "a", "How many more sales were there in 2024 than in 2023?", ("3",),
                      "figure")  # fmt: skip
    stated = Question("q2", "a", "How many sales were there in 2024?", ("12",), "figure")
    backend = Limits()
    sample_all(backend, {"a": art}, [routed, stated], 2, GREEDY, 0, None, prompt=AUTO,
               calc_max_tokens=80)  # fmt: skip
    assert backend.limits == [80, 80, GREEDY.max_tokens, GREEDY.max_tokens]


def test_old_runs_keep_their_ids_and_read_as_before() -> None:
    old = RunConfig(prompt=AUTO, calc_max_tokens=0)
    assert old.fingerprint() == RunConfig(prompt=AUTO, calc_max_tokens=32).fingerprint()
    assert RunConfig(prompt=AUTO).fingerprint() != old.fingerprint()  # the new limit: a new run
    # a run whose prompt asks for no calculation keeps its id whatever the calculation's limit
    figure = RunConfig(prompt=FIGURE)
    assert figure.fingerprint() == RunConfig(prompt=FIGURE, calc_max_tokens=0).fingerprint()
    manifest, _ = migrate({"format_version": 3, "config": {"max_tokens": 32}}, {})
    assert manifest["config"]["calc_max_tokens"] == 0 and manifest["format_version"] >= 4


def test_the_limit_chosen_is_the_smallest_that_few_answers_reach() -> None:
    lengths = [10] * 97 + [40, 50, 70]  # 3 % reach 32, 2 % 48, 1 % 64
    chosen, shares = choose(lengths)
    assert chosen == 64 and shares[32] == pytest.approx(0.03) and shares[64] <= SHARE
    assert choose([200] * 5)[0] is None  # every answer runs past every limit


def test_the_shipped_limit_is_the_fitted_one() -> None:
    record = PROJECT_ROOT / "results" / "bench" / "calc-limit.json"
    fitted = json.loads(record.read_text(encoding="utf-8"))["figures"]["chosen"]
    assert fitted in LIMITS and CALC_MAX_TOKENS == fitted == RunConfig().calc_max_tokens
