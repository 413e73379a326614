"""A question's BM25 scores do not depend on the process's hash seed: the query is a set, and a
float sum in set order differed in its last bit between processes, which broke exact ties in the
bounded pool differently from one run (or rescore) to the next."""

from __future__ import annotations

import os
import subprocess
import sys

from experiment.config import PROJECT_ROOT

SCORES = r"""
from experiment.evaluate.evidence import QuestionView
article = (
    "Kiln output at the Aster works rose to 4,210 tonnes in the third quarter of 2023. "
    "The Aster works ran two kilns, each fired with recycled glass cullet and local sand. "
    "Revenue from kiln output and cullet sales reached 18.4 million euros in the quarter. "
    "Local sand prices fell while recycled cullet prices rose through the third quarter. "
    "The works hired 35 kiln operators and trained them on the recycled glass line."
)
question = (
    "How many tonnes of kiln output did the Aster works report for recycled glass cullet in "
    "the third quarter?"
)
print(repr(QuestionView.of(article, question).scores))
"""


def test_bm25_scores_are_the_same_under_every_hash_seed() -> None:
    said = set()
    for seed in range(12):  # under the set-order sum, seeds 0 to 11 gave two different tuples
        env = {**os.environ, "PYTHONHASHSEED": str(seed)}
        got = subprocess.run(
            [sys.executable, "-c", SCORES], capture_output=True, text=True, env=env,
            cwd=PROJECT_ROOT, check=True,
        )  # fmt: skip
        said.add(got.stdout)
    assert len(said) == 1, said
