"""A wrapper kept because docs/RESULTS.md cites it: `python bench/drafts.py ARGS` runs
`factqa bench drafts ARGS` (experiment/bench/)."""

import sys

from experiment.cli import app

if __name__ == "__main__":
    app(["bench", "drafts", *sys.argv[1:]], prog_name="factqa")
