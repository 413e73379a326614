"""Run configuration: frozen, from command-line flags over an optional TOML file.

A TOML file holds the same keys as the flags (`k = 10`, `large = "qwen2.5-coder-1.5b"`, ...),
flat or under a `[run]` table. Flags given on the command line win.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from experiment.base.errors import ConfigError, InputError
from experiment.base.files import safe_name
from experiment.base.types import BUNDLED
from experiment.generate.models.catalog import DEFAULT_LARGE, DEFAULT_SMALL
from experiment.generate.models.openai_compat import RETRIES, TIMEOUT
from experiment.generate.prompts import AUTO, CALC, CALC_MAX_TOKENS, FIGURE
from experiment.generate.prompts import SETTINGS as PROMPT_SETTINGS

if TYPE_CHECKING:
    from experiment.evaluate.stopping import StopRule
    from experiment.generate.windows import Reading

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def _bundled(name: str) -> Path:
    here = Path.cwd() / name
    return here if here.exists() else PROJECT_ROOT / name


CONTENT = ("articles", "questions")  # in the run id by what they hold, not where they are


def content_digest(path: Path) -> str:
    """SHA-256 of a file's bytes, or of a folder's files (relative name and bytes, in name order,
    hidden files left out); "missing" when there is nothing at `path`."""
    if path.is_file():
        files = [(path.name, path)]
    elif path.is_dir():
        files = sorted(
            (f.relative_to(path).as_posix(), f)
            for f in path.rglob("*")
            if f.is_file() and not any(part.startswith(".") for part in f.relative_to(path).parts)
        )
    else:
        return "missing"
    h = hashlib.sha256()
    for name, f in files:
        h.update(name.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


class Limit(NamedTuple):
    low: float
    high: float
    why: str  # said when a value is over `high`


# The numbers a run is refused outside of (docs/RELIABILITY.md): generous, but each upper bound
# keeps a run's memory and time bounded on a 24 GiB machine.
LIMITS = {
    "k": Limit(1, 1000, "each question's k samples are held in memory and in attempts.csv"),
    "max_tokens": Limit(
        1, 4096, "an answer is a figure or a date, and k answers share one context"
    ),
    "calc_max_tokens": Limit(0, 4096, "a calculation of a few figures, and k share one context"),
    "n_ctx": Limit(
        256,
        131072,
        "the KV cache grows with the context: 131072 tokens of a 7B model take about 7 GiB",
    ),
    "top_k": Limit(0, 1_000_000, "more than any vocabulary; 0 turns top-k off"),
    "server_timeout": Limit(0.01, 3600, "seconds to wait for one answer of a few tokens"),
    "server_retries": Limit(0, 10, "every try may wait server_timeout"),
    "server_concurrency": Limit(1, 64, "one thread per request in flight"),
}


def _validate_limits(cfg: RunConfig) -> None:
    for name, (low, high, why) in LIMITS.items():
        value = getattr(cfg, name)
        allowed = f"a value from {low} to {high}"
        if not value >= low:  # NaN too
            raise ConfigError(
                f"{name} must be at least {low}, got {value}", field=name, allowed=allowed
            )
        if value > high:
            raise ConfigError(
                f"{name} must be at most {high}, got {value} ({why})", field=name, allowed=allowed
            )


@contextmanager
def _about(field: str) -> Iterator[None]:
    """Name `field` on a ConfigError raised inside (by a parser that does not know the setting)."""
    try:
        yield
    except ConfigError as e:
        e.field = e.field or field
        raise


@dataclass(frozen=True)
class Setting:
    """What a run setting is besides its type and default, declared once with its `RunConfig`
    field: the options of `factqa run` (and the help `ask` and `bench run` share), the recorded
    command, the run id and its compatibility with older runs are all read from it."""

    help: str
    # False: a setting that decides where and how fast results are made, or whether a run counts
    # as failed, not what they are: left out of the run id, so a run resumed with another
    # timeout or concurrency lands in the same folder. (`speculative` is in the run id: drafting
    # can flip a near tie in a batched row.)
    run_id: bool = True
    # True for a configuration whose runs were made before the setting existed: the run id leaves
    # the setting out, so those runs keep their ids.
    older: Callable[[RunConfig], bool] | None = None
    flags: tuple[str, ...] = ()  # the option's names, where not --NAME (k: --k and -k)
    shown_default: str | None = None  # --help's default, where it is worked out at run time


def setting(default: Any = None, *, factory: Callable[[], Any] | None = None, **spec: Any) -> Any:
    """A `RunConfig` field with its `Setting`."""
    meta = {"setting": Setting(**spec)}
    if factory is not None:
        return field(default_factory=factory, metadata=meta)
    return field(default=default, metadata=meta)


def _result_form(cfg: RunConfig) -> bool:
    from experiment.evaluate.proposal_pool import RESULT

    return cfg.derived_text == RESULT


def _no_calc_limit(cfg: RunConfig) -> bool:
    """Only the calc and auto prompts ask for a calculation; a limit equal to max_tokens is none."""
    return cfg.prompt not in (CALC, AUTO) or cfg.calc_max_tokens in (0, cfg.max_tokens)


@dataclass(frozen=True)
class RunConfig:
    """A run's settings, each declared once: its type, default and `Setting` (fields in the order
    a recorded command names them)."""

    articles: Path = setting(
        factory=lambda: _bundled("articles"),
        help="Folder of .md articles.",
        shown_default="the bundled articles/",
    )
    questions: Path = setting(
        factory=lambda: _bundled("questions"),
        help="Questions CSV file or folder.",
        shown_default="the bundled questions/",
    )
    small: str = setting(
        DEFAULT_SMALL,
        help="Small model: catalog name, .gguf path, hf:OWNER/REPO/FILE, or a server: "
        "openai:MODEL@URL (key in $FACTQA_API_KEY).",
    )
    large: str = setting(DEFAULT_LARGE, help="Large model, same forms as --small.")
    k: int = setting(10, help="Samples of the small model per question.", flags=("--k", "-k"))
    temperature: float = setting(0.7, help="Small model temperature.")
    top_p: float = setting(0.95, help="Small model nucleus (top-p).")
    top_k: int = setting(40, help="Small model top-k (0: off).")
    max_tokens: int = setting(32, help="Token limit per answer.")
    # set so that no more than 1 % of large@1's calculations on the fitting halves reach it
    calc_max_tokens: int = setting(
        CALC_MAX_TOKENS,
        help="Token limit of an answer to the calculation prompt (0: --max-tokens); the default "
        "lets no more than 1 % of large@1's calculations on the fitting halves reach it "
        "(factqa bench fit calc-limit).",
        older=_no_calc_limit,
    )
    seed: int = setting(0, help="Base seed; each sample's seed derives from it.")
    limit: int = setting(
        0,
        help="A quick look: N questions spread over the articles, stated and computed in the "
        "corpus's proportion, fixed by --seed (0 = all).",
    )
    n_ctx: int = setting(4096, help="Context size of both models, in tokens.")
    backend: str = setting(
        "batched",
        help="'batched' (k samples decoded together) or 'llama' (samples one after another; "
        "see docs/RESULTS.md).",
    )
    speculative: str = setting(
        "off",
        help="Large model's greedy answers: 'off', 'lookup' (drafts from the prompt) or 'draft' "
        "(the small model drafts). Same answers; see docs/RESULTS.md.",
    )
    # experiment/evaluate/stopping.py: "off" draws all k at once; a rule draws `rounds`
    adaptive: str = setting(
        "off",
        help="Adaptive sampling: 'off' (all k at once), or a stopping rule that ends a question "
        "after a round: 'window[:W]', 'posterior[:C]', 'selector[:C]' (optionally '+none'), "
        "'never' (every round). See docs/RESULTS.md.",
        older=lambda c: c.adaptive == "off",
    )
    rounds: str = setting(
        "3,3",
        help="Round sizes with --adaptive, the last repeating up to k: '3,3'.",
        older=lambda c: c.adaptive == "off",
    )
    # experiment/generate/windows.py: ARTICLE, or "excerpt:N"
    small_context: str = setting(
        "article",
        help="What the small model reads: 'article' (the whole text) or 'excerpt:N' (the N "
        "sentences closest to the question; answers are still verified against the whole "
        "article). The large model always reads the whole article.",
        older=lambda c: c.small_context == "article",
    )
    # experiment/generate/prompts.py. The default is auto: a computed question's answer is not
    # written in the article, so under "figure" no small method can answer it, and the README's
    # bundled row is measured with this default.
    prompt: str = setting(
        AUTO,
        help="The prompt both models get: 'figure' (the figure or date alone), 'derive' (a "
        "computed answer may come with its working over the article's figures, '7 = 9 - 2', "
        "which the derivation rule confirms; method small-derived@k), 'calc' (the "
        "calculation alone, '9 - 2'; the calculator computes the result) or 'auto' (calc for "
        "questions whose wording asks for a computation, figure else; the default, because "
        "under 'figure' no small method answers a computed question).",
        older=lambda c: c.prompt == FIGURE,  # the default until auto
    )
    # experiment/evaluate/large_check.py
    checks: str = setting(
        "whole,evidence",
        help="How the large model also checks the small model's confirmed candidates (scoring "
        "them, not writing): 'whole,evidence', 'whole' (the large@1 prompt), 'evidence' (each "
        "candidate's sentence or table row only) or 'none'. Methods large-checks@k, "
        "large-checks-evidence@k, cascade-check@20%.",
    )
    # experiment/evaluate/drafts.py
    drafts: str = setting(
        "small,large",
        help="Which models score each question's bounded pool of the article's own candidates "
        "(the article drafts, the model checks): 'small,large', 'small', 'large' or 'none'. "
        "Methods small-text@0, small-text@k, large-text@1; under the calculation prompt "
        "(--prompt auto, calc) the kept calculations the article drafts instead: "
        "small-text-derived@k, large-text-derived@1.",
        older=lambda c: c.drafts == "small,large",  # runs made before the pool's scores
    )
    # experiment/evaluate/proposal_pool.py; "calculation" is best on the fitting halves by
    # `factqa bench fit derived`
    derived_text: str = setting(
        "calculation",
        help="A computed question's scored texts, under the calculation prompt: each kept "
        "calculation as written ('calculation', '142.9 - 120.5') or its result ('result').",
        older=_result_form,  # runs made before the calculation form
    )
    label: str = setting(
        "",
        help="What reports call the data set.",
        run_id=False,
        shown_default="the articles folder's name",
    )
    # a model whose every generation failed fails the run whatever this is
    max_failed: float = setting(
        0.5,
        help="Share of a model's generations that may fail (the model or server raised) before "
        "the run fails with exit 1 (a model whose every generation failed always fails it).",
        run_id=False,
    )
    server_timeout: float = setting(
        TIMEOUT, help="Server models: seconds to wait for one answer.", run_id=False
    )
    server_retries: int = setting(
        RETRIES, help="Server models: tries after a 429/5xx/timeout.", run_id=False
    )
    server_concurrency: int = setting(
        4, help="Server models: requests in flight at once.", run_id=False
    )
    out: Path = setting(
        factory=lambda: _bundled("outputs"),
        help="Output folder.",
        run_id=False,
        shown_default="outputs/",
    )
    run_id: str = setting(
        "",
        help="Name of the run folder.",
        run_id=False,
        shown_default="run- and a hash of the settings and data",
    )

    def __post_init__(self) -> None:
        _validate_run_folder(self)
        _validate_limits(self)
        if not 0.0 <= self.temperature <= 5.0:
            raise ConfigError(
                f"temperature must be in [0, 5], got {self.temperature}",
                field="temperature",
                allowed="a value from 0 to 5",
            )
        if not 0.0 < self.top_p <= 1.0:
            raise ConfigError(
                f"top_p must be in (0, 1], got {self.top_p}",
                field="top_p",
                allowed="a value above 0, up to 1",
            )
        if self.backend not in ("llama", "batched"):
            raise ConfigError(
                f"backend must be 'llama' or 'batched', got '{self.backend}'", field="backend"
            )
        if self.limit < 0:
            raise ConfigError(
                f"limit must be 0 (all) or more, got {self.limit}",
                field="limit",
                allowed="a value of 0 (all) or more",
            )
        if self.speculative not in ("off", "lookup", "draft"):
            raise ConfigError(
                f"speculative must be 'off', 'lookup' or 'draft', got '{self.speculative}'",
                field="speculative",
            )
        if self.speculative != "off" and self.backend != "batched":
            raise ConfigError(
                "speculative decoding needs the batched backend (--backend batched)",
                field="speculative",
            )
        if self.adaptive != "off":
            with _about("adaptive"):
                self.stop_rule  # noqa: B018 - parsed once here, read by the run
            with _about("rounds"):
                self.round_sizes  # noqa: B018
        elif self.rounds != RunConfig.rounds:
            raise ConfigError(
                f"rounds '{self.rounds}' needs adaptive sampling: add --adaptive RULE "
                "(for example --adaptive window), or leave --rounds out",
                field="rounds",
            )
        with _about("small_context"):
            self.reading  # noqa: B018
        with _about("checks"):
            self.check_modes  # noqa: B018
        with _about("drafts"):
            self.draft_roles  # noqa: B018
        if self.prompt not in PROMPT_SETTINGS:
            said = ", ".join(f"'{p}'" for p in PROMPT_SETTINGS)
            raise ConfigError(f"prompt must be one of {said}, got '{self.prompt}'", field="prompt")
        from experiment.evaluate.proposal_pool import FORMS

        if self.derived_text not in FORMS:
            said = " or ".join(f"'{f}'" for f in FORMS)
            raise ConfigError(
                f"derived_text must be {said}, got '{self.derived_text}'", field="derived_text"
            )

    @cached_property
    def draft_roles(self) -> tuple[str, ...]:
        """The models that score the pools, parsed from `drafts` (empty for "none")."""
        from experiment.evaluate.drafts import ROLES

        return _listed(self.drafts, ROLES, "drafts")

    @cached_property
    def check_modes(self) -> tuple[str, ...]:
        """The large model's ways of checking, parsed from `checks` (empty for "none")."""
        from experiment.evaluate.large_check import MODES

        return _listed(self.checks, MODES, "checks")

    @cached_property
    def stop_rule(self) -> StopRule | None:
        """The adaptive stopping rule, parsed from `adaptive`; None for a fixed k."""
        from experiment.evaluate.stopping import parse_rule

        return None if self.adaptive == "off" else parse_rule(self.adaptive)

    @cached_property
    def round_sizes(self) -> tuple[int, ...] | None:
        """The adaptive rounds, parsed from `rounds` and cut to k; None for a fixed k."""
        from experiment.evaluate.stopping import parse_rounds

        return None if self.adaptive == "off" else parse_rounds(self.rounds, self.k)

    @cached_property
    def reading(self) -> Reading:
        """What the small model reads, parsed from `small_context`."""
        from experiment.generate.windows import parse_reading

        return parse_reading(self.small_context)

    def fingerprint(self) -> str:
        """A short hash of what decides the results: the settings and the content of the articles
        and questions, never a path, so the same command in another checkout gives the same id
        and an edited questions file a new one."""
        keep = {}
        for f in fields(self):
            said: Setting = f.metadata["setting"]
            if said.run_id and not (said.older and said.older(self)):
                keep[f.name] = str(getattr(self, f.name))
        if self.limit:  # a quick look is a spread sample now, no longer the first N
            keep["limit_rule"] = "spread"
        keep.update({k: content_digest(getattr(self, k)) for k in CONTENT})
        return hashlib.sha256(json.dumps(keep, sort_keys=True).encode()).hexdigest()[:10]

    @property
    def dataset(self) -> str:
        """The data set's name in reports: the label, the bundled corpus, or the folder name
        (the folder above an `articles` folder, as importers write them)."""
        if self.label:
            return self.label
        folder = self.articles.resolve()
        if folder == (PROJECT_ROOT / "articles").resolve():
            return BUNDLED
        return folder.parent.name if folder.name == "articles" else folder.name

    def command(self) -> str:
        """The `factqa run` command that reproduces this run, built from the effective settings
        (flags and TOML file alike): every option that differs from its default, paths as given
        or relative to the working folder, so pasted back there it makes the same run id."""
        from experiment.base.command import run_command

        default = RunConfig()
        bundled = {name: PROJECT_ROOT / name for name in ("articles", "questions", "outputs")}
        bundled["out"] = bundled.pop("outputs")  # not the working folder's: that one may move
        return run_command(
            (name, getattr(self, name))
            for name in COMMAND_OPTIONS
            if _differs(getattr(self, name), bundled.get(name, getattr(default, name)))
        )

    @property
    def resolved_run_id(self) -> str:
        return self.run_id or f"run-{self.fingerprint()}"

    @property
    def run_dir(self) -> Path:
        return self.out / self.resolved_run_id

    def as_dict(self) -> dict[str, Any]:
        return {k: str(v) if isinstance(v, Path) else v for k, v in asdict(self).items()}

    @classmethod
    def of_record(cls, values: Mapping[str, Any]) -> RunConfig:
        """The settings a manifest records (`as_dict`, brought to the current format by
        `record.migrate`), typed again: its paths as written, a setting it lacks at its default
        (`migrate` fills those whose older runs had another value)."""
        names = {f.name for f in fields(cls)}
        typed = {k: Path(v) if k in PATH_SETTINGS else v for k, v in values.items() if k in names}
        return cls(**typed)


SETTINGS: dict[str, Setting] = {f.name: f.metadata["setting"] for f in fields(RunConfig)}
# the settings that are paths (annotations are strings here: `from __future__ import annotations`)
PATH_SETTINGS = tuple(f.name for f in fields(RunConfig) if f.type == "Path")
# Every setting, in the order a recorded command names those that differ from their defaults
# (`command` builds it from the effective configuration, so it reproduces the run id).
COMMAND_OPTIONS = tuple(SETTINGS)
TRANSPORT = tuple(name for name, said in SETTINGS.items() if not said.run_id)


def _differs(value: Any, default: Any) -> bool:
    if isinstance(value, Path) and isinstance(default, Path):
        return value.resolve() != default.resolve()
    return bool(value != default)


MAX_RUN_ID = 200  # bytes: file systems allow 255 in a name, and runs add nothing to it


def _validate_run_folder(cfg: RunConfig) -> None:
    """The settings that decide where a run is written, and when it counts as failed."""
    if cfg.run_id and not safe_name(cfg.run_id):
        raise ConfigError(
            f"run_id must be a plain folder name (letters, digits, '-', '_' and '.', starting "
            f"with a letter or digit, no '..'), got {cfg.run_id!r}",
            field="run_id",
        )
    if len(cfg.run_id.encode()) > MAX_RUN_ID:  # refused before a generation, not after all
        raise ConfigError(
            f"run_id is {len(cfg.run_id.encode())} bytes long, longer than a folder name may "
            f"be here ({MAX_RUN_ID})",
            field="run_id",
            allowed=f"a name of at most {MAX_RUN_ID} bytes",
        )
    if not 0.0 <= cfg.max_failed <= 1.0:
        raise ConfigError(
            f"max_failed must be a share in [0, 1], got {cfg.max_failed}",
            field="max_failed",
            allowed="a value from 0 to 1",
        )


def load_toml(path: Path) -> dict[str, Any]:
    from experiment.corpus import read_text

    try:
        data = tomllib.loads(read_text(path))
    except tomllib.TOMLDecodeError as e:
        raise InputError(f"not valid TOML ({e})", path=path, fix="check the TOML syntax") from e
    except RecursionError:
        raise InputError(
            "nested too deeply", path=path, fix="write flat key = value lines"
        ) from None
    above = [k for k in data if k != "run"] if "run" in data else []
    if above:
        raise InputError(
            f"key(s) {', '.join(above)} above the [run] table, which would be ignored",
            path=path,
            field=above[0],
            fix="move them under [run], or drop the [run] line",
        )
    data = data.get("run", data)
    if not isinstance(data, dict):
        raise InputError("[run] is not a table", path=path, field="run", fix="write key = value")
    known = {f.name: f for f in fields(RunConfig)}
    defaults = RunConfig()
    for key, value in data.items():
        if key not in known:
            raise InputError(
                f"unknown key '{key}'", path=path, field=key, fix=f"use one of: {', '.join(known)}"
            )
        default = getattr(defaults, key)
        if isinstance(default, str | Path):
            ok, kind = isinstance(value, str), "a string"
        elif isinstance(default, float):
            ok, kind = isinstance(value, int | float) and not isinstance(value, bool), "a number"
        else:
            ok, kind = isinstance(value, int) and not isinstance(value, bool), "a whole number"
        if not ok:
            example = '"path/to/folder"' if isinstance(default, Path) else repr(default)
            raise InputError(
                f"'{key}' must be {kind}, got {value!r}",
                path=path,
                field=key,
                fix=f"write {key} = {example}",
            )
    return data


def build_config(toml: Path | None, overrides: dict[str, Any]) -> RunConfig:
    base = RunConfig()
    values: dict[str, Any] = load_toml(toml) if toml else {}
    values.update({k: v for k, v in overrides.items() if v is not None})
    typed: dict[str, Any] = {}
    for f in fields(RunConfig):
        if f.name in values:
            v = values[f.name]
            typed[f.name] = Path(v) if isinstance(getattr(base, f.name), Path) else v
    if toml:
        _validate_file_values(toml, {k: v for k, v in typed.items() if overrides.get(k) is None})
    return replace(base, **typed)


def _validate_file_values(toml: Path, from_file: dict[str, Any]) -> None:
    """A value in the file that RunConfig rejects (k = 0, top_p = 0, ...), reported at its line."""
    try:
        replace(RunConfig(), **from_file)
    except ConfigError as e:
        key = e.field if e.field in from_file else None
        if key is None and len(from_file) == 1:
            key = next(iter(from_file))
        line = None
        if key is not None:
            from experiment.corpus import read_text

            pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
            lines = read_text(toml).splitlines()
            line = next((i for i, text in enumerate(lines, 1) if pattern.match(text)), None)
        fix = f"change {key} in {toml.name}" if key else f"change the values in {toml.name}"
        if key and e.allowed:
            fix += f" to {e.allowed}"
        raise InputError(str(e), path=toml, line=line, field=key, fix=fix) from e


def _listed(value: str, allowed: tuple[str, ...], name: str) -> tuple[str, ...]:
    """A comma-separated setting of `allowed` names, in `allowed`'s order ("none": empty)."""
    said = [m.strip() for m in value.split(",") if m.strip()]
    if said == ["none"]:
        return ()
    if not said or any(m not in allowed for m in said):
        raise ConfigError(
            f"{name} must be 'none' or a comma-separated list of {', '.join(allowed)}, got "
            f"'{value}'",
            field=name,
        )
    return tuple(m for m in allowed if m in said)


def git_commit() -> str:
    """This checkout's commit (40 hex digits, "-dirty" with uncommitted changes); "" outside git."""
    try:
        done = subprocess.run(
            ["git", "-C", str(PROJECT_ROOT), "describe", "--always", "--dirty", "--abbrev=40"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""
