"""The batched backend with the real tiny model: what it guarantees, measured where it does not.

Tested: reproducible run to run at any temperature; k greedy samples identical to one decoded
alone; greedy equal to the sequential backend's on these prompts; the prompt prefix is reused;
k above n_seq_max is refused.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from experiment.base.errors import ModelError
from experiment.generate.models.base import GREEDY, SamplingParams
from experiment.generate.models.catalog import TEST_MODEL
from experiment.generate.models.store import resolve

pytestmark = pytest.mark.model


def test_reproducible_and_matches_sequential_greedy(prompts) -> None:  # type: ignore[no-untyped-def]
    from experiment.generate.models.batched import BatchedLlamaBackend
    from experiment.generate.models.llama import LlamaBackend

    model = resolve(TEST_MODEL)
    a, b = BatchedLlamaBackend(model, n_seq_max=4), BatchedLlamaBackend(model, n_seq_max=4)
    params = SamplingParams(temperature=0.8, max_tokens=16)
    for m in prompts:
        first = [g.text for g in a.generate(m, params, [1, 2, 3, 4])]
        assert first == [g.text for g in b.generate(m, params, [1, 2, 3, 4])]
        assert len(set(first)) > 1  # four seeds, not four copies
    sequential = LlamaBackend(model)
    for m in prompts:
        alone = a.generate(m, GREEDY, [0])[0].text
        assert [g.text for g in a.generate(m, GREEDY, [0, 1, 2, 3])] == [alone] * 4
        assert alone == sequential.generate(m, GREEDY, [0])[0].text
    with pytest.raises(ModelError, match="n_seq_max"):
        a.generate(prompts[0], params, list(range(5)))


def test_prefix_of_the_article_is_reused(prompts) -> None:  # type: ignore[no-untyped-def]
    from experiment.generate.models.batched import BatchedLlamaBackend

    backend = BatchedLlamaBackend(resolve(TEST_MODEL), n_seq_max=2)
    backend.generate(prompts[0], GREEDY, [0])
    before = list(backend._cached)
    second = backend.prompt_tokens(prompts[1])
    common = next(
        i for i, (x, y) in enumerate(zip(backend._cached, second, strict=False)) if x != y
    )
    assert common > 0.8 * len(second)  # only the question differs: most of it is reused
    backend.generate(prompts[1], GREEDY, [0])
    assert backend._cached == second != before  # the cache now holds the second prompt


def test_run_with_batched_backend(tiny_model: Path, corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import json

    import pandas as pd
    from typer.testing import CliRunner

    from experiment import cli

    from .conftest import run_args

    args = run_args(*corpus, TEST_MODEL, TEST_MODEL, 3, tmp_path, "b", "--backend", "batched")
    res = CliRunner().invoke(cli.app, args)
    assert res.exit_code == 0, res.output
    attempts = pd.read_csv(tmp_path / "b" / "attempts.csv")
    assert len(attempts) == 5 * (3 + 1) and (attempts.completion_tokens > 0).all()
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    assert manifest["models"]["small"]["fingerprint"].endswith("+batched")
    assert manifest["config"]["backend"] == "batched"
