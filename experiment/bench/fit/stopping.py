"""Choose the stopping rules' levels on the fitting half of SQuAD (never on a reported sample).

    factqa bench fit stopping SQUAD_V1_DEV_JSON SQUAD_V2_DEV_JSON [--rounds 3,3] [--write]

The questions are the selector's fitting set (`factqa bench fit selector`: 400 SQuAD v1.1 and 150
SQuAD v2.0 questions of the fitting titles), with the 10 samples per question that run drew at
once; round r of the adaptive schedule is stood in for by those samples' indices (the same
seeds, decoded in another batch). Each rule is replayed with `StopRule.should_stop`, the
function `factqa run --adaptive` calls. For each family the level kept is the one with the
fewest samples whose small-verified@10 and small-selected@10 accuracy both stay within 1 point
of all ten samples. Prints the grid and the choice, and with `--write` writes them to the
`adaptive-fit` section of docs/RESULTS.md.
"""

from __future__ import annotations

from typing import Annotated

import typer

from experiment.bench.app import command
from experiment.bench.fit.sets import fitting_samples, fitting_sets
from experiment.bench.harness import (
    RESULTS_MD,
    ResultsMdOpt,
    SquadV1Arg,
    SquadV2Arg,
    WriteOpt,
    finish,
)
from experiment.bench.sections import Record, measured, renders
from experiment.evaluate.methods import SELECTED, VERIFIED, answer_methods
from experiment.evaluate.stopping import parse_rounds, parse_rule
from experiment.report.tables import markdown_table

SECTION = "adaptive-fit"
GRID = {
    "window": ("window:2", "window:3", "window:4", "window:2+none", "window:3+none"),
    "posterior": ("posterior:0.8", "posterior:0.9", "posterior:0.95", "posterior:0.9+none"),
    "selector": ("selector:0.6", "selector:0.7", "selector:0.8", "selector:0.9"),
}
TOLERANCE = 0.01
K = 10


@command("stopping", fit=True)
def fit_stopping(
    squad_v1: SquadV1Arg,
    squad_v2: SquadV2Arg,
    rounds: Annotated[str, typer.Option(help="The adaptive schedule's rounds.")] = "3,3",
    results: ResultsMdOpt = RESULTS_MD,
    write: WriteOpt = False,
) -> None:
    """Choose the stopping rules' levels on the fitting half of SQuAD (never on a reported
    sample); with --write, writes the `adaptive-fit` section of docs/RESULTS.md."""
    schedule = parse_rounds(rounds, K)  # refused before a sample is drawn
    data = [
        (q, articles[q.article_id], small[q.id])
        for _, articles, questions, small in fitting_samples(fitting_sets(squad_v1, squad_v2))
        for q in questions
    ]

    def accuracy(drawn: dict[str, int]) -> tuple[float, float]:
        ver = sel = 0
        for q, art, samples in data:
            got = answer_methods(q, samples[: drawn[q.id]], samples[0], K, art)
            ver += got[VERIFIED.name(K)].correct
            sel += got[SELECTED.name(K)].correct
        return ver / len(data), sel / len(data)

    base = accuracy({q.id: K for q, _, _ in data})
    rows = []
    chosen = {}
    for family, specs in GRID.items():
        best: tuple[float, str] | None = None
        for spec in specs:
            rule = parse_rule(spec)
            drawn = {}
            for q, art, samples in data:
                upto = 0
                for size in schedule:
                    upto += size
                    if upto < K and rule.should_stop(q, art, samples[:upto]):
                        break
                drawn[q.id] = upto
            ver, sel = accuracy(drawn)
            mean = sum(drawn.values()) / len(drawn)
            early = sum(n < K for n in drawn.values()) / len(drawn)
            rows.append({"rule": spec, "samples": mean, "early": early, "verified": ver,
                         "selected": sel})  # fmt: skip
            print(f"{spec}: {mean:.2f} samples, verified {ver:.3f}, selected {sel:.3f}", flush=True)
            ok = ver >= base[0] - TOLERANCE and sel >= base[1] - TOLERANCE
            if ok and (best is None or mean < best[0]):
                best = (mean, spec)
        chosen[family] = best[1] if best else "none"
    figures = {"rounds": rounds, "schedule": list(schedule), "questions": len(data), "k": K,
               "tolerance": TOLERANCE, "base": {"verified": base[0], "selected": base[1]},
               "rows": rows, "chosen": chosen}  # fmt: skip
    command_line = (
        f"factqa bench fit stopping PATH/TO/dev-v1.1.json PATH/TO/dev-v2.0.json --rounds {rounds} "
        "--write"
    )
    finish(results, measured(SECTION, command_line, figures), write)
    print("chosen: " + " ".join(f"{f}={s}" for f, s in chosen.items()))


@renders(SECTION, "fitted")
def section(record: Record) -> str:
    """docs/RESULTS.md's `adaptive-fit` section from its record."""
    f = record.figures
    base, k = f["base"], f["k"]
    ver, sel = VERIFIED.name(k), SELECTED.name(k)
    rows = [
        [f"`{r['rule']}`", f"{r['samples']:.2f}", f"{r['early']:.0%}",
         f"{r['verified']:.3f} ({r['verified'] - base['verified']:+.3f})",
         f"{r['selected']:.3f} ({r['selected'] - base['selected']:+.3f})"]
        for r in f["rows"]
    ]  # fmt: skip
    header = ["rule", "samples per question", "stopped early", "verified (diff)", "selected (diff)"]
    table = "\n".join(markdown_table(header, rows))
    chosen = ", ".join(f"`{s}`" for s in f["chosen"].values())
    return f"""## Adaptive sampling: choosing the rules on the fitting half

Command: `{record.command}`. Commit `{record.commit}`, {record.date}. {f["questions"]} questions \
of the fitting titles (the selector's fitting set), rounds {f["schedule"]}; all ten samples: \
{ver} {base["verified"]:.3f}, {sel} {base["selected"]:.3f}. Kept per family: the fewest samples \
with both accuracies within {f["tolerance"] * 100:.0f} point of all ten.

{table}

Chosen: {chosen}."""
