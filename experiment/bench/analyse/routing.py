"""How well the `auto` prompt's rule routes computed questions (`question_kind.asks_computation`).

    factqa bench routing PATH/TO/drop_dev.jsonl.gz PATH/TO/tatqa_dataset_dev.json [--cues]

For the fitting and the evaluation part of each data set (importers/split.py; the rule was
written from the fitting halves only), the importer's sample of 200 figure/date questions, seed 0:
how many questions the importer marks computed, and the rule's recall (computed questions sent
to the `calc` prompt) and precision (questions sent there that are computed). No model runs.

`--cues` adds, on each fitting half whole (every figure question), each cue of the rule
(`question_kind.COMPUTE_Q`) that a question matches alone: how many questions, and the share
whose gold is computed; questions matching several cues and none are rows of their own. A cue
whose share is low routes stated questions to the calculation prompt: where the rule is unsure.
It then counts, per fitting half, the questions the rule misroutes and those of them in cues
whose share lies within `UNSURE`: the ceiling of letting both pools compete there.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from experiment.base.types import Question
from experiment.bench.app import command
from experiment.corpus import load_articles, load_questions
from experiment.importers.service import import_dataset
from experiment.values.question_kind import COMPUTE_Q, asks_computation

NO_CUE, SEVERAL = "(no cue)", "(several cues)"
UNSURE = (0.2, 0.8)  # a cue whose share of computed golds lies here routes by a coin's odds


def routed(fmt: str, source: Path, half: str, out: Path) -> tuple[int, int, int, int]:
    """(questions, computed, routed, routed and computed) of one part's sample."""
    imported = import_dataset(fmt, source, out / f"{fmt}-{half}", 200, 0, None, True, half)
    qs = load_questions(imported.questions, load_articles(imported.articles))
    computed = [q for q in qs if q.computed]
    sent = [q for q in qs if asks_computation(q.text)]
    both = [q for q in sent if q.computed]
    return len(qs), len(computed), len(sent), len(both)


def cue_of(question: str) -> str:
    """The cue of the rule that `question` matches, in a normal form ("how many/much ..." and
    "... percent ... not" as one cue each); `NO_CUE` or `SEVERAL`."""
    if not asks_computation(question):
        return NO_CUE
    found = set()
    for m in COMPUTE_Q.finditer(question):
        said = m.group(0).lower()
        found.add(
            "how many/much ..." if said.startswith("how ")
            else "... percent ... not" if "percent" in said
            else "between ... and" if said.startswith("between ")
            else said
        )  # fmt: skip
    return found.pop() if len(found) == 1 else SEVERAL


def cue_rows(questions: list[Question]) -> list[tuple[str, int, float]]:
    """Each cue's figure questions and the share computed, most questions first."""
    by: dict[str, list[bool]] = {}
    for q in questions:
        if q.kind == "figure":
            by.setdefault(cue_of(q.text), []).append(q.computed)
    rows = [(cue, len(v), sum(v) / len(v)) for cue, v in by.items()]
    return sorted(rows, key=lambda r: (-r[1], r[0]))


@dataclass(frozen=True)
class Unsure:
    """Where the rule is unsure, on one part's figure questions: the questions it misroutes
    (a stated one sent to the calculation prompt, a computed one not), and those of them whose
    cue's computed share lies within `UNSURE` (the most that letting both pools compete there
    could recover, were the joint ranking perfect)."""

    questions: int
    misrouted: int
    unsure: int
    misrouted_unsure: int


def unsure(questions: list[Question]) -> Unsure:
    """`Unsure`'s counts over `questions`' figure questions (each cue's share from the same
    questions: run it on a fitting half)."""
    figures = [q for q in questions if q.kind == "figure"]
    share = {cue: s for cue, _, s in cue_rows(figures)}
    wrong = [asks_computation(q.text) != q.computed for q in figures]
    within = [UNSURE[0] <= share[cue_of(q.text)] <= UNSURE[1] for q in figures]
    both = sum(w and u for w, u in zip(wrong, within, strict=True))
    return Unsure(len(figures), sum(wrong), sum(within), both)


def print_cues(drop: Path, tatqa: Path, tmp: Path) -> None:
    print("\nEach cue on the fitting halves (every figure question):\n")
    print("| data set | cue | questions | computed |")
    print("| --- | --- | ---: | ---: |")
    found = {}
    for fmt, source in (("drop", drop), ("tatqa", tatqa)):
        imported = import_dataset(fmt, source, tmp / f"{fmt}-fit-all", None, 0, None, True, "fit")
        qs = load_questions(imported.questions, load_articles(imported.articles))
        for cue, n, share in cue_rows(qs):
            print(f"| {fmt} | {cue} | {n} | {share:.2f} |")
        found[fmt] = unsure(qs)
    print(
        f"\nWhere the rule is unsure (a cue whose computed share is {UNSURE[0]:.1f}-{UNSURE[1]:.1f}"
        "), on the fitting halves:\n"
    )
    print("| data set | figure questions | misrouted | in unsure cues | misrouted there |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for fmt, u in found.items():
        print(
            f"| {fmt} | {u.questions} | {u.misrouted} ({u.misrouted / u.questions:.3f}) | "
            f"{u.unsure} | {u.misrouted_unsure} ({u.misrouted_unsure / u.questions:.3f}) |"
        )


@command("routing")
def routing(
    drop: Annotated[Path, typer.Argument(help="DROP dev (drop_dev.jsonl.gz).")],
    tatqa: Annotated[Path, typer.Argument(help="TAT-QA dev (tatqa_dataset_dev.json).")],
    cues: Annotated[
        bool, typer.Option("--cues", help="Each cue's share of computed golds (fitting halves).")
    ] = False,
) -> None:
    """How well the `auto` prompt's rule routes computed questions: recall and precision on
    each part of DROP and TAT-QA (no model)."""
    print("| data set | part | questions | computed | sent to calc | recall | precision |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as tmp:
        for fmt, source in (("drop", drop), ("tatqa", tatqa)):
            for half in ("fit", "eval"):
                n, computed, sent, both = routed(fmt, source, half, Path(tmp))
                recall = both / computed if computed else float("nan")
                precision = both / sent if sent else float("nan")
                print(
                    f"| {fmt} | {half} | {n} | {computed} | {sent} | {recall:.2f} | "
                    f"{precision:.2f} |"
                )
        if cues:
            print_cues(drop, tatqa, Path(tmp))
