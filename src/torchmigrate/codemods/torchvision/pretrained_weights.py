"""torchvision's `pretrained=` / `pretrained_backbone=` flags are deprecated since torchvision 0.13: pass `weights=`.

## What it does
Rewrites the legacy flags of every torchvision model builder into the weights they stand for, from a table generated
from torchvision's own sources (`weights.json`, see `weights_table.py`):

- `resnet18(pretrained=True)` → `resnet18(weights=ResNet18_Weights.IMAGENET1K_V1)`; `pretrained=False` → `weights=None`;
- `fasterrcnn_resnet50_fpn(pretrained_backbone=False)` → `weights_backbone=None`;
- positional arguments (`resnet18(True)`, `vgg16(True, False)`) become the keywords the builder now declares
  (`weights=…`, `progress=False`);
- the quantized builders follow `quantize=` (`IMAGENET1K_FBGEMM_V1` weights when it is `True`), `resnet_fpn_backbone`
  follows `backbone_name=`, exactly as torchvision's `handle_legacy_interface` decides.

The weights are the ones the flag loads — mostly `IMAGENET1K_V1`, `COCO_V1`, `C_T_SKHT_V2` for RAFT — not
`.DEFAULT`, which for many models (ResNet-50, EfficientNet-B1, …) names newer, different weights. Switch to `.DEFAULT`
yourself when you want them.

Findings instead of edits: a flag whose value is not a literal `True`/`False` (`pretrained=args.pretrained`), a model
with no legacy weights (`vit_h_14(pretrained=True)` raises `ValueError`), a condition on an argument that is not a
literal (`quantize=q`), `pretrained=` beside `weights=`, positional arguments mixed with `*args`, and builders chosen
at run time (`models.__dict__[arch](pretrained=True)`, `getattr(models, name)(pretrained=True)`,
`get_model(name, pretrained=True)`).

## Why
torchvision 0.13 (for torch 1.12) introduced the multi-weight API and deprecated the flags: each call warns "The
parameter 'pretrained' is deprecated since 0.13 and may be removed in the future, please use 'weights' instead", and
positional arguments warn too (`kwonly_to_pos_or_kw`). Both warnings are still raised by torchvision 0.28.

## Fix safety
Safe for literal values: the emitted `weights=` value is the very member `handle_legacy_interface` substitutes for the
flag (torchvision 0.28, models/_utils.py), so the same weights are loaded and the same model built, without the
warnings; positional arguments are named by the builder's own parameter order, the mapping `kwonly_to_pos_or_kw` uses.
"""

from __future__ import annotations

import ast
import json
from typing import Any

import libcst as cst

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged, last_components
from torchmigrate.python.helpers import code_of, with_args
from torchmigrate.python.transform import CallContext, PassTransformer

from .weights_table import TABLE

_DATA: dict[str, Any] = json.loads(TABLE.read_text(encoding="utf-8"))
TORCHVISION = _DATA["torchvision"]
# every qualified name a builder is called by → its table entry
BUILDERS: dict[str, dict[str, Any]] = {name: entry for entry in _DATA["builders"].values() for name in entry["names"]}
FLAGS = frozenset(info["flag"] for entry in _DATA["builders"].values() for info in entry["legacy"].values())
DYNAMIC = ("torchvision.models.__dict__", "torchvision.models.get_model")


def _legacy_call(call: ast.Call) -> bool:
    """The precheck's filter: only calls with a legacy flag or a positional argument can need the pass."""
    return any(k.arg in FLAGS for k in call.keywords) or any(not isinstance(a, ast.Starred) for a in call.args)


PASS = Pass(
    id="torchvision-pretrained",
    release="1.12",
    package="torchvision 0.13",
    kind=DEPRECATION,
    safety=SAFE,
    since="1.12",
    title="torchvision models: pretrained=True/False → weights=<Model>_Weights.<legacy weights> / None",
    evidence=(
        f"torchvision 0.13 release notes (multi-weight support API); torchvision {TORCHVISION} sources: "
        "models/_utils.py handle_legacy_interface / kwonly_to_pos_or_kw and every builder's decorator (weights.json)"
        "; since 1.12: weights= first ships in torchvision 0.13, released with torch 1.12"
    ),
    call_filter=_legacy_call,
    # `getattr(torchvision.models, name)(pretrained=…)` spells no builder: the module and `getattr` are in play too
    qualnames=frozenset(BUILDERS) | frozenset(DYNAMIC) | {"torchvision.models"},
    triggers=(*last_components([*BUILDERS, *DYNAMIC]), "getattr"),
    # the transformer compares qualified names for equality (BUILDERS[qualname], == "torchvision.models"): the
    # weights enums and helpers under torchvision.models that torchvision's own modules import are no sites
    exact_names=True,
    examples=[
        Example(
            """
            import torchvision

            model = torchvision.models.resnet18(pretrained=True)
            backbone = torchvision.models.vgg16(pretrained=False).features
            """,
            """
            import torchvision

            model = torchvision.models.resnet18(weights=torchvision.models.ResNet18_Weights.IMAGENET1K_V1)
            backbone = torchvision.models.vgg16(weights=None).features
            """,
        ),
        Example(
            title="import torchvision.models as models; a positional flag and progress",
            before="""
            import torchvision.models as models

            net = models.resnet50(True, False)
            """,
            after="""
            import torchvision.models as models

            net = models.resnet50(weights=models.ResNet50_Weights.IMAGENET1K_V1, progress=False)
            """,
        ),
        Example(
            title="a from-import: the weights enum is imported beside it",
            before="""
            from torchvision.models import efficientnet_b0 as effnet

            model = effnet(pretrained=True, num_classes=1000)
            """,
            after="""
            from torchvision.models import EfficientNet_B0_Weights, efficientnet_b0 as effnet

            model = effnet(weights=EfficientNet_B0_Weights.IMAGENET1K_V1, num_classes=1000)
            """,
        ),
        Example(
            title="detection: the model flag and the backbone flag",
            before="""
            from torchvision.models import detection

            model = detection.fasterrcnn_resnet50_fpn(pretrained=False, pretrained_backbone=False, num_classes=3)
            coco = detection.maskrcnn_resnet50_fpn(pretrained=True)
            """,
            after="""
            from torchvision.models import detection

            model = detection.fasterrcnn_resnet50_fpn(weights=None, weights_backbone=None, num_classes=3)
            coco = detection.maskrcnn_resnet50_fpn(weights=detection.MaskRCNN_ResNet50_FPN_Weights.COCO_V1)
            """,
        ),
        Example(
            title="quantized builders follow quantize=",
            before="""
            from torchvision.models import quantization

            q = quantization.mobilenet_v2(pretrained=True, quantize=True)
            f = quantization.mobilenet_v2(pretrained=True)
            """,
            after="""
            from torchvision.models import MobileNet_V2_Weights, quantization

            q = quantization.mobilenet_v2(weights=quantization.MobileNet_V2_QuantizedWeights.IMAGENET1K_QNNPACK_V1, quantize=True)
            f = quantization.mobilenet_v2(weights=MobileNet_V2_Weights.IMAGENET1K_V1)
            """,
        ),
        Example(
            title="RAFT's legacy weights are not V1",
            before="""
            from torchvision.models.optical_flow import raft_large

            flow = raft_large(pretrained=True, progress=False)
            """,
            after="""
            from torchvision.models.optical_flow import Raft_Large_Weights, raft_large

            flow = raft_large(weights=Raft_Large_Weights.C_T_SKHT_V2, progress=False)
            """,
        ),
        Unchanged(
            """
            import torchvision

            def build(args):
                return torchvision.models.resnet18(pretrained=args.pretrained)
            """,
            title="a flag that is not a literal: finding",
            findings=1,
        ),
        Unchanged(
            """
            from torchvision import models

            model = models.__dict__[args.arch](pretrained=True)
            backbone = getattr(models, name)(pretrained=is_main_process())
            vit = models.vit_h_14(pretrained=True)
            """,
            title="a builder chosen at run time; a model without legacy weights",
            findings=3,
        ),
        Unchanged(
            """
            import timm
            from torchvision import models

            a = timm.create_model("resnet18", pretrained=True)
            b = self.resnet18(pretrained=True)
            c = models.resnet18(weights=models.ResNet18_Weights.DEFAULT)
            """,
            title="look-alikes and the new API",
        ),
    ],
)


class _Unknown:
    """An argument whose value is not a literal."""


UNKNOWN = _Unknown()
ABSENT = object()


def _literal(expr: cst.BaseExpression) -> Any:
    """The value of a literal ``True`` / ``False`` / ``None`` / string / number, else ``UNKNOWN``."""
    if isinstance(expr, cst.Name) and expr.value in ("True", "False", "None"):
        return {"True": True, "False": False, "None": None}[expr.value]
    if isinstance(expr, (cst.SimpleString, cst.Integer, cst.ConcatenatedString)):
        try:
            return ast.literal_eval(code_of(expr))
        except (ValueError, SyntaxError):
            return UNKNOWN
    return UNKNOWN


def _short(qualname: str) -> str:
    """``ResNet18_Weights.IMAGENET1K_V1`` for ``torchvision.models.ResNet18_Weights.IMAGENET1K_V1``."""
    return ".".join(qualname.split(".")[-2:])


class _NoWeights(Exception):
    """The flag cannot be turned into a weights value without guessing: the message says why."""


def _weights_for(spec: Any, value_of: Any, builder: str) -> str:
    """The weights member ``flag=True`` loads under ``spec`` (a table entry), given the call's literal arguments."""
    if isinstance(spec, str):
        return spec
    if spec is None:
        raise _NoWeights(f"torchvision has no pretrained weights for {builder} under the legacy flag (True raises ValueError)")
    if "unsupported" in spec:
        raise _NoWeights(f"the legacy default of {builder} is computed at run time ({spec['unsupported']})")
    if "by" in spec:
        value = value_of(spec["by"])
        if isinstance(value, str) and value in spec["choices"]:
            return str(spec["choices"][value])
        raise _NoWeights(f"{builder}'s legacy weights depend on {spec['by']}=, which is not a known literal here")
    value = value_of(spec["kwarg"])
    if value is ABSENT:
        value = spec.get("default")
    if value is UNKNOWN:
        raise _NoWeights(f"{builder}'s legacy weights depend on {spec['kwarg']}=, which is not a literal here")
    chosen = value == spec["equals"] if "equals" in spec else bool(value)
    return _weights_for(spec["then"] if chosen else spec["else"], value_of, builder)


def _keyword(arg: cst.Arg, name: str, value: cst.BaseExpression | None = None) -> cst.Arg:
    """``arg`` as ``name=value`` (its own value when ``value`` is None), keeping its comma and comments."""
    equal = arg.equal if isinstance(arg.equal, cst.AssignEqual) else cst.AssignEqual(
        whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
    )
    return arg.with_changes(keyword=cst.Name(name), equal=equal, value=value if value is not None else arg.value)


@PASS.rewrites_calls(*BUILDERS)
def rewrite(call: cst.Call, ctx: CallContext) -> cst.BaseExpression | None:
    entry = BUILDERS[ctx.qualname]
    builder = ctx.qualname.rsplit(".", 1)[-1]
    params: list[str] = entry["params"]
    legacy: dict[str, dict[str, Any]] = entry["legacy"]
    flag_of = {info["flag"]: weights for weights, info in legacy.items()}
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if not positional and not any(a.keyword is not None and a.keyword.value in flag_of for a in call.args):
        return None
    if positional and any(a.star for a in call.args):
        ctx.finding(f"{builder}(...): positional arguments beside *args/**kwargs are deprecated since torchvision 0.13; name them ({', '.join(params)})")
        return None
    if len(positional) > len(params):
        ctx.finding(f"{builder}(...) takes at most {len(params)} arguments by position ({', '.join(params)}); name them")
        return None
    # The call's arguments by the name they bind to: positional ones by the builder's parameter order. The updated
    # call's arguments stand where the original's did (an inner rewrite changes values, never the argument list).
    named: list[tuple[str | None, cst.Arg, cst.Arg]] = []
    index = 0
    for a, original in zip(call.args, ctx.original.args, strict=True):
        if a.star:
            named.append((None, a, original))
        elif a.keyword is None:
            named.append((params[index], a, original))
            index += 1
        else:
            named.append((a.keyword.value, a, original))
    by_name = {name: a for name, a, _ in named if name is not None}

    def value_of(name: str) -> Any:
        """The literal value of the argument ``name`` (a legacy flag given by position sits on its weights parameter)."""
        found = by_name.get(name)
        if found is None and name in flag_of:
            found = by_name.get(flag_of[name])
        return ABSENT if found is None else _literal(found.value)

    new_args: list[cst.Arg] = []
    changes: list[str] = []
    for name, a, original in named:
        if name is None:
            new_args.append(a)
            continue
        flag_given = name in flag_of
        if not flag_given and name not in legacy:  # an ordinary argument: named if it was positional
            new_args.append(a if a.keyword is not None else _keyword(a, name))
            if a.keyword is None:
                changes.append(f"positional argument → {name}=")
            continue
        if not flag_given and a.keyword is not None:  # already weights=
            new_args.append(a)
            continue
        weights = flag_of[name] if flag_given else name
        flag = legacy[weights]["flag"]
        if flag_given and weights in by_name:
            ctx.finding(f"{builder}(...) passes both {name}= and {weights}=: drop {name}= (deprecated since torchvision 0.13)")
            return None
        value = _literal(a.value)
        if value is False or (value is None and not flag_given):
            new_args.append(_keyword(a, weights, cst.Name("None")))
            changes.append(f"{flag}={code_of(a.value)} → {weights}=None")
            continue
        if value is True:
            try:
                member = _weights_for(legacy[weights]["true"], value_of, builder)
            except _NoWeights as why:
                ctx.finding(f"{flag}=True is deprecated since torchvision 0.13, but {why}: pass {weights}= yourself")
                return None
            new_args.append(_keyword(a, weights, ctx.ref(member)))
            changes.append(f"{flag}=True → {weights}={_short(member)}")
            continue
        if not flag_given and _is_weights_value(ctx, original.value):  # resnet18(ResNet18_Weights.DEFAULT)
            new_args.append(_keyword(a, weights))
            changes.append(f"positional argument → {weights}=")
            continue
        suggestion = _suggestion(legacy[weights]["true"], value_of, builder)
        ctx.finding(
            f"{flag}= is deprecated since torchvision 0.13 and {code_of(a.value)} is not a literal: "
            f"write {weights}={suggestion.replace('<flag>', code_of(a.value))}"
        )
        return None
    ctx.message = f"torchvision {builder}: {', '.join(changes)} (torchvision 0.13 weights API)"
    return with_args(call, new_args)


def _is_weights_value(ctx: CallContext, value: cst.BaseExpression) -> bool:
    """Whether ``value`` (of the original call) names a member of a torchvision weights enum."""
    name = ctx.qualname_of(value)
    return name is not None and name.rpartition(".")[0] in _DATA["enums"]


def _suggestion(spec: Any, value_of: Any, builder: str) -> str:
    try:
        member = _short(_weights_for(spec, value_of, builder))
    except _NoWeights:
        return "<the weights you want> (or None)"
    return f"{member} if <flag> else None"


@PASS.uses
class LegacyFlags(PassTransformer):
    """Call rewriters for the builders (above); findings for builders chosen at run time."""

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        result = super().leave_Call(original_node, updated_node)
        flags = [a.keyword.value for a in original_node.args if a.keyword is not None and a.keyword.value in FLAGS]
        if not flags:
            return result
        func = original_node.func
        dynamic = isinstance(func, cst.Subscript) and self.qualname(func.value) == DYNAMIC[0]
        dynamic = dynamic or (isinstance(func, (cst.Name, cst.Attribute)) and self.qualname(func) == DYNAMIC[1])
        dynamic = dynamic or (  # getattr(torchvision.models, name)(pretrained=...)
            isinstance(func, cst.Call)
            and isinstance(func.func, cst.Name)
            and func.func.value == "getattr"
            and "getattr" not in self.global_names()
            and len(func.args) >= 2
            and self.qualname(func.args[0].value) == "torchvision.models"
        )
        if dynamic:
            self.finding(
                original_node,
                f"{'/'.join(flags)}= is deprecated since torchvision 0.13 and the model is chosen at run time: pass "
                "weights= (a weights enum member, or its name as a string: 'IMAGENET1K_V1' is what pretrained=True "
                "loaded for most classification models, 'DEFAULT' the newest) or weights=None",
            )
        return result
