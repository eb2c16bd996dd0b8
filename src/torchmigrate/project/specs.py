"""Version specifiers (PEP 440 and Poetry): which releases a requirement admits, and moving it to admit a target in
the author's own style."""

from __future__ import annotations

import re
from collections.abc import Sequence

from torchmigrate.core.versions import CLAUSE_RE, Version
from torchmigrate.project.pins import poetry_to_pep440
from torchmigrate.project.text import apply_changes

_VERSION_RE = re.compile(r"(?P<release>\d+(?:\.\d+)*)(?P<wild>\.\*)?(?P<rest>.*)")



def release_parts(version: str) -> tuple[tuple[int, ...], bool]:
    match = _VERSION_RE.match(version)
    if not match:
        return (), False
    return tuple(int(p) for p in match.group("release").split(".")), bool(match.group("wild"))



def compare(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    width = max(len(a), len(b))
    pa, pb = a + (0,) * (width - len(a)), b + (0,) * (width - len(b))
    return (pa > pb) - (pa < pb)



def _satisfies(candidate: tuple[int, ...], op: str, version: str) -> bool:
    release, wild = release_parts(version)
    if not release:
        return True
    if op in ("==", "===", "!="):
        same = candidate[: len(release)] == release if wild else compare(candidate, release) == 0
        return same if op != "!=" else not same
    order = compare(candidate, release)
    if op == ">=":
        return order >= 0
    if op == ">":
        return order > 0
    if op == "<=":
        return order <= 0
    if op == "<":
        return order < 0
    if op == "~=":
        return order >= 0 and candidate[: max(len(release) - 1, 1)] == release[: max(len(release) - 1, 1)]
    return True



def admits(spec: str, release: Version) -> bool:
    """Whether a specifier such as ``>=2.4,<2.8`` admits some patch of the feature ``release``."""
    clauses = CLAUSE_RE.findall(spec)
    patches = {p for _, v in clauses for p in release_parts(v)[0][2:3]} | set(range(0, 12))
    for patch in sorted(patches):
        candidate = (release.major, release.minor, patch)
        if all(_satisfies(candidate, op, v) for op, v in clauses):
            return True
    return False



def move_spec(spec: str, release: Version, patch: int = 0) -> str | None:
    """``spec`` rewritten in its own style so that it admits ``release``; ``None`` when it already does, when its
    lower bound lies above ``release`` (never downgrade), or when it cannot be moved.

    ``==2.7.1`` → ``==2.12.0``; ``==2.7.*`` → ``==2.12.*``; ``~=2.7.0`` → ``~=2.12.0``; ``>=2.4,<2.8`` →
    ``>=2.4,<2.13``; ``<=2.7.1`` → ``<=2.12.0``; a local version (``+cu128``) is kept. ``patch`` names the patch
    release an exact pin moves to (``2.12.1``).
    """
    if admits(spec, release):
        return None
    low = lowest_release(spec)
    if low is not None and low > release:
        return None  # the project requires something newer than the target: never lower it
    return move_spec_to(spec, f"{release.major}.{release.minor}.{patch}")


def _feature_position(numbers: Sequence[int]) -> int:
    """Which part of a version counts as its feature release: the minor (``2.12``), or the patch for ``0.0.x``
    packages (xformers ``0.0.35``)."""
    return 2 if len(numbers) >= 3 and numbers[0] == 0 and numbers[1] == 0 else 1


def _written(numbers: Sequence[int], width: int) -> str:
    return ".".join(str(p) for p in (list(numbers) + [0] * width)[: max(width, 2)])


def move_spec_to(spec: str, version: str) -> str | None:
    """``spec`` rewritten in its own style so that it admits the release ``version`` (``2.12.1``, ``0.27.0``,
    ``0.0.35``), or ``None`` when it cannot be (a ``!=`` or a lower bound excludes it). Exact pins take ``version`` at
    their own precision; upper bounds move past it at theirs (``<2.8`` → ``<2.13``, ``<0.0.31`` → ``<0.0.36``)."""
    new_numbers = tuple(int(p) for p in re.findall(r"\d+", version.split("+")[0]))
    if not new_numbers:
        return None
    pos = _feature_position(new_numbers)
    changes: list[tuple[int, int, str]] = []
    for match in CLAUSE_RE.finditer(spec):
        op, written = match.group(1), match.group(2)
        parsed = _VERSION_RE.match(written)
        if parsed is None:
            return None
        numbers, wild = release_parts(written)
        width = len(numbers)
        local = parsed.group("rest") if parsed.group("rest").startswith("+") else ""
        new: str | None = None
        if op in ("==", "===") and not _satisfies(new_numbers, op, written):
            new = _written(new_numbers, width) + (".*" if wild else "") + local
        elif op == "~=" and not _satisfies(new_numbers, "~=", written):
            new = _written(new_numbers[: pos + 1], max(width, pos + 1))
        elif op == "<" and compare(numbers, new_numbers) <= 0:
            bumped = list(new_numbers[: pos + 1])
            bumped[pos] += 1
            new = _written(bumped, max(width, pos + 1))
        elif op == "<=" and compare(numbers, new_numbers) < 0:
            new = _written(new_numbers, max(width, pos + 1))
        if new is not None and new != written:
            changes.append((match.start(2), match.end(2), new))
    moved = apply_changes(spec, changes)
    if not changes:
        return None
    clauses = CLAUSE_RE.findall(moved)
    return moved if all(_satisfies(new_numbers, op, v) for op, v in clauses) else None


_POETRY_SINGLE = re.compile(r"(?P<op>\^|~(?!=)|)(?P<version>\d+(?:\.\d+)*)(?P<wild>\.\*)?")


def move_poetry(spec: str, release: Version, patch: int = 0) -> str | None:
    """Like :func:`move_spec` for a Poetry constraint: ``2.7.1`` → ``2.12.0``, ``~2.7`` → ``~2.12``, ``^0.22`` → ``^0.27``."""
    pep440 = poetry_to_pep440(spec)
    low = lowest_release(pep440)
    if admits(pep440, release) or (low is not None and low > release):
        return None
    return move_poetry_to(spec, f"{release.major}.{release.minor}.{patch}")


def move_poetry_to(spec: str, version: str) -> str | None:
    """A Poetry constraint rewritten in its own style to admit the release ``version``, or ``None``."""
    new_numbers = tuple(int(p) for p in re.findall(r"\d+", version.split("+")[0]))
    single = _POETRY_SINGLE.fullmatch(spec.strip())
    if single is not None:
        width = len(single.group("version").split("."))
        pos = _feature_position(new_numbers)
        op = single.group("op")
        written = _written(new_numbers[: pos + 1], width) if op or single.group("wild") else _written(new_numbers, width)
        moved = spec.replace(spec.strip(), op + written + (single.group("wild") or ""))
    else:
        moved = move_spec_to(spec, version) or spec
    if moved == spec:
        return None
    clauses = CLAUSE_RE.findall(poetry_to_pep440(moved))
    return moved if all(_satisfies(new_numbers, op, v) for op, v in clauses) else None


def lowest_release(spec: str) -> Version | None:
    lows = []
    for op, version in CLAUSE_RE.findall(spec):
        numbers, _ = release_parts(version)
        if op in ("==", "===", "~=", ">=", ">") and len(numbers) >= 2:
            lows.append(Version(numbers[0], numbers[1]))
    return max(lows) if lows else None



def python_lowest(spec: str) -> tuple[int, ...] | None:
    lows = []
    for op, version in CLAUSE_RE.findall(spec):
        numbers, _ = release_parts(version)
        if op in ("==", "===", "~=", ">=", ">") and numbers:
            lows.append(numbers[:2])
    return max(lows) if lows else None
