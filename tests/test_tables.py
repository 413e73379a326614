"""The table model: Markdown pipe tables parsed into cells with offsets, row and column headers
and the scale and unit their column counts in; and confirmation with that scale."""

from __future__ import annotations

import pytest

from experiment.values.normalize import parse_value, scan
from experiment.values.numbers import times
from experiment.values.tables import (
    Cell,
    Scale,
    Table,
    article_mentions,
    markdown_table,
    parse_tables,
    read_scale,
)
from experiment.verify.match import verify


def only_table(text: str) -> Table:
    (table,) = parse_tables(text)
    return table


def cell(table: Table, text: str) -> Cell:
    (found,) = [c for c in table.cells if c.text == text]
    return found


def heads(c: Cell) -> tuple[list[str], list[str]]:
    return [h.text for h in c.row_headers], [h.text for h in c.column_headers]


def confirmed(answer: str, text: str) -> str | None:
    """The text of the span that confirms `answer` in `text`, or None."""
    verdict = verify(parse_value(answer, "figure"), text, answer)
    if not verdict.confirmed:
        return None
    assert verdict.span is not None
    assert text[verdict.span.start : verdict.span.end] == verdict.span.text
    return verdict.span.text


@pytest.mark.parametrize(
    ("marker", "factor", "unit"),
    [
        ("$ in millions", 1e6, "USD"),
        ("(€m)", 1e6, "EUR"),
        ("$'000", 1e3, "USD"),
        ("£000", 1e3, "GBP"),
        ("(in thousands)", 1e3, ""),
        ("(In thousands, except per share data)", 1e3, ""),
        ("in millions of euros", 1e6, "EUR"),
        ("US$ million", 1e6, "USD"),
        ("RMB’Million", 1e6, "CNY"),  # renminbi, as the mainland writes it
        ("%", 1.0, "%"),
        ("$", 1.0, "USD"),
        ("Change", 1.0, ""),
        ("2019", 1.0, ""),
        ("As reported", 1.0, ""),
    ],
)
def test_read_scale(marker: str, factor: float, unit: str) -> None:
    scale = read_scale(marker)
    assert (scale.factor, scale.unit) == (factor, unit)
    assert bool(scale) is (factor != 1.0 or bool(unit))


BARE = "| | 2019 |\n|---|---|\n| Revenue | 142.9 |"


@pytest.mark.parametrize(
    ("text", "factor", "unit"),
    [
        ("| ($ in millions) | 2019 |\n|---|---|\n| Revenue | 142.9 |", 1e6, "USD"),
        ("| (€m) | 2019 |\n|---|---|\n| Revenue | 142.9 |", 1e6, "EUR"),
        ("| | $'000 |\n|---|---|\n| Revenue | 142.9 |", 1e3, "USD"),
        ("| | 2019 (in thousands) |\n|---|---|\n| Revenue | 142.9 |", 1e3, ""),
        ("| | % |\n|---|---|\n| Margin | 142.9 |", 1.0, "%"),
        (f"Revenue by segment (in millions of euros)\n\n{BARE}", 1e6, "EUR"),
        (
            "Revenue by segment (in millions of euros)\n| | 2019 |\n|---|---|\n| A | 142.9 |",
            1e6,
            "EUR",
        ),
        ("| | 2019 |\n|---|---|\n| Revenue | 142.9 |", 1.0, ""),  # no scale stated
        # a caption that states a figure is prose, not a caption
        ("Sales rose 5% (in millions)\n\n| | 2019 |\n|---|---|\n| Revenue | 142.9 |", 1.0, ""),
        # two blank lines: too far above to be the caption
        ("In millions of euros\n\n\n| | 2019 |\n|---|---|\n| Revenue | 142.9 |", 1.0, ""),
    ],
)
def test_each_header_form_gives_the_cell_its_scale(text: str, factor: float, unit: str) -> None:
    figure = cell(only_table(text), "142.9")
    assert (figure.scale.factor, figure.scale.unit) == (factor, unit)
    assert heads(figure)[0] in (["Revenue"], ["Margin"], ["A"])


def test_merged_header_rows_below_the_separator_head_the_column() -> None:
    text = "| | 2019 | 2018 |\n|---|---|---|\n| | $'000 | $'000 |\n| Revenue | 1,200 | 1,050 |"
    table = only_table(text)
    assert table.header_rows == 2
    figure = cell(table, "1,200")
    assert heads(figure) == (["Revenue"], ["2019", "$'000"])
    assert (figure.scale.factor, figure.scale.unit) == (1e3, "USD")
    assert heads(cell(table, "1,050")) == (["Revenue"], ["2018", "$'000"])
    assert table.rows[1][1].header and not figure.header
    assert confirmed("$1.2 million", text) == "1,200"


def test_several_header_rows_above_the_separator_all_head_the_columns() -> None:
    text = "| | 2019 | 2018 |\n| | $'000 | $'000 |\n|---|---|---|\n| Revenue | 1,200 | 1,050 |"
    table = only_table(text)
    assert table.header_rows == 2
    assert heads(cell(table, "1,050")) == (["Revenue"], ["2018", "$'000"])


def test_a_group_header_spans_the_blank_cells_to_its_right() -> None:
    text = (
        "| | 2019 | | 2018 | |\n|---|---|---|---|---|\n| | Men | Women | Men | Women |\n"
        "| Aged 65 | 86.8 | 88.9 | 87.3 | 89.3 |"
    )
    table = only_table(text)
    assert heads(cell(table, "88.9")) == (["Aged 65"], ["2019", "Women"])
    assert heads(cell(table, "89.3")) == (["Aged 65"], ["2018", "Women"])


def test_a_lone_header_cell_heads_every_column() -> None:
    text = (
        "| | | For the year | |\n|---|---|---|---|\n| | 2019 | 2018 | 2017 |\n"
        "| | | (in millions) | |\n| License | $3,181 | $3,042 | $2,628 |"
    )
    table = only_table(text)
    assert table.header_rows == 3
    first = cell(table, "$3,181")
    assert heads(first) == (["License"], ["For the year", "2019", "(in millions)"])
    assert (first.scale.factor, first.scale.unit) == (1e6, "")
    assert confirmed("$3,181 million", text) == "$3,181"


def test_a_section_row_belongs_to_the_body_and_rows_are_headed_by_their_first_labels() -> None:
    text = "| | 2019 |\n|---|---|\n| Revenue: | |\n| License | 5 |\n| Men | Years | 86.8 |\n| | 7 |"
    table = only_table(text)
    assert table.header_rows == 1
    assert not cell(table, "Revenue:").header
    assert heads(cell(table, "86.8"))[0] == ["Men", "Years"]
    assert heads(cell(table, "7"))[0] == []  # a total row without a label


def test_a_column_scale_wins_over_the_tables_and_a_percentage_has_no_factor() -> None:
    text = (
        "| ($ in millions) | 2019 | Change |\n|---|---|---|\n| | | % |\n| Net sales | 142.9 | 9.4 |"
    )
    table = only_table(text)
    assert (table.scale.factor, table.scale.unit) == (1e6, "USD")
    share = cell(table, "9.4")
    assert (share.scale.factor, share.scale.unit) == (1.0, "%")
    assert confirmed("9.4%", text) == "9.4"
    assert confirmed("$9.4 million", text) is None
    assert confirmed("$142.9 million", text) == "142.9"


@pytest.mark.parametrize(
    "text",
    [
        "|---|---|\n| Revenue | 142.9 |\n| Costs | 12 |",  # separator first
        "| | |\n|---|---|\n| Revenue | 142.9 |\n| Costs | 12 |",  # an empty header row
    ],
)
def test_a_table_without_headers(text: str) -> None:
    table = only_table(text)
    assert table.header_rows == 0 and not table.scale
    figure = cell(table, "142.9")
    assert heads(figure) == (["Revenue"], []) and not figure.header
    assert confirmed("142.9", text) == "142.9"
    assert confirmed("$142.9 million", text) is None


def test_cells_know_their_offsets_with_or_without_outer_pipes() -> None:
    text = (
        "Intro line.\r\n\r\n  | a |  b  |\r\n|:--|--:|\r\n| 1,200 | x |\r\n\r\n"
        "c | d\n--- | ---\n  e  | 3 \nAfter."
    )
    tables = parse_tables(text)
    assert [[[c.text for c in row] for row in t.rows] for t in tables] == [
        [["a", "b"], ["1,200", "x"]],
        [["c", "d"], ["e", "3"]],
    ]
    for t in tables:
        for c in t.cells:
            assert text[c.start : c.end] == c.text
        assert text[t.start : t.end].count("\n") == len(t.rows)
    assert tables[0].caption is not None and tables[0].caption.text == "Intro line."


@pytest.mark.parametrize(
    "text",
    [
        "a | b\nc | d",  # no separator row: prose with pipes
        "Price | 3,200 units | 13,200 more",
        "A rule:\n---\nnot a table | 5",
        "",
        "|",
    ],
)
def test_without_a_separator_row_nothing_is_a_table(text: str) -> None:
    assert parse_tables(text) == ()
    assert article_mentions(text) == scan(text)


LONG = "9" * 14 + " " + "word " * 20_000


@pytest.mark.parametrize(
    ("row", "texts"),
    [
        ("|  |  |", None),  # a row of blank cells is no row
        ("| ---- | — |", None),  # dashes only: blank too
        ("| ---- | 5 |", ["----", "5"]),
        (r"| a \| b | 5 |", [r"a \| b", "5"]),
        ("| −1,234 | (1,234) |", ["−1,234", "(1,234)"]),
        ("| ((( | ) |", ["(((", ")"]),
        (f"| {LONG} | 1 |", [LONG.strip(), "1"]),
        ("| <b>x</b> | 10^400 |", ["<b>x</b>", "10^400"]),
    ],
)
def test_hostile_cells_parse_and_keep_their_offsets(row: str, texts: list[str] | None) -> None:
    text = f"| Item | (in thousands) |\n|---|---|\n{row}\n| end | 1 |"
    table = only_table(text)
    rows = [[c.text for c in r] for r in table.rows]
    assert rows == [["Item", "(in thousands)"], *([texts] if texts else []), ["end", "1"]]
    assert confirmed("1,000", text) == "1"
    for c in table.cells:
        assert text[c.start : c.end] == c.text
    for m in article_mentions(text):
        assert text[m.start : m.end] == m.text


def test_unicode_minus_and_accounting_parentheses_read_negative_in_a_table() -> None:
    text = (
        "| Item | (in thousands) |\n|---|---|\n| Loss | (1,234) |\n| Gain | −56 |\n| Net | $(53) |"
    )
    assert confirmed("-1,234", text) == "(1,234)"
    assert confirmed("1,234", text) == "(1,234)"  # the magnitude is written too
    assert confirmed("-1.234 million", text) == "(1,234)"
    assert confirmed("-56,000", text) == "−56"
    assert confirmed("56,000", text) is None  # a sign written is never dropped
    assert confirmed("-$53,000", text) == "$(53)"


def test_accounting_parentheses_outside_a_table_are_not_a_sign() -> None:
    assert confirmed("-1,234", "The loss was (1,234) in all.") is None
    assert confirmed("1,234", "The loss was (1,234) in all.") == "1,234"


SCALED = "| ($ in millions) | 2019 | 2018 |\n|---|---|---|\n| Revenue | 142.9 | 120.5 |"


@pytest.mark.parametrize(
    ("answer", "span"),
    [
        ("$142.9 million", "142.9"),
        ("142.9", "142.9"),  # as written
        ("142.9 million", "142.9"),
        ("142,900,000 dollars", "142.9"),
        ("$142.9 billion", None),
        ("142.9 thousand", None),
        ("€142.9 million", None),  # another currency
        ("$120.5 million", "120.5"),
        ("$1,429 million", None),
        ("$14.29 million", None),
    ],
)
def test_a_cell_confirms_with_its_tables_scale(answer: str, span: str | None) -> None:
    assert confirmed(answer, SCALED) == span
    assert confirmed(answer, f"In thousands.\n\n{SCALED}") == span  # the corner wins


def test_a_figure_with_its_own_scale_or_unit_or_a_year_is_not_scaled_again() -> None:
    text = (
        "| (in thousands) | 2019 |\n|---|---|\n| Income | $19.1 million |\n| Margin | 23.6% |\n"
        "| Expires | 2027 |\n| Plants | 12 km |"
    )
    assert confirmed("$19.1 million", text) == "$19.1 million"
    assert confirmed("$19.1 billion", text) is None
    assert confirmed("23.6 thousand", text) is None
    assert confirmed("2,027,000", text) is None
    assert confirmed("2027", text) == "2027"
    assert confirmed("12,000 km", text) is None


def test_the_cell_is_the_span_and_is_read_once() -> None:
    text = f"Revenue was $142.9 million.\n\n{SCALED}"
    verdict = verify(parse_value("$142.9 million", "figure"), text)
    assert [s.text for s in verdict.spans] == ["$142.9 million", "142.9"]
    (c,) = [c for c in only_table(text).cells if c.text == "142.9"]
    assert (verdict.spans[1].start, verdict.spans[1].end) == (c.start, c.end)


def test_header_cells_keep_their_readings_as_written() -> None:
    assert confirmed("2019", SCALED) == "2019"
    assert verify(parse_value("2018", "date"), SCALED).confirmed


def test_scaled_values_are_exact() -> None:
    assert times(142.9, 1e6) == 142_900_000.0
    assert times(0.29, 1e3) == 290.0
    assert times(1e95, 1e9) is None  # beyond the domain: no reading
    assert Scale(1e6, "USD").over(Scale(1e3, "")) == Scale(1e6, "USD")


def test_markdown_table_round_trips_and_escapes() -> None:
    rows = [
        ["", "2019", "2018"],
        ["Cash | equivalents", "$1,200", "line\nbreak"],
        ["", "", ""],
        ["Short"],
    ]
    text = markdown_table(rows)
    assert text.splitlines()[1] == "| --- | --- | --- |"
    table = only_table(text)
    assert [[c.text for c in r] for r in table.rows] == [
        ["", "2019", "2018"],
        [r"Cash \| equivalents", "$1,200", "line break"],
        ["Short", "", ""],
    ]
    assert table.header_rows == 1


def test_markdown_table_puts_an_empty_header_over_a_first_row_of_figures() -> None:
    text = markdown_table([["Revenue", "1,200"], ["Costs", "800"]])
    assert text.splitlines()[0] == "|  |  |"
    table = only_table(text)
    assert table.header_rows == 0 and [c.text for c in table.rows[0]] == ["Revenue", "1,200"]
    assert not cell(table, "1,200").header
    assert markdown_table([]) == "" and markdown_table([["", " "]]) == ""
