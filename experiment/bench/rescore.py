"""`factqa bench rescore PRESET DATA_PATH`: a preset's committed samples run again through the
current code, with no model.

The preset's sample is imported again from the data file with the seed, size and part its
results record (the importers are deterministic), so the questions, gold and articles are the
data set's own and never the repository's. The run then goes through the runner's own stages
(`runner.run_experiment`) with a replay in place of every model (`generate/models/replay`):
the small and large models' generations by seed, the large model's checks and the pools'
scores by question, from the committed samples, checks and scores. Reading, confirming,
judging, the methods and the summary are the current code's; a call the record lacks (a
candidate the current verifier confirms that the run never checked, say) is that call's
failure, counted in `misses`. Where the record holds no scores of a kind (the run left its
checks out) the replay cannot score, and the run leaves those methods out as a run would.
"""

from __future__ import annotations

import json
import math
import shutil
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd

from experiment.base.errors import InputError
from experiment.base.types import ERROR_PREFIX, Article, Generation, Question
from experiment.bench.looks import headline
from experiment.bench.presets import figures_line, import_preset
from experiment.bench.sealed_samples import sealed_ids
from experiment.config import RunConfig
from experiment.evaluate.large_check import EVIDENCE, UNKNOWN, WHOLE
from experiment.generate.models.base import Messages
from experiment.generate.models.cost import ModelShape
from experiment.generate.models.replay import Asked, RecordedScores, ReplayBackend
from experiment.importers.looked import mark
from experiment.record.manifest import NOT_OURS, ModelInfo, run_ledger
from experiment.record.results_index import text_key
from experiment.report.results import Results, load_results
from experiment.report.run import Run, load_run
from experiment.report.tables import markdown_table
from experiment.runner import BackendFactory, Factories, RunResult, load_corpus, run_experiment


@dataclass(frozen=True)
class Rescored:
    """A rescore: its run, the replay's misses, and how its summary differs from the
    committed one (method -> the columns that differ)."""

    run: Run
    result: RunResult
    misses: list[str]
    changed: dict[str, list[str]]
    committed: pd.DataFrame
    scored: list[str] = field(default_factory=list)  # lacked by the record, scored by the model

    def report(self) -> str:
        """The comparison as Markdown: the methods whose figures moved, and the misses."""
        new = self.run.summary.set_index("method")
        old = self.committed.set_index("method")
        rows = []
        for m, cols in self.changed.items():
            before = old.accuracy.get(m, math.nan)
            after = new.accuracy.get(m, math.nan)
            rows.append(
                [m, f"{before:.3f}", f"{after:.3f}", f"{after - before:+.3f}", ", ".join(cols)]
            )
        same = len(set(new.index) & set(old.index)) - len(
            [m for m in self.changed if m in new.index and m in old.index]
        )
        lines = [f"{same} methods give the committed figures."]
        if rows:
            head = [
                "method",
                "committed accuracy",
                "rescored accuracy",
                "change",
                "columns that moved",
            ]
            lines += ["", *markdown_table(head, rows)]
        if self.misses:
            lines += [
                "",
                f"{len(self.misses)} calls the record lacks (each one a failure): "
                + "; ".join(self.misses[:5]),
            ]
        if self.scored:
            lines += [
                "",
                f"{len(self.scored)} calls the record lacked, scored by the model "
                "(--score-missing): " + "; ".join(self.scored[:5]),
            ]
        return "\n".join(lines)


def _number(v: object) -> float | None:
    """A recorded cell as a number; None where it is unknown (blank or NaN)."""
    try:
        x = float(v)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return None if math.isnan(x) else x


def _int(v: object) -> int | None:
    x = _number(v)
    return None if x is None else int(x)


def finish_reason(reason: str, completion_tokens: int, max_tokens: int) -> str:
    """A recorded sample's finish reason, from what its attempt kept: its error (`model
    error: ...`), the token limit, or a stop."""
    if reason.startswith(f"model {ERROR_PREFIX}"):
        return reason.removeprefix("model ")
    if "token limit" in reason or completion_tokens >= max_tokens:
        return "length"
    return "stop"


def generations(
    samples: pd.DataFrame, role: str, max_tokens: int
) -> dict[int, list[tuple[str, Generation]]]:
    """A model's recorded generations by seed: (question id, generation) pairs."""
    out: dict[int, list[tuple[str, Generation]]] = defaultdict(list)
    for r in samples[samples.role == role].to_dict("records"):
        completion = int(r["completion_tokens"])
        g = Generation(
            str(r["raw_text"]),
            int(r["prompt_tokens"]),
            completion,
            float(r["seconds"]),
            finish_reason(str(r["reason"]), completion, max_tokens),
            _number(r["logprob"]),
            _int(r["evaluated_tokens"]),
            _number(r["flops"]),
        )
        out[int(r["seed"])].append((str(r["question_id"]), g))
    return dict(out)


def _recorded(
    rows: pd.DataFrame, part: str, text: str, key: Callable[[str], str]
) -> dict[tuple[str, str], RecordedScores]:
    """Scores by (question id, part) from recorded rows (`part` and `text` name their
    columns)."""
    out = {}
    for (qid, which), g in rows.groupby(["question_id", part], sort=False):
        first = g.iloc[0]
        error = str(first.get("error", "") or "")
        logprobs = (
            {}
            if error
            else {key(str(t)): float(v) for t, v in zip(g[text], g["_score"], strict=True)}
        )
        tokens = {
            key(str(t)): int(_number(n) or 0)
            for t, n in zip(g[text], g.get("tokens", [0] * len(g)), strict=True)
        }
        out[(str(qid), str(which))] = RecordedScores(
            logprobs,
            tokens,
            int(_number(first.get("prompt_tokens")) or 0),
            float(_number(first.get("seconds")) or 0.0),
            _int(first.get("evaluated_tokens")),
            _number(first.get("flops")),
            error,
        )
    return out


def check_scores(checks: pd.DataFrame) -> dict[tuple[str, str], RecordedScores]:
    """The large model's checks as scores: each candidate's margin, "unknown" at 0 (a check
    reads margins only)."""
    if checks.empty:
        return {}
    rows = checks.assign(_score=checks.margin)
    scores = _recorded(rows, "mode", "candidate", str)
    for rec in scores.values():
        if not rec.error:
            rec.logprobs[UNKNOWN] = 0.0
    return scores


def draft_scores(drafts: pd.DataFrame, role: str) -> dict[tuple[str, str], RecordedScores]:
    """One model's scores of the pools, each text by its `text_key`."""
    mine = drafts[drafts.role == role]
    if mine.empty:
        return {}
    return _recorded(mine.assign(_score=mine.logprob), "role", "text_sha256", lambda s: s)


def question_text(messages: Messages) -> str:
    """The question a prompt asks (`prompts.messages_for`'s last lines)."""
    tail = messages[-1]["content"].rpartition("\n\nQuestion: ")[2]
    return tail.rpartition("\nAnswer with ")[0] or tail


class Asking:
    """Which questions a prompt may be of (by its question and article title), and which check
    a large-model scoring prompt is (the whole article, or an evidence passage)."""

    def __init__(self, articles: dict[str, Article], questions: Iterable[Question]) -> None:
        self.articles = articles
        self.by_text: dict[str, list[Question]] = defaultdict(list)
        for q in questions:
            self.by_text[q.text].append(q)

    def questions(self, messages: Messages) -> list[Question]:
        content = messages[-1]["content"]
        found = self.by_text.get(question_text(messages), [])
        titled = [
            q for q in found if content.startswith(f"Article: {self.articles[q.article_id].title}")
        ]
        return titled or found

    def part(self, role: str) -> Asked:
        """A model's prompts of the pools: their part is the model's role."""
        return lambda m: ([q.id for q in self.questions(m)], role)

    def check(self, messages: Messages) -> tuple[list[str], str]:
        qs = self.questions(messages)
        content = messages[-1]["content"]
        whole = any(f"\n\n{self.articles[q.article_id].text}\n\n" in content for q in qs)
        return [q.id for q in qs], WHOLE if whole else EVIDENCE


def replay(
    res: Results,
    cfg: RunConfig,
    asking: Asking,
    made: list[ReplayBackend],
    models: BackendFactory | None = None,
) -> Factories:
    """Each stage's factory: backends that serve the results' record (kept in `made`); with
    `models`, a scoring call the record lacks is asked of the real model."""
    recorded = res.run.manifest.models
    samples, drafts = res.samples, res.drafts
    checks = check_scores(res.checks)

    def role_of(spec: str) -> str:
        return "small" if spec == cfg.small else "large"

    def backend(role: str, **record: object) -> ReplayBackend:
        info = recorded.get(role) or ModelInfo(role, role, f"replay:{role}")
        shape = ModelShape.of(info.shape) if info.shape else None
        spec = cfg.small if role == "small" else cfg.large
        real = None if models is None else (lambda: models(spec, cfg))
        b = ReplayBackend(info.name, info.fingerprint, shape, model=real, **record)  # type: ignore[arg-type]
        made.append(b)
        return b

    def sample(spec: str, _: RunConfig) -> ReplayBackend:
        role = role_of(spec)
        found = generations(samples, role, cfg.max_tokens)
        return backend(role, generations=found, asked=asking.part(role))

    def check(spec: str, _: RunConfig) -> ReplayBackend:
        return backend("large", scores=checks, asked=asking.check)

    def draft(spec: str, _: RunConfig) -> ReplayBackend:
        role = role_of(spec)
        return backend(
            role, scores=draft_scores(drafts, role), asked=asking.part(role), key=text_key
        )

    return Factories(sample, check, draft)


def config_of(res: Results, articles: Path, questions: Path, out: Path) -> RunConfig:
    """The recorded run's settings, over the imported sample, written to `out`."""
    return replace(
        res.run.manifest.config,
        articles=articles,
        questions=questions,
        out=out,
        run_id=res.run.manifest.run_id,
    )


def changed(
    committed: pd.DataFrame, now: pd.DataFrame, tolerance: float = 1e-3
) -> dict[str, list[str]]:
    """Each method whose summary row differs (a method only one side has: `missing`/`new`)."""
    old, new = committed.set_index("method"), now.set_index("method")
    out: dict[str, list[str]] = {}
    for m in [*old.index, *(m for m in new.index if m not in old.index)]:
        if m not in new.index or m not in old.index:
            out[m] = ["missing" if m not in new.index else "new"]
            continue
        cols = []
        for c in old.columns:
            a, b = old.at[m, c], new.at[m, c] if c in new.columns else None
            x, y = _number(a), _number(b)
            if x is None and y is None:
                if str(a) != str(b) and not (pd.isna(a) and pd.isna(b)):
                    cols.append(c)
            elif x is None or y is None or not math.isclose(x, y, rel_tol=tolerance, abs_tol=1e-6):
                cols.append(c)
        if cols:
            out[m] = cols
    return out


def clear_run(run_dir: Path) -> None:
    """An earlier replay's run folder emptied of the files factqa wrote there; a user's file in
    it stays, and a folder that is no factqa run folder is refused (`run_ledger`)."""
    if run_dir.exists():
        ledger = run_ledger(run_dir)
        ledger.remove(sorted(rel for rel in ledger.files if ledger.owns(rel)), NOT_OURS)


def rescore(
    results: Path, data: Path | None, out: Path, models: BackendFactory | None = None
) -> Rescored:
    """The committed results at `results` rescored from the data file `data` (None for the
    bundled corpus) into `out` (its run folder's files and imported sample replaced); with
    `models`, the scoring calls the record lacks are asked of the real models."""
    res = load_results(results)
    src = res.source
    corpus = import_preset(
        src.preset,
        data,
        out / "data" / src.preset,
        src.seed,
        src.half,
        src.sample or None,
        src.unanswerable,
        ids=sealed_ids(src.preset, results.parent) if src.sealed else None,
    )  # type: ignore[arg-type]
    cfg = config_of(res, corpus.articles, corpus.questions, out)
    clear_run(cfg.run_dir)
    shutil.rmtree(out / ".cache", ignore_errors=True)  # served only by this replay
    articles, questions = load_corpus(cfg)
    ids = {q.id for q in questions}
    recorded = set(res.run.questions.question_id)
    if ids != recorded:
        raise InputError(
            f"the data file gives {len(ids)} questions, {len(ids & recorded)} of the "
            f"{len(recorded)} the results hold",
            path=data,
            fix=f"give the file the results were made from ({src.data_file or 'none: bundled'})",
        )
    made: list[ReplayBackend] = []
    factories = replay(res, cfg, Asking(articles, questions), made, models)
    result = run_experiment(cfg, factories)
    run = load_run(result.run_dir)
    mark(src.preset, "sealed" if src.sealed else "development", headline(run))
    misses = [m for b in made for m in b.misses]
    scored = [m for b in made for m in b.scored]
    moved = changed(res.run.summary, run.summary)
    return Rescored(run, result, misses, moved, res.run.summary, scored)


# the manifest's record of how the generations were made, which a rescore does not change
KEPT_FROM_GENERATION = (
    "command", "started", "finished", "wall_seconds", "cpu_seconds", "machine", "load",
    "load_warning", "history", "cached_attempts", "resumed", "cost",
)  # fmt: skip


def save_rescored(r: Rescored, folder: Path) -> None:
    """The rescored run saved as the committed results at `folder` (its source kept: the same
    sample and generations), and the report written again from results/."""
    from experiment.bench.harness import README, RESULTS_MD
    from experiment.bench.report import write_report
    from experiment.bench.results import RESULTS, save_results

    source = load_results(folder).source
    committed = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    path = r.run.path / "manifest.json"
    rescored = json.loads(path.read_text(encoding="utf-8"))
    for key in KEPT_FROM_GENERATION:  # the generations are the committed run's: so is their cost
        if key in committed:
            rescored[key] = committed[key]
    text = json.dumps(rescored, indent=2, ensure_ascii=False) + "\n"
    run_ledger(r.run.path).write({path.name: text}, NOT_OURS)  # still factqa's: rescored again
    save_results(r.run.path, folder, replace(source, line=figures_line(source.preset, r.run)))
    if folder.parent.resolve() == RESULTS.resolve():
        write_report(RESULTS, RESULTS_MD, README)


def rescored_line(preset: str, r: Rescored) -> str:
    """The rescored run's machine-readable figures (its gold is the data file's)."""
    return figures_line(preset, r.run)
