"""`Backend.score` against the model itself (the real tiny model): the greedy answer scores
highest among candidates that hold it, the batched and sequential backends agree, a cached
prompt prefix is not read twice, and the cost counts what was evaluated."""

from __future__ import annotations

from pathlib import Path

import pytest

from experiment.generate.models.base import GREEDY, SamplingParams
from experiment.generate.models.store import ModelFile

pytestmark = pytest.mark.model

# Two backends of one model compute a row in different batches: their log-probabilities agree
# to within this many nats per candidate (measured differences are under 0.01).
TOLERANCE = 0.05


def _file(path: Path) -> ModelFile:
    return ModelFile(name=path.stem, path=path, sha256="test")


@pytest.fixture(scope="module")
def batched(tiny_model: Path):  # type: ignore[no-untyped-def]
    from experiment.generate.models.batched import BatchedLlamaBackend

    return BatchedLlamaBackend(_file(tiny_model), n_ctx=4096, n_seq_max=4)


@pytest.fixture(scope="module")
def sequential(tiny_model: Path):  # type: ignore[no-untyped-def]
    from experiment.generate.models.llama import LlamaBackend

    return LlamaBackend(_file(tiny_model), n_ctx=4096)


def _greedy(backend, messages) -> str:  # type: ignore[no-untyped-def]
    params = SamplingParams(GREEDY.temperature, GREEDY.top_p, GREEDY.top_k, 16)
    return backend.generate(messages, params, [0])[0].text.strip()


def _rivals(greedy: str) -> list[str]:
    return [f"{greedy} million", "unknown", "1,234", "12 March 1998", f"about {greedy}"]


def test_the_greedy_answer_scores_highest(batched, sequential, prompts) -> None:  # type: ignore[no-untyped-def]
    for backend in (batched, sequential):
        for messages in prompts:
            greedy = _greedy(backend, messages)
            assert greedy
            texts = [*(r for r in _rivals(greedy) if r != greedy), greedy]
            got = backend.score(messages, texts)
            assert len(got.logprobs) == len(texts) and all(lp < 0 for lp in got.logprobs)
            best = max(range(len(texts)), key=lambda i: got.logprobs[i])
            assert texts[best] == greedy, (texts, got.logprobs)


def test_batched_and_sequential_scores_agree(batched, sequential, prompts) -> None:  # type: ignore[no-untyped-def]
    texts = [
        "$4.2 million",
        "unknown",
        "12",
        "March 2024",
        "a long answer that the model would not give",
    ]
    for messages in prompts:
        one = batched.score(messages, texts)
        two = sequential.score(messages, texts)
        assert one.tokens == two.tokens
        for a, b in zip(one.logprobs, two.logprobs, strict=True):
            assert abs(a - b) < TOLERANCE, (one.logprobs, two.logprobs)


def test_more_candidates_than_lanes_score_the_same(batched, prompts) -> None:  # type: ignore[no-untyped-def]
    texts = [str(n) for n in range(1, 9)]  # 8 candidates, 3 lanes: three batches
    together = batched.score(prompts[0], texts)
    alone = [batched.score(prompts[0], [t]).logprobs[0] for t in texts]
    for a, b in zip(together.logprobs, alone, strict=True):
        assert abs(a - b) < TOLERANCE


def test_a_cached_prompt_is_not_read_again(batched, prompts) -> None:  # type: ignore[no-untyped-def]
    batched.reset()
    texts = ["42", "unknown"]
    first = batched.score(prompts[0], texts)
    # the whole prompt, then each candidate's tokens but its last (the end of turn is scored
    # from the logits before it, never decoded)
    assert first.evaluated_tokens == first.prompt_tokens + sum(n - 1 for n in first.tokens)
    again = batched.score(prompts[0], texts)
    assert again.evaluated_tokens == 1 + sum(n - 1 for n in again.tokens)  # one token re-read
    assert again.logprobs == pytest.approx(first.logprobs, abs=TOLERANCE)
    assert first.flops is not None and again.flops is not None and again.flops < first.flops / 5
    other = batched.score(prompts[1], texts)  # another question about the same article
    assert other.evaluated_tokens is not None and other.evaluated_tokens < other.prompt_tokens / 2
