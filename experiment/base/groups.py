"""Groups: connected groups of a symmetric relation (union-find: the vote's clusters and TAT-QA's
source units; they do not depend on the order of the members, only on the relation), and a
sample dealt evenly across groups (the importers' samples and `--limit`'s quick look)."""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Sequence
from typing import TypeVar

T = TypeVar("T", bound=Hashable)
U = TypeVar("U")


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


def dealt(items: Sequence[U], group: Callable[[U], str], n: int, rng: random.Random) -> list[U]:
    """`n` of `items` spread evenly across their groups: the groups in an order `rng` shuffles
    (from sorted), each group shuffled, then dealt round-robin; all of them where `n` is not
    fewer."""
    if n >= len(items):
        return list(items)
    groups: dict[str, list[U]] = {}
    for item in items:
        groups.setdefault(group(item), []).append(item)
    order = sorted(groups)
    rng.shuffle(order)
    for g in order:
        rng.shuffle(groups[g])
    picked: list[U] = []
    depth = 0
    while len(picked) < n:
        for g in order:
            if depth < len(groups[g]) and len(picked) < n:
                picked.append(groups[g][depth])
        depth += 1
    return picked
