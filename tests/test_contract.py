"""The value-reading contract run whole: every row of docs/NORMALIZER.md's `## Contract`
section (a text, an answer, a kind and the verdict) through the entry `factqa verify --article`
uses, each row a test named by its class and line.

A refusal may name its rule (`refuses: bound`): the verdict's reason must then contain it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from experiment.base.types import Article
from experiment.config import PROJECT_ROOT
from experiment.verify.batch import confirm_answer

DOC = PROJECT_ROOT / "docs" / "NORMALIZER.md"
KINDS = {"figure": "figure", "number": "figure", "date": "date", "any": ""}
HEADER = ["text", "answer", "kind", "verdict"]
# the classes this file's rows were written for (other sections append their own classes)
VALUE_CLASSES = (
    "bounds and negation",
    "ranges",
    "signs and hyphens",
    "unit case and unit words",
    "scale words and letters",
    "currencies and regional forms",
    "dates and periods",
)


class ContractError(ValueError):
    """A contract row that cannot be run: names the file, line, field and the fix."""


@dataclass(frozen=True)
class Case:
    section: str
    line: int
    text: str
    answer: str
    kind: str  # what `factqa verify --kind` takes: "figure", "date" or "" (either)
    confirms: bool
    rule: str  # the rule a refusal names, or ""

    @property
    def name(self) -> str:
        return f"{self.section}:{self.line}"


def cells(row: str) -> list[str]:
    """A Markdown table row's cells: `\\|` is a literal pipe, `<br>` a line break."""
    body = row.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return [
        c.replace("\\|", "|").replace("<br>", "\n").strip() for c in re.split(r"(?<!\\)\|", body)
    ]


def _fail(path: Path, line: int, field: str, fix: str) -> ContractError:
    return ContractError(f"{path.name}:{line}: contract field '{field}': {fix}")


def _case(path: Path, section: str, line: int, row: list[str]) -> Case:
    if len(row) != len(HEADER):
        raise _fail(path, line, "row", f"write {len(HEADER)} cells ({' | '.join(HEADER)})")
    text, answer, kind, verdict = row
    if kind not in KINDS:
        raise _fail(path, line, "kind", f"write one of {', '.join(KINDS)}, not '{kind}'")
    word, _, rule = verdict.partition(":")
    if word.strip() not in ("confirms", "refuses") or (rule and word.strip() == "confirms"):
        raise _fail(
            path, line, "verdict", f"write 'confirms' or 'refuses[: RULE]', not '{verdict}'"
        )
    if not text or not answer:
        raise _fail(path, line, "text" if not text else "answer", "write a non-empty cell")
    return Case(section, line, text, answer, KINDS[kind], word.strip() == "confirms", rule.strip())


def parse_contract(markdown: str, path: Path = DOC) -> list[Case]:
    """Every row of the `## Contract` section's tables, each under its `### class` heading."""
    found: list[Case] = []
    inside, section = False, ""
    for number, line in enumerate(markdown.splitlines(), start=1):
        if line.startswith("## "):
            inside = line.strip() == "## Contract"
            continue
        if not inside:
            continue
        if line.startswith("### "):
            section = line[4:].strip()
        elif line.startswith("|"):
            row = cells(line)
            if row == HEADER or all(set(c) <= set("-: ") for c in row):
                continue
            if not section:
                raise _fail(path, number, "row", "put the table under a '### class' heading")
            found.append(_case(path, section, number, row))
    return found


CASES = parse_contract(DOC.read_text(encoding="utf-8"))


def run_case(case: Case) -> dict:
    article = Article("contract", "", "", case.text, DOC)
    return confirm_answer(case.answer, article, kind=case.kind)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_contract_row(case: Case) -> None:
    result = run_case(case)
    confirmed = result["confirmed"] == "true"
    said = f"row {case.name}: {case.text!r} / {case.answer!r}"
    assert confirmed == case.confirms, f"{said}: got {result['value']} ({result['reason']})"
    if case.rule:
        assert case.rule in result["reason"], f"{said}: reason {result['reason']!r}"


def test_the_contract_is_whole_and_goes_both_ways() -> None:
    ours = [c for c in CASES if c.section in VALUE_CLASSES]
    assert len(ours) >= 260
    assert {c.section for c in ours} == set(VALUE_CLASSES)
    for section in VALUE_CLASSES:
        rows = [c for c in ours if c.section == section]
        confirms = sum(c.confirms for c in rows)
        assert len(rows) / 3 <= confirms <= 2 * len(rows) / 3, section
    assert len({(c.text, c.answer, c.kind) for c in CASES}) == len(CASES), "a row is repeated"
    for section in ("tables", "planted text"):  # the classes of the table and guard rules
        rows = [c for c in CASES if c.section == section]
        assert len(rows) >= 50 and len(rows) / 3 <= sum(c.confirms for c in rows), section


def test_contract_is_the_last_section() -> None:
    headings = re.findall(r"^## .*$", DOC.read_text(encoding="utf-8"), re.MULTILINE)
    assert headings[-1] == "## Contract"


def test_cells_read_escaped_pipes_and_line_breaks() -> None:
    assert cells(r"| a \| b | x<br>y | date | confirms |") == ["a | b", "x\ny", "date", "confirms"]
    doc = "## Contract\n### demo\n| text | answer | kind | verdict |\n| --- | --- | --- | --- |\n"
    row = "| Cost<br>\\| $5 \\| | $5 | number | refuses: unit |\n"
    (case,) = parse_contract(doc + row)
    assert (case.text, case.kind, case.confirms, case.rule) == (
        "Cost\n| $5 |",
        "figure",
        False,
        "unit",
    )


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ("| a | b | amount | confirms |", "kind"),
        ("| a | b | figure | maybe |", "verdict"),
        ("| a | b | figure | confirms: unit |", "verdict"),
        ("| a | b | figure |", "row"),
        ("|  | b | figure | confirms |", "text"),
    ],
)
def test_a_bad_row_names_its_line_and_field(row: str, field: str) -> None:
    doc = "intro\n## Contract\n### demo\n" + "| text | answer | kind | verdict |\n"
    doc += "| --- | --- | --- | --- |\n"
    with pytest.raises(ContractError, match=rf"NORMALIZER\.md:6: contract field '{field}'"):
        parse_contract(doc + row + "\n")
