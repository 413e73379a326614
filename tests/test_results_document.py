"""docs/RESULTS.md, its data sets' pages and the README's generated blocks are what
`factqa bench report` writes from results/ alone (no model, no run folder): byte for byte."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from typer.testing import CliRunner

from experiment import cli
from experiment.bench import document
from experiment.bench.sections import (
    SECTIONS,
    Record,
    load_all,
    render,
    render_blocks,
    renders,
    save,
)
from experiment.config import PROJECT_ROOT

MACHINE_LINE = re.compile(r"`[^`\s=]+=[^`\s]*( [^`\s=]+=[^`\s]*)*`")


def test_the_committed_files_are_what_the_report_writes() -> None:
    layout = document.Layout()
    built = document.build(layout)
    assert layout.results_md in built and layout.readme in built
    for path, text in built.items():
        assert path.read_text(encoding="utf-8") == text, (
            f"{path.relative_to(PROJECT_ROOT)} is not what `factqa bench report` writes: run it"
        )
    assert document.stale_pages(layout, built) == []
    # the cap kept the document readable; the clean test (issue 52) and the small pipeline
    # (issue 53) added their one section each, the judge's signals (issue 53) one per model,
    # and each of the four sealed samples (issue 52) a short one (its method table is on its
    # page) with its rows in the clean test's and the pipeline's tables
    assert len(built[layout.results_md].splitlines()) <= 950


def test_every_record_is_portable_and_holds_no_data_set_text() -> None:
    for path in sorted((PROJECT_ROOT / "results" / "bench").glob("*.json")):
        text = path.read_text(encoding="utf-8")
        data = json.loads(text)
        assert data["name"] == path.stem and data["command"]
        for machine in (str(PROJECT_ROOT), "/work/", "/home/", "/root/", "/tmp/"):
            assert machine not in text, path
        if "recorded_from" in data:  # migrated once: it says from what, at which commit
            assert re.fullmatch(r".+ at commit [0-9a-f]{7,}", data["recorded_from"]), path
        else:  # measured by its command: when, at which commit
            assert data.get("commit") and data.get("date"), path


def test_each_machine_readable_line_is_in_the_document() -> None:
    text = (PROJECT_ROOT / "docs" / "RESULTS.md").read_text(encoding="utf-8")
    lines = [x for x in text.splitlines() if MACHINE_LINE.fullmatch(x.strip())]
    keys = {p.split("=", 1)[0] for x in lines for p in x.strip("`").split()}
    for key in ("verdict_min_clusters", "results_md_lines", "text_cov_squad", "tatqa_dev_large"):
        assert key in keys
    for key in ("tatqa_arith_cov", "features_shipped_mean", "small_text_flops_squad"):
        assert key in keys


def test_blocks_render_back_and_a_migrated_record_says_so() -> None:
    text = "## A\n\nSome text\nwrapped.\n\n| a | b |\n| --- | ---: |\n| 1 | 2 |\n\n`x=1 y=0.5`"
    table = {"header": ["a", "b"], "rows": [["1", "2"]], "align": ["---", "---:"]}
    blocks = [{"text": "## A"}, {"text": "Some text\nwrapped."}, {"table": table}]
    blocks.append({"line": {"x": "1", "y": "0.5"}})
    assert render_blocks(blocks) == text
    rec = Record("a", "factqa bench a", {"blocks": blocks}, recorded_from="here")
    out = render(rec)
    assert out.splitlines()[0] == "## A" and "`factqa bench a` records it anew" in out


def test_a_new_section_takes_its_place_with_no_other_edit(tmp_path: Path) -> None:
    results = tmp_path / "results"

    @renders("toy-cost", "cost")
    def _toy(record: Record) -> str:
        return f"## Toy cost\n\n`toy_seconds={record.figures['seconds']}`"

    try:
        save(Record("toy-cost", "factqa bench toy-cost", {"seconds": 1.5}), results)
        save(Record("sampling", "factqa bench sampling", {"blocks": [{"text": "## S"}]}), results)
        assert set(load_all(results)) == {"toy-cost", "sampling"}
        layout = document.Layout(results, tmp_path / "docs" / "RESULTS.md", tmp_path / "README.md")
        text = document.build(layout)[layout.results_md]
    finally:
        SECTIONS.pop("toy-cost")
    cost = text.split("## Cost", 1)[1].split("\n## ", 1)[0]
    assert cost.index("<!-- sampling:start -->") < cost.index("<!-- toy-cost:start -->")
    assert "`toy_seconds=1.5`" in cost and "### Toy cost" in cost


def test_check_fails_on_an_edited_document(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    shutil.copytree(PROJECT_ROOT / "docs", docs)
    readme = tmp_path / "README.md"
    shutil.copy(PROJECT_ROOT / "README.md", readme)
    args = ["bench", "report", "--results-md", str(docs / "RESULTS.md"), "--readme", str(readme)]
    ok = CliRunner().invoke(cli.app, [*args, "--check"])
    assert ok.exit_code == 0, ok.output
    (docs / "RESULTS.md").write_text("# Results\n", encoding="utf-8")
    bad = CliRunner().invoke(cli.app, [*args, "--check"])
    assert bad.exit_code == 1 and "differ" in bad.output
    assert CliRunner().invoke(cli.app, args).exit_code == 0
    assert CliRunner().invoke(cli.app, [*args, "--check"]).exit_code == 0


def test_the_readme_picture_is_drawn_from_the_committed_run(tmp_path: Path) -> None:
    """The README's picture is drawn by `bench report`; one drawn from other data is a
    difference `--check` names (the landed main's showed an earlier run)."""
    docs = tmp_path / "docs"
    shutil.copytree(PROJECT_ROOT / "docs", docs)
    readme = tmp_path / "README.md"
    shutil.copy(PROJECT_ROOT / "README.md", readme)
    args = ["bench", "report", "--results-md", str(docs / "RESULTS.md"), "--readme", str(readme)]
    assert CliRunner().invoke(cli.app, [*args, "--check"]).exit_code == 0
    from PIL import Image

    Image.new("RGB", (4, 4)).save(docs / document.PICTURE)  # a picture of nothing
    bad = CliRunner().invoke(cli.app, [*args, "--check"])
    assert bad.exit_code == 1 and "drawn from other data" in bad.output
    assert CliRunner().invoke(cli.app, args).exit_code == 0
    assert CliRunner().invoke(cli.app, [*args, "--check"]).exit_code == 0
