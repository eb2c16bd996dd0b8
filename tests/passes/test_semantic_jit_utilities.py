"""jit-utilities reports exactly the torch.jit helpers that warn on torch 2.13, and none that stay silent."""

from __future__ import annotations

import warnings

from support.torchrun import torch_or_skip

from torchmigrate import migrate_source

CODE = """\
import torch

def work(x):
    return x + 1

fut = torch.jit.fork(work, torch.ones(1))
y = torch.jit.wait(fut)
if torch.jit.is_scripting():
    pass
n = torch.jit.annotate(int, 3)
"""


def test_reported_calls_are_the_ones_that_warn() -> None:
    torch = torch_or_skip()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        namespace: dict[str, object] = {}
        exec(compile(CODE, "<legacy>", "exec"), namespace)  # noqa: S102 - our own snippet
    warned = {
        str(w.message).split("`")[1] for w in caught if issubclass(w.category, DeprecationWarning) and "`" in str(w.message)
    }
    assert warned == {"torch.jit.fork", "torch.jit.wait"}
    assert torch.equal(namespace["y"], torch.full((1,), 2.0))  # type: ignore[arg-type]
    result = migrate_source(CODE, to="2.11", select=["jit-utilities"])
    reported = {f.message.split(" is deprecated")[0] for f in result.findings}
    assert reported == warned
    assert result.code == CODE
