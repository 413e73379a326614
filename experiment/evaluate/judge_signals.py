"""A judge that reads the question: four scoring signals over a question's bounded pool (issue 53).

The pool's base score (`drafts`) is each candidate's log-probability as the model's whole
answer after the answering prompt. Each signal here is one more `Signal`: the calls it makes
for a question (`Probe`s; the base scores given) and the features it gives each candidate,
all "within the set" (a gap to the set's best, so questions compare):

- `forms` (`form_gap`): surface-form competition (Holtzman et al. 2021). The log-sum-exp of
  the candidate's forms (as the pool writes it, as each of its spans writes it, its bare figure),
  so one value written several ways does not split its probability. It also gives, as a
  diagnostic outside its features, `written_gap`: the score of the value as the article first
  writes it (a table cell's bare figure, not the pool's scaled text).
- `calibrated` (`calib_gap`): contextual calibration, PMI (Zhao et al. 2021). The base score
  less the candidate's score under a content-free question, so the article's most salient
  figure does not win every question.
- `channel` (`channel_gap`, `channel_mask`): the question given the evidence (UPR, Sachan et
  al. 2022; channel scoring, Min et al. 2022). log P(question | the candidate's sentence, or its
  table's caption, headers and row) per token, and the same less its score with the figure
  masked; for the base judge's top `CHANNEL_N` and any candidate that shares one of their
  passages (the rest None).
- `pairwise` (`pair_win`): PRP (Qin et al. 2023). The base judge's top two compared in both
  orders: each one's mean probability of winning (None beyond the top two).

Every call goes through `Backend.score`, so each signal's cost is the calls' FLOPs, counted
like every other scoring. `factqa bench fit judge` measures each signal alone and together on
the fitting halves (docs/RESULTS.md, "fit-judge").
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from experiment.base.types import Article, Question
from experiment.evaluate.large_check import UNKNOWN, Probe, passage
from experiment.evaluate.pool import PoolCandidate
from experiment.generate.models.base import CandidateScores, Messages
from experiment.values.canonical import Quantity

CONTENT_FREE = "N/A"  # the calibration's content-free question (Zhao et al. 2021)
CHANNEL_SYSTEM = "You write the question that a passage answers. Reply with the question only."
MASK = "___"
CHANNEL_N = 5  # the channel scores the base judge's top five
PAIR_SYSTEM_ASK = "Two answers were proposed:\nA: {a}\nB: {b}\nWhich answer is right? Reply A or B."
_BARE = re.compile(r"\d[\d,]*(?:\.\d+)?")

Features = list[dict[str, float | None]]
Base = Mapping[str, float]  # the base scores: candidate text -> log-probability


@dataclass(frozen=True)
class Judging:
    """What a signal reads of one question: the answering prompt, the question, its article,
    its candidates, their order by the base judge (best first) and the base scores."""

    messages: Messages
    q: Question
    article: Article
    cands: Sequence[PoolCandidate]
    order: Sequence[int]
    base: Base


@dataclass(frozen=True)
class Signal:
    """One judge signal (module docstring): its features, its calls for a question, and each
    candidate's features from those calls' scores."""

    name: str
    features: tuple[str, ...]
    probes: Callable[[Judging], list[Probe]]
    decide: Callable[[Judging, Sequence[Probe], Sequence[CandidateScores]], Features]


def _gap(values: Sequence[float | None]) -> list[float | None]:
    """Each value less the best of them (None stays None)."""
    best = max((v for v in values if v is not None), default=0.0)
    return [None if v is None else v - best for v in values]


def _lse(values: Sequence[float]) -> float:
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values))


def _scored(probes: Sequence[Probe], scores: Sequence[CandidateScores]) -> dict[str, float]:
    return {
        t: lp
        for p, s in zip(probes, scores, strict=True)
        for t, lp in zip(p.texts, s.logprobs, strict=True)
    }


# --- forms -------------------------------------------------------------------------------------


def bare(text: str) -> str:
    """The figure of `text` alone ("$142.9 million" -> "142.9"); "" where it has no single one."""
    found = _BARE.findall(text)
    return found[0] if len(found) == 1 and found[0] != text else ""


def forms_of(c: PoolCandidate, article: Article) -> tuple[str, ...]:
    """A candidate's surface forms: as the pool writes it, as each of its spans writes it, and
    a figure's bare number (not a date's: "1973" is another date than "October 1973")."""
    written = (article.text[s.start : s.end].strip() for s in c.spans)
    number = bare(c.text) if isinstance(c.value, Quantity) else ""
    seen = dict.fromkeys([c.text, *written, number])
    return tuple(t for t in seen if t and t != UNKNOWN and "\n" not in t and len(t) <= 60)


def own_forms(cands: Sequence[PoolCandidate], article: Article) -> list[tuple[str, ...]]:
    """Each candidate's forms that are its alone: a form that is another candidate's text, or
    a form of two candidates ("123" of "-123 million" and "123 million"), is neither's."""
    forms = [forms_of(c, article) for c in cands]
    counts = Counter(t for f in forms for t in set(f))
    texts = {c.text for c in cands}
    return [
        tuple(t for t in f if t == c.text or (counts[t] == 1 and t not in texts))
        for c, f in zip(cands, forms, strict=True)
    ]


def _forms_probes(j: Judging) -> list[Probe]:
    extra: dict[str, int] = {}
    for i, forms in enumerate(own_forms(j.cands, j.article)):
        for t in forms:
            if t not in j.base:
                extra.setdefault(t, i)
    return [Probe(j.messages, tuple(extra), tuple(extra.values()))] if extra else []


def _forms_decide(
    j: Judging, probes: Sequence[Probe], scores: Sequence[CandidateScores]
) -> Features:
    got = {**j.base, **_scored(probes, scores)}
    values: list[float | None] = []
    written: list[float | None] = []
    for c, forms in zip(j.cands, own_forms(j.cands, j.article), strict=True):
        lps = [got[t] for t in forms if t in got]
        values.append(_lse(lps) if c.text in got and lps else None)
        first = j.article.text[c.spans[0].start : c.spans[0].end].strip() if c.spans else c.text
        written.append(got.get(first, got.get(c.text)) if c.text in got else None)
    return [
        {"form_gap": g, "written_gap": w} for g, w in zip(_gap(values), _gap(written), strict=True)
    ]


# --- calibrated ----------------------------------------------------------------------------------


def content_free(messages: Messages, q: Question) -> Messages:
    """The answering prompt with the question replaced by a content-free one (the article, as
    the prefix, is read once for both)."""
    asked = f"Question: {q.text}\n"
    if asked not in messages[-1]["content"]:
        raise ValueError("the answering prompt does not ask the question as `messages_for` does")
    last = messages[-1]["content"].replace(asked, f"Question: {CONTENT_FREE}\n")
    return [*messages[:-1], {**messages[-1], "content": last}]


def _calib_probes(j: Judging) -> list[Probe]:
    texts = tuple(dict.fromkeys(c.text for c in j.cands if c.text in j.base))
    free = content_free(j.messages, j.q)
    return [Probe(free, texts, tuple(range(len(texts))))] if texts else []


def _calib_decide(
    j: Judging, probes: Sequence[Probe], scores: Sequence[CandidateScores]
) -> Features:
    free = _scored(probes, scores)
    values = [
        j.base[c.text] - free[c.text] if c.text in j.base and c.text in free else None
        for c in j.cands
    ]
    return [{"calib_gap": g} for g in _gap(values)]


# --- channel -------------------------------------------------------------------------------------


def evidence_of(c: PoolCandidate, article: Article) -> tuple[str, str]:
    """A candidate's short evidence (its sentence, or its table's caption, headers and row) and
    the same with its own mention of the figure masked (by position: an equal figure elsewhere
    in the passage stays)."""
    return passage(article, c.span, around=0), passage(article, c.span, around=0, mask=MASK)


def _channel_messages(evidence: str) -> Messages:
    return [
        {"role": "system", "content": CHANNEL_SYSTEM},
        {"role": "user", "content": f"Passage: {evidence}"},
    ]


def _channel_probes(j: Judging) -> list[Probe]:
    seen: dict[str, int] = {}
    for i in j.order[:CHANNEL_N]:
        for text in evidence_of(j.cands[i], j.article):
            seen.setdefault(text, i)
    return [Probe(_channel_messages(t), (j.q.text,), (i,)) for t, i in seen.items()]


def _channel_decide(
    j: Judging, probes: Sequence[Probe], scores: Sequence[CandidateScores]
) -> Features:
    per_token = {
        p.messages[-1]["content"]: s.logprobs[0] / max(1, s.tokens[0])
        for p, s in zip(probes, scores, strict=True)
    }
    plain: list[float | None] = []
    masked: list[float | None] = []
    for c in j.cands:
        shown, hidden = (_channel_messages(t)[-1]["content"] for t in evidence_of(c, j.article))
        lp = per_token.get(shown)
        plain.append(lp)
        lost = per_token.get(hidden)
        masked.append(None if lp is None or lost is None else lp - lost)
    return [{"channel_gap": g, "channel_mask": m} for g, m in zip(_gap(plain), masked, strict=True)]


# --- pairwise ------------------------------------------------------------------------------------


def pair_messages(messages: Messages, a: str, b: str) -> Messages:
    """The answering prompt asking which of two answers is right (the article read once)."""
    content = messages[-1]["content"]
    head = content[: content.rfind("\n")] if "\n" in content else content
    ask = PAIR_SYSTEM_ASK.format(a=a, b=b)
    return [*messages[:-1], {**messages[-1], "content": f"{head}\n{ask}"}]


def _pair_probes(j: Judging) -> list[Probe]:
    if len(j.order) < 2:
        return []
    first, second = j.order[0], j.order[1]
    a, b = j.cands[first].text, j.cands[second].text
    return [
        Probe(pair_messages(j.messages, a, b), ("A", "B"), (first, second)),
        Probe(pair_messages(j.messages, b, a), ("A", "B"), (second, first)),
    ]


def _pair_decide(
    j: Judging, probes: Sequence[Probe], scores: Sequence[CandidateScores]
) -> Features:
    wins: dict[int, list[float]] = {}
    for p, s in zip(probes, scores, strict=True):
        first, second = s.logprobs
        p_first = 1.0 / (1.0 + math.exp(max(-50.0, min(50.0, second - first))))
        wins.setdefault(p.members[0], []).append(p_first)
        wins.setdefault(p.members[1], []).append(1.0 - p_first)
    return [
        {"pair_win": sum(wins[i]) / len(wins[i]) if i in wins else None}
        for i in range(len(j.cands))
    ]


FORMS = Signal("forms", ("form_gap",), _forms_probes, _forms_decide)
CALIBRATED = Signal("calibrated", ("calib_gap",), _calib_probes, _calib_decide)
CHANNEL = Signal("channel", ("channel_gap", "channel_mask"), _channel_probes, _channel_decide)
PAIRWISE = Signal("pairwise", ("pair_win",), _pair_probes, _pair_decide)
SIGNALS = {s.name: s for s in (FORMS, CALIBRATED, CHANNEL, PAIRWISE)}
# The calls that read the article after the answering prompt's prefix (run them together,
# so the model's prefix cache serves them); the channel reads short passages instead.
ARTICLE_SIGNALS = ("forms", "calibrated", "pairwise")
