"""CI files: jobs, their matrices, and the requirement set of each job (or matrix leg).

A job is one set: its install commands (``pip install torch==2.6.0 …``), its ``env``/``variables`` values and the
test flags that name the torch or CUDA version (``--torch_ver="2.6" --cuda_ver="12.4"``), its container image and
its Python (``python-version``). Where the job's torch, companions, CUDA index or Python come from its matrix
(``torch==${{ matrix.torch }}``), the job is expanded into its legs (GitHub Actions ``strategy.matrix`` with
``include``/``exclude``), and each leg is a set whose versions are written at the matrix entries.

Which legs move is decided by :func:`torchmigrate.project.matrix.plan_ci`.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field, replace
from typing import Any

from torchmigrate.project.pins import install_commands, requirements_in
from torchmigrate.project.sets import Flag, Image, Index, Req, ReqSet, Site, image_of, indexes_in, req_of, wheel_links

__all__ = ["Job", "Leg", "job_legs", "scan_ci", "scan_jobs"]

_MINIMUM = re.compile(r"(?:^|[^a-z])(min|minimum|oldest|lowest)(?:$|[^a-z])", re.IGNORECASE)
_FLAG = re.compile(
    r"--(?P<what>torch|pytorch|pt|cuda)[-_]?ver(?:sion)?(?:=|\s+)(?P<q>[\"']?)(?P<value>\d+\.\d+(?:\.\d+)?)(?P=q)",
    re.IGNORECASE,
)
_EXPRESSION = re.compile(r"\$\{\{\s*(?P<scope>matrix|env|inputs)\.(?P<name>[\w-]+)\s*\}\}")


@dataclass
class Job:
    """A CI job: its name, where it is written, its variables, container image and matrix."""

    key: str
    name: str
    start: int
    end: int
    env: dict[str, Site] = field(default_factory=dict)
    image: Image | None = None
    matrix: dict[str, list[Site]] = field(default_factory=dict)  # key → its entries
    include: list[dict[str, Site]] = field(default_factory=list)
    exclude: list[dict[str, Site]] = field(default_factory=list)
    pythons: list[tuple[Site | None, str]] = field(default_factory=list)  # python-version values (or expressions)
    skip: list[tuple[int, int]] = field(default_factory=list)  # spans (other jobs) that are not part of this one
    matrix_span: tuple[int, int] = (0, 0)
    what: str = "job"  # or "block": a reusable block outside the jobs (CircleCI commands, anchors)


def _site(node: Any) -> Site:
    start, end = node.start_mark.index, node.end_mark.index
    if getattr(node, "style", None) in ("'", '"'):
        start, end = start + 1, end - 1
    return Site(start, end, str(node.value), False)


def _scalar(node: Any) -> bool:
    return type(node).__name__ == "ScalarNode"


def _mapping(node: Any) -> dict[str, tuple[Any, Any]]:
    if type(node).__name__ != "MappingNode":
        return {}
    return {str(k.value): (k, v) for k, v in node.value if _scalar(k)}


def _sequence(node: Any) -> list[Any]:
    return list(node.value) if type(node).__name__ == "SequenceNode" else []


def _compose(text: str) -> Any:
    try:
        import yaml
    except ImportError:  # pragma: no cover - pyyaml is a dependency
        return None
    try:
        return yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except Exception:  # a file PyYAML cannot read: read it as one job
        return None


_GITLAB_RESERVED = frozenset(
    {"stages", "variables", "default", "include", "workflow", "image", "services", "before_script", "after_script", "cache"}
)


def scan_jobs(text: str) -> tuple[list[Job], dict[str, Site]]:
    """The jobs of a CI file and its file-level variables. A file without a job structure is one job."""
    root = _compose(text)
    top = _mapping(root) if root is not None else {}
    workflow_env: dict[str, Site] = {}
    for key in ("env", "variables", "environment"):
        if key in top:
            workflow_env.update(_variables(top[key][1]))
    jobs_node = top.get("jobs")
    items: list[tuple[Any, Any]] = []
    if jobs_node is not None and _mapping(jobs_node[1]):
        items = [(k, v) for k, v in jobs_node[1].value if _scalar(k)]
    elif top:
        items = [(k, v) for k, v in root.value if _scalar(k) and str(k.value) not in _GITLAB_RESERVED and _mapping(v)]
    jobs = [_job(text, k, v) for k, v in items]
    if not jobs:
        return [Job("", "", 0, len(text))], workflow_env
    # Blocks outside every job (CircleCI's reusable ``commands:`` and anchored steps, GitLab's global
    # ``before_script``): one set per top-level block (per command under ``commands:``).
    spans = [(j.start, j.end) for j in jobs]
    blocks: list[Job] = []
    for k, v in root.value:
        if not _scalar(k) or str(k.value) == "jobs" or any(a <= k.start_mark.index < b for a, b in spans):
            continue
        children = [(ck, cv) for ck, cv in v.value if _scalar(ck)] if str(k.value) == "commands" and _mapping(v) else [(k, v)]
        for ck, cv in children:
            blocks.append(Job(f"{ck.value}", "", ck.start_mark.index, cv.end_mark.index, what="block"))
    return [*jobs, *blocks], workflow_env


def _variables(node: Any) -> dict[str, Site]:
    found = {}
    for name, (_, value) in _mapping(node).items():
        if _scalar(value):
            found[name] = _site(value)
    return found


def _job(text: str, key: Any, node: Any) -> Job:
    fields = _mapping(node)
    name = str(fields["name"][1].value) if "name" in fields and _scalar(fields["name"][1]) else ""
    job = Job(str(key.value), name, key.start_mark.index, node.end_mark.index)
    for env_key in ("env", "variables", "environment"):
        if env_key in fields:
            job.env.update(_variables(fields[env_key][1]))
    job.image = _image(fields)
    strategy = _mapping(fields["strategy"][1]) if "strategy" in fields else {}
    matrix_node = strategy.get("matrix", (None, None))[1]
    if matrix_node is not None:
        job.matrix_span = (matrix_node.start_mark.index, matrix_node.end_mark.index)
    for mkey, (_, value) in _mapping(matrix_node).items():
        if mkey == "include":
            job.include = [{k: _site(v) for k, (_, v) in _mapping(e).items() if _scalar(v)} for e in _sequence(value)]
        elif mkey == "exclude":
            job.exclude = [{k: _site(v) for k, (_, v) in _mapping(e).items() if _scalar(v)} for e in _sequence(value)]
        elif _sequence(value):
            job.matrix[mkey] = [_site(v) for v in _sequence(value) if _scalar(v)]
        elif _scalar(value):
            job.matrix[mkey] = [_site(value)]
    for match in re.finditer(r"^[ \t-]*python[-_]version[ \t]*:[ \t]*(?P<v>[^\n#]*)", text[job.start : job.end], re.MULTILINE):
        raw = match.group("v").strip()
        at = job.start + match.start("v")
        if raw.startswith(("[", "|", ">")) or not raw or job.matrix_span[0] <= at < job.matrix_span[1]:
            continue
        value = raw.strip("\"'")
        quoted = len(raw) - len(value)
        job.pythons.append((Site(at + quoted // 2, at + quoted // 2 + len(value), value, False), value))
    return job


def _image(fields: dict[str, tuple[Any, Any]]) -> Image | None:
    for key in ("container", "image", "docker"):
        if key not in fields:
            continue
        value = fields[key][1]
        if _scalar(value):
            return image_of(value.start_mark.index, str(value.value))
        inner = _mapping(value)
        for name_key in ("image", "name"):
            if name_key in inner and _scalar(inner[name_key][1]):
                node = inner[name_key][1]
                return image_of(node.start_mark.index, str(node.value))
        for entry in _sequence(value):  # CircleCI: docker: [- image: …]
            inner = _mapping(entry)
            if "image" in inner and _scalar(inner["image"][1]):
                node = inner["image"][1]
                return image_of(node.start_mark.index, str(node.value))
    return None


def _legs(job: Job) -> list[dict[str, Site]]:
    """The combinations of the job's matrix (GitHub Actions' rules for ``include`` and ``exclude``, simplified)."""
    if not job.matrix and not job.include:
        return [{}]
    keys = list(job.matrix)
    combos: list[dict[str, Site]] = [dict(zip(keys, values, strict=True)) for values in itertools.product(*job.matrix.values())]
    if not keys:
        combos = []
    for entry in job.include:
        original = {k: v for k, v in entry.items() if k in job.matrix}
        matching = [c for c in combos if original and all(c[k].text == v.text for k, v in original.items())]
        if matching:
            for combo in matching:
                combo.update({k: v for k, v in entry.items() if k not in job.matrix})
        else:
            combos.append(dict(entry))
    return [c for c in combos if not any(all(k in c and c[k].text == v.text for k, v in e.items()) for e in job.exclude)]


def _lookup(job: Job, workflow_env: dict[str, Site], leg: dict[str, Site]) -> dict[str, Site]:
    values = {**workflow_env, **job.env}
    values.update({f"matrix.{k}": v for k, v in leg.items()})
    values.update({f"env.{k}": v for k, v in {**workflow_env, **job.env}.items()})
    return values


def _normalized(spec: str) -> str:
    """GitHub expressions written as shell variables, so that one substitution handles both: ``${{ matrix.torch }}``
    → ``${matrix.torch}``."""
    return _EXPRESSION.sub(lambda m: "${" + f"{m.group('scope')}.{m.group('name')}" + "}", spec)


_VAR = re.compile(r"\$\{(?P<a>[A-Za-z_][\w.-]*)\}|\$(?P<b>[A-Za-z_]\w*)")


def _resolve(spec: str, values: dict[str, Site]) -> tuple[str | None, list[str]]:
    names: list[str] = []
    unknown = False

    def sub(match: re.Match[str]) -> str:
        nonlocal unknown
        name = match.group("a") or match.group("b")
        names.append(name)
        if name not in values:
            unknown = True
            return ""
        return values[name].text

    out = _VAR.sub(sub, _normalized(spec))
    return (None if unknown else out), names


def _req(base: Req, raw_spec: str, values: dict[str, Site]) -> Req:
    if "$" not in raw_spec:
        return base
    spec, names = _resolve(raw_spec, values)
    if spec is None:
        return replace(base, spec=raw_spec, site=None, opaque=True)
    single = re.fullmatch(r"(?P<op>===|==|~=|>=|<=|>|<)\s*\$\{[\w.-]+\}(?P<rest>(?:\+[\w.]*)?)", _normalized(raw_spec))
    if single is not None and len(names) == 1:
        site = values[names[0]]
        return replace(
            base, spec=spec, site=Site(site.start, site.end, site.text, False, single.group("op") + "{}" + single.group("rest"))
        )
    if re.fullmatch(r"(?P<op>===|==|~=|>=|<=|>|<)\s*\$\{[\w.-]+\}\+\$\{[\w.-]+\}", _normalized(raw_spec)):
        # torch==${{matrix.torch}}+${{matrix.platform}}: the version at its entry, the build at the other
        site = values[names[0]]
        op = re.match(r"===|==|~=|>=|<=|>|<", raw_spec)
        plus = values[names[1]].text
        return replace(
            base, spec=spec, site=Site(site.start, site.end, site.text, False, (op.group(0) if op else "==") + "{}+" + plus)
        )
    return replace(base, spec=spec, site=None, opaque=True)


@dataclass
class Leg:
    label: str
    values: dict[str, Site]
    rs: ReqSet
    torch_key: str = ""  # the matrix key the torch version comes from


def scan_ci(text: str) -> list[ReqSet]:
    """The requirement sets of a CI file: one per job, or per matrix leg (see the module docstring)."""
    return [leg.rs for _, legs in job_legs(text) for leg in legs]


def job_legs(text: str) -> list[tuple[Job, list[Leg]]]:
    jobs, workflow_env = scan_jobs(text)
    found: list[tuple[Job, list[Leg]]] = []
    for job in jobs:
        legs = []
        for leg in _legs(job):
            legs.append(_leg(text, job, workflow_env, leg))
        found.append((job, legs))
    return found


def _leg(text: str, job: Job, workflow_env: dict[str, Site], leg: dict[str, Site]) -> Leg:
    values = _lookup(job, workflow_env, leg)
    label = f"{job.what} {job.key}" if job.key else ""
    if leg:
        label += " (" + ", ".join(f"{k}={v.text}" for k, v in leg.items()) + ")"
    rs = ReqSet(label, start=job.start)
    torch_key = ""
    for start, end, _ in install_commands(text[job.start : job.end]):
        lo, hi = job.start + start, job.start + end
        if any(a <= lo < b for a, b in job.skip):
            continue
        piece = text[lo:hi]
        for r in requirements_in(piece, "ci"):
            shifted = replace(r, start=r.start + lo, spec_start=r.spec_start + lo, spec_end=r.spec_end + lo)
            rs.reqs.append(_req(req_of(shifted), r.spec, values))
            if r.name == "torch":
                refs = re.findall(r"matrix\.([\w-]+)", _normalized(r.spec))
                torch_key = torch_key or (refs[0] if refs else "")
        rs.reqs.extend(wheel_links(text, lo, hi))
        for index in indexes_in(text, lo, hi):
            rs.indexes.append(_index(index, text, values))
    for match in _FLAG.finditer(text, job.start, job.end):
        if any(a <= match.start() < b for a, b in job.skip):
            continue
        what = "cuda" if match.group("what").lower() == "cuda" else "torch"
        rs.flags.append(Flag(what, Site(match.start("value"), match.end("value"), match.group("value"), False)))
    rs.image = job.image
    pythons: set[tuple[int, int]] = set()
    for site, raw in job.pythons:
        value, names = _resolve(raw, values) if "$" in raw else (raw, [])
        if value and re.fullmatch(r"3\.\d+", value.strip()):
            major, minor = value.strip().split(".")
            pythons.add((int(major), int(minor)))
            where = values[names[0]] if names and names[0] in values else site
            if where is not None:
                rs.python_at = where.start
    rs.pythons = tuple(sorted(pythons))
    if rs.image is not None and rs.image.python and not rs.pythons:
        rs.pythons = (rs.image.python,)
        rs.python_at = rs.image.start
    named = " ".join(filter(None, [job.key, job.name, torch_key]))
    variables = [r.site for r in rs.reqs if r.name == "torch" and r.site is not None and not r.site.whole]
    if _MINIMUM.search(named) or any(_MINIMUM.search(_name_of(values, s)) for s in variables if s is not None):
        rs.minimum = f"the job tests a minimum ({job.key}{' / ' + job.name if job.name else ''})"
    rs.ci = True
    return Leg(label, leg, rs, torch_key)


def _name_of(values: dict[str, Site], site: Site) -> str:
    return next((name for name, s in values.items() if s == site), "")


def _index(index: Index, text: str, values: dict[str, Site]) -> Index:
    if not index.expression:
        return index
    resolved, names = _resolve(index.variant, values)
    if resolved is None or len(names) != 1:
        return index
    site = values[names[0]]
    return replace(index, variant=resolved, variant_start=site.start, expression=False)
