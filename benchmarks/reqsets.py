"""Requirement sets in project files, and whether pip can resolve them: the truth harness's proof by resolution.

A *requirement set* is what one install step asks pip for: a requirements file (its ``-r`` includes inlined), the
``dependencies`` of a ``pyproject.toml`` (each optional group with them), ``install_requires`` of ``setup.cfg`` /
``setup.py`` (each extra with them), or one ``pip install`` / ``uv pip install`` / ``uv add`` command in a Dockerfile,
a CI file, a shell script or a notebook cell. :func:`extract_sets` finds them in a file's text without running
anything (``setup.py`` is read with the stdlib ``ast``); :func:`changed_sets` pairs a file's sets before and after a
migration; :func:`resolve` asks ``pip install --dry-run --ignore-installed --report -`` whether one resolves.

What cannot be checked is kept with a reason (``skipped``): a set that names a shell or CI variable, a conda set,
local paths and VCS URLs are dropped from a set (they name code pip would build), and so on.
"""

from __future__ import annotations

import ast
import configparser
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

Reader = Callable[[str], "str | None"]  # a repository-relative path → its text, or None when there is no such file


@dataclass(frozen=True)
class ReqSet:
    """One requirement set: where it is, the requirement lines, the pip options it carries, why it is not checkable."""

    file: str
    label: str
    requirements: tuple[str, ...] = ()
    options: tuple[str, ...] = ()  # index options: --index-url URL, --extra-index-url URL, -f URL, --pre
    skipped: str | None = None
    dropped: tuple[str, ...] = ()  # local paths, VCS URLs and editables left out

    @property
    def key(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        return self.requirements, self.options

    def to_dict(self) -> dict[str, object]:
        return {
            "file": self.file,
            "label": self.label,
            "requirements": list(self.requirements),
            "options": list(self.options),
            "skipped": self.skipped,
            "dropped": list(self.dropped),
        }


# --- requirement lines ------------------------------------------------------------------------------------------

_INDEX_OPTIONS = {"-i", "--index-url", "--extra-index-url", "-f", "--find-links"}
_LOCAL = re.compile(r"^(?:\.{1,2}(?:/|$)|/|~|file:)|^[\w.\-]+/|\.(?:whl|zip|tar\.gz)$")
_URL = re.compile(r"^(?:git|hg|svn|bzr)\+|://")
_VARIABLE = re.compile(r"\$\{?\w|\{\{|%\w+%")


def is_local_or_url(requirement: str) -> bool:
    """A requirement that names code rather than a package on the index: a path, a URL, a VCS checkout."""
    head = requirement.split(";", 1)[0].strip()
    if " @ " in head:
        return True
    return bool(_URL.search(head) or _LOCAL.search(head))


def _logical_lines(text: str) -> list[tuple[int, str]]:
    """(first line number, text) of each line with its ``\\`` continuations joined."""
    out: list[tuple[int, str]] = []
    buffer, start = "", 0
    for number, line in enumerate(text.splitlines(), start=1):
        if not buffer:
            start = number
        if line.endswith("\\"):
            buffer += line[:-1] + " "
            continue
        out.append((start, buffer + line))
        buffer = ""
    if buffer:
        out.append((start, buffer))
    return out


def _strip_comment(line: str) -> str:
    if line.lstrip().startswith("#"):
        return ""
    return re.split(r"\s+#", line, maxsplit=1)[0].strip()


def requirements_file(path: str, text: str, read: Reader, seen: frozenset[str] = frozenset()) -> ReqSet:
    """The set a requirements file asks for, ``-r`` / ``-c`` includes inlined (read relative to the file)."""
    requirements: list[str] = []
    options: list[str] = []
    dropped: list[str] = []
    skipped: str | None = None
    folder = PurePosixPath(path).parent
    for _, raw in _logical_lines(text):
        line = _strip_comment(raw)
        if not line:
            continue
        if line.startswith("-"):
            try:
                words = shlex.split(line)
            except ValueError:
                skipped = skipped or f"cannot read the line {line!r}"
                continue
            flag, _, inline = words[0].partition("=")
            value = inline or (words[1] if len(words) > 1 else "")
            if flag in ("-r", "--requirement", "-c", "--constraint"):
                include = os.path.normpath(str(folder / value)).replace(os.sep, "/")
                if include in seen or include == path:
                    continue
                included = read(include)
                if included is None or _VARIABLE.search(value):
                    skipped = skipped or f"names {value}, which is not in the repository"
                    continue
                inner = requirements_file(include, included, read, seen | {path})
                requirements += inner.requirements
                options += [o for o in inner.options if o not in options]
                dropped += inner.dropped
                skipped = skipped or inner.skipped
            elif flag in ("-e", "--editable"):
                dropped.append(line)
            elif flag in _INDEX_OPTIONS:
                options.append(f"{flag}={value}" if flag.startswith("--") else f"{flag} {value}")
            elif flag == "--pre":
                options.append("--pre")
            continue  # other options (--hash on its own line, --trusted-host, …) do not change what resolves
        if _VARIABLE.search(line):
            skipped = skipped or f"uses a variable: {line}"
            continue
        line = " ".join(line.split())
        if is_local_or_url(line):
            dropped.append(line)
            continue
        requirements.append(line)
    return ReqSet(path, "file", tuple(requirements), tuple(options), skipped, tuple(dropped))


def _clean(requirements: Sequence[str], file: str, label: str) -> ReqSet:
    kept: list[str] = []
    dropped: list[str] = []
    skipped = None
    for requirement in requirements:
        requirement = requirement.strip()
        if not requirement or requirement.startswith("#"):
            continue
        if _VARIABLE.search(requirement):
            skipped = skipped or f"uses a variable: {requirement}"
        elif is_local_or_url(requirement):
            dropped.append(requirement)
        else:
            kept.append(requirement)
    return ReqSet(file, label, tuple(kept), (), skipped, tuple(dropped))


# --- pyproject.toml, setup.cfg, setup.py ------------------------------------------------------------------------


def _poetry_requirement(name: str, value: object) -> str | None:
    from torchmigrate.project.pins import poetry_to_pep440

    if isinstance(value, dict):
        if "version" not in value:
            return None  # git, path or url dependencies
        value = value["version"]
    if not isinstance(value, str):
        return None
    value = value.strip()
    return name if value in ("", "*") else f"{name}{poetry_to_pep440(value)}"


def pyproject_sets(path: str, text: str) -> list[ReqSet]:
    """PEP 621 ``dependencies`` (and each optional group with them), PEP 735 groups, Poetry's dependency tables."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return [ReqSet(path, "pyproject.toml", skipped=f"does not parse: {exc}")]
    sets: list[ReqSet] = []
    project = data.get("project", {})
    base = [r for r in project.get("dependencies", []) if isinstance(r, str)]
    if "dependencies" in project:
        sets.append(_clean(base, path, "[project] dependencies"))
    for group, extra in sorted(project.get("optional-dependencies", {}).items()):
        sets.append(_clean(base + [r for r in extra if isinstance(r, str)], path, f"[project] dependencies + extra {group}"))
    for group, items in sorted(data.get("dependency-groups", {}).items()):
        sets.append(_clean([r for r in items if isinstance(r, str)], path, f"[dependency-groups] {group}"))
    poetry = data.get("tool", {}).get("poetry", {})
    tables = [("[tool.poetry.dependencies]", poetry.get("dependencies", {}))]
    tables += [(f"[tool.poetry.group.{g}.dependencies]", t.get("dependencies", {})) for g, t in sorted(poetry.get("group", {}).items())]
    for label, table in tables:
        if table:
            found = [_poetry_requirement(name, value) for name, value in table.items() if name.lower() != "python"]
            sets.append(_clean([r for r in found if r], path, label))
    return sets


def setupcfg_sets(path: str, text: str) -> list[ReqSet]:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error as exc:
        return [ReqSet(path, "setup.cfg", skipped=f"does not parse: {exc}")]

    def split(value: str) -> list[str]:
        return [_strip_comment(line) for line in re.split(r"[\n;]", value) if _strip_comment(line)]

    sets: list[ReqSet] = []
    base: list[str] = []
    if parser.has_option("options", "install_requires"):
        base = split(parser.get("options", "install_requires"))
        sets.append(_clean(base, path, "install_requires"))
    if parser.has_section("options.extras_require"):
        for extra, value in parser.items("options.extras_require"):
            sets.append(_clean(base + split(value), path, f"install_requires + extra {extra}"))
    return sets


def _strings(node: ast.AST, names: dict[str, ast.AST]) -> list[str] | None:
    """A list/tuple of string constants (through one module-level name), else None."""
    if isinstance(node, ast.Name) and node.id in names:
        node = names[node.id]
    if isinstance(node, (ast.List, ast.Tuple)) and all(isinstance(e, ast.Constant) and isinstance(e.value, str) for e in node.elts):
        return [e.value for e in node.elts]  # type: ignore[attr-defined]
    return None


def setuppy_sets(path: str, text: str) -> list[ReqSet]:
    """``install_requires`` / ``extras_require`` of the ``setup(...)`` call, when they are literal lists (read with the
    stdlib ``ast``; nothing runs). A computed list is reported as not checkable."""
    try:
        tree = ast.parse(text)
    except SyntaxError as exc:
        return [ReqSet(path, "setup.py", skipped=f"does not parse: {exc.msg}")]
    names: dict[str, ast.AST] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            names[statement.targets[0].id] = statement.value
    sets: list[ReqSet] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "setup"):
            continue
        base: list[str] = []
        for keyword in node.keywords:
            if keyword.arg == "install_requires":
                found = _strings(keyword.value, names)
                if found is None:
                    sets.append(ReqSet(path, "install_requires", skipped="computed, not a literal list"))
                else:
                    base = found
                    sets.append(_clean(found, path, "install_requires"))
        for keyword in node.keywords:
            if keyword.arg == "extras_require":
                value = keyword.value
                if isinstance(value, ast.Name) and value.id in names:
                    value = names[value.id]
                if not isinstance(value, ast.Dict):
                    continue
                for key, item in zip(value.keys, value.values, strict=True):
                    found = _strings(item, names)
                    if isinstance(key, ast.Constant) and isinstance(key.value, str) and found is not None:
                        sets.append(_clean(base + found, path, f"install_requires + extra {key.value}"))
    return sets


# --- install commands (Dockerfiles, CI files, scripts, notebooks) ------------------------------------------------

_PIP_COMMAND = re.compile(r"\b(?:(?:python3?(?:\.\d+)?\s+-m\s+)?pip3?|uv\s+pip)\s+install\b|\buv\s+add\b")
_VALUE_OPTIONS = {
    "-i", "--index-url", "--extra-index-url", "-f", "--find-links", "-c", "--constraint", "-r", "--requirement",
    "-e", "--editable", "--trusted-host", "-t", "--target", "--prefix", "--root", "--platform", "--python-version",
    "--implementation", "--abi", "--only-binary", "--no-binary", "--progress-bar", "--cache-dir", "--log",
    "--timeout", "--retries", "--src", "--upgrade-strategy", "--config-settings", "-C", "--global-option",
    "--python", "-p", "--index", "--default-index", "--group", "--extra", "--optional", "--dev-group",
    "--exists-action", "--proxy", "--cert", "--client-cert", "--report", "--root-user-action", "--index-strategy",
}


def install_command(words: Sequence[str], file: str, label: str, read: Reader) -> ReqSet | None:
    """The set one install command asks for (``words``: its arguments after ``install`` / ``add``)."""
    requirements: list[str] = []
    options: list[str] = []
    dropped: list[str] = []
    skipped = None
    i = 0
    while i < len(words):
        word = words[i]
        if word.startswith("-"):
            flag, has_value, inline = word.partition("=")
            takes_value = flag in _VALUE_OPTIONS and not has_value
            value = inline if has_value else (words[i + 1] if takes_value and i + 1 < len(words) else "")
            i += 2 if takes_value else 1
            if _VARIABLE.search(value):
                skipped = skipped or f"uses a variable: {word} {value}".strip()
            elif flag in ("-r", "--requirement"):
                included = read(os.path.normpath(value).replace(os.sep, "/"))
                if included is None:
                    skipped = skipped or f"installs {value}, which is not in the repository"
                else:
                    inner = requirements_file(os.path.normpath(value).replace(os.sep, "/"), included, read)
                    requirements += inner.requirements
                    options += inner.options
                    dropped += inner.dropped
                    skipped = skipped or inner.skipped
            elif flag in ("-e", "--editable"):
                dropped.append(value)
            elif flag in _INDEX_OPTIONS:
                options.append(f"{flag}={value}" if flag.startswith("--") else f"{flag} {value}")
            elif flag == "--pre":
                options.append("--pre")
            continue
        i += 1
        if _VARIABLE.search(word):
            skipped = skipped or f"uses a variable: {word}"
        elif is_local_or_url(word):
            dropped.append(word)
        else:
            requirements.append(word)
    if not requirements and skipped is None:
        return None
    return ReqSet(file, label, tuple(requirements), tuple(options), skipped, tuple(dropped))


def command_sets(path: str, text: str, read: Reader) -> list[ReqSet]:
    """One set per ``pip install`` / ``uv pip install`` / ``uv add`` command in ``text``, in order."""
    sets: list[ReqSet] = []
    for number, line in _logical_lines(text):
        for match in _PIP_COMMAND.finditer(line):
            rest = line[match.end() :]
            rest = re.split(r"&&|\|\||;|\||\)|`|\s#", rest, maxsplit=1)[0]
            try:
                words = shlex.split(rest)
            except ValueError:
                sets.append(ReqSet(path, f"line {number}", skipped="cannot split the command"))
                continue
            found = install_command(words, path, f"line {number}", read)
            if found is not None:
                sets.append(found)
    return sets


def notebook_sets(path: str, text: str, read: Reader) -> list[ReqSet]:
    try:
        cells = json.loads(text).get("cells", [])
    except (ValueError, AttributeError):
        return []
    sets: list[ReqSet] = []
    for number, cell in enumerate(cells, start=1):
        if cell.get("cell_type") != "code":
            continue
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        lines = [line for line in source.splitlines() if line.lstrip().startswith(("!", "%pip", "%uv"))]
        for found in command_sets(path, "\n".join(lines), read):
            sets.append(ReqSet(found.file, f"cell {number}", found.requirements, found.options, found.skipped, found.dropped))
    return sets


def environment_sets(path: str, text: str) -> list[ReqSet]:
    """A conda environment file: its ``pip:`` list is a set; conda packages are not pip's to resolve."""
    try:
        import yaml
    except ImportError:
        return [ReqSet(path, "environment", skipped="pyyaml is not installed")]
    try:
        data = yaml.safe_load(text) or {}
    except yaml.YAMLError:
        return [ReqSet(path, "environment", skipped="does not parse")]
    sets = []
    for item in data.get("dependencies", []) if isinstance(data, dict) else []:
        if isinstance(item, dict) and isinstance(item.get("pip"), list):
            sets.append(_clean([str(r) for r in item["pip"]], path, "environment pip:"))
    return sets


def file_kind(path: str) -> str | None:
    """The kind of file whose requirement sets are read (the tool's own project-file kinds, notebooks, scripts)."""
    from torchmigrate.project.pins import project_kind

    pure = PurePosixPath(path)
    if pure.suffix == ".ipynb":
        return "notebook"
    if pure.name in ("environment.yml", "environment.yaml"):
        return "environment"
    if pure.suffix == ".sh":
        return "script"
    return project_kind(pure)


def extract_sets(path: str, text: str, read: Reader) -> list[ReqSet]:
    """The requirement sets in ``text`` (the file at repository-relative ``path``), in file order."""
    kind = file_kind(path)
    if kind == "requirements":
        return [requirements_file(path, text, read)]
    if kind == "environment":
        return environment_sets(path, text)
    if kind == "pyproject":
        return pyproject_sets(path, text)
    if kind == "setupcfg":
        return setupcfg_sets(path, text)
    if kind == "setuppy":
        return setuppy_sets(path, text)
    if kind == "notebook":
        return notebook_sets(path, text, read)
    if kind in ("dockerfile", "ci", "script"):
        return command_sets(path, text, read)
    return []


@dataclass(frozen=True)
class SetChange:
    """A requirement set whose content the migration changed: before and after (``None`` for a set that appeared or
    went away)."""

    file: str
    label: str
    before: ReqSet | None
    after: ReqSet | None


def changed_sets(path: str, old: str, new: str, read_old: Reader, read_new: Reader) -> list[SetChange]:
    """The sets of ``path`` whose requirements or options differ between ``old`` and ``new``, paired in file order.

    A requirements file also counts as changed when a file it includes changed (``read_*`` serve the two trees)."""
    before = extract_sets(path, old, read_old)
    after = extract_sets(path, new, read_new)
    changes = []
    for index in range(max(len(before), len(after))):
        b = before[index] if index < len(before) else None
        a = after[index] if index < len(after) else None
        if b is not None and a is not None and b.key == a.key and b.skipped == a.skipped:
            continue
        label = (a or b).label  # type: ignore[union-attr]
        changes.append(SetChange(path, label, b, a))
    return changes


# --- resolution -------------------------------------------------------------------------------------------------

RESOLVES, FAILS, UNREACHABLE, TIMEOUT, SKIPPED, ERROR = "resolves", "fails", "unreachable", "timeout", "skipped", "error"

_NETWORK = re.compile(
    r"Failed to establish a new connection|Max retries exceeded|Network is unreachable|Temporary failure in name "
    r"resolution|Name or service not known|ConnectTimeout|Read timed out|Connection refused|ProxyError|SSLError|"
    r"Could not fetch URL|connection error",
    re.IGNORECASE,
)
_RESOLUTION = re.compile(
    r"ResolutionImpossible|No matching distribution found|Could not find a version that satisfies|conflicting "
    r"dependencies|versions have conflicting|requires a different Python|Invalid requirement|"
    r"has inconsistent|Cannot install",
    re.IGNORECASE,
)


@dataclass
class Resolution:
    status: str
    detail: str = ""
    chosen: dict[str, str] = field(default_factory=dict)  # torch-family packages pip picked: name → version

    def to_dict(self) -> dict[str, object]:
        return {"status": self.status, "detail": self.detail, "chosen": self.chosen}


def classify(returncode: int, stdout: str, stderr: str) -> Resolution:
    """What one ``pip install --dry-run --report -`` run says about a set. An index that did not answer makes the
    answer worthless either way (pip goes on without it): unreachable."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip() and not line.startswith("WARNING: Location")]
    unanswered = [line for line in lines if _NETWORK.search(line)]
    if unanswered:  # a package missing from the answer may be on the index that did not answer
        return Resolution(UNREACHABLE, unanswered[0][:300])
    if returncode == 0:
        chosen: dict[str, str] = {}
        try:
            report = json.loads(stdout)
        except ValueError:
            return Resolution(RESOLVES, "no report")
        for item in report.get("install", []):
            meta = item.get("metadata", {})
            name = str(meta.get("name", "")).lower()
            if name.startswith(("torch", "triton", "xformers")):
                chosen[name] = str(meta.get("version", ""))
        return Resolution(RESOLVES, chosen=chosen)
    errors = [line for line in lines if line.startswith("ERROR:")] or lines
    detail = " | ".join(errors[:3])[:600]
    if _RESOLUTION.search(stderr):
        return Resolution(FAILS, detail)
    return Resolution(ERROR, detail)


def pip_command(reqset: ReqSet, requirements_path: str, python: str = sys.executable) -> list[str]:
    command = [python, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet", "--report", "-"]
    command += ["--only-binary=:all:", "--disable-pip-version-check", "--no-input", "--timeout", "20", "--retries", "1"]
    for option in reqset.options:
        command += option.split(" ", 1) if option.startswith("-") and " " in option else [option]
    return [*command, "-r", requirements_path]


Runner = Callable[[list[str], float], tuple[int, str, str]]


def run_pip(command: list[str], timeout: float) -> tuple[int, str, str]:
    """Run pip with the local version cap lifted (``PIP_CONSTRAINT=/dev/null``); a time-out raises."""
    env = {**os.environ, "PIP_CONSTRAINT": os.devnull, "PIP_NO_INPUT": "1"}
    proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    return proc.returncode, proc.stdout, proc.stderr


def resolve(reqset: ReqSet, timeout: float = 300, runner: Runner = run_pip, python: str = sys.executable) -> Resolution:
    """Does pip resolve ``reqset`` (binary distributions only, so no package's build code runs)?"""
    if reqset.skipped:
        return Resolution(SKIPPED, reqset.skipped)
    if not reqset.requirements:
        return Resolution(SKIPPED, "no requirement left to check")
    with tempfile.NamedTemporaryFile("w", suffix=".txt", prefix="reqset-", delete=False) as handle:
        handle.write("\n".join(reqset.requirements) + "\n")
        name = handle.name
    try:
        returncode, stdout, stderr = runner(pip_command(reqset, name, python), timeout)
    except subprocess.TimeoutExpired:
        return Resolution(TIMEOUT, f"no answer within {timeout:.0f} s")
    finally:
        os.unlink(name)
    return classify(returncode, stdout, stderr)


def index_reachable(runner: Runner = run_pip, timeout: float = 60, python: str = sys.executable) -> str | None:
    """``None`` when the package index answers a one-package dry run, else why not."""
    probe = ReqSet("<probe>", "probe", ("pip",))
    result = resolve(probe, timeout, runner, python)
    if result.status == RESOLVES:
        return None
    return f"{result.status}: {result.detail}" if result.detail else result.status
