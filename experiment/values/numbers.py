"""Find figures in text: digits, number words, scales, currencies, units, ranges and qualifiers.

Hand-written because the libraries read these forms wrongly for this job: dateparser takes "45%"
for a date and quantulum3 takes "1.2k" for kibibytes. The scanner walks the text once, left to
right, so a figure is always read whole: "13,200" is one figure and never contains "3,200".

Readings that are refused or decided by rule (documented in docs/NORMALIZER.md):
- "m" after a number is million when a currency or a unit follows ("$40m", "5m tonnes"), metres
  otherwise ("40m"); an upper-case "K", "B" or "M" is a scale beside a currency, a unit or a
  counted plural noun ("77K users") and is refused alone ("77 K": kelvin or thousand?).
- a unit symbol's case decides where it changes the unit (`CASED_UNITS`: "MW" and "mW", "Mbps"
  and "MBps"); a spelling that names neither ("5 mw") is refused.
- a hyphen or dash after a figure and a space is no sign ("20 -30" is a range); a range's ends
  are mentions in its scale and unit ("$5-7 million": $5 million and $7 million).
- a negation turns a bound around ("no more than 100", "does not exceed 100": up to 100), and a
  bound after the figure is read ("100 or more": at least 100).
- "pounds" is a weight unless written "pounds sterling" or with "£".
- "3.200" is 3.2 (decimal point) unless `decimal_comma=True`, in which case it is 3200.
- a bare "3 200" is one figure only when every group after the first has exactly three digits.
- "p" or "c" glued to a number is pence or cents ("438.1p" is 4.381 GBP), except a video
  resolution ("1080p"), a label ("Figure 3c"), a name ("OC-48c") or a formula ("2p − 1"),
  which are refused.
- "minus" or "negative" before a number is its sign, unless a figure comes just before it
  ("10 minus 3" is subtraction).

The domain: a figure is read only when its written digits have at most `MAX_DIGITS` significant
digits and its value is zero or between 10^-`MAX_MAGNITUDE` and 10^`MAX_MAGNITUDE`. Values are
rounded to `MAX_DIGITS` significant digits, so two spellings of one value are the same float and
two different values never are. Anything beyond is a `Refusal` with its reason, never `inf`.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Context, Decimal
from fractions import Fraction

from experiment.values.canonical import Quantity

ONES = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
}
TENS = {
    "twenty": 20,
    "thirty": 30,
    "forty": 40,
    "fifty": 50,
    "sixty": 60,
    "seventy": 70,
    "eighty": 80,
    "ninety": 90,
}
SCALES = {
    "thousand": 1e3,
    "million": 1e6,
    "billion": 1e9,
    "trillion": 1e12,
    "k": 1e3,
    "mn": 1e6,
    "mln": 1e6,
    "bn": 1e9,
    "b": 1e9,
    "tn": 1e12,
    "hundred": 1e2,
    "dozen": 12,
    "lakh": 1e5,
    "lakhs": 1e5,
    "lac": 1e5,
    "lacs": 1e5,
    "crore": 1e7,
    "crores": 1e7,
}
FRACTIONS = {
    "half": 2,
    "halves": 2,
    "third": 3,
    "thirds": 3,
    "quarter": 4,
    "quarters": 4,
    "fifth": 5,
    "fifths": 5,
    "sixth": 6,
    "sixths": 6,
    "seventh": 7,
    "sevenths": 7,
    "eighth": 8,
    "eighths": 8,
    "ninth": 9,
    "ninths": 9,
    "tenth": 10,
    "tenths": 10,
}

VULGAR_FRACTIONS = {
    ch: Fraction(unicodedata.numeric(ch)).limit_denominator(10) for ch in "½⅓⅔¼¾⅕⅖⅗⅘⅙⅚⅐⅛⅜⅝⅞⅑⅒"
}
MAX_DIGITS = 15  # float64 holds every decimal of 15 significant digits exactly
MAX_MAGNITUDE = 100  # keeps every unit conversion of a value far from overflow and underflow
BEYOND = f"beyond the magnitudes read (10^-{MAX_MAGNITUDE} to 10^{MAX_MAGNITUDE})"

CURRENCY_SYMBOLS = {
    "$": "USD",
    "us$": "USD",
    "€": "EUR",
    "£": "GBP",
    "¥": "JPY",
    "c$": "CAD",
    "ca$": "CAD",
    "a$": "AUD",
    "au$": "AUD",
    "nz$": "NZD",
    "hk$": "HKD",
    "s$": "SGD",
    "₹": "INR",
    "rs.": "INR",
    "rs": "INR",
    "rmb": "CNY",
    "cn¥": "CNY",
}
CURRENCY_WORDS = {
    "dollars": "USD",
    "dollar": "USD",
    "euros": "EUR",
    "euro": "EUR",
    "yen": "JPY",
    "pounds sterling": "GBP",
    "swiss francs": "CHF",
    "francs": "CHF",
    "us dollars": "USD",
    "u.s. dollars": "USD",
    "american dollars": "USD",
    "canadian dollars": "CAD",
    "canadian dollar": "CAD",
    "australian dollars": "AUD",
    "australian dollar": "AUD",
    "new zealand dollars": "NZD",
    "hong kong dollars": "HKD",
    "singapore dollars": "SGD",
    "rupees": "INR",
    "rupee": "INR",
    "yuan": "CNY",
    "renminbi": "CNY",
    "rmb": "CNY",
    "usd": "USD",
    "eur": "EUR",
    "gbp": "GBP",
    "jpy": "JPY",
    "chf": "CHF",
    "cad": "CAD",
    "aud": "AUD",
    "cny": "CNY",
    "inr": "INR",
    "sek": "SEK",
}
# A currency's hundredth: glued "p", "c" (lower case only) and "¢", or a word after a space.
MINOR_UNITS = {
    "p": "GBP",
    "pence": "GBP",
    "c": "USD",
    "¢": "USD",
    "cent": "USD",
    "cents": "USD",
    "euro cent": "EUR",
    "euro cents": "EUR",
}
VIDEO_RESOLUTIONS = frozenset({144, 240, 360, 480, 576, 720, 1080, 1440, 2160, 4320})
UNIT_WORDS = {
    "%": "%",
    "percent": "%",
    "per cent": "%",
    "pc": "%",
    "percentage points": "pp",
    "percentage point": "pp",
    "times": "x",
    "x": "x",
    "fold": "x",
    "square metres": "m2",
    "square meters": "m2",
    "sq m": "m2",
    "m2": "m2",
    "m²": "m2",
    "square kilometres": "km2",
    "square kilometers": "km2",
    "km2": "km2",
    "km²": "km2",
    "hectares": "ha",
    "hectare": "ha",
    "ha": "ha",
    "cubic metres": "m3",
    "cubic meters": "m3",
    "m3": "m3",
    "m³": "m3",
    "litres": "l",
    "liters": "l",
    "ml": "ml",
    "millilitres": "ml",
    "milliliters": "ml",
    "mg": "mg",
    "milligrams": "mg",
    "milligram": "mg",
    "km": "km",
    "kilometres": "km",
    "kilometers": "km",
    "kilometre": "km",
    "kilometer": "km",
    "metres": "m",
    "meters": "m",
    "metre": "m",
    "meter": "m",
    "cm": "cm",
    "centimetres": "cm",
    "centimeters": "cm",
    "mm": "mm",
    "millimetres": "mm",
    "millimeters": "mm",
    "nm": "nm",
    "nanometres": "nm",
    "nanometers": "nm",
    "miles": "mi",
    "mile": "mi",
    "mi": "mi",
    "feet": "ft",
    "foot": "ft",
    "ft": "ft",
    "inches": "in",
    "inch": "in",
    "kg": "kg",
    "kilograms": "kg",
    "kilogram": "kg",
    "kilos": "kg",
    "g": "g",
    "grams": "g",
    "gram": "g",
    "tonnes": "t",
    "tonne": "t",
    "tons": "t",
    "ton": "t",
    "lb": "lb",
    "lbs": "lb",
    "pounds": "lb",
    "pound": "lb",
    "ms": "ms",
    "milliseconds": "ms",
    "millisecond": "ms",
    "seconds": "s",
    "second": "s",
    "minutes": "min",
    "minute": "min",
    "min": "min",
    "hours": "h",
    "hour": "h",
    "days": "day",
    "day": "day",
    "weeks": "week",
    "week": "week",
    "months": "month",
    "month": "month",
    "years": "year",
    "year": "year",
    "kb": "KB",  # data units are told apart by case (DATA_UNITS): "Mb" is a megabit
    "mb": "MB",
    "gb": "GB",
    "tb": "TB",
    "pb": "PB",
    "kilobytes": "KB",
    "megabytes": "MB",
    "gigabytes": "GB",
    "terabytes": "TB",
    "kilobits": "kbit",
    "megabits": "Mbit",
    "gigabits": "Gbit",
    "megabits per second": "Mbit/s",
    "gigabits per second": "Gbit/s",
    "megabytes per second": "MB/s",
    "kb/s": "KB/s",  # the written case decides (CASED_UNITS)
    "mb/s": "MB/s",
    "gb/s": "GB/s",
    "kbps": "kbit/s",
    "mbps": "Mbit/s",
    "gbps": "Gbit/s",
    "kbit/s": "kbit/s",
    "mbit/s": "Mbit/s",
    "gbit/s": "Gbit/s",
    "basis points": "bp",
    "basis point": "bp",
    "bps": "bp",  # in prose "bps" is basis points; a bit rate is written "bit/s" or "kbps"
    "hz": "Hz",
    "khz": "kHz",
    "mhz": "MHz",
    "ghz": "GHz",
    "hertz": "Hz",
    "kilohertz": "kHz",
    "megahertz": "MHz",
    "gigahertz": "GHz",
    "w": "W",
    "kw": "kW",
    "mw": "MW",
    "gw": "GW",
    "tw": "TW",
    "watts": "W",
    "kilowatts": "kW",
    "megawatts": "MW",
    "gigawatts": "GW",
    "watt": "W",
    "milliwatts": "mW",
    "milliwatt": "mW",
    "kilowatt": "kW",
    "megawatt": "MW",
    "gigawatt": "GW",
    "watt-hours": "Wh",
    "watt hours": "Wh",
    "kilowatt-hours": "kWh",
    "kilowatt-hour": "kWh",
    "kilowatt hours": "kWh",
    "kilowatt hour": "kWh",
    "megawatt-hours": "MWh",
    "megawatt-hour": "MWh",
    "megawatt hours": "MWh",
    "megawatt hour": "MWh",
    "gigawatt-hours": "GWh",
    "gigawatt-hour": "GWh",
    "gigawatt hours": "GWh",
    "terawatts": "TW",
    "terawatt": "TW",
    "terawatt-hours": "TWh",
    "terawatt-hour": "TWh",
    "terawatt hours": "TWh",
    "wh": "Wh",
    "kwh": "kWh",
    "mwh": "MWh",
    "gwh": "GWh",
    "twh": "TWh",
    "mah": "mAh",
    "volts": "V",
    "v": "V",
    "kv": "kV",
    "kilovolts": "kV",
    "mv": "mV",
    "millivolts": "mV",
    "ah": "Ah",
    "°c": "°C",
    "° c": "°C",
    "degrees celsius": "°C",
    "degrees centigrade": "°C",
    "°f": "°F",
    "° f": "°F",
    "degrees fahrenheit": "°F",
    "℃": "°C",  # the single-character signs
    "℉": "°F",
    "tokens per second": "tok/s",
    "tokens/s": "tok/s",
    "tok/s": "tok/s",
}
# A data unit by its written case: bytes upper-case "B", bits lower-case "b"; any other case
# ("mb", "gB") says neither and is refused.
DATA_UNITS = {
    "KB": "KB",
    "kB": "KB",
    "MB": "MB",
    "GB": "GB",
    "TB": "TB",
    "PB": "PB",
    "Kb": "kbit",
    "kb": "kbit",
    "Mb": "Mbit",
    "Gb": "Gbit",
    "Tb": "Tbit",
    "Pb": "Pbit",
}
UNITS_BY_CASE = frozenset({"KB", "MB", "GB", "TB", "PB"})
DATA_SYMBOLS = frozenset(k.lower() for k in DATA_UNITS)
# Symbols whose case changes the unit: an m/M prefix is milli or mega, B is bytes and b bits.
# Each lower-cased symbol lists the spellings read; any other spelling is refused.
CASED_UNITS: dict[str, dict[str, str]] = {
    "mw": {"MW": "MW", "mW": "mW"},
    "mwh": {"MWh": "MWh", "MWH": "MWh", "mWh": "mWh"},
    "mhz": {"MHz": "MHz", "Mhz": "MHz", "MHZ": "MHz", "mHz": "mHz"},
    "mbps": {"Mbps": "Mbit/s", "mbps": "Mbit/s", "MBps": "MB/s"},
    "kbps": {"kbps": "kbit/s", "Kbps": "kbit/s", "KBps": "KB/s", "kBps": "KB/s"},
    "gbps": {"Gbps": "Gbit/s", "gbps": "Gbit/s", "GBps": "GB/s"},
    "kb/s": {"KB/s": "KB/s", "kB/s": "KB/s", "kb/s": "kbit/s", "Kb/s": "kbit/s"},
    "mb/s": {"MB/s": "MB/s", "Mb/s": "Mbit/s"},
    "gb/s": {"GB/s": "GB/s", "Gb/s": "Gbit/s"},
    "mm": {"mm": "mm"},  # "MM" is a million in finance, "Mm" a megametre
    "nm": {"nm": "nm"},  # "NM" is a nautical mile
    "ms": {"ms": "ms"},
    "g": {"g": "g"},  # "5G" is a network, not five grams
    "mg": {"mg": "mg"},  # "Mg" is a megagram
    "ml": {"ml": "ml", "mL": "ml"},  # "ML" is a megalitre
    "mv": {"mV": "mV"},
    "kv": {"kV": "kV", "KV": "kV", "kv": "kV"},
    "ah": {"Ah": "Ah"},
    "mah": {"mAh": "mAh", "mah": "mAh"},
}
QUALIFIERS = {
    "about": "about",
    "around": "about",
    "approximately": "about",
    "roughly": "about",
    "some": "about",
    "nearly": "about",
    "almost": "about",
    "close to": "about",
    "an estimated": "about",
    "estimated": "about",
    "circa": "about",
    "c.": "about",
    "more than": "more than",
    "over": "more than",
    "above": "more than",
    "just over": "more than",
    "upwards of": "more than",
    "in excess of": "more than",
    "at least": "at least",
    "greater than": "more than",
    "exceeding": "more than",
    "exceeds": "more than",
    "exceeded": "more than",
    "exceed": "more than",
    "not quite": "less than",
    "a max of": "up to",
    # a bound turned around by "no", "not" or "at most": the direction is the other one
    "no more than": "up to",
    "not more than": "up to",
    "no greater than": "up to",
    "not greater than": "up to",
    "no higher than": "up to",
    "not over": "up to",
    "not above": "up to",
    "not exceeding": "up to",
    "at most": "up to",
    "a maximum of": "up to",
    "maximum of": "up to",
    "no less than": "at least",
    "not less than": "at least",
    "no fewer than": "at least",
    "not fewer than": "at least",
    "no lower than": "at least",
    "not under": "at least",
    "not below": "at least",
    "a minimum of": "at least",
    "minimum of": "at least",
    "less than": "less than",
    "under": "less than",
    "fewer than": "less than",
    "below": "less than",
    "just under": "less than",
    "up to": "up to",
    "as many as": "up to",
    "as much as": "up to",
}


def alternatives(words: object) -> str:
    """A pattern for any of `words`, the longest first where one is a prefix of another, written
    as a trie ("f(?:i(?:fty|ve)|o(?:rty|ur))"): the engine tries each letter once instead of
    every word in turn, which a long list of alternatives costs at every word of a text."""
    trie: dict[str, dict] = {}
    for word in words:  # type: ignore[attr-defined]
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}
    return _trie(trie)


_alt = alternatives


def _trie(node: dict[str, dict]) -> str:
    branches = [re.escape(ch) + _trie(child) for ch, child in sorted(node.items()) if ch]
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"
    return f"(?:{body})?" if "" in node else body


_WORD = _alt([*ONES, *TENS, "hundred", "thousand", "million", "billion", "trillion", "dozen"])
_WORDS = (
    r"(?:(?:an?\s+)(?=(?:hundred|thousand|million|billion|trillion|dozen)\b))?"
    rf"(?:{_WORD})(?:(?:[\s-]+|\s+and\s+)(?:{_WORD}))*"
)
_HALF_A = r"(?:half|a\s+quarter\s+of)\s+an?\s+(?:dozen|hundred|thousand|million|billion|trillion)"
ORDINALS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "fifth": 5,
    "sixth": 6,
    "seventh": 7,
    "eighth": 8,
    "ninth": 9,
    "tenth": 10,
    "eleventh": 11,
    "twelfth": 12,
    "thirteenth": 13,
    "fourteenth": 14,
    "fifteenth": 15,
    "sixteenth": 16,
    "seventeenth": 17,
    "eighteenth": 18,
    "nineteenth": 19,
    "twentieth": 20,
    "thirtieth": 30,
    "fortieth": 40,
    "fiftieth": 50,
    "hundredth": 100,
}
_ORDINAL = (
    r"\d{1,3}(?:st|nd|rd|th)|"
    rf"(?:(?:{_alt(TENS)})[\s-])?(?:{_alt(ORDINALS)})"
)
_FRACTION = rf"(?:an?|one|two|three|four|five|six|seven|eight|nine)[\s-]+(?:{_alt(FRACTIONS)})"
# "3 200" is one figure, but not "4 100m" (four 100 m titles) nor a part of "1 234 567m". A figure
# grouped by spaces has at most `SPACED_GROUPS` groups after the first (under 10^24, as far as 15
# significant digits times a million and more) and no bare group of one to three digits just before
# it: a longer run of groups ("123 456 789 ...") is a list, each group its own figure; a run within
# the bound is one figure, refused beyond 15 significant digits. Bounded, so each start tries a few
# groups and a long run is read in linear time (unbounded, each group retried the rest of the run).
SPACED_GROUPS = 7
_SP = r"[ \u00a0\u202f]"
_NOT_IN_A_LIST = "".join(
    rf"(?<!{before}\d{{{n}}}{_SP})" for before in (r"[^\d.,]", "^") for n in (1, 2, 3)
)
_DIGITS = (
    r"(?:\d{1,2}(?:,\d{2})+,\d{3}(?!\d)"  # Indian grouping: "50,00,000" is 5,000,000
    rf"|\d{{1,3}}(?:,\d{{3}})+|{_NOT_IN_A_LIST}\d{{1,3}}(?:{_SP}\d{{3}}){{1,{SPACED_GROUPS}}}"
    rf"(?![\d,]|[^\W\d_]|{_SP}\d)|\d+)(?:\.\d+)?|\.\d+"
)
_DIGITS_COMMA = r"(?:\d{1,3}(?:\.\d{3})+|\d+)(?:,\d+)?"

_BIG = r"(?:thousand|million|billion|trillion|lakhs?|lacs?|crores?)"
_SCALE = rf"(?:(?:hundred|dozen|{_BIG})(?:\s+{_BIG})*|mn|mln|bn|tn|k|m|b)"
_CUR_PREFIX = (
    r"(?:(?:US|CA|AU|NZ|HK|[CAS])\$|CN¥|[$€£¥₹]|(?-i:Rs)\.?\s?"
    r"|(?:USD|EUR|GBP|JPY|CHF|CAD|AUD|CNY|INR|SEK|RMB)\s?)"
)
_UNIT = _alt(UNIT_WORDS)
_CUR_SUFFIX = _alt(CURRENCY_WORDS)
_SUPERSCRIPTS = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_FROM_SUPERSCRIPT = str.maketrans(f"{_SUPERSCRIPTS}⁻⁺−", "0123456789-+-")
# "1e9"; "× 10^9", "x10**9", "·10⁹" after a mantissa; or a bare power "10^9", "10⁹"
_EXPONENT = (
    r"(?:e(?P<e>[-+]?\d+)|(?P<times>[ \u00a0]?[×x*·⋅][ \u00a0]?10)?"
    rf"(?:(?:\^|\*\*)(?P<pow>[-−+]?\d+)|(?P<sup>[⁻⁺]?[{_SUPERSCRIPTS}]+)))"
)
_VULGAR = rf"(?:\d+[ \u00a0]?)?[{''.join(VULGAR_FRACTIONS)}]"
_MINOR = r"(?-i:[pc])|¢|\s(?:euro\s+)?cents?|\spence"
# "minus" right after a figure is subtraction ("10 minus 3"), not a sign
_NOT_AFTER_FIGURE = r"(?<![\d%][ \u00a0])"
_SIGN_WORD = rf"{_NOT_AFTER_FIGURE}(?P<signword>minus|negative)\s+"
_MINOR_AFTER = re.compile(rf"(?:{_MINOR})(?!\w)", re.IGNORECASE)
# units after which four digits are never a year (a time or a length may be: "1999 days")
_MEASURE_AFTER = re.compile(
    r"[ \u00a0]?(?:[mkKMGT]?W|[mkKMGT]?Wh|[mkKMG]?Hz|[kKMGTP]B|[kKMGT]b|[kKmMG][bB]ps|mAh"
    r"|(?:milli|kilo|mega|giga)?(?:watts?|watt-hours?|hertz)|(?:kilo|mega|giga|tera)bytes)(?!\w)",
    re.IGNORECASE,
)
_SIGN_BEFORE = re.compile(
    rf"(?:(?<![\w.,])[-−]|{_NOT_AFTER_FIGURE}\b(?:minus|negative)\s+)$", re.IGNORECASE
)


def _atom_pattern(digits: str) -> re.Pattern[str]:
    return re.compile(
        rf"""
        (?<![\w.,$€£¥₹:^/])(?<!\d[.,])(?<![×*·⋅]\ )(?<!\d\ x\ )
        (?:{_SIGN_WORD})?
        (?P<sign>(?<!\d[ \u00a0])-|[−+])?
        (?P<cur>{_CUR_PREFIX})?
        (?P<cursign>(?<!\d[ \u00a0])-|[−+])?
        (?:(?P<vulgar>{_VULGAR})|(?P<digits>{digits})(?P<exp>{_EXPONENT})?|(?P<half>{_HALF_A})
          |(?P<frac>{_FRACTION})|(?P<ord>{_ORDINAL})|(?P<words>{_WORDS}))
        (?:(?P<minor>{_MINOR})(?![\w])
          |(?:[\s-]?(?P<scale>{_SCALE})(?![\w]))?
           (?:[\s-]?(?P<unit>{_UNIT})(?![\w])(?!\s+sterling))?
           (?:\s(?P<cursuf>{_CUR_SUFFIX})(?![\w]))?)
        (?![\w]|[.,:/]\d)
        """,
        re.IGNORECASE | re.VERBOSE,
    )


_ATOM = _atom_pattern(_DIGITS)
_ATOM_COMMA = _atom_pattern(_DIGITS_COMMA)
_QUALIFIER_BEFORE = re.compile(rf"(?:^|\W)({_alt(QUALIFIERS)})\s+$", re.IGNORECASE)
_RANGE_GAP = re.compile(r"^\s*(?:to|-|–|—|and|or)\s*$", re.IGNORECASE)
_BETWEEN_BEFORE = re.compile(r"(?:between|from)\s+$", re.IGNORECASE)
# A glued "p" or "c" that is not money: after a label word ("Figure 3c"), in a name ("OC-48c")
# or in a formula ("2p − 1", "n = 2p").
_NOT_MONEY_BEFORE = re.compile(
    r"(?:\b(?:fig(?:ure)?|table|section|chapter|article|appendix|part|item|no|type|grade|model)"
    r"\.?\s+|[^\W\d_]-|[=+−×*/]\s*)$",
    re.IGNORECASE,
)
_NOT_MONEY_AFTER = re.compile(r"\s*[=+−×*/^]")

# Forms the reader refuses whole, before any figure in them is read (docs/NORMALIZER.md).
# Each starts with a digit and looks behind it, not before it: a pattern that starts with a
# character set is searched for that set first, several times faster.
_TIME = re.compile(
    r"[0-9](?<![\w:.,][0-9])(?:\d?:\d{2}(?::\d{2})?(?:\s?[ap]\.?m\b\.?)?|\d?\s?[ap]\.?m\b\.?)"
    r"(?![\w:]|[.,]\d)",
    re.IGNORECASE,
)
_PHONE = re.compile(
    r"(?<![\w.,-])(?:\+\d{1,3}(?:[\s.-]\d{1,4}){2,4}"
    r"|(?:\+?1[\s.-])?(?:\(\d{3}\)\s?|\d{3}[.-])\d{3}[.-]\d{4})(?![\w-]|[.,]\d)"
)
# a seven-digit local number ("555-1234") only after a word that asks for one: else a range
_LOCAL_PHONE = re.compile(
    r"\b(?:call|phone|telephone|tel|fax|dial|hotline|mobile|cell|text|number)\b[\W_]{0,12}?"
    r"(?<![\w.,-])(?P<f>\d{3}[.-]\d{4})(?![\w-]|[.,]\d)",
    re.IGNORECASE,
)
_SLASH_FRACTION = re.compile(
    r"[0-9](?<![\w/.,-][0-9])(?:\d{0,2}[ \u00a0]\d{1,3}|\d{0,2})/\d{1,3}(?![\w/]|[.,]\d)"
)
_ISO_WEEK = re.compile(r"[0-9](?<![\w-][0-9])\d{3}-?W\d{2}(?:-?\d)?(?![\w-])")
_YEAR_BC = re.compile(r"[0-9](?<![\w.,][0-9])\d{0,3}\s?(?:BCE?|B\.C\.(?:E\.)?)(?!\w)")
# each form, why it is refused, and lower-case text one of which it cannot match without
_WHOLE_FORMS = (
    (_ISO_WEEK, "an ISO week date (not read)", ("w",)),
    (_YEAR_BC, "a year BC (not read)", ("bc", "b.c.")),
    (_TIME, "a time of day, not a figure", (":", "am", "pm", "a.m", "p.m")),
    (_PHONE, "a phone number, not a figure", ("-", ".", "(", "+")),
    (_LOCAL_PHONE, "a phone number, not a figure", ("-", ".")),
    (_SLASH_FRACTION, "a fraction written with a slash (not read)", ("/",)),
)
_CURRENCY_SIGNS = "".join(
    c for c in map(chr, range(0x10000)) if unicodedata.category(c) == "Sc" and c not in "$€£¥₹¢"
)
_UNKNOWN_SYMBOL_BEFORE = re.compile(rf"[{re.escape(_CURRENCY_SIGNS)}]\s?$|[A-Za-z]\$$")
_MONEY_WORDS = (
    r"dollars?|pounds?|francs?|pesos?|rupees?|rupiah|rubles?|roubles?|dinars?|dirhams?|riyals?"
    r"|rials?|shillings?|kronor|krona|kroner|krone|lira|lire|reais|baht|ringgit|zloty|forint"
    r"|koruna|naira|cedis?|yuan|euros?|yen|guilders?|escudos?|pesetas?|drachmas?"
)
_UNKNOWN_CURRENCY_AFTER = re.compile(rf"\s+(?:[A-Z][\w.]*\s+)?(?:{_MONEY_WORDS})\b")
# a degree sign before a letter that is no temperature scale read and no compass point ("45°N")
_UNKNOWN_DEGREE_AFTER = re.compile(r"\s?°\s?(?![CFNSEW]\b)[^\W\d_]", re.IGNORECASE)
_FRACTION_AFTER = re.compile(
    r"[\s-]+(?:(?:\w+(?:teen|tie)th|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh"
    r"|twelfth|hundredth|thousandth|millionth)s?|halves|thirds|quarters"
    r"|and\s+an?\s+(?:half|third|quarter))\b",
    re.IGNORECASE,
)
_UNREAD_FRACTION = "a fraction it cannot read"  # refused with the fraction ("a million and a half")
_MAY_FOLLOW = frozenset(" \u00a0\t\n-°×*·⋅xX")  # what starts every check after a figure
# A scale letter that could be a unit ("77 K" kelvin, "5B" bytes, "5.2M" metres) is a scale only
# beside a currency or a unit, or before a counted plural noun ("77K users", "5.2M people").
_FUNCTION_WORDS = (
    "as|has|is|its|his|hers|ours|yours|theirs|this|thus|was|us|was|whereas|always|perhaps"
    "|across|towards|besides|unless|plus|minus|less|versus|alas|yes"
)
_COUNT_NOUN_AFTER = re.compile(
    rf"[ \u00a0]+(?!(?:{_FUNCTION_WORDS})\b)(?:[a-z][a-z-]*s|people|staff|personnel|children)\b"
)
# a negation up to two words before a bound ("never more than", "does not exceed")
_NEGATION_BEFORE = re.compile(
    r"(?:\b(?:not|no|never|nor|cannot)|n't)(?!\s+only\b)(?:\s+[a-z]+){0,2}\s+$", re.IGNORECASE
)
# a bound written after the figure: "100 or more", "18 and over", "100+" / "5 or fewer"
_AT_LEAST_AFTER = re.compile(
    r"(?:\+(?![\w+])|-plus\b|\s+(?:or|and)\s+(?:more|over|above|higher|greater|upwards?)\b)",
    re.IGNORECASE,
)
_UP_TO_AFTER = re.compile(r"\s+(?:or|and)\s+(?:less|fewer|under|below|lower)\b", re.IGNORECASE)
# a negated bound ("never more than 100" is at most 100); "not about", "not up to": unreadable
NEGATED_BOUND = {"more than": "up to", "less than": "at least", "at least": "less than"}
_PRODUCT_AFTER = re.compile(r"[ \u00a0]?[×*·⋅][ \u00a0]?\d|(?<=x)[ \u00a0]?\d", re.IGNORECASE)


class Spans:
    """Disjoint spans, sorted, with an overlap test in O(log n): what keeps scanning linear."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        for s, e in sorted(spans):
            self.add(s, e)

    def overlaps(self, start: int, end: int) -> bool:
        i = bisect.bisect_left(self.starts, end)  # spans starting before `end`
        return i > 0 and self.ends[i - 1] > start  # disjoint: the ends are sorted too

    def add(self, start: int, end: int) -> bool:
        """Add a span that overlaps none; False (nothing added) when it overlaps one."""
        if self.overlaps(start, end):
            return False
        i = bisect.bisect_left(self.starts, start)
        self.starts.insert(i, start)
        self.ends.insert(i, end)
        return True


class Taken:
    """The characters of a text taken by spans read so far, one byte each: an overlap test and
    an addition cost the span's length, whatever the order spans come in. (`Spans` inserts into
    sorted lists: spans found pattern by pattern land all over the text, and each insertion
    moved the lists' tails: 200,000 dates in 5 MB took 25 times as long as 20,000 in 500 KB.)"""

    def __init__(self, size: int, spans: list[tuple[int, int]] | None = None) -> None:
        self.marks = bytearray(size)
        for start, end in spans or []:
            self.add(start, end)

    def overlaps(self, start: int, end: int) -> bool:
        return self.marks.find(1, start, end) >= 0

    def add(self, start: int, end: int) -> bool:
        """Take a span that overlaps none; False (nothing taken) when it overlaps one."""
        if self.overlaps(start, end):
            return False
        self.marks[start:end] = b"\x01" * (end - start)
        return True


@dataclass(frozen=True)
class NumberMention:
    start: int
    end: int
    quantity: Quantity
    raw: float  # the number before its scale, to decide whether a range shares the scale
    has_scale: bool


@dataclass(frozen=True)
class Refusal:
    """A figure the scanner will not read, and why (outside the domain, or not a figure)."""

    start: int
    end: int
    reason: str


def words_to_number(text: str) -> float | None:
    """'one hundred and five' -> 105, 'a dozen' -> 12, 'twenty-one' -> 21; None if not a number."""
    tokens = [t for t in re.split(r"[\s-]+", text.lower()) if t and t != "and"]
    if tokens and tokens[0] in ("hundred", "thousand", "million", "billion", "trillion", "dozen"):
        return None  # a bare "million" is a scale word, not the number one million
    total, current, seen = 0.0, 0.0, False
    for tok in tokens:
        if tok in ("a", "an"):
            current = max(current, 1.0)
        elif tok in ONES:
            current += ONES[tok]
            seen = True
        elif tok in TENS:
            current += TENS[tok]
            seen = True
        elif tok == "hundred":
            current = max(current, 1.0) * 100
            seen = True
        elif tok == "dozen":
            current = max(current, 1.0) * 12
            seen = True
        elif tok in ("thousand", "million", "billion", "trillion"):
            total += max(current, 1.0) * SCALES[tok]
            current = 0.0
            seen = True
        else:
            return None
    return total + current if seen else None


def _ordinal(text: str) -> float:
    """'third' -> 3, '21st' -> 21, 'twenty-first' -> 21."""
    if text[0].isdigit():
        return float(re.match(r"\d+", text).group())  # type: ignore[union-attr]
    words = re.split(r"[\s-]+", text.lower())
    return float(sum(TENS.get(w, 0) for w in words[:-1]) + ORDINALS[words[-1]])


def _fraction(text: str) -> float:
    num_word, den_word = re.split(r"[\s-]+", text.lower())
    num = 1 if num_word in ("a", "an") else ONES[num_word]
    return num / FRACTIONS[den_word]


def _half_a(text: str) -> float:
    words = text.lower().split()
    share = 0.5 if words[0] == "half" else 0.25
    last = words[-1]
    return share * (12 if last == "dozen" else 100 if last == "hundred" else SCALES[last])


def _parse_digits(text: str, decimal_comma: bool) -> Decimal:
    if decimal_comma:
        return Decimal(text.replace(".", "").replace(",", "."))
    return Decimal(re.sub(r"[,\s\u00a0\u202f]", "", text))


def _significant_digits(digits: str) -> int:
    """How many significant digits a written number has: '0.0120' -> 2, '3,200' -> 2."""
    return len(re.sub(r"\D", "", digits).strip("0"))


_ROUND = Context(prec=MAX_DIGITS)


def _in_domain(value: Decimal) -> float | str:
    """`value` rounded to `MAX_DIGITS` significant digits, or why it is outside the domain."""
    rounded = _ROUND.plus(value)
    if rounded and not -MAX_MAGNITUDE <= rounded.adjusted() < MAX_MAGNITUDE:
        return BEYOND
    return float(rounded)


def _round(x: Decimal | float) -> float:
    """A value at the domain's precision, so that a computed one equals the written one."""
    return float(_ROUND.plus(Decimal(x)))


def times(x: float, factor: float) -> float | None:
    """`x` times `factor` computed in decimal at the domain's precision ("142.9" in millions is
    exactly 142900000.0), or None when the product is outside the domain."""
    value = _in_domain(Decimal(repr(x)) * Decimal(repr(factor)))
    return None if isinstance(value, str) else value


def _power(g: dict[str, str | None], mantissa: Decimal) -> Decimal | str:
    """The value of an exponent form ("1e9", "1.2 × 10^6", "10⁹"), or why it is refused."""
    exponent = (g["e"] or g["pow"] or g["sup"] or "").translate(_FROM_SUPERSCRIPT)
    if len(exponent.lstrip("+-")) > len(str(MAX_MAGNITUDE)):
        return BEYOND  # a longer exponent is beyond the domain: never computed (it may not fit)
    if g["e"] or g["times"]:
        return mantissa.scaleb(int(exponent))
    if mantissa != 10:
        return f"a power of {g['digits']} (only powers of 10 are read)"
    return Decimal(1).scaleb(int(exponent))


def _digits(g: dict[str, str | None], decimal_comma: bool) -> Decimal | str:
    """The number a run of digits writes, with its exponent, or why it is refused."""
    digits = g["digits"] or ""
    if _significant_digits(digits) > MAX_DIGITS:
        return f"more than {MAX_DIGITS} significant digits"
    mantissa = _parse_digits(digits, decimal_comma)
    return _power(g, mantissa) if g["exp"] else mantissa


def _vulgar(text: str) -> Decimal:
    """'2½' -> 2.5, '¾' -> 0.75."""
    share = VULGAR_FRACTIONS[text[-1]]
    whole = Decimal(text[:-1].strip() or 0)
    return whole + Decimal(share.numerator) / Decimal(share.denominator)


def _unsigned(g: dict[str, str | None], decimal_comma: bool) -> Decimal | str | None:
    """The figure's number before its sign and scale; a reason if refused, None if no number."""
    if g["vulgar"]:
        return _vulgar(g["vulgar"])
    if g["digits"]:
        return _digits(g, decimal_comma)
    if g["half"]:
        return Decimal(repr(_half_a(g["half"])))
    if g["frac"]:
        return Decimal(repr(_fraction(g["frac"])))
    value = words_to_number(g["words"] or "")
    return None if value is None else Decimal(repr(value))


def _negative(g: dict[str, str | None]) -> bool:
    """A sign word ("minus 5", "negative five"), or a minus sign before digits ("-5", "$-5")."""
    minus = any(c in "-−" for c in (g["sign"] or "") + (g["cursign"] or ""))
    return bool(g["signword"]) or (minus and bool(g["digits"] or g["vulgar"]))


def _minor_refusal(m: re.Match[str]) -> str:
    """Why a glued "p" or "c" is not pence or cents here, or ""."""
    if m.group("minor") not in ("p", "c"):
        return ""
    digits = m.group("digits") or ""
    if m.group("minor") == "p" and digits.isdigit() and int(digits) in VIDEO_RESOLUTIONS:
        return "a video resolution, not pence"
    before = m.string[max(0, m.start() - 12) : m.start()]
    if _NOT_MONEY_BEFORE.search(before) or _NOT_MONEY_AFTER.match(m.string, m.end()):
        return "a label, a name or a formula, not money"
    return ""


def _unread_refusal(m: re.Match[str], g: dict[str, str | None]) -> str:
    """Why a figure is refused for a part around it that the reader cannot read, or "": an
    unknown currency or unit, a data unit in neither case, a fraction, a product."""
    text = m.string
    written = g["unit"] or ""
    if written.lower() in DATA_SYMBOLS and written not in DATA_UNITS:
        return f"a data unit written neither as bytes nor as bits ({written})"
    if written and cased_unit(written) is None:
        return f"a unit in a case that names no unit ({written}: the case of m/M, b/B decides)"
    if _scale_letter_unclear(m, g):
        return (
            f"a scale letter that may be a unit ({g['scale']}: no currency, unit or counted noun)"
        )
    before = text[max(0, m.start() - 3) : m.start()]
    if not g["cur"] and before and _UNKNOWN_SYMBOL_BEFORE.search(before):
        return "an unknown currency"
    if text[m.end() : m.end() + 1] not in _MAY_FOLLOW:
        return ""  # the checks below all start with a space, a hyphen, "°" or a times sign
    if not (g["cur"] or g["cursuf"] or g["minor"]) and _UNKNOWN_CURRENCY_AFTER.match(text, m.end()):
        return "an unknown currency"
    if not g["unit"] and _UNKNOWN_DEGREE_AFTER.match(text, m.end()):
        return "an unknown unit of degrees"
    if (g["digits"] or g["words"]) and _FRACTION_AFTER.match(text, m.end()):
        return _UNREAD_FRACTION
    if (g["digits"] or g["words"]) and _PRODUCT_AFTER.match(text, m.end()):
        return "a product it cannot read"
    return ""


def cased_unit(written: str) -> str | None:
    """The unit a written symbol names, by its case where case changes the unit ("MW" megawatts,
    "mW" milliwatts, "MBps" bytes, "Mbps" bits); None for a spelling that names neither ("mw")."""
    cased = CASED_UNITS.get(written.lower())
    if cased is not None:
        return cased.get(written)
    unit = UNIT_WORDS.get(written.lower(), "")
    return DATA_UNITS.get(written, unit) if unit in UNITS_BY_CASE else unit


def _counted_after(m: re.Match[str]) -> bool:
    """A counted plural noun follows the figure ("5.2M users")."""
    return bool(_COUNT_NOUN_AFTER.match(m.string, m.end()))


def _scale_letter_unclear(m: re.Match[str], g: dict[str, str | None]) -> bool:
    """An upper-case "K", "B" or "M" after a number with no currency, no unit and no counted
    noun: kelvin or thousand, bytes or billion, metres or million ("77 K", "5B", "5.2M"), which
    the reader will not guess (a lower-case "m" alone is the metre: "40m")."""
    if g["scale"] not in ("K", "B", "M") or g["cur"] or g["cursuf"] or g["unit"]:
        return False
    return not _counted_after(m)


def _unit_and_scale(m: re.Match[str]) -> tuple[str, Decimal, int]:
    """The figure's currency or unit, the factor of its scale or minor unit, and where it ends."""
    g = m.groupdict()
    currency = ""
    if g["cur"]:
        currency = CURRENCY_SYMBOLS.get(g["cur"].strip().lower(), g["cur"].strip().upper())
    if g["minor"]:
        minor = re.sub(r"\s+", " ", g["minor"].strip().lower())
        return currency or MINOR_UNITS[minor], Decimal("0.01"), m.end()
    if g["cursuf"]:
        currency = CURRENCY_WORDS[g["cursuf"].lower()]
    scale_word = re.sub(r"\s+", " ", (g["scale"] or "").lower())
    unit = (cased_unit(g["unit"]) or "") if g["unit"] else ""
    end = m.end()
    counted = bool(unit) or _counted_after(m)  # "5m tonnes", "5.2M users": a million of them
    if scale_word == "m" and not currency and not (counted and (unit or g["scale"] == "M")):
        # "40m" without a currency is forty metres, not forty million.
        scale_word, unit = "", unit or "m"
    if scale_word == "b" and not currency and not counted:
        scale_word = ""
        end = m.start("scale")
    if currency == "GBP" and unit == "lb":
        unit = ""
    if currency and unit and unit != "%":
        unit = ""
    scale = Decimal(1e6 if scale_word == "m" else 1)
    for word in scale_word.split():
        scale *= Decimal(SCALES[word]) if word != "m" else 1
    return currency or unit, scale, end


def _atom(m: re.Match[str], decimal_comma: bool) -> NumberMention | Refusal | None:
    g = m.groupdict()
    if g["ord"]:
        rank = _ordinal(g["ord"])
        end = m.start("ord") + len(g["ord"])
        return NumberMention(m.start("ord"), end, Quantity(rank, rank, "ord"), rank, False)
    raw = _unsigned(g, decimal_comma)
    if raw is None:
        return None
    reason = raw if isinstance(raw, str) else _minor_refusal(m) or _unread_refusal(m, g)
    if isinstance(raw, str) or reason:
        fraction = _FRACTION_AFTER.match(m.string, m.end()) if reason == _UNREAD_FRACTION else None
        return Refusal(m.start(), fraction.end() if fraction else m.end(), reason)
    raw = -raw if _negative(g) else raw
    unit, scale, end = _unit_and_scale(m)
    value = _in_domain(raw * scale)
    if isinstance(value, str):
        return Refusal(m.start(), m.end(), value)
    quantity = Quantity(value, value, unit)
    return NumberMention(m.start(), end, quantity, _round(raw), scale != 1)


def _bound_after(text: str, end: int) -> str:
    """The bound written after a figure ("100 or more" is at least 100), or ""."""
    if _AT_LEAST_AFTER.match(text, end):
        return "at least"
    return "up to" if _UP_TO_AFTER.match(text, end) else ""


def _qualify(text: str, mention: NumberMention) -> NumberMention | Refusal:
    """The mention with the bound or approximation written before it (or a bound after it); a
    negation turns a bound around ("does not exceed 100" is at most 100) and makes any other
    qualifier unreadable, as are two bounds that disagree ("over 100 or fewer")."""
    after = _bound_after(text, mention.end)
    if not after and not text[mention.start - 1 : mention.start].isspace():
        return mention  # a qualifier before ends in a space: most figures are spared the search
    before = text[max(0, mention.start - 24) : mention.start]
    q = _QUALIFIER_BEFORE.search(before)
    if not q and not after:
        return mention
    qualifier = QUALIFIERS[q.group(1).lower()] if q else after
    if q:
        at = mention.start - len(before) + q.start(1)  # where the qualifier starts
        if _NEGATION_BEFORE.search(text[max(0, at - 32) : at]):
            if qualifier not in NEGATED_BOUND:
                return Refusal(mention.start, mention.end, f"a negated qualifier ({q.group(1)})")
            qualifier = NEGATED_BOUND[qualifier]
    if after and qualifier != after:
        return Refusal(mention.start, mention.end, "two bounds that disagree")
    quantity = Quantity(
        mention.quantity.low,
        mention.quantity.high,
        mention.quantity.unit,
        qualifier,
    )
    return NumberMention(mention.start, mention.end, quantity, mention.raw, mention.has_scale)


def joins_range(text: str, a_start: int, a_end: int, b_start: int) -> bool:
    """Whether the gap between two figures makes them a range: "to", a hyphen or a dash, spaced
    or not ("1939 - 1945" is a range, never a subtraction), or "and"/"or" after "between"/"from"."""
    gap = text[a_end:b_start]
    if not _RANGE_GAP.match(gap):
        return False
    word = gap.strip().lower()
    return word not in ("and", "or") or bool(
        _BETWEEN_BEFORE.search(text[max(0, a_start - 12) : a_start])
    )


def _merge_range(text: str, a: NumberMention, b: NumberMention) -> NumberMention | None:
    if not joins_range(text, a.start, a.end, b.start):
        return None
    qa, qb = a.quantity, b.quantity
    low = qa.low
    if not a.has_scale and b.has_scale and a.raw <= b.raw:
        low = _round(a.raw * qb.low / b.raw) if b.raw else low  # "40 to 50 million": both millions
    unit = qa.unit or qb.unit
    if qa.unit and qb.unit and qa.unit != qb.unit:
        return None
    if low > qb.low:
        return None
    return NumberMention(a.start, b.end, Quantity(low, qb.low, unit, qa.qualifier), a.raw, True)


def figure_not_year(text: str, start: int, end: int) -> bool:
    """Whether the year-like digits at text[start:end] are a signed figure ("minus 1998"), an
    amount in minor units ("1500 cents") or a measure in a power, energy, frequency or data unit
    ("1000 kW", "2048 MB"), which the figure scanner reads and a year would hide."""
    signed = _SIGN_BEFORE.search(text[max(0, start - 12) : start])
    measure = _MEASURE_AFTER.match(text, end)  # read (or refused) by the figure scanner
    return bool(signed or _MINOR_AFTER.match(text, end) or measure)


def scan_numbers(
    text: str,
    masked: list[tuple[int, int]] | None = None,
    decimal_comma: bool = False,
    unread: Callable[[int, int], bool] | None = None,
) -> list[NumberMention | Refusal]:
    """Every figure in `text`, left to right, skipping the `masked` spans (dates already read),
    and every figure refused, with its reason.

    Each bound of a range is also reported on its own, since the text does state it. A figure
    whose match text[start:end] is `unread(start, end)` is left out unread (the caller drops it
    anyway: a table's cells are read cell by cell); it must be one whose reading changes no other.
    """
    pattern = _ATOM_COMMA if decimal_comma else _ATOM
    taken = Taken(len(text), masked)
    atoms: list[NumberMention | Refusal] = []
    low = text.lower()
    for form, reason, needs in _WHOLE_FORMS:
        if not any(n in low for n in needs):
            continue
        for m in form.finditer(text):
            start, end = m.span("f") if "f" in form.groupindex else m.span()
            if taken.add(start, end):
                atoms.append(Refusal(start, end, reason))
    refused_to = -1  # the end of a refusal that reaches past its figure: nothing in it is read
    for m in pattern.finditer(text):
        if m.start() < refused_to or taken.overlaps(m.start(), m.end()):
            continue
        if unread is not None and unread(m.start(), m.end()):
            continue
        atom = _atom(m, decimal_comma)
        if isinstance(atom, Refusal):
            refused_to = atom.end
        if atom is not None:
            atoms.append(_qualify(text, atom) if isinstance(atom, NumberMention) else atom)
    atoms.sort(key=lambda a: a.start)
    out: list[NumberMention | Refusal] = []
    for i, atom in enumerate(atoms):
        after = atoms[i + 1] if i + 1 < len(atoms) else None
        if isinstance(atom, NumberMention) and isinstance(after, NumberMention):
            merged = _merge_range(text, atom, after)
            if merged is not None:
                atom, atoms[i + 1] = _shared_ends(atom, after, merged)
                out.extend((atom, merged))
                continue
        out.append(atom)
    return out


def _shared_ends(
    a: NumberMention, b: NumberMention, merged: NumberMention
) -> tuple[NumberMention, NumberMention]:
    """A range's bounds as mentions of their own, each in the range's scale and unit: the "$5"
    of "$5-7 million" is $5 million, and its "7 million" is $7 million."""
    q = merged.quantity
    low = Quantity(q.low, q.low, q.unit, a.quantity.qualifier)
    high = Quantity(q.high, q.high, q.unit, b.quantity.qualifier)
    return (
        NumberMention(a.start, a.end, low, a.raw, a.has_scale or b.has_scale),
        NumberMention(b.start, b.end, high, b.raw, b.has_scale),
    )
