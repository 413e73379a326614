"""A wrapper kept because docs/RESULTS.md cites it: `python bench/pool_coverage.py ARGS` runs
`factqa bench pool-coverage ARGS` (experiment/bench/)."""

import sys

from experiment.cli import app

if __name__ == "__main__":
    app(["bench", "pool-coverage", *sys.argv[1:]], prog_name="factqa")
