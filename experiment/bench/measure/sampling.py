"""Sampling cost on the bundled corpus with the default models, measured side by side in one run.

    factqa bench sampling [--quick] [--k 10] [--backend batched|llama] [--write]

For the backend under test (default: batched, the default of `factqa run`):
- ratio A: wall time of k samples / one greedy answer, same prompt, both from a fresh context;
- ratio C: one article's questions answered in a row, article prefix reused / context reset
  before each question;
- ratio D: small-verified@k per question (k samples, extraction, verification) / large@1 per
  question, both with prefix reuse as in a run;
- overhead: backend wall time / llama.cpp's own prompt-eval + eval time for the same calls;
and, comparing the two backends:
- ratio B: k samples decoded together (batched) / k sequential calls (llama, prefix cache on),
  the article's questions in a row for both;
- identical: questions whose k greedy samples equal the one greedy answer decoded alone;
- peak_rss_mib: peak resident memory of this process (the models are loaded in turn).

With `--write`, writes its section of docs/RESULTS.md; the last line printed is machine-readable.
Ratio D with adaptive sampling, on SQuAD v1.1 and the bundled corpus, is measured by factqa bench
adaptive.
"""

from __future__ import annotations

import gc
import resource
import time
from typing import Annotated, Any

import typer

from experiment.base.errors import ConfigError
from experiment.bench.app import command
from experiment.bench.harness import RESULTS_MD, ROOT, WriteOpt, corpus, finish
from experiment.bench.sections import Record, measured, renders
from experiment.config import RunConfig
from experiment.evaluate.confirm import confirm_sample
from experiment.evaluate.methods import REFERENCE, VERIFIED
from experiment.generate.models.base import GREEDY, SamplingParams
from experiment.generate.models.catalog import DEFAULT_LARGE, DEFAULT_SMALL
from experiment.generate.prompts import messages_for
from experiment.generate.sampling import Sample, derive_seed
from experiment.runner import llama_factory

SECTION = "sampling"
ARTICLE = "a02-q3-results"


def timed(backend, messages, params, seeds, fresh: bool):  # type: ignore[no-untyped-def]
    if fresh:
        backend.reset()
    t0 = time.perf_counter()
    out = backend.generate(messages, params, seeds)
    return time.perf_counter() - t0, out


def _run(quick: bool, k: int, backend: str, write: bool) -> int:
    articles, every = corpus(ROOT / "articles", ROOT / "questions")
    questions = [q for q in every if q.article_id == ARTICLE]
    questions = questions[:4] if quick else questions
    article = articles[ARTICLE]
    params = SamplingParams()
    n = len(questions)

    def load(spec: str, kind: str):  # type: ignore[no-untyped-def]
        return llama_factory(spec, RunConfig(k=k, backend=kind))

    def seeds(q) -> list[int]:  # type: ignore[no-untyped-def]
        return [derive_seed(0, q.id, i) for i in range(k)]

    # B and identity: both backends, the article's questions in a row
    times = {}
    identical = 0
    for name in ("batched", "llama"):
        tried = load(DEFAULT_SMALL, name)
        tried.reset()
        times[name] = sum(
            timed(tried, messages_for(article, q), params, seeds(q), False)[0] for q in questions
        )
        if name == backend:
            for q in questions:
                m = messages_for(article, q)
                alone = tried.generate(m, GREEDY, [0])[0].text
                identical += all(g.text == alone for g in tried.generate(m, GREEDY, seeds(q)))
        del tried
        gc.collect()

    small = load(DEFAULT_SMALL, backend)
    # A: k samples vs one greedy answer, each from a fresh context
    t_one = sum(timed(small, messages_for(article, q), GREEDY, [0], True)[0] for q in questions)
    t_k = sum(timed(small, messages_for(article, q), params, seeds(q), True)[0] for q in questions)

    # C: prefix reused vs reset before each question
    small.reset()
    t_reuse = sum(timed(small, messages_for(article, q), GREEDY, [0], False)[0] for q in questions)
    t_reset = sum(timed(small, messages_for(article, q), GREEDY, [0], True)[0] for q in questions)

    # D and overhead: the small-verified@k pipeline per question, as in a run
    small.reset()
    small.reset_perf()
    t_pipe = t_backend = 0.0
    for q in questions:
        t0 = time.perf_counter()
        dt_gen, gens = timed(small, messages_for(article, q), params, seeds(q), False)
        for i, g in enumerate(gens):
            confirm_sample(Sample(q, i, seeds(q)[i], g, False), article, "small", small.name, 0.7)
        t_pipe += time.perf_counter() - t0
        t_backend += dt_gen
    overhead = t_backend / (small.perf_ms() / 1000)
    del small
    gc.collect()

    large = load(DEFAULT_LARGE, backend)
    large.reset()
    t_large = sum(timed(large, messages_for(article, q), GREEDY, [0], False)[0] for q in questions)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    figures = {
        "backend": backend, "k": k, "questions": n, "article": ARTICLE, "small": DEFAULT_SMALL,
        "large": DEFAULT_LARGE, "seconds": {
            "one": t_one, "k": t_k, "batched": times["batched"], "llama": times["llama"],
            "reuse": t_reuse, "reset": t_reset, "pipeline": t_pipe, "large": t_large,
        }, "identical": identical, "overhead": overhead, "peak_rss_mib": peak,
    }  # fmt: skip
    command_line = f"factqa bench sampling{' --quick' if quick else ''} --k {k} --backend {backend}"
    finish(RESULTS_MD, measured(SECTION, command_line + " --write", figures), write)
    return 0


def ratios(f: dict[str, Any]) -> dict[str, float]:
    """Ratios A to D from the record's seconds."""
    t = f["seconds"]
    return {
        "A": t["k"] / t["one"],
        "B": t["batched"] / t["llama"],
        "C": t["reuse"] / t["reset"],
        "D": t["pipeline"] / t["large"],
    }


def line(f: dict[str, Any]) -> str:
    """The machine-readable line."""
    r = ratios(f)
    return (
        f"ratio_A={r['A']:.2f} ratio_B={r['B']:.2f} ratio_C={r['C']:.2f} "
        f"ratio_D={r['D']:.2f} overhead={f['overhead']:.2f} peak_rss_mib={f['peak_rss_mib']:.0f} "
        f"identical={f['identical']}/{f['questions']}"
    )


@renders(SECTION, "cost")
def section(record: Record) -> str:
    """docs/RESULTS.md's `sampling` section from its record."""
    f = record.figures
    t, r, k, n = f["seconds"], ratios(f), f["k"], f["questions"]
    return "\n".join(
        [
            f"## Sampling cost ({f['backend']} backend)",
            "",
            f"Command: `{record.command}` ({n} questions of `{f['article']}`, small "
            f"`{f['small']}`, large `{f['large']}`, 2 CPU cores; commit `{record.commit}`, "
            f"{record.date})",
            "",
            f"- ratio A, {k} samples / 1 greedy answer, fresh context each: **{r['A']:.2f}** "
            f"({t['k'] / n:.2f} s vs {t['one'] / n:.2f} s per question)",
            f"- ratio B, {k} samples batched / sequential: **{r['B']:.2f}** "
            f"({t['batched']:.1f} s vs {t['llama']:.1f} s for the {n} questions)",
            f"- greedy: {k} samples identical to the answer decoded alone on {f['identical']} of "
            f"{n} questions",
            f"- ratio C, one article's questions with prefix reuse / reset before each: "
            f"**{r['C']:.2f}** ({t['reuse']:.1f} s vs {t['reset']:.1f} s)",
            f"- ratio D, {VERIFIED.name(k)} / {REFERENCE} per question: **{r['D']:.2f}** "
            f"({t['pipeline'] / n:.2f} s vs {t['large'] / n:.2f} s)",
            f"- overhead, backend wall time / llama.cpp eval time: **{f['overhead']:.2f}**",
            f"- peak resident memory, the models loaded in turn: **{f['peak_rss_mib']:,.0f} MiB**",
            "",
            f"`{line(f)}`",
        ]
    )


@command("sampling")
def sampling_command(
    quick: Annotated[
        bool, typer.Option("--quick", help="4 questions instead of the article's 13.")
    ] = False,
    k: Annotated[int, typer.Option("--k", help="Samples per question.")] = 10,
    backend: Annotated[str, typer.Option(help="batched or llama.")] = RunConfig.backend,
    write: WriteOpt = False,
) -> None:
    """Sampling cost on the bundled corpus with the default models, measured side by side in
    one run."""
    if backend not in ("batched", "llama"):
        raise ConfigError(f"--backend {backend}: give batched or llama", field="backend")
    code = _run(quick, k, backend, write)
    if code:
        raise typer.Exit(code)
