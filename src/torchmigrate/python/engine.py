"""One file: prefilter, parse once, run the passes in release order, verify → :class:`FileResult`.

This module does no I/O. :func:`migrate_text` is a pure function of (text, passes), so anything that fans out — worker
processes, many repositories, a cluster — only has to schedule it.
"""

from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import lru_cache

import libcst as cst
from libcst.codemod import CodemodContext
from libcst.codemod.visitors import AddImportsVisitor, RemoveImportsVisitor
from libcst.metadata import MetadataWrapper

from torchmigrate.core.passes import Pass
from torchmigrate.core.registry import Options
from torchmigrate.core.results import FileResult, Finding
from torchmigrate.core.text import dominant_newline, one_line
from torchmigrate.python.imports import AddImports, drop_unused_imports
from torchmigrate.python.precheck import ast_parse, parse, relevant_passes
from torchmigrate.python.renames import RenameTransformer
from torchmigrate.python.sites import EDIT, AstFile
from torchmigrate.python.slicing import Slice, make_slice
from torchmigrate.python.suppress import SKIP_FILE, skips_file, suppressions
from torchmigrate.python.transform import PassTransformer, Sink
from torchmigrate.python.triggers import trie_pattern

__all__ = ["Options", "migrate_text", "trigger_regex", "SKIP_FILE", "MAX_PARSE_CHARS"]

MAX_PARSE_CHARS = 4_000_000
"""Files longer than this that need parsing are reported and left alone: libcst needs minutes for them."""
MAX_BOOL_OPERANDS = 1000
"""libcst nests ``a and b and …`` one level per operand; far beyond this its native parser overflows the stack."""
_BOOL_WORD = re.compile(r"\b(?:and|or)\b")


class _Counter:
    """How many files this process has parsed with libcst (tests use it to prove the cache and precheck work)."""

    count = 0


PARSES = _Counter()


@lru_cache(maxsize=256)
def _trigger_regex(words: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile(trie_pattern(words))


def trigger_regex(passes: Sequence[Pass]) -> re.Pattern[str]:
    """One regex that matches any trigger word of any of ``passes``: the cheap first look at a file."""
    return _trigger_regex(tuple(w for p in passes for w in p.triggers))


def migrate_text(text: str, passes: Sequence[Pass], path: str = "<string>", precheck: bool = True) -> FileResult:
    """Run ``passes`` (already in release order) over ``text``. Never raises for a bad file: see ``error``.

    With ``precheck`` (the default), the stdlib-``ast`` look of :mod:`torchmigrate.python.precheck` decides which passes can
    act at all; libcst parses the file only when one can, and runs only those (until the text changes), on the slice of
    the file they can act on (:mod:`torchmigrate.python.slicing`) when that leaves enough out.
    """
    result = FileResult(path=path, old=text, new=text)
    if not passes or skips_file(text) or not trigger_regex(passes).search(text):
        return result
    if len(text) > MAX_PARSE_CHARS:
        result.new = None
        result.error = f"file too large to migrate ({len(text):,} characters, limit {MAX_PARSE_CHARS:,}); left as it was"
        return result
    in_play = set(map(id, relevant_passes(text, passes))) if precheck else set(map(id, passes))
    if not in_play:
        return result
    problem, tree = _precheck(text)
    if problem is not None or tree is None:
        result.new = None
        result.error = problem
        return result
    newline = dominant_newline(text)
    from_ast: list[Finding] = []
    if precheck and SITES.enabled:
        from_ast, in_play = _detect(text, tree, passes, in_play)
        if not in_play:
            result.findings = from_ast
            return result
    active = [p for p in passes if id(p) in in_play]
    migrated: FileResult | None = None
    if precheck and SLICING.enabled and all(p.sliceable for p in active):
        sliced = make_slice(text, tree, trigger_regex(active), newline)
        if sliced is not None:
            migrated = _unslice(_run_libcst(sliced.text, passes, in_play, path, precheck, newline), sliced, text)
            if migrated is not None:
                SLICING.count += 1
    if migrated is None:
        migrated = _run_libcst(text, passes, in_play, path, precheck, newline)
    if from_ast and migrated.error is None:
        order = {p.id: index for index, p in enumerate(passes)}
        migrated.findings = sorted([*migrated.findings, *from_ast], key=lambda f: order.get(f.pass_id, -1))
    return migrated


class _Sites:
    """Whether :func:`migrate_text` uses the passes' ast detectors (tests turn it off to compare), and how often a
    file was settled by them without libcst."""

    enabled = True
    count = 0


SITES = _Sites()


def _detect(text: str, tree: ast.Module, passes: Sequence[Pass], in_play: set[int]) -> tuple[list[Finding], set[int]]:
    """Run the ast detectors of the passes in play: drop the passes with nothing to do, take the findings of those
    whose findings are exact from the ast (when no earlier pass can have changed the text), keep the rest for libcst.
    """
    ast_file: AstFile | None = None
    found: list[Finding] = []
    keep = set(in_play)
    may_have_edited = False  # an earlier pass in play may change the text before this one sees it
    suppressed: dict[int, frozenset[str] | None] | None = None
    for pass_ in passes:
        if id(pass_) not in in_play:
            continue
        if pass_.detect is None:
            may_have_edited = True
            continue
        if ast_file is None:
            ast_file = AstFile(text, tree)
        sites = list(pass_.detect(ast_file))
        if any(site.kind == EDIT for site in sites):
            may_have_edited = True
            continue
        if not sites:
            keep.discard(id(pass_))
            continue
        if pass_.findings_from_ast and not may_have_edited:
            keep.discard(id(pass_))
            if suppressed is None:
                suppressed = suppressions(text)
            sink = Sink(pass_.id, pass_.safety.value, suppressed)
            for site in sorted(sites, key=lambda s: (s.line, s.col)):
                if sink.allows(site.line, site.statement):
                    found.append(Finding(site.line, site.col, pass_.id, site.message))
    if len(keep) < len(in_play) and not keep:
        SITES.count += 1
    return found, keep


def _still_in_play(code: str, passes: Sequence[Pass], in_play: set[int]) -> set[int]:
    """After a rewrite: of the passes the precheck keeps, those whose detector finds a site in the new text."""
    if not SITES.enabled or not any(p.detect is not None for p in passes if id(p) in in_play):
        return in_play
    tree = parse(code)
    if tree is None:
        return in_play
    ast_file = AstFile(code, tree)
    return {id(p) for p in passes if id(p) in in_play and (p.detect is None or any(True for _ in p.detect(ast_file)))}


class _Slicing:
    """Whether :func:`migrate_text` may slice (tests turn it off to compare), and how often it did in this process."""

    enabled = True
    count = 0


SLICING = _Slicing()


def _unslice(result: FileResult, sliced: Slice, original: str) -> FileResult | None:
    """``result`` (of the sliced text) in terms of ``original``, or ``None`` when the whole file must be run instead."""
    if result.error is not None or result.new is None:
        return None  # let the whole-file run report it, in the whole file's terms
    new = sliced.splice(result.new) if result.new != sliced.text else original
    if new is None:
        return None
    lines: list[int] = []
    for at in [e.line for e in result.edits] + [f.line for f in result.findings]:
        line = sliced.original_line(at)
        if line is None:
            return None  # on a stub line: only the whole file can say what it means
        lines.append(line)
    if new != original and verify(new) is not None:
        return None
    edits = [replace(e, line=line) for e, line in zip(result.edits, lines[: len(result.edits)], strict=True)]
    findings = [replace(f, line=line) for f, line in zip(result.findings, lines[len(result.edits) :], strict=True)]
    return replace(result, old=original, new=new, edits=edits, findings=findings)


def _run_libcst(
    text: str, passes: Sequence[Pass], in_play: set[int], path: str, precheck: bool, newline: str
) -> FileResult:
    """Parse ``text`` with libcst once and run the passes in ``in_play`` over it, in release order."""
    result = FileResult(path=path, old=text, new=text)
    PARSES.count += 1
    try:
        module = _with_newline(cst.parse_module(text), newline)
    except (cst.ParserSyntaxError, RecursionError, ValueError) as exc:
        result.new = None
        result.error = f"cannot parse: {one_line(exc)}"
        return result
    code = text
    wrappers = Wrappers()
    wrappers.seed(module)
    for index, pass_ in enumerate(passes):
        if id(pass_) not in in_play:
            continue  # the precheck showed it has nothing to act on in the current text
        if not trigger_regex((pass_,)).search(code):
            continue
        try:
            module, sink = apply_pass(module, pass_, suppressions(code), wrappers)
        except Exception as exc:  # a bug in one pass must not lose the file or stop the run
            result.new = None
            result.error = f"pass {pass_.id} failed: {type(exc).__name__}: {one_line(exc)}"
            return result
        if code != text and (sink.findings or sink.edits):  # an earlier pass changed the file: positions in the original
            to_original = _line_map(code, text)
            sink.findings = [replace(f, line=to_original(f.line)) for f in sink.findings]
            sink.edits = [replace(e, line=to_original(e.line)) for e in sink.edits]
        result.findings.extend(sink.findings)
        if sink.edits:
            new_code = module.code
            if new_code != code:
                result.edits.extend(sink.edits)
                result.passes_applied.append(pass_.id)
                code = new_code
                if precheck:  # the text changed: look again, cheaply, at what the later passes can act on
                    later = passes[index + 1 :]
                    in_play = _still_in_play(code, later, set(map(id, relevant_passes(code, later))))
    if code != text:
        problem = verify(code)
        if problem is not None:
            result.new = None
            result.error = f"rewrite by {', '.join(result.passes_applied)} does not parse ({problem}); file left as it was"
            return result
    result.new = code
    return result


def _line_map(seen: str, original: str) -> Callable[[int], int]:
    """Map a 1-based line of ``seen`` (a pass's input) to the line of ``original`` it came from."""
    blocks = difflib.SequenceMatcher(None, original.splitlines(), seen.splitlines(), autojunk=False).get_opcodes()

    def to_original(line: int) -> int:
        index = line - 1
        for tag, i1, i2, j1, j2 in blocks:
            if j1 <= index < j2:
                return (i1 + (index - j1) if tag == "equal" else i1 + min(index - j1, max(i2 - i1 - 1, 0))) + 1
        return line

    return to_original


def _precheck(text: str) -> tuple[str | None, ast.Module | None]:
    """Why ``text`` must not be handed to libcst (or ``None``), and its stdlib ``ast`` when it may.

    The stdlib parser runs first: it is ~10x cheaper, gives clearer messages (a Python 2 ``print "x"`` is named as
    such), and its nesting limits stop inputs that would overflow the stack of libcst's native parser.
    """
    try:
        tree = ast_parse(text)
    except SyntaxError as exc:
        where = f"line {exc.lineno}: " if exc.lineno else ""
        return f"cannot parse: {where}{exc.msg}", None
    except (ValueError, RecursionError, MemoryError) as exc:
        return f"cannot parse: {type(exc).__name__}: {one_line(exc)}", None
    if len(_BOOL_WORD.findall(text)) > MAX_BOOL_OPERANDS:  # the stdlib keeps and/or chains flat; libcst does not
        for node in ast.walk(tree):
            if isinstance(node, ast.BoolOp) and len(node.values) > MAX_BOOL_OPERANDS:
                operands = len(node.values)
                return f"cannot parse: line {node.lineno}: an and/or chain of {operands} operands is too deep to rewrite", None
    return None, tree


class _PinNewlines(cst.CSTTransformer):
    """Spell out every line ending that relies on the module default, so changing the default moves no old line."""

    def __init__(self, newline: str) -> None:
        super().__init__()
        self.newline = newline

    def leave_Newline(self, original_node: cst.Newline, updated_node: cst.Newline) -> cst.Newline:
        return updated_node.with_changes(value=self.newline) if updated_node.value is None else updated_node


def _with_newline(module: cst.Module, newline: str) -> cst.Module:
    """``module`` with ``newline`` as the ending of the lines passes add (libcst takes the first line's ending)."""
    if module.default_newline == newline:
        return module
    pinned = module.visit(_PinNewlines(module.default_newline))
    return pinned.with_changes(default_newline=newline)


def verify(code: str) -> str | None:
    """``None`` when ``code`` is valid Python, else the parser's complaint."""
    try:
        ast_parse(code)
    except (SyntaxError, ValueError, RecursionError) as exc:
        return one_line(exc)
    return None


class Wrappers:
    """The metadata wrapper of the last tree seen: passes that leave the tree as it is share one metadata resolution
    (scope and qualified names cost several visits of the whole tree)."""

    def __init__(self) -> None:
        self._module: cst.Module | None = None
        self._wrapper: MetadataWrapper | None = None

    def seed(self, module: cst.Module) -> None:
        """A tree fresh from the parser has no shared nodes, so its wrapper can skip libcst's defensive deep copy."""
        self._module, self._wrapper = module, MetadataWrapper(module, unsafe_skip_copy=True)

    def get(self, module: cst.Module) -> MetadataWrapper:
        if self._wrapper is None or self._module is not module:
            self._module, self._wrapper = module, MetadataWrapper(module)
        return self._wrapper


def apply_pass(
    module: cst.Module,
    pass_: Pass,
    suppressed: dict[int, frozenset[str] | None],
    wrappers: Wrappers | None = None,
) -> tuple[cst.Module, Sink]:
    """Run one pass over ``module``: its renames first, then its transformer or call rewriters, then imports."""
    wrappers = wrappers or Wrappers()
    sink = Sink(pass_.id, pass_.safety.value, suppressed)
    steps: list[type[PassTransformer]] = []
    custom_renames = pass_.transformer is not None and issubclass(pass_.transformer, RenameTransformer)
    if pass_.renames and not custom_renames:  # a RenameTransformer subclass applies the renames itself
        steps.append(RenameTransformer)
    if pass_.transformer is not None:
        steps.append(pass_.transformer)
    elif pass_.call_rewriters:
        steps.append(PassTransformer)
    for step in steps:
        wrapper = wrappers.get(module)
        context = replace(CodemodContext(), wrapper=wrapper)
        transformer = step(context, pass_, sink)
        before_edits = len(sink.edits)
        new_module = wrapper.visit(transformer)
        if len(sink.edits) == before_edits:
            continue  # nothing rewritten: keep the tree we had (findings are already recorded)
        if AddImportsVisitor.CONTEXT_KEY in context.scratch:
            new_module = AddImports(context, sink.protected).transform_module(new_module)
        scheduled = context.scratch.get(RemoveImportsVisitor.CONTEXT_KEY)
        if scheduled:
            new_module = drop_unused_imports(new_module, scheduled, sink.protected)
        module = new_module
    if suppressed:  # also a finding a pass recorded without asking `allowed` is silenced by a suppression comment
        sink.findings = [f for f in sink.findings if sink.allows(f.line)]
    return module, sink


