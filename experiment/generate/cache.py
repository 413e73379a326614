"""A SQLite cache of generations: resumable runs, and re-scoring without calling a model.

The key covers everything that decides a generation: the model's fingerprint (SHA-256 of the
weights, or server URL and model name), the backend's setup (backend, context size, speculative
mode, llama-cpp-python version), the full prompt (so the template and the article window too),
the sampling parameters (temperature, top-p, top-k, token limit, stop strings), the seed, and,
for adaptive rounds on a backend whose samples depend on their batch, the round. The large
model's scores of given answers (its checks) are kept beside them, keyed by model, setup,
prompt and the texts scored (`score_key`).
Each question's samples are committed in one transaction, so a kill at any moment leaves either
all of them or none; WAL mode keeps readers and a writer apart.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path

from experiment.base.errors import FactQAError
from experiment.base.types import Generation
from experiment.generate.models.base import CandidateScores, Messages, SamplingParams

SCHEMA = """
CREATE TABLE IF NOT EXISTS generations (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    text TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    seconds REAL NOT NULL,
    finish_reason TEXT NOT NULL,
    logprob REAL,
    evaluated_tokens INTEGER,
    flops REAL
)
"""


SCORES = """
CREATE TABLE IF NOT EXISTS scores (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    logprobs TEXT NOT NULL,
    tokens TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    seconds REAL NOT NULL,
    evaluated_tokens INTEGER,
    flops REAL
)
"""


def score_key(
    fingerprint: str,
    messages: Messages,
    texts: Sequence[str],
    setup: Mapping[str, object] | None = None,
) -> str:
    """The key of one scoring call (`Backend.score`): the model, its setup, the prompt and the
    texts scored, in order."""
    parts: list[object] = ["score", fingerprint, messages, list(texts), dict(setup or {})]
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()


def cache_key(
    fingerprint: str,
    messages: Messages,
    params: SamplingParams,
    seed: int,
    setup: Mapping[str, object] | None = None,
    batch: tuple[int, int] | None = None,
) -> str:
    """The key of one sample; `batch` (first index, size) of its round where the backend's
    samples depend on which seeds are decoded together (adaptive rounds)."""
    parts: list[object] = [fingerprint, messages, params.key(), seed]
    if setup:  # a backend without a setup (a test fake) keeps the shorter key
        parts.append(dict(setup))
    if batch is not None:  # absent for all k at once, so fixed-k keys stay as they were
        parts.append({"round": list(batch)})
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()


class GenerationCache:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        with self._usable():
            self._db = sqlite3.connect(path)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(SCHEMA)
            self._db.execute(SCORES)
            columns = {row[1] for row in self._db.execute("PRAGMA table_info(generations)")}
            # a cache written before log-probabilities, evaluated tokens or FLOPs were kept
            for name, kind in (
                ("logprob", "REAL"),
                ("evaluated_tokens", "INTEGER"),
                ("flops", "REAL"),
            ):
                if name not in columns:
                    self._db.execute(f"ALTER TABLE generations ADD COLUMN {name} {kind}")
            self._db.commit()

    @contextmanager
    def _usable(self) -> Iterator[None]:
        """A cache SQLite cannot use (not a database, locked, disk full): a FactQAError naming
        the file and the fix; the file is left as it is."""
        try:
            yield
        except sqlite3.Error as e:
            raise FactQAError(
                f"{self.path}: the generation cache cannot be used ({e}). Fix: if another run "
                "uses it, wait for that run; if it is damaged, move it aside (it holds only "
                "generations, which the next run makes again)"
            ) from e

    def get(self, key: str) -> Generation | None:
        with self._usable():
            row = self._db.execute(
                "SELECT text, prompt_tokens, completion_tokens, seconds, finish_reason, logprob, "
                "evaluated_tokens, flops FROM generations WHERE key = ?",
                (key,),
            ).fetchone()
        return Generation(*row) if row else None

    def put_many(self, model: str, items: list[tuple[str, Generation]]) -> None:
        with self._usable(), self._db:  # one transaction
            self._db.executemany(
                "INSERT OR REPLACE INTO generations (key, model, text, prompt_tokens, "
                "completion_tokens, seconds, finish_reason, logprob, evaluated_tokens, flops) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        k,
                        model,
                        g.text,
                        g.prompt_tokens,
                        g.completion_tokens,
                        g.seconds,
                        g.finish_reason,
                        g.logprob,
                        g.evaluated_tokens,
                        g.flops,
                    )
                    for k, g in items
                ],
            )

    def get_scores(self, key: str) -> CandidateScores | None:
        with self._usable():
            row = self._db.execute(
                "SELECT logprobs, tokens, prompt_tokens, seconds, evaluated_tokens, flops "
                "FROM scores WHERE key = ?",
                (key,),
            ).fetchone()
        if row is None:
            return None
        logprobs, tokens, *rest = row
        return CandidateScores(tuple(json.loads(logprobs)), tuple(json.loads(tokens)), *rest)

    def put_scores(self, model: str, key: str, got: CandidateScores) -> None:
        with self._usable(), self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO scores (key, model, logprobs, tokens, prompt_tokens, "
                "seconds, evaluated_tokens, flops) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    key,
                    model,
                    json.dumps(list(got.logprobs)),
                    json.dumps(list(got.tokens)),
                    got.prompt_tokens,
                    got.seconds,
                    got.evaluated_tokens,
                    got.flops,
                ),
            )

    def __len__(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM generations").fetchone()[0])

    def close(self) -> None:
        self._db.close()
