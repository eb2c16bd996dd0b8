"""`python -m torch.distributed.launch` is deprecated: launch with `torchrun`, which passes the rank in `LOCAL_RANK`.

## What it does
A finding (no edit) for each `-m torch.distributed.launch` command in shell scripts (`*.sh`), Dockerfiles, CI files
(`.github/workflows/*.yml`, `.gitlab-ci.yml`, …) and notebook `!` lines, with the `torchrun` command to use instead:
- with `--use-env` / `--use_env`, the script already reads `LOCAL_RANK`: `torchrun` with the same launcher arguments,
  without that flag (torchrun always behaves so);
- without it, the launcher passed `--local-rank=N` (`--local_rank` before 2.0) to the script; `torchrun` passes
  nothing and sets `LOCAL_RANK` (and `RANK`, `WORLD_SIZE`, …) in the environment, so the script must read
  `int(os.environ["LOCAL_RANK"])`.
Commented-out lines are skipped; `# migrate: ignore` on the line silences it.

## Why
`torchrun` (`python -m torch.distributed.run`) replaced the launcher in PyTorch 1.10; on torch 2.13 `main()` is
`@deprecated("The module torch.distributed.launch is deprecated and will be removed in future. Use torchrun. …",
category=FutureWarning)` (torch/distributed/launch.py).

## Fix safety
Finding only: whether the launched script reads its rank from the command line or the environment is in the script,
not in the command; a script that declares `--local_rank` in argparse needs its own change.
"""

from __future__ import annotations

import re

from torchmigrate.core.passes import PROJECT, SAFE, Example, Pass
from torchmigrate.project.context import ProjectContext, logical_line

_LAUNCH_RE = re.compile(r"-m\s+torch\.distributed\.launch\b(?P<args>[^\n]*)")
_USE_ENV_RE = re.compile(r"\s--use[-_]env(?:=\S+)?")
_KINDS = frozenset({"shell", "dockerfile", "ci"})


def report_launch(text: str, ctx: ProjectContext) -> str:
    if ctx.kind not in _KINDS:
        return text
    for match in _LAUNCH_RE.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        if text[line_start : match.start()].lstrip().startswith("#"):
            continue  # a commented-out command
        command = logical_line(text, match.start())
        if _USE_ENV_RE.search(command):
            advice = "replace `python -m torch.distributed.launch` with `torchrun` and drop --use-env (torchrun always sets LOCAL_RANK)"
        else:
            advice = (
                "replace `python -m torch.distributed.launch` with `torchrun`; torchrun does not pass --local-rank to the "
                'script but sets LOCAL_RANK in its environment: read int(os.environ["LOCAL_RANK"]) there'
            )
        ctx.finding(match.start(), f"torch.distributed.launch is deprecated (FutureWarning on torch 2.13): {advice}")
    return text


PASS = Pass(
    id="distributed-launch",
    release="1.10",
    safety=SAFE,
    files=PROJECT,
    title="python -m torch.distributed.launch in scripts, Dockerfiles and CI → torchrun + LOCAL_RANK (finding)",
    evidence="torchrun added in PyTorch 1.10; torch 2.13 torch/distributed/launch.py main() is @deprecated(..., category=FutureWarning)",
    triggers=("torch.distributed.launch",),
    project_rewrite=report_launch,
    examples=[
        Example(
            path="scripts/train.sh",
            to="2.12",
            before="""
                #!/bin/bash
                python -m torch.distributed.launch --nproc_per_node=8 --master_port=29501 train.py --cfg $CFG
            """,
            findings=1,
        ),
        Example(
            path="Dockerfile",
            to="2.12",
            title="--use_env already: the same launcher arguments work with torchrun",
            before="""
                FROM pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime
                CMD python3 -m torch.distributed.launch --use_env --nproc_per_node 2 \\
                    main.py
            """,
            findings=1,
        ),
        Example(
            path=".github/workflows/test.yml",
            to="2.12",
            before="""
                jobs:
                  test:
                    steps:
                      - run: python -m torch.distributed.launch --nproc_per_node=2 tests/dist_test.py
            """,
            findings=1,
        ),
        Example(
            path="run.sh",
            to="2.12",
            title="torchrun already, a commented-out command, a suppressed line",
            before="""
                torchrun --nproc_per_node=8 train.py
                # python -m torch.distributed.launch --nproc_per_node=8 train.py
                python -m torch.distributed.launch train.py  # migrate: ignore
            """,
        ),
    ],
)
