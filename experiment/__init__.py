"""factqa: confirm a small model's figure and date answers in the article text."""

__version__ = "0.1.0"
