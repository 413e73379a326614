"""The sealed samples: a second evaluation sample of every public data set, scored once.

The committed samples (`results/PRESET/`) are the **development** samples: they were scored many
times while the code changed. Each public preset also has a **sealed** sample, drawn once from
the evaluation half's figure and date questions that no development sample holds (DROP: from
the evaluation passages the development sample never used, since a passage's questions share
its text), by the importer's stratified rule with seed `SEED` and the preset's size. Its ids
are committed in `results/sealed/samples.json`; the data set's text is not.

    factqa bench sealed-draw --squad PATH --squad-v2 PATH --drop PATH --tatqa PATH
    factqa bench sealed PRESET PATH/TO/DATA

`sealed-draw` draws the ids (drawing again gives the same ids; a changed draw is refused).
`sealed` scores one preset's sealed sample: it refuses a tree with uncommitted changes (the code
must be frozen) and a second scoring at the same commit, saves `results/sealed-PRESET/`, and
its look is logged (`results/looks.csv`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from experiment.base.errors import InputError
from experiment.base.files import atomic_write
from experiment.bench.app import command
from experiment.bench.harness import OUT, DataFileOpt
from experiment.bench.looks import log_path, read
from experiment.bench.presets import PRESETS
from experiment.bench.results import RESULTS
from experiment.bench.sealed_samples import (
    PUBLIC,
    SAMPLES,
    SEED,
    development_ids,
    draw,
    read_samples,
)
from experiment.config import git_commit


@command("sealed-draw", core=True)
def sealed_draw(
    squad: DataFileOpt = None,
    squad_v2: DataFileOpt = None,
    drop: DataFileOpt = None,
    tatqa: DataFileOpt = None,
    samples: Annotated[Path, typer.Option(help="The ids' file.")] = SAMPLES,
) -> None:
    """Draw each given data set's sealed sample and commit its ids (refused where it differs
    from the ids already committed)."""
    given = {"squad-v1": squad, "squad-v2": squad_v2, "drop": drop, "tatqa-dev": tatqa}
    data = read_samples(samples)
    for preset, path in given.items():
        if path is None:
            continue
        ids = draw(preset, path, samples.parent.parent)
        known = data.get(preset, {}).get("ids")
        if known is not None and known != ids:
            raise InputError(
                f"the sealed sample of {preset} drawn again differs from the committed one",
                path=samples,
                fix="give the data file the sample was drawn from; never redraw a sealed sample",
            )
        dev, _ = development_ids(preset, samples.parent.parent)
        data[preset] = {
            "data_file": path.name,
            "seed": SEED,
            "size": len(ids),
            "rule": "the evaluation half's figure/date questions outside the development sample"
            + (" and its passages" if preset == "drop" else "")
            + ", importers/layout.select",
            "development_overlap": len(dev & set(ids)),
            "ids": ids,
        }
        print(f"{preset}: {len(ids)} sealed questions ({PRESETS[preset].sample} asked)")
    samples.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(samples, json.dumps(data, indent=1) + "\n")
    print(f"wrote {samples}")


def tree_is_clean() -> bool:
    """No tracked file differs from the commit (`config.git_commit`: untracked files do not
    count)."""
    commit = git_commit()
    return bool(commit) and not commit.endswith("-dirty")


def scored_at(preset: str, commit: str, looks: Path) -> bool:
    """Whether the log holds a sealed look at `preset` made at `commit`."""
    return any(
        r["dataset"] == preset and r["sample"] == "sealed" and r["commit"].startswith(commit)
        for r in read(looks)
    )


@command("sealed", core=True)
def sealed(
    preset: Annotated[str, typer.Argument(help=f"One of {', '.join(PUBLIC)}.")],
    data: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="Its data file.")],
    out: Annotated[Path, typer.Option(help="Run folders.")] = OUT,
    results: Annotated[
        Path, typer.Option("--results-dir", help="Results folders (the docs and README beside).")
    ] = RESULTS,
) -> None:
    """Score the preset's sealed sample once, on frozen code, and save results/sealed-PRESET/:
    refused on a tree with uncommitted changes and where it was scored at this commit."""
    from experiment.bench.run import BenchOptions, run_preset
    from experiment.cli import _factory

    if preset not in PUBLIC:
        raise InputError(f"no sealed sample of '{preset}'", field="preset", fix=f"one of {PUBLIC}")
    if not tree_is_clean():
        raise InputError(
            "the tree has uncommitted changes",
            fix="commit them: a sealed sample is scored once, on frozen code",
        )
    commit = git_commit()  # the commit the look is logged with
    if scored_at(preset, commit, log_path()):
        raise InputError(
            f"the sealed sample of {preset} was scored at {commit[:12]} already",
            path=log_path(),
            fix="its record stands; a sealed sample is scored once per commit",
        )
    beside = results.parent  # the repository's, or a test's folder
    o = BenchOptions(
        preset, data, out=out, results=results, results_md=beside / "docs" / "RESULTS.md",
        readme=beside / "README.md", sealed=True,
    )  # fmt: skip
    run_preset(o, _factory())
