"""The OpenAI-compatible backend against a scripted server on loopback: faults, n, key, records."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.base.errors import ModelError
from experiment.generate.models.base import GREEDY, SamplingParams
from experiment.generate.models.openai_compat import OpenAIBackend, ServerSpec
from experiment.runner import llama_factory

from .conftest import LARGE_ANSWERS, SMALL_ANSWERS, run_args
from .fake_server import ScriptedServer

MESSAGES = [{"role": "user", "content": "Article: x\n\nQuestion: How many units were sold?"}]


def by_keyword(answers):  # type: ignore[no-untyped-def]
    def answer(question: str) -> str:
        for key, value in answers.items():
            if key in question:
                return value if isinstance(value, str) else value[0]
        return "unknown"

    return answer


@pytest.fixture(autouse=True)
def real_factory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "_factory", lambda: llama_factory)


def test_spec_forms() -> None:
    assert ServerSpec.parse("openai:m@http://h:1") == ServerSpec("m", "http://h:1/v1")
    assert ServerSpec.parse("openai:org/m:7b@https://h/v1/") == ServerSpec(
        "org/m:7b", "https://h/v1"
    )
    with pytest.raises(ModelError, match="openai:MODEL@URL"):
        ServerSpec.parse("openai:no-url")


def test_run_survives_500_429_malformed_and_timeout(corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    faults = [500, 429, "malformed", "timeout"]
    with ScriptedServer(by_keyword(SMALL_ANSWERS), faults) as srv:
        spec = f"openai:fake@{srv.url}"
        args = run_args(
            *corpus,
            spec,
            spec,
            2,
            tmp_path,
            "t",
            "--limit",
            "3",
            "--server-timeout",
            "0.5",
            "--server-retries",
            "4",
        )
        res = CliRunner().invoke(cli.app, args)
    assert res.exit_code == 0, res.output
    a = pd.read_csv(tmp_path / "t" / "attempts.csv", keep_default_na=False)
    assert len(a) == 3 * (2 + 1) and not a.reason.str.contains("error").any()
    m = json.loads((tmp_path / "t" / "manifest.json").read_text())
    small = m["models"]["small"]
    assert small["retried"] == 4  # one retry per fault, within the bound
    assert small["fingerprint"] == f"openai:fake@{srv.url}"
    assert (a.prompt_tokens == 120).all() and (a.completion_tokens == 4).all()  # from usage


def test_server_that_never_answers_fails_with_a_clear_message(corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with ScriptedServer(by_keyword(SMALL_ANSWERS)) as srv:
        srv.always = 503
        spec = f"openai:fake@{srv.url}"
        args = run_args(*corpus, spec, spec, 1, tmp_path, "t", "--server-retries", "2")
        res = CliRunner().invoke(cli.app, args)
        requests = len(srv.bodies)
    assert res.exit_code == 1
    assert "failed on 5 questions in a row" in res.output
    assert "did not answer after 3 tries: HTTP 503" in res.output
    assert requests == 5 * 3  # never more tries than the bound


def test_connection_refused_is_reported(tmp_path: Path) -> None:
    backend = OpenAIBackend("openai:m@http://127.0.0.1:9/v1", retries=1, backoff=0.01)
    with pytest.raises(ModelError, match=r"did not answer after 2 tries: no answer \("):
        backend.generate(MESSAGES, GREEDY, [1])


def test_client_errors_are_not_retried() -> None:
    with ScriptedServer(by_keyword(LARGE_ANSWERS), [404]) as srv:
        backend = OpenAIBackend(f"openai:m@{srv.url}", retries=3)
        with pytest.raises(ModelError, match=r"HTTP 404.*check the model name"):
            backend.generate(MESSAGES, GREEDY, [1])
        assert len(srv.bodies) == 1


def test_every_sample_is_its_own_seeded_request_even_where_n_is_honoured() -> None:
    params = SamplingParams(temperature=0.7)
    for honour in (True, False):
        with ScriptedServer(by_keyword(SMALL_ANSWERS), honour_n=honour) as srv:
            backend = OpenAIBackend(f"openai:m@{srv.url}", concurrency=2)
            out = backend.generate(MESSAGES, params, [11, 12, 13, 14])
            assert len(out) == 4
            assert sorted(b["seed"] for b in srv.bodies) == [11, 12, 13, 14]
            assert all("n" not in b for b in srv.bodies)
            assert srv.max_in_flight <= 2


def test_concurrency_is_bounded_across_questions(corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with ScriptedServer(by_keyword(SMALL_ANSWERS)) as srv:
        srv.delay = 0.05
        spec = f"openai:fake@{srv.url}"
        args = run_args(*corpus, spec, spec, 3, tmp_path, "t", "--server-concurrency", "3")
        assert CliRunner().invoke(cli.app, args).exit_code == 0
        assert 2 <= srv.max_in_flight <= 3


def test_api_key_is_sent_and_never_written(corpus, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    secret = "sk-test-DO-NOT-WRITE-0123456789"
    monkeypatch.setenv("FACTQA_API_KEY", secret)
    with ScriptedServer(by_keyword(SMALL_ANSWERS)) as srv:
        spec = f"openai:fake@{srv.url}"
        res = CliRunner().invoke(cli.app, run_args(*corpus, spec, spec, 2, tmp_path, "t"))
        assert res.exit_code == 0
        assert all(h.get("Authorization") == f"Bearer {secret}" for h in srv.headers)
    assert secret not in res.output
    for path in (tmp_path / "t").rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path
    assert secret.encode() not in (tmp_path / ".cache" / "generations.sqlite").read_bytes()


def test_toml_config_can_name_a_server(corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with ScriptedServer(by_keyword(LARGE_ANSWERS)) as srv:
        cfg = tmp_path / "run.toml"
        cfg.write_text(
            f'[run]\nlarge = "openai:fake@{srv.url}"\nsmall = "openai:fake@{srv.url}"\n'
            "server_retries = 1\nk = 2\n"
        )
        args = [
            "run",
            "--config",
            str(cfg),
            "--articles",
            str(corpus[0]),
            "--questions",
            str(corpus[1]),
            "--out",
            str(tmp_path),
            "--run-id",
            "t",
        ]
        res = CliRunner().invoke(cli.app, args)
    assert res.exit_code == 0, res.output
    m = json.loads((tmp_path / "t" / "manifest.json").read_text())
    assert m["models"]["large"]["fingerprint"].startswith("openai:fake@http://127.0.0.1")


def test_the_default_settings_give_up_on_a_silent_server_within_about_a_minute() -> None:
    from experiment.config import RunConfig
    from experiment.generate.models.openai_compat import worst_wait

    cfg = RunConfig()
    waited = worst_wait(cfg.server_timeout, cfg.server_retries)
    assert 30 <= waited <= 65, waited  # every try's timeout and the longest pauses between
    assert worst_wait(120.0, 4) > 600  # the old defaults: ten minutes for one request
    assert worst_wait(1.0, 2, backoff=0.5) == pytest.approx(3 * 1.0 + (0.5 + 1.0) * 1.25)


def test_a_hung_server_fails_fast_naming_the_request_and_the_time_waited(caplog) -> None:  # type: ignore[no-untyped-def]
    import time

    with ScriptedServer(by_keyword(SMALL_ANSWERS)) as srv:
        srv.always = "timeout"  # every request outlasts the client's timeout
        backend = OpenAIBackend(
            f"openai:m@{srv.url}", timeout=0.2, retries=1, concurrency=2, backoff=0.01
        )
        t0 = time.perf_counter()
        with caplog.at_level("WARNING", logger="factqa"), pytest.raises(ModelError) as e:
            backend.generate(MESSAGES, SamplingParams(temperature=0.7), list(range(8)))
        took = time.perf_counter() - t0
        sent = len(srv.bodies)
    said = str(e.value)
    assert "did not answer after 2 tries: no answer within 0.2 s (timed out)" in said
    assert "'How many units were sold?', seed 0" in said and "s in all" in said
    assert "raise --server-timeout" in said
    # once one request ran out of tries the others are not sent: two in flight, two tries each
    assert sent <= 2 * 2, sent
    assert took < 1.5, took  # not 8 requests x 2 tries x 0.2 s one after another
    retried = [r.getMessage() for r in caplog.records if "timed out" in r.getMessage()]
    assert retried and all("How many units were sold?" in m for m in retried)
    assert all("try 2 of 2" in m for m in retried)


def test_a_server_found_silent_is_not_sent_more_requests() -> None:
    with ScriptedServer(by_keyword(SMALL_ANSWERS), ["timeout", "timeout"]) as srv:
        backend = OpenAIBackend(f"openai:m@{srv.url}", timeout=0.2, retries=1, backoff=0.01)
        with pytest.raises(ModelError, match="timed out"):
            backend.generate(MESSAGES, GREEDY, [1])
        with pytest.raises(ModelError, match=r"is not answering \(no answer within 0.2 s") as e:
            backend.generate(MESSAGES, GREEDY, [2])  # the server answers again, but is not asked
        assert len(srv.bodies) == 2 and "seed 2" in str(e.value)
        assert OpenAIBackend(f"openai:m@{srv.url}").generate(MESSAGES, GREEDY, [3])[0].text


def test_a_hung_server_stops_the_run_after_one_round_of_timeouts(corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import time

    with ScriptedServer(by_keyword(SMALL_ANSWERS)) as srv:
        srv.always = "timeout"
        spec = f"openai:fake@{srv.url}"
        args = run_args(
            *corpus, spec, spec, 3, tmp_path, "t", "--server-timeout", "0.2",
            "--server-retries", "1",
        )  # fmt: skip
        t0 = time.perf_counter()
        res = CliRunner().invoke(cli.app, args)
        took = time.perf_counter() - t0
        sent = len(srv.bodies)
    assert res.exit_code == 1
    said = " ".join(res.output.split())
    assert "failed on 5 questions in a row" in said and "is not answering" in said
    assert "timed out" in said and "try 2 of 2" in said
    assert sent <= 4 * 2, sent  # the first requests in flight, two tries each; no more
    assert took < 5, took


def test_a_hung_server_carrying_both_models_stops_the_run_once(corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    # issue 43: the large model waited a second round of timeouts on the server the small model
    # had found hung (124 s with the defaults, not "about a minute")
    with ScriptedServer(by_keyword(SMALL_ANSWERS)) as srv:
        srv.always = "timeout"
        spec = f"openai:fake@{srv.url}"
        # 4 questions: fewer than the 5 failures in a row that stop a model on their own
        args = run_args(
            *corpus, spec, spec, 3, tmp_path, "t", "--server-timeout", "0.2",
            "--server-retries", "1", "--limit", "4",
        )  # fmt: skip
        res = CliRunner().invoke(cli.app, args)
        greedy = [b for b in srv.bodies if b.get("temperature") == 0]
    assert res.exit_code == 1
    assert greedy == []  # the large model's requests were never sent
