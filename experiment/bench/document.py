"""docs/RESULTS.md, its data sets' pages (docs/results/PRESET.md) and the README's generated
blocks, written whole from `results/` alone: the committed results folders (`results/PRESET/`)
and the sections' records (`results/bench/NAME.json`, `bench/sections`). No model, no run folder.

The document follows the reader's questions, in `PARTS`: the claim; the methods that beat the
claim's method; cost; each data set; the verifier; how each shipped choice was fitted; the
committed results and the tool. A part lists its sections by name; a section registered with
`@renders(NAME, PART)` and not listed comes after them, so a new benchmark needs no edit here.
A record of no registered section and no part (a variant run's) goes to "Further measurements".
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from experiment.base.errors import InputError
from experiment.base.files import atomic_write
from experiment.bench.analyse.pipeline import SECTION as PIPELINE
from experiment.bench.analyse.pipeline import pipeline_section
from experiment.bench.app import load, subcommands
from experiment.bench.clean_test import CLEAN, READ_BY_CLEAN, clean_test
from experiment.bench.presets import PRESETS
from experiment.bench.sealed_samples import sealed_name, sealed_preset
from experiment.bench.sections import (
    Record,
    dumped,
    load_all,
    provenance,
    records_dir,
    render,
    render_blocks,
    section_of,
)
from experiment.config import PROJECT_ROOT
from experiment.record.results_index import INDEX
from experiment.report.first_screen import BLOCK as ANSWER
from experiment.report.first_screen import (
    SEALED_LABEL,
    answer_block,
    answer_rows,
    answer_section,
)
from experiment.report.markdown import (
    GENERATED,
    benchmark_section,
    benchmark_summary,
    kept_table_rows,
    readme_section,
    with_section,
)
from experiment.report.plots import cost_points, picture_key, points_key, save_picture
from experiment.report.results import load_results, source_of
from experiment.report.run import Run

TITLE = "# Results"
INTRO = (
    f"{GENERATED} from the committed results under "
    "results/ alone: a data set's run in `results/PRESET/`, every other measurement's record "
    "in `results/bench/NAME.json` (no model runs; `factqa bench report --check` says whether "
    "this file, docs/results/ and the README's tables are what it writes). Each section names "
    "the command that measured it and records it anew. Dated results that are no longer "
    "current are in docs/HISTORY.md."
)


@dataclass(frozen=True)
class Part:
    """A part of the document: its heading, what it answers, its sections in order."""

    key: str
    heading: str
    intro: str
    names: tuple[str, ...]


PARTS = (
    Part(
        "claim",
        "The claim",
        "Can many checked answers of a small model beat one answer of a large one? "
        "small-verified@k (the small model's confirmed answers, voted) against large@1 (one "
        "greedy answer of the large model), data set by data set, and the rules every verdict "
        "is judged by.",
        ("bench-summary", "verdict-rules", "clean-test"),
    ),
    Part(
        "better",
        "The methods that beat small-verified@k",
        "What closes the gap to large@1: the article's own candidates scored by a model, the "
        "learned selector with the large model's evidence check, and computed answers drafted "
        "from the text.",
        ("pipeline", "drafts", "pool-coverage", "selector-checked", "proposals", "large-check"),
    ),
    Part(
        "cost",
        "Cost",
        "What sampling, serving and checking cost on this machine (FLOPs per method are in "
        "each data set's table).",
        (
            "sampling",
            "server-experiment",
            "server-llama-server",
            "server-notes",
            "speculative",
            "speculative-notes",
            "selector-cost",
        ),
    ),
    Part(
        "datasets",
        "Each data set",
        "Per data set, its run's method table and verdict; its page under docs/results/ has "
        "the rest (SQuAD EM and F1, AUROC, risk-coverage, accuracy against k, the selector's "
        "routing and calibration, cost curves, stated and computed questions, blind spots).",
        tuple(f"bench-{p}" for p in ("bundled", "squad-v1", "squad-v2", "drop", "tatqa-dev")),
    ),
    Part(
        "verifier",
        "The verifier",
        "Whether the article states a value: recall on gold answers, rejection of corrupted "
        "ones, speed.",
        ("verifier", "verifier-notes"),
    ),
    Part(
        "fitted",
        "How each shipped choice was fitted",
        "Every shipped model file and threshold, chosen on the fitting halves only.",
        (
            "selector-fit",
            "feature-sets",
            "derived-fit",
            "fit-judge",
            "fit-judge-large",
            "adaptive-fit",
            "excerpt-fit",
            "model-check",
        ),
    ),
    Part("other", "Further measurements", "Sections recorded by other commands.", ()),
)
INVENTORY = "bench-inventory"
SUMMARY = "bench-summary"
PUBLIC = {  # the claim's table: label -> preset
    "SQuAD v1.1, evaluation titles (small qwen2.5-coder-0.5b)": "squad-v1",
    "SQuAD v1.1, evaluation titles (small smollm2-135m)": "squad-v1-smollm2-135m",
    "SQuAD v2.0, evaluation titles (100 unanswerable)": "squad-v2",
    "DROP, evaluation passages": "drop",
}
FIRST = {  # the README's first screen: label -> preset
    "bundled OrigoTech corpus": "bundled",
    "SQuAD v1.1": "squad-v1",
    "SQuAD v2.0, half unanswerable": "squad-v2",
    "DROP, evaluation passages": "drop",
    "TAT-QA dev, evaluation part": "tatqa-dev",
}


@dataclass(frozen=True)
class Layout:
    """Where the document is written from and to."""

    results: Path = PROJECT_ROOT / "results"
    results_md: Path = PROJECT_ROOT / "docs" / "RESULTS.md"
    readme: Path = PROJECT_ROOT / "README.md"
    scripts: Path = PROJECT_ROOT / "bench"

    @property
    def pages(self) -> Path:
        """The data sets' pages: docs/results/ beside docs/RESULTS.md."""
        return self.results_md.parent / "results"


def folders(results: Path) -> dict[str, Path]:
    """The committed results folders, by name."""
    if not results.is_dir():
        return {}
    return {p.name: p for p in sorted(results.iterdir()) if (p / INDEX).is_file()}


def preset_section(path: Path) -> str:
    """One results folder's whole section: the benchmark section and its figures line (a
    sealed sample's keys marked `sealed_`, so they never read as the development sample's)."""
    res = load_results(path)
    src = res.source
    line = src.line
    if sealed_preset(path.name):
        line = " ".join(f"sealed_{pair}" for pair in line.split())
    return benchmark_section(res.run, src.title, src.command) + f"\n\n`{line}`"


@dataclass(frozen=True)
class DataSet:
    """A data set's section: whole (its page) and where it came from."""

    name: str  # the results folder's or record's name, without "bench-"
    whole: str
    record: Record | None  # its record (migrated, or an older variant run's); None: results/NAME/
    variant_run: bool = False  # a results folder of a variant run (`Source.variant`)

    @property
    def migrated(self) -> bool:
        """Whether its record was migrated once from the document (not measured by its run)."""
        return self.record is not None and bool(self.record.recorded_from)

    @property
    def variant(self) -> bool:
        """A variant of a preset's run (another prompt, part, seed, ...): its results folder
        says so, or an older run kept its section as a record."""
        older = self.name not in PRESETS and self.record is not None and not self.migrated
        return self.variant_run or older

    def headline(self) -> str:
        """Its heading, command, models, method table and verdict, a link to its page, and its
        machine-readable lines."""
        chunks = self.whole.split("\n\n")
        verdict = next((i for i, c in enumerate(chunks) if c.startswith("**")), len(chunks) - 1)
        lines = [c for c in chunks[verdict + 1 :] if c.startswith("`") and c.endswith("`")]
        head = chunks[: verdict + 1]
        if sealed_preset(self.name):  # its method table is on its page; the headline
            head = [c for c in head if not c.startswith("| method |")]  # figures: "A clean test"
        if self.migrated:
            head.insert(1, provenance(self.record))
        link = (
            f"Every other table of this run (SQuAD EM and F1, AUROC, risk-coverage, accuracy "
            f"against k, routing, calibration, cost curves, stated and computed questions, "
            f"blind spots): [docs/results/{self.name}.md](results/{self.name}.md)."
        )
        return "\n\n".join([*head, link, *lines])

    def page(self) -> str:
        """docs/results/NAME.md: the whole section."""
        note = (
            "Written by `factqa bench report` from "
            + (
                f"results/{self.name}/"
                if self.record is None
                else f"the record results/bench/bench-{self.name}.json"
            )
            + "; the summary of every data set is [docs/RESULTS.md](../RESULTS.md)."
        )
        body = self.whole
        if body.startswith("## "):
            body = body[1:]
        heading, _, rest = body.partition("\n\n")
        extra = [provenance(self.record)] if self.migrated else []
        return "\n\n".join([heading, note, *extra, rest]) + "\n"


def datasets(layout: Layout, records: dict[str, Record]) -> list[DataSet]:
    """The data sets in the document's order: the presets', then other results folders, then
    other runs' records; a results folder wins over a record of the same name."""
    found = folders(layout.results)
    listed = [n[len("bench-") :] for p in PARTS if p.key == "datasets" for n in p.names]
    names = [p for p in [*listed, *PRESETS] if p in found or f"bench-{p}" in records]
    names = list(dict.fromkeys(names))
    names += [n for n in found if n not in names]
    names += [
        r[len("bench-") :]
        for r in records
        if r.startswith("bench-") and r[len("bench-") :] not in names and r != SUMMARY
        if r != INVENTORY
    ]
    out = []
    for name in names:
        if name in found:
            variant = source_of(found[name]).variant
            out.append(DataSet(name, preset_section(found[name]), None, variant))
        else:
            rec = records[f"bench-{name}"]
            out.append(DataSet(name, render_blocks(rec.blocks or []), rec))
    return out


def summary(layout: Layout, records: dict[str, Record]) -> str:
    """The claim's tables over the results folders; a data set without one keeps its rows of
    the migrated record, which the section then names."""
    found = folders(layout.results)
    runs = {label: found.get(p, layout.results / p) for label, p in PUBLIC.items()}
    rec = records.get(SUMMARY)
    text = benchmark_summary(runs, render_blocks(rec.blocks or []) if rec is not None else "")
    kept = [p for p in PUBLIC.values() if p not in found and rec is not None]
    shown = [p for p in kept if any(p == PUBLIC[label] for label in PUBLIC if label in text)]
    if rec is not None and shown:
        text += (
            f"\n\nRows of {', '.join(shown)} (no results folder yet) are recorded by earlier "
            f"runs{f' ({rec.date})' if rec.date else ''}, migrated from {rec.recorded_from}; "
            "`factqa bench run PRESET PATH/TO/DATA` records them anew."
        )
    return text


def _demoted(text: str) -> str:
    """A section's headings one level down, under its part's heading."""
    return "\n".join("#" + x if x.startswith("#") else x for x in text.splitlines())


def _marked(name: str, body: str) -> str:
    return f"<!-- {name}:start -->\n{body.strip()}\n<!-- {name}:end -->"


def _placed(records: dict[str, Record]) -> dict[str, list[str]]:
    """Each part's section names in order: those it lists, then registered ones, then records
    of no part (in "other")."""
    listed = {n for p in PARTS for n in p.names}
    computed = (SUMMARY, CLEAN, PIPELINE)  # read from the results at report time, no record
    out = {p.key: [n for n in p.names if n in records or n in computed] for p in PARTS}
    for name in (n for n in sorted(records) if n not in listed):
        sec = section_of(name)
        kept = name.startswith("bench-") or name in READ_BY_CLEAN
        if sec is not None:
            out.setdefault(sec.part, []).append(name)
        elif not kept:
            out["other"].append(name)
    return out


def results_document(layout: Layout, records: dict[str, Record], sets: list[DataSet]) -> str:
    """docs/RESULTS.md, whole (its inventory line counted with the file as written)."""
    placed = _placed(records)
    chunks = [TITLE, INTRO]
    for part in PARTS:
        bodies: list[tuple[str, str]] = []
        for name in placed.get(part.key, []):
            if name == SUMMARY:
                bodies.append((name, summary(layout, records)))
            elif name == CLEAN:
                bodies.append((name, clean_section(layout, records)))
            elif name == PIPELINE:
                said = pipeline_section(layout.results)
                bodies += [(name, said)] if said else []
            elif name == SELECTOR_CHECKED:
                bodies.append((name, selector_checked(layout, records[name])))
            else:
                bodies.append((name, render(records[name])))
        if part.key == "datasets":
            bodies = [(f"bench-{s.name}", s.headline()) for s in sets if not s.variant]
        if not bodies:
            continue
        chunks += [f"## {part.heading}", part.intro]
        chunks += [_marked(name, _demoted(body)) for name, body in bodies]
        variants = [s for s in sets if s.variant] if part.key == "datasets" else []
        if variants:
            chunks.append(
                "Variant runs, each whole on its page: "
                + ", ".join(f"[{s.name}](results/{s.name}.md)" for s in variants)
                + "."
            )
    text = "\n\n".join(chunks) + "\n"
    draft = text + "\n" + _marked(INVENTORY, inventory(layout, 0)) + "\n"
    lines = len(draft.splitlines())  # the line counts the file with the inventory in place
    return text + "\n" + _marked(INVENTORY, inventory(layout, lines)) + "\n"


def inventory(layout: Layout, lines: int) -> str:
    """The committed results and the tool: results files and bytes, the document's `lines`,
    `factqa bench`'s subcommands, the scripts left in bench/."""
    files = [f for p in folders(layout.results).values() for f in p.iterdir() if f.is_file()]
    where = records_dir(layout.results)
    files += sorted(where.glob("*.json")) if where.is_dir() else []
    load()
    line = (
        f"results_files={len(files)} results_bytes={sum(f.stat().st_size for f in files)} "
        f"results_md_lines={lines} bench_subcommands={len(subcommands())} "
        f"bench_scripts_left={len(list(layout.scripts.glob('*.py')))}"
    )
    return (
        "## The committed results and the benchmark tool\n\n"
        "Written by `factqa bench report` (no model): the files and bytes under results/ (the "
        "results folders and the sections' records), the lines of this file, the subcommands "
        "of `factqa bench` and the scripts left in bench/.\n\n"
        f"`{line}`"
    )


def first_runs(layout: Layout) -> tuple[dict[str, Path], dict[str, Path]]:
    """The README's answer table's runs (label -> results folder): a data set's sealed sample
    where it was scored (`bench/sealed.py`), else its development sample; and, for the sealed
    ones, the development sample its "best" methods are chosen on."""
    found = folders(layout.results)
    runs, chosen_on = {}, {}
    for label, p in FIRST.items():
        dev = found.get(p, layout.results / p)
        if sealed_name(p) in found:
            runs[label + SEALED_LABEL] = found[sealed_name(p)]
            chosen_on[label + SEALED_LABEL] = dev
        else:
            runs[label] = dev
    return runs, chosen_on


def clean_section(layout: Layout, records: dict[str, Record]) -> str:
    """The `clean-test` section (bench/clean_test.py) with the README table's Holm counts."""
    table = answer_rows(*first_runs(layout))
    return clean_test(layout.results, records, (table.comparisons, table.verdicts, table.kept))


SELECTOR_CHECKED = "selector-checked"
CHECKED_SETS = {"squad-v1": "SQuAD v1.1", "squad-v2": "SQuAD v2.0", "bundled": "bundled",
                "drop": "DROP", "tatqa-dev": "TAT-QA"}  # fmt: skip


def selector_checked(layout: Layout, record: Record) -> str:
    """The `selector-checked` section: its migrated text up to its figures on the evaluation
    data, which are read from the committed results (they were once written by hand, and
    went stale)."""
    blocks = list(record.blocks or [])
    last = str(blocks[-1].get("text", "")) if blocks else ""
    kept = last.split(" On the evaluation data", 1)[0]
    found = folders(layout.results)
    pairs = []
    for preset, label in CHECKED_SETS.items():
        if preset not in found:
            continue
        run = load_results(found[preset]).run
        acc = dict(zip(run.summary.method, run.summary.accuracy, strict=True))
        checked, plain = f"small-selected-checked@{run.k}", f"small-selected@{run.k}"
        if checked in acc and plain in acc:
            pairs.append(f"{label} {acc[checked]:.3f} against {acc[plain]:.3f}")
    said = (
        " On the evaluation data (no refit; read from results/, small-selected-checked@k against "
        f"small-selected@k): {', '.join(pairs)}."
        if pairs
        else ""
    )
    return render_blocks([*blocks[:-1], {"text": kept + said}], record)


def readme_text(layout: Layout, public: str) -> str:
    """The README with its generated blocks: the answer table, the bundled corpus's result,
    the claim on public data."""
    text = layout.readme.read_text(encoding="utf-8")
    found = folders(layout.results)
    # a data set with no results folder keeps its row as the README has it
    before = answer_block(text) or ""
    text = with_section(text, ANSWER, answer_section(*first_runs(layout), before), layout.readme)
    if "bundled" in found:
        text = with_section(text, "result", readme_section(found["bundled"]), layout.readme)
    return with_section(text, "public", public, layout.readme)


def build(layout: Layout) -> dict[Path, str]:
    """Every generated file's text, by path."""
    load()  # every module registers its sections
    records = load_all(layout.results)
    sets = datasets(layout, records)
    out = {layout.results_md: results_document(layout, records, sets)}
    for s in sets:
        out[layout.pages / f"{s.name}.md"] = s.page()
    if layout.readme.exists():
        out[layout.readme] = readme_text(layout, summary(layout, records))
    rec = records.get(SUMMARY)
    if rec is not None and rec.blocks is not None:
        out[records_dir(layout.results) / f"{SUMMARY}.json"] = dumped(summary_record(layout, rec))
    return out


def summary_record(layout: Layout, rec: Record) -> Record:
    """The summary's record with each row of a data set that has a results folder as the folder
    gives it: the document shows those rows from the folders, so the record's own copy is
    generated too, and `--check` finds an edit to it (an edit to another row changes the
    document)."""
    found = folders(layout.results)
    runs = {label: found[p] for label, p in PUBLIC.items() if p in found}
    fresh = kept_table_rows(benchmark_summary(runs)) if runs else []
    blocks, tables = [], iter(fresh)
    for block in rec.blocks or []:
        if "table" in block:
            rows = next(tables, {})
            table = dict(block["table"])
            table["rows"] = [rows.get(str(r[0]), r) if r else r for r in table["rows"]]
            block = {**block, "table": table}
        blocks.append(block)
    return replace(rec, figures={**rec.figures, "blocks": blocks})


def stale_pages(layout: Layout, built: dict[Path, str]) -> list[Path]:
    """Pages under docs/results/ that the document no longer has."""
    if not layout.pages.is_dir():
        return []
    return [p for p in sorted(layout.pages.glob("*.md")) if p not in built]


PICTURE = "cost_vs_accuracy.png"  # the README's picture, beside docs/RESULTS.md
PICTURE_RUN = "bundled"  # drawn from this committed run


def picture(layout: Layout) -> tuple[Path, Run | None]:
    """Where the README's picture goes, and the committed run it is drawn from (None: none)."""
    found = folders(layout.results)
    run = load_results(found[PICTURE_RUN]).run if PICTURE_RUN in found else None
    return layout.results_md.parent / PICTURE, run


def refuse_empty(results: Path) -> None:
    """`results` holds at least one results folder (one with its index) or one study's record
    (a section written before any preset ran): else nothing would be written from it."""
    if not folders(results) and not any(records_dir(results).glob("*.json")):
        raise InputError(
            "is not a folder"
            if not results.is_dir()
            else f"holds no results folder (none with {INDEX}) and no record under bench/",
            path=results,
            field="--results-dir",
            fix="give --results-dir the results/ folder the benchmarks wrote",
        )


def write(layout: Layout) -> list[Path]:
    """Write every generated file and the README's picture (and remove stale pages); the paths
    written. A results folder that is missing or holds no results is refused before anything is
    written: a document of nothing would cut docs/RESULTS.md and remove every page."""
    refuse_empty(layout.results)
    built = build(layout)
    for path, text in built.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, text)
    for path in stale_pages(layout, built):
        path.unlink()
    where, run = picture(layout)
    if run is not None:
        where.parent.mkdir(parents=True, exist_ok=True)
        built[save_picture(run, where)] = ""
    return list(built)


def differences(layout: Layout, say: Callable[[str], None] = print, context: int = 2) -> int:
    """How many generated files differ from what `write` would write; a short diff of each."""
    built = build(layout)
    differ = 0
    for path, text in built.items():
        now = path.read_text(encoding="utf-8") if path.exists() else ""
        if now == text:
            continue
        differ += 1
        name = _shown(path)
        diff = list(
            difflib.unified_diff(
                now.splitlines(), text.splitlines(), name, "generated", n=context, lineterm=""
            )
        )
        say("\n".join(diff[:40] + ([f"... {len(diff) - 40} more lines"] if len(diff) > 40 else [])))
    for path in stale_pages(layout, built):
        differ += 1
        say(f"{_shown(path)}: not generated any more (factqa bench report removes it)")
    where, run = picture(layout)
    if run is not None and picture_key(where) != points_key(cost_points(run)):
        differ += 1
        say(f"{_shown(where)}: drawn from other data than results/{PICTURE_RUN}")
    return differ


def _shown(path: Path) -> str:
    """A path as the repository names it (as given, outside it)."""
    try:
        return path.resolve().relative_to(PROJECT_ROOT.resolve()).as_posix()
    except ValueError:
        return str(path)
