"""The large model as a checker: it scores the small model's confirmed candidates instead of
writing its own answer (`Backend.score`: log-probabilities of given answers, no sampling).

A candidate's text is the form the small model wrote most often for its value. Two ways
(`MODES`), each judging the candidates beside "unknown", the reply the prompt asks for when the
article does not give the answer:

- `whole`: the large@1 prompt (the whole article), one call with every candidate. The pick is
  the most probable; "unknown" most probable abstains. It shares large@1's prefix cache, so it
  saves decoding, not reading.
- `evidence`: the question and, for each candidate, only its evidence (`passage`): the
  confirming sentence with its neighbours, or for a table cell the table's caption, header rows
  and the cell's row. Candidates with the same passage are scored in one call. A candidate's
  margin is its log-probability less "unknown"'s on its own passage; the pick is the largest
  margin, and none above `EVIDENCE_MARGIN` abstains. This is where checking is cheaper than
  finding.

A question with no confirmed candidate is not checked (no call): both ways abstain on it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from experiment.base.types import Article, Question, Span, known_sum
from experiment.evaluate.answer import Answer
from experiment.evaluate.context import cell_at
from experiment.evaluate.evidence import index
from experiment.evaluate.features import ConfirmedAnswer
from experiment.generate.models.base import CandidateScores, Messages
from experiment.generate.prompts import messages_for

WHOLE, EVIDENCE = "whole", "evidence"
MODES = (WHOLE, EVIDENCE)
UNKNOWN = "unknown"  # the prompt's reply when the article does not give the answer
# The margin over "unknown" (nats) the evidence check's pick must pass, fitted on the fitting sets
# only: the logistic threshold that maximises their mean question accuracy, 0.51 (`python
# `factqa bench fit feature-sets` PATH/TO/dev-v1.1.json PATH/TO/dev-v2.0.json --tatqa
# PATH/TO/tatqa_dataset_dev.json --large-evidence` prints it; docs/RESULTS.md, "feature-sets").
# The whole-prompt check keeps 0.
EVIDENCE_MARGIN = 0.04
# The evidence check as a selector feature (small-selected-checked@k): `evidence_score`
LARGE_EVIDENCE = "large_evidence"


@dataclass(frozen=True)
class Probe:
    """One scoring call: a prompt and the texts scored after it ("unknown" last), and which
    candidates (their indices in the question's candidate list) the texts before it are."""

    messages: Messages
    texts: tuple[str, ...]
    members: tuple[int, ...]


@dataclass(frozen=True)
class Check:
    """One question checked one way: each candidate's margin over "unknown", the pick (an index
    into the candidates; None: abstained) and what the calls cost together."""

    mode: str
    texts: tuple[str, ...]
    margins: tuple[float, ...]
    pick: int | None
    prompt_tokens: int = 0
    seconds: float = 0.0
    evaluated_tokens: int | None = 0
    flops: float | None = 0.0
    calls: int = 0
    error: str = ""  # why the model could not score ("" when it did)

    @property
    def confidence(self) -> float:
        """How sure the check is of its pick: the logistic of the pick's margin (0.5 on a tie
        with "unknown"); of abstaining, the same for the best candidate's margin."""
        if not self.margins:
            return 0.0
        return evidence_score(max(self.margins) if self.pick is None else self.margins[self.pick])


def evidence_score(margin: float) -> float:
    """A margin over "unknown" as a probability-like score: its logistic (0 for a candidate that
    was not scored, margin -inf). The selector's `large_evidence` feature."""
    if margin == -math.inf:
        return 0.0
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, margin))))


def candidate_text(small: Sequence[Answer], candidate: ConfirmedAnswer) -> str:
    """The form the small model wrote most often for this candidate (the earliest on a tie)."""
    written = [small[i].attempt.raw_text.strip() for i in candidate.samples]
    counts = Counter(written)
    return max(written, key=lambda t: (counts[t], -written.index(t)))


def _line(text: str, at: int, span: Span | None = None, mask: str = "") -> str:
    """The line of `text` at `at`, with `span` (where it lies in it) written as `mask`."""
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    return _part(text, start, end if end >= 0 else len(text), span, mask)


def _part(text: str, start: int, end: int, span: Span | None, mask: str) -> str:
    """text[start:end], with `span` written as `mask` where a mask is given and it lies inside."""
    if not mask or span is None or not start <= span.start <= span.end <= end:
        return text[start:end]
    return text[start : span.start] + mask + text[span.end : end]


def passage(article: Article, span: Span, around: int = 1, mask: str = "") -> str:
    """The evidence read for a candidate stated at `span`: for a table cell the table's caption,
    header rows and the cell's row (a Markdown table still), else the sentence with `around`
    sentences either side of it (the checker's: one); with `mask`, the span itself (by its
    position, not every equal text) written as `mask`."""
    text = article.text
    found = cell_at(text, span.start, span.end)
    if found is not None:
        table, cell = found
        heads = [_line(text, row[0].start) for row in table.rows[: table.header_rows]]
        width = max(len(row) for row in table.rows)
        lines = [*heads, "|" + " --- |" * width] if heads else []
        caption = [text[table.caption.start : table.caption.end]] if table.caption else []
        return "\n".join([*caption, *lines, _line(text, cell.start, span, mask)])
    sentences = index(text).sentences
    if not sentences:
        return _part(text, 0, len(text), span, mask)
    at = index(text).sentence_at(span.start)
    first = sentences[max(0, at - around)]
    last = sentences[min(len(sentences) - 1, at + around)]
    return _part(text, first.start, last.end, span, mask)


def probes(
    mode: str,
    question: Question,
    article: Article,
    candidates: Sequence[ConfirmedAnswer],
    small: Sequence[Answer],
    whole: Messages,
    prompt: str,
) -> list[Probe]:
    """The calls that check `candidates` one way (`whole`: the large@1 prompt, read only by the
    whole-prompt check)."""
    texts = [candidate_text(small, c) for c in candidates]
    if not candidates:
        return []
    if mode == WHOLE:
        return [Probe(whole, (*texts, UNKNOWN), tuple(range(len(candidates))))]
    grouped: dict[str, list[int]] = {}
    for i, c in enumerate(candidates):
        grouped.setdefault(passage(article, c.span), []).append(i)
    return [
        Probe(
            messages_for(replace(article, text=shown), question, prompt),
            (*(texts[i] for i in members), UNKNOWN),
            tuple(members),
        )
        for shown, members in grouped.items()
    ]


def decide(
    mode: str,
    candidates: Sequence[ConfirmedAnswer],
    small: Sequence[Answer],
    calls: Sequence[Probe],
    scores: Sequence[CandidateScores],
    threshold: float | None = None,
) -> Check:
    """The check from each call's scores: margins over "unknown", the pick (the largest margin
    if it passes `threshold`, by default the mode's), the summed cost."""
    if threshold is None:
        threshold = EVIDENCE_MARGIN if mode == EVIDENCE else 0.0
    margins = [-math.inf] * len(candidates)
    for probe, got in zip(calls, scores, strict=True):
        unknown = got.logprobs[-1]
        for member, logprob in zip(probe.members, got.logprobs, strict=False):
            margins[member] = max(margins[member], logprob - unknown)
    best = max(range(len(margins)), key=lambda i: (margins[i], -i), default=None)
    pick = best if best is not None and margins[best] > threshold else None
    return Check(
        mode,
        tuple(candidate_text(small, c) for c in candidates),
        tuple(margins),
        pick,
        sum(s.prompt_tokens for s in scores),
        sum(s.seconds for s in scores),
        known_sum([s.evaluated_tokens for s in scores]),
        known_sum([s.flops for s in scores]),
        len(scores),
    )


def failed_check(mode: str, candidates: Sequence[ConfirmedAnswer], error: str) -> Check:
    return Check(mode, (), tuple(-math.inf for _ in candidates), None, error=error)
