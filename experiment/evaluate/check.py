"""A model's sample as an `Attempt` record: the figure or date it gives, and whether the article
confirms it (no gold is used here; judging against gold is `experiment.evaluate.judge`)."""

from __future__ import annotations

from collections.abc import Sequence

from experiment.evaluate.scored import Scored
from experiment.generate.sampling import Sample
from experiment.generate.trouble import output_trouble
from experiment.records import Article, Attempt
from experiment.values.tables import scaled_reading
from experiment.verify.answer import check_text
from experiment.verify.derive import Derivation, check_derivation, is_derivation


def working_line(text: str) -> str | None:
    """The line of a model's answer that is written as a derivation (`7 = 9 - 2`), if one is."""
    return next((line.strip() for line in text.splitlines() if is_derivation(line)), None)


def check_sample(
    sample: Sample, article: Article, role: str, model: str, temperature: float
) -> Scored:
    """The checked sample: its attempt, its value, and the value as written where the value is
    a bare figure read in its scaled table cell (`tables.scaled_reading`)."""
    q = sample.question
    g = sample.generation
    line = working_line(g.text)
    derivation: Derivation | None = None
    if line is not None:
        derivation = check_derivation(line, article.text)
    # a derivation's answer is its result; the working is its evidence, never a candidate
    said = derivation.result_text if derivation and derivation.result_text else g.text
    check = check_text(said, article.text, q.text, q.kind)
    best = check.best
    value = best.value if best else None
    written = None
    if value is not None and check.confirmed:
        scaled = scaled_reading(article.text, check.spans, value)
        if scaled is not None:
            value, written = scaled, value
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
        evaluated_tokens=g.evaluated_tokens,
        flops=g.flops,
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
        working=derivation.expression if derivation else "",
        derived=bool(derivation and derivation.confirmed and value is not None),
        derivation_reason=derivation.reason if derivation else "",
        operand_spans=tuple(o.span for o in derivation.operands if o.span)
        if derivation and derivation.confirmed
        else (),
    )
    return Scored(attempt, value, written)


def checked(
    samples: Sequence[Sample], article: Article, role: str, model: str, temperature: float
) -> list[Scored]:
    """One question's samples, each read and confirmed against its article."""
    return [check_sample(s, article, role, model, temperature) for s in samples]
