"""Notebooks: code cells migrate in notebook order with IPython syntax masked, and nothing else in the file moves."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.cli import MIGRATE

from torchmigrate.core.passes import SAFE, Pass
from torchmigrate.core.registry import Options
from torchmigrate.core.versions import parse_version
from torchmigrate.notebook.cells import label_hunks, locate_sources
from torchmigrate.notebook.magics import mask_cell, unmask
from torchmigrate.notebook.migrate import migrate_notebook
from torchmigrate.output.diffs import diff_bytes
from torchmigrate.python.transform import CallContext
from torchmigrate.run.files import discover

DATA = Path(__file__).resolve().parents[1] / "data"
ROOT = Path(__file__).resolve().parents[2]
TO = Options(to=parse_version("2.12"), unsafe_fixes=True)  # the fixture's `!pip install` moves its CUDA index (review)


def notebook(*cells: str | list[str], indent: int | None = 1, ensure_ascii: bool = False, final_newline: bool = True) -> str:
    data = {
        "cells": [
            {
                "cell_type": "code",
                "execution_count": n,
                "id": f"id-{n}",
                "metadata": {},
                "outputs": [{"name": "stdout", "output_type": "stream", "text": ["résultat\n"]}],
                "source": cell if isinstance(cell, list) else cell.splitlines(keepends=True),
            }
            for n, cell in enumerate(cells, start=1)
        ],
        "metadata": {"language_info": {"name": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(data, indent=indent, ensure_ascii=ensure_ascii) + ("\n" if final_newline else "")


def sources(raw: str, kind: str | None = None) -> list[str]:
    cells = [c for c in json.loads(raw)["cells"] if kind is None or c["cell_type"] == kind]
    return ["".join(c["source"]) if isinstance(c["source"], list) else c["source"] for c in cells]


def run_nb(raw: str, options: Options = TO) -> tuple[str, list[str], list[str]]:
    result = migrate_notebook(raw, options.passes(), "nb.ipynb", options.project_passes(), options.to, options.gate())
    assert result.error is None, result.error
    return result.code, [f.render("nb.ipynb") for f in result.findings], [e.message for e in result.edits]


def test_fixture_migrates_to_the_expected_bytes() -> None:
    raw = (DATA / "legacy.ipynb").read_text(encoding="utf-8")
    new, findings, edits = run_nb(raw)
    assert new == (DATA / "legacy.expected.ipynb").read_text(encoding="utf-8")
    # The unparsable cell is reported by number, at its line in the file, and left as it was.
    assert findings == ["nb.ipynb:69:1: notebook cell 5 does not parse (invalid syntax (line 1)); left as it is"]
    assert sources(new)[4] == sources(raw)[4]
    assert any(m.startswith("cell 4, line 3: export_for_inference") for m in edits)
    # Everything but the sources is identical: outputs, ids, metadata, execution counts, key order.
    old_data, new_data = json.loads(raw), json.loads(new)
    for cell in (*old_data["cells"], *new_data["cells"]):
        cell.pop("source")
    assert list(old_data) == list(new_data) and old_data == new_data
    # A second run is a no-op.
    assert run_nb(new)[0] == new


def test_only_source_lines_change_in_the_raw_text() -> None:
    raw = (DATA / "legacy.ipynb").read_text(encoding="utf-8")
    new = run_nb(raw)[0]
    removed = {line for line in raw.splitlines() if line not in new.splitlines()}
    assert removed and all(line.startswith(('    "', '   "source": ')) for line in removed), removed


def test_alias_imported_in_one_cell_resolves_in_a_later_one() -> None:
    to_2_8 = Options(to=parse_version("2.8"))
    raw = notebook("import torch\nfrom torch.export import export_for_inference as efi\n", "x = 1", "ep = efi(m, (x,))")
    assert sources(run_nb(raw, to_2_8)[0]) == [
        "import torch\n",
        "x = 1",
        "ep = torch.export.export_for_training(m, (x,), strict=True).run_decompositions()",
    ]
    raw = notebook("from torch.export import export_for_inference as efi", "ep = efi(m, (x,))", "ep = efi(m, (y,))")
    assert sources(run_nb(raw, to_2_8)[0]) == [
        "from torch.export import export_for_training",
        "ep = export_for_training(m, (x,), strict=True).run_decompositions()",
        "ep = export_for_training(m, (y,), strict=True).run_decompositions()",
    ]
    # Below the pass's release nothing changes.
    assert run_nb(raw, Options(to=parse_version("2.7")))[0] == raw


@pytest.mark.parametrize(("indent", "ensure_ascii", "final_newline"), [(1, False, True), (2, True, False), (4, False, False)])
def test_the_files_own_formatting_is_kept(indent: int, ensure_ascii: bool, final_newline: bool) -> None:
    raw = notebook(
        "import torch  # ünïcode\nep = torch.export.export_for_training(m, (x,))\nprint('é')",
        indent=indent,
        ensure_ascii=ensure_ascii,
        final_newline=final_newline,
    )
    new = run_nb(raw)[0]
    expected = notebook(
        "import torch  # ünïcode\nep = torch.export.export(m, (x,))\nprint('é')",
        indent=indent,
        ensure_ascii=ensure_ascii,
        final_newline=final_newline,
    )
    assert new == expected


def test_minified_notebook_and_string_sources() -> None:
    raw = notebook("import torch\nep = torch.export.export_for_training(m, (x,))\n", indent=None, final_newline=False).replace(
        '["import torch\\n", "ep = torch.export.export_for_training(m, (x,))\\n"]',
        '"import torch\\nep = torch.export.export_for_training(m, (x,))\\n"',
    )
    new = run_nb(raw)[0]
    assert new == raw.replace("export_for_training", "export")


def test_imports_the_engine_adds_land_in_the_cell_with_the_imports() -> None:
    add = Pass(id="test-add-import", release="2.8", safety=SAFE, title="t", evidence="e", triggers=("old_api",), doc="d")

    @add.rewrites_calls("torch.special.old_api")
    def rewrite(call: object, ctx: CallContext) -> object:
        return call.with_changes(func=ctx.ref("torch.utils.data.new_api"))  # type: ignore[attr-defined]

    raw = notebook("%matplotlib inline", "import numpy as np\nfrom torch.special import old_api", "x = 1\ny = old_api(x)")
    result = migrate_notebook(raw, [add], "nb.ipynb")
    assert result.error is None
    assert sources(result.code) == [
        "%matplotlib inline",
        "import numpy as np\nfrom torch.utils.data import new_api",
        "x = 1\ny = new_api(x)",
    ]


@pytest.mark.parametrize(
    "line",
    ["%matplotlib inline", "!pip install x", "files = !ls", "a, b = %who_ls", "torch.load?", "??torch.load", "?x", "%%time"],
)
def test_ipython_lines_are_masked_and_restored(line: str) -> None:
    masked = mask_cell(f"import torch\n{line}\nx = 1\n")
    assert masked is not None
    assert line not in masked.code
    assert unmask(masked.code, masked.originals) == f"import torch\n{line}\nx = 1\n"


def test_backslash_in_a_comment_does_not_continue_the_line() -> None:
    masked = mask_cell("x = 1  # C:\\\n!ls\n")
    assert masked is not None and masked.code == "x = 1  # C:\\\nimport __nbmagic_0__\n"


def test_python_lookalikes_are_not_masked() -> None:
    code = 'y = (a\n     % b)\ns = """\n!not shell\n"""\nz = x != y  # !comment\nq = {1: 2}\n'
    masked = mask_cell(code)
    assert masked is not None and masked.code == code and not masked.originals


def test_non_python_cell_magic_is_skipped() -> None:
    assert mask_cell("%%bash\necho export_for_inference\n") is None
    time = mask_cell("%%time\nx = 1\n")
    assert time is not None and time.code == "import __nbmagic_0__\nx = 1\n"


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "x = 1",
                "%time f()",
                "!ls",
                "  !echo 1",
                "if x:",
                "    y = 2",
                "f?",
                "s = '''",
                "!x'''",
                "a = (1,",
                " 2)",
                "",
                "# c",
            ]
        ),
        max_size=8,
    )
)
def test_masking_round_trips(lines: list[str]) -> None:
    code = "\n".join(lines)
    masked = mask_cell(code)
    assert masked is not None
    assert unmask(masked.code, masked.originals) == code


def test_non_python_kernels_and_non_notebooks() -> None:
    r_kernel = notebook("library(torch)\nexport_for_inference(x)").replace('"name": "python"', '"name": "R"')
    assert run_nb(r_kernel)[0] == r_kernel
    bad = '{"cells": [export_for_inference'
    result = migrate_notebook(bad, TO.passes(), "bad.ipynb")
    assert result.error is not None and result.error.startswith("not a notebook") and not result.changed


def test_locate_sources_matches_json() -> None:
    raw = (DATA / "legacy.ipynb").read_text(encoding="utf-8")
    found = locate_sources(raw)
    cells = json.loads(raw)["cells"]
    assert len(found) == len(cells)
    for cell, where in zip(cells, found, strict=True):
        assert where is not None and json.loads(raw[where.start : where.end]) == cell["source"]


def test_diff_names_cells_and_applies_with_git(tmp_path: Path) -> None:
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    raw = (DATA / "legacy.ipynb").read_text(encoding="utf-8")
    result = migrate_notebook(raw, TO.passes(), "nb.ipynb", TO.project_passes(), TO.to, TO.gate())
    patch = diff_bytes(result, "nb.ipynb")
    headers = [line for line in patch.decode().splitlines() if line.startswith("@@")]
    assert [h.split("@@ ")[-1] for h in headers] == ["cell 2", "cell 3", "cell 4", "cell 7"]
    (tmp_path / "nb.ipynb").write_text(raw, encoding="utf-8")
    (tmp_path / "fix.patch").write_bytes(patch)
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "apply", "fix.patch"], cwd=tmp_path, check=True)
    assert (tmp_path / "nb.ipynb").read_text(encoding="utf-8") == result.code
    assert label_hunks("not a diff\n", "not json") == "not a diff\n"


def test_discovery_finds_notebooks_but_not_checkpoints(tmp_path: Path) -> None:
    (tmp_path / "a.ipynb").write_text(notebook("x = 1"))
    (tmp_path / ".ipynb_checkpoints").mkdir()
    (tmp_path / ".ipynb_checkpoints" / "a-checkpoint.ipynb").write_text(notebook("x = 1"))
    assert [p.name for p in discover([tmp_path])] == ["a.ipynb"]


def test_cli_writes_the_notebook_and_reports_the_broken_cell(tmp_path: Path) -> None:
    target = tmp_path / "legacy.ipynb"
    shutil.copy(DATA / "legacy.ipynb", target)
    proc = subprocess.run(
        [str(MIGRATE), "--to", "2.12", "--unsafe-fixes", "legacy.ipynb"], cwd=tmp_path, capture_output=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert b"legacy.ipynb:69:1: notebook cell 5 does not parse" in proc.stderr
    assert target.read_bytes() == (DATA / "legacy.expected.ipynb").read_bytes()


def test_migrated_example_notebook_runs_on_real_torch() -> None:
    torch = pytest.importorskip("torch")
    from support.torchrun import run_code

    raw = (ROOT / "examples" / "legacy_project" / "notebooks" / "explore.ipynb").read_text(encoding="utf-8")
    new = run_nb(raw, Options(to=parse_version("2.12"), from_=parse_version("2.7")))[0]
    python = "\n".join(
        line
        for cell in sources(new, "code")
        for line in cell.splitlines()
        if not line.lstrip().startswith(("%", "!")) and not line.endswith("?")
    )
    ran = run_code(python)
    assert ran.deprecations == []
    assert isinstance(ran.namespace["ep"], torch.export.ExportedProgram)


def test_future_import_in_a_later_cell() -> None:
    raw = notebook("import torch", "from __future__ import annotations\nep = torch.export.export_for_training(m, (x,))")
    assert sources(run_nb(raw)[0]) == ["import torch", "from __future__ import annotations\nep = torch.export.export(m, (x,))"]


def test_a_cell_libcst_refuses_is_reported_and_the_rest_migrated(monkeypatch: pytest.MonkeyPatch) -> None:
    import libcst

    real = libcst.parse_module

    def picky(code: str, *args: object, **kwargs: object) -> libcst.Module:
        if "refused_by_libcst" in code:
            raise libcst.ParserSyntaxError("refused", lines=[code], raw_line=1, raw_column=0)
        return real(code, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(libcst, "parse_module", picky)
    raw = notebook("import torch", "refused_by_libcst = 1", "ep = torch.export.export_for_training(m, (x,))")
    new, findings, _ = run_nb(raw)
    assert sources(new) == ["import torch", "refused_by_libcst = 1", "ep = torch.export.export(m, (x,))"]
    assert len(findings) == 1 and "notebook cell 2 does not parse" in findings[0]


LINES = [
    "import torch as th",
    "from torch.export import export_for_inference as efi",
    "%matplotlib inline",
    "!pip install torch==2.7.1",
    "ep = efi(m, (x,))",
    "ep = th.export.export_for_training(m, (x,))",
    "for i in range(2):",
    "    !echo {i}",
    "    y = i",
    "x = 'é'",
    "broken(",
    "",
]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.lists(st.sampled_from(LINES), max_size=5).map("\n".join), min_size=1, max_size=4), st.sampled_from([1, 2]))
def test_random_notebooks_keep_everything_but_sources(cells: list[str], indent: int) -> None:
    raw = notebook(*cells, indent=indent)
    result = migrate_notebook(raw, TO.passes(), "nb.ipynb", TO.project_passes(), TO.to, TO.gate())
    assert result.error is None, result.error
    new = result.code
    old_data, new_data = json.loads(raw), json.loads(new)
    for cell in (*old_data["cells"], *new_data["cells"]):
        cell.pop("source")
    assert old_data == new_data
    again = migrate_notebook(new, TO.passes(), "nb.ipynb", TO.project_passes(), TO.to, TO.gate())
    assert again.code == new and not again.edits
    below = Options(to=parse_version("2.7"), from_=parse_version("2.7"))
    assert migrate_notebook(raw, below.passes(), "nb.ipynb").code == raw


def test_crlf_notebook_keeps_its_line_endings() -> None:
    raw = (DATA / "legacy.ipynb").read_text(encoding="utf-8").replace("\n", "\r\n")
    expected = (DATA / "legacy.expected.ipynb").read_text(encoding="utf-8").replace("\n", "\r\n")
    assert run_nb(raw)[0] == expected
