"""The machine a run ran on, and how busy it was: facts for the manifest.

- `machine_facts`: the CPU model, its logical cores, the threads llama.cpp was given, llama.cpp's
  system info (the instruction sets its kernels use: AVX2, AVX512, AMX...), the version of
  llama-cpp-python and the build of the llama.cpp it bundles (ggml's version and commit) where
  they can be read;
- `load_average`: the 1-, 5- and 15-minute load averages (`os.getloadavg`), taken at the start
  and at the end of a run;
- `busy`: a warning when other processes competed for the cores: the 1-minute load at the start
  above 0.5 (something was running before the run began), or at the end above the run's own
  threads + 0.5. Seconds measured then are not comparable; FLOPs and tokens still are;
- `run_facts`, `cores_phrase`, `cpu_phrase`: a run's facts as its manifest history keeps them,
  and as the reports (Markdown, HTML) state them.
"""

from __future__ import annotations

import ctypes
import os
import platform
from pathlib import Path
from typing import Any

from experiment.record.manifest import Load, Machine


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _llama_facts() -> dict[str, str]:
    try:
        import llama_cpp
    except ImportError:
        return {}
    facts = {"llama_cpp_python": str(getattr(llama_cpp, "__version__", ""))}
    try:
        info = llama_cpp.llama_print_system_info()
        facts["system_info"] = (info.decode() if isinstance(info, bytes) else str(info)).strip()
    except (AttributeError, OSError, UnicodeDecodeError):
        pass
    facts.update(_ggml_build(llama_cpp))
    return facts


def _ggml_build(llama_cpp: Any) -> dict[str, str]:
    """The build of the llama.cpp bundled: ggml's version and the commit it was built from
    (`ggml_version`, `ggml_commit`, reached through the loaded libllama's dependencies; "-dirty"
    when the vendored tree had changes). {} where the library does not export them."""
    out = {}
    try:
        lib = llama_cpp.llama_cpp._lib
        for name in ("ggml_version", "ggml_commit"):
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = ctypes.c_char_p, []
            value = fn()
            if isinstance(value, bytes):
                out[name] = value.decode(errors="replace")
    except (AttributeError, OSError):
        pass
    return out


def machine_facts(threads: int | None = None) -> dict[str, Any]:
    """What the run's speed and samples may depend on (module docstring)."""
    return {
        "cpu": _cpu_model(),
        "cpu_count": os.cpu_count() or 0,
        "threads": threads or os.cpu_count() or 1,
        "platform": platform.platform(),
        "python": platform.python_version(),
        **_llama_facts(),
    }


def load_average() -> list[float]:
    """The 1-, 5- and 15-minute load averages; [] where the system has none."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return []


def busy(start: list[float], end: list[float], threads: int) -> str:
    """A warning when other processes competed for the cores during the run; "" when not."""
    if start and start[0] > 0.5:
        return (
            f"the machine was busy when the run started (load {start[0]:.2f}): its seconds "
            "are not comparable with other runs' (its FLOPs and tokens still are)"
        )
    if end and end[0] > threads + 0.5:
        return (
            f"other processes competed with the run (load {end[0]:.2f} at the end, "
            f"{threads} threads): its seconds are not comparable with other runs' (its FLOPs "
            "and tokens still are)"
        )
    return ""


def run_facts(
    machine: Machine, cpu_seconds: float, load: Load, load_warning: str
) -> dict[str, Any]:
    """What a report says about where a run ran (a manifest history entry keeps them)."""
    return {
        "cpu_seconds": cpu_seconds,
        "cpu": machine.cpu,
        "cpu_count": machine.cpu_count,
        "threads": machine.threads,
        "load": {"start": list(load.start), "end": list(load.end)},
        "load_warning": load_warning,
    }


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def cores_phrase(run: dict[str, Any]) -> str:
    """'8 CPU cores (CPU; 8 threads; 1-minute load a at the start, b at the end)' from
    `run_facts`; "" for facts recorded before runs kept them (or not of their types)."""
    cores, cpu, threads, load = (run.get(k) for k in ("cpu_count", "cpu", "threads", "load"))
    if not _count(cores):
        return ""
    facts = [cpu] if isinstance(cpu, str) and cpu else []
    if _count(threads):
        facts.append(f"{threads} threads")
    ends = [load.get(k) for k in ("start", "end")] if isinstance(load, dict) else []
    firsts = [x[0] for x in ends if isinstance(x, list) and x]
    if len(firsts) == 2 and all(
        isinstance(x, (int, float)) and not isinstance(x, bool) for x in firsts
    ):
        facts.append(f"1-minute load {firsts[0]:.2f} at the start, {firsts[1]:.2f} at the end")
    return f"{cores} CPU cores" + (f" ({'; '.join(facts)})" if facts else "")


def cpu_phrase(run: dict[str, Any]) -> str:
    """'1,250 s of CPU' (the process's CPU seconds, every thread's) or ""."""
    seconds = run.get("cpu_seconds")
    if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and seconds > 0:
        return f"{seconds:,.0f} s of CPU"
    return ""
