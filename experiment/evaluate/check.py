"""A model's sample as an `Attempt` record: the figure or date it gives, and whether the article
confirms it (no gold is used here; judging against gold is `experiment.evaluate.judge`)."""

from __future__ import annotations

from collections.abc import Sequence

from experiment.evaluate.scored import Scored
from experiment.generate.sampling import Sample
from experiment.generate.trouble import output_trouble
from experiment.records import Article, Attempt
from experiment.values.canonical import Value
from experiment.verify.answer import check_text


def check_sample(
    sample: Sample, article: Article, role: str, model: str, temperature: float
) -> tuple[Attempt, Value | None]:
    q = sample.question
    g = sample.generation
    check = check_text(g.text, article.text, q.text, q.kind)
    best = check.best
    value = best.value if best else None
    reason = check.reason
    if not best:
        reason = output_trouble(g.text, g.finish_reason) or reason
    attempt = Attempt(
        question_id=q.id,
        article_id=q.article_id,
        role=role,
        model=model,  # type: ignore[arg-type]
        sample_index=sample.sample_index,
        seed=sample.seed,
        temperature=temperature,
        raw_text=g.text,
        prompt_tokens=g.prompt_tokens,
        completion_tokens=g.completion_tokens,
        seconds=round(g.seconds, 4),
        cached=sample.cached,
        answer=best.text if best else "",
        value=value.canonical() if value else "",
        candidates=tuple(c.value.canonical() for c in check.extraction.candidates),
        confirmed=check.confirmed,
        spans=check.spans,
        reason=reason,
        context=sample.context,
        logprob=None if g.logprob is None else round(g.logprob, 4),
        round=sample.round,
        drawn=sample.drawn,
    )
    return attempt, value


def checked(
    samples: Sequence[Sample], article: Article, role: str, model: str, temperature: float
) -> list[Scored]:
    """One question's samples, each read and confirmed against its article."""
    return [Scored(*check_sample(s, article, role, model, temperature)) for s in samples]
