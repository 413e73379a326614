"""Which evaluation samples the running command reads: the marks behind `results/looks.csv`.

A `factqa bench` command starts counting (`begin`); importing an evaluation-half or sealed
sample, or a benchmark reading a committed evaluation run to compute figures, marks the sample
(`mark`); the command's end takes the marks (`take`) and `bench/looks.py` logs them. Outside a
bench command (a user's `factqa import`) nothing is counted.
"""

from __future__ import annotations

from pathlib import Path

SAMPLES = ("development", "sealed", "whole")
_marked: dict[tuple[str, str], str] = {}  # (data set, sample) -> headline figure ("" unknown)
_on = False


def dataset_of(fmt: str, source: Path) -> str:
    """The preset's name for a data file of format `fmt`."""
    if fmt == "squad":
        return "squad-v2" if "v2" in source.name else "squad-v1"
    return {"drop": "drop", "tatqa": "tatqa-dev"}.get(fmt, fmt)


def mark(dataset: str, sample: str, figure: str = "") -> None:
    """Note that the running command computes figures on `sample` of `dataset`; `figure` is its
    headline (`name=value`), kept where one is given."""
    if sample not in SAMPLES:
        raise ValueError(f"unknown sample {sample!r}; one of {SAMPLES}")
    if _on:
        _marked[dataset, sample] = figure or _marked.get((dataset, sample), "")


def begin() -> None:
    """Start counting marks (a bench command starts)."""
    global _on
    _on = True
    _marked.clear()


def take() -> dict[tuple[str, str], str]:
    """The marks since `begin`, and stop counting."""
    global _on
    _on = False
    out = dict(sorted(_marked.items()))
    _marked.clear()
    return out


def pending() -> dict[tuple[str, str], str]:
    """The marks since `begin`, not yet taken (a report written inside the command counts
    them)."""
    return dict(_marked) if _on else {}
