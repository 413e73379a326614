"""Issue 56's scan: what long runs of figures read as, and the shortcuts that keep a large text's
reading linear read exactly what the scanner reads. No timing here: `factqa bench scan-shapes`
measures the time of each shape at each size (docs/reliability-parts/scan.md)."""

from __future__ import annotations

import gc
import random
import re
from itertools import pairwise

import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.bench.measure.scan import SHAPES, shape_text
from experiment.values import tables
from experiment.values.canonical import Quantity
from experiment.values.dates import scan_dates
from experiment.values.normalize import scan
from experiment.values.numbers import SPACED_GROUPS, Spans, Taken
from experiment.values.tables import _plain_read, _scanned_read, article_mentions, parse_tables


def _read(text: str) -> list[tuple[str, object]]:
    return [(m.text, m.values[0] if m.values else m.refused) for m in scan(text)]


def test_a_long_space_separated_list_is_read_group_by_group() -> None:
    text = shape_text("spaced", 20_000).rstrip() + "."
    groups = re.findall(r"\d+", text)
    mentions = scan(text)
    assert [m.text for m in mentions] == groups  # no grouped figure, nothing refused whole
    assert all(
        m.values == (Quantity(float(g), float(g)),) for m, g in zip(mentions, groups, strict=True)
    )


@pytest.mark.parametrize("count", range(2, 13))
def test_a_spaced_run_is_one_figure_up_to_the_bound_and_a_list_beyond(count: int) -> None:
    zeros = " ".join(["1", *["000"] * (count - 1)])
    if count <= SPACED_GROUPS + 1:
        assert _read(zeros) == [(zeros, Quantity(10.0 ** (3 * count - 3), 10.0 ** (3 * count - 3)))]
    else:  # a list: no tail of it is read as a grouped figure either
        assert [t for t, _ in _read(zeros)] == zeros.split()
    listed = " ".join(str(100 * i + 23) for i in range(1, count + 1))  # 123 223 323 ...
    read = _read(f"Scores: {listed}.")
    if count > SPACED_GROUPS + 1:
        assert [t for t, _ in read] == listed.split()
    elif count > 5:  # one figure of more than 15 significant digits: refused, as before
        assert read == [(listed, "more than 15 significant digits")]
    else:
        value = float(listed.replace(" ", ""))
        assert read == [(listed, Quantity(value, value))]


def test_space_grouping_still_reads_the_documented_forms() -> None:
    assert _read("3 200") == [("3 200", Quantity(3200.0, 3200.0))]
    assert [t for t, _ in _read("She won 4 100m titles.")] == ["4", "100m"]
    assert [t for t, _ in _read("in 2021 1 200 people")] == ["2021", "1 200"]
    assert [t for t, _ in _read("1 234 567m")] == ["1", "234", "567m"]


def _cell_texts(seed: int, count: int) -> list[str]:
    """Cell texts near the plain-number form: digits, commas, points, parentheses, signs."""
    r = random.Random(seed)
    out = []
    for _ in range(count):
        n = r.randint(0, 10 ** r.randint(1, 17))
        text = f"{n:,}" if r.random() < 0.5 else str(n)
        if r.random() < 0.4:
            text += "." + str(r.randint(0, 10 ** r.randint(1, 6)))
        if r.random() < 0.2:
            text = r.choice(["0", "-", "$", "(", ".", ",", "1,"]) + text
        if r.random() < 0.3:
            text = f"({text})"
        if r.random() < 0.1:
            text += r.choice(["%", ")", ",", ".5", " m"])
        out.append(text)
    return out


def test_a_plain_number_cell_reads_as_the_scanner_reads_it() -> None:
    texts = _cell_texts(0, 5000)
    fast = [t for t in texts if _plain_read(t) is not None]
    assert len(fast) > 1000  # the shortcut is taken, and not for everything
    assert len(fast) < len(texts)
    for text in fast:
        assert _plain_read(text) == _scanned_read(text), text
    assert _plain_read("2019") is None and _plain_read("-5") is None  # a year, a sign


@pytest.mark.parametrize("shape", ["table", "tables", "bundled", "prose"])
def test_an_articles_mentions_are_those_of_the_scanner_read_cell_by_cell(
    shape: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = shape_text(shape, 30_000)
    tables._read.cache_clear()
    article_mentions.cache_clear()
    parse_tables.cache_clear()
    fast = article_mentions(text)
    article_mentions.cache_clear()
    parse_tables.cache_clear()
    monkeypatch.setattr(tables, "_read", tables._scanned_read)  # every cell through `scan`
    assert article_mentions(text) == fast


# tables whose edges touch prose: a last row without its closing pipe, a first row without its
# opening one, a fraction, a range and a qualifier reading on from a figure across a line break
EDGES = """Output (in thousands)

| Plant | 2024 | 2023 |
|---|---|---|
| North | 1,250 | about
5 to 7 tonnes a day, nearly two thirds of it at night.
Region | 12 | 3 1/2
---|---|---
| South | (340) | 4 million
and a half dollars, 7 000 000 more than 2 to
| East | 5.5% | -3 |
|---|---|---|
3 200 units in 2021 | 4 | 5
and 6 to 9 more, 1 234 567 890 123 456 789 in all.
"""


@pytest.mark.parametrize("shape", ["table", "tables", "bundled", "edges"])
def test_a_tables_figures_left_unread_in_the_whole_text_change_no_other_reading(
    shape: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = EDGES * 3 if shape == "edges" else shape_text(shape, 30_000)
    assert len(parse_tables(text)) >= (9 if shape == "edges" else 1)
    article_mentions.cache_clear()
    skipping = article_mentions(text)
    article_mentions.cache_clear()
    monkeypatch.setattr(tables, "_in_a_row", lambda *_: False)  # every figure read, as before
    assert article_mentions(text) == skipping


def test_a_table_larger_than_the_cache_of_cells_reads_each_cell_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the cache of cells holds 65,536: a larger table's cells were read again at every later
    # look (placing, values, mentions), each time through the scanner; now the reading is kept
    calls: list[str] = []
    uncached = tables._read.__wrapped__
    monkeypatch.setattr(tables, "_read", lambda t: calls.append(t) or uncached(t))
    text = shape_text("table", 20_000)
    parse_tables.cache_clear()
    article_mentions.cache_clear()
    mentions = article_mentions(text)
    (table,) = parse_tables(text)
    cells = sum(len(row) for row in table.rows)
    assert len(calls) == cells  # each cell once
    figures = {(c.start, c.end) for c in table.cells if not c.header and _plain_read(c.text)}
    assert len(figures) > cells / 2 and figures <= {(m.start, m.end) for m in mentions}


def test_a_cell_and_its_table_are_found_by_position() -> None:
    text = shape_text("tables", 20_000)
    found = parse_tables(text)
    assert len(found) > 20
    for table in found[::5]:
        for cell in list(table.cells)[::3]:
            assert table.cell_at(cell.start, cell.end) == cell
            assert tables._table_at(text, cell.start) == table
            assert table.cell_at(cell.start, cell.end + 3) is None  # past the cell's edge
        assert tables._table_at(text, table.start - 1) is None  # the caption line above
        assert table.cell_at(table.end + 5, table.end + 6) is None


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_as_it_was_after_a_large_scan(enabled: bool) -> None:
    (gc.enable if enabled else gc.disable)()
    try:
        scan(shape_text("prose", 9_000) + " ")
        article_mentions(shape_text("table", 9_000) + " ")
        assert gc.isenabled() is enabled
    finally:
        gc.enable()


def test_every_shape_is_made_to_size_and_the_same_each_time() -> None:
    for shape in SHAPES:
        text = shape_text(shape, 5_000)
        assert 5_000 <= len(text) < 5_100, shape
        assert shape_text(shape, 5_000) == text
        assert shape_text(shape, 5_000, seed=1) != text or shape == "bundled"


def test_an_unknown_shape_is_one_line_and_exit_code_2() -> None:
    res = CliRunner().invoke(cli.app, ["bench", "scan-shapes", "--shape", "poetry"])
    assert res.exit_code == 2, res.output
    assert "unknown shape 'poetry'" in res.output and "prose" in res.output
    assert "Traceback" not in res.output


def test_taken_characters_answer_as_sorted_spans_do() -> None:
    # dates and refusals are marked taken byte by byte now (`Taken`), not by insertion into sorted
    # lists (`Spans`), whose cost grew with the number of spans: the answers are the same
    r = random.Random(3)
    for _ in range(50):
        size = r.randint(1, 300)
        taken, spans = Taken(size), Spans([])
        for _ in range(r.randint(1, 60)):
            start = r.randrange(size)
            end = r.randint(start + 1, min(size, start + 12))
            assert taken.overlaps(start, end) == spans.overlaps(start, end)
            assert taken.add(start, end) == spans.add(start, end)


def test_a_text_of_dates_reads_every_date() -> None:
    text = shape_text("dates", 20_000)
    found = scan_dates(text)
    assert len(found) >= 2 * text.count(". ") - 2  # two dates a sentence
    assert all(a.end <= b.start for a, b in pairwise(found))
