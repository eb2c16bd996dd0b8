"""Helpers for semantic tests: run migrated code on the real, installed torch.

``run_code`` executes a snippet under a fake file name and returns its namespace plus the deprecation warnings that
torch attributed to the snippet itself (warnings raised from torch's own internals point at torch's files and are not
the user's concern).
"""

from __future__ import annotations

import itertools
import sys
import types
import warnings
from dataclasses import dataclass, field
from typing import Any

import pytest

SNIPPET = "<migrated>"
_counter = itertools.count()


@dataclass
class Ran:
    namespace: dict[str, Any]
    deprecations: list[str] = field(default_factory=list)
    # Every DeprecationWarning/FutureWarning, whatever file it names: torch attributes some of its own deprecations
    # (``torch.jit.trace``, ``torch.jit.save``) to its internal files, so ``deprecations`` alone would miss them.
    all_deprecations: list[str] = field(default_factory=list)


def run_code(code: str, filename: str = SNIPPET, **globals_: Any) -> Ran:
    """Run ``code`` as a real (temporary) module, so classes it defines have an importable ``__module__``."""
    name = f"torchmigrate_snippet_{next(_counter)}"
    module = types.ModuleType(name)
    module.__dict__.update(globals_)
    sys.modules[name] = module
    namespace = module.__dict__
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            exec(compile(code, filename, "exec"), namespace)  # noqa: S102 - test code we wrote ourselves
    finally:
        del sys.modules[name]
    every = [w for w in caught if issubclass(w.category, (DeprecationWarning, FutureWarning))]
    deprecations = [f"{w.category.__name__}: {w.message}" for w in every if w.filename == filename]
    return Ran(namespace, deprecations, [f"{w.category.__name__}: {w.message}" for w in every])


def torch_or_skip() -> Any:
    return pytest.importorskip("torch")
