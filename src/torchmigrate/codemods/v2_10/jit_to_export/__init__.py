"""TorchScript (`torch.jit.trace` / `script` / `save` / `load`) is deprecated since PyTorch 2.10: use eager code, `torch.export` or `torch.compile`.

## What it does
Where TorchScript only speeds up or captures code that this file owns:
- `@torch.jit.script` on a function is removed: the function runs eagerly, with the same results (no C compiler, no
  recompiles for new input lengths). `f = torch.jit.script(f)` goes; `g = torch.jit.script(obj)` whose result is only
  called becomes `g = obj`; an `nn.Module` scripted inside a function and then called in a loop becomes
  `torch.compile(obj)`.
- `traced = torch.jit.trace(model, x)` of a visible `nn.Module` instance (built from a `torch.nn` class or a module
  class of this file, or a parameter annotated `torch.nn.Module`), whose result is only called with the example's own
  inputs, becomes `torch.export.export(model, (x,)).module()`. A tuple of example inputs stays the tuple, one input
  becomes a 1-tuple, a list `[a, b]` becomes `(a, b)`; `example_kwarg_inputs=` becomes `kwargs=`; `check_trace`,
  `check_inputs`, `check_tolerance`, `strict` and `optimize` have no equivalent and are dropped (the edit says so).
- A trace → save → load round trip within the file (`torch.jit.save(traced, path)` or `traced.save(path)`, and a
  `torch.jit.load` of the same path expression, formatting ignored) keeps the `ExportedProgram`: the save becomes
  `torch.export.save`, the load `torch.export.load(path).module()`, calls of the program `traced.module()(x)`.

Nothing else is rewritten, and nothing in a file that keeps any TorchScript: no file mixes eager or exported code with
TorchScript tracing or scripting of it (a scripted helper called by a traced model records its branches; a plain one
does not).

**Where TorchScript is the contract, the pass is silent** (no edit, no finding): an archive written for readers outside
the file (`torch.jit.save` not loaded back here: C++ `torch::jit::load`, a serving stack) or read from one; a result
that escapes (returned, passed on, stored, its TorchScript API used: `.graph`, `.code`, `.save`); test modules (a test
that scripts or traces checks TorchScript support); files that patch, tune or extend TorchScript (private
`torch.jit._*` / `torch._C._jit_*` APIs, `torch.jit` attributes assigned, TorchScript types such as
`torch.jit.ScriptModule` named, TorchScript warnings filtered); a function scripted on purpose, as its name or an
attached comment says (`fused_bias_gelu`, `# scripting this speeds the model up 1.4x`). Harmless helpers — `torch.jit.is_scripting()`,
`is_tracing()`, `annotate`, `Final`, `@torch.jit.ignore` / `unused` / `export` — are not sites at all.

**Findings** say what blocks a rewrite the pass would otherwise make, and what to do:
- `trace` of something not visibly an `nn.Module` instance (a function, a bound method, an attribute or a parameter of
  unknown type): wrap it in a small `nn.Module` (or annotate the parameter), since `torch.export.export` takes only
  modules;
- a traced result called with inputs whose shapes are not visibly the example's: `torch.export.export` specializes to
  the example's shapes, so name the varying dimensions with `dynamic_shapes=`;
- an example input whose kind (one tensor or a tuple) cannot be seen; data-dependent control flow or
  `torch.jit.is_tracing()` in the `forward` of a traced model of this file (use `torch.cond`); a scripted function that
  asks `torch.jit.is_scripting()` (the other branch would run eagerly);
- legacy TorchScript-only forms, once each: a `torch.jit.ScriptModule` subclass, `@torch.jit.script_method` outside a
  visible one, a TorchScript class (`@torch.jit.script` on a class).

## Why
PyTorch 2.10 deprecated the user-facing `torch.jit` API (pytorch/pytorch#167669): TorchScript is not guaranteed to
work on Python 3.14, and `torch.jit.trace/script/save/load` warn "`torch.jit.trace` is deprecated. Please switch to
`torch.compile` or `torch.export`." (checked on 2.13.0, where they still exist). Scripting a small function only to
speed it up costs more under `torch.compile` than it saves (a compile per new input length, a C compiler at run time:
ten calls with varying input lengths took 34.5 s compiled against 0.1 s scripted), so the eager function is the
replacement; `torch.export` is the whole-graph capture that replaces tracing.

## Fix safety
Review. Eager functions and exported programs compute the same results (the semantic tests run both on torch), but an
exported program is not a TorchScript module: see "What to review". Code that cannot be migrated without guessing is
reported, never edited.
"""

from __future__ import annotations

from torchmigrate.core.passes import DEPRECATION, REVIEW, Example, Pass

from .analysis import ID, LOAD, SCRIPT, SCRIPT_METHOD, SCRIPT_MODULES, TRACE, analyse
from .rewrite import JitRewrite

REVIEW_NOTE = """\
- A dropped `@torch.jit.script` runs the function eagerly: same results, no TorchScript fusion. Where a fused kernel
  mattered, compile the caller (`torch.compile(model)`), not each small helper. Another file that traces a model
  calling the function now records the function's branches for the example it traced with.
- Static shapes: `torch.export.export` specializes the program to the example's shapes. A traced module often
  accepted another batch size; the exported one raises "Guard failed: x.size()[0] == 2". The pass rewrites only calls
  with the example's own inputs; other callers need `dynamic_shapes=`, e.g.
  `torch.export.export(model, (x,), dynamic_shapes=({0: torch.export.Dim.AUTO},))`.
- An `ExportedProgram` is not callable: call `ep.module()(x)`. The module it returns cannot switch modes:
  `.module().train()` and `.module().eval()` raise NotImplementedError — export the model in the mode you need.
- Dropped arguments: `check_trace`, `check_inputs`, `check_tolerance`, `strict` (TorchScript's container check, not
  export's `strict=`) and `optimize` have no equivalent. `torch.compile(obj)` compiles on the first call and again
  for new shapes; on CPU it needs a C compiler.
- Saved files are now torch.export archives (conventionally `.pt2`): `torch.export.load` reads only those. The pass
  rewrites a save only when this file reads the same path back."""

PASS = Pass(
    id=ID,
    release="2.10",
    kind=DEPRECATION,  # still present (with a DeprecationWarning) in 2.13: also runs for projects already on 2.10+
    safety=REVIEW,
    since="2.2",
    title="torch.jit: drop @script, trace/save/load → torch.export (where TorchScript is not the contract)",
    evidence=(
        "PyTorch 2.10 release notes, jit deprecations (pytorch/pytorch#167669); DeprecationWarnings and "
        "torch.export signatures checked on torch 2.13.0 (torch/jit/_trace.py, _script.py, _serialization.py); "
        "since 2.2: ExportedProgram.module() (torch 2.2.2 wheel, torch/export/exported_program.py:349) and "
        "export(strict=); torch.export.save/load from 2.1"
    ),
    triggers=("jit",),
    qualnames=frozenset({TRACE, SCRIPT, SCRIPT_METHOD, LOAD, *SCRIPT_MODULES}),
    sliceable=False,  # a rewrite follows a traced or scripted object to its definition, wherever that is in the file
    analyse=analyse,
    review_note=REVIEW_NOTE,
    examples=[
        Example(
            title="@torch.jit.script on a function: the decorator goes",
            before="""
                import torch


                @torch.jit.script
                def gelu(x):
                    return x * torch.sigmoid(1.702 * x)


                activation = gelu
            """,
            after="""
                import torch


                def gelu(x):
                    return x * torch.sigmoid(1.702 * x)


                activation = gelu
            """,
        ),
        Example(
            title="from torch.jit import script, a comment above the decorator, and f = script(f)",
            before="""
                import torch
                from torch.jit import script


                # the swish activation
                @script
                def swish(x):
                    return x * x.sigmoid()


                def mish(x):
                    return x * x.exp().log1p().tanh()


                mish = script(mish)
            """,
            after="""
                import torch


                # the swish activation
                def swish(x):
                    return x * x.sigmoid()


                def mish(x):
                    return x * x.exp().log1p().tanh()
            """,
        ),
        Example(
            title="a module of this file, traced and called with the example",
            before="""
                import torch


                class Net(torch.nn.Module):
                    def forward(self, x):
                        return torch.relu(x)


                model = Net().eval()
                x = torch.randn(2, 4)
                traced = torch.jit.trace(model, x)
                y = traced(x)
            """,
            after="""
                import torch


                class Net(torch.nn.Module):
                    def forward(self, x):
                        return torch.relu(x)


                model = Net().eval()
                x = torch.randn(2, 4)
                traced = torch.export.export(model, (x,)).module()
                y = traced(x)
            """,
        ),
        Example(
            title="trace, save and load back in one file: the ExportedProgram is kept",
            before="""
                import torch

                model = torch.nn.Linear(3, 3)
                a = torch.randn(1, 3)
                traced = torch.jit.trace(model, (a,), check_trace=False)
                out = traced(a)
                torch.jit.save(traced, "model.pt")
                loaded = torch.jit.load("model.pt")
                out2 = loaded(a)
            """,
            after="""
                import torch

                model = torch.nn.Linear(3, 3)
                a = torch.randn(1, 3)
                traced = torch.export.export(model, (a,))
                out = traced.module()(a)
                torch.export.save(traced, "model.pt")
                loaded = torch.export.load("model.pt").module()
                out2 = loaded(a)
            """,
        ),
        Example(
            title="import torch as th, from torch import jit, an annotated parameter, .save and a load elsewhere",
            before="""
                import torch as th
                from torch import jit


                def save(model: th.nn.Module, example: th.Tensor, path):
                    traced = jit.trace(model, example)
                    traced.save(path)


                def load(path):
                    return jit.load(path)
            """,
            after="""
                import torch as th


                def save(model: th.nn.Module, example: th.Tensor, path):
                    traced = th.export.export(model, (example,))
                    th.export.save(traced, path)


                def load(path):
                    return th.export.load(path).module()
            """,
        ),
        Example(
            title="example_kwarg_inputs and a list of inputs, from torch.jit import trace as tr",
            before="""
                from torch import nn
                from torch.jit import trace as tr

                model = nn.Bilinear(2, 2, 2)
                f = tr(model, example_kwarg_inputs={'input1': x, 'input2': y})
                g = tr(model, [x, y], strict=False)
                f(input1=x, input2=y), g(x, y)
            """,
            after="""
                from torch import nn
                from torch.export import export

                model = nn.Bilinear(2, 2, 2)
                f = export(model, (), kwargs={'input1': x, 'input2': y}).module()
                g = export(model, (x, y)).module()
                f(input1=x, input2=y), g(x, y)
            """,
        ),
        Example(
            title="a module scripted in a function and called in a loop: torch.compile",
            before="""
                import torch


                def run(batches):
                    model = torch.nn.Linear(4, 2)
                    fast = torch.jit.script(model)
                    return [fast(b) for b in batches]
            """,
            after="""
                import torch


                def run(batches):
                    model = torch.nn.Linear(4, 2)
                    fast = torch.compile(model)
                    return [fast(b) for b in batches]
            """,
        ),
        Example(
            title="a traced result called with other shapes: finding naming dynamic_shapes=",
            before="""
                import torch


                def infer(model: torch.nn.Module, loader):
                    traced = torch.jit.trace(model, torch.randn(1, 3, 224, 224))
                    for images in loader:
                        yield traced(images)
            """,
            findings=1,
        ),
        Example(
            title="tracing a function or a bound method: finding (wrap it in a module)",
            before="""
                import torch


                def scale(x):
                    return x * 2


                fast = torch.jit.trace(scale, (torch.ones(3),))
                y = fast(torch.ones(3))
            """,
            findings=1,
        ),
        Example(
            title="the example input's kind is not visible: finding",
            before="""
                import torch


                def speed_up(model: torch.nn.Module, example):
                    fast = torch.jit.trace(model, example)
                    return fast(example)
            """,
            findings=1,
        ),
        Example(
            title="an archive for readers elsewhere (C++, serving): TorchScript is the contract, nothing to do",
            before="""
                import torch


                def export_torchscript(model, im, path):
                    ts = torch.jit.trace(model, im, strict=False)
                    ts.save(path)
            """,
        ),
        Example(
            title="a test of TorchScript support, a loaded archive, a result that escapes: nothing to do",
            before="""
                import torch


                def load(path):
                    return torch.jit.load(path, map_location="cpu")


                def test_scriptable():
                    model = torch.nn.Linear(2, 2)
                    scripted = torch.jit.script(model)
                    assert torch.equal(scripted(torch.ones(2)), model(torch.ones(2)))
            """,
        ),
        Example(
            title="data-dependent control flow in the traced model's forward: finding",
            before="""
                import torch


                class Gate(torch.nn.Module):
                    def forward(self, x, scale: float = 1.0):
                        if x.sum() > 0:
                            return x * scale
                        return -x


                x = torch.ones(3)
                traced = torch.jit.trace(Gate(), x)
                traced(x)
            """,
            findings=1,
        ),
        Example(
            title="a ScriptModule subclass: one finding, and the file keeps its TorchScript",
            before="""
                import torch


                class Old(torch.jit.ScriptModule):
                    @torch.jit.script_method
                    def forward(self, x):
                        return helper(x)


                @torch.jit.script
                def helper(x):
                    return x + 1
            """,
            findings=1,
        ),
        Example(
            title="scripted on purpose, as its name or a comment says: nothing to do",
            before="""
                import torch


                # Scripting this brings model speed up 1.4x
                @torch.jit.script
                def snake(x, alpha):
                    return x + (alpha + 1e-9).reciprocal() * (alpha * x).sin().pow(2)


                @torch.jit.script
                def fused_bias_gelu(bias, y):
                    x = bias + y
                    return x * 0.5 * (1.0 + torch.tanh(0.79788456 * x * (1 + 0.044715 * x * x)))
            """,
        ),
        Example(
            title="a file that tunes TorchScript's fuser keeps its scripting: nothing to do",
            before="""
                import torch

                torch._C._jit_set_profiling_mode(False)


                @torch.jit.script
                def fused(x):
                    return x * 2
            """,
        ),
        Example(
            title="harmless helpers and look-alikes: self.trace(...), user functions named trace and script",
            before="""
                import torch


                def trace(m, x):
                    return m


                def script(f):
                    return f


                class Net(torch.nn.Module):
                    @torch.jit.ignore
                    def debug(self, x):
                        return x

                    @torch.jit.unused
                    def slow(self, x):
                        return x

                    def forward(self, x):
                        jit = self.trace(self, x)
                        if torch.jit.is_scripting() or torch.jit.is_tracing():
                            return script(jit), trace(self, x), module.script()
                        return torch.jit.annotate(int, 3)
            """,
        ),
    ],
)

PASS.uses(JitRewrite)
