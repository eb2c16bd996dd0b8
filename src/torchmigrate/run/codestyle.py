"""The project's own layout rules, read from its configuration files: the line length its linters and formatter
enforce, and whether a formatter that joins lines (black, ruff format) keeps its code.

Read, from the folder of each PATH up to its project root (the first folder with ``.git``), the closest of each:

- ``pyproject.toml``: ``[tool.black] line-length`` (88 when black is configured without it), ``[tool.ruff]
  line-length`` (88 when ``[tool.ruff.format]`` is configured without it);
- ``ruff.toml`` / ``.ruff.toml``: ``line-length``;
- ``setup.cfg``, ``tox.ini``, ``.flake8``: ``[flake8]`` / ``[pycodestyle]`` ``max-line-length`` (79, flake8's
  default, for a ``[flake8]`` section without it);
- ``setup.cfg``, ``tox.ini``, ``.style.yapf``, ``pyproject.toml``: ``[yapf]`` / ``[style]`` / ``[tool.yapf]``
  ``column_limit`` (else its ``based_on_style``'s: 79 for pep8, 80 for google and facebook);
- ``.pre-commit-config.yaml``: a ``black`` or ``ruff-format`` hook says the formatter runs; a ``flake8`` hook with no
  configuration anywhere means flake8's default, 79.

The line length is the smallest of those found (each linter must stay quiet). Nothing found: pycodestyle's 79 (what
flake8 checks when a project configures nothing), and no formatter (so nothing is joined, only too long edited lines
split).
"""

from __future__ import annotations

import configparser
import os
import re
import sys
from pathlib import Path

from torchmigrate.core.registry import Layout

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["detect_layout"]

BLACK_DEFAULT = 88
RUFF_DEFAULT = 88
FLAKE8_DEFAULT = 79


def _toml(path: Path) -> dict[str, object] | None:
    try:
        with path.open("rb") as handle:
            data: dict[str, object] = tomllib.load(handle)
            return data
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return None


def _table(data: dict[str, object], *keys: str) -> dict[str, object] | None:
    current: object = data
    for key in keys:
        if not isinstance(current, dict):
            return None
        current = current.get(key)
    return current if isinstance(current, dict) else None


def _length(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    if isinstance(value, str):
        match = re.match(r"\s*(\d+)", value)
        if match:
            return int(match.group(1))
    return None


def _flake8(path: Path) -> int | None:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError, OSError):
        return None
    for section in ("flake8", "pycodestyle"):
        if parser.has_section(section):
            for key in ("max-line-length", "max_line_length"):
                if parser.has_option(section, key):
                    found = _length(parser.get(section, key))
                    if found is not None:
                        return found
            if section == "flake8":
                return FLAKE8_DEFAULT
    return None


_YAPF_STYLES = {"pep8": 79, "google": 80, "facebook": 80, "yapf": 79}


def _yapf_limit(options: dict[str, str]) -> int | None:
    if "column_limit" in options:
        return _length(options["column_limit"])
    return _YAPF_STYLES.get(options.get("based_on_style", "pep8").strip().lower(), 79)


def _yapf(path: Path) -> int | None:
    """A ``[yapf]`` / ``[style]`` section's column limit (``column_limit``, else its base style's)."""
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError, OSError):
        return None
    for section in ("yapf", "style"):
        if parser.has_section(section):
            return _yapf_limit({k.lower().replace("-", "_"): v for k, v in parser.items(section)})
    return None


def _folders(start: Path) -> list[Path]:
    here = Path(os.path.abspath(start))
    folder = here if here.is_dir() else here.parent
    out = []
    for candidate in (folder, *folder.parents):
        out.append(candidate)
        if (candidate / ".git").exists():
            break
    return out


def detect_layout(start: Path) -> Layout:
    """The :class:`Layout` the configuration files around ``start`` (a file or folder) set."""
    black: int | None = None
    ruff: int | None = None
    flake8: int | None = None
    formatter: str | None = None
    yapf: int | None = None
    flake8_hook = False
    seen_pyproject = seen_ruff = seen_flake8 = seen_precommit = False
    for folder in _folders(start):
        pyproject = folder / "pyproject.toml"
        wanted = not seen_pyproject or yapf is None
        project_data = _toml(pyproject) if wanted and pyproject.is_file() else None  # once, for black, ruff and yapf
        if not seen_pyproject and project_data is not None:
            seen_pyproject = True
            black_table = _table(project_data, "tool", "black")
            if black_table is not None:
                black = _length(black_table.get("line-length")) or BLACK_DEFAULT
                formatter = formatter or "black"
            ruff_table = _table(project_data, "tool", "ruff")
            if ruff_table is not None and not seen_ruff:
                seen_ruff = True
                ruff = _length(ruff_table.get("line-length"))
                if _table(ruff_table, "format") is not None:
                    ruff = ruff or RUFF_DEFAULT
                    formatter = formatter or "ruff"
        for name in ("ruff.toml", ".ruff.toml"):
            if not seen_ruff and (folder / name).is_file():
                data = _toml(folder / name)
                if data is not None:
                    seen_ruff = True
                    ruff = _length(data.get("line-length"))
                    if _table(data, "format") is not None:
                        ruff = ruff or RUFF_DEFAULT
                        formatter = formatter or "ruff"
        for name in ("setup.cfg", "tox.ini", ".flake8"):
            if not seen_flake8 and (folder / name).is_file():
                found = _flake8(folder / name)
                if found is not None:
                    seen_flake8, flake8 = True, found
        precommit = folder / ".pre-commit-config.yaml"
        if not seen_precommit and precommit.is_file():
            seen_precommit = True
            try:
                text = precommit.read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            if re.search(r"id:\s*black(?:-jupyter)?\b", text):
                formatter = formatter or "black"
                argument = re.search(r"(?:--line-length[= ]|-l\s*)(\d+)", text)
                black = black or (int(argument.group(1)) if argument else BLACK_DEFAULT)
            if re.search(r"id:\s*ruff-format\b", text):
                formatter = formatter or "ruff"
                ruff = ruff or RUFF_DEFAULT
            if re.search(r"id:\s*flake8\b", text):
                flake8_hook = True
        for name in ("setup.cfg", "tox.ini", ".style.yapf"):
            if yapf is None and (folder / name).is_file():
                yapf = _yapf(folder / name)
        if yapf is None and project_data is not None:
            table = _table(project_data, "tool", "yapf")
            if table is not None:
                yapf = _yapf_limit({str(k).lower().replace("-", "_"): str(v) for k, v in table.items()})
    if flake8 is None and flake8_hook:
        flake8 = FLAKE8_DEFAULT  # run by pre-commit with no configuration: its default applies
    lengths = [n for n in (black, ruff, flake8, yapf) if n is not None]
    return Layout(line_length=min(lengths) if lengths else FLAKE8_DEFAULT, formatter=formatter)
