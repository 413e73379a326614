"""Confirm an answer's value against an article: every span whose value supports it.

Locate, then decide by value. Candidate spans are the article's mentions (read once per article and
cached), so token boundaries hold by construction: "3,200" is never found inside "13,200". A table's
figure cell is one mention, the cell, read also in the table's scale and unit
(`experiment.values.tables`): "142.9" under "$ in millions" confirms "$142.9 million". When no
mention supports the answer, rapidfuzz aligns the answer text with the article to find a near-miss
spelling the scanner may have split differently; that region is scanned and, again, only its value
can confirm. Fuzzy similarity never confirms anything on its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from rapidfuzz import fuzz

from experiment.base.types import Span
from experiment.values.canonical import Quantity, Value, supports
from experiment.values.normalize import Mention, scan
from experiment.values.tables import article_mentions
from experiment.verify.injection import in_instruction, instruction_ranges
from experiment.verify.near_miss import why_not

FUZZY_MIN_SCORE = 85.0


@dataclass(frozen=True)
class Verdict:
    confirmed: bool
    spans: tuple[Span, ...]
    reason: str

    @property
    def span(self) -> Span | None:
        return self.spans[0] if self.spans else None


def _supporting(mentions: tuple[Mention, ...], value: Value, offset: int = 0) -> list[Span]:
    return [
        Span(m.start + offset, m.end + offset, m.text)
        for m in mentions
        if any(supports(v, value) for v in m.values)
    ]


def _guarded(spans: list[Span], article: str) -> list[Span]:
    if not spans or not instruction_ranges(article):
        return spans
    return [s for s in spans if not in_instruction(article, s.start, s.end)]


def _read_already(span: Span, mentions: tuple[Mention, ...]) -> bool:
    """Whether the article already read a figure in `span`'s text (or refused it), in its
    context: a region read out of context must not overrule it ("10^6" of "2.5 × 10^6", the
    "Rs. 1" of "more than Rs. 1"). A date mention may still be read more finely ("1968" of "the
    winter of 1968–69"). Linear, as the alignment that found the region is."""
    return any(
        m.start < span.end
        and span.start < m.end
        and (not m.values or any(isinstance(v, Quantity) for v in m.values))
        for m in mentions
    )


def _find(value: Value, article: str, answer_text: str) -> list[Span]:
    mentions = article_mentions(article)
    spans = _supporting(mentions, value)
    if spans or len(answer_text) < 4:
        return spans
    hit = fuzz.partial_ratio_alignment(answer_text, article, score_cutoff=FUZZY_MIN_SCORE)
    if hit is None:
        return []
    start = max(0, article.rfind(" ", 0, max(0, hit.dest_start - 1)) + 1)
    end = article.find(" ", hit.dest_end + 1)
    end = len(article) if end < 0 else end
    found = _supporting(scan(article[start:end]), value, start)
    return [s for s in found if not _read_already(s, mentions)]


def verify(value: Value | None, article: str, answer_text: str = "", guard: bool = True) -> Verdict:
    """Whether the article confirms `value`, with the evidence spans. `guard=False` also accepts
    evidence inside instructions addressed to the model (only to measure what the guard does)."""
    if value is None:
        return Verdict(False, (), "nothing to verify")
    found = _find(value, article, answer_text)
    spans = _guarded(found, article) if guard else found
    if not spans:
        if found:
            return Verdict(False, (), "value only in a sentence addressed to the model")
        return Verdict(False, (), why_not(article_mentions(article), value))
    return Verdict(True, tuple(spans), "")
