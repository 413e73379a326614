"""Importers: public reading-comprehension sets into the articles/ + questions/ layout."""

from experiment.importers.layout import Imported, ImportStats, write_layout
from experiment.importers.readers import READERS, read_dataset

__all__ = ["READERS", "ImportStats", "Imported", "read_dataset", "write_layout"]
