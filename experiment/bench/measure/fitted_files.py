"""`factqa bench fitted-files`: the shipped fitted files in a wheel built from this checkout.

Builds the wheel into a temporary folder from a copy of the package (nothing is left in the
checkout), lists it, and counts the fitted files (`evaluate/fitted.SHIPPED`) it holds, with each
file's SHA-256 as a run's manifest records it. `--write` keeps the figures as the record the
`clean-test` section of docs/RESULTS.md reads.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import typer

from experiment.base.errors import FactQAError
from experiment.bench.app import command
from experiment.bench.clean_test import FITTED
from experiment.bench.harness import RESULTS_MD, ROOT, ResultsMdOpt, WriteOpt, publish
from experiment.bench.sections import measured
from experiment.evaluate.fitted import SHIPPED, shipped_hashes


def build_wheel(root: Path, dest: Path) -> Path:
    """The wheel of the package at `root`, built from a copy into `dest`."""
    src = dest / "src"
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info")
    shutil.copytree(root / "experiment", src / "experiment", ignore=ignore)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(root / name, src / name)
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(dest / "dist"), str(src)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    wheels = sorted((dest / "dist").glob("*.whl"))
    if done.returncode or not wheels:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no wheel"]
        raise FactQAError(f"the wheel did not build: {tail[0]}. Fix: pip install setuptools wheel")
    return wheels[0]


def wheel_names(root: Path = ROOT) -> set[str]:
    """Every file name in the wheel built from `root`."""
    with tempfile.TemporaryDirectory() as tmp:
        return set(zipfile.ZipFile(build_wheel(root, Path(tmp))).namelist())


@command(FITTED)
def fitted_files(write: WriteOpt = False, results_md: ResultsMdOpt = RESULTS_MD) -> None:
    """Build the wheel and count the shipped fitted files it holds (exit 1 where one lacks)."""
    names = wheel_names()
    shipped = {name: f"experiment/evaluate/{name}" in names for name in SHIPPED}
    hashes = shipped_hashes()
    for name, there in shipped.items():
        print(
            f"{name}: {'in the wheel' if there else 'MISSING from the wheel'} {hashes[name][:16]}"
        )
    print(f"{sum(shipped.values())} of {len(shipped)} fitted files in the wheel")
    if write:
        figures = {"in_wheel": sum(shipped.values()), "shipped": len(shipped), "sha256": hashes}
        publish(results_md, measured(FITTED, "factqa bench fitted-files --write", figures))
    if not all(shipped.values()):
        raise typer.Exit(1)
