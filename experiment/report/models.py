"""`factqa models list`: the model catalog as a table, with where each file lives and whether
it is downloaded."""

from __future__ import annotations

from rich.table import Table

from experiment.generate.models.catalog import CATALOG, DEFAULT_LARGE, DEFAULT_SMALL, TEST_MODEL
from experiment.generate.models.store import models_dir


def catalog_table() -> Table:
    """Every catalog model: its name, role, size, hash prefix, whether it is downloaded."""
    role = {DEFAULT_SMALL: "default small", DEFAULT_LARGE: "default large", TEST_MODEL: "tests"}
    table = Table(title=f"models in {models_dir()}")
    for col in ("name", "role", "size", "sha256", "downloaded", "description"):
        table.add_column(col)
    for m in CATALOG.values():
        have = (models_dir() / m.filename).exists()
        table.add_row(
            m.name,
            role.get(m.name, ""),
            f"{m.size / 2**20:,.0f} MiB",
            m.sha256[:12] + "…",
            "yes" if have else "no",
            m.description,
        )
    return table
