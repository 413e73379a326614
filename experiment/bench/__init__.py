"""The benchmark tool behind `factqa bench`: a preset becomes a config, the config a run, the
run committed results (`results/PRESET/`), and the results the tables and sections of
docs/RESULTS.md and the README, with no model (`report`); a rescore runs the committed samples
again through the current code with no model (`rescore`).

Orchestration, like `runner` and `cli`: it may import every stage.
"""
