"""The one table of every scoring's scores (`columns.SCORES`), and the two ways it was kept before.

A run folder before format 6, and a results folder before results format 2, kept the large
model's checks and the pools' scores as two tables (`columns.CHECKS`, `columns.DRAFTS`).
`joined` makes the one table of them (the migration); `view` gives a reader of one kind of
scoring its rows under that kind's own column names (a check's `mode`, `candidate` and
`margin`; a pool's `role`, `text` and `logprob`).
"""

from __future__ import annotations

import pandas as pd

from experiment.evaluate.scoring import CHECK, POOL, label, label_parts
from experiment.record.columns import CHECKS, DRAFTS, Table

# a kind's own names for the one table's `scoring` (its which), `text` and `score`
NAMES = {
    CHECK: ("mode", "candidate", "margin"),
    POOL: ("role", "text", "logprob"),
}
KINDS = {CHECK: CHECKS, POOL: DRAFTS}


def joined(checks: pd.DataFrame, drafts: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """The one table, with `columns`, of the two tables as read (text cells): the checks' rows,
    then the pools'; a column neither had is blank (a pool's `picked` is false)."""
    parts = []
    for kind, frame in ((CHECK, checks), (POOL, drafts)):
        if frame.empty:
            continue
        which, text, score = NAMES[kind]
        part = frame.rename(columns={text: "text", score: "score"})
        part["scoring"] = [label(kind, str(w)) for w in frame[which]]
        if kind == POOL:
            part["picked"] = "false"
        part = part.assign(**{c: "" for c in columns if c not in part.columns})
        parts.append(part[columns])
    if not parts:
        return pd.DataFrame(columns=columns)
    return pd.concat(parts, ignore_index=True)


def view(scores: pd.DataFrame, kind: str) -> pd.DataFrame:
    """The rows of one `kind` of scoring under that kind's own names (`NAMES`), with the
    columns its table declares that `scores` has (and `text_sha256`, where it has it)."""
    which, text, score = NAMES[kind]
    table: Table = KINDS[kind]
    parts = [label_parts(str(s)) for s in scores["scoring"]]
    mine_rows = pd.Series([k == kind for k, _ in parts], index=scores.index, dtype=bool)
    mine = scores[mine_rows].reset_index(drop=True)
    mine = mine.rename(columns={"text": text, "score": score})
    mine[which] = [w for k, w in parts if k == kind]
    keep = [c for c in (*table.names, "text_sha256") if c in mine.columns]
    return mine[keep]
