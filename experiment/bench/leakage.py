"""`factqa bench leakage`: the public data sets' text written in the repository.

    factqa bench leakage --squad PATH/TO/dev-v1.1.json --squad-v2 PATH/TO/dev-v2.0.json \\
        --drop PATH/TO/drop_dev.jsonl.gz --tatqa PATH/TO/tatqa_dataset_dev.json

Reads each data set's passages and questions and reports every fragment of 40 or more
characters of them (canonical form: importers/leakage.py) in the repository's tracked text
files: code, tests, docs, articles, questions and committed results. The figure is the count of
evaluation-half fragments (the guard's target is 0); fitting-half fragments are counted beside
it. The fragments are printed, never saved: the record holds counts and places only.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Annotated

import typer

from experiment.base.errors import InputError
from experiment.bench.app import command
from experiment.bench.harness import RESULTS_MD, ROOT, DataFileOpt, ResultsMdOpt, WriteOpt, publish
from experiment.bench.sections import measured
from experiment.importers.leakage import WINDOW, Fragment, Index, scan_repository
from experiment.importers.readers import read_dataset

SECTION = "leakage"
COMMAND = (
    "factqa bench leakage --squad PATH/TO/dev-v1.1.json --squad-v2 PATH/TO/dev-v2.0.json "
    "--drop PATH/TO/drop_dev.jsonl.gz --tatqa PATH/TO/tatqa_dataset_dev.json --write"
)


def tracked(root: Path) -> list[str]:
    """The files git tracks or would track under `root` (not the ignored ones), or every file
    where `root` is no git checkout."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=root,
            capture_output=True,
            check=True,
            text=True,
        ).stdout
        return [n for n in out.split("\0") if n]
    except (OSError, subprocess.CalledProcessError):
        return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def find(sources: dict[str, Path], root: Path) -> tuple[dict[str, int], list[Fragment]]:
    """How many texts each data file gave (`sources`: "FORMAT:N" -> path), and the fragments
    of all of them in `root`'s tracked files."""
    index, texts = Index(), {}
    for key, path in sources.items():
        before = index.texts
        index.add_rows(read_dataset(key.split(":")[0], path))
        texts[path.name] = index.texts - before
    return texts, scan_repository(index, root, tracked(root))


@command(SECTION)
def leakage(
    squad: DataFileOpt = None,
    squad_v2: DataFileOpt = None,
    drop: DataFileOpt = None,
    tatqa: DataFileOpt = None,
    root: Annotated[Path, typer.Option(help="The repository to scan.")] = ROOT,
    write: WriteOpt = False,
    results_md: ResultsMdOpt = RESULTS_MD,
) -> None:
    """Report every fragment of 40 or more characters of the data sets' passages and questions
    written in the repository (exit 1 where an evaluation-half fragment is found)."""
    given = [("squad", squad), ("squad", squad_v2), ("drop", drop), ("tatqa", tatqa)]
    sources = {f"{fmt}:{i}": p for i, (fmt, p) in enumerate(given) if p is not None}
    if not sources:
        raise InputError(
            "no data set given", fix="pass at least one of --squad, --squad-v2, --drop, --tatqa"
        )
    texts, found = find(sources, root)
    for f in found:
        print(f)
    evaluation = [f for f in found if f.half == "eval"]
    print(
        f"{len(evaluation)} evaluation-half and {len(found) - len(evaluation)} fitting-half "
        f"fragments of {WINDOW}+ characters in {len({f.path for f in found})} files "
        f"(texts read: {', '.join(f'{k} {v}' for k, v in texts.items())})"
    )
    if write:
        figures = {
            "window": WINDOW,
            "texts": texts,
            "eval_fragments": len(evaluation),
            "fit_fragments": len(found) - len(evaluation),
            "places": [f"{f.path}:{f.line} ({f.half})" for f in found],
        }
        publish(results_md, measured(SECTION, COMMAND, figures))
    if evaluation:
        raise typer.Exit(1)
