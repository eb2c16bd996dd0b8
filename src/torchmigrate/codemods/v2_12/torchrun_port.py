"""Single-node `torchrun` no longer listens on port 29500 by default from PyTorch 2.12.

## What it does
Reports (a finding, no edit) a `torchrun` command built in Python — a list such as `["torchrun",
"--nproc-per-node=4", "train.py"]`, a command string, `python -m torch.distributed.run …`, or
`torch.distributed.run.main([...])` — that is single-node (no `--nnodes`, or `--nnodes=1`) and picks no port
(no `--master-port`, `--standalone`, `--rdzv-endpoint` or `--rdzv-backend`, in either spelling), **when the same file
mentions port 29500** (a literal `29500` or a string containing it): that file assumes the port torchrun used to
listen on. Without such a mention nothing is reported, so ordinary launchers are left in peace.

Not reported, on purpose: `os.environ.get("MASTER_PORT", "29500")` inside a training script. torchrun still exports
`MASTER_PORT` (the port it actually chose) to every worker, so such defaults keep working.

## Why
PyTorch 2.12: "`torchrun` now defaults to an OS-assigned free port for single-node training instead of port 29500"
— single-node runs without `--master-port`, `--standalone` or a rendezvous endpoint switch to the `c10d`
rendezvous on `localhost:0` (2.12 release notes, Backwards Incompatible Changes, TorchElastic;
pytorch/pytorch#175699). Checked in `torch/distributed/run.py` of torch 2.13.0. Multi-node runs, an explicit
`--master-port`, `PET_MASTER_PORT` and `--standalone` are unchanged.

## Fix safety
No automatic fix: add `--master-port=29500` to the command only if something really connects to that port;
otherwise drop the assumption and read `MASTER_ADDR`/`MASTER_PORT` from the environment in the workers.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

import libcst as cst

from torchmigrate.core.passes import BEHAVIOUR, REVIEW, Example, Pass
from torchmigrate.python.helpers import arg
from torchmigrate.python.precheck import all_nodes
from torchmigrate.python.sites import SitePlan
from torchmigrate.python.transform import PassTransformer, Sink

if TYPE_CHECKING:
    from torchmigrate.python.codemod import PassContext

PASS = Pass(
    sliceable=False,  # whether a torchrun launch needs a finding depends on a MASTER_PORT set anywhere in the file
    id="torchrun-port",
    release="2.12",
    since="1.8",
    kind=BEHAVIOUR,
    safety=REVIEW,
    title="single-node torchrun no longer uses port 29500 → finding where a launcher assumes it",
    evidence=(
        "PyTorch 2.12 release notes, Backwards Incompatible Changes, TorchElastic (pytorch/pytorch#175699)"
        "; finding only: emits no new form"
    ),
    triggers=("29500",),
    examples=[
        Example(
            title="launcher list and a client that expects 29500",
            before="""
                import subprocess
                import torch.distributed as dist

                subprocess.run(["torchrun", "--nproc-per-node=4", "train.py"], check=True)
                store = dist.TCPStore("localhost", 29500, is_master=False)
            """,
            findings=1,
        ),
        Example(
            title="command string and python -m torch.distributed.run, MASTER_PORT set to 29500",
            before="""
                import os

                os.environ["MASTER_PORT"] = "29500"
                os.system(f"torchrun --nproc_per_node {n} train.py")
                cmd = ["python", "-m", "torch.distributed.run", "--nproc-per-node", "2", "train.py"]
            """,
            findings=2,
        ),
        Example(
            title="programmatic torch.distributed.run.main",
            before="""
                from torch.distributed.run import main

                PORT = 29500
                main(["--nproc-per-node=2", "train.py"])
            """,
            findings=1,
        ),
        Example(
            title="fine: an explicit port, --standalone, multi-node, no 29500 in the file",
            before="""
                import subprocess

                PORT = 29500
                subprocess.run(["torchrun", "--master-port=29500", "--nproc-per-node=4", "train.py"])
                subprocess.run(["torchrun", "--standalone", "--nproc-per-node=4", "train.py"])
                subprocess.run("torchrun --nnodes=2 --nproc-per-node=4 train.py", shell=True)
                print("launch torchrun later")
            """,
        ),
        Example(
            title="fine: a worker reading MASTER_PORT with a 29500 default, no launcher",
            before="""
                import os

                port = int(os.environ.get("MASTER_PORT", "29500"))
            """,
        ),
    ],
)

MESSAGE = (
    "single-node torchrun without --master-port: from 2.12 it listens on an OS-assigned free port, not 29500, which "
    "this file still mentions. Add --master-port=29500 if something connects to that port, or read MASTER_PORT from "
    "the environment"
)
_PORT_FLAGS = re.compile(r"--(?:master[-_]port|standalone|rdzv[-_]endpoint|rdzv[-_]backend)\b")
_NNODES = re.compile(r"--nnodes(?:=|\s+)['\"]?([^\s'\"]+)")
# `torchrun` as the command word (after env assignments, a path, `&&`/`;`), or `python -m torch.distributed.run`.
_TORCHRUN = re.compile(r"(?:^|&&|;|\|)\s*(?:\w+=\S*\s+)*(?:\S*/)?torchrun(?:\s|$)|-m\s+torch\.distributed\.(?:run|launch)\b")
_RUN_MAIN = ("torch.distributed.run.main", "torch.distributed.launch.main", "torch.distributed.run.run")


def _string_value(node: cst.BaseExpression) -> str | None:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    if isinstance(node, cst.FormattedString):
        return "".join(part.value if isinstance(part, cst.FormattedStringText) else "{?}" for part in node.parts)
    if isinstance(node, cst.ConcatenatedString):
        left, right = _string_value(node.left), _string_value(node.right)
        return None if left is None or right is None else left + right
    return None


def _single_node_without_port(command: str) -> bool:
    if _PORT_FLAGS.search(command):
        return False
    nnodes = _NNODES.search(command)
    return nnodes is None or nnodes.group(1) in ("1", "1:1")


class _Mentions29500(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_Integer(self, node: cst.Integer) -> None:
        if node.value == "29500":
            self.found = True

    def visit_SimpleString(self, node: cst.SimpleString) -> None:
        if "29500" in node.value:
            self.found = True

    def visit_FormattedStringText(self, node: cst.FormattedStringText) -> None:
        if "29500" in node.value:
            self.found = True


@PASS.uses
class TorchrunPortTransformer(PassTransformer):

    def __init__(self, context: PassContext, pass_: Pass, sink: Sink) -> None:
        super().__init__(context, pass_, sink)
        self.active = False
        self.inside_command = 0
        self.launcher_calls: set[int] = set()

    def visit_Module(self, node: cst.Module) -> bool:
        mentions = _Mentions29500()
        node.visit(mentions)
        self.active = mentions.found
        return self.active

    def _list_command(self, node: cst.List | cst.Tuple, launcher: bool = False) -> str | None:
        parts = []
        for element in node.elements:
            if isinstance(element, cst.StarredElement):
                return None  # more arguments come from elsewhere
            value = _string_value(element.value)
            parts.append(value if value is not None else "{?}")
        command = " ".join(parts)
        if not launcher and not _TORCHRUN.search(command):
            return None
        return command

    def _check_sequence(self, node: cst.List | cst.Tuple, launcher: bool = False) -> bool:
        command = self._list_command(node, launcher)
        if command is None:
            return False
        if _single_node_without_port(command):
            self.finding(node, MESSAGE)
        return True

    def visit_Call(self, node: cst.Call) -> bool:
        if self.qualname(node.func) in _RUN_MAIN:
            first = arg(node, 0, "args")
            if first is not None and isinstance(first.value, (cst.List, cst.Tuple)):
                self._check_sequence(first.value, launcher=True)
                self.inside_command += 1
                self.launcher_calls.add(id(node))
        return True

    def leave_Call(self, original_node: cst.Call, updated_node: cst.Call) -> cst.BaseExpression:
        if id(original_node) in self.launcher_calls:
            self.inside_command -= 1
        return updated_node

    def visit_List(self, node: cst.List) -> bool:
        return self.inside_command > 0 or not self._check_sequence(node)

    def visit_Tuple(self, node: cst.Tuple) -> bool:
        return self.inside_command > 0 or not self._check_sequence(node)

    def _check_string(self, node: cst.BaseExpression) -> bool:
        if self.inside_command:
            return False
        command = _string_value(node)
        if command is None or " " not in command.strip() or not _TORCHRUN.search(command):
            return True
        if _single_node_without_port(command):
            self.finding(node, MESSAGE)
        return False

    def visit_SimpleString(self, node: cst.SimpleString) -> bool:
        return self._check_string(node)

    def visit_FormattedString(self, node: cst.FormattedString) -> bool:
        return self._check_string(node)

    def visit_ConcatenatedString(self, node: cst.ConcatenatedString) -> bool:
        return self._check_string(node)


def _may_launch(text: str, tree: ast.Module) -> bool:
    """Whether the transformer can find a command in ``text``: each it reports spells ``torchrun`` or
    ``torch.distributed.run`` / ``.launch`` in a string (its value, or the raw text of an f-string's literal part), or
    calls ``torch.distributed.run.main`` / ``launch.main`` / ``run.run``, which an import or the call spells as
    ``distributed``. Neither word in the text nor in a string's value: nothing to report."""
    if "torchrun" in text or "distributed" in text:
        return True
    return any(
        type(node) is ast.Constant and type(node.value) is str and ("torchrun" in node.value or "distributed" in node.value)
        for node in all_nodes(tree)
    )


def _analyse(text: str, tree: ast.Module) -> SitePlan:
    """A bound from the text and the stdlib ast (:func:`_may_launch`): a file that mentions port 29500 but builds no
    torchrun command (a ``MASTER_PORT`` default, a docstring) is settled without libcst."""
    return SitePlan((), _may_launch(text, tree))


PASS.analyse = _analyse
