"""Property tests of the value-reading contract (docs/NORMALIZER.md, `## Contract`), one per
class: texts generated from templates, answers perturbed (a digit, a scale, a unit's case, a
bound's direction, a sign, a range's end) are never confirmed, and an equivalent rewriting (another
scale word, another grouping, another spelling of the unit) is. Hypothesis with a fixed seed."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from experiment.base.types import Article
from experiment.verify.batch import confirm_answer

SETTINGS = settings(max_examples=60, derandomize=True, deadline=None)


def confirmed(text: str, answer: str, kind: str = "figure") -> bool:
    article = Article("generated", "", "", text, Path("generated.md"))
    return confirm_answer(answer, article, kind=kind)["confirmed"] == "true"


def grouped(n: int) -> str:
    return f"{n:,}"


def indian(n: int) -> str:
    """`n` in Indian digit grouping: the last three digits, then pairs ("50,00,000")."""
    digits = str(n)
    if len(digits) <= 3:
        return digits
    head, tail = digits[:-3], digits[-3:]
    pairs = []
    while len(head) > 2:
        head, pairs = head[:-2], [head[-2:], *pairs]
    return ",".join([head, *pairs, tail])


@st.composite
def other_digit(draw: st.DrawFn, n: int) -> int:
    """`n` with one digit changed (never a leading zero): a different value."""
    digits = list(str(n))
    i = draw(st.integers(0, len(digits) - 1))
    choices = [d for d in "0123456789" if d != digits[i] and (i or d != "0")]
    digits[i] = draw(st.sampled_from(choices))
    return int("".join(digits))


LOWER = ("more than", "over", "no less than", "not less than", "no fewer than", "not under")
UPPER = ("less than", "under", "no more than", "not more than", "at most", "not over")
# phrases that say the same bound: the text's "no more than" is the answer's "at most"
SAME = {
    "more than": "over",
    "over": "more than",
    "no less than": "at least",
    "not less than": "at least",
    "no fewer than": "at least",
    "not under": "at least",
    "less than": "under",
    "under": "fewer than",
    "no more than": "at most",
    "not more than": "up to",
    "at most": "no more than",
    "not over": "up to",
}
NOUNS = ("staff", "members", "homes", "boats", "stalls")


@SETTINGS
@given(
    n=st.integers(2, 999_999),
    phrase=st.sampled_from(LOWER + UPPER),
    noun=st.sampled_from(NOUNS),
    data=st.data(),
)
def test_bounds_keep_their_direction(n: int, phrase: str, noun: str, data: st.DataObject) -> None:
    text = f"The group has {phrase} {grouped(n)} {noun} this year."
    assert confirmed(text, f"{SAME[phrase]} {grouped(n)}")
    opposite = UPPER if phrase in LOWER else LOWER
    turned = data.draw(st.sampled_from(opposite))
    assert not confirmed(text, f"{turned} {grouped(n)}"), turned
    assert not confirmed(text, f"{SAME[phrase]} {grouped(data.draw(other_digit(n)))}")


SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9}


@SETTINGS
@given(
    low=st.integers(1, 400),
    width=st.integers(1, 300),
    scale=st.sampled_from(sorted(SCALES)),
    currency=st.sampled_from(("$", "€", "")),
    dash=st.sampled_from(("-", "–", " to ", " - ")),
    data=st.data(),
)
def test_a_range_shares_its_scale_and_its_ends_are_its_own(
    low: int, width: int, scale: str, currency: str, dash: str, data: st.DataObject
) -> None:
    high = low + width
    text = f"Spending was {currency}{low}{dash}{high} {scale} in all."
    factor = SCALES[scale]
    assert confirmed(text, f"{currency}{low} {scale}")
    assert confirmed(text, f"{currency}{grouped(low * factor)}")  # another scale word: none
    assert confirmed(text, f"{currency}{low} {scale} to {currency}{high} {scale}")
    assert not confirmed(text, f"{currency}{low}")  # the scale dropped from one end
    other = data.draw(st.sampled_from([s for s in SCALES if s != scale]))
    assert not confirmed(text, f"{currency}{low} {other}")
    assert not confirmed(text, f"{currency}{low} to {currency}{high + 1} {scale}")  # another end


@SETTINGS
@given(
    a=st.integers(1, 2000),
    gap=st.integers(1, 500),
    dash=st.sampled_from((" - ", " – ", " -")),
    degrees=st.integers(1, 60),
)
def test_a_spaced_hyphen_is_a_range_and_a_sign_is_kept(
    a: int, gap: int, dash: str, degrees: int
) -> None:
    b = a + gap
    text = f"The survey counted {a}{dash}{b} nests."
    assert not confirmed(text, str(a - b), "any")  # never a subtraction
    assert not confirmed(text, f"-{b}", "any")
    assert confirmed(text, f"{a} to {b}", "any")
    cold = f"At night it fell to -{degrees} °C."
    assert confirmed(cold, f"minus {degrees} °C")
    assert not confirmed(cold, f"{degrees} °C")


# a unit, a spelling of it that differs only by case (another unit), and an equivalent
CASED = [
    ("MW", "mW", "{n}000 kW"),
    ("mW", "MW", "{n} milliwatts"),
    ("MWh", "mWh", "{n}000 kWh"),
    ("MHz", "mHz", "{n} megahertz"),
    ("Mbps", "MBps", "{n} megabits per second"),
    ("MB/s", "Mb/s", "{n} MBps"),
    ("GB", "Gb", "{n} gigabytes"),
    ("Gb", "GB", "{n} gigabits"),
    ("TB", "Tb", "{n} terabytes"),
    ("kW", "MW", "{n} kilowatts"),
]


@SETTINGS
@given(n=st.integers(1, 9999), pair=st.sampled_from(CASED), data=st.data())
def test_the_case_of_a_unit_decides_it(
    n: int, pair: tuple[str, str, str], data: st.DataObject
) -> None:
    unit, other, same = pair
    text = f"The new unit is rated at {n} {unit} today."
    assert confirmed(text, f"{n} {unit}")
    assert confirmed(text, same.format(n=n))
    assert not confirmed(text, f"{n} {other}")
    assert not confirmed(text, f"{data.draw(other_digit(n))} {unit}")


@SETTINGS
@given(
    whole=st.integers(1, 999),
    tenth=st.integers(0, 9),
    scale=st.sampled_from((("M", 10**6), ("K", 10**3), ("B", 10**9))),
    noun=st.sampled_from(("users", "members", "downloads", "viewers")),
    data=st.data(),
)
def test_a_scale_letter_is_read_only_where_the_context_says(
    whole: int, tenth: int, scale: tuple[str, int], noun: str, data: st.DataObject
) -> None:
    letter, factor = scale
    x = f"{whole}.{tenth}" if tenth else str(whole)
    value = (whole * 10 + tenth) * factor // 10
    counted = f"The app has {x}{letter} {noun} now."
    assert confirmed(counted, grouped(value))
    assert confirmed(counted, f"{x} {dict(M='million', K='thousand', B='billion')[letter]}")
    assert not confirmed(counted, x)  # the scale dropped
    assert not confirmed(counted, grouped(value * 1000))  # another scale
    if letter != "M":  # "77 K", "3B" alone: kelvin or bytes, never a thousand or a billion
        bare = f"The probe was held at {x} {letter}."
        assert not confirmed(bare, grouped(value))
    money = f"The round raised ${x}{letter}."
    assert confirmed(money, f"${grouped(value)}")
    assert not confirmed(money, f"${grouped(data.draw(other_digit(value)))}")


@SETTINGS
@given(n=st.integers(100_000, 999_999_999), data=st.data())
def test_indian_grouping_and_scale_words_read_as_the_value(n: int, data: st.DataObject) -> None:
    text = f"The trust paid Rs {indian(n)} to the village."
    assert confirmed(text, grouped(n))  # another grouping
    assert confirmed(text, f"₹{grouped(n)}")
    assert not confirmed(text, grouped(data.draw(other_digit(n))))
    assert not confirmed(text, f"${grouped(n)}")  # another currency


@SETTINGS
@given(
    x=st.integers(1, 99),
    word=st.sampled_from((("lakh", 10**5), ("crore", 10**7))),
    bps=st.integers(1, 400),
)
def test_regional_words_currencies_and_basis_points(
    x: int, word: tuple[str, int], bps: int
) -> None:
    name, factor = word
    text = f"The grant was Rs {x} {name}."
    assert confirmed(text, grouped(x * factor))
    assert not confirmed(text, grouped(x * factor * 10))
    assert confirmed(f"Sales were RMB {x} million.", f"{x} million yuan")
    assert not confirmed(f"Sales were RMB {x} million.", f"{x} million yen")
    rate = f"The bank moved rates by {bps}bps."
    assert confirmed(rate, f"{bps} basis points")
    assert not confirmed(rate, f"{bps}%")


@SETTINGS
@given(
    quarter=st.integers(1, 4),
    year=st.integers(1990, 2049),
    span=st.integers(1, 12),
    data=st.data(),
)
def test_quarters_and_spans_of_years(
    quarter: int, year: int, span: int, data: st.DataObject
) -> None:
    text = f"Margins fell in {quarter}Q{year % 100:02d}."
    assert confirmed(text, f"Q{quarter} {year}", "date")
    other_q = data.draw(st.sampled_from([q for q in range(1, 5) if q != quarter]))
    assert not confirmed(text, f"Q{other_q} {year}", "date")
    assert not confirmed(text, f"Q{quarter} {year + 1}", "date")
    last = year + span
    war = f"The works ran {year} - {last}."
    assert confirmed(war, f"from {year} to {last}", "date")
    assert confirmed(war, f"{year}–{last}", "date")
    assert not confirmed(war, f"from {year} to {last + 1}", "date")
    assert not confirmed(war, str(year - last), "any")
    assert not confirmed(f"The works began in {year}.", f"from {year} to {last}", "date")
