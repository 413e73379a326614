"""The fitting wing of `factqa bench`: `factqa bench fit NAME` commands that fit the shipped
model files and choices on the fitting halves only (`sets`: the fitting set; `rows`: the
selector's fitting rows built from it; one module per fitted choice)."""
