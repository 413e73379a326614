"""The run's plots read cleanly: point labels that do not overlap, a log axis with several labels,
identical curves drawn once and named together, legends off the data."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.report.plots import cost_figure, log_axis, overlaps, plot_files, same_curves
from experiment.report.run import load_run

from .conftest import FakeBackend, run_args

runner = CliRunner()


def test_identical_curves_are_drawn_once_and_named_together() -> None:
    curves = {
        "small-verified@4": ([1, 2], [0.5, 0.6]),
        "small-derived@4": ([1, 2], [0.5, 0.6]),
        "small-maj@4": ([1, 2], [0.4, 0.6]),
    }
    assert same_curves(curves) == [
        (["small-verified@4", "small-derived@4"], ([1.0, 2.0], [0.5, 0.6])),
        (["small-maj@4"], ([1.0, 2.0], [0.4, 0.6])),
    ]


def test_a_log_axis_within_one_decade_has_several_labels() -> None:
    fig, ax = plt.subplots()
    ax.plot([2.1e11, 3e11, 7.9e11], [0.1, 0.2, 0.3])
    log_axis(ax)
    fig.canvas.draw()
    lo, hi = ax.get_xlim()
    shown = [t for t in ax.get_xticklabels() if t.get_text() and lo <= t.get_position()[0] <= hi]
    plt.close(fig)
    assert len(shown) >= 2  # 2e11 and 5e11 at least; one label alone cannot be read


@pytest.fixture
def run_dir(monkeypatch: pytest.MonkeyPatch, fakes, fake_factory, corpus, tmp_path: Path) -> Path:  # type: ignore[no-untyped-def]
    for name in ("fake-small", "fake-large"):  # costs known: the FLOPs panel is drawn
        fakes[name] = FakeBackend(name, fakes[name].script, flops=1e9 if "small" in name else 5e9)
    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)
    res = runner.invoke(cli.app, run_args(*corpus, "fake-small", "fake-large", 4, tmp_path, "t"))
    assert res.exit_code == 0, res.output
    return tmp_path / "t"


def test_the_cost_plots_labels_do_not_overlap(run_dir: Path) -> None:
    run = load_run(run_dir)
    fig = cost_figure(run)
    try:
        assert len(fig.axes) == 2  # FLOPs and seconds
        for ax in fig.axes:
            labels = [t for t in ax.texts if t.get_text()]
            named = [n for t in labels for n in t.get_text().replace("\n", " ").split(", ")]
            assert set(run.methods) <= set(named) and len(named) == len(set(named))
            assert len(labels) < len(named)  # methods at one point share a label
            assert overlaps(ax, labels) == 0
        fig.savefig(run_dir / "cost.png")
    finally:
        plt.close(fig)


def test_legends_sit_outside_the_data(run_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    figures = []
    monkeypatch.setattr(
        "experiment.report.plots._save", lambda fig, path: figures.append(fig) or path
    )
    plot_files(load_run(run_dir), run_dir / "plots")
    try:
        for fig in figures:
            fig.canvas.draw()
            for ax in fig.axes:
                legend = ax.get_legend()
                if legend is None:
                    continue
                box, frame = legend.get_window_extent(), ax.get_window_extent()
                inside = box.x0 < frame.x1 and box.x1 > frame.x0
                inside = inside and box.y0 < frame.y1 and box.y1 > frame.y0
                assert not inside, ax.get_title()
    finally:
        for fig in figures:
            plt.close(fig)


def test_small_verified_and_its_twins_share_one_line_in_accuracy_against_k(
    run_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    figures = []
    monkeypatch.setattr(
        "experiment.report.plots._save", lambda fig, path: figures.append(fig) or path
    )
    plot_files(load_run(run_dir), run_dir / "plots")
    try:
        ax = figures[0].axes[0]
        names = [t.get_text() for t in ax.get_legend().get_texts()]
        assert len(names) == len(set(names))
        joined = [n for n in names if "=" in n]
        assert joined  # the fake's small-verified@k and small-derived@k coincide
        assert len(ax.lines) == len(names)  # one line a legend entry (large@1's included)
    finally:
        for fig in figures:
            plt.close(fig)
