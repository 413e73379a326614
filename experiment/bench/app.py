"""The `factqa bench` command group and how a benchmark joins it.

A benchmark is one module of experiment/bench/ whose function carries `@command("NAME")`
(`factqa bench NAME`) or `@command("NAME", fit=True)` (`factqa bench fit NAME`, the scripts
that write shipped model files). `load()` imports every module of the package, so that each
registers its own subcommands: adding a benchmark needs no other file to change. cli.py adds
the group to `factqa` and turns each subcommand's errors into messages and exit codes.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import typer

F = TypeVar("F", bound=Callable[..., Any])

bench_app = typer.Typer(
    help="The benchmarks: run a preset, rescore its committed results with no model, write "
    "the results' sections of docs/RESULTS.md and the README, and every measurement and "
    "analysis behind them.",
    no_args_is_help=True,
)
fit_app = typer.Typer(
    help="Fit the shipped model files and choices (the selectors, stopping rules, excerpt "
    "size) on the fitting halves only.",
    no_args_is_help=True,
)
bench_app.add_typer(fit_app, name="fit")


def command(name: str, *, fit: bool = False) -> Callable[[F], F]:
    """Register the decorated function as `factqa bench NAME` (with `fit`: `bench fit NAME`);
    its docstring is the subcommand's help."""
    return (fit_app if fit else bench_app).command(name)


def load() -> typer.Typer:
    """Import every module of experiment/bench/ (each registers its subcommands); the group."""
    package = importlib.import_module(__package__ or "experiment.bench")
    for info in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{info.name}")
    for _, group in groups():  # those registered elsewhere (cli's) first, then by name
        group.registered_commands.sort(key=_listed)
    return bench_app


def _listed(info: typer.models.CommandInfo) -> tuple[bool, str]:
    mine = getattr(info.callback, "__module__", "").startswith(f"{__package__}.")
    return mine, (info.name or "") if mine else ""


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
