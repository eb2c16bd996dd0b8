"""The ``migrate`` command (typer). Parses options, calls the API, renders. No transform logic lives here.

No ``from __future__ import annotations`` here: typer reads the command's annotations with ``inspect.signature`` and
``typing.get_type_hints``, which compile and evaluate each string annotation twice on every run (≈10 ms of a warm run,
measured); written as objects they are built once, with the function.
"""

import contextlib
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, BinaryIO

import typer

from torchmigrate.core.about import __version__
from torchmigrate.core.passes import Pass
from torchmigrate.core.registry import all_passes, get_pass
from torchmigrate.core.results import FileResult, Summary
from torchmigrate.core.versions import Version, VersionError, parse_version
from torchmigrate.output import tables, terminal
from torchmigrate.output.docs import render_explain
from torchmigrate.output.jsonreport import JsonReportWriter
from torchmigrate.output.progress import ProgressBar
from torchmigrate.run import config, replay, trees
from torchmigrate.run.bulk import BulkRun, GitPlan, RepoOutcome, read_repo_list
from torchmigrate.run.plan import ProjectReads, selection_warnings
from torchmigrate.run.runner import Runner

if TYPE_CHECKING:
    from torchmigrate.output.html import HtmlReport


class OutputFormat(str, Enum):
    text = "text"
    json = "json"
    sarif = "sarif"
    github = "github"


class Color(str, Enum):
    auto = "auto"
    always = "always"
    never = "never"


app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None)

EXIT_OK, EXIT_CHECK, EXIT_ERROR = 0, 1, 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it


def _fail(message: str) -> typer.Exit:
    replay.forbid()
    typer.echo(f"migrate: error: {message}", err=True)
    return typer.Exit(EXIT_ERROR)


def _ids(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [part.strip() for part in value.split(",") if part.strip()]


@app.command()
def migrate(
    paths: Annotated[list[Path] | None, typer.Argument(help="Files or folders to migrate.", show_default=False)] = None,
    to: Annotated[str | None, typer.Option("--to", help="Target PyTorch release, e.g. 2.12 (or `to` in pyproject.toml).")] = None,
    from_: Annotated[
        str | None,
        typer.Option(
            "--from",
            help="Release the code targets now (default: the project's torch pin, else the oldest known).",
        ),
    ] = None,
    diff: Annotated[bool, typer.Option("--diff", help="Print a unified diff to stdout; write nothing.")] = False,
    check: Annotated[
        bool, typer.Option("--check", help="Write nothing; exit 1 if anything would change or a finding exists.")
    ] = False,
    select: Annotated[
        str | None, typer.Option("--select", help="Run only these pass ids (comma-separated); names opt-in passes.")
    ] = None,
    ignore: Annotated[str | None, typer.Option("--ignore", help="Skip these pass ids (comma-separated).")] = None,
    unsafe_fixes: Annotated[
        bool | None,
        typer.Option(
            "--unsafe-fixes/--no-unsafe-fixes",
            help="Also apply review-level edits (default: report each one with its suggested change).",
            show_default=False,
        ),
    ] = None,
    min_torch: Annotated[
        str | None,
        typer.Option(
            "--min-torch",
            help="Oldest torch the migrated code must still run on (default: the project's torch requirement after "
            "the migration, else --to).",
        ),
    ] = None,
    list_: Annotated[bool, typer.Option("--list", help="List the passes (with --to: those up to that release).")] = False,
    explain: Annotated[str | None, typer.Option("--explain", help="Show one pass's documentation and examples.")] = None,
    version: Annotated[bool, typer.Option("--version", help="Show the version and exit.")] = False,
    # -- configuration, output formats, terminal --
    config_file: Annotated[
        Path | None, typer.Option("--config", help="Read settings from this TOML file, not the closest pyproject.toml.")
    ] = None,
    isolated: Annotated[bool, typer.Option("--isolated", help="Ignore every configuration file.")] = False,
    exclude: Annotated[
        str | None, typer.Option("--exclude", help="Skip files matching these gitignore-style patterns (comma-separated).")
    ] = None,
    extend_exclude: Annotated[
        str | None, typer.Option("--extend-exclude", help="Patterns to skip in addition to `exclude` (comma-separated).")
    ] = None,
    output_format: Annotated[
        OutputFormat, typer.Option("--format", help="How edits and findings are reported: text, json, sarif, github.")
    ] = OutputFormat.text,
    output_file: Annotated[
        Path | None, typer.Option("--output-file", help="Write what stdout would carry (diff or report) to FILE.")
    ] = None,
    color: Annotated[Color, typer.Option("--color", help="Colour terminal output: auto, always, never.")] = Color.auto,
    # -- scale and bulk (README: Performance, Many repositories) --
    jobs: Annotated[int | None, typer.Option("--jobs", "-j", min=1, help="Worker processes (default: CPUs).")] = None,
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Neither read nor write .torchmigrate_cache/.")] = False,
    repos_from: Annotated[
        str | None, typer.Option("--repos-from", help="Also migrate the PATHs listed in this file (- for stdin).")
    ] = None,
    progress: Annotated[
        bool | None, typer.Option("--progress/--no-progress", help="Progress bar on stderr (default: when a terminal).")
    ] = None,
    report: Annotated[Path | None, typer.Option("--report", help="Write a JSON report of the run to this file.")] = None,
    git_branch: Annotated[
        str | None, typer.Option("--git-branch", help="In each git repository, put the migration on this new branch.")
    ] = None,
    git_commit: Annotated[bool, typer.Option("--git-commit", help="Commit the migration in each git repository.")] = False,
    allow_dirty: Annotated[
        bool, typer.Option("--allow-dirty", help="Allow --git-branch/--git-commit on a work tree with changes.")
    ] = False,
    # -- review aids (README: Reviewing a migration) --
    commit_per_pass: Annotated[
        bool, typer.Option("--commit-per-pass", help="With --git-commit: one commit per applied pass, in release order.")
    ] = False,
    split_by_pass: Annotated[
        Path | None, typer.Option("--split-by-pass", help="With --diff: also write one patch per pass into this new folder.")
    ] = None,
    report_html: Annotated[
        Path | None, typer.Option("--report-html", help="Write a self-contained HTML report of the run to this file.")
    ] = None,
    executor: Annotated[str, typer.Option("--executor", help="Where the work runs: local or ray.")] = "local",
    ray_address: Annotated[
        str | None, typer.Option("--ray-address", help="Ray cluster to use (default: RAY_ADDRESS, else a local Ray).")
    ] = None,
) -> None:
    """Rewrite PyTorch code for a newer release: `migrate --to 2.12 [--diff | --check] PATH...`."""
    if version:
        typer.echo(f"torchmigrate {__version__}")
        raise typer.Exit(EXIT_OK)
    if explain is not None:
        raise typer.Exit(_explain(explain, color))
    if list_:
        raise typer.Exit(_list(to))
    if diff and output_format is not OutputFormat.text:
        raise _fail(f"--diff cannot be combined with --format {output_format.value}: the report lists every edit")
    if (git_branch or git_commit) and (diff or check):
        raise _fail("--git-branch/--git-commit write and commit files: they cannot go with --diff or --check")
    if executor not in ("local", "ray"):
        raise _fail(f"unknown --executor {executor!r} (local or ray)")
    _check_review_aids(commit_per_pass, git_commit, split_by_pass, diff)
    all_paths = _paths(paths, repos_from, to, config_file, isolated)
    for flag, value in (("--to", to), ("--from", from_), ("--min-torch", min_torch)):
        _version_or_fail(flag, value)
    overrides = config.Overrides(
        to, from_, _ids(select), _ids(ignore), _ids(exclude), _ids(extend_exclude) or (), unsafe_fixes, min_torch
    )
    reads = ProjectReads()  # each project's requirements, CI and style files: read once for the whole run
    request = Request(
        plans=_plans(all_paths, overrides, config_file, isolated, reads),
        mode="diff" if diff else "check" if check else "write",
        output_format=output_format,
        output_file=output_file,
        color=color,
        progress=progress,
        report=report,
        git=GitPlan(branch=git_branch, commit=git_commit, allow_dirty=allow_dirty, per_pass=commit_per_pass),
        jobs=jobs,
        cache=not no_cache,
        executor=executor,
        ray_address=ray_address,
        split_by_pass=split_by_pass,
        report_html=report_html,
        reads=reads,
    )
    if (
        (diff or check)
        and not no_cache
        and output_file is None
        and report is None
        and report_html is None
        and split_by_pass is None
        and repos_from is None
        and executor == "local"
        and not progress
    ):
        replay.allow(all_paths)  # writes nothing, prints on stdout and stderr only: may be replayed when unchanged
    raise typer.Exit(_run(request))


def _check_review_aids(commit_per_pass: bool, git_commit: bool, split_by_pass: Path | None, diff: bool) -> None:
    """``--commit-per-pass`` needs ``--git-commit``; ``--split-by-pass DIR`` needs ``--diff`` and a new or empty DIR."""
    if commit_per_pass and not git_commit:
        raise _fail("--commit-per-pass splits the commit of --git-commit: add --git-commit")
    if split_by_pass is not None:
        if not diff:
            raise _fail("--split-by-pass DIR splits the diff of --diff: add --diff")
        from torchmigrate.output.patches import check_folder

        problem = check_folder(split_by_pass)
        if problem is not None:
            raise _fail(f"--split-by-pass: {problem}")


def _explain(pass_id: str, color: Color) -> int:
    try:
        chosen = get_pass(pass_id)
    except KeyError:
        raise _fail(f"unknown pass id {pass_id!r} (see `migrate --list`)") from None
    if sys.stdout.isatty():
        _explain_on_a_terminal(chosen, color)
    elif terminal.use_color(color.value, sys.stdout):
        terminal.print_explain(terminal.console(sys.stdout, True, wrap=True), chosen)
    else:
        typer.echo(render_explain(chosen), nl=False)
    return EXIT_OK


def _explain_on_a_terminal(chosen: Pass, color: Color) -> None:
    """On a terminal the documentation is rendered (or plain, without colour) and paged when it is taller than the
    terminal, as git and man do."""
    from torchmigrate.output import pager

    if terminal.use_color(color.value, sys.stdout):
        out = terminal.console(sys.stdout, True, wrap=True)
        with out.capture() as captured:
            terminal.print_explain(out, chosen)
        text = captured.get()
    else:
        text = render_explain(chosen)
    pager.show(text)


def _list(to: str | None) -> int:
    limit = _version_or_fail("--to", to)
    for p in all_passes():
        if limit is None or p.version <= limit:
            typer.echo(p.summary_line)
    return EXIT_OK


def _version_or_fail(flag: str, value: str | None) -> Version | None:
    if value is None:
        return None
    try:
        return parse_version(value)
    except VersionError as exc:
        raise _fail(f"{flag}: {exc}") from None


def _paths(
    paths: list[Path] | None, repos_from: str | None, to: str | None, config_file: Path | None, isolated: bool
) -> list[Path]:
    """The PATHs of the run: the arguments, then the ``--repos-from`` list; each must exist."""
    all_paths: list[Path] = list(paths or [])
    if repos_from is not None:
        try:
            all_paths += [Path(p) for p in read_repo_list(repos_from)]
        except OSError as exc:
            raise _fail(f"cannot read --repos-from {repos_from}: {exc.strerror or exc}") from None
    if not all_paths:
        raise _fail(_no_path_message(to, config_file, isolated))
    missing = [str(p) for p in all_paths if not p.exists()]
    if missing:
        raise _fail(f"no such file or folder: {', '.join(missing)}")
    return all_paths


def _no_path_message(to: str | None, config_file: Path | None, isolated: bool) -> str:
    """No PATH: say so; name ``--to`` as missing too only when neither the command line nor the configuration that
    would apply here (``--config``, else the closest pyproject.toml) sets it."""
    message = "no PATH given: name the files or folders to migrate"
    if to is not None:
        return message
    configured = None
    if not isolated:
        try:
            found = config_file if config_file is not None else config.find_config_file(Path.cwd())
            configured = config.load_config(found).to if found is not None else None
        except (config.ConfigError, OSError, ValueError):
            configured = None  # a broken configuration is reported once a PATH is given
    if configured is None:
        message += ", and the release with --to VERSION (e.g. migrate --to 2.12 src/)"
    return message


def _plans(
    paths: list[Path], overrides: config.Overrides, config_file: Path | None, isolated: bool, reads: ProjectReads
) -> list[config.RootPlan]:
    """One plan per PATH (its configuration and options). ``--select`` of a pass the run cannot apply is an error
    (``make_options``), or a warning for a PATH whose ``--from`` is read from its torch pin."""
    try:
        plans = config.plan(paths, overrides, config_file, isolated)
    except (config.ConfigError, VersionError, ValueError) as exc:
        raise _fail(str(exc)) from None
    for root_plan in plans:
        for line in selection_warnings(root_plan.root, root_plan.options, root_plan.detect_from, reads):
            typer.echo(f"migrate: warning: {line}", err=True)
    return plans


@dataclass
class Request:
    """A validated command line: what to migrate, how to report it, and where the work runs."""

    plans: list[config.RootPlan]
    mode: str  # write, diff or check
    output_format: OutputFormat
    output_file: Path | None
    color: Color
    progress: bool | None
    report: Path | None
    git: GitPlan
    jobs: int | None
    cache: bool
    executor: str
    ray_address: str | None
    split_by_pass: Path | None = None
    report_html: Path | None = None
    reads: ProjectReads = field(default_factory=ProjectReads)

    @property
    def write(self) -> bool:
        return self.mode == "write"


def _run(request: Request) -> int:
    """Migrate, stream the results to the reporter, the JSON report and the progress bar; the exit code."""
    try:
        runner = Runner(jobs=request.jobs, cache=request.cache, executor=request.executor, ray_address=request.ray_address)
    except (RuntimeError, ValueError) as exc:
        raise _fail(str(exc)) from None
    request.reads.caches = runner.caches  # project readings are kept in the projects' caches too
    repos = trees.repositories(request.plans)  # files of one tree are one repository (pre-commit names them one by one)
    plans = [repo.plans[0] for repo in repos]
    bulk = BulkRun(
        [(repo.root, repo.plans[0].options, repo.plans[0].detect_from) for repo in repos],
        lambda index: config.tasks(repos[index].plans, request.reads),
        write=request.write,
        runner=runner,
        git=request.git,
        split_by_pass=request.split_by_pass is not None,
        reads=request.reads,
    )
    writer = None
    if request.report is not None:
        try:
            writer = JsonReportWriter(request.report, to=str(plans[0].options.to), mode=request.mode)
        except OSError as exc:
            raise _fail(f"cannot write --report {request.report}: {exc.strerror or exc}") from None
    html = _html_report(request)
    summary = Summary()
    bar: ProgressBar | None = None
    try:
        with _output(request.output_file) as stdout:
            reporter = terminal.Reporter(
                request.output_format.value,
                mode=request.mode,
                color=request.color.value,
                out=stdout,
                to_stdout=not request.output_file,
            )
            bar = ProgressBar.maybe(request.progress, reporter.err)  # one console for the bar, findings and errors
            bulk.preflight()
            for repo in bulk.repos:
                if repo.refused:
                    typer.echo(f"{repo.path}: error: {repo.error}", err=True)
            tasks = bulk.tasks()
            if bar is not None:
                planned = list(tasks)
                bar.start(len(planned))
                tasks = iter(planned)
            for repo, result in bulk.results(tasks):
                summary.add(result)
                if bar is not None:
                    bar.advance()
                if writer is not None:
                    writer.add(repo.path, result)
                if html is not None:
                    html.add(repo.path, result)
                if bar is not None and _prints(result, request):
                    with bar.paused():
                        reporter.add(result)
                else:
                    reporter.add(result)
            if bar is not None:
                bar.stop()
                bar = None
            for repo in bulk.repos:
                if repo.error:
                    replay.forbid()  # a repository refused or a git step that failed: its state, not its files
                if repo.error and not repo.refused:
                    typer.echo(f"{repo.path}: error: {repo.error}", err=True)
            reporter.list_would_fix()
            if len(bulk.repos) > 1 or bulk.git is not None:
                tables.print_table(reporter.err, tables.repo_table(bulk.repos, written=request.write))
            _count_repository_errors(summary, bulk.repos)
            reporter.finish(summary)
    except KeyboardInterrupt:
        if bar is not None:
            bar.stop()
            bar = None
        # Writes are atomic and hold Ctrl-C back until done (files.write_atomic): every file is whole, old or new.
        outcome = "each file is either fully migrated or as it was" if request.write else "nothing was written"
        typer.echo(f"migrate: interrupted: {outcome}", err=True)
        return EXIT_INTERRUPTED
    finally:
        if bar is not None:
            bar.stop()
        runner.close()
        if writer is not None and sys.exc_info()[0] is not None:
            writer.abort()
    if writer is not None:
        writer.finish(bulk.repos)
    _finish_review_aids(request, bulk, html, summary)
    if summary.errors or bulk.exit_error:
        return EXIT_ERROR
    if request.mode == "check" and (summary.changed or summary.findings):
        return EXIT_CHECK
    return EXIT_OK


def _html_report(request: Request) -> "HtmlReport | None":
    if request.report_html is None:
        return None
    folder = request.report_html.parent
    if not folder.is_dir() or not os.access(folder, os.W_OK) or request.report_html.is_dir():
        # checked before the run, as --report is: a write run must not end in a report it cannot write
        raise _fail(f"cannot write --report-html {request.report_html}: no writable folder {folder}")
    from torchmigrate.output.html import HtmlReport, RunOptions

    plans = request.plans
    options = RunOptions(
        mode=request.mode,
        to=str(plans[0].options.to),
        argv=tuple(sys.argv[1:]),
        unsafe_fixes=plans[0].options.unsafe_fixes,
        select=tuple(sorted(plans[0].options.select or ())),
        ignore=tuple(sorted(plans[0].options.ignore)),
    )
    return HtmlReport(options)


def _finish_review_aids(request: Request, bulk: BulkRun, html: "HtmlReport | None", summary: Summary) -> None:
    """Write the ``--split-by-pass`` patches and the ``--report-html`` page once the run is through."""
    if request.split_by_pass is not None:
        from torchmigrate.output.patches import write_patches

        try:
            written = write_patches(request.split_by_pass, [f for repo in bulk.repos for f in repo.pass_files])
        except OSError as exc:
            raise _fail(f"cannot write --split-by-pass {request.split_by_pass}: {exc.strerror or exc}") from None
        typer.echo(f"torchmigrate: {len(written)} patch{'es' if len(written) != 1 else ''} in {request.split_by_pass}", err=True)
    if html is not None and request.report_html is not None:
        try:
            html.write(request.report_html, bulk.repos, summary)
        except OSError as exc:
            raise _fail(f"cannot write --report-html {request.report_html}: {exc.strerror or exc}") from None


def _prints(result: FileResult, request: Request) -> bool:
    """Whether the reporter prints anything for ``result`` (the progress bar steps aside for it)."""
    if result.error is not None:
        return True
    if request.output_format is not OutputFormat.text:
        return False
    diff_on_screen = request.mode == "diff" and result.changed and not request.output_file and sys.stdout.isatty()
    return bool(result.findings) or diff_on_screen  # a diff into a pipe or a file does not touch the terminal


def _count_repository_errors(summary: Summary, repos: list[RepoOutcome]) -> None:
    """A repository refused (or whose git step failed) is an error of the run, as its exit code 2 says: the summary
    counts it beside the files that could not be processed."""
    summary.errors += sum(1 for repo in repos if repo.error)


@contextlib.contextmanager
def _output(path: Path | None) -> Iterator[BinaryIO]:
    """stdout, or ``--output-file`` (written even when empty, so CI steps can always upload it)."""
    if path is None:
        yield sys.stdout.buffer
        return
    try:
        handle = path.open("wb")
    except OSError as exc:
        raise _fail(f"cannot write --output-file {path}: {exc.strerror or exc}") from None
    with handle:
        yield handle


def main() -> None:
    from torchmigrate.python.precheck import quiet_parse_warnings
    from torchmigrate.run.executors import tune_gc

    quiet_parse_warnings()
    tune_gc()
    app(prog_name="migrate")
