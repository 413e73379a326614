"""One answer confirmed against one article: read the asked figure or date, then verify it.

The step every caller shares (a run's samples, `factqa verify`, `factqa ask`): the answer's best
candidate of the asked kind (`experiment.values.extract`) and the article's verdict on it
(`experiment.verify.match`). A reason is always given when nothing is confirmed.
"""

from __future__ import annotations

from dataclasses import dataclass

from experiment.base.types import Span
from experiment.values.extract import Candidate, Extraction, extract
from experiment.verify.match import Verdict, verify


@dataclass(frozen=True)
class Confirmation:
    """What was read from an answer and the article's verdict on it."""

    extraction: Extraction
    verdict: Verdict | None  # None when no value could be read from the answer

    @property
    def best(self) -> Candidate | None:
        return self.extraction.best

    @property
    def confirmed(self) -> bool:
        return self.verdict is not None and self.verdict.confirmed

    @property
    def span(self) -> Span | None:
        return self.verdict.span if self.verdict else None

    @property
    def spans(self) -> tuple[Span, ...]:
        return self.verdict.spans if self.verdict else ()

    @property
    def reason(self) -> str:
        """Why nothing was read, or why the value was not confirmed; "" when confirmed."""
        return self.extraction.reason or (self.verdict.reason if self.verdict else "")


def confirm_text(answer: str, article: str, question: str, kind: str) -> Confirmation:
    """The value of `kind` that `answer` gives for `question`, and whether `article` confirms it."""
    extraction = extract(answer, question, kind)
    best = extraction.best
    if best is None:
        return Confirmation(extraction, None)
    return Confirmation(extraction, verify(best.value, article, best.text))
