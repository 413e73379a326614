"""factqa: check figure and date answers of a small model against the article text."""

__version__ = "0.1.0"
