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
from libcst.metadata import MetadataWrapper

from torchmigrate.core.fixes import SAFE_ONLY, Gate
from torchmigrate.core.passes import AstPlan, Pass
from torchmigrate.core.registry import Layout, Options
from torchmigrate.core.results import FileResult, Finding, Fix
from torchmigrate.core.text import dominant_newline, one_line
from torchmigrate.python.codemod import ADD_IMPORTS_KEY, REMOVE_IMPORTS_KEY, new_context
from torchmigrate.python.fastnames import FastNames
from torchmigrate.python.imports import (
    add_imports,
    drop_unused_imports,
    import_codes,
    import_lines,
    merge_imports,
    place_imports,
)
from torchmigrate.python.positions import StatementPositions
from torchmigrate.python.precheck import all_nodes, ast_parse, relevant_passes
from torchmigrate.python.reflow import reflow
from torchmigrate.python.renames import RenameTransformer, advice_for_target
from torchmigrate.python.sites import analyser_of
from torchmigrate.python.slicing import BINDINGS, BOUND_USES, NO_TIES, USES, Slice, make_slice
from torchmigrate.python.suppress import SKIP_FILE, skips_file, suppressions
from torchmigrate.python.transform import PassTransformer, Sink
from torchmigrate.python.triggers import slice_regex, spells_a_trigger, trie_pattern

__all__ = ["Gate", "Options", "migrate_text", "trigger_regex", "SKIP_FILE", "MAX_PARSE_CHARS"]

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


def migrate_text(
    text: str,
    passes: Sequence[Pass],
    path: str = "<string>",
    precheck: bool = True,
    gate: Gate = SAFE_ONLY,
    layout: Layout | None = None,
) -> FileResult:
    """Run ``passes`` (already in release order) over ``text``. Never raises for a bad file: see ``error``.

    ``layout``: the project's line length and formatter; edited statements are kept within it
    (:mod:`torchmigrate.python.reflow`).

    With ``precheck`` (the default), the stdlib-``ast`` look of :mod:`torchmigrate.python.precheck` decides which passes can
    act at all; libcst parses the file only when one can, and runs only those (until the text changes), on the slice of
    the file they can act on (:mod:`torchmigrate.python.slicing`) when that leaves enough out.

    ``gate`` decides which passes' edits are made (:class:`~torchmigrate.core.fixes.Gate`; the default makes no
    ``review`` edit and has no support floor): a held-back pass still runs, its edits become findings (a review edit
    with its suggested change), and the later passes see the text it was given.
    """
    result = FileResult(path=path, old=text, new=text)
    if not passes or skips_file(text) or not spells_a_trigger(text, passes):
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
    settled: dict[int, list[Finding]] = {}
    plans: dict[int, AstPlan] = {}
    if precheck:
        _settle_from_ast(text, tree, passes, in_play, settled, plans)
        if not in_play:
            result.findings = _merged([], settled, passes, suppressions(text) if settled else {})
            return result
    newline = dominant_newline(text)
    active = [p for p in passes if id(p) in in_play]
    if precheck and SLICING.enabled and all(p.sliceable for p in active):
        sliced = make_slice(text, tree, slice_regex(active), newline, ties=_ties(active))
        own = _own_slices(text, tree, active, sliced, newline) if len(active) > 1 and SLICING.chain else None
        if own is not None:
            chained = _chained(text, passes, in_play, settled, path, newline, gate, layout, own)
            if chained is not None:
                return chained
        if sliced is not None:
            # settled passes stay settled in the slice's run; their findings (lines of the original) are added below
            skip: dict[int, list[Finding]] = {key: [] for key in settled}
            outside = "".join(sliced.holes.values())
            spliced = _unslice(
                _run_libcst(sliced.text, passes, in_play, path, precheck, newline, gate, layout, skip, outside=outside),
                sliced,
                text,
            )
            if spliced is not None:
                SLICING.count += 1
                if settled:
                    spliced.findings = _merged(spliced.findings, settled, passes, suppressions(text))
                return spliced
    return _run_libcst(text, passes, in_play, path, precheck, newline, gate, layout, settled, plans)


def _settle_from_ast(
    text: str,
    tree: ast.Module,
    passes: Sequence[Pass],
    in_play: set[int],
    settled: dict[int, list[Finding]],
    plans: dict[int, AstPlan],
) -> None:
    """Passes that decide from the stdlib ast (``Pass.analyse``): one that plans no edit is settled here, with its
    findings, and leaves ``in_play``; the plan of one that edits is kept for its libcst run."""
    for pass_ in passes:
        analyse = analyser_of(pass_) if id(pass_) in in_play else None
        if analyse is None:
            continue
        plan = analyse(text, tree)
        if plan.has_edits:
            plans[id(pass_)] = plan
        else:
            settled[id(pass_)] = list(plan.findings)
            in_play.discard(id(pass_))


def _ties(passes: Sequence[Pass]) -> str:
    """How module-level variables tie a slice for ``passes`` (:data:`~torchmigrate.python.slicing.USES` …)."""
    if all(p.renames and p.transformer is None and not p.call_rewriters for p in passes):
        return NO_TIES
    follows = {p.follows_uses for p in passes}
    return USES if "all" in follows else BOUND_USES if "bound" in follows else BINDINGS


def _lines_of(sliced: Slice | None, text: str) -> int:
    return (sliced.text if sliced is not None else text).count("\n") + 1


def _own_slices(
    text: str, tree: ast.Module, active: Sequence[Pass], union: Slice | None, newline: str
) -> dict[int, Slice | None] | None:
    """Each pass's own slice of ``text``, when running the passes one after the other on their own slices
    (:func:`_chained`) costs clearly less than running them all on one: a pass visits its whole module and resolves
    its metadata again (about ``k * union`` lines of libcst work for ``k`` passes), while a chain pays for its
    passes' slices plus, per step, a stdlib parse and a slicing of the whole text (:data:`CHAIN_STEP`); else
    ``None``."""
    lines = _lines_of(None, text)
    together = len(active) * _lines_of(union, text)
    apart = CHAIN_STEP * len(active) * lines
    if together < CHAIN_MIN_WORK or apart >= together:
        return None  # little libcst work, or more than the chain's own steps would cost: not worth slicing per pass
    own = {id(p): make_slice(text, tree, slice_regex([p]), newline, ties=_ties([p])) for p in active}
    apart += sum(_lines_of(own[id(p)], text) for p in active)
    return own if apart < together else None


CHAIN_STEP = 0.15
"""What one chain step's stdlib work on the whole text costs (a parse, a slicing, a precheck after an edit), in lines of
libcst work per line (measured on torch's sources: about 0.12)."""
CHAIN_MIN_WORK = 1000
"""Below this many lines of libcst work (passes times the lines of their slice) a chain is not tried."""


def _chained(
    text: str,
    passes: Sequence[Pass],
    in_play: set[int],
    settled: dict[int, list[Finding]],
    path: str,
    newline: str,
    gate: Gate,
    layout: Layout | None,
    own: dict[int, Slice | None] | None = None,
) -> FileResult | None:
    """The passes in play run one after the other, each on a slice of the text as the earlier ones left it, with
    what ``_run_libcst`` does between passes done here: a settled pass that an earlier edit gave a site runs
    (``_now_edits``), the passes in play are looked for again after an edit, lines go back to the original's, the
    project's layout is applied once at the end. ``None`` (something a step could not map back, an error): the
    caller runs the passes together instead. ``own``: the passes' slices of ``text``, where already made."""
    current, tree = text, ast_parse(text)
    own = own or {}
    settled = dict(settled)
    findings: list[Finding] = []
    result = FileResult(path=path, old=text, new=text)
    pending = set(in_play)
    for index, pass_ in enumerate(passes):
        if id(pass_) in settled:
            if current == text or not _now_edits(pass_, current, {}):
                continue
            del settled[id(pass_)]  # an earlier pass's edit gave it a site (passes chain): it runs on the new text
        elif id(pass_) not in pending:
            continue
        if not trigger_regex((pass_,)).search(current):
            continue
        if current == text and id(pass_) in own:
            sliced = own[id(pass_)]
        elif pass_.sliceable:
            sliced = make_slice(current, tree, slice_regex([pass_]), newline, ties=_ties([pass_]))
        else:  # a settled pass an earlier step gave a site, which cannot run on a slice: it runs on the whole text
            sliced = None
        step: FileResult | None = None
        if sliced is not None:
            outside = "".join(sliced.holes.values())
            run = _run_libcst(sliced.text, passes, {id(pass_)}, path, True, newline, gate, None, only=id(pass_), outside=outside)
            step = _unslice(run, sliced, current)
        if step is None:
            step = _run_libcst(current, passes, {id(pass_)}, path, True, newline, gate, None, only=id(pass_))
        if step.error is not None or step.new is None:
            return None
        to_original = _line_map(current, text) if current != text else _same_line
        for finding in step.findings:
            fix = _moved_fix(finding.fix, to_original)
            if finding.fix is not None and fix is None:
                return None
            findings.append(replace(finding, line=to_original(finding.line), fix=fix))
        result.edits.extend(replace(e, line=to_original(e.line)) for e in step.edits)
        result.passes_applied.extend(step.passes_applied)
        if step.new != current:
            if _trivia_ends(step.new) != _trivia_ends(current):
                return None  # libcst would read the new text's header or footer apart from the module the pass left
            current = step.new
            tree = ast_parse(current)
            pending = set(map(id, relevant_passes(current, passes[index + 1 :])))
    if current != text and layout is not None and layout.line_length:
        try:
            module = _with_newline(cst.parse_module(current), newline)
        except (cst.ParserSyntaxError, RecursionError, ValueError):
            return None
        current = reflow(module, text, layout).code
        if verify(current) is not None:
            return None
    SLICING.chained += 1
    result.new = current
    result.findings = _merged(findings, settled, passes, suppressions(text)) if settled else findings
    return result


_CODE_LINE = re.compile(r"^[ \t\f]*[^\s#]", re.MULTILINE)


def _trivia_ends(text: str) -> tuple[str, str]:
    """The blank and comment lines before the first line of code and after the last: what libcst reads as a module's
    header and footer. A chain step parses the text an earlier step left; where a pass changed these (it removed the
    first statement, and the blank line after it now opens the file), the parse attaches them otherwise than the
    module the pass left had them, and a later pass would place a new import differently."""
    first = _CODE_LINE.search(text)
    if first is None:
        return text, ""
    last = list(_CODE_LINE.finditer(text))[-1]
    end = text.find("\n", last.end())
    return text[: first.start()], text[end + 1 :] if end != -1 else ""


def _moved_fix(fix: Fix | None, to_original: Callable[[int], int]) -> Fix | None:
    """``fix`` with its lines moved by ``to_original``; ``None`` when a replacement's lines do not stay contiguous."""
    if fix is None or to_original is _same_line:
        return fix
    moved = []
    for rep in fix.replacements:
        first = to_original(rep.line)
        if any(to_original(rep.line + k) != first + k for k in range(rep.end_line - rep.line)):
            return None
        moved.append(replace(rep, line=first, end_line=first + rep.end_line - rep.line))
    return replace(fix, replacements=tuple(moved))


def _merged(
    findings: list[Finding],
    settled: dict[int, list[Finding]],
    passes: Sequence[Pass],
    suppressed: dict[int, frozenset[str] | None],
) -> list[Finding]:
    """``findings`` with the settled passes' findings (lines of the original text) put in pass order, where a run over
    every pass would have reported them; a ``# migrate: ignore`` comment silences them as it does any finding."""
    if not settled:
        return findings
    by_pass: dict[str, list[Finding]] = {}
    for finding in findings:
        by_pass.setdefault(finding.pass_id, []).append(finding)
    merged: list[Finding] = []
    for pass_ in passes:
        if id(pass_) in settled and pass_.id not in by_pass:  # one that an earlier edit made run reports its own
            sink = Sink(pass_.id, pass_.safety.value, suppressed)
            merged.extend(f for f in settled[id(pass_)] if sink.allows(f.line))
        else:
            merged.extend(by_pass.pop(pass_.id, ()))
    for rest in by_pass.values():
        merged.extend(rest)
    return merged


class _Slicing:
    """Whether :func:`migrate_text` may slice (tests turn it off to compare) and chain passes' slices, and how often it
    did in this process."""

    enabled = True
    chain = True
    count = 0
    chained = 0


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
    findings = []
    for finding, line in zip(result.findings, lines[len(result.edits) :], strict=True):
        fix = _unslice_fix(finding.fix, sliced)
        if finding.fix is not None and fix is None:
            return None
        findings.append(replace(finding, line=line, fix=fix))
    return replace(result, old=original, new=new, edits=edits, findings=findings)


def _unslice_fix(fix: Fix | None, sliced: Slice) -> Fix | None:
    """``fix`` (in the lines of the sliced text) in the original file's lines; ``None`` when a replacement touches a
    stub line or is not contiguous there."""
    if fix is None:
        return None
    moved = []
    for rep in fix.replacements:
        first = sliced.original_line(rep.line)
        if first is None:
            return None
        if any(sliced.original_line(rep.line + k) != first + k for k in range(rep.end_line - rep.line)):
            return None
        moved.append(replace(rep, line=first, end_line=first + rep.end_line - rep.line))
    return replace(fix, replacements=tuple(moved))


def _run_libcst(
    text: str,
    passes: Sequence[Pass],
    in_play: set[int],
    path: str,
    precheck: bool,
    newline: str,
    gate: Gate = SAFE_ONLY,
    layout: Layout | None = None,
    settled: dict[int, list[Finding]] | None = None,
    plans: dict[int, AstPlan] | None = None,
    outside: str = "",
    only: int | None = None,
) -> FileResult:
    """Parse ``text`` with libcst once and run the passes in ``in_play`` over it, in release order. ``settled``: passes
    already decided from the ast (their findings, on ``text``); ``plans``: the ast plans of passes that edit ``text``;
    ``outside``: when ``text`` is a slice, the text of the statements it left out (``PassTransformer.outside_text``)."""
    settled = settled or {}
    plans = plans or {}
    original_suppressed = suppressions(text) if settled else {}
    result = FileResult(path=path, old=text, new=text)
    PARSES.count += 1
    try:
        module = _with_newline(cst.parse_module(text), newline)
    except (cst.ParserSyntaxError, RecursionError, ValueError) as exc:
        result.new = None
        result.error = f"cannot parse: {one_line(exc)}"
        return result
    code = text
    parsed = module
    wrappers = Wrappers()
    wrappers.seed(module, text)
    for index, pass_ in enumerate(passes):
        if only is not None and id(pass_) != only:
            continue  # one step of a chain (_chained): the other passes are its business
        if id(pass_) in settled and code != text and _now_edits(pass_, code, plans):
            if outside and not pass_.sliceable:  # it would run on a slice, which it cannot: the whole file runs
                result.new, result.error = None, f"{pass_.id} cannot run on a slice"
                return result
            del settled[id(pass_)]  # an earlier pass's edit gave it a site (passes chain): it runs on the new text
            in_play.add(id(pass_))
        if id(pass_) in settled:  # decided from the ast of the original text: no edit, these findings
            sink = Sink(pass_.id, pass_.safety.value, original_suppressed)
            result.findings.extend(f for f in settled[id(pass_)] if sink.allows(f.line))
            continue
        if id(pass_) not in in_play:
            continue  # the precheck showed it has nothing to act on in the current text
        if not trigger_regex((pass_,)).search(code):
            continue
        before, kept = module, wrappers.saved()
        try:
            plan = plans.get(id(pass_)) if code == text else plans.pop(-id(pass_), None)
            module, sink = apply_pass(module, pass_, suppressions(code), wrappers, plan, outside)
        except Exception as exc:  # a bug in one pass must not lose the file or stop the run
            result.new = None
            result.error = f"pass {pass_.id} failed: {type(exc).__name__}: {one_line(exc)}"
            return result
        # an earlier pass changed the file: positions go back to the original's lines
        to_original = _line_map(code, text) if code != text and (sink.findings or sink.edits) else _same_line
        later = passes[index + 1 :]
        result.findings.extend(
            replace(f, line=to_original(f.line), message=advice_for_target(f.message, later)) for f in sink.findings
        )
        if not sink.edits:
            continue
        new_code = module.code
        if new_code == code:
            continue
        why = gate.holds_back(pass_)
        if why is not None:  # the pass ran, but its edits are reported, not made: later passes see `code` as it was
            result.findings.extend(gate.findings(pass_, why, sink.edits, code, new_code, to_original))
            module = before
            wrappers.restore(kept)
            continue
        result.edits.extend(replace(e, line=to_original(e.line)) for e in sink.edits)
        result.passes_applied.append(pass_.id)
        code = new_code
        wrappers.know(module, code)
        if precheck:  # the text changed: look again, cheaply, at what the later passes can act on
            in_play = set(map(id, relevant_passes(code, later)))
    if code != text and parsed.code != text:
        # libcst drops some comment lines it cannot place (an indented comment after a file's last statement, then a
        # shallower one): the edited text would lose them. Nothing is written that loses a line.
        result.new = None
        result.error = "libcst does not reproduce this file exactly (a comment line would be lost); file left as it was"
        return result
    if code != text and layout is not None and layout.line_length:
        code = reflow(module, text, layout).code
    if code != text:
        problem = verify(code)
        if problem is not None:
            result.new = None
            result.error = f"rewrite by {', '.join(result.passes_applied)} does not parse ({problem}); file left as it was"
            return result
    result.new = code
    return result


def _now_edits(pass_: Pass, code: str, plans: dict[int, AstPlan]) -> bool:
    """Whether ``pass_``, settled on the original text (no edit), plans an edit in ``code``, the text after earlier
    passes; its plan for ``code`` is kept (under ``-id``) for its run."""
    analyse = analyser_of(pass_)
    if analyse is None or not trigger_regex((pass_,)).search(code):
        return False
    try:
        tree = ast_parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True  # cannot tell from the ast: let libcst decide
    plan = analyse(code, tree)
    if plan.has_edits:
        plans[-id(pass_)] = plan
    return plan.has_edits


def _same_line(line: int) -> int:
    return line


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
        for node in all_nodes(tree):
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
        self._texts: list[tuple[cst.Module, str]] = []  # trees whose text is known without generating it
        self._names: tuple[str, FastNames] | None = None
        self._tree: tuple[str, ast.Module] | None = None  # the stdlib ast of the last text asked for
        self._positions: tuple[cst.Module, StatementPositions] | None = None

    def seed(self, module: cst.Module, text: str | None = None) -> None:
        """A tree fresh from the parser has no shared nodes, so its wrapper can skip libcst's defensive deep copy."""
        self._module, self._wrapper = module, MetadataWrapper(module, unsafe_skip_copy=True)
        if text is not None:
            self.know(module, text)

    def know(self, module: cst.Module, text: str) -> None:
        """``module`` is the tree of ``text`` (``module.code == text``)."""
        self._texts = [*self._texts[-1:], (module, text)]

    def fast_names(self, module: cst.Module) -> FastNames | None:
        """The scope-free qualified names of ``module``'s text (:mod:`torchmigrate.python.fastnames`), when known."""
        text = next((t for m, t in self._texts if m is module), None)
        if text is None:
            return None
        if self._names is None or self._names[0] is not text:
            tree = self._ast(text)
            if tree is None:
                return None
            self._names = (text, FastNames(tree))
        return self._names[1]

    def _ast(self, text: str) -> ast.Module | None:
        if self._tree is None or self._tree[0] is not text:
            try:
                self._tree = (text, ast_parse(text))
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return None
        return self._tree[1]

    def positions(self, module: cst.Module, visited: cst.Module) -> StatementPositions | None:
        """``PositionProvider``'s table for ``visited``, the tree a wrapper of ``module`` visits (``module`` itself, or
        the wrapper's deep copy of it), made per top-level statement (:mod:`.positions`) when ``module``'s text is
        known; one per tree, shared by the passes that visit it."""
        if self._positions is not None and self._positions[0] is visited:
            return self._positions[1]
        text = next((t for m, t in self._texts if m is module), None)
        tree = None if text is None else self._ast(text)
        if tree is None:
            return None
        self._positions = (visited, StatementPositions(visited, tree))
        return self._positions[1]

    def get(self, module: cst.Module) -> MetadataWrapper:
        if self._wrapper is None or self._module is not module:
            self._module, self._wrapper = module, MetadataWrapper(module)
        return self._wrapper

    def saved(self) -> tuple[cst.Module | None, MetadataWrapper | None]:
        return self._module, self._wrapper

    def restore(self, state: tuple[cst.Module | None, MetadataWrapper | None]) -> None:
        """Go back to a tree seen before (a held-back pass's input): its metadata is still valid, trees are immutable."""
        self._module, self._wrapper = state


def apply_pass(
    module: cst.Module,
    pass_: Pass,
    suppressed: dict[int, frozenset[str] | None],
    wrappers: Wrappers | None = None,
    plan: AstPlan | None = None,
    outside: str = "",
) -> tuple[cst.Module, Sink]:
    """Run one pass over ``module``: its renames first, then its transformer or call rewriters, then imports.

    A pass that decides from the ast (``Pass.analyse``) reports its plan's findings (``plan``, when already made for
    this text, else made here) and runs its transformer only when the plan has an edit."""
    wrappers = wrappers or Wrappers()
    sink = Sink(pass_.id, pass_.safety.value, suppressed)
    if pass_.analyse is not None:
        if plan is None:
            code = module.code
            plan = pass_.analyse(code, ast_parse(code))
        sink.findings.extend(plan.findings)
        if not plan.has_edits:
            sink.findings = [f for f in sink.findings if sink.allows(f.line)]
            return module, sink
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
        context = new_context(wrapper)
        transformer = step(context, pass_, sink)
        transformer.plan = plan
        transformer.fast_names = wrappers.fast_names(module)
        transformer.positions = wrappers.positions(module, wrapper.module)
        transformer.outside_text = outside
        before_edits = len(sink.edits)
        new_module = wrapper.visit(transformer)
        if len(sink.edits) == before_edits:
            continue  # nothing rewritten: keep the tree we had (findings are already recorded)
        added = ADD_IMPORTS_KEY in context.scratch
        if added:
            new_module = add_imports(new_module, context, sink.protected)
        scheduled = context.scratch.get(REMOVE_IMPORTS_KEY)
        if scheduled:
            new_module = drop_unused_imports(new_module, scheduled, sink.protected)
        if added or issubclass(step, RenameTransformer):  # new or renamed imports go where isort would put them
            new_module = place_imports(merge_imports(new_module, import_codes(module)), import_lines(module))
        module = new_module
    if suppressed:  # also a finding a pass recorded without asking `allowed` is silenced by a suppression comment
        sink.findings = [f for f in sink.findings if sink.allows(f.line)]
    return module, sink


