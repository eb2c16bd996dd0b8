"""Edited lines stay within the project's line length, split as black splits them (each expected text below is what
black 26 prints for the migrated code at that line length)."""

from __future__ import annotations

import pytest

from torchmigrate.api import make_options
from torchmigrate.core.registry import Layout
from torchmigrate.python.engine import migrate_text

HEAD = "import torch\nimport torch.utils.checkpoint\n\n\ndef f():\n"


def migrate(body: str, layout: Layout, select: tuple[str, ...] = ("checkpoint-reentrant", "torch-load-weights-only")) -> str:
    result = migrate_text(HEAD + body, make_options("2.13", select=select).passes(), layout=layout)
    assert result.error is None, result.error
    code = result.code
    assert code.startswith(HEAD)
    again = migrate_text(code, make_options("2.13", select=select).passes(), layout=layout)
    assert again.code == code  # a second run changes nothing
    return code[len(HEAD) :]


BLACK_88 = Layout(88, "black")


@pytest.mark.parametrize(
    ("body", "after"),
    [
        # the arguments fit on one line under the call
        (
            "    y = torch.utils.checkpoint.checkpoint(self.block, hidden_states, attention_mask)\n",
            "    y = torch.utils.checkpoint.checkpoint(\n        self.block, hidden_states, attention_mask, use_reentrant=True\n    )\n",
        ),
        # they do not: one per line, with a trailing comma
        (
            "    y = torch.utils.checkpoint.checkpoint(self.block, hidden_states, attention_mask, position_ids, rotary)\n",
            "    y = torch.utils.checkpoint.checkpoint(\n        self.block,\n        hidden_states,\n        attention_mask,\n"
            "        position_ids,\n        rotary,\n        use_reentrant=True,\n    )\n",
        ),
        # a lone argument that is a call is split one level deeper
        (
            "    model.load_state_dict(torch.load(os.path.join(self.checkpoint_dir, 'best_weights.pt')))\n",
            "    model.load_state_dict(\n        torch.load(\n            os.path.join(self.checkpoint_dir, 'best_weights.pt'), weights_only=True\n"
            "        )\n    )\n",
        ),
        # a call split as `f(\n    a, b\n)` whose argument line grew too long: one argument per line
        (
            "    model.load_state_dict(\n        torch.load(os.path.join(output_directory, 'pytorch_model.bin'), map_location='cpu')\n    )\n",
            "    model.load_state_dict(\n        torch.load(\n            os.path.join(output_directory, 'pytorch_model.bin'),\n"
            "            map_location='cpu',\n            weights_only=True,\n        )\n    )\n",
        ),
        # within the limit: nothing moves
        ("    y = torch.utils.checkpoint.checkpoint(block, x)\n", "    y = torch.utils.checkpoint.checkpoint(block, x, use_reentrant=True)\n"),
    ],
)
def test_a_line_the_edit_made_too_long_is_split_as_black_splits_it(body: str, after: str) -> None:
    assert migrate(body, BLACK_88) == after
    assert migrate(body, Layout(88, None)) == after  # the same split serves flake8-only projects


@pytest.mark.parametrize(
    "body",
    [
        # a trailing comment: black would move it; the line stays long instead
        "    y = torch.utils.checkpoint.checkpoint(self.block, hidden_states, attention_mask)  # recompute\n",
        # a method chain: black splits at its dots, this tool does not guess that layout
        "    y = layer(x).block.checkpoint_fn(torch.utils.checkpoint.checkpoint(self.block, hidden_states, mask))\n",
    ],
)
def test_a_line_that_cannot_be_split_as_black_would_stays_long(body: str) -> None:
    out = migrate(body, BLACK_88)
    assert out.count("\n") == body.count("\n") and "use_reentrant=True" in out


def test_without_a_configured_line_length_nothing_is_split() -> None:
    body = "    y = torch.utils.checkpoint.checkpoint(self.block, hidden_states, attention_mask)\n"
    assert migrate(body, Layout()) == body.replace("attention_mask)", "attention_mask, use_reentrant=True)")


def test_long_lines_the_edit_did_not_touch_are_left_alone() -> None:
    body = (
        "    z = some_function_with_a_long_name(argument_number_one, argument_number_two, argument_three)\n"
        "    y = torch.utils.checkpoint.checkpoint(block, x)\n"
    )
    assert migrate(body, BLACK_88).startswith(body.splitlines(keepends=True)[0])


LR = ("lr-verbose",)


def test_with_a_formatter_a_statement_that_fits_again_is_joined() -> None:
    body = (
        "    scheduler = torch.optim.lr_scheduler.StepLR(\n"
        "        optimizer, step_size=args.step_size, gamma=args.gamma, verbose=True\n"
        "    )\n"
    )
    joined = "    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=args.step_size, gamma=args.gamma)\n"
    assert migrate(body, Layout(110, "black"), LR) == joined
    # no formatter: the project keeps the lines it wrote
    assert migrate(body, Layout(110, None), LR) == body.replace(", verbose=True", "")
    # a magic trailing comma or a comment keeps black's split, so it stays
    magic = "    scheduler = torch.optim.lr_scheduler.StepLR(\n        optimizer,\n        gamma=0.1,\n        verbose=True,\n    )\n"
    assert migrate(magic, Layout(110, "black"), LR) == magic.replace("        verbose=True,\n", "")
    commented = body.replace("optimizer, ", "optimizer,  # the model's\n        ")
    assert migrate(commented, Layout(110, "black"), LR) == commented.replace(", verbose=True", "")


def test_a_with_header_and_a_list_argument_are_split_as_black_splits_them() -> None:
    body = "    with torch.backends.cuda.sdp_kernel(enable_flash=False):\n        return sdpa(q, k, v)\n"
    after = (
        "    with torch.nn.attention.sdpa_kernel(\n"
        "        [\n"
        "            torch.nn.attention.SDPBackend.EFFICIENT_ATTENTION,\n"
        "            torch.nn.attention.SDPBackend.MATH,\n"
        "            torch.nn.attention.SDPBackend.CUDNN_ATTENTION,\n"
        "        ]\n"
        "    ):\n"
        "        return sdpa(q, k, v)\n"
    )
    assert migrate(body, BLACK_88, ("sdp-kernel",)) == after


def test_a_conditional_expression_is_split_in_parentheses_of_its_own() -> None:
    head = "import torch\nfrom torch.cuda.amp import GradScaler as TorchGradScaler\n\n\ndef train(args):\n"
    line = "    scaler = (TorchGradScaler() if args.optim_type == OptimType.vanilla else ShardedGradScaler()) if args.amp else None\n"
    passes = make_options("2.13", select=["amp-namespace"]).passes()
    out = migrate_text(head + line, passes, layout=Layout(88, "black")).code
    assert out.split("def train(args):\n")[1] == (
        "    scaler = (\n"
        "        (\n"
        '            torch.amp.GradScaler("cuda")\n'
        "            if args.optim_type == OptimType.vanilla\n"
        "            else ShardedGradScaler()\n"
        "        )\n"
        "        if args.amp\n"
        "        else None\n"
        "    )\n"
    )
    wide = migrate_text(head + line, passes, layout=Layout(120, "black")).code
    assert wide.split("def train(args):\n")[1] == (
        "    scaler = (\n"
        '        (torch.amp.GradScaler("cuda") if args.optim_type == OptimType.vanilla else ShardedGradScaler())\n'
        "        if args.amp\n"
        "        else None\n"
        "    )\n"
    )
