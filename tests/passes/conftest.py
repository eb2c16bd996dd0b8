"""Marks the semantic tests — every test of a module that runs code on the installed torch (``support.torchrun``,
``support.dist_group``) — with ``semantic``, so that they can be run alone on another torch release:
``python -m pytest -m semantic tests/passes`` (README, "Semantic tests on a newer torch")."""

from __future__ import annotations

import pytest

_RUNNERS = ("run_code", "torch_or_skip", "one_rank_group")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        module = getattr(item, "module", None)
        if module is not None and any(hasattr(module, name) for name in _RUNNERS):
            item.add_marker(pytest.mark.semantic)
