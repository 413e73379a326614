"""The `factqa bench` command group and how a benchmark joins it.

A benchmark is one module of experiment/bench/ (or of a wing, `bench/fit/`) whose function carries
`@command("NAME")` (`factqa bench NAME`) or `@command("NAME", fit=True)` (`factqa bench fit NAME`,
the ones that write shipped model files). `load()` imports every module of the package, so that each
registers its own subcommands: adding a benchmark needs no other file to change. The group loads
them when it is first used (`factqa bench ...`), so that other commands do not pay for importing
them. cli.py adds the group to `factqa` and, through `on_load`, turns each subcommand's errors into
messages and exit codes.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import click
import typer
from typer.core import TyperGroup
from typer.main import get_command_from_info
from typer.models import CommandInfo

F = TypeVar("F", bound=Callable[..., Any])


class _LazyGroup(TyperGroup):
    """A Click group that loads the benchmark modules when it is first listed or invoked, and
    adds the subcommands they registered."""

    def _load(self) -> None:
        source = _SOURCES[self.name or ""]
        load()
        for info in source.registered_commands:
            if info.name and info.name not in self.commands:
                self.add_command(
                    get_command_from_info(
                        info,
                        pretty_exceptions_short=source.pretty_exceptions_short,
                        rich_markup_mode=source.rich_markup_mode,
                    ),
                    info.name,
                )

    def list_commands(self, ctx: click.Context) -> list[str]:
        """The core's commands first (`FIRST`), so that their panel leads the help."""
        self._load()
        names = super().list_commands(ctx)
        return sorted(names, key=lambda n: FIRST.index(n) if n in FIRST else len(FIRST))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        self._load()
        return super().get_command(ctx, cmd_name)

    def invoke(self, ctx: click.Context) -> Any:
        """Run the subcommand; the evaluation samples it read are logged as looks when it ends,
        whether it succeeds or fails (`bench/looks.py`)."""
        from experiment.bench import looks
        from experiment.config import git_commit
        from experiment.importers import looked

        pending = getattr(ctx, "_protected_args", None) or getattr(ctx, "protected_args", [])
        said = [*ctx.command_path.split()[1:], *pending, *ctx.args]
        looked.begin()
        started_at = git_commit()  # the code that computes the figures, before any write
        try:
            return super().invoke(ctx)
        finally:
            looks.flush(looks.public_command(said), commit=started_at)


bench_app = typer.Typer(
    cls=_LazyGroup,
    help="The benchmarks: run a preset, rescore its committed results with no model, write "
    "the results' sections of docs/RESULTS.md and the README, and every measurement and "
    "analysis behind them.",
    no_args_is_help=True,
)
fit_app = typer.Typer(
    cls=_LazyGroup,
    help="Fit the shipped model files and choices (the selectors, stopping rules, excerpt "
    "size) on the fitting halves only.",
    no_args_is_help=True,
)
bench_app.add_typer(fit_app, name="fit", rich_help_panel="Fitting the shipped choices")
_SOURCES = {"bench": bench_app, "fit": fit_app}
_hooks: list[Callable[[], None]] = []
_loaded = False


CORE = "Run, score and report"  # the commands a user runs: `factqa bench --help` lists them first
STUDIES = "Checks of the repository"  # a study of no wing (the leakage guard)
WINGS = {  # a study's panel in `factqa bench --help`, by its wing
    "measure": "Measurements (run the models or time the machine)",
    "analyse": "Analyses (finished runs and data files, no model)",
}


def command(name: str, *, fit: bool = False, core: bool = False) -> Callable[[F], F]:
    """Register the decorated function as `factqa bench NAME` (with `fit`: `bench fit NAME`);
    its docstring is the subcommand's help. `core` lists it among the commands a user runs, a
    study of a wing (`bench/measure/`, `bench/analyse/`) under its wing, the rest under the
    studies."""

    def register(func: F) -> F:
        wing = func.__module__.split(".")[2] if func.__module__.count(".") >= 3 else ""
        panel = CORE if core else WINGS.get(wing, STUDIES)
        return (fit_app if fit else bench_app).command(name, rich_help_panel=panel)(func)

    return register


def on_load(hook: Callable[[], None]) -> None:
    """Call `hook` once every module has registered its subcommands (now, if they have)."""
    if _loaded:
        hook()
    else:
        _hooks.append(hook)


def load() -> typer.Typer:
    """Import every module of experiment/bench/ (each registers its subcommands) once, list
    them after those registered elsewhere (cli's), by name, and call the `on_load` hooks."""
    global _loaded
    if not _loaded:
        package = importlib.import_module(__package__ or "experiment.bench")
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            importlib.import_module(info.name)  # a wing's modules (`bench/fit/`) too
        for _, group in groups():
            group.registered_commands.sort(key=_listed)
        _loaded = True
        for hook in _hooks:
            hook()
    return bench_app


FIRST = ("run", "rescore", "report")  # the core's commands, in the order a user needs them


def _listed(info: CommandInfo) -> tuple[int, bool, str]:
    """A subcommand's place in `factqa bench --help`: the core's first, then those registered
    elsewhere in their order, then the studies by name."""
    name = info.name or ""
    first = FIRST.index(name) if name in FIRST else len(FIRST)
    mine = getattr(info.callback, "__module__", "").startswith(f"{__package__}.")
    return first, mine, name if mine else ""


def groups() -> Iterator[tuple[tuple[str, ...], typer.Typer]]:
    """`factqa bench` and its nested groups, each with its path of names (`()`, `("fit",)`)."""
    yield (), bench_app
    for group in bench_app.registered_groups:
        if group.typer_instance is not None and group.name:
            yield (group.name,), group.typer_instance


def subcommands() -> list[tuple[str, ...]]:
    """Every registered subcommand as its words after `factqa bench` (`("fit", "selector")`)."""
    load()
    return [
        (*path, info.name)
        for path, group in groups()
        for info in group.registered_commands
        if info.name
    ]
