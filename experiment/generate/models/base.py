"""The one interface every model sits behind: k completions of one chat prompt, one seed each."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from experiment.records import Generation

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


class Backend(Protocol):
    """A model. `fingerprint` identifies its weights for the generation cache; `setup` (optional)
    names everything else that can change a generation: the backend, context size, speculative
    mode, the inference library's version. Both are part of the cache key."""

    name: str
    fingerprint: str

    def generate(
        self, messages: Messages, params: SamplingParams, seeds: Sequence[int]
    ) -> list[Generation]:
        """One completion per seed, in order."""
        ...
