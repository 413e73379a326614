"""Do a run's samples depend on the kernels llama.cpp was built with? Two builds, one machine.

    factqa bench portable --other DIR [--questions 40] [--repeat 2]

DIR holds a second build of llama-cpp-python (`pip install --target DIR`), for example the
portable one that docs/RELIABILITY.md ("Samples across machines") describes:

    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \\
      -DGGML_AVX512=OFF" pip install --no-deps --no-cache-dir --no-binary llama-cpp-python \\
      --target DIR "llama-cpp-python==$(pip show llama-cpp-python | sed -n 's/^Version: //p')"

For each build in turn (the installed one, then DIR put first on PYTHONPATH), a child process
loads the default small model (batched backend, k = 10, the run's sampling settings, 2 threads)
and the large one (greedy), draws the answers to the first N bundled questions and records
their text, log-probability and the seconds each model took. The builds alternate `--repeat`
times, so both see the same machine state; a build's seconds are its fastest repeat. Printed:
each build's llama.cpp system info, samples whose text differs between the builds and between
a build's own repeats, the largest log-probability gap of an identical answer, the portable
build's speed against the installed one (seconds ratio, >1 is slower), and a machine-readable
last line. Time nothing else while it runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from experiment.base.errors import ConfigError, ModelError
from experiment.bench.app import command
from experiment.bench.harness import corpus


def draw(questions: int, threads: int) -> dict[str, object]:
    """The child: every answer of both models to the first `questions` bundled questions."""
    from experiment.config import RunConfig
    from experiment.generate.models.base import GREEDY, SamplingParams
    from experiment.generate.models.batched import BatchedLlamaBackend
    from experiment.generate.models.store import resolve
    from experiment.generate.prompts import messages_for
    from experiment.report.machine import machine_facts

    cfg = RunConfig()
    articles, every = corpus()
    chosen = every[:questions]
    prompts = [messages_for(articles[q.article_id], q) for q in chosen]
    sampled = SamplingParams(temperature=cfg.temperature, top_p=cfg.top_p, max_tokens=32)
    greedy = replace(GREEDY, max_tokens=32)
    out: dict[str, object] = {"system_info": machine_facts().get("system_info", "")}
    for role, model, params, seeds in (
        ("small", cfg.small, sampled, list(range(cfg.k))),
        ("large", cfg.large, greedy, [0]),
    ):
        backend = BatchedLlamaBackend(resolve(model), n_threads=threads)
        t0 = time.perf_counter()
        got = [g for m in prompts for g in backend.generate(m, params, seeds)]
        out[f"{role}_seconds"] = time.perf_counter() - t0
        out[role] = [(g.text, g.logprob) for g in got]
        del backend
    return out


def _child(build: str | None, questions: int, threads: int) -> dict[str, object]:
    env = dict(os.environ)
    if build:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [build, env.get("PYTHONPATH")]))
    cmd = [sys.executable, "-m", "experiment", "bench", "portable", "--child"]
    cmd += ["--questions", str(questions)]
    cmd += ["--threads", str(threads)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        failed = f"the {'other' if build else 'installed'} build failed:\n{done.stderr[-2000:]}"
        raise ModelError(failed)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _differ(a: dict[str, object], b: dict[str, object], role: str) -> tuple[int, int, float]:
    pairs = list(zip(a[role], b[role], strict=True))  # type: ignore[call-overload]
    same = [(x, y) for x, y in pairs if x[0] == y[0]]
    gap = max((abs((x[1] or 0) - (y[1] or 0)) for x, y in same), default=0.0)
    return sum(x[0] != y[0] for x, y in pairs), len(pairs), gap


def _run(other: Path | None, questions: int, repeat: int, threads: int, child: bool) -> None:
    if child:
        print(json.dumps(draw(questions, threads)))
        return
    if other is None or not (other / "llama_cpp").is_dir():
        raise ConfigError(
            f"--other must be a folder with a llama_cpp package in it, got {other}",
            field="other",
        )
    runs: dict[str, list[dict[str, object]]] = {"installed": [], "other": []}
    for _ in range(repeat):
        runs["installed"].append(_child(None, questions, threads))
        runs["other"].append(_child(str(other.resolve()), questions, threads))
    line = []
    for name, got in runs.items():
        print(f"{name}: {got[0]['system_info']}")
        for role in ("small", "large"):
            d, n, _ = _differ(got[0], got[-1], role)
            print(f"  {role}: {d} of {n} answers differ between its own repeats")
            line.append(f"{name}_repeat_differ_{role}={d}")
    for role in ("small", "large"):
        d, n, gap = _differ(runs["installed"][0], runs["other"][0], role)
        fast = {k: min(float(r[f"{role}_seconds"]) for r in v) for k, v in runs.items()}  # type: ignore[arg-type]
        ratio = fast["other"] / fast["installed"]
        print(
            f"{role}: {d} of {n} answers differ between the builds; largest log-probability gap "
            f"of an identical answer {gap:.2e}; seconds {fast['installed']:.1f} installed, "
            f"{fast['other']:.1f} other (ratio {ratio:.2f})"
        )
        line += [f"builds_differ_{role}={d}/{n}", f"other_seconds_ratio_{role}={ratio:.2f}"]
    print(" ".join(line))


@command("portable")
def portable_command(
    other: Annotated[Path | None, typer.Option(help="Folder holding the second build.")] = None,
    questions: Annotated[int, typer.Option(help="Bundled questions drawn.", min=1)] = 40,
    repeat: Annotated[int, typer.Option(help="Times the builds alternate.", min=1)] = 2,
    threads: Annotated[int, typer.Option(help="Threads of each model.", min=1)] = 2,
    child: Annotated[bool, typer.Option("--child", hidden=True)] = False,
) -> None:
    """Do a run's samples depend on the kernels llama.cpp was built with? Two builds, one
    machine."""
    _run(other, questions, repeat, threads, child)
