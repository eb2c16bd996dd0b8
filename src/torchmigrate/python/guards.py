"""Version guards: code under a torch version check or an import fallback is legacy on purpose."""

from __future__ import annotations

import re

import libcst as cst

from torchmigrate.python.helpers import code_of

_VERSION_TEST = re.compile(
    r"__version__|version|hasattr\s*\(|getattr\s*\(|TORCH_\w*(?:GE|GT|LT|LE|AT_LEAST|BEFORE|AFTER|\d)|TORCH_(?:MAJOR|MINOR)\b",
    re.IGNORECASE,
)



_GUARD_EXCEPTIONS = {"ImportError", "ModuleNotFoundError", "AttributeError"}



def is_version_guard(node: cst.CSTNode) -> bool:
    """A branch chosen by a torch version check, ``hasattr``, or an import/attribute fallback.

    Code inside such a guard is legacy on purpose (it keeps older releases working), so passes leave it alone, as ruff
    does for code behind ``sys.version_info`` checks.
    """
    if isinstance(node, (cst.If, cst.IfExp)):
        return bool(_VERSION_TEST.search(code_of(node.test)))
    if isinstance(node, cst.Try):
        for handler in node.handlers:
            if handler.type is not None:
                names = set(re.findall(r"[A-Za-z_]\w*", code_of(handler.type)))
                if names & _GUARD_EXCEPTIONS:
                    return True
    return False
