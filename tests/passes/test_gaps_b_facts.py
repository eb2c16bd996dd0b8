"""The API facts the catalog-gaps passes rest on, checked against the installed torch (2.13): the tables they carry,
the names they emit, and the equivalences their fix safety claims."""

from __future__ import annotations

import inspect

import pytest
from support.torchrun import torch_or_skip

from torchmigrate.codemods.v1_8 import loss_reduction

torch = torch_or_skip()


def params(fn: object) -> tuple[str, ...]:
    return tuple(p for p in inspect.signature(fn).parameters if p != "self")  # type: ignore[arg-type]


@pytest.mark.parametrize("name", sorted(loss_reduction.MODULES))
def test_loss_module_parameters(name: str) -> None:
    table = loss_reduction.MODULES[name]
    assert params(getattr(torch.nn, name).__init__)[: len(table)] == table


@pytest.mark.parametrize("name", sorted(loss_reduction.FUNCTIONS))
def test_loss_function_parameters(name: str) -> None:
    table = loss_reduction.FUNCTIONS[name]
    assert params(getattr(torch.nn.functional, name))[: len(table)] == table


def test_every_loss_with_legacy_flags_is_in_the_tables() -> None:
    modules = {n for n in dir(torch.nn) if isinstance(getattr(torch.nn, n), type) and "size_average" in _safe_params(getattr(torch.nn, n).__init__)}
    functions = {n for n in dir(torch.nn.functional) if callable(getattr(torch.nn.functional, n)) and "size_average" in _safe_params(getattr(torch.nn.functional, n))}
    assert modules == set(loss_reduction.MODULES)
    assert functions == set(loss_reduction.FUNCTIONS)


@pytest.mark.parametrize(("size_average", "reduce"), [(a, r) for a in (None, True, False) for r in (None, True, False)])
def test_legacy_string_is_torchs(size_average: bool | None, reduce: bool | None) -> None:
    from torch.nn import _reduction

    expected = _reduction.legacy_get_string(size_average, reduce, emit_warning=False)
    assert loss_reduction.legacy_string(size_average, reduce) == expected


def _safe_params(fn: object) -> tuple[str, ...]:
    try:
        return params(fn)
    except (TypeError, ValueError):
        return ()


def test_backends_modules_load_with_torch() -> None:
    """has-backends names torch.backends.{cudnn,mkldnn,mps} without importing them: ``import torch`` loads
    ``torch.backends``, whose last statement imports them (read from the installed source, no second interpreter)."""
    import ast

    import torch.backends

    tree = ast.parse(inspect.getsource(torch.backends))
    imported = {a.name for node in tree.body if isinstance(node, ast.ImportFrom) and node.module == "torch.backends" for a in node.names}
    assert {"cudnn", "mkldnn", "mps"} <= imported
    torch_init = ast.parse(inspect.getsource(torch))
    assert any(
        isinstance(node, ast.ImportFrom) and node.module == "torch" and any(a.name == "backends" for a in node.names)
        for node in torch_init.body
    )


def test_deprecated_has_flags_are_the_backends_calls() -> None:
    import warnings

    from torchmigrate.codemods.v2_1.has_backends import REPLACEMENTS

    for old, new in REPLACEMENTS.items():
        module, _, fn = new.rpartition(".")
        with pytest.warns(UserWarning, match="is deprecated"):
            value = getattr(torch, old.rpartition(".")[2])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert value == getattr(__import__(module, fromlist=[fn]), fn)()
