"""In-process llama.cpp backend through llama-cpp-python's high-level `Llama`.

Samples for one prompt run one after another; `Llama` keeps the KV cache of the longest common
token prefix with the previous call, so the article is read once per run of questions about it and
each further sample costs only its own decoding; the work is ordered article by article for that.

Weight repacking into "extra buffer types" is off by default: with the llama.cpp bundled in
llama-cpp-python 0.3.36, the AMX repack of q8_0/q6_K tensors crashes in decode on CPUs with AMX
(seen on this project's machines with the default Qwen2.5 models). `FACTQA_LLAMA_REPACK=1` turns it
back on. The high-level `Llama` does not expose the flag, so it is set on the default model
parameters for the duration of the load only.

What a sample evaluated is logged where `Llama` hands tokens to llama.cpp (`Llama.eval`: the first
position and the number of tokens of each call), not read from llama.cpp's counters:
`llama_perf_context` reports max(1, n) for each counter, so a difference around a call misses a
token whenever a counter starts at 0 (the first call after loading) and cannot tell no one-token
batch from one. tests/test_cost.py checks the log against the counters.
"""

from __future__ import annotations

import contextlib
import functools
import io
import itertools
import math
import os
import time
from collections.abc import Iterator, Sequence

from experiment.base.errors import ModelError
from experiment.base.types import Generation
from experiment.generate.models.base import Backend, CandidateScores, Messages, SamplingParams
from experiment.generate.models.cost import ModelShape, shape_of
from experiment.generate.models.scoring import answer_tokens, common_prefix, end_token, log_softmax
from experiment.generate.models.store import ModelFile

DEFAULT_CONTEXT = 4096


def default_params_with(use_extra_bufts: bool, original):  # type: ignore[no-untyped-def]
    """llama.cpp's default model parameters, with weight repacking set as asked."""

    def params():  # type: ignore[no-untyped-def]
        p = original()
        p.use_extra_bufts = use_extra_bufts
        return p

    return params


@contextlib.contextmanager
def _model_params(use_extra_bufts: bool) -> Iterator[None]:
    import llama_cpp
    from llama_cpp import llama as high_level

    original = llama_cpp.llama_model_default_params
    params = default_params_with(use_extra_bufts, original)
    high_level.llama_cpp.llama_model_default_params = params
    try:
        yield
    finally:
        high_level.llama_cpp.llama_model_default_params = original


@functools.cache
def _counting_llama() -> type:
    """`Llama` that logs each `eval` as (first position, tokens) in `evaluated`."""
    from llama_cpp import Llama

    class CountingLlama(Llama):
        evaluated: list[tuple[int, int]]  # set per sample by `LlamaBackend.generate`

        def eval(self, tokens: Sequence[int]) -> None:
            self.__dict__.setdefault("evaluated", []).append((int(self.n_tokens), len(tokens)))
            super().eval(tokens)

    return CountingLlama


def chat_prompt(llm, messages: Messages) -> str:  # type: ignore[no-untyped-def]
    """The prompt text the chat template of a loaded `Llama` makes of `messages`, as `Llama`
    renders it for a chat completion."""
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    template = llm.metadata.get("tokenizer.chat_template")
    if not template:
        raise ModelError("the model has no chat template")

    def text(token: int) -> str:
        return llm._model.token_get_text(token) if token != -1 else ""

    formatter = Jinja2ChatFormatter(template, text(llm.token_eos()), text(llm.token_bos()))
    return formatter(messages=messages).prompt


def end_of_turn(llm) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    """The token that ends the model's turn (`scoring.end_token`) and its text."""
    template = llm.metadata.get("tokenizer.chat_template") or ""

    def text(token: int) -> str:
        return llm._model.token_get_text(token) if token != -1 else ""

    def tokenize(t: str, bos: bool) -> list[int]:
        return list(llm.tokenize(t.encode(), add_bos=bos, special=True))

    eos = llm.token_eos()
    eot = end_token(
        template, text(eos), text(llm.token_bos()), tokenize, llm._model.token_eot(), eos
    )
    return eot, llm.detokenize([eot], special=True).decode("utf-8", "ignore")


class LlamaBackend(Backend):
    def __init__(
        self, model: ModelFile, n_ctx: int = DEFAULT_CONTEXT, n_threads: int | None = None
    ) -> None:
        import llama_cpp

        self.name = model.name
        self.fingerprint = f"sha256:{model.sha256}"
        self.n_ctx = n_ctx
        self.setup = {"backend": "llama", "n_ctx": n_ctx, "llama_cpp": llama_cpp.__version__}
        try:
            # llama.cpp prints its load log to stderr even with verbose=False on some builds.
            repack = os.environ.get("FACTQA_LLAMA_REPACK", "") == "1"
            with contextlib.redirect_stderr(io.StringIO()), _model_params(repack):
                self._llm = _counting_llama()(
                    model_path=str(model.path),
                    n_ctx=n_ctx,
                    n_threads=n_threads or os.cpu_count() or 1,
                    verbose=False,
                )
        except (ValueError, RuntimeError) as e:
            raise ModelError(f"llama.cpp could not load {model.path}: {e}") from e
        try:
            self.shape: ModelShape | None = shape_of(model.path)
        except (OSError, ValueError):
            self.shape = None

    def reset(self) -> None:
        """Forget the KV cache: the next prompt is decoded from the start."""
        self._llm.reset()

    def perf_ms(self) -> float:
        """llama.cpp's own prompt-eval + eval milliseconds since the last `reset_perf`."""
        import llama_cpp

        perf = llama_cpp.llama_perf_context(self._llm._ctx.ctx)
        return float(perf.t_p_eval_ms + perf.t_eval_ms)

    def reset_perf(self) -> None:
        import llama_cpp

        llama_cpp.llama_perf_context_reset(self._llm._ctx.ctx)

    def _cost(self, evals: list[tuple[int, int]]) -> tuple[int, float | None]:
        """The tokens of one sample's `Llama.eval` calls, (first position, tokens) each, and their
        FLOPs: `Llama` asks for the logits of the last token of each `n_batch` chunk."""
        evaluated = sum(n for _, n in evals)
        if self.shape is None:
            return evaluated, None
        positions = [p for first, n in evals for p in range(first, first + n)]
        rows = sum(math.ceil(n / self._llm.n_batch) for _, n in evals)
        return evaluated, self.shape.flops(positions, rows)

    def count_tokens(self, text: str) -> int:
        return len(self._llm.tokenize(text.encode(), add_bos=False, special=True))

    def _log_softmax(self):  # type: ignore[no-untyped-def]
        """The log-probabilities after the last evaluated token, as a copy."""
        import llama_cpp

        ptr = llama_cpp.llama_get_logits_ith(self._llm._ctx.ctx, -1)
        return log_softmax(ptr, self._llm.n_vocab())

    def score(self, messages: Messages, candidates: Sequence[str]) -> CandidateScores:
        """Each candidate's log-probability after the prompt, one candidate after another on
        the prompt's cached prefix, one token per call (the batched backend decodes them as
        parallel sequences)."""
        import llama_cpp

        llm = self._llm
        t0 = time.perf_counter()
        text = chat_prompt(llm, messages)
        add_bos = bool(llama_cpp.llama_vocab_get_add_bos(llm._model.vocab))

        def tokenize(t: str, bos: bool) -> list[int]:
            return list(llm.tokenize(t.encode(), add_bos=add_bos and bos, special=True))

        prompt = tokenize(text, True)
        eot, end = end_of_turn(llm)
        answers = [answer_tokens(tokenize, text, prompt, c, eot, end) for c in candidates]
        longest = max((len(a) for a in answers), default=0)
        if len(prompt) + longest > self.n_ctx:
            raise ModelError(f"{self.name}: prompt of {len(prompt)} tokens exceeds the context")
        llm.evaluated = []
        common = common_prefix(llm.input_ids[: llm.n_tokens], prompt)
        llm.n_tokens = min(common, len(prompt) - 1)  # always one token, for fresh logits
        llm.eval(prompt[llm.n_tokens :])
        first = self._log_softmax()
        logprobs = []
        for answer in answers:
            llm.n_tokens = len(prompt)
            total = float(first[answer[0]])
            for tok, following in itertools.pairwise(answer):
                llm.eval([tok])
                total += float(self._log_softmax()[following])
            logprobs.append(total)
        llm.n_tokens = len(prompt)
        evaluated, flops = self._cost(llm.evaluated)
        return CandidateScores(
            tuple(logprobs),
            tuple(len(a) for a in answers),
            len(prompt),
            time.perf_counter() - t0,
            evaluated,
            flops,
        )

    def prompt_limit(self, k: int, max_tokens: int) -> int:
        """Prompt tokens that fit beside one answer (samples are generated one at a time)."""
        return self.n_ctx - max_tokens

    def generate(
        self, messages: Messages, params: SamplingParams, seeds: Sequence[int]
    ) -> list[Generation]:
        out: list[Generation] = []
        for seed in seeds:
            t0 = time.perf_counter()
            self._llm.evaluated = []
            try:
                res = self._llm.create_chat_completion(
                    messages=messages,  # type: ignore[arg-type]
                    temperature=params.temperature,
                    top_p=params.top_p,
                    top_k=params.top_k,
                    max_tokens=params.max_tokens,
                    stop=list(params.stop),
                    seed=seed,
                )
            except ValueError as e:  # llama-cpp-python raises ValueError when the prompt overflows
                raise ModelError(f"{self.name}: {e}") from e
            seconds = time.perf_counter() - t0
            choice = res["choices"][0]  # type: ignore[index]
            usage = res["usage"]  # type: ignore[index]
            evaluated, flops = self._cost(self._llm.evaluated)
            out.append(
                Generation(
                    text=choice["message"]["content"] or "",
                    prompt_tokens=int(usage["prompt_tokens"]),
                    completion_tokens=int(usage["completion_tokens"]),
                    seconds=seconds,
                    finish_reason=str(choice.get("finish_reason") or ""),
                    evaluated_tokens=evaluated,
                    flops=flops,
                )
            )
            if self.on_sample:
                self.on_sample()
        return out
