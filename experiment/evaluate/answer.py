"""An answer (a confirmed sample, or the candidate a method gives): what was said (`Attempt`)
and the value read from it."""

from __future__ import annotations

from dataclasses import dataclass

from experiment.base.types import Attempt
from experiment.values.canonical import Value
from experiment.values.extract import ABSTAINED


@dataclass(frozen=True)
class Answer:
    attempt: Attempt
    value: Value | None
    # The figure as written, where `value` is its reading in a scaled table's cell ("142.9"
    # under "$ in millions": value 142.9 million USD); the judge accepts either.
    written: Value | None = None

    @property
    def abstained(self) -> bool:
        """The model said deliberately that the article does not give the answer."""
        return self.value is None and self.attempt.reason == ABSTAINED

    @property
    def failed(self) -> bool:
        """No value and no deliberate abstention: empty, repetitive, an error, the wrong kind."""
        return self.value is None and not self.abstained
