"""What the benchmark subcommands share: the repository's paths, the options that name them,
and a section of docs/RESULTS.md written or left alone."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from experiment.config import PROJECT_ROOT
from experiment.report.markdown import update_section

ROOT = PROJECT_ROOT
RESULTS_MD = ROOT / "docs" / "RESULTS.md"
README = ROOT / "README.md"
OUT = ROOT / "outputs" / "bench"  # the benchmark runs' folders (not committed)

ResultsMdOpt = Annotated[
    Path,
    typer.Option(
        "--results",
        "--results-md",
        help="The results document to write.",
        show_default="docs/RESULTS.md",
    ),
]
RunsOpt = Annotated[
    Path,
    typer.Option(help="The benchmark runs' folders.", show_default="outputs/bench"),
]
NoWriteOpt = Annotated[
    bool, typer.Option("--no-write", help="Print only; leave docs/RESULTS.md as it is.")
]
WriteOpt = Annotated[bool, typer.Option("--write", help="Rewrite the section in docs/RESULTS.md.")]


def write_section(results_md: Path, name: str, text: str, write: bool = True) -> None:
    """Replace the section `name` of the results document with `text` (nothing if not `write`)."""
    if write:
        update_section(results_md, name, text)


# the fitting halves' data files (experiment/fitting.py reads their fitting titles only)
SquadV1Arg = Annotated[Path, typer.Argument(help="SQuAD v1.1 dev (dev-v1.1.json).")]
SquadV2Arg = Annotated[Path, typer.Argument(help="SQuAD v2.0 dev (dev-v2.0.json).")]
TatqaOpt = Annotated[
    Path | None, typer.Option(help="TAT-QA dev (tatqa_dataset_dev.json): add its fitting part.")
]
LargeEvidenceOpt = Annotated[
    bool, typer.Option("--large-evidence", help="Add the large model's evidence check.")
]
