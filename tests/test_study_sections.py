"""Issue 54: every study records figures, and its registered renderer turns them into its
section. Each case here is a record of this project's own made-up figures: saved and loaded as
`results/bench/NAME.json` is, rendered, and read back for the figures it must show (a ratio the
renderer computes, a table row, the machine-readable line)."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

from experiment.bench import app
from experiment.bench.analyse import drafts
from experiment.bench.harness import results_dir
from experiment.bench.sections import Record, line_pairs, load, measured, render, save, section_of
from experiment.config import PROJECT_ROOT
from experiment.evaluate.features import FEATURES
from experiment.evaluate.large_check import LARGE_EVIDENCE
from experiment.evaluate.methods import PASS, SELECTED, VERIFIED

app.load()  # every study registers its renderer
VER, SEL, PAS = (m.name(10) for m in (VERIFIED, SELECTED, PASS))


def _ci(acc: float, diff: float) -> dict[str, Any]:
    return {"accuracy": acc, "ci": [diff, diff - 0.05, diff + 0.05]}


def _adaptive_set(n: int, seconds: float) -> dict[str, Any]:
    rows = [
        {"rule": rule, "context": "", "samples": samples, "early": early, "seconds": secs,
         "methods": {VER: _ci(0.6 + d, d), SEL: _ci(0.7, 0.0)}}
        for rule, samples, early, secs, d in (
            ("off", 10.0, 0.0, None, 0.0), ("never", 10.0, 0.0, 3.0, 0.0),
            ("window:2", 4.5, 0.75, 1.5, -0.02),
        )
    ]  # fmt: skip
    profile = {"prefill": 0.4, "decode": 1.1, "steps": 12.0, "sequences": 6.5}
    live = {"questions": n, "fixed": seconds, "adaptive": seconds / 2, "excerpt": 0.0,
            "large": seconds / 4, "samples": {"adaptive": 4.5},
            "profiles": {"fixed": profile, "adaptive": profile}}  # fmt: skip
    return {"questions": n, "rows": rows, "reference": 0.8, "live": live}


SPENT = {"seconds": 2.0, "tokens": 300, "flops": 4e9, "calls": 4}
CASES: dict[str, tuple[dict[str, Any], list[str]]] = {
    "adaptive-fit": (
        {
            "rounds": "3,3",
            "schedule": [3, 3, 3, 1],
            "questions": 40,
            "k": 10,
            "tolerance": 0.01,
            "base": {"verified": 0.6, "selected": 0.7},
            "rows": [
                {
                    "rule": "window:2",
                    "samples": 4.25,
                    "early": 0.8,
                    "verified": 0.59,
                    "selected": 0.7,
                }
            ],
            "chosen": {"window": "window:2"},
        },
        ["| `window:2` | 4.25 | 80% | 0.590 (-0.010) | 0.700 (+0.000) |", "Chosen: `window:2`."],
    ),
    "excerpt-fit": (
        {
            "grid": "2",
            "k": 10,
            "tolerance": 0.01,
            "chosen": "excerpt:2",
            "rows": [
                {
                    "reads": "article",
                    VER: 0.6,
                    SEL: 0.7,
                    PAS: 0.9,
                    "tokens": 812,
                    "shown": 1.0,
                    "n": 40,
                },
                {
                    "reads": "excerpt:2",
                    VER: 0.55,
                    SEL: 0.7,
                    PAS: 0.8,
                    "tokens": 201,
                    "shown": 0.9,
                    "n": 40,
                },
            ],
        },
        ["| `excerpt:2` | 201 | 90.0% | 0.550 (-0.050) |", "40 questions", "Chosen: `excerpt:2`."],
    ),
    "feature-sets": (
        {
            "sets": {"a-fit": 30, "b-fit": 20},
            "candidates": 120,
            "rows": [
                {"features": "the earlier 13", "threshold": 0.3, "accuracy": [0.5, 0.7]},
                {
                    "features": f"all {len(FEATURES)} (shipped)",
                    "threshold": 0.1,
                    "accuracy": [0.6, 0.8],
                },
                {
                    "features": f"all {len(FEATURES)} + `{LARGE_EVIDENCE}`",
                    "threshold": 0.2,
                    "accuracy": [0.7, 0.8],
                },
            ],
            "evidence": {"calls": 7, "at_zero": 0.66, "best_threshold": 0.5, "best_mean": 0.7},
        },
        [
            "features_shipped_mean=0.700",
            "features_best_mean=0.750",
            "evidence_margin=0.00",
            "| the earlier 13 | 0.30 | 0.500 | 0.700 | 0.600 |",
        ],
    ),
    "sampling": (
        {
            "backend": "batched",
            "k": 10,
            "questions": 4,
            "article": "a02",
            "small": "s",
            "large": "l",
            "identical": 4,
            "overhead": 1.1,
            "peak_rss_mib": 900.0,
            "seconds": {
                "one": 2.0,
                "k": 5.0,
                "batched": 3.0,
                "llama": 6.0,
                "reuse": 1.0,
                "reset": 4.0,
                "pipeline": 8.0,
                "large": 2.0,
            },
        },
        [
            "ratio_A=2.50",
            "ratio_B=0.50",
            "ratio_C=0.25",
            "ratio_D=4.00",
            "identical=4/4",
            "(1.25 s vs 0.50 s per question)",
        ],
    ),
    "large-check-toyset": (
        {
            "name": "toyset",
            "run": "r1",
            "questions": 2,
            "large": "l",
            "threads": 2,
            "load": [0.5, 1.25],
            "k": 4,
            "accuracy": {"large@1": 0.5},
            "spent": {
                "large@1": SPENT,
                "whole": {**SPENT, "flops": 2e9},
                "evidence": {**SPENT, "seconds": 1.0},
            },
        },
        [
            "check_cost_ratio_toyset=1.00",
            "check_whole_cost_ratio_toyset=0.50",
            "check_seconds_ratio_toyset=0.50",
            "large_acc_toyset=0.500",
            "load_max=1.25",
            "| whole | 2.00 | 1.000 | 150 | 1.0 | 1.00 | 0.50 |",
        ],
    ),
    "speculative": (
        {
            "questions": 2,
            "large": "l",
            "draft": "d",
            "draft_length": 8,
            "max_tokens": 32,
            "modes": {
                "off": {"wall": 6.0, "tokens": 12, "drafted": 0, "accepted": 0, "identical": 2},
                "lookup": {"wall": 3.0, "tokens": 12, "drafted": 10, "accepted": 5, "identical": 2},
                "draft": {"wall": 4.0, "tokens": 12, "drafted": 8, "accepted": 6, "identical": 1},
            },
        },
        [
            "lookup_speedup=2.00",
            "draft_speedup=1.50",
            "identical=false",
            "| 6 (75%) | 1.50x | 1/2 |",
        ],
    ),
    "adaptive": (
        {
            "reading": "article",
            "sets": {"squad-v1": _adaptive_set(40, 4.0), "bundled": _adaptive_set(20, 2.0)},
        },
        [
            "adaptive_samples_squad=4.50",
            "adaptive_acc_delta_squad=-0.020",
            "ratio_D_squad=2.00",
            "ratio_D_fixed_bundled=4.00",
            "| `window:2` | 4.50 | 75% | 0.580 | -0.020 [-0.070, +0.030]",
            "**bundled** (20 questions)",
        ],
    ),
    "server-llama-server": (
        {
            "model": "m",
            "server": "llama-server",
            "url": "",
            "concurrency": 8,
            "questions": 4,
            "seconds": [8.0, 2.0],
            "identical_passes": 4,
            "compared": "run-x",
            "equal_in_process": 3,
            "differ": [["q1", "12", "13"]],
        },
        ["Throughput ratio 8 / 1: **4.00x**", "equal_in_process=3/4", "`q1`: in-process `12`"],
    ),
    "model-check": (
        {
            "questions": 10,
            "said_none": 1,
            "seconds": {"sampling": 4.0, "choice": 1.0, "check": 2.0},
            "right_first": {
                "any candidate right (a perfect ranking)": 9,
                "the vote (most confirmed samples)": 6,
                "support": 5,
                "selector features, out of fold": 7,
                "selector features + choice, out of fold": 6,
                "selector features + P(yes), out of fold": 8,
            },
        },
        ["oof_base=0.700", "oof_choice=0.600", "choice_over_sampling=0.25", "by -1 and +1"],
    ),
    "selector-cost": (
        {
            "features": {"candidates": 10_400, "questions": 400, "seconds": 2.6},
            "logprob": {"questions": 8, "k": 10, "without": 300.0, "with": 303.0},
            "runs": {"squad-v1": {"scoring": 0.3, "sampling": 600.0}},
        },
        [
            "features_10k_s=2.50",
            "logprob_ratio=1.010",
            "scoring_over_sampling_squad-v1=0.0005",
            "10,400 candidates of 400 bundled questions in 2.60 s",
        ],
    ),
    "drafts": (
        {
            "pool_n": 14,
            "selector": {
                "questions": {"a-fit": 3},
                "command": "factqa bench x",
                "chosen": "rank",
                "ways": {"rank": 0.6},
                "unknown_abstains": False,
            },
            "sets": {
                "drop": {
                    "k": 10,
                    "stated": 3,
                    "stated_all": 4,
                    "whole": 1.0,
                    "bounded": 0.5,
                    "losses": {"row": 2},
                    "methods": {
                        "large": {"all": 0.4, "stated": 0.5, "flops": 1.0},
                        "small_text": {"all": 0.3, "stated": 0.25, "flops": 0.1234},
                        "pass": {"all": 0.7, "stated": 0.75, "flops": 0.9},
                    },
                }
            },
        },
        [
            "| drop (k=10) | 3 / 4 | 0.750 | 0.500 | 1.000 | — |",
            "| 0/0/2/0/0 |",
            "small_text_flops_drop=0.123",
            "large_drop_stated=0.500",
            "| rank | 0.600 |",
        ],
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_study_s_record_renders_its_figures(name: str, tmp_path: Path) -> None:
    figures, shown = CASES[name]
    path = save(measured(name, f"factqa bench {name} --write", figures), tmp_path)
    record = load(path)  # as the document reads it: plain JSON
    assert record.figures == json.loads(json.dumps(figures))
    text = render(record)
    assert f"`factqa bench {name} --write`" in text and record.commit in text
    for said in shown:
        assert said in text, said
    for key, value in line_pairs(text).items():  # a machine-readable line's pairs are figures
        assert value and " " not in value, key


def test_a_family_renders_each_of_its_records_and_places_them_in_its_part() -> None:
    """`server-*` and `large-check-*`: one renderer, a record a server or data set."""
    assert section_of("server-experiment") is section_of("server-llama-server")
    assert section_of("server-experiment").part == "cost"  # type: ignore[union-attr]
    assert section_of("large-check-squad").name == "large-check-*"  # type: ignore[union-attr]
    assert section_of("large-check").name == "large-check"  # type: ignore[union-attr]
    assert section_of("no-such-study") is None


def test_drafts_keeps_the_recorded_figures_of_a_data_set_whose_run_is_absent(
    tmp_path: Path,
) -> None:
    md = tmp_path / "docs" / "RESULTS.md"
    figures = CASES["drafts"][0]
    before = {**figures, "sets": {"drop": figures["sets"]["drop"], "bundled": {"k": 1}}}
    save(Record("drafts", "factqa bench drafts --write", before), results_dir(md))
    assert drafts.kept(md, {"bundled"}) == {"drop": figures["sets"]["drop"]}
    assert drafts.kept(md, {"bundled", "drop"}) == {}
    assert drafts.kept(tmp_path / "elsewhere.md", set()) == {}  # no record: nothing kept


def test_no_study_writes_markdown_as_its_record() -> None:
    """Every module of experiment/bench/ that saves a record (`finish`, `publish`) registers the
    renderer of what it saves, or is read by a section that does (the clean test's records);
    none saves its section's Markdown (`write_section`, retired) or builds a record's blocks."""
    from experiment.bench import clean_test
    from experiment.bench.clean_test import READ_BY_CLEAN

    bench = PROJECT_ROOT / "experiment" / "bench"
    for path in sorted(bench.rglob("*.py")):
        if path.name in ("harness.py", "sections.py"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        called = {
            getattr(n.func, "id", getattr(n.func, "attr", ""))
            for n in ast.walk(tree)
            if isinstance(n, ast.Call)
        }
        built = [  # a record's blocks spelled out: `{"blocks": ...}`
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Dict)
            and any(isinstance(k, ast.Constant) and k.value == "blocks" for k in n.keys)
        ]
        assert not built or path.name == "document.py", path  # the migrated summary's rows
        assert "write_section" not in called, path  # a section's Markdown saved as its record
        if not called & {"finish", "publish"}:
            continue
        sections = [
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "renders"
        ]
        names = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)}
        names |= {  # a record name imported from the clean test, which reads the record
            getattr(clean_test, a.name)
            for n in ast.walk(tree)
            if isinstance(n, ast.ImportFrom) and n.module == clean_test.__name__
            for a in n.names
        }
        assert sections or names & set(READ_BY_CLEAN), path.relative_to(PROJECT_ROOT)
