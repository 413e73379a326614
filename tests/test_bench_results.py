"""`factqa bench`: a preset run's committed results (no data set text), read back, rescored with
no model call from a data file written here, and the reports written from them alone."""

from __future__ import annotations

import gzip
import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.base.errors import ModelError
from experiment.generate.models.base import Messages
from experiment.importers.split import half_of
from experiment.record.results_index import INDEX
from experiment.report.results import load_results

from .conftest import FakeBackend

# A tiny SQuAD v1.1 file: towns of the evaluation half, each a passage with two figure questions
TOWNS = [t for t in (f"Velden {chr(65 + i)}" for i in range(26)) if half_of(t) == "eval"][:4]


def _passage(i: int, town: str) -> str:
    return (
        f"In 1950 {town} had {8 + i},{i}00 inhabitants; its bridge opened on 4 May {1931 + i} "
        f"after {20 + i} months of work. The bridge is {400 + i} metres long."
    )


def _qa(qid: str, question: str, answer: str, context: str) -> dict[str, object]:
    return {
        "id": qid,
        "question": question,
        "answers": [{"text": answer, "answer_start": context.find(answer)}],
    }


def squad_file(path: Path) -> Path:
    data = []
    for i, town in enumerate(TOWNS):
        context = _passage(i, town)
        qas = [
            _qa(
                f"q{i}a",
                f"How many inhabitants did {town} have in 1950?",
                f"{8 + i},{i}00",
                context,
            ),
            _qa(f"q{i}b", f"How long is the bridge of {town}?", f"{400 + i} metres", context),
        ]
        data.append({"title": town, "paragraphs": [{"context": context, "qas": qas}]})
    path.write_text(json.dumps({"version": "1.1", "data": data}), encoding="utf-8")
    return path


def _said(messages: Messages, index: int, small: bool) -> str:
    """The fakes read the passage: the figure asked for, and now and then a wrong one."""
    content = messages[-1]["content"]
    if "inhabitants" in content.rpartition("Question:")[2]:
        found = re.search(r"had ([\d,]+) inhabitants", content)
    else:
        found = re.search(r"is (\d+ metres) long", content)
    right = found[1] if found else "unknown"
    return "17" if small and index % 3 == 2 else right


def fakes(flops: float = 1e9) -> dict[str, FakeBackend]:
    return {
        "s": FakeBackend("s", lambda m, seed, n: _said(m, n, True), flops=flops),
        "l": FakeBackend("l", lambda m, seed, n: _said(m, n, False), flops=flops * 10),
    }


class Refused:
    """A factory that fails any test which reaches a model."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, spec: str, _cfg: object) -> FakeBackend:
        self.calls.append(spec)
        raise ModelError(f"a model was asked for: {spec}")


@pytest.fixture
def bench_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """`factqa bench run squad-v1 FILE` over the tiny file with the fakes (small model 's'),
    its results in tmp_path/results."""
    models = fakes()  # the large model is the run default's name, played by the fake "l"
    monkeypatch.setattr(cli, "_factory", lambda: lambda spec, _cfg: models.get(spec, models["l"]))
    data = squad_file(tmp_path / "dev-v1.1.json")
    paths = {
        "data": data,
        "out": tmp_path / "out",
        "results": tmp_path / "results",
        "md": tmp_path / "docs" / "RESULTS.md",
        "readme": tmp_path / "README.md",
    }
    args = ["bench", "run", "squad-v1", str(data), "--sample", "8", "--out", str(paths["out"])]
    args += ["--results-dir", str(paths["results"]), "--small", "s"]
    args += ["--results-md", str(paths["md"]), "--readme", str(paths["readme"])]
    res = CliRunner().invoke(cli.app, args)
    assert res.exit_code == 0, res.output
    return paths


def _all_text(folder: Path) -> str:
    out = []
    for f in sorted(folder.iterdir()):
        data = f.read_bytes()
        out.append((gzip.decompress(data) if f.suffix == ".gz" else data).decode("utf-8"))
    return "\n".join(out)


@pytest.mark.parametrize("written", ["results", "section"])
def test_results_hold_no_question_or_passage_text(bench_run: dict[str, Path], written: str) -> None:
    """Neither the committed results nor the run's section of the results file hold the data
    set's text."""
    folder = bench_run["results"] / "squad-v1-s"
    assert (folder / INDEX).is_file()
    md = bench_run["md"]
    pages = "".join(p.read_text("utf-8") for p in (md.parent / "results").glob("*.md"))
    text = _all_text(folder) if written == "results" else md.read_text("utf-8") + pages
    source = json.loads(bench_run["data"].read_text(encoding="utf-8"))
    for article in source["data"]:
        context = article["paragraphs"][0]["context"]
        for sentence in context.split("; "):
            assert sentence not in text
        for qa in article["paragraphs"][0]["qas"]:
            assert qa["question"] not in text
    assert str(bench_run["data"].parent) not in text  # no machine path either
    assert sum(f.stat().st_size for f in folder.iterdir()) < 60_000


def test_results_read_back_as_the_run_reads(bench_run: dict[str, Path]) -> None:
    from experiment.report.run import load_run

    res = load_results(bench_run["results"] / "squad-v1-s")
    run = load_run(bench_run["out"] / "squad-v1-s")
    assert res.source.preset == "squad-v1" and res.source.public and res.source.line
    assert list(res.run.summary.method) == run.methods
    assert len(res.samples) == len(run.attempts) and len(res.run.questions) == len(run.questions)
    for m in run.methods:
        assert list(res.run.questions[f"{m}.correct"]) == list(run.questions[f"{m}.correct"])
    assert not res.checks.empty and not res.drafts.empty
    assert set(res.drafts.text) == {""}  # a public data set's pool texts: keys only


def test_results_of_format_1_read_their_two_score_tables_as_the_one(
    bench_run: dict[str, Path], tmp_path: Path
) -> None:
    """Results format 1 kept the checks and the pools' scores as checks.csv.gz and
    drafts.csv.gz; they read as format 2's one scores.csv.gz, each check's text keyed too."""
    from experiment.base.files import file_record, write_csv
    from experiment.record.columns import RESULT_CHECKS, RESULT_DRAFTS

    folder = bench_run["results"] / "squad-v1-s"
    new = load_results(folder)
    assert set(new.scores.scoring) >= {"check (whole)", "pool scores (small)"}
    old = tmp_path / "v1"
    shutil.copytree(folder, old)
    (old / "scores.csv.gz").unlink()
    index = json.loads((old / INDEX).read_text(encoding="utf-8"))
    files = {n: r for n, r in index["files"].items() if n != "scores.csv.gz"}
    for table, frame in ((RESULT_CHECKS, new.checks), (RESULT_DRAFTS, new.drafts)):
        write_csv(old / table.file, frame.fillna("").to_dict("records"), table.names)
        files[table.file] = file_record(old / table.file)
    index |= {"format_version": 1, "files": files}
    (old / INDEX).write_text(json.dumps(index), encoding="utf-8")
    again = load_results(old)
    pd.testing.assert_frame_equal(again.scores, new.scores)
    pd.testing.assert_frame_equal(again.checks, new.checks)
    pd.testing.assert_frame_equal(again.drafts, new.drafts)
    assert set(again.drafts.text) == {""} and again.checks.candidate.str.len().gt(0).all()


def test_results_of_a_later_format_are_refused_naming_the_formats_read(
    bench_run: dict[str, Path],
) -> None:
    from experiment.base.errors import InputError

    index = bench_run["results"] / "squad-v1-s" / INDEX
    data = json.loads(index.read_text(encoding="utf-8"))
    index.write_text(json.dumps(data | {"format_version": 9}), encoding="utf-8")
    with pytest.raises(InputError, match="results format 9; this factqa reads formats 1 and 2"):
        load_results(index.parent)


def test_an_edited_results_file_is_refused(bench_run: dict[str, Path]) -> None:
    from experiment.base.errors import InputError

    folder = bench_run["results"] / "squad-v1-s"
    (folder / "summary.csv").write_text("method\n", encoding="utf-8")
    with pytest.raises(InputError, match="edited"):
        load_results(folder)


def test_rescore_gives_the_committed_figures_with_no_model_call(
    bench_run: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from experiment import runner
    from experiment.bench.rescore import rescore

    refused = Refused()
    monkeypatch.setattr(runner, "llama_factory", refused)
    monkeypatch.setattr(cli, "_factory", lambda: refused)
    # the results folder is named after the run; rescore reads it by the preset's name
    folder = bench_run["results"] / "squad-v1-s"
    done = rescore(folder, bench_run["data"], tmp_path / "rescore")
    assert refused.calls == []
    assert done.misses == []
    assert done.changed == {}, done.report()
    summary = done.run.summary.set_index("method")
    checked = [m for m in summary.index if "check" in m or "text" in m]
    assert len(checked) >= 4 and summary.loc[checked, "flops"].notna().all()  # their cost too
    res = load_results(folder)
    for m in done.run.methods:
        assert list(done.run.questions[f"{m}.correct"]) == list(res.run.questions[f"{m}.correct"])


def test_a_rescore_saved_with_write_can_be_rescored_again_in_its_folder(
    bench_run: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`bench rescore --write` rewrites the rescored run's manifest; the run folder's ledger
    must still own it, or the next rescore into that folder is refused."""
    from experiment.bench.rescore import rescore, save_rescored

    monkeypatch.setattr(cli, "_factory", lambda: Refused())
    folder = bench_run["results"] / "squad-v1-s"
    save_rescored(rescore(folder, bench_run["data"], tmp_path / "r"), folder)
    again = rescore(folder, bench_run["data"], tmp_path / "r")
    assert again.changed == {} and again.misses == []


def test_rescore_with_a_changed_judge_moves_the_figures(
    bench_run: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from experiment.bench.rescore import rescore
    from experiment.evaluate import methods

    monkeypatch.setattr(methods, "judge", lambda *a, **k: False, raising=False)
    import experiment.evaluate.judge as judge_module

    monkeypatch.setattr(judge_module, "judge", lambda *a, **k: False)
    done = rescore(bench_run["results"] / "squad-v1-s", bench_run["data"], tmp_path / "r")
    assert done.changed  # every accuracy falls to 0
    assert "committed accuracy" in done.report()


def test_rescore_command_and_a_foreign_data_file(
    bench_run: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    refused = Refused()
    monkeypatch.setattr(cli, "_factory", lambda: refused)
    results = bench_run["results"]
    (results / "squad-v1-s").rename(results / "squad-v1")
    args = ["bench", "rescore", "squad-v1", str(bench_run["data"]), "--results-dir", str(results)]
    res = CliRunner().invoke(cli.app, [*args, "--out", str(tmp_path / "rs")])
    assert res.exit_code == 0, res.output
    assert "methods give the committed figures" in res.output and refused.calls == []
    other = tmp_path / "other.json"
    data = json.loads(bench_run["data"].read_text(encoding="utf-8"))
    data["data"] = data["data"][:2]
    other.write_text(json.dumps(data), encoding="utf-8")
    args[3] = str(other)
    res = CliRunner().invoke(cli.app, [*args, "--out", str(tmp_path / "rs2")])
    assert res.exit_code == 2 and "the results hold" in res.output


def test_report_writes_sections_from_results_alone(
    bench_run: dict[str, Path], tmp_path: Path
) -> None:
    import shutil

    shutil.rmtree(bench_run["out"])  # no run folder: the results alone
    md, readme = tmp_path / "docs" / "R.md", tmp_path / "READ.md"
    readme.write_text("<!-- answer:start -->\n<!-- answer:end -->\n", encoding="utf-8")
    args = ["bench", "report", "--results-dir", str(bench_run["results"])]
    res = CliRunner().invoke(cli.app, [*args, "--results-md", str(md), "--readme", str(readme)])
    assert res.exit_code == 0, res.output
    text = md.read_text(encoding="utf-8")
    assert "<!-- bench-squad-v1-s:start -->" in text and "squad_v1_stated_large=" in text
    assert "factqa bench run squad-v1 PATH/TO/dev-v1.1.json" in text
    # the inventory line counts the committed files and the results file with it in place
    files = [f for f in bench_run["results"].rglob("*") if f.is_file()]
    line = re.search(r"`(results_files=.*)`", text)
    assert line is not None
    got = dict(pair.split("=") for pair in line.group(1).split())
    assert int(got["results_files"]) == len(files)
    assert int(got["results_bytes"]) == sum(f.stat().st_size for f in files)
    assert int(got["results_md_lines"]) == len(text.splitlines())
    assert int(got["bench_subcommands"]) >= 30
    # the data set's whole section is its page; the document is what --check expects
    assert "factqa bench run squad-v1" in (md.parent / "results" / "squad-v1-s.md").read_text()
    check = [*args, "--results-md", str(md), "--readme", str(readme), "--check"]
    assert CliRunner().invoke(cli.app, check).exit_code == 0
    md.write_text(text.replace("squad_v1_stated_large=", "squad_v1_stated_large=9"), "utf-8")
    res = CliRunner().invoke(cli.app, check)
    assert res.exit_code == 1 and "squad_v1_stated_large" in res.output


def test_bench_help_lists_the_subcommands() -> None:
    res = CliRunner().invoke(cli.app, ["bench", "--help"])
    assert res.exit_code == 0
    for name in ("run", "rescore", "report"):
        assert name in res.output


def test_the_replay_serves_its_record_and_raises_on_anything_else() -> None:
    from experiment.base.types import Generation
    from experiment.generate.models.base import SamplingParams
    from experiment.generate.models.replay import RecordedScores, ReplayBackend, Unrecorded

    said = Generation("40", 10, 1, 0.1)
    b = ReplayBackend(
        "m",
        "fp",
        generations={7: [("q1", said)]},
        scores={("q1", "whole"): RecordedScores({"40": 1.5, "unknown": 0.0}, flops=3.0)},
        asked=lambda _m: (["q1"], "whole"),
    )
    msgs = [{"role": "user", "content": "x"}]
    assert b.generate(msgs, SamplingParams(), [7]) == [said]
    first = b.score(msgs, ["40", "unknown"])
    assert first.logprobs == (1.5, 0.0) and first.flops == 3.0
    assert b.score(msgs, ["40", "unknown"]).flops == 0.0  # a question's cost is charged once
    with pytest.raises(Unrecorded):
        b.generate(msgs, SamplingParams(), [8])
    with pytest.raises(Unrecorded):
        b.score(msgs, ["41", "unknown"])
    assert len(b.misses) == 2


def test_a_format_1_folder_s_scores_get_unknown_call_costs() -> None:
    from experiment.record.columns import CHECKS, DRAFTS, SCORES
    from experiment.record.migrate import migrate

    old = {
        "checks.csv": pd.DataFrame({c: ["x"] for c in CHECKS.names[:6]}),
        "drafts.csv": pd.DataFrame({c: ["x"] for c in DRAFTS.names[:5]}),
    }
    _, tables = migrate({"format_version": 1}, old)
    scores = tables["scores.csv"]
    assert set(tables) == {"scores.csv"} and list(scores.columns) == SCORES.names
    assert scores.scoring.tolist() == ["check (x)", "pool scores (x)"]
    assert scores.flops.tolist() == ["", ""] and scores.calls.tolist() == ["", ""]


def test_a_scoring_call_the_record_lacks_is_asked_of_the_real_model_when_told() -> None:
    """`bench rescore --score-missing`: a miss goes to the model (loaded once, on the first
    miss); a recorded call is still served from the record, and a recorded failure still fails."""
    from experiment.base.errors import ModelError
    from experiment.generate.models.replay import RecordedScores, ReplayBackend

    from .conftest import FakeBackend

    loaded: list[FakeBackend] = []

    def model() -> FakeBackend:
        loaded.append(FakeBackend("real", lambda m, s, i: "41"))
        return loaded[-1]

    b = ReplayBackend(
        "m",
        "fp",
        scores={
            ("q1", "whole"): RecordedScores({"40": 1.5, "unknown": 0.0}),
            ("q2", "whole"): RecordedScores({}, error="the server fell over"),
        },
        asked=lambda m: ([m[0]["content"]], "whole"),
        model=model,
    )
    assert b.score([{"role": "user", "content": "q1"}], ["40", "unknown"]).logprobs == (1.5, 0.0)
    assert not loaded  # nothing lacked yet: no model
    got = b.score([{"role": "user", "content": "q1"}], ["41", "unknown"])
    assert got.logprobs == (-0.5, -2.0) and len(loaded) == 1  # the fake's own scores
    b.score([{"role": "user", "content": "q1"}], ["42", "unknown"])
    assert len(loaded) == 1 and len(b.scored) == 2 and b.misses == []
    with pytest.raises(ModelError, match="fell over"):
        b.score([{"role": "user", "content": "q2"}], ["41"])


def test_a_variant_run_keeps_its_results_folder_with_a_page_and_no_headline(
    bench_run: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A variant (here: no pool scores) saves a results folder of its own, marked a variant:
    the preset's folder is untouched, the variant gets its page and no headline, and its
    folder rescores with no model call, as a preset's does."""
    from experiment import runner
    from experiment.bench.rescore import rescore
    from experiment.report.results import source_of

    preset = bench_run["results"] / "squad-v1-s"
    before = {p.name: p.read_bytes() for p in preset.iterdir()}
    args = ["bench", "run", "squad-v1", str(bench_run["data"]), "--sample", "8", "--small", "s"]
    args += ["--out", str(bench_run["out"]), "--results-dir", str(bench_run["results"])]
    args += ["--results-md", str(bench_run["md"]), "--readme", str(bench_run["readme"])]
    res = CliRunner().invoke(cli.app, [*args, "--drafts", "none"])
    assert res.exit_code == 0, res.output
    variant = bench_run["results"] / "squad-v1-s-nodrafts"
    assert source_of(variant).variant and not source_of(preset).variant
    assert {p.name: p.read_bytes() for p in preset.iterdir()} == before
    text = bench_run["md"].read_text(encoding="utf-8")
    assert "<!-- bench-squad-v1-s:start -->" in text  # the preset's headline
    assert "<!-- bench-squad-v1-s-nodrafts:start -->" not in text  # no variant's headline
    assert "[squad-v1-s-nodrafts](results/squad-v1-s-nodrafts.md)" in text
    page = bench_run["md"].parent / "results" / "squad-v1-s-nodrafts.md"
    assert "--drafts none" in page.read_text(encoding="utf-8")
    assert not list((bench_run["results"] / "bench").glob("bench-*.json"))  # no record
    refused = Refused()
    monkeypatch.setattr(runner, "llama_factory", refused)
    monkeypatch.setattr(cli, "_factory", lambda: refused)
    done = rescore(variant, bench_run["data"], tmp_path / "rescore")
    assert refused.calls == [] and done.changed == {}, done.report()
