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


def test_a_run_with_other_pool_scores_is_a_variant_and_never_the_presets_results() -> None:
    """`--drafts none` or `--derived-text result` is another run: its own name and command, and
    no README rows or results/PRESET/ of the default run."""
    none = BenchOptions("drop", Path("drop_dev.jsonl.gz"), drafts="none")
    assert none.variant and run_name(none)[0] == "drop-nodrafts"
    assert command_of(none).endswith(" --drafts none")
    result = BenchOptions("tatqa-dev", Path("tatqa_dataset_dev.json"), derived_text="result")
    assert result.variant and run_name(result)[0] == "tatqa-dev-derived-result"
    assert command_of(result).endswith(" --derived-text result")
    cfg = config_of_without_import(result)
    assert cfg.derived_text == "result"


def config_of_without_import(o: BenchOptions):  # type: ignore[no-untyped-def]
    """The run's settings as `config_of` makes them, without importing a data set."""
    from unittest import mock

    from experiment.bench import run as bench_run

    corpus = mock.Mock(articles=Path("a"), questions=Path("q"))
    with mock.patch.object(bench_run, "import_preset", return_value=corpus):
        return bench_run.config_of(o)[0]
