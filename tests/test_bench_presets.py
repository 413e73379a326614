"""A preset's prompt setting: its default run under it, the other setting a named variant."""

from __future__ import annotations

from pathlib import Path

import pytest

from experiment.bench.presets import PRESETS
from experiment.bench.run import BenchOptions, command_of, run_name


@pytest.mark.parametrize(
    ("preset", "prompt"),
    [
        ("squad-v1", "figure"),
        ("squad-v2", "figure"),
        ("drop", "auto"),
        ("tatqa-dev", "auto"),
        ("bundled", "auto"),
    ],
)
def test_each_preset_runs_under_its_own_prompt_setting(preset: str, prompt: str) -> None:
    o = BenchOptions(preset, Path("dev.json"))
    assert PRESETS[preset].prompt == prompt
    assert o.prompt_setting == prompt
    assert not o.variant
    assert run_name(o)[0] == preset
    assert "--prompt" not in command_of(o)


def test_the_other_prompt_setting_is_a_variant_named_after_it() -> None:
    figure = BenchOptions("drop", Path("drop_dev.jsonl.gz"), prompt="figure")
    assert figure.variant
    assert run_name(figure) == ("drop-figure", "DROP dev, evaluation passages, figure prompt")
    assert command_of(figure) == "factqa bench run drop PATH/TO/drop_dev.jsonl.gz --prompt figure"
    auto = BenchOptions("squad-v1", Path("dev-v1.1.json"), prompt="auto")
    assert auto.variant and run_name(auto)[0] == "squad-v1-auto"
    # naming the preset's own setting is the default run, not a variant
    assert not BenchOptions("tatqa-dev", None, prompt="auto").variant
