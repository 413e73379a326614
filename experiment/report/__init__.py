"""Stage 5, report: a run's results as files and text for people and programs.

Enters: the evaluate stage's records (a run just finished) or a run folder on disk.
Leaves: attempts.csv, questions.csv, summary.csv, curves.csv, blindspots.csv and manifest.json
(`exports`), the Markdown sections of docs/RESULTS.md and the README (`markdown`), PNG plots
(`plots`), and the figures the notebook shares (`analysis`, over a run loaded by `run`).

One renderer makes the method table for every output (`tables`), and one verdict rule
(`experiment.evaluate.summary.verdict`) is stated everywhere.

Trade-offs: everything here reads the CSVs a run wrote, so a report never regenerates or
re-scores; files are written atomically and spreadsheet-safe (`experiment.files`).
"""
