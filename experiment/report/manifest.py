"""A run's provenance record, `manifest.json`: one typed `Manifest`, written and read only here.

The JSON keys are the field names (sorted, two-space indent); `read` accepts the manifests of
earlier versions (a missing field takes its default) and refuses a file that is not one.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from experiment.errors import InputError
from experiment.files import atomic_write, safe_name
from experiment.records import BUNDLED

COUNTERS = ("requests", "retried", "drafted", "accepted")  # a backend's own counts, when kept


@dataclass(frozen=True)
class ModelInfo:
    """One model of a run: the spec it was given, its name, its weights' fingerprint, and the
    counters its backend keeps (server requests and retries, drafted and accepted tokens)."""

    spec: str
    name: str
    fingerprint: str
    counters: dict[str, int] = field(default_factory=dict)
    shape: dict[str, int] = field(default_factory=dict)  # `cost.ModelShape`, where it is known

    def as_json(self) -> dict[str, Any]:
        out = {"spec": self.spec, "name": self.name, "fingerprint": self.fingerprint}
        return out | dict(self.counters) | ({"shape": dict(self.shape)} if self.shape else {})

    @classmethod
    def of(cls, data: dict[str, Any]) -> ModelInfo:
        counters = {k: int(data[k]) for k in COUNTERS if k in data}
        shape = {str(k): int(v) for k, v in dict(data.get("shape") or {}).items()}
        return cls(
            str(data.get("spec", "")), str(data["name"]), str(data["fingerprint"]), counters, shape
        )


@dataclass(frozen=True)
class Manifest:
    run_id: str
    config: dict[str, Any]  # RunConfig.as_dict()
    models: dict[str, ModelInfo]  # "small", "large"
    questions: int
    articles: int
    attempts: int
    dataset: str = BUNDLED
    bundled: bool = True  # runs recorded before manifests named their data set were bundled
    command: str = "factqa run"
    # RunConfig.fingerprint(): the settings and data that decide the results; a run of another
    # fingerprint is refused this folder ("" for runs recorded before it)
    fingerprint: str = ""
    git_commit: str = ""
    versions: dict[str, str] = field(default_factory=dict)
    seeds: dict[str, Any] = field(default_factory=dict)
    # "gold": accuracy; "large@1": agreement with large@1 (no question has gold); both when
    # some have gold (summary.csv: accuracy, agreement.csv: agreement)
    scored_against: str = "gold"
    questions_with_gold: int = 0
    questions_without_gold: int = 0
    cached_attempts: int = 0
    # samples with no value and no deliberate abstention (empty, repetitive, an error, the wrong
    # kind): wrong on every question, unanswerable ones included
    failures: dict[str, int] = field(default_factory=dict)
    # of those, the generations where the model or server raised, per model
    errored: dict[str, int] = field(default_factory=dict)
    # why the run failed (every generation of a model, or more than max_failed of them,
    # errored); "" for a run that did not
    failed: str = ""
    resumed: bool = False
    started: str = ""
    finished: str = ""
    wall_seconds: float = 0.0
    selection_seconds: float = 0.0
    sampling: dict[str, Any] = field(default_factory=dict)
    history: list[dict[str, Any]] = field(default_factory=list)
    # each file the run wrote, by name: {"bytes": n, "sha256": hex}; `report/run.load_run`
    # refuses a folder whose files differ (empty for runs recorded before it)
    outputs: dict[str, dict[str, Any]] = field(default_factory=dict)
    # the machine (`report/machine.py`), its load averages at the start and end, the warning
    # when other processes competed ("" when none), the process's CPU seconds
    machine: dict[str, Any] = field(default_factory=dict)
    load: dict[str, list[float]] = field(default_factory=dict)
    load_warning: str = ""
    cpu_seconds: float = 0.0
    # per model role: its shape and what its samples evaluated, in this run (made, not cached)
    # and in all (cached ones at the cost they had when made); None where unknown
    cost: dict[str, dict[str, Any]] = field(default_factory=dict)
    # why the large model's checks (and their methods) were left out of this run: the backend
    # cannot score, or its first scoring request failed ("" when they ran or were not asked for)
    checks_left_out: str = ""
    # why the models' scores of the pools (and their methods) were left out, as above
    drafts_left_out: str = ""

    @property
    def k(self) -> int:
        return int(self.config["k"])

    @property
    def small_samples(self) -> int:
        """The small model's samples: every attempt but the large model's one per question."""
        return self.attempts - self.questions

    @property
    def reading(self) -> str:
        """What the small model read (`article`, or an excerpt spec)."""
        return str(self.config.get("small_context", "article"))

    def as_json(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["models"] = {role: info.as_json() for role, info in self.models.items()}
        return out


def write(path: Path, manifest: Manifest) -> None:
    text = json.dumps(manifest.as_json(), indent=2, sort_keys=True, default=str)
    atomic_write(path, text + "\n")


def read(path: Path) -> Manifest:
    """The manifest at `path`; an `InputError` naming the file and field if it is not one."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise InputError(
            f"not a readable manifest ({e})", path=path, fix="run the same command again"
        ) from e
    return from_json(data, path)


def from_json(data: Any, path: Path) -> Manifest:
    if not isinstance(data, dict):
        raise InputError("a manifest is a JSON object", path=path, fix="run the command again")
    known = {f.name for f in fields(Manifest)}
    for name in ("run_id", "config", "models", "questions", "articles", "attempts"):
        if name not in data:
            raise InputError(
                f"the manifest has no '{name}'", path=path, field=name, fix="run it again"
            )
    try:
        models = {role: ModelInfo.of(info) for role, info in data["models"].items()}
        values = {k: v for k, v in data.items() if k in known} | {"models": models}
        manifest = Manifest(**values)
        manifest.k  # noqa: B018 - a manifest without k is not one
        _check_outputs(manifest.outputs)
    except (AttributeError, KeyError, TypeError, ValueError) as e:
        raise InputError(
            f"the manifest is malformed ({type(e).__name__}: {e})",
            path=path,
            fix="run the same command again",
        ) from e
    return manifest


def _check_outputs(outputs: dict[str, dict[str, Any]]) -> None:
    """Each recorded output is a plain file name with a size and a digest (ValueError if not)."""
    for name, record in outputs.items():
        if not safe_name(name):
            raise ValueError(f"output {name!r} is not a file name")
        int(record["bytes"]), str(record["sha256"])


def _peek(path: Path) -> dict[str, Any]:
    """The manifest at `path` as plain JSON, leniently: {} when there is none or it is not one."""
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return old if isinstance(old, dict) else {}


def previous_history(path: Path) -> list[dict[str, Any]]:
    """Earlier runs into the same folder, so a re-score keeps the time of the first full run."""
    history = _peek(path).get("history")
    return history if isinstance(history, list) else []


def recorded_fingerprint(path: Path) -> str:
    """The fingerprint of the run recorded at `path`; "" when none is (no manifest, or one
    recorded before runs kept it)."""
    value = _peek(path).get("fingerprint")
    return value if isinstance(value, str) else ""


__all__ = ["Manifest", "ModelInfo", "asdict", "read", "write"]
