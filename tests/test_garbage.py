"""Random bytes and structured garbage into every loader and the verifier (hypothesis, fixed
seed, 500 examples each), and every importer fed mutations of small valid files (each field
swapped for each type, line breaks in each text, cut at each byte; hypothesis for odd values and
changed bytes): only clear `InputError`s come out, never a traceback, and what an importer
writes is well-formed. Every command of the CLI: tests/test_garbage_cli.py."""

from __future__ import annotations

import calendar
import copy
import csv
import functools
import gzip
import io
import json
import math
import operator
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from experiment.base.errors import InputError
from experiment.config import build_config
from experiment.corpus import load_articles, load_questions, parse_article
from experiment.importers.service import ImportResult, import_dataset
from experiment.values.normalize import parse_value
from experiment.verify.batch import ArticleSource, verify_file
from experiment.verify.match import verify
from tests.importer_fixtures import LAYOUTS

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
    fmt=st.sampled_from(["squad", "drop", "tatqa"]),
    data=st.one_of(st.binary(max_size=300), json_shaped.map(lambda v: json.dumps(v).encode())),
    lines=st.booleans(),
)
def test_importers_random_and_structured_garbage(
    fmt: str, data: bytes, lines: bool, work: Path
) -> None:
    if lines:  # JSON lines for DROP
        data = b"\n".join([data, data])
    import_or_refuse(fmt, "data.json", data, work)


# Importers: mutations of a small valid file of every layout (tests/importer_fixtures.py). Each
# gives a one-line InputError, or an import that `factqa run` loads whose golds are made of the
# input's own values (no "None", no "{'x': 1} thousand").

BIG, DEEP = "@@big@@", "@@deep@@"  # written as 5,000 digits and as 100,000 nested lists
DELETE = object()
TYPE_SWAPS: list[Any] = [DELETE, None, True, 0, "", "None", [None], {"x": 1}, BIG, DEEP]


@dataclass(frozen=True)
class Splice:
    """A swap that puts `mark` into the middle of a text value (other values stay)."""

    mark: str

    def __call__(self, old: Any) -> Any:
        if not isinstance(old, str):
            return old
        half = len(old) // 2
        return old[:half] + self.mark + old[half:]


SPLICES = [Splice(m) for m in ("\n", "\r", "\u2028", "\x85", "\x0b", "\x00", "|", '"', "\ufeff")]
SWAPS: list[Any] = [
    *TYPE_SWAPS, *SPLICES, -1, 2.5, 1e308, -1e308, 5e-324, math.nan, math.inf, 10**30, " ",
    "x", "12", [], [""], {},
]  # fmt: skip


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One folder the importer tests reuse (each import replaces the last)."""
    return tmp_path_factory.mktemp("imports")


def import_or_refuse(fmt: str, name: str, data: bytes, work: Path) -> None:
    """Import `data` as file `name` in `work`: a one-line InputError, or a well-formed import."""
    path = work / name
    path.write_bytes(data)
    try:
        with mock.patch("os.fsync"):  # what is written matters here, not its durability
            res = import_dataset(fmt, path, work / "out", overwrite=True)
    except InputError as e:
        assert str(e) and "\n" not in str(e).strip()  # one line
        return
    assert_well_formed(res, data)


def input_words(data: bytes) -> set[str]:
    """The words of every string and number of a JSON (or JSON lines, or gzip) file, as the
    importers write them (without NUL characters)."""
    text = (gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data).decode("utf-8-sig")
    try:
        stack = [json.loads(text)]
    except ValueError:
        stack = [json.loads(line) for line in text.split("\n") if line.strip()]
    words = set(calendar.month_name)
    while stack:
        value = stack.pop()
        if isinstance(value, dict | list):
            stack += value.values() if isinstance(value, dict) else value
        elif not isinstance(value, bool) and value is not None:
            words |= set(str(value).replace("|", " ").replace("\0", "").split())
    return words


def assert_well_formed(res: ImportResult, data: bytes) -> None:
    """`factqa run` loads the import, and every gold word (less a % the scale added) and, unless
    the input says None, every written text is the input's own."""
    articles = load_articles(res.articles)
    questions = load_questions(res.questions, articles)
    assert len(questions) == res.stats.kept > 0
    words = input_words(data)
    for q in questions:
        assert q.text.strip() and articles[q.article_id].text.strip()
        for gold in () if q.unanswerable else q.gold:
            assert all(w.rstrip("%") in words for w in gold.split()), (gold, q.id)
    if b"None" not in data:
        written = [res.questions, *res.articles.glob("*.md")]
        assert not any("None" in p.read_text(encoding="utf-8") for p in written)


def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """The path (keys and indices) of every value inside `value`."""
    if isinstance(value, dict | list):
        children = value.items() if isinstance(value, dict) else enumerate(value)
        return [
            p for key, child in children for p in [(*prefix, key), *paths(child, (*prefix, key))]
        ]
    return []


def dig(data: Any, path: tuple) -> Any:
    """The value at `path` inside `data`."""
    return functools.reduce(operator.getitem, path, data)


def mutated(layout: str, edits: list[tuple[int, Any]]) -> bytes:
    """Layout `layout`'s valid file with each (path number, swap) applied where the path still
    leads somewhere; BIG and DEEP are put in as raw JSON text."""
    _, _, valid, encode = LAYOUTS[layout]
    data = valid()
    every = paths(data)
    for index, swap in edits:
        *up, key = every[index % len(every)]
        try:
            parent = dig(data, tuple(up))
            if swap is DELETE:
                del parent[key]
            else:
                parent[key] = swap(parent[key]) if isinstance(swap, Splice) else copy.deepcopy(swap)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier edit changed the shape
    raw = encode(data)
    raw = raw.replace(json.dumps(BIG).encode(), b"9" * 5000)
    return raw.replace(json.dumps(DEEP).encode(), b"[" * 100_000 + b"]" * 100_000)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_importers_every_field_swapped_for_every_type(layout: str, work: Path) -> None:
    fmt, name, valid, _ = LAYOUTS[layout]
    for index in range(len(paths(valid()))):
        for swap in TYPE_SWAPS:
            import_or_refuse(fmt, name, mutated(layout, [(index, swap)]), work)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_importers_every_text_with_a_line_break_or_separator(layout: str, work: Path) -> None:
    fmt, name, valid, _ = LAYOUTS[layout]
    data = valid()
    texts = [i for i, p in enumerate(paths(data)) if isinstance(dig(data, p), str)]
    for index in texts:
        for splice in SPLICES:
            import_or_refuse(fmt, name, mutated(layout, [(index, splice)]), work)


FEWER = settings(SETTINGS, max_examples=200)  # each example is a whole import


@FEWER
@given(
    layout=st.sampled_from(sorted(LAYOUTS)),
    edits=st.lists(st.tuples(st.integers(0, 200), st.sampled_from(SWAPS)), min_size=1, max_size=4),
)
def test_importers_fields_swapped_for_odd_values(
    layout: str, edits: list[tuple[int, Any]], work: Path
) -> None:
    fmt, name = LAYOUTS[layout][:2]
    import_or_refuse(fmt, name, mutated(layout, edits), work)


@FEWER
@given(
    layout=st.sampled_from(sorted(LAYOUTS)),
    edits=st.lists(st.tuples(st.integers(0, 5000), st.binary(max_size=3)), min_size=1, max_size=4),
    gz=st.booleans(),
)
def test_importers_bytes_changed(
    layout: str, edits: list[tuple[int, bytes]], gz: bool, work: Path
) -> None:
    fmt, name = LAYOUTS[layout][:2]
    data = mutated(layout, [])
    for at, new in edits:
        at %= len(data)
        data = data[:at] + new + data[at + 1 :]
    import_or_refuse(fmt, name, gzip.compress(data, mtime=0) if gz else data, work)


@pytest.mark.parametrize(
    ("layout", "gz"), [*((n, False) for n in sorted(LAYOUTS)), ("drop-split", True)]
)
def test_importers_file_cut_at_every_byte(layout: str, gz: bool, work: Path) -> None:
    fmt, name = LAYOUTS[layout][:2]
    data = mutated(layout, [])
    data = gzip.compress(data, mtime=0) if gz else data
    for cut in range(len(data)):
        import_or_refuse(fmt, name, data[:cut], work)


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
