"""Majority vote by value, with and without the verifier."""

from __future__ import annotations

from experiment.evaluate.vote import majority
from experiment.values.normalize import parse_value


def v(text: str):  # type: ignore[no-untyped-def]
    return parse_value(text, "figure")


def test_clusters_by_value_across_units() -> None:
    vote = majority([v("166 km"), v("103 miles"), v("5")])
    assert vote.index == 0 and vote.votes == 2 and vote.agreement == 2 / 3


def test_tie_goes_to_the_earliest_sample() -> None:
    assert majority([v("5"), v("6"), v("6"), v("5")]).index == 0


def test_keep_mask_restricts_voters() -> None:
    vote = majority([v("5"), v("5"), v("7")], keep=[False, False, True])
    assert vote.index == 2 and vote.votes == 1


def test_abstains_when_nothing_kept() -> None:
    assert majority([v("5")], keep=[False]).index is None


def test_abstentions_can_win_the_unverified_vote() -> None:
    assert majority([None, None, v("5")], abstain_votes=True).index is None
    assert majority([None, None, v("5")]).index == 2
