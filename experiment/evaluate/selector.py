"""Which confirmed candidate answers the question: rank them by their features, keep the best or
abstain.

Two selectors share one form, a weighted sum of the features of `experiment.evaluate.features`:
- **rule** (`RULE`, the hand-set baseline, fixed before any data was looked at):
  0.35 type_fit + 0.25 bm25 + 0.20 votes + 0.10 proximity + 0.10 overlap_window
  - 0.50 in_question; abstain when the best candidate scores under 0.40;
- **logistic** (`load()`, the shipped `selector.json`): a logistic regression of "this candidate
  is right" on the standardised features, fitted by `factqa bench fit selector` on the fitting half
  of SQuAD's titles (`experiment.importers.split`) with its threshold chosen there by
  cross-validation grouped by title; its score is the probability that the answer is right,
  which is also the confidence that `cascade@B` routes by.

A feature the backend could not give (`logprob` from a server) is replaced by the value stored
in the model (the fitting set's mean), so it moves no score.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from experiment.base.files import atomic_write
from experiment.evaluate.features import FEATURES, ConfirmedAnswer
from experiment.evaluate.fitted import read_fitted
from experiment.evaluate.large_check import LARGE_EVIDENCE

if TYPE_CHECKING:
    import numpy as np

PACKAGED = Path(__file__).with_name("selector.json")
# the same fit with the large model's evidence check as one more feature (small-selected-checked@k)
CHECKED = Path(__file__).with_name("selector_checked.json")


@dataclass(frozen=True)
class SelectorModel:
    name: str
    kind: str  # "rule": the weighted sum is the score; "logistic": its sigmoid is
    weights: dict[str, float]
    threshold: float  # abstain when the best candidate scores below this
    intercept: float = 0.0
    mean: dict[str, float] = field(default_factory=dict)  # standardisation, logistic only
    scale: dict[str, float] = field(default_factory=dict)
    impute: dict[str, float] = field(default_factory=dict)  # for a missing feature
    fitted: dict[str, Any] = field(default_factory=dict)  # what it was fitted on, and how

    def score(self, features: Mapping[str, float | None]) -> float:
        z = self.intercept
        for name, w in self.weights.items():
            x = features.get(name)
            if x is None:
                x = self.impute.get(name, 0.0)
            if self.kind == "logistic":
                x = (x - self.mean.get(name, 0.0)) / (self.scale.get(name, 1.0) or 1.0)
            z += w * x
        if self.kind == "logistic":
            return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))
        return z


RULE = SelectorModel(
    name="rule",
    kind="rule",
    weights={
        "type_fit": 0.35,
        "bm25": 0.25,
        "votes": 0.20,
        "proximity": 0.10,
        "overlap_window": 0.10,
        "in_question": -0.50,
    },
    threshold=0.40,
    impute={"logprob": 0.0},
)


def load(path: Path = PACKAGED) -> SelectorModel:
    """A selector saved by `save` (default: the one shipped in the package)."""
    data = read_fitted(path)
    unknown = set(data["weights"]) - {*FEATURES, LARGE_EVIDENCE}
    if unknown:
        raise ValueError(f"{path}: unknown features {sorted(unknown)}; refit the selector")
    return SelectorModel(**data)


@lru_cache(maxsize=1)
def learned() -> SelectorModel:
    """The shipped logistic selector, read once."""
    return load()


@lru_cache(maxsize=1)
def learned_checked() -> SelectorModel:
    """The shipped selector that also reads the large model's evidence check, read once."""
    return load(CHECKED)


def fitted_on(model: SelectorModel) -> str:
    """What a selector was fitted on, from its own record (`fitted.questions`): "the fitting
    sets squad-v1-fit (400), ..." (or that its file does not record them)."""
    sets = model.fitted.get("questions") if model.fitted else None
    if not isinstance(sets, dict) or not sets:
        return "questions its file does not record"
    named = ", ".join(f"{name} ({n})" for name, n in sets.items())
    return f"{sum(int(n) for n in sets.values())} questions of the fitting sets {named}"


def save(model: SelectorModel, path: Path) -> None:
    """The fitted selector at `path`, written whole (`files.atomic_write`)."""
    atomic_write(path, json.dumps(asdict(model), indent=2, sort_keys=True) + "\n")


@dataclass(frozen=True)
class Selection:
    ranked: tuple[tuple[ConfirmedAnswer, float], ...]  # every candidate with its score, best first
    chosen: ConfirmedAnswer | None  # None: abstain (no candidate, or none above the threshold)
    confidence: float  # the best candidate's score; 0.0 when there is none

    @property
    def best(self) -> ConfirmedAnswer | None:
        return self.ranked[0][0] if self.ranked else None


def pick(cands: Sequence[ConfirmedAnswer], model: SelectorModel) -> Selection:
    """Rank `cands` by `model` (ties: more votes, then first sampled) and keep the best one when
    it reaches the threshold."""
    ranked = sorted(
        ((c, model.score(c.features)) for c in cands),
        key=lambda cs: (-cs[1], -len(cs[0].samples), cs[0].index),
    )
    if not ranked:
        return Selection((), None, 0.0)
    top, score = ranked[0]
    return Selection(tuple(ranked), top if score >= model.threshold else None, score)


FOLDS = 5  # the selector's cross-validation folds (grouped by title or passage)


def out_of_fold(x: np.ndarray, y: np.ndarray, groups: np.ndarray, folds: int = FOLDS) -> np.ndarray:
    """Each row's probability from the logistic regression fitted on the other folds (grouped by
    title, so no title is in both)."""
    import numpy as np
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GroupKFold
    from sklearn.preprocessing import StandardScaler

    oof = np.zeros(len(y))
    for train, test in GroupKFold(n_splits=folds).split(x, y, groups):
        scaler = StandardScaler().fit(x[train])
        clf = LogisticRegression(C=1.0, max_iter=1000).fit(scaler.transform(x[train]), y[train])
        oof[test] = clf.predict_proba(scaler.transform(x[test]))[:, 1]
    return oof
