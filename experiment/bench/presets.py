"""The benchmark presets: which sample of which data set a run is, how it is imported, what its
run is named, and the machine-readable line of its figures.

- squad-v1   SQuAD v1.1 dev, 300 figure/date questions of the evaluation titles, seed 0
- squad-v2   SQuAD v2.0 dev, 100 answerable + 100 unanswerable figure/date-looking questions of
             the evaluation titles
- drop       DROP dev, 200 figure/date questions of the evaluation passages
- tatqa-dev  TAT-QA dev, 200 questions of the evaluation part
- bundled    the bundled OrigoTech corpus (no data file)

The evaluation titles are the half the selector was not fitted on (importers/split.py).

Each preset names its prompt setting: `auto` (the calculation prompt for a question whose
wording asks for a computation, the figure prompt otherwise) where the data set asks computed
questions (DROP, TAT-QA, the bundled corpus), `figure` where every answer is a span of the
passage (SQuAD). The choice follows the kind of data set, as issue 40 asks, not a comparison of
the two on a reported sample; a run with the other setting is a variant.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from experiment.base.types import Question
from experiment.config import RunConfig
from experiment.evaluate.methods import (
    CASCADE_CHECK_20,
    CASCADE_DERIVED_20,
    CHECK_EVIDENCE,
    CHECK_WHOLE,
    DERIVED,
    LARGE_1,
    PASS,
    ROUTED,
    SELECTED,
    VERIFIED,
)
from experiment.generate.prompts import AUTO, FIGURE
from experiment.importers.service import import_dataset
from experiment.importers.split import Half
from experiment.report.analysis import derivation_record, stated_computed
from experiment.report.run import Run

BUNDLED_PRESET = "bundled"


@dataclass(frozen=True)
class Preset:
    fmt: str
    sample: int
    unanswerable: int | None
    title: str
    half: Half | None  # only the evaluation half of the titles (importers/split.py)
    line_prefix: str  # the machine-readable line's prefix
    prompt: str = FIGURE  # the prompt setting (generate/prompts.SETTINGS)

    @property
    def public(self) -> bool:
        """A public data set: its text stays out of the committed results."""
        return bool(self.fmt)


PRESETS = {
    "squad-v1": Preset("squad", 300, None, "SQuAD v1.1 dev, evaluation titles", "eval", "squad_v1"),
    "squad-v2": Preset("squad", 100, 100, "SQuAD v2.0 dev, evaluation titles", "eval", "squad_v2"),
    "drop": Preset("drop", 200, None, "DROP dev, evaluation passages", "eval", "drop", AUTO),
    "tatqa-dev": Preset("tatqa", 200, None, "TAT-QA dev, evaluation part", "eval", "tatqa", AUTO),
    BUNDLED_PRESET: Preset("", 0, None, "bundled OrigoTech corpus", None, "bundled", AUTO),
}


@dataclass(frozen=True)
class Imported:
    """Where a preset's articles and questions are (imported, or the bundled corpus)."""

    articles: Path
    questions: Path


def import_preset(
    preset: str,
    data: Path | None,
    out: Path,
    seed: int = 0,
    half: Half | None = None,
    sample: int | None = None,
    unanswerable: int | None = None,
    ids: frozenset[str] | None = None,
) -> Imported:
    """The preset's sample of `data`, imported into `out` (the same sample every time: the
    importers are deterministic given the seed); the bundled corpus as it is. `sample` and
    `unanswerable` override the preset's (a results folder records the ones it was run with);
    `ids` imports those questions of the evaluation half, whatever their number (a sealed
    sample: bench/sealed.py)."""
    p = PRESETS[preset]
    if not p.public:
        base = RunConfig()
        return Imported(base.articles, base.questions)
    if data is None:
        from experiment.base.errors import ConfigError

        raise ConfigError(f"the preset {preset} needs its data file", field="data")
    if ids is not None:
        imported = import_dataset(p.fmt, data, out, None, 0, None, True, "eval", ids=ids)
        return Imported(imported.articles, imported.questions)
    imported = import_dataset(
        p.fmt,
        data,
        out,
        sample or p.sample,
        seed,
        unanswerable if unanswerable is not None else p.unanswerable,
        True,
        half,
    )
    return Imported(imported.articles, imported.questions)


def questions_of(run: Run) -> dict[str, Question]:
    """A run's questions with their gold, from its questions table (empty gold where the table
    holds none: committed results of a public data set)."""
    out = {}
    for r in run.questions.itertuples():
        gold = tuple(g.strip() for g in str(r.gold).split(" | ")) if str(r.gold) else ()
        out[r.question_id] = Question(r.question_id, r.article_id, str(r.question), gold, r.kind)
    return out


def figures_line(preset: str, run: Run) -> str:
    """The preset's figures on one line, `name=value` pairs: each method's accuracy on stated
    questions (`PREFIX_dev_METHOD` for TAT-QA, as issue 26 names them; `PREFIX_stated_METHOD`
    elsewhere), on computed ones (`PREFIX_computed_METHOD`; TAT-QA `tatqa_arith_METHOD`), and
    the derivation rule's precision over the small model's samples (where the run has gold)."""
    k = run.k
    short = {
        "large": LARGE_1.name(k),
        "verified": VERIFIED.name(k),
        "derived": DERIVED.name(k),
        "selected": SELECTED.name(k),
        "pass": PASS.name(k),
        "cascade20": ROUTED[1].name(k),
        "cascade_derived20": CASCADE_DERIVED_20.name(k),
        "check": CHECK_EVIDENCE.name(k),
        "check_whole": CHECK_WHOLE.name(k),
        "cascade_check20": CASCADE_CHECK_20.name(k),
    }
    present = {key: m for key, m in short.items() if run.has(m)}
    split = stated_computed(run.questions, list(present.values())).set_index("method")
    prefix = PRESETS[preset].line_prefix if preset in PRESETS else preset.replace("-", "_")
    stated = "tatqa_dev" if preset == "tatqa-dev" else f"{prefix}_stated"
    computed = "tatqa_arith" if preset == "tatqa-dev" else f"{prefix}_computed"
    pairs = []
    for part, name in (("stated", stated), ("computed", computed)):
        for key, method in present.items():
            value = split.loc[method, part]
            if value == value:  # not NaN: the run has questions of this part
                pairs.append(f"{name}_{key}={value:.3f}")
    attempts: pd.DataFrame = run.attempts
    record = derivation_record(attempts[attempts.role == "small"], questions_of(run))
    pairs.append(f"{prefix}_with_working={record['with_working']}")
    if record["derived"]:
        precision = record["derived_right"] / record["derived"]
        pairs.append(f"{prefix}_derivation_precision={precision:.3f}")
    pairs.append(f"{prefix}_n_stated={split.attrs['n_stated']}")
    pairs.append(f"{prefix}_n_computed={split.attrs['n_computed']}")
    return " ".join(pairs)


__all__ = ["PRESETS", "Preset", "figures_line", "import_preset"]
