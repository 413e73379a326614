"""One progress measure over a whole run: every stage's model calls, counted together.

The runner reports each stage as (stage, questions done, questions in it): the small model
(k samples per question), the large model (one answer), each way the large model checks and each
model's scores of the pools (one scoring call per question). `Overall` turns those into model
calls done out of all the run's, so one bar and one ETA cover the whole run. Every stage is
declared before the first call; one not started yet counts as many questions as the first, so
the total is an upper bound from the first report on: a stage that turns out smaller (the checks
read only questions with a confirmed answer) lowers it, nothing raises it, and it is shown as
"at most" until every stage has started.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field


def clock(seconds: float) -> str:
    """'1:02:03' or '2:03'."""
    s = max(0, round(seconds))
    h, rest = divmod(s, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


@dataclass
class Overall:
    """Model calls done and in all, over the stages a run will go through."""

    stages: dict[str, int]  # each stage's model calls per question, in run order
    questions: int = 0  # of the first stage: stands in for stages not started yet
    done: dict[str, float] = field(default_factory=dict)  # questions done (and shares), by stage
    totals: dict[str, int] = field(default_factory=dict)  # questions, by started stage
    stage: str = ""

    def update(self, stage: str, done: float, total: int) -> None:
        self.stages.setdefault(stage, 1)
        self.questions = self.questions or total
        self.totals[stage] = min(total, self.questions)  # a bound, never raised
        self.done[stage], self.stage = done, stage

    @property
    def bounded(self) -> bool:
        """Whether the total is still an upper bound (some stage has not started)."""
        return any(s not in self.totals for s in self.stages)

    def calls(self) -> str:
        """'20/50' model calls, or '20/at most 50' while the total is a bound."""
        bound = "at most " if self.bounded else ""
        return f"{int(self.completed):,}/{bound}{self.total:,}"

    @property
    def completed(self) -> float:
        return sum(self.done.get(s, 0) * per for s, per in self.stages.items())

    @property
    def total(self) -> int:
        return sum(self.totals.get(s, self.questions) * per for s, per in self.stages.items())

    def describe(self) -> str:
        """The current stage: 'small model: 12/40 questions', 'large model check (whole): ...'."""
        if not self.stage:
            return "starting"
        if self.stage in ("small", "large"):
            what = f"{self.stage} model"
        elif self.stage.startswith("pool scores ("):
            what = f"{self.stage[len('pool scores (') : -1]} model scoring the pools"
        else:
            what = f"large model {self.stage}"
        return f"{what}: {int(self.done[self.stage])}/{self.totals[self.stage]} questions"


def stages(k: int, checks: tuple[str, ...], drafts: tuple[str, ...] = ()) -> dict[str, int]:
    """A run's stages as the runner names them, in run order, with their model calls per
    question."""
    return {
        "small": k,
        "large": 1,
        **{f"check ({mode})": 1 for mode in checks},
        **{f"pool scores ({role})": 1 for role in drafts},
    }


@dataclass
class Eta:
    """Time left at the rate of the work done since the first report (work found in the cache
    at once moves the bar, not the rate)."""

    now: Callable[[], float] = time.monotonic
    started: float = field(default=0.0)
    first: float | None = None
    first_at: float = 0.0

    def __post_init__(self) -> None:
        self.started = self.started or self.now()

    def left(self, completed: float, total: int) -> float | None:
        """Seconds left; None until some work was measured."""
        t = self.now()
        if self.first is None:
            self.first, self.first_at = completed, t
            return None
        made, spent = completed - self.first, t - self.first_at
        if made <= 0 or spent <= 0:
            return None
        return (total - completed) * spent / made

    def elapsed(self) -> float:
        return self.now() - self.started


class PlainProgress:
    """Progress for logs and pipes: a line every `every` seconds while the run works, with the
    model calls done, the current stage, elapsed time and ETA."""

    def __init__(
        self,
        overall: Overall,
        say: Callable[[str], None],
        every: float = 30.0,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.overall, self.say, self.every = overall, say, every
        self.eta = Eta(now)
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._loop, daemon=True)

    def update(self, stage: str, done: float, total: int) -> None:
        with self._lock:
            self.overall.update(stage, done, total)
            if self.eta.first is None:  # the rate is measured from the first report on
                self.eta.left(self.overall.completed, self.overall.total)

    def line(self) -> str:
        with self._lock:
            o = self.overall
            done, total = o.completed, o.total
            left = self.eta.left(done, total) if self.eta.first is not None else None
            share = f" ({done / total:.0%})" if total else ""
            eta = f", about {clock(left)} left" if left is not None else ""
            return (
                f"{o.calls()} model calls{share}; {o.describe()}; "
                f"{clock(self.eta.elapsed())} elapsed{eta}"
            )

    def _loop(self) -> None:
        while not self._stop.wait(self.every):
            self.say(self.line())

    def __enter__(self) -> PlainProgress:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=1)
