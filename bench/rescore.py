"""What the strict judge moved: one run scored under the old rules and re-scored from the cache.

    python bench/rescore.py OLD_RUN NEW_RUN --name NAME [--results docs/RESULTS.md] [--no-write]

OLD_RUN is a run folder written before the rules changed, NEW_RUN the same run re-scored from the
generation cache with the current code (no new samples: the attempts must be identical). Prints,
and writes as the section `rescore-NAME` of the results file:
- per method: accuracy before and after, and the questions whose verdict changed;
- per sample (small and large): judgements that moved, by the rule that moved them, comparing
  the old judge (dates at the coarsest shared granularity, qualifiers and change words ignored,
  any missing value an abstention) with `experiment.evaluate.judge`;
- for the two votes: questions whose kept answer changed (the order-free vote, failures no
  longer voting).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from pathlib import Path

import pandas as pd

from experiment.evaluate.judge import CHANGE_QUESTION, gold_of, judge
from experiment.evaluate.methods import MAJORITY, VERIFIED
from experiment.records import Question
from experiment.report.markdown import update_section
from experiment.report.run import Run, load_run
from experiment.report.tables import markdown_table
from experiment.values.canonical import (
    DateValue,
    Quantity,
    opposite_bounds,
    same_value,
)
from experiment.values.extract import ABSTAINED, extract

ROOT = Path(__file__).resolve().parent.parent

RULES = (
    "dates: within a gold interval",
    "figures: opposite qualifiers",
    "changes: magnitude and direction",
    "unanswerable: a failure is not an abstention",
    "other",
)


def _question(row: pd.Series) -> Question:
    gold = tuple(g.strip() for g in row.gold.split(" | "))
    return Question(row.question_id, row.article_id, row.question, gold, row.kind)


def _rule(q: Question, value: object) -> str:
    if q.unanswerable:
        return RULES[3]
    gold = [g.value for g in gold_of(q)]
    if isinstance(value, DateValue) or any(isinstance(g, DateValue) for g in gold):
        return RULES[0]
    if isinstance(value, Quantity):
        if any(isinstance(g, Quantity) and opposite_bounds(value, g) for g in gold):
            return RULES[1]
        if CHANGE_QUESTION.search(q.text):
            return RULES[2]
    return RULES[4]


def sample_moves(new: Run) -> tuple[Counter[str], Counter[str], int]:
    """Per-sample judgements that moved (old judge -> new), by rule: (to right, to wrong, total)."""
    attempts = new.attempts
    by_id = {r.question_id: _question(r) for r in new.questions.itertuples()}
    up: Counter[str] = Counter()
    down: Counter[str] = Counter()
    for a in attempts.itertuples():
        q = by_id[a.question_id]
        best = extract(a.raw_text, q.text, q.kind).best
        value = best.value if best else None
        gold = gold_of(q)
        if q.unanswerable:
            old = value is None
        else:
            old = value is not None and any(same_value(value, g.value) for g in gold)
        new = judge(value, q, gold, a.raw_text, a.reason == ABSTAINED)
        if old != new:
            (up if new else down)[_rule(q, value)] += 1
    return up, down, len(attempts)


def _paired(old: Run, new: Run) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Both runs' questions.csv, indexed by question id, in the same order."""
    o = old.questions.set_index("question_id")
    return o, new.questions.set_index("question_id").loc[o.index]


def method_moves(old: Run, new: Run) -> list[list[object]]:
    o, n = _paired(old, new)
    rows = []
    for method in new.methods:
        before, after = o[f"{method}.correct"], n[f"{method}.correct"]
        changed = int((before != after).sum())
        rows.append(
            [
                method,
                f"{before.mean():.3f}",
                f"{after.mean():.3f}",
                f"{after.mean() - before.mean():+.3f}",
                f"{changed} (+{int((after & ~before).sum())}/-{int((before & ~after).sum())})",
            ]
        )
    return rows


def vote_moves(old: Run, new: Run) -> list[list[object]]:
    o, n = _paired(old, new)
    rows = []
    for method in (MAJORITY.name(new.k), VERIFIED.name(new.k)):
        value = o[f"{method}.value"] != n[f"{method}.value"]
        agreement = o[f"{method}.agreement"] != n[f"{method}.agreement"]  # the vote share
        rows.append([method, int(value.sum()), int((value | agreement).sum())])
    return rows


def section(name: str, old_run: Path, new_run: Path) -> str:
    old, new = load_run(old_run), load_run(new_run)
    up, down, samples = sample_moves(new)
    lines = [
        f"### {name}: re-scored under the strict judge",
        "",
        f'Command: `python bench/rescore.py OLD_RUN NEW_RUN --name "{name}"`, where OLD_RUN is '
        "the run as scored before the judging change and NEW_RUN the same run re-scored from "
        "the generation cache (byte-identical attempts.csv, checked).",
        "",
        *markdown_table(
            ["method", "accuracy before", "accuracy after", "change", "questions changed (+/-)"],
            method_moves(old, new),
        ),
        "",
        f"Per-sample judgements that moved, of {samples} (small and large samples), by rule:",
        "",
        *markdown_table(
            ["rule", "wrong -> right", "right -> wrong"],
            [[r, up[r], down[r]] for r in RULES if up[r] or down[r]] or [["none", 0, 0]],
        ),
        "",
        *markdown_table(
            ["vote", "questions whose kept answer changed", "answer or agreement changed"],
            vote_moves(old, new),
        ),
    ]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old_run", type=Path)
    ap.add_argument("new_run", type=Path)
    ap.add_argument("--name", required=True)
    ap.add_argument("--results", type=Path, default=ROOT / "docs" / "RESULTS.md")
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    old_attempts = (args.old_run / "attempts.csv").read_bytes()
    if old_attempts != (args.new_run / "attempts.csv").read_bytes():
        sys.exit("the two runs do not have the same attempts: re-score from the same cache")
    text = section(args.name, args.old_run, args.new_run)
    print(text)
    if not args.no_write:
        slug = re.sub(r"[^a-z0-9]+", "-", args.name.lower()).strip("-")
        update_section(args.results, f"rescore-{slug}", text)
        print(f"updated {args.results}")


if __name__ == "__main__":
    main()
