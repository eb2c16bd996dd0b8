"""Passes with an ast detector give exactly the results they give without it: same code, edits and findings."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from torchmigrate.core.fixes import APPLY_ALL
from torchmigrate.core.registry import all_passes, get_pass
from torchmigrate.core.results import FileResult
from torchmigrate.python.engine import migrate_text
from torchmigrate.python.sites import AstFile, analyser_of

DETECTED = [p for p in all_passes() if analyser_of(p) is not None]  # their own detectors, and call rewriters' bound


def outcome(result: FileResult) -> tuple[object, ...]:
    return (result.code, result.error, result.edits, result.findings, result.passes_applied)


# Passes with no libcst answer of their own to compare with: a transformer that reads the detector's plan
# (``self.plan``), or none at all (the pass decides from the ast only).
PLAN_READERS = frozenset({"jit-to-export"}) | {
    p.id for p in all_passes() if p.analyse is not None and p.transformer is None and not p.renames and not p.call_rewriters
}


def both_ways(text: str, passes: list) -> tuple[tuple[object, ...], tuple[object, ...]]:  # type: ignore[type-arg]
    """With the precheck and the detectors (which settle files without libcst), and with neither: every pass runs
    its libcst transformer alone (``analyse`` removed), the answer the detectors must give."""
    fast = outcome(migrate_text(text, passes, gate=APPLY_ALL))
    saved = [(p, p.analyse) for p in passes if p.id not in PLAN_READERS]
    for p, _ in saved:
        p.analyse = None
    try:
        slow = outcome(migrate_text(text, passes, precheck=False, gate=APPLY_ALL))
    finally:
        for p, analyse in saved:
            p.analyse = analyse
    return fast, slow


def test_there_are_detectors() -> None:
    assert DETECTED


@pytest.mark.parametrize("pass_", DETECTED, ids=lambda p: p.id)
def test_examples_give_the_same_results_with_and_without_the_detector(pass_: object) -> None:
    everything = [p for p in all_passes() if p.files == "python"]
    for example in pass_.examples:  # type: ignore[attr-defined]
        for text in filter(None, (example.before, example.after)):
            fast, slow = both_ways(text, [pass_])
            assert fast == slow, text
            fast, slow = both_ways(text, everything)  # chained with every other pass
            assert fast == slow, text


def test_the_walk_skips_version_guarded_code_as_transformers_do() -> None:
    text = (
        "import torch\nif torch.__version__ >= '2.0':\n    a()\ntry:\n    from torch.x import y\nexcept ImportError:\n"
        "    b()\nif version > 2:\n    d()\nc()\n"
    )
    walked = {n.func.id for n in AstFile(text, ast.parse(text)).walk() if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    file = AstFile(text, ast.parse(text))
    assert walked == {"c", "d"}  # another package's version is no guard
    assert not file.uncertain
    list(file.walk())
    assert file.uncertain  # ... but looks like one: a detector's findings in this file are not trusted as exact


def test_the_shared_walk_of_a_file_is_the_walk_of_its_tree() -> None:
    # AstFile.walk() of the whole file is a list built in one loop; it holds the nodes _walk yields, in its order
    # (source order, version guards skipped), on every pass example and on real torch files
    texts = [e.before for p in all_passes() for e in p.examples if p.files == "python"]
    texts += [path.read_text(encoding="utf-8") for path in _torch_sources()[:40]]
    compared = 0
    for text in texts:
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        shared = AstFile(text, tree).walk()
        assert [id(n) for n in shared] == [id(n) for n in AstFile(text, tree)._walk(tree)]
        compared += 1
    assert compared > 100


def _torch_sources() -> list[Path]:
    torch = pytest.importorskip("torch")
    root = Path(torch.__file__).parent
    return sorted(p for p in root.rglob("*.py") if p.stat().st_size < 60_000)[::50]


def test_real_files_give_the_same_results_with_and_without_detectors() -> None:
    passes = [p for p in all_passes() if p.files == "python"]
    compared = 0
    for path in _torch_sources():
        text = path.read_text(encoding="utf-8")
        fast, slow = both_ways(text, passes)
        assert fast == slow, path
        compared += 1
    assert compared > 30


@pytest.mark.parametrize(
    ("code", "unknown"),
    [
        ("def run(fn, *args, **kwargs):\n    return f(fn, *args, **kwargs)\n", True),  # a parameter: never complete
        ("def run(fn, **kwargs):\n    return f(fn, **kwargs)\n", True),
        ("def run(fn, **kwargs):\n    kwargs['use_reentrant'] = False\n    return f(fn, **kwargs)\n", False),
        ("def run(fn, **kwargs):\n    return f(fn, **kwargs)\nX = {'use_reentrant': 1}\n", True),  # another scope's text
        ("def run(fn):\n    kw = {'a': 1}\n    return f(fn, **kw)\n", False),  # complete or not: libcst's to tell
        ("def run(fn):\n    kw = {'a': 1}\n    return f(fn, *a, **kw)\n", True),  # *args: never complete
        ("def run(fn):\n    return f(fn, **self.kw)\n", True),
        ("def run(fn):\n    return f(fn, **{'use_reentrant': True}, **self.kw)\n", False),
        ("KW = dict(a=1)\ndef run(fn):\n    return f(fn, **KW)\n", True),  # module level: never complete
        ("KW = dict(a=1)\ndef run(fn):\n    return f(fn, **KW)\ndef g():\n    KW['use_reentrant'] = 1\n", False),
        ("def run(fn):\n    return f(fn, **unbound)\n", False),
        ("def run(fn, **kw):\n    def inner():\n        nonlocal kw\n        kw = {}\n    return f(fn, **kw)\n", False),
    ],
)
def test_star_keys_are_certainly_unknown_only_where_the_text_allows_no_other_answer(code: str, unknown: bool) -> None:
    file = AstFile(code, ast.parse(code))
    call = next(n for n in ast.walk(file.tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "f")
    assert file.star_keys_unknown(call, "use_reentrant") is unknown


ZERO_GRAD_CASES = [
    "opt.zero_grad(); g = p.grad.sum()\nx = p.grad\n",  # `;` joins one libcst line: its own read is not looked at
    "for p in ps:\n    if ok: opt.zero_grad(); p.grad.add_(1)\n",  # a block on its header's line is not scanned
    "opt.zero_grad()\nd = {p.grad: 1, 'k': p.grad is None}\n",
    "opt.zero_grad()\ny = p.grad if p.grad is not None else 0\n",  # libcst visits the body before the test
    "opt.zero_grad()\np.grad, q = a, b\n",
    "opt.zero_grad()\np.grad: T = v\n",
    "opt.zero_grad()\ndel p.grad\n",
    "opt.zero_grad()\nx += p.grad\np.grad += x\n",
    "opt.zero_grad()\nf(c=p.grad, *args)\n",
    "opt.zero_grad()\nmodel.manual_backward(loss)\nv = p.grad\n",
    "opt.zero_grad()\nfn = lambda: p.grad\nv = [q.grad for q in ps]\n",
    "opt.zero_grad()\nif torch.__version__ >= '2.0':\n    v = p.grad\nelse:\n    w = p.grad\nz = p.grad\n",
    "opt.zero_grad()\ntry:\n    v = p.grad\nexcept RuntimeError as e:\n    w = p.grad\nfinally:\n    u = p.grad\n",
    "def f():\n    opt.zero_grad()\n    if not p.grad:\n        pass\n    v = p.grad\n",
    "class C:\n    opt.zero_grad()\n    v = p.grad\n",
    "match x:\n    case 1:\n        opt.zero_grad()\n        v = p.grad\n",
    "opt.zero_grad(set_to_none=True)\nv = p.grad\n",
    "while True:\n    opt.zero_grad()\n    assert p.grad\n    v = p.grad\nelse:\n    opt.zero_grad()\n    w = p.grad\n",
    "opt.zero_grad(); \\\np.grad.add_(1)\n",  # a backslash continuation: one libcst line
    "if ok: \\\n    opt.zero_grad(); p.grad.add_(1)\n",
    "opt.zero_grad()\nfrom pkg.grad import clip\nimport torch.autograd.grad\n",  # libcst's dotted names hold `.grad`
    "opt.zero_grad()\nprint(f\"{a.grad:{b.grad}}\")\n",  # a format spec is visited after its value
    "opt.zero_grad()\nprint(f\"{a.grad:{loss.backward()}}\")\n",
    "opt.zero_grad()\nd = {**kw, 'a': p.grad}\nf(*args, key=p.grad)\n",
    "from transformers.utils import is_torch_version\nNEW_API = is_torch_version('>=', '2.0')\nif NEW_API:\n"
    "    opt.zero_grad()\n    p.grad.add_(1)\n",  # a module flag: the transformers' guard rule may skip it
]


@pytest.mark.parametrize("code", ZERO_GRAD_CASES)
def test_zero_grad_findings_from_the_ast_are_the_transformers(code: str) -> None:
    """The detector ports the transformer's scan (its lines, its source order, its stops): corner cases both ways."""
    passes = [get_pass("zero-grad-none")]
    fast, slow = both_ways("import torch\n" + code, passes)
    assert fast == slow


DETECTOR_CASES = [
    ("cross-implicit-dim", "u.cross(v)\nimport torch\nw = u.cross(v)\n"),  # the transformer counts imports seen so far
    ("cross-implicit-dim", "try:\n    import torch\nexcept ImportError:\n    torch = None\nw = u.cross(v)\n"),
    ("cross-implicit-dim", "import torch\na = torch.cross(u, v, None)\nb = torch.cross(u, v, dim=None)\nc = u.cross(other=v)\n"),
    ("cross-implicit-dim", "import torch\na = torch.cross(u, v, 1, dim=None)\nb = u.cross(v, w)\nc = u.cross(*vs)\n"),
    ("cross-implicit-dim", "import torch as th\nfrom torch import cross\na = cross(u, v)\nb = th.cross(input=u, other=v)\n"),
    ("stft-return-complex", "import torch\na = x.stft(8, return_complex=(False))\nb = torch.stft(x, 8, return_complex=flag)\n"),
    ("stft-return-complex", "import torch\nfrom librosa import stft\nimport librosa as lr\na = lr.stft(x, return_complex=False)\nb = get().stft(8, return_complex=False)\n"),
    ("fake-unbacked-symint", "import torch\n\ndef a():\n    ctx = torch.library.get_ctx()\n\ndef b(ctx):\n    return ctx.create_unbacked_symint()\n"),
    ("fake-unbacked-symint", "import torch\nn = shape_env.create_unbacked_symint()\nm = torch.library.get_ctx().create_unbacked_symint(max=8)\n"),
    ("cross-implicit-dim", "NEW_API = is_torch_version('>=', '2.0')\nif NEW_API:\n    from torch.nn.attention import sdpa_kernel\nw = a.cross(b)\n"),
    ("cross-implicit-dim", "def f() -> a.cross(b):\n    import torch\n    return torch.cross(u, v)\n"),
    ("cross-implicit-dim", "import torch\nif opset_version < 9:\n    x = 1\nw = a.cross(b)\nz = torch.cross(u, v)\n"),
    ("cross-implicit-dim", "if opset_version < 9:\n    import torch\nw = a.cross(b)\n"),
    ("stft-return-complex", "import torch\nNEW_API = is_torch_version('>=', '2.0')\nif NEW_API:\n    b = x.stft(256, return_complex=False)\n"),
    ("torchvision-v2-beta-names", "from torchvision.tv_tensors import BoundingBoxes as BB\nb = BB(x, format='XYXY', spatial_size=s)\nc = BB(x, **kw)\n"),
    ("torchvision-v2-beta-names", "from torchvision import tv_tensors\nb = tv_tensors.BoundingBoxes(x, format='XYXY', canvas_size=s)\n"),
    ("torchvision-v2-beta-names", "from unittest import mock\nwith mock.patch('torchvision.datapoints.Image'):\n    pass\n"),
    ("group-names-to-process-groups", "import torch.distributed._functional_collectives as funcol\n"
     "def f(t, pg, name, cfg):\n    a = funcol.all_reduce(t, 'sum', name)\n    b = funcol.all_reduce(t, 'sum', cfg.group)\n"
     "    c = funcol.broadcast(t, 0, group=get())\n"),  # no argument the transformer acts on: settled
    ("group-names-to-process-groups", "import torch.distributed._functional_collectives as funcol\n"
     "def f(t, pg):\n    name = pg.group_name\n    return funcol.all_reduce(t, 'sum', name)\n"),
    ("group-names-to-process-groups", "import torch.distributed._functional_collectives as funcol\n"
     "def f(t, tp_pg):\n    a = funcol.all_reduce(t, 'sum', group=tp_pg.group_name)\n    b = funcol.all_reduce(t, 'sum', '0')\n"
     "    c = funcol.all_reduce(t, 'sum', [0, 1])\n    d = funcol.all_reduce(t, 'sum', f'{x}')\n    e = funcol.all_reduce(*args)\n"),
    ("group-names-to-process-groups", "import torch.distributed._functional_collectives as funcol\n"
     "def f(t, group_name):\n    return funcol.all_reduce(t, 'sum', group_name)\n"
     "def g(t, pg):\n    group_name = pg.group_name\n    return funcol.all_reduce(t, 'sum', group_name)\n"),
    ("group-names-to-process-groups", "import torch.distributed._functional_collectives as funcol\n"
     "name = pg.group_name\ndef f(t):\n    return funcol.all_reduce(t, 'sum', name)\n"),
    ("group-names-to-process-groups", "import torch.distributed._functional_collectives as funcol\n"
     "def f(t, pg):\n    name = pg.group_name\n    def g():\n        return funcol.all_reduce(t, 'sum', name)\n    return g\n"),
    ("group-names-to-process-groups", "import torch.distributed._functional_collectives as funcol\n"
     "def f(t):\n    return funcol.all_reduce(t, 'sum', name)\ndef g(pg):\n    global name\n    name = pg.group_name\n"),
    ("group-names-to-process-groups", "import torch.distributed._functional_collectives as funcol\n"
     "class C:\n    name = pg.group_name\n    def f(self, t):\n        return funcol.all_reduce(t, 'sum', name)\n"),
    ("magma-preference", "import torch\nb = torch.backends.cuda.preferred_linalg_library()\n"
     "torch.backends.cuda.preferred_linalg_library(b)\ntorch.backends.cuda.preferred_linalg_library('cusolver')\n"),
    ("magma-preference", "import torch\ntorch.backends.cuda.preferred_linalg_library(backend='MAGMA')\n"
     "old = torch.backends.cuda.preferred_linalg_library('magma')\n"),
    ("magma-preference", "from torch.backends.cuda import preferred_linalg_library as p\np(*args)\np(**kw)\np('ma' 'gma')\n"),
    # the evidence that the object is a group, as the transformer asks for it (torch's _functional_collectives.py
    # assigns `group_name = ctx.group_name` in its backward functions: no site, so the file skips this pass's libcst)
    ("group-names-to-process-groups", "import torch.distributed._functional_collectives as funcol\n"
     "def backward(ctx, grad):\n    group_name = ctx.group_name\n    return funcol.all_reduce(grad, 'sum', group_name)\n"
     "def f(t, cfg):\n    return funcol.all_reduce(t, 'sum', cfg.group_name)\n"),
    ("group-names-to-process-groups", "import torch.distributed._functional_collectives as funcol\n"
     "from torch.distributed import new_group as ng\nimport torch.distributed as dist\n"
     "def f(t):\n    world = ng([0, 1])\n    a = funcol.all_reduce(t, 'sum', world.group_name)\n"
     "    b = funcol.all_reduce(t, 'sum', dist.group.WORLD.group_name)\n    c = funcol.all_reduce(t, 'sum', ng().group_name)\n"),
    ("group-names-to-process-groups", "import torch.distributed._functional_collectives as funcol\n"
     "def f(t, world: ProcessGroup, other: 'ProcessGroup', third):\n    a = funcol.all_reduce(t, 'sum', world.group_name)\n"
     "    b = funcol.all_reduce(t, 'sum', other.group_name)\n    return funcol.all_reduce(t, 'sum', third.group_name)\n"),
    ("group-names-to-process-groups", "import torch.distributed._functional_collectives as funcol\n"
     "def f(t, mesh):\n    g = mesh.get_group(0)\n    name = g.group_name\n    return funcol.all_reduce(t, 'sum', name)\n"),
    ("group-names-to-process-groups", "import torch.distributed._functional_collectives as funcol\n"
     "def f(t, ctx):\n    ctx: ProcessGroup = get()\n    name = ctx.group_name\n    return funcol.all_reduce(t, 'sum', name)\n"),
    ("ao-quantization", "from torch.ao.quantization import quantize_fx, QConfig\nfrom torch.quantization import *\n"),
    ("ao-quantization", "from torch.ao.quantization import quantize_pt2e\nfrom . quantization import x\nimport os, torch.quantization.observer\n"),
    ("ao-quantization", "import torch\nq = torch.ao.quantization.quantize_fx.prepare_fx(m)\np = torch.ao.quantization.pt2e.x\nr = f().ao.quantization\n"),
    ("ao-quantization", "import torch as th\nfrom torch import ao\na = th.quantization.QConfig\nb = ao.quantization.QConfig\nc = th.ao.quantization_x\n"),
    ("ao-quantization", "import torch\nif hasattr(torch.ao, 'quantization'):\n    a = torch.ao.quantization.QConfig\nb = (torch.ao).quantization.x\n"),
    ("ao-quantization", "import torch\nQUANT = torch_version_at_least('2.8')\nif QUANT:\n    from torch.ao.quantization import QConfig\n"),
    ("ao-quantization", "import torch\ndef f(mod):\n    if hasattr(mod, 'qconfig'):\n        q = torch.quantization.QConfig\n"),
    ("ao-quantization", "import torch.distributed as dist\nimport torch\nif hasattr(dist, 'x'):\n    q = torch.quantization.QConfig\n"),
    ("ao-quantization", "import torch as th\nif getattr(th.cuda, 'x', None):\n    q = th.quantization.QConfig\n"),
    ("ao-quantization", "from torch import distributed\nif 'x' in dir(distributed.c10d):\n    q = distributed.quantization\n"
     "import torch\nif 'x' in dir(obj):\n    q = torch.quantization.QConfig\n"),
    ("ao-quantization", "import torch\ndef f():\n    ok = torch.__version__ > '2'\n    if ok:\n        q = torch.quantization.QConfig\n"),
    # torch.load assigned to a variable in a scope that calls load_state_dict: the ast settles a read of it that is no
    # state-dict argument, after the assignment, in the scope's own code; anything else stays libcst's
    ("torch-load-weights-only", "import torch\ndef f(opt, p):\n    ckpt = torch.load(p)\n    opt.load_state_dict(ckpt['opt'])\n"),
    ("torch-load-weights-only", "import torch\ndef f(m, p):\n    sd = torch.load(p)\n    m.load_state_dict(sd)\n"),
    ("torch-load-weights-only", "import torch\ndef f(m, p):\n    sd = torch.load(p)\n    m.load_state_dict(state_dict=sd, strict=False)\n"),
    ("torch-load-weights-only", "import torch\ndef f(m, p):\n    sd = torch.load(p)\n    m.load_state_dict(sd)\n    print(len(sd))\n"),
    ("torch-load-weights-only", "import torch\ndef f(m, p):\n    sd = torch.load(p)\n    m.load_state_dict(sd, sd)\n"),
    ("torch-load-weights-only", "import torch\ndef f(m, p):\n    sd = torch.load(p)\n    m.load_state_dict(strict=sd)\n"),
    ("torch-load-weights-only", "import torch\ndef f(m, p):\n    sd = torch.load(p)\n    m.load_state_dict(*sd)\n"),
    ("torch-load-weights-only", "import torch\ndef f(m, p):\n    sd = torch.load(p)\n    m.load_state_dict(sd)\n    sd()\n"),
    ("torch-load-weights-only", "import torch\ndef f(m, p, sd):\n    print(sd)\n    sd = torch.load(p)\n    m.load_state_dict(sd)\n"),
    ("torch-load-weights-only", "import torch\ndef f(m, p):\n    for i in range(2):\n        if i:\n            m.x = sd['k']\n"
     "        sd = torch.load(p)\n        m.load_state_dict(sd)\n"),  # a read earlier in the text: libcst's order
    ("torch-load-weights-only", "import torch\ndef f(m, p):\n    sd = torch.load(p)\n    m.load_state_dict(sd)\n"
     "    g = lambda: sd['k']\n    v = [sd[k] for k in ks]\n    def h():\n        return sd.keys()\n"),
    ("torch-load-weights-only", "import torch\nsd = torch.load(p)\nm.load_state_dict(sd)\nclass C:\n    x = sd['k']\n"),
    ("torch-load-weights-only", "import torch\nsd = torch.load(p)\nm.load_state_dict(sd)\nx = sd['k']\n"),
    ("torch-load-weights-only", "import torch\nclass C:\n    sd = torch.load(p)\n    m.load_state_dict(sd)\n    x = sd['k']\n"),
    ("torch-load-weights-only", "import torch\ndef f(m, p):\n    global sd\n    sd = torch.load(p)\n    m.load_state_dict(sd)\n    x = sd['k']\n"),
    ("torch-load-weights-only", "import torch\ndef f(m, p):\n    sd: dict = torch.load(p)\n    m.load_state_dict(sd)\n    return sd.get('x')\n"),
    ("torch-load-weights-only", "import torch\ndef f(m, p):\n    sd = torch.load(p)\n    sd = {}\n    m.load_state_dict(sd)\n"),
]


@pytest.mark.parametrize(("pass_id", "code"), DETECTOR_CASES)
def test_detector_corner_cases_give_the_transformers_results(pass_id: str, code: str) -> None:
    fast, slow = both_ways(code, [get_pass(pass_id)])
    assert fast == slow


def test_a_loaded_checkpoint_read_for_its_parts_is_settled_from_the_ast() -> None:
    """``ckpt = torch.load(p)`` then ``opt.load_state_dict(ckpt["opt"])``: the variable is read other than as a state
    dict, so the load does not feed ``load_state_dict`` and the finding comes from the ast (torch's
    ``distributed_test.py`` and ``common_quantization.py`` went to libcst for it); a variable given whole stays an
    edit site."""
    pass_ = get_pass("torch-load-weights-only")
    read = "import torch\ndef f(opt, p):\n    ckpt = torch.load(p)\n    opt.load_state_dict(ckpt['opt'])\n"
    whole = "import torch\ndef f(m, p):\n    sd = torch.load(p)\n    m.load_state_dict(sd)\n"
    plan = pass_.analyse(read, ast.parse(read))
    assert not plan.has_edits and [(f.line, f.col) for f in plan.findings] == [(3, 12)]
    assert pass_.analyse(whole, ast.parse(whole)).has_edits


@pytest.mark.parametrize(
    ("code", "uncertain"),
    [
        ("def f(mod):\n    if hasattr(mod, 'qconfig'):\n        pass\n", False),  # a parameter: never torch
        ("if getattr(self.cfg, 'x', None):\n    pass\n", False),
        ("import torch.distributed as dist\nif hasattr(dist, 'x'):\n    pass\n", True),  # an import binds it
        ("from torch import nn\nif hasattr(nn.functional.f(), 'x'):\n    pass\n", True),
        ("def f():\n    FLAG = torch_check()\n    if FLAG:\n        pass\n", False),  # flags are module-level names
        ("FLAG = torch_check()\nif FLAG:\n    pass\n", True),
    ],
)
def test_only_a_statement_the_fuller_guard_rule_may_take_for_a_guard_is_uncertain(code: str, uncertain: bool) -> None:
    """Where a detector's findings are not trusted (the file goes to libcst): presence tests of an object an import
    binds, names a module-level assignment may make a version flag (torch's ``common_quantization.py`` went to libcst
    for ``hasattr(mod, ...)`` on a parameter)."""
    file = AstFile(code, ast.parse(code))
    statement = next(n for n in ast.walk(file.tree) if isinstance(n, ast.If))
    assert not file.is_version_guard(statement)
    assert bool(file.uncertain_lines) is uncertain


def test_a_group_name_parameter_is_no_site_because_another_function_assigns_the_name() -> None:
    """torch's ``_symmetric_memory/__init__.py`` takes ``group_name`` as a parameter in many functions and assigns
    ``group_name = group.group_name`` in one: only a use that can see that assignment is an edit site."""
    pass_ = get_pass("group-names-to-process-groups")
    head = "import torch.distributed._functional_collectives as funcol\n"
    param = "def f(t, group_name):\n    return funcol.all_reduce(t, 'sum', group_name)\n"
    assigned = "def g(t, pg):\n    group_name = pg.group_name\n    return funcol.all_reduce(t, 'sum', group_name)\n"
    other = "def h(pg):\n    group_name = pg.group_name\n    return group_name\n"
    assert not pass_.analyse(head + param + other, ast.parse(head + param + other)).has_edits
    assert pass_.analyse(head + assigned, ast.parse(head + assigned)).has_edits


def test_a_group_name_of_an_object_that_shows_no_group_is_no_site() -> None:
    """``ctx.group_name`` (an autograd context that saved the name) is left alone by the transformer, given directly
    or through a variable: the ast settles such a file, as it does torch's ``_functional_collectives.py``; the same
    code on a parameter named as a group is an edit site."""
    pass_ = get_pass("group-names-to-process-groups")
    head = "import torch.distributed._functional_collectives as funcol\n"
    for obj, edits in (("ctx", False), ("pg", True)):
        direct = head + f"def f(t, {obj}):\n    return funcol.all_reduce(t, 'sum', {obj}.group_name)\n"
        variable = head + f"def f(t, {obj}):\n    name = {obj}.group_name\n    return funcol.all_reduce(t, 'sum', name)\n"
        for code in (direct, variable):
            assert pass_.analyse(code, ast.parse(code)).has_edits is edits, code


def test_the_qualname_shortcut_answers_as_the_scope_analysis() -> None:
    """``AstFile.qualname`` skips ``AstNames`` for an expression rooted at a name no import binds: on every name,
    attribute, call and subscript of the pass examples, the answer is ``AstNames``'."""
    from torchmigrate.python.names import AstNames

    texts = [e.before for p in all_passes() if p.files == "python" for e in p.examples if e.before]
    texts.append("import torch as th\nfrom a import *\ndef f(torch):\n    return torch.load(p), th.load(p), load(p)[0]\n")
    asked = 0
    for text in texts:
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        file, names = AstFile(text, tree), AstNames(tree)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)):
                asked += 1
                assert file.qualname(node) == names.qualname(node), ast.unparse(node)
    assert asked > 1000


def test_the_statement_walk_is_the_shared_walk_of_statements() -> None:
    """``AstFile.statements`` (what ``notimplemented-error-type`` walks for its ``try`` statements) gives the statements,
    handlers and ``case`` clauses of the shared walk, in its order, version-guarded code skipped the same way."""
    from pathlib import Path

    import torchmigrate

    texts = [e.before for p in all_passes() if p.files == "python" for e in p.examples if e.before]
    texts += [f.read_text(encoding="utf-8") for f in sorted(Path(torchmigrate.__file__).parent.rglob("*.py"))[::4]]
    texts.append(
        "import torch\nif torch.__version__ >= '2':\n    try:\n        x()\n    except NotImplementedError:\n        pass\n"
        "match y:\n    case 1:\n        try:\n            z()\n        except (NotImplementedError, OSError):\n            pass\n"
    )
    kinds = (ast.stmt, ast.ExceptHandler, ast.match_case)
    compared = 0
    for text in texts:
        tree = ast.parse(text)
        expected = [n for n in AstFile(text, tree).walk() if isinstance(n, kinds)]
        assert list(AstFile(text, tree).statements()) == expected
        compared += len(expected)
    assert compared > 5_000


def test_a_calls_and_a_dicts_children_come_in_source_order() -> None:
    """The shared walk orders a call's arguments and a dict's keys and values as written: the fields' order where no
    ``*args`` follows a keyword, by position where one does (``f(k=1, *a)``)."""
    from pathlib import Path

    import torchmigrate
    from torchmigrate.python.sites import children_in_source_order

    texts = [
        "f(a, k=1, *b, **c)\nf(*a, k=1)\nf(k=1, *a, j=2, *b)\nf(k=1, **c)\nd = {**a, 'b': 1, **c, 'd': {}}\n",
        "f(\n    k=1,\n    *args,\n)\ng(x)(y, z=1)\n",
    ]
    texts += [e.before for p in all_passes() if p.files == "python" for e in p.examples if e.before]
    texts += [f.read_text(encoding="utf-8") for f in sorted(Path(torchmigrate.__file__).parent.rglob("*.py"))[::2]]
    compared = 0
    for text in texts:
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.Call, ast.Dict)):
                parts = [*node.keys, *node.values] if isinstance(node, ast.Dict) else [*node.args, *node.keywords]
                expected = [node.func] if isinstance(node, ast.Call) else []
                expected += sorted((p for p in parts if p is not None), key=lambda p: (p.lineno, p.col_offset))
                assert children_in_source_order(node) == expected, ast.unparse(node)
                compared += 1
    assert compared > 5_000


def test_the_shared_walk_leaves_out_only_contexts_operators_and_guarded_code() -> None:
    """Under every node of the shared walk, each child of the stdlib's is walked too, except a name's ``Load`` /
    ``Store`` context and an operation's operator (no detector looks for them) and version-guarded code."""
    from pathlib import Path

    import torchmigrate

    singletons = (ast.expr_context, ast.operator, ast.unaryop, ast.boolop, ast.cmpop)
    texts = [e.before for p in all_passes() if p.files == "python" for e in p.examples if e.before]
    texts += [f.read_text(encoding="utf-8") for f in sorted(Path(torchmigrate.__file__).parent.rglob("*.py"))[::4]]
    left_out = walked_count = 0
    for text in texts:
        file = AstFile(text, ast.parse(text))
        walked = list(file.walk())
        ids = {id(n) for n in walked}
        walked_count += len(walked)
        for node in walked:
            for child in ast.iter_child_nodes(node):
                guarded = isinstance(child, (ast.If, ast.IfExp, ast.Try)) and file.is_version_guard(child)
                if isinstance(child, singletons) or guarded:
                    assert id(child) not in ids, ast.dump(child)
                    left_out += 1
                else:
                    assert id(child) in ids, ast.dump(child)
    assert walked_count > 50_000 and left_out > 10_000
