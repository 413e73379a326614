"""Issue 56: failures that ended in a traceback or exited 0. Each exits non-zero with one line
naming its input and the fix; a server's strings are made safe; compressed input is capped while
it is read."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from experiment import cli
from experiment.base.streams import TooLarge, gunzip_capped, read_capped, safe_strings, safe_text
from experiment.config import PROJECT_ROOT
from experiment.runner import llama_factory

from .conftest import run_args
from .fake_server import ScriptedServer

runner = CliRunner()
LONE = "\ud800"  # an unpaired surrogate: JSON's "\ud800" escape decodes to it


def said(res) -> str:  # type: ignore[no-untyped-def]
    return " ".join(res.output.split())


def _one_error_line(res) -> str:  # type: ignore[no-untyped-def]
    assert "Traceback" not in res.output
    lines = [x for x in res.output.splitlines() if x.startswith("error:")]
    assert len(lines) == 1, res.output
    return said(res)


@pytest.fixture
def real_factory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "_factory", lambda: llama_factory)


def test_safe_text_replaces_unpaired_surrogates_and_keeps_the_rest() -> None:
    assert safe_text(f"12{LONE} kg \U0001f600") == "12\ufffd kg \U0001f600"
    decoded = json.loads('{"a\\udc00": ["\\ud83d\\ude00", "\\ud800x", 3]}')
    assert safe_strings(decoded) == {"a\ufffd": ["\U0001f600", "\ufffdx", 3]}
    safe_text(decoded["a\udc00"][1]).encode("utf-8")  # raised UnicodeEncodeError before


@pytest.mark.usefixtures("real_factory")
def test_a_run_goes_on_when_the_server_answers_a_lone_surrogate(corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    with ScriptedServer(lambda q: f"13,200{LONE} units") as srv:
        spec = f"openai:fake@{srv.url}"
        res = runner.invoke(cli.app, run_args(*corpus, spec, spec, 2, tmp_path, "t"))
    assert res.exit_code == 0, res.output
    assert "Traceback" not in res.output
    attempts = pd.read_csv(tmp_path / "t" / "attempts.csv", keep_default_na=False)
    assert attempts.raw_text.str.contains("\ufffd").all()  # written, not lost


@pytest.mark.usefixtures("real_factory")
def test_ask_prints_a_server_answer_with_a_lone_surrogate(corpus, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    articles, _ = corpus
    with ScriptedServer(lambda q: f"13,200{LONE}") as srv:
        args = ["ask", str(articles / "alpha.md"), "How many units were sold?", "-k", "2"]
        spec = f"openai:fake@{srv.url}"
        res = runner.invoke(
            cli.app, [*args, "--model", spec, "--large", spec, "--all", "--no-pool"]
        )
    assert res.exit_code == 0, res.output
    assert "\ufffd" in res.output and "Traceback" not in res.output


@pytest.mark.usefixtures("real_factory")
def test_ask_fails_naming_the_server_when_it_is_down(corpus) -> None:  # type: ignore[no-untyped-def]
    articles, _ = corpus
    url = "http://127.0.0.1:9/v1"  # the discard port: nothing listens
    args = ["ask", str(articles / "alpha.md"), "How many units were sold?", "-k", "2"]
    res = runner.invoke(cli.app, [*args, "--model", f"openai:m@{url}"])
    assert res.exit_code == 1, res.output  # was 0, with a table of failed samples
    text = _one_error_line(res)
    assert url in text and "Fix:" in text and "server is up" in text


def _bomb(path: Path, members: int = 16, member_mb: int = 64) -> Path:
    """A gzip file of `members` members of `member_mb` MB of zeros each (about 1 MB on disk,
    1 GB expanded), made here; its size on disk and expanded checked below."""
    one = gzip.compress(bytes(member_mb * 2**20), compresslevel=9, mtime=0)
    path.write_bytes(one * members)
    return path


PEAK = """
import resource, sys
from pathlib import Path
from experiment.base.errors import InputError
from experiment.importers.layout import ImportStats
from experiment.importers.readers import read_squad
path = Path(sys.argv[1])
path.read_bytes()  # the compressed bytes themselves are read whole: counted in the baseline
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    read_squad(path, ImportStats())
    print("read")
except InputError as e:
    print(e)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print((after - before) // 1024)  # kilobytes on Linux: the growth in MB
"""


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss is in kilobytes on Linux")
def test_a_gzip_bomb_is_refused_in_constant_memory(tmp_path: Path) -> None:
    bomb = _bomb(tmp_path / "bomb.json.gz")
    assert bomb.stat().st_size < 2 * 2**20  # a small file ...
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(PEAK), str(bomb)],
        capture_output=True,
        text=True,
        check=True,
        cwd=PROJECT_ROOT,
        env={"PATH": "", "PYTHONPATH": str(PROJECT_ROOT)},
    )
    message, grown = done.stdout.strip().splitlines()
    assert "expands to more than 256 MB" in message and "bomb.json.gz" in message
    assert int(grown) < 64, f"peak memory grew {grown} MB reading the bomb"  # was 590 MB


def test_gunzip_capped_counts_every_member_and_keeps_what_fits() -> None:
    data = gzip.compress(b"ab" * 1000, mtime=0) * 3
    assert gunzip_capped(data, 6000) == b"ab" * 3000
    with pytest.raises(TooLarge):
        gunzip_capped(data, 5999)
    with pytest.raises(zlib.error):
        gunzip_capped(data + b"junk", 10**6)
    with pytest.raises(EOFError):
        gunzip_capped(data[:-9], 10**6)


class Endless:
    """A response body that never ends; counts what was read of it."""

    def __init__(self) -> None:
        self.read_bytes = 0

    def read(self, n: int = -1) -> bytes:
        assert n > 0, "read whole"
        self.read_bytes += n
        return b"x" * n


def test_a_body_is_read_no_further_than_the_cap() -> None:
    body = Endless()
    with pytest.raises(TooLarge):
        read_capped(body, 3 * 2**20)  # type: ignore[arg-type]
    assert body.read_bytes == 3 * 2**20 + 1


def test_verify_refuses_a_header_only_answers_file(tmp_path: Path) -> None:
    src = tmp_path / "answers.csv"
    src.write_text("article_id,answer\n", encoding="utf-8")
    res = runner.invoke(cli.app, ["verify", str(src)])
    assert res.exit_code == 2, res.output  # was 0: "0 rows", and an empty file written
    text = _one_error_line(res)
    assert "answers.csv:2" in text and "no answer rows" in text and "Fix:" in text
    assert not (tmp_path / "answers.verified.csv").exists()


def _copied_tree(tmp_path: Path) -> list[str]:
    """results/, docs/ and the README copied under `tmp_path`; `bench report`'s options for them."""
    import shutil

    for name in ("results", "docs"):
        shutil.copytree(PROJECT_ROOT / name, tmp_path / name)
    shutil.copy(PROJECT_ROOT / "README.md", tmp_path / "README.md")
    where = ["--results-dir", str(tmp_path / "results")]
    where += ["--results-md", str(tmp_path / "docs" / "RESULTS.md")]
    return ["bench", "report", *where, "--readme", str(tmp_path / "README.md")]


def test_report_check_finds_an_edit_to_the_summary_record(tmp_path: Path) -> None:
    args = _copied_tree(tmp_path)
    assert runner.invoke(cli.app, [*args, "--check"]).exit_code == 0
    record = tmp_path / "results" / "bench" / "bench-summary.json"
    data = json.loads(record.read_text(encoding="utf-8"))
    table = next(b["table"] for b in data["figures"]["blocks"] if "table" in b)
    table["rows"][0][2] = "0.999 [0.99, 1.00]"  # a row the document shows from results/
    record.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    res = runner.invoke(cli.app, [*args, "--check"])
    assert res.exit_code == 1, res.output  # was 0: the document never showed that row
    assert "results/bench/bench-summary.json" in res.output and "0.999" in res.output
    assert runner.invoke(cli.app, args).exit_code == 0  # the report writes it back
    assert runner.invoke(cli.app, [*args, "--check"]).exit_code == 0
