"""The fixed split of a data set's titles into a fitting half and an evaluation half.

Rule: a title (a SQuAD Wikipedia title, a DROP passage, a TAT-QA source unit: the importer's
`group`, which is also the questions' bootstrap cluster) belongs to the **evaluation** half when
the first byte of the SHA-256 of its UTF-8 text is odd, and to the **fitting** half otherwise.
The rule looks at nothing but the title, so it needs no list of titles, gives the same answer
for SQuAD v1.1 and v2.0 (whose 35 titles are among v1.1's 48), and cannot be nudged by what a
model did. On SQuAD v1.1 dev it puts 24 of the 48 titles in each half (17 of SQuAD v2.0's 35 in
the evaluation half).

A TAT-QA context is one table of a company report, and a report gives several contexts: the
same notes header or paragraph, word for word, in two contexts. So TAT-QA's unit is not the
context but its source (`units`): contexts that share a paragraph of at least `SHARED_CHARS`
characters are one unit, named by one of its contexts' table uids: the first, in sorted order,
of those in the fitting half, else the first. A unit is thus in the evaluation half only when
every context of it is, so the evaluation half only loses contexts to the fitting half (the
shipped selector, fitted on the fitting contexts of the earlier uid rule, saw none of the
evaluation half). On TAT-QA dev the 278 contexts form 267 units (8 of several contexts); 9
contexts move to the fitting half, which leaves 127 in the evaluation half, and no paragraph of
40 characters or more is written on both halves (6 were, split by uid; `shared_across_halves`).

The selector (`experiment.evaluate.selector`) is fitted on the fitting half; every benchmark
sample is drawn from the evaluation half.
"""

from __future__ import annotations

import hashlib
from typing import Literal

from experiment.base.groups import connected

Half = Literal["fit", "eval"]
HALVES: tuple[Half, ...] = ("fit", "eval")


def half_of(title: str) -> Half:
    """The half that `title` belongs to, by the fixed rule above."""
    return "eval" if hashlib.sha256(title.encode("utf-8")).digest()[0] % 2 else "fit"


SHARED_CHARS = 40  # shorter shared paragraphs are headings ("Revenue", "Results of Operations")


def _paragraph(text: str) -> str:
    return " ".join(text.split())


def units(contexts: dict[str, list[str]]) -> dict[str, str]:
    """Each context id's unit name: contexts (id -> paragraphs) that share a paragraph of at
    least `SHARED_CHARS` characters (whitespace folded), directly or through others, are one
    unit, named by its first context id in the fitting half, else its first (module docstring)."""
    long = {
        c: {p for t in contexts[c] if len(p := _paragraph(t)) >= SHARED_CHARS} for c in contexts
    }
    members = connected(sorted(contexts), lambda a, b: bool(long[a] & long[b]))
    name = {}
    for group in members:
        fitting = [c for c in group if half_of(c) == "fit"]
        for c in group:
            name[c] = (fitting or group)[0]
    return name


def shared_across_halves(contexts: dict[str, list[str]], unit: dict[str, str]) -> int:
    """Paragraphs of at least `SHARED_CHARS` characters written in contexts of both halves, when
    each context takes its unit's half (`unit`: context id -> unit name)."""
    halves: dict[str, set[Half]] = {}
    for c, paragraphs in contexts.items():
        for text in paragraphs:
            p = _paragraph(text)
            if len(p) >= SHARED_CHARS:
                halves.setdefault(p, set()).add(half_of(unit[c]))
    return sum(len(h) > 1 for h in halves.values())
