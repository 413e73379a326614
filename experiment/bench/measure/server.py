"""The large model behind an OpenAI-compatible server: throughput at 1 and at 8 concurrent
requests, and whether its greedy answers equal the in-process ones.

    factqa bench server [--quick] [--server experiment|llama-server] [--binary PATH]
                           [--url URL] [--model qwen2.5-coder-1.5b] [--concurrency 8] [--write]

Starts the server on 127.0.0.1 (unless --url points at one already running):
- `experiment`: llama-cpp-python's server (`python -m experiment.generate.serve`, i.e.
  `llama_cpp.server` with repacking off). It answers one request at a time;
- `llama-server`: llama.cpp's own server (`--binary`), started with `-np CONCURRENCY` parallel
  slots and continuous batching.
Then asks large@1 (greedy) for every bundled question with 1 request in flight, then with
CONCURRENCY, and prints questions per second for each, their ratio, how many answers of the two
passes are identical, and how many equal the in-process answers of the bundled run
(`--compare RUN_DIR`, default outputs/run-44c0bd08ba). With `--write`, writes its section of
docs/RESULTS.md (`server-experiment` or `server-llama-server`); the last line is machine-readable.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from experiment.base.errors import ConfigError, ModelError
from experiment.base.files import read_cell
from experiment.bench.app import command
from experiment.bench.harness import RESULTS_MD, ROOT, WriteOpt, corpus, finish
from experiment.bench.sections import Record, measured, renders
from experiment.config import RunConfig
from experiment.evaluate.methods import REFERENCE
from experiment.generate.models.base import GREEDY, SamplingParams
from experiment.generate.models.openai_compat import OpenAIBackend
from experiment.generate.models.store import resolve
from experiment.generate.prompts import messages_for
from experiment.generate.sampling import article_order, derive_seed
from experiment.report.run import load_run
from experiment.report.tables import markdown_table

SECTION = "server"  # a record a server: server-experiment, server-llama-server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def in_process(run: Path) -> dict[str, str]:
    """The large model's answers in a run folder, by question id, as the model wrote them."""
    attempts = load_run(run).attempts
    large = attempts[attempts.role == "large"]
    # The export quotes text that starts like a formula ("-18%" is written "'-18%").
    return dict(zip(large.question_id, large.raw_text.map(read_cell), strict=True))


def start(
    kind: str, model: Path, binary: str, slots: int, log: Path
) -> tuple[subprocess.Popen, str]:  # type: ignore[type-arg]
    port = free_port()
    if kind == "llama-server":
        cmd = [binary, "-m", str(model), "--host", "127.0.0.1", "--port", str(port),
               "-np", str(slots), "-c", str(4096 * slots), "-t", "2", "--no-webui"]  # fmt: skip
        if os.environ.get("FACTQA_LLAMA_REPACK", "") != "1":
            cmd.append("--no-repack")  # the AMX repack crash, as in experiment/generate/serve.py
    else:
        cmd = [sys.executable, "-m", "experiment.generate.serve", "--model", str(model), "--host",
               "127.0.0.1", "--port", str(port), "--n_ctx", "4096", "--n_threads", "2"]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=log.open("wb"), stderr=subprocess.STDOUT, cwd=ROOT)
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + 300
    while True:
        try:
            urllib.request.urlopen(f"{url}/models", timeout=2).read(1 << 16)  # up, not whole
            return proc, url
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                raise ModelError(f"server did not start; see {log}") from None
            time.sleep(0.5)


@dataclass(frozen=True)
class Serving:
    """The options of `factqa bench server`: which server, how it is asked, what it is compared
    with, and whether the section is written."""

    server: str
    binary: str
    url: str
    model: str
    concurrency: int
    quick: bool
    compare: Path
    write: bool


def _run(opts: Serving) -> None:
    cfg = RunConfig()
    articles, questions = corpus()
    questions = article_order(questions)
    if opts.quick:
        questions = questions[:24]
    params = SamplingParams(GREEDY.temperature, GREEDY.top_p, GREEDY.top_k, cfg.max_tokens)
    log = Path(tempfile.mkdtemp()) / "server.log"
    proc = None
    url = opts.url
    if not url:
        proc, url = start(opts.server, resolve(opts.model).path, opts.binary, opts.concurrency, log)
    try:
        passes = {}
        for width in (1, opts.concurrency):
            backend = OpenAIBackend(f"openai:{opts.model}@{url}", concurrency=width)

            def ask(q, backend=backend):  # type: ignore[no-untyped-def]
                msgs = messages_for(articles[q.article_id], q)
                return backend.generate(msgs, params, [derive_seed(cfg.seed, q.id, 0)])[0]

            ask(questions[0])  # warm the server
            t0 = time.perf_counter()
            with ThreadPoolExecutor(max_workers=width) as pool:
                out = list(pool.map(ask, questions))
            passes[width] = (time.perf_counter() - t0, [g.text for g in out])
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=60)

    (t1, a1), (tn, an) = passes[1], passes[opts.concurrency]
    figures: dict[str, Any] = {
        "model": opts.model, "server": opts.server, "url": opts.url,
        "concurrency": opts.concurrency, "questions": len(questions), "seconds": [t1, tn],
        "identical_passes": sum(x == y for x, y in zip(a1, an, strict=True)),
        "compared": opts.compare.name, "equal_in_process": None, "differ": [],
    }  # fmt: skip
    if (opts.compare / "attempts.csv").exists():
        ref = in_process(opts.compare)
        pairs = [(q.id, ref.get(q.id), a) for q, a in zip(questions, a1, strict=True)]
        figures["equal_in_process"] = sum(mine == theirs for _, mine, theirs in pairs)
        figures["differ"] = [list(p) for p in pairs if p[1] != p[2]]
    command_line = f"factqa bench server{' --quick' if opts.quick else ''} --server {opts.server}"
    record = measured(f"{SECTION}-{opts.server}", command_line + " --write", figures)
    finish(RESULTS_MD, record, opts.write)


def line(f: dict[str, Any]) -> str:
    """The machine-readable line."""
    n, (t1, tn), c = f["questions"], f["seconds"], f["concurrency"]
    equal = f["equal_in_process"]
    return (
        f"qps_1={n / t1:.3f} qps_{c}={n / tn:.3f} ratio={t1 / tn:.2f} "
        f"identical_passes={f['identical_passes']}/{n} "
        f"equal_in_process={'na' if equal is None else f'{equal}/{n}'}"
    )


@renders(f"{SECTION}-*", "cost")
def section(record: Record) -> str:
    """docs/RESULTS.md's `server-SERVER` section (one a server) from its record."""
    f = record.figures
    n, (t1, tn), c = f["questions"], f["seconds"], f["concurrency"]
    behind = f["url"] or (
        "llama-cpp-python server (`python -m experiment.generate.serve`)"
        if f["server"] == "experiment"
        else f"llama.cpp `llama-server -np {c}` (continuous batching)"
    )
    equal = f["equal_in_process"]
    differ = [f"`{q}`: in-process `{mine}`, server `{theirs}`" for q, mine, theirs in f["differ"]]
    return "\n".join(
        [
            f"### {f['model']} behind {behind}",
            "",
            f"Command: `{record.command}`; {n} bundled questions, {REFERENCE} greedy, 2 CPU "
            f"threads (commit `{record.commit}`, {record.date}).",
            "",
            *markdown_table(
                ["requests in flight", "wall s", "questions / s"],
                [[1, f"{t1:.1f}", f"{n / t1:.3f}"], [c, f"{tn:.1f}", f"{n / tn:.3f}"]],
            ),
            "",
            f"Throughput ratio {c} / 1: **{t1 / tn:.2f}x**. Answers identical between the two "
            f"passes: {f['identical_passes']}/{n}. Equal to the in-process answers of "
            f"`{f['compared']}`: {'not compared' if equal is None else f'{equal}/{n}'}.",
            *(["", "Differing answers: " + "; ".join(differ) + "."] if differ else []),
            "",
            f"`{line(f)}`",
        ]
    )


@command("server")
def server_command(
    server: Annotated[str, typer.Option(help="experiment or llama-server.")] = "experiment",
    binary: Annotated[str, typer.Option(help="llama-server's binary.")] = "llama-server",
    url: Annotated[str, typer.Option(help="A server already running (default: start one).")] = "",
    model: Annotated[str, typer.Option(help="The model served.")] = RunConfig.large,
    concurrency: Annotated[int, typer.Option(help="Requests at once.", min=1)] = 8,
    quick: Annotated[
        bool, typer.Option("--quick", help="24 questions instead of all 150.")
    ] = False,
    compare: Annotated[
        Path,
        typer.Option(
            help="The in-process run to compare with.", show_default="outputs/run-44c0bd08ba"
        ),
    ] = ROOT / "outputs" / "run-44c0bd08ba",
    write: WriteOpt = False,
) -> None:
    """The large model behind an OpenAI-compatible server: throughput at 1 and at 8
    concurrent requests, and whether its greedy answers equal the in-process ones."""
    if server not in ("experiment", "llama-server"):
        raise ConfigError(f"--server {server}: give experiment or llama-server", field="server")
    _run(Serving(server, binary, url, model, concurrency, quick, compare, write))
