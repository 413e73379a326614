"""Stage 5, report: a run's results as files and text for people and programs.

Enters: a run folder on disk, read through `record` (its column spec, typed manifest and
`migrate`) by `run` and `validate`; report/ only reads a run folder (`record.write` writes it).
Leaves: the Markdown sections of docs/RESULTS.md and the README (`markdown`), PNG plots
(`plots`), and the figures the notebook shares (`analysis`, over a run loaded by `run`).

One renderer makes the method table for every output (`tables`), and one verdict rule
(`experiment.evaluate.summary.verdict`) is stated everywhere.

Trade-offs: everything here reads the CSVs a run wrote, so a report never regenerates or
re-judges; its own files (sections, plots, pages) are written atomically and spreadsheet-safe
(`experiment.base.files`).
"""
