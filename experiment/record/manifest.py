"""A run's provenance record, `manifest.json`: one typed `Manifest` of typed sub-records.

The JSON keys are the field names (sorted, two-space indent). `format_version` is the folder's
format: `from_json` takes a manifest already brought to FORMAT_VERSION (`record.migrate`) and
refuses one that is not a manifest; `record.write` writes it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from experiment.base.errors import ConfigError, InputError
from experiment.base.files import Ledger, safe_name, sha256_file
from experiment.base.types import BUNDLED
from experiment.config import RunConfig
from experiment.record.migrate import FORMAT_VERSION, migrate

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
class FileRecord:
    """One file the run wrote, as written: its size and SHA-256."""

    bytes: int
    sha256: str

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> FileRecord:
        return cls(int(data["bytes"]), str(data["sha256"]))


@dataclass(frozen=True)
class Machine:
    """The machine (`report/machine.machine_facts`); the llama.cpp facts "" where unread."""

    cpu: str = ""
    cpu_count: int = 0
    threads: int = 0
    platform: str = ""
    python: str = ""
    llama_cpp_python: str = ""
    system_info: str = ""
    ggml_version: str = ""
    ggml_commit: str = ""

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> Machine:
        kinds = {f.name: int if f.type == "int" else str for f in fields(cls)}
        return cls(**{k: kind(data[k]) for k, kind in kinds.items() if k in data})

    def as_json(self) -> dict[str, Any]:
        """The facts known (a llama.cpp fact not read is left out, as `machine_facts` does)."""
        return {k: v for k, v in asdict(self).items() if v != "" or k in ("cpu", "platform")}


@dataclass(frozen=True)
class Load:
    """The 1-, 5- and 15-minute load averages at the start and end of the run ([] unknown)."""

    start: list[float] = field(default_factory=list)
    end: list[float] = field(default_factory=list)

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> Load:
        return cls(*([float(x) for x in data.get(k) or []] for k in ("start", "end")))


@dataclass(frozen=True)
class Sampling:
    """How the small model's samples were drawn (`evaluate.stopping.adaptive_facts`)."""

    adaptive: str = "off"
    rounds: list[int] = field(default_factory=list)
    k: int = 0
    mean_samples: float = 0.0
    stopped_early: float = 0.0

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> Sampling:
        return cls(
            str(data.get("adaptive", "off")),
            [int(r) for r in data.get("rounds") or []],
            int(data.get("k", 0)),
            float(data.get("mean_samples", 0.0)),
            float(data.get("stopped_early", 0.0)),
        )


@dataclass(frozen=True)
class Seeds:
    """The rule that gives each sample its seed, and an example."""

    base_seed: int = 0
    rule: str = ""
    example: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> Seeds:
        example = {str(q): int(s) for q, s in dict(data.get("example") or {}).items()}
        return cls(int(data.get("base_seed", 0)), str(data.get("rule", "")), example)


@dataclass(frozen=True)
class RunEntry:
    """One run into the folder (`history`): when, how long, at which commit, and where it ran
    (`report/machine.run_facts`); a report quotes the first full run's."""

    started: str
    wall_seconds: float
    cached_attempts: int
    git_commit: str
    cpu_seconds: float = 0.0
    cpu: str = ""
    cpu_count: int = 0
    threads: int = 0
    load: Load = field(default_factory=Load)
    load_warning: str = ""

    @classmethod
    def of(cls, data: Mapping[str, Any]) -> RunEntry:
        return cls(
            str(data["started"]),
            float(data["wall_seconds"]),
            int(data["cached_attempts"]),
            str(data["git_commit"]),
            float(data.get("cpu_seconds") or 0.0),
            str(data.get("cpu") or ""),
            int(data.get("cpu_count") or 0),
            int(data.get("threads") or 0),
            Load.of(data.get("load") or {}),
            str(data.get("load_warning") or ""),
        )

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Manifest:
    run_id: str
    config: RunConfig
    models: dict[str, ModelInfo]  # "small", "large"
    questions: int
    articles: int
    attempts: int
    dataset: str = BUNDLED
    bundled: bool = True
    command: str = "factqa run"
    # RunConfig.fingerprint(): the settings and data that decide the results; a run of another
    # fingerprint is refused this folder ("" where a folder of format 0 has none)
    fingerprint: str = ""
    git_commit: str = ""
    versions: dict[str, str] = field(default_factory=dict)
    seeds: Seeds = field(default_factory=Seeds)
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
    sampling: Sampling = field(default_factory=Sampling)
    history: list[RunEntry] = field(default_factory=list)
    # each file the run wrote, by name; `report/run.load_run` refuses a folder whose files
    # differ (empty where a folder of format 0 has none: its files are taken as they are)
    outputs: dict[str, FileRecord] = field(default_factory=dict)
    # the machine (`report/machine.py`), its load averages at the start and end, the warning
    # when other processes competed ("" when none), the process's CPU seconds
    machine: Machine = field(default_factory=Machine)
    load: Load = field(default_factory=Load)
    load_warning: str = ""
    cpu_seconds: float = 0.0
    # per model role: its shape and what its samples evaluated, in this run (made, not cached)
    # and in all (cached ones at the cost they had when made); None where unknown
    cost: dict[str, dict[str, Any]] = field(default_factory=dict)
    # each scoring (and its methods) left out of this run, by name (`check (MODE)`,
    # `pool scores (ROLE)`), and why: the backend cannot score, or its first scoring request
    # failed (empty when every scoring asked for ran)
    left_out: dict[str, str] = field(default_factory=dict)
    # the SHA-256 of each shipped fitted file the run read (`evaluate/fitted.py`), by name
    fitted_files: dict[str, str] = field(default_factory=dict)
    format_version: int = FORMAT_VERSION

    @property
    def k(self) -> int:
        return self.config.k

    @property
    def small_samples(self) -> int:
        """The small model's samples: every attempt but the large model's one per question."""
        return self.attempts - self.questions

    @property
    def reading(self) -> str:
        """What the small model read (`article`, or an excerpt spec)."""
        return self.config.small_context

    def as_json(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out |= {
            "config": self.config.as_dict(),
            "models": {role: info.as_json() for role, info in self.models.items()},
            "seeds": asdict(self.seeds),
            "sampling": asdict(self.sampling) if self.sampling.k else {},
            "history": [h.as_json() for h in self.history],
            "outputs": {n: _file_json(r) for n, r in self.outputs.items()},
            "machine": self.machine.as_json(),
            "load": asdict(self.load),
        }
        return out


def _file_json(record: FileRecord | Mapping[str, Any]) -> dict[str, Any]:
    return asdict(record) if isinstance(record, FileRecord) else dict(record)


def read_json(path: Path) -> dict[str, Any]:
    """The manifest at `path` as raw JSON; an `InputError` if it cannot be read as an object."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise InputError(
            f"not a readable manifest ({e})", path=path, fix="run the same command again"
        ) from e
    if not isinstance(data, dict):
        raise InputError("a manifest is a JSON object", path=path, fix="run the command again")
    return data


def read(path: Path) -> Manifest:
    """The manifest at `path`, of any format version; an `InputError` naming the file and field
    if it is not one."""
    return from_json(migrate(read_json(path), {})[0], path)


_TYPED = {
    "config": RunConfig.of_record,
    "seeds": Seeds.of,
    "sampling": Sampling.of,
    "machine": Machine.of,
    "load": Load.of,
}


def from_json(data: Any, path: Path) -> Manifest:
    """The `Manifest` of raw JSON at FORMAT_VERSION (`record.migrate` brings older ones)."""
    if not isinstance(data, dict):
        raise InputError("a manifest is a JSON object", path=path, fix="run the command again")
    known = {f.name for f in fields(Manifest)}
    for name in ("run_id", "config", "models", "questions", "articles", "attempts"):
        if name not in data:
            raise InputError(
                f"the manifest has no '{name}'", path=path, field=name, fix="run it again"
            )
    try:
        _validate_outputs(data.get("outputs") or {})
        values = {k: v for k, v in data.items() if k in known}
        for name, make in _TYPED.items():
            if name in values:
                values[name] = make(dict(values[name]))
        values["models"] = {role: ModelInfo.of(info) for role, info in data["models"].items()}
        values["history"] = [RunEntry.of(h) for h in values.get("history") or []]
        values["outputs"] = {n: FileRecord.of(r) for n, r in (values.get("outputs") or {}).items()}
        values["left_out"] = {str(k): str(v) for k, v in dict(values.get("left_out") or {}).items()}
        manifest = Manifest(**values)
        manifest.k  # noqa: B018 - a manifest without k is not one
    except (AttributeError, KeyError, TypeError, ValueError, ConfigError) as e:
        raise InputError(
            f"the manifest is malformed ({type(e).__name__}: {e})",
            path=path,
            fix="run the same command again",
        ) from e
    return manifest


def _validate_outputs(outputs: Mapping[str, Any]) -> None:
    """Each recorded output is a plain file name with a size and a digest (ValueError if not)."""
    for name, record in outputs.items():
        if not safe_name(name):
            raise ValueError(f"output {name!r} is not a file name")
        int(record["bytes"]), str(record["sha256"])


__all__ = ["FORMAT_VERSION", "Manifest", "ModelInfo", "from_json", "read", "read_json"]


def owned_before_ledger(run_dir: Path) -> dict[str, str]:
    """What a run folder from before the ledger (`files.Ledger`) holds of the tool's: each
    output its manifest records with a SHA-256, and the manifest itself ({} without one)."""
    path = run_dir / "manifest.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    outputs = data.get("outputs") if isinstance(data, dict) else None
    found = {
        name: r["sha256"]
        for name, r in (outputs if isinstance(outputs, dict) else {}).items()
        if isinstance(r, dict) and isinstance(r.get("sha256"), str) and safe_name(str(name))
    }
    return found | {"manifest.json": sha256_file(path)}


NOT_OURS = "move that file out of the run folder, then run the command again"


def run_ledger(run_dir: Path) -> Ledger:
    """The ledger of the files factqa wrote in a run folder (one from before the ledger adopts
    `owned_before_ledger`); a folder whose ledger does not name a manifest.json is no run
    folder of factqa's, and is refused."""
    ledger = Ledger.open(run_dir, adopt=owned_before_ledger(run_dir))
    if not (run_dir / "manifest.json").is_file() or not ledger.names("manifest.json"):
        raise InputError(
            "is not a run folder factqa wrote (its ledger names no manifest.json), so nothing "
            "is written into it",
            path=run_dir,
            fix="give the folder a run of factqa run wrote",
        )
    return ledger
