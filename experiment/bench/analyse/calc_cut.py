"""`factqa bench calc-cut`: how many of large@1's calculation answers the token limit cut.

    factqa bench calc-cut --drop PATH/TO/drop_dev.jsonl.gz --tatqa PATH/TO/tatqa_dataset_dev.json

Over the committed runs made with the `auto` prompt (DROP, TAT-QA dev, the bundled corpus; the
public ones' questions imported again from their data files, since results keep no question
text): the questions the run routes to the calculation prompt (`proposal_pool.is_computed`),
and the share of large@1's answers to them whose completion reached the run's token limit (a
calculation cut there may be cut mid-expression). `--write` keeps the figures as the record
the `clean-test` section reads (`large_calc_cut`).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Annotated

import typer

from experiment.base.errors import InputError
from experiment.bench.app import command
from experiment.bench.clean_test import CALC_CUT
from experiment.bench.harness import RESULTS_MD, DataFileOpt, ResultsMdOpt, WriteOpt, publish
from experiment.bench.presets import import_preset
from experiment.bench.results import RESULTS
from experiment.bench.sections import measured
from experiment.corpus import load_articles, load_questions
from experiment.evaluate.proposal_pool import is_computed
from experiment.importers.looked import mark
from experiment.report.results import load_results


def cut(preset: str, data: Path | None, results: Path, tmp: Path) -> tuple[int, int]:
    """(calculation questions, large@1 answers to them that reached the token limit)."""
    res = load_results(results / preset)
    src = res.source
    corpus = import_preset(preset, data, tmp / preset, src.seed, src.half, src.sample or None,
                           src.unanswerable)  # type: ignore[arg-type]  # fmt: skip
    questions = load_questions(corpus.questions, load_articles(corpus.articles))
    config = res.run.manifest.config
    routed = {q.id for q in questions if is_computed(q, config.prompt)}
    large = res.samples[(res.samples.role == "large") & res.samples.question_id.isin(routed)]
    limit = config.max_tokens
    return len(large), int((large.completion_tokens.astype(int) >= limit).sum())


@command(CALC_CUT)
def calc_cut(
    drop: DataFileOpt = None,
    tatqa: DataFileOpt = None,
    results: Annotated[Path, typer.Option("--results-dir")] = RESULTS,
    write: WriteOpt = False,
    results_md: ResultsMdOpt = RESULTS_MD,
) -> None:
    """The share of large@1's calculation answers that reached the token limit, per run."""
    runs = {"bundled": None, "drop": drop, "tatqa-dev": tatqa}
    per: dict[str, list[int]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for preset, data in runs.items():
            if (preset == "bundled" or data is not None) and (results / preset).is_dir():
                n, hit = cut(preset, data, results, Path(tmp))
                per[preset] = [n, hit]
                mark(preset, "development", f"large_calc_cut={hit / n if n else 0:.3f}")
                print(f"{preset}: {hit} of {n} calculation answers of large@1 reached the limit")
    if not per:
        raise InputError(
            "no committed results of "
            + ", ".join(p for p, d in runs.items() if p == "bundled" or d),
            path=results,
            fix="give --results-dir the folder of the committed results (results/)",
        )
    total, hit = sum(v[0] for v in per.values()), sum(v[1] for v in per.values())
    share = round(hit / total, 3) if total else 0.0
    print(f"large_calc_cut={share:.3f} ({hit} of {total})")
    if write:
        figures = {"cut_share": f"{share:.3f}", "per_run": per}
        command_line = "factqa bench calc-cut --drop PATH/TO/drop_dev.jsonl.gz --tatqa " + (
            "PATH/TO/tatqa_dataset_dev.json --write"
        )
        publish(results_md, measured(CALC_CUT, command_line, figures))
