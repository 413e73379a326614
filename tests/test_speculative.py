"""Speculative decoding: the drafters, both acceptance rules, and identical greedy answers."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import chisquare

from experiment.generate.speculative import accept_greedy, accept_sampled, lookup_draft


def test_lookup_proposes_what_followed_the_last_ngram() -> None:
    prompt = [5, 6, 7, 8, 9, 10, 11, 2, 3]
    assert lookup_draft([*prompt, 6, 7], length=3) == [8, 9, 10]  # "6 7" seen before
    assert lookup_draft([*prompt, 42, 7], length=2) == [8, 9]  # falls back to one token
    assert lookup_draft([1, 2, 3, 4], length=4) == []  # nothing repeats


def test_greedy_rule_keeps_the_matching_prefix() -> None:
    assert accept_greedy([4, 5, 6], [4, 5, 9, 1]) == (2, 9)
    assert accept_greedy([4, 5, 6], [4, 5, 6, 1]) == (3, 1)  # all accepted, plus one more
    assert accept_greedy([], [7]) == (0, 7)


def test_sampled_rule_follows_the_large_models_distribution() -> None:
    """Toy vocabulary of 5 tokens, a 2-token draft from q: the first two emitted tokens must be
    distributed as p0 x p1 (independent positions in this toy), whatever q is."""
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(5), size=3)
    q = rng.dirichlet(np.ones(5) * 0.5, size=2)
    counts: Counter[tuple[int, int]] = Counter()
    trials = 40_000
    for _ in range(trials):
        draft = [int(rng.choice(5, p=q[0])), int(rng.choice(5, p=q[1]))]
        n, nxt = accept_sampled(draft, p, q, rng)
        emitted = [*draft[:n], nxt]
        if len(emitted) < 2:  # rejected at once: the next token would come from p1 afresh
            emitted.append(int(rng.choice(5, p=p[1])))
        counts[(emitted[0], emitted[1])] += 1
    observed = [counts[(a, b)] for a in range(5) for b in range(5)]
    expected = [p[0, a] * p[1, b] * trials for a in range(5) for b in range(5)]
    assert chisquare(observed, expected).pvalue > 0.001
    # and the draft distribution alone would fail the same test
    draft_only = [q[0, a] * q[1, b] * trials for a in range(5) for b in range(5)]
    assert chisquare(observed, draft_only).pvalue < 1e-6


@pytest.mark.model
def test_drafting_on_the_real_model(tiny_model: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The verify loop itself (stops, end of text, token limit, KV bookkeeping) changes nothing:
    with empty drafts the answers are plain greedy's exactly. With real drafts, llama.cpp computes
    a row of a batch not bit for bit as alone, so a near tie can flip: measured, not assumed."""
    import experiment.generate.speculative as spec
    from experiment.config import PROJECT_ROOT
    from experiment.corpus import load_articles, load_questions
    from experiment.generate.models.base import SamplingParams
    from experiment.generate.models.batched import BatchedLlamaBackend
    from experiment.generate.models.store import resolve
    from experiment.generate.prompts import messages_for
    from experiment.generate.sampling import article_order

    model = resolve(str(tiny_model))
    articles = load_articles(PROJECT_ROOT / "articles")
    questions = article_order(load_questions(PROJECT_ROOT / "questions", articles))[::15][:8]
    prompts = [messages_for(articles[q.article_id], q) for q in questions]
    greedy = SamplingParams(0.0, 1.0, 1, 8)
    plain = BatchedLlamaBackend(model, n_seq_max=1)
    want = [plain.generate(m, greedy, [0])[0] for m in prompts]

    lookup = BatchedLlamaBackend(model, n_seq_max=1, speculative="lookup")
    with monkeypatch.context() as mp:
        mp.setattr(spec, "lookup_draft", lambda history, n_max=3, length=8: [])
        got = [lookup.generate(m, greedy, [0])[0] for m in prompts]
    assert [(g.text, g.completion_tokens, g.finish_reason) for g in got] == [
        (w.text, w.completion_tokens, w.finish_reason) for w in want
    ]

    drafter = BatchedLlamaBackend(model, n_seq_max=1)
    draft = BatchedLlamaBackend(model, n_seq_max=1, speculative="draft", drafter=drafter)
    got = [draft.generate(m, greedy, [0])[0].text for m in prompts]
    # The drafter is the same model, so nearly every drafted token is accepted.
    assert draft.drafted > 0 and draft.accepted / draft.drafted > 0.8
    assert sum(g == w.text for g, w in zip(got, want, strict=True)) >= len(prompts) - 2


@pytest.mark.model
def test_run_with_speculative_lookup(tiny_model: Path, corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import json

    from typer.testing import CliRunner

    from experiment import cli

    from .conftest import run_args

    model = str(tiny_model)
    args = run_args(
        *corpus, model, model, 2, tmp_path, "t", "--limit", "2", "--speculative", "lookup"
    )
    res = CliRunner().invoke(cli.app, args)
    assert res.exit_code == 0, res.output
    large = json.loads((tmp_path / "t" / "manifest.json").read_text())["models"]["large"]
    assert large["drafted"] > 0 and 0 <= large["accepted"] <= large["drafted"]
    bad = CliRunner().invoke(cli.app, [*args, "--backend", "llama"])
    assert bad.exit_code == 2 and "needs the batched backend" in bad.output
