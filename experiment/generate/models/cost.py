"""Model FLOPs of the tokens a model evaluated: a cost that does not depend on the machine.

The shape comes from the GGUF file (`gguf.read_header`): `n_layer` (`{arch}.block_count`),
`d_model` (`{arch}.embedding_length`), the attention width `n_head * head_dim`
(`{arch}.attention.head_count` times `{arch}.attention.key_length`, or `d_model / n_head`),
`n_vocab` (the tokenizer's token list), and the parameters: every tensor's elements less the
token embedding (`token_embd.weight`, a lookup, no multiplications) and the LM head
(`output.weight`, or the tied embedding), which are counted apart.

One evaluated token at position p (attending p + 1 keys, itself among them) costs

    2 * N_nonembedding                      the weight matrices, one multiply-add each
    + 4 * n_layer * (p + 1) * n_head * head_dim    attention scores and the weighted values

and each row whose logits are computed adds `2 * d_model * n_vocab` (the LM head). llama.cpp
computes logits only where they are asked for: the last prompt token (the high-level `Llama` asks
for the last of each `n_batch` chunk) and every decoded token.
Norms, activations, rotary embeddings and the softmax are left out (under 1 % at these sizes).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from experiment.generate.models.gguf import read_header


@dataclass(frozen=True)
class ModelShape:
    n_layer: int
    d_model: int
    d_attention: int  # n_head * head_dim
    n_vocab: int
    parameters: int  # every tensor's elements
    nonembedding: int  # less the token embedding and the LM head

    def flops(self, positions: range | list[int], logits: int) -> float:
        """FLOPs of evaluating the tokens at `positions` (0-based) with `logits` output rows."""
        n = len(positions)
        keys = sum(p + 1 for p in positions)
        return float(
            2 * self.nonembedding * n
            + 4 * self.n_layer * keys * self.d_attention
            + 2 * self.d_model * self.n_vocab * logits
        )

    @classmethod
    def of(cls, data: dict[str, int]) -> ModelShape | None:
        """The shape `as_json` wrote (a manifest's `models.*.shape`); None where it is not one."""
        try:
            return cls(
                int(data["n_layer"]),
                int(data["d_model"]),
                int(data["d_attention"]),
                int(data["n_vocab"]),
                int(data["parameters"]),
                int(data["nonembedding_parameters"]),
            )
        except (KeyError, TypeError, ValueError):
            return None

    def as_json(self) -> dict[str, int]:
        return {
            "n_layer": self.n_layer,
            "d_model": self.d_model,
            "d_attention": self.d_attention,
            "n_vocab": self.n_vocab,
            "parameters": self.parameters,
            "nonembedding_parameters": self.nonembedding,
        }


@lru_cache(maxsize=8)
def shape_of(path: Path) -> ModelShape:
    """The shape of the GGUF model at `path` (module docstring); ValueError if unreadable."""
    header = read_header(path)
    meta = header.metadata
    arch = str(meta.get("general.architecture", ""))

    def number(key: str) -> int:
        value = meta.get(f"{arch}.{key}")
        if not isinstance(value, int) or value <= 0:
            raise ValueError(f"{path.name}: no {arch}.{key} in the GGUF header")
        return value

    n_layer, d_model, n_head = (
        number("block_count"),
        number("embedding_length"),
        number("attention.head_count"),
    )
    key_length = meta.get(f"{arch}.attention.key_length")
    head_dim = key_length if isinstance(key_length, int) and key_length > 0 else d_model // n_head
    tokens = meta.get("tokenizer.ggml.tokens")
    n_vocab = int(tokens) if isinstance(tokens, int) else number("vocab_size")
    total = sum(header.elements(name) for name in header.tensors)
    embedding = header.elements("token_embd.weight") + header.elements("output.weight")
    return ModelShape(n_layer, d_model, n_head * head_dim, n_vocab, total, total - embedding)
