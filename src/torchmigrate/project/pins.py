"""Where torch is pinned: the project files torchmigrate reads, and the requirements declared inside them.

One scanner serves both ``--from`` detection (:mod:`torchmigrate.project.detect`) and the project file passes
(:mod:`torchmigrate.project.sets`), so both agree on what counts as a pin. Only dependency declarations are read:

- requirements files: each requirement line, without its comment (commented-out lines pin nothing);
- ``pyproject.toml``: the strings of PEP 621 ``dependencies`` / ``optional-dependencies``, ``[dependency-groups]``,
  ``[build-system] requires``, Poetry's dependency tables (``torch = "^2.7"``), PDM's and uv's dependency lists and
  hatch environments' dependencies — never another table (isort's ``known_third_party``, ruff's settings …);
- ``setup.cfg``: ``install_requires``, ``setup_requires``, ``tests_require`` and ``[options.extras_require]``;
- ``setup.py``: string literals that read as a requirement, outside ``dependency_links`` (tokenized and parsed, never
  run);
- conda ``environment.yml``: the ``dependencies`` list (conda match specs, ``pytorch=2.1``) and its ``pip:`` list;
- Dockerfiles, CI files and notebook shell lines: ``pip install`` / ``uv pip install`` / ``uv add`` /
  ``conda install`` commands, without comment lines.

Pure text: nothing here runs or imports project code.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass

from torchmigrate.core.versions import CLAUSE_RE
from torchmigrate.project.kinds import project_kind

__all__ = [
    "CLAUSE_RE",
    "PINNED_PACKAGES",
    "Requirement",
    "find_requirements",
    "project_kind",
    "regions",
    "requirements_in",
    "toml_regions",
]

# The packages whose requirements the project passes read (PEP 503 names); ``find_requirements`` takes a subset.
TRACKED = (
    "torch",
    "torchvision",
    "torchaudio",
    "torchtext",
    "torchdata",
    "xformers",
    "intel-extension-for-pytorch",
    "oneccl-bind-pt",
    "torch-tensorrt",
    "triton",
)
PINNED_PACKAGES = ("torch", "torchvision", "torchaudio")

# A version, possibly built from expressions: ``2.7.1``, ``2.7.*``, ``${{ matrix.torch }}``, ``${TORCH}+cpu``.
_EXPR = r"\$\{\{[^}\n]*\}\}|\$\{[A-Za-z_]\w*\}|\$[A-Za-z_]\w*"
_VERSION = rf"(?:[0-9]|{_EXPR})(?:{_EXPR}|[^\s,;\"'\])#\\$|])*"
_SPEC = rf"(?:===|==|~=|>=|<=|!=|>|<)\s*{_VERSION}"
_NAMES = (
    r"intel[-_.]extension[-_.]for[-_.]pytorch|oneccl[-_.]bind[-_.]pt|torch[-_.]tensorrt|pytorch[-_.]triton(?:[-_.][a-z]+)?"
    r"|torchvision|torchaudio|torchtext|torchdata|xformers|triton|nvidia-[a-z0-9][\w-]*|cuda-(?:toolkit|bindings)|torch"
)
REQUIREMENT_RE = re.compile(
    rf"(?<![\w.\-/=+@:$])(?P<name>{_NAMES})(?![\w.\-])"
    r"(?:\s*(?P<extras>\[[^\]\n]*\]))?(?:[ \t]*\(?[ \t]*"
    rf"(?P<spec>{_SPEC}(?:\s*,\s*{_SPEC})*))?",
    re.IGNORECASE,
)
_PIP_RE = re.compile(r"\b(?:pip[\d.]*|uv\s+pip|python[\d.]*\s+-m\s+pip|mim)\s+install\b|\buv\s+add\b")
_CONDA_RE = re.compile(r"\b(?:conda|mamba|micromamba)\s+install\b")


@dataclass(frozen=True)
class Requirement:
    """A requirement on a tracked package found in a file: its name and the span of its version specifier."""

    name: str  # as the package index compares names (``oneccl-bind-pt``); conda's ``pytorch`` is ``torch``
    spec: str
    start: int  # where the name starts
    spec_start: int
    spec_end: int
    poetry: bool = False  # a Poetry constraint (``^2.7``, ``~2.7``, ``2.7.1``) rather than a PEP 440 specifier
    conda: bool = False  # a conda match spec (``pytorch=2.1``) rather than a pip requirement
    spelled: str = ""  # the name as written

    @property
    def pep440(self) -> str:
        """The specifier in PEP 440 terms (a Poetry constraint or a conda match spec translated)."""
        if self.poetry:
            return poetry_to_pep440(self.spec)
        if self.conda:
            return conda_to_pep440(self.spec)
        return self.spec


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


# --- regions: where requirements live --------------------------------------------------------------------------------


def regions(kind: str, text: str) -> list[tuple[int, int]]:
    """The spans of ``text`` where requirements of a file of ``kind`` live (comments excluded)."""
    if kind == "requirements":
        return list(_requirement_lines(text))
    if kind == "pyproject":
        return [span for span, _ in toml_regions(text)]
    if kind == "setupcfg":
        return list(_setup_cfg_values(text))
    if kind == "setuppy":
        return list(_setup_py_strings(text))
    if kind == "conda":
        return [(lo, hi) for lo, hi, _ in conda_items(text)]
    if kind in ("dockerfile", "ci"):
        return [(lo, hi) for lo, hi, _ in install_commands(text)]
    return []


def _lines(text: str) -> Iterator[tuple[int, str]]:
    offset = 0
    for line in text.splitlines(keepends=True):
        yield offset, line
        offset += len(line)


_COMMENT = re.compile(r"(?:^|\s)#")


def _without_comment(line: str) -> str:
    match = _COMMENT.search(line)
    return line[: match.start()] if match else line.rstrip("\r\n")


def _requirement_lines(text: str) -> Iterator[tuple[int, int]]:
    for offset, line in _lines(text):
        body = _without_comment(line)
        if body.strip() and not body.lstrip().startswith(("-r", "-c", "--requirement", "--constraint")):
            yield offset, offset + len(body)


# TOML: which keys of which tables declare dependencies. ``*`` is any key (or any table part).
_TOML_DEPENDENCY_KEYS: tuple[tuple[str, str], ...] = (
    ("project", "dependencies"),
    ("project.optional-dependencies", "*"),
    ("dependency-groups", "*"),
    ("build-system", "requires"),
    ("tool.pdm.dev-dependencies", "*"),
    ("tool.uv", "dev-dependencies"),
    ("tool.uv", "constraint-dependencies"),
    ("tool.uv", "override-dependencies"),
    ("tool.hatch.envs.*", "dependencies"),
    ("tool.hatch.envs.*", "extra-dependencies"),
)
_POETRY_TABLE = re.compile(r"^tool\.poetry(?:\.group\.[^.]+)?\.(?:dev-)?dependencies$")
_TOML_HEADER = re.compile(r"^[ \t]*\[\[?[ \t]*(?P<name>[^\]\n]+?)[ \t]*\]\]?[ \t]*(?:#.*)?$")
_TOML_KEY_PART = r"(?:[A-Za-z0-9_-]+|\"[^\"\n]*\"|'[^'\n]*')"
_TOML_KEY = re.compile(rf"^[ \t]*(?P<key>{_TOML_KEY_PART}(?:[ \t]*\.[ \t]*{_TOML_KEY_PART})*)[ \t]*=[ \t]*")


def _toml_name(raw: str) -> str:
    parts = re.findall(r"\"([^\"]*)\"|'([^']*)'|([^.\s]+)", raw)
    return ".".join(a or b or c for a, b, c in parts)


def _table_matches(pattern: str, table: str) -> bool:
    return re.fullmatch(re.escape(pattern).replace(r"\*", r"[^.]+"), table) is not None


def _toml_string(text: str, i: int) -> tuple[tuple[int, int], int]:
    """The string literal at ``text[i]``: the span of its content and the offset after it."""
    n = len(text)
    if text.startswith(('"""', "'''"), i):
        quote = text[i : i + 3]
        end = text.find(quote, i + 3)
        end = n if end == -1 else end
        return (i + 3, end), end + 3
    quote = text[i]
    j = i + 1
    while j < n and text[j] != quote and text[j] != "\n":
        j += 2 if quote == '"' and text[j] == "\\" else 1
    return (i + 1, min(j, n)), j + 1


def toml_strings(text: str, start: int) -> tuple[list[tuple[int, int]], int]:
    """The string literals (spans of their contents) of the TOML value that begins at ``start``, and where the value
    ends. Comments inside arrays and inline tables are skipped."""
    n = len(text)
    i = start
    while i < n and text[i] in " \t":
        i += 1
    line_end = text.find("\n", i)
    line_end = n if line_end == -1 else line_end
    if i >= n or text[i] not in "[{\"'":
        return [], line_end
    if text[i] in "\"'":
        span, _ = _toml_string(text, i)
        return [span], max(line_end, span[1])
    spans: list[tuple[int, int]] = []
    depth = 0
    while i < n:
        c = text[i]
        if c in "\"'":
            span, i = _toml_string(text, i)
            spans.append(span)
            continue
        if c == "#":
            end = text.find("\n", i)
            i = n if end == -1 else end
            continue
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
            if depth == 0:
                end = text.find("\n", i)
                return spans, n if end == -1 else end
        i += 1
    return spans, n


def toml_regions(text: str) -> list[tuple[tuple[int, int], str]]:
    """The string spans of ``pyproject.toml`` that declare dependencies, each with ``"pep508"`` or, for a Poetry
    table's value (``torch = "^2.7"``, ``{ version = "^2.7" }``), ``"poetry:<package>"``."""
    found: list[tuple[tuple[int, int], str]] = []
    table = ""
    offset = 0
    while offset < len(text):
        end = text.find("\n", offset)
        end = len(text) if end == -1 else end
        line = text[offset:end]
        header = _TOML_HEADER.match(line)
        key = _TOML_KEY.match(line) if header is None else None
        if header is not None:
            table = _toml_name(header.group("name"))
        elif key is not None:
            name = _toml_name(key.group("key"))
            value_start = offset + key.end()
            strings, value_end = toml_strings(text, value_start)
            if _POETRY_TABLE.match(table):
                package = normalize(name.split(".")[0])
                if text[value_start : value_start + 1] in "\"'":
                    found.extend((s, f"poetry:{package}") for s in strings[:1])
                else:  # an inline table or an array of them: the strings after ``version =``
                    for lo, hi in strings:
                        if re.search(r"\bversion[ \t]*=[ \t]*[\"']?$", text[max(value_start, lo - 30) : lo]):
                            found.append(((lo, hi), f"poetry:{package}"))
            elif any(_table_matches(t, table) and (k == "*" or k == name) for t, k in _TOML_DEPENDENCY_KEYS):
                found.extend((s, "pep508") for s in strings)
            offset = max(value_end, end)
            continue
        offset = end + 1
    return found


_CFG_KEYS = re.compile(r"^(install_requires|setup_requires|tests_require)\s*[=:]", re.IGNORECASE)
_CFG_SECTION = re.compile(r"^\[(?P<name>[^\]]+)\]")


def _setup_cfg_values(text: str) -> Iterator[tuple[int, int]]:
    section = ""
    inside = False
    for offset, line in _lines(text):
        stripped = line.strip()
        header = _CFG_SECTION.match(stripped)
        if header:
            section = header.group("name").strip().lower()
            inside = False
            continue
        if not stripped or stripped.startswith(("#", ";")):
            continue
        continued = line[:1] in " \t"
        if not continued:
            key = re.match(r"^([\w.-]+)\s*[=:]", stripped)
            inside = bool(
                (section == "options" and _CFG_KEYS.match(stripped)) or (section == "options.extras_require" and key)
            )
            if inside:
                value_at = line.index(stripped) + (key.end() if key else 0)
                body = _without_comment(line)
                if len(body) > value_at:
                    yield offset + value_at, offset + len(body)
            continue
        if inside:
            body = _without_comment(line)
            yield offset, offset + len(body)


def _setup_py_strings(text: str) -> Iterator[tuple[int, int]]:
    """String literals of ``setup.py`` outside ``dependency_links`` (a keyword argument or a variable of that name)."""
    excluded: list[tuple[int, int]] = []
    starts = [0]
    for line in text.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        tree = None
    if tree is not None:
        for node in ast.walk(tree):
            value: ast.expr | None = None
            if isinstance(node, ast.keyword) and node.arg == "dependency_links":
                value = node.value
            elif isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and "dependency_links" in t.id.lower() for t in node.targets
            ):
                value = node.value
            if value is not None and value.end_lineno is not None and value.end_col_offset is not None:
                excluded.append(
                    (starts[value.lineno - 1] + value.col_offset, starts[value.end_lineno - 1] + value.end_col_offset)
                )
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.STRING:
                (row0, col0), (row1, col1) = tok.start, tok.end
                lo, hi = starts[row0 - 1] + col0, starts[row1 - 1] + col1
                if not any(a <= lo < b for a, b in excluded):
                    yield lo, hi
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return


def conda_items(text: str) -> list[tuple[int, int, str]]:
    """The items of a conda environment's ``dependencies`` list: (start, end, ``"conda"`` or ``"pip"``), comments
    excluded; ``- pip:`` sub-items are pip requirements."""
    found: list[tuple[int, int, str]] = []
    in_deps = False
    deps_indent = -1
    pip_indent: int | None = None
    for offset, line in _lines(text):
        body = _without_comment(line)
        if not body.strip():
            continue
        indent = len(body) - len(body.lstrip())
        stripped = body.strip()
        if indent == 0 and not stripped.startswith("-"):
            in_deps = stripped.startswith("dependencies:")
            pip_indent = None
            deps_indent = -1
            continue
        if not in_deps or not stripped.startswith("-"):
            continue
        item = stripped[1:].strip()
        item_at = offset + body.index(stripped) + 1 + (len(stripped[1:]) - len(stripped[1:].lstrip()))
        if deps_indent < 0:
            deps_indent = indent
        if pip_indent is not None and indent > pip_indent:
            found.append((item_at, offset + len(body), "pip"))
            continue
        pip_indent = None
        if item.rstrip(":").strip() == "pip" and item.endswith(":"):
            pip_indent = indent
            continue
        found.append((item_at, offset + len(body), "conda"))
    return found


def install_commands(text: str) -> list[tuple[int, int, str]]:
    """``pip``/``uv``/``mim`` install commands (``"pip"``) and ``conda``/``mamba`` install commands (``"conda"``):
    their spans, continuation lines (a trailing ``\\``) included, comment lines left out."""
    found: list[tuple[int, int, str]] = []
    lines = list(_lines(text))
    i = 0
    while i < len(lines):
        start, line = lines[i]
        group_end = start + len(line)
        while line.rstrip("\r\n").endswith("\\") and i + 1 < len(lines):
            i += 1
            line = lines[i][1]
            group_end = lines[i][0] + len(line)
        i += 1
        chunk = text[start:group_end]
        if chunk.lstrip().startswith("#"):
            continue
        for pattern, what in ((_PIP_RE, "pip"), (_CONDA_RE, "conda")):
            for match in pattern.finditer(chunk):
                command_end = _command_end(chunk, match.end())
                found.append((start + match.start(), start + command_end, what))
    return sorted(found)


def _command_end(chunk: str, at: int) -> int:
    """Where a shell command that starts before ``at`` in ``chunk`` ends: at ``&&``, ``||``, ``;``, a pipe, or the end."""
    match = re.compile(r"&&|\|\||(?<!\\);|\|(?!\|)").search(chunk, at)
    return match.start() if match else len(chunk.rstrip("\r\n"))


# --- requirements ----------------------------------------------------------------------------------------------------


def find_requirements(text: str, kind: str, names: tuple[str, ...] = PINNED_PACKAGES) -> list[Requirement]:
    """Every requirement on one of ``names`` in ``text`` (a project file of ``kind``), in text order; versioned or
    not (an unversioned one has an empty ``spec`` at the end of its name).

    In ``pyproject.toml`` this includes Poetry's ``torch = "^2.7"`` / ``torch = { version = "2.7.1", … }`` entries; in
    a conda environment and in ``conda install`` commands, conda match specs (``pytorch=2.1``, ``torchvision==0.16``).
    """
    wanted = {normalize(n) for n in names}
    found: list[Requirement] = []
    if kind == "pyproject":
        for (lo, hi), what in toml_regions(text):
            if what.startswith("poetry:"):
                package = what.split(":", 1)[1]
                if package in wanted and text[lo:hi].strip() not in ("*", ""):
                    name_at = text.rfind(package.split("-")[0], 0, lo)
                    found.append(Requirement(package, text[lo:hi], max(name_at, 0), lo, hi, poetry=True, spelled=package))
            else:
                found.extend(_pep508_in(text, lo, hi, wanted, anchored=True))
    elif kind == "conda":
        for lo, hi, what in conda_items(text):
            if what == "pip":
                found.extend(_pep508_in(text, lo, hi, wanted, anchored=True))
            else:
                found.extend(_conda_in(text, lo, hi, wanted))
    elif kind in ("dockerfile", "ci"):
        for lo, hi, what in install_commands(text):
            if what == "pip":
                found.extend(_pep508_in(text, lo, hi, wanted, anchored=False))
            else:
                found.extend(_conda_command(text, lo, hi, wanted))
    elif kind == "setuppy":
        for lo, hi in _setup_py_strings(text):
            found.extend(_pep508_in(text, lo, hi, wanted, anchored=True))
    else:
        for lo, hi in regions(kind, text):
            found.extend(_pep508_in(text, lo, hi, wanted, anchored=kind == "setupcfg"))
    found.sort(key=lambda r: r.start)
    return found


def _pep508_in(text: str, lo: int, hi: int, wanted: set[str], anchored: bool) -> Iterator[Requirement]:
    """Requirements in ``text[lo:hi]``. ``anchored``: a requirement must open its string or line (after a quote,
    blanks or a comma), as in a dependency list; otherwise it may stand anywhere a shell word does."""
    for match in REQUIREMENT_RE.finditer(text, lo, hi):
        name = normalize(match.group("name"))
        if name == "pytorch-triton":
            name = normalize(match.group("name"))
        if name not in wanted:
            continue
        before = text[lo : match.start()]
        if anchored and before.strip(" \t\r\n\"'(,[") and not re.search(r"[\n,\"']\s*$", before):
            continue
        if not anchored and before and not re.search(r"(?:^|[\s\"'=])$", before):
            continue
        spec = match.group("spec") or ""
        if spec:
            s, e = match.span("spec")
        else:
            s = e = match.end("extras") if match.group("extras") else match.end("name")
        yield Requirement(name, spec, match.start(), s, e, spelled=match.group("name"))


_CONDA_ITEM = re.compile(
    r"^(?:(?P<channel>[\w.-]+)::)?(?P<name>[A-Za-z0-9][\w.-]*)(?:\s*(?P<spec>(?:[=<>!~]=?|\s)\s*[\w.*,<>=!|+-]+))?"
)
_CONDA_NAMES = {"pytorch": "torch", "pytorch-gpu": "torch", "pytorch-cpu": "torch", "pytorch-cuda": "pytorch-cuda"}


def _conda_in(text: str, lo: int, hi: int, wanted: set[str]) -> Iterator[Requirement]:
    item = text[lo:hi].strip().strip("\"'")
    at = text.index(item, lo) if item else lo
    match = _CONDA_ITEM.match(item)
    if match is None:
        return
    raw = match.group("name")
    name = _CONDA_NAMES.get(raw.lower(), normalize(raw))
    if name not in wanted and not (name == "pytorch-cuda" and "torch" in wanted and "pytorch-cuda" in wanted):
        return
    spec = (match.group("spec") or "").strip()
    if spec:
        s = at + match.start("spec") + (len(match.group("spec")) - len(match.group("spec").lstrip()))
        e = at + match.end("spec")
    else:
        s = e = at + match.end("name")
    yield Requirement(name, spec, at + match.start("name"), s, e, conda=True, spelled=raw)


_CONDA_OPTIONS_WITH_VALUE = frozenset({"-c", "--channel", "-n", "--name", "-p", "--prefix", "--override-channels-from"})
_CONDA_WORDS = frozenset({"conda", "mamba", "micromamba", "install"})


def _conda_command(text: str, lo: int, hi: int, wanted: set[str]) -> Iterator[Requirement]:
    skip_next = False
    for word in re.finditer(r"(?P<q>[\"']?)(?P<w>[^\s\"']+)(?P=q)", text[lo:hi]):
        value = word.group("w")
        if skip_next:
            skip_next = False
            continue
        if value.startswith("-"):
            skip_next = value in _CONDA_OPTIONS_WITH_VALUE
            continue
        if value.lower() in _CONDA_WORDS or not value[:1].isalpha():
            continue
        start = lo + word.start("w")
        yield from _conda_in(text, start, start + len(value), wanted)


# --- Poetry and conda constraints ------------------------------------------------------------------------------------

_POETRY_CLAUSE = re.compile(r"(?P<op>\^|~(?!=)|)(?P<version>\d+(?:\.\d+)*(?:\.\*)?)$")


def poetry_to_pep440(spec: str) -> str:
    """A Poetry constraint in PEP 440 terms: ``^2.7`` → ``>=2.7,<3``, ``~2.7`` → ``>=2.7,<2.8``, ``2.7.1`` → ``==2.7.1``.

    Comma- or space-separated clauses are ANDed; PEP 440 clauses pass through.
    """
    out = []
    for clause in re.split(r"[\s,]+", spec.strip()):
        match = _POETRY_CLAUSE.match(clause)
        if not match:
            out.append(clause)
            continue
        version, op = match.group("version"), match.group("op")
        numbers = [int(p) for p in version.rstrip(".*").split(".")]
        if op == "":
            out.append(f"=={version}")
        elif op == "^":
            first = next((i for i, n in enumerate(numbers) if n), len(numbers) - 1)
            upper = numbers[:first] + [numbers[first] + 1]
            out.append(f">={version},<{'.'.join(map(str, upper))}")
        else:
            upper = numbers[:1] + [numbers[1] + 1] if len(numbers) > 1 else [numbers[0] + 1]
            out.append(f">={version},<{'.'.join(map(str, upper))}")
    return ",".join(c for c in out if c)


def conda_to_pep440(spec: str) -> str:
    """A conda match spec's version part in PEP 440 terms: ``=2.1`` and ``2.1.*`` → ``==2.1.*``; ``=2.1.0=py3.9_0``
    → ``==2.1.0.*`` (the build string is dropped); ``>=2.0,<2.2`` and ``==2.1.0`` pass through."""
    spec = spec.strip()
    if spec.startswith("=") and not spec.startswith("=="):
        version = spec[1:].split("=")[0]
        return f"=={version.rstrip('.*')}.*"
    if re.fullmatch(r"\d[\w.]*\*?", spec):
        return f"=={spec}" if spec.endswith("*") else f"=={spec}.*"
    if spec.startswith("==") and "=" in spec[2:]:
        return "==" + spec[2:].split("=")[0]  # a build string after the version
    return spec


def torch_specs(text: str, kind: str) -> list[str]:
    """The version specifiers (in PEP 440 terms) that ``text`` (a project file of ``kind``) puts on ``torch``."""
    return [r.pep440 for r in find_requirements(text, kind, ("torch",)) if r.spec and "$" not in r.spec]


def requirements_in(text: str, kind: str) -> list[Requirement]:
    """Every requirement on a tracked package (:data:`TRACKED`, ``nvidia-*``, ``cuda-*``, ``pytorch-triton*``, conda's
    ``pytorch-cuda``) in ``text``."""
    names = (*TRACKED, "pytorch-cuda")
    found = find_requirements(text, kind, names)
    extra = [
        r
        for r in _all_names(text, kind)
        if r.name.startswith(("nvidia-", "cuda-", "pytorch-triton")) and r.start not in {f.start for f in found}
    ]
    return sorted(found + extra, key=lambda r: r.start)


def _all_names(text: str, kind: str) -> list[Requirement]:
    names: set[str] = set()
    for lo, hi in regions(kind, text) if kind not in ("pyproject",) else [s for s, _ in toml_regions(text)]:
        for match in REQUIREMENT_RE.finditer(text, lo, hi):
            names.add(normalize(match.group("name")))
    wanted = tuple(n for n in names if n.startswith(("nvidia-", "cuda-", "pytorch-triton")))
    return find_requirements(text, kind, wanted) if wanted else []
