"""A run folder says the truth about its run: a failed run exits non-zero and says so first, the
manifest proves the folder whole, a run id is a plain name that one configuration owns, exports
get the umask's mode, and an output that cannot be written names itself and keeps the answers."""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.base import files
from experiment.base.errors import ConfigError, InputError
from experiment.base.files import atomic_write, locked
from experiment.config import RunConfig
from experiment.report.run import load_run

from .conftest import LARGE_ANSWERS, SMALL_ANSWERS, FakeBackend, keyword_script, run_args

runner = CliRunner()
CACHED = "the answers are cached"


class FailsOn(FakeBackend):
    """Raises like a dead server on every question whose text holds one of `words`."""

    def __init__(self, name: str, answers, words: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
        super().__init__(name, keyword_script(answers))
        self.words = words

    def generate(self, messages, params, seeds):  # type: ignore[no-untyped-def]
        question = messages[-1]["content"].rsplit("Question: ", 1)[-1]
        if any(w in question for w in self.words):
            raise ConnectionError("server at 127.0.0.1:9 refused the connection")
        return super().generate(messages, params, seeds)


def use(monkeypatch: pytest.MonkeyPatch, small: FakeBackend, large: FakeBackend) -> None:
    monkeypatch.setattr(
        cli, "_factory", lambda: lambda spec, cfg: small if spec == "fake-small" else large
    )


def invoke(corpus: tuple[Path, Path], out: Path, *extra: str, k: int = 4):  # type: ignore[no-untyped-def]
    return runner.invoke(
        cli.app, run_args(*corpus, "fake-small", "fake-large", k, out, "t", *extra)
    )


def said(res) -> str:  # type: ignore[no-untyped-def]
    return " ".join(res.output.split())


EVERY = ("units", "launched", "cost", "staff", "salary")


@pytest.mark.parametrize("dead", ["small", "large"])
def test_a_dead_server_fails_the_run_and_says_so_before_the_table(
    corpus, tmp_path: Path, monkeypatch, dead: str
) -> None:  # type: ignore[no-untyped-def]
    small = FailsOn("fake-small", SMALL_ANSWERS, EVERY if dead == "small" else ())
    large = FailsOn("fake-large", LARGE_ANSWERS, EVERY if dead == "large" else ())
    use(monkeypatch, small, large)
    res = invoke(corpus, tmp_path, "--limit", "4", "--server-retries", "0")
    assert res.exit_code == 1, res.output
    text = said(res)
    assert f"every generation of the {dead} model failed" in text
    assert "refused the connection" in text and "run the same command again" in text
    assert text.index("run failed") < text.index("small-verified@4")  # first, then the table
    run = tmp_path / "t"
    for name in ("attempts.csv", "questions.csv", "summary.csv", "curves.csv", "blindspots.csv"):
        assert (run / name).is_file(), name  # the exports are still written
    manifest = load_run(run).manifest
    assert f"every generation of the {dead} model failed" in manifest.failed
    assert manifest.errored[dead] == (16 if dead == "small" else 4)
    shown = runner.invoke(cli.app, ["report", str(run)])  # its report says so first too
    assert shown.exit_code == 0 and said(shown).startswith("this run failed: every generation")


def test_more_than_the_allowed_share_of_failed_generations_fails_the_run(
    corpus, tmp_path: Path, monkeypatch
) -> None:  # type: ignore[no-untyped-def]
    small = FailsOn("fake-small", SMALL_ANSWERS, ("units", "launched", "cost"))  # 3 of 5
    use(monkeypatch, small, FakeBackend("fake-large", keyword_script(LARGE_ANSWERS)))
    res = invoke(corpus, tmp_path)
    assert res.exit_code == 1, res.output
    assert "12 of 20 generations of the small model failed" in said(res)
    assert "more than --max-failed 0.5" in said(res)
    # a wider allowance passes the same samples, in the same folder (not part of the run id)
    res = invoke(corpus, tmp_path, "--max-failed", "0.7")
    assert res.exit_code == 0, res.output
    manifest = load_run(tmp_path / "t").manifest
    assert manifest.failed == "" and manifest.errored == {"small": 12, "large": 0}
    assert "run failed" not in said(res)


def test_max_failed_is_bounded_and_stays_out_of_the_run_id() -> None:
    assert RunConfig().max_failed == 0.5
    assert RunConfig(max_failed=0.9).fingerprint() == RunConfig().fingerprint()
    for bad in (-0.1, 1.5):
        with pytest.raises(ConfigError) as e:
            RunConfig(max_failed=bad)
        assert e.value.field == "max_failed"


@pytest.fixture
def done(corpus, tmp_path: Path, monkeypatch, fake_factory) -> Path:  # type: ignore[no-untyped-def]
    """A finished run folder of the five-question corpus."""
    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)
    res = invoke(corpus, tmp_path / "out")
    assert res.exit_code == 0, res.output
    return tmp_path / "out" / "t"


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _drop_last_row(path: Path) -> None:
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:-1]))


def _edit(path: Path) -> None:  # same size, one byte changed
    data = bytearray(path.read_bytes())
    data[-2] = ord("9") if data[-2] != ord("9") else ord("8")
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(
    ("name", "spoil"),
    [
        ("summary.csv", _truncate),
        ("questions.csv", _drop_last_row),
        ("curves.csv", _truncate),
        ("attempts.csv", _edit),
        ("routing.csv", Path.unlink),
    ],
)
def test_report_refuses_a_folder_whose_files_do_not_match_the_manifest(
    done: Path, name: str, spoil
) -> None:  # type: ignore[no-untyped-def]
    manifest = json.loads((done / "manifest.json").read_text())
    assert manifest["outputs"][name]["bytes"] == (done / name).stat().st_size
    spoil(done / name)
    res = runner.invoke(cli.app, ["report", str(done)])
    assert res.exit_code == 2, res.output
    assert name in said(res) and CACHED in said(res)
    assert "small-verified@4" not in res.output  # no table from a broken folder
    with pytest.raises(InputError) as e:
        load_run(done)
    assert e.value.path == done / name


def test_report_outputs_in_the_folder_are_not_checked_and_do_not_break_it(done: Path) -> None:
    for _ in range(2):
        res = runner.invoke(cli.app, ["report", str(done), "--html"])
        assert res.exit_code == 0, res.output
    assert (done / "report.html").is_file() and list((done / "plots").glob("*.png"))
    outputs = load_run(done).manifest.outputs
    assert "report.html" not in outputs and not any("plots" in n for n in outputs)
    assert set(outputs) >= {"attempts.csv", "questions.csv", "summary.csv", "curves.csv"}


def test_a_run_folder_from_before_outputs_were_recorded_still_loads(done: Path) -> None:
    path = done / "manifest.json"
    old = json.loads(path.read_text())
    for key in ("outputs", "fingerprint", "failed", "errored"):
        del old[key]
    path.write_text(json.dumps(old))
    run = load_run(done)
    assert run.manifest.outputs == {} and run.has("small-verified@4")


@pytest.mark.parametrize("run_id", ["../../x", "a/b", "..", ".", ".cache", "a b", "x\\y", "a..b"])
def test_a_run_id_that_is_not_a_plain_name_is_refused(
    corpus, tmp_path: Path, monkeypatch, fake_factory, run_id: str
) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ConfigError) as e:
        RunConfig(run_id=run_id)
    assert e.value.field == "run_id"
    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)
    out = tmp_path / "deep" / "out"
    args = run_args(*corpus, "fake-small", "fake-large", 2, out, run_id)
    res = runner.invoke(cli.app, args)
    assert res.exit_code == 2 and "run_id" in said(res)
    assert not (tmp_path / "deep").exists() and not (tmp_path / "x").exists()


def test_a_plain_run_id_is_accepted() -> None:
    assert RunConfig(run_id="bench-1.2_b").run_dir.name == "bench-1.2_b"


def test_reusing_a_run_id_with_another_configuration_is_refused(done: Path, corpus) -> None:  # type: ignore[no-untyped-def]
    before = {p.name: p.read_bytes() for p in done.iterdir() if p.is_file()}
    res = invoke(corpus, done.parent, k=3)
    assert res.exit_code == 2, res.output
    assert "another configuration" in said(res) and "--run-id" in said(res)
    assert {p.name: p.read_bytes() for p in done.iterdir() if p.is_file()} == before
    _, qs = corpus  # an edited questions file is another configuration too
    qs.write_text(qs.read_text().replace("How many staff", "How many people"))
    assert invoke(corpus, done.parent).exit_code == 2
    assert load_run(done).k == 4


def test_a_run_that_finishes_second_cannot_overwrite_another_configuration(
    corpus, tmp_path: Path, fake_factory
) -> None:  # type: ignore[no-untyped-def]
    from experiment.runner import run_experiment

    arts, qs = corpus
    base = RunConfig(arts, qs, "fake-small", "fake-large", k=4, out=tmp_path, run_id="t")
    other = RunConfig(arts, qs, "fake-small", "fake-large", k=3, out=tmp_path, run_id="t")

    def factory(spec: str, cfg: RunConfig):  # type: ignore[no-untyped-def]
        if not (tmp_path / "t" / "manifest.json").exists():
            run_experiment(base, fake_factory)  # finishes while `other` is sampling
        return fake_factory(spec, cfg)

    with pytest.raises(ConfigError) as e:
        run_experiment(other, factory)
    assert e.value.field == "run_id" and "another configuration" in str(e.value)
    assert load_run(tmp_path / "t").k == 4  # the first run's folder, whole


def test_a_run_waits_for_its_folder_while_another_run_writes_it(
    corpus, tmp_path: Path, fake_factory
) -> None:  # type: ignore[no-untyped-def]
    from experiment.runner import LOCK, run_experiment

    cfg = RunConfig(*corpus, "fake-small", "fake-large", k=2, out=tmp_path, run_id="t")
    worker = threading.Thread(target=run_experiment, args=(cfg, fake_factory))
    with locked(tmp_path / "t" / LOCK):  # another run is writing the folder
        worker.start()
        worker.join(timeout=2)
        assert worker.is_alive() and not (tmp_path / "t" / "attempts.csv").exists()
    worker.join(timeout=30)
    assert not worker.is_alive() and load_run(tmp_path / "t").k == 2


def test_files_of_an_earlier_run_that_this_one_does_not_write_are_removed(
    corpus, tmp_path: Path, monkeypatch, fake_factory
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)
    _, qs = corpus
    gold_only = qs.read_text()
    qs.write_text(gold_only + "x-1,alpha,How many units were sold at launch?,,,\n")
    assert invoke(corpus, tmp_path).exit_code == 0
    run = tmp_path / "t"
    assert (run / "agreement.csv").is_file() and (run / "disagreements.csv").is_file()
    manifest = json.loads((run / "manifest.json").read_text())
    del manifest["fingerprint"]  # a folder written before run ids were owned
    (run / "manifest.json").write_text(json.dumps(manifest))
    (run / ".factqa-owned.json").unlink()  # ... and before the ledger
    qs.write_text(gold_only)
    res = invoke(corpus, tmp_path)
    assert res.exit_code == 0, res.output
    assert not (run / "agreement.csv").exists() and not (run / "disagreements.csv").exists()
    (run / "agreement.csv").write_bytes((run / "summary.csv").read_bytes())  # a stray copy
    assert load_run(run).agreement.empty  # not an output of this run: not read as one


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_exports_take_the_mode_the_umask_gives(tmp_path: Path, umask: int, mode: int) -> None:
    old = os.umask(umask)
    try:
        atomic_write(tmp_path / "f.txt", "x")
        atomic_write(tmp_path / "f.txt", "y")  # replacing keeps the mode
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "f.txt").stat().st_mode) == mode


def test_a_run_folders_files_are_readable_by_others_under_umask_022(
    corpus, tmp_path: Path, monkeypatch, fake_factory
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)
    old = os.umask(0o022)
    try:
        assert invoke(corpus, tmp_path).exit_code == 0
    finally:
        os.umask(old)
    modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in (tmp_path / "t").glob("*.*")}
    assert modes and set(modes.values()) == {0o644}, modes


def test_an_output_that_cannot_be_written_is_named_and_the_answers_stay_cached(
    corpus, tmp_path: Path, monkeypatch, fake_factory, fakes
) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(cli, "_factory", lambda: fake_factory)
    write = files.atomic_write

    def full_disk(path: Path, data: str | bytes) -> None:
        if path.name == "summary.csv":
            raise OSError(28, "No space left on device", str(path))
        write(path, data)

    with monkeypatch.context() as m:
        m.setattr(files, "atomic_write", full_disk)
        res = invoke(corpus, tmp_path)
    assert res.exit_code == 1, res.output
    assert str(tmp_path / "t" / "summary.csv") in said(res)
    assert CACHED in said(res) and "run the same command again" in said(res)
    assert "Traceback" not in res.output
    calls = len(fakes["fake-small"].calls)
    assert invoke(corpus, tmp_path).exit_code == 0
    assert len(fakes["fake-small"].calls) == calls  # every generation came from the cache
    assert load_run(tmp_path / "t").manifest.cached_attempts == 25
