"""The record of every look at an evaluation sample: `results/looks.csv`.

A figure computed on a reported sample is a look at it; a sample looked at many times while the
code changed is no longer a test. So every `factqa bench` command that computes figures on a
development sample (the evaluation half's committed samples) or a sealed one appends one row
per sample it touched: the date, the commit, the command, the data set, the sample and its
headline figure. Samples are marked where they are read (`mark`: importing an evaluation-half
or sealed sample, reading a committed evaluation run to compute new figures); the bench group
writes the rows when the command ends (`flush`), whether it succeeded or not
(`importers/looked.py` keeps the marks).

Rows before the log existed are reconstructed from git history (each commit that changed a
committed run's summary is one look) and say so in their command.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import os
import re
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated

import typer

from experiment.base.errors import InputError
from experiment.base.files import atomic_write, safe_cell
from experiment.bench.app import command
from experiment.bench.sealed_samples import SEALED, sealed_preset
from experiment.config import PROJECT_ROOT, git_commit
from experiment.importers.looked import SAMPLES, mark, take
from experiment.report.results import load_any
from experiment.report.run import Run

LOOKS = PROJECT_ROOT / "results" / "looks.csv"
COLUMNS = ("date", "commit", "command", "dataset", "sample", "figure")
DATASETS = {"squad-v1", "squad-v2", "drop", "tatqa-dev", "bundled"}


def log_path() -> Path:
    """The log: `results/looks.csv`, or the file FACTQA_LOOKS names (the tests' own)."""
    return Path(os.environ.get("FACTQA_LOOKS") or LOOKS)


def flush(command: str, path: Path | None = None, commit: str = "") -> list[dict[str, str]]:
    """Append a row per sample marked since `looked.begin` to the log (none: nothing), with
    `commit`: the code the command started at (a command that writes results dirties the tree
    before it ends); the current commit where none is given."""
    path = path or log_path()
    marked = take()
    if not marked:
        return []
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    commit = commit or git_commit()
    rows = [
        {"date": now, "commit": commit, "command": command, "dataset": d, "sample": s,
         "figure": f}
        for (d, s), f in marked.items()
    ]  # fmt: skip
    append(rows, path)
    return rows


def read(path: Path = LOOKS) -> list[dict[str, str]]:
    """The log's rows (none where there is no log)."""
    if not path.is_file():
        return []
    try:
        return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    except (UnicodeDecodeError, csv.Error) as e:
        raise InputError(
            f"not a UTF-8 CSV file ({e})", path=path, fix="restore the log from git"
        ) from None


def append(rows: Iterable[dict[str, str]], path: Path = LOOKS) -> None:
    """The log with `rows` added, written whole to a temporary name and renamed."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in [*read(path), *rows]:
        writer.writerow({c: safe_cell(row.get(c, "")) for c in COLUMNS})
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, buf.getvalue())


def counts(rows: Iterable[dict[str, str]], sample: str) -> Counter[str]:
    """How many times each data set's `sample` was looked at."""
    return Counter(r.get("dataset") or "" for r in rows if r.get("sample") == sample)


_COMMIT = re.compile(r"^([0-9a-f]{40}(-dirty)?)?$")


def problems(rows: list[dict[str, str]], header: list[str] | None) -> list[str]:
    """What is wrong with the log: its header, a row's date, commit, data set or sample."""
    out = [] if header == list(COLUMNS) else [f"line 1: the header is not {','.join(COLUMNS)}"]
    for line, r in enumerate(rows, start=2):
        try:
            dt.datetime.fromisoformat(r.get("date") or "")
        except ValueError:
            out.append(f"line {line}: field 'date': {r.get('date')!r} is no ISO date")
        if not _COMMIT.match(r.get("commit") or ""):
            out.append(f"line {line}: field 'commit': {r.get('commit')!r} is no commit")
        if r.get("sample") not in SAMPLES:
            out.append(f"line {line}: field 'sample': {r.get('sample')!r} is not one of {SAMPLES}")
        if r.get("dataset") not in DATASETS:
            out.append(f"line {line}: field 'dataset': {r.get('dataset')!r} is no data set")
    return out


def validate(path: Path = LOOKS) -> list[str]:
    """`problems` of the log at `path` (none where there is no log: no look yet; a results
    folder with sealed results and no log is one problem)."""
    if not path.is_file():
        sealed = [p for p in path.parent.glob(f"{SEALED}*") if (p / "summary.csv").is_file()]
        return [f"{path}: no log of looks beside the sealed results"] if sealed else []
    try:
        reader = csv.DictReader(io.StringIO(path.read_text(encoding="utf-8")))
        rows = list(reader)
    except (UnicodeDecodeError, csv.Error) as e:
        return [f"{path.name}: not a UTF-8 CSV file ({e})"]
    return [f"{path.name}: {p}" for p in problems(rows, list(reader.fieldnames or []))]


def public_command(argv: list[str]) -> str:
    """`factqa ARGS` as the log writes it: a path of this machine as PATH/TO/<its name>."""
    words = []
    for word in argv:
        flag, eq, value = word.partition("=") if word.startswith("-") else ("", "", word)
        if not eq and flag:
            words.append(flag)
            continue
        if "/" in value or (Path(value).suffix and Path(value).exists()):
            value = f"PATH/TO/{Path(value).name}"
        words.append(f"{flag}={value}" if eq else value)
    return " ".join(["factqa", *words])


def evaluation_run(path: Path) -> Run:
    """A run folder or committed results read to compute figures, marked as a look where it is
    a preset's (`results/PRESET/`: its development sample) or a sealed one
    (`results/sealed-PRESET/`)."""
    run = load_any(path)
    name = path.name
    if (preset := sealed_preset(name)) in DATASETS:
        mark(str(preset), "sealed")
    elif name in DATASETS:
        mark(name, "development")
    return run


def headline(run: Run) -> str:
    """A run's headline for the log: large@1's and small-verified@k's accuracy."""
    acc = dict(zip(run.summary.method, run.summary.accuracy, strict=True))
    return " ".join(f"{m}={acc[m]:.3f}" for m in ("large@1", run.verified) if m in acc)


def reconstructed(root: Path = PROJECT_ROOT) -> list[dict[str, str]]:
    """The looks before the log: each commit that changed a committed run's summary, with the
    headline the summary then held (`git log` over `results/PRESET/summary.csv`)."""
    import subprocess

    rows = []
    for dataset in sorted(DATASETS):
        where = f"results/{dataset}/summary.csv"
        log = subprocess.run(
            ["git", "-C", str(root), "log", "--reverse", "--format=%H %cI", "--", where],
            capture_output=True, text=True, check=False,
        ).stdout.split()  # fmt: skip
        for commit, date in zip(log[::2], log[1::2], strict=True):
            shown = subprocess.run(
                ["git", "-C", str(root), "show", f"{commit}:{where}"],
                capture_output=True, text=True, check=False,
            ).stdout  # fmt: skip
            rows.append(
                {"date": date, "commit": commit,
                 "command": f"(reconstructed: this commit changed {where})",
                 "dataset": dataset, "sample": "development", "figure": _summary_headline(shown)}
            )  # fmt: skip
    return sorted(rows, key=lambda r: r["date"])


def _summary_headline(summary_csv: str) -> str:
    """large@1's and small-verified@10's accuracy in a summary.csv's text ("" if absent)."""
    found = {}
    for r in csv.DictReader(io.StringIO(summary_csv)):
        if r.get("method") in ("large@1", "small-verified@10") and r.get("accuracy"):
            found[r["method"]] = f"{r['method']}={float(r['accuracy']):.3f}"
    return " ".join(found[m] for m in ("large@1", "small-verified@10") if m in found)


@command("looks", core=True)
def looks_command(
    reconstruct: Annotated[
        bool,
        typer.Option(
            "--reconstruct",
            help="Add the looks before the log, from git history (those not in it already).",
        ),
    ] = False,
) -> None:
    """How many times each sample was looked at (results/looks.csv); exit 1 where the log is
    malformed."""
    path = log_path()
    if reconstruct:
        known = {(r.get("commit"), r.get("dataset"), r.get("sample")) for r in read(path)}
        new = [r for r in reconstructed() if (r["commit"], r["dataset"], r["sample"]) not in known]
        append(new, path)
        print(f"added {len(new)} reconstructed looks to {path.name}")
    rows = read(path)
    for sample in SAMPLES:
        seen = counts(rows, sample)
        if seen:
            print(f"{sample}: " + ", ".join(f"{d} {n}" for d, n in sorted(seen.items())))
    wrong = validate(path)
    for problem in wrong:
        print(problem)
    if wrong:
        raise typer.Exit(1)
