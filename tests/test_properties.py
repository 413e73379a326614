"""Property tests (hypothesis, fixed seed): formatting round-trips, confirmed spans, no crashes."""

from __future__ import annotations

import datetime as dt

from hypothesis import given, settings
from hypothesis import strategies as st

from experiment.values.canonical import same_value
from experiment.values.extract import extract
from experiment.values.normalize import parse_value
from experiment.values.numbers import ONES, TENS
from experiment.verify.match import verify

SETTINGS = settings(max_examples=500, derandomize=True, deadline=None)


def _words(n: int) -> str:
    """An integer 0..999,999 in English words, the way articles write them."""
    if n < 20:
        return next(k for k, v in ONES.items() if v == n)
    if n < 100:
        tens = next(k for k, v in TENS.items() if v == n - n % 10)
        return tens if n % 10 == 0 else f"{tens}-{_words(n % 10)}"
    if n < 1000:
        rest = f" and {_words(n % 100)}" if n % 100 else ""
        return f"{_words(n // 100)} hundred{rest}"
    rest = f" {_words(n % 1000)}" if n % 1000 else ""
    return f"{_words(n // 1000)} thousand{rest}"


FORMATS = [
    lambda n: f"{n}",
    lambda n: f"{n:,}",
    lambda n: f"{n:,}".replace(",", " ") if n >= 1000 else f"{n}",
    lambda n: _words(n),
    lambda n: f"{n / 1000:g}k" if n % 100 == 0 and n >= 1000 else f"{n}",
    lambda n: f"{n / 1e6:g} million" if n % 100_000 == 0 and n >= 1_000_000 else f"{n:,}",
]


@SETTINGS
@given(st.integers(min_value=0, max_value=999_999), st.sampled_from(range(len(FORMATS))))
def test_number_formats_round_trip(n: int, fmt: int) -> None:
    text = FORMATS[fmt](n)
    value = parse_value(text, "figure")
    assert value is not None, text
    assert value.low == n and value.high == n, text  # type: ignore[union-attr]


@SETTINGS
@given(
    st.integers(min_value=1, max_value=999).map(lambda x: x * 1_000_000),
    st.sampled_from(["${} million", "$%sm", "USD {} million", "{} million dollars"]),
)
def test_money_formats_round_trip(n: int, fmt: str) -> None:
    m = n // 1_000_000
    text = fmt.replace("%s", str(m)).format(m)
    value = parse_value(text, "figure")
    assert value is not None and value.low == n and value.unit == "USD", text  # type: ignore[union-attr]


DATE_FORMATS = [
    "%B %-d, %Y",
    "%-d %B %Y",
    "%Y-%m-%d",
    "%b. %-d, %Y",
    "%-d %b %Y",
    "the %-dth of %B %Y",
]


@SETTINGS
@given(
    st.dates(min_value=dt.date(1500, 1, 1), max_value=dt.date(2150, 12, 31)),
    st.sampled_from(DATE_FORMATS),
)
def test_date_formats_round_trip(d: dt.date, fmt: str) -> None:
    text = d.strftime(fmt).replace("May.", "May")
    value = parse_value(text, "date")
    assert value is not None, text
    assert value.start == d and value.granularity == "day", text  # type: ignore[union-attr]


@SETTINGS
@given(
    st.integers(min_value=1, max_value=99_999),
    st.integers(min_value=1, max_value=99_999),
    st.sampled_from(["units", "people", "km", "%"]),
)
def test_confirmed_span_reads_as_the_answer(a: int, b: int, unit: str) -> None:
    article = f"They counted {a:,} {unit} in spring and {b:,} {unit} later, up from 7."
    answer = f"{a} {unit}"
    value = parse_value(answer, "figure")
    verdict = verify(value, article, answer)
    assert verdict.confirmed
    for span in verdict.spans:
        assert article[span.start : span.end] == span.text
        assert same_value(parse_value(span.text, "figure"), value)  # type: ignore[arg-type]


@SETTINGS
@given(st.integers(min_value=10, max_value=99_999), st.integers(min_value=1, max_value=9))
def test_a_figure_is_never_found_inside_a_longer_one(n: int, prefix: int) -> None:
    article = f"Sales reached {prefix}{n:,} and then {n + 1:,}0 units."
    assert not verify(parse_value(f"{n:,}", "figure"), article).confirmed


@SETTINGS
@given(st.text(max_size=300), st.text(max_size=60), st.sampled_from(["figure", "date"]))
def test_verification_never_raises(article: str, answer: str, kind: str) -> None:
    e = extract(answer, "How many?", kind)
    value = e.best.value if e.best else parse_value(answer, kind)
    verdict = verify(value, article, answer)
    assert verdict.confirmed in (True, False)
    for span in verdict.spans:
        assert article[span.start : span.end] == span.text
