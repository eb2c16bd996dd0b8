"""The profilers' `use_cuda=` was deprecated (2.4) and is removed in PyTorch 2.14: drop it, or say `use_device="cuda"`.

## What it does
| before | after |
|---|---|
| `torch.profiler.profile(..., use_cuda=X)` | `torch.profiler.profile(...)` |
| `torch.autograd.profiler.profile(use_cuda=True)` | `torch.autograd.profiler.profile(use_device="cuda")` |
| `torch.autograd.profiler.profile(use_cuda=False)` | `torch.autograd.profiler.profile()` |
| `torch.autograd.profiler.profile(use_cuda=flag)` | `torch.autograd.profiler.profile(use_device="cuda" if flag else None)` |
| `torch.autograd.profiler.profile(use_cuda=flag, use_device=d)` | `torch.autograd.profiler.profile(use_device="cuda" if flag else d)` |

For `torch.profiler.profile` a `use_cuda=` that is not a literal `True` also gets a finding: the argument never had an
effect there, so code that meant "no CUDA" should pass `activities=[ProfilerActivity.CPU]`. The legacy
`torch.autograd.profiler_legacy.profile` keeps its `use_cuda` and is not touched.

## Why
`torch.profiler.profile(use_cuda=)` has been deprecated since 1.8.1 in favour of `activities=`; the autograd
profiler's since 2.4 in favour of `use_device` (pytorch/pytorch#123247: "The attribute `use_cuda` will be deprecated
soon, please use ``use_device = 'cuda'`` instead", a `FutureWarning` on 2.13, `torch/autograd/profiler.py:237`). 2.14
removed both (pytorch/pytorch#192543): passing it is `TypeError: profile.__init__() got an unexpected keyword
argument 'use_cuda'` (2.14.1 `torch/profiler/profiler.py:1024`, `torch/autograd/profiler.py:214`).

## Fix safety
Safe. In `torch.profiler.profile` the value only edited a local set that was never passed on — the profiler received
the untouched `activities` (2.0.1 `torch/profiler/profiler.py:431-448`, 2.13 `:940-975`) — so dropping it changes
nothing. In `torch.autograd.profiler.profile` (2.4 … 2.13) a true `use_cuda` set `use_device = "cuda"` and a false one
left `use_device` as given (2.13 `torch/autograd/profiler.py:235-244`): exactly what the rewrite spells.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged
from torchmigrate.python.helpers import fix_commas, kwarg, make_kwarg
from torchmigrate.python.transform import CallContext

PASS = Pass(
    id="profiler-use-cuda",
    release="2.4",
    since="2.1",
    removed_in="2.14",
    kind=DEPRECATION,
    safety=SAFE,
    title='profiler profile(use_cuda=...) → dropped / use_device="cuda" (removed in 2.14)',
    evidence=(
        "pytorch/pytorch#123247 (2.4 deprecation), #192543 (2.14 removal); torch 2.13 torch/autograd/profiler.py:217,235-244, "
        "torch/profiler/profiler.py:936-975; 2.14.1 torch/autograd/profiler.py:214, torch/profiler/profiler.py:1024"
        "; since 2.1: torch.autograd.profiler.profile(use_device=), and use_device='cuda' sets use_cuda=True "
        "(torch 2.1.2 wheel, torch/autograd/profiler.py:208,246-248); torch.profiler.profile without "
        "use_cuda= runs on every release"
    ),
    triggers=("use_cuda",),
    call_filter=lambda call: any(k.arg == "use_cuda" for k in call.keywords),
    examples=[
        Example(
            title="torch.profiler.profile: the argument never had an effect",
            before="""
                import torch
                from torch.profiler import ProfilerActivity, profile

                with profile(activities=[ProfilerActivity.CPU], use_cuda=True, record_shapes=True) as prof:
                    step()
                with torch.profiler.profile(use_cuda=True):
                    step()
            """,
            after="""
                import torch
                from torch.profiler import ProfilerActivity, profile

                with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
                    step()
                with torch.profiler.profile():
                    step()
            """,
        ),
        Example(
            title="torch.profiler.profile(use_cuda=False): dropped, with a finding",
            before="""
                import torch.profiler as profiler

                with profiler.profile(use_cuda=False):
                    step()
            """,
            after="""
                import torch.profiler as profiler

                with profiler.profile():
                    step()
            """,
            findings=1,
        ),
        Example(
            title="the autograd profiler: use_device",
            before="""
                import torch

                with torch.autograd.profiler.profile(use_cuda=True, profile_memory=True) as prof:
                    step()
                with torch.autograd.profiler.profile(use_cuda=False):
                    step()
                with torch.autograd.profiler.profile(enabled, use_cuda=on_gpu):
                    step()
                with torch.autograd.profiler.profile(use_cuda=on_gpu, use_device="xpu"):
                    step()
            """,
            after="""
                import torch

                with torch.autograd.profiler.profile(use_device="cuda", profile_memory=True) as prof:
                    step()
                with torch.autograd.profiler.profile():
                    step()
                with torch.autograd.profiler.profile(enabled, use_device="cuda" if on_gpu else None):
                    step()
                with torch.autograd.profiler.profile(use_device="cuda" if on_gpu else "xpu"):
                    step()
            """,
        ),
        Example(
            title="from-import of the autograd profiler module",
            before="""
                from torch.autograd import profiler

                with profiler.profile(use_cuda=True) as prof:
                    step()
            """,
            after="""
                from torch.autograd import profiler

                with profiler.profile(use_device="cuda") as prof:
                    step()
            """,
        ),
        Example(
            title="a multi-line call keeps its layout; use_device folded in",
            before="""
                import torch

                with torch.autograd.profiler.profile(
                    record_shapes=True,
                    use_cuda=flag,
                    use_device="xpu",
                ) as prof:
                    step()
            """,
            after="""
                import torch

                with torch.autograd.profiler.profile(
                    record_shapes=True,
                    use_device="cuda" if flag else "xpu",
                ) as prof:
                    step()
            """,
        ),
        Unchanged(
            """
            import torch

            with torch.autograd.profiler_legacy.profile(use_cuda=True):
                step()
            device = get_device(use_cuda=True)
            """,
            title="the legacy profiler keeps use_cuda; other functions' use_cuda are not touched",
        ),
    ],
)


def _without(call: cst.Call, arg: cst.Arg) -> list[cst.Arg]:
    args = [a for a in call.args if a is not arg]
    if args and call.args[-1] is arg:
        args[-1] = args[-1].with_changes(comma=arg.comma)  # keep the closing bracket where it was
    return fix_commas(args)


def _is(node: cst.BaseExpression, name: str) -> bool:
    return isinstance(node, cst.Name) and node.value == name


@PASS.rewrites_calls("torch.profiler.profile", "torch.profiler.profiler.profile")
def kineto_profile(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    use_cuda = kwarg(call, "use_cuda")
    if use_cuda is None:
        return None
    if not _is(use_cuda.value, "True"):
        ctx.finding(
            "torch.profiler.profile(use_cuda=...) never had an effect (the profiler uses `activities`): if you meant "
            "to leave CUDA out, pass activities=[torch.profiler.ProfilerActivity.CPU]"
        )
    ctx.message = "torch.profiler.profile: use_cuda= dropped (it had no effect; removed in 2.14)"
    return call.with_changes(args=_without(call, use_cuda))


@PASS.rewrites_calls("torch.autograd.profiler.profile")
def autograd_profile(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    use_cuda = kwarg(call, "use_cuda")
    if use_cuda is None:
        return None
    use_device = kwarg(call, "use_device")
    cuda = cst.SimpleString('"cuda"')
    value = use_cuda.value
    if _is(value, "False"):
        ctx.message = "torch.autograd.profiler.profile: use_cuda=False dropped (removed in 2.14)"
        return call.with_changes(args=_without(call, use_cuda))
    if _is(value, "True"):
        device: cst.BaseExpression = cuda
    else:
        otherwise = use_device.value if use_device is not None else cst.Name("None")
        device = cst.IfExp(test=value, body=cuda, orelse=otherwise)
    ctx.message = 'torch.autograd.profiler.profile: use_cuda= → use_device="cuda" (removed in 2.14)'
    new = make_kwarg("use_device", device)
    args: list[cst.Arg] = []
    for a in call.args:
        if a is use_cuda:
            args.append(new.with_changes(comma=a.comma))  # where use_cuda stood, with its punctuation
        elif a is not use_device:
            args.append(a)
    if use_device is not None and call.args[-1] is use_device:
        args[-1] = args[-1].with_changes(comma=use_device.comma)
    return call.with_changes(args=fix_commas(args))
