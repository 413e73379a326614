"""The methods the experiment compares, registered in `REGISTRY` in table order; all computed
from the same samples (nothing regenerated).

- large@1            the large model's one greedy answer (the reference)
- large-verified@1   that answer, kept only if the article confirms it
- small@1            the small model's first sample
- small-maj@k        majority of k samples, unchecked ("unknown" answers vote too)
- small-verified@k   majority among samples the article confirms; abstain when none (the claim)
- small-derived@k    majority among samples whose working (`7 = 9 - 2` under the derive prompt,
                     `9 - 2` under calc) the derivation rule confirms, where any is; else
                     among those the article confirms; abstain when none
- small-pass@k       right if any sample is right: the ceiling an oracle would reach
- small-rule@k       the hand-set selector's pick among the confirmed candidates (`selector`)
- small-selected@k   the learned selector's pick; abstains when no candidate is likely enough
- cascade            small-verified@k, falling back to large@1 only when nothing was confirmed
- cascade@B%         small-selected@k, except that the B % of questions with the lowest selector
                     confidence get large@1's answer instead (`routed`)
- cascade-derived@20%  small-derived@k, except that the 20 % of questions whose vote agrees least
                     (a confirmed calculation's agreement where there is one) get large@1's answer
- large-checks@k     the large model's most probable among the small model's confirmed candidates
                     and "unknown", on the large@1 prompt (`large_check`, whole); it abstains on
                     "unknown" and where nothing was confirmed
- large-checks-evidence@k  the same, each candidate scored on its own evidence only (a sentence
                     and its neighbours, or a table row with its headers) against "unknown"
- small-selected-checked@k  the learned selector refitted with one more feature, the large
                     model's evidence check of each candidate (`evidence_score` of its margin);
                     it pays for the check on every question with a confirmed candidate
- cascade-check@B%   small-selected@k, except that the B % least confident questions get
                     large-checks-evidence@k instead of large@1 (large@1 still where nothing
                     was confirmed: there is nothing to check)
- text-only          no model at all: the article's own candidate (`pool`: every value of the
                     asked kind it states) that the model-free rank puts first; abstains under
                     its threshold. What the text alone answers, beside what the models add
- text-derived       no model at all: for a question whose wording asks for a computation, the
                     calculation the article drafts (`proposals`: the asked operation over
                     figures of one table row or column, or of one sentence) that the
                     model-free rank puts first, its derivation the working; abstains otherwise
- small-text@0       the small model writes nothing: it scores the bounded text pool after its
                     sampling prompt (`drafts`), ranked by the text selector; abstains where
                     "unknown" is more probable than every candidate
- small-text@k       the same over the pool merged with its k confirmed samples, the sample
                     features weighted as the shipped selector weights them
- large-text@1       the large model scores the same bounded text pool after its large@1
                     prompt; its most probable candidate, "unknown" abstains
- cascade-text@30%   small-text@k, except that the 30 % of questions with its lowest confidence
                     get large@1's answer instead
- small-text-derived@k  for a question the run routes to the calculation prompt (`auto`,
                     `calc`): the small model scores the kept proposals' results after its
                     sampling prompt; over them merged with its own confirmed calculations, the
                     pick of the selector fitted on the fitting halves (`drafts.derived_pick`,
                     `factqa bench fit derived`; without one, the most probable, near ties by
                     votes then the model-free rank); "unknown" abstains where the fit says so.
                     The stated pool's three methods abstain on such a question, and these two
                     on every other
- large-text-derived@1  the large model scores the same proposals after its large@1 prompt,
                     picked by small-text-derived@k's fitted pick (no samples, so no votes):
                     small and large on the same footing
- small-pipeline@k    one answer for every question from the small model's side: small-text-
                     derived@k's where the run routes the question to the calculation prompt,
                     small-text@k's elsewhere (each abstains on the other's questions)
- large-pipeline@1    the same with the large model's scores: large-text-derived@1 where routed,
                     large-text@1 elsewhere
- text-pipeline      the same with no model: text-derived where routed, text-only elsewhere;
                     what the pipeline would answer if the model added nothing
- cascade-pipeline@30%  small-pipeline@k, except that the 30 % of questions it is least sure of
                     get large@1's answer instead

An abstention (the model said "not stated", or the method declined) is wrong on an answerable
question and right on an unanswerable one; a failure (empty or repetitive output, an error, no
value of the asked kind) is wrong on both, and is counted apart.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

from experiment.base.types import Article, Question
from experiment.evaluate.answer import Answer
from experiment.evaluate.drafts import (
    COMPUTED,
    STATED,
    Drafts,
    Ranked,
    derived_pick,
    derived_selector,
    merged_bounded,
    most_probable,
    rank_scored,
    text_selector,
    text_selector_k,
)
from experiment.evaluate.drafts import LARGE as LARGE_ROLE
from experiment.evaluate.drafts import SMALL as SMALL_ROLE
from experiment.evaluate.features import ConfirmedAnswer
from experiment.evaluate.judge import gold_of, sample_right
from experiment.evaluate.large_check import EVIDENCE, LARGE_EVIDENCE, WHOLE, Check, evidence_score
from experiment.evaluate.pool import PoolCandidate, as_answer, bounded, pool, ranked, text_rank
from experiment.evaluate.proposal_pool import ProposedCandidate, is_computed, proposal_pool
from experiment.evaluate.proposals import as_answer as proposal_answer
from experiment.evaluate.proposals import propose
from experiment.evaluate.question_samples import QuestionSamples
from experiment.evaluate.registry import (
    REGISTRY,
    Choice,
    Method,
    MethodAnswer,
    MethodAnswers,
    Spend,
    known_sum,
)
from experiment.evaluate.selector import RULE, SelectorModel, learned, learned_checked, pick
from experiment.evaluate.vote import majority
from experiment.generate.models.cost import ModelShape
from experiment.generate.prompts import FIGURE
from experiment.verify.match import verify

ROUTED_SHARES = (10, 20, 30)  # the B of the cascade@B methods in every table (percent)
SMALL, LARGE, BOTH = frozenset({"small"}), frozenset({"large"}), frozenset({"small", "large"})
SELECTING = frozenset({"small", "article"})


def _large(qs: QuestionSamples) -> Choice:
    large = qs.large_answer
    return Choice(large if large.value is not None else None, [large], 1.0, None, 1, large.failed)


def _large_verified(qs: QuestionSamples) -> Choice:
    large = qs.large_answer
    kept = large if large.value is not None and large.attempt.confirmed else None
    return Choice(kept, [large], 1.0, None, 1, large.failed)


def _first(qs: QuestionSamples) -> Choice:
    first = qs.small[0]
    return Choice(first if first.value is not None else None, qs.small[:1], failed=first.failed)


def _vote(qs: QuestionSamples, confirmed: bool, derived: bool = False) -> Choice:
    """The majority of the small model's samples: all of them, or (`confirmed`) those the article
    confirms; with `derived`, those whose working the derivation rule confirms where there
    are any (a question whose samples show a confirmed calculation is answered by calculation,
    not by the stated figure beside it: +5 of 80 on DROP dev's fitting half, docs/RESULTS.md
    "calculator"), else the confirmed ones."""
    values = [s.value for s in qs.small]
    abstentions = [s.abstained for s in qs.small]
    if confirmed:
        keep = [s.attempt.confirmed for s in qs.small]
        if derived and any(s.attempt.derived for s in qs.small):
            keep = [s.attempt.derived for s in qs.small]  # a confirmed working outranks a figure
        vote = majority(values, keep=keep, abstentions=abstentions)
    else:
        vote = majority(values, abstain_votes=True, abstentions=abstentions)
    pick = qs.small[vote.index] if vote.index is not None else None
    return Choice(pick, qs.small, vote.agreement, failed=qs.all_failed)


def _majority(qs: QuestionSamples) -> Choice:
    return _vote(qs, confirmed=False)


def _verified(qs: QuestionSamples) -> Choice:
    return _vote(qs, confirmed=True)


def _derived(qs: QuestionSamples) -> Choice:
    return _vote(qs, confirmed=True, derived=True)


def _pass(qs: QuestionSamples) -> Choice:
    """Right if any sample is right. The answer shown is the first right sample (None when that
    is a deliberate abstention on an unanswerable question), else the first that answered, so
    coverage is "any sample answered" and failures are never a pass."""
    right = [s for s in qs.small if qs.right(s)]
    answered = [s for s in qs.small if s.value is not None]
    chosen = right[0] if right else (answered[0] if answered else None)
    if chosen is not None and chosen.value is None:
        chosen = None
    return Choice(chosen, qs.small, failed=qs.all_failed, correct=bool(right))


def _selected_by(
    model: SelectorModel,
    qs: QuestionSamples,
    cands: Sequence[ConfirmedAnswer] | None = None,
    check: Check | None = None,
) -> Choice:
    """`model`'s pick among `cands` (default: the question's confirmed candidates), paying for
    the large model's `check` where its scores are among the features."""
    sel = pick(qs.candidates if cands is None else cands, model)
    calls, spend = (check.calls, _spend(check)) if check is not None else (0, None)
    failed = qs.all_failed or (check is not None and bool(check.error))
    if sel.chosen is None:
        return Choice(None, qs.small, 0.0, sel.confidence, calls, failed, extra=spend)
    share = len(sel.chosen.samples) / len(qs.small)
    chosen = qs.small[sel.chosen.index]
    return Choice(chosen, qs.small, share, sel.confidence, calls, qs.all_failed, extra=spend)


def _spend(check: Check) -> Spend:
    """What a check's scoring calls cost."""
    return Spend(check.prompt_tokens, check.seconds, check.evaluated_tokens, check.flops)


def _rule(qs: QuestionSamples) -> Choice:
    return _selected_by(RULE, qs)


def _learned(qs: QuestionSamples) -> Choice:
    return _selected_by(qs.selector or learned(), qs)


def _cascade(qs: QuestionSamples) -> Choice:
    """small-verified@k, or large@1 when no sample was confirmed."""
    own = _verified(qs)
    if own.chosen is not None:
        return replace(own, confidence=None)
    large = _large(qs)
    return replace(large, paid=[*qs.small, qs.large_answer])


def _routed(
    questions: Sequence[Question],
    answers: MethodAnswers,
    k: int,
    method: Method,
) -> dict[str, MethodAnswer]:
    assert method.base is not None
    name = method.name(k)
    to = method.to.name(k) if method.to is not None else REFERENCE
    got = routed(questions, answers, method.share, method.base.name(k), to, REFERENCE)
    return {qid: replace(a, method=name) for qid, a in got.items()}


def _checked_by(mode: str):  # type: ignore[no-untyped-def]
    """The large model's pick among the confirmed candidates, checked `mode`'s way."""

    def answer(qs: QuestionSamples) -> Choice:
        assert qs.checks is not None, "this method needs the large model's checks"
        check = qs.checks.get(mode)
        if check is None:  # nothing was confirmed: nothing to check, no call
            return Choice(None, qs.small, 0.0, 0.0, failed=qs.all_failed)
        spend = _spend(check)
        calls = check.calls
        if check.pick is None:
            failed = bool(check.error) or qs.all_failed
            return Choice(None, qs.small, 0.0, check.confidence, calls, failed, extra=spend)
        chosen = qs.candidates[check.pick]
        share = len(chosen.samples) / len(qs.small)
        picked = qs.small[chosen.index]
        return Choice(picked, qs.small, share, check.confidence, calls, extra=spend)

    return answer


def _selected_checked(qs: QuestionSamples) -> Choice:
    """small-selected@k's ranking with the evidence check's score of each candidate as a feature
    (`selector_checked.json`); costed as the check."""
    assert qs.checks is not None, "this method needs the large model's checks"
    check = qs.checks.get(EVIDENCE)
    if check is None:  # nothing was confirmed: nothing to rank, no call
        return Choice(None, qs.small, 0.0, 0.0, failed=qs.all_failed)
    cands = [
        replace(c, features={**c.features, LARGE_EVIDENCE: evidence_score(m)})
        for c, m in zip(qs.candidates, check.margins, strict=True)
    ]
    return _selected_by(learned_checked(), qs, cands, check)


def _text_only(qs: QuestionSamples) -> Choice:
    """The article's own candidate the model-free rank puts first (`pool.text_rank`), from the
    text alone (no sample is read, none is paid for); abstains under the rank's threshold."""
    assert qs.article is not None, "text-only reads the article"
    model = text_rank()
    top = ranked(qs.text_pool, model)[:1]
    if not top or top[0][1] < model.threshold:
        return Choice(None, [], 0.0, top[0][1] if top else 0.0)
    best, score = top[0]
    return Choice(as_answer(best, qs.question), [], 1.0, score)


LARGE_1 = REGISTRY.register(Method("large@1", LARGE, _large))
LARGE_VERIFIED = REGISTRY.register(Method("large-verified@1", LARGE, _large_verified))
FIRST = REGISTRY.register(Method("small@1", SMALL, _first))
MAJORITY = REGISTRY.register(Method("small-maj@{k}", SMALL, _majority, confident=True))
VERIFIED = REGISTRY.register(Method("small-verified@{k}", SMALL, _verified, confident=True))
DERIVED = REGISTRY.register(Method("small-derived@{k}", SMALL, _derived, confident=True))
PASS = REGISTRY.register(Method("small-pass@{k}", SMALL, _pass, keeps_one=False))
RULE_PICK = REGISTRY.register(
    Method("small-rule@{k}", SELECTING, _rule, confident=True, router_rank=2)
)
SELECTED = REGISTRY.register(
    Method("small-selected@{k}", SELECTING, _learned, confident=True, router_rank=1)
)
CASCADE = REGISTRY.register(Method("cascade", BOTH, _cascade))


def _routed_cascade(
    name: str, needs: frozenset[str], base: Method, share: float, **to: Method
) -> Method:
    """Register a routed cascade: `base`'s answers, except that the `share` of questions it is
    least sure of get large@1's answer (or `to`'s)."""
    method = Method(name, needs | BOTH | {"all-questions"}, route=_routed, base=base, share=share)
    return REGISTRY.register(replace(method, **to) if to else method)


ROUTED = tuple(
    _routed_cascade(f"cascade@{b}%", SELECTING, SELECTED, b / 100) for b in ROUTED_SHARES
)
CASCADE_20 = ROUTED[ROUTED_SHARES.index(20)]  # the routed cascade the summaries name
# small-derived@k, except that the 20 % of questions whose vote agrees least go to large@1
CASCADE_DERIVED_20 = _routed_cascade("cascade-derived@20%", frozenset(), DERIVED, 0.2)
REFERENCE = LARGE_1.name(1)
CHECKING = SELECTING | {"check"}
CHECK_WHOLE = REGISTRY.register(
    Method("large-checks@{k}", CHECKING, _checked_by(WHOLE), confident=True)
)
CHECK_EVIDENCE = REGISTRY.register(
    Method("large-checks-evidence@{k}", CHECKING, _checked_by(EVIDENCE), confident=True)
)
SELECTED_CHECKED = REGISTRY.register(
    Method("small-selected-checked@{k}", CHECKING, _selected_checked, confident=True)
)
CASCADE_CHECK_20 = _routed_cascade("cascade-check@20%", CHECKING, SELECTED, 0.2, to=CHECK_EVIDENCE)


TEXT = frozenset({"article"})  # no model: the article alone (`pool`)
TEXT_ONLY = REGISTRY.register(Method("text-only", TEXT, _text_only, confident=True))


def _text_derived(qs: QuestionSamples) -> Choice:
    """The calculation the article drafts that the model-free rank puts first
    (`proposals.propose`), from the text alone; abstains where the wording asks for no
    computation or nothing is proposed."""
    assert qs.article is not None, "text-derived reads the article"
    found = propose(qs.question.text, qs.article.text) if qs.question.kind == "figure" else []
    if not found:
        return Choice(None, [], 0.0, 0.0)
    return Choice(proposal_answer(found[0], qs.question, qs.article), [], 1.0, found[0].score)


TEXT_DERIVED = REGISTRY.register(Method("text-derived", TEXT, _text_derived, confident=True))


def _drafted(qs: QuestionSamples, role: str) -> Drafts:
    """`role`'s scores of the question's pool, which the method needs."""
    drafts = qs.drafts.get(role) if qs.drafts is not None else None
    assert drafts is not None, f"this method needs the {role} model's scores of the pool"
    return drafts


NOT_ITS_POOL = Choice(None, [], 0.0, 0.0)  # the scores are of the other pool: abstain, unpaid


def _whole_call(drafts: Drafts) -> Spend:
    """What the scoring call cost, its prompt read included."""
    return Spend(drafts.prompt_tokens, drafts.seconds, drafts.evaluated_tokens, drafts.flops)


def _text_answer(qs: QuestionSamples, c: PoolCandidate) -> Answer:
    """A candidate no sample gives, as the answer: a proposal's derivation, its working shown
    (`proposals.as_answer`), or the article's own form of a stated value (`pool.as_answer`)."""
    if isinstance(c, ProposedCandidate) and c.proposal is not None:
        assert qs.article is not None
        return proposal_answer(c.proposal, qs.question, qs.article)
    return as_answer(c, qs.question)


def _scored_choice(
    qs: QuestionSamples, got: Ranked, drafts: Drafts, paid: Sequence[Answer], spend: Spend
) -> Choice:
    """A scored pool's pick as a method's choice: a sampled candidate is given as its shown
    sample, a text one as the text drafts it (`_text_answer`)."""
    failed = bool(drafts.error)
    if got.chosen is None:
        return Choice(None, paid, 0.0, got.confidence, failed=failed, extra=spend)
    c = got.chosen
    chosen = qs.small[c.index] if c.index is not None else _text_answer(qs, c)
    share = len(c.samples) / len(qs.small) if qs.small else 0.0
    return Choice(chosen, paid, share, got.confidence, extra=spend)


def _small_text_0(qs: QuestionSamples) -> Choice:
    """The bounded text pool ranked with the small model's scores; no sample is read."""
    drafts = _drafted(qs, SMALL_ROLE)
    if drafts.pool != STATED:
        return NOT_ITS_POOL
    got = rank_scored(bounded(qs.text_pool), drafts, text_selector())
    return _scored_choice(qs, got, drafts, [], _whole_call(drafts))


def _small_text_k(qs: QuestionSamples) -> Choice:
    """The pool merged with the k samples, bounded, ranked with the small model's scores and
    the sample features; it pays for the samples and the candidates' scoring (the samples read
    the prompt)."""
    assert qs.article is not None, "small-text@k reads the article"
    drafts = _drafted(qs, SMALL_ROLE)
    if drafts.pool != STATED:
        return NOT_ITS_POOL
    cands = merged_bounded(pool(qs.question, qs.article, qs.small))
    spend = Spend(0, 0.0, drafts.answer_tokens, drafts.answer_flops)
    got = rank_scored(cands, drafts, text_selector_k())
    return replace(_scored_choice(qs, got, drafts, qs.small, spend), failed=qs.all_failed)


def _large_text(qs: QuestionSamples) -> Choice:
    """The large model's most probable candidate of the bounded text pool."""
    drafts = _drafted(qs, LARGE_ROLE)
    if drafts.pool != STATED:
        return NOT_ITS_POOL
    got = most_probable(bounded(qs.text_pool), drafts)
    return replace(_scored_choice(qs, got, drafts, [], _whole_call(drafts)), large_calls=1)


DRAFTING = TEXT | {"small-text"}  # the small model's scores of the pool (`drafts`)
SMALL_TEXT_0 = REGISTRY.register(
    Method("small-text@0", DRAFTING, _small_text_0, confident=True, router_rank=3)
)
SMALL_TEXT = REGISTRY.register(
    Method("small-text@{k}", DRAFTING | SMALL, _small_text_k, confident=True, router_rank=4)
)
LARGE_TEXT = REGISTRY.register(
    Method("large-text@1", TEXT | {"large-text"}, _large_text, confident=True)
)
# small-text@k, except that the 30 % of questions it is least sure of go to large@1
CASCADE_TEXT_30 = _routed_cascade("cascade-text@30%", DRAFTING, SMALL_TEXT, 0.3)


def _small_text_derived(qs: QuestionSamples) -> Choice:
    """A computed question's kept proposals merged with the small model's calculations, picked
    by `drafts.derived_pick` over the small model's scores; it pays for the samples and the
    candidates' scoring (the samples read the prompt)."""
    assert qs.article is not None, "small-text-derived@k reads the article"
    drafts = _drafted(qs, SMALL_ROLE)
    if drafts.pool != COMPUTED:
        return NOT_ITS_POOL
    cands = proposal_pool(qs.question, qs.article, qs.small, form=drafts.form)
    got = derived_pick(cands, drafts, derived_selector(drafts.form))
    spend = Spend(0, 0.0, drafts.answer_tokens, drafts.answer_flops)
    return _scored_choice(qs, got, drafts, qs.small, spend)


def _large_text_derived(qs: QuestionSamples) -> Choice:
    """A computed question's kept proposals picked by small-text-derived@k's own pick
    (`drafts.derived_pick` with the shipped fit) over the large model's scores: small and large
    are judged on the same footing (the large model writes no samples here: no votes)."""
    assert qs.article is not None, "large-text-derived@1 reads the article"
    drafts = _drafted(qs, LARGE_ROLE)
    if drafts.pool != COMPUTED:
        return NOT_ITS_POOL
    cands = proposal_pool(qs.question, qs.article, form=drafts.form)
    got = derived_pick(cands, drafts, derived_selector(drafts.form))
    return replace(_scored_choice(qs, got, drafts, [], _whole_call(drafts)), large_calls=1)


SMALL_TEXT_DERIVED = REGISTRY.register(
    Method(
        "small-text-derived@{k}",
        DRAFTING | SMALL | {"computed"},
        _small_text_derived,
        confident=True,
    )
)
LARGE_TEXT_DERIVED = REGISTRY.register(
    Method(
        "large-text-derived@1",
        TEXT | {"large-text", "computed"},
        _large_text_derived,
        confident=True,
    )
)


def _routed_to_calculation(qs: QuestionSamples) -> bool:
    """Whether the run gives this question the calculation prompt (`proposal_pool.is_computed`
    under its prompt setting): the pipelines answer it from the computed pool."""
    return is_computed(qs.question, qs.prompt)


def _pipeline(computed: Method, stated: Method):  # type: ignore[no-untyped-def]
    """One answer for every question: `computed`'s where the run routes the question to the
    calculation prompt, `stated`'s elsewhere (each abstains on the other's questions)."""

    def answer(qs: QuestionSamples) -> Choice:
        return (computed if _routed_to_calculation(qs) else stated).answer(qs)

    return answer


SMALL_PIPELINE = REGISTRY.register(
    Method(
        "small-pipeline@{k}",
        DRAFTING | SMALL,
        _pipeline(SMALL_TEXT_DERIVED, SMALL_TEXT),
        confident=True,
    )
)
LARGE_PIPELINE = REGISTRY.register(
    Method(
        "large-pipeline@1",
        TEXT | {"large-text"},
        _pipeline(LARGE_TEXT_DERIVED, LARGE_TEXT),
        confident=True,
    )
)
TEXT_PIPELINE = REGISTRY.register(
    Method("text-pipeline", TEXT, _pipeline(TEXT_DERIVED, TEXT_ONLY), confident=True)
)
# small-pipeline@k, except that the 30 % of questions it is least sure of go to large@1
CASCADE_PIPELINE_30 = _routed_cascade("cascade-pipeline@30%", DRAFTING, SMALL_PIPELINE, 0.3)


def method_names(k: int, selected: bool = True, checks: bool = False) -> list[str]:
    """Every registered method's name at k (without the selectors' when not `selected`, with
    the large model's checks when `checks`)."""
    return REGISTRY.names(k, inputs(selected, checks and selected))


def question_facts(q: Question, article: Article, small: Sequence[Answer]) -> dict[str, object]:
    """What the verifier could and did do for one question, whatever the method.

    - gold_in_text: the article states a gold value (false for computed answers, e.g. DROP sums);
    - samples_drawn: the small model's samples (k, or fewer where adaptive sampling stopped);
    - small_correct: small samples whose value is right;
    - small_correct_confirmed: of those, the ones the article confirmed. A question with
      small_correct > 0 and small_correct_confirmed == 0 is one the verifier cost.
    """
    gold = gold_of(q)
    right = [s for s in small if s.value is not None and sample_right(s, q, gold)]
    return {
        "gold_in_text": any(verify(g.value, article.text).confirmed for g in gold),
        "samples_drawn": len(small),
        "small_correct": len(right),
        "small_correct_confirmed": sum(s.attempt.confirmed for s in right),
    }


def inputs(
    article: bool = True, checks: bool = False, drafts: Sequence[str] = (), computed: bool = False
) -> frozenset[str]:
    """What a run's methods can use: both models' answers, the article where the selectors
    read it, the large model's checks where it made them, the pool's scores by the models
    in `drafts` ("small", "large") where they scored it, and whether those scores include
    computed questions' proposals (`computed`: the run gives them the calculation prompt)."""
    selecting = {"article", "all-questions"} if article else set()
    scored = {f"{role}-text" for role in drafts} if article else set()
    derived = {"computed"} if computed and scored else set()
    return BOTH | selecting | scored | derived | ({"check"} if checks else set())


def answer_methods(
    q: Question,
    small: Sequence[Answer],
    large: Answer,
    k: int,
    article: Article | None = None,
    selector: SelectorModel | None = None,
    checks: Mapping[str, Check] | None = None,
    large_shape: ModelShape | None = None,
    drafts: Mapping[str, Drafts] | None = None,
    computed: bool = False,
    prompt: str = FIGURE,
) -> dict[str, MethodAnswer]:
    """Every per-question method's answer to one question from its first k small samples and
    the large one (the selectors' methods only when the `article` is given; `selector` replaces
    the shipped one; the check methods only when the large model's `checks` are given, by mode,
    an empty mapping where nothing was confirmed; the proposals' methods only where the run
    gives computed questions the calculation prompt, `computed`). A question that adaptive
    sampling stopped early has fewer than k samples; the methods are still named @k. The
    routed cascades need every question's answer: see `add_routed`; large@1's records the
    article prefix it read from the cache (`with_prefix`, FLOPs by the large model's
    `large_shape`). `prompt` is the run's prompt setting: which questions it routes to the
    calculation prompt (the pipelines' routing)."""
    qs = QuestionSamples(q, list(small[:k]), large, k, article, selector, checks, drafts, prompt)
    has = inputs(
        article is not None,
        checks is not None and article is not None,
        tuple(drafts or ()),
        computed,
    )
    out = {m.name(k): m.run(qs) for m in REGISTRY.per_question(has)}
    out[REFERENCE] = with_prefix(out[REFERENCE], large, large_shape)
    return out


def routed(
    questions: Sequence[Question],
    answers: MethodAnswers,
    share: float,
    base: str,
    to: str = REFERENCE,
    fallback: str | None = None,
) -> dict[str, MethodAnswer]:
    """`base` for every question, except that the `share` of questions (rounded down) with the
    lowest confidence (`base`'s: the selector's score; ties by question id) take `to`'s answer
    (large@1's, or the large model's check), paying for both; `fallback`'s where `to` made no
    call (a check where nothing was confirmed: there is nothing to check).

    A question sent to large@1 pays what the large model would pay to answer it alone
    (docs/ARCHITECTURE.md, "Cost"): large@1 read each article's prefix once, on its first
    question, so an answer that read it from the cache (`prefix_tokens`) is charged the prefix
    too, unless a question of the same article sent before it (in `questions`' order) paid it."""
    order = sorted(questions, key=lambda q: (answers[q.id][base].confidence, q.id))
    sent = {q.id for q in order[: math.floor(share * len(questions) + 1e-9)]}
    out = {}
    read: set[str] = set()  # articles whose prefix a sent question read in this cascade
    for q in questions:
        own, large = answers[q.id][base], answers[q.id][to]
        if fallback is not None and large.large_calls == 0:
            large = answers[q.id][fallback]
        if q.id not in sent:
            out[q.id] = replace(own, large_calls=0)
            continue
        prefix = (0, 0.0) if q.article_id in read else (large.prefix_tokens, large.prefix_flops)
        if large.method == REFERENCE:
            read.add(q.article_id)
        out[q.id] = replace(
            large,
            prompt_tokens=own.prompt_tokens + large.prompt_tokens,
            completion_tokens=own.completion_tokens + large.completion_tokens,
            seconds=own.seconds + large.seconds,
            samples=own.samples,
            evaluated_tokens=known_sum([own.evaluated_tokens, large.evaluated_tokens, prefix[0]]),
            flops=known_sum([own.flops, large.flops, prefix[1]]),
            prefix_tokens=0,
            prefix_flops=0.0,
        )
    return out


def with_prefix(answer: MethodAnswer, large: Answer, shape: ModelShape | None) -> MethodAnswer:
    """large@1's `answer` with the article prefix its call read from the cache: the prompt and
    answer tokens less those it evaluated (a token of slack: the last answer token is not
    always decoded), its FLOPs at positions 0.. by the model's `shape` (None: unknown)."""
    a = large.attempt
    if a.evaluated_tokens is None:
        return replace(answer, prefix_tokens=0, prefix_flops=None)
    tokens = a.prompt_tokens + a.completion_tokens - a.evaluated_tokens
    tokens = tokens if tokens > 1 else 0
    flops = shape.flops(range(tokens), 0) if shape is not None else (0.0 if not tokens else None)
    return replace(answer, prefix_tokens=tokens, prefix_flops=flops)


def add_routed(
    questions: Sequence[Question], answers: MethodAnswers, k: int, has: frozenset[str] | None = None
) -> None:
    """Add every routed method (cascade@B%) that `has` allows to `answers` (default: all but
    the ones that route to the large model's checks)."""
    for method in REGISTRY.routed(inputs() if has is None else has):
        for qid, a in method.route(questions, answers, k, method).items():  # type: ignore[misc]
            answers[qid][method.name(k)] = a


def routing_curve(
    questions: Sequence[Question], answers: MethodAnswers, k: int
) -> list[dict[str, float | int | str]]:
    """Accuracy against the share of questions sent to the large model, 0 to 100 % in steps of
    5 %, for each router's confidence (the learned selector's first)."""
    rows: list[dict[str, float | int | str]] = []
    present = next(iter(answers.values()), {})
    for base in (m for m in REGISTRY.routers() if m.name(k) in present):
        for pct in range(0, 101, 5):
            got = routed(questions, answers, pct / 100, base.name(k))
            rows.append(
                {
                    "selector": base.name(k),
                    "share_sent": pct / 100,
                    "sent": math.floor(pct / 100 * len(questions) + 1e-9),
                    "accuracy": sum(a.correct for a in got.values()) / len(questions),
                }
            )
    return rows


# curves.csv: a row per method and k; `flops` and `seconds` are the cost of the first k samples
CURVE_COLUMNS = ("k", "method", "accuracy", "coverage", "flops", "seconds")


def k_curve(
    questions: Sequence[Question],
    small: dict[str, Sequence[Answer]],
    large: dict[str, Answer],
    k: int,
    articles: dict[str, Article] | None = None,
) -> list[dict[str, float | int | str]]:
    """Accuracy, coverage and cost of the k-dependent methods for k' = 1..k, from the same
    samples (the selectors' too when `articles` are given). The cost at k' is what its first k'
    samples cost: model FLOPs (blank where any sample's is unknown) and model seconds."""
    rows: list[dict[str, float | int | str]] = []
    curve = REGISTRY.curve(BOTH | ({"article"} if articles is not None else set()))
    for kk in range(1, k + 1):
        per_q = [
            answer_methods(
                q, small[q.id], large[q.id], kk, articles[q.article_id] if articles else None
            )
            for q in questions
        ]
        for method in curve:
            col = [a[method.name(kk)] for a in per_q]
            rows.append(
                {
                    "k": kk,
                    "method": method.family,
                    "accuracy": sum(a.correct for a in col) / len(col),
                    "coverage": sum(a.answered for a in col) / len(col),
                    "flops": known_sum([a.flops for a in col]),
                    "seconds": sum(a.seconds for a in col),
                }
            )
    return rows
