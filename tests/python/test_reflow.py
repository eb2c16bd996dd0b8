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


# --- the layout model (python/linesplit) against the formatters' own output ----------------------------------------

import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import textwrap  # noqa: E402
from pathlib import Path  # noqa: E402

from torchmigrate.python.linesplit import split_statement  # noqa: E402

# (statement, its column, line length, formatter, the lines black and ruff format print; None: the model refuses)
SPLITS = [
    # a binary operator between two calls: black splits at the last bracket that leaves a first line that fits
    (
        "ratio = torch.linalg.vector_norm(left - right) / torch.linalg.vector_norm(left)",
        8, 72, "ruff",
        ["ratio = torch.linalg.vector_norm(", "    left - right", ") / torch.linalg.vector_norm(left)"],
    ),
    # the last bracket is a parenthesized sum: its content on a line of its own
    (
        "scaled = value / (torch.linalg.vector_norm(value, dim=-1, keepdim=True) + eps)",
        8, 76, "ruff",
        ["scaled = value / (", "    torch.linalg.vector_norm(value, dim=-1, keepdim=True) + eps", ")"],
    ),
    # a method chain: the optional parentheses, one call per line
    (
        "weights = torch.cat([first, second, third, fourth], dim=1).permute(1, 0).detach()",
        8, 80, "black",
        ["weights = (", "    torch.cat([first, second, third, fourth], dim=1)", "    .permute(1, 0)", "    .detach()", ")"],
    ),
    # a statement that fits once the edit shortened it is joined
    ("weights = torch.cat(\n    [first, second], dim=1\n).detach()", 8, 80, "ruff", ["weights = torch.cat([first, second], dim=1).detach()"]),
    # a line of a condition split over lines: split again at its comparison
    (
        "if (\n    shard is None\n    or shard.untyped_storage().data_ptr() != buffer.untyped_storage().data_ptr()\n):",
        16, 90, "ruff",
        ["if (", "    shard is None", "    or shard.untyped_storage().data_ptr()", "    != buffer.untyped_storage().data_ptr()", "):"],
    ),
    # an elif condition gets the optional parentheses
    (
        "elif torch.linalg.vector_norm(left - right) > tolerance and not torch.is_grad_enabled():",
        8, 72, "black",
        ["elif (", "    torch.linalg.vector_norm(left - right) > tolerance", "    and not torch.is_grad_enabled()", "):"],
    ),
    # a from-import always explodes, one name per line with a trailing comma
    (
        "from torch.distributed.checkpoint.default_planner import DefaultLoadPlanner, DefaultSavePlanner",
        0, 88, "ruff",
        ["from torch.distributed.checkpoint.default_planner import (", "    DefaultLoadPlanner,", "    DefaultSavePlanner,", ")"],
    ),
    # a trailer after the call stays on the closing line
    (
        "self.backbone = models.vgg19(weights=models.VGG19_Weights.IMAGENET1K_V1).features",
        8, 79, None,
        ["self.backbone = models.vgg19(", "    weights=models.VGG19_Weights.IMAGENET1K_V1", ").features"],
    ),
    # return of a tuple, an augmented assignment
    (
        "return torch.linalg.vector_norm(left - right), torch.linalg.vector_norm(left)",
        4, 60, "black",
        ["return torch.linalg.vector_norm(", "    left - right", "), torch.linalg.vector_norm(left)"],
    ),
    (
        "total += torch.linalg.vector_norm(left - right, dim=-1) * weight_for_this_term",
        8, 70, "ruff",
        ["total += (", "    torch.linalg.vector_norm(left - right, dim=-1)", "    * weight_for_this_term", ")"],
    ),
    # a magic trailing comma keeps its split
    ("run(\n    first,\n    second,\n)", 4, 88, "black", ["run(", "    first,", "    second,", ")"]),
    # a conditional expression (black parenthesizes it; ruff lays some out otherwise: refused)
    (
        "scale = torch.linalg.vector_norm(x) if normalise_the_input else torch.ones_like(x)",
        4, 60, "black",
        ["scale = (", "    torch.linalg.vector_norm(x)", "    if normalise_the_input", "    else torch.ones_like(x)", ")"],
    ),
    ("scale = torch.linalg.vector_norm(x) if normalise_the_input else torch.ones_like(x)", 4, 60, "ruff", None),
    # an assert with a message: black and ruff disagree; black's layout, ruff's refused
    (
        'assert value.dim() == 2, "expected a batch of two-dimensional samples here"',
        4, 60, "black",
        ["assert (", "    value.dim() == 2", '), "expected a batch of two-dimensional samples here"'],
    ),
    ('assert value.dim() == 2, "expected a batch of two-dimensional samples here"', 4, 60, "ruff", None),
    # black adds a trailing comma after *args only for the target versions it infers: refused
    ("result = some_function_name(first_argument, second_argument, *more_arguments_here)", 4, 60, "black", None),
    (
        "result = some_function_name(first_argument, second_argument, *more_arguments_here)",
        4, 60, "ruff",
        ["result = some_function_name(", "    first_argument,", "    second_argument,", "    *more_arguments_here,", ")"],
    ),
]


@pytest.mark.parametrize(("text", "indent", "length", "formatter", "expected"), SPLITS)
def test_a_statement_is_laid_out_as_the_formatter_lays_it_out(
    text: str, indent: int, length: int, formatter: str | None, expected: list[str] | None
) -> None:
    assert split_statement(text, indent, length, formatter) == expected
    if expected is not None:  # the layout is stable
        assert split_statement("\n".join(expected), indent, length, formatter) == expected


def _in_blocks(lines: list[str], indent: int) -> str:
    """The statement at its column, inside enough `if` blocks to get there (an `if`/`elif` header gets a body)."""
    text = "\n".join(lines)
    if text.startswith("elif"):
        text = "if x:\n    pass\n" + text + "\n    pass"
    elif text.startswith("if"):
        text += "\n    pass"
    for _ in range(indent // 4):
        text = "if x:\n" + textwrap.indent(text, "    ")
    return text + "\n"


def _format(formatter: str, code: str, length: int) -> str:
    if formatter == "black":
        black = pytest.importorskip("black")
        return str(black.format_str(code, mode=black.Mode(line_length=length)))
    exe = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
    if not Path(exe).exists():
        pytest.skip("ruff is not installed")
    proc = subprocess.run([exe, "format", "--isolated", "--line-length", str(length), "-"], input=code, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize(("text", "indent", "length", "formatter", "expected"), [s for s in SPLITS if s[4] is not None])
def test_the_expected_layouts_are_the_formatters_own(
    text: str, indent: int, length: int, formatter: str | None, expected: list[str]
) -> None:
    """Each expectation above is what black (and ruff format, unless the case is black's only) prints."""
    code = _in_blocks(expected, indent)
    for tool in ("black", "ruff") if formatter is None else (formatter,):
        assert _format(tool, code, length) == code


@pytest.mark.parametrize(
    "text",
    [
        "y = f(aaaa, bbbb)  # a comment black would move",
        "y = f(\n    aaaa,  # a comment inside\n    bbbb,\n)",
        'y = f("""a\nmulti-line string""", bbbb)',
        "y = z = f(aaaa, bbbb, cccc, dddd)",
        "y = f(aaaa, \\\n    bbbb)",
        '"""a docstring"""',
    ],
)
def test_what_the_model_cannot_be_sure_of_is_refused(text: str) -> None:
    assert split_statement(text, 0, 10, "black") is None


def test_an_edited_binary_expression_is_split_as_ruff_format_splits_it() -> None:
    body = "    loss = torch.norm(y_M - y_hat_M, p='fro') / torch.norm(y_M, p='fro')\n"
    out = migrate(body, Layout(72, "ruff"), ("torch-norm",))
    assert out == "    loss = torch.linalg.vector_norm(\n        y_M - y_hat_M\n    ) / torch.linalg.vector_norm(y_M)\n"


def test_a_statement_the_edit_shortened_is_laid_out_again() -> None:
    head = "import torch\nfrom torch.autograd import Variable\n\n\ndef f(a, b, c, d):\n"
    body = (
        "    kernels = Variable(\n"
        "        torch.cat([a, b, c, d], dim=1).permute(1, 0),\n"
        "        requires_grad=False,\n"
        "    )\n"
    )
    passes = make_options("2.13", select=["autograd-variable"]).passes()
    out = migrate_text(head + body, passes, layout=Layout(60, "ruff")).code
    assert out.endswith(
        "    kernels = (\n        torch.cat([a, b, c, d], dim=1)\n        .permute(1, 0)\n        .detach()\n    )\n"
    )
    wide = migrate_text(head + body, passes, layout=Layout(88, "ruff")).code
    assert wide.endswith("    kernels = torch.cat([a, b, c, d], dim=1).permute(1, 0).detach()\n")


def test_a_line_of_a_multi_line_condition_is_split_within_it() -> None:
    body = (
        "    if (\n"
        "        shard is None\n"
        "        or shard.storage().data_ptr() != grad_buffer.storage().data_ptr()\n"
        "    ):\n"
        "        return 1\n"
    )
    out = migrate(body, Layout(76, "ruff"), ("tensor-storage",))
    assert out == (
        "    if (\n"
        "        shard is None\n"
        "        or shard.untyped_storage().data_ptr()\n"
        "        != grad_buffer.untyped_storage().data_ptr()\n"
        "    ):\n"
        "        return 1\n"
    )


def test_a_call_with_a_trailer_is_split_before_the_trailer_without_a_formatter() -> None:
    head = "from torchvision import models\n\n\nclass Net:\n    def __init__(self):\n"
    line = "        self.vgg = models.vgg19(pretrained=True).features\n"
    passes = make_options("2.13", select=["torchvision-pretrained"]).passes()
    out = migrate_text(head + line, passes, layout=Layout(79, None)).code
    assert out.endswith("        self.vgg = models.vgg19(\n            weights=models.VGG19_Weights.IMAGENET1K_V1\n        ).features\n")

