"""Connected groups of a symmetric relation (union-find): the vote's clusters and TAT-QA's source
units both use it. The groups do not depend on the order of the members, only on the relation."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

T = TypeVar("T", bound=Hashable)


def connected(members: Sequence[T], linked: Callable[[T, T], bool]) -> list[list[T]]:
    """The groups of `members` joined, directly or through others, by `linked` (tried on every
    pair), each in `members`' order, in the order of their first member."""
    parent = {m: m for m in members}

    def root(m: T) -> T:
        while parent[m] != m:
            parent[m] = parent[parent[m]]
            m = parent[m]
        return m

    for x, a in enumerate(members):
        for b in members[x + 1 :]:
            if root(a) != root(b) and linked(a, b):
                parent[root(b)] = root(a)
    groups: dict[T, list[T]] = {}
    for m in members:
        groups.setdefault(root(m), []).append(m)
    return list(groups.values())
