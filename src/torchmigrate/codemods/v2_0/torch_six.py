"""`torch._six` was removed in PyTorch 2.0: use the standard library.

## What it does
| `torch._six` name | replacement (what the module defined) |
|---|---|
| `inf`, `nan` | `math.inf`, `math.nan` |
| `string_classes` | `(str, bytes)` |
| `int_classes` | `int` |
| `container_abcs` | `collections.abc` |
| `FileNotFoundError` | the builtin `FileNotFoundError` |
| `PY3`, `PY37` | `True` |

- `from torch._six import string_classes, inf` becomes `from math import inf` plus `string_classes = (str, bytes)`,
  so the names it bound keep working unchanged; `container_abcs` becomes `import collections.abc as container_abcs`.
- `torch._six.inf` (any alias: `import torch._six as six`, `from torch import _six`) becomes `math.inf`, and so on;
  the import goes once nothing uses it.
- Any other name (`with_metaclass`, `istuple`, …) or `from torch._six import *`: finding.
Code behind a version check or an `ImportError` fallback is left alone, as always.

## Why
pytorch/pytorch#94709 (PyTorch 2.0) deleted `torch/_six.py`, a Python 2 compatibility module: on 2.0 and later
`import torch._six` raises `ModuleNotFoundError`. Its last version (1.13) defined `inf = math.inf`, `nan = math.nan`,
`string_classes = (str, bytes)`; earlier ones also `int_classes = int`, `container_abcs = collections.abc`,
`FileNotFoundError` and the `PY3` / `PY37` flags.

## Fix safety
Safe: each replacement is the value the module assigned.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ParentNodeProvider

from torchmigrate.core.passes import REMOVAL, SAFE, Example, Pass
from torchmigrate.python.codemod import add_needed_import
from torchmigrate.python.helpers import build_dotted, dotted_name
from torchmigrate.python.transform import PassTransformer

SIX = "torch._six"
# name → (kind, value): "math" → from math import; "value" → an expression; "module" → a module
NAMES: dict[str, tuple[str, str]] = {
    "inf": ("math", "inf"),
    "nan": ("math", "nan"),
    "string_classes": ("value", "(str, bytes)"),
    "int_classes": ("value", "int"),
    "container_abcs": ("module", "collections.abc"),
    "FileNotFoundError": ("value", "FileNotFoundError"),
    "PY3": ("value", "True"),
    "PY37": ("value", "True"),
}

PASS = Pass(
    id="torch-six",
    release="2.0",
    kind=REMOVAL,
    safety=SAFE,
    since="1.8",  # the standard-library values work on every release
    title="torch._six (removed in 2.0) → math.inf, (str, bytes), int, collections.abc",
    evidence=(
        "pytorch/pytorch#94709 (PyTorch 2.0 removed torch/_six.py); 1.13 wheel torch/_six.py; ModuleNotFoundError on torch 2.13"
        "; since 1.8: the replacements are the standard library"
    ),
    triggers=("_six",),
    qualnames=frozenset({SIX}),
    examples=[
        Example(
            before="""
                from torch._six import inf, string_classes

                if isinstance(x, string_classes) and norm == inf:
                    pass
            """,
            after="""
                from math import inf
                string_classes = (str, bytes)

                if isinstance(x, string_classes) and norm == inf:
                    pass
            """,
        ),
        Example(
            title="aliases and container_abcs",
            before="""
                from torch._six import container_abcs, int_classes as ints

                ok = isinstance(batch, container_abcs.Mapping) or isinstance(batch, ints)
            """,
            after="""
                import collections.abc as container_abcs
                ints = int

                ok = isinstance(batch, container_abcs.Mapping) or isinstance(batch, ints)
            """,
        ),
        Example(
            title="uses spelled through the module",
            before="""
                import torch
                import torch._six

                if isinstance(x, torch._six.string_classes) or x == torch._six.inf:
                    pass
            """,
            after="""
                from math import inf

                if isinstance(x, (str, bytes)) or x == inf:
                    pass
            """,
        ),
        Example(
            title="a name with no plain replacement: finding",
            before="""
                from torch._six import with_metaclass

                class Base(with_metaclass(Meta, object)):
                    pass
            """,
            findings=1,
        ),
        Example(
            title="version-gated imports and the six package are left alone",
            before="""
                import six
                import torch

                if TORCH_MAJOR == 1 and TORCH_MINOR < 8:
                    from torch._six import container_abcs
                else:
                    import collections.abc as container_abcs
                s = six.string_types
            """,
        ),
    ],
)


def _statements(node: cst.ImportFrom) -> list[cst.BaseSmallStatement] | None:
    """The statements that bind what ``from torch._six import ...`` bound, or None if a name has no replacement."""
    assert not isinstance(node.names, cst.ImportStar)
    maths: list[cst.ImportAlias] = []
    out: list[cst.BaseSmallStatement] = []
    for alias in node.names:
        name = dotted_name(alias.name) or ""
        local = dotted_name(alias.asname.name) if alias.asname is not None else name
        kind, value = NAMES.get(name, ("", ""))
        if not kind or local is None:
            return None
        if kind == "math":
            maths.append(cst.ImportAlias(cst.Name(value), asname=None if local == value else cst.AsName(cst.Name(local))))
        elif kind == "module":
            dotted = build_dotted(value)
            assert isinstance(dotted, (cst.Attribute, cst.Name))
            out.append(cst.Import([cst.ImportAlias(dotted, asname=cst.AsName(cst.Name(local)))]))
        elif value != local:  # FileNotFoundError needs nothing when it keeps the builtin's name
            out.append(cst.Assign([cst.AssignTarget(cst.Name(local))], cst.parse_expression(value)))
    if maths:
        comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        names = [a.with_changes(comma=comma) for a in maths[:-1]] + [maths[-1]]
        out.insert(0, cst.ImportFrom(module=cst.Name("math"), names=names))
    return out


class TorchSix(PassTransformer):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._depth = 0

    def visit_Import(self, node: cst.Import) -> None:
        self._depth += 1

    def leave_Import(self, original_node: cst.Import, updated_node: cst.Import) -> cst.Import:
        self._depth -= 1
        return updated_node

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        self._depth += 1

    def leave_ImportFrom(self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom) -> cst.ImportFrom:
        self._depth -= 1
        return updated_node

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement]:
        if len(original_node.body) != 1 or not isinstance(original_node.body[0], cst.ImportFrom):
            return updated_node
        node = original_node.body[0]
        if node.relative or node.module is None or dotted_name(node.module) != SIX or not self.allowed(original_node):
            return updated_node
        if isinstance(node.names, cst.ImportStar):
            self.finding(node, "from torch._six import *: torch._six was removed in 2.0; import what you use from math, collections.abc or builtins")
            return updated_node
        statements = _statements(node)
        if statements is None:
            unknown = [dotted_name(a.name) for a in node.names if (dotted_name(a.name) or "") not in NAMES]
            self.finding(
                node,
                f"torch._six was removed in 2.0 and has no plain replacement for {', '.join(map(str, unknown))}: "
                "inline it (with_metaclass: class C(Base, metaclass=Meta))",
            )
            return updated_node
        self.edited(original_node, "from torch._six import … → the standard-library values it held")
        lines: list[cst.BaseStatement] = [
            cst.SimpleStatementLine([s], leading_lines=updated_node.leading_lines if i == 0 else ())
            for i, s in enumerate(statements)
        ]
        if lines:
            last = lines[-1]
            assert isinstance(last, cst.SimpleStatementLine)
            lines[-1] = last.with_changes(trailing_whitespace=updated_node.trailing_whitespace)
            return cst.FlattenSentinel(lines)
        return self.remove_statement(original_node, updated_node)

    def _use(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        if self._depth:
            return updated
        name = self.qualname(original)
        if name is None or not name.startswith(SIX + ".") or not self.allowed(original):
            return updated
        member = name[len(SIX) + 1 :]
        if "." in member:
            return updated  # the inner attribute (container_abcs) is handled
        kind, value = NAMES.get(member, ("", ""))
        if not kind:
            self.finding(original, f"torch._six.{member}: torch._six was removed in 2.0; inline what it did")
            return updated
        self.edited(original, f"torch._six.{member} → {value if kind != 'math' else 'math.' + value}")
        self.drop_imports_of(original)
        if kind == "math":
            return self.ref(f"math.{value}", like=original)
        if kind == "module":
            add_needed_import(self.context, value)
            return build_dotted(value)
        return cst.parse_expression(value)

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        parent = self.get_metadata(ParentNodeProvider, original_node, None)
        if isinstance(parent, cst.Attribute) and parent.value is original_node and self.qualname(parent) is not None:
            inner = self.qualname(original_node)
            if inner == SIX:
                return updated_node  # torch._six itself, in torch._six.inf: the outer attribute is replaced
        return self._use(original_node, updated_node)


PASS.uses(TorchSix)
