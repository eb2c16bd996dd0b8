"""Parents from the visit itself: while a pass visits a tree, the parent of the current node and of each of its
ancestors is read off the stack of nodes being visited instead of libcst's ``ParentNodeProvider`` (a whole extra visit
of the tree). While the check is on, every node every pass visits, on every pass example and on real files, has its
stack parent compared with libcst's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, ParentNodeProvider

from torchmigrate.core.fixes import APPLY_ALL
from torchmigrate.core.passes import SAFE, Pass
from torchmigrate.core.registry import all_passes
from torchmigrate.python.engine import migrate_text
from torchmigrate.python.transform import CHECK_VISITED_PARENTS, PassTransformer

PYTHON_PASSES = [p for p in all_passes() if p.files == "python"]


@pytest.fixture
def checked() -> Iterator[None]:
    CHECK_VISITED_PARENTS.enabled, CHECK_VISITED_PARENTS.checked, CHECK_VISITED_PARENTS.answered = True, 0, 0
    CHECK_VISITED_PARENTS.mismatches = []
    try:
        yield
        assert CHECK_VISITED_PARENTS.mismatches == []  # (node, the stack's parent, libcst's)
    finally:
        CHECK_VISITED_PARENTS.enabled = False


@pytest.mark.usefixtures("checked")
def test_every_pass_example_gets_libcsts_parents() -> None:
    for pass_ in PYTHON_PASSES:
        for example in pass_.examples:
            for text in filter(None, (example.before, example.after)):
                migrate_text(text, [pass_], gate=APPLY_ALL, precheck=False)
    assert CHECK_VISITED_PARENTS.checked > 10_000
    assert CHECK_VISITED_PARENTS.answered > 100  # the passes' own walks up were answered by the stack


@pytest.mark.usefixtures("checked")
def test_real_files_get_libcsts_parents() -> None:
    torch = pytest.importorskip("torch")
    root = Path(torch.__file__).parent
    files = sorted(p for p in root.rglob("*.py") if p.stat().st_size < 80_000)[::40]
    for path in files:
        migrate_text(path.read_text(encoding="utf-8"), PYTHON_PASSES, gate=APPLY_ALL, precheck=False)
    assert len(files) > 30 and CHECK_VISITED_PARENTS.checked > 10_000


class _Recorder(PassTransformer):
    """Asks for parents as passes do: of the current node on the way down and up (and, with ``ahead``, of a node
    below the current one, not visited yet)."""

    ahead = False

    def __init__(self, *args: object) -> None:
        super().__init__(*args)  # type: ignore[arg-type]
        self.answers: list[tuple[str, str]] = []

    def visit_Call(self, node: cst.Call) -> None:
        self.answers.append(("call", type(self.get_metadata(ParentNodeProvider, node)).__name__))
        if self.ahead:
            later = node.args[0].value
            self.answers.append(("arg value", type(self.get_metadata(ParentNodeProvider, later)).__name__))

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        self.answers.append((original_node.value, type(self.get_metadata(ParentNodeProvider, original_node)).__name__))
        return updated_node

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        self.resolved = ParentNodeProvider in self.metadata  # (libcst empties ``metadata`` when the visit ends)
        return updated_node


@pytest.mark.parametrize("ahead", [False, True])
def test_the_stack_answers_for_the_current_node_and_libcst_for_the_rest(ahead: bool) -> None:
    from torchmigrate.python.codemod import new_context
    from torchmigrate.python.transform import Sink

    wrapper = MetadataWrapper(cst.parse_module("y = f(x)\n"), unsafe_skip_copy=True)
    pass_ = Pass(id="t-pass", release="2.5", safety=SAFE, title="t", evidence="e", triggers=("f",))
    recorder = _Recorder(new_context(wrapper), pass_, Sink("t-pass", "safe", {}))
    recorder.ahead = ahead
    wrapper.visit(recorder)
    expected = [("y", "AssignTarget"), ("call", "Assign"), ("f", "Call"), ("x", "Arg")]
    if ahead:
        expected.insert(2, ("arg value", "Arg"))
    assert recorder.answers == expected
    # Only a node off the stack (not visited yet) costs libcst's extra visit of the tree.
    assert recorder.resolved is ahead
