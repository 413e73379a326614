"""The package is a pipeline: each stage imports only the stages before it and the shared modules,
and no module imports itself back through others (docs/ARCHITECTURE.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from experiment.config import PROJECT_ROOT

PACKAGE = PROJECT_ROOT / "experiment"
SHARED = {"records", "errors", "files", "groups"}
# group -> the groups it may import (besides itself and SHARED); top-level orchestration
# (cli, runner, config, command, progress, fitting, fitting_rows, outputs, __main__, and the
# benchmark tool bench/) may import anything.
ALLOWED = {
    "values": set(),
    "corpus": {"values"},
    "verify": {"values", "corpus"},
    "importers": {"values", "corpus"},
    "generate": {"values"},  # prompts route a question by its wording (question_kind)
    "evaluate": {"values", "verify", "generate"},
    "record": {"values", "corpus", "verify", "generate", "evaluate"},
    "report": {"values", "corpus", "verify", "generate", "evaluate", "record"},
}
# report/ only reads a run folder: the writer is `record.write`
WRITER = "experiment.record.write"
TOP = {"cli", "runner", "config", "command", "progress", "fitting", "fitting_rows", "outputs"}
TOP |= {"__main__", "__init__", "bench"}  # bench/: the benchmark tool, orchestration like cli


def _module(path: Path) -> str:
    parts = path.relative_to(PROJECT_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """Every experiment module `path` imports, at module level or inside a function."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.startswith("experiment"):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("experiment")}
    return found


def _group(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


GRAPH = {_module(p): _imports(p) for p in sorted(PACKAGE.rglob("*.py"))}


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_a_stage_imports_only_the_stages_before_it(module: str) -> None:
    group = _group(module)
    if group in TOP or group == "":
        return
    allowed = ALLOWED.get(group, set()) | SHARED | {group}
    wrong = sorted(m for m in GRAPH[module] if _group(m) not in allowed)
    assert not wrong, f"{module} ({group}) imports {wrong}; allowed: {sorted(allowed)}"


def test_report_only_reads_a_run_folder() -> None:
    readers = [m for m in GRAPH if _group(m) == "report"]
    assert not [m for m in readers if WRITER in GRAPH[m]]


def test_every_group_is_known() -> None:
    groups = {_group(m) for m in GRAPH} - {""}
    assert groups <= set(ALLOWED) | SHARED | TOP, groups - set(ALLOWED) - SHARED - TOP


def test_no_import_cycles() -> None:
    state: dict[str, int] = {}  # 1 visiting, 2 done

    def visit(m: str, path: list[str]) -> None:
        state[m] = 1
        for dep in sorted(GRAPH.get(m, ())):
            if dep not in GRAPH:
                continue
            assert state.get(dep) != 1, "cycle: " + " -> ".join([*path, m, dep])
            if dep not in state:
                visit(dep, [*path, m])
        state[m] = 2

    for m in sorted(GRAPH):
        if m not in state:
            visit(m, [])


def test_every_stage_says_what_enters_and_what_leaves() -> None:
    for group in ALLOWED:
        init = PACKAGE / group / "__init__.py"
        if not init.exists():
            continue  # a single module (corpus)
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        assert "Enters:" in doc and "Leaves:" in doc and "Trade-offs:" in doc, group
