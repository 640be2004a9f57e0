"""Thin command wrappers: each reads the project, then hands it to one module."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .problems import Problems
from .readers.project import Project, load_project
from .report import text_report

ROOT = Path(__file__).resolve().parent.parent


def _load(paths: list[str], content: str) -> Project:
    return load_project(Path(content), [Path(p) for p in (paths or ["runs"])], Problems())


def _print_problems(project: Project, strict: bool) -> bool:
    """Print every problem; return True when the command must fail."""
    for problem in project.problems.items:
        print(problem, file=sys.stderr)
    failed = project.problems.failed(strict)
    errors, warnings = len(project.problems.errors), len(project.problems.warnings)
    if failed:
        why = f"{errors} error(s)" + (f", {warnings} warning(s) (--strict)" if strict and warnings else "")
        print(f"check failed: {why}", file=sys.stderr)
    return failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="build.py", description="Recompute LLM-evaluation scores and build the site.")
    parser.add_argument("--content", default="content", help="benchmark definitions folder (default: content)")
    parser.add_argument("--strict", action="store_true", help="treat warnings as errors")
    sub = parser.add_subparsers(dest="command")
    p_check = sub.add_parser("check", help="validate definitions and runs")
    p_check.add_argument("paths", nargs="*", help="run folders (default: runs)")
    p_scores = sub.add_parser("scores", help="print recomputed tables as text")
    p_scores.add_argument("paths", nargs="*")
    p_build = sub.add_parser("build", help="build the static site (the default command)")
    p_kit = sub.add_parser("review-kit", help="write the blind human review kit (never published)")
    p_kit.add_argument("--runs", action="append", help="run folder(s) (default: runs)")
    p_kit.add_argument("--out", default="_review", help="kit folder (default: _review)")
    p_kit.add_argument("--site", default="_site", help="the published site folder, which the kit must stay out of")
    p_kit.add_argument("--pairs", type=int, default=12, help="pairs to draw when a run has no answer key")
    p_kit.add_argument("--seed", type=int, default=1, help="seed for drawing pairs")
    p_serve = sub.add_parser("serve", help="preview the site locally, rebuilt on every change")
    p_serve.add_argument("--port", type=int, default=8000)
    p_serve.add_argument("--runs", action="append", help="run folder(s) (default: runs)")
    for p in (p_build, parser):
        p.add_argument("--runs", action="append", help="run folder(s) (default: runs)")
        p.add_argument("--out", default="_site", help="output folder (default: _site)")
        p.add_argument("--base-path", default="/", help="site path on its host, e.g. /repo/ (used by the 404 page)")
        p.add_argument("--no-search", action="store_true", help="skip the search index")
        p.add_argument(
            "--redact-secrets",
            action="store_true",
            help="publish with each possible secret replaced by a visible marker (default: refuse to build)",
        )
    args = parser.parse_args(argv)
    command = args.command or "build"
    if command == "check":
        project = _load(args.paths, args.content)
        failed = _print_problems(project, args.strict)
        if not failed:
            n = sum(len(v.runs) for b in project.benchmarks for v in b.versions)
            print(
                f"ok: {len(project.benchmarks)} benchmark(s), {n} run(s), {len(project.problems.warnings)} warning(s)"
            )
        return 1 if failed else 0
    if command == "scores":
        project = _load(args.paths, args.content)
        if _print_problems(project, args.strict):
            return 1
        sys.stdout.write(text_report(project))
        return 0
    if command == "build":
        from .site.build import build_site

        project = _load(args.runs or [], args.content)
        if _print_problems(project, args.strict):
            print("nothing was written", file=sys.stderr)
            return 1
        return build_site(
            project,
            Path(args.out),
            base_path=args.base_path,
            search=not args.no_search,
            redact_secrets=args.redact_secrets,
        )
    if command == "review-kit":
        from .review_kit import write_review_kit

        roots = args.runs or ["runs"]
        project = _load(roots, args.content)
        if _print_problems(project, args.strict):
            return 1
        forbidden = [Path(args.site), *map(Path, roots)]
        return write_review_kit(project, Path(args.out), forbidden, args.pairs, args.seed)
    if command == "serve":
        from .site.preview import serve

        return serve(args.content, args.runs or ["runs"], args.port)
    parser.error(f"unknown command {command}")
    return 2
