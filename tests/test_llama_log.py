"""llama.cpp's own log goes to the run's log file, never to the console, and stays small."""

from __future__ import annotations

import ctypes
import logging
from pathlib import Path

import pytest

from experiment.generate.models.llama_log import INFO_BYTES, LlamaLog, capture


def test_nothing_reaches_the_console_and_errors_are_kept(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    target = LlamaLog(tmp_path / "run" / "llama.log")
    with caplog.at_level(logging.DEBUG):
        # a harmless load note that llama.cpp reports at its error level
        target.handle(3, b"load: control-looking token: 128247 '</s>' was not control-type\n")
        target.handle(3, b"failed to ")
        target.handle(5, b"allocate\n")  # continues the error
    text = (tmp_path / "run" / "llama.log").read_text()
    assert "control-looking token" in text and "failed to allocate" in text
    assert caplog.records == []  # the console shows no ERROR for it
    assert target.errors[-1] == "failed to allocate"


def test_information_lines_are_capped_and_warnings_are_not(tmp_path: Path) -> None:
    target = LlamaLog(tmp_path / "llama.log")
    line = b"llama_perf_context_print: eval time = 1.0 ms\n"
    for _ in range(2 * INFO_BYTES // len(line)):
        target.handle(1, line)
    target.handle(2, b"a late warning\n")
    text = (tmp_path / "llama.log").read_text()
    assert len(text) <= INFO_BYTES + 100 and text.endswith("a late warning\n")


def test_capture_replaces_llama_cpps_callback(tmp_path: Path, capfd: pytest.CaptureFixture) -> None:  # type: ignore[type-arg]
    llama_cpp = pytest.importorskip("llama_cpp")
    from experiment.generate.models import llama_log

    target = capture(tmp_path / "llama.log")
    assert target is not None
    llama_log._installed["callback"](2, b"a warning\n", ctypes.c_void_p(0))
    assert (tmp_path / "llama.log").read_text() == "a warning\n"
    assert "a warning" not in capfd.readouterr().err
    # put llama-cpp-python's own printer back for the other tests
    from llama_cpp import _logger

    llama_cpp.llama_log_set(_logger.llama_log_callback, ctypes.c_void_p(0))
    llama_log._installed.clear()
