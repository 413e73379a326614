"""The analysing wing of `factqa bench`: studies that read finished runs, committed results or
data files and run no model (abstention, routing, proposals, pool coverage, parts, calculator,
the verifier's recall, same outputs, the HTML report, ...)."""
