"""Random bytes and structured garbage into every loader and the verifier (hypothesis, fixed
seed, 500 examples each): only clear `InputError`s come out, never a traceback. Every command of
the CLI: tests/test_garbage_cli.py."""

from __future__ import annotations

import csv
import io
import json
import tempfile
from collections.abc import Callable
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from experiment.config import build_config
from experiment.corpus import load_articles, load_questions, parse_article
from experiment.errors import InputError
from experiment.importers.service import import_dataset
from experiment.values.normalize import parse_value
from experiment.verify.batch import ArticleSource, verify_file
from experiment.verify.match import verify

SETTINGS = settings(
    max_examples=500,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

text = st.text(st.characters(blacklist_categories=["Cs"]), max_size=300)
cells = st.one_of(
    text,
    st.sampled_from(["", "..", "../x", "a/b", "alpha", "figure", "date", "unanswerable", '"', "|"]),
    st.integers().map(str),
)
csv_rows = st.lists(st.lists(cells, min_size=0, max_size=8), min_size=0, max_size=6)
header = st.lists(
    st.sampled_from(["id", "article_id", "question", "answers", "kind", "notes", "extra", ""]),
    max_size=7,
)
json_value = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=20,
)
KEYS = [
    "data",
    "title",
    "paragraphs",
    "context",
    "qas",
    "id",
    "question",
    "answers",
    "text",
    "is_impossible",
    "passage",
    "passage_id",
    "ref_text",
    "table",
    "uid",
    "answer",
    "scale",
]
json_shaped = st.recursive(
    st.none() | st.integers() | text,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=5)
    ),
    max_leaves=25,
)


def only_input_errors(fn: Callable[[], object]) -> None:
    try:
        fn()
    except InputError as e:
        assert str(e) and "\n" not in str(e).strip()  # one line


def write(data: bytes, name: str) -> tuple[tempfile.TemporaryDirectory[str], Path]:
    tmp = tempfile.TemporaryDirectory()
    path = Path(tmp.name) / name
    path.write_bytes(data)
    return tmp, path


def as_csv(head: list[str], rows: list[list[str]]) -> bytes:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(head)
    w.writerows(rows)
    return buf.getvalue().encode()


@SETTINGS
@given(st.binary(max_size=400))
def test_article_loader_random_bytes(data: bytes) -> None:
    tmp, path = write(data, "a.md")
    with tmp:
        only_input_errors(lambda: parse_article(path))
        only_input_errors(lambda: load_articles(path.parent))


@SETTINGS
@given(st.dictionaries(st.sampled_from(["id", "title", "published", "x"]), json_value), text)
def test_article_loader_structured_garbage(meta: dict, body: str) -> None:
    front = "\n".join(f"{k}: {json.dumps(v)}" for k, v in meta.items())
    tmp, path = write(f"---\n{front}\n---\n{body}".encode(), "a.md")
    with tmp:
        only_input_errors(lambda: parse_article(path))


@SETTINGS
@given(st.binary(max_size=400))
def test_questions_loader_random_bytes(data: bytes) -> None:
    tmp, path = write(data, "q.csv")
    with tmp:
        only_input_errors(lambda: load_questions(path))


@SETTINGS
@given(header, csv_rows, st.booleans())
def test_questions_loader_structured_garbage(
    head: list[str], rows: list[list[str]], cut: bool
) -> None:
    data = as_csv(head, rows)
    if cut:
        data = data + b'x,"unclosed\n'
    tmp, path = write(data, "q.csv")
    with tmp:
        only_input_errors(lambda: load_questions(path))


@SETTINGS
@given(
    st.sampled_from(["squad", "drop", "tatqa"]),
    st.one_of(st.binary(max_size=300), json_shaped.map(lambda v: json.dumps(v).encode())),
    st.booleans(),
)
def test_importers_random_and_structured_garbage(fmt: str, data: bytes, lines: bool) -> None:
    if lines:  # JSON lines for DROP
        data = b"\n".join([data, data])
    tmp, path = write(data, "data.json")
    with tmp:
        only_input_errors(lambda: import_dataset(fmt, path, Path(tmp.name) / "out"))


@SETTINGS
@given(st.binary(max_size=300))
def test_config_loader_random_bytes(data: bytes) -> None:
    tmp, path = write(data, "c.toml")
    with tmp:
        only_input_errors(lambda: build_config(path, {}))


@SETTINGS
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "k",
                "temperature",
                "top_p",
                "max_tokens",
                "limit",
                "small",
                "backend",
                "seed",
                "n_ctx",
            ]
        ),
        json_value,
        max_size=4,
    )
)
def test_config_values_of_any_type(values: dict) -> None:
    body = "\n".join(f"{k} = {json.dumps(v)}" for k, v in values.items())
    tmp, path = write(body.encode(), "c.toml")
    with tmp:
        only_input_errors(lambda: build_config(path, {}))


@SETTINGS
@given(
    st.lists(
        st.sampled_from(["id", "article_id", "article", "answer", "question", "kind", "x"]),
        max_size=6,
    ),
    csv_rows,
)
def test_verify_csv_structured_garbage(head: list[str], rows: list[list[str]]) -> None:
    tmp, path = write(as_csv(head, rows), "answers.csv")
    with tmp:
        only_input_errors(
            lambda: verify_file(path, path.with_suffix(".out.csv"), ArticleSource(None))
        )


@SETTINGS
@given(text, text, st.sampled_from(["figure", "date"]))
def test_verifier_any_text(answer: str, article: str, kind: str) -> None:
    verify(parse_value(answer, kind), article, answer)  # never raises
