"""Which passes a run applies: the registry of every shipped pass, and the options that select among them."""

from __future__ import annotations

import importlib
import pkgutil
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache

from torchmigrate.core.passes import PROJECT, PYTHON, Pass
from torchmigrate.core.versions import OLDEST, Version

CODEMODS = "torchmigrate.codemods"


@cache
def all_passes() -> tuple[Pass, ...]:
    """Every pass in ``torchmigrate.codemods`` (a module-level ``PASS`` in any module below it, release folders and
    ``project/`` alike), ordered by release and then by id. A pass without its own ``doc`` is documented by the
    docstring of the module that defines it.

    The passes are discovered by package name, as plugins are: the core never imports a pass module itself.
    """
    package = importlib.import_module(CODEMODS)
    found: dict[str, Pass] = {}
    for info in pkgutil.walk_packages(package.__path__, prefix=package.__name__ + "."):
        module = importlib.import_module(info.name)
        candidate = getattr(module, "PASS", None)
        if isinstance(candidate, Pass):
            if candidate.id in found:
                raise RuntimeError(f"duplicate pass id {candidate.id!r} in {info.name}")
            if not candidate.doc:
                candidate.doc = textwrap.dedent(module.__doc__ or "").strip()
            if not candidate.triggers:
                raise RuntimeError(f"pass {candidate.id} ({info.name}) has no trigger word: declare what it rewrites")
            found[candidate.id] = candidate
    return tuple(sorted(found.values(), key=lambda p: (p.version, p.id)))



def get_pass(pass_id: str) -> Pass:
    for candidate in all_passes():
        if candidate.id == pass_id:
            return candidate
    raise KeyError(pass_id)



def unknown_ids(ids: Iterable[str]) -> list[str]:
    wanted = set(ids)
    if not wanted:
        return []  # nothing to look up: do not load the registry (and libcst) for it
    known = {p.id for p in all_passes()}
    return sorted(wanted - known)



def select_passes(
    *,
    to: Version,
    from_: Version,
    select: Iterable[str] | None = None,
    ignore: Iterable[str] = (),
    files: str = PYTHON,
) -> list[Pass]:
    """The passes for ``files`` (Python code, or project files) a run applies, in release order: in range
    (``from_ < release <= to``, see :class:`Kind` for deprecations), selected and not ignored.

    Opt-in passes run only when named in ``select``. Project file passes (``files="project"``) need only
    ``release <= to``.
    """
    chosen = set(select) if select is not None else None
    ignored = set(ignore)
    result = []
    for candidate in all_passes():
        if candidate.files != files:
            continue
        if not candidate.in_range(from_, to) or candidate.id in ignored:
            continue
        if chosen is None:
            if candidate.opt_in:
                continue
        elif candidate.id not in chosen:
            continue
        result.append(candidate)
    return result



@dataclass(frozen=True)
class Layout:
    """How the project lays out its code, as its own configuration says (found by the run layer, never guessed):
    edited lines are kept within ``line_length``, split the way black splits them; with a ``formatter`` (``"black"`` or
    ``"ruff"``, which join what fits on one line) an edited statement that fits on one line again is joined."""

    line_length: int | None = None
    formatter: str | None = None


@dataclass(frozen=True)
class Options:
    """What to migrate to. ``select=None`` means every default (non-opt-in) pass in range."""

    to: Version
    from_: Version = OLDEST
    select: frozenset[str] | None = None
    ignore: frozenset[str] = frozenset()
    # Whether edits of ``review`` passes are applied (ruff's unsafe fixes). Transitional default: True keeps the
    # behaviour of 0.1.0 until review edits become findings that carry their suggested change.
    unsafe_fixes: bool = True
    layout: Layout = Layout()  # the project's line length and formatter (see torchmigrate.run.codestyle)

    def passes(self) -> list[Pass]:
        return select_passes(to=self.to, from_=self.from_, select=self.select, ignore=self.ignore)

    def project_passes(self) -> list[Pass]:
        """The project file passes (requirements, pyproject.toml, …) for this target: see :mod:`torchmigrate.project.context`."""
        return select_passes(to=self.to, from_=self.from_, select=self.select, ignore=self.ignore, files=PROJECT)
