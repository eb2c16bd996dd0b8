"""The package ships every pass folder, and the README's pass table matches the registry."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import tomllib

from torchmigrate.docs import END, START, with_table
from torchmigrate.passes import all_passes

ROOT = Path(__file__).resolve().parents[1]


def test_every_codemods_folder_is_a_listed_package() -> None:
    packages = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    folders = {f"torchmigrate.codemods.{d.name}" for d in (ROOT / "codemods").iterdir() if d.name.startswith("v")}
    assert folders <= packages, sorted(folders - packages)
    for folder in (ROOT / "codemods").iterdir():
        if folder.name.startswith("v"):
            assert (folder / "__init__.py").is_file(), folder


def test_pass_modules_live_in_their_release_folder() -> None:
    import torchmigrate.codemods as package

    assert all_passes()
    for info in pkgutil.walk_packages(package.__path__, prefix=package.__name__ + "."):
        mod = importlib.import_module(info.name)
        found = getattr(mod, "PASS", None)
        if found is not None:
            folder = info.name.split(".")[2]
            assert folder == "v" + found.release.replace(".", "_"), (info.name, found.release)


def test_readme_pass_table_is_current() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert START in readme and END in readme
    assert readme == with_table(readme), "README pass table is stale: run `python -m torchmigrate.docs README.md`"
