"""One progress measure over the whole run: the stages' model calls counted together, with
elapsed time and ETA; without a terminal, a line every interval."""

from __future__ import annotations

import threading
from itertools import pairwise

from experiment.progress import Eta, Overall, PlainProgress, clock, stages


def test_the_total_covers_every_stage_by_model_calls() -> None:
    o = Overall(stages(10, ("whole", "evidence")))
    o.update("small", 0, 40)
    # 40 questions: 10 small samples, 1 large answer, and 1 call for each check, per question
    assert (o.completed, o.total) == (0, 40 * 10 + 40 + 40 + 40)
    o.update("small", 40, 40)
    o.update("large", 20, 40)
    assert o.completed == 400 + 20
    o.update("check (whole)", 0, 25)  # only 25 questions had a candidate to check
    assert o.total == 400 + 40 + 25 + 40
    assert o.describe() == "large model check (whole): 0/25 questions"


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_the_eta_follows_the_rate_since_the_first_report() -> None:
    now = Clock()
    eta = Eta(now)
    assert eta.left(50, 1000) is None  # 50 from the cache at once: not a rate
    now.t += 10
    assert eta.left(150, 1000) == 85.0  # 100 calls in 10 s, 850 left
    assert clock(85.0) == "1:25" and clock(3725) == "1:02:05"


def test_without_a_terminal_a_line_comes_every_interval() -> None:
    now = Clock()
    lines: list[str] = []
    said = threading.Event()

    def say(line: str) -> None:
        lines.append(line)
        said.set()

    plain = PlainProgress(Overall(stages(4, ())), say, every=0.01, now=now)
    with plain:
        plain.update("small", 0, 10)
        now.t += 30
        plain.update("small", 5, 10)
        assert said.wait(5)
    line = plain.line()
    assert (
        line == "20/at most 50 model calls (40%); small model: 5/10 questions; 0:30 elapsed, "
        "about 0:45 left"
    )
    assert lines and "model calls" in lines[0]


def test_the_progress_moves_within_a_question_where_the_backend_reports_samples(
    corpus,  # type: ignore[no-untyped-def]
    tmp_path,
) -> None:
    from experiment.config import RunConfig
    from experiment.runner import load_corpus, sample

    from .conftest import LARGE_ANSWERS, SMALL_ANSWERS, FakeBackend, keyword_script

    class OneByOne(FakeBackend):
        """Finishes its samples one after another, and says so (as llama.py's backend does)."""

        def generate(self, messages, params, seeds):  # type: ignore[no-untyped-def]
            out = []
            for seed in seeds:
                out += super().generate(messages, params, [seed])
                if self.on_sample:
                    self.on_sample()
            return out

    models = {
        "s": OneByOne("s", keyword_script(SMALL_ANSWERS)),
        "l": OneByOne("l", keyword_script(LARGE_ANSWERS)),
    }
    arts, qs = corpus
    cfg = RunConfig(articles=arts, questions=qs, small="s", large="l", k=4, out=tmp_path / "o")
    seen: list[tuple[str, float, int]] = []
    articles, questions = load_corpus(cfg)
    sample(cfg, articles, questions, lambda spec, _: models[spec], lambda *a: seen.append(a))
    small = [done for stage, done, _ in seen if stage == "small"]
    assert small[:6] == [0, 0.25, 0.5, 0.75, 0.99, 1]  # a question's four samples, then it
    assert small == sorted(small) and small[-1] == 5


def test_a_scripted_runs_total_is_known_before_the_first_call_and_its_eta_falls(
    corpus,  # type: ignore[no-untyped-def]
    tmp_path,
) -> None:
    """Every stage of a whole run (samples, checks, pool scores) is declared before the first
    model call: the total never rises, it is 'at most' until the last stage starts, and at one
    second per model call the ETA falls to 0, never rising by more than one call's time."""
    from experiment.config import RunConfig
    from experiment.runner import run_experiment

    from .conftest import LARGE_ANSWERS, SMALL_ANSWERS, FakeBackend, keyword_script

    now = Clock()

    class Timed(FakeBackend):
        """One second of the fake clock per sample and per scoring call."""

        def generate(self, messages, params, seeds):  # type: ignore[no-untyped-def]
            now.t += len(seeds)
            return super().generate(messages, params, seeds)

        def score(self, messages, candidates):  # type: ignore[no-untyped-def]
            now.t += 1
            return super().score(messages, candidates)

    models = {
        "s": Timed("s", keyword_script(SMALL_ANSWERS)),
        "l": Timed("l", keyword_script(LARGE_ANSWERS)),
    }
    arts, qs = corpus
    cfg = RunConfig(articles=arts, questions=qs, small="s", large="l", k=4, out=tmp_path / "o")
    overall = Overall(stages(cfg.k, cfg.check_modes, cfg.draft_roles))
    eta = Eta(now)
    seen: list[tuple[int, float, float | None, str]] = []

    def progress(stage: str, done: float, total: int) -> None:
        overall.update(stage, done, total)
        left = eta.left(overall.completed, overall.total)
        seen.append((overall.total, overall.completed, left, overall.calls()))

    run_experiment(cfg, lambda spec, _: models[spec], progress)
    totals = [total for total, *_ in seen]
    assert totals[0] == max(totals)  # known at the first report, before any call
    assert totals == sorted(totals, reverse=True)  # lowered (the checks' fewer questions) only
    assert seen[0][3].startswith("0/at most ") and "at most" not in seen[-1][3]
    assert seen[-1][1] == totals[-1]  # every declared call was made: the bar ends full
    lefts = [left for *_, left, _ in seen if left is not None]
    assert lefts and lefts[-1] == 0
    # it never rises by more than one call's time (a stage's first probe of the model)
    assert all(b <= a + 1 for a, b in pairwise(lefts))
    assert {"small", "large", "pool scores (small)", "pool scores (large)"} <= set(overall.totals)
