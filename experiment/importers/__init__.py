"""Importers: public reading-comprehension sets into the articles/ + questions/ layout.

Enters: a data set file as its authors publish it (SQuAD, DROP, TAT-QA).
Leaves: one Markdown article per passage and one questions CSV that `factqa run` loads unchanged,
with the figure/date questions kept (`experiment.values.question_kind`) and the source ids kept.

Trade-offs: a reader per format (`readers`), one set of record rules (`schema.validate`) and one
shared filter, sampler and writer (`layout`). A foreign or broken file is refused with what was
expected, and nothing is written; a record that differs from its authors' schema, or repeats a
question id, is skipped and counted by reason in the import summary, so it never becomes data.
"""

from experiment.importers.layout import Imported, ImportStats, write_layout
from experiment.importers.readers import READERS, read_dataset

__all__ = ["READERS", "ImportStats", "Imported", "read_dataset", "write_layout"]
