"""The old home of the manifest, kept as an alias for the scripts in bench/ (issue 41 moves them
into the package): the types are `record.manifest`'s, writing is `record.write`'s. Nothing in
the package imports this module."""

from __future__ import annotations

from experiment.record.manifest import Manifest, ModelInfo, read
from experiment.record.write import write_manifest as write

__all__ = ["Manifest", "ModelInfo", "read", "write"]
