"""Round trips through the verifier (hypothesis, fixed seed): a value written in one documented form
is confirmed by an article that writes it in another, and never by one that writes another value."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

from hypothesis import assume, given
from hypothesis import strategies as st

from experiment.values.normalize import parse_value
from experiment.values.numbers import VIDEO_RESOLUTIONS
from experiment.verify.match import verify
from tests.test_properties import SETTINGS, _words

SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def _plain(d: Decimal) -> str:
    return format(d.normalize(), "f")


def _grouped(d: Decimal, sep: str) -> str:
    return format(d.normalize(), ",f").replace(",", sep)


def _scaled(d: Decimal, power: int, word: str) -> str | None:
    return f"{_plain(d.scaleb(-power))}{word}" if d >= Decimal(10) ** power else None


def _exponent(d: Decimal, template: str) -> str | None:
    if not d:
        return None
    e = d.adjusted()
    return template.format(m=_plain(d.scaleb(-e)), e=e, sup=str(e).translate(SUPERSCRIPT))


def _vulgar(d: Decimal) -> str | None:
    whole, part = divmod(d, 1)
    glyph = {Decimal("0.25"): "¼", Decimal("0.5"): "½", Decimal("0.75"): "¾"}.get(part)
    return f"{whole or ''}{glyph}" if glyph else None


def _in_words(d: Decimal) -> str | None:
    return _words(int(d)) if d == d.to_integral_value() and d < 1_000_000 else None


# Each documented form of a non-negative value, or None where it cannot write that value.
# The second item says whether a minus sign ("-", "−") may stand before it (not before words).
FORMS: list[tuple[Callable[[Decimal], str | None], bool]] = [
    (_plain, True),
    (lambda d: _grouped(d, ","), True),
    (lambda d: _grouped(d, " "), True),
    (lambda d: _scaled(d, 3, " thousand"), True),
    (lambda d: _scaled(d, 3, "k"), True),
    (lambda d: _scaled(d, 6, " million"), True),
    (lambda d: _scaled(d, 6, "mn"), True),
    (lambda d: _scaled(d, 9, " billion"), True),
    (lambda d: _scaled(d, 9, "bn"), True),
    (lambda d: _exponent(d, "{m}e{e}"), True),
    (lambda d: _exponent(d, "{m} × 10^{e}"), True),
    (lambda d: _exponent(d, "{m}x10^{e}"), True),
    (lambda d: _exponent(d, "{m}*10**{e}"), True),
    (lambda d: _exponent(d, "{m}×10{sup}"), True),
    (_vulgar, True),
    (_in_words, False),
]
SIGNS = ["-", "−", "minus ", "negative "]


def written(v: Decimal, form: int, sign: int) -> str | None:
    """`v` in the `form`-th form, a negative one with the `sign`-th sign; None if it cannot be."""
    fmt, symbol_ok = FORMS[form]
    text = fmt(abs(v))
    if text is None or v >= 0:
        return text
    prefix = SIGNS[sign] if symbol_ok else SIGNS[2 + sign % 2]
    return prefix + text


magnitudes = st.one_of(
    st.tuples(st.integers(0, 10**15 - 1), st.integers(-6, 6)),  # any 15 significant digits
    st.tuples(st.integers(0, 999_999), st.just(0)),  # whole numbers, also in words
    st.tuples(st.integers(1, 40_000).map(lambda q: q * 25), st.just(-2)),  # quarters
)
values = st.tuples(magnitudes, st.booleans()).map(
    lambda t: Decimal(t[0][0]).scaleb(t[0][1]) * (-1 if t[1] else 1)
)
forms = st.integers(0, len(FORMS) - 1)
signs = st.integers(0, len(SIGNS) - 1)


def confirmed(answer: str, article_figure: str) -> bool:
    value = parse_value(answer, "figure")
    assert value is not None, answer
    return verify(value, f"The figure was {article_figure} in all.", answer).confirmed


@SETTINGS
@given(values, forms, forms, signs, signs)
def test_a_value_confirms_itself_in_every_form(
    v: Decimal, form_a: int, form_b: int, sign_a: int, sign_b: int
) -> None:
    answer, article = written(v, form_a, sign_a), written(v, form_b, sign_b)
    assume(answer is not None and article is not None)
    assert confirmed(answer, article), (answer, article)  # type: ignore[arg-type]


@SETTINGS
@given(values, st.sampled_from(["last digit", "sign", "any"]), values, forms, forms, signs)
def test_another_value_never_confirms(
    v: Decimal, change: str, other: Decimal, form_a: int, form_b: int, sign: int
) -> None:
    if change == "last digit":  # one unit in the last significant digit: the domain's resolution
        w = v + (Decimal(1).scaleb(v.as_tuple().exponent) if v else 1)  # type: ignore[arg-type]
    else:
        w = -v if change == "sign" else other
    assume(w != v)
    answer, article = written(v, form_a, sign), written(w, form_b, sign)
    assume(answer is not None and article is not None)
    assert not confirmed(answer, article), (answer, article)  # type: ignore[arg-type]


pence = st.tuples(st.integers(1, 99_999), st.integers(-1, 0)).map(
    lambda t: Decimal(t[0]).scaleb(t[1])
)
MINOR = {
    "GBP": (["{}p", "{} pence"], ["£{}", "{} pounds sterling", "GBP {}"]),
    "USD": (
        ["{}c", "{} cents", "{}¢"],
        ["${}", "US${}", "{} dollars"],
    ),
}


@SETTINGS
@given(
    pence, st.integers(0, 9), st.sampled_from(sorted(MINOR)), st.integers(0, 2), st.integers(0, 2)
)
def test_money_in_minor_units(
    p: Decimal, delta: int, currency: str, minor: int, major: int
) -> None:
    assume(p not in VIDEO_RESOLUTIONS)  # "1080p" is refused, by rule
    minors, majors = MINOR[currency]
    answer = minors[minor % len(minors)].format(_plain(p))
    article = majors[major].format(_plain(p / 100))
    assert confirmed(answer, article), (answer, article)
    wrong = majors[major].format(_plain((p + delta + 1) / 100))
    assert not confirmed(answer, wrong), (answer, wrong)
