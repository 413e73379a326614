"""When to stop sampling a question: rules that say more samples would not change the kept answer.

Samples are drawn in rounds (`rounds`, for example 4, then 3, then 3 up to k = 10); after each
round the rule looks at the question's samples so far, and only at them, and says stop or go on.
A question therefore gets the first n of the k samples it would get without stopping (same seeds,
same rounds), and the same samples always lead to the same decision.

Rules (`parse_rule`; each counts only the answers the article confirms, the votes of
small-verified@k):

- `window:W`    stop when the last W confirmed answers agree: Early-Stopping Self-Consistency
                (Li et al., ICLR 2024), which stops when every answer in a window of W samples
                is the same. Default W = 2.
- `posterior:C` stop when the probability that the leading confirmed answer stays ahead of the
                runner-up exceeds C: the Beta stopping criterion of Adaptive-Consistency
                (Aggarwal et al., EMNLP 2023). With v1 and v2 votes for the two largest
                answers, the leader's share among the two is Beta(v1 + 1, v2 + 1) under a
                uniform prior, and P(share > 1/2) = P(Binomial(v1 + v2 + 1, 1/2) <= v1),
                computed exactly. Default C = 0.9 (three unanimous votes pass, two do not).
- `selector:C`  stop when the learned selector (`experiment.evaluate.selector`) gives the answer
                it would keep a confidence of at least C. Its features include vote shares, so
                on fewer samples its confidence is that of a question with fewer votes, not a
                calibrated probability. Default C = 0.6.
- `never`       draw every round (fixed k drawn in the same rounds: the reference that an
                adaptive rule's samples are the first n of).

The defaults (and the rounds 3, 3, ..., `RunConfig.rounds`) were chosen on the fitting half of
SQuAD by `factqa bench fit stopping`: per family, the fewest samples that kept small-verified@10 and
small-selected@10 within 1 point of all ten samples there.

With `+none` (for example `window:3+none`) a sample with no confirmed answer counts as an answer
of its own ("nothing confirmed"), so a question that keeps failing to be confirmed stops too,
and small-verified@k abstains on it; without it such a question draws every round.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from experiment.base.errors import ConfigError
from experiment.base.types import Article, Question
from experiment.evaluate.answer import Answer
from experiment.evaluate.confirm import confirm_samples
from experiment.evaluate.features import candidates
from experiment.evaluate.selector import learned, pick
from experiment.evaluate.vote import clusters
from experiment.generate.sampling import Sample, SampleStop
from experiment.values.canonical import Value

DEFAULTS = {"window": 2.0, "posterior": 0.9, "selector": 0.6}  # `factqa bench fit stopping`
NONE = "+none"


@dataclass(frozen=True)
class StopRule:
    kind: str  # "window", "posterior", "selector" or "never"
    level: float = 0.0  # W for window, C for posterior and selector
    none_counts: bool = False  # "nothing confirmed" is an answer of its own

    @property
    def spec(self) -> str:
        if self.kind == "never":
            return "never"
        level = str(int(self.level)) if self.kind == "window" else f"{self.level:g}"
        return f"{self.kind}:{level}{NONE if self.none_counts else ''}"

    def should_stop(self, q: Question, article: Article, small: Sequence[Answer]) -> bool:
        """Whether the samples so far (one question's, in drawing order) are enough."""
        if self.kind == "never" or not small:
            return False
        if self.kind == "selector":
            return _selector_sure(q, article, small, self.level, self.none_counts)
        outcomes = _outcomes(small, self.none_counts)
        if self.kind == "window":
            return window_agrees(outcomes, int(self.level))
        return leader_posterior(outcomes) >= self.level


def parse_rule(text: str) -> StopRule:
    """A rule from its spec: `window`, `window:4`, `posterior:0.9`, `selector+none`, `never`."""
    raw = text.strip().lower()
    none_counts = raw.endswith(NONE)
    body = raw.removesuffix(NONE)
    kind, _, level = body.partition(":")
    if kind == "never" and not level and not none_counts:
        return StopRule("never")
    if kind not in DEFAULTS:
        raise ConfigError(
            f"unknown stopping rule '{text}': use window[:W], posterior[:C], selector[:C] or "
            "never, optionally followed by +none (for example window:3 or posterior:0.95+none)"
        )
    try:
        value = float(level) if level else DEFAULTS[kind]
    except ValueError:
        raise ConfigError(f"stopping rule '{text}': '{level}' is not a number") from None
    if kind == "window" and (value != int(value) or value < 1):
        raise ConfigError(f"stopping rule '{text}': the window must be a whole number >= 1")
    if kind != "window" and not 0 < value < 1:
        raise ConfigError(f"stopping rule '{text}': the level must lie between 0 and 1")
    return StopRule(kind, value, none_counts)


def parse_rounds(text: str, k: int) -> tuple[int, ...]:
    """Round sizes from `4,3` (the last size repeats) cut to sum to k: `4,3` and k=10 give 4,3,3."""
    try:
        sizes = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise ConfigError(f"rounds '{text}': give whole numbers, for example 3,3") from None
    if not sizes or any(s < 1 for s in sizes):
        raise ConfigError(f"rounds '{text}': every round needs at least one sample")
    out: list[int] = []
    while sum(out) < k:
        out.append(min(sizes[min(len(out), len(sizes) - 1)], k - sum(out)))
    return tuple(out)


def _outcomes(small: Sequence[Answer], none_counts: bool) -> list[Value | None]:
    """The votes in drawing order: confirmed values, and None for "nothing confirmed" when it
    counts."""
    out: list[Value | None] = []
    for s in small:
        if s.attempt.confirmed and s.value is not None:
            out.append(s.value)
        elif none_counts:
            out.append(None)
    return out


def _sizes(outcomes: Sequence[Value | None]) -> list[int]:
    """Votes per distinct answer, largest first ("nothing confirmed" is one answer)."""
    values = [v for v in outcomes if v is not None]
    sizes = [len(c) for c in clusters(values, list(range(len(values))))]
    nothing = len(outcomes) - len(values)
    return sorted([*sizes, *([nothing] if nothing else [])], reverse=True)


def window_agrees(outcomes: Sequence[Value | None], w: int) -> bool:
    """The last w votes are one answer."""
    if len(outcomes) < w:
        return False
    return len(_sizes(outcomes[-w:])) == 1


def leader_posterior(outcomes: Sequence[Value | None]) -> float:
    """P(the leading answer's share of the top two exceeds 1/2) under a uniform Beta prior."""
    sizes = _sizes(outcomes)
    if not sizes:
        return 0.0
    v1, v2 = sizes[0], sizes[1] if len(sizes) > 1 else 0
    n = v1 + v2 + 1
    return sum(math.comb(n, j) for j in range(v1 + 1)) / 2**n


def _selector_sure(
    q: Question, article: Article, small: Sequence[Answer], level: float, none_counts: bool
) -> bool:
    picked = pick(candidates(q, article, small), learned())
    if picked.best is None:
        # nothing confirmed yet: with +none, stop once three samples in a row say so
        return none_counts and window_agrees(_outcomes(small, True), 3)
    return picked.confidence >= level


def sample_stopper(rule: StopRule, articles: dict[str, Article], temperature: float) -> SampleStop:
    """The sampler's stop callback: a question's samples so far, confirmed against its article,
    judged by `rule` (nothing but the question's own samples and article is read)."""

    def stop(samples: list[Sample]) -> bool:
        q = samples[0].question
        article = articles[q.article_id]
        return rule.should_stop(
            q, article, confirm_samples(samples, article, "small", "", temperature)
        )

    return stop


def adaptive_facts(
    rule: str, rounds: Sequence[int] | None, k: int, drawn: Sequence[Sequence[Answer]]
) -> dict[str, object]:
    """The manifest's sampling record: the rule, the rounds (None: all k at once), mean samples,
    share stopped early."""
    counts = [len(d) for d in drawn]
    n = len(counts) or 1
    return {
        "adaptive": rule,
        "rounds": list(rounds) if rounds else [k],
        "k": k,
        "mean_samples": round(sum(counts) / n, 3),
        "stopped_early": round(sum(c < k for c in counts) / n, 4),
    }
