"""Every command fed damaged input, searched not sampled: truncation at every byte of small valid
files, random and structured mutations of them (hypothesis, derandomized, so CI sees the same
inputs), type swaps, deep nesting, huge and tiny numbers. Each command exits 0, 1 or 2 with one
'error:' line, never a traceback. `run` reaches a model only with inputs it accepts: a model that
refuses to load tells an accepted input (exit 1 with its message) from a refused one (exit 2)."""

from __future__ import annotations

import contextlib
import csv
import io
import itertools
import json
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import typer
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, assume, currently_in_test_context, event, given, settings
from hypothesis import strategies as st

from experiment import cli
from experiment.base.errors import ModelError

from .conftest import (
    LARGE_ANSWERS,
    SMALL_ANSWERS,
    FakeBackend,
    keyword_script,
    run_args,
    write_corpus,
)


def cases(n: int) -> settings:
    """n examples, the same ones on every machine."""
    return settings(
        max_examples=n,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )


FRONT = {"id": "a", "title": "Sales", "published": "2024-03-01"}
ARTICLE = ("---\n" + "".join(f"{k}: {v}\n" for k, v in FRONT.items()) + "---\n").encode() + (
    b"It sold 1,200 units in 2023.\n"
)
QUESTIONS = b'id,article_id,question,answers,kind\nq1,a,How many units were sold?,"1,200",figure\n'
CONFIG = b'[run]\nk = 2\ntemperature = 0.5\nmax_tokens = 16\nadaptive = "window"\n'
ANSWERS = b'article_id,question,answer,kind\na,How many units?,"1,200 units",figure\n'
NOT_LOADED = "no model is loaded in this test"

# values that break parsers: wrong types, huge and tiny numbers, deep nesting, markup, dates
# that are not dates, digits that are not ASCII
WORDS = [
    "", " ", "0", "-1", "1", "2", "1001", "100000000000000000000", "1e400", "-1e400", "1e-320",
    "nan", "inf", "-inf", "0x10", "1_000", "true", "null", "~", "[]", "{}", "[1, 2]", "{a: 1}",
    "[" * 50 + "]" * 50, "2025-02-30", "2025-13-45", "2024-03-01", "12 March 2024", "$1,200",
    "1,200", "unanswerable", "figure", "date", "excerpt:2", "excerpt:²", "excerpt:0", "window",
    "window:0", "posterior:2", "never", "3,3", "0,0", "-1,2", "[/x]", "[red]x", "../x", "a/b",
    "\x00", "\u202e", "\udcff", "٣", "𝟙𝟚", "'", '"', "|", "é" * 300,
]  # fmt: skip
words = st.sampled_from(WORDS) | st.text(max_size=40)


def one_line_or_none(res: Result, codes: tuple[int, ...] = (0, 1, 2)) -> None:
    """The command ended with an expected code and, if it failed, said why in one line."""
    assert res.exit_code in codes, (res.exit_code, res.output, res.exception)
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert "Traceback" not in res.output
    if currently_in_test_context():  # the outcomes, in --hypothesis-show-statistics
        net = " (past the checks)" if "do not fit together" in res.output else ""
        event(f"exit {res.exit_code}{net}")
    if res.exit_code in (1, 2):
        said = [line for line in res.output.splitlines() if line.startswith("error:")]
        assert len(said) == 1, res.output


COMMAND = typer.main.get_command(cli.app)  # built once: typer builds it anew on every invoke


def invoke(args: list[str]) -> Result:
    return CliRunner().invoke(COMMAND, args, prog_name="factqa")


def truncations(data: bytes) -> Iterator[bytes]:
    """The file cut at every byte."""
    return (data[:cut] for cut in range(len(data)))


@st.composite
def mutated(draw: st.DrawFn, data: bytes) -> bytes:
    """`data` with one structured damage: bytes cut, inserted, replaced or repeated, lines
    swapped, or a word of it swapped for one of WORDS."""
    at = draw(st.integers(0, len(data)))
    end = draw(st.integers(at, len(data)))
    how = draw(st.sampled_from(["cut", "insert", "replace", "repeat", "lines", "word"]))
    if how == "cut":
        return data[:at] + data[end:]
    if how == "insert":
        return data[:at] + draw(st.binary(min_size=1, max_size=20)) + data[at:]
    if how == "replace":
        return data[:at] + draw(st.binary(max_size=8)) + data[end:]
    if how == "repeat":
        return data[:end] + data[at:end] * draw(st.integers(2, 50)) + data[end:]
    lines = data.split(b"\n")
    if how == "lines":
        return b"\n".join(draw(st.permutations(lines)))
    text = data.decode()
    cells = text.replace(",", " , ").replace(":", " : ").replace("=", " = ").split(" ")
    i = draw(st.integers(0, len(cells) - 1))
    cells[i] = draw(words)
    return " ".join(cells).replace(" , ", ",").replace(" : ", ": ").encode()


def encoded(text: str) -> bytes:
    """UTF-8, lone surrogates (as a shell passes undecodable bytes) written as they are."""
    return text.encode("utf-8", "surrogatepass")


def refusing(spec: str, _cfg: object) -> FakeBackend:
    raise ModelError(f"{NOT_LOADED} ({spec[:20]})")


def scripted(spec: str, _cfg: object) -> FakeBackend:
    answers = SMALL_ANSWERS if "small" in spec else LARGE_ANSWERS
    return FakeBackend(spec, keyword_script({"sold": ["1,200", "1200 units", "2023"]} | answers))


@contextlib.contextmanager
def factory(make: Callable[[str, object], FakeBackend]) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cli, "_factory", lambda: make)
        yield


@contextlib.contextmanager
def folder(files: dict[str, bytes]) -> Iterator[Path]:
    """A temporary folder holding `files` (relative path -> bytes)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name, data in files.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        yield root


def run_in(root: Path, *extra: str) -> list[str]:
    return run_args(
        root / "articles", root / "q.csv", "fake-small", "fake-large", 2, root / "out", "t", *extra
    )


RUN_INPUTS = {"articles/a.md": ARTICLE, "q.csv": QUESTIONS, "c.toml": CONFIG}


def run_with(files: dict[str, bytes]) -> Result:
    """`factqa run` over RUN_INPUTS with `files` in their place."""
    with folder(RUN_INPUTS | files) as root:
        return invoke(run_in(root, "--config", str(root / "c.toml")))


def refused_or_accepted(res: Result) -> None:
    """Refused at the input (exit 2), or accepted and stopped where the model would load."""
    one_line_or_none(res, (1, 2))
    if res.exit_code == 1:
        assert NOT_LOADED in res.output, res.output


SQUAD = json.dumps({"version": "1.1", "data": [{"title": "T", "paragraphs": [{
    "context": "It sold 1,200 units in 2023.",
    "qas": [{"id": "q1", "question": "How many units were sold?",
             "answers": [{"text": "1,200", "answer_start": 8}]}]}]}]}).encode()  # fmt: skip


def test_the_undamaged_inputs_pass_every_command(finished) -> None:  # type: ignore[no-untyped-def]
    """The baseline the damage is measured from: each command succeeds on the files whole."""
    with factory(scripted):
        assert run_with({}).exit_code == 0
        with folder({"a.md": ARTICLE}) as root:
            assert "answer: 1,200 (small-pipeline@2" in invoke(ask_args(root / "a.md")).output
    with folder({"articles/a.md": ARTICLE, "answers.csv": ANSWERS, "s.json": SQUAD}) as root:
        res = invoke(verify_args(root))
        assert res.exit_code == 0 and "1 rows, 1 confirmed" in res.output, res.output
        one = ["verify", "--article", str(root / "articles/a.md"), "--", "1,200"]
        assert invoke(one).exit_code == 0
        res = invoke(["import", "squad", str(root / "s.json"), "--out", str(root / "o")])
        assert res.exit_code == 0 and "kept 1 figure/date questions" in res.output, res.output
    run, _ = finished
    with no_plots():
        assert invoke(report_args(run, html=True)).exit_code == 0
    assert invoke(["models", "list"]).exit_code == 0


# -- run ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["articles/a.md", "q.csv", "c.toml"])
def test_run_with_a_file_cut_at_every_byte(name: str) -> None:
    with factory(refusing):
        refused_or_accepted(whole := run_with({}))
        assert whole.exit_code == 1  # the whole files are accepted: the model is next
        for data in truncations(RUN_INPUTS[name]):
            refused_or_accepted(run_with({name: data}))


@cases(150)
@given(
    st.sampled_from(sorted(RUN_INPUTS)).flatmap(
        lambda name: st.tuples(st.just(name), mutated(RUN_INPUTS[name]))
    )
)
def test_run_with_a_damaged_file_refuses_it_before_any_model(damage: tuple[str, bytes]) -> None:
    name, data = damage
    with factory(refusing):
        refused_or_accepted(run_with({name: data}))


SETTINGS = ["k", "temperature", "top_p", "top_k", "max_tokens", "seed", "limit", "n_ctx",
            "backend", "speculative", "adaptive", "rounds", "small_context", "server_timeout",
            "server_retries", "server_concurrency", "label"]  # fmt: skip
TOML_VALUES = [
    "0", "-1", "1", "2", "1001", "100000000000000000000", "1e400", "-1e400", "1e-320", "nan",
    "inf", "-inf", "0.5", "true", '""', '"off"', '"window"', '"excerpt:2"', '"excerpt:²"',
    '"2,1"', '"0"', '"[/x]"', "[1]", "{a = 1}", "[" * 200 + "]" * 200, "2024-01-01",
]  # fmt: skip
toml_values = st.sampled_from(TOML_VALUES)


YAML = ["!!binary aGk=", "&a x", "*a", "!!python/object/apply:os.system ['true']", "? x",
        "- 1", "|\n  block", ">-", "!!int x", "!!float 1", "{", "'unclosed", "2024-01-01 25:00:00",
        "0000-01-01", "9999-12-31", "99999-01-01"]  # fmt: skip


@pytest.mark.parametrize("key", SETTINGS)
def test_run_with_every_value_of_every_setting(key: str) -> None:
    """Exhaustive over the values: every setting once with each, wrong types included."""
    with factory(refusing):
        for value in TOML_VALUES:
            refused_or_accepted(run_with({"c.toml": f"{key} = {value}".encode()}))


@pytest.mark.parametrize("key", sorted(FRONT))
def test_run_with_every_value_of_every_front_matter_field(key: str) -> None:
    with factory(refusing):
        for value in [*WORDS, *YAML]:
            line = encoded(f"{key}: {value}")
            article = ARTICLE.replace(f"{key}: {FRONT[key]}".encode(), line)
            refused_or_accepted(run_with({"articles/a.md": article}))


QUESTION_COLUMNS = ["id", "article_id", "question", "answers", "kind", "notes", "cluster",
                    "computed"]  # fmt: skip


@pytest.mark.parametrize("column", QUESTION_COLUMNS)
def test_run_with_every_value_in_every_question_column(column: str) -> None:
    whole = dict.fromkeys(QUESTION_COLUMNS, "") | {
        "id": "q1", "article_id": "a", "question": "How many?", "answers": "1,200", "kind": "figure"
    }  # fmt: skip
    with factory(refusing):
        for value in WORDS:
            buf = io.StringIO()
            csv.writer(buf).writerows([QUESTION_COLUMNS, [*(whole | {column: value}).values()]])
            refused_or_accepted(run_with({"q.csv": encoded(buf.getvalue())}))


def question_file(answer: str) -> bytes:
    buf = io.StringIO()
    csv.writer(buf).writerows(
        [["id", "article_id", "question", "answers"], ["q1", "a", "How many units?", answer]]
    )
    return encoded(buf.getvalue())


swaps = st.one_of(  # one input of a run changed, the others whole
    st.dictionaries(st.sampled_from(SETTINGS), toml_values, min_size=1, max_size=3).map(
        lambda values: {"c.toml": "\n".join(f"{k} = {v}" for k, v in values.items()).encode()}
    ),
    st.tuples(st.sampled_from(sorted(FRONT)), words).map(
        lambda kv: {
            "articles/a.md": ARTICLE.replace(
                f"{kv[0]}: {FRONT[kv[0]]}".encode(), encoded(f"{kv[0]}: {kv[1]}")
            )
        }
    ),
    (st.text(max_size=80) | st.sampled_from(WORDS)).map(
        lambda body: {"articles/a.md": ARTICLE + encoded(body)}
    ),
    (words | st.sampled_from(["", "1,200", "1200", "unanswerable", "1,200 | 2023"])).map(
        lambda answer: {"q.csv": question_file(answer)}
    ),
)


@cases(50)
@given(swaps)
def test_run_end_to_end_with_swapped_values(files: dict[str, bytes]) -> None:
    """A value of another type in the config, the front matter, the text or a question's gold;
    a run that accepts it goes through generation, checking, scoring and export."""
    with factory(scripted):
        one_line_or_none(run_with(files))


# -- ask ------------------------------------------------------------------------------------


def ask_args(path: Path, *extra: str, question: str = "How many units were sold?") -> list[str]:
    return ["ask", "--model", "fake-small", "-k", "2", *extra, "--", str(path), question]


def test_ask_with_an_article_cut_at_every_byte() -> None:
    with factory(scripted):
        for data in truncations(ARTICLE):
            with folder({"a.md": data}) as root:
                one_line_or_none(invoke(ask_args(root / "a.md")))


@cases(120)
@given(st.binary(max_size=300) | mutated(ARTICLE))
def test_ask_with_random_and_damaged_articles(data: bytes) -> None:
    with factory(scripted), folder({"a.md": data}) as root:
        one_line_or_none(invoke(ask_args(root / "a.md")))


def click_reads(option: str, value: str) -> bool:
    """Whether click takes `value` for `option` (what it refuses is its usage error, not ours)."""
    try:
        {"-k": int, "--seed": int, "--temperature": float}.get(option, str)(value)
    except ValueError:
        return False
    return True


ASK_NUMBERS = ["0", "-1", "3", "1001", "100000000000000000000", "1e400", "nan", "-inf", "1e-320"]


@pytest.mark.parametrize("option", ["-k", "--temperature", "--seed", "--kind", "--small-context"])
def test_ask_with_every_value_of_every_option(option: str) -> None:
    values = ASK_NUMBERS if option in ("-k", "--seed", "--temperature") else WORDS
    with factory(scripted), folder({"a.md": ARTICLE}) as root:
        for value in (v for v in values if click_reads(option, v)):
            one_line_or_none(invoke(ask_args(root / "a.md", option, value)))


def test_ask_and_verify_with_every_question_and_answer_text() -> None:
    with factory(scripted), folder({"a.md": ARTICLE}) as root:
        for text in WORDS:
            one_line_or_none(invoke(ask_args(root / "a.md", question=text)))
            answer = ["verify", "--article", str(root / "a.md"), "--", text]
            one_line_or_none(invoke(answer), (0, 1, 2, 3))  # 3: not confirmed


@cases(80)
@given(
    st.lists(
        st.sampled_from(["-k", "--temperature", "--seed", "--kind", "--small-context"]).flatmap(
            lambda option: st.tuples(
                st.just(option),
                st.sampled_from(ASK_NUMBERS)
                if option in ("-k", "--seed", "--temperature")
                else words,
            )
        ),
        max_size=3,
    ),
    words,
)
def test_ask_with_any_option_values(options: list[tuple[str, str]], question: str) -> None:
    assume(all(click_reads(option, value) for option, value in options))
    flat = [part for pair in options for part in pair]
    with factory(scripted), folder({"a.md": ARTICLE}) as root:
        one_line_or_none(invoke(ask_args(root / "a.md", *flat, question=question or "?")))


# -- verify ---------------------------------------------------------------------------------


def verify_args(root: Path) -> list[str]:
    return ["verify", str(root / "answers.csv"), "--articles", str(root / "articles")]


def test_verify_with_answers_cut_at_every_byte() -> None:
    for data in truncations(ANSWERS):
        with folder({"articles/a.md": ARTICLE, "answers.csv": data}) as root:
            one_line_or_none(invoke(verify_args(root)))


@cases(100)
@given(st.binary(max_size=200) | mutated(ANSWERS), mutated(ARTICLE))
def test_verify_with_damaged_answers_and_articles(answers: bytes, article: bytes) -> None:
    with folder({"articles/a.md": article, "answers.csv": answers}) as root:
        one_line_or_none(invoke(verify_args(root)))


@cases(60)
@given(words, st.sampled_from(["", "figure", "date", "colour"]), mutated(ARTICLE))
def test_verify_one_answer_against_a_damaged_article(answer: str, kind: str, art: bytes) -> None:
    with folder({"a.md": art}) as root:
        args = ["verify", "--article", str(root / "a.md"), "--kind", kind, "--", answer]
        one_line_or_none(invoke(args), (0, 1, 2, 3))  # 3: not confirmed


# -- report ---------------------------------------------------------------------------------

RUN_FILES = ("manifest.json", "summary.csv", "questions.csv", "curves.csv", "attempts.csv",
             "blindspots.csv", "routing.csv")  # fmt: skip


@pytest.fixture(scope="module")
def finished() -> Iterator[tuple[Path, dict[str, bytes]]]:
    """A run folder written by `factqa run` with scripted models, and its files' bytes."""
    with tempfile.TemporaryDirectory() as tmp, factory(scripted):
        root = Path(tmp)
        arts, qs = write_corpus(root)
        res = invoke(run_args(arts, qs, "fake-small", "fake-large", 2, root / "out", "t"))
        assert res.exit_code == 0, res.output
        run = root / "out" / "t"
        yield run, {name: (run / name).read_bytes() for name in RUN_FILES}


@contextlib.contextmanager
def damaged(run: Path, original: dict[str, bytes], name: str, data: bytes) -> Iterator[None]:
    """`name` in the run folder holds `data` while inside; restored after, and what the report
    wrote removed (the report writes nothing else into the folder)."""
    (run / name).write_bytes(data)
    try:
        yield
    finally:
        (run / name).write_bytes(original[name])
        shutil.rmtree(run / "plots", ignore_errors=True)
        (run / "report.html").unlink(missing_ok=True)


@contextlib.contextmanager
def no_plots() -> Iterator[None]:
    """Plots drawn as empty lists: what they draw from is checked, not how long they take."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("experiment.report.plots.plot_files", lambda run, folder: [])
        mp.setattr("experiment.report.html.plot_files", lambda run, folder: [])
        yield


def report_args(run: Path, html: bool) -> list[str]:
    articles = ["--html", "--articles", str(run.parent.parent / "articles")] if html else []
    return ["report", str(run), *articles]


def test_report_with_the_manifest_cut_at_every_byte(finished) -> None:  # type: ignore[no-untyped-def]
    run, original = finished
    with no_plots():
        whole = original["manifest.json"]
        for data in truncations(whole):
            with damaged(run, original, "manifest.json", data):
                res = invoke(report_args(run, html=False))
                # cut anywhere but its last newline, it is no manifest
                one_line_or_none(res, (0,) if data.strip() == whole.strip() else (2,))


def test_report_with_a_table_cut_at_every_line_and_inside_it(finished) -> None:  # type: ignore[no-untyped-def]
    run, original = finished
    with no_plots():
        for name in ("summary.csv", "questions.csv", "curves.csv", "routing.csv"):
            data = original[name]
            starts = [0] + [i + 1 for i, byte in enumerate(data) if byte == ord("\n")]
            for a, b in itertools.pairwise(starts):
                for cut in (a, (a + b) // 2):  # at the start of the line, and inside it
                    with damaged(run, original, name, data[:cut]):
                        one_line_or_none(invoke(report_args(run, html=name == "questions.csv")))


json_garbage = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.sampled_from(WORDS),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(WORDS), inner, max_size=3)
    ),
    max_leaves=10,
) | st.just(json.loads("[" * 500 + "]" * 500))


@st.composite
def swapped_manifest(draw: st.DrawFn, data: bytes) -> bytes:
    """The manifest with one value, at the top or one level down, of another type."""
    manifest = json.loads(data)
    key = draw(st.sampled_from(sorted(manifest)))
    if isinstance(manifest[key], dict) and manifest[key] and draw(st.booleans()):
        inner = draw(st.sampled_from(sorted(manifest[key])))
        manifest[key][inner] = draw(json_garbage)
    else:
        manifest[key] = draw(json_garbage)
    return json.dumps(manifest).encode()


@cases(100)
@given(st.data(), st.sampled_from(RUN_FILES), st.booleans())
def test_report_with_a_damaged_run_file(
    finished, data: st.DataObject, name: str, html: bool
) -> None:  # type: ignore[no-untyped-def]
    run, original = finished
    how = mutated(original[name])
    if name == "manifest.json":
        how = how | swapped_manifest(original[name])
    with no_plots(), damaged(run, original, name, data.draw(how)):
        one_line_or_none(invoke(report_args(run, html)))


@cases(8)
@given(st.data(), st.sampled_from(["summary.csv", "curves.csv", "routing.csv", "questions.csv"]))
def test_report_draws_its_plots_from_a_damaged_table(
    finished, data: st.DataObject, name: str
) -> None:  # type: ignore[no-untyped-def]
    run, original = finished
    with damaged(run, original, name, data.draw(mutated(original[name]))):
        one_line_or_none(invoke(report_args(run, html=False)))


# -- compare --------------------------------------------------------------------------------


@contextlib.contextmanager
def unhashed(run: Path, original: dict[str, bytes]) -> Iterator[None]:
    """The run's manifest without its outputs' hashes while inside (a folder from before they
    were recorded): each file's own reading is then what meets the damage."""
    manifest = json.loads(original["manifest.json"])
    del manifest["outputs"]
    (run / "manifest.json").write_text(json.dumps(manifest))
    try:
        yield
    finally:
        (run / "manifest.json").write_bytes(original["manifest.json"])


def compare_args(run: Path) -> list[str]:
    """`factqa compare` of the (damaged) run against an undamaged copy of it."""
    return ["compare", str(run), str(run.parent / "whole")]


@pytest.fixture(scope="module")
def comparable(finished) -> tuple[Path, dict[str, bytes]]:  # type: ignore[no-untyped-def]
    """The finished run beside an undamaged copy of it, `whole`."""
    run, original = finished
    if not (run.parent / "whole").exists():
        shutil.copytree(run, run.parent / "whole")
    assert invoke(compare_args(run)).exit_code == 0
    return run, original


def test_compare_with_the_manifest_cut_at_every_byte(comparable) -> None:  # type: ignore[no-untyped-def]
    run, original = comparable
    whole = original["manifest.json"]
    for data in truncations(whole):
        with damaged(run, original, "manifest.json", data):
            one_line_or_none(
                invoke(compare_args(run)), (0,) if data.strip() == whole.strip() else (2,)
            )


@cases(100)
@given(st.data(), st.sampled_from(RUN_FILES), st.booleans())
def test_compare_with_a_damaged_run_file(
    comparable, data: st.DataObject, name: str, hashed: bool
) -> None:  # type: ignore[no-untyped-def]
    run, original = comparable
    how = mutated(original[name])
    if name == "manifest.json":
        how = how | swapped_manifest(original[name])
    with contextlib.ExitStack() as stack:
        if not hashed and name != "manifest.json":
            stack.enter_context(unhashed(run, original))
        stack.enter_context(damaged(run, original, name, data.draw(how)))
        one_line_or_none(invoke(compare_args(run)))


# -- import and models ----------------------------------------------------------------------


@cases(80)
@given(
    st.sampled_from(["squad", "drop", "tatqa"]),
    st.binary(max_size=200) | json_garbage.map(lambda v: json.dumps(v).encode()) | mutated(SQUAD),
    st.lists(
        st.sampled_from(["--sample", "--seed", "--unanswerable", "--half"]).flatmap(
            lambda option: st.tuples(st.just(option), st.sampled_from(
                ["0", "-1", "1", "100000000000000000000"] if option != "--half" else WORDS
            ))
        ),
        max_size=2,
    ),
)  # fmt: skip
def test_import_with_garbage_and_any_options(
    fmt: str, data: bytes, options: list[tuple[str, str]]
) -> None:
    flat = [part for pair in options for part in pair]
    missing = {"squad": (), "drop": ("--unanswerable",), "tatqa": ("--unanswerable", "--half")}
    assume(not set(flat) & set(missing[fmt]))  # options the command lacks: click's usage error
    with folder({"data.json": data}) as root:
        args = ["import", fmt, str(root / "data.json"), "--out", str(root / "out"), *flat]
        one_line_or_none(invoke(args))


@cases(40)
@given(words)
def test_models_pull_and_list_with_any_name_and_models_folder(name: str) -> None:
    from experiment.generate.models.catalog import CATALOG

    assume(name not in CATALOG)  # would download
    with folder({"a_file": b"x"}) as root, pytest.MonkeyPatch.context() as mp:
        for place in (root / "a_file", root / "a_file" / "models", root / ("m" * 300), root):
            mp.setenv("FACTQA_MODELS_DIR", str(place))
            one_line_or_none(invoke(["models", "pull", "--", name]), (1,))
            one_line_or_none(invoke(["models", "list"]))
