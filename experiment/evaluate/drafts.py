"""The article drafts, a model checks: a model scores the question's bounded pool (issue 39).

Every candidate of a question's bounded pool (`pool.bounded`: the article's own values of the
asked kind, top `POOL_N` by the model-free rank; merged with the small model's confirmed
samples for `small-text@k`) is scored as the model's whole answer after the prompt the model
answers from (`Backend.score`: one batched call over the article prefix it has read), beside
"unknown", the reply the prompt asks for when the article does not say. `Drafts` holds one
model's scores of one question.

A candidate's score features (`score_features`), computed within the set a method ranks:
- `score_margin`: its log-probability less "unknown"'s (a candidate under 0 loses to
  "unknown": where every candidate does, the method abstains, `unknown_wins`);
- `score_gap`: its log-probability less the set's best (0 for the most probable);
- `score_token`: its log-probability per token (the end of turn counted).

`small-text@0` ranks the bounded text pool by a logistic regression of "right" on the
evidence features and the small model's score features (`text_selector.json`, fitted on the
fitting sets only by `factqa bench fit text-scores`, which says which score features it kept);
`small-text@k` ranks the pool merged with its k samples by the same weights plus the shipped
selector's terms for the sample features (votes, support, share, rivals, logprob, not_stated:
`selector.json`, fitted on the same fitting sets), so nothing is fitted twice and no sample
weight is fitted on a reported set. `large-text@1` takes the large model's most probable
candidate, abstaining where "unknown" is more probable (as `large-checks@k` does).

**Computed questions** (issue 40): a question a run routes to the calculation prompt
(`proposal_pool.is_computed`) has the kept proposals scored instead (`question_pools`: the
proposals, and the proposals merged with the small model's calculations), so its `Drafts` are
of the `COMPUTED` pool and the stated methods abstain on it, paying nothing (and the computed
ones on a question of the `STATED` pool). `small-text-derived@k` picks by `derived_pick`: the
selector `factqa bench fit derived` fitted on the fitting halves of TAT-QA and DROP over
`DERIVED_FEATURES` (`derived_selector.json`), or, where that fit kept it, none is shipped or
it was fitted on the other scored-text form, a hand-set rule; `large-text-derived@1` takes
the large model's most probable proposal (`most_probable`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

from experiment.base.types import Article, Question
from experiment.evaluate.answer import Answer
from experiment.evaluate.features import FEATURES
from experiment.evaluate.fitted import read_fitted
from experiment.evaluate.large_check import UNKNOWN
from experiment.evaluate.pool import POOL_N, SAMPLE_FEATURES, PoolCandidate, bounded, pool, ranked
from experiment.evaluate.proposal_pool import (
    RESULT,
    ProposedCandidate,
    is_computed,
    proposal_pool,
)
from experiment.evaluate.scoring import POOL, label, score_row
from experiment.evaluate.selector import SelectorModel, learned
from experiment.generate.models.base import CandidateScores
from experiment.generate.models.cost import ModelShape
from experiment.generate.prompts import FIGURE

PACKAGED = Path(__file__).with_name("text_selector.json")
DERIVED_PACKAGED = Path(__file__).with_name("derived_selector.json")
DERIVED_SELECTOR = "derived-selector"
SCORE_FEATURES = ("score_margin", "score_gap", "score_token")
SMALL, LARGE = "small", "large"
ROLES = (SMALL, LARGE)
STATED, COMPUTED = "stated", "computed"  # which pool a question's scores are of
# small-text-derived@k's features (a later fit's; the hand-set rule reads the first and `votes`)
DERIVED_FEATURES = (*SCORE_FEATURES, "votes", "share", "proposal_score", "proposal_rank")
NEAR_TIE = math.log(2)  # nats: within a factor of two, the votes and the rank decide
C = TypeVar("C", bound=PoolCandidate)


@dataclass(frozen=True)
class Drafts:
    """One model's scores of one question's candidate texts ("unknown" last), and what the
    call cost: all of it (`flops`: the prompt read after the model's cached prefix, and the
    candidates), and the candidates alone (`answer_flops`: what a method pays that read the
    prompt already, its samples having read it)."""

    role: str
    texts: tuple[str, ...]
    logprobs: tuple[float, ...]
    tokens: tuple[int, ...]
    prompt_tokens: int = 0
    seconds: float = 0.0
    evaluated_tokens: int | None = 0
    flops: float | None = 0.0
    answer_tokens: int = 0
    answer_flops: float | None = 0.0
    error: str = ""  # why the model could not score ("" when it did)
    pool: str = STATED  # the pool scored: the stated values, or the computed proposals
    form: str = RESULT  # a computed pool's texts: results, or calculations (`proposal_pool`)

    @property
    def unknown(self) -> float:
        return self.logprobs[-1] if self.logprobs else -math.inf

    def logprob(self, text: str) -> float | None:
        """The score of `text` (None where it was not scored)."""
        try:
            return self.logprobs[self.texts.index(text)]
        except ValueError:
            return None

    def token_count(self, text: str) -> int:
        try:
            return self.tokens[self.texts.index(text)]
        except ValueError:
            return 0


def drafts_of(
    role: str,
    texts: Sequence[str],
    got: CandidateScores,
    shape: ModelShape | None,
    of: str = STATED,
    form: str = RESULT,
) -> Drafts:
    """`got`, one scoring call of `texts` (the pool `of`), as `Drafts`; the candidates' own cost
    from the model's `shape` (each candidate's tokens but its last, after the prompt's
    positions)."""
    positions = [got.prompt_tokens + i for n in got.tokens for i in range(max(0, n - 1))]
    answer_flops = shape.flops(positions, len(positions)) if shape is not None else None
    return Drafts(
        role,
        tuple(texts),
        got.logprobs,
        got.tokens,
        got.prompt_tokens,
        got.seconds,
        got.evaluated_tokens,
        got.flops,
        len(positions),
        answer_flops,
        pool=of,
        form=form,
    )


def failed_drafts(role: str, error: str, of: str = STATED) -> Drafts:
    return Drafts(role, (), (), (), error=error, pool=of)


def merged_bounded(cands: Sequence[PoolCandidate], n: int = POOL_N) -> list[PoolCandidate]:
    """The pool merged with the samples, bounded: the top `n` by the model-free rank, and every
    candidate a confirmed sample gave (the samples are never cut), in rank order."""
    order = ranked(cands)
    return [c for i, (c, _) in enumerate(order) if i < n or c.origin != "text"]


def pool_of(q: Question, prompt: str = FIGURE) -> str:
    """Which pool a run with the `prompt` setting scores for `q`: `COMPUTED` (its proposals)
    where it routes `q` to the calculation prompt, else `STATED`."""
    return COMPUTED if is_computed(q, prompt) else STATED


def question_pools(
    q: Question,
    article: Article,
    small: Sequence[Answer] = (),
    prompt: str = FIGURE,
    form: str = RESULT,
) -> tuple[list[PoolCandidate], list[PoolCandidate]]:
    """What the models score for a question (`pool_of`): the bounded text pool, and the pool
    merged with `small`'s confirmed samples, bounded (`merged_bounded`); for a computed one the
    kept proposals, and the proposals merged with `small`'s calculations, their texts in
    `form`."""
    if pool_of(q, prompt) == COMPUTED:
        return (
            list(proposal_pool(q, article, form=form)),
            list(proposal_pool(q, article, small, form=form)),
        )
    return bounded(pool(q, article)), merged_bounded(pool(q, article, small))


def texts_to_score(*pools: Sequence[PoolCandidate]) -> tuple[str, ...]:
    """Every distinct candidate text of `pools`, in order, then "unknown"."""
    seen = dict.fromkeys(c.text for p in pools for c in p if c.text and c.text != UNKNOWN)
    return (*seen, UNKNOWN)


def score_features(cands: Sequence[PoolCandidate], drafts: Drafts) -> list[dict[str, float | None]]:
    """Each candidate's score features within `cands` (module docstring); None where the
    candidate's text was not scored."""
    logprobs = [drafts.logprob(c.text) for c in cands]
    known = [lp for lp in logprobs if lp is not None]
    best = max(known, default=0.0)
    out: list[dict[str, float | None]] = []
    for c, lp in zip(cands, logprobs, strict=True):
        if lp is None:
            out.append(dict.fromkeys(SCORE_FEATURES))
            continue
        out.append(
            {
                "score_margin": lp - drafts.unknown,
                "score_gap": lp - best,
                "score_token": lp / max(1, drafts.token_count(c.text)),
            }
        )
    return out


def unknown_wins(cands: Sequence[PoolCandidate], drafts: Drafts) -> bool:
    """ "unknown" is more probable than every scored candidate (or nothing was scored)."""
    known = [lp for c in cands if (lp := drafts.logprob(c.text)) is not None]
    return not known or max(known) < drafts.unknown


def load_text_selector(path: Path = PACKAGED) -> SelectorModel:
    """The small-text@0 selector saved by `factqa bench fit text-scores`."""
    data = read_fitted(path)
    unknown = set(data["weights"]) - {*FEATURES, *SCORE_FEATURES}
    if unknown:
        raise ValueError(f"{path}: unknown features {sorted(unknown)}; refit it")
    return SelectorModel(**data)


@lru_cache(maxsize=1)
def text_selector() -> SelectorModel:
    """The shipped small-text@0 selector, read once."""
    return load_text_selector()


@lru_cache(maxsize=1)
def text_selector_k() -> SelectorModel:
    """small-text@k's: `text_selector` plus the shipped selector's sample-feature terms
    (module docstring)."""
    base, shipped = text_selector(), learned()
    sample = {f: w for f, w in shipped.weights.items() if f in SAMPLE_FEATURES}
    return replace(
        base,
        name="text-selector-k",
        weights={**base.weights, **sample},
        mean={**base.mean, **{f: shipped.mean[f] for f in sample if f in shipped.mean}},
        scale={**base.scale, **{f: shipped.scale[f] for f in sample if f in shipped.scale}},
        impute={**base.impute, **{f: shipped.impute[f] for f in sample if f in shipped.impute}},
    )


def load_derived_selector(path: Path = DERIVED_PACKAGED) -> SelectorModel | None:
    """small-text-derived@k's fitted pick (`factqa bench fit derived`); None where the fit kept
    the hand-set rule (a missing file is an error: `fitted.read_fitted`)."""
    data = read_fitted(path)
    unknown = set(data["weights"]) - set(DERIVED_FEATURES)
    if unknown:
        raise ValueError(f"{path}: unknown features {sorted(unknown)}; refit it")
    model = SelectorModel(**data)
    return None if model.fitted.get("chosen") == "rule" else model


@lru_cache(maxsize=2)
def derived_selector(form: str) -> SelectorModel | None:
    """The shipped small-text-derived@k pick for scored texts of `form`, read once; None (the
    hand-set rule) where it was fitted on the other form (a fit before forms: the result)."""
    model = load_derived_selector()
    return model if model is not None and model.fitted.get("form", RESULT) == form else None


@dataclass(frozen=True)
class Ranked:
    """A scored pool's pick: every candidate with its selector score, best first, and the
    chosen one (None: abstained, "unknown" won or nothing reached the threshold)."""

    ranked: tuple[tuple[PoolCandidate, float], ...]
    chosen: PoolCandidate | None
    confidence: float
    unknown_won: bool


def rank_scored(cands: Sequence[PoolCandidate], drafts: Drafts, model: SelectorModel) -> Ranked:
    """`cands` ranked by `model` over their features and score features; the best one is
    chosen unless it scores under the model's threshold or, where the model says so
    (`fitted.unknown_abstains`, the default), "unknown" wins."""
    if drafts.error:  # the scoring call failed: nothing to rank by
        return Ranked((), None, 0.0, False)
    feats = score_features(cands, drafts)
    scored = [(c, model.score({**c.features, **f})) for c, f in zip(cands, feats, strict=True)]
    order = tuple(sorted(scored, key=lambda cs: (-cs[1], cs[0].span.start, cs[0].canonical)))
    if not order:
        return Ranked((), None, 0.0, False)
    lost = unknown_wins(cands, drafts) and bool(model.fitted.get("unknown_abstains", True))
    top, score = order[0]
    chosen = None if lost or score < model.threshold else top
    return Ranked(order, chosen, score, lost)


def most_probable(cands: Sequence[PoolCandidate], drafts: Drafts) -> Ranked:
    """`cands` by the model's log-probability alone (large-text@1); "unknown" more probable
    than the best abstains. The confidence is the best's margin over "unknown" as a logistic."""
    scored = _with_logprobs(cands, drafts)
    order = tuple(sorted(scored, key=lambda cs: (-cs[1], cs[0].span.start, cs[0].canonical)))
    return _first_against_unknown(order, drafts)


def _with_logprobs(cands: Sequence[C], drafts: Drafts) -> list[tuple[C, float]]:
    """The candidates the model scored, each with its log-probability."""
    return [(c, lp) for c in cands if (lp := drafts.logprob(c.text)) is not None]


def _first_against_unknown(
    order: tuple[tuple[PoolCandidate, float], ...], drafts: Drafts
) -> Ranked:
    """The first of `order` chosen, unless "unknown" is more probable than every candidate
    (it abstains); the confidence is the first's margin over "unknown" as a logistic."""
    if not order:
        return Ranked((), None, 0.0, False)
    top, lp = order[0]
    margin = max(-50.0, min(50.0, lp - drafts.unknown))
    lost = max(x for _, x in order) < drafts.unknown
    return Ranked(order, None if lost else top, 1.0 / (1.0 + math.exp(-margin)), lost)


def derived_features(
    cands: Sequence[ProposedCandidate], drafts: Drafts
) -> list[dict[str, float | None]]:
    """Each candidate's `DERIVED_FEATURES`: its score features within `cands`, its votes and
    share, its best proposal's model-free score and rank."""
    return [
        {**f, **{name: c.features.get(name) for name in DERIVED_FEATURES if name in c.features}}
        for c, f in zip(cands, score_features(cands, drafts), strict=True)
    ]


def derived_pick(
    cands: Sequence[ProposedCandidate], drafts: Drafts, model: SelectorModel | None = None
) -> Ranked:
    """small-text-derived@k's pick among a computed question's candidates (the kept proposals
    merged with the small model's calculations, `proposal_pool`), the one place its rule lives.

    The rule is hand-set, nothing fitted: the candidates within `NEAR_TIE` nats of the most
    probable by the small model's score (a factor of two) come first, ordered by their votes
    (the samples that reached the value), then by their best proposal's model-free rank (a
    value no proposal gives last), then by the score; the rest by the score. The first is
    chosen unless "unknown" is more probable than every candidate. A `model` (a later fit on
    the fitting halves, over `derived_features`) replaces the rule (`rank_scored`)."""
    if model is not None:
        return rank_scored(cands, drafts, model)
    scored = _with_logprobs(cands, drafts)
    best = max((lp for _, lp in scored), default=0.0)

    def key(cs: tuple[ProposedCandidate, float]) -> tuple[float, ...]:
        c, lp = cs
        if lp < best - NEAR_TIE:
            return (1.0, 0.0, 0.0, -lp)
        return (0.0, -float(len(c.samples)), math.inf if c.rank is None else c.rank, -lp)

    return _first_against_unknown(tuple(sorted(scored, key=key)), drafts)


def as_rows(qid: str, d: Drafts) -> list[dict[str, object]]:
    """scores.csv: one model's scores of a question's texts (each text's log-probability), with
    the call's cost, under the model's pool-scores label (`scoring.label`)."""
    name = label(POOL, d.role)
    return [
        score_row(qid, name, t, lp, d, tokens=n)
        for t, lp, n in zip(d.texts, d.logprobs, d.tokens, strict=True)
    ]
