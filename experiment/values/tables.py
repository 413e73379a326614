"""Tables in a text: Markdown pipe tables read as cells that know their headers, and the scale
and unit each column counts in.

A table is a run of consecutive lines holding an unescaped `|`, one of which is a separator row
(`|---|:--:|`). Without a separator row nothing is a table, so prose with a pipe in it stays
prose. The rows above the separator are header rows, and so are the leading rows below it that
only label the columns (docs/NORMALIZER.md, "Tables"). Every cell keeps its offsets in the whole
text: `text[cell.start:cell.end] == cell.text`.

`article_mentions` is `scan` with the tables read as tables: a figure cell of a table body is one
mention, the cell, whose values are its figure as written and, where the table states a scale or
a unit, that figure in it ("142.9" under "$ in millions" also reads 142900000 USD); accounting
parentheses ("(1,234)") add the negative reading. A text without a table reads exactly as `scan`
reads it.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from itertools import pairwise

from experiment.base.types import Span
from experiment.values.canonical import UNITS, DateValue, Quantity, Value, quantities_equal
from experiment.values.normalize import (
    Mention,
    collector_paused,
    outermost,
    scan,
    scan_leaving,
)
from experiment.values.numbers import (
    CURRENCY_SYMBOLS,
    CURRENCY_WORDS,
    MAX_DIGITS,
    Spans,
    times,
)

_PIPE = re.compile(r"(?<!\\)\|")
_SEPARATOR_CELL = re.compile(r"\s*:?-+:?\s*")
_BLANK = re.compile(r"[\s\-‐‑‒–—―−]*")  # empty, or only dashes (a nil in accounts)
_LETTER_OR_DIGIT = re.compile(r"[^\W_]")
_LETTER = re.compile(r"[^\W\d_]")


def _alt(words: Sequence[str]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_CODES = [w for w in CURRENCY_WORDS if len(w) == 3 and w.isalpha() and w != "yen"]
_SYMBOL = _alt(list(CURRENCY_SYMBOLS))
_CURRENCY = rf"(?:{_SYMBOL}|\b(?:{_alt(_CODES)})\b)"
_SCALE_WORD = r"(?P<word>thousand|million|billion)s?\b"
_IN_SCALE = re.compile(
    rf"(?:(?P<cur>{_CURRENCY})\s*)?\bin\s+(?:(?P<cur2>{_CURRENCY})\s*)?{_SCALE_WORD}"
    rf"(?:\s+of\s+(?P<cur3>{_alt(list(CURRENCY_WORDS))})\b)?",
    re.IGNORECASE,
)
_CODE = r"(?-i:\b[A-Z]{3}\b)"  # a currency code the scanner does not know: its scale only
_CURRENCY_SCALE = re.compile(
    rf"(?P<cur>{_CURRENCY}|{_CODE})\s?['’]?(?:(?P<abbr>000s?|mn|mln|bn|m|b|k)(?![\w'’])|{_SCALE_WORD})",
    re.IGNORECASE,
)
_THOUSANDS = re.compile(r"(?<![\w'’])(?:['’]000s?|000s)(?!\w)")
_CURRENCY_ALONE = re.compile(rf"(?:^|\()\s*(?P<cur>{_CURRENCY})\s*(?:$|\))", re.IGNORECASE)
_PERCENT = re.compile(r"%|\bper\s?cent(?:age)?\b", re.IGNORECASE)
# A unit named alone in brackets, "(MW)", "(km)": as canonical.UNITS writes it, case and all, and
# of two characters or more ("(m)" may be a million, "(B)" a billion)
_UNIT_ALONE = re.compile(r"\(\s*(?P<unit>[^\s()]{2,6})\s*\)")
_BRACKET_UNITS = {u for u in UNITS if len(u) > 1 and u not in ("pp", "ord")}
_SYMBOLS = re.compile(_SYMBOL, re.IGNORECASE)
_FACTORS = {
    "thousand": 1e3,
    "000": 1e3,
    "000s": 1e3,
    "k": 1e3,
    "million": 1e6,
    "m": 1e6,
    "mn": 1e6,
    "mln": 1e6,
    "billion": 1e9,
    "bn": 1e9,
    "b": 1e9,
}


@dataclass(frozen=True)
class Scale:
    """What a table's figures count in: a factor ("in millions": 1e6) and a unit (a currency
    code or "%"), with the text that says so."""

    factor: float = 1.0
    unit: str = ""
    source: str = ""

    def __bool__(self) -> bool:
        return self.factor != 1.0 or bool(self.unit)

    def over(self, base: Scale) -> Scale:
        """This scale where it says something, `base` where it does not; a percentage has no
        factor."""
        if not self or not base or self.source == base.source:
            return self or base
        unit = self.unit or base.unit
        factor = self.factor if self.factor != 1.0 else base.factor
        return Scale(1.0 if unit == "%" else factor, unit, f"{base.source}; {self.source}")


def _currency(token: str | None) -> str:
    token = (token or "").strip().lower()
    return CURRENCY_SYMBOLS.get(token) or CURRENCY_WORDS.get(token, "")


def read_scale(text: str) -> Scale:
    """The scale and unit a header cell or a caption states ("$ in millions": 1e6 USD, "(€m)":
    1e6 EUR, "$'000": 1e3 USD, "(in thousands)": 1e3, "%", "(MW)"), or `Scale()` when it states
    none."""
    source = text.strip()
    if m := _IN_SCALE.search(text):
        unit = _currency(m["cur"] or m["cur2"] or m["cur3"])
        return Scale(_FACTORS[m["word"].lower()], unit, source)
    if m := _CURRENCY_SCALE.search(text):
        factor = _FACTORS[(m["abbr"] or m["word"]).lower()]
        return Scale(factor, _currency(m["cur"]), source)
    if _THOUSANDS.search(text):
        return Scale(1e3, "", source)
    if m := _CURRENCY_ALONE.search(source):
        return Scale(1.0, _currency(m["cur"]), source)
    if _PERCENT.search(text):
        return Scale(1.0, "%", source)
    if (m := _UNIT_ALONE.search(text)) and m["unit"] in _BRACKET_UNITS:
        return Scale(1.0, m["unit"], source)
    return Scale()


@dataclass(frozen=True)
class _Read:
    """What a cell's text holds, before its place in a table is known."""

    blank: bool
    figure: Mention | None  # the one figure of a cell that holds nothing else (offsets in it)
    dated: bool  # a year or a date: labels a column ("2019", "December 31, 2019")
    scale: Scale
    mentions: tuple[Mention, ...] = ()  # `scan` of the cell's text


@dataclass(frozen=True)
class Cell:
    """One cell: its text at text[start:end], where it stands, the cells that head it (its row's
    leading labels left of it; the header cells above it) and the scale its column counts in."""

    start: int
    end: int
    text: str
    row: int
    column: int
    header: bool  # in a header row
    row_headers: tuple[Span, ...] = ()
    column_headers: tuple[Span, ...] = ()
    scale: Scale = Scale()
    # its text read (`_read`), kept from when the table was parsed: a table larger than the cache
    # of cells is then still scanned once per cell, not again at each later look at the cell
    read: _Read | None = field(default=None, compare=False, repr=False)

    @property
    def span(self) -> Span:
        return Span(self.start, self.end, self.text)


@dataclass(frozen=True)
class Table:
    """A table: its rows of cells (the first `header_rows` head the columns), the scale the
    whole table counts in (its corner cells, else its caption) and the caption line above it."""

    start: int
    end: int
    rows: tuple[tuple[Cell, ...], ...]
    header_rows: int
    scale: Scale
    caption: Span | None = None

    @property
    def cells(self) -> Iterator[Cell]:
        return (c for row in self.rows for c in row)

    def cell_at(self, start: int, end: int) -> Cell | None:
        """The cell that holds text[start:end], if one does: found by bisection over the rows
        and the row's cells (in order and disjoint), not by a walk through every cell."""
        i = bisect.bisect_right(self.rows, start, key=lambda row: row[0].start) - 1
        if i < 0:
            return None
        row = self.rows[i]
        j = bisect.bisect_right(row, start, key=lambda c: c.start) - 1
        cell = row[j] if j >= 0 else None
        return cell if cell is not None and cell.start <= start and end <= cell.end else None


def _figure(text: str, mentions: Sequence[Mention]) -> Mention | None:
    """The one figure of a cell that is that figure and nothing else: around it only currency
    symbols, parentheses, signs or marks ("$(1,234)", "142.9", "(9.4%)", "12*")."""
    outer = outermost(mentions)
    if len(outer) != 1 or not any(isinstance(v, Quantity) for v in outer[0].values):
        return None
    rest = _SYMBOLS.sub(" ", f"{text[: outer[0].start]} {text[outer[0].end :]}")
    return None if _LETTER_OR_DIGIT.search(rest) else outer[0]


# A cell that is a plain number, bare or in accounting parentheses ("12,345", "142.9", "(1,234)"):
# digits grouped by commas or not, never four digits alone (a year), at most `MAX_DIGITS` digits.
_PLAIN = re.compile(r"(\()?(\d{1,3}(?:,\d{3})*(?:\.\d+)?|\d+\.\d+|\d{5,})(?(1)\))")


def _plain_read(text: str) -> _Read | None:
    """`_scanned_read(text)` of a plain number cell (`_PLAIN`), without the scanner's passes: most
    cells of a large table are one, and each pass costs more than this whole reading (the scanner
    reads such a text as this one figure, no date, no refusal: tests/test_scan_shapes.py compares
    the two). None for any other text."""
    m = _PLAIN.fullmatch(text)
    if m is None or sum(c.isdigit() for c in m[2]) > MAX_DIGITS:
        return None
    value = float(Decimal(m[2].replace(",", "")))  # exact: at most MAX_DIGITS digits
    figure = Mention(m.start(2), m.end(2), m[2], (Quantity(value, value),))
    return _Read(False, figure, False, Scale(), (figure,))


@lru_cache(maxsize=1 << 16)  # a cell is read several times: every cell of a large table cached
def _read(text: str) -> _Read:
    """What a cell's text holds (`_Read`)."""
    return _plain_read(text) or _scanned_read(text)


def _scanned_read(text: str) -> _Read:
    """`_read` by the scanner: the text's mentions, its one figure and the scale it states."""
    if _BLANK.fullmatch(text):
        return _Read(True, None, False, Scale())
    mentions = scan(text)
    dated = any(isinstance(v, DateValue) for m in mentions for v in m.values)
    scale, figure = read_scale(text), _figure(text, mentions)
    if scale.factor != 1.0:
        return _Read(False, None, dated, scale, mentions)  # "$'000" is a scale, not the figure 0
    return _Read(False, figure, dated, Scale() if figure else scale, mentions)


def _of(cell: Cell) -> _Read:
    """The cell's text read: the reading kept on the cell, else `_read` (cached)."""
    return cell.read if cell.read is not None else _read(cell.text)


def _counts(read: _Read) -> bool:
    """A figure that is not a year or a date: a body row holds one, a header row none."""
    return read.figure is not None and not read.dated


def _heads_columns(cells: Sequence[str]) -> bool:
    """Whether a row of cell texts could head a table: no figure but years and dates after its
    first cell (the importer writes such a first row as the header row)."""
    return not any(_counts(_read(c.strip())) for c in cells[1:])


def _extends_header(reads: Sequence[_Read]) -> bool:
    """A row below the separator that still heads the columns: it could head them, and its first
    cell is blank or some cell is a year, a date or a scale ("| | 2019 | 2018 |",
    "| | $'000 | $'000 |"); "| Revenue: | | |" is a section of the body."""
    if not reads or any(_counts(r) for r in reads[1:]):
        return False
    return reads[0].blank or any(r.dated or r.scale for r in reads)


def _lines(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) of every line of `text`, without its line break."""
    pos = 0
    for line in text.split("\n"):
        yield pos, pos + len(line.removesuffix("\r"))
        pos += len(line) + 1


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    inner = text[start:end]
    lead = start + len(inner) - len(inner.lstrip())
    return lead, max(lead, start + len(inner.rstrip()))


def _row_cells(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """(start, end) of each cell of the pipe row text[start:end], whitespace trimmed; a blank
    stretch before the first pipe or after the last is an outer pipe, not a cell."""
    cuts = [start - 1, *(m.start() for m in _PIPE.finditer(text, start, end)), end]
    cells = [_trimmed(text, a + 1, b) for a, b in pairwise(cuts)]
    if len(cells) > 1 and cells[0][0] == cells[0][1]:
        cells = cells[1:]
    if len(cells) > 1 and cells[-1][0] == cells[-1][1]:
        cells = cells[:-1]
    return cells


def _is_separator(text: str, cells: list[tuple[int, int]]) -> bool:
    return all(_SEPARATOR_CELL.fullmatch(text[a:b]) for a, b in cells)


def _blocks(text: str) -> Iterator[list[tuple[int, int]]]:
    """The runs of consecutive lines that hold an unescaped pipe."""
    block: list[tuple[int, int]] = []
    for start, end in _lines(text):
        if _PIPE.search(text, start, end):
            block.append((start, end))
            continue
        if block:
            yield block
        block = []
    if block:
        yield block


def _caption(text: str, start: int) -> Span | None:
    """The line just above a table (one blank line between allowed), when it states no figure
    but years and dates."""
    end = start
    while end > 0 and text[end - 1].isspace():  # the end of the text above, without copying it
        end -= 1
    if not end or text.count("\n", end, start) > 2:
        return None
    a, b = _trimmed(text, text.rfind("\n", 0, end) + 1, end)
    figures = (v for m in scan(text[a:b]) for v in m.values if isinstance(v, Quantity))
    if any(v.as_year() is None for v in figures):
        return None
    return Span(a, b, text[a:b])


def _unit_only(cell: Cell | None) -> bool:
    """A header that states a unit and no factor ("%", "$"): it heads its own column only."""
    scale = _of(cell).scale if cell is not None else Scale()
    return bool(scale.unit) and scale.factor == 1.0


def _header_grid(rows: Sequence[Sequence[Cell]], width: int) -> list[list[Cell | None]]:
    """Each header row's cell over each column: a row with one filled cell after the corner
    heads every column with it (unless it only names a unit); in an upper row a blank cell is
    covered by the filled one on its left (a group header spanning the columns below it)."""
    grid = []
    for i, row in enumerate(rows):
        cells: list[Cell | None] = [None] * width
        for c in row:
            cells[c.column] = None if _of(c).blank else c
        filled = [j for j in range(1, width) if cells[j] is not None]
        if len(filled) == 1 and not _unit_only(cells[filled[0]]):
            cells[1:] = [cells[filled[0]]] * (width - 1)
        elif i < len(rows) - 1:
            for j in range(2, width):
                cells[j] = cells[j] or cells[j - 1]
        grid.append(cells)
    return grid


def _row_headers(row: Sequence[Cell], column: int, header: bool) -> tuple[Span, ...]:
    """The labels a row starts with, left of `column`: its cells before its first figure; in a
    header row only its corner cell."""
    if header:
        row = row[: min(column, 1)]
    heads = []
    for c in row[:column]:
        read = _of(c)
        if read.figure is not None:
            break
        if not read.blank:
            heads.append(c.span)
    return tuple(heads)


def _scales(grid: list[list[Cell | None]], width: int, caption: Span | None) -> list[Scale]:
    """Each column's scale: its header cells' (the lower over the upper) over the table's, which
    is its corner cells' over its caption's; column 0 (the row labels) counts in the table's."""
    table = read_scale(caption.text) if caption is not None else Scale()
    for heads in grid:
        if heads[0] is not None:
            table = _of(heads[0]).scale.over(table)
    scales = [table] * width
    for j in range(1, width):
        for heads in grid:
            if heads[j] is not None:
                scales[j] = _of(heads[j]).scale.over(scales[j])
    return scales


def _place(
    cell: Cell, row: Sequence[Cell], grid: list[list[Cell | None]], scales: list[Scale]
) -> Cell:
    """`cell` with its place in the table: header or body, its headers and its column's scale."""
    header = cell.row < len(grid)
    row_headers = _row_headers(row, cell.column, header)
    column = cell.column
    heads = tuple(h[column].span for h in grid[: cell.row] if h[column])
    return Cell(  # not dataclasses.replace, which costs more than the rest of placing a cell
        cell.start,
        cell.end,
        cell.text,
        cell.row,
        column,
        header,
        row_headers,
        heads,
        scales[column] if header else _own_unit(row_headers, scales[column], heads),
        cell.read,
    )


_PER = re.compile(r"\bper\b(?!\s?cent)|\bEPS\b")
_BARE_SCALE = re.compile(rf"\(\s*{_SCALE_WORD}\s*\)", re.IGNORECASE)
_COUNT = re.compile(r"\(\s*(?:number|no\.?|#|times|x|units?)\s*\)|\bnumber\s+of\b|\bratio\b", re.I)
# What a label counts, by its head word (docs/NORMALIZER.md, "Tables"): the last word of its
# first phrase (before "of", "at", a bracket, a comma ...), as these lists name it; a word in
# none of them names neither ("Client services", "Office equipment")
_LABEL_WORDS = (
    (
        "count",
        "number numbers count counts headcount headcounts workforce staff employee employees "
        "personnel people persons fte ftes worker workers hires members subscribers customer "
        "customers client clients users visitors passengers patients students shareholders "
        "store stores shops outlets branches restaurants unit units vehicles deliveries "
        "transactions shares options warrants quantity quantities tonnes barrels flights "
        "downloads households",
    ),
    (
        "ratio",
        "ratio ratios rate rates yield yields growth percentage percentages proportion multiple "
        "multiples cover coverage utilisation utilization occupancy churn bps return",
    ),
    (
        "money",
        "revenue revenues sales turnover income profit profits loss losses earnings ebit ebitda "
        "cost costs expense expenses expenditure expenditures spend spending capex opex cash "
        "asset assets liabilities liability equity debt debts borrowings capital deposits "
        "deposit loan loans payment payments pay wages wage salaries salary remuneration "
        "compensation payroll benefits bonus bonuses fee fees charge charges dividend dividends "
        "value proceeds receivable receivables payable payables provision provisions reserves "
        "reserve goodwill tax taxes amortisation amortization depreciation impairment "
        "impairments budget funding investment investments grant grants amount amounts balance "
        "balances savings premium premiums price prices",
    ),
)
_KIND = {w: kind for kind, words in _LABEL_WORDS for w in words.split()}
_PHRASE_END = re.compile(
    r"[(\[,:;–—]|\s(?:of|at|in|for|by|from|to|on|as|with|during|since|per|under|over)\s", re.I
)
_AFTER_HEAD = {"sold", "held", "built", "won", "lost", "made", "paid", "total", "net", "gross"}
_JOINED = re.compile(r"\s(?:and|or|&)\s|/", re.I)
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?|%")


@lru_cache(maxsize=4096)  # a column's headers head every cell below them
def label_kind(text: str) -> str:
    """What a row label or a column header counts: "money" ("Staff costs", "Cost of shares"),
    "count" ("Employees", "Number of stores", "Shares outstanding"), "ratio" ("Tax rate",
    "Revenue growth"), "mixed" (a count and an amount joined: "Employees and payroll") or ""
    (it names none of them: "Europe", "Client services", "2024"). The head is the last word of
    the first phrase, past a participle after it ("Units sold")."""
    head = _PHRASE_END.split(f" {text.strip(' ([')} ", maxsplit=1)[0]
    parts = _JOINED.split(head)
    kinds = []
    for part in parts:
        words = [w.lower().replace("’", "'").removesuffix("'s") for w in _WORD.findall(part)]
        while len(words) > 1 and (words[-1] in _AFTER_HEAD or words[-1].endswith(("ed", "ing"))):
            words.pop()  # "Units sold", "Shares outstanding", "Stores opened"
        kinds.append(_KIND.get(words[-1], "") if words else "")  # the head: its last word
    found = {k for k in kinds if k}
    if len(found) > 1:
        return "mixed"
    return found.pop() if found else ""


def _own_unit(labels: tuple[Span, ...], scale: Scale, headers: tuple[Span, ...] = ()) -> Scale:
    """A row label that states its own unit overrides the table's scale: "Gross margin (%)" is a
    percentage, "Diluted EPS" and "... per share" an amount per share in the table's currency
    (no factor), "Employees (number)" and a ratio plain numbers. A money scale is an amount's:
    a row or column that counts something else (`label_kind`: "Employees", "Stores", "Tax
    rate", "Employees and payroll") reads its figures as written, never in the scale."""
    text = " ".join(label.text for label in labels)
    if not scale or not (text or headers):
        return scale
    return _label_unit(text, scale, tuple(h.text for h in headers))


@lru_cache(maxsize=4096)  # every figure of a row has the same labels: read once per row or less
def _label_unit(text: str, scale: Scale, headers: tuple[str, ...]) -> Scale:
    """`_own_unit` of the row labels' joined `text` and its column headers' texts."""
    own = _label_scale(text) if text else Scale()
    if own.factor != 1.0:  # "Weighted average shares (in millions)": the label's own scale
        return own
    if _PERCENT.search(text):
        return Scale(1.0, "%", text)
    if _PER.search(" ".join([text, *headers])):  # "... per share" row or column
        return Scale(1.0, "" if scale.unit == "%" else scale.unit, text)
    if _COUNT.search(text):
        return Scale()
    kinds = {label_kind(t) for t in [text, *headers] if t}
    if scale.unit == "%" or not kinds & {"count", "ratio", "mixed"}:
        return scale
    own_column = [s for h in headers if (s := _label_scale(h)).factor != 1.0]
    if own_column:  # "(shares, in thousands)" over the count's own column
        return Scale(own_column[-1].factor, "", own_column[-1].source)
    return Scale(scale.factor, "", scale.source) if _of_a_count(scale) else Scale()


def _label_scale(text: str) -> Scale:
    """The scale a label or header states, "(millions)" alone included."""
    own = read_scale(text)
    if own.factor == 1.0 and (m := _BARE_SCALE.search(text)):
        return Scale(_FACTORS[m["word"].lower()], "", text)
    return own


def _of_a_count(scale: Scale) -> bool:
    """A scale stated for a count: "(shares, in thousands)", "Buy-backs (shares in thousands)"."""
    return any(label_kind(s) == "count" for s in re.split(r"[;(]", scale.source))


def _table(text: str, block: list[tuple[int, int]]) -> Table | None:
    """The table a block of pipe lines makes, or None without a separator row."""
    rows: list[list[Cell]] = []
    written = None
    for start, end in block:
        bounds = _row_cells(text, start, end)
        if _is_separator(text, bounds):
            written = len(rows) if written is None else written
            continue
        reads = [_read(text[a:b]) for a, b in bounds]
        if all(r.blank for r in reads):
            continue  # a row of blank cells is no row ("| | |" over a table without headers)
        rows.append(
            [
                Cell(a, b, text[a:b], len(rows), j, False, read=r)
                for j, ((a, b), r) in enumerate(zip(bounds, reads, strict=True))
            ]
        )
    if written is None or not rows:
        return None
    header_rows = written
    while header_rows < len(rows) and _extends_header([_of(c) for c in rows[header_rows]]):
        header_rows += 1
    width = max(len(r) for r in rows)
    grid = _header_grid(rows[:header_rows], width)
    caption = _caption(text, block[0][0])
    scales = _scales(grid, width, caption)
    placed = tuple(tuple(_place(c, row, grid, scales) for c in row) for row in rows)
    return Table(block[0][0], block[-1][1], placed, header_rows, scales[0], caption)


@lru_cache(maxsize=1024)
def parse_tables(text: str) -> tuple[Table, ...]:
    """Every Markdown pipe table of `text`, in order (cached)."""
    if "|" not in text:
        return ()
    with collector_paused():
        return tuple(t for block in _blocks(text) if (t := _table(text, block)) is not None)


def _table_at(text: str, start: int) -> Table | None:
    """The table of `text` that text[start] is in, by bisection over its tables (in order)."""
    tables = parse_tables(text)
    i = bisect.bisect_right(tables, start, key=lambda t: t.start) - 1
    return tables[i] if i >= 0 and start < tables[i].end else None


def _in_a_row(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] is in a table, with a pipe after it on its line: such a figure is
    read cell by cell, so the whole text's reading of it is dropped (`article_mentions`), and no
    other figure's reading depends on it, as nothing that reads on from a figure (a fraction after
    it, a range to the next) reads across a pipe. Left unread, it costs the table half as much."""
    table = _table_at(text, start)
    if table is None or end > table.end:
        return False
    pipe = text.find("|", end, table.end)
    return pipe >= 0 and text.find("\n", end, pipe) < 0


def _negated(q: Quantity) -> Quantity:
    return Quantity(-q.high, -q.low, q.unit, q.qualifier)


def _scaled(q: Quantity, currency: str, scale: Scale) -> Quantity | None:
    """`q` in the column's scale and unit; None for a percentage or a product beyond reading.
    The cell's own currency wins over the column's."""
    unit = q.unit or currency
    if unit == "%" or (scale.unit == "%" and unit):
        return None
    if scale.unit == "%":
        return Quantity(q.low, q.high, "%", q.qualifier)
    low = times(q.low, scale.factor)
    high = low if q.high == q.low else times(q.high, scale.factor)
    if low is None or high is None:
        return None
    return Quantity(low, high, unit or scale.unit, q.qualifier)


def _table_readings(cell: Cell, figure: Mention) -> list[Value]:
    """A body figure's readings as the table means it: negative in accounting parentheses, and
    in the column's scale and unit where the figure is written bare (digits, a sign, a currency
    symbol: no scale word, no unit, no percent, not a year)."""
    before, after = cell.text[: figure.start], cell.text[figure.end :]
    accounting = "(" in before and ")" in after
    symbol = _SYMBOLS.search(f"{before} {after}")
    currency = _currency(symbol.group()) if symbol else ""
    year = any(isinstance(v, DateValue) for v in figure.values)  # "2027" is not 2027 thousand
    bare = not _LETTER.search(figure.text) and not year
    readings: list[Value] = []
    for q in figure.values:
        if not isinstance(q, Quantity) or q.is_range:
            continue
        signed = [q, _negated(q)] if accounting and q.low > 0 else [q]
        readings += signed[1:]
        if bare:
            readings += [s for x in signed if (s := _scaled(x, currency, cell.scale)) is not None]
    return readings


def cell_values(cell: Cell) -> tuple[Value, ...]:
    """What a cell states: every value written in it and, for a figure cell of the body, its
    readings as the table means it (see `_table_readings`)."""
    read = _of(cell)
    written = [v for m in read.mentions for v in m.values]
    figure = None if cell.header else read.figure
    if figure is None:
        return tuple(dict.fromkeys(written))
    return tuple(dict.fromkeys([*written, *_table_readings(cell, figure)]))


def _scaled_at(text: str, span: Span, value: Value) -> Quantity | None:
    """`value` in its cell's scale, when the span is a bare body figure cell of a scaled table
    and `value` is that figure as written (or its accounting negative)."""
    if not isinstance(value, Quantity) or value.is_range:
        return None
    table = _table_at(text, span.start)
    cell = table.cell_at(span.start, span.end) if table else None
    if cell is None or cell.header or not cell.scale:
        return None
    figure = _of(cell).figure
    if figure is None or _LETTER.search(figure.text):
        return None
    written = [q for q in figure.values if isinstance(q, Quantity)]
    if any(isinstance(v, DateValue) for v in figure.values):
        return None
    if not any(quantities_equal(value, q) or quantities_equal(value, _negated(q)) for q in written):
        return None
    symbol = _SYMBOLS.search(cell.text)
    return _scaled(value, _currency(symbol.group()) if symbol else "", cell.scale)


def one_scale(readings: set[tuple[float, str] | None]) -> tuple[float, str] | None:
    """The one scale of a calculation's operands, from each one's (factor, unit) in its cell
    (None: it has none): one factor, and the one unit those that name a unit name ("$6,450"
    beside "37,210" under "in thousands" is one scale of dollars); None where any operand has
    no scale, the factors differ or the units do."""
    if not readings or None in readings:
        return None
    factors = {r[0] for r in readings if r is not None}
    units = {r[1] for r in readings if r is not None and r[1]}
    if len(factors) != 1 or len(units) > 1:
        return None
    return factors.pop(), units.pop() if units else ""


def in_body_cells(text: str, spans: Sequence[Span]) -> bool:
    """Whether there is a span and every span is a body cell of a table of `text`."""
    for span in spans:
        table = _table_at(text, span.start)
        cell = table.cell_at(span.start, span.end) if table else None
        if cell is None or cell.header:
            return False
    return bool(spans)


def scaled_reading(text: str, spans: Sequence[Span], value: Value) -> Quantity | None:
    """The value a bare figure stands for where every span confirming it is a body cell of a
    scaled table ("142.9" under "$ in millions": 142.9 million USD), all in one scale; None
    where any span is prose or an unscaled cell, so the figure stays as written."""
    readings = [_scaled_at(text, span, value) for span in spans]
    if not readings or any(r is None for r in readings):
        return None
    first = readings[0]
    assert first is not None
    return first if all(quantities_equal(first, r) for r in readings) else None  # type: ignore[arg-type]


def _cell_mentions(cell: Cell) -> list[Mention]:
    """A body figure cell as one mention (the cell, with every reading); any other cell's
    mentions as `scan` reads the cell alone."""
    read = _of(cell)
    if not cell.header and read.figure is not None:
        return [Mention(cell.start, cell.end, cell.text, cell_values(cell))]
    return [
        Mention(m.start + cell.start, m.end + cell.start, m.text, m.values, m.refused)
        for m in read.mentions
    ]


@lru_cache(maxsize=1024)
def article_mentions(text: str) -> tuple[Mention, ...]:
    """`scan(text)` with its tables read cell by cell (no figure crosses a cell's edge) and each
    body figure cell read as the table means it; exactly `scan(text)` without a table."""
    with collector_paused():
        tables = parse_tables(text)
        if not tables:
            return scan(text)
        spans = Spans([(t.start, t.end) for t in tables])
        read = scan_leaving(text, lambda start, end: _in_a_row(text, start, end))
        mentions = [m for m in read if not spans.overlaps(m.start, m.end)]
        mentions += [m for t in tables for c in t.cells for m in _cell_mentions(c)]
        mentions.sort(key=lambda m: (m.start, -m.end))
        return tuple(mentions)


def _markdown_cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _markdown_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def markdown_table(rows: Sequence[Sequence[str]]) -> str:
    """Rows of cell texts as a Markdown pipe table: the first row is the header row when it could
    head the table (`_heads_columns`), else an empty header row stands above it; pipes escaped,
    line breaks made spaces, empty rows dropped, short rows padded."""
    cleaned = [[_markdown_cell(c) for c in row] for row in rows]
    cleaned = [row for row in cleaned if any(row)]
    if not cleaned:
        return ""
    width = max(len(row) for row in cleaned)
    padded = [row + [""] * (width - len(row)) for row in cleaned]
    if _heads_columns(padded[0]):
        head, body = padded[0], padded[1:]
    else:
        head, body = [""] * width, padded
    return "\n".join(_markdown_row(r) for r in [head, ["---"] * width, *body])
