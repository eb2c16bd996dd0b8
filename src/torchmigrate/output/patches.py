"""``--diff --split-by-pass DIR``: one patch per pass, in release order, that apply one after the other with ``git apply``.

Each patch starts with a few lines naming the pass (number, id, release, safety, title) and the files it changes;
``git apply`` skips text before the first diff. The diffs are those of :mod:`torchmigrate.output.diffs`, between the
consecutive steps of :mod:`torchmigrate.run.perpass`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from torchmigrate.core.registry import all_passes, get_pass
from torchmigrate.core.results import FileResult
from torchmigrate.output.diffs import diff_bytes
from torchmigrate.run.perpass import SplitFile, describe, edits_text, passes_in_order

__all__ = ["check_folder", "write_patches"]


def check_folder(folder: Path) -> str | None:
    """Why ``folder`` cannot take the patches (it holds files, so an old series could mix in), or ``None``."""
    if folder.exists() and not folder.is_dir():
        return f"{folder} is not a folder"
    if folder.is_dir() and any(folder.iterdir()):
        return f"{folder} is not empty: give a new or empty folder, so no older patch mixes into the series"
    return None


def _header(pass_id: str, number: int, total: int, files: Sequence[tuple[str, int]]) -> str:
    lines = [f"torchmigrate pass {number}/{total}: {describe(pass_id)}"]
    if pass_id in {p.id for p in all_passes()}:
        lines.append(get_pass(pass_id).title)
    lines += ["", "Files:"] + [f"  {path} ({edits_text(count)})" for path, count in files] + ["", ""]
    return "\n".join(lines)


def write_patches(folder: Path, files: Sequence[SplitFile]) -> list[Path]:
    """One patch per pass in ``folder`` (``0001-<pass-id>.patch``, …, in release order); the paths written."""
    folder.mkdir(parents=True, exist_ok=True)
    order = passes_in_order(files)
    written = []
    for number, pass_id in enumerate(order, start=1):
        diffs: list[bytes] = []
        touched: list[tuple[str, int]] = []
        for f in files:
            for step_id, before, after in f.changes():
                if step_id == pass_id:
                    diffs.append(diff_bytes(FileResult(path=f.shown, old=before, new=after, encoding=f.encoding), f.shown))
                    touched.append((f.shown, f.edit_count(pass_id)))
        target = folder / f"{number:04d}-{pass_id}.patch"
        target.write_bytes(_header(pass_id, number, len(order), touched).encode("utf-8") + b"".join(diffs))
        written.append(target)
    return written
