"""The torchvision weights table (generated from torchvision's sources) and the `torchvision-pretrained` pass on it.

torchvision cannot be installed beside the CPU build of torch the tests use, so the table is checked against the
sources instead: its generator on a small tree written here (every decorator form torchvision uses), the shipped table
for consistency, and — with ``TORCHMIGRATE_TORCHVISION_SRC`` naming the ``torchvision`` folder of an unpacked wheel of
the version the table records — regenerated from those sources, equal to the shipped one (and its ``model_urls``
section, with ``TORCHMIGRATE_TORCHVISION_0_14_SRC`` naming a torchvision 0.14 folder, from that one's dictionaries).
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from torchmigrate.codemods.torchvision.pretrained_weights import BUILDERS
from torchmigrate.codemods.torchvision.weights_table import TABLE, build_table, main, model_urls
from torchmigrate.core.registry import Options
from torchmigrate.core.versions import parse_version
from torchmigrate.python.engine import migrate_text

SHIPPED = json.loads(TABLE.read_text(encoding="utf-8"))


def _write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "torchvision" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root / "torchvision"


TREE = {
    "version.py": "__version__ = '9.1.0+cpu'\n",
    "models/__init__.py": """
        from .resnet import *
        from .mobilenet import *
        from . import detection, quantization
        from ._api import get_model, WeightsEnum
    """,
    "models/_api.py": "class WeightsEnum: ...\nclass Weights: ...\ndef get_model(name, **config): ...\n",
    "models/_utils.py": "def handle_legacy_interface(**weights): ...\n",
    "models/resnet.py": """
        from typing import Optional
        from ._api import Weights, WeightsEnum
        from ._utils import handle_legacy_interface

        __all__ = ["ResNet18_Weights", "ResNet50_Weights", "resnet18", "resnet50", "wide"]

        class ResNet18_Weights(WeightsEnum):
            IMAGENET1K_V1 = Weights(url="a")
            DEFAULT = IMAGENET1K_V1

        class ResNet50_Weights(WeightsEnum):
            IMAGENET1K_V1 = Weights(url="b")
            IMAGENET1K_V2 = Weights(url="c")
            DEFAULT = IMAGENET1K_V2

        @handle_legacy_interface(weights=("pretrained", ResNet18_Weights.IMAGENET1K_V1))
        def resnet18(*, weights: Optional[ResNet18_Weights] = None, progress: bool = True, **kwargs): ...

        @handle_legacy_interface(weights=("pretrained", ResNet50_Weights.IMAGENET1K_V1))
        def resnet50(*, weights: Optional[ResNet50_Weights] = None, progress: bool = True, **kwargs): ...

        @handle_legacy_interface(weights=("pretrained", None))
        def wide(*, weights=None, **kwargs): ...

        def _private(*, weights: Optional[ResNet50_Weights] = None): ...
    """,
    "models/quantization/__init__.py": "from .resnet import *\n",
    "models/quantization/resnet.py": """
        from typing import Optional
        from torchvision.models.resnet import ResNet18_Weights
        from .._api import Weights, WeightsEnum
        from .._utils import handle_legacy_interface

        __all__ = ["ResNet18_QuantizedWeights", "resnet18"]

        class ResNet18_QuantizedWeights(WeightsEnum):
            IMAGENET1K_FBGEMM_V1 = Weights(url="d")
            DEFAULT = IMAGENET1K_FBGEMM_V1

        @handle_legacy_interface(
            weights=(
                "pretrained",
                lambda kwargs: ResNet18_QuantizedWeights.IMAGENET1K_FBGEMM_V1
                if kwargs.get("quantize", False)
                else ResNet18_Weights.IMAGENET1K_V1,
            )
        )
        def resnet18(*, weights=None, progress=True, quantize=False, **kwargs): ...
    """,
    "models/mobilenet.py": "from .mobilenetv3 import *\n",  # re-exports only, as torchvision's own
    "models/mobilenetv3.py": """
        from typing import Optional
        from ._api import Weights, WeightsEnum
        from ._utils import handle_legacy_interface

        __all__ = ["MobileNet_V3_Small_Weights", "mobilenet_v3_small"]

        class MobileNet_V3_Small_Weights(WeightsEnum):
            IMAGENET1K_V1 = Weights(url="g")
            DEFAULT = IMAGENET1K_V1

        @handle_legacy_interface(weights=("pretrained", MobileNet_V3_Small_Weights.IMAGENET1K_V1))
        def mobilenet_v3_small(*, weights: Optional[MobileNet_V3_Small_Weights] = None, **kwargs): ...
    """,
    "models/detection/__init__.py": "from .rcnn import *\n",
    "models/detection/rcnn.py": """
        from .. import mobilenet, resnet
        from .._api import Weights, WeightsEnum
        from .._utils import handle_legacy_interface, _get_enum_from_fn
        from ..resnet import ResNet50_Weights

        __all__ = ["RCNN_Weights", "rcnn"]

        class RCNN_Weights(WeightsEnum):
            COCO_LEGACY = Weights(url="e")
            COCO_V1 = Weights(url="f")
            DEFAULT = COCO_V1

        @handle_legacy_interface(
            weights=("pretrained", lambda kwargs: RCNN_Weights.COCO_LEGACY if kwargs["pretrained"] == "legacy" else RCNN_Weights.COCO_V1),
            weights_backbone=("pretrained_backbone", ResNet50_Weights.IMAGENET1K_V1),
        )
        def rcnn(*, weights=None, progress=True, num_classes=None, weights_backbone=ResNet50_Weights.IMAGENET1K_V1, **kwargs): ...

        @handle_legacy_interface(
            weights=("pretrained", lambda kwargs: _get_enum_from_fn(resnet.__dict__[kwargs["backbone_name"]])["IMAGENET1K_V1"]),
        )
        def fpn_backbone(*, backbone_name, weights): ...

        @handle_legacy_interface(
            weights=("pretrained", lambda kwargs: _get_enum_from_fn(mobilenet.__dict__[kwargs["backbone_name"]])["IMAGENET1K_V1"]),
        )
        def mobile_backbone(*, backbone_name, weights, fpn): ...

        @handle_legacy_interface(weights=("pretrained", lambda kwargs: pick(kwargs)))
        def odd(*, weights=None): ...
    """,
}


@pytest.fixture(scope="module")
def tree_table(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return build_table(_write(tmp_path_factory.mktemp("tv"), TREE))


def test_generator_reads_every_decorator_form(tree_table: dict) -> None:
    b = tree_table["builders"]
    assert tree_table["torchvision"] == "9.1.0"
    assert b["torchvision.models.resnet.resnet18"] == {
        "names": ["torchvision.models.resnet18", "torchvision.models.resnet.resnet18"],
        "params": ["weights", "progress"],
        "legacy": {"weights": {"flag": "pretrained", "true": "torchvision.models.ResNet18_Weights.IMAGENET1K_V1"}},
    }
    # the legacy default, not DEFAULT (which is V2 here)
    assert b["torchvision.models.resnet.resnet50"]["legacy"]["weights"]["true"].endswith("ResNet50_Weights.IMAGENET1K_V1")
    assert b["torchvision.models.resnet.wide"]["legacy"]["weights"]["true"] is None
    assert b["torchvision.models.quantization.resnet.resnet18"]["legacy"]["weights"]["true"] == {
        "kwarg": "quantize",
        "default": False,
        "then": "torchvision.models.quantization.ResNet18_QuantizedWeights.IMAGENET1K_FBGEMM_V1",
        "else": "torchvision.models.ResNet18_Weights.IMAGENET1K_V1",
    }
    rcnn = b["torchvision.models.detection.rcnn.rcnn"]
    assert rcnn["names"] == ["torchvision.models.detection.rcnn", "torchvision.models.detection.rcnn.rcnn"]
    assert rcnn["legacy"]["weights"]["true"]["equals"] == "legacy"
    assert rcnn["legacy"]["weights_backbone"] == {"flag": "pretrained_backbone", "true": "torchvision.models.ResNet50_Weights.IMAGENET1K_V1"}
    assert b["torchvision.models.detection.rcnn.fpn_backbone"]["legacy"]["weights"]["true"] == {
        "by": "backbone_name",
        "choices": {
            "resnet18": "torchvision.models.ResNet18_Weights.IMAGENET1K_V1",
            "resnet50": "torchvision.models.ResNet50_Weights.IMAGENET1K_V1",
        },
    }
    assert b["torchvision.models.detection.rcnn.mobile_backbone"]["legacy"]["weights"]["true"] == {
        "by": "backbone_name",  # the builders mobilenet.py binds by its star import
        "choices": {"mobilenet_v3_small": "torchvision.models.MobileNet_V3_Small_Weights.IMAGENET1K_V1"},
    }
    assert b["torchvision.models.detection.rcnn.odd"]["legacy"]["weights"]["true"] == {"unsupported": "pick(kwargs)"}
    assert tree_table["enums"]["torchvision.models.ResNet50_Weights"] == {
        "module": "torchvision.models.resnet",
        "members": ["IMAGENET1K_V1", "IMAGENET1K_V2"],
        "DEFAULT": "IMAGENET1K_V2",
    }


def test_the_command_writes_the_table_and_refuses_other_folders(tmp_path: Path) -> None:
    root = _write(tmp_path, TREE)
    out = tmp_path / "weights.json"
    assert main([str(root), "--output", str(out)]) == 0
    assert json.loads(out.read_text())["builders"]
    assert main([str(tmp_path), "--output", str(out)]) == 2


def test_shipped_table_is_consistent() -> None:
    enums = SHIPPED["enums"]
    assert len(SHIPPED["builders"]) > 100 and SHIPPED["torchvision"].count(".") == 2

    def members(spec: object) -> list[str]:
        if isinstance(spec, str):
            return [spec]
        if isinstance(spec, dict):
            assert "unsupported" not in spec, spec
            found = [m for key in ("then", "else") if key in spec for m in members(spec[key])]
            return found + list(spec.get("choices", {}).values())
        return []

    for qualname, entry in SHIPPED["builders"].items():
        function = qualname.rsplit(".", 1)[1]
        assert qualname in entry["names"] and all(n.endswith("." + function) for n in entry["names"])
        for weights, info in entry["legacy"].items():
            assert weights in entry["params"] and info["flag"] in ("pretrained", "pretrained_backbone")
            for member in members(info["true"]):
                enum, _, name = member.rpartition(".")
                assert name in enums[enum]["members"], member
    for enum in enums.values():
        assert enum["DEFAULT"] in enum["members"]
    assert BUILDERS["torchvision.models.resnet50"]["legacy"]["weights"]["true"].endswith("IMAGENET1K_V1")
    assert SHIPPED["enums"]["torchvision.models.ResNet50_Weights"]["DEFAULT"] == "IMAGENET1K_V2"


@pytest.mark.skipif(not os.environ.get("TORCHMIGRATE_TORCHVISION_SRC"), reason="TORCHMIGRATE_TORCHVISION_SRC not set")
def test_shipped_table_is_what_the_sources_give() -> None:
    sources = Path(os.environ["TORCHMIGRATE_TORCHVISION_SRC"])
    assert build_table(sources, urls=SHIPPED) == SHIPPED  # model_urls come from 0.14: see the test below


OLD_TREE = {  # torchvision 0.14's compatibility dictionaries (the values are members' .url)
    "version.py": "__version__ = '0.14.1'\n",
    "models/__init__.py": "from .resnet import *\n",
    "models/_utils.py": "def handle_legacy_interface(**weights): ...\nclass _ModelURLs(dict): ...\n",
    "models/resnet.py": """
        from ._utils import _ModelURLs
        from .resnet_weights import ResNet18_Weights, ResNet50_Weights

        model_urls = _ModelURLs(
            {
                "resnet18": ResNet18_Weights.IMAGENET1K_V1.url,
                "resnet50": ResNet50_Weights.IMAGENET1K_V1.url,
                "resnet_none": None,
            }
        )
        other = {"resnet18": ResNet18_Weights.IMAGENET1K_V1.url}
    """,
    "models/resnet_weights.py": "class ResNet18_Weights: ...\nclass ResNet50_Weights: ...\n",
    "models/quantization/resnet.py": """
        from .._utils import _ModelURLs
        from ..quantization_weights import ResNet18_QuantizedWeights as Q

        quant_model_urls = _ModelURLs({"resnet18_fbgemm": Q.IMAGENET1K_FBGEMM_V1.url})
    """,
    "models/quantization_weights.py": "class ResNet18_QuantizedWeights: ...\n",
}


def test_model_urls_are_read_from_the_old_dictionaries(tmp_path: Path) -> None:
    root = _write(tmp_path / "new", TREE)
    old = _write(tmp_path / "old", OLD_TREE)
    # the old tree defines the classes elsewhere: map its (module, class) to the current public names
    names = {
        ("torchvision.models.resnet_weights", "ResNet18_Weights"): "torchvision.models.ResNet18_Weights",
        ("torchvision.models.resnet_weights", "ResNet50_Weights"): "torchvision.models.ResNet50_Weights",
        ("torchvision.models.quantization_weights", "ResNet18_QuantizedWeights"): "Q",
    }
    assert model_urls(old, names) == {
        "torchvision.models.quantization.resnet.quant_model_urls": {"resnet18_fbgemm": "Q.IMAGENET1K_FBGEMM_V1"},
        "torchvision.models.resnet.model_urls": {  # no entry for a None value; the plain dict is not one of them
            "resnet18": "torchvision.models.ResNet18_Weights.IMAGENET1K_V1",
            "resnet50": "torchvision.models.ResNet50_Weights.IMAGENET1K_V1",
        },
    }
    out = tmp_path / "weights.json"
    assert main([str(root), "--model-urls", str(old), "--output", str(out)]) == 0
    written = json.loads(out.read_text())
    assert written["model_urls_source"].startswith("torchvision 0.14.1")
    assert written["model_urls"]["torchvision.models.resnet.model_urls"] == {}  # the new tree's enums live in resnet.py
    assert main([str(root), "--output", str(out)]) == 0  # without --model-urls the section is kept
    assert json.loads(out.read_text())["model_urls"] == written["model_urls"]
    assert main([str(root), "--model-urls", str(tmp_path), "--output", str(out)]) == 2


def test_shipped_model_urls_name_existing_members() -> None:
    urls = SHIPPED["model_urls"]
    assert SHIPPED["model_urls_source"].startswith("torchvision 0.14")
    assert sum(map(len, urls.values())) > 60 and "torchvision.models.detection.ssd.backbone_urls" in urls
    for table in urls.values():
        for member in table.values():
            enum, _, name = member.rpartition(".")
            assert name in SHIPPED["enums"][enum]["members"], member
    assert urls["torchvision.models.resnet.model_urls"]["resnet50"] == "torchvision.models.ResNet50_Weights.IMAGENET1K_V1"


@pytest.mark.skipif(not os.environ.get("TORCHMIGRATE_TORCHVISION_0_14_SRC"), reason="TORCHMIGRATE_TORCHVISION_0_14_SRC not set")
def test_shipped_model_urls_are_what_the_sources_give(tmp_path: Path) -> None:
    sources = Path(os.environ["TORCHMIGRATE_TORCHVISION_0_14_SRC"])
    names = {(e["module"], q.rsplit(".", 1)[1]): q for q, e in SHIPPED["enums"].items()}
    assert model_urls(sources, names) == SHIPPED["model_urls"]


def _run(code: str) -> tuple[str, list[str], list[str]]:
    options = Options(to=parse_version("2.13"), from_=parse_version("1.11"), select=frozenset({"torchvision-pretrained"}))
    result = migrate_text(textwrap.dedent(code), options.passes())
    assert result.error is None and result.code is not None
    return result.code, [e.message for e in result.edits], [f.message for f in result.findings]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        # the keypoint model's condition (pretrained == "legacy") is false for True
        ("keypointrcnn_resnet50_fpn(pretrained=True)", "keypointrcnn_resnet50_fpn(weights=KeypointRCNN_ResNet50_FPN_Weights.COCO_V1)"),
        # resnet_fpn_backbone: backbone_name by position, the flag by position after it
        ('resnet_fpn_backbone("resnet50", True)', 'resnet_fpn_backbone(backbone_name="resnet50", weights=ResNet50_Weights.IMAGENET1K_V1)'),
        ('resnet_fpn_backbone(backbone_name="resnet34", pretrained=False)', 'resnet_fpn_backbone(backbone_name="resnet34", weights=None)'),
        # a new-style value passed by position is only named
        ("resnet18(ResNet18_Weights.DEFAULT)", "resnet18(weights=ResNet18_Weights.DEFAULT)"),
        # comments and layout of a multi-line call stay
        ("resnet18(\n    pretrained=True,  # ImageNet\n    progress=False,\n)", "resnet18(\n    weights=ResNet18_Weights.IMAGENET1K_V1,  # ImageNet\n    progress=False,\n)"),
    ],
)
def test_more_forms(before: str, after: str) -> None:
    head = (
        "from torchvision.models import ResNet18_Weights, ResNet50_Weights, resnet18\n"
        "from torchvision.models.detection import KeypointRCNN_ResNet50_FPN_Weights, keypointrcnn_resnet50_fpn\n"
        "from torchvision.models.detection.backbone_utils import resnet_fpn_backbone\n\n"
    )
    code, edits, findings = _run(head + "m = " + before + "\n")
    assert code == head + "m = " + after + "\n" and edits and not findings
    assert _run(code)[1] == []  # a fixed point


@pytest.mark.parametrize(
    ("call", "why"),
    [
        ("resnet18(pretrained=True, weights=None)", "both pretrained= and weights="),
        ("resnet18(True, False, 3)", "at most 2 arguments by position"),
        ("resnet18(True, *rest)", "beside *args"),
        ("quantization.resnet18(pretrained=True, quantize=q)", "depend on quantize="),
        ("resnet_fpn_backbone(backbone_name=name, pretrained=True)", "depend on backbone_name="),
        ("resnet18(flag)", "flag is not a literal: write weights=ResNet18_Weights.IMAGENET1K_V1 if flag else None"),
        ("get_model('resnet18', pretrained=True)", "chosen at run time"),
    ],
)
def test_findings_name_what_to_write(call: str, why: str) -> None:
    head = (
        "from torchvision.models import get_model, quantization, resnet18\n"
        "from torchvision.models.detection.backbone_utils import resnet_fpn_backbone\n\n"
    )
    code, edits, findings = _run(head + "m = " + call + "\n")
    assert code == head + "m = " + call + "\n" and not edits
    assert len(findings) == 1 and why in findings[0], findings


@pytest.mark.parametrize(
    ("code", "count"),
    [
        # detr's backbone: the builder looked up by name on the module, in a multi-line call inside a method
        (
            "import torchvision\n\nclass B:\n    def __init__(self, name):\n"
            "        b = getattr(torchvision.models, name)(\n            dilation=d,\n            pretrained=main(),\n        )\n",
            1,
        ),
        ("import torchvision.models as tvm\n\nm = getattr(tvm, arch)(pretrained=True)\n", 1),
        ("import torchvision\n\nf = getattr(torchvision.models, arch)\n", 0),  # no flag
        ("import timm\n\nm = getattr(timm, arch)(pretrained=True)\n", 0),  # not torchvision
        ("import torchvision\n\ndef getattr(a, b): ...\n\nm = getattr(torchvision.models, 'x')(pretrained=True)\n", 0),
    ],
    ids=["detr", "alias", "no-flag", "timm", "shadowed-getattr"],
)
def test_builders_looked_up_with_getattr(code: str, count: int) -> None:
    migrated, edits, findings = _run(code)
    assert migrated == code and not edits
    assert len(findings) == count and all("chosen at run time" in f for f in findings), findings
