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


def _function_body(path: str, name: str) -> list[str]:
    """The statements (as source) of the top-level function ``name`` in torch's file ``path``, read without importing it."""
    import ast
    from pathlib import Path

    tree = ast.parse((Path(torch.__file__).parent / path).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return [ast.unparse(s) for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    raise AssertionError(f"{name} not in {path}")


def test_old_is_compiling_functions_return_torch_compiler_is_compiling() -> None:
    assert _function_body("_dynamo/external_utils.py", "is_compiling") == ["return torch.compiler.is_compiling()"]
    assert _function_body("_utils.py", "is_compiling")[-1] == "return torch.compiler.is_compiling()"


def test_removed_export_and_onnx_apis() -> None:
    import torch.onnx

    assert "constraints" not in inspect.signature(torch.export.export).parameters
    assert not hasattr(torch.export, "dynamic_dim")
    assert "fallback" not in inspect.signature(torch.onnx.export).parameters
    for name in ("enable_fake_mode", "is_onnxrt_backend_supported", "dynamo_export"):
        assert not hasattr(torch.onnx, name), name


def test_flex_attention_return_lse_defaults_to_false() -> None:
    from torch.nn.attention.flex_attention import flex_attention

    from torchmigrate.codemods.v2_9.flex_return_lse import PARAMS

    signature = inspect.signature(flex_attention)
    assert signature.parameters["return_lse"].default is False
    assert tuple(signature.parameters)[: len(PARAMS)] == PARAMS
    assert signature.parameters["return_aux"].kind is inspect.Parameter.KEYWORD_ONLY


def test_symm_mem_predicate_still_needs_the_deprecated_call() -> None:
    """symm-mem-enable reports instead of deleting: on 2.13 the predicate inductor checks reads the registry that
    only enable_symm_mem_for_group fills."""
    body = _function_body("distributed/_symmetric_memory/__init__.py", "is_symm_mem_enabled_for_group")
    assert body[-1] == "return group_name in _group_name_to_store"
    enable = "\\n".join(_function_body("distributed/_symmetric_memory/__init__.py", "enable_symm_mem_for_group"))
    assert "_group_name_to_store[group_name] = store" in enable


def test_cat_error_types_since_2_9() -> None:
    with pytest.raises(ValueError, match="non-empty list"):
        torch.cat([])
    with pytest.raises(IndexError):
        torch.cat([torch.ones(2), torch.ones(2)], dim=3)
    assert not issubclass(ValueError, RuntimeError) and not issubclass(IndexError, RuntimeError)


def test_named_tensors_are_gone() -> None:
    from torchmigrate.codemods.v2_13 import named_tensors

    for method in named_tensors.METHODS | named_tensors.RENAMES:
        assert not hasattr(torch.Tensor, method), method
    for factory in named_tensors.FACTORIES:
        with pytest.raises(TypeError, match="names"):
            getattr(torch, factory.rpartition(".")[2])(2, names=("N",)) if "full" not in factory else torch.full((2,), 1.0, names=("N",))


def test_quantized_tensor_creation_warns() -> None:
    with pytest.warns(UserWarning, match="deprecated"):
        torch.quantize_per_tensor(torch.ones(2), 0.1, 0, torch.quint8)


def test_cross_default_is_not_linalg_cross() -> None:
    a = torch.arange(9.0).reshape(3, 3)
    b = torch.arange(9.0).reshape(3, 3).flip(0)
    with pytest.warns(UserWarning, match="without specifying the dim"):
        old = torch.cross(a, b)
    assert torch.equal(old, torch.cross(a, b, dim=0))
    assert not torch.equal(old, torch.linalg.cross(a, b))


def test_softmax_implicit_dim_rule() -> None:
    import torch.nn.functional as F

    x = torch.randn(2, 3)
    with pytest.warns(UserWarning, match="Implicit dimension choice"):
        implicit = F.softmax(x)
    assert torch.equal(implicit, F.softmax(x, dim=1))


def test_zero_grad_sets_none() -> None:
    layer = torch.nn.Linear(2, 1)
    layer(torch.ones(1, 2)).sum().backward()
    opt = torch.optim.SGD(layer.parameters(), lr=0.1)
    opt.zero_grad()
    assert layer.weight.grad is None
    assert "set_to_none" in inspect.signature(opt.zero_grad).parameters
