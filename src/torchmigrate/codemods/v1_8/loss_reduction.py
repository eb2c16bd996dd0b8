"""Loss `size_average=` / `reduce=` are deprecated: use `reduction=`.

## What it does
Replaces the two legacy flags of the loss modules (`nn.CrossEntropyLoss(size_average=False)`, …) and of the loss
functions (`F.mse_loss(x, y, reduce=False)`, …) with the `reduction=` string that torch itself derives from them
(`torch.nn._reduction.legacy_get_string`): `None` counts as `True`; both true → `"mean"`, `reduce` true and
`size_average` false → `"sum"`, `reduce` false → `"none"`. An explicit `reduction=` in the same call was ignored by
torch whenever a legacy flag was given, so its value is replaced. Flags passed by position are handled: the positional
arguments from the first flag on become keywords. A flag whose value is not a literal `True` / `False` / `None` cannot
be mapped statically: finding.

## Why
Deprecated since PyTorch 0.4.1; on torch 2.13 every such call still warns (`UserWarning: size_average and reduce args
will be deprecated, please use reduction='sum' instead.`). torchmigrate files changes older than its 1.8 floor under
1.8.

## Fix safety
Safe: the module or function computes the same reduction string from the flags it was given (torch 2.13
`_Loss.__init__` and the functional losses call `legacy_get_string`); losses checked equal on torch 2.13. One
difference that is not a result: `F.kl_div(..., reduction="mean")` warns that `"batchmean"` is usually meant, which the
legacy flags did not.
"""

from __future__ import annotations

import ast

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass
from torchmigrate.python.helpers import bind, make_kwarg, with_args
from torchmigrate.python.transform import CallContext

# Parameters (after ``self``) of each loss module's __init__ and each loss function, in order, on torch 2.13, up to
# and including ``reduction`` (tests/passes/test_gaps_b_facts.py checks them against the installed torch).
MODULES: dict[str, tuple[str, ...]] = {
    "BCELoss": ("weight", "size_average", "reduce", "reduction"),
    "BCEWithLogitsLoss": ("weight", "size_average", "reduce", "reduction", "pos_weight"),
    "CosineEmbeddingLoss": ("margin", "size_average", "reduce", "reduction"),
    "CrossEntropyLoss": ("weight", "size_average", "ignore_index", "reduce", "reduction", "label_smoothing"),
    "HingeEmbeddingLoss": ("margin", "size_average", "reduce", "reduction"),
    "KLDivLoss": ("size_average", "reduce", "reduction", "log_target"),
    "L1Loss": ("size_average", "reduce", "reduction"),
    "MSELoss": ("size_average", "reduce", "reduction"),
    "MarginRankingLoss": ("margin", "size_average", "reduce", "reduction"),
    "MultiLabelMarginLoss": ("size_average", "reduce", "reduction"),
    "MultiLabelSoftMarginLoss": ("weight", "size_average", "reduce", "reduction"),
    "MultiMarginLoss": ("p", "margin", "weight", "size_average", "reduce", "reduction"),
    "NLLLoss": ("weight", "size_average", "ignore_index", "reduce", "reduction"),
    "NLLLoss2d": ("weight", "size_average", "ignore_index", "reduce", "reduction"),
    "PoissonNLLLoss": ("log_input", "full", "size_average", "eps", "reduce", "reduction"),
    "SmoothL1Loss": ("size_average", "reduce", "reduction", "beta"),
    "SoftMarginLoss": ("size_average", "reduce", "reduction"),
    "TripletMarginLoss": ("margin", "p", "eps", "swap", "size_average", "reduce", "reduction"),
}
FUNCTIONS: dict[str, tuple[str, ...]] = {
    "binary_cross_entropy": ("input", "target", "weight", "size_average", "reduce", "reduction"),
    "binary_cross_entropy_with_logits": ("input", "target", "weight", "size_average", "reduce", "reduction", "pos_weight"),
    "cosine_embedding_loss": ("input1", "input2", "target", "margin", "size_average", "reduce", "reduction"),
    "cross_entropy": ("input", "target", "weight", "size_average", "ignore_index", "reduce", "reduction", "label_smoothing"),
    "hinge_embedding_loss": ("input", "target", "margin", "size_average", "reduce", "reduction"),
    "kl_div": ("input", "target", "size_average", "reduce", "reduction", "log_target"),
    "l1_loss": ("input", "target", "size_average", "reduce", "reduction"),
    "margin_ranking_loss": ("input1", "input2", "target", "margin", "size_average", "reduce", "reduction"),
    "mse_loss": ("input", "target", "size_average", "reduce", "reduction"),
    "multi_margin_loss": ("input", "target", "p", "margin", "weight", "size_average", "reduce", "reduction"),
    "multilabel_margin_loss": ("input", "target", "size_average", "reduce", "reduction"),
    "multilabel_soft_margin_loss": ("input", "target", "weight", "size_average", "reduce", "reduction"),
    "nll_loss": ("input", "target", "weight", "size_average", "ignore_index", "reduce", "reduction"),
    "poisson_nll_loss": ("input", "target", "log_input", "full", "size_average", "eps", "reduce", "reduction"),
    "smooth_l1_loss": ("input", "target", "size_average", "reduce", "reduction", "beta"),
    "soft_margin_loss": ("input", "target", "size_average", "reduce", "reduction"),
    "triplet_margin_loss": ("anchor", "positive", "negative", "margin", "p", "eps", "swap", "size_average", "reduce", "reduction"),
}
LEGACY = ("size_average", "reduce")
_PARAMS = {**MODULES, **FUNCTIONS}


def _may_pass_flags(call: ast.Call) -> bool:
    """Precheck: a keyword flag, ``*args`` / ``**kwargs``, or enough positional arguments to reach ``size_average``."""
    if any(keyword.arg in (None, *LEGACY) for keyword in call.keywords):
        return True
    if any(isinstance(a, ast.Starred) for a in call.args):
        return True
    func = call.func
    name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    params = _PARAMS.get(name)
    return params is not None and len(call.args) > params.index("size_average")


PASS = Pass(
    id="loss-reduction",
    since="1.8",
    release="1.8",
    kind=DEPRECATION,
    safety=SAFE,
    title="loss size_average= / reduce= → reduction= (literal values)",
    evidence=(
        "deprecated since PyTorch 0.4.1; torch 2.13 torch/nn/_reduction.py legacy_get_string and _Loss.__init__ "
        "(legacy flags override reduction); UserWarning and equal losses checked on torch 2.13"
        "; since 1.8: reduction= on the losses in every release the tool knows (torch 1.9.0 wheel, torch/nn/modules/loss.py)"
    ),
    call_filter=_may_pass_flags,
    examples=[
        Example(
            before="""
                import torch.nn as nn

                criterion = nn.CrossEntropyLoss(size_average=False)
                per_item = nn.MSELoss(reduce=False)
                mean = nn.L1Loss(size_average=True, reduce=True)
            """,
            after="""
                import torch.nn as nn

                criterion = nn.CrossEntropyLoss(reduction="sum")
                per_item = nn.MSELoss(reduction="none")
                mean = nn.L1Loss(reduction="mean")
            """,
        ),
        Example(
            title="functional losses, the file's quote style, an explicit reduction= that torch ignored",
            before="""
                import torch.nn.functional as F

                loss = F.nll_loss(out, y, ignore_index=0, size_average=False)
                kl = F.kl_div(p, q, size_average=False, reduction='mean')
            """,
            after="""
                import torch.nn.functional as F

                loss = F.nll_loss(out, y, ignore_index=0, reduction="sum")
                kl = F.kl_div(p, q, reduction='sum')
            """,
        ),
        Example(
            title="flags passed by position: the arguments from the first flag on become keywords",
            before="""
                from torch import nn
                from torch.nn.functional import mse_loss

                c = nn.NLLLoss(w, None, -1, False)
                d = mse_loss(a, b, False)
            """,
            after="""
                from torch import nn
                from torch.nn.functional import mse_loss

                c = nn.NLLLoss(w, ignore_index=-1, reduction="none")
                d = mse_loss(a, b, reduction="sum")
            """,
        ),
        Example(
            title="a flag that is not a literal: finding",
            before="""
                import torch

                loss = torch.nn.BCELoss(size_average=args.mean)
            """,
            findings=1,
        ),
        Example(
            title="look-alikes: reduction= already, another library's loss",
            before="""
                import torch.nn as nn
                from mylib import MSELoss

                a = nn.MSELoss(reduction='sum')
                b = MSELoss(size_average=False)
            """,
        ),
    ],
)


def _literal(value: cst.BaseExpression) -> bool | None | str:
    """``True`` / ``False`` / ``None`` for those literals, ``"?"`` for anything else."""
    if isinstance(value, cst.Name) and value.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[value.value]
    return "?"


def legacy_string(size_average: bool | None, reduce: bool | None) -> str:
    """What ``torch.nn._reduction.legacy_get_string`` returns (torch 2.13), without its warning."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        return "mean"
    if reduce:
        return "sum"
    return "none"


def _quote(call: cst.Call) -> str:
    for a in call.args:
        if isinstance(a.value, cst.SimpleString) and a.keyword is not None and a.keyword.value == "reduction":
            return a.value.quote
    return '"'


@PASS.rewrites_calls(
    *(f"torch.nn.{name}" for name in MODULES),
    *(f"torch.nn.modules.loss.{name}" for name in MODULES),
    *(f"torch.nn.functional.{name}" for name in FUNCTIONS),
)
def rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    name = ctx.qualname.rpartition(".")[2]
    params = _PARAMS[name]
    bound = bind(call, params)
    flags = {flag: bound.get(flag) for flag in LEGACY}
    if not any(flags.values()):
        return None  # no flag (or it may sit in *args / **kwargs: nothing certain to say)
    if bound.star or bound.unknown:
        ctx.finding(f"{name}(...): size_average/reduce mixed with *args/**kwargs: write reduction= by hand")
        return None
    values = {flag: (None if a is None else _literal(a.value)) for flag, a in flags.items()}
    if "?" in values.values():
        ctx.finding(
            f"{name}(...): size_average/reduce are deprecated; their value is not a literal, so reduction= cannot be "
            'chosen here: reduction="none" when reduce is false, else "mean" when size_average is true (or None), '
            'else "sum"'
        )
        return None
    reduction = legacy_string(values["size_average"], values["reduce"])  # type: ignore[arg-type]
    positional = [params.index(flag) for flag, a in flags.items() if a is not None and a.keyword is None]
    first = min(positional, default=len(params))  # arguments after a positional flag must become keywords
    quote = _quote(call)
    new_value = cst.SimpleString(f"{quote}{reduction}{quote}")
    args: list[cst.Arg] = []
    placed = False
    for a in call.args:
        param = next((p for p, bound_arg in bound.args.items() if bound_arg is a), None)
        if param in LEGACY:
            continue
        if param == "reduction":
            args.append(make_kwarg("reduction", new_value) if a.keyword is None else a.with_changes(value=new_value))
            placed = True
            continue
        if a.keyword is None and param is not None and params.index(param) > first:
            a = make_kwarg(param, a.value).with_changes(comma=a.comma)
        args.append(a)
    if not placed:
        args.append(make_kwarg("reduction", new_value))
    given = ", ".join(f"{flag}={values[flag]}" for flag in LEGACY if flags[flag] is not None)
    ctx.message = f"{name}({given}) → reduction={reduction!r}"
    return with_args(call, args)
