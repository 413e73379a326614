"""Do a run's samples depend on the thread count? The same prompts and seeds, one process.

    factqa bench threads [--model qwen2.5-coder-0.5b] [--questions 10] [--threads 1 2]

Loads the model once per thread count (batched backend, k = 10, the run's sampling settings),
draws the samples of the first N bundled questions, and prints, against the first thread count:
samples whose text differs and the largest difference of an answer's log-probability, with
llama.cpp's system info (the instruction sets its kernels use). docs/RELIABILITY.md records it.
"""

from __future__ import annotations

from typing import Annotated

import typer

from experiment.bench.app import command
from experiment.bench.harness import corpus
from experiment.config import RunConfig
from experiment.generate.models.base import SamplingParams
from experiment.generate.models.batched import BatchedLlamaBackend
from experiment.generate.models.store import resolve
from experiment.generate.prompts import messages_for
from experiment.report.machine import machine_facts


def _compare(model: str, questions: int, counts: list[int]) -> None:
    """Each thread count's samples of the same prompts and seeds, compared with the first's."""
    cfg = RunConfig()
    articles, drawn_from = corpus()
    asked = drawn_from[:questions]
    prompts = [messages_for(articles[q.article_id], q) for q in asked]
    params = SamplingParams(temperature=cfg.temperature, top_p=cfg.top_p, max_tokens=32)
    seeds = list(range(10))
    drawn = {}
    for n in counts:
        backend = BatchedLlamaBackend(resolve(model), n_threads=n)
        drawn[n] = [backend.generate(m, params, seeds) for m in prompts]
        del backend
    print(machine_facts().get("system_info", ""))
    base = counts[0]
    for n in counts[1:]:
        pairs = [
            (a, b)
            for qa, qb in zip(drawn[base], drawn[n], strict=True)
            for a, b in zip(qa, qb, strict=True)
        ]
        differ = sum(a.text != b.text for a, b in pairs)
        gap = max(abs((a.logprob or 0) - (b.logprob or 0)) for a, b in pairs if a.text == b.text)
        print(
            f"threads {base} vs {n}: {differ} of {len(pairs)} samples differ; "
            f"largest log-probability difference of an identical answer {gap:.2e}"
        )


@command("threads")
def threads_command(
    model: Annotated[str, typer.Option(help="The model.")] = RunConfig().small,
    questions: Annotated[int, typer.Option(help="Bundled questions drawn.", min=1)] = 10,
    threads: Annotated[
        list[int] | None,
        typer.Option(help="Thread counts compared; repeat it (default: 1, 2).", min=1),
    ] = None,
) -> None:
    """Do a run's samples depend on the thread count? The same prompts and seeds, one
    process."""
    _compare(model, questions, threads or [1, 2])
