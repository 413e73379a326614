"""`--limit N` is a quick look at the experiment: a spread sample, stated and computed, that
says what it took."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from experiment import cli
from experiment.base.types import Question
from experiment.config import RunConfig
from experiment.corpus import quick_sample
from experiment.runner import load_corpus


def _questions() -> list[Question]:
    out = []
    for a in range(6):
        for i in range(5):
            out.append(Question(f"a{a}-{i}", f"a{a}", f"How many {i}?", ("1",), "figure",
                                computed=a == 0))  # fmt: skip
    return out


def test_a_quick_look_spreads_over_articles_and_both_kinds() -> None:
    qs = _questions()  # the first article's questions are all computed, as the bundled file's
    took = quick_sample(qs, 6, 0)
    assert len(took) == 6 and len({q.article_id for q in took}) >= 5
    assert any(q.computed for q in took) and not all(q.computed for q in took)
    assert quick_sample(qs, 6, 0) == took  # fixed by the seed
    assert quick_sample(qs, 6, 1) != took
    assert quick_sample(qs, 0, 0) == qs and quick_sample(qs, 99, 0) == qs
    assert [q.id for q in took] == [q.id for q in qs if q in took]  # the corpus's order kept


def test_the_bundled_corpus_s_quick_look_holds_both_kinds_and_says_so(
    monkeypatch,
    fake_factory,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    _, took = load_corpus(RunConfig(limit=3))
    assert {q.computed for q in took} == {True, False}  # the first 3 were all computed
    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)
    cfg = RunConfig()
    args = ["run", "--articles", str(cfg.articles), "--questions", str(cfg.questions), "-k", "2",
            "--small", "fake-small", "--large", "fake-large", "--limit", "4",
            "--out", str(tmp_path)]  # fmt: skip
    res = CliRunner().invoke(cli.app, args)
    assert res.exit_code == 0, res.output
    assert "a quick look: 4 of " in res.output and "stated" in res.output
