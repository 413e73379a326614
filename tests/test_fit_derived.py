"""`factqa bench fit derived`: small-text-derived@k's pick fitted on computed questions, the
small model's samples and scores drawn through the run's stages (a fake model here), the ways
compared by cross-validation grouped by passage, and the shipped choice read back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiment.base.types import Article, Question
from experiment.bench.fit.derived import (
    SECTION,
    Fit,
    figures,
    fit,
    items_of,
    routed_sample,
    section,
)
from experiment.bench.sections import measured
from experiment.config import RunConfig
from experiment.evaluate.drafts import (
    derived_pick,
    derived_selector,
    drafts_of,
    load_derived_selector,
)
from experiment.evaluate.fitted import FittedFileMissing
from experiment.evaluate.proposal_pool import FORMS, RESULT, proposal_pool
from experiment.evaluate.selector import save
from experiment.generate.models.base import Messages
from experiment.generate.prompts import AUTO

from .conftest import FakeBackend

CHANGE = "What was the change in hardware revenue from 2018 to 2019?"


def _table(i: int) -> str:
    return f"""Revenue by segment ($ in millions):

| | 2019 | 2018 |
|---|---|---|
| Hardware | {150 + i}.5 | {120 + 2 * i}.0 |
| Software | {90 + i}.0 | {40 + i}.5 |
"""


def corpus(n: int) -> tuple[dict[str, Article], list[Question]]:
    articles, questions = {}, []
    for i in range(n):
        aid = f"a{i}"
        articles[aid] = Article(aid, f"Segment report {i}", "", _table(i), Path(f"{aid}.md"))
        gold = f"${150 + i - (120 + 2 * i) + 0.5:g} million"
        questions.append(Question(f"q{i}", aid, CHANGE, (gold,), "figure", computed=True))
    questions.append(Question("s0", "a0", "What was hardware revenue in 2019?", ("x",), "figure"))
    return articles, questions


def misled(messages: Messages, seed: int, index: int) -> str:
    """The fake small model: on even passages the right change, on odd ones the software
    row's (a proposal too, and the one it scores highest)."""
    text = messages[-1]["content"]
    i = int(text.split("Segment report ", 1)[1].split("\n", 1)[0])
    hardware, software = 30 - i + 0.5, 49.5
    return f"${hardware if i % 2 == 0 else software:g} million"


def test_only_the_questions_routed_to_the_calculation_prompt_are_fitted_on() -> None:
    _, questions = corpus(6)
    routed = routed_sample(questions, 100)
    assert [q.id for q in routed] == [f"q{i}" for i in range(6)]  # not the stated one
    assert [q.id for q in routed_sample(questions, 3)] == ["q0", "q2", "q4"]  # every n-th


def test_the_fit_compares_the_ways_and_keeps_the_best_by_passage(tmp_path: Path) -> None:
    articles, questions = corpus(10)
    routed = routed_sample(questions, 100)
    small = FakeBackend("s", misled)
    cfg = RunConfig(
        out=tmp_path, run_id="fit", prompt=AUTO, drafts="small", small="s", k=4, derived_text=RESULT
    )
    its = items_of("fit-set", cfg, articles, routed, lambda spec, _cfg: small)
    assert len(its) == 10 and all(any(it.right) for it in its)  # the gold is proposed
    assert {it.group for it in its} == {f"fit-set:a{i}" for i in range(10)}
    table, chosen, model = fit(its, RESULT)
    assert {"rule", "rank", "logprob", "logistic+text", "logistic+all, unknown abstains"} <= set(
        table
    )
    # the hand-set rule follows the model's score: wrong on every misled (odd) passage
    assert table["rule"]["mean"] == pytest.approx(0.5)
    assert table["rank"]["mean"] == pytest.approx(1.0)  # the text's own first is right
    assert table[chosen]["mean"] == pytest.approx(1.0) and chosen != "rule"
    assert model.name == "derived-selector" and model.fitted["chosen"] == chosen

    # the section: one row per way, a logistic way's "unknown abstains" mean beside its own
    fits = {form: Fit(table, chosen, model, {"fit-set": 10}) for form in ("result", "calculation")}
    command = "factqa bench fit derived T D --forms result,calculation"
    text = section(measured(SECTION, command, figures(fits)))
    row = next(line for line in text.splitlines() if line.startswith("| logistic+text |"))
    ruled = table["logistic+text, unknown abstains"]["mean"]
    mean = table["logistic+text"]["mean"]
    sets = table["logistic+text"]["sets"]["fit-set"]
    own = f"{sets:.3f} / {mean:.3f}"
    cells = ["logistic+text", own, f"{ruled:.3f}", own, f"{ruled:.3f}"]
    assert row.strip("| ").split(" | ") == cells
    assert "result: fit-set / mean" in text and "calculation, unknown abstains" in text
    assert "logistic+text, unknown abstains" not in text and f"**{chosen}**" in text

    # shipped, it replaces the rule: a misled passage's pick is now the right change
    path = tmp_path / "derived_selector.json"
    save(model, path)
    shipped = load_derived_selector(path)
    assert shipped is not None
    q, art = routed[1], articles["a1"]
    cands = proposal_pool(q, art)
    texts = (*dict.fromkeys(c.text for c in cands), "unknown")
    prompt = [{"role": "user", "content": f"Article: Segment report 1\n{art.text}"}]
    drafts = drafts_of("small", texts, small.score(prompt, texts), None, "computed")
    assert derived_pick(cands, drafts).chosen.text == "$49.5 million"  # type: ignore[union-attr]
    assert derived_pick(cands, drafts, shipped).chosen.text == q.gold[0]  # type: ignore[union-attr]


def test_a_kept_rule_or_a_file_of_other_features_is_read_as_such(tmp_path: Path) -> None:
    path = tmp_path / "derived_selector.json"
    with pytest.raises(FittedFileMissing, match=r"derived_selector\.json is missing"):
        load_derived_selector(path)  # a missing fit is an error, never a silent fallback
    rule = {"name": "derived-selector", "kind": "rule", "weights": {}, "threshold": -1e9,
            "fitted": {"chosen": "rule"}}  # fmt: skip
    path.write_text(json.dumps(rule), encoding="utf-8")
    assert load_derived_selector(path) is None  # the fit kept the rule
    path.write_text(json.dumps({**rule, "weights": {"bm25": 1.0}}), encoding="utf-8")
    with pytest.raises(ValueError, match=r"unknown features.*bm25"):
        load_derived_selector(path)


def test_the_shipped_pick_is_fitted_on_the_runs_form_and_kept_from_the_other() -> None:
    shipped = load_derived_selector()
    form = RunConfig.derived_text
    assert shipped is None or shipped.fitted["form"] == form  # refit after changing the default
    other = next(f for f in FORMS if f != form)
    assert derived_selector(form) == shipped and derived_selector(other) is None
