"""The sealed samples and the record of looks: a sealed sample holds no development question,
is scored once on a clean tree, and every bench look at a reported sample is logged."""

from __future__ import annotations

import csv
import gzip
import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.bench import looks, sealed, sealed_samples
from experiment.importers import looked
from experiment.importers.split import half_of

from .test_bench_results import TOWNS, fakes, squad_file


def _log(path: Path | None = None) -> list[dict[str, str]]:
    return looks.read(path or Path(os.environ["FACTQA_LOOKS"]))


def _bench(args: list[str]) -> str:
    res = CliRunner().invoke(cli.app, args)
    assert res.exit_code == 0, res.output
    return res.output


@pytest.fixture
def models(monkeypatch: pytest.MonkeyPatch) -> None:
    made = fakes()
    monkeypatch.setattr(cli, "_factory", lambda: lambda spec, _cfg: made.get(spec, made["l"]))


def test_a_bench_run_logs_one_look_at_its_development_sample(tmp_path: Path, models: None) -> None:
    data = squad_file(tmp_path / "dev-v1.1.json")
    _bench(["bench", "run", "squad-v1", str(data), "--sample", "4", "--out", str(tmp_path / "o"),
            "--results-dir", str(tmp_path / "results"), "--results-md", str(tmp_path / "R.md"),
            "--readme", str(tmp_path / "README.md"), "--small", "s"])  # fmt: skip
    (row,) = _log()
    assert (row["dataset"], row["sample"]) == ("squad-v1", "development")
    assert row["command"].startswith("factqa bench run squad-v1 PATH/TO/dev-v1.1.json --sample 4")
    assert str(tmp_path) not in row["command"] and "large@1=" in row["figure"]
    assert looks.validate(Path(os.environ["FACTQA_LOOKS"])) == []


def test_a_look_names_the_commit_its_command_started_at(
    tmp_path: Path, models: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import experiment.config

    said = iter(["c" * 40])  # the first call: the clean code; any later one: the tree as written
    monkeypatch.setattr(experiment.config, "git_commit", lambda: next(said, "c" * 40 + "-dirty"))
    data = squad_file(tmp_path / "dev-v1.1.json")
    _bench(["bench", "run", "squad-v1", str(data), "--sample", "4", "--out", str(tmp_path / "o"),
            "--results-dir", str(tmp_path / "results"), "--results-md", str(tmp_path / "R.md"),
            "--readme", str(tmp_path / "README.md"), "--small", "s"])  # fmt: skip
    (row,) = _log()
    assert row["commit"] == "c" * 40  # not the tree its own results dirtied


def test_a_fitting_half_run_is_no_look_and_nothing_is_logged_outside_bench() -> None:
    looked.mark("drop", "development")  # no bench command is running: not counted
    assert looked.take() == {}
    looked.begin()
    looked.mark("drop", "development", "x=1")
    looked.mark("drop", "development")  # a later mark keeps the headline
    assert looked.take() == {("drop", "development"): "x=1"}


def test_the_log_check_names_the_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "looks.csv"
    looks.append([{"date": "2026-12-01T00:00:00+00:00", "commit": "a" * 40, "command": "c",
                   "dataset": "drop", "sample": "development", "figure": ""}], path)  # fmt: skip
    assert looks.validate(path) == []
    text = path.read_text(encoding="utf-8") + "yesterday,zz,c,nowhere,peeked,\n"
    path.write_text(text, encoding="utf-8")
    problems = looks.validate(path)
    assert len(problems) == 4 and all("line 3" in p for p in problems)
    assert any("field 'sample'" in p for p in problems)


def test_public_command_hides_this_machine_s_paths(tmp_path: Path) -> None:
    data = tmp_path / "drop_dev.jsonl.gz"
    data.write_text("x", encoding="utf-8")
    said = looks.public_command(["bench", "calc-cut", "--drop", str(data), f"--out={tmp_path}/o"])
    assert said == "factqa bench calc-cut --drop PATH/TO/drop_dev.jsonl.gz --out=PATH/TO/o"


def _development(results: Path, ids: list[str]) -> None:
    folder = results / "squad-v1"
    folder.mkdir(parents=True)
    with gzip.open(folder / "questions.csv.gz", "wt", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["question_id", "article_id"])
        w.writerows([[i, "a"] for i in ids])


def test_a_sealed_sample_holds_no_development_question(tmp_path: Path) -> None:
    data = squad_file(tmp_path / "dev-v1.1.json")
    results = tmp_path / "results"
    _development(results, ["q0a", "q1b"])
    ids = sealed_samples.draw("squad-v1", data, results)
    assert ids and not {"q0a", "q1b"} & set(ids)
    assert len(ids) == 2 * len(TOWNS) - 2  # the rest of the evaluation half, fewer than 300
    assert all(half_of(TOWNS[int(i[1])]) == "eval" for i in ids)
    samples = results / "sealed" / "samples.json"
    args = ["bench", "sealed-draw", "--squad", str(data), "--samples", str(samples)]
    _bench(args)
    assert json.loads(samples.read_text())["squad-v1"]["ids"] == ids
    _bench(args)  # drawn again: the same ids
    record = json.loads(samples.read_text())
    record["squad-v1"]["ids"] = ids[:-1]
    samples.write_text(json.dumps(record), encoding="utf-8")
    res = CliRunner().invoke(cli.app, args)
    assert res.exit_code != 0 and "differs from the committed one" in res.output


def test_a_sealed_sample_is_scored_once_on_a_clean_tree(
    tmp_path: Path, models: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = squad_file(tmp_path / "dev-v1.1.json")
    results = tmp_path / "results"
    _development(results, ["q0a", "q1b"])
    _bench(["bench", "sealed-draw", "--squad", str(data), "--samples",
            str(results / "sealed" / "samples.json")])  # fmt: skip
    args = ["bench", "sealed", "squad-v1", str(data), "--out", str(tmp_path / "o")]
    args += ["--results-dir", str(results)]
    monkeypatch.setattr(sealed, "tree_is_clean", lambda: False)
    dirty = CliRunner().invoke(cli.app, args)
    assert dirty.exit_code != 0 and "uncommitted changes" in dirty.output
    assert _log() == []
    monkeypatch.setattr(sealed, "tree_is_clean", lambda: True)
    _bench(args)
    folder = results / "sealed-squad-v1"
    assert (folder / "summary.csv").is_file()
    (row,) = _log()
    assert (row["dataset"], row["sample"]) == ("squad-v1", "sealed")
    with gzip.open(folder / "questions.csv.gz", "rt", encoding="utf-8") as f:
        run_ids = {r["question_id"] for r in csv.DictReader(f)}
    assert run_ids == set(sealed_samples.sealed_ids("squad-v1", results))
    again = CliRunner().invoke(cli.app, args)
    assert again.exit_code != 0 and "scored at" in again.output and len(_log()) == 1


def test_two_samples_agree_when_their_difference_s_interval_holds_zero() -> None:
    from experiment.bench.clean_test import difference

    gap, half = difference((0.50, 0.40, 0.60), (0.60, 0.50, 0.70))
    assert gap == pytest.approx(0.10) and half == pytest.approx(0.1 * 2**0.5)  # wider than each
    gap, half = difference((0.50, 0.45, 0.55), (0.70, 0.65, 0.75))
    assert abs(gap) > half  # 0.20 apart with narrow intervals: the samples disagree
