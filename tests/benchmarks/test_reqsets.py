"""Requirement sets (benchmarks/reqsets.py): found in each kind of project file, paired before/after, and resolved
through a stand-in for pip — the network is never used here."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCHMARKS))

import reqsets  # noqa: E402
from reqsets import ReqSet  # noqa: E402


def files(mapping: dict[str, str]) -> reqsets.Reader:
    return lambda path: mapping.get(path)


def test_requirements_file_inlines_includes_and_drops_local_code() -> None:
    tree = {
        "requirements/base.txt": "numpy>=1.26  # arrays\n-r ../shared.txt\n",
        "shared.txt": "pyyaml\n",
    }
    text = textwrap.dedent(
        """\
        --extra-index-url https://example.invalid/whl/cu128
        -r requirements/base.txt
        torch==2.7.1 \\
            --hash=sha256:abc
        -e .
        git+https://example.invalid/repo.git#egg=thing
        ./vendor/pkg
        # a comment
        """
    )
    found = reqsets.requirements_file("requirements.txt", text, files(tree))
    assert found.requirements == ("numpy>=1.26", "pyyaml", "torch==2.7.1 --hash=sha256:abc")
    assert found.options == ("--extra-index-url=https://example.invalid/whl/cu128",)
    assert found.dropped == ("-e .", "git+https://example.invalid/repo.git#egg=thing", "./vendor/pkg")
    assert found.skipped is None
    missing = reqsets.requirements_file("r.txt", "-r nowhere.txt\ntorch\n", files({}))
    assert missing.skipped == "names nowhere.txt, which is not in the repository"


def test_install_commands_in_a_dockerfile() -> None:
    text = textwrap.dedent(
        """\
        FROM python:3.10
        RUN apt-get update && pip install --no-cache-dir torch==2.7.1 torchvision==0.22.1 \\
            --index-url https://example.invalid/whl/cu128 && rm -rf /root/.cache
        RUN pip install -r requirements.txt
        RUN pip install torch==${TORCH_VERSION}
        RUN python -m pip install -U pip setuptools
        RUN pip install -e .
        """
    )
    sets = reqsets.extract_sets("Dockerfile", text, files({"requirements.txt": "numpy\n"}))
    assert [s.label for s in sets] == ["line 2", "line 4", "line 5", "line 6"]
    assert sets[0].requirements == ("torch==2.7.1", "torchvision==0.22.1")
    assert sets[0].options == ("--index-url=https://example.invalid/whl/cu128",)
    assert sets[1].requirements == ("numpy",)
    assert sets[2].skipped and "variable" in sets[2].skipped
    assert sets[3].requirements == ("pip", "setuptools")


def test_ci_file_with_matrix_variables_is_not_checkable() -> None:
    text = "jobs:\n  t:\n    steps:\n      - run: pip install torch==${{ matrix.torch }} pytest\n      - run: uv pip install --system torch>=2.4\n"
    sets = reqsets.extract_sets(".github/workflows/ci.yml", text, files({}))
    assert sets[0].skipped and "variable" in sets[0].skipped
    assert sets[1].requirements == ("torch>=2.4",)


def test_pyproject_setupcfg_and_setuppy() -> None:
    pyproject = textwrap.dedent(
        """\
        [project]
        name = "p"
        dependencies = ["torch>=2.4", "numpy"]
        [project.optional-dependencies]
        vision = ["torchvision>=0.19"]
        [tool.poetry.dependencies]
        python = "^3.10"
        torch = "^2.4"
        local = { path = "../local" }
        """
    )
    sets = reqsets.extract_sets("pyproject.toml", pyproject, files({}))
    assert [(s.label, s.requirements) for s in sets] == [
        ("[project] dependencies", ("torch>=2.4", "numpy")),
        ("[project] dependencies + extra vision", ("torch>=2.4", "numpy", "torchvision>=0.19")),
        ("[tool.poetry.dependencies]", ("torch>=2.4,<3",)),
    ]
    cfg = "[options]\ninstall_requires =\n    torch>=2.0\n    numpy\n[options.extras_require]\ndev = pytest\n"
    sets = reqsets.extract_sets("setup.cfg", cfg, files({}))
    assert [s.requirements for s in sets] == [("torch>=2.0", "numpy"), ("torch>=2.0", "numpy", "pytest")]
    setup = "from setuptools import setup\nREQS = ['torch>=2.0', 'numpy']\nsetup(name='p', install_requires=REQS, extras_require={'x': ['scipy']})\n"
    sets = reqsets.extract_sets("setup.py", setup, files({}))
    assert [s.requirements for s in sets] == [("torch>=2.0", "numpy"), ("torch>=2.0", "numpy", "scipy")]
    computed = "from setuptools import setup\nsetup(install_requires=open('r.txt').read().split())\n"
    assert reqsets.extract_sets("setup.py", computed, files({}))[0].skipped == "computed, not a literal list"


def test_notebook_pip_cells() -> None:
    notebook = {"cells": [{"cell_type": "markdown", "source": "pip install no"}, {"cell_type": "code", "source": ["!pip install torch==2.7.1\n", "x = 1\n"]}]}
    sets = reqsets.extract_sets("nb.ipynb", json.dumps(notebook), files({}))
    assert [(s.label, s.requirements) for s in sets] == [("cell 2", ("torch==2.7.1",))]


def test_changed_sets_pairs_in_file_order() -> None:
    old = "RUN pip install torch==2.7.1\nRUN pip install numpy\n"
    new = "RUN pip install torch==2.12.0\nRUN pip install numpy\n"
    changes = reqsets.changed_sets("Dockerfile", old, new, files({}), files({}))
    assert len(changes) == 1
    assert changes[0].before and changes[0].before.requirements == ("torch==2.7.1",)
    assert changes[0].after and changes[0].after.requirements == ("torch==2.12.0",)
    assert reqsets.changed_sets("Dockerfile", old, old, files({}), files({})) == []


def test_resolve_classifies_what_pip_says() -> None:
    seen: list[list[str]] = []

    def runner(answer: tuple[int, str, str]) -> reqsets.Runner:
        def run(command: list[str], timeout: float) -> tuple[int, str, str]:
            seen.append(command)
            assert Path(command[-1]).read_text() == "torch==2.12.0\nnumpy\n"
            return answer

        return run

    reqset = ReqSet("requirements.txt", "file", ("torch==2.12.0", "numpy"), ("--index-url=https://example.invalid/simple",))
    report = json.dumps({"install": [{"metadata": {"name": "torch", "version": "2.12.0"}}, {"metadata": {"name": "numpy", "version": "2"}}]})
    ok = reqsets.resolve(reqset, runner=runner((0, report, "")))
    assert ok.status == reqsets.RESOLVES and ok.chosen == {"torch": "2.12.0"}
    command = seen[-1]
    assert command[3:9] == ["install", "--dry-run", "--ignore-installed", "--quiet", "--report", "-"]
    assert "--only-binary=:all:" in command and "--index-url=https://example.invalid/simple" in command
    conflict = "ERROR: Cannot install torch==2.12.0 and torchaudio==2.10.0\nERROR: ResolutionImpossible: for help visit …\n"
    assert reqsets.resolve(reqset, runner=runner((1, "", conflict))).status == reqsets.FAILS
    offline = "WARNING: Retrying after connection broken by 'NameResolutionError(… Name or service not known)'\n"
    assert reqsets.resolve(reqset, runner=runner((0, report, offline))).status == reqsets.UNREACHABLE
    assert reqsets.resolve(reqset, runner=runner((1, "", "ERROR: " + offline))).status == reqsets.UNREACHABLE
    # pip found no torch because the set's own index did not answer: not a resolution failure
    assert reqsets.resolve(reqset, runner=runner((1, "", offline + conflict))).status == reqsets.UNREACHABLE

    def slow(command: list[str], timeout: float) -> tuple[int, str, str]:
        raise subprocess.TimeoutExpired(command, timeout)

    assert reqsets.resolve(reqset, runner=slow).status == reqsets.TIMEOUT
    assert reqsets.resolve(ReqSet("f", "l", ("x",), skipped="uses a variable"), runner=slow).status == reqsets.SKIPPED
    assert reqsets.index_reachable(runner=lambda command, timeout: (1, "", "ERROR: " + offline)) is not None
    assert reqsets.index_reachable(runner=lambda command, timeout: (0, report, "")) is None


def test_local_paths_and_urls() -> None:
    for local in (".", "./pkg", "../x", "/abs/path", "pkg/sub", "dist/x-1.0-py3-none-any.whl", "name @ https://e.invalid/x.whl",
                  "git+https://e.invalid/r.git", "https://e.invalid/x.tar.gz", "file:///x"):
        assert reqsets.is_local_or_url(local), local
    for package in ("torch", "torch==2.7.1+cu128", "numpy>=1.26; python_version < '3.12'", "transformers[torch]>=4"):
        assert not reqsets.is_local_or_url(package), package
