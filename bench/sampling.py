"""Sampling cost on the bundled corpus with the default models, measured side by side in one run.

    python bench/sampling.py [--quick] [--k 10] [--no-write]

- ratio A: wall time of k samples / one greedy answer, same prompt, both from a fresh context;
- ratio B: k samples decoded together (`--backend batched`) / k sequential calls (the default
  backend, llama.cpp prefix cache on), the article's questions in a row for both; and how many
  questions' k greedy sequences decoded together all equal the one decoded alone;
- ratio C: the questions of one article answered in a row with the article prefix reused /
  with the context reset before each question;
- ratio D: small-verified@k per question (k samples, extraction, verification) / large@1 per
  question, both with prefix reuse as in a run;
- overhead: backend wall time / llama.cpp's own prompt-eval + eval time for the same calls;
- peak_rss_mib: peak resident memory of this process, both models loaded in turn.

Writes its section of docs/RESULTS.md; the last line printed is machine-readable.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from experiment.corpus import load_articles, load_questions  # noqa: E402
from experiment.models.base import GREEDY, SamplingParams  # noqa: E402
from experiment.models.catalog import DEFAULT_LARGE, DEFAULT_SMALL  # noqa: E402
from experiment.models.llama import LlamaBackend  # noqa: E402
from experiment.models.store import resolve  # noqa: E402
from experiment.prompts import messages_for  # noqa: E402
from experiment.results_doc import update_section  # noqa: E402
from experiment.sampling import Sample, derive_seed  # noqa: E402
from experiment.scoring import score_sample  # noqa: E402

ARTICLE = "a02-q3-results"


def llama_ms(backend: LlamaBackend) -> float:
    """llama.cpp's own prompt-eval + eval milliseconds since the last reset."""
    import llama_cpp

    perf = llama_cpp.llama_perf_context(backend._llm._ctx.ctx)
    return float(perf.t_p_eval_ms + perf.t_eval_ms)


def reset_perf(backend: LlamaBackend) -> None:
    import llama_cpp

    llama_cpp.llama_perf_context_reset(backend._llm._ctx.ctx)


def timed(backend: LlamaBackend, messages, params, seeds, fresh: bool):  # type: ignore[no-untyped-def]
    if fresh:
        backend._llm.reset()  # forget the KV cache: the prompt is read again
    t0 = time.perf_counter()
    out = backend.generate(messages, params, seeds)
    return time.perf_counter() - t0, out


def timed_batched(backend, messages, params, seeds) -> float:  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    backend.generate(messages, params, seeds)
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="4 questions instead of the article's 13")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--no-write", action="store_true", help="do not update docs/RESULTS.md")
    args = ap.parse_args()
    articles = load_articles(ROOT / "articles")
    questions = [q for q in load_questions(ROOT / "questions", articles) if q.article_id == ARTICLE]
    questions = questions[:4] if args.quick else questions
    article = articles[ARTICLE]
    params = SamplingParams()
    small = LlamaBackend(resolve(DEFAULT_SMALL))

    # A: k samples vs one greedy answer, each from a fresh context
    t_one = t_k = 0.0
    for q in questions:
        m = messages_for(article, q)
        seeds = [derive_seed(0, q.id, i) for i in range(args.k)]
        t_one += timed(small, m, GREEDY, seeds[:1], fresh=True)[0]
        t_k += timed(small, m, params, seeds, fresh=True)[0]
    ratio_a = t_k / t_one

    # B: batched vs sequential, the same questions in a row; then greedy identity
    from experiment.models.batched import BatchedLlamaBackend

    batched = BatchedLlamaBackend(resolve(DEFAULT_SMALL), n_seq_max=args.k)
    t_batched = t_seq = 0.0
    small._llm.reset()
    for q in questions:
        m = messages_for(article, q)
        seeds = [derive_seed(0, q.id, i) for i in range(args.k)]
        t_batched += timed_batched(batched, m, params, seeds)
        t_seq += timed(small, m, params, seeds, fresh=False)[0]
    ratio_b = t_batched / t_seq
    identical = 0
    for q in questions:
        m = messages_for(article, q)
        together = {g.text for g in batched.generate(m, GREEDY, list(range(4)))}
        identical += together == {batched.generate(m, GREEDY, [0])[0].text}
    del batched

    # C: the article's questions in a row, prefix reused vs reset before each
    t_reuse = t_reset = 0.0
    small._llm.reset()
    for q in questions:
        t_reuse += timed(small, messages_for(article, q), GREEDY, [0], fresh=False)[0]
    for q in questions:
        t_reset += timed(small, messages_for(article, q), GREEDY, [0], fresh=True)[0]
    ratio_c = t_reuse / t_reset

    # D and overhead: the small-verified@k pipeline per question, as in a run
    small._llm.reset()
    reset_perf(small)
    t_pipe = t_backend = 0.0
    for q in questions:
        seeds = [derive_seed(0, q.id, i) for i in range(args.k)]
        t0 = time.perf_counter()
        dt_gen, gens = timed(small, messages_for(article, q), params, seeds, fresh=False)
        for i, g in enumerate(gens):
            score_sample(Sample(q, i, seeds[i], g, False), article, "small", small.name, 0.7)
        t_pipe += time.perf_counter() - t0
        t_backend += dt_gen
    overhead = t_backend / (llama_ms(small) / 1000)
    del small

    large = LlamaBackend(resolve(DEFAULT_LARGE))
    large._llm.reset()
    t_large = 0.0
    for q in questions:
        t_large += timed(large, messages_for(article, q), GREEDY, [0], fresh=False)[0]
    ratio_d = t_pipe / t_large
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    n = len(questions)
    report = "\n".join(
        [
            "## Sampling cost (current backend: sequential samples, llama.cpp prefix reuse)",
            "",
            f"Command: `python bench/sampling.py{' --quick' if args.quick else ''} --k {args.k}` "
            f"({n} questions of `{ARTICLE}`, small `{DEFAULT_SMALL}`, large `{DEFAULT_LARGE}`, "
            "2 CPU cores)",
            "",
            f"- ratio A, {args.k} samples / 1 greedy answer, fresh context each: **{ratio_a:.2f}** "
            f"({t_k / n:.2f} s vs {t_one / n:.2f} s per question)",
            f"- ratio B, {args.k} samples batched / sequential: **{ratio_b:.2f}** "
            f"({t_batched:.1f} s vs {t_seq:.1f} s); 4 greedy sequences decoded together all equal "
            f"the one decoded alone on {identical} of {n} questions",
            f"- ratio C, one article's questions with prefix reuse / reset before each: "
            f"**{ratio_c:.2f}** ({t_reuse:.1f} s vs {t_reset:.1f} s)",
            f"- ratio D, small-verified@{args.k} / large@1 per question: **{ratio_d:.2f}** "
            f"({t_pipe / n:.2f} s vs {t_large / n:.2f} s)",
            f"- overhead, backend wall time / llama.cpp eval time: **{overhead:.2f}**",
            f"- peak resident memory, both models loaded in turn: **{peak:,.0f} MiB**",
        ]
    )
    print(report)
    if not args.no_write:
        update_section(ROOT / "docs" / "RESULTS.md", "sampling", report)
    print(
        f"ratio_A={ratio_a:.2f} ratio_B={ratio_b:.2f} ratio_C={ratio_c:.2f} ratio_D={ratio_d:.2f} "
        f"overhead={overhead:.2f} peak_rss_mib={peak:.0f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
