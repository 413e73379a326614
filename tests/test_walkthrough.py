"""docs/WALKTHROUGH.md followed as written: every `$` line run in order, with the real tiny
model (SmolLM2-135M), in a fresh working folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from experiment.config import PROJECT_ROOT

WALKTHROUGH = PROJECT_ROOT / "docs" / "WALKTHROUGH.md"


def commands(text: str) -> list[str]:
    """The walkthrough's `$` lines; the indented lines after one (a heredoc) belong to it."""
    out: list[str] = []
    for line in text.splitlines():
        if line.startswith("    $ "):
            out.append(line[6:])
        elif out and line.startswith("    ") and out[-1].count("<<'EOF'") > out[-1].count("\nEOF"):
            out[-1] += "\n" + line[4:]
    return out


def test_the_walkthroughs_commands_are_found() -> None:
    found = commands(WALKTHROUGH.read_text(encoding="utf-8"))
    assert found[0] == "factqa --version"
    heredoc = next(c for c in found if c.startswith("cat > mine/questions.csv"))
    assert heredoc.endswith("\nEOF") and "b4,bakery" in heredoc
    assert any(c.startswith("factqa run --articles mine/articles") for c in found)


@pytest.mark.model
def test_the_walkthrough_runs_as_written(tiny_model: Path, tmp_path: Path) -> None:
    script = "set -euo pipefail\n" + "\n".join(commands(WALKTHROUGH.read_text(encoding="utf-8")))
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["FACTQA_MODELS_DIR"] = str(tiny_model.parent)
    (tmp_path / "outputs").mkdir()  # as in a clone: runs land here, the corpus is the bundled one
    done = subprocess.run(
        ["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=1800
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert (tmp_path / "outputs" / "first" / "report.html").is_file()
    # the first run is a quick look that shows the experiment: both kinds, methods that differ
    import pandas as pd

    first = pd.read_csv(tmp_path / "outputs" / "first" / "summary.csv")
    assert first.accuracy.round(3).nunique() >= 3  # at least three methods that differ
    assert "a quick look: 10 of " in done.stdout
    assert (tmp_path / "outputs" / "mine" / "answers.csv").is_file()
    assert "command: factqa run" in done.stdout
    # llama.cpp's own log went to the run's file, not the console
    assert (tmp_path / "outputs" / "first" / "llama.log").stat().st_size > 0
    assert "llama_model_loader" not in done.stderr and "control-looking" not in done.stderr
