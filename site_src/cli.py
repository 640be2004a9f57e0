"""Thin command wrappers: each reads the project, then hands it to one module.

Every option is declared once and accepted before or after the command (`build.py --strict check` and
`build.py check --strict` are the same); an option that does not apply to the command given is an error.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Any

from .allocator import fix_mmap_threshold
from .hosts import HOSTS
from .problems import Problems
from .progress import bar
from .readers.project import load_project
from .results import plural
from .systems import PluginError, systems

# Scoring, importing and rendering are imported by the commands that use them: a rebuild with nothing changed
# answers before any of them (scipy, altair, Flask) is loaded.

COMMANDS = (
    "build", "check", "scores", "serve", "review-kit", "import", "merge", "diff", "init", "systems", "matrix", "read"
)  # fmt: skip
# option dest -> (flags, argparse keywords, the commands it applies to, its default per command)
OPTIONS: dict[str, tuple[tuple[str, ...], dict[str, Any], dict[str, Any]]] = {
    "content": (
        ("--content",),
        {"help": "benchmark definitions folder (default: content)"},
        dict.fromkeys(COMMANDS, "content"),
    ),
    "strict": (
        ("--strict",),
        {"action": "store_true", "help": "treat warnings as errors"},
        dict.fromkeys(COMMANDS, False),
    ),
    "runs": (
        ("--runs",),
        {"action": "append", "help": "a runs folder; repeatable (default: runs)"},
        dict.fromkeys(COMMANDS, None),
    ),
    "out": (
        ("--out",),
        {"help": "output folder (default: _site; for review-kit, _review; for read, _reads)"},
        {"build": "_site", "merge": "_site", "review-kit": "_review", "read": "_reads"},
    ),
    "base_path": (
        ("--base-path",),
        {"help": "the site's path on its host, e.g. /repo/ (default: /)"},
        {"build": "/", "merge": "/"},
    ),
    "no_search": (
        ("--no-search",),
        {"action": "store_true", "help": "skip the search index"},
        {"build": False, "merge": False, "serve": False},
    ),
    "redact_secrets": (
        ("--redact-secrets",),
        {
            "action": "store_true",
            "help": "publish with each possible secret replaced by a visible marker (default: refuse to build)",
        },
        {"build": False, "merge": False},
    ),
    "quiet": (
        ("--quiet", "-q"),
        {"action": "store_true", "help": "no progress display and no totals; problems are still printed"},
        {"build": False, "merge": False, "read": False},
    ),
    "only": (
        ("--only",),
        {"help": "build one shard: only the pages of BENCHMARK/VERSION (joined later with build.py merge)"},
        {"build": None, "read": None},
    ),
    "slice": (
        ("--slice",),
        {
            "metavar": "K/N",
            "help": "with --only: render only slice K of N of that version (joined by build.py merge); for read: "
            "read only batch K of N of the runs",
        },
        {"build": None, "read": None},
    ),
    "reads": (
        ("--reads",),
        {
            "action": "append",
            "metavar": "FOLDER",
            "help": "runs read by build.py read (its folder, or a folder of such folders): taken instead of read "
            "again; repeatable",
        },
        {"build": None},
    ),
    "slices": (
        ("--slices",),
        {"type": int, "metavar": "N", "help": "render each version in N slices, a job each (default: 1)"},
        {"matrix": 1},
    ),
    "fresh": (
        ("--fresh",),
        {"action": "store_true", "help": "render every page, ignoring what the last build into --out recorded"},
        {"build": False},
    ),
    "changes_since": (
        ("--changes-since",),
        {"metavar": "OLD_SITE", "help": "an earlier built site: each benchmark gets a page of what changed since"},
        {"build": None},
    ),
    "host": (
        ("--host",),
        {
            "choices": sorted(HOSTS),
            "help": "check the site against that host's documented limits before putting it in place (default: none)",
        },
        {"build": None, "merge": None},
    ),
    "port": (("--port",), {"type": int, "help": "preview port (default: 8000)"}, {"serve": 8000}),
    "site": (
        ("--site",),
        {"help": "the published site folder, which the kit must stay out of (default: _site)"},
        {"review-kit": "_site"},
    ),
    "pairs": (
        ("--pairs",),
        {"type": int, "help": "pairs to draw when a run has no answer key (default: 12)"},
        {"review-kit": 12},
    ),
    "benchmark": (
        ("--benchmark",),
        {"help": "import: the benchmark id to import into (required); init: the new benchmark's id"},
        {"import": None, "init": "my-benchmark"},
    ),
    "version": (
        ("--version",),
        {"help": "the benchmark version to import into (default: from the files)"},
        {"import": None},
    ),
    "publish_reasoning": (
        ("--publish-reasoning",),
        {"action": "store_true", "help": "show the model's reasoning in imported transcripts (default: left out)"},
        {"import": False},
    ),
    "publish_images": (
        ("--publish-images",),
        {"action": "store_true", "help": "show the images held in imported transcripts (default: left out)"},
        {"import": False},
    ),
    "annotator": (
        ("--annotator",),
        {"help": "the judge folder to import when a model folder holds several (AlpacaEval)"},
        {"import": None},
    ),
    "publish_raw_completions": (
        ("--publish-raw-completions",),
        {"action": "store_true", "help": "show judges' raw completions of imported judgments (default: private)"},
        {"import": False},
    ),
    "leaderboard": (
        ("--leaderboard",),
        {"help": "the source's published leaderboard CSV, to compare with the recomputation"},
        {"import": None},
    ),
    "example": (
        ("--example",),
        {"action": "store_true", "help": "also write a run of invented example responses (marked as demo data)"},
        {"init": False},
    ),
    "seed": (("--seed",), {"type": int, "help": "seed for drawing pairs (default: 1)"}, {"review-kit": 1}),
}
MAX_SLICES = 256  # a CI matrix holds at most 256 jobs
_BASE_PATH = re.compile(r"/(?:(?!\.\.?/)[A-Za-z0-9._~-]+/)*")  # no empty, "." or ".." segment


def _parser() -> argparse.ArgumentParser:
    def add_options(p: argparse.ArgumentParser, command: str | None) -> None:
        for dest, (flags, kwargs, defaults) in OPTIONS.items():
            if command is None or command in defaults:
                p.add_argument(*flags, dest=dest, default=argparse.SUPPRESS, **kwargs)

    parser = argparse.ArgumentParser(
        prog="evalboard" if Path(sys.argv[0]).name == "evalboard" else "build.py",
        description="Recompute LLM-evaluation scores and build the site. Options go before or after the command.",
    )
    add_options(parser, None)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    helps = {
        "build": "build the static site (the default command)",
        "check": "validate definitions and runs; exit 1 on any error",
        "scores": "print the recomputed tables as text",
        "serve": "preview the site locally; the server restarts when an input changes (reload the page to see it)",
        "review-kit": "write the blind human review kit (never published)",
        "import": "import another tool's result files as run directories (SOURCE PATH...)",
        "merge": "join shards built with --only into one site (SHARD...), rendering only the site-wide pages",
        "diff": "what changed between two built sites (OLD NEW): rows, ranks, scores with paired intervals, flips",
        "init": "write a project to start from (FOLDER, default: here): a benchmark to edit, runs/, deploy files",
        "systems": "list the evaluation systems installed (those shipped and those added by plugins)",
        "matrix": "print a CI matrix (JSON): a job per slice of each version ([VERSION…], default: those with runs)",
        "read": "read a batch of the runs once (--only, --slice K/N) into a folder that slices take with --reads",
    }
    for command in COMMANDS:
        p = sub.add_parser(command, help=helps[command])
        add_options(p, command)
        if command in ("check", "scores"):
            p.add_argument("paths", nargs="*", help="runs folders (default: runs)")
        if command == "merge":
            p.add_argument("shards", nargs="+", help="shard folders, each written by build.py --only")
        if command == "diff":
            p.add_argument("old", help="the earlier built site: a _site folder, or the URL of the published site")
            p.add_argument("new", help="the later built site")
            p.add_argument("--format", choices=("text", "markdown", "json"), default="text", dest="diff_format")
        if command == "matrix":
            p.add_argument("versions", nargs="*", help="BENCHMARK/VERSION names (default: every version with runs)")
        if command == "init":
            p.add_argument("folder", nargs="?", default=".", help="where to write the project (default: here)")
        if command == "import":
            sources = sorted(s.importer for s in systems() if s.importer)
            p.add_argument("source", help="what the files are: " + ", ".join(sources))
            p.add_argument("paths", nargs="+", help="the files (or, for alpaca-eval, folders) to import")
    return parser


def parse(argv: list[str] | None) -> argparse.Namespace:
    """Parse argv into one namespace holding every option of the command, given or defaulted."""
    parser = _parser()
    args = vars(parser.parse_args(argv))
    command = args.pop("command", None) or "build"
    for dest in args:
        if dest in OPTIONS and command not in OPTIONS[dest][2]:
            parser.error(f"{OPTIONS[dest][0][0]} does not apply to the {command} command")
    values = {dest: defaults[command] for dest, (_, _, defaults) in OPTIONS.items() if command in defaults}
    values.update(args)
    values.setdefault("paths", [])
    if values.get("slice"):
        k, _, n = values["slice"].partition("/")
        if not (k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n) <= MAX_SLICES):
            parser.error(f"--slice {values['slice']!r} is not K/N with 1 <= K <= N <= {MAX_SLICES} (e.g. 2/16)")
        if not values.get("only") and command != "read":
            parser.error("--slice renders a slice of one version: give that version with --only BENCHMARK/VERSION")
    if "base_path" in values and not _BASE_PATH.fullmatch(values["base_path"]):
        parser.error(
            f"--base-path {values['base_path']!r} is not a path that starts and ends with '/' (e.g. / or /repo/)"
        )
    return argparse.Namespace(command=command, **values)


def _roots(args: argparse.Namespace) -> list[Path]:
    return [Path(p) for p in [*args.paths, *(args.runs or [])] or ["runs"]]


def _config(args: argparse.Namespace) -> Any:
    """The build room's configuration of a build, merge or read command."""
    from .build import BuildConfig

    return BuildConfig(
        out=Path(args.out),
        content=Path(args.content),
        runs=_roots(args),
        base_path=getattr(args, "base_path", "/"),
        search=not getattr(args, "no_search", False),
        redact_secrets=getattr(args, "redact_secrets", False),
        strict=args.strict,
        quiet=args.quiet,
        only=getattr(args, "only", None),
        part=_slice(args),
        fresh=getattr(args, "fresh", False),
        shards=[Path(p) for p in getattr(args, "shards", [])],
        reads=[Path(p) for p in getattr(args, "reads", None) or []],
        changes_since=Path(args.changes_since) if getattr(args, "changes_since", None) else None,
        host=getattr(args, "host", None),
    )


def _slice(args: argparse.Namespace) -> tuple[int, int] | None:
    """--slice K/N as (K, N), checked by parse."""
    given = getattr(args, "slice", None)
    if not given:
        return None
    k, n = given.split("/")
    return int(k), int(n)


def main(argv: list[str] | None = None) -> int:
    try:
        systems()  # an installed plugin that cannot be loaded stops every command, named
    except PluginError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    args = parse(argv)
    if args.command == "serve":
        from .build.preview import serve

        return serve(args.content, args.runs or ["runs"], args.port, search=not args.no_search)
    if args.command == "import":
        return _import(args)
    if args.command == "diff":
        return _diff(args)
    if args.command == "init":
        from .init_project import init

        return init(Path(args.folder), args.benchmark, args.example)
    if args.command == "systems":
        return _list_systems()
    if args.command == "matrix":
        return _matrix(args)
    if args.command in ("build", "merge"):
        from .build import build

        return build(_config(args))
    if args.command == "read":
        from .build.reads import read_batch

        return read_batch(_config(args))
    return _read_and_report(args)


def _matrix(args: argparse.Namespace) -> int:
    """The jobs of a sliced build as a GitHub Actions matrix, on one line of JSON: {"include": [{"version",
    "slice", "folder" (the version's, in artifacts' names), "name"}, ...]}, at most MAX_SLICES jobs (a matrix's
    limit). The read jobs and the render jobs both take it."""
    import json

    versions = list(args.versions)
    if not versions:  # read (and check) the project for the versions that have runs
        project = load_project(Path(args.content), _roots(args), Problems())
        if _report_problems(project, args.strict):
            return 1
        versions = [f"{b.id}/{v.id}" for b in project.benchmarks for v in b.versions if v.runs]
    n = args.slices
    if not 1 <= n <= MAX_SLICES or len(versions) * n > MAX_SLICES:
        print(f"error: {len(versions)} versions in {n} slices make {len(versions) * n} jobs; a matrix holds "
              f"1 to {MAX_SLICES}: choose fewer slices", file=sys.stderr)  # fmt: skip
        return 1
    jobs = [
        {
            "version": v,
            "slice": f"{k}/{n}",
            "folder": v.replace("/", "--"),
            "name": f"{v.replace('/', '--')}--{k}-of-{n}",
        }
        for v in versions
        for k in range(1, n + 1)
    ]
    print(json.dumps({"include": jobs}, separators=(",", ":")))
    return 0


def _report_problems(project: Any, strict: bool) -> bool:
    from .build.report import problems

    return problems(project, strict)


def _list_systems() -> int:
    for s in systems():
        print(f"{s.id:<14} {s.origin}")
    return 0


def console() -> None:
    """The `evalboard` command (and build.py). Once the command is done, every file is written and closed and
    every worker has ended: it leaves without freeing what was read object by object, which took Python 0.6-0.8 s
    at exit after a build of 10,000 transcripts."""
    fix_mmap_threshold()  # what the command frees in large blocks goes back (allocator.py)
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _diff(args: argparse.Namespace) -> int:
    from .release_diff import DiffError, diff, render

    try:
        print(render(diff(args.old, args.new), args.diff_format), end="")
    except DiffError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def _import(args: argparse.Namespace) -> int:
    from .importing import run_import

    if not args.benchmark:
        print("error: import needs --benchmark ID", file=sys.stderr)
        return 2
    runs = Path((args.runs or ["runs"])[0])
    options = {
        k: getattr(args, k)
        for k in (
            "publish_reasoning",
            "publish_images",
            "publish_raw_completions",
            "leaderboard",
            "annotator",
        )
    }
    return run_import(
        args.source, [Path(p) for p in args.paths], args.benchmark, args.version, Path(args.content), runs, options
    )


def _read_and_report(args: argparse.Namespace) -> int:
    """check, scores and review-kit: read the runs (no cache: nothing is written beside them), then the command."""
    from .build.report import problems

    with bar("reading", " runs", False) as reading:
        project = load_project(Path(args.content), _roots(args), Problems(), reading)
    if args.command == "check":
        failed = problems(project, args.strict)
        if not failed:
            n = sum(len(v.runs) for b in project.benchmarks for v in b.versions)
            print(
                f"ok: {plural(len(project.benchmarks), 'benchmark')}, {plural(n, 'run')}, "
                f"{plural(len(project.problems.warnings), 'warning')}"
            )
        return 1 if failed else 0
    if problems(project, args.strict):
        return 1
    if args.command == "scores":
        from .report import text_report

        sys.stdout.write(text_report(project))
        return 0
    from .review_kit import write_review_kit

    return write_review_kit(project, Path(args.out), Path(args.site), args.pairs, args.seed)
