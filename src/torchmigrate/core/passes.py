"""The Pass model: what a pass declares (metadata, examples, renames, call rewriters or a transformer).

A pass is one small module in ``codemods/vX_Y/``: a docstring a user can read (the registry,
:mod:`torchmigrate.core.registry`, takes it as the pass's documentation), a :class:`Pass` with its metadata and
examples, and either declarative renames or call rewriters / a transformer (see :mod:`torchmigrate.python.transform`).
Trigger words (the cheap prefilter) follow from what the pass declares: the last component of each name it renames or
rewrites; only a custom transformer that reacts to other code adds words of its own.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Protocol

from torchmigrate.core.results import Finding
from torchmigrate.core.versions import Version, parse_version

if TYPE_CHECKING:
    import libcst as cst

    from torchmigrate.project.context import ProjectContext
    from torchmigrate.python.transform import CallContext, PassTransformer

__all__ = [
    "BEHAVIOUR",
    "DEPRECATION",
    "OPPORTUNITY",
    "REMOVAL",
    "SAFE",
    "REVIEW",
    "Example",
    "Kind",
    "Unchanged",
    "code_block",
    "Pass",
    "Safety",
]


class Kind(str, Enum):
    """What a release did to the old form, which decides whether ``--from`` bounds the pass.

    ``removal``: the old API is gone from ``release`` on. ``deprecation``: it still works (with a warning) from
    ``release`` until ``removed_in`` (or to this day). Code that still spells either form is broken or warned about on
    the target whatever release it was written for, so both run whenever ``release <= to``. ``behaviour``: the same
    code means something else from ``release`` on; code written for ``release`` or later already expects the new
    meaning, so it runs only when ``from < release <= to``. ``opportunity`` (opt-in modernisations): runs when
    ``release <= to``.
    """

    REMOVAL = "removal"
    BEHAVIOUR = "behaviour"
    DEPRECATION = "deprecation"
    OPPORTUNITY = "opportunity"

    def __str__(self) -> str:
        return self.value


class Safety(str, Enum):
    """``safe``: same behaviour, guaranteed. ``review``: right in the common case; the report says what to check."""

    SAFE = "safe"
    REVIEW = "review"

    def __str__(self) -> str:
        return self.value


REMOVAL, BEHAVIOUR, DEPRECATION, OPPORTUNITY = Kind.REMOVAL, Kind.BEHAVIOUR, Kind.DEPRECATION, Kind.OPPORTUNITY
SAFE = Safety.SAFE
REVIEW = Safety.REVIEW

CallRewriter = Callable[["cst.Call", "CallContext"], "cst.BaseExpression | None"]


class AstPlan(Protocol):
    """What a pass decided from the stdlib ``ast`` of a file (``Pass.analyse``): its findings, and whether it plans an
    edit. The engine reports the findings without libcst and hands the file to the pass's transformer (as
    ``self.plan``) only when an edit is planned."""

    @property
    def findings(self) -> Sequence[Finding]: ...

    @property
    def has_edits(self) -> bool: ...


# (text, its stdlib ast) → the pass's plan for that text.
Analyser = Callable[[str, ast.Module], AstPlan]
# A project file pass: (text of a requirements file / pyproject.toml / Dockerfile …, context) → new text.
ProjectRewriter = Callable[[str, "ProjectContext"], str]

PYTHON, PROJECT = "python", "project"


def code_block(text: str) -> str:
    """``text`` as written in a triple-quoted example: when it starts with a line break, the common indentation is
    removed and that first line break dropped (``\"\"\"\\n    import torch\\n    \"\"\"`` → ``import torch\\n``). Any other
    text is taken as it is (for examples that need exact bytes: tabs, CRLF, trailing spaces)."""
    if not text.startswith("\n"):
        return text
    return textwrap.dedent(text)[1:]


@dataclass(frozen=True)
class Example:
    """A before/after pair that documents a pass and is also a test.

    ``after=None`` means the code must come back unchanged. ``findings`` is how many findings the pass must report on
    ``before``. ``to`` is the target release the example runs at (default: the pass's own release). ``before`` and
    ``after`` are read through :func:`code_block`, so they can be written as indented triple-quoted code.
    """

    before: str
    after: str | None = None
    findings: int = 0
    title: str = ""
    to: str | None = None
    path: str = ""  # the file a project file pass's example is (``requirements.txt``, ``pyproject.toml``, …)

    def __post_init__(self) -> None:
        object.__setattr__(self, "before", code_block(self.before))
        if self.after is not None:
            object.__setattr__(self, "after", code_block(self.after))

    @property
    def expected(self) -> str:
        return self.before if self.after is None else self.after


def Unchanged(before: str, *, title: str = "", findings: int = 0, to: str | None = None, path: str = "") -> Example:  # noqa: N802
    """An example the pass must leave as it is (reporting ``findings`` findings on it)."""
    return Example(before, None, findings=findings, title=title, to=to, path=path)


def dotted_prefixes(name: str) -> Iterator[str]:
    """``a``, ``a.b`` for ``a.b.c``: the names ``name`` lies under."""
    end = name.find(".")
    while end != -1:
        yield name[:end]
        end = name.find(".", end + 1)


def last_components(names: Iterable[str]) -> tuple[str, ...]:
    """The trigger words that qualified ``names`` imply. A reference to ``a.b.c`` spells every component of it, in the
    import that binds a prefix (``from a.b import c as d``, ``import a.b as x``) or at the use (``x.c``), so a file
    without ``c`` cannot reference ``a.b.c``; a name under another of ``names`` (``a.b.c.d`` beside ``a.b.c``) needs no
    word of its own."""
    unique = sorted(set(names))
    given = set(unique)
    kept = [n for n in unique if not any(prefix in given for prefix in dotted_prefixes(n))]
    return tuple(dict.fromkeys(name.rpartition(".")[2] for name in kept))


@dataclass
class Pass:
    """One versioned migration. ``migrate --to X`` runs it when ``release <= X`` (a behaviour change: also
    ``from < release``; see :class:`Kind`)."""

    id: str
    release: str
    safety: Safety
    title: str
    evidence: str
    # Trigger words (the prefilter: a file that spells none of them is not parsed). Left out, they are the words that
    # ``renames``, ``call_rewriters`` and ``qualnames`` imply (see ``last_components``). Declare them for a transformer
    # that reacts to other code, or to name a rarer word every site spells (the keyword a call filter requires).
    triggers: tuple[str, ...] = ()
    examples: list[Example] = field(default_factory=list)
    renames: Mapping[str, str] = field(default_factory=dict)
    opt_in: bool = False
    kind: Kind = Kind.REMOVAL
    removed_in: str | None = None
    review_note: str = ""
    doc: str = ""
    call_rewriters: dict[str, CallRewriter] = field(default_factory=dict)
    transformer: type[PassTransformer] | None = None
    # Precheck (stdlib ast): can this call of one of the pass's qualified names need the pass? ``None``: every call
    # can. A pass with a filter must act only on calls that pass it and on non-call references to its names.
    call_filter: Callable[[ast.Call], bool] | None = None
    # Precheck (stdlib ast): can this call need the pass, whatever its callee resolves to? For a transformer that acts
    # on method calls of objects the import map cannot type (``x.norm()`` on a tensor). With it, a file is in play when
    # one of its calls passes the filter, or (with ``qualnames``) it references one of those names.
    method_filter: Callable[[ast.Call], bool] | None = None
    # Precheck (text, before any parse): can this file need the pass at all? For a pass whose trigger words are common
    # in look-alikes the ast would reject anyway (``self.norm(x)`` beside ``x.norm()``): a file it says no to is not
    # parsed for this pass. A pass with a filter must act only on files that pass it.
    text_filter: Callable[[str], bool] | None = None
    # The qualified names a custom transformer acts on, matched by the precheck like renames and call rewriters
    # (``None``: the transformer cannot say, so any trigger word in code keeps the pass in play).
    qualnames: frozenset[str] | None = None
    # The precheck matches the pass's names exactly: a name under one of them (``torchvision.models.resnet.ResNet``
    # under ``torchvision.models``) is no reference. For a transformer that compares qualified names for equality
    # only; by default a name covers the names under it (a renamed module covers its members).
    exact_names: bool = False
    # A pass that decides from the stdlib ast: ``analyse(text, tree)`` returns its plan for the file (an ``AstPlan``).
    # Its findings are the plan's (the transformer reports none of its own), and libcst runs for the pass only when
    # the plan has an edit; the transformer then reads the plan as ``self.plan``. See CONTRIBUTING.md.
    analyse: Analyser | None = None
    # Whether the engine may hand the pass a slice of the file (torchmigrate.python.slicing): False for a pass whose
    # decision at one statement depends on code elsewhere that spells none of its trigger words.
    sliceable: bool = True
    # Which other *uses* of a module-level variable the pass's decision at a site looks at (libcst's
    # ``Assignment.references``, ``star_keys``), so that a slice keeps the statements that read it
    # (torchmigrate.python.slicing; the statements that bind what the kept code reads or binds are always kept):
    # ``"none"``; ``"bound"``, of the variables the kept code binds (``state = torch.load(p)`` …
    # ``m.load_state_dict(state)``) or passes as ``**kwargs``; ``"all"``, of every variable the kept code reads too.
    follows_uses: str = "none"
    # The release from which the form the pass emits exists and behaves as the old one did (default: ``release``):
    # a run whose support floor is below it does not make the edit.
    since: str | None = None
    # ``files="project"``: the pass rewrites project files (requirements, pyproject.toml, setup.cfg/setup.py, Dockerfiles, CI
    # files) with ``project_rewrite`` instead of Python code; it runs for every target ``>= release`` (it compares the
    # file's own pins with the target, so ``--from`` does not gate it). See :mod:`torchmigrate.project.context`.
    files: str = PYTHON
    project_rewrite: ProjectRewriter | None = None
    # A pass for a companion package's change names that package release (``"torchvision 0.13"``); ``release`` is then
    # the torch release that package release was built for (torchvision 0.13 ↔ torch 1.12), which ``--to`` gates on.
    package: str = ""
    # A behaviour change that undoes a behaviour only some releases had (2.11's deferred layout freezing, reverted in
    # 2.12): the first release that had it. Code written for an older release never relied on it, so the pass runs
    # only for ``--from`` at or above this release.
    old_behaviour_since: str | None = None

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", self.id):
            raise ValueError(f"pass id {self.id!r} must be a lowercase slug")
        self.version: Version = parse_version(self.release)
        self.removed_version: Version | None = parse_version(self.removed_in) if self.removed_in else None
        if self.removed_in and self.kind is not Kind.DEPRECATION:
            raise ValueError(f"pass {self.id}: removed_in only applies to kind=DEPRECATION")
        self.since_version: Version = parse_version(self.since) if self.since else self.version
        self._declared = tuple(self.triggers)
        self._derive_triggers()

    def _derive_triggers(self) -> None:
        """Declared trigger words, else the words the pass's names imply (:func:`last_components`)."""
        if not self._declared:
            self.triggers = last_components([*self.renames, *self.call_rewriters, *(self.qualnames or ())])

    def rewrites_calls(self, *qualified_names: str) -> Callable[[CallRewriter], CallRewriter]:
        """Register ``fn(call, ctx)`` for calls whose callee resolves to one of ``qualified_names``.

        ``fn`` returns the replacement expression, or ``None`` to leave the call as it is (after reporting a finding
        through ``ctx.finding`` when the call cannot be migrated safely).
        """

        def register(fn: CallRewriter) -> CallRewriter:
            for name in qualified_names:
                self.call_rewriters[name] = fn
            self._derive_triggers()
            return fn

        return register

    def uses(self, transformer: type[PassTransformer]) -> type[PassTransformer]:
        """Class decorator: the pass runs this :class:`~torchmigrate.python.transform.PassTransformer` subclass."""
        self.transformer = transformer
        return transformer

    def in_range(self, from_: Version, to: Version) -> bool:
        """Whether a run from ``from_`` to ``to`` needs this pass (see :class:`Kind`)."""
        return self.out_of_range(from_, to) is None

    def out_of_range(self, from_: Version, to: Version) -> str | None:
        """Why a run from ``from_`` to ``to`` does not run this pass, or ``None`` when it does."""
        if self.version > to:
            return f"its release {self.release} is above --to {to}"
        if self.files == PROJECT or self.kind is not Kind.BEHAVIOUR:
            return None  # the old form is broken or deprecated on the target whatever the code was written for
        if from_ >= self.version:
            return (
                f"it migrates a behaviour change of {self.release}, and code written for --from {from_} already "
                f"expects the new behaviour"
            )
        if self.old_behaviour_since is not None and from_ < parse_version(self.old_behaviour_since):
            return (
                f"the behaviour it migrates from existed only from {self.old_behaviour_since}, and code written for "
                f"--from {from_} never relied on it"
            )
        return None

    @property
    def note_for_edits(self) -> str:
        """What each edit of this pass tells the reader to check: the review note of a ``review`` pass."""
        return self.review_note if self.safety is Safety.REVIEW else ""

    @property
    def release_label(self) -> str:
        """The release as users read it: ``2.11``, or ``1.12 (torchvision 0.13)`` for a companion package's change."""
        return f"{self.release} ({self.package})" if self.package else self.release

    @property
    def summary_line(self) -> str:
        opt = " (opt-in)" if self.opt_in else ""
        opt += " [project files]" if self.files == PROJECT else ""
        opt += f" [{self.package}]" if self.package else ""
        return f"{self.id:<34} {self.release:<6} {self.safety.value:<7} {self.title}{opt}"


