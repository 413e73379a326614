"""The normalizer: a text's figure or date to its canonical value, one form per row."""

from __future__ import annotations

import pytest

from experiment.values.normalize import parse_value, scan

FIGURES = [
    # separators and decimals
    ("3,200", "3200"),
    ("3 200", "3200"),
    ("1,234,567", "1234567"),
    ("12.5", "12.5"),
    (".5", "0.5"),
    ("0.75", "0.75"),
    ("-4", "-4"),
    ("−4", "-4"),  # the Unicode minus sign
    ("+7", "7"),
    # scale words and suffixes
    ("1.5 million", "1500000"),
    ("2.3bn", "2300000000"),
    ("$3bn", "3000000000 USD"),
    ("1.2k", "1200"),  # quantulum3 reads this as kibibytes
    ("$40m", "40000000 USD"),
    ("40m", "40 m"),  # without a currency "m" is metres, not million
    ("€4.1 billion", "4100000000 EUR"),
    ("2 trillion", "2000000000000"),
    ("700 million", "700000000"),
    ("£2.5mn", "2500000 GBP"),
    ("US$12", "12 USD"),
    ("USD 5 million", "5000000 USD"),
    ("5 million dollars", "5000000 USD"),
    ("C$96 million", "96000000 CAD"),
    # number words
    ("twenty-one", "21"),
    ("one hundred and five", "105"),
    ("a dozen", "12"),
    ("two dozen", "24"),
    ("half a million", "500000"),
    ("a quarter of a million", "250000"),
    ("three thousand", "3000"),
    ("a hundred", "100"),
    ("ninety-nine", "99"),
    ("seven", "7"),
    ("three quarters", "0.75"),
    ("two thirds", "0.666666666667"),
    ("a fifth", "0.2"),
    # percentages
    ("45%", "45 %"),  # dateparser reads "45%" as a date
    ("45 per cent", "45 %"),
    ("45 percent", "45 %"),
    ("11.7 per cent", "11.7 %"),
    ("3 percentage points", "3 pp"),
    # units
    ("185 W", "185 W"),
    ("11.8 kilograms", "11.8 kg"),
    ("47.5 pounds", "47.5 lb"),
    ("103 miles", "103 mi"),
    ("21,000 square metres", "21000 m2"),
    ("1.6 million cubic metres", "1600000 m3"),
    ("36 MW", "36 MW"),
    ("420 GWh", "420 GWh"),
    ("300 mAh", "300 mAh"),
    ("512 GB", "512 GB"),
    ("0.8 GB", "0.8 GB"),
    ("9 milliseconds", "9 ms"),
    ("71 days", "71 day"),
    ("15 years", "15 year"),
    ("45 tokens per second", "45 tok/s"),
    ("35 °C", "35 °C"),
    ("6.5x", "6.5 x"),
    ("3 times", "3 x"),
    # ranges and approximations keep bounds and qualifier
    ("2 to 3 times", "2..3 x"),
    ("between 40 and 50", "40..50"),
    ("between €4.3 billion and €4.4 billion", "4300000000..4400000000 EUR"),
    ("€12 million to €15 million", "12000000..15000000 EUR"),
    ("40-50 million", "40000000..50000000"),
    ("about 12", "about 12"),
    ("more than 300", "more than 300"),
    ("over half a million", "more than 500000"),
    ("nearly 90", "about 90"),
    ("at least 5", "at least 5"),
    ("up to 6.5x", "up to 6.5 x"),
    ("fewer than 20", "less than 20"),
    # more separators, signs and decimals
    ("10,000", "10000"),
    ("999", "999"),
    ("0", "0"),
    ("1,000,000,000", "1000000000"),
    ("3.14159", "3.14159"),
    ("12 500", "12500"),
    ("-0.5", "-0.5"),
    # more scales and currencies
    ("€1.12 billion", "1120000000 EUR"),
    ("€982 million", "982000000 EUR"),
    ("$6,900", "6900 USD"),
    ("€0.71", "0.71 EUR"),
    ("£129", "129 GBP"),
    ("¥500", "500 JPY"),
    ("$450 million", "450000000 USD"),
    ("$1.5bn", "1500000000 USD"),
    ("3 thousand", "3000"),
    ("4.6 billion years", "4600000000 year"),
    ("20 euros", "20 EUR"),
    ("100 dollars", "100 USD"),
    ("CHF 40", "40 CHF"),
    ("EUR 3 billion", "3000000000 EUR"),
    ("12bn", "12000000000"),
    ("7.5k", "7500"),
    ("$2 trillion", "2000000000000 USD"),
    # more words
    ("eleven", "11"),
    ("forty-two", "42"),
    ("two hundred thousand", "200000"),
    ("one million", "1000000"),
    ("a million", "1000000"),
    ("nine hundred", "900"),
    ("sixty", "60"),
    ("three dozen", "36"),
    ("half a dozen", "6"),
    ("one-third", "0.333333333333"),
    # more units and percentages
    ("8.6 per cent", "8.6 %"),
    ("100%", "100 %"),
    ("0.5 percentage points", "0.5 pp"),
    ("44 cm", "44 cm"),
    ("2.6 GB", "2.6 GB"),
    ("4 TB", "4 TB"),
    ("310 watts", "310 W"),
    ("60 MW", "60 MW"),
    ("150 km", "150 km"),
    ("5 kilometres", "5 km"),
    ("12 hours", "12 h"),
    ("30 minutes", "30 min"),
    ("2 weeks", "2 week"),
    ("18 months", "18 month"),
    ("2.4 GHz", "2.4 GHz"),
    ("3,000 tonnes", "3000 t"),
    ("10 ha", "10 ha"),
    ("-20 °C", "-20 °C"),
    # ordinals, where a rank is asked
    ("third", "3 ord"),
    ("3rd", "3 ord"),
    ("21st", "21 ord"),
    ("twenty-first", "21 ord"),
    ("the fifth", "5 ord"),
    ("a third", "0.333333333333"),  # a fraction, not a rank
    # more ranges and qualifiers
    ("between 200 and 250", "200..250"),
    ("from 10 to 20", "10..20"),
    ("€4 million to €5 million", "4000000..5000000 EUR"),
    ("2-3x", "2..3 x"),
    ("approximately 400", "about 400"),
    ("roughly 1.9 million", "about 1900000"),
    ("almost 50", "about 50"),
    ("under 9 milliseconds", "less than 9 ms"),
    ("just over 300", "more than 300"),
    # exponent forms: the value, never the mantissa
    ("1e9", "1000000000"),
    ("1.5E-3", "0.0015"),
    ("10^9", "1000000000"),
    ("10**9", "1000000000"),
    ("10⁹", "1000000000"),
    ("10⁻³", "0.001"),
    ("1.2 × 10^6", "1200000"),
    ("1.2x10^6", "1200000"),
    ("2.5×10⁹", "2500000000"),
    ("6.022 · 10^23", "6.022e+23"),
    ("999999999999999", "999999999999999"),  # 15 significant digits: the most read
    # signs: a word or a symbol, one value
    ("minus 5", "-5"),
    ("negative 5", "-5"),
    ("minus five", "-5"),
    ("minus 20 °C", "-20 °C"),
    ("minus $5 million", "-5000000 USD"),
    ("$-5", "-5 USD"),
    ("-$5", "-5 USD"),
    # vulgar fractions
    ("½", "0.5"),
    ("¼", "0.25"),
    ("¾", "0.75"),
    ("2½", "2.5"),
    ("2 ½ hours", "2.5 h"),
    ("¾ million", "750000"),
    # money in minor units
    ("438.1p", "4.381 GBP"),
    ("50p", "0.5 GBP"),
    ("50 pence", "0.5 GBP"),
    ("35c", "0.35 USD"),
    ("35 cents", "0.35 USD"),
    ("35¢", "0.35 USD"),
    ("129.9c", "1.299 USD"),
    ("20 euro cents", "0.2 EUR"),
    ("10 to 12 cents", "0.1..0.12 USD"),
]


@pytest.mark.parametrize(("text", "expected"), FIGURES)
def test_figure(text: str, expected: str) -> None:
    value = parse_value(text, "figure")
    assert value is not None, text
    assert value.canonical() == expected


DATES = [
    ("July 16, 1969", "1969-07-16"),
    ("16 July 1969", "1969-07-16"),
    ("16th of July 1969", "1969-07-16"),
    ("the 16th of July, 1969", "1969-07-16"),
    ("Jul. 16, 1969", "1969-07-16"),
    ("Sept 3 2021", "2021-09-03"),
    ("1969-07-16", "1969-07-16"),
    ("07/16/1969", "1969-07-16"),  # 16 cannot be a month, so month-first is the only reading
    ("16/07/1969", "1969-07-16"),  # nor here: day-first is the only valid reading
    ("03/04/2021", "2021-03-04"),  # ambiguous: month first by default
    ("July 1969", "1969-07"),
    ("July of 1969", "1969-07"),
    ("1969", "1969"),
    ("the 1990s", "1990s"),
    ("1990s", "1990s"),
    ("the '90s", "1990s"),
    ("the nineties", "1990s"),
    ("the 19th century", "century 19"),
    ("the twentieth century", "century 20"),
    ("Q3 2021", "2021-Q3"),
    ("the third quarter of 2024", "2024-Q3"),
    ("the first quarter of 2025", "2025-Q1"),
    ("H1 2021", "2021-H1"),
    ("the second half of 2025", "2025-H2"),
    ("FY2023", "2023"),
    ("fiscal 2023", "2023"),
    ("spring 2021", "2021-03-01/2021-05-31"),
    ("the autumn of 2008", "2008-09-01/2008-11-30"),
    ("winter 2021", "2021-12-01/2022-02-28"),
    ("early 2021", "2021-01-01/2021-04-30"),
    ("mid-2021", "2021-05-01/2021-08-31"),
    ("late 2021", "2021-09-01/2021-12-31"),
    ("the early 1990s", "1990-01-01/1993-12-31"),
    ("4 December", "--12-04"),  # no year: never borrowed from today
    ("December 4", "--12-04"),
    ("in March", "--03"),
    ("March 17, 2025", "2025-03-17"),
    ("17 March 2025", "2025-03-17"),
    ("2 December 2024", "2024-12-02"),
    ("February 29, 2024", "2024-02-29"),
    ("1 May 2023", "2023-05-01"),
    ("Dec. 25, 1990", "1990-12-25"),
    ("September 2022", "2022-09"),
    ("Oct 2021", "2021-10"),
    ("2040", "2040"),
    ("1066", "1066"),
    ("Q1 2025", "2025-Q1"),
    ("Q4 FY2024", "2024-Q4"),
    ("the fourth quarter of 2023", "2023-Q4"),
    ("H2 2024", "2024-H2"),
    ("the first half of 2025", "2025-H1"),
    ("summer of 2023", "2023-06-01/2023-08-31"),
    ("fall 2020", "2020-09-01/2020-11-30"),
    ("the 2010s", "2010s"),
    ("the 1800s", "1800s"),
    ("the 21st century", "century 21"),
    ("2021-12-31", "2021-12-31"),
    ("12/31/2021", "2021-12-31"),
    ("31.12.2021", "2021-12-31"),
    ("the end of 2025", "2025-10-01/2025-12-31"),
    ("31 October", "--10-31"),
]


@pytest.mark.parametrize(("text", "expected"), DATES)
def test_date(text: str, expected: str) -> None:
    value = parse_value(text, "date")
    assert value is not None, text
    assert value.canonical() == expected


def test_day_first_is_configurable_and_ambiguity_recorded() -> None:
    month_first = scan("03/04/2021")[0].values[0]
    day_first = scan("03/04/2021", day_first=True)[0].values[0]
    assert month_first.canonical() == "2021-03-04"
    assert day_first.canonical() == "2021-04-03"
    assert month_first.ambiguous and day_first.ambiguous  # type: ignore[union-attr]
    assert not scan("16/07/1969")[0].values[0].ambiguous  # type: ignore[union-attr]


def test_decimal_comma_locale() -> None:
    # "3.200" is three point two by default and three thousand two hundred with decimal commas.
    assert scan("3.200")[0].values[0].canonical() == "3.2"
    assert scan("3.200", decimal_comma=True)[0].values[0].canonical() == "3200"
    assert scan("3,5", decimal_comma=True)[0].values[0].canonical() == "3.5"


@pytest.mark.parametrize(
    ("text", "figures"),
    [
        ("13,200 units", ["13200"]),  # never also 3,200 or 200
        ("19690 records", ["19690"]),  # not the year 1969
        ("version 5.4.1", []),  # a version string is not a figure
        ("the E3 has 48 cores", ["48"]),  # "E3" is a name
        ("in 2021 200 people", ["2021", "200"]),  # a year then a count, not 2,021,200
        ("v2 of the API", []),
        ("COVID-19 and the F-16", ["19", "16"]),  # a hyphen after a word is not a minus
        (
            "5-7 days",
            ["5..7 day", "5 day", "7 day"],
        ),  # nor one between figures; each end has the unit
        ("10 minus 3", ["10", "3"]),  # "minus" after a figure is subtraction, not a sign
        ("lows of -5 and minus 5", ["-5", "-5"]),
        ("10^400 atoms", []),  # refused whole: never 10, nor 400
        ("50p and 5pc and 5cm", ["0.5 GBP", "5 %", "5 cm"]),
        ("2p − 1 for a prime p", ["1"]),  # a formula, not two pence
    ],
)
def test_token_boundaries(text: str, figures: list[str]) -> None:
    found = [v.canonical() for m in scan(text) for v in m.values if not hasattr(v, "granularity")]
    assert found == figures


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("1" * 331, "more than 15 significant digits"),  # once read as inf
        ("1" + "0" * 330, "beyond the magnitudes read"),
        ("1234567890123456", "more than 15 significant digits"),
        ("10^400", "beyond the magnitudes read"),  # once read as 10
        ("10**400", "beyond the magnitudes read"),
        ("1e400", "beyond the magnitudes read"),
        ("1e-400", "beyond the magnitudes read"),
        ("1e123456789", "beyond the magnitudes read"),
        ("2^10", "a power of 2"),
        ("5²", "a power of 5"),
        ("1080p", "a video resolution"),
        ("Figure 3c", "a label, a name or a formula"),
        ("OC-48c", "a label, a name or a formula"),
        ("n = 2p", "a label, a name or a formula"),
    ],
)
def test_refused_with_reason(text: str, reason: str) -> None:
    assert parse_value(text, "figure") is None
    (mention,) = scan(text)
    assert mention.values == ()
    assert mention.refused.startswith(reason), mention.refused


@pytest.mark.parametrize("text", ["", "none", "the company", "unknown", "N/A"])
def test_no_value(text: str) -> None:
    assert parse_value(text, "figure") is None
    assert parse_value(text, "date") is None


def test_year_has_both_readings() -> None:
    (mention,) = scan("in 1998")
    assert sorted(type(v).__name__ for v in mention.values) == ["DateValue", "Quantity"]


def test_pattern_triggers_change_nothing() -> None:
    from experiment.config import PROJECT_ROOT
    from experiment.values.dates import scan_dates

    texts = [p.read_text(encoding="utf-8") for p in (PROJECT_ROOT / "articles").glob("*.md")]
    texts += [text for text, _ in FIGURES + DATES]
    for text in texts:
        assert scan_dates(text) == scan_dates(text, gate=False)
