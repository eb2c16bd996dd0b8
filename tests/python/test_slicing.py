"""Statement slicing: libcst sees only the statements that matter, and the result is the whole-file run's, exactly."""

from __future__ import annotations

import ast
import random
from collections.abc import Iterator

import pytest

from torchmigrate.core.fixes import APPLY_ALL, SAFE_ONLY, Gate
from torchmigrate.core.passes import Pass
from torchmigrate.core.registry import all_passes, get_pass, select_passes
from torchmigrate.core.results import FileResult
from torchmigrate.core.versions import OLDEST, parse_version
from torchmigrate.python import engine
from torchmigrate.python.engine import migrate_text, trigger_regex
from torchmigrate.python.slicing import BINDINGS, BOUND_USES, NO_TIES, USES, make_slice

PYTHON_PASSES = [p for p in all_passes() if p.files != "project"]
EXAMPLES = [pytest.param(p, i, id=f"{p.id}-{i}") for p in PYTHON_PASSES for i, _ in enumerate(p.examples)]

FILLER = '''

def _filler_{k}(value, scale=2.0):
    """Scale a value."""
    total = 0
    for item in range(3):
        total += item * scale
    return value + total


class _Filler{k}:
    size = {k}

    def get(self):
        return self.size + _filler_{k}(1)
'''


@pytest.fixture
def whole_file() -> Iterator[None]:
    engine.SLICING.enabled = False
    try:
        yield
    finally:
        engine.SLICING.enabled = True


def _padded(code: str) -> str:
    """``code`` with unrelated functions and classes between each pair of its top-level statements and at its end."""
    tree = ast.parse(code)
    lines = code.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    starts = sorted({min([s.lineno, *(d.lineno for d in getattr(s, "decorator_list", ()))]) for s in tree.body[1:]})
    ends = [s.end_lineno or s.lineno for s in tree.body]
    out: list[str] = []
    for number, line in enumerate(lines, start=1):
        if number in starts and all(end < number for end in ends if end is not None and end < number) and not any(
            s.lineno < number <= (s.end_lineno or s.lineno) for s in tree.body
        ):
            out.append(FILLER.format(k=number) + "\n\n")
        out.append(line)
    out.append(FILLER.format(k=0))
    return "".join(out)


def _same(a: FileResult, b: FileResult) -> None:
    assert (a.code, a.edits, a.findings, a.error, a.passes_applied) == (b.code, b.edits, b.findings, b.error, b.passes_applied)


def _unsliced(code: str, passes: list[Pass], gate: Gate = SAFE_ONLY) -> FileResult:
    """The whole-file run, the answer a slice or a chain must give."""
    engine.SLICING.enabled = False
    try:
        return migrate_text(code, passes, gate=gate)
    finally:
        engine.SLICING.enabled = True


def _chains(code: str, passes: list[Pass]) -> tuple[FileResult, int]:
    """The run with slicing on, and how many chains it made; its result is the whole-file run's."""
    before = engine.SLICING.chained
    chained = migrate_text(code, passes)
    _same(chained, _unsliced(code, passes))
    return chained, engine.SLICING.chained - before


def _both(code: str, passes: list[Pass]) -> tuple[FileResult, FileResult, int]:
    before = engine.SLICING.count
    sliced = migrate_text(code, passes)
    used = engine.SLICING.count - before
    engine.SLICING.enabled = False
    try:
        whole = migrate_text(code, passes)
    finally:
        engine.SLICING.enabled = True
    return sliced, whole, used


@pytest.mark.parametrize(("pass_", "index"), EXAMPLES)
def test_padded_examples_give_the_whole_file_result(pass_: Pass, index: int) -> None:
    example = pass_.examples[index]
    code = _padded(example.before)
    assert not trigger_regex(all_passes()).search(FILLER), "the filler must not look like anything a pass acts on"
    target = parse_version(example.to) if example.to else pass_.version
    for passes in ([pass_], select_passes(to=target, from_=OLDEST, select=[p.id for p in all_passes()])):
        sliced, whole, _ = _both(code, passes)
        _same(sliced, whole)
        if not example.findings and example.after is None:
            continue
        # and the padded file migrates like the example: the filler comes through untouched
        assert FILLER.format(k=0) in sliced.code


def test_slicing_happens_and_leaves_out_the_unrelated_code() -> None:
    code = _padded("import torch\n\ndef f(m, x):\n    return torch.export.export_for_training(m, (x,))\n")
    passes = [get_pass("export-for-training")]
    tree = ast.parse(code)
    sliced = make_slice(code, tree, trigger_regex(passes))
    assert sliced is not None
    assert "Scale a value" not in sliced.text and "return self.size" not in sliced.text
    assert len(sliced.text) < len(code) / 2
    result, whole, used = _both(code, passes)
    assert used == 1
    _same(result, whole)
    assert "torch.export.export(m, (x,))" in result.code and result.code.count("def _filler_") == 2


def test_stub_keeps_names_the_rest_of_the_file_observes() -> None:
    code = (
        "import os.path\nimport torch\nfrom torch.testing import assert_allclose\n\n"
        "LIMIT = 3\n\n"
        "def helper(x):\n    local_only = x\n    return os.path.join(str(local_only), str(LIMIT)) + str(torch.ones(1))\n\n"
        '__all__ = ["helper", "torch"]\n\n'
        "def check(a, b):\n    assert_allclose(a, b)\n" + FILLER.format(k=1) + FILLER.format(k=2)
    )
    sliced = make_slice(code, ast.parse(code), trigger_regex([get_pass("assert-allclose")]))
    assert sliced is not None
    stubs = [line for line in sliced.text.splitlines() if "__torchmigrate_hole_" in line]
    joined = "\n".join(stubs)
    assert "helper = " in joined and "os.path" in joined and "torch" in joined  # bindings, dotted import, import use
    assert "local_only" not in joined  # a function's local cannot clash with anything added at module level
    assert '"torch"' in joined or " torch" in joined


def test_a_changed_stub_means_the_whole_file_runs() -> None:
    code = "import torch\n\ndef f(m, x):\n    return torch.export.export_for_training(m, (x,))\n" + FILLER.format(k=1)
    sliced = make_slice(code, ast.parse(code), trigger_regex([get_pass("export-for-training")]))
    assert sliced is not None
    stub = next(iter(sliced.holes))
    assert sliced.splice(sliced.text) == code
    assert sliced.splice(sliced.text.replace(stub, stub + "  # edited")) is None
    assert sliced.splice(sliced.text.replace(stub + "\n", "")) is None
    assert sliced.splice(sliced.text + stub + "\n") is None


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_line_endings_and_a_missing_last_newline_come_through(newline: str) -> None:
    code = ("import torch\n\ndef f(m, x):\n    return torch.export.export_for_training(m, (x,))\n" + FILLER.format(k=1)).replace("\n", newline)
    code = code.rstrip("\r\n")
    passes = [get_pass("export-for-training")]
    sliced, whole, used = _both(code, passes)
    assert used == 1
    _same(sliced, whole)
    assert sliced.code.count(newline) == code.count(newline) and not sliced.code.endswith("\n")


def test_suppression_comments_and_small_files_are_not_sliced() -> None:
    base = "import torch\n\ndef f(m, x):\n    return torch.export.export_for_training(m, (x,))\n"
    passes = [get_pass("export-for-training")]
    regex = trigger_regex(passes)
    suppressed = base + "# migrate: ignore\n" + FILLER.format(k=1)
    assert make_slice(suppressed, ast.parse(suppressed), regex) is None
    assert make_slice(base, ast.parse(base), regex) is None


def test_a_module_variable_ties_statements_together() -> None:
    code = (
        "import torch\n\n"
        + FILLER.format(k=1)
        + "\n\nstate = torch.load('w.pt')\n"
        + FILLER.format(k=2)
        + "\n\nmodel.load_state_dict(state)\n"
        + FILLER.format(k=3)
    )
    passes = [get_pass("torch-load-weights-only")]
    sliced = make_slice(code, ast.parse(code), trigger_regex(passes))
    assert sliced is not None
    assert "model.load_state_dict(state)" in sliced.text
    result, whole, used = _both(code, passes)
    _same(result, whole)


def _mixed_files(seed: int, filler: float) -> Iterator[str]:
    """40 tries at a file of two to four pass examples, each followed by unrelated code with probability ``filler``
    (the ones that parse)."""
    befores = [e.before for p in PYTHON_PASSES for e in p.examples if "__future__" not in e.before]
    rng = random.Random(seed)
    for _ in range(40):
        parts = []
        for _ in range(rng.randint(2, 4)):
            parts.append(rng.choice(befores))
            if rng.random() < filler:
                parts.append(FILLER.format(k=rng.randint(1, 999)))
        code = "\n".join(parts)
        try:
            ast.parse(code)
        except SyntaxError:
            continue
        yield code


def test_files_mixing_several_examples_give_the_whole_file_result() -> None:
    # Interactions: several passes' examples in one file, with unrelated code between some of them.
    passes = select_passes(to=parse_version("2.13"), from_=OLDEST, select=[p.id for p in all_passes()])
    sliced_files = 0
    for code in _mixed_files(42, 0.7):
        sliced, whole, used = _both(code, passes)
        _same(sliced, whole)
        sliced_files += used
    assert sliced_files > 15


@pytest.fixture
def always_chain(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every file with two passes or more in play runs them as a chain of their own slices (engine._chained)."""

    def own(text: str, tree: ast.Module, active: list[Pass], union: object, newline: str) -> dict[int, object]:
        return {id(p): make_slice(text, tree, engine.slice_regex([p]), newline, ties=engine._ties([p])) for p in active}

    monkeypatch.setattr(engine, "_own_slices", own)
    yield


@pytest.mark.parametrize("gate", [SAFE_ONLY, APPLY_ALL])
def test_passes_chained_on_their_own_slices_give_the_whole_file_result(always_chain: None, gate: Gate) -> None:
    """Several passes' examples in one file (passes that chain, review edits held back as findings with their fix,
    or made), run one pass after the other on its own slice of the text as the earlier ones left it."""
    passes = select_passes(to=parse_version("2.13"), from_=OLDEST, select=[p.id for p in all_passes()])
    before = engine.SLICING.chained
    for code in _mixed_files(7, 1.0):
        _same(migrate_text(code, passes, gate=gate), _unsliced(code, passes, gate))
    assert engine.SLICING.chained - before > 10


def test_a_chain_gives_up_where_a_step_changed_the_files_header(always_chain: None) -> None:
    """linalg-deprecated deletes the first statement, so a blank line opens its output; parsed again, that line is
    the module's header, and torchvision-functional-modules would place its new import below it (the whole-file run,
    on the module the first pass left, places it first): the chain gives up, the passes run together."""
    code = (
        "from torch import ger\n\n" + "".join(f"O{k} = ger(u, v)\n" for k in range(40))
        + "\nfrom torchvision.transforms.functional_tensor import adjust_gamma, resize\n\n"
        + "".join(f"x{k} = adjust_gamma(img, 2.2)\n" for k in range(40)) + "\nimport torch\n"
    )
    passes = [get_pass("linalg-deprecated"), get_pass("torchvision-functional-modules")]
    chained, chains = _chains(code, passes)
    assert chains == 0
    assert chained.code.startswith("from torchvision.transforms.functional import adjust_gamma")


def test_a_chain_runs_where_one_slice_for_all_passes_would_keep_most_of_the_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two passes whose sites sit far apart, each with its own code around it: one slice for both keeps both halves,
    each pass's own slice one of them (a small file: the least work worth a chain is lowered)."""
    monkeypatch.setattr(engine, "CHAIN_MIN_WORK", 0)
    first = "def load_all(m, paths):\n" + "".join(f"    m.load_state_dict(torch.load(paths[{k}]))\n" for k in range(120))
    second = "def scale_all(xs):\n" + "".join(f"    b{k} = torch.cuda.amp.autocast()\n" for k in range(120))
    code = "import torch\n\n" + first + FILLER.format(k=1) + "\n" + second + FILLER.format(k=2)
    passes = [get_pass("amp-namespace"), get_pass("torch-load-weights-only")]
    chained, chains = _chains(code, passes)
    assert chains == 1
    assert "torch.amp.autocast" in chained.code and "weights_only=True" in chained.code


@pytest.mark.parametrize(
    ("pass_id", "head", "body"),
    [
        ("profiler-event-metadata", "    with torch.profiler.profile() as prof:\n        step()\n", "    return record.event_metadata\n"),
        ("green-context-stack", "    g = torch.cuda.GreenContext.create(1)\n", "    ctx.set_context()\n    ctx.pop_context()\n"),
        ("profiler-metadata-json", "    with torch.profiler.profile() as prof:\n        step()\n", "    return [e for e in events if e.metadata_json]\n"),
        ("torch-norm", "    s = torch.eye(3).to_sparse()\n", "    return torch.norm(record)\n"),
    ],
)
def test_a_pass_that_reads_the_whole_text_reads_it_in_a_slice_too(pass_id: str, head: str, body: str) -> None:
    """These passes act (or choose a finding over an edit) by a fact of the whole file — it uses the profiler, green
    contexts, sparse tensors — which a statement the slice leaves out may hold: they read it from the statements
    left out too (``PassTransformer.whole_text_has``), so the sliced run gives the whole-file result."""
    pass_ = get_pass(pass_id)
    filler = "".join(FILLER.format(k=k) for k in range(8))
    text = f"import torch\n\n\ndef run():\n{head}    return 1\n{filler}\n\ndef report(prof, record, ctx):\n{body}"
    sliced, whole, used = _both(text, [pass_])
    _same(sliced, whole)
    assert used == 1 and "def run():" not in make_slice(text, ast.parse(text), engine.slice_regex([pass_])).text  # type: ignore[union-attr]
    assert whole.edits or whole.findings


METHOD_FILLER = '''
{indent}def _filler_method_{k}(self, value):
{indent}    """Scale a value."""
{indent}    return value * {k}
'''


def _padded_bodies(code: str, kinds: tuple[type[ast.AST], ...], filler: str) -> str:
    """``code`` with ``filler`` (formatted with the body's indent) after every statement of each body of a ``kinds``
    node (nested ones too)."""
    tree = ast.parse(code)
    lines = code.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    inserts: dict[int, list[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, kinds) and node.body and node.body[0].lineno > node.lineno:  # type: ignore[attr-defined]
            first = lines[node.body[0].lineno - 1]  # type: ignore[attr-defined]
            indent = first[: len(first) - len(first.lstrip())]
            for statement in node.body:  # type: ignore[attr-defined]
                end = statement.end_lineno or statement.lineno
                inserts.setdefault(end, []).append(filler.format(indent=indent, k=end))
    out: list[str] = []
    for number, line in enumerate(lines, start=1):
        out.append(line)
        out.extend(inserts.get(number, ()))
    return "".join(out)


def _padded_classes(code: str) -> str:
    """``code`` with unrelated methods after every statement of each class body (nested classes too)."""
    return _padded_bodies(code, (ast.ClassDef,), METHOD_FILLER)


CLASS_EXAMPLES = [
    pytest.param(p, i, id=f"{p.id}-{i}")
    for p in PYTHON_PASSES
    for i, e in enumerate(p.examples)
    if "class " in e.before and any(isinstance(n, ast.ClassDef) for n in ast.walk(ast.parse(e.before)))
]


@pytest.mark.parametrize(("pass_", "index"), CLASS_EXAMPLES)
def test_examples_with_classes_padded_inside_give_the_whole_file_result(pass_: Pass, index: int) -> None:
    """Methods of a kept class that hold nothing a pass acts on become stubs too: every example with a class, padded
    with such methods inside its classes (and functions between its statements), gives the whole-file result."""
    example = pass_.examples[index]
    code = _padded(_padded_classes(example.before))
    assert not trigger_regex(all_passes()).search(METHOD_FILLER)
    target = parse_version(example.to) if example.to else pass_.version
    for passes in ([pass_], select_passes(to=target, from_=OLDEST, select=[p.id for p in all_passes()])):
        sliced, whole, _ = _both(code, passes)
        _same(sliced, whole)


INNER_FILLER = '''
{indent}def _filler_inner_{k}(value):
{indent}    """Scale a value."""
{indent}    return value * {k}
'''


def _padded_functions(code: str) -> str:
    """``code`` with unrelated functions defined after every statement of each function body (nested ones too)."""
    return _padded_bodies(code, (ast.FunctionDef, ast.AsyncFunctionDef), INNER_FILLER)


RENAME_EXAMPLES = [
    pytest.param(p, i, id=f"{p.id}-{i}")
    for p in PYTHON_PASSES
    if engine._ties([p]) == NO_TIES
    for i, e in enumerate(p.examples)
    if any(isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in ast.walk(ast.parse(e.before)))
]


@pytest.mark.parametrize(("pass_", "index"), RENAME_EXAMPLES)
def test_rename_examples_with_functions_padded_inside_give_the_whole_file_result(pass_: Pass, index: int) -> None:
    """For passes that only rename, the functions a kept function defines become stubs when they hold nothing the
    pass acts on: every such example with a function, padded with nested functions, gives the whole-file result."""
    example = pass_.examples[index]
    code = _padded(_padded_functions(example.before))
    assert not trigger_regex(all_passes()).search(INNER_FILLER)
    sliced, whole, _ = _both(code, [pass_])
    _same(sliced, whole)


def test_functions_inside_a_kept_function_become_stubs_for_a_rename_only() -> None:
    """torch's ``_dynamo/variables/torch.py`` keeps a 2,000-line method of nested handlers for two references to
    ``torch._utils.is_compiling``: a pass that only renames gets the handler that holds one, and stubs for the rest.
    A pass that follows variables keeps them whole (a nested function reads its enclosing function's variables)."""
    inner = "".join(INNER_FILLER.format(indent="    ", k=k) for k in range(10))
    code = (
        "import torch\n\n\ndef handlers():\n    table = {}\n" + inner
        + "\n    def compiling():\n        return torch._utils.is_compiling()\n" + inner
        + "    return table\n\n\nHANDLERS = handlers()\n"
    )
    rename = get_pass("is-compiling")
    assert engine._ties([rename]) == NO_TIES
    sliced = make_slice(code, ast.parse(code), engine.slice_regex([rename]), ties=NO_TIES)
    assert sliced is not None
    assert "def compiling():\n        return torch._utils.is_compiling()\n" in sliced.text
    assert "Scale a value" not in sliced.text and sliced.text.count("__torchmigrate_hole_") == 3
    assert sliced.splice(sliced.text) == code
    followed = make_slice(code, ast.parse(code), engine.slice_regex([rename]), ties=USES)
    assert followed is None or "Scale a value" in followed.text
    result, whole, used = _both(code, [rename])
    _same(result, whole)
    assert used == 1 and "torch.compiler.is_compiling()" in result.code


def test_methods_of_a_kept_class_become_stubs() -> None:
    methods = "".join(METHOD_FILLER.format(indent="    ", k=k) for k in range(10))
    code = f"import torch\n\n\nclass Trainer:\n{methods}\n    def save(self, path):\n        return torch.load(path)\n{methods}\n\nTRAINER = Trainer()\n"
    tree = ast.parse(code)
    sliced = make_slice(code, tree, trigger_regex([get_pass("torch-load-weights-only")]))
    assert sliced is not None
    assert "def save(self, path):\n        return torch.load(path)\n" in sliced.text
    assert "Scale a value" not in sliced.text  # the methods' bodies are left out; their names stay bound
    assert sliced.text.count("__torchmigrate_hole_") == 3  # two runs of methods, and the last statement
    assert sliced.splice(sliced.text) == code


_TIES = (
    "import torch\n\nBACKEND = 'gloo'\n\n" + FILLER.format(k=1) + "\nSTATE = torch.load(BACKEND + '.pt')\n\n"
    "def reader_of_backend():\n    return BACKEND.upper() + 'x' * 40\n\n"
    "def reader_of_state(model):\n    model.load_state_dict(STATE)\n\n"
    + "".join(FILLER.format(k=k) for k in range(2, 5))
)


@pytest.mark.parametrize(
    ("ties", "kept", "left_out"),
    [
        (BINDINGS, ["BACKEND = 'gloo'"], ["BACKEND.upper()", "load_state_dict"]),
        (BOUND_USES, ["BACKEND = 'gloo'", "load_state_dict"], ["BACKEND.upper()"]),
        (USES, ["BACKEND = 'gloo'", "load_state_dict", "BACKEND.upper()"], []),
    ],
)
def test_module_variables_tie_what_the_passes_follow(ties: str, kept: list[str], left_out: list[str]) -> None:
    """A statement that binds what the kept code reads always stays; one that only reads it stays when the passes
    follow a variable's uses (USES), or the variable is bound at a site (BOUND_USES: ``STATE = torch.load(...)``)."""
    sliced = make_slice(_TIES, ast.parse(_TIES), engine.slice_regex([get_pass("torch-load-weights-only")]), ties=ties)
    assert sliced is not None
    assert all(text in sliced.text for text in kept)
    assert not any(text in sliced.text for text in left_out)
    assert sliced.splice(sliced.text) == _TIES


def test_a_pass_that_follows_a_loaded_value_gets_its_readers_in_the_slice() -> None:
    """torch-load-weights-only edits only a load whose value feeds load_state_dict: the reader must be in the slice
    (with BINDINGS alone, its stub would be a use of STATE that feeds nothing, and the edit a finding)."""
    sliced, whole, used = _both(_TIES, [get_pass("torch-load-weights-only")])
    assert used == 1
    _same(sliced, whole)
    assert "weights_only=True" in sliced.code


def test_a_file_wide_fact_read_by_qualified_name_is_not_hidden_by_a_slice() -> None:
    """accelerator-graph keeps torch.cuda.CUDAGraph where the file also uses CUDA-only graph helpers, wherever they
    are (a slice leaves out the function that calls torch.cuda.graph): the pass is not sliced."""
    code = (
        "import torch\n\ndef build():\n    g = torch.cuda.CUDAGraph()\n    return g\n"
        + "".join(FILLER.format(k=k) for k in range(3))
        + "\ndef run(g, model, x):\n    with torch.cuda.graph(g):\n        return model(x)\n"
    )
    sliced, whole, _ = _both(code, [get_pass("accelerator-graph")])
    _same(sliced, whole)
    assert sliced.code == code and any("CUDA-only" in f.message for f in sliced.findings)


_FILLERS = "".join(FILLER.format(k=k) for k in range(3))
_ELSEWHERE = [  # what decides at the site sits in another function, bound through `global`, or imported there
    ("cuda-graph-generator-state", "import torch\n\ndef setup():\n    global graph\n    graph = torch.cuda.CUDAGraph()\n"
     + _FILLERS + "\ndef capture(gen):\n    graph.register_generator_state(gen)\n"),
    ("cholesky-qr-removed", "import torch\n\ndef setup(n):\n    global cov\n    cov = torch.randn(n, n)\n"
     + _FILLERS + "\ndef factor():\n    return cov.cholesky()\n"),
    ("local-rank-argument", "import argparse\n\ndef make_parser():\n    global parser\n    parser = argparse.ArgumentParser()\n"
     + _FILLERS + "\ndef add_args():\n    parser.add_argument('--local_rank', type=int, default=0)\n"),
    ("group-names-to-process-groups", "import torch.distributed as dist\nimport torch.distributed._functional_collectives as funcol\n\n"
     "def setup():\n    global world\n    world = dist.new_group([0, 1])\n"
     + _FILLERS + "\ndef step(t):\n    return funcol.all_reduce(t, 'sum', world.group_name)\n"),
    ("checkpoint-reentrant", "import torch\nfrom torch.utils.checkpoint import checkpoint\n\ndef configure():\n    global KW\n"
     "    KW = {'use_reentrant': False}\n" + _FILLERS + "\ndef forward(block, x):\n    return checkpoint(block, x, **KW)\n"),
    ("cross-implicit-dim", '"""Helpers."""\n\ndef to_tensor(points):\n    import torch\n    return torch.as_tensor(points)\n'
     + _FILLERS + "\ndef normals(a, b):\n    return a.cross(b)\n\ndef describe(a):\n    if hasattr(a, 'shape'):\n"
     "        return a.shape\n"),
]


@pytest.mark.parametrize(("pass_id", "code"), _ELSEWHERE)
def test_what_decides_in_another_function_is_in_the_slice(pass_id: str, code: str) -> None:
    sliced, whole, _ = _both(code, [get_pass(pass_id)])
    _same(sliced, whole)


def _shadowing_filler(code: str, k: int) -> str:
    """A function that spells every trigger word of every pass in a comment only, and has a local variable (also used
    as an attribute and a keyword) for each module-level variable of ``code``: nothing in it can hold a site or read
    those variables, so the slicer may leave it out, and the result must not change."""
    words = sorted({w for p in PYTHON_PASSES for w in p.triggers if w.isidentifier()})
    variables = sorted(
        {
            node.id
            for statement in ast.parse(code).body
            if not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            for node in ast.walk(statement)
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
        }
    )
    body = "".join(f"    {v} = value.{v}\n    value = dict({v}={v})\n" for v in variables if not v.startswith("__"))
    return f"\n\ndef _shadowing_{k}(value):\n    # {' '.join(words)}\n{body}    return value\n"


@pytest.mark.parametrize(("pass_", "index"), EXAMPLES)
def test_examples_padded_with_comments_and_local_variables_give_the_whole_file_result(pass_: Pass, index: int) -> None:
    """Trigger words in comments, and a function's own variables named like the module's, keep nothing: the
    example padded with such functions (between its statements and at its end) gives the whole-file result."""
    example = pass_.examples[index]
    tree = ast.parse(example.before)
    lines = example.before.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    ends = {s.end_lineno or s.lineno for s in tree.body}
    out = []
    for number, line in enumerate(lines, start=1):
        out.append(line)
        if number in ends and not line.startswith((" ", "\t")):
            out.append(_shadowing_filler(example.before, number))
    code = "".join(out) + "".join(_shadowing_filler(example.before, 1000 + k) for k in range(3))
    ast.parse(code)
    sliced, whole, _ = _both(code, [pass_])
    _same(sliced, whole)


def test_a_comment_or_a_longer_identifier_does_not_keep_a_statement() -> None:
    code = (
        "import torch\n\n\ndef restore(model, path):\n    model.load_state_dict(torch.load(path))\n"
        + "".join(FILLER.format(k=k) for k in range(4))
        + "\n\ndef data():\n    # load the data set\n    return load_dataset('x'), download(), preload\n"
        + '\n\nHELP = """\n# torch.load must be given weights_only\n"""\n'
    )
    passes = [get_pass("torch-load-weights-only")]
    sliced = make_slice(code, ast.parse(code), engine.slice_regex(passes))
    assert sliced is not None
    assert "torch.load(path)" in sliced.text
    assert "load_dataset" not in sliced.text and "# load the data set" not in sliced.text
    assert "# torch.load must be given" in sliced.text  # a line inside a string is not a comment
    _same(*_both(code, passes)[:2])


def test_a_word_that_is_not_a_name_the_pass_acts_on_counts_inside_longer_words() -> None:
    """``dynamo-recompile-limit``'s ``cache_size_limit`` is a config key that also ends ``accumulated_cache_size_limit``:
    a statement that spells only the longer key is kept."""
    code = (
        "import torch\n\n\ndef tune():\n    torch._dynamo.config.accumulated_cache_size_limit = 8\n"
        + "".join(FILLER.format(k=k) for k in range(4))
    )
    passes = [get_pass("dynamo-recompile-limit")]
    sliced = make_slice(code, ast.parse(code), engine.slice_regex(passes))
    assert sliced is not None and "accumulated_cache_size_limit = 8" in sliced.text
    result, whole, used = _both(code, passes)
    _same(result, whole)
    assert "accumulated_recompile_limit" in result.code


def test_a_function_reading_a_module_variable_stays_and_one_shadowing_it_goes() -> None:
    code = (
        "import torch\n\nstate = torch.load('w.pt')\n\n\n"
        "def shadows(model):\n    state = model.state\n    model.state = dict(state=state)\n    return state\n\n\n"
        "def reads(model):\n    model.load_state_dict(state)\n\n\n"
        "def default(model, s=state):\n    return s\n\n\n"
        "def declares():\n    global state\n    state = None\n\n\n"
        "def comprehension(xs):\n    ys = [state for state in xs]\n    return ys, state\n"
        + "".join(FILLER.format(k=k) for k in range(6))
    )
    passes = [get_pass("torch-load-weights-only")]
    sliced = make_slice(code, ast.parse(code), engine.slice_regex(passes))
    assert sliced is not None
    for kept in ("def reads(", "def default(", "def declares(", "def comprehension("):
        assert kept in sliced.text
    assert "def shadows(" not in sliced.text
    stub = next(line for line in sliced.text.splitlines() if line.startswith("shadows = "))
    assert "state" not in stub.partition("(")[2]  # its local variable is not a read of the module's
    result, whole, _ = _both(code, passes)
    _same(result, whole)


@pytest.mark.parametrize(
    "body",
    [
        "    print(state)\n    state = None\n",  # a read before the binding is libcst's read of the module's `state`
        "    del state\n",  # `del` is a read too
        "    for i in range(3):\n        print(state)\n        state = i\n",
        "    state = state + 1\n",
        "    with open(state) as state:\n        pass\n",
        "    import state\n",
        "    def g():\n        return state\n    state = 2\n",
        "    state = 2\n    print(state)\n",
    ],
)
def test_a_function_binding_a_module_variable_name_after_reading_it_is_tied(body: str) -> None:
    """libcst links a read to the function's own binding only when that binding comes first; before it (or with
    ``del``), the read is of the module-level variable, and the sliced run must see that reference too."""
    code = (
        "import torch\nstate = torch.load(p)\nmodel.load_state_dict(state)\n\n\ndef f():\n"
        + body
        + "".join(FILLER.format(k=k) for k in range(8))
    )
    sliced, whole, used = _both(code, [get_pass("torch-load-weights-only")])
    _same(sliced, whole)
    assert used == 1


MAIN_FILLER = """
_total_{k} = 0
for _item_{k} in range(3):
    _total_{k} += _item_{k}
        # a comment under the loop's block
# a comment at the block's level

_names_{k} = [str(n) for n in range(_total_{k})]
"""


def _in_main_block(code: str) -> str | None:
    """``code`` as the body of a script's ``if __name__ == "__main__":`` block, with unrelated statements between each
    pair of its statements and at its end, after a top-level header; ``None`` where the example cannot be indented
    (a ``from __future__`` import)."""
    if "__future__" in code:
        return None
    padded = _padded(code).replace(FILLER.format(k=0), MAIN_FILLER.format(k=0))
    for k in range(1, padded.count("_filler_") + 2):
        padded = padded.replace(FILLER.format(k=k), MAIN_FILLER.format(k=k))
    body = "".join(("    " + line) if line.strip() else line for line in padded.splitlines(keepends=True))
    text = '"""A script."""\nimport os\n' + FILLER.format(k=999) + '\n\nif __name__ == "__main__":\n' + body
    try:
        ast.parse(text)
    except SyntaxError:
        return None
    return text


@pytest.mark.parametrize(("pass_", "index"), EXAMPLES)
def test_examples_in_a_main_block_give_the_whole_file_result(pass_: Pass, index: int) -> None:
    example = pass_.examples[index]
    code = _in_main_block(example.before)
    if code is None:
        pytest.skip("a from __future__ import cannot move into a block")
    assert not trigger_regex(all_passes()).search(MAIN_FILLER)
    target = parse_version(example.to) if example.to else pass_.version
    for passes in ([pass_], select_passes(to=target, from_=OLDEST, select=[p.id for p in all_passes()])):
        sliced, whole, _ = _both(code, passes)
        _same(sliced, whole)


def test_a_main_block_is_sliced_statement_by_statement() -> None:
    filler = "".join(MAIN_FILLER.format(k=k) for k in range(8))
    body = "".join(("    " + line) if line.strip() else line for line in filler.splitlines(keepends=True))
    code = (
        "import torch\n\n\ndef helper():\n    return 1\n\n\n"
        'if __name__ == "__main__":\n'
        "    path = 'model.pt'\n"
        + body
        + "    from torch.optim.lr_scheduler import StepLR\n"
        + "    model = helper()\n"
        + "    model.load_state_dict(torch.load(path))\n"
    )
    passes = [get_pass("torch-load-weights-only")]
    active = [p for p in passes]
    sliced = make_slice(code, ast.parse(code), engine.slice_regex(active), "\n", ties=engine._ties(active))
    assert sliced is not None
    kept = sliced.text
    assert "    path = 'model.pt'\n" in kept  # bound a variable the kept statement reads
    assert "    from torch.optim.lr_scheduler import StepLR\n" in kept  # an import binding a module-level name
    assert "    model = helper()\n" in kept  # binds a variable the kept statement reads
    assert "for _item_" not in kept and "# a comment" not in kept  # the unrelated statements: one stub line
    inside = kept.splitlines()[kept.splitlines().index('if __name__ == "__main__":') + 1 :]
    stubs = [line for line in inside if "__torchmigrate_hole_" in line]
    assert len(stubs) == 1 and stubs[0].startswith("    _item_0 = ")  # in the block, binding what the run binds
    assert all(line.startswith("    ") for line in inside if line)
    assert sliced.splice(sliced.text) == code
    result, whole, used = _both(code, passes)
    _same(result, whole)
    assert used == 1 and "weights_only=True" in result.code


def _libcst_spans(text: str) -> list[tuple[int, int]]:
    """The lines libcst gives each group of a file whose statements each start a line: its header, each top-level
    statement (with its leading lines and its blocks' footers), and for a main block, its ``if`` line and each of its
    statements (the block's footer with the last one)."""
    import libcst as cst

    module = cst.parse_module(text)
    spans: list[tuple[int, int]] = []
    line = 1

    def take(count: int) -> None:
        nonlocal line
        spans.append((line, line + count - 1))
        line += count

    def lines_of(node: cst.CSTNode) -> int:
        return module.code_for_node(node).count("\n")

    header = sum(lines_of(h) for h in module.header)
    for index, statement in enumerate(module.body):
        own = lines_of(statement) + (header if index == 0 else 0)
        test = statement.test if isinstance(statement, cst.If) else None
        main = (
            isinstance(test, cst.Comparison)
            and isinstance(test.left, cst.Name)
            and test.left.value == "__name__"
            and isinstance(statement.body, cst.IndentedBlock)
            and statement.orelse is None
            and len(statement.body.body) >= 2
        )
        if not main:
            take(own)
            continue
        assert isinstance(statement, cst.If) and isinstance(statement.body, cst.IndentedBlock)
        body = statement.body.body
        inner = [lines_of(s) for s in body]
        footer = sum(lines_of(f) for f in statement.body.footer)
        take(own - sum(inner) - footer)
        for k, count in enumerate(inner):
            take(count + (footer if k == len(inner) - 1 else 0))
    footer = sum(lines_of(f) for f in module.footer)
    if footer:
        spans[-1] = (spans[-1][0], spans[-1][1] + footer)
    return spans


_GAPS = ["", "# c0\n", "  # c2\n", "    # c4\n", "      # c6\n", "        # c8\n", "\n", "\n\n"]
_INNER = [
    "x{k} = {k}\n",
    "for i{k} in range(2):\n    y{k} = i{k}\n",
    "if x{k}:\n    y{k} = 1\nelse:\n    y{k} = 2\n",
    "try:\n    y{k} = 1\nexcept ValueError:\n    y{k} = 2\n",
    "def f{k}():\n    for j in range(2):\n        pass\n    return 1\n",
    "if x{k}: y{k} = 1\n",
    "while x{k}:\n    break\nelse:\n    pass\n",
    "if a{k}:\n    pass\nelif b{k}:\n    pass\n",
    "with x{k}:\n    pass\n",
    "class C{k}:\n    def m(self):\n        return 1\n",
]


def _layout_case(seed: int) -> str:
    rng = random.Random(seed)
    parts: list[str] = ['"""Doc."""\n', "import os\n"]
    for k in range(rng.randint(1, 3)):
        parts.append(rng.choice(_GAPS) + rng.choice(_INNER).format(k=k))
    parts.append(rng.choice(_GAPS) + 'if __name__ == "__main__":\n')
    for k in range(10, 10 + rng.randint(2, 5)):
        gap = rng.choice(_GAPS)
        statement = rng.choice(_INNER).format(k=k)
        parts.append(gap + "".join("    " + line for line in statement.splitlines(keepends=True)))
    for k in range(20, 20 + rng.randint(0, 2)):
        parts.append(rng.choice(_GAPS) + rng.choice(_INNER).format(k=k))
    parts.append(rng.choice(_GAPS))
    return "".join(parts)


@pytest.mark.parametrize("seed", range(300))
def test_the_slicers_line_ownership_is_libcsts(seed: int) -> None:
    from torchmigrate.core.text import split_lines
    from torchmigrate.python.slicing import _layout, _spans

    text = _layout_case(seed)
    lines = split_lines(text)
    groups, indents = _layout(ast.parse(text), lines)
    assert _spans(groups, lines, indents) == _libcst_spans(text), text


SETTLED_UNSLICEABLE = '''@torch.jit.script
def snake(x, alpha):
        return self.x
import torch
def legacy2(x):
    return torch.norm(x)
if __name__ == '__main__':
    @torch.jit.script
    def fused_bias_gelu(bias, y):
        return x * 0.5 * (1.0 + torch.tanh(0.79788456 * x * (1 + 0.044715 * x * x)))
'''


@pytest.mark.parametrize("gate", [SAFE_ONLY, APPLY_ALL])
def test_a_settled_pass_that_cannot_run_on_a_slice_never_does(gate: Gate) -> None:
    # found by a fuzzing review: jit-to-export, settled from the whole file's ast, planned an edit in the slice that
    # torch-norm's edit left (the left-out code looked absent there) and ran on it
    passes = select_passes(to=parse_version("2.15"), from_=OLDEST, select=[p.id for p in all_passes()])
    assert not get_pass("jit-to-export").sliceable
    _same(migrate_text(SETTLED_UNSLICEABLE, passes, gate=gate), _unsliced(SETTLED_UNSLICEABLE, passes, gate))
