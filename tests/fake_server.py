"""A scripted OpenAI-compatible server on 127.0.0.1 for the server backend's unit tests.

It answers by keyword like `conftest.keyword_script`, after playing a list of faults to the first
requests: an HTTP status, a malformed body, or a delay longer than the client's timeout.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Fault = int | str  # an HTTP status, "malformed", "timeout", or "ok"


class ScriptedServer:
    def __init__(
        self,
        answer: Callable[[str], str],
        faults: list[Fault] | None = None,
        honour_n: bool = False,
    ) -> None:
        self.answer = answer
        self.faults = list(faults or [])
        self.honour_n = honour_n
        self.always: Fault | None = None
        self.delay = 0.0
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def _send(self, code: int, body: bytes, extra: dict[str, str] | None = None) -> None:
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                for k, v in (extra or {}).items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:
                self._send(200, b'{"object": "list", "data": []}')

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length))
                with server._lock:
                    server.bodies.append(body)
                    server.headers.append(dict(self.headers))
                    fault = server.faults.pop(0) if server.faults else server.always or "ok"
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    server._respond(self, body, fault)
                finally:
                    with server._lock:
                        server.in_flight -= 1

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def _respond(self, h: Any, body: dict[str, Any], fault: Fault) -> None:
        if isinstance(fault, int):
            h._send(fault, b'{"error": "scripted"}', {"Retry-After": "0"} if fault == 429 else {})
            return
        if fault == "malformed":
            h._send(200, b'{"choices": [{"mess')
            return
        if fault == "timeout":
            time.sleep(1.5)
        time.sleep(self.delay)
        question = body["messages"][-1]["content"].rsplit("Question: ", 1)[-1]
        n = int(body.get("n", 1)) if self.honour_n else 1
        text = self.answer(question)
        reply = {
            "choices": [
                {
                    "index": i,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
                for i in range(n)
            ],
            "usage": {
                "prompt_tokens": 120,
                "completion_tokens": 4 * n,
                "total_tokens": 120 + 4 * n,
            },
        }
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # client gave up
            h._send(200, json.dumps(reply).encode())

    def __enter__(self) -> ScriptedServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
