"""Models: the catalog of known GGUF files, how to fetch them, and the backends that run them."""
