"""Draft, then check, at the token level: the large model verifies several proposed tokens in one
batch instead of producing them one at a time.

Drafters:
- prompt lookup: find the longest recent n-gram (3, then 2, then 1 tokens) of what was read and
  written so far earlier in the prompt, and propose the tokens that followed it there. Answers
  copied from the article are its best case;
- a draft model: a smaller model with the same tokenizer proposes its own greedy continuation.

Acceptance:
- greedy (`accept_greedy`): keep the longest prefix of the draft that equals the large model's
  argmax at each position, then take the large model's token at the first difference. The output
  is the large model's greedy output token for token (given the same logits);
- sampled (`accept_sampled`, the rule of Leviathan et al. 2023 and Chen et al. 2023): accept
  draft token x with probability min(1, p(x) / q(x)); at the first rejection draw from
  max(0, p - q), renormalised; if all are accepted draw one more from p. The output then follows
  the large model's distribution p exactly; tests/test_speculative.py checks it on a toy
  vocabulary. factqa's large@1 is greedy, so runs use the greedy rule.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

MODES = ("off", "lookup", "draft")


def lookup_draft(history: Sequence[int], n_max: int = 3, length: int = 8) -> list[int]:
    """Tokens that followed the latest earlier occurrence of the last n tokens of `history`."""
    for n in range(min(n_max, len(history) - 1), 0, -1):
        tail = list(history[-n:])
        for start in range(len(history) - n - 1, -1, -1):
            if list(history[start : start + n]) == tail:
                follow = list(history[start + n : start + n + length])
                if follow:
                    return follow
    return []


def accept_greedy(draft: Sequence[int], target: Sequence[int]) -> tuple[int, int]:
    """(accepted draft tokens, next token): `target[i]` is the large model's argmax after the
    i-th token of the verified batch (the token before the draft, then each draft token)."""
    n = 0
    while n < len(draft) and draft[n] == target[n]:
        n += 1
    return n, int(target[n])


def accept_sampled(
    draft: Sequence[int], p: np.ndarray, q: np.ndarray, rng: np.random.Generator
) -> tuple[int, int]:
    """(accepted draft tokens, next token) under the speculative sampling rule.

    `p[i]` is the large model's distribution before draft token i (len(draft) + 1 rows, the last
    one for the token after a fully accepted draft); `q[i]` the draft model's (len(draft) rows).
    """
    for i, x in enumerate(draft):
        if rng.random() < min(1.0, p[i, x] / q[i, x]):
            continue
        residual = np.maximum(p[i] - q[i], 0.0)
        total = residual.sum()
        dist = residual / total if total > 0 else p[i]
        return i, int(rng.choice(len(dist), p=dist))
    return len(draft), int(rng.choice(p.shape[1], p=p[len(draft)]))
