"""A wrapper kept because docs/RESULTS.md cites it: `python bench/accuracy.py ARGS` runs
`factqa bench run ARGS` (experiment/bench/)."""

import sys

from experiment.cli import app

if __name__ == "__main__":
    app(["bench", "run", *sys.argv[1:]], prog_name="factqa")
