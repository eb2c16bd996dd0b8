"""Planning a project file: which requirement sets move to the target, and why the others cannot.

A requirement set moves as a whole or not at all. torch moves to the newest patch of the target that every pinned
companion of the set can follow (torchvision, torchaudio, torchtext, torchdata, xformers, intel-extension-for-pytorch,
oneccl-bind-pt, torch-tensorrt, and torch's own pins: triton, ``nvidia-*``, ``cuda-*``), that the set's Pythons and
base image can run, and whose CUDA build its wheel index (or ``+cuXYZ`` version) has or can move to; then they all move
together, each in its own style. Otherwise nothing in the set changes and one finding names what blocks it and the way
out. Lock files and the legs of a CI matrix that test a minimum are never edited (a finding says so); conda packages
and versions built from shell expressions are not edited either. Every version fact comes from the committed table
(:mod:`torchmigrate.project.ecosystem`).

The passes apply their part of a plan: ``torch-pin`` the version changes, ``cuda-wheels`` the CUDA variants; a set
whose move needs a CUDA change moves only when ``cuda-wheels`` runs too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from torchmigrate.core.versions import Version
from torchmigrate.project import ecosystem as eco
from torchmigrate.project.sets import Index, Req, ReqSet
from torchmigrate.project.specs import admits, lowest_release, move_poetry_to, move_spec_to

__all__ = ["Change", "FilePlan", "PlanContext", "plan_set"]

TORCH_PIN, CUDA_WHEELS = "torch-pin", "cuda-wheels"


@dataclass(frozen=True)
class Change:
    start: int
    end: int
    new: str
    pass_id: str
    message: str
    at: int  # where the edit is reported


@dataclass(frozen=True)
class PlanContext:
    """What a plan depends on besides the file: the target, the passes of the run, the project's declared floor."""

    target: Version
    active: frozenset[str] = frozenset({TORCH_PIN, CUDA_WHEELS})  # the project file passes of the run
    python_passes: frozenset[str] | None = None  # the Python passes of the run (None: unknown, taken as all)
    floor: Version | None = None  # the oldest torch the project's declared requirements admit after migration
    allowed: object = None  # a callable (offset, pass id) -> bool: a ``# migrate: ignore`` check

    def may(self, offset: int, pass_id: str = TORCH_PIN) -> bool:
        check = self.allowed
        return bool(check(offset, pass_id)) if callable(check) else True


@dataclass
class FilePlan:
    changes: list[Change] = field(default_factory=list)
    findings: list[tuple[int, str, str]] = field(default_factory=list)  # (offset, pass id, message)

    def of(self, pass_id: str) -> tuple[list[Change], list[tuple[int, str]]]:
        return (
            [c for c in self.changes if c.pass_id == pass_id],
            [(at, message) for at, p, message in self.findings if p == pass_id],
        )


# --- one set ---------------------------------------------------------------------------------------------------------


@dataclass
class Outcome:
    changes: list[Change] = field(default_factory=list)
    findings: list[tuple[int, str, str]] = field(default_factory=list)


@dataclass
class _Blocker:
    at: int
    reason: str


_PRE = re.compile(r"(?:\d)(?:a|b|rc|\.dev|dev)\d*", re.IGNORECASE)


def _is_torchlike(r: Req) -> bool:
    return r.name == "torch"


def _version_of(spec: str) -> str | None:
    """The version an exact or lower-bound specifier names (``==0.22.1`` → ``0.22.1``)."""
    match = re.search(r"(?:===|==|~=|>=|>)\s*(\d[\w.]*)", spec)
    return match.group(1).rstrip(".*").rstrip(".") if match else None


def _shown(r: Req) -> str:
    if r.style == "poetry":
        return f"{r.spelled} = {r.site.text if r.site else r.spec!r}"
    return f"{r.spelled}{r.spec}" if r.spec else r.spelled


def plan_set(rs: ReqSet, ctx: PlanContext) -> Outcome:
    """The plan for one requirement set (see the module docstring)."""
    out = Outcome()
    target = ctx.target
    releases = eco.torch_releases(target)
    torch_reqs = [r for r in rs.reqs if _is_torchlike(r)]
    pinned_torch = [r for r in torch_reqs if r.spec and not r.opaque]
    if any(_PRE.search(r.spec) for r in torch_reqs):
        return out  # nightly and test builds are the project's own business (their indexes are never moved either)
    needed = _needs_move(rs, target)
    if rs.minimum and needed:
        shown = ", ".join(_shown(r) for r in needed[:2])
        lead = needed[0]
        at = lead.site.start if lead.site is not None and not lead.site.whole else lead.start  # a matrix entry, an ARG
        out.findings.append((at, TORCH_PIN, f"left alone: {rs.minimum} ({shown}); it is not moved to {target}"))
        return out
    if rs.image is not None and rs.image.torch and not pinned_torch and not torch_reqs:
        _image_torch(rs, ctx, out)
    if not needed:
        _cuda_only(rs, ctx, out)
        return out
    if TORCH_PIN not in ctx.active:
        return out  # the set's torch does not move in this run, so neither does anything else in it
    if not releases:
        out.findings.append((needed[0].start, TORCH_PIN, f"torch {target} is not in the compatibility table: nothing moved"))
        return out
    first: list[_Blocker] | None = None
    # Prefer a patch the torch pins already admit (torch stays, the companions follow), then the newest.
    kept = [t for t in releases if pinned_torch and all(eco.version_admitted(_public(r.spec), t.version) for r in pinned_torch)]
    ordered = list(reversed(kept)) + [t for t in reversed(releases) if t not in kept]
    for release in ordered:
        changes, blockers = _try(rs, ctx, release)
        if not blockers:
            out.changes.extend(changes)
            return out
        if first is None:
            first = blockers
    assert first is not None
    way_out = _way_out(rs, ctx)
    reasons = "; ".join(dict.fromkeys(b.reason for b in first))
    message = f"torch is not moved to {target}{_label(rs)}, nor is anything installed with it: {reasons}{way_out}"
    at = first[0].at
    if ctx.may(at):
        out.findings.append((at, TORCH_PIN, message))
    return out


def _label(rs: ReqSet) -> str:
    return f" ({rs.label})" if rs.label else ""


def _needs_move(rs: ReqSet, target: Version) -> list[Req]:
    """The requirements of ``rs`` that exclude every torch of ``target`` (torch itself, or a companion with no
    release for it among the versions its specifier admits). A requirement whose lower bound is above the target is
    the project's choice: it is never lowered."""
    releases = eco.torch_releases(target)
    found = []
    for r in rs.reqs:
        if not r.spec or (r.opaque and r.style != "wheel"):
            continue
        low = lowest_release(r.spec)
        if r.name == "torch":
            if low is not None and low > target:
                continue
            if not admits(_public(r.spec), target):
                found.append(r)
        elif r.name in eco.COMPANIONS and r.style != "conda" or r.style == "wheel":
            admitted = [c for c in eco.table().releases(r.name) if eco.version_admitted(_public(r.spec), c.version)]
            if r.style == "wheel" and r.name not in eco.COMPANIONS:
                found.append(r)  # a wheel the table does not know (torch_xla): it cannot follow
                continue
            if admitted and not any(eco.compatible(c, t.version) for c in admitted for t in releases):
                if any(c.built_for is not None and c.built_for > target for c in admitted):
                    continue  # newer than the target: not ours to lower
                found.append(r)
    return found


def _public(spec: str) -> str:
    return re.sub(r"\+[\w.]*", "", spec)


def _try(rs: ReqSet, ctx: PlanContext, release: eco.Release) -> tuple[list[Change], list[_Blocker]]:
    """The changes that move ``rs`` to torch ``release``, or what blocks it."""
    target = ctx.target
    version = release.version
    changes: list[Change] = []
    blockers: list[_Blocker] = []
    torch_reqs = [r for r in rs.reqs if r.name == "torch"]
    anchor = torch_reqs[0].start if torch_reqs else (rs.reqs[0].start if rs.reqs else rs.start)

    # The Pythons and the image the set runs on.
    if rs.pythons:
        missing = [p for p in rs.pythons if p not in release.pythons]
        if missing:
            blockers.append(_Blocker(rs.python_at if rs.python_at >= 0 else anchor, _python_reason(rs, missing, release)))
    if rs.image is not None and rs.image.cuda is not None:
        builds = eco.cuda_builds(target)
        image_cuda = rs.image.cuda[0] * 10 + rs.image.cuda[1]
        if builds and image_cuda < min(builds):
            blockers.append(
                _Blocker(
                    rs.image.start,
                    f"its base image {rs.image.name} has CUDA {rs.image.cuda[0]}.{rs.image.cuda[1]}, older than every CUDA "
                    f"build of torch {target} ({_cuda_list(builds)}): move the image to one with CUDA "
                    f"{eco.dotted(min(builds))} or newer (an nvidia/cuda:{eco.dotted(min(builds))}.x image)",
                )
            )
    # CUDA variants.
    cuda_changes, cuda_blockers = _cuda_moves(rs, ctx, anchor)
    changes.extend(cuda_changes)
    blockers.extend(cuda_blockers)
    default_build = not any(i.variant for i in rs.indexes) and not any(r.local for r in rs.reqs)

    moved_names: list[str] = []
    for r in rs.reqs:
        if not r.pinned:
            continue
        if r.style == "conda":
            if (r.name == "torch" or r.name in eco.COMPANIONS) and not admits(r.spec, target):
                blockers.append(_Blocker(r.start, _conda_reason(rs, r, target)))
            continue
        if r.style == "wheel":
            if r.name != "torch" or not admits(r.spec, target):
                instead = f"a requirement on torch {version}" if r.name == "torch" else f"the {r.spelled} for torch {version}"
                blockers.append(
                    _Blocker(r.start, f"a direct wheel link pins {r.spelled} {r.spec[2:]}: replace it with {instead} by hand")
                )
            continue
        if r.opaque:
            blockers.append(
                _Blocker(
                    r.start,
                    f"{r.spelled}'s version is built from an expression the tool cannot read ({_shown(r)}): move it by hand",
                )
            )
            continue
        if r.name == "torch":
            new = _move(r, version)
            if eco.version_admitted(_public(r.spec), version):
                continue
            if new is None:
                blockers.append(_Blocker(r.start, f"{_shown(r)} cannot be moved to admit {version} automatically"))
                continue
            cap = _cap_blocker(r, ctx)
            if cap:
                blockers.append(_Blocker(r.start, cap))
                continue
            changes.append(_change(r, new, f"{_shown(r)} excludes {target}", TORCH_PIN))
            moved_names.append(f"torch {version}")
        elif r.name in eco.COMPANIONS:
            if any(
                eco.compatible(c, version)
                for c in eco.table().releases(r.name)
                if eco.version_admitted(_public(r.spec), c.version)
            ):
                continue
            companion = eco.companion_for(r.name, version, current=_version_of(r.spec))
            if companion is None:
                blockers.append(_Blocker(r.start, _no_companion(r, target)))
                continue
            if r.local and not companion.abi_bound:
                blockers.append(
                    _Blocker(
                        r.start,
                        f"{_shown(r)}: the {r.spelled} for torch {version} is {companion.version}, one build for every "
                        f"CUDA variant (its wheel is {companion.wheel.split('-', 2)[-1]}), and no +{r.local} build of it is "
                        f"known: pin {r.spelled}=={companion.version} from the package index",
                    )
                )
                continue
            new = _move(r, companion.version)
            if new is None:
                blockers.append(_Blocker(r.start, f"{_shown(r)} cannot be moved to admit {r.spelled} {companion.version}"))
                continue
            changes.append(
                _change(
                    r,
                    new,
                    f"{_shown(r)} has no release for torch {version}",
                    TORCH_PIN,
                )
            )
        else:  # torch's own pins: triton, nvidia-*, cuda-*, pytorch-triton*
            wanted = release.requirement(r.name) if default_build else None
            named = _version_of(wanted or "")
            if wanted is not None and named is not None and eco.version_admitted(wanted, named):
                if eco.version_admitted(_public(r.spec), named):
                    continue
                new = _move(r, named)
                if new is not None:
                    changes.append(_change(r, new, f"torch {version} requires {r.spelled}{wanted}", TORCH_PIN))
                    continue
            where = "from the package index" if default_build else "from this CUDA/ROCm index"
            needs = f" (the package index's default build needs {r.spelled}{wanted})" if wanted and not default_build else ""
            blockers.append(
                _Blocker(
                    r.start,
                    f"{_shown(r)} is pinned and torch {version} {where} does not require that version{needs}: "
                    f"drop the pin or set it to what torch {version} requires",
                )
            )
    for change in list(changes):
        if change.pass_id == TORCH_PIN and not ctx.may(change.at):
            changes.remove(change)
            blockers.append(_Blocker(change.at, "a requirement that must move with it is marked `# migrate: ignore`"))
    flag_changes, flag_blockers = _cuda_flags(rs, changes, target)
    changes.extend(flag_changes)
    blockers.extend(flag_blockers)
    for flag in rs.flags:
        if flag.what == "torch":
            new_value = _styled(flag.site.text, version)
            if new_value != flag.site.text:
                changes.append(
                    Change(
                        flag.site.start,
                        flag.site.end,
                        new_value,
                        TORCH_PIN,
                        f"test flag {flag.site.text} → {new_value}",
                        flag.site.start,
                    )
                )
    return changes, blockers


def _styled(old: str, version: str) -> str:
    """``version`` written at the precision of ``old`` (``2.6`` → ``2.12``, ``2.6.0`` → ``2.12.0``)."""
    width = len(old.split("."))
    parts = (version.split(".") + ["0", "0"])[: max(width, 2)]
    return ".".join(parts)


def _move(r: Req, version: str) -> str | None:
    """The new text of ``r``'s version site so that it admits ``version``, or ``None``."""
    site = r.site
    if site is None:
        return None
    if not site.whole:  # a variable's value or a matrix entry: a bare version
        new_value = _styled(site.text, version)
        spec = site.template.format(new_value) if site.template else f"=={new_value}"
        return new_value if eco.version_admitted(_public(spec), version) else None
    if r.style == "poetry":
        return move_poetry_to(site.text, version)
    return move_spec_to(site.text, version)


def _change(r: Req, new: str, why: str, pass_id: str) -> Change:
    assert r.site is not None
    shown = f"{r.spelled} = {new!r}" if r.style == "poetry" else f"{r.spelled}{new}" if r.site.whole else new
    return Change(r.site.start, r.site.end, new, pass_id, f"{why} → {shown}", r.start)


def _python_reason(rs: ReqSet, missing: list[tuple[int, int]], release: eco.Release) -> str:
    lo, hi = min(release.pythons), max(release.pythons)
    shown = ", ".join(f"{a}.{b}" for a, b in sorted(missing))
    where = f"its image {rs.image.name} runs" if rs.image is not None and rs.image.python else "it runs on"
    fix = ""
    if rs.image is not None and rs.image.python and rs.image.name.split("/")[-1].startswith("python:"):
        fix = f": move the image to python:{lo[0]}.{lo[1]} or newer"
    return f"{where} Python {shown}, and torch {release.version} has wheels for Python {lo[0]}.{lo[1]}-{hi[0]}.{hi[1]}{fix}"


def _cuda_list(builds: Iterable[int]) -> str:
    return ", ".join(eco.cuda_name(b) for b in sorted(builds))


def _variants(rs: ReqSet) -> list[tuple[int, int, str, str]]:
    """The CUDA/ROCm variants the set names: (start, end, variant, what) for each index URL and ``+variant`` label."""
    found = []
    for index in rs.indexes:
        if index.variant and not index.expression and index.channel == "stable":
            found.append((index.variant_start, index.variant_start + len(index.variant), index.variant, "PyTorch wheel index"))
    for r in rs.reqs:
        if r.site is not None and r.site.whole and r.local and r.name in ("torch", *eco.COMPANIONS):
            at = r.site.text.find("+" + r.local)
            if at >= 0:
                start = r.site.start + at + 1
                found.append((start, start + len(r.local), r.local, f"{r.spelled} local version"))
    return found


def _cuda_moves(rs: ReqSet, ctx: PlanContext, anchor: int) -> tuple[list[Change], list[_Blocker]]:
    target = ctx.target
    changes: list[Change] = []
    blockers: list[_Blocker] = []
    builds = eco.cuda_builds(target)
    for index in rs.indexes:
        if index.channel == "lts":
            blockers.append(
                _Blocker(
                    index.start,
                    "it installs from the 1.8 LTS wheel index (whl/lts/1.8/…), which has no newer torch: "
                    "point it at a current index by hand",
                )
            )
    for start, end, variant, what in _variants(rs):
        cu = re.fullmatch(r"cu(\d{3})", variant)
        if cu is not None:
            number = int(cu.group(1))
            if number in builds:
                continue
            new = eco.cuda_replacement(number, target)
            if new is None:
                if eco.builds_complete(target):
                    reason = f"torch {target} has no {variant} build ({_cuda_list(builds)})"
                else:
                    reason = (
                        f"of torch {target}'s CUDA builds only its package-index build is known ({_cuda_list(builds)}; "
                        f"RELEASE.md had no {target} row when the table was made): {variant} is not moved"
                    )
                blockers.append(_Blocker(start, reason))
            elif CUDA_WHEELS not in ctx.active:
                blockers.append(
                    _Blocker(
                        start,
                        f"torch {target} has no {variant} build: moving it needs cuda-wheels (→ {eco.cuda_name(new)}; "
                        "a review edit, applied with unsafe fixes)",
                    )
                )
            elif ctx.may(start, CUDA_WHEELS):
                changes.append(
                    Change(
                        start,
                        end,
                        eco.cuda_name(new),
                        CUDA_WHEELS,
                        f"{what}: torch {target} has no {variant} wheels → {eco.cuda_name(new)}. "
                        f"Review: {eco.cuda_limits(new, target)}",
                        start,
                    )
                )
            else:
                blockers.append(_Blocker(start, f"the {variant} {what} is marked `# migrate: ignore`"))
        elif variant.startswith("rocm"):
            listed = eco.rocm(target)
            if listed is None or variant != f"rocm{listed}":
                named = f"ROCm {listed} per RELEASE.md" if listed else "not known to the table"
                blockers.append(
                    _Blocker(
                        start,
                        f"its ROCm index ({variant}) is not a known ROCm build of torch {target} ({named}): move it by hand",
                    )
                )
    return changes, blockers


def _cuda_flags(rs: ReqSet, changes: list[Change], target: Version) -> tuple[list[Change], list[_Blocker]]:
    """CI test flags that name the CUDA version (``--cuda_ver="12.4"``) follow the set's CUDA build."""
    out: list[Change] = []
    blockers: list[_Blocker] = []
    moved_cuda = sorted({int(c.new[2:]) for c in changes if c.pass_id == CUDA_WHEELS and re.fullmatch(r"cu\d{3}", c.new)})
    for flag in rs.flags:
        if flag.what != "cuda":
            continue
        numbers = [int(p) for p in flag.site.text.split(".")[:2]]
        named = numbers[0] * 10 + numbers[1] if len(numbers) == 2 else None
        if named is None or named in eco.cuda_builds(target):
            continue
        if len(moved_cuda) == 1:
            new_value = eco.dotted(moved_cuda[0])
            out.append(
                Change(
                    flag.site.start,
                    flag.site.end,
                    new_value,
                    CUDA_WHEELS,
                    f"test flag CUDA {flag.site.text} → {new_value} (torch {target}'s build)",
                    flag.site.start,
                )
            )
        else:
            blockers.append(
                _Blocker(
                    flag.site.start,
                    f"a test flag names CUDA {flag.site.text}, which torch {target} is not built for "
                    f"({_cuda_list(eco.cuda_builds(target))}): move it together with the job's CUDA index",
                )
            )
    return out, blockers


def _cuda_only(rs: ReqSet, ctx: PlanContext, out: Outcome) -> None:
    """A set whose torch already goes to the target (pinned there, or unpinned) may still name a CUDA build the
    target lacks: that variant moves (cuda-wheels), and only together with a torch install."""
    torch_reqs = [r for r in rs.reqs if r.name == "torch" and r.style != "conda"]
    if not torch_reqs or any(r.opaque for r in torch_reqs):
        return
    if any(r.spec and not admits(_public(r.spec), ctx.target) for r in torch_reqs):
        return  # torch stays below the target (its lower bound is above, or it is not ours to move)
    changes, blockers = _cuda_moves(rs, ctx, torch_reqs[0].start)
    flag_changes, flag_blockers = _cuda_flags(rs, changes, ctx.target)
    if flag_blockers and changes:
        blockers += flag_blockers
        changes = []
    out.changes.extend(changes + flag_changes)
    for b in blockers:
        if ctx.may(b.at, CUDA_WHEELS):
            out.findings.append((b.at, CUDA_WHEELS, f"{b.reason}{_label(rs)}"))


def _image_torch(rs: ReqSet, ctx: PlanContext, out: Outcome) -> None:
    """A stage or job whose torch comes from its ``pytorch/pytorch`` image (it installs none itself)."""
    image = rs.image
    assert image is not None and image.torch is not None
    if admits(f"=={image.torch}", ctx.target) or (lowest_release(f"=={image.torch}") or ctx.target) > ctx.target:
        return
    builds = eco.cuda_builds(ctx.target)
    if ctx.may(image.start):
        out.findings.append(
            (
                image.start,
                TORCH_PIN,
                f"the image {image.name} ships torch {image.torch}: move it to a pytorch/pytorch image of torch {ctx.target} "
                f"(CUDA builds: {_cuda_list(builds)})",
            )
        )


def _no_companion(r: Req, target: Version) -> str:
    newest = eco.newest(r.name)
    if newest is None:
        return f"{_shown(r)}: {r.spelled} is not on the package index, so no release of it for torch {target} is known"
    if newest.built_for is not None:
        about = f"its newest, {newest.version}, is built for torch {newest.built_for}"
    elif newest.torch_spec:
        about = f"its newest, {newest.version}, requires torch{newest.torch_spec}"
    else:
        about = f"its newest is {newest.version}"
    return f"{_shown(r)}: {r.spelled} has no release for torch {target} ({about})"


def _conda_reason(rs: ReqSet, r: Req, target: Version) -> str:
    channel_last = eco.table().conda_channel_last
    from_pytorch = "pytorch" in rs.conda_channels or r.spelled.startswith("pytorch::")
    if from_pytorch and target > channel_last:
        cuda = [q.spelled for q in rs.reqs if q.name == "pytorch-cuda"]
        also = f" (and drop {cuda[0]}, which only that channel's builds use)" if cuda else ""
        return (
            f"{r.spelled} comes from the pytorch conda channel, which has no torch after {channel_last} "
            f"(pytorch/pytorch#138506): install torch {target} with pip (the environment's pip: list) or from "
            f"conda-forge{also}"
        )
    return f"{r.spelled} is a conda package: conda requirements are not moved by the tool (their builds are not in the table)"


def _cap_blocker(r: Req, ctx: PlanContext) -> str:
    """Why a torch upper bound (``<2.6``) may not be lifted: it stops below behaviour changes whose passes are not
    part of this run, so the code it protects would meet them unmigrated and unreported. ``""`` when it may."""
    caps = [m.group(0) for m in re.finditer(r"(<=|<)\s*(\d[\w.]*)", _public(r.spec))]
    if not caps:
        return ""
    from torchmigrate.core.passes import BEHAVIOUR, PYTHON
    from torchmigrate.core.registry import all_passes

    low = lowest_release(r.spec) or Version(0, 0)
    features = sorted({t.feature for t in eco.table().releases("torch")})
    excluded = [f for f in features if f >= low and not all(admits(cap, f) for cap in caps)]
    if not excluded:
        return ""
    bound = excluded[0]
    crossed = [p for p in all_passes() if p.files == PYTHON and p.kind is BEHAVIOUR and bound <= p.version <= ctx.target]
    if ctx.python_passes is not None:
        missing = [p for p in crossed if p.id not in ctx.python_passes]
    else:
        missing = []
    if not missing:
        return ""
    named = ", ".join(f"{p.id} ({p.release})" for p in missing[:4]) + (" …" if len(missing) > 4 else "")
    return (
        f"{_shown(r)} caps torch below behaviour changes that this run does not migrate or report ({named}): lift the "
        "cap only together with those passes (run them, or add them to --select)"
    )


def _way_out(rs: ReqSet, ctx: PlanContext) -> str:
    """``: stay on torch X (--to X)`` for the newest release below the target the set can move to, if any."""
    target = ctx.target
    current = [lowest_release(r.spec) for r in rs.reqs if r.name == "torch" and r.spec and (not r.opaque or r.style == "wheel")]
    floor = min((c for c in current if c is not None), default=None)
    candidates = sorted({r.feature for r in eco.table().releases("torch") if r.feature < target}, reverse=True)
    for feature in candidates:
        if floor is not None and feature <= floor:
            break
        releases = eco.torch_releases(feature)
        sub = PlanContext(feature, ctx.active, ctx.python_passes, ctx.floor, ctx.allowed)
        if releases and not _try(rs, sub, releases[-1])[1]:
            return f". The newest release it can move to is torch {feature} (`--to {feature}`)"
    return ""


def touches(changes: Iterable[Change], index: Index) -> bool:
    return any(c.start >= index.start and c.end <= index.end for c in changes)
