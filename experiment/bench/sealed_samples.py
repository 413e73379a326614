"""The sealed samples' ids: drawn once from the evaluation half, outside the development sample
(`bench/sealed.py` has the commands and the rule in full)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd

from experiment.base.errors import InputError
from experiment.bench.presets import PRESETS
from experiment.bench.results import RESULTS
from experiment.importers.layout import ImportStats, safe_id, select
from experiment.importers.readers import read_dataset
from experiment.report.results import gunzipped

SEED = 1  # the development samples used seed 0
SEALED = "sealed-"  # a sealed sample's folders: results/sealed-PRESET/ and its run's


def sealed_name(preset: str) -> str:
    """The folder name of `preset`'s sealed sample."""
    return SEALED + preset


def sealed_preset(name: str) -> str | None:
    """The preset whose sealed sample a folder `name` holds (None: not a sealed sample's)."""
    return name[len(SEALED) :] if name.startswith(SEALED) else None


def samples_path(results: Path) -> Path:
    """The sealed samples' ids file of a results folder."""
    return results / "sealed" / "samples.json"


SAMPLES = samples_path(RESULTS)
PUBLIC = tuple(p for p, spec in PRESETS.items() if spec.public)


def development_ids(preset: str, results: Path = RESULTS) -> tuple[set[str], set[str]]:
    """The ids and articles (groups' passages) of the preset's committed development sample."""
    path = results / preset / "questions.csv.gz"
    if not path.is_file():
        raise InputError(
            "no committed development sample", path=path, fix=f"run factqa bench run {preset}"
        )
    text = gunzipped(path)  # expanded no further than the cap
    table = pd.read_csv(io.StringIO(text), dtype=str, usecols=["question_id", "article_id"])
    return set(table.question_id), set(table.article_id)


def draw(preset: str, data: Path, results: Path = RESULTS) -> list[str]:
    """The sealed sample's question ids (module docstring), in the importer's order."""
    spec = PRESETS[preset]
    ids, articles = development_ids(preset, results)
    rows = [r for r in read_dataset(spec.fmt, data) if safe_id(r.qid) not in ids]
    if preset == "drop":  # a passage of the development sample is seen: none of its questions
        rows = [r for r in rows if safe_id(r.passage_id) not in articles]
    picked = select(rows, spec.sample, SEED, spec.unanswerable, ImportStats(), "eval")
    return [safe_id(r.qid) for r, _ in picked]


def sealed_ids(preset: str, results: Path = RESULTS) -> frozenset[str]:
    """The committed ids of the preset's sealed sample (`results`: the results folder)."""
    samples = samples_path(results)
    data = read_samples(samples)
    if preset not in data:
        raise InputError(
            f"no sealed sample of {preset}", path=samples, fix="run factqa bench sealed-draw"
        )
    return frozenset(data[preset]["ids"])


def read_samples(path: Path) -> dict[str, dict]:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as e:
        raise InputError(f"not JSON ({e})", path=path, fix="git checkout the file") from e
    return data if isinstance(data, dict) else {}
