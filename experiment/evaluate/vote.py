"""Aggregate k answers into one, independent of the order of the samples.

- Two answers are one when their values are equal (`same_answer`): numbers equal in comparable
  units with the same bound ("103 miles" and "166 km" are one answer in two units; "less than
  100", "100" and "more than 100" are three); dates only when they name the same interval, so
  a vaguer "2009" is never merged with "3 March 2009" or "5 June 2009".
- Clusters are transitive by construction (`clusters`). "Equal" is not transitive where one side
  is a bare figure (no unit, no bound), which equals "$250" and "€250" alike. So the anchored
  answers (a unit, a currency, a bound, or a date) are clustered first, among themselves only;
  each edge joins two answers of one dimension (one currency) and one bound, so no cluster holds
  two incompatible units or bounds. A bare figure then joins the one anchored cluster it equals,
  when there is exactly one. A bare figure that equals none, or several ("250" beside "$250" and
  "€250": it cannot say which it meant), clusters with the bare figures equal to it, on its own.
  No step reads the samples' order, so no order of the samples changes the clusters.
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

from experiment.base.groups import connected
from experiment.values.canonical import (
    DateValue,
    Quantity,
    Value,
    as_date,
    bound_of,
    quantities_equal,
    same_bound,
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
    """Whether two sampled answers are equal in a vote (symmetric, not transitive)."""
    if isinstance(a, Quantity) and isinstance(b, Quantity):
        return same_bound(a, b) and quantities_equal(a, b)
    if any(isinstance(x, Quantity) and bound_of(x) for x in (a, b)):
        return False  # "more than 2009" is not the year 2009
    da, db = as_date(a), as_date(b)
    return da is not None and db is not None and _date_key(da) == _date_key(db)


def is_bare(v: Value) -> bool:
    """A figure with no unit, currency or bound: it equals figures of every unit."""
    return isinstance(v, Quantity) and not v.unit and not bound_of(v)


def _components(values: Sequence[Value | None], members: list[int]) -> list[list[int]]:
    """Connected groups of `same_answer` among `members` (order-free)."""
    return connected(members, lambda i, j: same_answer(values[i], values[j]))  # type: ignore[arg-type]


def clusters(values: Sequence[Value | None], members: list[int]) -> list[list[int]]:
    """The vote's clusters of `members` (module docstring): anchored answers first, then each
    bare figure into the one anchored cluster it equals, else among the bare figures."""
    bare = [i for i in members if is_bare(values[i])]  # type: ignore[arg-type]
    anchored = _components(values, [i for i in members if not is_bare(values[i])])  # type: ignore[arg-type]
    joined: list[list[int]] = [list(c) for c in anchored]
    alone: list[int] = []
    for i in bare:
        joins = [
            x for x, c in enumerate(anchored) if any(same_answer(values[i], values[j]) for j in c)
        ]  # type: ignore[arg-type]
        if len(joins) == 1:
            joined[joins[0]].append(i)
        else:
            alone.append(i)
    groups = joined + _components(values, alone)
    return [sorted(c) for c in groups]


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
