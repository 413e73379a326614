"""What both in-process backends need to score a given answer (`Backend.score`): the token that
ends the model's turn, the answer's tokens after the prompt, log-probabilities from a logits row,
and the prompt prefix a backend has cached already.

The token that ends a turn belongs to the chat template, not to the vocabulary's "end of turn"
entry (SmolLM2 ends a turn with `<|im_end|>`, its vocabulary names `<|endoftext|>`), so it is
read off the template: render a conversation that ends with an assistant message and take the
text after that message.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

MARK = "\u2063ANSWER\u2063"  # a reply no template alters
Tokenize = Callable[[str, bool], list[int]]  # (text, add a BOS where the model adds one)


def turn_end(template: str, eos: str, bos: str) -> str:
    """The text the template writes right after an assistant message ("" if it writes none)."""
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    formatter = Jinja2ChatFormatter(template, eos, bos, add_generation_prompt=False)
    messages = [{"role": "user", "content": "?"}, {"role": "assistant", "content": MARK}]
    text = formatter(messages=messages).prompt  # type: ignore[arg-type]
    at = text.rfind(MARK)
    return text[at + len(MARK) :] if at >= 0 else ""


def end_token(template: str, eos: str, bos: str, tokenize: Tokenize, eot: int, eos_id: int) -> int:
    """The token that ends the model's turn as its template writes it (`turn_end`), else the
    vocabulary's end of turn `eot`, else its end of text `eos_id`."""
    after = turn_end(template, eos, bos) if template else ""
    tokens = tokenize(after, False) if after else []
    token = tokens[0] if tokens else eot
    return int(token if token >= 0 else eos_id)


def answer_tokens(
    tokenize: Tokenize, prompt_text: str, prompt: Sequence[int], answer: str, eot: int, end: str
) -> list[int]:
    """`answer` as the model's whole reply after the prompt: its tokens, then the end of turn
    `eot` (whose text is `end`). They are what the prompt and the answer tokenize to together,
    after the prompt's tokens, so a merge across the boundary is scored as the model would
    write it; the answer alone where the prompt's tokens do not survive."""
    together = tokenize(prompt_text + answer + end, True)
    if together[: len(prompt)] == list(prompt) and together[-1] == eot:
        return together[len(prompt) :]
    return [*tokenize(answer, False), eot]


def log_softmax(logits: Any, n_vocab: int) -> Any:
    """The untempered log-probabilities of every token from a logits row (a ctypes pointer to
    `n_vocab` floats), as a float64 copy."""
    import numpy as np

    row = np.ctypeslib.as_array(logits, shape=(n_vocab,)).astype(np.float64)
    top = row.max()
    return row - top - np.log(np.exp(row - top).sum())


def common_prefix(cached: Sequence[int], tokens: Sequence[int]) -> int:
    """How many leading tokens of `tokens` are cached already."""
    n = 0
    for a, b in zip(cached, tokens, strict=False):
        if a != b:
            break
        n += 1
    return n
