"""The ast precheck: it never skips a file a pass would change, and it does skip what only looks like a match."""

from __future__ import annotations

import random
import re
import string
from dataclasses import replace

import pytest

from torchmigrate.core.passes import Pass
from torchmigrate.core.registry import all_passes, get_pass, select_passes
from torchmigrate.core.versions import OLDEST, Version, parse_version
from torchmigrate.python.engine import migrate_text
from torchmigrate.python.precheck import relevant_passes
from torchmigrate.python.triggers import bytes_trigger_regex, trie_pattern

LATEST = max(p.version for p in all_passes())
EXAMPLES = [pytest.param(p, i, id=f"{p.id}-{i}") for p in all_passes() for i, _ in enumerate(p.examples)]


def _target(p: Pass, index: int) -> Version:
    example = p.examples[index]
    return parse_version(example.to) if example.to else p.version


@pytest.mark.parametrize(("pass_", "index"), EXAMPLES)
def test_precheck_keeps_every_pass_whose_example_changes_or_reports(pass_: Pass, index: int) -> None:
    example = pass_.examples[index]
    alone = relevant_passes(example.before, [pass_])
    plain = migrate_text(example.before, [pass_], precheck=False)
    if plain.code != example.before or plain.findings:
        assert alone == [pass_], "the precheck would skip a file this pass changes or reports on"
    # With every pass of the run (as `migrate --to` selects them), the result is identical with and without it.
    for target in {_target(pass_, index), LATEST}:
        passes = select_passes(to=target, from_=OLDEST, select=[p.id for p in all_passes()])
        fast, slow = migrate_text(example.before, passes, precheck=True), migrate_text(example.before, passes, precheck=False)
        assert (fast.code, fast.edits, fast.findings, fast.error) == (slow.code, slow.edits, slow.findings, slow.error)


def _renames_pass() -> Pass:
    return next(p for p in all_passes() if p.id == "export-for-training")


def _rewriter_pass() -> Pass:
    return next(p for p in all_passes() if p.id == "export-for-inference")


@pytest.mark.parametrize(
    "code",
    [
        "import torch\n\nep = torch.export.export_for_training(m, (x,))\n",
        "import torch as th\n\ndef f():\n    return th.export.export_for_training(m, (x,))\n",
        "from torch import export\n\nep = export.export_for_training(m, (x,))\n",
        "from torch.export import export_for_training as eft\n",
        "def f():\n    from torch.export import export_for_training\n    return export_for_training\n",
        "import torch.export\n\nep = torch.export.export_for_training(m, (x,))\n",
        "from torch.export import *\n\nep = export_for_training(m, (x,))\n",
    ],
)
def test_references_through_imports_are_kept(code: str) -> None:
    assert relevant_passes(code, [_renames_pass()]) == [_renames_pass()]


@pytest.mark.parametrize(
    "code",
    [
        "import torch\n\n# torch.export.export_for_training is gone: use export\nep = torch.export.export(m, (x,))\n",
        'import torch\n\ndef f():\n    """Was torch.export.export_for_training."""\n    return torch.export.export(m, (x,))\n',
        "import torch\n\nmsg = 'export_for_training'\n",
        "def export_for_training(m, a):\n    return m\n\nep = export_for_training(model, (x,))\n",
        "import mylib\n\nep = mylib.export.export_for_training(m, (x,))\n",
        "from .export import export_for_training\n",
    ],
)
def test_look_alikes_comments_docstrings_and_strings_are_skipped(code: str) -> None:
    assert bytes_trigger_regex([_renames_pass()]).search(code.encode())  # the regex alone would parse them
    assert relevant_passes(code, [_renames_pass(), _rewriter_pass()]) == []
    assert migrate_text(code, [_renames_pass()]).code == code


def test_a_file_ast_cannot_parse_goes_to_libcst() -> None:
    broken = "import torch\nep = torch.export.export_for_training(m, (x,)\n"
    assert relevant_passes(broken, [_renames_pass()]) == [_renames_pass()]
    assert migrate_text(broken, [_renames_pass()]).error is not None


def test_trie_pattern_matches_like_a_plain_alternation() -> None:
    rng = random.Random(7)
    alphabet = "ab_."
    for _ in range(300):
        words = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 4))) for _ in range(rng.randint(1, 6))]
        text = "".join(rng.choice(alphabet + " ") for _ in range(rng.randint(0, 12)))
        plain = re.compile("|".join(re.escape(w) for w in words))
        trie = re.compile(trie_pattern(words))
        assert bool(plain.search(text)) == bool(trie.search(text)), (words, text)
    assert re.compile(trie_pattern([])).search(string.printable) is None


STATEMENT_SHAPES = [
    "import torch\n\n@torch.export.export_for_training\ndef f():\n    pass\n",
    "import torch\n\nclass A:\n    def f(self):\n        for x in y:\n            with z:\n                ep = torch.export.export_for_training(\n                    m,\n                )\n",
    "import torch as th\n\ntry:\n    pass\nexcept th.export.export_for_training:\n    pass\nfinally:\n    x = 1\n",
    "import torch\n\nmatch x:\n    case {'k': v} if torch.export.export_for_training(v):\n        pass\n",
    "import torch\n\nx = (1,\n     torch.export.\n     export_for_training)\n",
    "def f():\n    import torch.export as te\n    return lambda: te.export_for_training\n",
    "import torch\n\nif torch.export.export_for_training:\n    pass\nelif y:\n    pass\nelse:\n    ep = torch.export.export_for_training(m, (x,))\n",
    "import torch\n# export_for_training\nx = torch.export.export(m)\n",
    "from torch.optim import lr_scheduler as S\n\nsched = S.StepLR(opt, 1, verbose=True)\n",
    "from torch.optim.lr_scheduler import *\n\nsched = StepLR(opt, 1, verbose=True)\n",
    "import torch\n\ndef f():\n    return torch.optim.lr_scheduler.StepLR(opt, 1, verbose=True)\n",
    "from torch.distributed import _tensor as dt\n\nx = dt.DTensor\n",
]


@pytest.mark.parametrize("code", STATEMENT_SHAPES)
def test_statement_level_scan_agrees_with_the_full_walk(code: str) -> None:
    passes = list(all_passes())
    assert relevant_passes(code, passes) == relevant_passes(code, passes, full=True)
    if "export_for_training" in code:
        expected = [] if code.startswith("import torch\n# export") else [_renames_pass()]
        assert relevant_passes(code, [_renames_pass()]) == expected


@pytest.mark.parametrize(
    ("code", "kept"),
    [
        ("import torch\n\ntry:\n    y = torch.cat(xs)\nexcept RuntimeError:\n    y = None\n", True),
        # the reference to torch.cat is far from the handler: its own line spells `cat`
        (
            "import torch\n\ndef f(xs):\n    return torch.cat(xs)\n\n\n"
            "try:\n    f(1)\nexcept RuntimeError:\n    pass\n",
            True,
        ),
        ("from torch import cat as join\n\ndef f(xs):\n    return join(xs)\n\ntry:\n    pass\nexcept RuntimeError:\n    pass\n", True),
        ("from torch import *\n\ndef f(xs):\n    return concat(xs)\n\ntry:\n    pass\nexcept RuntimeError:\n    pass\n", True),
        ("import torch\n\ntry:\n    y = torch.stack(xs)\nexcept RuntimeError:\n    y = None\n", False),
        # `cat` inside a longer identifier is no reference
        ("import torch\n\ndef concatenated(xs):\n    return xs\n\ntry:\n    pass\nexcept RuntimeError:\n    pass\n", False),
    ],
)
def test_a_pass_whose_trigger_is_not_in_its_targets_scans_the_lines_of_their_last_names(code: str, kept: bool) -> None:
    # cat-error-type's trigger (RuntimeError) spells nothing of torch.cat: its scan walks the statements on the lines
    # of RuntimeError and of the targets' last names as whole words, and agrees with a walk of every statement
    from torchmigrate.python.precheck import _scan_lines, line_words

    pass_ = get_pass("cat-error-type")
    assert {"cat", "concat", "concatenate"} <= set(line_words(pass_) or ())
    assert bool(relevant_passes(code, [pass_])) is kept
    assert bool(relevant_passes(code, [pass_], full=True)) is kept
    relevant_passes(code, [pass_])  # the trigger words of this text, for the line scan
    lines = _scan_lines(code, [pass_])
    text_lines = code.splitlines()
    assert all("RuntimeError" in text_lines[n - 1] or re.search(r"\b(cat|concat|concatenate)\b", text_lines[n - 1]) for n in lines)
    assert len(lines) < len(text_lines)


def test_a_name_bound_under_a_prefix_target_sends_a_limited_scan_to_the_full_walk() -> None:
    # a call-filter pass on a package prefix: `t` is bound to a name under it, and its use spells no line word, so a
    # scan of the lines of the line words cannot see it; the precheck must then look at every statement
    base = get_pass("lr-verbose")
    pass_ = replace(
        base, id="prefix-probe", renames={}, call_rewriters={}, qualnames=frozenset({"pkg.sub"}), triggers=("sub",),
        call_filter=lambda call: any(k.arg == "flag" for k in call.keywords), method_filter=None, exact_names=False,
    )
    code = "from pkg.sub import thing as t\n\nx = t\n"
    assert relevant_passes(code, [pass_], full=True) == [pass_]
    assert relevant_passes(code, [pass_]) == [pass_]
    unused = "from pkg.sub import thing as t\n\nx = 1\n"
    assert relevant_passes(unused, [pass_]) == relevant_passes(unused, [pass_], full=True) == []


def test_passes_with_non_word_triggers_need_a_match_on_a_line_of_code() -> None:
    amp = [p for p in all_passes() if p.id == "amp-namespace"]
    if not amp:
        pytest.skip("no amp-namespace pass in this tree")
    docs_only = (
        '"""Uses torch.cuda.amp.autocast in old releases."""\nimport torch\n\n'
        "def f(x):\n    # was: from torch.cuda import amp\n    return x\n"
    )
    assert relevant_passes(docs_only, amp) == []
    for code in [
        "from torch.cuda import amp\n\nwith amp.autocast():\n    pass\n",
        "import torch\n\ndef f():\n    with torch.cuda.amp.autocast():\n        pass\n",
        "if x: from torch.cuda import amp\n",
    ]:
        assert relevant_passes(code, amp) == amp, code


@pytest.mark.parametrize(
    ("code", "kept"),
    [
        ("import torch\nstate = torch.load(path, map_location='cpu', weights_only=True)\n", False),
        ("import torch\nstate = torch.load(path, map_location='cpu')\n", True),
        ("import torch\nstate = torch.load(path, **opts)\n", True),
        ("import functools\nimport torch\nloader = functools.partial(torch.load, weights_only=True)\n", True),
        ("from torch import load as L\nstate = L(path, weights_only=True)\nother = L(path)\n", True),
        ("import torch\ns = torch.optim.lr_scheduler.StepLR(opt, 10)\n", False),
        ("import torch\ns = torch.optim.lr_scheduler.StepLR(opt, 10, verbose=True)\n", True),
        ("import torch\ns = torch.optim.lr_scheduler.StepLR(opt, 10, 0.1, -1, False)\n", True),
    ],
)
def test_call_filters_skip_calls_already_in_the_new_form(code: str, kept: bool) -> None:
    passes = [get_pass("torch-load-weights-only"), get_pass("lr-verbose")]
    assert bool(relevant_passes(code, passes)) is kept
    assert bool(relevant_passes(code, passes, full=True)) is kept
    if not kept:  # and skipping is right: without the precheck nothing changes either
        plain = migrate_text(code, passes, precheck=False)
        assert plain.code == code and not plain.findings


@pytest.mark.parametrize(
    ("code", "kept"),
    [
        # torchvision's own modules (models/quantization/resnet.py): weights enums and classes under
        # torchvision.models, no builder called
        (
            "from torchvision.models.resnet import ResNet, ResNet18_Weights\n\n"
            "def resnet18(weights=None):\n    weights = ResNet18_Weights.verify(weights)\n    return ResNet(weights)\n",
            False,
        ),
        # mmengine's runner/checkpoint.py: the package's path, inside the function that reads it
        (
            "def get_torchvision_models():\n    import torchvision\n    resnet18 = None\n"
            "    return sorted(torchvision.models.__path__)\n",
            False,
        ),
        # the names the transformer compares with, each still in play
        ("from torchvision import models\n\nnet = getattr(models, name)(pretrained=True)\n", True),
        ("import torchvision\n\nnet = torchvision.models.__dict__[arch](pretrained=True)\n", True),
        ("import torchvision\n\nnet = torchvision.models.get_model(arch, pretrained=True)\n", True),
        ("from torchvision.models import resnet\n\nnet = resnet.resnet18(pretrained=True)\n", True),
        ("import torchvision.models as tvm\n\nnet = tvm.resnet18(True)\n", True),
    ],
)
def test_exact_names_keep_only_what_the_transformer_compares_equal(code: str, kept: bool) -> None:
    pass_ = get_pass("torchvision-pretrained")
    assert pass_.exact_names
    assert bool(relevant_passes(code, [pass_], full=True)) is kept
    assert bool(relevant_passes(code, [pass_])) is kept
    plain = migrate_text(code, [pass_], precheck=False)
    assert (plain.code != code or bool(plain.findings)) is kept  # the precheck's answer is libcst's
    if not kept:  # a name under torchvision.models kept the file before
        loose = replace(pass_, exact_names=False)
        assert relevant_passes(code, [loose], full=True) == [loose]


def test_one_scan_finds_exactly_the_passes_whose_trigger_words_occur() -> None:
    # triggered() scans once for all passes; it must agree with searching each pass's words on its own, also where
    # words overlap (one inside another, one running past the end of another, one a prefix of another).
    from torchmigrate.python.triggers import triggered

    def fake(name: str, *words: str) -> Pass:
        return replace(get_pass("export-for-training"), id=name, triggers=tuple(words))

    # and words with other characters (``import amp``, `` eig\n``, ``.norm(``): found only where the text holds them,
    # whether their identifiers stand whole (`` eig\n``) or run on at the ends (``import amp`` in ``import ample``).
    made = [fake("a", "cuda.amp"), fake("b", "amp.autocast"), fake("c", "load"), fake("d", "load_state_dict"),
            fake("e", "ab"), fake("f", "bcd"), fake("g", "abx"), fake("h", "c"), fake("i", "import amp"),
            fake("j", " ab\n", ".c("), fake("k", "x-c")]
    rng = random.Random(7)
    alphabet = ["cuda.amp", ".autocast", "load", "_state_dict", "ab", "bcd", "x", "c", " ", "amp", "import", "\n",
                "(", ".", "-", "é", "—", "ab—c"]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
        expected = [p for p in made if any(w in text for w in p.triggers)]
        assert triggered(text, made) == expected, text
    real = list(all_passes())
    for p in real:
        for example in p.examples:
            expected = [q for q in real if re.search(trie_pattern(q.triggers), example.before)]
            assert triggered(example.before, real) == expected


def test_the_engine_asks_the_one_scan_whether_any_trigger_word_occurs() -> None:
    # migrate_text's first cut used the combined regex of every pass's words; it now asks the scan triggered() makes
    # next (remembered for the same text): the same answer on random mixes of real words, for random sets of passes
    from torchmigrate.python.engine import trigger_regex
    from torchmigrate.python.triggers import spells_a_trigger, triggered

    passes = list(all_passes())
    rng = random.Random(13)
    words = sorted({w for p in passes for w in p.triggers})
    pieces = [*words[::5], "x", " ", "\n", ".", "(", "é"]
    for _ in range(2000):
        chosen = rng.sample(passes, rng.randint(1, 6))
        text = "".join(rng.choice(pieces)[rng.randint(0, 2) :] for _ in range(rng.randint(0, 6)))
        assert spells_a_trigger(text, chosen) == bool(trigger_regex(chosen).search(text)), (text, [p.id for p in chosen])
        expected = [p for p in chosen if re.search(trie_pattern(p.triggers), text)]
        assert [p for p in triggered(text, chosen) if p.text_filter is None] == [p for p in expected if p.text_filter is None]


def test_the_words_a_match_explains_are_those_a_prefix_test_per_word_finds() -> None:
    # _WordIndex.explain looks up each suffix of a match in a prefix table; it must name exactly the words a direct
    # test finds (inside the match; or not inside and starting with a suffix after its first character).
    from torchmigrate.python.triggers import _WordIndex

    words = tuple(sorted({w for p in all_passes() for w in p.triggers}))
    index = _WordIndex(words)
    rng = random.Random(11)
    pieces = [w for w in index.words] + ["torch.", "nn.", ".x", "a", "_"]
    for _ in range(2000):
        match = "".join(rng.choice(pieces)[rng.randint(0, 3):] for _ in range(rng.randint(1, 3)))
        inside = {w for w in index.words if w in match}
        across = {w for w in index.words if w not in inside and any(w.startswith(match[k:]) for k in range(1, len(match)))}
        assert index.explain(match) == (inside, across), match


@pytest.mark.parametrize(
    ("code", "in_play"),
    [
        ("import torch\n\nclass B:\n    def forward(self, x: torch.Tensor):\n        return self.norm(x)\n", False),
        ("import torch\n\nclass B:\n    def forward(self, x):\n        return self.blocks.norm(x)\n", False),
        ("import torch\n\ndef f(x: torch.Tensor):\n    return x.norm(dim=1)\n", True),
        ("import torch as th\n\nn = th.norm(v)\n", True),
        ("from torch import (\n    nn,\n    norm,\n)\n\nn = norm(v)\n", True),
        ("# torch.norm(x) is deprecated\nimport torch\n", False),
    ],
)
def test_text_and_method_filters_keep_torch_norm_only_where_it_can_act(code: str, in_play: bool) -> None:
    """`text_filter` settles files whose only `.norm(` is `self.norm(` before any parse; `method_filter` drops
    `self.<attr>.norm(` calls after it; calls on other receivers and `torch.norm` stay in play."""
    norm = get_pass("torch-norm")
    assert norm.text_filter is not None and norm.method_filter is not None
    assert (relevant_passes(code, [norm]) == [norm]) is in_play


def test_a_pass_on_another_package_needs_that_package_named_in_the_file() -> None:
    """`info` is a trigger word of torchaudio-removed-apis and a word of every logging call: a file that never spells
    `torchaudio` cannot reach `torchaudio.info`, so the pass is out before any parse (a file that does not parse is
    still handed on, to be reported)."""
    removed = get_pass("torchaudio-removed-apis")
    assert "info" in removed.triggers
    assert relevant_passes("import logging\nlogging.info('loading')\n", [removed]) == []
    assert relevant_passes("import torchaudio as ta\nmeta = ta.info(path)\n", [removed]) == [removed]
    assert relevant_passes("from torchaudio import info\nmeta = info(path)\n", [removed]) == [removed]
    assert relevant_passes("logging.info(\n", [removed]) == [removed]
    norm = get_pass("torch-norm")  # acts on `x.norm()` whatever imports the file has: never cut this way
    assert relevant_passes("def f(x):\n    return x.norm(dim=1)\n", [norm]) == [norm]


@pytest.mark.parametrize(
    "code",
    [
        "from unittest import mock\n\n@mock.patch('torch.export.export_for_training')\ndef test(m):\n    pass\n",
        "from unittest.mock import patch as p\n\nwith p(target='torch.export.export_for_training'):\n    pass\n",
        "def test(monkeypatch):\n    monkeypatch.setattr('torch.export.export_for_training', fake)\n",
        "from unittest import mock\n\nwith mock.patch(f'torch.export.export_for_training{suffix}'):\n    pass\n",
    ],
)
def test_a_renamed_path_given_to_a_path_taking_call_is_kept(code: str) -> None:
    plain = migrate_text(code, [_renames_pass()], precheck=False)
    assert plain.code != code or plain.findings  # the transformer acts on it
    assert relevant_passes(code, [_renames_pass()]) == [_renames_pass()]


@pytest.mark.parametrize(
    "code",
    [
        "import torch\n\nRULES = {'torch.export.export_for_training': 'skip'}\n",
        "import torch\n\nregister(['torch.export.export_for_training'])\nname('torch.export.export_for_training')\n",
        "import torch\nfrom unittest import mock\n\nmock.patch.object(torch.export, 'export')(['torch.export.export_for_training'])\n",
    ],
)
def test_a_renamed_path_in_any_other_string_leaves_the_rename_out(code: str) -> None:
    """torch's ``_dynamo/trace_rules.py`` names thousands of dotted paths in tables: no rename pass reaches libcst."""
    plain = migrate_text(code, [_renames_pass()], precheck=False)
    assert plain.code == code and not plain.findings
    assert relevant_passes(code, [_renames_pass()]) == []


def test_the_path_taking_callees_are_the_rename_transformers() -> None:
    from torchmigrate.python import renames
    from torchmigrate.python.precheck import PATH_TAKER_LASTS

    takers = {*renames._PATH_TAKERS, *renames._OBJECT_PATCHERS, "__import__", "monkeypatch.setattr", "monkeypatch.delattr"}
    assert {name.rpartition(".")[2] for name in takers} <= PATH_TAKER_LASTS


def test_the_fast_walk_is_ast_walk() -> None:
    import ast

    from torchmigrate.python.precheck import walk

    texts = [e.before for p in all_passes() if p.files == "python" for e in p.examples if e.before]
    texts.append("match x:\n    case {'a': [1, *rest]} if rest:\n        f(*a, k=1, **kw)\n    case _:\n        pass\n")
    for text in texts:
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue  # an example of a file that does not parse
        for root in (tree, *tree.body):
            assert walk(root) == list(ast.walk(root))


def test_a_pass_is_out_before_the_scan_when_the_file_misses_a_component_of_every_target(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``cat-error-type`` is triggered by ``RuntimeError`` but acts on ``torch.cat`` and its aliases: a file that spells
    ``torch`` and never ``cat`` (nor ``concat``, ``concatenate``) cannot reach one, so the pass is out without the
    ast scan; the same file calling ``torch.cat`` keeps it."""
    from torchmigrate.python import precheck

    cat = get_pass("cat-error-type")
    scans: list[int] = []
    real = precheck._decide_all
    monkeypatch.setattr(precheck, "_decide_all", lambda *a, **k: scans.append(1) or real(*a, **k))
    text = "import torch\ntry:\n    x = torch.stack(ts)\nexcept RuntimeError:\n    pass\n"
    assert relevant_passes(text, [cat]) == [] and not scans
    assert relevant_passes(text.replace("torch.stack", "torch.cat"), [cat]) == [cat] and scans
    scans.clear()  # a component spelled only in a comment still counts (the scan then decides): a bound, not a guess
    assert relevant_passes(text + "# cat\n", [cat]) == [] and scans
