"""RunConfig's bounds: every number a run is refused outside of, named by its field, with the
reason; and a TOML file's bad value at its line."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from experiment.base.errors import ConfigError, InputError
from experiment.config import LIMITS, RunConfig, build_config


@pytest.mark.parametrize(
    ("field", "value", "needle"),
    [
        ("k", 0, "k must be at least 1, got 0"),
        ("k", 1001, "k must be at most 1000, got 1001"),
        ("k", 10**20, "k must be at most 1000"),
        ("max_tokens", 0, "max_tokens must be at least 1"),
        ("max_tokens", 4097, "max_tokens must be at most 4096"),
        ("n_ctx", 255, "n_ctx must be at least 256"),
        ("n_ctx", 131073, "n_ctx must be at most 131072"),
        ("top_k", -1, "top_k must be at least 0"),
        ("top_k", 10**9, "top_k must be at most"),
        ("server_timeout", 0.0, "server_timeout must be at least"),
        ("server_timeout", math.nan, "server_timeout must be at least"),
        ("server_timeout", math.inf, "server_timeout must be at most 3600"),
        ("server_retries", -1, "server_retries must be at least 0"),
        ("server_retries", 11, "server_retries must be at most 10"),
        ("server_concurrency", 0, "server_concurrency must be at least 1"),
        ("server_concurrency", 65, "server_concurrency must be at most 64"),
        ("temperature", math.nan, "temperature must be in [0, 5]"),
    ],
)
def test_a_value_out_of_bounds_is_refused_naming_its_field(
    field: str, value: float, needle: str
) -> None:
    with pytest.raises(ConfigError) as e:
        RunConfig(**{field: value})
    assert e.value.field == field and needle in str(e.value)
    if field in LIMITS and value > LIMITS[field].high:
        assert LIMITS[field].why in str(e.value)  # an upper bound says why it is there


def test_the_bounds_themselves_are_accepted() -> None:
    low = RunConfig(**{name: limit.low for name, limit in LIMITS.items()})
    high = RunConfig(**{name: limit.high for name, limit in LIMITS.items()})
    assert (low.k, high.k, low.n_ctx, high.n_ctx) == (1, 1000, 256, 131072)
    assert (high.max_tokens, low.server_retries) == (4096, 0)
    assert all(limit.low <= getattr(RunConfig(), n) <= limit.high for n, limit in LIMITS.items())


def test_a_huge_k_in_a_config_file_is_refused_at_its_line(tmp_path: Path) -> None:
    cfg = tmp_path / "run.toml"
    cfg.write_text('[run]\nsmall = "x"\nk = 100000000000000000000\n')
    with pytest.raises(InputError) as e:
        build_config(cfg, {})
    assert (e.value.path, e.value.line, e.value.field) == (cfg, 3, "k")
    assert "k must be at most 1000" in str(e.value) and "Fix: change k in run.toml" in str(e.value)


def test_a_config_file_nested_too_deeply_is_refused(tmp_path: Path) -> None:
    cfg = tmp_path / "run.toml"
    cfg.write_text("k = " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(InputError, match="nested too deeply"):
        build_config(cfg, {})
