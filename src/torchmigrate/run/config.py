"""Configuration in ``pyproject.toml`` under ``[tool.torchmigrate]``, merged with the command line.

```toml
[tool.torchmigrate]
to = "2.12"                       # the release to migrate to (a string: a TOML number would read 2.10 as 2.1)
from = "2.7"                      # the release the code targets now (default: the torch pin, see versions.py)
select = ["export-for-inference"] # run only these passes (names opt-in passes too)
ignore = ["hub-trust-repo"]       # never run these
exclude = ["third_party/"]        # gitignore-style patterns, relative to this file's folder
extend-exclude = ["*_pb2.py"]     # added to `exclude` (and to --exclude)
per-file-ignores = { "tests/**" = ["export-for-training"] }
unsafe-fixes = true               # also apply review-level edits (default false: they are reported with the change)
min-torch = "2.6"                 # the support floor (default: the torch requirement as the migration leaves it)
```

Like ruff, the closest ``pyproject.toml`` *with a* ``[tool.torchmigrate]`` *table* above each PATH applies to it (a
``pyproject.toml`` without the table is passed over). Options given on the command line replace the file's values.
``--config FILE`` names the file instead; ``--isolated`` ignores every configuration file.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from torchmigrate.core.registry import Options, unknown_ids
from torchmigrate.core.versions import VersionError, parse_version
from torchmigrate.run.files import gitignore_spec
from torchmigrate.run.plan import ProjectReads, make_options, plan_tasks
from torchmigrate.run.runner import Task

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["Config", "ConfigError", "Overrides", "RootPlan", "find_config_file", "load_config", "plan", "tasks"]

TABLE = ("tool", "torchmigrate")
KEYS = (
    "to",
    "from",
    "select",
    "ignore",
    "exclude",
    "extend-exclude",
    "per-file-ignores",
    "unsafe-fixes",
    "min-torch",
)


class ConfigError(ValueError):
    """A configuration file that cannot be read or has a wrong key or value. The message is one line."""


@dataclass(frozen=True)
class Config:
    """The ``[tool.torchmigrate]`` settings; ``None`` where a key is not set."""

    source: Path | None = None
    to: str | None = None
    from_: str | None = None
    select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    exclude: tuple[str, ...] | None = None
    extend_exclude: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    unsafe_fixes: bool | None = None
    min_torch: str | None = None
    min_torch_source: str | None = None  # what sets `min_torch`, for messages: the option or the file's key

    @property
    def base(self) -> Path:
        """The folder that ``exclude`` and ``per-file-ignores`` patterns are relative to."""
        return self.source.parent if self.source is not None else Path.cwd()


@dataclass(frozen=True)
class Overrides:
    """What the command line says; ``None`` where an option was not given."""

    to: str | None = None
    from_: str | None = None
    select: Sequence[str] | None = None
    ignore: Sequence[str] | None = None
    exclude: Sequence[str] | None = None
    extend_exclude: Sequence[str] = ()
    unsafe_fixes: bool | None = None
    min_torch: str | None = None

    def apply(self, config: Config) -> Config:
        return replace(
            config,
            to=self.to if self.to is not None else config.to,
            from_=self.from_ if self.from_ is not None else config.from_,
            select=tuple(self.select) if self.select is not None else config.select,
            ignore=tuple(self.ignore) if self.ignore is not None else config.ignore,
            exclude=tuple(self.exclude) if self.exclude is not None else config.exclude,
            extend_exclude=(*config.extend_exclude, *self.extend_exclude),
            unsafe_fixes=self.unsafe_fixes if self.unsafe_fixes is not None else config.unsafe_fixes,
            min_torch=self.min_torch if self.min_torch is not None else config.min_torch,
            min_torch_source=f"--min-torch {self.min_torch}" if self.min_torch is not None else config.min_torch_source,
        )


# --- reading ----------------------------------------------------------------------------------------------------


def _strings(where: str, key: str, value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: `{key}` must be a list of strings, got {_shown(value)}")
    return tuple(value)


def _version(where: str, key: str, value: object) -> str:
    if isinstance(value, float):
        raise ConfigError(f'{where}: `{key}` must be a string such as "{value}" (a TOML number reads 2.10 as 2.1)')
    if not isinstance(value, str):
        raise ConfigError(f'{where}: `{key}` must be a string such as "2.12", got {_shown(value)}')
    try:
        parse_version(value)
    except VersionError as exc:
        raise ConfigError(f"{where}: `{key}`: {exc}") from None
    return value


def _shown(value: object) -> str:
    kind = {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "a list", dict: "a table"}
    return kind.get(type(value), type(value).__name__)


def parse_table(table: Mapping[str, object], source: Path | None, where: str) -> Config:
    """Validate one ``[tool.torchmigrate]`` table; raises :class:`ConfigError` naming the file and the key."""
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise ConfigError(f"{where}: unknown key {', '.join(repr(k) for k in unknown)} (known: {', '.join(KEYS)})")

    def version(key: str) -> str | None:
        return _version(where, key, table[key]) if key in table else None

    def strings(key: str) -> tuple[str, ...] | None:
        return _strings(where, key, table[key]) if key in table else None

    per_file: list[tuple[str, tuple[str, ...]]] = []
    raw = table.get("per-file-ignores", {})
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: `per-file-ignores` must be a table of pattern = [pass ids], got {_shown(raw)}")
    for pattern, ids in raw.items():
        per_file.append((pattern, _strings(where, f"per-file-ignores.{pattern!r}", ids)))
    unsafe = table.get("unsafe-fixes")
    if unsafe is not None and not isinstance(unsafe, bool):
        raise ConfigError(f"{where}: `unsafe-fixes` must be true or false, got {_shown(unsafe)}")
    min_torch = version("min-torch")
    config = Config(
        source=source,
        to=version("to"),
        from_=version("from"),
        unsafe_fixes=unsafe,
        min_torch=min_torch,
        min_torch_source=f'{where}: min-torch = "{min_torch}"' if min_torch is not None else None,
        select=strings("select"),
        ignore=strings("ignore"),
        exclude=strings("exclude"),
        extend_exclude=strings("extend-exclude") or (),
        per_file_ignores=tuple(per_file),
    )
    bad = unknown_ids([*(config.select or ()), *(config.ignore or ()), *(i for _, ids in per_file for i in ids)])
    if bad:
        raise ConfigError(f"{where}: unknown pass id(s): {', '.join(bad)} (see `migrate --list`)")
    return config


def _read_toml(path: Path) -> dict[str, object]:
    try:
        with path.open("rb") as handle:
            data: dict[str, object] = tomllib.load(handle)
            return data
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None


def _table(data: Mapping[str, object]) -> Mapping[str, object] | None:
    tool = data.get(TABLE[0])
    if isinstance(tool, dict) and TABLE[1] in tool:
        table = tool[TABLE[1]]
        return table if isinstance(table, dict) else {"<not a table>": table}
    return None


def load_config(path: Path) -> Config:
    """The configuration in ``path``: its ``[tool.torchmigrate]`` table, or (for a file not named ``pyproject.toml``,
    such as ``torchmigrate.toml``) its top-level keys."""
    data = _read_toml(path)
    table = _table(data)
    where = f"{_display(path)} [tool.torchmigrate]"
    if table is None:
        if path.name == "pyproject.toml":
            raise ConfigError(f"{_display(path)}: no [tool.torchmigrate] table")
        table, where = data, _display(path)
    if "<not a table>" in table:
        raise ConfigError(f"{_display(path)}: tool.torchmigrate must be a table")
    return parse_table(table, path.resolve(), where)


def _display(path: Path) -> str:
    try:
        return Path(os.path.abspath(path)).relative_to(Path.cwd()).as_posix()
    except ValueError:
        return path.as_posix()


def _config_in(folder: Path) -> Path | None:
    candidate = folder / "pyproject.toml"
    if candidate.is_file() and _table(_read_toml(candidate)) is not None:
        return candidate
    return None


def find_config_file(start: Path, cache: dict[Path, Path | None] | None = None) -> Path | None:
    """The closest ``pyproject.toml`` with a ``[tool.torchmigrate]`` table in ``start``'s folder or above it."""
    here = Path(os.path.abspath(start))
    folder = here if here.is_dir() else here.parent
    seen = {} if cache is None else cache
    for candidate in (folder, *folder.parents):
        if candidate not in seen:
            seen[candidate] = _config_in(candidate)
        if seen[candidate] is not None:
            return seen[candidate]
    return None


# --- planning a run ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RootPlan:
    """One PATH of the command line with the configuration and options that apply under it."""

    root: Path
    config: Config
    options: Options
    detect_from: bool
    ignore_specs: tuple[tuple[GitIgnoreSpec, frozenset[str]], ...] = field(default=(), compare=False)

    def excludes(self) -> list[str]:
        return [*(self.config.exclude or ()), *self.config.extend_exclude]

    def options_for(self, path: Path, options: Options | None = None) -> Options:
        """The options for one file (``options``: the root's), minus the passes ``per-file-ignores`` turns off."""
        base = self.options if options is None else options
        relative = _relative(path, self.config.base) if self.ignore_specs else None
        if relative is None:
            return base
        extra: set[str] = set()
        for spec, ids in self.ignore_specs:
            if spec.match_file(relative):
                extra |= ids
        return replace(base, ignore=base.ignore | extra) if extra else base


def _relative(path: Path, base: Path) -> str | None:
    try:
        return Path(os.path.abspath(path)).relative_to(Path(os.path.abspath(base))).as_posix()
    except ValueError:
        return None


def plan(paths: Sequence[Path], overrides: Overrides, config_file: Path | None = None, isolated: bool = False) -> list[RootPlan]:
    """Resolve the configuration and options for each PATH. Raises ``ConfigError``, ``VersionError`` or
    ``ValueError`` (each a one-line reason) before anything is read or written."""
    explicit = load_config(config_file) if config_file is not None and not isolated else None
    folders: dict[Path, Path | None] = {}
    loaded: dict[Path, Config] = {}
    plans = []
    for root in paths:
        if isolated:
            config = Config()
        elif explicit is not None:
            config = explicit
        else:
            found = find_config_file(root, folders)
            if found is not None and found not in loaded:
                loaded[found] = load_config(found)
            config = loaded[found] if found is not None else Config()
        merged = overrides.apply(config)
        if merged.to is None:
            where = f" (and {_display(config.source)} sets no `to`)" if config.source else ""
            raise ValueError(f"missing --to VERSION (the PyTorch release to migrate to, e.g. --to 2.12){where}")
        options = make_options(
            merged.to,
            merged.from_,
            merged.select,
            merged.ignore or (),
            unsafe_fixes=bool(merged.unsafe_fixes),
            min_torch=merged.min_torch,
            min_torch_source=merged.min_torch_source,
        )
        specs = tuple((gitignore_spec([pattern]), frozenset(ids)) for pattern, ids in merged.per_file_ignores)
        plans.append(RootPlan(root, merged, options, detect_from=merged.from_ is None, ignore_specs=specs))
    return plans


def tasks(plans: Sequence[RootPlan], reads: ProjectReads | None = None) -> Iterator[Task]:
    """One task per source file under each planned root, with that file's options (``reads``: the run's project
    readings, see :class:`~torchmigrate.run.plan.ProjectReads`).

    Files come from :func:`torchmigrate.api.plan_tasks` (discovery and the ``--from`` pin); ``exclude`` patterns then
    drop files, also files named directly, and ``per-file-ignores`` adjust each file's options.
    """
    for root_plan in plans:
        patterns = root_plan.excludes()
        excluded = gitignore_spec(patterns) if patterns else None
        for task in plan_tasks([root_plan.root], root_plan.options, root_plan.detect_from, reads=reads):
            if excluded is not None:
                relative = _relative(task.path, root_plan.config.base)
                if relative is not None and excluded.match_file(relative):
                    continue
            options = root_plan.options_for(task.path, task.options)
            yield task if options is task.options else replace(task, options=options)
