"""The experiment on public data: import a fixed stratified sample, run every method, record it.

    python bench/accuracy.py PRESET DATA_PATH [--small MODEL] [--adaptive RULE]
                             [--small-context excerpt:N] [--limit N] [--no-write]

Presets (the issue's default runs; each finishes well under 90 minutes on 2 CPU cores):
- squad-v1   SQuAD v1.1 dev, 300 figure/date questions of the evaluation titles, seed 0
- squad-v2   SQuAD v2.0 dev, 100 answerable + 100 unanswerable figure/date-looking questions of
             the evaluation titles
(The evaluation titles are the half of SQuAD's titles that the selector was not fitted on:
experiment/importers/split.py.)
- drop       DROP dev, 200 figure/date questions (many answers are computed, not in the text)

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
from experiment.generate.windows import ARTICLE
from experiment.importers.service import import_dataset
from experiment.importers.split import Half
from experiment.report.markdown import benchmark_summary, update_section
from experiment.runner import run_experiment

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Preset:
    fmt: str
    sample: int
    unanswerable: int | None
    title: str
    half: Half | None  # SQuAD: only the evaluation half of the titles (importers/split.py)


PRESETS = {
    "squad-v1": Preset("squad", 300, None, "SQuAD v1.1 dev, evaluation titles", "eval"),
    "squad-v2": Preset("squad", 100, 100, "SQuAD v2.0 dev, evaluation titles", "eval"),
    "drop": Preset("drop", 200, None, "DROP dev", None),
}


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
    args = ap.parse_args()

    p = PRESETS[args.preset]
    data_dir = args.out / "data" / args.preset
    imported = import_dataset(
        p.fmt, args.data, data_dir, p.sample, args.seed, p.unanswerable, True, p.half
    )
    name = args.preset + (f"-{args.small}" if args.small else "")
    title = p.title + (f", small model {args.small}" if args.small else "")
    if args.adaptive != "off":
        name += f"-adaptive-{args.adaptive.replace(':', '')}"
        title += f", adaptive sampling {args.adaptive}"
    if args.small_context != ARTICLE:
        name += f"-{args.small_context.replace(':', '')}"
        title += f", small model reads {args.small_context}"
    if args.seed:  # another sample of the data set and other seeds: another run, not this one's
        name += f"-seed{args.seed}"
    base = RunConfig()
    cfg = RunConfig(
        articles=imported.articles,
        questions=imported.questions,
        small=args.small or base.small,
        out=args.out,
        run_id=name + (f"-limit{args.limit}" if args.limit else ""),
        limit=args.limit,
        seed=args.seed,
        label=title,
        adaptive=args.adaptive,
        small_context=args.small_context,
    )
    t0 = time.perf_counter()

    def progress(role: str, done: int, total: int) -> None:
        if done % 25 == 0 or done == total:
            print(f"[{time.perf_counter() - t0:7.1f}s] {role}: {done}/{total}", flush=True)

    result = run_experiment(cfg, progress=progress)
    from experiment.report.markdown import benchmark_section

    command = f"python bench/accuracy.py {args.preset} PATH/TO/{args.data.name}" + (
        f" --small {args.small}" if args.small else ""
    )
    if args.adaptive != "off":
        command += f" --adaptive {args.adaptive}"
    if args.small_context != ARTICLE:
        command += f" --small-context {args.small_context}"
    text = benchmark_section(result.run_dir, title, command)
    print(text)
    if not args.no_write and not args.limit:
        update_section(args.results, f"bench-{name}", text)
    variant = args.adaptive != "off" or args.small_context != ARTICLE
    if not args.no_write and not args.limit and not variant:
        runs = {
            "SQuAD v1.1, evaluation titles (small qwen2.5-coder-0.5b)": args.out / "squad-v1",
            "SQuAD v1.1, evaluation titles (small smollm2-135m)": args.out
            / "squad-v1-smollm2-135m",
            "SQuAD v2.0, evaluation titles (100 unanswerable)": args.out / "squad-v2",
            "DROP": args.out / "drop",
        }
        summary = benchmark_summary(runs)
        update_section(args.results, "bench-summary", summary)
        update_section(args.readme, "public", summary)  # the README states the same table
        print(f"updated {args.results} and {args.readme}")


if __name__ == "__main__":
    main()
