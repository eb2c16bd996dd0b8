"""``resolve_metadata``: libcst's metadata, without the wasted visit libcst's resolver makes for a provider that is not
batchable (``PositionProvider``), and kept where the wrapper keeps it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, ParentNodeProvider, PositionProvider, ScopeProvider

from torchmigrate.python import transform
from torchmigrate.python.codemod import resolve_metadata

CODE = Path(transform.__file__).read_text(encoding="utf-8")  # real code of some size


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    visits = [0]
    real = MetadataWrapper.visit_batched

    def visit_batched(self: MetadataWrapper, *args: Any, **kwargs: Any) -> Any:
        visits[0] += 1
        return real(self, *args, **kwargs)

    monkeypatch.setattr(MetadataWrapper, "visit_batched", visit_batched)
    return visits


def test_positions_are_libcsts_without_a_visit_of_the_tree(monkeypatch: pytest.MonkeyPatch) -> None:
    module = cst.parse_module(CODE)
    visits = _counting(monkeypatch)
    reference = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    assert visits[0] == 1  # libcst's resolver: a codegen, then an (empty) batched visit of the whole tree
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = resolve_metadata(wrapper, PositionProvider)
    assert visits[0] == 1
    assert dict(positions) == dict(reference) and len(positions) > 1000
    assert wrapper.resolve(PositionProvider) is positions  # kept where libcst keeps it: never computed twice
    assert visits[0] == 1


def test_batchable_providers_are_resolved_by_libcst(monkeypatch: pytest.MonkeyPatch) -> None:
    module = cst.parse_module(CODE)
    visits = _counting(monkeypatch)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    parents = resolve_metadata(wrapper, ParentNodeProvider)
    assert visits[0] == 1 and parents[module.body[0]] is module
    scopes = resolve_metadata(wrapper, ScopeProvider)
    done = visits[0]
    assert done > 1 and scopes is wrapper.resolve(ScopeProvider)
    assert resolve_metadata(wrapper, ParentNodeProvider) is parents and visits[0] == done
