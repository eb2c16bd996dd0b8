"""`Tensor.storage()` (a `TypedStorage`) is deprecated since PyTorch 2.0: use `Tensor.untyped_storage()`.

## What it does
Rewrites the uses of `x.storage()` whose meaning an untyped storage keeps — one counted in bytes, not elements:

| before | after |
|---|---|
| `x.storage().data_ptr()` / `.nbytes()` / `.is_shared()` / `.is_pinned()` / `.device` | `x.untyped_storage().data_ptr()` / … |
| `x.storage().untyped()` | `x.untyped_storage()` |
| `x.storage().size() == 0` (or `!=`, `>`, `<=`, … `0`) | `x.untyped_storage().size() == 0` |
| `x.storage().size()` | `x.untyped_storage().size() // x.element_size()` |
| `x.storage().resize_(0)` | `x.untyped_storage().resize_(0)` |
| `x.storage().resize_(n)` | `x.untyped_storage().resize_(n * x.element_size())` |
| `x.storage().element_size()` / `x.storage().dtype` | `x.element_size()` / `x.dtype` |
| `x.storage().size() * x.storage().element_size()` | `x.untyped_storage().nbytes()` |

The two rows that name `x` twice need `x` to be a plain name or attribute chain (`p.data`, `self.buf`), so that
evaluating it again is harmless; with any other `x` they are findings. So is every other use of a `TypedStorage`:
one passed on or stored (`t.set_(x.storage())`, `s = x.storage()`), indexed, `len()`, `tolist()`, `_new_shared()`,
`copy_()`, `cpu()` / `cuda()` and the rest of its API, which counts in elements and carries a dtype. A `.storage()`
call with arguments, or on `self` (a method of the class at hand), is not a tensor's and is left alone.

## Why
PyTorch 2.0 deprecated `TypedStorage` ("TypedStorage is deprecated. It will be removed in the future and
UntypedStorage will be the only storage class … use tensor.untyped_storage() instead of tensor.storage()",
tracking issue pytorch/pytorch#85302). On torch 2.13 `Tensor.storage()` still returns one and warns (`UserWarning`, once per process
unless `torch.storage._set_always_warn_typed_storage_removal(True)`), as do its public methods.

## Fix safety
Safe: in torch 2.13 `torch/storage.py` a `TypedStorage` is a view of the tensor's `untyped_storage()` with the
tensor's dtype: `data_ptr`, `nbytes`, `is_shared`, `is_pinned`, `device` return the untyped storage's; `size()` is
`untyped.nbytes() // element_size`; `resize_(n)` is `untyped.resize_(n * element_size)`; `element_size()` is the
dtype's size. The comparison with 0 and the product read the byte count: they differ only for a storage whose byte
count is not a whole number of elements, which no typed resize or allocation produces (PyTorch's own FSDP tests
`untyped_storage().size() > 0` the same way).
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import ParentNodeProvider

from torchmigrate.core.passes import DEPRECATION, SAFE, Example, Pass, Unchanged
from torchmigrate.python.helpers import as_receiver, code_of, dotted_name, method_call
from torchmigrate.python.transform import PassTransformer

SAME = frozenset({"data_ptr", "nbytes", "is_shared", "is_pinned"})
SAME_ATTRIBUTES = frozenset({"device"})
ZERO_COMPARISONS = (cst.Equal, cst.NotEqual, cst.GreaterThan, cst.LessThanEqual, cst.LessThan, cst.GreaterThanEqual)

PASS = Pass(
    id="tensor-storage",
    release="2.0",
    kind=DEPRECATION,
    safety=SAFE,
    title="x.storage().data_ptr() / .size() / .resize_(n) → x.untyped_storage()… (bytes, not elements)",
    evidence=(
        "PyTorch 2.0: TypedStorage deprecated, every method warns (plan: pytorch/pytorch#85302); torch 2.13.0 torch/storage.py "
        "(TypedStorage._size, _resize_, data_ptr, nbytes: views of the untyped storage) and torch/_tensor.py storage(); "
        "since 2.0: Tensor.untyped_storage (torch 2.0.1 wheel, torch/_C/__init__.pyi:2423; absent from 1.13.1)"
    ),
    since="2.0",
    triggers=(".storage()",),
    examples=[
        Example(
            title="pointers and sizes",
            before="""
                def same_storage(x, y):
                    return x.storage().data_ptr() == y.storage().data_ptr()

                def free(p):
                    if p.data.storage().size() > 0:
                        p.data.storage().resize_(0)
            """,
            after="""
                def same_storage(x, y):
                    return x.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()

                def free(p):
                    if p.data.untyped_storage().size() > 0:
                        p.data.untyped_storage().resize_(0)
            """,
        ),
        Example(
            title="element counts become byte counts",
            before="""
                def alloc(buf, size):
                    if buf.storage().size() != size.numel():
                        buf.storage().resize_(size.numel())
                    return buf.storage().nbytes(), buf.storage().element_size(), buf.storage().untyped()

                param_bytes = sum(p.storage().size() * p.storage().element_size() for p in params)
            """,
            after="""
                def alloc(buf, size):
                    if buf.untyped_storage().size() // buf.element_size() != size.numel():
                        buf.untyped_storage().resize_(size.numel() * buf.element_size())
                    return buf.untyped_storage().nbytes(), buf.element_size(), buf.untyped_storage()

                param_bytes = sum(p.untyped_storage().nbytes() for p in params)
            """,
        ),
        Example(
            title="a TypedStorage passed on, indexed or sized through a call: findings",
            before="""
                import torch

                t = tensor.new_empty([0]).set_(tensor.storage())
                first = x.storage()[0]
                n = make().storage().size()
                s = elem.storage()._new_shared(numel)
            """,
            findings=4,
        ),
        Unchanged(
            """
            class Bucket:
                def storage(self):
                    return self._store

                def size(self):
                    return self.storage().size()

            blob = client.storage("bucket")
            y = x.untyped_storage().data_ptr()
            """,
            title="a method of the class at hand, a call with arguments, already untyped",
        ),
    ],
)


def _is_storage_call(node: cst.CSTNode) -> bool:
    if not isinstance(node, cst.Call) or node.args or not isinstance(node.func, cst.Attribute):
        return False
    if node.func.attr.value != "storage":
        return False
    receiver = node.func.value
    return not (isinstance(receiver, cst.Name) and receiver.value in ("self", "cls"))


def _receiver_of_storage(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """``x`` of ``x.storage().<attr>`` (an Attribute whose value is the storage call), else ``None``."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Call) and isinstance(node.value.func, cst.Attribute):
        return node.value.func.value
    return None


def _zero(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Integer) and node.value == "0"


@PASS.uses
class Storages(PassTransformer):
    """Rewrites at the outermost node a use spans (the method call on the storage, or the comparison with 0)."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self._handled: set[int] = set()  # ids of original ``x.storage()`` calls a rewrite took care of
        self._seen: list[cst.Call] = []

    # -- comparisons with 0: `x.storage().size() > 0` --
    def leave_Comparison(self, original_node: cst.Comparison, updated_node: cst.Comparison) -> cst.BaseExpression:
        if len(original_node.comparisons) != 1 or not self.allowed(original_node):
            return updated_node
        target = original_node.comparisons[0]
        sides = (original_node.left, target.comparator)
        if not isinstance(target.operator, ZERO_COMPARISONS):
            return updated_node
        size, other = (sides[0], sides[1]) if self._size_call(sides[0]) else (sides[1], sides[0])
        if not self._size_call(size) or not _zero(other):
            return updated_node
        assert isinstance(size, cst.Call) and isinstance(size.func, cst.Attribute)
        storage = size.func.value
        assert isinstance(storage, cst.Call) and isinstance(storage.func, cst.Attribute)
        self._handled.add(id(storage))
        self.edited(original_node, "x.storage().size() compared with 0 → x.untyped_storage().size() (bytes: 0 iff 0 elements)")
        updated_size = updated_node.left if size is original_node.left else updated_node.comparisons[0].comparator
        x = (_receiver_of_storage(updated_size.func) if isinstance(updated_size, cst.Call) else None) or storage.func.value
        new_size = method_call(self._untyped(x), "size")
        if size is original_node.left:
            return updated_node.with_changes(left=new_size)
        return updated_node.with_changes(comparisons=[updated_node.comparisons[0].with_changes(comparator=new_size)])

    # -- `x.storage().size() * x.storage().element_size()`: the byte count --
    def leave_BinaryOperation(self, original_node: cst.BinaryOperation, updated_node: cst.BinaryOperation) -> cst.BaseExpression:
        x = self._storage_bytes(original_node)
        if x is None or not self.allowed(original_node):
            return updated_node
        for side in (original_node.left, original_node.right):
            assert isinstance(side, cst.Call) and isinstance(side.func, cst.Attribute)
            self._handled.add(id(side.func.value))
        self.edited(original_node, "x.storage().size() * x.storage().element_size() → x.untyped_storage().nbytes()")
        left = updated_node.left
        x = (_receiver_of_storage(left.func) if isinstance(left, cst.Call) else None) or x
        return method_call(self._untyped(x), "nbytes").with_changes(lpar=updated_node.lpar, rpar=updated_node.rpar)

    def _storage_bytes(self, node: cst.CSTNode | None) -> cst.BaseExpression | None:
        """``x`` when ``node`` is ``x.storage().size() * x.storage().element_size()`` (either order, the same ``x``)."""
        if not isinstance(node, cst.BinaryOperation) or not isinstance(node.operator, cst.Multiply):
            return None
        methods = {}
        for side in (node.left, node.right):
            if not (isinstance(side, cst.Call) and not side.args and isinstance(side.func, cst.Attribute)):
                return None
            if not _is_storage_call(side.func.value):
                return None
            storage = side.func.value
            assert isinstance(storage, cst.Call) and isinstance(storage.func, cst.Attribute)
            methods[side.func.attr.value] = storage.func.value
        if set(methods) != {"size", "element_size"} or not self._pure(methods["size"]):
            return None
        if code_of(methods["size"]) != code_of(methods["element_size"]):
            return None
        return methods["size"]

    def _compared_with_zero(self, size: cst.Call) -> bool:
        """``size`` is one side of a comparison with 0, which :meth:`leave_Comparison` rewrites."""
        parent = self.get_metadata(ParentNodeProvider, size, None)
        if isinstance(parent, cst.ComparisonTarget):
            parent = self.get_metadata(ParentNodeProvider, parent, None)
        if not isinstance(parent, cst.Comparison) or len(parent.comparisons) != 1:
            return False
        if not isinstance(parent.comparisons[0].operator, ZERO_COMPARISONS):
            return False
        return _zero(parent.comparisons[0].comparator if parent.left is size else parent.left)

    def _size_call(self, node: cst.BaseExpression) -> bool:
        return (
            isinstance(node, cst.Call)
            and not node.args
            and isinstance(node.func, cst.Attribute)
            and node.func.attr.value == "size"
            and _is_storage_call(node.func.value)
        )

    # -- the other uses, seen from the storage call --
    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        result = super().leave_Call(original_node, updated_node)
        func = original_node.func
        if not isinstance(func, cst.Attribute) or not _is_storage_call(func.value) or not self.allowed(original_node):
            return result
        storage = func.value
        assert isinstance(storage, cst.Call) and isinstance(storage.func, cst.Attribute)
        if id(storage) in self._handled or self._storage_bytes(self.get_metadata(ParentNodeProvider, original_node, None)):
            return result
        x = _receiver_of_storage(updated_node.func) or storage.func.value  # the updated tree's x
        method = func.attr.value
        new: cst.BaseExpression | None = None
        if method in SAME:
            new = updated_node.with_changes(func=cst.Attribute(value=self._untyped(x), attr=func.attr))
        elif method == "untyped" and not original_node.args:
            new = self._untyped(x)
        elif method == "element_size" and not original_node.args:
            new = method_call(x, "element_size")
        elif method == "resize_" and len(original_node.args) == 1 and original_node.args[0].keyword is None:
            if _zero(original_node.args[0].value):
                new = updated_node.with_changes(func=cst.Attribute(value=self._untyped(x), attr=func.attr))
            elif self._pure(x):
                count = updated_node.args[0].value
                nbytes = cst.BinaryOperation(left=as_operand(count), operator=cst.Multiply(), right=method_call(x, "element_size"))
                new = method_call(self._untyped(x), "resize_", cst.Arg(nbytes))
        elif method == "size" and not original_node.args and self._pure(x) and not self._compared_with_zero(original_node):
            new = cst.BinaryOperation(
                left=method_call(self._untyped(x), "size"), operator=cst.FloorDivide(), right=method_call(x, "element_size")
            )
        if new is None:
            return result
        self._handled.add(id(storage))
        self.edited(original_node, f"x.storage().{method}(…) → its untyped-storage equivalent, in bytes (TypedStorage is deprecated)")
        return new

    def leave_Attribute(self, original_node: cst.Attribute, updated_node: cst.Attribute) -> cst.BaseExpression:
        if not _is_storage_call(original_node.value) or not self.allowed(original_node):
            return updated_node
        parent = self.get_metadata(ParentNodeProvider, original_node, None)
        if isinstance(parent, cst.Call) and parent.func is original_node:
            return updated_node  # a method call: leave_Call decides
        storage = original_node.value
        assert isinstance(storage, cst.Call) and isinstance(storage.func, cst.Attribute)
        x = _receiver_of_storage(updated_node) or storage.func.value
        name = original_node.attr.value
        if name in SAME_ATTRIBUTES:
            new: cst.BaseExpression = cst.Attribute(value=self._untyped(x), attr=original_node.attr)
            message = f"x.storage().{name} → x.untyped_storage().{name} (TypedStorage is deprecated)"
        elif name == "dtype":
            new = cst.Attribute(value=as_receiver(x), attr=original_node.attr)
            message = "x.storage().dtype → x.dtype (TypedStorage is deprecated)"
        else:
            return updated_node
        self._handled.add(id(storage))
        self.edited(original_node, message)
        return new

    def visit_Call(self, node: cst.Call) -> None:
        if _is_storage_call(node):
            self._seen.append(node)  # version-guarded code is never visited

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        for call in self._seen:
            if id(call) not in self._handled:
                self.finding(
                    call,
                    "x.storage() returns a deprecated TypedStorage, counted in elements: use x.untyped_storage() "
                    "(counted in bytes: size() is nbytes, resize_(n) takes bytes, indexing reads bytes) and "
                    "x.dtype / x.element_size() for the typed view",
                )
        return super().leave_Module(original_node, updated_node)

    def _untyped(self, x: cst.BaseExpression) -> cst.Call:
        return method_call(x, "untyped_storage")

    @staticmethod
    def _pure(x: cst.BaseExpression) -> bool:
        """A plain name or attribute chain, safe to evaluate twice."""
        return dotted_name(x) is not None


def as_operand(node: cst.BaseExpression) -> cst.BaseExpression:
    """``node`` as the left operand of ``*``: parenthesized unless it binds at least as tightly."""
    if isinstance(node, cst.BinaryOperation | cst.BooleanOperation | cst.IfExp | cst.Lambda | cst.Comparison):
        if not node.lpar:
            return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return node
