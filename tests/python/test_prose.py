"""The lexical shortcut of the precheck: a file whose trigger words sit only in comments and docstrings is not parsed.

It must never change which passes are in play: every test compares the precheck with and without it.
"""

from __future__ import annotations

import importlib.util
import random
import re
from pathlib import Path

import pytest

from torchmigrate.core.registry import all_passes, get_pass
from torchmigrate.python import precheck
from torchmigrate.python.precheck import prose_only, relevant_passes

PASSES = [p for p in all_passes() if p.files != "project"]
LOAD = re.compile("load")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("# torch.load here\nx = 1\n", True),
        ('def f():\n    """uses torch.load"""\n    return 1\n', True),
        ("'''a\nload\n'''\n", True),
        ("r'load'  # c\n", True),
        ('x = "it\'s"  # load\n', True),
        ('def f():\r\n    """torch.load"""\r\n', True),
        ("x = torch.load(p)\n", False),
        ('s = "torch.load"\n', False),  # a string that is not a statement: passes may read it
        ('"""torch.load""".strip()\n', False),
        ('x = (\n"""torch.load"""\n)\n', False),
        ('x = 1 + \\\n"""torch.load"""\n', False),
        ('"""a"""; load()\n', False),
        ('f"{load}"\n', False),  # an f-string's fields are code
        ('f"{x["load"]}"\n', False),  # PEP 701: a field with quotes of the f-string's own kind
        ('x = "#"; load()\n', False),
        ('"unterminated load\n', False),
        ('if"a" in load: pass\n', False),
        ("x = 1\r# load\r", False),  # lone CR line breaks: not worth being clever
    ],
)
def test_prose_only(text: str, expected: bool) -> None:
    assert prose_only(text, LOAD) is expected


def _both(text: str, monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], list[str]]:
    fast = [p.id for p in relevant_passes(text, PASSES)]
    with monkeypatch.context() as patch:
        patch.setattr(precheck, "prose_only", lambda text, regex: False)
        slow = [p.id for p in relevant_passes(text, PASSES)]
    return fast, slow


def _bench_files(count: int) -> list[str]:
    spec = importlib.util.spec_from_file_location("bench", Path(__file__).parents[2] / "benchmarks" / "bench.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    rng = random.Random(11)
    return [bench.make_file(rng, rng.random() < 0.2, rng.random() < 0.5) for _ in range(count)]


def _fragments() -> list[str]:
    return [
        "import torch\n",
        "from torch.export import export_for_training as eft\n",
        '"""Module docs: torch.load, torch.cuda.amp.autocast, export_for_training."""\n',
        "def f(path):\n    '''torch.load(path) was used here'''\n    return open(path).read()\n",
        "# torch.cuda.amp.autocast() is deprecated\n",
        "x = torch.load(p)\n",
        "y = eft(m, (x,))\n",
        's = "torch.load is mentioned in a string"\n',
        "msg = f\"{'load'} {x!r}\"\n",
        "z = (\n    'export_for_training'\n)\n",
        "w = 1 + \\\n    2  # load\n",
        "class A:\n    \"\"\"amp docs\"\"\"\n    def load(self):\n        return 1\n",
        "scaler = torch.cuda.amp.GradScaler()\n",
        "with torch.cuda.amp.autocast():\n    pass\n",
        "from torch.cuda import amp\n",
        "value = '''multi\nline torch.load\n'''\n",
        "t = b'torch.load'\n",
    ]


def test_the_shortcut_never_changes_the_passes_in_play(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [e.before for p in PASSES for e in p.examples] + [e.expected for p in PASSES for e in p.examples]
    texts += _bench_files(300)
    rng = random.Random(5)
    pieces = _fragments()
    texts += ["".join(rng.choice(pieces) for _ in range(rng.randint(1, 6))) for _ in range(600)]
    skipped = 0
    for text in texts:
        fast, slow = _both(text, monkeypatch)
        assert fast == slow, text
        if not fast and precheck.triggered(text, PASSES):
            skipped += 1
    assert skipped > 100, "the shortcut should settle the files that mention APIs only in comments and docstrings"


def test_the_shortcut_agrees_on_pytorchs_own_sources(monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    files = sorted(Path(torch.__file__).parent.rglob("*.py"))
    random.Random(3).shuffle(files)
    for path in files[:400]:
        text = path.read_text(encoding="utf-8", errors="replace")
        fast, slow = _both(text, monkeypatch)
        assert fast == slow, path


def test_a_pass_whose_targets_are_not_anchored_is_never_shortcut() -> None:
    # Such a pass can see a reference that spells no trigger word, so a trigger word in a comment still needs a parse.
    from dataclasses import replace

    base = get_pass("export-for-training")
    loose = replace(base, id="loose", triggers=("marker",))
    text = "# marker\nimport torch\ntorch.export.export_for_training(m, (x,))\n"
    assert [p.id for p in relevant_passes(text, [loose])] == ["loose"]
