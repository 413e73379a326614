"""Analysis of a finished run folder (placeholder, filled in below)."""

from pathlib import Path


def benchmark_section(run_dir: Path, title: str, command: str) -> str:
    return f"## {title}\n\n{command}\n"
