"""Confirm a model's sample: the figure or date it gives, read into an `Answer` (its `Attempt`
record and value), and whether the article confirms it (no gold is used here; judging against
gold is `experiment.evaluate.judge`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from experiment.base.types import Article, Attempt
from experiment.evaluate.answer import Answer
from experiment.evaluate.judge import CHANGE_QUESTION
from experiment.evaluate.proposals import operands_scale
from experiment.generate.prompts import CALC
from experiment.generate.sampling import Sample
from experiment.generate.trouble import output_trouble
from experiment.values.canonical import Quantity
from experiment.values.tables import in_body_cells, scaled_reading
from experiment.verify.answer import confirm_text
from experiment.verify.derive import (
    Derivation,
    confirm_derivation,
    confirm_expression,
    expression_of,
    is_calculation,
    is_derivation,
    magnitude,
    shape,
)
from experiment.verify.operation import operation_mismatch


def working_line(text: str) -> str | None:
    """The line of a model's answer that is written as a derivation (`7 = 9 - 2`), if one is."""
    return next((line.strip() for line in text.splitlines() if is_derivation(line)), None)


def calculation_line(text: str) -> str | None:
    """The first line of a `calc`-prompt answer when it is a calculation (`1,250 - 75`)."""
    first = next((line.strip() for line in text.splitlines() if line.strip()), "")
    bare = first.rstrip(".").strip("`'\" ")
    return bare if is_calculation(bare) else None


def derivation_of(text: str, article: str, prompt: str, question: str = "") -> Derivation | None:
    """The derivation an answer holds, None for a stated one. Under the `calc` prompt the
    calculator gives the result: of a bare calculation, or of the calculation in a
    `RESULT = EXPRESSION` line (a result the model wrote is not read; docs/NORMALIZER.md,
    "Calculations"), and as its size where `question` asks for no change. Under the other
    prompts a `RESULT = EXPRESSION` line is confirmed as written. Either way a calculation that
    does not perform the operation the question asks for is refused (`verify.operation`)."""
    line = working_line(text)
    calc = None
    if prompt == CALC:
        calc = expression_of(line) if line is not None else calculation_line(text)
    if calc is not None:
        derived = confirm_expression(calc, article)
        derived = derived if CHANGE_QUESTION.search(question) else magnitude(derived)
    elif line is not None:
        derived = confirm_derivation(line, article)
    else:
        return None
    mismatch = operation_mismatch(question, derived.expression) if derived.confirmed else ""
    return replace(derived, confirmed=False, reason=mismatch) if mismatch else derived


def derived_scale(article: str, d: Derivation, value: Quantity) -> Quantity | None:
    """A derived result in its operands' table scale, as `scaled_reading` gives a stated cell:
    `142.9 - 120.5` over cells under "$ in millions" is $22.4 million; where no operand's cell
    states a scale but every operand is a table body cell, the one scale the article states
    (`proposals.operands_scale`, the rule a proposal's result is read by), so the calculator's
    answer and the proposals' carry the same scale. Only for a sum, a difference
    or an average (a ratio's scale cancels); None otherwise, and the result stays as computed."""
    if value.unit in ("%", "pp") or shape(d.expression) not in ("sum", "difference", "average"):
        return None
    read = [o for o in d.operands if not o.constant]
    in_cells = bool(read) and all(in_body_cells(article, o.spans) for o in read)
    scale = operands_scale(article, [(o.spans, o.value) for o in read], in_cells)
    if scale is None:
        return None
    factor, unit = scale
    return Quantity(value.low * factor, value.high * factor, unit, value.qualifier)


def confirm_sample(
    sample: Sample, article: Article, role: str, model: str, temperature: float
) -> Answer:
    """The confirmed sample: its attempt, its value, and the value as written where the value is
    a bare figure read in its scaled table cell (`tables.scaled_reading`)."""
    q = sample.question
    g = sample.generation
    derivation = derivation_of(g.text, article.text, sample.prompt, q.text)
    # a derivation's answer is its result; the working is its evidence, never a candidate
    said = derivation.result_text if derivation and derivation.result_text else g.text
    found = confirm_text(said, article.text, q.text, q.kind)
    best = found.best
    value = best.value if best else None
    written = None
    if value is not None and found.confirmed:
        scaled = scaled_reading(article.text, found.spans, value)
        if scaled is not None:
            value, written = scaled, value
    elif isinstance(value, Quantity) and derivation is not None and derivation.confirmed:
        scaled = derived_scale(article.text, derivation, value)
        if scaled is not None:
            value, written = scaled, value
    reason = found.reason
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
        candidates=tuple(c.value.canonical() for c in found.extraction.candidates),
        confirmed=found.confirmed,
        spans=found.spans,
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
    return Answer(attempt, value, written)


def confirm_samples(
    samples: Sequence[Sample], article: Article, role: str, model: str, temperature: float
) -> list[Answer]:
    """One question's samples, each read and confirmed against its article."""
    return [confirm_sample(s, article, role, model, temperature) for s in samples]
