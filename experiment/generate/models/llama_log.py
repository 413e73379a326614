"""llama.cpp's own log (model loading, warnings such as "control-looking token ...") written into
the run's log file, never to the console: llama.cpp reports some harmless load notes at its
error level, and a failure that affects the results reaches the console as the run's own
message (a failed load or generation). `errors` keeps llama.cpp's error lines for that message.

The file holds every warning and error, and llama.cpp's information and debug lines up to
`INFO_BYTES` (what a load failure needs: the model's metadata and the context set-up), so a
long run does not write megabytes of per-call notes.

llama-cpp-python prints llama.cpp's messages to standard error at the level its logger allows;
`capture` replaces that callback with one that appends to the file.
"""

from __future__ import annotations

import ctypes
from pathlib import Path
from typing import Any

WARN, ERROR = 2, 3  # ggml_log_level: 0 none, 1 info, 2 warn, 3 error, 4 debug, 5 continues the last
INFO_BYTES = 64 * 1024  # information and debug lines kept (warnings and errors are all kept)


class LlamaLog:
    """Appends llama.cpp's messages to `path` (module docstring); `errors` holds its errors."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._last = 0
        self._info = 0
        self._error: list[str] = []
        self.errors: list[str] = []

    def handle(self, level: int, text: bytes) -> None:
        message = text.decode("utf-8", "replace")
        level = self._last if level == 5 else level
        self._last = level
        if level not in (WARN, ERROR):
            self._info += len(text)
            if self._info > INFO_BYTES:
                return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf-8") as f:
            f.write(message)
        if level == ERROR:
            self._error.append(message)
            if message.endswith("\n"):
                self.errors.append("".join(self._error).strip())
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
