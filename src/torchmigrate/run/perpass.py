"""A migration one pass at a time: ``--git-commit --commit-per-pass`` and ``--diff --split-by-pass DIR``.

The engine runs a file's passes as one chain, each on the previous one's output, and keeps only the first and last
text. To show each pass's share, the chain is replayed: the file's original text is migrated again with only its first
applied pass, then its first two, … (:func:`~torchmigrate.run.handlers.migrate_file_text` with ``only``; the run's
options are kept, so project file passes decide as they did). Each step is a real output of the tool, so it parses,
and consecutive steps chain exactly: the patches apply in order and the last one ends at the migrated file.

A file whose replay does not retrace the run (a step fails or changes nothing) is not split: its whole change goes
with its last pass, and :attr:`SplitFile.split` says so.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from torchmigrate.core.registry import Options, all_passes, get_pass
from torchmigrate.core.results import Edit, FileResult
from torchmigrate.run import gitops
from torchmigrate.run.files import encode

__all__ = ["PassStep", "SplitFile", "commit_per_pass", "pass_message", "release_order", "split_result"]


@dataclass(frozen=True)
class PassStep:
    """The file's text once ``pass_id`` (and every applied pass before it) has run."""

    pass_id: str
    text: str


@dataclass
class SplitFile:
    """One changed file, as a sequence of per-pass steps from ``old`` to the migrated text."""

    path: Path  # the file on disk
    shown: str  # as reports and diffs name it
    old: str
    encoding: str
    steps: list[PassStep] = field(default_factory=list)
    edits: list[Edit] = field(default_factory=list)
    split: bool = True  # False: the replay did not retrace the run; the whole change is the last step

    def changes(self) -> Iterator[tuple[str, str, str]]:
        """``(pass_id, text before, text after)`` for each step."""
        before = self.old
        for step in self.steps:
            yield step.pass_id, before, step.text
            before = step.text

    def edit_count(self, pass_id: str) -> int:
        return sum(1 for e in self.edits if e.pass_id == pass_id)


def release_order(ids: Iterable[str]) -> list[str]:
    """``ids`` (without repeats) in the registry's order: release, then id. Ids it does not know come last."""
    rank = {p.id: i for i, p in enumerate(all_passes())}
    return sorted(dict.fromkeys(ids), key=lambda i: (rank.get(i, len(rank)), i))


def split_result(path: Path, result: FileResult, options: Options) -> SplitFile | None:
    """The steps of ``result`` (a changed file migrated with ``options``), or ``None`` when it did not change."""
    if not result.changed or result.old is None or result.new is None:
        return None
    from torchmigrate.run.handlers import migrate_file_text  # the engine loads only when something is replayed

    order = release_order(result.passes_applied)
    split = SplitFile(path, result.path, result.old, result.encoding, edits=list(result.edits))
    texts: list[str] = []
    known = {p.id for p in all_passes()}
    if all(pass_id in known for pass_id in order):
        for count in range(1, len(order)):
            replay = migrate_file_text(path, result.old, options, result.path, only=frozenset(order[:count]))
            text = replay.code
            previous = texts[-1] if texts else result.old
            if replay.error is not None or text == previous or text == result.new:
                texts = []
                break
            texts.append(text)
        else:
            texts.append(result.new)
    if len(texts) != len(order):  # not retraced (or an id the registry does not know): one step, with the last pass
        split.split = len(order) == 1
        split.steps = [PassStep(order[-1] if order else "torchmigrate", result.new)]
        return split
    split.steps = [PassStep(pass_id, text) for pass_id, text in zip(order, texts, strict=True)]
    return split


def passes_in_order(files: Sequence[SplitFile]) -> list[str]:
    """The passes that changed any of ``files``, in release order."""
    return release_order(step.pass_id for f in files for step in f.steps)


# --- --git-commit --commit-per-pass -----------------------------------------------------------------------------------


def describe(pass_id: str) -> str:
    try:
        p = get_pass(pass_id)
    except KeyError:
        return pass_id
    return f"{p.id} (PyTorch {p.release}, {p.safety.value})"


def edits_text(count: int) -> str:
    return "1 edit" if count == 1 else f"{count} edits"


def pass_message(pass_id: str, number: int, total: int, to: str, files: Sequence[tuple[str, int]], split: bool = True) -> str:
    """The commit message of one pass: the pass, its release and safety, what to review, the files it changed."""
    lines = [f"torchmigrate: {describe(pass_id)}", ""]
    known = pass_id in {p.id for p in all_passes()}
    if known:
        p = get_pass(pass_id)
        lines += [p.title, ""]
    lines.append(f"Pass {number} of {total} of the migration to PyTorch {to}.")
    if not split:
        lines.append("Some files could not be split by pass: this commit also holds the changes of their earlier passes.")
    lines += ["", "Files:"] + [f"- {path} ({edits_text(count)})" for path, count in files]
    if known:
        if p.review_note:
            lines += ["", f"What to review: {p.review_note}"]
        lines += ["", f"Evidence: {p.evidence}"]
    return "\n".join(lines) + "\n"


def _relative(top: Path, path: Path) -> str:
    return os.path.relpath(os.path.realpath(path), os.path.realpath(top)).replace(os.sep, "/")


def commit_per_pass(top: Path, files: Sequence[SplitFile], to: str) -> list[str]:
    """One commit per pass (release order) on the current branch of the work tree at ``top``, each holding the files
    as that pass left them; the new commits' hashes. The work tree (already migrated) is not touched; the index
    entries of the committed files are set to the last commit. Raises :class:`~torchmigrate.run.gitops.GitError`."""
    order = passes_in_order(files)
    hashes: list[str] = []
    for number, pass_id in enumerate(order, start=1):
        contents: dict[str, bytes] = {}
        touched: list[tuple[str, int]] = []
        split = True
        for f in files:
            for step_id, _, after in f.changes():
                if step_id == pass_id:
                    relative = _relative(top, f.path)
                    contents[relative] = encode(after, f.encoding)
                    touched.append((relative, f.edit_count(pass_id)))
                    split = split and f.split
        message = pass_message(pass_id, number, len(order), to, touched, split)
        hashes.append(gitops.commit_contents(top, contents, message))
    paths = sorted({_relative(top, f.path) for f in files})
    if paths:
        gitops.reset_index(top, paths)
        left = gitops.changed_against_head(top, paths)
        if left:  # the steps did not end at the files on disk: commit what is there, so nothing is left out
            hashes.append(gitops.commit(top, [top / p for p in left], "torchmigrate: the rest of the migration\n"))
    return hashes

