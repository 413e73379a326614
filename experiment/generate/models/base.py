"""The one interface every model sits behind: k completions of one chat prompt, one seed each."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from experiment.base.errors import CannotScore
from experiment.base.types import Generation
from experiment.generate.models.cost import ModelShape

Messages = list[dict[str, str]]


@dataclass(frozen=True)
class SamplingParams:
    temperature: float = 0.7
    top_p: float = 0.95
    top_k: int = 40
    max_tokens: int = 32
    stop: tuple[str, ...] = ("\n",)

    def key(self) -> dict[str, object]:
        return {
            "temperature": self.temperature,
            "top_p": self.top_p,
            "top_k": self.top_k,
            "max_tokens": self.max_tokens,
            "stop": list(self.stop),
        }


GREEDY = SamplingParams(temperature=0.0, top_p=1.0, top_k=1)


@dataclass(frozen=True)
class CandidateScores:
    """What `Backend.score` returns: each candidate's log-probability as the model's whole
    answer (its tokens, then the end of turn) after the prompt, its token count, and what the
    call cost (`evaluated_tokens` and `flops` as on `Generation`; None where unknown)."""

    logprobs: tuple[float, ...]
    tokens: tuple[int, ...]
    prompt_tokens: int
    seconds: float
    evaluated_tokens: int | None = None
    flops: float | None = None


class Backend:
    """A model: `generate` k completions of one chat prompt, one seed each.

    A backend sets `name` and `fingerprint` (its weights, for the generation cache key) and
    implements `generate`. Everything else it can do is declared here with a default, so the
    sampler never probes for it:
    - `setup`: what else can change a generation (the backend, context size, speculative mode,
      the inference library's version); part of the cache key;
    - `batch_dependent`: a sample depends on the batch it was drawn in, so adaptive rounds put
      their bounds in the cache key;
    - `parallel`: how many questions may be sent at once (a server's concurrency);
    - `prompt_limit` and `count_tokens`: the prompt tokens that fit beside k answers (None: the
      backend cannot say) and the tokens of a text, so a long article is read in windows;
    - `counters`: the counts the backend keeps (server requests and retries, drafted and
      accepted tokens), recorded in the manifest;
    - `shape`: the model's shape for FLOPs (`cost.ModelShape`), where its weights are read here;
    - `score`: the log-probability of given answers after a prompt, with no sampling (the large
      model as a checker, `experiment.evaluate.large_check`); a backend that cannot says so;
    - `on_sample`: set by the runner, called after each sample that a backend finishes on its
      own (one after another, or a server's request), so the progress moves within a question;
      a backend that decodes its k samples together finishes them at once and never calls it.
    """

    name: str
    fingerprint: str
    setup: dict[str, object] | None = None
    batch_dependent: bool = False
    parallel: int = 1
    shape: ModelShape | None = None
    on_sample: Callable[[], None] | None = None

    def generate(
        self, messages: Messages, params: SamplingParams, seeds: Sequence[int]
    ) -> list[Generation]:
        """One completion per seed, in order."""
        raise NotImplementedError

    def score(self, messages: Messages, candidates: Sequence[str]) -> CandidateScores:
        """Each candidate's log-probability as the whole answer to `messages`, in order."""
        raise CannotScore(
            f"{self.name} cannot score candidates: only the in-process llama backends and "
            "servers that return prompt log-probabilities can check answers"
        )

    def count_tokens(self, text: str) -> int:
        """Only asked of a backend that has a `prompt_limit`."""
        raise NotImplementedError(f"{self.name} does not count tokens")

    def prompt_limit(self, k: int, max_tokens: int) -> int | None:
        return None

    def counters(self) -> dict[str, int]:
        return {}
