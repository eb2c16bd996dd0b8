"""`torch.cuda.amp` / `torch.cpu.amp` are deprecated since PyTorch 2.4: use the device-generic `torch.amp`.

## What it does
- `torch.cuda.amp.autocast(True, torch.bfloat16)` → `torch.amp.autocast("cuda", enabled=True, dtype=torch.bfloat16)`:
  the old positional parameters (`enabled, dtype, cache_enabled`) become keywords, because `torch.amp.autocast`'s
  first parameter is the device type (`torch.amp.autocast(True)` is a `ValueError`). `torch.cpu.amp.autocast` → `"cpu"`.
- `torch.cuda.amp.GradScaler(...)` → `torch.amp.GradScaler("cuda", ...)` (the device is the new first parameter, so the
  other positional arguments keep their meaning); `torch.cpu.amp.GradScaler` → `"cpu"`.
- `@torch.cuda.amp.custom_fwd(cast_inputs=dt)` → `@torch.amp.custom_fwd(device_type="cuda", cast_inputs=dt)`; the bare
  decorators `@custom_fwd` / `@custom_bwd` become calls `@torch.amp.custom_fwd(device_type="cuda")`.
- All import forms resolve: `from torch.cuda.amp import autocast`, `from torch.cuda import amp` (`amp.autocast()`),
  `import torch.cuda.amp as amp`; an import left unused is removed. A class or function of your own named `autocast`
  or `amp` is never touched; nor is code behind a version check or an `ImportError` fallback.
- Annotations (`scaler: torch.cuda.amp.GradScaler`) are renamed; any other use of these names as a value
  (`ctx = torch.cuda.amp.autocast if amp else nullcontext`) gets a finding.

## Why
PyTorch 2.4 deprecated the per-device AMP entry points with a FutureWarning: "`torch.cuda.amp.autocast(args...)` is
deprecated. Please use `torch.amp.autocast('cuda', args...)` instead.", likewise for
`GradScaler`, `custom_fwd` and `custom_bwd` (`torch.amp.custom_fwd(device_type=...)` is new in 2.4).

## Fix safety
Safe: in torch 2.13 the old names are thin wrappers that call exactly these new forms (checked with
`inspect.getsource`). One corner: the old CUDA `autocast` always passed `dtype=torch.float16`, the new one reads
`torch.get_autocast_dtype("cuda")` when no `dtype` is given, which differs only if the program changed it with
`torch.set_autocast_dtype`. `*args` in an `autocast(...)` call cannot be mapped to keywords: finding.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

import libcst as cst
from libcst.metadata import ParentNodeProvider

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass
from torchmigrate.python.helpers import fix_commas, make_kwarg
from torchmigrate.python.sites import AstFile, Site, analyser
from torchmigrate.python.transform import CallContext, PassTransformer

PASS = Pass(
    id="amp-namespace",
    release="2.4",
    since="2.4",
    kind=DEPRECATION,
    safety=SAFE,
    title="torch.cuda.amp / torch.cpu.amp → torch.amp (autocast, GradScaler, custom_fwd, custom_bwd)",
    evidence=(
        "PyTorch 2.4 release notes (deprecation of torch.cuda.amp / torch.cpu.amp); FutureWarning checked on torch 2.13"
        "; since 2.4: torch.amp.custom_fwd(device_type=) (torch 2.4.1 wheel, torch/amp/autocast_mode.py:415); "
        "GradScaler(\"cuda\") from 2.3, autocast(\"cuda\") from 1.12"
    ),
    # every spelling names the module (`torch.cuda.amp`, `th.cpu.amp`) or imports it (`from torch.cuda import amp`)
    triggers=("cuda.amp", "cpu.amp", "import amp", ", amp"),
    qualnames=frozenset({"torch.cuda.amp", "torch.cpu.amp"}),  # every name it rewrites lies under these
    examples=[
        Example(
            title="autocast with positional arguments",
            before="""
                import torch

                with torch.cuda.amp.autocast(True, torch.bfloat16):
                    y = model(x)
            """,
            after="""
                import torch

                with torch.amp.autocast("cuda", enabled=True, dtype=torch.bfloat16):
                    y = model(x)
            """,
        ),
        Example(
            title="cpu autocast and GradScaler with positional init_scale",
            before="""
                import torch

                scaler = torch.cuda.amp.GradScaler(2.0**10, enabled=use_amp)
                with torch.cpu.amp.autocast(dtype=torch.bfloat16):
                    pass
            """,
            after="""
                import torch

                scaler = torch.amp.GradScaler("cuda", 2.0**10, enabled=use_amp)
                with torch.amp.autocast("cpu", dtype=torch.bfloat16):
                    pass
            """,
        ),
        Example(
            title="from torch.cuda.amp import autocast, GradScaler (the old import goes)",
            before="""
                from torch.cuda.amp import GradScaler, autocast

                scaler = GradScaler()
                with autocast(enabled=False):
                    pass
            """,
            after="""
                import torch

                scaler = torch.amp.GradScaler("cuda")
                with torch.amp.autocast("cuda", enabled=False):
                    pass
            """,
        ),
        Example(
            title="from torch.cuda import amp",
            before="""
                import torch
                from torch.cuda import amp, nvtx

                with amp.autocast():
                    nvtx.mark('x')
            """,
            after="""
                import torch
                from torch.cuda import nvtx

                with torch.amp.autocast("cuda"):
                    nvtx.mark('x')
            """,
        ),
        Example(
            title="import torch.cuda.amp as amp, import torch as th",
            before="""
                import torch as th
                import torch.cuda.amp as amp

                scaler = amp.GradScaler()
                ctx = th.cuda.amp.autocast()
            """,
            after="""
                import torch as th

                scaler = th.amp.GradScaler("cuda")
                ctx = th.amp.autocast("cuda")
            """,
        ),
        Example(
            title="custom_fwd with cast_inputs, bare custom_fwd and custom_bwd",
            before="""
                import torch
                from torch.cuda.amp import custom_bwd, custom_fwd


                class F(torch.autograd.Function):
                    @staticmethod
                    @torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)
                    def forward(ctx, x):
                        return x

                    @staticmethod
                    @custom_bwd
                    def backward(ctx, g):
                        return g


                class G(torch.autograd.Function):
                    @staticmethod
                    @custom_fwd
                    def forward(ctx, x):
                        return x
            """,
            after="""
                import torch


                class F(torch.autograd.Function):
                    @staticmethod
                    @torch.amp.custom_fwd(device_type="cuda", cast_inputs=torch.float32)
                    def forward(ctx, x):
                        return x

                    @staticmethod
                    @torch.amp.custom_bwd(device_type="cuda")
                    def backward(ctx, g):
                        return g


                class G(torch.autograd.Function):
                    @staticmethod
                    @torch.amp.custom_fwd(device_type="cuda")
                    def forward(ctx, x):
                        return x
            """,
        ),
        Example(
            title="annotation renamed",
            before="""
                import torch


                def step(scaler: torch.cuda.amp.GradScaler) -> None:
                    pass
            """,
            after="""
                import torch


                def step(scaler: torch.amp.GradScaler) -> None:
                    pass
            """,
        ),
        Example(
            title="used as a value: finding",
            before="""
                import contextlib
                import torch

                ctx = torch.cuda.amp.autocast if use_amp else contextlib.nullcontext
            """,
            findings=1,
        ),
        Example(
            title="a type check: finding (the torch.amp class is wider; open-mmlab/mmengine)",
            before="""
                from torch.cuda.amp import GradScaler

                assert isinstance(scaler, GradScaler)
            """,
            findings=1,
        ),
        Example(
            title="*args cannot become keywords: finding",
            before="""
                import torch

                with torch.cuda.amp.autocast(*flags):
                    pass
            """,
            findings=1,
        ),
        Example(
            title="version-gated and ImportError fallbacks are left alone",
            before="""
                import torch

                scaler = torch.amp.GradScaler('cuda') if TORCH_GE_2_4 else torch.cuda.amp.GradScaler()
                try:
                    from torch.amp import custom_fwd
                except ImportError:
                    from torch.cuda.amp import custom_fwd
            """,
        ),
        Example(
            title="look-alikes: a user class autocast, a user module amp, torch.autocast",
            before="""
                import torch
                from mylib import amp


                class autocast:
                    pass


                a = autocast()
                b = amp.autocast()
                c = torch.autocast('cuda')
            """,
        ),
    ],
)

_DEVICES = {"torch.cuda.amp": "cuda", "torch.cpu.amp": "cpu"}
_AUTOCAST_POSITIONAL = ("enabled", "dtype", "cache_enabled")
_DECORATORS = {f"torch.cuda.amp.{name}": name for name in ("custom_fwd", "custom_bwd")}
_ALL = {f"{module}.{name}" for module in _DEVICES for name in ("autocast", "GradScaler")} | set(_DECORATORS)


def _device(qualname: str) -> str:
    return _DEVICES[qualname.rpartition(".")[0]]


def _string(value: str) -> cst.SimpleString:
    return cst.SimpleString(f'"{value}"')


@PASS.rewrites_calls("torch.cuda.amp.autocast", "torch.cpu.amp.autocast")
def rewrite_autocast(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if any(a.star == "*" for a in call.args) or len(positional) > len(_AUTOCAST_POSITIONAL):
        ctx.finding(f"{ctx.qualname}(*args): write torch.amp.autocast({_device(ctx.qualname)!r}, enabled=..., dtype=...) by hand")
        return None
    args = [cst.Arg(value=_string(_device(ctx.qualname)))]
    for a in call.args:
        if a.keyword is None and not a.star:
            a = make_kwarg(_AUTOCAST_POSITIONAL[positional.index(a)], a.value).with_changes(comma=a.comma)
        args.append(a)
    ctx.message = f"{ctx.qualname} → torch.amp.autocast({_device(ctx.qualname)!r}, ...)"
    return call.with_changes(func=ctx.ref("torch.amp.autocast"), args=fix_commas(args))


@PASS.rewrites_calls("torch.cuda.amp.GradScaler", "torch.cpu.amp.GradScaler")
def rewrite_grad_scaler(call: cst.Call, ctx: CallContext) -> cst.BaseExpression:
    args = fix_commas([cst.Arg(value=_string(_device(ctx.qualname))), *call.args])
    ctx.message = f"{ctx.qualname} → torch.amp.GradScaler({_device(ctx.qualname)!r}, ...)"
    return call.with_changes(func=ctx.ref("torch.amp.GradScaler"), args=args)


@PASS.rewrites_calls(*_DECORATORS)
def rewrite_custom(call: cst.Call, ctx: CallContext) -> cst.BaseExpression:
    name = _DECORATORS[ctx.qualname]
    positional = [a for a in call.args if a.keyword is None and not a.star]
    keywords = [a for a in call.args if a not in positional]
    device = make_kwarg("device_type", _string("cuda"))
    ctx.message = f"{ctx.qualname} → torch.amp.{name}(device_type='cuda', ...)"
    return call.with_changes(func=ctx.ref(f"torch.amp.{name}"), args=fix_commas([*positional, device, *keywords]))


class AmpTransformer(PassTransformer):
    def leave_Decorator(self, original_node: cst.Decorator, updated_node: cst.Decorator) -> cst.Decorator:
        if isinstance(original_node.decorator, cst.Call):
            return updated_node  # a call: the call rewriters handle it
        name = self.qualname(original_node.decorator)
        if name not in _DECORATORS or not self.allowed(original_node):
            return updated_node
        new = cst.Call(
            func=self.ref(f"torch.amp.{_DECORATORS[name]}", like=original_node.decorator),
            args=[make_kwarg("device_type", _string("cuda"))],
        )
        self.edited(original_node, f"@{name} → @torch.amp.{_DECORATORS[name]}(device_type='cuda')")
        self.drop_imports_of(original_node.decorator)
        return updated_node.with_changes(decorator=new)

    def _value_use(self, original: cst.BaseExpression, updated: cst.BaseExpression) -> cst.BaseExpression:
        name = self.qualname(original)
        if name not in _ALL or not self.allowed(original):
            return updated
        parent = self.get_metadata(ParentNodeProvider, original, None)
        if isinstance(parent, cst.Call) and parent.func is original:
            return updated  # a call: the call rewriters handle it
        if isinstance(parent, (cst.Decorator, cst.Attribute, cst.ImportAlias)):
            return updated
        current = parent
        while current is not None and not isinstance(current, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            if isinstance(current, cst.ImportAlias):
                return updated
            if isinstance(current, cst.Annotation):
                new_name = "torch.amp." + name.rpartition(".")[2]
                self.edited(original, f"{name} → {new_name} (annotation)")
                self.drop_imports_of(original)
                return self.ref(new_name, like=original)
            current = self.get_metadata(ParentNodeProvider, current, None)
        if isinstance(current, (cst.Import, cst.ImportFrom)):
            return updated
        short = name.rpartition(".")[2]
        if isinstance(parent, cst.Arg) and self._type_check_arg(parent):
            self.finding(
                original,
                f"{name} in a type check: torch.cuda.amp's classes subclass torch.amp.{short}, so "
                f"isinstance(x, torch.amp.{short}) also accepts the other devices' objects; write that, or check "
                "x.device / the object's own type, when the check must stay this narrow",
            )
            return updated
        self.finding(
            original,
            f"{name} used as a value (not called): replace it with torch.amp.{short} by hand and pass the device "
            f"({_device(name) if name not in _DECORATORS else 'cuda'!r}) where it is called "
            f"(for example functools.partial(torch.amp.{short}, ...))",
        )
        return updated

    def _type_check_arg(self, arg: cst.Arg) -> bool:
        """Whether ``arg`` is the class argument of ``isinstance`` / ``issubclass`` / ``assertIsInstance`` & co."""
        call = self.get_metadata(ParentNodeProvider, arg, None)
        if not isinstance(call, cst.Call) or len(call.args) < 2 or call.args[1] is not arg:
            return False
        func = call.func
        name = func.value if isinstance(func, cst.Name) else func.attr.value if isinstance(func, cst.Attribute) else ""
        return name in ("isinstance", "issubclass", "assertIsInstance", "assertNotIsInstance")

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        return self._value_use(original_node, updated_node)

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        return self._value_use(original_node, updated_node)


PASS.uses(AmpTransformer)

_LASTS = frozenset(name.rpartition(".")[2] for name in _ALL)


def detect(file: AstFile) -> Iterator[Site]:
    """A bound from the stdlib ast: every use, outside version-guarded code, of a name the pass rewrites or reports
    (a call, a decorator, an annotation, a value) is an edit site for libcst. A file that only reaches
    ``torch.cuda.amp`` through other names (``torch.cuda.amp.grad_scaler.GradScaler``), or only inside a version
    check, is settled without libcst. (An attribute chain's qualified name ends with its attribute; a name may be an
    alias of any of them.)"""
    for node in file.walk():
        if isinstance(node, ast.Attribute):
            if node.attr in _LASTS and file.qualname(node) in _ALL:
                yield file.edit(node)
        elif isinstance(node, ast.Name) and file.qualname(node) in _ALL:  # `from torch.cuda.amp import autocast as ac`
            yield file.edit(node)


PASS.analyse = analyser(PASS.id, detect)
