"""A table label's kind (experiment/values/tables.label_kind): the head word decides whether a
money caption's scale applies (a count, a ratio, both, or an amount). The contract's `tables`
and `planted text` rows are run by tests/test_contract.py with every other class."""

from __future__ import annotations

import pytest

from experiment.values.tables import label_kind


@pytest.mark.parametrize(
    ("label", "kind"),
    [
        ("Employees", "count"),
        ("Headcount at year end", "count"),
        ("Number of stores", "count"),
        ("Shares outstanding", "count"),
        ("(shares, in thousands)", "count"),
        ("Staff costs", "money"),
        ("Cost of shares repurchased", "money"),
        ("Customer deposits", "money"),
        ("Tax rate", "ratio"),
        ("Revenue growth", "ratio"),
        ("Employees and payroll", "mixed"),
        ("Property, plant and equipment", ""),
        ("Office equipment", ""),
        ("Years ended December 31,", ""),
        ("2024", ""),
    ],
)
def test_a_labels_kind_is_its_head_word(label: str, kind: str) -> None:
    assert label_kind(label) == kind
