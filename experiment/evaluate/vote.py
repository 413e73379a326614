"""Aggregate k answers: cluster by value, take the largest cluster, earliest sample breaks ties.

Clustering uses value equality, not text, so "2.5 billion years" and "about 2.5 billion years"
are one answer, and "103 miles" and "166 km" are one answer in two units.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from experiment.values.canonical import Value, same_value


@dataclass(frozen=True)
class Vote:
    index: int | None  # the sample whose answer won; None to abstain
    votes: int
    k: int

    @property
    def agreement(self) -> float:
        return self.votes / self.k if self.k else 0.0


def majority(
    values: Sequence[Value | None], keep: Sequence[bool] | None = None, abstain_votes: bool = False
) -> Vote:
    """Majority among `values[i]` with `keep[i]`; `None` values abstain.

    With `abstain_votes`, abstentions form a cluster of their own that can win (unverified vote);
    otherwise they are ignored and the vote abstains only when no value is left.
    """
    clusters: list[list[int]] = []
    abstentions: list[int] = []
    for i, v in enumerate(values):
        if keep is not None and not keep[i]:
            continue
        if v is None:
            abstentions.append(i)
            continue
        for c in clusters:
            if same_value(values[c[0]], v):  # type: ignore[arg-type]
                c.append(i)
                break
        else:
            clusters.append([i])
    k = len(values)
    best = max(clusters, key=lambda c: (len(c), -c[0]), default=None)
    if best is None or (abstain_votes and len(abstentions) > len(best)):
        return Vote(None, len(abstentions) if abstain_votes else 0, k)
    return Vote(best[0], len(best), k)
