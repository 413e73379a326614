"""k samples of one prompt decoded together, through llama-cpp-python's low-level API.

The prompt is decoded once on sequence 0; its KV cells are shared with sequences 1..k-1
(`llama_memory_seq_cp` on a unified KV cache copies no data); then every step decodes one token
for each unfinished sequence in a single batch, each sequence with its own seeded sampler. The
prompt's tokens stay in the cache after the call, so the next prompt (the next question about the
same article) decodes only the tokens after the longest common prefix.

Measured (docs/RESULTS.md, `factqa bench sampling`): about half the time of sequential samples for
k = 10 on the default small model, reproducible run to run at any temperature. llama.cpp does not
compute a row of a batch bit for bit as it computes it alone, so sampled sequences differ from
the same seeds decoded one by one (allowed: they are reproducible, and each follows the model's
distribution). Greedy samples are decoded once and repeated, so at temperature 0 the output is
the same whether k sequences are asked for together or one alone, by construction, and equals
the sequential backend's greedy answer on the prompts tests/test_batched.py tries.
"""

from __future__ import annotations

import ctypes
import os
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from experiment.base.errors import ModelError
from experiment.base.types import Generation
from experiment.generate.models.base import Backend, CandidateScores, Messages, SamplingParams
from experiment.generate.models.cost import ModelShape, shape_of
from experiment.generate.models.scoring import answer_tokens, common_prefix, end_token, log_softmax
from experiment.generate.models.store import ModelFile

N_BATCH = 512
DRAFT_LENGTH = 8  # tokens proposed per verification batch


def _copy(one: Generation, seconds: float) -> Generation:
    """A repeat of a greedy answer decoded once: it evaluated nothing more."""
    return replace(one, seconds=seconds, evaluated_tokens=0, flops=0.0)


def cut_at_stop(text: str, stops: Sequence[str]) -> str:
    """`text` up to the first occurrence of any stop string."""
    for stop in stops:
        cut = text.find(stop)
        if cut >= 0:
            text = text[:cut]
    return text


class BatchedLlamaBackend(Backend):
    # Set by __init__; here so that __del__ of a half-made backend (a load failed) frees nothing.
    _L: Any = None
    _ctx: Any = None
    _model: Any = None
    batch_dependent = True  # a row's numbers depend on the batch it is decoded in

    def __init__(
        self,
        model: ModelFile,
        n_ctx: int = 4096,
        n_seq_max: int = 16,
        n_threads: int | None = None,
        speculative: str = "off",
        drafter: BatchedLlamaBackend | None = None,
    ) -> None:
        import llama_cpp as L
        from llama_cpp._logger import set_verbose
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        self._L = L
        self.name = model.name
        # Its samples differ from the sequential backend's for the same seed: cache them apart.
        self.fingerprint = f"sha256:{model.sha256}+batched"
        # Sum each answer's token log-probabilities (the selector's `logprob` feature); off only
        # to measure what it costs (`factqa bench selector-cost`).
        self.logprobs = True
        self.n_seq_max = n_seq_max
        set_verbose(False)  # llama.cpp's load log only on errors, as Llama(verbose=False) does
        L.llama_backend_init()
        mp = L.llama_model_default_params()
        mp.use_extra_bufts = os.environ.get("FACTQA_LLAMA_REPACK", "") == "1"  # see llama.py
        self._model = L.llama_model_load_from_file(str(model.path).encode(), mp)
        if not self._model:
            raise ModelError(f"llama.cpp could not load {model.path}")
        cp = L.llama_context_default_params()
        cp.n_ctx = n_ctx
        cp.n_batch = N_BATCH
        cp.n_ubatch = N_BATCH
        cp.n_seq_max = n_seq_max
        cp.kv_unified = True  # the k sequences share the prompt's cells
        # As the high-level Llama (llama.py) defaults to, so both backends compute alike.
        cp.flash_attn_type = L.LLAMA_FLASH_ATTN_TYPE_DISABLED
        cp.no_perf = False  # keep llama.cpp's timings, for `factqa bench sampling`'s overhead
        cp.n_threads = cp.n_threads_batch = n_threads or os.cpu_count() or 1
        self._ctx = L.llama_init_from_model(self._model, cp)
        if not self._ctx:
            raise ModelError(f"llama.cpp could not create a context for {model.path}")
        self.n_ctx = L.llama_n_ctx(self._ctx)
        self._vocab = L.llama_model_get_vocab(self._model)
        self._mem = L.llama_get_memory(self._ctx)
        self._cached: list[int] = []  # the tokens whose cells sequence 0 holds
        template = L.llama_model_chat_template(self._model, None)
        if not template:
            raise ModelError(f"{model.path} has no chat template")
        self._format = Jinja2ChatFormatter(
            template=template.decode(),
            eos_token=self._piece(L.llama_vocab_eos(self._vocab)),
            bos_token=self._piece(L.llama_vocab_bos(self._vocab)),
        )
        self._add_bos = bool(L.llama_vocab_get_add_bos(self._vocab))
        self._eot = self._turn_end(template.decode())  # ends a scored answer
        self._n_vocab = L.llama_vocab_n_tokens(self._vocab)
        # Greedy answers may be drafted ("lookup", or "draft" with `drafter`). Outputs are meant
        # to stay the greedy ones, but a batched row can flip a near tie, so the mode is in the
        # cache key.
        self.speculative = speculative
        self.setup = {
            "backend": "batched",
            "n_ctx": self.n_ctx,
            "speculative": speculative,
            "llama_cpp": L.__version__,
        }
        self.drafter = drafter
        self.drafted = 0
        self.accepted = 0
        try:
            self.shape: ModelShape | None = shape_of(model.path)
        except (OSError, ValueError):
            self.shape = None
        self._spent: dict[int, list[float]] = {}  # per sequence: [tokens, FLOPs] of this call
        if speculative == "draft":
            if drafter is None:
                raise ModelError("--speculative draft needs a draft model")
            if drafter._n_vocab != self._n_vocab:
                raise ModelError(
                    f"draft model {drafter.name} has {drafter._n_vocab} tokens, {self.name} has "
                    f"{self._n_vocab}: a drafter must share the tokenizer"
                )

    def __del__(self) -> None:
        L = self._L
        if L is not None and self._ctx:
            L.llama_free(self._ctx)
            self._ctx = None
        if L is not None and self._model:
            L.llama_model_free(self._model)
            self._model = None

    def reset(self) -> None:
        """Forget every cached token: the next prompt is decoded from the start."""
        self._L.llama_memory_clear(self._mem, True)
        self._cached = []

    def perf_ms(self) -> float:
        """llama.cpp's own prompt-eval + eval milliseconds since the last `reset_perf`."""
        perf = self._L.llama_perf_context(self._ctx)
        return float(perf.t_p_eval_ms + perf.t_eval_ms)

    def reset_perf(self) -> None:
        self._L.llama_perf_context_reset(self._ctx)

    def _bytes(self, token: int, special: bool = False) -> bytes:
        """The token's bytes; `special` renders control tokens (eos, bos) as their text."""
        size = 64
        while True:
            buf = ctypes.create_string_buffer(size)
            n = self._L.llama_token_to_piece(self._vocab, token, buf, size, 0, special)
            if n >= 0:
                return buf.raw[:n]
            size = -n  # llama.cpp says how large the buffer must be

    def _turn_end(self, template: str) -> int:
        """The token that ends the model's turn (`scoring.end_token`)."""
        L, vocab = self._L, self._vocab
        eos, bos = L.llama_vocab_eos(vocab), L.llama_vocab_bos(vocab)
        return end_token(
            template,
            self._piece(eos),
            self._piece(bos),
            self.tokenize,
            L.llama_vocab_eot(vocab),
            eos,
        )

    def _piece(self, token: int) -> str:
        return self._bytes(token, special=True).decode("utf-8", errors="ignore")

    def tokenize(self, text: str, bos: bool = True) -> list[int]:
        """The tokens of `text`, special tokens parsed; a BOS first where the model adds one
        and `bos`."""
        data = text.encode()
        size = len(data) + 16
        buf = (self._L.llama_token * size)()
        add = self._add_bos and bos
        n = self._L.llama_tokenize(self._vocab, data, len(data), buf, size, add, True)
        if n < 0:
            raise ModelError(f"{self.name}: prompt could not be tokenized")
        return list(buf[:n])

    def count_tokens(self, text: str) -> int:
        return len(self.tokenize(text))

    def counters(self) -> dict[str, int]:
        return {"drafted": self.drafted, "accepted": self.accepted}

    def prompt_limit(self, k: int, max_tokens: int) -> int:
        """Prompt tokens that fit beside k answers (each sequence keeps its own answer cells)."""
        return self.n_ctx - k * max_tokens

    def prompt_tokens(self, messages: Messages) -> list[int]:
        return self.tokenize(self._format(messages=messages).prompt)

    def _decode(
        self,
        tokens: Sequence[int],
        seqs: Sequence[int],
        positions: Sequence[int],
        logits: Sequence[bool],
    ) -> None:
        L = self._L
        batch = L.llama_batch_init(len(tokens), 0, 1)
        try:
            for i, (tok, seq, pos, want) in enumerate(
                zip(tokens, seqs, positions, logits, strict=True)
            ):
                batch.token[i] = tok
                batch.pos[i] = pos
                batch.n_seq_id[i] = 1
                batch.seq_id[i][0] = seq
                batch.logits[i] = want
            batch.n_tokens = len(tokens)
            if L.llama_decode(self._ctx, batch) != 0:
                raise ModelError(f"{self.name}: llama_decode failed (context full?)")
        finally:
            L.llama_batch_free(batch)
        for seq, pos, want in zip(seqs, positions, logits, strict=True):
            spent = self._spent.setdefault(seq, [0, 0.0])
            spent[0] += 1
            if self.shape is not None:
                spent[1] += self.shape.flops([pos], int(want))

    def _take_spent(self, seq: int) -> tuple[int, float | None]:
        """The tokens and FLOPs sequence `seq` evaluated since the last take, then forgotten."""
        tokens, flops = self._spent.pop(seq, [0, 0.0])
        return int(tokens), (flops if self.shape is not None else None)

    def _prefill(self, tokens: list[int]) -> int:
        """Decode what is not cached yet on sequence 0; the batch index of the last logits."""
        L = self._L
        common = min(
            common_prefix(self._cached, tokens), len(tokens) - 1
        )  # always decode one token, for fresh logits
        for s in range(1, self.n_seq_max):
            L.llama_memory_seq_rm(self._mem, s, -1, -1)
        L.llama_memory_seq_rm(self._mem, 0, common, -1)
        self._cached = tokens[:common]
        rest = tokens[common:]
        last = 0
        for start in range(0, len(rest), N_BATCH):
            chunk = rest[start : start + N_BATCH]
            final = start + N_BATCH >= len(rest)
            self._decode(
                chunk,
                [0] * len(chunk),
                list(range(common + start, common + start + len(chunk))),
                [final and i == len(chunk) - 1 for i in range(len(chunk))],
            )
            last = len(chunk) - 1
        self._cached = list(tokens)
        return last

    def _sampler(self, params: SamplingParams, seed: int):  # type: ignore[no-untyped-def]
        L = self._L
        chain = L.llama_sampler_chain_init(L.llama_sampler_chain_default_params())
        if params.temperature <= 0:
            L.llama_sampler_chain_add(chain, L.llama_sampler_init_greedy())
            return chain
        L.llama_sampler_chain_add(chain, L.llama_sampler_init_top_k(params.top_k))
        L.llama_sampler_chain_add(chain, L.llama_sampler_init_top_p(params.top_p, 1))
        L.llama_sampler_chain_add(chain, L.llama_sampler_init_temp(params.temperature))
        L.llama_sampler_chain_add(chain, L.llama_sampler_init_dist(seed & 0xFFFFFFFF))
        return chain

    # -- scoring given answers (the large model as a checker) ---------------------------------

    def score(self, messages: Messages, candidates: Sequence[str]) -> CandidateScores:
        """Each candidate's log-probability after the prompt, as parallel sequences over the
        prompt's cached cells: the prompt is decoded once (after its cached prefix), then every
        candidate's tokens, one sequence each, in one batch per `n_seq_max - 1` candidates."""
        L = self._L
        self._spent = {}
        t0 = time.perf_counter()
        text = self._format(messages=messages).prompt
        prompt = self.tokenize(text)
        end = self._piece(self._eot)
        answers = [
            answer_tokens(self.tokenize, text, prompt, c, self._eot, end) for c in candidates
        ]
        longest = max((len(a) for a in answers), default=0)
        if len(prompt) + longest > self.n_ctx:
            raise ModelError(f"{self.name}: prompt of {len(prompt)} tokens exceeds the context")
        first = self._logsoftmax(self._prefill(prompt))
        logprobs = [float(first[a[0]]) for a in answers]
        lanes = list(range(1, self.n_seq_max)) or [0]  # sequence 0 alone: one at a time
        width = max(1, min(len(lanes), N_BATCH // max(1, longest)))
        try:
            for start in range(0, len(answers), width):
                chunk = enumerate(answers[start : start + width], start)
                group = list(zip(lanes, chunk, strict=False))
                tokens, seqs, positions, owner = [], [], [], []
                for seq, (j, answer) in group:
                    if seq:
                        L.llama_memory_seq_cp(self._mem, 0, seq, -1, -1)
                    for i, tok in enumerate(answer[:-1]):
                        tokens.append(tok)
                        seqs.append(seq)
                        positions.append(len(prompt) + i)
                        owner.append((j, answer[i + 1]))
                if tokens:
                    self._decode(tokens, seqs, positions, [True] * len(tokens))
                    for b, (j, following) in enumerate(owner):
                        logprobs[j] += float(self._logsoftmax(b)[following])
                for seq, _ in group:
                    L.llama_memory_seq_rm(self._mem, seq, len(prompt) if seq == 0 else -1, -1)
        finally:
            L.llama_memory_seq_rm(self._mem, 0, len(prompt), -1)  # keep the prompt only
        spent = [self._take_spent(s) for s in range(self.n_seq_max)]
        flops = [f for _, f in spent]
        return CandidateScores(
            tuple(logprobs),
            tuple(len(a) for a in answers),
            len(prompt),
            time.perf_counter() - t0,
            sum(t for t, _ in spent),
            None if self.shape is None else sum(f or 0.0 for f in flops),
        )

    # -- speculative greedy decoding (experiment/generate/speculative.py) --------------------

    def _logprob(self, batch_index: int, token: int) -> float:
        """log P(token) under the model's untempered distribution at `batch_index`."""
        import numpy as np

        ptr = self._L.llama_get_logits_ith(self._ctx, batch_index)
        logits = np.ctypeslib.as_array(ptr, shape=(self._n_vocab,))
        top = float(logits.max())
        return float(logits[token]) - top - float(np.log(np.exp(logits - top).sum()))

    def _logsoftmax(self, batch_index: int):  # type: ignore[no-untyped-def]
        """The untempered log-probabilities of every token at `batch_index`, as a copy."""
        return log_softmax(self._L.llama_get_logits_ith(self._ctx, batch_index), self._n_vocab)

    def _argmax(self, batch_index: int) -> int:
        import numpy as np

        ptr = self._L.llama_get_logits_ith(self._ctx, batch_index)
        return int(np.ctypeslib.as_array(ptr, shape=(self._n_vocab,)).argmax())

    def draft_greedy(self, history: list[int], length: int) -> list[int]:
        """As a draft model: `length` greedy tokens after `history` (its cache is reused)."""
        idx = self._prefill(history)
        out: list[int] = []
        for _ in range(length):
            tok = self._argmax(idx)
            if self._L.llama_vocab_is_eog(self._vocab, tok):
                break
            out.append(tok)
            self._decode([tok], [0], [len(self._cached)], [True])
            self._cached.append(tok)
            idx = 0
        return out

    def _speculative(self, messages: Messages, params: SamplingParams) -> Generation:
        """One greedy answer, the large model checking drafted tokens in batches."""
        from experiment.generate.speculative import accept_greedy, lookup_draft

        L = self._L
        t0 = time.perf_counter()
        tokens = self.prompt_tokens(messages)
        if len(tokens) + params.max_tokens + DRAFT_LENGTH > self.n_ctx:
            raise ModelError(f"{self.name}: prompt of {len(tokens)} tokens exceeds the context")
        out: list[int] = []
        text = b""

        def take(tok: int) -> str | None:
            """Add one answer token; the finish reason once the answer is complete."""
            nonlocal text
            if L.llama_vocab_is_eog(self._vocab, tok):
                return "stop"
            out.append(tok)
            text += self._bytes(tok)
            if any(stop in text.decode("utf-8", "ignore") for stop in params.stop):
                return "stop"
            return "length" if len(out) >= params.max_tokens else None

        cur = self._argmax(self._prefill(tokens))
        try:
            while (reason := take(cur)) is None:
                history = tokens + out
                room = min(DRAFT_LENGTH, params.max_tokens - len(out))
                if self.drafter is not None:
                    draft = self.drafter.draft_greedy(history, room)
                else:
                    draft = lookup_draft(history, length=room)
                pos = len(tokens) + len(out) - 1
                batch = [cur, *draft]
                self._decode(batch, [0] * len(batch), list(range(pos, pos + len(batch))),
                             [True] * len(batch))  # fmt: skip
                target = [self._argmax(i) for i in range(len(batch))]
                n, cur = accept_greedy(draft, target)
                self.drafted += len(draft)
                self.accepted += n
                L.llama_memory_seq_rm(self._mem, 0, pos + 1 + n, -1)  # drop rejected cells
                for tok in draft[:n]:
                    if (reason := take(tok)) is not None:
                        break
                if reason is not None:
                    break
        finally:
            L.llama_memory_seq_rm(self._mem, 0, len(tokens), -1)  # keep the prompt only
        answer = cut_at_stop(text.decode("utf-8", errors="replace"), params.stop)
        seconds = time.perf_counter() - t0
        evaluated, flops = self._take_spent(0)
        if self.drafter is not None:  # the draft model's work is this answer's cost too
            d_tokens, d_flops = self.drafter._take_spent(0)
            evaluated += d_tokens
            flops = None if flops is None or d_flops is None else flops + d_flops
        return Generation(
            answer.strip(), len(tokens), len(out), seconds, reason, None, evaluated, flops
        )

    def generate(
        self, messages: Messages, params: SamplingParams, seeds: Sequence[int]
    ) -> list[Generation]:
        self._spent = {}
        if self.drafter is not None:
            self.drafter._spent = {}
        if params.temperature <= 0 and self.speculative != "off":
            one = self._speculative(messages, params)
            return [one] + [_copy(one, 0.0) for _ in seeds[1:]]
        if params.temperature <= 0 and len(seeds) > 1:
            # Greedy samples of one prompt are one answer: decode it once. This also makes k
            # greedy samples identical to one decoded alone by construction (see above).
            one = self._generate(messages, params, seeds[:1])[0]
            share = one.seconds / len(seeds)
            return [replace(one, seconds=share)] + [_copy(one, share) for _ in seeds[1:]]
        return self._generate(messages, params, seeds)

    def _generate(
        self, messages: Messages, params: SamplingParams, seeds: Sequence[int]
    ) -> list[Generation]:
        L = self._L
        k = len(seeds)
        if k > self.n_seq_max:
            raise ModelError(f"{self.name}: {k} samples need n_seq_max >= {k}")
        t0 = time.perf_counter()
        tokens = self.prompt_tokens(messages)
        if len(tokens) + k * params.max_tokens > self.n_ctx:
            raise ModelError(
                f"{self.name}: prompt of {len(tokens)} tokens and {k} x "
                f"{params.max_tokens} answer tokens exceed the context of {self.n_ctx}"
            )
        idx = [self._prefill(tokens)] * k
        for s in range(1, k):  # share the prompt's cells; a unified cache copies no data
            L.llama_memory_seq_cp(self._mem, 0, s, -1, -1)
        samplers = [self._sampler(params, s) for s in seeds]
        texts = [b""] * k
        counts = [0] * k
        logprobs = [0.0] * k
        reasons = ["length"] * k
        active = list(range(k))
        try:
            for step in range(params.max_tokens):
                next_tokens = []
                for j, s in enumerate(active):
                    tok = L.llama_sampler_sample(samplers[s], self._ctx, idx[j])
                    if L.llama_vocab_is_eog(self._vocab, tok):
                        reasons[s] = "stop"
                        continue
                    counts[s] += 1
                    texts[s] += self._bytes(tok)
                    text = texts[s].decode("utf-8", errors="ignore")
                    if any(stop in text for stop in params.stop):
                        reasons[s] = "stop"
                        continue
                    if self.logprobs:
                        logprobs[s] += self._logprob(idx[j], tok)
                    next_tokens.append((s, tok))
                active = [s for s, _ in next_tokens]
                if not active or step == params.max_tokens - 1:
                    break
                pos = len(tokens) + step
                self._decode(
                    [t for _, t in next_tokens], active, [pos] * len(active), [True] * len(active)
                )
                idx = list(range(len(active)))
        finally:
            for smpl in samplers:
                L.llama_sampler_free(smpl)
            L.llama_memory_seq_rm(self._mem, 0, len(tokens), -1)  # keep the prompt only
        seconds = (time.perf_counter() - t0) / k
        out = []
        for s in range(k):
            text = cut_at_stop(texts[s].decode("utf-8", errors="replace"), params.stop)
            evaluated, flops = self._take_spent(s)  # the prompt is sequence 0's: sample 0 pays
            out.append(
                Generation(
                    text.strip(),
                    len(tokens),
                    counts[s],
                    seconds,
                    reasons[s],
                    logprobs[s] if self.logprobs else None,
                    evaluated,
                    flops,
                )
            )
        return out
