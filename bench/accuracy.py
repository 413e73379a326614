"""The experiment on public data: import a fixed stratified sample, run every method, record it.

    python bench/accuracy.py PRESET DATA_PATH [--small MODEL] [--adaptive RULE]
                             [--small-context excerpt:N] [--prompt derive] [--limit N]
                             [--no-write]

A thin wrapper over `factqa bench run` (experiment/bench/run.py), which holds the presets
(experiment/bench/presets.py), the run's name, its section of docs/RESULTS.md, the README's
tables and its committed results (results/PRESET/). `bundled` takes `-` as DATA_PATH.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from experiment.bench.presets import BUNDLED_PRESET, PRESETS
from experiment.bench.results import RESULTS
from experiment.bench.run import OUT, README, RESULTS_MD, BenchOptions, run_preset
from experiment.config import RunConfig
from experiment.generate.windows import ARTICLE


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("preset", choices=sorted(PRESETS))
    ap.add_argument("data", type=Path)
    ap.add_argument("--small", default=None, help="small model (default: the run default)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--limit", type=int, default=0, help="only the first N questions (smoke test)")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--results", type=Path, default=RESULTS_MD)
    ap.add_argument("--readme", type=Path, default=README)
    ap.add_argument("--results-dir", type=Path, default=RESULTS)
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--adaptive", default="off")
    ap.add_argument("--small-context", default=ARTICLE)
    ap.add_argument("--prompt", default="figure", choices=["figure", "derive", "calc", "auto"])
    ap.add_argument("--half", default=None, choices=["fit", "eval"])
    ap.add_argument("--checks", default=RunConfig.checks)
    ap.add_argument("--drafts", default=RunConfig.drafts)
    args = ap.parse_args()
    run_preset(
        BenchOptions(
            args.preset,
            None if args.preset == BUNDLED_PRESET else args.data,
            small=args.small,
            seed=args.seed,
            limit=args.limit,
            out=args.out,
            results_md=args.results,
            readme=args.readme,
            results=args.results_dir,
            write=not args.no_write,
            adaptive=args.adaptive,
            small_context=args.small_context,
            prompt=args.prompt,
            half=args.half,
            checks=args.checks,
            drafts=args.drafts,
        )
    )


if __name__ == "__main__":
    main()
