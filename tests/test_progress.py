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
