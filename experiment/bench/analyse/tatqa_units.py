"""TAT-QA's split by source unit: how many long paragraphs the halves share, by context and by unit.

    factqa bench tatqa-units PATH/TO/tatqa_dataset_dev.json

Prints the contexts, the units (`experiment.importers.split.units`), the contexts the unit rule
moves to the fitting half, and the paragraphs of `SHARED_CHARS` characters or more written on
both halves when each context is split by its own uid (the earlier rule) and by its unit. The
last line is machine-readable.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from experiment.base.errors import InputError
from experiment.bench.app import command
from experiment.bench.harness import records_of
from experiment.importers.readers import TATQA_FIX, data_json
from experiment.importers.split import SHARED_CHARS, half_of, shared_across_halves, units


@command("tatqa-units")
def tatqa_units(
    data: Annotated[Path, typer.Argument(help="TAT-QA dev (tatqa_dataset_dev.json).")],
) -> None:
    """TAT-QA's split by source unit: how many long paragraphs the halves share, by context and
    by unit; the last line is machine-readable."""
    documents = data_json("tatqa", data)  # another data set's file: refused, naming it
    with records_of(data, TATQA_FIX):
        contexts = {
            str(d["table"]["uid"]): [str(p["text"]) for p in d["paragraphs"]] for d in documents
        }
    if not contexts:
        raise InputError("no TAT-QA document in the file", path=data, fix=f"give {TATQA_FIX}")
    unit = units(contexts)
    by_uid = shared_across_halves(contexts, {c: c for c in contexts})
    by_unit = shared_across_halves(contexts, unit)
    moved = sum(half_of(c) != half_of(unit[c]) for c in contexts)
    several = sum(list(unit.values()).count(u) > 1 for u in set(unit.values()))
    evaluation = sum(half_of(unit[c]) == "eval" for c in contexts)
    print(
        f"{len(contexts)} contexts, {len(set(unit.values()))} units ({several} of several), "
        f"{moved} contexts moved to the fitting half, {evaluation} in the evaluation half; "
        f"paragraphs of {SHARED_CHARS}+ characters on both halves: {by_uid} by uid, "
        f"{by_unit} by unit"
    )
    print(
        f"tatqa_shared_paragraphs_by_uid={by_uid} tatqa_shared_paragraphs_across_halves={by_unit}"
    )
