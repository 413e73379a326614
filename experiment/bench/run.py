"""`factqa bench run PRESET DATA_PATH`: import the preset's sample, run every method, save its
committed results (`results/PRESET/`) and write docs/RESULTS.md, its pages and the README's
tables again from results/ (`bench/document`).

A variant (adaptive sampling, an excerpt, another prompt, part, checks or seed) is named after
what differs (`squad-v1-adaptive-window2`) and saves its results folder under that name
(`results/NAME/`, marked a variant): it gets its page under docs/results/, and no headline or
README row.
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
from experiment.bench.sealed_samples import sealed_ids, sealed_name
from experiment.bench.sections import records_dir
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

    def default(self, name: str) -> object:
        """What `bench run` leaves a variant setting at: the preset's prompt and part, else the
        run's default (seed 0)."""
        preset = PRESETS[self.preset]
        return {"prompt": preset.prompt, "half": preset.half}.get(
            name, getattr(RunConfig, name, None)
        )

    def value(self, name: str) -> object:
        return {"prompt": self.prompt_setting, "half": self.part}.get(name, getattr(self, name))

    def changed(self) -> list[tuple[Variant, object]]:
        """The variant settings that differ from the preset's run, in VARIANTS' order."""
        return [
            (v, self.value(v.name)) for v in VARIANTS if self.value(v.name) != self.default(v.name)
        ]

    @property
    def variant(self) -> bool:
        """A run other than the preset's default models' or another small model's (its page
        only: no headline, no README row)."""
        return bool(self.changed())


@dataclass(frozen=True)
class Variant:
    """A setting `bench run` may change from the preset's run: the run's name and title say it,
    and its recorded command gives its flag (each written once, here)."""

    name: str  # BenchOptions' field
    suffix: Callable[[str], str]  # what the run's name adds
    said: Callable[[str], str] = lambda _: ""  # what its title adds

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


VARIANTS = (
    Variant(
        "adaptive",
        lambda v: f"-adaptive-{v.replace(':', '')}",
        lambda v: f", adaptive sampling {v}",
    ),
    Variant(
        "small_context", lambda v: f"-{v.replace(':', '')}", lambda v: f", small model reads {v}"
    ),
    Variant("prompt", lambda v: f"-{v}", lambda v: f", {v} prompt"),
    Variant("half", lambda v: f"-{v}", lambda v: f", {v} part"),
    Variant("checks", lambda v: "-nochecks" if v == "none" else f"-checks-{v}"),
    Variant(
        "drafts",
        lambda v: "-nodrafts" if v == "none" else f"-drafts-{v.replace(',', '+')}",
        lambda v: ", no pool scores" if v == "none" else f", pools scored by {v}",
    ),
    Variant(
        "derived_text", lambda v: f"-derived-{v}", lambda v: f", calculations scored as their {v}"
    ),
    Variant("seed", lambda v: f"-seed{v}"),  # another sample of the data set and other seeds
)


def run_name(o: BenchOptions) -> tuple[str, str]:
    """The run's name and title: the preset's, and what differs from it."""
    p = PRESETS[o.preset]
    name, title = o.preset + (f"-{o.small}" if o.small else ""), p.title
    title += f", small model {o.small}" if o.small else ""
    if o.sealed:
        name, title = sealed_name(name), f"{title}, sealed sample"
    for v, value in o.changed():
        name, title = name + v.suffix(str(value)), title + v.said(str(value))
    return name, title


def command_of(o: BenchOptions) -> str:
    """The command that makes this run, the data file as PATH/TO/<its name>."""
    where = "" if o.preset == BUNDLED_PRESET or o.data is None else f" PATH/TO/{o.data.name}"
    if o.sealed:
        return f"factqa bench sealed {o.preset}{where}"
    flags = [("--small", o.small)] if o.small else []
    flags += [(v.flag, value) for v, value in o.changed()]
    flags += [("--limit", o.limit)] if o.limit else []
    said = "".join(f" {flag} {value}" for flag, value in flags)
    return f"factqa bench run {o.preset}{where}{said}"


def config_of(o: BenchOptions, out: Path | None = None) -> tuple[RunConfig, str, str]:
    """The run's configuration (the sample imported first), its name and title."""
    p = PRESETS[o.preset]
    name, title = run_name(o)
    data_dir = o.out / "data" / (o.preset + (f"-{o.part}" if o.part != p.half else ""))
    ids = sealed_ids(o.preset, o.results) if o.sealed else None
    if o.sealed:
        data_dir = o.out / "data" / sealed_name(o.preset)
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
        variant=o.variant,
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
        files = save_results(result.run_dir, o.results / name, source_of(o, title, line))
        size = sum(int(r["bytes"]) for r in files.values())
        say(f"wrote {o.results / name} ({len(files)} files, {size:,} bytes)")
        stale = records_dir(o.results) / f"bench-{name}.json"
        if stale.exists():  # its section as an older record kept it: the results replace it
            stale.unlink()
        write_report(o.results, o.results_md, o.readme)
        say(f"updated {o.results_md}, its pages and {o.readme}")
    say(line)
    return line
