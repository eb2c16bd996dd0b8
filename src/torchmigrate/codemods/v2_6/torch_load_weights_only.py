"""`torch.load` defaults to `weights_only=True` since PyTorch 2.6: make the choice explicit, never the insecure one.

## What it does
For each `torch.load(...)` call that does not say `weights_only`:
- where the loaded object visibly goes straight into `load_state_dict` — `model.load_state_dict(torch.load(p))`, or
  `sd = torch.load(p)` where `sd` is assigned once and only ever used as `x.load_state_dict(sd)` — it adds
  `weights_only=True`: the 2.6 default, which is right for a state dict, now written down (it also makes the code load
  the same way on older torch).
- everywhere else it reports a finding that explains the 2.6 change: the file may be a full checkpoint (an optimizer,
  an `argparse.Namespace`, a custom class…) that the new default refuses to unpickle.
- `torch.load(..., **kwargs)`, `functools.partial(torch.load, ...)` and `torch.load` passed around as a value get a
  finding too (whether `weights_only` is set cannot be seen) — unless the `**kwargs` dict is built in view in the same
  function and sets `weights_only` (`kw = {"weights_only": False}`, `kw["weights_only"] = True`, `kw.update(...)`),
  which counts as passing it. Calls that pass `pickle_module` are left alone: they still default to
  `weights_only=False` in 2.6+.
- No finding where the code already works with the 2.6 default: inside `with torch.serialization.safe_globals([...])`,
  in a file that calls `torch.serialization.add_safe_globals`, or for uses of `torch.load` that load nothing
  (`inspect.signature(torch.load)`, `torch.load = patched`, `callable(torch.load)`).

## Why
PyTorch 2.6 flipped the default of `torch.load`'s `weights_only` from `False` to `True` (2.6 release notes,
BC-breaking section; 2.4 and 2.5 warned with a FutureWarning). TorchFix's TOR102 rule flags the same calls. A full pickle now fails with an `UnpicklingError` that names 2.6.

## Fix safety
Safe: the only edit writes `weights_only=True`, which is exactly what torch 2.6+ does without it. The tool never adds
`weights_only=False` by itself: loading a file with full pickle support can run arbitrary code, so that choice is left
to the user (for trusted files only), as is allow-listing classes with `torch.serialization.safe_globals([...])`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

import libcst as cst
from libcst.metadata import ParentNodeProvider, ScopeProvider

from torchmigrate.core.passes import BEHAVIOUR, SAFE, Example, Pass
from torchmigrate.python.helpers import arg, find_all, has_star_args, kwarg, with_kwarg
from torchmigrate.python.sites import AstFile, Site, analyser
from torchmigrate.python.starargs import star_keys
from torchmigrate.python.transform import PassTransformer


def _may_lack_weights_only(call: ast.Call) -> bool:
    """Precheck: only a call without ``weights_only=`` (or with ``**kwargs``) can need this pass."""
    return not any(keyword.arg == "weights_only" for keyword in call.keywords)


PASS = Pass(
    qualnames=frozenset({"torch.load"}),
    # `load` spells every site; the other two keep the allow-listing statements in the slice libcst sees
    triggers=("load", "safe_globals", "add_safe_globals"),
    call_filter=_may_lack_weights_only,
    id="torch-load-weights-only",
    follows_uses="bound",  # a loaded value's uses (load_state_dict) and **kwargs dicts' changes
    release="2.6",
    since="1.13",
    kind=BEHAVIOUR,
    safety=SAFE,
    title="torch.load(f) → weights_only=True where it feeds load_state_dict; elsewhere a finding",
    evidence=(
        "PyTorch 2.6 release notes (BC-breaking: torch.load defaults to weights_only=True); default checked on torch 2.13"
        "; since 1.13: torch.load(weights_only=) (torch 1.13.1 wheel, torch/serialization.py)"
    ),
    examples=[
        Example(
            title="straight into load_state_dict",
            before="""
                import torch

                model.load_state_dict(torch.load('weights.pt'))
            """,
            after="""
                import torch

                model.load_state_dict(torch.load('weights.pt', weights_only=True))
            """,
        ),
        Example(
            title="through a local name only used by load_state_dict, import torch as th",
            before="""
                import torch as th


                def restore(model, path):
                    state = th.load(path, map_location='cpu')
                    model.load_state_dict(state, strict=False)
            """,
            after="""
                import torch as th


                def restore(model, path):
                    state = th.load(path, map_location='cpu', weights_only=True)
                    model.load_state_dict(state, strict=False)
            """,
        ),
        Example(
            title="from torch import load",
            before="""
                from torch import load

                net.load_state_dict(load(f))
            """,
            after="""
                from torch import load

                net.load_state_dict(load(f, weights_only=True))
            """,
        ),
        Example(
            title="torch.load as a parameter's default: finding (speechbrain/speechbrain)",
            before="""
                import torch


                def average(paths, loader=torch.load):
                    return [loader(p) for p in paths]
            """,
            findings=1,
        ),
        Example(
            title="a full checkpoint: finding",
            before="""
                import torch

                ckpt = torch.load(path)
                model.load_state_dict(ckpt['model'])
                epoch = ckpt['epoch']
            """,
            findings=1,
        ),
        Example(
            title="a subscript of the loaded object: finding",
            before="""
                import torch

                model.load_state_dict(torch.load(path)['state_dict'])
            """,
            findings=1,
        ),
        Example(
            title="**kwargs may hold weights_only: finding",
            before="""
                import torch

                model.load_state_dict(torch.load(path, **load_kwargs))
            """,
            findings=1,
        ),
        Example(
            title="**kwargs built in the same function: weights_only set there counts as passed",
            before="""
                import torch
                from packaging.version import Version


                def restore(path):
                    if Version(torch.__version__) >= Version("1.13.0"):
                        kwargs = {"weights_only": False}
                    else:
                        kwargs = {}
                    return torch.load(path, **kwargs)


                def restore_cpu(path):
                    load_kwargs = dict(map_location="cpu")
                    load_kwargs["weights_only"] = True
                    return torch.load(path, **load_kwargs)
            """,
        ),
        Example(
            title="**kwargs built in view without weights_only: finding",
            before="""
                import torch


                def restore(path):
                    kwargs = {"map_location": "cpu"}
                    return torch.load(path, **kwargs)
            """,
            findings=1,
        ),
        Example(
            title="already allow-listed for the weights_only default, or not a load: nothing to say",
            before="""
                import inspect

                import torch


                def restore(path):
                    with torch.serialization.safe_globals([MyConfig]):
                        return torch.load(path)


                takes_weights_only = "weights_only" in inspect.signature(torch.load).parameters
                torch.load = patched_load
                assert callable(torch.load)
            """,
        ),
        Example(
            title="a file that registers its classes with add_safe_globals: nothing to say",
            before="""
                import torch

                torch.serialization.add_safe_globals([MyConfig])


                def restore(path):
                    return torch.load(path)
            """,
        ),
        Example(
            title="functools.partial(torch.load, ...): finding",
            before="""
                import functools
                import torch

                loader = functools.partial(torch.load, map_location='cpu')
            """,
            findings=1,
        ),
        Example(
            title="weights_only already chosen, pickle_module given, partial with weights_only: unchanged",
            before="""
                import functools
                import pickle
                import torch

                a = torch.load(p, weights_only=False)
                b = torch.load(p, map_location='cpu', pickle_module=pickle)
                c = functools.partial(torch.load, weights_only=True)
            """,
        ),
        Example(
            title="look-alikes: numpy, a method, a user function",
            before="""
                import numpy as np


                def load(p):
                    return p

                arr = np.load(p)
                self.load(p)
                model.load_state_dict(load(p))
            """,
        ),
    ],
)

_FINDING = (
    "since PyTorch 2.6 torch.load defaults to weights_only=True and refuses (UnpicklingError) "
    "files that pickle more than tensors and plain containers. If the file holds only weights, pass weights_only=True; "
    "for a full checkpoint from a source you trust, pass weights_only=False, or allow its classes with "
    "`with torch.serialization.safe_globals([...])`"
)


_UNKNOWN_KWARGS = "torch.load(..., **kwargs): cannot tell whether weights_only is among them; " + _FINDING
_WITHOUT = "torch.load(...) without weights_only: " + _FINDING
_AS_A_VALUE = "torch.load passed as a value, so its calls cannot be checked for weights_only: " + _FINDING
_SAFE_GLOBALS = frozenset({"torch.serialization.safe_globals"})
_LOOKS = frozenset({"callable", "id", "isinstance", "hasattr", "getattr", "repr", "str", "print", "type"})
_WRAPS = frozenset({"functools.wraps", "functools.update_wrapper"})


def _is_load_state_dict_arg(node: cst.CSTNode, transformer: PassTransformer) -> bool:
    """``node`` is the state-dict argument of a ``x.load_state_dict(...)`` call."""
    parent = transformer.get_metadata(ParentNodeProvider, node, None)
    if not isinstance(parent, cst.Arg) or parent.star:
        return False
    call = transformer.get_metadata(ParentNodeProvider, parent, None)
    if not isinstance(call, cst.Call) or not isinstance(call.func, cst.Attribute):
        return False
    if call.func.attr.value != "load_state_dict":
        return False
    if parent.keyword is not None:
        return parent.keyword.value == "state_dict"
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return bool(positional) and positional[0] is parent


class LoadTransformer(PassTransformer):
    # The only qualified name this transformer acts on: the engine's ast precheck then skips files whose `load` is
    # some other function's (json.load, a method), without a libcst parse.

    _safe_globals_file: bool | None = None

    def _allows_weights_only(self, node: cst.CSTNode) -> bool:
        """False where the code already works with ``weights_only=True`` loading: inside ``with
        torch.serialization.safe_globals([...])``, or in a file that calls ``torch.serialization.add_safe_globals``
        (it allow-lists its classes for the 2.6 default), so the finding has nothing to add."""
        if self._safe_globals_file is None:
            module = self.context.module
            self._safe_globals_file = module is not None and self._calls_add_safe_globals(module)
        if self._safe_globals_file:
            return False
        current: cst.CSTNode | None = node
        while current is not None:
            if isinstance(current, cst.With) and any(
                isinstance(item.item, cst.Call) and self.qualname(item.item.func) in _SAFE_GLOBALS for item in current.items
            ):
                return False
            current = self.get_metadata(ParentNodeProvider, current, None)
        return True

    def _calls_add_safe_globals(self, module: cst.Module) -> bool:
        return any(self.qualname(call.func) == "torch.serialization.add_safe_globals" for call in find_all(module, cst.Call))

    def _feeds_load_state_dict(self, call: cst.Call) -> bool:
        if _is_load_state_dict_arg(call, self):
            return True
        parent = self.get_metadata(ParentNodeProvider, call, None)
        target: cst.BaseExpression | None = None
        if isinstance(parent, cst.Assign) and len(parent.targets) == 1:
            target = parent.targets[0].target
        elif isinstance(parent, cst.AnnAssign) and parent.value is call:
            target = parent.target
        if not isinstance(target, cst.Name):
            return False
        scope = self.get_metadata(ScopeProvider, target, None)
        if scope is None:
            return False
        assignments = list(scope.assignments[target.value])
        if len(assignments) != 1:
            return False
        references = list(assignments[0].references)
        return bool(references) and all(_is_load_state_dict_arg(ref.node, self) for ref in references)

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if self.qualname(original_node.func) != "torch.load" or not self.allowed(original_node):
            return updated_node
        if kwarg(original_node, "weights_only") is not None:
            return updated_node
        pickle_module = arg(original_node, 2, "pickle_module")
        if pickle_module is not None and not (isinstance(pickle_module.value, cst.Name) and pickle_module.value.value == "None"):
            return updated_node  # an explicit pickle_module keeps weights_only=False as the default, also in 2.6+
        if has_star_args(original_node):
            keys = star_keys(self, original_node)
            if keys.sets("weights_only") or keys.sets("pickle_module"):
                return updated_node  # the **kwargs dict built above chooses
            if not self._allows_weights_only(original_node):
                return updated_node
            if keys.complete:
                self.finding(original_node, "torch.load(..., **kwargs) without weights_only (the dict does not set it): " + _FINDING)
            else:
                self.finding(original_node, _UNKNOWN_KWARGS)
            return updated_node
        if not self._feeds_load_state_dict(original_node):
            if self._allows_weights_only(original_node):
                self.finding(original_node, _WITHOUT)
            return updated_node
        self.edited(original_node, "torch.load feeds load_state_dict: weights_only=True (the 2.6 default) made explicit")
        return with_kwarg(updated_node, "weights_only", "True")

    def _value_reference(self, node: cst.BaseExpression) -> None:
        """``torch.load`` used as a value (not called): ``functools.partial(torch.load, ...)``, ``f = torch.load``."""
        if self.qualname(node) != "torch.load" or not self.allowed(node):
            return
        parent = self.get_metadata(ParentNodeProvider, node, None)
        if isinstance(parent, cst.Call) and parent.func is node:
            return
        if isinstance(parent, cst.Attribute):
            return  # `torch.load.__doc__` and the like
        if isinstance(parent, (cst.AssignTarget, cst.Comparison, cst.ComparisonTarget)) or (
            isinstance(parent, cst.AugAssign) and parent.target is node
        ):
            return  # `torch.load = patched`, `f is torch.load`: nothing loads here
        if isinstance(parent, cst.Arg):
            inspected = self.get_metadata(ParentNodeProvider, parent, None)
            callee = self.qualname(inspected.func) if isinstance(inspected, cst.Call) else None
            if isinstance(inspected, cst.Call) and isinstance(inspected.func, cst.Name) and inspected.func.value in _LOOKS:
                return  # `callable(torch.load)`, `id(torch.load)`…
            if callee is not None and (callee.startswith("inspect.") or callee in _WRAPS):
                return  # `inspect.signature(torch.load)`, `functools.wraps(torch.load)`: introspection, no load
        current = parent
        while current is not None and not isinstance(current, (cst.BaseSmallStatement, cst.BaseCompoundStatement)):
            if isinstance(current, cst.ImportAlias):
                return
            current = self.get_metadata(ParentNodeProvider, current, None)
        if isinstance(current, (cst.Import, cst.ImportFrom)):
            return
        if isinstance(parent, cst.Arg):
            call = self.get_metadata(ParentNodeProvider, parent, None)
            if isinstance(call, cst.Call) and self.qualname(call.func) == "functools.partial":
                if kwarg(call, "weights_only") is not None:
                    return
                if not has_star_args(call):
                    self.finding(node, "functools.partial(torch.load, ...) without weights_only: " + _FINDING)
                    return
        self.finding(node, _AS_A_VALUE)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._value_reference(node)

    def visit_Name(self, node: cst.Name) -> None:
        self._value_reference(node)


PASS.uses(LoadTransformer)


def detect(file: AstFile) -> Iterator[Site]:
    """``LoadTransformer``'s findings from the stdlib ast where the ast settles them; every other site is an edit
    site for libcst: a call that may feed ``load_state_dict`` (directly, or through a variable in a scope whose text
    spells ``load_state_dict``), ``**kwargs`` that may set ``weights_only`` or ``pickle_module``, and ``torch.load``
    used as a value."""
    safe_file: bool | None = None
    for node in file.walk():
        if isinstance(node, (ast.Name, ast.Attribute)):
            parent = file.parent(node)
            if not (isinstance(parent, ast.Call) and parent.func is node) and file.qualname(node) == "torch.load":
                site = _value_site(file, node, parent)
                if site is not None:
                    yield site
            continue
        if not isinstance(node, ast.Call) or file.callee(node) != "torch.load" or not _may_lack_weights_only(node):
            continue
        positional = [a for a in node.args if not isinstance(a, ast.Starred)]
        pickle = positional[2] if len(positional) > 2 else next((k.value for k in node.keywords if k.arg == "pickle_module"), None)
        if pickle is not None and not (isinstance(pickle, ast.Name) and pickle.id == "None"):
            continue
        starred = any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords)
        if starred:
            if not (file.star_keys_unknown(node, "weights_only") and file.star_keys_unknown(node, "pickle_module")):
                yield file.edit(node)
                continue
            message = _UNKNOWN_KWARGS
        elif _may_feed_load_state_dict(file, node):
            yield file.edit(node)
            continue
        else:
            message = _WITHOUT
        if safe_file is None:
            safe_file = any(file.callee(n) == "torch.serialization.add_safe_globals" for n in file.nodes)
        if not safe_file and not _in_safe_globals(file, node):
            yield file.finding(node, message)


def _value_site(file: AstFile, node: ast.Name | ast.Attribute, parent: ast.AST | None) -> Site | None:
    """``LoadTransformer._value_reference`` for ``torch.load`` used as a value, where the ast settles it: nothing for
    ``torch.load.attr``, a comparison, or the target of an assignment or augmented assignment; an edit site for libcst
    where libcst's node is an ``Arg`` (a call's argument, a class's base: introspection, ``functools.partial``); the
    finding everywhere else (a parameter's default, a return value, an assigned value…)."""
    if isinstance(parent, (ast.Attribute, ast.Compare)):
        return None
    if isinstance(parent, ast.Assign) and node in parent.targets or isinstance(parent, ast.AugAssign) and parent.target is node:
        return None
    if isinstance(parent, (ast.Call, ast.keyword, ast.Starred, ast.ClassDef)):
        return file.edit(node)
    return file.finding(node, _AS_A_VALUE)


def _may_feed_load_state_dict(file: AstFile, call: ast.Call) -> bool:
    """False only where ``LoadTransformer._feeds_load_state_dict`` is certainly False."""
    parent = file.parent(call)
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) and parent.func.attr == "load_state_dict":
        return True
    if isinstance(parent, ast.keyword) or isinstance(parent, ast.Starred):
        return True  # an argument the ast places differently than libcst: let libcst tell
    target: ast.expr | None = None
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1:
        target = parent.targets[0]
    elif isinstance(parent, ast.AnnAssign) and parent.value is call:
        target = parent.target
    if not isinstance(target, ast.Name):
        return False
    where = file.scope_text(target)
    if where is None:
        return True
    if "load_state_dict" not in where or _bound_again(file, target):
        return False
    return not _read_otherwise(file, target, parent)


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _read_otherwise(file: AstFile, target: ast.Name, statement: ast.AST | None) -> bool:
    """Whether ``target``'s scope reads the name, after ``statement`` (its only binding there or not), other than as
    the state-dict argument of a ``load_state_dict`` call: libcst's scope analysis then gives the binding a
    reference that ``_feeds_load_state_dict`` rejects. Only the scope's own code is read (nested functions, classes
    and comprehensions are left out), and only reads that start after the assignment (libcst orders a scope's
    accesses and assignments): ``checkpoint = torch.load(f)`` then ``opt.load_state_dict(checkpoint["opt"])``."""
    scope = file.scope_of(target)
    if not isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Module)):
        return False  # (the caller has settled the other cases)
    end = (getattr(statement, "end_lineno", None) or 0, getattr(statement, "end_col_offset", None) or 0)
    stack: list[ast.AST] = list(scope.body)
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPES):
            continue
        if (
            isinstance(node, ast.Name)
            and node.id == target.id
            and isinstance(node.ctx, ast.Load)
            and (node.lineno, node.col_offset) > end
            and not _may_be_state_dict_argument(file, node)
        ):
            return True
        stack.extend(ast.iter_child_nodes(node))
    return False


def _bound_again(file: AstFile, target: ast.Name) -> bool:
    """Whether ``target``'s scope certainly binds the name somewhere else too: libcst's scope then has more than one
    assignment of it, and ``_feeds_load_state_dict`` says no (``sd = f(p)`` then ``if sd is None: sd = torch.load(p)``).
    Counted: the scope function's parameters, and the names an assignment, augmented assignment, annotated
    assignment with a value, ``for`` target or ``with … as`` stores in the scope's own code (nested functions,
    classes and comprehensions are left out; a ``:=`` target, which may bind elsewhere, is not counted)."""
    scope = file.scope_of(target)
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
        arguments = scope.args
        every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
        if any(a is not None and a.arg == target.id for a in every):
            return True
    elif not isinstance(scope, ast.Module):
        return False
    stack: list[ast.AST] = list(scope.body)
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
            if isinstance(node, ast.AnnAssign) and node.value is None:
                stored: list[ast.expr] = []
            elif isinstance(node, ast.Assign):
                stored = list(node.targets)
            elif isinstance(node, (ast.With, ast.AsyncWith)):
                stored = [item.optional_vars for item in node.items if item.optional_vars is not None]
            else:
                stored = [node.target]
            for root in stored:
                for sub in ast.walk(root):
                    if isinstance(sub, ast.Name) and sub.id == target.id and sub is not target and isinstance(sub.ctx, ast.Store):
                        return True
        stack.extend(ast.iter_child_nodes(node))
    return False


def _may_be_state_dict_argument(file: AstFile, node: ast.Name) -> bool:
    """False only where ``_is_load_state_dict_arg`` is certainly False for ``node``."""
    parent = file.parent(node)
    if isinstance(parent, ast.keyword):
        call = file.parent(parent)
        return parent.arg == "state_dict" and _is_load_state_dict_call(call)
    if isinstance(parent, ast.Call):
        return parent.func is not node and _is_load_state_dict_call(parent)
    return isinstance(parent, ast.Starred)


def _is_load_state_dict_call(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "load_state_dict"


def _in_safe_globals(file: AstFile, node: ast.AST) -> bool:
    current = file.parent(node)
    while current is not None:
        if isinstance(current, (ast.With, ast.AsyncWith)) and any(
            file.callee(item.context_expr) in _SAFE_GLOBALS for item in current.items
        ):
            return True
        current = file.parent(current)
    return False


PASS.analyse = analyser(PASS.id, detect, exact=True)
