"""Stage 5a, record: the run folder's format, declared once.

Enters: the evaluate stage's records (a run just finished, `write`) or a run folder's raw
manifest and tables (`migrate`).
Leaves: the column spec every file of the folder is written and read by (`columns`), the typed
`Manifest` with its `format_version` (`manifest`), the rows and files of a run (`write`), and a
folder of any earlier version brought to the current one (`migrate`).

Trade-offs: `report/` reads a folder through `columns`, `manifest` and `migrate` and never
imports `write`; a column or field is added in one place here, and an older folder is brought
up to date by one step of `migrate` rather than by a branch in every reader.
"""
