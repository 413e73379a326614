"""The server backend against a real llama-cpp-python server (`llama_cpp.server`) on loopback,
serving the tiny SmolLM2 model: a run end to end, and greedy answers equal to in-process ones."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.report.run import load_run
from experiment.runner import llama_factory

from .conftest import run_args

pytestmark = pytest.mark.model


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(tiny_model: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    log = (tmp_path_factory.mktemp("server") / "server.log").open("w+b")  # a pipe would fill up
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "experiment.generate.serve",
            "--model",
            str(tiny_model),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            "4096",
            "--n_threads",
            "2",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{url}/models", timeout=2).read()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    raise RuntimeError(log.read().decode()[-2000:]) from None
                time.sleep(0.5)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        log.close()


@pytest.fixture(autouse=True)
def real_factory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "_factory", lambda: llama_factory)


def test_run_against_a_real_llama_cpp_server(server: str, corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    spec = f"openai:smollm2@{server}"
    res = CliRunner().invoke(
        cli.app, run_args(*corpus, spec, spec, 3, tmp_path, "t", "--limit", "3")
    )
    assert res.exit_code == 0, res.output
    a = pd.read_csv(tmp_path / "t" / "attempts.csv", keep_default_na=False)
    assert len(a) == 3 * (3 + 1)
    assert not a.reason.str.startswith("model error").any()
    assert (a.prompt_tokens > 100).all() and (a.completion_tokens > 0).all()  # from usage
    m = json.loads((tmp_path / "t" / "manifest.json").read_text())
    assert m["models"]["small"]["fingerprint"] == f"openai:smollm2@{server}"
    # llama-cpp-python's server ignores n: k samples took k requests per question
    assert m["models"]["small"]["requests"] == 3 * 3


def test_greedy_answers_equal_in_process(
    server: str, tiny_model: Path, corpus, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    spec = f"openai:smollm2@{server}"
    local = str(tiny_model)
    for name, large in (("remote", spec), ("local", local)):
        args = run_args(*corpus, local, large, 1, tmp_path, name, "--backend", "llama")
        assert CliRunner().invoke(cli.app, args).exit_code == 0
    answers = [
        pd.read_csv(tmp_path / n / "attempts.csv", keep_default_na=False).query("role == 'large'")
        for n in ("remote", "local")
    ]
    assert list(answers[0].raw_text) == list(answers[1].raw_text)
    assert len(answers[0]) == 5


def test_scores_from_the_server_agree_with_in_process(server: str, tiny_model: Path) -> None:
    from experiment.generate.models.llama import LlamaBackend
    from experiment.generate.models.openai_compat import OpenAIBackend
    from experiment.generate.models.store import ModelFile

    from .test_scoring import TOLERANCE

    # llama-cpp-python's server ranks the vocabulary for every echoed token: long waits
    remote = OpenAIBackend(f"openai:smollm2@{server}", timeout=300)
    local = LlamaBackend(ModelFile(tiny_model.stem, tiny_model, "test"), n_ctx=4096)
    texts = ["$4.2 million", "unknown", "12"]
    # short prompts: the server ranks the whole vocabulary for every echoed token, so a bundled
    # article's prompt takes about a minute a request here
    article = "Alpha launched the Widget on 12 March 2024. It costs $250 and weighs 1.2 kg."
    prompts = [
        [
            {"role": "system", "content": "Reply with the figure or date only."},
            {"role": "user", "content": f"Article: Alpha\n\n{article}\n\nQuestion: {asked}"},
        ]
        for asked in ("How much does the Widget cost?", "When was the Widget launched?")
    ]
    for messages in prompts:
        there, here = remote.score(messages, texts), local.score(messages, texts)
        assert there.tokens == here.tokens
        for a, b, n in zip(there.logprobs, here.logprobs, here.tokens, strict=True):
            assert abs(a - b) < TOLERANCE * n, (there.logprobs, here.logprobs)
    # per prompt: its template, the prompt echoed alone, one echo per candidate
    assert remote.counters()["requests"] == 2 * (2 + len(texts))


def test_the_checks_of_a_run_come_through_the_server(server: str, corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    spec = f"openai:smollm2@{server}"
    args = run_args(*corpus, spec, spec, 3, tmp_path, "c", "--server-timeout", "300")
    res = CliRunner().invoke(cli.app, args)
    assert res.exit_code == 0, res.output
    summary = pd.read_csv(tmp_path / "c" / "summary.csv")
    assert {"large-checks@3", "large-checks-evidence@3"} <= set(summary.method)
    checks = load_run(tmp_path / "c").checks
    assert (checks.error == "").all()
