"""The fixed split of a data set's titles into a fitting half and an evaluation half.

Rule: a title (a SQuAD Wikipedia title, a DROP passage, a TAT-QA document: the importer's
`group`) belongs to the **evaluation** half when the first byte of the SHA-256 of its UTF-8 text
is odd, and to the **fitting** half otherwise. The rule looks at nothing but the title, so it
needs no list of titles, gives the same answer for SQuAD v1.1 and v2.0 (whose 35 titles are among
v1.1's 48), and cannot be nudged by what a model did. On SQuAD v1.1 dev it puts 24 of the 48
titles in each half (17 of SQuAD v2.0's 35 in the evaluation half). A TAT-QA title is its
context's table `uid`, so a context goes whole into one half: on TAT-QA dev 142 of the 278
contexts (852 of the 1,668 questions; 660 of the 1,256 figure/date questions the importer keeps)
are in the fitting half, 136 (816; 596) in the evaluation half.

The selector (`experiment.evaluate.selector`) is fitted on the fitting half; every benchmark
sample is drawn from the evaluation half.
"""

from __future__ import annotations

import hashlib
from typing import Literal

Half = Literal["fit", "eval"]
HALVES: tuple[Half, ...] = ("fit", "eval")


def half_of(title: str) -> Half:
    """The half that `title` belongs to, by the fixed rule above."""
    return "eval" if hashlib.sha256(title.encode("utf-8")).digest()[0] % 2 else "fit"
