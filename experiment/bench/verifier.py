"""Verifier quality on SQuAD v1.1 dev figure/date questions: recall, rejection, speed.

    factqa bench verifier PATH/TO/dev-v1.1.json [--limit N] [--seed S] [--no-write]

- recall: share of gold answers confirmed in their own paragraph;
- rejection: share of corrupted answers refused. Corruptions: one digit changed, a year shifted
  by one, the scale changed (million <-> billion, or "thousand" added), and a figure taken from
  another paragraph of the same article. A corruption is kept only if its digits do not occur in
  the paragraph at all: that test is plain string search, independent of the verifier;
- recall and rejection are reported for the evaluation titles apart from the fitting titles
  (experiment/importers/split.py): the verifier's rules were mended from this benchmark's misses
  over all titles, so only the evaluation titles' figures are out of sample for what comes next;
- speed: verifications per second on one core, cold (the paragraph is scanned for every check)
  and warm (scanned once per paragraph, as a run does).

Writes its section of docs/RESULTS.md; the last line printed is machine-readable.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Annotated

import typer

from experiment.bench.app import command
from experiment.bench.harness import RESULTS_MD, NoWriteOpt
from experiment.importers.split import HALVES, half_of
from experiment.report.markdown import update_section
from experiment.values.canonical import DateValue, Quantity
from experiment.values.normalize import parse_value, scan
from experiment.values.question_kind import question_kind
from experiment.verify.match import verify

SCALE_SWAP = {
    "million": "billion",
    "billion": "million",
    "thousand": "million",
    "trillion": "billion",
}


@dataclass(frozen=True)
class Item:
    qid: str
    question: str
    kind: str
    gold: str
    context: str
    article: int
    half: str  # the title's half (experiment/importers/split.py)


def load(path: Path) -> tuple[list[Item], dict[int, list[str]]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    items, paragraphs = [], {}
    for ai, art in enumerate(data["data"]):
        paragraphs[ai] = [p["context"] for p in art["paragraphs"]]
        for p in art["paragraphs"]:
            for qa in p["qas"]:
                golds = sorted({a["text"].strip() for a in qa["answers"]})
                kind = question_kind(qa["question"], golds)
                if kind is None:
                    continue
                for g in golds:
                    items.append(
                        Item(
                            qa["id"],
                            qa["question"],
                            kind,
                            g,
                            p["context"],
                            ai,
                            half_of(art["title"]),
                        )
                    )
    return items, paragraphs


# Independent of the package on purpose: the test of "not in the paragraph" must not be the
# verifier under test.
WORDS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
]


def digit_runs(text: str) -> set[str]:
    runs = {re.sub(r"[,\s]", "", m) for m in re.findall(r"\d[\d,]*(?:\.\d+)?", text)}
    words = re.findall(r"[a-z]+", text.lower())
    return runs | {str(WORDS.index(w)) for w in words if w in WORDS}


def absent(candidate: str, context: str) -> bool:
    digits = digit_runs(candidate)
    return bool(digits) and not digits & digit_runs(context)


def scale_absent(corrupted: str, context: str) -> bool:
    """A scale change keeps the digits, so test the written figure instead: the corrupted
    number-and-scale must not be in the paragraph, nor the number followed by ",000"."""
    flat = re.sub(r"\s+", " ", context.lower())
    text = re.sub(r"\s+", " ", corrupted.lower().strip())
    if text in flat:
        return False
    m = re.match(r"[$€£]?([\d,.]+) thousand$", text)
    return not (m and re.search(rf"{re.escape(m.group(1))}(?:,000| thousand)", flat))


def change_digit(text: str, rng: random.Random) -> str | None:
    positions = [i for i, c in enumerate(text) if c.isdigit()]
    if not positions:
        return None
    i = rng.choice(positions)
    choices = [d for d in "0123456789" if d != text[i] and not (d == "0" and i == positions[0])]
    return text[:i] + rng.choice(choices) + text[i + 1 :]


def shift_year(text: str, rng: random.Random) -> str | None:
    m = re.search(r"\b(1[0-9]{3}|20[0-9]{2})\b", text)
    if not m:
        return None
    year = int(m.group(1)) + rng.choice((-1, 1))
    return text[: m.start()] + str(year) + text[m.end() :]


def change_scale(text: str) -> str | None:
    for word, other in SCALE_SWAP.items():
        if re.search(rf"\b{word}\b", text, re.I):
            return re.sub(rf"\b{word}\b", other, text, count=1, flags=re.I)
    bare = text.strip().rstrip(".,;:")  # "10." is the figure 10 ending a sentence
    if re.fullmatch(r"[$€£]?\d[\d,.]*", bare):
        return bare + " thousand"
    return None


def other_paragraph(item: Item, paragraphs: dict[int, list[str]], rng: random.Random) -> str | None:
    pool = []
    for ctx in paragraphs[item.article]:
        if ctx == item.context:
            continue
        for m in scan(ctx):
            wanted = DateValue if item.kind == "date" else Quantity
            # A decade or century from elsewhere can be true of this paragraph's year too.
            coarse = any(getattr(v, "granularity", "") in ("decade", "century") for v in m.values)
            if (
                not coarse
                and any(isinstance(v, wanted) for v in m.values)
                and absent(m.text, item.context)
            ):
                pool.append(m.text)
    return rng.choice(pool) if pool else None


def _run(args: SimpleNamespace) -> int:
    items, paragraphs = load(args.data)
    if args.limit:
        items = items[: args.limit]
    questions = len({i.qid for i in items})

    misses = []
    for it in items:
        v = verify(parse_value(it.gold, it.kind, it.question), it.context, it.gold)
        if not v.confirmed:
            misses.append(it)
    recall = 1 - len(misses) / len(items)

    corrupt: dict[str, list[tuple[Item, str]]] = {
        "digit": [],
        "year": [],
        "scale": [],
        "other paragraph": [],
    }
    for it in items:
        # each answer's own generator: its corruptions do not depend on which other answers
        # the normalizer reads, so two versions of the verifier are compared on the same draws
        rng = random.Random(f"{args.seed}:{it.qid}:{it.gold}")
        for name, text in (
            ("digit", change_digit(it.gold, rng)),
            ("year", shift_year(it.gold, rng) if it.kind == "date" else None),
            ("scale", change_scale(it.gold) if it.kind == "figure" else None),
            ("other paragraph", other_paragraph(it, paragraphs, rng)),
        ):
            fresh = (
                scale_absent(text, it.context)
                if name == "scale" and text
                else (text and absent(text, it.context))
            )
            if text and text != it.gold and fresh:
                corrupt[name].append((it, text))
    accepted: dict[str, list[tuple[Item, str, str]]] = {k: [] for k in corrupt}
    for name, pairs in corrupt.items():
        for it, text in pairs:
            v = verify(parse_value(text, it.kind, it.question), it.context, text)
            if v.confirmed:
                accepted[name].append((it, text, v.span.text if v.span else ""))
    total_c = sum(len(p) for p in corrupt.values())
    rejection = 1 - sum(len(a) for a in accepted.values()) / max(total_c, 1)

    checks = [(it.gold, it.kind, it.context) for it in items]
    checks += [(t, it.kind, it.context) for pairs in corrupt.values() for it, t in pairs]
    scan.cache_clear()
    t0 = time.perf_counter()
    for text, kind, ctx in checks:
        scan.cache_clear()
        verify(parse_value(text, kind), ctx, text)
    cold = len(checks) / (time.perf_counter() - t0)
    scan.cache_clear()
    t0 = time.perf_counter()
    for text, kind, ctx in checks:
        verify(parse_value(text, kind), ctx, text)
    warm = len(checks) / (time.perf_counter() - t0)

    kinds = Counter(i.kind for i in items)
    lines = [
        "## Verifier on SQuAD v1.1 dev (figure and date questions)",
        "",
        f"Command: `factqa bench verifier PATH/TO/dev-v1.1.json"
        f"{f' --limit {args.limit}' if args.limit else ''} --seed {args.seed}`",
        "",
        f"- questions kept by the figure/date rule: {questions} "
        f"({kinds['figure']} figure and {kinds['date']} date gold answers, {len(items)} in all)",
        f"- **recall** (gold confirmed in its own paragraph): **{recall:.4f}** "
        f"({len(items) - len(misses)}/{len(items)})",
        f"- **rejection** (corruptions refused): **{rejection:.4f}** "
        f"({total_c - sum(len(a) for a in accepted.values())}/{total_c})",
    ]
    for name, pairs in corrupt.items():
        n = len(pairs)
        lines.append(f"  - {name}: {1 - len(accepted[name]) / max(n, 1):.4f} of {n}")
    by_half = {h: _half_rates(h, items, misses, corrupt, accepted) for h in HALVES}
    for h, (rec, n_rec, rej, n_rej) in by_half.items():
        lines.append(
            f"- {'evaluation' if h == 'eval' else 'fitting'} titles: recall {rec:.4f} of {n_rec} "
            f"gold answers, rejection {rej:.4f} of {n_rej} corruptions"
        )
    lines += [
        f"- **speed** on one core: **{warm:,.0f} checks/s** as used (each paragraph scanned "
        f"once, when first checked; the cache starts empty), {cold:,.0f} checks/s in the worst "
        "case (the paragraph scanned again for every check)",
        "",
        f"### Recall misses ({len(misses)})",
        "",
        "| question id | kind | gold | why |",
        "| --- | --- | --- | --- |",
    ]
    for it in misses[:60]:
        value = parse_value(it.gold, it.kind, it.question)
        lines.append(
            f"| {it.qid} | {it.kind} | `{it.gold}` | value "
            f"`{value.canonical() if value else 'none'}` not found by the matcher |"
        )
    lines += [
        "",
        "### Corruptions accepted",
        "",
        "| corruption | question id | gold | corrupted | span |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name, acc in accepted.items():
        for it, text, span in acc[:15]:
            lines.append(f"| {name} | {it.qid} | `{it.gold}` | `{text}` | `{span}` |")
    report = "\n".join(lines)
    print(report)
    if not args.no_write:
        update_section(RESULTS_MD, "verifier", report)
    # checks_per_s is the rate as the verifier is used (each paragraph scanned once, when first
    # seen, then looked up); the cold worst case is printed above.
    print(
        f"recall={recall:.4f} rejection={rejection:.4f} checks_per_s={warm:.0f} "
        f"recall_eval={by_half['eval'][0]:.4f} rejection_eval={by_half['eval'][2]:.4f}"
    )
    return 0


def _half_rates(
    half: str,
    items: list[Item],
    misses: list[Item],
    corrupt: dict[str, list[tuple[Item, str]]],
    accepted: dict[str, list[tuple[Item, str, str]]],
) -> tuple[float, int, float, int]:
    """Recall (of how many) and rejection (of how many) on one half's titles."""
    n_rec = sum(it.half == half for it in items)
    missed = sum(it.half == half for it in misses)
    n_rej = sum(it.half == half for pairs in corrupt.values() for it, _ in pairs)
    taken = sum(it.half == half for acc in accepted.values() for it, _, _ in acc)
    return 1 - missed / max(n_rec, 1), n_rec, 1 - taken / max(n_rej, 1), n_rej


@command("verifier")
def verifier_command(
    data: Annotated[Path, typer.Argument(help="SQuAD v1.1 dev (dev-v1.1.json).")],
    limit: Annotated[int, typer.Option(help="Only the first N gold answers.")] = 0,
    seed: Annotated[int, typer.Option(help="Seed of the rejection probes.")] = 0,
    no_write: NoWriteOpt = False,
) -> None:
    """Verifier quality on SQuAD v1.1 dev figure/date questions: recall, rejection, speed."""
    code = _run(SimpleNamespace(data=data, limit=limit, seed=seed, no_write=no_write))
    if code:
        raise typer.Exit(code)
