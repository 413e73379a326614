"""The experiment on public data: import a fixed stratified sample, run every method, record it.

    python bench/accuracy.py PRESET DATA_PATH [--small MODEL] [--adaptive RULE]
                             [--small-context excerpt:N] [--prompt derive] [--limit N]
                             [--no-write]

Presets (the issue's default runs; each finishes well under 90 minutes on 2 CPU cores):
- squad-v1   SQuAD v1.1 dev, 300 figure/date questions of the evaluation titles, seed 0
- squad-v2   SQuAD v2.0 dev, 100 answerable + 100 unanswerable figure/date-looking questions of
             the evaluation titles
(The evaluation titles are the half of SQuAD's titles that the selector was not fitted on:
experiment/importers/split.py.)
- drop       DROP dev, 200 figure/date questions of the evaluation passages (many answers are
             computed, not in the text; the calculator's cues were written from the fitting
             passages)
- tatqa-dev  TAT-QA dev, 200 questions of the evaluation part (the table uids of
             `factqa import tatqa --half eval`), stated in the table or text and computed apart
- bundled    the bundled OrigoTech corpus (DATA_PATH is ignored; write `-`)

Every run prints, last, one machine-readable line of its preset's figures (stated and computed
questions apart, and the derivation checker's precision: derived samples whose result is right),
which docs/RESULTS.md records.

`--small smollm2-135m` runs the same sample with that model as the small one (the large model's
answers come from the shared cache). Run folders go to outputs/bench/, the imported sample to
outputs/bench/data/PRESET/, and the section of docs/RESULTS.md named after the run is rewritten.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

from experiment.config import RunConfig
from experiment.corpus import load_articles, load_questions
from experiment.evaluate.methods import (
    CASCADE_CHECK_20,
    CASCADE_DERIVED_20,
    CHECK_EVIDENCE,
    CHECK_WHOLE,
    DERIVED,
    LARGE_1,
    PASS,
    ROUTED,
    SELECTED,
    VERIFIED,
)
from experiment.generate.windows import ARTICLE
from experiment.importers.service import import_dataset
from experiment.importers.split import Half
from experiment.report.analysis import derivation_record, stated_computed
from experiment.report.first_screen import update_answer
from experiment.report.markdown import benchmark_summary, update_section
from experiment.report.run import load_run
from experiment.runner import run_experiment

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Preset:
    fmt: str
    sample: int
    unanswerable: int | None
    title: str
    half: Half | None  # only the evaluation half of the titles (importers/split.py)


PRESETS = {
    "squad-v1": Preset("squad", 300, None, "SQuAD v1.1 dev, evaluation titles", "eval"),
    "squad-v2": Preset("squad", 100, 100, "SQuAD v2.0 dev, evaluation titles", "eval"),
    "drop": Preset("drop", 200, None, "DROP dev, evaluation passages", "eval"),
    "tatqa-dev": Preset("tatqa", 200, None, "TAT-QA dev, evaluation part", "eval"),
    "bundled": Preset("", 0, None, "bundled OrigoTech corpus", None),
}
# The machine-readable line's prefix per preset, and which figures it names
LINE_PREFIX = {
    "squad-v1": "squad_v1",
    "squad-v2": "squad_v2",
    "drop": "drop",
    "tatqa-dev": "tatqa",
    "bundled": "bundled",
}


def figures_line(preset: str, run_dir: Path, questions_path: Path, articles_path: Path) -> str:
    """The preset's figures on one line, `name=value` pairs: each method's accuracy on stated
    questions (`PREFIX_dev_METHOD` for TAT-QA, as issue 26 names them; `PREFIX_stated_METHOD`
    elsewhere), on computed ones (`PREFIX_computed_METHOD`; TAT-QA `tatqa_arith_METHOD`), and
    the derivation checker's precision over the small model's samples."""
    run = load_run(run_dir)
    k = int(run.manifest.config["k"])
    short = {
        "large": LARGE_1.name(k),
        "verified": VERIFIED.name(k),
        "derived": DERIVED.name(k),
        "selected": SELECTED.name(k),
        "pass": PASS.name(k),
        "cascade20": ROUTED[1].name(k),
        "cascade_derived20": CASCADE_DERIVED_20.name(k),
        "check": CHECK_EVIDENCE.name(k),
        "check_whole": CHECK_WHOLE.name(k),
        "cascade_check20": CASCADE_CHECK_20.name(k),
    }
    present = {key: m for key, m in short.items() if run.has(m)}
    split = stated_computed(run.questions, list(present.values())).set_index("method")
    prefix = LINE_PREFIX[preset]
    stated = "tatqa_dev" if preset == "tatqa-dev" else f"{prefix}_stated"
    computed = "tatqa_arith" if preset == "tatqa-dev" else f"{prefix}_computed"
    pairs = []
    for part, name in (("stated", stated), ("computed", computed)):
        for key, method in present.items():
            value = split.loc[method, part]
            if value == value:  # not NaN: the run has questions of this part
                pairs.append(f"{name}_{key}={value:.3f}")
    articles = load_articles(articles_path)
    qs = {q.id: q for q in load_questions(questions_path, articles)}
    small = run.attempts[run.attempts.role == "small"]
    record = derivation_record(small, qs)
    pairs.append(f"{prefix}_with_working={record['with_working']}")
    if record["derived"]:
        precision = record["derived_right"] / record["derived"]
        pairs.append(f"{prefix}_derivation_precision={precision:.3f}")
    pairs.append(f"{prefix}_n_stated={split.attrs['n_stated']}")
    pairs.append(f"{prefix}_n_computed={split.attrs['n_computed']}")
    return " ".join(pairs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("preset", choices=sorted(PRESETS))
    ap.add_argument("data", type=Path)
    ap.add_argument("--small", default=None, help="small model (default: the run default)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--limit", type=int, default=0, help="only the first N questions (smoke test)")
    ap.add_argument("--out", type=Path, default=ROOT / "outputs" / "bench")
    ap.add_argument("--results", type=Path, default=ROOT / "docs" / "RESULTS.md")
    ap.add_argument("--readme", type=Path, default=ROOT / "README.md")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument(
        "--adaptive",
        default="off",
        help="sample adaptively with this stopping rule (the run is named PRESET-adaptive-RULE "
        "and writes no README table; bench/adaptive.py compares the rules)",
    )
    ap.add_argument(
        "--small-context",
        default=ARTICLE,
        help="what the small model reads: 'article' or 'excerpt:N' (the run is named "
        "PRESET-excerptN and writes no README table; bench/fit_excerpt.py chose N)",
    )
    ap.add_argument(
        "--prompt",
        default="figure",
        choices=["figure", "derive", "calc", "auto"],
        help="the prompt both models get (the run is named PRESET-derive with 'derive' and "
        "writes no README table)",
    )
    ap.add_argument(
        "--half",
        default=None,
        choices=["fit", "eval"],
        help="the part of the data set to sample (importers/split.py; default: the preset's); "
        "another part than the preset's names the run PRESET-HALF and writes no README table",
    )
    ap.add_argument(
        "--checks",
        default=RunConfig.checks,
        help="the large model's checks ('none' skips them; the run is then named PRESET-nochecks)",
    )
    ap.add_argument(
        "--drafts",
        default=RunConfig.drafts,
        help="the models that score the pool ('small', 'large', 'small,large' or 'none'; the "
        "run keeps its name: its folder then holds this setting's run)",
    )
    args = ap.parse_args()

    p = PRESETS[args.preset]
    half = args.half or p.half
    base = RunConfig()
    if args.preset == "bundled":
        articles, questions = base.articles, base.questions
    else:
        data_dir = args.out / "data" / (args.preset + (f"-{half}" if half != p.half else ""))
        imported = import_dataset(
            p.fmt, args.data, data_dir, p.sample, args.seed, p.unanswerable, True, half
        )
        articles, questions = imported.articles, imported.questions
    name = args.preset + (f"-{args.small}" if args.small else "")
    title = p.title + (f", small model {args.small}" if args.small else "")
    if args.adaptive != "off":
        name += f"-adaptive-{args.adaptive.replace(':', '')}"
        title += f", adaptive sampling {args.adaptive}"
    if args.small_context != ARTICLE:
        name += f"-{args.small_context.replace(':', '')}"
        title += f", small model reads {args.small_context}"
    if args.prompt != "figure":
        name += f"-{args.prompt}"
        title += f", {args.prompt} prompt"
    if half != p.half:
        name += f"-{half}"
        title += f", {half} part"
    if args.checks != RunConfig.checks:
        name += "-nochecks" if args.checks == "none" else f"-checks-{args.checks}"
    if args.seed:  # another sample of the data set and other seeds: another run, not this one's
        name += f"-seed{args.seed}"
    cfg = RunConfig(
        articles=articles,
        questions=questions,
        small=args.small or base.small,
        out=args.out,
        run_id=name + (f"-limit{args.limit}" if args.limit else ""),
        limit=args.limit,
        seed=args.seed,
        label=title,
        adaptive=args.adaptive,
        small_context=args.small_context,
        prompt=args.prompt,
        checks=args.checks,
        drafts=args.drafts,
    )
    t0 = time.perf_counter()

    def progress(role: str, done: int, total: int) -> None:
        if done % 25 == 0 or done == total:
            print(f"[{time.perf_counter() - t0:7.1f}s] {role}: {done}/{total}", flush=True)

    result = run_experiment(cfg, progress=progress)
    from experiment.report.markdown import benchmark_section

    where = "-" if args.preset == "bundled" else f"PATH/TO/{args.data.name}"
    command = f"python bench/accuracy.py {args.preset} {where}" + (
        f" --small {args.small}" if args.small else ""
    )
    if args.adaptive != "off":
        command += f" --adaptive {args.adaptive}"
    if args.small_context != ARTICLE:
        command += f" --small-context {args.small_context}"
    if args.prompt != "figure":
        command += f" --prompt {args.prompt}"
    if half != p.half:
        command += f" --half {half}"
    if args.checks != RunConfig.checks:
        command += f" --checks {args.checks}"
    if args.drafts != RunConfig.drafts:
        command += f" --drafts {args.drafts}"
    if args.limit:
        command += f" --limit {args.limit}"
    line = figures_line(args.preset, result.run_dir, questions, articles)
    text = benchmark_section(result.run_dir, title, command) + f"\n\n`{line}`\n"
    print(text)
    if not args.no_write and not args.limit:
        update_section(args.results, f"bench-{name}", text)
    variant = (
        args.adaptive != "off"
        or args.small_context != ARTICLE
        or args.prompt != "figure"
        or half != p.half
        or args.checks != RunConfig.checks
        or args.preset in ("bundled", "tatqa-dev")  # not in the public table (yet)
    )
    if not args.no_write and not args.limit and not variant:
        runs = {
            "SQuAD v1.1, evaluation titles (small qwen2.5-coder-0.5b)": args.out / "squad-v1",
            "SQuAD v1.1, evaluation titles (small smollm2-135m)": args.out
            / "squad-v1-smollm2-135m",
            "SQuAD v2.0, evaluation titles (100 unanswerable)": args.out / "squad-v2",
            "DROP, evaluation passages": args.out / "drop",
        }
        summary = benchmark_summary(runs)
        update_section(args.results, "bench-summary", summary)
        update_section(args.readme, "public", summary)  # the README states the same table
        first = {  # the default models on each data set, short labels for the first screen
            "bundled OrigoTech corpus": args.out / "bundled",
            "SQuAD v1.1": args.out / "squad-v1",
            "SQuAD v2.0, half unanswerable": args.out / "squad-v2",
            "DROP, evaluation passages": args.out / "drop",
        }
        update_answer(args.readme, first)  # the README's first screen
        print(f"updated {args.results} and {args.readme}")
    print(line)


if __name__ == "__main__":
    main()
