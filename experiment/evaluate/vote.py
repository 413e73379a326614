"""Aggregate k answers into one, independent of the order of the samples.

- Two answers are one when their values are equal: numbers equal in comparable units with
  qualifiers that do not point opposite ways ("103 miles" and "166 km" are one answer in two
  units; "less than 100" and "more than 100" are two); dates only when they name the same
  interval, so a vaguer "2009" is never merged with "3 March 2009" or "5 June 2009".
  Clusters are the connected groups of that relation, which no order of the samples changes.
- The largest cluster wins. Ties go to the cluster whose most common canonical value sorts first
  (an arbitrary but fixed rule that does not depend on sample order).
- The answer shown is the cluster's most common canonical value (ties: the one that sorts
  first), from the earliest sample that gave it.
- A failed sample (no value and no deliberate abstention) never votes. Deliberate abstentions
  ("not stated") vote only with `abstain_votes`, as one cluster that wins when it is strictly the
  largest.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from experiment.values.canonical import (
    DateValue,
    Quantity,
    Value,
    as_date,
    opposite_bounds,
    quantities_equal,
)


@dataclass(frozen=True)
class Vote:
    index: int | None  # the sample whose answer won; None to abstain
    votes: int
    k: int

    @property
    def agreement(self) -> float:
        return self.votes / self.k if self.k else 0.0


def _date_key(d: DateValue) -> tuple[object, ...]:
    return (d.start, d.end, d.year_known)


def same_answer(a: Value, b: Value) -> bool:
    """Whether two sampled answers count as one in a vote (symmetric)."""
    if isinstance(a, Quantity) and isinstance(b, Quantity):
        return not opposite_bounds(a, b) and quantities_equal(a, b)
    da, db = as_date(a), as_date(b)
    return da is not None and db is not None and _date_key(da) == _date_key(db)


def clusters(values: Sequence[Value | None], members: list[int]) -> list[list[int]]:
    parent = {i: i for i in members}

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for x, i in enumerate(members):
        for j in members[x + 1 :]:
            if same_answer(values[i], values[j]):  # type: ignore[arg-type]
                parent[root(j)] = root(i)
    groups: dict[int, list[int]] = {}
    for i in members:
        groups.setdefault(root(i), []).append(i)
    return list(groups.values())


def shown(values: Sequence[Value | None], cluster: list[int]) -> tuple[str, int]:
    """The cluster's most common canonical value (ties: sorts first) and its earliest sample."""
    counts = Counter(values[i].canonical() for i in cluster)  # type: ignore[union-attr]
    canonical = min(counts, key=lambda c: (-counts[c], c))
    return canonical, min(i for i in cluster if values[i].canonical() == canonical)  # type: ignore[union-attr]


def majority(
    values: Sequence[Value | None],
    keep: Sequence[bool] | None = None,
    abstain_votes: bool = False,
    abstentions: Sequence[bool] | None = None,
) -> Vote:
    """Majority among `values[i]` with `keep[i]`.

    A `None` value is a deliberate abstention where `abstentions[i]` is true (every `None` when
    `abstentions` is not given) and a failure otherwise; failures never vote. With
    `abstain_votes`, abstentions form a cluster of their own that can win (unverified vote);
    otherwise they are ignored and the vote abstains only when no value is left.
    """
    kept = [i for i in range(len(values)) if keep is None or keep[i]]
    answered = [i for i in kept if values[i] is not None]
    abstained = [i for i in kept if values[i] is None and (abstentions is None or abstentions[i])]
    k = len(values)
    ranked = sorted(
        ((*shown(values, c), len(c)) for c in clusters(values, answered)),
        key=lambda s: (-s[2], s[0]),
    )
    if not ranked or (abstain_votes and len(abstained) > ranked[0][2]):
        return Vote(None, len(abstained) if abstain_votes else 0, k)
    _, index, votes = ranked[0]
    return Vote(index, votes, k)
