"""A wrapper kept because docs/RESULTS.md cites it: `python bench/proposals.py ARGS` runs
`factqa bench proposals ARGS` (experiment/bench/)."""

import sys

from experiment.cli import app

if __name__ == "__main__":
    app(["bench", "proposals", *sys.argv[1:]], prog_name="factqa")
