"""A real run in its own process, with a scripted model that sleeps per sample: the SIGKILL test
kills this process at random moments and starts it again.

    python -m tests.crash_worker ARTICLES QUESTIONS OUT
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from experiment.config import RunConfig
from experiment.runner import run_experiment
from tests.conftest import LARGE_ANSWERS, SMALL_ANSWERS, FakeBackend, keyword_script

SLEEP = 0.01


class Sleepy(FakeBackend):
    def generate(self, messages, params, seeds):  # type: ignore[no-untyped-def]
        out = []
        for seed in seeds:
            time.sleep(SLEEP)
            out += super().generate(messages, params, [seed])
        return out


def factory(spec: str, _cfg: RunConfig) -> FakeBackend:
    return Sleepy(spec, keyword_script(SMALL_ANSWERS if spec == "small" else LARGE_ANSWERS))


if __name__ == "__main__":
    articles, questions, out = map(Path, sys.argv[1:4])
    cfg = RunConfig(
        articles=articles,
        questions=questions,
        small="small",
        large="large",
        k=3,
        out=out,
        run_id="t",
    )
    run_experiment(cfg, factory=factory)
    print("done", flush=True)
