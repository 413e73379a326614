"""The analysis notebook runs top to bottom, headless, on a run made by the scripted model."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from typer.testing import CliRunner

from experiment import cli
from experiment.config import PROJECT_ROOT

from .conftest import run_args


def test_notebook_executes(
    monkeypatch: pytest.MonkeyPatch,
    fake_factory,
    corpus,  # type: ignore[no-untyped-def]
    tmp_path: Path,
) -> None:
    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)
    res = CliRunner().invoke(
        cli.app, run_args(*corpus, "fake-small", "fake-large", 4, tmp_path, "nb")
    )
    assert res.exit_code == 0, res.output
    monkeypatch.setenv("FACTQA_RUN", str(tmp_path / "nb"))
    nb = nbformat.read(PROJECT_ROOT / "notebooks" / "analysis.ipynb", as_version=4)
    NotebookClient(
        nb,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(PROJECT_ROOT / "notebooks")}},
    ).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    shown = "".join(
        str(o.get("data", {}).get("text/plain", "")) + o.get("text", "") for o in outputs
    )
    assert "small-pass@4" in shown and "cascade" in shown  # the method table was shown
    assert "squad_f1" in shown and "threshold" in shown  # EM/F1 and risk-coverage tables
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= 3  # accuracy vs k, risk-coverage, cost
