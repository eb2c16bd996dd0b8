"""Property tests (hypothesis) over generated programs that mix legacy API uses with arbitrary code.

- the output always parses;
- a second run is a no-op (no edit, same text);
- a program with nothing to migrate comes back byte-identical, also on disk (newlines, BOM, latin-1 cookie kept).

Legacy uses are the passes' own examples (``all_passes()`` → ``.examples``), placed at module level or nested in
functions, methods and blocks with random indentation, between random statements, comments and strings that contain
the passes' trigger words. Every example of every pass is also run alone, nested, with random indentation.
"""

from __future__ import annotations

import ast
import keyword
import random
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from torchmigrate.core.passes import PYTHON, Example, Pass
from torchmigrate.core.registry import Options, all_passes
from torchmigrate.core.versions import KNOWN_RELEASES, NEWEST, OLDEST, parse_version
from torchmigrate.python.engine import migrate_text
from torchmigrate.run.runner import process_file, write_result

# Every default pass over the whole range of releases: the longest chain a plain `migrate --to NEWEST` runs. (Opt-in
# passes are left out: `export-strict-default` would add `strict=True` to the `torch.export.export` calls that the
# later `jit-to-export` writes, so with it a second run is not a no-op.)
OPTIONS = Options(to=NEWEST, from_=OLDEST)
PASSES = OPTIONS.passes()
# Trigger words as they can appear inside one line of a comment or a string (some triggers end with a newline).
TRIGGERS = sorted({word.replace("\n", " ").replace("\r", " ") for p in all_passes() for word in p.triggers})
IDENTIFIER_TRIGGERS = [w for w in TRIGGERS if w.isidentifier() and not keyword.iskeyword(w)] or ["trigger"]

PYTHON_PASSES = [p for p in all_passes() if p.files == PYTHON]  # project-file passes rewrite requirements & co.
EXAMPLES = [(p, i, e) for p in PYTHON_PASSES for i, e in enumerate(p.examples, start=1)]
CHANGING = [e.before for _, _, e in EXAMPLES if e.after is not None and e.after != e.before]
UNCHANGED = [e.before for _, _, e in EXAMPLES if e.after is None or e.after == e.before]


def bounded(max_examples: int) -> settings:
    """Few examples and no deadline: libcst is slow enough that the suite must stay bounded, not timed."""
    return settings(
        max_examples=max_examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )


def snippet_lines(code: str) -> list[str]:
    """An example as lines, minus ``from __future__`` imports (they are only legal at the top of a module)."""
    return [line for line in code.rstrip("\n").split("\n") if not line.startswith("from __future__")]


# --- generated code -----------------------------------------------------------------------------------------------

names = st.sampled_from(["a", "b", "model", "x", "value", "items", "self_", "out", *IDENTIFIER_TRIGGERS])
free_text = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\u2028\u2029\x85"), max_size=12
)
trigger_text = st.builds(lambda a, t, b: f"{a}{t}{b}", free_text, st.sampled_from(TRIGGERS), free_text)
texts = st.one_of(trigger_text, free_text)


@st.composite
def string_literal(draw: st.DrawFn) -> str:
    body = draw(texts)
    style = draw(st.sampled_from(["repr", "triple", "fstring", "bytes", "raw"]))
    if style == "triple":
        safe = body.replace("\\", "\\\\").replace('"', "'")
        return f'"""{safe}\n{draw(st.sampled_from(TRIGGERS))}\n"""'
    if style == "fstring":
        return "f" + repr(body.replace("{", "{{").replace("}", "}}"))[:-1] + "{x!r}" + repr(body)[-1]
    if style == "bytes":
        return repr(body.encode("utf-8"))
    if style == "raw":
        return "r'" + "".join(c for c in body if c not in "'\\") + "'"
    return repr(body)


@st.composite
def expression(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["name", "int", "str", "call", "method", "attr", "binop", "list", "dict", "lambda", "comp"]))
    n = draw(names)
    if kind == "name":
        return n
    if kind == "int":
        return str(draw(st.integers(-1000, 1000)))
    if kind == "str":
        return draw(string_literal())
    if kind == "call":
        return f"{n}({draw(names)}, {draw(string_literal())})"
    if kind == "method":  # a look-alike: a method that shares a legacy API's name
        return f"self.{draw(st.sampled_from(IDENTIFIER_TRIGGERS))}({draw(names)})"
    if kind == "attr":
        return f"{n}.{draw(st.sampled_from(IDENTIFIER_TRIGGERS))}"
    if kind == "binop":
        return f"({n} {draw(st.sampled_from(['+', '-', '*', '@', '//', 'and', 'or', 'if x else']))} {draw(names)})"
    if kind == "list":
        return f"[{n}, {draw(string_literal())}, ]"
    if kind == "dict":
        return f"{{{draw(string_literal())}: {n}, **{draw(names)}}}"
    if kind == "lambda":
        return f"(lambda {n}, *args, **kw: {draw(names)})"
    return f"[{n} for {n} in {draw(names)} if {n}]"


@st.composite
def simple_statement(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["assign", "expr", "aug", "comment", "import", "pass", "assert", "annotated", "del"]))
    if kind == "assign":
        return f"{draw(names)} = {draw(expression())}"
    if kind == "expr":
        return draw(expression())
    if kind == "aug":
        return f"{draw(names)} += {draw(expression())}"
    if kind == "comment":
        return "# " + draw(texts)
    if kind == "import":
        return draw(
            st.sampled_from(["import os", "import torch", "from collections import OrderedDict as od", "import numpy as np"])
        )
    if kind == "pass":
        return "pass"
    if kind == "assert":
        return f"assert {draw(names)}, {draw(string_literal())}"
    if kind == "annotated":
        return f"{draw(names)}: list[int] = []"
    return f"del {draw(names)}"


@st.composite
def block(draw: st.DrawFn, indent: str, unit: str, depth: int, legacy: bool) -> list[str]:
    """Lines of a block at ``indent``: statements, nested compound statements and (when ``legacy``) example snippets."""
    lines: list[str] = []
    for _ in range(draw(st.integers(1, 3))):
        kinds = ["simple", "simple", "blank"]
        if depth < 3:
            kinds += ["def", "class", "if", "for", "try", "with"]
        if legacy and CHANGING:
            kinds += ["legacy"]
        if legacy and UNCHANGED:  # unchanged by their own pass, but a later pass may rewrite them
            kinds += ["lookalike"]
        kind = draw(st.sampled_from(kinds))
        inner = indent + unit
        if kind == "simple":
            lines.append(indent + draw(simple_statement()))
        elif kind == "blank":
            lines.append(draw(st.sampled_from(["", indent + "# " + draw(texts)])))
        elif kind in ("legacy", "lookalike"):
            code = draw(st.sampled_from(CHANGING if kind == "legacy" else UNCHANGED))
            lines += [indent + line if line else "" for line in snippet_lines(code)]
        else:
            header = {
                "def": f"def {draw(names)}({draw(names)}, *args, key={draw(string_literal())}, **kwargs):",
                "class": f"class {draw(names).capitalize()}Thing({draw(names)}):",
                "if": f"if {draw(expression())}:",
                "for": f"for {draw(names)} in {draw(expression())}:",
                "try": "try:",
                "with": f"with {draw(expression())} as {draw(names)}:",
            }[kind]
            if kind == "def" and draw(st.booleans()):
                lines.append(indent + "@" + draw(names))
            lines.append(indent + header)
            lines += draw(block(inner, unit, depth + 1, legacy))
            if kind == "try":
                lines.append(indent + "except (ImportError, ValueError) as exc:")
                lines += draw(block(inner, unit, depth + 1, legacy))
    if not any(line.strip() and not line.lstrip().startswith("#") for line in lines):
        lines.append(indent + "pass")
    return lines


@st.composite
def program(draw: st.DrawFn, legacy: bool) -> str:
    unit = draw(st.sampled_from(["    ", "  ", "\t", "        "]))
    lines = draw(block("", unit, 0, legacy))
    if legacy and CHANGING:
        lines += snippet_lines(draw(st.sampled_from(CHANGING)))  # at least one legacy use
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    text = newline.join(lines)
    return text + newline if draw(st.booleans()) or not text else text


# --- the properties -----------------------------------------------------------------------------------------------


def check_output_parses_and_is_a_fixed_point(code: str) -> str:
    ast.parse(code)  # the generator makes valid Python; anything else is a bug in this test
    first = migrate_text(code, PASSES)
    assert first.error is None, first.error
    ast.parse(first.code)
    second = migrate_text(first.code, PASSES)
    assert second.error is None, second.error
    assert second.code == first.code, "a second run changed the code again"
    assert second.edits == []
    return first.code


@bounded(15)
@given(program(legacy=True))
def test_mixed_programs_parse_and_a_second_run_is_a_no_op(code: str) -> None:
    new = check_output_parses_and_is_a_fixed_point(code)
    if "\r\n" in code and "\n" not in code.replace("\r\n", ""):
        assert "\n" not in new.replace("\r\n", ""), "a CRLF file gained an LF line"


@bounded(20)
@given(program(legacy=False))
def test_programs_with_nothing_to_migrate_come_back_identical(code: str) -> None:
    result = migrate_text(code, PASSES)
    assert result.error is None, result.error
    assert result.code == code
    assert result.edits == []


@bounded(8)
@given(program(legacy=False), st.sampled_from(["utf-8", "utf-8-sig", "latin-1"]))
def test_files_with_nothing_to_migrate_stay_byte_identical_on_disk(code: str, encoding: str) -> None:
    if encoding == "latin-1":  # a PEP 263 cookie, and only characters latin-1 has
        code = ("# -*- coding: latin-1 -*-\n" + code).encode("latin-1", errors="replace").decode("latin-1")
    data = code.encode(encoding)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "m.py"
        path.write_bytes(data)
        result = process_file(path, OPTIONS)
        write_result(path, result)
        assert result.error is None, result.error
        assert not result.written
        assert path.read_bytes() == data


# --- every example of every pass, nested with random indentation ------------------------------------------------------

UNITS = ["    ", "  ", "\t", " " * 3, " " * 8]


def nest(code: str, rng: random.Random) -> str:
    """``code`` three times: in a function, in a method and in a nested function, each with its own indent unit."""
    lines = snippet_lines(code)

    def body(prefix: str) -> str:
        return "".join(f"{prefix}{line}\n" if line else "\n" for line in lines)

    a, b, c = (rng.choice(UNITS) for _ in range(3))
    return (
        f"def wrapper(model, x):\n{body(a)}\n\n"
        f"class Wrapper:\n{b}def run(self, model, x):\n{body(b * 2)}\n\n"
        f"def outer():\n{c}if True:\n{c * 2}def inner(model, x):\n{body(c * 3)}{c}return inner\n"
    )


@pytest.mark.parametrize(("p", "number", "example"), EXAMPLES, ids=[f"{p.id}-{i}" for p, i, _ in EXAMPLES])
def test_every_example_nested_with_random_indentation(p: Pass, number: int, example: Example) -> None:
    code = nest(example.before, random.Random(f"{p.id}-{number}"))  # random, and the same on every run
    check_output_parses_and_is_a_fixed_point(code)
    if example.after is None and not example.findings:  # unchanged by its own pass (later passes may well change it)
        earlier = [v for v in KNOWN_RELEASES if v < p.version] or [KNOWN_RELEASES[0]]
        own = Options(to=parse_version(example.to) if example.to else p.version, from_=earlier[-1], select=frozenset({p.id}))
        assert migrate_text(code, own.passes()).code == code, "an example that must stay unchanged was changed once nested"
