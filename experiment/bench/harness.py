"""What the benchmark subcommands share: the repository's paths, the options that name them,
and a study's record printed, and saved with docs/RESULTS.md written again (or left alone)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TypeVar

import typer

from experiment.base.errors import ConfigError, InputError
from experiment.base.types import Article, Question
from experiment.config import PROJECT_ROOT

if TYPE_CHECKING:
    from experiment.bench.sections import Record

ROOT = PROJECT_ROOT
RESULTS_MD = ROOT / "docs" / "RESULTS.md"
README = ROOT / "README.md"
OUT = ROOT / "outputs" / "bench"  # the benchmark runs' folders (not committed)
T = TypeVar("T")

ResultsMdOpt = Annotated[
    Path,
    typer.Option(
        "--results-md",
        "--results",  # its older name
        help="The results document to write.",
        show_default="docs/RESULTS.md",
    ),
]
RunsOpt = Annotated[
    Path,
    typer.Option(help="The benchmark runs' folders.", show_default="outputs/bench"),
]
WriteOpt = Annotated[bool, typer.Option("--write", help="Rewrite the section in docs/RESULTS.md.")]


def finish(results_md: Path, record: Record, write: bool) -> None:
    """Print the section `record` renders to; with `write`, save the record and write the
    results document whole again (`publish`). Every study ends here, so its printed section is
    the one the document shows."""
    from experiment.bench.sections import render

    print(render(record))
    if write:
        publish(results_md, record)


def publish(results_md: Path, record: Record) -> None:
    """Save `record` (`results/bench/NAME.json`) and write the results document whole again
    (`factqa bench report`). A results file other than docs/RESULTS.md keeps its records in a
    results/ folder beside it, and its README beside it too."""
    from experiment.bench.report import write_report
    from experiment.bench.sections import save

    results = results_dir(results_md)
    save(record, results)
    readme = README if _is_default(results_md) else results_md.parent / "README.md"
    write_report(results, results_md, readme)


def results_dir(results_md: Path) -> Path:
    """The results folder a results document is written from: results/ for docs/RESULTS.md, a
    results/ folder beside any other."""
    return ROOT / "results" if _is_default(results_md) else results_md.parent / "results"


def _is_default(results_md: Path) -> bool:
    return results_md.resolve() == RESULTS_MD.resolve()


def every_nth(items: Sequence[T], n: int | None) -> list[T]:
    """`n` of `items` spread evenly, every (len / n)-th in order: a fixed sample, no seed to
    choose; all of them where `n` is None or not fewer."""
    if n is None or len(items) <= n:
        return list(items)
    step = len(items) / n
    return [items[int(i * step)] for i in range(n)]


# the fitting halves' data files (experiment/bench/fit/sets.py reads their fitting titles only)
SquadV1Arg = Annotated[Path, typer.Argument(help="SQuAD v1.1 dev (dev-v1.1.json).")]
SquadV2Arg = Annotated[Path, typer.Argument(help="SQuAD v2.0 dev (dev-v2.0.json).")]
TatqaOpt = Annotated[
    Path | None, typer.Option(help="TAT-QA dev (tatqa_dataset_dev.json): add its fitting half.")
]
DataFileOpt = Annotated[
    Path | None, typer.Option(exists=True, dir_okay=False, help="The data set's file.")
]  # a public data set's file, where a command reads several (--squad, --drop, ...)
LargeEvidenceOpt = Annotated[
    bool, typer.Option("--large-evidence", help="Add the large model's evidence check.")
]


def corpus(
    articles: Path | None = None, questions: Path | None = None
) -> tuple[dict[str, Article], list[Question]]:
    """A corpus's articles by id and its questions, validated (default: the bundled corpus)."""
    from experiment.config import RunConfig
    from experiment.corpus import load_articles, load_questions

    base = RunConfig() if articles is None or questions is None else None
    read = load_articles(articles or base.articles)  # type: ignore[union-attr]
    return read, load_questions(questions or base.questions, read)  # type: ignore[union-attr]


@contextmanager
def records_of(path: Path, expected: str) -> Iterator[None]:
    """Reading a data file's records: one of another shape (a field missing, a list where an
    object was expected: another data set's file) is an `InputError` naming the file, the field
    and the shape expected, never a traceback."""
    try:
        yield
    except (KeyError, TypeError, IndexError, AttributeError) as e:
        field = str(e.args[0]) if isinstance(e, KeyError) and e.args else None
        why = f"field '{field}' missing" if field else str(e)
        raise InputError(
            f"a record of another shape ({why})", path=path, field=field, fix=f"give {expected}"
        ) from None


def at_least(values: Sequence[float], label: str, least: float, allowed: str) -> None:
    """A `ConfigError` naming the argument or option (`label`: "SIZE_MB", "--limit") where one
    of `values` is below `least` (or not a number)."""
    for value in values:
        if not value >= least:  # NaN too
            raise ConfigError(f"{label}: {value:g} is not {allowed}. Fix: give {allowed}")
