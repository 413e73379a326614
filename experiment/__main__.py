"""`python -m experiment` runs the same CLI as the `factqa` console script."""

from experiment.cli import app

app(prog_name="factqa")
