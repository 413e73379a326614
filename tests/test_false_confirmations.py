"""Issue 43: the value reader's blind spots. Each case is what `factqa verify --article A.md
--kind KIND -- "ANSWER"` checks (`verify.answer.confirm_text`) on an article holding TEXT; every
one was confirmed before, and a refused or misread form must confirm nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from experiment.base.types import Article
from experiment.values.normalize import scan
from experiment.verify.answer import confirm_text
from experiment.verify.batch import confirm_answer
from experiment.verify.derive import confirm_derivation

_EPS_TABLE = (
    "($ in millions, except per share data)\n\n"
    "| | 2023 |\n|---|---|\n| Revenue | 1,200 |\n| Diluted EPS | 2.15 |\n"
    "| Gross margin (%) | 45.2 |\n| Employees (number) | 310 |\n"
)
_SHARES_TABLE = "(in thousands)\n\n| | 2023 |\n|---|---|\n| Shares (in millions) | 45.2 |\n"

FALSE_CONFIRMATIONS = [
    # (article text, answer, kind)
    ("More than 100 people came.", "less than 100", "figure"),  # qualifier ignored
    ("The fee was 5 Canadian dollars.", "US$5", "figure"),  # unknown currency read bare
    ("It cost Rs. 500.", "$500", "figure"),
    ("It cost ₹500.", "€500", "figure"),
    ("It reached 40°F.", "40°C", "figure"),  # unknown unit read bare
    ("Rates rose 50 basis points.", "50%", "figure"),
    ("The link ran at 100 Mb per second.", "100 MB", "figure"),  # unit case folded
    ("It cost 5 crore rupees.", "5 lakh", "figure"),  # scale word dropped
    ("About 5 hundred people came.", "5", "figure"),
    ("She won 4 100m titles.", "4,100", "figure"),  # space thousands absorb the next number
    ("The meeting began at 14:30.", "30", "figure"),  # time of day
    ("Call 555-1234 now.", "1234", "figure"),  # phone number
    ("Output was 2.5 × 10^6 tonnes.", "10^6 tonnes", "figure"),  # fuzzy fallback
    ("It was week 30 of 2025.", "2025-W12", "date"),
    ("The wall was built in 1500 BC.", "1500", "date"),
    ("Sales rose 2,024 units.", "2024", "date"),
    (_EPS_TABLE, "$2.15 million", "figure"),  # a row label's own unit beats the table's
    (_EPS_TABLE, "45.2 million", "figure"),
    (_EPS_TABLE, "310 million", "figure"),
    (_SHARES_TABLE, "45.2 thousand", "figure"),  # the row's own scale beats the table's
    ("The pipe is 2 1/2 in wide.", "2 in", "figure"),  # fraction read by its first figure
    ("The pipe is 2 1/2 in wide.", "2", "figure"),
    ("Use a 1/4 inch bolt.", "1", "figure"),
    ("Use a 1/4 inch bolt.", "4 inches", "figure"),
    ("One sixth of the staff left.", "1", "figure"),
    ("A page holds 8x2^10 bits.", "10 bits", "figure"),
    ("Close to a million and a half visited.", "a half", "figure"),  # its tail read on its own
]


@pytest.mark.parametrize(("text", "answer", "kind"), FALSE_CONFIRMATIONS)
def test_not_confirmed(text: str, answer: str, kind: str) -> None:
    assert not confirm_text(answer, text, "", kind).confirmed


KEPT = [
    # (article text, answer, kind): forms now read whole, each once misread
    ("Rates rose 50 basis points.", "0.5 percentage points", "figure"),  # read as bare 50
    ("It cost 5 crore rupees.", "50 million rupees", "figure"),  # read as bare 5
    ("About 5 hundred people came.", "500", "figure"),  # read as 5
    ("She won 4 100m titles.", "4", "figure"),  # read as 4100
    (_SHARES_TABLE, "45.2 million", "figure"),  # read in the table's thousands
]


@pytest.mark.parametrize(("text", "answer", "kind"), KEPT)
def test_still_confirmed(text: str, answer: str, kind: str) -> None:
    assert confirm_text(answer, text, "", kind).confirmed


REFUSED = [
    # (text, why it is refused): a form the reader cannot read is refused whole
    ("14:30", "time of day"),
    ("9:05 am", "time of day"),
    ("555-123-4567", "phone number"),
    ("(555) 123-4567", "phone number"),
    ("2 1/2", "fraction"),
    ("a million and a half", "fraction"),
    ("1/4", "fraction"),
    ("₽500", "currency"),
    ("5 pesos", "currency"),
    ("40°K", "unit"),
]


@pytest.mark.parametrize(("text", "why"), REFUSED)
def test_refused_whole(text: str, why: str) -> None:
    mentions = scan(text)
    assert mentions and all(not m.values for m in mentions)
    assert why in mentions[0].refused


@pytest.mark.parametrize(("text", "answer"), [(t, t) for t, _ in REFUSED])
def test_refused_form_confirms_nothing(text: str, answer: str) -> None:
    # a refused answer is confirmed by nothing, even by its own text
    assert not confirm_text(answer, f"It was {text} then.", "", "figure").confirmed


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("Costs were 0.9 and 0.1.", "½ = 0.9 + 0.1"),  # a fraction had a tolerance of 0.5
    ],
)
def test_fraction_result_is_exact(text: str, answer: str) -> None:
    assert not confirm_derivation(answer, text).confirmed


@pytest.mark.parametrize(
    ("answer", "confirmed"),
    [
        ("8 = 9 - 2", False),  # was confirmed by its result 8 alone, which the text states
        ("7 = 9 - 2", True),
        ("9 - 2", True),
    ],
)
def test_csv_row_checks_derivations(answer: str, confirmed: bool) -> None:
    article = Article("a", "A", "", "Costs were 9 and 2, and 8 staff left.", Path("a.md"))
    assert confirm_answer(answer, article)["confirmed"] == ("true" if confirmed else "false")
