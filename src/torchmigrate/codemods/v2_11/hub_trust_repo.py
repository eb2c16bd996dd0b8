"""`torch.hub` asks before running code from an untrusted repository since PyTorch 2.11.

## What it does
Reports (no edit) `torch.hub.load`, `torch.hub.list` and `torch.hub.help` calls on GitHub repositories that pass no
`trust_repo`, or pass `trust_repo=None`.

## Why
2.11 changed the default of `trust_repo` from `None` to `"check"` and removed the `None` option
(pytorch/pytorch#174101). With `"check"`, a repository that is not on the trusted list makes the call stop at an
interactive `input()` prompt — a batch job or a CI run hangs or fails there — where 2.10 downloaded it with a warning.

## Fix safety
Finding only: trusting a repository means running its code, a decision the tool never makes for you. Pass
`trust_repo=True` for a repository you trust, keep `"check"` for interactive use, or add it to the trusted list once.
`source="local"` loads are not checked and not reported, nor are repositories of the owners torch trusts itself
(`facebookresearch`, `facebookincubator`, `pytorch`, `fairinternal`: `_TRUSTED_REPO_OWNERS` in torch 2.13's
`torch/hub.py`), for which no prompt happens.
"""

from __future__ import annotations

import libcst as cst

from torchmigrate.core.passes import BEHAVIOUR, REVIEW, Example, Pass
from torchmigrate.python.helpers import arg, has_star_args, kwarg
from torchmigrate.python.transform import CallContext

PASS = Pass(
    id="hub-trust-repo",
    release="2.11",
    since="1.8",
    kind=BEHAVIOUR,
    safety=REVIEW,
    title="torch.hub.load/list/help without trust_repo now prompts (finding)",
    evidence=(
        "PyTorch 2.11 release notes, Backwards Incompatible Changes / Python Frontend (pytorch/pytorch#174101); "
        "trusted owners: torch 2.13.0 torch/hub.py:82 (_TRUSTED_REPO_OWNERS), checked in _check_repo_is_trusted; "
        "finding only: emits no new form"
    ),
    triggers=("hub",),
    examples=[
        Example(before="""
            import torch

            model = torch.hub.load("owner/repo", "resnet18")
        """, findings=1),
        Example(
            title="explicit None, from-import alias",
            before="""
                from torch.hub import load as hub_load

                m = hub_load("owner/repo", "net", trust_repo=None)
            """,
            findings=1,
        ),
        Example(
            title="repositories of the owners torch trusts itself (torch/hub.py) never prompt",
            before="""
                import torch

                dino = torch.hub.load("facebookresearch/dinov2", "dinov2_vits14")
                names = torch.hub.list("pytorch/vision:v0.17.0")
            """,
        ),
        Example(
            title="explicit trust or a local source is fine",
            before="""
                import torch

                a = torch.hub.load("owner/repo", "net", trust_repo=True)
                b = torch.hub.load("./checkout", "net", source="local")
                c = torch.hub.list("owner/repo", trust_repo="check")
                d = torch.hub.list("owner/repo", False, False, True)
            """,
        ),
    ],
)


# torch 2.13.0 torch/hub.py:82 `_TRUSTED_REPO_OWNERS`: `_check_repo_is_trusted` (hub.py:350) counts every repository of
# these owners as trusted, so `trust_repo="check"` never prompts for them.
TRUSTED_OWNERS = frozenset({"facebookresearch", "facebookincubator", "pytorch", "fairinternal"})


def _owner(node: cst.BaseExpression) -> str | None:
    """The owner of a ``"owner/name[:ref]"`` string literal."""
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        if isinstance(value, str) and "/" in value:
            return value.split("/", 1)[0]
    return None


@PASS.rewrites_calls("torch.hub.load", "torch.hub.list", "torch.hub.help")
def report(call: cst.Call, ctx: CallContext) -> None:
    original = ctx.original
    source = kwarg(original, "source")
    if source is not None and isinstance(source.value, cst.SimpleString) and source.value.evaluated_value == "local":
        return None
    # list(github, force_reload, skip_validation, trust_repo) and help(github, model, force_reload, skip_validation,
    # trust_repo) also take it by position; load takes it by keyword only (it has *args).
    position = {"torch.hub.list": 3, "torch.hub.help": 4}.get(ctx.qualname)
    trust = arg(original, position, "trust_repo") if position is not None else kwarg(original, "trust_repo")
    if trust is None and has_star_args(original):
        return None  # it may be among **kwargs: nothing certain to say
    repo = arg(original, 0, "github" if position is not None else "repo_or_dir")
    owner = _owner(repo.value) if repo is not None else None
    if owner in TRUSTED_OWNERS:
        return None  # torch trusts these owners itself: no prompt happens
    if trust is None or (isinstance(trust.value, cst.Name) and trust.value.value == "None"):
        name = ctx.qualname.rsplit(".", 1)[-1]
        ctx.finding(
            f'since 2.11 torch.hub.{name} defaults to trust_repo="check" and prompts (input()) for repositories not '
            "on the trusted list; trust_repo=None was removed. Pass trust_repo=True for a repository you trust, or "
            'keep "check" for interactive use'
        )
    return None
