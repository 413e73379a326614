"""The contract's `### tables` and `### planted text` cases (docs/NORMALIZER.md, "Contract"): each
row's text is an article, its answer is confirmed as `factqa verify --article FILE --kind KIND`
confirms it, and the verdict must be the row's."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from experiment.config import PROJECT_ROOT
from experiment.corpus import read_article
from experiment.values.tables import label_kind
from experiment.verify.batch import confirm_answer

DOC = PROJECT_ROOT / "docs" / "NORMALIZER.md"
SECTIONS = ("tables", "planted text")
KINDS = ("figure", "date", "")
_PIPE = re.compile(r"(?<!\\)\|")
_VERDICT = re.compile(r"confirms|refuses(?::\s*\S.*)?")


@dataclass(frozen=True)
class Case:
    section: str
    line: int
    text: str
    answer: str
    kind: str
    verdict: str

    @property
    def confirms(self) -> bool:
        return self.verdict == "confirms"

    def __str__(self) -> str:
        return f"{DOC.name} line {self.line} ({self.section}): {self.answer!r} {self.verdict}"


def _cell(text: str) -> str:
    return text.strip().replace("\\|", "|").replace("<br>", "\n")


def read_cases(doc: str, sections: tuple[str, ...] = SECTIONS) -> list[Case]:
    """The rows of `sections` under the doc's `## Contract` heading; a malformed row is refused
    with its line and the fix."""
    lines = doc.split("\n")
    start = next((i for i, ln in enumerate(lines) if ln.strip() == "## Contract"), None)
    if start is None:
        raise ValueError(f"{DOC.name}: no '## Contract' heading; add it at the end of the file")
    cases, section = [], ""
    for n, line in enumerate(lines[start + 1 :], start + 2):
        if line.startswith("## "):
            break
        if line.startswith("### "):
            section = line[4:].strip()
            continue
        if section not in sections or not line.startswith("|"):
            continue
        cells = [_cell(c) for c in _PIPE.split(line.strip())[1:-1]]
        if cells in (["text", "answer", "kind", "verdict"], ["---"] * 4):
            continue
        where = f"{DOC.name} line {n} ({section})"
        if len(cells) != 4:
            raise ValueError(
                f"{where}: {len(cells)} cells; write | text | answer | kind | verdict |"
            )
        text, answer, kind, verdict = cells
        if kind not in KINDS:
            raise ValueError(f"{where}: kind '{kind}'; write figure, date or leave it empty")
        if not _VERDICT.fullmatch(verdict):
            raise ValueError(f"{where}: verdict '{verdict}'; write confirms or refuses[: rule]")
        if not text.strip() or not answer:
            raise ValueError(f"{where}: empty text or answer; write both")
        verdict = "confirms" if verdict == "confirms" else "refuses"
        cases.append(Case(section, n, text, answer, kind, verdict))
    return cases


CASES = read_cases(DOC.read_text(encoding="utf-8"))


def test_the_contract_has_enough_cases_both_ways() -> None:
    assert {c.section for c in CASES} == set(SECTIONS)
    assert len(CASES) >= 60
    assert sum(c.confirms for c in CASES) >= len(CASES) / 3
    for section in SECTIONS:
        assert {c.confirms for c in CASES if c.section == section} == {True, False}, section


@pytest.mark.parametrize("case", CASES, ids=str)
def test_contract_case(case: Case, tmp_path: Path) -> None:
    path = tmp_path / "article.txt"
    path.write_text(case.text, encoding="utf-8")
    result = confirm_answer(case.answer, read_article(path), kind=case.kind)
    got = "confirms" if result["confirmed"] == "true" else "refuses"
    assert got == case.verdict, f"{case}: got {got} ({result['reason'] or result['span_text']})"


@pytest.mark.parametrize(
    ("row", "message"),
    [
        ("| a | 5 | number | confirms |", "kind 'number'"),
        ("| a | 5 | figure | maybe |", "verdict 'maybe'"),
        ("| a | 5 | figure |", "3 cells"),
        ("|  | 5 | figure | refuses |", "empty text"),
    ],
)
def test_a_malformed_row_is_refused_with_its_line(row: str, message: str) -> None:
    doc = f"# x\n\n## Contract\n\n### tables\n| text | answer | kind | verdict |\n{row}\n"
    with pytest.raises(ValueError, match=re.escape(message)) as e:
        read_cases(doc)
    assert "line 7 (tables)" in str(e.value)


def test_an_escaped_pipe_and_a_line_break_read_as_written() -> None:
    doc = "## Contract\n### planted text\n| a \\| b<br>c | 5 | | refuses: guard |\n"
    (case,) = read_cases(doc)
    assert (case.text, case.answer, case.kind, case.verdict) == ("a | b\nc", "5", "", "refuses")


@pytest.mark.parametrize(
    ("label", "kind"),
    [
        ("Employees", "count"),
        ("Headcount at year end", "count"),
        ("Number of stores", "count"),
        ("Shares outstanding", "count"),
        ("(shares, in thousands)", "count"),
        ("Staff costs", "money"),
        ("Cost of shares repurchased", "money"),
        ("Customer deposits", "money"),
        ("Tax rate", "ratio"),
        ("Revenue growth", "ratio"),
        ("Employees and payroll", "mixed"),
        ("Property, plant and equipment", ""),
        ("Office equipment", ""),
        ("Years ended December 31,", ""),
        ("2024", ""),
    ],
)
def test_a_labels_kind_is_its_head_word(label: str, kind: str) -> None:
    assert label_kind(label) == kind
