"""The engine hook for passes that decide from the stdlib ast (``Pass.analyse``): findings without libcst, libcst only
for a planned edit, the same result with and without the precheck, suppression comments and pass order kept."""

from __future__ import annotations

import ast
from dataclasses import dataclass

import libcst as cst

from torchmigrate.core.passes import SAFE, Pass
from torchmigrate.core.registry import get_pass
from torchmigrate.core.results import Finding
from torchmigrate.python import engine
from torchmigrate.python.engine import migrate_text
from torchmigrate.python.transform import PassTransformer


@dataclass(frozen=True)
class _Plan:
    findings: tuple[Finding, ...]
    edit_line: int | None = None

    @property
    def has_edits(self) -> bool:
        return self.edit_line is not None


def _analyse(text: str, tree: ast.Module) -> _Plan:
    """A finding at every call of ``flagged``; an edit planned at ``rename_me(...)`` calls."""
    found = [Finding(n.lineno, n.col_offset + 1, "demo-ast", "flagged") for n in ast.walk(tree) if _called(n, "flagged")]
    edit = next((n.lineno for n in ast.walk(tree) if _called(n, "rename_me")), None)
    return _Plan(tuple(sorted(found)), edit)


def _called(node: ast.AST, name: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name


class _Rename(PassTransformer):
    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        assert isinstance(self.plan, _Plan) and self.plan.has_edits  # the engine hands the plan over
        if original_node.value != "rename_me":
            return updated_node
        self.edited(original_node, "renamed")
        return updated_node.with_changes(value="renamed")


DEMO = Pass(id="demo-ast", release="2.10", safety=SAFE, title="demo", evidence="-", triggers=("flagged", "rename_me"))
DEMO.analyse = _analyse
DEMO.uses(_Rename)


def test_findings_come_from_the_ast_alone() -> None:
    code = "flagged(1)\nx = 2  # flagged\nflagged(3)  # migrate: ignore[demo-ast]\n"
    before = engine.PARSES.count
    result = migrate_text(code, [DEMO])
    assert engine.PARSES.count == before  # libcst never parsed the file
    assert [(f.line, f.col) for f in result.findings] == [(1, 1)] and result.new == code
    assert migrate_text(code, [DEMO], precheck=False).findings == result.findings


def test_libcst_runs_only_for_a_planned_edit_and_reports_the_plan_findings() -> None:
    code = "flagged(1)\nrename_me(2)\n"
    before = engine.PARSES.count
    result = migrate_text(code, [DEMO])
    assert engine.PARSES.count == before + 1
    assert result.code == "flagged(1)\nrenamed(2)\n" and len(result.edits) == 1 and len(result.findings) == 1
    slow = migrate_text(code, [DEMO], precheck=False)
    assert (slow.code, slow.edits, slow.findings) == (result.code, result.edits, result.findings)


def test_settled_findings_keep_pass_order_next_to_other_passes() -> None:
    other = get_pass("export-for-training")
    code = "import torch\nflagged(1)\nep = torch.export.export_for_training(m, (x,))\n"
    passes = sorted([other, DEMO], key=lambda p: p.version)  # 2.10 before 2.11
    result = migrate_text(code, passes)
    assert [f.pass_id for f in result.findings] == ["demo-ast"]
    assert "torch.export.export(m, (x,))" in result.code
    slow = migrate_text(code, passes, precheck=False)
    assert (slow.code, slow.findings) == (result.code, result.findings)


def _parses(text: str, pass_id: str) -> int:
    before = engine.PARSES.count
    migrate_text(text, [get_pass(pass_id)])
    return engine.PARSES.count - before


def test_call_rewriters_are_bounded_by_their_calls_on_the_ast() -> None:
    """lr-verbose is call rewriters only: a file that imports the schedulers' module but calls none of its classes
    with a possible `verbose` (its ``call_filter``) never reaches libcst; one that does, does."""
    header = "import torch\nfrom torch.optim import lr_scheduler\n\n"
    assert _parses(header + "def make(opt):\n    return lr_scheduler.StepLR(opt, 10)\n", "lr-verbose") == 0
    assert _parses(header + "s = lr_scheduler.StepLR(opt, 10, verbose=True)\n", "lr-verbose") == 1
    assert _parses(header + "s = lr_scheduler.StepLR(opt, 10, 0.1, -1, True)\n", "lr-verbose") == 1  # positional
    assert _parses(header + "s = lr_scheduler.StepLR(opt, **kwargs)\n", "lr-verbose") == 0  # the rewriter leaves it


def test_detectors_settle_files_whose_trigger_words_are_no_site() -> None:
    sampler = "from torch.utils.data import Sampler, RandomSampler\n\n"
    assert _parses(sampler + "class S(RandomSampler):\n    def __init__(self, d):\n        super().__init__(d)\n", "sampler-init") == 0
    assert _parses(sampler + "class S(Sampler):\n    def __init__(self, d):\n        super().__init__()\n", "sampler-init") == 0
    assert _parses(sampler + "class S(Sampler):\n    def __init__(self, d):\n        super().__init__(d)\n", "sampler-init") == 1
    nested = "def make():\n    try:\n        class S(Sampler):\n            def __init__(self, d):\n                super().__init__(d)\n    except ImportError:\n        pass\n"
    assert _parses(sampler + nested, "sampler-init") == 1  # a class in a function's try block is found too
    assert _parses(sampler + "sampled = RandomSampler(data)\n", "sampler-init") == 0  # no class subclasses Sampler
    rank = "import argparse, os\n\nparser = argparse.ArgumentParser()\n"
    assert _parses(rank + "local_rank = int(os.environ['LOCAL_RANK'])\n", "local-rank-argument") == 0
    assert _parses(rank + "parser.add_argument('--local_rank', type=int)\n", "local-rank-argument") == 1
    norm = "import torch\n\n"
    assert _parses(norm + "def f(layer, x):\n    return layer.norm(x)\n", "torch-norm") == 0  # not visibly a tensor
    assert _parses(norm + "def f(x: torch.Tensor):\n    return x.norm()\n", "torch-norm") == 1
    cat = "import torch\n\n"
    assert _parses(cat + "try:\n    y = torch.stack(xs)\nexcept RuntimeError:\n    y = None\n", "cat-error-type") == 0
    found = migrate_text(cat + "try:\n    y = torch.cat(xs)\nexcept RuntimeError:\n    y = None\n", [get_pass("cat-error-type")])
    assert [(f.line, f.col) for f in found.findings] == [(5, 1)]  # from the ast alone: exact, as the transformer's


def test_torchrun_port_reaches_libcst_only_where_a_command_can_be() -> None:
    # the pass reports torchrun commands in files that mention 29500; a file whose 29500 is a MASTER_PORT default and
    # that spells no torchrun and no torch.distributed is settled from the text and the ast
    pass_ = get_pass("torchrun-port")
    port = "import os\n\nos.environ.setdefault('MASTER_PORT', '29500')\n"
    assert _parses(port + "print('ready')\n", "torchrun-port") == 0
    launches = [
        port + "cmd = ['torchrun', '--nproc-per-node=2', 'train.py']\n",
        port + "cmd = 'torch' 'run --nproc-per-node=2 train.py'\n",  # one string in the ast, as libcst joins it
        port + "cmd = ['python', '-m', 'torch.distrib\\x75ted.run', 'train.py']\n",  # an escape spells it
    ]
    for code in launches:
        assert _parses(code, "torchrun-port") == 1
        result = migrate_text(code, [pass_])
        assert len(result.findings) == 1, code
        assert result.findings == migrate_text(code, [pass_], precheck=False).findings


def test_findings_the_ast_settles_never_reach_libcst() -> None:
    """checkpoint-reentrant and torch-load-weights-only report from the ast where nothing in view can change the
    answer; where a variable may still feed `load_state_dict`, or `**kwargs` may set the argument, libcst decides."""
    load = "import torch\n\n"
    assert _parses(load + "def restore(path):\n    ckpt = torch.load(path)\n    return ckpt['model']\n", "torch-load-weights-only") == 0
    assert _parses(load + "def restore(m, path):\n    sd = torch.load(path)\n    m.load_state_dict(sd)\n", "torch-load-weights-only") == 1
    assert _parses(load + "def restore(path, **kw):\n    return torch.load(path, **kw)\n", "torch-load-weights-only") == 0
    # bound twice in its scope (speechbrain's parameter transfer): libcst's scope has two assignments, so a finding
    twice = "def restore(m, path):\n    sd = m.convert(path)\n    if sd is None:\n        sd = torch.load(path)\n    m.load_state_dict(sd)\n"
    assert _parses(load + twice, "torch-load-weights-only") == 0
    assert _parses(load + "def restore(m, sd):\n    sd = torch.load(sd)\n    m.load_state_dict(sd)\n", "torch-load-weights-only") == 0
    looped = "def restore(m, paths):\n    for sd in paths:\n        pass\n    sd = torch.load(sd)\n    m.load_state_dict(sd)\n"
    assert _parses(load + looped, "torch-load-weights-only") == 0
    for other in ("def sd():\n        pass\n", "sd: dict\n", "[sd for sd in ()]\n"):  # not counted by the ast: libcst decides
        once = f"def restore(m, path):\n    {other}    sd = torch.load(path)\n    m.load_state_dict(sd)\n"
        assert _parses(load + once, "torch-load-weights-only") == 1, other
    assert [(f.line, f.col) for f in migrate_text(load + twice, [get_pass("torch-load-weights-only")]).findings] == [(6, 14)]
    # torch.load as a value: a parameter's default (speechbrain's average_checkpoints) is a finding from the ast alone;
    # an argument (functools.partial, inspect) is libcst's to judge; an attribute or an assignment target is nothing
    default = "def average(paths, loader=torch.load):\n    return [loader(p) for p in paths]\n"
    assert _parses(load + default, "torch-load-weights-only") == 0
    found = migrate_text(load + default, [get_pass("torch-load-weights-only")]).findings
    assert [(f.line, f.col, f.message.split(",")[0]) for f in found] == [(3, 27, "torch.load passed as a value")]
    for quiet in ("doc = torch.load.__doc__\n", "torch.load = patched\n", "same = f is torch.load\n"):
        assert _parses(load + quiet, "torch-load-weights-only") == 0, quiet
        assert not migrate_text(load + quiet, [get_pass("torch-load-weights-only")]).findings, quiet
    assert _parses(load + "import functools\nf = functools.partial(torch.load, weights_only=True)\n", "torch-load-weights-only") == 1
    assert _parses(load + "def restore(path, **kw):\n    kw.setdefault('weights_only', True)\n    return torch.load(path, **kw)\n", "torch-load-weights-only") == 1
    ckpt = "from torch.utils.checkpoint import checkpoint\n\n"
    assert _parses(ckpt + "def run(fn, *args, **kwargs):\n    return checkpoint(fn, *args, **kwargs)\n", "checkpoint-reentrant") == 0
    assert _parses(ckpt + "def run(fn, x):\n    return checkpoint(fn, x)\n", "checkpoint-reentrant") == 1  # an edit
    found = migrate_text(load + "def restore(path):\n    return torch.load(path)\n", [get_pass("torch-load-weights-only")])
    assert [(f.line, f.col) for f in found.findings] == [(4, 12)]


def test_amp_namespace_reaches_libcst_only_for_a_name_it_rewrites_or_reports() -> None:
    """amp-namespace keeps files that reach ``torch.cuda.amp`` in play (its ``qualnames``); a file that only names
    other members (speechbrain's checkpoint hooks: ``torch.cuda.amp.grad_scaler.GradScaler``) or uses the old names
    only behind a version check is settled without libcst. Every spelling of a rewritten name still reaches it."""
    torch_ = "import torch\n\n"
    assert _parses(torch_ + "HOOKS[torch.cuda.amp.grad_scaler.GradScaler] = save\n", "amp-namespace") == 0
    guarded = "if torch.__version__ < '2.4':\n    s = torch.cuda.amp.GradScaler()\nelse:\n    s = torch.amp.GradScaler('cuda')\n"
    assert _parses(torch_ + guarded, "amp-namespace") == 0
    assert _parses(torch_ + "s = torch.cuda.amp.GradScaler()\n", "amp-namespace") == 1
    assert _parses("from torch.cuda.amp import autocast as ac\n\nwith ac():\n    pass\n", "amp-namespace") == 1
    assert _parses("from torch.cuda import amp\n\nwith amp.autocast():\n    pass\n", "amp-namespace") == 1
    assert _parses("from torch.cuda.amp import custom_fwd\n\n@custom_fwd\ndef f(ctx, x):\n    pass\n", "amp-namespace") == 1
    assert _parses(torch_ + "def step(s: torch.cpu.amp.GradScaler) -> None:\n    pass\n", "amp-namespace") == 1
    assert _parses(torch_ + "ctx = torch.cuda.amp.autocast if amp else None\n", "amp-namespace") == 1  # a finding
