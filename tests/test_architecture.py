"""The package is a pipeline: each stage imports only the stages before it and the shared modules,
and no module imports itself back through others; docs/ARCHITECTURE.md names every stage's
modules and nothing that is not there, and a retired name does not come back (its "Words")."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from experiment.config import PROJECT_ROOT

PACKAGE = PROJECT_ROOT / "experiment"
SHARED = {"base"}  # base/: records, errors, files, groups, streams, outputs, command
# group -> the groups it may import (besides itself and SHARED); top-level orchestration
# (cli, runner, progress, __main__, and the benchmark tool bench/ with its fitting wing)
# may import anything.
ALLOWED = {
    "values": set(),
    "corpus": {"values"},
    "verify": {"values", "corpus"},
    "importers": {"values", "corpus"},
    "generate": {"values"},  # prompts route a question by its wording (question_kind)
    "evaluate": {"values", "verify", "generate"},
    # the run's settings (`RunConfig`): a run folder's manifest records them typed
    "config": {"values", "corpus", "generate", "evaluate"},
    "record": {"values", "corpus", "verify", "generate", "evaluate", "config"},
    "report": {"values", "corpus", "verify", "generate", "evaluate", "config", "record"},
}
# report/ only reads a run folder: the writer is `record.write`
WRITER = "experiment.record.write"
TOP = {"cli", "runner", "progress"}
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


DOC = PROJECT_ROOT / "docs" / "ARCHITECTURE.md"
# A dotted name in backticks: `evaluate/judge.judge`, `runner.large_checks`, `Backend.score`
REFERENCE = re.compile(r"`([A-Za-z_][A-Za-z_/]*)((?:\.[A-Za-z_]+)+)`")
FILES = {"py", "json", "csv", "log"}  # `evaluate/drafts.py`, `llama.log`: a file, not a member
# Names that once meant another job (docs/ARCHITECTURE.md, "Words"): a sample is confirmed
# (`evaluate.confirm`, an `Answer`), a file or record validated, a run's answers evaluated.
RETIRED_MODULES = {"experiment.evaluate.check", "experiment.evaluate.scored"}
RETIRED_MODULES |= {"experiment.report.checked"}
RETIRED_NAMES = {"check", "checked", "Checked", "Scored", "Scores", "check_text", "AnswerCheck"}
RETIRED_NAMES |= {"check_sample", "check_derivation", "check_expression", "checked_run"}
RETIRED_NAMES |= {"write_section", "blocks_of"}  # a study's Markdown saved as its record


def _members(body: list[ast.stmt]) -> dict[str, list[ast.stmt]]:
    """The names a module or class body defines, each with its own body (a class's members)."""
    out: dict[str, list[ast.stmt]] = {}
    for node in body:
        if isinstance(node, ast.ClassDef):
            out[node.name] = node.body
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            out[node.name] = []
        elif isinstance(node, ast.Assign):
            out |= {t.id: [] for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = []
        elif isinstance(node, ast.ImportFrom | ast.Import):
            out |= {(a.asname or a.name).split(".")[0]: [] for a in node.names}
        elif isinstance(node, ast.If | ast.Try):
            out |= _members(node.body)
    return out


BODIES = {_module(p): ast.parse(p.read_text(encoding="utf-8")).body for p in PACKAGE.rglob("*.py")}
CLASSES = {
    name: body
    for tree in BODIES.values()
    for name, body in _members(tree).items()
    if name[:1].isupper() and body
}


def _has(body: list[ast.stmt], attrs: list[str]) -> bool:
    for attr in attrs:
        members = _members(body)
        if attr not in members:
            return False
        body = members[attr]
    return True


def _holders(head: str) -> list[list[ast.stmt]]:
    """What `head` names in the package: a module by its path under experiment/
    (`evaluate/judge`) or its name (`runner`, `drafts`), or a class (`Backend`); [] for a name
    of something else (`llama.log`, llama.cpp's `Llama`)."""
    if "/" in head:
        return [BODIES.get("experiment." + head.replace("/", "."), [])]
    modules = [body for m, body in BODIES.items() if m.split(".")[-1] == head]
    return modules or ([CLASSES[head]] if head in CLASSES else [])


def test_the_architecture_names_only_what_there_is() -> None:
    missing = []
    for head, dotted in REFERENCE.findall(DOC.read_text(encoding="utf-8")):
        attrs = dotted.lstrip(".").split(".")
        holders = _holders(head)
        if attrs[0] in FILES:  # a module's file (`evaluate/drafts.py`), or a run's (`llama.log`)
            there = attrs[0] != "py" or any(
                (d / f"{head}.py").exists() for d in (PROJECT_ROOT, PACKAGE)
            )
        else:
            there = holders != [[]] and (not holders or any(_has(b, attrs) for b in holders))
        if not there:
            missing.append(head + dotted)
    assert not missing, f"docs/ARCHITECTURE.md names what is not in experiment/: {missing}"


def test_the_architecture_gives_every_module_of_a_stage_its_place() -> None:
    text = DOC.read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `([a-z_]+)/` \|(.*)\|[^|]*\|$", text, re.MULTILINE))
    assert set(rows) == (set(ALLOWED) - {"corpus", "config"}) | SHARED | {"bench"}  # modules
    for group, job in rows.items():
        named = {n.split("/")[-1] for n in re.findall(r"`([a-z_/]+)", job)}
        found = (
            (PACKAGE / group).rglob("*.py") if group == "bench" else (PACKAGE / group).glob("*.py")
        )
        modules = [p.stem for p in found if p.stem != "__init__"]  # bench/: its wings too
        missing = sorted(m for m in modules if m not in named)
        assert not missing, f"docs/ARCHITECTURE.md's {group}/ row does not name {missing}"


TOP_MODULES = 12  # issue 54: the package's top level stays small


def test_the_command_line_generates_and_scores_nothing_itself() -> None:
    """cli.py parses, calls the runner and prints: it imports nothing of generate/ (`ask` goes
    through `runner.ask_question`, `models pull` through `runner.pull_model`, `models list`
    through `report/models`) and no scoring module."""
    reached = {m for m in GRAPH["experiment.cli"] if m.startswith("experiment.generate")}
    assert not reached, sorted(reached)
    assert "experiment.evaluate.drafts" not in GRAPH["experiment.cli"]


def test_the_method_type_imports_no_concrete_input() -> None:
    """`evaluate/registry` (the `Method` type) reads a question's inputs through
    `QuestionSamples` only: it imports none of the drafts, checks, pool, selector or features."""
    inputs = ("drafts", "large_check", "pool", "selector", "features")
    concrete = {f"experiment.evaluate.{m}" for m in inputs}
    assert not GRAPH["experiment.evaluate.registry"] & concrete


def test_the_top_level_holds_few_modules() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= TOP_MODULES, f"experiment/ holds {len(top)} modules: {top}"


def test_a_retired_name_does_not_come_back() -> None:
    assert not RETIRED_MODULES & set(GRAPH)
    for module, body in BODIES.items():
        back = {n for n in _members(body) if n in RETIRED_NAMES}
        back -= {a.asname or a.name for n in body if isinstance(n, ast.ImportFrom) for a in n.names}
        assert not back, f"{module} defines {sorted(back)} (docs/ARCHITECTURE.md, 'Words')"


BENCH = PACKAGE / "bench"
BAGS = {"SimpleNamespace", "Namespace", "NoWriteOpt"}  # an options bag; the opt-out flag


def test_each_study_takes_typed_options_and_writes_only_when_asked() -> None:
    """Issue 54: a study of experiment/bench/ is one command whose options are typed parameters
    (or a small dataclass of them), never a bag of `args.NAME` (`SimpleNamespace`, an `args`
    parameter), and it rewrites a document only when given `--write`: no `NoWriteOpt` and no
    `--no-write` flag, declared or spelled in its text."""
    found = []
    for path in sorted(BENCH.rglob("*.py")):
        where = path.relative_to(PROJECT_ROOT)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Name | ast.Attribute | ast.ImportFrom):
                named = {getattr(node, "id", None), getattr(node, "attr", None)}
                named |= {a.name for a in getattr(node, "names", [])}
                found += [f"{where}:{node.lineno} {n}" for n in sorted(named & BAGS)]
            elif isinstance(node, ast.FunctionDef | ast.Lambda):
                params = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
                if any(a.arg == "args" for a in params):
                    found.append(f"{where}:{node.lineno} an `args` parameter")
            elif isinstance(node, ast.Constant) and "--no-write" in str(node.value):
                found.append(f"{where}:{node.lineno} --no-write")
    assert not found, found


def test_no_study_has_a_no_write_flag() -> None:
    """What the command line offers, not only what the source spells: typer makes a `--no-X`
    of a bool option declared without its own name, so every study's flags are read. The core's
    commands (`bench run`, `rescore`, `report`) are the user's, not studies: `bench run` writes
    its committed results unless told `--no-write`."""
    from typer.main import get_command_from_info

    from experiment.bench.app import CORE, groups, load

    load()
    flags = {
        " ".join((*path, info.name)): {
            flag
            for param in get_command_from_info(
                info, pretty_exceptions_short=True, rich_markup_mode=None
            ).params
            for flag in (*param.opts, *param.secondary_opts)
        }
        for path, group in groups()
        for info in group.registered_commands
        if info.name and info.rich_help_panel != CORE
    }
    assert "run" not in flags and "verifier" in flags and "fit selector" in flags
    assert not {name for name, opts in flags.items() if "--no-write" in opts}
    assert {name for name, opts in flags.items() if "--write" in opts} >= {
        "adaptive",
        "adversarial",
        "check-table",
        "fit excerpt",
        "fit feature-sets",
        "fit selector",
        "fit stopping",
        "large-check",
        "model-check",
        "sampling",
        "selector-cost",
        "server",
        "speculative",
        "verifier",
    }
