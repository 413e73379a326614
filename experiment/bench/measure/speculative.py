"""Speculative decoding of the large model's greedy answers, side by side in one run.

    factqa bench speculative [--quick] [--large MODEL] [--draft MODEL] [--write]

For every bundled question (the first 24 with --quick) the large model answers greedily three
ways, each on its own backend with the article prefix reused as in a run: plain decoding,
prompt-lookup drafting, and draft-model drafting (the small model proposes 8 tokens, the large
one checks them in one batch). Prints wall time, answer tokens per second, the acceptance rate
of drafted tokens, the speed-up against plain, and how many answers are identical to plain.
With `--write`, writes its section of docs/RESULTS.md; the last line is machine-readable.
"""

from __future__ import annotations

import time
from typing import Annotated, Any

import typer

from experiment.bench.app import command
from experiment.bench.harness import RESULTS_MD, WriteOpt, corpus, finish
from experiment.bench.sections import Record, measured, renders
from experiment.config import RunConfig
from experiment.evaluate.methods import REFERENCE
from experiment.generate.models.base import GREEDY, SamplingParams
from experiment.generate.models.batched import DRAFT_LENGTH, BatchedLlamaBackend
from experiment.generate.models.store import resolve
from experiment.generate.prompts import messages_for
from experiment.generate.sampling import article_order
from experiment.report.tables import markdown_table

SECTION = "speculative"


def _run(quick: bool, large: str, draft: str, write: bool) -> None:
    cfg = RunConfig()
    articles, questions = corpus()
    questions = article_order(questions)
    if quick:
        questions = questions[:24]
    prompts = [messages_for(articles[q.article_id], q) for q in questions]
    params = SamplingParams(GREEDY.temperature, GREEDY.top_p, GREEDY.top_k, cfg.max_tokens)
    large_model = resolve(large)

    def make(mode: str) -> BatchedLlamaBackend:
        drafter = (
            BatchedLlamaBackend(resolve(draft), n_ctx=cfg.n_ctx, n_seq_max=1)
            if mode == "draft"
            else None
        )
        return BatchedLlamaBackend(
            large_model, n_ctx=cfg.n_ctx, n_seq_max=1, speculative=mode, drafter=drafter
        )

    results = {}
    for mode in ("off", "lookup", "draft"):
        backend = make(mode)
        backend.generate(prompts[0], params, [0])  # load and warm up; then from a clean cache
        backend.reset()
        if backend.drafter is not None:
            backend.drafter.reset()
        backend.drafted = backend.accepted = 0
        t0 = time.perf_counter()
        out = [backend.generate(m, params, [0])[0] for m in prompts]
        wall = time.perf_counter() - t0
        tokens = sum(g.completion_tokens for g in out)
        results[mode] = (wall, tokens, [g.text for g in out], backend.drafted, backend.accepted)
        del backend

    plain = results["off"][2]
    modes = {
        mode: {"wall": wall, "tokens": tokens, "drafted": drafted, "accepted": accepted,
               "identical": sum(a == b for a, b in zip(text, plain, strict=True))}
        for mode, (wall, tokens, text, drafted, accepted) in results.items()
    }  # fmt: skip
    figures = {"questions": len(questions), "large": large, "draft": draft,
               "draft_length": DRAFT_LENGTH, "max_tokens": cfg.max_tokens,
               "modes": modes}  # fmt: skip
    command_line = f"factqa bench speculative{' --quick' if quick else ''} --write"
    finish(RESULTS_MD, measured(SECTION, command_line, figures), write)


def line(f: dict[str, Any]) -> str:
    """The machine-readable line: each drafting mode's speed-up, and whether every answer
    equals plain decoding's."""
    m, n = f["modes"], f["questions"]
    same = all(m[mode]["identical"] == n for mode in ("lookup", "draft"))
    return (
        f"lookup_speedup={m['off']['wall'] / m['lookup']['wall']:.2f} "
        f"draft_speedup={m['off']['wall'] / m['draft']['wall']:.2f} "
        f"identical={'true' if same else 'false'}"
    )


@renders(SECTION, "cost")
def section(record: Record) -> str:
    """docs/RESULTS.md's `speculative` section from its record."""
    f = record.figures
    n, plain = f["questions"], f["modes"]["off"]["wall"]
    rows = []
    for mode, got in f["modes"].items():
        wall, drafted, accepted = got["wall"], got["drafted"], got["accepted"]
        rate = accepted / drafted if drafted else float("nan")
        rows.append(
            [mode, f"{wall:.1f}", got["tokens"], f"{got['tokens'] / wall:.2f}", drafted,
             f"{accepted} ({rate:.0%})", f"{plain / wall:.2f}x", f"{got['identical']}/{n}"]
        )  # fmt: skip
    header = ["mode", "wall s", "answer tokens", "tokens / s", "drafted", "accepted", "speed-up",
              "identical to plain"]  # fmt: skip
    return "\n".join(
        [
            f"## Speculative decoding of {REFERENCE}: {n} bundled questions",
            "",
            f"Command: `{record.command}` (commit `{record.commit}`, {record.date}). Large "
            f"`{f['large']}`, drafter `{f['draft']}` ({f['draft_length']} tokens per draft), "
            f"greedy, max {f['max_tokens']} answer tokens, 2 CPU cores, article prefix reused; "
            "wall time includes reading each prompt, which is the same in every mode.",
            "",
            *markdown_table(header, rows),
            "",
            f"`{line(f)}`",
        ]
    )


@command("speculative")
def speculative_command(
    quick: Annotated[bool, typer.Option("--quick", help="Fewer questions.")] = False,
    large: Annotated[str, typer.Option(help="The large model.")] = RunConfig.large,
    draft: Annotated[str, typer.Option(help="The drafting model.")] = RunConfig.small,
    write: WriteOpt = False,
) -> None:
    """Speculative decoding of the large model's greedy answers, side by side in one run."""
    _run(quick, large, draft, write)
