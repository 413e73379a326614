"""A model behind any OpenAI-compatible `/v1/chat/completions` server (llama.cpp's server, vLLM,
Ollama, a hosted API).

Spec: `openai:MODEL@BASE_URL`, e.g. `openai:qwen2.5-coder-1.5b@http://127.0.0.1:8080/v1`. The
API key is read from `$FACTQA_API_KEY` (else `$OPENAI_API_KEY`) and only ever sent in the
Authorization header: it is never in the fingerprint, the records, the manifest or a log line.

- k samples: one request per sample, each with the sample's own seed, at most `concurrency` at a
  time. `n = k` is never asked for: a server that honours it draws all k choices from one seed,
  so a sample could not be reproduced or cached on its own, and a resumed run would mix draws.
- Failures: 429, 5xx, connection errors, timeouts and malformed bodies are retried up to
  `retries` times with exponential backoff (0.5 s, 1 s, 2 s, ... capped at 8 s, or the server's
  Retry-After), each retry logged with the request (its question's first words and seed). Other
  4xx answers are not retried. When the tries run out, `ModelError` names the request, the last
  failure and the time waited; the run records it for that question and stops after 5 questions
  in a row (`sampling.py`).
- A silent server (timeouts, refused connections): the defaults (20 s a try, 2 retries) give up
  on one request after about a minute (`worst_wait`). Once a request has had no answer through
  all its tries, the server is taken as down: the requests after it fail at once, without being
  sent, so a hung server stops a run in about a minute rather than after every request has
  waited its turn; a run's large model on a server its small model found down is down from its
  first request (`share_down`), so a hung server carrying both models costs one minute, not two.
  A request holds its slot through its retries.
- Sampling matches the in-process backends: top_k is sent, and the repetition penalty is set to
  1.0 (none), since llama.cpp's servers default to 1.1 and that changes greedy answers.
- Tokens and latency come from the response's `usage` block and the request's wall time.
- Scoring given answers (`score`, the large model as a checker) needs the server to render its
  chat prompt (`/apply-template`) and to echo prompt log-probabilities (`/v1/completions` with
  `echo` and `logprobs`): `python -m experiment.generate.serve` does both; a server that does
  not gives `CannotScore`, and the run leaves the checks out.
- The generation cache keys on `openai:MODEL@URL`, not a file hash: point two runs at the same
  server and model name and they share generations.
"""

from __future__ import annotations

import http.client
import json
import logging
import math
import os
import random
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from textwrap import shorten
from typing import Any

from experiment.base.errors import CannotScore, ModelError
from experiment.base.streams import TooLarge, read_capped, safe_strings, safe_text
from experiment.base.types import Generation
from experiment.generate.models.base import Backend, CandidateScores, Messages, SamplingParams

log = logging.getLogger("factqa")
PREFIX = "openai:"
KEY_VARS = ("FACTQA_API_KEY", "OPENAI_API_KEY")
RETRY_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}
MAX_BACKOFF = 8.0
BACKOFF = 0.5  # the first pause; each next one doubles
JITTER = 0.25  # each pause is drawn within +-25 % of its length
TIMEOUT = 20.0  # seconds to wait for one answer
RETRIES = 2  # tries after the first
# Sampling fields beyond the OpenAI API that llama.cpp's and vLLM's servers read; dropped for the
# rest of the run if a server refuses one with HTTP 400.
EXTRAS = ("top_k", "repeat_penalty")
MAX_BODY = 64 * 2**20  # bytes of one response read at most (an answer is a few kilobytes)
CHAT, COMPLETIONS, TEMPLATE = "chat/completions", "completions", "apply-template"  # routes


@dataclass(frozen=True)
class ServerSpec:
    model: str
    base_url: str

    @classmethod
    def parse(cls, spec: str) -> ServerSpec:
        body = spec[len(PREFIX) :] if spec.startswith(PREFIX) else spec
        model, sep, url = body.rpartition("@")
        if not sep or not model or not url.startswith(("http://", "https://")):
            raise ModelError(
                f"server model '{spec}' is not openai:MODEL@URL. "
                "Fix: e.g. openai:qwen2.5-coder-1.5b@http://127.0.0.1:8080/v1"
            )
        url = url.rstrip("/")
        if not url.endswith("/v1"):
            url += "/v1"
        return cls(model, url)


class Transient(Exception):
    """A failure worth another try: why, the server's Retry-After, and whether the server gave no
    answer at all (a timeout, a refused connection)."""

    def __init__(self, reason: str, retry_after: str | None = None, silent: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after = retry_after
        self.silent = silent


def worst_wait(timeout: float, retries: int, backoff: float = BACKOFF) -> float:
    """The longest one request waits on a silent server: every try's timeout and the longest
    pauses between them."""
    pauses = sum(min(MAX_BACKOFF, backoff * 2**i) for i in range(retries))
    return (retries + 1) * timeout + pauses * (1 + JITTER)


# Servers taken as down, by base URL: why, and when. A run's next model on the same server (the
# large after the small; a backend made with `share_down`) starts from it, so a hung server
# carrying both stops the run in about a minute, not two. Forgotten after `DOWN_MEMORY`, or at
# once when a request to that server succeeds.
_DOWN: dict[str, tuple[str, float]] = {}
DOWN_MEMORY = 600.0  # seconds


def _down_since(base_url: str, timeout: float) -> str:
    """Why the server at `base_url` was taken as down by another backend of this process within
    `DOWN_MEMORY` seconds, or ""."""
    reason, when = _DOWN.get(base_url, ("", -math.inf))
    return reason if time.monotonic() - when < max(DOWN_MEMORY, timeout) else ""


def request_name(messages: Messages, seed: int) -> str:
    """A request as log lines and errors name it: its question's first words and its seed."""
    content = str(messages[-1].get("content", "")) if messages else ""
    asked = content.rsplit("Question: ", 1)[-1].strip().split("\n", 1)[0]
    return f"'{shorten(asked, 60, placeholder='...')}', seed {seed}"


class OpenAIBackend(Backend):
    def __init__(
        self,
        spec: str,
        timeout: float = TIMEOUT,
        retries: int = RETRIES,
        concurrency: int = 4,
        backoff: float = BACKOFF,
        share_down: bool = False,
    ) -> None:
        self.server = ServerSpec.parse(spec)
        self.name = self.server.model
        self.fingerprint = f"{PREFIX}{self.server.model}@{self.server.base_url}"
        self.setup = {"backend": "openai-compatible"}  # the server's own version is not known
        self.timeout = timeout
        self.retries = retries
        self.concurrency = max(1, concurrency)
        self.backoff = backoff
        self.extras_off: set[str] = set()  # EXTRAS this server refused
        self.requests = 0
        self.retried = 0
        self.silent = ""  # why the server was taken as down ("" while it answers)
        self.share_down = share_down  # take a server another backend found down as down
        self._key = next((os.environ[v] for v in KEY_VARS if os.environ.get(v)), "")
        self._slots = threading.BoundedSemaphore(self.concurrency)  # requests in flight

    @property  # type: ignore[override]
    def parallel(self) -> int:
        """Questions `sample_all` may send at once (each with its own requests)."""
        return self.concurrency

    def counters(self) -> dict[str, int]:
        return {"requests": self.requests, "retried": self.retried}

    # -- HTTP -------------------------------------------------------------------------------

    def _post(self, body: dict[str, Any], path: str = CHAT) -> dict[str, Any]:
        req = urllib.request.Request(
            f"{self.server.base_url}/{path}" if path != TEMPLATE else self._template_url(),
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"}
            | ({"Authorization": f"Bearer {self._key}"} if self._key else {}),
            method="POST",
        )
        self.requests += 1
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                raw = read_capped(resp, MAX_BODY)
        except TooLarge as e:
            raise ModelError(
                f"{self.fingerprint}: its answer is {e}, read no further. Fix: check the server "
                "and the URL (an answer of one request is a few kilobytes)"
            ) from None
        except urllib.error.HTTPError as e:
            detail = safe_text(e.read(300).decode("utf-8", "replace"))
            if e.code in RETRY_STATUS:
                retry_after = e.headers.get("Retry-After") if e.headers else None
                raise Transient(f"HTTP {e.code}: {detail}", retry_after) from None
            named = [k for k in EXTRAS if k in detail and k not in self.extras_off]
            if e.code == 400 and named:
                self.extras_off.update(named)  # a strict server: ask again without them
                raise Transient(f"HTTP 400 about {', '.join(named)}; without it", "0") from None
            if e.code == 404 and path != CHAT:
                raise CannotScore(
                    f"{self.fingerprint} cannot score candidates: no {path} route (HTTP 404). "
                    "Scoring needs /apply-template and /v1/completions with echo and logprobs: "
                    "serve the model with `python -m experiment.generate.serve`, or run it "
                    "in-process"
                ) from None
            hint = {
                401: "check $FACTQA_API_KEY",
                403: "check $FACTQA_API_KEY",
                404: "check the model name and that the URL ends in /v1",
            }.get(e.code, "check the request and the server log")
            raise ModelError(f"{self.fingerprint}: HTTP {e.code}: {detail}. Fix: {hint}") from None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as e:
            reason = getattr(e, "reason", e)
            if isinstance(reason, TimeoutError):
                timed_out = f"no answer within {self.timeout:g} s (timed out)"
                raise Transient(timed_out, silent=True) from None
            why = str(reason) or type(reason).__name__
            raise Transient(f"no answer ({why})", silent=True) from None
        try:
            data = safe_strings(json.loads(raw))  # no unpaired surrogate reaches a file
            if path == TEMPLATE:
                if not isinstance(data.get("prompt"), str):
                    raise ValueError("no prompt")
                return data  # type: ignore[no-any-return]
            choices = data["choices"]
            if not isinstance(choices, list) or not choices:
                raise ValueError("no choices")
            for c in choices:
                if path == CHAT and not isinstance(c["message"]["content"], str | None):
                    raise ValueError("content is not text")
            return data  # type: ignore[no-any-return]
        except (ValueError, KeyError, TypeError) as e:
            raise Transient(f"malformed response ({e}): {raw[:120]!r}") from None

    def _template_url(self) -> str:
        """llama.cpp's server has /apply-template beside /v1, not under it."""
        base = self.server.base_url.rstrip("/")
        root = base[: -len("/v1")] if base.endswith("/v1") else base
        return f"{root}/{TEMPLATE}"

    def _call(
        self, body: dict[str, Any], name: str, path: str = CHAT
    ) -> tuple[dict[str, Any], float]:
        """One request with retries, holding its slot throughout; (response, seconds of the
        successful request)."""
        with self._slots:
            return self._tries(body, name, path)

    def _tries(
        self, body: dict[str, Any], name: str, path: str = CHAT
    ) -> tuple[dict[str, Any], float]:
        t0 = time.perf_counter()
        last: Transient | None = None
        for attempt in range(self.retries + 1):
            if self.share_down and not self.silent:
                self.silent = _down_since(self.server.base_url, self.timeout)
            if self.silent:
                raise ModelError(
                    f"{self.fingerprint} is not answering ({self.silent}); {name} not sent. "
                    "Fix: check that the server is up, then run the same command again"
                )
            body = {k: v for k, v in body.items() if k not in self.extras_off}
            start = time.perf_counter()
            try:
                answered = self._post(body, path), time.perf_counter() - start
                _DOWN.pop(self.server.base_url, None)  # it answers again
                return answered
            except Transient as e:
                last = e
                if attempt == self.retries:
                    break
                self.retried += 1
                wait = self._wait(attempt, e.retry_after)
                # the first retry is told; later ones are counted (the manifest's `retried`)
                (log.warning if self.retried == 1 else log.info)(
                    "%s: %s to %s; try %d of %d in %.1f s (further retries are counted in the "
                    "run's manifest, not shown)",
                    self.name,
                    e.reason,
                    name,
                    attempt + 2,
                    self.retries + 1,
                    wait,
                )
                time.sleep(wait)
        assert last is not None
        if last.silent:
            self.silent = f"{last.reason} to {name}"
            _DOWN[self.server.base_url] = (self.silent, time.monotonic())
        hint = (
            f"check that the server is up; if it is only slow, raise --server-timeout "
            f"(now {self.timeout:g} s)"
            if last.silent
            else "check the server log"
        )
        raise ModelError(
            f"{self.fingerprint} did not answer after {self.retries + 1} tries: {last.reason} "
            f"({name}; {time.perf_counter() - t0:.1f} s in all). Fix: {hint}"
        )

    def _wait(self, attempt: int, retry_after: str | None) -> float:
        if retry_after is not None:
            try:
                return min(MAX_BACKOFF, max(0.0, float(retry_after)))
            except ValueError:
                pass
        jitter = 1 + JITTER * (2 * random.random() - 1)
        return min(MAX_BACKOFF, self.backoff * 2**attempt) * jitter

    # -- samples ----------------------------------------------------------------------------

    def _body(self, messages: Messages, params: SamplingParams, seed: int) -> dict:  # type: ignore[type-arg]
        body: dict[str, Any] = {
            "model": self.server.model,
            "messages": messages,
            "temperature": params.temperature,
            "top_p": params.top_p,
            "max_tokens": params.max_tokens,
            "stop": list(params.stop),
            "seed": seed,
        }
        if params.top_k > 0:
            body["top_k"] = params.top_k
        body["repeat_penalty"] = 1.0  # llama.cpp servers default to 1.1; in-process has none
        return body

    @staticmethod
    def _generation(data: dict[str, Any], seconds: float) -> Generation:
        """The answer of one request. A server that sends more choices than the one asked for:
        the first by index, with its share of the usage."""
        choices = sorted(data["choices"], key=lambda c: c.get("index", 0))
        usage = data.get("usage") or {}
        n = len(choices)
        completion = int(usage.get("completion_tokens") or 0)
        return Generation(
            text=(choices[0]["message"]["content"] or "").strip(),
            prompt_tokens=int(usage.get("prompt_tokens") or 0),
            completion_tokens=completion // n + (completion % n > 0),
            seconds=seconds / n,
            finish_reason=str(choices[0].get("finish_reason") or ""),
            evaluated_tokens=evaluated_tokens(data),
        )

    def generate(
        self, messages: Messages, params: SamplingParams, seeds: Sequence[int]
    ) -> list[Generation]:
        return self._one_each(messages, params, seeds)

    def _one_each(
        self, messages: Messages, params: SamplingParams, seeds: Sequence[int]
    ) -> list[Generation]:
        def one(seed: int) -> Generation:
            data, seconds = self._call(
                self._body(messages, params, seed), request_name(messages, seed)
            )
            made = self._generation(data, seconds)
            if self.on_sample:
                self.on_sample()
            return made

        if len(seeds) == 1 or self.concurrency == 1:
            return [one(s) for s in seeds]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(seeds))) as pool:
            return list(pool.map(one, seeds))

    # -- scoring given answers (the large model as a checker) ---------------------------------

    def score(self, messages: Messages, candidates: Sequence[str]) -> CandidateScores:
        """Each candidate's log-probability after the prompt: the server renders its chat
        prompt (`/apply-template`, as llama.cpp's server and `experiment.generate.serve` have
        it), then one `/v1/completions` request per candidate with the prompt, the candidate and
        the end of turn, `echo` and `logprobs`, summing the log-probabilities of the tokens
        after the prompt's (the prompt alone is echoed once to count them). FLOPs are unknown
        (the server's weights are not read here). llama-cpp-python's server ranks the whole
        vocabulary for every echoed token, so a long prompt takes seconds to score."""
        name = request_name(messages, 0)
        rendered, seconds = self._call({"messages": messages}, name, TEMPLATE)
        prompt, end = rendered["prompt"], rendered.get("end_of_turn")
        if not isinstance(end, str) or not end:
            raise CannotScore(
                f"{self.fingerprint} cannot score candidates: its /apply-template does not say "
                "the end-of-turn token (serve the model with `python -m experiment.generate.serve`)"
            )

        def echo(text: str) -> tuple[list[float | None], dict[str, Any], float]:
            body = {
                "model": self.server.model,
                "prompt": text,
                "max_tokens": 1,
                "temperature": 0.0,
                "echo": True,
                "logprobs": 0,
            }
            data, took = self._call(body, name, COMPLETIONS)
            return _echoed(data, self.fingerprint), data, took

        # The prompt's own tokens, echoed once: a candidate's are the ones after them (the
        # echoed text offsets leave special tokens out, so tokens are counted, not characters).
        alone, data, took = echo(prompt)
        seconds += took
        evaluated = evaluated_tokens(data)
        logprobs, tokens, prompt_tokens = [], [], len(alone) - 1
        for candidate in candidates:
            lps, data, took = echo(prompt + candidate + end)
            seconds += took
            after = [lp for lp in lps[prompt_tokens:-1] if lp is not None]
            if not after:
                raise CannotScore(f"{self.fingerprint} echoed no tokens of the answer scored")
            logprobs.append(sum(after))
            tokens.append(len(after))
            used = evaluated_tokens(data)
            evaluated = None if used is None or evaluated is None else evaluated + used
        return CandidateScores(
            tuple(logprobs), tuple(tokens), prompt_tokens, seconds, evaluated, None
        )


def _echoed(data: dict[str, Any], who: str) -> list[float | None]:
    """The log-probability of every echoed token (the prompt's, then the one generated)."""
    try:
        got = data["choices"][0]["logprobs"]["token_logprobs"]
        return [None if lp is None else float(lp) for lp in got]
    except (KeyError, IndexError, TypeError, ValueError) as e:
        raise CannotScore(
            f"{who} cannot score candidates: /v1/completions sent no prompt log-probabilities "
            f"({type(e).__name__}: {e}); it needs echo with logprobs"
        ) from None


def evaluated_tokens(data: dict[str, Any]) -> int | None:
    """The tokens a server evaluated for one response: llama.cpp's server reports the prompt
    tokens it read after its cache (`timings.prompt_n`) and the tokens it predicted
    (`timings.predicted_n`); elsewhere the usage's prompt plus completion tokens, an upper bound
    (a server's own prefix cache is not seen). None when the response says neither. The FLOPs
    of a server's model are unknown here (its weights are not read), so they stay None."""
    timings = data.get("timings")
    if isinstance(timings, dict) and "prompt_n" in timings and "predicted_n" in timings:
        return _sum_counts(timings["prompt_n"], timings["predicted_n"])
    usage = data.get("usage")
    if isinstance(usage, dict) and "prompt_tokens" in usage:
        return _sum_counts(usage["prompt_tokens"], usage.get("completion_tokens") or 0)
    return None


def _sum_counts(*values: Any) -> int | None:
    """The sum of token counts a server sent; None if any is not a count (negative, a bool,
    not a finite number)."""
    total = 0
    for value in values:
        if isinstance(value, bool):
            return None
        try:
            n = int(value)
        except (TypeError, ValueError, OverflowError):
            return None
        if n < 0:
            return None
        total += n
    return total
