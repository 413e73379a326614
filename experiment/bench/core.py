"""The core's commands, the ones a user runs: `factqa bench run` (a preset end to end), `bench
rescore` (its committed results replayed through the current code, no model) and `bench report`
(docs/RESULTS.md, its pages and the README's tables from results/ alone). Like every study, each
registers itself with `@command` and runs inside the command line's error handling
(`cli._adopt_bench_commands`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from experiment import cli
from experiment.base.errors import ConfigError
from experiment.bench.app import command
from experiment.cli import HalfOpt, _setting
from experiment.config import RunConfig

PresetArg = Annotated[
    str,
    typer.Argument(
        help="squad-v1, squad-v2, drop, tatqa-dev or bundled (experiment/bench/presets.py)."
    ),
]
DataArg = Annotated[
    Path | None,
    typer.Argument(help="The data set's file (none for the bundled corpus)."),
]
ResultsOpt = Annotated[
    Path | None, typer.Option("--results-dir", help="The committed results (default: results/).")
]


def _preset(name: str) -> str:
    from experiment.bench.presets import PRESETS

    if name not in PRESETS:
        raise ConfigError(f"unknown preset '{name}'; known: {', '.join(PRESETS)}", field="preset")
    return name


@command("run", core=True)
def bench_run(
    preset: PresetArg,
    data: DataArg = None,
    small: Annotated[
        str | None, _setting("small", show_default="the run's default small model")
    ] = None,
    seed: Annotated[int, _setting("seed", help="Seed of the sample and the samples.")] = 0,
    limit: Annotated[
        int, typer.Option(help="Only the first N questions (a smoke test).", min=0)
    ] = 0,
    adaptive: Annotated[str, _setting("adaptive")] = RunConfig.adaptive,
    small_context: Annotated[str, _setting("small_context")] = RunConfig.small_context,
    prompt: Annotated[
        str | None,
        typer.Option(help="figure, derive, calc or auto (default: the preset's, presets.py)."),
    ] = None,
    half: HalfOpt = None,
    checks: Annotated[str, _setting("checks")] = RunConfig.checks,
    drafts: Annotated[str, _setting("drafts")] = RunConfig.drafts,
    derived_text: Annotated[str, _setting("derived_text")] = RunConfig.derived_text,
    sample: Annotated[
        int | None, typer.Option(help="Questions to import (default: the preset's).", min=1)
    ] = None,
    out: Annotated[Path | None, typer.Option(help="Run folders (default: outputs/bench/).")] = None,
    results_dir: ResultsOpt = None,
    results_md: Annotated[
        Path | None, typer.Option("--results-md", help="default: docs/RESULTS.md")
    ] = None,
    readme: Annotated[Path | None, typer.Option(help="default: README.md")] = None,
    write: Annotated[
        bool, typer.Option(help="Write docs/RESULTS.md, the README and results/PRESET/.")
    ] = True,
) -> None:
    """Import the preset's sample, run every method, and write its section of docs/RESULTS.md,
    the README's tables (the default runs) and its committed results (results/PRESET/)."""
    from experiment.bench.harness import OUT, README, RESULTS_MD
    from experiment.bench.results import RESULTS
    from experiment.bench.run import BenchOptions, run_preset

    options = BenchOptions(
        _preset(preset),
        data,
        small=small,
        seed=seed,
        limit=limit,
        out=out or OUT,
        results=results_dir or RESULTS,
        results_md=results_md or RESULTS_MD,
        readme=readme or README,
        write=write,
        adaptive=adaptive,
        small_context=small_context,
        prompt=prompt,
        half=half,  # type: ignore[arg-type]
        checks=checks,
        drafts=drafts,
        derived_text=derived_text,
        sample=sample,
    )
    run_preset(options, cli._factory(), say=lambda line: cli._out().print(line, highlight=False))


@command("rescore", core=True)
def bench_rescore(
    preset: PresetArg,
    data: DataArg = None,
    results_dir: ResultsOpt = None,
    out: Annotated[
        Path | None, typer.Option(help="The rescored run (default: outputs/bench/rescore/).")
    ] = None,
    sealed: Annotated[
        bool, typer.Option("--sealed", help="The preset's sealed sample (results/sealed-PRESET/).")
    ] = False,
    write: Annotated[
        bool,
        typer.Option(
            "--write",
            help="Save the rescored run as the committed results (the same generations, scored "
            "by this code), and write the report again.",
        ),
    ] = False,
    score_missing: Annotated[
        bool,
        typer.Option(
            "--score-missing",
            help="Ask the real models for the scoring calls the record lacks (a rule that "
            "changes which texts a pool holds), instead of counting each as a failure; with "
            "--write the record then holds them.",
        ),
    ] = False,
) -> None:
    """Run the preset's committed samples again through the current code, with no model: the
    questions and gold are imported again from the data file, every model call is served from
    results/PRESET/, and the rescored summary is compared with the committed one."""
    from experiment.bench.harness import OUT
    from experiment.bench.rescore import rescore, rescored_line, save_rescored
    from experiment.bench.results import RESULTS
    from experiment.bench.sealed_samples import sealed_name

    name = sealed_name(_preset(preset)) if sealed else _preset(preset)
    folder = (results_dir or RESULTS) / name
    models = cli._factory() if score_missing else None
    done = rescore(folder, data, out or OUT / "rescore", models)
    cli._out().print(done.report(), highlight=False)
    cli._out().print(rescored_line(preset, done), highlight=False)
    cli._out().print(f"rescored run: {done.run.path}", highlight=False)
    if write:
        save_rescored(done, folder)
        cli._out().print(f"wrote {name} and the report", highlight=False)


@command("report", core=True)
def bench_report(
    results_dir: ResultsOpt = None,
    results_md: Annotated[
        Path | None, typer.Option("--results-md", help="default: docs/RESULTS.md")
    ] = None,
    readme: Annotated[Path | None, typer.Option(help="default: README.md")] = None,
    check: Annotated[
        bool,
        typer.Option(
            "--check",
            help="Write nothing; exit 1 (with a short diff) where a committed file differs from "
            "what the report writes.",
        ),
    ] = False,
) -> None:
    """Write docs/RESULTS.md whole, its data sets' pages (docs/results/) and the README's
    generated blocks from results/ alone (the results folders and the sections' records), with
    no model and no run folder."""
    from experiment.bench.harness import README, RESULTS_MD
    from experiment.bench.report import check_report, write_report
    from experiment.bench.results import RESULTS

    where = (results_dir or RESULTS, results_md or RESULTS_MD, readme or README)
    if check:
        differ = check_report(*where, say=lambda text: cli._out().print(text, highlight=False))
        if differ:
            cli._out().print(
                f"{differ} generated files differ from what factqa bench report writes",
                highlight=False,
            )
            raise typer.Exit(1)
        cli._out().print("the generated files are what factqa bench report writes")
        return
    written = write_report(*where)
    cli._out().print(f"wrote {len(written)} files", highlight=False)
