"""Name what went wrong with a model's output when no figure or date could be read from it."""

from __future__ import annotations

import re
import unicodedata

from experiment.base.types import ERROR_PREFIX

_WORD = re.compile(r"\w+", re.UNICODE)


def _repetitive(text: str) -> bool:
    words = _WORD.findall(text.lower())
    if len(words) >= 6 and len(set(words)) <= len(words) // 4:
        return True
    # the same short piece over and over with no spaces ("!!!!!!", "abcabcabc")
    return bool(re.search(r"(.{1,4}?)\1{7,}", text))


def _latin_share(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    if not letters:
        return 1.0
    latin = sum("LATIN" in unicodedata.name(c, "") for c in letters)
    return latin / len(letters)


def output_trouble(text: str, finish_reason: str) -> str:
    """A reason for an output with no usable answer, or "" when nothing is wrong with it."""
    if finish_reason.startswith(ERROR_PREFIX):
        return f"model {finish_reason}"
    if text == "":
        return "empty output"
    if not text.strip():
        return "only whitespace"
    if _repetitive(text):
        return "repetitive output" + (" (hit the token limit)" if finish_reason == "length" else "")
    if _latin_share(text) < 0.5 and not any(ch.isdigit() for ch in text):
        return "text in another script, no figure"
    if finish_reason == "length":
        return "hit the token limit without an answer"
    return ""
