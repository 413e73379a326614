"""Which features help the selector: out-of-fold accuracy of feature subsets on the fitting sets.

    factqa bench fit feature-sets SQUAD_V1_DEV_JSON SQUAD_V2_DEV_JSON --tatqa TATQA_DEV_JSON
                                  [--large-evidence] [--results-md docs/RESULTS.md] [--write]

The same fitting rows, folds and threshold rule as `factqa bench fit selector` (five folds
grouped by title; one threshold, the one that maximises the mean over the fitting sets of their
question accuracy), for each feature set: the earlier 13, all the shipped ones, all but each of
the six added for tables, periods and abstention, and the earlier 13 with the two period
features that carry the most. Only fitting questions are read; nothing here is fitted on an
evaluation question.

`--large-evidence` adds `large_evidence`, the large model's evidence-only check of each
candidate (`experiment/evaluate/large_check.py`: the logistic of its margin over "unknown" on
its own sentence or table row; 0 where it was not scored), and the sets with it. The scores go
through the benchmarks' generation cache (outputs/bench/.cache), so a second run loads no model.
A feature is worth shipping only if it raises the mean out of fold; the large model's also
costs a large-model call for every question the selector sees.

With `--write`, writes the section `feature-sets` of docs/RESULTS.md; the last line printed is
machine-readable.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from experiment.bench.app import command
from experiment.bench.fit.rows import (
    THRESHOLDS,
    LargeEvidence,
    Row,
    fitting_rows,
    matrix,
    question_accuracy,
    set_means,
)
from experiment.bench.harness import (
    RESULTS_MD,
    LargeEvidenceOpt,
    ResultsMdOpt,
    SquadV1Arg,
    SquadV2Arg,
    TatqaOpt,
    WriteOpt,
    finish,
)
from experiment.bench.sections import Record, measured, renders
from experiment.evaluate.features import FEATURES
from experiment.evaluate.large_check import LARGE_EVIDENCE as LARGE
from experiment.evaluate.selector import out_of_fold
from experiment.report.tables import markdown_table

SECTION = "feature-sets"
EARLIER = FEATURES[:13]  # before tables, periods and abstention (issue 26)
ADDED = FEATURES[13:]


def feature_sets(large: bool) -> list[tuple[str, tuple[str, ...]]]:
    sets = [
        (f"the earlier {len(EARLIER)}", EARLIER),
        (f"all {len(FEATURES)} (shipped)", FEATURES),
        *((f"all but `{f}`", tuple(g for g in FEATURES if g != f)) for f in ADDED),
        (
            f"the earlier {len(EARLIER)} + `period_other`, `period_absent`",
            (*EARLIER, "period_other", "period_absent"),
        ),
    ]
    if large:
        sets += [
            (f"all {len(FEATURES)} + `{LARGE}`", (*FEATURES, LARGE)),
            (f"the earlier {len(EARLIER)} + `{LARGE}`", (*EARLIER, LARGE)),
        ]
    return sets


def evaluate(
    rows: list[Row], questions: list[str], sets: Sequence[str], features: Sequence[str]
) -> tuple[float, list[float]]:
    """The threshold and each fitting set's out-of-fold accuracy at it, for one feature set."""
    known = [r.features["logprob"] for r in rows if r.features["logprob"] is not None]
    impute = {"logprob": float(np.mean(known)) if known else 0.0}
    x = matrix(rows, impute, features)
    y = np.array([r.right for r in rows], dtype=int)
    oof = out_of_fold(x, y, np.array([r.cluster for r in rows]))
    threshold = THRESHOLDS[int(np.argmax(set_means(rows, oof, questions, sets)))]
    parts = [[line for line in questions if line.startswith(f"{name}:")] for name in sets]
    return threshold, [question_accuracy(rows, oof, threshold, part) for part in parts]


@command("feature-sets", fit=True)
def feature_sets_command(
    squad_v1: SquadV1Arg,
    squad_v2: SquadV2Arg,
    tatqa: TatqaOpt = None,
    large_evidence: LargeEvidenceOpt = False,
    results: ResultsMdOpt = RESULTS_MD,
    write: WriteOpt = False,
) -> None:
    """Which features help the selector: out-of-fold accuracy of feature subsets on the fitting
    sets; with --write, writes the `feature-sets` section of docs/RESULTS.md."""
    extra = LargeEvidence() if large_evidence else None
    rows, counts, questions = fitting_rows(squad_v1, squad_v2, tatqa, extra)
    sets = list(counts)
    table = []
    for label, features in feature_sets(large_evidence):
        threshold, accs = evaluate(rows, questions, sets, features)
        table.append({"features": label, "threshold": threshold, "accuracy": accs})
        print(f"{label}: mean {float(np.mean(accs)):.3f}", flush=True)
    figures: dict = {  # type: ignore[type-arg]
        "sets": {s: counts[s] for s in sets}, "candidates": len(rows), "rows": table,
    }  # fmt: skip
    if large_evidence:
        alone = set_means(rows, np.array([r.features[LARGE] for r in rows]), questions, sets)
        figures["evidence"] = {
            "calls": extra.calls if extra else 0,
            "at_zero": alone[THRESHOLDS.index(0.5)],
            "best_threshold": THRESHOLDS[int(np.argmax(alone))],
            "best_mean": max(alone),
        }
    command_line = (
        "factqa bench fit feature-sets PATH/TO/dev-v1.1.json PATH/TO/dev-v2.0.json"
        + (" --tatqa PATH/TO/tatqa_dataset_dev.json" if tatqa else "")
        + (" --large-evidence" if large_evidence else "")
        + " --write"
    )
    finish(results, measured(SECTION, command_line, figures), write)


@renders(SECTION, "fitted")
def section(record: Record) -> str:
    """docs/RESULTS.md's `feature-sets` section from its record; its machine-readable line
    last."""
    f = record.figures
    sets = list(f["sets"])
    means = {r["features"]: float(np.mean(r["accuracy"])) for r in f["rows"]}
    rows = [
        [r["features"], f"{r['threshold']:.2f}", *(f"{a:.3f}" for a in r["accuracy"]),
         f"{means[r['features']]:.3f}"]
        for r in f["rows"]
    ]  # fmt: skip
    shipped = means[f"all {len(FEATURES)} (shipped)"]
    best = max(means.values())
    line = f"features_shipped_mean={shipped:.3f} features_best_mean={best:.3f}"
    parts = [
        f"Feature sets on the fitting data only: out-of-fold accuracy on {', '.join(sets)} "
        f"({', '.join(str(n) for n in f['sets'].values())} questions; {f['candidates']} "
        f"candidates) at the threshold that maximises their mean. `{record.command}` (commit "
        f"`{record.commit}`, {record.date})",
        "\n".join(markdown_table(["features", "threshold", *sets, "mean"], rows)),
    ]
    if "evidence" in f:
        e = f["evidence"]
        with_large = means[f"all {len(FEATURES)} + `{LARGE}`"]
        t = e["best_threshold"]
        margin = -math.inf if t <= 0 else math.log(t / (1 - t))
        line += (
            f" features_large_evidence_mean={with_large:.3f} evidence_threshold={t:.2f}"
            f" evidence_margin={margin:.2f}"
        )
        parts += [
            f"With the large model's evidence check: mean {with_large:.3f} against "
            f"{shipped:.3f} shipped ({e['calls']} scoring calls made now; the rest came from "
            "the cache).",
            "The evidence check on its own (`large-checks-evidence`: the largest margin over "
            f'"unknown", abstaining below a threshold): at margin 0 the mean is '
            f"{e['at_zero']:.3f}; the best threshold on the logistic of the margin is {t:.2f} "
            f"(margin {margin:.2f} nats), mean {e['best_mean']:.3f}. `EVIDENCE_MARGIN` in "
            "experiment/evaluate/large_check.py is that margin.",
        ]
    return "\n\n".join([*parts, f"`{line}`"])
