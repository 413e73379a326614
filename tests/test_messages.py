"""Issue 43: an error names the file at fault, and a file too big to read is refused first."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from experiment.base.errors import InputError
from experiment.importers.readers import MAX_EXPANDED_ENV, read_dataset
from experiment.report.markdown import update_section


@pytest.mark.parametrize(
    ("content", "words"),
    [
        # blamed the run: "its files do not fit together (UnicodeDecodeError ...)"
        (b"# Results\n\xff\xfe broken\n", "not UTF-8"),
        # blamed the run: "its files do not fit together (ValueError ...)"
        (b"<!-- run-x:end -->\ntext\n<!-- run-x:start -->\n", "do not pair"),
        (b"<!-- run-x:start -->\nno end\n", "do not pair"),
    ],
)
def test_a_bad_results_file_is_named(tmp_path: Path, content: bytes, words: str) -> None:
    results = tmp_path / "r.md"
    results.write_bytes(content)
    with pytest.raises(InputError, match=words) as e:
        update_section(results, "run-x", "the section")
    assert e.value.path == results
    assert results.read_bytes() == content  # left as it was


def test_a_gzip_that_expands_past_the_cap_is_refused(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # 300 KB of gzip expanding to 300 MB took 679 MB of memory before any check
    path = tmp_path / "bomb.json.gz"
    path.write_bytes(gzip.compress(b" " * (3 * 2**20)))
    monkeypatch.setenv(MAX_EXPANDED_ENV, "1")
    with pytest.raises(InputError, match="expands to more than 1 MB") as e:
        read_dataset("squad", path)
    assert MAX_EXPANDED_ENV in str(e.value) and e.value.path == path


def test_the_cap_can_be_raised(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "data.json.gz"
    path.write_bytes(gzip.compress(b'{"data": []}' + b" " * (2 * 2**20)))
    monkeypatch.setenv(MAX_EXPANDED_ENV, "1")
    with pytest.raises(InputError, match="expands"):
        read_dataset("squad", path)
    monkeypatch.setenv(MAX_EXPANDED_ENV, "4")
    assert read_dataset("squad", path) == []  # read whole now: a SQuAD file of no articles
