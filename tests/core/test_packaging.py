"""The package ships every pass folder, and the README's pass table matches the registry."""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path

import tomllib

from torchmigrate.core.passes import PROJECT
from torchmigrate.core.registry import all_passes
from torchmigrate.output.docs import END, START, with_table

ROOT = Path(__file__).resolve().parents[2]


def test_setuptools_finds_every_folder_of_the_package() -> None:
    """The package list is not written by hand (``packages.find``): each folder with Python files must be a package,
    or a new release folder would silently be left out of the wheel."""
    from setuptools import find_packages

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert config["packages"]["find"]["where"] == ["src"]
    found = set(find_packages(str(ROOT / "src")))
    package = ROOT / "src" / "torchmigrate"
    for folder in [package, *(p for p in package.rglob("*") if p.is_dir() and p.name != "__pycache__")]:
        if any(folder.glob("*.py")):
            assert (folder / "__init__.py").is_file(), folder
            assert ".".join(folder.relative_to(ROOT / "src").parts) in found, folder


def test_pass_modules_live_in_their_release_folder() -> None:
    import torchmigrate.codemods as package

    assert all_passes()
    for info in pkgutil.walk_packages(package.__path__, prefix=package.__name__ + "."):
        mod = importlib.import_module(info.name)
        found = getattr(mod, "PASS", None)
        if found is not None:
            folder = info.name.split(".")[2]
            if found.files == PROJECT:
                assert folder == "project", info.name
            elif found.package:  # a companion package's change lives in that package's folder
                assert folder == found.package.split()[0], (info.name, found.package)
            else:
                assert folder == "v" + found.release.replace(".", "_"), (info.name, found.release)


def test_readme_pass_table_is_current() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert START in readme and END in readme
    assert readme == with_table(readme), "README pass table is stale: run `python -m torchmigrate.output.docs README.md`"
