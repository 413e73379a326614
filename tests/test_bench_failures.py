"""Issue 56: every `factqa bench` command given bad input (a missing file or folder, another data
set's file, an empty file, a negative or zero number) exits non-zero with one line that names the
input, and never a traceback. No case loads a model or starts a process: both are refused here,
so a command that would reach them before reading its input fails the test."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.bench.app import subcommands
from experiment.generate.models import batched, llama

from .conftest import LARGE_ANSWERS, SMALL_ANSWERS, FakeBackend, keyword_script, run_args
from .conftest import write_corpus as corpus_in

runner = CliRunner()


class Inputs:
    """The bad inputs, written once: this project's own tiny examples in each data set's shape."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.missing = root / "nowhere.json"
        self.nodir = root / "no-such-folder"
        self.empty = root / "empty.json"
        self.empty.write_text("", encoding="utf-8")
        self.emptydir = root / "empty-folder"
        self.emptydir.mkdir()
        # a DROP-shaped file: passages by id, each with question-answer pairs
        self.drop = self._json(
            "drop-shaped.json",
            {
                "p-ferry": {
                    "passage": "The ferry made 14 crossings in 1931 and 9 in 1932.",
                    "qa_pairs": [
                        {
                            "question": "How many more crossings in 1931 than in 1932?",
                            "answer": {"number": "5", "spans": [], "date": {}},
                            "query_id": "q-ferry-1",
                        }
                    ],
                }
            },
        )
        # a TAT-QA-shaped file: a list of documents (a table, paragraphs, questions)
        self.tatqa = self._json(
            "tatqa-shaped.json",
            [
                {
                    "table": {"uid": "t-kiln", "table": [["", "2020"], ["Kilns sold", "31"]]},
                    "paragraphs": [{"uid": "p-kiln", "order": 1, "text": "Kiln sales grew."}],
                    "questions": [
                        {
                            "uid": "q-kiln",
                            "order": 1,
                            "question": "How many kilns were sold in 2020?",
                            "answer": "31",
                            "derivation": "",
                            "answer_type": "span",
                            "answer_from": "table",
                            "rel_paragraphs": [],
                            "req_comparison": False,
                            "scale": "",
                        }
                    ],
                }
            ],
        )
        # a SQuAD-shaped file with no question of a figure or a date
        self.squad = self._json(
            "squad-shaped.json",
            {
                "data": [
                    {
                        "title": "Kilns",
                        "paragraphs": [
                            {
                                "context": "The kiln is fired with beech wood.",
                                "qas": [
                                    {
                                        "id": "q-wood",
                                        "question": "What wood fires the kiln?",
                                        "answers": [{"text": "beech", "answer_start": 20}],
                                    }
                                ],
                            }
                        ],
                    }
                ]
            },
        )
        self.looks = root / "results-bad-log"
        self.looks.mkdir()
        (self.looks / "looks.csv").write_text("when,what\n1,2\n", encoding="utf-8")
        self.run = self._run_of_k(4)  # a finished run whose k is not 10

    def _json(self, name: str, value: object) -> Path:
        path = self.root / name
        path.write_text(json.dumps(value), encoding="utf-8")
        return path

    def _run_of_k(self, k: int) -> Path:
        fakes = {
            "fake-small": FakeBackend("fake-small", keyword_script(SMALL_ANSWERS)),
            "fake-large": FakeBackend("fake-large", keyword_script(LARGE_ANSWERS)),
        }
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(cli, "_factory", lambda: lambda spec, cfg: fakes[spec])
            corpus = self.root / "corpus"
            corpus.mkdir()
            args = run_args(*corpus_in(corpus), "fake-small", "fake-large", k, self.root, "k4")
            res = runner.invoke(cli.app, args)
        assert res.exit_code == 0, res.output
        return self.root / "k4"


Case = Callable[[Inputs], tuple[list[str], str]]  # the inputs -> (bench arguments, named input)
S = str
CASES: dict[str, Case] = {
    # run, score and report
    "run: data file missing": lambda i: (
        ["run", "squad-v1", S(i.missing), "--out", S(i.root / "o"), "--results-dir", S(i.nodir)],
        "nowhere.json",
    ),
    "run: unknown preset": lambda i: (["run", "no-preset", S(i.squad)], "no-preset"),
    "run: negative --limit": lambda i: (
        ["run", "squad-v1", S(i.squad), "--limit", "-1"],
        "--limit",
    ),
    "rescore: no results folder": lambda i: (
        ["rescore", "squad-v1", S(i.squad), "--results-dir", S(i.nodir)],
        "no-such-folder",
    ),
    "report: --check, a malformed log of looks": lambda i: (
        ["report", "--check", "--results-dir", S(i.looks), "--results-md", S(i.root / "R.md")],
        "looks.csv",
    ),
    "looks: malformed log": lambda i: (["looks"], "looks.csv"),  # FACTQA_LOOKS: see the test
    "sealed: unknown preset": lambda i: (["sealed", "no-preset", S(i.squad)], "no-preset"),
    "sealed: data file missing": lambda i: (["sealed", "squad-v1", S(i.missing)], "nowhere"),
    "sealed-draw: file missing": lambda i: (["sealed-draw", "--squad", S(i.missing)], "nowhere"),
    # fitting (each reads its data before the model loads)
    "fit calc-limit: files swapped": lambda i: (
        ["fit", "calc-limit", S(i.tatqa), S(i.drop)],
        "tatqa-shaped.json",
    ),
    "fit derived: files swapped": lambda i: (
        ["fit", "derived", S(i.drop), S(i.tatqa)],
        "drop-shaped.json",
    ),
    "fit excerpt: DROP file": lambda i: (
        ["fit", "excerpt", S(i.drop), S(i.drop)],
        "drop-shaped.json",
    ),
    "fit excerpt: --grid not numbers": lambda i: (
        ["fit", "excerpt", S(i.squad), S(i.squad), "--grid", "two,3"],
        "--grid",
    ),
    "fit feature-sets: file missing": lambda i: (
        ["fit", "feature-sets", S(i.missing), S(i.missing)],
        "nowhere.json",
    ),
    "fit selector: TAT-QA file": lambda i: (
        ["fit", "selector", S(i.tatqa), S(i.tatqa)],
        "tatqa-shaped.json",
    ),
    "fit stopping: empty file": lambda i: (
        ["fit", "stopping", S(i.empty), S(i.empty)],
        "empty.json",
    ),
    "fit stopping: --rounds 0": lambda i: (
        ["fit", "stopping", S(i.squad), S(i.squad), "--rounds", "0"],
        "rounds",
    ),
    "fit text-scores: --per-set -1": lambda i: (
        ["fit", "text-scores", S(i.squad), S(i.squad), "--tatqa", S(i.tatqa), "--per-set", "-1"],
        "--per-set",
    ),
    "fit judge: an unknown --role": lambda i: (
        ["fit", "judge", S(i.squad), S(i.squad), "--tatqa", S(i.tatqa), "--role", "medium"],
        "--role",
    ),
    "fit judge: --per-set 0": lambda i: (
        ["fit", "judge", S(i.squad), S(i.squad), "--tatqa", S(i.tatqa), "--per-set", "0"],
        "--per-set",
    ),
    # studies and measurements
    "abstention: missing folder": lambda i: (["abstention", S(i.nodir)], "no-such-folder"),
    "abstention: a run of k=4, method @10": lambda i: (
        ["abstention", S(i.run), "--method", "small-selected@10"],
        "small-selected@10.answer",
    ),
    "abstention: --only missing": lambda i: (
        ["abstention", S(i.run), "--only", S(i.missing)],
        "nowhere.json",
    ),
    "adaptive: DROP file": lambda i: (["adaptive", S(i.drop)], "drop-shaped.json"),
    "adaptive: --live 0": lambda i: (["adaptive", S(i.squad), "--live", "0"], "--live"),
    "adversarial: model file missing": lambda i: (
        ["adversarial", "--small", S(i.root / "none.gguf")],
        "none.gguf",
    ),
    "before-after: missing folders": lambda i: (
        ["before-after", "x", S(i.nodir), S(i.nodir)],
        "no-such-folder",
    ),
    "calc-cut: no results": lambda i: (["calc-cut", "--results-dir", S(i.nodir)], "no-such-folder"),
    "calculator: missing folder": lambda i: (["calculator", S(i.nodir)], "no-such-folder"),
    "check-table: no runs": lambda i: (
        ["check-table", "--out", S(i.emptydir)],
        "empty-folder",
    ),
    "drafts: no runs": lambda i: (["drafts", "--runs", S(i.emptydir)], "empty-folder"),
    "html-report: missing folder": lambda i: (["html-report", S(i.nodir)], "no-such-folder"),
    "html-report: --scale 0": lambda i: (["html-report", S(i.run), "--scale", "0"], "--scale"),
    "large-check: missing folder": lambda i: (
        ["large-check", S(i.nodir), "--name", "x"],
        "no-such-folder",
    ),
    "leakage: TAT-QA file as SQuAD": lambda i: (["leakage", "--squad", S(i.tatqa)], "tatqa-shaped"),
    "model-check: DROP file": lambda i: (
        ["model-check", S(i.drop), S(i.drop)],
        "drop-shaped.json",
    ),
    "parts: missing run": lambda i: (["parts", S(i.nodir)], "no-such-folder"),
    "parts: --questions missing": lambda i: (
        ["parts", S(i.run), "--questions", S(i.nodir)],
        "no-such-folder",
    ),
    "parts: --questions with none of the run's": lambda i: (
        ["parts", S(i.run), "--questions", S(i.emptydir)],
        "empty-folder",
    ),
    "pool-coverage: DROP file as SQuAD": lambda i: (
        ["pool-coverage", "--squad-v1", S(i.drop)],
        "drop-shaped.json",
    ),
    "portable: --questions 0": lambda i: (["portable", "--questions", "0"], "--questions"),
    "proposals: files swapped": lambda i: (["proposals", S(i.drop), S(i.tatqa)], "drop-shaped"),
    "routing: empty files": lambda i: (["routing", S(i.empty), S(i.empty)], "empty.json"),
    "same-outputs: missing folders": lambda i: (
        ["same-outputs", S(i.nodir), S(i.nodir)],
        "no-such-folder",
    ),
    "same-outputs: no exports": lambda i: (
        ["same-outputs", S(i.emptydir), S(i.emptydir)],
        "empty-folder",
    ),
    "sampling: --k 0": lambda i: (["sampling", "--k", "0"], "--k"),
    "scan: negative size": lambda i: (["scan", "--", "-1", "5"], "SIZE_MB"),
    "scan: size 0": lambda i: (["scan", "0"], "SIZE_MB"),
    "scan-shapes: unknown shape": lambda i: (["scan-shapes", "--shape", "poetry"], "poetry"),
    "selector-cost: --candidates -5": lambda i: (
        ["selector-cost", "--candidates", "-5", "--no-model"],
        "--candidates",
    ),
    "server: --concurrency 0": lambda i: (["server", "--concurrency", "0"], "--concurrency"),
    "speculative: model file missing": lambda i: (
        ["speculative", "--large", S(i.root / "none.gguf")],
        "none.gguf",
    ),
    "tatqa-units: SQuAD file": lambda i: (["tatqa-units", S(i.squad)], "squad-shaped.json"),
    "tatqa-units: DROP file": lambda i: (["tatqa-units", S(i.drop)], "drop-shaped.json"),
    "tatqa-units: empty file": lambda i: (["tatqa-units", S(i.empty)], "empty.json"),
    "threads: --questions -1": lambda i: (["threads", "--questions", "-1"], "--questions"),
    "verifier: DROP file": lambda i: (["verifier", S(i.drop)], "drop-shaped.json"),
    "verifier: TAT-QA file": lambda i: (["verifier", S(i.tatqa)], "tatqa-shaped"),
    "verifier: empty file": lambda i: (["verifier", S(i.empty)], "empty.json"),
    "verifier: no figure or date question": lambda i: (
        ["verifier", S(i.squad)],
        "squad-shaped.json",
    ),
}
# Commands no case here runs, and why (each is audited by reading its code).
NOT_RUN = {
    ("fitted-files",): "its only input is --results; it builds the wheel (a process) first",
}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> Inputs:
    return Inputs(tmp_path_factory.mktemp("bad-inputs"))


def _refused(*args: object, **kwargs: object) -> None:
    raise AssertionError("a bench command given bad input reached a model or a process")


@pytest.fixture(autouse=True)
def no_model_no_process(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(llama.LlamaBackend, "__init__", _refused)
    monkeypatch.setattr(batched.BatchedLlamaBackend, "__init__", _refused)
    real = subprocess.Popen

    def git_only(cmd, *args, **kwargs):  # type: ignore[no-untyped-def]
        if isinstance(cmd, list | tuple) and cmd and cmd[0] == "git":
            return real(cmd, *args, **kwargs)
        return _refused()

    monkeypatch.setattr(subprocess, "Popen", git_only)  # subprocess.run's too
    yield


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_bench_command_refuses_bad_input_with_one_line(
    case: str, inputs: Inputs, monkeypatch: pytest.MonkeyPatch
) -> None:
    args, named = CASES[case](inputs)
    if args == ["looks"]:
        monkeypatch.setenv("FACTQA_LOOKS", str(inputs.looks / "looks.csv"))
    res = runner.invoke(cli.app, ["bench", *args])
    assert res.exception is None or isinstance(res.exception, SystemExit), (
        f"{case}: {type(res.exception).__name__}: {res.exception}"
    )
    assert res.exit_code != 0, f"{case}: exit 0\n{res.output}"
    assert "Traceback" not in res.output
    errors = [x for x in res.output.splitlines() if x.startswith("error:")]
    assert len(errors) <= 1, res.output  # one line, or the command line's own usage panel
    assert named in " ".join(res.output.split()), f"{case}: does not name {named}\n{res.output}"


def test_every_bench_command_is_audited() -> None:
    run = {tuple(c.split(":", 1)[0].split()) for c in CASES}
    assert run.isdisjoint(NOT_RUN)
    assert set(subcommands()) == run | set(NOT_RUN), set(subcommands()) ^ (run | set(NOT_RUN))


def test_abstention_reads_the_runs_own_k(inputs: Inputs) -> None:
    res = runner.invoke(cli.app, ["bench", "abstention", str(inputs.run)])
    assert res.exit_code == 0, res.output  # was a KeyError: small-selected@10 on a run of k=4
    assert "| as run |" in res.output and "questions" in res.output
