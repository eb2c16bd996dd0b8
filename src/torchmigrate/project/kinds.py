"""Which project file a path is, by its name alone (no pattern compiled: discovery asks it of every file)."""

from __future__ import annotations

from pathlib import PurePath

__all__ = ["CI_FILES", "CI_GLOBS", "LOCK_FILES", "project_kind"]

CI_FILES = frozenset(
    {".gitlab-ci.yml", "azure-pipelines.yml", ".travis.yml", "bitbucket-pipelines.yml", "cloudbuild.yaml", "cloudbuild.yml"}
)
# CI files, relative to the project root, whose jobs show which torch releases a project still tests (read for its
# support floor only when it declares no torch requirement).
CI_GLOBS = (".github/workflows/*.yml", ".github/workflows/*.yaml", ".gitlab-ci.yml", ".circleci/config.yml",
            "azure-pipelines.yml", ".travis.yml")
LOCK_FILES = frozenset({"poetry.lock", "pdm.lock", "uv.lock", "pipfile.lock", "pixi.lock", "conda-lock.yml", "conda-lock.yaml"})


def project_kind(path: PurePath) -> str | None:
    """Which kind of project file ``path`` is (``requirements``, ``conda``, ``pyproject``, ``setupcfg``, ``setuppy``,
    ``dockerfile``, ``ci``, ``lock``, ``shell``), or ``None`` for any other file. Shell scripts (``*.sh``) are read like
    Dockerfiles (their ``pip install`` commands) but do not set ``--from``."""
    name = path.name.lower()
    parent = path.parent.name.lower()
    if name.endswith(".txt") and (name.startswith(("requirements", "constraints")) or parent == "requirements"):
        return "requirements"
    if name in LOCK_FILES or name.endswith((".conda-lock.yml", ".conda-lock.yaml")):
        return "lock"
    if name in ("environment.yml", "environment.yaml") or (name.startswith("environment") and name.endswith((".yml", ".yaml"))):
        return "conda"
    if name == "pyproject.toml":
        return "pyproject"
    if name == "setup.cfg":
        return "setupcfg"
    if name == "setup.py":
        return "setuppy"
    if name in ("dockerfile", "containerfile") or name.startswith("dockerfile.") or name.endswith(".dockerfile"):
        return "dockerfile"
    if name.endswith(".sh"):
        return "shell"
    if name.endswith((".yml", ".yaml")):
        parts = [p.lower() for p in path.parts]
        in_workflows = len(parts) >= 3 and parts[-3] == ".github" and parts[-2] == "workflows"
        if in_workflows or name in CI_FILES or (parent == ".circleci" and name == "config.yml"):
            return "ci"
    return None
