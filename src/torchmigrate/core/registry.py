"""Which passes a run applies: the registry of every shipped pass, and the options that select among them."""

from __future__ import annotations

import importlib
import pkgutil
import textwrap
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache, lru_cache

from torchmigrate.core.fixes import Gate
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
    (``release <= to``, and ``from_ < release`` for behaviour changes: see :class:`Kind`), selected and not ignored.

    Opt-in passes run only when named in ``select``. Project file passes (``files="project"``) need only
    ``release <= to``.
    """
    chosen = frozenset(select) if select is not None else None
    return list(_selected(to, from_, chosen, frozenset(ignore), files))


@lru_cache(maxsize=64)
def _selected(
    to: Version, from_: Version, chosen: frozenset[str] | None, ignored: frozenset[str], files: str
) -> tuple[Pass, ...]:
    """:func:`select_passes`, once per choice: a run asks for the same passes for each of its files."""
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
    return tuple(result)


def unrunnable(select: Iterable[str] | None, *, from_: Version, to: Version) -> list[tuple[Pass, str]]:
    """The passes named in ``select`` that a run from ``from_`` to ``to`` cannot run, each with the reason: naming a
    pass with ``--select`` never silently does nothing."""
    if not select:
        return []
    chosen = set(select)
    found = []
    for candidate in all_passes():
        if candidate.id in chosen:
            why = candidate.out_of_range(from_, to)
            if why is not None:
                found.append((candidate, why))
    return found


@dataclass(frozen=True)
class Layout:
    """How the project lays out its code, as its own configuration says (found by the run layer, never guessed):
    edited lines are kept within ``line_length``, split the way black splits them; with a ``formatter`` (``"black"`` or
    ``"ruff"``, which join what fits on one line) an edited statement that fits on one line again is joined."""

    line_length: int | None = None
    formatter: str | None = None


@dataclass(frozen=True)
class Options:
    """What to migrate to. ``select=None`` means every default (non-opt-in) pass in range.

    ``unsafe_fixes``: make the edits of ``review`` passes too (ruff's unsafe fixes); without it each is reported as a
    finding that carries its suggested change. ``min_torch``: the support floor, the oldest torch the migrated code
    must still run on (``None``: the target); ``min_torch_source`` says what set it, for the findings of edits it
    holds back (``"--min-torch 2.6"``, ``"requirements.txt: torch>=2.6"``), and ``min_torch_kind`` whether that is an
    ``"option"`` or a ``"requirement"``.
    """

    to: Version
    from_: Version = OLDEST
    select: frozenset[str] | None = None
    ignore: frozenset[str] = frozenset()
    unsafe_fixes: bool = False
    # The oldest torch the project's declared requirements (pyproject.toml, setup.cfg, setup.py) admit once moved to
    # ``to``: a CI leg that pins it tests the project's minimum and is left alone. Set per PATH by the run's plan.
    project_floor: Version | None = None
    min_torch: Version | None = None
    min_torch_source: str = ""
    min_torch_kind: str = "option"  # "option" (--min-torch, min-torch = …) or "requirement" (the project's torch pin)

    @property
    def floor(self) -> Version:
        """The support floor: ``min_torch``, else the target."""
        return self.min_torch if self.min_torch is not None else self.to

    def gate(self) -> Gate:
        """Which edits the run makes: see :class:`~torchmigrate.core.fixes.Gate`."""
        if self.min_torch is None:
            return Gate(self.unsafe_fixes, self.to, f"--to {self.to}", "target")
        return Gate(self.unsafe_fixes, self.min_torch, self.min_torch_source, self.min_torch_kind)
    layout: Layout = Layout()  # the project's line length and formatter (see torchmigrate.run.codestyle)

    def passes(self) -> list[Pass]:
        return select_passes(to=self.to, from_=self.from_, select=self.select, ignore=self.ignore)

    def project_passes(self) -> list[Pass]:
        """The project file passes (requirements, pyproject.toml, …) for this target: see :mod:`torchmigrate.project.context`."""
        return select_passes(to=self.to, from_=self.from_, select=self.select, ignore=self.ignore, files=PROJECT)
