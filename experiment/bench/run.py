"""`factqa bench run PRESET DATA_PATH`: import the preset's sample, run every method, save its
committed results (`results/PRESET/`) and write docs/RESULTS.md, its pages and the README's
tables again from results/ (`bench/document`).

A variant (adaptive sampling, an excerpt, another prompt, part, checks or seed) is named after
what differs (`squad-v1-adaptive-window2`) and saves its section only, as its record
(`results/bench/bench-NAME.json`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from experiment.base.types import BUNDLED
from experiment.bench.harness import OUT, README, RESULTS_MD
from experiment.bench.looks import headline
from experiment.bench.presets import BUNDLED_PRESET, PRESETS, figures_line, import_preset
from experiment.bench.report import write_report
from experiment.bench.results import RESULTS, save_results
from experiment.bench.sealed_samples import sealed_ids
from experiment.bench.sections import blocks_of, measured, records_dir, save
from experiment.config import RunConfig
from experiment.generate.windows import ARTICLE
from experiment.importers.looked import mark
from experiment.importers.split import Half
from experiment.record.results_index import Source
from experiment.report.markdown import benchmark_section
from experiment.report.run import load_run
from experiment.runner import BackendFactory, Factories, llama_factory, run_experiment


@dataclass(frozen=True)
class BenchOptions:
    """One `factqa bench run`'s options."""

    preset: str
    data: Path | None
    small: str | None = None
    seed: int = 0
    limit: int = 0
    out: Path = OUT
    results_md: Path = RESULTS_MD
    readme: Path = README
    results: Path = RESULTS
    write: bool = True
    adaptive: str = "off"
    small_context: str = ARTICLE
    prompt: str | None = None  # the preset's, unless given
    half: Half | None = None
    checks: str = RunConfig.checks
    drafts: str = RunConfig.drafts
    derived_text: str = RunConfig.derived_text
    sample: int | None = None  # the preset's sample size, unless given (a test's small file)
    sealed: bool = False  # the preset's sealed sample (bench/sealed.py), not its development one

    @property
    def prompt_setting(self) -> str:
        return self.prompt or PRESETS[self.preset].prompt

    @property
    def part(self) -> Half | None:
        return self.half or PRESETS[self.preset].half

    @property
    def variant(self) -> bool:
        """A run other than the preset's default models' or another small model's (its section
        only: no README table, no results folder)."""
        return (
            self.adaptive != "off"
            or self.small_context != ARTICLE
            or self.prompt_setting != PRESETS[self.preset].prompt
            or self.part != PRESETS[self.preset].half
            or self.checks != RunConfig.checks
            or self.drafts != RunConfig.drafts
            or self.derived_text != RunConfig.derived_text
            or bool(self.seed)
        )


def run_name(o: BenchOptions) -> tuple[str, str]:
    """The run's name and title: the preset's, and what differs from it."""
    p = PRESETS[o.preset]
    name, title = o.preset + (f"-{o.small}" if o.small else ""), p.title
    title += f", small model {o.small}" if o.small else ""
    if o.sealed:
        name, title = f"sealed-{name}", f"{title}, sealed sample"
    if o.adaptive != "off":
        name += f"-adaptive-{o.adaptive.replace(':', '')}"
        title += f", adaptive sampling {o.adaptive}"
    if o.small_context != ARTICLE:
        name += f"-{o.small_context.replace(':', '')}"
        title += f", small model reads {o.small_context}"
    if o.prompt_setting != p.prompt:
        name += f"-{o.prompt_setting}"
        title += f", {o.prompt_setting} prompt"
    if o.part != p.half:
        name += f"-{o.part}"
        title += f", {o.part} part"
    if o.checks != RunConfig.checks:
        name += "-nochecks" if o.checks == "none" else f"-checks-{o.checks}"
    if o.drafts != RunConfig.drafts:
        name += "-nodrafts" if o.drafts == "none" else f"-drafts-{o.drafts.replace(',', '+')}"
        title += ", no pool scores" if o.drafts == "none" else f", pools scored by {o.drafts}"
    if o.derived_text != RunConfig.derived_text:
        name += f"-derived-{o.derived_text}"
        title += f", calculations scored as their {o.derived_text}"
    if o.seed:  # another sample of the data set and other seeds: another run
        name += f"-seed{o.seed}"
    return name, title


def command_of(o: BenchOptions) -> str:
    """The command that makes this run, the data file as PATH/TO/<its name>."""
    where = "" if o.preset == BUNDLED_PRESET or o.data is None else f" PATH/TO/{o.data.name}"
    if o.sealed:
        return f"factqa bench sealed {o.preset}{where}"
    flags = [
        ("--small", o.small, None),
        ("--adaptive", o.adaptive, "off"),
        ("--small-context", o.small_context, ARTICLE),
        ("--prompt", o.prompt_setting, PRESETS[o.preset].prompt),
        ("--half", o.half if o.part != PRESETS[o.preset].half else None, None),
        ("--checks", o.checks, RunConfig.checks),
        ("--drafts", o.drafts, RunConfig.drafts),
        ("--derived-text", o.derived_text, RunConfig.derived_text),
        ("--seed", o.seed or None, None),
        ("--limit", o.limit or None, None),
    ]
    said = "".join(f" {flag} {value}" for flag, value, default in flags if value != default)
    return f"factqa bench run {o.preset}{where}{said}"


def config_of(o: BenchOptions, out: Path | None = None) -> tuple[RunConfig, str, str]:
    """The run's configuration (the sample imported first), its name and title."""
    p = PRESETS[o.preset]
    name, title = run_name(o)
    data_dir = o.out / "data" / (o.preset + (f"-{o.part}" if o.part != p.half else ""))
    ids = sealed_ids(o.preset, o.results) if o.sealed else None
    if o.sealed:
        data_dir = o.out / "data" / f"sealed-{o.preset}"
    corpus = import_preset(o.preset, o.data, data_dir, o.seed, o.part, o.sample, ids=ids)
    cfg = RunConfig(
        articles=corpus.articles,
        questions=corpus.questions,
        small=o.small or RunConfig.small,
        out=out or o.out,
        run_id=name + (f"-limit{o.limit}" if o.limit else ""),
        limit=o.limit,
        seed=o.seed,
        label="" if title == BUNDLED else title,  # the bundled corpus's own name: no flag
        adaptive=o.adaptive,
        small_context=o.small_context,
        prompt=o.prompt_setting,
        checks=o.checks,
        drafts=o.drafts,
        derived_text=o.derived_text,
    )
    return cfg, name, title


def source_of(o: BenchOptions, title: str, line: str) -> Source:
    """What the preset's results are of, so a rescore imports the same sample again."""
    p = PRESETS[o.preset]
    return Source(
        preset=o.preset,
        public=p.public,
        data_file=o.data.name if p.public and o.data is not None else "",
        fmt=p.fmt,
        sample=o.sample or p.sample,
        unanswerable=p.unanswerable,
        half=o.part,
        seed=o.seed,
        title=title,
        command=command_of(o),
        line=line,
        sealed=o.sealed,
    )


def run_preset(
    o: BenchOptions,
    factory: BackendFactory | Factories = llama_factory,
    say: Callable[[str], None] = print,
) -> str:
    """One preset run end to end; returns its figures line."""
    cfg, name, title = config_of(o)
    t0 = time.perf_counter()

    def progress(role: str, done: float, total: int) -> None:
        if int(done) == done and (done % 25 == 0 or done == total):
            say(f"[{time.perf_counter() - t0:7.1f}s] {role}: {int(done)}/{total}")

    result = run_experiment(cfg, factory, progress=progress)
    run = load_run(result.run_dir)
    if o.part != "fit":  # a look at the evaluation sample (results/looks.csv)
        reported = o.part == "eval" or not PRESETS[o.preset].public
        sample = "sealed" if o.sealed else "development" if reported else "whole"
        mark(o.preset, sample, headline(run))
    line = figures_line(o.preset, run)
    text = benchmark_section(run, title, command_of(o)) + f"\n\n`{line}`\n"
    say(text)
    if o.write and not o.limit:
        stale = records_dir(o.results) / f"bench-{name}.json"
        if o.variant:  # its section only, kept as its record
            save(measured(f"bench-{name}", command_of(o), {"blocks": blocks_of(text)}), o.results)
        else:
            files = save_results(result.run_dir, o.results / name, source_of(o, title, line))
            size = sum(int(r["bytes"]) for r in files.values())
            say(f"wrote {o.results / name} ({len(files)} files, {size:,} bytes)")
            if stale.exists():  # the section migrated from the document: the results replace it
                stale.unlink()
        write_report(o.results, o.results_md, o.readme)
        say(f"updated {o.results_md}, its pages and {o.readme}")
    say(line)
    return line
