"""A backend that replays a recorded run: its generations by seed, its scores by question.

A rescore (`factqa bench rescore`) runs the same stages as a run, with this backend in place of
every model: each call is answered from the record, and a call the record lacks raises
`Unrecorded` (and is listed in `misses`), so no model is ever loaded or asked. A generation is
found by its seed (the seed is derived from the question id and the sample index: unique in a
run; where two questions share one, by the question the prompt asks); a scoring call by the
question and part (a check mode or a pool's role) that `asked` reads from its prompt, each
text by its `key`. A recorded call's cost is charged once per question and part, on its first
call, so a stage's cost sums to what the run recorded. Given a `model` (`bench rescore
--score-missing`), a scoring call the record lacks is asked of that real model instead (loaded on
the first such call and listed in `scored`), so a rule that changes which texts a pool holds can
be rescored without a whole run; the rescored record then holds those scores.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from experiment.base.errors import CannotScore, ModelError
from experiment.base.types import Generation
from experiment.generate.models.base import Backend, CandidateScores, Messages, SamplingParams
from experiment.generate.models.cost import ModelShape

Asked = Callable[[Messages], tuple[list[str], str]]  # a prompt's question ids, and its part


class Unrecorded(ModelError):
    """The record holds no output for this call."""


@dataclass(frozen=True)
class RecordedScores:
    """One question's recorded scores of one part: each text's log-probability and tokens by
    its key, and what its calls cost together (or the error that failed them)."""

    logprobs: dict[str, float]
    tokens: dict[str, int] = field(default_factory=dict)
    prompt_tokens: int = 0
    seconds: float = 0.0
    evaluated_tokens: int | None = None
    flops: float | None = None
    error: str = ""


def _identity(text: str) -> str:
    return text


class ReplayBackend(Backend):
    """Serves `generations` (seed -> (question id, generation) pairs) and `scores` ((question
    id, part) -> recorded scores); raises `Unrecorded` on anything else."""

    def __init__(
        self,
        name: str,
        fingerprint: str,
        shape: ModelShape | None = None,
        generations: Mapping[int, Sequence[tuple[str, Generation]]] | None = None,
        scores: Mapping[tuple[str, str], RecordedScores] | None = None,
        asked: Asked | None = None,
        key: Callable[[str], str] = _identity,
        model: Callable[[], Backend] | None = None,
    ) -> None:
        self.name = name
        self.fingerprint = fingerprint
        self.setup = {"replay": True}  # never the cache key of a real model's generation
        self.shape = shape
        self.generations = generations or {}
        self.scores = scores or {}
        self.asked = asked
        self.key = key
        self.misses: list[str] = []
        self.model = model
        self._real: Backend | None = None
        self.scored: list[str] = []  # calls the record lacked that the real model scored
        self._charged: set[tuple[str, str]] = set()

    def _miss(self, what: str) -> Unrecorded:
        self.misses.append(what)
        return Unrecorded(f"{self.name}: the record holds no {what}")

    def _questions(self, messages: Messages) -> tuple[list[str], str]:
        return self.asked(messages) if self.asked is not None else ([], "")

    def generate(
        self, messages: Messages, params: SamplingParams, seeds: Sequence[int]
    ) -> list[Generation]:
        out = []
        for seed in seeds:
            found = list(self.generations.get(seed, ()))
            if len(found) > 1:
                qids = set(self._questions(messages)[0])
                found = [f for f in found if f[0] in qids]
            if not found:
                raise self._miss(f"generation of seed {seed}")
            out.append(found[0][1])
        return out

    def score(self, messages: Messages, candidates: Sequence[str]) -> CandidateScores:
        if not self.scores:
            raise CannotScore(f"{self.name}: the record holds no scores of this kind")
        qids, part = self._questions(messages)
        keys = [self.key(c) for c in candidates]
        failed = ""
        for qid in qids:
            rec = self.scores.get((qid, part))
            if rec is None:
                continue
            if rec.error:
                failed = rec.error
                continue
            if all(k in rec.logprobs for k in keys):
                return self._served(qid, part, rec, keys)
        if failed:
            raise ModelError(failed)  # the recorded call failed: so does its replay
        what = f"{part} scores of {len(candidates)} texts for {qids or 'this prompt'}"
        if self.model is None:
            raise self._miss(what)
        if self._real is None:
            self._real = self.model()
        self.scored.append(what)
        return self._real.score(messages, candidates)

    def _served(
        self, qid: str, part: str, rec: RecordedScores, keys: Sequence[str]
    ) -> CandidateScores:
        first = (qid, part) not in self._charged
        self._charged.add((qid, part))
        return CandidateScores(
            tuple(rec.logprobs[k] for k in keys),
            tuple(rec.tokens.get(k, 0) for k in keys),
            rec.prompt_tokens if first else 0,
            rec.seconds if first else 0.0,
            rec.evaluated_tokens if first else 0,
            rec.flops if first else 0.0,
        )
