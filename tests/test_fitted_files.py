"""The shipped fitted files: in the wheel, read through one place, recorded by a run."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import pytest

from experiment.bench.measure.fitted_files import build_wheel
from experiment.evaluate import drafts, fitted, selector
from experiment.evaluate.fitted import SHIPPED, FittedFileMissing, read_fitted

ROOT = Path(__file__).resolve().parents[1]


def test_the_wheel_ships_every_fitted_file(tmp_path: Path) -> None:
    """A user's install has every fit a method reads (a built wheel lacked two of them)."""
    names = set(zipfile.ZipFile(build_wheel(ROOT, tmp_path)).namelist())
    in_source = {str(p.relative_to(ROOT)) for p in (ROOT / "experiment").rglob("*.json")} | {
        f"experiment/evaluate/{name}" for name in SHIPPED
    }
    assert in_source - names == set()
    assert any(n.startswith("experiment/report/templates/") for n in names)
    assert not (ROOT / "build").exists()  # built from a copy


def test_every_shipped_fit_is_registered() -> None:
    on_disk = {p.name for p in fitted.HERE.glob("*.json")}
    assert on_disk == set(SHIPPED)


def test_a_missing_fit_is_an_error_naming_the_file_and_the_fix(tmp_path: Path) -> None:
    with pytest.raises(FittedFileMissing) as e:
        drafts.load_derived_selector(fitted.HERE / "no_such_fit.json")
    assert "no_such_fit.json is missing" in str(e.value) and "Fix:" in str(e.value)
    shipped = fitted.HERE / "derived_selector.json"
    moved = tmp_path / "kept.json"
    shipped.rename(moved)
    try:  # the shipped file gone: the fix names the command that writes it
        with pytest.raises(FittedFileMissing, match="factqa bench fit derived"):
            drafts.load_derived_selector(shipped)
    finally:
        moved.rename(shipped)


def test_a_damaged_fit_is_an_error(tmp_path: Path) -> None:
    bad = tmp_path / "fit.json"
    bad.write_text("{not json", encoding="utf-8")
    with pytest.raises(FittedFileMissing, match="not valid JSON"):
        selector.load(bad)


def test_each_fit_read_is_noted_with_its_sha256() -> None:
    path = fitted.HERE / "text_selector.json"
    read_fitted(path)
    assert (
        fitted.fitted_read()["text_selector.json"] == hashlib.sha256(path.read_bytes()).hexdigest()
    )
    assert set(fitted.shipped_hashes()) == set(SHIPPED)


def test_a_run_records_the_sha256_of_every_fit_it_read(fake_run: Path) -> None:
    manifest = json.loads((fake_run / "manifest.json").read_text(encoding="utf-8"))
    recorded = manifest["fitted_files"]
    assert {"selector.json", "text_selector.json"} <= set(recorded)
    for name, sha in recorded.items():
        assert sha == hashlib.sha256((fitted.HERE / name).read_bytes()).hexdigest()
