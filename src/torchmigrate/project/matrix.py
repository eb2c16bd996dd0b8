"""Planning a CI file: each job is a set, a matrix job is planned leg by leg.

The lowest entry of a torch matrix tests a minimum and is left alone (a finding says so), as is a job or variable named
min/minimum/oldest/lowest and a pin equal to the project's declared floor. Of the other legs only those of the highest
torch entry move — and only if every one of them reaches a supported combination (Python × torch × CUDA build) and no
entry they change is shared with a leg that stays; ``include``/``exclude`` entries that name a moved value move with
it. Otherwise one finding.
"""

from __future__ import annotations

import re

from torchmigrate.project.ci import Job, Leg, job_legs
from torchmigrate.project.plan import TORCH_PIN, Change, PlanContext, plan_set
from torchmigrate.project.specs import lowest_release

__all__ = ["plan_ci"]


def plan_ci(text: str, ctx: PlanContext) -> tuple[list[Change], list[tuple[int, str, str]]]:
    """The changes and findings for a CI file: each job planned as a set, a matrix job leg by leg (see the module
    docstring)."""
    changes: list[Change] = []
    findings: list[tuple[int, str, str]] = []
    for job, legs in job_legs(text):
        if not legs:
            continue
        key = legs[0].torch_key
        entries = sorted({leg.values[key].text for leg in legs if key in leg.values}, key=_version_key) if key else []
        entries = [e for e in entries if re.fullmatch(r"\d+(?:\.\d+)*", e)]
        movers = legs
        if len(entries) >= 2:
            lowest, highest = entries[0], entries[-1]
            for leg in legs:
                if leg.values.get(key) is not None and leg.values[key].text == lowest:
                    leg.rs.minimum = f"it tests the lowest entry of the job's torch matrix ({key}: {lowest})"
            stays = [leg for leg in legs if leg.values.get(key) is None or leg.values[key].text != highest]
            minimum_legs = [leg for leg in stays if leg.rs.minimum]
            for leg in minimum_legs[:1]:
                outcome = plan_set(leg.rs, ctx)
                findings.extend(outcome.findings[:1])
            movers = [leg for leg in legs if leg.values.get(key) is not None and leg.values[key].text == highest]
        for leg in legs:
            if ctx.floor is not None and not leg.rs.minimum:
                for r in leg.rs.reqs:
                    if (
                        r.name == "torch"
                        and r.spec
                        and "==" in r.spec
                        and lowest_release(r.spec) == ctx.floor
                        and ctx.floor < ctx.target
                    ):
                        leg.rs.minimum = f"it pins the project's declared floor, torch {ctx.floor}"
        outcomes = [(leg, plan_set(leg.rs, ctx)) for leg in movers]
        blocked = [(leg, o) for leg, o in outcomes if o.findings and not o.changes]
        wanted = {(c.start, c.end, c.new, c.pass_id): c for _, o in outcomes for c in o.changes}
        stays = [leg for leg in legs if leg not in movers]
        shared = [c for c in wanted.values() if any(_uses(leg, c) for leg in stays)]
        conflicting = len({(c.start, c.end) for c in wanted.values()}) != len(wanted)
        if blocked or shared or conflicting:
            if blocked:
                leg, outcome = blocked[0]
                findings.extend(outcome.findings[:1])
            elif wanted:
                first = next(iter(wanted.values()))
                why = "an entry it would change is shared with legs that stay" if shared else "its legs need different versions"
                findings.append(
                    (
                        first.at,
                        TORCH_PIN,
                        f"the matrix of job {job.key} is not moved to torch {ctx.target}: {why}; split the matrix by hand",
                    )
                )
            continue
        changes.extend(wanted.values())
        changes.extend(_matching_entries(job, list(wanted.values())))
        for _, outcome in outcomes:
            findings.extend(f for f in outcome.findings if f not in findings)
    return changes, findings


def _matching_entries(job: Job, changes: list[Change]) -> list[Change]:
    """``include``/``exclude`` entries that name a matrix value a change moves (``- torch: "2.7.1"`` beside the
    moved ``torch: [..., "2.7.1"]``) move with it, so that they keep matching their combination."""
    found = []
    for key, entries in job.matrix.items():
        for entry in entries:
            moved = next((c for c in changes if c.start == entry.start and c.end == entry.end), None)
            if moved is None:
                continue
            for extra in (*job.include, *job.exclude):
                site = extra.get(key)
                if site is not None and site.text == entry.text and not any(c.start == site.start for c in changes):
                    found.append(Change(site.start, site.end, moved.new, moved.pass_id, moved.message, site.start))
    return found


def _uses(leg: Leg, change: Change) -> bool:
    for r in leg.rs.reqs:
        if r.site is not None and r.site.start <= change.start < max(r.site.end, r.site.start + 1):
            return True
    for index in leg.rs.indexes:
        if index.variant_start <= change.start < index.variant_start + max(len(index.variant), 1):
            return True
    return any(f.site.start <= change.start < f.site.end for f in leg.rs.flags)


def _version_key(text: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", text))
