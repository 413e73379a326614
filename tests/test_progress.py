"""One progress measure over the whole run: the stages' model calls counted together, with
elapsed time and ETA; without a terminal, a line every interval."""

from __future__ import annotations

import threading

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
        line
        == "20/50 model calls (40%); small model: 5/10 questions; 0:30 elapsed, about 0:45 left"
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
