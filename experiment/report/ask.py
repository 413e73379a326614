"""`factqa ask` on the console: one question answered as a run answers it (`runner.ask_question`),
its one answer first (small-pipeline@k where the pools were scored, else small-verified@k) with
its evidence sentence, then the large model's answer; with --all, every method's own answer, the
k samples, the confirmed candidates as the selector ranks them, and the pool (or, for a question
routed to the calculation prompt, the calculations the article drafts) as the small model scored
it. Every label is a word the user knows: a value is shown as read (`shown_value`: '3rd', not
'3 ord')."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from rich.text import Text

from experiment.base.types import Article, Span
from experiment.evaluate.drafts import (
    COMPUTED,
    SMALL,
    STATED,
    Drafts,
    derived_pick,
    derived_selector,
    question_pools,
    rank_scored,
    score_features,
    text_selector,
    text_selector_k,
)
from experiment.evaluate.evidence import index
from experiment.evaluate.methods import (
    REFERENCE,
    SMALL_PIPELINE,
    SMALL_TEXT_DERIVED,
    VERIFIED,
)
from experiment.evaluate.proposal_pool import ProposedCandidate, proposal_pool
from experiment.evaluate.question_samples import QuestionSamples
from experiment.evaluate.registry import MethodAnswer
from experiment.evaluate.selector import learned, pick
from experiment.generate.prompts import prompt_for
from experiment.generate.windows import WHOLE_NOTE

if TYPE_CHECKING:
    from experiment.evaluate.answer import Answer
    from experiment.generate.sampling import Sample


def shown_value(value: str) -> str:
    """A value as read, in words a reader knows: '3 ord' is '3rd'."""
    if value.endswith(" ord") and value[:-4].isdigit():
        n = int(value[:-4])
        suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
        return f"{n}{suffix}"
    return value


def marked(text: str, sentence: tuple[int, int], span: Span, width: int) -> Text:
    """The evidence sentence, its first `width` characters, with the span in bold."""
    start, end = sentence
    out = Text(text[start:end].replace("\n", " ")[:width])
    local = span.start - start
    out.stylize("bold", local, local + len(span.text))
    return out


def _model(qs: QuestionSamples) -> str:
    """The small model's name, as its samples record it."""
    return qs.small[0].attempt.model if qs.small else "the small model"


def _small_drafts(qs: QuestionSamples) -> Drafts | None:
    """The small model's scores of the question's pool; None where they were not made."""
    return qs.drafts.get(SMALL) if qs.drafts is not None else None


def lead_method(answers: Mapping[str, MethodAnswer], k: int) -> str:
    """The method `ask` leads with: the small pipeline where the pools were scored, else the
    method the user stated (small-verified@k)."""
    return SMALL_PIPELINE.name(k) if SMALL_PIPELINE.name(k) in answers else VERIFIED.name(k)


def _how(method: str, k: int, a: MethodAnswer, model: str, computed: bool) -> str:
    """Why the lead method gives its answer, in words."""
    votes = round(a.agreement * k)
    if method == VERIFIED.name(k):
        return f"the article confirms it; {votes} of {model}'s {k} answers say it"
    what = "the calculation the article drafts that" if computed else "the article's candidate"
    said = f"{what} {model} scores highest"
    return said + (f", {votes} of its {k} answers say it" if votes else "")


def say_reading(out: Console, samples: Sequence[Sample]) -> None:
    """What the small model read, where it was not the whole article (an excerpt)."""
    context = samples[0].context if samples else ""
    if context and context != WHOLE_NOTE:
        out.print(f"the small model read: {context}")


def say_answer(out: Console, qs: QuestionSamples, answers: Mapping[str, MethodAnswer]) -> None:
    """The one answer, with its evidence sentence; or why there is none."""
    k, model = qs.k, _model(qs)
    method = lead_method(answers, k)
    a = answers[method]
    if a.chosen is None:
        why = "it abstains" if a.abstained else "no answer was confirmed"
        out.print(f"answer: none ({method}: {why})")
        return
    at = a.chosen.attempt
    drafts = _small_drafts(qs)
    computed = drafts is not None and drafts.pool == COMPUTED
    out.print(f"answer: {at.answer} ({method}: {_how(method, k, a, model, computed)})")
    if at.span and qs.article is not None:
        text = qs.article.text
        found = index(text)
        sentence = found.sentences[found.sentence_at(at.span.start)]
        out.print(marked(text, (sentence.start, sentence.end), at.span, 300))


def say_large(out: Console, qs: QuestionSamples) -> None:
    """The large model's one answer, and whether the article states it."""
    if qs.large is None:
        return
    a = qs.large.attempt
    said = "the article states it" if a.confirmed else "the article does not state it"
    out.print(f"large model ({a.model}): {a.answer or a.raw_text.strip()[:60]} ({said})")


def say_methods(out: Console, answers: Mapping[str, MethodAnswer]) -> None:
    """Every method's own answer to the question."""
    table = Table(title="each method's answer")
    for col in ("method", "answer", "stated in the article", "confidence"):
        table.add_column(col)
    for name, a in answers.items():
        at = a.chosen.attempt if a.chosen is not None else None
        table.add_row(
            name,
            "—" if at is None else at.answer or at.raw_text.strip()[:40],
            "—" if at is None else "yes" if at.confirmed else "no",
            "—" if a.chosen is None or name == REFERENCE else f"{a.confidence:.2f}",
        )
    out.print(table)


def say_samples(out: Console, small: list[Answer], art: Article, name: str, k: int) -> None:
    """Each of the small model's k answers: as written, as read, confirmed or not, and where."""
    table = Table(title=f"the {k} answers of {name}")
    for col in ("#", "answer", "read as", "confirmed", "evidence"):
        table.add_column(col)
    for a in (s.attempt for s in small):
        if a.span:
            context = art.text[max(0, a.span.start - 30) : a.span.end + 30]
            ev = f"[{a.span.start}:{a.span.end}] …{context}…"
        else:
            ev = a.reason
        table.add_row(
            str(a.sample_index),
            a.raw_text.strip()[:60],
            shown_value(a.value) if a.value else "—",
            "yes" if a.confirmed else "no",
            ev.replace("\n", " "),
        )
    out.print(table)


def say_ranked(out: Console, qs: QuestionSamples) -> None:
    """The confirmed candidates as the learned selector ranks them, with their evidence."""
    assert qs.article is not None
    art = qs.article
    model = learned()
    sel = pick(qs.candidates, model)
    if not sel.ranked:
        out.print("selected answer: no confirmed candidate, abstain")
        return
    table = Table(title="confirmed candidates, ranked by the selector")
    for col in ("rank", "answer", "confidence", "votes", "type fit", "evidence sentence"):
        table.add_column(col)
    for rank, (c, score) in enumerate(sel.ranked, start=1):
        table.add_row(
            str(rank),
            c.canonical,
            f"{score:.2f}",
            str(len(c.samples)),
            f"{c.features['type_fit']:.1f}",
            marked(art.text, c.sentence, c.span, 300),
        )
    out.print(table)
    if sel.chosen is None:
        out.print(
            f"selected answer: abstain (best confidence {sel.confidence:.2f} is under the "
            f"threshold {model.threshold:.2f})"
        )
    else:
        out.print(f"selected answer: {sel.chosen.canonical} (confidence {sel.confidence:.2f})")


def say_scored(out: Console, qs: QuestionSamples, derived_text: str) -> None:
    """The pool the small model scored for the question, as a run scores it: the article's own
    candidates (a stated question) or the calculations the article drafts (one routed to the
    calculation prompt)."""
    drafts = _small_drafts(qs)
    if drafts is None:
        out.print("the pool is not scored (the small model cannot score, or --no-pool)")
    elif drafts.error:
        out.print(f"the pool is not scored: {drafts.error}")
    elif drafts.pool == STATED:
        _say_pool(out, qs, drafts)
    elif drafts.pool == COMPUTED:
        _say_proposals(out, qs, drafts, derived_text)


def _say_pool(out: Console, qs: QuestionSamples, drafts: Drafts) -> None:
    """The pool (the article's own candidates, bounded, merged with the confirmed samples) with
    the small model's scores after its sampling prompt: each candidate's origin, score and
    evidence; then small-text@0's and small-text@k's answers."""
    assert qs.article is not None
    art, q = qs.article, qs.question
    own, merged = question_pools(q, art, qs.small)
    got = rank_scored(merged, drafts, text_selector_k())
    feats = dict(zip((c.text for c in merged), score_features(merged, drafts), strict=True))
    model = _model(qs)
    table = Table(title=f"the pool ({len(merged)} candidates), scored by {model}")
    for col in ("rank", "answer", "origin", "log-prob", "vs unknown", "score", "evidence"):
        table.add_column(col)
    for rank, (c, score) in enumerate(got.ranked, start=1):
        lp, margin = drafts.logprob(c.text), feats[c.text]["score_margin"]
        table.add_row(
            str(rank),
            c.text,
            c.origin,
            "—" if lp is None else f"{lp:.2f}",
            "—" if margin is None else f"{margin:+.2f}",
            f"{score:.2f}",
            marked(art.text, c.sentence, c.span, 200),
        )
    out.print(table)
    out.print(f'"unknown" scores {drafts.unknown:.2f}')
    for name, cands, fit in (
        ("small-text@0", own, text_selector()),
        (f"small-text@{qs.k}", merged, text_selector_k()),
    ):
        p = rank_scored(cands, drafts, fit)
        said = (
            'abstain ("unknown" is more probable)'
            if p.unknown_won
            else "abstain (under the threshold)"
            if p.chosen is None
            else f"{p.chosen.text} (score {p.confidence:.2f})"
        )
        out.print(f"{name}: {said}")


def _say_proposals(out: Console, qs: QuestionSamples, drafts: Drafts, derived_text: str) -> None:
    """The calculations the article drafts (the kept proposals merged with the small model's
    confirmed calculations), each with its working, its model-free score and the small model's
    score after the calculation prompt, ranked by small-text-derived@k's pick; then its answer."""
    assert qs.article is not None
    art, q = qs.article, qs.question
    merged = proposal_pool(q, art, qs.small, form=derived_text)
    if not merged:
        out.print("the article drafts no calculation for this question")
        return
    p = derived_pick(merged, drafts, derived_selector(drafts.form))
    model = _model(qs)
    title = (
        f"the calculations the article drafts ({len(merged)}), scored by {model} after the "
        f"{prompt_for(q, qs.prompt)} prompt"
    )
    table = Table(title=title)
    for col in ("rank", "scored text", "working", "origin", "model-free", "votes", "log-prob",
                "vs unknown", "pick score"):  # fmt: skip
        table.add_column(col)

    def working(c: ProposedCandidate) -> str:
        if c.proposal is not None:
            return c.proposal.derivation
        return qs.small[c.index].attempt.working if c.index is not None else ""

    for rank, (c, score) in enumerate(p.ranked, start=1):
        lp = drafts.logprob(c.text)
        table.add_row(
            str(rank),
            c.text,
            working(c),
            c.origin,
            "—" if c.proposal is None else f"{c.proposal.score:.2f}",
            str(len(c.samples)),
            "—" if lp is None else f"{lp:.2f}",
            "—" if lp is None else f"{lp - drafts.unknown:+.2f}",
            f"{score:.2f}",
        )
    out.print(table)
    out.print(f'"unknown" scores {drafts.unknown:.2f}')
    c = p.chosen
    said = (
        'abstain ("unknown" is more probable)'
        if p.unknown_won
        else "abstain (nothing scored)"
        if c is None
        else f"{working(c) or c.text} (confidence {p.confidence:.2f})"
    )
    out.print(f"{SMALL_TEXT_DERIVED.name(qs.k)}: {said}")
