"""A keyword set through a ``**kwargs`` dict built visibly in the same function counts as passed."""

from __future__ import annotations

import libcst as cst
import pytest

from torchmigrate.core.passes import SAFE, Pass
from torchmigrate.python.engine import migrate_text
from torchmigrate.python.transform import PassTransformer

DOC = "## What it does\nx\n## Fix safety\ny"


def keys_of(code: str) -> tuple[frozenset[str], bool]:
    """(keys, complete) that ``star_keys`` sees at the call of ``target(...)`` in ``code``."""
    from torchmigrate.python.starargs import star_keys

    seen: list[tuple[frozenset[str], bool]] = []

    class Probe(PassTransformer):
        def visit_Call(self, node: cst.Call) -> None:
            if isinstance(node.func, cst.Name) and node.func.value == "target":
                found = star_keys(self, node)
                seen.append((found.keys, found.complete))

    p = Pass(id="test-probe", release="2.5", safety=SAFE, title="t", evidence="test", triggers=("target",), doc=DOC)
    p.uses(Probe)
    result = migrate_text(code, [p], precheck=False)
    assert result.error is None
    assert len(seen) == 1
    return seen[0]


@pytest.mark.parametrize(
    ("code", "keys", "complete"),
    [
        ("def f():\n    kw = {'weights_only': False}\n    target(p, **kw)\n", {"weights_only"}, True),
        ("def f():\n    kw = dict(map_location='cpu')\n    kw['weights_only'] = True\n    target(p, **kw)\n", {"map_location", "weights_only"}, True),
        ("def f(c):\n    kw = {'a': 1} if c else {}\n    target(p, **kw)\n", {"a"}, True),
        ("def f(c):\n    kw = {'a': 1} if c else other\n    target(p, **kw)\n", set(), False),
        ("def f(c):\n    if c:\n        kw = {'a': 1}\n    else:\n        kw = {}\n    target(p, **kw)\n", {"a"}, True),
        ("def f():\n    kw = {}\n    kw.update(use_reentrant=False)\n    kw.setdefault('b', 2)\n    target(**kw)\n", {"use_reentrant", "b"}, True),
        ("def f(**kw):\n    target(p, **kw)\n", set(), False),  # a parameter: anything
        ("def f():\n    kw = {}\n    fill(kw)\n    target(p, **kw)\n", set(), False),  # handed to other code
        ("def f():\n    kw = {}\n    kw[name] = 1\n    target(p, **kw)\n", set(), False),  # a key not in view
        ("kw = {'weights_only': True}\ntarget(p, **kw)\n", {"weights_only"}, False),  # module level: in view, never complete
        ("def f():\n    target(p, **{'dynamo': False})\n", {"dynamo"}, True),
        ("def f(args):\n    target(*args)\n", set(), False),
    ],
)
def test_star_keys(code: str, keys: set[str], complete: bool) -> None:
    assert keys_of(code) == (frozenset(keys), complete)


def test_a_checkpoint_whose_kwargs_set_use_reentrant_gets_no_finding() -> None:
    from torchmigrate.api import migrate_source

    code = (
        "from torch.utils.checkpoint import checkpoint\n\n\n"
        "def forward(self, x):\n"
        "    ckpt_kwargs = {}\n"
        "    ckpt_kwargs['use_reentrant'] = False\n"
        "    return checkpoint(self.block, x, **ckpt_kwargs)\n"
    )
    assert migrate_source(code, to="2.13", select=["checkpoint-reentrant"]).findings == []
    unknown = code.replace("    ckpt_kwargs = {}\n    ckpt_kwargs['use_reentrant'] = False\n", "    ckpt_kwargs = self.kwargs\n")
    assert len(migrate_source(unknown, to="2.13", select=["checkpoint-reentrant"]).findings) == 1
