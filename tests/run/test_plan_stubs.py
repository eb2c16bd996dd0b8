"""Python files beside a torch stub package of the project's own type-check those stubs: they are left alone."""

from __future__ import annotations

from pathlib import Path

from torchmigrate.run.plan import make_options, plan_tasks


def test_files_beside_a_projects_torch_stubs_are_not_migrated(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "stubs" / "torch").mkdir(parents=True)
    (tmp_path / "stubs" / "torch" / "__init__.pyi").write_text("def meshgrid(*tensors: object) -> object: ...\n")
    (tmp_path / "stubs" / "torch_stub_tests.py").write_text("import torch\n\ntorch.meshgrid(a, b)\n")
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "model.py").write_text("import torch\n\ntorch.meshgrid(a, b)\n")
    planned = {t.path.relative_to(tmp_path).as_posix() for t in plan_tasks([tmp_path], make_options("2.12"), False)}
    assert "src/model.py" in planned
    assert "stubs/torch_stub_tests.py" not in planned
    named = {t.path for t in plan_tasks([tmp_path / "stubs" / "torch_stub_tests.py"], make_options("2.12"), False)}
    assert named == {tmp_path / "stubs" / "torch_stub_tests.py"}  # a file named on the command line is taken
