"""llama-cpp-python's OpenAI-compatible server (`llama_cpp.server`), with llama.cpp's weight
repacking off, as the in-process backends have it.

    python -m experiment.generate.serve --model MODEL.gguf --host 127.0.0.1 --port 8080 --n_ctx 4096

Every argument goes to `llama_cpp.server` unchanged. Why this wrapper: on CPUs with AMX, the
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


if __name__ == "__main__":
    if os.environ.get("FACTQA_LLAMA_REPACK", "") != "1":
        _repack_off()
    runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
