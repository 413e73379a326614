"""One writer of factqa in its own process, killed (SIGKILL) by itself just before its Nth step
that changes the disk (a rename, a removal or an fsync): the kill test of tests/test_owned_kill.py
starts it once per step and checks the folder after each kill.

    python -m tests.owned_worker KILL_AT WRITER ARGS...

KILL_AT 0 runs to the end and prints "done STEPS" (how many steps there were). WRITER is one of
import (SOURCE OUT), verify (CSV ARTICLES OUT), report (RUN_DIR) or bench (RESULTS RESULTS_MD
README).
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

STEPS = 0
CHANGES = ("replace", "unlink", "rmdir", "fsync")  # of `os`; and `shutil.rmtree`


def _counted(real: Callable[..., Any], kill_at: int) -> Callable[..., Any]:
    def step(*args: Any, **kwargs: Any) -> Any:
        global STEPS
        STEPS += 1
        if kill_at == STEPS:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(*args, **kwargs)

    return step


def count_steps(kill_at: int = 0) -> None:
    """From now on, count each step that changes the disk; the `kill_at`th kills this process."""
    for name in CHANGES:
        setattr(os, name, _counted(getattr(os, name), kill_at))
    shutil.rmtree = _counted(shutil.rmtree, kill_at)  # type: ignore[assignment]


def prepare(writer: str) -> None:
    """Import what `writer` imports before the steps are counted."""
    import experiment.base.files

    if writer == "report":
        import matplotlib.pyplot  # noqa: F401

        import experiment.cli
        import experiment.report.html
        import experiment.report.plots
    if writer == "bench":  # as `factqa bench report`: the CLI's every bench subcommand counted
        import experiment.bench.report
        import experiment.cli  # noqa: F401


def write(writer: str, args: list[str]) -> None:
    """Run `writer` on `args` (see the module's docstring)."""
    if writer == "import":
        from experiment.importers.service import import_dataset

        import_dataset("squad", Path(args[0]), Path(args[1]), sample=1, overwrite=True)
    elif writer == "verify":
        from experiment.verify.batch import ArticleSource, verify_file

        verify_file(Path(args[0]), Path(args[2]), ArticleSource(Path(args[1])))
    elif writer == "report":
        from typer.testing import CliRunner

        from experiment import cli

        res = CliRunner().invoke(cli.app, ["report", args[0], "--html"])
        assert res.exit_code == 0, res.output
    elif writer == "bench":
        from experiment.bench.report import write_report

        write_report(Path(args[0]), Path(args[1]), Path(args[2]))
    else:
        raise SystemExit(f"unknown writer {writer}")


if __name__ == "__main__":
    kill_at, writer, *rest = sys.argv[1:]
    prepare(writer)
    count_steps(int(kill_at))
    write(writer, rest)
    print(f"done {STEPS}", flush=True)
