"""Samples to `Attempt` records: extract the asked figure or date, then verify it in the article."""

from __future__ import annotations

from experiment.extract import extract
from experiment.match import verify
from experiment.records import Article, Attempt
from experiment.sampling import Sample
from experiment.trouble import output_trouble
from experiment.values import Value


def score_sample(
    sample: Sample, article: Article, role: str, model: str, temperature: float
) -> tuple[Attempt, Value | None]:
    q = sample.question
    g = sample.generation
    extraction = extract(g.text, q.text, q.kind)
    best = extraction.best
    value = best.value if best else None
    verdict = verify(value, article.text, best.text if best else "")
    reason = extraction.reason or verdict.reason
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
        candidates=tuple(c.value.canonical() for c in extraction.candidates),
        confirmed=verdict.confirmed,
        span=verdict.span,
        reason=reason,
        context=sample.context,
    )
    return attempt, value
