"""Planning one project file: its requirement sets (:mod:`torchmigrate.project.sets`), each planned by
:func:`~torchmigrate.project.plan.plan_set`, CI files job by job (:mod:`torchmigrate.project.matrix`), and lock files,
which are reported and never edited."""

from __future__ import annotations

from torchmigrate.project.matrix import plan_ci
from torchmigrate.project.plan import TORCH_PIN, FilePlan, PlanContext, plan_set
from torchmigrate.project.sets import ReqSet, locked_versions, scan
from torchmigrate.project.specs import admits

__all__ = ["plan_file"]


def plan_file(text: str, kind: str, name: str, ctx: PlanContext) -> FilePlan:
    """The plan for ``text``, a project file of ``kind`` named ``name``."""
    plan = FilePlan()
    if kind == "ci":
        plan.changes, plan.findings = plan_ci(text, ctx)
        return plan
    for rs in scan(text, kind, name):
        if rs.lock:
            _plan_lock(text, kind, name, rs, ctx, plan)
            continue
        outcome = plan_set(rs, ctx)
        plan.changes.extend(outcome.changes)
        plan.findings.extend(outcome.findings)
    return plan


# --- lock files ------------------------------------------------------------------------------------------------------


def _plan_lock(text: str, kind: str, name: str, rs: ReqSet, ctx: PlanContext, plan: FilePlan) -> None:
    if kind == "lock":
        pinned = [(n, v, at) for n, v, at in locked_versions(text) if n in ("torch", "pytorch")]
    else:
        pinned = [(r.name, r.spec, r.start) for r in rs.reqs if r.name == "torch" and r.spec]
    stale = [(n, v, at) for n, v, at in pinned if not admits(v if v[:1] in "=<>!~" else f"=={v}", ctx.target)]
    if not stale:
        return
    _, version, at = stale[0]
    shown = version if version[:1] in "=<>!~" else f"=={version}"
    plan.findings.append(
        (
            at,
            TORCH_PIN,
            f"{name or 'this file'} is a lock file (torch{shown}): lock files are not edited. Once the source "
            f"requirements admit torch {ctx.target} (move them if they do not), regenerate it: `{rs.lock}`",
        )
    )
