"""llama-cpp-python's OpenAI-compatible server (`llama_cpp.server`), with llama.cpp's weight
repacking off, as the in-process backends have it.

    python -m experiment.generate.serve --model MODEL.gguf --host 127.0.0.1 --port 8080 --n_ctx 4096

Every argument goes to `llama_cpp.server` unchanged. It adds one route, `POST /apply-template`
(as llama.cpp's own server has it): `{"messages": [...]}` gives `{"prompt": TEXT,
"end_of_turn": TEXT}`, the chat prompt the server's model renders and the text of the token
that ends its turn, so a client can score given answers through `/v1/completions` with `echo`
and `logprobs` (the large model as a checker; `openai_compat.OpenAIBackend.score`).

Why this wrapper: on CPUs with AMX, the
repack that llama.cpp 0.3.36 does by default crashes the server at the first decode with these
GGUF files (see `experiment/generate/models/llama.py`); the flag is not exposed on the command
line. On other CPUs, `python -m llama_cpp.server` behaves the same. `FACTQA_LLAMA_REPACK=1`
keeps repacking.
"""

from __future__ import annotations

import os
import runpy


def _repack_off() -> None:
    import llama_cpp

    from experiment.generate.models.llama import default_params_with

    params = default_params_with(False, llama_cpp.llama_model_default_params)
    llama_cpp.llama_model_default_params = params
    llama_cpp.llama_cpp.llama_model_default_params = params


def _with_template_route(create_app):  # type: ignore[no-untyped-def]
    """`create_app`, with `POST /apply-template` added to the app it makes."""

    def create(*args, **kwargs):  # type: ignore[no-untyped-def]
        from llama_cpp.server import app as server

        from experiment.generate.models.llama import chat_prompt, end_of_turn

        made = create_app(*args, **kwargs)

        @made.post("/apply-template")
        def apply_template(body: dict) -> dict:  # type: ignore[type-arg]
            # Reads the model's template and vocabulary only: no decode, so no model lock.
            assert server._llama_proxy is not None
            llm = server._llama_proxy(body.get("model"))
            return {
                "prompt": chat_prompt(llm, body["messages"]),
                "end_of_turn": end_of_turn(llm)[1],
            }

        return made

    return create


if __name__ == "__main__":
    if os.environ.get("FACTQA_LLAMA_REPACK", "") != "1":
        _repack_off()
    from llama_cpp.server import app as server_app

    server_app.create_app = _with_template_route(server_app.create_app)
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
