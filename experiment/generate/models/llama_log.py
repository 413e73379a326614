"""llama.cpp's own log (model loading, warnings such as "control-looking token ...") written into
the run's log file instead of the console; only its errors also reach the console, through the
`factqa` logger.

llama-cpp-python prints llama.cpp's messages to standard error at the level its logger allows;
`capture` replaces that callback with one that appends every message to a file.
"""

from __future__ import annotations

import ctypes
import logging
from pathlib import Path
from typing import Any

ERROR = 3  # ggml_log_level: 0 none, 1 info, 2 warn, 3 error, 4 debug, 5 continues the last
log = logging.getLogger("factqa")


class LlamaLog:
    """Appends llama.cpp's messages to `path`; an error message is also logged."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._last = 0
        self._error: list[str] = []

    def handle(self, level: int, text: bytes) -> None:
        message = text.decode("utf-8", "replace")
        level = self._last if level == 5 else level
        self._last = level
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(message)
        if level == ERROR:
            self._error.append(message)
            if message.endswith("\n"):
                log.error("llama.cpp: %s", "".join(self._error).strip())
                self._error = []


_installed: dict[str, Any] = {}  # the callback and its target, kept alive while installed


def capture(path: Path) -> LlamaLog | None:
    """Send llama.cpp's log to `path` from now on (None where llama-cpp-python is missing)."""
    try:
        import llama_cpp
    except ImportError:  # pragma: no cover - a dependency
        return None
    if _installed.get("path") == path:
        return _installed["target"]
    target = LlamaLog(path)

    @llama_cpp.llama_log_callback  # type: ignore[misc]
    def callback(level: int, text: bytes, _user: ctypes.c_void_p) -> None:
        target.handle(level, text)

    llama_cpp.llama_log_set(callback, ctypes.c_void_p(0))
    _installed.update(path=path, target=target, callback=callback)
    return target
