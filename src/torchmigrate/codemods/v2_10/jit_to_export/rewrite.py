"""jit-to-export, step 2: apply a :class:`~.analysis.Plan` with libcst. Nothing is decided here.

The engine runs this transformer only for a file whose plan has edits (``Pass.analyse``), with the plan as
``self.plan``; nodes are found by their position (``PositionProvider``), names through ``self.ref`` (which reuses the
file's aliases and schedules imports), and imports the rewrite leaves unused go through ``drop_imports_of``.
"""

from __future__ import annotations

import libcst as cst
from libcst.metadata import PositionProvider

from torchmigrate.python.astscope import Span
from torchmigrate.python.codemod import add_needed_import
from torchmigrate.python.helpers import bind, build_dotted, chain_root, fix_commas
from torchmigrate.python.transform import PassTransformer

from .analysis import SAVE_PARAMS, SCRIPT_PARAMS, TRACE_PARAMS, Plan, ScriptEdit, TraceEdit

__all__ = ["JitRewrite"]

DYNAMIC = "review: export specializes shapes (dynamic_shapes=), the module cannot .train()/.eval()"


def _positional(a: cst.Arg) -> cst.Arg:
    return a.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)


def _keyword(a: cst.Arg, name: str) -> cst.Arg:
    return a.with_changes(
        keyword=cst.Name(name),
        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")),
    )


def _finish_args(call: cst.Call, args: list[cst.Arg]) -> list[cst.Arg]:
    """``fix_commas(args)``; when the old last argument was dropped, the new last one closes the call where the old one
    did (its comment kept), so a multi-line call keeps its closing bracket's indentation."""
    args = fix_commas(args)
    if not call.args or not args or args[-1] is call.args[-1]:
        return args
    old = call.args[-1].comma
    new = args[-1].comma
    if isinstance(old, cst.Comma) and isinstance(old.whitespace_after, cst.ParenthesizedWhitespace):
        if isinstance(new, cst.Comma) and isinstance(new.whitespace_after, cst.ParenthesizedWhitespace):
            closing = new.whitespace_after.with_changes(
                indent=old.whitespace_after.indent, last_line=old.whitespace_after.last_line
            )
            args[-1] = args[-1].with_changes(comma=new.with_changes(whitespace_after=closing))
        else:
            args[-1] = args[-1].with_changes(comma=old)
    elif isinstance(new, cst.Comma):
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return args


def _module_call(expr: cst.BaseExpression) -> cst.Call:
    """``expr.module()``."""
    return cst.Call(func=cst.Attribute(value=expr, attr=cst.Name("module")))


def _atom(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr``, parenthesized unless it binds tighter than any operator around it (it replaces a call)."""
    if isinstance(expr, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or expr.lpar:
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


class JitRewrite(PassTransformer):
    """Rewrites exactly the nodes the plan names."""

    plan: Plan

    def visit_Module(self, node: cst.Module) -> bool:
        plan = self.plan
        self.traces: dict[Span, TraceEdit] = {t.span: t for t in plan.traces}
        self.scripts: dict[Span, ScriptEdit] = {s.span: s for s in plan.scripts}
        self.saves = dict(plan.saves)
        self.program_calls = set(plan.program_calls)
        self.loads = set(plan.loads)
        self.decorators = set(plan.decorators)
        self.removed = set(plan.removed)
        return True

    def span_of(self, node: cst.CSTNode) -> Span | None:
        found = self.get_metadata(PositionProvider, node, None)
        if found is None:
            return None
        return Span((found.start.line, found.start.column), (found.end.line, found.end.column))

    def _torch_ref(self, qualname: str, like: cst.CSTNode) -> cst.BaseExpression:
        """Like :meth:`ref`, but never ``from torch import compile`` (it would shadow the builtin)."""
        if qualname == "torch.compile":
            root = chain_root(like) if isinstance(like, cst.Attribute) else None
            uses_torch = root is not None and self.qualname(root) == "torch"
            imported = any(full == "torch" for full, _ in self.module_imports())
            if not uses_torch and not imported and "torch" not in self.global_names():
                add_needed_import(self.context, "torch")
                return build_dotted("torch.compile")
        return self.ref(qualname, like=like)

    # --- calls ------------------------------------------------------------------------------------------------

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        where = self.span_of(original_node)
        if where is None:
            return updated_node
        if where in self.traces:
            return self._trace(original_node, updated_node, self.traces[where])
        if where in self.scripts:
            return self._script(original_node, updated_node, self.scripts[where])
        if where in self.program_calls:
            self.edited(original_node, "call of the ExportedProgram → .module()(...)")
            return updated_node.with_changes(func=_module_call(updated_node.func))
        if where in self.saves:
            return self._save(original_node, updated_node, self.saves[where])
        if where in self.loads:
            return self._load(original_node, updated_node)
        return updated_node

    def _trace(self, original: cst.Call, call: cst.Call, edit: TraceEdit) -> cst.BaseExpression:
        bound = bind(call, TRACE_PARAMS)
        func = bound.get("func")
        assert func is not None
        model = _positional(func)
        if edit.from_forward:
            value = model.value
            assert isinstance(value, cst.Attribute)
            model = model.with_changes(value=value.value)
        args = [model]
        example = bound.get("example_inputs")
        if edit.inputs == "none" or example is None:
            args.append(cst.Arg(cst.Tuple([]), comma=model.comma))
        else:
            inputs = _positional(example)
            value = inputs.value
            if edit.inputs == "list" and isinstance(value, cst.List):
                elements = list(value.elements)
                if len(elements) == 1:
                    elements[0] = elements[0].with_changes(comma=cst.Comma())
                inputs = inputs.with_changes(value=cst.Tuple(elements))
            elif edit.inputs == "iterable":
                inputs = inputs.with_changes(value=cst.Call(func=cst.Name("tuple"), args=[cst.Arg(value)]))
            elif edit.inputs == "single":
                inputs = inputs.with_changes(value=cst.Tuple([cst.Element(value, comma=cst.Comma())]))
            args.append(inputs)
        kwargs = bound.get("example_kwarg_inputs")
        if kwargs is not None:
            args.append(_keyword(kwargs, "kwargs"))
        exported: cst.BaseExpression = call.with_changes(
            func=self.ref("torch.export.export", like=original.func), args=_finish_args(call, args)
        )
        message = "torch.jit.trace → torch.export.export"
        if edit.keep_program:
            message += " (the ExportedProgram is saved; calls use .module())"
        else:
            exported = _module_call(exported)
            message += "(...).module()"
        if edit.dropped:
            message += f"; dropped {', '.join(edit.dropped)} (no torch.export equivalent)"
        self.edited(original, f"{message}; {DYNAMIC}")
        self.drop_imports_of(original.func)
        return exported

    def _script(self, original: cst.Call, call: cst.Call, edit: ScriptEdit) -> cst.BaseExpression:
        obj = bind(call, SCRIPT_PARAMS).get("obj")
        assert obj is not None
        dropped = f"; dropped {', '.join(edit.dropped)}" if edit.dropped else ""
        self.drop_imports_of(original.func)
        if edit.how == "compile":
            self.edited(original, f"torch.jit.script → torch.compile (a module called in a loop; compiles on first call){dropped}")
            func = self._torch_ref("torch.compile", original.func)
            return call.with_changes(func=func, args=_finish_args(call, [_positional(obj)]))
        self.edited(original, f"torch.jit.script(obj) → obj (runs eagerly; wrap a hot loop in torch.compile for speed){dropped}")
        return _atom(obj.value)

    def _save(self, original: cst.Call, call: cst.Call, method: bool) -> cst.BaseExpression:
        if method:
            assert isinstance(call.func, cst.Attribute)
            bound = bind(call, ("f", "_extra_files"))
            program = cst.Arg(call.func.value)
            func = self.ref("torch.export.save")
        else:
            bound = bind(call, SAVE_PARAMS)
            m = bound.get("m")
            assert m is not None
            program = _positional(m)
            func = self.ref("torch.export.save", like=original.func)
            self.drop_imports_of(original.func)
        f = bound.get("f")
        assert f is not None
        args = [program, _positional(f)]
        extra = bound.get("_extra_files")
        if extra is not None:
            args.append(_keyword(extra, "extra_files"))
        self.edited(original, "torch.jit.save → torch.export.save (an ExportedProgram archive)")
        return call.with_changes(func=func, args=_finish_args(call, args))

    def _load(self, original: cst.Call, call: cst.Call) -> cst.BaseExpression:
        bound = bind(call, ("f", "map_location", "_extra_files"))
        f = bound.get("f")
        assert f is not None
        args = [_positional(f)]
        extra = bound.get("_extra_files")
        if extra is not None:
            args.append(_keyword(extra, "extra_files"))
        self.edited(original, "torch.jit.load → torch.export.load(...).module() (pairs with a rewritten save)")
        self.drop_imports_of(original.func)
        loaded = call.with_changes(func=self.ref("torch.export.load", like=original.func), args=_finish_args(call, args))
        return _module_call(loaded)

    # --- decorators and statements ----------------------------------------------------------------------------

    def leave_FunctionDef(self, original_node: cst.FunctionDef, updated_node: cst.FunctionDef) -> cst.FunctionDef:
        if not self.decorators:
            return updated_node
        kept: list[cst.Decorator] = []
        carried: list[cst.EmptyLine] = []  # comments above a removed decorator stay where they were
        for old, new in zip(original_node.decorators, updated_node.decorators, strict=True):
            if self.span_of(old.decorator) in self.decorators and self.allowed(old):
                self.edited(old, "@torch.jit.script removed: the function runs eagerly (wrap a hot caller in torch.compile)")
                self.drop_imports_of(old.decorator)
                carried.extend(new.leading_lines)
                continue
            kept.append(new.with_changes(leading_lines=[*carried, *new.leading_lines]) if carried else new)
            carried = []
        if len(kept) == len(updated_node.decorators):
            return updated_node
        if not kept and carried:
            return updated_node.with_changes(decorators=kept, leading_lines=[*updated_node.leading_lines, *carried])
        return updated_node.with_changes(decorators=kept, lines_after_decorators=[*carried, *updated_node.lines_after_decorators])

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine:
        if not self.removed or len(original_node.body) != 1 or self.span_of(original_node.body[0]) not in self.removed:
            return updated_node
        self.edited(original_node, "`f = torch.jit.script(f)` removed: the function runs eagerly")
        return self.remove_statement(original_node, updated_node)
