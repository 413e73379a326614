"""The calculator's own record over benchmark runs (issue 27): per run and model, how often an
answer came with a calculation, how often the checker confirmed it, how often a confirmed one is
right by the gold (the checker's precision), what the refused ones were, and the accuracy on
stated and computed questions.

    factqa bench calculator outputs/bench/RUN [outputs/bench/RUN ...]
    factqa bench calculator --drop RUN --tatqa RUN --squad FIGURE_RUN AUTO_RUN \
                            --bundled FIGURE_RUN AUTO_RUN

The second form prints the issue's machine-readable line: computed-question accuracy of large@1
and small-derived@10 on DROP and TAT-QA (their `--prompt auto` runs), the small model's
derivation precision on DROP, and each stated-question delta of the auto prompt against the
figure prompt: the largest loss among large@1, small-verified@10 and small-derived@10.

Each RUN is a finished run folder of `factqa bench run` (its manifest names its questions and
articles); `--prompt auto` runs are the calculator's, and `--half fit` runs are the fitting halves.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from experiment.base.errors import ConfigError
from experiment.bench.app import command
from experiment.bench.looks import evaluation_run
from experiment.corpus import load_articles, load_questions
from experiment.report.analysis import derivation_record, stated_computed

METHODS = ("large@1", "small-verified@10", "small-derived@10", "small-pass@10")


def record(run_dir: Path) -> list[str]:
    """The Markdown lines of one run: a row per model, then its refusals."""
    run = evaluation_run(run_dir)
    cfg = run.manifest.config
    articles = load_articles(cfg.articles)
    qs = {q.id: q for q in load_questions(cfg.questions, articles)}
    split = stated_computed(run.questions, [m for m in METHODS if run.has(m)])
    scores = " ".join(f"{r.method} {r.stated:.3f}/{r.computed:.3f}" for r in split.itertuples())
    lines = [
        f"- `{run_dir.name}` ({split.attrs['n_stated']} stated, {split.attrs['n_computed']} "
        f"computed; accuracy stated/computed: {scores})"
    ]
    for role in ("small", "large"):
        rec = derivation_record(run.attempts[run.attempts.role == role], qs)
        precision = rec["derived_right"] / rec["derived"] if rec["derived"] else float("nan")
        refused = sorted(
            ((k.removeprefix("refused: "), v) for k, v in rec.items() if k.startswith("refused")),
            key=lambda kv: -kv[1],
        )
        lines.append(
            f"  - {role}: {rec['samples']} samples, {rec['with_working']} with a calculation, "
            f"{rec['derived']} confirmed, {rec['derived_right']} of them right (precision "
            f"{precision:.3f}); refused: " + ("; ".join(f"{k} {v}" for k, v in refused) or "none")
        )
    return lines


def _split(run_dir: Path) -> dict[tuple[str, str], float]:
    run = evaluation_run(run_dir)
    split = stated_computed(run.questions, [m for m in METHODS if run.has(m)])
    return {(r.method, part): getattr(r, part) for r in split.itertuples() for part in PARTS}


PARTS = ("stated", "computed")


def _precision(run_dir: Path) -> float:
    run = evaluation_run(run_dir)
    cfg = run.manifest.config
    qs = {q.id: q for q in load_questions(cfg.questions, load_articles(cfg.articles))}
    rec = derivation_record(run.attempts[run.attempts.role == "small"], qs)
    return rec["derived_right"] / rec["derived"] if rec["derived"] else float("nan")


def stated_delta(figure: Path, auto: Path) -> float:
    """The auto prompt's largest loss on stated questions against the figure prompt."""
    a, f = _split(auto), _split(figure)
    return min(a[(m, "stated")] - f[(m, "stated")] for m in METHODS[:3])


def summary_line(
    drop: Path, tatqa: Path, squad: tuple[Path, Path], bundled: tuple[Path, Path]
) -> str:
    d, t = _split(drop), _split(tatqa)
    pairs = {
        "drop_computed_large": d[("large@1", "computed")],
        "drop_computed_derived": d[("small-derived@10", "computed")],
        "drop_derivation_precision": _precision(drop),
        "tatqa_arith_large": t[("large@1", "computed")],
        "tatqa_arith_derived": t[("small-derived@10", "computed")],
        "tatqa_derivation_precision": _precision(tatqa),
        "stated_delta_squad": stated_delta(*squad),
        "stated_delta_bundled": stated_delta(*bundled),
    }
    return " ".join(f"{k}={v:.3f}" for k, v in pairs.items())


@command("calculator")
def calculator(
    runs: Annotated[
        list[Path] | None, typer.Argument(help="Finished run folders, each reported.")
    ] = None,
    drop: Annotated[Path | None, typer.Option(help="DROP's `--prompt auto` run.")] = None,
    tatqa: Annotated[Path | None, typer.Option(help="TAT-QA's `--prompt auto` run.")] = None,
    squad: Annotated[
        tuple[Path, Path] | None, typer.Option(help="SQuAD's figure-prompt and auto runs.")
    ] = None,
    bundled: Annotated[
        tuple[Path, Path] | None, typer.Option(help="The bundled corpus's figure and auto runs.")
    ] = None,
) -> None:
    """The calculator's own record over benchmark runs: per run and model, answers with a
    calculation, confirmed ones and their precision, the refusals, and stated/computed accuracy;
    with --drop, the issue's machine-readable line."""
    for run_dir in runs or []:
        print("\n".join(record(run_dir)))
    if drop:
        if tatqa is None or squad is None or bundled is None:
            raise ConfigError("--drop needs --tatqa, --squad and --bundled too", field="drop")
        print(summary_line(drop, tatqa, squad, bundled))
