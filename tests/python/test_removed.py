"""`RemovedAPIs`: one finding per import statement and message, or per use reached through a kept import; the longest
entry names the replacement; look-alikes, guarded imports and suppressed lines are not reported."""

from __future__ import annotations

import textwrap

import pytest

from torchmigrate.core.passes import REVIEW, Pass
from torchmigrate.python.engine import migrate_text
from torchmigrate.python.removed import RemovedAPIs, removed_message

REMOVED = {
    "pkg.old": "old is gone: use pkg.new",
    "pkg.old.special": "special is gone: use pkg.new.special(x, y)",
    "pkg.gone_fn": "gone_fn is gone: use pkg.fn",
}


class _Removed(RemovedAPIs):
    REMOVED = REMOVED


PASS = Pass(
    id="test-removed",
    release="2.5",
    safety=REVIEW,
    title="t",
    evidence="test",
    qualnames=frozenset(REMOVED),
    doc="## What it does\nx\n## Fix safety\ny",
)
PASS.uses(_Removed)


def findings(code: str) -> list[tuple[int, int, str]]:
    result = migrate_text(textwrap.dedent(code), [PASS])
    assert result.error is None, result.error
    assert result.new is None or result.new == result.old  # findings only: the text is never changed
    return [(f.line, f.col, f.message) for f in result.findings]


def test_longest_entry_wins() -> None:
    assert removed_message("pkg.old.special.deep", REMOVED) == REMOVED["pkg.old.special"]
    assert removed_message("pkg.old.other", REMOVED) == REMOVED["pkg.old"]
    assert removed_message("pkg.older", REMOVED) is None  # a prefix of the text, not a module above it
    assert removed_message("pkg", REMOVED) is None


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("import pkg.old\n\npkg.old.f()\n", [(1, 8, "import pkg.old: old is gone: use pkg.new")]),
        ("import pkg.old as o\n\no.special(1)\n", [(1, 8, "import pkg.old: old is gone: use pkg.new")]),
        (
            "from pkg.old import a, b, special\n\na(); b(); special()\n",
            [
                (1, 21, "from pkg.old import a, b: old is gone: use pkg.new"),
                (1, 27, "from pkg.old import special: special is gone: use pkg.new.special(x, y)"),
            ],
        ),
        ("from pkg import old, keep\n\nold.f(keep)\n", [(1, 17, "from pkg import old: old is gone: use pkg.new")]),
        ("from pkg.old import *\n", [(1, 1, "from pkg.old import *: old is gone: use pkg.new")]),
        (
            "import pkg\n\npkg.old.special.g(1)\npkg.gone_fn()\npkg.fine()\n",
            [
                (3, 1, "pkg.old.special.g: special is gone: use pkg.new.special(x, y)"),
                (4, 1, "pkg.gone_fn: gone_fn is gone: use pkg.fn"),
            ],
        ),
    ],
    ids=["import", "import-as", "from-import-grouped", "from-parent", "star", "through-kept-import"],
)
def test_reports_imports_and_uses(code: str, expected: list[tuple[int, int, str]]) -> None:
    assert findings(code) == expected


@pytest.mark.parametrize(
    "code",
    [
        "from mylib import old\n\nold.special()\n",  # a look-alike
        "import pkg\n\npkg.new.special()\n",  # what stays
        "import torch\nif torch.__version__ < '2.0':\n    import pkg.old\n",  # an import under a torch version check
        "import pkg.old  # migrate: ignore\n",  # suppressed
        "from . import old\n\nold.special()\n",  # relative: the project's own module
    ],
    ids=["look-alike", "kept", "guarded", "suppressed", "relative"],
)
def test_leaves_alone(code: str) -> None:
    assert findings(code) == []
