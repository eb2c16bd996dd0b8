"""The release radar on small synthetic package trees: each kind of change it reports, with file:line evidence, and
nothing it should not report; wheel files and downloads as sources; the command line."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from torchmigrate.radar import sources as radar_sources
from torchmigrate.radar.__main__ import main
from torchmigrate.radar.api import Change, SourceError, open_source, radar, scan

OLD = {
    "__init__.py": """
        from pkg._impl import solve, Thing, rename_me, shifty, retire, softly, strict
        from pkg.fill import *
        from pkg import util
        import os

        __all__ = ["solve", "Thing", "legacy", "util"]
        __all__.extend(["gone_later"])

        def legacy(x):
            return x

        def gone_later():
            pass
    """,
    "fill.py": """
        __all__ = ["filled"]

        def filled():
            pass
    """,
    "_impl.py": """
        import warnings

        def solve(a, b, flag=False, *, out=None):
            return a

        def qr(a, some=True):
            return a

        def rename_me(model, shapes_spec=None, mode="x"):
            return model

        def shifty(a, b):
            return a

        def retire(x):
            warnings.warn("retire is deprecated, use pkg.better", DeprecationWarning)
            return x

        def softly(x):
            warnings.warn("softly is deprecated", FutureWarning)

        def strict(dim):
            return dim

        class Thing:
            def __init__(self, *, use_cuda=False):
                pass

            def method(self, a):
                return a

            def dropped(self):
                pass

            @property
            def metadata_json(self):
                return ""
    """,
    "util.py": """
        from .baton import Baton

        __all__ = ["helper"]

        SUPPORTED = True

        def helper(x, y=1):
            return x
    """,
    "baton.py": """
        class Baton:
            pass
    """,
    "removed_mod.py": """
        def f():
            pass
    """,
    "removed_pkg/__init__.py": "X = 1\n",
    "removed_pkg/inner.py": "Y = 1\n",
    "config.py": """
        from pkg._config_module import Config, install_config_module

        cache_size_limit: int = 8
        old_flag = False
        dropped_key = 1
        budget = 128
        faithful = True
        _private = 3

        class cuda:
            profiling_configs: int = 5

        install_config_module(sys.modules[__name__])
    """,
}

NEW = {
    "__init__.py": """
        from pkg._impl import solve, Thing, qr, rename_me, shifty, retire, softly, strict, brand_new
        from pkg.fill import *
        from pkg import util
        import os

        __all__ = ["solve", "Thing", "util", "qr"]

        def legacy(x):
            return x
    """,
    "fill.py": OLD["fill.py"],
    "_impl.py": """
        import warnings
        from typing_extensions import deprecated

        def solve(a, b, flag=True, *, out=None):
            return a

        def qr(a, some=True):
            raise RuntimeError("torch.qr was removed: use torch.linalg.qr(A, mode=...) instead")

        def rename_me(model, dynamic_shapes=None, mode="x"):
            return model

        def shifty(a, extra, b):
            return a

        def retire(x):
            return x

        def softly(x):
            warnings.warn("softly is deprecated", FutureWarning)

        @deprecated("brand_new is deprecated, use pkg.solve", category=FutureWarning)
        def brand_new():
            pass

        def strict(dim):
            if isinstance(dim, bool):
                raise TypeError(f"dim must be an int, got {type(dim)}")
            return dim

        class Thing:
            def __init__(self):
                pass

            def method(self, a, *, b):
                return a

            def qr(self, some=True):
                from pkg._impl import qr
                return qr(self, some)

            @property
            def metadata(self):
                return {}
    """,
    "util.py": """
        __all__ = ["helper"]

        def helper(x, y=1):
            import warnings
            warnings.warn(f"helper(x={x}) is deprecated", category=DeprecationWarning)
            return x
    """,
    "baton.py": OLD["baton.py"],
    "config.py": """
        from pkg._config_module import Config, install_config_module

        recompile_limit: int = 8
        cache_size_limit: int = Config(alias="pkg.config.recompile_limit")
        old_flag = Config(default=False, deprecated=True, deprecation_message="does not do anything")
        budget = 64
        faithful = Config(alias="pkg.other.faithful", deprecated=True, deprecation_message="use pkg.other.faithful")
        profiling_configs: int = 10

        install_config_module(sys.modules[__name__])
    """,
}


def write_tree(root: Path, files: dict[str, str], package: str = "pkg") -> Path:
    for name, text in files.items():
        path = root / package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


@pytest.fixture
def trees(tmp_path: Path) -> tuple[Path, Path]:
    return write_tree(tmp_path / "old", OLD), write_tree(tmp_path / "new", NEW)


def changes_of(old: Path, new: Path) -> list[Change]:
    return radar(str(old), str(new), package="pkg").changes


def by(changes: list[Change], kind: str) -> dict[str, list[Change]]:
    found: dict[str, list[Change]] = {}
    for c in changes:
        if c.kind == kind:
            found.setdefault(c.name, []).append(c)
    return found


def test_each_kind_of_change_is_found_with_evidence(trees: tuple[Path, Path]) -> None:
    changes = changes_of(*trees)
    details = {(c.kind, c.detail) for c in changes}

    removed = by(changes, "name-removed")
    assert set(removed) == {"pkg.gone_later", "pkg.Thing.dropped", "pkg.Thing.metadata_json", "pkg.util.SUPPORTED", "pkg.util.Baton"}
    assert removed["pkg.util.Baton"][0].new == "from pkg.baton import Baton"  # the re-export left; the class did not
    assert removed["pkg.util.Baton"][0].rewrite == "rename import (safe)"
    assert removed["pkg.util.SUPPORTED"][0].evidence.startswith("old pkg/util.py:5 ")
    assert "not in __all__" in removed["pkg.util.SUPPORTED"][0].detail
    assert set(by(changes, "module-removed")) == {"pkg.removed_mod", "pkg.removed_pkg"}  # not pkg.removed_pkg.inner

    stubs = by(changes, "stub")
    assert set(stubs) == {"pkg.qr", "pkg.Thing.qr"}  # the function, and the method that only calls it
    assert stubs["pkg.qr"][0].new == "torch.linalg.qr"
    assert stubs["pkg.qr"][0].evidence == "new pkg/_impl.py:7"

    assert ("parameter", "pkg.rename_me: parameter shapes_spec renamed to dynamic_shapes") in details
    assert ("parameter", "pkg.Thing.method: new required parameter b") in details
    assert ("parameter", "pkg.Thing: parameter use_cuda removed") in details  # a constructor is shown as its class
    assert ("parameter", "pkg.shifty: parameter b is now behind the new positional parameter(s) extra") in details
    assert ("default", "pkg.solve: default of flag changed from False to True") in details
    renamed = next(c for c in changes if c.detail.startswith("pkg.rename_me"))
    assert renamed.evidence == "old pkg/_impl.py:9 -> new pkg/_impl.py:10"
    assert renamed.old == "pkg.rename_me(shapes_spec=...)" and renamed.new == "pkg.rename_me(dynamic_shapes=...)"

    assert set(by(changes, "deprecation")) == {"pkg.brand_new", "pkg.util.helper"}
    assert by(changes, "deprecation")["pkg.brand_new"][0].new == "pkg.solve"
    assert by(changes, "deprecation")["pkg.util.helper"][0].new == "-"  # "is deprecated" names no replacement
    assert by(changes, "deprecation")["pkg.util.helper"][0].detail == "pkg.util.helper: DeprecationWarning: helper(x={…}) is deprecated"
    assert set(by(changes, "undeprecation")) == {"pkg.retire"}
    assert not by(changes, "category")  # softly warns the same way
    assert set(by(changes, "raises")) == {"pkg.strict"}

    assert ("config-removed", "pkg.config.dropped_key removed") in details
    assert ("config-removed", "pkg.config.cuda.profiling_configs moved to pkg.config.profiling_configs") in details
    assert ("config-renamed", "pkg.config.cache_size_limit is now an alias of pkg.config.recompile_limit") in details
    assert ("config-renamed", "pkg.config.faithful is now an alias of pkg.other.faithful (deprecated)") in details
    assert ("config-deprecated", "pkg.config.old_flag is deprecated: does not do anything") in details
    assert ("config-default", "pkg.config.budget: default 128 -> 64") in details
    assert not any("_private" in c.name or "recompile_limit" == c.name.rpartition(".")[2] for c in changes)


def test_nothing_is_reported_between_a_release_and_itself(trees: tuple[Path, Path]) -> None:
    old, _ = trees
    assert changes_of(old, old) == []


def test_category_changes_and_lazy_modules(tmp_path: Path) -> None:
    old = write_tree(tmp_path / "old", {
        "__init__.py": "",
        "jit.py": "import warnings\n\ndef script(f):\n    warnings.warn('`script` is deprecated', DeprecationWarning)\n    return f\n",
        "lazy.py": "__all__ = ['Conv']\n\nclass Conv:\n    pass\n",
    })
    new = write_tree(tmp_path / "new", {
        "__init__.py": "",
        "jit.py": "import warnings\n\ndef script(f):\n    warnings.warn('`script` is deprecated', FutureWarning)\n    return f\n",
        "lazy.py": "__all__ = ['Conv']\n\ndef __getattr__(name):\n    return _build(name)\n",
    })
    changes = changes_of(old, new)
    assert [(c.kind, c.detail) for c in changes] == [
        ("category", "pkg.jit.script: DeprecationWarning -> FutureWarning: `script` is deprecated"),
    ]  # Conv is still in __all__ and the module builds it lazily
    (new / "pkg" / "lazy.py").write_text("def __getattr__(name):\n    return _build(name)\n")
    lazy = by(changes_of(old, new), "name-removed")["pkg.lazy.Conv"][0]
    assert lazy.uncertain


def test_wheels_and_their_metadata(trees: tuple[Path, Path], tmp_path: Path) -> None:
    wheels = []
    for tree, version, python in ((trees[0], "1.0.0", ">=3.10"), (trees[1], "1.1.0", ">=3.11")):
        wheel = tmp_path / f"pkg-{version}-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            for path in sorted((tree / "pkg").rglob("*.py")):
                archive.write(path, path.relative_to(tree).as_posix())
            archive.writestr(f"pkg-{version}.dist-info/METADATA",
                             f"Metadata-Version: 2.1\nName: pkg\nVersion: {version}\nRequires-Python: {python}\n"
                             f"Requires-Dist: triton ~={version}\n")
        wheels.append(wheel)
    result = radar(str(wheels[0]), str(wheels[1]), package="pkg")
    assert (result.old.label, result.new.label) == ("1.0.0", "1.1.0")
    metadata = {c.name: c for c in result.changes if c.kind == "metadata"}
    assert metadata["Requires-Python"].detail == "Requires-Python: >=3.10 -> >=3.11"
    assert metadata["Requires-Dist triton"].new == "triton ~=1.1.0"
    assert metadata["Requires-Python"].old == "Requires-Python: >=3.10"
    from_trees = {(c.kind, c.detail) for c in changes_of(*trees)}
    assert {(c.kind, c.detail) for c in result.changes if c.kind != "metadata"} == from_trees


def test_a_version_is_downloaded_with_pip_and_read_as_a_wheel(trees: tuple[Path, Path], tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[list[str], dict[str, str]]] = []

    def fake_run(command: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
        env = kwargs["env"]
        assert isinstance(env, dict)
        calls.append((command, env))
        folder = Path(command[command.index("-d") + 1])
        with zipfile.ZipFile(folder / "pkg-2.0.0-py3-none-any.whl", "w") as archive:
            archive.writestr("pkg/__init__.py", "X = 1\n")
        return subprocess.CompletedProcess(command, 0, "", "")

    monkeypatch.setattr(radar_sources.subprocess, "run", fake_run)
    source = open_source("2.0.0", package="pkg", download_dir=tmp_path / "wheels")
    assert source.label == "2.0.0" and list(source.paths()) == ["pkg/__init__.py"]
    command, env = calls[0]
    assert command[:4] == [sys.executable, "-m", "pip", "download"] and "--no-deps" in command and "pkg==2.0.0" in command
    assert "PIP_CONSTRAINT" in env
    open_source("2.0.0", package="pkg", download_dir=tmp_path / "wheels")
    assert len(calls) == 1  # the wheel already downloaded is reused


def test_sources_that_cannot_be_read(tmp_path: Path) -> None:
    junk = tmp_path / "junk.whl"
    junk.write_bytes(b"not a zip")
    with pytest.raises(SourceError, match="not a readable wheel"):
        open_source(str(junk))
    with pytest.raises(SourceError, match="not a wheel file, a folder or a version"):
        open_source("no-such-thing")


def test_files_that_do_not_parse_are_counted_not_fatal(tmp_path: Path) -> None:
    tree = write_tree(tmp_path / "t", {"__init__.py": "X = 1\n", "broken.py": "def f(:\n"})
    result = scan(open_source(str(tree), package="pkg"))
    assert result.unparsed == ["pkg/broken.py"] and "pkg" in result.modules


def test_pyi_names_count_when_the_module_builds_them_at_run_time(tmp_path: Path) -> None:
    files = {"__init__.py": "", "return_types.py": "__all__ = []\nfor n in NAMES:\n    globals()[n] = make(n)\n",
             "return_types.pyi": "__all__ = ['qr', 'svd']\nclass qr(tuple): ...\nclass svd(tuple): ...\n"}
    old = write_tree(tmp_path / "old", files)
    new = write_tree(tmp_path / "new", {**files, "return_types.pyi": "__all__ = ['svd']\nclass svd(tuple): ...\n"})
    removed = by(changes_of(old, new), "name-removed")
    assert list(removed) == ["pkg.return_types.qr"]
    assert removed["pkg.return_types.qr"][0].evidence.startswith("old pkg/return_types.pyi:2 ")


def test_command_line_formats(trees: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old, new = (str(t) for t in trees)
    assert main([old, new, "--package", "pkg", "--format", "markdown"]) == 0
    out, err = capsys.readouterr()
    assert "| old | new | status | evidence | rewrite |" in out
    assert "| pkg.rename_me(shapes_spec=...) | pkg.rename_me(dynamic_shapes=...) | RENAMED (TypeError) |" in out
    assert err.startswith("radar old -> new: ") and "changes:" in err
    report = tmp_path / "r.json"
    assert main([old, new, "--package", "pkg", "--format", "json", "--kind", "stub", "--output", str(report)]) == 0
    data = json.loads(report.read_text())
    assert {c["name"] for c in data["changes"]} == {"pkg.qr", "pkg.Thing.qr"}
    assert main([old, str(tmp_path / "missing.whl"), "--package", "pkg"]) == 2
    assert "radar: error:" in capsys.readouterr().err


def test_it_runs_as_a_module_and_never_imports_what_it_reads(trees: tuple[Path, Path], tmp_path: Path) -> None:
    old, new = trees
    marker = tmp_path / "imported"
    (new / "pkg" / "__init__.py").write_text(
        (new / "pkg" / "__init__.py").read_text() + f"\nopen({str(marker)!r}, 'w').close()\n"
    )
    proc = subprocess.run([sys.executable, "-m", "torchmigrate.radar", str(old), str(new), "--package", "pkg"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "## public names that disappeared" in proc.stdout
    assert not marker.exists()
