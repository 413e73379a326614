"""Keep docs/RESULTS.md current: each benchmark rewrites only its own marked section."""

from __future__ import annotations

from pathlib import Path

from experiment.report import atomic_write

HEADER = "# Results\n\nEvery figure here was measured by the committed command shown with it.\n"


def update_section(path: Path, name: str, body: str) -> None:
    """Replace the text between `<!-- name:start -->` and `<!-- name:end -->`, or append it."""
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    text = path.read_text(encoding="utf-8") if path.exists() else HEADER
    block = f"{start}\n{body.strip()}\n{end}"
    if start in text and end in text:
        before, rest = text.split(start, 1)
        _, after = rest.split(end, 1)
        text = before + block + after
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    atomic_write(path, text)


def _timing(m: dict) -> str:
    full = [h for h in m.get("history", []) if h.get("cached_attempts") == 0]
    if full:
        first = full[0]
        return (
            f"The run that generated every answer took {first['wall_seconds']:,.0f} s "
            f"({first['wall_seconds'] / 60:.1f} min) wall time on 2 CPU cores, models loaded "
            f"included (started {first['started']}, commit `{first['git_commit'][:12]}`)."
        )
    return (
        f"Wall time {m['wall_seconds']:,.0f} s, {m['cached_attempts']} of {m['attempts']} "
        "generations from cache."
    )


def _load_run(run_dir: Path):  # type: ignore[no-untyped-def]
    """A finished run's manifest (dict) and summary (DataFrame)."""
    import json

    import pandas as pd

    manifest = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
    return manifest, pd.read_csv(run_dir / "summary.csv")


def _report_command(m: dict) -> str:
    return f"factqa report outputs/{m['run_id']} --results docs/RESULTS.md --readme README.md"


def readme_section(run_dir: Path) -> str:
    """A short form of `run_section` for the README: accuracy, coverage, blind spot."""
    m, s = _load_run(run_dir)
    lines = [
        f"{m['questions']} questions on {m['articles']} articles, k={m['config']['k']}, "
        f"small `{m['models']['small']['name']}`, large `{m['models']['large']['name']}`; "
        "measured by `factqa run` (the first command above) and recorded with "
        f"`{_report_command(m)}`. " + _timing(m),
        "",
        "| method | accuracy [95% CI] | coverage | in text, wrong |",
        "| --- | --- | --- | --- |",
    ]
    for r in s.itertuples():
        lines.append(
            f"| {r.method} | {r.accuracy:.3f} [{r.ci_low:.2f}, {r.ci_high:.2f}] | "
            f"{r.coverage:.3f} | {r.in_text_wrong} |"
        )
    return "\n".join(lines)


def _blind_spot_lines(run_dir: Path, examples: int = 10) -> list[str]:
    import pandas as pd

    path = run_dir / "blindspots.csv"
    if not path.exists():
        return []
    b = pd.read_csv(path, keep_default_na=False)
    if b.empty:
        return ["No kept answer was confirmed by the article and wrong."]
    counts = ", ".join(f"{cause}: {n}" for cause, n in b.cause.value_counts().items())
    lines = [
        f"Why the confirmed answers were wrong ({len(b)}; `blindspots.csv`): {counts}.",
        "",
        "| question | gold | kept answer | evidence in the article | cause |",
        "| --- | --- | --- | --- | --- |",
    ]
    for r in b.head(examples).itertuples():
        evidence = " ".join(str(r.evidence).split())
        lines.append(f"| {r.question} | {r.gold} | {r.answer} | {evidence} | {r.cause} |")
    return lines


def run_section(run_dir: Path) -> str:
    """Markdown for one run: the method table, the command, models, time, and what went wrong."""
    m, s = _load_run(run_dir)
    cfg = m["config"]
    k = cfg["k"]
    rows = [
        "| method | accuracy [95% CI] | coverage | acc. answered | in text, wrong | tokens | "
        "seconds | large calls | vs large@1 (+/-, exact McNemar p) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in s.itertuples():
        versus = (
            "—"
            if r.method == "large@1"
            else (f"+{r.wins_vs_large}/-{r.losses_vs_large}, p={r.mcnemar_p:.3f}")
        )
        rows.append(
            f"| {r.method} | {r.accuracy:.3f} [{r.ci_low:.2f}, {r.ci_high:.2f}] | "
            f"{r.coverage:.3f} | {r.accuracy_answered:.3f} | {r.in_text_wrong} "
            f"({r.in_text_wrong_rate:.1%}) | {r.prompt_tokens + r.completion_tokens:,} | "
            f"{r.seconds:,.1f} | {r.large_calls} | {versus} |"
        )
    by = s.set_index("method")
    verified, large = by.loc[f"small-verified@{k}"], by.loc["large@1"]
    if verified.accuracy <= large.accuracy:
        verdict = "does not beat"
    elif verified.mcnemar_p < 0.05:
        verdict = "beats"
    else:
        verdict = "scores above, but not significantly above,"
    models = m["models"]
    lines = [
        f"## Bundled OrigoTech corpus: {m['questions']} questions, {m['articles']} articles, k={k}",
        "",
        f"Command: `factqa run` (defaults; run id `{m['run_id']}`), then `{_report_command(m)}`.",
        f"Commit `{m['git_commit'][:12]}`, scored {m['started']}. " + _timing(m),
        f"Small: `{models['small']['name']}` ({models['small']['fingerprint'][:19]}…), "
        f"temperature {cfg['temperature']}, top-p {cfg['top_p']}, seed {cfg['seed']}. "
        f"Large: `{models['large']['name']}` ({models['large']['fingerprint'][:19]}…), greedy.",
        "",
        *rows,
        "",
        f"**small-verified@{k} {verdict} large@1 on this corpus**: {verified.accuracy:.3f} "
        f"against {large.accuracy:.3f} (exact McNemar p = {verified.mcnemar_p:.3f}). "
        f"Of the {round(verified.coverage * verified.questions)} answers it kept, "
        f"{int(verified.in_text_wrong)} ({verified.in_text_wrong_rate:.1%}) were confirmed by the "
        "article and still wrong: a figure that appears in the text is not always the answer.",
        "",
        *_blind_spot_lines(run_dir),
        "",
        "Seconds are the models' generation time summed over the calls each method needs, and "
        "tokens count the whole prompt of each call (the article prefix is read once per article "
        "by llama.cpp, so far fewer are evaluated); "
        "the same samples serve every method.",
    ]
    return "\n".join(lines)
