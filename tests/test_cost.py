"""Machine-independent cost: evaluated tokens and model FLOPs, checked against llama.cpp's own
counters for the real tiny model; the formula, the cache columns and the summary's ratio."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from experiment.base.types import Generation
from experiment.generate.cache import GenerationCache, cache_key
from experiment.generate.models.base import GREEDY, SamplingParams
from experiment.generate.models.cost import ModelShape, shape_of
from experiment.generate.models.openai_compat import evaluated_tokens

SHAPE = ModelShape(
    n_layer=2, d_model=4, d_attention=4, n_vocab=10, parameters=200, nonembedding=100
)


def test_flops_by_hand() -> None:
    # two tokens at positions 0 and 1 (1 and 2 keys), one logit row
    expected = 2 * 100 * 2 + 4 * 2 * (1 + 2) * 4 + 2 * 4 * 10 * 1
    assert SHAPE.flops(range(2), 1) == expected
    assert SHAPE.flops([], 0) == 0.0
    assert SHAPE.flops([5], 1) > SHAPE.flops([0], 1)  # a later token attends more keys


def test_server_evaluated_tokens() -> None:
    assert evaluated_tokens({"timings": {"prompt_n": 12, "predicted_n": 3}}) == 15
    assert evaluated_tokens({"usage": {"prompt_tokens": 100, "completion_tokens": 4}}) == 104
    assert evaluated_tokens({}) is None
    for bad in (-1, True, float("inf"), "x", None, [3]):  # a count the server got wrong: unknown
        assert evaluated_tokens({"timings": {"prompt_n": bad, "predicted_n": 3}}) is None


def test_the_cache_keeps_the_cost_and_migrates_an_old_file(tmp_path: Path) -> None:
    old = tmp_path / "old.sqlite"
    db = sqlite3.connect(old)
    db.execute(
        "CREATE TABLE generations (key TEXT PRIMARY KEY, model TEXT NOT NULL, text TEXT NOT NULL,"
        " prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, seconds REAL NOT"
        " NULL, finish_reason TEXT NOT NULL)"
    )
    db.execute("INSERT INTO generations VALUES ('k0', 'm', '7', 10, 1, 0.1, 'stop')")
    db.commit()
    db.close()
    cache = GenerationCache(old)
    got = cache.get("k0")
    assert got is not None and got.evaluated_tokens is None and got.flops is None
    key = cache_key("f", [{"role": "user", "content": "q"}], GREEDY, 0)
    cache.put_many("m", [(key, Generation("7", 10, 1, 0.1, "stop", -0.5, 11, 1234.0))])
    again = cache.get(key)
    assert again is not None and (again.evaluated_tokens, again.flops) == (11, 1234.0)


def _perf(ctx) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """llama.cpp's counters: tokens of multi-token batches, and of one-token batches. It reports
    max(1, n) for each (llama_perf_context), so a 1 may stand for none."""
    import llama_cpp

    perf = llama_cpp.llama_perf_context(ctx)
    return int(perf.n_p_eval), int(perf.n_eval)


def _counted(ctx) -> set[int]:  # type: ignore[no-untyped-def]
    """The totals llama.cpp's counters allow since their last reset: a reported 1 of one-token
    batches is 0 or 1; of multi-token batches it is 0 (they add at least 2 at a time)."""
    batched, single = _perf(ctx)
    return {(0 if batched == 1 else batched) + s for s in ({0, 1} if single == 1 else {single})}


def _matches(spent: int, ctx) -> bool:  # type: ignore[no-untyped-def]
    return spent in _counted(ctx)


@pytest.mark.model
def test_the_shape_is_the_one_llama_cpp_loads(tiny_model: Path) -> None:
    import llama_cpp as L

    from experiment.generate.models.batched import BatchedLlamaBackend
    from experiment.generate.models.catalog import TEST_MODEL
    from experiment.generate.models.store import resolve

    backend = BatchedLlamaBackend(resolve(TEST_MODEL), n_seq_max=2)
    shape = shape_of(resolve(TEST_MODEL).path)
    assert backend.shape == shape
    assert shape.n_layer == L.llama_model_n_layer(backend._model)
    assert shape.d_model == L.llama_model_n_embd(backend._model)
    assert shape.n_vocab == L.llama_vocab_n_tokens(backend._vocab)
    assert shape.parameters == L.llama_model_n_params(backend._model)
    assert 0 < shape.nonembedding < shape.parameters


@pytest.mark.model
def test_batched_counts_equal_llama_cpp_counters_and_a_cached_prefix_is_not_counted(
    prompts,  # type: ignore[no-untyped-def]
) -> None:
    from experiment.generate.models.batched import BatchedLlamaBackend
    from experiment.generate.models.catalog import TEST_MODEL
    from experiment.generate.models.store import resolve

    backend = BatchedLlamaBackend(resolve(TEST_MODEL), n_seq_max=4)
    params = SamplingParams(temperature=0.8, max_tokens=8)
    backend.reset_perf()
    alone = backend.generate(prompts[0], params, [7])[0]  # one sequence: its steps are 1-token
    batched, single = _perf(backend._ctx)
    assert single >= 2 and alone.evaluated_tokens == batched + single
    # from an empty cache: positions 0.. in order, logits for the prompt's last token and each step
    steps = alone.evaluated_tokens - alone.prompt_tokens
    assert alone.flops == backend.shape.flops(range(alone.evaluated_tokens), 1 + steps)  # type: ignore[union-attr]
    backend.reset()
    backend.reset_perf()
    first = backend.generate(prompts[0], params, [1, 2, 3])
    spent = sum(g.evaluated_tokens or 0 for g in first)
    assert _matches(spent, backend._ctx)  # llama.cpp counted exactly the tokens we count
    assert first[0].evaluated_tokens >= first[0].prompt_tokens  # type: ignore[operator]
    assert all(g.flops and g.flops > 0 for g in first)
    backend.reset_perf()
    second = backend.generate(prompts[1], params, [1, 2, 3])
    assert _matches(sum(g.evaluated_tokens or 0 for g in second), backend._ctx)
    # the article is cached: only the question and the answers were evaluated
    assert second[0].evaluated_tokens < 0.5 * second[0].prompt_tokens  # type: ignore[operator]
    greedy = backend.generate(prompts[1], GREEDY, [0, 1, 2])
    assert [g.evaluated_tokens for g in greedy[1:]] == [0, 0]  # one answer, decoded once


@pytest.mark.model
def test_speculative_counts_its_verification_batches_and_its_drafter(prompts) -> None:  # type: ignore[no-untyped-def]
    from experiment.generate.models.batched import BatchedLlamaBackend
    from experiment.generate.models.catalog import TEST_MODEL
    from experiment.generate.models.store import resolve

    model = resolve(TEST_MODEL)
    params = SamplingParams(temperature=0.0, max_tokens=12)
    lookup = BatchedLlamaBackend(model, n_seq_max=1, speculative="lookup")
    lookup.reset_perf()
    one, copy = lookup.generate(prompts[0], params, [0, 1])
    assert _matches(one.evaluated_tokens, lookup._ctx) and copy.evaluated_tokens == 0  # type: ignore[arg-type]
    drafter = BatchedLlamaBackend(model, n_seq_max=1)
    draft = BatchedLlamaBackend(model, n_seq_max=1, speculative="draft", drafter=drafter)
    draft.reset_perf()
    drafter.reset_perf()
    got = draft.generate(prompts[0], params, [0])[0]
    own = {a + b for a in _counted(draft._ctx) for b in _counted(drafter._ctx)}
    assert got.evaluated_tokens in own  # the large model's batches and the drafter's tokens
    assert got.flops and got.flops > one.flops  # type: ignore[operator]


@pytest.mark.model
def test_sequential_counts_equal_llama_cpp_counters_and_reuse_the_prefix(prompts) -> None:  # type: ignore[no-untyped-def]
    import math

    from experiment.generate.models.catalog import TEST_MODEL
    from experiment.generate.models.llama import LlamaBackend
    from experiment.generate.models.store import resolve

    backend = LlamaBackend(resolve(TEST_MODEL))  # fresh: llama.cpp's counters are at 0
    ctx = backend._llm._ctx.ctx
    params = SamplingParams(temperature=0.8, max_tokens=8)
    calls = [(prompts[0], params), (prompts[0], params), (prompts[1], params), (prompts[2], GREEDY)]
    got = []
    for messages, p in calls:
        backend.reset_perf()
        one = backend.generate(messages, p, [1])[0]
        assert one.evaluated_tokens is not None and _matches(one.evaluated_tokens, ctx)
        got.append(one)
    first, again, second, _ = got
    # The first reads the whole prompt (the first call after loading, where a difference of
    # llama.cpp's counters would miss a token), then each answer token but the last (not
    # evaluated when the answer ends at max_tokens or a stop string).
    decoded = first.evaluated_tokens - first.prompt_tokens  # type: ignore[operator]
    assert first.completion_tokens - 1 <= decoded <= first.completion_tokens
    rows = math.ceil(first.prompt_tokens / backend._llm.n_batch) + decoded
    shape = shape_of(resolve(TEST_MODEL).path)
    assert first.flops == shape.flops(range(first.evaluated_tokens), rows)  # type: ignore[arg-type]
    # the same prompt again: one prompt token replayed for fresh logits, then its own answer
    assert again.completion_tokens <= again.evaluated_tokens <= again.completion_tokens + 1  # type: ignore[operator]
    assert second.evaluated_tokens is not None
    assert second.evaluated_tokens < 0.5 * second.prompt_tokens  # the article was cached


def test_a_run_reports_flops_per_method_and_the_machine(corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import pandas as pd

    from experiment.config import RunConfig
    from experiment.record.manifest import read
    from experiment.runner import run_experiment

    from .conftest import LARGE_ANSWERS, SMALL_ANSWERS, FakeBackend, keyword_script

    articles, questions = corpus
    fakes = {
        "s": FakeBackend("s", keyword_script(SMALL_ANSWERS), flops=10.0),
        "l": FakeBackend("l", keyword_script(LARGE_ANSWERS), flops=50.0),
    }

    def factory(spec: str, _cfg: object) -> FakeBackend:
        return fakes[spec]

    cfg = RunConfig(
        articles=articles, questions=questions, small="s", large="l", k=4, out=tmp_path / "o"
    )
    result = run_experiment(cfg, factory)
    summary = pd.read_csv(result.run_dir / "summary.csv").set_index("method")
    assert summary.loc["large@1", "flops_vs_large"] == 1.0
    assert summary.loc["small-verified@4", "flops_vs_large"] == pytest.approx(4 * 10 / 50)
    assert summary.loc["small@1", "flops_vs_large"] == pytest.approx(10 / 50)
    attempts = pd.read_csv(result.run_dir / "attempts.csv")
    assert set(attempts.flops) == {10.0, 50.0} and set(attempts.evaluated_tokens) == {103}
    m = read(result.run_dir / "manifest.json")
    assert m.cost["small"]["flops_all"] == 10.0 * 4 * 5 and m.cost["large"]["flops_run"] == 250
    assert m.machine.cpu_count >= 1 and m.machine.cpu
    assert len(m.load.start) == 3 and len(m.load.end) == 3
    assert m.history[-1].cpu_count == m.machine.cpu_count and m.history[-1].load == m.load
    from experiment.report.html import render_html
    from experiment.report.markdown import readme_section

    where = f"{m.machine.cpu_count} CPU cores ({m.machine.cpu}"
    assert f"Machine: {where}" in render_html(result.run_dir, articles)
    assert f"wall time and {m.history[-1].cpu_seconds:,.0f} s of CPU on {where}" in (
        readme_section(result.run_dir)
    ) or f"wall time on {where}" in readme_section(result.run_dir)
    again = run_experiment(cfg, factory)  # from the cache: the cost it had
    m2 = read(again.run_dir / "manifest.json")
    assert m2.cost["small"]["flops_run"] == 0 and m2.cost["small"]["flops_all"] == 200


def _fake_run(corpus, tmp_path: Path, k: int, small_flops=None, large_flops=None):  # type: ignore[no-untyped-def]
    """A run of the scripted models over the fixture corpus, each sample costing the FLOPs
    given (None: the fake reports no cost)."""
    from experiment.config import RunConfig
    from experiment.runner import run_experiment

    from .conftest import LARGE_ANSWERS, SMALL_ANSWERS, FakeBackend, keyword_script

    articles, questions = corpus
    fakes = {
        "s": FakeBackend("s", keyword_script(SMALL_ANSWERS), flops=small_flops),
        "l": FakeBackend("l", keyword_script(LARGE_ANSWERS), flops=large_flops),
    }
    cfg = RunConfig(
        articles=articles, questions=questions, small="s", large="l", k=k, out=tmp_path / "o"
    )
    return run_experiment(cfg, lambda spec, _cfg: fakes[spec])


def test_the_curves_cost_what_their_first_k_samples_cost(corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import pandas as pd

    from experiment.report.plots import cost_curves
    from experiment.report.run import load_run

    result = _fake_run(corpus, tmp_path, k=4, small_flops=10.0, large_flops=50.0)
    curves = pd.read_csv(result.run_dir / "curves.csv")
    attempts = pd.read_csv(result.run_dir / "attempts.csv")
    small = attempts[attempts.role == "small"]
    for k in (1, 2, 4):  # 5 questions, each sample 10 FLOPs and 0.01 s
        row = curves[(curves.method == "small-verified") & (curves.k == k)].iloc[0]
        first = small[small.sample_index < k]
        assert row.flops == pytest.approx(first.flops.sum()) == pytest.approx(5 * k * 10.0)
        assert row.seconds == pytest.approx(first.seconds.sum())
    summary = pd.read_csv(result.run_dir / "summary.csv").set_index("method")
    at_k = curves[(curves.method == "small-selected") & (curves.k == 4)].iloc[0]
    assert at_k.flops == pytest.approx(summary.loc["small-selected@4", "flops"])
    plotted = cost_curves(load_run(result.run_dir))
    families = ["small-verified", "small-selected"]
    assert set(plotted.method) == set(families)
    assert plotted[plotted.method == "small-verified"].flops_per_question.tolist() == (
        pytest.approx([10.0, 20.0, 30.0, 40.0])
    )
    from experiment.report.markdown import run_section

    section = run_section(result.run_dir)
    assert "Accuracy against cost, k = 1..K" in section
    verified, selected = (curves[curves.method == f].set_index("k").accuracy for f in families)
    for k in (1, 4):  # k samples of 10 FLOPs against one large answer of 50, per question
        assert f"| {k} | {verified[k]:.3f} | {selected[k]:.3f} | {k * 10 / 50:.2f} |" in section


def test_a_run_without_the_curves_cost_plots_no_curve(corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A run folder written before curves.csv kept the cost still reports and plots."""
    from dataclasses import replace

    import pandas as pd

    from experiment.record.migrate import migrate
    from experiment.report.plots import cost_curves, plot_files
    from experiment.report.run import load_run

    run_dir = _fake_run(corpus, tmp_path, k=3).run_dir
    curves = pd.read_csv(run_dir / "curves.csv")
    assert curves.flops.isna().all()  # the fakes report no FLOPs: unknown, not 0
    run = load_run(run_dir)
    old = {"curves.csv": run.curves.drop(columns=["flops", "seconds"])}  # a format-0 folder's
    run = replace(run, curves=migrate({}, old)[1]["curves.csv"])
    assert cost_curves(run).empty
    assert (tmp_path / "p" / "cost_vs_accuracy.png") in plot_files(run, tmp_path / "p")


def test_busy_warns_only_when_others_competed() -> None:
    from experiment.report.machine import busy

    assert busy([0.1, 0.1, 0.1], [2.0, 1.0, 0.5], 2) == ""
    assert "busy" in busy([1.5, 1.0, 1.0], [2.0, 1.0, 0.5], 2)
    assert "competed" in busy([0.1, 0.1, 0.1], [3.1, 1.0, 0.5], 2)


def test_the_machine_names_llama_cpp_build() -> None:
    import types

    from experiment.report.machine import _ggml_build, machine_facts

    pytest.importorskip("llama_cpp")
    facts = machine_facts(2)
    assert facts["system_info"]  # the instruction sets its kernels use
    assert facts["ggml_version"] and facts["ggml_commit"]
    assert _ggml_build(types.SimpleNamespace()) == {}  # a library without them: left out


def test_the_report_says_where_the_first_full_run_ran() -> None:
    from experiment.record.manifest import RunEntry
    from experiment.report.markdown import _warned, _where

    when = {"started": "2024-01-01T00:00:00", "wall_seconds": 9, "cached_attempts": 0}
    first = RunEntry.of(when | {"git_commit": "abc"})  # recorded before runs kept the facts
    entry = {
        "cpu_seconds": 1250.4,
        "cpu": "Some CPU",
        "cpu_count": 8,
        "threads": 8,
        "load": {"start": [0.1, 0.2, 0.3], "end": [7.9, 5.0, 3.0]},
        "load_warning": "",
    }
    assert _where(RunEntry.of(first.as_json() | entry)) == (
        " and 1,250 s of CPU on 8 CPU cores (Some CPU; 8 threads; 1-minute load 0.10 at the"
        " start, 7.90 at the end)"
    )
    assert _where(first) == "" and _warned(first) == ""  # no facts kept: no claim
    with pytest.raises(AttributeError):  # not what a run writes: the manifest is refused
        RunEntry.of(first.as_json() | {"cpu_count": "8", "load": [1]})
    assert _warned(RunEntry.of(first.as_json() | {"load_warning": "busy"})) == " Warning: busy."


def test_a_ratio_with_an_unknown_cost_is_blank(corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    import pandas as pd

    from experiment.config import RunConfig
    from experiment.runner import run_experiment

    from .conftest import LARGE_ANSWERS, SMALL_ANSWERS, FakeBackend, keyword_script

    articles, questions = corpus
    fakes = {  # a server's small model: its FLOPs are not known here
        "s": FakeBackend("s", keyword_script(SMALL_ANSWERS)),
        "l": FakeBackend("l", keyword_script(LARGE_ANSWERS), flops=50.0),
    }
    cfg = RunConfig(
        articles=articles, questions=questions, small="s", large="l", k=2, out=tmp_path / "o"
    )
    result = run_experiment(cfg, lambda spec, _cfg: fakes[spec])
    summary = pd.read_csv(result.run_dir / "summary.csv").set_index("method")
    assert summary.loc["large@1", "flops_vs_large"] == 1.0
    assert summary.loc[["small@1", "small-verified@2"], "flops_vs_large"].isna().all()
    assert summary.loc["small@1", "flops"] != summary.loc["small@1", "flops"]  # NaN: unknown
    first = (result.run_dir / "attempts.csv").read_bytes()
    again = run_experiment(cfg, lambda spec, _cfg: fakes[spec])  # every sample from the cache
    assert again.manifest.cached_attempts == again.manifest.attempts
    assert (again.run_dir / "attempts.csv").read_bytes() == first  # with the cost it had
    attempts = pd.read_csv(again.run_dir / "attempts.csv")
    assert set(attempts[attempts.role == "large"].flops) == {50.0}
    assert attempts[attempts.role == "small"].flops.isna().all()
