"""Issue 43's property: any figure perturbed (a digit, a scale word, a unit or currency, a
qualifier, a sign) is not confirmed by the original's text, and the original still is."""

from __future__ import annotations

from dataclasses import dataclass, replace

from hypothesis import given, settings
from hypothesis import strategies as st

from experiment.verify.answer import confirm_text

SETTINGS = settings(max_examples=400, derandomize=True, deadline=None)

SCALES = ["", "thousand", "million", "billion", "hundred", "crore", "lakh"]
UNITS = ["", "km", "miles", "kg", "%", "°C", "°F", "MB", "Mb", "basis points", "hours"]
CURRENCIES = ["", "$", "€", "£", "₹", "C$"]  # "Rs. " is "₹": no perturbation
QUALIFIERS = ["", "about", "more than", "less than", "at least", "up to"]


@dataclass(frozen=True)
class Figure:
    digits: str
    scale: str = ""
    unit: str = ""
    currency: str = ""
    qualifier: str = ""
    negative: bool = False

    def text(self) -> str:
        sign = "minus " if self.negative else ""
        body = f"{self.currency}{self.digits}"
        parts = [self.qualifier, f"{sign}{body}", self.scale, "" if self.currency else self.unit]
        return " ".join(p for p in parts if p)


@st.composite
def figures(draw: st.DrawFn) -> Figure:
    whole = draw(st.integers(1, 999_999))
    decimals = draw(st.sampled_from(["", ".5", ".25", ".75"]))
    digits = f"{whole:,}{decimals}"
    return Figure(
        digits,
        draw(st.sampled_from(SCALES)),
        draw(st.sampled_from(UNITS)),
        draw(st.sampled_from(CURRENCIES)),
        draw(st.sampled_from(QUALIFIERS)),
        draw(st.booleans()),
    )


def _other(draw: st.DrawFn, options: list[str], current: str) -> str:
    return draw(st.sampled_from([o for o in options if o != current]))


@st.composite
def perturbed(draw: st.DrawFn) -> tuple[Figure, Figure]:
    """A figure and one perturbation of it. Dropping a unit or a qualifier is not one: a bare
    answer is read leniently (docs/NORMALIZER.md)."""
    f = draw(figures())
    what = draw(st.sampled_from(["digit", "scale", "unit", "currency", "qualifier", "sign"]))
    if what == "digit":
        places = [i for i, c in enumerate(f.digits) if c.isdigit()]
        i = draw(st.sampled_from(places))
        new = draw(st.sampled_from([d for d in "123456789" if d != f.digits[i]]))
        return f, replace(f, digits=f.digits[:i] + new + f.digits[i + 1 :])
    if what == "scale":
        return f, replace(f, scale=_other(draw, SCALES, f.scale))
    if what == "unit" and not f.currency:
        return f, replace(f, unit=_other(draw, UNITS[1:], f.unit))
    if what in ("unit", "currency"):
        return f, replace(f, currency=_other(draw, CURRENCIES[1:], f.currency))
    if what == "qualifier":  # not a weaker claim the text implies: "about" an exact figure,
        # "at least" what is "more than", "up to" what is "less than"
        implied = {"": "about", "more than": "at least", "less than": "up to"}.get(f.qualifier)
        options = [q for q in QUALIFIERS[1:] if q != implied]
        return f, replace(f, qualifier=_other(draw, options, f.qualifier))
    return f, replace(f, negative=not f.negative)


@SETTINGS
@given(perturbed())
def test_perturbed_figure_not_confirmed(pair: tuple[Figure, Figure]) -> None:
    original, changed = pair
    article = f"The report said it was {original.text()} last year."
    assert confirm_text(original.text(), article, "", "figure").confirmed, original.text()
    assert not confirm_text(changed.text(), article, "", "figure").confirmed, changed.text()
