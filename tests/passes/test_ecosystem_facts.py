"""The facts the torchvision / torchaudio / torchdata passes rest on, checked against the packages' own sources.

These packages cannot be installed beside the CPU build of torch the tests use, so their unpacked wheels are read
(never imported) when environment variables name their package folders (``pip download --no-deps PKG==X`` and unzip):

- ``TORCHMIGRATE_TORCHVISION_SRC``: torchvision 0.28 — every name a torchvision pass writes is defined there;
- ``TORCHMIGRATE_TORCHAUDIO_2_8_SRC`` / ``TORCHMIGRATE_TORCHAUDIO_2_9_SRC``: what `torchaudio-removed-apis` reports
  exists in 2.8 and is gone from 2.9;
- ``TORCHMIGRATE_TORCHDATA_0_9_SRC`` / ``TORCHMIGRATE_TORCHDATA_0_10_SRC``: the DataPipes modules likewise.

Without them only the facts about torch itself (installed) are checked.
"""

from __future__ import annotations

import ast
import inspect
import os
from pathlib import Path

import pytest
import torch

from torchmigrate.codemods.torchaudio.removed_apis import REMOVED as TORCHAUDIO_REMOVED
from torchmigrate.codemods.torchdata.datapipes import REMOVED as TORCHDATA_REMOVED
from torchmigrate.codemods.torchvision import functional_modules, models_utils, v2_beta_names, video_io


def _folder(variable: str) -> Path:
    value = os.environ.get(variable)
    if not value:
        pytest.skip(f"{variable} not set")
    return Path(value)


def _module_file(root: Path, module: str) -> Path | None:
    """The source of ``module`` (``pkg.a.b``) under ``root`` (the folder of ``pkg``)."""
    parts = module.split(".")[1:]
    for candidate in (root.joinpath(*parts).with_suffix(".py"), root.joinpath(*parts, "__init__.py")):
        if parts and candidate.is_file() or not parts and candidate.name == "__init__.py" and candidate.is_file():
            return candidate
    return None


def _top_level_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def defined(root: Path, qualname: str) -> bool:
    """``qualname`` is a module under ``root``, or a name its parent module defines or imports at the top level."""
    if _module_file(root, qualname) is not None:
        return True
    parent, _, name = qualname.rpartition(".")
    path = _module_file(root, parent)
    return path is not None and name in _top_level_names(path)


def test_defined_reads_modules_and_names(tmp_path: Path) -> None:
    root = tmp_path / "pkg"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("from .sub import thing as alias\n")
    (root / "sub" / "__init__.py").write_text("def thing(): ...\nclass Other: ...\nX = 1\n")
    (root / "mod.py").write_text("")
    assert all(defined(root, q) for q in ("pkg.sub", "pkg.mod", "pkg.alias", "pkg.sub.thing", "pkg.sub.Other", "pkg.sub.X"))
    assert not any(defined(root, q) for q in ("pkg.thing", "pkg.sub.missing", "pkg.gone", "pkg.gone.x"))


def test_torchvision_targets_exist_in_0_28() -> None:
    root = _folder("TORCHMIGRATE_TORCHVISION_SRC")
    targets = {*functional_modules.PASS.renames.values(), *v2_beta_names.PASS.renames.values()}
    assert len(targets) > 25
    missing = sorted(t for t in targets if not defined(root, t))
    assert missing == []
    # and what they replace is gone (the removed modules; the 0.15 beta names)
    old = [*functional_modules.PASS.renames, *v2_beta_names.PASS.renames]
    assert sorted(q for q in old if defined(root, q)) == []


def test_torchvision_video_io_is_gone_from_0_28() -> None:
    root = _folder("TORCHMIGRATE_TORCHVISION_SRC")
    names = [q for q in video_io.REMOVED if _module_file(root, q) is None]  # io/video.py stays, importing internals
    assert len(names) >= 5 and not any(defined(root, q) for q in names)  # only inside try: from pytorch.vision.fb…
    assert "pytorch.vision.fb" in (root / "io" / "video.py").read_text(encoding="utf-8")
    assert defined(root, "torchvision.io.read_image") and defined(root, "torchvision.io.decode_jpeg")


def test_torchaudio_removals_are_those_of_2_9() -> None:
    before, after = _folder("TORCHMIGRATE_TORCHAUDIO_2_8_SRC"), _folder("TORCHMIGRATE_TORCHAUDIO_2_9_SRC")
    assert sorted(q for q in TORCHAUDIO_REMOVED if not defined(before, q)) == []
    assert sorted(q for q in TORCHAUDIO_REMOVED if defined(after, q)) == []
    assert defined(after, "torchaudio.load") and defined(after, "torchaudio.functional.resample")


def test_torchdata_datapipes_are_gone_from_0_10() -> None:
    before, after = _folder("TORCHMIGRATE_TORCHDATA_0_9_SRC"), _folder("TORCHMIGRATE_TORCHDATA_0_10_SRC")
    assert all(defined(before, q) for q in TORCHDATA_REMOVED)
    assert not any(defined(after, q) for q in TORCHDATA_REMOVED)
    assert defined(after, "torchdata.stateful_dataloader") and defined(after, "torchdata.nodes")


def test_models_utils_target_on_torch() -> None:
    # torchvision 0.10's models.utils re-exported torch.hub.load_state_dict_from_url; the rename calls it directly
    (target,) = models_utils.PASS.renames.values()
    module, _, name = target.rpartition(".")
    function = getattr(__import__(module, fromlist=[name]), name)
    assert function is torch.hub.load_state_dict_from_url
    assert {"url", "model_dir", "map_location", "progress", "check_hash", "file_name"} <= set(inspect.signature(function).parameters)
